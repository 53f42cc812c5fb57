// SPDX-License-Identifier: MIT
/*
 * Streams. Each stream owns one hardware ring (a kernel stream); its fence
 * slot holds the sequence number of the last completed submission, so
 * "is the stream done" is a load and "wait for it" is one ioctl after a
 * short spin. Submission takes only the stream's own lock.
 *
 * Failure: when the driver fails a ring (DMA error, hang, dead card), the
 * error is reported by the next synchronization (or by the submit itself).
 * In ACL_CONTINUE_ON_FAILURE mode (the default) the stream then gets a
 * fresh ring and accepts work again; in ACL_STOP_ON_FAILURE mode every
 * later call on the stream fails until it is destroyed.
 *
 * A stream also gets a direct kernel stream, at its first copy or fill
 * between device memory and aclrtMallocHost memory (at once with
 * ACL_STREAM_FAST_LAUNCH): a ring that libacl writes itself and the card
 * checks, which takes such copies, and the slot writes that record events,
 * without a system call. Work goes there
 * when the stream's other work is done (a load tells), and other work
 * waits for it on the card (a SLOT_WAIT before the batch), so the stream
 * keeps its order. Direct rings are extra: a stream takes one unasked only
 * while more than a quarter of the card's rings are free, and when the card
 * has no ring left for a new stream, a stream of this process whose direct
 * ring is idle gives it up. ACL_DIRECT_RINGS=0 in the environment turns
 * them off.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "acl_internal.h"

/*
 * A wait spins on the mapped fence slot this long before it sleeps in the
 * kernel (DRM_IOCTL_NPU_WAIT, which asks the card for an interrupt): about
 * what a sleep and its wake-up cost, so a wait for work that is nearly
 * done takes no system call, and one for long work wastes at most that.
 */
#define SPIN_NS 50000
#define WAIT_SLICE_NS 250000000LL	/* longest single sleep in the kernel */

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/*
 * The state of k's slot. Retiring k frees the slot in the driver, which
 * may hand it out again at once (value 0, no error); so k is marked gone
 * first, with the state its slot was left in, and gone is checked after
 * reading the slot: while k is not gone, what was read was k's.
 */
static void kstream_state(struct acl_device *d, struct acl_kstream *k, uint64_t *value,
			  uint32_t *err)
{
	*value = acl_slot_value(d, k->slot);
	*err = acl_slot_err(d, k->slot);
	if (atomic_load(&k->gone)) {
		*value = k->final_value;
		*err = k->final_err;
	}
}

/* The error of k's slot, for messages. */
static uint32_t kstream_err(struct acl_device *d, struct acl_kstream *k)
{
	uint64_t v;
	uint32_t e;

	kstream_state(d, k, &v, &e);
	return e;
}

/* A slot's state: through k when it is a kernel stream's slot. */
static void slot_state(struct acl_device *d, uint32_t slot, struct acl_kstream *k,
		       uint64_t *value, uint32_t *err)
{
	if (k) {
		kstream_state(d, k, value, err);
		return;
	}
	*value = acl_slot_value(d, slot);
	*err = acl_slot_err(d, slot);
}

/*
 * Waits for a slot to reach value, spinning briefly first. Every outcome
 * is judged by the slot's state, not by what the driver's wait returned:
 * once k is gone the driver may have waited on a slot that is no longer
 * k's, or not know the slot at all.
 */
static aclError wait_slot(struct acl_device *d, uint32_t slot, struct acl_kstream *k,
			  uint64_t value, int32_t timeout_ms, aclError timeout_code)
{
	int64_t spin_end = 0, deadline;
	uint64_t v;
	uint32_t e;
	int ret;

	for (;;) {
		slot_state(d, slot, k, &v, &e);
		if (acl_seq_reached(v, value))
			return ACL_SUCCESS;
		if (e)
			goto slot_error;
		if (!spin_end)
			spin_end = acl_now_ns() + SPIN_NS;
		else if (acl_now_ns() > spin_end)
			break;
		for (int i = 0; i < 64; i++)
			cpu_relax();
	}
	if (timeout_ms == 0)
		return timeout_code;
	deadline = timeout_ms < 0 ? INT64_MAX : acl_now_ns() + (int64_t)timeout_ms * 1000000;
	for (;;) {
		/*
		 * Sleep in slices: a lost interrupt (or a wait on a slot that
		 * changed hands) costs at most a slice, since the slot itself
		 * is checked again after each.
		 */
		int64_t now = acl_now_ns();
		int64_t until = deadline - now > WAIT_SLICE_NS ? now + WAIT_SLICE_NS : deadline;

		ret = drv_wait(d->fd, slot, value, until);
		slot_state(d, slot, k, &v, &e);
		if (acl_seq_reached(v, value))
			return ACL_SUCCESS;
		if (e)
			goto slot_error;
		if (!ret)
			return ACL_SUCCESS;	/* an event slot, re-recorded meanwhile */
		if (ret == -ETIME) {
			if (acl_now_ns() >= deadline)
				return timeout_code;
			continue;
		}
		if (ret != -EIO)	/* -EIO: the error was cleared meanwhile */
			return acl_drv_error(d, ret);
	}
slot_error:
	return acl_slot_error(d, e);
}

aclError acl_wait_slot(struct acl_device *d, uint32_t slot, uint64_t value,
		       int32_t timeout_ms, aclError timeout_code)
{
	return wait_slot(d, slot, NULL, value, timeout_ms, timeout_code);
}

static aclError kstream_new(struct acl_stream *s, struct acl_kstream **out)
{
	struct acl_device *d = s->dev;
	struct acl_kstream *k = calloc(1, sizeof(*k));
	int ret;

	if (!k)
		return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory");
	ret = drv_stream_create(d->fd, s->priority, 0, &k->id, &k->slot);
	if (ret) {
		free(k);
		return ACL_DRV_FAIL(d, ret, "creating a stream (%u rings)", d->num_rings);
	}
	*out = k;
	return ACL_SUCCESS;
}

bool acl_direct_rings_wanted(void)
{
	const char *v = getenv("ACL_DIRECT_RINGS");

	return !v || strcmp(v, "0");
}

/*
 * Whether a stream that did not ask for one (ACL_STREAM_FAST_LAUNCH) may
 * take a direct ring: while more than a quarter of the card's rings are
 * free. Other processes share the card, and this process cannot give back
 * their streams' rings as it gives back its own (direct_reclaim()).
 */
static bool direct_ring_to_spare(struct acl_device *d)
{
	uint64_t free_rings;

	if (drv_get_param(d->fd, DRM_NPU_PARAM_FREE_RINGS, &free_rings))
		return false;
	return free_rings > d->num_rings / 4;
}

/* A direct kernel stream with its ring mapped; NULL if the card has none to give. */
static struct acl_kstream *direct_new(struct acl_stream *s)
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

static void direct_unmap(struct acl_kstream *k)
{
	if (k->dir && k->dir->ctrl)
		munmap(k->dir->ctrl, k->dir->map_size);
	if (k->dir)
		k->dir->ctrl = NULL;
}

/*
 * Destroys k's kernel stream (after a failure or an abort) while other
 * threads may still wait on it: they read its final state from k (see
 * kstream_state). Work that completes while k is aborted counts as aborted.
 */
static void kstream_retire(struct acl_device *d, struct acl_kstream *k)
{
	k->final_value = acl_slot_value(d, k->slot);
	k->final_err = acl_slot_err(d, k->slot);
	if (!k->final_err)
		k->final_err = DRM_NPU_ERR_ABORTED;
	atomic_store(&k->gone, true);
	drv_stream_destroy(d->fd, k->id, true);
	direct_unmap(k);
}

/*
 * Gives a ring back for a new stream: another stream's direct ring with
 * nothing left to do (and no failure to report). True if one went. The
 * caller holds no stream's lock: the streams are only tried.
 */
static bool direct_reclaim(struct acl_device *d)
{
	struct acl_list *pos;
	bool done = false;

	pthread_mutex_lock(&d->list_lock);
	for (pos = d->streams.next; pos != &d->streams && !done; pos = pos->next) {
		struct acl_stream *t = acl_container_of(pos, struct acl_stream, link);
		struct acl_kstream *k, *kk;

		if (t->dying || pthread_mutex_trylock(&t->lock))
			continue;
		k = atomic_load(&t->dst);
		kk = atomic_load(&t->kst);
		if (k && !acl_slot_err(d, k->slot) &&
		    acl_seq_reached(acl_slot_value(d, k->slot), atomic_load(&k->submitted))) {
			atomic_store(&t->dst, NULL);
			if (atomic_load(&t->last) == k)
				atomic_store(&t->last, kk);
			/* tickets may still name it: it stays, done, on the list */
			kstream_retire(d, k);
			k->older = kk->older;
			kk->older = k;
			done = true;
		}
		pthread_mutex_unlock(&t->lock);
	}
	pthread_mutex_unlock(&d->list_lock);
	return done;
}

struct acl_stream *acl_stream_new(struct acl_device *d, struct acl_context *ctx,
				  uint32_t priority, uint32_t flags, aclError *err)
{
	struct acl_stream *s = acl_obj_alloc(ACL_OBJ_STREAM);
	struct acl_kstream *k;

	if (!s) {
		*err = ACL_FAIL(ACL_ERROR_RT_NO_STREAM_RESOURCE, "too many streams");
		return NULL;
	}
	s->dev = d;
	s->ctx = ctx;
	s->priority = priority;
	s->flags = flags;
	s->failure_mode = ACL_CONTINUE_ON_FAILURE;
	pthread_mutex_init(&s->lock, NULL);
	acl_list_init(&s->link);
	*err = kstream_new(s, &k);
	while (*err == ACL_ERROR_RT_NO_STREAM_RESOURCE && direct_reclaim(d))
		*err = kstream_new(s, &k);
	if (*err) {
		acl_obj_free(s);
		return NULL;
	}
	atomic_store(&s->kst, k);
	atomic_store(&s->last, k);
	if (flags & ACL_STREAM_FAST_LAUNCH) {
		s->direct_tried = true;
		atomic_store(&s->dst, direct_new(s));
	}
	pthread_mutex_lock(&d->list_lock);
	acl_list_add(&d->streams, &s->link);
	pthread_mutex_unlock(&d->list_lock);
	return s;
}

/*
 * The direct stream k of s has failed (s->lock held): the same verdicts
 * as for the kernel stream; in continue mode a new direct ring, or none.
 */
static aclError direct_failed_locked(struct acl_stream *s, struct acl_kstream *k, uint32_t e,
				     aclError code)
{
	struct acl_kstream *nk;

	if (atomic_load(&s->dst) != k || s->sticky_err)
		return code;
	if (s->failure_mode == ACL_STOP_ON_FAILURE || e == DRM_NPU_ERR_DEAD) {
		s->sticky_err = code;
		return code;
	}
	nk = direct_new(s);
	kstream_retire(s->dev, k);
	/* the old one stays for tickets that name it, on the kernel stream's list */
	k->older = atomic_load(&s->kst)->older;
	atomic_load(&s->kst)->older = k;
	atomic_store(&s->dst, nk);
	if (atomic_load(&s->last) == k)
		atomic_store(&s->last, atomic_load(&s->kst));
	ACL_LOGW("stream %u of device %d failed (%s); continuing on a new ring",
		 s->obj.index, s->dev->id, acl_slot_error_text(e));
	return code;
}

/*
 * The kernel stream k of s has failed (called with s->lock held). Returns
 * the error to report; in continue mode s gets a new kernel stream.
 */
static aclError stream_failed_locked(struct acl_stream *s, struct acl_kstream *k)
{
	struct acl_device *d = s->dev;
	struct acl_kstream *nk;
	aclError code;
	uint64_t v;
	uint32_t e;

	kstream_state(d, k, &v, &e);
	code = e ? acl_slot_error(d, e) : ACL_ERROR_RT_INTERNAL_ERROR;
	if (k->dir)
		return direct_failed_locked(s, k, e, code);
	if (atomic_load(&s->kst) != k || s->sticky_err)
		return code;	/* already handled */
	if (s->failure_mode == ACL_STOP_ON_FAILURE || e == DRM_NPU_ERR_DEAD) {
		s->sticky_err = code;
		return code;
	}
	if (kstream_new(s, &nk)) {
		s->sticky_err = code;
		return code;
	}
	kstream_retire(d, k);
	nk->older = k;
	atomic_store(&s->kst, nk);
	if (atomic_load(&s->last) == k)
		atomic_store(&s->last, nk);
	acl_cb_stream_failed(s);
	ACL_LOGW("stream %u of device %d failed (%s); continuing on a new ring",
		 s->obj.index, d->id, acl_slot_error_text(e));
	return code;
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
static bool direct_eligible(struct acl_device *d, const struct drm_npu_cmd *cmds, size_t count)
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
static bool direct_submit_locked(struct acl_stream *s, struct acl_kstream *k,
				 const struct drm_npu_cmd *cmds, size_t count, uint64_t *seq)
{
	struct acl_device *d = s->dev;
	struct acl_direct *dir = k->dir;
	struct acl_kstream *kk = atomic_load(&s->kst);
	uint32_t tail = dir->tail, mask = dir->entries - 1, head;
	size_t i;

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
static int direct_order_locked(struct acl_stream *s, struct acl_kstream *kk)
{
	struct acl_kstream *k = atomic_load(&s->last);
	struct drm_npu_cmd wait = { .op = DRM_NPU_OP_SLOT_WAIT };
	uint64_t seq;

	if (k == kk || !k->dir)
		return 0;
	wait.slot = k->slot;
	wait.value = atomic_load(&k->submitted);
	if (acl_seq_reached(acl_slot_value(s->dev, k->slot), wait.value))
		return 0;
	return drv_submit(s->dev->fd, kk->id, &wait, 1, &seq);
}

/*
 * k, a ring of s, failed before this submission (s->lock held): the next
 * synchronization reports it and the work goes on, unless the stream
 * stops here; then *code is the error to return.
 */
static bool failed_before_locked(struct acl_stream *s, struct acl_kstream *k, aclError *code)
{
	*code = stream_failed_locked(s, k);
	if (s->sticky_err)
		return true;
	if (!atomic_load(&s->pending_err))
		atomic_store(&s->pending_err, *code);
	return false;
}

static aclError stream_submit(struct acl_stream *s, struct drm_npu_cmd *cmds, size_t count,
			      struct acl_ticket *done, bool direct_ok)
{
	struct acl_device *d = s->dev;
	struct acl_kstream *k, *dk;
	uint64_t seq = 0;
	size_t off = 0;
	bool retried = false;
	aclError code;
	int ret;

	pthread_mutex_lock(&s->lock);
	if (s->sticky_err) {
		code = s->sticky_err;
		pthread_mutex_unlock(&s->lock);
		return ACL_FAIL(code, "stream %u has failed and accepts no work (%s)",
				s->obj.index, acl_slot_error_text(kstream_err(d, atomic_load(&s->kst))));
	}
	dk = atomic_load(&s->dst);
	if (direct_ok && !dk && !s->direct_tried && s->ctx && direct_eligible(d, cmds, count)) {
		s->direct_tried = true;
		if (direct_ring_to_spare(d)) {
			dk = direct_new(s);
			atomic_store(&s->dst, dk);
		}
	}
	if (dk && acl_slot_err(d, dk->slot)) {
		k = dk;
		if (failed_before_locked(s, k, &code))
			goto out_failed;
		dk = atomic_load(&s->dst);
	}
	if (dk && direct_ok && direct_submit_locked(s, dk, cmds, count, &seq)) {
		pthread_mutex_unlock(&s->lock);
		if (done)
			*done = (struct acl_ticket){ dk, seq };
		return ACL_SUCCESS;
	}
	k = atomic_load(&s->kst);
	ret = direct_order_locked(s, k);
	while (!ret && off < count) {
		uint32_t n = count - off > DRM_NPU_MAX_BATCH ? DRM_NPU_MAX_BATCH : (uint32_t)(count - off);

		ret = drv_submit(d->fd, k->id, cmds + off, n, &seq);
		if (ret == -EIO && !retried) {
			if (failed_before_locked(s, k, &code))
				goto out_failed;
			k = atomic_load(&s->kst);
			retried = true;
			ret = direct_order_locked(s, k);
			continue;
		}
		if (ret)
			break;
		atomic_store_explicit(&k->submitted, seq, memory_order_release);
		atomic_store(&s->last, k);
		off += n;
	}
	pthread_mutex_unlock(&s->lock);
	if (ret)
		return ACL_DRV_FAIL(d, ret, "submitting to stream %u", s->obj.index);
	if (done)
		*done = (struct acl_ticket){ k, seq };
	return ACL_SUCCESS;

out_failed:
	pthread_mutex_unlock(&s->lock);
	return ACL_FAIL(code, "stream %u failed: %s", s->obj.index,
			acl_slot_error_text(kstream_err(d, k)));
}

aclError acl_stream_submit(struct acl_stream *s, struct drm_npu_cmd *cmds, size_t count,
			   struct acl_ticket *done)
{
	return stream_submit(s, cmds, count, done, true);
}

aclError acl_stream_submit_kernel(struct acl_stream *s, struct drm_npu_cmd *cmds, size_t count,
				  struct acl_ticket *done)
{
	return stream_submit(s, cmds, count, done, false);
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
	pthread_mutex_lock(&d->list_lock);
	for (pos = d->streams.next; pos != &d->streams && n < d->num_rings; pos = pos->next) {
		struct acl_stream *s = acl_container_of(pos, struct acl_stream, link);
		struct acl_kstream *k = atomic_load(&s->dst);

		if (k && !acl_seq_reached(acl_slot_value(d, k->slot), atomic_load(&k->submitted)) &&
		    !acl_slot_err(d, k->slot))
			pending[n++] = (struct pending){ k->slot, atomic_load(&k->submitted) };
	}
	pthread_mutex_unlock(&d->list_lock);
	/* bounded: a slot may change hands if its stream goes meanwhile */
	for (i = 0; i < n; i++)
		acl_wait_slot(d, pending[i].slot, pending[i].seq, 10000, ACL_SUCCESS);
	free(pending);
}

/* What the stream has been given so far: the last path it went by waited for the other. */
static struct acl_ticket last_ticket(struct acl_stream *s)
{
	struct acl_kstream *k = atomic_load(&s->last);

	return (struct acl_ticket){ k, atomic_load_explicit(&k->submitted, memory_order_acquire) };
}

/* Whether the ticket's work is done; *err: the slot's error if not. */
static bool ticket_done(struct acl_stream *s, const struct acl_ticket *t, uint32_t *err)
{
	uint64_t v;

	kstream_state(s->dev, t->k, &v, err);
	return acl_seq_reached(v, t->seq);
}

/*
 * A failed wait on the ticket's kernel stream hands that stream to the
 * failure handling, which knows whether it was replaced meanwhile.
 */
aclError acl_stream_wait(struct acl_stream *s, const struct acl_ticket *t, int32_t timeout_ms)
{
	struct acl_kstream *k = t->k;
	aclError code, failed;
	uint32_t e;

	code = wait_slot(s->dev, k->slot, k, t->seq, timeout_ms, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
	if (!code)
		return ACL_SUCCESS;
	if (code == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT)
		return ACL_FAIL(code, "stream %u did not complete within %d ms", s->obj.index,
				timeout_ms);
	e = kstream_err(s->dev, k);
	if (!e && code != ACL_ERROR_RT_LOST_HEARTBEAT)
		return ACL_FAIL(code, "waiting for stream %u failed", s->obj.index);
	pthread_mutex_lock(&s->lock);
	failed = stream_failed_locked(s, k);
	pthread_mutex_unlock(&s->lock);
	if (code == ACL_ERROR_RT_LOST_HEARTBEAT)
		return ACL_FAIL(code, "device %d is lost: %s", s->dev->id,
				acl_slot_error_text(DRM_NPU_ERR_DEAD));
	/* This failure is reported now, not again by the next sync. */
	atomic_store(&s->pending_err, 0);
	return ACL_FAIL(failed, "stream %u of device %d failed: %s", s->obj.index, s->dev->id,
			acl_slot_error_text(e));
}

aclError acl_stream_sync(struct acl_stream *s, int32_t timeout_ms)
{
	struct acl_ticket t = last_ticket(s);
	aclError code, pending;

	if (s->sticky_err)
		return ACL_FAIL(s->sticky_err, "stream %u has failed: %s", s->obj.index,
				acl_slot_error_text(kstream_err(s->dev, t.k)));
	code = acl_stream_wait(s, &t, timeout_ms);
	if (code)
		return code;
	pending = atomic_exchange(&s->pending_err, 0);
	if (pending)
		return ACL_FAIL(pending, "an earlier task of stream %u failed; the stream "
				"continues on a new ring", s->obj.index);
	return ACL_SUCCESS;
}

void acl_stream_drain(struct acl_stream *s)
{
	/* A blocking callback nobody will serve would stall us forever. */
	acl_cb_release_unserved(s);
	if (!s->sticky_err)
		acl_stream_sync(s, -1);
}

/* Marks s as being freed; false if another thread got there first. */
static bool claim(struct acl_stream *s)
{
	struct acl_device *d = s->dev;
	bool mine;

	pthread_mutex_lock(&d->list_lock);
	mine = !s->dying;
	s->dying = true;
	pthread_mutex_unlock(&d->list_lock);
	return mine;
}

/* Holds no lock while it waits for the stream and for a running callback. */
aclError acl_stream_free(struct acl_stream *s, bool wait)
{
	struct acl_device *d = s->dev;
	struct acl_kstream *k, *older;

	if (!claim(s))
		return ACL_SUCCESS;
	if (wait)
		acl_stream_drain(s);
	acl_cb_stream_gone(s);
	pthread_mutex_lock(&d->list_lock);
	acl_list_del(&s->link);
	pthread_mutex_unlock(&d->list_lock);
	pthread_mutex_lock(&s->lock);
	k = atomic_load(&s->dst);
	if (k) {
		if (d->fd >= 0)
			drv_stream_destroy(d->fd, k->id, true);
		direct_unmap(k);
		free(k->dir);
		free(k);
		atomic_store(&s->dst, NULL);
	}
	k = atomic_load(&s->kst);
	if (d->fd >= 0)
		drv_stream_destroy(d->fd, k->id, !wait || s->sticky_err);
	for (; k; k = older) {
		older = k->older;
		free(k->dir);
		free(k);
	}
	atomic_store(&s->kst, NULL);
	pthread_mutex_unlock(&s->lock);
	acl_obj_free(s);
	return ACL_SUCCESS;
}

struct acl_stream *acl_stream_resolve(aclrtStream handle, aclError *err)
{
	struct acl_context *c;
	struct acl_stream *s;

	if (!handle) {
		c = acl_current_ctx();
		if (!c) {
			*err = ACL_ERROR_RT_CONTEXT_NULL;
			return NULL;
		}
		return c->default_stream;
	}
	s = acl_obj_lookup(ACL_OBJ_STREAM, handle);
	if (!s || !s->ctx) {
		*err = ACL_FAIL(ACL_ERROR_INVALID_PARAM, "stream %p is not a live stream", handle);
		return NULL;
	}
	return s;
}

/* ---- public API -------------------------------------------------------- */

#define STREAM_FLAGS (ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC | ACL_STREAM_PERSISTENT | \
		      ACL_STREAM_HUGE | ACL_STREAM_CPU_SCHEDULE | ACL_STREAM_DEVICE_USE_ONLY)

ACL_EXPORT aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority,
						uint32_t flag)
{
	struct acl_context *c;
	struct acl_stream *s;
	aclError err = ACL_SUCCESS;

	ACL_CHECK_NULL(stream);
	if (priority > DRM_NPU_PRIORITY_LOWEST)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "priority %u is outside 0..%d", priority,
				DRM_NPU_PRIORITY_LOWEST);
	if (flag & ~STREAM_FLAGS)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown stream flags %#x", flag);
	c = acl_current_ctx();
	if (!c)
		return ACL_ERROR_RT_CONTEXT_NULL;
	s = acl_stream_new(c->dev, c, priority, flag, &err);
	if (!s)
		return err;
	*stream = acl_obj_handle(s);
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtCreateStream(aclrtStream *stream)
{
	return aclrtCreateStreamWithConfig(stream, DRM_NPU_PRIORITY_HIGHEST, 0);
}

static aclError destroy_stream(aclrtStream stream, bool wait)
{
	struct acl_stream *s;
	aclError err = ACL_SUCCESS;

	if (!stream)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "the default stream cannot be destroyed");
	s = acl_stream_resolve(stream, &err);
	if (!s)
		return err;
	if (s->is_default)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "the default stream cannot be destroyed");
	return acl_stream_free(s, wait);
}

ACL_EXPORT aclError aclrtDestroyStream(aclrtStream stream)
{
	return destroy_stream(stream, true);
}

ACL_EXPORT aclError aclrtDestroyStreamForce(aclrtStream stream)
{
	return destroy_stream(stream, false);
}

ACL_EXPORT aclError aclrtSynchronizeStream(aclrtStream stream)
{
	struct acl_stream *s;
	aclError err = ACL_SUCCESS;

	s = acl_stream_resolve(stream, &err);
	if (!s)
		return err;
	return acl_stream_sync(s, -1);
}

ACL_EXPORT aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout)
{
	struct acl_stream *s;
	aclError err = ACL_SUCCESS;

	if (timeout < -1)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "timeout %d is invalid (-1 or >= 0)", timeout);
	s = acl_stream_resolve(stream, &err);
	if (!s)
		return err;
	return acl_stream_sync(s, timeout);
}

/* The stream of a call that reports through out (checked first). */
static struct acl_stream *stream_for(aclrtStream stream, const void *out, aclError *err)
{
	if (!out) {
		*err = ACL_FAIL(ACL_ERROR_INVALID_PARAM, "the output pointer is NULL");
		return NULL;
	}
	return acl_stream_resolve(stream, err);
}

/* Loads only, like an event query: no lock and no system call on success. */
ACL_EXPORT aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status)
{
	aclError err = ACL_SUCCESS;
	struct acl_stream *s = stream_for(stream, status, &err);
	struct acl_ticket t;
	uint32_t e;
	bool done;

	if (!s)
		return err;
	t = last_ticket(s);
	done = ticket_done(s, &t, &e);
	if (!done && e) {
		err = acl_stream_wait(s, &t, 0);	/* reports the failure */
		if (err)
			return err;
		done = true;
	}
	*status = done ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtStreamGetPriority(aclrtStream stream, uint32_t *priority)
{
	aclError err = ACL_SUCCESS;
	struct acl_stream *s = stream_for(stream, priority, &err);

	if (s)
		*priority = s->priority;
	return err;
}

ACL_EXPORT aclError aclrtStreamGetFlags(aclrtStream stream, uint32_t *flags)
{
	aclError err = ACL_SUCCESS;
	struct acl_stream *s = stream_for(stream, flags, &err);

	if (s)
		*flags = s->flags;
	return err;
}

ACL_EXPORT aclError aclrtStreamGetId(aclrtStream stream, int32_t *streamId)
{
	aclError err = ACL_SUCCESS;
	struct acl_stream *s = stream_for(stream, streamId, &err);

	if (s)
		*streamId = (int32_t)s->obj.index;
	return err;
}

/* Rings this process's streams hold as direct rings: given back on demand. */
static uint32_t direct_rings_held(struct acl_device *d)
{
	struct acl_list *pos;
	uint32_t n = 0;

	pthread_mutex_lock(&d->list_lock);
	for (pos = d->streams.next; pos != &d->streams; pos = pos->next) {
		struct acl_stream *t = acl_container_of(pos, struct acl_stream, link);

		n += !t->dying && atomic_load(&t->dst);
	}
	pthread_mutex_unlock(&d->list_lock);
	return n;
}

ACL_EXPORT aclError aclrtGetStreamAvailableNum(uint32_t *streamCount)
{
	struct acl_context *c;
	uint64_t v;
	aclError err;

	ACL_CHECK_NULL(streamCount);
	err = acl_current_dev_param(__func__, DRM_NPU_PARAM_FREE_RINGS, &v);
	if (err)
		return err;
	c = acl_current_ctx();
	*streamCount = (uint32_t)v + direct_rings_held(c->dev);
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode)
{
	struct acl_stream *s;
	aclError err = ACL_SUCCESS;

	if (mode != ACL_CONTINUE_ON_FAILURE && mode != ACL_STOP_ON_FAILURE)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown failure mode %llu",
				(unsigned long long)mode);
	s = acl_stream_resolve(stream, &err);
	if (!s)
		return err;
	pthread_mutex_lock(&s->lock);
	s->failure_mode = mode;
	pthread_mutex_unlock(&s->lock);
	return ACL_SUCCESS;
}

/* Drops the stream's queued work: its ring is stopped and replaced. */
ACL_EXPORT aclError aclrtStreamAbort(aclrtStream stream)
{
	struct acl_kstream *k, *nk;
	struct acl_stream *s;
	aclError err = ACL_SUCCESS;

	if (!stream)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "stream must not be NULL");
	s = acl_stream_resolve(stream, &err);
	if (!s)
		return err;
	pthread_mutex_lock(&s->lock);
	k = atomic_load(&s->kst);
	err = kstream_new(s, &nk);
	if (!err) {
		struct acl_kstream *dk = atomic_load(&s->dst);

		kstream_retire(s->dev, k);
		nk->older = k;
		if (dk) {
			kstream_retire(s->dev, dk);
			dk->older = k->older;
			k->older = dk;
			atomic_store(&s->dst, direct_new(s));
		}
		atomic_store(&s->kst, nk);
		atomic_store(&s->last, nk);
		s->sticky_err = 0;
		atomic_store(&s->pending_err, 0);
		acl_cb_stream_failed(s);
	}
	pthread_mutex_unlock(&s->lock);
	return err;
}
