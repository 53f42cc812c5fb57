/* SPDX-License-Identifier: MIT */
/*
 * libascendcl internals: the objects behind the public handles and the
 * helpers the source files share.
 *
 * Layering: drv.c is the only file that issues ioctls; device.c owns the
 * per-card state (one DRM file = one kernel context per card, shared by
 * every ACL context on that card); stream_ring.c and direct_ring.c own
 * submission, stream_wait.c waiting and stream_fail.c failure handling.
 *
 * Locks, outer to inner: a thread that holds a lock takes only locks of a
 * higher rank. Every lock, with what it protects:
 *
 *   1  acl_init_lock (init.c)        aclInit's reference count, finalizing,
 *                                    the default device and its reference
 *   2  enum_lock (device.c)          enumerating acl_devices[]
 *   3  device->lock                  a card's file: opening it, refs, closing
 *   4  model->work_lock (model.h)    a model's shared workspace, until its
 *                                    execution is submitted (the calls it
 *                                    makes meanwhile find their context set)
 *   5  copy_pool->lock (memcpy.c)    a device's internal streams, their users
 *   6  device->list_lock             the lists of contexts, streams, events;
 *                                    a stream's dying
 *   7  cbstate->launch_lock          a stream's callback numbers, in the
 *      (callback.c)                  order of their submission
 *   8  event->lock                   an event's slot, counter, last stream
 *  8a  acl_prof_lock (prof.h)        profiling's state, its streams' list
 *  8b  a profiled stream's lock      its stamps, until its submission is queued
 *   9  stream->lock                  submission and recovery: a stream's
 *                                    rings, direct ring, failure state
 *  10  cb_lock (callback.c)          callback queues and states, the worker
 *  11  device->slot_lock             the event slots whose free is deferred
 *  12  models_lock (model.c)         the table of loaded models, their refs
 *  12  ipc_lock (ipc_share.c)        what this process exported and imported
 *                                    (IPC memory, notifies, IPC events)
 *  12  peer_lock (peer.c)            peer access: who reaches whom, the
 *                                    peer buffers mapped for it
 *  12  initcb_lock (init_callback.c) the init and finalize callbacks, the
 *                                    config text kept for late ones
 *  12  cap_lock (capture.c)          active captures, what they record, the
 *                                    list of model runtime instances, their
 *                                    refs (no two rank-12 locks are held at once)
 *  13  acl_hostmap.lock (rwlock)     the host memory map (memory.c)
 *  14  device->devmem.lock (rwlock)  the device's allocations
 *  15  tables[]->lock (handle.c)     a handle table's slots and free list
 *  16  log_lock (log.c)              whole lines in the log file
 *  17  host_lock (prof_mark.c)       a profile's host records, open ranges
 *
 * Each is a struct acl_mutex or acl_rwlock (below), which knows its holder:
 * a helper named *_locked, or documented as called with a lock held,
 * asserts that it is.
 *
 * device->lock covers the reference count and opening the card; list_lock
 * only the lists of contexts, streams and events. The submit path takes
 * only the stream's own lock (plus a read lock on the device memory map
 * when a direct ring names a buffer).
 *
 * Teardowns (aclrtDestroyStream/Context, aclrtResetDevice, aclFinalize)
 * wait for streams and for running callbacks, and a callback may call the
 * runtime meanwhile, aclrtSetDevice and aclInit included. So no teardown
 * waits holding a lock: a device being closed is marked closing (and
 * aclFinalize marks the runtime finalizing) with the lock dropped. Others
 * wait for the mark to go, but a callback does not (the teardown may wait
 * for it): its call fails instead. Nor does a teardown wait for the
 * callback its caller is running (callback.c).
 */
#ifndef LIBASCENDCL_INTERNAL_H
#define LIBASCENDCL_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "acl/acl.h"
#include "npu_accel.h"

#define ACL_EXPORT __attribute__((visibility("default")))

#define ACL_MAX_DEVICES		16
#define ACL_DEV_ADDR_BASE	DRM_NPU_DEVICE_ADDR_BASE
/* Copies are cut into pieces of at most this size (one command each). */
#define ACL_COPY_CHUNK		(64ULL << 20)

static inline bool acl_is_dev_ptr(const void *p)
{
	return (uintptr_t)p >= ACL_DEV_ADDR_BASE;
}

/* ---- locks (lock.c) ---------------------------------------------------- */
/*
 * Locks that know who holds them, so that a helper which must be called
 * with a lock held (the *_locked ones) can check that it is: a relaxed
 * store on lock and unlock, cheap enough to stay on in every build. A
 * mutex records its holder; a rwlock its writer and how many readers it
 * has, which tells that some thread reads, not which one.
 */
struct acl_mutex {
	pthread_mutex_t m;
	_Atomic(pthread_t) owner;	/* 0 while unlocked */
};

struct acl_rwlock {
	pthread_rwlock_t l;
	_Atomic(pthread_t) writer;	/* 0 unless write-locked */
	atomic_int readers;
};

#define ACL_MUTEX_INITIALIZER	{ .m = PTHREAD_MUTEX_INITIALIZER }
#define ACL_RWLOCK_INITIALIZER	{ .l = PTHREAD_RWLOCK_INITIALIZER }

/* Reports a helper called without its lock, and aborts. */
void acl_lock_not_held(const char *func, const char *lock) __attribute__((noreturn, cold));

static inline void acl_mutex_init(struct acl_mutex *l)
{
	pthread_mutex_init(&l->m, NULL);
	atomic_init(&l->owner, 0);
}

static inline void acl_mutex_destroy(struct acl_mutex *l)
{
	pthread_mutex_destroy(&l->m);
}

static inline void acl_mutex_lock(struct acl_mutex *l)
{
	pthread_mutex_lock(&l->m);
	atomic_store_explicit(&l->owner, pthread_self(), memory_order_relaxed);
}

/* True if it took the lock. */
static inline bool acl_mutex_trylock(struct acl_mutex *l)
{
	if (pthread_mutex_trylock(&l->m))
		return false;
	atomic_store_explicit(&l->owner, pthread_self(), memory_order_relaxed);
	return true;
}

static inline void acl_mutex_unlock(struct acl_mutex *l)
{
	atomic_store_explicit(&l->owner, 0, memory_order_relaxed);
	pthread_mutex_unlock(&l->m);
}

/* Only the holder can see itself here: others never read their own id. */
static inline bool acl_mutex_held(struct acl_mutex *l)
{
	return pthread_equal(atomic_load_explicit(&l->owner, memory_order_relaxed),
			     pthread_self());
}

static inline void acl_cond_wait(pthread_cond_t *c, struct acl_mutex *l)
{
	atomic_store_explicit(&l->owner, 0, memory_order_relaxed);
	pthread_cond_wait(c, &l->m);
	atomic_store_explicit(&l->owner, pthread_self(), memory_order_relaxed);
}

static inline void acl_cond_timedwait(pthread_cond_t *c, struct acl_mutex *l,
				      const struct timespec *deadline)
{
	atomic_store_explicit(&l->owner, 0, memory_order_relaxed);
	pthread_cond_timedwait(c, &l->m, deadline);
	atomic_store_explicit(&l->owner, pthread_self(), memory_order_relaxed);
}

static inline void acl_rwlock_init(struct acl_rwlock *l)
{
	pthread_rwlock_init(&l->l, NULL);
	atomic_init(&l->writer, 0);
	atomic_init(&l->readers, 0);
}

static inline void acl_rwlock_destroy(struct acl_rwlock *l)
{
	pthread_rwlock_destroy(&l->l);
}

static inline void acl_rwlock_rdlock(struct acl_rwlock *l)
{
	pthread_rwlock_rdlock(&l->l);
	atomic_fetch_add_explicit(&l->readers, 1, memory_order_relaxed);
}

static inline void acl_rwlock_wrlock(struct acl_rwlock *l)
{
	pthread_rwlock_wrlock(&l->l);
	atomic_store_explicit(&l->writer, pthread_self(), memory_order_relaxed);
}

static inline void acl_rwlock_unlock(struct acl_rwlock *l)
{
	if (pthread_equal(atomic_load_explicit(&l->writer, memory_order_relaxed), pthread_self()))
		atomic_store_explicit(&l->writer, 0, memory_order_relaxed);
	else
		atomic_fetch_sub_explicit(&l->readers, 1, memory_order_relaxed);
	pthread_rwlock_unlock(&l->l);
}

/* Write-locked by this thread, or read-locked by some thread. */
static inline bool acl_rwlock_held(struct acl_rwlock *l)
{
	return atomic_load_explicit(&l->readers, memory_order_relaxed) > 0 ||
	       pthread_equal(atomic_load_explicit(&l->writer, memory_order_relaxed),
			     pthread_self());
}

#define ACL_ASSERT_HELD(l) \
	do { if (!acl_mutex_held(l)) acl_lock_not_held(__func__, #l); } while (0)
#define ACL_ASSERT_RWLOCK_HELD(l) \
	do { if (!acl_rwlock_held(l)) acl_lock_not_held(__func__, #l); } while (0)

/* ---- intrusive list ---------------------------------------------------- */
struct acl_list {
	struct acl_list *prev, *next;
};

static inline void acl_list_init(struct acl_list *l)
{
	l->prev = l->next = l;
}

static inline void acl_list_add(struct acl_list *head, struct acl_list *n)
{
	n->prev = head->prev;
	n->next = head;
	head->prev->next = n;
	head->prev = n;
}

static inline void acl_list_del(struct acl_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->prev = n->next = n;
}

#define acl_container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/* ---- handles (handle.c) ------------------------------------------------ */
/*
 * A handle is an encoded (type, generation, index) triple, not a pointer:
 * stale or made-up handles are recognised instead of dereferenced. The
 * objects behind handles are never returned to malloc; a freed object
 * keeps its memory and gets a new generation.
 */
struct acl_obj {
	_Atomic uint32_t gen;
	uint32_t index;
	uint32_t type;
	bool live;
};

enum acl_obj_type {
	ACL_OBJ_CONTEXT = 0,
	ACL_OBJ_STREAM,
	ACL_OBJ_EVENT,
	ACL_OBJ_NTYPES,
};

void *acl_obj_alloc(enum acl_obj_type type);
void acl_obj_free(void *obj);
void *acl_obj_handle(const void *obj);
void *acl_obj_lookup(enum acl_obj_type type, const void *handle);

/* ---- range maps (rangemap.c): sorted, non-overlapping intervals -------- */
struct acl_range {
	uint64_t start, end;	/* [start, end) */
	void *data;
};

struct acl_rmap {
	struct acl_rwlock lock;
	struct acl_range *v;
	size_t n, cap;
};

void acl_rmap_init(struct acl_rmap *m);
void acl_rmap_destroy(struct acl_rmap *m);
int acl_rmap_insert(struct acl_rmap *m, uint64_t start, uint64_t end, void *data);
void *acl_rmap_remove(struct acl_rmap *m, uint64_t start);
/* Caller holds the lock (read or write). */
struct acl_range *acl_rmap_find_locked(struct acl_rmap *m, uint64_t addr);

/* ---- logging and errors (log.c, error.c) ------------------------------- */
enum { ACL_LOG_DEBUG, ACL_LOG_INFO, ACL_LOG_WARN, ACL_LOG_ERROR, ACL_LOG_NULL };

void acl_log_init(void);
void acl_log(int level, const char *func, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define ACL_LOGD(...) acl_log(ACL_LOG_DEBUG, __func__, __VA_ARGS__)
#define ACL_LOGI(...) acl_log(ACL_LOG_INFO, __func__, __VA_ARGS__)
#define ACL_LOGW(...) acl_log(ACL_LOG_WARN, __func__, __VA_ARGS__)

/* Records code and message for the calling thread, logs, returns code. */
aclError acl_vfail(const char *func, aclError code, const char *fmt, va_list ap);
aclError acl_fail(const char *func, aclError code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define ACL_FAIL(code, ...) acl_fail(__func__, code, __VA_ARGS__)
#define ACL_CHECK_NULL(p) \
	do { if (!(p)) return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%s is NULL", #p); } while (0)

struct acl_device;

/*
 * The two ways the card reports a failure, each mapped in one place, and
 * each marks the device dead when the card is gone: so every caller
 * reports a lost card alike, and later calls know it.
 *
 * A fence slot of d carries err (enum drm_npu_error): its ACL code.
 */
aclError acl_slot_error(struct acl_device *d, uint32_t err);
const char *acl_slot_error_text(uint32_t err);
/* The vendor's code for work a card reset lost on d (reset.c). */
aclError acl_reset_error(struct acl_device *d);
/* A driver call on d failed with ret (a negative errno): its ACL code. */
aclError acl_drv_error(struct acl_device *d, int ret);
/* As acl_drv_error, and records "<what> on device N: <why>" (fmt is what). */
aclError acl_drv_fail(const char *func, struct acl_device *d, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
#define ACL_DRV_FAIL(d, ret, ...) acl_drv_fail(__func__, d, ret, __VA_ARGS__)

/* ---- driver layer (drv.c) ---------------------------------------------- */
int drv_probe(const char *path);	/* 1 if an npu accel node, else 0 */
int drv_open(const char *path);
int drv_get_param(int fd, uint32_t param, uint64_t *value);
int drv_bo_create(int fd, uint64_t size, uint32_t flags, uint32_t *handle,
		  uint64_t *addr, uint64_t *mmap_offset);
int drv_gem_close(int fd, uint32_t handle);
int drv_stream_create(int fd, uint32_t priority, uint32_t flags, uint32_t *id, uint32_t *slot);
int drv_stream_map(int fd, uint32_t id, uint64_t *offset, uint64_t *size);
int drv_stream_kick(int fd, uint32_t id);
int drv_stream_destroy(int fd, uint32_t id, bool abort);
int drv_submit(int fd, uint32_t stream, const struct drm_npu_cmd *cmds,
	       uint32_t count, uint64_t *seqno);
int drv_wait(int fd, uint32_t slot, uint64_t value, int64_t deadline_ns);
int drv_slot_alloc(int fd, uint32_t *slot);
int drv_slot_free(int fd, uint32_t slot);
int drv_slot_signal(int fd, uint32_t slot, uint64_t value);
int drv_bo_export(int fd, uint32_t handle, uint32_t flags, uint64_t *key);
int drv_bo_export_ctl(int fd, uint64_t key, uint32_t op, const int32_t *pids, uint32_t count);
int drv_bo_import(int fd, uint64_t key, uint32_t *handle, uint64_t *addr, uint64_t *size);
int drv_program_create(int fd, const struct drm_npu_cmd *cmds, uint32_t count, uint32_t *id);
int drv_program_destroy(int fd, uint32_t id);

int64_t acl_now_ns(void);	/* CLOCK_MONOTONIC */

/* ---- devices, contexts (device.c, context.c) --------------------------- */
struct acl_stream;
struct acl_context;

struct acl_deferred_slot {
	struct acl_deferred_slot *next;
	uint32_t slot;
	uint64_t value;
};

struct acl_device {
	int32_t id;			/* logical device id */
	char path[64];			/* /dev/accel/accelN */
	char bdf[32];			/* PCI address */
	unsigned minor;

	struct acl_mutex lock;		/* open, refs, closing */
	pthread_cond_t closed;		/* closing went false */
	struct acl_mutex list_lock;	/* contexts, streams, events */
	int refs;			/* aclrtSetDevice + explicit contexts */
	bool closing;			/* refs went to 0: being closed, unlocked */
	int fd;				/* -1 while closed */
	volatile struct drm_npu_fence_slot *fence;
	size_t fence_size;
	uint32_t num_slots, num_rings;
	/*
	 * Handles below this can be named on a direct ring; 0: no direct
	 * rings (a driver without them, or ACL_DIRECT_RINGS=0).
	 */
	uint32_t direct_bindings;
	uint64_t devmem_size, serial;
	uint32_t version;

	struct acl_context *default_ctx;
	struct acl_list contexts;	/* every live context */
	struct acl_list streams;	/* every live stream (internal too) */
	struct acl_list events;		/* every live event */

	struct acl_rmap devmem;		/* device allocations */
	struct acl_mutex slot_lock;	/* deferred slot frees */
	struct acl_deferred_slot *deferred;

	atomic_bool dead;		/* the card stopped its heartbeat */
};

struct acl_context {
	struct acl_obj obj;
	struct acl_device *dev;
	struct acl_stream *default_stream;
	bool is_default;
	struct acl_list link;		/* in dev->contexts */
};

extern struct acl_device acl_devices[ACL_MAX_DEVICES];
extern int acl_ndevices;

/* Scans /dev/accel for npu cards (once, or again when rescan is set). */
void acl_enumerate_devices(bool rescan);
struct acl_device *acl_device_get(int32_t id);	/* NULL if out of range */
/*
 * Takes a reference, opening the card on the first one. A card being
 * closed is waited for, unless !wait or in a callback: then it fails with
 * ACL_ERROR_RT_DEVICE_TASK_ABORT (logged only when wait).
 */
aclError acl_device_acquire(struct acl_device *dev, bool wait);
/* Waits for a close of dev to end, as acquire; false if it did not. */
bool acl_device_wait_closed(struct acl_device *dev);
/* Drops a reference; closes the card at zero (or at once when force). */
aclError acl_device_release(struct acl_device *dev, bool force);
void acl_device_shutdown_all(void);
void acl_device_mark_dead(struct acl_device *dev);
/* Event slot frees that wait for the slot to reach a value. */
void acl_device_defer_slot(struct acl_device *dev, uint32_t slot, uint64_t value);
void acl_device_reap_slots(struct acl_device *dev);
/* acl_stream_drain for each stream of dev (of ctx only, unless NULL). */
void acl_device_drain(struct acl_device *dev, struct acl_context *ctx);

/* The calling thread's current context, NULL (and an error) if none. */
struct acl_context *acl_current_ctx(void);
struct acl_context *acl_current_ctx_quiet(void);
/* For calls that report through out: checks it, then as acl_current_ctx. */
struct acl_context *acl_current_ctx_for(const void *out, aclError *err);
/* A driver parameter of the current context's device. */
aclError acl_current_dev_param(const char *fn, uint32_t param, uint64_t *value);
void acl_set_current_ctx(struct acl_context *ctx);
struct acl_context *acl_context_create(struct acl_device *dev, bool is_default,
				       aclError *err);
void acl_context_destroy(struct acl_context *ctx, bool wait);

/* ---- streams (stream.c, stream_ring.c, stream_wait.c, stream_fail.c) --- */
/*
 * One kernel stream; replaced when a failed stream is recovered (or
 * aborted). The replaced one is kept, marked gone, until the stream is
 * freed: threads may still be waiting on it.
 */
/*
 * The ring of a direct kernel stream, mapped: libacl writes its commands
 * (buffers named by handle) and its tail, and the card checks them.
 */
struct acl_direct {
	struct drm_npu_direct_ctrl *ctrl;
	struct drm_npu_direct_cmd *cmds;
	size_t map_size;
	uint32_t entries;
	uint32_t tail;
};

struct acl_kstream {
	uint32_t id;
	uint32_t slot;
	struct acl_direct *dir;		/* a direct stream's ring, else NULL */
	_Atomic uint64_t submitted;	/* last seqno handed to the card */
	_Atomic bool gone;		/* destroyed: its slot is no longer its own */
	uint64_t final_value;		/* its slot when it was destroyed */
	uint32_t final_err;
	struct acl_kstream *older;
	struct acl_journal *journal;	/* its unfinished tasks (stream_resume.c), under lock */
};

struct acl_cbstate;

struct acl_stream {
	struct acl_obj obj;
	struct acl_device *dev;
	struct acl_context *ctx;	/* NULL for an internal stream (copy pool) */
	struct acl_mutex lock;		/* submission and recovery */
	struct acl_kstream *_Atomic kst;
	/*
	 * ACL_STREAM_FAST_LAUNCH: a direct kernel stream for copies and
	 * fills, which take no system call; last: where the latest work went,
	 * which is where a synchronization looks (under lock).
	 */
	struct acl_kstream *_Atomic dst;
	struct acl_kstream *_Atomic last;
	uint32_t priority, flags;
	uint64_t failure_mode;
	bool is_default;
	bool dying;			/* being freed (under list_lock) */
	bool direct_tried;		/* a direct ring was made or refused (under lock) */
	_Atomic int pending_err;	/* failure found while submitting */
	aclError sticky_err;		/* unrecoverable (dead card, stop mode) */
	struct acl_cbstate *cb;		/* callbacks, under cb_lock */
	struct acl_capture *_Atomic capture;	/* recording into a model (capture.c) */
	struct acl_list link;		/* in dev->streams */
	_Atomic uint32_t user_tag;	/* ACL_STREAM_ATTR_USER_CUSTOM_TAG */
	_Atomic uint32_t res_limit[2];	/* per aclrtDevResLimitType, 0: none (res_limit.c) */
	struct acl_task_log *tasks;	/* its recent tasks, under lock (exception.c) */
};

/*
 * Where submitted work completes: the kernel stream it went to (which a
 * recovery may since have replaced) and the value its slot then reaches.
 */
struct acl_ticket {
	struct acl_kstream *k;
	uint64_t seq;
};

/* NULL means the current context's default stream. */
struct acl_stream *acl_stream_resolve(aclrtStream handle, aclError *err);
struct acl_stream *acl_stream_new(struct acl_device *dev, struct acl_context *ctx,
				  uint32_t priority, uint32_t flags, aclError *err);
aclError acl_stream_free(struct acl_stream *s, bool wait);
/*
 * Waits for the stream's work, releasing blocking callbacks nobody will
 * serve. Holds no device lock: callbacks may call the runtime meanwhile.
 */
void acl_stream_drain(struct acl_stream *s);
/* Queues commands; *done (if not NULL) tells where the last of them completes. */
aclError acl_stream_submit(struct acl_stream *s, struct drm_npu_cmd *cmds,
			   size_t count, struct acl_ticket *done);
/*
 * The same through the driver's ring alone: for slot writes whose failure
 * must reach the stream's callbacks, which only the driver's ring reports.
 */
aclError acl_stream_submit_kernel(struct acl_stream *s, struct drm_npu_cmd *cmds,
				  size_t count, struct acl_ticket *done);
/* Waits for a ticket of s (timeout_ms -1: forever). */
aclError acl_stream_wait(struct acl_stream *s, const struct acl_ticket *t, int32_t timeout_ms);
aclError acl_stream_sync(struct acl_stream *s, int32_t timeout_ms);

/* Waits for a slot of dev to reach value; spins briefly first. */
aclError acl_wait_slot(struct acl_device *dev, uint32_t slot, uint64_t value,
		       int32_t timeout_ms, aclError timeout_code);
/* What s has been given so far, and whether a ticket's work is done (*err if not). */
struct acl_ticket acl_stream_last_ticket(struct acl_stream *s);
bool acl_ticket_done(struct acl_stream *s, const struct acl_ticket *t, uint32_t *err);

/* Kernel streams (stream_ring.c): k's slot as k left it, even once k is gone. */
void acl_kstream_state(struct acl_device *d, struct acl_kstream *k, uint64_t *value,
		       uint32_t *err);
uint32_t acl_kstream_err(struct acl_device *d, struct acl_kstream *k);
aclError acl_kstream_new(struct acl_stream *s, struct acl_kstream **out);
void acl_kstream_retire(struct acl_device *d, struct acl_kstream *k);

/* Failure handling (stream_fail.c), s->lock held: the error to report. */
aclError acl_stream_failed_locked(struct acl_stream *s, struct acl_kstream *k);
bool acl_stream_failed_before_locked(struct acl_stream *s, struct acl_kstream *k,
				     aclError *code);

/*
 * Continue-on-failure (stream_resume.c), s->lock held: each task given to
 * a ring is noted; when the ring fails, the tasks behind the failed one
 * are submitted again to the stream's new ring.
 */
aclError acl_stream_submit_locked(struct acl_stream *s, const struct drm_npu_cmd *cmds,
				  size_t count, struct acl_ticket *done);
void acl_journal_note_locked(struct acl_stream *s, struct acl_kstream *k,
			     const struct drm_npu_cmd *cmds, size_t count, uint64_t first,
			     uint64_t last);
void acl_journal_replay_locked(struct acl_stream *s, struct acl_kstream *k);
void acl_journal_free(struct acl_kstream *k);

/* The direct-ring producer (direct_ring.c). */
bool acl_direct_ring_to_spare(struct acl_device *d);
struct acl_kstream *acl_direct_new(struct acl_stream *s);
void acl_direct_unmap(struct acl_kstream *k);
bool acl_direct_reclaim(struct acl_device *d);
bool acl_direct_eligible(struct acl_device *d, const struct drm_npu_cmd *cmds, size_t count);
bool acl_direct_submit_locked(struct acl_stream *s, struct acl_kstream *k,
			      const struct drm_npu_cmd *cmds, size_t count, uint64_t *seq);
int acl_direct_order_locked(struct acl_stream *s, struct acl_kstream *kk);
uint32_t acl_direct_rings_held(struct acl_device *d);

static inline bool acl_seq_reached(uint64_t have, uint64_t want)
{
	return (int64_t)(have - want) >= 0;
}

static inline uint64_t acl_slot_value(struct acl_device *dev, uint32_t slot)
{
	return __atomic_load_n(&dev->fence[slot].value, __ATOMIC_ACQUIRE);
}

static inline uint32_t acl_slot_err(struct acl_device *dev, uint32_t slot)
{
	return __atomic_load_n(&dev->fence[slot].error, __ATOMIC_ACQUIRE);
}

/* Stopping, restarting (stream_ctl.c), state callbacks (stream_state.c). */
aclError acl_stream_restart_locked(struct acl_stream *s);
/* Why s, which has a sticky error, refuses work; k is its latest ring. */
const char *acl_stream_refusal_text(struct acl_stream *s, struct acl_kstream *k);
void acl_stream_state_notify(struct acl_stream *s, aclrtStreamState state);

/*
 * Tasks and exceptions (exception.c): each submission to s is noted with
 * s->lock held; a failure of k is noted when first handled, with s->lock
 * held, and the exception callbacks are called by acl_exception_deliver,
 * which the thread calls once it holds no stream lock.
 */
void acl_task_note_locked(struct acl_stream *s, struct acl_kstream *k, uint64_t seq);
void acl_task_log_free(struct acl_stream *s);
void acl_exception_note_locked(struct acl_stream *s, struct acl_kstream *k, aclError code);
void acl_exception_deliver(void);

/* A driver parameter of d, whether or not the process has d open (res_limit.c). */
aclError acl_device_param(const char *fn, struct acl_device *d, uint32_t param, uint64_t *v);

/* ---- events (event.c) -------------------------------------------------- */
struct acl_event {
	struct acl_obj obj;
	struct acl_device *dev;
	struct acl_mutex lock;
	uint32_t flags;
	bool ex;			/* made by aclrtCreateEventExWithFlag */
	bool has_slot;
	uint64_t counter;		/* last value written into the slot */
	uint64_t reset_at;		/* the slot's value once the last reset is reached */
	struct acl_stream *last_stream;
	void *flag_word;		/* ACL_EVENT_EXTERNAL: its flag (capture_event.c) */
	/* slot << 40 | value of the latest record (0: never recorded) */
	_Atomic uint64_t state;
	struct acl_list link;		/* in dev->events */
	struct acl_ipc_event *ipc;	/* ACL_EVENT_IPC: its shared word (ipc_event.c) */
};

#define ACL_EV_SLOT(st)		((uint32_t)((st) >> 40))
#define ACL_EV_VALUE(st)	((st) & ((1ULL << 40) - 1))

/* Caller holds the device's list_lock. */
void acl_event_free(struct acl_event *ev);
aclError acl_event_create(aclrtEvent *event, uint32_t flags, bool ex);

/* IPC events (ipc_event.c): what an event of ACL_EVENT_IPC does besides. */
aclError acl_ipc_event_init(struct acl_event *ev);
void acl_ipc_event_release(struct acl_event *ev);
aclError acl_ipc_event_record(struct acl_event *ev, struct acl_stream *s);
/* Opened from another process's handle: waits and queries go by the word. */
bool acl_ipc_event_opened(const struct acl_event *ev);
aclError acl_ipc_event_wait(struct acl_event *ev, struct acl_stream *s);
aclError acl_ipc_event_sync(struct acl_event *ev, int32_t timeout_ms);
aclError acl_ipc_event_done(struct acl_event *ev, bool *done);

/* ---- memory (memory.c) ------------------------------------------------- */
enum acl_host_kind { ACL_HOST_PINNED, ACL_HOST_REGISTERED };

struct acl_hostmem {
	enum acl_host_kind kind;
	void *ptr;
	size_t size;			/* user-visible size */
	size_t map_size;		/* mmap length (pinned) */
	struct acl_device *dev;		/* pinned: the card whose file owns it */
	uint32_t handle;
};

struct acl_devmem {
	uint64_t addr;
	size_t size;			/* requested */
	size_t alloc;			/* allocated */
	uint32_t handle;
	uint32_t policy;
	/* another process's, imported: closed by aclrtIpcMemClose, never bound */
	bool imported;
};

extern struct acl_rmap acl_hostmap;

/* Operand of a copy, classified. */
enum acl_opnd_kind {
	ACL_OPND_DEVICE,	/* device address */
	ACL_OPND_PINNED,	/* host buffer of the stream's card: handle + offset */
	ACL_OPND_USER,		/* host memory the kernel pins per command */
	ACL_OPND_FOREIGN,	/* pinned buffer of another card: bounce */
};

struct acl_opnd {
	enum acl_opnd_kind kind;
	bool pageable;		/* ordinary memory: the call must finish it */
	uint64_t addr;		/* device address, offset or user pointer */
	uint32_t handle;
};

void acl_classify(struct acl_device *dev, const void *p, size_t len, struct acl_opnd *o);
/* aclrtMemcpy (sync) and aclrtMemcpyAsync, failing in fn's name. */
aclError acl_copy_1d(const char *fn, void *dst, size_t destMax, const void *src, size_t count,
		     aclrtMemcpyKind kind, aclrtStream stream, bool sync);
bool acl_devmem_padding_holds(struct acl_device *d, uint64_t addr, uint64_t len);
/* The handle and offset of [addr, addr + len) when it lies in one allocation of d. */
bool acl_devmem_binding(struct acl_device *d, uint64_t addr, uint64_t len, uint32_t *handle,
			uint64_t *offset);
/*
 * Waits for the work queued on d's direct rings: they name buffers by
 * handle, and a handle closed before its command ran fails the stream.
 */
void acl_direct_quiesce(struct acl_device *d);
/* ACL_DIRECT_RINGS=0 in the environment: every submission through the driver. */
bool acl_direct_rings_wanted(void);

/* ---- copies (memcpy.c) ------------------------------------------------- */
/*
 * The internal streams that synchronous calls run on, one pool per
 * device: device.c sets it up when it opens the card, and it goes (its
 * streams freed, their work waited for unless !wait) when the card closes.
 */
void acl_copy_pool_init(struct acl_device *dev);
void acl_copy_pool_fini(struct acl_device *dev, bool wait);
void acl_hostmem_drop(struct acl_device *dev);	/* NULL: registrations */
void acl_devmem_drop_device(struct acl_device *dev);
/* Forgets what dev's file exported and imported (ipc_share.c). */
void acl_ipc_drop_device(struct acl_device *dev);

/* ---- callbacks (callback.c) -------------------------------------------- */
/* Whether the calling thread is inside a callback: it must not wait for a teardown. */
bool acl_cb_running(void);
void acl_cb_stream_gone(struct acl_stream *s);
void acl_cb_stream_failed(struct acl_stream *s);
bool acl_cb_release_unserved(struct acl_stream *s);
void acl_cb_shutdown(void);

/* ---- init (init.c) ----------------------------------------------------- */
/* From aclInit's config, -1 if none; read without the lock for the common -1. */
extern _Atomic int32_t acl_default_device;
extern bool acl_default_taken;		/* its reference is held */
extern struct acl_mutex acl_init_lock;

#endif /* LIBASCENDCL_INTERNAL_H */
