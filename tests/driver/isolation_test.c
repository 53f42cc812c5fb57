// SPDX-License-Identifier: GPL-2.0-only
/*
 * A context reaches only its own buffers, slots and streams, and a process
 * killed in the middle of a copy gives back everything it held.
 */

#include <signal.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "npu_test_ioctl.h"

FIXTURE(isolation) {
	struct test_card mine, theirs;
	struct drm_npu_stream_create stream, their_stream;
	struct drm_npu_bo_create buf, their_buf, their_host;
	uint32_t their_slot;
};

FIXTURE_SETUP(isolation)
{
	ASSERT_EQ(0, test_card_open(&self->mine, 0));
	ASSERT_EQ(0, test_card_open(&self->theirs, 0));
	ASSERT_EQ(0, test_stream_create(self->mine.fd, 0, 0, &self->stream));
	ASSERT_EQ(0, test_stream_create(self->theirs.fd, 0, 0, &self->their_stream));
	ASSERT_EQ(0, test_bo_create(self->mine.fd, 4096, 0, &self->buf));
	ASSERT_EQ(0, test_bo_create(self->theirs.fd, 4096, 0, &self->their_buf));
	ASSERT_EQ(0, test_bo_create(self->theirs.fd, 4096, DRM_NPU_BO_HOST, &self->their_host));
	ASSERT_EQ(0, test_slot_alloc(self->theirs.fd, &self->their_slot));
}

/* The fault a killed child left on its ring would slow the next suite's. */
FIXTURE_TEARDOWN(isolation)
{
	test_clear_faults(self->mine.bdf);
	test_card_close(&self->mine);
	test_card_close(&self->theirs);
}

static int try(struct _test_data_isolation *self, struct drm_npu_cmd cmd)
{
	return test_submit(self->mine.fd, self->stream.id, &cmd, 1, 0, NULL);
}

TEST_F(isolation, other_contexts_buffers)
{
	struct drm_npu_cmd c;

	EXPECT_EQ(-EPERM, try(self, test_cmd_copy(self->buf.addr, self->their_buf.addr, 64, 0)));
	EXPECT_EQ(-EPERM, try(self, test_cmd_copy(self->their_buf.addr, self->buf.addr, 64, 0)));
	EXPECT_EQ(-EPERM, try(self, test_cmd_fill(self->their_buf.addr, 1, 64, 0)));
	c = (struct drm_npu_cmd){ .op = DRM_NPU_OP_VALUE_WRITE, .dst = self->their_buf.addr };
	EXPECT_EQ(-EPERM, try(self, c));
	/* Handles are per context: theirs means nothing here. */
	c = test_cmd_copy(self->buf.addr, 0, 64, DRM_NPU_CMD_SRC_HOST);
	c.src_handle = self->their_host.handle;
	if (c.src_handle != self->buf.handle)
		EXPECT_EQ(-ENOENT, try(self, c));
	/* A range spanning my buffer and the next is refused as a whole. */
	EXPECT_EQ(-EPERM, try(self, test_cmd_fill(self->buf.addr, 1, 4096 + 64, 0)));
}

TEST_F(isolation, other_contexts_slots_and_streams)
{
	struct drm_npu_cmd c = { .op = DRM_NPU_OP_SLOT_WAIT, .slot = self->their_slot, .value = 1 };
	uint32_t mine;

	/* Slot numbers are per context too; an unallocated one is refused. */
	ASSERT_EQ(0, test_slot_alloc(self->mine.fd, &mine));
	if (self->their_slot != mine && self->their_slot != self->stream.slot) {
		EXPECT_EQ(-EPERM, try(self, c));
		EXPECT_EQ(-ENOENT, test_wait(self->mine.fd, self->their_slot, 1, 0));
		EXPECT_EQ(-ENOENT, test_slot_op(self->mine.fd, DRM_IOCTL_NPU_SLOT_SIGNAL,
						self->their_slot, 1));
	}
	if (self->their_stream.id != self->stream.id)
		EXPECT_EQ(-ENOENT, test_stream_destroy(self->mine.fd, self->their_stream.id, 0));
	/* Their stream still works. */
	EXPECT_EQ(0, test_run(&self->theirs, &self->their_stream,
			      test_cmd_fill(self->their_buf.addr, 2, 64, 0)));
}

TEST_F(isolation, closing_one_context_spares_the_other)
{
	EXPECT_EQ(0, test_run(&self->mine, &self->stream, test_cmd_fill(self->buf.addr, 3, 64, 0)));
	test_card_close(&self->theirs);
	EXPECT_EQ(0, test_run(&self->mine, &self->stream, test_cmd_fill(self->buf.addr, 4, 64, 0)));
}

/* The child copies 32 MiB slowly (the card delays its ring) until killed. */
static void copy_until_killed(int ready_fd)
{
	size_t size = 32u << 20;
	struct drm_npu_stream_create s;
	struct drm_npu_bo_create dev, host;
	struct drm_npu_cmd cmds[8];
	struct test_card card;
	char what[64];
	uint8_t *src = malloc(size);
	int i, ring;

	if (!src || test_card_open(&card, 0) || test_stream_create(card.fd, 0, 0, &s) ||
	    test_bo_create(card.fd, size, 0, &dev) ||
	    test_bo_create(card.fd, 1 << 20, DRM_NPU_BO_HOST, &host))
		_exit(1);
	ring = test_stream_ring(card.bdf, s.id);
	snprintf(what, sizeof(what), "delay %d 200000", ring);
	if (ring < 0 || test_inject(card.bdf, what))
		_exit(2);
	memset(src, 1, size);
	for (i = 0; i < 8; i++)
		cmds[i] = test_cmd_copy(dev.addr, (uintptr_t)src, size, DRM_NPU_CMD_SRC_USER);
	if (test_submit(card.fd, s.id, cmds, 8, 0, NULL))
		_exit(3);
	if (write(ready_fd, "x", 1) != 1)
		_exit(4);
	pause();
	_exit(5);
}

TEST_F(isolation, killed_mid_copy_gives_everything_back)
{
	struct test_baseline before, during, after;
	int pipefd[2], status;
	char c;
	pid_t pid;

	test_card_close(&self->theirs);
	test_card_close(&self->mine);
	before = test_read_baseline(self->mine.bdf);

	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid)
		copy_until_killed(pipefd[1]);
	ASSERT_EQ(1, read(pipefd[0], &c, 1));
	during = test_read_baseline(self->mine.bdf);
	EXPECT_GT(during.devmem, before.devmem);
	EXPECT_EQ(before.rings + 1, during.rings);
	EXPECT_GE(during.pinned, before.pinned + 8 * (32u << 20) / 4096);

	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));

	after = test_settled_baseline(self->mine.bdf, &before);
	EXPECT_EQ(before.devmem, after.devmem);
	EXPECT_EQ(before.rings, after.rings);
	EXPECT_EQ(before.pinned, after.pinned);
	close(pipefd[0]);
	close(pipefd[1]);
}

/* Children on both cards' streams, killed at random moments, many times. */
static void work_until_killed(unsigned int seed)
{
	struct drm_npu_stream_create s[3];
	struct drm_npu_bo_create dev, host;
	size_t size = 4u << 20;
	uint8_t *src = malloc(size), *dst = malloc(size);
	struct test_card card;
	unsigned int i;

	/* The second card when there is one, for every other child. */
	if (!src || !dst ||
	    (test_card_open(&card, seed % 2) && test_card_open(&card, 0)))
		_exit(1);
	if (test_bo_create(card.fd, size, 0, &dev) ||
	    test_bo_create(card.fd, size, DRM_NPU_BO_HOST, &host))
		_exit(2);
	for (i = 0; i < 3; i++)
		if (test_stream_create(card.fd, i, 16, &s[i]))
			_exit(3);
	test_fill_random(src, size, seed);
	for (i = 0;; i++) {
		struct drm_npu_cmd cmds[3] = {
			test_cmd_copy(dev.addr, (uintptr_t)src, size, DRM_NPU_CMD_SRC_USER),
			test_cmd_copy(0, dev.addr, size, DRM_NPU_CMD_DST_HOST),
			test_cmd_copy((uintptr_t)dst, dev.addr, size, DRM_NPU_CMD_DST_USER),
		};

		cmds[1].dst_handle = host.handle;
		test_submit(card.fd, s[i % 3].id, cmds, 3, 0, NULL);
	}
}

TEST(random_kills_leave_nothing_behind)
{
	struct test_pci devs[TEST_MAX_DEVS];
	struct test_baseline before[2], after;
	char bdf[2][32];
	int i, n = 0, ndevs = test_list_pci(devs, TEST_MAX_DEVS), round;

	for (i = 0; i < ndevs && n < 2; i++) {
		if (!devs[i].bound)
			continue;
		memcpy(bdf[n], devs[i].bdf, sizeof(bdf[n]));
		before[n] = test_read_baseline(bdf[n]);
		n++;
	}
	ASSERT_GT(n, 0);

	srand(42);
	for (round = 0; round < 5; round++) {
		pid_t pids[4];
		int status;

		for (i = 0; i < 4; i++) {
			pids[i] = fork();
			ASSERT_GE(pids[i], 0);
			if (!pids[i])
				work_until_killed(round * 4 + i);
		}
		usleep(50000 + rand() % 300000);
		for (i = 0; i < 4; i++) {
			kill(pids[i], SIGKILL);
			ASSERT_EQ(pids[i], waitpid(pids[i], &status, 0));
			EXPECT_TRUE(WIFSIGNALED(status)) TH_LOG("child exited %d", WEXITSTATUS(status));
		}
	}
	for (i = 0; i < n; i++) {
		after = test_settled_baseline(bdf[i], &before[i]);
		EXPECT_EQ(before[i].devmem, after.devmem);
		EXPECT_EQ(before[i].rings, after.rings);
		EXPECT_EQ(before[i].pinned, after.pinned);
	}
}

TEST_HARNESS_MAIN
