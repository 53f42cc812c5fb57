/* SPDX-License-Identifier: MIT */
/* aclnnUpsampleNearest2d: the last two axes resized to outputSize, nearest neighbour. */
#ifndef ACLNNOP_ACLNN_UPSAMPLE_NEAREST_2D_H
#define ACLNNOP_ACLNN_UPSAMPLE_NEAREST_2D_H

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnUpsampleNearest2dGetWorkspaceSize(const aclTensor *self, const aclIntArray *outputSize,
	aclTensor *out,
	uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnUpsampleNearest2d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
	aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_UPSAMPLE_NEAREST_2D_H */
