// SPDX-License-Identifier: MIT
/*
 * IPC events: events of aclrtCreateEventExWithFlag with ACL_EVENT_IPC,
 * which another process opens by handle. A fence slot is its context's
 * alone, so such an event carries, besides its slot, an 8-byte word in a
 * device buffer of its own that is shared as IPC memory is (ipc.h): every
 * record, in either process, also writes 1 there (VALUE_WRITE). In the
 * process that recorded it, an event behaves as any other (its slot); a
 * process that opened it and has not recorded it itself waits for the
 * word on the card (VALUE_WAIT until non-zero), synchronizes by queueing
 * that wait on a stream of its own, and queries by reading the word.
 *
 * So in the opener an event counts as complete once a record of it has
 * completed, whichever: the word does not tell one record of the creator
 * from the next. The handle carries no process list: the vendor's API
 * has none for events, and any process that has the handle may open it.
 */
#include <stdlib.h>
#include <string.h>

#include "ipc.h"

#define KIND	"npuevt"
#define WORD_BYTES	64

struct acl_ipc_event {
	uint32_t handle;	/* the word's buffer in the device's file */
	uint64_t addr;		/* the word */
	uint64_t key;		/* the creator's export, once asked for; else 0 */
	bool opened;		/* by handle, in a process that did not create it */
};

static aclError word_new(struct acl_event *ev)
{
	struct acl_ipc_event *ipc = calloc(1, sizeof(*ipc));
	int ret;

	if (!ipc)
		return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of host memory");
	ret = drv_bo_create(ev->dev->fd, WORD_BYTES, DRM_NPU_BO_DEVICE, &ipc->handle,
			    &ipc->addr, NULL);
	if (ret) {
		free(ipc);
		return ACL_DRV_FAIL(ev->dev, ret, "allocating an IPC event's word");
	}
	ev->ipc = ipc;
	return ACL_SUCCESS;
}

aclError acl_ipc_event_init(struct acl_event *ev)
{
	return word_new(ev);
}

void acl_ipc_event_release(struct acl_event *ev)
{
	if (ev->ipc->key)
		acl_ipc_revoke(ev->dev, ev->ipc->key);
	drv_gem_close(ev->dev->fd, ev->ipc->handle);
}

aclError acl_ipc_event_record(struct acl_event *ev, struct acl_stream *s)
{
	struct drm_npu_cmd c = {
		.op = DRM_NPU_OP_VALUE_WRITE, .dst = ev->ipc->addr, .value = 1,
	};

	return acl_stream_submit(s, &c, 1, NULL);
}

bool acl_ipc_event_opened(const struct acl_event *ev)
{
	return ev->ipc && ev->ipc->opened;
}

static struct drm_npu_cmd word_wait(const struct acl_event *ev)
{
	return (struct drm_npu_cmd){ .op = DRM_NPU_OP_VALUE_WAIT, .dst = ev->ipc->addr,
				     .cond = DRM_NPU_WAIT_AND, .value = ~0ULL };
}

aclError acl_ipc_event_wait(struct acl_event *ev, struct acl_stream *s)
{
	struct drm_npu_cmd c = word_wait(ev);

	return acl_stream_submit(s, &c, 1, NULL);
}

/* Runs cmd on a stream of its own and waits for it (timeout_ms -1: forever). */
static aclError run_now(struct acl_device *d, struct drm_npu_cmd *cmd, int32_t timeout_ms)
{
	aclError err = ACL_SUCCESS;
	struct acl_stream *s = acl_stream_new(d, NULL, DRM_NPU_PRIORITY_HIGHEST, 0, &err);

	if (!s)
		return err;
	err = acl_stream_submit(s, cmd, 1, NULL);
	if (!err)
		err = acl_stream_sync(s, timeout_ms);
	/* A wait that timed out is dropped with its stream. */
	acl_stream_free(s, !err);
	return err;
}

aclError acl_ipc_event_sync(struct acl_event *ev, int32_t timeout_ms)
{
	struct drm_npu_cmd c = word_wait(ev);

	return run_now(ev->dev, &c, timeout_ms);
}

aclError acl_ipc_event_done(struct acl_event *ev, bool *done)
{
	uint64_t word = 0;
	struct drm_npu_cmd c = {
		.op = DRM_NPU_OP_COPY, .flags = DRM_NPU_CMD_DST_USER,
		.dst = (uintptr_t)&word, .src = ev->ipc->addr, .size = sizeof(word),
	};
	aclError err = run_now(ev->dev, &c, -1);

	*done = word != 0;
	return err;
}

ACL_EXPORT aclError aclrtIpcGetEventHandle(aclrtEvent event, aclrtIpcEventHandle *handle)
{
	struct acl_ipc_key k = { 0 };
	struct acl_event *ev;
	aclError err = ACL_SUCCESS;

	ACL_CHECK_NULL(handle);
	ev = acl_obj_lookup(ACL_OBJ_EVENT, event);
	if (!ev)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "event %p is not a live event", event);
	if (!ev->ipc || ev->ipc->opened)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, ev->ipc ?
				"the event was opened from another process's handle" :
				"the event was not created with ACL_EVENT_IPC");
	acl_mutex_lock(&acl_ipc_lock);
	if (!ev->ipc->key)
		err = acl_ipc_export(__func__, ev->dev, ev->ipc->handle, true, &ev->ipc->key);
	k.serial = ev->dev->serial;
	k.key = ev->ipc->key;
	acl_mutex_unlock(&acl_ipc_lock);
	if (err)
		return err;
	memset(handle, 0, sizeof(*handle));
	acl_ipc_key_format(handle->reserved, sizeof(handle->reserved), KIND, &k);
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtIpcOpenEventHandle(aclrtIpcEventHandle handle, aclrtEvent *event)
{
	struct acl_ipc_event *ipc;
	struct acl_device *d;
	struct acl_event *ev;
	struct acl_ipc_key k;
	aclError err = ACL_SUCCESS;
	uint64_t size;

	ACL_CHECK_NULL(event);
	handle.reserved[sizeof(handle.reserved) - 1] = '\0';
	d = acl_ipc_key_device(__func__, handle.reserved, KIND, &k, &err);
	if (!d)
		return err;
	ipc = calloc(1, sizeof(*ipc));
	if (!ipc)
		return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of host memory");
	err = acl_ipc_import(__func__, d, k.key, &ipc->handle, &ipc->addr, &size);
	if (!err)
		err = acl_event_create(event, ACL_EVENT_IPC, true);
	if (err) {
		if (ipc->handle)
			drv_gem_close(d->fd, ipc->handle);
		free(ipc);
		return err;
	}
	ipc->opened = true;
	ev = acl_obj_lookup(ACL_OBJ_EVENT, *event);
	ev->ipc = ipc;
	return ACL_SUCCESS;
}
