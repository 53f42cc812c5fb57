/* SPDX-License-Identifier: MIT */
/*
 * Topk: the k largest (or smallest) elements along dim and their indices.
 * The vendor's declarations.
 */
#ifndef ACLNNOP_ACLNN_TOPK_H
#define ACLNNOP_ACLNN_TOPK_H

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnTopkGetWorkspaceSize(const aclTensor *self, int64_t k, int64_t dim,
	bool largest, bool sorted, aclTensor *valuesOut, aclTensor *indicesOut,
	uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnTopk(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
	const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_TOPK_H */
