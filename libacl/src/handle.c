// SPDX-License-Identifier: MIT
/*
 * Handles: what the application holds for a context, stream or event is
 * an encoded (type tag, generation, index) value. Lookups check the tag,
 * the index and the generation, so a destroyed or invented handle yields
 * an error instead of a wild dereference, and a lookup costs a few loads
 * with no lock.
 *
 * Objects live in per-type tables and their memory is recycled rather
 * than freed: a stale handle always points at readable memory whose
 * generation no longer matches.
 */
#include <stdlib.h>
#include <string.h>

#include "acl_internal.h"

#define TAG_SHIFT	56
#define GEN_SHIFT	24
#define INDEX_MASK	((1u << 24) - 1)

struct table {
	struct acl_mutex lock;
	uint64_t tag;
	uint32_t cap;
	size_t size;			/* object size */
	void *_Atomic *slots;		/* index -> object, never cleared */
	uint32_t *free_idx;
	uint32_t nfree;
	uint32_t used;			/* indices handed out so far */
};

static struct table tables[ACL_OBJ_NTYPES] = {
	[ACL_OBJ_CONTEXT] = { ACL_MUTEX_INITIALIZER, 0xa1, 4096, sizeof(struct acl_context) },
	[ACL_OBJ_STREAM] = { ACL_MUTEX_INITIALIZER, 0xa2, 16384, sizeof(struct acl_stream) },
	[ACL_OBJ_EVENT] = { ACL_MUTEX_INITIALIZER, 0xa3, 1u << 20, sizeof(struct acl_event) },
};

void *acl_obj_alloc(enum acl_obj_type type)
{
	struct table *t = &tables[type];
	struct acl_obj *o = NULL;
	uint32_t idx;

	acl_mutex_lock(&t->lock);
	if (!t->slots) {
		t->slots = calloc(t->cap, sizeof(*t->slots));
		t->free_idx = calloc(t->cap, sizeof(*t->free_idx));
		if (!t->slots || !t->free_idx) {
			free((void *)t->slots);
			free(t->free_idx);
			t->slots = NULL;
			t->free_idx = NULL;
			goto out;
		}
	}
	if (t->nfree) {
		idx = t->free_idx[--t->nfree];
		o = atomic_load(&t->slots[idx]);
		uint32_t gen = atomic_load(&o->gen);

		memset(o, 0, t->size);
		atomic_store(&o->gen, gen);
	} else if (t->used < t->cap) {
		idx = t->used;
		o = calloc(1, t->size);
		if (!o)
			goto out;
		t->used++;
		atomic_store(&o->gen, 1);
		atomic_store_explicit(&t->slots[idx], o, memory_order_release);
	} else {
		goto out;
	}
	o->index = idx;
	o->type = type;
	o->live = true;
out:
	acl_mutex_unlock(&t->lock);
	return o;
}

void acl_obj_free(void *obj)
{
	struct acl_obj *o = obj;
	struct table *t = &tables[o->type];

	acl_mutex_lock(&t->lock);
	if (o->live) {
		o->live = false;
		/* Generation 0 is never valid, so skip it on wrap. */
		if (atomic_fetch_add(&o->gen, 1) + 1 == 0)
			atomic_store(&o->gen, 1);
		t->free_idx[t->nfree++] = o->index;
	}
	acl_mutex_unlock(&t->lock);
}

void *acl_obj_handle(const void *obj)
{
	const struct acl_obj *o = obj;
	uint64_t v = tables[o->type].tag << TAG_SHIFT |
		     (uint64_t)atomic_load(&((struct acl_obj *)o)->gen) << GEN_SHIFT | o->index;

	return (void *)(uintptr_t)v;
}

void *acl_obj_lookup(enum acl_obj_type type, const void *handle)
{
	struct table *t = &tables[type];
	uint64_t v = (uintptr_t)handle;
	uint32_t idx = v & INDEX_MASK;
	uint32_t gen = (uint32_t)(v >> GEN_SHIFT);
	void *_Atomic *slots;
	struct acl_obj *o;

	if (v >> TAG_SHIFT != t->tag)
		return NULL;
	slots = __atomic_load_n(&t->slots, __ATOMIC_ACQUIRE);
	if (!slots || idx >= t->cap)
		return NULL;
	o = atomic_load_explicit(&slots[idx], memory_order_acquire);
	if (!o || atomic_load_explicit(&o->gen, memory_order_acquire) != gen)
		return NULL;
	return o;
}
