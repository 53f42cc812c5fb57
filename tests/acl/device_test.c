// SPDX-License-Identifier: MIT
/*
 * Devices and contexts: counting, reference-counted set/reset, the default
 * context and stream, explicit contexts, per-thread current context,
 * device attributes and status.
 */
#include "acl_test.h"
#include "kselftest_harness.h"

FIXTURE(acl) {
	uint32_t ndev;
};

FIXTURE_SETUP(acl)
{
	ASSERT_TRUE(acl_ok_init());
	ASSERT_EQ(ACL_SUCCESS, aclrtGetDeviceCount(&self->ndev));
	ASSERT_GE(self->ndev, 1);
}

FIXTURE_TEARDOWN(acl)
{
	aclFinalize();
}

TEST_F(acl, device_count)
{
	uint32_t n = 0;
	const char *want = getenv("ACL_EXPECT_CARDS");

	EXPECT_EQ(ACL_SUCCESS, aclrtGetDeviceCount(&n));
	EXPECT_EQ(self->ndev, n);
	if (want)
		EXPECT_EQ((uint32_t)atoi(want), n);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetDeviceCount(NULL));
	TH_LOG("%u device(s)", n);
}

TEST_F(acl, set_device_errors)
{
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDevice(-1));
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDevice((int32_t)self->ndev));
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtResetDevice(1000));
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtResetDeviceForce(-5));
}

TEST_F(acl, get_device_without_context)
{
	int32_t dev;
	aclrtContext ctx;
	aclrtStream s;

	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetDevice(&dev));
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetCurrentContext(&ctx));
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtCreateStream(&s));
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtCtxGetCurrentDefaultStream(&s));
	EXPECT_NE(NULL, aclGetRecentErrMsg());
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetDevice(NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtCtxGetCurrentDefaultStream(NULL));
}

TEST_F(acl, set_reset_refcount)
{
	aclrtStream def;
	void *p;
	int32_t dev = -1;

	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetDevice(&dev));
	EXPECT_EQ(0, dev);
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&p, 1024, ACL_MEM_MALLOC_HUGE_FIRST));
	/* one reset: still set, memory still valid */
	ASSERT_EQ(ACL_SUCCESS, aclrtResetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtCtxGetCurrentDefaultStream(&def));
	EXPECT_EQ(ACL_SUCCESS, aclrtMemset(p, 1024, 7, 1024));
	/* the last reset frees it all */
	ASSERT_EQ(ACL_SUCCESS, aclrtResetDevice(0));
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetDevice(&dev));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtFree(p));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtSynchronizeStream(def));
	/* and it comes back */
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtResetDevice(0));
}

TEST_F(acl, reset_force)
{
	int32_t dev;

	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtResetDeviceForce(0));
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetDevice(&dev));
	/* resetting an unset device is harmless */
	EXPECT_EQ(ACL_SUCCESS, aclrtResetDevice(0));
}

TEST_F(acl, default_context_and_stream)
{
	aclrtContext ctx, ctx2;
	aclrtStream def, def2;

	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetCurrentContext(&ctx));
	ASSERT_EQ(ACL_SUCCESS, aclrtCtxGetCurrentDefaultStream(&def));
	EXPECT_NE(NULL, def);
	/* the default context cannot be destroyed, nor its stream */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtDestroyContext(ctx));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtDestroyStream(def));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtDestroyStream(NULL));
	/* a second SetDevice gives the same default context */
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetCurrentContext(&ctx2));
	ASSERT_EQ(ACL_SUCCESS, aclrtCtxGetCurrentDefaultStream(&def2));
	EXPECT_EQ(ctx, ctx2);
	EXPECT_EQ(def, def2);
	/* NULL stream = this default stream */
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(NULL));
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(def));
	aclrtResetDevice(0);
	aclrtResetDevice(0);
}

TEST_F(acl, explicit_contexts)
{
	aclrtContext def, c1, c2, cur;
	aclrtStream s1, d1, d2;
	int32_t dev;

	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetCurrentContext(&def));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateContext(&c1, 0));
	/* creation makes it current, with its own default stream */
	ASSERT_EQ(ACL_SUCCESS, aclrtGetCurrentContext(&cur));
	EXPECT_EQ(c1, cur);
	ASSERT_EQ(ACL_SUCCESS, aclrtCtxGetCurrentDefaultStream(&d1));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateContext(&c2, 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtCtxGetCurrentDefaultStream(&d2));
	EXPECT_NE(d1, d2);
	EXPECT_NE(c1, c2);
	ASSERT_EQ(ACL_SUCCESS, aclrtSetCurrentContext(c1));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetCurrentContext(&cur));
	EXPECT_EQ(c1, cur);
	ASSERT_EQ(ACL_SUCCESS, aclrtGetDevice(&dev));
	EXPECT_EQ(0, dev);
	/* destroying c1 takes its streams with it */
	ASSERT_EQ(ACL_SUCCESS, aclrtDestroyContext(c1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtSynchronizeStream(s1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetCurrentContext(c1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtDestroyContext(c1));
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetCurrentContext(&cur));
	ASSERT_EQ(ACL_SUCCESS, aclrtDestroyContext(c2));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetCurrentContext(def));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtDestroyContext(NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetCurrentContext(NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetCurrentContext((aclrtContext)0x1234));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtCreateContext(NULL, 0));
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtCreateContext(&c1, 99));
	aclrtResetDevice(0);
}

TEST_F(acl, context_without_set_device)
{
	aclrtContext c;
	aclrtStream s;

	/* an explicit context holds the device by itself */
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateContext(&c, 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(s));
	ASSERT_EQ(ACL_SUCCESS, aclrtDestroyContext(c));
}

struct thread_arg {
	aclrtContext ctx;
	aclError r1, r2;
	aclrtContext seen;
	int32_t dev;
};

static void *thread_ctx(void *p)
{
	struct thread_arg *a = p;
	aclrtContext c;

	/* a new thread has no context until it sets one */
	a->r1 = aclrtGetCurrentContext(&c);
	a->r2 = aclrtSetCurrentContext(a->ctx);
	aclrtGetCurrentContext(&a->seen);
	aclrtGetDevice(&a->dev);
	return NULL;
}

TEST_F(acl, current_context_is_per_thread)
{
	struct thread_arg a = { 0 };
	pthread_t th;
	int32_t last = (int32_t)self->ndev - 1;

	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(last));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetCurrentContext(&a.ctx));
	ASSERT_EQ(0, pthread_create(&th, NULL, thread_ctx, &a));
	pthread_join(th, NULL);
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, a.r1);
	EXPECT_EQ(ACL_SUCCESS, a.r2);
	EXPECT_EQ(a.ctx, a.seen);
	EXPECT_EQ(last, a.dev);
	aclrtResetDevice(last);
}

TEST_F(acl, two_devices)
{
	aclrtContext c0, c1;
	int32_t dev;
	void *p0, *p1;
	char h[64] = "hello, card one";
	char back[64] = { 0 };

	if (self->ndev < 2)
		SKIP(return, "one device only");
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetCurrentContext(&c0));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&p0, 64, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(1));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetCurrentContext(&c1));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetDevice(&dev));
	EXPECT_EQ(1, dev);
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&p1, 64, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(p1, 64, h, 64, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(back, 64, p1, 64, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_STREQ(h, back);
	/* switching contexts switches devices */
	ASSERT_EQ(ACL_SUCCESS, aclrtSetCurrentContext(c0));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetDevice(&dev));
	EXPECT_EQ(0, dev);
	EXPECT_EQ(ACL_SUCCESS, aclrtFree(p0));
	EXPECT_EQ(ACL_SUCCESS, aclrtFree(p1));	/* found on its own device */
	aclrtResetDevice(1);
	aclrtResetDevice(0);
}

TEST_F(acl, run_mode_and_info)
{
	aclrtRunMode mode;
	int64_t v = 0;
	int32_t least, greatest;
	aclrtDeviceStatus st;

	EXPECT_EQ(ACL_SUCCESS, aclrtGetRunMode(&mode));
	EXPECT_EQ(ACL_HOST, mode);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetRunMode(NULL));
	EXPECT_EQ(ACL_SUCCESS, aclrtGetDeviceInfo(0, ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, &v));
	EXPECT_GT(v, 1 << 20);
	EXPECT_EQ(ACL_SUCCESS, aclrtGetDeviceInfo(0, ACL_DEV_ATTR_DEVICE_FORM_FACTOR, &v));
	EXPECT_EQ(ACL_DEVICE_FORM_FACTOR_PCIE_CARD, v);
	EXPECT_EQ(ACL_SUCCESS, aclrtGetDeviceInfo(0, ACL_DEV_ATTR_HD_CONNECT_TYPE, &v));
	EXPECT_EQ(ACL_HOST_DEVICE_CONNECT_TYPE_PCIE, v);
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		  aclrtGetDeviceInfo(0, ACL_DEV_ATTR_WARP_SIZE, &v));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetDeviceInfo(0, (aclrtDevAttr)12345, &v));
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID,
		  aclrtGetDeviceInfo(99, ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, &v));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclrtGetDeviceInfo(0, ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, NULL));
	EXPECT_EQ(ACL_SUCCESS, aclrtDeviceGetStreamPriorityRange(&least, &greatest));
	EXPECT_EQ(7, least);
	EXPECT_EQ(0, greatest);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtDeviceGetStreamPriorityRange(NULL, &greatest));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtDeviceGetStreamPriorityRange(&least, NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtDeviceGetStreamPriorityRange(NULL, NULL));
	EXPECT_EQ(ACL_SUCCESS, aclrtQueryDeviceStatus(0, &st));
	EXPECT_EQ(ACL_RT_DEVICE_STATUS_NORMAL, st);
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtQueryDeviceStatus(77, &st));
	EXPECT_EQ(ACL_SUCCESS, aclrtSetTsDevice(ACL_TS_ID_AICORE));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetTsDevice((aclrtTsId)9));
}

TEST_F(acl, pci_and_uuid)
{
	char bdf[64];
	int32_t dev = -1;
	aclrtUuid u0, u1;

	ASSERT_EQ(ACL_SUCCESS, aclrtDeviceGetPCIBusId(0, bdf, sizeof(bdf)));
	TH_LOG("device 0 is %s", bdf);
	ASSERT_EQ(ACL_SUCCESS, aclrtDeviceGetByPCIBusId(bdf, &dev));
	EXPECT_EQ(0, dev);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtDeviceGetPCIBusId(0, bdf, 4));
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceGetByPCIBusId("ffff:ff:1f.7", &dev));
	ASSERT_EQ(ACL_SUCCESS, aclrtDeviceGetUuid(0, &u0));
	ASSERT_EQ(ACL_SUCCESS, aclrtDeviceGetUuid(0, &u1));
	EXPECT_EQ(0, memcmp(&u0, &u1, sizeof(u0)));
	if (self->ndev > 1) {
		ASSERT_EQ(ACL_SUCCESS, aclrtDeviceGetUuid(1, &u1));
		EXPECT_NE(0, memcmp(&u0, &u1, sizeof(u0)));
	}
}

TEST_F(acl, peer_access)
{
	int32_t can = -1;

	if (self->ndev < 2)
		SKIP(return, "one device only");
	/* what it answers, and enabling, are peer_access_test's */
	EXPECT_EQ(ACL_SUCCESS, aclrtDeviceCanAccessPeer(&can, 0, 1));
	EXPECT_TRUE(can == 0 || can == 1);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtDeviceCanAccessPeer(&can, 0, 0));
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceCanAccessPeer(&can, 0, 9));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtDeviceEnablePeerAccess(1, 1));
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceEnablePeerAccess(0, 0));
	/* never enabled */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtDeviceDisablePeerAccess(1));
	aclrtResetDevice(0);
}

TEST_F(acl, synchronize_device)
{
	aclrtStream s[4];
	void *p[4];
	size_t n = 1 << 20;
	aclrtStreamStatus st;

	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	for (int i = 0; i < 4; i++) {
		ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s[i]));
		ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&p[i], n, ACL_MEM_MALLOC_HUGE_FIRST));
		ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(p[i], n, i, n, s[i]));
	}
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeDevice());
	for (int i = 0; i < 4; i++) {
		ASSERT_EQ(ACL_SUCCESS, aclrtStreamQuery(s[i], &st));
		EXPECT_EQ(ACL_STREAM_STATUS_COMPLETE, st);
	}
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeDeviceWithTimeout(1000));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtSynchronizeDeviceWithTimeout(-7));
	aclrtResetDevice(0);
}

TEST_F(acl, synchronize_device_timeout)
{
	struct gate g;
	aclrtStream s;

	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, gate_init(&g));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&g, s));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeDeviceWithTimeout(50));
	ASSERT_EQ(ACL_SUCCESS, gate_open(&g));
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeDevice());
	gate_fini(&g);
	aclrtResetDevice(0);
}

TEST_HARNESS_MAIN
