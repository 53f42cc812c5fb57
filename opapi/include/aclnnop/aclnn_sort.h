/* SPDX-License-Identifier: MIT */
/*
 * Sort: self sorted along dim, values and their indices. The vendor's
 * declarations.
 */
#ifndef ACLNNOP_ACLNN_SORT_H
#define ACLNNOP_ACLNN_SORT_H

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnSortGetWorkspaceSize(const aclTensor *self, bool stable, int64_t dim,
	bool descending, aclTensor *valuesOut, aclTensor *indicesOut, uint64_t *workspaceSize,
	aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnSort(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
	const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_SORT_H */
