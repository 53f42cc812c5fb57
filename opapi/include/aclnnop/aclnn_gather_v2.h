/* SPDX-License-Identifier: MIT */
/*
 * GatherV2: slices of self along dim picked by index (ONNX Gather). The
 * vendor's declarations.
 */
#ifndef ACLNNOP_ACLNN_GATHER_V2_H
#define ACLNNOP_ACLNN_GATHER_V2_H

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGatherV2GetWorkspaceSize(const aclTensor *self, int64_t dim,
	const aclTensor *index, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnGatherV2(void *workspace, uint64_t workspaceSize,
	aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_GATHER_V2_H */
