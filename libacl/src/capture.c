// SPDX-License-Identifier: MIT
/*
 * Capturing streams into model runtime instances: aclmdlRICaptureBegin,
 * End, GetInfo, ThreadExchangeMode, ToModelRIBegin, and the hooks that
 * record what a capturing stream is given.
 *
 * Streams join a capture by waiting on an event recorded in it; the
 * capture keeps a vector clock per stream (how many tasks of each stream
 * it has seen, directly or through events) to tell at the end whether
 * every joined stream's work flows back into the origin stream. The work
 * itself is kept in capture order, which respects every dependency the
 * streams expressed (docs/capture.md).
 */
#include <stdlib.h>
#include <string.h>

#include "capture.h"

struct cap_event {
	struct acl_event *ev;
	uint64_t vc[ACL_CAPTURE_MAX_STREAMS];
};

struct acl_capture {
	struct acl_mdlri *m;
	aclmdlRICaptureMode mode;
	pthread_t thread;
	aclmdlRICaptureMode thread_mode_before;
	bool invalid;
	bool owns_model;		/* made by aclmdlRICaptureBegin */
	long group;			/* the step of the open task group, -1: none */
	struct acl_task_grp *update;	/* an update's capture: the group it replaces */
	size_t ncmds_before, nsteps_before;	/* what a failed capture gives back */
	uint32_t nstreams;
	struct acl_stream *streams[ACL_CAPTURE_MAX_STREAMS];	/* [0]: the origin */
	uint32_t model_stream[ACL_CAPTURE_MAX_STREAMS];		/* index in m->streams */
	uint64_t ntasks[ACL_CAPTURE_MAX_STREAMS];
	uint64_t vc[ACL_CAPTURE_MAX_STREAMS][ACL_CAPTURE_MAX_STREAMS];
	struct cap_event *events;
	size_t nevents, events_cap;
	struct acl_list link;
};

atomic_int acl_captures_active;
static struct acl_mutex cap_lock = ACL_MUTEX_INITIALIZER;
static struct acl_list captures = { &captures, &captures };
static __thread aclmdlRICaptureMode tls_mode = ACL_MODEL_RI_CAPTURE_MODE_GLOBAL;

void acl_capture_lock(void)
{
	acl_mutex_lock(&cap_lock);
}

void acl_capture_unlock(void)
{
	acl_mutex_unlock(&cap_lock);
}

static bool mode_valid(aclmdlRICaptureMode mode)
{
	return mode == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL ||
	       mode == ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL ||
	       mode == ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
}

/* The index of s in c, -1 if it is not in c. */
static int stream_slot(const struct acl_capture *c, const struct acl_stream *s)
{
	for (uint32_t i = 0; i < c->nstreams; i++)
		if (c->streams[i] == s)
			return (int)i;
	return -1;
}

/* Adds s to c (cap_lock held); -1 when c holds as many streams as it can. */
static int add_stream_locked(struct acl_capture *c, struct acl_stream *s)
{
	int ms;

	if (c->nstreams == ACL_CAPTURE_MAX_STREAMS)
		return -1;
	ms = acl_mdlri_stream_index_locked(c->m, acl_obj_handle(s));
	if (ms < 0)
		return -1;
	c->streams[c->nstreams] = s;
	c->model_stream[c->nstreams] = (uint32_t)ms;
	memset(c->vc[c->nstreams], 0, sizeof(c->vc[0]));
	c->ntasks[c->nstreams] = 0;
	atomic_store(&s->capture, c);
	return (int)c->nstreams++;
}

static void one_task(struct acl_capture *c, int i)
{
	c->vc[i][i] = ++c->ntasks[i];
}

static struct cap_event *find_event(struct acl_capture *c, const struct acl_event *ev)
{
	for (size_t i = 0; i < c->nevents; i++)
		if (c->events[i].ev == ev)
			return &c->events[i];
	return NULL;
}

/* The capture whose latest record ev is, NULL if none (cap_lock held). */
static struct acl_capture *event_capture(const struct acl_event *ev, struct cap_event **ce)
{
	struct acl_list *l;

	for (l = captures.next; l != &captures; l = l->next) {
		struct acl_capture *c = (struct acl_capture *)((char *)l -
							       offsetof(struct acl_capture, link));

		*ce = find_event(c, ev);
		if (*ce)
			return c;
	}
	return NULL;
}

/* Takes s out of its capture and the capture out of the active ones. */
static void end_capture_locked(struct acl_capture *c)
{
	for (uint32_t i = 0; i < c->nstreams; i++)
		atomic_store(&c->streams[i]->capture, NULL);
	c->m->capturing = NULL;
	acl_list_del(&c->link);
	atomic_fetch_sub(&acl_captures_active, 1);
}

/* A failed capture: its model goes, or gets back what it held before. */
static void drop_model_locked(struct acl_capture *c)
{
	if (c->owns_model) {
		acl_mdlri_free(c->m);
		return;
	}
	for (size_t i = c->nsteps_before; i < c->m->nsteps; i++)
		if (c->m->steps[i].kind == ACL_RI_SWITCH)
			free(c->m->steps[i].arg);
		else if (c->m->steps[i].kind == ACL_RI_COND)
			acl_mdlri_cond_task_free_locked(c->m->steps[i].arg);
	c->m->ncmds = c->ncmds_before;
	c->m->nsteps = c->nsteps_before;
	while (c->m->ngroups && c->m->groups[c->m->ngroups - 1]->step >= c->m->nsteps)
		free(c->m->groups[--c->m->ngroups]);
	if (c->m->nsteps) {
		struct acl_ri_step *last = &c->m->steps[c->m->nsteps - 1];

		if (acl_ri_has_cmds(last->kind) && last->first + last->count > c->ncmds_before)
			last->count = (uint32_t)(c->ncmds_before - last->first);
	}
}

static void capture_free(struct acl_capture *c)
{
	free(c->events);
	free(c);
}

/* ---- hooks ------------------------------------------------------------ */

bool acl_capture_cmds(struct acl_stream *s, const struct drm_npu_cmd *cmds, size_t count,
		      struct acl_ticket *done, aclError *result)
{
	struct acl_capture *c;
	aclError err = ACL_SUCCESS;
	int i;

	acl_mutex_lock(&cap_lock);
	c = atomic_load(&s->capture);
	if (!c) {
		acl_mutex_unlock(&cap_lock);
		return false;
	}
	i = stream_slot(c, s);
	if (c->invalid)
		err = ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED;
	else if (!acl_mdlri_add_cmds_locked(c->m, c->model_stream[i], cmds, count))
		err = ACL_ERROR_BAD_ALLOC;
	else
		one_task(c, i);
	acl_mutex_unlock(&cap_lock);
	if (err == ACL_ERROR_BAD_ALLOC)
		*result = ACL_FAIL(err, "out of memory recording %zu commands", count);
	else if (err)
		*result = ACL_FAIL(err, "the capture of stream %u was invalidated", s->obj.index);
	else
		*result = ACL_SUCCESS;
	if (!err && done)
		*done = acl_stream_last_ticket(s);
	return true;
}

static bool add_step(struct acl_capture *c, int i, struct acl_ri_step *st, aclError *err)
{
	st->stream = c->model_stream[i];
	if (c->group >= 0 || c->update) {
		*err = ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT;
		return false;
	}
	if (c->invalid) {
		*err = ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED;
		return false;
	}
	if (!acl_mdlri_add_step_locked(c->m, st)) {
		*err = ACL_ERROR_BAD_ALLOC;
		return false;
	}
	one_task(c, i);
	return true;
}

static aclError hook_error(const char *fn, aclError err)
{
	if (err == ACL_ERROR_BAD_ALLOC)
		return acl_fail(fn, err, "out of memory recording the task");
	if (err == ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT)
		return acl_fail(fn, err, "a task group holds operators, copies and fills only");
	if (err)
		return acl_fail(fn, err, "the capture was invalidated by an earlier call");
	return ACL_SUCCESS;
}

bool acl_capture_record(struct acl_stream *s, struct acl_event *ev, bool reset, aclError *err)
{
	struct acl_ri_step st = { .kind = reset ? ACL_RI_RESET : ACL_RI_RECORD,
				  .event = acl_obj_handle(ev) };
	struct acl_capture *c;
	struct cap_event *ce;
	int i;

	acl_mutex_lock(&cap_lock);
	c = atomic_load(&s->capture);
	if (!c) {
		acl_mutex_unlock(&cap_lock);
		return false;
	}
	*err = ACL_SUCCESS;
	i = stream_slot(c, s);
	if (add_step(c, i, &st, err) && !reset) {
		ce = find_event(c, ev);
		if (!ce && c->nevents == c->events_cap) {
			size_t n = c->events_cap ? 2 * c->events_cap : 8;
			struct cap_event *v = realloc(c->events, n * sizeof(*v));

			if (v) {
				c->events = v;
				c->events_cap = n;
			}
		}
		if (!ce && c->nevents < c->events_cap) {
			ce = &c->events[c->nevents++];
			ce->ev = ev;
		}
		if (ce)
			memcpy(ce->vc, c->vc[i], sizeof(ce->vc));
		else
			*err = ACL_ERROR_BAD_ALLOC;
	}
	acl_mutex_unlock(&cap_lock);
	*err = hook_error("aclrtRecordEvent", *err);
	return true;
}

/*
 * A wait on an event recorded in a capture joins the waiting stream to it
 * and adds nothing: capture order already puts the record first. A
 * capturing stream's wait on an event recorded elsewhere is replayed.
 */
bool acl_capture_wait(struct acl_stream *s, struct acl_event *ev, aclError *err)
{
	struct acl_ri_step st = { .kind = ACL_RI_WAIT, .event = acl_obj_handle(ev) };
	struct acl_capture *c, *ec;
	struct cap_event *ce = NULL;
	int i;

	if (!atomic_load_explicit(&acl_captures_active, memory_order_relaxed))
		return false;
	acl_mutex_lock(&cap_lock);
	c = atomic_load(&s->capture);
	ec = event_capture(ev, &ce);
	*err = ACL_SUCCESS;
	if (!c && !ec) {
		acl_mutex_unlock(&cap_lock);
		return false;
	}
	if (ec && c && ec != c) {
		acl_mutex_unlock(&cap_lock);
		*err = ACL_FAIL(ACL_ERROR_RT_CAPTURE_DEPENDENCY, "stream %u captures into another "
				"model than the one event %u was recorded in", s->obj.index,
				ev->obj.index);
		return true;
	}
	if (!ec) {
		add_step(c, stream_slot(c, s), &st, err);
		acl_mutex_unlock(&cap_lock);
		*err = hook_error("aclrtStreamWaitEvent", *err);
		return true;
	}
	i = c ? stream_slot(c, s) : add_stream_locked(ec, s);
	if (i < 0) {
		acl_mutex_unlock(&cap_lock);
		*err = ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "a capture holds at most %d "
				"streams", ACL_CAPTURE_MAX_STREAMS);
		return true;
	}
	for (int k = 0; k < ACL_CAPTURE_MAX_STREAMS; k++)
		if (ce->vc[k] > ec->vc[i][k])
			ec->vc[i][k] = ce->vc[k];
	acl_mutex_unlock(&cap_lock);
	return true;
}

bool acl_capture_host(struct acl_stream *s, enum acl_ri_step_kind kind, void (*fn)(void *),
		      void *arg, aclrtCallbackBlockType block, aclError *err)
{
	struct acl_ri_step st = { .kind = kind, .fn = fn, .arg = arg, .block = block };
	struct acl_capture *c;

	acl_mutex_lock(&cap_lock);
	c = atomic_load(&s->capture);
	if (!c) {
		acl_mutex_unlock(&cap_lock);
		return false;
	}
	*err = ACL_SUCCESS;
	add_step(c, stream_slot(c, s), &st, err);
	acl_mutex_unlock(&cap_lock);
	*err = hook_error(kind == ACL_RI_HOSTFUNC ? "aclrtLaunchHostFunc" : "aclrtLaunchCallback",
			  *err);
	return true;
}

/* Marks s's capture invalid: the illegal call fails it, as documented. */
aclError acl_capture_check_stream(const char *fn, struct acl_stream *s)
{
	struct acl_capture *c;

	if (!acl_capturing(s))
		return ACL_SUCCESS;
	acl_mutex_lock(&cap_lock);
	c = atomic_load(&s->capture);
	if (c)
		c->invalid = true;
	acl_mutex_unlock(&cap_lock);
	if (!c)
		return ACL_SUCCESS;
	return acl_fail(fn, ACL_ERROR_RT_STREAM_CAPTURED, "stream %u is being captured: it "
			"cannot be synchronized, queried or destroyed until aclmdlRICaptureEnd",
			s->obj.index);
}

aclError acl_capture_check_device(const char *fn, struct acl_device *d)
{
	struct acl_list *l;
	bool found = false;

	if (!atomic_load_explicit(&acl_captures_active, memory_order_relaxed))
		return ACL_SUCCESS;
	acl_mutex_lock(&cap_lock);
	for (l = captures.next; l != &captures; l = l->next) {
		struct acl_capture *c = (struct acl_capture *)((char *)l -
							       offsetof(struct acl_capture, link));

		if (!d || c->m->dev == d) {
			c->invalid = true;
			found = true;
		}
	}
	acl_mutex_unlock(&cap_lock);
	if (!found)
		return ACL_SUCCESS;
	return acl_fail(fn, ACL_ERROR_RT_STREAM_CAPTURED, "a stream of the device is being "
			"captured: the device cannot be synchronized until aclmdlRICaptureEnd");
}

/* Whether this thread may call an unsafe function during c (see the docs' table). */
static bool forbids(const struct acl_capture *c)
{
	if (c->mode == ACL_MODEL_RI_CAPTURE_MODE_RELAXED)
		return false;
	if (pthread_equal(c->thread, pthread_self()))
		return tls_mode != ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
	return c->mode == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL &&
	       tls_mode == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL;
}

aclError acl_capture_check_unsafe(const char *fn)
{
	struct acl_list *l;
	bool found = false;

	if (!atomic_load_explicit(&acl_captures_active, memory_order_relaxed))
		return ACL_SUCCESS;
	acl_mutex_lock(&cap_lock);
	for (l = captures.next; l != &captures; l = l->next) {
		struct acl_capture *c = (struct acl_capture *)((char *)l -
							       offsetof(struct acl_capture, link));

		if (forbids(c)) {
			c->invalid = true;
			found = true;
		}
	}
	acl_mutex_unlock(&cap_lock);
	if (!found)
		return ACL_SUCCESS;
	return acl_fail(fn, ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, "%s may not be called while "
			"a stream is captured in this thread's capture mode (switch to "
			"ACL_MODEL_RI_CAPTURE_MODE_RELAXED with aclmdlRICaptureThreadExchangeMode)",
			fn);
}

/* ---- public API ------------------------------------------------------- */

static struct acl_stream *capture_stream(const char *fn, aclrtStream stream, aclError *err)
{
	struct acl_stream *s;

	if (!stream) {
		*err = acl_fail(fn, ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT,
				"the default stream cannot be captured");
		return NULL;
	}
	s = acl_stream_resolve(stream, err);
	if (s && s->is_default) {
		*err = acl_fail(fn, ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT,
				"the default stream cannot be captured");
		return NULL;
	}
	return s;
}

/* Starts capturing s into m, a new model when m is NULL. */
static aclError begin(struct acl_stream *s, aclmdlRI into, aclmdlRICaptureMode mode)
{
	struct acl_capture *c = calloc(1, sizeof(*c));
	struct acl_mdlri *m;
	aclError err = ACL_SUCCESS;

	if (!c)
		return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory");
	acl_mutex_lock(&cap_lock);
	m = into ? acl_mdlri_lookup_locked(into) : acl_mdlri_new_locked(s->dev);
	if (atomic_load(&s->capture))
		err = ACL_FAIL(ACL_ERROR_RT_STREAM_CAPTURED, "stream %u is already being captured",
			       s->obj.index);
	else if (!m)
		err = into ? ACL_FAIL(ACL_ERROR_INVALID_PARAM, "modelRI %p is not a live model "
				      "runtime instance", into)
			   : ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory");
	else if (m->capturing)
		err = ACL_FAIL(ACL_ERROR_RT_MODEL_CAPTURED, "the model is already being captured into");
	else if (m->dev != s->dev)
		err = ACL_FAIL(ACL_ERROR_RT_STREAM_MODEL, "the model belongs to another device");
	if (err) {
		if (m && !into)
			acl_mdlri_free(m);
		acl_mutex_unlock(&cap_lock);
		free(c);
		return err;
	}
	c->m = m;
	c->group = -1;
	c->owns_model = !into;
	c->ncmds_before = m->ncmds;
	c->nsteps_before = m->nsteps;
	c->mode = mode;
	c->thread = pthread_self();
	m->capturing = c;
	acl_mdlri_unbuild(m);
	if (add_stream_locked(c, s) < 0) {
		m->capturing = NULL;
		if (!into)
			acl_mdlri_free(m);
		acl_mutex_unlock(&cap_lock);
		free(c);
		return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory");
	}
	acl_list_add(&captures, &c->link);
	atomic_fetch_add(&acl_captures_active, 1);
	acl_mutex_unlock(&cap_lock);
	c->thread_mode_before = tls_mode;
	tls_mode = mode;
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode)
{
	struct acl_stream *s;
	aclError err = ACL_SUCCESS;

	if (!mode_valid(mode))
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown capture mode %d", (int)mode);
	s = capture_stream(__func__, stream, &err);
	if (!s)
		return err;
	return begin(s, NULL, mode);
}

ACL_EXPORT aclError aclmdlRICaptureToModelRIBegin(aclrtStream stream, aclmdlRI modelRI,
						  aclmdlRICaptureMode mode)
{
	struct acl_stream *s;
	aclError err = ACL_SUCCESS;

	ACL_CHECK_NULL(modelRI);
	if (!mode_valid(mode))
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown capture mode %d", (int)mode);
	s = capture_stream(__func__, stream, &err);
	if (!s)
		return err;
	return begin(s, modelRI, mode);
}

ACL_EXPORT aclError aclmdlRICaptureGetInfo(aclrtStream stream, aclmdlRICaptureStatus *status,
					   aclmdlRI *modelRI)
{
	struct acl_capture *c;
	struct acl_stream *s;
	aclError err = ACL_SUCCESS;

	ACL_CHECK_NULL(status);
	s = acl_stream_resolve(stream, &err);
	if (!s)
		return err;
	acl_mutex_lock(&cap_lock);
	c = atomic_load(&s->capture);
	*status = !c ? ACL_MODEL_RI_CAPTURE_STATUS_NONE :
		  c->invalid ? ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED :
		  ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE;
	if (modelRI)
		*modelRI = c ? (aclmdlRI)c->m : NULL;
	acl_mutex_unlock(&cap_lock);
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclmdlRICaptureThreadExchangeMode(aclmdlRICaptureMode *mode)
{
	aclmdlRICaptureMode old = tls_mode;

	ACL_CHECK_NULL(mode);
	if (!mode_valid(*mode))
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown capture mode %d", (int)*mode);
	tls_mode = *mode;
	*mode = old;
	return ACL_SUCCESS;
}

/* The first stream of c whose tasks do not all flow back into the origin. */
static int unjoined(const struct acl_capture *c)
{
	for (uint32_t i = 1; i < c->nstreams; i++)
		if (c->vc[0][i] < c->ntasks[i])
			return (int)i;
	return -1;
}

static aclError end_checks(struct acl_capture *c, struct acl_stream *s)
{
	if (c->streams[0] != s)
		return ACL_FAIL(ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED, "stream %u joined a capture "
				"begun on stream %u: end it there", s->obj.index,
				c->streams[0]->obj.index);
	if (c->mode != ACL_MODEL_RI_CAPTURE_MODE_RELAXED &&
	    !pthread_equal(c->thread, pthread_self()))
		return ACL_FAIL(ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD, "the capture was begun "
				"in another thread (only a RELAXED capture may end elsewhere)");
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI *modelRI)
{
	struct acl_capture *c;
	struct acl_stream *s;
	aclError err = ACL_SUCCESS;
	int u;

	ACL_CHECK_NULL(modelRI);
	s = acl_stream_resolve(stream, &err);
	if (!s)
		return err;
	acl_mutex_lock(&cap_lock);
	c = atomic_load(&s->capture);
	if (!c) {
		acl_mutex_unlock(&cap_lock);
		return ACL_FAIL(ACL_ERROR_RT_STREAM_NOT_CAPTURED, "stream %u is not being captured",
				s->obj.index);
	}
	err = end_checks(c, s);
	if (err) {
		acl_mutex_unlock(&cap_lock);
		return err;
	}
	end_capture_locked(c);
	if (pthread_equal(c->thread, pthread_self()))
		tls_mode = c->thread_mode_before;
	if (c->group >= 0)
		c->m->steps[c->group].open = false;	/* a group left open ends here */
	u = unjoined(c);
	if (c->invalid || u >= 0) {
		uint32_t idx = u >= 0 ? c->streams[u]->obj.index : 0;
		bool invalid = c->invalid;

		drop_model_locked(c);
		acl_mutex_unlock(&cap_lock);
		capture_free(c);
		*modelRI = NULL;
		if (invalid)
			return ACL_FAIL(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, "the capture was "
					"invalidated by a call not allowed while capturing");
		return ACL_FAIL(ACL_ERROR_RT_STREAM_UNJOINED, "stream %u joined the capture and "
				"its last tasks were not joined back into the origin stream by "
				"an event", idx);
	}
	*modelRI = (aclmdlRI)c->m;
	acl_mutex_unlock(&cap_lock);
	capture_free(c);
	return ACL_SUCCESS;
}

/* ---- task groups and their update -------------------------------------- */

ACL_EXPORT aclError aclmdlRICaptureTaskGrpBegin(aclrtStream stream)
{
	struct acl_ri_step st = { .kind = ACL_RI_GROUP, .open = true };
	struct acl_capture *c;
	struct acl_stream *s;
	aclError err = ACL_SUCCESS;

	s = acl_stream_resolve(stream, &err);
	if (!s)
		return err;
	acl_mutex_lock(&cap_lock);
	c = atomic_load(&s->capture);
	if (!c || c->update)
		err = ACL_FAIL(ACL_ERROR_RT_STREAM_NOT_CAPTURED, "stream %u is not being captured",
			       s->obj.index);
	else if (c->group >= 0)
		err = ACL_FAIL(ACL_ERROR_INVALID_PARAM, "a task group is open already");
	else if (c->invalid)
		err = ACL_FAIL(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, "the capture was invalidated");
	if (!err) {
		st.stream = c->model_stream[stream_slot(c, s)];
		st.first = (uint32_t)c->m->ncmds;
		if (!acl_mdlri_add_step_locked(c->m, &st))
			err = ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory");
		else
			c->group = (long)c->m->nsteps - 1;
	}
	acl_mutex_unlock(&cap_lock);
	return err;
}

/* Closes c's group on s: its handle, NULL on failure (*err). */
static struct acl_task_grp *close_group_locked(struct acl_capture *c, struct acl_stream *s,
					       aclError *err)
{
	struct acl_mdlri *m = c->m;
	struct acl_task_grp *g, **v;
	struct acl_ri_step *st;

	if (c->group < 0) {
		*err = ACL_FAIL(ACL_ERROR_INVALID_PARAM, "no task group is open on stream %u",
				s->obj.index);
		return NULL;
	}
	st = &m->steps[c->group];
	if (c->model_stream[stream_slot(c, s)] != st->stream) {
		*err = ACL_FAIL(ACL_ERROR_INVALID_PARAM, "the task group was begun on another stream");
		return NULL;
	}
	g = calloc(1, sizeof(*g));
	v = realloc(m->groups, (m->ngroups + 1) * sizeof(*v));
	if (v)
		m->groups = v;
	if (!g || !v) {
		free(g);
		*err = ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory");
		return NULL;
	}
	st->open = false;
	g->m = m;
	g->step = (size_t)c->group;
	m->groups[m->ngroups++] = g;
	c->group = -1;
	return g;
}

ACL_EXPORT aclError aclmdlRICaptureTaskGrpEnd(aclrtStream stream, aclrtTaskGrp *handle)
{
	struct acl_task_grp *g = NULL;
	struct acl_capture *c;
	struct acl_stream *s;
	aclError err = ACL_SUCCESS;

	ACL_CHECK_NULL(handle);
	s = acl_stream_resolve(stream, &err);
	if (!s)
		return err;
	acl_mutex_lock(&cap_lock);
	c = atomic_load(&s->capture);
	if (!c || c->update)
		err = ACL_FAIL(ACL_ERROR_RT_STREAM_NOT_CAPTURED, "stream %u is not being captured",
			       s->obj.index);
	else
		g = close_group_locked(c, s, &err);
	acl_mutex_unlock(&cap_lock);
	if (g)
		*handle = (aclrtTaskGrp)g;
	return err;
}

/*
 * An update captures the group's new tasks on a stream that is not
 * capturing, into a model of its own; its end puts them in the group
 * (mdlri_update.c).
 */
ACL_EXPORT aclError aclmdlRICaptureTaskUpdateBegin(aclrtStream stream, aclrtTaskGrp handle)
{
	struct acl_task_grp *g;
	struct acl_stream *s;
	struct acl_capture *c;
	aclError err = ACL_SUCCESS;

	ACL_CHECK_NULL(handle);
	s = capture_stream(__func__, stream, &err);
	if (!s)
		return err;
	acl_mutex_lock(&cap_lock);
	g = acl_task_grp_lookup_locked(handle);
	acl_mutex_unlock(&cap_lock);
	if (!g)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%p is not a task group of a live model",
				handle);
	err = begin(s, NULL, ACL_MODEL_RI_CAPTURE_MODE_RELAXED);
	if (err)
		return err;
	acl_mutex_lock(&cap_lock);
	c = atomic_load(&s->capture);
	c->update = g;
	acl_mutex_unlock(&cap_lock);
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclmdlRICaptureTaskUpdateEnd(aclrtStream stream)
{
	struct acl_task_grp *g;
	struct acl_capture *c;
	struct acl_stream *s;
	struct acl_mdlri *tasks;
	aclError err = ACL_SUCCESS;

	s = acl_stream_resolve(stream, &err);
	if (!s)
		return err;
	acl_mutex_lock(&cap_lock);
	c = atomic_load(&s->capture);
	if (!c || !c->update) {
		acl_mutex_unlock(&cap_lock);
		return ACL_FAIL(ACL_ERROR_RT_STREAM_NOT_CAPTURED, "stream %u is not updating a task "
				"group", s->obj.index);
	}
	end_capture_locked(c);
	tasks = c->m;
	g = acl_task_grp_lookup_locked((aclrtTaskGrp)c->update);
	if (g)
		g->m->refs++;
	acl_mutex_unlock(&cap_lock);
	if (pthread_equal(c->thread, pthread_self()))
		tls_mode = c->thread_mode_before;
	if (c->invalid)
		err = ACL_FAIL(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, "the update was invalidated");
	else if (!g)
		err = ACL_FAIL(ACL_ERROR_INVALID_PARAM, "the task group's model was destroyed");
	else
		err = acl_task_grp_update(g, tasks, s);
	capture_free(c);
	if (g)
		acl_mdlri_put(g->m);
	acl_mutex_lock(&cap_lock);
	acl_mdlri_free(tasks);
	acl_mutex_unlock(&cap_lock);
	return err;
}

/* ---- models built from a bound stream (mdlri_build.c) ------------------- */

bool acl_capture_control(struct acl_stream *s, struct acl_mdlri *m, struct acl_ri_step *st,
			 aclError *err)
{
	struct acl_capture *c;

	acl_mutex_lock(&cap_lock);
	c = atomic_load(&s->capture);
	if (!c || (m && c->m != m) || (!c->m->bound && st->kind != ACL_RI_COND)) {
		acl_mutex_unlock(&cap_lock);
		return false;
	}
	*err = ACL_SUCCESS;
	st->stream = c->model_stream[stream_slot(c, s)];
	if (!acl_mdlri_add_step_locked(c->m, st))
		*err = ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory");
	else
		one_task(c, stream_slot(c, s));
	acl_mutex_unlock(&cap_lock);
	return true;
}

/* Ends the recording of m's bound stream; its work stays in m. */
aclError acl_capture_end_build(struct acl_mdlri *m)
{
	struct acl_capture *c;
	bool invalid;

	acl_mutex_lock(&cap_lock);
	c = m->capturing;
	if (!c) {
		acl_mutex_unlock(&cap_lock);
		return ACL_SUCCESS;
	}
	end_capture_locked(c);
	invalid = c->invalid;
	if (invalid)
		drop_model_locked(c);
	acl_mutex_unlock(&cap_lock);
	if (pthread_equal(c->thread, pthread_self()))
		tls_mode = c->thread_mode_before;
	capture_free(c);
	if (invalid)
		return ACL_FAIL(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, "the bound stream was "
				"synchronized while the model was being built: its tasks are dropped");
	return ACL_SUCCESS;
}

/* Binds s to m: its tasks go into m until aclmdlRIBuildEnd (as a RELAXED capture). */
aclError acl_capture_bind(struct acl_stream *s, struct acl_mdlri *m)
{
	return begin(s, (aclmdlRI)m, ACL_MODEL_RI_CAPTURE_MODE_RELAXED);
}

int acl_capture_bind_more(struct acl_stream *s, struct acl_mdlri *m, aclError *err)
{
	struct acl_capture *c;
	int slot = -1;

	acl_mutex_lock(&cap_lock);
	c = m->capturing;
	if (!c || !m->bound)
		*err = ACL_FAIL(ACL_ERROR_RT_STREAM_MODEL, "the model's build has ended");
	else if (atomic_load(&s->capture))
		*err = ACL_FAIL(ACL_ERROR_RT_STREAM_CAPTURED, "stream %u is already being captured",
				s->obj.index);
	else if (m->dev != s->dev)
		*err = ACL_FAIL(ACL_ERROR_RT_STREAM_MODEL, "the model belongs to another device");
	else if ((slot = add_stream_locked(c, s)) < 0)
		*err = ACL_FAIL(ACL_ERROR_RT_STREAM_MODEL, "a model takes at most %d streams",
				ACL_CAPTURE_MAX_STREAMS);
	else
		slot = (int)c->model_stream[slot];
	acl_mutex_unlock(&cap_lock);
	return slot;
}

struct acl_mdlri *acl_capture_model_locked(struct acl_stream *s)
{
	struct acl_capture *c = atomic_load(&s->capture);

	return c ? c->m : NULL;
}
