/* SPDX-License-Identifier: MIT */
/*
 * The process's device addresses outside every card's window
 * ([DRM_NPU_VA_USER_BASE, DRM_NPU_DEVICE_ADDR_BASE + 2^DRM_NPU_VA_BITS)):
 * one allocator for all the cards of the process, so that a reserved
 * address means the same memory whichever card a command runs on.
 * Functions return 0 or a negative errno; they take their own lock.
 */
#ifndef ACL_VA_SPACE_H
#define ACL_VA_SPACE_H

#include <stdint.h>

#define ACL_VA_USER_START	DRM_NPU_VA_USER_BASE
#define ACL_VA_USER_END		(DRM_NPU_DEVICE_ADDR_BASE + (1ULL << DRM_NPU_VA_BITS))

/*
 * Reserves size bytes aligned to align (a power of two, at least a page):
 * at want when want is non-zero (-EEXIST if taken, -EINVAL if misaligned or
 * outside the range), else at the lowest free place (-ENOMEM if none).
 */
int acl_va_reserve(uint64_t size, uint64_t align, uint64_t want, uint64_t *addr);
/* Gives back the reservation starting at addr; -ENOENT if none does. */
int acl_va_release(uint64_t addr);
/* The reservation holding addr; -ENOENT if none does. */
int acl_va_lookup(uint64_t addr, uint64_t *start, uint64_t *size);
/* Whether addr lies in the range reservations come from. */
static inline int acl_va_is_user(uint64_t addr)
{
	return addr >= ACL_VA_USER_START && addr < ACL_VA_USER_END;
}

#endif
