// SPDX-License-Identifier: MIT
/*
 * The one-tensor functions (Exp, Relu, Gelu, ...) and their in-place
 * forms: a table of what each is on the card.  Floating-point tensors
 * take one UNARY operator; integer tensors either become float first
 * (the transcendental functions, whose result is float) or, for those
 * that keep an integer type, are computed exactly by BINARY operators.
 */
#include "elem.h"
#include "aclnnop/aclnn_abs.h"
#include "aclnnop/aclnn_cos.h"
#include "aclnnop/aclnn_elu.h"
#include "aclnnop/aclnn_erf.h"
#include "aclnnop/aclnn_exp.h"
#include "aclnnop/aclnn_gelu.h"
#include "aclnnop/aclnn_gelu_v2.h"
#include "aclnnop/aclnn_hardsigmoid.h"
#include "aclnnop/aclnn_hardswish.h"
#include "aclnnop/aclnn_leaky_relu.h"
#include "aclnnop/aclnn_log.h"
#include "aclnnop/aclnn_neg.h"
#include "aclnnop/aclnn_relu.h"
#include "aclnnop/aclnn_rsqrt.h"
#include "aclnnop/aclnn_sigmoid.h"
#include "aclnnop/aclnn_sign.h"
#include "aclnnop/aclnn_silu.h"
#include "aclnnop/aclnn_sin.h"
#include "aclnnop/aclnn_softplus.h"
#include "aclnnop/aclnn_sqrt.h"
#include "aclnnop/aclnn_tanh.h"
#include "aclnnop/aclnn_threshold.h"

enum unary_types {
	UNARY_FLOAT,		/* float tensors only, the result in their type */
	UNARY_TO_FLOAT,		/* integers and bool give a float result */
	UNARY_KEEP_INT,		/* integers keep their type, exactly */
};

struct unary_def {
	unsigned int kind;	/* enum npu_unary_kind */
	enum unary_types types;
};

struct unary_args {
	const struct unary_def *def;
	const aclTensor *self;
	const aclTensor *out;	/* self for the in-place forms */
	bool inplace;
	float alpha, beta;	/* the function's parameters, as the card takes them */
};

static const struct unary_def unary_abs = { NPU_UNARY_ABS, UNARY_KEEP_INT };
static const struct unary_def unary_neg = { NPU_UNARY_NEG, UNARY_KEEP_INT };
static const struct unary_def unary_relu = { NPU_UNARY_RELU, UNARY_KEEP_INT };
static const struct unary_def unary_sign = { NPU_UNARY_SIGN, UNARY_KEEP_INT };
static const struct unary_def unary_threshold = { NPU_UNARY_THRESHOLD, UNARY_KEEP_INT };
static const struct unary_def unary_exp = { NPU_UNARY_EXP, UNARY_TO_FLOAT };
static const struct unary_def unary_log = { NPU_UNARY_LOG, UNARY_TO_FLOAT };
static const struct unary_def unary_sqrt = { NPU_UNARY_SQRT, UNARY_TO_FLOAT };
static const struct unary_def unary_rsqrt = { NPU_UNARY_RSQRT, UNARY_TO_FLOAT };
static const struct unary_def unary_sin = { NPU_UNARY_SIN, UNARY_TO_FLOAT };
static const struct unary_def unary_cos = { NPU_UNARY_COS, UNARY_TO_FLOAT };
static const struct unary_def unary_tanh = { NPU_UNARY_TANH, UNARY_TO_FLOAT };
static const struct unary_def unary_erf = { NPU_UNARY_ERF, UNARY_TO_FLOAT };
static const struct unary_def unary_sigmoid = { NPU_UNARY_SIGMOID, UNARY_TO_FLOAT };
static const struct unary_def unary_silu = { NPU_UNARY_SILU, UNARY_FLOAT };
static const struct unary_def unary_gelu = { NPU_UNARY_GELU, UNARY_FLOAT };
static const struct unary_def unary_gelu_tanh = { NPU_UNARY_GELU_TANH, UNARY_FLOAT };
static const struct unary_def unary_hardswish = { NPU_UNARY_HARDSWISH, UNARY_FLOAT };
static const struct unary_def unary_hardsigmoid = { NPU_UNARY_HARDSIGMOID, UNARY_FLOAT };
static const struct unary_def unary_leaky_relu = { NPU_UNARY_LEAKY_RELU, UNARY_FLOAT };
static const struct unary_def unary_softplus = { NPU_UNARY_SOFTPLUS_BETA, UNARY_FLOAT };

static unsigned int unary_classes(const struct unary_def *def)
{
	switch (def->types) {
	case UNARY_FLOAT:
		return ELEM_FLOAT;
	case UNARY_TO_FLOAT:
		return ELEM_ANY;
	default:
		return ELEM_FLOAT | ELEM_INT;
	}
}

/* The type the function is computed in. */
static int unary_dtype(const struct unary_args *a)
{
	int in = elem_acl_dtype(a->self), out = elem_acl_dtype(a->out);

	if (a->def->types != UNARY_TO_FLOAT || nnop_dtype_is_float(in))
		return in;
	return nnop_dtype_is_float(out) ? out : ACL_FLOAT;
}

static bool unary_unsigned(int card_dtype)
{
	return card_dtype == nnop_card_dtype(ACL_UINT8);
}

/* An integer function of UNARY_KEEP_INT as BINARY operators. */
static aclnnStatus unary_int(aclOpExecutor *x, const struct unary_args *a, int dt,
			     const struct nnop_view *in, const struct nnop_view *out)
{
	struct nnop_view zero, t, u, mask, value;
	aclnnStatus st;

	st = elem_scalar(x, a->def->kind == NPU_UNARY_THRESHOLD ? a->alpha : 0, dt, in->ndims,
			 &zero);
	if (st)
		return st;
	switch (a->def->kind) {
	case NPU_UNARY_NEG:
		return opapi_binary(x, NPU_BINARY_SUB, &zero, in, out);
	case NPU_UNARY_ABS:
		if (unary_unsigned(in->card_dtype))
			return opapi_binary(x, NPU_BINARY_MAX, in, &zero, out);
		t = elem_temp(x, in, dt);
		st = opapi_binary(x, NPU_BINARY_SUB, &zero, in, &t);
		return st ? st : opapi_binary(x, NPU_BINARY_MAX, in, &t, out);
	case NPU_UNARY_RELU:
		return opapi_binary(x, NPU_BINARY_MAX, in, &zero, out);
	case NPU_UNARY_SIGN:
		t = elem_temp(x, in, dt);
		u = elem_temp(x, in, dt);
		st = opapi_binary(x, NPU_BINARY_GT, in, &zero, &t);
		if (!st)
			st = opapi_binary(x, NPU_BINARY_LT, in, &zero, &u);
		return st ? st : opapi_binary(x, NPU_BINARY_SUB, &t, &u, out);
	case NPU_UNARY_THRESHOLD:
		mask = elem_temp(x, in, ACL_BOOL);
		st = opapi_binary(x, NPU_BINARY_GT, in, &zero, &mask);
		if (!st)
			st = elem_scalar(x, a->beta, dt, in->ndims, &value);
		return st ? st : elem_where(x, &mask, in, &value, out);
	default:
		return ELEM_FAIL(ACLNN_ERR_INNER, "no integer form of unary kind %u",
				 a->def->kind);
	}
}

static aclnnStatus unary_build(aclOpExecutor *x, const void *args)
{
	const struct unary_args *a = args;
	const char *out_name = a->inplace ? "selfRef" : "out";
	struct nnop_view in, out, dst;
	int dt = unary_dtype(a);
	aclnnStatus st;

	st = elem_check_dtype(a->self, a->inplace ? "selfRef" : "self", unary_classes(a->def));
	if (!st)
		st = elem_check_same_shape(a->out, out_name, a->self);
	if (!st)
		st = elem_check_store(dt, a->out, out_name);
	if (!st)
		st = elem_input(x, a->self, elem_ndims(a->self), dt, &in);
	if (!st)
		st = elem_output(x, a->out, &out);
	if (st)
		return st;
	dst = elem_target(x, &out, dt);
	if (nnop_dtype_is_float(dt))
		st = elem_unary(x, a->def->kind, a->alpha, a->beta, &in, &dst);
	else
		st = unary_int(x, a, dt, &in, &dst);
	return st ? st : elem_store(x, &dst, &out);
}

static aclnnStatus unary_run(const char *name, const struct unary_def *def, const aclTensor *self,
			     const aclTensor *out, float alpha, float beta,
			     uint64_t *workspaceSize, aclOpExecutor **executor)
{
	struct unary_args a = { .def = def, .self = self, .out = out, .inplace = self == out,
				.alpha = alpha, .beta = beta };

	return elem_run(name, unary_build, &a, workspaceSize, executor);
}

/* aclnn<Name>(self, out), out an OutT (the vendor's declaration) */
#define UNARY_OP(Name, def, OutT)						\
OPAPI_EXPORT aclnnStatus aclnn##Name##GetWorkspaceSize(const aclTensor *self,	\
		OutT out, uint64_t *workspaceSize, aclOpExecutor **executor)	\
{										\
	NNOP_CHECK_NOTNULL(self);						\
	NNOP_CHECK_NOTNULL(out);						\
	return unary_run(#Name, &def, self, out, 0, 0, workspaceSize, executor); \
}										\
ELEM_LAUNCHER(Name)

/* aclnnInplace<Name>(selfRef), selfRef a SelfT (the vendor's declaration) */
#define UNARY_INPLACE_OP(Name, def, SelfT)					\
OPAPI_EXPORT aclnnStatus aclnnInplace##Name##GetWorkspaceSize(SelfT selfRef,	\
		uint64_t *workspaceSize, aclOpExecutor **executor)		\
{										\
	NNOP_CHECK_NOTNULL(selfRef);						\
	return unary_run("Inplace" #Name, &def, selfRef, selfRef, 0, 0,	\
			 workspaceSize, executor);				\
}										\
ELEM_LAUNCHER(Inplace##Name)

UNARY_OP(Abs, unary_abs, aclTensor *)
UNARY_OP(Neg, unary_neg, aclTensor *)
UNARY_INPLACE_OP(Neg, unary_neg, aclTensor *)
UNARY_OP(Exp, unary_exp, aclTensor *)
UNARY_INPLACE_OP(Exp, unary_exp, aclTensor *)
UNARY_OP(Log, unary_log, aclTensor *)
UNARY_INPLACE_OP(Log, unary_log, aclTensor *)
UNARY_OP(Sqrt, unary_sqrt, aclTensor *)
UNARY_INPLACE_OP(Sqrt, unary_sqrt, aclTensor *)
UNARY_OP(Rsqrt, unary_rsqrt, aclTensor *)
UNARY_INPLACE_OP(Rsqrt, unary_rsqrt, aclTensor *)
UNARY_OP(Sin, unary_sin, aclTensor *)
UNARY_INPLACE_OP(Sin, unary_sin, aclTensor *)
UNARY_OP(Cos, unary_cos, aclTensor *)
UNARY_INPLACE_OP(Cos, unary_cos, aclTensor *)
UNARY_OP(Tanh, unary_tanh, aclTensor *)
UNARY_INPLACE_OP(Tanh, unary_tanh, aclTensor *)
UNARY_OP(Erf, unary_erf, aclTensor *)
UNARY_INPLACE_OP(Erf, unary_erf, aclTensor *)
UNARY_OP(Sign, unary_sign, aclTensor *)
UNARY_OP(Relu, unary_relu, const aclTensor *)
UNARY_INPLACE_OP(Relu, unary_relu, aclTensor *)
UNARY_OP(Sigmoid, unary_sigmoid, aclTensor *)
UNARY_INPLACE_OP(Sigmoid, unary_sigmoid, aclTensor *)
UNARY_OP(Silu, unary_silu, aclTensor *)
UNARY_OP(Gelu, unary_gelu, aclTensor *)
UNARY_OP(Hardswish, unary_hardswish, const aclTensor *)
UNARY_INPLACE_OP(Hardswish, unary_hardswish, const aclTensor *)

/* PyTorch's hardsigmoid: min(max(x + 3, 0), 6) / 6 */
OPAPI_EXPORT aclnnStatus aclnnHardsigmoidGetWorkspaceSize(const aclTensor *self, aclTensor *out,
							 uint64_t *workspaceSize,
							 aclOpExecutor **executor)
{
	NNOP_CHECK_NOTNULL(self);
	NNOP_CHECK_NOTNULL(out);
	return unary_run("Hardsigmoid", &unary_hardsigmoid, self, out, 1.0f / 6, 0.5f,
			 workspaceSize, executor);
}
ELEM_LAUNCHER(Hardsigmoid)

OPAPI_EXPORT aclnnStatus aclnnInplaceHardsigmoidGetWorkspaceSize(const aclTensor *self,
								uint64_t *workspaceSize,
								aclOpExecutor **executor)
{
	NNOP_CHECK_NOTNULL(self);
	return unary_run("InplaceHardsigmoid", &unary_hardsigmoid, self, self, 1.0f / 6, 0.5f,
			 workspaceSize, executor);
}
ELEM_LAUNCHER(InplaceHardsigmoid)

OPAPI_EXPORT aclnnStatus aclnnGeluV2GetWorkspaceSize(const aclTensor *x, int64_t approximate,
						    aclTensor *y, uint64_t *workspaceSize,
						    aclOpExecutor **executor)
{
	NNOP_CHECK_NOTNULL(x);
	NNOP_CHECK_NOTNULL(y);
	if (approximate != 0 && approximate != 1)
		return NNOP_FAIL(ACLNN_ERR_PARAM_INVALID,
				 "approximate is %lld, not 0 (none) or 1 (tanh)",
				 (long long)approximate);
	return unary_run("GeluV2", approximate ? &unary_gelu_tanh : &unary_gelu, x, y, 0, 0,
			 workspaceSize, executor);
}
ELEM_LAUNCHER(GeluV2)

OPAPI_EXPORT aclnnStatus aclnnLeakyReluGetWorkspaceSize(const aclTensor *self,
						       const aclScalar *negativeSlope,
						       aclTensor *out, uint64_t *workspaceSize,
						       aclOpExecutor **executor)
{
	NNOP_CHECK_NOTNULL(self);
	NNOP_CHECK_NOTNULL(negativeSlope);
	NNOP_CHECK_NOTNULL(out);
	return unary_run("LeakyRelu", &unary_leaky_relu, self, out,
			 (float)nnop_scalar_f64(negativeSlope), 0, workspaceSize, executor);
}
ELEM_LAUNCHER(LeakyRelu)

OPAPI_EXPORT aclnnStatus aclnnInplaceLeakyReluGetWorkspaceSize(aclTensor *selfRef,
							      const aclScalar *negativeSlope,
							      uint64_t *workspaceSize,
							      aclOpExecutor **executor)
{
	NNOP_CHECK_NOTNULL(selfRef);
	NNOP_CHECK_NOTNULL(negativeSlope);
	return unary_run("InplaceLeakyRelu", &unary_leaky_relu, selfRef, selfRef,
			 (float)nnop_scalar_f64(negativeSlope), 0, workspaceSize, executor);
}
ELEM_LAUNCHER(InplaceLeakyRelu)

OPAPI_EXPORT aclnnStatus aclnnSoftplusGetWorkspaceSize(const aclTensor *self, const aclScalar *beta,
						      const aclScalar *threshold, aclTensor *out,
						      uint64_t *workspaceSize,
						      aclOpExecutor **executor)
{
	NNOP_CHECK_NOTNULL(self);
	NNOP_CHECK_NOTNULL(beta);
	NNOP_CHECK_NOTNULL(threshold);
	NNOP_CHECK_NOTNULL(out);
	if (nnop_scalar_f64(beta) == 0)
		return NNOP_FAIL(ACLNN_ERR_PARAM_INVALID, "beta is 0");
	return unary_run("Softplus", &unary_softplus, self, out, (float)nnop_scalar_f64(beta),
			 (float)nnop_scalar_f64(threshold), workspaceSize, executor);
}
ELEM_LAUNCHER(Softplus)

OPAPI_EXPORT aclnnStatus aclnnThresholdGetWorkspaceSize(const aclTensor *self,
						       const aclScalar *threshold,
						       const aclScalar *value, aclTensor *out,
						       uint64_t *workspaceSize,
						       aclOpExecutor **executor)
{
	NNOP_CHECK_NOTNULL(self);
	NNOP_CHECK_NOTNULL(threshold);
	NNOP_CHECK_NOTNULL(value);
	NNOP_CHECK_NOTNULL(out);
	return unary_run("Threshold", &unary_threshold, self, out,
			 (float)nnop_scalar_f64(threshold), (float)nnop_scalar_f64(value),
			 workspaceSize, executor);
}
ELEM_LAUNCHER(Threshold)

OPAPI_EXPORT aclnnStatus aclnnInplaceThresholdGetWorkspaceSize(aclTensor *selfRef,
							      const aclScalar *threshold,
							      const aclScalar *value,
							      uint64_t *workspaceSize,
							      aclOpExecutor **executor)
{
	NNOP_CHECK_NOTNULL(selfRef);
	NNOP_CHECK_NOTNULL(threshold);
	NNOP_CHECK_NOTNULL(value);
	return unary_run("InplaceThreshold", &unary_threshold, selfRef, selfRef,
			 (float)nnop_scalar_f64(threshold), (float)nnop_scalar_f64(value),
			 workspaceSize, executor);
}
ELEM_LAUNCHER(InplaceThreshold)

/*
 * ELU with PyTorch's scale and input_scale: scale * (x > 0 ? x :
 * alpha * (exp(input_scale * x) - 1)).  The card's ELU is the case of
 * both 1; input_scale scales only the negative side, so otherwise the
 * positive side is chosen from x by a mask.
 */
struct elu_args {
	const aclTensor *self, *out;
	double alpha, scale, input_scale;
};

static aclnnStatus elu_scaled_input(aclOpExecutor *x, const struct elu_args *a, int dt,
				    const struct nnop_view *in, const struct nnop_view *dst)
{
	struct nnop_view zero, factor, mask, t;
	aclnnStatus st;

	mask = elem_temp(x, in, ACL_BOOL);
	t = elem_temp(x, in, dt);
	st = elem_scalar(x, 0, dt, in->ndims, &zero);
	if (!st)
		st = elem_scalar(x, a->input_scale, dt, in->ndims, &factor);
	if (!st)
		st = opapi_binary(x, NPU_BINARY_GT, in, &zero, &mask);
	if (!st)
		st = opapi_binary(x, NPU_BINARY_MUL, in, &factor, &t);
	if (!st)
		st = elem_unary(x, NPU_UNARY_ELU, (float)a->alpha, 0, &t, &t);
	return st ? st : elem_where(x, &mask, in, &t, dst);
}

static aclnnStatus elu_build(aclOpExecutor *x, const void *args)
{
	const struct elu_args *a = args;
	bool inplace = a->self == a->out;
	struct nnop_view in, out, dst, res, factor;
	int dt = elem_acl_dtype(a->self);
	aclnnStatus st;

	st = elem_check_dtype(a->self, inplace ? "selfRef" : "self", ELEM_FLOAT);
	if (!st)
		st = elem_check_same_shape(a->out, "out", a->self);
	if (!st)
		st = elem_check_store(dt, a->out, "out");
	if (!st)
		st = elem_input(x, a->self, elem_ndims(a->self), dt, &in);
	if (!st)
		st = elem_output(x, a->out, &out);
	if (st)
		return st;
	dst = elem_target(x, &out, dt);
	/* scaled afterwards from workspace: an output slot is never read back */
	res = a->scale == 1.0 ? dst : elem_temp(x, &in, dt);
	if (a->input_scale == 1.0)
		st = elem_unary(x, NPU_UNARY_ELU, (float)a->alpha, 0, &in, &res);
	else
		st = elu_scaled_input(x, a, dt, &in, &res);
	if (!st && a->scale != 1.0) {
		st = elem_scalar(x, a->scale, dt, in.ndims, &factor);
		if (!st)
			st = opapi_binary(x, NPU_BINARY_MUL, &res, &factor, &dst);
	}
	return st ? st : elem_store(x, &dst, &out);
}

static aclnnStatus elu_run(const char *name, const aclTensor *self, const aclScalar *alpha,
			   const aclScalar *scale, const aclScalar *inputScale,
			   const aclTensor *out, uint64_t *workspaceSize,
			   aclOpExecutor **executor)
{
	struct elu_args a = { .self = self, .out = out, .alpha = nnop_scalar_f64(alpha),
			      .scale = nnop_scalar_f64(scale),
			      .input_scale = nnop_scalar_f64(inputScale) };

	return elem_run(name, elu_build, &a, workspaceSize, executor);
}

OPAPI_EXPORT aclnnStatus aclnnEluGetWorkspaceSize(const aclTensor *self, const aclScalar *alpha,
						 const aclScalar *scale,
						 const aclScalar *inputScale, aclTensor *out,
						 uint64_t *workspaceSize, aclOpExecutor **executor)
{
	NNOP_CHECK_NOTNULL(self);
	NNOP_CHECK_NOTNULL(alpha);
	NNOP_CHECK_NOTNULL(scale);
	NNOP_CHECK_NOTNULL(inputScale);
	NNOP_CHECK_NOTNULL(out);
	return elu_run("Elu", self, alpha, scale, inputScale, out, workspaceSize, executor);
}
ELEM_LAUNCHER(Elu)

OPAPI_EXPORT aclnnStatus aclnnInplaceEluGetWorkspaceSize(aclTensor *selfRef, const aclScalar *alpha,
							const aclScalar *scale,
							const aclScalar *inputScale,
							uint64_t *workspaceSize,
							aclOpExecutor **executor)
{
	NNOP_CHECK_NOTNULL(selfRef);
	NNOP_CHECK_NOTNULL(alpha);
	NNOP_CHECK_NOTNULL(scale);
	NNOP_CHECK_NOTNULL(inputScale);
	return elu_run("InplaceElu", selfRef, alpha, scale, inputScale, selfRef, workspaceSize,
		       executor);
}
ELEM_LAUNCHER(InplaceElu)
