// SPDX-License-Identifier: MIT
/*
 * Device buffers shared with other processes through the driver (see
 * ipc.h), and the text keys that name them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ipc.h"

struct acl_mutex acl_ipc_lock = ACL_MUTEX_INITIALIZER;

bool acl_ipc_key_format(char *out, size_t len, const char *kind, const struct acl_ipc_key *k)
{
	int n = snprintf(out, len, "%s-%016" PRIx64 "-%016" PRIx64 "-%" PRIx64, kind,
			 k->serial, k->key, k->offset);

	return n > 0 && (size_t)n < len;
}

bool acl_ipc_key_parse(const char *text, const char *kind, struct acl_ipc_key *k)
{
	size_t klen = strlen(kind);
	int end = 0;

	if (strnlen(text, ACL_IPC_KEY_LEN) >= ACL_IPC_KEY_LEN ||
	    strncmp(text, kind, klen) || text[klen] != '-')
		return false;
	if (sscanf(text + klen, "-%16" SCNx64 "-%16" SCNx64 "-%16" SCNx64 "%n",
		   &k->serial, &k->key, &k->offset, &end) != 3)
		return false;
	return text[klen + end] == '\0' && k->key;
}

/* A card's serial, whether this process has it open or not; 0 if unreadable. */
static uint64_t device_serial(struct acl_device *d)
{
	uint64_t serial = 0;
	int fd = d->fd >= 0 ? d->fd : drv_open(d->path);

	if (fd < 0)
		return 0;
	drv_get_param(fd, DRM_NPU_PARAM_SERIAL, &serial);
	if (fd != d->fd)
		close(fd);
	return serial;
}

struct acl_device *acl_ipc_key_device(const char *fn, const char *text, const char *kind,
				      struct acl_ipc_key *k, aclError *err)
{
	struct acl_context *c;
	int i;

	if (!text) {
		*err = acl_fail(fn, ACL_ERROR_INVALID_PARAM, "key is NULL");
		return NULL;
	}
	if (!acl_ipc_key_parse(text, kind, k)) {
		*err = acl_fail(fn, ACL_ERROR_INVALID_PARAM, "\"%.*s\" is not a %s key",
				ACL_IPC_KEY_LEN, text, kind);
		return NULL;
	}
	c = acl_current_ctx();
	if (!c) {
		*err = ACL_ERROR_RT_CONTEXT_NULL;
		return NULL;
	}
	if (c->dev->serial == k->serial)
		return c->dev;
	for (i = 0; i < acl_ndevices; i++) {
		if (&acl_devices[i] != c->dev && device_serial(&acl_devices[i]) == k->serial) {
			*err = acl_fail(fn, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
					"key %s is of device %d, the current one is %d: cards "
					"cannot reach each other's memory (peer access, issue 28)",
					text, acl_devices[i].id, c->dev->id);
			return NULL;
		}
	}
	*err = acl_fail(fn, ACL_ERROR_INVALID_PARAM, "key %s is of no device here", text);
	return NULL;
}

aclError acl_ipc_export(const char *fn, struct acl_device *d, uint32_t handle, bool any,
			uint64_t *key)
{
	int ret = drv_bo_export(d->fd, handle, any ? DRM_NPU_EXPORT_ANY_PROCESS : 0, key);

	if (ret == -ENOSPC)
		return acl_fail(fn, ACL_ERROR_RT_RESOURCE_ALLOC_FAIL,
				"this process already exports %d keys on device %d",
				DRM_NPU_MAX_EXPORTS, d->id);
	return ret ? acl_drv_fail(fn, d, ret, "exporting a buffer") : ACL_SUCCESS;
}

aclError acl_ipc_allow(const char *fn, struct acl_device *d, uint64_t key, const int32_t *pid,
		       size_t num)
{
	size_t i, n;
	int ret;

	if (!pid || !num)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, pid ? "num is 0" : "pid is NULL");
	for (i = 0; i < num; i += n) {
		n = num - i < DRM_NPU_EXPORT_MAX_PIDS ? num - i : DRM_NPU_EXPORT_MAX_PIDS;
		ret = drv_bo_export_ctl(d->fd, key, DRM_NPU_EXPORT_ALLOW, pid + i, (uint32_t)n);
		if (ret == -ESRCH)
			return acl_fail(fn, ACL_ERROR_INVALID_PARAM,
					"one of pid[%zu..%zu] is no process", i, i + n - 1);
		if (ret == -ENOSPC)
			return acl_fail(fn, ACL_ERROR_INVALID_PARAM,
					"more than %d processes for one key",
					DRM_NPU_EXPORT_MAX_PIDS);
		if (ret)
			return acl_drv_fail(fn, d, ret, "allowing processes to import");
	}
	return ACL_SUCCESS;
}

void acl_ipc_revoke(struct acl_device *d, uint64_t key)
{
	/* Fails only once the card's file is gone, and the key with it. */
	drv_bo_export_ctl(d->fd, key, DRM_NPU_EXPORT_REVOKE, NULL, 0);
}

aclError acl_ipc_import(const char *fn, struct acl_device *d, uint64_t key, uint32_t *handle,
			uint64_t *addr, uint64_t *size)
{
	int ret = drv_bo_import(d->fd, key, handle, addr, size);

	switch (ret) {
	case 0:
		return ACL_SUCCESS;
	case -EACCES:
		return acl_fail(fn, ACL_ERROR_RT_NO_PERMISSION, "process %d is not allowed "
				"to import the key (the exporter's SetImportPid)", (int)getpid());
	case -ENOENT:
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM,
				"the key is not exported, or was closed");
	case -EINVAL:
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM,
				"the key is this process's own: it has what the key names");
	default:
		return acl_drv_fail(fn, d, ret, "importing a buffer");
	}
}

/* Called as the device closes: its file, and every handle in it, goes. */
void acl_ipc_drop_device(struct acl_device *d)
{
	acl_ipc_mem_drop_device(d);
	acl_notify_drop_device(d);
}
