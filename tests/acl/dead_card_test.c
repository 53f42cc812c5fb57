// SPDX-License-Identifier: MIT
/*
 * A card that stops its heartbeat: its streams fail with
 * ACL_ERROR_RT_LOST_HEARTBEAT, aclrtQueryDeviceStatus says abnormal, the
 * other card goes on, and after the card is rebound (unbind/bind) it works
 * again. Whatever happens, the teardown leaves the card alive and the
 * heartbeat timeout as it found them, for the suites after it.
 */
#include "acl_test.h"
#include "kselftest_harness.h"

#define N (256 << 10)

FIXTURE(card) {
	long heartbeat_timeout;
	char victim_bdf[64];
};

FIXTURE_SETUP(card)
{
	self->heartbeat_timeout = test_driver_param("heartbeat_timeout_ms");
	ASSERT_LE(0, self->heartbeat_timeout);
}

/* In the parent: also after the test crashed, and once its files are closed. */
FIXTURE_TEARDOWN_PARENT(card)
{
	test_set_driver_param("heartbeat_timeout_ms", self->heartbeat_timeout);
	if (self->victim_bdf[0])
		EXPECT_EQ(0, test_card_revive(self->victim_bdf));
}

TEST_F(card, dead_card_and_rebind)
{
	const char *bdf = self->victim_bdf;
	aclrtDeviceStatus st;
	aclrtStream s, s2;
	const char *msg;
	uint32_t ndev;
	int32_t victim;
	void *d;
	int ring;
	aclError r;

	if (!fault_injection_available())
		SKIP(return, "no fault injection (debugfs) on this machine");
	/* the copy must queue on the ring the fault names (fault_test.c) */
	ASSERT_EQ(0, setenv("ACL_DIRECT_RINGS", "0", 1));
	ASSERT_TRUE(acl_ok_init());
	ASSERT_EQ(ACL_SUCCESS, aclrtGetDeviceCount(&ndev));
	victim = (int32_t)ndev - 1;
	ASSERT_EQ(0, dev_bdf(victim, self->victim_bdf, sizeof(self->victim_bdf)));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(victim));
	ring = create_stream_ring(victim, &s);
	ASSERT_GE(ring, 0);
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&d, N, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(0, test_set_driver_param("heartbeat_timeout_ms", 300));
	ASSERT_EQ(0, inject(victim, "stop_heartbeat", ring, -1));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(d, N, 1, N, s));
	r = aclrtSynchronizeStreamWithTimeout(s, 20000);
	EXPECT_EQ(ACL_ERROR_RT_LOST_HEARTBEAT, r);
	msg = aclGetRecentErrMsg();
	ASSERT_NE(NULL, msg);
	TH_LOG("dead card: %s", msg);
	EXPECT_NE(NULL, strstr(msg, "heartbeat"));
	EXPECT_EQ(ACL_SUCCESS, aclrtQueryDeviceStatus(victim, &st));
	EXPECT_EQ(ACL_RT_DEVICE_STATUS_ABNORMAL, st);
	EXPECT_EQ(ACL_ERROR_RT_LOST_HEARTBEAT, aclrtCreateStream(&s2));
	msg = aclGetRecentErrMsg();
	ASSERT_NE(NULL, msg);
	EXPECT_NE(NULL, strstr(msg, "heartbeat"));
	EXPECT_EQ(ACL_ERROR_RT_LOST_HEARTBEAT, aclrtMemsetAsync(d, N, 1, N, s));
	msg = aclGetRecentErrMsg();
	ASSERT_NE(NULL, msg);
	EXPECT_NE(NULL, strstr(msg, "heartbeat")) {
		TH_LOG("message: %s", msg);
	}
	if (ndev > 1) {
		/* the other card is unaffected */
		void *d0;

		ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
		ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&d0, N, ACL_MEM_MALLOC_HUGE_FIRST));
		EXPECT_EQ(ACL_SUCCESS, aclrtMemset(d0, N, 3, N));
		EXPECT_EQ(ACL_SUCCESS, aclrtQueryDeviceStatus(0, &st));
		EXPECT_EQ(ACL_RT_DEVICE_STATUS_NORMAL, st);
	}
	/* release everything, rebind the card, and it works again */
	EXPECT_EQ(ACL_SUCCESS, aclFinalize());
	test_set_driver_param("heartbeat_timeout_ms", self->heartbeat_timeout);
	ASSERT_EQ(0, test_rebind(bdf));
	ASSERT_TRUE(acl_ok_init());
	ASSERT_EQ(ACL_SUCCESS, aclrtGetDeviceCount(&ndev));
	ASSERT_EQ(victim + 1, (int32_t)ndev);
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(victim));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&d, N, ACL_MEM_MALLOC_HUGE_FIRST));
	EXPECT_EQ(ACL_SUCCESS, aclrtMemset(d, N, 3, N));
	EXPECT_EQ(ACL_SUCCESS, aclrtQueryDeviceStatus(victim, &st));
	EXPECT_EQ(ACL_RT_DEVICE_STATUS_NORMAL, st);
	aclFinalize();
}

TEST_HARNESS_MAIN
