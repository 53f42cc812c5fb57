/* SPDX-License-Identifier: MIT */
/*
 * The compiler tests' way to a graph: an ONNX model from onnx_builder.h
 * through the passes up to layout, and looking up its nodes.
 */
#ifndef NPUCC_TEST_GRAPH_BUILD_H
#define NPUCC_TEST_GRAPH_BUILD_H

#include <string.h>

#include "ir.h"
#include "onnx_builder.h"

/* Runs import to layout; the caller frees the graph. */
static inline struct ir_graph *build(struct onnx_builder *b, const char *input_shape,
			      struct npucc_options *opts)
{
	static struct npucc_options dflt;
	struct ir_graph *g;
	uint8_t *buf;
	size_t len;

	if (!opts) {
		memset(&dflt, 0, sizeof(dflt));
		opts = &dflt;
	}
	opts->input_shape = input_shape;
	g = ir_graph_new(opts);
	buf = ob_pack(b, &len);
	npucc_build_graph(g, buf, len);
	free(buf);
	return g;
}

static inline int count_op(const struct ir_graph *g, const char *op)
{
	int i, n = 0;

	for (i = 0; i < g->num_nodes; i++)
		n += !strcmp(g->nodes[i]->op, op);
	return n;
}

static inline struct ir_node *find_op(const struct ir_graph *g, const char *op)
{
	int i;

	for (i = 0; i < g->num_nodes; i++)
		if (!strcmp(g->nodes[i]->op, op))
			return g->nodes[i];
	return NULL;
}

#endif /* NPUCC_TEST_GRAPH_BUILD_H */
