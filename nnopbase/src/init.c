// SPDX-License-Identifier: MIT
/*
 * aclnn's setup: nothing to load (operators are card operators, built when
 * asked for), so aclnnInit and aclnnFinalize only succeed.  Dumping tensors
 * is not implemented.
 */
#include "nnopbase.h"

NNOP_EXPORT aclnnStatus aclnnInit(const char *configPath)
{
	(void)configPath;
	return ACLNN_SUCCESS;
}

NNOP_EXPORT aclnnStatus aclnnFinalize(void)
{
	return ACLNN_SUCCESS;
}

NNOP_EXPORT aclnnStatus aclDumpOpTensors(const char *opType, const char *opName,
					 aclTensor **tensors, size_t inputTensorNum,
					 size_t outputTensorNum, aclrtStream stream)
{
	(void)opName;
	(void)tensors;
	(void)inputTensorNum;
	(void)outputTensorNum;
	(void)stream;
	return NNOP_FAIL(ACL_ERROR_API_NOT_SUPPORT, "dumping %s's tensors is not supported "
			 "by this runtime", opType ? opType : "an operator's");
}
