/* SPDX-License-Identifier: MIT */
/*
 * out = sin(self) (integers give float).
 * Each operator is two calls: aclnnXxxGetWorkspaceSize() checks the
 * arguments and returns the workspace and executor that aclnnXxx() queues
 * on a stream, where the card computes it.
 */
#ifndef ACLNNOP_ACLNN_SIN_H
#define ACLNNOP_ACLNN_SIN_H

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnSinGetWorkspaceSize(const aclTensor *self, aclTensor *out,
	uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnSin(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
	aclrtStream stream);
ACLNN_API aclnnStatus aclnnInplaceSinGetWorkspaceSize(aclTensor *selfRef, uint64_t *workspaceSize,
	aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceSin(void *workspace, uint64_t workspaceSize,
	aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_SIN_H */
