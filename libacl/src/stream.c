// SPDX-License-Identifier: MIT
/*
 * Streams: making, finding and freeing them, and the public aclrt* stream
 * API. Each stream owns one hardware ring (a kernel stream, stream_ring.c)
 * and may get a direct one (direct_ring.c); waiting is stream_wait.c's,
 * failure handling stream_fail.c's.
 */
#include <stdlib.h>

#include "acl_internal.h"
#include "allocator.h"
#include "capture.h"
#include "prof.h"

struct acl_stream *acl_stream_new(struct acl_device *d, struct acl_context *ctx,
				  uint32_t priority, uint32_t flags, aclError *err)
{
	struct acl_stream *s = acl_obj_alloc(ACL_OBJ_STREAM);
	struct acl_kstream *k;

	if (!s) {
		*err = ACL_FAIL(ACL_ERROR_RT_NO_STREAM_RESOURCE, "too many streams");
		return NULL;
	}
	s->dev = d;
	s->ctx = ctx;
	s->priority = priority;
	s->flags = flags;
	s->failure_mode = ACL_CONTINUE_ON_FAILURE;
	acl_mutex_init(&s->lock);
	acl_list_init(&s->link);
	*err = acl_kstream_new(s, &k);
	while (*err == ACL_ERROR_RT_NO_STREAM_RESOURCE && acl_direct_reclaim(d))
		*err = acl_kstream_new(s, &k);
	if (*err) {
		acl_obj_free(s);
		return NULL;
	}
	atomic_store(&s->kst, k);
	atomic_store(&s->last, k);
	if (flags & ACL_STREAM_FAST_LAUNCH) {
		s->direct_tried = true;
		atomic_store(&s->dst, acl_direct_new(s));
	}
	acl_mutex_lock(&d->list_lock);
	acl_list_add(&d->streams, &s->link);
	acl_mutex_unlock(&d->list_lock);
	acl_stream_state_notify(s, ACL_RT_STREAM_STATE_CREATE_POST);
	return s;
}

/* Marks s as being freed; false if another thread got there first. */
static bool claim(struct acl_stream *s)
{
	struct acl_device *d = s->dev;
	bool mine;

	acl_mutex_lock(&d->list_lock);
	mine = !s->dying;
	s->dying = true;
	acl_mutex_unlock(&d->list_lock);
	return mine;
}

/* Holds no lock while it waits for the stream and for a running callback. */
aclError acl_stream_free(struct acl_stream *s, bool wait)
{
	struct acl_device *d = s->dev;
	struct acl_kstream *k, *older;

	if (!claim(s))
		return ACL_SUCCESS;
	acl_stream_state_notify(s, ACL_RT_STREAM_STATE_DESTROY_PRE);
	if (wait)
		acl_stream_drain(s);
	acl_cb_stream_gone(s);
	acl_allocator_stream_gone(s);
	acl_mutex_lock(&d->list_lock);
	acl_list_del(&s->link);
	acl_mutex_unlock(&d->list_lock);
	acl_prof_stream_gone(s, wait);
	acl_mutex_lock(&s->lock);
	k = atomic_load(&s->dst);
	if (k) {
		if (d->fd >= 0)
			drv_stream_destroy(d->fd, k->id, true);
		acl_direct_unmap(k);
		acl_journal_free(k);
		free(k->dir);
		free(k);
		atomic_store(&s->dst, NULL);
	}
	k = atomic_load(&s->kst);
	if (d->fd >= 0)
		drv_stream_destroy(d->fd, k->id, !wait || s->sticky_err);
	for (; k; k = older) {
		older = k->older;
		acl_journal_free(k);
		free(k->dir);
		free(k);
	}
	atomic_store(&s->kst, NULL);
	acl_task_log_free(s);
	acl_mutex_unlock(&s->lock);
	acl_obj_free(s);
	return ACL_SUCCESS;
}

struct acl_stream *acl_stream_resolve(aclrtStream handle, aclError *err)
{
	struct acl_context *c;
	struct acl_stream *s;

	if (!handle) {
		c = acl_current_ctx();
		if (!c) {
			*err = ACL_ERROR_RT_CONTEXT_NULL;
			return NULL;
		}
		return c->default_stream;
	}
	s = acl_obj_lookup(ACL_OBJ_STREAM, handle);
	if (!s || !s->ctx) {
		*err = ACL_FAIL(ACL_ERROR_INVALID_PARAM, "stream %p is not a live stream", handle);
		return NULL;
	}
	return s;
}

/* ---- public API -------------------------------------------------------- */

#define STREAM_FLAGS (ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC | ACL_STREAM_PERSISTENT | \
		      ACL_STREAM_HUGE | ACL_STREAM_CPU_SCHEDULE | ACL_STREAM_DEVICE_USE_ONLY)

ACL_EXPORT aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority,
						uint32_t flag)
{
	struct acl_context *c;
	struct acl_stream *s;
	aclError err = ACL_SUCCESS;

	ACL_CHECK_NULL(stream);
	if (priority > DRM_NPU_PRIORITY_LOWEST)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "priority %u is outside 0..%d", priority,
				DRM_NPU_PRIORITY_LOWEST);
	if (flag & ~STREAM_FLAGS)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown stream flags %#x", flag);
	c = acl_current_ctx();
	if (!c)
		return ACL_ERROR_RT_CONTEXT_NULL;
	s = acl_stream_new(c->dev, c, priority, flag, &err);
	if (!s)
		return err;
	*stream = acl_obj_handle(s);
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtCreateStream(aclrtStream *stream)
{
	return aclrtCreateStreamWithConfig(stream, DRM_NPU_PRIORITY_HIGHEST, 0);
}

static aclError destroy_stream(aclrtStream stream, bool wait)
{
	struct acl_stream *s;
	aclError err = ACL_SUCCESS;

	if (!stream)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "the default stream cannot be destroyed");
	s = acl_stream_resolve(stream, &err);
	if (!s)
		return err;
	if (s->is_default)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "the default stream cannot be destroyed");
	err = acl_capture_check_stream(wait ? "aclrtDestroyStream" : "aclrtDestroyStreamForce", s);
	if (err)
		return err;
	return acl_stream_free(s, wait);
}

ACL_EXPORT aclError aclrtDestroyStream(aclrtStream stream)
{
	return destroy_stream(stream, true);
}

ACL_EXPORT aclError aclrtDestroyStreamForce(aclrtStream stream)
{
	return destroy_stream(stream, false);
}

ACL_EXPORT aclError aclrtSynchronizeStream(aclrtStream stream)
{
	struct acl_stream *s;
	aclError err = ACL_SUCCESS;

	s = acl_stream_resolve(stream, &err);
	if (!s)
		return err;
	err = acl_capture_check_stream(__func__, s);
	if (err)
		return err;
	return acl_stream_sync(s, -1);
}

ACL_EXPORT aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout)
{
	struct acl_stream *s;
	aclError err = ACL_SUCCESS;

	if (timeout < -1)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "timeout %d is invalid (-1 or >= 0)", timeout);
	s = acl_stream_resolve(stream, &err);
	if (!s)
		return err;
	err = acl_capture_check_stream(__func__, s);
	if (err)
		return err;
	return acl_stream_sync(s, timeout);
}

/* The stream of a call that reports through out (checked first). */
static struct acl_stream *stream_for(aclrtStream stream, const void *out, aclError *err)
{
	if (!out) {
		*err = ACL_FAIL(ACL_ERROR_INVALID_PARAM, "the output pointer is NULL");
		return NULL;
	}
	return acl_stream_resolve(stream, err);
}

/* Loads only, like an event query: no lock and no system call on success. */
ACL_EXPORT aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status)
{
	aclError err = ACL_SUCCESS;
	struct acl_stream *s = stream_for(stream, status, &err);
	struct acl_ticket t;
	uint32_t e;
	bool done;

	if (!s)
		return err;
	err = acl_capture_check_stream(__func__, s);
	if (err)
		return err;
	t = acl_stream_last_ticket(s);
	done = acl_ticket_done(s, &t, &e);
	if (!done && e) {
		err = acl_stream_wait(s, &t, 0);	/* reports the failure */
		if (err)
			return err;
		done = true;
	}
	*status = done ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtStreamGetPriority(aclrtStream stream, uint32_t *priority)
{
	aclError err = ACL_SUCCESS;
	struct acl_stream *s = stream_for(stream, priority, &err);

	if (s)
		*priority = s->priority;
	return err;
}

ACL_EXPORT aclError aclrtStreamGetFlags(aclrtStream stream, uint32_t *flags)
{
	aclError err = ACL_SUCCESS;
	struct acl_stream *s = stream_for(stream, flags, &err);

	if (s)
		*flags = s->flags;
	return err;
}

ACL_EXPORT aclError aclrtStreamGetId(aclrtStream stream, int32_t *streamId)
{
	aclError err = ACL_SUCCESS;
	struct acl_stream *s = stream_for(stream, streamId, &err);

	if (s)
		*streamId = (int32_t)s->obj.index;
	return err;
}

ACL_EXPORT aclError aclrtGetStreamAvailableNum(uint32_t *streamCount)
{
	struct acl_context *c;
	uint64_t v;
	aclError err;

	ACL_CHECK_NULL(streamCount);
	err = acl_current_dev_param(__func__, DRM_NPU_PARAM_FREE_RINGS, &v);
	if (err)
		return err;
	c = acl_current_ctx();
	*streamCount = (uint32_t)v + acl_direct_rings_held(c->dev);
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode)
{
	struct acl_stream *s;
	aclError err = ACL_SUCCESS;

	if (mode != ACL_CONTINUE_ON_FAILURE && mode != ACL_STOP_ON_FAILURE)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown failure mode %llu",
				(unsigned long long)mode);
	s = acl_stream_resolve(stream, &err);
	if (!s)
		return err;
	acl_mutex_lock(&s->lock);
	s->failure_mode = mode;
	acl_mutex_unlock(&s->lock);
	return ACL_SUCCESS;
}
