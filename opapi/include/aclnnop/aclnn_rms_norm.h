/* SPDX-License-Identifier: MIT */
/* aclnnRmsNorm: RMS normalisation over gamma's axes. */
#ifndef ACLNNOP_ACLNN_RMS_NORM_H
#define ACLNNOP_ACLNN_RMS_NORM_H

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnRmsNormGetWorkspaceSize(const aclTensor *x, const aclTensor *gamma, double epsilon,
	const aclTensor *yOut, const aclTensor *rstdOut,
	uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnRmsNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
	aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_RMS_NORM_H */
