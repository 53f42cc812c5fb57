// SPDX-License-Identifier: MIT
/*
 * Device memory handed to another process of the host as a dma-buf
 * (include/npu_acl_share.h, for libhccl): the card-to-card link between
 * ranks of different processes. Unlike an IPC key (ipc_mem.c), a dma-buf
 * of another card maps only through VM_BIND, at an address the importer
 * chooses: the exporter's own, unique across the cards of a host.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <xf86drm.h>

#include "npu_acl_share.h"
#include "acl_internal.h"
#include "vmm.h"

struct mem_fd_mapping {
	int32_t dev;
	uint32_t handle;
	uint64_t base, size;
};

ACL_EXPORT aclError npu_acl_mem_export_fd(const void *ptr, int *fd, uint64_t *base, uint64_t *size)
{
	struct acl_context *c = acl_current_ctx();
	struct acl_device *d;
	struct acl_range *r;
	uint32_t handle = 0;
	int ret;

	if (!c)
		return ACL_ERROR_RT_CONTEXT_NULL;
	if (!fd || !base || !size)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "fd, base and size must not be NULL");
	d = c->dev;
	acl_rwlock_rdlock(&d->devmem.lock);
	r = acl_rmap_find_locked(&d->devmem, (uintptr_t)ptr);
	if (r) {
		struct acl_devmem *m = r->data;

		handle = m->imported ? 0 : m->handle;
		*base = m->addr;
		*size = (m->alloc + DRM_NPU_VM_PAGE_SIZE - 1) & ~(uint64_t)(DRM_NPU_VM_PAGE_SIZE - 1);
	}
	acl_rwlock_unlock(&d->devmem.lock);
	if (!handle)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%p is not in an allocation of device %d",
				ptr, d->id);
	ret = drmPrimeHandleToFD(d->fd, handle, DRM_CLOEXEC, fd);
	if (ret)
		return ACL_DRV_FAIL(d, -errno, "exporting %p as a dma-buf", ptr);
	return ACL_SUCCESS;
}

ACL_EXPORT aclError npu_acl_mem_map_fd(int fd, uint64_t base, uint64_t size, void **mapping)
{
	struct acl_context *c = acl_current_ctx();
	struct mem_fd_mapping *m;
	int ret;

	if (!c)
		return ACL_ERROR_RT_CONTEXT_NULL;
	if (!mapping)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "mapping must not be NULL");
	m = calloc(1, sizeof(*m));
	if (!m)
		return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of host memory");
	m->dev = c->dev->id;
	m->base = base;
	m->size = size;
	if (drmPrimeFDToHandle(c->dev->fd, fd, &m->handle)) {
		ret = -errno;
		free(m);
		return ACL_DRV_FAIL(c->dev, ret, "importing a dma-buf");
	}
	ret = drv_vm_bind(c->dev->fd, DRM_NPU_VM_MAP, 0, m->handle, 0, base, size);
	if (ret) {
		drv_gem_close(c->dev->fd, m->handle);
		free(m);
		return ACL_DRV_FAIL(c->dev, ret, "mapping [%#llx, +%#llx) of another card",
				    (unsigned long long)base, (unsigned long long)size);
	}
	*mapping = m;
	return ACL_SUCCESS;
}

ACL_EXPORT void npu_acl_mem_unmap_fd(void *mapping)
{
	struct mem_fd_mapping *m = mapping;
	struct acl_device *d;

	if (!m)
		return;
	d = acl_device_get(m->dev);
	if (d && d->fd >= 0) {
		drv_vm_bind(d->fd, DRM_NPU_VM_UNMAP, 0, 0, 0, m->base, m->size);
		drv_gem_close(d->fd, m->handle);
	}
	free(m);
}
