// SPDX-License-Identifier: MIT
/*
 * The helpers opnn.h declares.
 */
#include <endian.h>
#include <stdio.h>
#include <math.h>

#include "opnn.h"

aclnnStatus opnn_begin(struct opnn *o, const char *fn, const char *op_name)
{
	o->fn = fn;
	o->x = nnop_executor_new(op_name);
	return o->x ? ACLNN_SUCCESS : ACLNN_ERR_INNER_NULLPTR;
}

aclnnStatus opnn_end(struct opnn *o, aclnnStatus status, uint64_t *workspace_size,
		     aclOpExecutor **executor)
{
	if (status != ACLNN_SUCCESS) {
		nnop_executor_abandon(o->x);
		return status;
	}
	return nnop_executor_finish(o->x, workspace_size, executor);
}

aclnnStatus opnn_check_tensor(const struct opnn *o, const aclTensor *t, const char *name,
			      uint64_t types)
{
	struct nnop_tensor_info info;

	if (!t)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_NULLPTR, "%s is NULL", name);
	nnop_tensor_info(t, &info);
	if (info.acl_dtype < 0 || info.acl_dtype >= 64 || !(types & OPNN_DT(info.acl_dtype)) ||
	    info.card_dtype < 0)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "%s: data type %s is not supported",
				 name, nnop_dtype_name(info.acl_dtype));
	return ACLNN_SUCCESS;
}

aclnnStatus opnn_check_same_dtype(const struct opnn *o, const aclTensor *a, const char *an,
				  const aclTensor *b, const char *bn)
{
	struct nnop_tensor_info ia, ib;

	nnop_tensor_info(a, &ia);
	nnop_tensor_info(b, &ib);
	if (ia.acl_dtype != ib.acl_dtype)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "%s is %s but %s is %s; they must be the same type", an,
				 nnop_dtype_name(ia.acl_dtype), bn, nnop_dtype_name(ib.acl_dtype));
	return ACLNN_SUCCESS;
}

static void dims_text(char *buf, size_t size, unsigned int ndims, const int64_t *dims)
{
	size_t n = (size_t)snprintf(buf, size, "(");
	unsigned int d;

	for (d = 0; d < ndims && n < size; d++)
		n += (size_t)snprintf(buf + n, size - n, "%s%lld", d ? ", " : "",
				      (long long)dims[d]);
	if (n < size)
		snprintf(buf + n, size - n, ")");
}

aclnnStatus opnn_check_dims(const struct opnn *o, const aclTensor *t, const char *name,
			    unsigned int ndims, const int64_t *dims)
{
	struct nnop_tensor_info info;
	char want[200], got[200];

	nnop_tensor_info(t, &info);
	if (info.ndims == ndims && !memcmp(info.dims, dims, ndims * sizeof(*dims)))
		return ACLNN_SUCCESS;
	dims_text(want, sizeof(want), ndims, dims);
	dims_text(got, sizeof(got), info.ndims, info.dims);
	return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "%s has shape %s; expected %s", name, got,
			 want);
}

aclnnStatus opnn_check_rank(const struct opnn *o, const aclTensor *t, const char *name,
			    unsigned int min, unsigned int max)
{
	struct nnop_tensor_info info;

	nnop_tensor_info(t, &info);
	if (info.ndims >= min && info.ndims <= max)
		return ACLNN_SUCCESS;
	return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "%s has %u dims; %u to %u are supported",
			 name, info.ndims, min, max);
}

aclnnStatus opnn_input(struct opnn *o, const aclTensor *t, struct nnop_view *v)
{
	int slot = nnop_executor_input(o->x, t);

	if (slot < 0)
		return -slot;
	*v = nnop_view_of(o->x, slot);
	return ACLNN_SUCCESS;
}

aclnnStatus opnn_output(struct opnn *o, const aclTensor *t, struct nnop_view *v)
{
	int slot = nnop_executor_output(o->x, t);

	if (slot < 0)
		return -slot;
	*v = nnop_view_of(o->x, slot);
	return ACLNN_SUCCESS;
}

aclnnStatus opnn_axis(const struct opnn *o, int64_t dim, unsigned int ndims, unsigned int *axis)
{
	int64_t n = ndims ? ndims : 1;

	if (dim < -n || dim >= n)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "dim %lld is out of range for a tensor of %u dims",
				 (long long)dim, ndims);
	*axis = (unsigned int)(dim < 0 ? dim + n : dim);
	return ACLNN_SUCCESS;
}

int64_t opnn_view_nelems(const struct nnop_view *v)
{
	int64_t n = 1;
	unsigned int d;

	for (d = 0; d < v->ndims; d++)
		n *= v->dims[d];
	return n;
}

bool opnn_view_contiguous(const struct nnop_view *v)
{
	int64_t stride = 1;
	unsigned int d;

	for (d = v->ndims; d-- > 0;) {
		if (v->dims[d] != 1 && v->strides[d] != stride)
			return false;
		stride *= v->dims[d];
	}
	return true;
}

void opnn_view_set_dense(struct nnop_view *v)
{
	int64_t stride = 1;
	unsigned int d;

	for (d = v->ndims; d-- > 0;) {
		v->strides[d] = stride;
		stride *= v->dims[d];
	}
}

aclnnStatus opnn_add(struct opnn *o, unsigned int kind, const void *attrs, size_t size,
		     unsigned int num_inputs, const struct nnop_view *views)
{
	return nnop_executor_add(o->x, kind, attrs, size, num_inputs, views);
}

aclnnStatus opnn_copy(struct opnn *o, const struct nnop_view *src, const struct nnop_view *dst)
{
	struct nnop_view v[2] = { *src, *dst };

	return opnn_add(o, NPU_OPERATOR_CAST, NULL, 0, 1, v);
}

struct nnop_view opnn_work_like(struct opnn *o, const struct nnop_view *x, int card_dtype)
{
	return nnop_view_work(o->x, card_dtype, x->ndims, x->dims);
}

struct nnop_view opnn_work_reduced(struct opnn *o, const struct nnop_view *x, uint32_t axes,
				   int card_dtype)
{
	int64_t dims[NNOP_MAX_DIMS];
	unsigned int d;

	for (d = 0; d < x->ndims; d++)
		dims[d] = (axes >> d) & 1 ? 1 : x->dims[d];
	return nnop_view_work(o->x, card_dtype, x->ndims, dims);
}

aclnnStatus opnn_to_work(struct opnn *o, struct nnop_view *v, int card_dtype)
{
	struct nnop_view w = opnn_work_like(o, v, card_dtype);
	aclnnStatus ret = opnn_copy(o, v, &w);

	if (ret == ACLNN_SUCCESS)
		*v = w;
	return ret;
}

aclnnStatus opnn_dense(struct opnn *o, struct nnop_view *v, int card_dtype)
{
	if (v->card_dtype == card_dtype && opnn_view_contiguous(v))
		return ACLNN_SUCCESS;
	return opnn_to_work(o, v, card_dtype);
}

aclnnStatus opnn_fill(struct opnn *o, const struct nnop_view *dst, double value)
{
	struct nnop_view s, y = *dst;
	unsigned int d;

	nnop_view_align(&y, 1);
	OPNN_TRY(nnop_view_scalar(o->x, value, y.card_dtype, y.ndims, &s));
	for (d = 0; d < y.ndims; d++)
		nnop_view_expand(&s, d, y.dims[d]);
	return opnn_copy(o, &s, &y);
}

uint32_t opnn_f32_bits(double v)
{
	float f = (float)v;
	uint32_t bits;

	memcpy(&bits, &f, sizeof(bits));
	return htole32(bits);
}

struct npu_activation opnn_no_act(void)
{
	struct npu_activation act = { 0 };

	act.kind = htole32(NPU_UNARY_NONE);
	return act;
}

aclnnStatus opnn_unary(struct opnn *o, unsigned int kind, float alpha, float beta,
		       const struct nnop_view *x, const struct nnop_view *y)
{
	struct npu_attr_unary u = { 0 };
	struct nnop_view v[2] = { *x, *y };

	u.fn.kind = htole32(kind);
	u.fn.alpha = opnn_f32_bits(alpha);
	u.fn.beta = opnn_f32_bits(beta);
	return opnn_add(o, NPU_OPERATOR_UNARY, &u, sizeof(u), 1, v);
}

aclnnStatus opnn_binary(struct opnn *o, unsigned int kind, const struct nnop_view *a,
			const struct nnop_view *b, const struct nnop_view *y)
{
	struct npu_attr_binary bin = { 0 };
	struct nnop_view v[3] = { *a, *b, *y };

	bin.kind = htole32(kind);
	bin.act = opnn_no_act();
	return opnn_add(o, NPU_OPERATOR_BINARY, &bin, sizeof(bin), 2, v);
}

aclnnStatus opnn_binary_scalar(struct opnn *o, unsigned int kind, const struct nnop_view *a,
			       double value, const struct nnop_view *y)
{
	struct nnop_view s;
	aclnnStatus ret = nnop_view_scalar(o->x, value, a->card_dtype, a->ndims, &s);

	return ret ? ret : opnn_binary(o, kind, a, &s, y);
}

aclnnStatus opnn_reduce(struct opnn *o, unsigned int kind, uint32_t axes,
			const struct nnop_view *x, const struct nnop_view *y)
{
	struct npu_attr_reduce r = { 0 };
	struct nnop_view v[2] = { *x, *y };

	r.kind = htole32(kind);
	r.axes = htole32(axes);
	return opnn_add(o, NPU_OPERATOR_REDUCE, &r, sizeof(r), 1, v);
}
