/* SPDX-License-Identifier: MIT */
/*
 * GroupedMatmulV3: several matmuls in one call. The vendor's declarations;
 * docs/aclnn-quant.md says what this card takes (groups read from device
 * memory are not on it yet).
 */
#ifndef ACLNNOP_ACLNN_GROUPED_MATMUL_V3_H
#define ACLNNOP_ACLNN_GROUPED_MATMUL_V3_H

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGroupedMatmulV3GetWorkspaceSize(const aclTensorList *x,
	const aclTensorList *weight, const aclTensorList *biasOptional, const aclTensorList *scaleOptional,
	const aclTensorList *offsetOptional, const aclTensorList *antiquantScaleOptional,
	const aclTensorList *antiquantOffsetOptional, const aclTensor *groupListOptional,
	int64_t splitItem, int64_t groupType, const aclTensorList *y, uint64_t *workspaceSize,
	aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnGroupedMatmulV3(void *workspace, uint64_t workspaceSize,
	aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_GROUPED_MATMUL_V3_H */
