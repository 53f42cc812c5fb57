// SPDX-License-Identifier: MIT
/*
 * Kernel streams, each a hardware ring of the driver, and submission to a
 * stream: to its direct ring when that takes the work, else through the
 * driver's ring. Submission takes only the stream's own lock.
 */
#include <errno.h>
#include <stdlib.h>

#include "acl_internal.h"
#include "capture.h"
#include "prof.h"

/*
 * The state of k's slot. Retiring k frees the slot in the driver, which
 * may hand it out again at once (value 0, no error); so k is marked gone
 * first, with the state its slot was left in, and gone is checked after
 * reading the slot: while k is not gone, what was read was k's.
 */
void acl_kstream_state(struct acl_device *d, struct acl_kstream *k, uint64_t *value,
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
uint32_t acl_kstream_err(struct acl_device *d, struct acl_kstream *k)
{
	uint64_t v;
	uint32_t e;

	acl_kstream_state(d, k, &v, &e);
	return e;
}

aclError acl_kstream_new(struct acl_stream *s, struct acl_kstream **out)
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

/*
 * Destroys k's kernel stream (after a failure or an abort) while other
 * threads may still wait on it: they read its final state from k (see
 * acl_kstream_state). Work that completes while k is aborted counts as aborted.
 */
void acl_kstream_retire(struct acl_device *d, struct acl_kstream *k)
{
	k->final_value = acl_slot_value(d, k->slot);
	k->final_err = acl_slot_err(d, k->slot);
	if (!k->final_err)
		k->final_err = DRM_NPU_ERR_ABORTED;
	atomic_store(&k->gone, true);
	drv_stream_destroy(d->fd, k->id, true);
	acl_direct_unmap(k);
}

/*
 * Submits to s (s->lock held); journal: whether the work may go again to
 * a new ring should this one fail (stream_resume.c).
 */
static aclError submit_locked(struct acl_stream *s, const struct drm_npu_cmd *cmds, size_t count,
			      struct acl_ticket *done, bool direct_ok, bool journal)
{
	struct acl_device *d = s->dev;
	struct acl_kstream *k, *dk;
	uint64_t seq = 0, first = 0;
	size_t off = 0;
	bool retried = false;
	aclError code;
	int ret;

	ACL_ASSERT_HELD(&s->lock);
	if (s->sticky_err) {
		code = s->sticky_err;
		return ACL_FAIL(code, "stream %u has failed and accepts no work (%s)",
				s->obj.index, acl_stream_refusal_text(s, atomic_load(&s->kst)));
	}
	dk = atomic_load(&s->dst);
	if (direct_ok && !dk && !s->direct_tried && s->ctx && acl_direct_eligible(d, cmds, count)) {
		s->direct_tried = true;
		if (acl_direct_ring_to_spare(d)) {
			dk = acl_direct_new(s);
			atomic_store(&s->dst, dk);
		}
	}
	if (dk && acl_slot_err(d, dk->slot)) {
		k = dk;
		if (acl_stream_failed_before_locked(s, k, &code))
			goto out_failed;
		dk = atomic_load(&s->dst);
	}
	if (dk && direct_ok && acl_direct_submit_locked(s, dk, cmds, count, &seq)) {
		acl_task_note_locked(s, dk, seq);
		if (journal)
			acl_journal_note_locked(s, dk, cmds, count, seq, seq);
		if (done)
			*done = (struct acl_ticket){ dk, seq };
		return ACL_SUCCESS;
	}
	k = atomic_load(&s->kst);
	ret = acl_direct_order_locked(s, k);
	while (!ret && off < count) {
		uint32_t n = count - off > DRM_NPU_MAX_BATCH ? DRM_NPU_MAX_BATCH : (uint32_t)(count - off);

		ret = drv_submit(d->fd, k->id, cmds + off, n, &seq);
		if (ret == -EIO && !retried) {
			if (acl_stream_failed_before_locked(s, k, &code))
				goto out_failed;
			k = atomic_load(&s->kst);
			retried = true;
			first = 0;	/* what went to the old ring went with it */
			ret = acl_direct_order_locked(s, k);
			continue;
		}
		if (ret)
			break;
		if (!first)
			first = seq;
		atomic_store_explicit(&k->submitted, seq, memory_order_release);
		atomic_store(&s->last, k);
		off += n;
	}
	if (!ret)
		acl_task_note_locked(s, k, seq);
	if (!ret && journal && first)
		acl_journal_note_locked(s, k, cmds, count, first, seq);
	if (ret)
		return ACL_DRV_FAIL(d, ret, "submitting to stream %u", s->obj.index);
	if (done)
		*done = (struct acl_ticket){ k, seq };
	return ACL_SUCCESS;

out_failed:
	return ACL_FAIL(code, "stream %u failed: %s", s->obj.index,
			acl_slot_error_text(acl_kstream_err(d, k)));
}

/* Host functions' batches (direct_ok false) are not journaled: their queue goes with the ring. */
static aclError stream_submit(struct acl_stream *s, const struct drm_npu_cmd *cmds, size_t count,
			      struct acl_ticket *done, bool direct_ok)
{
	aclError code;

	acl_mutex_lock(&s->lock);
	code = submit_locked(s, cmds, count, done, direct_ok, direct_ok);
	acl_mutex_unlock(&s->lock);
	return code;
}

aclError acl_stream_submit_locked(struct acl_stream *s, const struct drm_npu_cmd *cmds,
				  size_t count, struct acl_ticket *done)
{
	return submit_locked(s, cmds, count, done, true, true);
}

aclError acl_stream_submit(struct acl_stream *s, struct drm_npu_cmd *cmds, size_t count,
			   struct acl_ticket *done)
{
	aclError err;

	if (acl_capturing(s) && acl_capture_cmds(s, cmds, count, done, &err))
		return err;
	if (acl_prof_wants())
		err = acl_prof_submit(s, cmds, count, done);
	else
		err = stream_submit(s, cmds, count, done, true);
	acl_exception_deliver();
	return err;
}

aclError acl_stream_submit_unprofiled(struct acl_stream *s, struct drm_npu_cmd *cmds, size_t count,
				      struct acl_ticket *done)
{
	aclError err = stream_submit(s, cmds, count, done, true);

	acl_exception_deliver();
	return err;
}

aclError acl_stream_submit_kernel(struct acl_stream *s, struct drm_npu_cmd *cmds, size_t count,
				  struct acl_ticket *done)
{
	aclError err;

	if (acl_capturing(s) && acl_capture_cmds(s, cmds, count, done, &err))
		return err;
	err = stream_submit(s, cmds, count, done, false);
	acl_exception_deliver();
	return err;
}
