// SPDX-License-Identifier: MIT
/*
 * A ge::Graph into libnpucc: each builder's operator becomes the ONNX
 * operator (opset 13) with the same meaning, in libnpucc's graph spec,
 * and npucc_compile_spec compiles it as atc compiles ONNX.
 * Attribute conventions differ (NCHW strides in 4 dims, pads top, bottom,
 * left, right; constant inputs for axes and shapes): they are converted
 * here, and what the card cannot run is refused naming the node.
 */
#include <algorithm>
#include <cstring>
#include <deque>
#include <functional>

#include "ge_internal.h"
#include "npucc.h"

namespace ge {
/* ONNX's number of @dt; 0 for strings, whose elements have no one size. */
int OnnxDataType(DataType dt)
{
	if (!npu_dtype_ge_size(dt))
		return NPU_ONNX_UNDEFINED;
	return npu_dtype_ge_to_onnx(dt);
}

namespace {
const int kOpset = 13;

struct OnnxAttr {
	std::string name;
	int type = NPUCC_ATTR_INT;
	float f = 0;
	int64_t i = 0;
	std::string s;
	std::vector<int64_t> ints;
	std::vector<float> floats;
};

struct OnnxNode {
	std::string name, op;
	std::vector<std::string> in, out;
	std::vector<OnnxAttr> attrs;
};

struct OnnxValue {
	std::string name;
	int dtype = NPU_ONNX_FLOAT;
	std::vector<int64_t> dims;
	std::vector<uint8_t> data;
	int64_t index = 0;	/* a Data's index */
};

OnnxAttr attr_i(const char *name, int64_t v)
{
	OnnxAttr a;

	a.name = name;
	a.type = NPUCC_ATTR_INT;
	a.i = v;
	return a;
}

OnnxAttr attr_f(const char *name, float v)
{
	OnnxAttr a;

	a.name = name;
	a.type = NPUCC_ATTR_FLOAT;
	a.f = v;
	return a;
}

OnnxAttr attr_s(const char *name, const std::string &v)
{
	OnnxAttr a;

	a.name = name;
	a.type = NPUCC_ATTR_STRING;
	a.s = v;
	return a;
}

OnnxAttr attr_ints(const char *name, const std::vector<int64_t> &v)
{
	OnnxAttr a;

	a.name = name;
	a.type = NPUCC_ATTR_INTS;
	a.ints = v;
	return a;
}

class GraphToOnnx {
 public:
	GraphToOnnx(const GraphImpl &g, const std::vector<TensorDesc> &shapes) : g_(g), shapes_(shapes) {}
	int Run();
	const std::string &Error() const { return err_; }
	void MakeSpec(npucc_spec &spec);

 private:
	typedef int (GraphToOnnx::*Rule)(const OperatorImpl &op);
	static const std::map<std::string, Rule> &Rules();

	int Fail(const OperatorImpl &op, const std::string &msg);
	int Visit(const std::shared_ptr<OperatorImpl> &op);
	int In(const OperatorImpl &op, const char *slot, std::string &value, bool optional = false);
	const Tensor *ConstIn(const OperatorImpl &op, const char *slot);
	int IntsIn(const OperatorImpl &op, const char *slot, std::vector<int64_t> &v);
	int Ints(const OperatorImpl &op, const char *name, std::vector<int64_t> &v);
	int64_t Int(const OperatorImpl &op, const char *name, int64_t dflt);
	float Float(const OperatorImpl &op, const char *name, float dflt);
	bool Bool(const OperatorImpl &op, const char *name, bool dflt);
	std::string Str(const OperatorImpl &op, const char *name, const char *dflt);
	std::string Out(const OperatorImpl &op, size_t i = 0) { return values_[&op][i]; }
	std::string ConstInts(const OperatorImpl &op, const char *hint, const std::vector<int64_t> &v);
	std::string ConstFloat(const OperatorImpl &op, const char *hint, float v);
	void Emit(const OperatorImpl &op, const std::string &onnx_op, std::vector<std::string> in,
		  std::vector<OnnxAttr> attrs = {}, const std::string &suffix = "",
		  const std::string &out = "");
	int Nchw(const OperatorImpl &op);
	int Window(const OperatorImpl &op, const char *name, std::vector<int64_t> &hw);
	int Pads(const OperatorImpl &op, std::vector<OnnxAttr> &attrs);

	int Data(const OperatorImpl &op);
	int Const(const OperatorImpl &op);
	int Conv2D(const OperatorImpl &op);
	int MatMul(const OperatorImpl &op);
	int BatchMatMul(const OperatorImpl &op);
	int BiasAdd(const OperatorImpl &op);
	int Binary(const OperatorImpl &op);
	int Unary(const OperatorImpl &op);
	int Relu6(const OperatorImpl &op);
	int ExpLog(const OperatorImpl &op);
	int Elu(const OperatorImpl &op);
	int LeakyRelu(const OperatorImpl &op);
	int HardSigmoid(const OperatorImpl &op);
	int Softmax(const OperatorImpl &op);
	int Pool(const OperatorImpl &op);
	int PoolV2(const OperatorImpl &op);
	int GlobalPool(const OperatorImpl &op);
	int Reduce(const OperatorImpl &op);
	int Reshape(const OperatorImpl &op);
	int Flatten(const OperatorImpl &op);
	int Squeeze(const OperatorImpl &op);
	int Concat(const OperatorImpl &op);
	int Transpose(const OperatorImpl &op);
	int Cast(const OperatorImpl &op);

	const GraphImpl &g_;
	const std::vector<TensorDesc> &shapes_;
	std::map<const OperatorImpl *, std::vector<std::string>> values_;
	std::set<const OperatorImpl *> visiting_;
	std::vector<OnnxValue> inputs_, consts_;
	std::vector<OnnxNode> nodes_;
	std::vector<std::string> outputs_;
	std::string err_;
	unsigned long serial_ = 0;

	/* What the spec points into. */
	std::vector<npucc_spec_tensor> spec_inputs_, spec_consts_;
	std::vector<npucc_spec_node> spec_nodes_;
	std::deque<std::vector<const char *>> spec_names_;
	std::deque<std::vector<npucc_spec_attr>> spec_attrs_;
	std::vector<const char *> spec_outputs_;
};

const std::map<std::string, GraphToOnnx::Rule> &GraphToOnnx::Rules()
{
	static const std::map<std::string, Rule> rules = {
		{"Data", &GraphToOnnx::Data},
		{"Const", &GraphToOnnx::Const},
		{"Conv2D", &GraphToOnnx::Conv2D},
		{"MatMul", &GraphToOnnx::MatMul},
		{"MatMulV2", &GraphToOnnx::MatMul},
		{"BatchMatMul", &GraphToOnnx::BatchMatMul},
		{"BatchMatMulV2", &GraphToOnnx::BatchMatMul},
		{"BiasAdd", &GraphToOnnx::BiasAdd},
		{"Add", &GraphToOnnx::Binary},
		{"AddV2", &GraphToOnnx::Binary},
		{"Sub", &GraphToOnnx::Binary},
		{"Mul", &GraphToOnnx::Binary},
		{"Div", &GraphToOnnx::Binary},
		{"RealDiv", &GraphToOnnx::Binary},
		{"Maximum", &GraphToOnnx::Binary},
		{"Minimum", &GraphToOnnx::Binary},
		{"Pow", &GraphToOnnx::Binary},
		{"Relu", &GraphToOnnx::Unary},
		{"Sigmoid", &GraphToOnnx::Unary},
		{"Tanh", &GraphToOnnx::Unary},
		{"Sqrt", &GraphToOnnx::Unary},
		{"Abs", &GraphToOnnx::Unary},
		{"Neg", &GraphToOnnx::Unary},
		{"Erf", &GraphToOnnx::Unary},
		{"Softplus", &GraphToOnnx::Unary},
		{"Reciprocal", &GraphToOnnx::Unary},
		{"Identity", &GraphToOnnx::Unary},
		{"Relu6", &GraphToOnnx::Relu6},
		{"Exp", &GraphToOnnx::ExpLog},
		{"Log", &GraphToOnnx::ExpLog},
		{"Elu", &GraphToOnnx::Elu},
		{"LeakyRelu", &GraphToOnnx::LeakyRelu},
		{"HardSigmoid", &GraphToOnnx::HardSigmoid},
		{"SoftmaxV2", &GraphToOnnx::Softmax},
		{"Softmax", &GraphToOnnx::Softmax},
		{"LogSoftmaxV2", &GraphToOnnx::Softmax},
		{"MaxPool", &GraphToOnnx::Pool},
		{"AvgPool", &GraphToOnnx::Pool},
		{"MaxPoolV3", &GraphToOnnx::PoolV2},
		{"AvgPoolV2", &GraphToOnnx::PoolV2},
		{"GlobalAveragePool", &GraphToOnnx::GlobalPool},
		{"ReduceMean", &GraphToOnnx::Reduce},
		{"ReduceSum", &GraphToOnnx::Reduce},
		{"ReduceMax", &GraphToOnnx::Reduce},
		{"ReduceMin", &GraphToOnnx::Reduce},
		{"ReduceMeanD", &GraphToOnnx::Reduce},
		{"ReduceSumD", &GraphToOnnx::Reduce},
		{"ReduceMaxD", &GraphToOnnx::Reduce},
		{"ReduceMinD", &GraphToOnnx::Reduce},
		{"Reshape", &GraphToOnnx::Reshape},
		{"Flatten", &GraphToOnnx::Flatten},
		{"Squeeze", &GraphToOnnx::Squeeze},
		{"Unsqueeze", &GraphToOnnx::Squeeze},
		{"Concat", &GraphToOnnx::Concat},
		{"ConcatV2", &GraphToOnnx::Concat},
		{"ConcatD", &GraphToOnnx::Concat},
		{"Transpose", &GraphToOnnx::Transpose},
		{"TransposeD", &GraphToOnnx::Transpose},
		{"Cast", &GraphToOnnx::Cast},
	};
	return rules;
}

int GraphToOnnx::Fail(const OperatorImpl &op, const std::string &msg)
{
	if (err_.empty())
		err_ = "node '" + op.name + "' (" + op.type + "): " + msg;
	return -1;
}

int GraphToOnnx::Visit(const std::shared_ptr<OperatorImpl> &sp)
{
	const OperatorImpl &op = *sp;

	if (values_.count(&op))
		return 0;
	if (visiting_.count(&op))
		return Fail(op, "the graph has a cycle through this node");
	visiting_.insert(&op);
	for (auto &s : op.inputs)
		if (s.src && Visit(s.src))
			return -1;
	visiting_.erase(&op);

	auto rule = Rules().find(op.type);
	if (rule == Rules().end())
		return Fail(op, "operator type " + op.type + " is not supported (docs/graph.md lists "
			    "the builders)");
	if (!op.required.empty())
		return Fail(op, "required attribute '" + *op.required.begin() + "' is not set");
	std::vector<std::string> &vals = values_[&op];
	size_t n = op.outputs.empty() ? 1 : op.outputs.size();

	for (size_t i = 0; i < n; i++)
		vals.push_back(n == 1 ? op.name : op.name + ":" + op.outputs[i]);
	for (auto &existing : values_)
		if (existing.first != &op && existing.first->name == op.name)
			return Fail(op, "two operators are named '" + op.name + "'");
	return (this->*rule->second)(op);
}

int GraphToOnnx::In(const OperatorImpl &op, const char *slot, std::string &value, bool optional)
{
	const InputSlot *s = op.input(slot);
	int idx;

	if (!s || !s->src) {
		if (optional) {
			value.clear();
			return 0;
		}
		return Fail(op, std::string("input '") + slot + "' is not linked");
	}
	idx = s->src_output.empty() ? s->src_index : s->src->output_index(s->src_output);
	if (idx < 0 || (size_t)idx >= values_[s->src.get()].size())
		return Fail(op, std::string("input '") + slot + "' names output " +
			    (s->src_output.empty() ? std::to_string(s->src_index) :
			     "'" + s->src_output + "'") + " of '" + s->src->name +
			    "', which it does not have");
	value = values_[s->src.get()][idx];
	return 0;
}

const Tensor *GraphToOnnx::ConstIn(const OperatorImpl &op, const char *slot)
{
	const InputSlot *s = op.input(slot);
	const AttrValue *v;

	if (!s || !s->src || s->src->type != "Const")
		return nullptr;
	v = s->src->attr("value");
	return v && v->kind == AttrValue::TENSOR ? &v->t : nullptr;
}

int GraphToOnnx::IntsIn(const OperatorImpl &op, const char *slot, std::vector<int64_t> &v)
{
	const Tensor *t = ConstIn(op, slot);
	DataType dt;

	if (!t)
		return Fail(op, std::string("input '") + slot + "' must be a Const: an offline "
			    "model's shapes are static");
	dt = t->GetTensorDesc().GetDataType();
	v.clear();
	if (dt == DT_INT32) {
		const int32_t *p = reinterpret_cast<const int32_t *>(t->GetData());

		v.assign(p, p + t->GetSize() / 4);
	} else if (dt == DT_INT64) {
		const int64_t *p = reinterpret_cast<const int64_t *>(t->GetData());

		v.assign(p, p + t->GetSize() / 8);
	} else {
		return Fail(op, std::string("input '") + slot + "' must be int32 or int64");
	}
	return 0;
}

int GraphToOnnx::Ints(const OperatorImpl &op, const char *name, std::vector<int64_t> &v)
{
	const AttrValue *a = op.attr(name);

	if (!a || a->kind != AttrValue::LIST_INT)
		return Fail(op, std::string("attribute '") + name + "' is not a list of ints");
	v = a->ints;
	return 0;
}

int64_t GraphToOnnx::Int(const OperatorImpl &op, const char *name, int64_t dflt)
{
	const AttrValue *a = op.attr(name);

	if (a && a->kind == AttrValue::INT)
		return a->i;
	if (a && a->kind == AttrValue::DTYPE)
		return a->dt;
	return dflt;
}

float GraphToOnnx::Float(const OperatorImpl &op, const char *name, float dflt)
{
	const AttrValue *a = op.attr(name);

	return a && a->kind == AttrValue::FLOAT ? a->f : dflt;
}

bool GraphToOnnx::Bool(const OperatorImpl &op, const char *name, bool dflt)
{
	const AttrValue *a = op.attr(name);

	return a && a->kind == AttrValue::BOOL ? a->b : dflt;
}

std::string GraphToOnnx::Str(const OperatorImpl &op, const char *name, const char *dflt)
{
	const AttrValue *a = op.attr(name);

	return a && a->kind == AttrValue::STRING ? a->s : dflt;
}

std::string GraphToOnnx::ConstInts(const OperatorImpl &op, const char *hint,
				   const std::vector<int64_t> &v)
{
	OnnxValue c;

	c.name = op.name + "/" + hint + "_" + std::to_string(++serial_);
	c.dtype = NPU_ONNX_INT64;
	c.dims = {(int64_t)v.size()};
	c.data.resize(v.size() * 8);
	if (!v.empty())
		std::memcpy(c.data.data(), v.data(), c.data.size());
	consts_.push_back(c);
	return c.name;
}

std::string GraphToOnnx::ConstFloat(const OperatorImpl &op, const char *hint, float v)
{
	OnnxValue c;

	c.name = op.name + "/" + hint + "_" + std::to_string(++serial_);
	c.dtype = NPU_ONNX_FLOAT;
	c.data.resize(4);
	std::memcpy(c.data.data(), &v, 4);
	consts_.push_back(c);
	return c.name;
}

/* One ONNX node; its output is the operator's first output unless @out is given. */
void GraphToOnnx::Emit(const OperatorImpl &op, const std::string &onnx_op,
		       std::vector<std::string> in, std::vector<OnnxAttr> attrs,
		       const std::string &suffix, const std::string &out)
{
	OnnxNode n;

	n.name = suffix.empty() ? op.name : op.name + "/" + suffix;
	n.op = onnx_op;
	n.in = std::move(in);
	n.out = {out.empty() ? Out(op) : out};
	n.attrs = std::move(attrs);
	nodes_.push_back(std::move(n));
}

int GraphToOnnx::Nchw(const OperatorImpl &op)
{
	std::string fmt = Str(op, "data_format", "NCHW");

	if (fmt != "NCHW")
		return Fail(op, "data_format " + fmt + " is not supported: the card's convolutions "
			    "and pooling take NCHW");
	return 0;
}

/* A 4-entry NCHW list (strides, ksize, dilations) to its H and W. */
int GraphToOnnx::Window(const OperatorImpl &op, const char *name, std::vector<int64_t> &hw)
{
	std::vector<int64_t> v;

	if (Ints(op, name, v))
		return -1;
	if (v.size() != 4)
		return Fail(op, std::string("attribute '") + name + "' has " +
			    std::to_string(v.size()) + " values, NCHW needs 4");
	hw = {v[2], v[3]};
	return 0;
}

/* pads: top, bottom, left, right to ONNX's begins then ends. */
int GraphToOnnx::Pads(const OperatorImpl &op, std::vector<OnnxAttr> &attrs)
{
	std::vector<int64_t> p;

	if (Ints(op, "pads", p))
		return -1;
	if (p.size() != 4)
		return Fail(op, "attribute 'pads' needs 4 values: top, bottom, left, right");
	attrs.push_back(attr_ints("pads", {p[0], p[2], p[1], p[3]}));
	return 0;
}

int GraphToOnnx::Data(const OperatorImpl &op)
{
	OnnxValue v;
	int64_t index = Int(op, "index", 0);
	TensorDesc d;

	if (index >= 0 && (size_t)index < shapes_.size())
		d = shapes_[index];
	else if (op.output_desc.count("y"))
		d = op.output_desc.at("y");
	else if (op.input("x") && op.input("x")->has_desc)
		d = op.input("x")->desc;
	else
		return Fail(op, "the input's shape is not known: give it with update_output_desc_y "
			    "or BuildGraph's input tensors");
	v.name = op.name;
	v.index = index;
	v.dtype = OnnxDataType(d.GetDataType());
	v.dims = d.GetShape().GetDims();
	if (!v.dtype)
		return Fail(op, "data type " + std::to_string((int)d.GetDataType()) +
			    " is not supported");
	for (auto &other : inputs_)
		if (other.index == index)
			return Fail(op, "Data '" + other.name + "' has the same index " +
				    std::to_string(index));
	inputs_.push_back(v);
	return 0;
}

int GraphToOnnx::Const(const OperatorImpl &op)
{
	const AttrValue *a = op.attr("value");
	OnnxValue c;

	if (!a || a->kind != AttrValue::TENSOR)
		return Fail(op, "attribute 'value' is not set");
	TensorDesc d = a->t.GetTensorDesc();
	c.name = Out(op);
	c.dtype = OnnxDataType(d.GetDataType());
	c.dims = d.GetShape().GetDims();
	c.data.assign(a->t.GetData(), a->t.GetData() + a->t.GetSize());
	if (!c.dtype)
		return Fail(op, "data type " + std::to_string((int)d.GetDataType()) +
			    " is not supported");
	consts_.push_back(c);
	return 0;
}

int GraphToOnnx::Conv2D(const OperatorImpl &op)
{
	std::string x, w, b, off;
	std::vector<int64_t> strides, dil;
	std::vector<OnnxAttr> attrs;

	if (Nchw(op) || In(op, "x", x) || In(op, "filter", w) || In(op, "bias", b, true) ||
	    In(op, "offset_w", off, true) || Window(op, "strides", strides) ||
	    Window(op, "dilations", dil) || Pads(op, attrs))
		return -1;
	if (!off.empty() || Int(op, "offset_x", 0))
		return Fail(op, "quantized convolution (offset_w, offset_x) is not supported");
	attrs.push_back(attr_ints("strides", strides));
	attrs.push_back(attr_ints("dilations", dil));
	attrs.push_back(attr_i("group", Int(op, "groups", 1)));
	std::vector<std::string> in = {x, w};
	if (!b.empty())
		in.push_back(b);
	Emit(op, "Conv", in, attrs);
	return 0;
}

int GraphToOnnx::MatMul(const OperatorImpl &op)
{
	std::string a, b, bias, off;

	if (In(op, "x1", a) || In(op, "x2", b) || In(op, "bias", bias, true) ||
	    In(op, "offset_w", off, true))
		return -1;
	if (!off.empty() || Int(op, "offset_x", 0))
		return Fail(op, "quantized products (offset_w, offset_x) are not supported");
	std::vector<std::string> in = {a, b};
	if (!bias.empty())
		in.push_back(bias);
	Emit(op, "Gemm", in, {attr_i("transA", Bool(op, "transpose_x1", false)),
			      attr_i("transB", Bool(op, "transpose_x2", false))});
	return 0;
}

int GraphToOnnx::BatchMatMul(const OperatorImpl &op)
{
	std::string a, b, bias, off;

	if (In(op, "x1", a) || In(op, "x2", b) || In(op, "bias", bias, true) ||
	    In(op, "offset_w", off, true))
		return -1;
	if (!off.empty() || Int(op, "offset_x", 0))
		return Fail(op, "quantized products (offset_w, offset_x) are not supported");
	if (Bool(op, "adj_x1", false) || Bool(op, "adj_x2", false))
		return Fail(op, "adj_x1 and adj_x2 are not supported: transpose the input with "
			    "TransposeD");
	if (bias.empty()) {
		Emit(op, "MatMul", {a, b});
		return 0;
	}
	std::string prod = op.name + "/matmul";
	Emit(op, "MatMul", {a, b}, {}, "matmul", prod);
	Emit(op, "Add", {prod, bias}, {}, "bias");
	return 0;
}

int GraphToOnnx::BiasAdd(const OperatorImpl &op)
{
	std::string x, bias;

	if (In(op, "x", x) || In(op, "bias", bias))
		return -1;
	if (Str(op, "data_format", "NHWC") == "NCHW") {
		/* A per-channel bias of NCHW broadcasts as [C, 1, 1]. */
		std::string shape = ConstInts(op, "bias_shape", {-1, 1, 1});
		std::string b3 = op.name + "/bias_chw";

		Emit(op, "Reshape", {bias, shape}, {}, "bias_chw", b3);
		bias = b3;
	}
	Emit(op, "Add", {x, bias});
	return 0;
}

int GraphToOnnx::Binary(const OperatorImpl &op)
{
	static const std::map<std::string, std::string> onnx = {
		{"Add", "Add"}, {"AddV2", "Add"}, {"Sub", "Sub"}, {"Mul", "Mul"},
		{"Div", "Div"}, {"RealDiv", "Div"}, {"Maximum", "Max"}, {"Minimum", "Min"},
		{"Pow", "Pow"},
	};
	std::string a, b;

	if (In(op, "x1", a) || In(op, "x2", b))
		return -1;
	Emit(op, onnx.at(op.type), {a, b});
	return 0;
}

int GraphToOnnx::Unary(const OperatorImpl &op)
{
	std::string x;

	if (In(op, "x", x))
		return -1;
	Emit(op, op.type, {x});
	return 0;
}

int GraphToOnnx::Relu6(const OperatorImpl &op)
{
	std::string x;

	if (In(op, "x", x))
		return -1;
	Emit(op, "Clip", {x, ConstFloat(op, "min", 0.0f), ConstFloat(op, "max", 6.0f)});
	return 0;
}

int GraphToOnnx::ExpLog(const OperatorImpl &op)
{
	std::string x;

	if (In(op, "x", x))
		return -1;
	if (Float(op, "base", -1.0f) != -1.0f || Float(op, "scale", 1.0f) != 1.0f ||
	    Float(op, "shift", 0.0f) != 0.0f)
		return Fail(op, "base, scale and shift other than -1, 1, 0 are not supported");
	Emit(op, op.type, {x});
	return 0;
}

int GraphToOnnx::Elu(const OperatorImpl &op)
{
	std::string x;

	if (In(op, "x", x))
		return -1;
	Emit(op, "Elu", {x}, {attr_f("alpha", Float(op, "alpha", 1.0f))});
	return 0;
}

int GraphToOnnx::LeakyRelu(const OperatorImpl &op)
{
	std::string x;

	if (In(op, "x", x))
		return -1;
	Emit(op, "LeakyRelu", {x}, {attr_f("alpha", Float(op, "negative_slope", 0.0f))});
	return 0;
}

int GraphToOnnx::HardSigmoid(const OperatorImpl &op)
{
	std::string x;

	if (In(op, "input_x", x))
		return -1;
	Emit(op, "HardSigmoid", {x}, {attr_f("alpha", Float(op, "alpha", 1.0f / 6)),
				      attr_f("beta", Float(op, "beta", 0.5f))});
	return 0;
}

int GraphToOnnx::Softmax(const OperatorImpl &op)
{
	bool log = op.type == "LogSoftmaxV2";
	std::string x;
	std::vector<int64_t> axes;

	if (In(op, log ? "logits" : "x", x) || Ints(op, "axes", axes))
		return -1;
	if (axes.size() != 1)
		return Fail(op, "softmax over " + std::to_string(axes.size()) +
			    " axes is not supported: give one");
	Emit(op, log ? "LogSoftmax" : "Softmax", {x}, {attr_i("axis", axes[0])});
	return 0;
}

int GraphToOnnx::Pool(const OperatorImpl &op)
{
	bool max = op.type == "MaxPool";
	std::string x, padding = Str(op, "padding", "");
	std::vector<int64_t> k, s;
	std::vector<OnnxAttr> attrs;

	if (Nchw(op) || In(op, "x", x) || Window(op, "ksize", k) || Window(op, "strides", s))
		return -1;
	if (padding == "SAME")
		attrs.push_back(attr_s("auto_pad", "SAME_UPPER"));
	else if (padding == "VALID")
		attrs.push_back(attr_s("auto_pad", "VALID"));
	else
		return Fail(op, "padding '" + padding + "': SAME or VALID");
	attrs.push_back(attr_ints("kernel_shape", k));
	attrs.push_back(attr_ints("strides", s));
	Emit(op, max ? "MaxPool" : "AveragePool", {x}, attrs);
	return 0;
}

int GraphToOnnx::PoolV2(const OperatorImpl &op)
{
	bool max = op.type == "MaxPoolV3";
	std::string x, mode = Str(op, "padding_mode", "CALCULATED");
	std::vector<int64_t> k, s;
	std::vector<OnnxAttr> attrs;

	if (Nchw(op) || In(op, "x", x))
		return -1;
	if (Bool(op, "global_pooling", false)) {
		Emit(op, max ? "GlobalMaxPool" : "GlobalAveragePool", {x});
		return 0;
	}
	if (Window(op, "ksize", k) || Window(op, "strides", s))
		return -1;
	if (mode == "CALCULATED") {
		if (Pads(op, attrs))
			return -1;
	} else if (mode == "SAME") {
		attrs.push_back(attr_s("auto_pad", "SAME_UPPER"));
	} else if (mode == "VALID") {
		attrs.push_back(attr_s("auto_pad", "VALID"));
	} else {
		return Fail(op, "padding_mode '" + mode + "': CALCULATED, SAME or VALID");
	}
	if (!max && Int(op, "divisor_override", 0))
		return Fail(op, "divisor_override is not supported");
	attrs.push_back(attr_ints("kernel_shape", k));
	attrs.push_back(attr_ints("strides", s));
	attrs.push_back(attr_i("ceil_mode", Bool(op, "ceil_mode", false)));
	if (!max)
		attrs.push_back(attr_i("count_include_pad", !Bool(op, "exclusive", true)));
	Emit(op, max ? "MaxPool" : "AveragePool", {x}, attrs);
	return 0;
}

int GraphToOnnx::GlobalPool(const OperatorImpl &op)
{
	std::string x;

	if (In(op, "x", x))
		return -1;
	Emit(op, "GlobalAveragePool", {x});
	return 0;
}

int GraphToOnnx::Reduce(const OperatorImpl &op)
{
	bool attr_form = op.type.back() == 'D';
	std::string onnx = attr_form ? op.type.substr(0, op.type.size() - 1) : op.type;
	std::string x;
	std::vector<int64_t> axes;

	if (In(op, "x", x) || (attr_form ? Ints(op, "axes", axes) : IntsIn(op, "axes", axes)))
		return -1;
	int64_t keep = Bool(op, "keep_dims", false);
	/* Opset 13: ReduceSum takes its axes as an input, the others as an attribute. */
	if (onnx == "ReduceSum")
		Emit(op, onnx, {x, ConstInts(op, "axes", axes)}, {attr_i("keepdims", keep)});
	else
		Emit(op, onnx, {x}, {attr_ints("axes", axes), attr_i("keepdims", keep)});
	return 0;
}

int GraphToOnnx::Reshape(const OperatorImpl &op)
{
	std::string x;
	std::vector<int64_t> shape;

	if (In(op, "x", x) || IntsIn(op, "shape", shape))
		return -1;
	if (Int(op, "axis", 0) != 0 || Int(op, "num_axes", -1) != -1)
		return Fail(op, "axis and num_axes other than 0 and -1 are not supported");
	Emit(op, "Reshape", {x, ConstInts(op, "shape", shape)});
	return 0;
}

int GraphToOnnx::Flatten(const OperatorImpl &op)
{
	std::string x;

	if (In(op, "x", x))
		return -1;
	Emit(op, "Flatten", {x}, {attr_i("axis", Int(op, "axis", 1))});
	return 0;
}

int GraphToOnnx::Squeeze(const OperatorImpl &op)
{
	bool sq = op.type == "Squeeze";
	std::string x;
	std::vector<int64_t> axes;

	if (In(op, "x", x) || Ints(op, sq ? "axis" : "axes", axes))
		return -1;
	std::vector<std::string> in = {x};
	if (!axes.empty())
		in.push_back(ConstInts(op, "axes", axes));
	else if (!sq)
		return Fail(op, "attribute 'axes' is empty");
	Emit(op, op.type, in);
	return 0;
}

int GraphToOnnx::Concat(const OperatorImpl &op)
{
	std::vector<std::string> in;
	int64_t axis;

	if (op.type == "ConcatD") {
		axis = Int(op, "concat_dim", 0);
	} else {
		std::vector<int64_t> dim;

		if (IntsIn(op, "concat_dim", dim))
			return -1;
		if (dim.size() != 1)
			return Fail(op, "input 'concat_dim' must hold one value");
		axis = dim[0];
	}
	for (int i = 0; op.input("x" + std::to_string(i)); i++) {
		std::string v;

		if (In(op, ("x" + std::to_string(i)).c_str(), v))
			return -1;
		in.push_back(v);
	}
	if (in.empty())
		return Fail(op, "no inputs: create_dynamic_input_x first");
	if (Int(op, "N", (int64_t)in.size()) != (int64_t)in.size())
		return Fail(op, "attribute N is " + std::to_string(Int(op, "N", 0)) + " but " +
			    std::to_string(in.size()) + " inputs are linked");
	Emit(op, "Concat", in, {attr_i("axis", axis)});
	return 0;
}

int GraphToOnnx::Transpose(const OperatorImpl &op)
{
	std::string x;
	std::vector<int64_t> perm;

	if (In(op, "x", x) ||
	    (op.type == "TransposeD" ? Ints(op, "perm", perm) : IntsIn(op, "perm", perm)))
		return -1;
	Emit(op, "Transpose", {x}, {attr_ints("perm", perm)});
	return 0;
}

int GraphToOnnx::Cast(const OperatorImpl &op)
{
	std::string x;
	int to = OnnxDataType((DataType)Int(op, "dst_type", DT_UNDEFINED));

	if (In(op, "x", x))
		return -1;
	if (!to)
		return Fail(op, "dst_type " + std::to_string(Int(op, "dst_type", -1)) +
			    " is not supported");
	Emit(op, "Cast", {x}, {attr_i("to", to)});
	return 0;
}

int GraphToOnnx::Run()
{
	if (g_.outputs.empty()) {
		err_ = "graph '" + g_.name + "' has no outputs: call SetOutputs";
		return -1;
	}
	for (auto &o : g_.outputs)
		if (Visit(o.op))
			return -1;
	for (auto &op : g_.inputs)
		if (Visit(op))
			return -1;
	for (auto &o : g_.outputs) {
		int idx = o.output.empty() ? (int)o.index : o.op->output_index(o.output);
		auto &vals = values_[o.op.get()];

		if (idx < 0 || (size_t)idx >= vals.size()) {
			Fail(*o.op, "the graph's output names an output it does not have");
			return -1;
		}
		outputs_.push_back(vals[idx]);
	}
	std::stable_sort(inputs_.begin(), inputs_.end(),
			 [](const OnnxValue &a, const OnnxValue &b) { return a.index < b.index; });
	for (size_t i = 0; i < inputs_.size(); i++)
		if (inputs_[i].index != (int64_t)i) {
			err_ = "Data '" + inputs_[i].name + "' has index " +
			       std::to_string(inputs_[i].index) + ": the indexes must run from 0 to " +
			       std::to_string(inputs_.size() - 1);
			return -1;
		}
	return 0;
}

/* Without data: MakeSpec gives constants theirs. */
static npucc_spec_tensor tensor_of(const OnnxValue &v)
{
	npucc_spec_tensor t = {};

	t.name = v.name.c_str();
	t.dtype = v.dtype;
	t.rank = (int)v.dims.size();
	t.dims = v.dims.data();
	t.size = v.data.size();
	return t;
}

void GraphToOnnx::MakeSpec(npucc_spec &spec)
{
	for (auto &v : inputs_)
		spec_inputs_.push_back(tensor_of(v));
	for (auto &v : consts_) {
		npucc_spec_tensor t = tensor_of(v);
		static const uint8_t empty = 0;

		t.data = v.data.empty() ? &empty : v.data.data();
		spec_consts_.push_back(t);
	}
	for (auto &n : nodes_) {
		npucc_spec_node dn = {};
		std::vector<const char *> in, out;
		std::vector<npucc_spec_attr> attrs;

		for (auto &s : n.in)
			in.push_back(s.c_str());
		for (auto &s : n.out)
			out.push_back(s.c_str());
		for (auto &a : n.attrs) {
			npucc_spec_attr da = {};

			da.name = a.name.c_str();
			da.type = a.type;
			da.f = a.f;
			da.i = a.i;
			da.s = a.s.c_str();
			da.n = a.type == NPUCC_ATTR_INTS ? a.ints.size() : a.floats.size();
			da.ints = a.ints.data();
			da.floats = a.floats.data();
			attrs.push_back(da);
		}
		spec_names_.push_back(in);
		dn.in = spec_names_.back().data();
		spec_names_.push_back(out);
		dn.out = spec_names_.back().data();
		spec_attrs_.push_back(attrs);
		dn.attrs = spec_attrs_.back().data();
		dn.name = n.name.c_str();
		dn.op = n.op.c_str();
		dn.num_in = (int)n.in.size();
		dn.num_out = (int)n.out.size();
		dn.num_attrs = (int)n.attrs.size();
		spec_nodes_.push_back(dn);
	}
	for (auto &s : outputs_)
		spec_outputs_.push_back(s.c_str());
	spec = {};
	spec.opset = kOpset;
	spec.num_inputs = (int)spec_inputs_.size();
	spec.num_consts = (int)spec_consts_.size();
	spec.num_nodes = (int)spec_nodes_.size();
	spec.num_outputs = (int)spec_outputs_.size();
	spec.inputs = spec_inputs_.data();
	spec.consts = spec_consts_.data();
	spec.nodes = spec_nodes_.data();
	spec.outputs = spec_outputs_.data();
}

const char *option(const std::map<std::string, std::string> &o, const char *key)
{
	auto it = o.find(key);
	return it == o.end() || it->second.empty() ? nullptr : it->second.c_str();
}
}  // namespace

Status CompileGraphToOm(const GraphImpl &g, const std::vector<TensorDesc> &shapes,
			const std::map<std::string, std::string> &options,
			std::vector<uint8_t> &om, std::string &error)
{
	npucc_options opts = {};
	npucc_result res = {};

	opts.log_level = NPUCC_LOG_NULL;
	opts.output_type = option(options, OUTPUT_DATATYPE);
	opts.input_shape = option(options, INPUT_SHAPE);
	if (!opts.input_shape && !g.input_shape.empty())
		opts.input_shape = g.input_shape.c_str();
	if (!g.onnx.empty()) {
		npucc_compile(g.onnx.data(), g.onnx.size(), &opts, &res);
	} else {
		GraphToOnnx to_onnx(g, shapes);
		npucc_spec spec;

		if (to_onnx.Run()) {
			error = to_onnx.Error();
			return GE_GRAPH_PREPARE_FAILED;
		}
		to_onnx.MakeSpec(spec);
		npucc_compile_spec(&spec, &opts, &res);
	}
	if (res.error) {
		error = std::string(npucc_error_name(res.error)) + ": " + res.message;
		npucc_result_free(&res);
		return res.error == NPUCC_E_UNSUPPORTED_OP || res.error == NPUCC_E_UNSUPPORTED_ATTR ||
		       res.error == NPUCC_E_UNSUPPORTED_DTYPE ? GE_GRAPH_UNSUPPORTED :
		       GE_GRAPH_PREPARE_FAILED;
	}
	om.assign((const uint8_t *)res.om, (const uint8_t *)res.om + res.om_size);
	npucc_result_free(&res);
	return SUCCESS;
}
}  // namespace ge
