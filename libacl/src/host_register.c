// SPDX-License-Identifier: MIT
/*
 * Host memory the card reaches by address. aclrtHostRegister pins the
 * caller's pages (DRM_IOCTL_NPU_BO_USERPTR) and maps them at a reserved
 * device address (va_space.h) in the current card's address space: that
 * address works wherever device memory does, in copies, fills and
 * operators. aclrtMallocHost memory is mapped so on first asking
 * (aclrtHostGetDevicePointer), once, and unmapped when it is freed.
 * Registering it (as the vendor's zero-copy sample does) maps it too.
 * The host address itself stays what copies classify as registered
 * memory (memory.c's acl_hostmap).
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "vmm.h"

enum hostva_kind {
	HOSTVA_USERPTR,		/* a registration: its own buffer */
	HOSTVA_PINNED,		/* an aclrtMallocHost buffer, mapped whole */
	HOSTVA_PINNED_REG,	/* a registration inside a mapped aclrtMallocHost buffer */
};

struct hostva {
	struct hostva *next;
	enum hostva_kind kind;
	uint8_t *host;			/* the caller's start */
	uint64_t size;			/* the caller's bytes */
	uint8_t *map_host;		/* the first mapped page */
	uint64_t map_len;		/* bytes mapped, whole pages */
	uint64_t va;			/* where map_host is mapped */
	struct acl_device *dev;
	uint32_t bo;
	struct hostva *pinned;		/* PINNED_REG: the mapping it lies in */
};

static pthread_mutex_t hostva_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hostva *hostvas;

#define PAGE	((uint64_t)DRM_NPU_VM_PAGE_SIZE)

static uint64_t dev_addr(const struct hostva *v, const void *host)
{
	return v->va + (uint64_t)((const uint8_t *)host - v->map_host);
}

/* The mapping or registration of kind holding [p, p + len), or NULL. */
static struct hostva *find_locked(enum hostva_kind kind, const void *p, uint64_t len)
{
	struct hostva *v;

	for (v = hostvas; v; v = v->next)
		if (v->kind == kind && (const uint8_t *)p >= v->host &&
		    len <= v->size && (uint64_t)((const uint8_t *)p - v->host) <= v->size - len)
			return v;
	return NULL;
}

static void unlink_locked(struct hostva *v)
{
	struct hostva **pp;

	for (pp = &hostvas; *pp != v; pp = &(*pp)->next)
		;
	*pp = v->next;
}

/* Maps bo of d (map_len bytes) at a new reservation; fills v's va. */
static aclError map_new(const char *fn, struct hostva *v, bool read_only)
{
	int ret = acl_va_reserve(v->map_len, ACL_VMM_GRANULARITY, 0, &v->va);

	if (ret)
		return acl_fail(fn, ACL_ERROR_RT_MEMORY_ALLOCATION,
				"no free range of %llu bytes left among reserved addresses",
				(unsigned long long)v->map_len);
	ret = drv_vm_bind(v->dev->fd, DRM_NPU_VM_MAP, read_only ? DRM_NPU_VM_READ_ONLY : 0,
			  v->bo, 0, v->va, v->map_len);
	if (ret) {
		acl_va_release(v->va);
		return acl_drv_fail(fn, v->dev, ret, "mapping %llu bytes of host memory at %#llx",
				    (unsigned long long)v->map_len, (unsigned long long)v->va);
	}
	return ACL_SUCCESS;
}

static void unmap_free(struct hostva *v)
{
	if (v->kind != HOSTVA_PINNED_REG) {
		drv_vm_bind(v->dev->fd, DRM_NPU_VM_UNMAP, 0, 0, 0, v->va, v->map_len);
		acl_va_release(v->va);
	}
	if (v->kind == HOSTVA_USERPTR)
		drv_gem_close(v->dev->fd, v->bo);
	free(v);
}

/* The aclrtMallocHost buffer holding [p, p + len) mapped, or NULL with a message. */
static struct hostva *pinned_mapping_locked(const char *fn, const void *p, uint64_t len,
					    aclError *err)
{
	struct acl_hostmem *h = NULL;
	struct acl_range *r;
	struct hostva *v = find_locked(HOSTVA_PINNED, p, len);

	if (v)
		return v;
	acl_rwlock_rdlock(&acl_hostmap.lock);
	r = acl_rmap_find_locked(&acl_hostmap, (uintptr_t)p);
	if (r && (uintptr_t)p + len <= r->end && ((struct acl_hostmem *)r->data)->kind ==
	    ACL_HOST_PINNED)
		h = r->data;
	acl_rwlock_unlock(&acl_hostmap.lock);
	if (!h) {
		*err = acl_fail(fn, ACL_ERROR_HOST_MEMORY_NOT_REGISTERED,
				"[%p, +%llu) is neither registered nor aclrtMallocHost memory", p,
				(unsigned long long)len);
		return NULL;
	}
	v = calloc(1, sizeof(*v));
	if (!v) {
		*err = acl_fail(fn, ACL_ERROR_BAD_ALLOC, "out of host memory");
		return NULL;
	}
	*v = (struct hostva){ .kind = HOSTVA_PINNED, .host = h->ptr, .size = h->map_size,
			      .map_host = h->ptr, .map_len = h->map_size, .dev = h->dev,
			      .bo = h->handle };
	*err = map_new(fn, v, false);
	if (*err) {
		free(v);
		return NULL;
	}
	v->next = hostvas;
	hostvas = v;
	return v;
}

/* A registration of aclrtMallocHost memory: its mapping, shared. */
static aclError register_pinned_locked(const char *fn, void *ptr, uint64_t size, void **devPtr)
{
	struct hostva *pin, *v;
	aclError err;

	if (find_locked(HOSTVA_PINNED_REG, ptr, 1))
		return acl_fail(fn, ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
				"%p is registered already", ptr);
	pin = pinned_mapping_locked(fn, ptr, size, &err);
	if (!pin)
		return err;
	v = calloc(1, sizeof(*v));
	if (!v)
		return acl_fail(fn, ACL_ERROR_BAD_ALLOC, "out of host memory");
	*v = (struct hostva){ .kind = HOSTVA_PINNED_REG, .host = ptr, .size = size,
			      .map_host = pin->map_host, .va = pin->va, .dev = pin->dev,
			      .pinned = pin, .next = hostvas };
	hostvas = v;
	if (devPtr)
		*devPtr = (void *)(uintptr_t)dev_addr(v, ptr);
	return ACL_SUCCESS;
}

static bool is_pinned(const void *p, uint64_t len)
{
	struct acl_range *r;
	bool pinned;

	acl_rwlock_rdlock(&acl_hostmap.lock);
	r = acl_rmap_find_locked(&acl_hostmap, (uintptr_t)p);
	pinned = r && ((struct acl_hostmem *)r->data)->kind == ACL_HOST_PINNED &&
		 (uintptr_t)p + len <= r->end;
	acl_rwlock_unlock(&acl_hostmap.lock);
	return pinned;
}

/* Pins [ptr, +size) whole pages for d and maps it (hostva_lock held). */
static aclError register_user_locked(const char *fn, struct acl_device *d, void *ptr,
				     uint64_t size, bool read_only, struct hostva **out)
{
	uint64_t start = (uintptr_t)ptr & ~(PAGE - 1);
	uint64_t end = ((uintptr_t)ptr + size + PAGE - 1) & ~(PAGE - 1);
	struct hostva *v = calloc(1, sizeof(*v));
	aclError err;
	int ret;

	if (!v)
		return acl_fail(fn, ACL_ERROR_BAD_ALLOC, "out of host memory");
	*v = (struct hostva){ .kind = HOSTVA_USERPTR, .host = ptr, .size = size,
			      .map_host = (uint8_t *)(uintptr_t)start, .map_len = end - start,
			      .dev = d };
	ret = drv_bo_userptr(d->fd, v->map_host, v->map_len,
			     read_only ? DRM_NPU_USERPTR_READ_ONLY : 0, &v->bo);
	if (ret) {
		free(v);
		if (ret == -EFAULT)
			return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "[%p, +%llu) is not memory "
					"of this process the card can pin%s", ptr,
					(unsigned long long)size,
					read_only ? "" : " (read-only memory registers only "
					"with ACL_HOST_REGISTER_READONLY)");
		return acl_drv_fail(fn, d, ret, "pinning %llu bytes of host memory",
				    (unsigned long long)size);
	}
	err = map_new(fn, v, read_only);
	if (err) {
		drv_gem_close(d->fd, v->bo);
		free(v);
		return err;
	}
	v->next = hostvas;
	hostvas = v;
	*out = v;
	return ACL_SUCCESS;
}

/* Registers [ptr, +size): pinned memory shares its mapping, other memory gets its own. */
static aclError host_register(const char *fn, void *ptr, uint64_t size, bool read_only,
			      void **devPtr)
{
	struct acl_hostmem *h;
	struct hostva *v = NULL;
	struct acl_context *c;
	aclError err;

	if (!ptr)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "ptr is NULL");
	if (!size)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "size is 0");
	if (acl_is_dev_ptr(ptr) || (uintptr_t)ptr + size < (uintptr_t)ptr ||
	    (uintptr_t)ptr + size > ACL_DEV_ADDR_BASE)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "%p is not host memory", ptr);
	c = acl_current_ctx();
	if (!c)
		return ACL_ERROR_RT_CONTEXT_NULL;
	pthread_mutex_lock(&hostva_lock);
	if (is_pinned(ptr, size)) {
		err = register_pinned_locked(fn, ptr, size, devPtr);
		goto out;
	}
	h = calloc(1, sizeof(*h));
	if (!h) {
		err = acl_fail(fn, ACL_ERROR_BAD_ALLOC, "out of host memory");
		goto out;
	}
	h->kind = ACL_HOST_REGISTERED;
	h->ptr = ptr;
	h->size = size;
	if (acl_rmap_insert(&acl_hostmap, (uintptr_t)ptr, (uintptr_t)ptr + size, h)) {
		free(h);
		err = acl_fail(fn, ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
			       "[%p, +%llu) overlaps registered or pinned memory", ptr,
			       (unsigned long long)size);
		goto out;
	}
	err = register_user_locked(fn, c->dev, ptr, size, read_only, &v);
	if (err) {
		acl_rmap_remove(&acl_hostmap, (uintptr_t)ptr);
		free(h);
	} else if (devPtr) {
		*devPtr = (void *)(uintptr_t)dev_addr(v, ptr);
	}
out:
	pthread_mutex_unlock(&hostva_lock);
	return err;
}

ACL_EXPORT aclError aclrtHostRegister(void *ptr, uint64_t size, aclrtHostRegisterType type,
				      void **devPtr)
{
	ACL_CHECK_NULL(devPtr);
	if (type != ACL_HOST_REGISTER_MAPPED && type != ACL_HOST_REGISTER_IOMEMORY &&
	    type != ACL_HOST_REGISTER_READONLY)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown register type %d", (int)type);
	return host_register(__func__, ptr, size, type == ACL_HOST_REGISTER_READONLY, devPtr);
}

#define REG_FLAGS	(ACL_HOST_REG_MAPPED | ACL_HOST_REG_IOMEMORY | ACL_HOST_REG_READONLY | \
			 ACL_HOST_REG_PINNED)

/* Every registration is pinned and mapped: the flags choose read-only or not. */
ACL_EXPORT aclError aclrtHostRegisterV2(void *ptr, uint64_t size, uint32_t flag)
{
	if (flag & ~REG_FLAGS)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown flags %#x",
				(unsigned)(flag & ~REG_FLAGS));
	return host_register(__func__, ptr, size, flag & ACL_HOST_REG_READONLY, NULL);
}

ACL_EXPORT aclError aclrtHostUnregister(void *ptr)
{
	struct acl_hostmem *h = NULL;
	struct acl_range *r;
	struct hostva *v;
	aclError err = ACL_SUCCESS;

	ACL_CHECK_NULL(ptr);
	pthread_mutex_lock(&hostva_lock);
	v = find_locked(HOSTVA_PINNED_REG, ptr, 1);
	if (v && v->host == ptr) {
		unlink_locked(v);
		unmap_free(v);
		goto out;
	}
	acl_rwlock_rdlock(&acl_hostmap.lock);
	r = acl_rmap_find_locked(&acl_hostmap, (uintptr_t)ptr);
	if (r && r->start == (uintptr_t)ptr &&
	    ((struct acl_hostmem *)r->data)->kind == ACL_HOST_REGISTERED)
		h = r->data;
	acl_rwlock_unlock(&acl_hostmap.lock);
	if (!h) {
		err = ACL_FAIL(ACL_ERROR_HOST_MEMORY_NOT_REGISTERED, "%p is not registered", ptr);
		goto out;
	}
	acl_rmap_remove(&acl_hostmap, (uintptr_t)ptr);
	free(h);
	/* none when its card was released meanwhile: the mapping went with it */
	v = find_locked(HOSTVA_USERPTR, ptr, 1);
	if (v && v->host == ptr) {
		unlink_locked(v);
		unmap_free(v);
	}
out:
	pthread_mutex_unlock(&hostva_lock);
	return err;
}

ACL_EXPORT aclError aclrtHostGetDevicePointer(void *pHost, void **pDevice, uint32_t flag)
{
	struct hostva *v;
	aclError err = ACL_SUCCESS;

	ACL_CHECK_NULL(pHost);
	ACL_CHECK_NULL(pDevice);
	if (flag)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "flag must be 0, not %#x", flag);
	pthread_mutex_lock(&hostva_lock);
	v = find_locked(HOSTVA_USERPTR, pHost, 1);
	if (!v)
		v = pinned_mapping_locked(__func__, pHost, 1, &err);
	if (v)
		*pDevice = (void *)(uintptr_t)dev_addr(v, pHost);
	pthread_mutex_unlock(&hostva_lock);
	return err;
}

/* aclrtFreeHost of h: its mapping, and registrations in it, go first. */
void acl_hostva_pinned_gone(struct acl_hostmem *h)
{
	struct hostva *v, *next;

	pthread_mutex_lock(&hostva_lock);
	for (v = hostvas; v; v = next) {
		next = v->next;
		if ((v->kind == HOSTVA_PINNED || v->kind == HOSTVA_PINNED_REG) &&
		    v->map_host == (uint8_t *)h->ptr) {
			unlink_locked(v);
			unmap_free(v);
		}
	}
	pthread_mutex_unlock(&hostva_lock);
}

bool acl_hostva_range(uint64_t addr, uint64_t *base, uint64_t *size)
{
	struct hostva *v;
	bool found = false;

	pthread_mutex_lock(&hostva_lock);
	for (v = hostvas; v && !found; v = v->next) {
		uint64_t start = dev_addr(v, v->host);

		if (addr >= start && addr - start < v->size) {
			*base = start;
			*size = v->size;
			found = true;
		}
	}
	pthread_mutex_unlock(&hostva_lock);
	return found;
}

/* d's file is closing: the buffers and mappings in it go with it. */
void acl_hostva_drop_device(struct acl_device *d)
{
	struct hostva *v, *next;

	pthread_mutex_lock(&hostva_lock);
	for (v = hostvas; v; v = next) {
		next = v->next;
		if (v->dev == d) {
			unlink_locked(v);
			if (v->kind != HOSTVA_PINNED_REG)
				acl_va_release(v->va);
			free(v);
		}
	}
	pthread_mutex_unlock(&hostva_lock);
}
