// SPDX-License-Identifier: MIT
/*
 * Device resource limits: how many cube and vector cores a process (or
 * the work of one stream) may use. This card's cores are its compute
 * engines (DRM_NPU_PARAM_NUM_COMPUTE_ENGINES), each of which runs every
 * operator, matrix or vector alike: so both resource types count them.
 *
 * The card gives its engines to rings by priority alone and cannot keep a
 * process to fewer engines than it has: a limit below that count is
 * refused (ACL_ERROR_RT_FEATURE_NOT_SUPPORT), one at or above it holds by
 * itself and is kept. What is kept is what the getters report, in the
 * vendor's order: the limit of the stream the thread uses
 * (aclrtUseStreamResInCurrentThread), else the process's for the device,
 * else the hardware's.
 */
#include <unistd.h>

#include "acl_internal.h"

#define RES_TYPES	2	/* enum aclrtDevResLimitType */

static _Atomic uint32_t dev_limit[ACL_MAX_DEVICES][RES_TYPES];	/* 0: none */
static __thread aclrtStream tls_res_stream;

/* A parameter of device d, whether or not this process has it open. */
aclError acl_device_param(const char *fn, struct acl_device *d, uint32_t param, uint64_t *v)
{
	int fd = drv_open(d->path), ret;

	if (fd < 0)
		return acl_fail(fn, ACL_ERROR_RT_NO_DEVICE, "cannot open %s", d->path);
	ret = drv_get_param(fd, param, v);
	close(fd);
	if (ret)
		return acl_drv_fail(fn, d, ret, "reading parameter %u", param);
	return ACL_SUCCESS;
}

static struct acl_device *device_of(const char *fn, int32_t id, aclError *err)
{
	struct acl_device *d;

	acl_enumerate_devices(false);
	d = acl_device_get(id);
	if (!d)
		*err = acl_fail(fn, ACL_ERROR_RT_INVALID_DEVICEID, "device %d does not exist", id);
	return d;
}

static aclError check_type(const char *fn, aclrtDevResLimitType type)
{
	if ((unsigned)type >= RES_TYPES)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "unknown resource type %d", (int)type);
	return ACL_SUCCESS;
}

/* Whether d can hold its work to value cores; *err says why not. */
static bool limit_holds(const char *fn, struct acl_device *d, uint32_t value, aclError *err)
{
	uint64_t engines;

	*err = acl_device_param(fn, d, DRM_NPU_PARAM_NUM_COMPUTE_ENGINES, &engines);
	if (*err)
		return false;
	if (!value)
		*err = acl_fail(fn, ACL_ERROR_INVALID_PARAM, "a limit of 0 cores leaves no core to run on");
	else if (!engines)
		*err = acl_fail(fn, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "device %d has no compute "
				"engines to limit", d->id);
	else if (value < engines)
		*err = acl_fail(fn, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "device %d cannot keep work to "
				"%u of its %llu compute engines: it gives engines to rings by "
				"priority alone", d->id, value, (unsigned long long)engines);
	return !*err;
}

/* The process's limit on d, else the hardware's. */
static aclError device_limit(const char *fn, struct acl_device *d, aclrtDevResLimitType type,
			     uint32_t *value)
{
	uint32_t set = atomic_load(&dev_limit[d->id][type]);
	uint64_t engines;
	aclError err;

	if (set) {
		*value = set;
		return ACL_SUCCESS;
	}
	err = acl_device_param(fn, d, DRM_NPU_PARAM_NUM_COMPUTE_ENGINES, &engines);
	if (!err)
		*value = (uint32_t)engines;
	return err;
}

ACL_EXPORT aclError aclrtSetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type,
					   uint32_t value)
{
	aclError err = ACL_SUCCESS;
	struct acl_device *d = device_of(__func__, deviceId, &err);

	if (!d)
		return err;
	err = check_type(__func__, type);
	if (!err && limit_holds(__func__, d, value, &err))
		atomic_store(&dev_limit[d->id][type], value);
	return err;
}

ACL_EXPORT aclError aclrtGetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type,
					   uint32_t *value)
{
	aclError err = ACL_SUCCESS;
	struct acl_device *d;

	ACL_CHECK_NULL(value);
	d = device_of(__func__, deviceId, &err);
	if (!d)
		return err;
	err = check_type(__func__, type);
	return err ? err : device_limit(__func__, d, type, value);
}

ACL_EXPORT aclError aclrtResetDeviceResLimit(int32_t deviceId)
{
	aclError err = ACL_SUCCESS;
	struct acl_device *d = device_of(__func__, deviceId, &err);
	int t;

	if (!d)
		return err;
	for (t = 0; t < RES_TYPES; t++)
		atomic_store(&dev_limit[d->id][t], 0);
	return ACL_SUCCESS;
}

/* ---- per stream -------------------------------------------------------- */

ACL_EXPORT aclError aclrtSetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type,
					   uint32_t value)
{
	aclError err = ACL_SUCCESS;
	struct acl_stream *s = acl_stream_resolve(stream, &err);

	if (!s)
		return err;
	err = check_type(__func__, type);
	if (!err && limit_holds(__func__, s->dev, value, &err))
		atomic_store(&s->res_limit[type], value);
	return err;
}

ACL_EXPORT aclError aclrtGetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type,
					   uint32_t *value)
{
	aclError err = ACL_SUCCESS;
	struct acl_stream *s;
	uint32_t set;

	ACL_CHECK_NULL(value);
	s = acl_stream_resolve(stream, &err);
	if (!s)
		return err;
	err = check_type(__func__, type);
	if (err)
		return err;
	set = atomic_load(&s->res_limit[type]);
	if (set) {
		*value = set;
		return ACL_SUCCESS;
	}
	return device_limit(__func__, s->dev, type, value);
}

ACL_EXPORT aclError aclrtResetStreamResLimit(aclrtStream stream)
{
	aclError err = ACL_SUCCESS;
	struct acl_stream *s = acl_stream_resolve(stream, &err);
	int t;

	if (!s)
		return err;
	for (t = 0; t < RES_TYPES; t++)
		atomic_store(&s->res_limit[t], 0);
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtUseStreamResInCurrentThread(aclrtStream stream)
{
	aclError err = ACL_SUCCESS;

	if (!acl_stream_resolve(stream, &err))
		return err;
	tls_res_stream = stream;
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtUnuseStreamResInCurrentThread(aclrtStream stream)
{
	aclError err = ACL_SUCCESS;

	if (!acl_stream_resolve(stream, &err))
		return err;
	if (tls_res_stream != stream)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "the calling thread does not use the "
				"limits of stream %p (aclrtUseStreamResInCurrentThread)", stream);
	tls_res_stream = NULL;
	return ACL_SUCCESS;
}

/* The stream whose limits the thread uses, if still alive and on c's device. */
static struct acl_stream *used_stream(struct acl_context *c)
{
	struct acl_stream *s;

	if (!tls_res_stream)
		return NULL;
	s = acl_obj_lookup(ACL_OBJ_STREAM, tls_res_stream);
	return s && s->ctx && s->dev == c->dev ? s : NULL;
}

ACL_EXPORT aclError aclrtGetResInCurrentThread(aclrtDevResLimitType type, uint32_t *value)
{
	aclError err = ACL_SUCCESS;
	struct acl_context *c = acl_current_ctx_for(value, &err);
	struct acl_stream *s;
	uint32_t set;

	if (!c)
		return err;
	err = check_type(__func__, type);
	if (err)
		return err;
	s = used_stream(c);
	set = s ? atomic_load(&s->res_limit[type]) : 0;
	if (set) {
		*value = set;
		return ACL_SUCCESS;
	}
	return device_limit(__func__, c->dev, type, value);
}
