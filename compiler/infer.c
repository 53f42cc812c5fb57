// SPDX-License-Identifier: MIT
/*
 * Passes 3 and 4, shape inference and constant folding, node by node in
 * execution order: a node's shape function (shape.c) may need constants
 * that the folding of earlier nodes (fold.c) produced, as a Reshape needs
 * the shape a Shape/Gather/Concat chain computes.  A folded node is dead:
 * its outputs are constants.  Then every node left must run on the card,
 * so what only folding can do is an error, and the few ops the card runs
 * as more than one operator are split here (variadic Min, Max and Sum,
 * Clip with bounds computed from the input data).
 */
#include <string.h>

#include "ir.h"
#include "npu_operator.h"
#include "ops.h"

static bool foldable(const struct ir_node *n, const struct op_def *def)
{
	int k;

	if (!def->fold)
		return false;
	if (!fold_needs_data(n))
		return true;
	for (k = 0; k < n->num_in; k++)
		if (n->in[k] && !n->in[k]->data)
			return false;
	return true;
}

/*
 * Before opset 7, Add, Sub, Mul, Div and Pow broadcast only when told to
 * (broadcast=1), and @axis says where the second operand's axes start in
 * the first's; trailing 1s make that numpy's rule.
 */
static int legacy_broadcast(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_attr *ax = ir_attr_find(n, "axis"), *bc = ir_attr_find(n, "broadcast");
	struct ir_value *a, *b, *nb;
	int64_t dims[IR_MAX_DIMS];
	int axis, trailing, d;

	if (!bc)
		return 0;
	if (g->opset >= 7)
		return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_ATTR,
				     "attribute 'broadcast' is not supported");
	if (!ax || !bc->i || strcmp(n->op, "Gemm") == 0)
		return 0;
	a = n->in[0];
	b = n->in[1];
	if (norm_axis(g, n, ax->i, a->rank, &axis))
		return -1;
	trailing = a->rank - axis - b->rank;
	if (trailing < 0)
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "axis %d leaves no room for B", axis);
	if (!trailing)
		return 0;
	if (!b->data)
		return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_ATTR,
				     "a broadcast axis for an operand computed from the input data");
	nb = ir_value_new(g, NULL);
	if (!nb)
		return -1;
	for (d = 0; d < b->rank + trailing; d++)
		dims[d] = d < b->rank ? b->dims[d] : 1;
	ir_set_shape(nb, b->dtype, b->rank + trailing, dims);
	nb->data = b->data;
	n->in[1] = nb;
	return 0;
}

static int infer_node(struct ir_graph *g, struct ir_node *n)
{
	const struct op_def *def;
	int k;

	if (op_check(g, n))
		return -1;
	if (ir_attr_find(n, "axis") && op_binary_kind(n->op) >= 0 && g->opset >= 7)
		return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_ATTR, "attribute 'axis' is not supported");
	if (legacy_broadcast(g, n))
		return -1;
	def = op_def_find(n->op);
	if (def->infer(g, n))
		return -1;
	if (!foldable(n, def))
		return 0;
	if (def->fold(g, n))
		return -1;
	ir_log(g, NPUCC_LOG_DEBUG, "folded %s '%s'", n->op, n->name);
	for (k = 0; k < n->num_out; k++)
		if (n->out[k])
			n->out[k]->producer = NULL;
	n->dead = true;
	return 0;
}

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
	if (op_lower_kind(n) == -2)
		return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_OP,
				     "the card has no %s; it is supported on constants only (folded at compile time)",
				     n->op);
	return 0;
}

int pass_infer(struct ir_graph *g)
{
	int i;

	for (i = 0; i < g->num_nodes; i++)
		if (infer_node(g, g->nodes[i]))
			return -1;
	ir_remove_dead(g);
	for (i = 0; i < g->num_nodes; i++)
		if (legalize(g, g->nodes[i]))
			return -1;
	ir_remove_dead(g);
	return 0;
}
