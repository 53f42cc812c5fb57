// SPDX-License-Identifier: MIT
/*
 * The gated linear units SwiGlu and GeGlu(V3): the input split in halves
 * A and B along dim, seen as two views of it without a copy; the
 * activation of one half goes to an output, which the product with the
 * other half then reads.
 */
#include "elem.h"
#include "aclnnop/aclnn_geglu.h"
#include "aclnnop/aclnn_swi_glu.h"

struct glu_args {
	const aclTensor *self;
	int64_t dim;
	unsigned int kind;		/* the activation, enum npu_unary_kind */
	int64_t approximate;		/* GeGlu: 0 the erf form, 1 tanh */
	bool activate_left;
	const aclTensor *out;
	const aclTensor *out_act;	/* the activated half (GeGlu's outGelu), or NULL */
};

static aclnnStatus glu_check(const struct glu_args *a, unsigned int *axis)
{
	struct nnop_tensor_info info;
	int64_t dims[NNOP_MAX_DIMS];
	int64_t d = a->dim;
	aclnnStatus st;

	if (a->approximate != 0 && a->approximate != 1)
		return ELEM_FAIL(ACLNN_ERR_PARAM_INVALID,
				 "approximate is %lld, not 0 (none) or 1 (tanh)",
				 (long long)a->approximate);
	st = elem_check_dtype(a->self, "self", ELEM_FLOAT);
	if (st)
		return st;
	nnop_tensor_info(a->self, &info);
	if (d < 0)
		d += info.ndims;
	if (!info.ndims || d < 0 || d >= (int64_t)info.ndims)
		return ELEM_FAIL(ACLNN_ERR_PARAM_INVALID, "dim %lld is not an axis of %u",
				 (long long)a->dim, info.ndims);
	if (info.dims[d] % 2)
		return ELEM_FAIL(ACLNN_ERR_PARAM_INVALID, "axis %lld has %lld elements, an odd number",
				 (long long)d, (long long)info.dims[d]);
	for (unsigned int i = 0; i < info.ndims; i++)
		dims[i] = i == d ? info.dims[i] / 2 : info.dims[i];
	st = elem_check_shape(a->out, "out", dims, info.ndims);
	if (!st && a->out_act)
		st = elem_check_shape(a->out_act, "outGelu", dims, info.ndims);
	if (!st && elem_acl_dtype(a->out) != info.acl_dtype)
		st = ELEM_FAIL(ACLNN_ERR_PARAM_INVALID, "out is %s, self %s",
			       nnop_dtype_name(elem_acl_dtype(a->out)),
			       nnop_dtype_name(info.acl_dtype));
	if (!st && a->out_act && elem_acl_dtype(a->out_act) != info.acl_dtype)
		st = ELEM_FAIL(ACLNN_ERR_PARAM_INVALID, "outGelu is %s, self %s",
			       nnop_dtype_name(elem_acl_dtype(a->out_act)),
			       nnop_dtype_name(info.acl_dtype));
	*axis = d;
	return st;
}

static aclnnStatus glu_build(aclOpExecutor *x, const void *args)
{
	const struct glu_args *a = args;
	struct nnop_view in, left, right, out, act, gated;
	unsigned int axis = 0;
	int64_t half;
	aclnnStatus st;

	st = glu_check(a, &axis);
	if (!st)
		st = elem_input(x, a->self, elem_ndims(a->self), elem_acl_dtype(a->self), &in);
	if (!st)
		st = elem_output(x, a->out, &out);
	act = out;
	if (!st && a->out_act)
		st = elem_output(x, a->out_act, &act);
	if (st)
		return st;
	half = in.dims[axis] / 2;
	left = in;
	right = in;
	nnop_view_narrow(&left, axis, 0, half, 1);
	nnop_view_narrow(&right, axis, half, half, 1);
	/* the product reads the activation from workspace, never from an output */
	gated = elem_temp(x, &left, elem_acl_dtype(a->self));
	st = elem_unary(x, a->kind, 0, 0, a->activate_left ? &left : &right, &gated);
	if (!st && a->out_act)
		st = elem_unary(x, a->kind, 0, 0, a->activate_left ? &left : &right, &act);
	return st ? st : opapi_binary(x, NPU_BINARY_MUL, &gated,
				     a->activate_left ? &right : &left, &out);
}

OPAPI_EXPORT aclnnStatus aclnnSwiGluGetWorkspaceSize(const aclTensor *x, int64_t dim,
						    const aclTensor *out, uint64_t *workspaceSize,
						    aclOpExecutor **executor)
{
	struct glu_args a = { .self = x, .dim = dim, .kind = NPU_UNARY_SILU,
			      .activate_left = true, .out = out };

	NNOP_CHECK_NOTNULL(x);
	NNOP_CHECK_NOTNULL(out);
	return elem_run("SwiGlu", glu_build, &a, workspaceSize, executor);
}
ELEM_LAUNCHER(SwiGlu)

static aclnnStatus geglu_run(const char *name, const aclTensor *self, int64_t dim,
			     int64_t approximate, bool activate_left, aclTensor *out,
			     aclTensor *outGelu, uint64_t *workspaceSize,
			     aclOpExecutor **executor)
{
	struct glu_args a = { .self = self, .dim = dim, .approximate = approximate,
			      .kind = approximate ? NPU_UNARY_GELU_TANH : NPU_UNARY_GELU,
			      .activate_left = activate_left, .out = out, .out_act = outGelu };

	return elem_run(name, glu_build, &a, workspaceSize, executor);
}

OPAPI_EXPORT aclnnStatus aclnnGeGluGetWorkspaceSize(const aclTensor *self, int64_t dim,
						   int64_t approximate, aclTensor *out,
						   aclTensor *outGelu, uint64_t *workspaceSize,
						   aclOpExecutor **executor)
{
	NNOP_CHECK_NOTNULL(self);
	NNOP_CHECK_NOTNULL(out);
	NNOP_CHECK_NOTNULL(outGelu);
	return geglu_run("GeGlu", self, dim, approximate, false, out, outGelu, workspaceSize,
			 executor);
}
ELEM_LAUNCHER(GeGlu)

OPAPI_EXPORT aclnnStatus aclnnGeGluV3GetWorkspaceSize(const aclTensor *self, int64_t dim,
						     int64_t approximate, bool activateLeft,
						     aclTensor *out, aclTensor *outGelu,
						     uint64_t *workspaceSize,
						     aclOpExecutor **executor)
{
	NNOP_CHECK_NOTNULL(self);
	NNOP_CHECK_NOTNULL(out);
	NNOP_CHECK_NOTNULL(outGelu);
	return geglu_run("GeGluV3", self, dim, approximate, activateLeft, out, outGelu,
			 workspaceSize, executor);
}
ELEM_LAUNCHER(GeGluV3)
