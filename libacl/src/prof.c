// SPDX-License-Identifier: MIT
/*
 * Profiling's calls and their order: aclprofInit (where the results go),
 * configs, aclprofStart .. aclprofStop (one profile at a time, of the
 * devices its config names), aclprofFinalize. Stop reads the card's
 * stamps and writes the trace and its summary (prof_trace.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prof_internal.h"

/* The types this card collects; the others are accepted and named as absent in the summary. */
#define PROF_TYPES_KNOWN (ACL_PROF_ACL_API | ACL_PROF_TASK_TIME | ACL_PROF_AICORE_METRICS | \
			  ACL_PROF_AICPU | ACL_PROF_L2CACHE | ACL_PROF_HCCL_TRACE | \
			  ACL_PROF_TRAINING_TRACE | ACL_PROF_MSPROFTX | ACL_PROF_RUNTIME_API | \
			  ACL_PROF_GE_API_L0 | ACL_PROF_TASK_TIME_L0 | ACL_PROF_TASK_MEMORY | \
			  ACL_PROF_GE_API_L1 | ACL_PROF_TASK_TIME_L2 | ACL_PROF_OP_ATTR | \
			  ACL_PROF_TASK_TIME_L3 | ACL_PROF_API_STATS | ACL_PROF_AICORE_SHAPE)
#define PROF_TYPES_TASKS (ACL_PROF_TASK_TIME | ACL_PROF_TASK_TIME_L0 | ACL_PROF_TASK_TIME_L2 | \
			  ACL_PROF_TASK_TIME_L3)
#define PROF_TYPES_API	 (ACL_PROF_ACL_API | ACL_PROF_RUNTIME_API)
#define PROF_CONFIG_MAX	 256

struct aclprofConfig {
	uint32_t devices;		/* bit per device */
	aclprofAicoreMetrics metrics;
	uint64_t types;
};

/* Under acl_prof_lock. */
static struct {
	bool inited, started;
	char dir[PROF_PATH_MAX + 1];
	unsigned int number;
	uint32_t mem_freq;
	uint64_t storage_limit;
	struct aclprofConfig running;
	int64_t host_start;
} prof;

bool prof_inited_locked(void)
{
	return prof.inited;
}

bool prof_device_profiled_locked(int32_t d)
{
	if (!prof.started || !(prof.running.types & PROF_TYPES_TASKS))
		return false;
	return d < 0 || (prof.running.devices >> d & 1);
}

bool prof_markers_on(void)
{
	bool on;

	acl_mutex_lock(&acl_prof_lock);
	on = prof.started && (prof.running.types & ACL_PROF_MSPROFTX);
	acl_mutex_unlock(&acl_prof_lock);
	return on;
}

bool prof_api_on_locked(void)
{
	return prof.started && (prof.running.types & PROF_TYPES_API);
}

static aclError path_copy(char *to, const char *path, size_t length, const char *fn)
{
	if (!path)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "the path is NULL");
	if (!length || length > PROF_PATH_MAX || strnlen(path, length) != length)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "the path's length %zu is not that of "
				"a path of 1 to %d bytes", length, PROF_PATH_MAX);
	memcpy(to, path, length);
	to[length] = '\0';
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclprofInit(const char *profilerResultPath, size_t length)
{
	char dir[PROF_PATH_MAX + 1];
	aclError err = path_copy(dir, profilerResultPath, length, __func__);

	if (err)
		return err;
	acl_mutex_lock(&acl_prof_lock);
	if (prof_sub_any_locked())
		err = ACL_FAIL(ACL_ERROR_PROF_API_CONFLICT, "a model is subscribed: profiling and "
			       "model subscription do not mix (aclprofModelUnSubscribe first)");
	else if (prof.inited)
		err = ACL_FAIL(ACL_ERROR_PROF_ALREADY_RUN, "profiling is initialized already "
			       "(aclprofFinalize first)");
	if (!err) {
		prof.inited = true;
		memcpy(prof.dir, dir, sizeof(dir));
		prof.mem_freq = 0;
		prof.storage_limit = 0;
	}
	acl_mutex_unlock(&acl_prof_lock);
	return err;
}

ACL_EXPORT aclprofConfig *aclprofCreateConfig(uint32_t *deviceIdList, uint32_t deviceNums,
					      aclprofAicoreMetrics aicoreMetrics,
					      const aclprofAicoreEvents *aicoreEvents,
					      uint64_t dataTypeConfig)
{
	struct aclprofConfig *c;
	uint32_t count = 0;

	acl_enumerate_devices(false);
	if (!deviceIdList || !deviceNums || deviceNums > ACL_MAX_DEVICES) {
		ACL_FAIL(ACL_ERROR_INVALID_PARAM, "deviceIdList %p of %u devices: give 1 to %d",
			 (void *)deviceIdList, deviceNums, ACL_MAX_DEVICES);
		return NULL;
	}
	if (aicoreEvents) {
		ACL_FAIL(ACL_ERROR_INVALID_PARAM, "aicoreEvents is reserved and must be NULL");
		return NULL;
	}
	if (aicoreMetrics > ACL_AICORE_MEMORY_ACCESS && aicoreMetrics != ACL_AICORE_NONE) {
		ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown aicoreMetrics %d", (int)aicoreMetrics);
		return NULL;
	}
	if (!dataTypeConfig || (dataTypeConfig & ~PROF_TYPES_KNOWN)) {
		ACL_FAIL(ACL_ERROR_INVALID_PARAM, "dataTypeConfig %#llx: unknown types %#llx",
			 (unsigned long long)dataTypeConfig,
			 (unsigned long long)(dataTypeConfig & ~PROF_TYPES_KNOWN));
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory");
		return NULL;
	}
	for (uint32_t i = 0; i < deviceNums; i++) {
		if (deviceIdList[i] >= (uint32_t)acl_ndevices || (c->devices >> deviceIdList[i] & 1)) {
			ACL_FAIL(ACL_ERROR_INVALID_PARAM, "device %u is not one of the %d devices, or "
				 "named twice", deviceIdList[i], acl_ndevices);
			free(c);
			return NULL;
		}
		c->devices |= 1u << deviceIdList[i];
		count++;
	}
	c->metrics = aicoreMetrics;
	c->types = dataTypeConfig;
	return c;
}

ACL_EXPORT aclError aclprofDestroyConfig(const aclprofConfig *profilerConfig)
{
	ACL_CHECK_NULL(profilerConfig);
	free((void *)profilerConfig);
	return ACL_SUCCESS;
}

static aclError set_number(const char *fn, const char *text, uint64_t min, uint64_t max,
			   const char *unit, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || end == text || (*end && strcmp(end, unit)) || v < min || v > max)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "\"%s\" is not a number from %llu to "
				"%llu%s", text, (unsigned long long)min, (unsigned long long)max, unit);
	*out = v;
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclprofSetConfig(aclprofConfigType configType, const char *config,
				     size_t configLength)
{
	char text[PROF_PATH_MAX + 1];
	uint64_t v = 0;
	aclError err;

	ACL_CHECK_NULL(config);
	if (configType == ACL_PROF_PATH)
		err = path_copy(text, config, configLength, __func__);
	else if (!configLength || configLength > PROF_CONFIG_MAX ||
		 strnlen(config, configLength) != configLength)
		err = ACL_FAIL(ACL_ERROR_INVALID_PARAM, "configLength %zu: 1 to %d bytes of text",
			       configLength, PROF_CONFIG_MAX);
	else
		err = path_copy(text, config, configLength, __func__);
	if (err)
		return err;

	switch (configType) {
	case ACL_PROF_SYS_HARDWARE_MEM_FREQ:
		err = set_number(__func__, text, 1, 100, "", &v);
		break;
	case ACL_PROF_STORAGE_LIMIT:
		err = set_number(__func__, text, 200, UINT32_MAX, "MB", &v);
		break;
	case ACL_PROF_PATH:
		break;
	default:
		if (configType <= ACL_PROF_ARGS_MIN || configType >= ACL_PROF_ARGS_MAX)
			return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown configType %d",
					(int)configType);
		return ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "configType %d samples a counter "
				"this card does not have", (int)configType);
	}
	if (err)
		return err;

	acl_mutex_lock(&acl_prof_lock);
	if (prof.started) {
		err = ACL_FAIL(ACL_ERROR_PROF_ALREADY_RUN, "a profile runs: configure before "
			       "aclprofStart");
	} else if (configType == ACL_PROF_SYS_HARDWARE_MEM_FREQ) {
		prof.mem_freq = (uint32_t)v;
	} else if (configType == ACL_PROF_STORAGE_LIMIT) {
		prof.storage_limit = v << 20;
	} else {
		memcpy(prof.dir, text, sizeof(text));
		prof.inited = true;
	}
	acl_mutex_unlock(&acl_prof_lock);
	return err;
}

ACL_EXPORT aclError aclprofStart(const aclprofConfig *profilerConfig)
{
	aclError err = ACL_SUCCESS;

	ACL_CHECK_NULL(profilerConfig);
	acl_mutex_lock(&acl_prof_lock);
	if (!prof.inited)
		err = ACL_FAIL(ACL_ERROR_PROF_NOT_RUN, "profiling is not initialized "
			       "(aclprofInit first)");
	else if (prof.started)
		err = ACL_FAIL(ACL_ERROR_PROF_ALREADY_RUN, "a profile runs already (of devices "
			       "%#x): aclprofStop it first", prof.running.devices);
	if (!err) {
		prof.running = *profilerConfig;
		prof.started = true;
		prof.number++;
		prof.host_start = acl_now_ns();
		prof_dropped = 0;
		prof_update_stamping_locked();
	}
	acl_mutex_unlock(&acl_prof_lock);
	if (!err)
		prof_host_clear();	/* records from before the start are not its */
	return err;
}

static aclError stop_locked(void)
{
	struct prof_result r = { 0 };
	size_t nhost;
	aclError err;

	/*
	 * New submissions stop taking the lock first: the harvest waits for
	 * the streams' work, which may wait for a callback that submits.
	 */
	prof.started = false;
	prof_update_stamping_locked();
	prof_harvest_all_locked();
	r.dir = prof.dir;
	r.number = prof.number;
	r.types = prof.running.types;
	r.mem_freq = prof.mem_freq;
	r.storage_limit = prof.storage_limit;
	r.host_start = prof.host_start;
	for (int i = 0; i < ACL_MAX_DEVICES; i++)
		r.card_offset[i] = prof_card_offset_locked(i);
	r.tasks = prof_done;
	r.ntasks = prof_ndone;
	r.dropped = prof_dropped;
	r.host = prof_host_take(&nhost);
	r.nhost = nhost;
	err = prof_write_result(&r);
	prof_host_free(r.host, nhost);
	for (size_t i = 0; i < prof_ndone; i++)
		free(prof_done[i].name);
	free(prof_done);
	prof_done = NULL;
	prof_ndone = prof_done_cap = 0;
	return err;
}

ACL_EXPORT aclError aclprofStop(const aclprofConfig *profilerConfig)
{
	aclError err = ACL_SUCCESS;

	ACL_CHECK_NULL(profilerConfig);
	acl_mutex_lock(&acl_prof_lock);
	if (!prof.inited || !prof.started)
		err = ACL_FAIL(ACL_ERROR_PROF_NOT_RUN, "no profile runs (aclprofStart first)");
	else if (profilerConfig->devices != prof.running.devices ||
		 profilerConfig->types != prof.running.types)
		err = ACL_FAIL(ACL_ERROR_INVALID_PARAM, "the config is not the one aclprofStart "
			       "was given (devices %#x, types %#llx)", prof.running.devices,
			       (unsigned long long)prof.running.types);
	else
		err = stop_locked();
	acl_mutex_unlock(&acl_prof_lock);
	return err;
}

ACL_EXPORT aclError aclprofFinalize(void)
{
	aclError err = ACL_SUCCESS;

	acl_mutex_lock(&acl_prof_lock);
	if (!prof.inited)
		err = ACL_FAIL(ACL_ERROR_PROF_NOT_RUN, "profiling is not initialized "
			       "(aclprofInit first)");
	else if (prof.started)
		err = stop_locked();
	prof.inited = false;
	acl_mutex_unlock(&acl_prof_lock);
	return err;
}
