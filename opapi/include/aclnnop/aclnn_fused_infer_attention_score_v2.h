/* SPDX-License-Identifier: MIT */
/*
 * FusedInferAttentionScoreV2: flash attention for inference. The vendor's
 * declarations; see docs/aclnn-attention.md and opapi/src/op_attention.c.
 */
#ifndef ACLNNOP_ACLNN_FUSED_INFER_ATTENTION_SCORE_V2_H
#define ACLNNOP_ACLNN_FUSED_INFER_ATTENTION_SCORE_V2_H

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnFusedInferAttentionScoreV2GetWorkspaceSize(const aclTensor *query,
	const aclTensorList *key, const aclTensorList *value, const aclTensor *pseShiftOptional,
	const aclTensor *attenMaskOptional, const aclIntArray *actualSeqLengthsOptional,
	const aclIntArray *actualSeqLengthsKvOptional, const aclTensor *deqScale1Optional,
	const aclTensor *quantScale1Optional, const aclTensor *deqScale2Optional,
	const aclTensor *quantScale2Optional, const aclTensor *quantOffset2Optional,
	const aclTensor *antiquantScaleOptional, const aclTensor *antiquantOffsetOptional,
	const aclTensor *blockTableOptional, const aclTensor *queryPaddingSizeOptional,
	const aclTensor *kvPaddingSizeOptional, const aclTensor *keyAntiquantScaleOptional,
	const aclTensor *keyAntiquantOffsetOptional, const aclTensor *valueAntiquantScaleOptional,
	const aclTensor *valueAntiquantOffsetOptional, const aclTensor *keySharedPrefixOptional,
	const aclTensor *valueSharedPrefixOptional, const aclIntArray *actualSharedPrefixLenOptional,
	int64_t numHeads, double scaleValue, int64_t preTokens, int64_t nextTokens, char *inputLayout,
	int64_t numKeyValueHeads, int64_t sparseMode, int64_t innerPrecise, int64_t blockSize,
	int64_t antiquantMode, bool softmaxLseFlag, int64_t keyAntiquantMode, int64_t valueAntiquantMode,
	const aclTensor *attentionOut, const aclTensor *softmaxLse, uint64_t *workspaceSize,
	aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnFusedInferAttentionScoreV2(void *workspace, uint64_t workspaceSize,
	aclOpExecutor *executor, const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_FUSED_INFER_ATTENTION_SCORE_V2_H */
