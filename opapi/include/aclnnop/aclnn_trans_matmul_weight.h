/* SPDX-License-Identifier: MIT */
/*
 * TransMatmulWeight: matmul weights laid out for the card, which keeps them
 * ND: the size is the ND size and the transform leaves the weight as it is.
 * The vendor's declarations; docs/aclnn-quant.md.
 */
#ifndef ACLNNOP_ACLNN_TRANS_MATMUL_WEIGHT_H
#define ACLNNOP_ACLNN_TRANS_MATMUL_WEIGHT_H

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnTransMatmulWeightGetWorkspaceSize(aclTensor *mmWeightRef,
	uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnTransMatmulWeight(void *workspace, uint64_t workspaceSize,
	aclOpExecutor *executor, aclrtStream stream);

ACLNN_API aclnnStatus aclnnCalculateMatmulWeightSizeV2(const aclIntArray *tensorShape,
	aclDataType dataType, uint64_t *weightTensorSize);
ACLNN_API aclnnStatus aclnnCalculateMatmulWeightSize(const aclIntArray *tensorShape,
	uint64_t *weightTensorSize);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_TRANS_MATMUL_WEIGHT_H */
