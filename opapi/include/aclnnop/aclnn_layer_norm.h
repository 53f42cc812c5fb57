/* SPDX-License-Identifier: MIT */
/* aclnnLayerNorm: layer normalisation over the trailing normalizedShape axes. */
#ifndef ACLNNOP_ACLNN_LAYER_NORM_H
#define ACLNNOP_ACLNN_LAYER_NORM_H

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnLayerNormGetWorkspaceSize(const aclTensor *input, const aclIntArray *normalizedShape,
	const aclTensor *weightOptional, const aclTensor *biasOptional, double eps,
	aclTensor *out, aclTensor *meanOutOptional, aclTensor *rstdOutOptional,
	uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnLayerNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
	aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_LAYER_NORM_H */
