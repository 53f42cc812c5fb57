// SPDX-License-Identifier: MIT
/*
 * Notifies and count notifies. Each is an 8-byte word in a small device
 * buffer of its own, which the card writes and waits on: a record is a
 * VALUE_WRITE, a wait a VALUE_WAIT, a wait-and-reset a VALUE_WAIT then a
 * VALUE_WRITE of 0, all queued on the caller's stream. Nothing of a
 * context's fence area is involved, so a notify exported to another
 * process (the buffer through the driver, ipc.h) is recorded and waited
 * on there exactly as here. A notify is set (non-zero) or not; a count
 * notify holds a number.
 *
 * The card's VALUE_WAIT has no deadline: a wait asks for none (timeout 0,
 * "wait forever" in the vendor's docs) or is refused as not supported.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ipc.h"

#define KIND		"npunfy"
#define NOTIFY_BYTES	64

struct acl_notify {
	bool count;		/* aclrtCntNotify */
	bool imported;		/* another process's, by key */
	uint32_t id;
	struct acl_notify *next;	/* in notifies */
	struct acl_device *dev;
	uint32_t handle;	/* 0 once the device's file closed */
	uint64_t addr;		/* the word */
	uint64_t key;		/* the driver's key once exported, else 0 */
	char text[ACL_IPC_KEY_LEN];
};

static struct acl_notify *notifies;	/* under acl_ipc_lock */
static uint32_t next_notify_id;		/* under acl_ipc_lock */

/*
 * A handle is a tag and the notify's id, which is not reused: a stale or
 * made-up handle names no notify, rather than one made since.
 */
#define HANDLE_TAG	(0xa5ULL << 56)

static void *notify_handle(const struct acl_notify *n)
{
	return (void *)(uintptr_t)(HANDLE_TAG | n->id);
}

static struct acl_notify *notify_find_locked(const void *handle, bool count)
{
	struct acl_notify *n;

	ACL_ASSERT_HELD(&acl_ipc_lock);
	if (((uintptr_t)handle & ~0xffffffffULL) != HANDLE_TAG)
		return NULL;
	for (n = notifies; n; n = n->next)
		if (n->id == (uint32_t)(uintptr_t)handle && n->count == count)
			return n;
	return NULL;
}

/* The live notify behind handle, or NULL with the error recorded. */
static struct acl_notify *notify_get(const char *fn, const void *handle, bool count,
				     aclError *err)
{
	struct acl_notify *n;

	acl_mutex_lock(&acl_ipc_lock);
	n = notify_find_locked(handle, count);
	acl_mutex_unlock(&acl_ipc_lock);
	if (!n)
		*err = acl_fail(fn, ACL_ERROR_INVALID_PARAM, "%p is not a live %s", handle,
				count ? "count notify" : "notify");
	else if (!n->handle)
		*err = acl_fail(fn, ACL_ERROR_RT_DEVICE_TASK_ABORT, "the device of the notify "
				"was reset");
	return n && n->handle ? n : NULL;
}

static void notify_add(struct acl_notify *n)
{
	acl_mutex_lock(&acl_ipc_lock);
	n->id = next_notify_id++;
	n->next = notifies;
	notifies = n;
	acl_mutex_unlock(&acl_ipc_lock);
}

static aclError notify_new(const char *fn, void **out, uint64_t flag, bool count)
{
	struct acl_context *c;
	struct acl_notify *n;
	aclError err = ACL_SUCCESS;
	int ret;

	c = acl_current_ctx_for(out, &err);
	if (!c)
		return err;
	if (flag != ACL_NOTIFY_DEFAULT && (count || flag != ACL_NOTIFY_DEVICE_USE_ONLY))
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "unknown flag %#lx",
				(unsigned long)flag);
	n = calloc(1, sizeof(*n));
	if (!n)
		return acl_fail(fn, ACL_ERROR_BAD_ALLOC, "out of host memory");
	/* The driver clears new memory: the notify starts unset. */
	ret = drv_bo_create(c->dev->fd, NOTIFY_BYTES, DRM_NPU_BO_DEVICE, &n->handle, &n->addr,
			    NULL);
	if (ret) {
		free(n);
		return ret == -ENOMEM ?
			acl_fail(fn, ACL_ERROR_RT_NO_NOTIFY_RESOURCE, "no device memory left "
				 "for a notify on device %d", c->dev->id) :
			acl_drv_fail(fn, c->dev, ret, "creating a notify");
	}
	n->dev = c->dev;
	n->count = count;
	notify_add(n);
	*out = notify_handle(n);
	return ACL_SUCCESS;
}

static aclError notify_destroy(const char *fn, void *handle, bool count)
{
	struct acl_notify *n, **pp;

	acl_mutex_lock(&acl_ipc_lock);
	n = notify_find_locked(handle, count);
	if (n) {
		for (pp = &notifies; *pp != n; pp = &(*pp)->next)
			;
		*pp = n->next;
	}
	acl_mutex_unlock(&acl_ipc_lock);
	if (!n)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "%p is not a live %s", handle,
				count ? "count notify" : "notify");
	/* Queued records and waits hold the buffer until they are done. */
	if (n->handle) {
		if (n->key)
			acl_ipc_revoke(n->dev, n->key);
		drv_gem_close(n->dev->fd, n->handle);
	}
	free(n);
	return ACL_SUCCESS;
}

/* Queues cmds on stream, which must be of the notify's device. */
static aclError notify_submit(const char *fn, struct acl_notify *n, aclrtStream stream,
			      struct drm_npu_cmd *cmds, size_t count)
{
	aclError err = ACL_SUCCESS;
	struct acl_stream *s = acl_stream_resolve(stream, &err);

	if (!s)
		return err;
	if (s->dev != n->dev)
		return acl_fail(fn, ACL_ERROR_RT_STREAM_CONTEXT, "the stream is on device %d, "
				"the notify on device %d", s->dev->id, n->dev->id);
	return acl_stream_submit(s, cmds, count, NULL);
}

static aclError no_deadline(const char *fn, uint32_t timeout)
{
	if (!timeout)
		return ACL_SUCCESS;
	return acl_fail(fn, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "a timeout of %u s: the card "
			"waits without a deadline, pass 0 (wait forever)", timeout);
}

static struct drm_npu_cmd value_write(uint64_t addr, uint64_t value)
{
	return (struct drm_npu_cmd){ .op = DRM_NPU_OP_VALUE_WRITE, .dst = addr, .value = value };
}

static struct drm_npu_cmd value_wait(uint64_t addr, uint32_t cond, uint64_t value)
{
	return (struct drm_npu_cmd){ .op = DRM_NPU_OP_VALUE_WAIT, .dst = addr, .cond = cond,
				     .value = value };
}

ACL_EXPORT aclError aclrtCreateNotify(aclrtNotify *notify, uint64_t flag)
{
	return notify_new(__func__, notify, flag, false);
}

ACL_EXPORT aclError aclrtDestroyNotify(aclrtNotify notify)
{
	return notify_destroy(__func__, notify, false);
}

ACL_EXPORT aclError aclrtRecordNotify(aclrtNotify notify, aclrtStream stream)
{
	aclError err = ACL_SUCCESS;
	struct acl_notify *n = notify_get(__func__, notify, false, &err);
	struct drm_npu_cmd c;

	if (!n)
		return err;
	c = value_write(n->addr, 1);
	return notify_submit(__func__, n, stream, &c, 1);
}

ACL_EXPORT aclError aclrtWaitAndResetNotify(aclrtNotify notify, aclrtStream stream,
					    uint32_t timeout)
{
	aclError err = ACL_SUCCESS;
	struct acl_notify *n = notify_get(__func__, notify, false, &err);
	struct drm_npu_cmd c[2];

	if (!n)
		return err;
	err = no_deadline(__func__, timeout);
	if (err)
		return err;
	c[0] = value_wait(n->addr, DRM_NPU_WAIT_AND, ~0ULL);
	c[1] = value_write(n->addr, 0);
	return notify_submit(__func__, n, stream, c, 2);
}

static aclError notify_id(const char *fn, void *handle, bool count, uint32_t *id)
{
	aclError err = ACL_SUCCESS;
	struct acl_notify *n;

	if (!id)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "notifyId is NULL");
	n = notify_get(fn, handle, count, &err);
	if (n)
		*id = n->id;
	return err;
}

ACL_EXPORT aclError aclrtGetNotifyId(aclrtNotify notify, uint32_t *notifyId)
{
	return notify_id(__func__, notify, false, notifyId);
}

/* Clears each notify from the host: on a stream of its own, waited for. */
static aclError notify_reset_now(const char *fn, struct acl_notify *n)
{
	struct drm_npu_cmd c = value_write(n->addr, 0);
	aclError err = ACL_SUCCESS;
	struct acl_stream *s = acl_stream_new(n->dev, NULL, DRM_NPU_PRIORITY_HIGHEST, 0, &err);

	if (!s)
		return err;
	err = acl_stream_submit(s, &c, 1, NULL);
	if (!err)
		err = acl_stream_sync(s, -1);
	acl_stream_free(s, true);
	if (err)
		acl_fail(fn, err, "resetting notify %u", n->id);
	return err;
}

ACL_EXPORT aclError aclrtNotifyBatchReset(aclrtNotify *notifies_, size_t num)
{
	aclError err = ACL_SUCCESS;
	size_t i;

	ACL_CHECK_NULL(notifies_);
	if (!num)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "num is 0");
	for (i = 0; i < num; i++)
		if (!notify_get(__func__, notifies_[i], false, &err))
			return err;
	for (i = 0; i < num && !err; i++) {
		struct acl_notify *n = notify_get(__func__, notifies_[i], false, &err);

		if (n)
			err = notify_reset_now(__func__, n);
	}
	return err;
}

ACL_EXPORT aclError aclrtNotifyGetExportKey(aclrtNotify notify, char *key, size_t len,
					    uint64_t flags)
{
	aclError err = ACL_SUCCESS;
	struct acl_notify *n;
	struct acl_ipc_key k = { 0 };

	ACL_CHECK_NULL(key);
	if (len < ACL_IPC_KEY_LEN)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "len %zu is under %d", len,
				ACL_IPC_KEY_LEN);
	if (flags & ~ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown flags %#lx",
				(unsigned long)flags);
	n = notify_get(__func__, notify, false, &err);
	if (!n)
		return err;
	if (n->imported)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "notify %u is another process's", n->id);
	acl_mutex_lock(&acl_ipc_lock);
	if (!n->key)
		err = acl_ipc_export(__func__, n->dev, n->handle,
				     flags & ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION,
				     &n->key);
	if (!err) {
		k.serial = n->dev->serial;
		k.key = n->key;
		acl_ipc_key_format(n->text, sizeof(n->text), KIND, &k);
		memcpy(key, n->text, sizeof(n->text));
	}
	acl_mutex_unlock(&acl_ipc_lock);
	return err;
}

ACL_EXPORT aclError aclrtNotifySetImportPid(aclrtNotify notify, int32_t *pid, size_t num)
{
	aclError err = ACL_SUCCESS;
	struct acl_notify *n = notify_get(__func__, notify, false, &err);

	if (!n)
		return err;
	if (!n->key)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "notify %u is not exported "
				"(aclrtNotifyGetExportKey)", n->id);
	return acl_ipc_allow(__func__, n->dev, n->key, pid, num);
}

ACL_EXPORT aclError aclrtNotifyImportByKey(aclrtNotify *notify, const char *key, uint64_t flags)
{
	struct acl_notify *n;
	struct acl_device *d;
	struct acl_ipc_key k;
	aclError err = ACL_SUCCESS;
	uint64_t size;

	ACL_CHECK_NULL(notify);
	if (flags & ~ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown flags %#lx",
				(unsigned long)flags);
	d = acl_ipc_key_device(__func__, key, KIND, &k, &err);
	if (!d)
		return err;
	n = calloc(1, sizeof(*n));
	if (!n)
		return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of host memory");
	err = acl_ipc_import(__func__, d, k.key, &n->handle, &n->addr, &size);
	if (err) {
		free(n);
		return err;
	}
	n->dev = d;
	n->imported = true;
	notify_add(n);
	*notify = notify_handle(n);
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtNotifySetImportPidInterServer(aclrtNotify notify,
						       aclrtServerPid *serverPids, size_t num)
{
	(void)notify, (void)serverPids, (void)num;
	return ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
			"processes of other servers cannot import this card's notifies");
}

ACL_EXPORT aclError aclrtCntNotifyCreate(aclrtCntNotify *cntNotify, uint64_t flag)
{
	return notify_new(__func__, cntNotify, flag, true);
}

ACL_EXPORT aclError aclrtCntNotifyDestroy(aclrtCntNotify cntNotify)
{
	return notify_destroy(__func__, cntNotify, true);
}

/*
 * The card writes a value or waits for one; what needs it to read and
 * write the word in one step (adding, or, and) it cannot do.
 */
ACL_EXPORT aclError aclrtCntNotifyRecord(aclrtCntNotify cntNotify, aclrtStream stream,
					 aclrtCntNotifyRecordInfo *info)
{
	aclError err = ACL_SUCCESS;
	struct acl_notify *n;
	struct drm_npu_cmd c;

	ACL_CHECK_NULL(info);
	if (info->mode != ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE) {
		if (info->mode == ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE ||
		    info->mode == ACL_RT_CNT_NOTIFY_RECORD_BIT_OR_MODE ||
		    info->mode == ACL_RT_CNT_NOTIFY_RECORD_BIT_AND_MODE)
			return ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "record mode %d needs "
					"an atomic update, which this card has not: only "
					"ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE", info->mode);
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown record mode %d", info->mode);
	}
	n = notify_get(__func__, cntNotify, true, &err);
	if (!n)
		return err;
	c = value_write(n->addr, info->value);
	return notify_submit(__func__, n, stream, &c, 1);
}

/* The card's condition for a wait mode; false for one it cannot test. */
static bool cnt_wait_cond(const aclrtCntNotifyWaitInfo *info, struct drm_npu_cmd *c)
{
	switch (info->mode) {
	case ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE:
		c->cond = DRM_NPU_WAIT_EQ;
		c->value = info->value;
		return true;
	case ACL_RT_CNT_NOTIFY_WAIT_BIGGER_MODE:
		c->cond = DRM_NPU_WAIT_GEQ;
		c->value = (uint64_t)info->value + 1;
		return true;
	case ACL_RT_CNT_NOTIFY_WAIT_BIGGER_OR_EQUAL_MODE:
		c->cond = DRM_NPU_WAIT_GEQ;
		c->value = info->value;
		return true;
	default:
		return false;
	}
}

ACL_EXPORT aclError aclrtCntNotifyWaitWithTimeout(aclrtCntNotify cntNotify, aclrtStream stream,
						  aclrtCntNotifyWaitInfo *info)
{
	aclError err = ACL_SUCCESS;
	struct acl_notify *n;
	struct drm_npu_cmd c[2];

	ACL_CHECK_NULL(info);
	c[0] = value_wait(0, 0, 0);
	if (!cnt_wait_cond(info, &c[0])) {
		if (info->mode == ACL_RT_CNT_NOTIFY_WAIT_LESS_MODE ||
		    info->mode == ACL_RT_CNT_NOTIFY_WAIT_EQUAL_WITH_BITMASK_MODE)
			return ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "the card cannot wait "
					"in mode %d: only equal, bigger, bigger or equal",
					info->mode);
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown wait mode %d", info->mode);
	}
	if (info->isClear > 1)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "isClear is %u", info->isClear);
	n = notify_get(__func__, cntNotify, true, &err);
	if (!n)
		return err;
	err = no_deadline(__func__, info->timeout);
	if (err)
		return err;
	c[0].dst = n->addr;
	c[1] = value_write(n->addr, 0);
	return notify_submit(__func__, n, stream, c, info->isClear ? 2 : 1);
}

ACL_EXPORT aclError aclrtCntNotifyReset(aclrtCntNotify cntNotify, aclrtStream stream)
{
	aclError err = ACL_SUCCESS;
	struct acl_notify *n = notify_get(__func__, cntNotify, true, &err);
	struct drm_npu_cmd c;

	if (!n)
		return err;
	c = value_write(n->addr, 0);
	return notify_submit(__func__, n, stream, &c, 1);
}

ACL_EXPORT aclError aclrtCntNotifyGetId(aclrtCntNotify cntNotify, uint32_t *notifyId)
{
	return notify_id(__func__, cntNotify, true, notifyId);
}

void acl_notify_drop_device(struct acl_device *d)
{
	struct acl_notify *n;

	acl_mutex_lock(&acl_ipc_lock);
	for (n = notifies; n; n = n->next)
		if (n->dev == d)
			n->handle = 0;
	acl_mutex_unlock(&acl_ipc_lock);
}
