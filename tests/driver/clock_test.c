// SPDX-License-Identifier: GPL-2.0-only
/*
 * DRM_NPU_OP_CLOCK_WRITE: the card's clock into device memory, in stream
 * order, and the checks it shares with VALUE_WRITE.
 */

#include "kselftest_harness.h"
#include "npu_test_ioctl.h"

#define STAMPS	16

FIXTURE(clock) {
	struct test_card card;
	struct drm_npu_stream_create stream;
	struct drm_npu_bo_create buf;
};

FIXTURE_SETUP(clock)
{
	ASSERT_EQ(0, test_card_open(&self->card, 0));
	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &self->stream));
	ASSERT_EQ(0, test_bo_create(self->card.fd, 4096, 0, &self->buf));
}

FIXTURE_TEARDOWN(clock)
{
	test_card_close(&self->card);
}

static struct drm_npu_cmd clock_write(uint64_t dst)
{
	return (struct drm_npu_cmd){ .op = DRM_NPU_OP_CLOCK_WRITE, .dst = dst };
}

/* Reads n words of the buffer back into host memory. */
static int read_words(struct _test_data_clock *self, uint64_t *out, unsigned int n)
{
	memset(out, 0, n * sizeof(*out));
	return test_run(&self->card, &self->stream,
			test_cmd_copy((uintptr_t)out, self->buf.addr, n * sizeof(*out),
				      DRM_NPU_CMD_DST_USER));
}

/*
 * Stamps around fills on one stream grow with the stream, start after a
 * reading of the clock taken before the submission (the register lags
 * the card's clock by up to a heartbeat, so a reading after the end is
 * no bound), and a later submission's stamp comes after them all.
 */
TEST_F(clock, stamps_follow_the_stream)
{
	struct drm_npu_cmd cmds[2 * STAMPS];
	uint64_t got[STAMPS + 1], before, seq;
	unsigned int i;

	for (i = 0; i < STAMPS; i++) {
		cmds[2 * i] = clock_write(self->buf.addr + 8 * i);
		cmds[2 * i + 1] = test_cmd_fill(self->buf.addr + 2048, (uint8_t)i, 1024, 0);
	}
	before = test_param_or_die(self->card.fd, DRM_NPU_PARAM_CLOCK_NS);
	ASSERT_EQ(0, test_submit(self->card.fd, self->stream.id, cmds, 2 * STAMPS, 0, &seq));
	ASSERT_EQ(0, test_wait(self->card.fd, self->stream.slot, seq, 20000));
	ASSERT_EQ(0, test_run(&self->card, &self->stream,
			      clock_write(self->buf.addr + 8 * STAMPS)));

	ASSERT_EQ(0, read_words(self, got, STAMPS + 1));
	EXPECT_LE(before, got[0]);
	for (i = 1; i <= STAMPS; i++)
		EXPECT_LE(got[i - 1], got[i]) TH_LOG("stamp %u", i);
}

/* Each refusal is VALUE_WRITE's, and a refused batch writes nothing. */
TEST_F(clock, bad_commands_are_refused)
{
	struct drm_npu_cmd bad, batch[2];
	uint64_t got[2];
	uint8_t pageable[16];

	bad = clock_write(self->buf.addr + 4);
	EXPECT_EQ(-EINVAL, test_run(&self->card, &self->stream, bad));
	bad = clock_write(self->buf.addr + 4096);
	EXPECT_EQ(-EPERM, test_run(&self->card, &self->stream, bad));
	EXPECT_EQ(0, test_run(&self->card, &self->stream, clock_write(self->buf.addr + 4088)));
	bad = clock_write(DRM_NPU_DEVICE_ADDR_BASE - 8);
	EXPECT_EQ(-EPERM, test_run(&self->card, &self->stream, bad));
	bad = clock_write((uintptr_t)pageable);
	bad.flags = DRM_NPU_CMD_DST_USER;
	EXPECT_EQ(-EINVAL, test_run(&self->card, &self->stream, bad));
	bad = clock_write(self->buf.addr);
	bad.flags = DRM_NPU_CMD_VALUE_INDIRECT;
	EXPECT_EQ(-EINVAL, test_run(&self->card, &self->stream, bad));
	bad = clock_write(self->buf.addr);
	bad.value = 1;
	EXPECT_EQ(-EINVAL, test_run(&self->card, &self->stream, bad));
	bad = clock_write(self->buf.addr);
	bad.size = 8;
	EXPECT_EQ(-EINVAL, test_run(&self->card, &self->stream, bad));
	bad = clock_write(self->buf.addr);
	bad.slot = self->stream.slot + 1;
	EXPECT_EQ(-EINVAL, test_run(&self->card, &self->stream, bad));
	bad = clock_write(self->buf.addr);
	bad.pad = 1;
	EXPECT_EQ(-EINVAL, test_run(&self->card, &self->stream, bad));

	/* A good stamp before a bad one in one batch: neither runs. */
	ASSERT_EQ(0, test_run(&self->card, &self->stream,
			      test_cmd_fill(self->buf.addr, 0, 16, 0)));
	batch[0] = clock_write(self->buf.addr);
	batch[1] = clock_write(self->buf.addr + 9);
	EXPECT_EQ(-EINVAL, test_submit(self->card.fd, self->stream.id, batch, 2, 0, NULL));
	ASSERT_EQ(0, read_words(self, got, 2));
	EXPECT_EQ(0, got[0]);
	EXPECT_EQ(0, got[1]);
}

TEST_HARNESS_MAIN
