/* SPDX-License-Identifier: MIT */
/*
 * The profiler's hooks into the runtime (prof.c and its neighbours).
 *
 * While a profile runs on a stream's device (aclprofStart) or a model the
 * stream executes is subscribed (aclprofModelSubscribe), each command the
 * stream is given is a task: the card writes its clock before and after
 * it (DRM_NPU_OP_CLOCK_WRITE) into a device buffer of the stream's, and
 * one copy at the end of the submission brings those stamps to a pinned
 * host buffer, which the profiler reads once the work is done (at
 * aclprofStop, an unsubscribe, or when the stream goes).
 *
 * Locks: acl_prof_lock ranks between event->lock and stream->lock (8a in
 * acl_internal.h's list), a stream's profiling lock just below
 * stream->lock (8b): a profiled submission holds it from taking its
 * stamps until the submission is queued, so that stamps follow the
 * stream's order.
 */
#ifndef LIBASCENDCL_PROF_H
#define LIBASCENDCL_PROF_H

#include "acl_internal.h"

struct acl_om_op;

/* Non-zero while some stream may need stamps: the submit path's cheap test. */
extern atomic_int acl_prof_stamping;

/* acl_stream_submit without the profiler's stamps (stream_ring.c). */
aclError acl_stream_submit_unprofiled(struct acl_stream *s, struct drm_npu_cmd *cmds, size_t count,
				      struct acl_ticket *done);

/* acl_stream_submit's profiled path: cmds with their stamps. */
aclError acl_prof_submit(struct acl_stream *s, struct drm_npu_cmd *cmds, size_t count,
			 struct acl_ticket *done);

static inline bool acl_prof_wants(void)
{
	return atomic_load_explicit(&acl_prof_stamping, memory_order_relaxed) != 0;
}

/*
 * Names the operators of the next submission of cmds by this thread: a
 * model's (ops, one per command, and its id) or an aclnn operator's name
 * (ops NULL). A submission of other commands ignores it.
 */
void acl_prof_label(const struct drm_npu_cmd *cmds, const char *name,
		    const struct acl_om_op *ops, uint32_t model_id);

/* s is being freed (its work done unless !waited): its stamps are read. */
void acl_prof_stream_gone(struct acl_stream *s, bool waited);

#endif /* LIBASCENDCL_PROF_H */
