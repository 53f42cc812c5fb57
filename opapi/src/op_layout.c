// SPDX-License-Identifier: MIT
/*
 * Layout operators: each a copy (the card's CAST, which also converts)
 * from a view of the input into a view of the output, so that strides do
 * the work: Permute reads through permuted strides, Slice through a
 * narrowed axis, Repeat and RepeatInterleave through stride-0 axes that
 * read one element many times, Cat writes each input into its part of
 * the output.  Padding and resizing have card operators of their own.
 */
#include <endian.h>
#include <math.h>

#include "aclnnop/aclnn_cast.h"
#include "aclnnop/aclnn_cat.h"
#include "aclnnop/aclnn_constant_pad_nd.h"
#include "aclnnop/aclnn_copy.h"
#include "aclnnop/aclnn_permute.h"
#include "aclnnop/aclnn_reflection_pad1d.h"
#include "aclnnop/aclnn_reflection_pad2d.h"
#include "aclnnop/aclnn_repeat.h"
#include "aclnnop/aclnn_repeat_interleave.h"
#include "aclnnop/aclnn_slice.h"
#include "aclnnop/aclnn_upsample_bilinear_2d.h"
#include "aclnnop/aclnn_upsample_nearest_2d.h"
#include "opnn.h"

/* ---- Cast, InplaceCopy ------------------------------------------------- */

static aclnnStatus cast_build(struct opnn *o, const aclTensor *self, aclDataType dtype,
			      const aclTensor *out)
{
	struct nnop_tensor_info si, oi;
	struct nnop_view x, y;

	OPNN_TRY(opnn_check_tensor(o, self, "self", OPNN_ALL_CARD));
	OPNN_TRY(opnn_check_tensor(o, out, "out", OPNN_ALL_CARD));
	nnop_tensor_info(self, &si);
	nnop_tensor_info(out, &oi);
	if (oi.acl_dtype != (int)dtype)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "out is %s but dtype is %s",
				 nnop_dtype_name(oi.acl_dtype), nnop_dtype_name(dtype));
	OPNN_TRY(opnn_check_dims(o, out, "out", si.ndims, si.dims));
	OPNN_TRY(opnn_input(o, self, &x));
	OPNN_TRY(opnn_output(o, out, &y));
	return si.nelems ? opnn_copy(o, &x, &y) : ACLNN_SUCCESS;
}

aclnnStatus aclnnCastGetWorkspaceSize(const aclTensor *self, const aclDataType dtype, aclTensor *out,
				      uint64_t *workspaceSize, aclOpExecutor **executor)
{
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, __func__, "Cast"));
	return opnn_end(&o, cast_build(&o, self, dtype, out), workspaceSize, executor);
}

OPNN_LAUNCH(Cast)

/* v (fewer dims or as many) broadcast numpy-style to dims. */
static aclnnStatus broadcast_to(struct opnn *o, struct nnop_view *v, const char *name,
				unsigned int ndims, const int64_t *dims)
{
	unsigned int d;

	if (v->ndims > ndims)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "%s has %u dims, more than the %u it is broadcast to", name,
				 v->ndims, ndims);
	nnop_view_align(v, ndims);
	for (d = 0; d < ndims; d++) {
		if (v->dims[d] == dims[d])
			continue;
		if (v->dims[d] != 1)
			return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
					 "%s's dim %u (%lld) does not broadcast to %lld", name, d,
					 (long long)v->dims[d], (long long)dims[d]);
		nnop_view_expand(v, d, dims[d]);
	}
	return ACLNN_SUCCESS;
}

static aclnnStatus copy_build(struct opnn *o, const aclTensor *self, const aclTensor *src)
{
	struct nnop_tensor_info si;
	struct nnop_view x, y;

	OPNN_TRY(opnn_check_tensor(o, self, "selfRef", OPNN_ALL_CARD));
	OPNN_TRY(opnn_check_tensor(o, src, "src", OPNN_ALL_CARD));
	nnop_tensor_info(self, &si);
	OPNN_TRY(opnn_input(o, src, &x));
	OPNN_TRY(opnn_output(o, self, &y));
	OPNN_TRY(broadcast_to(o, &x, "src", si.ndims, si.dims));
	return si.nelems ? opnn_copy(o, &x, &y) : ACLNN_SUCCESS;
}

aclnnStatus aclnnInplaceCopyGetWorkspaceSize(aclTensor *selfRef, const aclTensor *src,
					     uint64_t *workspaceSize, aclOpExecutor **executor)
{
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, __func__, "InplaceCopy"));
	return opnn_end(&o, copy_build(&o, selfRef, src), workspaceSize, executor);
}

OPNN_LAUNCH(InplaceCopy)

/* ---- Permute, Slice ------------------------------------------------------ */

static aclnnStatus permute_build(struct opnn *o, const aclTensor *self, const aclIntArray *dims,
				 const aclTensor *out)
{
	unsigned int perm[NNOP_MAX_DIMS], d, seen = 0;
	int64_t want[NNOP_MAX_DIMS];
	struct nnop_tensor_info si;
	struct nnop_view x, y;
	const int64_t *p;

	OPNN_TRY(opnn_check_tensor(o, self, "self", OPNN_ALL_CARD));
	OPNN_TRY(opnn_check_tensor(o, out, "out", OPNN_ALL_CARD));
	OPNN_TRY(opnn_check_same_dtype(o, self, "self", out, "out"));
	if (!dims)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_NULLPTR, "dims is NULL");
	nnop_tensor_info(self, &si);
	if (nnop_int_array_size(dims) != si.ndims)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "dims has %llu entries; self has %u dims",
				 (unsigned long long)nnop_int_array_size(dims), si.ndims);
	p = nnop_int_array_data(dims);
	for (d = 0; d < si.ndims; d++) {
		OPNN_TRY(opnn_axis(o, p[d], si.ndims, &perm[d]));
		if (seen & (1u << perm[d]))
			return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
					 "dims names axis %u twice", perm[d]);
		seen |= 1u << perm[d];
		want[d] = si.dims[perm[d]];
	}
	OPNN_TRY(opnn_check_dims(o, out, "out", si.ndims, want));
	OPNN_TRY(opnn_input(o, self, &x));
	OPNN_TRY(opnn_output(o, out, &y));
	nnop_view_permute(&x, perm);
	return si.nelems ? opnn_copy(o, &x, &y) : ACLNN_SUCCESS;
}

aclnnStatus aclnnPermuteGetWorkspaceSize(const aclTensor *self, const aclIntArray *dims,
					 aclTensor *out, uint64_t *workspaceSize,
					 aclOpExecutor **executor)
{
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, __func__, "Permute"));
	return opnn_end(&o, permute_build(&o, self, dims, out), workspaceSize, executor);
}

OPNN_LAUNCH(Permute)

/* PyTorch's clamping of a slice bound into [0, n]. */
static int64_t slice_bound(int64_t i, int64_t n)
{
	if (i < 0)
		i += n;
	return i < 0 ? 0 : i > n ? n : i;
}

static aclnnStatus slice_build(struct opnn *o, const aclTensor *self, int64_t dim, int64_t start,
			       int64_t end, int64_t step, const aclTensor *out)
{
	int64_t want[NNOP_MAX_DIMS], len;
	struct nnop_tensor_info si;
	struct nnop_view x, y;
	unsigned int axis = 0;

	OPNN_TRY(opnn_check_tensor(o, self, "self", OPNN_ALL_CARD));
	OPNN_TRY(opnn_check_tensor(o, out, "out", OPNN_ALL_CARD));
	OPNN_TRY(opnn_check_same_dtype(o, self, "self", out, "out"));
	nnop_tensor_info(self, &si);
	if (!si.ndims)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "self is a scalar; it has no dim to slice");
	OPNN_TRY(opnn_axis(o, dim, si.ndims, &axis));
	if (step <= 0)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "step %lld must be positive",
				 (long long)step);
	start = slice_bound(start, si.dims[axis]);
	end = slice_bound(end, si.dims[axis]);
	len = end > start ? (end - start + step - 1) / step : 0;
	memcpy(want, si.dims, sizeof(want));
	want[axis] = len;
	OPNN_TRY(opnn_check_dims(o, out, "out", si.ndims, want));
	OPNN_TRY(opnn_input(o, self, &x));
	OPNN_TRY(opnn_output(o, out, &y));
	if (!len || !si.nelems)
		return ACLNN_SUCCESS;
	nnop_view_narrow(&x, axis, start, len, step);
	return opnn_copy(o, &x, &y);
}

aclnnStatus aclnnSliceGetWorkspaceSize(const aclTensor *self, int64_t dim, int64_t start,
				       int64_t end, int64_t step, aclTensor *out,
				       uint64_t *workspaceSize, aclOpExecutor **executor)
{
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, __func__, "Slice"));
	return opnn_end(&o, slice_build(&o, self, dim, start, end, step, out), workspaceSize,
			executor);
}

OPNN_LAUNCH(Slice)

/* ---- Cat ------------------------------------------------------------------ */

/* PyTorch still skips 1-D empty tensors in cat, whatever the others' rank. */
static bool cat_skipped(const struct nnop_tensor_info *t)
{
	return t->ndims == 1 && t->dims[0] == 0;
}

static aclnnStatus cat_shape(struct opnn *o, const aclTensorList *tensors, int64_t dim,
			     struct nnop_tensor_info *shape, unsigned int *axis)
{
	uint64_t n = nnop_tensor_list_size(tensors), i;
	bool have = false;

	for (i = 0; i < n; i++) {
		const aclTensor *t = nnop_tensor_list_at(tensors, i);
		struct nnop_tensor_info ti;
		unsigned int d;

		OPNN_TRY(opnn_check_tensor(o, t, "tensors[i]", OPNN_ALL_CARD));
		nnop_tensor_info(t, &ti);
		if (cat_skipped(&ti))
			continue;
		if (!have) {
			*shape = ti;
			if (!ti.ndims)
				return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
						 "tensors[%llu] is a scalar; scalars cannot be joined",
						 (unsigned long long)i);
			OPNN_TRY(opnn_axis(o, dim, ti.ndims, axis));
			have = true;
			continue;
		}
		if (ti.ndims != shape->ndims)
			return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
					 "tensors[%llu] has %u dims; tensors before it have %u",
					 (unsigned long long)i, ti.ndims, shape->ndims);
		for (d = 0; d < ti.ndims; d++)
			if (d != *axis && ti.dims[d] != shape->dims[d])
				return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
						 "tensors[%llu]'s dim %u is %lld; expected %lld",
						 (unsigned long long)i, d, (long long)ti.dims[d],
						 (long long)shape->dims[d]);
		shape->dims[*axis] += ti.dims[*axis];
	}
	if (!have) {
		shape->ndims = 1;
		shape->dims[0] = 0;
		*axis = 0;
	}
	return ACLNN_SUCCESS;
}

static aclnnStatus cat_build(struct opnn *o, const aclTensorList *tensors, int64_t dim,
			     const aclTensor *out)
{
	struct nnop_tensor_info shape;
	uint64_t n, i;
	unsigned int axis = 0;
	struct nnop_view y;
	int64_t at = 0;
	int first, named;

	if (!tensors)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_NULLPTR, "tensors is NULL");
	n = nnop_tensor_list_size(tensors);
	if (!n)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "tensors is empty");
	OPNN_TRY(opnn_check_tensor(o, out, "out", OPNN_ALL_CARD));
	OPNN_TRY(cat_shape(o, tensors, dim, &shape, &axis));
	OPNN_TRY(opnn_check_dims(o, out, "out", shape.ndims, shape.dims));
	named = nnop_executor_input_list(o->x, tensors, &first);
	if (named < 0)
		return -named;
	OPNN_TRY(opnn_output(o, out, &y));
	for (i = 0; i < n; i++) {
		const aclTensor *t = nnop_tensor_list_at(tensors, i);
		struct nnop_tensor_info ti;
		struct nnop_view x = nnop_view_of(o->x, first + (int)i), part = y;

		nnop_tensor_info(t, &ti);
		if (cat_skipped(&ti) || !ti.nelems)
			continue;
		nnop_view_narrow(&part, axis, at, ti.dims[axis], 1);
		at += ti.dims[axis];
		OPNN_TRY(opnn_copy(o, &x, &part));
	}
	return ACLNN_SUCCESS;
}

aclnnStatus aclnnCatGetWorkspaceSize(const aclTensorList *tensors, int64_t dim, aclTensor *out,
				     uint64_t *workspaceSize, aclOpExecutor **executor)
{
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, __func__, "Cat"));
	return opnn_end(&o, cat_build(&o, tensors, dim, out), workspaceSize, executor);
}

OPNN_LAUNCH(Cat)

/* ---- Repeat, RepeatInterleave -------------------------------------------- */

/*
 * Tiling as a copy: out's axis of r * k elements is seen as two, (r, k)
 * with strides (k * s, s), and x's as (r, k) with strides (0, s'), so each
 * of the r tiles reads x again.  An axis of x of one element only needs
 * stride 0; an axis repeated once stays as it is.
 */
struct tiling {
	struct nnop_view x, y;
};

static void tiling_push(struct tiling *t, int64_t dim, int64_t xs, int64_t ys)
{
	t->x.dims[t->x.ndims] = dim;
	t->x.strides[t->x.ndims++] = xs;
	t->y.dims[t->y.ndims] = dim;
	t->y.strides[t->y.ndims++] = ys;
}

static aclnnStatus tiling_check(struct opnn *o, unsigned int more)
{
	if (more > NNOP_MAX_DIMS)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "the repeat needs %u axes on the card; it takes %u", more,
				 NNOP_MAX_DIMS);
	return ACLNN_SUCCESS;
}

static aclnnStatus repeat_copy(struct opnn *o, const struct nnop_view *x,
			       const struct nnop_view *y, const int64_t *reps)
{
	struct tiling t = { *x, *y };
	unsigned int d, n = 0;

	for (d = 0; d < x->ndims; d++)
		n += reps[d] > 1 && x->dims[d] > 1 ? 2 : 1;
	OPNN_TRY(tiling_check(o, n));
	t.x.ndims = 0;
	t.y.ndims = 0;
	for (d = 0; d < x->ndims; d++) {
		if (reps[d] > 1 && x->dims[d] > 1)
			tiling_push(&t, reps[d], 0, x->dims[d] * y->strides[d]);
		if (x->dims[d] == 1)
			tiling_push(&t, y->dims[d], 0, y->strides[d]);
		else
			tiling_push(&t, x->dims[d], x->strides[d], y->strides[d]);
	}
	return opnn_copy(o, &t.x, &t.y);
}

static aclnnStatus repeat_build(struct opnn *o, const aclTensor *self, const aclIntArray *repeats,
				const aclTensor *out)
{
	int64_t want[NNOP_MAX_DIMS];
	struct nnop_tensor_info si;
	struct nnop_view x, y;
	const int64_t *reps;
	unsigned int n, d;

	OPNN_TRY(opnn_check_tensor(o, self, "self", OPNN_ALL_CARD));
	OPNN_TRY(opnn_check_tensor(o, out, "out", OPNN_ALL_CARD));
	OPNN_TRY(opnn_check_same_dtype(o, self, "self", out, "out"));
	if (!repeats)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_NULLPTR, "repeats is NULL");
	nnop_tensor_info(self, &si);
	n = (unsigned int)nnop_int_array_size(repeats);
	reps = nnop_int_array_data(repeats);
	if (nnop_int_array_size(repeats) < si.ndims || n > NNOP_MAX_DIMS)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "repeats has %llu entries; it needs %u to %u for self's %u dims",
				 (unsigned long long)nnop_int_array_size(repeats), si.ndims,
				 NNOP_MAX_DIMS, si.ndims);
	OPNN_TRY(opnn_input(o, self, &x));
	OPNN_TRY(opnn_output(o, out, &y));
	nnop_view_align(&x, n);
	for (d = 0; d < n; d++) {
		if (reps[d] < 0)
			return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
					 "repeats[%u] is %lld; repeats are not negative", d,
					 (long long)reps[d]);
		want[d] = x.dims[d] * reps[d];
	}
	OPNN_TRY(opnn_check_dims(o, out, "out", n, want));
	if (!opnn_view_nelems(&y))
		return ACLNN_SUCCESS;
	return repeat_copy(o, &x, &y, reps);
}

aclnnStatus aclnnRepeatGetWorkspaceSize(const aclTensor *self, const aclIntArray *repeats,
					aclTensor *out, uint64_t *workspaceSize,
					aclOpExecutor **executor)
{
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, __func__, "Repeat"));
	return opnn_end(&o, repeat_build(&o, self, repeats, out), workspaceSize, executor);
}

OPNN_LAUNCH(Repeat)

/* x as one axis: a dense copy first unless it already is one. */
static aclnnStatus flatten(struct opnn *o, struct nnop_view *x)
{
	int64_t n = opnn_view_nelems(x);

	if (!opnn_view_contiguous(x))
		OPNN_TRY(opnn_to_work(o, x, x->card_dtype));
	x->ndims = 1;
	x->dims[0] = n;
	x->strides[0] = 1;
	return ACLNN_SUCCESS;
}

/* Each element along axis r times: out's axis as (k, r) strides (r * s, s), x's (k, r) strides (s', 0). */
static aclnnStatus interleave_copy(struct opnn *o, const struct nnop_view *x,
				   const struct nnop_view *y, unsigned int axis, int64_t r)
{
	struct tiling t = { *x, *y };
	unsigned int d;

	OPNN_TRY(tiling_check(o, x->ndims + 1));
	t.x.ndims = 0;
	t.y.ndims = 0;
	for (d = 0; d < x->ndims; d++) {
		if (d != axis) {
			tiling_push(&t, x->dims[d], x->strides[d], y->strides[d]);
			continue;
		}
		tiling_push(&t, x->dims[d], x->strides[d], r * y->strides[d]);
		tiling_push(&t, r, 0, y->strides[d]);
	}
	return opnn_copy(o, &t.x, &t.y);
}

static aclnnStatus interleave_build(struct opnn *o, const aclTensor *self, int64_t repeats,
				    const int64_t *dim, int64_t output_size, const aclTensor *out)
{
	int64_t want[NNOP_MAX_DIMS];
	struct nnop_tensor_info si;
	struct nnop_view x, y;
	unsigned int axis = 0;

	OPNN_TRY(opnn_check_tensor(o, self, "self", OPNN_ALL_CARD));
	OPNN_TRY(opnn_check_tensor(o, out, "out", OPNN_ALL_CARD));
	OPNN_TRY(opnn_check_same_dtype(o, self, "self", out, "out"));
	if (repeats < 0)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "repeats %lld is negative",
				 (long long)repeats);
	nnop_tensor_info(self, &si);
	OPNN_TRY(opnn_input(o, self, &x));
	OPNN_TRY(opnn_output(o, out, &y));
	if (dim)
		OPNN_TRY(opnn_axis(o, *dim, si.ndims, &axis));
	else
		OPNN_TRY(flatten(o, &x));
	nnop_view_align(&x, 1);
	memcpy(want, x.dims, sizeof(want));
	want[axis] = x.dims[axis] * repeats;
	if (output_size > 0 && output_size != want[axis])
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "outputSize is %lld but the repeat gives %lld",
				 (long long)output_size, (long long)want[axis]);
	OPNN_TRY(opnn_check_dims(o, out, "out", x.ndims, want));
	if (!want[axis] || !si.nelems)
		return ACLNN_SUCCESS;
	nnop_view_align(&y, x.ndims);
	return interleave_copy(o, &x, &y, axis, repeats);
}

aclnnStatus aclnnRepeatInterleaveIntWithDimGetWorkspaceSize(const aclTensor *self, int64_t repeats,
							    int64_t dim, int64_t outputSize,
							    aclTensor *out, uint64_t *workspaceSize,
							    aclOpExecutor **executor)
{
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, __func__, "RepeatInterleaveIntWithDim"));
	return opnn_end(&o, interleave_build(&o, self, repeats, &dim, outputSize, out),
			workspaceSize, executor);
}

OPNN_LAUNCH(RepeatInterleaveIntWithDim)

aclnnStatus aclnnRepeatInterleaveIntGetWorkspaceSize(const aclTensor *self, int64_t repeats,
						     int64_t outputSize, aclTensor *out,
						     uint64_t *workspaceSize,
						     aclOpExecutor **executor)
{
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, __func__, "RepeatInterleaveInt"));
	return opnn_end(&o, interleave_build(&o, self, repeats, NULL, outputSize, out),
			workspaceSize, executor);
}

OPNN_LAUNCH(RepeatInterleaveInt)

/*
 * Repeats held in a device tensor are known only when the card runs, but
 * the output's shape and the copies are fixed here: not supported.
 */
static aclnnStatus interleave_tensor_unsupported(const char *fn)
{
	return nnop_fail(fn, ACLNN_ERR_PARAM_INVALID,
			 "repeats in a device tensor are not supported; pass them as an integer "
			 "(aclnnRepeatInterleaveInt, aclnnRepeatInterleaveIntWithDim)");
}

aclnnStatus aclnnRepeatInterleaveGetWorkspaceSize(const aclTensor *self, const aclTensor *repeats,
						  int64_t outputSize, aclTensor *out,
						  uint64_t *workspaceSize, aclOpExecutor **executor)
{
	(void)self, (void)repeats, (void)outputSize, (void)out, (void)workspaceSize;
	(void)executor;
	return interleave_tensor_unsupported(__func__);
}

OPNN_LAUNCH(RepeatInterleave)

aclnnStatus aclnnRepeatInterleaveWithDimGetWorkspaceSize(const aclTensor *self,
							 const aclTensor *repeats, int64_t dim,
							 int64_t outputSize, aclTensor *out,
							 uint64_t *workspaceSize,
							 aclOpExecutor **executor)
{
	(void)self, (void)repeats, (void)dim, (void)outputSize, (void)out;
	(void)workspaceSize, (void)executor;
	return interleave_tensor_unsupported(__func__);
}

OPNN_LAUNCH(RepeatInterleaveWithDim)

aclnnStatus aclnnRepeatInterleaveTensorGetWorkspaceSize(const aclTensor *repeats,
							int64_t outputSize, aclTensor *out,
							uint64_t *workspaceSize,
							aclOpExecutor **executor)
{
	(void)repeats, (void)outputSize, (void)out, (void)workspaceSize, (void)executor;
	return interleave_tensor_unsupported(__func__);
}

OPNN_LAUNCH(RepeatInterleaveTensor)

/* ---- ConstantPadNd, ReflectionPad1d/2d ----------------------------------- */

/*
 * pad lists (begin, end) pairs from the last axis backwards, as PyTorch's
 * F.pad; a negative pad crops.  Fills begin[d] and end[d] for every axis.
 */
static aclnnStatus pads_decode(struct opnn *o, const aclIntArray *pad, unsigned int ndims,
			       const int64_t *dims, int64_t *begin, int64_t *end, int64_t *out)
{
	uint64_t n = nnop_int_array_size(pad), i;
	const int64_t *p = nnop_int_array_data(pad);
	unsigned int d;

	if (n % 2 || n / 2 > ndims)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "pad has %llu entries; it needs an even number, at most %u",
				 (unsigned long long)n, 2 * ndims);
	for (d = 0; d < ndims; d++)
		begin[d] = end[d] = 0;
	for (i = 0; i < n / 2; i++) {
		d = ndims - 1 - (unsigned int)i;
		begin[d] = p[2 * i];
		end[d] = p[2 * i + 1];
	}
	for (d = 0; d < ndims; d++) {
		out[d] = dims[d] + begin[d] + end[d];
		if (out[d] < 0)
			return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
					 "the pads of dim %u crop more than its %lld elements", d,
					 (long long)dims[d]);
	}
	return ACLNN_SUCCESS;
}

/* The card's PAD: value where out grew, x where it stays, nothing where x was cropped. */
static aclnnStatus pad_op(struct opnn *o, unsigned int mode, double value, unsigned int ndims,
			  const int64_t *begin, const int64_t *end, const struct nnop_view *v)
{
	struct npu_attr_pad attr = { 0 };
	unsigned int d;

	attr.mode = htole32(mode);
	attr.value = mode == NPU_PAD_CONSTANT ? opnn_f32_bits(value) : 0;
	for (d = 0; d < ndims; d++) {
		attr.begin[d] = htole32((uint32_t)begin[d]);
		attr.end[d] = htole32((uint32_t)end[d]);
	}
	return opnn_add(o, NPU_OPERATOR_PAD, &attr, sizeof(attr), 1, v);
}

/*
 * The card's PAD carries its value as a float32; one that float32 would
 * round (a double's low bits, an int64 past 2^24) is written exactly
 * instead: FILL, which carries a double, then x copied into its place.
 */
static bool pad_value_is_f32(const aclScalar *value, int card_dtype)
{
	double v = nnop_scalar_f64(value);

	/* the half types and float32 hold no more than float32 does */
	if (card_dtype == NPU_DTYPE_F32 || card_dtype == NPU_DTYPE_F16 ||
	    card_dtype == NPU_DTYPE_BF16)
		return true;
	if (card_dtype == NPU_DTYPE_S64 && nnop_dtype_is_int(nnop_scalar_acl_dtype(value))) {
		int64_t i = nnop_scalar_s64(value);
		float f = (float)i;

		/* 2^63 is the first float past int64 */
		return f >= -0x1p63f && f < 0x1p63f && (int64_t)f == i;
	}
	return isnan(v) || (double)(float)v == v;
}

/*
 * y all value: an int64 past double's 2^53 as its high half filled, times
 * 2^32, plus its low half, all exact in the card's int64 arithmetic.
 */
static aclnnStatus pad_fill_exact(struct opnn *o, const aclScalar *value,
				  const struct nnop_view *y)
{
	int64_t i = nnop_scalar_s64(value);

	if (y->card_dtype != NPU_DTYPE_S64 || !nnop_dtype_is_int(nnop_scalar_acl_dtype(value)) ||
	    (i >= -(1LL << 53) && i <= 1LL << 53))
		return opnn_fill(o, y, nnop_scalar_f64(value));
	OPNN_TRY(opnn_fill(o, y, (double)(i >> 32)));
	OPNN_TRY(opnn_binary_scalar(o, NPU_BINARY_MUL, y, 0x1p32, y));
	return opnn_binary_scalar(o, NPU_BINARY_ADD, y, (double)(i & 0xffffffff), y);
}

/* y filled exactly, then the part of x that stays copied where it lands. */
static aclnnStatus pad_exact(struct opnn *o, const aclScalar *value, unsigned int ndims,
			     const int64_t *begin, const int64_t *end, const struct nnop_view *v)
{
	struct nnop_view x = v[0], y = v[1];
	unsigned int d;

	OPNN_TRY(pad_fill_exact(o, value, &v[1]));
	for (d = 0; d < ndims; d++) {
		int64_t keep = x.dims[d] + (begin[d] < 0 ? begin[d] : 0) + (end[d] < 0 ? end[d] : 0);

		if (keep <= 0)
			return ACLNN_SUCCESS;
		nnop_view_narrow(&x, d, begin[d] < 0 ? -begin[d] : 0, keep, 1);
		nnop_view_narrow(&y, d, begin[d] > 0 ? begin[d] : 0, keep, 1);
	}
	return opnn_copy(o, &x, &y);
}

static aclnnStatus constant_pad_build(struct opnn *o, const aclTensor *self,
				      const aclIntArray *pad, const aclScalar *value,
				      const aclTensor *out)
{
	int64_t begin[NNOP_MAX_DIMS], end[NNOP_MAX_DIMS], want[NNOP_MAX_DIMS];
	struct nnop_tensor_info si;
	struct nnop_view v[2];

	OPNN_TRY(opnn_check_tensor(o, self, "self", OPNN_ALL_CARD));
	OPNN_TRY(opnn_check_tensor(o, out, "out", OPNN_ALL_CARD));
	OPNN_TRY(opnn_check_same_dtype(o, self, "self", out, "out"));
	if (!pad)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_NULLPTR, "pad is NULL");
	if (!value)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_NULLPTR, "value is NULL");
	nnop_tensor_info(self, &si);
	OPNN_TRY(pads_decode(o, pad, si.ndims, si.dims, begin, end, want));
	OPNN_TRY(opnn_check_dims(o, out, "out", si.ndims, want));
	OPNN_TRY(opnn_input(o, self, &v[0]));
	OPNN_TRY(opnn_output(o, out, &v[1]));
	if (!opnn_view_nelems(&v[1]))
		return ACLNN_SUCCESS;
	if (!si.nelems)
		return pad_fill_exact(o, value, &v[1]);
	if (!pad_value_is_f32(value, v[1].card_dtype))
		return pad_exact(o, value, si.ndims, begin, end, v);
	return pad_op(o, NPU_PAD_CONSTANT, nnop_scalar_f64(value), si.ndims, begin, end, v);
}

aclnnStatus aclnnConstantPadNdGetWorkspaceSize(const aclTensor *self, const aclIntArray *pad,
					       const aclScalar *value, aclTensor *out,
					       uint64_t *workspaceSize, aclOpExecutor **executor)
{
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, __func__, "ConstantPadNd"));
	return opnn_end(&o, constant_pad_build(&o, self, pad, value, out), workspaceSize,
			executor);
}

OPNN_LAUNCH(ConstantPadNd)

/* Reflection over the last `axes` axes of a tensor of min_rank or min_rank + 1 dims. */
static aclnnStatus reflection_build(struct opnn *o, const aclTensor *self,
				    const aclIntArray *padding, const aclTensor *out,
				    unsigned int axes)
{
	int64_t begin[NNOP_MAX_DIMS], end[NNOP_MAX_DIMS], want[NNOP_MAX_DIMS];
	struct nnop_tensor_info si;
	struct nnop_view v[2];
	unsigned int d;

	OPNN_TRY(opnn_check_tensor(o, self, "self", OPNN_FLOATS | OPNN_INTS));
	OPNN_TRY(opnn_check_tensor(o, out, "out", OPNN_FLOATS | OPNN_INTS));
	OPNN_TRY(opnn_check_same_dtype(o, self, "self", out, "out"));
	OPNN_TRY(opnn_check_rank(o, self, "self", axes + 1, axes + 2));
	if (!padding)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_NULLPTR, "padding is NULL");
	if (nnop_int_array_size(padding) != 2 * axes)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "padding has %llu entries; expected %u",
				 (unsigned long long)nnop_int_array_size(padding), 2 * axes);
	nnop_tensor_info(self, &si);
	OPNN_TRY(pads_decode(o, padding, si.ndims, si.dims, begin, end, want));
	for (d = si.ndims - axes; d < si.ndims; d++)
		if (begin[d] < 0 || end[d] < 0 || begin[d] >= si.dims[d] || end[d] >= si.dims[d])
			return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
					 "padding (%lld, %lld) of dim %u: each must be in [0, %lld)",
					 (long long)begin[d], (long long)end[d], d,
					 (long long)si.dims[d]);
	OPNN_TRY(opnn_check_dims(o, out, "out", si.ndims, want));
	OPNN_TRY(opnn_input(o, self, &v[0]));
	OPNN_TRY(opnn_output(o, out, &v[1]));
	if (!si.nelems)
		return ACLNN_SUCCESS;
	return pad_op(o, NPU_PAD_REFLECT, 0, si.ndims, begin, end, v);
}

aclnnStatus aclnnReflectionPad1dGetWorkspaceSize(const aclTensor *self, const aclIntArray *padding,
						 aclTensor *out, uint64_t *workspaceSize,
						 aclOpExecutor **executor)
{
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, __func__, "ReflectionPad1d"));
	return opnn_end(&o, reflection_build(&o, self, padding, out, 1), workspaceSize, executor);
}

OPNN_LAUNCH(ReflectionPad1d)

aclnnStatus aclnnReflectionPad2dGetWorkspaceSize(const aclTensor *self, const aclIntArray *padding,
						 aclTensor *out, uint64_t *workspaceSize,
						 aclOpExecutor **executor)
{
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, __func__, "ReflectionPad2d"));
	return opnn_end(&o, reflection_build(&o, self, padding, out, 2), workspaceSize, executor);
}

OPNN_LAUNCH(ReflectionPad2d)

/* ---- UpsampleNearest2d, UpsampleBilinear2d ------------------------------- */

struct upsample {
	unsigned int mode, coord, nearest;
	double scales[2];		/* 0: out / in */
};

static aclnnStatus upsample_build(struct opnn *o, const aclTensor *self,
				  const aclIntArray *output_size, const aclTensor *out,
				  const struct upsample *how)
{
	struct npu_attr_resize attr = { 0 };
	struct nnop_tensor_info si;
	struct nnop_view v[2];
	int64_t want[4];
	unsigned int d;

	OPNN_TRY(opnn_check_tensor(o, self, "self", OPNN_FLOATS));
	OPNN_TRY(opnn_check_tensor(o, out, "out", OPNN_FLOATS));
	OPNN_TRY(opnn_check_same_dtype(o, self, "self", out, "out"));
	OPNN_TRY(opnn_check_rank(o, self, "self", 4, 4));
	if (!output_size)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_NULLPTR, "outputSize is NULL");
	if (nnop_int_array_size(output_size) != 2)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "outputSize has %llu entries; expected 2",
				 (unsigned long long)nnop_int_array_size(output_size));
	nnop_tensor_info(self, &si);
	memcpy(want, si.dims, sizeof(want));
	want[2] = nnop_int_array_data(output_size)[0];
	want[3] = nnop_int_array_data(output_size)[1];
	if (want[2] <= 0 || want[3] <= 0 || si.dims[2] <= 0 || si.dims[3] <= 0)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "input (%lld x %lld) and output (%lld x %lld) sizes must be positive",
				 (long long)si.dims[2], (long long)si.dims[3], (long long)want[2],
				 (long long)want[3]);
	OPNN_TRY(opnn_check_dims(o, out, "out", 4, want));
	OPNN_TRY(opnn_input(o, self, &v[0]));
	OPNN_TRY(opnn_output(o, out, &v[1]));
	if (!si.nelems)
		return ACLNN_SUCCESS;
	attr.mode = htole32(how->mode);
	attr.coord = htole32(how->coord);
	attr.nearest = htole32(how->nearest);
	for (d = 0; d < 4; d++) {
		double scale = (double)want[d] / (double)si.dims[d];

		if (d >= 2 && how->scales[d - 2] > 0)
			scale = how->scales[d - 2];
		attr.scales[d] = opnn_f32_bits(scale);
	}
	return opnn_add(o, NPU_OPERATOR_RESIZE, &attr, sizeof(attr), 1, v);
}

aclnnStatus aclnnUpsampleNearest2dGetWorkspaceSize(const aclTensor *self,
						   const aclIntArray *outputSize, aclTensor *out,
						   uint64_t *workspaceSize,
						   aclOpExecutor **executor)
{
	/* PyTorch's nearest: source index floor(i * in / out) */
	const struct upsample how = { NPU_RESIZE_NEAREST, NPU_RESIZE_ASYMMETRIC,
				      NPU_RESIZE_FLOOR, { 0, 0 } };
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, __func__, "UpsampleNearest2d"));
	return opnn_end(&o, upsample_build(&o, self, outputSize, out, &how), workspaceSize,
			executor);
}

OPNN_LAUNCH(UpsampleNearest2d)

aclnnStatus aclnnUpsampleBilinear2dGetWorkspaceSize(const aclTensor *self,
						    const aclIntArray *outputSize,
						    const bool alignCorners, const double scalesH,
						    const double scalesW, aclTensor *out,
						    uint64_t *workspaceSize,
						    aclOpExecutor **executor)
{
	struct upsample how = { NPU_RESIZE_LINEAR, NPU_RESIZE_PYTORCH_HALF_PIXEL, 0,
				{ scalesH, scalesW } };
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	if (alignCorners) {
		/* aligned corners map by the sizes alone */
		how.coord = NPU_RESIZE_ALIGN_CORNERS;
		how.scales[0] = how.scales[1] = 0;
	}
	OPNN_TRY(opnn_begin(&o, __func__, "UpsampleBilinear2d"));
	return opnn_end(&o, upsample_build(&o, self, outputSize, out, &how), workspaceSize,
			executor);
}

OPNN_LAUNCH(UpsampleBilinear2d)
