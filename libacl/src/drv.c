// SPDX-License-Identifier: MIT
/*
 * The thin layer over the driver's ioctls (uapi/npu_accel.h). Every
 * function is one ioctl and returns 0 or a negative errno; no policy here.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <xf86drm.h>

#include "acl_internal.h"

static int drv_ioctl(int fd, unsigned long req, void *arg)
{
	return drmIoctl(fd, req, arg) ? -errno : 0;
}

/*
 * The driver of an accel node, from sysfs: 1 when npu, 0 when another,
 * -1 when sysfs does not say. Probing by name opens no card, so probing
 * never takes, even for a moment, a card in exclusive mode that another
 * process is about to open (docs/ABI/sysfs-driver-npu, npu/exclusive).
 */
static int drv_sysfs_is_npu(const char *path)
{
	const char *node = strrchr(path, '/');
	char link[96], target[PATH_MAX], *driver;
	ssize_t n;

	snprintf(link, sizeof(link), "/sys/class/accel/%s/device/driver", node ? node + 1 : path);
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return -1;
	target[n] = 0;
	driver = strrchr(target, '/');
	return !strcmp(driver ? driver + 1 : target, "npu");
}

int drv_probe(const char *path)
{
	drmVersionPtr v;
	int fd, ok = drv_sysfs_is_npu(path);

	if (ok >= 0)
		return ok;
	ok = 0;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return 0;
	v = drmGetVersion(fd);
	if (v) {
		ok = v->name && !strcmp(v->name, "npu");
		drmFreeVersion(v);
	}
	close(fd);
	return ok;
}

int drv_open(const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int drv_get_param(int fd, uint32_t param, uint64_t *value)
{
	struct drm_npu_get_param a = { .param = param };
	int ret = drv_ioctl(fd, DRM_IOCTL_NPU_GET_PARAM, &a);

	if (!ret)
		*value = a.value;
	return ret;
}

int drv_bo_create(int fd, uint64_t size, uint32_t flags, uint32_t *handle,
		  uint64_t *addr, uint64_t *mmap_offset)
{
	struct drm_npu_bo_create a = { .size = size, .flags = flags };
	int ret = drv_ioctl(fd, DRM_IOCTL_NPU_BO_CREATE, &a);

	if (!ret) {
		*handle = a.handle;
		if (addr)
			*addr = a.addr;
		if (mmap_offset)
			*mmap_offset = a.mmap_offset;
	}
	return ret;
}

int drv_gem_close(int fd, uint32_t handle)
{
	struct drm_gem_close a = { .handle = handle };

	return drv_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &a);
}

int drv_stream_create(int fd, uint32_t priority, uint32_t flags, uint32_t *id, uint32_t *slot)
{
	struct drm_npu_stream_create a = { .priority = priority, .flags = flags };
	int ret = drv_ioctl(fd, DRM_IOCTL_NPU_STREAM_CREATE, &a);

	if (!ret) {
		*id = a.id;
		*slot = a.slot;
	}
	return ret;
}

int drv_stream_map(int fd, uint32_t id, uint64_t *offset, uint64_t *size)
{
	struct drm_npu_stream_map a = { .stream = id };
	int ret = drv_ioctl(fd, DRM_IOCTL_NPU_STREAM_MAP, &a);

	if (!ret) {
		*offset = a.mmap_offset;
		*size = a.size;
	}
	return ret;
}

int drv_stream_kick(int fd, uint32_t id)
{
	struct drm_npu_stream_kick a = { .stream = id };

	return drv_ioctl(fd, DRM_IOCTL_NPU_STREAM_KICK, &a);
}

int drv_stream_destroy(int fd, uint32_t id, bool abort)
{
	struct drm_npu_stream_destroy a = {
		.id = id,
		.flags = abort ? DRM_NPU_STREAM_DESTROY_ABORT : 0,
	};

	return drv_ioctl(fd, DRM_IOCTL_NPU_STREAM_DESTROY, &a);
}

int drv_submit(int fd, uint32_t stream, const struct drm_npu_cmd *cmds,
	       uint32_t count, uint64_t *seqno)
{
	struct drm_npu_submit a = {
		.stream = stream,
		.cmds = (uintptr_t)cmds,
		.count = count,
		.cmd_size = sizeof(*cmds),
	};
	int ret = drv_ioctl(fd, DRM_IOCTL_NPU_SUBMIT, &a);

	if (!ret)
		*seqno = a.seqno;
	return ret;
}

int drv_wait(int fd, uint32_t slot, uint64_t value, int64_t deadline_ns)
{
	struct drm_npu_wait a = { .slot = slot, .value = value, .timeout_ns = deadline_ns };

	return drv_ioctl(fd, DRM_IOCTL_NPU_WAIT, &a);
}

int drv_slot_alloc(int fd, uint32_t *slot)
{
	struct drm_npu_slot a = { 0 };
	int ret = drv_ioctl(fd, DRM_IOCTL_NPU_SLOT_ALLOC, &a);

	if (!ret)
		*slot = a.slot;
	return ret;
}

int drv_slot_free(int fd, uint32_t slot)
{
	struct drm_npu_slot a = { .slot = slot };

	return drv_ioctl(fd, DRM_IOCTL_NPU_SLOT_FREE, &a);
}

int drv_slot_signal(int fd, uint32_t slot, uint64_t value)
{
	struct drm_npu_slot a = { .slot = slot, .value = value };

	return drv_ioctl(fd, DRM_IOCTL_NPU_SLOT_SIGNAL, &a);
}

int drv_program_create(int fd, const struct drm_npu_cmd *cmds, uint32_t count, uint32_t *id)
{
	struct drm_npu_program_create a = {
		.cmds = (uintptr_t)cmds,
		.count = count,
		.cmd_size = sizeof(*cmds),
	};
	int ret = drv_ioctl(fd, DRM_IOCTL_NPU_PROGRAM_CREATE, &a);

	if (!ret)
		*id = a.id;
	return ret;
}

int drv_program_destroy(int fd, uint32_t id)
{
	struct drm_npu_program_destroy a = { .id = id };

	return drv_ioctl(fd, DRM_IOCTL_NPU_PROGRAM_DESTROY, &a);
}

int64_t acl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int drv_bo_export(int fd, uint32_t handle, uint32_t flags, uint64_t *key)
{
	struct drm_npu_bo_export a = { .handle = handle, .flags = flags };
	int ret = drv_ioctl(fd, DRM_IOCTL_NPU_BO_EXPORT, &a);

	if (!ret)
		*key = a.key;
	return ret;
}

int drv_bo_export_ctl(int fd, uint64_t key, uint32_t op, const int32_t *pids, uint32_t count)
{
	struct drm_npu_bo_export_ctl a = {
		.key = key, .op = op, .count = count, .pids = (uintptr_t)pids,
	};

	return drv_ioctl(fd, DRM_IOCTL_NPU_BO_EXPORT_CTL, &a);
}

int drv_bo_import(int fd, uint64_t key, uint32_t *handle, uint64_t *addr, uint64_t *size)
{
	struct drm_npu_bo_import a = { .key = key };
	int ret = drv_ioctl(fd, DRM_IOCTL_NPU_BO_IMPORT, &a);

	if (!ret) {
		*handle = a.handle;
		*addr = a.addr;
		*size = a.size;
	}
	return ret;
}
