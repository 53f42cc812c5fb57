/* SPDX-License-Identifier: MIT */
/*
 * RotaryPositionEmbedding: rotary position embedding of x by cos and sin. The
 * vendor's declarations; see docs/aclnn-attention.md and opapi/src/op_rope.c.
 */
#ifndef ACLNNOP_ACLNN_ROTARY_POSITION_EMBEDDING_H
#define ACLNNOP_ACLNN_ROTARY_POSITION_EMBEDDING_H

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnRotaryPositionEmbeddingGetWorkspaceSize(const aclTensor *x,
	const aclTensor *cos, const aclTensor *sin, int64_t mode, const aclTensor *yOut,
	uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnRotaryPositionEmbedding(void *workspace, uint64_t workspaceSize,
	aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_ROTARY_POSITION_EMBEDDING_H */
