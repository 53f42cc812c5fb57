// SPDX-License-Identifier: MIT
/*
 * Waiting for a stream's work: a fence slot holds the sequence number of
 * the last completed submission, so "is it done" is a load and "wait for
 * it" is one ioctl after a short spin.
 */
#include <errno.h>
#include <stdint.h>

#include "peer.h"
#include "vmm.h"

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

/* A slot's state: through k when it is a kernel stream's slot. */
static void slot_state(struct acl_device *d, uint32_t slot, struct acl_kstream *k,
		       uint64_t *value, uint32_t *err)
{
	if (k) {
		acl_kstream_state(d, k, value, err);
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
			/* a wait for another card's event that will never come */
			acl_peer_signal_check(d);
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

/* What the stream has been given so far: the last path it went by waited for the other. */
struct acl_ticket acl_stream_last_ticket(struct acl_stream *s)
{
	struct acl_kstream *k = atomic_load(&s->last);

	return (struct acl_ticket){ k, atomic_load_explicit(&k->submitted, memory_order_acquire) };
}

/* Whether the ticket's work is done; *err: the slot's error if not. */
bool acl_ticket_done(struct acl_stream *s, const struct acl_ticket *t, uint32_t *err)
{
	uint64_t v;

	acl_kstream_state(s->dev, t->k, &v, err);
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
	char fault[96];
	uint32_t e;

	code = wait_slot(s->dev, k->slot, k, t->seq, timeout_ms, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
	if (!code)
		return ACL_SUCCESS;
	if (code == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT)
		return ACL_FAIL(code, "stream %u did not complete within %d ms", s->obj.index,
				timeout_ms);
	e = acl_kstream_err(s->dev, k);
	if (!e && code != ACL_ERROR_RT_LOST_HEARTBEAT)
		return ACL_FAIL(code, "waiting for stream %u failed", s->obj.index);
	acl_mutex_lock(&s->lock);
	failed = acl_stream_failed_locked(s, k);
	acl_mutex_unlock(&s->lock);
	acl_exception_deliver();
	/* A reset after a lost heartbeat has the same code but a card that lives. */
	if (code == ACL_ERROR_RT_LOST_HEARTBEAT && e != DRM_NPU_ERR_RESET)
		return ACL_FAIL(code, "device %d is lost: %s", s->dev->id,
				acl_slot_error_text(DRM_NPU_ERR_DEAD));
	/* This failure is reported now, not again by the next sync. */
	atomic_store(&s->pending_err, 0);
	return ACL_FAIL(failed, "stream %u of device %d failed: %s%s", s->obj.index, s->dev->id,
			acl_slot_error_text(e), acl_vmm_fault_text(s->dev, k->slot, e, fault,
								   sizeof(fault)));
}

/*
 * A failure reported by a synchronization: in continue mode the tasks
 * queued behind the failed one went to a new ring, and the stream's work
 * includes them, so they are waited for too; the failure is what is
 * reported (a later one also fails them, and is reported by the next).
 */
static aclError sync_resumed(struct acl_stream *s, const struct acl_ticket *t, aclError code,
			     int32_t timeout_ms)
{
	struct acl_ticket now = acl_stream_last_ticket(s);

	if (code == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT || s->sticky_err || now.k == t->k)
		return code;
	if (acl_stream_wait(s, &now, timeout_ms) == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT)
		return ACL_ERROR_RT_STREAM_SYNC_TIMEOUT;
	return code;
}

aclError acl_stream_sync(struct acl_stream *s, int32_t timeout_ms)
{
	struct acl_ticket t = acl_stream_last_ticket(s);
	aclError code, pending;

	if (s->sticky_err)
		return ACL_FAIL(s->sticky_err, "stream %u has failed: %s", s->obj.index,
				acl_stream_refusal_text(s, t.k));
	code = acl_stream_wait(s, &t, timeout_ms);
	if (code)
		return sync_resumed(s, &t, code, timeout_ms);
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
