/* SPDX-License-Identifier: MIT */
/*
 * InplaceScatterUpdate: updates written into data along axis, each batch's
 * window at its offset in indices. The vendor's declarations.
 */
#ifndef ACLNNOP_ACLNN_SCATTER_UPDATE_H
#define ACLNNOP_ACLNN_SCATTER_UPDATE_H

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnInplaceScatterUpdateGetWorkspaceSize(aclTensor *data,
	const aclTensor *indices, const aclTensor *updates, int64_t axis, uint64_t *workspaceSize,
	aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceScatterUpdate(void *workspace, uint64_t workspaceSize,
	aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_SCATTER_UPDATE_H */
