// SPDX-License-Identifier: MIT
/*
 * Import for a graph that comes as a graph spec (npucc_compile_spec,
 * which libge_runner calls) instead of ONNX bytes: the same IR as
 * import.c makes, checked the same way, so every later pass is shared.
 */
#include <stdio.h>
#include <string.h>

#include "ir.h"

#define SPEC_MAX_IO	64

static struct ir_value *spec_value(struct ir_graph *g, const struct npucc_spec_tensor *t,
				   const char *what)
{
	struct ir_value *v;
	uint64_t bytes;
	int d;

	if (!t->name || !*t->name) {
		ir_error(g, NPUCC_E_INVALID_MODEL, "a graph %s has no name", what);
		return NULL;
	}
	if (ir_value_find(g, t->name)) {
		ir_error(g, NPUCC_E_INVALID_MODEL, "tensor '%s' is defined twice", t->name);
		return NULL;
	}
	if (!ir_dtype_size(t->dtype)) {
		ir_error(g, NPUCC_E_UNSUPPORTED_DTYPE, "graph %s '%s' has data type %s", what,
			 t->name, ir_dtype_name(t->dtype));
		return NULL;
	}
	if (t->rank < 0 || t->rank > IR_MAX_DIMS || (t->rank && !t->dims)) {
		ir_error(g, NPUCC_E_LIMIT, "graph %s '%s' has %d dims", what, t->name, t->rank);
		return NULL;
	}
	v = ir_value_new(g, t->name);
	if (!v)
		return NULL;
	v->dtype = t->dtype;
	v->rank = t->rank;
	for (d = 0; d < t->rank; d++)
		v->dims[d] = t->dims[d] < 0 ? -1 : t->dims[d];
	if (!t->data)
		return v;
	if (!ir_shape_known(v)) {
		ir_error(g, NPUCC_E_INVALID_MODEL, "constant '%s' has a negative dim", t->name);
		return NULL;
	}
	if (ir_nbytes(g, v, &bytes) || ir_alloc_data(g, v))
		return NULL;
	if (bytes != t->size) {
		ir_error(g, NPUCC_E_INVALID_MODEL, "constant '%s' holds %zu bytes, its shape needs %llu",
			 t->name, t->size, (unsigned long long)bytes);
		return NULL;
	}
	if (bytes)
		memcpy(v->data, t->data, bytes);
	return v;
}

static int spec_attr(struct ir_graph *g, struct ir_node *n, struct ir_attr *a,
		     const struct npucc_spec_attr *p)
{
	if (!p->name || !*p->name)
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "an attribute has no name");
	if (ir_attr_find(n, p->name))
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "attribute '%s' is given twice",
				     p->name);
	a->name = ir_strdup(g, p->name);
	a->type = p->type;
	switch (p->type) {
	case NPUCC_ATTR_FLOAT:
		a->f = p->f;
		break;
	case NPUCC_ATTR_INT:
		a->i = p->i;
		break;
	case NPUCC_ATTR_STRING:
		a->s = ir_strdup(g, p->s ? p->s : "");
		if (!a->s)
			return -1;
		break;
	case NPUCC_ATTR_FLOATS:
		a->n = p->n;
		a->floats = ir_alloc(g, p->n * sizeof(float) + 1);
		if (!a->floats)
			return -1;
		if (p->n)
			memcpy(a->floats, p->floats, p->n * sizeof(float));
		break;
	case NPUCC_ATTR_INTS:
		a->n = p->n;
		a->ints = ir_alloc(g, p->n * sizeof(int64_t) + 1);
		if (!a->ints)
			return -1;
		if (p->n)
			memcpy(a->ints, p->ints, p->n * sizeof(int64_t));
		break;
	default:
		return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_ATTR,
				     "attribute '%s' has type %d", p->name, p->type);
	}
	return a->name ? 0 : -1;
}

static int spec_node(struct ir_graph *g, const struct npucc_spec_node *p)
{
	struct ir_node *n;
	int i;

	if (!p->op || !*p->op)
		return ir_error(g, NPUCC_E_INVALID_MODEL, "a node has no op type");
	if (p->num_in < 0 || p->num_in > 1024 || p->num_out < 1 || p->num_out > 64)
		return ir_error(g, NPUCC_E_LIMIT, "node '%s' has %d inputs and %d outputs",
				p->name ? p->name : "", p->num_in, p->num_out);
	n = ir_node_new(g, p->name, p->op, p->num_in, p->num_out);
	if (!n)
		return -1;
	n->attrs = ir_alloc(g, sizeof(*n->attrs) * ((size_t)p->num_attrs + 1));
	if (!n->attrs)
		return -1;
	for (i = 0; i < p->num_attrs; i++) {
		if (spec_attr(g, n, &n->attrs[n->num_attrs], &p->attrs[i]))
			return -1;
		n->num_attrs++;
	}
	for (i = 0; i < p->num_in; i++) {
		const char *name = p->in[i];

		if (!name || !*name)
			continue;
		n->in[i] = ir_value_find(g, name);
		if (!n->in[i])
			return ir_node_error(g, n, NPUCC_E_INVALID_MODEL,
					     "input '%s' is not defined before this node", name);
	}
	for (i = 0; i < p->num_out; i++) {
		const char *name = p->out[i];

		if (!name || !*name)
			continue;
		if (ir_value_find(g, name))
			return ir_node_error(g, n, NPUCC_E_INVALID_MODEL,
					     "output '%s' is defined twice", name);
		n->out[i] = ir_value_new(g, name);
		if (!n->out[i])
			return -1;
		n->out[i]->producer = n;
	}
	return 0;
}

static int spec_outputs(struct ir_graph *g, const struct npucc_spec *spec)
{
	int i;

	if (spec->num_outputs < 1)
		return ir_error(g, NPUCC_E_INVALID_MODEL, "the graph has no output");
	for (i = 0; i < spec->num_outputs; i++)
		if (ir_graph_add_output(g, spec->outputs[i] ? spec->outputs[i] : ""))
			return -1;
	return 0;
}

int pass_import_spec(struct ir_graph *g, const struct npucc_spec *spec)
{
	int i;

	g->opset = spec->opset;
	if (spec->opset < 6 || spec->opset > 17)
		return ir_error(g, NPUCC_E_UNSUPPORTED_OP, "opset %d is not supported", spec->opset);
	if (spec->num_inputs < 0 || spec->num_inputs > SPEC_MAX_IO ||
	    spec->num_outputs > SPEC_MAX_IO || spec->num_consts < 0 || spec->num_nodes < 0)
		return ir_error(g, NPUCC_E_LIMIT, "more than %d graph inputs or outputs",
				SPEC_MAX_IO);
	g->inputs = ir_alloc(g, sizeof(*g->inputs) * SPEC_MAX_IO);
	g->outputs = ir_alloc(g, sizeof(*g->outputs) * SPEC_MAX_IO);
	if (!g->inputs || !g->outputs)
		return -1;
	for (i = 0; i < spec->num_consts; i++) {
		if (!spec->consts[i].data)
			return ir_error(g, NPUCC_E_INVALID_MODEL, "constant '%s' has no data",
					spec->consts[i].name ? spec->consts[i].name : "");
		if (!spec_value(g, &spec->consts[i], "constant"))
			return -1;
	}
	for (i = 0; i < spec->num_inputs; i++) {
		struct ir_value *v = spec_value(g, &spec->inputs[i], "input");

		if (!v)
			return -1;
		v->input_index = g->num_inputs;
		g->inputs[g->num_inputs++] = v;
	}
	for (i = 0; i < spec->num_nodes; i++)
		if (spec_node(g, &spec->nodes[i]))
			return -1;
	if (import_sort_nodes(g))
		return -1;
	return spec_outputs(g, spec);
}
