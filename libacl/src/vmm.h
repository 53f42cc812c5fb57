/* SPDX-License-Identifier: MIT */
/*
 * Virtual memory (vmm.c, vmm_access.c, vmm_share.c, vmm_drv.c) and host
 * memory the card reaches by address (host_register.c): physical
 * allocations of a card mapped at addresses reserved from the process's
 * allocator (va_space.h) with DRM_IOCTL_NPU_VM_BIND.
 */
#ifndef LIBASCENDCL_VMM_H
#define LIBASCENDCL_VMM_H

#include "acl_internal.h"
#include "va_space.h"

/* What aclrtMemGetAllocationGranularity reports, both kinds: the card's 2 MiB entries. */
#define ACL_VMM_GRANULARITY	DRM_NPU_VM_BLOCK_SIZE

/* A physical allocation: what an aclrtDrvMemHandle points to. */
struct acl_phys {
	struct acl_phys *next;		/* in the list of live handles */
	struct acl_device *dev;		/* the card whose memory it is */
	uint32_t bo;			/* its buffer in dev's file */
	uint64_t size;			/* bytes, a multiple of the granularity */
	aclrtPhysicalMemProp prop;
	unsigned user_refs;		/* MallocPhysical, Import and Retain; FreePhysical drops */
	unsigned maps;			/* mappings of it */
	uint64_t key;			/* its driver key once exported, else 0 */
};

/* A mapping of a physical allocation at a reserved address. */
struct acl_vmap {
	uint64_t addr, size, offset;
	struct acl_phys *p;
	/* aclrtMemAccessFlags each device has; another device's through peer[] */
	uint8_t access[ACL_MAX_DEVICES];
	uint32_t peer[ACL_MAX_DEVICES];	/* the buffer imported (PRIME) into that device */
};

/*
 * Every handle and mapping changes under acl_vmm_lock, a leaf lock (only
 * driver calls are made under it); acl_vmm_maps is read under its own.
 */
extern pthread_mutex_t acl_vmm_lock;
extern struct acl_rmap acl_vmm_maps;

/* The live handle h points to, or NULL (acl_vmm_lock held). */
struct acl_phys *acl_vmm_phys_locked(aclrtDrvMemHandle h);
/* The device of the live handle exported under key, or NULL (acl_vmm_lock held). */
struct acl_device *acl_vmm_key_device_locked(uint64_t key);
/* The device id names, open in this process, or NULL with a message. */
struct acl_device *acl_vmm_open_device(const char *fn, int32_t id, aclError *err);
/* A handle for buffer bo of d, of size bytes, with user_refs 1 (acl_vmm_lock held). */
struct acl_phys *acl_vmm_phys_new_locked(struct acl_device *d, uint32_t bo, uint64_t size,
					 const aclrtPhysicalMemProp *prop);
/* Sets what device id may do with m (acl_vmm_lock held). */
aclError acl_vmm_set_access_locked(const char *fn, struct acl_vmap *m, int32_t id, uint8_t flags);

/*
 * memory.c's answers for a reserved address: a mapping's device and its
 * range, or registered host memory's.
 */
aclError acl_vmm_ptr_attributes(uint64_t addr, aclrtPtrAttributes *attributes);
aclError acl_vmm_address_range(uint64_t addr, void **pbase, size_t *psize);
/* d's file is closing: its handles and mappings go with it (device.c). */
void acl_vmm_drop_device(struct acl_device *d);

/* Host memory at a device address (host_register.c), for memory.c. */
bool acl_hostva_range(uint64_t addr, uint64_t *base, uint64_t *size);
/* aclrtFreeHost of h: its mapping, and registrations in it, go first. */
void acl_hostva_pinned_gone(struct acl_hostmem *h);
void acl_hostva_drop_device(struct acl_device *d);

/*
 * For a stream's error err in slot of d: " (writing address A: why)" in
 * buf when it is a page fault, else "" (vmm_fault.c).
 */
const char *acl_vmm_fault_text(struct acl_device *d, uint32_t slot, uint32_t err, char *buf,
			       size_t len);

/* The driver (vmm_drv.c), as drv.c: 0 or a negative errno. */
int drv_vm_bind(int fd, uint32_t op, uint32_t flags, uint32_t handle, uint64_t offset,
		uint64_t addr, uint64_t size);
int drv_bo_userptr(int fd, void *ptr, uint64_t size, uint32_t flags, uint32_t *handle);
/* Imports buffer bo of from_fd into to_fd through PRIME. */
int drv_prime_share(int from_fd, uint32_t bo, int to_fd, uint32_t *handle);

#endif
