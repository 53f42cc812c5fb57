/* SPDX-License-Identifier: MIT */
/*
 * Builds .om files (compiler/om_format.h) by hand, for the tests of the
 * model runtime: they need models without depending on the compiler.
 * A builder collects inputs, outputs, weights and operators, then lays
 * them out in a file with every section on its 64-byte boundary.
 *
 * Also a few ready models (om_model_*) with their reference computation.
 */
#ifndef OM_BUILDER_H
#define OM_BUILDER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl_base.h"
#include "om_format.h"

#define OMB_MAX_OPS	1024
#define OMB_STRINGS	65536

struct omb_tensor {
	struct npu_tensor_desc desc;	/* addr: offset into region */
	uint8_t region;
};

struct om_builder {
	uint32_t num_inputs, num_outputs;
	struct om_io_desc in[OM_MAX_IO], out[OM_MAX_IO];
	uint8_t *program;		/* op records, back to back */
	uint64_t program_size;
	uint32_t num_ops;
	uint8_t *weights;
	uint64_t weights_size;
	uint64_t workspace_size;
	char strings[OMB_STRINGS];
	uint32_t strings_size;
};

static inline uint64_t omb_align(uint64_t v)
{
	return (v + OM_ALIGN - 1) / OM_ALIGN * OM_ALIGN;
}

static inline struct om_builder *omb_new(void)
{
	return calloc(1, sizeof(struct om_builder));
}

static inline void omb_free(struct om_builder *b)
{
	free(b->program);
	free(b->weights);
	free(b);
}

static inline uint32_t omb_string(struct om_builder *b, const char *s)
{
	uint32_t off = b->strings_size;
	size_t len = strlen(s) + 1;

	if (off + len > OMB_STRINGS)
		abort();
	memcpy(b->strings + off, s, len);
	b->strings_size += (uint32_t)len;
	return off;
}

static inline size_t omb_acl_size(aclDataType t)
{
	switch (t) {
	case ACL_FLOAT:
	case ACL_INT32:
		return 4;
	case ACL_FLOAT16:
	case ACL_BF16:
		return 2;
	case ACL_INT8:
	case ACL_UINT8:
		return 1;
	default:
		return 0;
	}
}

static inline void omb_io(struct om_builder *b, struct om_io_desc *d, const char *name,
			  aclDataType type, uint32_t ndims, const int64_t *dims)
{
	uint64_t bytes = omb_acl_size(type);

	memset(d, 0, sizeof(*d));
	d->name = omb_string(b, name);
	d->data_type = (uint32_t)type;
	d->format = (uint32_t)ACL_FORMAT_ND;
	d->num_dims = ndims;
	for (uint32_t i = 0; i < ndims; i++) {
		d->dims[i] = (uint64_t)dims[i];
		bytes *= (uint64_t)dims[i];
	}
	d->size = bytes;
}

/* Returns the input's region. */
static inline uint8_t omb_input(struct om_builder *b, const char *name, aclDataType type,
				uint32_t ndims, const int64_t *dims)
{
	omb_io(b, &b->in[b->num_inputs], name, type, ndims, dims);
	return (uint8_t)(OM_REGION_INPUT0 + b->num_inputs++);
}

/* Outputs come after every input: add all inputs first. Returns the output's index. */
static inline uint32_t omb_output(struct om_builder *b, const char *name, aclDataType type,
				  uint32_t ndims, const int64_t *dims)
{
	omb_io(b, &b->out[b->num_outputs], name, type, ndims, dims);
	return b->num_outputs++;
}

static inline uint8_t omb_output_region(const struct om_builder *b, uint32_t j)
{
	return (uint8_t)(OM_REGION_INPUT0 + b->num_inputs + j);
}

/* Appends constant data to the weights; returns its offset. */
static inline uint64_t omb_weights(struct om_builder *b, const void *data, size_t size)
{
	uint64_t off = omb_align(b->weights_size);

	b->weights = realloc(b->weights, off + size);
	memset(b->weights + b->weights_size, 0, off - b->weights_size);
	memcpy(b->weights + off, data, size);
	b->weights_size = off + size;
	return off;
}

/* A dense row-major tensor at offset off of region r. */
static inline struct omb_tensor omb_dense(uint8_t region, uint64_t off, enum npu_dtype t,
					  uint32_t ndims, const int64_t *dims)
{
	struct omb_tensor x;
	uint64_t stride = 1;

	memset(&x, 0, sizeof(x));
	x.region = region;
	x.desc.addr = off;
	x.desc.dtype = (uint16_t)t;
	x.desc.format = NPU_FORMAT_STRIDED;
	x.desc.ndims = (uint16_t)ndims;
	for (int d = (int)ndims - 1; d >= 0; d--) {
		x.desc.dims[d] = (uint64_t)dims[d];
		x.desc.strides[d] = stride;
		stride *= (uint64_t)dims[d];
	}
	return x;
}

/* Appends an operator: nin inputs then nout outputs in tensors. */
static inline void omb_op(struct om_builder *b, const char *name, enum npu_operator kind,
			  const union npu_op_attrs *attrs, unsigned int nin, unsigned int nout,
			  const struct omb_tensor *tensors)
{
	uint32_t desc_size = sizeof(struct npu_op_desc) +
			     (nin + nout) * sizeof(struct npu_tensor_desc);
	uint32_t size = (uint32_t)omb_align(offsetof(struct om_op_record, desc) + desc_size);
	struct om_op_record *rec;

	b->program = realloc(b->program, b->program_size + size);
	rec = (struct om_op_record *)(b->program + b->program_size);
	memset(rec, 0, size);
	rec->size = size;
	rec->desc_size = desc_size;
	rec->name = omb_string(b, name);
	rec->desc.kind = (uint16_t)kind;
	rec->desc.num_inputs = (uint8_t)nin;
	rec->desc.num_outputs = (uint8_t)nout;
	if (attrs)
		rec->desc.attrs = *attrs;
	for (unsigned int i = 0; i < nin + nout; i++) {
		rec->region[i] = tensors[i].region;
		rec->desc.tensors[i] = tensors[i].desc;
	}
	b->program_size += size;
	b->num_ops++;
}

/*
 * Lays the file out: header, inputs and outputs, program, weights,
 * strings, each on a 64-byte boundary. Returns it (free it), *size its bytes.
 */
static inline void *omb_finish(const struct om_builder *b, size_t *size)
{
	uint32_t nio = b->num_inputs + b->num_outputs;
	uint64_t io_off = omb_align(sizeof(struct om_header));
	uint64_t prog_off = omb_align(io_off + nio * sizeof(struct om_io_desc));
	uint64_t w_off = omb_align(prog_off + b->program_size);
	uint64_t s_off = omb_align(w_off + b->weights_size);
	uint64_t total = s_off + b->strings_size;
	uint8_t *f = calloc(1, total);
	struct om_header *h = (struct om_header *)f;

	h->magic = OM_MAGIC;
	h->version_major = OM_VERSION_MAJOR;
	h->version_minor = OM_VERSION_MINOR;
	h->header_size = sizeof(*h);
	h->file_size = total;
	h->num_inputs = b->num_inputs;
	h->num_outputs = b->num_outputs;
	h->io_offset = io_off;
	h->num_ops = b->num_ops;
	h->program_offset = prog_off;
	h->program_size = b->program_size;
	h->weights_offset = w_off;
	h->weights_size = b->weights_size;
	h->workspace_size = b->workspace_size;
	h->strings_offset = s_off;
	h->strings_size = b->strings_size;
	memcpy(f + io_off, b->in, b->num_inputs * sizeof(struct om_io_desc));
	memcpy(f + io_off + b->num_inputs * sizeof(struct om_io_desc), b->out,
	       b->num_outputs * sizeof(struct om_io_desc));
	if (b->program_size)
		memcpy(f + prog_off, b->program, b->program_size);
	if (b->weights_size)
		memcpy(f + w_off, b->weights, b->weights_size);
	memcpy(f + s_off, b->strings, b->strings_size);
	*size = total;
	return f;
}

/* ---- ready models ------------------------------------------------------ */

static inline union npu_op_attrs omb_binary(enum npu_binary_kind kind, enum npu_unary_kind act)
{
	union npu_op_attrs a;

	memset(&a, 0, sizeof(a));
	a.binary.kind = kind;
	a.binary.act.kind = act;
	return a;
}

/* y = a + b over f32 tensors of dims; one BINARY operator. */
static inline void *om_model_add(uint32_t ndims, const int64_t *dims, size_t *size)
{
	struct om_builder *b = omb_new();
	union npu_op_attrs add = omb_binary(NPU_BINARY_ADD, NPU_UNARY_NONE);
	struct omb_tensor t[3];
	uint8_t ra, rb;
	void *f;

	ra = omb_input(b, "a", ACL_FLOAT, ndims, dims);
	rb = omb_input(b, "b", ACL_FLOAT, ndims, dims);
	omb_output(b, "y", ACL_FLOAT, ndims, dims);
	t[0] = omb_dense(ra, 0, NPU_DTYPE_F32, ndims, dims);
	t[1] = omb_dense(rb, 0, NPU_DTYPE_F32, ndims, dims);
	t[2] = omb_dense(omb_output_region(b, 0), 0, NPU_DTYPE_F32, ndims, dims);
	omb_op(b, "add", NPU_OPERATOR_BINARY, &add, 2, 1, t);
	f = omb_finish(b, size);
	omb_free(b);
	return f;
}

/*
 * y = relu(x * w + c) over f32 vectors of n elements, w and c weights:
 * the product goes through the workspace, at an offset that is not 0.
 */
#define OM_AFFINE_WS_OFFSET	128

static inline float om_affine_w(size_t i)
{
	return (float)((int)(i % 7) - 3) * 0.5f;
}

static inline float om_affine_c(size_t i)
{
	return (float)((int)(i % 5) - 1);
}

static inline void om_affine_ref(const float *x, float *y, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		float v = x[i] * om_affine_w(i) + om_affine_c(i);

		y[i] = v > 0 ? v : 0;
	}
}

static inline void *om_model_affine(int64_t n, size_t *size)
{
	struct om_builder *b = omb_new();
	union npu_op_attrs mul = omb_binary(NPU_BINARY_MUL, NPU_UNARY_NONE);
	union npu_op_attrs add = omb_binary(NPU_BINARY_ADD, NPU_UNARY_RELU);
	float *w = malloc(n * sizeof(float)), *c = malloc(n * sizeof(float));
	struct omb_tensor t[3];
	uint64_t woff, coff;
	uint8_t rx;
	void *f;

	for (int64_t i = 0; i < n; i++) {
		w[i] = om_affine_w((size_t)i);
		c[i] = om_affine_c((size_t)i);
	}
	rx = omb_input(b, "x", ACL_FLOAT, 1, &n);
	omb_output(b, "y", ACL_FLOAT, 1, &n);
	woff = omb_weights(b, w, n * sizeof(float));
	coff = omb_weights(b, c, n * sizeof(float));
	b->workspace_size = OM_AFFINE_WS_OFFSET + n * sizeof(float);
	t[0] = omb_dense(rx, 0, NPU_DTYPE_F32, 1, &n);
	t[1] = omb_dense(OM_REGION_WEIGHTS, woff, NPU_DTYPE_F32, 1, &n);
	t[2] = omb_dense(OM_REGION_WORKSPACE, OM_AFFINE_WS_OFFSET, NPU_DTYPE_F32, 1, &n);
	omb_op(b, "mul", NPU_OPERATOR_BINARY, &mul, 2, 1, t);
	t[0] = t[2];
	t[1] = omb_dense(OM_REGION_WEIGHTS, coff, NPU_DTYPE_F32, 1, &n);
	t[2] = omb_dense(omb_output_region(b, 0), 0, NPU_DTYPE_F32, 1, &n);
	omb_op(b, "add_relu", NPU_OPERATOR_BINARY, &add, 2, 1, t);
	f = omb_finish(b, size);
	free(w);
	free(c);
	omb_free(b);
	return f;
}

/*
 * y = x + steps over f32 vectors of n elements, in steps operators that
 * each add the weight 1.0, through two workspace buffers in turn: a
 * program longer than one submission when steps is large.
 */
static inline void *om_model_chain(int64_t n, unsigned int steps, size_t *size)
{
	struct om_builder *b = omb_new();
	union npu_op_attrs add = omb_binary(NPU_BINARY_ADD, NPU_UNARY_NONE);
	uint64_t bytes = n * sizeof(float), ones;
	float *one = malloc(bytes);
	struct omb_tensor t[3];
	uint8_t rx;
	void *f;

	for (int64_t i = 0; i < n; i++)
		one[i] = 1.0f;
	rx = omb_input(b, "x", ACL_FLOAT, 1, &n);
	omb_output(b, "y", ACL_FLOAT, 1, &n);
	ones = omb_weights(b, one, bytes);
	b->workspace_size = 2 * omb_align(bytes);
	for (unsigned int s = 0; s < steps; s++) {
		char name[32];

		t[0] = s ? omb_dense(OM_REGION_WORKSPACE, (s - 1) % 2 * omb_align(bytes),
				     NPU_DTYPE_F32, 1, &n)
			 : omb_dense(rx, 0, NPU_DTYPE_F32, 1, &n);
		t[1] = omb_dense(OM_REGION_WEIGHTS, ones, NPU_DTYPE_F32, 1, &n);
		t[2] = s == steps - 1
		       ? omb_dense(omb_output_region(b, 0), 0, NPU_DTYPE_F32, 1, &n)
		       : omb_dense(OM_REGION_WORKSPACE, s % 2 * omb_align(bytes),
				   NPU_DTYPE_F32, 1, &n);
		snprintf(name, sizeof(name), "step%u", s);
		omb_op(b, name, NPU_OPERATOR_BINARY, &add, 2, 1, t);
	}
	f = omb_finish(b, size);
	free(one);
	omb_free(b);
	return f;
}

#endif /* OM_BUILDER_H */
