/* SPDX-License-Identifier: MIT */
/*
 * y = GELU(x); approximate 0: the erf form, 1: the tanh approximation.
 * Each operator is two calls: aclnnXxxGetWorkspaceSize() checks the
 * arguments and returns the workspace and executor that aclnnXxx() queues
 * on a stream, where the card computes it.
 */
#ifndef ACLNNOP_ACLNN_GELU_V2_H
#define ACLNNOP_ACLNN_GELU_V2_H

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGeluV2GetWorkspaceSize(const aclTensor *x, int64_t approximate,
	aclTensor *y, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnGeluV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
	aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_GELU_V2_H */
