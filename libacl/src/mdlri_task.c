// SPDX-License-Identifier: MIT
/*
 * The tasks of a captured model, one by one (aclmdlRIGetTasksByStream and
 * the aclmdlRITask* calls): each card command of its runs, and each event
 * record, wait, reset and host function. Their handles are made at the
 * first query and live as long as the model.
 *
 * aclmdlRITaskSetParams changes a value write's or value wait's address,
 * value and condition, or the event of an event task; aclmdlRITaskDisable
 * turns a card command into a NOP and makes replays skip an event or
 * host-function task. Both take effect at aclmdlRIUpdate
 * (the model's programs are made again at its next replay), or at the
 * first replay when the model never ran. Operators have no kernel
 * parameters here: setting them is not supported.
 */
#include <stdlib.h>
#include <string.h>

#include "capture.h"

struct acl_ri_task {
	struct acl_mdlri *m;
	uint32_t step;
	uint32_t cmd;		/* index in m->cmds; UINT32_MAX for a step task */
};

struct acl_ri_tasks {
	struct acl_ri_task *v;
	size_t n;
};

static bool step_is_task(enum acl_ri_step_kind kind)
{
	return kind == ACL_RI_RECORD || kind == ACL_RI_WAIT || kind == ACL_RI_RESET ||
	       kind == ACL_RI_HOSTFUNC || kind == ACL_RI_CALLBACK;
}

/* m's tasks in step order (capture lock held); NULL when out of memory. */
static struct acl_ri_tasks *tasks_locked(struct acl_mdlri *m)
{
	struct acl_ri_tasks *t = m->ri_tasks;
	size_t n = 0, i, j;

	if (t)
		return t;
	for (i = 0; i < m->nsteps; i++)
		n += acl_ri_has_cmds(m->steps[i].kind) ? m->steps[i].count :
		     step_is_task(m->steps[i].kind);
	t = calloc(1, sizeof(*t));
	if (!t || !(t->v = calloc(n ? n : 1, sizeof(*t->v)))) {
		free(t);
		return NULL;
	}
	for (i = 0; i < m->nsteps; i++) {
		const struct acl_ri_step *st = &m->steps[i];

		if (acl_ri_has_cmds(st->kind))
			for (j = 0; j < st->count; j++)
				t->v[t->n++] = (struct acl_ri_task){ m, (uint32_t)i,
								     st->first + (uint32_t)j };
		else if (step_is_task(st->kind))
			t->v[t->n++] = (struct acl_ri_task){ m, (uint32_t)i, UINT32_MAX };
	}
	m->ri_tasks = t;
	return t;
}

void acl_mdlri_tasks_free(struct acl_mdlri *m)
{
	if (!m->ri_tasks)
		return;
	free(m->ri_tasks->v);
	free(m->ri_tasks);
	m->ri_tasks = NULL;
}

ACL_EXPORT aclError aclmdlRIGetTasksByStream(aclrtStream stream, aclmdlRITask *tasks,
					     uint32_t *numTasks)
{
	struct acl_ri_tasks *t;
	struct acl_mdlri *m;
	uint32_t n = 0;
	int idx;

	ACL_CHECK_NULL(stream);
	ACL_CHECK_NULL(numTasks);
	acl_capture_lock();
	m = acl_mdlri_of_stream_locked(stream, &idx);
	if (!m) {
		acl_capture_unlock();
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "stream %p belongs to no model runtime "
				"instance (aclmdlRIGetStreams names a model's)", stream);
	}
	t = tasks_locked(m);
	if (!t) {
		acl_capture_unlock();
		return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of host memory");
	}
	for (size_t i = 0; i < t->n; i++) {
		if (m->steps[t->v[i].step].stream != (uint32_t)idx)
			continue;
		if (tasks && n >= *numTasks) {
			acl_capture_unlock();
			return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "numTasks %u is too few for the "
					"stream's tasks", *numTasks);
		}
		if (tasks)
			tasks[n] = &t->v[i];
		n++;
	}
	*numTasks = n;
	acl_capture_unlock();
	return ACL_SUCCESS;
}

/* The task of a handle (capture lock held on success). */
static struct acl_ri_task *task_locked(const char *fn, aclmdlRITask handle, aclError *err)
{
	struct acl_ri_task *task = handle;

	acl_capture_lock();
	if (!task || !acl_mdlri_lookup_locked(task->m) || !task->m->ri_tasks ||
	    task < task->m->ri_tasks->v || task >= task->m->ri_tasks->v + task->m->ri_tasks->n) {
		acl_capture_unlock();
		*err = acl_fail(fn, ACL_ERROR_INVALID_PARAM, "task %p is not a task of a live "
				"model runtime instance", handle);
		return NULL;
	}
	return task;
}

static aclmdlRITaskType task_type(const struct acl_ri_task *task)
{
	const struct acl_mdlri *m = task->m;

	switch (m->steps[task->step].kind) {
	case ACL_RI_RECORD:
		return ACL_MODEL_RI_TASK_EVENT_RECORD;
	case ACL_RI_WAIT:
		return ACL_MODEL_RI_TASK_EVENT_WAIT;
	case ACL_RI_RESET:
		return ACL_MODEL_RI_TASK_EVENT_RESET;
	case ACL_RI_HOSTFUNC:
	case ACL_RI_CALLBACK:
		return ACL_MODEL_RI_TASK_DEFAULT;
	default:
		break;
	}
	switch (m->cmds[task->cmd].op) {
	case DRM_NPU_OP_COMPUTE:
		return ACL_MODEL_RI_TASK_KERNEL;
	case DRM_NPU_OP_VALUE_WRITE:
		return ACL_MODEL_RI_TASK_VALUE_WRITE;
	case DRM_NPU_OP_VALUE_WAIT:
		return ACL_MODEL_RI_TASK_VALUE_WAIT;
	default:
		return ACL_MODEL_RI_TASK_DEFAULT;
	}
}

ACL_EXPORT aclError aclmdlRITaskGetType(aclmdlRITask task, aclmdlRITaskType *type)
{
	aclError err = ACL_SUCCESS;
	struct acl_ri_task *t;

	ACL_CHECK_NULL(type);
	t = task_locked(__func__, task, &err);
	if (!t)
		return err;
	*type = task_type(t);
	acl_capture_unlock();
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclmdlRITaskGetSeqId(aclmdlRITask task, uint32_t *id)
{
	aclError err = ACL_SUCCESS;
	struct acl_ri_task *t;

	ACL_CHECK_NULL(id);
	t = task_locked(__func__, task, &err);
	if (!t)
		return err;
	*id = (uint32_t)(t - t->m->ri_tasks->v);
	acl_capture_unlock();
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclmdlRITaskGetParams(aclmdlRITask task, aclmdlRITaskParams *params)
{
	aclError err = ACL_SUCCESS;
	const struct drm_npu_cmd *c;
	struct acl_ri_task *t;

	ACL_CHECK_NULL(params);
	t = task_locked(__func__, task, &err);
	if (!t)
		return err;
	memset(params, 0, sizeof(*params));
	params->type = task_type(t);
	c = t->cmd == UINT32_MAX ? NULL : &t->m->cmds[t->cmd];
	switch (params->type) {
	case ACL_MODEL_RI_TASK_EVENT_RECORD:
		params->eventRecordTaskParams.event = t->m->steps[t->step].event;
		break;
	case ACL_MODEL_RI_TASK_EVENT_WAIT:
		params->eventWaitTaskParams.event = t->m->steps[t->step].event;
		break;
	case ACL_MODEL_RI_TASK_EVENT_RESET:
		params->eventResetTaskParams.event = t->m->steps[t->step].event;
		break;
	case ACL_MODEL_RI_TASK_VALUE_WRITE:
		params->valueWriteTaskParams.devAddr = (void *)(uintptr_t)c->dst;
		params->valueWriteTaskParams.value = c->value;
		break;
	case ACL_MODEL_RI_TASK_VALUE_WAIT:
		params->valueWaitTaskParams.devAddr = (void *)(uintptr_t)c->dst;
		params->valueWaitTaskParams.value = c->value;
		params->valueWaitTaskParams.flag = c->cond;
		break;
	default:
		break;
	}
	acl_capture_unlock();
	return ACL_SUCCESS;
}

/* A value task's new operands, checked as aclrtValueWrite/Wait check them. */
static aclError set_value(struct drm_npu_cmd *c, void *addr, uint64_t value, uint32_t flag,
			  bool wait)
{
	if (!addr || !acl_is_dev_ptr(addr))
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "devAddr %p is not device memory", addr);
	if ((uintptr_t)addr & 7)
		return ACL_FAIL(ACL_ERROR_RT_ADDR_UNALIGNED, "%p is not 8-byte aligned", addr);
	if (wait && flag > ACL_STREAM_WAIT_VALUE_NOR)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "invalid wait flag %u", flag);
	c->dst = (uintptr_t)addr;
	c->value = value;
	c->cond = wait ? flag : 0;
	return ACL_SUCCESS;
}

static aclError set_params_locked(struct acl_ri_task *t, const aclmdlRITaskParams *p)
{
	struct drm_npu_cmd *c = t->cmd == UINT32_MAX ? NULL : &t->m->cmds[t->cmd];
	aclmdlRITaskType type = task_type(t);

	if (p->type != type)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "the task is of type %d, the parameters of "
				"type %d", type, p->type);
	switch (type) {
	case ACL_MODEL_RI_TASK_VALUE_WRITE:
		return set_value(c, p->valueWriteTaskParams.devAddr,
				 p->valueWriteTaskParams.value, 0, false);
	case ACL_MODEL_RI_TASK_VALUE_WAIT:
		return set_value(c, p->valueWaitTaskParams.devAddr, p->valueWaitTaskParams.value,
				 p->valueWaitTaskParams.flag, true);
	case ACL_MODEL_RI_TASK_EVENT_RECORD:
	case ACL_MODEL_RI_TASK_EVENT_WAIT:
	case ACL_MODEL_RI_TASK_EVENT_RESET: {
		aclrtEvent ev = type == ACL_MODEL_RI_TASK_EVENT_RECORD ?
				p->eventRecordTaskParams.event :
				type == ACL_MODEL_RI_TASK_EVENT_WAIT ? p->eventWaitTaskParams.event :
				p->eventResetTaskParams.event;

		if (!acl_obj_lookup(ACL_OBJ_EVENT, ev))
			return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "event %p is not a live event", ev);
		t->m->steps[t->step].event = ev;
		return ACL_SUCCESS;
	}
	default:
		return ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "tasks of type %d have no "
				"parameters to set on this card (operators run no kernels)", type);
	}
}

ACL_EXPORT aclError aclmdlRITaskSetParams(aclmdlRITask task, aclmdlRITaskParams *params)
{
	aclError err = ACL_SUCCESS;
	struct acl_ri_task *t;

	ACL_CHECK_NULL(params);
	t = task_locked(__func__, task, &err);
	if (!t)
		return err;
	err = set_params_locked(t, params);
	acl_capture_unlock();
	return err;
}

ACL_EXPORT aclError aclmdlRITaskDisable(aclmdlRITask task)
{
	aclError err = ACL_SUCCESS;
	struct acl_ri_task *t;

	t = task_locked(__func__, task, &err);
	if (!t)
		return err;
	if (t->cmd == UINT32_MAX)
		t->m->steps[t->step].disable_asked = true;
	else
		t->m->cmds[t->cmd] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_NOP };
	acl_capture_unlock();
	return err;
}

/*
 * A kernel task is one operator of the card's library, launched with no
 * configuration: no scheduling mode, dynamic buffer, dump or timeout of
 * its own, so those read 0. What the vendor does not let be queried
 * (engine, block offset, prefetch), and profiling, which this runtime
 * does not switch per task, are refused.
 */
ACL_EXPORT aclError aclmdlRIKernelTaskGetAttribute(aclmdlRITask task, aclrtLaunchKernelAttrId attrId,
						   aclrtLaunchKernelAttrValue *attrValue)
{
	aclError err = ACL_SUCCESS;
	struct acl_ri_task *t;
	bool kernel;

	ACL_CHECK_NULL(attrValue);
	t = task_locked(__func__, task, &err);
	if (!t)
		return err;
	kernel = task_type(t) == ACL_MODEL_RI_TASK_KERNEL;
	acl_capture_unlock();
	if (!kernel)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "the task is not a kernel task");
	switch (attrId) {
	case ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE:
	case ACL_RT_LAUNCH_KERNEL_ATTR_DYN_UBUF_SIZE:
	case ACL_RT_LAUNCH_KERNEL_ATTR_DATA_DUMP:
	case ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT:
	case ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US:
		memset(attrValue, 0, sizeof(*attrValue));
		return ACL_SUCCESS;
	case ACL_RT_LAUNCH_KERNEL_ATTR_ENABLE_PROFILING:
		return ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "profiling is not switched per "
				"task on this runtime");
	default:
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "attribute %d cannot be queried",
				(int)attrId);
	}
}

/* The model's programs are made again, with the tasks as they are now, at its next replay. */
ACL_EXPORT aclError aclmdlRIUpdate(aclmdlRI modelRI)
{
	aclError err = ACL_SUCCESS;
	struct acl_mdlri *m = acl_mdlri_get(__func__, modelRI, &err);

	if (!m)
		return err;
	acl_mutex_lock(&m->run_lock);
	acl_mdlri_unbuild(m);
	acl_mutex_unlock(&m->run_lock);
	acl_mdlri_put(m);
	return ACL_SUCCESS;
}
