// SPDX-License-Identifier: MIT
/*
 * DivMod: self / other rounded as mode says, 0 not at all (integers give
 * float), 1 toward zero, 2 toward minus infinity, in the promoted type.
 * The card has no rounding function, so each is built of what it has:
 * integer DIV truncates, and its floor subtracts 1 where the remainder's
 * sign differs from other's; a float truncates through a CAST to int64
 * and back where |q| < 2^52 (past it every double is an integer, and
 * NaN and infinity stay), and its floor subtracts 1 where that came out
 * above q.
 */
#include "aclnnop/aclnn_div.h"
#include "opapi.h"
#include "opnn.h"

enum divmod_mode {
	DIVMOD_TRUE = 0,
	DIVMOD_TRUNC = 1,
	DIVMOD_FLOOR = 2,
};

static int divmod_dtype(const aclTensor *self, const aclTensor *other, int mode)
{
	struct nnop_tensor_info si, oi;
	int dt;

	nnop_tensor_info(self, &si);
	nnop_tensor_info(other, &oi);
	dt = nnop_promote(si.acl_dtype, oi.acl_dtype);
	if (mode == DIVMOD_TRUE && !nnop_dtype_is_float(dt))
		return ACL_FLOAT;
	/* bool operands divide as integers */
	return dt == ACL_BOOL ? ACL_INT64 : dt;
}

/* An operand in the computing type, with the result's rank. */
static aclnnStatus divmod_operand(struct opnn *o, const aclTensor *t, unsigned int ndims, int card,
				  struct nnop_view *v)
{
	OPNN_TRY(opnn_input(o, t, v));
	nnop_view_align(v, ndims);
	return v->card_dtype == card ? ACLNN_SUCCESS : opnn_to_work(o, v, card);
}

/* q rounded toward zero into t. */
static aclnnStatus divmod_trunc_float(struct opnn *o, const struct nnop_view *q,
				      const struct nnop_view *t)
{
	struct nnop_view whole = opnn_work_like(o, q, NPU_DTYPE_S64);
	struct nnop_view back = opnn_work_like(o, q, q->card_dtype);
	struct nnop_view mag = opnn_work_like(o, q, q->card_dtype);
	struct nnop_view small = opnn_work_like(o, q, NPU_DTYPE_BOOL);
	struct nnop_view v[4] = { small, back, *q, *t };

	OPNN_TRY(opnn_copy(o, q, &whole));
	OPNN_TRY(opnn_copy(o, &whole, &back));
	OPNN_TRY(opnn_unary(o, NPU_UNARY_ABS, 0, 0, q, &mag));
	OPNN_TRY(opnn_binary_scalar(o, NPU_BINARY_LT, &mag, 0x1p52, &small));
	return opnn_add(o, NPU_OPERATOR_WHERE, NULL, 0, 3, v);
}

/* r = r - 1 where the pair (a, b) compares as kind, 1 or 0 in r's type. */
static aclnnStatus divmod_step_down(struct opnn *o, unsigned int kind, const struct nnop_view *a,
				    const struct nnop_view *b, const struct nnop_view *r)
{
	struct nnop_view down = opnn_work_like(o, r, r->card_dtype);

	OPNN_TRY(opnn_binary(o, kind, a, b, &down));
	return opnn_binary(o, NPU_BINARY_SUB, r, &down, r);
}

/* q, a truncated integer quotient of a by b, floored in place. */
static aclnnStatus divmod_floor_int(struct opnn *o, const struct nnop_view *a,
				    const struct nnop_view *b, const struct nnop_view *q)
{
	struct nnop_view rem = opnn_work_like(o, q, q->card_dtype);
	struct nnop_view sign = opnn_work_like(o, q, q->card_dtype);
	struct nnop_view zero;

	OPNN_TRY(opnn_binary(o, NPU_BINARY_MUL, q, b, &rem));
	OPNN_TRY(opnn_binary(o, NPU_BINARY_SUB, a, &rem, &rem));
	/* below 0 only for a remainder not 0 of the other sign; saturation keeps the sign */
	OPNN_TRY(opnn_binary(o, NPU_BINARY_MUL, &rem, b, &sign));
	zero = opnn_work_like(o, q, q->card_dtype);
	OPNN_TRY(opnn_fill(o, &zero, 0));
	return divmod_step_down(o, NPU_BINARY_LT, &sign, &zero, q);
}

static aclnnStatus divmod_build(struct opnn *o, const aclTensor *self, const aclTensor *other,
				int mode, const aclTensor *out)
{
	int64_t dims[NNOP_MAX_DIMS];
	struct nnop_tensor_info yi;
	struct nnop_view a, b, q, t, y;
	unsigned int ndims;
	int dt, card;

	OPNN_TRY(opnn_check_tensor(o, self, "self", OPNN_ALL_CARD));
	OPNN_TRY(opnn_check_tensor(o, other, "other", OPNN_ALL_CARD));
	OPNN_TRY(opnn_check_tensor(o, out, "out", OPNN_ALL_CARD));
	if (mode < DIVMOD_TRUE || mode > DIVMOD_FLOOR)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "mode %d is not 0 (true), 1 (trunc) or 2 (floor)", mode);
	nnop_tensor_info(out, &yi);
	if (mode == DIVMOD_TRUE && !nnop_dtype_is_float(yi.acl_dtype))
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "out is %s; true division (mode 0) gives a floating point type",
				 nnop_dtype_name(yi.acl_dtype));
	dt = divmod_dtype(self, other, mode);
	card = nnop_card_dtype(dt);
	if (dt == ACL_DT_UNDEFINED || card < 0)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "self and other have no common type");
	OPNN_TRY(opapi_broadcast(o->fn, self, other, dims, &ndims));
	OPNN_TRY(opnn_check_dims(o, out, "out", ndims, dims));
	OPNN_TRY(divmod_operand(o, self, ndims, card, &a));
	OPNN_TRY(divmod_operand(o, other, ndims, card, &b));
	OPNN_TRY(opnn_output(o, out, &y));
	if (!opnn_view_nelems(&y))
		return ACLNN_SUCCESS;
	q = opnn_work_like(o, &y, card);
	OPNN_TRY(opnn_binary(o, NPU_BINARY_DIV, &a, &b, &q));
	if (mode != DIVMOD_TRUE && nnop_dtype_is_float(dt)) {
		t = opnn_work_like(o, &y, card);
		OPNN_TRY(divmod_trunc_float(o, &q, &t));
		if (mode == DIVMOD_FLOOR)
			OPNN_TRY(divmod_step_down(o, NPU_BINARY_GT, &t, &q, &t));
		q = t;
	} else if (mode == DIVMOD_FLOOR) {
		OPNN_TRY(divmod_floor_int(o, &a, &b, &q));
	}
	return opnn_copy(o, &q, &y);
}

aclnnStatus aclnnDivModGetWorkspaceSize(const aclTensor *self, const aclTensor *other, int mode,
					aclTensor *out, uint64_t *workspaceSize,
					aclOpExecutor **executor)
{
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, __func__, "DivMod"));
	return opnn_end(&o, divmod_build(&o, self, other, mode, out), workspaceSize, executor);
}

OPNN_LAUNCH(DivMod)

aclnnStatus aclnnInplaceDivModGetWorkspaceSize(aclTensor *selfRef, const aclTensor *other,
					       int mode, uint64_t *workspaceSize,
					       aclOpExecutor **executor)
{
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, __func__, "InplaceDivMod"));
	return opnn_end(&o, divmod_build(&o, selfRef, other, mode, selfRef), workspaceSize,
			executor);
}

OPNN_LAUNCH(InplaceDivMod)
