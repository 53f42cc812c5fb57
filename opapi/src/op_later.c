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
#include "aclnnop/aclnn_addcdiv.h"
#include "aclnnop/aclnn_argmax.h"
#include "aclnnop/aclnn_argsort.h"
#include "aclnnop/aclnn_cumsum.h"
#include "aclnnop/aclnn_embedding.h"
#include "aclnnop/aclnn_fused_infer_attention_score_v2.h"
#include "aclnnop/aclnn_gather_v2.h"
#include "aclnnop/aclnn_ger.h"
#include "aclnnop/aclnn_im2col.h"
#include "aclnnop/aclnn_index_copy.h"
#include "aclnnop/aclnn_index_fill_tensor.h"
#include "aclnnop/aclnn_index_select.h"
#include "aclnnop/aclnn_recurrent_gated_delta_rule.h"
#include "aclnnop/aclnn_roll.h"
#include "aclnnop/aclnn_rotary_position_embedding.h"
#include "aclnnop/aclnn_scatter.h"
#include "aclnnop/aclnn_softmax_cross_entropy_with_logits.h"
#include "aclnnop/aclnn_sum.h"
#include "aclnnop/aclnn_triangular_solve.h"

#define LATER_OPERATORS(X) \
	X(Argsort, const aclTensor *self, int64_t dim, bool descending, aclTensor *out) \
	X(ArgMax, const aclTensor *self, int64_t dim, bool keepdim, aclTensor *out) \
	X(Cumsum, const aclTensor *self, int64_t dim, aclDataType dtype, aclTensor *out) \
	X(CumsumV2, const aclTensor *self, int64_t dim, bool exclusive, bool reverse, \
	  aclTensor *out) \
	X(Embedding, const aclTensor *weight, const aclTensor *indices, const aclTensor *out) \
	X(GatherV2, const aclTensor *self, int64_t dim, const aclTensor *index, aclTensor *out) \
	X(IndexSelect, const aclTensor *self, int64_t dim, const aclTensor *index, aclTensor *out) \
	X(IndexCopy, aclTensor *selfRef, int64_t dim, const aclTensor *index, \
	  const aclTensor *source, aclTensor *outRef) \
	X(InplaceIndexCopy, aclTensor *selfRef, int64_t dim, const aclTensor *index, \
	  const aclTensor *source) \
	X(IndexFillTensor, const aclTensor *self, int64_t dim, const aclIntArray *index, \
	  const aclScalar *value, aclTensor *out) \
	X(InplaceIndexFillTensor, aclTensor *selfRef, int64_t dim, const aclIntArray *index, \
	  const aclScalar *value) \
	X(Scatter, const aclTensor *self, int64_t dim, const aclTensor *index, \
	  const aclTensor *src, int64_t reduce, aclTensor *out) \
	X(ScatterValue, const aclTensor *self, int64_t dim, const aclTensor *index, \
	  const aclScalar *value, int64_t reduce, aclTensor *out) \
	X(InplaceScatter, aclTensor *selfRef, int64_t dim, const aclTensor *index, \
	  const aclTensor *src, int64_t reduce) \
	X(InplaceScatterValue, aclTensor *selfRef, int64_t dim, const aclTensor *index, \
	  const aclScalar *value, int64_t reduce) \
	X(Im2col, const aclTensor *self, const aclIntArray *kernelSize, \
	  const aclIntArray *dilation, const aclIntArray *padding, const aclIntArray *stride, \
	  const aclTensor *out) \
	X(Roll, const aclTensor *x, const aclIntArray *shifts, const aclIntArray *dims, \
	  aclTensor *out) \
	X(TriangularSolve, const aclTensor *self, const aclTensor *A, bool upper, bool transpose, \
	  bool unitriangular, aclTensor *xOut, aclTensor *mOut) \
	X(SoftmaxCrossEntropyWithLogits, const aclTensor *features, aclTensor *labels, \
	  aclTensor *loss, aclTensor *backprop) \
	X(Addcdiv, const aclTensor *self, const aclTensor *tensor1, const aclTensor *tensor2, \
	  const aclScalar *value, const aclTensor *out) \
	X(InplaceAddcdiv, const aclTensor *selfRef, const aclTensor *tensor1, \
	  const aclTensor *tensor2, const aclScalar *value) \
	X(Ger, const aclTensor *self, const aclTensor *vec2, aclTensor *out) \
	X(Sum, const aclTensorList *tensors, aclTensor *out) \
	X(RotaryPositionEmbedding, const aclTensor *x, const aclTensor *cos, const aclTensor *sin, \
	  int64_t mode, const aclTensor *yOut) \
	X(RecurrentGatedDeltaRule, const aclTensor *query, const aclTensor *key, \
	  const aclTensor *value, const aclTensor *beta, aclTensor *stateRef, \
	  const aclTensor *actualSeqLengths, const aclTensor *ssmStateIndices, const aclTensor *g, \
	  const aclTensor *gk, const aclTensor *numAcceptedTokens, float scaleValue, \
	  aclTensor *out) \
	X(FusedInferAttentionScoreV2, const aclTensor *query, const aclTensorList *key, \
	  const aclTensorList *value, const aclTensor *pseShiftOptional, \
	  const aclTensor *attenMaskOptional, const aclIntArray *actualSeqLengthsOptional, \
	  const aclIntArray *actualSeqLengthsKvOptional, const aclTensor *deqScale1Optional, \
	  const aclTensor *quantScale1Optional, const aclTensor *deqScale2Optional, \
	  const aclTensor *quantScale2Optional, const aclTensor *quantOffset2Optional, \
	  const aclTensor *antiquantScaleOptional, const aclTensor *antiquantOffsetOptional, \
	  const aclTensor *blockTableOptional, const aclTensor *queryPaddingSizeOptional, \
	  const aclTensor *kvPaddingSizeOptional, const aclTensor *keyAntiquantScaleOptional, \
	  const aclTensor *keyAntiquantOffsetOptional, \
	  const aclTensor *valueAntiquantScaleOptional, \
	  const aclTensor *valueAntiquantOffsetOptional, const aclTensor *keySharedPrefixOptional, \
	  const aclTensor *valueSharedPrefixOptional, \
	  const aclIntArray *actualSharedPrefixLenOptional, int64_t numHeads, double scaleValue, \
	  int64_t preTokens, int64_t nextTokens, char *inputLayout, int64_t numKeyValueHeads, \
	  int64_t sparseMode, int64_t innerPrecise, int64_t blockSize, int64_t antiquantMode, \
	  bool softmaxLseFlag, int64_t keyAntiquantMode, int64_t valueAntiquantMode, \
	  const aclTensor *attentionOut, const aclTensor *softmaxLse)

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
