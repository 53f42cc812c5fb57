/* SPDX-License-Identifier: MIT */
/*
 * result = -1, 0 or 1 as self is negative, zero or positive.
 * Each operator is two calls: aclnnXxxGetWorkspaceSize() checks the
 * arguments and returns the workspace and executor that aclnnXxx() queues
 * on a stream, where the card computes it.
 */
#ifndef ACLNNOP_ACLNN_SIGN_H
#define ACLNNOP_ACLNN_SIGN_H

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnSignGetWorkspaceSize(const aclTensor *self, aclTensor *result,
	uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnSign(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
	aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_SIGN_H */
