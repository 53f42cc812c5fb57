// SPDX-License-Identifier: GPL-2.0-only
/*
 * The card's injected faults: a failed transfer, a hung ring, lost
 * interrupts, a dead card. Each gives the specified error to the stream
 * concerned and leaves other streams working. A test that kills or unbinds
 * the card binds it again, and the teardown makes sure of it, so that the
 * suites after this one find the card as it was.
 */

#include "kselftest_harness.h"
#include "npu_test_ioctl.h"

FIXTURE(fault) {
	struct test_card card;
	struct drm_npu_stream_create victim, bystander;
	struct drm_npu_bo_create buf;
	int ring;
	long hang_timeout, heartbeat_timeout;
};

FIXTURE_SETUP(fault)
{
	self->hang_timeout = test_driver_param("hang_timeout_ms");
	self->heartbeat_timeout = test_driver_param("heartbeat_timeout_ms");
	ASSERT_LE(0, self->hang_timeout);
	ASSERT_LE(0, self->heartbeat_timeout);
	ASSERT_EQ(0, test_set_driver_param("hang_timeout_ms", 500));
	ASSERT_EQ(0, test_card_open(&self->card, 0));
	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &self->victim));
	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &self->bystander));
	ASSERT_EQ(0, test_bo_create(self->card.fd, 1 << 20, 0, &self->buf));
	self->ring = test_stream_ring(self->card.bdf, self->victim.id);
	ASSERT_GE(self->ring, 0);
}

FIXTURE_TEARDOWN(fault)
{
	char what[32];

	snprintf(what, sizeof(what), "clear %d", self->ring);
	test_inject(self->card.bdf, what);
	test_card_close(&self->card);
	test_set_driver_param("hang_timeout_ms", self->hang_timeout);
	test_set_driver_param("heartbeat_timeout_ms", self->heartbeat_timeout);
	EXPECT_EQ(0, test_card_revive(self->card.bdf));
}

static int victim_inject(struct _test_data_fault *self, const char *kind, int arg)
{
	char what[64];

	snprintf(what, sizeof(what), "%s %d %d", kind, self->ring, arg);
	return test_inject(self->card.bdf, what);
}

static int bystander_run(struct _test_data_fault *self)
{
	return test_run(&self->card, &self->bystander,
			test_cmd_fill(self->buf.addr + 4096, 9, 4096, 0));
}

static const char *victim_state(struct _test_data_fault *self, char *state, size_t len)
{
	state[0] = 0;
	test_stream_attr(self->card.bdf, self->ring, "state", state, len);
	return state;
}

TEST_F(fault, dma_error_fails_the_stream)
{
	char state[32];
	uint64_t seq, seq2;
	uint32_t ev;
	struct drm_npu_cmd cmds[2];

	ASSERT_EQ(0, test_slot_alloc(self->card.fd, &ev));
	ASSERT_EQ(0, victim_inject(self, "dma", 0));
	cmds[0] = test_cmd_fill(self->buf.addr, 1, 4096, 0);
	cmds[1] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_SLOT_WRITE, .slot = ev, .value = 1 };
	ASSERT_EQ(0, test_submit(self->card.fd, self->victim.id, cmds, 2, 0, &seq));
	EXPECT_EQ(-EIO, test_wait(self->card.fd, self->victim.slot, seq, 10000));
	EXPECT_EQ(DRM_NPU_ERR_DMA, self->card.fence[self->victim.slot].error);
	/* The event the batch would have written fails with it. */
	EXPECT_EQ(-EIO, test_wait(self->card.fd, ev, 1, 1000));
	EXPECT_EQ(DRM_NPU_ERR_DMA, self->card.fence[ev].error);
	EXPECT_STREQ("failed", victim_state(self, state, sizeof(state)));
	EXPECT_EQ(-EIO, test_submit(self->card.fd, self->victim.id, cmds, 1, 0, &seq2));
	EXPECT_EQ(0, bystander_run(self));
	EXPECT_EQ(0, test_stream_destroy(self->card.fd, self->victim.id, 0));

	/* Recorded again on a healthy stream, the event works again. */
	cmds[1].value = 2;
	EXPECT_EQ(0, test_run(&self->card, &self->bystander, cmds[1]));
	EXPECT_EQ(0, test_wait(self->card.fd, ev, 2, 1000));
	EXPECT_EQ(0, self->card.fence[ev].error);
}

TEST_F(fault, failure_reaches_the_streams_waiting_on_it)
{
	struct drm_npu_cmd wait_then_fill[2], fill_then_record[2];
	uint64_t seq_victim, seq_waiter, seq_late;
	uint32_t ev;
	int64_t start;

	/* Only the propagation, not the hang timeout, may fail the waiter. */
	ASSERT_EQ(0, test_set_driver_param("hang_timeout_ms", 20000));
	ASSERT_EQ(0, test_slot_alloc(self->card.fd, &ev));
	wait_then_fill[0] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_SLOT_WAIT, .slot = ev, .value = 1 };
	wait_then_fill[1] = test_cmd_fill(self->buf.addr + 8192, 2, 64, 0);
	ASSERT_EQ(0, test_submit(self->card.fd, self->bystander.id, wait_then_fill, 2, 0,
				 &seq_waiter));

	ASSERT_EQ(0, victim_inject(self, "dma", 0));
	fill_then_record[0] = test_cmd_fill(self->buf.addr, 1, 64, 0);
	fill_then_record[1] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_SLOT_WRITE, .slot = ev, .value = 1 };
	start = test_now_ns();
	ASSERT_EQ(0, test_submit(self->card.fd, self->victim.id, fill_then_record, 2, 0,
				 &seq_victim));

	EXPECT_EQ(-EIO, test_wait(self->card.fd, self->victim.slot, seq_victim, 10000));
	EXPECT_EQ(-EIO, test_wait(self->card.fd, self->bystander.slot, seq_waiter, 10000));
	EXPECT_LT(test_now_ns() - start, 5000 * 1000000LL);
	EXPECT_EQ(DRM_NPU_ERR_DMA, self->card.fence[self->victim.slot].error);
	EXPECT_EQ(DRM_NPU_ERR_DEPENDENCY, self->card.fence[self->bystander.slot].error);

	/* A wait on the failed event queued afterwards fails as well. */
	{
		struct drm_npu_stream_create late;

		ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &late));
		ASSERT_EQ(0, test_submit(self->card.fd, late.id, wait_then_fill, 2, 0, &seq_late));
		EXPECT_EQ(-EIO, test_wait(self->card.fd, late.slot, seq_late, 10000));
		EXPECT_EQ(DRM_NPU_ERR_DEPENDENCY, self->card.fence[late.slot].error);
	}
}

TEST_F(fault, hung_ring_is_detected)
{
	struct drm_npu_cmd fill = test_cmd_fill(self->buf.addr, 1, 64, 0);
	char state[32];
	uint64_t seq;

	ASSERT_EQ(0, victim_inject(self, "hang", 0));
	ASSERT_EQ(0, test_submit(self->card.fd, self->victim.id, &fill, 1, 0, &seq));
	EXPECT_EQ(-EIO, test_wait(self->card.fd, self->victim.slot, seq, 10000));
	EXPECT_EQ(DRM_NPU_ERR_HANG, self->card.fence[self->victim.slot].error);
	EXPECT_STREQ("hung", victim_state(self, state, sizeof(state)));
	EXPECT_EQ(0, bystander_run(self));
	EXPECT_EQ(0, test_stream_destroy(self->card.fd, self->victim.id, 0));
}

TEST_F(fault, waiting_ring_is_not_hung)
{
	struct drm_npu_cmd wait = { .op = DRM_NPU_OP_SLOT_WAIT, .value = 1 };
	char state[32];
	uint64_t seq;
	uint32_t ev;

	/* Stalled on the card for three hang timeouts, waiting for the CPU. */
	ASSERT_EQ(0, test_slot_alloc(self->card.fd, &ev));
	wait.slot = ev;
	ASSERT_EQ(0, test_submit(self->card.fd, self->victim.id, &wait, 1, 0, &seq));
	EXPECT_EQ(-ETIME, test_wait(self->card.fd, self->victim.slot, seq, 1500));
	EXPECT_STREQ("busy", victim_state(self, state, sizeof(state)));
	EXPECT_EQ(0, test_slot_op(self->card.fd, DRM_IOCTL_NPU_SLOT_SIGNAL, ev, 1));
	EXPECT_EQ(0, test_wait(self->card.fd, self->victim.slot, seq, 10000));
	EXPECT_EQ(0, self->card.fence[self->victim.slot].error);
}

TEST_F(fault, slow_ring_is_not_hung)
{
	uint64_t seq;
	struct drm_npu_cmd cmds[4];
	int i;

	/* 100 ms a command, 500 ms timeout */
	ASSERT_EQ(0, victim_inject(self, "delay", 100000));
	for (i = 0; i < 4; i++)
		cmds[i] = test_cmd_fill(self->buf.addr, i, 64, 0);
	ASSERT_EQ(0, test_submit(self->card.fd, self->victim.id, cmds, 4, 0, &seq));
	EXPECT_EQ(0, test_wait(self->card.fd, self->victim.slot, seq, 10000));
	EXPECT_EQ(0, self->card.fence[self->victim.slot].error);
}

TEST_F(fault, lost_interrupt_is_recovered)
{
	struct drm_npu_cmd fill = test_cmd_fill(self->buf.addr, 1, 64, 0);
	uint64_t seq;

	ASSERT_EQ(0, victim_inject(self, "drop_irq", 1));
	ASSERT_EQ(0, test_submit(self->card.fd, self->victim.id, &fill, 1, 0, &seq));
	EXPECT_EQ(0, test_wait(self->card.fd, self->victim.slot, seq, 10000));
	EXPECT_EQ(0, self->card.fence[self->victim.slot].error);
	EXPECT_EQ(0, bystander_run(self));
}

/* Pages pinned system-wide with FOLL_PIN and not yet unpinned. */
static long long pins_outstanding(void)
{
	long long acquired = -1, released = -1, v;
	char line[128], name[64];
	FILE *f;

	/* Folds the per-CPU counters in, which /proc/vmstat alone lags behind. */
	text_write("/proc/sys/vm/stat_refresh", "1");
	f = fopen("/proc/vmstat", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %lld", name, &v) != 2)
			continue;
		if (!strcmp(name, "nr_foll_pin_acquired"))
			acquired = v;
		else if (!strcmp(name, "nr_foll_pin_released"))
			released = v;
	}
	fclose(f);
	return acquired < 0 || released < 0 ? -1 : acquired - released;
}

/*
 * A ring the card does not stop keeps what its work uses (pages, buffers,
 * the fence area it writes) and stays out of use, until unbinding resets
 * the card and gives it all back.
 */
TEST_F(fault, ring_that_does_not_stop_keeps_its_pages)
{
	const size_t size = 1 << 20;
	const long long pages = size / 4096;
	struct drm_npu_cmd cmds[2];
	struct drm_npu_stream_create s;
	long long pinned, rings_used, pins;
	uint8_t *mem;
	uint64_t seq;
	uint32_t ev;

	mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, mem);
	memset(mem, 0, size);
	pinned = test_card_attr(self->card.bdf, "pinned_pages");
	ASSERT_EQ(0, test_slot_alloc(self->card.fd, &ev));
	cmds[0] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_SLOT_WAIT, .slot = ev, .value = 1 };
	cmds[1] = test_cmd_fill((uintptr_t)mem, 0x77, size, DRM_NPU_CMD_DST_USER);
	ASSERT_EQ(0, test_submit(self->card.fd, self->victim.id, cmds, 2, 0, &seq));
	EXPECT_EQ(pinned + pages, test_card_attr(self->card.bdf, "pinned_pages"));
	rings_used = test_card_attr(self->card.bdf, "rings_used");

	ASSERT_EQ(0, victim_inject(self, "stuck_reset", 0));
	EXPECT_EQ(0, test_stream_destroy(self->card.fd, self->victim.id,
					 DRM_NPU_STREAM_DESTROY_ABORT));
	EXPECT_EQ(-1, test_stream_attr(self->card.bdf, self->ring, "id", NULL, 0));
	EXPECT_EQ(pinned + pages, test_card_attr(self->card.bdf, "pinned_pages"));
	EXPECT_EQ(rings_used, test_card_attr(self->card.bdf, "rings_used"));
	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &s));
	EXPECT_NE(self->ring, test_stream_ring(self->card.bdf, s.id));

	/* The ring indeed still runs, into pages that are still pinned. */
	ASSERT_EQ(0, test_slot_op(self->card.fd, DRM_IOCTL_NPU_SLOT_SIGNAL, ev, 1));
	test_wait_until(((volatile uint8_t *)mem)[size - 1] == 0x77, TEST_SETTLE_MS);
	EXPECT_EQ(0x77, mem[0]);
	EXPECT_EQ(0x77, mem[size - 1]);

	/* Unbinding resets the card; the kept pages are unpinned then. */
	pins = pins_outstanding();
	ASSERT_GE(pins, pages);
	test_card_close(&self->card);
	ASSERT_EQ(0, test_driver_unbind(self->card.bdf));
	EXPECT_LE(pins_outstanding(), pins - pages);
	ASSERT_EQ(0, test_driver_bind(self->card.bdf));
	ASSERT_EQ(0, test_card_open(&self->card, 0));
	EXPECT_EQ(0, test_card_attr(self->card.bdf, "pinned_pages"));
	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &s));
	ASSERT_EQ(0, test_bo_create(self->card.fd, 4096, 0, &self->buf));
	EXPECT_EQ(0, test_run(&self->card, &s, test_cmd_fill(self->buf.addr, 1, 64, 0)));
	self->ring = test_stream_ring(self->card.bdf, s.id);
	munmap(mem, size);
}

TEST_F(fault, dead_card_fails_every_waiter)
{
	uint32_t ev;
	uint64_t seq_a, seq_b;
	struct drm_npu_stream_create s;
	struct drm_npu_cmd wait = { .op = DRM_NPU_OP_SLOT_WAIT, .value = 1 };

	ASSERT_EQ(0, test_set_driver_param("heartbeat_timeout_ms", 500));
	ASSERT_EQ(0, test_slot_alloc(self->card.fd, &ev));
	wait.slot = ev;
	ASSERT_EQ(0, test_submit(self->card.fd, self->victim.id, &wait, 1, 0, &seq_a));
	ASSERT_EQ(0, test_submit(self->card.fd, self->bystander.id, &wait, 1, 0, &seq_b));
	ASSERT_EQ(0, victim_inject(self, "stop_heartbeat", 0));

	EXPECT_EQ(-EIO, test_wait(self->card.fd, self->victim.slot, seq_a, 10000));
	EXPECT_EQ(-EIO, test_wait(self->card.fd, self->bystander.slot, seq_b, 10000));
	EXPECT_EQ(DRM_NPU_ERR_DEAD, self->card.fence[self->victim.slot].error);
	EXPECT_EQ(DRM_NPU_ERR_DEAD, self->card.fence[self->bystander.slot].error);
	EXPECT_EQ(-ENODEV, test_stream_create(self->card.fd, 0, 0, &s));
	EXPECT_EQ(0, test_stream_destroy(self->card.fd, self->victim.id, 0));

	/* Rebinding resets the card and brings it back. */
	test_card_close(&self->card);
	ASSERT_EQ(0, test_driver_unbind(self->card.bdf));
	ASSERT_EQ(0, test_driver_bind(self->card.bdf));
	ASSERT_EQ(0, test_card_open(&self->card, 0));
	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &s));
	ASSERT_EQ(0, test_bo_create(self->card.fd, 4096, 0, &self->buf));
	EXPECT_EQ(0, test_run(&self->card, &s, test_cmd_fill(self->buf.addr, 1, 64, 0)));
	self->ring = test_stream_ring(self->card.bdf, s.id);
}

TEST_F(fault, unbind_with_work_in_flight)
{
	uint32_t ev;
	uint64_t seq;
	struct drm_npu_cmd wait = { .op = DRM_NPU_OP_SLOT_WAIT, .value = 1 };
	struct drm_npu_stream_create s;

	ASSERT_EQ(0, test_slot_alloc(self->card.fd, &ev));
	wait.slot = ev;
	ASSERT_EQ(0, test_submit(self->card.fd, self->victim.id, &wait, 1, 0, &seq));
	ASSERT_EQ(0, test_driver_unbind(self->card.bdf));
	/* The card is gone: calls say so, and the mapping reads as zeroes. */
	EXPECT_EQ(-ENODEV, test_wait(self->card.fd, self->victim.slot, seq, 1000));
	EXPECT_EQ(0, self->card.fence[self->victim.slot].value);
	EXPECT_EQ(-ENODEV, test_stream_create(self->card.fd, 0, 0, &s));
	test_card_close(&self->card);
	ASSERT_EQ(0, test_driver_bind(self->card.bdf));
	ASSERT_EQ(0, test_card_open(&self->card, 0));
	self->ring = 0;
}

struct blocked_wait {
	int fd;
	uint32_t slot;
	uint64_t value;
	int ret;
	volatile pid_t tid;
};

static void *wait_blocking(void *arg)
{
	struct blocked_wait *w = arg;

	w->tid = gettid();
	w->ret = test_wait(w->fd, w->slot, w->value, -1);
	return NULL;
}

/* The thread sleeps in an ioctl, however slow the guest's kernel is. */
static bool in_ioctl(pid_t tid)
{
	char path[64], buf[32] = "";
	int64_t start = test_now_ns();
	FILE *f;

	while (test_now_ns() - start < 60 * 1000000000LL) {
		snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
		f = fopen(path, "r");
		if (f && fgets(buf, sizeof(buf), f) && !strncmp(buf, "16 ", 3)) {
			fclose(f);
			return true;
		}
		if (f)
			fclose(f);
		usleep(10 * 1000);
	}
	return false;
}

/*
 * A waiter already asleep when the card is removed reads its slot after
 * the removal: the fence area must outlive the card, not only its mapping
 * (KASAN, under make check-debug, catches a read of freed memory).
 */
TEST_F(fault, waiter_outlives_unbind)
{
	struct drm_npu_cmd wait = { .op = DRM_NPU_OP_SLOT_WAIT, .value = 1 };
	struct blocked_wait w = { .fd = self->card.fd, .ret = 1 };
	pthread_t thread;
	uint32_t ev;

	ASSERT_EQ(0, test_slot_alloc(self->card.fd, &ev));
	wait.slot = ev;
	w.slot = self->victim.slot;
	ASSERT_EQ(0, test_submit(self->card.fd, self->victim.id, &wait, 1, 0, &w.value));
	ASSERT_EQ(0, pthread_create(&thread, NULL, wait_blocking, &w));
	while (!w.tid)
		usleep(1000);
	ASSERT_TRUE(in_ioctl(w.tid));
	ASSERT_EQ(0, test_driver_unbind(self->card.bdf));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	EXPECT_EQ(-EIO, w.ret);
	test_card_close(&self->card);
	ASSERT_EQ(0, test_driver_bind(self->card.bdf));
	ASSERT_EQ(0, test_card_open(&self->card, 0));
	self->ring = 0;
}

TEST_HARNESS_MAIN
