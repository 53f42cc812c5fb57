// SPDX-License-Identifier: GPL-2.0-only
/*
 * What an operator sees: DRM fdinfo usage keys per open file, the debugfs
 * ring dump, card usage in sysfs, and npu-smi's own views listing our card
 * and our streams.
 */

#include "kselftest_harness.h"
#include "npu_test_ioctl.h"

FIXTURE(observe) {
	struct test_card card;
	struct drm_npu_stream_create stream;
	struct drm_npu_bo_create dev, host;
};

FIXTURE_SETUP(observe)
{
	ASSERT_EQ(0, test_card_open(&self->card, 0));
	ASSERT_EQ(0, test_stream_create(self->card.fd, 2, 0, &self->stream));
	ASSERT_EQ(0, test_bo_create(self->card.fd, 3 << 20, 0, &self->dev));
	ASSERT_EQ(0, test_bo_create(self->card.fd, 1 << 20, DRM_NPU_BO_HOST, &self->host));
}

FIXTURE_TEARDOWN(observe)
{
	test_card_close(&self->card);
}

TEST_F(observe, fdinfo_usage_keys)
{
	long long busy_before = test_fdinfo_value(self->card.fd, "drm-engine-npu");

	EXPECT_EQ(3 << 10, test_fdinfo_value(self->card.fd, "drm-total-device"));
	EXPECT_EQ(1 << 10, test_fdinfo_value(self->card.fd, "drm-total-host"));
	ASSERT_GE(busy_before, 0);
	ASSERT_EQ(0, test_run(&self->card, &self->stream,
			      test_cmd_fill(self->dev.addr, 1, 3 << 20, 0)));
	EXPECT_GT(test_fdinfo_value(self->card.fd, "drm-engine-npu"), busy_before);
	EXPECT_EQ(3 << 20, test_fdinfo_value(self->card.fd, "npu-bytes-moved"));
}

TEST_F(observe, usage_in_sysfs)
{
	struct drm_npu_bo_create more;
	unsigned long long used = test_card_attr(self->card.bdf, "devmem_used");

	EXPECT_GE(used, 3 << 20);
	EXPECT_GE(test_card_attr(self->card.bdf, "rings_used"), 1);
	EXPECT_GE(test_card_attr(self->card.bdf, "pinned_pages"), (1 << 20) / 4096);
	ASSERT_EQ(0, test_bo_create(self->card.fd, 1 << 20, 0, &more));
	EXPECT_EQ(used + (1 << 20), test_card_attr(self->card.bdf, "devmem_used"));
}

TEST_F(observe, debugfs_ring_dump)
{
	int ring = test_stream_ring(self->card.bdf, self->stream.id);
	char path[PATH_MAX], buf[16384], line[32];

	ASSERT_GE(ring, 0);
	snprintf(path, sizeof(path), "/sys/kernel/debug/accel/%s/rings", self->card.bdf);
	ASSERT_EQ(0, text_read(path, buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "heartbeat"));
	snprintf(line, sizeof(line), "ring %d:", ring);
	EXPECT_NE(NULL, strstr(buf, line)) TH_LOG("%s", buf);
}

TEST_F(observe, npu_smi_lists_our_stream)
{
	char cmd[96], out[16384] = "", want[64];
	size_t n;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "build/tools/npu-smi cards && build/tools/npu-smi streams");
	p = popen(cmd, "r");
	ASSERT_NE(NULL, p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = 0;
	EXPECT_EQ(0, pclose(p));
	EXPECT_NE(NULL, strstr(out, self->card.accel));
	EXPECT_NE(NULL, strstr(out, "pass"));
	snprintf(want, sizeof(want), " %d ", getpid());
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
}

TEST_HARNESS_MAIN
