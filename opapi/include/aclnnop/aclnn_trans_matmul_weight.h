/* SPDX-License-Identifier: MIT */
/*
 * TransMatmulWeight: matmul weights laid out for the card. The vendor's
 * declarations; not on this card yet (issue 26): each call returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR with a message.
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
