/* SPDX-License-Identifier: MIT */
/* aclnnAddmm: beta * self + alpha * (mat1 x mat2). */
#ifndef ACLNNOP_ACLNN_ADDMM_H
#define ACLNNOP_ACLNN_ADDMM_H

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnAddmmGetWorkspaceSize(const aclTensor *self, const aclTensor *mat1, const aclTensor *mat2,
	const aclScalar *beta, const aclScalar *alpha, aclTensor *out, int8_t cubeMathType,
	uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnAddmm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
	aclrtStream stream);

ACLNN_API aclnnStatus aclnnInplaceAddmmGetWorkspaceSize(const aclTensor *selfRef, const aclTensor *mat1, const aclTensor *mat2,
	const aclScalar *beta, const aclScalar *alpha, int8_t cubeMathType,
	uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceAddmm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
	aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_ADDMM_H */
