/* SPDX-License-Identifier: MIT */
/*
 * The builder macros: REG_OP(Type) .INPUT(x, types) .ATTR(y, Int, 0)
 * .OUTPUT(z, types) .OP_END_FACTORY_REG(Type) declares ge::op::Type with
 * set_input_x, set_attr_y, get_attr_y, update_output_desc_z and the rest,
 * as the vendor's op protos are written.  Each macro closes the member
 * function the previous one opened, which registers its name at
 * construction; the type lists are documentation only.
 */
#ifndef INC_EXTERNAL_GRAPH_OPERATOR_REG_H_
#define INC_EXTERNAL_GRAPH_OPERATOR_REG_H_

#include <string>
#include <vector>

#include "graph/operator.h"
#include "graph/tensor.h"
#include "graph/types.h"

namespace ge {
using OpInt = int64_t;
using OpFloat = float;
using OpString = std::string;
using OpBool = bool;
using OpTensor = Tensor;
using OpType = DataType;
using OpListInt = std::vector<int64_t>;
using OpListFloat = std::vector<float>;

/* What the chain of .MACRO() calls is made of. */
class OpReg {
 public:
	OpReg &N() { return *this; }
	OpReg &ATTR() { return *this; }
	OpReg &REQUIRED_ATTR() { return *this; }
	OpReg &INPUT() { return *this; }
	OpReg &OPTIONAL_INPUT() { return *this; }
	OpReg &OUTPUT() { return *this; }
	OpReg &DYNAMIC_INPUT() { return *this; }
	OpReg &DYNAMIC_OUTPUT() { return *this; }
	OpReg &INFER_SHAPE_AND_TYPE() { return *this; }
};
}  // namespace ge

#define REG_OP(x)                                                              \
	namespace op {                                                         \
	class x : public Operator {                                            \
		typedef x _THIS_TYPE;                                          \
                                                                               \
	 public:                                                               \
		explicit x(const char *name) : Operator(name, #x) { __##x(); } \
		explicit x(const AscendString &name)                           \
			: Operator(name, AscendString(#x)) { __##x(); }        \
		x() : Operator(#x, #x) { __##x(); }                            \
		static const char *TypeName() { return #x; }                   \
                                                                               \
	 private:                                                              \
		void __##x()                                                   \
		{                                                              \
			OpReg()

#define ATTR(x, Type, ...)                                                     \
	N();                                                                   \
	__attr_##x();                                                          \
	}                                                                      \
                                                                               \
 public:                                                                       \
	static const char *name_attr_##x() { return #x; }                      \
	Op##Type get_attr_##x() const                                          \
	{                                                                      \
		Op##Type v{};                                                  \
		(void)GetAttr(#x, v);                                          \
		return v;                                                      \
	}                                                                      \
	_THIS_TYPE &set_attr_##x(const Op##Type &v)                            \
	{                                                                      \
		Operator::SetAttr(#x, v);                                      \
		return *this;                                                  \
	}                                                                      \
                                                                               \
 private:                                                                      \
	void __attr_##x()                                                      \
	{                                                                      \
		Operator::AttrRegister(#x, Op##Type(__VA_ARGS__));             \
		OpReg()

#define REQUIRED_ATTR(x, Type)                                                 \
	N();                                                                   \
	__required_attr_##x();                                                 \
	}                                                                      \
                                                                               \
 public:                                                                       \
	static const char *name_attr_##x() { return #x; }                      \
	Op##Type get_attr_##x() const                                          \
	{                                                                      \
		Op##Type v{};                                                  \
		(void)GetAttr(#x, v);                                          \
		return v;                                                      \
	}                                                                      \
	_THIS_TYPE &set_attr_##x(const Op##Type &v)                            \
	{                                                                      \
		Operator::SetAttr(#x, v);                                      \
		return *this;                                                  \
	}                                                                      \
                                                                               \
 private:                                                                      \
	void __required_attr_##x()                                             \
	{                                                                      \
		Operator::RequiredAttrRegister(#x);                            \
		OpReg()

#define __GE_INPUT_SETTERS(x)                                                  \
	static const char *name_in_##x() { return #x; }                       \
	_THIS_TYPE &set_input_##x(Operator &v)                                 \
	{                                                                      \
		Operator::SetInput(#x, v);                                     \
		return *this;                                                  \
	}                                                                      \
	_THIS_TYPE &set_input_##x(Operator &v, const char *srcName)            \
	{                                                                      \
		Operator::SetInput(#x, v, srcName);                            \
		return *this;                                                  \
	}                                                                      \
	_THIS_TYPE &set_input_##x(Operator &v, uint32_t index)                 \
	{                                                                      \
		Operator::SetInput(#x, v, index);                              \
		return *this;                                                  \
	}                                                                      \
	_THIS_TYPE &set_input_##x##_by_name(Operator &v, const char *srcName)  \
	{                                                                      \
		Operator::SetInput(#x, v, srcName);                            \
		return *this;                                                  \
	}                                                                      \
	TensorDesc get_input_desc_##x() const                                  \
	{                                                                      \
		return Operator::GetInputDescByName(#x);                       \
	}                                                                      \
	graphStatus update_input_desc_##x(const TensorDesc &tensorDesc)        \
	{                                                                      \
		return Operator::UpdateInputDesc(#x, tensorDesc);              \
	}

#define INPUT(x, t)                                                            \
	N();                                                                   \
	__input_##x();                                                         \
	}                                                                      \
                                                                               \
 public:                                                                       \
	__GE_INPUT_SETTERS(x)                                                  \
                                                                               \
 private:                                                                      \
	void __input_##x()                                                     \
	{                                                                      \
		Operator::InputRegister(#x);                                   \
		OpReg()

#define OPTIONAL_INPUT(x, t)                                                   \
	N();                                                                   \
	__optional_input_##x();                                                \
	}                                                                      \
                                                                               \
 public:                                                                       \
	__GE_INPUT_SETTERS(x)                                                  \
                                                                               \
 private:                                                                      \
	void __optional_input_##x()                                            \
	{                                                                      \
		Operator::OptionalInputRegister(#x);                           \
		OpReg()

#define OUTPUT(x, t)                                                           \
	N();                                                                   \
	__out_##x();                                                           \
	}                                                                      \
                                                                               \
 public:                                                                       \
	static const char *name_out_##x() { return #x; }                       \
	TensorDesc get_output_desc_##x() const                                 \
	{                                                                      \
		return Operator::GetOutputDescByName(#x);                      \
	}                                                                      \
	graphStatus update_output_desc_##x(const TensorDesc &tensorDesc)       \
	{                                                                      \
		return Operator::UpdateOutputDesc(#x, tensorDesc);             \
	}                                                                      \
                                                                               \
 private:                                                                      \
	void __out_##x()                                                       \
	{                                                                      \
		Operator::OutputRegister(#x);                                  \
		OpReg()

/* Inputs x0, x1, ... created by create_dynamic_input_x(n). */
#define DYNAMIC_INPUT(x, t)                                                    \
	N();                                                                   \
	__dy_input_##x();                                                      \
	}                                                                      \
                                                                               \
 public:                                                                       \
	_THIS_TYPE &create_dynamic_input_##x(uint32_t num, bool isPushBack = true) \
	{                                                                      \
		Operator::DynamicInputRegister(#x, num, isPushBack);           \
		return *this;                                                  \
	}                                                                      \
	_THIS_TYPE &set_dynamic_input_##x(uint32_t dstIndex, Operator &v)      \
	{                                                                      \
		Operator::SetInput((std::string(#x) + std::to_string(dstIndex)).c_str(), v); \
		return *this;                                                  \
	}                                                                      \
	_THIS_TYPE &set_dynamic_input_##x(uint32_t dstIndex, Operator &v,      \
					  const char *srcName)                 \
	{                                                                      \
		Operator::SetInput((std::string(#x) + std::to_string(dstIndex)).c_str(), v, \
				   srcName);                                   \
		return *this;                                                  \
	}                                                                      \
	TensorDesc get_dynamic_input_desc_##x(uint32_t index) const            \
	{                                                                      \
		return Operator::GetInputDescByName(                           \
			(std::string(#x) + std::to_string(index)).c_str());    \
	}                                                                      \
	graphStatus update_dynamic_input_desc_##x(uint32_t index, const TensorDesc &tensorDesc) \
	{                                                                      \
		return Operator::UpdateInputDesc(                              \
			(std::string(#x) + std::to_string(index)).c_str(), tensorDesc); \
	}                                                                      \
                                                                               \
 private:                                                                      \
	void __dy_input_##x()                                                  \
	{                                                                      \
		OpReg()

#define OP_END_FACTORY_REG(x)                                                  \
	N();                                                                   \
	}                                                                      \
	};                                                                     \
	}

#endif  // INC_EXTERNAL_GRAPH_OPERATOR_REG_H_
