// SPDX-License-Identifier: MIT
/*
 * Events: creation flags, record/query/synchronize, what the queries say
 * before the first record, timeouts, re-record, reset, elapsed time and
 * timestamps, streams waiting on events on the device, destruction of
 * pending events.
 */
#include "acl_test.h"
#include "kselftest_harness.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

FIXTURE(dev) {
	struct gate g;
	aclrtStream s1, s2;
};

FIXTURE_SETUP(dev)
{
	ASSERT_TRUE(acl_ok_init());
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, gate_init(&self->g));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&self->s2));
}

FIXTURE_TEARDOWN(dev)
{
	aclrtResetDevice(0);
	aclFinalize();
}

/*
 * What the queries say of an event of aclrtCreateEvent(WithFlag) that was
 * never recorded (or whose only reset found nothing to reset), as the
 * vendor's runtime answers: aclrtQueryEventStatus has seen no record
 * complete, the others find nothing to wait for.
 */
static void expect_never_recorded(struct __test_metadata *_metadata, aclrtEvent e)
{
	aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_COMPLETE;
	aclrtEventWaitStatus ws = ACL_EVENT_WAIT_STATUS_NOT_READY;
	aclrtEventStatus old = ACL_EVENT_STATUS_NOT_READY;

	EXPECT_EQ(ACL_SUCCESS, aclrtQueryEventStatus(e, &st));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, st);
	EXPECT_EQ(ACL_SUCCESS, aclrtQueryEventWaitStatus(e, &ws));
	EXPECT_EQ(ACL_EVENT_WAIT_STATUS_COMPLETE, ws);
	EXPECT_EQ(ACL_SUCCESS, aclrtQueryEvent(e, &old));
	EXPECT_EQ(ACL_EVENT_STATUS_COMPLETE, old);
}

TEST_F(dev, create_flags)
{
	aclrtEvent e;

	EXPECT_EQ(ACL_SUCCESS, aclrtCreateEvent(&e));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyEvent(e));
	EXPECT_EQ(ACL_SUCCESS, aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyEvent(e));
	EXPECT_EQ(ACL_SUCCESS, aclrtCreateEventExWithFlag(&e, ACL_EVENT_CAPTURE_STREAM_PROGRESS));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyEvent(e));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtCreateEventWithFlag(&e, 0x1000));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclrtCreateEventWithFlag(&e, ACL_EVENT_EXTERNAL | ACL_EVENT_SYNC));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtCreateEventExWithFlag(&e, 0x1000));
	EXPECT_EQ(ACL_SUCCESS, aclrtCreateEventExWithFlag(&e, ACL_EVENT_IPC));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyEvent(e));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtCreateEvent(NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtDestroyEvent(NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtDestroyEvent((aclrtEvent)0x42));
}

TEST_F(dev, record_query_sync)
{
	aclrtEventRecordedStatus st;
	aclrtEvent e;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&e));
	/* never recorded: no record has completed, and there is nothing to wait for */
	ASSERT_EQ(ACL_SUCCESS, aclrtQueryEventStatus(e, &st));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, st);
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeEvent(e));

	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&self->g, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(e, self->s1));
	EXPECT_EQ(0, event_state(e));
	EXPECT_EQ(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, aclrtSynchronizeEventWithTimeout(e, 30));
	EXPECT_EQ(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, aclrtSynchronizeEventWithTimeout(e, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtSynchronizeEventWithTimeout(e, -3));
	ASSERT_EQ(ACL_SUCCESS, gate_open(&self->g));
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeEventWithTimeout(e, 5000));
	EXPECT_EQ(1, event_state(e));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtQueryEventStatus(e, NULL));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyEvent(e));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtQueryEventStatus(e, &st));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtRecordEvent(e, NULL));
}

TEST_F(dev, record_on_default_stream)
{
	aclrtEvent e;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&e));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(e, NULL));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeEvent(e));
	ASSERT_EQ(ACL_SUCCESS, aclrtDestroyEvent(e));
}

/*
 * Before the first record (the vendor's event_status sample prints 0, not
 * ready, right after aclrtCreateEvent): aclrtQueryEventStatus says not
 * ready, except for events of aclrtCreateEventExWithFlag, which are
 * documented to be complete; everything that waits returns at once; the
 * event has no time.
 */
TEST_F(dev, never_recorded_events)
{
	aclrtEvent plain, sync, timeline, ex, done;
	aclrtEventRecordedStatus st;
	aclrtStreamStatus ss;
	uint64_t ts;
	float ms;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&plain));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEventWithFlag(&sync, ACL_EVENT_SYNC));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEventWithFlag(&timeline, ACL_EVENT_TIME_LINE));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEventExWithFlag(&ex, ACL_EVENT_SYNC));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&done));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(done, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeEvent(done));

	expect_never_recorded(_metadata, plain);
	expect_never_recorded(_metadata, sync);
	/* without ACL_EVENT_SYNC only aclrtQueryEventStatus is documented to take it */
	st = ACL_EVENT_RECORDED_STATUS_COMPLETE;
	EXPECT_EQ(ACL_SUCCESS, aclrtQueryEventStatus(timeline, &st));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, st);
	st = ACL_EVENT_RECORDED_STATUS_NOT_READY;
	EXPECT_EQ(ACL_SUCCESS, aclrtQueryEventStatus(ex, &st));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, st);

	/* waiting for them returns at once, on the host and on the card */
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeEvent(plain));
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeEventWithTimeout(sync, 0));
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeEvent(ex));
	EXPECT_EQ(ACL_SUCCESS, aclrtStreamWaitEvent(self->s2, plain));
	EXPECT_EQ(ACL_SUCCESS, aclrtStreamWaitEvent(self->s2, ex));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStreamWithTimeout(self->s2, 5000));
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamQuery(self->s2, &ss));
	EXPECT_EQ(ACL_STREAM_STATUS_COMPLETE, ss);

	/* no record, no time: neither alone nor against a completed event */
	EXPECT_EQ(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, aclrtEventGetTimestamp(plain, &ts));
	EXPECT_EQ(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, aclrtEventGetTimestamp(timeline, &ts));
	EXPECT_EQ(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, aclrtEventElapsedTime(&ms, plain, done));
	EXPECT_EQ(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, aclrtEventElapsedTime(&ms, done, timeline));

	/* the first record ends it: not ready while held back, then complete */
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&self->g, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(plain, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(ex, self->s1));
	EXPECT_EQ(0, event_state(plain));
	EXPECT_EQ(ACL_SUCCESS, aclrtQueryEventStatus(ex, &st));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, st);
	ASSERT_EQ(ACL_SUCCESS, gate_open(&self->g));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s1));
	EXPECT_EQ(1, event_state(plain));
	EXPECT_EQ(ACL_SUCCESS, aclrtQueryEventStatus(ex, &st));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, st);

	aclrtDestroyEvent(plain);
	aclrtDestroyEvent(sync);
	aclrtDestroyEvent(timeline);
	aclrtDestroyEvent(ex);
	aclrtDestroyEvent(done);
}

TEST_F(dev, ex_event_restrictions)
{
	aclrtEventStatus old;
	aclrtEventWaitStatus ws;
	aclrtEvent e;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEventExWithFlag(&e, ACL_EVENT_CAPTURE_STREAM_PROGRESS));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtQueryEvent(e, &old));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtQueryEventWaitStatus(e, &ws));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtResetEvent(e, NULL));
	/* without ACL_EVENT_SYNC no stream may wait on it */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtStreamWaitEvent(self->s2, e));
	aclrtDestroyEvent(e);
}

TEST_F(dev, rerecord_captures_latest)
{
	aclrtEventRecordedStatus st;
	aclrtEvent e;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC));
	/* first record on an idle stream: completes */
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(e, self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeEvent(e));
	/* re-record behind a closed gate: pending again */
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&self->g, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(e, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtQueryEventStatus(e, &st));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, st);
	ASSERT_EQ(ACL_SUCCESS, gate_open(&self->g));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeEvent(e));
	/* many records in a row */
	for (int i = 0; i < 100; i++)
		ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(e, i & 1 ? self->s1 : self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeEvent(e));
	ASSERT_EQ(ACL_SUCCESS, aclrtQueryEventStatus(e, &st));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, st);
	aclrtDestroyEvent(e);
}

/*
 * aclrtResetEvent is asynchronous: it takes effect when its stream gets
 * there. Until then the event stands for its last record (a query or a
 * wait sees it); afterwards it is as never recorded (no timestamp).
 */
TEST_F(dev, reset_event_in_stream_order)
{
	aclrtStreamStatus ss;
	struct gate g2;
	aclrtStream s3;
	aclrtEvent e;
	uint64_t ts;

	ASSERT_EQ(ACL_SUCCESS, gate_init(&g2));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s3));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC));
	/* a completed record, then a reset held back on s2 */
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(e, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeEvent(e));
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&self->g, self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtResetEvent(e, self->s2));
	EXPECT_EQ(ACL_SUCCESS, aclrtEventGetTimestamp(e, &ts));
	EXPECT_EQ(1, event_state(e));
	ASSERT_EQ(ACL_SUCCESS, gate_open(&self->g));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s2));
	/* reached: never recorded */
	EXPECT_EQ(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, aclrtEventGetTimestamp(e, &ts));
	EXPECT_EQ(1, event_state(e));

	/* a pending record is not taken back by a reset queued elsewhere */
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&g2, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(e, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtResetEvent(e, self->s2));
	EXPECT_EQ(0, event_state(e));
	/* and a stream that waits for the event now waits for that record */
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamWaitEvent(s3, e));
	sleep_ms(50);
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamQuery(s3, &ss));
	EXPECT_EQ(ACL_STREAM_STATUS_NOT_READY, ss);
	ASSERT_EQ(ACL_SUCCESS, gate_open(&g2));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(s3));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s2));
	EXPECT_EQ(1, event_state(e));
	EXPECT_EQ(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, aclrtEventGetTimestamp(e, &ts));

	/* recorded again after the reset */
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(e, self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeEvent(e));
	EXPECT_EQ(ACL_SUCCESS, aclrtEventGetTimestamp(e, &ts));
	aclrtDestroyEvent(e);
	aclrtDestroyStream(s3);
	gate_fini(&g2);
}

/* Only events of aclrtCreateEventWithFlag with ACL_EVENT_SYNC may be reset. */
TEST_F(dev, reset_event_restrictions)
{
	aclrtEvent plain, timeline, sync;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&plain));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEventWithFlag(&timeline, ACL_EVENT_TIME_LINE));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEventWithFlag(&sync, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtResetEvent(plain, self->s1));
	EXPECT_NE(NULL, aclGetRecentErrMsg());
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtResetEvent(timeline, self->s1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtResetEvent(sync, (aclrtStream)0x99));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtResetEvent(NULL, self->s1));
	/* never recorded: nothing to do; the default stream will do */
	EXPECT_EQ(ACL_SUCCESS, aclrtResetEvent(sync, NULL));
	expect_never_recorded(_metadata, sync);
	aclrtDestroyEvent(plain);
	aclrtDestroyEvent(timeline);
	aclrtDestroyEvent(sync);
}

TEST_F(dev, stream_waits_on_device)
{
	aclrtStreamStatus st;
	aclrtEvent e;
	size_t n = 64 << 10;
	uint8_t *host;
	void *a;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&host, n));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&a, n, ACL_MEM_MALLOC_HUGE_FIRST));
	/* s1: gate, fill a with 9, record; s2: wait, copy a to host */
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(a, n, 1, n));
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&self->g, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(a, n, 9, n, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(e, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamWaitEvent(self->s2, e));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(host, n, a, n, ACL_MEMCPY_DEVICE_TO_HOST,
						self->s2));
	/* s2 is held on the card by s1's event */
	sleep_ms(50);
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamQuery(self->s2, &st));
	EXPECT_EQ(ACL_STREAM_STATUS_NOT_READY, st);
	ASSERT_EQ(ACL_SUCCESS, gate_open(&self->g));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s2));
	for (size_t i = 0; i < n; i++)
		ASSERT_EQ(9, host[i]);
	/* waiting on a completed or never-recorded event is free */
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamWaitEvent(self->s2, e));
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamWaitEvent(NULL, e));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtStreamWaitEvent(self->s2, NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtStreamWaitEvent((aclrtStream)0x99, e));
	aclrtFree(a);
	aclrtFreeHost(host);
	aclrtDestroyEvent(e);
}

TEST_F(dev, many_streams_wait_one_event)
{
	aclrtStream w[4];
	aclrtEvent e;
	aclrtStreamStatus st;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC));
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&self->g, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(e, self->s1));
	for (int i = 0; i < 4; i++) {
		ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&w[i]));
		ASSERT_EQ(ACL_SUCCESS, aclrtStreamWaitEvent(w[i], e));
	}
	sleep_ms(20);
	for (int i = 0; i < 4; i++) {
		ASSERT_EQ(ACL_SUCCESS, aclrtStreamQuery(w[i], &st));
		EXPECT_EQ(ACL_STREAM_STATUS_NOT_READY, st);
	}
	ASSERT_EQ(ACL_SUCCESS, gate_open(&self->g));
	for (int i = 0; i < 4; i++) {
		ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(w[i]));
		aclrtDestroyStream(w[i]);
	}
	aclrtDestroyEvent(e);
}

TEST_F(dev, elapsed_time_and_timestamp)
{
	aclrtEvent a, b, never;
	float ms = -1;
	uint64_t t0 = 0, t1 = 0;
	size_t n = 8 << 20;
	void *p;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&a));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&b));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&never));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&p, n, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(a, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(p, n, 0, n, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(b, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtEventElapsedTime(&ms, a, b));
	EXPECT_GT(ms, 0.0f);
	EXPECT_LT(ms, 10000.0f);
	ASSERT_EQ(ACL_SUCCESS, aclrtEventGetTimestamp(a, &t0));
	ASSERT_EQ(ACL_SUCCESS, aclrtEventGetTimestamp(b, &t1));
	EXPECT_GE(t1, t0);
	/* the timestamps agree with the elapsed time (us vs ms) */
	EXPECT_LE((double)(t1 - t0), ms * 1000.0 + 2.0);
	EXPECT_GE((double)(t1 - t0), ms * 1000.0 - 2.0);
	TH_LOG("8 MiB fill: %.3f ms of device time", ms);
	EXPECT_EQ(ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL, aclrtEventElapsedTime(&ms, b, a));
	EXPECT_EQ(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, aclrtEventElapsedTime(&ms, a, never));
	EXPECT_EQ(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, aclrtEventGetTimestamp(never, &t0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtEventElapsedTime(NULL, a, b));
	/* not complete yet */
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&self->g, self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(never, self->s2));
	EXPECT_EQ(ACL_ERROR_RT_EVENT_NOT_COMPLETE, aclrtEventElapsedTime(&ms, a, never));
	EXPECT_EQ(ACL_ERROR_RT_EVENT_NOT_COMPLETE, aclrtEventGetTimestamp(never, &t0));
	ASSERT_EQ(ACL_SUCCESS, gate_open(&self->g));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeEvent(never));
	aclrtFree(p);
	aclrtDestroyEvent(a);
	aclrtDestroyEvent(b);
	aclrtDestroyEvent(never);
}

TEST_F(dev, destroy_pending_event)
{
	uint32_t before = 0, after = 0;
	aclrtEvent e;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&e));
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&self->g, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(e, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetEventAvailNum(&before));
	/* does not block; the slot is freed once the record lands */
	ASSERT_EQ(ACL_SUCCESS, aclrtDestroyEvent(e));
	ASSERT_EQ(ACL_SUCCESS, gate_open(&self->g));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&e));	/* reaps */
	ASSERT_EQ(ACL_SUCCESS, aclrtGetEventAvailNum(&after));
	EXPECT_EQ(before + 1, after);
	aclrtDestroyEvent(e);
}

/* A reset does not take back a record that the card has yet to write. */
TEST_F(dev, destroy_after_reset_keeps_the_slot_until_written)
{
	struct gate g2;
	aclrtEvent a, b;

	ASSERT_EQ(ACL_SUCCESS, gate_init(&g2));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEventWithFlag(&a, ACL_EVENT_SYNC));
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&self->g, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(a, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtResetEvent(a, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtDestroyEvent(a));
	/* the next event's first record, held back by another gate */
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&b));
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&g2, self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(b, self->s2));
	/* the late write of a's record must not complete b */
	ASSERT_EQ(ACL_SUCCESS, gate_open(&self->g));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s1));
	EXPECT_EQ(0, event_state(b));
	ASSERT_EQ(ACL_SUCCESS, gate_open(&g2));
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeEvent(b));
	EXPECT_EQ(1, event_state(b));
	aclrtDestroyEvent(b);
	gate_fini(&g2);
}

TEST_F(dev, event_ids_and_counts)
{
	aclrtEvent e[16];
	uint32_t ids[16], avail0, avail1;

	ASSERT_EQ(ACL_SUCCESS, aclrtGetEventAvailNum(&avail0));
	for (int i = 0; i < 16; i++) {
		ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&e[i]));
		ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(e[i], self->s1));
		ASSERT_EQ(ACL_SUCCESS, aclrtGetEventId(e[i], &ids[i]));
		for (int j = 0; j < i; j++)
			EXPECT_NE(ids[j], ids[i]);
	}
	ASSERT_EQ(ACL_SUCCESS, aclrtGetEventAvailNum(&avail1));
	EXPECT_EQ(avail0 - 16, avail1);
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s1));
	for (int i = 0; i < 16; i++)
		ASSERT_EQ(ACL_SUCCESS, aclrtDestroyEvent(e[i]));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetEventAvailNum(&avail1));
	EXPECT_EQ(avail0, avail1);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetEventAvailNum(NULL));
}

TEST_HARNESS_MAIN
