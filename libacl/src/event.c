// SPDX-License-Identifier: MIT
/*
 * Events. An event owns a fence slot of its device (allocated at its first
 * record). Recording submits SLOT_WRITE(slot, n) with the event's next
 * value n; the card stores n and its clock when the stream gets there.
 * The event's state (slot and last recorded value) sits in one atomic
 * word, so querying is two loads and no syscall; synchronizing spins
 * briefly and then sleeps in DRM_IOCTL_NPU_WAIT; another stream waits for
 * it on the card with SLOT_WAIT.
 *
 * Slot values only grow: a record on another stream while the previous
 * record is still pending first waits (on the card) for that record, so a
 * late earlier record can never overwrite a later one.
 *
 * aclrtResetEvent acts in stream order too: it writes the next value as
 * well, and the event counts as never recorded once the slot has reached
 * it. Until then the event stands for its last record, which the reset
 * leaves in the state word; so a query or a wait sees the same either way,
 * and only the timestamps go with the reset.
 */
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "peer.h"

#define EV_FLAGS (ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS | ACL_EVENT_TIME_LINE | \
		  ACL_EVENT_DEVICE_USE_ONLY | ACL_EVENT_EXTERNAL)
#define EV_EX_FLAGS (ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS | ACL_EVENT_TIME_LINE | \
		     ACL_EVENT_IPC)

aclError acl_event_create(aclrtEvent *event, uint32_t flags, bool ex)
{
	struct acl_context *c;
	struct acl_event *ev;

	ACL_CHECK_NULL(event);
	c = acl_current_ctx();
	if (!c)
		return ACL_ERROR_RT_CONTEXT_NULL;
	acl_device_reap_slots(c->dev);
	ev = acl_obj_alloc(ACL_OBJ_EVENT);
	if (!ev)
		return ACL_FAIL(ACL_ERROR_RT_NO_EVENT_RESOURCE, "too many events");
	ev->dev = c->dev;
	ev->flags = flags;
	ev->ex = ex;
	acl_mutex_init(&ev->lock);
	acl_list_init(&ev->link);
	acl_mutex_lock(&c->dev->list_lock);
	acl_list_add(&c->dev->events, &ev->link);
	acl_mutex_unlock(&c->dev->list_lock);
	*event = acl_obj_handle(ev);
	return ACL_SUCCESS;
}

static struct acl_event *event_get(aclrtEvent event, aclError *err)
{
	struct acl_event *ev;

	if (!event) {
		*err = ACL_FAIL(ACL_ERROR_INVALID_PARAM, "event is NULL");
		return NULL;
	}
	ev = acl_obj_lookup(ACL_OBJ_EVENT, event);
	if (!ev)
		*err = ACL_FAIL(ACL_ERROR_INVALID_PARAM, "event %p is not a live event", event);
	return ev;
}

/* The stream of a call that puts ev on it: it must be of ev's device. */
static struct acl_stream *stream_for_event(struct acl_event *ev, aclrtStream stream,
					   aclError *err)
{
	struct acl_stream *s = acl_stream_resolve(stream, err);

	if (s && s->dev != ev->dev) {
		*err = ACL_FAIL(ACL_ERROR_INVALID_PARAM,
				"event of device %d used with a stream of device %d", ev->dev->id,
				s->dev->id);
		return NULL;
	}
	return s;
}

/* Whether the record in state st (if any) has completed on the card. */
static bool record_done(struct acl_device *d, uint64_t st)
{
	return !ACL_EV_VALUE(st) || acl_seq_reached(acl_slot_value(d, ACL_EV_SLOT(st)),
						    ACL_EV_VALUE(st));
}

/* Called with the list lock held (also by the device teardown): no ioctls. */
void acl_event_free(struct acl_event *ev)
{
	ACL_ASSERT_HELD(&ev->dev->list_lock);
	free(ev->ipc);
	acl_list_del(&ev->link);
	acl_obj_free(ev);
}

ACL_EXPORT aclError aclrtCreateEvent(aclrtEvent *event)
{
	return acl_event_create(event, 0, false);
}

ACL_EXPORT aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag)
{
	aclError err;

	if (flag & ~EV_FLAGS)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown event flags %#x", flag);
	if ((flag & ACL_EVENT_EXTERNAL) && flag != ACL_EVENT_EXTERNAL)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "ACL_EVENT_EXTERNAL cannot be combined");
	err = acl_event_create(event, flag, false);
	if (!err && flag == ACL_EVENT_EXTERNAL && (err = acl_flag_event_init(*event)))
		aclrtDestroyEvent(*event);
	return err;
}

ACL_EXPORT aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag)
{
	aclError err;

	if (flag & ~EV_EX_FLAGS)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown event flags %#x", flag);
	err = acl_event_create(event, flag, true);
	if (!err && (flag & ACL_EVENT_IPC)) {
		err = acl_ipc_event_init(acl_obj_lookup(ACL_OBJ_EVENT, *event));
		if (err)
			aclrtDestroyEvent(*event);
	}
	return err;
}

ACL_EXPORT aclError aclrtDestroyEvent(aclrtEvent event)
{
	struct acl_device *d;
	struct acl_event *ev;
	aclError err = ACL_SUCCESS;
	uint32_t slot;

	ev = event_get(event, &err);
	if (!ev)
		return err;
	acl_flag_event_fini(ev);
	d = ev->dev;
	acl_mutex_lock(&d->list_lock);
	acl_mutex_lock(&ev->lock);
	slot = ACL_EV_SLOT(atomic_load(&ev->state));
	if (ev->has_slot) {
		/*
		 * A pending record keeps the slot until the card writes it:
		 * judged by the last value recorded, which a reset leaves.
		 */
		if (!acl_seq_reached(acl_slot_value(d, slot), ev->counter) && !acl_slot_err(d, slot))
			acl_device_defer_slot(d, slot, ev->counter);
		else
			drv_slot_free(d->fd, slot);
	}
	acl_mutex_unlock(&ev->lock);
	if (ev->ipc)
		acl_ipc_event_release(ev);
	acl_event_free(ev);
	acl_mutex_unlock(&d->list_lock);
	acl_device_reap_slots(d);
	return ACL_SUCCESS;
}

/*
 * Queues SLOT_WRITE of the event's next value on s: a record, or the point
 * where a reset takes effect.
 */
static aclError write_next(struct acl_event *ev, struct acl_stream *s, bool reset)
{
	struct acl_device *d = ev->dev;
	struct drm_npu_cmd cmds[2];
	uint64_t st, val;
	uint32_t slot;
	aclError err = ACL_SUCCESS;
	int n = 0, ret;

	acl_mutex_lock(&ev->lock);
	st = atomic_load(&ev->state);
	slot = ACL_EV_SLOT(st);
	if (!ev->has_slot || acl_slot_err(d, slot)) {
		/* A slot whose stream failed stays failed: take a new one. */
		ret = drv_slot_alloc(d->fd, &slot);
		if (ret) {
			acl_mutex_unlock(&ev->lock);
			return ACL_DRV_FAIL(d, ret, "taking a fence slot for an event");
		}
		/*
		 * The failed slot is not freed: a record of another stream may
		 * still be queued behind it, and its late write must not land
		 * in a slot that was handed on. It goes with the device.
		 */
		if (ev->has_slot)
			ACL_LOGW("event slot %u failed; event moved to slot %u", ACL_EV_SLOT(st), slot);
		ev->has_slot = true;
		ev->counter = 0;
		ev->reset_at = 0;
		st = 0;
		/* the new slot with no record, whatever the submit below does */
		atomic_store(&ev->state, (uint64_t)slot << 40);
	}
	val = ev->counter + 1;
	memset(cmds, 0, sizeof(cmds));
	if (st && ev->counter && ev->last_stream != s &&
	    !acl_seq_reached(acl_slot_value(d, slot), ev->counter)) {
		cmds[n].op = DRM_NPU_OP_SLOT_WAIT;
		cmds[n].slot = slot;
		cmds[n].value = ev->counter;
		n++;
	}
	cmds[n].op = DRM_NPU_OP_SLOT_WRITE;
	cmds[n].slot = slot;
	cmds[n].value = val;
	n++;
	err = acl_stream_submit(s, cmds, (size_t)n, NULL);
	if (!err) {
		ev->counter = val;
		ev->last_stream = s;
		if (reset)
			ev->reset_at = val;
		else
			atomic_store(&ev->state, (uint64_t)slot << 40 | val);
	}
	acl_mutex_unlock(&ev->lock);
	return err;
}

ACL_EXPORT aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream)
{
	struct acl_event *ev;
	struct acl_stream *s;
	aclError err = ACL_SUCCESS;

	ev = event_get(event, &err);
	if (!ev)
		return err;
	s = stream_for_event(ev, stream, &err);
	if (!s)
		return err;
	if (ev->flag_word && (err = acl_flag_event_op(ev, s, ACL_FLAG_SET)))
		return err;
	if (acl_capturing(s) && acl_capture_record(s, ev, false, &err))
		return err;
	err = write_next(ev, s, false);
	if (!err && ev->ipc)
		err = acl_ipc_event_record(ev, s);
	return err;
}

/* The stream waits on the card; nothing is queued for a completed record. */
ACL_EXPORT aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event)
{
	struct drm_npu_cmd cmd = { .op = DRM_NPU_OP_SLOT_WAIT };
	struct acl_stream *s;
	struct acl_event *ev;
	aclError err = ACL_SUCCESS;
	uint64_t st;

	ev = event_get(event, &err);
	if (!ev)
		return err;
	if (ev->flag_word) {
		s = stream_for_event(ev, stream, &err);
		return s ? acl_flag_event_op(ev, s, ACL_FLAG_WAIT) : err;
	}
	if (ev->flags && !(ev->flags & (ACL_EVENT_SYNC | ACL_EVENT_IPC)))
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM,
				"event was created without ACL_EVENT_SYNC and cannot be waited on");
	s = acl_stream_resolve(stream, &err);
	if (!s)
		return err;
	if (s->dev != ev->dev)
		return acl_peer_wait_event(s, ev);
	if (acl_capture_wait(s, ev, &err))
		return err;
	st = atomic_load(&ev->state);
	if (!ACL_EV_VALUE(st) && acl_ipc_event_opened(ev))
		return acl_ipc_event_wait(ev, s);
	if (record_done(s->dev, st))
		return ACL_SUCCESS;
	cmd.slot = ACL_EV_SLOT(st);
	cmd.value = ACL_EV_VALUE(st);
	return acl_stream_submit(s, &cmd, 1, NULL);
}

/*
 * Asynchronous, like a record: the event is back to "never recorded" when
 * the stream gets there. Only events of aclrtCreateEventWithFlag with
 * ACL_EVENT_SYNC can be reset, as documented. The reset waits on the card
 * for a pending record of another stream (see write_next), which the usual
 * aclrtStreamWaitEvent before it does anyway.
 */
ACL_EXPORT aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream)
{
	struct acl_event *ev;
	struct acl_stream *s;
	aclError err = ACL_SUCCESS;

	ev = event_get(event, &err);
	if (!ev)
		return err;
	if (ev->flag_word) {
		s = stream_for_event(ev, stream, &err);
		return s ? acl_flag_event_op(ev, s, ACL_FLAG_CLEAR) : err;
	}
	if (ev->ex)
		return ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
				"events of aclrtCreateEventExWithFlag cannot be reset");
	if (!(ev->flags & ACL_EVENT_SYNC))
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM,
				"only events created by aclrtCreateEventWithFlag with ACL_EVENT_SYNC "
				"can be reset");
	s = stream_for_event(ev, stream, &err);
	if (!s)
		return err;
	if (acl_capturing(s) && acl_capture_record(s, ev, true, &err))
		return err;
	if (!ACL_EV_VALUE(atomic_load(&ev->state)) && !ev->counter)
		return ACL_SUCCESS;	/* never written: nothing to reset */
	return write_next(ev, s, true);
}

/* *done: the last record completed (or there is none); else an error. */
static aclError event_done(struct acl_event *ev, bool *done)
{
	struct acl_device *d = ev->dev;
	uint64_t st = atomic_load(&ev->state);
	uint32_t e;

	if (record_done(d, st)) {
		*done = true;
		return ACL_SUCCESS;
	}
	e = acl_slot_err(d, ACL_EV_SLOT(st));
	if (e)
		return ACL_FAIL(acl_slot_error(d, e), "the stream recording the event failed: %s",
				acl_slot_error_text(e));
	*done = false;
	return ACL_SUCCESS;
}

/*
 * What the three query calls share: argument checks, then whether the
 * event counts as complete. Loads only: no lock, no system call, and no
 * error bookkeeping unless a check fails.
 *
 * An event never recorded has nothing to wait for, so it is complete for
 * aclrtQueryEvent, aclrtQueryEventWaitStatus, the synchronize calls and
 * aclrtStreamWaitEvent. aclrtQueryEventStatus (recorded_status) answers
 * whether a record has completed: not ready for an event of
 * aclrtCreateEvent(WithFlag) until its first record, complete for one of
 * aclrtCreateEventExWithFlag, as documented for the vendor's runtime. It
 * is also the only query that takes events of aclrtCreateEventExWithFlag.
 */
static aclError query_event(const char *fn, aclrtEvent event, const void *status,
			    bool recorded_status, bool *done)
{
	struct acl_event *ev;
	aclError err = ACL_SUCCESS;

	if (!status)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "status is NULL");
	ev = event_get(event, &err);
	if (!ev)
		return err;
	if (ev->ex && !recorded_status)
		return acl_fail(fn, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
				"%s does not take events of aclrtCreateEventExWithFlag", fn);
	if (!ACL_EV_VALUE(atomic_load(&ev->state)) && acl_ipc_event_opened(ev))
		return acl_ipc_event_done(ev, done);
	if (recorded_status && !ev->ex && !ACL_EV_VALUE(atomic_load(&ev->state))) {
		*done = false;
		return ACL_SUCCESS;
	}
	return event_done(ev, done);
}

ACL_EXPORT aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status)
{
	bool done;
	aclError err = query_event(__func__, event, status, true, &done);

	if (!err)
		*status = done ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
	return err;
}

ACL_EXPORT aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus *status)
{
	bool done;
	aclError err = query_event(__func__, event, status, false, &done);

	if (!err)
		*status = done ? ACL_EVENT_STATUS_COMPLETE : ACL_EVENT_STATUS_NOT_READY;
	return err;
}

ACL_EXPORT aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus *status)
{
	bool done;
	aclError err = query_event(__func__, event, status, false, &done);

	if (!err)
		*status = done ? ACL_EVENT_WAIT_STATUS_COMPLETE : ACL_EVENT_WAIT_STATUS_NOT_READY;
	return err;
}

static aclError sync_event(aclrtEvent event, int32_t timeout)
{
	struct acl_event *ev;
	aclError err = ACL_SUCCESS;
	uint64_t st;

	ev = event_get(event, &err);
	if (!ev)
		return err;
	st = atomic_load(&ev->state);
	if (!ACL_EV_VALUE(st))
		return acl_ipc_event_opened(ev) ? acl_ipc_event_sync(ev, timeout) : ACL_SUCCESS;
	err = acl_wait_slot(ev->dev, ACL_EV_SLOT(st), ACL_EV_VALUE(st), timeout,
			    ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
	if (err == ACL_ERROR_RT_EVENT_SYNC_TIMEOUT)
		return ACL_FAIL(err, "event did not complete within %d ms", timeout);
	if (err)
		return ACL_FAIL(err, "the stream recording the event failed: %s",
				acl_slot_error_text(acl_slot_err(ev->dev, ACL_EV_SLOT(st))));
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtSynchronizeEvent(aclrtEvent event)
{
	return sync_event(event, -1);
}

ACL_EXPORT aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout)
{
	if (timeout < -1)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "timeout %d is invalid (-1 or >= 0)", timeout);
	return sync_event(event, timeout);
}

/* Whether a reset after the last record has taken effect (ev->lock held). */
static bool reset_reached(struct acl_event *ev, uint64_t st)
{
	ACL_ASSERT_HELD(&ev->lock);
	return ev->reset_at && !acl_seq_reached(ACL_EV_VALUE(st), ev->reset_at) &&
	       acl_seq_reached(acl_slot_value(ev->dev, ACL_EV_SLOT(st)), ev->reset_at);
}

/* Card time (ns) of the event's completed record. */
static aclError event_time(struct acl_event *ev, uint64_t *ns)
{
	uint64_t st = atomic_load(&ev->state);
	aclError err = ACL_SUCCESS;
	bool done, reset;

	if (!ACL_EV_VALUE(st))
		return ACL_FAIL(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, "the event was never recorded");
	err = event_done(ev, &done);
	if (err)
		return err;
	if (!done)
		return ACL_FAIL(ACL_ERROR_RT_EVENT_NOT_COMPLETE, "the event has not completed yet");
	*ns = __atomic_load_n(&ev->dev->fence[ACL_EV_SLOT(st)].timestamp, __ATOMIC_ACQUIRE);
	/* Checked after the read: a reset that has landed wrote its own time. */
	acl_mutex_lock(&ev->lock);
	reset = reset_reached(ev, st);
	acl_mutex_unlock(&ev->lock);
	if (reset)
		return ACL_FAIL(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
				"the event was reset after its last record");
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent)
{
	struct acl_event *a, *b;
	uint64_t t0, t1;
	aclError err = ACL_SUCCESS;

	ACL_CHECK_NULL(ms);
	a = event_get(startEvent, &err);
	if (!a)
		return err;
	b = event_get(endEvent, &err);
	if (!b)
		return err;
	if (a->dev != b->dev)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "the events belong to different devices");
	err = event_time(a, &t0);
	if (!err)
		err = event_time(b, &t1);
	if (err)
		return err;
	if (t1 < t0)
		return ACL_FAIL(ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL,
				"the end event completed before the start event");
	*ms = (float)((double)(t1 - t0) / 1e6);
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t *timestamp)
{
	struct acl_event *ev;
	aclError err = ACL_SUCCESS;
	uint64_t ns;

	ACL_CHECK_NULL(timestamp);
	ev = event_get(event, &err);
	if (!ev)
		return err;
	err = event_time(ev, &ns);
	if (err)
		return err;
	*timestamp = ns / 1000;
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetEventId(aclrtEvent event, uint32_t *eventId)
{
	struct acl_event *ev;
	aclError err = ACL_SUCCESS;

	ACL_CHECK_NULL(eventId);
	ev = event_get(event, &err);
	if (!ev)
		return err;
	*eventId = ev->obj.index;
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtGetEventAvailNum(uint32_t *eventCount)
{
	uint64_t v;
	aclError err;

	ACL_CHECK_NULL(eventCount);
	err = acl_current_dev_param(__func__, DRM_NPU_PARAM_FREE_SLOTS, &v);
	if (!err)
		*eventCount = (uint32_t)v;
	return err;
}
