/* SPDX-License-Identifier: MIT */
/*
 * libge_runner's insides: what an Operator, a Graph and a Session hold,
 * and the translation of a graph into ONNX operators, as libnpucc's graph
 * spec (to_onnx.cc).
 */
#ifndef NPU_GE_INTERNAL_H
#define NPU_GE_INTERNAL_H

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "ge/ge_api.h"
#include "graph/graph.h"
#include "graph/operator.h"
#include "graph/tensor.h"
#include "npu_dtypes.h"

namespace ge {
struct AttrValue {
	enum Kind { INT, FLOAT, STRING, BOOL, LIST_INT, LIST_FLOAT, TENSOR, DTYPE } kind = INT;
	int64_t i = 0;
	float f = 0;
	std::string s;
	bool b = false;
	std::vector<int64_t> ints;
	std::vector<float> floats;
	Tensor t;
	DataType dt = DT_FLOAT;
};

struct InputSlot {
	std::string name;
	bool optional = false;
	std::shared_ptr<OperatorImpl> src;
	std::string src_output;		/* by name, or */
	int src_index = 0;		/* by index when src_output is empty */
	TensorDesc desc;
	bool has_desc = false;
};

class OperatorImpl {
 public:
	std::string name, type;
	std::vector<InputSlot> inputs;
	std::vector<std::string> outputs;
	std::map<std::string, TensorDesc> output_desc;
	std::map<std::string, AttrValue> attrs;
	std::set<std::string> required;		/* REQUIRED_ATTR not set yet */

	InputSlot *input(const std::string &n);
	const InputSlot *input(const std::string &n) const;
	int output_index(const std::string &n) const;
	const AttrValue *attr(const std::string &n) const;
	static OperatorImpl *of(const Operator &op) { return op.impl_.get(); }
	static std::shared_ptr<OperatorImpl> shared(const Operator &op) { return op.impl_; }
};

struct GraphOutput {
	std::shared_ptr<OperatorImpl> op;
	std::string output;	/* by name, or */
	size_t index = 0;
};

class GraphImpl {
 public:
	std::string name;
	std::vector<std::shared_ptr<OperatorImpl>> inputs;
	std::vector<GraphOutput> outputs;
	std::vector<std::shared_ptr<OperatorImpl>> added;
	std::vector<uint8_t> onnx;	/* a parsed model: compiled as it is */
	std::string input_shape;	/* the parser's input_shape, for onnx */
	static GraphImpl *of(const Graph &g) { return g.impl_.get(); }
	static void set(Graph &g, std::shared_ptr<GraphImpl> impl) { g.impl_ = std::move(impl); }
	static void set_operator(Operator &op, std::shared_ptr<OperatorImpl> impl)
	{
		op.impl_ = std::move(impl);
	}
};

/* The error message GEGetErrorMsg returns on this thread. */
GE_FUNC_VISIBILITY void SetErrorMsg(const std::string &msg);
std::string ErrorMsg();

/*
 * The .om of a graph: translated into ONNX operators in libnpucc's graph
 * spec and compiled, or, for a parsed model, compiled from its ONNX bytes.
 * @shapes gives the inputs' shapes and types where BuildGraph was given
 * tensors.
 */
Status CompileGraphToOm(const GraphImpl &g, const std::vector<TensorDesc> &shapes,
			const std::map<std::string, std::string> &options,
			std::vector<uint8_t> &om, std::string &error);

int OnnxDataType(DataType dt);
}  // namespace ge

#endif  // NPU_GE_INTERNAL_H
