/* SPDX-License-Identifier: MIT */
/*
 * IndexFillTensor: slices of self along dim at index set to value. The
 * vendor's declarations.
 */
#ifndef ACLNNOP_ACLNN_INDEX_FILL_TENSOR_H
#define ACLNNOP_ACLNN_INDEX_FILL_TENSOR_H

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnIndexFillTensorGetWorkspaceSize(const aclTensor *self, int64_t dim,
	const aclIntArray *index, const aclScalar *value, aclTensor *out, uint64_t *workspaceSize,
	aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnIndexFillTensor(void *workspace, uint64_t workspaceSize,
	aclOpExecutor *executor, aclrtStream stream);
ACLNN_API aclnnStatus aclnnInplaceIndexFillTensorGetWorkspaceSize(aclTensor *selfRef, int64_t dim,
	const aclIntArray *index, const aclScalar *value, uint64_t *workspaceSize,
	aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceIndexFillTensor(void *workspace, uint64_t workspaceSize,
	aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_INDEX_FILL_TENSOR_H */
