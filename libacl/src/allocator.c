// SPDX-License-Identifier: MIT
/*
 * Allocators applications register on streams (acl/acl_rt_allocator.h).
 * A registration copies the descriptor's functions, so the descriptor may
 * change or go afterwards; registering again on a stream replaces the
 * registration, and freeing the stream drops it. Registrations are few
 * (one per stream that has one): a list under one lock.
 */
#include <stdlib.h>

#include "allocator.h"

#define ALLOCATOR_DESC_MAGIC	0x616c6c6f63646573ULL	/* "allocdes" */

struct allocator_desc {
	uint64_t magic;
	aclrtAllocator obj;
	aclrtAllocatorAllocFunc alloc_fn;
	aclrtAllocatorFreeFunc free_fn;
	aclrtAllocatorAllocAdviseFunc advise_fn;
	aclrtAllocatorGetAddrFromBlockFunc addr_fn;
};

struct allocator_reg {
	struct acl_stream *s;
	aclrtAllocatorDesc handle;	/* as registered, for aclrtAllocatorGetByStream */
	struct allocator_desc desc;	/* its functions then */
	struct allocator_reg *next;
};

static struct acl_mutex reg_lock = ACL_MUTEX_INITIALIZER;
static struct allocator_reg *regs;

static struct allocator_desc *desc_get(const char *fn, aclrtAllocatorDesc handle, aclError *err)
{
	struct allocator_desc *d = handle;

	*err = ACL_SUCCESS;
	if (!d)
		*err = acl_fail(fn, ACL_ERROR_INVALID_PARAM, "allocatorDesc is NULL");
	else if (d->magic != ALLOCATOR_DESC_MAGIC)
		*err = acl_fail(fn, ACL_ERROR_INVALID_PARAM, "%p is not an allocator descriptor "
				"(aclrtAllocatorCreateDesc)", handle);
	return *err ? NULL : d;
}

ACL_EXPORT aclrtAllocatorDesc aclrtAllocatorCreateDesc(void)
{
	struct allocator_desc *d = calloc(1, sizeof(*d));

	if (!d) {
		ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory for an allocator descriptor");
		return NULL;
	}
	d->magic = ALLOCATOR_DESC_MAGIC;
	return d;
}

ACL_EXPORT aclError aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc)
{
	struct allocator_desc *d;
	aclError err;

	d = desc_get(__func__, allocatorDesc, &err);
	if (!d)
		return err;
	d->magic = 0;
	free(d);
	return ACL_SUCCESS;
}

/* Sets one member of a descriptor; a NULL value is refused. */
#define DESC_SET(fn, handle, member, value)					\
	({									\
		aclError __err;							\
		struct allocator_desc *__d = desc_get(fn, handle, &__err);	\
										\
		if (__d && !(value))						\
			__err = acl_fail(fn, ACL_ERROR_INVALID_PARAM, "%s is NULL", #value); \
		else if (__d)							\
			__d->member = (value);					\
		__err;								\
	})

ACL_EXPORT aclError aclrtAllocatorSetObjToDesc(aclrtAllocatorDesc allocatorDesc,
					       aclrtAllocator allocator)
{
	return DESC_SET(__func__, allocatorDesc, obj, allocator);
}

ACL_EXPORT aclError aclrtAllocatorSetAllocFuncToDesc(aclrtAllocatorDesc allocatorDesc,
						     aclrtAllocatorAllocFunc func)
{
	return DESC_SET(__func__, allocatorDesc, alloc_fn, func);
}

ACL_EXPORT aclError aclrtAllocatorSetFreeFuncToDesc(aclrtAllocatorDesc allocatorDesc,
						    aclrtAllocatorFreeFunc func)
{
	return DESC_SET(__func__, allocatorDesc, free_fn, func);
}

ACL_EXPORT aclError aclrtAllocatorSetAllocAdviseFuncToDesc(aclrtAllocatorDesc allocatorDesc,
							   aclrtAllocatorAllocAdviseFunc func)
{
	return DESC_SET(__func__, allocatorDesc, advise_fn, func);
}

ACL_EXPORT aclError
aclrtAllocatorSetGetAddrFromBlockFuncToDesc(aclrtAllocatorDesc allocatorDesc,
					    aclrtAllocatorGetAddrFromBlockFunc func)
{
	return DESC_SET(__func__, allocatorDesc, addr_fn, func);
}

/* The registration of s, with reg_lock held; *prev links to it. */
static struct allocator_reg **reg_find_locked(const struct acl_stream *s)
{
	struct allocator_reg **p;

	for (p = &regs; *p && (*p)->s != s; p = &(*p)->next)
		;
	return p;
}

/* The stream a registration call names: never the default one (NULL). */
static struct acl_stream *reg_stream(const char *fn, aclrtStream stream, aclError *err)
{
	if (!stream) {
		*err = acl_fail(fn, ACL_ERROR_INVALID_PARAM, "stream is NULL: allocators are "
				"registered on streams the application created");
		return NULL;
	}
	return acl_stream_resolve(stream, err);
}

ACL_EXPORT aclError aclrtAllocatorRegister(aclrtStream stream, aclrtAllocatorDesc allocatorDesc)
{
	struct allocator_reg *r, **p;
	struct allocator_desc *d;
	struct acl_stream *s;
	aclError err = ACL_SUCCESS;

	s = reg_stream(__func__, stream, &err);
	if (!s)
		return err;
	d = desc_get(__func__, allocatorDesc, &err);
	if (!d)
		return err;
	if (!d->obj || !d->alloc_fn || !d->free_fn || !d->addr_fn)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "the allocator descriptor lacks its %s",
				!d->obj ? "allocator object" : !d->alloc_fn ? "alloc function" :
				!d->free_fn ? "free function" : "get-address function");
	r = calloc(1, sizeof(*r));
	if (!r)
		return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory for a registration");
	r->s = s;
	r->handle = allocatorDesc;
	r->desc = *d;
	acl_mutex_lock(&reg_lock);
	p = reg_find_locked(s);
	if (*p) {
		r->next = (*p)->next;
		free(*p);
	}
	*p = r;
	acl_mutex_unlock(&reg_lock);
	return ACL_SUCCESS;
}

ACL_EXPORT aclError
aclrtAllocatorGetByStream(aclrtStream stream, aclrtAllocatorDesc *allocatorDesc,
			  aclrtAllocator *allocator, aclrtAllocatorAllocFunc *allocFunc,
			  aclrtAllocatorFreeFunc *freeFunc,
			  aclrtAllocatorAllocAdviseFunc *allocAdviseFunc,
			  aclrtAllocatorGetAddrFromBlockFunc *getAddrFromBlockFunc)
{
	struct allocator_reg *r;
	struct acl_stream *s;
	aclError err = ACL_SUCCESS;

	ACL_CHECK_NULL(allocatorDesc);
	s = reg_stream(__func__, stream, &err);
	if (!s)
		return err;
	acl_mutex_lock(&reg_lock);
	r = *reg_find_locked(s);
	if (r) {
		*allocatorDesc = r->handle;
		if (allocator)
			*allocator = r->desc.obj;
		if (allocFunc)
			*allocFunc = r->desc.alloc_fn;
		if (freeFunc)
			*freeFunc = r->desc.free_fn;
		if (allocAdviseFunc)
			*allocAdviseFunc = r->desc.advise_fn;
		if (getAddrFromBlockFunc)
			*getAddrFromBlockFunc = r->desc.addr_fn;
	}
	acl_mutex_unlock(&reg_lock);
	if (!r)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "stream %p has no allocator registered",
				stream);
	return ACL_SUCCESS;
}

/* Removes s's registration, if it has one. */
static void reg_drop(const struct acl_stream *s)
{
	struct allocator_reg *r, **p;

	acl_mutex_lock(&reg_lock);
	p = reg_find_locked(s);
	r = *p;
	if (r)
		*p = r->next;
	acl_mutex_unlock(&reg_lock);
	free(r);
}

/* Unregistering what is not registered, or a stream already gone, does nothing. */
ACL_EXPORT aclError aclrtAllocatorUnregister(aclrtStream stream)
{
	struct acl_stream *s;
	aclError err = ACL_SUCCESS;

	if (!stream)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "stream is NULL");
	s = acl_obj_lookup(ACL_OBJ_STREAM, stream);
	if (s)
		reg_drop(s);
	return err;
}

void acl_allocator_stream_gone(struct acl_stream *s)
{
	reg_drop(s);
}

bool acl_allocator_take(struct acl_stream *s, uint64_t size, uint64_t *addr,
			struct acl_allocator_block *b, aclError *err)
{
	struct allocator_desc d;
	struct allocator_reg *r;
	void *p;

	acl_mutex_lock(&reg_lock);
	r = *reg_find_locked(s);
	if (r)
		d = r->desc;
	acl_mutex_unlock(&reg_lock);
	if (!r)
		return false;
	*err = ACL_SUCCESS;
	b->obj = d.obj;
	b->free_fn = d.free_fn;
	b->block = d.alloc_fn(d.obj, size);
	if (!b->block) {
		*err = ACL_FAIL(ACL_ERROR_BAD_ALLOC, "the stream's allocator gave no block of %llu "
				"bytes", (unsigned long long)size);
		return true;
	}
	p = d.addr_fn(b->block);
	if (!acl_is_dev_ptr(p) || !acl_devmem_padding_holds(s->dev, (uintptr_t)p, size)) {
		*err = ACL_FAIL(ACL_ERROR_INVALID_PARAM, "the stream's allocator gave %p, which is "
				"not %llu bytes of device %d's memory", p,
				(unsigned long long)size, s->dev->id);
		acl_allocator_give_back(b);
		return true;
	}
	*addr = (uintptr_t)p;
	return true;
}

void acl_allocator_give_back(struct acl_allocator_block *b)
{
	if (b->block)
		b->free_fn(b->obj, b->block);
	b->block = NULL;
}
