/* SPDX-License-Identifier: MIT */
/*
 * Ger: the outer product of self and vec2. The vendor's declarations; see
 * docs/aclnn-attention.md and opapi/src/op_misc.c.
 */
#ifndef ACLNNOP_ACLNN_GER_H
#define ACLNNOP_ACLNN_GER_H

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGerGetWorkspaceSize(const aclTensor *self, const aclTensor *vec2,
	aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnGer(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
	aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_GER_H */
