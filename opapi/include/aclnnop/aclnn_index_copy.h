/* SPDX-License-Identifier: MIT */
/*
 * IndexCopy: source's slices written into selfRef along dim at index. The
 * vendor's declarations.
 */
#ifndef ACLNNOP_ACLNN_INDEX_COPY_H
#define ACLNNOP_ACLNN_INDEX_COPY_H

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnIndexCopyGetWorkspaceSize(aclTensor *selfRef, int64_t dim,
	const aclTensor *index, const aclTensor *source, aclTensor *outRef, uint64_t *workspaceSize,
	aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnIndexCopy(void *workspace, uint64_t workspaceSize,
	aclOpExecutor *executor, aclrtStream stream);
ACLNN_API aclnnStatus aclnnInplaceIndexCopyGetWorkspaceSize(aclTensor *selfRef, int64_t dim,
	const aclTensor *index, const aclTensor *source, uint64_t *workspaceSize,
	aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceIndexCopy(void *workspace, uint64_t workspaceSize,
	aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_INDEX_COPY_H */
