// SPDX-License-Identifier: MIT
/* Operator: a node's inputs, outputs, tensor descriptions and attributes. */
#include "ge_internal.h"

namespace ge {
InputSlot *OperatorImpl::input(const std::string &n)
{
	for (auto &s : inputs)
		if (s.name == n)
			return &s;
	return nullptr;
}

const InputSlot *OperatorImpl::input(const std::string &n) const
{
	for (auto &s : inputs)
		if (s.name == n)
			return &s;
	return nullptr;
}

int OperatorImpl::output_index(const std::string &n) const
{
	for (size_t i = 0; i < outputs.size(); i++)
		if (outputs[i] == n)
			return (int)i;
	return -1;
}

const AttrValue *OperatorImpl::attr(const std::string &n) const
{
	auto it = attrs.find(n);
	return it == attrs.end() ? nullptr : &it->second;
}

Operator::Operator() = default;

Operator::Operator(const char_t *type) : Operator(type, type) {}

Operator::Operator(const char_t *name, const char_t *type)
	: impl_(std::make_shared<OperatorImpl>())
{
	impl_->name = name ? name : "";
	impl_->type = type ? type : "";
}

Operator::Operator(const AscendString &name, const AscendString &type)
	: Operator(name.GetString(), type.GetString()) {}

bool Operator::IsEmpty() const { return !impl_; }

graphStatus Operator::GetName(AscendString &name) const
{
	if (!impl_)
		return GRAPH_FAILED;
	name = AscendString(impl_->name.c_str());
	return GRAPH_SUCCESS;
}

graphStatus Operator::GetOpType(AscendString &type) const
{
	if (!impl_)
		return GRAPH_FAILED;
	type = AscendString(impl_->type.c_str());
	return GRAPH_SUCCESS;
}

/* An input that no builder declared is added: Operator("x", "Type") graphs. */
static InputSlot *input_slot(OperatorImpl *op, const char_t *name)
{
	InputSlot *s = op->input(name ? name : "");

	if (!s && name && *name) {
		op->inputs.push_back(InputSlot());
		s = &op->inputs.back();
		s->name = name;
	}
	return s;
}

Operator &Operator::SetInput(const char_t *dst_name, const Operator &src_oprt)
{
	return SetInput(dst_name, src_oprt, 0U);
}

Operator &Operator::SetInput(const char_t *dst_name, const Operator &src_oprt, const char_t *name)
{
	InputSlot *s = impl_ ? input_slot(impl_.get(), dst_name) : nullptr;

	if (s) {
		s->src = src_oprt.impl_;
		s->src_output = name ? name : "";
		s->src_index = 0;
	}
	return *this;
}

Operator &Operator::SetInput(const char_t *dst_name, const Operator &src_oprt, uint32_t index)
{
	InputSlot *s = impl_ ? input_slot(impl_.get(), dst_name) : nullptr;

	if (s) {
		s->src = src_oprt.impl_;
		s->src_output.clear();
		s->src_index = (int)index;
	}
	return *this;
}

Operator &Operator::SetInput(uint32_t dst_index, const Operator &src_oprt, uint32_t src_index)
{
	if (impl_ && dst_index < impl_->inputs.size())
		SetInput(impl_->inputs[dst_index].name.c_str(), src_oprt, src_index);
	return *this;
}

TensorDesc Operator::GetInputDescByName(const char_t *name) const
{
	const InputSlot *s = impl_ ? impl_->input(name ? name : "") : nullptr;

	return s ? s->desc : TensorDesc();
}

TensorDesc Operator::GetOutputDescByName(const char_t *name) const
{
	if (!impl_)
		return TensorDesc();
	auto it = impl_->output_desc.find(name ? name : "");
	return it == impl_->output_desc.end() ? TensorDesc() : it->second;
}

TensorDesc Operator::GetInputDesc(uint32_t index) const
{
	if (!impl_ || index >= impl_->inputs.size())
		return TensorDesc();
	return impl_->inputs[index].desc;
}

TensorDesc Operator::GetOutputDesc(uint32_t index) const
{
	if (!impl_ || index >= impl_->outputs.size())
		return TensorDesc();
	return GetOutputDescByName(impl_->outputs[index].c_str());
}

graphStatus Operator::UpdateInputDesc(const char_t *name, const TensorDesc &tensor_desc)
{
	InputSlot *s = impl_ ? impl_->input(name ? name : "") : nullptr;

	if (!s)
		return GRAPH_FAILED;
	s->desc = tensor_desc;
	s->has_desc = true;
	return GRAPH_SUCCESS;
}

graphStatus Operator::UpdateOutputDesc(const char_t *name, const TensorDesc &tensor_desc)
{
	if (!impl_ || impl_->output_index(name ? name : "") < 0)
		return GRAPH_FAILED;
	impl_->output_desc[name] = tensor_desc;
	return GRAPH_SUCCESS;
}

size_t Operator::GetInputsSize() const { return impl_ ? impl_->inputs.size() : 0; }
size_t Operator::GetOutputsSize() const { return impl_ ? impl_->outputs.size() : 0; }

/* Attributes */

static Operator &set_attr(Operator &op, OperatorImpl *impl, const char_t *name, AttrValue v)
{
	if (impl && name) {
		impl->attrs[name] = std::move(v);
		impl->required.erase(name);
	}
	return op;
}

Operator &Operator::SetAttr(const char_t *name, int64_t value)
{
	AttrValue v;

	v.kind = AttrValue::INT;
	v.i = value;
	return set_attr(*this, impl_.get(), name, v);
}

Operator &Operator::SetAttr(const char_t *name, int32_t value) { return SetAttr(name, (int64_t)value); }
Operator &Operator::SetAttr(const char_t *name, uint32_t value) { return SetAttr(name, (int64_t)value); }

Operator &Operator::SetAttr(const char_t *name, const std::vector<int64_t> &value)
{
	AttrValue v;

	v.kind = AttrValue::LIST_INT;
	v.ints = value;
	return set_attr(*this, impl_.get(), name, v);
}

Operator &Operator::SetAttr(const char_t *name, const std::vector<int32_t> &value)
{
	return SetAttr(name, std::vector<int64_t>(value.begin(), value.end()));
}

Operator &Operator::SetAttr(const char_t *name, std::initializer_list<int64_t> &&value)
{
	return SetAttr(name, std::vector<int64_t>(value));
}

Operator &Operator::SetAttr(const char_t *name, float32_t value)
{
	AttrValue v;

	v.kind = AttrValue::FLOAT;
	v.f = value;
	return set_attr(*this, impl_.get(), name, v);
}

Operator &Operator::SetAttr(const char_t *name, const std::vector<float32_t> &value)
{
	AttrValue v;

	v.kind = AttrValue::LIST_FLOAT;
	v.floats = value;
	return set_attr(*this, impl_.get(), name, v);
}

Operator &Operator::SetAttr(const char_t *name, bool value)
{
	AttrValue v;

	v.kind = AttrValue::BOOL;
	v.b = value;
	return set_attr(*this, impl_.get(), name, v);
}

Operator &Operator::SetAttr(const char_t *name, const Tensor &value)
{
	AttrValue v;

	v.kind = AttrValue::TENSOR;
	v.t = value;
	return set_attr(*this, impl_.get(), name, v);
}

Operator &Operator::SetAttr(const char_t *name, const DataType &value)
{
	AttrValue v;

	v.kind = AttrValue::DTYPE;
	v.dt = value;
	return set_attr(*this, impl_.get(), name, v);
}

Operator &Operator::SetAttr(const char_t *name, const char_t *value)
{
	return SetAttr(name, std::string(value ? value : ""));
}

Operator &Operator::SetAttr(const char_t *name, const AscendString &value)
{
	return SetAttr(name, std::string(value.GetString()));
}

Operator &Operator::SetAttr(const char_t *name, const std::string &value)
{
	AttrValue v;

	v.kind = AttrValue::STRING;
	v.s = value;
	return set_attr(*this, impl_.get(), name, v);
}

static const AttrValue *get_attr(const OperatorImpl *impl, const char_t *name)
{
	return impl && name ? impl->attr(name) : nullptr;
}

graphStatus Operator::GetAttr(const char_t *name, int64_t &value) const
{
	const AttrValue *v = get_attr(impl_.get(), name);

	if (!v || (v->kind != AttrValue::INT && v->kind != AttrValue::DTYPE))
		return GRAPH_FAILED;
	value = v->kind == AttrValue::INT ? v->i : (int64_t)v->dt;
	return GRAPH_SUCCESS;
}

graphStatus Operator::GetAttr(const char_t *name, int32_t &value) const
{
	int64_t v = 0;
	graphStatus ret = GetAttr(name, v);

	if (ret == GRAPH_SUCCESS)
		value = (int32_t)v;
	return ret;
}

graphStatus Operator::GetAttr(const char_t *name, std::vector<int64_t> &value) const
{
	const AttrValue *v = get_attr(impl_.get(), name);

	if (!v || v->kind != AttrValue::LIST_INT)
		return GRAPH_FAILED;
	value = v->ints;
	return GRAPH_SUCCESS;
}

graphStatus Operator::GetAttr(const char_t *name, float32_t &value) const
{
	const AttrValue *v = get_attr(impl_.get(), name);

	if (!v || v->kind != AttrValue::FLOAT)
		return GRAPH_FAILED;
	value = v->f;
	return GRAPH_SUCCESS;
}

graphStatus Operator::GetAttr(const char_t *name, std::vector<float32_t> &value) const
{
	const AttrValue *v = get_attr(impl_.get(), name);

	if (!v || v->kind != AttrValue::LIST_FLOAT)
		return GRAPH_FAILED;
	value = v->floats;
	return GRAPH_SUCCESS;
}

graphStatus Operator::GetAttr(const char_t *name, bool &value) const
{
	const AttrValue *v = get_attr(impl_.get(), name);

	if (!v || v->kind != AttrValue::BOOL)
		return GRAPH_FAILED;
	value = v->b;
	return GRAPH_SUCCESS;
}

graphStatus Operator::GetAttr(const char_t *name, Tensor &value) const
{
	const AttrValue *v = get_attr(impl_.get(), name);

	if (!v || v->kind != AttrValue::TENSOR)
		return GRAPH_FAILED;
	value = v->t;
	return GRAPH_SUCCESS;
}

graphStatus Operator::GetAttr(const char_t *name, DataType &value) const
{
	const AttrValue *v = get_attr(impl_.get(), name);

	if (!v || (v->kind != AttrValue::DTYPE && v->kind != AttrValue::INT))
		return GRAPH_FAILED;
	value = v->kind == AttrValue::DTYPE ? v->dt : (DataType)v->i;
	return GRAPH_SUCCESS;
}

graphStatus Operator::GetAttr(const char_t *name, AscendString &value) const
{
	std::string s;
	graphStatus ret = GetAttr(name, s);

	if (ret == GRAPH_SUCCESS)
		value = AscendString(s.c_str());
	return ret;
}

graphStatus Operator::GetAttr(const char_t *name, std::string &value) const
{
	const AttrValue *v = get_attr(impl_.get(), name);

	if (!v || v->kind != AttrValue::STRING)
		return GRAPH_FAILED;
	value = v->s;
	return GRAPH_SUCCESS;
}

/* Registration, from the builders' constructors. */

void Operator::InputRegister(const char_t *name)
{
	if (impl_ && name && !impl_->input(name))
		input_slot(impl_.get(), name);
}

void Operator::OptionalInputRegister(const char_t *name)
{
	InputRegister(name);
	if (impl_ && name)
		impl_->input(name)->optional = true;
}

void Operator::OutputRegister(const char_t *name)
{
	if (impl_ && name && impl_->output_index(name) < 0)
		impl_->outputs.push_back(name);
}

void Operator::DynamicInputRegister(const char_t *name, const uint32_t num, bool is_push_back)
{
	(void)is_push_back;
	for (uint32_t i = 0; impl_ && name && i < num; i++)
		InputRegister((std::string(name) + std::to_string(i)).c_str());
}

void Operator::DynamicOutputRegister(const char_t *name, const uint32_t num, bool is_push_back)
{
	(void)is_push_back;
	for (uint32_t i = 0; impl_ && name && i < num; i++)
		OutputRegister((std::string(name) + std::to_string(i)).c_str());
}

void Operator::RequiredAttrRegister(const char_t *name)
{
	if (impl_ && name && !impl_->attr(name))
		impl_->required.insert(name);
}

void Operator::MarkAttrDefault(const char_t *name)
{
	(void)name;
}
}  // namespace ge
