/* SPDX-License-Identifier: MIT */
/*
 * out = self != other, 1 or 0 in out's type; the Inplace form writes selfRef.
 * Each operator is two calls: aclnnXxxGetWorkspaceSize() checks the
 * arguments and returns the workspace and executor that aclnnXxx() queues
 * on a stream, where the card computes it.
 */
#ifndef ACLNNOP_ACLNN_NE_TENSOR_H
#define ACLNNOP_ACLNN_NE_TENSOR_H

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnNeTensorGetWorkspaceSize(const aclTensor *self, const aclTensor *other,
	aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnNeTensor(void *workspace, uint64_t workspaceSize,
	aclOpExecutor *executor, aclrtStream stream);
ACLNN_API aclnnStatus aclnnInplaceNeTensorGetWorkspaceSize(aclTensor *selfRef,
	const aclTensor *other, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceNeTensor(void *workspace, uint64_t workspaceSize,
	aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_NE_TENSOR_H */
