/* SPDX-License-Identifier: MIT */
/*
 * Im2col: sliding windows of an image as columns. The vendor's declarations;
 * see docs/aclnn-attention.md and opapi/src/op_misc.c.
 */
#ifndef ACLNNOP_ACLNN_IM2COL_H
#define ACLNNOP_ACLNN_IM2COL_H

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnIm2colGetWorkspaceSize(const aclTensor *self,
	const aclIntArray *kernelSize, const aclIntArray *dilation, const aclIntArray *padding,
	const aclIntArray *stride, const aclTensor *out, uint64_t *workspaceSize,
	aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnIm2col(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
	aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_IM2COL_H */
