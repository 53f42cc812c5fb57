// SPDX-License-Identifier: MIT
/*
 * Who may use a mapping (aclrtMemSetAccess): the allocation's own card
 * through its buffer, read-write or read-only (a remap with
 * DRM_NPU_VM_READ_ONLY); another card of the process through the buffer
 * imported there by PRIME, a peer buffer the card reaches through a peer
 * window, mapped at the same address.
 */
#include <errno.h>

#include "vmm.h"

static uint32_t bind_flags(uint8_t access)
{
	return access == ACL_RT_MEM_ACCESS_FLAGS_READ ? DRM_NPU_VM_READ_ONLY : 0;
}

/* The buffer device d maps for m: the allocation's own, or a peer import. */
static int peer_buffer(struct acl_vmap *m, struct acl_device *d, uint32_t *bo)
{
	int ret;

	if (d == m->p->dev) {
		*bo = m->p->bo;
		return 0;
	}
	if (!m->peer[d->id]) {
		ret = drv_prime_share(m->p->dev->fd, m->p->bo, d->fd, &m->peer[d->id]);
		if (ret)
			return ret;
	}
	*bo = m->peer[d->id];
	return 0;
}

static void peer_put(struct acl_vmap *m, struct acl_device *d)
{
	if (d != m->p->dev && m->peer[d->id]) {
		drv_gem_close(d->fd, m->peer[d->id]);
		m->peer[d->id] = 0;
	}
}

aclError acl_vmm_set_access_locked(const char *fn, struct acl_vmap *m, int32_t id, uint8_t flags)
{
	uint8_t old = m->access[id];
	struct acl_device *d;
	uint32_t bo;
	int ret;

	if (old == flags)
		return ACL_SUCCESS;
	d = acl_device_get(id);
	if (old != ACL_RT_MEM_ACCESS_FLAGS_NONE) {
		ret = drv_vm_bind(d->fd, DRM_NPU_VM_UNMAP, 0, 0, 0, m->addr, m->size);
		if (ret)
			return acl_drv_fail(fn, d, ret, "unmapping [%#llx, +%llu)",
					    (unsigned long long)m->addr,
					    (unsigned long long)m->size);
		m->access[id] = ACL_RT_MEM_ACCESS_FLAGS_NONE;
	}
	if (flags == ACL_RT_MEM_ACCESS_FLAGS_NONE) {
		peer_put(m, d);
		return ACL_SUCCESS;
	}
	ret = peer_buffer(m, d, &bo);
	if (!ret)
		ret = drv_vm_bind(d->fd, DRM_NPU_VM_MAP, bind_flags(flags), bo, m->offset, m->addr,
				  m->size);
	if (ret) {
		peer_put(m, d);
		if (ret == -EBUSY)
			return acl_fail(fn, ACL_ERROR_RT_RESOURCE_ALLOC_FAIL,
					"device %d has no free peer window for device %d's memory",
					id, m->p->dev->id);
		return acl_drv_fail(fn, d, ret, "mapping device %d's memory at [%#llx, +%llu)",
				    m->p->dev->id, (unsigned long long)m->addr,
				    (unsigned long long)m->size);
	}
	m->access[id] = flags;
	return ACL_SUCCESS;
}

static aclError check_desc(const char *fn, const aclrtMemAccessDesc *desc)
{
	aclError err;

	if (desc->flags != ACL_RT_MEM_ACCESS_FLAGS_NONE &&
	    desc->flags != ACL_RT_MEM_ACCESS_FLAGS_READ &&
	    desc->flags != ACL_RT_MEM_ACCESS_FLAGS_READWRITE)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "unknown access flags %#x",
				(unsigned)desc->flags);
	if (desc->location.type != ACL_MEM_LOCATION_TYPE_DEVICE)
		return acl_fail(fn, desc->location.type == ACL_MEM_LOCATION_TYPE_HOST ?
				ACL_ERROR_RT_FEATURE_NOT_SUPPORT : ACL_ERROR_INVALID_PARAM,
				"location type %d: only a device's access can be set",
				(int)desc->location.type);
	return acl_vmm_open_device(fn, (int32_t)desc->location.id, &err) ? ACL_SUCCESS : err;
}

/* The mappings covering [va, va + size) whole, in order; 0 if they do not. */
static size_t covering_maps(uint64_t va, uint64_t size, struct acl_vmap **out, size_t max)
{
	uint64_t at = va;
	size_t n = 0;

	acl_rwlock_rdlock(&acl_vmm_maps.lock);
	while (at < va + size && n < max) {
		struct acl_range *r = acl_rmap_find_locked(&acl_vmm_maps, at);

		if (!r || (at == va && r->start != va) || r->end > va + size)
			break;
		out[n++] = r->data;
		at = r->end;
	}
	acl_rwlock_unlock(&acl_vmm_maps.lock);
	return at == va + size ? n : 0;
}

#define MAX_SET_MAPS	64

ACL_EXPORT aclError aclrtMemSetAccess(void *virPtr, size_t size, aclrtMemAccessDesc *desc,
				      size_t count)
{
	struct acl_vmap *maps[MAX_SET_MAPS];
	aclError err = ACL_SUCCESS;
	size_t i, j, n;

	ACL_CHECK_NULL(virPtr);
	ACL_CHECK_NULL(desc);
	if (!size || !count)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%s is 0", size ? "count" : "size");
	for (i = 0; i < count; i++) {
		err = check_desc(__func__, &desc[i]);
		if (err)
			return err;
	}
	pthread_mutex_lock(&acl_vmm_lock);
	n = covering_maps((uintptr_t)virPtr, size, maps, MAX_SET_MAPS);
	if (!n)
		err = ACL_FAIL(ACL_ERROR_INVALID_PARAM,
			       "[%p, +%zu) is not made of whole mappings of aclrtMapMem (at most %d)",
			       virPtr, size, MAX_SET_MAPS);
	for (i = 0; i < count && !err; i++)
		for (j = 0; j < n && !err; j++)
			err = acl_vmm_set_access_locked(__func__, maps[j],
							(int32_t)desc[i].location.id,
							(uint8_t)desc[i].flags);
	pthread_mutex_unlock(&acl_vmm_lock);
	return err;
}

ACL_EXPORT aclError aclrtMemGetAccess(void *virPtr, aclrtMemLocation *location, uint64_t *flag)
{
	struct acl_range *r;
	aclError err = ACL_SUCCESS;

	ACL_CHECK_NULL(virPtr);
	ACL_CHECK_NULL(location);
	ACL_CHECK_NULL(flag);
	if (location->type != ACL_MEM_LOCATION_TYPE_DEVICE || !acl_device_get((int32_t)location->id))
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "location (type %d, id %u) is no device",
				(int)location->type, location->id);
	acl_rwlock_rdlock(&acl_vmm_maps.lock);
	r = acl_rmap_find_locked(&acl_vmm_maps, (uintptr_t)virPtr);
	if (r)
		*flag = ((struct acl_vmap *)r->data)->access[location->id];
	else
		err = ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%p is in no mapping of aclrtMapMem",
			       virPtr);
	acl_rwlock_unlock(&acl_vmm_maps.lock);
	return err;
}

/*
 * Memory of aclrtMalloc lies in its card's window, which no other card's
 * address space can hold at that address: another card reaches it by
 * peer access (aclrtDeviceEnablePeerAccess), or through a physical
 * allocation mapped at a reserved address (aclrtMemSetAccess).
 */
ACL_EXPORT aclError aclrtMemP2PMap(void *devPtr, size_t size, int32_t dstDevId, uint64_t flags)
{
	(void)devPtr, (void)size, (void)dstDevId, (void)flags;
	return ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
			"aclrtMemP2PMap is not supported: use peer access "
			"(aclrtDeviceEnablePeerAccess), or aclrtMallocPhysical memory mapped "
			"with aclrtMapMem and aclrtMemSetAccess for the other device");
}
