/* SPDX-License-Identifier: MIT */
/* aclnnReduceSum: the sum over dims. */
#ifndef ACLNNOP_ACLNN_REDUCE_SUM_H
#define ACLNNOP_ACLNN_REDUCE_SUM_H

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnReduceSumGetWorkspaceSize(const aclTensor *self, const aclIntArray *dims, bool keepDims,
	aclDataType dtype, aclTensor *out,
	uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnReduceSum(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
	aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_REDUCE_SUM_H */
