/* SPDX-License-Identifier: MIT */
/*
 * Argsort: indices that sort self along dim (stable, NaN last). The
 * vendor's declarations.
 */
#ifndef ACLNNOP_ACLNN_ARGSORT_H
#define ACLNNOP_ACLNN_ARGSORT_H

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnArgsortGetWorkspaceSize(const aclTensor *self, int64_t dim,
	bool descending, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnArgsort(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
	aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_ARGSORT_H */
