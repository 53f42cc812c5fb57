/* SPDX-License-Identifier: MIT */
/*
 * RecurrentGatedDeltaRule: gated delta-rule linear attention, stateRef
 * updated. The vendor's declarations; not on this card yet (issue 26): each
 * call returns ACLNN_ERR_INNER_FIND_KERNEL_ERROR with a message.
 */
#ifndef ACLNNOP_ACLNN_RECURRENT_GATED_DELTA_RULE_H
#define ACLNNOP_ACLNN_RECURRENT_GATED_DELTA_RULE_H

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnRecurrentGatedDeltaRuleGetWorkspaceSize(const aclTensor *query,
	const aclTensor *key, const aclTensor *value, const aclTensor *beta, aclTensor *stateRef,
	const aclTensor *actualSeqLengths, const aclTensor *ssmStateIndices, const aclTensor *g,
	const aclTensor *gk, const aclTensor *numAcceptedTokens, float scaleValue, aclTensor *out,
	uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnRecurrentGatedDeltaRule(void *workspace, uint64_t workspaceSize,
	aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_RECURRENT_GATED_DELTA_RULE_H */
