/* SPDX-License-Identifier: MIT */
/* aclnnGroupNorm: group normalisation. */
#ifndef ACLNNOP_ACLNN_GROUP_NORM_H
#define ACLNNOP_ACLNN_GROUP_NORM_H

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGroupNormGetWorkspaceSize(const aclTensor *self, const aclTensor *gamma, const aclTensor *beta,
	int64_t N, int64_t C, int64_t HxW, int64_t group, double eps, aclTensor *out,
	aclTensor *meanOut, aclTensor *rstdOut,
	uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnGroupNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
	aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_GROUP_NORM_H */
