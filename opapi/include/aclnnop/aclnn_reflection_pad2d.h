/* SPDX-License-Identifier: MIT */
/* aclnnReflectionPad2d: the last two axes padded by reflection. */
#ifndef ACLNNOP_ACLNN_REFLECTION_PAD2D_H
#define ACLNNOP_ACLNN_REFLECTION_PAD2D_H

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnReflectionPad2dGetWorkspaceSize(const aclTensor *self, const aclIntArray *padding,
	aclTensor *out,
	uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnReflectionPad2d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
	aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_REFLECTION_PAD2D_H */
