// SPDX-License-Identifier: MIT
/*
 * Small helpers of the base API: version, chip name, data buffers, fp16
 * conversion, CANN attributes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "acl_internal.h"
#include "npu_soc.h"

ACL_EXPORT aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion,
				    int32_t *patchVersion)
{
	ACL_CHECK_NULL(majorVersion);
	ACL_CHECK_NULL(minorVersion);
	ACL_CHECK_NULL(patchVersion);
	*majorVersion = ACL_MAJOR_VERSION;
	*minorVersion = ACL_MINOR_VERSION;
	*patchVersion = ACL_PATCH_VERSION;
	return ACL_SUCCESS;
}

ACL_EXPORT const char *aclrtGetSocName(void)
{
	acl_enumerate_devices(false);
	return acl_ndevices > 0 ? NPU_SOC_NAME : NULL;
}

struct aclDataBuffer {
	void *data;
	size_t size;
};

ACL_EXPORT aclDataBuffer *aclCreateDataBuffer(void *data, size_t size)
{
	aclDataBuffer *b = malloc(sizeof(*b));

	if (!b) {
		ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory");
		return NULL;
	}
	b->data = data;
	b->size = size;
	return b;
}

ACL_EXPORT aclError aclDestroyDataBuffer(const aclDataBuffer *dataBuffer)
{
	ACL_CHECK_NULL(dataBuffer);
	free((void *)dataBuffer);
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclUpdateDataBuffer(aclDataBuffer *dataBuffer, void *data, size_t size)
{
	ACL_CHECK_NULL(dataBuffer);
	dataBuffer->data = data;
	dataBuffer->size = size;
	return ACL_SUCCESS;
}

ACL_EXPORT void *aclGetDataBufferAddr(const aclDataBuffer *dataBuffer)
{
	return dataBuffer ? dataBuffer->data : NULL;
}

ACL_EXPORT uint32_t aclGetDataBufferSize(const aclDataBuffer *dataBuffer)
{
	return dataBuffer ? (uint32_t)dataBuffer->size : 0;
}

ACL_EXPORT size_t aclGetDataBufferSizeV2(const aclDataBuffer *dataBuffer)
{
	return dataBuffer ? dataBuffer->size : 0;
}

/* fp16 -> float; Inf and NaN read as large finite numbers (saturating). */
ACL_EXPORT float aclFloat16ToFloat(aclFloat16 value)
{
	uint32_t sign = (value >> 15) & 1, exp = (value >> 10) & 0x1f, man = value & 0x3ff;
	float f;

	if (exp == 0)
		f = ldexpf((float)man, -24);
	else if (exp == 31)
		f = man ? 98304.0f : 65536.0f;
	else
		f = ldexpf((float)(man | 0x400), (int)exp - 25);
	return sign ? -f : f;
}

/* float -> fp16, rounding to nearest even, saturating at +-65504. */
ACL_EXPORT aclFloat16 aclFloatToFloat16(float value)
{
	uint32_t bits, sign, man;
	int exp;

	memcpy(&bits, &value, sizeof(bits));
	sign = (bits >> 16) & 0x8000;
	if (isnan(value) || isinf(value) || fabsf(value) >= 65520.0f)
		return (aclFloat16)(sign | 0x7bff);
	exp = (int)((bits >> 23) & 0xff) - 127;
	man = bits & 0x7fffff;
	if (exp < -25)
		return (aclFloat16)sign;
	if (exp < -14) {
		/* subnormal: value = man16 * 2^-24 */
		uint32_t full = man | 0x800000;
		int shift = -exp - 14 + 13;
		uint32_t half = full >> shift;
		uint32_t rem = full & ((1u << shift) - 1), mid = 1u << (shift - 1);

		if (rem > mid || (rem == mid && (half & 1)))
			half++;
		return (aclFloat16)(sign | half);
	}
	{
		uint32_t h = ((uint32_t)(exp + 15) << 10) | (man >> 13);
		uint32_t rem = man & 0x1fff;

		if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
			h++;
		if (h >= 0x7c00)
			h = 0x7bff;
		return (aclFloat16)(sign | h);
	}
}

ACL_EXPORT aclError aclGetCannAttributeList(const aclCannAttr **cannAttrList, size_t *num)
{
	ACL_CHECK_NULL(cannAttrList);
	ACL_CHECK_NULL(num);
	*cannAttrList = NULL;
	*num = 0;	/* no operator compiler, no special number formats */
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclGetCannAttribute(aclCannAttr cannAttr, int32_t *value)
{
	ACL_CHECK_NULL(value);
	if (cannAttr < ACL_CANN_ATTR_INF_NAN || cannAttr > ACL_CANN_ATTR_JIT_COMPILE)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown attribute %d", (int)cannAttr);
	*value = 0;
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclGetDeviceCapability(uint32_t deviceId, aclDeviceInfo deviceInfo,
					   int64_t *value)
{
	ACL_CHECK_NULL(value);
	if (!acl_device_get((int32_t)deviceId))
		return ACL_FAIL(ACL_ERROR_RT_INVALID_DEVICEID, "device %u does not exist", deviceId);
	if (deviceInfo < ACL_DEVICE_INFO_AI_CORE_NUM || deviceInfo > ACL_DEVICE_INFO_L2_SIZE)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown device info %d", (int)deviceInfo);
	if (deviceInfo == ACL_DEVICE_INFO_L2_SIZE) {
		*value = 0;	/* no L2 */
		return ACL_SUCCESS;
	}
	return aclrtGetDeviceInfo(deviceId, deviceInfo == ACL_DEVICE_INFO_AI_CORE_NUM ?
				  ACL_DEV_ATTR_AICORE_CORE_NUM : ACL_DEV_ATTR_VECTOR_CORE_NUM, value);
}
