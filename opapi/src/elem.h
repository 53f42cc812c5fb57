/* SPDX-License-Identifier: MIT */
/*
 * elem: what the elementwise, compare and fill operators share.  Each of
 * those is a build function that checks its arguments and appends card
 * operators to an executor; elem_run() wraps it in the executor's life,
 * and the helpers here name tensors as views of one rank, convert data
 * types through CAST into workspace, and append UNARY and BINARY
 * operators.
 */
#ifndef OPAPI_ELEM_H
#define OPAPI_ELEM_H

#include <stdbool.h>
#include <stdint.h>

#include "nnop.h"
#include "opapi.h"

/* aclnn<name>: queue the executor its GetWorkspaceSize made. */
#define ELEM_LAUNCHER(name)							\
	OPAPI_EXPORT aclnnStatus aclnn##name(void *workspace, uint64_t workspace_size, \
					     aclOpExecutor *executor, aclrtStream stream) \
	{									\
		return nnop_launch(workspace, workspace_size, executor, stream, __func__); \
	}

typedef aclnnStatus (*elem_build_fn)(aclOpExecutor *x, const void *args);

/*
 * Records a message that names the aclnn function being built (the one
 * elem_run() runs) and returns code.
 */
#define ELEM_FAIL(code, ...)	nnop_fail(elem_func(), code, __VA_ARGS__)
const char *elem_func(void);

/*
 * A new executor for op_name, build(x, args) on it, then finished into
 * *workspace_size and *executor, or abandoned when build fails.
 */
aclnnStatus elem_run(const char *op_name, elem_build_fn build, const void *args,
		     uint64_t *workspace_size, aclOpExecutor **executor);

/* ---- checks ---------------------------------------------------------- */

/*
 * ACLNN_ERR_PARAM_INVALID unless t's data type is one of the card's and,
 * with allowed non-zero, one of the classes in allowed.
 */
enum elem_class {
	ELEM_FLOAT = 1 << 0,	/* F16, BF16, F32 */
	ELEM_INT = 1 << 1,	/* the card's integer types */
	ELEM_BOOL = 1 << 2,
	ELEM_ANY = ELEM_FLOAT | ELEM_INT | ELEM_BOOL,
};
aclnnStatus elem_check_dtype(const aclTensor *t, const char *what, unsigned int allowed);
bool elem_dtype_in(int acl_dtype, unsigned int classes);

/* The numpy broadcast of a's and b's dims (opapi_broadcast()). */
aclnnStatus elem_broadcast(const aclTensor *a, const aclTensor *b, int64_t *dims,
			   unsigned int *ndims);
/* ACLNN_ERR_PARAM_INVALID unless t's shape is dims, or like's. */
aclnnStatus elem_check_shape(const aclTensor *t, const char *what, const int64_t *dims,
			     unsigned int ndims);
aclnnStatus elem_check_same_shape(const aclTensor *t, const char *what, const aclTensor *like);
/*
 * ACLNN_ERR_PARAM_INVALID unless a result of acl_dtype may be stored in
 * out as PyTorch allows (no float into an integer, nothing but bool into
 * bool).
 */
aclnnStatus elem_check_store(int acl_dtype, const aclTensor *out, const char *what);

int elem_acl_dtype(const aclTensor *t);
int64_t elem_nelems(const aclTensor *t);
unsigned int elem_ndims(const aclTensor *t);
/* The result type of tensor t with a scalar s, as PyTorch has it. */
int elem_promote_scalar(const aclTensor *t, const aclScalar *s);

/* ---- views ----------------------------------------------------------- */

/*
 * The card's operators want an axis, so the views of 0-d tensors and
 * scalars here have one dim of 1.
 *
 * t named as the executor's next input, seen with ndims dims, in
 * acl_dtype (a CAST into workspace when t has another).
 */
aclnnStatus elem_input(aclOpExecutor *x, const aclTensor *t, unsigned int ndims, int acl_dtype,
		       struct nnop_view *v);
/* t named as the executor's next output. */
aclnnStatus elem_output(aclOpExecutor *x, const aclTensor *t, struct nnop_view *v);
/* value as one element of acl_dtype, broadcasting at rank ndims. */
aclnnStatus elem_scalar(aclOpExecutor *x, double value, int acl_dtype, unsigned int ndims,
			struct nnop_view *v);
/*
 * Where to compute a result for out in acl_dtype: out itself when it has
 * that type, else fresh workspace of out's dims, which elem_store() then
 * casts into out.
 */
struct nnop_view elem_target(aclOpExecutor *x, const struct nnop_view *out, int acl_dtype);
aclnnStatus elem_store(aclOpExecutor *x, const struct nnop_view *result,
		       const struct nnop_view *out);
/* Fresh workspace with v's dims in acl_dtype. */
struct nnop_view elem_temp(aclOpExecutor *x, const struct nnop_view *like, int acl_dtype);

/* ---- card operators -------------------------------------------------- */

aclnnStatus elem_cast(aclOpExecutor *x, const struct nnop_view *in, const struct nnop_view *out);
aclnnStatus elem_unary(aclOpExecutor *x, unsigned int kind, float alpha, float beta,
		       const struct nnop_view *in, const struct nnop_view *out);
/* out = cond ? a : b */
aclnnStatus elem_where(aclOpExecutor *x, const struct nnop_view *cond, const struct nnop_view *a,
		       const struct nnop_view *b, const struct nnop_view *out);

/* ---- two operands (op_binary.c) --------------------------------------- */

enum elem_result {
	ELEM_RESULT_PROMOTED,	/* in the operands' promoted type */
	ELEM_RESULT_FLOAT,	/* promoted, integers to float (true division) */
	ELEM_RESULT_COMPARE,	/* 1 or 0 in out's type */
};

/*
 * out = self <kind> alpha * other: each operand a tensor or, where the
 * tensor is NULL, a scalar (other 0 with other_is_zero); alpha NULL for 1.  In-place: out is self,
 * named as an input and then as the output.
 */
struct elem_binop {
	unsigned int kind;		/* enum npu_binary_kind */
	enum elem_result result;
	const aclTensor *self, *other;
	const aclScalar *self_scalar, *other_scalar, *alpha;
	bool other_is_zero;
	const aclTensor *out;
	bool inplace;
};

aclnnStatus elem_binop_build(aclOpExecutor *x, const void *binop);

#endif /* OPAPI_ELEM_H */
