/* SPDX-License-Identifier: MIT */
/*
 * What libopapi's operators share: the checks every operator makes and
 * the card operators most are built from, over nnop.h.
 */
#ifndef OPAPI_H
#define OPAPI_H

#include "nnop.h"

#define OPAPI_EXPORT	__attribute__((visibility("default")))

/* ACLNN_ERR_PARAM_INVALID unless the card has a type for t (message names what and op). */
aclnnStatus opapi_check_card_type(const char *op, const char *what, int acl_dtype);
/*
 * numpy's broadcast of a's and b's dims into dims (*ndims of them);
 * ACLNN_ERR_PARAM_INVALID if they do not broadcast.
 */
aclnnStatus opapi_broadcast(const char *op, const aclTensor *a, const aclTensor *b,
			    int64_t *dims, unsigned int *ndims);
/* ACLNN_ERR_PARAM_INVALID unless t's dims are dims. */
aclnnStatus opapi_check_shape(const char *op, const char *what, const aclTensor *t,
			      const int64_t *dims, unsigned int ndims);
/* out may hold a value of type from: a cast that loses no kind (float to int, say). */
bool opapi_can_cast(int from, int to);

/* slot's view with leading dims of 1 up to rank (at least 1: the card's operators want an axis). */
struct nnop_view opapi_view(const aclOpExecutor *x, int slot, unsigned int rank);
/* *out is v in card type card_dtype: v itself, or a CAST of it into workspace. */
aclnnStatus opapi_cast(aclOpExecutor *x, const struct nnop_view *v, int card_dtype,
		       struct nnop_view *out);
/*
 * *out is v as an operand of BINARY's kind computed in card type calc:
 * v itself when the card reads v's type as calc (a half float source of
 * F32 arithmetic, widened as it is read: no workspace), else opapi_cast().
 */
aclnnStatus opapi_operand(aclOpExecutor *x, unsigned int kind, const struct nnop_view *v,
			  int calc, struct nnop_view *out);
/* y = a <kind> b, enum npu_binary_kind. */
aclnnStatus opapi_binary(aclOpExecutor *x, unsigned int kind, const struct nnop_view *a,
			 const struct nnop_view *b, const struct nnop_view *y);
/*
 * y = a <kind> b computed in card type calc, casting a and b to it first
 * and the result to y's type after, as the vendor's operators compute in
 * the promoted type and store in out's.
 */
aclnnStatus opapi_binary_in(aclOpExecutor *x, unsigned int kind, int calc,
			    const struct nnop_view *a, const struct nnop_view *b,
			    const struct nnop_view *y);

#endif /* OPAPI_H */
