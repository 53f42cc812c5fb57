// SPDX-License-Identifier: MIT
/*
 * Data type sizes. The model loader's parser needs them too, and its host
 * test links this file alone with the parser: so it depends on nothing
 * else of the library.
 */
#include "acl_internal.h"
#include "npu_dtypes.h"

/* The table's numbers are the ones applications compile against. */
#define ACL_NUMBER_IS(id, name, size, acl, onnx, ge, card) \
	_Static_assert(ACL_##id == (acl), "aclDataType of " #id);
NPU_DTYPES(ACL_NUMBER_IS)
_Static_assert(ACL_DT_UNDEFINED == NPU_DT_ACL_UNDEFINED, "aclDataType of no type");

ACL_EXPORT size_t aclDataTypeSize(aclDataType dataType)
{
	return npu_dtype_acl_size(dataType);
}
