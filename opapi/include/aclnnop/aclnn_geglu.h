/* SPDX-License-Identifier: MIT */
/*
 * self split in halves A, B along dim: outGelu = gelu of one half,
 * out = outGelu * the other.  GeGlu activates B, GeGluV3 A when activateLeft;
 * approximate 0 is the erf form of GELU, 1 the tanh approximation.
 * Each operator is two calls: aclnnXxxGetWorkspaceSize() checks the
 * arguments and returns the workspace and executor that aclnnXxx() queues
 * on a stream, where the card computes it.
 */
#ifndef ACLNNOP_ACLNN_GEGLU_H
#define ACLNNOP_ACLNN_GEGLU_H

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGeGluGetWorkspaceSize(const aclTensor *self, int64_t dim,
	int64_t approximate, aclTensor *out, aclTensor *outGelu, uint64_t *workspaceSize,
	aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnGeGlu(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
	aclrtStream stream);
ACLNN_API aclnnStatus aclnnGeGluV3GetWorkspaceSize(const aclTensor *self, int64_t dim,
	int64_t approximate, bool activateLeft, aclTensor *out, aclTensor *outGelu,
	uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnGeGluV3(void *workspace, uint64_t workspaceSize,
	aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_GEGLU_H */
