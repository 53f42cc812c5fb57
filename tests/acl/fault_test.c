// SPDX-License-Identifier: MIT
/*
 * Failures reported by the driver, provoked with the card's fault
 * injection (debugfs): a failed DMA, a hung ring, slow commands, lost
 * interrupts (dead_card_test has the card that stops its heartbeat).
 * The faults are armed on a stream's ring, so its copies must go there:
 * direct rings are off here (ACL_DIRECT_RINGS=0); fast_launch_test fails
 * a direct ring.
 */
#include "acl_test.h"
#include "kselftest_harness.h"

#define N (256 << 10)

FIXTURE(dev) {
	aclrtStream s;
	int ring;
	uint8_t *host;
	void *d;
	long hang_timeout;
};

FIXTURE_SETUP(dev)
{
	self->hang_timeout = test_driver_param("hang_timeout_ms");
	if (!fault_injection_available())
		SKIP(return, "no fault injection (debugfs) on this machine");
	ASSERT_EQ(0, setenv("ACL_DIRECT_RINGS", "0", 1));
	ASSERT_TRUE(acl_ok_init());
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	self->ring = create_stream_ring(0, &self->s);
	ASSERT_GE(self->ring, 0);
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&self->host, N));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&self->d, N, ACL_MEM_MALLOC_HUGE_FIRST));
}

FIXTURE_TEARDOWN(dev)
{
	/* Also the internal rings a test armed, when it stopped half-way. */
	clear_faults();
	/* A test that stopped before putting it back. */
	if (self->hang_timeout > 0)
		test_set_driver_param("hang_timeout_ms", self->hang_timeout);
	aclrtResetDevice(0);
	aclFinalize();
}

/* The thread's message for its last failure names what went wrong. */
#define EXPECT_MSG(want)							\
	do {									\
		const char *m_ = aclGetRecentErrMsg();				\
										\
		EXPECT_NE(NULL, m_);						\
		if (m_) {							\
			EXPECT_NE(NULL, strstr(m_, want)) {			\
				TH_LOG("message: %s", m_);			\
			}							\
		}								\
	} while (0)

static int roundtrip(struct _test_data_dev *self, unsigned seed)
{
	fill_pat(self->host, N, seed);
	if (aclrtMemcpyAsync(self->d, N, self->host, N, ACL_MEMCPY_HOST_TO_DEVICE, self->s) ||
	    aclrtSynchronizeStream(self->s))
		return -1;
	/* pinned memory: the copy above read it on the card, not in the call */
	memset(self->host, 0, N);
	if (aclrtMemcpyAsync(self->host, N, self->d, N, ACL_MEMCPY_DEVICE_TO_HOST, self->s) ||
	    aclrtSynchronizeStream(self->s))
		return -1;
	return check_pat(self->host, N, seed) < 0 ? 0 : 1;
}

TEST_F(dev, dma_error_then_continue)
{
	const char *msg;

	ASSERT_EQ(0, inject(0, "dma", self->ring, -1));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->d, N, self->host, N,
						ACL_MEMCPY_HOST_TO_DEVICE, self->s));
	EXPECT_EQ(ACL_ERROR_RT_SYS_DMA, aclrtSynchronizeStream(self->s));
	msg = aclGetRecentErrMsg();
	ASSERT_NE(NULL, msg);
	EXPECT_NE(NULL, strstr(msg, "DMA"));
	TH_LOG("%s", msg);
	/* default mode: the stream carries on (on a new ring) */
	EXPECT_EQ(0, roundtrip(self, 1));
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
}

TEST_F(dev, dma_error_reported_once_even_if_work_follows)
{
	ASSERT_EQ(0, inject(0, "dma", self->ring, -1));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->d, N, self->host, N,
						ACL_MEMCPY_HOST_TO_DEVICE, self->s));
	/* let the failure land, then queue more before synchronizing */
	sleep_ms(100);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->d, N, 1, N, self->s));
	EXPECT_EQ(ACL_ERROR_RT_SYS_DMA, aclrtSynchronizeStream(self->s));
	EXPECT_MSG("failed");
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	EXPECT_EQ(NULL, aclGetRecentErrMsg());
	EXPECT_EQ(0, roundtrip(self, 2));
}

static void count_call(void *arg)
{
	atomic_fetch_add((atomic_int *)arg, 1);
}

/* The launch that finds the ring failed goes to the new ring, slots and all. */
TEST_F(dev, host_func_launched_onto_a_failed_ring)
{
	atomic_int calls = 0;

	/* the stream's callback slots exist before the failure */
	ASSERT_EQ(ACL_SUCCESS, aclrtLaunchHostFunc(self->s, count_call, &calls));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	ASSERT_EQ(1, calls);
	ASSERT_EQ(0, inject(0, "dma", self->ring, -1));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->d, N, 1, N, self->s));
	sleep_ms(100);	/* the ring fails; nobody has looked yet */
	EXPECT_EQ(ACL_SUCCESS, aclrtLaunchHostFunc(self->s, count_call, &calls));
	EXPECT_EQ(ACL_ERROR_RT_SYS_DMA, aclrtSynchronizeStream(self->s));
	EXPECT_MSG("failed");
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	EXPECT_EQ(2, calls);
	/* and callbacks keep working there */
	EXPECT_EQ(ACL_SUCCESS, aclrtLaunchHostFunc(self->s, count_call, &calls));
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	EXPECT_EQ(3, calls);
}

TEST_F(dev, dma_error_stop_mode)
{
	ASSERT_EQ(ACL_SUCCESS, aclrtSetStreamFailureMode(self->s, ACL_STOP_ON_FAILURE));
	ASSERT_EQ(0, inject(0, "dma", self->ring, -1));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->d, N, self->host, N,
						ACL_MEMCPY_HOST_TO_DEVICE, self->s));
	EXPECT_EQ(ACL_ERROR_RT_SYS_DMA, aclrtSynchronizeStream(self->s));
	EXPECT_MSG("DMA");
	/* the stream stays failed */
	EXPECT_EQ(ACL_ERROR_RT_SYS_DMA, aclrtMemsetAsync(self->d, N, 1, N, self->s));
	EXPECT_MSG("accepts no work");
	EXPECT_EQ(ACL_ERROR_RT_SYS_DMA, aclrtSynchronizeStream(self->s));
	EXPECT_MSG("DMA");
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyStream(self->s));
	/* other streams are fine */
	EXPECT_EQ(ACL_SUCCESS, aclrtMemset(self->d, N, 2, N));
}

/* Bytes of the device buffer d that are not all v; 0 if they all are. */
static size_t bytes_not(struct _test_data_dev *self, uint8_t v)
{
	size_t i, bad = 0;

	memset(self->host, (uint8_t)~v, N);
	if (aclrtMemcpy(self->host, N, self->d, N, ACL_MEMCPY_DEVICE_TO_HOST))
		return N;
	for (i = 0; i < N; i++)
		bad += self->host[i] != v;
	return bad;
}

/*
 * Continue mode (the default): the copy fails, the fill and the event
 * record queued behind it on the same ring still run, and the stream's
 * synchronization waits for them before it reports the failure.
 */
TEST_F(dev, continue_mode_runs_the_queued_work)
{
	aclrtEventRecordedStatus st;
	struct gate g;
	aclrtEvent e;

	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(self->d, N, 0x11, N));
	ASSERT_EQ(ACL_SUCCESS, gate_init(&g));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&e));
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&g, self->s));
	ASSERT_EQ(0, inject(0, "dma", self->ring, -1));
	fill_pat(self->host, N, 4);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->d, N, self->host, N,
						ACL_MEMCPY_HOST_TO_DEVICE, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->d, N, 0x5a, N, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(e, self->s));
	ASSERT_EQ(ACL_SUCCESS, gate_open(&g));
	EXPECT_EQ(ACL_ERROR_RT_SYS_DMA, aclrtSynchronizeStream(self->s));
	EXPECT_MSG("DMA");
	EXPECT_EQ(0, bytes_not(self, 0x5a));
	EXPECT_EQ(ACL_SUCCESS, aclrtQueryEventStatus(e, &st));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, st);
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	EXPECT_EQ(0, roundtrip(self, 5));
	aclrtDestroyEvent(e);
	gate_fini(&g);
}

/* Stop mode: the work queued behind the failed copy never runs. */
TEST_F(dev, stop_mode_drops_the_queued_work)
{
	struct gate g;

	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(self->d, N, 0x11, N));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetStreamFailureMode(self->s, ACL_STOP_ON_FAILURE));
	ASSERT_EQ(ACL_SUCCESS, gate_init(&g));
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&g, self->s));
	ASSERT_EQ(0, inject(0, "dma", self->ring, -1));
	/* whatever part of it lands leaves the bytes as they were */
	memset(self->host, 0x11, N);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->d, N, self->host, N,
						ACL_MEMCPY_HOST_TO_DEVICE, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->d, N, 0x5a, N, self->s));
	ASSERT_EQ(ACL_SUCCESS, gate_open(&g));
	EXPECT_EQ(ACL_ERROR_RT_SYS_DMA, aclrtSynchronizeStream(self->s));
	EXPECT_EQ(0, bytes_not(self, 0x11));
	gate_fini(&g);
}

TEST_F(dev, dma_error_seen_by_event)
{
	aclrtEventRecordedStatus st;
	aclrtEvent e;
	uint8_t *pg = malloc(N);

	ASSERT_NE(NULL, pg);
	struct gate g;

	ASSERT_EQ(ACL_SUCCESS, gate_init(&g));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&e));
	ASSERT_EQ(0, inject(0, "dma", self->ring, -1));
	/* queue copy and record behind a gate, so the record is on the failing ring */
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&g, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->d, N, self->host, N,
						ACL_MEMCPY_HOST_TO_DEVICE, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(e, self->s));
	ASSERT_EQ(ACL_SUCCESS, gate_open(&g));
	EXPECT_EQ(ACL_ERROR_RT_SYS_DMA, aclrtSynchronizeEvent(e));
	EXPECT_MSG("DMA");
	EXPECT_EQ(ACL_ERROR_RT_SYS_DMA, aclrtQueryEventStatus(e, &st));
	EXPECT_MSG("DMA");
	/* the event is usable again once re-recorded on a healthy stream */
	EXPECT_EQ(ACL_ERROR_RT_SYS_DMA, aclrtSynchronizeStream(self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(e, self->s));
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeEvent(e));
	gate_fini(&g);
	aclrtDestroyEvent(e);
	free(pg);
}

TEST_F(dev, pageable_copy_fails_in_the_call)
{
	uint8_t *pg = malloc(N);
	aclrtStream s2;
	int ring2;

	ASSERT_NE(NULL, pg);
	ring2 = create_stream_ring(0, &s2);
	ASSERT_GE(ring2, 0);
	ASSERT_EQ(0, inject(0, "dma", ring2, -1));
	EXPECT_EQ(ACL_ERROR_RT_SYS_DMA, aclrtMemcpyAsync(self->d, N, pg, N,
							 ACL_MEMCPY_HOST_TO_DEVICE, s2));
	EXPECT_MSG("DMA");
	inject(0, "clear", ring2, -1);
	EXPECT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->d, N, pg, N, ACL_MEMCPY_HOST_TO_DEVICE, s2));
	aclrtDestroyStream(s2);
	free(pg);
}

TEST_F(dev, hung_ring)
{
	long old = test_driver_param("hang_timeout_ms");
	double t0;
	aclError r;

	ASSERT_GT(old, 0);
	ASSERT_EQ(0, test_set_driver_param("hang_timeout_ms", 500));
	ASSERT_EQ(0, inject(0, "hang", self->ring, -1));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->d, N, 1, N, self->s));
	t0 = now_ms();
	r = aclrtSynchronizeStream(self->s);
	test_set_driver_param("hang_timeout_ms", old);
	EXPECT_EQ(ACL_ERROR_RT_TASK_TIMEOUT, r);
	EXPECT_LT(now_ms() - t0, 10000);
	TH_LOG("hang reported after %.0f ms", now_ms() - t0);
	EXPECT_MSG("hang timeout");
	/* recovered onto another ring */
	EXPECT_EQ(0, roundtrip(self, 3));
}

static void sleep_600ms(void *unused)
{
	(void)unused;
	sleep_ms(600);
}

/*
 * A ring that waits on the card is not hung, however long it waits: for
 * aclrtValueWait, for an event of another stream, for a blocking host
 * function. Only a ring that runs without progress is.
 */
TEST_F(dev, waits_on_the_card_are_not_hangs)
{
	long old = test_driver_param("hang_timeout_ms");
	struct gate g1, g2;
	aclrtStream s2;
	aclrtEvent e;
	aclError r[3], opened[2];

	ASSERT_GT(old, 0);
	ASSERT_EQ(ACL_SUCCESS, gate_init(&g1));
	ASSERT_EQ(ACL_SUCCESS, gate_init(&g2));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC));
	ASSERT_EQ(0, test_set_driver_param("hang_timeout_ms", 200));
	/* s waits for g1, then for e (behind g2 on s2), then for a slow host function */
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&g1, self->s));
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&g2, s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(e, s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamWaitEvent(self->s, e));
	ASSERT_EQ(ACL_SUCCESS, aclrtLaunchHostFunc(self->s, sleep_600ms, NULL));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->d, N, 1, N, self->s));
	r[0] = aclrtSynchronizeStreamWithTimeout(self->s, 800);
	opened[0] = gate_open(&g1);
	r[1] = aclrtSynchronizeStreamWithTimeout(self->s, 800);
	opened[1] = gate_open(&g2);
	r[2] = aclrtSynchronizeStream(self->s);
	test_set_driver_param("hang_timeout_ms", old);
	/* still waiting, not failed, after four hang timeouts on each wait */
	EXPECT_EQ(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, r[0]);
	EXPECT_EQ(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, r[1]);
	EXPECT_EQ(ACL_SUCCESS, opened[0]);
	EXPECT_EQ(ACL_SUCCESS, opened[1]);
	EXPECT_EQ(ACL_SUCCESS, r[2]);
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(s2));
	aclrtDestroyEvent(e);
	aclrtDestroyStream(s2);
	gate_fini(&g1);
	gate_fini(&g2);
}

TEST_F(dev, slow_commands_and_timeouts)
{
	ASSERT_EQ(0, inject(0, "delay", self->ring, 50000));	/* 50 ms per command */
	for (int i = 0; i < 4; i++)
		ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->d, N, i, N, self->s));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(self->s, 20));
	EXPECT_MSG("did not complete within 20 ms");
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeStreamWithTimeout(self->s, 20000));
	ASSERT_EQ(0, inject(0, "clear", self->ring, -1));
	EXPECT_EQ(0, roundtrip(self, 4));
}

TEST_F(dev, lost_interrupts)
{
	double t0;

	/* completions still arrive: the waits do not rely on every interrupt */
	ASSERT_EQ(0, inject(0, "drop_irq", self->ring, 5));
	t0 = now_ms();
	for (int i = 0; i < 5; i++) {
		ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->d, N, i, N, self->s));
		EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeStreamWithTimeout(self->s, 10000));
	}
	TH_LOG("5 syncs with dropped interrupts: %.0f ms", now_ms() - t0);
	EXPECT_EQ(0, roundtrip(self, 5));
}

struct sync_copier {
	aclrtContext ctx;
	atomic_int *stop;
	uint8_t *host;
	void *d;
	atomic_int ok, dma, other;
	aclError other_err;
	pthread_t th;
};

static void *sync_copies(void *arg)
{
	struct sync_copier *c = arg;

	aclrtSetCurrentContext(c->ctx);
	while (!atomic_load(c->stop)) {
		aclError r = aclrtMemcpy(c->d, N, c->host, N, ACL_MEMCPY_HOST_TO_DEVICE);

		if (!r)
			c->ok++;
		else if (r == ACL_ERROR_RT_SYS_DMA)
			c->dma++;
		else {
			c->other_err = r;
			c->other++;
		}
	}
	return NULL;
}

#define COPIERS 4

static bool copier_saw_dma(struct sync_copier *c)
{
	for (int i = 0; i < COPIERS; i++)
		if (atomic_load(&c[i].dma))
			return true;
	return false;
}

/*
 * Threads copying synchronously at once run on internal rings of their
 * own: a failed transfer fails the one call that made it, no other.
 */
TEST_F(dev, failed_sync_copy_fails_only_its_own_call)
{
	struct sync_copier c[COPIERS];
	int base[16], now[16], internal[16], nb, nn, ni = 0, dma = 0;
	atomic_int stop = 0;
	aclrtContext ctx;
	char bdf[64];

	ASSERT_EQ(0, dev_bdf(0, bdf, sizeof(bdf)));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetCurrentContext(&ctx));
	nb = test_own_rings(bdf, base, 16);
	ASSERT_GE(nb, 1);
	for (int i = 0; i < COPIERS; i++) {
		c[i] = (struct sync_copier){ .ctx = ctx, .stop = &stop };
		ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&c[i].host, N));
		ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&c[i].d, N, ACL_MEM_MALLOC_HUGE_FIRST));
		ASSERT_EQ(0, pthread_create(&c[i].th, NULL, sync_copies, &c[i]));
	}
	/* the rings the library took for the copies */
	test_wait_until(test_own_rings(bdf, now, 16) > nb, TEST_SETTLE_MS);
	nn = test_own_rings(bdf, now, 16);
	for (int i = 0; i < nn; i++) {
		int j;

		for (j = 0; j < nb && base[j] != now[i]; j++)
			;
		if (j == nb)
			internal[ni++] = now[i];
	}
	TH_LOG("%d internal ring(s)", ni);
	ASSERT_GE(ni, 1);
	for (int i = 0; i < ni; i++)
		ASSERT_EQ(0, inject(0, "dma", internal[i], -1));
	test_wait_until(copier_saw_dma(c), TEST_SETTLE_MS);
	sleep_ms(200);
	atomic_store(&stop, 1);
	dma = 0;
	for (int i = 0; i < COPIERS; i++) {
		pthread_join(c[i].th, NULL);
		TH_LOG("copier %d: %d ok, %d failed DMA, %d other", i, c[i].ok, c[i].dma, c[i].other);
		dma += c[i].dma;
		EXPECT_EQ(0, c[i].other) {
			TH_LOG("copier %d: %d calls failed with %d", i, c[i].other, c[i].other_err);
		}
		EXPECT_GT(c[i].ok, 0);
		aclrtFree(c[i].d);
		aclrtFreeHost(c[i].host);
	}
	for (int i = 0; i < ni; i++)
		inject(0, "clear", internal[i], -1);
	/* each fault failed one call: the one whose transfer it hit */
	EXPECT_GE(dma, 1);
	EXPECT_LE(dma, ni);
}

TEST_HARNESS_MAIN
