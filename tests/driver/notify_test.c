// SPDX-License-Identifier: GPL-2.0-only
/*
 * Doorbells and interrupts on demand (docs/hardware.md): the driver rings
 * only a ring the card no longer fetches, and the card interrupts only for
 * batches someone waits for.  Waiters still always wake, work a stream
 * destroy waits for still ends, completed work is still let go, and hang
 * detection still fires without any interrupt.
 */

#include <pthread.h>

#include "kselftest_harness.h"
#include "npu_test_ioctl.h"
#include "text_file.h"

FIXTURE(notify) {
	struct test_card card;
	struct drm_npu_stream_create stream, other;
	struct drm_npu_bo_create buf;
	int ring;		/* the one victim_inject() arms */
	int rings[2];		/* of stream and other */
	long hang_timeout, wait_poll_us;
};

/* A fault an earlier suite left armed on a ring (a reset keeps them). */
static int ring_clear(const char *bdf, int ring)
{
	char what[32];

	snprintf(what, sizeof(what), "clear %d", ring);
	return test_inject(bdf, what);
}

FIXTURE_SETUP(notify)
{
	self->hang_timeout = test_driver_param("hang_timeout_ms");
	self->wait_poll_us = test_driver_param("wait_poll_us");
	ASSERT_LE(0, self->hang_timeout);
	ASSERT_EQ(0, test_card_open(&self->card, 0));
	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &self->stream));
	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &self->other));
	ASSERT_EQ(0, test_bo_create(self->card.fd, 1 << 20, 0, &self->buf));
	self->rings[0] = test_stream_ring(self->card.bdf, self->stream.id);
	self->rings[1] = test_stream_ring(self->card.bdf, self->other.id);
	self->ring = self->rings[0];
	ASSERT_GE(self->ring, 0);
	ASSERT_EQ(0, ring_clear(self->card.bdf, self->rings[0]));
	ASSERT_EQ(0, ring_clear(self->card.bdf, self->rings[1]));
}

/* The faults and parameters a test set, also when it stopped half-way. */
FIXTURE_TEARDOWN(notify)
{
	ring_clear(self->card.bdf, self->rings[0]);
	ring_clear(self->card.bdf, self->rings[1]);
	test_card_close(&self->card);
	test_set_driver_param("hang_timeout_ms", self->hang_timeout);
	if (self->wait_poll_us >= 0)
		test_set_driver_param("wait_poll_us", self->wait_poll_us);
}

/* Interrupts the card's vectors took so far, from /proc/interrupts. */
static long long card_interrupts(const char *bdf)
{
	char line[1024];
	long long sum = 0;
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, ':');

		if (!p || !strstr(line, bdf))
			continue;
		for (p++; *p == ' ' || (*p >= '0' && *p <= '9');) {
			char *end;
			long long n = strtoll(p, &end, 10);

			if (end == p)
				break;
			sum += n;
			p = end;
		}
	}
	fclose(f);
	return sum;
}

/*
 * Whether the card still fetches the ring, the doorbells the driver rang
 * for it and the batches it pushed (debugfs).
 */
static int ring_doorbells(const char *bdf, int ring, unsigned int *fetching,
			  unsigned long long *doorbells, unsigned long long *pushes)
{
	char path[PATH_MAX], buf[16384], head[32], *p;

	snprintf(path, sizeof(path), "/sys/kernel/debug/accel/%s/rings", bdf);
	if (text_read(path, buf, sizeof(buf)))
		return -1;
	snprintf(head, sizeof(head), "ring %d:", ring);
	p = strstr(buf, head);
	if (!p)
		return -1;
	p = strstr(p, "fetching");
	if (!p || sscanf(p, "fetching %u, %llu doorbells for %llu pushes",
			 fetching, doorbells, pushes) != 3)
		return -1;
	return 0;
}

static struct drm_npu_cmd nop(void)
{
	return (struct drm_npu_cmd){ .op = DRM_NPU_OP_NOP };
}

static struct drm_npu_cmd slot_write(uint32_t slot, uint64_t value)
{
	return (struct drm_npu_cmd){ .op = DRM_NPU_OP_SLOT_WRITE, .slot = slot, .value = value };
}

/* Spins on the mapped slot, no system call: a caller that asks for no interrupt. */
static bool slot_spin(struct test_card *card, uint32_t slot, uint64_t value, int timeout_ms)
{
	volatile struct drm_npu_fence_slot *s = &card->fence[slot];
	int64_t end = test_now_ns() + timeout_ms * 1000000LL;

	while ((int64_t)(s->value - value) < 0) {
		if (s->error || test_now_ns() > end)
			return false;
		sched_yield();
	}
	return true;
}

static int victim_inject(struct _test_data_notify *self, const char *kind, int arg)
{
	char what[64];

	snprintf(what, sizeof(what), "%s %d %d", kind, self->ring, arg);
	return test_inject(self->card.bdf, what);
}

/*
 * Batches nobody waits for raise no interrupt; a waiter gets one, and so
 * does a batch that pinned user memory, whose pages go back at once.
 */
TEST_F(notify, interrupts_only_for_waiters)
{
	struct drm_npu_cmd cmd = nop();
	unsigned long long pinned;
	long long before, after;
	static char page[4096];
	uint64_t seq = 0;
	int i;

	before = card_interrupts(self->card.bdf);
	ASSERT_GE(before, 0);
	for (i = 0; i < 200; i++)
		ASSERT_EQ(0, test_submit(self->card.fd, self->stream.id, &cmd, 1, 0, &seq));
	ASSERT_TRUE(slot_spin(&self->card, self->stream.slot, seq, 10000));
	after = card_interrupts(self->card.bdf);
	EXPECT_LE(after - before, 2) TH_LOG("%lld interrupts for 200 batches", after - before);

	/*
	 * A waiter: commands slow enough that the wait sleeps, also when a
	 * busy host stalls the guest between the submission and the wait.
	 */
	ASSERT_EQ(0, victim_inject(self, "delay", 300000));
	ASSERT_EQ(0, test_submit(self->card.fd, self->stream.id, &cmd, 1, 0, &seq));
	EXPECT_EQ(0, test_wait(self->card.fd, self->stream.slot, seq, 10000));
	/*
	 * The interrupt is due, but may land after WAIT returned: the retire
	 * timer can find the fence first and wake the waiter.
	 */
	test_wait_until(card_interrupts(self->card.bdf) - after >= 1, TEST_SETTLE_MS);
	EXPECT_GE(card_interrupts(self->card.bdf) - after, 1);
	ASSERT_EQ(0, victim_inject(self, "clear", 0));

	/*
	 * Pinned pages: no waiter, yet the card interrupts for them and they
	 * are let go without any further call.
	 */
	pinned = test_card_attr(self->card.bdf, "pinned_pages");
	after = card_interrupts(self->card.bdf);
	cmd = test_cmd_copy((uintptr_t)page, self->buf.addr, sizeof(page), DRM_NPU_CMD_DST_USER);
	ASSERT_EQ(0, test_submit(self->card.fd, self->stream.id, &cmd, 1, 0, &seq));
	ASSERT_TRUE(slot_spin(&self->card, self->stream.slot, seq, 10000));
	test_wait_until(test_card_attr(self->card.bdf, "pinned_pages") == pinned, TEST_SETTLE_MS);
	EXPECT_EQ(pinned, test_card_attr(self->card.bdf, "pinned_pages"));
	test_wait_until(card_interrupts(self->card.bdf) - after >= 1, TEST_SETTLE_MS);
	EXPECT_GE(card_interrupts(self->card.bdf) - after, 1);
}

/*
 * Batches that follow each other closely find the card still fetching:
 * most ring no doorbell.  One that comes after the card went to sleep
 * rings.
 */
TEST_F(notify, doorbells_only_for_a_sleeping_card)
{
	unsigned long long doorbells, pushes, doorbells2, pushes2;
	struct drm_npu_cmd cmd = nop();
	unsigned int fetching = 1;
	uint64_t seq = 0;
	int i;

	for (i = 0; i < 500; i++)
		ASSERT_EQ(0, test_submit(self->card.fd, self->stream.id, &cmd, 1, 0, &seq));
	ASSERT_TRUE(slot_spin(&self->card, self->stream.slot, seq, 10000));
	ASSERT_EQ(0, ring_doorbells(self->card.bdf, self->ring, &fetching, &doorbells,
				    &pushes));
	EXPECT_EQ(500, pushes);
	EXPECT_LT(doorbells, pushes);
	TH_LOG("%llu doorbells for %llu batches", doorbells, pushes);

	/* Idle, the card soon stops fetching; the next batch wakes it. */
	test_wait_until(ring_doorbells(self->card.bdf, self->ring, &fetching, &doorbells,
				       &pushes) || !fetching, TEST_SETTLE_MS);
	ASSERT_EQ(0, ring_doorbells(self->card.bdf, self->ring, &fetching, &doorbells,
				    &pushes));
	ASSERT_EQ(0, fetching);
	ASSERT_EQ(0, test_submit(self->card.fd, self->stream.id, &cmd, 1, 0, &seq));
	ASSERT_TRUE(slot_spin(&self->card, self->stream.slot, seq, 10000));
	ASSERT_EQ(0, ring_doorbells(self->card.bdf, self->ring, &fetching, &doorbells2,
				    &pushes2));
	EXPECT_EQ(pushes + 1, pushes2);
	EXPECT_EQ(doorbells + 1, doorbells2);
}

#define WAKE_ROUNDS	2000

struct waker {
	struct test_card *card;
	uint32_t event;
	int failed_round;	/* 0: every wait returned 0 */
	int ret;
};

static void *event_waiter(void *arg)
{
	struct waker *w = arg;
	int i;

	for (i = 1; i <= WAKE_ROUNDS; i++) {
		w->ret = test_wait(w->card->fd, w->event, i, 10000);
		if (w->ret) {
			w->failed_round = i;
			break;
		}
	}
	return NULL;
}

/*
 * One thread records an event after every small fill, as fast as the ring
 * takes them (so it also waits for ring space), while another waits for
 * each value in turn: every wait, asleep or not, returns 0.
 */
TEST_F(notify, waiter_always_wakes)
{
	struct waker w = { .card = &self->card };
	struct drm_npu_cmd cmds[2];
	unsigned int seed = 7;
	pthread_t th;
	uint64_t seq;
	int i;

	ASSERT_EQ(0, test_slot_alloc(self->card.fd, &w.event));
	ASSERT_EQ(0, pthread_create(&th, NULL, event_waiter, &w));
	for (i = 1; i <= WAKE_ROUNDS; i++) {
		cmds[0] = test_cmd_fill(self->buf.addr, i, 1 + rand_r(&seed) % 65536, 0);
		cmds[1] = slot_write(w.event, i);
		ASSERT_EQ(0, test_submit(self->card.fd, self->stream.id, cmds, 2, 0, &seq));
		if (rand_r(&seed) % 8 == 0)
			usleep(rand_r(&seed) % 200);
	}
	ASSERT_EQ(0, pthread_join(th, NULL));
	EXPECT_EQ(0, w.ret) TH_LOG("wait for value %d: %d", w.failed_round, w.ret);
	/* The stream's own slot, waited for in the kernel, likewise. */
	EXPECT_EQ(0, test_wait(self->card.fd, self->stream.slot, seq, 10000));
}

/*
 * Destroying a stream waits for its queued work, though nothing asked the
 * card for an interrupt when it was queued.
 */
TEST_F(notify, destroy_waits_for_queued_work)
{
	static uint8_t back[4096];
	struct drm_npu_cmd fill = test_cmd_fill(self->buf.addr, 0x5a, sizeof(back), 0);
	int64_t start;
	uint64_t seq;
	int i;

	ASSERT_EQ(0, victim_inject(self, "delay", 100000));
	ASSERT_EQ(0, test_submit(self->card.fd, self->stream.id, &fill, 1, 0, &seq));
	start = test_now_ns();
	ASSERT_EQ(0, test_stream_destroy(self->card.fd, self->stream.id, 0));
	/* Three commands of 100 ms each: the fill and the two fences after it. */
	EXPECT_GE(test_now_ns() - start, 200 * 1000000LL);
	ASSERT_EQ(0, victim_inject(self, "clear", 0));

	ASSERT_EQ(0, test_run(&self->card, &self->other,
			      test_cmd_copy((uintptr_t)back, self->buf.addr, sizeof(back),
					    DRM_NPU_CMD_DST_USER)));
	for (i = 0; i < (int)sizeof(back); i++)
		ASSERT_EQ(0x5a, back[i]) TH_LOG("byte %d", i);
}

/* Hang detection needs no interrupt: the stream's slot says HANG. */
TEST_F(notify, hang_detected_without_interrupts)
{
	volatile struct drm_npu_fence_slot *slot = &self->card.fence[self->stream.slot];
	struct drm_npu_cmd cmd = nop();
	uint64_t seq;

	ASSERT_EQ(0, test_set_driver_param("hang_timeout_ms", 500));
	ASSERT_EQ(0, victim_inject(self, "hang", 0));
	ASSERT_EQ(0, test_submit(self->card.fd, self->stream.id, &cmd, 1, 0, &seq));
	test_wait_until(slot->error, TEST_SETTLE_MS);
	EXPECT_EQ(DRM_NPU_ERR_HANG, slot->error);
	EXPECT_NE(seq, slot->value);
}

/*
 * Work whose end raised no interrupt is still retired: a buffer it held
 * returns to the card's free memory without any further call on the
 * stream, also when the work outlasts the first look (30 ms a command).
 */
TEST_F(notify, completed_work_is_let_go)
{
	struct drm_npu_bo_create big;
	struct drm_npu_cmd fill;
	uint64_t free_before, seq;
	bool freed;

	free_before = test_param_or_die(self->card.fd, DRM_NPU_PARAM_DEVMEM_FREE);
	ASSERT_EQ(0, test_bo_create(self->card.fd, 8 << 20, 0, &big));
	fill = test_cmd_fill(big.addr, 3, 8 << 20, 0);
	ASSERT_EQ(0, victim_inject(self, "delay", 30000));
	ASSERT_EQ(0, test_submit(self->card.fd, self->stream.id, &fill, 1, 0, &seq));
	ASSERT_EQ(0, test_bo_close(self->card.fd, big.handle));
	ASSERT_TRUE(slot_spin(&self->card, self->stream.slot, seq, 10000));
	freed = test_wait_until(test_param_or_die(self->card.fd, DRM_NPU_PARAM_DEVMEM_FREE) ==
				free_before, TEST_SETTLE_MS);
	EXPECT_EQ(free_before, test_param_or_die(self->card.fd, DRM_NPU_PARAM_DEVMEM_FREE));
	EXPECT_TRUE(freed);
}

/*
 * A wait leaves device-only work for later retirement, but memory the
 * caller closed is its again at once: an allocation that needs the
 * memory such done work still holds retires it first.
 */
TEST_F(notify, closed_buffer_is_reusable_after_a_wait)
{
	struct drm_npu_bo_create big, again;
	struct drm_npu_cmd fill;
	uint64_t free_before, seq;

	free_before = test_param_or_die(self->card.fd, DRM_NPU_PARAM_DEVMEM_FREE);
	ASSERT_EQ(0, test_bo_create(self->card.fd, free_before, 0, &big));
	fill = test_cmd_fill(big.addr, 5, 1 << 20, 0);
	ASSERT_EQ(0, test_submit(self->card.fd, self->stream.id, &fill, 1, 0, &seq));
	ASSERT_EQ(0, test_wait(self->card.fd, self->stream.slot, seq, 10000));
	ASSERT_EQ(0, test_bo_close(self->card.fd, big.handle));
	ASSERT_EQ(0, test_bo_create(self->card.fd, free_before, 0, &again));
	EXPECT_EQ(0, test_param_or_die(self->card.fd, DRM_NPU_PARAM_DEVMEM_FREE));
	EXPECT_EQ(0, test_bo_close(self->card.fd, again.handle));
}

static int wait_until(int fd, uint32_t slot, uint64_t value, int64_t deadline_ns)
{
	struct drm_npu_wait w = { .slot = slot, .value = value, .timeout_ns = deadline_ns };

	return test_ioctl(fd, DRM_IOCTL_NPU_WAIT, &w);
}

/* Waits of a few ms each on the stream's slot: what a polled wait learns from. */
static void learn_waits(struct _test_data_notify *self, struct __test_metadata *_metadata)
{
	struct drm_npu_cmd cmd = nop();
	uint64_t seq;
	int i;

	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, test_submit(self->card.fd, self->stream.id, &cmd, 1, 0, &seq));
		ASSERT_EQ(0, test_wait(self->card.fd, self->stream.slot, seq, 10000));
	}
}

/*
 * With wait_poll_us, a WAIT that expects its fence polls for it before
 * sleeping (docs/driver.md); it keeps every promise of a sleeping one: it
 * returns 0 with the value there, -EIO when the ring stops on an error, and
 * -ETIME at its deadline, no sooner; a hang is still found.
 */
TEST_F(notify, polled_wait_keeps_its_promises)
{
	volatile struct drm_npu_fence_slot *slot = &self->card.fence[self->stream.slot];
	struct drm_npu_cmd cmd = nop(), fill = test_cmd_fill(self->buf.addr, 1, 4096, 0);
	int64_t start, took;
	uint64_t seq;

	ASSERT_LE(0, self->wait_poll_us);
	ASSERT_EQ(0, test_set_driver_param("wait_poll_us", 2000));
	ASSERT_EQ(0, victim_inject(self, "delay", 3000));
	learn_waits(self, _metadata);

	/* Found polling or not, the value is there once WAIT returns 0. */
	ASSERT_EQ(0, test_submit(self->card.fd, self->stream.id, &cmd, 1, 0, &seq));
	EXPECT_EQ(0, test_wait(self->card.fd, self->stream.slot, seq, 10000));
	EXPECT_LE(0, (int64_t)(slot->value - seq));

	/* A deadline before the expected fence: -ETIME, not before it. */
	ASSERT_EQ(0, test_submit(self->card.fd, self->stream.id, &cmd, 1, 0, &seq));
	start = test_now_ns();
	EXPECT_EQ(-ETIME, wait_until(self->card.fd, self->stream.slot, seq + 1,
				     start + 1000000));
	took = test_now_ns() - start;
	EXPECT_LE(1000000, took);
	EXPECT_EQ(0, test_wait(self->card.fd, self->stream.slot, seq, 10000));

	/* The ring stops on a DMA fault: the polled wait says -EIO. */
	learn_waits(self, _metadata);
	ASSERT_EQ(0, victim_inject(self, "dma", 0));
	ASSERT_EQ(0, test_submit(self->card.fd, self->stream.id, &fill, 1, 0, &seq));
	EXPECT_EQ(-EIO, test_wait(self->card.fd, self->stream.slot, seq, 10000));
	EXPECT_EQ(DRM_NPU_ERR_DMA, slot->error);
	ASSERT_EQ(0, victim_inject(self, "clear", 0));

	/*
	 * A hang is found, and ends the polled wait, on the other stream: its
	 * hang check is not yet armed with the default timeout.
	 */
	ASSERT_EQ(0, test_set_driver_param("hang_timeout_ms", 500));
	self->ring = test_stream_ring(self->card.bdf, self->other.id);
	ASSERT_EQ(0, victim_inject(self, "delay", 3000));
	slot = &self->card.fence[self->other.slot];
	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(0, test_submit(self->card.fd, self->other.id, &cmd, 1, 0, &seq));
		ASSERT_EQ(0, test_wait(self->card.fd, self->other.slot, seq, 10000));
	}
	ASSERT_EQ(0, victim_inject(self, "hang", 0));
	ASSERT_EQ(0, test_submit(self->card.fd, self->other.id, &cmd, 1, 0, &seq));
	EXPECT_EQ(-EIO, test_wait(self->card.fd, self->other.slot, seq, 10000));
	EXPECT_EQ(DRM_NPU_ERR_HANG, slot->error);
}

TEST_HARNESS_MAIN
