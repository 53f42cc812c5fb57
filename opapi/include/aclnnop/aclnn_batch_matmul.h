/* SPDX-License-Identifier: MIT */
/* aclnnBatchMatMul: batched product of matrices. */
#ifndef ACLNNOP_ACLNN_BATCH_MATMUL_H
#define ACLNNOP_ACLNN_BATCH_MATMUL_H

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnBatchMatMulGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2, aclTensor *out,
	int8_t cubeMathType,
	uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnBatchMatMul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
	aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_BATCH_MATMUL_H */
