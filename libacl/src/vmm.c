// SPDX-License-Identifier: MIT
/*
 * Virtual memory: reserving addresses (va_space.c), physical allocations
 * of a card (DRM_NPU_BO_BLOCK_ALIGNED buffers), and mapping the one into
 * the other with DRM_IOCTL_NPU_VM_BIND in the card's address space. A
 * reserved address names the same memory on every card of the process;
 * a card other than the allocation's own reaches it once aclrtMemSetAccess
 * gives it access (vmm_access.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ipc.h"
#include "vmm.h"

pthread_mutex_t acl_vmm_lock = PTHREAD_MUTEX_INITIALIZER;
struct acl_rmap acl_vmm_maps = { .lock = ACL_RWLOCK_INITIALIZER };
static struct acl_phys *phys_list;

/* aclrtReserveMemAddress's flags: 0, or 1 (huge pages, which ggml's CANN backend passes) */
#define RESERVE_FLAGS	0x1ULL

struct acl_phys *acl_vmm_phys_locked(aclrtDrvMemHandle h)
{
	struct acl_phys *p;

	for (p = phys_list; p; p = p->next)
		if (p == h)
			return p;
	return NULL;
}

struct acl_device *acl_vmm_key_device_locked(uint64_t key)
{
	struct acl_phys *p;

	for (p = phys_list; p && key; p = p->next)
		if (p->key == key)
			return p->dev;
	return NULL;
}

struct acl_device *acl_vmm_open_device(const char *fn, int32_t id, aclError *err)
{
	struct acl_device *d = acl_device_get(id);

	if (!d) {
		*err = acl_fail(fn, ACL_ERROR_RT_INVALID_DEVICEID, "device %d does not exist", id);
		return NULL;
	}
	if (d->fd < 0) {
		*err = acl_fail(fn, ACL_ERROR_RT_CONTEXT_NULL,
				"device %d is not open in this process: aclrtSetDevice(%d) first",
				id, id);
		return NULL;
	}
	return d;
}

struct acl_phys *acl_vmm_phys_new_locked(struct acl_device *d, uint32_t bo, uint64_t size,
					 const aclrtPhysicalMemProp *prop)
{
	struct acl_phys *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->dev = d;
	p->bo = bo;
	p->size = size;
	p->prop = *prop;
	p->user_refs = 1;
	p->next = phys_list;
	phys_list = p;
	return p;
}

/* Frees p once no handle and no mapping holds it (acl_vmm_lock held). */
static void phys_put_locked(struct acl_phys *p)
{
	struct acl_phys **pp;

	if (p->user_refs || p->maps)
		return;
	for (pp = &phys_list; *pp != p; pp = &(*pp)->next)
		;
	*pp = p->next;
	if (p->key)
		acl_ipc_revoke(p->dev, p->key);
	drv_gem_close(p->dev->fd, p->bo);
	free(p);
}

static aclError reserve(const char *fn, void **virPtr, size_t size, size_t alignment,
			void *expectPtr, uint64_t flags)
{
	uint64_t align = alignment > ACL_VMM_GRANULARITY ? alignment : ACL_VMM_GRANULARITY;
	uint64_t addr;
	int ret;

	if (!virPtr)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "virPtr is NULL");
	if (!size)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "size is 0");
	if (alignment & (alignment - 1))
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "alignment %zu is not a power of two",
				alignment);
	if (flags & ~RESERVE_FLAGS)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "unknown flags %#llx",
				(unsigned long long)flags);
	if (size > UINT64_MAX - ACL_VMM_GRANULARITY)
		return acl_fail(fn, ACL_ERROR_RT_MEMORY_ALLOCATION, "size %zu is too large", size);
	size = (size + ACL_VMM_GRANULARITY - 1) & ~(ACL_VMM_GRANULARITY - 1);
	ret = acl_va_reserve(size, align, (uintptr_t)expectPtr, &addr);
	if (ret == -EEXIST)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "[%p, +%zu) overlaps a reservation",
				expectPtr, size);
	if (ret == -EINVAL)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM,
				"expectPtr %p is not aligned to %#llx or [%p, +%zu) is not in "
				"[%#llx, %#llx), where reservations lie", expectPtr,
				(unsigned long long)align, expectPtr, size,
				(unsigned long long)ACL_VA_USER_START,
				(unsigned long long)ACL_VA_USER_END);
	if (ret)
		return acl_fail(fn, ACL_ERROR_RT_MEMORY_ALLOCATION,
				"no free range of %zu bytes left among reserved addresses", size);
	*virPtr = (void *)(uintptr_t)addr;
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment,
					   void *expectPtr, uint64_t flags)
{
	return reserve(__func__, virPtr, size, alignment, expectPtr, flags);
}

/* No unified-cache memory on this card: the same as aclrtReserveMemAddress at expectPtr. */
ACL_EXPORT aclError aclrtReserveMemAddressNoUCMemory(void **virPtr, size_t size, size_t alignment,
						     void *expectPtr, uint64_t flags)
{
	if (!expectPtr)
		return ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
				"expectPtr is NULL: this call reserves a given address only");
	return reserve(__func__, virPtr, size, alignment, expectPtr, flags);
}

/* The first mapping in [start, start + size), or NULL. */
static struct acl_vmap *first_map_in(uint64_t start, uint64_t size)
{
	struct acl_vmap *found = NULL;
	size_t i;

	acl_rwlock_rdlock(&acl_vmm_maps.lock);
	for (i = 0; i < acl_vmm_maps.n && !found; i++)
		if (acl_vmm_maps.v[i].end > start && acl_vmm_maps.v[i].start < start + size)
			found = acl_vmm_maps.v[i].data;
	acl_rwlock_unlock(&acl_vmm_maps.lock);
	return found;
}

ACL_EXPORT aclError aclrtReleaseMemAddress(void *virPtr)
{
	uint64_t start, size;
	aclError err = ACL_SUCCESS;

	ACL_CHECK_NULL(virPtr);
	pthread_mutex_lock(&acl_vmm_lock);
	if (acl_va_lookup((uintptr_t)virPtr, &start, &size) || start != (uintptr_t)virPtr)
		err = ACL_FAIL(ACL_ERROR_INVALID_PARAM,
			       "%p is not the start of a reservation of aclrtReserveMemAddress",
			       virPtr);
	else if (first_map_in(start, size))
		err = ACL_FAIL(ACL_ERROR_INVALID_PARAM,
			       "[%p, +%llu) still has memory mapped: aclrtUnmapMem it first",
			       virPtr, (unsigned long long)size);
	else if (acl_hostva_range(start, &start, &size))
		err = ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%p is registered host memory's: "
			       "aclrtHostUnregister gives it back", virPtr);
	else
		acl_va_release(start);
	pthread_mutex_unlock(&acl_vmm_lock);
	return err;
}

static bool device_attr(aclrtMemAttr a)
{
	return a <= ACL_MEM_P2P_HUGE1G;
}

/* The vendor's checks of a property: a card's pinned memory, which this card has. */
static aclError check_prop(const char *fn, const aclrtPhysicalMemProp *prop)
{
	if (!prop)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "prop is NULL");
	if (prop->handleType != ACL_MEM_HANDLE_TYPE_NONE &&
	    prop->handleType != ACL_MEM_HANDLE_TYPE_POSIX)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "unknown handleType %d",
				(int)prop->handleType);
	if (prop->allocationType != ACL_MEM_ALLOCATION_TYPE_PINNED)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "unknown allocationType %d",
				(int)prop->allocationType);
	if (!device_attr(prop->memAttr))
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "unknown memAttr %d",
				(int)prop->memAttr);
	if (prop->location.type == ACL_MEM_LOCATION_TYPE_HOST ||
	    prop->location.type == ACL_MEM_LOCATION_TYPE_HOST_NUMA)
		return acl_fail(fn, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
				"physical host memory is not supported: aclrtMallocHost, or "
				"aclrtHostRegister, gives host memory the card reaches");
	if (prop->location.type != ACL_MEM_LOCATION_TYPE_DEVICE)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "unknown location type %d",
				(int)prop->location.type);
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size,
					const aclrtPhysicalMemProp *prop, uint64_t flags)
{
	struct acl_device *d;
	struct acl_phys *p;
	uint64_t addr;
	uint32_t bo;
	aclError err;
	int ret;

	ACL_CHECK_NULL(handle);
	if (!size)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "size is 0");
	if (flags)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "flags must be 0, not %#llx",
				(unsigned long long)flags);
	err = check_prop(__func__, prop);
	if (err)
		return err;
	d = acl_vmm_open_device(__func__, (int32_t)prop->location.id, &err);
	if (!d)
		return err;
	if (size > UINT64_MAX - ACL_VMM_GRANULARITY)
		return ACL_FAIL(ACL_ERROR_RT_MEMORY_ALLOCATION, "size %zu is too large", size);
	size = (size + ACL_VMM_GRANULARITY - 1) & ~(ACL_VMM_GRANULARITY - 1);
	ret = drv_bo_create(d->fd, size, DRM_NPU_BO_BLOCK_ALIGNED, &bo, &addr, NULL);
	if (ret)
		return ACL_DRV_FAIL(d, ret, "allocating %zu bytes of physical memory", size);
	pthread_mutex_lock(&acl_vmm_lock);
	p = acl_vmm_phys_new_locked(d, bo, size, prop);
	pthread_mutex_unlock(&acl_vmm_lock);
	if (!p) {
		drv_gem_close(d->fd, bo);
		return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of host memory");
	}
	*handle = p;
	return ACL_SUCCESS;
}

/* The memory goes once its last mapping does, as the vendor documents. */
ACL_EXPORT aclError aclrtFreePhysical(aclrtDrvMemHandle handle)
{
	struct acl_phys *p;
	aclError err = ACL_SUCCESS;

	ACL_CHECK_NULL(handle);
	pthread_mutex_lock(&acl_vmm_lock);
	p = acl_vmm_phys_locked(handle);
	if (!p || !p->user_refs) {
		err = ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%p is not a live physical memory handle",
			       handle);
	} else {
		p->user_refs--;
		phys_put_locked(p);
	}
	pthread_mutex_unlock(&acl_vmm_lock);
	return err;
}

static aclError check_map(const char *fn, uint64_t va, size_t size, size_t offset,
			  struct acl_phys *p, uint64_t flags)
{
	uint64_t start, rsize;

	if (!p)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "not a live physical memory handle");
	if (flags)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "flags must be 0, not %#llx",
				(unsigned long long)flags);
	if (!size || size % ACL_VMM_GRANULARITY || offset % ACL_VMM_GRANULARITY ||
	    va % ACL_VMM_GRANULARITY)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM,
				"virPtr %#llx, size %zu and offset %zu must be non-zero multiples "
				"of the granularity, %llu bytes", (unsigned long long)va, size,
				offset, (unsigned long long)ACL_VMM_GRANULARITY);
	if (offset > p->size || size > p->size - offset)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM,
				"[%zu, +%zu) is past the end of the allocation's %llu bytes", offset,
				size, (unsigned long long)p->size);
	if (acl_va_lookup(va, &start, &rsize) || va + size > start + rsize)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM,
				"[%#llx, +%zu) is not inside one reservation of "
				"aclrtReserveMemAddress", (unsigned long long)va, size);
	if (first_map_in(va, size))
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "[%#llx, +%zu) is already mapped",
				(unsigned long long)va, size);
	return ACL_SUCCESS;
}

static aclError map(const char *fn, void *virPtr, size_t size, size_t offset,
		    aclrtDrvMemHandle handle, uint64_t flags, uint8_t access)
{
	uint64_t va = (uintptr_t)virPtr;
	struct acl_vmap *m;
	struct acl_phys *p;
	aclError err;

	if (!virPtr || !handle)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "%s is NULL",
				virPtr ? "handle" : "virPtr");
	pthread_mutex_lock(&acl_vmm_lock);
	p = acl_vmm_phys_locked(handle);
	err = check_map(fn, va, size, offset, p, flags);
	if (err)
		goto out;
	m = calloc(1, sizeof(*m));
	if (!m) {
		err = acl_fail(fn, ACL_ERROR_BAD_ALLOC, "out of host memory");
		goto out;
	}
	*m = (struct acl_vmap){ .addr = va, .size = size, .offset = offset, .p = p };
	err = acl_vmm_set_access_locked(fn, m, p->dev->id, access);
	if (!err && acl_rmap_insert(&acl_vmm_maps, va, va + size, m)) {
		acl_vmm_set_access_locked(fn, m, p->dev->id, ACL_RT_MEM_ACCESS_FLAGS_NONE);
		err = acl_fail(fn, ACL_ERROR_BAD_ALLOC, "out of host memory");
	}
	if (err)
		free(m);
	else
		p->maps++;
out:
	pthread_mutex_unlock(&acl_vmm_lock);
	return err;
}

ACL_EXPORT aclError aclrtMapMem(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle,
				uint64_t flags)
{
	return map(__func__, virPtr, size, offset, handle, flags,
		   ACL_RT_MEM_ACCESS_FLAGS_READWRITE);
}

ACL_EXPORT aclError aclrtMemMapNoAccess(void *virPtr, size_t size, size_t offset,
					aclrtDrvMemHandle handle, uint64_t flags)
{
	return map(__func__, virPtr, size, offset, handle, flags, ACL_RT_MEM_ACCESS_FLAGS_NONE);
}

/* Takes m away from every device and frees it (acl_vmm_lock held). */
static aclError unmap_locked(const char *fn, struct acl_vmap *m)
{
	struct acl_phys *p = m->p;
	aclError err = ACL_SUCCESS;
	int i;

	for (i = 0; i < ACL_MAX_DEVICES; i++) {
		aclError e = acl_vmm_set_access_locked(fn, m, i, ACL_RT_MEM_ACCESS_FLAGS_NONE);

		err = err ? err : e;
	}
	acl_rmap_remove(&acl_vmm_maps, m->addr);
	free(m);
	p->maps--;
	phys_put_locked(p);
	return err;
}

ACL_EXPORT aclError aclrtUnmapMem(void *virPtr)
{
	struct acl_range *r;
	struct acl_vmap *m = NULL;
	aclError err;

	ACL_CHECK_NULL(virPtr);
	pthread_mutex_lock(&acl_vmm_lock);
	acl_rwlock_rdlock(&acl_vmm_maps.lock);
	r = acl_rmap_find_locked(&acl_vmm_maps, (uintptr_t)virPtr);
	if (r && r->start == (uintptr_t)virPtr)
		m = r->data;
	acl_rwlock_unlock(&acl_vmm_maps.lock);
	if (m)
		err = unmap_locked(__func__, m);
	else
		err = ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%p is not the start of a mapping of "
			       "aclrtMapMem", virPtr);
	pthread_mutex_unlock(&acl_vmm_lock);
	return err;
}

ACL_EXPORT aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp *prop,
						     aclrtMemGranularityOptions option,
						     size_t *granularity)
{
	aclError err;

	ACL_CHECK_NULL(granularity);
	err = check_prop(__func__, prop);
	if (err)
		return err;
	if (option != ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM &&
	    option != ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown option %d", (int)option);
	if (!acl_device_get((int32_t)prop->location.id))
		return ACL_FAIL(ACL_ERROR_RT_INVALID_DEVICEID, "device %u does not exist",
				prop->location.id);
	*granularity = ACL_VMM_GRANULARITY;
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtMemRetainAllocationHandle(void *virPtr, aclrtDrvMemHandle *handle)
{
	struct acl_range *r;
	aclError err = ACL_SUCCESS;

	ACL_CHECK_NULL(virPtr);
	ACL_CHECK_NULL(handle);
	pthread_mutex_lock(&acl_vmm_lock);
	acl_rwlock_rdlock(&acl_vmm_maps.lock);
	r = acl_rmap_find_locked(&acl_vmm_maps, (uintptr_t)virPtr);
	if (r) {
		struct acl_phys *p = ((struct acl_vmap *)r->data)->p;

		p->user_refs++;
		*handle = p;
	} else {
		err = ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%p is in no mapping of aclrtMapMem",
			       virPtr);
	}
	acl_rwlock_unlock(&acl_vmm_maps.lock);
	pthread_mutex_unlock(&acl_vmm_lock);
	return err;
}

ACL_EXPORT aclError aclrtMemGetAllocationPropertiesFromHandle(aclrtDrvMemHandle handle,
							      aclrtPhysicalMemProp *prop)
{
	struct acl_phys *p;
	aclError err = ACL_SUCCESS;

	ACL_CHECK_NULL(handle);
	ACL_CHECK_NULL(prop);
	pthread_mutex_lock(&acl_vmm_lock);
	p = acl_vmm_phys_locked(handle);
	if (p)
		*prop = p->prop;
	else
		err = ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%p is not a live physical memory handle",
			       handle);
	pthread_mutex_unlock(&acl_vmm_lock);
	return err;
}

/* The mapping holding addr: its range and the device whose memory it is. */
static bool vmm_range(uint64_t addr, uint64_t *base, uint64_t *size, int32_t *dev_id)
{
	struct acl_range *r;
	bool found = false;

	acl_rwlock_rdlock(&acl_vmm_maps.lock);
	r = acl_rmap_find_locked(&acl_vmm_maps, addr);
	if (r) {
		*base = r->start;
		*size = r->end - r->start;
		*dev_id = ((struct acl_vmap *)r->data)->p->dev->id;
		found = true;
	}
	acl_rwlock_unlock(&acl_vmm_maps.lock);
	return found;
}

aclError acl_vmm_ptr_attributes(uint64_t addr, aclrtPtrAttributes *attributes)
{
	uint64_t base, size;
	int32_t id;

	if (vmm_range(addr, &base, &size, &id)) {
		attributes->location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
		attributes->location.id = (uint32_t)id;
		attributes->pageSize = ACL_VMM_GRANULARITY;
		return ACL_SUCCESS;
	}
	if (acl_hostva_range(addr, &base, &size)) {
		attributes->location.type = ACL_MEM_LOCATION_TYPE_HOST;
		attributes->pageSize = DRM_NPU_VM_PAGE_SIZE;
		return ACL_SUCCESS;
	}
	return acl_fail("aclrtPointerGetAttributes", ACL_ERROR_INVALID_PARAM,
			"%#llx is a reserved address with nothing mapped",
			(unsigned long long)addr);
}

aclError acl_vmm_address_range(uint64_t addr, void **pbase, size_t *psize)
{
	uint64_t base, size;
	int32_t id;

	if (!vmm_range(addr, &base, &size, &id) && !acl_hostva_range(addr, &base, &size))
		return acl_fail("aclrtMemGetAddressRange", ACL_ERROR_INVALID_PARAM,
				"%#llx is a reserved address with nothing mapped",
				(unsigned long long)addr);
	if (pbase)
		*pbase = (void *)(uintptr_t)base;
	if (psize)
		*psize = size;
	return ACL_SUCCESS;
}

/*
 * d's file is closing, and its buffers and address space with it: its
 * handles become dead (later calls fail on them) and what was mapped of
 * them goes from every other card; other cards' memory it reached goes.
 */
void acl_vmm_drop_device(struct acl_device *d)
{
	struct acl_phys **pp;
	size_t i = 0;

	pthread_mutex_lock(&acl_vmm_lock);
	while (i < acl_vmm_maps.n) {
		struct acl_vmap *m = acl_vmm_maps.v[i].data;
		struct acl_phys *p = m->p;

		m->access[d->id] = ACL_RT_MEM_ACCESS_FLAGS_NONE;
		m->peer[d->id] = 0;
		if (p->dev == d) {
			p->maps++;	/* unmap_locked drops it; the handle goes below */
			unmap_locked(__func__, m);
			p->maps--;
			continue;
		}
		i++;
	}
	acl_hostva_drop_device(d);
	for (pp = &phys_list; *pp;) {
		struct acl_phys *p = *pp;

		if (p->dev == d) {
			*pp = p->next;
			free(p);
		} else {
			pp = &p->next;
		}
	}
	pthread_mutex_unlock(&acl_vmm_lock);
}
