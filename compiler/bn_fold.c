// SPDX-License-Identifier: MIT
/*
 * Batch norm folding: an inference BatchNormalization whose input
 * is a convolution's output, used by nothing else, becomes part of the
 * convolution.  With f = scale / sqrt(var + epsilon) per output channel,
 * the weights become w * f and the bias (b - mean) * f + B.  New constants
 * are made: the old weights may be shared with another node.
 */
#include <math.h>
#include <string.h>

#include "ir.h"

static bool all_const(const struct ir_node *n, int from)
{
	int k;

	for (k = from; k < n->num_in; k++)
		if (n->in[k] && !n->in[k]->data)
			return false;
	return true;
}

/* The output channel that weight row (first two axes) @a, @b feeds. */
static int64_t out_channel(const struct ir_node *conv, int64_t a, int64_t b)
{
	const struct ir_value *w = conv->in[1];
	int64_t group = ir_attr_int(conv, "group", 1);

	if (!strcmp(conv->op, "Conv"))
		return a;
	/* ConvTranspose: w is (C, O / group, ...) */
	return a / (w->dims[0] / group) * w->dims[1] + b;
}

static int fold_into(struct ir_graph *g, struct ir_node *conv, struct ir_node *bn)
{
	const struct ir_value *w = conv->in[1], *b = conv->num_in > 2 ? conv->in[2] : NULL;
	const struct ir_value *scale = bn->in[1], *shift = bn->in[2];
	const struct ir_value *mean = bn->in[3], *var = bn->in[4];
	double eps = ir_attr_float(bn, "epsilon", 1e-5f);
	int64_t channels = scale->dims[0], inner = 1, i, a, c;
	struct ir_value *nw, *nb;
	int d;

	nw = ir_const_new(g, w->name, w->dtype, w->rank, w->dims);
	nb = ir_const_new(g, "bn_bias", w->dtype, 1, &channels);
	if (!nw || !nb)
		return -1;
	for (d = 2; d < w->rank; d++)
		inner *= w->dims[d];
	for (a = 0; a < w->dims[0]; a++) {
		for (c = 0; c < w->dims[1]; c++) {
			int64_t o = out_channel(conv, a, c);
			double f = ir_get_f64(scale, o) / sqrt(ir_get_f64(var, o) + eps);
			int64_t base = (a * w->dims[1] + c) * inner;

			for (i = 0; i < inner; i++)
				ir_set_f64(nw, base + i, ir_get_f64(w, base + i) * f);
		}
	}
	for (i = 0; i < channels; i++) {
		double f = ir_get_f64(scale, i) / sqrt(ir_get_f64(var, i) + eps);
		double bias = b ? ir_get_f64(b, i) : 0;

		ir_set_f64(nb, i, (bias - ir_get_f64(mean, i)) * f + ir_get_f64(shift, i));
	}
	conv->in[1] = nw;
	conv->in[2] = nb;
	conv->num_in = 3;
	conv->out[0] = bn->out[0];
	conv->out[0]->producer = conv;
	bn->dead = true;
	ir_log(g, NPUCC_LOG_INFO, "batch norm '%s' folded into %s '%s'", bn->name, conv->op,
	       conv->name);
	return 0;
}

int pass_bn_fold(struct ir_graph *g)
{
	int i;

	ir_count_uses(g);
	for (i = 0; i < g->num_nodes; i++) {
		struct ir_node *bn = g->nodes[i], *conv;
		struct ir_value *x = bn->in[0];

		if (bn->dead || strcmp(bn->op, "BatchNormalization") || bn->num_out != 1)
			continue;
		conv = x->producer;
		if (!conv || conv->dead || (strcmp(conv->op, "Conv") && strcmp(conv->op, "ConvTranspose")))
			continue;
		if (x->num_uses != 1 || x->output_index >= 0 || conv->act.kind ||
		    !all_const(bn, 1) || !all_const(conv, 1) || conv->in[1]->dtype != IR_FLOAT ||
		    bn->in[1]->dims[0] != x->dims[1])
			continue;
		if (fold_into(g, conv, bn))
			return -1;
	}
	ir_compact(g);
	return 0;
}
