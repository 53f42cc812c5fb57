/* SPDX-License-Identifier: MIT */
/*
 * out = cos(input) (integers give float).
 * Each operator is two calls: aclnnXxxGetWorkspaceSize() checks the
 * arguments and returns the workspace and executor that aclnnXxx() queues
 * on a stream, where the card computes it.
 */
#ifndef ACLNNOP_ACLNN_COS_H
#define ACLNNOP_ACLNN_COS_H

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnCosGetWorkspaceSize(const aclTensor *input, aclTensor *out,
	uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnCos(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
	aclrtStream stream);
ACLNN_API aclnnStatus aclnnInplaceCosGetWorkspaceSize(aclTensor *inputRef, uint64_t *workspaceSize,
	aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceCos(void *workspace, uint64_t workspaceSize,
	aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_COS_H */
