// SPDX-License-Identifier: MIT
/*
 * Layout: the card runs convolutions fastest on oneDNN's blocked
 * nChw16c layout (NPU_FORMAT_NCHW16C), and a tensor that changes layout
 * between two operators costs a reorder of the whole activation each way.
 * So activations stay blocked along whole chains of operators that take
 * the layout: 2-D convolutions (data input and output), pooling, and
 * binary operators whose inputs and output all have one shape (a residual
 * Add); a ResNet is then blocked from its first convolution to its global
 * pooling.  Everything else stays plain NCHW (strided), so every other
 * operator, every view (Reshape, Flatten, ...) and the model's inputs and
 * outputs see the layout ONNX defines.  Narrow tensors (fewer than 16
 * channels) would be mostly padding and stay plain.
 *
 * A binary operator computes in one layout: its inputs and output are all
 * blocked or all plain.  So does a Conv with a summand (a residual Add
 * fused into it), whose output takes the summand's bytes.  Candidates are
 * dropped until that holds.
 *
 * Weights of convolutions over blocked activations are laid out blocked
 * too (OIHW16I16O), once, here: the card then reads them as they are.
 * Those of a 3x3, stride-1 convolution are packed by the card instead,
 * when the model is loaded (a PackConv node run at load, the card's
 * PACK_CONV2D): its fastest kernel for that shape, Winograd's, reads
 * weights transformed in a layout only the card knows.
 */
#include <stdio.h>
#include <string.h>

#include "ir.h"
#include "npu_operator.h"

static bool live_rank4(const struct ir_node *n)
{
	return !n->dead && n->num_in > 0 && n->in[0] && n->in[0]->rank == 4 &&
	       n->num_out > 0 && n->out[0] && n->out[0]->rank == 4;
}

static bool is_conv2d(const struct ir_node *n)
{
	return live_rank4(n) && !strcmp(n->op, "Conv");
}

static bool is_pool2d(const struct ir_node *n)
{
	return live_rank4(n) && op_lower_kind(n) == NPU_OPERATOR_POOL2D &&
	       (n->num_out == 1 || !n->out[1]);
}

/* Both inputs and the output of one shape: no broadcasting. */
static bool is_plain_binary(const struct ir_node *n)
{
	int d;

	/* Pow is a loop on the card, over plain tensors */
	if (!live_rank4(n) || op_lower_kind(n) != NPU_OPERATOR_BINARY || !strcmp(n->op, "Pow") ||
	    n->num_in != 2 || !n->in[1] || n->in[1]->rank != 4)
		return false;
	for (d = 0; d < 4; d++)
		if (n->in[0]->dims[d] != n->out[0]->dims[d] ||
		    n->in[1]->dims[d] != n->out[0]->dims[d])
			return false;
	return true;
}

/* May node n read input k, or write its output, in NCHW16C? */
static bool takes_blocked(const struct ir_node *n, int k)
{
	if (is_conv2d(n))
		return k == 0 || k == 3;	/* x, or the summand */
	if (is_pool2d(n))
		return k == 0;
	return is_plain_binary(n);
}

static bool candidate(const struct ir_graph *g, const struct ir_value *v)
{
	int i, k, readers = 0;

	if (!v->producer || v->dtype != IR_FLOAT || v->rank != 4 || v->dims[1] < 16 ||
	    v->output_index >= 0 || v->input_index >= 0 || v->data ||
	    !takes_blocked(v->producer, 0) || v->producer->out[0] != v)
		return false;
	for (i = 0; i < g->num_nodes; i++) {
		const struct ir_node *n = g->nodes[i];

		for (k = 0; k < n->num_in; k++) {
			if (n->in[k] != v)
				continue;
			if (!takes_blocked(n, k))
				return false;
			readers++;
		}
	}
	return readers > 0;
}

/* A binary operator with tensors of both layouts: all plain.  True if one changed. */
static bool settle_binary(struct ir_node *n)
{
	struct ir_value *t[3] = { n->in[0], n->in[1], n->out[0] };
	int i, blocked = 0;

	for (i = 0; i < 3; i++)
		blocked += t[i]->format == NPU_FORMAT_NCHW16C;
	if (blocked == 0 || blocked == 3)
		return false;
	for (i = 0; i < 3; i++)
		t[i]->format = NPU_FORMAT_STRIDED;
	return true;
}

/* A summand and the output that takes its bytes in two layouts: both plain. */
static bool settle_summand(struct ir_node *n)
{
	struct ir_value *s = n->in[3], *y = n->out[0];

	if (s->format == y->format)
		return false;
	s->format = NPU_FORMAT_STRIDED;
	y->format = NPU_FORMAT_STRIDED;
	return true;
}

/*
 * A plain convolution's weights, read by no other node, with whole blocks
 * of 16 output and input channels: emit writes them in OIHW16I16O, the
 * layout the card's kernels read blocked activations with, so the card
 * does not reorder them on every run.
 */
static bool blockable_weights(const struct ir_graph *g, const struct ir_value *w)
{
	int i, k, readers = 0;

	if (!w->data || w->dtype != IR_FLOAT || w->rank != 4 || w->dims[0] % 16 ||
	    w->dims[1] % 16 || w->output_index >= 0 || w->input_index >= 0)
		return false;
	for (i = 0; i < g->num_nodes; i++) {
		const struct ir_node *n = g->nodes[i];

		for (k = 0; k < n->num_in; k++) {
			if (n->in[k] != w)
				continue;
			if (k != 1 || !is_conv2d(n) || ir_attr_int(n, "group", 1) != 1 ||
			    n->in[0]->format != NPU_FORMAT_NCHW16C)
				return false;
			readers++;
		}
	}
	return readers > 0;
}

/* A 3x3, stride-1, group-1 Conv over and into NCHW16C. */
static bool winograd_shape(const struct ir_node *n)
{
	size_t ns = 0, nd = 0;
	const int64_t *s = ir_attr_ints(n, "strides", &ns);
	const int64_t *d = ir_attr_ints(n, "dilations", &nd);
	const struct ir_value *w = n->in[1];
	size_t i;

	if (!is_conv2d(n) || ir_attr_int(n, "group", 1) != 1 || w->rank != 4 ||
	    w->dims[2] != 3 || w->dims[3] != 3 ||
	    n->in[0]->format != NPU_FORMAT_NCHW16C || n->out[0]->format != NPU_FORMAT_NCHW16C)
		return false;
	for (i = 0; i < ns; i++)
		if (s[i] != 1)
			return false;
	for (i = 0; i < nd; i++)
		if (d[i] != 1)
			return false;
	return true;
}

/* Conv @n's weights, blockable, become a PackConv's output, packed at load. */
static int pack_weights(struct ir_graph *g, struct ir_node *n)
{
	struct ir_value *w = n->in[1], *p;
	struct ir_node *pk;
	char name[160];

	snprintf(name, sizeof(name), "%.140s/pack", n->name);
	pk = ir_node_new(g, name, "PackConv", 1, 1);
	p = ir_value_new(g, NULL);
	if (!pk || !p)
		return -1;
	ir_set_shape(p, w->dtype, w->rank, w->dims);
	p->format = NPU_FORMAT_PACKED;
	p->producer = pk;
	pk->in[0] = w;
	pk->out[0] = p;
	pk->at_load = true;
	pk->packs_for = n;
	n->in[1] = p;
	return 0;
}

int pass_layout(struct ir_graph *g)
{
	int i, blocked = 0, weights = 0, packed = 0, nodes;
	bool changed = true;

	if (g->opts && g->opts->plain_layout)
		return 0;
	for (i = 0; i < g->num_values; i++) {
		struct ir_value *v = g->values[i];

		if (candidate(g, v))
			v->format = NPU_FORMAT_NCHW16C;
	}
	while (changed) {
		changed = false;
		for (i = 0; i < g->num_nodes; i++) {
			struct ir_node *n = g->nodes[i];

			if (is_plain_binary(n))
				changed |= settle_binary(n);
			else if (!n->dead && !strcmp(n->op, "Conv") && n->num_in == 4)
				changed |= settle_summand(n);
		}
	}
	/* packed ones first: they stay plain in the file */
	nodes = g->num_nodes;
	for (i = 0; i < nodes && !(g->opts && g->opts->no_pack); i++) {
		struct ir_node *n = g->nodes[i];

		if (winograd_shape(n) && blockable_weights(g, n->in[1])) {
			if (pack_weights(g, n))
				return -1;
			packed++;
		}
	}
	for (i = 0; i < g->num_values; i++) {
		struct ir_value *v = g->values[i];

		blocked += v->format == NPU_FORMAT_NCHW16C;
		if (blockable_weights(g, v)) {
			v->format = NPU_FORMAT_OIHW16I16O;
			weights++;
		}
	}
	ir_log(g, NPUCC_LOG_INFO, "%d activations kept in NCHW16C, %d weights laid out "
	       "in OIHW16I16O, %d packed at load", blocked, weights, packed);
	return 0;
}
