// SPDX-License-Identifier: MIT
/*
 * The operators of issue 26 (attention, rotary embedding, quantized and
 * grouped matmuls, sorts, cumulative sums, gathers and scatters, im2col,
 * triangular solves, rolls, ...): declared as the vendor does so that
 * programs written for the vendor's library (ggml's CANN backend) build and
 * link, and refused at run time with ACLNN_ERR_INNER_FIND_KERNEL_ERROR and
 * a message naming the operator.  One row each, parameters as declared.
 */
#include "opapi.h"
#include "aclnnop/aclnn_recurrent_gated_delta_rule.h"

#define LATER_OPERATORS(X) \
	X(RecurrentGatedDeltaRule, const aclTensor *query, const aclTensor *key, \
	  const aclTensor *value, const aclTensor *beta, aclTensor *stateRef, \
	  const aclTensor *actualSeqLengths, const aclTensor *ssmStateIndices, const aclTensor *g, \
	  const aclTensor *gk, const aclTensor *numAcceptedTokens, float scaleValue, \
	  aclTensor *out)

static aclnnStatus not_yet(const char *func, const char *op)
{
	return nnop_fail(func, ACLNN_ERR_INNER_FIND_KERNEL_ERROR, "%s: not on this card yet "
			 "(issue 26)", op);
}

/* The rows name every parameter; a refusal uses none of them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

#define LATER_DEFINE(op, ...)							\
	OPAPI_EXPORT aclnnStatus aclnn##op##GetWorkspaceSize(__VA_ARGS__,		\
							     uint64_t *workspaceSize,	\
							     aclOpExecutor **executor)	\
	{									\
		return not_yet(__func__, #op);					\
	}									\
	OPAPI_EXPORT aclnnStatus aclnn##op(void *workspace, uint64_t workspaceSize,	\
					   aclOpExecutor *executor, aclrtStream stream)	\
	{									\
		return not_yet(__func__, #op);					\
	}

LATER_OPERATORS(LATER_DEFINE)
