// SPDX-License-Identifier: MIT
/*
 * Replaying model runtime instances: aclmdlRIExecuteAsync and
 * aclmdlRIExecute.
 *
 * Each run of command steps becomes one card program at the first replay
 * after the model changed, and a replay queues DRM_NPU_OP_PROGRAM: one
 * command however many tasks the model holds. A driver without programs
 * (or a run longer than a program may be) gets the commands again
 * instead, in as few submissions as the driver's batch allows. Event
 * records, waits on events recorded outside the capture, and host
 * functions are replayed through the runtime's own calls on the replaying
 * stream, between the programs.
 *
 * Replays of one model are serialised: each records the model's event,
 * and a replay on another stream than the one before waits for it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"

/* Set once a driver refused programs: the commands are resubmitted. */
static atomic_bool no_programs;

void acl_mdlri_unbuild(struct acl_mdlri *m)
{
	for (size_t i = 0; m->program && i < m->nsteps; i++) {
		struct acl_ri_step *st = &m->steps[i];

		if (m->program[i] && m->dev->fd >= 0)
			drv_program_destroy(m->dev->fd, m->program[i]);
		if (st->kind == ACL_RI_GROUP && st->program && m->dev->fd >= 0)
			drv_program_destroy(m->dev->fd, st->program);
		st->program = 0;
	}
	free(m->program);
	m->program = NULL;
	m->built = false;
}

/* The end of the run of command steps that starts at step i. */
static size_t cmds_run_end(const struct acl_mdlri *m, size_t i)
{
	while (i < m->nsteps && acl_ri_in_program(m->steps[i].kind))
		i++;
	return i;
}

/* The commands of the run [i, end) resubmitted, 0 if it has control steps (programs only). */
static uint32_t run_cmds(const struct acl_mdlri *m, size_t i, size_t end)
{
	uint32_t first = 0, last = 0;
	bool any = false;

	for (size_t k = i; k < end; k++) {
		const struct acl_ri_step *st = &m->steps[k];

		if (acl_ri_control(st->kind))
			return 0;
		if (!any)
			first = st->first;
		any = true;
		last = st->first + st->count;
	}
	return last - first;
}

/* A program of n commands in *id, or 0 (the commands are then resubmitted). */
bool acl_mdlri_program(struct acl_mdlri *m, const struct drm_npu_cmd *cmds, uint32_t n,
		       uint32_t *id)
{
	int ret;

	*id = 0;
	if (!n || n > DRM_NPU_MAX_PROGRAM || atomic_load(&no_programs))
		return false;
	ret = drv_program_create(m->dev->fd, cmds, n, id);
	if (ret == -ENOTTY || ret == -EOPNOTSUPP) {
		if (!atomic_exchange(&no_programs, true))
			ACL_LOGW("the driver makes no programs (%d): replays submit their "
				 "commands again", ret);
	} else if (ret) {
		ACL_LOGW("a program of %u commands was refused (%d): its replays submit the "
			 "commands again", n, ret);
	}
	if (ret)
		*id = 0;
	return !ret;
}

static void drop_group_programs(struct acl_mdlri *m, size_t i, size_t end)
{
	for (size_t k = i; k < end; k++) {
		if (m->steps[k].kind == ACL_RI_GROUP && m->steps[k].program)
			drv_program_destroy(m->dev->fd, m->steps[k].program);
		m->steps[k].program = 0;
	}
}

/* The size of st in the program: a group is one CALL, a switch one SWITCH and its JUMPs. */
static uint32_t program_len(const struct acl_ri_step *st)
{
	switch (st->kind) {
	case ACL_RI_CMDS:
		return st->count;
	case ACL_RI_GROUP:
		return st->count ? 1 : 0;
	case ACL_RI_SWITCH:
		return 1 + st->count;
	case ACL_RI_END:
		return 1;
	case ACL_RI_COND:
		return acl_mdlri_cond_len(st);
	default:
		return 0;
	}
}

/* Where label lands in the run [i, end): the index of the command after it. */
static uint32_t label_index(const struct acl_mdlri *m, size_t i, size_t end, const void *label)
{
	uint32_t j = 0;

	for (size_t k = i; k < end; k++) {
		if (m->steps[k].kind == ACL_RI_LABEL && m->steps[k].arg == label)
			return j;
		j += program_len(&m->steps[k]);
	}
	return UINT32_MAX;
}

/* Appends step k's commands at v[*j]. */
static void emit(struct acl_mdlri *m, size_t i, size_t end, size_t k, struct drm_npu_cmd *v,
		 uint32_t *j)
{
	struct acl_ri_step *st = &m->steps[k];
	void *const *labels = st->arg;

	switch (st->kind) {
	case ACL_RI_CMDS:
		memcpy(&v[*j], &m->cmds[st->first], st->count * sizeof(*v));
		*j += st->count;
		break;
	case ACL_RI_GROUP:
		if (!st->count)
			break;
		st->call_index = *j;
		v[(*j)++] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_CALL, .value = st->program };
		break;
	case ACL_RI_SWITCH:
		v[(*j)++] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_SWITCH, .dst = st->dst,
						  .size = 4, .value = st->count };
		for (uint32_t l = 0; l < st->count; l++)
			v[(*j)++] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_JUMP,
				.value = label_index(m, i, end, labels[l]) };
		break;
	case ACL_RI_END:
		v[(*j)++] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_END };
		break;
	case ACL_RI_COND:
		acl_mdlri_cond_emit(st, v, j);
		break;
	default:
		break;
	}
}

/*
 * The program of the run of steps [i, end): its commands, each task group
 * a CALL of a program of its own (which an update replaces), labels the
 * indices their switches JUMP to, and a NOP last for a label at the end.
 */
static void make_program(struct acl_mdlri *m, size_t i, size_t end)
{
	uint32_t n = 1, j = 0;
	struct drm_npu_cmd *v;

	for (size_t k = i; k < end; k++) {
		struct acl_ri_step *st = &m->steps[k];

		if (st->kind == ACL_RI_COND && !acl_mdlri_cond_prepare(st)) {
			drop_group_programs(m, i, end);
			return;
		}
		n += program_len(st);
		if (st->kind == ACL_RI_GROUP && st->count &&
		    !acl_mdlri_program(m, &m->cmds[st->first], st->count, &st->program)) {
			drop_group_programs(m, i, end);
			return;
		}
	}
	v = malloc(n * sizeof(*v));
	if (!v) {
		drop_group_programs(m, i, end);
		return;
	}
	for (size_t k = i; k < end; k++)
		emit(m, i, end, k, v, &j);
	if (m->steps[end - 1].kind == ACL_RI_LABEL || m->steps[end - 1].kind == ACL_RI_COND)
		v[j++] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_NOP };
	if (!acl_mdlri_program(m, v, j, &m->program[i]))
		drop_group_programs(m, i, end);
	free(v);
}

aclError acl_mdlri_build(struct acl_mdlri *m)
{
	if (m->built && acl_mdlri_cond_stale(m))
		acl_mdlri_unbuild(m);
	if (m->built)
		return ACL_SUCCESS;
	m->program = calloc(m->nsteps ? m->nsteps : 1, sizeof(*m->program));
	if (!m->program)
		return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory");
	for (size_t i = 0; i < m->nsteps; i = cmds_run_end(m, i) > i ? cmds_run_end(m, i) : i + 1)
		if (acl_ri_in_program(m->steps[i].kind))
			make_program(m, i, cmds_run_end(m, i));
	m->built = true;
	return ACL_SUCCESS;
}

/* A nested replay hands over the commands: the outer model must own its copy. */
static aclError replay_cmds(struct acl_mdlri *m, struct acl_stream *s, size_t i, size_t end,
			    bool nested)
{
	struct drm_npu_cmd run = { .op = DRM_NPU_OP_PROGRAM };

	if (m->program[i] && !nested) {
		run.value = m->program[i];
		return acl_stream_submit(s, &run, 1, NULL);
	}
	for (size_t k = i; k < end; k++)
		if (acl_ri_control(m->steps[k].kind))
			return ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "a model with labels or "
					"an end task runs only as a card program, which the "
					"driver did not make%s", nested ? " (or inside a capture)" : "");
	return acl_stream_submit(s, &m->cmds[m->steps[i].first], run_cmds(m, i, end), NULL);
}

static aclError replay_step(const struct acl_ri_step *st, aclrtStream stream)
{
	switch (st->kind) {
	case ACL_RI_RECORD:
		return aclrtRecordEvent(st->event, stream);
	case ACL_RI_WAIT:
		return aclrtStreamWaitEvent(stream, st->event);
	case ACL_RI_RESET:
		return aclrtResetEvent(st->event, stream);
	case ACL_RI_HOSTFUNC:
		return aclrtLaunchHostFunc(stream, st->fn, st->arg);
	case ACL_RI_CALLBACK:
		return aclrtLaunchCallback(st->fn, st->arg, st->block, stream);
	default:
		break;
	}
	return ACL_SUCCESS;
}

/*
 * A replay into a capture (a nested model) adds only the model's work:
 * the capturing model's own replays are serialised already.
 */
static aclError replay(struct acl_mdlri *m, struct acl_stream *s, aclrtStream stream)
{
	bool nested = acl_capturing(s);
	aclError err = ACL_SUCCESS;
	size_t i = 0, end;

	if (!m->done && !nested) {
		err = aclrtCreateEventWithFlag(&m->done, ACL_EVENT_SYNC);
		if (err)
			return err;
	}
	err = acl_mdlri_build(m);
	if (!err)
		err = acl_mdlri_cond_defaults(m, s);
	if (!err && !nested && m->last_stream && m->last_stream != stream)
		err = aclrtStreamWaitEvent(stream, m->done);
	while (!err && i < m->nsteps) {
		if (acl_ri_in_program(m->steps[i].kind)) {
			end = cmds_run_end(m, i);
			err = replay_cmds(m, s, i, end, nested);
			i = end;
		} else {
			err = replay_step(&m->steps[i++], stream);
		}
	}
	if (!err && !nested)
		err = aclrtRecordEvent(m->done, stream);
	if (!err && !nested)
		m->last_stream = stream;
	return err;
}

/* Finds m and takes a reference to it. */
static struct acl_mdlri *mdlri_get(const char *fn, aclmdlRI handle, aclError *err)
{
	struct acl_mdlri *m;

	if (!handle) {
		*err = acl_fail(fn, ACL_ERROR_INVALID_PARAM, "modelRI is NULL");
		return NULL;
	}
	acl_capture_lock();
	m = acl_mdlri_lookup_locked(handle);
	if (m && m->capturing) {
		acl_capture_unlock();
		*err = acl_fail(fn, ACL_ERROR_RT_MODEL_CAPTURED, "the model is being captured "
				"into and cannot run until aclmdlRICaptureEnd");
		return NULL;
	}
	if (m)
		m->refs++;
	acl_capture_unlock();
	if (!m)
		*err = acl_fail(fn, ACL_ERROR_INVALID_PARAM, "modelRI %p is not a live model "
				"runtime instance", handle);
	return m;
}

void acl_mdlri_put(struct acl_mdlri *m)
{
	aclrtEvent done = NULL;

	acl_capture_lock();
	if (!--m->refs && m->dead)
		done = acl_mdlri_free(m);
	acl_capture_unlock();
	if (done)
		aclrtDestroyEvent(done);
}

/* Queues a replay; with held, the caller keeps the reference (acl_mdlri_put). */
static aclError execute(const char *fn, aclmdlRI modelRI, aclrtStream stream,
			struct acl_mdlri **held)
{
	struct acl_mdlri *m;
	struct acl_stream *s;
	aclError err = ACL_SUCCESS;

	m = mdlri_get(fn, modelRI, &err);
	if (!m)
		return err;
	s = acl_stream_resolve(stream, &err);
	if (s && s->dev != m->dev)
		err = acl_fail(fn, ACL_ERROR_RT_STREAM_MODEL, "the stream is on another device "
			       "than the model");
	if (s && !err) {
		acl_mutex_lock(&m->run_lock);
		err = replay(m, s, stream);
		acl_mutex_unlock(&m->run_lock);
	}
	if (err || !held)
		acl_mdlri_put(m);
	else
		*held = m;
	return err;
}

ACL_EXPORT aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream)
{
	return execute(__func__, modelRI, stream, NULL);
}

/* Runs on the current context's default stream and waits for the model. */
ACL_EXPORT aclError aclmdlRIExecute(aclmdlRI modelRI, int32_t timeout)
{
	struct acl_mdlri *m;
	aclError err;

	if (timeout < -1)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "timeout %d is invalid (-1 or >= 0)", timeout);
	err = execute(__func__, modelRI, NULL, &m);
	if (err)
		return err;
	err = aclrtSynchronizeEventWithTimeout(m->done, timeout);
	acl_mdlri_put(m);
	return err;
}
