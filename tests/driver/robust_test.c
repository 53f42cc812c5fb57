// SPDX-License-Identifier: GPL-2.0-only
/*
 * What userspace cannot break: a stale event write cannot retire another
 * stream's work, device memory comes back cleared, host operands are
 * bounded, slots run out cleanly, and a submitter blocked on a full ring
 * holds up neither a signal nor a non-blocking submitter.
 */

#include <pthread.h>
#include <signal.h>

#include "kselftest_harness.h"
#include "npu_test_ioctl.h"

FIXTURE(robust) {
	struct test_card card;
	struct drm_npu_stream_create stream;
	struct drm_npu_bo_create buf;
};

FIXTURE_SETUP(robust)
{
	ASSERT_EQ(0, test_card_open(&self->card, 0));
	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &self->stream));
	ASSERT_EQ(0, test_bo_create(self->card.fd, 1 << 20, 0, &self->buf));
}

FIXTURE_TEARDOWN(robust)
{
	test_card_close(&self->card);
}

static struct drm_npu_cmd slot_cmd(uint32_t op, uint32_t slot, uint64_t value)
{
	return (struct drm_npu_cmd){ .op = op, .slot = slot, .value = value };
}

static long long pinned_pages(const char *bdf)
{
	return test_card_attr(bdf, "pinned_pages");
}

static long long stream_key(struct test_card *card, uint32_t id, const char *key)
{
	int ring = test_stream_ring(card->bdf, id);

	return ring < 0 ? -1 : test_stream_attr(card->bdf, ring, key, NULL, 0);
}

/*
 * A batch queued on stream A writes an event slot that is then freed and
 * handed to a new stream B as B's own slot: when A's write lands there, B's
 * queued work (and the user pages it pinned) must stay in place.
 */
TEST_F(robust, stale_event_write_cannot_retire_another_streams_work)
{
	struct drm_npu_stream_create b;
	uint32_t gate_a, gate_b, ev;
	uint8_t *page;
	struct drm_npu_cmd a_cmds[2], b_cmds[2];
	long long pinned;
	uint64_t seq;

	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, page);
	memset(page, 0, 4096);
	ASSERT_EQ(0, test_slot_alloc(self->card.fd, &gate_a));
	ASSERT_EQ(0, test_slot_alloc(self->card.fd, &gate_b));
	ASSERT_EQ(0, test_slot_alloc(self->card.fd, &ev));

	a_cmds[0] = slot_cmd(DRM_NPU_OP_SLOT_WAIT, gate_a, 1);
	a_cmds[1] = slot_cmd(DRM_NPU_OP_SLOT_WRITE, ev, 1ULL << 40);
	ASSERT_EQ(0, test_submit(self->card.fd, self->stream.id, a_cmds, 2, 0, &seq));

	/* Slots are handed out lowest first: B gets the freed event slot. */
	ASSERT_EQ(0, test_slot_op(self->card.fd, DRM_IOCTL_NPU_SLOT_FREE, ev, 0));
	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &b));
	ASSERT_EQ(ev, b.slot);

	pinned = pinned_pages(self->card.bdf);
	b_cmds[0] = slot_cmd(DRM_NPU_OP_SLOT_WAIT, gate_b, 1);
	b_cmds[1] = test_cmd_fill((uintptr_t)page, 0x5a, 4096, DRM_NPU_CMD_DST_USER);
	ASSERT_EQ(0, test_submit(self->card.fd, b.id, b_cmds, 2, 0, &seq));
	EXPECT_EQ(pinned + 1, pinned_pages(self->card.bdf));

	/* A runs and writes its value over B's slot. */
	ASSERT_EQ(0, test_slot_op(self->card.fd, DRM_IOCTL_NPU_SLOT_SIGNAL, gate_a, 1));
	ASSERT_EQ(0, test_wait(self->card.fd, self->stream.slot, 1, 10000));
	EXPECT_EQ(1ULL << 40, self->card.fence[b.slot].value);

	/* B's batch is still queued, its page still pinned for the card. */
	EXPECT_EQ(1, stream_key(&self->card, b.id, "pending"));
	EXPECT_EQ(0, stream_key(&self->card, b.id, "completed"));
	EXPECT_EQ(pinned + 1, pinned_pages(self->card.bdf));

	ASSERT_EQ(0, test_slot_op(self->card.fd, DRM_IOCTL_NPU_SLOT_SIGNAL, gate_b, 1));
	/* B's slot no longer says when B is done; destroying B waits for it. */
	EXPECT_EQ(0, test_stream_destroy(self->card.fd, b.id, 0));
	EXPECT_EQ(0x5a, page[0]);
	EXPECT_EQ(0x5a, page[4095]);
	EXPECT_EQ(pinned, pinned_pages(self->card.bdf));
	munmap(page, 4096);
}

TEST_F(robust, device_memory_comes_back_cleared)
{
	const size_t size = 256 << 10;
	struct drm_npu_bo_create again;
	uint8_t *host = malloc(size);
	size_t i;

	ASSERT_NE(NULL, host);
	ASSERT_EQ(0, test_run(&self->card, &self->stream,
			      test_cmd_fill(self->buf.addr, 0xa5, 1 << 20, 0)));
	/* Reading the stream's report retires the fill, which drops its hold. */
	ASSERT_EQ(0, stream_key(&self->card, self->stream.id, "pending"));
	ASSERT_EQ(0, test_bo_close(self->card.fd, self->buf.handle));

	/* The best fit for the same size is the memory just freed. */
	ASSERT_EQ(0, test_bo_create(self->card.fd, 1 << 20, 0, &again));
	EXPECT_EQ(self->buf.addr, again.addr);
	memset(host, 0xff, size);
	ASSERT_EQ(0, test_run(&self->card, &self->stream,
			      test_cmd_copy((uintptr_t)host, again.addr + (512 << 10), size,
					    DRM_NPU_CMD_DST_USER)));
	for (i = 0; i < size; i++)
		ASSERT_EQ(0, host[i]) TH_LOG("byte %zu", i);
	free(host);
}

TEST_F(robust, host_operands_are_bounded)
{
	const size_t max = DRM_NPU_MAX_HOST_SIZE;
	struct drm_npu_bo_create host;
	uint8_t *mem;
	uint64_t seq;
	struct drm_npu_cmd fill = test_cmd_fill(0, 0x3c, max + 1, DRM_NPU_CMD_DST_USER);

	mem = mmap(NULL, max + 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	ASSERT_NE(MAP_FAILED, mem);
	fill.dst = (uintptr_t)mem;
	EXPECT_EQ(-EINVAL, test_submit(self->card.fd, self->stream.id, &fill, 1, 0, &seq));

	/* The largest one, unaligned, spans more pages than any other. */
	fill.dst = (uintptr_t)mem + 1;
	fill.size = max;
	mem[0] = 0x11;
	mem[max + 1] = 0x22;
	ASSERT_EQ(0, test_submit(self->card.fd, self->stream.id, &fill, 1, 0, &seq));
	ASSERT_EQ(0, test_wait(self->card.fd, self->stream.slot, seq, 60000));
	EXPECT_EQ(0x11, mem[0]);
	EXPECT_EQ(0x3c, mem[1]);
	EXPECT_EQ(0x3c, mem[max / 2]);
	EXPECT_EQ(0x3c, mem[max]);
	EXPECT_EQ(0x22, mem[max + 1]);
	munmap(mem, max + 4096);

	/* The same bound for pinned host buffers. */
	ASSERT_EQ(0, test_bo_create(self->card.fd, max + 4096, DRM_NPU_BO_HOST, &host));
	fill = test_cmd_fill(0, 1, max + 1, DRM_NPU_CMD_DST_HOST);
	fill.dst_handle = host.handle;
	EXPECT_EQ(-EINVAL, test_submit(self->card.fd, self->stream.id, &fill, 1, 0, &seq));
	EXPECT_EQ(0, test_bo_close(self->card.fd, host.handle));
}

TEST_F(robust, slots_run_out_cleanly)
{
	uint64_t total = test_param_or_die(self->card.fd, DRM_NPU_PARAM_NUM_SLOTS);
	uint64_t free_slots = test_param_or_die(self->card.fd, DRM_NPU_PARAM_FREE_SLOTS);
	struct drm_npu_stream_create s;
	uint32_t *slots = calloc(total, sizeof(*slots));
	uint64_t i, n = 0;

	ASSERT_NE(NULL, slots);
	while (n < total && !test_slot_alloc(self->card.fd, &slots[n]))
		n++;
	EXPECT_EQ(free_slots, n);
	EXPECT_EQ(-ENOSPC, test_slot_alloc(self->card.fd, &slots[n]));
	EXPECT_EQ(-ENOSPC, test_stream_create(self->card.fd, 0, 0, &s));
	EXPECT_EQ(0, test_param_or_die(self->card.fd, DRM_NPU_PARAM_FREE_SLOTS));
	/* The existing stream still works. */
	EXPECT_EQ(0, test_run(&self->card, &self->stream,
			      test_cmd_fill(self->buf.addr, 1, 64, 0)));

	for (i = 0; i < n; i++)
		ASSERT_EQ(0, test_slot_op(self->card.fd, DRM_IOCTL_NPU_SLOT_FREE, slots[i], 0));
	EXPECT_EQ(free_slots, test_param_or_die(self->card.fd, DRM_NPU_PARAM_FREE_SLOTS));
	free(slots);
}

struct blocked_submit {
	int fd;
	uint32_t stream;
	struct drm_npu_cmd cmd;
	int ret;
	volatile int started;
};

static void *submit_blocking(void *arg)
{
	struct blocked_submit *b = arg;
	uint64_t seq;

	b->started = 1;
	b->ret = test_submit(b->fd, b->stream, &b->cmd, 1, 0, &seq);
	return NULL;
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* A 4-entry ring holds one single-command batch and its two fences. */
static void fill_small_ring(struct _test_data_robust *self,
			    struct drm_npu_stream_create *s, uint32_t gate,
			    struct __test_metadata *_metadata)
{
	struct drm_npu_cmd wait = slot_cmd(DRM_NPU_OP_SLOT_WAIT, gate, 1);
	struct drm_npu_cmd nop = { .op = DRM_NPU_OP_NOP };
	uint64_t seq;

	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 4, s));
	ASSERT_EQ(0, test_submit(self->card.fd, s->id, &wait, 1, 0, &seq));
	EXPECT_EQ(-EAGAIN, test_submit(self->card.fd, s->id, &nop, 1,
				       DRM_NPU_SUBMIT_NONBLOCK, &seq));
}

TEST_F(robust, full_ring_blocks_without_holding_others)
{
	struct blocked_submit b = { .fd = self->card.fd, .cmd = { .op = DRM_NPU_OP_NOP } };
	struct drm_npu_cmd nop = { .op = DRM_NPU_OP_NOP };
	struct drm_npu_stream_create s;
	uint32_t gate;
	pthread_t thread;
	int64_t start;
	uint64_t seq;

	ASSERT_EQ(0, test_slot_alloc(self->card.fd, &gate));
	fill_small_ring(self, &s, gate, _metadata);
	b.stream = s.id;
	ASSERT_EQ(0, pthread_create(&thread, NULL, submit_blocking, &b));
	while (!b.started)
		usleep(1000);
	usleep(200 * 1000);

	/* The blocked submitter sleeps without the stream's lock. */
	start = test_now_ns();
	EXPECT_EQ(-EAGAIN, test_submit(self->card.fd, s.id, &nop, 1,
				       DRM_NPU_SUBMIT_NONBLOCK, &seq));
	EXPECT_LT(test_now_ns() - start, 1000 * 1000000LL);

	ASSERT_EQ(0, test_slot_op(self->card.fd, DRM_IOCTL_NPU_SLOT_SIGNAL, gate, 1));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	EXPECT_EQ(0, b.ret);
	EXPECT_EQ(0, test_wait(self->card.fd, s.slot, 2, 10000));
	EXPECT_EQ(0, test_stream_destroy(self->card.fd, s.id, 0));
}

TEST_F(robust, signal_interrupts_a_submit_waiting_for_room)
{
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	struct drm_npu_cmd nop = { .op = DRM_NPU_OP_NOP };
	struct drm_npu_stream_create s;
	uint32_t gate;
	uint64_t seq;

	ASSERT_EQ(0, test_slot_alloc(self->card.fd, &gate));
	fill_small_ring(self, &s, gate, _metadata);

	/* No SA_RESTART: the interrupted ioctl returns to us. */
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, &old));
	alarm(1);
	EXPECT_EQ(-EINTR, test_submit(self->card.fd, s.id, &nop, 1, 0, &seq));
	sigaction(SIGALRM, &old, NULL);
	EXPECT_EQ(1, stream_key(&self->card, s.id, "submitted"));

	ASSERT_EQ(0, test_slot_op(self->card.fd, DRM_IOCTL_NPU_SLOT_SIGNAL, gate, 1));
	EXPECT_EQ(0, test_wait(self->card.fd, s.slot, 1, 10000));
	ASSERT_EQ(0, test_submit(self->card.fd, s.id, &nop, 1, 0, &seq));
	EXPECT_EQ(2, seq);
	EXPECT_EQ(0, test_wait(self->card.fd, s.slot, 2, 10000));
	EXPECT_EQ(0, test_stream_destroy(self->card.fd, s.id, 0));
}

TEST_HARNESS_MAIN
