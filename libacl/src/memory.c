// SPDX-License-Identifier: MIT
/*
 * Memory. Device memory is a DRM_NPU_BO_DEVICE buffer; the pointer handed
 * out is its device address (>= 1 << 56), never dereferenced on the host,
 * and 512-byte aligned (DRM_NPU_BO_ADDR_ALIGN), as the vendor's pages are
 * in practice where its documents promise 64 bytes.
 * Pinned host memory (aclrtMallocHost) is a DRM_NPU_BO_HOST buffer mapped
 * into the process; copies name it by handle and offset, so the card
 * reaches it without pinning pages per copy. Registered host memory
 * (host_register.c) is ordinary memory the application promises to keep:
 * copies from its host address stay asynchronous. Both host kinds live in
 * one interval map, which is how a copy tells pinned from pageable memory.
 * Reserved addresses (vmm.c) answer for themselves.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "peer.h"
#include "vmm.h"

struct acl_rmap acl_hostmap = { .lock = ACL_RWLOCK_INITIALIZER };

#define POLICY_BASE_MASK 0xffu
#define POLICY_FLAGS (ACL_MEM_TYPE_LOW_BAND_WIDTH | ACL_MEM_TYPE_HIGH_BAND_WIDTH | \
		      ACL_MEM_ACCESS_USER_SPACE_READONLY)

static aclError dev_malloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy,
			   bool pad, const char *what)
{
	struct acl_context *c;
	struct acl_devmem *m;
	struct acl_device *d;
	uint32_t p = (uint32_t)policy;
	size_t alloc;
	aclError err;
	int ret;

	if (!devPtr)
		return acl_fail(what, ACL_ERROR_INVALID_PARAM, "devPtr is NULL");
	if (!size)
		return acl_fail(what, ACL_ERROR_INVALID_PARAM, "size is 0");
	if ((p & POLICY_BASE_MASK) > ACL_MEM_MALLOC_HUGE1G_ONLY_P2P ||
	    (p & ~(POLICY_BASE_MASK | POLICY_FLAGS)))
		return acl_fail(what, ACL_ERROR_INVALID_PARAM, "unknown memory policy %#x", p);
	if (size > SIZE_MAX - 64)
		return acl_fail(what, ACL_ERROR_RT_MEMORY_ALLOCATION, "size %zu is too large", size);
	c = acl_current_ctx();
	if (!c)
		return ACL_ERROR_RT_CONTEXT_NULL;
	d = c->dev;
	/* Rounded up to 32 bytes, plus 32 bytes of padding (not for Align32). */
	alloc = (size + 31) & ~(size_t)31;
	if (pad)
		alloc += 32;
	m = calloc(1, sizeof(*m));
	if (!m)
		return acl_fail(what, ACL_ERROR_BAD_ALLOC, "out of host memory");
	ret = drv_bo_create(d->fd, alloc, DRM_NPU_BO_DEVICE, &m->handle, &m->addr, NULL);
	if (ret) {
		free(m);
		return acl_drv_fail(what, d, ret, "allocating %zu bytes", size);
	}
	m->size = size;
	m->alloc = alloc;
	m->policy = p;
	if (acl_rmap_insert(&d->devmem, m->addr, m->addr + alloc, m)) {
		drv_gem_close(d->fd, m->handle);
		free(m);
		return acl_fail(what, ACL_ERROR_BAD_ALLOC, "out of host memory");
	}
	err = acl_peer_devmem_added(d, m);
	if (err) {
		acl_rmap_remove(&d->devmem, m->addr);
		drv_gem_close(d->fd, m->handle);
		free(m);
		return err;
	}
	*devPtr = (void *)(uintptr_t)m->addr;
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
	return dev_malloc(devPtr, size, policy, true, __func__);
}

ACL_EXPORT aclError aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
	return dev_malloc(devPtr, size, policy, false, __func__);
}

ACL_EXPORT aclError aclrtMallocCached(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
	return dev_malloc(devPtr, size, policy, true, __func__);
}

/* The device whose allocation starts at addr: current one first. */
static struct acl_device *devmem_owner(uint64_t addr, bool exact, struct acl_devmem **out)
{
	struct acl_context *c = acl_current_ctx_quiet();
	int i, n = acl_ndevices > 0 ? acl_ndevices : 0;

	for (i = -1; i < n; i++) {
		struct acl_device *d = i < 0 ? (c ? c->dev : NULL) : &acl_devices[i];
		struct acl_range *r;

		if (!d || (i >= 0 && c && d == c->dev) || d->fd < 0)
			continue;
		acl_rwlock_rdlock(&d->devmem.lock);
		r = acl_rmap_find_locked(&d->devmem, addr);
		if (r && (!exact || r->start == addr)) {
			*out = r->data;
			acl_rwlock_unlock(&d->devmem.lock);
			return d;
		}
		acl_rwlock_unlock(&d->devmem.lock);
	}
	return NULL;
}

bool acl_devmem_binding(struct acl_device *d, uint64_t addr, uint64_t len, uint32_t *handle,
			uint64_t *offset)
{
	struct acl_range *r;
	bool ok = false;

	acl_rwlock_rdlock(&d->devmem.lock);
	r = acl_rmap_find_locked(&d->devmem, addr);
	if (r && addr + len >= addr && addr + len <= r->end &&
	    !((struct acl_devmem *)r->data)->imported) {
		struct acl_devmem *m = r->data;

		*handle = m->handle;
		*offset = addr - r->start;
		ok = true;
	}
	acl_rwlock_unlock(&d->devmem.lock);
	return ok;
}

/*
 * Whether len bytes at addr lie in one allocation, its padding included
 * (or among reserved addresses):
 * the vendor gives aclrtMalloc's callers 32 bytes past their size because
 * operators may touch them, and ggml's CANN backend lays operator outputs
 * over them (GroupNorm's rstd).
 */
bool acl_devmem_padding_holds(struct acl_device *d, uint64_t addr, uint64_t len)
{
	struct acl_range *r;
	bool holds = false;

	/* Reserved addresses: the card checks every page a command touches. */
	if (acl_va_is_user(addr))
		return len <= ACL_VA_USER_END - addr;
	acl_rwlock_rdlock(&d->devmem.lock);
	r = acl_rmap_find_locked(&d->devmem, addr);
	if (r) {
		struct acl_devmem *m = r->data;

		holds = len <= m->alloc && addr - m->addr <= m->alloc - len;
	}
	acl_rwlock_unlock(&d->devmem.lock);
	return holds;
}

/*
 * Does not wait: the driver keeps the buffer until queued work is done;
 * only direct rings, which name it by handle, are waited for.
 */
ACL_EXPORT aclError aclrtFree(void *devPtr)
{
	struct acl_devmem *m;
	struct acl_device *d;

	ACL_CHECK_NULL(devPtr);
	if (!acl_is_dev_ptr(devPtr))
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%p is not device memory", devPtr);
	d = devmem_owner((uintptr_t)devPtr, true, &m);
	if (!d)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM,
				"%p is not the start of a live device allocation", devPtr);
	if (m->imported)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%p is another process's memory, "
				"imported: aclrtIpcMemClose gives it back", devPtr);
	/* m is ours only once removed: a concurrent free may have taken it. */
	if (acl_rmap_remove(&d->devmem, (uintptr_t)devPtr) != m)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%p was freed concurrently", devPtr);
	acl_peer_devmem_removed(d, m->addr);
	acl_direct_quiesce(d);
	drv_gem_close(d->fd, m->handle);
	free(m);
	return ACL_SUCCESS;
}

void acl_devmem_drop_device(struct acl_device *d)
{
	size_t i;

	acl_peer_drop_device(d);
	acl_rwlock_wrlock(&d->devmem.lock);
	for (i = 0; i < d->devmem.n; i++)
		free(d->devmem.v[i].data);
	d->devmem.n = 0;
	acl_rwlock_unlock(&d->devmem.lock);
}

ACL_EXPORT aclError aclrtMallocHost(void **hostPtr, size_t size)
{
	struct acl_hostmem *h;
	struct acl_context *c;
	struct acl_device *d;
	uint64_t off;
	void *p;
	int ret;

	ACL_CHECK_NULL(hostPtr);
	if (!size)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "size is 0");
	c = acl_current_ctx();
	if (!c)
		return ACL_ERROR_RT_CONTEXT_NULL;
	d = c->dev;
	h = calloc(1, sizeof(*h));
	if (!h)
		return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of host memory");
	h->map_size = (size + 4095) & ~(size_t)4095;
	ret = drv_bo_create(d->fd, h->map_size, DRM_NPU_BO_HOST, &h->handle, NULL, &off);
	if (ret) {
		free(h);
		return ACL_DRV_FAIL(d, ret, "allocating %zu bytes of pinned host memory", size);
	}
	p = mmap(NULL, h->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, d->fd, (off_t)off);
	if (p == MAP_FAILED) {
		ret = errno;
		drv_gem_close(d->fd, h->handle);
		free(h);
		return ACL_FAIL(ACL_ERROR_RT_MEMORY_ALLOCATION, "mapping pinned memory: %s",
				strerror(ret));
	}
	h->kind = ACL_HOST_PINNED;
	h->ptr = p;
	h->size = size;
	h->dev = d;
	if (acl_rmap_insert(&acl_hostmap, (uintptr_t)p, (uintptr_t)p + h->map_size, h)) {
		munmap(p, h->map_size);
		drv_gem_close(d->fd, h->handle);
		free(h);
		return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of host memory");
	}
	*hostPtr = p;
	return ACL_SUCCESS;
}

static struct acl_hostmem *hostmem_find(const void *p, bool exact)
{
	struct acl_hostmem *h = NULL;
	struct acl_range *r;

	acl_rwlock_rdlock(&acl_hostmap.lock);
	r = acl_rmap_find_locked(&acl_hostmap, (uintptr_t)p);
	if (r && (!exact || r->start == (uintptr_t)p))
		h = r->data;
	acl_rwlock_unlock(&acl_hostmap.lock);
	return h;
}

ACL_EXPORT aclError aclrtFreeHost(void *hostPtr)
{
	struct acl_hostmem *h;

	ACL_CHECK_NULL(hostPtr);
	h = hostmem_find(hostPtr, true);
	if (!h || h->kind != ACL_HOST_PINNED)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%p was not returned by aclrtMallocHost",
				hostPtr);
	if (acl_rmap_remove(&acl_hostmap, (uintptr_t)hostPtr) != h)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%p was freed concurrently", hostPtr);
	acl_hostva_pinned_gone(h);
	munmap(h->ptr, h->map_size);
	/* The driver keeps the pages until queued copies are done. */
	acl_direct_quiesce(h->dev);
	drv_gem_close(h->dev->fd, h->handle);
	free(h);
	return ACL_SUCCESS;
}

/*
 * Drops the host memory of d: its pinned buffers, which go with its file.
 * With d NULL, the registrations (which belong to no device): aclFinalize.
 */
void acl_hostmem_drop(struct acl_device *d)
{
	size_t i = 0;

	acl_rwlock_wrlock(&acl_hostmap.lock);
	while (i < acl_hostmap.n) {
		struct acl_hostmem *h = acl_hostmap.v[i].data;

		if (h->dev == d) {
			if (h->kind == ACL_HOST_PINNED)
				munmap(h->ptr, h->map_size);
			free(h);
			memmove(&acl_hostmap.v[i], &acl_hostmap.v[i + 1],
				(acl_hostmap.n - i - 1) * sizeof(acl_hostmap.v[0]));
			acl_hostmap.n--;
		} else {
			i++;
		}
	}
	acl_rwlock_unlock(&acl_hostmap.lock);
}

void acl_classify(struct acl_device *d, const void *p, size_t len, struct acl_opnd *o)
{
	struct acl_range *r;

	memset(o, 0, sizeof(*o));
	if (acl_is_dev_ptr(p)) {
		o->kind = ACL_OPND_DEVICE;
		o->addr = (uintptr_t)p;
		return;
	}
	o->kind = ACL_OPND_USER;
	o->addr = (uintptr_t)p;
	o->pageable = true;
	acl_rwlock_rdlock(&acl_hostmap.lock);
	r = acl_rmap_find_locked(&acl_hostmap, (uintptr_t)p);
	if (r && (uintptr_t)p + len <= r->end) {
		struct acl_hostmem *h = r->data;

		o->pageable = false;
		if (h->kind == ACL_HOST_PINNED) {
			if (h->dev == d) {
				o->kind = ACL_OPND_PINNED;
				o->handle = h->handle;
				o->addr = (uintptr_t)p - r->start;
			} else {
				o->kind = ACL_OPND_FOREIGN;
			}
		}
	}
	acl_rwlock_unlock(&acl_hostmap.lock);
}

ACL_EXPORT aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free_, size_t *total)
{
	uint64_t f, t;
	aclError err;

	ACL_CHECK_NULL(free_);
	ACL_CHECK_NULL(total);
	if ((unsigned)attr > ACL_MEM_P2P_HUGE1G)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown memory attribute %d", (int)attr);
	/* One kind of memory on this card: every attribute reports it. */
	err = acl_current_dev_param(__func__, DRM_NPU_PARAM_DEVMEM_FREE, &f);
	if (!err)
		err = acl_current_dev_param(__func__, DRM_NPU_PARAM_DEVMEM_SIZE, &t);
	if (err)
		return err;
	*free_ = (size_t)f;
	*total = (size_t)t;
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtPointerGetAttributes(const void *ptr, aclrtPtrAttributes *attributes)
{
	struct acl_hostmem *h;
	struct acl_devmem *m;
	struct acl_device *d;

	ACL_CHECK_NULL(ptr);
	ACL_CHECK_NULL(attributes);
	memset(attributes, 0, sizeof(*attributes));
	if (acl_va_is_user((uintptr_t)ptr))
		return acl_vmm_ptr_attributes((uintptr_t)ptr, attributes);
	if (acl_is_dev_ptr(ptr)) {
		d = devmem_owner((uintptr_t)ptr, false, &m);
		if (!d)
			return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%p is not in a live device allocation",
					ptr);
		attributes->location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
		attributes->location.id = (uint32_t)d->id;
		attributes->pageSize = (m->policy & POLICY_BASE_MASK) == ACL_MEM_MALLOC_NORMAL_ONLY ||
				       (m->policy & POLICY_BASE_MASK) == ACL_MEM_MALLOC_NORMAL_ONLY_P2P
				       ? 4096 : 2u << 20;
		return ACL_SUCCESS;
	}
	h = hostmem_find(ptr, false);
	attributes->location.type = h ? ACL_MEM_LOCATION_TYPE_HOST : ACL_MEM_LOCATION_TYPE_UNREGISTERED;
	attributes->location.id = 0;
	attributes->pageSize = (uint32_t)sysconf(_SC_PAGESIZE);
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtMemGetAddressRange(void *ptr, void **pbase, size_t *psize)
{
	struct acl_hostmem *h;
	struct acl_devmem *m;

	ACL_CHECK_NULL(ptr);
	if (!pbase && !psize)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "pbase and psize are both NULL");
	if (acl_va_is_user((uintptr_t)ptr))
		return acl_vmm_address_range((uintptr_t)ptr, pbase, psize);
	if (acl_is_dev_ptr(ptr)) {
		if (!devmem_owner((uintptr_t)ptr, false, &m) || (uintptr_t)ptr >= m->addr + m->size)
			return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%p is not in a live device allocation",
					ptr);
		if (pbase)
			*pbase = (void *)(uintptr_t)m->addr;
		if (psize)
			*psize = m->size;
		return ACL_SUCCESS;
	}
	h = hostmem_find(ptr, false);
	if (!h || (char *)ptr >= (char *)h->ptr + h->size)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%p is not memory of the runtime", ptr);
	if (pbase)
		*pbase = h->ptr;
	if (psize)
		*psize = h->size;
	return ACL_SUCCESS;
}
