/* SPDX-License-Identifier: MIT */
/*
 * IndexSelect: slices of self along dim picked by a 1-D index. The
 * vendor's declarations.
 */
#ifndef ACLNNOP_ACLNN_INDEX_SELECT_H
#define ACLNNOP_ACLNN_INDEX_SELECT_H

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnIndexSelectGetWorkspaceSize(const aclTensor *self, int64_t dim,
	const aclTensor *index, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnIndexSelect(void *workspace, uint64_t workspaceSize,
	aclOpExecutor *executor, const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_INDEX_SELECT_H */
