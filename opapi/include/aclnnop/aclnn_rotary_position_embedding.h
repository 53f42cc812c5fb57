/* SPDX-License-Identifier: MIT */
/*
 * RotaryPositionEmbedding: rotary position embedding of x by cos and sin.
 * The vendor's declarations; not on this card yet (issue 26): each call
 * returns ACLNN_ERR_INNER_FIND_KERNEL_ERROR with a message.
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
