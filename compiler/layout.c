// SPDX-License-Identifier: MIT
/*
 * Pass 7, layout: the card runs convolutions fastest on oneDNN's blocked
 * nChw16c layout (NPU_FORMAT_NCHW16C).  An activation that one 2-D
 * convolution writes and only 2-D convolutions read, as their data input,
 * is kept blocked; everything else stays plain NCHW (strided), so every
 * other operator, every view (Reshape, Flatten, ...) and the model's
 * inputs and outputs see the layout ONNX defines.  Narrow tensors (fewer
 * than 16 channels) would be mostly padding and stay plain.
 */
#include <string.h>

#include "ir.h"
#include "npu_operator.h"

static bool is_conv2d(const struct ir_node *n)
{
	return n && !n->dead && !strcmp(n->op, "Conv") && n->in[0]->rank == 4;
}

static bool only_conv_readers(const struct ir_graph *g, const struct ir_value *v)
{
	int i, k, readers = 0;

	for (i = 0; i < g->num_nodes; i++) {
		const struct ir_node *n = g->nodes[i];

		for (k = 0; k < n->num_in; k++) {
			if (n->in[k] != v)
				continue;
			if (k != 0 || !is_conv2d(n))
				return false;
			readers++;
		}
	}
	return readers > 0;
}

int pass_layout(struct ir_graph *g)
{
	int i, blocked = 0;

	if (g->opts && g->opts->plain_layout)
		return 0;
	for (i = 0; i < g->num_nodes; i++) {
		struct ir_node *n = g->nodes[i];
		struct ir_value *y = n->out[0];

		if (!is_conv2d(n) || y->dtype != IR_FLOAT || y->dims[1] < 16 ||
		    y->output_index >= 0 || !only_conv_readers(g, y))
			continue;
		y->format = NPU_FORMAT_NCHW16C;
		blocked++;
	}
	ir_log(g, NPUCC_LOG_INFO, "%d activations kept in NCHW16C", blocked);
	return 0;
}
