// SPDX-License-Identifier: MIT
/*
 * Updating a task group of a model runtime instance with the tasks an
 * update captured (aclmdlRICaptureTaskUpdateBegin/End, capture.c).
 *
 * A task group is a program of its own that the model's program CALLs.
 * An update makes a program of the new tasks and queues
 * DRM_NPU_OP_SET_CALL on the updating stream: replays the card runs after
 * that point call the new tasks, earlier ones the old, whatever order the
 * host queued them in, as the vendor's update works in stream order. A
 * model not made into programs yet (never replayed, or on a driver without
 * programs) takes the new tasks at once.
 */
#include <stdlib.h>
#include <string.h>

#include "capture.h"

/* The new tasks must be as many, and of the same kinds, as the group's. */
static aclError check_same(const struct acl_mdlri *m, const struct acl_ri_step *st,
			   const struct acl_mdlri *t)
{
	for (size_t i = 0; i < t->nsteps; i++)
		if (t->steps[i].kind != ACL_RI_CMDS)
			return ACL_FAIL(ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT, "an update holds "
					"operators, copies and fills only");
	if (t->ncmds != st->count)
		return ACL_FAIL(ACL_ERROR_RT_MODEL_UPDATE_FAILED, "the update has %zu tasks, the "
				"group %u", t->ncmds, st->count);
	for (uint32_t i = 0; i < st->count; i++)
		if (t->cmds[i].op != m->cmds[st->first + i].op)
			return ACL_FAIL(ACL_ERROR_RT_MODEL_UPDATE_FAILED, "task %u of the update is "
					"of another type than the group's", i);
	return ACL_SUCCESS;
}

/* Moves t's tasks (and the descriptors they point to) into the group. */
static aclError take_tasks_locked(struct acl_mdlri *m, struct acl_ri_step *st,
				  struct acl_mdlri *t)
{
	void **v = realloc(m->descs, (m->ndescs + t->ndescs + 1) * sizeof(*v));

	if (!v)
		return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory");
	m->descs = v;
	m->descs_cap = m->ndescs + t->ndescs + 1;
	memcpy(&m->descs[m->ndescs], t->descs, t->ndescs * sizeof(*v));
	m->ndescs += t->ndescs;
	t->ndescs = 0;
	memcpy(&m->cmds[st->first], t->cmds, st->count * sizeof(*t->cmds));
	return ACL_SUCCESS;
}

static size_t run_start(const struct acl_mdlri *m, size_t i)
{
	while (i && acl_ri_in_program(m->steps[i - 1].kind))
		i--;
	return i;
}

/* Points the model's CALL at a program of the group's new tasks, in s's order. */
static aclError set_call(struct acl_mdlri *m, struct acl_ri_step *st, uint32_t main,
			 struct acl_stream *s)
{
	struct drm_npu_cmd cmd = { .op = DRM_NPU_OP_SET_CALL, .value = main,
				   .dst = st->call_index };
	uint32_t id;
	aclError err;

	if (!acl_mdlri_program(m, &m->cmds[st->first], st->count, &id)) {
		acl_mdlri_unbuild(m);	/* the next replay makes it anew */
		return ACL_SUCCESS;
	}
	cmd.src = id;
	err = acl_stream_submit(s, &cmd, 1, NULL);
	if (err) {
		drv_program_destroy(m->dev->fd, id);
		return err;
	}
	/* The driver keeps it while a queued run still calls it. */
	drv_program_destroy(m->dev->fd, st->program);
	st->program = id;
	return ACL_SUCCESS;
}

aclError acl_task_grp_update(struct acl_task_grp *g, struct acl_mdlri *t, struct acl_stream *s)
{
	struct acl_mdlri *m = g->m;
	struct acl_ri_step *st;
	uint32_t main = 0;
	aclError err;

	acl_mutex_lock(&m->run_lock);
	acl_capture_lock();
	st = &m->steps[g->step];
	err = check_same(m, st, t);
	if (!err)
		err = take_tasks_locked(m, st, t);
	if (!err && m->built && st->program)
		main = m->program[run_start(m, g->step)];
	acl_capture_unlock();
	if (!err && main)
		err = set_call(m, st, main, s);
	else if (!err && m->built && st->count)
		acl_mdlri_unbuild(m);
	acl_mutex_unlock(&m->run_lock);
	return err;
}
