// SPDX-License-Identifier: MIT
/*
 * aclrtDeviceTaskAbort and its callbacks, aclrtStreamWaitEventWithTimeout,
 * and the snapshot calls the card does not support.
 */
#include "acl_test.h"
#include "kselftest_harness.h"

ACL_DEVICE0_FIXTURE(dev)

#define BYTES 4096

#define EXPECT_MSG(want)							\
	do {									\
		const char *m_ = aclGetRecentErrMsg();				\
										\
		EXPECT_NE(NULL, m_);						\
		if (m_)								\
			EXPECT_NE(NULL, strstr(m_, want)) {			\
				TH_LOG("message: %s", m_);			\
			}							\
	} while (0)

struct abort_seen {
	int calls;
	int32_t dev[2];
	aclrtDeviceTaskAbortStage stage[2];
	uint32_t timeout[2];
};

static int32_t note_abort(int32_t dev, aclrtDeviceTaskAbortStage stage, uint32_t timeout,
			  void *args)
{
	struct abort_seen *seen = args;

	if (seen->calls < 2) {
		seen->dev[seen->calls] = dev;
		seen->stage[seen->calls] = stage;
		seen->timeout[seen->calls] = timeout;
	}
	seen->calls++;
	return 0;
}

/* Bytes of the device buffer d that are not v. */
static size_t bytes_not(void *d, uint8_t v)
{
	uint8_t h[BYTES];
	size_t i, bad = 0;

	if (aclrtMemcpy(h, BYTES, d, BYTES, ACL_MEMCPY_DEVICE_TO_HOST))
		return BYTES;
	for (i = 0; i < BYTES; i++)
		bad += h[i] != v;
	return bad;
}

/*
 * Work queued behind a closed gate on two streams is dropped: the fills
 * never run, the event behind them reports the abort, and the streams take
 * new work at once. The callbacks see the stages in order.
 */
TEST_F(dev, abort_drops_every_streams_queued_work)
{
	struct abort_seen seen = { 0 };
	aclrtStream s[2];
	void *d[2];
	struct gate g;
	aclrtEvent e;
	int i;

	ASSERT_EQ(ACL_SUCCESS, gate_init(&g));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&e));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDeviceTaskAbortCallback("device_abort_test", note_abort,
								&seen));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s[i]));
		ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&d[i], BYTES, ACL_MEM_MALLOC_HUGE_FIRST));
		ASSERT_EQ(ACL_SUCCESS, aclrtMemset(d[i], BYTES, 0x11, BYTES));
		ASSERT_EQ(ACL_SUCCESS, gate_close_on(&g, s[i]));
		ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(d[i], BYTES, 0x5a, BYTES, s[i]));
	}
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(e, s[1]));
	EXPECT_EQ(ACL_SUCCESS, aclrtDeviceTaskAbort(0, 1000));
	EXPECT_EQ(2, seen.calls);
	EXPECT_EQ(0, seen.dev[0]);
	EXPECT_EQ(0, seen.dev[1]);
	EXPECT_EQ(ACL_RT_DEVICE_TASK_ABORT_PRE, seen.stage[0]);
	EXPECT_EQ(ACL_RT_DEVICE_TASK_ABORT_POST, seen.stage[1]);
	EXPECT_EQ(1000u, seen.timeout[0]);
	EXPECT_EQ(ACL_ERROR_RT_STREAM_ABORT, aclrtSynchronizeEvent(e));
	EXPECT_MSG("abort");
	ASSERT_EQ(ACL_SUCCESS, gate_open(&g));
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(s[i]));
		EXPECT_EQ(0, bytes_not(d[i], 0x11));
		/* the stream goes on */
		ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(d[i], BYTES, 0x22, BYTES, s[i]));
		EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(s[i]));
		EXPECT_EQ(0, bytes_not(d[i], 0x22));
		aclrtFree(d[i]);
		aclrtDestroyStream(s[i]);
	}
	EXPECT_EQ(ACL_SUCCESS, aclrtSetDeviceTaskAbortCallback("device_abort_test", NULL, NULL));
	/* unregistered: no longer called */
	EXPECT_EQ(ACL_SUCCESS, aclrtDeviceTaskAbort(0, 0));
	EXPECT_EQ(2, seen.calls);
	aclrtDestroyEvent(e);
	gate_fini(&g);
}

TEST_F(dev, abort_arguments)
{
	struct abort_seen seen = { 0 };

	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceTaskAbort(-1, 0));
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceTaskAbort(1 << 20, 0));
	/* the vendor's longest timeout is 36 minutes */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtDeviceTaskAbort(0, 36u * 60 * 1000 + 1));
	EXPECT_MSG("timeout");
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetDeviceTaskAbortCallback(NULL, note_abort, NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetDeviceTaskAbortCallback("", note_abort, NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetDeviceTaskAbortCallback("none", NULL, NULL));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDeviceTaskAbortCallback("twice", note_abort, &seen));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetDeviceTaskAbortCallback("twice", note_abort,
									   &seen));
	EXPECT_MSG("already");
	EXPECT_EQ(ACL_SUCCESS, aclrtSetDeviceTaskAbortCallback("twice", NULL, NULL));
	EXPECT_EQ(0, seen.calls);
}

/* 0 seconds is no timeout: the wait holds the stream until the record. */
TEST_F(dev, wait_event_with_timeout)
{
	aclrtStream s, w;
	struct gate g;
	aclrtEvent e;

	ASSERT_EQ(ACL_SUCCESS, gate_init(&g));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&e));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&w));
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&g, s));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(e, s));
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamWaitEventWithTimeout(w, e, 0));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(w, 50));
	ASSERT_EQ(ACL_SUCCESS, gate_open(&g));
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(w));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtStreamWaitEventWithTimeout(w, e, 5));
	EXPECT_MSG("timeout");
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtStreamWaitEventWithTimeout(w, e, -1));
	EXPECT_MSG("negative");
	aclrtDestroyStream(w);
	aclrtDestroyStream(s);
	aclrtDestroyEvent(e);
	gate_fini(&g);
}

static uint32_t snap_cb(int32_t dev, void *args)
{
	(void)dev, (void)args;
	return 0;
}

TEST_F(dev, snapshots_are_not_supported)
{
	aclrtSnapShotBackupArgs b = { 0 };
	aclrtSnapShotRestoreArgs r = { 0 };
	int pid = getpid();

	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtSnapShotProcessLock(pid, NULL));
	EXPECT_MSG("snapshot");
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtSnapShotProcessBackup(pid, &b));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtSnapShotProcessRestore(pid, &r));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtSnapShotProcessUnlock(pid, NULL));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		  aclrtSnapShotCallbackRegister(ACL_RT_SNAPSHOT_LOCK_PRE, snap_cb, NULL));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		  aclrtSnapShotCallbackUnregister(ACL_RT_SNAPSHOT_LOCK_PRE, snap_cb));
	EXPECT_MSG("snapshot");
}

TEST_HARNESS_MAIN
