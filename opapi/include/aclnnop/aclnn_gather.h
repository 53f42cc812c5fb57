/* SPDX-License-Identifier: MIT */
/*
 * Gather: out at each position takes self's element with the position's
 * dim entry replaced by index's there (PyTorch's gather, take along dim).
 * The vendor's declarations.
 */
#ifndef ACLNNOP_ACLNN_GATHER_H
#define ACLNNOP_ACLNN_GATHER_H

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGatherGetWorkspaceSize(const aclTensor *self, const int64_t dim,
	const aclTensor *index, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnGather(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
	const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_GATHER_H */
