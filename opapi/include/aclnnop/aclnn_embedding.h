/* SPDX-License-Identifier: MIT */
/*
 * Embedding: rows of weight picked by indices. The vendor's declarations;
 * not on this card yet (issue 26): each call returns
 * ACLNN_ERR_INNER_FIND_KERNEL_ERROR with a message.
 */
#ifndef ACLNNOP_ACLNN_EMBEDDING_H
#define ACLNNOP_ACLNN_EMBEDDING_H

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnEmbeddingGetWorkspaceSize(const aclTensor *weight,
	const aclTensor *indices, const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnEmbedding(void *workspace, uint64_t workspaceSize,
	aclOpExecutor *executor, const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_EMBEDDING_H */
