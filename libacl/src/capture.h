/* SPDX-License-Identifier: MIT */
/*
 * Capture and replay (aclmdlRI*): what the rest of the library calls, and
 * what capture.c (recording), mdlri.c (the model runtime instances) and
 * mdlri_run.c (replay) share. docs/capture.md has the design.
 *
 * A model runtime instance is a list of steps in capture order: runs of
 * card commands (operator descriptors copied when captured), and the
 * event records, event waits and host functions that are replayed
 * through the runtime's own calls on the replaying stream. Replays of one
 * model are serialised.
 */
#ifndef LIBASCENDCL_CAPTURE_H
#define LIBASCENDCL_CAPTURE_H

#include "acl_internal.h"

/* Streams one capture may hold: the origin and those that joined it. */
#define ACL_CAPTURE_MAX_STREAMS	32

enum acl_ri_step_kind {
	ACL_RI_CMDS,		/* cmds[first, first + count) */
	ACL_RI_RECORD,		/* aclrtRecordEvent(event) */
	ACL_RI_WAIT,		/* aclrtStreamWaitEvent(event), recorded outside */
	ACL_RI_RESET,		/* aclrtResetEvent(event) */
	ACL_RI_HOSTFUNC,	/* aclrtLaunchHostFunc(fn, arg) */
	ACL_RI_CALLBACK,	/* aclrtLaunchCallback(fn, arg, block) */
	ACL_RI_GROUP,		/* a task group: cmds[first, first + count), CALLed */
	/* Built models' control (mdlri_build.c): programs only */
	ACL_RI_LABEL,		/* aclrtSetLabel(arg) */
	ACL_RI_SWITCH,		/* aclrtSwitchLabelByIndex(dst, arg: count labels) */
	ACL_RI_END,		/* aclmdlRIEndTask */
	ACL_RI_COND,		/* aclmdlRIAddCondTask (mdlri_cond.c; arg: the task) */
	ACL_RI_ACTIVE,		/* aclrtActiveStream(on_true) */
	ACL_RI_SWITCH_STREAM,	/* aclrtSwitchStream: *dst cond *src, size bytes */
};

static inline bool acl_ri_has_cmds(enum acl_ri_step_kind kind)
{
	return kind == ACL_RI_CMDS || kind == ACL_RI_GROUP;
}

static inline bool acl_ri_control(enum acl_ri_step_kind kind)
{
	return kind == ACL_RI_LABEL || kind == ACL_RI_SWITCH || kind == ACL_RI_END ||
	       kind == ACL_RI_COND || kind == ACL_RI_ACTIVE || kind == ACL_RI_SWITCH_STREAM;
}

/* Steps that go into the model's programs. */
static inline bool acl_ri_in_program(enum acl_ri_step_kind kind)
{
	return acl_ri_has_cmds(kind) || acl_ri_control(kind);
}

struct acl_ri_step {
	enum acl_ri_step_kind kind;
	uint32_t stream;		/* index in the model's streams */
	uint32_t first, count;		/* ACL_RI_CMDS */
	aclrtEvent event;
	void (*fn)(void *);
	void *arg;
	aclrtCallbackBlockType block;
	uint64_t dst;			/* ACL_RI_SWITCH: the index's device address */
	/* ACL_RI_SWITCH_STREAM: right operand, enum drm_npu_branch_cond, 4 or 8 */
	uint64_t src;
	uint32_t cond, size;
	aclrtStream on_true, on_false;	/* ACL_RI_ACTIVE, ACL_RI_SWITCH_STREAM: streams to start */
	/* ACL_RI_GROUP: still being captured; its program, and its CALL's index in the run's */
	bool open;
	uint32_t program, call_index;
	/* A step task's aclmdlRITaskDisable: asked, and in effect from the next build on */
	bool disable_asked, disabled;
};

/* A task group's handle (aclrtTaskGrp): a step of a model. */
struct acl_task_grp {
	struct acl_mdlri *m;
	size_t step;
};

struct acl_capture;

struct acl_mdlri {
	uint32_t id;
	char name[128];
	struct acl_device *dev;
	struct acl_capture *capturing;	/* being recorded into (under cap lock) */
	struct drm_npu_cmd *cmds;
	size_t ncmds, cmds_cap;
	void **descs;			/* operator descriptors the model owns */
	size_t ndescs, descs_cap;
	struct acl_ri_step *steps;
	size_t nsteps, steps_cap;
	struct acl_task_grp **groups;
	size_t ngroups;
	aclrtStream bound;		/* aclmdlRIBindStream's stream, NULL if none */
	uint32_t nbound;		/* streams bound (aclmdlRIBindStream) */
	uint32_t head;			/* index in streams of the one that runs first */
	struct acl_cond **conds;	/* condition handles (mdlri_cond.c) */
	size_t nconds;
	aclrtStream streams[ACL_CAPTURE_MAX_STREAMS];	/* that recorded into it */
	uint32_t nstreams;
	/*
	 * Replay: one card program per run of ACL_RI_CMDS steps (program[i]
	 * for the run starting at step i, 0: none), made at the first replay
	 * after a change; or, on a driver without programs, the commands are
	 * submitted again.
	 */
	struct acl_mutex run_lock;	/* replays, one at a time */
	uint32_t *program;
	bool built;
	aclrtEvent done;		/* recorded after each replay */
	aclrtStream last_stream;	/* of the latest replay, NULL before the first */
	int refs;			/* replays being queued (under the capture lock) */
	bool dead;			/* destroyed: the last reference frees it */
	struct acl_list link;		/* in the list of live models */
	struct acl_mdlri_destroy_cb *destroy_cbs;	/* mdlri_ctl.c, under the capture lock */
	struct acl_ri_tasks *ri_tasks;	/* task handles (mdlri_task.c), made when first asked */
};

/* The capture lock (capture.c) guards captures and the models' recording. */
void acl_capture_lock(void);
void acl_capture_unlock(void);

/* Models (mdlri.c). Caller holds the capture lock for lookup and new. */
struct acl_mdlri *acl_mdlri_new_locked(struct acl_device *dev);
struct acl_mdlri *acl_mdlri_lookup_locked(aclmdlRI handle);
/* Appends to m (capture lock held); false when out of memory. */
bool acl_mdlri_add_cmds_locked(struct acl_mdlri *m, uint32_t stream,
			       const struct drm_npu_cmd *cmds, size_t count);
bool acl_mdlri_add_step_locked(struct acl_mdlri *m, const struct acl_ri_step *step);
/* The index of stream in m's list, added if new; -1 when full. */
int acl_mdlri_stream_index_locked(struct acl_mdlri *m, aclrtStream stream);
/*
 * Frees what a model holds (its programs and its memory) but its replay
 * event, which it returns for the caller to destroy once it has dropped
 * the capture lock (destroying an event takes lower locks).
 */
aclrtEvent acl_mdlri_free(struct acl_mdlri *m);
/* The task group of a handle, NULL if none (capture lock held). */
struct acl_task_grp *acl_task_grp_lookup_locked(aclrtTaskGrp handle);
/* Makes a program of n commands (false: refused, *id 0, logged). */
bool acl_mdlri_program(struct acl_mdlri *m, const struct drm_npu_cmd *cmds, uint32_t n,
		       uint32_t *id);
/*
 * A control step of a model being built, on its bound stream s (true
 * when s records into m; its result in *err). And the end of the build.
 */
bool acl_capture_control(struct acl_stream *s, struct acl_mdlri *m, struct acl_ri_step *st,
			 aclError *err);
aclError acl_capture_end_build(struct acl_mdlri *m);
aclError acl_capture_bind(struct acl_stream *s, struct acl_mdlri *m);
/* Binds one more stream to m, being built: its index in m->streams, -1 on error (*err). */
int acl_capture_bind_more(struct acl_stream *s, struct acl_mdlri *m, aclError *err);
/* The model s records into, NULL if none (capture lock held). */
struct acl_mdlri *acl_capture_model_locked(struct acl_stream *s);
/* Drops a reference a replay or an update took (capture lock not held). */
/* A live model not being captured into, with a reference (NULL: *err). */
struct acl_mdlri *acl_mdlri_get(const char *fn, aclmdlRI handle, aclError *err);
void acl_mdlri_put(struct acl_mdlri *m);
/* Takes the destroy callbacks of m (capture lock held), to be called unlocked. */
struct acl_mdlri_destroy_cb *acl_mdlri_destroy_cbs_take_locked(struct acl_mdlri *m);
void acl_mdlri_destroy_cbs_call(struct acl_mdlri_destroy_cb *list);
/* Frees those not taken, uncalled: the model was never destroyed by the program. */
void acl_mdlri_destroy_cbs_drop(struct acl_mdlri *m);
/* The newest model stream recorded into, not being captured (capture lock held); *idx: its index. */
struct acl_mdlri *acl_mdlri_of_stream_locked(aclrtStream stream, int *idx);
void acl_mdlri_tasks_free(struct acl_mdlri *m);
/* Puts the tasks of t, captured on s, in place of group g's (mdlri_update.c). */
aclError acl_task_grp_update(struct acl_task_grp *g, struct acl_mdlri *t, struct acl_stream *s);
/* Forgets m's programs (after a change): the next replay makes new ones. */
void acl_mdlri_unbuild(struct acl_mdlri *m);
/* Makes m's programs if it has none (its run lock held). */
aclError acl_mdlri_build(struct acl_mdlri *m);

/*
 * Condition tasks (mdlri_cond.c). Freeing a model's handles and tasks
 * (with its sub-models) under the capture lock; before a replay, the
 * defaults of its handles; at a build, the sub-models' programs made
 * (prepare; false: none), whether an earlier build's are stale, and a
 * task's commands in the program (len, emit at v[*j]).
 */
void acl_mdlri_cond_free_locked(struct acl_mdlri *m);
void acl_mdlri_cond_task_free_locked(void *task);
aclError acl_mdlri_cond_defaults(struct acl_mdlri *m, struct acl_stream *s);
bool acl_mdlri_cond_prepare(struct acl_ri_step *st);
bool acl_mdlri_cond_stale(const struct acl_mdlri *m);
uint32_t acl_mdlri_cond_len(const struct acl_ri_step *st);
void acl_mdlri_cond_emit(const struct acl_ri_step *st, struct drm_npu_cmd *v, uint32_t *j);


/* ---- hooks into the rest of the library --------------------------------- */
/*
 * How many captures are active: every hook tests this first, so that the
 * library pays one load when nothing captures.
 */
extern atomic_int acl_captures_active;

static inline bool acl_capturing(struct acl_stream *s)
{
	return atomic_load_explicit(&acl_captures_active, memory_order_relaxed) &&
	       atomic_load_explicit(&s->capture, memory_order_acquire);
}

/*
 * Records cmds submitted to a capturing stream instead of queueing them:
 * true when it did, its result in *err.
 */
bool acl_capture_cmds(struct acl_stream *s, const struct drm_npu_cmd *cmds, size_t count,
		      struct acl_ticket *done, aclError *err);
/*
 * Event and host-function calls on (or, for a wait, joining) a capturing
 * stream: true when the capture took the call, its result in *err.
 */
bool acl_capture_record(struct acl_stream *s, struct acl_event *ev, bool reset, aclError *err);
bool acl_capture_wait(struct acl_stream *s, struct acl_event *ev, aclError *err);
bool acl_capture_host(struct acl_stream *s, enum acl_ri_step_kind kind, void (*fn)(void *),
		      void *arg, aclrtCallbackBlockType block, aclError *err);
/* Synchronising or querying a capturing stream: ACL_ERROR_RT_STREAM_CAPTURED. */
aclError acl_capture_check_stream(const char *fn, struct acl_stream *s);
/* Synchronising a device (NULL: any) while one of its streams captures. */
aclError acl_capture_check_device(const char *fn, struct acl_device *d);
/* A call the capture mode may forbid (synchronous copies and fills). */
aclError acl_capture_check_unsafe(const char *fn);

/*
 * Events of aclrtCreateEventWithFlag(ACL_EVENT_EXTERNAL) are flags in a
 * device word as well (capture_event.c): a record sets it, a reset clears
 * it, a wait waits on the card until it is set.
 */
enum acl_flag_op { ACL_FLAG_SET, ACL_FLAG_CLEAR, ACL_FLAG_WAIT };

aclError acl_flag_event_init(aclrtEvent event);
void acl_flag_event_fini(struct acl_event *ev);
aclError acl_flag_event_op(struct acl_event *ev, struct acl_stream *s, enum acl_flag_op op);

#endif /* LIBASCENDCL_CAPTURE_H */
