// SPDX-License-Identifier: MIT
/*
 * Sub, Mul, Div and Pow over tensors and scalars, and their in-place
 * forms: one BINARY card operator over the operands broadcast to the
 * result's rank, in their promoted type (CAST into workspace when an
 * operand or out has another, but for an F16 or BF16 operand of F32
 * arithmetic, which the card widens as it reads it: ggml's F16 masks
 * times F32 slopes take no workspace).  The compare operators share the
 * builder.
 */
#include <math.h>

#include "elem.h"
#include "aclnnop/aclnn_div.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_pow.h"
#include "aclnnop/aclnn_pow_tensor_tensor.h"
#include "aclnnop/aclnn_sub.h"

static int binop_dtype(const struct elem_binop *b)
{
	int dt;

	if (b->self && b->other)
		dt = nnop_promote(elem_acl_dtype(b->self), elem_acl_dtype(b->other));
	else if (b->other_is_zero)
		dt = elem_acl_dtype(b->self);
	else if (b->self)
		dt = elem_promote_scalar(b->self, b->other_scalar);
	else
		dt = elem_promote_scalar(b->other, b->self_scalar);
	if (dt != ACL_DT_UNDEFINED && b->result == ELEM_RESULT_FLOAT && !nnop_dtype_is_float(dt))
		dt = ACL_FLOAT;
	return dt;
}

static aclnnStatus binop_check_types(const struct elem_binop *b, int dt)
{
	aclnnStatus st = ACLNN_SUCCESS;

	if (b->self)
		st = elem_check_dtype(b->self, b->inplace ? "selfRef" : "self", ELEM_ANY);
	if (!st && b->other)
		st = elem_check_dtype(b->other, "other", ELEM_ANY);
	if (!st && !b->inplace)
		st = elem_check_dtype(b->out, "out", ELEM_ANY);
	if (st)
		return st;
	if (dt == ACL_DT_UNDEFINED || nnop_card_dtype(dt) < 0)
		return ELEM_FAIL(ACLNN_ERR_PARAM_INVALID, "the operands' types have no common type");
	if (b->kind == NPU_BINARY_SUB && dt == ACL_BOOL)
		return ELEM_FAIL(ACLNN_ERR_PARAM_INVALID,
				 "subtraction of bool operands is not supported");
	if (b->alpha && !nnop_dtype_is_float(dt) &&
	    nnop_scalar_f64(b->alpha) != trunc(nnop_scalar_f64(b->alpha)))
		return ELEM_FAIL(ACLNN_ERR_PARAM_INVALID,
				 "alpha %g is not an integer, and the operands are %s",
				 nnop_scalar_f64(b->alpha), nnop_dtype_name(dt));
	if (b->result == ELEM_RESULT_COMPARE)
		return ACLNN_SUCCESS;
	return elem_check_store(dt, b->out, b->inplace ? "selfRef" : "out");
}

static aclnnStatus binop_check_shape(const struct elem_binop *b)
{
	int64_t dims[NNOP_MAX_DIMS];
	unsigned int ndims;
	aclnnStatus st;

	if (!b->self || !b->other)
		return elem_check_same_shape(b->out, b->inplace ? "selfRef" : "out",
					     b->self ? b->self : b->other);
	st = elem_broadcast(b->self, b->other, dims, &ndims);
	if (st)
		return st;
	return elem_check_shape(b->out, b->inplace ? "selfRef" : "out", dims, ndims);
}

static double binop_alpha(const struct elem_binop *b)
{
	return b->alpha ? nnop_scalar_f64(b->alpha) : 1.0;
}

/* t named as the executor's next input, an operand of b's kind computed in dt. */
static aclnnStatus binop_input(aclOpExecutor *x, const struct elem_binop *b, const aclTensor *t,
			       unsigned int ndims, int dt, struct nnop_view *v)
{
	int slot = nnop_executor_input(x, t);
	struct nnop_view named;

	if (slot < 0)
		return slot;
	named = opapi_view(x, slot, ndims);
	return opapi_operand(x, b->kind, &named, nnop_card_dtype(dt), v);
}

/* other, times alpha when that is not 1. */
static aclnnStatus binop_other(aclOpExecutor *x, const struct elem_binop *b, int dt,
			       unsigned int ndims, struct nnop_view *v)
{
	struct nnop_view factor, scaled;
	double alpha = binop_alpha(b);
	aclnnStatus st;

	if (b->other_is_zero)
		return elem_scalar(x, 0, dt, ndims, v);
	if (!b->other)
		return elem_scalar(x, nnop_scalar_f64(b->other_scalar) * alpha, dt, ndims, v);
	st = binop_input(x, b, b->other, ndims, dt, v);
	if (st || alpha == 1.0)
		return st;
	st = elem_scalar(x, alpha, dt, ndims, &factor);
	if (st)
		return st;
	scaled = elem_temp(x, v, dt);
	st = opapi_binary(x, NPU_BINARY_MUL, v, &factor, &scaled);
	*v = scaled;
	return st;
}

aclnnStatus elem_binop_build(aclOpExecutor *x, const void *binop)
{
	const struct elem_binop *b = binop;
	struct nnop_view va, vb, vout, dst;
	int dt = binop_dtype(b);
	unsigned int ndims;
	aclnnStatus st;

	st = binop_check_types(b, dt);
	if (!st)
		st = binop_check_shape(b);
	if (st)
		return st;
	ndims = elem_ndims(b->out);
	if (b->self)
		st = binop_input(x, b, b->self, ndims, dt, &va);
	else
		st = elem_scalar(x, nnop_scalar_f64(b->self_scalar), dt, ndims, &va);
	if (!st)
		st = binop_other(x, b, dt, ndims, &vb);
	if (!st)
		st = elem_output(x, b->out, &vout);
	if (st)
		return st;
	dst = b->result == ELEM_RESULT_COMPARE ? vout : elem_target(x, &vout, dt);
	st = opapi_binary(x, b->kind, &va, &vb, &dst);
	return st ? st : elem_store(x, &dst, &vout);
}

static aclnnStatus binop_run(const char *name, const struct elem_binop *b,
			     uint64_t *workspaceSize, aclOpExecutor **executor)
{
	return elem_run(name, elem_binop_build, b, workspaceSize, executor);
}

/* ---- Sub ----------------------------------------------------------- */

OPAPI_EXPORT aclnnStatus aclnnSubGetWorkspaceSize(const aclTensor *self, const aclTensor *other,
						 const aclScalar *alpha, aclTensor *out,
						 uint64_t *workspaceSize, aclOpExecutor **executor)
{
	struct elem_binop b = { .kind = NPU_BINARY_SUB, .self = self, .other = other,
				.alpha = alpha, .out = out };

	NNOP_CHECK_NOTNULL(self);
	NNOP_CHECK_NOTNULL(other);
	NNOP_CHECK_NOTNULL(alpha);
	NNOP_CHECK_NOTNULL(out);
	return binop_run("Sub", &b, workspaceSize, executor);
}
ELEM_LAUNCHER(Sub)

OPAPI_EXPORT aclnnStatus aclnnSubsGetWorkspaceSize(const aclTensor *self, const aclScalar *other,
						  const aclScalar *alpha, aclTensor *out,
						  uint64_t *workspaceSize, aclOpExecutor **executor)
{
	struct elem_binop b = { .kind = NPU_BINARY_SUB, .self = self, .other_scalar = other,
				.alpha = alpha, .out = out };

	NNOP_CHECK_NOTNULL(self);
	NNOP_CHECK_NOTNULL(other);
	NNOP_CHECK_NOTNULL(alpha);
	NNOP_CHECK_NOTNULL(out);
	return binop_run("Subs", &b, workspaceSize, executor);
}
ELEM_LAUNCHER(Subs)

OPAPI_EXPORT aclnnStatus aclnnInplaceSubGetWorkspaceSize(aclTensor *selfRef, const aclTensor *other,
							const aclScalar *alpha,
							uint64_t *workspaceSize,
							aclOpExecutor **executor)
{
	struct elem_binop b = { .kind = NPU_BINARY_SUB, .self = selfRef, .other = other,
				.alpha = alpha, .out = selfRef, .inplace = true };

	NNOP_CHECK_NOTNULL(selfRef);
	NNOP_CHECK_NOTNULL(other);
	NNOP_CHECK_NOTNULL(alpha);
	return binop_run("InplaceSub", &b, workspaceSize, executor);
}
ELEM_LAUNCHER(InplaceSub)

OPAPI_EXPORT aclnnStatus aclnnInplaceSubsGetWorkspaceSize(aclTensor *selfRef, const aclScalar *other,
							 const aclScalar *alpha,
							 uint64_t *workspaceSize,
							 aclOpExecutor **executor)
{
	struct elem_binop b = { .kind = NPU_BINARY_SUB, .self = selfRef, .other_scalar = other,
				.alpha = alpha, .out = selfRef, .inplace = true };

	NNOP_CHECK_NOTNULL(selfRef);
	NNOP_CHECK_NOTNULL(other);
	NNOP_CHECK_NOTNULL(alpha);
	return binop_run("InplaceSubs", &b, workspaceSize, executor);
}
ELEM_LAUNCHER(InplaceSubs)

/* ---- Mul, Div: the same four forms without alpha ------------------------ */

#define BINOP_FORMS(Name, KIND, RESULT)						\
OPAPI_EXPORT aclnnStatus aclnn##Name##GetWorkspaceSize(const aclTensor *self,	\
		const aclTensor *other, aclTensor *out, uint64_t *workspaceSize,	\
		aclOpExecutor **executor)						\
{										\
	struct elem_binop b = { .kind = KIND, .result = RESULT, .self = self,	\
				.other = other, .out = out };			\
										\
	NNOP_CHECK_NOTNULL(self);						\
	NNOP_CHECK_NOTNULL(other);						\
	NNOP_CHECK_NOTNULL(out);						\
	return binop_run(#Name, &b, workspaceSize, executor);			\
}										\
ELEM_LAUNCHER(Name)								\
OPAPI_EXPORT aclnnStatus aclnn##Name##sGetWorkspaceSize(const aclTensor *self,	\
		const aclScalar *other, aclTensor *out, uint64_t *workspaceSize,	\
		aclOpExecutor **executor)						\
{										\
	struct elem_binop b = { .kind = KIND, .result = RESULT, .self = self,	\
				.other_scalar = other, .out = out };		\
										\
	NNOP_CHECK_NOTNULL(self);						\
	NNOP_CHECK_NOTNULL(other);						\
	NNOP_CHECK_NOTNULL(out);						\
	return binop_run(#Name "s", &b, workspaceSize, executor);		\
}										\
ELEM_LAUNCHER(Name##s)								\
OPAPI_EXPORT aclnnStatus aclnnInplace##Name##GetWorkspaceSize(aclTensor *selfRef, \
		const aclTensor *other, uint64_t *workspaceSize,		\
		aclOpExecutor **executor)						\
{										\
	struct elem_binop b = { .kind = KIND, .result = RESULT, .self = selfRef, \
				.other = other, .out = selfRef, .inplace = true }; \
										\
	NNOP_CHECK_NOTNULL(selfRef);						\
	NNOP_CHECK_NOTNULL(other);						\
	return binop_run("Inplace" #Name, &b, workspaceSize, executor);		\
}										\
ELEM_LAUNCHER(Inplace##Name)							\
OPAPI_EXPORT aclnnStatus aclnnInplace##Name##sGetWorkspaceSize(aclTensor *selfRef, \
		const aclScalar *other, uint64_t *workspaceSize,		\
		aclOpExecutor **executor)						\
{										\
	struct elem_binop b = { .kind = KIND, .result = RESULT, .self = selfRef, \
				.other_scalar = other, .out = selfRef,		\
				.inplace = true };				\
										\
	NNOP_CHECK_NOTNULL(selfRef);						\
	NNOP_CHECK_NOTNULL(other);						\
	return binop_run("Inplace" #Name "s", &b, workspaceSize, executor);	\
}										\
ELEM_LAUNCHER(Inplace##Name##s)

BINOP_FORMS(Mul, NPU_BINARY_MUL, ELEM_RESULT_PROMOTED)
BINOP_FORMS(Div, NPU_BINARY_DIV, ELEM_RESULT_FLOAT)

/* ---- Pow ------------------------------------------------------------- */

OPAPI_EXPORT aclnnStatus aclnnPowTensorScalarGetWorkspaceSize(const aclTensor *self,
							     const aclScalar *exponent,
							     const aclTensor *out,
							     uint64_t *workspaceSize,
							     aclOpExecutor **executor)
{
	struct elem_binop b = { .kind = NPU_BINARY_POW, .self = self, .other_scalar = exponent,
				.out = out };

	NNOP_CHECK_NOTNULL(self);
	NNOP_CHECK_NOTNULL(exponent);
	NNOP_CHECK_NOTNULL(out);
	return binop_run("PowTensorScalar", &b, workspaceSize, executor);
}
ELEM_LAUNCHER(PowTensorScalar)

OPAPI_EXPORT aclnnStatus aclnnInplacePowTensorScalarGetWorkspaceSize(const aclTensor *self,
								    const aclScalar *exponent,
								    uint64_t *workspaceSize,
								    aclOpExecutor **executor)
{
	struct elem_binop b = { .kind = NPU_BINARY_POW, .self = self, .other_scalar = exponent,
				.out = self, .inplace = true };

	NNOP_CHECK_NOTNULL(self);
	NNOP_CHECK_NOTNULL(exponent);
	return binop_run("InplacePowTensorScalar", &b, workspaceSize, executor);
}
ELEM_LAUNCHER(InplacePowTensorScalar)

OPAPI_EXPORT aclnnStatus aclnnPowScalarTensorGetWorkspaceSize(const aclScalar *self,
							     const aclTensor *exponent,
							     const aclTensor *out,
							     uint64_t *workspaceSize,
							     aclOpExecutor **executor)
{
	struct elem_binop b = { .kind = NPU_BINARY_POW, .self_scalar = self, .other = exponent,
				.out = out };

	NNOP_CHECK_NOTNULL(self);
	NNOP_CHECK_NOTNULL(exponent);
	NNOP_CHECK_NOTNULL(out);
	return binop_run("PowScalarTensor", &b, workspaceSize, executor);
}
ELEM_LAUNCHER(PowScalarTensor)

OPAPI_EXPORT aclnnStatus aclnnPowTensorTensorGetWorkspaceSize(const aclTensor *self,
							     const aclTensor *exponent,
							     aclTensor *out, uint64_t *workspaceSize,
							     aclOpExecutor **executor)
{
	struct elem_binop b = { .kind = NPU_BINARY_POW, .self = self, .other = exponent,
				.out = out };

	NNOP_CHECK_NOTNULL(self);
	NNOP_CHECK_NOTNULL(exponent);
	NNOP_CHECK_NOTNULL(out);
	return binop_run("PowTensorTensor", &b, workspaceSize, executor);
}
ELEM_LAUNCHER(PowTensorTensor)

OPAPI_EXPORT aclnnStatus aclnnInplacePowTensorTensorGetWorkspaceSize(const aclTensor *self,
								    const aclTensor *exponent,
								    uint64_t *workspaceSize,
								    aclOpExecutor **executor)
{
	struct elem_binop b = { .kind = NPU_BINARY_POW, .self = self, .other = exponent,
				.out = self, .inplace = true };

	NNOP_CHECK_NOTNULL(self);
	NNOP_CHECK_NOTNULL(exponent);
	return binop_run("InplacePowTensorTensor", &b, workspaceSize, executor);
}
ELEM_LAUNCHER(InplacePowTensorTensor)
