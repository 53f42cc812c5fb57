// SPDX-License-Identifier: MIT
/*
 * Filling: InplaceFillScalar, InplaceZero and InplaceOne (a FILL constant),
 * Arange (a FILL range), InplaceMaskedFillScalar (WHERE between the value
 * and the tensor itself), and Tril/Triu (TRIANGLE).
 */
#include <endian.h>
#include <math.h>
#include <string.h>

#include "elem.h"
#include "aclnnop/aclnn_arange.h"
#include "aclnnop/aclnn_fill_scalar.h"
#include "aclnnop/aclnn_masked_fill_scalar.h"
#include "aclnnop/aclnn_ones.h"
#include "aclnnop/aclnn_tril.h"
#include "aclnnop/aclnn_triu.h"
#include "aclnnop/aclnn_zero.h"

static uint64_t fill_f64_bits(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u;
}

struct fill_args {
	const aclTensor *self;		/* the output */
	uint32_t mode;			/* enum npu_fill_mode */
	double value, step;
};

static aclnnStatus fill_build(aclOpExecutor *x, const void *args)
{
	const struct fill_args *a = args;
	struct npu_attr_fill attr = {
		.mode = htole32(a->mode),
		.value = htole64(fill_f64_bits(a->value)),
		.step = htole64(fill_f64_bits(a->step)),
	};
	struct nnop_view out;
	aclnnStatus st;

	st = elem_check_dtype(a->self, a->mode == NPU_FILL_RANGE ? "out" : "selfRef", ELEM_ANY);
	if (!st)
		st = elem_output(x, a->self, &out);
	return st ? st : nnop_executor_add(x, NPU_OPERATOR_FILL, &attr, sizeof(attr), 0, &out);
}

static aclnnStatus fill_run(const char *name, const aclTensor *self, double value,
			    uint64_t *workspaceSize, aclOpExecutor **executor)
{
	struct fill_args a = { .self = self, .mode = NPU_FILL_CONSTANT, .value = value };

	return elem_run(name, fill_build, &a, workspaceSize, executor);
}

OPAPI_EXPORT aclnnStatus aclnnInplaceFillScalarGetWorkspaceSize(aclTensor *selfRef,
							       const aclScalar *value,
							       uint64_t *workspaceSize,
							       aclOpExecutor **executor)
{
	NNOP_CHECK_NOTNULL(selfRef);
	NNOP_CHECK_NOTNULL(value);
	return fill_run("InplaceFillScalar", selfRef, nnop_scalar_f64(value), workspaceSize,
			executor);
}
ELEM_LAUNCHER(InplaceFillScalar)

OPAPI_EXPORT aclnnStatus aclnnInplaceZeroGetWorkspaceSize(aclTensor *selfRef,
							 uint64_t *workspaceSize,
							 aclOpExecutor **executor)
{
	NNOP_CHECK_NOTNULL(selfRef);
	return fill_run("InplaceZero", selfRef, 0, workspaceSize, executor);
}
ELEM_LAUNCHER(InplaceZero)

OPAPI_EXPORT aclnnStatus aclnnInplaceOneGetWorkspaceSize(const aclTensor *selfRef,
							uint64_t *workspaceSize,
							aclOpExecutor **executor)
{
	NNOP_CHECK_NOTNULL(selfRef);
	return fill_run("InplaceOne", selfRef, 1, workspaceSize, executor);
}
ELEM_LAUNCHER(InplaceOne)

/* ---- Arange ---------------------------------------------------------- */

static aclnnStatus arange_check(const aclTensor *out, double start, double end, double step)
{
	struct nnop_tensor_info info;
	double size;

	if (!isfinite(start) || !isfinite(end) || !isfinite(step))
		return ELEM_FAIL(ACLNN_ERR_PARAM_INVALID, "start, end and step must be finite");
	if (step == 0)
		return ELEM_FAIL(ACLNN_ERR_PARAM_INVALID, "step is 0");
	if ((step > 0 && end < start) || (step < 0 && end > start))
		return ELEM_FAIL(ACLNN_ERR_PARAM_INVALID,
				 "step %g goes away from end %g, starting at %g", step, end, start);
	size = ceil((end - start) / step);
	nnop_tensor_info(out, &info);
	/* Any shape, filled in row-major order: ggml hands a 1x1x1xN view. */
	if ((double)info.nelems != size)
		return ELEM_FAIL(ACLNN_ERR_PARAM_INVALID, "out has %lld elements, the range %.0f "
				 "elements", (long long)info.nelems, size);
	if (info.acl_dtype == ACL_BOOL)
		return ELEM_FAIL(ACLNN_ERR_PARAM_INVALID, "out is bool, not a numeric type");
	return ACLNN_SUCCESS;
}

struct arange_args {
	struct fill_args fill;
	double end;
};

static aclnnStatus arange_build(aclOpExecutor *x, const void *args)
{
	const struct arange_args *a = args;
	aclnnStatus st = arange_check(a->fill.self, a->fill.value, a->end, a->fill.step);

	return st ? st : fill_build(x, &a->fill);
}

OPAPI_EXPORT aclnnStatus aclnnArangeGetWorkspaceSize(const aclScalar *start, const aclScalar *end,
						    const aclScalar *step, aclTensor *out,
						    uint64_t *workspaceSize,
						    aclOpExecutor **executor)
{
	struct arange_args a = { .fill = { .self = out, .mode = NPU_FILL_RANGE } };

	NNOP_CHECK_NOTNULL(start);
	NNOP_CHECK_NOTNULL(end);
	NNOP_CHECK_NOTNULL(step);
	NNOP_CHECK_NOTNULL(out);
	a.fill.value = nnop_scalar_f64(start);
	a.fill.step = nnop_scalar_f64(step);
	a.end = nnop_scalar_f64(end);
	return elem_run("Arange", arange_build, &a, workspaceSize, executor);
}
ELEM_LAUNCHER(Arange)

/* ---- InplaceMaskedFillScalar ---------------------------------------------- */

struct masked_fill_args {
	const aclTensor *self, *mask;
	double value;
};

static aclnnStatus masked_fill_check(const struct masked_fill_args *a)
{
	int64_t dims[NNOP_MAX_DIMS];
	unsigned int ndims;
	aclnnStatus st;

	st = elem_check_dtype(a->self, "selfRef", ELEM_ANY);
	if (!st)
		st = elem_check_dtype(a->mask, "mask", ELEM_BOOL);
	if (!st)
		st = elem_broadcast(a->self, a->mask, dims, &ndims);
	if (!st)
		st = elem_check_shape(a->self, "selfRef", dims, ndims);
	return st;
}

static aclnnStatus masked_fill_build(aclOpExecutor *x, const void *args)
{
	const struct masked_fill_args *a = args;
	unsigned int ndims = elem_ndims(a->self);
	int dt = elem_acl_dtype(a->self);
	struct nnop_view self, mask, value, out;
	aclnnStatus st;

	st = masked_fill_check(a);
	if (!st)
		st = elem_input(x, a->self, ndims, dt, &self);
	if (!st)
		st = elem_input(x, a->mask, ndims, ACL_BOOL, &mask);
	if (!st)
		st = elem_scalar(x, a->value, dt, ndims, &value);
	if (!st)
		st = elem_output(x, a->self, &out);
	return st ? st : elem_where(x, &mask, &value, &self, &out);
}

OPAPI_EXPORT aclnnStatus aclnnInplaceMaskedFillScalarGetWorkspaceSize(aclTensor *selfRef,
								     const aclTensor *mask,
								     const aclScalar *value,
								     uint64_t *workspaceSize,
								     aclOpExecutor **executor)
{
	struct masked_fill_args a = { .self = selfRef, .mask = mask };

	NNOP_CHECK_NOTNULL(selfRef);
	NNOP_CHECK_NOTNULL(mask);
	NNOP_CHECK_NOTNULL(value);
	a.value = nnop_scalar_f64(value);
	return elem_run("InplaceMaskedFillScalar", masked_fill_build, &a, workspaceSize,
			executor);
}
ELEM_LAUNCHER(InplaceMaskedFillScalar)

/* ---- Tril, Triu ------------------------------------------------------- */

struct triangle_args {
	const aclTensor *self, *out;
	bool upper;
	int64_t diagonal;
};

static aclnnStatus triangle_build(aclOpExecutor *x, const void *args)
{
	const struct triangle_args *a = args;
	const char *out_name = a->self == a->out ? "selfRef" : "out";
	struct npu_attr_triangle attr = {
		.upper = htole32(a->upper),
		.diagonal = htole64((uint64_t)a->diagonal),
	};
	int dt = elem_acl_dtype(a->self);
	struct nnop_view v[2], dst;
	aclnnStatus st;

	st = elem_check_dtype(a->self, a->self == a->out ? "selfRef" : "self", ELEM_ANY);
	if (!st && elem_ndims(a->self) < 2)
		st = ELEM_FAIL(ACLNN_ERR_PARAM_INVALID, "self has %u dims, fewer than 2",
			       elem_ndims(a->self));
	if (!st)
		st = elem_check_same_shape(a->out, out_name, a->self);
	if (!st)
		st = elem_check_store(dt, a->out, out_name);
	if (!st)
		st = elem_input(x, a->self, elem_ndims(a->self), dt, &v[0]);
	if (!st)
		st = elem_output(x, a->out, &v[1]);
	if (st)
		return st;
	dst = v[1];
	v[1] = elem_target(x, &dst, dt);
	st = nnop_executor_add(x, NPU_OPERATOR_TRIANGLE, &attr, sizeof(attr), 1, v);
	return st ? st : elem_store(x, &v[1], &dst);
}

static aclnnStatus triangle_run(const char *name, const aclTensor *self, const aclTensor *out,
				bool upper, int64_t diagonal, uint64_t *workspaceSize,
				aclOpExecutor **executor)
{
	struct triangle_args a = { .self = self, .out = out, .upper = upper,
				   .diagonal = diagonal };

	return elem_run(name, triangle_build, &a, workspaceSize, executor);
}

OPAPI_EXPORT aclnnStatus aclnnTrilGetWorkspaceSize(const aclTensor *self, int64_t diagonal,
						  aclTensor *out, uint64_t *workspaceSize,
						  aclOpExecutor **executor)
{
	NNOP_CHECK_NOTNULL(self);
	NNOP_CHECK_NOTNULL(out);
	return triangle_run("Tril", self, out, false, diagonal, workspaceSize, executor);
}
ELEM_LAUNCHER(Tril)

OPAPI_EXPORT aclnnStatus aclnnInplaceTrilGetWorkspaceSize(const aclTensor *selfRef,
							 int64_t diagonal,
							 uint64_t *workspaceSize,
							 aclOpExecutor **executor)
{
	NNOP_CHECK_NOTNULL(selfRef);
	return triangle_run("InplaceTril", selfRef, selfRef, false, diagonal, workspaceSize,
			    executor);
}
ELEM_LAUNCHER(InplaceTril)

OPAPI_EXPORT aclnnStatus aclnnTriuGetWorkspaceSize(const aclTensor *self, int64_t diagonal,
						  aclTensor *out, uint64_t *workspaceSize,
						  aclOpExecutor **executor)
{
	NNOP_CHECK_NOTNULL(self);
	NNOP_CHECK_NOTNULL(out);
	return triangle_run("Triu", self, out, true, diagonal, workspaceSize, executor);
}
ELEM_LAUNCHER(Triu)

OPAPI_EXPORT aclnnStatus aclnnInplaceTriuGetWorkspaceSize(aclTensor *selfRef, int64_t diagonal,
							 uint64_t *workspaceSize,
							 aclOpExecutor **executor)
{
	NNOP_CHECK_NOTNULL(selfRef);
	return triangle_run("InplaceTriu", selfRef, selfRef, true, diagonal, workspaceSize,
			    executor);
}
ELEM_LAUNCHER(InplaceTriu)
