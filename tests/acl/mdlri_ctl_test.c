// SPDX-License-Identifier: MIT
/*
 * Controlling a captured model from outside: aclmdlRIAbort, the destroy
 * callbacks, and its tasks queried, changed and disabled.
 */
#include <stdatomic.h>

#include "acl_test.h"
#include "kselftest_harness.h"

#define BYTES 4096

FIXTURE(ri) {
	aclrtStream s;
	void *d, *word;
	aclmdlRI m;
};

/* The model: wait for the word to be set, then fill d with 0x5a. */
FIXTURE_SETUP(ri)
{
	ASSERT_TRUE(acl_ok_init());
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&self->d, BYTES, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&self->word, 64, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(self->word, 64, 0, 64));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(self->d, BYTES, 0x11, BYTES));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(self->s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_EQ(ACL_SUCCESS, aclrtValueWait(self->word, 1, ACL_STREAM_WAIT_VALUE_GEQ, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->d, BYTES, 0x5a, BYTES, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureEnd(self->s, &self->m));
}

FIXTURE_TEARDOWN(ri)
{
	aclmdlRIDestroy(self->m);
	aclrtFree(self->word);
	aclrtFree(self->d);
	aclrtDestroyStream(self->s);
	aclrtResetDevice(0);
	aclFinalize();
}

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

/* A replay held at its wait is dropped; the model runs again afterwards. */
TEST_F(ri, abort_drops_a_running_replay)
{
	uint64_t one = 1;

	/* nothing runs: nothing to stop */
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIAbort(self->m));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(self->m, self->s));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(self->s, 50));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIAbort(self->m));
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	EXPECT_EQ(0, bytes_not(self->d, 0x11));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(self->word, 8, &one, 8, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(self->m, self->s));
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	EXPECT_EQ(0, bytes_not(self->d, 0x5a));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIAbort(NULL));
}

/* Host functions run on the runtime's callback thread. */
static void count_call(void *arg)
{
	atomic_fetch_add((atomic_int *)arg, 1);
}

static void other_call(void *arg)
{
	(*(int *)arg) += 100;
}

TEST_F(ri, destroy_callbacks)
{
	atomic_int calls = 0;
	int other = 0;

	ASSERT_EQ(ACL_SUCCESS, aclmdlRIDestroyRegisterCallback(self->m, count_call, &calls));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIDestroyRegisterCallback(self->m, count_call, &calls));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIDestroyRegisterCallback(self->m, other_call, &other));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroyUnregisterCallback(self->m, other_call));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIDestroyUnregisterCallback(self->m, other_call));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIDestroyRegisterCallback(self->m, NULL, NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIDestroyRegisterCallback(NULL, count_call, NULL));
	EXPECT_EQ(0, atomic_load(&calls));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIDestroy(self->m));
	EXPECT_EQ(2, atomic_load(&calls));
	EXPECT_EQ(0, other);
	/* the handle is gone */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIDestroyRegisterCallback(self->m, count_call,
									    &calls));
	self->m = NULL;
}

/* The stream's tasks: the wait, then the fill's card commands. */
TEST_F(ri, tasks_query_set_disable_update)
{
	aclmdlRITaskParams p;
	aclmdlRITaskType type;
	aclmdlRITask tasks[16];
	uint32_t n = 0, i, id;

	ASSERT_EQ(ACL_SUCCESS, aclmdlRIGetTasksByStream(self->s, NULL, &n));
	ASSERT_GE(n, 2u);
	ASSERT_LE(n, 16u);
	i = n - 1;
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIGetTasksByStream(self->s, tasks, &i));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIGetTasksByStream(self->s, tasks, &n));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRITaskGetType(tasks[0], &type));
	EXPECT_EQ(ACL_MODEL_RI_TASK_VALUE_WAIT, type);
	ASSERT_EQ(ACL_SUCCESS, aclmdlRITaskGetSeqId(tasks[1], &id));
	EXPECT_EQ(1u, id);
	ASSERT_EQ(ACL_SUCCESS, aclmdlRITaskGetParams(tasks[0], &p));
	EXPECT_EQ(ACL_MODEL_RI_TASK_VALUE_WAIT, p.type);
	EXPECT_EQ(self->word, p.valueWaitTaskParams.devAddr);
	EXPECT_EQ(1u, p.valueWaitTaskParams.value);
	EXPECT_EQ((uint32_t)ACL_STREAM_WAIT_VALUE_GEQ, p.valueWaitTaskParams.flag);
	/* the wait now passes at once (word 0 >= 0); the fill is gone */
	p.valueWaitTaskParams.value = 0;
	ASSERT_EQ(ACL_SUCCESS, aclmdlRITaskSetParams(tasks[0], &p));
	for (i = 1; i < n; i++) {
		ASSERT_EQ(ACL_SUCCESS, aclmdlRITaskGetType(tasks[i], &type));
		EXPECT_EQ(ACL_MODEL_RI_TASK_DEFAULT, type);
		ASSERT_EQ(ACL_SUCCESS, aclmdlRITaskGetParams(tasks[i], &p));
		EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRITaskSetParams(tasks[i], &p));
		ASSERT_EQ(ACL_SUCCESS, aclmdlRITaskDisable(tasks[i]));
	}
	p.type = ACL_MODEL_RI_TASK_VALUE_WRITE;
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRITaskSetParams(tasks[0], &p));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIUpdate(self->m));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(self->m, self->s));
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	EXPECT_EQ(0, bytes_not(self->d, 0x11));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRITaskGetType(NULL, &type));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIGetTasksByStream(self->s, tasks, NULL));
}

/*
 * A model of a host function, an event record and a fill: with the first
 * two disabled, a replay fills and does neither (the event stays never
 * recorded). The disable takes effect at aclmdlRIUpdate for a model that
 * already ran.
 */
TEST_F(ri, disabled_event_and_host_tasks_are_skipped)
{
	aclmdlRITask tasks[16];
	aclmdlRITaskType type;
	aclrtEventRecordedStatus st;
	aclrtStream s2;
	aclrtEvent e;
	aclmdlRI m;
	uint32_t n = 16;
	atomic_int calls = 0;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&e));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(s2, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_EQ(ACL_SUCCESS, aclrtLaunchHostFunc(s2, count_call, &calls));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(e, s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->d, BYTES, 0x5a, BYTES, s2));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureEnd(s2, &m));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIGetTasksByStream(s2, tasks, &n));
	ASSERT_GE(n, 3u);
	ASSERT_EQ(ACL_SUCCESS, aclmdlRITaskGetType(tasks[1], &type));
	EXPECT_EQ(ACL_MODEL_RI_TASK_EVENT_RECORD, type);
	ASSERT_EQ(ACL_SUCCESS, aclmdlRITaskDisable(tasks[0]));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRITaskDisable(tasks[1]));
	/* never replayed: the first replay takes the disable */
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(m, s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(s2));
	EXPECT_EQ(0, atomic_load(&calls));
	ASSERT_EQ(ACL_SUCCESS, aclrtQueryEventStatus(e, &st));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, st);
	EXPECT_EQ(0, bytes_not(self->d, 0x5a));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroy(m));

	/* a model that ran keeps calling until aclmdlRIUpdate */
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(s2, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_EQ(ACL_SUCCESS, aclrtLaunchHostFunc(s2, count_call, &calls));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureEnd(s2, &m));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(m, s2));
	n = 16;
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIGetTasksByStream(s2, tasks, &n));
	ASSERT_EQ(1u, n);
	ASSERT_EQ(ACL_SUCCESS, aclmdlRITaskDisable(tasks[0]));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(m, s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(s2));
	EXPECT_EQ(2, atomic_load(&calls));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIUpdate(m));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(m, s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(s2));
	EXPECT_EQ(2, atomic_load(&calls));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroy(m));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyEvent(e));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyStream(s2));
}

TEST_HARNESS_MAIN
