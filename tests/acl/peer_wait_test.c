// SPDX-License-Identifier: MIT
/*
 * A stream of card 1 waiting on the card for an event of card 0
 * (libacl/src/peer_wait.c): the wait holds card 1's stream until card 0's
 * record, which a gate on card 0 holds back; card 1 then reads, through
 * its peer window, what card 0 wrote before the record. Many events and
 * waits in order, events never recorded or reset, ACL_EVENT_SYNC events,
 * capture, a failure of card 0's stream that releases card 1's wait with
 * an error, and a second process (killed mid-wait) that leaves this one's
 * waits alone and nothing behind. Needs two cards with peer windows.
 */
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>

#include "acl_test.h"
#include "kselftest_harness.h"
#include "npu_accel.h"

#define N	(4u << 20)	/* a copy long enough to lose a race against */
#define CHUNK	4096u
#define EVENTS	16

/* Whether card 0's driver has peer windows. */
static bool driver_has_peers(void)
{
	struct drm_npu_get_param p = { .param = DRM_NPU_PARAM_NUM_PEERS };
	int fd = open("/dev/accel/accel0", O_RDWR | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return false;
	ret = ioctl(fd, DRM_IOCTL_NPU_GET_PARAM, &p);
	close(fd);
	return !ret && p.value > 0;
}

static uint32_t card_count(void)
{
	uint32_t n = 0;

	return aclrtGetDeviceCount(&n) ? 0 : n;
}

/* Card 0 records (s0, held by gate g), card 1 waits (s1) and reads a0. */
struct pair {
	aclrtStream s0, s1;
	struct gate g;
	void *a0, *src0, *b1;
	uint8_t *host;
};

static aclError pair_init(struct pair *p)
{
	aclError r;

	memset(p, 0, sizeof(*p));
	p->host = malloc(N);
	if (!p->host)
		return ACL_ERROR_BAD_ALLOC;
	fill_pat(p->host, N, 5);
	r = aclrtSetDevice(0);
	if (!r)
		r = aclrtCreateStream(&p->s0);
	if (!r)
		r = gate_init(&p->g);
	if (!r)
		r = aclrtMalloc(&p->a0, N, ACL_MEM_MALLOC_HUGE_FIRST_P2P);
	if (!r)
		r = aclrtMalloc(&p->src0, N, ACL_MEM_MALLOC_HUGE_FIRST_P2P);
	if (!r)
		r = aclrtMemcpy(p->src0, N, p->host, N, ACL_MEMCPY_HOST_TO_DEVICE);
	if (!r)
		r = aclrtMemset(p->a0, N, 0, N);
	if (!r)
		r = aclrtSetDevice(1);
	if (!r)
		r = aclrtDeviceEnablePeerAccess(0, 0);
	if (!r)
		r = aclrtCreateStream(&p->s1);
	if (!r)
		r = aclrtMalloc(&p->b1, N, ACL_MEM_MALLOC_HUGE_FIRST_P2P);
	if (!r)
		r = aclrtMemset(p->b1, N, 0xee, N);
	return r;
}

/* Card 1's copy of a0, read back: -1 if it holds what card 0 copied. */
static long b1_check(struct pair *p)
{
	memset(p->host, 0, N);
	if (aclrtSetDevice(1) || aclrtMemcpy(p->host, N, p->b1, N, ACL_MEMCPY_DEVICE_TO_HOST))
		return -2;
	return check_pat(p->host, N, 5);
}

/* A gate opened before closes again. */
static aclError gate_rearm(struct gate *g)
{
	return aclrtMemset(g->word, 64, 0, 64);
}

static bool s1_pending(struct pair *p)
{
	aclrtStreamStatus st = ACL_STREAM_STATUS_COMPLETE;

	sleep_ms(50);	/* time for a wrong wait to let it through */
	return !aclrtStreamQuery(p->s1, &st) && st == ACL_STREAM_STATUS_NOT_READY;
}

/*
 * The whole round: card 0 copies src0 to a0 behind its gate and records e;
 * card 1 waits for e and copies a0 to b1 through its window. 0 if card 1
 * waited and read the copy; else which step failed.
 */
static int round_trip(struct pair *p, aclrtEvent e)
{
	if (aclrtSetDevice(0) || gate_rearm(&p->g) || gate_close_on(&p->g, p->s0) ||
	    aclrtMemcpyAsync(p->a0, N, p->src0, N, ACL_MEMCPY_DEVICE_TO_DEVICE, p->s0) ||
	    aclrtRecordEvent(e, p->s0))
		return 1;
	if (aclrtSetDevice(1) || aclrtStreamWaitEvent(p->s1, e) ||
	    aclrtMemcpyAsync(p->b1, N, p->a0, N, ACL_MEMCPY_DEVICE_TO_DEVICE, p->s1))
		return 2;
	if (!s1_pending(p))
		return 3;	/* card 1 did not wait for card 0 */
	if (aclrtSetDevice(0) || gate_open(&p->g))
		return 4;
	if (aclrtSetDevice(1) || aclrtSynchronizeStream(p->s1))
		return 5;
	return b1_check(p) == -1 ? 0 : 6;
}

FIXTURE(two) {
	struct pair p;
};

FIXTURE_SETUP(two)
{
	ASSERT_TRUE(acl_ok_init());
	if (card_count() < 2)
		SKIP(return, "needs two cards, has %u", card_count());
	if (!driver_has_peers())
		SKIP(return, "the driver has no peer windows");
	ASSERT_EQ(ACL_SUCCESS, pair_init(&self->p));
}

FIXTURE_TEARDOWN(two)
{
	free(self->p.host);
	aclrtResetDeviceForce(1);
	aclrtResetDeviceForce(0);
	aclFinalize();
}

TEST_F(two, card_1_reads_what_card_0_wrote_before_the_record)
{
	aclrtEvent e;

	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&e));
	EXPECT_EQ(0, round_trip(&self->p, e));
	/* again, the pair's signal reused; and once more with a fresh a0 */
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(self->p.a0, N, 0, N));
	EXPECT_EQ(0, round_trip(&self->p, e));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyEvent(e));
}

TEST_F(two, events_with_acl_event_sync)
{
	aclrtEvent e;

	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC));
	EXPECT_EQ(0, round_trip(&self->p, e));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyEvent(e));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(self->p.a0, N, 0, N));
	EXPECT_EQ(0, round_trip(&self->p, e));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyEvent(e));
}

/*
 * Sixteen events, chunk i written with i + 1 and then event i recorded;
 * one stream of card 1 waits for each and copies its chunk, another waits
 * for the last only and copies them all: records are in stream order.
 */
TEST_F(two, many_events_many_waits_in_order)
{
	struct pair *p = &self->p;
	aclrtEvent e[EVENTS];
	aclrtStream last;
	uint8_t *a0 = p->a0, *b1 = p->b1;
	const size_t all = EVENTS * CHUNK;
	size_t bad = 0;

	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(1));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&last));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&p->g, p->s0));
	for (int i = 0; i < EVENTS; i++) {
		ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&e[i]));
		ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(a0 + i * CHUNK, CHUNK, i + 1, CHUNK,
							p->s0));
		ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(e[i], p->s0));
	}
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(1));
	for (int i = 0; i < EVENTS; i++) {
		ASSERT_EQ(ACL_SUCCESS, aclrtStreamWaitEvent(p->s1, e[i]));
		ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(b1 + i * CHUNK, CHUNK, a0 + i * CHUNK,
							CHUNK, ACL_MEMCPY_DEVICE_TO_DEVICE, p->s1));
	}
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamWaitEvent(last, e[EVENTS - 1]));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(b1 + all, all, a0, all,
						ACL_MEMCPY_DEVICE_TO_DEVICE, last));
	EXPECT_TRUE(s1_pending(p));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, gate_open(&p->g));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(1));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(p->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(last));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(p->host, 2 * all, b1, 2 * all,
					   ACL_MEMCPY_DEVICE_TO_HOST));
	for (size_t i = 0; i < 2 * all && !bad; i++)
		if (p->host[i] != (i % all) / CHUNK + 1)
			bad = i + 1;
	EXPECT_EQ(0, bad) TH_LOG("byte %zu is %u", bad - 1, p->host[bad - 1]);
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyStream(last));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	for (int i = 0; i < EVENTS; i++)
		EXPECT_EQ(ACL_SUCCESS, aclrtDestroyEvent(e[i]));
}

/* Nothing to wait for: card 1 goes on though card 0's stream is held. */
static void expect_no_wait(struct __test_metadata *_metadata, struct pair *p, aclrtEvent e)
{
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(1));
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamWaitEvent(p->s1, e));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(p->b1, CHUNK, 7, CHUNK, p->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(p->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(p->host, CHUNK, p->b1, CHUNK,
					   ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(7, p->host[CHUNK - 1]);
}

TEST_F(two, unrecorded_completed_and_reset_events_hold_nothing)
{
	struct pair *p = &self->p;
	aclrtEvent never, done, reset;

	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&never));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&done));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEventWithFlag(&reset, ACL_EVENT_SYNC));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(done, p->s0));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(reset, p->s0));
	ASSERT_EQ(ACL_SUCCESS, aclrtResetEvent(reset, p->s0));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(p->s0));
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&p->g, p->s0));
	expect_no_wait(_metadata, p, never);
	expect_no_wait(_metadata, p, done);
	expect_no_wait(_metadata, p, reset);
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, gate_open(&p->g));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(p->s0));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyEvent(never));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyEvent(done));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyEvent(reset));
}

/*
 * A wait covers the record before it: a record after the wait is not
 * waited for, and a reset queued behind the gate does not release it.
 */
TEST_F(two, the_wait_covers_the_record_at_the_call)
{
	struct pair *p = &self->p;
	aclrtEvent e;

	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(e, p->s0));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(p->s0));
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&p->g, p->s0));
	expect_no_wait(_metadata, p, e);	/* the completed record */
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(e, p->s0));	/* behind the gate */
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(1));
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamWaitEvent(p->s1, e));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtResetEvent(e, p->s0));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(1));
	EXPECT_TRUE(s1_pending(p));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, gate_open(&p->g));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(1));
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(p->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyEvent(e));
}

TEST_F(two, capture_says_not_supported)
{
	aclmdlRI ri = NULL;
	aclrtEvent e;

	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&e));
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&self->p.g, self->p.s0));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(e, self->p.s0));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(1));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(self->p.s1, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtStreamWaitEvent(self->p.s1, e));
	EXPECT_NE(NULL, strstr(aclGetRecentErrMsg(), "model"));
	/* the refused task may have invalidated the capture: its end says so */
	aclmdlRICaptureEnd(self->p.s1, &ri);
	if (ri)
		aclmdlRIDestroy(ri);
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, gate_open(&self->p.g));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyEvent(e));
}

/*
 * Card 0's stream faults before its record: card 1's stream, waiting for
 * it, fails too instead of waiting forever; card 1's next wait works.
 */
TEST_F_TIMEOUT(two, a_failure_on_card_0_releases_card_1_with_an_error, 120)
{
	struct pair *p = &self->p;
	aclrtStream bad;
	aclrtEvent e, e2;
	aclError r;
	void *hole;

	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&e));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&e2));
	/* stops at the failure: its record is not run again on a new ring */
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&bad));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetStreamFailureMode(bad, ACL_STOP_ON_FAILURE));
	/* reserved and never mapped: card 0's copy from it faults */
	ASSERT_EQ(ACL_SUCCESS, aclrtReserveMemAddress(&hole, 2u << 20, 0, NULL, 0));
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&p->g, bad));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(p->a0, CHUNK, hole, CHUNK,
						ACL_MEMCPY_DEVICE_TO_DEVICE, bad));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(e, bad));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(1));
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamWaitEvent(p->s1, e));
	EXPECT_TRUE(s1_pending(p));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, gate_open(&p->g));
	EXPECT_EQ(ACL_ERROR_RT_AICORE_EXCEPTION, aclrtSynchronizeStream(bad));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(1));
	r = aclrtSynchronizeStream(p->s1);
	EXPECT_EQ(ACL_ERROR_RT_AICORE_EXCEPTION, r);
	TH_LOG("card 1's stream: %d, %s", r, aclGetRecentErrMsg());
	/* waiting for the failed record now fails at once */
	EXPECT_EQ(ACL_ERROR_RT_STREAM_ABORT, aclrtStreamWaitEvent(p->s1, e));
	/* a fresh signal serves the next wait */
	EXPECT_EQ(0, round_trip(p, e2));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	aclrtDestroyStream(bad);
	EXPECT_EQ(ACL_SUCCESS, aclrtReleaseMemAddress(hole));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyEvent(e));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyEvent(e2));
}

static uint64_t devmem_used(int32_t dev)
{
	char bdf[64];

	if (dev_bdf(dev, bdf, sizeof(bdf)))
		return 0;
	return test_card_attr(bdf, "devmem_used");
}

/* Leaves a round held mid-wait (card 1 waiting on card 0's gate), says so, and blocks. */
static void held_mid_wait(int out)
{
	struct pair p;
	aclrtEvent e;
	char c = 0;

	if (!acl_ok_init() || pair_init(&p) || aclrtSetDevice(0) || aclrtCreateEvent(&e) ||
	    gate_close_on(&p.g, p.s0) || aclrtRecordEvent(e, p.s0) || aclrtSetDevice(1) ||
	    aclrtStreamWaitEvent(p.s1, e))
		_exit(1);
	if (write(out, &c, 1) != 1)
		_exit(2);
	aclrtSynchronizeStream(p.s1);
	_exit(3);
}

FIXTURE(procs) {
	int unused;
};

FIXTURE_SETUP(procs)
{
}

FIXTURE_TEARDOWN(procs)
{
}

TEST_F_TIMEOUT(procs, another_process_killed_mid_wait, 120)
{
	uint64_t before[2];
	struct pair p;
	aclrtEvent e;
	int up[2];
	pid_t pid;
	char c;

	ASSERT_TRUE(acl_ok_init());
	if (card_count() < 2 || !driver_has_peers()) {
		aclFinalize();
		SKIP(return, "needs two cards with peer windows");
	}
	before[0] = devmem_used(0);
	before[1] = devmem_used(1);
	aclFinalize();
	/* forked before either initializes ACL: each has its own contexts */
	ASSERT_EQ(0, pipe(up));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(up[0]);
		held_mid_wait(up[1]);
	}
	close(up[1]);
	ASSERT_EQ(1, read(up[0], &c, 1));
	close(up[0]);

	ASSERT_TRUE(acl_ok_init());
	ASSERT_EQ(ACL_SUCCESS, pair_init(&p));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&e));
	EXPECT_EQ(0, round_trip(&p, e));
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(p.a0, N, 0, N));
	EXPECT_EQ(0, round_trip(&p, e));
	free(p.host);
	aclrtResetDeviceForce(1);
	aclrtResetDeviceForce(0);
	aclFinalize();
	EXPECT_TRUE(test_wait_until(devmem_used(0) == before[0] && devmem_used(1) == before[1],
				    TEST_SETTLE_MS));
}

TEST_HARNESS_MAIN
