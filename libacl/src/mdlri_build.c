// SPDX-License-Identifier: MIT
/*
 * Models built from a bound stream (aclmdlRIBuildBegin, BindStream,
 * EndTask, BuildEnd, UnbindStream) with labels and switches by index
 * (aclrtCreateLabel, aclrtSetLabel, aclrtCreateLabelList,
 * aclrtSwitchLabelByIndex): the bound stream records into the model as a
 * RELAXED capture does, and a label becomes the index of a command in the
 * model's program, a switch a SWITCH over JUMPs to them, an end task an
 * END. Further bound streams join the first's recording; each becomes a
 * thread of the program (mdlri_run.c lays them out), which
 * aclrtActiveStream ACTIVATEs and aclrtSwitchStream ACTIVATEs past a
 * BRANCH. Condition tasks are in mdlri_cond.c.
 */
#include <stdlib.h>
#include <string.h>

#include "capture.h"


#define LABEL_MAGIC	0x4c41424cU	/* "LABL" */
#define LIST_MAGIC	0x4c495354U	/* "LIST" */

struct label {
	uint32_t magic;
};

struct label_list {
	uint32_t magic;
	uint32_t n;
	struct label *labels[];
};

/* Live labels and lists: a handle is accepted only while in here. */
static struct acl_mutex labels_lock = ACL_MUTEX_INITIALIZER;
static void **live;
static size_t nlive, live_cap;

static bool live_add(void *p)
{
	bool ok = true;

	acl_mutex_lock(&labels_lock);
	if (nlive == live_cap) {
		size_t n = live_cap ? 2 * live_cap : 16;
		void **v = realloc(live, n * sizeof(*v));

		if (v) {
			live = v;
			live_cap = n;
		}
	}
	if (nlive < live_cap)
		live[nlive++] = p;
	else
		ok = false;
	acl_mutex_unlock(&labels_lock);
	return ok;
}

/* Whether p is live with the magic; with drop, it is no longer. */
static bool live_find(const void *p, uint32_t magic, bool drop)
{
	bool found = false;

	acl_mutex_lock(&labels_lock);
	for (size_t i = 0; i < nlive && !found; i++) {
		if (live[i] != p || *(const uint32_t *)p != magic)
			continue;
		found = true;
		if (drop)
			live[i] = live[--nlive];
	}
	acl_mutex_unlock(&labels_lock);
	return found;
}

/* The model of a handle, with a reference (acl_mdlri_put). */
static struct acl_mdlri *model_get(const char *fn, aclmdlRI handle, aclError *err)
{
	struct acl_mdlri *m;

	if (!handle) {
		*err = acl_fail(fn, ACL_ERROR_INVALID_PARAM, "modelRI is NULL");
		return NULL;
	}
	acl_capture_lock();
	m = acl_mdlri_lookup_locked(handle);
	if (m)
		m->refs++;
	acl_capture_unlock();
	if (!m)
		*err = acl_fail(fn, ACL_ERROR_INVALID_PARAM, "modelRI %p is not a live model "
				"runtime instance", handle);
	return m;
}

ACL_EXPORT aclError aclmdlRIBuildBegin(aclmdlRI *modelRI, uint32_t flag)
{
	struct acl_context *c;
	struct acl_mdlri *m;

	ACL_CHECK_NULL(modelRI);
	if (flag)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "flag %#x is not 0", flag);
	c = acl_current_ctx();
	if (!c)
		return ACL_ERROR_RT_CONTEXT_NULL;
	acl_capture_lock();
	m = acl_mdlri_new_locked(c->dev);
	acl_capture_unlock();
	if (!m)
		return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory");
	*modelRI = (aclmdlRI)m;
	return ACL_SUCCESS;
}

/* The first bound stream records as a capture does; the others join its recording. */
ACL_EXPORT aclError aclmdlRIBindStream(aclmdlRI modelRI, aclrtStream stream, uint32_t flag)
{
	struct acl_mdlri *m;
	struct acl_stream *s;
	aclError err = ACL_SUCCESS;
	int index = 0;

	if (flag != ACL_MODEL_STREAM_FLAG_HEAD && flag != ACL_MODEL_STREAM_FLAG_DEFAULT)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown stream flag %#x", flag);
	if (!stream)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "the default stream cannot be bound");
	s = acl_stream_resolve(stream, &err);
	if (!s)
		return err;
	m = model_get(__func__, modelRI, &err);
	if (!m)
		return err;
	if (m->bound)
		index = acl_capture_bind_more(s, m, &err);
	else if (m->capturing)
		err = ACL_FAIL(ACL_ERROR_RT_MODEL_CAPTURED, "the model is being captured into");
	else
		err = acl_capture_bind(s, m);
	if (!err) {
		acl_capture_lock();
		if (!m->bound)
			m->bound = stream;
		if (!m->nbound++ || flag == ACL_MODEL_STREAM_FLAG_HEAD)
			m->head = (uint32_t)index;
		acl_capture_unlock();
	}
	acl_mdlri_put(m);
	return err;
}

static bool bound_to(const struct acl_mdlri *m, aclrtStream stream)
{
	for (uint32_t i = 0; stream && i < m->nstreams; i++)
		if (m->streams[i] == stream)
			return true;
	return false;
}

/* Unbinding the first bound stream ends the build; the others go with it. */
ACL_EXPORT aclError aclmdlRIUnbindStream(aclmdlRI modelRI, aclrtStream stream)
{
	struct acl_mdlri *m;
	aclError err = ACL_SUCCESS;

	m = model_get(__func__, modelRI, &err);
	if (!m)
		return err;
	if (m->bound && m->bound == stream)
		err = acl_capture_end_build(m);
	else if (!m->nbound || !bound_to(m, stream))
		err = ACL_FAIL(ACL_ERROR_RT_STREAM_MODEL, "the stream is not bound to the model");
	else if (m->capturing)
		err = ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "a stream bound after the first "
			       "is unbound at aclmdlRIBuildEnd (or with the first) on this runtime");
	if (!err && m->bound == stream) {
		acl_capture_lock();
		m->bound = NULL;
		acl_capture_unlock();
	}
	acl_mdlri_put(m);
	return err;
}

/* Adds a control step on stream, which must be bound to a model being built (m if not NULL). */
static aclError control(const char *fn, struct acl_mdlri *m, aclrtStream stream,
			struct acl_ri_step *st)
{
	struct acl_stream *s;
	aclError err = ACL_SUCCESS;

	s = acl_stream_resolve(stream, &err);
	if (!s)
		return err;
	if (!acl_capture_control(s, m, st, &err))
		return acl_fail(fn, ACL_ERROR_RT_STREAM_MODEL, "the stream is not bound to a "
				"model being built");
	return err;
}

ACL_EXPORT aclError aclmdlRIEndTask(aclmdlRI modelRI, aclrtStream stream)
{
	struct acl_ri_step st = { .kind = ACL_RI_END };
	struct acl_mdlri *m;
	aclError err = ACL_SUCCESS;

	m = model_get(__func__, modelRI, &err);
	if (!m)
		return err;
	err = control(__func__, m, stream, &st);
	acl_mdlri_put(m);
	return err;
}

ACL_EXPORT aclError aclmdlRIBuildEnd(aclmdlRI modelRI, void *reserve)
{
	struct acl_mdlri *m;
	aclError err = ACL_SUCCESS;

	(void)reserve;
	m = model_get(__func__, modelRI, &err);
	if (!m)
		return err;
	err = acl_capture_end_build(m);
	acl_mdlri_put(m);
	return err;
}

ACL_EXPORT aclError aclrtCreateLabel(aclrtLabel *label)
{
	struct label *l;

	ACL_CHECK_NULL(label);
	l = malloc(sizeof(*l));
	if (!l)
		return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory");
	l->magic = LABEL_MAGIC;
	if (!live_add(l)) {
		free(l);
		return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory");
	}
	*label = l;
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtSetLabel(aclrtLabel label, aclrtStream stream)
{
	struct acl_ri_step st = { .kind = ACL_RI_LABEL, .arg = label };

	if (!label || !live_find(label, LABEL_MAGIC, false))
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%p is not a live label", label);
	return control(__func__, NULL, stream, &st);
}

/* A model keeps where its labels are: destroying the handle later is safe. */
ACL_EXPORT aclError aclrtDestroyLabel(aclrtLabel label)
{
	if (!label || !live_find(label, LABEL_MAGIC, true))
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%p is not a live label", label);
	free(label);
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtCreateLabelList(aclrtLabel *labels, size_t num, aclrtLabelList *labelList)
{
	struct label_list *l;

	ACL_CHECK_NULL(labels);
	ACL_CHECK_NULL(labelList);
	if (!num || num > DRM_NPU_MAX_PROGRAM / 2)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "num %zu is outside 1..%d", num,
				DRM_NPU_MAX_PROGRAM / 2);
	for (size_t i = 0; i < num; i++)
		if (!labels[i] || !live_find(labels[i], LABEL_MAGIC, false))
			return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "labels[%zu] is not a live label", i);
	l = malloc(sizeof(*l) + num * sizeof(l->labels[0]));
	if (!l)
		return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory");
	l->magic = LIST_MAGIC;
	l->n = (uint32_t)num;
	memcpy(l->labels, labels, num * sizeof(l->labels[0]));
	if (!live_add(l)) {
		free(l);
		return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory");
	}
	*labelList = l;
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtDestroyLabelList(aclrtLabelList labelList)
{
	if (!labelList || !live_find(labelList, LIST_MAGIC, true))
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%p is not a live label list", labelList);
	free(labelList);
	return ACL_SUCCESS;
}

/*
 * Goes on at the label *ptr (a uint32_t in device memory, read when the
 * model runs) names in the list; past the list's end, after the switch.
 */
ACL_EXPORT aclError aclrtSwitchLabelByIndex(void *ptr, uint32_t maxValue, aclrtLabelList labelList,
					    aclrtStream stream)
{
	struct acl_ri_step st = { .kind = ACL_RI_SWITCH, .dst = (uintptr_t)ptr };
	struct label_list *l = labelList;
	aclError err;

	if (!ptr || !acl_is_dev_ptr(ptr) || (uintptr_t)ptr % 4)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "ptr %p is not 4-byte aligned device "
				"memory", ptr);
	if (!l || !live_find(l, LIST_MAGIC, false))
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%p is not a live label list", labelList);
	if (!maxValue || maxValue > l->n)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "maxValue %u is outside 1..%u (the list's "
				"labels)", maxValue, l->n);
	st.count = maxValue;
	st.arg = malloc(maxValue * sizeof(l->labels[0]));
	if (!st.arg)
		return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory");
	memcpy(st.arg, l->labels, maxValue * sizeof(l->labels[0]));
	err = control(__func__, NULL, stream, &st);
	if (err)
		free(st.arg);
	return err;
}

/* Whether target is a stream bound to the model stream records into. */
static bool same_model(struct acl_stream *s, aclrtStream target)
{
	struct acl_mdlri *m;
	bool ok;

	acl_capture_lock();
	m = acl_capture_model_locked(s);
	ok = m && m->bound && bound_to(m, target);
	acl_capture_unlock();
	return ok;
}

static aclError stream_step(const char *fn, aclrtStream stream, struct acl_ri_step *st)
{
	struct acl_stream *s;
	aclError err = ACL_SUCCESS;

	s = acl_stream_resolve(stream, &err);
	if (!s)
		return err;
	if (!same_model(s, st->on_true) || (st->on_false && !same_model(s, st->on_false)))
		return acl_fail(fn, ACL_ERROR_RT_STREAM_MODEL, "the streams are not bound to the "
				"model being built on the stream");
	return control(fn, NULL, stream, st);
}

/* Starts activeStream's tasks when the running stream's are over (a thread of the program). */
ACL_EXPORT aclError aclrtActiveStream(aclrtStream activeStream, aclrtStream stream)
{
	struct acl_ri_step st = { .kind = ACL_RI_ACTIVE, .on_true = activeStream };

	if (!activeStream || activeStream == stream)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "activeStream is NULL or the stream itself");
	return stream_step(__func__, stream, &st);
}

/* The BRANCH conditions, by aclrtCondition. */
static const uint32_t branch_cond[] = {
	[ACL_RT_EQUAL] = DRM_NPU_BRANCH_EQ, [ACL_RT_NOT_EQUAL] = DRM_NPU_BRANCH_NE,
	[ACL_RT_GREATER] = DRM_NPU_BRANCH_GT, [ACL_RT_GREATER_OR_EQUAL] = DRM_NPU_BRANCH_GE,
	[ACL_RT_LESS] = DRM_NPU_BRANCH_LT, [ACL_RT_LESS_OR_EQUAL] = DRM_NPU_BRANCH_LE,
};

static bool operand_ok(const void *p, uint32_t size)
{
	return p && acl_is_dev_ptr(p) && (uintptr_t)p % size == 0;
}

/* Activates trueStream when *leftValue cond *rightValue (signed, when the model runs), else falseStream if given. */
ACL_EXPORT aclError aclrtSwitchStream(void *leftValue, aclrtCondition cond, void *rightValue,
				      aclrtCompareDataType dataType, aclrtStream trueStream,
				      aclrtStream falseStream, aclrtStream stream)
{
	struct acl_ri_step st = { .kind = ACL_RI_SWITCH_STREAM, .dst = (uintptr_t)leftValue,
				  .src = (uintptr_t)rightValue, .on_true = trueStream,
				  .on_false = falseStream };

	if (dataType != ACL_RT_SWITCH_INT32 && dataType != ACL_RT_SWITCH_INT64)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown data type %d", (int)dataType);
	if ((unsigned)cond >= sizeof(branch_cond) / sizeof(branch_cond[0]))
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown condition %d", (int)cond);
	st.size = dataType == ACL_RT_SWITCH_INT32 ? 4 : 8;
	st.cond = branch_cond[cond];
	if (!operand_ok(leftValue, st.size) || !operand_ok(rightValue, st.size))
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "the values are not %u-byte aligned device "
				"memory", st.size);
	if (!trueStream || trueStream == stream || falseStream == stream)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "trueStream is NULL, or a stream to "
				"activate is the stream itself");
	return stream_step(__func__, stream, &st);
}
