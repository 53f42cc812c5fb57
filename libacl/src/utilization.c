// SPDX-License-Identifier: MIT
/*
 * aclrtGetDeviceUtilizationRate, from the card's own counters: the time
 * its compute engines ran operators (DRM_NPU_PARAM_COMPUTE_NS, every
 * process's) against its clock (DRM_NPU_PARAM_CLOCK_NS) times the number
 * of engines, since this process last asked about the device, or on the
 * first question since the card started; and the share of its memory
 * allocated. Cube and vector cores are both the compute engines
 * (res_limit.c); the card has no AI CPU (-1, the vendor's "absent").
 */
#include <unistd.h>

#include "acl_internal.h"

struct util_sample {
	uint64_t compute_ns, clock_ns;
};

static struct acl_mutex util_lock = ACL_MUTEX_INITIALIZER;
static struct util_sample util_last[ACL_MAX_DEVICES];

static int32_t percent(uint64_t part, uint64_t whole)
{
	if (!whole)
		return 0;
	if (part >= whole)
		return 100;
	return (int32_t)(part * 100 / whole);
}

static aclError read_card(const char *fn, struct acl_device *d, struct util_sample *now,
			  uint64_t *engines, int32_t *memory)
{
	uint64_t size, free_bytes;
	aclError err;

	err = acl_device_param(fn, d, DRM_NPU_PARAM_NUM_COMPUTE_ENGINES, engines);
	if (!err)
		err = acl_device_param(fn, d, DRM_NPU_PARAM_COMPUTE_NS, &now->compute_ns);
	if (!err)
		err = acl_device_param(fn, d, DRM_NPU_PARAM_CLOCK_NS, &now->clock_ns);
	if (!err)
		err = acl_device_param(fn, d, DRM_NPU_PARAM_DEVMEM_SIZE, &size);
	if (!err)
		err = acl_device_param(fn, d, DRM_NPU_PARAM_DEVMEM_FREE, &free_bytes);
	if (!err)
		*memory = percent(size - free_bytes, size);
	return err;
}

ACL_EXPORT aclError aclrtGetDeviceUtilizationRate(int32_t deviceId,
						  aclrtUtilizationInfo *utilizationInfo)
{
	struct util_sample now, last;
	struct acl_device *d;
	uint64_t engines, span;
	int32_t memory, compute;
	aclError err;

	ACL_CHECK_NULL(utilizationInfo);
	acl_enumerate_devices(false);
	d = acl_device_get(deviceId);
	if (!d)
		return ACL_FAIL(ACL_ERROR_RT_INVALID_DEVICEID, "device %d does not exist", deviceId);
	err = read_card(__func__, d, &now, &engines, &memory);
	if (err)
		return err;
	acl_mutex_lock(&util_lock);
	last = util_last[deviceId];
	/* The card was reset since (its clock went back): count from then. */
	if (now.clock_ns < last.clock_ns || now.compute_ns < last.compute_ns)
		last = (struct util_sample){ 0, 0 };
	util_last[deviceId] = now;
	acl_mutex_unlock(&util_lock);
	span = (now.clock_ns - last.clock_ns) * engines;
	compute = engines ? percent(now.compute_ns - last.compute_ns, span) : -1;
	utilizationInfo->cubeUtilization = compute;
	utilizationInfo->vectorUtilization = compute;
	utilizationInfo->aicpuUtilization = -1;
	utilizationInfo->memoryUtilization = memory;
	return ACL_SUCCESS;
}
