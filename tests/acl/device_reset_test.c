// SPDX-License-Identifier: MIT
/*
 * A card reset with the device set (uapi/npu_accel.h, "Card reset"): the
 * work queued across it fails with the vendor's codes, with a readable
 * message (ACL_ERROR_RT_DEVICE_TASK_ABORT for an administrator's reset,
 * ACL_ERROR_RT_LOST_HEARTBEAT after a lost heartbeat), and after
 * aclrtResetDevice and aclrtSetDevice the same process works on the card
 * again, with right results. The teardown leaves the driver's parameters
 * as it found them and the card alive.
 */
#include "acl_test.h"
#include "kselftest_harness.h"

#define N (256 << 10)

FIXTURE(card) {
	long heartbeat_timeout, on_heartbeat_loss;
	char bdf[64];
};

FIXTURE_SETUP(card)
{
	self->heartbeat_timeout = test_driver_param("heartbeat_timeout_ms");
	self->on_heartbeat_loss = test_driver_param("reset_on_heartbeat_loss");
	ASSERT_LE(0, self->heartbeat_timeout);
	ASSERT_LE(0, self->on_heartbeat_loss);
}

FIXTURE_TEARDOWN_PARENT(card)
{
	test_set_driver_param("heartbeat_timeout_ms", self->heartbeat_timeout);
	test_set_driver_param("reset_on_heartbeat_loss", self->on_heartbeat_loss);
	if (self->bdf[0])
		EXPECT_EQ(0, test_card_revive(self->bdf));
}

static int admin_reset(const char *bdf)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), TEST_PCI_DEVICES "/%s/npu/reset", bdf);
	return text_write(path, "1");
}

/* Device dev, just set again, computes as it should. */
static void works_again(struct __test_metadata *_metadata, int32_t dev)
{
	aclrtStream s;
	uint8_t *host;
	void *d;

	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(dev));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&d, N, ACL_MEM_MALLOC_HUGE_FIRST));
	host = malloc(N);
	ASSERT_NE(NULL, host);
	fill_pat(host, N, 7);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(d, N, host, N, ACL_MEMCPY_HOST_TO_DEVICE, s));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(s));
	memset(host, 0, N);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(host, N, d, N, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pat(host, N, 7));
	free(host);
	EXPECT_EQ(ACL_SUCCESS, aclrtFree(d));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyStream(s));
}

/* Streams s[0..1] of the current device: a memset queued behind a closed gate. */
static void queue_behind_gate(struct __test_metadata *_metadata, struct gate *g,
			      aclrtStream *s, void *d)
{
	int i;

	ASSERT_EQ(ACL_SUCCESS, gate_init(g));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s[i]));
		ASSERT_EQ(ACL_SUCCESS, gate_close_on(g, s[i]));
		ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync((uint8_t *)d + i * (N / 2), N / 2, 1,
							N / 2, s[i]));
	}
}

TEST_F(card, admin_reset_aborts_queued_work_and_the_device_works_again)
{
	aclrtStream s[2], s3;
	struct gate g;
	const char *msg;
	int32_t dev = 0;
	void *d;
	int i;

	ASSERT_TRUE(acl_ok_init());
	ASSERT_EQ(0, dev_bdf(dev, self->bdf, sizeof(self->bdf)));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(dev));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&d, N, ACL_MEM_MALLOC_HUGE_FIRST));
	queue_behind_gate(_metadata, &g, s, d);

	ASSERT_EQ(0, admin_reset(self->bdf));
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(ACL_ERROR_RT_DEVICE_TASK_ABORT, aclrtSynchronizeStream(s[i]));
		msg = aclGetRecentErrMsg();
		ASSERT_NE(NULL, msg);
		EXPECT_NE(NULL, strstr(msg, "reset")) {
			TH_LOG("message: %s", msg);
		}
	}
	/* The device's file is lost: new work in it fails the same way. */
	EXPECT_EQ(ACL_ERROR_RT_DEVICE_TASK_ABORT, aclrtCreateStream(&s3));
	msg = aclGetRecentErrMsg();
	ASSERT_NE(NULL, msg);
	EXPECT_NE(NULL, strstr(msg, "reset"));

	/* Releasing everything and setting the device again brings it back. */
	for (i = 0; i < 2; i++)
		aclrtDestroyStream(s[i]);
	gate_fini(&g);
	EXPECT_EQ(ACL_SUCCESS, aclrtFree(d));
	EXPECT_EQ(ACL_SUCCESS, aclrtResetDevice(dev));
	works_again(_metadata, dev);
	EXPECT_EQ(ACL_SUCCESS, aclrtResetDevice(dev));
	aclFinalize();
}

TEST_F(card, heartbeat_reset_reports_lost_heartbeat)
{
	unsigned long long count;
	aclrtDeviceStatus st;
	aclrtStream s[2];
	struct gate g;
	const char *msg;
	int32_t dev = 0;
	void *d;
	int i;

	if (!fault_injection_available())
		SKIP(return, "no fault injection (debugfs) on this machine");
	ASSERT_TRUE(acl_ok_init());
	ASSERT_EQ(0, dev_bdf(dev, self->bdf, sizeof(self->bdf)));
	count = test_card_attr(self->bdf, "reset_count");
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(dev));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&d, N, ACL_MEM_MALLOC_HUGE_FIRST));
	queue_behind_gate(_metadata, &g, s, d);
	ASSERT_EQ(0, test_set_driver_param("reset_on_heartbeat_loss", 1));
	ASSERT_EQ(0, test_set_driver_param("heartbeat_timeout_ms", 300));
	ASSERT_EQ(0, inject(dev, "stop_heartbeat", 0, -1));

	for (i = 0; i < 2; i++) {
		EXPECT_EQ(ACL_ERROR_RT_LOST_HEARTBEAT, aclrtSynchronizeStreamWithTimeout(s[i], 20000));
		msg = aclGetRecentErrMsg();
		ASSERT_NE(NULL, msg);
		EXPECT_NE(NULL, strstr(msg, "reset")) {
			TH_LOG("message: %s", msg);
		}
	}
	ASSERT_TRUE(test_wait_until(test_card_attr(self->bdf, "reset_count") > count,
				    TEST_SETTLE_MS));
	/* The card itself is fine again. */
	EXPECT_EQ(ACL_SUCCESS, aclrtQueryDeviceStatus(dev, &st));
	EXPECT_EQ(ACL_RT_DEVICE_STATUS_NORMAL, st);

	for (i = 0; i < 2; i++)
		aclrtDestroyStream(s[i]);
	gate_fini(&g);
	EXPECT_EQ(ACL_SUCCESS, aclrtFree(d));
	EXPECT_EQ(ACL_SUCCESS, aclrtResetDevice(dev));
	works_again(_metadata, dev);
	EXPECT_EQ(ACL_SUCCESS, aclrtResetDevice(dev));
	aclFinalize();
}

TEST_HARNESS_MAIN
