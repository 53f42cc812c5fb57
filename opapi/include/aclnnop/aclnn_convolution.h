/* SPDX-License-Identifier: MIT */
/* aclnnConvolution: 1-D and 2-D convolution, plain or transposed. */
#ifndef ACLNNOP_ACLNN_CONVOLUTION_H
#define ACLNNOP_ACLNN_CONVOLUTION_H

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnConvolutionGetWorkspaceSize(const aclTensor *input, const aclTensor *weight, const aclTensor *bias,
	const aclIntArray *stride, const aclIntArray *padding, const aclIntArray *dilation,
	bool transposed, const aclIntArray *outputPadding, const int64_t groups,
	aclTensor *output, int8_t cubeMathType,
	uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnConvolution(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
	aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_CONVOLUTION_H */
