// SPDX-License-Identifier: MIT
/*
 * Legalize: every node left after folding must run on the card,
 * so what only folding can do is an error, and the few ops the card runs
 * as more than one operator are split here (variadic Min, Max and Sum,
 * Clip with bounds computed from the input data).
 */
#include <string.h>

#include "ir.h"
#include "npu_operator.h"
#include "ops.h"

/* Min(a, b, c) becomes Min(Min(a, b), c): the card's BINARY has two inputs. */
static int split_variadic(struct ir_graph *g, struct ir_node *n)
{
	struct ir_value *acc = n->in[0];
	int k;

	if (n->num_in == 1) {
		n->op = ir_strdup(g, "Identity");
		return n->op ? 0 : -1;
	}
	for (k = 1; k < n->num_in - 1; k++) {
		struct ir_node *m = ir_node_new(g, NULL, n->op, 2, 1);
		struct ir_value *t = ir_value_new(g, NULL);

		if (!m || !t)
			return -1;
		m->in[0] = acc;
		m->in[1] = n->in[k];
		m->out[0] = t;
		t->producer = m;
		if (infer_broadcast(g, m) ||
		    ir_node_insert_after(g, m, n->index ? g->nodes[n->index - 1] : NULL))
			return -1;
		acc = t;
	}
	n->in[0] = acc;
	n->in[1] = n->in[n->num_in - 1];
	n->num_in = 2;
	return 0;
}

/* Clip(x, lo, hi) with bounds from the data: Min(Max(x, lo), hi). */
static int split_clip(struct ir_graph *g, struct ir_node *n)
{
	struct ir_value *x = n->in[0], *lo = n->num_in > 1 ? n->in[1] : NULL;
	struct ir_value *hi = n->num_in > 2 ? n->in[2] : NULL;
	struct ir_node *m;
	struct ir_value *t;

	if (lo && hi) {
		m = ir_node_new(g, NULL, "Max", 2, 1);
		t = ir_value_new(g, NULL);
		if (!m || !t)
			return -1;
		m->in[0] = x;
		m->in[1] = lo;
		m->out[0] = t;
		t->producer = m;
		if (infer_broadcast(g, m) ||
		    ir_node_insert_after(g, m, n->index ? g->nodes[n->index - 1] : NULL))
			return -1;
		x = t;
		lo = NULL;
	}
	n->op = ir_strdup(g, lo ? "Max" : "Min");
	n->in[0] = x;
	n->in[1] = lo ? lo : hi;
	n->num_in = 2;
	if (!n->op)
		return -1;
	return infer_broadcast(g, n);
}

/* A new binary node right before @n; its output, or NULL. */
static struct ir_value *binary_before(struct ir_graph *g, struct ir_node *n, const char *op,
				      struct ir_value *a, struct ir_value *b)
{
	struct ir_node *m = ir_node_new(g, NULL, op, 2, 1);
	struct ir_value *t = ir_value_new(g, NULL);

	if (!m || !t)
		return NULL;
	m->in[0] = a;
	m->in[1] = b;
	m->out[0] = t;
	t->producer = m;
	if (infer_broadcast(g, m) ||
	    ir_node_insert_after(g, m, n->index ? g->nodes[n->index - 1] : NULL))
		return NULL;
	return t;
}

/* PRelu(x, slope) is Max(x, 0) + slope * Min(x, 0). */
static int split_prelu(struct ir_graph *g, struct ir_node *n)
{
	struct ir_value *x = n->in[0], *slope = n->in[1], *zero, *pos, *neg;

	if (!ir_dtype_is_float(x->dtype) || slope->dtype != x->dtype)
		return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_DTYPE, "PRelu of %s",
				     ir_dtype_name(x->dtype));
	if (g->opset < 7 && slope->rank == 1 && slope->data && x->rank > 2 &&
	    slope->dims[0] > 1 && slope->dims[0] == x->dims[1]) {
		/* PRelu-6: a slope per channel (axis 1), not numpy's trailing axis */
		int64_t dims[IR_MAX_DIMS] = { slope->dims[0], 1, 1, 1, 1, 1, 1, 1 };
		struct ir_value *v = ir_value_new(g, NULL);

		if (!v)
			return -1;
		ir_set_shape(v, slope->dtype, x->rank - 1, dims);
		v->data = slope->data;
		slope = v;
	}
	zero = ir_const_new(g, "zero", x->dtype, 0, NULL);
	if (!zero)
		return -1;
	pos = binary_before(g, n, "Max", x, zero);
	neg = pos ? binary_before(g, n, "Min", x, zero) : NULL;
	neg = neg ? binary_before(g, n, "Mul", neg, slope) : NULL;
	if (!neg)
		return -1;
	n->op = ir_strdup(g, "Add");
	n->in[0] = pos;
	n->in[1] = neg;
	if (!n->op)
		return -1;
	return infer_broadcast(g, n);
}

/* A new node of one or two inputs right before @n, writing @out (NULL: new). */
static struct ir_value *node_before(struct ir_graph *g, struct ir_node *n, const char *op,
				    struct ir_value *a, struct ir_value *b, struct ir_value *out,
				    struct ir_attr *attrs, int num_attrs)
{
	struct ir_node *m = ir_node_new(g, NULL, op, b ? 2 : 1, 1);
	struct ir_value *t = out ? out : ir_value_new(g, NULL);

	if (!m || !t)
		return NULL;
	m->in[0] = a;
	if (b)
		m->in[1] = b;
	m->attrs = attrs;
	m->num_attrs = num_attrs;
	m->out[0] = t;
	t->producer = m;
	if (op_def_find(op)->infer(g, m) ||
	    ir_node_insert_after(g, m, n->index ? g->nodes[n->index - 1] : NULL))
		return NULL;
	return t;
}

static bool output_used(const struct ir_node *n, int k)
{
	return k < n->num_out && n->out[k] &&
	       (n->out[k]->num_uses || n->out[k]->output_index >= 0);
}

/*
 * LayerNormalization's Mean and InvStdDev outputs, which the card's
 * LAYERNORM does not write: ReduceMean(x) and 1 / Sqrt(ReduceMean((x -
 * Mean)^2) + epsilon) over the normalized axes, as ONNX defines them.
 */
static int split_layernorm_stats(struct ir_graph *g, struct ir_node *n)
{
	struct ir_value *x = n->in[0], *mean, *dev, *var, *eps, *one;
	struct ir_attr *attrs = ir_alloc(g, 2 * sizeof(*attrs));
	int axis, k;

	if (x->dtype != IR_FLOAT)
		return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_ATTR,
				     "Mean and InvStdDev of %s", ir_dtype_name(x->dtype));
	if (!attrs || norm_axis(g, n, ir_attr_int(n, "axis", -1), x->rank, &axis))
		return -1;
	attrs[0] = (struct ir_attr){ .name = ir_strdup(g, "axes"), .type = IR_ATTR_INTS,
				     .n = (size_t)(x->rank - axis),
				     .ints = ir_alloc(g, sizeof(int64_t) * IR_MAX_DIMS) };
	attrs[1] = (struct ir_attr){ .name = ir_strdup(g, "keepdims"), .type = IR_ATTR_INT, .i = 1 };
	if (!attrs[0].name || !attrs[0].ints || !attrs[1].name)
		return -1;
	for (k = axis; k < x->rank; k++)
		attrs[0].ints[k - axis] = k;
	eps = ir_const_new(g, "epsilon", IR_FLOAT, 0, NULL);
	one = ir_const_new(g, "one", IR_FLOAT, 0, NULL);
	if (!eps || !one)
		return -1;
	ir_set_f64(eps, 0, ir_attr_float(n, "epsilon", 1e-5f));
	ir_set_f64(one, 0, 1.0);
	mean = node_before(g, n, "ReduceMean", x, NULL, output_used(n, 1) ? n->out[1] : NULL,
			   attrs, 2);
	if (!mean)
		return -1;
	if (output_used(n, 2)) {
		dev = node_before(g, n, "Sub", x, mean, NULL, NULL, 0);
		dev = dev ? node_before(g, n, "Mul", dev, dev, NULL, NULL, 0) : NULL;
		var = dev ? node_before(g, n, "ReduceMean", dev, NULL, NULL, attrs, 2) : NULL;
		var = var ? node_before(g, n, "Add", var, eps, NULL, NULL, 0) : NULL;
		var = var ? node_before(g, n, "Sqrt", var, NULL, NULL, NULL, 0) : NULL;
		if (!var || !node_before(g, n, "Div", one, var, n->out[2], NULL, 0))
			return -1;
	}
	n->num_out = 1;
	return 0;
}

/* A 1-element int64 constant, or NULL. */
static struct ir_value *const_i64(struct ir_graph *g, const char *hint, int64_t x)
{
	static const int64_t one[] = { 1 };
	struct ir_value *v = ir_const_new(g, hint, IR_INT64, 1, one);

	if (v)
		ir_set_i64(v, 0, x);
	return v;
}

/* Slice-1's starts, ends and axes attributes for one axis, or NULL. */
static struct ir_attr *slice_attrs(struct ir_graph *g, int64_t start, int64_t end, int axis)
{
	static const char *const names[] = { "starts", "ends", "axes" };
	struct ir_attr *attrs = ir_alloc(g, 3 * sizeof(*attrs));
	int64_t vals[] = { start, end, axis };
	int k;

	if (!attrs)
		return NULL;
	for (k = 0; k < 3; k++) {
		attrs[k] = (struct ir_attr){ .name = ir_strdup(g, names[k]), .type = IR_ATTR_INTS,
					     .n = 1, .ints = ir_alloc(g, sizeof(int64_t)) };
		if (!attrs[k].name || !attrs[k].ints)
			return NULL;
		attrs[k].ints[0] = vals[k];
	}
	return attrs;
}

/* Split is a Slice per output, in the form of the model's opset. */
static int split_as_slices(struct ir_graph *g, struct ir_node *n)
{
	int64_t sizes[SPLIT_MAX_OUT], start = 0;
	int axis, k;

	if (split_sizes(g, n, &axis, sizes))
		return -1;
	for (k = 0; k < n->num_out; start += sizes[k], k++) {
		struct ir_node *m;

		if (!output_used(n, k))
			continue;
		m = ir_node_new(g, NULL, "Slice", g->opset < 10 ? 1 : 4, 1);
		if (!m)
			return -1;
		m->in[0] = n->in[0];
		if (g->opset < 10) {
			m->attrs = slice_attrs(g, start, start + sizes[k], axis);
			m->num_attrs = 3;
			if (!m->attrs)
				return -1;
		} else {
			m->in[1] = const_i64(g, "starts", start);
			m->in[2] = const_i64(g, "ends", start + sizes[k]);
			m->in[3] = const_i64(g, "axes", axis);
			if (!m->in[1] || !m->in[2] || !m->in[3])
				return -1;
		}
		m->out[0] = n->out[k];
		m->out[0]->producer = m;
		if (infer_slice(g, m) || ir_node_insert_after(g, m, n))
			return -1;
	}
	n->dead = true;
	return 0;
}

/*
 * @n now writes a new value, which a new node @op (with @b as second input,
 * if any) right after it turns into @n's former output.
 */
static int node_after(struct ir_graph *g, struct ir_node *n, const char *op, struct ir_value *b)
{
	struct ir_node *m = ir_node_new(g, NULL, op, b ? 2 : 1, 1);
	struct ir_value *t = ir_value_new(g, NULL);

	if (!m || !t)
		return -1;
	m->out[0] = n->out[0];
	m->out[0]->producer = m;
	n->out[0] = t;
	t->producer = n;
	if (op_def_find(n->op)->infer(g, n))
		return -1;
	m->in[0] = t;
	if (b)
		m->in[1] = b;
	if (op_def_find(op)->infer(g, m))
		return -1;
	return ir_node_insert_after(g, m, n);
}

static struct ir_value *const_f32(struct ir_graph *g, const char *hint, double x)
{
	struct ir_value *v = ir_const_new(g, hint, IR_FLOAT, 0, NULL);

	if (v)
		ir_set_f64(v, 0, x);
	return v;
}

/*
 * The reductions ONNX defines by ReduceSum: SumSquare, L1, L2, LogSum,
 * LogSumExp are ReduceSum between an elementwise op before and one after.
 */
static int reduce_by_sum(struct ir_graph *g, struct ir_node *n)
{
	static const struct { const char *op, *before, *after; } defs[] = {
		{ "ReduceSumSquare", "Mul", NULL }, { "ReduceL1", "Abs", NULL },
		{ "ReduceL2", "Mul", "Sqrt" }, { "ReduceLogSum", NULL, "Log" },
		{ "ReduceLogSumExp", "Exp", "Log" },
	};
	struct ir_value *x = n->in[0];
	size_t i;

	for (i = 0; strcmp(defs[i].op, n->op); i++)
		;
	if (!ir_dtype_is_float(x->dtype))
		return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_DTYPE, "%s of %s", n->op,
				     ir_dtype_name(x->dtype));
	if (defs[i].before)
		x = node_before(g, n, defs[i].before, x,
				strcmp(defs[i].before, "Mul") ? NULL : x, NULL, NULL, 0);
	n->op = ir_strdup(g, "ReduceSum");
	if (!x || !n->op)
		return -1;
	n->in[0] = x;
	if (defs[i].after)
		return node_after(g, n, defs[i].after, NULL);
	return infer_reduce(g, n);
}

static bool reduces_by_sum(const char *op)
{
	return !strcmp(op, "ReduceSumSquare") || !strcmp(op, "ReduceL1") ||
	       !strcmp(op, "ReduceL2") || !strcmp(op, "ReduceLogSum") ||
	       !strcmp(op, "ReduceLogSumExp");
}

/* Mean(a, b, ...) is Sum(a, b, ...) / the count. */
static int mean_as_sum(struct ir_graph *g, struct ir_node *n)
{
	struct ir_value *count = const_f32(g, "count", n->num_in);

	if (!ir_dtype_is_float(n->in[0]->dtype))
		return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_DTYPE, "Mean of %s",
				     ir_dtype_name(n->in[0]->dtype));
	n->op = ir_strdup(g, n->num_in == 1 ? "Identity" : "Sum");
	if (!count || !n->op || (n->num_in > 2 && split_variadic(g, n)))
		return -1;
	if (n->num_in == 1)
		return 0;
	return node_after(g, n, "Div", count);
}

/* Selu(x) is gamma * Elu(x, alpha). */
static int selu_as_elu(struct ir_graph *g, struct ir_node *n)
{
	struct ir_attr *alpha = ir_alloc(g, sizeof(*alpha));
	struct ir_value *gamma = const_f32(g, "gamma", ir_attr_float(n, "gamma", 1.0507009873554805f));

	if (!alpha || !gamma)
		return -1;
	*alpha = (struct ir_attr){ .name = ir_strdup(g, "alpha"), .type = IR_ATTR_FLOAT,
				   .f = ir_attr_float(n, "alpha", 1.6732632423543772f) };
	n->op = ir_strdup(g, "Elu");
	n->attrs = alpha;
	n->num_attrs = 1;
	if (!alpha->name || !n->op)
		return -1;
	return node_after(g, n, "Mul", gamma);
}

/* Softsign(x) is x / (1 + |x|). */
static int softsign_as_div(struct ir_graph *g, struct ir_node *n)
{
	struct ir_value *x = n->in[0], *one = const_f32(g, "one", 1.0), *den;

	if (x->dtype != IR_FLOAT)
		return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_DTYPE, "Softsign of %s",
				     ir_dtype_name(x->dtype));
	den = one ? node_before(g, n, "Abs", x, NULL, NULL, NULL, 0) : NULL;
	den = den ? node_before(g, n, "Add", den, one, NULL, NULL, 0) : NULL;
	n->op = ir_strdup(g, "Div");
	if (!den || !n->op)
		return -1;
	n->in[1] = den;
	n->num_in = 2;
	return infer_broadcast(g, n);
}

/* The card's CONCAT has at most 15 inputs: longer ones concatenate in parts. */
static int split_concat(struct ir_graph *g, struct ir_node *n)
{
	const int max_in = NPU_OP_MAX_TENSORS - 1;

	while (n->num_in > max_in) {
		struct ir_node *m = ir_node_new(g, NULL, "Concat", max_in, 1);
		struct ir_value *t = ir_value_new(g, NULL);

		if (!m || !t)
			return -1;
		m->attrs = n->attrs;
		m->num_attrs = n->num_attrs;
		memcpy(m->in, n->in, sizeof(*n->in) * (size_t)max_in);
		m->out[0] = t;
		t->producer = m;
		if (infer_concat(g, m) ||
		    ir_node_insert_after(g, m, n->index ? g->nodes[n->index - 1] : NULL))
			return -1;
		n->in[0] = t;
		memmove(&n->in[1], &n->in[max_in], sizeof(*n->in) * (size_t)(n->num_in - max_in));
		n->num_in -= max_in - 1;
	}
	return 0;
}

/* Reciprocal(x) is Div(1, x), the 1 a scalar the card broadcasts. */
static int reciprocal_as_div(struct ir_graph *g, struct ir_node *n)
{
	struct ir_value *one;

	if (!ir_dtype_is_float(n->in[0]->dtype))
		return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_DTYPE, "Reciprocal of %s",
				     ir_dtype_name(n->in[0]->dtype));
	one = ir_const_new(g, "one", n->in[0]->dtype, 0, NULL);
	if (!one)
		return -1;
	ir_set_f64(one, 0, 1.0);
	n->op = ir_strdup(g, "Div");
	n->in[1] = n->in[0];
	n->in[0] = one;
	n->num_in = 2;
	return n->op ? 0 : -1;
}

static int legalize(struct ir_graph *g, struct ir_node *n)
{
	if (!strcmp(n->op, "Clip") && op_unary_kind(n, NULL) < 0) {
		struct ir_value *lo = n->num_in > 1 ? n->in[1] : NULL;
		struct ir_value *hi = n->num_in > 2 ? n->in[2] : NULL;

		if ((lo && ir_numel(lo) != 1) || (hi && ir_numel(hi) != 1))
			return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "min and max must be scalars");
		return split_clip(g, n);
	}
	if ((!strcmp(n->op, "Min") || !strcmp(n->op, "Max") || !strcmp(n->op, "Sum")) &&
	    n->num_in != 2)
		return split_variadic(g, n);
	if (!strcmp(n->op, "Reciprocal"))
		return reciprocal_as_div(g, n);
	if (!strcmp(n->op, "Concat"))
		return split_concat(g, n);
	if (!strcmp(n->op, "Dropout") && n->num_in > 2 && n->in[2] &&
	    (!n->in[2]->data || ir_get_i64(n->in[2], 0)))
		return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_ATTR,
				     "training_mode: only inference (no dropout) is supported");
	if (!strcmp(n->op, "Dropout") && n->num_out > 1 && n->out[1] &&
	    (n->out[1]->num_uses || n->out[1]->output_index >= 0))
		return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_ATTR, "the mask output is not supported");
	if (!strcmp(n->op, "PRelu"))
		return split_prelu(g, n);
	if (!strcmp(n->op, "Split"))
		return split_as_slices(g, n);
	if (reduces_by_sum(n->op))
		return reduce_by_sum(g, n);
	if (!strcmp(n->op, "Mean"))
		return mean_as_sum(g, n);
	if (!strcmp(n->op, "Selu"))
		return selu_as_elu(g, n);
	if (!strcmp(n->op, "Softsign"))
		return softsign_as_div(g, n);
	if (!strcmp(n->op, "LayerNormalization") && (output_used(n, 1) || output_used(n, 2)))
		return split_layernorm_stats(g, n);
	if (op_lower_kind(n) == -2)
		return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_OP,
				     "the card has no %s; it is supported on constants only (folded at compile time)",
				     n->op);
	return 0;
}


int pass_legalize(struct ir_graph *g)
{
	int i;

	for (i = 0; i < g->num_nodes; i++)
		if (legalize(g, g->nodes[i]))
			return -1;
	ir_remove_dead(g);
	return 0;
}
