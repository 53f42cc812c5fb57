// SPDX-License-Identifier: MIT
/*
 * Contexts. Every context belongs to one device and has a default stream
 * of its own; the device's default context is made by aclrtSetDevice and
 * shared by all threads that set the device. The current context is per
 * thread; it is remembered with its handle generation so that a context
 * destroyed behind the thread's back reads as "no context".
 */
#include <stdlib.h>

#include "acl_internal.h"

static __thread struct acl_context *tls_ctx;
static __thread uint32_t tls_ctx_gen;

/*
 * aclInit's "defaultDevice" stands in for an aclrtSetDevice: the first
 * thread that needs it takes one reference for the process, under the init
 * lock. A close of the device is waited for without that lock (a callback
 * the close waits for may need it), and not at all in a callback.
 */
static struct acl_context *default_device_ctx(void)
{
	struct acl_device *d;
	bool closing;

	if (atomic_load_explicit(&acl_default_device, memory_order_relaxed) < 0)
		return NULL;	/* the common case, without the lock */
	do {
		closing = false;
		acl_mutex_lock(&acl_init_lock);
		d = acl_default_device >= 0 ? acl_device_get(acl_default_device) : NULL;
		if (d && !acl_default_taken) {
			aclError err = acl_device_acquire(d, false);

			acl_default_taken = !err;
			closing = err == ACL_ERROR_RT_DEVICE_TASK_ABORT;
		}
		acl_mutex_unlock(&acl_init_lock);
	} while (closing && acl_device_wait_closed(d));
	if (!d || closing)
		return NULL;
	acl_mutex_lock(&d->lock);
	if (d->default_ctx && !d->closing)
		acl_set_current_ctx(d->default_ctx);
	acl_mutex_unlock(&d->lock);
	return tls_ctx;
}

struct acl_context *acl_current_ctx_quiet(void)
{
	struct acl_context *c = tls_ctx;

	if (c && atomic_load(&c->obj.gen) == tls_ctx_gen && c->obj.live)
		return c;
	tls_ctx = NULL;
	return default_device_ctx();
}

struct acl_context *acl_current_ctx(void)
{
	struct acl_context *c = acl_current_ctx_quiet();

	if (!c)
		ACL_FAIL(ACL_ERROR_RT_CONTEXT_NULL,
			 "the thread has no current context: call aclrtSetDevice or aclrtSetCurrentContext");
	return c;
}

struct acl_context *acl_current_ctx_for(const void *out, aclError *err)
{
	struct acl_context *c;

	if (!out) {
		*err = ACL_FAIL(ACL_ERROR_INVALID_PARAM, "the output pointer is NULL");
		return NULL;
	}
	c = acl_current_ctx();
	if (!c)
		*err = ACL_ERROR_RT_CONTEXT_NULL;
	return c;
}

void acl_set_current_ctx(struct acl_context *c)
{
	tls_ctx = c;
	tls_ctx_gen = c ? atomic_load(&c->obj.gen) : 0;
}

struct acl_context *acl_context_create(struct acl_device *d, bool is_default, aclError *err)
{
	struct acl_context *c = acl_obj_alloc(ACL_OBJ_CONTEXT);

	if (!c) {
		*err = ACL_FAIL(ACL_ERROR_BAD_ALLOC, "too many contexts");
		return NULL;
	}
	c->dev = d;
	c->is_default = is_default;
	acl_list_init(&c->link);
	c->default_stream = acl_stream_new(d, c, DRM_NPU_PRIORITY_HIGHEST, 0, err);
	if (!c->default_stream) {
		acl_obj_free(c);
		return NULL;
	}
	c->default_stream->is_default = true;
	acl_mutex_lock(&d->list_lock);
	acl_list_add(&d->contexts, &c->link);
	acl_mutex_unlock(&d->list_lock);
	return c;
}

/* A stream of c other than its default one that nobody is freeing yet. */
static struct acl_stream *next_stream(struct acl_context *c)
{
	struct acl_device *d = c->dev;
	struct acl_stream *found = NULL;
	struct acl_list *pos;

	acl_mutex_lock(&d->list_lock);
	for (pos = d->streams.next; pos != &d->streams && !found; pos = pos->next) {
		struct acl_stream *s = acl_container_of(pos, struct acl_stream, link);

		if (s->ctx == c && s != c->default_stream && !s->dying)
			found = s;
	}
	acl_mutex_unlock(&d->list_lock);
	return found;
}

/*
 * Destroys the context's streams (its default stream last), then it. Takes
 * the list lock only to find each stream: freeing one may wait for a
 * running callback, which may create and destroy streams and events.
 */
void acl_context_destroy(struct acl_context *c, bool wait)
{
	struct acl_device *d = c->dev;
	struct acl_stream *s;

	while ((s = next_stream(c)))
		acl_stream_free(s, wait);
	if (c->default_stream)
		acl_stream_free(c->default_stream, wait);
	c->default_stream = NULL;
	acl_mutex_lock(&d->list_lock);
	acl_list_del(&c->link);
	acl_mutex_unlock(&d->list_lock);
	if (tls_ctx == c)
		tls_ctx = NULL;
	acl_obj_free(c);
}

ACL_EXPORT aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId)
{
	struct acl_device *d;
	struct acl_context *c;
	aclError err = ACL_SUCCESS;

	ACL_CHECK_NULL(context);
	d = acl_device_get(deviceId);
	if (!d)
		return ACL_FAIL(ACL_ERROR_RT_INVALID_DEVICEID, "device %d does not exist", deviceId);
	/* An explicit context holds a reference on its device. */
	err = acl_device_acquire(d, true);
	if (err)
		return err;
	c = acl_context_create(d, false, &err);
	if (!c) {
		acl_device_release(d, false);
		return err;
	}
	acl_set_current_ctx(c);
	*context = acl_obj_handle(c);
	return ACL_SUCCESS;
}

static struct acl_context *context_get(aclrtContext context, aclError *err)
{
	struct acl_context *c = acl_obj_lookup(ACL_OBJ_CONTEXT, context);

	if (!c)
		*err = ACL_FAIL(ACL_ERROR_INVALID_PARAM, "context %p is not a live context", context);
	return c;
}

ACL_EXPORT aclError aclrtDestroyContext(aclrtContext context)
{
	aclError err = ACL_SUCCESS;
	struct acl_context *c = context_get(context, &err);
	struct acl_device *d;

	if (!c)
		return err;
	if (c->is_default)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM,
				"the default context is released by aclrtResetDevice, not destroyed");
	d = c->dev;
	/* Waits for the streams first, without the device lock. */
	acl_device_drain(d, c);
	acl_context_destroy(c, true);
	return acl_device_release(d, false);
}

ACL_EXPORT aclError aclrtSetCurrentContext(aclrtContext context)
{
	aclError err = ACL_SUCCESS;
	struct acl_context *c = context_get(context, &err);

	if (c)
		acl_set_current_ctx(c);
	return err;
}

ACL_EXPORT aclError aclrtGetCurrentContext(aclrtContext *context)
{
	aclError err = ACL_SUCCESS;
	struct acl_context *c = acl_current_ctx_for(context, &err);

	if (c)
		*context = acl_obj_handle(c);
	return err;
}

ACL_EXPORT aclError aclrtCtxGetCurrentDefaultStream(aclrtStream *stream)
{
	aclError err = ACL_SUCCESS;
	struct acl_context *c = acl_current_ctx_for(stream, &err);

	if (c)
		*stream = acl_obj_handle(c->default_stream);
	return err;
}
