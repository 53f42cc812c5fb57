// SPDX-License-Identifier: MIT
/*
 * Reductions: ReduceSum, Mean, Amax, Amin, Prod and Norm, each one REDUCE
 * of the card (Norm's unusual orders composed of elementwise operators
 * around a sum).  Each takes the types its vendor doc lists that the card
 * has; the card sums integers exactly, in int64, and DOUBLE in double.  The card's REDUCE keeps x's rank with dims of 1 on the reduced
 * axes, which is keepDim's shape; without keepDim the output is seen with
 * those dims of 1 put back, so the same operator writes it.
 */
#include <endian.h>
#include <math.h>

#include "aclnnop/aclnn_amax.h"
#include "aclnnop/aclnn_amin.h"
#include "aclnnop/aclnn_mean.h"
#include "aclnnop/aclnn_norm.h"
#include "aclnnop/aclnn_prod.h"
#include "aclnnop/aclnn_reduce_sum.h"
#include "opnn.h"

/* What a reduction does with an axis of no elements. */
enum reduce_empty {
	REDUCE_EMPTY_ZERO,		/* sums: 0 */
	REDUCE_EMPTY_NAN,		/* means: 0 / 0 */
	REDUCE_EMPTY_ONE,		/* products: 1 */
	REDUCE_EMPTY_FAILS,		/* max and min have no identity */
};

struct reduce_req {
	const aclTensor *self;
	const aclIntArray *dims;
	bool keep;
	int dtype;			/* out's type; ACL_DT_UNDEFINED: self's */
	const aclTensor *out;
	unsigned int kind;		/* enum npu_reduce_kind */
	enum reduce_empty empty;
	bool noop_without_axes;		/* MeanV2: no dims copies self */
	uint64_t types;			/* self's and out's, OPNN_DT() bits */
};

/* The types of the vendor's docs the card has: Mean's lack BOOL, Norm's are the floats. */
#define REDUCE_ALL		OPNN_ALL_CARD
#define REDUCE_NUMBERS		(OPNN_FLOATS | OPNN_INTS | OPNN_DT(ACL_DOUBLE))

/* The axes in dims as a mask; none listed: every axis. */
static aclnnStatus reduce_mask(struct opnn *o, const aclIntArray *dims, unsigned int ndims,
			       uint32_t *mask)
{
	uint64_t n = dims ? nnop_int_array_size(dims) : 0, i;
	unsigned int axis = 0;

	*mask = 0;
	if (!n) {
		*mask = ndims ? (1u << ndims) - 1 : 0;
		return ACLNN_SUCCESS;
	}
	for (i = 0; i < n; i++) {
		OPNN_TRY(opnn_axis(o, nnop_int_array_data(dims)[i], ndims, &axis));
		if (*mask & (1u << axis))
			return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "dim lists axis %u twice", axis);
		*mask |= 1u << axis;
	}
	if (!ndims)
		*mask = 0;
	return ACLNN_SUCCESS;
}

static aclnnStatus reduce_out_shape(struct opnn *o, const struct reduce_req *r,
				    const struct nnop_tensor_info *si, uint32_t mask)
{
	int64_t want[NNOP_MAX_DIMS];
	unsigned int d, n = 0;

	for (d = 0; d < si->ndims; d++) {
		if (!(mask & (1u << d)))
			want[n++] = si->dims[d];
		else if (r->keep)
			want[n++] = 1;
	}
	if (!n && r->out) {
		struct nnop_tensor_info oi;

		/* ggml's CANN backend gives a whole-tensor sum a 1-element out */
		nnop_tensor_info(r->out, &oi);
		if (oi.ndims == 1 && oi.nelems == 1)
			return ACLNN_SUCCESS;
	}
	return opnn_check_dims(o, r->out, "out", n, want);
}

/* y from an x with no elements. */
static aclnnStatus reduce_empty(struct opnn *o, const struct reduce_req *r,
				const struct nnop_view *y)
{
	if (r->empty == REDUCE_EMPTY_FAILS)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "self is empty on a reduced axis; the reduction has no value");
	return opnn_fill(o, y, r->empty == REDUCE_EMPTY_ZERO ? 0.0 :
			       r->empty == REDUCE_EMPTY_ONE ? 1.0 : NAN);
}

/*
 * Builds the views and checks of a reduction; *x and *y are what the card
 * reduces (y with x's rank), *mask its axes.  *done: nothing to compute.
 */
static aclnnStatus reduce_prepare(struct opnn *o, const struct reduce_req *r,
				  struct nnop_view *x, struct nnop_view *y, uint32_t *mask,
				  bool *done)
{
	struct nnop_tensor_info si, oi;
	unsigned int d;

	*done = true;
	OPNN_TRY(opnn_check_tensor(o, r->self, "self", r->types));
	OPNN_TRY(opnn_check_tensor(o, r->out, "out", r->types));
	nnop_tensor_info(r->self, &si);
	nnop_tensor_info(r->out, &oi);
	if (oi.acl_dtype != (r->dtype == ACL_DT_UNDEFINED ? si.acl_dtype : r->dtype))
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "out is %s; expected %s",
				 nnop_dtype_name(oi.acl_dtype),
				 nnop_dtype_name(r->dtype == ACL_DT_UNDEFINED ? si.acl_dtype :
						 r->dtype));
	OPNN_TRY(reduce_mask(o, r->dims, si.ndims, mask));
	if (r->noop_without_axes && (!r->dims || !nnop_int_array_size(r->dims)))
		*mask = 0;
	OPNN_TRY(reduce_out_shape(o, r, &si, *mask));
	OPNN_TRY(opnn_input(o, r->self, x));
	OPNN_TRY(opnn_output(o, r->out, y));
	if (!r->keep && si.ndims && oi.ndims == 1 && *mask == (1u << si.ndims) - 1)
		nnop_view_squeeze(y, 0);	/* the 1-element out of a scalar result */
	if (!r->keep)
		for (d = 0; d < si.ndims; d++)
			if (*mask & (1u << d))
				nnop_view_unsqueeze(y, d);
	if (!opnn_view_nelems(y))
		return ACLNN_SUCCESS;
	if (!si.nelems)
		return reduce_empty(o, r, y);
	if (x->card_dtype != y->card_dtype)
		OPNN_TRY(opnn_to_work(o, x, y->card_dtype));
	*done = false;
	return ACLNN_SUCCESS;
}

static aclnnStatus reduce_build(struct opnn *o, const struct reduce_req *r)
{
	struct nnop_view x, y;
	uint32_t mask = 0;
	bool done = true;

	OPNN_TRY(reduce_prepare(o, r, &x, &y, &mask, &done));
	if (done)
		return ACLNN_SUCCESS;
	if (!mask)
		return opnn_copy(o, &x, &y);
	return opnn_reduce(o, r->kind, mask, &x, &y);
}

static aclnnStatus reduce_op(const char *fn, const char *name, const struct reduce_req *r,
			     uint64_t *workspace_size, aclOpExecutor **executor)
{
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspace_size);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, fn, name));
	return opnn_end(&o, reduce_build(&o, r), workspace_size, executor);
}

aclnnStatus aclnnReduceSumGetWorkspaceSize(const aclTensor *self, const aclIntArray *dims,
					   bool keepDims, aclDataType dtype, aclTensor *out,
					   uint64_t *workspaceSize, aclOpExecutor **executor)
{
	const struct reduce_req r = { self, dims, keepDims, dtype, out, NPU_REDUCE_SUM,
				      REDUCE_EMPTY_ZERO, false, REDUCE_ALL };

	return reduce_op(__func__, "ReduceSum", &r, workspaceSize, executor);
}

OPNN_LAUNCH(ReduceSum)

aclnnStatus aclnnMeanGetWorkspaceSize(const aclTensor *self, const aclIntArray *dim, bool keepDim,
				      aclDataType dtype, aclTensor *out, uint64_t *workspaceSize,
				      aclOpExecutor **executor)
{
	const struct reduce_req r = { self, dim, keepDim, dtype, out, NPU_REDUCE_MEAN,
				      REDUCE_EMPTY_NAN, false, REDUCE_NUMBERS };

	return reduce_op(__func__, "Mean", &r, workspaceSize, executor);
}

OPNN_LAUNCH(Mean)

aclnnStatus aclnnMeanV2GetWorkspaceSize(const aclTensor *self, const aclIntArray *dim,
					bool keepDim, bool noopWithEmptyAxes, aclTensor *out,
					uint64_t *workspaceSize, aclOpExecutor **executor)
{
	const struct reduce_req r = { self, dim, keepDim, ACL_DT_UNDEFINED, out,
				      NPU_REDUCE_MEAN, REDUCE_EMPTY_NAN, noopWithEmptyAxes,
				      REDUCE_NUMBERS };

	return reduce_op(__func__, "MeanV2", &r, workspaceSize, executor);
}

OPNN_LAUNCH(MeanV2)

aclnnStatus aclnnAmaxGetWorkspaceSize(const aclTensor *self, const aclIntArray *dim, bool keepDim,
				      aclTensor *out, uint64_t *workspaceSize,
				      aclOpExecutor **executor)
{
	const struct reduce_req r = { self, dim, keepDim, ACL_DT_UNDEFINED, out, NPU_REDUCE_MAX,
				      REDUCE_EMPTY_FAILS, false, REDUCE_ALL };

	return reduce_op(__func__, "Amax", &r, workspaceSize, executor);
}

OPNN_LAUNCH(Amax)

aclnnStatus aclnnAminGetWorkspaceSize(const aclTensor *self, const aclIntArray *dim, bool keepDim,
				      aclTensor *out, uint64_t *workspaceSize,
				      aclOpExecutor **executor)
{
	const struct reduce_req r = { self, dim, keepDim, ACL_DT_UNDEFINED, out, NPU_REDUCE_MIN,
				      REDUCE_EMPTY_FAILS, false, REDUCE_ALL };

	return reduce_op(__func__, "Amin", &r, workspaceSize, executor);
}

OPNN_LAUNCH(Amin)

/* The product of all of self, or over one axis; empty: 1. */
aclnnStatus aclnnProdGetWorkspaceSize(const aclTensor *self, const aclDataType dtype,
				      aclTensor *out, uint64_t *workspaceSize,
				      aclOpExecutor **executor)
{
	const struct reduce_req r = { self, NULL, false, dtype, out, NPU_REDUCE_PROD,
				      REDUCE_EMPTY_ONE, false, REDUCE_ALL };

	return reduce_op(__func__, "Prod", &r, workspaceSize, executor);
}

OPNN_LAUNCH(Prod)

aclnnStatus aclnnProdDimGetWorkspaceSize(const aclTensor *self, int64_t dim, bool keepDim,
					 const aclDataType dtype, aclTensor *out,
					 uint64_t *workspaceSize, aclOpExecutor **executor)
{
	aclIntArray *dims = aclCreateIntArray(&dim, 1);
	const struct reduce_req r = { self, dims, keepDim, dtype, out, NPU_REDUCE_PROD,
				      REDUCE_EMPTY_ONE, false, REDUCE_ALL };
	aclnnStatus ret;

	if (!dims)
		return nnop_fail(__func__, ACLNN_ERR_INNER_NULLPTR, "out of memory");
	ret = reduce_op(__func__, "ProdDim", &r, workspaceSize, executor);
	aclDestroyIntArray(dims);
	return ret;
}

OPNN_LAUNCH(ProdDim)

/* ---- Norm ------------------------------------------------------------------ */

/* (sum |x|^p)^(1/p), and p = 0: the number of elements not 0. */
static aclnnStatus norm_general(struct opnn *o, double p, uint32_t mask, const struct nnop_view *x,
				const struct nnop_view *y)
{
	struct nnop_view t = opnn_work_like(o, x, x->card_dtype);

	if (p == 0) {
		OPNN_TRY(opnn_binary_scalar(o, NPU_BINARY_NE, x, 0.0, &t));
		return opnn_reduce(o, NPU_REDUCE_SUM, mask, &t, y);
	}
	OPNN_TRY(opnn_unary(o, NPU_UNARY_ABS, 0, 0, x, &t));
	OPNN_TRY(opnn_binary_scalar(o, NPU_BINARY_POW, &t, p, &t));
	OPNN_TRY(opnn_reduce(o, NPU_REDUCE_SUM, mask, &t, y));
	return opnn_binary_scalar(o, NPU_BINARY_POW, y, 1.0 / p, y);
}

/* max or min of |x| */
static aclnnStatus norm_extreme(struct opnn *o, unsigned int kind, uint32_t mask,
				const struct nnop_view *x, const struct nnop_view *y)
{
	struct nnop_view t = opnn_work_like(o, x, x->card_dtype);

	OPNN_TRY(opnn_unary(o, NPU_UNARY_ABS, 0, 0, x, &t));
	return opnn_reduce(o, kind, mask, &t, y);
}

static aclnnStatus norm_build(struct opnn *o, const struct reduce_req *r, const aclScalar *p_scalar)
{
	struct nnop_view x, y;
	uint32_t mask = 0;
	bool done = true;
	double p;

	if (!p_scalar)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_NULLPTR, "pScalar is NULL");
	p = nnop_scalar_f64(p_scalar);
	if (isnan(p) || p < 0)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "p = %g; the norm takes p >= 0 or infinity", p);
	OPNN_TRY(reduce_prepare(o, r, &x, &y, &mask, &done));
	if (done)
		return ACLNN_SUCCESS;
	if (isinf(p))
		return norm_extreme(o, p > 0 ? NPU_REDUCE_MAX : NPU_REDUCE_MIN, mask, &x, &y);
	if (p == 1)
		return opnn_reduce(o, NPU_REDUCE_L1, mask, &x, &y);
	if (p == 2)
		return opnn_reduce(o, NPU_REDUCE_L2, mask, &x, &y);
	return norm_general(o, p, mask, &x, &y);
}

aclnnStatus aclnnNormGetWorkspaceSize(const aclTensor *self, const aclScalar *pScalar,
				      const aclIntArray *dim, bool keepdim, aclTensor *out,
				      uint64_t *workspaceSize, aclOpExecutor **executor)
{
	/* out may be wider than self (float16 in, float out) */
	struct reduce_req r = { self, dim, keepdim, ACL_DT_UNDEFINED, out, NPU_REDUCE_SUM,
				REDUCE_EMPTY_ZERO, false, OPNN_FLOATS };
	struct nnop_tensor_info oi;
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	if (out) {
		nnop_tensor_info(out, &oi);
		r.dtype = oi.acl_dtype;
	}
	OPNN_TRY(opnn_begin(&o, __func__, "Norm"));
	return opnn_end(&o, norm_build(&o, &r, pScalar), workspaceSize, executor);
}

OPNN_LAUNCH(Norm)
