/* SPDX-License-Identifier: MIT */
/*
 * What the layout, reduction, normalisation and compute operators of
 * libopapi share: naming an operator's tensors with the checks every
 * operator makes, the card operators they are built from (a copy, a fill,
 * a unary, a binary, a reduction), and axis arithmetic.  Each helper that
 * fails has recorded a message naming the operator (fn) and returns the
 * ACLNN_ERR_* code to return as it is.
 */
#ifndef OPNN_H
#define OPNN_H

#include <string.h>

#include "nnop.h"

/* Sets of aclDataTypes, a bit each (every aclDataType an operator takes is < 64). */
#define OPNN_DT(t)		(1ULL << (t))
#define OPNN_FLOATS		(OPNN_DT(ACL_FLOAT) | OPNN_DT(ACL_FLOAT16) | OPNN_DT(ACL_BF16))
#define OPNN_INTS		(OPNN_DT(ACL_INT8) | OPNN_DT(ACL_UINT8) | OPNN_DT(ACL_INT16) | \
				 OPNN_DT(ACL_INT32) | OPNN_DT(ACL_INT64))
#define OPNN_ALL_CARD		(OPNN_FLOATS | OPNN_INTS | OPNN_DT(ACL_BOOL) | OPNN_DT(ACL_DOUBLE))

/* Returns expr's status unless it is ACLNN_SUCCESS (its message already recorded). */
#define OPNN_TRY(expr)							\
	do {								\
		aclnnStatus opnn_try_ = (expr);				\
		if (opnn_try_ != ACLNN_SUCCESS)				\
			return opnn_try_;				\
	} while (0)

/* One operator being translated: its name for messages and its executor. */
struct opnn {
	const char *fn;
	aclOpExecutor *x;
};

/* "op: " messages and codes, as NNOP_FAIL but naming the operator. */
#define OPNN_FAIL(o, code, ...)	nnop_fail((o)->fn, code, __VA_ARGS__)

aclnnStatus opnn_begin(struct opnn *o, const char *fn, const char *op_name);
/* Finishes (status 0) or abandons o's executor; returns status or finish's. */
aclnnStatus opnn_end(struct opnn *o, aclnnStatus status, uint64_t *workspace_size,
		     aclOpExecutor **executor);

/* t is not NULL, its type is in types and the card has it. */
aclnnStatus opnn_check_tensor(const struct opnn *o, const aclTensor *t, const char *name,
			      uint64_t types);
aclnnStatus opnn_check_same_dtype(const struct opnn *o, const aclTensor *a, const char *an,
				  const aclTensor *b, const char *bn);
/* t's dims are dims[0..ndims). */
aclnnStatus opnn_check_dims(const struct opnn *o, const aclTensor *t, const char *name,
			    unsigned int ndims, const int64_t *dims);
aclnnStatus opnn_check_rank(const struct opnn *o, const aclTensor *t, const char *name,
			    unsigned int min, unsigned int max);

/* Names t as the next input (output) and gives its view. */
aclnnStatus opnn_input(struct opnn *o, const aclTensor *t, struct nnop_view *v);
aclnnStatus opnn_output(struct opnn *o, const aclTensor *t, struct nnop_view *v);

/* dim counted from the end when negative, into [0, ndims); ndims 0 takes 0 and -1. */
aclnnStatus opnn_axis(const struct opnn *o, int64_t dim, unsigned int ndims, unsigned int *axis);

int64_t opnn_view_nelems(const struct nnop_view *v);
bool opnn_view_contiguous(const struct nnop_view *v);
/* Row-major strides for v's dims. */
void opnn_view_set_dense(struct nnop_view *v);

/* Card operators. */
aclnnStatus opnn_add(struct opnn *o, unsigned int kind, const void *attrs, size_t size,
		     unsigned int num_inputs, const struct nnop_view *views);
/* dst = src (CAST: converts, and src may broadcast). */
aclnnStatus opnn_copy(struct opnn *o, const struct nnop_view *src, const struct nnop_view *dst);
/* A dense copy of v in workspace, in card_dtype; v becomes it. */
aclnnStatus opnn_to_work(struct opnn *o, struct nnop_view *v, int card_dtype);
/* opnn_to_work unless v is already dense and of card_dtype. */
aclnnStatus opnn_dense(struct opnn *o, struct nnop_view *v, int card_dtype);
aclnnStatus opnn_fill(struct opnn *o, const struct nnop_view *dst, double value);
aclnnStatus opnn_unary(struct opnn *o, unsigned int kind, float alpha, float beta,
		       const struct nnop_view *x, const struct nnop_view *y);
aclnnStatus opnn_binary(struct opnn *o, unsigned int kind, const struct nnop_view *a,
			const struct nnop_view *b, const struct nnop_view *y);
/* y = a <kind> value, value broadcast. */
aclnnStatus opnn_binary_scalar(struct opnn *o, unsigned int kind, const struct nnop_view *a,
			       double value, const struct nnop_view *y);
/* y (x's rank, dims of 1 on axes) = reduction of x over the axes in mask. */
aclnnStatus opnn_reduce(struct opnn *o, unsigned int kind, uint32_t axes,
			const struct nnop_view *x, const struct nnop_view *y);
/* A dense workspace view with x's dims, 1 on the axes in mask. */
struct nnop_view opnn_work_reduced(struct opnn *o, const struct nnop_view *x, uint32_t axes,
				   int card_dtype);
/* A dense workspace view shaped like x. */
struct nnop_view opnn_work_like(struct opnn *o, const struct nnop_view *x, int card_dtype);

/* An IEEE binary32 bit pattern, as attributes hold floats. */
uint32_t opnn_f32_bits(double v);
struct npu_activation opnn_no_act(void);

/* aclnn<name>(): the second phase, the same for every operator. */
#define OPNN_LAUNCH(name)							\
	aclnnStatus aclnn##name(void *workspace, uint64_t workspaceSize,	\
				aclOpExecutor *executor, aclrtStream stream)	\
	{									\
		return nnop_launch(workspace, workspaceSize, executor, stream, #name); \
	}

#endif /* OPNN_H */
