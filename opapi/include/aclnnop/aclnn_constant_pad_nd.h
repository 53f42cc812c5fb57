/* SPDX-License-Identifier: MIT */
/* aclnnConstantPadNd: self padded with value, last axis first. */
#ifndef ACLNNOP_ACLNN_CONSTANT_PAD_ND_H
#define ACLNNOP_ACLNN_CONSTANT_PAD_ND_H

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnConstantPadNdGetWorkspaceSize(const aclTensor *self, const aclIntArray *pad,
	const aclScalar *value, aclTensor *out,
	uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnConstantPadNd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
	aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_CONSTANT_PAD_ND_H */
