/* SPDX-License-Identifier: MIT */
/*
 * Operator: one node of a graph, named, of an op type, with named inputs
 * (each linked to an output of another operator), named outputs with
 * their tensor descriptions, and attributes.  Copies of an Operator are
 * the same node.  The builders of all_ops.h (operator_reg.h) declare each
 * op type's inputs, outputs and attributes with their defaults.
 */
#ifndef INC_EXTERNAL_GRAPH_OPERATOR_H_
#define INC_EXTERNAL_GRAPH_OPERATOR_H_

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "graph/ascend_string.h"
#include "graph/ge_error_codes.h"
#include "graph/tensor.h"
#include "graph/types.h"

namespace ge {
class OperatorImpl;
class Graph;

class GE_FUNC_VISIBILITY Operator {
 public:
	Operator();
	explicit Operator(const char_t *type);
	Operator(const char_t *name, const char_t *type);
	Operator(const AscendString &name, const AscendString &type);
	virtual ~Operator() = default;

	bool IsEmpty() const;
	graphStatus GetName(AscendString &name) const;
	graphStatus GetOpType(AscendString &type) const;

	/* Links input dst_name to src_oprt's first output, named output or index. */
	Operator &SetInput(const char_t *dst_name, const Operator &src_oprt);
	Operator &SetInput(const char_t *dst_name, const Operator &src_oprt, const char_t *name);
	Operator &SetInput(const char_t *dst_name, const Operator &src_oprt, uint32_t index);
	Operator &SetInput(uint32_t dst_index, const Operator &src_oprt, uint32_t src_index);

	TensorDesc GetInputDescByName(const char_t *name) const;
	TensorDesc GetOutputDescByName(const char_t *name) const;
	TensorDesc GetInputDesc(uint32_t index) const;
	TensorDesc GetOutputDesc(uint32_t index) const;
	graphStatus UpdateInputDesc(const char_t *name, const TensorDesc &tensor_desc);
	graphStatus UpdateOutputDesc(const char_t *name, const TensorDesc &tensor_desc);
	size_t GetInputsSize() const;
	size_t GetOutputsSize() const;

	Operator &SetAttr(const char_t *name, int64_t attr_value);
	Operator &SetAttr(const char_t *name, int32_t attr_value);
	Operator &SetAttr(const char_t *name, uint32_t attr_value);
	Operator &SetAttr(const char_t *name, const std::vector<int64_t> &attr_value);
	Operator &SetAttr(const char_t *name, const std::vector<int32_t> &attr_value);
	Operator &SetAttr(const char_t *name, std::initializer_list<int64_t> &&attr_value);
	Operator &SetAttr(const char_t *name, float32_t attr_value);
	Operator &SetAttr(const char_t *name, const std::vector<float32_t> &attr_value);
	Operator &SetAttr(const char_t *name, bool attr_value);
	Operator &SetAttr(const char_t *name, const Tensor &attr_value);
	Operator &SetAttr(const char_t *name, const DataType &attr_value);
	Operator &SetAttr(const char_t *name, const char_t *attr_value);
	Operator &SetAttr(const char_t *name, const AscendString &attr_value);
	Operator &SetAttr(const char_t *name, const std::string &attr_value);

	graphStatus GetAttr(const char_t *name, int64_t &attr_value) const;
	graphStatus GetAttr(const char_t *name, int32_t &attr_value) const;
	graphStatus GetAttr(const char_t *name, std::vector<int64_t> &attr_value) const;
	graphStatus GetAttr(const char_t *name, float32_t &attr_value) const;
	graphStatus GetAttr(const char_t *name, std::vector<float32_t> &attr_value) const;
	graphStatus GetAttr(const char_t *name, bool &attr_value) const;
	graphStatus GetAttr(const char_t *name, Tensor &attr_value) const;
	graphStatus GetAttr(const char_t *name, DataType &attr_value) const;
	graphStatus GetAttr(const char_t *name, AscendString &attr_value) const;
	graphStatus GetAttr(const char_t *name, std::string &attr_value) const;

	/* What the builders of operator_reg.h declare. */
	void InputRegister(const char_t *name);
	void OptionalInputRegister(const char_t *name);
	void OutputRegister(const char_t *name);
	void DynamicInputRegister(const char_t *name, const uint32_t num, bool is_push_back = true);
	void DynamicOutputRegister(const char_t *name, const uint32_t num, bool is_push_back = true);
	void RequiredAttrRegister(const char_t *name);
	template <typename T>
	void AttrRegister(const char_t *name, const T &default_value)
	{
		SetAttr(name, default_value);
		MarkAttrDefault(name);
	}

 private:
	void MarkAttrDefault(const char_t *name);
	std::shared_ptr<OperatorImpl> impl_;
	friend class OperatorImpl;
	friend class GraphImpl;
};
}  // namespace ge

#endif  // INC_EXTERNAL_GRAPH_OPERATOR_H_
