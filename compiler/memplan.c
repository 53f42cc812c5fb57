// SPDX-License-Identifier: MIT
/*
 * Memory planning: where each tensor's bytes live.
 *
 * - Constants the card reads go to the weights region, each once, and so
 *   do the weights the card packs at load (room for any layout it picks).
 * - Graph inputs and outputs live in the caller's buffers.
 * - A view (Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout) has
 *   no bytes of its own: it aliases its input's root tensor.  So does the
 *   output of a Conv with a summand (a fused residual Add): it takes the
 *   summand's bytes, which the card adds to in place (fuse.c made sure
 *   nothing reads them afterwards).  A graph
 *   output that is a view of an activation makes that activation live in
 *   the output buffer; a graph output that would alias an input, a
 *   constant, another output or a blocked tensor gets a copy instead.
 * - The other activations share one workspace.  Each is live from the
 *   node that writes it to the last node that reads it or a view of it;
 *   two tensors whose lives overlap never share bytes.  Placement is
 *   greedy, largest first, at the lowest offset that fits.
 */
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "npu_operator.h"
#include "om_format.h"

#define ALIGN(x)	(((x) + OM_ALIGN - 1) & ~(uint64_t)(OM_ALIGN - 1))

static bool is_view(const struct ir_node *n)
{
	const struct op_def *def = op_def_find(n->op);

	return def && def->alias && !n->copy;
}

static bool is_summing(const struct ir_node *n)
{
	return !strcmp(n->op, "Conv") && n->num_in == 4 && n->in[3];
}

/*
 * The tensor whose bytes @v shares, following views and summing Convs to
 * the first tensor that has bytes of its own.
 */
static struct ir_value *root_of(struct ir_value *v)
{
	while (v->producer && v == v->producer->out[0]) {
		if (is_view(v->producer))
			v = v->producer->in[0];
		else if (is_summing(v->producer))
			v = v->producer->in[3];
		else
			break;
	}
	return v;
}

static uint64_t value_bytes(const struct ir_value *v)
{
	uint64_t n = ir_dtype_size(v->dtype);
	int d;

	if (v->format == NPU_FORMAT_NCHW16C)
		return n * (uint64_t)v->dims[0] * (uint64_t)((v->dims[1] + 15) / 16 * 16) *
		       (uint64_t)v->dims[2] * (uint64_t)v->dims[3];
	if (v->format == NPU_FORMAT_PACKED)
		return n * (uint64_t)NPU_PACKED_ELEMS(v->dims[0], v->dims[1], v->dims[2],
						      v->dims[3]);
	if (v->format == NPU_FORMAT_OIHW16I16O)
		return n * (uint64_t)((v->dims[0] + 15) / 16 * 16) *
		       (uint64_t)((v->dims[1] + 15) / 16 * 16) *
		       (uint64_t)v->dims[2] * (uint64_t)v->dims[3];
	for (d = 0; d < v->rank; d++)
		n *= (uint64_t)v->dims[d];
	return n;
}

/* An output that cannot own its root's bytes is produced by a copy. */
static int add_copy(struct ir_graph *g, int j)
{
	struct ir_value *v = g->outputs[j], *c;
	struct ir_node *n;
	char *name;

	n = ir_node_new(g, NULL, "Identity", 1, 1);
	c = ir_value_new(g, NULL);
	if (!n || !c)
		return -1;
	n->copy = true;
	n->in[0] = v;
	n->out[0] = c;
	c->producer = n;
	ir_set_shape(c, v->dtype, v->rank, v->dims);
	name = c->name;
	c->name = v->name;
	v->name = name;
	c->output_index = j;
	v->output_index = -1;
	g->outputs[j] = c;
	return 0;
}

static int claim_outputs(struct ir_graph *g)
{
	int j, k;

	for (j = 0; j < g->num_outputs; j++) {
		struct ir_value *o = g->outputs[j], *r = root_of(o);
		bool shared = false;

		for (k = 0; k < j; k++)
			if (root_of(g->outputs[k]) == r)
				shared = true;
		if (r->data || r->input_index >= 0 || (r != o && r->output_index >= 0) ||
		    r->format != NPU_FORMAT_STRIDED || shared) {
			if (add_copy(g, j))
				return -1;
			r = g->outputs[j];
		}
		r->region = OM_REGION_INPUT0 + g->num_inputs + j;
	}
	return 0;
}

struct buffer {
	struct ir_value *v;
	uint64_t size, offset;
	int begin, end;
};

static int by_size(const void *a, const void *b)
{
	const struct buffer *x = a, *y = b;

	if (x->size != y->size)
		return x->size < y->size ? 1 : -1;
	return x->begin - y->begin;
}

static int by_offset(const void *a, const void *b)
{
	const struct buffer *const *x = a, *const *y = b;

	return (*x)->offset < (*y)->offset ? -1 : (*x)->offset > (*y)->offset;
}

/* Lowest offset where @b overlaps no placed buffer that is live with it. */
static uint64_t place(struct buffer *bufs, int placed, struct buffer *b, struct buffer **tmp)
{
	uint64_t offset = 0;
	int i, n = 0;

	for (i = 0; i < placed; i++)
		if (bufs[i].begin <= b->end && b->begin <= bufs[i].end)
			tmp[n++] = &bufs[i];
	qsort(tmp, (size_t)n, sizeof(*tmp), by_offset);
	for (i = 0; i < n; i++) {
		if (tmp[i]->offset >= offset + b->size)
			break;
		if (tmp[i]->offset + tmp[i]->size > offset)
			offset = ALIGN(tmp[i]->offset + tmp[i]->size);
	}
	return offset;
}

/* Live ranges of the workspace tensors, in node indices. */
static int collect(struct ir_graph *g, struct buffer *bufs, uint64_t *weights)
{
	int i, k, num = 0;

	for (i = 0; i < g->num_values; i++)
		g->values[i]->live_begin = -1;
	for (i = 0; i < g->num_nodes; i++) {
		struct ir_node *n = g->nodes[i];
		unsigned mask = op_tensor_inputs(n);

		for (k = 0; k < n->num_in + n->num_out; k++) {
			bool is_in = k < n->num_in;
			struct ir_value *v = is_in ? n->in[k] : n->out[k - n->num_in], *r;

			if (!v || (is_in && k < 32 && !(mask & (1u << k))))
				continue;
			r = root_of(v);
			if (r->region == IR_REGION_NONE) {
				if (r->data || (r->producer && r->producer->at_load)) {
					r->region = OM_REGION_WEIGHTS;
					r->offset = *weights;
					*weights = ALIGN(*weights + value_bytes(r));
				} else if (r->input_index >= 0) {
					r->region = OM_REGION_INPUT0 + r->input_index;
				} else {
					r->region = OM_REGION_WORKSPACE;
					bufs[num].v = r;
					bufs[num].size = ALIGN(value_bytes(r));
					bufs[num].begin = i;
					num++;
				}
				r->live_begin = i;
			}
			r->live_end = i;
		}
	}
	for (k = 0; k < num; k++)
		bufs[k].end = bufs[k].v->live_end;
	return num;
}

int pass_memplan(struct ir_graph *g, uint64_t *workspace, uint64_t *weights)
{
	struct buffer *bufs, **tmp;
	int i, num;

	if (claim_outputs(g))
		return -1;
	for (i = 0; i < g->num_nodes; i++)
		if (is_view(g->nodes[i]))
			g->nodes[i]->out[0]->alias = root_of(g->nodes[i]->in[0]);
		else if (is_summing(g->nodes[i]))
			g->nodes[i]->out[0]->alias = root_of(g->nodes[i]->in[3]);
	bufs = calloc((size_t)g->num_values + 1, sizeof(*bufs));
	tmp = calloc((size_t)g->num_values + 1, sizeof(*tmp));
	if (!bufs || !tmp) {
		free(bufs);
		free(tmp);
		return ir_error(g, NPUCC_E_NOMEM, "out of memory");
	}
	*weights = 0;
	*workspace = 0;
	num = collect(g, bufs, weights);
	qsort(bufs, (size_t)num, sizeof(*bufs), by_size);
	for (i = 0; i < num; i++) {
		bufs[i].offset = place(bufs, i, &bufs[i], tmp);
		bufs[i].v->offset = bufs[i].offset;
		if (bufs[i].offset + bufs[i].size > *workspace)
			*workspace = bufs[i].offset + bufs[i].size;
	}
	/* Views take their root's place. */
	for (i = 0; i < g->num_values; i++) {
		struct ir_value *v = g->values[i];

		if (v->alias) {
			v->region = v->alias->region;
			v->offset = v->alias->offset;
		}
	}
	free(bufs);
	free(tmp);
	return 0;
}
