// SPDX-License-Identifier: MIT
/*
 * Streams: creation with and without configuration, destruction (waiting
 * and forced), query, synchronization with timeouts, attributes, ring
 * exhaustion, abort.
 */
#include "acl_test.h"
#include "kselftest_harness.h"

ACL_DEVICE0_FIXTURE(dev)

TEST_F(dev, create_destroy)
{
	aclrtStream s;
	uint32_t prio = 99, flags = 99;
	int32_t id1 = -1, id2 = -1;
	aclrtStream s2;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	EXPECT_NE(NULL, s);
	EXPECT_EQ(ACL_SUCCESS, aclrtStreamGetPriority(s, &prio));
	EXPECT_EQ(0, prio);
	EXPECT_EQ(ACL_SUCCESS, aclrtStreamGetFlags(s, &flags));
	EXPECT_EQ(0, flags);
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStreamWithConfig(&s2, 5, ACL_STREAM_FAST_LAUNCH));
	EXPECT_EQ(ACL_SUCCESS, aclrtStreamGetPriority(s2, &prio));
	EXPECT_EQ(5, prio);
	EXPECT_EQ(ACL_SUCCESS, aclrtStreamGetFlags(s2, &flags));
	EXPECT_EQ(ACL_STREAM_FAST_LAUNCH, flags);
	EXPECT_EQ(ACL_SUCCESS, aclrtStreamGetId(s, &id1));
	EXPECT_EQ(ACL_SUCCESS, aclrtStreamGetId(s2, &id2));
	EXPECT_NE(id1, id2);
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyStream(s2));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyStream(s));
	/* stale handles */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtDestroyStream(s));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtSynchronizeStream(s));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtStreamGetPriority(s, &prio));
}

TEST_F(dev, create_errors)
{
	aclrtStream s;

	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtCreateStream(NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtCreateStreamWithConfig(&s, 8, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtCreateStreamWithConfig(&s, 0, 0x80000000u));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtCreateStreamWithConfig(NULL, 0, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtSynchronizeStream((aclrtStream)0xdeadbeef));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtStreamGetId(NULL, NULL));
}

TEST_F(dev, attribute_errors)
{
	uint32_t flags = 99;
	aclrtStream s, def = NULL;

	/* NULL means the default stream, and so does its handle */
	EXPECT_EQ(ACL_SUCCESS, aclrtStreamGetFlags(NULL, &flags));
	EXPECT_EQ(0, flags);
	ASSERT_EQ(ACL_SUCCESS, aclrtCtxGetCurrentDefaultStream(&def));
	EXPECT_NE(NULL, def);
	flags = 99;
	EXPECT_EQ(ACL_SUCCESS, aclrtStreamGetFlags(def, &flags));
	EXPECT_EQ(0, flags);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtCtxGetCurrentDefaultStream(NULL));
	/* no output, invented and stale handles */
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStreamWithConfig(&s, 3, ACL_STREAM_FAST_SYNC));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtStreamGetFlags(s, NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtStreamGetFlags(NULL, NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtStreamGetFlags((aclrtStream)0x1234, &flags));
	EXPECT_NE(NULL, aclGetRecentErrMsg());
	EXPECT_EQ(ACL_SUCCESS, aclrtStreamGetFlags(s, &flags));
	EXPECT_EQ(ACL_STREAM_FAST_SYNC, flags);
	ASSERT_EQ(ACL_SUCCESS, aclrtDestroyStream(s));
	flags = 99;
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtStreamGetFlags(s, &flags));
	EXPECT_EQ(99, flags);
	/* without a current context */
	ASSERT_EQ(ACL_SUCCESS, aclrtResetDevice(0));
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtStreamGetFlags(NULL, &flags));
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtCtxGetCurrentDefaultStream(&def));
	/* a default stream's handle dies with its context */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtStreamGetFlags(def, &flags));
}

TEST_F(dev, query_and_sync)
{
	struct gate g;
	aclrtStream s;
	aclrtStreamStatus st;
	void *p;

	ASSERT_EQ(ACL_SUCCESS, gate_init(&g));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamQuery(s, &st));
	EXPECT_EQ(ACL_STREAM_STATUS_COMPLETE, st);
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&g, s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(p, 4096, 1, 4096, s));
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamQuery(s, &st));
	EXPECT_EQ(ACL_STREAM_STATUS_NOT_READY, st);
	EXPECT_EQ(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(s, 30));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(s, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtSynchronizeStreamWithTimeout(s, -2));
	ASSERT_EQ(ACL_SUCCESS, gate_open(&g));
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeStreamWithTimeout(s, -1));
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamQuery(s, &st));
	EXPECT_EQ(ACL_STREAM_STATUS_COMPLETE, st);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtStreamQuery(s, NULL));
	aclrtFree(p);
	aclrtDestroyStream(s);
	gate_fini(&g);
}

TEST_F(dev, in_order_execution)
{
	size_t n = 256 << 10;
	uint8_t *host;
	aclrtStream s;
	void *a, *b;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&host, n));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&a, n, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&b, n, ACL_MEM_MALLOC_HUGE_FIRST));
	/* a chain where every step depends on the previous one */
	for (int i = 0; i < 20; i++) {
		ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(a, n, i, n, s));
		ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(b, n, a, n, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	}
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(host, n, b, n, ACL_MEMCPY_DEVICE_TO_HOST, s));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(s));
	for (size_t i = 0; i < n; i++)
		ASSERT_EQ(19, host[i]);
	aclrtFree(a);
	aclrtFree(b);
	aclrtFreeHost(host);
	aclrtDestroyStream(s);
}

TEST_F(dev, destroy_waits_for_work)
{
	size_t n = 8 << 20;
	aclrtStream s;
	uint8_t *host;
	void *p;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&host, n));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&p, n, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(p, n, 0x33, n, s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(host, n, p, n, ACL_MEMCPY_DEVICE_TO_HOST, s));
	ASSERT_EQ(ACL_SUCCESS, aclrtDestroyStream(s));
	/* destroy returned after the copy completed */
	EXPECT_EQ(0x33, host[0]);
	EXPECT_EQ(0x33, host[n - 1]);
	aclrtFree(p);
	aclrtFreeHost(host);
}

TEST_F(dev, destroy_force_does_not_wait)
{
	struct gate g;
	aclrtStream s;
	double t0;

	ASSERT_EQ(ACL_SUCCESS, gate_init(&g));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&g, s));
	t0 = now_ms();
	ASSERT_EQ(ACL_SUCCESS, aclrtDestroyStreamForce(s));
	EXPECT_LT(now_ms() - t0, 2000);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtDestroyStreamForce(s));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtDestroyStreamForce(NULL));
	gate_fini(&g);
}

TEST_F(dev, rings_run_out)
{
	aclrtStream s[128];
	uint32_t avail = 0, avail2 = 0;
	int n = 0;
	aclError r = ACL_SUCCESS;

	ASSERT_EQ(ACL_SUCCESS, aclrtGetStreamAvailableNum(&avail));
	TH_LOG("%u rings free", avail);
	while (n < 128 && (r = aclrtCreateStream(&s[n])) == ACL_SUCCESS)
		n++;
	EXPECT_EQ(ACL_ERROR_RT_NO_STREAM_RESOURCE, r);
	EXPECT_NE(NULL, aclGetRecentErrMsg());
	EXPECT_EQ((int)avail, n);
	ASSERT_EQ(ACL_SUCCESS, aclrtGetStreamAvailableNum(&avail2));
	EXPECT_EQ(0, avail2);
	while (n > 0)
		ASSERT_EQ(ACL_SUCCESS, aclrtDestroyStream(s[--n]));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetStreamAvailableNum(&avail2));
	EXPECT_EQ(avail, avail2);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetStreamAvailableNum(NULL));
}

TEST_F(dev, failure_mode_arguments)
{
	aclrtStream s;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	EXPECT_EQ(ACL_SUCCESS, aclrtSetStreamFailureMode(s, ACL_STOP_ON_FAILURE));
	EXPECT_EQ(ACL_SUCCESS, aclrtSetStreamFailureMode(s, ACL_CONTINUE_ON_FAILURE));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetStreamFailureMode(s, 2));
	EXPECT_EQ(ACL_SUCCESS, aclrtSetStreamFailureMode(NULL, ACL_CONTINUE_ON_FAILURE));
	aclrtDestroyStream(s);
}

TEST_F(dev, abort_drops_queued_work)
{
	struct gate g;
	aclrtStream s;
	uint8_t *host;
	void *p;
	size_t n = 4096;

	ASSERT_EQ(ACL_SUCCESS, gate_init(&g));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&host, n));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&p, n, ACL_MEM_MALLOC_HUGE_FIRST));
	memset(host, 0, n);
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&g, s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(host, n, 0x77, n, s));
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamAbort(s));
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(s));
	EXPECT_EQ(0, host[0]);	/* never ran */
	/* the stream works after the abort */
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(host, n, 0x55, n, s));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(s));
	EXPECT_EQ(0x55, host[n - 1]);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtStreamAbort(NULL));
	aclrtFree(p);
	aclrtFreeHost(host);
	aclrtDestroyStream(s);
	gate_fini(&g);
}

TEST_F(dev, streams_run_concurrently)
{
	struct gate g;
	aclrtStream blocked, free_s;
	aclrtStreamStatus st;
	void *p;

	/* a stream stalled on the card does not hold another back */
	ASSERT_EQ(ACL_SUCCESS, gate_init(&g));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&blocked));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&free_s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&p, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&g, blocked));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(p, 1 << 20, 3, 1 << 20, free_s));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStreamWithTimeout(free_s, 5000));
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamQuery(blocked, &st));
	EXPECT_EQ(ACL_STREAM_STATUS_NOT_READY, st);
	ASSERT_EQ(ACL_SUCCESS, gate_open(&g));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(blocked));
	aclrtFree(p);
	aclrtDestroyStream(blocked);
	aclrtDestroyStream(free_s);
	gate_fini(&g);
}

TEST_HARNESS_MAIN
