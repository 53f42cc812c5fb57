// SPDX-License-Identifier: MIT
/*
 * Condition tasks of captured models (aclmdlRICondHandleCreate,
 * aclmdlRICondHandleGetCondPtr, aclmdlRIAddCondTask).
 *
 * A condition handle is an 8-byte word of device memory that its model
 * owns. A condition task makes its sub-models (models of their own, which
 * aclmdlRICaptureToModelRIBegin fills) and becomes, in the parent's
 * program, a BRANCH on the word around CALLs of the sub-models' programs:
 *   IF      BRANCH ==0 to else; CALL 0; JUMP end; else: CALL 1 (if given)
 *   WHILE   top: BRANCH ==0 to end; CALL 0; JUMP top
 *   SWITCH  SWITCH over JUMPs to CALL i; JUMP end
 * A sub-model therefore runs only as one card program: it may hold card
 * work and control steps, not event records, waits or host functions.
 * Under ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT each replay writes the
 * default into the word before the model's first task.
 */
#include <stdlib.h>
#include <string.h>

#include "capture.h"

#define COND_MAGIC	0x434f4e44U	/* "COND" */

struct acl_cond {
	uint32_t magic;
	uint32_t flag;
	uint64_t value;			/* the default */
	void *word;			/* 8 bytes of device memory */
	struct acl_mdlri *m;
};

/* A condition task: step.arg */
struct acl_cond_task {
	aclmdlRICondTaskType type;
	uint64_t word;
	uint32_t n;
	uint32_t *ids;			/* the sub-models' programs when built */
	struct acl_mdlri *subs[];
};

/* Live handles, under the capture lock. */
static struct acl_cond **live;
static size_t nlive, live_cap;

static bool live_add_locked(struct acl_cond *c)
{
	if (nlive == live_cap) {
		size_t n = live_cap ? 2 * live_cap : 16;
		struct acl_cond **v = realloc(live, n * sizeof(*v));

		if (!v)
			return false;
		live = v;
		live_cap = n;
	}
	live[nlive++] = c;
	return true;
}

static struct acl_cond *cond_lookup_locked(const void *handle)
{
	for (size_t i = 0; i < nlive; i++)
		if (live[i] == handle)
			return live[i];
	return NULL;
}

static bool model_add_cond_locked(struct acl_mdlri *m, struct acl_cond *c)
{
	struct acl_cond **v = realloc(m->conds, (m->nconds + 1) * sizeof(*v));

	if (!v)
		return false;
	m->conds = v;
	m->conds[m->nconds++] = c;
	return true;
}

/*
 * The word starts as the default, written on the context's default
 * stream, which never captures: a synchronous copy would be refused (and
 * end the capture) inside most captures, which is where handles are made.
 */
static aclError init_word(struct acl_context *ctx, const struct acl_cond *c)
{
	struct drm_npu_cmd w = { .op = DRM_NPU_OP_VALUE_WRITE, .dst = (uintptr_t)c->word,
				 .value = c->value };
	struct acl_ticket t;
	aclError err;

	err = acl_stream_submit(ctx->default_stream, &w, 1, &t);
	return err ? err : acl_stream_wait(ctx->default_stream, &t, -1);
}

ACL_EXPORT aclError aclmdlRICondHandleCreate(aclmdlRI modelRI, uint32_t defaultLaunchValue,
					     aclmdlRICondHandleFlag flag, aclmdlRICondHandle *handle)
{
	struct acl_context *ctx;
	struct acl_cond *c;
	struct acl_mdlri *m;
	aclError err;
	bool ok;

	ACL_CHECK_NULL(modelRI);
	ACL_CHECK_NULL(handle);
	if (flag != 0 && flag != ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown flag %#x", (unsigned)flag);
	ctx = acl_current_ctx();
	if (!ctx)
		return ACL_ERROR_RT_CONTEXT_NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory");
	c->magic = COND_MAGIC;
	c->flag = flag;
	c->value = defaultLaunchValue;
	err = aclrtMalloc(&c->word, sizeof(uint64_t), ACL_MEM_MALLOC_HUGE_FIRST);
	if (!err)
		err = init_word(ctx, c);
	if (err) {
		if (c->word)
			aclrtFree(c->word);
		free(c);
		return err;
	}
	acl_capture_lock();
	m = acl_mdlri_lookup_locked(modelRI);
	ok = m && m->dev == ctx->dev && live_add_locked(c);
	if (ok && !model_add_cond_locked(m, c)) {
		nlive--;
		ok = false;
	}
	c->m = m;
	acl_capture_unlock();
	if (!ok) {
		aclrtFree(c->word);
		free(c);
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "modelRI %p is not a live model runtime "
				"instance of the current device (or out of memory)", modelRI);
	}
	*handle = c;
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclmdlRICondHandleGetCondPtr(aclmdlRICondHandle handle, uint64_t **ptr)
{
	struct acl_cond *c;

	ACL_CHECK_NULL(ptr);
	acl_capture_lock();
	c = cond_lookup_locked(handle);
	if (c)
		*ptr = c->word;
	acl_capture_unlock();
	if (!c)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%p is not a live condition handle",
				handle);
	return ACL_SUCCESS;
}

static aclError check_params(const aclmdlRICondTaskParams *p)
{
	switch (p->type) {
	case ACL_MODEL_RI_COND_TYPE_IF:
		if (p->size != 1 && p->size != 2)
			return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "an IF takes 1 or 2 models, not %u",
					p->size);
		break;
	case ACL_MODEL_RI_COND_TYPE_WHILE:
		if (p->size != 1)
			return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "a WHILE takes 1 model, not %u",
					p->size);
		break;
	case ACL_MODEL_RI_COND_TYPE_SWITCH:
		if (!p->size || p->size > DRM_NPU_MAX_PROGRAM / 4)
			return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "a SWITCH takes 1..%d models, not "
					"%u", DRM_NPU_MAX_PROGRAM / 4, p->size);
		break;
	default:
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown condition type %d", (int)p->type);
	}
	if (!p->modelRIArray)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "modelRIArray is NULL");
	return ACL_SUCCESS;
}

/* The task and its sub-models, or NULL (capture lock held). */
static struct acl_cond_task *task_new_locked(const aclmdlRICondTaskParams *p,
					     const struct acl_cond *c)
{
	struct acl_cond_task *t = calloc(1, sizeof(*t) + p->size * sizeof(t->subs[0]));

	if (!t)
		return NULL;
	t->ids = calloc(p->size, sizeof(*t->ids));
	t->type = p->type;
	t->word = (uintptr_t)c->word;
	for (t->n = 0; t->ids && t->n < p->size; t->n++) {
		t->subs[t->n] = acl_mdlri_new_locked(c->m->dev);
		if (!t->subs[t->n])
			break;
		t->subs[t->n]->refs++;	/* the parent's: dropped when it is freed */
	}
	if (t->ids && t->n == p->size)
		return t;
	acl_mdlri_cond_task_free_locked(t);
	return NULL;
}

ACL_EXPORT aclError aclmdlRIAddCondTask(aclmdlRICondTaskParams params, aclrtStream stream,
					uint32_t flags)
{
	struct acl_ri_step st = { .kind = ACL_RI_COND };
	struct acl_cond_task *t;
	struct acl_stream *s;
	struct acl_cond *c;
	aclError err;

	if (flags)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "flags %#x is not 0", flags);
	err = check_params(&params);
	if (err)
		return err;
	s = acl_stream_resolve(stream, &err);
	if (!s)
		return err;
	acl_capture_lock();
	c = cond_lookup_locked(params.handle);
	t = c ? task_new_locked(&params, c) : NULL;
	acl_capture_unlock();
	if (!c)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%p is not a live condition handle",
				params.handle);
	if (!t)
		return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory");
	st.arg = t;
	if (!acl_capture_control(s, c->m, &st, &err))
		err = ACL_FAIL(ACL_ERROR_RT_STREAM_NOT_CAPTURED, "the stream is not capturing "
			       "into the condition handle's model");
	acl_capture_lock();
	if (err)
		acl_mdlri_cond_task_free_locked(t);
	else
		memcpy(params.modelRIArray, t->subs, t->n * sizeof(t->subs[0]));
	acl_capture_unlock();
	return err;
}

void acl_mdlri_cond_task_free_locked(void *task)
{
	struct acl_cond_task *t = task;

	for (uint32_t i = 0; i < t->n; i++) {
		struct acl_mdlri *sub = t->subs[i];

		if (!sub->dead) {
			acl_list_del(&sub->link);
			acl_list_init(&sub->link);
			sub->dead = true;
		}
		if (!--sub->refs) {
			aclrtEvent done = acl_mdlri_free(sub);

			/* Only a sub-model replayed on its own has one: leave it to the context. */
			if (done)
				ACL_LOGW("sub-model %u's replay event is left to its context", sub->id);
		}
	}
	free(t->ids);
	free(t);
}

void acl_mdlri_cond_free_locked(struct acl_mdlri *m)
{
	for (size_t i = 0; i < m->nsteps; i++)
		if (m->steps[i].kind == ACL_RI_COND)
			acl_mdlri_cond_task_free_locked(m->steps[i].arg);
	for (size_t i = 0; i < m->nconds; i++) {
		struct acl_cond *c = m->conds[i];

		for (size_t k = 0; k < nlive; k++)
			if (live[k] == c)
				live[k] = live[--nlive];
		aclrtFree(c->word);
		free(c);
	}
	free(m->conds);
	m->conds = NULL;
	m->nconds = 0;
}

aclError acl_mdlri_cond_defaults(struct acl_mdlri *m, struct acl_stream *s)
{
	struct drm_npu_cmd cmds[DRM_NPU_MAX_BATCH];
	uint32_t n = 0;
	aclError err = ACL_SUCCESS;

	for (size_t i = 0; i < m->nconds && !err; i++) {
		if (m->conds[i]->flag != ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT)
			continue;
		cmds[n++] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_VALUE_WRITE,
			.dst = (uintptr_t)m->conds[i]->word, .value = m->conds[i]->value };
		if (n == DRM_NPU_MAX_BATCH) {
			err = acl_stream_submit(s, cmds, n, NULL);
			n = 0;
		}
	}
	if (n && !err)
		err = acl_stream_submit(s, cmds, n, NULL);
	return err;
}

/* The single program of a sub-model, 0 for an empty one; false if it has none. */
static bool sub_program(struct acl_mdlri *sub, uint32_t *id)
{
	bool ok;

	acl_mutex_lock(&sub->run_lock);
	*id = 0;
	ok = !acl_mdlri_build(sub);
	for (size_t i = 0; ok && i < sub->nsteps; i++)
		ok = acl_ri_in_program(sub->steps[i].kind);
	if (ok && sub->nsteps) {
		*id = sub->program[0];
		ok = *id != 0;
	}
	acl_mutex_unlock(&sub->run_lock);
	return ok;
}

bool acl_mdlri_cond_prepare(struct acl_ri_step *st)
{
	struct acl_cond_task *t = st->arg;

	for (uint32_t i = 0; i < t->n; i++)
		if (!sub_program(t->subs[i], &t->ids[i])) {
			ACL_LOGW("sub-model %u of a condition task holds work that is not card "
				 "commands (events, host functions) or no program was made: the "
				 "condition task cannot run", t->subs[i]->id);
			return false;
		}
	return true;
}

bool acl_mdlri_cond_stale(const struct acl_mdlri *m)
{
	for (size_t i = 0; i < m->nsteps; i++) {
		const struct acl_cond_task *t = m->steps[i].arg;

		if (m->steps[i].kind != ACL_RI_COND)
			continue;
		for (uint32_t k = 0; k < t->n; k++) {
			struct acl_mdlri *sub = t->subs[k];
			bool stale;

			acl_mutex_lock(&sub->run_lock);
			stale = !sub->built || (sub->nsteps ? sub->program[0] : 0) != t->ids[k] ||
				acl_mdlri_cond_stale(sub);
			acl_mutex_unlock(&sub->run_lock);
			if (stale)
				return true;
		}
	}
	return false;
}

uint32_t acl_mdlri_cond_len(const struct acl_ri_step *st)
{
	const struct acl_cond_task *t = st->arg;

	switch (t->type) {
	case ACL_MODEL_RI_COND_TYPE_IF:
		return t->n == 2 ? 4 : 2;
	case ACL_MODEL_RI_COND_TYPE_WHILE:
		return 3;
	default:
		return 2 + 3 * t->n;
	}
}

/* A CALL of sub-model i's program, a NOP for an empty one. */
static struct drm_npu_cmd call(const struct acl_cond_task *t, uint32_t i)
{
	if (!t->ids[i])
		return (struct drm_npu_cmd){ .op = DRM_NPU_OP_NOP };
	return (struct drm_npu_cmd){ .op = DRM_NPU_OP_CALL, .value = t->ids[i] };
}

/* Whether the word is 0: a BRANCH to target. */
static struct drm_npu_cmd if_zero(const struct acl_cond_task *t, uint32_t target)
{
	return (struct drm_npu_cmd){ .op = DRM_NPU_OP_BRANCH, .flags = DRM_NPU_CMD_SRC_IMM,
		.dst = t->word, .src = 0, .size = 8, .cond = DRM_NPU_BRANCH_EQ, .value = target };
}

static struct drm_npu_cmd jump(uint32_t target)
{
	return (struct drm_npu_cmd){ .op = DRM_NPU_OP_JUMP, .value = target };
}

void acl_mdlri_cond_emit(const struct acl_ri_step *st, struct drm_npu_cmd *v, uint32_t *j)
{
	const struct acl_cond_task *t = st->arg;
	uint32_t at = *j, end = at + acl_mdlri_cond_len(st);

	switch (t->type) {
	case ACL_MODEL_RI_COND_TYPE_IF:
		v[(*j)++] = if_zero(t, t->n == 2 ? at + 3 : end);
		v[(*j)++] = call(t, 0);
		if (t->n == 2) {
			v[(*j)++] = jump(end);
			v[(*j)++] = call(t, 1);
		}
		break;
	case ACL_MODEL_RI_COND_TYPE_WHILE:
		v[(*j)++] = if_zero(t, end);
		v[(*j)++] = call(t, 0);
		v[(*j)++] = jump(at);
		break;
	default:
		v[(*j)++] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_SWITCH, .dst = t->word,
						  .size = 8, .value = t->n };
		for (uint32_t i = 0; i < t->n; i++)
			v[(*j)++] = jump(at + 2 + t->n + 2 * i);
		v[(*j)++] = jump(end);
		for (uint32_t i = 0; i < t->n; i++) {
			v[(*j)++] = call(t, i);
			v[(*j)++] = jump(end);
		}
		break;
	}
}
