// SPDX-License-Identifier: MIT
/* The driver calls of virtual memory (vmm.h), one ioctl each, as drv.c's. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <xf86drm.h>

#include "vmm.h"

int drv_vm_bind(int fd, uint32_t op, uint32_t flags, uint32_t handle, uint64_t offset,
		uint64_t addr, uint64_t size)
{
	struct drm_npu_vm_bind a = {
		.op = op, .flags = flags, .handle = handle, .offset = offset,
		.addr = addr, .size = size,
	};

	return drmIoctl(fd, DRM_IOCTL_NPU_VM_BIND, &a) ? -errno : 0;
}

int drv_bo_userptr(int fd, void *ptr, uint64_t size, uint32_t flags, uint32_t *handle)
{
	struct drm_npu_bo_userptr a = { .ptr = (uintptr_t)ptr, .size = size, .flags = flags };

	if (drmIoctl(fd, DRM_IOCTL_NPU_BO_USERPTR, &a))
		return -errno;
	*handle = a.handle;
	return 0;
}

int drv_prime_share(int from_fd, uint32_t bo, int to_fd, uint32_t *handle)
{
	int dmabuf, ret;

	if (drmPrimeHandleToFD(from_fd, bo, DRM_CLOEXEC, &dmabuf))
		return -errno;
	ret = drmPrimeFDToHandle(to_fd, dmabuf, handle) ? -errno : 0;
	close(dmabuf);
	return ret;
}
