// SPDX-License-Identifier: MIT
/*
 * Callbacks: aclrtSubscribeReport / aclrtProcessReport / aclrtLaunchCallback
 * (blocking and non-blocking) / aclrtUnSubscribeReport, aclrtLaunchHostFunc,
 * their ordering, the stream stalling on the card while a blocking
 * callback runs, and the documented errors.
 */
#include "acl_test.h"
#include "kselftest_harness.h"

struct cbctx {
	atomic_int calls;
	atomic_int order[64];
	atomic_int next;
	atomic_int stop;
	atomic_int release;	/* with hold: the callback waits for this, 10 s at most */
	unsigned sleep_ms;
	int hold;
	pthread_t th;
};

static void cb_record(void *arg)
{
	struct cbctx *c = arg;
	int n = atomic_fetch_add(&c->next, 1);

	if (n < 64)
		atomic_store(&c->order[n], atomic_load(&c->calls));
	if (c->sleep_ms)
		sleep_ms(c->sleep_ms);
	for (int i = 0; c->hold && i < 1000 && !atomic_load(&c->release); i++)
		sleep_ms(10);
	atomic_fetch_add(&c->calls, 1);
}

static void *serve(void *arg)
{
	struct cbctx *c = arg;

	while (!atomic_load(&c->stop))
		aclrtProcessReport(50);
	return NULL;
}

static void wait_calls(struct cbctx *c, int n)
{
	test_wait_until(atomic_load(&c->calls) >= n, TEST_SETTLE_MS);
}

/*
 * A deadlock must fail a test, not hang it: the watchdog ends the test's
 * process (kselftest runs each test in one of its own) with a message.
 */
static void watchdog_fire(int sig)
{
	static const char msg[] = "# watchdog: the test hung (a deadlock?)\n";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(1);
}

static void watchdog_arm(unsigned sec)
{
	signal(SIGALRM, watchdog_fire);
	alarm(sec);
}

FIXTURE(dev) {
	aclrtStream s;
	struct cbctx c;
};

FIXTURE_SETUP(dev)
{
	ASSERT_TRUE(acl_ok_init());
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&self->s));
	memset(&self->c, 0, sizeof(self->c));
}

FIXTURE_TEARDOWN(dev)
{
	aclrtResetDevice(0);
	aclFinalize();
}

TEST_F(dev, launch_and_process)
{
	ASSERT_EQ(0, pthread_create(&self->c.th, NULL, serve, &self->c));
	ASSERT_EQ(ACL_SUCCESS, aclrtSubscribeReport((uint64_t)self->c.th, self->s));
	for (int i = 0; i < 10; i++)
		ASSERT_EQ(ACL_SUCCESS, aclrtLaunchCallback(cb_record, &self->c,
							   i & 1 ? ACL_CALLBACK_BLOCK
								 : ACL_CALLBACK_NO_BLOCK, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	wait_calls(&self->c, 10);
	EXPECT_EQ(10, atomic_load(&self->c.calls));
	/* in launch order */
	for (int i = 0; i < 10; i++)
		EXPECT_EQ(i, atomic_load(&self->c.order[i]));
	ASSERT_EQ(ACL_SUCCESS, aclrtUnSubscribeReport((uint64_t)self->c.th, self->s));
	atomic_store(&self->c.stop, 1);
	pthread_join(self->c.th, NULL);
}

TEST_F(dev, blocking_callback_stalls_the_stream)
{
	aclrtStreamStatus st;
	uint8_t *host;
	void *d;
	size_t n = 4096;

	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&host, n));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
	memset(host, 0, n);
	self->c.hold = 1;
	ASSERT_EQ(0, pthread_create(&self->c.th, NULL, serve, &self->c));
	ASSERT_EQ(ACL_SUCCESS, aclrtSubscribeReport((uint64_t)self->c.th, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtLaunchCallback(cb_record, &self->c, ACL_CALLBACK_BLOCK,
						   self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(host, n, 0x66, n, self->s));
	/* while the callback is held the fill has not run */
	sleep_ms(100);
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamQuery(self->s, &st));
	EXPECT_EQ(ACL_STREAM_STATUS_NOT_READY, st);
	EXPECT_EQ(0, host[0]);
	EXPECT_EQ(0, atomic_load(&self->c.calls));
	atomic_store(&self->c.release, 1);
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	EXPECT_EQ(1, atomic_load(&self->c.calls));
	EXPECT_EQ(0x66, host[n - 1]);
	aclrtUnSubscribeReport((uint64_t)self->c.th, self->s);
	atomic_store(&self->c.stop, 1);
	pthread_join(self->c.th, NULL);
	aclrtFree(d);
	aclrtFreeHost(host);
}

TEST_F(dev, nonblocking_callback_does_not_stall)
{
	/* The callback runs until the test lets it go, after the synchronize. */
	self->c.hold = 1;
	ASSERT_EQ(0, pthread_create(&self->c.th, NULL, serve, &self->c));
	ASSERT_EQ(ACL_SUCCESS, aclrtSubscribeReport((uint64_t)self->c.th, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtLaunchCallback(cb_record, &self->c, ACL_CALLBACK_NO_BLOCK,
						   self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	EXPECT_EQ(0, atomic_load(&self->c.calls));
	atomic_store(&self->c.release, 1);
	wait_calls(&self->c, 1);
	EXPECT_EQ(1, atomic_load(&self->c.calls));
	aclrtUnSubscribeReport((uint64_t)self->c.th, self->s);
	atomic_store(&self->c.stop, 1);
	pthread_join(self->c.th, NULL);
}

TEST_F(dev, one_thread_many_streams)
{
	aclrtStream s2, s3;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s3));
	ASSERT_EQ(0, pthread_create(&self->c.th, NULL, serve, &self->c));
	ASSERT_EQ(ACL_SUCCESS, aclrtSubscribeReport((uint64_t)self->c.th, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtSubscribeReport((uint64_t)self->c.th, s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtSubscribeReport((uint64_t)self->c.th, s3));
	for (int i = 0; i < 5; i++) {
		ASSERT_EQ(ACL_SUCCESS, aclrtLaunchCallback(cb_record, &self->c, ACL_CALLBACK_BLOCK,
							   self->s));
		ASSERT_EQ(ACL_SUCCESS, aclrtLaunchCallback(cb_record, &self->c, ACL_CALLBACK_BLOCK,
							   s2));
		ASSERT_EQ(ACL_SUCCESS, aclrtLaunchCallback(cb_record, &self->c,
							   ACL_CALLBACK_NO_BLOCK, s3));
	}
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(s3));
	wait_calls(&self->c, 15);
	EXPECT_EQ(15, atomic_load(&self->c.calls));
	aclrtUnSubscribeReport((uint64_t)self->c.th, self->s);
	aclrtUnSubscribeReport((uint64_t)self->c.th, s2);
	aclrtUnSubscribeReport((uint64_t)self->c.th, s3);
	atomic_store(&self->c.stop, 1);
	pthread_join(self->c.th, NULL);
	aclrtDestroyStream(s2);
	aclrtDestroyStream(s3);
}

TEST_F(dev, process_report_errors)
{
	pthread_t me = pthread_self();
	double t0;

	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtProcessReport(0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtProcessReport(-2));
	/* not subscribed */
	EXPECT_EQ(ACL_ERROR_RT_THREAD_SUBSCRIBE, aclrtProcessReport(10));
	ASSERT_EQ(ACL_SUCCESS, aclrtSubscribeReport((uint64_t)me, self->s));
	/* subscribed, nothing comes: timeout */
	t0 = now_ms();
	EXPECT_EQ(ACL_ERROR_RT_REPORT_TIMEOUT, aclrtProcessReport(60));
	EXPECT_GE(now_ms() - t0, 55);
	/* the same thread serves its own callbacks */
	ASSERT_EQ(ACL_SUCCESS, aclrtLaunchCallback(cb_record, &self->c, ACL_CALLBACK_NO_BLOCK,
						   self->s));
	EXPECT_EQ(ACL_SUCCESS, aclrtProcessReport(5000));
	EXPECT_EQ(1, atomic_load(&self->c.calls));
	/* subscription errors */
	EXPECT_EQ(ACL_ERROR_RT_STREAM_SUBSCRIBE, aclrtSubscribeReport((uint64_t)me, self->s));
	EXPECT_EQ(ACL_SUCCESS, aclrtUnSubscribeReport((uint64_t)me, self->s));
	EXPECT_EQ(ACL_ERROR_STREAM_NOT_SUBSCRIBE, aclrtUnSubscribeReport((uint64_t)me, self->s));
	EXPECT_EQ(ACL_ERROR_RT_THREAD_SUBSCRIBE, aclrtProcessReport(10));
}

TEST_F(dev, launch_errors)
{
	EXPECT_EQ(ACL_ERROR_RT_STREAM_NO_CB_REG,
		  aclrtLaunchCallback(cb_record, &self->c, ACL_CALLBACK_BLOCK, self->s));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclrtLaunchCallback(NULL, &self->c, ACL_CALLBACK_BLOCK, self->s));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclrtLaunchCallback(cb_record, &self->c, (aclrtCallbackBlockType)5, self->s));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclrtLaunchCallback(cb_record, &self->c, ACL_CALLBACK_BLOCK, (aclrtStream)0x5));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtLaunchHostFunc(self->s, NULL, NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclrtSubscribeReport((uint64_t)pthread_self(), (aclrtStream)0x5));
}

TEST_F(dev, default_stream_callbacks)
{
	ASSERT_EQ(0, pthread_create(&self->c.th, NULL, serve, &self->c));
	ASSERT_EQ(ACL_SUCCESS, aclrtSubscribeReport((uint64_t)self->c.th, NULL));
	ASSERT_EQ(ACL_SUCCESS, aclrtLaunchCallback(cb_record, &self->c, ACL_CALLBACK_BLOCK, NULL));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(NULL));
	EXPECT_EQ(1, atomic_load(&self->c.calls));
	ASSERT_EQ(ACL_SUCCESS, aclrtUnSubscribeReport((uint64_t)self->c.th, NULL));
	atomic_store(&self->c.stop, 1);
	pthread_join(self->c.th, NULL);
}

TEST_F(dev, host_func)
{
	aclrtStream s2;
	uint8_t *host;
	size_t n = 4096;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&host, n));
	memset(host, 0, n);
	for (int i = 0; i < 8; i++) {
		ASSERT_EQ(ACL_SUCCESS, aclrtLaunchHostFunc(self->s, cb_record, &self->c));
		ASSERT_EQ(ACL_SUCCESS, aclrtLaunchHostFunc(s2, cb_record, &self->c));
	}
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(host, n, 3, n, self->s));
	/* host functions block their stream: all ran when sync returns */
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(s2));
	EXPECT_EQ(16, atomic_load(&self->c.calls));
	EXPECT_EQ(3, host[0]);
	aclrtFreeHost(host);
	aclrtDestroyStream(s2);
}

static void *release_later(void *arg)
{
	struct cbctx *c = arg;

	sleep_ms(100);
	atomic_store(&c->release, 1);
	return NULL;
}

TEST_F(dev, host_func_blocks_the_stream)
{
	aclrtStreamStatus st;
	pthread_t releaser;

	self->c.hold = 1;
	ASSERT_EQ(ACL_SUCCESS, aclrtLaunchHostFunc(self->s, cb_record, &self->c));
	sleep_ms(50);
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamQuery(self->s, &st));
	EXPECT_EQ(ACL_STREAM_STATUS_NOT_READY, st);
	EXPECT_EQ(0, atomic_load(&self->c.calls));
	ASSERT_EQ(0, pthread_create(&releaser, NULL, release_later, &self->c));
	/* returns only once the function has run */
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	EXPECT_EQ(1, atomic_load(&self->c.calls));
	pthread_join(releaser, NULL);
}

TEST_F(dev, destroy_with_unserved_callback)
{
	aclrtStream s2;
	pthread_t me = pthread_self();

	/* subscribed, then unsubscribed with a blocking callback pending */
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtSubscribeReport((uint64_t)me, s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtLaunchCallback(cb_record, &self->c, ACL_CALLBACK_BLOCK, s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtUnSubscribeReport((uint64_t)me, s2));
	/* destroy does not hang on it */
	ASSERT_EQ(ACL_SUCCESS, aclrtDestroyStream(s2));
	EXPECT_EQ(0, atomic_load(&self->c.calls));
}

struct in_callback {
	aclrtContext ctx;
	aclError cb_err, destroy_err;
	atomic_int done;
};

static void create_an_event(void *arg)
{
	struct in_callback *a = arg;
	aclrtEvent e;

	sleep_ms(200);	/* aclrtDestroyContext is waiting for this by now */
	a->cb_err = aclrtSetCurrentContext(a->ctx);
	if (!a->cb_err)
		a->cb_err = aclrtCreateEvent(&e);
	if (!a->cb_err)
		a->cb_err = aclrtDestroyEvent(e);
	atomic_store(&a->done, 1);
}

static void *destroy_context(void *arg)
{
	struct in_callback *a = arg;

	a->destroy_err = aclrtDestroyContext(a->ctx);
	return NULL;
}

/* Teardown waits for the streams' work without holding the device. */
TEST_F(dev, destroy_context_while_a_callback_uses_the_device)
{
	struct in_callback a = { 0 };
	struct timespec until;
	pthread_t th;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateContext(&a.ctx, 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtLaunchHostFunc(NULL, create_an_event, &a));
	ASSERT_EQ(0, pthread_create(&th, NULL, destroy_context, &a));
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;
	ASSERT_EQ(0, pthread_timedjoin_np(th, NULL, &until)) {
		TH_LOG("aclrtDestroyContext and the callback deadlocked");
	}
	EXPECT_EQ(ACL_SUCCESS, a.destroy_err);
	EXPECT_EQ(ACL_SUCCESS, a.cb_err);
	EXPECT_EQ(1, atomic_load(&a.done));
}

/*
 * A non-blocking callback that is still running when the device or its
 * context is torn down: the teardown waits for it, and it uses the runtime
 * meanwhile (events, streams), which must not wait for the teardown.
 */
struct running_cb {
	aclrtContext ctx;
	aclError err, teardown_err;
	atomic_int running, done;
	int reset;		/* tear down with aclrtResetDevice, not aclrtDestroyContext */
};

static void use_the_runtime(void *arg)
{
	struct running_cb *a = arg;
	aclrtEvent e;
	aclrtStream s;

	atomic_store(&a->running, 1);
	sleep_ms(200);	/* the teardown waits for this callback by now */
	a->err = aclrtSetCurrentContext(a->ctx);
	if (!a->err)
		a->err = aclrtCreateEvent(&e);
	if (!a->err)
		a->err = aclrtDestroyEvent(e);
	if (!a->err)
		a->err = aclrtCreateStream(&s);
	if (!a->err)
		a->err = aclrtDestroyStream(s);
	atomic_store(&a->done, 1);
}

static void *tear_down(void *arg)
{
	struct running_cb *a = arg;

	a->teardown_err = a->reset ? aclrtResetDevice(0) : aclrtDestroyContext(a->ctx);
	return NULL;
}

/* Launches use_the_runtime on s, waits for it to start, tears down: 10 s at most. */
static void teardown_with_running_callback(struct __test_metadata *_metadata,
					   struct cbctx *c, struct running_cb *a, aclrtStream s)
{
	struct timespec until;
	pthread_t th;

	ASSERT_EQ(0, pthread_create(&c->th, NULL, serve, c));
	ASSERT_EQ(ACL_SUCCESS, aclrtSubscribeReport((uint64_t)c->th, s));
	ASSERT_EQ(ACL_SUCCESS, aclrtLaunchCallback(use_the_runtime, a, ACL_CALLBACK_NO_BLOCK, s));
	test_wait_until(atomic_load(&a->running), TEST_SETTLE_MS);
	ASSERT_EQ(1, atomic_load(&a->running));
	ASSERT_EQ(0, pthread_create(&th, NULL, tear_down, a));
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;
	ASSERT_EQ(0, pthread_timedjoin_np(th, NULL, &until)) {
		TH_LOG("the teardown and a running callback deadlocked");
	}
	EXPECT_EQ(ACL_SUCCESS, a->teardown_err);
	EXPECT_EQ(ACL_SUCCESS, a->err);
	EXPECT_EQ(1, atomic_load(&a->done));
	atomic_store(&c->stop, 1);
	pthread_join(c->th, NULL);
}

TEST_F(dev, destroy_context_while_a_nonblocking_callback_runs)
{
	struct running_cb a = { 0 };
	aclrtStream s;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateContext(&a.ctx, 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	teardown_with_running_callback(_metadata, &self->c, &a, s);
}

TEST_F(dev, reset_device_while_a_nonblocking_callback_runs)
{
	struct running_cb a = { .reset = 1 };

	ASSERT_EQ(ACL_SUCCESS, aclrtGetCurrentContext(&a.ctx));
	teardown_with_running_callback(_metadata, &self->c, &a, self->s);
}

struct two_resets {
	atomic_int release;
	aclError set_err, reset_err[2];
};

/* Holds the stream until released, then takes and drops a reference. */
static void set_and_reset(void *arg)
{
	struct two_resets *a = arg;

	for (int i = 0; i < 1000 && !atomic_load(&a->release); i++)
		sleep_ms(10);
	a->set_err = aclrtSetDevice(0);
	if (!a->set_err)
		a->set_err = aclrtResetDevice(0);
}

static void *reset0(void *arg)
{
	aclError *err = arg;

	*err = aclrtResetDevice(0);
	return NULL;
}

/*
 * Two threads drop the last two references at once while a host function
 * holds the default stream: one of them waits for the stream without the
 * device lock, so the function can still take a reference.
 */
TEST_F(dev, concurrent_resets_wait_without_the_lock)
{
	struct two_resets a = { 0 };
	struct timespec until;
	pthread_t th[2];
	aclrtContext ctx;

	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtLaunchHostFunc(NULL, set_and_reset, &a));
	for (int i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, reset0, &a.reset_err[i]));
	sleep_ms(100);
	atomic_store(&a.release, 1);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;
	for (int i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_timedjoin_np(th[i], NULL, &until)) {
			TH_LOG("aclrtResetDevice waited for the stream under the device lock");
		}
	EXPECT_EQ(ACL_SUCCESS, a.set_err);
	EXPECT_EQ(ACL_SUCCESS, a.reset_err[0]);
	EXPECT_EQ(ACL_SUCCESS, a.reset_err[1]);
	/* both references are gone: the device is closed */
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetCurrentContext(&ctx));
}

/*
 * Callbacks that tear down what they run on: the teardown does not wait
 * for the callback that makes it.
 */
struct self_teardown {
	aclrtStream s;
	atomic_int done;
	aclError err;
};

static void destroy_own_stream(void *arg)
{
	struct self_teardown *a = arg;

	a->err = aclrtDestroyStream(a->s);
	atomic_store(&a->done, 1);
}

/* Holds a stream's later work back until the test has queued all of it. */
static void wait_gate(void *arg)
{
	atomic_int *gate = arg;

	while (!atomic_load(gate))
		usleep(1000);
}

static void reset_own_device(void *arg)
{
	struct self_teardown *a = arg;

	a->err = aclrtResetDevice(0);
	atomic_store(&a->done, 1);
}

static void finalize_in_callback(void *arg)
{
	struct self_teardown *a = arg;

	a->err = aclFinalize();
	atomic_store(&a->done, 1);
}

static void wait_done(atomic_int *done)
{
	test_wait_until(atomic_load(done), TEST_SETTLE_MS);
}

TEST_F(dev, callbacks_destroy_their_own_stream)
{
	struct self_teardown a[3] = { 0 };
	atomic_int gate = 0;
	uint8_t *host;
	size_t n = 4096;

	watchdog_arm(20);
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&host, n));
	ASSERT_EQ(0, pthread_create(&self->c.th, NULL, serve, &self->c));
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&a[i].s));
	ASSERT_EQ(ACL_SUCCESS, aclrtSubscribeReport((uint64_t)self->c.th, a[0].s));
	ASSERT_EQ(ACL_SUCCESS, aclrtSubscribeReport((uint64_t)self->c.th, a[1].s));
	ASSERT_EQ(ACL_SUCCESS, aclrtLaunchCallback(destroy_own_stream, &a[0],
						   ACL_CALLBACK_BLOCK, a[0].s));
	ASSERT_EQ(ACL_SUCCESS, aclrtLaunchCallback(destroy_own_stream, &a[1],
						   ACL_CALLBACK_NO_BLOCK, a[1].s));
	/*
	 * The gate keeps the destroying host function from running before the
	 * memset is queued: submitting to a stream being destroyed is the
	 * application's race, not what this test is about.
	 */
	ASSERT_EQ(ACL_SUCCESS, aclrtLaunchHostFunc(a[2].s, wait_gate, &gate));
	ASSERT_EQ(ACL_SUCCESS, aclrtLaunchHostFunc(a[2].s, destroy_own_stream, &a[2]));
	/* Queued behind the destroying callback: it drains the stream. */
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(host, n, 7, n, a[2].s));
	atomic_store(&gate, 1);
	for (int i = 0; i < 3; i++) {
		wait_done(&a[i].done);
		EXPECT_EQ(1, atomic_load(&a[i].done));
		EXPECT_EQ(ACL_SUCCESS, a[i].err);
	}
	EXPECT_EQ(7, host[n - 1]);
	atomic_store(&self->c.stop, 1);
	pthread_join(self->c.th, NULL);
	/* The runtime goes on: callbacks on a new stream run. */
	ASSERT_EQ(ACL_SUCCESS, aclrtLaunchHostFunc(self->s, cb_record, &self->c));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	EXPECT_EQ(1, atomic_load(&self->c.calls));
	aclrtFreeHost(host);
}

TEST_F(dev, host_func_resets_its_device)
{
	struct self_teardown a = { 0 };
	aclrtContext ctx;

	watchdog_arm(20);
	/* The fixture's reference is the last: the host function closes the device. */
	ASSERT_EQ(ACL_SUCCESS, aclrtLaunchHostFunc(self->s, reset_own_device, &a));
	wait_done(&a.done);
	ASSERT_EQ(1, atomic_load(&a.done));
	EXPECT_EQ(ACL_SUCCESS, a.err);
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetCurrentContext(&ctx));
	/* It opens again, and host functions still run. */
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtLaunchHostFunc(NULL, cb_record, &self->c));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(NULL));
	EXPECT_EQ(1, atomic_load(&self->c.calls));
}

TEST_F(dev, callbacks_finalize)
{
	struct self_teardown a = { 0 };

	watchdog_arm(20);
	/* A host function: the worker thread cannot wait for itself. */
	ASSERT_EQ(ACL_SUCCESS, aclrtLaunchHostFunc(self->s, finalize_in_callback, &a));
	wait_done(&a.done);
	ASSERT_EQ(1, atomic_load(&a.done));
	EXPECT_EQ(ACL_SUCCESS, a.err);
	EXPECT_EQ(ACL_ERROR_REPEAT_FINALIZE, aclFinalize());

	/* A new worker serves host functions after aclInit. */
	ASSERT_EQ(ACL_SUCCESS, aclInit(NULL));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtLaunchHostFunc(NULL, cb_record, &self->c));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(NULL));
	EXPECT_EQ(1, atomic_load(&self->c.calls));

	/* A callback in a subscribed thread. */
	memset(&a, 0, sizeof(a));
	ASSERT_EQ(0, pthread_create(&self->c.th, NULL, serve, &self->c));
	ASSERT_EQ(ACL_SUCCESS, aclrtSubscribeReport((uint64_t)self->c.th, NULL));
	ASSERT_EQ(ACL_SUCCESS, aclrtLaunchCallback(finalize_in_callback, &a, ACL_CALLBACK_BLOCK,
						   NULL));
	wait_done(&a.done);
	ASSERT_EQ(1, atomic_load(&a.done));
	EXPECT_EQ(ACL_SUCCESS, a.err);
	atomic_store(&self->c.stop, 1);
	pthread_join(self->c.th, NULL);
	EXPECT_EQ(ACL_ERROR_REPEAT_FINALIZE, aclFinalize());
}

/*
 * A callback that calls the runtime while another thread tears its device
 * down. It calls only once the teardown is under way, which it sees when
 * the ring of an idle "marker" stream goes: the teardown destroys that
 * stream just before the callback's own, for which it then waits.
 */
enum { TD_RESET, TD_DESTROY_CONTEXT, TD_FINALIZE };
enum { CALL_SET_DEVICE, CALL_CREATE_CONTEXT, CALL_RESET_DEVICE, CALL_NO_CONTEXT, CALL_INIT };

FIXTURE(teardown) {
	char bdf[32];
	int marker_ring;
	aclrtStream marker, s;
	aclrtContext ctx;	/* TD_DESTROY_CONTEXT: holds the last reference */
	pthread_t server;
	atomic_int stop, running, saw_teardown, done;
	aclError err, teardown_err;
	int call, teardown;
};

FIXTURE_VARIANT(teardown) {
	int teardown;
	int call;
	bool host_func;		/* aclrtLaunchHostFunc, else a non-blocking callback */
	bool default_device;	/* aclInit's config names device 0 */
	aclError expect;	/* what the call in the callback returns */
};

/* aclInit with {"defaultDevice": {"default_device": "0"}}. */
static aclError init_default_device0(void)
{
	static const char text[] = "{\"defaultDevice\": {\"default_device\": \"0\"}}";
	char path[] = "/tmp/acl-config-XXXXXX";
	aclError r = ACL_ERROR_INVALID_FILE;
	int fd = mkstemp(path);

	if (fd < 0)
		return r;
	if (write(fd, text, sizeof(text) - 1) == (ssize_t)sizeof(text) - 1)
		r = aclInit(path);
	close(fd);
	unlink(path);
	return r;
}

static bool ring_is_mine(const char *bdf, int ring)
{
	int rings[128], n = test_own_rings(bdf, rings, 128);

	for (int i = 0; i < n; i++)
		if (rings[i] == ring)
			return true;
	return false;
}

static void call_during_teardown(void *arg)
{
	FIXTURE_DATA(teardown) *t = arg;
	aclrtContext c;

	atomic_store(&t->running, 1);
	test_wait_until(!ring_is_mine(t->bdf, t->marker_ring), TEST_SETTLE_MS);
	atomic_store(&t->saw_teardown, !ring_is_mine(t->bdf, t->marker_ring));
	sleep_ms(50);	/* the teardown waits for this callback by now */
	switch (t->call) {
	case CALL_SET_DEVICE:
		t->err = aclrtSetDevice(0);
		if (!t->err)
			aclrtResetDevice(0);
		break;
	case CALL_CREATE_CONTEXT:
		t->err = aclrtCreateContext(&c, 0);
		if (!t->err)
			aclrtDestroyContext(c);
		break;
	case CALL_RESET_DEVICE:
		t->err = aclrtResetDevice(0);
		break;
	case CALL_NO_CONTEXT:
		t->err = aclrtGetCurrentContext(&c);
		break;
	case CALL_INIT:
		t->err = aclInit(NULL);
		break;
	}
	atomic_store(&t->done, 1);
}

static void *serve_teardown(void *arg)
{
	FIXTURE_DATA(teardown) *t = arg;

	while (!atomic_load(&t->stop))
		aclrtProcessReport(50);
	return NULL;
}

static void *run_teardown(void *arg)
{
	FIXTURE_DATA(teardown) *t = arg;

	switch (t->teardown) {
	case TD_RESET:
		t->teardown_err = aclrtResetDevice(0);
		break;
	case TD_DESTROY_CONTEXT:
		t->teardown_err = aclrtDestroyContext(t->ctx);
		break;
	case TD_FINALIZE:
		t->teardown_err = aclFinalize();
		break;
	}
	return NULL;
}

FIXTURE_SETUP(teardown)
{
	watchdog_arm(20);
	self->call = variant->call;
	self->teardown = variant->teardown;
	if (variant->default_device) {
		ASSERT_EQ(ACL_SUCCESS, init_default_device0());
	} else {
		ASSERT_TRUE(acl_ok_init());
	}
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(0, dev_bdf(0, self->bdf, sizeof(self->bdf)));
	/* Both on the default context, the marker first. */
	self->marker_ring = create_stream_ring(0, &self->marker);
	ASSERT_LE(0, self->marker_ring);
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&self->s));
	if (variant->teardown == TD_DESTROY_CONTEXT) {
		/* The explicit context keeps the device; it is destroyed last. */
		ASSERT_EQ(ACL_SUCCESS, aclrtCreateContext(&self->ctx, 0));
		ASSERT_EQ(ACL_SUCCESS, aclrtResetDevice(0));
	}
}

FIXTURE_TEARDOWN(teardown)
{
	atomic_store(&self->stop, 1);
	if (self->server)
		pthread_join(self->server, NULL);
	aclrtResetDevice(0);
	aclFinalize();
}

TEST_F(teardown, callback_calls_the_runtime)
{
	struct timespec until;
	pthread_t th;

	if (variant->host_func) {
		ASSERT_EQ(ACL_SUCCESS, aclrtLaunchHostFunc(self->s, call_during_teardown, self));
	} else {
		ASSERT_EQ(0, pthread_create(&self->server, NULL, serve_teardown, self));
		ASSERT_EQ(ACL_SUCCESS, aclrtSubscribeReport((uint64_t)self->server, self->s));
		ASSERT_EQ(ACL_SUCCESS, aclrtLaunchCallback(call_during_teardown, self,
							   ACL_CALLBACK_NO_BLOCK, self->s));
	}
	test_wait_until(atomic_load(&self->running), TEST_SETTLE_MS);
	ASSERT_EQ(1, atomic_load(&self->running));
	ASSERT_EQ(0, pthread_create(&th, NULL, run_teardown, self));
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;
	ASSERT_EQ(0, pthread_timedjoin_np(th, NULL, &until)) {
		TH_LOG("the teardown and the callback deadlocked");
	}
	EXPECT_EQ(ACL_SUCCESS, self->teardown_err);
	EXPECT_EQ(1, atomic_load(&self->done));
	EXPECT_EQ(1, atomic_load(&self->saw_teardown));
	EXPECT_EQ(variant->expect, self->err);
}

/* The device is being closed: reopening it would wait for this callback. */
FIXTURE_VARIANT_ADD(teardown, reset_device_set_device) {
	.teardown = TD_RESET, .call = CALL_SET_DEVICE,
	.expect = ACL_ERROR_RT_DEVICE_TASK_ABORT,
};

FIXTURE_VARIANT_ADD(teardown, reset_device_create_context) {
	.teardown = TD_RESET, .call = CALL_CREATE_CONTEXT,
	.expect = ACL_ERROR_RT_DEVICE_TASK_ABORT,
};

/* Its last reference is gone already: nothing to drop. */
FIXTURE_VARIANT_ADD(teardown, reset_device_reset_device) {
	.teardown = TD_RESET, .call = CALL_RESET_DEVICE, .expect = ACL_SUCCESS,
};

FIXTURE_VARIANT_ADD(teardown, reset_device_default_device) {
	.teardown = TD_RESET, .call = CALL_NO_CONTEXT, .default_device = true,
	.expect = ACL_ERROR_RT_CONTEXT_NULL,
};

/* The last context closes the device, the default context's streams too. */
FIXTURE_VARIANT_ADD(teardown, destroy_context_set_device) {
	.teardown = TD_DESTROY_CONTEXT, .call = CALL_SET_DEVICE,
	.expect = ACL_ERROR_RT_DEVICE_TASK_ABORT,
};

FIXTURE_VARIANT_ADD(teardown, destroy_context_set_device_host_func) {
	.teardown = TD_DESTROY_CONTEXT, .call = CALL_SET_DEVICE, .host_func = true,
	.expect = ACL_ERROR_RT_DEVICE_TASK_ABORT,
};

FIXTURE_VARIANT_ADD(teardown, destroy_context_reset_device_host_func) {
	.teardown = TD_DESTROY_CONTEXT, .call = CALL_RESET_DEVICE, .host_func = true,
	.expect = ACL_SUCCESS,
};

FIXTURE_VARIANT_ADD(teardown, finalize_set_device) {
	.teardown = TD_FINALIZE, .call = CALL_SET_DEVICE,
	.expect = ACL_ERROR_RT_DEVICE_TASK_ABORT,
};

FIXTURE_VARIANT_ADD(teardown, finalize_reset_device_host_func) {
	.teardown = TD_FINALIZE, .call = CALL_RESET_DEVICE, .host_func = true,
	.expect = ACL_SUCCESS,
};

/* aclInit would have to wait for the aclFinalize that waits for it. */
FIXTURE_VARIANT_ADD(teardown, finalize_init) {
	.teardown = TD_FINALIZE, .call = CALL_INIT, .expect = ACL_ERROR_RT_DEVICE_TASK_ABORT,
};

/* aclFinalize is under way: the default device no longer stands in. */
FIXTURE_VARIANT_ADD(teardown, finalize_default_device) {
	.teardown = TD_FINALIZE, .call = CALL_NO_CONTEXT, .default_device = true,
	.expect = ACL_ERROR_RT_CONTEXT_NULL,
};

FIXTURE_VARIANT_ADD(teardown, finalize_default_device_host_func) {
	.teardown = TD_FINALIZE, .call = CALL_NO_CONTEXT, .default_device = true,
	.host_func = true, .expect = ACL_ERROR_RT_CONTEXT_NULL,
};

TEST_HARNESS_MAIN
