/* SPDX-License-Identifier: MIT */
/* aclnnMaxPool: 2-D max pooling. */
#ifndef ACLNNOP_ACLNN_MAX_POOL_H
#define ACLNNOP_ACLNN_MAX_POOL_H

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMaxPoolGetWorkspaceSize(const aclTensor *self, const aclIntArray *kernelShape,
	const aclIntArray *strides, const int64_t autoPad, const aclIntArray *pads,
	const aclIntArray *dilations, const int64_t ceilMode, aclTensor *out,
	uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnMaxPool(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
	aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MAX_POOL_H */
