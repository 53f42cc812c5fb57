// SPDX-License-Identifier: MIT
/*
 * Saturation mode and overflow detection. The card computes floats as
 * IEEE 754 does: an overflow is inf, an invalid operation NaN, and no
 * operator clamps or records that it happened. So INFNAN is the one
 * saturation mode and a stream's overflow switch stays off; asking for
 * saturation, for overflow detection or for the status it would keep is
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT with the reason, never a success that
 * detects nothing.
 */
#include "acl_internal.h"

#define NO_STATUS	"the card keeps no floating-point overflow status"

ACL_EXPORT aclError aclrtSetDeviceSatMode(aclrtFloatOverflowMode mode)
{
	switch (mode) {
	case ACL_RT_OVERFLOW_MODE_INFNAN:
		return ACL_SUCCESS;
	case ACL_RT_OVERFLOW_MODE_SATURATION:
		return ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "saturation mode is not supported: "
				"the card's floats overflow to inf and NaN (INFNAN mode)");
	default:
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%d is not a saturation mode", mode);
	}
}

ACL_EXPORT aclError aclrtGetDeviceSatMode(aclrtFloatOverflowMode *mode)
{
	ACL_CHECK_NULL(mode);
	*mode = ACL_RT_OVERFLOW_MODE_INFNAN;
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtSetStreamOverflowSwitch(aclrtStream stream, uint32_t flag)
{
	aclError err = ACL_SUCCESS;

	if (!acl_stream_resolve(stream, &err))
		return err;
	if (flag)
		return ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "overflow detection is not "
				"supported: " NO_STATUS);
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetStreamOverflowSwitch(aclrtStream stream, uint32_t *flag)
{
	aclError err = ACL_SUCCESS;

	ACL_CHECK_NULL(flag);
	if (!acl_stream_resolve(stream, &err))
		return err;
	*flag = 0;
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetOverflowStatus(void *outputAddr, size_t outputSize, aclrtStream stream)
{
	(void)outputAddr, (void)outputSize, (void)stream;
	return ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "reading the overflow status is not "
			"supported: " NO_STATUS);
}

ACL_EXPORT aclError aclrtResetOverflowStatus(aclrtStream stream)
{
	(void)stream;
	return ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "resetting the overflow status is not "
			"supported: " NO_STATUS);
}
