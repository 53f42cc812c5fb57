// SPDX-License-Identifier: MIT
/*
 * Capture and replay (aclmdlRI*): capturing records instead of running;
 * replays, a thousand of them checked by arithmetic; streams forked and
 * joined by events, compared with the same work run eagerly; the errors
 * of ending a capture wrongly and of calls a capture forbids, by mode and
 * thread; events recorded outside and inside; host functions; nested
 * replays; synchronous execution with its timeout; names, ids, streams,
 * the JSON listing; destruction before and after runs; condition tasks
 * (IF, WHILE, SWITCH), stream switch and activation, and their errors.
 */
#include <sys/stat.h>

#include "acl_test.h"

#define N	4096

FIXTURE(cap) {
	aclrtStream s1, s2, s3;
	void *a, *b, *c, *d, *tmp;
	uint8_t *pinned;
	uint8_t host[N];
	struct gate g;
};

FIXTURE_SETUP(cap)
{
	void **bufs[] = { &self->a, &self->b, &self->c, &self->d, &self->tmp };

	ASSERT_TRUE(acl_ok_init());
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&self->s3));
	for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++) {
		ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(bufs[i], N, ACL_MEM_MALLOC_HUGE_FIRST));
		ASSERT_EQ(ACL_SUCCESS, aclrtMemset(*bufs[i], N, 0, N));
	}
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&self->pinned, N));
	ASSERT_EQ(ACL_SUCCESS, gate_init(&self->g));
}

FIXTURE_TEARDOWN(cap)
{
	aclrtResetDevice(0);
	aclFinalize();
}

static aclError download(void *host, const void *dev)
{
	return aclrtMemcpy(host, N, dev, N, ACL_MEMCPY_DEVICE_TO_HOST);
}

/* Bytes of the device buffer p that are not v; 0 when all are. */
static size_t not_all(const void *p, uint8_t v)
{
	uint8_t h[N];
	size_t bad = 0;

	if (download(h, p))
		return N + 1;
	for (size_t i = 0; i < N; i++)
		bad += h[i] != v;
	return bad;
}

/* Queues buf = buf rotated left by one byte on s (tmp as scratch). */
static aclError rotate(void *buf, void *tmp, aclrtStream s)
{
	aclError r;

	r = aclrtMemcpyAsync(tmp, N, (uint8_t *)buf + 1, N - 1, ACL_MEMCPY_DEVICE_TO_DEVICE, s);
	if (!r)
		r = aclrtMemcpyAsync((uint8_t *)tmp + N - 1, 1, buf, 1, ACL_MEMCPY_DEVICE_TO_DEVICE, s);
	if (!r)
		r = aclrtMemcpyAsync(buf, N, tmp, N, ACL_MEMCPY_DEVICE_TO_DEVICE, s);
	return r;
}

/* Whether buf holds pat(seed) rotated left by k bytes. */
static bool rotated_by(const void *buf, unsigned seed, size_t k)
{
	uint8_t h[N];

	if (download(h, buf))
		return false;
	for (size_t i = 0; i < N; i++)
		if (h[i] != pat((i + k) % N, seed))
			return false;
	return true;
}

static aclError upload_pat(void *buf, unsigned seed)
{
	uint8_t h[N];

	fill_pat(h, N, seed);
	return aclrtMemcpy(buf, N, h, N, ACL_MEMCPY_HOST_TO_DEVICE);
}

TEST_F(cap, begin_end_errors)
{
	aclmdlRICaptureStatus st = ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE;
	aclmdlRI m = (aclmdlRI)1, got = (aclmdlRI)1;

	EXPECT_EQ(ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT,
		  aclmdlRICaptureBegin(NULL, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureBegin(self->s1, (aclmdlRICaptureMode)7));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclmdlRICaptureEnd(self->s1, &m));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRICaptureGetInfo(self->s1, &st, &got));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_NONE, st);
	EXPECT_EQ(NULL, got);

	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(self->s1, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_CAPTURED,
		  aclmdlRICaptureBegin(self->s1, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRICaptureGetInfo(self->s1, &st, &got));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, st);
	EXPECT_NE(NULL, got);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureGetInfo(self->s1, NULL, &got));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureEnd(self->s1, NULL));
	/* the model being captured into can neither run nor go */
	EXPECT_EQ(ACL_ERROR_RT_MODEL_CAPTURED, aclmdlRIExecuteAsync(got, self->s2));
	EXPECT_EQ(ACL_ERROR_RT_MODEL_CAPTURED, aclmdlRIDestroy(got));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureEnd(self->s1, &m));
	EXPECT_EQ(got, m);
	EXPECT_EQ(ACL_SUCCESS, aclmdlRICaptureGetInfo(self->s1, &st, NULL));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_NONE, st);
	/* an empty model runs and does nothing */
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(m, self->s1));
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s1));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroy(m));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIDestroy(m));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIExecuteAsync(m, self->s1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIExecuteAsync(NULL, self->s1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIDestroy(NULL));
}

/* What a capturing stream is given runs only when the model is replayed. */
TEST_F(cap, captured_work_waits_for_replay)
{
	aclmdlRI m;

	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(self->s1, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->a, N, 0x5a, N, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->b, N, self->a, N,
						ACL_MEMCPY_DEVICE_TO_DEVICE, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureEnd(self->s1, &m));
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s1));
	EXPECT_EQ(0u, not_all(self->a, 0));
	EXPECT_EQ(0u, not_all(self->b, 0));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(m, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s1));
	EXPECT_EQ(0u, not_all(self->a, 0x5a));
	EXPECT_EQ(0u, not_all(self->b, 0x5a));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroy(m));
}

/* A thousand replays of a one-byte rotation rotate by a thousand. */
TEST_F(cap, replay_1000_times)
{
	aclmdlRI m;

	ASSERT_EQ(ACL_SUCCESS, upload_pat(self->a, 3));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(self->s1, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_EQ(ACL_SUCCESS, rotate(self->a, self->tmp, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureEnd(self->s1, &m));
	for (int i = 0; i < 1000; i++)
		ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(m, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s1));
	EXPECT_TRUE(rotated_by(self->a, 3, 1000));
	/* replays on other streams follow the ones before */
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(m, self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(m, self->s3));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(m, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecute(m, -1));
	EXPECT_TRUE(rotated_by(self->a, 3, 1004));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroy(m));
}

/*
 * The vendor's fork and join: s2 joins by waiting on an event of s1, s3
 * through s2, and both come back to s1 before the end.
 */
static aclError fork_join(FIXTURE_DATA(cap) *self, aclrtEvent e[4])
{
	aclError r;

	r = aclrtMemsetAsync(self->a, N, 1, N, self->s1);
	if (!r)
		r = aclrtRecordEvent(e[0], self->s1);
	if (!r)
		r = aclrtStreamWaitEvent(self->s2, e[0]);
	if (!r)
		r = aclrtMemcpyAsync(self->b, N, self->a, N, ACL_MEMCPY_DEVICE_TO_DEVICE, self->s2);
	if (!r)
		r = aclrtRecordEvent(e[1], self->s2);
	if (!r)
		r = aclrtStreamWaitEvent(self->s3, e[1]);
	if (!r)
		r = aclrtMemsetAsync(self->c, N, 3, N, self->s3);
	if (!r)
		r = aclrtMemsetAsync(self->tmp, N, 2, N, self->s1);
	if (!r)
		r = aclrtRecordEvent(e[2], self->s3);
	if (!r)
		r = aclrtStreamWaitEvent(self->s2, e[2]);
	if (!r)
		r = aclrtMemcpyAsync(self->d, N, self->c, N, ACL_MEMCPY_DEVICE_TO_DEVICE, self->s2);
	if (!r)
		r = aclrtRecordEvent(e[3], self->s2);
	if (!r)
		r = aclrtStreamWaitEvent(self->s1, e[3]);
	return r;
}

static void expect_fork_join_result(struct __test_metadata *_metadata, FIXTURE_DATA(cap) *self)
{
	EXPECT_EQ(0u, not_all(self->a, 1));
	EXPECT_EQ(0u, not_all(self->tmp, 2));
	EXPECT_EQ(0u, not_all(self->b, 1));
	EXPECT_EQ(0u, not_all(self->c, 3));
	EXPECT_EQ(0u, not_all(self->d, 3));
}

static void clear_bufs(struct __test_metadata *_metadata, FIXTURE_DATA(cap) *self)
{
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(self->a, N, 0, N));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(self->tmp, N, 0, N));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(self->b, N, 0, N));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(self->c, N, 0, N));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(self->d, N, 0, N));
}

TEST_F(cap, fork_join_matches_eager)
{
	aclmdlRICaptureStatus st;
	aclmdlRI m, got = NULL;
	aclrtStream streams[4];
	uint32_t n = 4;
	aclrtEvent e[4];

	for (int i = 0; i < 4; i++)
		ASSERT_EQ(ACL_SUCCESS, aclrtCreateEventExWithFlag(&e[i], ACL_EVENT_SYNC));
	ASSERT_EQ(ACL_SUCCESS, fork_join(self, e));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeDevice());
	expect_fork_join_result(_metadata, self);
	clear_bufs(_metadata, self);

	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(self->s1, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_EQ(ACL_SUCCESS, fork_join(self, e));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRICaptureGetInfo(self->s3, &st, &got));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, st);
	EXPECT_EQ(ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED, aclmdlRICaptureEnd(self->s2, &m));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureEnd(self->s1, &m));
	EXPECT_EQ(got, m);
	EXPECT_EQ(ACL_SUCCESS, aclmdlRICaptureGetInfo(self->s3, &st, NULL));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_NONE, st);
	EXPECT_EQ(0u, not_all(self->a, 0));

	ASSERT_EQ(ACL_SUCCESS, aclmdlRIGetStreams(m, streams, &n));
	EXPECT_EQ(3u, n);
	EXPECT_EQ(self->s1, streams[0]);
	n = 1;
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIGetStreams(m, streams, &n));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIGetStreams(m, NULL, &n));
	EXPECT_EQ(3u, n);

	ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(m, self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s2));
	expect_fork_join_result(_metadata, self);
	/* the events recorded in the capture were recorded by the replay */
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeEvent(e[3]));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroy(m));
	for (int i = 0; i < 4; i++)
		EXPECT_EQ(ACL_SUCCESS, aclrtDestroyEvent(e[i]));
}

TEST_F(cap, unjoined_stream_fails_the_end)
{
	aclmdlRICaptureStatus st;
	aclmdlRI m = (aclmdlRI)1;
	aclrtEvent e;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(self->s1, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(e, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamWaitEvent(self->s2, e));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->b, N, 9, N, self->s2));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_UNJOINED, aclmdlRICaptureEnd(self->s1, &m));
	EXPECT_EQ(NULL, m);
	EXPECT_EQ(ACL_SUCCESS, aclmdlRICaptureGetInfo(self->s2, &st, NULL));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_NONE, st);
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s2));
	EXPECT_EQ(0u, not_all(self->b, 0));
	/* a joined stream that did nothing needs no join back */
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(self->s1, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(e, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamWaitEvent(self->s2, e));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureEnd(self->s1, &m));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroy(m));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyEvent(e));
}

/* Synchronising or querying what captures fails it, in every mode. */
TEST_F(cap, sync_invalidates)
{
	aclmdlRICaptureStatus st;
	aclrtStreamStatus ss;
	aclmdlRI m = (aclmdlRI)1;

	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(self->s1, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->a, N, 4, N, self->s1));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_CAPTURED, aclrtSynchronizeStream(self->s1));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRICaptureGetInfo(self->s1, &st, NULL));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED, st);
	EXPECT_EQ(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
		  aclrtMemsetAsync(self->a, N, 4, N, self->s1));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, aclmdlRICaptureEnd(self->s1, &m));
	EXPECT_EQ(NULL, m);

	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(self->s1, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_CAPTURED, aclrtStreamQuery(self->s1, &ss));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_CAPTURED, aclrtDestroyStream(self->s1));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, aclmdlRICaptureEnd(self->s1, &m));

	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(self->s1, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_CAPTURED, aclrtSynchronizeDevice());
	EXPECT_EQ(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, aclmdlRICaptureEnd(self->s1, &m));
	/* nothing of the failed captures ran */
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeDevice());
	EXPECT_EQ(0u, not_all(self->a, 0));
}

struct other_thread {
	aclrtContext ctx;
	void *dev;
	aclmdlRICaptureMode mode;	/* exchanged in first unless GLOBAL */
	aclError got;
};

static void *sync_memset(void *arg)
{
	struct other_thread *t = arg;
	aclmdlRICaptureMode m = t->mode;

	aclrtSetCurrentContext(t->ctx);
	if (m != ACL_MODEL_RI_CAPTURE_MODE_GLOBAL)
		aclmdlRICaptureThreadExchangeMode(&m);
	t->got = aclrtMemset(t->dev, N, 6, N);
	return NULL;
}

static aclError memset_in_thread(void *dev, aclmdlRICaptureMode mode)
{
	struct other_thread t = { .dev = dev, .mode = mode, .got = -1 };
	pthread_t th;

	aclrtGetCurrentContext(&t.ctx);
	pthread_create(&th, NULL, sync_memset, &t);
	pthread_join(th, NULL);
	return t.got;
}

/* The documented table of which threads may make unsafe calls in which mode. */
TEST_F(cap, modes)
{
	aclmdlRICaptureMode mode = ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
	aclmdlRI m;

	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureThreadExchangeMode(NULL));
	mode = (aclmdlRICaptureMode)9;
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureThreadExchangeMode(&mode));

	/* GLOBAL: forbidden here and in other threads unless they relax */
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(self->s1, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	mode = ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureThreadExchangeMode(&mode));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_MODE_GLOBAL, mode);
	EXPECT_EQ(ACL_SUCCESS, aclrtMemset(self->b, N, 5, N));
	EXPECT_EQ(0u, not_all(self->b, 5));	/* it ran, once, now */
	EXPECT_EQ(ACL_SUCCESS, memset_in_thread(self->c, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
	EXPECT_EQ(ACL_SUCCESS, memset_in_thread(self->c, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureThreadExchangeMode(&mode));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_MODE_RELAXED, mode);
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureEnd(self->s1, &m));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroy(m));

	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(self->s1, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	EXPECT_EQ(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, memset_in_thread(self->c,
		  ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, aclmdlRICaptureEnd(self->s1, &m));

	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(self->s1, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	EXPECT_EQ(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, aclrtMemset(self->b, N, 7, N));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, aclmdlRICaptureEnd(self->s1, &m));

	/* THREAD_LOCAL: forbidden in the capturing thread only */
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(self->s1,
						    ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
	EXPECT_EQ(ACL_SUCCESS, memset_in_thread(self->c, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	EXPECT_EQ(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT,
		  aclrtMemcpy(self->host, N, self->a, N, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, aclmdlRICaptureEnd(self->s1, &m));

	/* RELAXED: allowed everywhere */
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(self->s1, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	EXPECT_EQ(ACL_SUCCESS, memset_in_thread(self->c, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	EXPECT_EQ(ACL_SUCCESS, aclrtMemcpy(self->host, N, self->a, N, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(ACL_SUCCESS, aclrtMemcpy2d(self->host, 16, self->a, 16, 16, 4,
					     ACL_MEMCPY_DEVICE_TO_HOST));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureEnd(self->s1, &m));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroy(m));
	/* the end gives the thread its mode back */
	mode = ACL_MODEL_RI_CAPTURE_MODE_GLOBAL;
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureThreadExchangeMode(&mode));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_MODE_GLOBAL, mode);
}

static void *end_elsewhere(void *arg)
{
	void **a = arg;
	aclmdlRI m = NULL;

	aclrtSetCurrentContext(a[2]);
	*(aclError *)a[1] = aclmdlRICaptureEnd(a[0], &m);
	if (m)
		aclmdlRIDestroy(m);
	return NULL;
}

TEST_F(cap, end_in_another_thread)
{
	aclError got = -1;
	aclrtContext ctx;
	void *args[3] = { self->s1, &got, NULL };
	pthread_t th;
	aclmdlRI m;

	ASSERT_EQ(ACL_SUCCESS, aclrtGetCurrentContext(&ctx));
	args[2] = ctx;
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(self->s1, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	pthread_create(&th, NULL, end_elsewhere, args);
	pthread_join(th, NULL);
	EXPECT_EQ(ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD, got);
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureEnd(self->s1, &m));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroy(m));

	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(self->s1, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	pthread_create(&th, NULL, end_elsewhere, args);
	pthread_join(th, NULL);
	EXPECT_EQ(ACL_SUCCESS, got);
}

/* Copies of ordinary (pageable) host memory cannot be captured; pinned can. */
TEST_F(cap, host_memory)
{
	aclmdlRI m = NULL;

	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(self->s1, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	EXPECT_EQ(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT,
		  aclrtMemcpyAsync(self->a, N, self->host, N, ACL_MEMCPY_HOST_TO_DEVICE, self->s1));
	aclmdlRICaptureEnd(self->s1, &m);
	if (m)
		aclmdlRIDestroy(m);

	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(self->s1, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->a, N, self->pinned, N,
						ACL_MEMCPY_HOST_TO_DEVICE, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureEnd(self->s1, &m));
	for (unsigned seed = 1; seed <= 3; seed++) {
		fill_pat(self->pinned, N, seed);
		ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(m, self->s1));
		ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s1));
		ASSERT_EQ(ACL_SUCCESS, download(self->host, self->a));
		EXPECT_EQ(-1, check_pat(self->host, N, seed));
	}
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroy(m));
}

static atomic_int calls;

static void count_call(void *arg)
{
	atomic_fetch_add(&calls, *(int *)arg);
}

TEST_F(cap, host_functions)
{
	static int two = 2;
	aclmdlRI m;

	atomic_store(&calls, 0);
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(self->s1, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->a, N, 8, N, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtLaunchHostFunc(self->s1, count_call, &two));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->b, N, 9, N, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureEnd(self->s1, &m));
	EXPECT_EQ(0, atomic_load(&calls));
	for (int i = 0; i < 10; i++)
		ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(m, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s1));
	EXPECT_EQ(20, atomic_load(&calls));
	EXPECT_EQ(0u, not_all(self->b, 9));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroy(m));
}

/*
 * A wait on an event recorded outside the capture waits, at each replay,
 * for the event's latest record; the synchronous execute times out on it.
 */
TEST_F(cap, external_event_and_timeout)
{
	aclrtEvent e;
	aclmdlRI m;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(self->s1, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamWaitEvent(self->s1, e));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->a, N, 0x11, N, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureEnd(self->s1, &m));

	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&self->g, self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(e, self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(m, self->s1));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(self->s1, 50));
	EXPECT_EQ(0u, not_all(self->a, 0));
	EXPECT_NE(ACL_SUCCESS, aclmdlRIExecute(m, 50));
	ASSERT_EQ(ACL_SUCCESS, gate_open(&self->g));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecute(m, -1));
	EXPECT_EQ(0u, not_all(self->a, 0x11));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIExecute(m, -2));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroy(m));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyEvent(e));
}

/* A replay while capturing puts the model's work into the new model. */
TEST_F(cap, nested_replay_and_append)
{
	aclmdlRI inner, outer, again;

	ASSERT_EQ(ACL_SUCCESS, upload_pat(self->a, 5));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(self->s1, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_EQ(ACL_SUCCESS, rotate(self->a, self->tmp, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureEnd(self->s1, &inner));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(self->s2, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(inner, self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureEnd(self->s2, &outer));
	EXPECT_TRUE(rotated_by(self->a, 5, 0));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(outer, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s1));
	EXPECT_TRUE(rotated_by(self->a, 5, 3));

	/* aclmdlRICaptureToModelRIBegin appends to a model */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureToModelRIBegin(self->s1, NULL,
		  ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureToModelRIBegin(self->s1, inner,
							     ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_EQ(ACL_SUCCESS, rotate(self->a, self->tmp, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureEnd(self->s1, &again));
	EXPECT_EQ(inner, again);
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(inner, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s1));
	EXPECT_TRUE(rotated_by(self->a, 5, 5));
	/* a failed capture into it leaves it as it was */
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureToModelRIBegin(self->s1, inner,
							     ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_EQ(ACL_SUCCESS, rotate(self->a, self->tmp, self->s1));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_CAPTURED, aclrtSynchronizeStream(self->s1));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, aclmdlRICaptureEnd(self->s1, &again));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(inner, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s1));
	EXPECT_TRUE(rotated_by(self->a, 5, 7));
	/* the outer model keeps its own copy of the work */
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroy(inner));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(outer, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s1));
	EXPECT_TRUE(rotated_by(self->a, 5, 10));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroy(outer));
}

TEST_F(cap, names_ids_json)
{
	char name[16], path[] = "/tmp/capture-json-XXXXXX", buf[4096];
	uint32_t id1 = 0, id2 = 0;
	aclmdlRI m1, m2;
	FILE *f;
	size_t n;
	int fd;

	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(self->s1, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->a, N, 1, N, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->b, N, self->a, N,
						ACL_MEMCPY_DEVICE_TO_DEVICE, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureEnd(self->s1, &m1));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(self->s1, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureEnd(self->s1, &m2));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIGetId(m1, &id1));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIGetId(m2, &id2));
	EXPECT_NE(id1, id2);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIGetId(m1, NULL));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRISetName(m1, "rotate"));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIGetName(m1, sizeof(name), name));
	EXPECT_STREQ("rotate", name);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIGetName(m1, 6, name));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRISetName(m1, NULL));

	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	close(fd);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIDebugJsonPrint(m1, path, 7));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIDebugJsonPrint(m1, NULL, 0));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIDebugJsonPrint(m1, path, ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE));
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	unlink(path);
	ASSERT_NE(NULL, strstr(buf, "\"task_num\""));
	EXPECT_EQ(2, atoi(strchr(strstr(buf, "\"task_num\""), ':') + 1));
	EXPECT_NE(NULL, strstr(buf, "\"MEMSET\""));
	EXPECT_NE(NULL, strstr(buf, "\"MEMCPY\""));
	EXPECT_NE(NULL, strstr(buf, "\"rotate\""));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroy(m1));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroy(m2));
}

/* Destroying a model whose replays are still queued lets them finish. */
TEST_F(cap, destroy_with_replays_queued)
{
	aclmdlRI m;

	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(self->s1, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->a, N, 0x33, N, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureEnd(self->s1, &m));
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&self->g, self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(m, self->s2));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroy(m));
	ASSERT_EQ(ACL_SUCCESS, gate_open(&self->g));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s2));
	EXPECT_EQ(0u, not_all(self->a, 0x33));
}

/* The vendor's graph-external record and wait: flags checked, work replayed. */
TEST_F(cap, external_flags)
{
	aclrtEventRecordedStatus st;
	aclrtEvent e;
	aclmdlRI m;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtRecordEventWithFlag(e, self->s1, 2));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtStreamWaitEventWithFlag(self->s1, e, 0, 2));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclrtStreamWaitEventWithFlag(self->s1, e, 5, ACL_EVENT_WAIT_EXTERNAL));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		  aclrtStreamWaitEventWithFlag(self->s1, e, 5, ACL_EVENT_WAIT_DEFAULT));

	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(self->s1, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->a, N, 0x44, N, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEventWithFlag(e, self->s1, ACL_EVENT_RECORD_EXTERNAL));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureEnd(self->s1, &m));
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&self->g, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(m, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamWaitEventWithFlag(self->s2, e, 0, ACL_EVENT_WAIT_DEFAULT));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->b, N, self->a, N,
						ACL_MEMCPY_DEVICE_TO_DEVICE, self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtQueryEventStatus(e, &st));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, st);
	ASSERT_EQ(ACL_SUCCESS, gate_open(&self->g));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s2));
	EXPECT_EQ(0u, not_all(self->b, 0x44));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroy(m));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyEvent(e));
}

/*
 * A task group is replaced by an update in the updating stream's order:
 * replays the card runs before the update reaches it use the old tasks.
 */
TEST_F(cap, task_group_update)
{
	aclrtTaskGrp g = NULL, g2;
	aclrtEvent e;
	aclmdlRI m;

	EXPECT_EQ(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclmdlRICaptureTaskGrpBegin(self->s1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureTaskGrpEnd(self->s1, NULL));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(self->s1, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->a, N, 1, N, self->s1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureTaskGrpEnd(self->s1, &g));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureTaskGrpBegin(self->s1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureTaskGrpBegin(self->s1));
	EXPECT_EQ(ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT, aclrtRecordEvent(e, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->b, N, 2, N, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureTaskGrpEnd(self->s1, &g));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->c, N, self->b, N,
						ACL_MEMCPY_DEVICE_TO_DEVICE, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureEnd(self->s1, &m));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(m, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s1));
	EXPECT_EQ(0u, not_all(self->b, 2));
	EXPECT_EQ(0u, not_all(self->c, 2));

	/* updates that do not match the group fail and change nothing */
	EXPECT_EQ(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclmdlRICaptureTaskUpdateEnd(self->s2));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureTaskUpdateBegin(self->s2, (aclrtTaskGrp)e));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureTaskUpdateBegin(self->s2, g));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->b, N, 5, N, self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->b, N, 5, N, self->s2));
	EXPECT_EQ(ACL_ERROR_RT_MODEL_UPDATE_FAILED, aclmdlRICaptureTaskUpdateEnd(self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureTaskUpdateBegin(self->s2, g));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->b, N, self->a, N,
						ACL_MEMCPY_DEVICE_TO_DEVICE, self->s2));
	EXPECT_EQ(ACL_ERROR_RT_MODEL_UPDATE_FAILED, aclmdlRICaptureTaskUpdateEnd(self->s2));

	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureTaskUpdateBegin(self->s2, g));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->b, N, 3, N, self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureTaskUpdateEnd(self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(m, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s1));
	EXPECT_EQ(0u, not_all(self->b, 3));
	EXPECT_EQ(0u, not_all(self->c, 3));

	/* held back on the card, the update does not reach a replay queued before it runs */
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&self->g, self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureTaskUpdateBegin(self->s2, g));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->b, N, 4, N, self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureTaskUpdateEnd(self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->c, N, 0, N, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(m, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s1));
	EXPECT_EQ(0u, not_all(self->c, 3));
	ASSERT_EQ(ACL_SUCCESS, gate_open(&self->g));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(m, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s1));
	EXPECT_EQ(0u, not_all(self->c, 4));

	/* a second group in another model; the first goes with its model */
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIDestroy(m));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureTaskUpdateBegin(self->s2, g));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(self->s1, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureTaskGrpBegin(self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->d, N, 6, N, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureTaskGrpEnd(self->s1, &g2));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureEnd(self->s1, &m));
	/* updated before any replay: the first replay has the new tasks */
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureTaskUpdateBegin(self->s2, g2));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->d, N, 7, N, self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureTaskUpdateEnd(self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecute(m, -1));
	EXPECT_EQ(0u, not_all(self->d, 7));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroy(m));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyEvent(e));
}

/*
 * An event of ACL_EVENT_EXTERNAL is a flag: a model that waits on it and
 * resets it waits, at each replay, for a record made after that replay.
 */
TEST_F(cap, external_event_flag)
{
	aclrtEvent e;
	aclmdlRI m;

	ASSERT_EQ(ACL_SUCCESS, upload_pat(self->a, 7));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEventWithFlag(&e, ACL_EVENT_EXTERNAL));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(self->s1, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamWaitEvent(self->s1, e));
	ASSERT_EQ(ACL_SUCCESS, aclrtResetEvent(e, self->s1));
	ASSERT_EQ(ACL_SUCCESS, rotate(self->a, self->tmp, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureEnd(self->s1, &m));
	for (size_t r = 1; r <= 3; r++) {
		ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(m, self->s1));
		EXPECT_EQ(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
			  aclrtSynchronizeStreamWithTimeout(self->s1, 30));
		EXPECT_TRUE(rotated_by(self->a, 7, r - 1));
		ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(e, self->s2));
		ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s1));
		EXPECT_TRUE(rotated_by(self->a, 7, r));
	}
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroy(m));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyEvent(e));
}

/*
 * A model built from a bound stream with a switch by index over two
 * labels, each followed by its own work and an end task.
 */
TEST_F(cap, build_labels)
{
	aclrtLabel l[2], bad;
	aclrtLabelList list;
	aclrtStream ls;
	uint32_t idx;
	aclmdlRI m;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStreamWithConfig(&ls, 0, ACL_STREAM_PERSISTENT));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIBuildBegin(&m, 1));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIBuildBegin(&m, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIBindStream(m, ls, 5));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIBindStream(m, ls, ACL_MODEL_STREAM_FLAG_HEAD));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_CAPTURED,
		  aclmdlRIBindStream(m, ls, ACL_MODEL_STREAM_FLAG_DEFAULT));
	for (int i = 0; i < 2; i++)
		ASSERT_EQ(ACL_SUCCESS, aclrtCreateLabel(&l[i]));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtCreateLabelList(l, 0, &list));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateLabelList(l, 2, &list));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_MODEL, aclrtSetLabel(l[0], self->s2));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtSwitchLabelByIndex(self->d, 3, list, ls));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclrtSwitchLabelByIndex((uint8_t *)self->d + 2, 2, list, ls));

	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->a, N, 0x10, N, ls));
	ASSERT_EQ(ACL_SUCCESS, aclrtSwitchLabelByIndex(self->d, 2, list, ls));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetLabel(l[0], ls));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->b, N, 0xb0, N, ls));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIEndTask(m, ls));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetLabel(l[1], ls));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->c, N, 0xc1, N, ls));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIEndTask(m, ls));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIBuildEnd(m, NULL));
	EXPECT_EQ(0u, not_all(self->a, 0));

	idx = 1;
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(self->d, 4, &idx, 4, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(m, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s1));
	EXPECT_EQ(0u, not_all(self->a, 0x10));
	EXPECT_EQ(0u, not_all(self->b, 0));
	EXPECT_EQ(0u, not_all(self->c, 0xc1));
	idx = 0;
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(self->d, 4, &idx, 4, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(self->c, N, 0, N));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(m, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s1));
	EXPECT_EQ(0u, not_all(self->b, 0xb0));
	EXPECT_EQ(0u, not_all(self->c, 0));
	/* past the list: on after the switch, where the first label is */
	idx = 9;
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(self->d, 4, &idx, 4, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(self->b, N, 0, N));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(m, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s1));
	EXPECT_EQ(0u, not_all(self->b, 0xb0));
	EXPECT_EQ(0u, not_all(self->c, 0));

	EXPECT_EQ(ACL_ERROR_RT_STREAM_MODEL, aclmdlRIUnbindStream(m, self->s2));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIUnbindStream(m, ls));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroy(m));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyLabelList(list));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtDestroyLabelList(list));
	bad = l[0];
	for (int i = 0; i < 2; i++)
		EXPECT_EQ(ACL_SUCCESS, aclrtDestroyLabel(l[i]));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtDestroyLabel(bad));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyStream(ls));
}

/* A model built from the head stream h and streams x[0..n-1], bound after it. */
static aclError build_bound(aclmdlRI *m, aclrtStream h, aclrtStream *x, int n)
{
	aclError r = aclmdlRIBuildBegin(m, 0);

	if (!r)
		r = aclmdlRIBindStream(*m, h, ACL_MODEL_STREAM_FLAG_HEAD);
	for (int i = 0; !r && i < n; i++)
		r = aclmdlRIBindStream(*m, x[i], ACL_MODEL_STREAM_FLAG_DEFAULT);
	return r;
}

static aclError end_bound(aclmdlRI m, aclrtStream h, aclrtStream *x, int n)
{
	aclError r = aclmdlRIBuildEnd(m, NULL);

	for (int i = 0; !r && i < n; i++)
		r = aclmdlRIUnbindStream(m, x[i]);
	if (!r)
		r = aclmdlRIUnbindStream(m, h);
	return r;
}

static aclError run_model(FIXTURE_DATA(cap) *self, aclmdlRI m, int64_t left)
{
	aclError r = aclrtMemcpy(self->d, 8, &left, 8, ACL_MEMCPY_HOST_TO_DEVICE);

	if (!r)
		r = aclmdlRIExecuteAsync(m, self->s3);
	return r ? r : aclrtSynchronizeStream(self->s3);
}

static aclError clear3(FIXTURE_DATA(cap) *self)
{
	void *bufs[] = { self->a, self->b, self->c };
	aclError r = ACL_SUCCESS;

	for (int i = 0; !r && i < 3; i++)
		r = aclrtMemset(bufs[i], N, 0, N);
	return r;
}

/*
 * The head stream switches to x[0] when the int32 at d is below 0, and to
 * x[1] (else x[2]) when the int64 at d is: a word of 0x1ffffffff is -1 as
 * an int32 and positive as an int64.
 */
TEST_F(cap, switch_stream)
{
	int64_t zero = 0;
	aclrtStream h, x[3];
	aclmdlRI m;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStreamWithConfig(&h, 0, ACL_STREAM_PERSISTENT));
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(ACL_SUCCESS, aclrtCreateStreamWithConfig(&x[i], 0, ACL_STREAM_PERSISTENT));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy((uint8_t *)self->d + 8, 8, &zero, 8,
					   ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_EQ(ACL_SUCCESS, build_bound(&m, h, x, 3));
	ASSERT_EQ(ACL_SUCCESS, aclrtSwitchStream(self->d, ACL_RT_LESS, (uint8_t *)self->d + 8,
						 ACL_RT_SWITCH_INT32, x[0], NULL, h));
	ASSERT_EQ(ACL_SUCCESS, aclrtSwitchStream(self->d, ACL_RT_LESS, (uint8_t *)self->d + 8,
						 ACL_RT_SWITCH_INT64, x[1], x[2], h));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->a, N, 0xaa, N, x[0]));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->b, N, 0xbb, N, x[1]));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->c, N, 0xcc, N, x[2]));
	ASSERT_EQ(ACL_SUCCESS, end_bound(m, h, x, 3));
	EXPECT_EQ(0u, not_all(self->a, 0));

	ASSERT_EQ(ACL_SUCCESS, run_model(self, m, 0x1ffffffffLL));
	EXPECT_EQ(0u, not_all(self->a, 0xaa));
	EXPECT_EQ(0u, not_all(self->b, 0));
	EXPECT_EQ(0u, not_all(self->c, 0xcc));
	ASSERT_EQ(ACL_SUCCESS, clear3(self));
	ASSERT_EQ(ACL_SUCCESS, run_model(self, m, -1));
	EXPECT_EQ(0u, not_all(self->a, 0xaa));
	EXPECT_EQ(0u, not_all(self->b, 0xbb));
	EXPECT_EQ(0u, not_all(self->c, 0));
	ASSERT_EQ(ACL_SUCCESS, clear3(self));
	ASSERT_EQ(ACL_SUCCESS, run_model(self, m, 0));
	EXPECT_EQ(0u, not_all(self->a, 0));
	EXPECT_EQ(0u, not_all(self->b, 0));
	EXPECT_EQ(0u, not_all(self->c, 0xcc));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroy(m));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyStream(h));
	for (int i = 0; i < 3; i++)
		EXPECT_EQ(ACL_SUCCESS, aclrtDestroyStream(x[i]));
}

/*
 * Activated streams run in the order activated, after the stream that
 * activated them: x[0] fills a, x[1] copies a to b; an end task on x[0]
 * ends the run before x[1].
 */
TEST_F(cap, active_stream_order_and_end)
{
	aclrtStream h, x[2], other;
	aclmdlRI m;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStreamWithConfig(&h, 0, ACL_STREAM_PERSISTENT));
	for (int i = 0; i < 2; i++)
		ASSERT_EQ(ACL_SUCCESS, aclrtCreateStreamWithConfig(&x[i], 0, ACL_STREAM_PERSISTENT));
	ASSERT_EQ(ACL_SUCCESS, build_bound(&m, h, x, 2));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtActiveStream(NULL, h));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtActiveStream(h, h));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_MODEL, aclrtActiveStream(self->s2, h));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_MODEL, aclrtActiveStream(x[0], self->s2));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtSwitchStream(self->d, ACL_RT_EQUAL, self->d,
			(aclrtCompareDataType)7, x[0], NULL, h));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtSwitchStream(self->d, (aclrtCondition)9, self->d,
			ACL_RT_SWITCH_INT32, x[0], NULL, h));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtSwitchStream((uint8_t *)self->d + 2, ACL_RT_EQUAL,
			self->d, ACL_RT_SWITCH_INT32, x[0], NULL, h));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtSwitchStream((uint8_t *)self->d + 4, ACL_RT_EQUAL,
			self->d, ACL_RT_SWITCH_INT64, x[0], NULL, h));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtSwitchStream(self->host, ACL_RT_EQUAL, self->d,
			ACL_RT_SWITCH_INT32, x[0], NULL, h));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtSwitchStream(self->d, ACL_RT_EQUAL, self->d,
			ACL_RT_SWITCH_INT32, NULL, NULL, h));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_MODEL, aclrtSwitchStream(self->d, ACL_RT_EQUAL, self->d,
			ACL_RT_SWITCH_INT32, self->s2, NULL, h));
	ASSERT_EQ(ACL_SUCCESS, aclrtActiveStream(x[0], h));
	ASSERT_EQ(ACL_SUCCESS, aclrtActiveStream(x[1], h));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->a, N, 0x22, N, x[0]));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->b, N, self->a, N,
						ACL_MEMCPY_DEVICE_TO_DEVICE, x[1]));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRIUnbindStream(m, x[0]));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_MODEL, aclmdlRIUnbindStream(m, self->s2));
	ASSERT_EQ(ACL_SUCCESS, end_bound(m, h, x, 2));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDebugJsonPrint(m, "/dev/null", 0));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(m, self->s3));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s3));
	EXPECT_EQ(0u, not_all(self->b, 0x22));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroy(m));

	/* the other order, and an end task on the first activated */
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(self->a, N, 0x11, N));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(self->b, N, 0, N));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStreamWithConfig(&other, 0, ACL_STREAM_PERSISTENT));
	ASSERT_EQ(ACL_SUCCESS, build_bound(&m, h, x, 2));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIBindStream(m, other, ACL_MODEL_STREAM_FLAG_DEFAULT));
	ASSERT_EQ(ACL_SUCCESS, aclrtActiveStream(x[1], h));
	ASSERT_EQ(ACL_SUCCESS, aclrtActiveStream(x[0], h));
	ASSERT_EQ(ACL_SUCCESS, aclrtActiveStream(other, h));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->a, N, 0x22, N, x[0]));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIEndTask(m, x[0]));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->b, N, self->a, N,
						ACL_MEMCPY_DEVICE_TO_DEVICE, x[1]));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->c, N, 0xcc, N, other));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIBuildEnd(m, NULL));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(m, self->s3));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s3));
	EXPECT_EQ(0u, not_all(self->b, 0x11));
	EXPECT_EQ(0u, not_all(self->a, 0x22));
	EXPECT_EQ(0u, not_all(self->c, 0));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIUnbindStream(m, other));
	EXPECT_EQ(ACL_SUCCESS, end_bound(m, h, x, 2));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroy(m));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyStream(h));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyStream(other));
	for (int i = 0; i < 2; i++)
		EXPECT_EQ(ACL_SUCCESS, aclrtDestroyStream(x[i]));
}

/* Captures a condition task of type on s1 into a new model with n sub-models (filled by the caller). */
static aclError cond_begin(FIXTURE_DATA(cap) *self, aclmdlRICondTaskType type, uint32_t n,
			   uint32_t flag, uint32_t dflt, aclmdlRI *subs, uint64_t **word)
{
	aclmdlRICondTaskParams p = { .type = type, .size = n, .modelRIArray = subs };
	aclmdlRICaptureStatus st;
	aclmdlRI m;
	aclError r;

	r = aclmdlRICaptureBegin(self->s1, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL);
	if (!r)
		r = aclmdlRICaptureGetInfo(self->s1, &st, &m);
	if (!r)
		r = aclmdlRICondHandleCreate(m, dflt, (aclmdlRICondHandleFlag)flag, &p.handle);
	if (!r)
		r = aclmdlRICondHandleGetCondPtr(p.handle, word);
	if (!r)
		r = aclmdlRIAddCondTask(p, self->s1, 0);
	return r;
}

/* Sub-model sub: fills buf with v. */
static aclError fill_sub(FIXTURE_DATA(cap) *self, aclmdlRI sub, void *buf, uint8_t v)
{
	aclmdlRI got = NULL;
	aclError r;

	r = aclmdlRICaptureToModelRIBegin(self->s2, sub, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL);
	if (!r)
		r = aclrtMemsetAsync(buf, N, v, N, self->s2);
	if (!r)
		r = aclmdlRICaptureEnd(self->s2, &got);
	return r ? r : got == sub ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM;
}

static aclError run_with(FIXTURE_DATA(cap) *self, aclmdlRI m, uint64_t *word, uint64_t v)
{
	aclError r = aclrtMemcpy(word, 8, &v, 8, ACL_MEMCPY_HOST_TO_DEVICE);

	if (!r)
		r = aclmdlRIExecuteAsync(m, self->s3);
	return r ? r : aclrtSynchronizeStream(self->s3);
}

TEST_F(cap, cond_if)
{
	aclmdlRI m, subs[2], one[1];
	uint64_t *word;

	ASSERT_EQ(ACL_SUCCESS, cond_begin(self, ACL_MODEL_RI_COND_TYPE_IF, 2, 0, 0, subs, &word));
	ASSERT_EQ(ACL_SUCCESS, fill_sub(self, subs[0], self->a, 0x11));
	ASSERT_EQ(ACL_SUCCESS, fill_sub(self, subs[1], self->a, 0x22));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->b, N, 0xbb, N, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureEnd(self->s1, &m));
	EXPECT_EQ(0u, not_all(self->a, 0));

	ASSERT_EQ(ACL_SUCCESS, run_with(self, m, word, 1));
	EXPECT_EQ(0u, not_all(self->a, 0x11));
	EXPECT_EQ(0u, not_all(self->b, 0xbb));
	ASSERT_EQ(ACL_SUCCESS, run_with(self, m, word, 0));
	EXPECT_EQ(0u, not_all(self->a, 0x22));
	/* any non-zero word is true, the high bytes too */
	ASSERT_EQ(ACL_SUCCESS, run_with(self, m, word, 1ULL << 63));
	EXPECT_EQ(0u, not_all(self->a, 0x11));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroy(m));

	/* without an else, a false condition runs nothing */
	ASSERT_EQ(ACL_SUCCESS, cond_begin(self, ACL_MODEL_RI_COND_TYPE_IF, 1, 0, 0, one, &word));
	ASSERT_EQ(ACL_SUCCESS, fill_sub(self, one[0], self->c, 0x33));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureEnd(self->s1, &m));
	ASSERT_EQ(ACL_SUCCESS, run_with(self, m, word, 0));
	EXPECT_EQ(0u, not_all(self->c, 0));
	ASSERT_EQ(ACL_SUCCESS, run_with(self, m, word, 2));
	EXPECT_EQ(0u, not_all(self->c, 0x33));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroy(m));
}

/*
 * The body rotates a by one byte and shifts the condition word right by
 * one byte (copies of its bytes 1..7 to 0..6, through tmp): a word of k
 * non-zero low bytes runs the body k times.
 */
static aclError while_body(FIXTURE_DATA(cap) *self, aclmdlRI sub, uint64_t *word)
{
	aclmdlRI got = NULL;
	aclError r;

	r = aclmdlRICaptureToModelRIBegin(self->s2, sub, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL);
	if (!r)
		r = rotate(self->a, self->tmp, self->s2);
	if (!r)
		r = aclrtMemcpyAsync(self->c, 7, (uint8_t *)word + 1, 7,
				     ACL_MEMCPY_DEVICE_TO_DEVICE, self->s2);
	if (!r)
		r = aclrtMemcpyAsync(word, 7, self->c, 7, ACL_MEMCPY_DEVICE_TO_DEVICE, self->s2);
	if (!r)
		r = aclmdlRICaptureEnd(self->s2, &got);
	return r;
}

TEST_F(cap, cond_while)
{
	uint64_t *word, left;
	aclmdlRI m, body[1];

	ASSERT_EQ(ACL_SUCCESS, upload_pat(self->a, 9));
	ASSERT_EQ(ACL_SUCCESS, cond_begin(self, ACL_MODEL_RI_COND_TYPE_WHILE, 1, 0, 0, body,
					  &word));
	ASSERT_EQ(ACL_SUCCESS, while_body(self, body[0], word));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureEnd(self->s1, &m));
	ASSERT_EQ(ACL_SUCCESS, run_with(self, m, word, 0x0101010101ULL));
	EXPECT_TRUE(rotated_by(self->a, 9, 5));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(&left, 8, word, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0u, left);
	/* false at once: the body does not run */
	ASSERT_EQ(ACL_SUCCESS, run_with(self, m, word, 0));
	EXPECT_TRUE(rotated_by(self->a, 9, 5));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroy(m));

	/* ASSIGN_DEFAULT: every replay starts from the default, whatever the word holds */
	ASSERT_EQ(ACL_SUCCESS, cond_begin(self, ACL_MODEL_RI_COND_TYPE_WHILE, 1,
					  ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, 0x010101, body,
					  &word));
	ASSERT_EQ(ACL_SUCCESS, while_body(self, body[0], word));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureEnd(self->s1, &m));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(&left, 8, word, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0x010101u, left);
	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(m, self->s3));
		ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s3));
	}
	EXPECT_TRUE(rotated_by(self->a, 9, 5 + 2 * 3));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroy(m));
}

TEST_F(cap, cond_switch)
{
	aclmdlRI m, cases[3];
	void *bufs[3] = { self->a, self->b, self->c };
	uint64_t *word;

	ASSERT_EQ(ACL_SUCCESS, cond_begin(self, ACL_MODEL_RI_COND_TYPE_SWITCH, 3, 0, 0, cases,
					  &word));
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(ACL_SUCCESS, fill_sub(self, cases[i], bufs[i], (uint8_t)(0x40 + i)));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureEnd(self->s1, &m));
	/* an index past the cases runs none */
	ASSERT_EQ(ACL_SUCCESS, run_with(self, m, word, 3));
	for (int i = 0; i < 3; i++)
		EXPECT_EQ(0u, not_all(bufs[i], 0));
	for (int i = 2; i >= 0; i--) {
		ASSERT_EQ(ACL_SUCCESS, run_with(self, m, word, (uint64_t)i));
		for (int k = 0; k < 3; k++)
			EXPECT_EQ(0u, not_all(bufs[k], k >= i ? 0x40 + k : 0));
	}
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroy(m));
}

TEST_F(cap, cond_errors)
{
	aclmdlRICondTaskParams p = { .type = ACL_MODEL_RI_COND_TYPE_IF, .size = 1 };
	aclmdlRI m, other, subs[2];
	aclmdlRICondHandle h;
	uint64_t *word;

	ASSERT_EQ(ACL_SUCCESS, aclmdlRIBuildBegin(&other, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICondHandleCreate(NULL, 0, 0, &h));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclmdlRICondHandleCreate(other, 0, (aclmdlRICondHandleFlag)2, &h));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICondHandleCreate(other, 0, 0, NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICondHandleCreate(&p, 0, 0, &h));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICondHandleGetCondPtr(NULL, &word));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICondHandleGetCondPtr(&p, &word));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICondHandleCreate(other, 0, 0, &h));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICondHandleGetCondPtr(h, NULL));

	p.handle = h;
	p.modelRIArray = subs;
	/* not capturing, or capturing into another model than the handle's */
	EXPECT_EQ(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclmdlRIAddCondTask(p, self->s1, 0));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(self->s1, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclmdlRIAddCondTask(p, self->s1, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIAddCondTask(p, self->s1, 1));
	p.size = 3;
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIAddCondTask(p, self->s1, 0));
	p.type = ACL_MODEL_RI_COND_TYPE_WHILE;
	p.size = 2;
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIAddCondTask(p, self->s1, 0));
	p.type = ACL_MODEL_RI_COND_TYPE_SWITCH;
	p.size = 0;
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIAddCondTask(p, self->s1, 0));
	p.type = (aclmdlRICondTaskType)7;
	p.size = 1;
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIAddCondTask(p, self->s1, 0));
	p.type = ACL_MODEL_RI_COND_TYPE_IF;
	p.modelRIArray = NULL;
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIAddCondTask(p, self->s1, 0));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureEnd(self->s1, &m));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroy(m));

	/* a handle dies with its model */
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroy(other));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICondHandleGetCondPtr(h, &word));
	EXPECT_NE(NULL, strstr(aclGetRecentErrMsg(), "condition handle"));
}

TEST_HARNESS_MAIN
