// SPDX-License-Identifier: MIT
/*
 * The comparisons Eq, Ne, Gt, Ge, Lt and Le against a tensor or a scalar,
 * and LogicalNot: one BINARY compare kind over the operands in their
 * promoted type, writing 1 or 0 in out's type (bool or any other), or in
 * selfRef's for the in-place forms.
 */
#include "elem.h"
#include "aclnnop/aclnn_eq_scalar.h"
#include "aclnnop/aclnn_eq_tensor.h"
#include "aclnnop/aclnn_ge_scalar.h"
#include "aclnnop/aclnn_ge_tensor.h"
#include "aclnnop/aclnn_gt_scalar.h"
#include "aclnnop/aclnn_gt_tensor.h"
#include "aclnnop/aclnn_le_scalar.h"
#include "aclnnop/aclnn_le_tensor.h"
#include "aclnnop/aclnn_logical_not.h"
#include "aclnnop/aclnn_lt_scalar.h"
#include "aclnnop/aclnn_lt_tensor.h"
#include "aclnnop/aclnn_ne_scalar.h"
#include "aclnnop/aclnn_ne_tensor.h"

static aclnnStatus compare_run(const char *name, unsigned int kind, const aclTensor *self,
			       const aclTensor *other, const aclScalar *other_scalar,
			       const aclTensor *out, uint64_t *workspaceSize,
			       aclOpExecutor **executor)
{
	struct elem_binop b = { .kind = kind, .result = ELEM_RESULT_COMPARE, .self = self,
				.other = other, .other_scalar = other_scalar, .out = out,
				.inplace = self == out };

	return elem_run(name, elem_binop_build, &b, workspaceSize, executor);
}

/*
 * aclnn<Op>Tensor, aclnn<Op>Scalar and their Inplace forms, whose selfRef
 * is TSelf and SSelf: the vendor declares some of them const.
 */
#define COMPARE_OPS(Op, KIND, TSelf, SSelf)					\
OPAPI_EXPORT aclnnStatus aclnn##Op##TensorGetWorkspaceSize(const aclTensor *self, \
		const aclTensor *other, aclTensor *out, uint64_t *workspaceSize, \
		aclOpExecutor **executor)						\
{										\
	NNOP_CHECK_NOTNULL(self);						\
	NNOP_CHECK_NOTNULL(other);						\
	NNOP_CHECK_NOTNULL(out);						\
	return compare_run(#Op "Tensor", KIND, self, other, NULL, out,		\
			   workspaceSize, executor);				\
}										\
ELEM_LAUNCHER(Op##Tensor)							\
OPAPI_EXPORT aclnnStatus aclnnInplace##Op##TensorGetWorkspaceSize(TSelf selfRef,	\
		const aclTensor *other, uint64_t *workspaceSize,		\
		aclOpExecutor **executor)						\
{										\
	NNOP_CHECK_NOTNULL(selfRef);						\
	NNOP_CHECK_NOTNULL(other);						\
	return compare_run("Inplace" #Op "Tensor", KIND, selfRef, other, NULL,	\
			   selfRef, workspaceSize, executor);			\
}										\
ELEM_LAUNCHER(Inplace##Op##Tensor)						\
OPAPI_EXPORT aclnnStatus aclnn##Op##ScalarGetWorkspaceSize(const aclTensor *self, \
		const aclScalar *other, aclTensor *out, uint64_t *workspaceSize, \
		aclOpExecutor **executor)						\
{										\
	NNOP_CHECK_NOTNULL(self);						\
	NNOP_CHECK_NOTNULL(other);						\
	NNOP_CHECK_NOTNULL(out);						\
	return compare_run(#Op "Scalar", KIND, self, NULL, other, out,		\
			   workspaceSize, executor);				\
}										\
ELEM_LAUNCHER(Op##Scalar)							\
OPAPI_EXPORT aclnnStatus aclnnInplace##Op##ScalarGetWorkspaceSize(SSelf selfRef,	\
		const aclScalar *other, uint64_t *workspaceSize,		\
		aclOpExecutor **executor)						\
{										\
	NNOP_CHECK_NOTNULL(selfRef);						\
	NNOP_CHECK_NOTNULL(other);						\
	return compare_run("Inplace" #Op "Scalar", KIND, selfRef, NULL, other,	\
			   selfRef, workspaceSize, executor);			\
}										\
ELEM_LAUNCHER(Inplace##Op##Scalar)

COMPARE_OPS(Eq, NPU_BINARY_EQ, const aclTensor *, const aclTensor *)
COMPARE_OPS(Ne, NPU_BINARY_NE, aclTensor *, aclTensor *)
COMPARE_OPS(Gt, NPU_BINARY_GT, const aclTensor *, aclTensor *)
COMPARE_OPS(Ge, NPU_BINARY_GE, aclTensor *, aclTensor *)
COMPARE_OPS(Lt, NPU_BINARY_LT, const aclTensor *, const aclTensor *)
COMPARE_OPS(Le, NPU_BINARY_LE, aclTensor *, aclTensor *)

/* LogicalNot: self == 0, for any type of self. */
static aclnnStatus logical_not_run(const char *name, const aclTensor *self, const aclTensor *out,
				   uint64_t *workspaceSize, aclOpExecutor **executor)
{
	struct elem_binop b = { .kind = NPU_BINARY_EQ, .result = ELEM_RESULT_COMPARE,
				.self = self, .other_is_zero = true, .out = out,
				.inplace = self == out };

	return elem_run(name, elem_binop_build, &b, workspaceSize, executor);
}

OPAPI_EXPORT aclnnStatus aclnnLogicalNotGetWorkspaceSize(const aclTensor *self, aclTensor *out,
							uint64_t *workspaceSize,
							aclOpExecutor **executor)
{
	NNOP_CHECK_NOTNULL(self);
	NNOP_CHECK_NOTNULL(out);
	return logical_not_run("LogicalNot", self, out, workspaceSize, executor);
}
ELEM_LAUNCHER(LogicalNot)

OPAPI_EXPORT aclnnStatus aclnnInplaceLogicalNotGetWorkspaceSize(aclTensor *selfRef,
							       uint64_t *workspaceSize,
							       aclOpExecutor **executor)
{
	NNOP_CHECK_NOTNULL(selfRef);
	return logical_not_run("InplaceLogicalNot", selfRef, selfRef, workspaceSize, executor);
}
ELEM_LAUNCHER(InplaceLogicalNot)
