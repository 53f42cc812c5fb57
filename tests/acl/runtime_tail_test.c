// SPDX-License-Identifier: MIT
/*
 * The runtime's long tail: versions, compatibility and capabilities,
 * resource limits, utilization, stream configuration, attributes,
 * stopping and state callbacks, timeouts, host-function subscription,
 * task ids and exception information (with the card's fault injection).
 */
#include "acl_test.h"
#include "kselftest_harness.h"

#include <sys/syscall.h>

ACL_DEVICE0_FIXTURE(dev)

/* The message of the thread's last failure contains want. */
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

static int32_t version_num(int major, int minor, int patch)
{
	return major * 1000000 + minor * 1000 + patch;
}

TEST_F(dev, versions)
{
	char str[ACL_PKG_VERSION_MAX_SIZE], want[64];
	const char *pkgs[] = { "driver", "firmware" };
	int32_t num;
	int major, minor, patch;

	snprintf(want, sizeof(want), "%d.%d.%d", ACL_MAJOR_VERSION, ACL_MINOR_VERSION,
		 ACL_PATCH_VERSION);
	ASSERT_EQ(ACL_SUCCESS, aclsysGetVersionStr((char *)"runtime", str));
	EXPECT_STREQ(want, str);
	ASSERT_EQ(ACL_SUCCESS, aclsysGetVersionStr((char *)"cann", str));
	EXPECT_STREQ(want, str);
	ASSERT_EQ(ACL_SUCCESS, aclsysGetVersionNum((char *)"runtime", &num));
	EXPECT_EQ(version_num(ACL_MAJOR_VERSION, ACL_MINOR_VERSION, ACL_PATCH_VERSION), num);
	/* The driver's and the card's: the number says what the string says. */
	for (size_t i = 0; i < sizeof(pkgs) / sizeof(pkgs[0]); i++) {
		ASSERT_EQ(ACL_SUCCESS, aclsysGetVersionStr((char *)pkgs[i], str));
		ASSERT_EQ(3, sscanf(str, "%d.%d.%d", &major, &minor, &patch)) {
			TH_LOG("%s: %s", pkgs[i], str);
		}
		ASSERT_EQ(ACL_SUCCESS, aclsysGetVersionNum((char *)pkgs[i], &num));
		EXPECT_EQ(version_num(major, minor, patch), num);
	}
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclsysGetVersionStr((char *)"opp", str));
	EXPECT_MSG("opp");
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclsysGetVersionNum(NULL, &num));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclsysGetVersionStr((char *)"runtime", NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclsysGetVersionNum((char *)"runtime", NULL));
}

TEST_F(dev, arch_compatibility_and_capabilities)
{
	int32_t v = -1;

	ASSERT_NE(NULL, aclrtGetSocName());
	ASSERT_EQ(ACL_SUCCESS, aclrtCheckArchCompatibility(aclrtGetSocName(), &v));
	EXPECT_EQ(1, v);
	ASSERT_EQ(ACL_SUCCESS, aclrtCheckArchCompatibility("Ascend910B1", &v));
	EXPECT_EQ(0, v);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtCheckArchCompatibility(NULL, &v));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtCheckArchCompatibility("x", NULL));

	v = -1;
	ASSERT_EQ(ACL_SUCCESS, aclrtGetDeviceCapability(0, ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV,
							&v));
	EXPECT_EQ(ACL_DEV_FEATURE_NOT_SUPPORT, v);
	v = -1;
	ASSERT_EQ(ACL_SUCCESS, aclrtGetDeviceCapability(0, ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, &v));
	EXPECT_EQ(ACL_DEV_FEATURE_NOT_SUPPORT, v);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetDeviceCapability(0, (aclrtDevFeatureType)99, &v));
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID,
		  aclrtGetDeviceCapability(99, ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, &v));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclrtGetDeviceCapability(0, ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, NULL));
}

static uint32_t compute_engines(void)
{
	char bdf[64];

	if (dev_bdf(0, bdf, sizeof(bdf)))
		return 0;
	return (uint32_t)test_card_attr(bdf, "num_compute_engines");
}

TEST_F(dev, device_resource_limits)
{
	uint32_t engines = compute_engines(), v = 0;

	if (!engines)
		SKIP(return, "the card has no compute engines");
	/* The cores aclrtGetDeviceInfo counts. */
	{
		int64_t cores = -1;

		ASSERT_EQ(ACL_SUCCESS, aclrtGetDeviceInfo(0, ACL_DEV_ATTR_VECTOR_CORE_NUM, &cores));
		EXPECT_EQ(engines, cores);
		ASSERT_EQ(ACL_SUCCESS, aclrtGetDeviceInfo(0, ACL_DEV_ATTR_CUBE_CORE_NUM, &cores));
		EXPECT_EQ(engines, cores);
		ASSERT_EQ(ACL_SUCCESS, aclGetDeviceCapability(0, ACL_DEVICE_INFO_VECTOR_CORE_NUM, &cores));
		EXPECT_EQ(engines, cores);
	}
	/* Unset: the hardware's, for both types. */
	ASSERT_EQ(ACL_SUCCESS, aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, &v));
	EXPECT_EQ(engines, v);
	ASSERT_EQ(ACL_SUCCESS, aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &v));
	EXPECT_EQ(engines, v);
	ASSERT_EQ(ACL_SUCCESS, aclrtGetResInCurrentThread(ACL_RT_DEV_RES_VECTOR_CORE, &v));
	EXPECT_EQ(engines, v);

	/* Fewer than the card has cannot be enforced: refused, nothing changes. */
	if (engines > 1) {
		EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
			  aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, engines - 1));
		EXPECT_MSG("compute engines");
		ASSERT_EQ(ACL_SUCCESS, aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, &v));
		EXPECT_EQ(engines, v);
	}
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetDeviceResLimit(0, (aclrtDevResLimitType)2, engines));
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID,
		  aclrtSetDeviceResLimit(99, ACL_RT_DEV_RES_VECTOR_CORE, engines));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, NULL));

	/* At or above it, the limit holds by itself and is kept, per type. */
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, engines + 2));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, &v));
	EXPECT_EQ(engines + 2, v);
	ASSERT_EQ(ACL_SUCCESS, aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &v));
	EXPECT_EQ(engines, v);
	ASSERT_EQ(ACL_SUCCESS, aclrtGetResInCurrentThread(ACL_RT_DEV_RES_VECTOR_CORE, &v));
	EXPECT_EQ(engines + 2, v);
	ASSERT_EQ(ACL_SUCCESS, aclrtResetDeviceResLimit(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, &v));
	EXPECT_EQ(engines, v);
}

TEST_F(dev, stream_resource_limits)
{
	uint32_t engines = compute_engines(), v = 0;
	aclrtStream s;

	if (!engines)
		SKIP(return, "the card has no compute engines");
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v));
	EXPECT_EQ(engines, v);
	if (engines > 1)
		EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
			  aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, 1));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, engines + 1));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, engines + 5));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v));
	EXPECT_EQ(engines + 5, v);

	/* The thread sees the stream's limit only while it uses the stream's. */
	ASSERT_EQ(ACL_SUCCESS, aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
	EXPECT_EQ(engines + 1, v);
	ASSERT_EQ(ACL_SUCCESS, aclrtUseStreamResInCurrentThread(s));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
	EXPECT_EQ(engines + 5, v);
	/* A type the stream does not limit: the process's. */
	ASSERT_EQ(ACL_SUCCESS, aclrtGetResInCurrentThread(ACL_RT_DEV_RES_VECTOR_CORE, &v));
	EXPECT_EQ(engines, v);
	ASSERT_EQ(ACL_SUCCESS, aclrtUnuseStreamResInCurrentThread(s));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtUnuseStreamResInCurrentThread(s));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
	EXPECT_EQ(engines + 1, v);

	/* A destroyed stream's limits are gone with it. */
	ASSERT_EQ(ACL_SUCCESS, aclrtUseStreamResInCurrentThread(s));
	ASSERT_EQ(ACL_SUCCESS, aclrtDestroyStream(s));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
	EXPECT_EQ(engines + 1, v);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, 9));

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_VECTOR_CORE, engines + 3));
	ASSERT_EQ(ACL_SUCCESS, aclrtResetStreamResLimit(s));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_VECTOR_CORE, &v));
	EXPECT_EQ(engines, v);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, NULL));
	aclrtDestroyStream(s);
	aclrtResetDeviceResLimit(0);
}

TEST_F(dev, utilization)
{
	aclrtUtilizationInfo u0, u1;
	int64_t total;
	void *p;

	memset(&u0, 0x5a, sizeof(u0));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetDeviceUtilizationRate(0, &u0));
	EXPECT_EQ(-1, u0.aicpuUtilization);
	EXPECT_GE(u0.memoryUtilization, 0);
	EXPECT_LE(u0.memoryUtilization, 100);
	/* No operator ran since the last question. */
	ASSERT_EQ(ACL_SUCCESS, aclrtGetDeviceUtilizationRate(0, &u1));
	if (compute_engines()) {
		EXPECT_EQ(0, u1.cubeUtilization);
		EXPECT_EQ(0, u1.vectorUtilization);
	} else {
		EXPECT_EQ(-1, u1.vectorUtilization);
	}
	/* A quarter of the card's memory more is a quarter more in use. */
	ASSERT_EQ(ACL_SUCCESS, aclrtGetDeviceInfo(0, ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, &total));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&p, (size_t)total / 4, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetDeviceUtilizationRate(0, &u1));
	EXPECT_GE(u1.memoryUtilization, u0.memoryUtilization + 25);
	aclrtFree(p);

	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetDeviceUtilizationRate(0, NULL));
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetDeviceUtilizationRate(99, &u1));
}

TEST_F(dev, stream_from_a_config_handle)
{
	aclrtStreamConfigHandle *h = aclrtCreateStreamConfigHandle();
	uint32_t flag = ACL_STREAM_FAST_SYNC, prio = 5, v = 0, bad = 8;
	uint64_t wide = 3;
	void *work = &v;
	aclrtStream s;

	ASSERT_NE(NULL, h);
	/* Unset: what aclrtCreateStream makes. */
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStreamV2(&s, h));
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamGetPriority(s, &v));
	EXPECT_EQ(0, v);
	ASSERT_EQ(ACL_SUCCESS, aclrtDestroyStream(s));

	ASSERT_EQ(ACL_SUCCESS, aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &flag, sizeof(flag)));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &prio, sizeof(prio)));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStreamV2(&s, h));
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamGetPriority(s, &v));
	EXPECT_EQ(prio, v);
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamGetFlags(s, &v));
	EXPECT_EQ(flag, v);
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(s));
	ASSERT_EQ(ACL_SUCCESS, aclrtDestroyStream(s));

	/* An 8-byte value is taken as well. */
	ASSERT_EQ(ACL_SUCCESS, aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &wide, sizeof(wide)));
	EXPECT_EQ(3, h->priority);

	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &bad,
								   sizeof(bad)));
	EXPECT_EQ(3, h->priority);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &prio, 2));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, NULL, 4));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetStreamConfigOpt(h, (aclrtStreamConfigAttr)9,
								   &flag, sizeof(flag)));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		  aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_WORK_ADDR_PTR, &work, sizeof(work)));
	EXPECT_MSG("workspace");
	/* Unknown flags are refused when the stream is made. */
	flag = 0x40000000;
	ASSERT_EQ(ACL_SUCCESS, aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &flag, sizeof(flag)));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtCreateStreamV2(&s, h));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtCreateStreamV2(&s, NULL));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyStreamConfigHandle(h));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtDestroyStreamConfigHandle(NULL));
}

TEST_F(dev, stream_attributes)
{
	aclrtStreamAttrValue v;
	aclrtStream s;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStreamWithConfig(&s, 4, 0));
	memset(&v, 0, sizeof(v));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v));
	EXPECT_EQ(ACL_CONTINUE_ON_FAILURE, v.failureMode);
	v.failureMode = ACL_STOP_ON_FAILURE;
	ASSERT_EQ(ACL_SUCCESS, aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v));
	memset(&v, 0, sizeof(v));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v));
	EXPECT_EQ(ACL_STOP_ON_FAILURE, v.failureMode);
	v.failureMode = 7;
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v));

	v.userCustomTag = 0xc0ffee;
	ASSERT_EQ(ACL_SUCCESS, aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v));
	memset(&v, 0, sizeof(v));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v));
	EXPECT_EQ(0xc0ffee, v.userCustomTag);

	ASSERT_EQ(ACL_SUCCESS, aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, &v));
	EXPECT_EQ(4, v.streamPriority);
	v.streamPriority = 1;
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		  aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, &v));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, &v));
	EXPECT_EQ(4, v.streamPriority);

	v.cacheOpInfoSwitch = 1;
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		  aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_CACHE_OP_INFO, &v));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_CACHE_OP_INFO, &v));
	EXPECT_EQ(0, v.cacheOpInfoSwitch);
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		  aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK, &v));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetStreamAttribute(s, (aclrtStreamAttr)99, &v));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetStreamAttribute(s, (aclrtStreamAttr)99, &v));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, NULL));
	/* The default stream has attributes too. */
	ASSERT_EQ(ACL_SUCCESS, aclrtGetStreamAttribute(NULL, ACL_STREAM_ATTR_FAILURE_MODE, &v));
	EXPECT_EQ(ACL_CONTINUE_ON_FAILURE, v.failureMode);
	ASSERT_EQ(ACL_SUCCESS, aclrtDestroyStream(s));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, &v));
}

/* A stopped stream drops its work and takes none until it is aborted. */
TEST_F(dev, stream_stop_then_abort)
{
	size_t n = 4096;
	struct gate g;
	uint8_t *host;
	aclrtStream s;

	ASSERT_EQ(ACL_SUCCESS, gate_init(&g));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&host, n));
	memset(host, 0, n);
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&g, s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(host, n, 0x77, n, s));
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamStop(s));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_ABORT, aclrtSynchronizeStream(s));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_ABORT, aclrtMemsetAsync(host, n, 0x55, n, s));
	EXPECT_MSG("aclrtStreamStop");
	ASSERT_EQ(ACL_SUCCESS, gate_open(&g));
	EXPECT_EQ(0, host[0]);	/* dropped, never ran */

	ASSERT_EQ(ACL_SUCCESS, aclrtStreamAbort(s));
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(host, n, 0x55, n, s));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(s));
	EXPECT_EQ(0x55, host[n - 1]);

	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtStreamStop(NULL));
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamStop(s));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyStream(s));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtStreamStop(s));
	aclrtFreeHost(host);
	gate_fini(&g);
}

struct state_log {
	int created, destroyed;
	aclrtStream last_created, last_destroyed;
	void *args;
};

static void on_state(aclrtStream stm, aclrtStreamState state, void *args)
{
	struct state_log *l = args;

	if (state == ACL_RT_STREAM_STATE_CREATE_POST) {
		l->created++;
		l->last_created = stm;
	} else if (state == ACL_RT_STREAM_STATE_DESTROY_PRE) {
		l->destroyed++;
		l->last_destroyed = stm;
	}
}

TEST_F(dev, stream_state_callbacks)
{
	struct state_log a = { 0 }, b = { 0 };
	aclrtContext ctx, cur;
	aclrtStream s;

	ASSERT_EQ(ACL_SUCCESS, aclrtRegStreamStateCallback("tail_a", on_state, &a));
	ASSERT_EQ(ACL_SUCCESS, aclrtRegStreamStateCallback("tail_b", on_state, &b));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtRegStreamStateCallback("tail_a", on_state, &b));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	EXPECT_EQ(1, a.created);
	EXPECT_EQ(s, a.last_created);
	EXPECT_EQ(1, b.created);
	EXPECT_EQ(0, a.destroyed);
	ASSERT_EQ(ACL_SUCCESS, aclrtDestroyStream(s));
	EXPECT_EQ(1, a.destroyed);
	EXPECT_EQ(s, a.last_destroyed);

	/* A context's default stream is a stream too. */
	ASSERT_EQ(ACL_SUCCESS, aclrtGetCurrentContext(&cur));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateContext(&ctx, 0));
	EXPECT_EQ(2, a.created);
	ASSERT_EQ(ACL_SUCCESS, aclrtDestroyContext(ctx));
	EXPECT_EQ(2, a.destroyed);
	ASSERT_EQ(ACL_SUCCESS, aclrtSetCurrentContext(cur));

	/* Unregistered: told no more. */
	ASSERT_EQ(ACL_SUCCESS, aclrtRegStreamStateCallback("tail_a", NULL, NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtRegStreamStateCallback("tail_a", NULL, NULL));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	ASSERT_EQ(ACL_SUCCESS, aclrtDestroyStream(s));
	EXPECT_EQ(2, a.created);
	EXPECT_EQ(3, b.created);
	EXPECT_EQ(3, b.destroyed);
	ASSERT_EQ(ACL_SUCCESS, aclrtRegStreamStateCallback("tail_b", NULL, NULL));

	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtRegStreamStateCallback(NULL, on_state, &a));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtRegStreamStateCallback("", on_state, &a));
}

TEST_F(dev, timeouts_are_not_supported)
{
	uint64_t actual, interval;
	uint32_t ms;

	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtSetOpWaitTimeout(10));
	EXPECT_MSG("hang_timeout_ms");
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtSetOpExecuteTimeOut(10));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtSetOpExecuteTimeOutWithMs(10));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtSetOpExecuteTimeOutV2(10, &actual));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtGetOpTimeOutInterval(&interval));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtGetOpExecuteTimeout(&ms));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetOpExecuteTimeout(NULL));
}

struct hf_run {
	atomic_int ran;
	pthread_t thread;
};

static void host_fn(void *arg)
{
	struct hf_run *r = arg;

	r->thread = pthread_self();
	atomic_fetch_add(&r->ran, 1);
}

/* Host functions run in the subscribed thread, inside aclrtProcessHostFunc. */
TEST_F(dev, host_function_subscription)
{
	uint64_t me = (uint64_t)pthread_self();
	struct hf_run r = { 0 };
	aclrtStream s;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	EXPECT_EQ(ACL_ERROR_RT_THREAD_SUBSCRIBE, aclrtProcessHostFunc(10));
	ASSERT_EQ(ACL_SUCCESS, aclrtSubscribeHostFunc(me, s));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_SUBSCRIBE, aclrtSubscribeHostFunc(me, s));
	/* Reports are a separate subscription. */
	EXPECT_EQ(ACL_ERROR_RT_THREAD_SUBSCRIBE, aclrtProcessReport(10));
	EXPECT_EQ(ACL_ERROR_RT_REPORT_TIMEOUT, aclrtProcessHostFunc(10));

	ASSERT_EQ(ACL_SUCCESS, aclrtLaunchHostFunc(s, host_fn, &r));
	ASSERT_EQ(ACL_SUCCESS, aclrtProcessHostFunc(5000));
	EXPECT_EQ(1, atomic_load(&r.ran));
	EXPECT_TRUE(pthread_equal(r.thread, pthread_self()));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(s));

	EXPECT_EQ(ACL_ERROR_STREAM_NOT_SUBSCRIBE, aclrtUnSubscribeHostFunc(me + 1, s));
	ASSERT_EQ(ACL_SUCCESS, aclrtUnSubscribeHostFunc(me, s));
	EXPECT_EQ(ACL_ERROR_STREAM_NOT_SUBSCRIBE, aclrtUnSubscribeHostFunc(me, s));
	/* Unsubscribed: the runtime's own thread runs them again. */
	ASSERT_EQ(ACL_SUCCESS, aclrtLaunchHostFunc(s, host_fn, &r));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(s));
	EXPECT_EQ(2, atomic_load(&r.ran));
	EXPECT_FALSE(pthread_equal(r.thread, pthread_self()));
	aclrtDestroyStream(s);
}

static void *last_task_of_new_thread(void *arg)
{
	aclrtGetThreadLastTaskId(arg);
	return NULL;
}

TEST_F(dev, task_ids_count_per_thread)
{
	uint32_t a, b, other = 99;
	pthread_t t;
	void *p;

	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(p, 4096, 1, 4096, NULL));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetThreadLastTaskId(&a));
	EXPECT_GT(a, 0);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(p, 4096, 2, 4096, NULL));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetThreadLastTaskId(&b));
	EXPECT_EQ(a + 1, b);
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(NULL));
	/* Another thread has submitted nothing. */
	ASSERT_EQ(0, pthread_create(&t, NULL, last_task_of_new_thread, &other));
	pthread_join(t, NULL);
	EXPECT_EQ(0, other);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetThreadLastTaskId(NULL));
	aclrtFree(p);
}

TEST_F(dev, exception_getters_and_verbose_without_failure)
{
	aclrtErrorInfo info;
	aclrtFuncHandle fn;
	uint32_t len;
	void *args;

	memset(&info, 0x5a, sizeof(info));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetErrorVerbose(0, &info));
	EXPECT_EQ(ACL_RT_NO_ERROR, info.errorType);
	EXPECT_EQ(0, info.tryRepair);
	EXPECT_EQ(0, info.hasDetail);
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetErrorVerbose(99, &info));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetErrorVerbose(0, NULL));
	EXPECT_EQ(0, aclrtGetTaskIdFromExceptionInfo(NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetFuncHandleFromExceptionInfo(NULL, &fn));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetArgsFromExceptionInfo(NULL, &args, &len));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtExceptionInfoCallbackRegister(NULL));
	EXPECT_EQ(ACL_SUCCESS, aclrtSetExceptionInfoCallback(NULL));
}

/* ---- exceptions, with a DMA failure injected into a stream's ring ------ */

#define N (64 << 10)

FIXTURE(fault) {
	aclrtStream s;
	int ring;
	uint8_t *host;
	void *d;
};

FIXTURE_SETUP(fault)
{
	if (!fault_injection_available())
		SKIP(return, "no fault injection (debugfs) on this machine");
	/* The fault is armed on the stream's ring: its copies must go there. */
	ASSERT_EQ(0, setenv("ACL_DIRECT_RINGS", "0", 1));
	ASSERT_TRUE(acl_ok_init());
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	self->ring = create_stream_ring(0, &self->s);
	ASSERT_GE(self->ring, 0);
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&self->host, N));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&self->d, N, ACL_MEM_MALLOC_HUGE_FIRST));
}

FIXTURE_TEARDOWN(fault)
{
	clear_faults();
	aclrtResetDevice(0);
	aclFinalize();
}

/* What the exception callbacks were given, copied during the call. */
struct seen_exc {
	int calls;
	uint32_t task, stream, tid, device, code;
	aclError func_ret, args_ret;
};

static struct seen_exc seen, seen_registered;

static void record_exc(struct seen_exc *e, aclrtExceptionInfo *info)
{
	aclrtFuncHandle fn;
	uint32_t len;
	void *args;

	e->calls++;
	e->task = aclrtGetTaskIdFromExceptionInfo(info);
	e->stream = aclrtGetStreamIdFromExceptionInfo(info);
	e->tid = aclrtGetThreadIdFromExceptionInfo(info);
	e->device = aclrtGetDeviceIdFromExceptionInfo(info);
	e->code = aclrtGetErrorCodeFromExceptionInfo(info);
	e->func_ret = aclrtGetFuncHandleFromExceptionInfo(info, &fn);
	e->args_ret = aclrtGetArgsFromExceptionInfo(info, &args, &len);
}

static void on_exception(aclrtExceptionInfo *info)
{
	record_exc(&seen, info);
}

static void on_exception_registered(aclrtExceptionInfo *info)
{
	record_exc(&seen_registered, info);
}

TEST_F(fault, exception_names_the_failing_task)
{
	uint32_t good, failing, after;
	aclrtErrorInfo verbose;
	int32_t stream_id;

	ASSERT_EQ(ACL_SUCCESS, aclrtSetExceptionInfoCallback(on_exception));
	ASSERT_EQ(ACL_SUCCESS, aclrtExceptionInfoCallbackRegister(on_exception_registered));
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamGetId(self->s, &stream_id));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->d, N, self->host, N,
						ACL_MEMCPY_HOST_TO_DEVICE, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetThreadLastTaskId(&good));

	ASSERT_EQ(0, inject(0, "dma", self->ring, -1));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->d, N, self->host, N,
						ACL_MEMCPY_HOST_TO_DEVICE, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetThreadLastTaskId(&failing));
	EXPECT_EQ(good + 1, failing);
	/* A later task is not the failing one, whether or not it ran. */
	aclrtMemsetAsync(self->d, N, 0, N, self->s);
	ASSERT_EQ(ACL_SUCCESS, aclrtGetThreadLastTaskId(&after));
	EXPECT_EQ(failing + 1, after);
	EXPECT_EQ(ACL_ERROR_RT_SYS_DMA, aclrtSynchronizeStream(self->s));

	/* Told once, before the call that found the failure returned. */
	EXPECT_EQ(1, seen.calls);
	EXPECT_EQ(failing, seen.task);
	EXPECT_EQ((uint32_t)stream_id, seen.stream);
	EXPECT_EQ((uint32_t)syscall(SYS_gettid), seen.tid);
	EXPECT_EQ(0, seen.device);
	EXPECT_EQ((uint32_t)ACL_ERROR_RT_SYS_DMA, seen.code);
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, seen.func_ret);
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, seen.args_ret);
	EXPECT_EQ(1, seen_registered.calls);
	EXPECT_EQ(failing, seen_registered.task);

	ASSERT_EQ(ACL_SUCCESS, aclrtGetErrorVerbose(0, &verbose));
	EXPECT_EQ(ACL_RT_ERROR_MEMORY, verbose.errorType);
	EXPECT_EQ(0, verbose.tryRepair);

	ASSERT_EQ(ACL_SUCCESS, aclrtExceptionInfoCallbackUnregister(on_exception_registered));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtExceptionInfoCallbackUnregister(on_exception_registered));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetExceptionInfoCallback(NULL));
}

/* A stream that stops on failure tells of it once, however often it is asked. */
TEST_F(fault, exception_once_in_stop_mode)
{
	uint32_t failing;

	ASSERT_EQ(ACL_SUCCESS, aclrtSetStreamFailureMode(self->s, ACL_STOP_ON_FAILURE));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetExceptionInfoCallback(on_exception));
	ASSERT_EQ(0, inject(0, "dma", self->ring, -1));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->d, N, self->host, N,
						ACL_MEMCPY_HOST_TO_DEVICE, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetThreadLastTaskId(&failing));
	EXPECT_EQ(ACL_ERROR_RT_SYS_DMA, aclrtSynchronizeStream(self->s));
	EXPECT_EQ(1, seen.calls);
	EXPECT_EQ(failing, seen.task);
	EXPECT_EQ(ACL_ERROR_RT_SYS_DMA, aclrtSynchronizeStream(self->s));
	EXPECT_NE(ACL_SUCCESS, aclrtMemsetAsync(self->d, N, 0, N, self->s));
	EXPECT_EQ(1, seen.calls);
	ASSERT_EQ(ACL_SUCCESS, aclrtSetExceptionInfoCallback(NULL));
}

TEST_HARNESS_MAIN
