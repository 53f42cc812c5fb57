// SPDX-License-Identifier: MIT
/*
 * The vendor's three numberings of devices: logical (this process's),
 * user and physical. Every card is visible to every process here and is
 * numbered by its accel minor's order (as npu-smi numbers them), so the
 * three agree; each call checks that the id names a card. Also whether a
 * device's primary (default) context is active: while the device is set.
 */
#include "acl_internal.h"

static aclError same_id(const char *fn, const char *from, int32_t id, int32_t *out)
{
	if (!out)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "the output pointer is NULL");
	acl_enumerate_devices(false);
	if (id < 0 || id >= acl_ndevices)
		return acl_fail(fn, ACL_ERROR_RT_INVALID_DEVICEID,
				"%s device id %d does not exist (%d device(s))", from, id,
				acl_ndevices > 0 ? acl_ndevices : 0);
	*out = id;
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetLogicDevIdByPhyDevId(const int32_t phyDevId, int32_t *const logicDevId)
{
	return same_id(__func__, "physical", phyDevId, logicDevId);
}

ACL_EXPORT aclError aclrtGetPhyDevIdByLogicDevId(const int32_t logicDevId, int32_t *const phyDevId)
{
	return same_id(__func__, "logical", logicDevId, phyDevId);
}

ACL_EXPORT aclError aclrtGetLogicDevIdByUserDevId(const int32_t userDevid, int32_t *const logicDevId)
{
	return same_id(__func__, "user", userDevid, logicDevId);
}

ACL_EXPORT aclError aclrtGetUserDevIdByLogicDevId(const int32_t logicDevId, int32_t *const userDevid)
{
	return same_id(__func__, "logical", logicDevId, userDevid);
}

ACL_EXPORT aclError aclrtGetPhyDevIdByUserDevId(const int32_t userDevId, int32_t *const phyDevId)
{
	return same_id(__func__, "user", userDevId, phyDevId);
}

ACL_EXPORT aclError aclrtGetUserDevIdByPhyDevId(const int32_t phyDevId, int32_t *const userDevId)
{
	return same_id(__func__, "physical", phyDevId, userDevId);
}

ACL_EXPORT aclError aclrtGetPrimaryCtxState(int32_t deviceId, uint32_t *flags, int32_t *active)
{
	struct acl_device *d;

	ACL_CHECK_NULL(active);
	d = acl_device_get(deviceId);
	if (!d)
		return ACL_FAIL(ACL_ERROR_RT_INVALID_DEVICEID, "device %d does not exist", deviceId);
	acl_mutex_lock(&d->lock);
	*active = d->refs > 0 && !d->closing && d->default_ctx;
	acl_mutex_unlock(&d->lock);
	if (flags)
		*flags = 0;	/* reserved */
	return ACL_SUCCESS;
}
