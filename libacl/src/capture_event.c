// SPDX-License-Identifier: MIT
/*
 * Events made for captured models to wait on: one of
 * aclrtCreateEventWithFlag(ACL_EVENT_EXTERNAL) is a flag in a device word
 * besides its fence slot. aclrtRecordEvent sets it, aclrtResetEvent clears
 * it, aclrtStreamWaitEvent waits on the card until it is set: so a model
 * that waits and then resets waits, at each replay, for a record made
 * after the replay was queued, as the vendor's update sample needs. Both
 * are card commands, which a capture records like any other.
 *
 * Event records and waits with an operation-level flag: the
 * ACL_EVENT_RECORD_EXTERNAL / ACL_EVENT_WAIT_EXTERNAL forms that mark a
 * captured record meant for waiters outside the model, or a captured wait
 * for a record made outside it. Every record and wait of this runtime is
 * visible across models and streams, so the flags change nothing but what
 * is accepted: a captured record or wait is replayed as it was captured
 * (capture.c).
 */
#include "capture.h"

ACL_EXPORT aclError aclrtRecordEventWithFlag(aclrtEvent event, aclrtStream stream, uint32_t flag)
{
	if (flag != ACL_EVENT_RECORD_DEFAULT && flag != ACL_EVENT_RECORD_EXTERNAL)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown record flag %#x", flag);
	return aclrtRecordEvent(event, stream);
}

ACL_EXPORT aclError aclrtStreamWaitEventWithFlag(aclrtStream stream, aclrtEvent event,
						 uint32_t timeout, uint32_t flag)
{
	if (flag != ACL_EVENT_WAIT_DEFAULT && flag != ACL_EVENT_WAIT_EXTERNAL)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown wait flag %#x", flag);
	if (flag == ACL_EVENT_WAIT_EXTERNAL && timeout)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "an external wait takes no timeout (%u)",
				timeout);
	if (timeout)
		return ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "the card's waits on events have "
				"no timeout: pass 0");
	return aclrtStreamWaitEvent(stream, event);
}

/* timeout: seconds, 0 for none (the vendor's API reference). */
ACL_EXPORT aclError aclrtStreamWaitEventWithTimeout(aclrtStream stream, aclrtEvent event,
						    int32_t timeout)
{
	if (timeout < 0)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "timeout %d s is negative: pass 0 for "
				"none", timeout);
	if (timeout)
		return ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "the card's waits on events have "
				"no timeout: pass 0");
	return aclrtStreamWaitEvent(stream, event);
}

aclError acl_flag_event_init(aclrtEvent event)
{
	struct acl_event *ev = acl_obj_lookup(ACL_OBJ_EVENT, event);
	void *w = NULL;
	aclError err;

	if (!ev)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "event %p is not a live event", event);
	err = aclrtMalloc(&w, sizeof(uint64_t), ACL_MEM_MALLOC_NORMAL_ONLY);
	if (!err)
		err = aclrtMemset(w, sizeof(uint64_t), 0, sizeof(uint64_t));
	if (err) {
		if (w)
			aclrtFree(w);
		return err;
	}
	ev->flag_word = w;
	return ACL_SUCCESS;
}

/* The word's memory outlives the commands already queued on it (the driver holds it). */
void acl_flag_event_fini(struct acl_event *ev)
{
	if (ev->flag_word)
		aclrtFree(ev->flag_word);
	ev->flag_word = NULL;
}

aclError acl_flag_event_op(struct acl_event *ev, struct acl_stream *s, enum acl_flag_op op)
{
	struct drm_npu_cmd c = {
		.op = op == ACL_FLAG_WAIT ? DRM_NPU_OP_VALUE_WAIT : DRM_NPU_OP_VALUE_WRITE,
		.dst = (uintptr_t)ev->flag_word,
		.value = op != ACL_FLAG_CLEAR,
		.cond = DRM_NPU_WAIT_GEQ,
	};

	return acl_stream_submit(s, &c, 1, NULL);
}
