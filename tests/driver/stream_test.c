// SPDX-License-Identifier: GPL-2.0-only
/*
 * Streams: ordering, fences and waits with and without timeouts,
 * cross-stream waits on the card, many streams and threads at once, full
 * rings, destroy with and without abort, running out of rings, and the
 * pool of small jobs.
 */

#include <stdatomic.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "npu_test_ioctl.h"
#include "text_file.h"

FIXTURE(stream) {
	struct test_card card;
	struct drm_npu_bo_create buf;
};

FIXTURE_SETUP(stream)
{
	ASSERT_EQ(0, test_card_open(&self->card, 0));
	ASSERT_EQ(0, test_bo_create(self->card.fd, 1 << 20, 0, &self->buf));
}

FIXTURE_TEARDOWN(stream)
{
	test_card_close(&self->card);
}

TEST_F(stream, slot_write_records_value_and_time)
{
	struct drm_npu_stream_create s;
	uint32_t ev;
	uint64_t seq, t0;
	struct drm_npu_cmd cmds[2];

	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &s));
	ASSERT_EQ(0, test_slot_alloc(self->card.fd, &ev));
	t0 = test_param_or_die(self->card.fd, DRM_NPU_PARAM_CLOCK_NS);
	cmds[0] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_SLOT_WRITE, .slot = ev, .value = 41 };
	cmds[1] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_SLOT_WRITE, .slot = ev, .value = 42 };
	ASSERT_EQ(0, test_submit(self->card.fd, s.id, cmds, 2, 0, &seq));
	ASSERT_EQ(0, test_wait(self->card.fd, ev, 42, 10000));
	EXPECT_EQ(42, self->card.fence[ev].value);
	EXPECT_GE(self->card.fence[ev].timestamp, t0);
	ASSERT_EQ(0, test_wait(self->card.fd, s.slot, seq, 10000));

	cmds[0] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_TIMESTAMP, .slot = ev };
	t0 = self->card.fence[ev].timestamp;
	ASSERT_EQ(0, test_run(&self->card, &s, cmds[0]));
	EXPECT_GT(self->card.fence[ev].timestamp, t0);
	EXPECT_EQ(42, self->card.fence[ev].value);
}

TEST_F(stream, in_order_within_a_stream)
{
	struct drm_npu_stream_create s;
	struct drm_npu_cmd cmds[64];
	uint8_t out[64];
	uint64_t seq;
	int i;

	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &s));
	/* Each fill overwrites the last byte written by the one before. */
	for (i = 0; i < 63; i++)
		cmds[i] = test_cmd_fill(self->buf.addr + i, i + 1, 64 - i, 0);
	cmds[63] = test_cmd_copy((uintptr_t)out, self->buf.addr, 64, DRM_NPU_CMD_DST_USER);
	ASSERT_EQ(0, test_submit(self->card.fd, s.id, cmds, 64, 0, &seq));
	ASSERT_EQ(0, test_wait(self->card.fd, s.slot, seq, 10000));
	for (i = 0; i < 63; i++)
		EXPECT_EQ(i + 1, out[i]);
}

TEST_F(stream, wait_on_card_for_another_stream)
{
	struct drm_npu_stream_create a, b;
	uint32_t ev;
	uint64_t seq_b;
	uint8_t out = 0;
	struct drm_npu_cmd wait_then_copy[2];
	struct drm_npu_cmd fill_then_record[2];

	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &a));
	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &b));
	ASSERT_EQ(0, test_slot_alloc(self->card.fd, &ev));

	/* b waits on the card for a's event, then reads what a wrote. */
	wait_then_copy[0] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_SLOT_WAIT, .slot = ev, .value = 1 };
	wait_then_copy[1] = test_cmd_copy((uintptr_t)&out, self->buf.addr, 1, DRM_NPU_CMD_DST_USER);
	ASSERT_EQ(0, test_submit(self->card.fd, b.id, wait_then_copy, 2, 0, &seq_b));
	usleep(100 * 1000);
	EXPECT_EQ(-ETIME, test_wait(self->card.fd, b.slot, seq_b, 0));
	EXPECT_EQ(0, out);

	fill_then_record[0] = test_cmd_fill(self->buf.addr, 0x5d, 1, 0);
	fill_then_record[1] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_SLOT_WRITE, .slot = ev, .value = 1 };
	ASSERT_EQ(0, test_submit(self->card.fd, a.id, fill_then_record, 2, 0, NULL));
	ASSERT_EQ(0, test_wait(self->card.fd, b.slot, seq_b, 10000));
	EXPECT_EQ(0x5d, out);
}

TEST_F(stream, cpu_signal_releases_a_waiting_stream)
{
	struct drm_npu_stream_create s;
	uint32_t ev;
	uint64_t seq;

	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &s));
	ASSERT_EQ(0, test_slot_alloc(self->card.fd, &ev));
	ASSERT_EQ(0, test_submit(self->card.fd, s.id, &(struct drm_npu_cmd){
		.op = DRM_NPU_OP_SLOT_WAIT, .slot = ev, .value = 5 }, 1, 0, &seq));
	EXPECT_EQ(-ETIME, test_wait(self->card.fd, s.slot, seq, 50));
	EXPECT_EQ(0, test_slot_op(self->card.fd, DRM_IOCTL_NPU_SLOT_SIGNAL, ev, 4));
	EXPECT_EQ(-ETIME, test_wait(self->card.fd, s.slot, seq, 50));
	EXPECT_EQ(0, test_slot_op(self->card.fd, DRM_IOCTL_NPU_SLOT_SIGNAL, ev, 5));
	EXPECT_EQ(0, test_wait(self->card.fd, s.slot, seq, 10000));
}

TEST_F(stream, value_wait_conditions)
{
	static const struct {
		uint32_t cond;
		uint64_t initial, operand, release;
	} cases[] = {
		{ DRM_NPU_WAIT_GEQ, 0, 10, 10 },
		{ DRM_NPU_WAIT_GEQ, 0xffffffffffffffe0ULL, 0xfffffffffffffff0ULL, 3 }, /* wraps */
		{ DRM_NPU_WAIT_EQ, 0, 77, 77 },
		{ DRM_NPU_WAIT_AND, 0x0f, 0x10, 0x30 },
		{ DRM_NPU_WAIT_NOR, 1, 0xfffffffffffffffeULL, 0 },
	};
	struct drm_npu_stream_create waiter, writer;
	unsigned int i;
	uint64_t seq;

	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &waiter));
	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &writer));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t word = self->buf.addr + 8 * i;
		struct drm_npu_cmd set = {
			.op = DRM_NPU_OP_VALUE_WRITE, .dst = word, .value = cases[i].initial,
		};

		ASSERT_EQ(0, test_run(&self->card, &writer, set));
		ASSERT_EQ(0, test_submit(self->card.fd, waiter.id, &(struct drm_npu_cmd){
			.op = DRM_NPU_OP_VALUE_WAIT, .dst = word, .value = cases[i].operand,
			.cond = cases[i].cond }, 1, 0, &seq));
		EXPECT_EQ(-ETIME, test_wait(self->card.fd, waiter.slot, seq, 50))
			TH_LOG("case %u", i);
		set.value = cases[i].release;
		ASSERT_EQ(0, test_run(&self->card, &writer, set));
		EXPECT_EQ(0, test_wait(self->card.fd, waiter.slot, seq, 10000)) TH_LOG("case %u", i);
	}
}

TEST_F(stream, full_ring_blocks_or_says_eagain)
{
	struct drm_npu_stream_create s;
	struct drm_npu_cmd block = { .op = DRM_NPU_OP_SLOT_WAIT, .value = 1 };
	struct drm_npu_cmd nops[3] = { { 0 } };
	uint32_t ev;
	uint64_t seq;
	int ret, n = 0;

	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 8, &s));
	ASSERT_EQ(0, test_slot_alloc(self->card.fd, &ev));
	block.slot = ev;
	ASSERT_EQ(0, test_submit(self->card.fd, s.id, &block, 1, 0, NULL));
	/* 8 slots: the waiting batch holds 2, each NOP batch 4. */
	while ((ret = test_submit(self->card.fd, s.id, nops, 3, DRM_NPU_SUBMIT_NONBLOCK, &seq)) == 0)
		n++;
	EXPECT_EQ(-EAGAIN, ret);
	EXPECT_EQ(1, n);
	EXPECT_EQ(-EINVAL, test_submit(self->card.fd, s.id, (struct drm_npu_cmd[8]){ { 0 } },
				       8, 0, NULL));

	EXPECT_EQ(0, test_slot_op(self->card.fd, DRM_IOCTL_NPU_SLOT_SIGNAL, ev, 1));
	ASSERT_EQ(0, test_submit(self->card.fd, s.id, nops, 3, 0, &seq));
	EXPECT_EQ(0, test_wait(self->card.fd, s.slot, seq, 10000));
}

static void *submit_many(void *arg)
{
	struct test_card *card = arg;
	struct drm_npu_stream_create s;
	struct drm_npu_bo_create buf;
	uint8_t in[4096], out[4096];
	struct drm_npu_cmd cmds[2];
	uint64_t seq;
	int i;

	if (test_stream_create(card->fd, 3, 64, &s) || test_bo_create(card->fd, 4096, 0, &buf))
		return (void *)1L;
	for (i = 0; i < 50; i++) {
		test_fill_random(in, sizeof(in), i + s.id * 1000);
		cmds[0] = test_cmd_copy(buf.addr, (uintptr_t)in, sizeof(in), DRM_NPU_CMD_SRC_USER);
		cmds[1] = test_cmd_copy((uintptr_t)out, buf.addr, sizeof(out), DRM_NPU_CMD_DST_USER);
		if (test_submit(card->fd, s.id, cmds, 2, 0, &seq) ||
		    test_wait(card->fd, s.slot, seq, 30000) || memcmp(in, out, sizeof(in)))
			return (void *)2L;
	}
	if (test_stream_destroy(card->fd, s.id, 0) || test_bo_close(card->fd, buf.handle))
		return (void *)3L;
	return NULL;
}

TEST_F(stream, many_threads_many_streams)
{
	pthread_t threads[16];
	void *ret;
	int i;

	for (i = 0; i < 16; i++)
		ASSERT_EQ(0, pthread_create(&threads[i], NULL, submit_many, &self->card));
	for (i = 0; i < 16; i++) {
		ASSERT_EQ(0, pthread_join(threads[i], &ret));
		EXPECT_EQ(NULL, ret) TH_LOG("thread %d", i);
	}
}

struct id_guesser {
	int fd;
	atomic_int stop;
};

/* Destroys, by guessing their ids, the streams another thread creates. */
static void *destroy_guessed_ids(void *arg)
{
	struct id_guesser *c = arg;
	uint32_t id;

	while (!atomic_load(&c->stop))
		for (id = 1; id <= 16; id++)
			test_stream_destroy(c->fd, id, DRM_NPU_STREAM_DESTROY_ABORT);
	return NULL;
}

TEST_F(stream, destroy_races_create_and_submit)
{
	uint64_t free_rings = test_param_or_die(self->card.fd, DRM_NPU_PARAM_FREE_RINGS);
	uint64_t free_slots = test_param_or_die(self->card.fd, DRM_NPU_PARAM_FREE_SLOTS);
	struct drm_npu_cmd fill = test_cmd_fill(self->buf.addr, 7, 4096, 0);
	struct id_guesser c = { .fd = self->card.fd };
	struct drm_npu_stream_create s;
	int i, ret, created = 0, stolen = 0;
	pthread_t th;
	uint64_t seq;

	ASSERT_EQ(0, pthread_create(&th, NULL, destroy_guessed_ids, &c));
	for (i = 0; i < 500; i++) {
		ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &s));
		created++;
		ret = test_submit(self->card.fd, s.id, &fill, 1, 0, &seq);
		/* gone, or failed by the abort after the lookup */
		EXPECT_TRUE(ret == 0 || ret == -ENOENT || ret == -EIO) TH_LOG("submit: %d", ret);
		ret = test_stream_destroy(self->card.fd, s.id, 0);
		EXPECT_TRUE(ret == 0 || ret == -ENOENT) TH_LOG("destroy: %d", ret);
		stolen += ret == -ENOENT;
	}
	TH_LOG("%d of %d streams destroyed by the other thread", stolen, created);
	atomic_store(&c.stop, 1);
	ASSERT_EQ(0, pthread_join(th, NULL));
	EXPECT_EQ(500, created);
	EXPECT_EQ(free_rings, test_param_or_die(self->card.fd, DRM_NPU_PARAM_FREE_RINGS));
	EXPECT_EQ(free_slots, test_param_or_die(self->card.fd, DRM_NPU_PARAM_FREE_SLOTS));
}

TEST_F(stream, two_processes_at_once)
{
	pid_t pids[2];
	int i, status;

	for (i = 0; i < 2; i++) {
		pids[i] = fork();
		ASSERT_GE(pids[i], 0);
		if (!pids[i]) {
			struct test_card card;

			/* A process of its own opens its own context. */
			if (test_card_open(&card, 0))
				_exit(10);
			_exit(submit_many(&card) ? 11 : 0);
		}
	}
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(pids[i], waitpid(pids[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status));
	}
}

TEST_F(stream, rings_run_out_with_ebusy)
{
	uint64_t rings = test_param_or_die(self->card.fd, DRM_NPU_PARAM_NUM_RINGS);
	uint64_t free_rings = test_param_or_die(self->card.fd, DRM_NPU_PARAM_FREE_RINGS);
	struct drm_npu_stream_create *s = calloc(rings + 1, sizeof(*s));
	uint64_t i, n = 0;

	ASSERT_NE(NULL, s);
	while (n <= rings && !test_stream_create(self->card.fd, 0, 4, &s[n]))
		n++;
	EXPECT_EQ(free_rings, n);
	EXPECT_EQ(0, test_param_or_die(self->card.fd, DRM_NPU_PARAM_FREE_RINGS));
	EXPECT_EQ(-EBUSY, test_stream_create(self->card.fd, 0, 4, &s[n]));
	EXPECT_EQ(n, test_card_attr(self->card.bdf, "rings_used"));
	for (i = 0; i < n; i++)
		EXPECT_EQ(0, test_stream_destroy(self->card.fd, s[i].id, 0));
	EXPECT_EQ(free_rings, test_param_or_die(self->card.fd, DRM_NPU_PARAM_FREE_RINGS));
	free(s);
}

/*
 * Once WAIT returns, the user pages of the work before are unpinned, and so
 * unmapped for the card. The last batch's may not be yet: the card writes
 * the stream's slot before the ring's completion word, which retiring goes
 * by. Without that, a loop into one buffer stacks mappings of it while the
 * retire work lags (DMA-API debug reports more than 7, make check-debug).
 */
TEST_F(stream, wait_gives_back_earlier_batches_pages)
{
	struct drm_npu_stream_create s;
	struct drm_npu_cmd fill;
	long long pinned;
	uint8_t *out;
	uint64_t seq;
	int i;

	out = aligned_alloc(4096, 4096);
	ASSERT_NE(NULL, out);
	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &s));
	pinned = test_card_attr(self->card.bdf, "pinned_pages");
	for (i = 1; i <= 20; i++) {
		fill = test_cmd_fill((uintptr_t)out, i, 4096, DRM_NPU_CMD_DST_USER);
		ASSERT_EQ(0, test_submit(self->card.fd, s.id, &fill, 1, 0, &seq));
		ASSERT_EQ(0, test_wait(self->card.fd, s.slot, seq, 10000));
		EXPECT_GE(pinned + 1, test_card_attr(self->card.bdf, "pinned_pages"));
		EXPECT_EQ(i, out[0]);
		EXPECT_EQ(i, out[4095]);
	}
	free(out);
}

TEST_F(stream, destroy_waits_for_work)
{
	struct drm_npu_stream_create s;
	uint8_t *src = malloc(16 << 20), *dst = calloc(1, 16 << 20);
	uint64_t seq;

	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &s));
	test_fill_random(src, 16 << 20, 3);
	{
	struct drm_npu_cmd copy = test_cmd_copy((uintptr_t)dst, (uintptr_t)src, 16 << 20,
						DRM_NPU_CMD_SRC_USER | DRM_NPU_CMD_DST_USER);

	ASSERT_EQ(0, test_submit(self->card.fd, s.id, &copy, 1, 0, &seq));
	}
	ASSERT_EQ(0, test_stream_destroy(self->card.fd, s.id, 0));
	EXPECT_EQ(0, memcmp(src, dst, 16 << 20));
	free(src);
	free(dst);
}

TEST_F(stream, destroy_abort_fails_pending_work)
{
	struct drm_npu_stream_create s;
	uint32_t ev, done;
	uint64_t seq;
	struct drm_npu_cmd cmds[2];

	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &s));
	ASSERT_EQ(0, test_slot_alloc(self->card.fd, &ev));
	ASSERT_EQ(0, test_slot_alloc(self->card.fd, &done));
	cmds[0] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_SLOT_WAIT, .slot = ev, .value = 1 };
	cmds[1] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_SLOT_WRITE, .slot = done, .value = 1 };
	ASSERT_EQ(0, test_submit(self->card.fd, s.id, cmds, 2, 0, &seq));
	ASSERT_EQ(0, test_stream_destroy(self->card.fd, s.id, DRM_NPU_STREAM_DESTROY_ABORT));
	/* The event the aborted batch would have written reports the error. */
	EXPECT_EQ(-EIO, test_wait(self->card.fd, done, 1, 1000));
	EXPECT_EQ(DRM_NPU_ERR_ABORTED, self->card.fence[done].error);
	EXPECT_EQ(-ENOENT, test_wait(self->card.fd, s.slot, seq, 0));
}

TEST_F(stream, wait_is_interruptible)
{
	struct drm_npu_stream_create s;
	uint32_t ev;
	pid_t pid;
	int status;

	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &s));
	ASSERT_EQ(0, test_slot_alloc(self->card.fd, &ev));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		signal(SIGALRM, SIG_IGN);
		alarm(1);
		_exit(test_wait(self->card.fd, ev, 1, -1) == -EINTR ? 0 : 1);
	}
	usleep(100 * 1000);
	kill(pid, SIGUSR1);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(SIGUSR1, WTERMSIG(status));
}

TEST_F(stream, sysfs_entry_follows_the_stream)
{
	struct drm_npu_stream_create s;
	char state[32];
	uint64_t seq;
	int ring;

	ASSERT_EQ(0, test_stream_create(self->card.fd, 5, 0, &s));
	ring = test_stream_ring(self->card.bdf, s.id);
	ASSERT_GE(ring, 0);
	EXPECT_EQ(5, test_stream_attr(self->card.bdf, ring, "priority", NULL, 0));
	EXPECT_EQ(ring, test_stream_attr(self->card.bdf, ring, "ring", NULL, 0));
	test_stream_attr(self->card.bdf, ring, "state", state, sizeof(state));
	EXPECT_STREQ("idle", state);
	ASSERT_EQ(0, test_submit(self->card.fd, s.id, (struct drm_npu_cmd[2]){ { 0 } }, 2, 0, &seq));
	ASSERT_EQ(0, test_wait(self->card.fd, s.slot, seq, 10000));
	EXPECT_EQ(seq, test_stream_attr(self->card.bdf, ring, "submitted", NULL, 0));
	EXPECT_EQ(seq, test_stream_attr(self->card.bdf, ring, "completed", NULL, 0));
	EXPECT_EQ(0, test_stream_attr(self->card.bdf, ring, "pending", NULL, 0));
	ASSERT_EQ(0, test_stream_destroy(self->card.fd, s.id, 0));
	EXPECT_EQ(-1, test_stream_attr(self->card.bdf, ring, "pid", NULL, 0));
}

/* The card's jobs made so far and alive now (debugfs ring dump). */
static int card_jobs(const char *bdf, long long *made, int *alive)
{
	char path[PATH_MAX], buf[16384], *p;

	snprintf(path, sizeof(path), "/sys/kernel/debug/accel/%s/rings", bdf);
	if (text_read(path, buf, sizeof(buf)))
		return -1;
	p = strstr(buf, "jobs ");
	if (!p || sscanf(p, "jobs %lld made, %d alive", made, alive) != 2)
		return -1;
	return 0;
}

/*
 * A batch of one or two commands takes its job from the stream's pool:
 * 2000 of them, waited for a hundred at a time, make at most a pool's
 * worth of jobs (256) and those in flight, not one each. Destroying the stream
 * frees the pool with it.
 */
TEST_F(stream, small_jobs_are_reused_and_freed_with_the_stream)
{
	struct drm_npu_cmd fill = test_cmd_fill(self->buf.addr, 7, 64, 0);
	struct drm_npu_stream_create s;
	long long made0, made;
	int alive0, alive, i, j;
	uint64_t seq = 0;

	ASSERT_EQ(0, card_jobs(self->card.bdf, &made0, &alive0));
	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &s));
	for (i = 0; i < 20; i++) {
		for (j = 0; j < 100; j++)
			ASSERT_EQ(0, test_submit(self->card.fd, s.id, &fill, 1, 0, &seq));
		ASSERT_EQ(0, test_wait(self->card.fd, s.slot, seq, 10000));
	}
	ASSERT_EQ(0, card_jobs(self->card.bdf, &made, &alive));
	EXPECT_LE(made - made0, 256 + 2 * 100) TH_LOG("%lld jobs made", made - made0);
	EXPECT_GT(alive, alive0);
	ASSERT_EQ(0, test_stream_destroy(self->card.fd, s.id, 0));
	ASSERT_EQ(0, card_jobs(self->card.bdf, &made, &alive));
	EXPECT_EQ(alive0, alive);
}

TEST_HARNESS_MAIN
