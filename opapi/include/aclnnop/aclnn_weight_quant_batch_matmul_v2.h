/* SPDX-License-Identifier: MIT */
/*
 * WeightQuantBatchMatmulV2: a matmul with quantized weights. The vendor's
 * declarations; not on this card yet (issue 26): each call returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR with a message.
 */
#ifndef ACLNNOP_ACLNN_WEIGHT_QUANT_BATCH_MATMUL_V2_H
#define ACLNNOP_ACLNN_WEIGHT_QUANT_BATCH_MATMUL_V2_H

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnWeightQuantBatchMatmulV2GetWorkspaceSize(const aclTensor *x,
	const aclTensor *weight, const aclTensor *antiquantScale, const aclTensor *antiquantOffsetOptional,
	const aclTensor *quantScaleOptional, const aclTensor *quantOffsetOptional,
	const aclTensor *biasOptional, int antiquantGroupSize, const aclTensor *y, uint64_t *workspaceSize,
	aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnWeightQuantBatchMatmulV2(void *workspace, uint64_t workspaceSize,
	aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_WEIGHT_QUANT_BATCH_MATMUL_V2_H */
