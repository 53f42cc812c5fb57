// SPDX-License-Identifier: MIT
/*
 * aclnnAdd, aclnnAdds and their Inplace forms: out = self + alpha * other,
 * computed in the promoted type of self and other (PyTorch's rules) and
 * stored in out's.  One BINARY ADD on the card, after a MUL by alpha when
 * alpha is not 1 and CASTs where the types differ (not of an F16 or BF16
 * operand of an F32 sum: the card reads it as it is).  Libopapi's worked
 * example: check, name the tensors, append card operators, finish.
 */
#include <endian.h>

#include "aclnnop/aclnn_add.h"
#include "opapi.h"

/* The type the sum is computed in: self's and other's promoted, which out and alpha fit. */
static aclnnStatus calc_type(const char *op, int self, int other, int out, const aclScalar *alpha,
			     int *calc)
{
	int t = nnop_promote(self, other);

	if (t == ACL_DT_UNDEFINED)
		return nnop_fail(op, ACLNN_ERR_PARAM_INVALID, "self (%s) and other (%s) have no "
				 "common type", nnop_dtype_name(self), nnop_dtype_name(other));
	if (!opapi_can_cast(t, out))
		return nnop_fail(op, ACLNN_ERR_PARAM_INVALID, "the result's type %s cannot be "
				 "stored in out (%s)", nnop_dtype_name(t), nnop_dtype_name(out));
	if (!opapi_can_cast(nnop_scalar_acl_dtype(alpha), t))
		return nnop_fail(op, ACLNN_ERR_PARAM_INVALID, "alpha (%s) cannot be converted to "
				 "the result's type %s",
				 nnop_dtype_name(nnop_scalar_acl_dtype(alpha)), nnop_dtype_name(t));
	if (opapi_check_card_type(op, "the result's type", t) ||
	    opapi_check_card_type(op, "out", out))
		return ACLNN_ERR_PARAM_INVALID;
	*calc = nnop_card_dtype(t);
	return ACLNN_SUCCESS;
}

/* b scaled by alpha in type calc, into workspace, unless alpha is 1. */
static aclnnStatus scale(aclOpExecutor *x, double alpha, int calc, struct nnop_view *b)
{
	struct nnop_view cb, a, y;
	aclnnStatus err;

	if (alpha == 1.0)
		return ACLNN_SUCCESS;
	err = opapi_operand(x, NPU_BINARY_MUL, b, calc, &cb);
	if (!err)
		err = nnop_view_scalar(x, alpha, calc, cb.ndims, &a);
	if (err)
		return err;
	y = nnop_view_work(x, calc, cb.ndims, cb.dims);
	err = opapi_binary(x, NPU_BINARY_MUL, &cb, &a, &y);
	*b = y;
	return err;
}

/* out (slot y) = self (slot s) + alpha * b, b an input's view or a scalar's. */
static aclnnStatus add_program(aclOpExecutor *x, int s, struct nnop_view *b, double alpha,
			       int y, int calc, unsigned int rank)
{
	struct nnop_view a = opapi_view(x, s, rank), out = opapi_view(x, y, rank);
	aclnnStatus err = scale(x, alpha, calc, b);

	if (!err)
		err = opapi_binary_in(x, NPU_BINARY_ADD, calc, &a, b, &out);
	return err;
}

static aclnnStatus add_tensor(const char *op, const char *name, const aclTensor *self,
			      const aclTensor *other, const aclScalar *alpha, const aclTensor *out,
			      uint64_t *workspace_size, aclOpExecutor **executor)
{
	struct nnop_tensor_info is, io, iy;
	int64_t dims[NNOP_MAX_DIMS];
	unsigned int ndims;
	struct nnop_view b;
	aclOpExecutor *x;
	aclnnStatus err;
	int calc, s, o, y;

	nnop_tensor_info(self, &is);
	nnop_tensor_info(other, &io);
	nnop_tensor_info(out, &iy);
	err = calc_type(op, is.acl_dtype, io.acl_dtype, iy.acl_dtype, alpha, &calc);
	if (!err)
		err = opapi_broadcast(op, self, other, dims, &ndims);
	if (!err)
		err = opapi_check_shape(op, "out", out, dims, ndims);
	if (err)
		return err;
	x = nnop_executor_new(name);
	if (!x)
		return ACLNN_ERR_INNER_CREATE_EXECUTOR;
	if ((s = nnop_executor_input(x, self)) < 0 || (o = nnop_executor_input(x, other)) < 0 ||
	    (y = nnop_executor_output(x, out)) < 0) {
		nnop_executor_abandon(x);
		return ACLNN_ERR_INNER_CREATE_EXECUTOR;
	}
	b = opapi_view(x, o, ndims);
	err = add_program(x, s, &b, nnop_scalar_f64(alpha), y, calc, ndims);
	if (err) {
		nnop_executor_abandon(x);
		return err;
	}
	return nnop_executor_finish(x, workspace_size, executor);
}

/* A scalar other: the result has self's type, or a float one when other is float and self not. */
static int scalar_result_type(int self, int other)
{
	if (nnop_dtype_is_float(other) && !nnop_dtype_is_float(self))
		return ACL_FLOAT;
	if (nnop_dtype_is_int(other) && self == ACL_BOOL)
		return ACL_INT64;
	return self;
}

static aclnnStatus add_scalar(const char *op, const char *name, const aclTensor *self,
			      const aclScalar *other, const aclScalar *alpha, const aclTensor *out,
			      uint64_t *workspace_size, aclOpExecutor **executor)
{
	struct nnop_tensor_info is, iy;
	struct nnop_view b;
	aclOpExecutor *x;
	aclnnStatus err;
	int calc, s, y, t;

	nnop_tensor_info(self, &is);
	nnop_tensor_info(out, &iy);
	t = scalar_result_type(is.acl_dtype, nnop_scalar_acl_dtype(other));
	err = calc_type(op, t, t, iy.acl_dtype, alpha, &calc);
	if (!err)
		err = opapi_check_shape(op, "out", out, is.dims, is.ndims);
	if (err)
		return err;
	x = nnop_executor_new(name);
	if (!x)
		return ACLNN_ERR_INNER_CREATE_EXECUTOR;
	if ((s = nnop_executor_input(x, self)) < 0 || (y = nnop_executor_output(x, out)) < 0) {
		nnop_executor_abandon(x);
		return ACLNN_ERR_INNER_CREATE_EXECUTOR;
	}
	err = nnop_view_scalar(x, nnop_scalar_f64(other) * nnop_scalar_f64(alpha), calc,
			       is.ndims ? is.ndims : 1, &b);
	if (!err)
		err = add_program(x, s, &b, 1.0, y, calc, is.ndims);
	if (err) {
		nnop_executor_abandon(x);
		return err;
	}
	return nnop_executor_finish(x, workspace_size, executor);
}

OPAPI_EXPORT aclnnStatus aclnnAddGetWorkspaceSize(const aclTensor *self, const aclTensor *other,
						  const aclScalar *alpha, aclTensor *out,
						  uint64_t *workspaceSize,
						  aclOpExecutor **executor)
{
	NNOP_CHECK_NOTNULL(self);
	NNOP_CHECK_NOTNULL(other);
	NNOP_CHECK_NOTNULL(alpha);
	NNOP_CHECK_NOTNULL(out);
	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	return add_tensor(__func__, "Add", self, other, alpha, out, workspaceSize, executor);
}

OPAPI_EXPORT aclnnStatus aclnnAddsGetWorkspaceSize(const aclTensor *self, const aclScalar *other,
						   const aclScalar *alpha, aclTensor *out,
						   uint64_t *workspaceSize,
						   aclOpExecutor **executor)
{
	NNOP_CHECK_NOTNULL(self);
	NNOP_CHECK_NOTNULL(other);
	NNOP_CHECK_NOTNULL(alpha);
	NNOP_CHECK_NOTNULL(out);
	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	return add_scalar(__func__, "Adds", self, other, alpha, out, workspaceSize, executor);
}

OPAPI_EXPORT aclnnStatus aclnnInplaceAddGetWorkspaceSize(const aclTensor *selfRef,
							 const aclTensor *other,
							 const aclScalar *alpha,
							 uint64_t *workspaceSize,
							 aclOpExecutor **executor)
{
	NNOP_CHECK_NOTNULL(selfRef);
	NNOP_CHECK_NOTNULL(other);
	NNOP_CHECK_NOTNULL(alpha);
	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	return add_tensor(__func__, "InplaceAdd", selfRef, other, alpha, selfRef, workspaceSize, executor);
}

OPAPI_EXPORT aclnnStatus aclnnInplaceAddsGetWorkspaceSize(const aclTensor *selfRef,
							  const aclScalar *other,
							  const aclScalar *alpha,
							  uint64_t *workspaceSize,
							  aclOpExecutor **executor)
{
	NNOP_CHECK_NOTNULL(selfRef);
	NNOP_CHECK_NOTNULL(other);
	NNOP_CHECK_NOTNULL(alpha);
	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	return add_scalar(__func__, "InplaceAdds", selfRef, other, alpha, selfRef, workspaceSize, executor);
}

OPAPI_EXPORT aclnnStatus aclnnAdd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
				  aclrtStream stream)
{
	return nnop_launch(workspace, workspaceSize, executor, stream, __func__);
}

OPAPI_EXPORT aclnnStatus aclnnAdds(void *workspace, uint64_t workspaceSize,
				   aclOpExecutor *executor, aclrtStream stream)
{
	return nnop_launch(workspace, workspaceSize, executor, stream, __func__);
}

OPAPI_EXPORT aclnnStatus aclnnInplaceAdd(void *workspace, uint64_t workspaceSize,
					 aclOpExecutor *executor, aclrtStream stream)
{
	return nnop_launch(workspace, workspaceSize, executor, stream, __func__);
}

OPAPI_EXPORT aclnnStatus aclnnInplaceAdds(void *workspace, uint64_t workspaceSize,
					  aclOpExecutor *executor, aclrtStream stream)
{
	return nnop_launch(workspace, workspaceSize, executor, stream, __func__);
}
