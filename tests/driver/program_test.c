// SPDX-License-Identifier: GPL-2.0-only
/*
 * Programs: DRM_IOCTL_NPU_PROGRAM_CREATE/DESTROY, DRM_NPU_OP_PROGRAM and
 * DRM_NPU_OP_SET_CALL, the control commands only a program holds, and
 * DRM_NPU_CMD_VALUE_INDIRECT.  Results are checked against arithmetic
 * done here.
 */

#include "kselftest_harness.h"
#include "npu_test_ioctl.h"

#define BUF_SIZE	(1u << 20)

static int program_create(int fd, const struct drm_npu_cmd *cmds, uint32_t count,
			  uint32_t *id)
{
	struct drm_npu_program_create c = {
		.cmds = (uintptr_t)cmds, .count = count, .cmd_size = sizeof(*cmds),
	};
	int ret = test_ioctl(fd, DRM_IOCTL_NPU_PROGRAM_CREATE, &c);

	*id = c.id;
	return ret;
}

static int program_destroy(int fd, uint32_t id)
{
	struct drm_npu_program_destroy d = { .id = id };

	return test_ioctl(fd, DRM_IOCTL_NPU_PROGRAM_DESTROY, &d);
}

static struct drm_npu_cmd cmd_program(uint32_t id)
{
	return (struct drm_npu_cmd){ .op = DRM_NPU_OP_PROGRAM, .value = id };
}

static struct drm_npu_cmd cmd_value_write(uint64_t dst, uint64_t value)
{
	return (struct drm_npu_cmd){ .op = DRM_NPU_OP_VALUE_WRITE, .dst = dst, .value = value };
}

FIXTURE(program) {
	struct test_card card;
	struct drm_npu_stream_create stream;
	struct drm_npu_bo_create a, b;
	uint8_t host[BUF_SIZE];
};

FIXTURE_SETUP(program)
{
	ASSERT_EQ(0, test_card_open(&self->card, 0));
	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &self->stream));
	ASSERT_EQ(0, test_bo_create(self->card.fd, BUF_SIZE, 0, &self->a));
	ASSERT_EQ(0, test_bo_create(self->card.fd, BUF_SIZE, 0, &self->b));
}

FIXTURE_TEARDOWN(program)
{
	test_card_close(&self->card);
}

/* Submits cmds and waits for them. */
static int run(struct _test_data_program *self, const struct drm_npu_cmd *cmds,
	       uint32_t count)
{
	uint64_t seq;
	int ret = test_submit(self->card.fd, self->stream.id, cmds, count, 0, &seq);

	return ret ?: test_wait(self->card.fd, self->stream.slot, seq, 60000);
}

/* size bytes of device memory at addr, into self->host. */
static int read_back(struct _test_data_program *self, uint64_t addr, size_t size)
{
	struct drm_npu_cmd c = test_cmd_copy((uintptr_t)self->host, addr, size,
					     DRM_NPU_CMD_DST_USER);

	memset(self->host, 0xee, size);
	return run(self, &c, 1);
}

static uint64_t read_word(struct _test_data_program *self, uint64_t addr)
{
	uint64_t v;

	if (read_back(self, addr, 8))
		return ~0ull;
	memcpy(&v, self->host, 8);
	return v;
}

static bool all_bytes(const uint8_t *p, size_t n, uint8_t byte)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != byte)
			return false;
	return true;
}

TEST_F(program, create_run_destroy)
{
	struct drm_npu_cmd cmds[] = {
		test_cmd_fill(self->a.addr, 0x5a, 4096, 0),
		test_cmd_copy(self->b.addr + 100, self->a.addr, 4096, 0),
	};
	struct drm_npu_cmd run_cmd;
	uint32_t id;

	ASSERT_EQ(0, program_create(self->card.fd, cmds, 2, &id));
	ASSERT_NE(0, id);
	run_cmd = cmd_program(id);
	ASSERT_EQ(0, run(self, &run_cmd, 1));
	ASSERT_EQ(0, read_back(self, self->b.addr, 4096 + 200));
	EXPECT_TRUE(all_bytes(self->host, 100, 0));
	EXPECT_TRUE(all_bytes(self->host + 100, 4096, 0x5a));
	EXPECT_TRUE(all_bytes(self->host + 4196, 100, 0));

	EXPECT_EQ(0, program_destroy(self->card.fd, id));
	EXPECT_EQ(-ENOENT, program_destroy(self->card.fd, id));
	EXPECT_EQ(-ENOENT, run(self, &run_cmd, 1));
}

/*
 * Before run i its batch copies table[i] = i + 1 into b; the program fills
 * and copies, and copies that word on to b + 8, which ends as the number
 * of runs.
 */
TEST_F(program, thousand_runs)
{
	/* a: table[i] = i + 1 (8 bytes each, 0..1000); b: the counter */
	uint64_t table[1001];
	struct drm_npu_cmd cmds[3], batch[8];
	unsigned int i, runs = 1000;
	uint32_t id;

	for (i = 0; i <= runs; i++)
		table[i] = i + 1;
	batch[0] = test_cmd_copy(self->a.addr, (uintptr_t)table, sizeof(table),
				 DRM_NPU_CMD_SRC_USER);
	batch[1] = cmd_value_write(self->b.addr, 0);
	ASSERT_EQ(0, run(self, batch, 2));

	cmds[0] = test_cmd_fill(self->b.addr + 64, 0x33, 64, 0);
	cmds[1] = test_cmd_copy(self->b.addr + 128, self->b.addr + 64, 64, 0);
	cmds[2] = test_cmd_copy(self->b.addr + 8, self->b.addr, 8, 0);
	ASSERT_EQ(0, program_create(self->card.fd, cmds, 3, &id));

	for (i = 0; i < runs; i++) {
		batch[0] = test_cmd_copy(self->b.addr, self->a.addr + 8 * i, 8, 0);
		batch[1] = cmd_program(id);
		ASSERT_EQ(0, test_submit(self->card.fd, self->stream.id, batch, 2, 0, NULL));
	}
	EXPECT_EQ(runs, read_word(self, self->b.addr + 8));
	ASSERT_EQ(0, read_back(self, self->b.addr + 128, 64));
	EXPECT_TRUE(all_bytes(self->host, 64, 0x33));
	EXPECT_EQ(0, program_destroy(self->card.fd, id));
}

TEST_HARNESS_MAIN
