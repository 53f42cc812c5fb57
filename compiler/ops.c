// SPDX-License-Identifier: MIT
/*
 * The table of ONNX operators libnpucc accepts: the attributes each may
 * carry, how many inputs and outputs, its shape function, its host
 * evaluation when its inputs are constants, and which card operator it
 * lowers to.  An operator that is not here, or an attribute not listed
 * for it, stops compilation with an error naming the node.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "ir.h"
#include "npu_operator.h"
#include "ops.h"

#define ANY		(-1)
#define FOLD_ONLY	(-2)	/* no card operator: only folded */
#define ALIAS		(-3)	/* no card operator: a view of its input */

#define UNARY_ATTRS(name, attrs) \
	{ name, attrs, 1, 1, 1, 1, infer_same, fold_unary, false }
#define BINARY(name) \
	{ name, "axis broadcast", 2, 2, 1, 1, infer_broadcast, fold_binary, false }
#define COMPARE(name) \
	{ name, "", 2, 2, 1, 1, infer_compare, fold_binary, false }
#define VIEW(name, attrs, nin, infer) \
	{ name, attrs, 1, nin, 1, 1, infer, fold_view, true }
#define REDUCE(name) \
	{ name, "axes keepdims noop_with_empty_axes", 1, 2, 1, 1, infer_reduce, fold_reduce, false }
#define REDUCE_BY_SUM(name) \
	{ name, "axes keepdims noop_with_empty_axes", 1, 2, 1, 1, infer_reduce, NULL, false }

static const struct op_def op_table[] = {
	{ "Conv", "auto_pad dilations group kernel_shape pads strides", 2, 3, 1, 1,
	  infer_conv, NULL, false },
	{ "ConvTranspose", "auto_pad dilations group kernel_shape output_padding output_shape pads strides",
	  2, 3, 1, 1, infer_conv_transpose, NULL, false },
	{ "MatMul", "", 2, 2, 1, 1, infer_matmul, NULL, false },
	{ "Gemm", "alpha beta broadcast transA transB", 2, 3, 1, 1, infer_gemm, NULL, false },
	{ "MaxPool", "auto_pad ceil_mode dilations kernel_shape pads storage_order strides",
	  1, 1, 1, 2, infer_pool, NULL, false },
	{ "AveragePool", "auto_pad ceil_mode count_include_pad kernel_shape pads strides",
	  1, 1, 1, 1, infer_pool, NULL, false },
	{ "GlobalAveragePool", "", 1, 1, 1, 1, infer_global_pool, NULL, false },
	{ "GlobalMaxPool", "", 1, 1, 1, 1, infer_global_pool, NULL, false },
	UNARY_ATTRS("Relu", ""),
	UNARY_ATTRS("Sigmoid", ""),
	UNARY_ATTRS("Tanh", ""),
	UNARY_ATTRS("Exp", ""),
	UNARY_ATTRS("Log", ""),
	UNARY_ATTRS("Sqrt", ""),
	UNARY_ATTRS("Abs", ""),
	UNARY_ATTRS("Neg", ""),
	UNARY_ATTRS("Erf", ""),
	UNARY_ATTRS("Softplus", ""),
	UNARY_ATTRS("HardSwish", ""),
	UNARY_ATTRS("HardSigmoid", "alpha beta"),
	UNARY_ATTRS("Elu", "alpha"),
	UNARY_ATTRS("LeakyRelu", "alpha"),
	{ "Selu", "alpha gamma", 1, 1, 1, 1, infer_same, NULL, false },
	{ "Softsign", "", 1, 1, 1, 1, infer_same, NULL, false },
	{ "Clip", "min max", 1, 3, 1, 1, infer_same, NULL, false },
	{ "PRelu", "", 2, 2, 1, 1, infer_same, NULL, false },
	BINARY("Add"), BINARY("Sub"), BINARY("Mul"), BINARY("Div"),
	{ "Pow", "axis broadcast", 2, 2, 1, 1, infer_broadcast, fold_binary, false },
	{ "Min", "", 1, ANY, 1, 1, infer_broadcast, fold_binary, false },
	{ "Max", "", 1, ANY, 1, 1, infer_broadcast, fold_binary, false },
	{ "Sum", "", 1, ANY, 1, 1, infer_broadcast, fold_binary, false },
	{ "Mean", "", 1, ANY, 1, 1, infer_broadcast, NULL, false },
	{ "BatchNormalization", "epsilon is_test momentum spatial training_mode", 5, 5, 1, 5, infer_norm, NULL, false },
	{ "LayerNormalization", "axis epsilon stash_type", 2, 3, 1, 3, infer_norm, NULL, false },
	{ "Softmax", "axis", 1, 1, 1, 1, infer_same, NULL, false },
	{ "LogSoftmax", "axis", 1, 1, 1, 1, infer_same, NULL, false },
	REDUCE("ReduceMean"), REDUCE("ReduceSum"), REDUCE("ReduceMax"), REDUCE("ReduceMin"),
	/* Legalized into ReduceSum and elementwise ops (infer.c). */
	REDUCE_BY_SUM("ReduceSumSquare"), REDUCE_BY_SUM("ReduceL1"), REDUCE_BY_SUM("ReduceL2"),
	REDUCE_BY_SUM("ReduceLogSum"), REDUCE_BY_SUM("ReduceLogSumExp"),
	{ "Concat", "axis", 1, ANY, 1, 1, infer_concat, fold_concat, false },
	{ "Transpose", "perm", 1, 1, 1, 1, infer_transpose, fold_transpose, false },
	{ "Resize", "coordinate_transformation_mode cubic_coeff_a exclude_outside extrapolation_value mode nearest_mode",
	  1, 4, 1, 1, infer_resize, NULL, false },
	{ "Upsample", "mode scales", 1, 2, 1, 1, infer_resize, NULL, false },
	{ "Pad", "mode pads value", 1, 3, 1, 1, infer_pad, NULL, false },
	{ "Slice", "axes ends starts", 1, 5, 1, 1, infer_slice, fold_slice, false },
	{ "Split", "axis split", 1, 2, 1, SPLIT_MAX_OUT, infer_split, NULL, false },
	{ "Cast", "to", 1, 1, 1, 1, infer_cast, fold_cast, false },
	VIEW("Reshape", "allowzero", 2, infer_reshape),
	VIEW("Flatten", "axis", 1, infer_flatten),
	VIEW("Squeeze", "axes", 2, infer_squeeze),
	VIEW("Unsqueeze", "axes", 2, infer_unsqueeze),
	VIEW("Identity", "", 1, infer_same),
	{ "Dropout", "is_test ratio seed", 1, 3, 1, 2, infer_same, fold_view, true },
	{ "Constant", "value value_float value_floats value_int value_ints value_string value_strings sparse_value",
	  0, 0, 1, 1, infer_constant, fold_constant, false },
	/* Shape computations: only ever folded. */
	{ "Shape", "start end", 1, 1, 1, 1, infer_shape, fold_shape, false },
	{ "Size", "", 1, 1, 1, 1, infer_size, fold_size, false },
	{ "Gather", "axis", 2, 2, 1, 1, infer_gather, fold_gather, false },
	{ "ConstantOfShape", "value", 1, 1, 1, 1, infer_constant_of_shape, fold_constant_of_shape, false },
	{ "Range", "", 3, 3, 1, 1, infer_range, fold_range, false },
	{ "Expand", "", 2, 2, 1, 1, infer_expand, fold_expand, false },
	{ "Where", "", 3, 3, 1, 1, infer_where, fold_where, false },
	COMPARE("Equal"), COMPARE("Less"), COMPARE("Greater"), COMPARE("LessOrEqual"),
	COMPARE("GreaterOrEqual"), COMPARE("And"), COMPARE("Or"), COMPARE("Xor"),
	{ "Mod", "fmod", 2, 2, 1, 1, infer_broadcast, fold_binary, false },
	{ "Not", "", 1, 1, 1, 1, infer_same, fold_unary, false },
	UNARY_ATTRS("Floor", ""), UNARY_ATTRS("Ceil", ""), UNARY_ATTRS("Round", ""),
	UNARY_ATTRS("Reciprocal", ""), UNARY_ATTRS("Sign", ""),
	REDUCE("ReduceProd"),
};

const struct op_def *op_def_find(const char *op)
{
	size_t i;

	for (i = 0; i < sizeof(op_table) / sizeof(op_table[0]); i++)
		if (!strcmp(op_table[i].op, op))
			return &op_table[i];
	return NULL;
}

static bool attr_listed(const char *list, const char *name)
{
	size_t len = strlen(name);
	const char *p = list;

	while ((p = strstr(p, name))) {
		if ((p == list || p[-1] == ' ') && (p[len] == ' ' || !p[len]))
			return true;
		p += len;
	}
	return false;
}

/* Attributes, input and output counts; the shape functions check the rest. */
int op_check(struct ir_graph *g, struct ir_node *n)
{
	const struct op_def *def = op_def_find(n->op);
	int i;

	if (!def)
		return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_OP, "operator %s is not supported",
				     n->op);
	for (i = 0; i < n->num_attrs; i++)
		if (!attr_listed(def->attrs, n->attrs[i].name))
			return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_ATTR,
					     "attribute '%s' is not supported", n->attrs[i].name);
	if (n->num_in < def->min_in || (def->max_in != ANY && n->num_in > def->max_in) ||
	    n->num_out < def->min_out || n->num_out > def->max_out)
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL,
				     "%d inputs and %d outputs", n->num_in, n->num_out);
	for (i = 0; i < def->min_in; i++)
		if (!n->in[i])
			return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "input %d is missing", i);
	if (!n->out[0])
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "output 0 is missing");
	for (i = 0; i < n->num_in; i++)
		if (n->in[i] && !ir_shape_known(n->in[i]))
			return ir_node_error(g, n, NPUCC_E_DYNAMIC_SHAPE,
					     "input '%s' has no static shape", n->in[i]->name);
	return 0;
}

/* The card operator a node lowers to; ALIAS or FOLD_ONLY when none. */
int op_lower_kind(const struct ir_node *n)
{
	static const struct { const char *op; int kind; } map[] = {
		{ "Conv", NPU_OPERATOR_CONV2D },
		{ "ConvTranspose", NPU_OPERATOR_CONV_TRANSPOSE2D },
		{ "MatMul", NPU_OPERATOR_MATMUL }, { "Gemm", NPU_OPERATOR_MATMUL },
		{ "MaxPool", NPU_OPERATOR_POOL2D }, { "AveragePool", NPU_OPERATOR_POOL2D },
		{ "GlobalAveragePool", NPU_OPERATOR_POOL2D },
		{ "GlobalMaxPool", NPU_OPERATOR_POOL2D },
		{ "Add", NPU_OPERATOR_BINARY }, { "Sub", NPU_OPERATOR_BINARY },
		{ "Mul", NPU_OPERATOR_BINARY }, { "Div", NPU_OPERATOR_BINARY },
		{ "Pow", NPU_OPERATOR_BINARY }, { "Min", NPU_OPERATOR_BINARY },
		{ "Max", NPU_OPERATOR_BINARY }, { "Sum", NPU_OPERATOR_BINARY },
		{ "BatchNormalization", NPU_OPERATOR_BATCHNORM },
		{ "LayerNormalization", NPU_OPERATOR_LAYERNORM },
		{ "Softmax", NPU_OPERATOR_SOFTMAX }, { "LogSoftmax", NPU_OPERATOR_SOFTMAX },
		{ "ReduceMean", NPU_OPERATOR_REDUCE }, { "ReduceSum", NPU_OPERATOR_REDUCE },
		{ "ReduceMax", NPU_OPERATOR_REDUCE }, { "ReduceMin", NPU_OPERATOR_REDUCE },
		{ "Concat", NPU_OPERATOR_CONCAT }, { "Transpose", NPU_OPERATOR_TRANSPOSE },
		{ "Resize", NPU_OPERATOR_RESIZE }, { "Upsample", NPU_OPERATOR_RESIZE },
		{ "Pad", NPU_OPERATOR_PAD }, { "Slice", NPU_OPERATOR_SLICE },
		{ "Cast", NPU_OPERATOR_CAST },
		{ "PackConv", NPU_OPERATOR_PACK_CONV2D },	/* layout.c's own */
	};
	const struct op_def *def = op_def_find(n->op);
	size_t i;

	if (n->copy)
		return NPU_OPERATOR_UNARY;
	if (def && def->alias)
		return ALIAS;
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(map[i].op, n->op))
			return map[i].kind;
	if (op_unary_kind(n, NULL) > 0)
		return NPU_OPERATOR_UNARY;
	return FOLD_ONLY;
}

int op_binary_kind(const char *op)
{
	static const char *const names[] = {
		[NPU_BINARY_ADD] = "Add", [NPU_BINARY_SUB] = "Sub", [NPU_BINARY_MUL] = "Mul",
		[NPU_BINARY_DIV] = "Div", [NPU_BINARY_POW] = "Pow", [NPU_BINARY_MIN] = "Min",
		[NPU_BINARY_MAX] = "Max",
	};
	int i;

	if (!strcmp(op, "Sum"))
		return NPU_BINARY_ADD;
	for (i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
		if (!strcmp(names[i], op))
			return i;
	return -1;
}

static float clip_bound(const struct ir_node *n, int idx, const char *attr, float dflt)
{
	if (n->num_in > idx && n->in[idx])
		return n->in[idx]->data ? (float)ir_get_f64(n->in[idx], 0) : NAN;
	return ir_attr_float(n, attr, dflt);
}

/*
 * The card's elementwise function for a unary node, with its parameters in
 * @act (may be NULL); 0 when the node is not one, -1 for a Clip whose
 * bounds come from the input data.
 */
int op_unary_kind(const struct ir_node *n, struct ir_act *act)
{
	static const struct { const char *op; int kind; float alpha, beta; } map[] = {
		{ "Relu", NPU_UNARY_RELU, 0, 0 },
		{ "Sigmoid", NPU_UNARY_SIGMOID, 0, 0 },
		{ "HardSigmoid", NPU_UNARY_HARDSIGMOID, 0.2f, 0.5f },
		{ "HardSwish", NPU_UNARY_HARDSWISH, 0, 0 },
		{ "LeakyRelu", NPU_UNARY_LEAKY_RELU, 0.01f, 0 },
		{ "Tanh", NPU_UNARY_TANH, 0, 0 },
		{ "Exp", NPU_UNARY_EXP, 0, 0 },
		{ "Log", NPU_UNARY_LOG, 0, 0 },
		{ "Sqrt", NPU_UNARY_SQRT, 0, 0 },
		{ "Abs", NPU_UNARY_ABS, 0, 0 },
		{ "Neg", NPU_UNARY_NEG, 0, 0 },
		{ "Erf", NPU_UNARY_ERF, 0, 0 },
		{ "Elu", NPU_UNARY_ELU, 1.0f, 0 },
		{ "Softplus", NPU_UNARY_SOFTPLUS, 0, 0 },
	};
	struct ir_act tmp;
	size_t i;

	if (!act)
		act = &tmp;
	memset(act, 0, sizeof(*act));
	if (!strcmp(n->op, "Clip")) {
		act->kind = NPU_UNARY_CLIP;
		act->alpha = clip_bound(n, 1, "min", -FLT_MAX);
		act->beta = clip_bound(n, 2, "max", FLT_MAX);
		return isnan(act->alpha) || isnan(act->beta) ? -1 : act->kind;
	}
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		if (strcmp(map[i].op, n->op))
			continue;
		act->kind = map[i].kind;
		act->alpha = ir_attr_float(n, "alpha", map[i].alpha);
		act->beta = ir_attr_float(n, "beta", map[i].beta);
		return act->kind;
	}
	return 0;
}

/*
 * Which inputs become tensors of the card operator: all of them for one
 * that takes several, else the first (the others, such as a Reshape's
 * shape or a Slice's starts, are folded into its attributes).
 */
unsigned op_tensor_inputs(const struct ir_node *n)
{
#define NPU_OPERATOR(NAME, number, min, max, ...) [NPU_OPERATOR_##NAME] = (max),
	static const unsigned char max_inputs[] = { NPU_OPERATOR_TABLE };
#undef NPU_OPERATOR
	unsigned all = n->num_in >= 32 ? ~0u : (1u << n->num_in) - 1;
	int kind = op_lower_kind(n);

	return kind >= 0 && kind <= NPU_OPERATOR_LAST && max_inputs[kind] > 1 ? all : 1;
}
