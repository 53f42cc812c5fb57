/* SPDX-License-Identifier: MIT */
/*
 * Builds small ONNX models in C for the compiler's tests, with the same
 * protobuf-c code the compiler decodes them with.  Every allocation goes
 * to the builder's pool and ob_free() releases them all.
 */
#ifndef ONNX_BUILDER_H
#define ONNX_BUILDER_H

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "onnx.pb-c.h"

#define OB_MAX	512

struct onnx_builder {
	Onnx__ModelProto model;
	Onnx__GraphProto graph;
	Onnx__OperatorSetIdProto opset;
	Onnx__OperatorSetIdProto *opsets[1];
	Onnx__NodeProto *nodes[OB_MAX];
	Onnx__TensorProto *inits[OB_MAX];
	Onnx__ValueInfoProto *inputs[16], *outputs[16];
	void *pool[8 * OB_MAX];
	int num_pool;
	uint64_t seed;
};

static inline void *ob_alloc(struct onnx_builder *b, size_t size)
{
	void *p = calloc(1, size ? size : 1);

	if (b->num_pool < (int)(sizeof(b->pool) / sizeof(b->pool[0])))
		b->pool[b->num_pool++] = p;
	return p;
}

static inline char *ob_str(struct onnx_builder *b, const char *s)
{
	char *d = ob_alloc(b, strlen(s) + 1);

	strcpy(d, s);
	return d;
}

static inline void ob_init(struct onnx_builder *b, int opset)
{
	memset(b, 0, sizeof(*b));
	onnx__model_proto__init(&b->model);
	onnx__graph_proto__init(&b->graph);
	onnx__operator_set_id_proto__init(&b->opset);
	b->opset.domain = "";
	b->opset.has_version = 1;
	b->opset.version = opset;
	b->opsets[0] = &b->opset;
	b->model.has_ir_version = 1;
	b->model.ir_version = 7;
	b->model.n_opset_import = 1;
	b->model.opset_import = b->opsets;
	b->model.graph = &b->graph;
	b->graph.name = "test";
	b->graph.node = b->nodes;
	b->graph.initializer = b->inits;
	b->graph.input = b->inputs;
	b->graph.output = b->outputs;
	b->seed = 0x2545f4914f6cdd1dULL;
}

static inline float ob_rand(struct onnx_builder *b)
{
	b->seed ^= b->seed << 13;
	b->seed ^= b->seed >> 7;
	b->seed ^= b->seed << 17;
	return (float)((b->seed >> 11) % 2000001) / 1000000.0f - 1.0f;
}

static inline Onnx__ValueInfoProto *ob_value_info(struct onnx_builder *b, const char *name,
						  int dtype, int rank, const int64_t *dims)
{
	Onnx__ValueInfoProto *vi = ob_alloc(b, sizeof(*vi));
	Onnx__TypeProto *tp = ob_alloc(b, sizeof(*tp));
	Onnx__TypeProto__Tensor *tt = ob_alloc(b, sizeof(*tt));
	int d;

	onnx__value_info_proto__init(vi);
	onnx__type_proto__init(tp);
	onnx__type_proto__tensor__init(tt);
	vi->name = ob_str(b, name);
	vi->type = tp;
	tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	tp->tensor_type = tt;
	tt->has_elem_type = 1;
	tt->elem_type = dtype;
	if (rank >= 0) {
		Onnx__TensorShapeProto *sp = ob_alloc(b, sizeof(*sp));

		onnx__tensor_shape_proto__init(sp);
		sp->n_dim = (size_t)rank;
		sp->dim = ob_alloc(b, sizeof(*sp->dim) * (size_t)(rank + 1));
		for (d = 0; d < rank; d++) {
			Onnx__TensorShapeProto__Dimension *dim = ob_alloc(b, sizeof(*dim));

			onnx__tensor_shape_proto__dimension__init(dim);
			if (dims[d] >= 0) {
				dim->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
				dim->dim_value = dims[d];
			} else {
				dim->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
				dim->dim_param = ob_str(b, "batch");
			}
			sp->dim[d] = dim;
		}
		tt->shape = sp;
	}
	return vi;
}

/* A float input; dims of -1 are dynamic. */
static inline void ob_input(struct onnx_builder *b, const char *name, int rank, const int64_t *dims)
{
	b->inputs[b->graph.n_input++] = ob_value_info(b, name, 1, rank, dims);
}

static inline void ob_output(struct onnx_builder *b, const char *name)
{
	b->outputs[b->graph.n_output++] = ob_value_info(b, name, 1, -1, NULL);
}

static inline Onnx__TensorProto *ob_tensor(struct onnx_builder *b, const char *name, int dtype,
					   int rank, const int64_t *dims, const void *data)
{
	Onnx__TensorProto *t = ob_alloc(b, sizeof(*t));
	size_t n = 1, es = dtype == 7 ? 8 : 4, i;
	int d;

	onnx__tensor_proto__init(t);
	t->name = ob_str(b, name);
	t->has_data_type = 1;
	t->data_type = dtype;
	t->n_dims = (size_t)rank;
	t->dims = ob_alloc(b, sizeof(int64_t) * (size_t)(rank + 1));
	for (d = 0; d < rank; d++) {
		t->dims[d] = dims[d];
		n *= (size_t)dims[d];
	}
	t->has_raw_data = 1;
	t->raw_data.len = n * es;
	t->raw_data.data = ob_alloc(b, n * es);
	if (data) {
		memcpy(t->raw_data.data, data, n * es);
	} else {
		for (i = 0; i < n; i++)
			((float *)t->raw_data.data)[i] = ob_rand(b);
	}
	return t;
}

/* Initializers: floats (random when @data is NULL) and int64s. */
static inline void ob_f32(struct onnx_builder *b, const char *name, int rank, const int64_t *dims,
			  const float *data)
{
	b->inits[b->graph.n_initializer++] = ob_tensor(b, name, 1, rank, dims, data);
}

static inline void ob_i64(struct onnx_builder *b, const char *name, int n, const int64_t *vals)
{
	int64_t dims[1] = { n };

	b->inits[b->graph.n_initializer++] = ob_tensor(b, name, 7, 1, dims, vals);
}

/* A node; @ins and @outs are comma-separated names ("" for a left-out one). */
static inline Onnx__NodeProto *ob_node(struct onnx_builder *b, const char *op, const char *name,
				       const char *ins, const char *outs)
{
	Onnx__NodeProto *n = ob_alloc(b, sizeof(*n));
	const char *lists[2] = { ins, outs };
	int l;

	onnx__node_proto__init(n);
	n->op_type = ob_str(b, op);
	n->name = ob_str(b, name);
	n->domain = "";
	n->attribute = ob_alloc(b, sizeof(*n->attribute) * 16);
	for (l = 0; l < 2; l++) {
		size_t count = 0, cap = 1;
		const char *p;
		char **arr;

		for (p = lists[l]; *p; p++)
			cap += *p == ',';
		arr = ob_alloc(b, sizeof(*arr) * cap);
		for (p = lists[l]; *lists[l];) {
			const char *e = strchr(p, ',');
			size_t len = e ? (size_t)(e - p) : strlen(p);

			arr[count] = ob_alloc(b, len + 1);
			memcpy(arr[count++], p, len);
			if (!e)
				break;
			p = e + 1;
		}
		if (l == 0) {
			n->n_input = count;
			n->input = arr;
		} else {
			n->n_output = count;
			n->output = arr;
		}
	}
	b->nodes[b->graph.n_node++] = n;
	return n;
}

static inline Onnx__AttributeProto *ob_attr(struct onnx_builder *b, Onnx__NodeProto *n,
					    const char *name, int type)
{
	Onnx__AttributeProto *a = ob_alloc(b, sizeof(*a));

	onnx__attribute_proto__init(a);
	a->name = ob_str(b, name);
	a->has_type = 1;
	a->type = type;
	n->attribute[n->n_attribute++] = a;
	return a;
}

static inline void ob_attr_i(struct onnx_builder *b, Onnx__NodeProto *n, const char *name, int64_t v)
{
	Onnx__AttributeProto *a = ob_attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);

	a->has_i = 1;
	a->i = v;
}

static inline void ob_attr_f(struct onnx_builder *b, Onnx__NodeProto *n, const char *name, float v)
{
	Onnx__AttributeProto *a = ob_attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);

	a->has_f = 1;
	a->f = v;
}

static inline void ob_attr_s(struct onnx_builder *b, Onnx__NodeProto *n, const char *name,
			     const char *v)
{
	Onnx__AttributeProto *a = ob_attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);

	a->has_s = 1;
	a->s.data = (uint8_t *)ob_str(b, v);
	a->s.len = strlen(v);
}

/* ob_attr_ints(b, node, "pads", 4, 1, 1, 1, 1) */
static inline void ob_attr_ints(struct onnx_builder *b, Onnx__NodeProto *n, const char *name,
				int count, ...)
{
	Onnx__AttributeProto *a = ob_attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
	va_list ap;
	int i;

	a->n_ints = (size_t)count;
	a->ints = ob_alloc(b, sizeof(int64_t) * (size_t)(count + 1));
	va_start(ap, count);
	for (i = 0; i < count; i++)
		a->ints[i] = va_arg(ap, int);
	va_end(ap);
}

static inline uint8_t *ob_pack(struct onnx_builder *b, size_t *len)
{
	uint8_t *buf;

	*len = onnx__model_proto__get_packed_size(&b->model);
	buf = malloc(*len);
	onnx__model_proto__pack(&b->model, buf);
	return buf;
}

static inline void ob_free(struct onnx_builder *b)
{
	int i;

	for (i = 0; i < b->num_pool; i++)
		free(b->pool[i]);
	b->num_pool = 0;
}

#endif /* ONNX_BUILDER_H */
