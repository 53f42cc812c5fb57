// SPDX-License-Identifier: MIT
/*
 * Clamp and its ClampMin/ClampMax, Tensor and Inplace forms: BINARY MAX
 * with the lower bound, then MIN with the upper, so that integers stay
 * exact and a lower bound above the upper gives the upper, as PyTorch's.
 */
#include <string.h>

#include "elem.h"
#include "aclnnop/aclnn_clamp.h"

struct clamp_args {
	const aclTensor *self;
	const aclTensor *min_t, *max_t;		/* or, where NULL, */
	const aclScalar *min_s, *max_s;		/* these, or neither */
	const aclTensor *out;			/* self for the in-place forms */
};

static int clamp_dtype(const struct clamp_args *a)
{
	int dt = elem_acl_dtype(a->self);

	if (a->min_t)
		dt = nnop_promote(dt, elem_acl_dtype(a->min_t));
	if (a->max_t && dt != ACL_DT_UNDEFINED)
		dt = nnop_promote(dt, elem_acl_dtype(a->max_t));
	if (dt == ACL_DT_UNDEFINED || nnop_dtype_is_float(dt))
		return dt;
	if ((a->min_s && nnop_dtype_is_float(nnop_scalar_acl_dtype(a->min_s))) ||
	    (a->max_s && nnop_dtype_is_float(nnop_scalar_acl_dtype(a->max_s))))
		return ACL_FLOAT;
	return dt;
}

static aclnnStatus clamp_check_bound(const struct clamp_args *a, const aclTensor *bound,
				     const char *what)
{
	int64_t dims[NNOP_MAX_DIMS];
	struct nnop_tensor_info self;
	unsigned int ndims;
	aclnnStatus st;

	if (!bound)
		return ACLNN_SUCCESS;
	st = elem_check_dtype(bound, what, ELEM_FLOAT | ELEM_INT);
	if (!st)
		st = elem_broadcast(a->self, bound, dims, &ndims);
	if (st)
		return st;
	nnop_tensor_info(a->self, &self);
	if (ndims != self.ndims || memcmp(dims, self.dims, ndims * sizeof(*dims)))
		return ELEM_FAIL(ACLNN_ERR_PARAM_INVALID, "%s does not broadcast to self's shape",
				 what);
	return ACLNN_SUCCESS;
}

static aclnnStatus clamp_bound(aclOpExecutor *x, const aclTensor *t, const aclScalar *s, int dt,
			       unsigned int ndims, struct nnop_view *v)
{
	if (t)
		return elem_input(x, t, ndims, dt, v);
	return elem_scalar(x, nnop_scalar_f64(s), dt, ndims, v);
}

static aclnnStatus clamp_build(aclOpExecutor *x, const void *args)
{
	const struct clamp_args *a = args;
	bool has_min = a->min_t || a->min_s, has_max = a->max_t || a->max_s;
	struct nnop_view in, lo, hi, out, dst;
	unsigned int ndims = elem_ndims(a->self);
	int dt = clamp_dtype(a);
	aclnnStatus st;

	if (!has_min && !has_max)
		return ELEM_FAIL(ACLNN_ERR_PARAM_NULLPTR,
				 "clipValueMin and clipValueMax are both NULL");
	st = elem_check_dtype(a->self, "self", ELEM_FLOAT | ELEM_INT);
	if (!st)
		st = clamp_check_bound(a, a->min_t, "clipValueMin");
	if (!st)
		st = clamp_check_bound(a, a->max_t, "clipValueMax");
	if (!st && (dt == ACL_DT_UNDEFINED || nnop_card_dtype(dt) < 0))
		st = ELEM_FAIL(ACLNN_ERR_PARAM_INVALID, "self and the bounds have no common type");
	if (!st)
		st = elem_check_same_shape(a->out, "out", a->self);
	if (!st)
		st = elem_check_store(dt, a->out, "out");
	if (!st)
		st = elem_input(x, a->self, ndims, dt, &in);
	if (!st && has_min)
		st = clamp_bound(x, a->min_t, a->min_s, dt, ndims, &lo);
	if (!st && has_max)
		st = clamp_bound(x, a->max_t, a->max_s, dt, ndims, &hi);
	if (!st)
		st = elem_output(x, a->out, &out);
	if (st)
		return st;
	dst = elem_target(x, &out, dt);
	if (has_min) {
		/* an output slot is never read back: the lower bound's result goes to workspace */
		struct nnop_view raised = has_max ? elem_temp(x, &in, dt) : dst;

		st = opapi_binary(x, NPU_BINARY_MAX, &in, &lo, &raised);
		in = raised;
	}
	if (!st && has_max)
		st = opapi_binary(x, NPU_BINARY_MIN, &in, &hi, &dst);
	return st ? st : elem_store(x, &dst, &out);
}

static aclnnStatus clamp_run(const char *name, const struct clamp_args *a,
			     uint64_t *workspaceSize, aclOpExecutor **executor)
{
	return elem_run(name, clamp_build, a, workspaceSize, executor);
}

OPAPI_EXPORT aclnnStatus aclnnClampGetWorkspaceSize(const aclTensor *self,
						   const aclScalar *clipValueMin,
						   const aclScalar *clipValueMax, aclTensor *out,
						   uint64_t *workspaceSize,
						   aclOpExecutor **executor)
{
	struct clamp_args a = { .self = self, .min_s = clipValueMin, .max_s = clipValueMax,
				.out = out };

	NNOP_CHECK_NOTNULL(self);
	NNOP_CHECK_NOTNULL(out);
	return clamp_run("Clamp", &a, workspaceSize, executor);
}
ELEM_LAUNCHER(Clamp)

OPAPI_EXPORT aclnnStatus aclnnClampMinGetWorkspaceSize(const aclTensor *self,
						      const aclScalar *clipValueMin,
						      aclTensor *out, uint64_t *workspaceSize,
						      aclOpExecutor **executor)
{
	struct clamp_args a = { .self = self, .min_s = clipValueMin, .out = out };

	NNOP_CHECK_NOTNULL(self);
	NNOP_CHECK_NOTNULL(clipValueMin);
	NNOP_CHECK_NOTNULL(out);
	return clamp_run("ClampMin", &a, workspaceSize, executor);
}
ELEM_LAUNCHER(ClampMin)

OPAPI_EXPORT aclnnStatus aclnnClampMaxGetWorkspaceSize(const aclTensor *self,
						      const aclScalar *clipValueMax,
						      aclTensor *out, uint64_t *workspaceSize,
						      aclOpExecutor **executor)
{
	struct clamp_args a = { .self = self, .max_s = clipValueMax, .out = out };

	NNOP_CHECK_NOTNULL(self);
	NNOP_CHECK_NOTNULL(clipValueMax);
	NNOP_CHECK_NOTNULL(out);
	return clamp_run("ClampMax", &a, workspaceSize, executor);
}
ELEM_LAUNCHER(ClampMax)

OPAPI_EXPORT aclnnStatus aclnnInplaceClampMaxGetWorkspaceSize(const aclTensor *selfRef,
							     const aclScalar *clipValueMax,
							     uint64_t *workspaceSize,
							     aclOpExecutor **executor)
{
	struct clamp_args a = { .self = selfRef, .max_s = clipValueMax, .out = selfRef };

	NNOP_CHECK_NOTNULL(selfRef);
	NNOP_CHECK_NOTNULL(clipValueMax);
	return clamp_run("InplaceClampMax", &a, workspaceSize, executor);
}
ELEM_LAUNCHER(InplaceClampMax)

OPAPI_EXPORT aclnnStatus aclnnClampTensorGetWorkspaceSize(const aclTensor *self,
							 const aclTensor *clipValueMin,
							 const aclTensor *clipValueMax,
							 aclTensor *out, uint64_t *workspaceSize,
							 aclOpExecutor **executor)
{
	struct clamp_args a = { .self = self, .min_t = clipValueMin, .max_t = clipValueMax,
				.out = out };

	NNOP_CHECK_NOTNULL(self);
	NNOP_CHECK_NOTNULL(out);
	return clamp_run("ClampTensor", &a, workspaceSize, executor);
}
ELEM_LAUNCHER(ClampTensor)

OPAPI_EXPORT aclnnStatus aclnnClampMinTensorGetWorkspaceSize(const aclTensor *self,
							    const aclTensor *clipValueMin,
							    aclTensor *out,
							    uint64_t *workspaceSize,
							    aclOpExecutor **executor)
{
	struct clamp_args a = { .self = self, .min_t = clipValueMin, .out = out };

	NNOP_CHECK_NOTNULL(self);
	NNOP_CHECK_NOTNULL(clipValueMin);
	NNOP_CHECK_NOTNULL(out);
	return clamp_run("ClampMinTensor", &a, workspaceSize, executor);
}
ELEM_LAUNCHER(ClampMinTensor)

OPAPI_EXPORT aclnnStatus aclnnInplaceClampMinTensorGetWorkspaceSize(aclTensor *selfRef,
								   const aclTensor *clipValueMin,
								   uint64_t *workspaceSize,
								   aclOpExecutor **executor)
{
	struct clamp_args a = { .self = selfRef, .min_t = clipValueMin, .out = selfRef };

	NNOP_CHECK_NOTNULL(selfRef);
	NNOP_CHECK_NOTNULL(clipValueMin);
	return clamp_run("InplaceClampMinTensor", &a, workspaceSize, executor);
}
ELEM_LAUNCHER(InplaceClampMinTensor)

OPAPI_EXPORT aclnnStatus aclnnClampMaxTensorGetWorkspaceSize(const aclTensor *self,
							    const aclTensor *max, aclTensor *out,
							    uint64_t *workspaceSize,
							    aclOpExecutor **executor)
{
	struct clamp_args a = { .self = self, .max_t = max, .out = out };

	NNOP_CHECK_NOTNULL(self);
	NNOP_CHECK_NOTNULL(max);
	NNOP_CHECK_NOTNULL(out);
	return clamp_run("ClampMaxTensor", &a, workspaceSize, executor);
}
ELEM_LAUNCHER(ClampMaxTensor)

OPAPI_EXPORT aclnnStatus aclnnInplaceClampMaxTensorGetWorkspaceSize(aclTensor *selfRef,
								   const aclTensor *max,
								   uint64_t *workspaceSize,
								   aclOpExecutor **executor)
{
	struct clamp_args a = { .self = selfRef, .max_t = max, .out = selfRef };

	NNOP_CHECK_NOTNULL(selfRef);
	NNOP_CHECK_NOTNULL(max);
	return clamp_run("InplaceClampMaxTensor", &a, workspaceSize, executor);
}
ELEM_LAUNCHER(InplaceClampMaxTensor)
