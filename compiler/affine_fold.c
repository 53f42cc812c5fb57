// SPDX-License-Identifier: MIT
/*
 * Affine folding: a Mul or Add of a constant, one number or one per
 * channel, whose other operand is a convolution's output used by nothing
 * else, becomes part of the convolution, as batch norm folding does for
 * BatchNormalization: y = conv(x) * c has weights w * c and bias b * c,
 * y = conv(x) + c has bias b + c.  PP-LCNetV3 (PP-OCRv4's backbone)
 * follows every convolution with such a pair, its learnable affine block,
 * two card operators each that this pass removes.  Nodes are visited in
 * order, so a Mul folds first and the Add after it then sees the Conv.
 */
#include <string.h>

#include "ir.h"

/* Is @c one number, or one per channel of a rank-4 tensor of @channels (numpy broadcast)? */
static bool per_channel(const struct ir_value *c, int64_t channels)
{
	int64_t n = ir_numel(c);
	int d, rank4 = 4 - c->rank;

	if (!c->data || c->dtype != IR_FLOAT || c->rank > 4 || n < 1)
		return false;
	if (n == 1)
		return true;
	for (d = 0; d < c->rank; d++)
		if (c->dims[d] != (d + rank4 == 1 ? channels : 1))
			return false;
	return true;
}

static double channel_value(const struct ir_value *c, int64_t o)
{
	return ir_get_f64(c, ir_numel(c) == 1 ? 0 : o);
}

/* A plain Conv over constant weights, whose output only @n reads. */
static bool foldable_conv(const struct ir_node *conv, const struct ir_value *y)
{
	int k;

	if (!conv || conv->dead || strcmp(conv->op, "Conv") || conv->act.kind ||
	    conv->num_in > 3 || conv->out[0] != y || y->num_uses != 1 || y->output_index >= 0 ||
	    y->dtype != IR_FLOAT || y->rank != 4)
		return false;
	for (k = 1; k < conv->num_in; k++)
		if (conv->in[k] && (!conv->in[k]->data || conv->in[k]->dtype != IR_FLOAT))
			return false;
	return true;
}

static int fold_into(struct ir_graph *g, struct ir_node *conv, struct ir_node *n,
		     const struct ir_value *c)
{
	const struct ir_value *w = conv->in[1], *b = conv->num_in > 2 ? conv->in[2] : NULL;
	bool mul = !strcmp(n->op, "Mul");
	int64_t channels = w->dims[0], per_o = ir_numel(w) / channels, o, i;
	struct ir_value *nw = (struct ir_value *)w, *nb;

	if (mul) {
		nw = ir_const_new(g, w->name, w->dtype, w->rank, w->dims);
		if (!nw)
			return -1;
	}
	nb = ir_const_new(g, "affine_bias", IR_FLOAT, 1, &channels);
	if (!nb)
		return -1;
	for (o = 0; o < channels; o++) {
		double f = channel_value(c, o), bias = b ? ir_get_f64(b, o) : 0;

		for (i = 0; mul && i < per_o; i++)
			ir_set_f64(nw, o * per_o + i, ir_get_f64(w, o * per_o + i) * f);
		ir_set_f64(nb, o, mul ? bias * f : bias + f);
	}
	conv->in[1] = nw;
	if (conv->num_in < 3) {
		struct ir_value **in = ir_alloc(g, sizeof(*in) * 3);

		if (!in)
			return -1;
		memcpy(in, conv->in, sizeof(*in) * (size_t)conv->num_in);
		conv->in = in;
		conv->num_in = 3;
	}
	conv->in[2] = nb;
	conv->out[0] = n->out[0];
	conv->out[0]->producer = conv;
	n->dead = true;
	ir_log(g, NPUCC_LOG_INFO, "%s '%s' of a constant folded into Conv '%s'", n->op, n->name,
	       conv->name);
	return 0;
}

static int try_fold(struct ir_graph *g, struct ir_node *n)
{
	int k;

	if ((strcmp(n->op, "Mul") && strcmp(n->op, "Add")) || n->num_in != 2 || n->copy ||
	    n->act.kind || !n->in[0] || !n->in[1])
		return 0;
	for (k = 0; k < 2; k++) {
		struct ir_value *y = n->in[k], *c = n->in[1 - k];
		struct ir_node *conv = y->producer;
		int d;

		if (!foldable_conv(conv, y) || !per_channel(c, y->dims[1]))
			continue;
		for (d = 0; d < 4; d++)
			if (n->out[0]->rank != 4 || n->out[0]->dims[d] != y->dims[d])
				return 0;
		return fold_into(g, conv, n, c);
	}
	return 0;
}

int pass_affine_fold(struct ir_graph *g)
{
	int i;

	ir_count_uses(g);
	for (i = 0; i < g->num_nodes; i++)
		if (!g->nodes[i]->dead && try_fold(g, g->nodes[i]))
			return -1;
	ir_compact(g);
	return 0;
}
