/* SPDX-License-Identifier: MIT */
/*
 * The allocators applications register on streams (allocator.c), which
 * the runtime's own device memory for work on such a stream comes from.
 */
#ifndef ACL_ALLOCATOR_H
#define ACL_ALLOCATOR_H

#include "acl_internal.h"
#include "acl/acl_rt_allocator.h"

/* A block taken from a stream's allocator, and how to give it back. */
struct acl_allocator_block {
	aclrtAllocator obj;
	aclrtAllocatorFreeFunc free_fn;
	aclrtAllocatorBlock block;	/* NULL: none taken */
};

/*
 * @size bytes of s's device from s's allocator into *addr and *b; false
 * (with *addr untouched) when s has none registered. A block that is not
 * device memory of s's device is given back and fails with *err.
 */
bool acl_allocator_take(struct acl_stream *s, uint64_t size, uint64_t *addr,
			struct acl_allocator_block *b, aclError *err);
/* Gives b back once its work is queued: the stream orders later uses after it. */
void acl_allocator_give_back(struct acl_allocator_block *b);
/* s is being freed: its registration goes with it. */
void acl_allocator_stream_gone(struct acl_stream *s);

#endif /* ACL_ALLOCATOR_H */
