/* SPDX-License-Identifier: MIT */
/* aclnnBatchNorm: batch normalisation over axis 1. */
#ifndef ACLNNOP_ACLNN_BATCH_NORM_H
#define ACLNNOP_ACLNN_BATCH_NORM_H

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnBatchNormGetWorkspaceSize(const aclTensor *input, const aclTensor *weight, const aclTensor *bias,
	aclTensor *runningMean, aclTensor *runningVar, bool training, double momentum,
	double eps, aclTensor *output, aclTensor *saveMean, aclTensor *saveInvstd,
	uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnBatchNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
	aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_BATCH_NORM_H */
