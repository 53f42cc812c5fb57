/* SPDX-License-Identifier: MIT */
/*
 * Graph: the operators reachable from its outputs, its inputs (Data
 * operators) and its outputs, or an ONNX model aclgrphParseONNX read.
 * Copies of a Graph are the same graph.
 */
#ifndef INC_EXTERNAL_GRAPH_GRAPH_H_
#define INC_EXTERNAL_GRAPH_GRAPH_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "graph/operator.h"

namespace ge {
class GraphImpl;
class Graph;
using GraphPtr = std::shared_ptr<Graph>;

class GE_FUNC_VISIBILITY Graph {
 public:
	explicit Graph(const char_t *name);
	Graph() = default;
	~Graph() = default;

	Graph &SetInputs(const std::vector<Operator> &inputs);
	Graph &SetOutputs(const std::vector<Operator> &outputs);
	Graph &SetOutputs(const std::vector<std::pair<Operator, std::vector<size_t>>> &output_indexs);
	Graph &SetOutputs(const std::vector<std::pair<ge::Operator, AscendString>> &outputs);

	bool IsValid() const;
	graphStatus AddOp(const ge::Operator &op);
	graphStatus FindOpByName(const char_t *name, ge::Operator &op) const;
	graphStatus FindOpByType(const char_t *type, std::vector<ge::Operator> &ops) const;
	graphStatus GetAllOpName(std::vector<AscendString> &names) const;
	graphStatus GetName(AscendString &name) const;

 private:
	std::shared_ptr<GraphImpl> impl_{nullptr};
	friend class GraphImpl;
};
}  // namespace ge

#endif  // INC_EXTERNAL_GRAPH_GRAPH_H_
