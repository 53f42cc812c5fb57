// SPDX-License-Identifier: GPL-2.0-only
/*
 * Card reset with the device bound (uapi/npu_accel.h, "Card reset"): an
 * administrator's sysfs write, a hung ring that does not stop, a lost
 * heartbeat with reset_on_heartbeat_loss. Work queued across a reset fails
 * with DRM_NPU_ERR_RESET, the contexts open across it refuse new work with
 * -ECANCELED, and a context opened afterwards works at once. Every test
 * waits on state (slots, reset_count), never for a time, and leaves the
 * card alive with its parameters as it found them.
 */

#include <signal.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "npu_test_ioctl.h"

#define USER_PAGES	16
#define RELU_N		256

/* y = relu(x) of RELU_N f32: a descriptor with its two tensors. */
struct relu_op {
	_Alignas(64) uint8_t bytes[sizeof(struct npu_op_desc) + 2 * sizeof(struct npu_tensor_desc)];
};

static struct drm_npu_cmd relu_cmd(struct relu_op *op, uint64_t x, uint64_t y)
{
	static const uint64_t dims[] = { RELU_N };
	struct npu_op_desc *d = (struct npu_op_desc *)op->bytes;

	memset(op, 0, sizeof(*op));
	d->kind = NPU_OPERATOR_UNARY;
	d->num_inputs = 1;
	d->num_outputs = 1;
	d->attrs.unary.fn.kind = NPU_UNARY_RELU;
	test_tensor_dense(&d->tensors[0], x, NPU_DTYPE_F32, 1, dims);
	test_tensor_dense(&d->tensors[1], y, NPU_DTYPE_F32, 1, dims);
	return (struct drm_npu_cmd){ .op = DRM_NPU_OP_COMPUTE, .src = (uintptr_t)op->bytes,
				     .size = sizeof(op->bytes) };
}

/* Whether the card runs f32 UNARY operators (both emulated cards do). */
static bool card_computes(int fd)
{
	uint64_t ops = 0, dtypes = 0;

	return !test_param(fd, DRM_NPU_PARAM_OPERATORS, &ops) &&
	       !test_param(fd, DRM_NPU_PARAM_DTYPES, &dtypes) &&
	       ops & 1u << NPU_OPERATOR_UNARY && dtypes & 1u << NPU_DTYPE_F32;
}

FIXTURE(reset) {
	struct test_card card;
	struct test_baseline baseline;
	long hang_timeout, heartbeat_timeout, on_heartbeat_loss;
};

FIXTURE_SETUP(reset)
{
	self->hang_timeout = test_driver_param("hang_timeout_ms");
	self->heartbeat_timeout = test_driver_param("heartbeat_timeout_ms");
	self->on_heartbeat_loss = test_driver_param("reset_on_heartbeat_loss");
	ASSERT_LE(0, self->hang_timeout);
	ASSERT_LE(0, self->heartbeat_timeout);
	ASSERT_LE(0, self->on_heartbeat_loss) {
		TH_LOG("the module has no parameter reset_on_heartbeat_loss");
	}
	ASSERT_EQ(0, test_card_open(&self->card, 0));
	self->baseline = test_read_baseline(self->card.bdf);
}

FIXTURE_TEARDOWN(reset)
{
	test_clear_faults(self->card.bdf);
	test_card_close(&self->card);
	test_set_driver_param("hang_timeout_ms", self->hang_timeout);
	test_set_driver_param("heartbeat_timeout_ms", self->heartbeat_timeout);
	test_set_driver_param("reset_on_heartbeat_loss", self->on_heartbeat_loss);
	EXPECT_EQ(0, test_card_revive(self->card.bdf));
}

static int reset_write(const char *bdf, const char *val)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), TEST_PCI_DEVICES "/%s/npu/reset", bdf);
	return text_write(path, val);
}

static void reset_reason(const char *bdf, char *buf, size_t len)
{
	char *nl;

	buf[0] = 0;
	test_pci_attr(bdf, "npu/last_reset_reason", buf, len);
	nl = strchr(buf, '\n');
	if (nl)
		*nl = 0;
}

/* A stream's work that stays queued: a SLOT_WAIT on an event no one signals. */
static int queue_blocked(int fd, uint32_t stream, uint32_t ev, struct drm_npu_cmd work,
			 uint64_t *seq)
{
	struct drm_npu_cmd cmds[2] = {
		{ .op = DRM_NPU_OP_SLOT_WAIT, .slot = ev, .value = 1 },
		work,
	};

	return test_submit(fd, stream, cmds, 2, 0, seq);
}

/* On stream s of card: relu of -128..127 on the card, as arithmetic says. */
static int relu_works(struct test_card *card, struct drm_npu_stream_create *s, uint64_t addr)
{
	float x[RELU_N], y[RELU_N];
	struct drm_npu_cmd cmds[3];
	struct relu_op op;
	uint64_t seq;
	int ret, i;

	for (i = 0; i < RELU_N; i++) {
		x[i] = (float)(i - RELU_N / 2);
		y[i] = -1.0f;
	}
	cmds[0] = test_cmd_copy(addr, (uintptr_t)x, sizeof(x), DRM_NPU_CMD_SRC_USER);
	cmds[1] = relu_cmd(&op, addr, addr + sizeof(x));
	cmds[2] = test_cmd_copy((uintptr_t)y, addr + sizeof(x), sizeof(y), DRM_NPU_CMD_DST_USER);
	ret = test_submit(card->fd, s->id, cmds, 3, 0, &seq);
	ret = ret ?: test_wait(card->fd, s->slot, seq, 20000);
	for (i = 0; !ret && i < RELU_N; i++)
		if (y[i] != (x[i] > 0 ? x[i] : 0.0f))
			ret = -EILSEQ;
	return ret;
}

/* A new context of the card copies, and computes, as it should. */
static int fresh_context_works(struct test_card *card)
{
	struct drm_npu_stream_create s;
	struct drm_npu_bo_create bo;
	uint8_t out[256];
	struct drm_npu_cmd copy;
	uint64_t seq;
	int ret, i;

	ret = test_card_open(card, 0);
	if (ret)
		return ret;
	ret = test_stream_create(card->fd, 0, 0, &s);
	ret = ret ?: test_bo_create(card->fd, 4096, 0, &bo);
	ret = ret ?: test_run(card, &s, test_cmd_fill(bo.addr, 0x5a, sizeof(out), 0));
	if (ret)
		return ret;
	memset(out, 0, sizeof(out));
	copy = test_cmd_copy((uintptr_t)out, bo.addr, sizeof(out), DRM_NPU_CMD_DST_USER);
	ret = test_submit(card->fd, s.id, &copy, 1, 0, &seq);
	ret = ret ?: test_wait(card->fd, s.slot, seq, 20000);
	for (i = 0; !ret && i < (int)sizeof(out); i++)
		if (out[i] != 0x5a)
			ret = -EILSEQ;
	if (!ret && card_computes(card->fd))
		ret = relu_works(card, &s, bo.addr);
	return ret;
}

TEST_F(reset, admin_reset_of_an_idle_card)
{
	unsigned long long count = test_card_attr(self->card.bdf, "reset_count");
	struct drm_npu_stream_create s;
	struct test_card fresh = { .fd = -1 };
	char reason[32];
	uint64_t v;

	ASSERT_NE(~0ULL, count);
	EXPECT_EQ(-EINVAL, reset_write(self->card.bdf, "0"));
	EXPECT_EQ(-EINVAL, reset_write(self->card.bdf, "bogus"));
	EXPECT_EQ(count, test_card_attr(self->card.bdf, "reset_count"));
	ASSERT_EQ(0, test_param(self->card.fd, DRM_NPU_PARAM_CTX_LOST, &v));
	EXPECT_EQ(DRM_NPU_RESET_NONE, v);

	ASSERT_EQ(0, reset_write(self->card.bdf, "1"));
	/* The write returns once the reset is done. */
	EXPECT_EQ(count + 1, test_card_attr(self->card.bdf, "reset_count"));
	reset_reason(self->card.bdf, reason, sizeof(reason));
	EXPECT_STREQ("admin", reason);
	ASSERT_EQ(0, test_param(self->card.fd, DRM_NPU_PARAM_RESET_COUNT, &v));
	EXPECT_EQ(count + 1, v);
	ASSERT_EQ(0, test_param(self->card.fd, DRM_NPU_PARAM_CTX_LOST, &v));
	EXPECT_EQ(DRM_NPU_RESET_ADMIN, v);

	/* The context open across it is lost; a new one works at once. */
	EXPECT_EQ(-ECANCELED, test_stream_create(self->card.fd, 0, 0, &s));
	ASSERT_EQ(0, fresh_context_works(&fresh));
	ASSERT_EQ(0, test_param(fresh.fd, DRM_NPU_PARAM_CTX_LOST, &v));
	EXPECT_EQ(DRM_NPU_RESET_NONE, v);
	test_card_close(&fresh);
	EXPECT_FALSE(test_card_dead(self->card.bdf));
}

/*
 * In one process: three streams with a fill into pinned user memory, a
 * copy and an operator queued behind a SLOT_WAIT, and a direct stream. Tells the parent
 * through @ready, waits for @go (the reset done), checks the failure, and
 * works in a new context. Returns 0 or the number of the failed check.
 */
static int queued_process(int ready, int go)
{
	struct drm_npu_stream_create s[3], direct = { .flags = DRM_NPU_STREAM_DIRECT };
	struct test_card card = { .fd = -1 }, fresh = { .fd = -1 };
	size_t size = USER_PAGES * 4096;
	struct drm_npu_bo_create bo;
	struct relu_op op;
	uint64_t seq[3], v;
	uint32_t ev;
	uint8_t *mem;
	char c = 0;
	int i;

	mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED || test_card_open(&card, 0))
		return 1;
	memset(mem, 0, size);
	if (test_stream_create(card.fd, 0, 0, &s[0]) || test_stream_create(card.fd, 3, 0, &s[1]) ||
	    test_stream_create(card.fd, 7, 0, &s[2]) ||
	    test_ioctl(card.fd, DRM_IOCTL_NPU_STREAM_CREATE, &direct) ||
	    test_bo_create(card.fd, 1 << 20, 0, &bo) || test_slot_alloc(card.fd, &ev))
		return 2;
	if (queue_blocked(card.fd, s[0].id, ev,
			  test_cmd_fill((uintptr_t)mem, 0x77, size, DRM_NPU_CMD_DST_USER), &seq[0]) ||
	    queue_blocked(card.fd, s[1].id, ev,
			  test_cmd_copy(bo.addr, bo.addr + 4096, 4096, 0), &seq[1]))
		return 3;
	/* An operator where the card has them, a copy where not. */
	if (queue_blocked(card.fd, s[2].id, ev, card_computes(card.fd) ?
			  relu_cmd(&op, bo.addr, bo.addr + 8192) :
			  test_cmd_copy(bo.addr, bo.addr + 8192, 4096, 0), &seq[2]))
		return 3;
	if (write(ready, "r", 1) != 1 || read(go, &c, 1) != 1)
		return 4;

	for (i = 0; i < 3; i++) {
		if (test_wait(card.fd, s[i].slot, seq[i], 20000) != -EIO)
			return 5;
		if (card.fence[s[i].slot].error != DRM_NPU_ERR_RESET)
			return 6;
		if (test_submit(card.fd, s[i].id, &(struct drm_npu_cmd){ .op = DRM_NPU_OP_NOP },
				1, 0, NULL) != -ECANCELED)
			return 7;
	}
	if (card.fence[direct.slot].error != DRM_NPU_ERR_RESET)
		return 8;
	if (test_ioctl(card.fd, DRM_IOCTL_NPU_STREAM_KICK,
		       &(struct drm_npu_stream_kick){ .stream = direct.id }) != -ECANCELED)
		return 9;
	if (test_param(card.fd, DRM_NPU_PARAM_CTX_LOST, &v) || v != DRM_NPU_RESET_ADMIN)
		return 10;
	/* The work never ran: its memory is as it was, and can be freed. */
	if (mem[0] || mem[size - 1])
		return 11;
	if (test_bo_close(card.fd, bo.handle) ||
	    test_stream_destroy(card.fd, s[0].id, 0) ||
	    test_stream_destroy(card.fd, direct.id, 0))
		return 12;
	if (fresh_context_works(&fresh))
		return 13;
	test_card_close(&fresh);
	test_card_close(&card);
	munmap(mem, size);
	return 0;
}

TEST_F(reset, work_in_flight_of_two_processes_fails_and_new_contexts_work)
{
	unsigned long long count = test_card_attr(self->card.bdf, "reset_count");
	int ready[2], go[2], status, i;
	struct test_baseline now;
	pid_t pids[2];
	char c;

	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	for (i = 0; i < 2; i++) {
		pids[i] = fork();
		ASSERT_LE(0, pids[i]);
		if (!pids[i])
			_exit(queued_process(ready[1], go[0]));
	}
	for (i = 0; i < 2; i++)
		ASSERT_EQ(1, read(ready[0], &c, 1));
	EXPECT_LT(self->baseline.pinned, test_card_attr(self->card.bdf, "pinned_pages"));

	ASSERT_EQ(0, reset_write(self->card.bdf, "1"));
	EXPECT_EQ(count + 1, test_card_attr(self->card.bdf, "reset_count"));
	/* Nothing the card held for the lost work stays pinned. */
	EXPECT_TRUE(test_wait_until(test_card_attr(self->card.bdf, "pinned_pages") ==
				    self->baseline.pinned, TEST_SETTLE_MS));
	ASSERT_EQ(2, write(go[1], "gg", 2));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(pids[i], waitpid(pids[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status));
	}
	now = test_settled_baseline(self->card.bdf, &self->baseline);
	EXPECT_EQ(self->baseline.devmem, now.devmem);
	EXPECT_EQ(self->baseline.rings, now.rings);
	EXPECT_EQ(self->baseline.pinned, now.pinned);
}

/* The ring of a stream that hangs and whose own reset is stuck. */
TEST_F(reset, hung_ring_beyond_recovery_resets_the_card)
{
	unsigned long long count = test_card_attr(self->card.bdf, "reset_count");
	struct drm_npu_stream_create s, s2;
	struct test_card fresh = { .fd = -1 };
	struct drm_npu_bo_create bo;
	struct drm_npu_cmd fill;
	char what[64], reason[32];
	uint64_t seq, v;
	int ring;

	if (!test_can_inject(self->card.bdf))
		SKIP(return, "no fault injection (debugfs) on this machine");
	ASSERT_EQ(0, test_set_driver_param("hang_timeout_ms", 300));
	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &s));
	ASSERT_EQ(0, test_bo_create(self->card.fd, 1 << 20, 0, &bo));
	ring = test_stream_ring(self->card.bdf, s.id);
	ASSERT_LE(0, ring);
	snprintf(what, sizeof(what), "stuck_reset %d 0", ring);
	ASSERT_EQ(0, test_inject(self->card.bdf, what));
	snprintf(what, sizeof(what), "hang %d 0", ring);
	ASSERT_EQ(0, test_inject(self->card.bdf, what));
	fill = test_cmd_fill(bo.addr, 1, 4096, 0);
	ASSERT_EQ(0, test_submit(self->card.fd, s.id, &fill, 1, 0, &seq));

	EXPECT_EQ(-EIO, test_wait(self->card.fd, s.slot, seq, 20000));
	EXPECT_EQ(DRM_NPU_ERR_HANG, self->card.fence[s.slot].error);
	ASSERT_TRUE(test_wait_until(test_card_attr(self->card.bdf, "reset_count") > count,
				    TEST_SETTLE_MS));
	reset_reason(self->card.bdf, reason, sizeof(reason));
	EXPECT_STREQ("hang", reason);
	ASSERT_EQ(0, test_param(self->card.fd, DRM_NPU_PARAM_CTX_LOST, &v));
	EXPECT_EQ(DRM_NPU_RESET_HANG, v);
	EXPECT_EQ(-ECANCELED, test_stream_create(self->card.fd, 0, 0, &s2));
	/* The stream is gone from the card: its ring is free again. */
	EXPECT_EQ(0, test_stream_destroy(self->card.fd, s.id, 0));
	EXPECT_EQ(self->baseline.rings, test_card_attr(self->card.bdf, "rings_used"));
	ASSERT_EQ(0, fresh_context_works(&fresh));
	test_card_close(&fresh);
}

TEST_F(reset, lost_heartbeat_resets_the_card_when_asked)
{
	unsigned long long count = test_card_attr(self->card.bdf, "reset_count");
	struct drm_npu_stream_create s;
	struct test_card fresh = { .fd = -1 };
	char what[64], reason[32];
	uint64_t seq, v;
	uint32_t ev;

	if (!test_can_inject(self->card.bdf))
		SKIP(return, "no fault injection (debugfs) on this machine");
	ASSERT_EQ(0, test_set_driver_param("reset_on_heartbeat_loss", 1));
	ASSERT_EQ(0, test_set_driver_param("heartbeat_timeout_ms", 300));
	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &s));
	ASSERT_EQ(0, test_slot_alloc(self->card.fd, &ev));
	ASSERT_EQ(0, queue_blocked(self->card.fd, s.id, ev,
				   (struct drm_npu_cmd){ .op = DRM_NPU_OP_NOP }, &seq));
	snprintf(what, sizeof(what), "stop_heartbeat %d 0", test_stream_ring(self->card.bdf, s.id));
	ASSERT_EQ(0, test_inject(self->card.bdf, what));

	EXPECT_EQ(-EIO, test_wait(self->card.fd, s.slot, seq, 20000));
	EXPECT_EQ(DRM_NPU_ERR_RESET, self->card.fence[s.slot].error);
	/* The reset counts itself once it is done, after failing the work. */
	ASSERT_TRUE(test_wait_until(test_card_attr(self->card.bdf, "reset_count") > count,
				    TEST_SETTLE_MS));
	EXPECT_EQ(count + 1, test_card_attr(self->card.bdf, "reset_count"));
	reset_reason(self->card.bdf, reason, sizeof(reason));
	EXPECT_STREQ("heartbeat", reason);
	ASSERT_EQ(0, test_param(self->card.fd, DRM_NPU_PARAM_CTX_LOST, &v));
	EXPECT_EQ(DRM_NPU_RESET_HEARTBEAT, v);
	EXPECT_FALSE(test_card_dead(self->card.bdf));
	ASSERT_EQ(0, fresh_context_works(&fresh));
	test_card_close(&fresh);
	/* It beats again, and the watchdog still watches it. */
	EXPECT_TRUE(test_card_alive(self->card.bdf));
}

/* Without the parameter the card dies, and an administrator's reset revives it. */
TEST_F(reset, admin_reset_revives_a_dead_card)
{
	unsigned long long count = test_card_attr(self->card.bdf, "reset_count");
	struct drm_npu_stream_create s;
	struct test_card fresh = { .fd = -1 };
	char what[64];
	uint64_t seq;
	uint32_t ev;

	if (!test_can_inject(self->card.bdf))
		SKIP(return, "no fault injection (debugfs) on this machine");
	ASSERT_EQ(0, test_set_driver_param("reset_on_heartbeat_loss", 0));
	ASSERT_EQ(0, test_set_driver_param("heartbeat_timeout_ms", 300));
	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &s));
	ASSERT_EQ(0, test_slot_alloc(self->card.fd, &ev));
	ASSERT_EQ(0, queue_blocked(self->card.fd, s.id, ev,
				   (struct drm_npu_cmd){ .op = DRM_NPU_OP_NOP }, &seq));
	snprintf(what, sizeof(what), "stop_heartbeat %d 0", test_stream_ring(self->card.bdf, s.id));
	ASSERT_EQ(0, test_inject(self->card.bdf, what));
	EXPECT_EQ(-EIO, test_wait(self->card.fd, s.slot, seq, 20000));
	EXPECT_EQ(DRM_NPU_ERR_DEAD, self->card.fence[s.slot].error);
	ASSERT_TRUE(test_card_dead(self->card.bdf));
	EXPECT_EQ(count, test_card_attr(self->card.bdf, "reset_count"));

	ASSERT_EQ(0, reset_write(self->card.bdf, "1"));
	EXPECT_EQ(count + 1, test_card_attr(self->card.bdf, "reset_count"));
	EXPECT_FALSE(test_card_dead(self->card.bdf));
	ASSERT_EQ(0, fresh_context_works(&fresh));
	test_card_close(&fresh);
	EXPECT_TRUE(test_card_alive(self->card.bdf));
}

struct reset_thread {
	const char *bdf;
	int ret;
};

static void *reset_thread_main(void *arg)
{
	struct reset_thread *t = arg;

	t->ret = reset_write(t->bdf, "1");
	return NULL;
}

/* A process killed while the card resets leaves nothing behind. */
TEST_F(reset, killed_process_mid_reset_leaks_nothing)
{
	struct reset_thread t = { .bdf = self->card.bdf };
	struct test_baseline now;
	int ready[2], go[2], status;
	pthread_t thread;
	pid_t pid;
	char c;

	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(queued_process(ready[1], go[0]));
	ASSERT_EQ(1, read(ready[0], &c, 1));
	ASSERT_EQ(0, pthread_create(&thread, NULL, reset_thread_main, &t));
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	EXPECT_EQ(0, t.ret);
	EXPECT_TRUE(WIFSIGNALED(status));
	now = test_settled_baseline(self->card.bdf, &self->baseline);
	EXPECT_EQ(self->baseline.devmem, now.devmem);
	EXPECT_EQ(self->baseline.rings, now.rings);
	EXPECT_EQ(self->baseline.pinned, now.pinned);
}

TEST_HARNESS_MAIN
