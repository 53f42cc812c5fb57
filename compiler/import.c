// SPDX-License-Identifier: MIT
/*
 * Import: an ONNX ModelProto (decoded by the protobuf-c code that
 * the build generates from onnx.proto) becomes the IR.  Nothing in the
 * file is trusted: every count, size, name and type is checked, and the
 * nodes are put in an order where each input is defined before its use.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "onnx.pb-c.h"

#define OPSET_MIN	6
#define OPSET_MAX	17
#define OPSET_OLDEST	1

static int import_opset(struct ir_graph *g, const Onnx__ModelProto *m)
{
	const char *other = NULL;
	size_t i;

	g->opset = -1;
	for (i = 0; i < m->n_opset_import; i++) {
		const Onnx__OperatorSetIdProto *o = m->opset_import[i];
		const char *dom = o->domain ? o->domain : "";

		if (!strcmp(dom, "") || !strcmp(dom, "ai.onnx"))
			g->opset = o->has_version ? (int)o->version : -1;
		else
			other = dom;
	}
	if (g->opset < 0 && other)
		return ir_error(g, NPUCC_E_UNSUPPORTED_OP,
				"the model imports only the operator domain '%s'", other);
	if (g->opset < 0)
		return ir_error(g, NPUCC_E_INVALID_MODEL, "the model imports no ai.onnx opset");
	if (g->opset < OPSET_OLDEST || g->opset > OPSET_MAX)
		return ir_error(g, NPUCC_E_UNSUPPORTED_OP,
				"opset %d is not supported (opsets %d to %d are)",
				g->opset, OPSET_MIN, OPSET_MAX);
	return 0;
}

/*
 * Operators whose definition in opset 1 is still the one of opset
 * OPSET_MIN: a model of an older opset that uses only these means what
 * it would mean in OPSET_MIN.
 */
static bool same_since_opset_1(const char *op)
{
	static const char *const ops[] = {
		"GlobalAveragePool", "GlobalMaxPool", "Softplus", "Softsign", "Not",
		"Transpose", "Identity", "MatMul", "Softmax", "LogSoftmax",
	};
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(ops[i], op))
			return true;
	return false;
}

/* A model older than OPSET_MIN compiles as one of OPSET_MIN, if it can. */
static int import_legacy_opset(struct ir_graph *g)
{
	int i;

	if (g->opset >= OPSET_MIN)
		return 0;
	for (i = 0; i < g->num_nodes; i++)
		if (!same_since_opset_1(g->nodes[i]->op))
			return ir_node_error(g, g->nodes[i], NPUCC_E_UNSUPPORTED_OP,
					     "opset %d is not supported for %s, which changed before opset %d (opsets %d to %d are)",
					     g->opset, g->nodes[i]->op, OPSET_MIN, OPSET_MIN, OPSET_MAX);
	g->opset = OPSET_MIN;
	return 0;
}

/* Copies @count elements of @esize bytes each, widening or narrowing ints. */
static int tensor_elements(struct ir_graph *g, const Onnx__TensorProto *t, struct ir_value *v)
{
	int64_t i, count = ir_numel(v);
	size_t esize = ir_dtype_size(v->dtype);
	size_t avail;

	if (t->has_raw_data) {
		if (t->raw_data.len != (uint64_t)count * esize)
			return ir_error(g, NPUCC_E_INVALID_MODEL,
					"tensor '%s': raw_data holds %zu bytes, its shape needs %llu",
					v->name, t->raw_data.len,
					(unsigned long long)count * esize);
		if (count)
			memcpy(v->data, t->raw_data.data, t->raw_data.len);
		return 0;
	}
	switch (v->dtype) {
	case IR_FLOAT:
		avail = t->n_float_data;
		break;
	case IR_INT64:
		avail = t->n_int64_data;
		break;
	case IR_DOUBLE:
		avail = t->n_double_data;
		break;
	case IR_UINT32: case IR_UINT64:
		avail = t->n_uint64_data;
		break;
	default:
		avail = t->n_int32_data;
	}
	if (avail != (uint64_t)count)
		return ir_error(g, NPUCC_E_INVALID_MODEL,
				"tensor '%s' has %zu elements, its shape needs %lld",
				v->name, avail, (long long)count);
	for (i = 0; i < count; i++) {
		switch (v->dtype) {
		case IR_FLOAT:
			((float *)v->data)[i] = t->float_data[i];
			break;
		case IR_INT64:
			((int64_t *)v->data)[i] = t->int64_data[i];
			break;
		case IR_DOUBLE:
			((double *)v->data)[i] = t->double_data[i];
			break;
		case IR_UINT32: case IR_UINT64:
			ir_set_i64(v, i, (int64_t)t->uint64_data[i]);
			break;
		case IR_FLOAT16: case IR_BFLOAT16:
			((uint16_t *)v->data)[i] = (uint16_t)t->int32_data[i];
			break;
		default:
			ir_set_i64(v, i, t->int32_data[i]);
		}
	}
	return 0;
}

/* A TensorProto becomes a constant value named @name. */
static struct ir_value *import_tensor(struct ir_graph *g, const Onnx__TensorProto *t,
				      const char *name)
{
	struct ir_value *v;
	size_t d;

	if (!name || !*name) {
		ir_error(g, NPUCC_E_INVALID_MODEL, "a tensor has no name");
		return NULL;
	}
	if (ir_value_find(g, name)) {
		ir_error(g, NPUCC_E_INVALID_MODEL, "tensor '%s' is defined twice", name);
		return NULL;
	}
	if (t->n_external_data || (t->has_data_location &&
	    t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)) {
		ir_error(g, NPUCC_E_UNSUPPORTED_ATTR,
			 "tensor '%s' keeps its data in an external file", name);
		return NULL;
	}
	if (!t->has_data_type || !ir_dtype_size(t->data_type)) {
		ir_error(g, NPUCC_E_UNSUPPORTED_DTYPE, "tensor '%s' has data type %s", name,
			 ir_dtype_name(t->has_data_type ? t->data_type : 0));
		return NULL;
	}
	if (t->n_dims > IR_MAX_DIMS) {
		ir_error(g, NPUCC_E_LIMIT, "tensor '%s' has %zu dims, at most %d are supported",
			 name, t->n_dims, IR_MAX_DIMS);
		return NULL;
	}
	v = ir_value_new(g, name);
	if (!v)
		return NULL;
	v->dtype = t->data_type;
	v->rank = (int)t->n_dims;
	for (d = 0; d < t->n_dims; d++) {
		if (t->dims[d] < 0) {
			ir_error(g, NPUCC_E_INVALID_MODEL, "tensor '%s' has a negative dim", name);
			return NULL;
		}
		v->dims[d] = t->dims[d];
	}
	if (ir_alloc_data(g, v) || tensor_elements(g, t, v))
		return NULL;
	return v;
}

static int import_input(struct ir_graph *g, const Onnx__ValueInfoProto *vi)
{
	const Onnx__TypeProto__Tensor *tt;
	struct ir_value *v;
	size_t d;

	if (!vi->name || !*vi->name)
		return ir_error(g, NPUCC_E_INVALID_MODEL, "a graph input has no name");
	v = ir_value_find(g, vi->name);
	if (v) {
		if (v->data)
			return 0;	/* an initializer listed as an input (IR < 4) */
		return ir_error(g, NPUCC_E_INVALID_MODEL, "graph input '%s' is listed twice",
				vi->name);
	}
	if (!vi->type || vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
		return ir_error(g, NPUCC_E_UNSUPPORTED_DTYPE, "graph input '%s' is not a tensor",
				vi->name);
	tt = vi->type->tensor_type;
	if (!tt->has_elem_type || !ir_dtype_size(tt->elem_type))
		return ir_error(g, NPUCC_E_UNSUPPORTED_DTYPE, "graph input '%s' has data type %s",
				vi->name, ir_dtype_name(tt->has_elem_type ? tt->elem_type : 0));
	v = ir_value_new(g, vi->name);
	if (!v)
		return -1;
	v->dtype = tt->elem_type;
	if (tt->shape) {
		if (tt->shape->n_dim > IR_MAX_DIMS)
			return ir_error(g, NPUCC_E_LIMIT, "graph input '%s' has %zu dims",
					vi->name, tt->shape->n_dim);
		v->rank = (int)tt->shape->n_dim;
		for (d = 0; d < tt->shape->n_dim; d++) {
			const Onnx__TensorShapeProto__Dimension *dim = tt->shape->dim[d];

			v->dims[d] = -1;
			if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
			    dim->dim_value >= 0)
				v->dims[d] = dim->dim_value;
		}
	}
	if (g->num_inputs >= 64)
		return ir_error(g, NPUCC_E_LIMIT, "more than 64 graph inputs");
	v->input_index = g->num_inputs;
	g->inputs[g->num_inputs++] = v;
	return 0;
}

static int import_attr(struct ir_graph *g, struct ir_node *n, struct ir_attr *a,
		       const Onnx__AttributeProto *p)
{
	if (!p->name || !*p->name)
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "an attribute has no name");
	if (p->ref_attr_name && *p->ref_attr_name)
		return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_ATTR,
				     "attribute '%s' refers to a function's attribute", p->name);
	a->name = ir_strdup(g, p->name);
	a->type = p->has_type ? (int)p->type : IR_ATTR_OTHER;
	switch (a->type) {
	case IR_ATTR_FLOAT:
		a->f = p->f;
		break;
	case IR_ATTR_INT:
		a->i = p->i;
		break;
	case IR_ATTR_STRING:
		a->s = ir_alloc(g, p->s.len + 1);
		if (!a->s)
			return -1;
		if (p->s.len)
			memcpy(a->s, p->s.data, p->s.len);
		break;
	case IR_ATTR_TENSOR: {
		char name[200];

		if (!p->t)
			return ir_node_error(g, n, NPUCC_E_INVALID_MODEL,
					     "attribute '%s' has no tensor", p->name);
		snprintf(name, sizeof(name), "%.120s/%.60s_%lu", n->name, p->name, ++g->serial);
		a->t = import_tensor(g, p->t, name);
		if (!a->t)
			return -1;
		break;
	}
	case IR_ATTR_FLOATS:
		a->n = p->n_floats;
		a->floats = p->n_floats ? ir_alloc(g, p->n_floats * sizeof(float)) : NULL;
		if (p->n_floats && !a->floats)
			return -1;
		if (p->n_floats)
			memcpy(a->floats, p->floats, p->n_floats * sizeof(float));
		break;
	case IR_ATTR_INTS:
		a->n = p->n_ints;
		a->ints = p->n_ints ? ir_alloc(g, p->n_ints * sizeof(int64_t)) : NULL;
		if (p->n_ints && !a->ints)
			return -1;
		if (p->n_ints)
			memcpy(a->ints, p->ints, p->n_ints * sizeof(int64_t));
		break;
	default:
		a->type = IR_ATTR_OTHER;
	}
	return a->name ? 0 : -1;
}

/* The node with its outputs defined; inputs are bound later. */
static int import_node(struct ir_graph *g, const Onnx__NodeProto *p)
{
	const char *dom = p->domain ? p->domain : "";
	struct ir_node *n;
	size_t i;

	if (!p->op_type || !*p->op_type)
		return ir_error(g, NPUCC_E_INVALID_MODEL, "a node has no op_type");
	n = ir_node_new(g, p->name, p->op_type, (int)p->n_input, (int)p->n_output);
	if (!n)
		return -1;
	if (*dom && strcmp(dom, "ai.onnx"))
		return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_OP,
				     "operator domain '%s' is not supported", dom);
	if (p->n_input > 1024 || p->n_output > 64)
		return ir_node_error(g, n, NPUCC_E_LIMIT, "too many inputs or outputs");
	n->attrs = ir_alloc(g, sizeof(*n->attrs) * (p->n_attribute + 1));
	if (!n->attrs)
		return -1;
	for (i = 0; i < p->n_attribute; i++) {
		if (ir_attr_find(n, p->attribute[i]->name ? p->attribute[i]->name : ""))
			return ir_node_error(g, n, NPUCC_E_INVALID_MODEL,
					     "attribute '%s' is given twice",
					     p->attribute[i]->name);
		if (import_attr(g, n, &n->attrs[n->num_attrs], p->attribute[i]))
			return -1;
		n->num_attrs++;
	}
	for (i = 0; i < p->n_output; i++) {
		const char *name = p->output[i];

		if (!*name)
			continue;	/* an optional output left out */
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

static int bind_inputs(struct ir_graph *g, const Onnx__GraphProto *gp)
{
	int i;
	size_t k;

	for (i = 0; i < g->num_nodes; i++) {
		struct ir_node *n = g->nodes[i];

		for (k = 0; k < (size_t)n->num_in; k++) {
			const char *name = gp->node[i]->input[k];

			if (!*name)
				continue;
			n->in[k] = ir_value_find(g, name);
			if (!n->in[k])
				return ir_node_error(g, n, NPUCC_E_INVALID_MODEL,
						     "input '%s' is not defined", name);
		}
	}
	return 0;
}

static bool node_ready(const struct ir_node *n, const bool *done)
{
	int k;

	for (k = 0; k < n->num_in; k++) {
		const struct ir_node *p = n->in[k] ? n->in[k]->producer : NULL;

		if (p && !done[p->index])
			return false;
	}
	return true;
}

/* Execution order: the file's, where it is one; a stable sort otherwise. */
int import_sort_nodes(struct ir_graph *g)
{
	int i, placed = 0, num = g->num_nodes;
	struct ir_node **order = calloc((size_t)num + 1, sizeof(*order));
	bool *done = calloc((size_t)num + 1, sizeof(*done));
	bool progress = true;

	if (!order || !done) {
		free(order);
		free(done);
		return ir_error(g, NPUCC_E_NOMEM, "out of memory");
	}
	while (placed < num && progress) {
		progress = false;
		for (i = 0; i < num; i++) {
			if (done[i] || !node_ready(g->nodes[i], done))
				continue;
			done[i] = true;
			order[placed++] = g->nodes[i];
			progress = true;
		}
	}
	if (placed < num) {
		for (i = 0; i < num && done[i]; i++)
			;
		ir_node_error(g, g->nodes[i], NPUCC_E_INVALID_MODEL,
			      "the graph has a cycle through this node");
	} else if (num > 0) {
		memcpy(g->nodes, order, sizeof(*order) * (size_t)num);
		for (i = 0; i < num; i++)
			g->nodes[i]->index = i;
	}
	free(order);
	free(done);
	return g->err_code ? -1 : 0;
}

static int import_outputs(struct ir_graph *g, const Onnx__GraphProto *gp)
{
	size_t i;

	if (!gp->n_output)
		return ir_error(g, NPUCC_E_INVALID_MODEL, "the graph has no output");
	if (gp->n_output > 64)
		return ir_error(g, NPUCC_E_LIMIT, "more than 64 graph outputs");
	for (i = 0; i < gp->n_output; i++)
		if (ir_graph_add_output(g, gp->output[i]->name ? gp->output[i]->name : ""))
			return -1;
	return 0;
}

static int import_graph(struct ir_graph *g, const Onnx__GraphProto *gp)
{
	size_t i;

	if (gp->n_sparse_initializer)
		return ir_error(g, NPUCC_E_UNSUPPORTED_ATTR, "sparse initializers are not supported");
	g->inputs = ir_alloc(g, sizeof(*g->inputs) * 64);
	g->outputs = ir_alloc(g, sizeof(*g->outputs) * 64);
	if (!g->inputs || !g->outputs)
		return -1;
	for (i = 0; i < gp->n_initializer; i++)
		if (!import_tensor(g, gp->initializer[i], gp->initializer[i]->name))
			return -1;
	for (i = 0; i < gp->n_input; i++)
		if (import_input(g, gp->input[i]))
			return -1;
	for (i = 0; i < gp->n_node; i++)
		if (import_node(g, gp->node[i]))
			return -1;
	if (bind_inputs(g, gp) || import_sort_nodes(g))
		return -1;
	return import_outputs(g, gp);
}

int pass_import(struct ir_graph *g, const void *buf, size_t len)
{
	Onnx__ModelProto *m;
	int ret;

	m = onnx__model_proto__unpack(NULL, len, buf);
	if (!m)
		return ir_error(g, NPUCC_E_INVALID_MODEL,
				"not an ONNX model: the protobuf does not decode");
	if (!m->graph)
		ret = ir_error(g, NPUCC_E_INVALID_MODEL, "the model has no graph");
	else
		ret = import_opset(g, m) || import_graph(g, m->graph) ||
		      import_legacy_opset(g) ? -1 : 0;
	onnx__model_proto__free_unpacked(m, NULL);
	return ret;
}
