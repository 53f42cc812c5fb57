// SPDX-License-Identifier: MIT
/*
 * Controlling a model runtime instance from outside: stopping a replay
 * that runs (aclmdlRIAbort) and callbacks called when it is destroyed
 * (aclmdlRIDestroyRegisterCallback).
 *
 * An abort drops the queued work of the stream the latest replay went to,
 * as aclrtStreamAbort does: the model's and whatever else that stream
 * held behind or before it. Its waiters get ACL_ERROR_RT_STREAM_ABORT and
 * the model may be executed again at once.
 *
 * Destroy callbacks run in aclmdlRIDestroy, in the order registered, once
 * the model is gone from the caller's view (its handle is refused), with
 * no lock held.
 */
#include <stdlib.h>

#include "capture.h"

struct acl_mdlri_destroy_cb {
	struct acl_mdlri_destroy_cb *next;
	aclrtCallback fn;
	void *arg;
};

struct acl_mdlri_destroy_cb *acl_mdlri_destroy_cbs_take_locked(struct acl_mdlri *m)
{
	struct acl_mdlri_destroy_cb *list = m->destroy_cbs;

	m->destroy_cbs = NULL;
	return list;
}

void acl_mdlri_destroy_cbs_call(struct acl_mdlri_destroy_cb *list)
{
	struct acl_mdlri_destroy_cb *next;

	for (; list; list = next) {
		next = list->next;
		list->fn(list->arg);
		free(list);
	}
}

void acl_mdlri_destroy_cbs_drop(struct acl_mdlri *m)
{
	struct acl_mdlri_destroy_cb *cb = acl_mdlri_destroy_cbs_take_locked(m), *next;

	for (; cb; cb = next) {
		next = cb->next;
		free(cb);
	}
}

/* Looks m up with the capture lock, which stays held on success. */
static struct acl_mdlri *model_locked(const char *fn, aclmdlRI handle, aclError *err)
{
	struct acl_mdlri *m;

	acl_capture_lock();
	m = handle ? acl_mdlri_lookup_locked(handle) : NULL;
	if (!m) {
		acl_capture_unlock();
		*err = acl_fail(fn, ACL_ERROR_INVALID_PARAM, "modelRI %p is not a live model "
				"runtime instance", handle);
	}
	return m;
}

ACL_EXPORT aclError aclmdlRIDestroyRegisterCallback(aclmdlRI modelRI, aclrtCallback func,
						    void *userData)
{
	struct acl_mdlri_destroy_cb *cb, **pos;
	aclError err = ACL_SUCCESS;
	struct acl_mdlri *m;

	ACL_CHECK_NULL(func);
	cb = calloc(1, sizeof(*cb));
	if (!cb)
		return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of host memory");
	cb->fn = func;
	cb->arg = userData;
	m = model_locked(__func__, modelRI, &err);
	if (!m) {
		free(cb);
		return err;
	}
	for (pos = &m->destroy_cbs; *pos; pos = &(*pos)->next)
		;
	*pos = cb;
	acl_capture_unlock();
	return ACL_SUCCESS;
}

/* Unregisters every registration of func. */
ACL_EXPORT aclError aclmdlRIDestroyUnregisterCallback(aclmdlRI modelRI, aclrtCallback func)
{
	struct acl_mdlri_destroy_cb **pos, *gone = NULL;
	aclError err = ACL_SUCCESS;
	struct acl_mdlri *m;

	ACL_CHECK_NULL(func);
	m = model_locked(__func__, modelRI, &err);
	if (!m)
		return err;
	for (pos = &m->destroy_cbs; *pos;) {
		struct acl_mdlri_destroy_cb *cb = *pos;

		if (cb->fn != func) {
			pos = &cb->next;
			continue;
		}
		*pos = cb->next;
		cb->next = gone;
		gone = cb;
	}
	acl_capture_unlock();
	if (!gone)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "that function is not registered as a "
				"destroy callback of the model");
	while (gone) {
		struct acl_mdlri_destroy_cb *next = gone->next;

		free(gone);
		gone = next;
	}
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclmdlRIAbort(aclmdlRI modelRI)
{
	aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_COMPLETE;
	aclError err = ACL_SUCCESS;
	struct acl_stream *s = NULL;
	struct acl_mdlri *m;

	m = acl_mdlri_get(__func__, modelRI, &err);
	if (!m)
		return err;
	acl_mutex_lock(&m->run_lock);
	if (m->last_stream && aclrtQueryEventStatus(m->done, &st) == ACL_SUCCESS &&
	    st == ACL_EVENT_RECORDED_STATUS_NOT_READY)
		s = acl_stream_resolve(m->last_stream, &err);
	if (s) {
		acl_mutex_lock(&s->lock);
		err = acl_stream_restart_locked(s);
		acl_mutex_unlock(&s->lock);
	}
	acl_mutex_unlock(&m->run_lock);
	acl_mdlri_put(m);
	return s ? err : ACL_SUCCESS;
}
