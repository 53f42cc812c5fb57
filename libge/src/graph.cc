// SPDX-License-Identifier: MIT
/* Graph: inputs, outputs and the operators between them. */
#include <functional>

#include "ge_internal.h"

namespace ge {
Graph::Graph(const char_t *name) : impl_(std::make_shared<GraphImpl>())
{
	impl_->name = name ? name : "";
}

Graph &Graph::SetInputs(const std::vector<Operator> &inputs)
{
	if (!impl_)
		impl_ = std::make_shared<GraphImpl>();
	impl_->inputs.clear();
	for (auto &op : inputs)
		if (!op.IsEmpty())
			impl_->inputs.push_back(OperatorImpl::shared(op));
	return *this;
}

Graph &Graph::SetOutputs(const std::vector<Operator> &outputs)
{
	if (!impl_)
		impl_ = std::make_shared<GraphImpl>();
	impl_->outputs.clear();
	for (auto &op : outputs) {
		if (op.IsEmpty())
			continue;
		/* Every output of each operator, in order. */
		size_t n = op.GetOutputsSize() ? op.GetOutputsSize() : 1;

		for (size_t i = 0; i < n; i++) {
			GraphOutput o;

			o.op = OperatorImpl::shared(op);
			o.index = i;
			impl_->outputs.push_back(o);
		}
	}
	return *this;
}

Graph &Graph::SetOutputs(const std::vector<std::pair<Operator, std::vector<size_t>>> &outputs)
{
	if (!impl_)
		impl_ = std::make_shared<GraphImpl>();
	impl_->outputs.clear();
	for (auto &p : outputs) {
		for (size_t i : p.second) {
			GraphOutput o;

			o.op = OperatorImpl::shared(p.first);
			o.index = i;
			impl_->outputs.push_back(o);
		}
	}
	return *this;
}

Graph &Graph::SetOutputs(const std::vector<std::pair<ge::Operator, AscendString>> &outputs)
{
	if (!impl_)
		impl_ = std::make_shared<GraphImpl>();
	impl_->outputs.clear();
	for (auto &p : outputs) {
		GraphOutput o;

		o.op = OperatorImpl::shared(p.first);
		o.output = p.second.GetString();
		impl_->outputs.push_back(o);
	}
	return *this;
}

bool Graph::IsValid() const
{
	return impl_ && (!impl_->onnx.empty() || !impl_->outputs.empty());
}

graphStatus Graph::AddOp(const ge::Operator &op)
{
	if (!impl_ || op.IsEmpty())
		return GRAPH_FAILED;
	impl_->added.push_back(OperatorImpl::shared(op));
	return GRAPH_SUCCESS;
}

/* Every operator, inputs first: those reachable from the outputs, then the rest. */
static void each_op(const GraphImpl *g,
		    const std::function<void(const std::shared_ptr<OperatorImpl> &)> &fn)
{
	std::set<OperatorImpl *> seen;
	std::function<void(const std::shared_ptr<OperatorImpl> &)> walk =
		[&](const std::shared_ptr<OperatorImpl> &op) {
			if (!op || !seen.insert(op.get()).second)
				return;
			for (auto &s : op->inputs)
				walk(s.src);
			fn(op);
		};

	for (auto &o : g->outputs)
		walk(o.op);
	for (auto &op : g->inputs)
		walk(op);
	for (auto &op : g->added)
		walk(op);
}

graphStatus Graph::FindOpByName(const char_t *name, ge::Operator &op) const
{
	std::shared_ptr<OperatorImpl> found;

	if (!impl_ || !name)
		return GRAPH_FAILED;
	each_op(impl_.get(), [&](const std::shared_ptr<OperatorImpl> &o) {
		if (!found && o->name == name)
			found = o;
	});
	if (!found)
		return GRAPH_FAILED;
	GraphImpl::set_operator(op, found);
	return GRAPH_SUCCESS;
}

graphStatus Graph::FindOpByType(const char_t *type, std::vector<ge::Operator> &ops) const
{
	if (!impl_ || !type)
		return GRAPH_FAILED;
	ops.clear();
	each_op(impl_.get(), [&](const std::shared_ptr<OperatorImpl> &o) {
		if (o->type == type) {
			Operator op;

			GraphImpl::set_operator(op, o);
			ops.push_back(op);
		}
	});
	return GRAPH_SUCCESS;
}

graphStatus Graph::GetAllOpName(std::vector<AscendString> &names) const
{
	if (!impl_)
		return GRAPH_FAILED;
	names.clear();
	each_op(impl_.get(), [&](const std::shared_ptr<OperatorImpl> &o) {
		names.push_back(AscendString(o->name.c_str()));
	});
	return GRAPH_SUCCESS;
}

graphStatus Graph::GetName(AscendString &name) const
{
	if (!impl_)
		return GRAPH_FAILED;
	name = AscendString(impl_->name.c_str());
	return GRAPH_SUCCESS;
}
}  // namespace ge
