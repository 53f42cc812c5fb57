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

/*
 * Where a run's steps go in its program. A model built from several bound
 * streams lays each out as a thread (its steps, then RETURN), the head
 * stream's first; otherwise the steps stay in capture order. ord lists
 * the steps in program order, RET_MARK for a RETURN; pos[k - i] is where
 * step k starts, start[t] where stream t's thread does (NO_THREAD if it
 * has no steps).
 */
#define RET_MARK	SIZE_MAX
#define NO_THREAD	UINT32_MAX

struct layout {
	size_t i, end, n;
	size_t *ord;
	uint32_t *pos;
	uint32_t start[ACL_CAPTURE_MAX_STREAMS];
};

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
	case ACL_RI_ACTIVE:
		return 1;
	case ACL_RI_SWITCH_STREAM:
		return st->on_false ? 4 : 2;
	case ACL_RI_COND:
		return acl_mdlri_cond_len(st);
	default:
		return 0;
	}
}

static bool threaded(const struct acl_mdlri *m)
{
	return m->nbound > 1;
}

/* Appends stream t's steps of the run (all of them unthreaded) to L->ord. */
static void order_thread(const struct acl_mdlri *m, struct layout *L, uint32_t t)
{
	size_t n0 = L->n;

	for (size_t k = L->i; k < L->end; k++)
		if (!threaded(m) || m->steps[k].stream == t)
			L->ord[L->n++] = k;
	if (threaded(m) && L->n > n0)
		L->ord[L->n++] = RET_MARK;
}

/* The layout of the run [i, end) and its length in commands; 0 when out of memory. */
static uint32_t lay_out(const struct acl_mdlri *m, struct layout *L, size_t i, size_t end)
{
	uint32_t j = 0, t = NO_THREAD;

	*L = (struct layout){ .i = i, .end = end };
	L->ord = malloc((end - i + ACL_CAPTURE_MAX_STREAMS) * sizeof(*L->ord));
	L->pos = malloc((end - i) * sizeof(*L->pos));
	if (!L->ord || !L->pos)
		return 0;
	for (uint32_t s = 0; s < ACL_CAPTURE_MAX_STREAMS; s++)
		L->start[s] = NO_THREAD;
	order_thread(m, L, m->head);
	for (uint32_t s = 0; threaded(m) && s < m->nstreams; s++)
		if (s != m->head)
			order_thread(m, L, s);
	for (size_t o = 0; o < L->n; o++) {
		size_t k = L->ord[o];

		if (k == RET_MARK) {
			j++;
			t = NO_THREAD;
			continue;
		}
		if (t == NO_THREAD) {
			t = m->steps[k].stream;
			L->start[t] = j;
		}
		L->pos[k - i] = j;
		j += program_len(&m->steps[k]);
	}
	return j;
}

static void layout_free(struct layout *L)
{
	free(L->ord);
	free(L->pos);
}

/* Where label lands in the run: the index of the command after it. */
static uint32_t label_index(const struct acl_mdlri *m, const struct layout *L, const void *label)
{
	for (size_t k = L->i; k < L->end; k++)
		if (m->steps[k].kind == ACL_RI_LABEL && m->steps[k].arg == label)
			return L->pos[k - L->i];
	return UINT32_MAX;
}

/* An ACTIVATE of stream's thread; a NOP for a stream with no tasks. */
static struct drm_npu_cmd activate(const struct acl_mdlri *m, const struct layout *L,
				   aclrtStream stream)
{
	for (uint32_t s = 0; s < m->nstreams; s++)
		if (m->streams[s] == stream && L->start[s] != NO_THREAD)
			return (struct drm_npu_cmd){ .op = DRM_NPU_OP_ACTIVATE, .value = L->start[s] };
	return (struct drm_npu_cmd){ .op = DRM_NPU_OP_NOP };
}

/* The opposite of each enum drm_npu_branch_cond. */
static const uint32_t branch_not[] = {
	[DRM_NPU_BRANCH_EQ] = DRM_NPU_BRANCH_NE, [DRM_NPU_BRANCH_NE] = DRM_NPU_BRANCH_EQ,
	[DRM_NPU_BRANCH_GT] = DRM_NPU_BRANCH_LE, [DRM_NPU_BRANCH_GE] = DRM_NPU_BRANCH_LT,
	[DRM_NPU_BRANCH_LT] = DRM_NPU_BRANCH_GE, [DRM_NPU_BRANCH_LE] = DRM_NPU_BRANCH_GT,
};

/* True: ACTIVATE on_true; false: on past it, or ACTIVATE on_false. */
static void emit_switch_stream(const struct acl_mdlri *m, const struct layout *L,
			       const struct acl_ri_step *st, struct drm_npu_cmd *v, uint32_t *j)
{
	uint32_t at = *j;
	struct drm_npu_cmd br = { .op = DRM_NPU_OP_BRANCH, .dst = st->dst, .src = st->src,
				  .size = st->size };

	if (!st->on_false) {
		br.cond = branch_not[st->cond];
		br.value = at + 2;
		v[(*j)++] = br;
		v[(*j)++] = activate(m, L, st->on_true);
		return;
	}
	br.cond = st->cond;
	br.value = at + 3;
	v[(*j)++] = br;
	v[(*j)++] = activate(m, L, st->on_false);
	v[(*j)++] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_JUMP, .value = at + 4 };
	v[(*j)++] = activate(m, L, st->on_true);
}

/* Appends step k's commands at v[*j]. */
static void emit(struct acl_mdlri *m, const struct layout *L, size_t k, struct drm_npu_cmd *v,
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
				.value = label_index(m, L, labels[l]) };
		break;
	case ACL_RI_END:
		v[(*j)++] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_END };
		break;
	case ACL_RI_ACTIVE:
		v[(*j)++] = activate(m, L, st->on_true);
		break;
	case ACL_RI_SWITCH_STREAM:
		emit_switch_stream(m, L, st, v, j);
		break;
	case ACL_RI_COND:
		acl_mdlri_cond_emit(st, v, j);
		break;
	default:
		break;
	}
}

/* Makes the task groups' and sub-models' programs of the run [i, end). */
static bool make_callees(struct acl_mdlri *m, size_t i, size_t end)
{
	if (threaded(m) && (i || end != m->nsteps)) {
		ACL_LOGW("a model of several bound streams runs as one program: it cannot hold "
			 "event records, waits or host functions");
		return false;
	}
	for (size_t k = i; k < end; k++) {
		struct acl_ri_step *st = &m->steps[k];

		if (st->kind == ACL_RI_COND && !acl_mdlri_cond_prepare(st))
			return false;
		if (st->kind == ACL_RI_GROUP && st->count &&
		    !acl_mdlri_program(m, &m->cmds[st->first], st->count, &st->program))
			return false;
	}
	return true;
}

/*
 * The program of the run of steps [i, end): its commands, each task group
 * a CALL of a program of its own (which an update replaces), labels the
 * indices their switches JUMP to, and a NOP last for a label at the end.
 */
static void make_program(struct acl_mdlri *m, size_t i, size_t end)
{
	struct drm_npu_cmd *v = NULL;
	struct layout L = { 0 };
	uint32_t n, j = 0;

	n = make_callees(m, i, end) ? lay_out(m, &L, i, end) : 0;
	if (n || L.ord)
		v = malloc((n + 1) * sizeof(*v));
	if (!v) {
		layout_free(&L);
		drop_group_programs(m, i, end);
		return;
	}
	for (size_t o = 0; o < L.n; o++) {
		if (L.ord[o] == RET_MARK)
			v[j++] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_RETURN };
		else
			emit(m, &L, L.ord[o], v, &j);
	}
	if (!threaded(m) && (m->steps[end - 1].kind == ACL_RI_LABEL ||
			     m->steps[end - 1].kind == ACL_RI_COND))
		v[j++] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_NOP };
	if (!acl_mdlri_program(m, v, j, &m->program[i]))
		drop_group_programs(m, i, end);
	free(v);
	layout_free(&L);
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
	for (size_t i = 0; i < m->nsteps; i++)
		m->steps[i].disabled = m->steps[i].disable_asked;
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
	if (st->disabled)
		return ACL_SUCCESS;
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
struct acl_mdlri *acl_mdlri_get(const char *fn, aclmdlRI handle, aclError *err)
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

	m = acl_mdlri_get(fn, modelRI, &err);
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
