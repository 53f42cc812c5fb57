// SPDX-License-Identifier: MIT
/*
 * aclrtDeviceTaskAbort: the work this process has queued on a device, on
 * every stream of every context, is dropped, as aclrtStreamAbort drops one
 * stream's (stream_ctl.c): its rings are destroyed with abort and
 * replaced, so that whoever waits for the dropped work (a synchronization,
 * an event) gets ACL_ERROR_RT_STREAM_ABORT, and the streams take new work
 * at once. Callbacks registered with aclrtSetDeviceTaskAbortCallback are
 * told before and after.
 *
 * Streams made or destroyed while the abort runs conflict with it, as the
 * vendor documents; a stream destroyed meanwhile is skipped.
 */
#include <stdlib.h>
#include <string.h>

#include "acl_internal.h"

#define ABORT_CB_MAX		16
#define ABORT_NAME_MAX		128
/* The vendor's longest timeout: 36 minutes. */
#define ABORT_TIMEOUT_MAX_MS	(36u * 60 * 1000)

struct abort_cb {
	char name[ABORT_NAME_MAX];
	aclrtDeviceTaskAbortCallback fn;
	void *args;
};

static struct acl_mutex abort_lock = ACL_MUTEX_INITIALIZER;
static struct abort_cb abort_cbs[ABORT_CB_MAX];
static int abort_ncbs;

static int abort_cb_find(const char *name)
{
	int i;

	ACL_ASSERT_HELD(&abort_lock);
	for (i = 0; i < abort_ncbs; i++)
		if (!strcmp(abort_cbs[i].name, name))
			return i;
	return -1;
}

static aclError abort_cb_set(const char *name, aclrtDeviceTaskAbortCallback fn, void *args)
{
	int i = abort_cb_find(name);

	if (!fn) {
		if (i < 0)
			return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "no device task abort callback is "
					"registered as \"%s\"", name);
		abort_cbs[i] = abort_cbs[--abort_ncbs];
		return ACL_SUCCESS;
	}
	if (i >= 0)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "a device task abort callback is already "
				"registered as \"%s\"", name);
	if (abort_ncbs == ABORT_CB_MAX)
		return ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "at most %d device task abort "
				"callbacks", ABORT_CB_MAX);
	abort_cbs[abort_ncbs] = (struct abort_cb){ .fn = fn, .args = args };
	strcpy(abort_cbs[abort_ncbs].name, name);
	abort_ncbs++;
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtSetDeviceTaskAbortCallback(const char *regName,
						    aclrtDeviceTaskAbortCallback callback,
						    void *args)
{
	aclError err;

	ACL_CHECK_NULL(regName);
	if (!regName[0] || strnlen(regName, ABORT_NAME_MAX) == ABORT_NAME_MAX)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "regName must have 1 to %d characters",
				ABORT_NAME_MAX - 1);
	acl_mutex_lock(&abort_lock);
	err = abort_cb_set(regName, callback, args);
	acl_mutex_unlock(&abort_lock);
	return err;
}

/* Called without abort_lock: a callback may register or unregister. */
static void abort_cb_call(int32_t dev, aclrtDeviceTaskAbortStage stage, uint32_t timeout)
{
	struct abort_cb cbs[ABORT_CB_MAX];
	int i, n;

	acl_mutex_lock(&abort_lock);
	n = abort_ncbs;
	memcpy(cbs, abort_cbs, sizeof(cbs[0]) * (size_t)n);
	acl_mutex_unlock(&abort_lock);
	for (i = 0; i < n; i++) {
		int32_t ret = cbs[i].fn(dev, stage, timeout, cbs[i].args);

		if (ret)
			ACL_LOGW("device task abort callback \"%s\" returned %d", cbs[i].name, ret);
	}
}

/* The handles of d's streams in the programs' contexts; *n of them, NULL when none. */
static aclrtStream *user_streams(struct acl_device *d, size_t *n)
{
	aclrtStream *v = NULL, *nv;
	size_t cap = 0;
	struct acl_list *pos;

	*n = 0;
	acl_mutex_lock(&d->list_lock);
	for (pos = d->streams.next; pos != &d->streams; pos = pos->next) {
		struct acl_stream *s = acl_container_of(pos, struct acl_stream, link);

		if (s->dying || !s->ctx)
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		v[(*n)++] = acl_obj_handle(s);
	}
	acl_mutex_unlock(&d->list_lock);
	return v;
}

ACL_EXPORT aclError aclrtDeviceTaskAbort(int32_t deviceId, uint32_t timeout)
{
	struct acl_device *d = acl_device_get(deviceId);
	aclError err = ACL_SUCCESS, e;
	aclrtStream *v;
	size_t n, i;

	if (!d)
		return ACL_FAIL(ACL_ERROR_RT_INVALID_DEVICEID, "device %d does not exist", deviceId);
	if (timeout > ABORT_TIMEOUT_MAX_MS)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "timeout %u ms is over the longest, %u ms "
				"(0: none)", timeout, ABORT_TIMEOUT_MAX_MS);
	abort_cb_call(deviceId, ACL_RT_DEVICE_TASK_ABORT_PRE, timeout);
	v = user_streams(d, &n);
	for (i = 0; i < n; i++) {
		struct acl_stream *s = acl_obj_lookup(ACL_OBJ_STREAM, v[i]);

		if (!s)
			continue;	/* destroyed meanwhile */
		acl_mutex_lock(&s->lock);
		e = acl_stream_restart_locked(s);
		acl_mutex_unlock(&s->lock);
		if (e && !err)
			err = e;
	}
	free(v);
	abort_cb_call(deviceId, ACL_RT_DEVICE_TASK_ABORT_POST, timeout);
	return err;
}
