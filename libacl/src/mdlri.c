// SPDX-License-Identifier: MIT
/*
 * Model runtime instances (aclmdlRI): what a capture recorded, their
 * names and ids, the streams that recorded into them, a JSON listing of
 * their tasks, and their destruction. Replay is mdlri_run.c's.
 *
 * A handle is the model's address, accepted only while the model is in
 * the list of live ones: a destroyed or made-up handle is refused, not
 * dereferenced.
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "capture.h"
#include "npu_operator.h"

static struct acl_list models = { &models, &models };
static uint32_t next_id = 1;

struct acl_mdlri *acl_mdlri_new_locked(struct acl_device *dev)
{
	struct acl_mdlri *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->id = next_id++;
	m->dev = dev;
	acl_mutex_init(&m->run_lock);
	acl_list_add(&models, &m->link);
	return m;
}

struct acl_mdlri *acl_mdlri_lookup_locked(aclmdlRI handle)
{
	struct acl_list *l;

	for (l = models.next; l != &models; l = l->next) {
		struct acl_mdlri *m = (struct acl_mdlri *)((char *)l -
							   offsetof(struct acl_mdlri, link));

		if ((aclmdlRI)m == handle)
			return m;
	}
	return NULL;
}

static bool grow(void **v, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return true;
	while (n < need)
		n *= 2;
	p = realloc(*v, n * elem);
	if (!p)
		return false;
	*v = p;
	*cap = n;
	return true;
}

/* A copy of an operator's descriptor, which the caller may reuse at once. */
static void *copy_desc(struct acl_mdlri *m, const struct drm_npu_cmd *c)
{
	size_t size = (c->size + NPU_OP_DESC_ALIGN - 1) & ~(size_t)(NPU_OP_DESC_ALIGN - 1);
	void *d;

	if (!grow((void **)&m->descs, &m->descs_cap, m->ndescs + 1, sizeof(*m->descs)))
		return NULL;
	d = aligned_alloc(NPU_OP_DESC_ALIGN, size ? size : NPU_OP_DESC_ALIGN);
	if (!d)
		return NULL;
	memcpy(d, (const void *)(uintptr_t)c->src, c->size);
	m->descs[m->ndescs++] = d;
	return d;
}

bool acl_mdlri_add_cmds_locked(struct acl_mdlri *m, uint32_t stream,
			       const struct drm_npu_cmd *cmds, size_t count)
{
	struct acl_ri_step *last = m->nsteps ? &m->steps[m->nsteps - 1] : NULL;
	struct acl_ri_step st = { .kind = ACL_RI_CMDS, .stream = stream };

	if (!count)
		return true;
	if (!grow((void **)&m->cmds, &m->cmds_cap, m->ncmds + count, sizeof(*m->cmds)))
		return false;
	for (size_t i = 0; i < count; i++) {
		struct drm_npu_cmd c = cmds[i];

		if (c.op == DRM_NPU_OP_COMPUTE) {
			void *d = copy_desc(m, &c);

			if (!d)
				return false;
			c.src = (uintptr_t)d;
		}
		m->cmds[m->ncmds + i] = c;
	}
	if (last && (last->kind == ACL_RI_CMDS || last->open) && last->stream == stream &&
	    last->first + last->count == m->ncmds) {
		last->count += (uint32_t)count;
		m->ncmds += count;
		return true;
	}
	st.first = (uint32_t)m->ncmds;
	st.count = (uint32_t)count;
	if (!acl_mdlri_add_step_locked(m, &st))
		return false;
	m->ncmds += count;
	return true;
}

bool acl_mdlri_add_step_locked(struct acl_mdlri *m, const struct acl_ri_step *step)
{
	if (!grow((void **)&m->steps, &m->steps_cap, m->nsteps + 1, sizeof(*m->steps)))
		return false;
	m->steps[m->nsteps++] = *step;
	return true;
}

int acl_mdlri_stream_index_locked(struct acl_mdlri *m, aclrtStream stream)
{
	for (uint32_t i = 0; i < m->nstreams; i++)
		if (m->streams[i] == stream)
			return (int)i;
	if (m->nstreams == ACL_CAPTURE_MAX_STREAMS)
		return -1;
	m->streams[m->nstreams] = stream;
	return (int)m->nstreams++;
}

aclrtEvent acl_mdlri_free(struct acl_mdlri *m)
{
	aclrtEvent done = m->done;

	acl_list_del(&m->link);
	acl_mdlri_unbuild(m);
	acl_mdlri_cond_free_locked(m);
	acl_mdlri_destroy_cbs_drop(m);
	acl_mdlri_tasks_free(m);
	for (size_t i = 0; i < m->ndescs; i++)
		free(m->descs[i]);
	free(m->descs);
	free(m->cmds);
	for (size_t i = 0; i < m->nsteps; i++)
		if (m->steps[i].kind == ACL_RI_SWITCH)
			free(m->steps[i].arg);
	free(m->steps);
	for (size_t i = 0; i < m->ngroups; i++)
		free(m->groups[i]);
	free(m->groups);
	free(m->program);
	acl_mutex_destroy(&m->run_lock);
	free(m);
	return done;
}

struct acl_mdlri *acl_mdlri_of_stream_locked(aclrtStream stream, int *idx)
{
	struct acl_mdlri *found = NULL;
	struct acl_list *l;

	for (l = models.next; l != &models; l = l->next) {
		struct acl_mdlri *m = (struct acl_mdlri *)((char *)l -
							   offsetof(struct acl_mdlri, link));

		if (m->capturing || (found && found->id > m->id))
			continue;
		for (uint32_t i = 0; i < m->nstreams; i++) {
			if (m->streams[i] == stream) {
				found = m;
				*idx = (int)i;
			}
		}
	}
	return found;
}

struct acl_task_grp *acl_task_grp_lookup_locked(aclrtTaskGrp handle)
{
	struct acl_list *l;

	for (l = models.next; l != &models; l = l->next) {
		struct acl_mdlri *m = (struct acl_mdlri *)((char *)l -
							   offsetof(struct acl_mdlri, link));

		for (size_t i = 0; i < m->ngroups; i++)
			if ((aclrtTaskGrp)m->groups[i] == handle)
				return m->groups[i];
	}
	return NULL;
}

/* ---- public API ------------------------------------------------------- */

/* Looks m up; the capture lock stays held on success. */
static struct acl_mdlri *get_locked(const char *fn, aclmdlRI handle, aclError *err)
{
	struct acl_mdlri *m;

	if (!handle) {
		*err = acl_fail(fn, ACL_ERROR_INVALID_PARAM, "modelRI is NULL");
		return NULL;
	}
	acl_capture_lock();
	m = acl_mdlri_lookup_locked(handle);
	if (!m) {
		acl_capture_unlock();
		*err = acl_fail(fn, ACL_ERROR_INVALID_PARAM, "modelRI %p is not a live model "
				"runtime instance", handle);
	}
	return m;
}

ACL_EXPORT aclError aclmdlRIDestroy(aclmdlRI modelRI)
{
	aclError err = ACL_SUCCESS;
	struct acl_mdlri *m = get_locked(__func__, modelRI, &err);
	struct acl_mdlri_destroy_cb *cbs;
	aclrtEvent done = NULL;

	if (!m)
		return err;
	if (m->capturing) {
		acl_capture_unlock();
		return ACL_FAIL(ACL_ERROR_RT_MODEL_CAPTURED, "the model is being captured into");
	}
	/* A replay being queued meanwhile holds a reference; the last one frees it. */
	acl_list_del(&m->link);
	acl_list_init(&m->link);
	m->dead = true;
	cbs = acl_mdlri_destroy_cbs_take_locked(m);
	if (!m->refs)
		done = acl_mdlri_free(m);
	acl_capture_unlock();
	if (done)
		aclrtDestroyEvent(done);
	acl_mdlri_destroy_cbs_call(cbs);
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclmdlRISetName(aclmdlRI modelRI, const char *name)
{
	aclError err = ACL_SUCCESS;
	struct acl_mdlri *m;

	ACL_CHECK_NULL(name);
	m = get_locked(__func__, modelRI, &err);
	if (!m)
		return err;
	snprintf(m->name, sizeof(m->name), "%s", name);
	acl_capture_unlock();
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclmdlRIGetName(aclmdlRI modelRI, uint32_t maxLen, char *name)
{
	aclError err = ACL_SUCCESS;
	struct acl_mdlri *m;

	ACL_CHECK_NULL(name);
	if (!maxLen)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "maxLen is 0");
	m = get_locked(__func__, modelRI, &err);
	if (!m)
		return err;
	if (strlen(m->name) >= maxLen)
		err = ACL_FAIL(ACL_ERROR_INVALID_PARAM, "the name needs %zu bytes, maxLen is %u",
			       strlen(m->name) + 1, maxLen);
	else
		strcpy(name, m->name);
	acl_capture_unlock();
	return err;
}

ACL_EXPORT aclError aclmdlRIGetId(aclmdlRI modelRI, uint32_t *modelRIId)
{
	aclError err = ACL_SUCCESS;
	struct acl_mdlri *m;

	ACL_CHECK_NULL(modelRIId);
	m = get_locked(__func__, modelRI, &err);
	if (!m)
		return err;
	*modelRIId = m->id;
	acl_capture_unlock();
	return ACL_SUCCESS;
}

/* *numStreams in: room in streams; out: how many there are (all, when streams is NULL). */
ACL_EXPORT aclError aclmdlRIGetStreams(aclmdlRI modelRI, aclrtStream *streams,
				       uint32_t *numStreams)
{
	aclError err = ACL_SUCCESS;
	struct acl_mdlri *m;

	ACL_CHECK_NULL(numStreams);
	m = get_locked(__func__, modelRI, &err);
	if (!m)
		return err;
	if (streams && *numStreams < m->nstreams)
		err = ACL_FAIL(ACL_ERROR_INVALID_PARAM, "the model has %u streams, room for %u",
			       m->nstreams, *numStreams);
	else if (streams)
		memcpy(streams, m->streams, m->nstreams * sizeof(*streams));
	if (!err)
		*numStreams = m->nstreams;
	acl_capture_unlock();
	return err;
}

static const char *cmd_name(const struct drm_npu_cmd *c)
{
	static const char *const names[] = {
		[DRM_NPU_OP_NOP] = "NOP", [DRM_NPU_OP_COPY] = "MEMCPY",
		[DRM_NPU_OP_FILL] = "MEMSET", [DRM_NPU_OP_SLOT_WRITE] = "SLOT_WRITE",
		[DRM_NPU_OP_SLOT_WAIT] = "SLOT_WAIT", [DRM_NPU_OP_VALUE_WRITE] = "VALUE_WRITE",
		[DRM_NPU_OP_VALUE_WAIT] = "VALUE_WAIT", [DRM_NPU_OP_TIMESTAMP] = "TIMESTAMP",
		[DRM_NPU_OP_COMPUTE] = "KERNEL",
	};

	return c->op < sizeof(names) / sizeof(names[0]) && names[c->op] ? names[c->op] : "OTHER";
}

static const char *const step_names[] = {
	[ACL_RI_RECORD] = "EVENT_RECORD", [ACL_RI_WAIT] = "EVENT_WAIT",
	[ACL_RI_RESET] = "EVENT_RESET", [ACL_RI_HOSTFUNC] = "HOST_FUNC",
	[ACL_RI_CALLBACK] = "CALLBACK",
	[ACL_RI_LABEL] = "LABEL_SET", [ACL_RI_SWITCH] = "LABEL_SWITCH_BY_INDEX",
	[ACL_RI_END] = "MODEL_END", [ACL_RI_COND] = "COND",
	[ACL_RI_ACTIVE] = "STREAM_ACTIVE", [ACL_RI_SWITCH_STREAM] = "STREAM_SWITCH",
};


static json_object *task_json(const struct acl_mdlri *m, uint32_t seq, uint32_t stream,
			      const char *type, const struct drm_npu_cmd *c, bool verbose)
{
	json_object *t = json_object_new_object();

	json_object_object_add(t, "seq_id", json_object_new_int64(seq));
	json_object_object_add(t, "stream_id", json_object_new_int64(stream));
	json_object_object_add(t, "type", json_object_new_string(type));
	if (c && c->op == DRM_NPU_OP_COMPUTE) {
		const struct npu_op_desc *d = (const void *)(uintptr_t)c->src;

		json_object_object_add(t, "operator", json_object_new_int64(le16toh(d->kind)));
	}
	if (c && verbose) {
		json_object_object_add(t, "dst", json_object_new_int64((int64_t)c->dst));
		json_object_object_add(t, "src", json_object_new_int64((int64_t)c->src));
		json_object_object_add(t, "size", json_object_new_int64((int64_t)c->size));
		json_object_object_add(t, "value", json_object_new_int64((int64_t)c->value));
	}
	(void)m;
	return t;
}

static json_object *model_json(const struct acl_mdlri *m, bool verbose)
{
	json_object *o = json_object_new_object(), *tasks = json_object_new_array();
	uint32_t seq = 0;

	json_object_object_add(o, "model_id", json_object_new_int64(m->id));
	json_object_object_add(o, "name", json_object_new_string(m->name));
	json_object_object_add(o, "stream_num", json_object_new_int64(m->nstreams));
	for (size_t i = 0; i < m->nsteps; i++) {
		const struct acl_ri_step *st = &m->steps[i];

		if (!acl_ri_has_cmds(st->kind)) {
			json_object_array_add(tasks, task_json(m, seq++, st->stream,
							       step_names[st->kind], NULL, false));
			continue;
		}
		for (uint32_t k = 0; k < st->count; k++) {
			const struct drm_npu_cmd *c = &m->cmds[st->first + k];

			json_object_array_add(tasks, task_json(m, seq++, st->stream, cmd_name(c),
							       c, verbose));
		}
	}
	json_object_object_add(o, "task_num", json_object_new_int64(seq));
	json_object_object_add(o, "tasks", tasks);
	return o;
}

ACL_EXPORT aclError aclmdlRIDebugJsonPrint(aclmdlRI modelRI, const char *path, uint32_t flags)
{
	aclError err = ACL_SUCCESS;
	struct acl_mdlri *m;
	json_object *o;
	int ret;

	ACL_CHECK_NULL(path);
	if (flags != ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY && flags != ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown flags %#x", flags);
	m = get_locked(__func__, modelRI, &err);
	if (!m)
		return err;
	o = model_json(m, flags == ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE);
	acl_capture_unlock();
	ret = json_object_to_file_ext(path, o, JSON_C_TO_STRING_PRETTY);
	json_object_put(o);
	if (ret)
		return ACL_FAIL(ACL_ERROR_INVALID_FILE, "cannot write %s", path);
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclmdlRIDebugPrint(aclmdlRI modelRI)
{
	aclError err = ACL_SUCCESS;
	struct acl_mdlri *m;
	json_object *o;

	m = get_locked(__func__, modelRI, &err);
	if (!m)
		return err;
	o = model_json(m, false);
	acl_capture_unlock();
	printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY));
	json_object_put(o);
	return ACL_SUCCESS;
}
