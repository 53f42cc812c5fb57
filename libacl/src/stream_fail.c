// SPDX-License-Identifier: MIT
/*
 * Failure: when the driver fails a ring (DMA error, hang, dead card), the
 * error is reported by the next synchronization (or by the submit itself).
 * In ACL_CONTINUE_ON_FAILURE mode (the default) the stream then gets a
 * fresh ring, where the tasks queued behind the failed one run
 * (stream_resume.c), and accepts work again; in ACL_STOP_ON_FAILURE mode every
 * later call on the stream fails until it is destroyed.
 */
#include "acl_internal.h"

/* No new ring can help: the card is dead, or a reset lost the device's file. */
static bool acl_slot_error_final(uint32_t e)
{
	return e == DRM_NPU_ERR_DEAD || e == DRM_NPU_ERR_RESET;
}

/*
 * The direct stream k of s has failed (s->lock held): the same verdicts
 * as for the kernel stream; in continue mode a new direct ring, or none.
 */
static aclError direct_failed_locked(struct acl_stream *s, struct acl_kstream *k, uint32_t e,
				     aclError code)
{
	struct acl_kstream *nk;

	ACL_ASSERT_HELD(&s->lock);
	if (atomic_load(&s->dst) != k || s->sticky_err)
		return code;
	if (s->failure_mode == ACL_STOP_ON_FAILURE || acl_slot_error_final(e)) {
		s->sticky_err = code;
		return code;
	}
	nk = acl_direct_new(s);
	acl_kstream_retire(s->dev, k);
	/* the old one stays for tickets that name it, on the kernel stream's list */
	k->older = atomic_load(&s->kst)->older;
	atomic_load(&s->kst)->older = k;
	atomic_store(&s->dst, nk);
	if (atomic_load(&s->last) == k)
		atomic_store(&s->last, atomic_load(&s->kst));
	ACL_LOGW("stream %u of device %d failed (%s); continuing on a new ring",
		 s->obj.index, s->dev->id, acl_slot_error_text(e));
	acl_journal_replay_locked(s, k);
	return code;
}

/*
 * The kernel stream k of s has failed (called with s->lock held). Returns
 * the error to report; in continue mode s gets a new kernel stream.
 */
aclError acl_stream_failed_locked(struct acl_stream *s, struct acl_kstream *k)
{
	struct acl_device *d = s->dev;
	struct acl_kstream *nk;
	aclError code;
	uint64_t v;
	uint32_t e;

	ACL_ASSERT_HELD(&s->lock);
	acl_kstream_state(d, k, &v, &e);
	code = e ? acl_slot_error(d, e) : ACL_ERROR_RT_INTERNAL_ERROR;
	if (!s->sticky_err && atomic_load(k->dir ? &s->dst : &s->kst) == k)
		acl_exception_note_locked(s, k, code);	/* its first handling */
	if (k->dir)
		return direct_failed_locked(s, k, e, code);
	if (atomic_load(&s->kst) != k || s->sticky_err)
		return code;	/* already handled */
	if (s->failure_mode == ACL_STOP_ON_FAILURE || acl_slot_error_final(e)) {
		s->sticky_err = code;
		return code;
	}
	if (acl_kstream_new(s, &nk)) {
		s->sticky_err = code;
		return code;
	}
	acl_kstream_retire(d, k);
	nk->older = k;
	atomic_store(&s->kst, nk);
	if (atomic_load(&s->last) == k)
		atomic_store(&s->last, nk);
	acl_cb_stream_failed(s);
	ACL_LOGW("stream %u of device %d failed (%s); continuing on a new ring",
		 s->obj.index, d->id, acl_slot_error_text(e));
	acl_journal_replay_locked(s, k);
	return code;
}

/*
 * k, a ring of s, failed before this submission (s->lock held): the next
 * synchronization reports it and the work goes on, unless the stream
 * stops here; then *code is the error to return.
 */
bool acl_stream_failed_before_locked(struct acl_stream *s, struct acl_kstream *k, aclError *code)
{
	ACL_ASSERT_HELD(&s->lock);
	*code = acl_stream_failed_locked(s, k);
	if (s->sticky_err)
		return true;
	if (!atomic_load(&s->pending_err))
		atomic_store(&s->pending_err, *code);
	return false;
}
