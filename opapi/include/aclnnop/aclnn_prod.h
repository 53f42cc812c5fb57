/* SPDX-License-Identifier: MIT */
/* aclnnProd and aclnnProdDim: the product of every element, or over one axis. */
#ifndef ACLNNOP_ACLNN_PROD_H
#define ACLNNOP_ACLNN_PROD_H

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnProdGetWorkspaceSize(const aclTensor *self, const aclDataType dtype,
	aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnProd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
	aclrtStream stream);
ACLNN_API aclnnStatus aclnnProdDimGetWorkspaceSize(const aclTensor *self, int64_t dim, bool keepDim,
	const aclDataType dtype, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnProdDim(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
	aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_PROD_H */
