/* SPDX-License-Identifier: MIT */
/* aclnnUpsampleBilinear2d: the last two axes resized to outputSize, bilinear. */
#ifndef ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_H
#define ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_H

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnUpsampleBilinear2dGetWorkspaceSize(const aclTensor *self, const aclIntArray *outputSize,
	const bool alignCorners, const double scalesH, const double scalesW, aclTensor *out,
	uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnUpsampleBilinear2d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
	aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_H */
