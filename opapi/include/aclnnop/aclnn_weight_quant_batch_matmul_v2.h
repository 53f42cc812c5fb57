/* SPDX-License-Identifier: MIT */
/*
 * WeightQuantBatchMatmulV2: a matmul with INT8 or INT4 weights dequantised
 * inside the product. The vendor's declarations; docs/aclnn-quant.md says
 * what this card takes.
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
