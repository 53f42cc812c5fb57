// SPDX-License-Identifier: MIT
/*
 * The direct-ring producer. A stream also gets a direct kernel stream, at
 * its first copy or fill between device memory and aclrtMallocHost memory
 * (at once with ACL_STREAM_FAST_LAUNCH): a ring that libacl writes itself
 * and the card checks, which takes such copies, and the slot writes that
 * record events, without a system call. Work goes there when the stream's
 * other work is done (a load tells), and other work waits for it on the
 * card (a SLOT_WAIT before the batch), so the stream keeps its order.
 * Direct rings are extra: a stream takes one unasked only while more than
 * a quarter of the card's rings are free, and when the card has no ring
 * left for a new stream, a stream of this process whose direct ring is
 * idle gives it up. ACL_DIRECT_RINGS=0 in the environment turns them off.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "acl_internal.h"

bool acl_direct_rings_wanted(void)
{
	const char *v = getenv("ACL_DIRECT_RINGS");

	return !v || strcmp(v, "0");
}

/*
 * Whether a stream that did not ask for one (ACL_STREAM_FAST_LAUNCH) may
 * take a direct ring: while more than a quarter of the card's rings are
 * free. Other processes share the card, and this process cannot give back
 * their streams' rings as it gives back its own (acl_direct_reclaim()).
 */
bool acl_direct_ring_to_spare(struct acl_device *d)
{
	uint64_t free_rings;

	if (drv_get_param(d->fd, DRM_NPU_PARAM_FREE_RINGS, &free_rings))
		return false;
	return free_rings > d->num_rings / 4;
}

/* A direct kernel stream with its ring mapped; NULL if the card has none to give. */
struct acl_kstream *acl_direct_new(struct acl_stream *s)
{
	struct acl_device *d = s->dev;
	struct acl_kstream *k;
	struct acl_direct *dir;
	uint64_t off, size;
	int ret = -ENOMEM;
	void *p;

	if (!d->direct_bindings)
		return NULL;
	k = calloc(1, sizeof(*k));
	dir = calloc(1, sizeof(*dir));
	if (!k || !dir)
		goto err_free;
	ret = drv_stream_create(d->fd, s->priority, DRM_NPU_STREAM_DIRECT, &k->id, &k->slot);
	if (ret)
		goto err_free;
	k->dir = dir;
	ret = drv_stream_map(d->fd, k->id, &off, &size);
	if (ret)
		goto err_destroy;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, d->fd, (off_t)off);
	if (p == MAP_FAILED) {
		ret = -errno;
		goto err_destroy;
	}
	dir->ctrl = p;
	dir->cmds = (struct drm_npu_direct_cmd *)((char *)p + 4096);
	dir->map_size = size;
	dir->entries = (uint32_t)((size - 4096) / sizeof(*dir->cmds));
	return k;

err_destroy:
	drv_stream_destroy(d->fd, k->id, true);
err_free:
	/* Expected when the card's rings are all taken. */
	ACL_LOGI("stream %u: no direct ring (%s); copies go through the driver",
		 s->obj.index, strerror(-ret));
	free(dir);
	free(k);
	return NULL;
}

void acl_direct_unmap(struct acl_kstream *k)
{
	if (k->dir && k->dir->ctrl)
		munmap(k->dir->ctrl, k->dir->map_size);
	if (k->dir)
		k->dir->ctrl = NULL;
}

/*
 * Gives a ring back for a new stream: another stream's direct ring with
 * nothing left to do (and no failure to report). True if one went. The
 * caller holds no stream's lock: the streams are only tried.
 */
bool acl_direct_reclaim(struct acl_device *d)
{
	struct acl_list *pos;
	bool done = false;

	acl_mutex_lock(&d->list_lock);
	for (pos = d->streams.next; pos != &d->streams && !done; pos = pos->next) {
		struct acl_stream *t = acl_container_of(pos, struct acl_stream, link);
		struct acl_kstream *k, *kk;

		if (t->dying || !acl_mutex_trylock(&t->lock))
			continue;
		k = atomic_load(&t->dst);
		kk = atomic_load(&t->kst);
		if (k && !acl_slot_err(d, k->slot) &&
		    acl_seq_reached(acl_slot_value(d, k->slot), atomic_load(&k->submitted))) {
			atomic_store(&t->dst, NULL);
			if (atomic_load(&t->last) == k)
				atomic_store(&t->last, kk);
			/* tickets may still name it: it stays, done, on the list */
			acl_kstream_retire(d, k);
			k->older = kk->older;
			kk->older = k;
			done = true;
		}
		acl_mutex_unlock(&t->lock);
	}
	acl_mutex_unlock(&d->list_lock);
	return done;
}

/* One operand of a copy or fill as a binding and offset; false if it has none. */
static bool direct_operand(struct acl_device *d, const struct drm_npu_cmd *c, bool dst,
			   struct drm_npu_direct_cmd *out)
{
	uint32_t host = dst ? DRM_NPU_CMD_DST_HOST : DRM_NPU_CMD_SRC_HOST;
	uint32_t user = dst ? DRM_NPU_CMD_DST_USER : DRM_NPU_CMD_SRC_USER;
	uint64_t addr = dst ? c->dst : c->src, off = addr;
	uint32_t handle = dst ? c->dst_handle : c->src_handle;

	if (c->flags & user)
		return false;
	if (!(c->flags & host) && !acl_devmem_binding(d, addr, c->size, &handle, &off))
		return false;
	if (handle >= d->direct_bindings)
		return false;
	if (dst) {
		out->dst_bind = handle;
		out->dst = off;
	} else {
		out->src_bind = handle;
		out->src = off;
	}
	return true;
}

/*
 * A command as the direct ring takes it: copies and fills of bound memory,
 * and an event's slot write (the driver fails the event's slot if the ring
 * stops before it, as it does for a queued job's).
 */
static bool direct_cmd(struct acl_device *d, const struct drm_npu_cmd *c,
		       struct drm_npu_direct_cmd *out)
{
	memset(out, 0, sizeof(*out));
	switch (c->op) {
	case DRM_NPU_OP_COPY:
		out->op = DRM_NPU_DOP_COPY;
		out->size = c->size;
		return direct_operand(d, c, true, out) && direct_operand(d, c, false, out);
	case DRM_NPU_OP_FILL:
		out->op = DRM_NPU_DOP_FILL;
		out->size = c->size;
		out->arg = (uint32_t)c->value;
		return direct_operand(d, c, true, out);
	case DRM_NPU_OP_SLOT_WRITE:
		out->op = DRM_NPU_DOP_SLOT_WRITE;
		out->dst_bind = c->slot;
		out->value = c->value;
		return !c->flags;
	default:
		return false;
	}
}

/*
 * Whether a batch is worth a direct ring of its own, were there none: it
 * moves bytes, and the direct ring takes all of it.
 */
bool acl_direct_eligible(struct acl_device *d, const struct drm_npu_cmd *cmds, size_t count)
{
	struct drm_npu_direct_cmd scratch;
	bool moves = false;
	size_t i;

	if (!d->direct_bindings)
		return false;
	for (i = 0; i < count; i++) {
		if (!direct_cmd(d, &cmds[i], &scratch))
			return false;
		moves |= scratch.op != DRM_NPU_DOP_SLOT_WRITE;
	}
	return moves;
}

/*
 * Queues cmds on the direct ring k, then a SLOT_WRITE of the next sequence
 * number: true if it did, false if they are not all copies and fills of
 * bound memory, there is no room, or the stream's other work is not done
 * yet (the direct ring cannot wait for it). Called with s->lock held.
 */
bool acl_direct_submit_locked(struct acl_stream *s, struct acl_kstream *k,
			      const struct drm_npu_cmd *cmds, size_t count, uint64_t *seq)
{
	struct acl_device *d = s->dev;
	struct acl_direct *dir = k->dir;
	struct acl_kstream *kk = atomic_load(&s->kst);
	uint32_t tail = dir->tail, mask = dir->entries - 1, head;
	size_t i;

	ACL_ASSERT_HELD(&s->lock);
	if (count + 1 > dir->entries / 2)
		return false;
	if (atomic_load(&s->last) != k &&
	    !acl_seq_reached(acl_slot_value(d, kk->slot), atomic_load(&kk->submitted)))
		return false;
	head = __atomic_load_n(&dir->ctrl->head, __ATOMIC_ACQUIRE);
	if (dir->entries - (tail - head) < count + 1)
		return false;
	/* Past the tail until it is published: the card does not look there. */
	for (i = 0; i < count; i++)
		if (!direct_cmd(d, &cmds[i], &dir->cmds[(tail + i) & mask]))
			return false;
	*seq = atomic_load(&k->submitted) + 1;
	dir->cmds[(tail + count) & mask] = (struct drm_npu_direct_cmd){
		.op = DRM_NPU_DOP_SLOT_WRITE, .dst_bind = k->slot, .value = *seq,
	};
	dir->tail = tail + (uint32_t)count + 1;
	/* The uapi's protocol: tail, a full barrier, then fetching. */
	__atomic_store_n(&dir->ctrl->tail, dir->tail, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&dir->ctrl->fetching, __ATOMIC_ACQUIRE))
		drv_stream_kick(d->fd, k->id);	/* a failed ring says so in its slot */
	atomic_store_explicit(&k->submitted, *seq, memory_order_release);
	atomic_store(&s->last, k);
	return true;
}

/*
 * Work for the kernel stream after work on the direct ring: the card holds
 * it until the direct ring's last batch is done.
 */
int acl_direct_order_locked(struct acl_stream *s, struct acl_kstream *kk)
{
	struct acl_kstream *k = atomic_load(&s->last);
	struct drm_npu_cmd wait = { .op = DRM_NPU_OP_SLOT_WAIT };
	uint64_t seq;

	ACL_ASSERT_HELD(&s->lock);
	if (k == kk || !k->dir)
		return 0;
	wait.slot = k->slot;
	wait.value = atomic_load(&k->submitted);
	if (acl_seq_reached(acl_slot_value(s->dev, k->slot), wait.value))
		return 0;
	return drv_submit(s->dev->fd, kk->id, &wait, 1, &seq);
}

void acl_direct_quiesce(struct acl_device *d)
{
	/* each direct ring is a ring of the card: no more than it has */
	struct pending { uint32_t slot; uint64_t seq; } *pending;
	unsigned int n = 0, i;
	struct acl_list *pos;

	pending = calloc(d->num_rings ? d->num_rings : 1, sizeof(*pending));
	if (!pending)
		return;	/* a free behind queued direct work then fails that stream */
	acl_mutex_lock(&d->list_lock);
	for (pos = d->streams.next; pos != &d->streams && n < d->num_rings; pos = pos->next) {
		struct acl_stream *s = acl_container_of(pos, struct acl_stream, link);
		struct acl_kstream *k = atomic_load(&s->dst);

		if (k && !acl_seq_reached(acl_slot_value(d, k->slot), atomic_load(&k->submitted)) &&
		    !acl_slot_err(d, k->slot))
			pending[n++] = (struct pending){ k->slot, atomic_load(&k->submitted) };
	}
	acl_mutex_unlock(&d->list_lock);
	/* bounded: a slot may change hands if its stream goes meanwhile */
	for (i = 0; i < n; i++)
		acl_wait_slot(d, pending[i].slot, pending[i].seq, 10000, ACL_SUCCESS);
	free(pending);
}

/* Rings this process's streams hold as direct rings: given back on demand. */
uint32_t acl_direct_rings_held(struct acl_device *d)
{
	struct acl_list *pos;
	uint32_t n = 0;

	acl_mutex_lock(&d->list_lock);
	for (pos = d->streams.next; pos != &d->streams; pos = pos->next) {
		struct acl_stream *t = acl_container_of(pos, struct acl_stream, link);

		n += !t->dying && atomic_load(&t->dst);
	}
	acl_mutex_unlock(&d->list_lock);
	return n;
}
