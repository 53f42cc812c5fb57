// SPDX-License-Identifier: MIT
/*
 * Activation fusion: an elementwise activation whose input is the
 * output of a convolution, matrix product, binary op or normalization,
 * used by nothing else, becomes that node's fused activation (the card's
 * npu_activation), saving an operator and a trip through memory.
 * Exporters that predate ONNX's HardSwish write it as x * HardSigmoid(x)
 * with alpha 1/6 and beta 1/2; that pair becomes one HardSwish first.
 *
 * Then a residual connection, Add(Conv(x), s) with the Add's activation,
 * becomes the Conv's fourth input s (the card's CONV2D adds it before the
 * activation): one operator instead of two, and one trip through memory
 * less.  It is done only when the Conv's output can take s's bytes, which
 * memory planning then gives it (the card adds s in place): s is an
 * activation read by nothing after the Conv, not a view and not the
 * Conv's own input.
 */
#include <math.h>
#include <string.h>

#include "ir.h"
#include "npu_operator.h"

static bool can_carry_act(const struct ir_node *n)
{
	static const char *const ops[] = {
		"Conv", "ConvTranspose", "MatMul", "Gemm", "Add", "Sub", "Mul", "Div", "Pow",
		"Min", "Max", "Sum", "BatchNormalization", "LayerNormalization",
	};
	size_t i;
	int k;

	for (k = 1; k < n->num_out; k++)
		if (n->out[k])
			return false;
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(n->op, ops[i]))
			return !n->act.kind && !n->copy;
	return false;
}

static bool single_use(const struct ir_value *v)
{
	return v->num_uses == 1 && v->output_index < 0;
}

static bool is_hardswish_gate(const struct ir_node *h, const struct ir_value *x)
{
	return h && !h->dead && !strcmp(h->op, "HardSigmoid") && h->in[0] == x &&
	       fabsf(ir_attr_float(h, "alpha", 0.2f) - 1.0f / 6) < 1e-6f &&
	       fabsf(ir_attr_float(h, "beta", 0.5f) - 0.5f) < 1e-6f && single_use(h->out[0]);
}

static int fuse_hardswish(struct ir_graph *g, struct ir_node *n)
{
	int k;

	if (strcmp(n->op, "Mul") || n->num_in != 2)
		return 0;
	for (k = 0; k < 2; k++) {
		struct ir_node *h = n->in[k]->producer;

		if (!is_hardswish_gate(h, n->in[1 - k]))
			continue;
		n->op = ir_strdup(g, "HardSwish");
		if (!n->op)
			return -1;
		n->in[0] = n->in[1 - k];
		n->num_in = 1;
		h->dead = true;
		ir_log(g, NPUCC_LOG_INFO, "'%s' and '%s' became one HardSwish", h->name, n->name);
		return 0;
	}
	return 0;
}

/*
 * The card runs a Conv over plain NCHW with oneDNN's gemm convolution,
 * which applies a hard-swish after it element by element in a reference
 * loop: PP-OCRv4 det's 40 such Convs took 210 ms so, against well under
 * 1 ms for the same Convs and a separate HardSwish operator.
 */
static bool slow_conv_act(const struct ir_node *p, const struct ir_act *act)
{
	return act->kind == NPU_UNARY_HARDSWISH && !strcmp(p->op, "Conv");
}

static void fuse_act(struct ir_graph *g, struct ir_node *a)
{
	struct ir_value *x = a->in[0];
	struct ir_node *p = x->producer;
	struct ir_act act;

	if (op_unary_kind(a, &act) <= 0 || !p || p->dead || !single_use(x) || !can_carry_act(p))
		return;
	if (x->dtype != IR_FLOAT || slow_conv_act(p, &act))
		return;
	p->act = act;
	p->out[0] = a->out[0];
	p->out[0]->producer = p;
	a->dead = true;
	ir_log(g, NPUCC_LOG_INFO, "%s '%s' fused into %s '%s'", a->op, a->name, p->op, p->name);
}

static bool is_view_node(const struct ir_node *n)
{
	const struct op_def *def = op_def_find(n->op);

	return def && def->alias && !n->copy;
}

/* A plain 2-D Conv with a single reader, which may take a summand. */
static bool residual_conv(const struct ir_value *v)
{
	const struct ir_node *c = v->producer;

	return c && !c->dead && !strcmp(c->op, "Conv") && c->num_in <= 3 &&
	       c->out[0] == v && can_carry_act(c) && single_use(v) &&
	       v->dtype == IR_FLOAT && v->rank == 4 && c->in[0]->rank == 4;
}

/* Does @x, or the tensor @x is a view of, equal @s? */
static bool reads_through(const struct ir_value *x, const struct ir_value *s)
{
	while (x != s && x->producer && is_view_node(x->producer))
		x = x->producer->in[0];
	return x == s;
}

/*
 * May Conv @c's output overwrite @s: an activation of another node, before
 * @c, whose other readers all come before @c and are not views?
 */
static bool summand_in_place(const struct ir_graph *g, const struct ir_node *c,
			     const struct ir_node *add, const struct ir_value *s)
{
	int i, k;

	if (!s->producer || s->data || s->input_index >= 0 || s->output_index >= 0 ||
	    is_view_node(s->producer) || s->producer->index >= c->index ||
	    reads_through(c->in[0], s))
		return false;
	for (i = 0; i < g->num_nodes; i++) {
		const struct ir_node *n = g->nodes[i];

		if (n->dead || n == add)
			continue;
		for (k = 0; k < n->num_in; k++)
			if (n->in[k] == s && (n->index >= c->index || is_view_node(n)))
				return false;
	}
	return true;
}

/* The Conv's bias, a zero one if it had none: the summand comes after it. */
static int conv_bias(struct ir_graph *g, struct ir_node *c, struct ir_value ***in)
{
	struct ir_value **grown = ir_alloc(g, sizeof(*grown) * 5);
	int64_t o = c->out[0]->dims[1];
	int k;

	if (!grown)
		return -1;
	for (k = 0; k < c->num_in; k++)
		grown[k] = c->in[k];
	if (c->num_in < 3 || !c->in[2]) {
		grown[2] = ir_const_new(g, c->name, IR_FLOAT, 1, &o);
		if (!grown[2])
			return -1;
	}
	*in = grown;
	return 0;
}

static int fuse_residual(struct ir_graph *g, struct ir_node *add)
{
	struct ir_node *c = NULL;
	struct ir_value **in, *s = NULL;
	int k, d;

	if (strcmp(add->op, "Add") || add->num_in != 2 || add->copy || !add->in[0] ||
	    !add->in[1] || add->out[0]->output_index >= 0 || add->out[0]->rank != 4)
		return 0;
	for (k = 0; k < 2; k++)
		for (d = 0; d < 4; d++)
			if (add->in[k]->rank != 4 || add->in[k]->dims[d] != add->out[0]->dims[d])
				return 0;
	/* the later Conv, so that the other operand is ready before it runs */
	for (k = 0; k < 2; k++) {
		struct ir_node *p = add->in[k]->producer;

		if (residual_conv(add->in[k]) && (!c || p->index > c->index) &&
		    summand_in_place(g, p, add, add->in[1 - k])) {
			c = p;
			s = add->in[1 - k];
		}
	}
	if (!c)
		return 0;
	if (conv_bias(g, c, &in))
		return -1;
	in[3] = s;
	c->in = in;
	c->num_in = 4;
	c->act = add->act;
	c->out[0] = add->out[0];
	c->out[0]->producer = c;
	add->dead = true;
	ir_log(g, NPUCC_LOG_INFO, "%s '%s' fused into Conv '%s' as its summand", add->op,
	       add->name, c->name);
	return 0;
}

int pass_fuse(struct ir_graph *g)
{
	int i;

	ir_count_uses(g);
	for (i = 0; i < g->num_nodes; i++)
		if (!g->nodes[i]->dead && fuse_hardswish(g, g->nodes[i]))
			return -1;
	ir_compact(g);
	ir_count_uses(g);
	for (i = 0; i < g->num_nodes; i++)
		if (!g->nodes[i]->dead)
			fuse_act(g, g->nodes[i]);
	ir_compact(g);
	if (g->opts && g->opts->no_residual)
		return 0;
	ir_count_uses(g);
	for (i = 0; i < g->num_nodes; i++)
		if (!g->nodes[i]->dead && fuse_residual(g, g->nodes[i]))
			return -1;
	ir_compact(g);
	return 0;
}
