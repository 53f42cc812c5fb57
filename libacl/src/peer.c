// SPDX-License-Identifier: MIT
/*
 * Peer access: a card reaching another card's memory through a peer
 * window, as PCIe peer-to-peer does (uapi/npu_accel.h, "Buffers of another
 * card"). Enabling is per device and one way, as documented: once device A
 * enabled access to device B, every device allocation of B, those made
 * before and after, is exported by B's file (PRIME), imported into A's as a
 * peer buffer and mapped there with VM_BIND at B's own address. Addresses
 * are unique across the cards of a process (each card has its window), so
 * a copy on a stream of A names B's memory by the address aclrtMalloc gave
 * on B, and A's DMA does the copy: no host memory in between.
 *
 * B's allocation is unmapped from A before B frees it, so A's commands that
 * still name it fault instead of reaching memory B has given to another
 * allocation.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "peer.h"
#include "vmm.h"

/* One allocation of owner mapped into accessor's address space. */
struct peer_map {
	struct peer_map *next;
	int32_t owner;
	uint32_t handle;	/* the peer buffer, in accessor's file */
	uint64_t addr, size;
};

static struct acl_mutex peer_lock = ACL_MUTEX_INITIALIZER;
/* [accessor][owner]: accessor enabled access to owner's memory */
static bool enabled[ACL_MAX_DEVICES][ACL_MAX_DEVICES];
/* per accessor: the owners' allocations mapped into it */
static struct peer_map *maps[ACL_MAX_DEVICES];

/* A device's window, from the driver: 0 not asked yet, WINDOW_NONE none. */
#define WINDOW_NONE	1
static _Atomic uint64_t windows[ACL_MAX_DEVICES];

/* Opens d just to ask a parameter when the runtime has not opened it. */
static int device_param(struct acl_device *d, uint32_t param, uint64_t *v)
{
	int fd = d->fd >= 0 ? d->fd : drv_open(d->path);
	int ret;

	if (fd < 0)
		return fd;
	ret = drv_get_param(fd, param, v);
	if (fd != d->fd)
		close(fd);
	return ret;
}

/* Whether d has peer windows (a driver before 1.6 has none). */
static bool has_peer_windows(struct acl_device *d)
{
	uint64_t n = 0;

	return !device_param(d, DRM_NPU_PARAM_NUM_PEERS, &n) && n > 0;
}

/* The device address of d's window; 0 when d is closed or has none. */
static uint64_t window_of(struct acl_device *d)
{
	uint64_t w = atomic_load_explicit(&windows[d->id], memory_order_relaxed);

	if (!w && d->fd >= 0) {
		if (drv_get_param(d->fd, DRM_NPU_PARAM_VA_WINDOW, &w) || !w)
			w = WINDOW_NONE;
		atomic_store_explicit(&windows[d->id], w, memory_order_relaxed);
	}
	return w == WINDOW_NONE ? 0 : w;
}

static bool in_window(uint64_t w, uint64_t addr)
{
	return w && addr >= w && addr - w < DRM_NPU_VA_WINDOW_SIZE;
}

/* The open device other than d whose window holds addr, or NULL. */
static struct acl_device *window_owner(struct acl_device *d, uint64_t addr)
{
	for (int i = 0; i < acl_ndevices; i++) {
		struct acl_device *o = &acl_devices[i];

		if (o != d && o->fd >= 0 && in_window(window_of(o), addr))
			return o;
	}
	return NULL;
}

static uint64_t page_round(uint64_t n)
{
	return (n + DRM_NPU_VM_PAGE_SIZE - 1) & ~(uint64_t)(DRM_NPU_VM_PAGE_SIZE - 1);
}

/* Maps owner's allocation m into a (peer_lock held). */
static aclError map_one_locked(const char *fn, struct acl_device *a, struct acl_device *owner,
			       const struct acl_devmem *m)
{
	struct peer_map *pm;
	int ret;

	ACL_ASSERT_HELD(&peer_lock);
	pm = calloc(1, sizeof(*pm));
	if (!pm)
		return acl_fail(fn, ACL_ERROR_BAD_ALLOC, "out of host memory");
	pm->owner = owner->id;
	pm->addr = m->addr;
	pm->size = page_round(m->alloc);
	ret = drv_prime_share(owner->fd, m->handle, a->fd, &pm->handle);
	if (!ret) {
		ret = drv_vm_bind(a->fd, DRM_NPU_VM_MAP, 0, pm->handle, 0, pm->addr, pm->size);
		if (ret)
			drv_gem_close(a->fd, pm->handle);
	}
	if (ret) {
		free(pm);
		return acl_drv_fail(fn, a, ret, "mapping device %d's %#llx (%zu bytes)", owner->id,
				    (unsigned long long)m->addr, m->alloc);
	}
	pm->next = maps[a->id];
	maps[a->id] = pm;
	return ACL_SUCCESS;
}

/* Unmaps and frees *pp, unlinking it (peer_lock held). */
static void unmap_one_locked(struct acl_device *a, struct peer_map **pp)
{
	struct peer_map *pm = *pp;

	ACL_ASSERT_HELD(&peer_lock);
	*pp = pm->next;
	if (a->fd >= 0) {
		drv_vm_bind(a->fd, DRM_NPU_VM_UNMAP, 0, 0, 0, pm->addr, pm->size);
		drv_gem_close(a->fd, pm->handle);
	}
	free(pm);
}

/* Unmaps from a the allocations of owner (all with addr 0, else that one). */
static void unmap_owner_locked(struct acl_device *a, int32_t owner, uint64_t addr)
{
	struct peer_map **pp = &maps[a->id];

	while (*pp) {
		if ((*pp)->owner == owner && (!addr || (*pp)->addr == addr))
			unmap_one_locked(a, pp);
		else
			pp = &(*pp)->next;
	}
}

/* Maps every live allocation of owner into a; all or none. */
static aclError map_all_locked(const char *fn, struct acl_device *a, struct acl_device *owner)
{
	aclError err = ACL_SUCCESS;

	if (owner->fd < 0)
		return ACL_SUCCESS;	/* closed: it has no memory yet */
	acl_rwlock_rdlock(&owner->devmem.lock);
	for (size_t i = 0; i < owner->devmem.n && !err; i++) {
		struct acl_devmem *m = owner->devmem.v[i].data;

		if (!m->imported)
			err = map_one_locked(fn, a, owner, m);
	}
	acl_rwlock_unlock(&owner->devmem.lock);
	if (err)
		unmap_owner_locked(a, owner->id, 0);
	return err;
}

ACL_EXPORT aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId,
					     int32_t peerDeviceId)
{
	struct acl_device *d = acl_device_get(deviceId), *p = acl_device_get(peerDeviceId);

	ACL_CHECK_NULL(canAccessPeer);
	if (!d || !p)
		return ACL_FAIL(ACL_ERROR_RT_INVALID_DEVICEID, "device %d or %d does not exist",
				deviceId, peerDeviceId);
	if (deviceId == peerDeviceId)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "a device is not its own peer");
	*canAccessPeer = has_peer_windows(d) && has_peer_windows(p);
	return ACL_SUCCESS;
}

/* The current device, and peerDeviceId's, checked for Enable and Disable. */
static aclError peer_pair(const char *fn, int32_t peerDeviceId, struct acl_device **a,
			  struct acl_device **p)
{
	struct acl_context *c = acl_current_ctx();

	if (!c)
		return ACL_ERROR_RT_CONTEXT_NULL;
	*a = c->dev;
	*p = acl_device_get(peerDeviceId);
	if (!*p || *p == *a)
		return acl_fail(fn, ACL_ERROR_RT_INVALID_DEVICEID, "invalid peer device %d: the "
				"current device is %d", peerDeviceId, (*a)->id);
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags)
{
	struct acl_device *a, *p;
	aclError err;

	if (flags)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "flags must be 0, not %#x", flags);
	err = peer_pair(__func__, peerDeviceId, &a, &p);
	if (err)
		return err;
	if (!has_peer_windows(a) || !has_peer_windows(p))
		return ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "device %d cannot reach device "
				"%d's memory: the driver has no peer windows", a->id, p->id);
	acl_mutex_lock(&peer_lock);
	if (enabled[a->id][p->id])
		err = ACL_FAIL(ACL_ERROR_INVALID_PARAM, "device %d already reaches device %d's "
			       "memory", a->id, p->id);
	else
		err = map_all_locked(__func__, a, p);
	if (!err)
		enabled[a->id][p->id] = true;
	acl_mutex_unlock(&peer_lock);
	return err;
}

ACL_EXPORT aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId)
{
	struct acl_device *a, *p;
	aclError err = peer_pair(__func__, peerDeviceId, &a, &p);

	if (err)
		return err;
	acl_mutex_lock(&peer_lock);
	if (!enabled[a->id][p->id]) {
		err = ACL_FAIL(ACL_ERROR_INVALID_PARAM, "device %d has not enabled access to "
			       "device %d (aclrtDeviceEnablePeerAccess)", a->id, p->id);
	} else {
		unmap_owner_locked(a, p->id, 0);
		enabled[a->id][p->id] = false;
	}
	acl_mutex_unlock(&peer_lock);
	return err;
}

ACL_EXPORT aclError aclrtDevicePeerAccessStatus(int32_t deviceId, int32_t peerDeviceId,
						int32_t *status)
{
	ACL_CHECK_NULL(status);
	if (!acl_device_get(deviceId) || !acl_device_get(peerDeviceId))
		return ACL_FAIL(ACL_ERROR_RT_INVALID_DEVICEID, "device %d or %d does not exist",
				deviceId, peerDeviceId);
	acl_mutex_lock(&peer_lock);
	*status = enabled[deviceId][peerDeviceId];
	acl_mutex_unlock(&peer_lock);
	return ACL_SUCCESS;
}

aclError acl_peer_devmem_added(struct acl_device *owner, struct acl_devmem *m)
{
	aclError err = ACL_SUCCESS;
	int i;

	acl_mutex_lock(&peer_lock);
	for (i = 0; i < acl_ndevices && !err; i++)
		if (enabled[i][owner->id] && acl_devices[i].fd >= 0)
			err = map_one_locked("aclrtMalloc", &acl_devices[i], owner, m);
	if (err)
		while (i-- > 0)
			if (enabled[i][owner->id])
				unmap_owner_locked(&acl_devices[i], owner->id, m->addr);
	acl_mutex_unlock(&peer_lock);
	return err;
}

void acl_peer_devmem_removed(struct acl_device *owner, uint64_t addr)
{
	acl_mutex_lock(&peer_lock);
	for (int i = 0; i < acl_ndevices; i++)
		if (enabled[i][owner->id])
			unmap_owner_locked(&acl_devices[i], owner->id, addr);
	acl_mutex_unlock(&peer_lock);
}

/*
 * A reset device starts afresh: what it had enabled goes with its file.
 * The devices that reach it keep their access (its later allocations are
 * mapped for them), as they did not reset.
 */
void acl_peer_drop_device(struct acl_device *d)
{
	acl_mutex_lock(&peer_lock);
	for (int i = 0; i < acl_ndevices; i++) {
		if (enabled[i][d->id])
			unmap_owner_locked(&acl_devices[i], d->id, 0);
		enabled[d->id][i] = false;
	}
	while (maps[d->id])
		unmap_one_locked(d, &maps[d->id]);
	acl_mutex_unlock(&peer_lock);
	atomic_store_explicit(&windows[d->id], 0, memory_order_relaxed);
}

aclError acl_peer_check_operand(const char *fn, struct acl_device *d,
				const struct acl_opnd *o, uint64_t len)
{
	struct acl_device *owner;
	bool ok;

	if (o->kind != ACL_OPND_DEVICE || in_window(window_of(d), o->addr))
		return ACL_SUCCESS;
	owner = window_owner(d, o->addr);
	if (!owner)
		return ACL_SUCCESS;	/* in no card's window: the card checks the pages */
	acl_mutex_lock(&peer_lock);
	ok = enabled[d->id][owner->id];
	acl_mutex_unlock(&peer_lock);
	if (ok)
		return ACL_SUCCESS;
	return acl_fail(fn, ACL_ERROR_RT_NO_PERMISSION, "[%#llx, +%llu) is device %d's memory and "
			"the stream's device %d has not enabled access to it "
			"(aclrtDeviceEnablePeerAccess)", (unsigned long long)o->addr,
			(unsigned long long)len, owner->id, d->id);
}
