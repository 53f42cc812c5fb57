// SPDX-License-Identifier: MIT
/*
 * Host callbacks in streams (aclrtLaunchCallback, aclrtLaunchHostFunc).
 *
 * A stream with callbacks gets two event slots: "reached", which the card
 * writes (SLOT_WRITE, with an interrupt) when the stream arrives at the
 * n-th callback, and "done", which the host sets (SLOT_SIGNAL) after the
 * n-th callback has returned. A blocking callback is followed on the card
 * by SLOT_WAIT(done, n): the ring itself stalls until the host function
 * has run, and no host thread has to hold the stream back.
 *
 * Callbacks of aclrtLaunchCallback run in the thread subscribed to the
 * stream, inside aclrtProcessReport; those of aclrtLaunchHostFunc run in
 * the thread subscribed to the stream for host functions, inside
 * aclrtProcessHostFunc, or, while none is, in an internal thread. Each
 * stream's callbacks run in launch order.
 *
 * The bookkeeping (queues, subscriptions) sits under one mutex, cb_lock;
 * the card-side work goes through the stream's own submission path.
 *
 * A callback may call the runtime, even tear down its own stream, context
 * or device. Such a teardown must not wait for the callback that makes it,
 * nor for callbacks that only the calling thread would serve: those are
 * let go instead (acl_cb_release_unserved, acl_cb_stream_gone).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture.h"

enum cb_kind { CB_REPORT = 1, CB_HOSTFUNC = 2, CB_KINDS };

/* The thread that runs a stream's callbacks of one kind. */
struct cb_sub {
	bool on;
	pthread_t thread;
};

struct acl_cb {
	struct acl_cb *next;
	uint64_t seq;
	void (*fn)(void *);
	void *arg;
	bool block;
	enum cb_kind kind;
};

struct acl_cbstate {
	struct acl_stream *s;
	struct acl_mutex launch_lock;	/* orders seq assignment with submission */
	uint32_t reached_slot, done_slot;
	uint64_t launched;		/* last seq handed out */
	struct acl_cb *head, *tail;
	struct cb_sub sub[CB_KINDS];	/* by enum cb_kind */
	bool busy;			/* a callback of the stream is running: */
	struct acl_cb *cur;		/* this one, */
	pthread_t runner;		/* in this thread */
	bool orphan;			/* stream gone under its running callback */
	struct acl_list link;		/* in cb_all */
};

static struct acl_mutex cb_lock = ACL_MUTEX_INITIALIZER;
static pthread_cond_t cb_cond;
static pthread_once_t cb_once = PTHREAD_ONCE_INIT;
static struct acl_list cb_all = { &cb_all, &cb_all };

static pthread_t worker;
static bool worker_running;

/* Callbacks the thread is inside (aclrtProcessReport in a callback nests). */
static __thread int tls_running;

bool acl_cb_running(void)
{
	return tls_running > 0;
}

static void cb_init_once(void)
{
	pthread_condattr_t a;

	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&cb_cond, &a);
	pthread_condattr_destroy(&a);
}

static void cond_wait_until(int64_t deadline_ns)
{
	struct timespec ts = { deadline_ns / 1000000000, deadline_ns % 1000000000 };

	acl_cond_timedwait(&cb_cond, &cb_lock, &ts);
}

static void drop_queue(struct acl_cbstate *st)
{
	while (st->head) {
		struct acl_cb *cb = st->head;

		st->head = cb->next;
		free(cb);
	}
	st->tail = NULL;
}

/* cb_lock held. */
static struct acl_cbstate *cb_get(struct acl_stream *s, aclError *err)
{
	struct acl_device *d = s->dev;
	struct acl_cbstate *st = s->cb;
	int ret;

	ACL_ASSERT_HELD(&cb_lock);
	if (st)
		return st;
	st = calloc(1, sizeof(*st));
	if (!st) {
		*err = ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of host memory");
		return NULL;
	}
	ret = drv_slot_alloc(d->fd, &st->reached_slot);
	if (!ret) {
		ret = drv_slot_alloc(d->fd, &st->done_slot);
		if (ret)
			drv_slot_free(d->fd, st->reached_slot);
	}
	if (ret) {
		free(st);
		*err = ACL_DRV_FAIL(d, ret, "taking fence slots for callbacks");
		return NULL;
	}
	acl_mutex_init(&st->launch_lock);
	st->s = s;
	acl_list_add(&cb_all, &st->link);
	s->cb = st;
	return st;
}

/*
 * Takes the head callback of st if it is of kind and the stream has
 * reached it (cb_lock held). A failed stream's callbacks never run.
 */
static struct acl_cb *take_ready(struct acl_cbstate *st, enum cb_kind kind)
{
	struct acl_device *d = st->s->dev;
	struct acl_cb *cb = st->head;

	ACL_ASSERT_HELD(&cb_lock);
	if (st->busy || !cb || cb->kind != kind)
		return NULL;
	if (!acl_seq_reached(acl_slot_value(d, st->reached_slot), cb->seq)) {
		if (acl_slot_err(d, st->reached_slot)) {
			ACL_LOGW("stream %u failed: its pending callbacks are dropped", st->s->obj.index);
			drop_queue(st);
		}
		return NULL;
	}
	st->head = cb->next;
	if (!st->head)
		st->tail = NULL;
	st->busy = true;
	st->cur = cb;
	st->runner = pthread_self();
	return cb;
}

/*
 * Runs cb outside cb_lock (which the caller holds) and releases the ring,
 * unless a teardown let it past already (done never goes back). When the
 * callback destroyed its own stream, st is orphaned: its slots are gone
 * and it is freed here.
 */
static void run_cb(struct acl_cbstate *st, struct acl_cb *cb)
{
	struct acl_device *d = st->s->dev;

	acl_mutex_unlock(&cb_lock);
	tls_running++;
	cb->fn(cb->arg);
	tls_running--;
	acl_mutex_lock(&cb_lock);
	if (st->orphan) {
		free(st);
	} else {
		if (cb->block && !acl_seq_reached(acl_slot_value(d, st->done_slot), cb->seq))
			drv_slot_signal(d->fd, st->done_slot, cb->seq);
		st->busy = false;
	}
	pthread_cond_broadcast(&cb_cond);
	free(cb);
}

static aclError launch(struct acl_stream *s, void (*fn)(void *), void *arg, bool block,
		       enum cb_kind kind)
{
	struct drm_npu_cmd cmds[2];
	struct acl_cbstate *st;
	struct acl_cb *cb;
	aclError err = ACL_SUCCESS;
	uint64_t seq;
	int n = 0;

	pthread_once(&cb_once, cb_init_once);
	cb = calloc(1, sizeof(*cb));
	if (!cb)
		return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of host memory");
	acl_mutex_lock(&cb_lock);
	st = cb_get(s, &err);
	if (st && kind == CB_REPORT && !st->sub[CB_REPORT].on)
		err = ACL_FAIL(ACL_ERROR_RT_STREAM_NO_CB_REG,
			       "no thread is subscribed to stream %u (aclrtSubscribeReport)",
			       s->obj.index);
	acl_mutex_unlock(&cb_lock);
	if (err) {
		free(cb);
		return err;
	}

	acl_mutex_lock(&st->launch_lock);
	seq = st->launched + 1;
	memset(cmds, 0, sizeof(cmds));
	cmds[n].op = DRM_NPU_OP_SLOT_WRITE;
	cmds[n].slot = st->reached_slot;
	cmds[n].value = seq;
	n++;
	if (block) {
		cmds[n].op = DRM_NPU_OP_SLOT_WAIT;
		cmds[n].slot = st->done_slot;
		cmds[n].value = seq;
		n++;
	}
	*cb = (struct acl_cb){ .seq = seq, .fn = fn, .arg = arg, .block = block, .kind = kind };
	err = acl_stream_submit_kernel(s, cmds, (size_t)n, NULL);
	if (!err) {
		acl_mutex_lock(&cb_lock);
		st->launched = seq;
		if (st->tail)
			st->tail->next = cb;
		else
			st->head = cb;
		st->tail = cb;
		/*
		 * Done with st before the callback can run: it may destroy
		 * the stream, and st with it (acl_cb_stream_gone).
		 */
		acl_mutex_unlock(&st->launch_lock);
		pthread_cond_broadcast(&cb_cond);
		acl_mutex_unlock(&cb_lock);
	} else {
		acl_mutex_unlock(&st->launch_lock);
		free(cb);
	}
	return err;
}

/* ---- stream lifecycle hooks -------------------------------------------- */

/*
 * The stream failed and got a new ring (s->lock held): its callbacks will
 * never be reached. The slots stay: the submission being retried names
 * them, and the next SLOT_WRITE to "reached" clears its error.
 */
void acl_cb_stream_failed(struct acl_stream *s)
{
	ACL_ASSERT_HELD(&s->lock);
	acl_mutex_lock(&cb_lock);
	if (s->cb) {
		drop_queue(s->cb);
		pthread_cond_broadcast(&cb_cond);
	}
	acl_mutex_unlock(&cb_lock);
}

/*
 * Whether a thread other than me will run st's next callback of kind
 * (cb_lock held): me is busy waiting for the stream meanwhile.
 */
static bool served_by_another(const struct acl_cbstate *st, enum cb_kind kind, pthread_t me)
{
	ACL_ASSERT_HELD(&cb_lock);
	if (st->sub[kind].on)
		return !pthread_equal(st->sub[kind].thread, me);
	return kind == CB_HOSTFUNC && worker_running && !pthread_equal(worker, me);
}

/*
 * Before a waiting destroy: blocking callbacks that no other thread will
 * serve are released (not run), so that the stream can drain. A blocking
 * callback that the caller itself runs cannot return first: the ring is
 * let past it (run_cb then signals nothing).
 */
bool acl_cb_release_unserved(struct acl_stream *s)
{
	pthread_t me = pthread_self();
	struct acl_cbstate *st;
	bool released = false;
	uint64_t upto = 0;
	uint32_t slot = 0;

	acl_mutex_lock(&cb_lock);
	st = s->cb;
	if (st && st->busy && st->cur->block && pthread_equal(st->runner, me)) {
		upto = st->cur->seq;
		slot = st->done_slot;
	}
	if (st && st->head && !served_by_another(st, st->head->kind, me)) {
		upto = st->launched;
		slot = st->done_slot;
		drop_queue(st);
		released = true;
	}
	acl_mutex_unlock(&cb_lock);
	if (released)
		ACL_LOGW("stream %u destroyed with callbacks nobody else serves: dropped",
			 s->obj.index);
	if (upto)
		drv_slot_signal(s->dev->fd, slot, upto);
	return released;
}

/*
 * Waits for the stream's running callback, unless the caller is running it
 * (it destroys its own stream): then run_cb frees st once it returns.
 */
void acl_cb_stream_gone(struct acl_stream *s)
{
	struct acl_device *d = s->dev;
	struct acl_cbstate *st;
	bool mine;

	acl_mutex_lock(&cb_lock);
	st = s->cb;
	if (st) {
		mine = st->busy && pthread_equal(st->runner, pthread_self());
		while (st->busy && !mine)
			acl_cond_wait(&cb_cond, &cb_lock);
		drop_queue(st);
		acl_list_del(&st->link);
		if (d->fd >= 0) {
			/* Let a stalled ring go before it is destroyed. */
			drv_slot_signal(d->fd, st->done_slot, st->launched);
			drv_slot_free(d->fd, st->reached_slot);
			drv_slot_free(d->fd, st->done_slot);
		}
		acl_mutex_destroy(&st->launch_lock);
		st->orphan = mine;
		if (!mine)
			free(st);
		s->cb = NULL;
		pthread_cond_broadcast(&cb_cond);
	}
	acl_mutex_unlock(&cb_lock);
}

/* ---- aclrtLaunchCallback and friends ------------------------------------ */

static const char *const cb_subscriber[CB_KINDS] = {
	[CB_REPORT] = "aclrtSubscribeReport", [CB_HOSTFUNC] = "aclrtSubscribeHostFunc",
};

static aclError subscribe(enum cb_kind kind, uint64_t threadId, aclrtStream stream)
{
	struct acl_cbstate *st;
	struct acl_stream *s;
	struct acl_list *pos;
	aclError err = ACL_SUCCESS;

	pthread_once(&cb_once, cb_init_once);
	s = acl_stream_resolve(stream, &err);
	if (!s)
		return err;
	acl_mutex_lock(&cb_lock);
	for (pos = cb_all.next; pos != &cb_all; pos = pos->next) {
		struct acl_cbstate *o = acl_container_of(pos, struct acl_cbstate, link);

		if (o->sub[kind].on && (uint64_t)o->sub[kind].thread == threadId &&
		    o->s->dev != s->dev) {
			acl_mutex_unlock(&cb_lock);
			return ACL_FAIL(ACL_ERROR_RT_THREAD_SUBSCRIBE,
					"thread %llu already serves streams of device %d",
					(unsigned long long)threadId, o->s->dev->id);
		}
	}
	st = cb_get(s, &err);
	if (st && st->sub[kind].on)
		err = ACL_FAIL(ACL_ERROR_RT_STREAM_SUBSCRIBE,
			       "stream %u already has a subscribed thread (%s)", s->obj.index,
			       cb_subscriber[kind]);
	else if (st) {
		st->sub[kind] = (struct cb_sub){ true, (pthread_t)threadId };
		pthread_cond_broadcast(&cb_cond);
	}
	acl_mutex_unlock(&cb_lock);
	return err;
}

static aclError unsubscribe(enum cb_kind kind, uint64_t threadId, aclrtStream stream)
{
	struct acl_cbstate *st;
	struct acl_stream *s;
	aclError err = ACL_SUCCESS;

	s = acl_stream_resolve(stream, &err);
	if (!s)
		return err;
	acl_mutex_lock(&cb_lock);
	st = s->cb;
	if (!st || !st->sub[kind].on || (uint64_t)st->sub[kind].thread != threadId)
		err = ACL_FAIL(ACL_ERROR_STREAM_NOT_SUBSCRIBE,
			       "stream %u is not subscribed by thread %llu (%s)", s->obj.index,
			       (unsigned long long)threadId, cb_subscriber[kind]);
	else {
		st->sub[kind].on = false;
		pthread_cond_broadcast(&cb_cond);
	}
	acl_mutex_unlock(&cb_lock);
	return err;
}

ACL_EXPORT aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream)
{
	return subscribe(CB_REPORT, threadId, stream);
}

ACL_EXPORT aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream)
{
	return unsubscribe(CB_REPORT, threadId, stream);
}

/* Host functions of the stream run in that thread, not the internal one. */
ACL_EXPORT aclError aclrtSubscribeHostFunc(uint64_t hostFuncThreadId, aclrtStream exeStream)
{
	return subscribe(CB_HOSTFUNC, hostFuncThreadId, exeStream);
}

ACL_EXPORT aclError aclrtUnSubscribeHostFunc(uint64_t hostFuncThreadId, aclrtStream exeStream)
{
	return unsubscribe(CB_HOSTFUNC, hostFuncThreadId, exeStream);
}

ACL_EXPORT aclError aclrtLaunchCallback(aclrtCallback fn, void *userData,
					aclrtCallbackBlockType blockType, aclrtStream stream)
{
	struct acl_stream *s;
	aclError err = ACL_SUCCESS;

	ACL_CHECK_NULL(fn);
	if (blockType != ACL_CALLBACK_NO_BLOCK && blockType != ACL_CALLBACK_BLOCK)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "invalid block type %d", (int)blockType);
	s = acl_stream_resolve(stream, &err);
	if (!s)
		return err;
	if (acl_capturing(s) && acl_capture_host(s, ACL_RI_CALLBACK, fn, userData, blockType, &err))
		return err;
	return launch(s, fn, userData, blockType == ACL_CALLBACK_BLOCK, CB_REPORT);
}

/* What a pass over the streams found for the caller (cb_lock held). */
struct cb_scan {
	int nserved;			/* streams whose callbacks the caller runs */
	struct acl_cbstate *pending;	/* one whose next callback the card has yet to reach */
};

/*
 * Callbacks run in the stream's subscribed thread; host functions of a
 * stream without one in the worker.
 */
static bool serves(const struct acl_cbstate *st, enum cb_kind kind, pthread_t me)
{
	if (st->sub[kind].on)
		return pthread_equal(st->sub[kind].thread, me);
	return kind == CB_HOSTFUNC && pthread_equal(worker, me);
}

/*
 * Runs the first callback of kind that the card has reached on a stream
 * the caller serves, and returns true; else says in *sc what to wait for.
 */
static bool serve_one(enum cb_kind kind, struct cb_scan *sc)
{
	pthread_t me = pthread_self();
	struct acl_list *pos;

	*sc = (struct cb_scan){ 0 };
	for (pos = cb_all.next; pos != &cb_all; pos = pos->next) {
		struct acl_cbstate *st = acl_container_of(pos, struct acl_cbstate, link);
		struct acl_cb *cb;

		if (!serves(st, kind, me))
			continue;
		sc->nserved++;
		cb = take_ready(st, kind);
		if (cb) {
			run_cb(st, cb);
			return true;	/* the list may have changed meanwhile */
		}
		if (!sc->pending && st->head && st->head->kind == kind && !st->busy)
			sc->pending = st;
	}
	return false;
}

/*
 * Sleeps (cb_lock dropped) until the card reaches the pending callback,
 * only briefly when callbacks of other streams may fall due meanwhile;
 * with none pending, until a launch. Never past deadline.
 */
static void wait_for_callbacks(const struct cb_scan *sc, int64_t deadline)
{
	int64_t now = acl_now_ns();
	int64_t slice = sc->pending && sc->nserved > 1 ? 2000000 : 100000000;
	int64_t until = deadline - now < slice ? deadline : now + slice;
	struct acl_device *d;
	uint32_t slot;
	uint64_t seq;

	if (!sc->pending) {
		cond_wait_until(until);
		return;
	}
	d = sc->pending->s->dev;
	slot = sc->pending->reached_slot;
	seq = sc->pending->head->seq;
	acl_mutex_unlock(&cb_lock);
	if (drv_wait(d->fd, slot, seq, until) == -EIO) {
		/* The stream failed: the next pass drops its callbacks. */
		struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);
	}
	acl_mutex_lock(&cb_lock);
}

/* Runs every callback of kind that is due, waiting up to timeout for the first. */
static aclError process(enum cb_kind kind, int32_t timeout)
{
	int64_t deadline;
	bool did = false;
	struct cb_scan sc;

	if (timeout == 0 || timeout < -1)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "timeout %d is invalid (-1 or > 0)", timeout);
	pthread_once(&cb_once, cb_init_once);
	deadline = timeout < 0 ? INT64_MAX : acl_now_ns() + (int64_t)timeout * 1000000;
	acl_mutex_lock(&cb_lock);
	for (;;) {
		if (serve_one(kind, &sc)) {
			did = true;
			continue;
		}
		if (did)
			break;
		if (!sc.nserved) {
			acl_mutex_unlock(&cb_lock);
			return ACL_FAIL(ACL_ERROR_RT_THREAD_SUBSCRIBE,
					"the calling thread is not subscribed to any stream (%s)",
					cb_subscriber[kind]);
		}
		if (acl_now_ns() >= deadline) {
			acl_mutex_unlock(&cb_lock);
			return ACL_FAIL(ACL_ERROR_RT_REPORT_TIMEOUT, "no callback within %d ms", timeout);
		}
		wait_for_callbacks(&sc, deadline);
	}
	acl_mutex_unlock(&cb_lock);
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtProcessReport(int32_t timeout)
{
	return process(CB_REPORT, timeout);
}

ACL_EXPORT aclError aclrtProcessHostFunc(int32_t timeout)
{
	return process(CB_HOSTFUNC, timeout);
}

/* ---- aclrtLaunchHostFunc: the internal worker --------------------------- */

static void *worker_main(void *unused)
{
	struct cb_scan sc;

	(void)unused;
	acl_mutex_lock(&cb_lock);
	/* Until stopped, or replaced after it stopped itself (aclFinalize in a host function). */
	while (worker_running && pthread_equal(worker, pthread_self()))
		if (!serve_one(CB_HOSTFUNC, &sc))
			wait_for_callbacks(&sc, INT64_MAX);
	acl_mutex_unlock(&cb_lock);
	return NULL;
}

ACL_EXPORT aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void *args)
{
	struct acl_stream *s;
	aclError err = ACL_SUCCESS;

	ACL_CHECK_NULL(fn);
	s = acl_stream_resolve(stream, &err);
	if (!s)
		return err;
	if (acl_capturing(s) && acl_capture_host(s, ACL_RI_HOSTFUNC, fn, args, ACL_CALLBACK_BLOCK,
						 &err))
		return err;
	pthread_once(&cb_once, cb_init_once);
	acl_mutex_lock(&cb_lock);
	if (!worker_running) {
		if (pthread_create(&worker, NULL, worker_main, NULL)) {
			acl_mutex_unlock(&cb_lock);
			return ACL_FAIL(ACL_ERROR_RT_INTERNAL_ERROR, "cannot start the host-function thread");
		}
		worker_running = true;
	}
	acl_mutex_unlock(&cb_lock);
	/* Host functions block the stream until they return. */
	return launch(s, fn, args, true, CB_HOSTFUNC);
}

/*
 * Stops the worker after the host function it runs. A host function that
 * calls this (aclFinalize) cannot wait for itself: its thread ends, unjoined,
 * when it returns.
 */
void acl_cb_shutdown(void)
{
	pthread_t me = pthread_self(), w;
	bool join, self;

	pthread_once(&cb_once, cb_init_once);
	acl_mutex_lock(&cb_lock);
	self = worker_running && pthread_equal(worker, me);
	join = worker_running && !self;
	w = worker;
	worker_running = false;
	pthread_cond_broadcast(&cb_cond);
	acl_mutex_unlock(&cb_lock);
	if (join)
		pthread_join(w, NULL);
	if (self)
		pthread_detach(me);
}
