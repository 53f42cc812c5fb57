/* SPDX-License-Identifier: MIT */
/*
 * Sum: the elementwise sum of a list of tensors. The vendor's declarations; see
 * docs/aclnn-attention.md and opapi/src/op_misc.c.
 */
#ifndef ACLNNOP_ACLNN_SUM_H
#define ACLNNOP_ACLNN_SUM_H

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnSumGetWorkspaceSize(const aclTensorList *tensors, aclTensor *out,
	uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnSum(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
	aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_SUM_H */
