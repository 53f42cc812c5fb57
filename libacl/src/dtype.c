// SPDX-License-Identifier: MIT
/*
 * Data type sizes. The model loader's parser needs them too, and its host
 * test links this file alone with the parser: so it depends on nothing
 * else of the library.
 */
#include "acl_internal.h"

ACL_EXPORT size_t aclDataTypeSize(aclDataType dataType)
{
	switch (dataType) {
	case ACL_BOOL:
	case ACL_INT8:
	case ACL_UINT8:
	case ACL_HIFLOAT8:
	case ACL_FLOAT8_E5M2:
	case ACL_FLOAT8_E4M3FN:
	case ACL_FLOAT8_E8M0:
	case ACL_FLOAT6_E3M2:
	case ACL_FLOAT6_E2M3:
	case ACL_FLOAT4_E2M1:
	case ACL_FLOAT4_E1M2:
	case ACL_HIFLOAT4:
	case ACL_HIFLOAT4_SCALE:
	case ACL_INT4:
	case ACL_UINT1:
		return 1;
	case ACL_FLOAT16:
	case ACL_BF16:
	case ACL_INT16:
	case ACL_UINT16:
		return 2;
	case ACL_FLOAT:
	case ACL_INT32:
	case ACL_UINT32:
	case ACL_COMPLEX32:
		return 4;
	case ACL_INT64:
	case ACL_UINT64:
	case ACL_DOUBLE:
	case ACL_COMPLEX64:
		return 8;
	case ACL_COMPLEX128:
		return 16;
	default:
		return 0;
	}
}
