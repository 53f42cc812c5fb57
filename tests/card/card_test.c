// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of npu-card, without QEMU: the test plays QEMU (and the
 * driver), talks to the card over its ivshmem socket and checks the card
 * against docs/hardware.md through registers, doorbells and interrupts.
 *
 * Every test starts its own card, so a test that breaks the card cannot
 * break the next one.  NPU_CARD names the binary (default build/npu-card),
 * NPU_CARD_VERBOSE=1 makes it log, NPU_TEST_SEED varies the random data.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * The harness and the code its macros expand to are not -Wextra clean
 * (unused parameters, setjmp clobbering), and ASSERT_EQ(3, reg) compares an
 * int literal with an unsigned value by design.
 */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wclobbered"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include "kselftest_harness.h"
#include "card_client.h"

#define T_MS		10000	/* "should happen": generous, for loaded hosts */
#define QUIET_MS	30	/* "must not happen": how long we watch */
/*
 * A fault delay no stall of a loaded host comes near: a test that asserts
 * that something did not wait for it allows half of it.
 */
#define LONG_DELAY_US	(20 * 1000 * 1000)

#define SLOT_BYTES	sizeof(struct npu_cmd)

static uint64_t test_seed(uint64_t salt)
{
	const char *env = getenv("NPU_TEST_SEED");
	uint64_t seed = env ? strtoull(env, NULL, 0) : 0x9e3779b97f4a7c15ULL;

	return (seed ^ (salt * 0xbf58476d1ce4e5b9ULL)) | 1;
}

/* Poll a 64-bit register until it passes v. */
static bool reg_wait_above64(struct client *c, uint32_t off, uint64_t v,
			     int timeout_ms)
{
	uint64_t t0 = client_now_us();

	while (client_reg_rd64(c, off) <= v) {
		if (client_now_us() - t0 > timeout_ms * 1000ULL)
			return false;
		usleep(100);
	}
	return true;
}

static bool card_exited_cleanly(struct client *c)
{
	return WIFEXITED(c->exit_status) && WEXITSTATUS(c->exit_status) == 0;
}

static bool socket_gone(struct client *c)
{
	return access(c->sock_path, F_OK) != 0 && errno == ENOENT;
}

FIXTURE(npu) {
	struct client c;
	const char *step;	/* the case a table-driven test is on */
	char step_buf[96];
};

FIXTURE_SETUP(npu)
{
	struct client_opts o;
	int ret;

	client_default_opts(&o);
	ret = client_start(&self->c, &o);
	if (ret)
		client_cleanup(&self->c);
	ASSERT_EQ(0, ret) TH_LOG("cannot start %s", client_card_path());
}

FIXTURE_TEARDOWN(npu)
{
	struct client *c = &self->c;
	bool running = c->pid != 0;

	if (_metadata->exit_code && self->step)
		TH_LOG("failed in case: %s", self->step);
	/* Every test also checks that the card goes away cleanly. */
	EXPECT_EQ(0, client_disconnect(c, T_MS));
	if (running)
		EXPECT_TRUE(card_exited_cleanly(c));
	EXPECT_TRUE(socket_gone(c));
	client_cleanup(c);
}

/*
 * A ring counter once it has held still for SETTLE_MS.  Work already on an
 * engine (a copy chunk, the half of an operator before HANG_OP pauses it)
 * finishes however long a loaded host keeps it off the CPU; a quarter second
 * without change means it has finished or was never there.  Gives up after
 * 5 s, returning the last value.
 */
#define SETTLE_MS	250
static uint64_t settled_rd64(struct client *c, unsigned int ring,
			     unsigned int reg)
{
	uint64_t t0 = client_now_us(), still_since = t0;
	uint64_t prev = client_ring_rd64(c, ring, reg), cur;

	for (;;) {
		usleep(QUIET_MS * 1000);
		cur = client_ring_rd64(c, ring, reg);
		if (cur != prev)
			still_since = client_now_us();
		prev = cur;
		if (client_now_us() - still_since >= SETTLE_MS * 1000 ||
		    client_now_us() - t0 > 5 * 1000 * 1000)
			return cur;
	}
}

TEST_F(npu, identity)
{
	struct client *c = &self->c;
	unsigned int i;

	ASSERT_EQ(NPU_MAGIC, client_reg_rd32(c, NPU_ID_MAGIC));
	ASSERT_EQ(NPU_VERSION_MAJOR, client_reg_rd32(c, NPU_ID_VERSION) >> 16);
	ASSERT_EQ(16, client_reg_rd32(c, NPU_ID_NUM_RINGS));
	ASSERT_EQ(2, client_reg_rd32(c, NPU_ID_NUM_COPY_ENGINES));
	ASSERT_EQ(NPU_DEFAULT_NUM_VECTORS, client_reg_rd32(c, NPU_ID_NUM_VECTORS));
	ASSERT_EQ(1, client_reg_rd32(c, NPU_ID_DOORBELL_ID));
	ASSERT_EQ(NPU_REG_WINDOW_SIZE, client_reg_rd64(c, NPU_ID_DEVMEM_OFFSET));
	ASSERT_EQ(64 * MiB - NPU_REG_WINDOW_SIZE, client_reg_rd64(c, NPU_ID_DEVMEM_SIZE));
	ASSERT_EQ(c->bar_size, client_reg_rd64(c, NPU_ID_DEVMEM_OFFSET) +
			       client_reg_rd64(c, NPU_ID_DEVMEM_SIZE));
	ASSERT_EQ(65536, client_reg_rd32(c, NPU_ID_MAX_RING_ENTRIES));
	ASSERT_EQ(sizeof(struct npu_cmd), client_reg_rd32(c, NPU_ID_CMD_SIZE));
	ASSERT_EQ(64, sizeof(struct npu_cmd));
	ASSERT_EQ(16, sizeof(struct npu_sg_entry));
	ASSERT_EQ(1000, client_reg_rd32(c, NPU_ID_HEARTBEAT_PERIOD_US));
	ASSERT_NE(0, client_reg_rd32(c, NPU_ID_FW_VERSION));
	ASSERT_EQ(0x5e41a1, client_reg_rd64(c, NPU_ID_SERIAL));
	ASSERT_EQ(NPU_GLB_STATUS_READY, client_reg_rd32(c, NPU_GLB_STATUS));
	ASSERT_EQ(0, client_reg_rd32(c, NPU_GLB_ERROR));
	for (i = 0; i < 16; i++) {
		ASSERT_EQ(NPU_RING_DISABLED, client_ring_rd32(c, i, NPU_RING_STATUS));
		ASSERT_EQ(0, client_ring_rd32(c, i, NPU_RING_HEAD));
		ASSERT_EQ(0, client_ring_rd64(c, i, NPU_RING_OPS_DONE));
		ASSERT_EQ(0, client_ring_rd64(c, i, NPU_RING_COMPUTE_NS));
	}

	/* the operator library: every operator, float32 and bfloat16 */
	ASSERT_EQ(2, client_reg_rd32(c, NPU_ID_NUM_COMPUTE_ENGINES));
	ASSERT_EQ(1, client_reg_rd32(c, NPU_ID_OPLIB_VERSION) >> 16);
	ASSERT_EQ((2ULL << NPU_OPERATOR_LAST) - 1,
		  client_reg_rd64(c, NPU_ID_OPERATORS));
	ASSERT_EQ((1u << NPU_DTYPE_F32) | (1u << NPU_DTYPE_BF16),
		  client_reg_rd32(c, NPU_ID_DTYPES) &
		  ((1u << NPU_DTYPE_F32) | (1u << NPU_DTYPE_BF16)));
	ASSERT_EQ(0, client_reg_rd32(c, NPU_ID_DTYPES) >> (NPU_DTYPE_LAST + 1));
	ASSERT_EQ(sizeof(struct npu_op_desc) +
		  NPU_OP_MAX_TENSORS * sizeof(struct npu_tensor_desc),
		  client_reg_rd32(c, NPU_ID_OP_DESC_MAX));
}

TEST_F(npu, heartbeat_and_clock)
{
	struct client *c = &self->c;
	uint64_t hb0, hb1, clk0, clk1, t0, ms;

	t0 = client_now_us();
	hb0 = client_reg_rd64(c, NPU_GLB_HEARTBEAT);
	clk0 = client_reg_rd64(c, NPU_GLB_CLOCK_NS);
	usleep(50 * 1000);
	hb1 = client_reg_rd64(c, NPU_GLB_HEARTBEAT);
	clk1 = client_reg_rd64(c, NPU_GLB_CLOCK_NS);
	ms = (client_now_us() - t0) / 1000;

	/*
	 * One tick a millisecond on an absolute schedule: a busy host may lag
	 * and then catch up within any window, but since the card started it
	 * has never ticked more often than that.
	 */
	ASSERT_GE(hb1 - hb0, ms / 5);
	ASSERT_LE(hb1, (client_now_us() - c->spawn_us) / 1000 + 1);
	ASSERT_GT(clk1, clk0);
	/* nanoseconds since the card started, as of the last tick */
	ASSERT_GE(clk1 - clk0, ms / 5 * 1000 * 1000);
	ASSERT_LE(clk1, (client_now_us() - c->spawn_us) * 1000);
}

TEST_F(npu, ring_enable_doorbell_reset)
{
	struct client *c = &self->c;
	struct npu_cmd nop = client_cmd_nop(0);
	struct client_ring r;
	int i;

	ASSERT_TRUE(client_ring_setup(c, &r, 3, 8, 1));
	ASSERT_EQ(NPU_RING_CTRL_ENABLE, client_ring_rd32(c, 3, NPU_RING_CTRL));
	ASSERT_EQ(NPU_ERR_NONE, client_ring_rd32(c, 3, NPU_RING_ERROR));
	for (i = 0; i < 5; i++)
		client_ring_push(c, &r, &nop);
	client_ring_submit(c, &r);
	ASSERT_TRUE(client_ring_wait_head(c, &r, 5, T_MS));
	ASSERT_TRUE(client_ring_wait_status(c, 3, NPU_RING_IDLE, T_MS));
	ASSERT_EQ(5, client_ring_rd64(c, 3, NPU_RING_CMDS_DONE));
	ASSERT_EQ(0, client_ring_rd64(c, 3, NPU_RING_BYTES_DONE));

	/*
	 * A doorbell on another vector does not wake the ring.  Give the
	 * card time to finish any rescan it still had pending: it may look
	 * at TAIL whenever it likes, the doorbell only makes it look.
	 */
	usleep(100 * 1000);
	client_ring_push(c, &r, &nop);
	client_ring_wr32(c, 3, NPU_RING_TAIL, r.tail);
	client_doorbell(c, 2);
	usleep(QUIET_MS * 1000);
	ASSERT_EQ(5, client_ring_rd32(c, 3, NPU_RING_HEAD));
	client_doorbell(c, 1);
	ASSERT_TRUE(client_ring_wait_head(c, &r, 6, T_MS));

	/* Reset: HEAD 0, disabled, CTRL 0; the ring ignores doorbells. */
	ASSERT_TRUE(client_ctrl_ring_reset(c, 3));
	ASSERT_EQ(NPU_RING_DISABLED, client_ring_rd32(c, 3, NPU_RING_STATUS));
	ASSERT_EQ(0, client_ring_rd32(c, 3, NPU_RING_HEAD));
	ASSERT_EQ(0, client_ring_rd32(c, 3, NPU_RING_CTRL));
	ASSERT_EQ(0, client_ring_rd64(c, 3, NPU_RING_CMDS_DONE));
	client_ring_wr32(c, 3, NPU_RING_TAIL, 2);
	client_doorbell(c, 1);
	usleep(QUIET_MS * 1000);
	ASSERT_EQ(0, client_ring_rd32(c, 3, NPU_RING_HEAD));

	/* Commands already queued at ENABLE run without a doorbell. */
	ASSERT_TRUE(client_ctrl_ring_reset(c, 3));
	client_ring_wr32(c, 3, NPU_RING_TAIL, 0);
	r.tail = 0;
	for (i = 0; i < 3; i++)
		client_ring_push(c, &r, &nop);
	client_ring_wr32(c, 3, NPU_RING_TAIL, 3);
	client_ring_wr32(c, 3, NPU_RING_CTRL, NPU_RING_CTRL_ENABLE);
	client_doorbell(c, 0);
	ASSERT_TRUE(client_ring_wait_head(c, &r, 3, T_MS));
	ASSERT_TRUE(client_ring_wait_status(c, 3, NPU_RING_IDLE, T_MS));
}

TEST_F(npu, ring_config_errors)
{
	struct client *c = &self->c;
	uint64_t good = client_host_alloc(c, 4 * MiB, 64);
	uint64_t low = c->opts.lowmem;
	const struct {
		const char *what;
		uint64_t base;
		uint32_t size;
		uint32_t vector;
		bool ok;
	} cases[] = {
		{ "smallest ring", good, 2, 1, true },
		{ "largest ring", good, 65536, NPU_DEFAULT_NUM_VECTORS - 1, true },
		{ "high memory", CLIENT_HIGHMEM_BASE + 4096, 64, 2, true },
		{ "base not 64-byte aligned", good + 8, 8, 1, false },
		{ "base past lowmem", low - 2 * SLOT_BYTES, 4, 1, false },
		{ "base in the PCI hole", 3 * GiB, 4, 1, false },
		{ "base past high memory", CLIENT_HIGHMEM_BASE + 16 * MiB, 4, 1, false },
		{ "base wraps", ~0ULL - 63, 4, 1, false },
		{ "size 0", good, 0, 1, false },
		{ "size 1", good, 1, 1, false },
		{ "size 3", good, 3, 1, false },
		{ "size 131072", good, 131072, 1, false },
		{ "vector 0", good, 8, 0, false },
		{ "vector NUM_VECTORS", good, 8, NPU_DEFAULT_NUM_VECTORS, false },
		{ "vector huge", good, 8, 0x10001, false },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		self->step = cases[i].what;
		ASSERT_TRUE(client_ctrl_ring_reset(c, 1));
		client_ring_wr64(c, 1, NPU_RING_BASE, cases[i].base);
		client_ring_wr32(c, 1, NPU_RING_SIZE, cases[i].size);
		client_ring_wr32(c, 1, NPU_RING_VECTOR, cases[i].vector);
		client_ring_wr32(c, 1, NPU_RING_TAIL, 0);
		client_ring_wr32(c, 1, NPU_RING_CTRL, NPU_RING_CTRL_ENABLE);
		client_doorbell(c, 0);
		if (cases[i].ok) {
			ASSERT_TRUE(client_ring_wait_status(c, 1, NPU_RING_IDLE, T_MS));
			continue;
		}
		ASSERT_TRUE(client_ring_wait_status(c, 1, NPU_RING_STOPPED, T_MS));
		ASSERT_EQ(NPU_ERR_RING_CONFIG, client_ring_rd32(c, 1, NPU_RING_ERROR));
		/* ENABLE again does not revive it; only reset does */
		client_doorbell(c, 0);
		usleep(2000);
		ASSERT_EQ(NPU_RING_STOPPED, client_ring_rd32(c, 1, NPU_RING_STATUS));
		ASSERT_TRUE(client_ctrl_ring_reset(c, 1));
		ASSERT_EQ(NPU_RING_DISABLED, client_ring_rd32(c, 1, NPU_RING_STATUS));
		ASSERT_EQ(NPU_ERR_NONE, client_ring_rd32(c, 1, NPU_RING_ERROR));
	}
}

TEST_F(npu, fence_irq_on_ring_vector)
{
	struct client *c = &self->c;
	uint64_t words = client_host_alloc(c, 64, 64);
	struct client_ring r0, r1, r2;
	struct npu_cmd cmd;
	unsigned int v;

	ASSERT_TRUE(client_ring_setup(c, &r0, 0, 16, 1));
	ASSERT_TRUE(client_ring_setup(c, &r1, 1, 16, 2));
	ASSERT_TRUE(client_ring_setup(c, &r2, 2, 16, 2));	/* shares vector 2 */
	for (v = 0; v < 9; v++)
		client_irq_take(c, v);

	cmd = client_cmd_fence(words, 0x1111, NPU_CMD_DST_HOST | NPU_CMD_IRQ);
	ASSERT_TRUE(client_ring_run(c, &r1, &cmd, T_MS));
	ASSERT_EQ(1, client_irq_wait(c, 2, T_MS));
	ASSERT_EQ(0x1111, client_word_rd(client_gpa_ptr(c, words)));

	cmd = client_cmd_fence(words + 8, 0x2222, NPU_CMD_DST_HOST | NPU_CMD_IRQ);
	ASSERT_TRUE(client_ring_run(c, &r0, &cmd, T_MS));
	ASSERT_EQ(1, client_irq_wait(c, 1, T_MS));
	ASSERT_EQ(0x2222, client_word_rd(client_gpa_ptr(c, words + 8)));

	/* Device memory fence, and no IRQ flag means no interrupt. */
	cmd = client_cmd_fence(4096, 0xdeadbeefcafef00dULL, 0);
	ASSERT_TRUE(client_ring_run(c, &r2, &cmd, T_MS));
	ASSERT_EQ(0xdeadbeefcafef00dULL, client_word_rd(client_dev_ptr(c, 4096)));
	cmd = client_cmd_nop(0);
	ASSERT_TRUE(client_ring_run(c, &r0, &cmd, T_MS));
	cmd = client_cmd_nop(NPU_CMD_IRQ);
	ASSERT_TRUE(client_ring_run(c, &r2, &cmd, T_MS));
	ASSERT_EQ(1, client_irq_wait(c, 2, T_MS));

	usleep(QUIET_MS * 1000);
	for (v = 0; v < 9; v++)
		ASSERT_EQ(0, client_irq_take(c, v)) TH_LOG("stray irq on vector %u", v);
}

static struct npu_cmd fence_irq_if(uint64_t dst, uint64_t value, uint64_t word)
{
	struct npu_cmd cmd = client_cmd_fence(dst, value, NPU_CMD_DST_HOST |
					      NPU_CMD_IRQ_IF);

	cmd.src = htole64(word);
	return cmd;
}

static void irq_word_set(struct client *c, uint64_t word, uint32_t v)
{
	__atomic_store_n((uint32_t *)client_gpa_ptr(c, word), htole32(v),
			 __ATOMIC_SEQ_CST);
}

/* IRQ_IF interrupts when its word is non-zero, IRQ with it regardless. */
TEST_F(npu, fence_irq_if_asks_its_word)
{
	struct client *c = &self->c;
	uint64_t words = client_host_alloc(c, 64, 64), irqw = words + 32;
	struct npu_cmd cmd;
	struct client_ring r;

	ASSERT_TRUE(client_ring_setup(c, &r, 0, 16, 1));
	client_irq_take(c, 1);

	irq_word_set(c, irqw, 0);
	cmd = fence_irq_if(words, 1, irqw);
	ASSERT_TRUE(client_ring_run(c, &r, &cmd, T_MS));
	ASSERT_EQ(1, client_word_rd(client_gpa_ptr(c, words)));
	ASSERT_EQ(0, client_irq_wait(c, 1, QUIET_MS));

	irq_word_set(c, irqw, 3);
	cmd = fence_irq_if(words, 2, irqw);
	ASSERT_TRUE(client_ring_run(c, &r, &cmd, T_MS));
	ASSERT_EQ(1, client_irq_wait(c, 1, T_MS));
	ASSERT_EQ(2, client_word_rd(client_gpa_ptr(c, words)));

	irq_word_set(c, irqw, 0);
	cmd = fence_irq_if(words, 3, irqw);
	cmd.flags |= htole16(NPU_CMD_IRQ);
	ASSERT_TRUE(client_ring_run(c, &r, &cmd, T_MS));
	ASSERT_EQ(1, client_irq_wait(c, 1, T_MS));

	/* A word set after the fence is a waiter that found the value. */
	cmd = fence_irq_if(words, 4, irqw);
	ASSERT_TRUE(client_ring_run(c, &r, &cmd, T_MS));
	ASSERT_EQ(0, client_irq_wait(c, 1, QUIET_MS));
}

/* Random host -> device -> host round trips at odd sizes and offsets. */
TEST_F(npu, copy_h2d_d2h_random)
{
	struct client *c = &self->c;
	uint64_t seed = test_seed(1), bytes = 0;
	uint64_t src = client_host_alloc(c, 1 * MiB, 4096);
	uint64_t dst = client_host_alloc(c, 1 * MiB, 4096);
	uint64_t devsz = client_devmem_size(c);
	struct client_ring r;
	int i;

	ASSERT_TRUE(client_ring_setup(c, &r, 0, 64, 1));
	for (i = 0; i < 200; i++) {
		uint64_t len = 1 + client_rnd_next(&seed) % (i < 100 ? 300 : 200000);
		uint64_t so = client_rnd_next(&seed) % (1 * MiB - len);
		uint64_t doff = client_rnd_next(&seed) % (1 * MiB - len - 16) + 8;
		uint64_t dev = client_rnd_next(&seed) % (devsz - len);
		struct npu_cmd h2d = client_cmd_copy(dev, src + so, len,
						     NPU_CMD_SRC_HOST);
		struct npu_cmd d2h = client_cmd_copy(dst + doff, dev, len,
						     NPU_CMD_DST_HOST);
		uint8_t *d = client_gpa_ptr(c, dst + doff);

		client_rnd_fill(&seed, client_gpa_ptr(c, src + so), len);
		memset(d - 8, 0x5a, len + 16);
		client_ring_push(c, &r, &h2d);
		client_ring_push(c, &r, &d2h);
		client_ring_submit(c, &r);
		ASSERT_TRUE(client_ring_wait_head(c, &r, r.tail, T_MS));
		ASSERT_EQ(0, memcmp(client_gpa_ptr(c, src + so),
				    client_dev_ptr(c, dev), len));
		ASSERT_EQ(0, memcmp(client_gpa_ptr(c, src + so), d, len));
		/* not a byte outside the range */
		ASSERT_EQ(0x5a5a5a5a5a5a5a5aULL, client_word_rd(d - 8));
		ASSERT_EQ(0x5a, d[len]);
		ASSERT_EQ(0x5a, d[len + 7]);
		bytes += 2 * len;
	}
	ASSERT_EQ(bytes, client_ring_rd64(c, 0, NPU_RING_BYTES_DONE));
	ASSERT_EQ(400, client_ring_rd64(c, 0, NPU_RING_CMDS_DONE));
}

TEST_F(npu, copy_d2d_and_h2h)
{
	struct client *c = &self->c;
	uint64_t seed = test_seed(2);
	uint64_t low = client_host_alloc(c, 1 * MiB, 64);
	uint64_t high = client_host_alloc_high(c, 1 * MiB, 64);
	struct npu_cmd cmd;
	struct client_ring r;
	int i;

	ASSERT_TRUE(client_ring_setup(c, &r, 5, 32, 4));
	for (i = 0; i < 50; i++) {
		uint64_t len = 1 + client_rnd_next(&seed) % 70000;
		uint64_t a = client_rnd_next(&seed) % (8 * MiB);
		uint64_t b = 8 * MiB + client_rnd_next(&seed) % (8 * MiB);
		uint64_t lo = low + client_rnd_next(&seed) % (1 * MiB - len);
		uint64_t hi = high + client_rnd_next(&seed) % (1 * MiB - len);

		/* device -> device */
		client_rnd_fill(&seed, client_dev_ptr(c, a), len);
		cmd = client_cmd_copy(b, a, len, 0);
		ASSERT_TRUE(client_ring_run(c, &r, &cmd, T_MS));
		ASSERT_EQ(0, memcmp(client_dev_ptr(c, a), client_dev_ptr(c, b), len));

		/* host low -> host high -> host low */
		client_rnd_fill(&seed, client_gpa_ptr(c, lo), len);
		cmd = client_cmd_copy(hi, lo, len, NPU_CMD_SRC_HOST | NPU_CMD_DST_HOST);
		ASSERT_TRUE(client_ring_run(c, &r, &cmd, T_MS));
		ASSERT_EQ(0, memcmp(client_gpa_ptr(c, lo), client_gpa_ptr(c, hi), len));
	}
	/* size 0 is a valid, empty transfer */
	cmd = client_cmd_copy(0, 0, 0, 0);
	ASSERT_TRUE(client_ring_run(c, &r, &cmd, T_MS));
}

TEST_F(npu, copy_large)
{
	struct client *c = &self->c;
	uint64_t seed = test_seed(3), len = 32 * MiB;
	uint64_t buf = client_host_alloc(c, len + 64, 4096) + 3;	/* unaligned */
	uint8_t *copy = malloc(len);
	struct npu_cmd cmd;
	struct client_ring r;

	ASSERT_NE(NULL, copy);
	ASSERT_TRUE(client_ring_setup(c, &r, 7, 4, 3));
	client_irq_take(c, 3);
	client_rnd_fill(&seed, client_gpa_ptr(c, buf), len);
	memcpy(copy, client_gpa_ptr(c, buf), len);

	cmd = client_cmd_copy(1 * MiB + 5, buf, len, NPU_CMD_SRC_HOST | NPU_CMD_IRQ);
	ASSERT_TRUE(client_ring_run(c, &r, &cmd, 10 * T_MS));
	ASSERT_EQ(1, client_irq_wait(c, 3, T_MS));
	memset(client_gpa_ptr(c, buf), 0, len);
	cmd = client_cmd_copy(buf, 1 * MiB + 5, len, NPU_CMD_DST_HOST);
	ASSERT_TRUE(client_ring_run(c, &r, &cmd, 10 * T_MS));
	ASSERT_EQ(0, memcmp(copy, client_gpa_ptr(c, buf), len));
	ASSERT_EQ(2 * len, client_ring_rd64(c, 7, NPU_RING_BYTES_DONE));
	free(copy);
}

/* Many rings copying at once, through two copy engines. */
TEST_F(npu, copy_concurrent_rings)
{
	struct client *c = &self->c;
	uint64_t seed = test_seed(4), len = 3 * MiB + 17;
	struct client_ring r[6];
	uint64_t src[6], dst[6];
	struct npu_cmd cmd;
	int i;

	for (i = 0; i < 6; i++) {
		ASSERT_TRUE(client_ring_setup(c, &r[i], 8 + i, 4, 1 + i % 8));
		src[i] = client_host_alloc(c, len, 64);
		dst[i] = client_host_alloc(c, len, 64);
		client_rnd_fill(&seed, client_gpa_ptr(c, src[i]), len);
		cmd = client_cmd_copy(i * 8 * MiB, src[i], len, NPU_CMD_SRC_HOST);
		client_ring_push(c, &r[i], &cmd);
		cmd = client_cmd_copy(dst[i], i * 8 * MiB, len, NPU_CMD_DST_HOST);
		client_ring_push(c, &r[i], &cmd);
	}
	for (i = 0; i < 6; i++)
		client_ring_submit(c, &r[i]);
	for (i = 0; i < 6; i++) {
		ASSERT_TRUE(client_ring_wait_head(c, &r[i], 2, 5 * T_MS));
		ASSERT_EQ(0, memcmp(client_gpa_ptr(c, src[i]), client_gpa_ptr(c, dst[i]),
				    len));
	}
}

/* Write an SGL table describing the pieces at gpa[] of len[]. */
static void sgl_write(struct client *c, uint64_t table,
		      const uint64_t *gpa, const uint64_t *len, unsigned int n)
{
	struct npu_sg_entry *e = (struct npu_sg_entry *)client_gpa_ptr(c, table);
	unsigned int i;

	for (i = 0; i < n; i++) {
		e[i].addr = htole64(gpa[i]);
		e[i].len = htole64(len[i]);
	}
}

/* Cut size bytes into n random pieces scattered over [area, area+span). */
static void sgl_scatter(uint64_t *seed, uint64_t area, uint64_t span,
			uint64_t size, unsigned int n, uint64_t *gpa,
			uint64_t *len)
{
	uint64_t left = size, slot = span / n;
	unsigned int i;

	for (i = 0; i < n; i++) {
		len[i] = i == n - 1 ? left :
			 client_rnd_next(seed) % (left / (n - i) * 2 + 1);
		if (len[i] > left)
			len[i] = left;
		if (len[i] > slot - 8)
			len[i] = slot - 8;
		left -= len[i];
		gpa[i] = area + i * slot + client_rnd_next(seed) % (slot - len[i]);
	}
	/* whatever the last piece could not take goes in the first slots */
	for (i = 0; left && i < n; i++) {
		uint64_t room = slot - 8 - len[i], add = left < room ? left : room;

		gpa[i] = area + i * slot;
		len[i] += add;
		left -= add;
	}
}

static void sgl_gather(struct client *c, const uint64_t *gpa,
		       const uint64_t *len, unsigned int n, uint8_t *out)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		memcpy(out, client_gpa_ptr(c, gpa[i]), len[i]);
		out += len[i];
	}
}

TEST_F(npu, sgl_copy_both_directions)
{
	struct client *c = &self->c;
	uint64_t seed = test_seed(5);
	uint64_t area_a = client_host_alloc(c, 8 * MiB, 4096);
	uint64_t area_b = client_host_alloc_high(c, 8 * MiB, 4096);	/* above 4G */
	uint64_t tab_a = client_host_alloc(c, 512 * 16, 16);
	uint64_t tab_b = client_host_alloc(c, 512 * 16, 16);
	uint64_t ga[512], la[512], gb[512], lb[512];
	uint8_t *want = malloc(2 * MiB), *got = malloc(2 * MiB);
	struct npu_cmd cmd;
	struct client_ring r;
	int i;

	ASSERT_NE(NULL, want);
	ASSERT_NE(NULL, got);
	ASSERT_TRUE(client_ring_setup(c, &r, 4, 8, 5));
	for (i = 0; i < 20; i++) {
		unsigned int na = 1 + client_rnd_next(&seed) % 512;
		unsigned int nb = 1 + client_rnd_next(&seed) % 512;
		uint64_t size = client_rnd_next(&seed) % (i & 1 ? 2 * MiB : 5000);
		uint16_t host_too = i & 2 ? NPU_CMD_SRC_HOST : 0;

		sgl_scatter(&seed, area_a, 8 * MiB, size, na, ga, la);
		sgl_scatter(&seed, area_b, 8 * MiB, size, nb, gb, lb);
		sgl_write(c, tab_a, ga, la, na);
		sgl_write(c, tab_b, gb, lb, nb);
		for (unsigned int k = 0; k < na; k++)
			client_rnd_fill(&seed, client_gpa_ptr(c, ga[k]), la[k]);
		sgl_gather(c, ga, la, na, want);

		/* SGL -> device (SRC_HOST alongside SRC_SGL is allowed) */
		cmd = client_cmd_copy(12345, tab_a, size, NPU_CMD_SRC_SGL | host_too);
		cmd.src_sg_count = htole32(na);
		ASSERT_TRUE(client_ring_run(c, &r, &cmd, T_MS));
		ASSERT_EQ(0, memcmp(want, client_dev_ptr(c, 12345), size));

		/* device -> SGL */
		cmd = client_cmd_copy(tab_b, 12345, size, NPU_CMD_DST_SGL);
		cmd.dst_sg_count = htole32(nb);
		ASSERT_TRUE(client_ring_run(c, &r, &cmd, T_MS));
		sgl_gather(c, gb, lb, nb, got);
		ASSERT_EQ(0, memcmp(want, got, size));

		/* SGL -> SGL, after scrubbing the destination */
		for (unsigned int k = 0; k < nb; k++)
			memset(client_gpa_ptr(c, gb[k]), 0, lb[k]);
		cmd = client_cmd_copy(tab_b, tab_a, size,
				      NPU_CMD_SRC_SGL | NPU_CMD_DST_SGL);
		cmd.src_sg_count = htole32(na);
		cmd.dst_sg_count = htole32(nb);
		ASSERT_TRUE(client_ring_run(c, &r, &cmd, T_MS));
		sgl_gather(c, gb, lb, nb, got);
		ASSERT_EQ(0, memcmp(want, got, size));
	}
	free(want);
	free(got);
}

TEST_F(npu, fill_host_and_device)
{
	struct client *c = &self->c;
	uint64_t buf = client_host_alloc(c, 3 * MiB, 64);
	uint64_t hi = client_host_alloc_high(c, 64 * KiB, 64);
	struct npu_cmd cmd;
	struct client_ring r;
	uint64_t i;

	ASSERT_TRUE(client_ring_setup(c, &r, 0, 8, 1));
	memset(client_gpa_ptr(c, buf), 0x11, 3 * MiB);
	cmd = client_cmd_fill(buf + 3, 2 * MiB + 1, 0xc3, NPU_CMD_DST_HOST);
	ASSERT_TRUE(client_ring_run(c, &r, &cmd, T_MS));
	ASSERT_EQ(0x11, client_gpa_ptr(c, buf)[2]);
	for (i = 3; i < 2 * MiB + 4; i++)
		ASSERT_EQ(0xc3, client_gpa_ptr(c, buf)[i]);
	ASSERT_EQ(0x11, client_gpa_ptr(c, buf)[2 * MiB + 4]);

	cmd = client_cmd_fill(hi + 1, 100, 0xff, NPU_CMD_DST_HOST);
	ASSERT_TRUE(client_ring_run(c, &r, &cmd, T_MS));
	ASSERT_EQ(0xff, client_gpa_ptr(c, hi)[100]);
	ASSERT_EQ(0, client_gpa_ptr(c, hi)[101]);

	memset(client_dev_ptr(c, 0), 0x22, 1 * MiB);
	cmd = client_cmd_fill(7, 777777, 0x00, 0);
	ASSERT_TRUE(client_ring_run(c, &r, &cmd, T_MS));
	ASSERT_EQ(0x22, client_dev_ptr(c, 0)[6]);
	for (i = 7; i < 7 + 777777; i++)
		ASSERT_EQ(0, client_dev_ptr(c, 0)[i]);
	ASSERT_EQ(0x22, client_dev_ptr(c, 0)[7 + 777777]);

	/* the very end of device memory */
	cmd = client_cmd_fill(client_devmem_size(c) - 10, 10, 0x77, 0);
	ASSERT_TRUE(client_ring_run(c, &r, &cmd, T_MS));
	ASSERT_EQ(0x77, client_dev_ptr(c, client_devmem_size(c) - 1)[0]);
	ASSERT_EQ(2 * MiB + 1 + 100 + 777777 + 10,
		  client_ring_rd64(c, 0, NPU_RING_BYTES_DONE));
}

TEST_F(npu, fill_sgl)
{
	struct client *c = &self->c;
	uint64_t seed = test_seed(9);
	uint64_t area = client_host_alloc(c, 4 * MiB, 4096);
	uint64_t tab = client_host_alloc(c, 64 * 16, 16);
	uint64_t gpa[64], len[64], size = 300000;
	uint8_t *got = malloc(size);
	struct npu_cmd cmd;
	struct client_ring r;
	uint64_t i;

	ASSERT_NE(NULL, got);
	ASSERT_TRUE(client_ring_setup(c, &r, 2, 8, 3));
	memset(client_gpa_ptr(c, area), 0x11, 4 * MiB);
	sgl_scatter(&seed, area, 4 * MiB, size, 64, gpa, len);
	sgl_write(c, tab, gpa, len, 64);
	cmd = client_cmd_fill(tab, size, 0x5a, NPU_CMD_DST_SGL);
	cmd.dst_sg_count = htole32(64);
	ASSERT_TRUE(client_ring_run(c, &r, &cmd, T_MS));
	sgl_gather(c, gpa, len, 64, got);
	for (i = 0; i < size; i++)
		ASSERT_EQ(0x5a, got[i]);
	/* Only the listed pieces were written. */
	for (i = 0; i < 64; i++)
		ASSERT_EQ(0x11, client_gpa_ptr(c, gpa[i] + len[i])[0]);
	free(got);
}

TEST_F(npu, timestamp_and_fence_time)
{
	struct client *c = &self->c;
	uint64_t w = client_host_alloc(c, 64, 64);
	uint64_t clk, t1, t2, t3, t4;
	struct npu_cmd cmd;
	struct client_ring r;

	ASSERT_TRUE(client_ring_setup(c, &r, 2, 8, 3));
	clk = client_reg_rd64(c, NPU_GLB_CLOCK_NS);
	cmd = client_cmd_timestamp(w, NPU_CMD_DST_HOST);
	client_ring_push(c, &r, &cmd);
	cmd = client_cmd_fence(w + 16, 42, NPU_CMD_DST_HOST | NPU_CMD_FENCE_TIME);
	client_ring_push(c, &r, &cmd);
	cmd = client_cmd_timestamp(256, 0);	/* into device memory */
	client_ring_push(c, &r, &cmd);
	cmd = client_cmd_fence(512, 43, NPU_CMD_FENCE_TIME);
	client_ring_push(c, &r, &cmd);
	client_ring_submit(c, &r);
	ASSERT_TRUE(client_ring_wait_head(c, &r, 4, T_MS));

	t1 = client_word_rd(client_gpa_ptr(c, w));
	t2 = client_word_rd(client_gpa_ptr(c, w + 24));
	t3 = client_word_rd(client_dev_ptr(c, 256));
	t4 = client_word_rd(client_dev_ptr(c, 520));
	ASSERT_EQ(42, client_word_rd(client_gpa_ptr(c, w + 16)));
	ASSERT_EQ(43, client_word_rd(client_dev_ptr(c, 512)));
	ASSERT_LE(clk, t1);
	ASSERT_LE(t1, t2);
	ASSERT_LE(t2, t3);
	ASSERT_LE(t3, t4);
	/* exact clock, not the stale register: ahead of it by < 1 s */
	ASSERT_LT(t4 - clk, 1000 * 1000 * 1000ULL);
	/* the register catches up with the next heartbeats */
	ASSERT_TRUE(reg_wait_above64(c, NPU_GLB_CLOCK_NS, t4, T_MS));
}

struct wait_case {
	const char *what;
	enum npu_wait_cond cond;
	uint64_t init;		/* the word before the WAIT */
	uint64_t value;		/* the WAIT's operand */
	uint64_t not_yet;	/* a fence that must not release it */
	uint64_t release;	/* a fence that must */
};

static const struct wait_case wait_cases[] = {
	{ "GEQ", NPU_WAIT_GEQ, 5, 10, 9, 10 },
	{ "GEQ across wrap", NPU_WAIT_GEQ, 0xfffffffffffffff0ULL, 0x8,
	  0xfffffffffffffff8ULL, 0x10 },
	{ "GEQ far behind", NPU_WAIT_GEQ, 0x8000000000000010ULL, 0x10,
	  0x8000000000000011ULL, 0x11 },
	{ "EQ", NPU_WAIT_EQ, 0, 7, 8, 7 },
	{ "AND", NPU_WAIT_AND, 0, 0x30, 0x0f, 0x10 },
	{ "NOR", NPU_WAIT_NOR, 0x0f, 0xfffffffffffffff0ULL, 0x0f, 0x0e },
};

/*
 * A WAIT on ring W released by a FENCE from ring F while ring R keeps
 * executing: for each condition, in host and in device memory.
 */
TEST_F(npu, wait_conditions)
{
	struct client *c = &self->c;
	uint64_t hw = client_host_alloc(c, 64, 64);
	struct client_ring w, f, rr;
	unsigned int i, k;

	ASSERT_TRUE(client_ring_setup(c, &w, 0, 16, 1));
	ASSERT_TRUE(client_ring_setup(c, &f, 1, 16, 2));
	ASSERT_TRUE(client_ring_setup(c, &rr, 2, 16, 3));

	for (i = 0; i < 2 * ARRAY_SIZE(wait_cases); i++) {
		const struct wait_case *wc = &wait_cases[i / 2];
		bool host = i & 1;
		uint16_t hf = host ? NPU_CMD_DST_HOST : 0;
		uint64_t addr = host ? hw : 4096;
		uint8_t *word = host ? client_gpa_ptr(c, hw) : client_dev_ptr(c, 4096);
		uint32_t whead = w.tail;
		struct npu_cmd cmd;

		snprintf(self->step_buf, sizeof(self->step_buf), "%s in %s memory",
			 wc->what, host ? "host" : "device");
		self->step = self->step_buf;
		client_irq_take(c, 1);
		client_word_wr(word, wc->init);
		cmd = client_cmd_wait(addr, wc->value, wc->cond, hf | NPU_CMD_IRQ);
		client_ring_push(c, &w, &cmd);
		client_ring_submit(c, &w);
		ASSERT_TRUE(client_ring_wait_status(c, 0, NPU_RING_WAITING, T_MS));

		/* an unrelated ring is not held up */
		for (k = 0; k < 8; k++) {
			cmd = client_cmd_nop(0);
			ASSERT_TRUE(client_ring_run(c, &rr, &cmd, T_MS));
		}
		cmd = client_cmd_fence(addr, wc->not_yet, hf);
		ASSERT_TRUE(client_ring_run(c, &f, &cmd, T_MS));
		usleep(2000);
		ASSERT_EQ(NPU_RING_WAITING, client_ring_rd32(c, 0, NPU_RING_STATUS));
		ASSERT_EQ(whead, client_ring_rd32(c, 0, NPU_RING_HEAD));
		ASSERT_EQ(0, client_irq_take(c, 1));

		cmd = client_cmd_fence(addr, wc->release, hf);
		ASSERT_TRUE(client_ring_run(c, &f, &cmd, T_MS));
		ASSERT_TRUE(client_ring_wait_head(c, &w, whead + 1, T_MS));
		ASSERT_EQ(1, client_irq_wait(c, 1, T_MS));
		ASSERT_TRUE(client_ring_wait_status(c, 0, NPU_RING_IDLE, T_MS));
	}
}

TEST_F(npu, wait_already_true_and_host_write)
{
	struct client *c = &self->c;
	uint64_t hw = client_host_alloc(c, 64, 64);
	struct npu_cmd cmd;
	struct client_ring w;

	ASSERT_TRUE(client_ring_setup(c, &w, 0, 16, 1));
	/* GEQ wrap-aware: 0x10 is "after" 0xff..f0 */
	client_word_wr(client_gpa_ptr(c, hw), 0x10);
	cmd = client_cmd_wait(hw, 0xfffffffffffffff0ULL, NPU_WAIT_GEQ,
			      NPU_CMD_DST_HOST);
	ASSERT_TRUE(client_ring_run(c, &w, &cmd, T_MS));

	/* released by the CPU writing the word: the card polls */
	client_word_wr(client_gpa_ptr(c, hw), 1);
	cmd = client_cmd_wait(hw, 2, NPU_WAIT_EQ, NPU_CMD_DST_HOST);
	client_ring_push(c, &w, &cmd);
	client_ring_submit(c, &w);
	ASSERT_TRUE(client_ring_wait_status(c, 0, NPU_RING_WAITING, T_MS));
	client_word_wr(client_gpa_ptr(c, hw), 2);
	ASSERT_TRUE(client_ring_wait_head(c, &w, 2, 100));
}

TEST_F(npu, reset_aborts_wait)
{
	struct client *c = &self->c;
	uint64_t hw = client_host_alloc(c, 64, 64);
	struct npu_cmd cmd;
	struct client_ring w;

	ASSERT_TRUE(client_ring_setup(c, &w, 6, 16, 7));
	cmd = client_cmd_wait(hw, 1, NPU_WAIT_EQ, NPU_CMD_DST_HOST);
	client_ring_push(c, &w, &cmd);
	client_ring_submit(c, &w);
	ASSERT_TRUE(client_ring_wait_status(c, 6, NPU_RING_WAITING, T_MS));

	ASSERT_TRUE(client_ctrl_ring_reset(c, 6));
	ASSERT_EQ(NPU_RING_DISABLED, client_ring_rd32(c, 6, NPU_RING_STATUS));
	ASSERT_EQ(0, client_ring_rd32(c, 6, NPU_RING_HEAD));

	ASSERT_TRUE(client_ring_setup(c, &w, 6, 16, 7));
	cmd = client_cmd_nop(0);
	ASSERT_TRUE(client_ring_run(c, &w, &cmd, T_MS));
}

/*
 * A reset is answered with big transfers queued, and nothing of the queue
 * runs after it.
 */
TEST_F(npu, reset_during_copy)
{
	struct client *c = &self->c;
	uint64_t buf = client_host_alloc(c, 32 * MiB, 4096);
	struct npu_cmd cmd = client_cmd_copy(0, buf, 32 * MiB, NPU_CMD_SRC_HOST);
	struct client_ring r, o;
	int i;

	ASSERT_TRUE(client_ring_setup(c, &r, 0, 8, 1));
	ASSERT_TRUE(client_ring_setup(c, &o, 1, 8, 2));
	for (i = 0; i < 8; i++)
		client_ring_push(c, &r, &cmd);
	client_ring_submit(c, &r);
	ASSERT_TRUE(client_ring_wait_status(c, 0, NPU_RING_RUNNING, T_MS));
	ASSERT_TRUE(client_ctrl_ring_reset(c, 0));
	ASSERT_EQ(0, client_ring_rd32(c, 0, NPU_RING_HEAD));
	ASSERT_EQ(0, client_ring_rd64(c, 0, NPU_RING_CMDS_DONE));
	ASSERT_EQ(NPU_RING_DISABLED, client_ring_rd32(c, 0, NPU_RING_STATUS));

	/* nothing of the old queue runs on after the reset */
	usleep(QUIET_MS * 1000);
	ASSERT_EQ(0, client_ring_rd32(c, 0, NPU_RING_HEAD));
	cmd = client_cmd_nop(0);
	ASSERT_TRUE(client_ring_run(c, &o, &cmd, T_MS));
	ASSERT_TRUE(client_ring_setup(c, &r, 0, 8, 1));
	ASSERT_TRUE(client_ring_run(c, &r, &cmd, T_MS));
}

TEST_F(npu, ring_wraparound)
{
	struct client *c = &self->c;
	uint64_t hw = client_host_alloc(c, 64, 64);
	struct npu_cmd cmd;
	struct client_ring r;
	uint32_t i;

	ASSERT_TRUE(client_ring_setup(c, &r, 9, 2, 8));
	for (i = 1; i <= 301; i++) {
		cmd = client_cmd_fence(hw, i, NPU_CMD_DST_HOST);
		client_ring_push(c, &r, &cmd);
		if (r.tail - client_ring_rd32(c, 9, NPU_RING_HEAD) == r.size || i == 301) {
			client_ring_submit(c, &r);
			ASSERT_TRUE(client_ring_wait_head(c, &r, r.tail, T_MS));
		}
	}
	ASSERT_EQ(301, client_word_rd(client_gpa_ptr(c, hw)));
	ASSERT_EQ(301, client_ring_rd64(c, 9, NPU_RING_CMDS_DONE));
}

/* One bad command: what it is and the error it must raise. */
struct bad_case {
	const char *what;
	int err;
	struct npu_cmd cmd;
};

/*
 * y = -x for 16 float32 elements of device memory, as a descriptor at gpa
 * in guest RAM; returns its size.
 */
static uint64_t neg_op(struct client *c, uint64_t gpa, uint64_t x, uint64_t y)
{
	static const uint64_t dims[1] = { 16 };
	struct npu_op_desc *d = client_op_init(c, gpa, NPU_OPERATOR_UNARY, 1);

	d->attrs.unary.fn.kind = htole32(NPU_UNARY_NEG);
	client_op_tensor(d, 0, x, 1, dims);
	client_op_tensor(d, 1, y, 1, dims);
	return client_op_size(d);
}

static struct npu_cmd with_sg(struct npu_cmd cmd, uint32_t src_n,
			      uint32_t dst_n)
{
	cmd.src_sg_count = htole32(src_n);
	cmd.dst_sg_count = htole32(dst_n);
	return cmd;
}

static struct npu_cmd with_arg(struct npu_cmd cmd, uint32_t arg)
{
	cmd.arg = htole32(arg);
	return cmd;
}

/*
 * Every way a command can be bad stops only its ring, with the right
 * error, HEAD and ERROR_INDEX on it, an interrupt, and not a byte written;
 * other rings, even on the same vector, go on.
 */
TEST_F(npu, bad_commands)
{
	struct client *c = &self->c;
	uint64_t devsz = client_devmem_size(c), low = c->opts.lowmem;
	uint64_t high_end = CLIENT_HIGHMEM_BASE + c->opts.ram_size - low;
	uint64_t hbuf = client_host_alloc(c, 64 * KiB, 4096);	/* must stay 0xaa */
	uint64_t good = client_host_alloc(c, 64 * KiB, 4096);	/* valid source */
	uint64_t tab = client_host_alloc(c, 4096, 16);
	uint64_t fw = client_host_alloc(c, 64, 64);
	struct npu_sg_entry *t = (struct npu_sg_entry *)client_gpa_ptr(c, tab);
	struct npu_cmd nop = client_cmd_nop(0), cmd;
	struct client_ring r, other, same_vec;
	uint64_t fence_val = 0;
	unsigned int i, n;
	/* operators on the device memory that must stay 0xaa */
	uint64_t op = client_host_alloc(c, 4096, 64);
	uint64_t op_far = client_host_alloc(c, 4096, 64);
	uint64_t op_kind = client_host_alloc(c, 4096, 64);
	uint64_t osz = neg_op(c, op, 0, 1024);
	const uint16_t SH = NPU_CMD_SRC_HOST;

	neg_op(c, op_far, 0, devsz - 32);
	neg_op(c, op_kind, 0, 1024);
	((struct npu_op_desc *)client_gpa_ptr(c, op_kind))->kind = htole16(99);

	/*
	 * tab[0..1]: valid, 4096 bytes into hbuf; tab[2..3]: the second
	 * entry is in the PCI hole; tab[4..5]: sum short; tab[6..7]: wraps;
	 * tab[8..9]: lengths that overflow a 64-bit sum
	 */
	t[0] = (struct npu_sg_entry){ htole64(hbuf), htole64(1000) };
	t[1] = (struct npu_sg_entry){ htole64(hbuf + 2000), htole64(3096) };
	t[2] = (struct npu_sg_entry){ htole64(hbuf), htole64(1000) };
	t[3] = (struct npu_sg_entry){ htole64(3 * GiB), htole64(3096) };
	t[4] = (struct npu_sg_entry){ htole64(hbuf), htole64(1000) };
	t[5] = (struct npu_sg_entry){ htole64(hbuf + 2000), htole64(3095) };
	t[6] = (struct npu_sg_entry){ htole64(hbuf), htole64(1000) };
	t[7] = (struct npu_sg_entry){ htole64(~0ULL - 99), htole64(3096) };
	t[8] = (struct npu_sg_entry){ htole64(hbuf), htole64(1ULL << 63) };
	t[9] = (struct npu_sg_entry){ htole64(hbuf), htole64((1ULL << 63) + 4096) };

	struct bad_case cases[] = {
		{ "opcode 14", NPU_ERR_OPCODE, { .opcode = htole16(14) } },
		{ "opcode 0xffff", NPU_ERR_OPCODE, { .opcode = htole16(0xffff) } },
		{ "unknown flag 0x40", NPU_ERR_RESERVED, client_cmd_nop(0x40) },
		{ "unknown flag 0x8000", NPU_ERR_RESERVED, client_cmd_nop(0x8000) },
		{ "COPY with FENCE_TIME", NPU_ERR_RESERVED,
		  client_cmd_copy(0, good, 16, NPU_CMD_SRC_HOST | NPU_CMD_FENCE_TIME) },
		{ "FILL with SRC_HOST", NPU_ERR_RESERVED,
		  client_cmd_fill(hbuf, 16, 1, NPU_CMD_DST_HOST | NPU_CMD_SRC_HOST) },
		{ "FENCE with DST_SGL", NPU_ERR_RESERVED,
		  client_cmd_fence(fw, 1, NPU_CMD_DST_HOST | NPU_CMD_DST_SGL) },
		{ "TIMESTAMP with FENCE_TIME", NPU_ERR_RESERVED,
		  client_cmd_timestamp(fw, NPU_CMD_DST_HOST | NPU_CMD_FENCE_TIME) },
		{ "NOP with size", NPU_ERR_RESERVED,
		  { .opcode = htole16(NPU_OP_NOP), .size = htole64(1) } },
		{ "NOP with dst", NPU_ERR_RESERVED,
		  { .opcode = htole16(NPU_OP_NOP), .dst = htole64(8) } },
		{ "rsvd[0]", NPU_ERR_RESERVED,
		  { .opcode = htole16(NPU_OP_NOP), .rsvd = { htole64(1), 0 } } },
		{ "rsvd[1]", NPU_ERR_RESERVED,
		  { .opcode = htole16(NPU_OP_NOP), .rsvd = { 0, htole64(1) } } },
		{ "FENCE with src", NPU_ERR_RESERVED,
		  { .opcode = htole16(NPU_OP_FENCE), .src = htole64(8) } },
		{ "IRQ_IF on a NOP", NPU_ERR_RESERVED, client_cmd_nop(NPU_CMD_IRQ_IF) },
		{ "IRQ_IF on a COPY", NPU_ERR_RESERVED,
		  client_cmd_copy(0, good, 16, NPU_CMD_SRC_HOST | NPU_CMD_IRQ_IF) },
		{ "IRQ_IF word misaligned", NPU_ERR_ALIGN, fence_irq_if(hbuf, 1, fw + 2) },
		{ "IRQ_IF word in the PCI hole", NPU_ERR_HOST_ADDR,
		  fence_irq_if(hbuf, 1, low) },
		{ "IRQ_IF word past high end", NPU_ERR_HOST_ADDR,
		  fence_irq_if(hbuf, 1, high_end) },
		{ "TIMESTAMP with value", NPU_ERR_RESERVED,
		  { .opcode = htole16(NPU_OP_TIMESTAMP), .value = htole64(8) } },
		{ "COPY with arg", NPU_ERR_RESERVED,
		  with_arg(client_cmd_copy(hbuf, good, 16, NPU_CMD_SRC_HOST |
					   NPU_CMD_DST_HOST), 1) },
		{ "COPY with value", NPU_ERR_RESERVED,
		  { .opcode = htole16(NPU_OP_COPY), .value = htole64(1) } },
		{ "sg count without SGL", NPU_ERR_RESERVED,
		  with_sg(client_cmd_copy(hbuf, good, 16, NPU_CMD_SRC_HOST |
					  NPU_CMD_DST_HOST), 1, 0) },
		{ "FILL byte 0x100", NPU_ERR_RESERVED,
		  with_arg(client_cmd_fill(hbuf, 16, 0, NPU_CMD_DST_HOST), 0x1aa) },
		{ "WAIT condition 4", NPU_ERR_RESERVED,
		  client_cmd_wait(fw, 0, 4, NPU_CMD_DST_HOST) },
		{ "device dst past end", NPU_ERR_DEV_ADDR,
		  client_cmd_copy(devsz - 8, good, 16, NPU_CMD_SRC_HOST) },
		{ "device dst at end", NPU_ERR_DEV_ADDR, client_cmd_fill(devsz, 1, 0, 0) },
		{ "device src wraps", NPU_ERR_DEV_ADDR,
		  client_cmd_copy(hbuf, ~0ULL - 15, 32, NPU_CMD_DST_HOST) },
		{ "device fence time past end", NPU_ERR_DEV_ADDR,
		  client_cmd_fence(devsz - 8, 1, NPU_CMD_FENCE_TIME) },
		{ "device wait past end", NPU_ERR_DEV_ADDR,
		  client_cmd_wait(devsz, 0, NPU_WAIT_EQ, 0) },
		{ "host src in PCI hole", NPU_ERR_HOST_ADDR,
		  client_cmd_copy(0, 3 * GiB, 16, NPU_CMD_SRC_HOST) },
		{ "host dst across lowmem end", NPU_ERR_HOST_ADDR,
		  client_cmd_copy(low - 16, 0, 32, NPU_CMD_DST_HOST) },
		{ "host src wraps", NPU_ERR_HOST_ADDR,
		  client_cmd_copy(0, ~0ULL - 15, 32, NPU_CMD_SRC_HOST) },
		{ "host dst past high end", NPU_ERR_HOST_ADDR,
		  client_cmd_fill(high_end - 8, 16, 0, NPU_CMD_DST_HOST) },
		{ "host timestamp in hole", NPU_ERR_HOST_ADDR,
		  client_cmd_timestamp(low, NPU_CMD_DST_HOST) },
		{ "valid src, bad host dst", NPU_ERR_HOST_ADDR,
		  client_cmd_copy(5 * GiB, 0, 4096, NPU_CMD_DST_HOST) },
		{ "misaligned host fence", NPU_ERR_ALIGN,
		  client_cmd_fence(fw + 4, 1, NPU_CMD_DST_HOST) },
		{ "misaligned device wait", NPU_ERR_ALIGN,
		  client_cmd_wait(4097, 0, NPU_WAIT_EQ, 0) },
		{ "misaligned timestamp", NPU_ERR_ALIGN,
		  client_cmd_timestamp(fw + 1, NPU_CMD_DST_HOST) },
		{ "misaligned SGL table", NPU_ERR_ALIGN,
		  with_sg(client_cmd_copy(0, tab + 8, 4096, NPU_CMD_SRC_SGL), 2, 0) },
		{ "SGL count 0", NPU_ERR_SGL,
		  with_sg(client_cmd_copy(0, tab, 4096, NPU_CMD_SRC_SGL), 0, 0) },
		{ "SGL count too big", NPU_ERR_SGL,
		  with_sg(client_cmd_copy(0, tab, 4096, NPU_CMD_SRC_SGL), 65537, 0) },
		{ "SGL table outside RAM", NPU_ERR_HOST_ADDR,
		  with_sg(client_cmd_copy(0, 3 * GiB, 4096, NPU_CMD_SRC_SGL), 2, 0) },
		{ "SGL entry in the hole", NPU_ERR_SGL,
		  with_sg(client_cmd_copy(tab + 2 * 16, 0, 4096, NPU_CMD_DST_SGL), 0, 2) },
		{ "SGL lengths short", NPU_ERR_SGL,
		  with_sg(client_cmd_copy(tab + 4 * 16, 0, 4096, NPU_CMD_DST_SGL), 0, 2) },
		{ "SGL lengths long", NPU_ERR_SGL,
		  with_sg(client_cmd_copy(tab, 0, 4095, NPU_CMD_DST_SGL), 0, 2) },
		{ "SGL entry wraps", NPU_ERR_SGL,
		  with_sg(client_cmd_copy(tab + 6 * 16, 0, 4096, NPU_CMD_DST_SGL), 0, 2) },
		{ "SGL lengths overflow", NPU_ERR_SGL,
		  with_sg(client_cmd_copy(tab + 8 * 16, 0, 4096, NPU_CMD_DST_SGL), 0, 2) },
		{ "SGL dst fine, src device range bad", NPU_ERR_DEV_ADDR,
		  with_sg(client_cmd_copy(tab, devsz - 100, 4096, NPU_CMD_DST_SGL), 0, 2) },
		{ "COMPUTE without SRC_HOST", NPU_ERR_OP_PARAM,
		  client_cmd_compute(op, osz, 0) },
		{ "COMPUTE with DST_HOST", NPU_ERR_RESERVED,
		  client_cmd_compute(op, osz, SH | NPU_CMD_DST_HOST) },
		{ "COMPUTE with SRC_SGL", NPU_ERR_RESERVED,
		  client_cmd_compute(op, osz, SH | NPU_CMD_SRC_SGL) },
		{ "COMPUTE with FENCE_TIME", NPU_ERR_RESERVED,
		  client_cmd_compute(op, osz, SH | NPU_CMD_FENCE_TIME) },
		{ "COMPUTE with dst", NPU_ERR_RESERVED,
		  { .opcode = htole16(NPU_OP_COMPUTE), .flags = htole16(SH),
		    .src = htole64(op), .size = htole64(osz), .dst = htole64(64) } },
		{ "COMPUTE with value", NPU_ERR_RESERVED,
		  { .opcode = htole16(NPU_OP_COMPUTE), .flags = htole16(SH),
		    .src = htole64(op), .size = htole64(osz), .value = htole64(1) } },
		{ "COMPUTE with arg", NPU_ERR_RESERVED,
		  with_arg(client_cmd_compute(op, osz, SH), 1) },
		{ "COMPUTE with an sg count", NPU_ERR_RESERVED,
		  with_sg(client_cmd_compute(op, osz, SH), 1, 0) },
		{ "COMPUTE descriptor not 64-byte aligned", NPU_ERR_OP_PARAM,
		  client_cmd_compute(op + 16, osz, SH) },
		{ "COMPUTE size 0", NPU_ERR_OP_PARAM, client_cmd_compute(op, 0, SH) },
		{ "COMPUTE size a tensor short", NPU_ERR_OP_PARAM,
		  client_cmd_compute(op, osz - sizeof(struct npu_tensor_desc), SH) },
		{ "COMPUTE size past OP_DESC_MAX", NPU_ERR_OP_PARAM,
		  client_cmd_compute(op, 4096, SH) },
		{ "COMPUTE descriptor in the PCI hole", NPU_ERR_HOST_ADDR,
		  client_cmd_compute(3 * GiB, osz, SH) },
		{ "COMPUTE descriptor across lowmem end", NPU_ERR_HOST_ADDR,
		  client_cmd_compute(low - 64, osz, SH) },
		{ "COMPUTE tensor past device memory", NPU_ERR_DEV_ADDR,
		  client_cmd_compute(op_far, osz, SH) },
		{ "COMPUTE unknown operator", NPU_ERR_OPERATOR,
		  client_cmd_compute(op_kind, osz, SH) },
	};

	ASSERT_TRUE(client_ring_setup(c, &other, 1, 16, 2));
	ASSERT_TRUE(client_ring_setup(c, &same_vec, 2, 16, 1));
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		self->step = cases[i].what;
		memset(client_gpa_ptr(c, hbuf), 0xaa, 64 * KiB);
		memset(client_dev_ptr(c, 0), 0xaa, 64 * KiB);
		client_word_wr(client_gpa_ptr(c, fw), 0);
		client_irq_take(c, 1);

		/* two good commands, the bad one at counter 2, a fence after */
		ASSERT_TRUE(client_ring_setup(c, &r, 0, 8, 1));
		client_ring_push(c, &r, &nop);
		client_ring_push(c, &r, &nop);
		client_ring_push(c, &r, &cases[i].cmd);
		cmd = client_cmd_fence(fw, 1, NPU_CMD_DST_HOST);
		client_ring_push(c, &r, &cmd);
		client_ring_submit(c, &r);

		ASSERT_TRUE(client_ring_wait_status(c, 0, NPU_RING_STOPPED, T_MS));
		ASSERT_EQ(cases[i].err, client_ring_rd32(c, 0, NPU_RING_ERROR));
		ASSERT_EQ(2, client_ring_rd32(c, 0, NPU_RING_ERROR_INDEX));
		ASSERT_EQ(2, client_ring_rd32(c, 0, NPU_RING_HEAD));
		ASSERT_EQ(2, client_ring_rd64(c, 0, NPU_RING_CMDS_DONE));
		ASSERT_GE(client_irq_wait(c, 1, T_MS), 1);
		ASSERT_EQ(0, client_word_rd(client_gpa_ptr(c, fw)));
		for (n = 0; n < 64 * KiB; n++) {
			ASSERT_EQ(0xaa, client_gpa_ptr(c, hbuf)[n]);
			ASSERT_EQ(0xaa, client_dev_ptr(c, 0)[n]);
		}

		/* a doorbell does not restart a stopped ring */
		client_doorbell(c, 1);
		usleep(1000);
		ASSERT_EQ(2, client_ring_rd32(c, 0, NPU_RING_HEAD));

		/* other rings, on other and on the same vector, go on */
		cmd = client_cmd_fence(fw + 8, ++fence_val, NPU_CMD_DST_HOST);
		ASSERT_TRUE(client_ring_run(c, &other, &cmd, T_MS));
		cmd = client_cmd_fence(fw + 16, fence_val, NPU_CMD_DST_HOST);
		ASSERT_TRUE(client_ring_run(c, &same_vec, &cmd, T_MS));
		ASSERT_EQ(fence_val, client_word_rd(client_gpa_ptr(c, fw + 16)));
		ASSERT_EQ(NPU_RING_IDLE, client_ring_rd32(c, 1, NPU_RING_STATUS));
	}

	/* after a reset the ring is good as new */
	ASSERT_TRUE(client_ring_setup(c, &r, 0, 8, 1));
	cmd = client_cmd_fence(fw, 99, NPU_CMD_DST_HOST);
	ASSERT_TRUE(client_ring_run(c, &r, &cmd, T_MS));
	ASSERT_EQ(99, client_word_rd(client_gpa_ptr(c, fw)));
}

/* Programs */

/*
 * A program descriptor and its chunks in guest RAM, as the driver lays
 * them out (driver/npu_hw.h, struct npu_program_desc); returns its address.
 */
static uint64_t program_at(struct client *c, const struct npu_cmd *cmds, uint32_t n)
{
	uint32_t nchunks = (n + NPU_PROGRAM_CHUNK_CMDS - 1) / NPU_PROGRAM_CHUNK_CMDS;
	uint64_t desc = client_host_alloc(c, 64 + 8 * nchunks, 64);
	struct npu_program_desc *d = (struct npu_program_desc *)client_gpa_ptr(c, desc);
	uint32_t i, k;

	memset(d, 0, 64);
	d->count = htole32(n);
	for (i = 0; i < nchunks; i++) {
		uint32_t in_chunk = n - i * NPU_PROGRAM_CHUNK_CMDS;
		uint64_t chunk;

		if (in_chunk > NPU_PROGRAM_CHUNK_CMDS)
			in_chunk = NPU_PROGRAM_CHUNK_CMDS;
		chunk = client_host_alloc(c, in_chunk * SLOT_BYTES, 64);
		for (k = 0; k < in_chunk; k++)
			memcpy(client_gpa_ptr(c, chunk + k * SLOT_BYTES),
			       &cmds[i * NPU_PROGRAM_CHUNK_CMDS + k], SLOT_BYTES);
		d->chunks[i] = htole64(chunk);
	}
	return desc;
}

static struct npu_cmd pcmd(uint16_t opcode, uint64_t value)
{
	return (struct npu_cmd){ .opcode = htole16(opcode), .value = htole64(value) };
}

static struct npu_cmd pcall(uint64_t desc)
{
	return (struct npu_cmd){ .opcode = htole16(NPU_OP_CALL), .src = htole64(desc) };
}

static struct npu_cmd pbranch(uint64_t dst, uint64_t src, uint64_t size,
			      uint32_t cond, uint16_t flags, uint64_t target)
{
	return (struct npu_cmd){
		.opcode = htole16(NPU_OP_BRANCH), .flags = htole16(flags),
		.arg = htole32(cond), .dst = htole64(dst), .src = htole64(src),
		.size = htole64(size), .value = htole64(target),
	};
}

/*
 * A CALLed program runs its control commands in the ring's thread:
 * threads in ACTIVATE order, BRANCH, SWITCH, nested CALLs across chunks,
 * indirect values; every command it runs counts in CMDS_DONE.
 */
TEST_F(npu, program_runs_its_commands)
{
	struct client *c = &self->c;
	uint64_t w = client_host_alloc(c, 4096, 64);	/* host words */
	enum { N_LONG = NPU_PROGRAM_CHUNK_CMDS + 7 };
	static struct npu_cmd longp[N_LONG];
	struct client_ring r;
	uint64_t leaf, mid, main_prog, done;
	unsigned int i;
	const uint16_t DH = NPU_CMD_DST_HOST;

	memset(client_gpa_ptr(c, w), 0, 4096);
	client_word_wr(client_dev_ptr(c, 0), 7);	/* the SWITCH index, the BRANCH operand */
	client_word_wr(client_dev_ptr(c, 8), 1234);	/* an indirect value */

	/* two chunks of NOPs, then a fence: CALLed from mid */
	for (i = 0; i < N_LONG - 1; i++)
		longp[i] = client_cmd_nop(0);
	longp[N_LONG - 1] = client_cmd_fence(w + 8, 5, DH);
	leaf = program_at(c, longp, N_LONG);
	{
		struct npu_cmd m[] = { pcall(leaf) };

		mid = program_at(c, m, 1);
	}
	{
		struct npu_cmd m[] = {
			/* 0 */ pcmd(NPU_OP_ACTIVATE, 5),
			/* 1 */ pcmd(NPU_OP_ACTIVATE, 8),
			/* 2 */ client_cmd_fence(w, 1, DH),
			/* 3 */ pcall(mid),
			/* 4 */ pcmd(NPU_OP_RETURN, 0),
			/* 5: thread A */ client_cmd_copy(w + 16, w, 8, DH | NPU_CMD_SRC_HOST),
			/* 6 */ client_cmd_fence(w, 2, DH),
			/* 7 */ pcmd(NPU_OP_RETURN, 0),
			/* 8: thread B, *dev[0] = 7: a SWITCH past its 2 cases */
			(struct npu_cmd){ .opcode = htole16(NPU_OP_SWITCH), .dst = 0,
					  .size = htole64(8), .value = htole64(2) },
			/* 9 */ pcmd(NPU_OP_JUMP, 0),
			/* 10 */ pcmd(NPU_OP_JUMP, 0),
			/* 11: 7 > 6 */ pbranch(0, 6, 8, NPU_BRANCH_GT, NPU_CMD_SRC_IMM, 13),
			/* 12 */ client_cmd_fence(w + 24, 666, DH),
			/* 13 */ (struct npu_cmd){ .opcode = htole16(NPU_OP_FENCE),
					.flags = htole16(DH | NPU_CMD_VALUE_INDIRECT),
					.dst = htole64(w + 32), .value = htole64(8) },
			/* 14 */ pcmd(NPU_OP_END, 0),
			/* 15 */ client_cmd_fence(w + 24, 999, DH),
		};

		main_prog = program_at(c, m, 16);
	}

	ASSERT_TRUE(client_ring_setup(c, &r, 0, 8, 1));
	{
		struct npu_cmd call = pcall(main_prog);

		ASSERT_TRUE(client_ring_run(c, &r, &call, T_MS));
	}
	EXPECT_EQ(NPU_RING_IDLE, client_ring_rd32(c, 0, NPU_RING_STATUS));
	EXPECT_EQ(2, client_word_rd(client_gpa_ptr(c, w)));
	EXPECT_EQ(5, client_word_rd(client_gpa_ptr(c, w + 8)));
	EXPECT_EQ(1, client_word_rd(client_gpa_ptr(c, w + 16)));	/* A after main */
	EXPECT_EQ(0, client_word_rd(client_gpa_ptr(c, w + 24)));	/* skipped, dropped */
	EXPECT_EQ(1234, client_word_rd(client_gpa_ptr(c, w + 32)));
	/*
	 * main: 0-4 (5, RETURN included), A 5-7 (3), B: 8, 11, 13, 14 (4);
	 * mid: its CALL; leaf: N_LONG; and the ring's CALL.
	 */
	done = 5 + 3 + 4 + 1 + N_LONG + 1;
	EXPECT_EQ(done, client_ring_rd64(c, 0, NPU_RING_CMDS_DONE));
}

/*
 * A bad program stops the ring on its CALL, as a bad command does, and
 * writes nothing after the bad command.
 */
TEST_F(npu, program_bad_commands)
{
	struct client *c = &self->c;
	uint64_t devsz = client_devmem_size(c), low = c->opts.lowmem;
	uint64_t fw = client_host_alloc(c, 64, 64);
	struct npu_cmd nop = client_cmd_nop(0), fence, cmd;
	struct npu_cmd active[NPU_PROGRAM_MAX_ACTIVE + 2];
	struct client_ring r;
	uint64_t deep, zero_desc, big_desc, rsvd_desc, bad_chunk;
	unsigned int i;

	/* a program that CALLs itself goes one level too deep */
	deep = client_host_alloc(c, 64 + 8, 64);
	{
		struct npu_cmd self_call = pcall(deep);
		uint64_t p = program_at(c, &self_call, 1);

		memcpy(client_gpa_ptr(c, deep), client_gpa_ptr(c, p), 64 + 8);
	}
	zero_desc = program_at(c, &nop, 1);
	((struct npu_program_desc *)client_gpa_ptr(c, zero_desc))->count = 0;
	big_desc = program_at(c, &nop, 1);
	((struct npu_program_desc *)client_gpa_ptr(c, big_desc))->count =
		htole32(NPU_PROGRAM_MAX_CMDS + 1);
	rsvd_desc = program_at(c, &nop, 1);
	((struct npu_program_desc *)client_gpa_ptr(c, rsvd_desc))->rsvd[3] = htole64(1);
	bad_chunk = program_at(c, &nop, 1);
	((struct npu_program_desc *)client_gpa_ptr(c, bad_chunk))->chunks[0] |= htole64(8);
	for (i = 0; i <= NPU_PROGRAM_MAX_ACTIVE; i++)
		active[i] = pcmd(NPU_OP_ACTIVATE, NPU_PROGRAM_MAX_ACTIVE + 1);
	active[i] = pcmd(NPU_OP_RETURN, 0);

	struct {
		const char *what;
		uint32_t err;
		uint64_t desc;		/* a program to CALL, or 0: cmd on the ring */
	} cases[] = {
		{ "JUMP on the ring", NPU_ERR_PROGRAM, 0 },
		{ "CALL misaligned", NPU_ERR_ALIGN, 0 },
		{ "CALL in the PCI hole", NPU_ERR_HOST_ADDR, 0 },
		{ "CALL with a flag", NPU_ERR_RESERVED, 0 },
		{ "count 0", NPU_ERR_PROGRAM, zero_desc },
		{ "count too big", NPU_ERR_PROGRAM, big_desc },
		{ "descriptor rsvd", NPU_ERR_RESERVED, rsvd_desc },
		{ "chunk misaligned", NPU_ERR_ALIGN, bad_chunk },
		{ "nested too deep", NPU_ERR_PROGRAM, deep },
		{ "too many ACTIVATEs", NPU_ERR_PROGRAM,
		  program_at(c, active, NPU_PROGRAM_MAX_ACTIVE + 2) },
	};
	struct npu_cmd ring_cmds[] = {
		pcmd(NPU_OP_JUMP, 0),
		pcall(fw + 8),
		pcall(low),
		(struct npu_cmd){ .opcode = htole16(NPU_OP_CALL),
				  .flags = htole16(NPU_CMD_DST_HOST), .src = htole64(fw) },
	};
	/* one bad command inside a program each */
	struct {
		const char *what;
		uint32_t err;
		struct npu_cmd cmd;
	} inner[] = {
		{ "JUMP past the end", NPU_ERR_PROGRAM, pcmd(NPU_OP_JUMP, 2) },
		{ "ACTIVATE past the end", NPU_ERR_PROGRAM, pcmd(NPU_OP_ACTIVATE, 2) },
		{ "BRANCH of 3 bytes", NPU_ERR_PROGRAM,
		  pbranch(0, 0, 3, NPU_BRANCH_EQ, NPU_CMD_SRC_IMM, 0) },
		{ "BRANCH cond 6", NPU_ERR_RESERVED,
		  pbranch(0, 0, 8, 6, NPU_CMD_SRC_IMM, 0) },
		{ "BRANCH misaligned", NPU_ERR_ALIGN,
		  pbranch(4, 0, 8, NPU_BRANCH_EQ, NPU_CMD_SRC_IMM, 0) },
		{ "BRANCH past device memory", NPU_ERR_DEV_ADDR,
		  pbranch(devsz, 0, 8, NPU_BRANCH_EQ, NPU_CMD_SRC_IMM, 0) },
		{ "BRANCH operand past device memory", NPU_ERR_DEV_ADDR,
		  pbranch(0, devsz, 8, NPU_BRANCH_EQ, 0, 0) },
		{ "BRANCH past the end", NPU_ERR_PROGRAM,
		  pbranch(0, 0, 8, NPU_BRANCH_EQ, NPU_CMD_SRC_IMM, 2) },
		{ "SWITCH past the end", NPU_ERR_PROGRAM,
		  (struct npu_cmd){ .opcode = htole16(NPU_OP_SWITCH),
				    .size = htole64(8), .value = htole64(2) } },
		{ "END with a value", NPU_ERR_RESERVED, pcmd(NPU_OP_END, 1) },
		{ "SRC_IMM on a JUMP", NPU_ERR_RESERVED,
		  (struct npu_cmd){ .opcode = htole16(NPU_OP_JUMP),
				    .flags = htole16(NPU_CMD_SRC_IMM) } },
		{ "indirect value misaligned", NPU_ERR_ALIGN,
		  (struct npu_cmd){ .opcode = htole16(NPU_OP_FENCE),
				    .flags = htole16(NPU_CMD_DST_HOST | NPU_CMD_VALUE_INDIRECT),
				    .dst = htole64(fw), .value = htole64(4) } },
		{ "indirect value past device memory", NPU_ERR_DEV_ADDR,
		  (struct npu_cmd){ .opcode = htole16(NPU_OP_WAIT),
				    .flags = htole16(NPU_CMD_VALUE_INDIRECT),
				    .dst = 0, .value = htole64(devsz) } },
		{ "a COPY past device memory", NPU_ERR_DEV_ADDR,
		  client_cmd_fill(devsz - 8, 16, 0, 0) },
	};
	unsigned int ncases = ARRAY_SIZE(cases), total = ncases + ARRAY_SIZE(inner);

	for (i = 0; i < total; i++) {
		if (i < ncases) {
			self->step = cases[i].what;
			cmd = i < ARRAY_SIZE(ring_cmds) ? ring_cmds[i] : pcall(cases[i].desc);
		} else {
			struct npu_cmd p[2] = { inner[i - ncases].cmd, nop };

			self->step = inner[i - ncases].what;
			cmd = pcall(program_at(c, p, 2));
		}
		client_word_wr(client_gpa_ptr(c, fw), 0);
		client_irq_take(c, 1);
		ASSERT_TRUE(client_ring_setup(c, &r, 0, 8, 1));
		client_ring_push(c, &r, &nop);
		client_ring_push(c, &r, &nop);
		client_ring_push(c, &r, &cmd);
		fence = client_cmd_fence(fw, 1, NPU_CMD_DST_HOST);
		client_ring_push(c, &r, &fence);
		client_ring_submit(c, &r);

		ASSERT_TRUE(client_ring_wait_status(c, 0, NPU_RING_STOPPED, T_MS));
		ASSERT_EQ(i < ncases ? cases[i].err : inner[i - ncases].err,
			  client_ring_rd32(c, 0, NPU_RING_ERROR));
		ASSERT_EQ(2, client_ring_rd32(c, 0, NPU_RING_ERROR_INDEX));
		ASSERT_EQ(2, client_ring_rd32(c, 0, NPU_RING_HEAD));
		ASSERT_GE(client_irq_wait(c, 1, T_MS), 1);
		ASSERT_EQ(0, client_word_rd(client_gpa_ptr(c, fw)));
	}
}

/*
 * A program that never ends keeps CMDS_DONE moving, so a driver sees it
 * alive, and a ring reset stops it.
 */
TEST_F(npu, program_endless_loop_reset)
{
	struct client *c = &self->c;
	struct npu_cmd loop = pcmd(NPU_OP_JUMP, 0), call;
	struct client_ring r;

	call = pcall(program_at(c, &loop, 1));
	ASSERT_TRUE(client_ring_setup(c, &r, 0, 8, 1));
	client_ring_push(c, &r, &call);
	client_ring_submit(c, &r);
	ASSERT_TRUE(reg_wait_above64(c, NPU_RING_REG(0, NPU_RING_CMDS_DONE), 1000, T_MS));
	ASSERT_TRUE(reg_wait_above64(c, NPU_RING_REG(0, NPU_RING_CMDS_DONE), 100000, T_MS));
	EXPECT_EQ(0, client_ring_rd32(c, 0, NPU_RING_HEAD));
	ASSERT_TRUE(client_ctrl_ring_reset(c, 0));
	EXPECT_EQ(NPU_RING_DISABLED, client_ring_rd32(c, 0, NPU_RING_STATUS));
	EXPECT_EQ(0, client_ring_rd64(c, 0, NPU_RING_CMDS_DONE));
}

/* Operators */

/* y = a + b for n float32 elements of device memory; returns the size. */
static uint64_t add_op(struct client *c, uint64_t gpa, uint64_t a, uint64_t b,
		       uint64_t y, uint64_t n)
{
	struct npu_op_desc *d = client_op_init(c, gpa, NPU_OPERATOR_BINARY, 2);

	d->attrs.binary.kind = htole32(NPU_BINARY_ADD);
	client_op_tensor(d, 0, a, 1, &n);
	client_op_tensor(d, 1, b, 1, &n);
	client_op_tensor(d, 2, y, 1, &n);
	return client_op_size(d);
}

static float *dev_f32(struct client *c, uint64_t off)
{
	return (float *)client_dev_ptr(c, off);
}

/* Distinct values, exact in float32, and their sums too. */
static void fill_pair(struct client *c, uint64_t a, uint64_t b, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		dev_f32(c, a)[i] = i * 0.5f;
		dev_f32(c, b)[i] = 1000.0f - i;
	}
}

/*
 * COMPUTE runs an operator on device memory, descriptors in low and high
 * guest RAM alike; a copy behind it on the ring sees its result, and the
 * counters say how many ran and how long they held an engine.
 */
TEST_F(npu, compute_runs_an_operator)
{
	struct client *c = &self->c;
	const unsigned int n = 1000;
	uint64_t a = 0, b = 64 * KiB, y = 128 * KiB, y2 = 192 * KiB;
	uint64_t low = client_host_alloc(c, 4096, 64);
	uint64_t high = client_host_alloc_high(c, 4096, 64);
	uint64_t hbuf = client_host_alloc(c, 4096, 64);
	uint64_t fw = client_host_alloc(c, 64, 64);
	uint64_t sz = add_op(c, low, a, b, y, n), t0, ns;
	struct npu_cmd cmd;
	struct client_ring r, r1;
	unsigned int i;

	add_op(c, high, y, b, y2, n);
	fill_pair(c, a, b, n);
	ASSERT_TRUE(client_ring_setup(c, &r, 0, 8, 1));
	t0 = client_now_us();
	cmd = client_cmd_compute(low, sz, NPU_CMD_SRC_HOST | NPU_CMD_IRQ);
	client_ring_push(c, &r, &cmd);
	cmd = client_cmd_compute(high, sz, NPU_CMD_SRC_HOST);
	client_ring_push(c, &r, &cmd);
	cmd = client_cmd_copy(hbuf, y2, n * 4, NPU_CMD_DST_HOST);
	client_ring_push(c, &r, &cmd);
	cmd = client_cmd_fence(fw, 7, NPU_CMD_DST_HOST);
	client_ring_push(c, &r, &cmd);
	client_ring_submit(c, &r);
	ASSERT_TRUE(client_ring_wait_head(c, &r, 4, 10 * T_MS));
	ASSERT_GE(client_irq_wait(c, 1, T_MS), 1);
	ASSERT_EQ(7, client_word_rd(client_gpa_ptr(c, fw)));
	for (i = 0; i < n; i++) {
		ASSERT_EQ(i * 0.5f + (1000.0f - i), dev_f32(c, y)[i]);
		ASSERT_EQ(dev_f32(c, y)[i] + (1000.0f - i), dev_f32(c, y2)[i]);
	}
	ASSERT_EQ(0, memcmp(client_gpa_ptr(c, hbuf), dev_f32(c, y2), n * 4));
	ASSERT_EQ(2, client_ring_rd64(c, 0, NPU_RING_OPS_DONE));
	ASSERT_EQ(4, client_ring_rd64(c, 0, NPU_RING_CMDS_DONE));
	ns = client_ring_rd64(c, 0, NPU_RING_COMPUTE_NS);
	ASSERT_GT(ns, 0);
	ASSERT_LE(ns, (client_now_us() - t0) * 1000);

	/* another ring, the same operator: the library's cache serves it */
	memset(dev_f32(c, y), 0, n * 4);
	ASSERT_TRUE(client_ring_setup(c, &r1, 1, 8, 2));
	cmd = client_cmd_compute(low, sz, NPU_CMD_SRC_HOST);
	ASSERT_TRUE(client_ring_run(c, &r1, &cmd, T_MS));
	ASSERT_EQ(1000.0f, dev_f32(c, y)[0]);
	ASSERT_EQ(1, client_ring_rd64(c, 1, NPU_RING_OPS_DONE));
	ASSERT_EQ(2, client_ring_rd64(c, 0, NPU_RING_OPS_DONE));

	/* a reset zeroes both counters */
	ASSERT_TRUE(client_ctrl_ring_reset(c, 0));
	ASSERT_EQ(0, client_ring_rd64(c, 0, NPU_RING_OPS_DONE));
	ASSERT_EQ(0, client_ring_rd64(c, 0, NPU_RING_COMPUTE_NS));
}

/*
 * A descriptor whose shapes disagree stops its ring with OP_PARAM and
 * writes nothing; a ring computing at the same time goes on.
 */
TEST_F(npu, compute_bad_descriptor_stops_only_its_ring)
{
	struct client *c = &self->c;
	const unsigned int n = 256;
	uint64_t a = 0, b = 4 * KiB, y0 = 8 * KiB, y1 = 12 * KiB;
	uint64_t bad = client_host_alloc(c, 4096, 64);
	uint64_t good = client_host_alloc(c, 4096, 64);
	uint64_t bsz = add_op(c, bad, a, b, y0, n), gsz = add_op(c, good, a, b, y1, n);
	struct npu_cmd nop = client_cmd_nop(0), cmd;
	struct client_ring r0, r1;
	unsigned int i;

	/* y one element short */
	((struct npu_op_desc *)client_gpa_ptr(c, bad))->tensors[2].dims[0] =
		htole64(n - 1);
	fill_pair(c, a, b, n);
	memset(client_dev_ptr(c, y0), 0xaa, 4 * KiB);
	ASSERT_TRUE(client_ring_setup(c, &r0, 0, 8, 1));
	ASSERT_TRUE(client_ring_setup(c, &r1, 1, 8, 2));
	client_ring_push(c, &r0, &nop);
	cmd = client_cmd_compute(bad, bsz, NPU_CMD_SRC_HOST);
	client_ring_push(c, &r0, &cmd);
	client_ring_push(c, &r0, &nop);
	cmd = client_cmd_compute(good, gsz, NPU_CMD_SRC_HOST);
	client_ring_push(c, &r1, &cmd);
	client_ring_submit(c, &r0);
	client_ring_submit(c, &r1);

	ASSERT_TRUE(client_ring_wait_status(c, 0, NPU_RING_STOPPED, T_MS));
	ASSERT_EQ(NPU_ERR_OP_PARAM, client_ring_rd32(c, 0, NPU_RING_ERROR));
	ASSERT_EQ(1, client_ring_rd32(c, 0, NPU_RING_ERROR_INDEX));
	ASSERT_EQ(1, client_ring_rd32(c, 0, NPU_RING_HEAD));
	ASSERT_EQ(0, client_ring_rd64(c, 0, NPU_RING_OPS_DONE));
	ASSERT_GE(client_irq_wait(c, 1, T_MS), 1);
	for (i = 0; i < 4 * KiB; i++)
		ASSERT_EQ(0xaa, client_dev_ptr(c, y0)[i]);

	ASSERT_TRUE(client_ring_wait_head(c, &r1, 1, 10 * T_MS));
	/* the head moves as the entry completes, the ring goes idle after */
	ASSERT_TRUE(client_ring_wait_status(c, 1, NPU_RING_IDLE, T_MS));
	ASSERT_EQ(1, client_ring_rd64(c, 1, NPU_RING_OPS_DONE));
	for (i = 0; i < n; i++)
		ASSERT_EQ(1000.0f + i * 0.5f - i, dev_f32(c, y1)[i]);

	/* reset, the stopped ring computes again */
	ASSERT_TRUE(client_ring_setup(c, &r0, 0, 8, 1));
	cmd = client_cmd_compute(good, gsz, NPU_CMD_SRC_HOST);
	ASSERT_TRUE(client_ring_run(c, &r0, &cmd, T_MS));
	ASSERT_EQ(1, client_ring_rd64(c, 0, NPU_RING_OPS_DONE));
}

/*
 * FAIL_OP fails the ring's next well-formed operator with OP_FAILED and
 * writes nothing; a malformed one still reports its own fault first.
 */
TEST_F(npu, compute_fail_op)
{
	struct client *c = &self->c;
	const unsigned int n = 64;
	uint64_t good = client_host_alloc(c, 4096, 64);
	uint64_t bad = client_host_alloc(c, 4096, 64);
	uint64_t sz = add_op(c, good, 0, 4 * KiB, 8 * KiB, n);
	struct npu_cmd cmd;
	struct client_ring r;
	unsigned int i;

	add_op(c, bad, 0, 4 * KiB, 8 * KiB, n);
	((struct npu_op_desc *)client_gpa_ptr(c, bad))->attrs.binary.kind =
		htole32(NPU_BINARY_LAST + 1);
	fill_pair(c, 0, 4 * KiB, n);
	memset(client_dev_ptr(c, 8 * KiB), 0xaa, n * 4);
	ASSERT_TRUE(client_ctrl_inject(c, 0, NPU_FAULT_FAIL_OP, 0));

	ASSERT_TRUE(client_ring_setup(c, &r, 0, 8, 1));
	cmd = client_cmd_compute(bad, sz, NPU_CMD_SRC_HOST);
	client_ring_push(c, &r, &cmd);
	client_ring_submit(c, &r);
	ASSERT_TRUE(client_ring_wait_status(c, 0, NPU_RING_STOPPED, T_MS));
	ASSERT_EQ(NPU_ERR_OPERATOR, client_ring_rd32(c, 0, NPU_RING_ERROR));

	ASSERT_TRUE(client_ring_setup(c, &r, 0, 8, 1));
	cmd = client_cmd_compute(good, sz, NPU_CMD_SRC_HOST);
	client_ring_push(c, &r, &cmd);
	client_ring_submit(c, &r);
	ASSERT_TRUE(client_ring_wait_status(c, 0, NPU_RING_STOPPED, T_MS));
	ASSERT_EQ(NPU_ERR_OP_FAILED, client_ring_rd32(c, 0, NPU_RING_ERROR));
	ASSERT_EQ(0, client_ring_rd32(c, 0, NPU_RING_ERROR_INDEX));
	ASSERT_EQ(0, client_ring_rd64(c, 0, NPU_RING_OPS_DONE));
	for (i = 0; i < n * 4; i++)
		ASSERT_EQ(0xaa, client_dev_ptr(c, 8 * KiB)[i]);

	/* the fault is spent: the next one computes */
	ASSERT_TRUE(client_ring_setup(c, &r, 0, 8, 1));
	ASSERT_TRUE(client_ring_run(c, &r, &cmd, T_MS));
	ASSERT_EQ(1000.0f, dev_f32(c, 8 * KiB)[0]);
}

/*
 * HANG_OP: the operator stops midway and never finishes; its COMPUTE_NS
 * stands still, other rings compute, and a reset ends it.
 */
TEST_F(npu, compute_hang_op)
{
	struct client *c = &self->c;
	const unsigned int n = 64;
	uint64_t op = client_host_alloc(c, 4096, 64);
	uint64_t sz = add_op(c, op, 0, 4 * KiB, 8 * KiB, n);
	struct npu_cmd cmd = client_cmd_compute(op, sz, NPU_CMD_SRC_HOST);
	struct client_ring r0, r1;
	uint64_t ns;

	fill_pair(c, 0, 4 * KiB, n);
	ASSERT_TRUE(client_ring_setup(c, &r0, 0, 8, 1));
	ASSERT_TRUE(client_ring_setup(c, &r1, 1, 8, 2));
	ASSERT_TRUE(client_ctrl_inject(c, 0, NPU_FAULT_HANG_OP, 0));
	client_ring_push(c, &r0, &cmd);
	client_ring_submit(c, &r0);
	ASSERT_TRUE(client_ring_wait_status(c, 0, NPU_RING_RUNNING, T_MS));
	ns = settled_rd64(c, 0, NPU_RING_COMPUTE_NS);
	usleep(QUIET_MS * 1000);
	ASSERT_EQ(ns, client_ring_rd64(c, 0, NPU_RING_COMPUTE_NS));
	ASSERT_EQ(0, client_ring_rd32(c, 0, NPU_RING_HEAD));
	ASSERT_EQ(0, client_ring_rd64(c, 0, NPU_RING_OPS_DONE));
	ASSERT_EQ(NPU_RING_RUNNING, client_ring_rd32(c, 0, NPU_RING_STATUS));

	ASSERT_TRUE(client_ring_run(c, &r1, &cmd, T_MS));
	ASSERT_EQ(1, client_ring_rd64(c, 1, NPU_RING_OPS_DONE));

	ASSERT_TRUE(client_ctrl_ring_reset(c, 0));
	ASSERT_EQ(0, client_ring_rd64(c, 0, NPU_RING_OPS_DONE));
	ASSERT_EQ(0, client_ring_rd64(c, 0, NPU_RING_COMPUTE_NS));
	ASSERT_TRUE(client_ring_setup(c, &r0, 0, 8, 1));
	ASSERT_TRUE(client_ring_run(c, &r0, &cmd, T_MS));
	ASSERT_EQ(1, client_ring_rd64(c, 0, NPU_RING_OPS_DONE));
}

/* ERROR_INDEX is the free-running counter, not the slot. */
TEST_F(npu, error_index_is_counter)
{
	struct client *c = &self->c;
	struct npu_cmd nop = client_cmd_nop(0), bad = client_cmd_nop(0x4000);
	struct client_ring r;
	int i;

	ASSERT_TRUE(client_ring_setup(c, &r, 0, 4, 1));
	for (i = 0; i < 9; i++)
		ASSERT_TRUE(client_ring_run(c, &r, &nop, T_MS));
	client_ring_push(c, &r, &bad);
	client_ring_submit(c, &r);
	ASSERT_TRUE(client_ring_wait_status(c, 0, NPU_RING_STOPPED, T_MS));
	ASSERT_EQ(9, client_ring_rd32(c, 0, NPU_RING_ERROR_INDEX));
	ASSERT_EQ(9, client_ring_rd32(c, 0, NPU_RING_HEAD));
}

TEST_F(npu, fault_hang_ring)
{
	struct client *c = &self->c;
	struct npu_cmd nop = client_cmd_nop(NPU_CMD_IRQ);
	struct client_ring r, o;

	ASSERT_TRUE(client_ring_setup(c, &r, 0, 8, 1));
	ASSERT_TRUE(client_ring_setup(c, &o, 1, 8, 2));
	ASSERT_TRUE(client_ctrl_inject(c, 0, NPU_FAULT_HANG_RING, 0));
	client_ring_push(c, &r, &nop);
	client_ring_submit(c, &r);
	ASSERT_EQ(0, client_irq_wait(c, 1, QUIET_MS));
	ASSERT_EQ(0, client_ring_rd32(c, 0, NPU_RING_HEAD));
	ASSERT_EQ(NPU_RING_IDLE, client_ring_rd32(c, 0, NPU_RING_STATUS));
	ASSERT_EQ(NPU_ERR_NONE, client_ring_rd32(c, 0, NPU_RING_ERROR));
	ASSERT_TRUE(client_ring_run(c, &o, &nop, T_MS));

	/* reset ends the hang */
	ASSERT_TRUE(client_ctrl_ring_reset(c, 0));
	ASSERT_EQ(NPU_RING_DISABLED, client_ring_rd32(c, 0, NPU_RING_STATUS));
	ASSERT_TRUE(client_ring_setup(c, &r, 0, 8, 1));
	ASSERT_TRUE(client_ring_run(c, &r, &nop, T_MS));
	ASSERT_EQ(1, client_irq_wait(c, 1, T_MS));

	/* and so does CLEAR, which lets the ring go on where it was */
	ASSERT_TRUE(client_ctrl_inject(c, 0, NPU_FAULT_HANG_RING, 0));
	client_ring_push(c, &r, &nop);
	client_ring_submit(c, &r);
	usleep(QUIET_MS * 1000);
	ASSERT_EQ(1, client_ring_rd32(c, 0, NPU_RING_HEAD));
	ASSERT_TRUE(client_ctrl_inject(c, 0, NPU_FAULT_CLEAR, 0));
	ASSERT_TRUE(client_ring_wait_head(c, &r, 2, T_MS));
	ASSERT_EQ(1, client_irq_wait(c, 1, T_MS));
}

/* A ring whose reset is stuck goes on as it was; a global reset stops it. */
TEST_F(npu, fault_stuck_reset)
{
	struct client *c = &self->c;
	struct npu_cmd nop = client_cmd_nop(NPU_CMD_IRQ);
	struct client_ring r, o;

	ASSERT_TRUE(client_ring_setup(c, &r, 0, 8, 1));
	ASSERT_TRUE(client_ring_setup(c, &o, 1, 8, 2));
	ASSERT_TRUE(client_ctrl_inject(c, 0, NPU_FAULT_HANG_RING, 0));
	ASSERT_TRUE(client_ctrl_inject(c, 0, NPU_FAULT_STUCK_RESET, 0));
	client_ring_push(c, &r, &nop);
	client_ring_submit(c, &r);

	ASSERT_FALSE(client_ctrl_ring_reset(c, 0));
	ASSERT_EQ(NPU_RING_CTRL_RESET, client_ring_rd32(c, 0, NPU_RING_CTRL));
	ASSERT_NE(NPU_RING_DISABLED, client_ring_rd32(c, 0, NPU_RING_STATUS));
	ASSERT_TRUE(client_ring_run(c, &o, &nop, T_MS));

	ASSERT_TRUE(client_ctrl_global_reset(c));
	ASSERT_EQ(0, client_ring_rd32(c, 0, NPU_RING_CTRL));
	ASSERT_EQ(NPU_RING_DISABLED, client_ring_rd32(c, 0, NPU_RING_STATUS));
	ASSERT_TRUE(client_ring_setup(c, &r, 0, 8, 1));
	ASSERT_TRUE(client_ring_run(c, &r, &nop, T_MS));
	/* the global reset disarmed the fault */
	ASSERT_TRUE(client_ctrl_ring_reset(c, 0));
}

TEST_F(npu, fault_fail_dma)
{
	struct client *c = &self->c;
	uint64_t src = client_host_alloc(c, 4096, 64);
	struct npu_cmd cmd;
	struct client_ring r;

	ASSERT_TRUE(client_ring_setup(c, &r, 3, 8, 4));
	memset(client_gpa_ptr(c, src), 0x3c, 4096);
	memset(client_dev_ptr(c, 0), 0, 4096);
	ASSERT_TRUE(client_ctrl_inject(c, 3, NPU_FAULT_FAIL_DMA, 0));

	/* only transfers fail: a NOP and a FENCE go through */
	cmd = client_cmd_nop(0);
	ASSERT_TRUE(client_ring_run(c, &r, &cmd, T_MS));
	cmd = client_cmd_fence(8192, 5, 0);
	ASSERT_TRUE(client_ring_run(c, &r, &cmd, T_MS));
	cmd = client_cmd_copy(0, src, 4096, NPU_CMD_SRC_HOST);
	client_ring_push(c, &r, &cmd);
	client_ring_submit(c, &r);
	ASSERT_TRUE(client_ring_wait_status(c, 3, NPU_RING_STOPPED, T_MS));
	ASSERT_EQ(NPU_ERR_DMA, client_ring_rd32(c, 3, NPU_RING_ERROR));
	ASSERT_EQ(2, client_ring_rd32(c, 3, NPU_RING_ERROR_INDEX));
	ASSERT_EQ(1, client_irq_wait(c, 4, T_MS));
	ASSERT_EQ(0, client_dev_ptr(c, 0)[0]);

	/* one shot: after reset the copy works */
	ASSERT_TRUE(client_ring_setup(c, &r, 3, 8, 4));
	ASSERT_TRUE(client_ring_run(c, &r, &cmd, T_MS));
	ASSERT_EQ(0x3c, client_dev_ptr(c, 0)[4095]);

	/* FILL is a transfer too */
	ASSERT_TRUE(client_ctrl_inject(c, 3, NPU_FAULT_FAIL_DMA, 0));
	cmd = client_cmd_fill(0, 16, 0, 0);
	client_ring_push(c, &r, &cmd);
	client_ring_submit(c, &r);
	ASSERT_TRUE(client_ring_wait_status(c, 3, NPU_RING_STOPPED, T_MS));
	ASSERT_EQ(NPU_ERR_DMA, client_ring_rd32(c, 3, NPU_RING_ERROR));
	ASSERT_EQ(0x3c, client_dev_ptr(c, 0)[0]);
}

TEST_F(npu, fault_delay)
{
	struct client *c = &self->c;
	struct npu_cmd nop = client_cmd_nop(0);
	struct client_ring r, o;
	uint64_t t0;
	int i;

	ASSERT_TRUE(client_ring_setup(c, &r, 0, 8, 1));
	ASSERT_TRUE(client_ring_setup(c, &o, 1, 8, 2));
	/* 250 ms a command: a loaded host may keep us off the CPU for 300 ms */
	ASSERT_TRUE(client_ctrl_inject(c, 0, NPU_FAULT_DELAY, 250 * 1000));

	t0 = client_now_us();
	for (i = 0; i < 3; i++)
		client_ring_push(c, &r, &nop);
	client_ring_submit(c, &r);
	/* the other ring is not delayed */
	ASSERT_TRUE(client_ring_run(c, &o, &nop, T_MS));
	ASSERT_LT(client_ring_rd32(c, 0, NPU_RING_HEAD), 3);
	ASSERT_TRUE(client_ring_wait_head(c, &r, 3, T_MS));
	ASSERT_GE(client_now_us() - t0, 750 * 1000);

	/*
	 * CLEAR: no more delay.  Armed for far longer than a loaded host can
	 * stall us, a delay left behind would be seen by any clock.
	 */
	ASSERT_TRUE(client_ctrl_inject(c, 0, NPU_FAULT_DELAY, LONG_DELAY_US));
	ASSERT_TRUE(client_ctrl_inject(c, 0, NPU_FAULT_CLEAR, 0));
	t0 = client_now_us();
	for (i = 0; i < 3; i++)
		client_ring_push(c, &r, &nop);
	client_ring_submit(c, &r);
	ASSERT_TRUE(client_ring_wait_head(c, &r, 6, T_MS));
	ASSERT_LT(client_now_us() - t0, LONG_DELAY_US / 2);

	/* a reset cuts a long delay short */
	ASSERT_TRUE(client_ctrl_inject(c, 0, NPU_FAULT_DELAY, LONG_DELAY_US));
	client_ring_push(c, &r, &nop);
	client_ring_submit(c, &r);
	usleep(2000);
	t0 = client_now_us();
	ASSERT_TRUE(client_ctrl_ring_reset(c, 0));
	ASSERT_LT(client_now_us() - t0, LONG_DELAY_US / 2);
}

TEST_F(npu, fault_drop_irq)
{
	struct client *c = &self->c;
	struct npu_cmd nop = client_cmd_nop(NPU_CMD_IRQ);
	struct client_ring r;

	ASSERT_TRUE(client_ring_setup(c, &r, 0, 8, 1));
	ASSERT_TRUE(client_ctrl_inject(c, 0, NPU_FAULT_DROP_IRQ, 2));
	ASSERT_TRUE(client_ring_run(c, &r, &nop, T_MS));
	ASSERT_TRUE(client_ring_run(c, &r, &nop, T_MS));
	ASSERT_EQ(0, client_irq_wait(c, 1, QUIET_MS));
	ASSERT_TRUE(client_ring_run(c, &r, &nop, T_MS));
	ASSERT_EQ(1, client_irq_wait(c, 1, T_MS));
	ASSERT_TRUE(client_ring_run(c, &r, &nop, T_MS));
	ASSERT_EQ(1, client_irq_wait(c, 1, T_MS));
}

TEST_F(npu, fault_stop_heartbeat_then_global_reset)
{
	struct client *c = &self->c;
	struct npu_cmd nop = client_cmd_nop(NPU_CMD_IRQ);
	uint64_t hb, clk;
	struct client_ring r, o;

	ASSERT_TRUE(client_ring_setup(c, &r, 0, 8, 1));
	ASSERT_TRUE(client_ring_setup(c, &o, 5, 8, 6));
	ASSERT_TRUE(client_ring_run(c, &r, &nop, T_MS));
	ASSERT_EQ(1, client_irq_wait(c, 1, T_MS));

	ASSERT_TRUE(client_ctrl_inject(c, 0, NPU_FAULT_STOP_HEARTBEAT, 0));
	hb = client_reg_rd64(c, NPU_GLB_HEARTBEAT);
	clk = client_reg_rd64(c, NPU_GLB_CLOCK_NS);
	usleep(QUIET_MS * 1000);
	ASSERT_EQ(hb, client_reg_rd64(c, NPU_GLB_HEARTBEAT));
	ASSERT_EQ(clk, client_reg_rd64(c, NPU_GLB_CLOCK_NS));

	/* no ring advances, no interrupt, no control but global reset */
	client_ring_push(c, &r, &nop);
	client_ring_submit(c, &r);
	client_ring_push(c, &o, &nop);
	client_ring_submit(c, &o);
	ASSERT_EQ(0, client_irq_wait(c, 1, QUIET_MS));
	ASSERT_EQ(0, client_irq_take(c, 6));
	ASSERT_EQ(1, client_ring_rd32(c, 0, NPU_RING_HEAD));
	ASSERT_EQ(0, client_ring_rd32(c, 5, NPU_RING_HEAD));
	client_ring_wr32(c, 0, NPU_RING_CTRL, NPU_RING_CTRL_RESET);
	client_doorbell(c, 0);
	usleep(QUIET_MS * 1000);
	ASSERT_EQ(NPU_RING_CTRL_RESET, client_ring_rd32(c, 0, NPU_RING_CTRL));

	ASSERT_TRUE(client_ctrl_global_reset(c));
	ASSERT_EQ(0, client_reg_rd32(c, NPU_GLB_ERROR));
	ASSERT_EQ(NPU_MAGIC, client_reg_rd32(c, NPU_ID_MAGIC));
	ASSERT_EQ(NPU_RING_DISABLED, client_ring_rd32(c, 0, NPU_RING_STATUS));
	ASSERT_EQ(NPU_RING_DISABLED, client_ring_rd32(c, 5, NPU_RING_STATUS));
	ASSERT_EQ(0, client_ring_rd32(c, 0, NPU_RING_HEAD));
	ASSERT_EQ(0, client_ring_rd32(c, 0, NPU_RING_CTRL));
	ASSERT_TRUE(reg_wait_above64(c, NPU_GLB_HEARTBEAT, hb + 2, T_MS));
	ASSERT_GT(client_reg_rd64(c, NPU_GLB_CLOCK_NS), clk);

	ASSERT_TRUE(client_ring_setup(c, &r, 0, 8, 1));
	client_irq_take(c, 1);
	ASSERT_TRUE(client_ring_run(c, &r, &nop, T_MS));
	ASSERT_EQ(1, client_irq_wait(c, 1, T_MS));
}

/* A global reset resets every ring and disarms every fault. */
TEST_F(npu, global_reset)
{
	struct client *c = &self->c;
	struct npu_cmd nop = client_cmd_nop(NPU_CMD_IRQ), bad = client_cmd_nop(0x100);
	struct client_ring a, b, d, e;
	uint64_t t0;

	ASSERT_TRUE(client_ring_setup(c, &a, 0, 8, 1));
	ASSERT_TRUE(client_ring_setup(c, &b, 1, 8, 2));
	ASSERT_TRUE(client_ring_setup(c, &d, 2, 8, 3));
	ASSERT_TRUE(client_ring_setup(c, &e, 3, 8, 4));
	client_ring_push(c, &a, &bad);
	client_ring_submit(c, &a);
	ASSERT_TRUE(client_ring_wait_status(c, 0, NPU_RING_STOPPED, T_MS));
	ASSERT_TRUE(client_ctrl_inject(c, 1, NPU_FAULT_HANG_RING, 0));
	client_ring_push(c, &b, &nop);
	client_ring_submit(c, &b);
	ASSERT_TRUE(client_ctrl_inject(c, 2, NPU_FAULT_DELAY, LONG_DELAY_US));
	ASSERT_TRUE(client_ctrl_inject(c, 3, NPU_FAULT_DROP_IRQ, 100));

	ASSERT_TRUE(client_ctrl_global_reset(c));
	for (unsigned int i = 0; i < 16; i++) {
		ASSERT_EQ(NPU_RING_DISABLED, client_ring_rd32(c, i, NPU_RING_STATUS));
		ASSERT_EQ(0, client_ring_rd32(c, i, NPU_RING_HEAD));
		ASSERT_EQ(NPU_ERR_NONE, client_ring_rd32(c, i, NPU_RING_ERROR));
		ASSERT_EQ(0, client_ring_rd32(c, i, NPU_RING_CTRL));
	}
	ASSERT_TRUE(client_ring_setup(c, &b, 1, 8, 2));
	ASSERT_TRUE(client_ring_setup(c, &d, 2, 8, 3));
	ASSERT_TRUE(client_ring_setup(c, &e, 3, 8, 4));
	client_irq_take(c, 4);
	t0 = client_now_us();
	ASSERT_TRUE(client_ring_run(c, &b, &nop, T_MS));
	ASSERT_TRUE(client_ring_run(c, &d, &nop, T_MS));
	/* neither hung nor delayed */
	ASSERT_LT(client_now_us() - t0, LONG_DELAY_US / 2);
	ASSERT_TRUE(client_ring_run(c, &e, &nop, T_MS));
	ASSERT_EQ(1, client_irq_wait(c, 4, T_MS));
}

/* The card serves one QEMU: when it goes, the card goes, tidily. */
TEST_F(npu, exits_on_disconnect)
{
	struct client *c = &self->c;
	struct client_ring r;

	ASSERT_TRUE(client_ring_setup(c, &r, 0, 8, 1));
	ASSERT_EQ(0, client_disconnect(c, T_MS));
	ASSERT_TRUE(card_exited_cleanly(c));
	ASSERT_TRUE(socket_gone(c));
}

/* Even with a ring stuck in a WAIT. */
TEST_F(npu, exits_on_sigterm)
{
	struct client *c = &self->c;
	uint64_t hw = client_host_alloc(c, 64, 64);
	struct npu_cmd cmd = client_cmd_wait(hw, 1, NPU_WAIT_EQ, NPU_CMD_DST_HOST);
	struct client_ring r;

	ASSERT_TRUE(client_ring_setup(c, &r, 0, 8, 1));
	client_ring_push(c, &r, &cmd);
	client_ring_submit(c, &r);
	ASSERT_TRUE(client_ring_wait_status(c, 0, NPU_RING_WAITING, T_MS));
	ASSERT_EQ(0, kill(c->pid, SIGTERM));
	ASSERT_TRUE(client_reap(c, T_MS));
	ASSERT_TRUE(card_exited_cleanly(c));
	ASSERT_TRUE(socket_gone(c));
}

/* Run the card with argv and return its exit status (-1: no exit). */
static int run_card(const char *const *args)
{
	const char *argv[16] = { client_card_path() };
	int status, i, fd;
	pid_t pid;

	for (i = 0; args[i] && i < 14; i++)
		argv[i + 1] = args[i];
	pid = fork();
	if (pid == 0) {
		fd = open("/dev/null", O_WRONLY);
		dup2(fd, 2);
		execv(argv[0], (char **)argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

TEST(bad_options_are_refused)
{
	const char *const cases[][12] = {
		{ "--guest-ram", "/dev/null", "--ram-size", "1M", NULL },
		{ "--socket", "/tmp/x", "--ram-size", "1M", NULL },
		{ "--socket", "/tmp/x", "--guest-ram", "/dev/null", NULL },
		{ "--socket", "/tmp/x", "--guest-ram", "/dev/null",
		  "--ram-size", "1M", "--bar-size", "3M", NULL },
		{ "--socket", "/tmp/x", "--guest-ram", "/dev/null",
		  "--ram-size", "1M", "--bar-size", "64K", NULL },
		{ "--socket", "/tmp/x", "--guest-ram", "/dev/null",
		  "--ram-size", "1M", "--rings", "0", NULL },
		{ "--socket", "/tmp/x", "--guest-ram", "/dev/null",
		  "--ram-size", "1M", "--rings", "961", NULL },
		{ "--socket", "/tmp/x", "--guest-ram", "/dev/null",
		  "--ram-size", "1M", "--vectors", "1", NULL },
		{ "--socket", "/tmp/x", "--guest-ram", "/dev/null",
		  "--ram-size", "1M", "--lowmem", "2M", NULL },
		{ "--socket", "/tmp/x", "--guest-ram", "/dev/null",
		  "--ram-size", "12Q", NULL },
		{ "--socket", "/tmp/x", "--guest-ram", "/dev/null",
		  "--ram-size", "1M", "stray", NULL },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		ASSERT_EQ(2, run_card(cases[i])) TH_LOG("case %u", i);
}

TEST(guest_ram_too_small)
{
	char path[] = "/dev/shm/npu-test-small-XXXXXX";
	const char *args[] = { "--socket", "/tmp/npu-card-test-never.sock",
			       "--guest-ram", path, "--ram-size", "2M", NULL };
	int fd = mkstemp(path);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, 1 * MiB));
	EXPECT_EQ(1, run_card(args));
	close(fd);
	unlink(path);
}

/* Runs the card to completion and returns its exit status and its stdout. */
static int run_card_stdout(const char *const *args, char *out, size_t len)
{
	const char *argv[16] = { client_card_path() };
	int status, i, fd[2];
	ssize_t n, got = 0;
	pid_t pid;

	for (i = 0; args[i] && i < 14; i++)
		argv[i + 1] = args[i];
	if (pipe(fd))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(fd[1], 1);
		dup2(open("/dev/null", O_WRONLY), 2);
		execv(argv[0], (char **)argv);
		_exit(127);
	}
	close(fd[1]);
	while ((n = read(fd[0], out + got, len - 1 - got)) > 0)
		got += n;
	out[got] = '\0';
	close(fd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* tools/vm-run gives QEMU's ivshmem device what --print-vectors says. */
TEST(print_vectors)
{
	const char *const plain[] = { "--print-vectors", NULL };
	const char *const given[] = { "--vectors", "33", "--print-vectors", NULL };
	const char *const bad[] = { "--vectors", "1", "--print-vectors", NULL };
	char out[64];

	ASSERT_EQ(0, run_card_stdout(plain, out, sizeof(out)));
	EXPECT_EQ(NPU_DEFAULT_NUM_VECTORS, strtoul(out, NULL, 10));
	EXPECT_EQ('\n', out[strlen(out) - 1]);
	ASSERT_EQ(0, run_card_stdout(given, out, sizeof(out)));
	EXPECT_STREQ("33\n", out);
	EXPECT_EQ(2, run_card_stdout(bad, out, sizeof(out)));
	EXPECT_STREQ("", out);
}

/*
 * One copy engine, so rings compete for it, and device memory for copies
 * long enough that faults and resets land in the middle of them.
 */
FIXTURE(one_engine) {
	struct client c;
};

FIXTURE_SETUP(one_engine)
{
	struct client_opts o;
	int ret;

	client_default_opts(&o);
	o.bar_size = 256 * MiB;
	o.copy_engines = 1;
	ret = client_start(&self->c, &o);
	if (ret)
		client_cleanup(&self->c);
	ASSERT_EQ(0, ret) TH_LOG("cannot start %s", client_card_path());
}

FIXTURE_TEARDOWN(one_engine)
{
	struct client *c = &self->c;
	bool running = c->pid != 0;

	/* A card stuck on one of its rings would not exit now. */
	EXPECT_EQ(0, client_disconnect(c, T_MS));
	if (running)
		EXPECT_TRUE(card_exited_cleanly(c));
	EXPECT_TRUE(socket_gone(c));
	client_cleanup(c);
}

/* Device-to-device copies, so the small guest RAM does not limit them. */
#define LONG_COPY_BYTES		(120 * MiB)
#define LONG_COPY_DST		(128 * MiB)
#define SHORT_COPY_DST		(250 * MiB)

static struct npu_cmd long_copy(void)
{
	return client_cmd_copy(LONG_COPY_DST, 0, LONG_COPY_BYTES, 0);
}

static struct npu_cmd short_copy(void)
{
	return client_cmd_copy(SHORT_COPY_DST, 0, 2 * MiB, 0);
}

/*
 * A ring's BYTES_DONE once it has held still: a chunk that was on an engine
 * when the ring was stopped still lands, however long a loaded host takes.
 */
static uint64_t settled_bytes(struct client *c, unsigned int ring)
{
	return settled_rd64(c, ring, NPU_RING_BYTES_DONE);
}

/* Ring 0 at the lowest priority on vector 1, ring 1 at priority 0 on 2. */
static bool setup_low_and_urgent(struct client *c, struct client_ring *low,
				 struct client_ring *urgent)
{
	client_ring_wr32(c, 0, NPU_RING_PRIORITY, NPU_RING_PRIORITY_LOWEST);
	client_ring_wr32(c, 1, NPU_RING_PRIORITY, 0);
	return client_ring_setup(c, low, 0, 8, 1) &&
	       client_ring_setup(c, urgent, 1, 8, 2);
}

/* Wait until the ring has moved some bytes of the command it is on. */
static bool wait_mid_copy(struct client *c, unsigned int ring,
			  int timeout_ms)
{
	uint64_t t0 = client_now_us();

	while (client_ring_rd64(c, ring, NPU_RING_BYTES_DONE) == 0) {
		if (client_now_us() - t0 > timeout_ms * 1000ULL)
			return false;
		usleep(100);
	}
	return true;
}

/*
 * With one copy engine, a priority-0 ring's long copy runs to the end while
 * a priority-7 ring's copy, started first, waits between its chunks.
 */
TEST_F(one_engine, priority_wins_the_copy_engine)
{
	struct npu_cmd low_copy = client_cmd_copy(64 * MiB, 0, 64 * MiB, 0);
	struct npu_cmd high_copy = client_cmd_copy(200 * MiB, 160 * MiB, 32 * MiB, 0);
	struct client *c = &self->c;
	struct client_ring low, high;

	ASSERT_TRUE(setup_low_and_urgent(c, &low, &high));
	client_ring_push(c, &low, &low_copy);
	client_ring_submit(c, &low);
	client_ring_push(c, &high, &high_copy);
	client_ring_submit(c, &high);

	ASSERT_TRUE(client_ring_wait_head(c, &high, 1, 30 * T_MS));
	/* Without priorities the two would have shared the engine about evenly. */
	EXPECT_LE(client_ring_rd64(c, 0, NPU_RING_BYTES_DONE), 8 * MiB);
	EXPECT_TRUE(client_ring_wait_head(c, &low, 1, 30 * T_MS));
	EXPECT_EQ(64 * MiB, client_ring_rd64(c, 0, NPU_RING_BYTES_DONE));

	/* A priority past the lowest is refused at enable. */
	client_ring_wr32(c, 2, NPU_RING_PRIORITY, NPU_RING_PRIORITY_LOWEST + 1);
	EXPECT_FALSE(client_ring_setup(c, &low, 2, 4, 1));
	EXPECT_EQ(NPU_ERR_RING_CONFIG, client_ring_rd32(c, 2, NPU_RING_ERROR));
}

/*
 * BYTES_DONE moves with every chunk, not only when a command ends: a driver
 * watching for progress must see a long copy advance.
 */
TEST_F(one_engine, bytes_done_advances_during_a_copy)
{
	struct npu_cmd cmd = long_copy();
	struct client *c = &self->c;
	struct client_ring low, urgent;
	uint64_t bytes, cmds;
	uint32_t head;
	int i;

	ASSERT_TRUE(setup_low_and_urgent(c, &low, &urgent));
	for (i = 0; i < 8; i++)
		client_ring_push(c, &urgent, &cmd);
	client_ring_submit(c, &urgent);
	ASSERT_TRUE(wait_mid_copy(c, 1, T_MS));
	cmds = client_ring_rd64(c, 1, NPU_RING_CMDS_DONE);
	bytes = client_ring_rd64(c, 1, NPU_RING_BYTES_DONE);
	ASSERT_EQ(0, cmds);
	ASSERT_LT(bytes, LONG_COPY_BYTES);

	/* Paused between chunks: whole chunks only, and the counters agree. */
	ASSERT_TRUE(client_ctrl_inject(c, 1, NPU_FAULT_HANG_RING, 0));
	usleep(QUIET_MS * 1000);
	head = client_ring_rd32(c, 1, NPU_RING_HEAD);
	ASSERT_LT(head, 8)
		TH_LOG("the copies ended before the hang; this host is too fast");
	bytes = client_ring_rd64(c, 1, NPU_RING_BYTES_DONE);
	ASSERT_EQ(head, client_ring_rd64(c, 1, NPU_RING_CMDS_DONE));
	ASSERT_GE(bytes, head * LONG_COPY_BYTES);
	ASSERT_EQ(0, bytes % (1 * MiB));

	ASSERT_TRUE(client_ctrl_inject(c, 1, NPU_FAULT_CLEAR, 0));
	ASSERT_TRUE(client_ring_wait_head(c, &urgent, 8, 10 * T_MS));
	ASSERT_EQ(8 * LONG_COPY_BYTES, client_ring_rd64(c, 1, NPU_RING_BYTES_DONE));
	ASSERT_EQ(8, client_ring_rd64(c, 1, NPU_RING_CMDS_DONE));
}

/*
 * A priority-0 ring hung in the middle of a long copy does not keep the
 * engine from a priority-7 ring, and resets go through.
 */
TEST_F(one_engine, hung_urgent_ring_holds_back_no_one)
{
	struct npu_cmd big = long_copy(), small = short_copy();
	struct client *c = &self->c;
	struct client_ring low, urgent;
	uint64_t bytes;
	uint32_t head;
	int i;

	ASSERT_TRUE(setup_low_and_urgent(c, &low, &urgent));
	for (i = 0; i < 8; i++)
		client_ring_push(c, &urgent, &big);
	client_ring_submit(c, &urgent);
	ASSERT_TRUE(client_ring_wait_status(c, 1, NPU_RING_RUNNING, T_MS));
	ASSERT_TRUE(client_ctrl_inject(c, 1, NPU_FAULT_HANG_RING, 0));
	head = client_ring_rd32(c, 1, NPU_RING_HEAD);
	ASSERT_LT(head, 8)
		TH_LOG("the copies ended before the hang; this host is too fast");

	ASSERT_TRUE(client_ring_run(c, &low, &small, T_MS));
	bytes = client_ring_rd64(c, 1, NPU_RING_BYTES_DONE);
	usleep(QUIET_MS * 1000);
	ASSERT_EQ(bytes, client_ring_rd64(c, 1, NPU_RING_BYTES_DONE));
	ASSERT_EQ(head, client_ring_rd32(c, 1, NPU_RING_HEAD));

	ASSERT_TRUE(client_ctrl_ring_reset(c, 0));
	ASSERT_TRUE(client_ctrl_global_reset(c));
	ASSERT_EQ(NPU_RING_DISABLED, client_ring_rd32(c, 1, NPU_RING_STATUS));
	ASSERT_TRUE(setup_low_and_urgent(c, &low, &urgent));
	ASSERT_TRUE(client_ring_run(c, &urgent, &small, T_MS));
	ASSERT_TRUE(client_ring_run(c, &low, &small, T_MS));
}

/*
 * A card that dies while an urgent ring copies and a less urgent one waits
 * for the engine moves no more bytes, and a global reset brings it back.
 */
TEST_F(one_engine, dead_card_with_rings_queued_for_the_engine)
{
	struct npu_cmd big = long_copy(), small = short_copy();
	struct client *c = &self->c;
	struct client_ring low, urgent;
	uint64_t low_bytes, urgent_bytes, low_at_death, urgent_at_death;
	uint32_t head;
	int i;

	ASSERT_TRUE(setup_low_and_urgent(c, &low, &urgent));
	for (i = 0; i < 8; i++)
		client_ring_push(c, &urgent, &big);
	client_ring_submit(c, &urgent);
	ASSERT_TRUE(client_ring_wait_status(c, 1, NPU_RING_RUNNING, T_MS));
	client_ring_push(c, &low, &small);
	client_ring_submit(c, &low);
	ASSERT_TRUE(client_ring_wait_status(c, 0, NPU_RING_RUNNING, T_MS));
	ASSERT_TRUE(client_ctrl_inject(c, 0, NPU_FAULT_STOP_HEARTBEAT, 0));
	low_at_death = client_ring_rd64(c, 0, NPU_RING_BYTES_DONE);
	urgent_at_death = client_ring_rd64(c, 1, NPU_RING_BYTES_DONE);
	head = client_ring_rd32(c, 1, NPU_RING_HEAD);
	ASSERT_LT(head, 8)
		TH_LOG("the copies ended before the card died; this host is too fast");

	/* the one chunk on the engine when the card died may still land */
	low_bytes = settled_bytes(c, 0);
	urgent_bytes = settled_bytes(c, 1);
	ASSERT_LE(low_bytes + urgent_bytes - low_at_death - urgent_at_death,
		  1 * MiB);	/* one engine: one chunk in flight */
	usleep(QUIET_MS * 1000);
	ASSERT_EQ(low_bytes, client_ring_rd64(c, 0, NPU_RING_BYTES_DONE));
	ASSERT_EQ(urgent_bytes, client_ring_rd64(c, 1, NPU_RING_BYTES_DONE));
	ASSERT_EQ(head, client_ring_rd32(c, 1, NPU_RING_HEAD));

	ASSERT_TRUE(client_ctrl_global_reset(c));
	ASSERT_EQ(NPU_RING_DISABLED, client_ring_rd32(c, 0, NPU_RING_STATUS));
	ASSERT_EQ(NPU_RING_DISABLED, client_ring_rd32(c, 1, NPU_RING_STATUS));
	ASSERT_TRUE(setup_low_and_urgent(c, &low, &urgent));
	ASSERT_TRUE(client_ring_run(c, &low, &small, T_MS));
	ASSERT_TRUE(client_ring_run(c, &urgent, &small, T_MS));
}

/*
 * A ring waiting for the engine behind a busy, more urgent ring gives up
 * the wait for a reset at once, not when the urgent ring is done.
 */
TEST_F(one_engine, reset_while_waiting_for_the_engine)
{
	struct npu_cmd big = long_copy(), small = short_copy();
	struct client *c = &self->c;
	struct client_ring low, urgent;
	int i;

	ASSERT_TRUE(setup_low_and_urgent(c, &low, &urgent));
	for (i = 0; i < 8; i++)
		client_ring_push(c, &urgent, &big);
	client_ring_submit(c, &urgent);
	ASSERT_TRUE(client_ring_wait_status(c, 1, NPU_RING_RUNNING, T_MS));
	client_ring_push(c, &low, &small);
	client_ring_submit(c, &low);
	ASSERT_TRUE(client_ring_wait_status(c, 0, NPU_RING_RUNNING, T_MS));

	ASSERT_TRUE(client_ctrl_ring_reset(c, 0));
	ASSERT_LT(client_ring_rd32(c, 1, NPU_RING_HEAD), 8)
		TH_LOG("the reset waited for the urgent ring's copies");
	ASSERT_EQ(NPU_RING_DISABLED, client_ring_rd32(c, 0, NPU_RING_STATUS));
	ASSERT_TRUE(client_ctrl_ring_reset(c, 1));
}

/* And so does shutting the card down. */
TEST_F(one_engine, exits_while_a_ring_waits_for_the_engine)
{
	struct npu_cmd big = long_copy(), small = short_copy();
	struct client *c = &self->c;
	struct client_ring low, urgent;
	int i;

	ASSERT_TRUE(setup_low_and_urgent(c, &low, &urgent));
	for (i = 0; i < 8; i++)
		client_ring_push(c, &urgent, &big);
	client_ring_submit(c, &urgent);
	ASSERT_TRUE(client_ring_wait_status(c, 1, NPU_RING_RUNNING, T_MS));
	client_ring_push(c, &low, &small);
	client_ring_submit(c, &low);
	ASSERT_TRUE(client_ring_wait_status(c, 0, NPU_RING_RUNNING, T_MS));

	ASSERT_EQ(0, kill(c->pid, SIGTERM));
	ASSERT_TRUE(client_reap(c, 1000));
	ASSERT_TRUE(card_exited_cleanly(c));
	ASSERT_LT(client_ring_rd32(c, 1, NPU_RING_HEAD), 8)
		TH_LOG("the exit waited for the urgent ring's copies");
}

/* Shutdown with an urgent ring hung mid-copy and a less urgent one behind. */
TEST_F(one_engine, exits_with_a_hung_urgent_ring)
{
	struct npu_cmd big = long_copy(), small = short_copy();
	struct client *c = &self->c;
	struct client_ring low, urgent;

	ASSERT_TRUE(setup_low_and_urgent(c, &low, &urgent));
	client_ring_push(c, &urgent, &big);
	client_ring_submit(c, &urgent);
	ASSERT_TRUE(client_ring_wait_status(c, 1, NPU_RING_RUNNING, T_MS));
	ASSERT_TRUE(client_ctrl_inject(c, 1, NPU_FAULT_HANG_RING, 0));
	client_ring_push(c, &low, &small);
	client_ring_submit(c, &low);
	usleep(QUIET_MS * 1000);

	ASSERT_EQ(0, kill(c->pid, SIGTERM));
	ASSERT_TRUE(client_reap(c, 1000));
	ASSERT_TRUE(card_exited_cleanly(c));
}

/*
 * One compute engine, so rings compete for it, and device memory for
 * operators long enough that faults and resets land in the middle of them.
 */
FIXTURE(one_compute) {
	struct client c;
	uint64_t long_op, long_size;	/* descriptors in guest RAM */
	uint64_t short_op, short_size;
};

/* erf, a loop on the card, over 8 Mi elements: a tenth of a second or more */
#define LONG_OP_ELEMS		(8 * MiB)
#define LONG_OP_Y		(64 * MiB)
#define SHORT_OP_Y		(200 * MiB)

FIXTURE_SETUP(one_compute)
{
	static const uint64_t long_dims[1] = { LONG_OP_ELEMS };
	static const uint64_t short_dims[1] = { 1024 };
	struct client *c = &self->c;
	struct npu_op_desc *d;
	struct client_opts o;
	int ret;

	client_default_opts(&o);
	o.bar_size = 256 * MiB;
	o.compute_engines = 1;
	ret = client_start(c, &o);
	if (ret)
		client_cleanup(c);
	ASSERT_EQ(0, ret) TH_LOG("cannot start %s", client_card_path());

	self->long_op = client_host_alloc(c, 4096, 64);
	d = client_op_init(c, self->long_op, NPU_OPERATOR_UNARY, 1);
	d->attrs.unary.fn.kind = htole32(NPU_UNARY_ERF);
	client_op_tensor(d, 0, 0, 1, long_dims);
	client_op_tensor(d, 1, LONG_OP_Y, 1, long_dims);
	self->long_size = client_op_size(d);

	self->short_op = client_host_alloc(c, 4096, 64);
	d = client_op_init(c, self->short_op, NPU_OPERATOR_UNARY, 1);
	d->attrs.unary.fn.kind = htole32(NPU_UNARY_NEG);
	client_op_tensor(d, 0, 0, 1, short_dims);
	client_op_tensor(d, 1, SHORT_OP_Y, 1, short_dims);
	self->short_size = client_op_size(d);
}

FIXTURE_TEARDOWN(one_compute)
{
	struct client *c = &self->c;
	bool running = c->pid != 0;

	/* A card stuck on one of its rings would not exit now. */
	EXPECT_EQ(0, client_disconnect(c, T_MS));
	if (running)
		EXPECT_TRUE(card_exited_cleanly(c));
	EXPECT_TRUE(socket_gone(c));
	client_cleanup(c);
}

static struct npu_cmd long_compute(FIXTURE_DATA(one_compute) *self)
{
	return client_cmd_compute(self->long_op, self->long_size,
				  NPU_CMD_SRC_HOST);
}

static struct npu_cmd short_compute(FIXTURE_DATA(one_compute) *self)
{
	return client_cmd_compute(self->short_op, self->short_size,
				  NPU_CMD_SRC_HOST);
}

/* Some float of the n at p still holds memset's 0xff bytes. */
static bool poisoned_somewhere(const uint8_t *p, size_t n)
{
	static const uint8_t poison[sizeof(float)] = { 0xff, 0xff, 0xff, 0xff };
	size_t i;

	for (i = 0; i < n; i++)
		if (!memcmp(p + i * sizeof(float), poison, sizeof(poison)))
			return true;
	return false;
}

/* Wait until the ring holds the engine: its COMPUTE_NS moves. */
static bool wait_on_engine(struct client *c, unsigned int ring, int timeout_ms)
{
	uint64_t t0 = client_now_us();

	while (client_ring_rd64(c, ring, NPU_RING_COMPUTE_NS) == 0) {
		if (client_now_us() - t0 > timeout_ms * 1000ULL)
			return false;
		usleep(100);
	}
	return true;
}

/*
 * COMPUTE_NS advances while an operator runs, not only when it ends, so a
 * driver watching for progress sees a long operator move.
 */
TEST_F(one_compute, compute_ns_advances_during_an_operator)
{
	struct npu_cmd cmd = long_compute(self);
	struct client *c = &self->c;
	struct client_ring r;
	uint64_t ns;

	ASSERT_TRUE(client_ring_setup(c, &r, 0, 8, 1));
	client_ring_push(c, &r, &cmd);
	client_ring_submit(c, &r);
	ASSERT_TRUE(wait_on_engine(c, 0, T_MS));
	ns = client_ring_rd64(c, 0, NPU_RING_COMPUTE_NS);
	usleep(QUIET_MS * 1000);
	ASSERT_EQ(0, client_ring_rd64(c, 0, NPU_RING_OPS_DONE))
		TH_LOG("the operator ended already; this host is too fast");
	ASSERT_GT(client_ring_rd64(c, 0, NPU_RING_COMPUTE_NS), ns);
	ASSERT_TRUE(client_ring_wait_head(c, &r, 1, 30 * T_MS));
	ASSERT_EQ(1, client_ring_rd64(c, 0, NPU_RING_OPS_DONE));
	ASSERT_GE(client_ring_rd64(c, 0, NPU_RING_COMPUTE_NS),
		  ns + QUIET_MS * 1000000ULL);
}

/*
 * With one compute engine, a priority-0 ring's operator runs as soon as the
 * operator on the engine ends, ahead of a priority-7 ring's queued ones.
 */
TEST_F(one_compute, priority_wins_the_compute_engine)
{
	struct npu_cmd big = long_compute(self), small = short_compute(self);
	struct client *c = &self->c;
	struct client_ring low, urgent;
	int i;

	ASSERT_TRUE(setup_low_and_urgent(c, &low, &urgent));
	for (i = 0; i < 4; i++)
		client_ring_push(c, &low, &big);
	client_ring_submit(c, &low);
	ASSERT_TRUE(wait_on_engine(c, 0, T_MS));
	client_ring_push(c, &urgent, &small);
	client_ring_submit(c, &urgent);
	ASSERT_TRUE(client_ring_wait_head(c, &urgent, 1, 30 * T_MS));
	/* the low ring's first operator, maybe its second: never all four */
	EXPECT_LE(client_ring_rd64(c, 0, NPU_RING_OPS_DONE), 2);
	ASSERT_TRUE(client_ring_wait_head(c, &low, 4, 60 * T_MS));
	ASSERT_EQ(4, client_ring_rd64(c, 0, NPU_RING_OPS_DONE));
}

/*
 * A hung operator holds no engine: with the only one free again, another
 * ring's operators run while the hung ring waits for its reset.
 */
TEST_F(one_compute, hung_operator_holds_no_engine)
{
	struct npu_cmd small = short_compute(self);
	struct client *c = &self->c;
	struct client_ring low, urgent;

	ASSERT_TRUE(setup_low_and_urgent(c, &low, &urgent));
	ASSERT_TRUE(client_ctrl_inject(c, 1, NPU_FAULT_HANG_OP, 0));
	client_ring_push(c, &urgent, &small);
	client_ring_submit(c, &urgent);
	ASSERT_TRUE(wait_on_engine(c, 1, T_MS));

	ASSERT_TRUE(client_ring_run(c, &low, &small, T_MS));
	ASSERT_TRUE(client_ring_run(c, &low, &small, T_MS));
	ASSERT_EQ(2, client_ring_rd64(c, 0, NPU_RING_OPS_DONE));
	ASSERT_EQ(0, client_ring_rd32(c, 1, NPU_RING_HEAD));
	ASSERT_EQ(0, client_ring_rd64(c, 1, NPU_RING_OPS_DONE));

	ASSERT_TRUE(client_ctrl_ring_reset(c, 1));
	ASSERT_TRUE(setup_low_and_urgent(c, &low, &urgent));
	ASSERT_TRUE(client_ring_run(c, &urgent, &small, T_MS));
}

/*
 * A ring waiting for the engine behind a busy ring gives up the wait for a
 * reset at once, and a reset of the busy ring stops its operator's loop
 * midway rather than waiting for its end.
 */
TEST_F(one_compute, reset_while_waiting_for_the_compute_engine)
{
	struct npu_cmd big = long_compute(self), small = short_compute(self);
	struct client *c = &self->c;
	struct client_ring low, urgent;
	int i;

	/* erf(0) is 0: what the operator has not reached keeps the poison */
	memset(client_dev_ptr(c, LONG_OP_Y), 0xff, LONG_OP_ELEMS * sizeof(float));
	ASSERT_TRUE(setup_low_and_urgent(c, &low, &urgent));
	for (i = 0; i < 4; i++)
		client_ring_push(c, &urgent, &big);
	client_ring_submit(c, &urgent);
	ASSERT_TRUE(wait_on_engine(c, 1, T_MS));
	client_ring_push(c, &low, &small);
	client_ring_submit(c, &low);
	ASSERT_TRUE(client_ring_wait_status(c, 0, NPU_RING_RUNNING, T_MS));

	ASSERT_TRUE(client_ctrl_ring_reset(c, 0));
	ASSERT_LT(client_ring_rd64(c, 1, NPU_RING_OPS_DONE), 4)
		TH_LOG("the reset waited for the busy ring's operators");
	ASSERT_EQ(0, client_ring_rd64(c, 0, NPU_RING_OPS_DONE));

	ASSERT_TRUE(client_ctrl_ring_reset(c, 1));
	ASSERT_LT(client_ring_rd64(c, 1, NPU_RING_OPS_DONE), 4);
	/*
	 * The reset came a moment into the first operator's tenths of a
	 * second: its loop stopped there, short of the output's end.  (A host
	 * that stalled us through a whole operator leaves nothing to see.)
	 */
	if (client_ring_rd64(c, 1, NPU_RING_OPS_DONE) == 0) {
		EXPECT_TRUE(poisoned_somewhere(client_dev_ptr(c, LONG_OP_Y), LONG_OP_ELEMS))
			TH_LOG("the reset let the operator's loop run to its end");
	} else {
		TH_LOG("an operator ended before the reset: its loop is not seen stopping");
	}
	ASSERT_TRUE(setup_low_and_urgent(c, &low, &urgent));
	ASSERT_TRUE(client_ring_run(c, &low, &small, T_MS));
}

/*
 * A card that dies while one ring computes and another waits for the
 * engine completes no operator more; a global reset brings it back, without
 * waiting for the loop that was running.
 */
TEST_F(one_compute, dead_card_with_rings_queued_for_the_compute_engine)
{
	struct npu_cmd big = long_compute(self), small = short_compute(self);
	struct client *c = &self->c;
	struct client_ring low, urgent;
	int i;

	ASSERT_TRUE(setup_low_and_urgent(c, &low, &urgent));
	for (i = 0; i < 4; i++)
		client_ring_push(c, &urgent, &big);
	client_ring_submit(c, &urgent);
	ASSERT_TRUE(wait_on_engine(c, 1, T_MS));
	client_ring_push(c, &low, &small);
	client_ring_submit(c, &low);
	ASSERT_TRUE(client_ring_wait_status(c, 0, NPU_RING_RUNNING, T_MS));
	ASSERT_TRUE(client_ctrl_inject(c, 0, NPU_FAULT_STOP_HEARTBEAT, 0));
	ASSERT_EQ(0, client_ring_rd64(c, 1, NPU_RING_OPS_DONE))
		TH_LOG("the operator ended before the card died; this host is too fast");

	/* the step on the engine may end; the operator does not complete */
	usleep(2 * QUIET_MS * 1000);
	ASSERT_EQ(0, client_ring_rd32(c, 1, NPU_RING_HEAD));
	ASSERT_EQ(0, client_ring_rd64(c, 1, NPU_RING_OPS_DONE));
	ASSERT_EQ(0, client_ring_rd64(c, 0, NPU_RING_OPS_DONE));

	ASSERT_TRUE(client_ctrl_global_reset(c));
	ASSERT_EQ(NPU_RING_DISABLED, client_ring_rd32(c, 0, NPU_RING_STATUS));
	ASSERT_EQ(NPU_RING_DISABLED, client_ring_rd32(c, 1, NPU_RING_STATUS));
	ASSERT_TRUE(setup_low_and_urgent(c, &low, &urgent));
	ASSERT_TRUE(client_ring_run(c, &low, &small, T_MS));
	ASSERT_TRUE(client_ring_run(c, &urgent, &small, T_MS));
}

/* Shutdown in the middle of an operator, with a ring waiting behind it. */
TEST_F(one_compute, exits_mid_operator)
{
	struct npu_cmd big = long_compute(self), small = short_compute(self);
	struct client *c = &self->c;
	struct client_ring low, urgent;

	ASSERT_TRUE(setup_low_and_urgent(c, &low, &urgent));
	client_ring_push(c, &urgent, &big);
	client_ring_submit(c, &urgent);
	ASSERT_TRUE(wait_on_engine(c, 1, T_MS));
	client_ring_push(c, &low, &small);
	client_ring_submit(c, &low);

	ASSERT_EQ(0, kill(c->pid, SIGTERM));
	ASSERT_TRUE(client_reap(c, 1000));
	ASSERT_TRUE(card_exited_cleanly(c));
}

/* Many rings, and a stale socket from a crashed run is replaced. */
/*
 * Doorbells and interrupts on demand (docs/hardware.md).  The cards below
 * get a shadow array; their fixtures differ in how long a ring watches its
 * tail and in whether the heartbeat looks again for a barrier-less guest.
 */
static void card_start(struct __test_metadata *_metadata, struct client *c,
		       int fetch_poll_us, bool fenced_guest)
{
	struct client_opts o;
	int ret;

	client_default_opts(&o);
	o.fetch_poll_us = fetch_poll_us;
	o.fenced_guest = fenced_guest;
	ret = client_start(c, &o);
	if (ret)
		client_cleanup(c);
	ASSERT_EQ(0, ret) TH_LOG("cannot start %s", client_card_path());
}

static void card_stop(struct __test_metadata *_metadata, struct client *c)
{
	bool running = c->pid != 0;

	EXPECT_EQ(0, client_disconnect(c, T_MS));
	if (running)
		EXPECT_TRUE(card_exited_cleanly(c));
	EXPECT_TRUE(socket_gone(c));
	client_cleanup(c);
}

/* Spin until the shadow says fetching == want; false after timeout_ms. */
static bool wait_fetching(struct client_ring *r, bool want, int timeout_ms)
{
	uint64_t t0 = client_now_us();

	while (client_ring_fetching(r) != want) {
		if (client_now_us() - t0 > timeout_ms * 1000ULL)
			return false;
		usleep(50);
	}
	return true;
}

/*
 * Until the ring sleeps. Fetching reads 0 a moment before the card's last
 * look at the tail (emu_ring_may_sleep()), and a submission in that moment
 * may find the card without a doorbell, as the protocol allows: only a
 * ring that stays quiet a while is surely asleep, and must be rung.
 */
static bool wait_asleep(struct client_ring *r)
{
	uint64_t t0 = client_now_us();

	do {
		if (!wait_fetching(r, false, T_MS))
			return false;
		usleep(QUIET_MS * 1000);
		if (!client_ring_fetching(r))
			return true;
		/* a doorbell rung earlier woke it once more: wait again */
	} while (client_now_us() - t0 < T_MS * 1000ULL);
	return false;
}

/* Spin (no sleep: the races want speed) until HEAD reaches at least to. */
static bool spin_head_to(struct client *c, struct client_ring *r, uint32_t to,
			 int timeout_ms)
{
	uint64_t t0 = client_now_us();
	unsigned int n = 0;

	while ((int32_t)(client_ring_rd32(c, r->idx, NPU_RING_HEAD) - to) < 0) {
		if (++n % 1024 == 0 && client_now_us() - t0 > timeout_ms * 1000ULL)
			return false;
		__builtin_ia32_pause();
	}
	return true;
}

static bool spin_head(struct client *c, struct client_ring *r, int timeout_ms)
{
	return spin_head_to(c, r, r->tail, timeout_ms);
}

static void spin_a_little(uint64_t *rnd, unsigned int max)
{
	unsigned int n = client_rnd_next(rnd) % max;

	while (n--)
		__builtin_ia32_pause();
}

/* A ring watches its tail for 200 ms after its last command. */
FIXTURE(watching) {
	struct client c;
};

FIXTURE_SETUP(watching)
{
	card_start(_metadata, &self->c, 200000, true);
}

FIXTURE_TEARDOWN(watching)
{
	card_stop(_metadata, &self->c);
}

/*
 * While the shadow says fetching, commands run without a doorbell; the
 * card ignores TAIL then, mirrors HEAD, and clears fetching once the
 * window is over, after which a doorbell wakes it.
 */
TEST_F(watching, shadow_tail_without_doorbell)
{
	struct client *c = &self->c;
	struct npu_cmd nop = client_cmd_nop(0);
	struct client_ring r;
	int i;

	client_shadows_enable(c);
	ASSERT_TRUE(client_ring_setup(c, &r, 3, 16, 2));
	ASSERT_NE(NULL, r.shadow);
	ASSERT_TRUE(client_ring_fetching(&r));	/* enabling starts the watch */
	for (i = 0; i < 40; i++) {
		client_ring_push(c, &r, &nop);
		client_ring_submit(c, &r);
		ASSERT_TRUE(spin_head(c, &r, T_MS));
	}
	EXPECT_EQ(40, r.quiet);
	EXPECT_EQ(0, r.doorbells);
	EXPECT_EQ(40, le32toh(r.shadow->head));
	EXPECT_EQ(40, client_ring_rd32(c, 3, NPU_RING_HEAD));

	/* TAIL is not the tail of a ring with a shadow. */
	client_ring_wr32(c, 3, NPU_RING_TAIL, r.tail + 2);
	client_doorbell(c, 2);
	usleep(QUIET_MS * 1000);
	EXPECT_EQ(40, client_ring_rd32(c, 3, NPU_RING_HEAD));

	/* The window ends; then a submission rings, and the card answers. */
	ASSERT_TRUE(wait_asleep(&r));
	client_ring_push(c, &r, &nop);
	client_ring_submit(c, &r);
	EXPECT_EQ(1, r.doorbells);
	ASSERT_TRUE(client_ring_wait_head(c, &r, r.tail, T_MS));
	EXPECT_EQ(41, le32toh(r.shadow->head));
	EXPECT_TRUE(client_ring_fetching(&r));
}

/*
 * SHADOW_BASE is checked at ENABLE like the rest of a ring's configuration,
 * reset leaves the shadow to the driver, a global reset forgets the array.
 */
TEST_F(watching, shadow_config_and_resets)
{
	struct client *c = &self->c;
	uint64_t low = c->opts.lowmem, base;
	struct client_ring r;

	base = client_shadows_enable(c);
	client_reg_wr64(c, NPU_SHADOW_BASE, base + 8);
	EXPECT_FALSE(client_ring_setup(c, &r, 0, 4, 1));
	EXPECT_EQ(NPU_ERR_RING_CONFIG, client_ring_rd32(c, 0, NPU_RING_ERROR));

	/* rings 0..3 of this array are in RAM, ring 4's entry is in the hole */
	client_reg_wr64(c, NPU_SHADOW_BASE, low - 4 * sizeof(struct npu_ring_shadow));
	EXPECT_FALSE(client_ring_setup(c, &r, 4, 4, 1));
	EXPECT_EQ(NPU_ERR_RING_CONFIG, client_ring_rd32(c, 4, NPU_RING_ERROR));
	EXPECT_TRUE(client_ring_setup(c, &r, 3, 4, 1));

	client_reg_wr64(c, NPU_SHADOW_BASE, base);
	ASSERT_TRUE(client_ring_setup(c, &r, 0, 4, 1));
	ASSERT_TRUE(client_ctrl_ring_reset(c, 0));
	r.shadow->head = htole32(0x1234);
	r.shadow->fetching = htole32(0x5678);
	usleep(QUIET_MS * 1000);
	EXPECT_EQ(0x1234, le32toh(r.shadow->head));
	EXPECT_EQ(0x5678, le32toh(r.shadow->fetching));

	ASSERT_TRUE(client_ctrl_global_reset(c));
	EXPECT_EQ(0, client_reg_rd64(c, NPU_SHADOW_BASE));
}

/* A ring goes to sleep right after its last command: every submission races it. */
FIXTURE(sleepy) {
	struct client c;
};

FIXTURE_SETUP(sleepy)
{
	card_start(_metadata, &self->c, 0, true);
}

FIXTURE_TEARDOWN(sleepy)
{
	card_stop(_metadata, &self->c);
}

#define RACE_ROUNDS	40000

/*
 * Submissions just as the card goes to sleep: the heartbeat does not look
 * again here, so a lost wake-up would stop the ring for good.  First, a
 * ring that waits still fetches: what comes meanwhile needs no doorbell.
 */
TEST_F(sleepy, submission_races_sleep)
{
	struct client *c = &self->c;
	uint64_t word = client_host_alloc(c, 8, 8);
	struct npu_cmd nop = client_cmd_nop(0);
	struct npu_cmd wait = client_cmd_wait(word, 1, NPU_WAIT_EQ, NPU_CMD_DST_HOST);
	uint64_t rnd = test_seed(13), doorbells, quiet;
	struct client_ring r;
	int i;

	client_shadows_enable(c);
	ASSERT_TRUE(client_ring_setup(c, &r, 0, 64, 1));
	client_word_wr(client_gpa_ptr(c, word), 0);
	ASSERT_TRUE(wait_asleep(&r));
	client_ring_push(c, &r, &wait);
	client_ring_submit(c, &r);
	ASSERT_TRUE(client_ring_wait_status(c, 0, NPU_RING_WAITING, T_MS));
	client_ring_push(c, &r, &nop);
	client_ring_submit(c, &r);
	EXPECT_EQ(1, r.doorbells);
	EXPECT_EQ(1, r.quiet);
	client_word_wr(client_gpa_ptr(c, word), 1);
	ASSERT_TRUE(client_ring_wait_head(c, &r, r.tail, T_MS));

	doorbells = r.doorbells;
	quiet = r.quiet;
	for (i = 0; i < RACE_ROUNDS; i++) {
		/*
		 * Once HEAD moves the card is on its way to sleep: every
		 * other submission comes at once or up to a microsecond or so
		 * later.  The others come anywhere from then to a doorbell's
		 * round trip later, whether the card has answered or not.
		 */
		client_ring_push(c, &r, &nop);
		client_ring_submit(c, &r);
		if (i % 2 == 0) {
			ASSERT_TRUE(spin_head(c, &r, T_MS))
				TH_LOG("round %d lost: fetching %u", i,
				       le32toh(r.shadow->fetching));
			spin_a_little(&rnd, 16);
		} else {
			spin_a_little(&rnd, 1500);
		}
	}
	ASSERT_TRUE(spin_head(c, &r, T_MS));
	TH_LOG("%llu doorbells, %llu fetched unbidden",
	       (unsigned long long)(r.doorbells - doorbells),
	       (unsigned long long)(r.quiet - quiet));
	EXPECT_GT(r.doorbells - doorbells, 0);
}

/*
 * A waiter sets the word, then looks at the fence: whichever way its look
 * and the card's fence fall, it never sleeps through the value.
 */
TEST_F(sleepy, waiter_races_the_fence)
{
	struct client *c = &self->c;
	uint64_t words = client_host_alloc(c, 64, 64), irqw = words + 32;
	uint64_t rnd = test_seed(14), slept = 0, found = 0;
	struct npu_cmd nop = client_cmd_nop(0), cmd;
	struct client_ring r;
	int i;

	client_shadows_enable(c);
	ASSERT_TRUE(client_ring_setup(c, &r, 0, 64, 1));
	for (i = 1; i <= RACE_ROUNDS; i++) {
		/*
		 * Look just as the card gets to the fence, after the NOP, or
		 * some time after the submission.
		 */
		client_ring_push(c, &r, &nop);
		cmd = fence_irq_if(words, i, irqw);
		client_ring_push(c, &r, &cmd);
		client_ring_submit(c, &r);
		if (i % 2) {
			ASSERT_TRUE(spin_head_to(c, &r, r.tail - 1, T_MS));
			spin_a_little(&rnd, 40);
		} else {
			spin_a_little(&rnd, 4000);
		}

		irq_word_set(c, irqw, 1);
		if (client_word_rd(client_gpa_ptr(c, words)) >= (uint64_t)i) {
			found++;
		} else {
			slept++;
			/*
			 * An earlier round's fence may interrupt late: it raises
			 * its vector after HEAD moves, which is all the last
			 * round waited for. Only an interrupt that comes with
			 * this round's value ends the wait.
			 */
			do {
				ASSERT_GE(client_irq_wait(c, 1, T_MS), 1)
					TH_LOG("round %d: no interrupt", i);
			} while (client_word_rd(client_gpa_ptr(c, words)) < (uint64_t)i);
			ASSERT_EQ(i, client_word_rd(client_gpa_ptr(c, words)));
		}
		irq_word_set(c, irqw, 0);
		ASSERT_TRUE(spin_head(c, &r, T_MS));
		client_irq_take(c, 1);
	}
	TH_LOG("%llu waits slept, %llu found the value", (unsigned long long)slept,
	       (unsigned long long)found);
	EXPECT_GT(slept, 0);
	EXPECT_GT(found, 0);
}

/*
 * As a TCG guest: no barrier between the store and the load.  The card's
 * second looks at each heartbeat make up for it.
 */
FIXTURE(unfenced) {
	struct client c;
};

FIXTURE_SETUP(unfenced)
{
	card_start(_metadata, &self->c, 0, false);
}

FIXTURE_TEARDOWN(unfenced)
{
	card_stop(_metadata, &self->c);
}

TEST_F(unfenced, sleeping_ring_is_looked_at_again)
{
	struct client *c = &self->c;
	struct npu_cmd nop = client_cmd_nop(0);
	uint64_t rnd = test_seed(15);
	struct client_ring r;
	int i;

	client_shadows_enable(c);
	ASSERT_TRUE(client_ring_setup(c, &r, 0, 64, 1));
	ASSERT_TRUE(wait_fetching(&r, false, T_MS));

	/* A tail whose doorbell never comes, as if the load passed the store. */
	client_ring_push(c, &r, &nop);
	__atomic_store_n(&r.shadow->tail, htole32(r.tail), __ATOMIC_RELEASE);
	ASSERT_TRUE(client_ring_wait_head(c, &r, r.tail, T_MS));

	for (i = 0; i < RACE_ROUNDS / 4; i++) {
		client_ring_push(c, &r, &nop);
		client_ring_submit_unfenced(c, &r);
		ASSERT_TRUE(spin_head(c, &r, T_MS)) TH_LOG("round %d lost", i);
		spin_a_little(&rnd, 2000);
	}
}

/*
 * A waiter's store that reached memory only after the card looked: we
 * store right after seeing HEAD move.  Should this process lose the CPU
 * for longer than the card looks again (a loaded host), the attempt
 * proves nothing, and the next one is made.
 */
TEST_F(unfenced, clear_word_is_looked_at_again)
{
	struct client *c = &self->c;
	uint64_t words = client_host_alloc(c, 64, 64), irqw = words + 32;
	struct client_ring r;
	struct npu_cmd cmd;
	int i, irqs = 0;

	client_shadows_enable(c);
	ASSERT_TRUE(client_ring_setup(c, &r, 0, 16, 1));
	client_irq_take(c, 1);
	for (i = 1; i <= 20 && !irqs; i++) {
		irq_word_set(c, irqw, 0);
		cmd = fence_irq_if(words, i, irqw);
		client_ring_push(c, &r, &cmd);
		client_ring_submit(c, &r);
		ASSERT_TRUE(spin_head(c, &r, T_MS));
		irq_word_set(c, irqw, 1);
		irqs = client_irq_wait(c, 1, 100);
	}
	ASSERT_EQ(1, irqs);
	/* Once: the word is not looked at forever. */
	ASSERT_EQ(0, client_irq_wait(c, 1, QUIET_MS));
}

TEST(max_rings_and_stale_socket)
{
	struct client_opts o;
	struct client c;
	struct npu_cmd nop = client_cmd_nop(NPU_CMD_IRQ);
	struct client_ring r;
	int fd;

	client_default_opts(&o);
	o.rings = NPU_MAX_RINGS;
	o.vectors = 33;
	o.stale_socket = true;
	fd = client_start(&c, &o);
	if (fd)
		client_cleanup(&c);
	ASSERT_EQ(0, fd);
	ASSERT_EQ(NPU_MAX_RINGS, client_reg_rd32(&c, NPU_ID_NUM_RINGS));
	ASSERT_TRUE(client_ring_setup(&c, &r, NPU_MAX_RINGS - 1, 2, 32));
	ASSERT_TRUE(client_ring_run(&c, &r, &nop, T_MS));
	ASSERT_EQ(1, client_irq_wait(&c, 32, T_MS));
	EXPECT_EQ(0, client_disconnect(&c, T_MS));
	EXPECT_TRUE(card_exited_cleanly(&c));
	client_cleanup(&c);
}

/*
 * With fewer vectors than rings, rings share a vector (the driver's ring i
 * takes vector 1 + i % (vectors - 1)): its doorbell must make every ring
 * on it look at its tail, and no other vector's may.
 */
TEST(shared_vector_doorbell)
{
	struct npu_cmd nop = client_cmd_nop(0);
	struct client_ring a, b;
	struct client_opts o;
	struct client c;
	int fd;

	client_default_opts(&o);
	o.vectors = 3;
	fd = client_start(&c, &o);
	if (fd)
		client_cleanup(&c);
	ASSERT_EQ(0, fd);
	ASSERT_EQ(3, client_reg_rd32(&c, NPU_ID_NUM_VECTORS));
	ASSERT_TRUE(client_ring_setup(&c, &a, 2, 8, 1));
	ASSERT_TRUE(client_ring_setup(&c, &b, 5, 8, 1));
	/* Let the card finish any look at TAIL the setup left pending. */
	usleep(100 * 1000);

	client_ring_push(&c, &a, &nop);
	client_ring_wr32(&c, a.idx, NPU_RING_TAIL, a.tail);
	client_ring_push(&c, &b, &nop);
	client_ring_push(&c, &b, &nop);
	client_ring_wr32(&c, b.idx, NPU_RING_TAIL, b.tail);
	client_doorbell(&c, 2);
	usleep(QUIET_MS * 1000);
	ASSERT_EQ(0, client_ring_rd32(&c, a.idx, NPU_RING_HEAD));
	ASSERT_EQ(0, client_ring_rd32(&c, b.idx, NPU_RING_HEAD));

	client_doorbell(&c, 1);
	ASSERT_TRUE(client_ring_wait_head(&c, &a, 1, T_MS));
	ASSERT_TRUE(client_ring_wait_head(&c, &b, 2, T_MS));

	/* Again, the other ring's work alone, the same vector. */
	usleep(100 * 1000);
	client_ring_push(&c, &b, &nop);
	client_ring_wr32(&c, b.idx, NPU_RING_TAIL, b.tail);
	client_doorbell(&c, 1);
	ASSERT_TRUE(client_ring_wait_head(&c, &b, 3, T_MS));
	ASSERT_EQ(1, client_ring_rd32(&c, a.idx, NPU_RING_HEAD));
	EXPECT_EQ(0, client_disconnect(&c, T_MS));
	EXPECT_TRUE(card_exited_cleanly(&c));
	client_cleanup(&c);
}

/*
 * Direct rings (docs/hardware.md, "Direct rings").  The test is both the
 * owner, which keeps the binding table and the slots, and the submitter,
 * which writes the ring and its own shadow.
 */
struct direct_ring {
	struct client_ring r;		/* r.shadow: the submitter's */
	struct npu_ring_shadow *kshadow;	/* the owner's: bind_epoch */
	struct npu_bind_table *table;
	uint64_t table_gpa;
	uint32_t binds;
	uint64_t slots_gpa;
	uint64_t irq_gpa;
	uint32_t nslots;
	uint64_t ushadow_gpa;
};

#define DIRECT_BINDS	8
#define DIRECT_SLOTS	4

/* Tables in guest RAM, zeroed, the epoch at 1; SHADOW_BASE set. */
static void direct_tables(struct client *c, struct direct_ring *d)
{
	uint64_t shadows = client_reg_rd64(c, NPU_SHADOW_BASE);

	memset(d, 0, sizeof(*d));
	if (!shadows)
		shadows = client_shadows_enable(c);
	d->binds = DIRECT_BINDS;
	d->nslots = DIRECT_SLOTS;
	d->table_gpa = client_host_alloc(c, sizeof(struct npu_bind_table) +
					 DIRECT_BINDS * sizeof(struct npu_binding), 64);
	d->table = (struct npu_bind_table *)client_gpa_ptr(c, d->table_gpa);
	d->table->epoch = htole64(1);
	d->slots_gpa = client_host_alloc(c, DIRECT_SLOTS * sizeof(struct npu_slot), 64);
	d->irq_gpa = client_host_alloc(c, DIRECT_SLOTS * sizeof(uint32_t), 64);
	d->r.base = client_host_alloc(c, 16 * sizeof(struct npu_direct_cmd), 64);
	d->r.size = 16;
	d->ushadow_gpa = client_host_alloc(c, sizeof(struct npu_ring_shadow), 64);
	d->r.shadow = (struct npu_ring_shadow *)client_gpa_ptr(c, d->ushadow_gpa);
}

/* (Re)start ring idx as a direct ring on vector 2 over d's tables. */
static bool direct_start(struct client *c, struct direct_ring *d, unsigned int idx)
{
	uint64_t shadows = client_reg_rd64(c, NPU_SHADOW_BASE);

	d->r.idx = idx;
	d->r.vector = 2;
	d->r.tail = 0;
	d->kshadow = client_shadow(c, shadows, idx);
	if (!client_ctrl_ring_reset(c, idx))
		return false;
	memset(d->kshadow, 0, sizeof(*d->kshadow));
	memset(d->r.shadow, 0, sizeof(*d->r.shadow));
	client_ring_wr64(c, idx, NPU_RING_BASE, d->r.base);
	client_ring_wr32(c, idx, NPU_RING_SIZE, d->r.size);
	client_ring_wr32(c, idx, NPU_RING_VECTOR, d->r.vector);
	client_ring_wr64(c, idx, NPU_RING_BIND_BASE, d->table_gpa);
	client_ring_wr32(c, idx, NPU_RING_BIND_COUNT, d->binds);
	client_ring_wr64(c, idx, NPU_RING_SLOT_BASE, d->slots_gpa);
	client_ring_wr32(c, idx, NPU_RING_SLOT_COUNT, d->nslots);
	client_ring_wr64(c, idx, NPU_RING_SLOT_IRQ_BASE, d->irq_gpa);
	client_ring_wr64(c, idx, NPU_RING_USER_SHADOW, d->ushadow_gpa);
	client_ring_wr32(c, idx, NPU_RING_CTRL, NPU_RING_CTRL_ENABLE);
	client_doorbell(c, 0);
	return client_ring_wait_status(c, idx, NPU_RING_IDLE, 1000);
}

static void direct_bind(struct direct_ring *d, uint32_t i, uint32_t kind,
			uint64_t addr, uint64_t size, uint32_t sg_count)
{
	d->table->entries[i] = (struct npu_binding) {
		.kind = htole32(kind), .sg_count = htole32(sg_count),
		.addr = htole64(addr), .size = htole64(size),
	};
}

static struct npu_direct_cmd dcmd(uint16_t op, uint32_t dst_bind, uint64_t dst,
				  uint32_t src_bind, uint64_t src, uint64_t size)
{
	return (struct npu_direct_cmd) {
		.opcode = htole16(op), .dst_bind = htole32(dst_bind),
		.src_bind = htole32(src_bind), .dst = htole64(dst),
		.src = htole64(src), .size = htole64(size),
	};
}

static struct npu_direct_cmd dslot(uint16_t op, uint32_t slot, uint64_t value,
				   uint32_t arg)
{
	return (struct npu_direct_cmd) {
		.opcode = htole16(op), .dst_bind = htole32(slot),
		.value = htole64(value), .arg = htole32(arg),
	};
}

static void direct_push(struct client *c, struct direct_ring *d,
			const struct npu_direct_cmd *cmd)
{
	_Static_assert(sizeof(*cmd) == sizeof(struct npu_cmd), "one ring entry");
	client_ring_push(c, &d->r, (const struct npu_cmd *)cmd);
}

static bool direct_run(struct client *c, struct direct_ring *d,
		       struct npu_direct_cmd cmd)
{
	direct_push(c, d, &cmd);
	client_ring_submit(c, &d->r);
	return client_ring_wait_head(c, &d->r, d->r.tail, T_MS);
}

static struct npu_slot *direct_slot(struct client *c, struct direct_ring *d,
				    uint32_t i)
{
	return (struct npu_slot *)client_gpa_ptr(c, d->slots_gpa + i * sizeof(struct npu_slot));
}

/* A host buffer of three pages, out of order in guest RAM, and its table. */
static uint64_t direct_host_buffer(struct client *c, uint64_t page[3])
{
	uint64_t table = client_host_alloc(c, 3 * sizeof(struct npu_sg_entry), 64);
	struct npu_sg_entry *e = (struct npu_sg_entry *)client_gpa_ptr(c, table);
	uint64_t pages = client_host_alloc(c, 3 * 4 * KiB, 4 * KiB);
	unsigned int i;

	page[0] = pages + 2 * 4 * KiB;
	page[1] = pages;
	page[2] = pages + 4 * KiB;
	for (i = 0; i < 3; i++)
		e[i] = (struct npu_sg_entry) { .addr = htole64(page[i]),
					       .len = htole64(4 * KiB) };
	return table;
}

FIXTURE(direct) {
	struct client c;
	struct direct_ring d;
	const char *step;
};

/* Room in device memory for the long copies. */
FIXTURE_SETUP(direct)
{
	struct client_opts o;
	int ret;

	client_default_opts(&o);
	o.bar_size = 256 * MiB;
	o.fenced_guest = true;
	ret = client_start(&self->c, &o);
	if (ret)
		client_cleanup(&self->c);
	ASSERT_EQ(0, ret) TH_LOG("cannot start %s", client_card_path());
	direct_tables(&self->c, &self->d);
}

FIXTURE_TEARDOWN(direct)
{
	if (_metadata->exit_code && self->step)
		TH_LOG("failed in case: %s", self->step);
	card_stop(_metadata, &self->c);
}

/*
 * Bindings and slots do what the privileged commands do with addresses:
 * copies across a scattered host buffer and device memory, fills, fences
 * with their interrupt asked for by the slot's word, waits, timestamps.
 */
TEST_F(direct, commands_through_bindings)
{
	struct client *c = &self->c;
	struct direct_ring *d = &self->d;
	uint8_t in[12 * KiB], out[12 * KiB];
	uint64_t page[3], rnd = test_seed(41), table;
	uint32_t *irq_words;
	unsigned int i;

	table = direct_host_buffer(c, page);
	direct_bind(d, 0, NPU_BIND_DEVICE, 1 * MiB, 64 * KiB, 0);
	direct_bind(d, 3, NPU_BIND_HOST, table, 12 * KiB, 3);
	ASSERT_TRUE(direct_start(c, d, 2));

	client_rnd_fill(&rnd, in, sizeof(in));
	for (i = 0; i < 3; i++)
		memcpy(client_gpa_ptr(c, page[i]), in + i * 4 * KiB, 4 * KiB);
	/* host offset 1000 .. 10000 across all three pages, to device 64 */
	ASSERT_TRUE(direct_run(c, d, dcmd(NPU_OP_COPY, 0, 64, 3, 1000, 9000)));
	EXPECT_EQ(0, memcmp(client_dev_ptr(c, 1 * MiB + 64), in + 1000, 9000));

	/* and back, shifted, into the same buffer's start */
	ASSERT_TRUE(direct_run(c, d, dcmd(NPU_OP_COPY, 3, 0, 0, 64, 9000)));
	for (i = 0; i < 3; i++)
		memcpy(out + i * 4 * KiB, client_gpa_ptr(c, page[i]), 4 * KiB);
	EXPECT_EQ(0, memcmp(out, in + 1000, 9000));
	EXPECT_EQ(0, memcmp(out + 9000, in + 9000, sizeof(in) - 9000));

	struct npu_direct_cmd fill = dcmd(NPU_OP_FILL, 0, 20000, 0, 0, 300);

	fill.arg = htole32(0xab);
	ASSERT_TRUE(direct_run(c, d, fill));
	for (i = 0; i < 300; i++)
		ASSERT_EQ(0xab, client_dev_ptr(c, 1 * MiB + 20000)[i]);
	EXPECT_EQ(0, client_dev_ptr(c, 1 * MiB + 20300)[0]);

	/* a FENCE interrupts only when its slot's word asks */
	irq_words = (uint32_t *)client_gpa_ptr(c, d->irq_gpa);
	client_irq_take(c, 2);
	ASSERT_TRUE(direct_run(c, d, dslot(NPU_OP_FENCE, 2, 42, 0)));
	EXPECT_EQ(42, le64toh(direct_slot(c, d, 2)->value));
	EXPECT_NE(0, le64toh(direct_slot(c, d, 2)->timestamp));
	usleep(QUIET_MS * 1000);
	EXPECT_EQ(0, client_irq_take(c, 2));
	irq_words[1] = htole32(1);
	ASSERT_TRUE(direct_run(c, d, dslot(NPU_OP_FENCE, 1, 7, 0)));
	EXPECT_EQ(7, le64toh(direct_slot(c, d, 1)->value));
	EXPECT_EQ(1, client_irq_wait(c, 2, T_MS));

	ASSERT_TRUE(direct_run(c, d, dslot(NPU_OP_TIMESTAMP, 3, 0, 0)));
	EXPECT_EQ(0, le64toh(direct_slot(c, d, 3)->value));
	EXPECT_NE(0, le64toh(direct_slot(c, d, 3)->timestamp));

	/* a WAIT on a slot holds the ring until the slot gets there */
	struct npu_direct_cmd wait = dslot(NPU_OP_WAIT, 0, 5, NPU_WAIT_GEQ);

	direct_push(c, d, &wait);
	client_ring_submit(c, &d->r);
	ASSERT_TRUE(client_ring_wait_status(c, 2, NPU_RING_WAITING, T_MS));
	client_word_wr((uint8_t *)direct_slot(c, d, 0), 5);
	ASSERT_TRUE(client_ring_wait_head(c, &d->r, d->r.tail, T_MS));

	/* HEAD in both shadows; no binding held once idle */
	EXPECT_EQ(d->r.tail, le32toh(d->r.shadow->head));
	EXPECT_EQ(d->r.tail, le32toh(d->kshadow->head));
	EXPECT_EQ(0, le64toh(d->kshadow->bind_epoch));
	EXPECT_EQ(NPU_ERR_NONE, client_ring_rd32(c, 2, NPU_RING_ERROR));
}

/*
 * COMPUTE on a direct ring: the descriptor read across a scattered host
 * buffer, its tensors by binding; a tensor that leaves its buffer, or
 * names a host buffer or none, stops the ring with ACCESS and computes
 * nothing; no binding is held after either.
 */
TEST_F(direct, operators_by_binding)
{
	struct client *c = &self->c;
	struct direct_ring *d = &self->d;
	const uint64_t at = 4 * KiB - 64;	/* across the first two pages */
	uint64_t page[3], table, scratch, size;
	struct npu_op_desc *desc;
	float *x = (float *)client_dev_ptr(c, 1 * MiB);
	float *y = (float *)client_dev_ptr(c, 2 * MiB + 64);
	struct {
		const char *name;
		unsigned int tensor;
		uint16_t bind;
		uint64_t offset;
		uint64_t src;
		uint32_t err;
	} cases[] = {
		{ "past its buffer", 1, 1, 4 * KiB - 32, at, NPU_ERR_ACCESS },
		{ "offset past its buffer", 0, 0, 64 * KiB + 4, at, NPU_ERR_ACCESS },
		{ "in a host buffer", 0, 3, 0, at, NPU_ERR_ACCESS },
		{ "an empty binding", 1, 5, 0, at, NPU_ERR_ACCESS },
		{ "past the table", 1, DIRECT_BINDS, 0, at, NPU_ERR_ACCESS },
		{ "descriptor not aligned", 1, 1, 64, at + 8, NPU_ERR_OP_PARAM },
	};
	unsigned int i, k;

	table = direct_host_buffer(c, page);
	direct_bind(d, 0, NPU_BIND_DEVICE, 1 * MiB, 64 * KiB, 0);
	direct_bind(d, 1, NPU_BIND_DEVICE, 2 * MiB, 4 * KiB, 0);
	direct_bind(d, 3, NPU_BIND_HOST, table, 12 * KiB, 3);
	scratch = client_host_alloc(c, 4 * KiB, 64);
	size = neg_op(c, scratch, 0, 64);
	desc = (struct npu_op_desc *)client_gpa_ptr(c, scratch);
	desc->tensors[0].bind = htole16(0);
	desc->tensors[1].bind = htole16(1);

	for (k = 0; k < 16; k++)
		x[k] = (float)k + 0.5f;
	memcpy(client_gpa_ptr(c, page[0]) + at, desc, 64);
	memcpy(client_gpa_ptr(c, page[1]), (uint8_t *)desc + 64, size - 64);
	ASSERT_TRUE(direct_start(c, d, 2));
	ASSERT_TRUE(direct_run(c, d, dcmd(NPU_OP_COMPUTE, 0, 0, 3, at, size)));
	for (k = 0; k < 16; k++)
		ASSERT_EQ(-((float)k + 0.5f), y[k]) TH_LOG("element %u", k);
	EXPECT_EQ(1, client_ring_rd64(c, 2, NPU_RING_OPS_DONE));
	EXPECT_EQ(0, le64toh(d->kshadow->bind_epoch));
	/*
	 * Ring 1 takes over ring 2's queue and user shadow: ring 2, left
	 * enabled, would see the shadow's tail go back and run its queue
	 * again, writing y behind the cases' backs.
	 */
	ASSERT_TRUE(client_ctrl_ring_reset(c, 2));

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct npu_op_desc *bad = (struct npu_op_desc *)client_gpa_ptr(c, page[2]);
		struct npu_direct_cmd cmd = dcmd(NPU_OP_COMPUTE, 0, 0, 3, cases[i].src, size);

		self->step = cases[i].name;
		memcpy(bad, desc, size);
		bad->tensors[cases[i].tensor].bind = htole16(cases[i].bind);
		bad->tensors[cases[i].tensor].addr = htole64(cases[i].offset);
		/* the third page is the buffer's last 4 KiB */
		memmove((uint8_t *)bad + (cases[i].src - at), bad, size);
		cmd.src = htole64(8 * KiB + (cases[i].src - at));
		memset(y, 0, 64);
		ASSERT_TRUE(direct_start(c, d, 1));
		direct_push(c, d, &cmd);
		client_ring_submit(c, &d->r);
		ASSERT_TRUE(client_ring_wait_status(c, 1, NPU_RING_STOPPED, T_MS));
		EXPECT_EQ(cases[i].err, client_ring_rd32(c, 1, NPU_RING_ERROR));
		EXPECT_EQ(0, client_ring_rd32(c, 1, NPU_RING_HEAD));
		EXPECT_EQ(0, client_ring_rd64(c, 1, NPU_RING_OPS_DONE));
		EXPECT_EQ(0, le64toh(d->kshadow->bind_epoch));
		EXPECT_EQ(0, client_word_rd((uint8_t *)y));
	}
}

/*
 * Whatever names something outside the tables, or uses what a direct ring
 * may not, stops the ring with the error and moves nothing.
 */
TEST_F(direct, refuses_what_it_may_not_use)
{
	struct client *c = &self->c;
	struct direct_ring *d = &self->d;
	uint64_t page[3], table, short_table;
	struct {
		const char *name;
		struct npu_direct_cmd cmd;
		uint32_t err;
	} cases[] = {
		{ "binding past the table", dcmd(NPU_OP_FILL, DIRECT_BINDS, 0, 0, 0, 8), NPU_ERR_ACCESS },
		{ "empty binding", dcmd(NPU_OP_FILL, 5, 0, 0, 0, 8), NPU_ERR_ACCESS },
		{ "range past the buffer", dcmd(NPU_OP_FILL, 0, 64 * KiB - 8, 0, 0, 9), NPU_ERR_ACCESS },
		{ "offset that wraps", dcmd(NPU_OP_FILL, 0, ~0ULL - 3, 0, 0, 8), NPU_ERR_ACCESS },
		{ "src outside", dcmd(NPU_OP_COPY, 0, 0, 1, 0, 8), NPU_ERR_ACCESS },
		{ "host table too short", dcmd(NPU_OP_COPY, 0, 0, 4, 8 * KiB, 8), NPU_ERR_ACCESS },
		{ "device binding past memory", dcmd(NPU_OP_FILL, 6, 0, 0, 0, 8), NPU_ERR_ACCESS },
		{ "slot past the array", dslot(NPU_OP_FENCE, DIRECT_SLOTS, 1, 0), NPU_ERR_ACCESS },
		{ "operator of no size", dcmd(NPU_OP_COMPUTE, 0, 0, 3, 0, 0), NPU_ERR_RESERVED },
		{ "operator with a destination", dcmd(NPU_OP_COMPUTE, 0, 64, 3, 0, 128),
		  NPU_ERR_RESERVED },
		{ "unknown opcode", dcmd(99, 0, 0, 0, 0, 0), NPU_ERR_OPCODE },
		{ "size 0", dcmd(NPU_OP_COPY, 0, 0, 3, 0, 0), NPU_ERR_RESERVED },
		{ "src on a FILL", dcmd(NPU_OP_FILL, 0, 0, 3, 0, 8), NPU_ERR_RESERVED },
		{ "size on a FENCE", dcmd(NPU_OP_FENCE, 0, 0, 0, 0, 8), NPU_ERR_RESERVED },
	};
	struct npu_direct_cmd flagged = dcmd(NPU_OP_NOP, 0, 0, 0, 0, 0);
	struct npu_direct_cmd reserved = flagged;
	unsigned int i;

	table = direct_host_buffer(c, page);
	short_table = direct_host_buffer(c, page);
	direct_bind(d, 0, NPU_BIND_DEVICE, 1 * MiB, 64 * KiB, 0);
	direct_bind(d, 1, NPU_BIND_DEVICE, 2 * MiB, 4, 0);
	direct_bind(d, 3, NPU_BIND_HOST, table, 12 * KiB, 3);
	/* a 12 KiB buffer whose table has two entries */
	direct_bind(d, 4, NPU_BIND_HOST, short_table, 12 * KiB, 2);
	direct_bind(d, 6, NPU_BIND_DEVICE, client_devmem_size(c) - 4 * KiB, 8 * KiB, 0);
	flagged.flags = htole16(NPU_CMD_IRQ);
	reserved.rsvd[1] = htole64(1);

	for (i = 0; i < ARRAY_SIZE(cases) + 2; i++) {
		const struct npu_direct_cmd *cmd = i < ARRAY_SIZE(cases) ? &cases[i].cmd :
						   i == ARRAY_SIZE(cases) ? &flagged : &reserved;
		uint32_t err = i < ARRAY_SIZE(cases) ? cases[i].err : NPU_ERR_RESERVED;

		self->step = i < ARRAY_SIZE(cases) ? cases[i].name : "flags or rsvd";
		memset(client_dev_ptr(c, 1 * MiB), 0, 64 * KiB);
		ASSERT_TRUE(direct_start(c, d, 1));
		direct_push(c, d, cmd);
		client_ring_submit(c, &d->r);
		ASSERT_TRUE(client_ring_wait_status(c, 1, NPU_RING_STOPPED, T_MS));
		EXPECT_EQ(err, client_ring_rd32(c, 1, NPU_RING_ERROR));
		EXPECT_EQ(0, client_ring_rd32(c, 1, NPU_RING_HEAD));
		EXPECT_EQ(0, client_word_rd(client_dev_ptr(c, 1 * MiB)));
		EXPECT_EQ(0, le64toh(d->kshadow->bind_epoch));
		EXPECT_EQ(0, le64toh(direct_slot(c, d, 0)->value));
	}
}

/* A direct ring's tables are checked at ENABLE like the rest. */
TEST_F(direct, config_errors)
{
	struct client *c = &self->c;
	struct direct_ring *d = &self->d;
	struct {
		const char *name;
		uint32_t reg;
		uint64_t value;
		bool wide;
	} cases[] = {
		{ "no binding", NPU_RING_BIND_COUNT, 0, false },
		{ "too many bindings", NPU_RING_BIND_COUNT, NPU_BIND_MAX + 1, false },
		{ "table misaligned", NPU_RING_BIND_BASE, 0, true },
		{ "no slot", NPU_RING_SLOT_COUNT, 0, false },
		{ "slots outside RAM", NPU_RING_SLOT_BASE, 3 * GiB, true },
		{ "irq words misaligned", NPU_RING_SLOT_IRQ_BASE, 0, true },
		{ "user shadow outside RAM", NPU_RING_USER_SHADOW, 3 * GiB, true },
	};
	unsigned int i;

	cases[2].value = d->table_gpa + 8;
	cases[5].value = d->irq_gpa + 2;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		self->step = cases[i].name;
		ASSERT_TRUE(direct_start(c, d, 1));
		ASSERT_TRUE(client_ctrl_ring_reset(c, 1));
		if (cases[i].wide)
			client_ring_wr64(c, 1, cases[i].reg, cases[i].value);
		else
			client_ring_wr32(c, 1, cases[i].reg, cases[i].value);
		client_ring_wr32(c, 1, NPU_RING_CTRL, NPU_RING_CTRL_ENABLE);
		client_doorbell(c, 0);
		ASSERT_TRUE(client_ring_wait_status(c, 1, NPU_RING_STOPPED, T_MS));
		EXPECT_EQ(NPU_ERR_RING_CONFIG, client_ring_rd32(c, 1, NPU_RING_ERROR));
	}

	/* and without the privileged shadow array */
	ASSERT_TRUE(client_ctrl_ring_reset(c, 1));
	client_reg_wr64(c, NPU_SHADOW_BASE, 0);
	client_ring_wr32(c, 1, NPU_RING_CTRL, NPU_RING_CTRL_ENABLE);
	client_doorbell(c, 0);
	ASSERT_TRUE(client_ring_wait_status(c, 1, NPU_RING_STOPPED, T_MS));
	EXPECT_EQ(NPU_ERR_RING_CONFIG, client_ring_rd32(c, 1, NPU_RING_ERROR));
}

/*
 * Revoking a binding in use: the ring's bind_epoch shows the older epoch
 * until the transfer that looked the binding up is over, then 0; the next
 * command sees the revocation, and one that starts later shows the new
 * epoch.  A reset mid-transfer clears it too.
 */
TEST_F(direct, revocation_waits_for_the_transfer)
{
	struct client *c = &self->c;
	struct direct_ring *d = &self->d;
	struct npu_direct_cmd cmd;
	uint64_t epoch, t0;

	direct_bind(d, 0, NPU_BIND_DEVICE, 0, LONG_COPY_BYTES, 0);
	direct_bind(d, 1, NPU_BIND_DEVICE, LONG_COPY_DST, LONG_COPY_BYTES, 0);
	direct_bind(d, 2, NPU_BIND_DEVICE, LONG_COPY_DST, LONG_COPY_BYTES, 0);
	ASSERT_TRUE(direct_start(c, d, 1));

	cmd = dcmd(NPU_OP_COPY, 1, 0, 0, 0, LONG_COPY_BYTES);
	direct_push(c, d, &cmd);
	client_ring_submit(c, &d->r);
	ASSERT_TRUE(wait_mid_copy(c, 1, T_MS));

	/* the owner revokes binding 1, then looks */
	d->table->entries[1].kind = htole32(NPU_BIND_NONE);
	__atomic_store_n(&d->table->epoch, htole64(2), __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	epoch = le64toh(__atomic_load_n(&d->kshadow->bind_epoch, __ATOMIC_ACQUIRE));
	EXPECT_EQ(1, epoch);
	t0 = client_now_us();
	while (__atomic_load_n(&d->kshadow->bind_epoch, __ATOMIC_ACQUIRE) &&
	       client_now_us() - t0 < 10 * 1000 * 1000)
		usleep(100);
	EXPECT_EQ(0, le64toh(d->kshadow->bind_epoch));
	/* the ring got there only by finishing the copy */
	EXPECT_EQ(1, client_ring_rd32(c, 1, NPU_RING_HEAD));
	EXPECT_EQ(LONG_COPY_BYTES, client_ring_rd64(c, 1, NPU_RING_BYTES_DONE));

	/* a later transfer shows the new epoch; a reset ends it */
	cmd = dcmd(NPU_OP_COPY, 2, 0, 0, 0, LONG_COPY_BYTES);
	direct_push(c, d, &cmd);
	client_ring_submit(c, &d->r);
	t0 = client_now_us();
	while (client_ring_rd64(c, 1, NPU_RING_BYTES_DONE) == LONG_COPY_BYTES &&
	       client_now_us() - t0 < T_MS * 1000)
		usleep(100);
	EXPECT_EQ(2, le64toh(__atomic_load_n(&d->kshadow->bind_epoch, __ATOMIC_ACQUIRE)));
	ASSERT_TRUE(client_ctrl_ring_reset(c, 1));
	EXPECT_EQ(0, le64toh(d->kshadow->bind_epoch));

	/* and a command naming the revoked binding is refused */
	ASSERT_TRUE(direct_start(c, d, 1));
	cmd = dcmd(NPU_OP_COPY, 1, 0, 0, 0, 4096);
	direct_push(c, d, &cmd);
	client_ring_submit(c, &d->r);
	ASSERT_TRUE(client_ring_wait_status(c, 1, NPU_RING_STOPPED, T_MS));
	EXPECT_EQ(NPU_ERR_ACCESS, client_ring_rd32(c, 1, NPU_RING_ERROR));
}

/*
 * The MMU (docs/hardware.md, "The MMU"): rings with an address space,
 * their page tables in guest RAM.  Virtual addresses start at MMU_VA, far
 * from any device offset, so an untranslated access could not pass.
 */
#define MMU_VA		(64ULL << 30)
#define PG		NPU_MMU_PAGE_SIZE

static bool mmu_run(struct client *c, struct client_ring *r, struct npu_cmd cmd,
		    int timeout_ms)
{
	return client_ring_run(c, r, &cmd, timeout_ms);
}

static uint64_t dev_leaf(uint64_t off, bool write)
{
	return off | NPU_PTE_VALID | NPU_PTE_LEAF | (write ? NPU_PTE_WRITE : 0) |
	       NPU_PTE_TARGET(NPU_PTE_DEVICE);
}

/* Ring idx (vector idx + 1) enabled in address space as. */
static bool mmu_ring(struct client *c, struct client_ring *r, unsigned int idx,
		     uint32_t as)
{
	client_ring_wr32(c, idx, NPU_RING_AS, as);
	return client_ring_setup(c, r, idx, 16, idx + 1);
}

/* pages device pages from off mapped at va, writable. */
static void mmu_map_dev(struct client *c, uint64_t root, uint64_t va,
			uint64_t off, unsigned int pages, bool write)
{
	unsigned int i;

	for (i = 0; i < pages; i++)
		client_pt_map(c, root, va + i * PG, 2, dev_leaf(off + i * PG, write));
}

/* The ring stopped on command index with a page fault of this kind at va. */
static bool mmu_faulted(struct client *c, unsigned int ring, uint32_t index,
			uint64_t va, unsigned int reason, bool write)
{
	uint64_t f;

	if (!client_ring_wait_status(c, ring, NPU_RING_STOPPED, T_MS) ||
	    client_ring_rd32(c, ring, NPU_RING_ERROR) != NPU_ERR_PAGE_FAULT ||
	    client_ring_rd32(c, ring, NPU_RING_ERROR_INDEX) != index)
		return false;
	f = client_ring_rd64(c, ring, NPU_RING_FAULT_ADDR);
	return (f & NPU_RING_FAULT_VA_MASK) == va &&
	       NPU_RING_FAULT_REASON(f) == reason &&
	       !!(f & NPU_RING_FAULT_WRITE) == write;
}

TEST_F(npu, mmu_identity_and_commands)
{
	struct client *c = &self->c;
	struct client_ring r;
	uint64_t root = client_pt_new(c);

	ASSERT_EQ(64, client_reg_rd32(c, NPU_MMU_NUM_AS));
	ASSERT_EQ(39, client_reg_rd32(c, NPU_MMU_VA_BITS));
	ASSERT_EQ(12, client_reg_rd32(c, NPU_MMU_PAGE_SHIFT));
	ASSERT_EQ(NPU_MMU_MAX_PEERS, client_reg_rd32(c, NPU_MMU_NUM_PEERS));
	ASSERT_EQ(0, client_reg_rd32(c, NPU_MMU_PEER_OPEN));
	EXPECT_EQ(0, client_ring_rd64(c, 0, NPU_RING_FAULT_ADDR));

	EXPECT_EQ(NPU_MMU_OK, client_mmu_cmd(c, NPU_MMU_SET_ROOT, 1, root, 0));
	EXPECT_EQ(NPU_MMU_OK, client_mmu_cmd(c, NPU_MMU_SET_ROOT, 64, root, 0));
	EXPECT_EQ(NPU_MMU_BAD_CMD, client_mmu_cmd(c, NPU_MMU_SET_ROOT, 0, root, 0));
	EXPECT_EQ(NPU_MMU_BAD_CMD, client_mmu_cmd(c, NPU_MMU_SET_ROOT, 65, root, 0));
	EXPECT_EQ(NPU_MMU_BAD_CMD, client_mmu_cmd(c, NPU_MMU_SET_ROOT, 1, root + 8, 0));
	/* a root outside host memory */
	EXPECT_EQ(NPU_MMU_BAD_CMD, client_mmu_cmd(c, NPU_MMU_SET_ROOT, 1, 3 * GiB, 0));
	EXPECT_EQ(NPU_MMU_OK, client_mmu_cmd(c, NPU_MMU_INVALIDATE, 1, MMU_VA, PG));
	EXPECT_EQ(NPU_MMU_BAD_CMD, client_mmu_cmd(c, NPU_MMU_INVALIDATE, 1,
						  1ULL << 39, PG));
	EXPECT_EQ(NPU_MMU_OK, client_mmu_cmd(c, NPU_MMU_INVALIDATE_ALL, 1, 0, 0));
	EXPECT_EQ(NPU_MMU_BAD_CMD, client_mmu_cmd(c, 0, 1, 0, 0));
	EXPECT_EQ(NPU_MMU_BAD_CMD, client_mmu_cmd(c, 99, 1, 0, 0));
	EXPECT_EQ(NPU_MMU_BAD_CMD, client_mmu_cmd(c, NPU_MMU_CLOSE_PEER,
						  NPU_MMU_MAX_PEERS, 0, 0));
	/* no --peer-dir: no peer to be found */
	client_reg_wr64(c, NPU_MMU_PEER_SERIAL(0), 0x5e41a1);
	EXPECT_EQ(NPU_MMU_NO_PEER, client_mmu_cmd(c, NPU_MMU_OPEN_PEER, 0, 0, 0));
	EXPECT_EQ(0, client_reg_rd32(c, NPU_MMU_PEER_OPEN));
	EXPECT_EQ(NPU_MMU_OK, client_mmu_cmd(c, NPU_MMU_SET_ROOT, 1, 0, 0));

	/* a ring in an address space the card lacks does not start */
	client_ring_wr32(c, 0, NPU_RING_AS, 65);
	ASSERT_TRUE(client_ctrl_ring_reset(c, 0));
	client_ring_wr64(c, 0, NPU_RING_BASE, client_host_alloc(c, 16 * 64, 64));
	client_ring_wr32(c, 0, NPU_RING_SIZE, 16);
	client_ring_wr32(c, 0, NPU_RING_VECTOR, 1);
	client_ring_wr32(c, 0, NPU_RING_CTRL, NPU_RING_CTRL_ENABLE);
	client_doorbell(c, 0);
	ASSERT_TRUE(client_ring_wait_status(c, 0, NPU_RING_STOPPED, T_MS));
	EXPECT_EQ(NPU_ERR_RING_CONFIG, client_ring_rd32(c, 0, NPU_RING_ERROR));

	/* an address space without a root: every access faults */
	ASSERT_TRUE(mmu_ring(c, &r, 1, 2));
	mmu_run(c, &r, client_cmd_fill(MMU_VA, 8, 1, 0), 0);
	EXPECT_TRUE(mmu_faulted(c, 1, 0, MMU_VA, NPU_PF_UNMAPPED, true));
	/* and a reset forgets the fault */
	ASSERT_TRUE(client_ctrl_ring_reset(c, 1));
	EXPECT_EQ(0, client_ring_rd64(c, 1, NPU_RING_FAULT_ADDR));
}

/*
 * COPY, FILL, FENCE (indirect value too), WAIT and TIMESTAMP through an
 * address space land in the device pages its tables name, not at the
 * offsets the virtual addresses would be.
 */
TEST_F(npu, mmu_translates_commands)
{
	struct client *c = &self->c;
	uint64_t root = client_pt_new(c), seed = test_seed(71);
	uint8_t src[3 * PG], *d;
	struct client_ring r;
	struct npu_cmd cmd;
	uint64_t dev = 5 * MiB;

	mmu_map_dev(c, root, MMU_VA, dev, 8, true);
	ASSERT_EQ(NPU_MMU_OK, client_mmu_cmd(c, NPU_MMU_SET_ROOT, 1, root, 0));
	ASSERT_TRUE(mmu_ring(c, &r, 0, 1));

	client_rnd_fill(&seed, src, sizeof(src));
	memcpy(client_dev_ptr(c, dev), src, sizeof(src));
	memset(client_dev_ptr(c, dev + 3 * PG), 0, 5 * PG);
	/* unaligned, across pages */
	ASSERT_TRUE(mmu_run(c, &r, client_cmd_copy(
		MMU_VA + 3 * PG + 100, MMU_VA + 7, 2 * PG + 1000, 0), T_MS));
	EXPECT_EQ(0, memcmp(client_dev_ptr(c, dev + 3 * PG + 100), src + 7,
			    2 * PG + 1000));
	ASSERT_TRUE(mmu_run(c, &r, client_cmd_fill(
		MMU_VA + 6 * PG - 10, 20, 0xa5, 0), T_MS));
	d = client_dev_ptr(c, dev + 6 * PG - 10);
	EXPECT_EQ(0xa5, d[0]);
	EXPECT_EQ(0xa5, d[19]);

	client_word_wr(client_dev_ptr(c, dev + 7 * PG + 8), 4242);
	ASSERT_TRUE(mmu_run(c, &r, client_cmd_fence(
		MMU_VA + 7 * PG, MMU_VA + 7 * PG + 8, NPU_CMD_VALUE_INDIRECT), T_MS));
	EXPECT_EQ(4242, client_word_rd(client_dev_ptr(c, dev + 7 * PG)));
	ASSERT_TRUE(mmu_run(c, &r, client_cmd_wait(
		MMU_VA + 7 * PG, 4242, NPU_WAIT_EQ, 0), T_MS));
	ASSERT_TRUE(mmu_run(c, &r, client_cmd_timestamp(
		MMU_VA + 7 * PG + 16, 0), T_MS));
	EXPECT_NE(0, client_word_rd(client_dev_ptr(c, dev + 7 * PG + 16)));
	/* a WAIT that waits, and goes on when a host store meets it */
	cmd = client_cmd_wait(MMU_VA + 7 * PG + 24, 1, NPU_WAIT_EQ, 0);
	client_ring_push(c, &r, &cmd);
	client_ring_submit(c, &r);
	ASSERT_TRUE(client_ring_wait_status(c, 0, NPU_RING_WAITING, T_MS));
	client_word_wr(client_dev_ptr(c, dev + 7 * PG + 24), 1);
	ASSERT_TRUE(client_ring_wait_head(c, &r, r.tail, T_MS));
	EXPECT_EQ(0, client_ring_rd32(c, 0, NPU_RING_ERROR));
	/* the virtual address space ends at 2^39 */
	mmu_run(c, &r, client_cmd_fill(
		(1ULL << 39) - 8, 16, 1, 0), 0);
	ASSERT_TRUE(client_ring_wait_status(c, 0, NPU_RING_STOPPED, T_MS));
	EXPECT_EQ(NPU_ERR_DEV_ADDR, client_ring_rd32(c, 0, NPU_RING_ERROR));
}

/*
 * Unmapped pages and read-only pages fault with the address, the reason
 * and the direction; a read of a read-only page works; nothing is
 * written by a command that faults before it moved a byte.
 */
TEST_F(npu, mmu_faults)
{
	struct client *c = &self->c;
	uint64_t root = client_pt_new(c);
	struct client_ring r;
	struct npu_cmd cmd;
	uint64_t dev = 1 * MiB;
	uint8_t *d = client_dev_ptr(c, dev);

	mmu_map_dev(c, root, MMU_VA, dev, 2, true);
	mmu_map_dev(c, root, MMU_VA + 2 * PG, dev + 2 * PG, 1, false);
	ASSERT_EQ(NPU_MMU_OK, client_mmu_cmd(c, NPU_MMU_SET_ROOT, 3, root, 0));

	/* read from a read-only page: fine */
	memset(d, 0, 3 * PG);
	memset(d + 2 * PG, 0x5a, PG);
	ASSERT_TRUE(mmu_ring(c, &r, 0, 3));
	ASSERT_TRUE(mmu_run(c, &r, client_cmd_copy(
		MMU_VA, MMU_VA + 2 * PG, 64, 0), T_MS));
	EXPECT_EQ(0x5a, d[63]);

	/* a write that reaches into it: faults at its first byte there */
	mmu_run(c, &r, client_cmd_fill(
		MMU_VA + PG, 2 * PG, 1, 0), 0);
	ASSERT_TRUE(mmu_faulted(c, 0, 1, MMU_VA + 2 * PG, NPU_PF_READ_ONLY, true));
	EXPECT_EQ(0, d[PG]);
	EXPECT_EQ(0x5a, d[2 * PG]);

	/* a read past the mapping */
	ASSERT_TRUE(mmu_ring(c, &r, 0, 3));
	cmd = client_cmd_nop(0);
	client_ring_push(c, &r, &cmd);
	mmu_run(c, &r, client_cmd_copy(
		MMU_VA, MMU_VA + 2 * PG + 8, PG, 0), 0);
	ASSERT_TRUE(mmu_faulted(c, 0, 1, MMU_VA + 3 * PG, NPU_PF_UNMAPPED, false));

	/* FENCE and WAIT words, and a BRANCH's in a program */
	ASSERT_TRUE(mmu_ring(c, &r, 0, 3));
	mmu_run(c, &r, client_cmd_fence(
		MMU_VA + 2 * PG, 1, 0), 0);
	ASSERT_TRUE(mmu_faulted(c, 0, 0, MMU_VA + 2 * PG, NPU_PF_READ_ONLY, true));
	ASSERT_TRUE(mmu_ring(c, &r, 0, 3));
	mmu_run(c, &r, client_cmd_wait(
		MMU_VA + 9 * PG, 1, NPU_WAIT_EQ, 0), 0);
	ASSERT_TRUE(mmu_faulted(c, 0, 0, MMU_VA + 9 * PG, NPU_PF_UNMAPPED, false));
	ASSERT_TRUE(mmu_ring(c, &r, 0, 3));
	mmu_run(c, &r, client_cmd_timestamp(dev, 0), 0);
	ASSERT_TRUE(mmu_faulted(c, 0, 0, dev, NPU_PF_UNMAPPED, true));
}

/*
 * The card checks a range a GiB of VA at a time: ranges that cross a GiB
 * of VA get the right bytes whether their pages follow each other in
 * device memory or not, and a fault deep in a long range names its page.
 */
TEST_F(npu, mmu_ranges_across_a_gib)
{
	struct client *c = &self->c;
	uint64_t root = client_pt_new(c), seed = test_seed(73);
	uint64_t va = MMU_VA + GiB - 8 * PG, dev = 2 * MiB;
	uint8_t src[5 * PG + 100], *d = client_dev_ptr(c, dev);
	uint64_t host = client_host_alloc(c, 15 * PG, 64);
	struct client_ring r;

	/* pages 0-15 in order, page 12 read-only, page 16 unmapped */
	mmu_map_dev(c, root, va, dev, 12, true);
	mmu_map_dev(c, root, va + 12 * PG, dev + 12 * PG, 1, false);
	mmu_map_dev(c, root, va + 13 * PG, dev + 13 * PG, 3, true);
	ASSERT_EQ(NPU_MMU_OK, client_mmu_cmd(c, NPU_MMU_SET_ROOT, 1, root, 0));
	ASSERT_TRUE(mmu_ring(c, &r, 0, 1));

	/* pages 0-5 to pages 6-11, across the GiB at page 8 */
	client_rnd_fill(&seed, src, sizeof(src));
	memset(d, 0, 16 * PG);
	memcpy(d + 3, src, sizeof(src));
	ASSERT_TRUE(mmu_run(c, &r, client_cmd_copy(
		va + 6 * PG + 3, va + 3, sizeof(src), 0), T_MS));
	EXPECT_EQ(0, memcmp(d + 6 * PG + 3, src, sizeof(src)));

	/* pages 9 and 10 swapped: each lands in the page its entry names */
	mmu_map_dev(c, root, va + 9 * PG, dev + 10 * PG, 1, true);
	mmu_map_dev(c, root, va + 10 * PG, dev + 9 * PG, 1, true);
	ASSERT_EQ(NPU_MMU_OK, client_mmu_cmd(c, NPU_MMU_INVALIDATE, 1, va + 9 * PG,
					     2 * PG));
	memset(d + 5 * PG, 0, 6 * PG);
	ASSERT_TRUE(mmu_run(c, &r, client_cmd_copy(
		va + 7 * PG, va, 4 * PG, 0), T_MS));
	EXPECT_EQ(0, memcmp(d + 7 * PG, d, PG));
	EXPECT_EQ(0, memcmp(d + 8 * PG, d + PG, PG));
	EXPECT_EQ(0, memcmp(d + 10 * PG, d + 2 * PG, PG));
	EXPECT_EQ(0, memcmp(d + 9 * PG, d + 3 * PG, PG));

	/* the read-only page read, then written from the GiB's near side */
	memcpy(d + 12 * PG, src, PG);
	ASSERT_TRUE(mmu_run(c, &r, client_cmd_copy(
		va, va + 7 * PG, 6 * PG, 0), T_MS));
	EXPECT_EQ(0, memcmp(d + 5 * PG, src, PG));
	d[4 * PG] = 0;
	mmu_run(c, &r, client_cmd_fill(va + 4 * PG, 10 * PG, 1, 0), 0);
	ASSERT_TRUE(mmu_faulted(c, 0, 3, va + 12 * PG, NPU_PF_READ_ONLY, true));
	EXPECT_EQ(0, d[4 * PG]);

	/* a read that runs off the end */
	ASSERT_TRUE(mmu_ring(c, &r, 0, 1));
	mmu_run(c, &r, client_cmd_copy(host, va + PG + 1, 15 * PG,
				       NPU_CMD_DST_HOST), 0);
	ASSERT_TRUE(mmu_faulted(c, 0, 0, va + 16 * PG, NPU_PF_UNMAPPED, false));
}

/* A program's BRANCH reads its word through the address space. */
TEST_F(npu, mmu_program_branch_word)
{
	struct client *c = &self->c;
	uint64_t root = client_pt_new(c);
	uint64_t desc = client_host_alloc(c, 128, 64);
	uint64_t chunk = client_host_alloc(c, 4 * 64, 64);
	struct npu_program_desc *pd = (void *)client_gpa_ptr(c, desc);
	struct npu_cmd *cmds = (void *)client_gpa_ptr(c, chunk);
	struct npu_cmd call = { .opcode = htole16(NPU_OP_CALL), .src = htole64(desc) };
	struct client_ring r;
	uint64_t dev = 3 * MiB;

	mmu_map_dev(c, root, MMU_VA, dev, 1, true);
	ASSERT_EQ(NPU_MMU_OK, client_mmu_cmd(c, NPU_MMU_SET_ROOT, 1, root, 0));
	memset(pd, 0, 128);
	pd->count = htole32(3);
	pd->chunks[0] = htole64(chunk);
	/* if *MMU_VA == 7 skip the FILL of the flag */
	cmds[0] = (struct npu_cmd) { .opcode = htole16(NPU_OP_BRANCH),
		.flags = htole16(NPU_CMD_SRC_IMM), .arg = htole32(NPU_BRANCH_EQ),
		.dst = htole64(MMU_VA), .src = htole64(7), .size = htole64(8),
		.value = htole64(2) };
	cmds[1] = client_cmd_fill(MMU_VA + 64, 8, 0xee, 0);
	cmds[2] = client_cmd_nop(0);
	client_word_wr(client_dev_ptr(c, dev), 7);
	client_word_wr(client_dev_ptr(c, dev + 64), 0);
	ASSERT_TRUE(mmu_ring(c, &r, 0, 1));
	ASSERT_TRUE(client_ring_run(c, &r, &call, T_MS));
	EXPECT_EQ(0, client_word_rd(client_dev_ptr(c, dev + 64)));
	client_word_wr(client_dev_ptr(c, dev), 8);
	ASSERT_TRUE(client_ring_run(c, &r, &call, T_MS));
	EXPECT_EQ(0xeeeeeeeeeeeeeeeeULL, client_word_rd(client_dev_ptr(c, dev + 64)));
	/* an unmapped word stops the ring on the CALL */
	cmds[0].dst = htole64(MMU_VA + PG);
	client_ring_run(c, &r, &call, 0);
	ASSERT_TRUE(mmu_faulted(c, 0, 2, MMU_VA + PG, NPU_PF_UNMAPPED, false));
}

/*
 * A buffer whose halves lie in non-adjacent device memory, and a 2 MiB
 * block: a COPY and an operator across the seam see one buffer.
 */
TEST_F(npu, mmu_scattered_buffer_and_block)
{
	struct client *c = &self->c;
	const unsigned int n = 2 * PG / 4;	/* floats: two pages a tensor */
	uint64_t root = client_pt_new(c), gpa = client_host_alloc(c, 4096, 64);
	uint64_t a = MMU_VA, b = MMU_VA + 2 * PG, y = MMU_VA + 4 * PG;
	uint64_t block = MMU_VA + 2 * MiB, size;
	struct client_ring r;
	unsigned int i, bad = 0;
	float *fa = malloc(n * 4), *fb = malloc(n * 4);

	ASSERT_NE(NULL, fa);
	ASSERT_NE(NULL, fb);
	/* six pages, each somewhere else, backwards */
	for (i = 0; i < 6; i++)
		client_pt_map(c, root, MMU_VA + i * PG, 2,
			      dev_leaf(8 * MiB - (i + 1) * 3 * PG, true));
	client_pt_map(c, root, block, 1, dev_leaf(10 * MiB, true));
	ASSERT_EQ(NPU_MMU_OK, client_mmu_cmd(c, NPU_MMU_SET_ROOT, 1, root, 0));
	ASSERT_TRUE(mmu_ring(c, &r, 0, 1));

	for (i = 0; i < n; i++) {
		fa[i] = i * 0.5f;
		fb[i] = 1000.0f - i;
	}
	/* the inputs go in through the block, then a COPY across the seams */
	memcpy(client_dev_ptr(c, 10 * MiB), fa, n * 4);
	memcpy(client_dev_ptr(c, 10 * MiB + n * 4), fb, n * 4);
	ASSERT_TRUE(mmu_run(c, &r, client_cmd_copy(
		a, block, 2 * n * 4, 0), T_MS));
	size = add_op(c, gpa, a, b, y, n);
	ASSERT_TRUE(mmu_run(c, &r, client_cmd_compute(
		gpa, size, NPU_CMD_SRC_HOST), T_MS));
	/* back through the block */
	ASSERT_TRUE(mmu_run(c, &r, client_cmd_copy(
		block + MiB, y, n * 4, 0), T_MS));
	for (i = 0; i < n; i++)
		bad += ((float *)client_dev_ptr(c, 11 * MiB))[i] != 1000.0f - i * 0.5f;
	EXPECT_EQ(0, bad);
	/* where the pages really are: y's second page is mapped page 5 */
	EXPECT_EQ(1000.0f - (n - 1) * 0.5f,
		  ((float *)client_dev_ptr(c, 8 * MiB - 18 * PG))[PG / 4 - 1]);

	/* an operator whose output reaches an unmapped page faults there */
	size = add_op(c, gpa, a, b, y + PG, n);
	mmu_run(c, &r, client_cmd_compute(
		gpa, size, NPU_CMD_SRC_HOST), 0);
	EXPECT_TRUE(mmu_faulted(c, 0, 3, MMU_VA + 6 * PG, NPU_PF_UNMAPPED, true));
	free(fa);
	free(fb);
}

/* Guest pages mapped into the space: the card reads and writes them in place. */
TEST_F(npu, mmu_host_pages)
{
	struct client *c = &self->c;
	uint64_t root = client_pt_new(c), seed = test_seed(72);
	uint64_t low = client_host_alloc(c, PG, PG);
	uint64_t high = client_host_alloc_high(c, PG, PG);
	uint8_t buf[PG];
	struct client_ring r;

	client_pt_map(c, root, MMU_VA, 2, low | NPU_PTE_VALID | NPU_PTE_LEAF |
		      NPU_PTE_WRITE | NPU_PTE_TARGET(NPU_PTE_HOST));
	client_pt_map(c, root, MMU_VA + PG, 2, high | NPU_PTE_VALID |
		      NPU_PTE_LEAF | NPU_PTE_WRITE | NPU_PTE_TARGET(NPU_PTE_HOST));
	mmu_map_dev(c, root, MMU_VA + 2 * PG, 0, 1, true);
	ASSERT_EQ(NPU_MMU_OK, client_mmu_cmd(c, NPU_MMU_SET_ROOT, 1, root, 0));
	ASSERT_TRUE(mmu_ring(c, &r, 0, 1));

	client_rnd_fill(&seed, buf, sizeof(buf));
	memcpy(client_gpa_ptr(c, low), buf, PG);
	ASSERT_TRUE(mmu_run(c, &r, client_cmd_copy(
		MMU_VA + 2 * PG, MMU_VA, PG, 0), T_MS));
	EXPECT_EQ(0, memcmp(client_dev_ptr(c, 0), buf, PG));
	ASSERT_TRUE(mmu_run(c, &r, client_cmd_copy(
		MMU_VA + PG, MMU_VA + 2 * PG, PG, 0), T_MS));
	EXPECT_EQ(0, memcmp(client_gpa_ptr(c, high), buf, PG));
	/* a host page outside guest RAM is a malformed entry */
	client_pt_map(c, root, MMU_VA + 3 * PG, 2, (3 * GiB) | NPU_PTE_VALID |
		      NPU_PTE_LEAF | NPU_PTE_TARGET(NPU_PTE_HOST));
	ASSERT_EQ(NPU_MMU_OK, client_mmu_cmd(c, NPU_MMU_INVALIDATE, 1,
					     MMU_VA + 3 * PG, PG));
	mmu_run(c, &r, client_cmd_fill(
		MMU_VA + 3 * PG, 8, 0, 0), 0);
	EXPECT_TRUE(mmu_faulted(c, 0, 2, MMU_VA + 3 * PG, NPU_PF_MALFORMED, true));
}

/*
 * Remapped and invalidated, a page is the new one for the next command;
 * INVALIDATE_ALL and an unmap too.  Without an invalidate the card may
 * use either, so nothing is asserted there.
 */
TEST_F(npu, mmu_remap_invalidate)
{
	struct client *c = &self->c;
	uint64_t root = client_pt_new(c);
	struct client_ring r;

	mmu_map_dev(c, root, MMU_VA, 1 * MiB, 1, true);
	ASSERT_EQ(NPU_MMU_OK, client_mmu_cmd(c, NPU_MMU_SET_ROOT, 1, root, 0));
	ASSERT_TRUE(mmu_ring(c, &r, 0, 1));
	memset(client_dev_ptr(c, 1 * MiB), 0, PG);
	memset(client_dev_ptr(c, 2 * MiB), 0, PG);

	ASSERT_TRUE(mmu_run(c, &r, client_cmd_fill(
		MMU_VA, 16, 0x11, 0), T_MS));
	mmu_map_dev(c, root, MMU_VA, 2 * MiB, 1, true);
	/* no invalidate: either page may be written (not asserted) */
	ASSERT_TRUE(mmu_run(c, &r, client_cmd_fill(
		MMU_VA + 16, 16, 0x22, 0), T_MS));
	ASSERT_EQ(NPU_MMU_OK, client_mmu_cmd(c, NPU_MMU_INVALIDATE, 1, MMU_VA + 100, 1));
	ASSERT_TRUE(mmu_run(c, &r, client_cmd_fill(
		MMU_VA + 32, 16, 0x33, 0), T_MS));
	EXPECT_EQ(0x11, client_dev_ptr(c, 1 * MiB)[0]);
	EXPECT_EQ(0x33, client_dev_ptr(c, 2 * MiB)[32]);
	EXPECT_EQ(0, client_dev_ptr(c, 1 * MiB)[32]);

	mmu_map_dev(c, root, MMU_VA, 3 * MiB, 1, true);
	ASSERT_EQ(NPU_MMU_OK, client_mmu_cmd(c, NPU_MMU_INVALIDATE_ALL, 1, 0, 0));
	memset(client_dev_ptr(c, 3 * MiB), 0, PG);
	ASSERT_TRUE(mmu_run(c, &r, client_cmd_fill(
		MMU_VA + 48, 16, 0x44, 0), T_MS));
	EXPECT_EQ(0x44, client_dev_ptr(c, 3 * MiB)[48]);
	EXPECT_EQ(0, client_dev_ptr(c, 2 * MiB)[48]);

	client_pt_map(c, root, MMU_VA, 2, 0);
	ASSERT_EQ(NPU_MMU_OK, client_mmu_cmd(c, NPU_MMU_INVALIDATE, 1, MMU_VA, PG));
	mmu_run(c, &r, client_cmd_fill(MMU_VA, 16, 0x55, 0), 0);
	EXPECT_TRUE(mmu_faulted(c, 0, 4, MMU_VA, NPU_PF_UNMAPPED, true));
	EXPECT_EQ(0x44, client_dev_ptr(c, 3 * MiB)[48]);
	EXPECT_EQ(0, client_dev_ptr(c, 3 * MiB)[0]);
}

/*
 * Two address spaces: a ring in one faults on what only the other maps,
 * and an untranslated ring still reaches device offsets as before.
 */
TEST_F(npu, mmu_isolation)
{
	struct client *c = &self->c;
	uint64_t root1 = client_pt_new(c), root2 = client_pt_new(c);
	struct client_ring r1, r2, r0;

	mmu_map_dev(c, root1, MMU_VA, 1 * MiB, 1, true);
	mmu_map_dev(c, root2, MMU_VA + PG, 2 * MiB, 1, true);
	ASSERT_EQ(NPU_MMU_OK, client_mmu_cmd(c, NPU_MMU_SET_ROOT, 1, root1, 0));
	ASSERT_EQ(NPU_MMU_OK, client_mmu_cmd(c, NPU_MMU_SET_ROOT, 2, root2, 0));
	ASSERT_TRUE(mmu_ring(c, &r1, 1, 1));
	ASSERT_TRUE(mmu_ring(c, &r2, 2, 2));
	ASSERT_TRUE(mmu_ring(c, &r0, 3, 0));
	memset(client_dev_ptr(c, 1 * MiB), 0, PG);
	memset(client_dev_ptr(c, 2 * MiB), 0, PG);

	ASSERT_TRUE(mmu_run(c, &r2, client_cmd_fill(
		MMU_VA + PG, 8, 0x22, 0), T_MS));
	mmu_run(c, &r1, client_cmd_fill(
		MMU_VA + PG, 8, 0x11, 0), 0);
	EXPECT_TRUE(mmu_faulted(c, 1, 0, MMU_VA + PG, NPU_PF_UNMAPPED, true));
	mmu_run(c, &r2, client_cmd_copy(
		MMU_VA + PG, MMU_VA, 8, 0), 0);
	EXPECT_TRUE(mmu_faulted(c, 2, 1, MMU_VA, NPU_PF_UNMAPPED, false));
	EXPECT_EQ(0x22, client_dev_ptr(c, 2 * MiB)[0]);
	EXPECT_EQ(0, client_dev_ptr(c, 1 * MiB)[0]);

	ASSERT_TRUE(mmu_run(c, &r0, client_cmd_copy(
		1 * MiB, 2 * MiB, 8, 0), T_MS));
	EXPECT_EQ(0x22, client_dev_ptr(c, 1 * MiB)[7]);
	EXPECT_EQ(0, client_ring_rd64(c, 3, NPU_RING_FAULT_ADDR));
}

/* Entries the card cannot use fault as malformed, each on its own page. */
TEST_F(npu, mmu_malformed_entries)
{
	const struct {
		const char *what;
		unsigned int level;
		uint64_t pte;
	} cases[] = {
		{ "reserved bit 3", 2, (1 * MiB) | NPU_PTE_VALID | NPU_PTE_LEAF | 8 },
		{ "reserved bit 11", 2, (1 * MiB) | NPU_PTE_VALID | NPU_PTE_LEAF | 0x800 },
		{ "bottom entry not a leaf", 2, (1 * MiB) | NPU_PTE_VALID },
		{ "target 3", 2, (1 * MiB) | NPU_PTE_VALID | NPU_PTE_LEAF |
				 NPU_PTE_TARGET(3) },
		{ "peer bits on a device leaf", 2, (1 * MiB) | NPU_PTE_VALID |
						   NPU_PTE_LEAF | NPU_PTE_PEER(1) },
		{ "beyond device memory", 2, (64 * MiB) | NPU_PTE_VALID | NPU_PTE_LEAF },
		{ "block misaligned", 1, (1 * MiB) | NPU_PTE_VALID | NPU_PTE_LEAF },
		{ "table outside host memory", 1, (3 * GiB) | NPU_PTE_VALID },
		{ "table with write", 1, client_pt_new(&self->c) | NPU_PTE_VALID |
					 NPU_PTE_WRITE },
		{ "peer window closed", 2, NPU_PTE_VALID | NPU_PTE_LEAF |
					   NPU_PTE_TARGET(NPU_PTE_PEER_MEM) },
	};
	struct client *c = &self->c;
	uint64_t root = client_pt_new(c);
	struct client_ring r;
	unsigned int i;

	ASSERT_EQ(NPU_MMU_OK, client_mmu_cmd(c, NPU_MMU_SET_ROOT, 1, root, 0));
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		/* each case in a 2 MiB region of its own */
		uint64_t va = MMU_VA + i * 2 * MiB;
		unsigned int want = i == ARRAY_SIZE(cases) - 1 ?
				    NPU_PF_PEER_CLOSED : NPU_PF_MALFORMED;

		self->step = cases[i].what;
		client_pt_map(c, root, va, cases[i].level, cases[i].pte);
		ASSERT_EQ(NPU_MMU_OK, client_mmu_cmd(c, NPU_MMU_INVALIDATE, 1, va,
						     2 * MiB));
		ASSERT_TRUE(mmu_ring(c, &r, 0, 1));
		mmu_run(c, &r, client_cmd_copy(
			va + 8, va + 16, 8, 0), 0);
		ASSERT_TRUE(mmu_faulted(c, 0, 0, va + 16, want, false));
	}
	self->step = NULL;
}

/*
 * A peer window: card B opens a window onto card A (both given one
 * --peer-dir), maps A's device memory, and copies between the two cards
 * byte for byte; closed, the window faults.
 */
TEST(mmu_peer_window)
{
	char dir[] = "/dev/shm/npu-peer-XXXXXX";
	struct client a, b;
	struct client_opts o;
	struct client_ring r;
	uint64_t root, seed = test_seed(73);
	uint8_t *buf = malloc(3 * MiB);
	unsigned int i;

	ASSERT_NE(NULL, buf);
	ASSERT_NE(NULL, mkdtemp(dir));
	client_default_opts(&o);
	o.peer_dir = dir;
	o.serial = 0xa;
	ASSERT_EQ(0, client_start(&a, &o));
	o.serial = 0xb;
	ASSERT_EQ(0, client_start(&b, &o));

	client_reg_wr64(&b, NPU_MMU_PEER_SERIAL(3), 0xa);
	ASSERT_EQ(NPU_MMU_OK, client_mmu_cmd(&b, NPU_MMU_OPEN_PEER, 3, 0, 0));
	EXPECT_EQ(1u << 3, client_reg_rd32(&b, NPU_MMU_PEER_OPEN));
	EXPECT_EQ(client_devmem_size(&a), client_reg_rd64(&b, NPU_MMU_PEER_SIZE(3)));
	client_reg_wr64(&b, NPU_MMU_PEER_SERIAL(4), 0xc);
	EXPECT_EQ(NPU_MMU_NO_PEER, client_mmu_cmd(&b, NPU_MMU_OPEN_PEER, 4, 0, 0));
	EXPECT_EQ(1u << 3, client_reg_rd32(&b, NPU_MMU_PEER_OPEN));

	/* VA [0, 2 MiB + 1 MiB): A's memory from 4 MiB, a block and pages */
	root = client_pt_new(&b);
	client_pt_map(&b, root, MMU_VA, 1, (4 * MiB) | NPU_PTE_VALID | NPU_PTE_LEAF |
		      NPU_PTE_WRITE | NPU_PTE_TARGET(NPU_PTE_PEER_MEM) | NPU_PTE_PEER(3));
	for (i = 0; i < 256; i++)
		client_pt_map(&b, root, MMU_VA + 2 * MiB + i * PG, 2,
			      (6 * MiB + i * PG) | NPU_PTE_VALID | NPU_PTE_LEAF |
			      NPU_PTE_WRITE | NPU_PTE_TARGET(NPU_PTE_PEER_MEM) |
			      NPU_PTE_PEER(3));
	mmu_map_dev(&b, root, MMU_VA + 8 * MiB, 8 * MiB, 1024, true);
	ASSERT_EQ(NPU_MMU_OK, client_mmu_cmd(&b, NPU_MMU_SET_ROOT, 1, root, 0));
	client_ring_wr32(&b, 0, NPU_RING_AS, 1);
	ASSERT_TRUE(client_ring_setup(&b, &r, 0, 16, 1));

	/* A to B, odd sizes and offsets, then B to A */
	client_rnd_fill(&seed, buf, 3 * MiB);
	memcpy(client_dev_ptr(&a, 4 * MiB), buf, 3 * MiB);
	ASSERT_TRUE(mmu_run(&b, &r, client_cmd_copy(
		MMU_VA + 8 * MiB + 3, MMU_VA + 1, 3 * MiB - 1, 0), T_MS));
	EXPECT_EQ(0, memcmp(client_dev_ptr(&b, 8 * MiB + 3), buf + 1, 3 * MiB - 1));
	memset(client_dev_ptr(&a, 4 * MiB), 0, 3 * MiB);
	ASSERT_TRUE(mmu_run(&b, &r, client_cmd_copy(
		MMU_VA + 5, MMU_VA + 8 * MiB + 4, 3 * MiB - 5, 0), T_MS));
	EXPECT_EQ(0, memcmp(client_dev_ptr(&a, 4 * MiB + 5), buf + 2, 3 * MiB - 5));

	/* closed, the window's pages fault; A's memory is left alone */
	ASSERT_EQ(NPU_MMU_OK, client_mmu_cmd(&b, NPU_MMU_CLOSE_PEER, 3, 0, 0));
	EXPECT_EQ(0, client_reg_rd32(&b, NPU_MMU_PEER_OPEN));
	EXPECT_EQ(0, client_reg_rd64(&b, NPU_MMU_PEER_SIZE(3)));
	mmu_run(&b, &r, client_cmd_fill(MMU_VA, 8, 0, 0), 0);
	EXPECT_TRUE(mmu_faulted(&b, 0, 2, MMU_VA, NPU_PF_PEER_CLOSED, true));
	EXPECT_EQ(0, memcmp(client_dev_ptr(&a, 4 * MiB + 5), buf + 2, 16));

	EXPECT_EQ(0, client_disconnect(&b, T_MS));
	EXPECT_EQ(0, client_disconnect(&a, T_MS));
	client_cleanup(&b);
	client_cleanup(&a);
	/* the cards took their links with them */
	EXPECT_EQ(0, rmdir(dir));
	free(buf);
}

/*
 * A global reset drops every root and window: a ring enabled in an
 * address space afterwards faults until the driver sets a root again.
 */
TEST_F(npu, mmu_global_reset)
{
	struct client *c = &self->c;
	uint64_t root = client_pt_new(c);
	struct client_ring r;

	mmu_map_dev(c, root, MMU_VA, 0, 1, true);
	ASSERT_EQ(NPU_MMU_OK, client_mmu_cmd(c, NPU_MMU_SET_ROOT, 1, root, 0));
	ASSERT_TRUE(client_ctrl_global_reset(c));
	EXPECT_EQ(64, client_reg_rd32(c, NPU_MMU_NUM_AS));
	ASSERT_TRUE(mmu_ring(c, &r, 0, 1));
	mmu_run(c, &r, client_cmd_fill(MMU_VA, 8, 0, 0), 0);
	EXPECT_TRUE(mmu_faulted(c, 0, 0, MMU_VA, NPU_PF_UNMAPPED, true));
	ASSERT_EQ(NPU_MMU_OK, client_mmu_cmd(c, NPU_MMU_SET_ROOT, 1, root, 0));
	ASSERT_TRUE(mmu_ring(c, &r, 0, 1));
	ASSERT_TRUE(mmu_run(c, &r, client_cmd_fill(
		MMU_VA, 8, 0x77, 0), T_MS));
	EXPECT_EQ(0x77, client_dev_ptr(c, 0)[7]);
}

/* Submit a command that is to fail: nothing to wait for. */
static void mmu_direct_submit(struct client *c, struct direct_ring *d,
			      struct npu_direct_cmd cmd)
{
	direct_push(c, d, &cmd);
	client_ring_submit(c, &d->r);
}

/*
 * A direct ring in an address space: its DEVICE bindings are virtual
 * addresses, translated page by page; a binding beyond the 2^39 bytes is
 * refused as any bad binding is.
 */
TEST_F(npu, mmu_direct_ring)
{
	struct client *c = &self->c;
	uint64_t root = client_pt_new(c);
	struct direct_ring d;
	uint8_t *p0 = client_dev_ptr(c, 9 * MiB), *p1 = client_dev_ptr(c, 7 * MiB);

	client_pt_map(c, root, MMU_VA, 2, dev_leaf(9 * MiB, true));
	client_pt_map(c, root, MMU_VA + PG, 2, dev_leaf(7 * MiB, true));
	client_pt_map(c, root, MMU_VA + 2 * PG, 2, dev_leaf(5 * MiB, false));
	ASSERT_EQ(NPU_MMU_OK, client_mmu_cmd(c, NPU_MMU_SET_ROOT, 4, root, 0));
	memset(p0, 0, PG);
	memset(p1, 0, PG);
	memset(client_dev_ptr(c, 5 * MiB), 0x3c, PG);

	direct_tables(c, &d);
	direct_bind(&d, 0, NPU_BIND_DEVICE, MMU_VA, 2 * PG, 0);
	direct_bind(&d, 1, NPU_BIND_DEVICE, MMU_VA + 2 * PG, PG, 0);
	direct_bind(&d, 2, NPU_BIND_DEVICE, MMU_VA + 3 * PG, PG, 0);
	direct_bind(&d, 3, NPU_BIND_DEVICE, (1ULL << 39) - PG, 2 * PG, 0);
	client_ring_wr32(c, 5, NPU_RING_AS, 4);
	ASSERT_TRUE(direct_start(c, &d, 5));

	/* across the seam of binding 0, from the read-only page */
	ASSERT_TRUE(direct_run(c, &d, dcmd(NPU_OP_COPY, 0, PG - 8, 1, 0, 16)));
	EXPECT_EQ(0x3c, p0[PG - 1]);
	EXPECT_EQ(0x3c, p1[7]);
	EXPECT_EQ(0, p1[8]);
	/* a write to the read-only binding */
	mmu_direct_submit(c, &d, dcmd(NPU_OP_FILL, 1, 8, 0, 0, 8));
	EXPECT_TRUE(mmu_faulted(c, 5, 1, MMU_VA + 2 * PG + 8, NPU_PF_READ_ONLY, true));
	/* a binding over unmapped pages */
	ASSERT_TRUE(direct_start(c, &d, 5));
	mmu_direct_submit(c, &d, dcmd(NPU_OP_COPY, 0, 0, 2, 0, 8));
	EXPECT_TRUE(mmu_faulted(c, 5, 0, MMU_VA + 3 * PG, NPU_PF_UNMAPPED, false));
	/* a binding past the address space */
	ASSERT_TRUE(direct_start(c, &d, 5));
	mmu_direct_submit(c, &d, dcmd(NPU_OP_FILL, 3, 0, 0, 0, 8));
	ASSERT_TRUE(client_ring_wait_status(c, 5, NPU_RING_STOPPED, T_MS));
	EXPECT_EQ(NPU_ERR_ACCESS, client_ring_rd32(c, 5, NPU_RING_ERROR));
}

/*
 * An INVALIDATE is not done while an access it concerns is in flight: an
 * operator that HANG_OP holds midway keeps GO set, while ring control and
 * other rings go on; the ring's reset ends the operator, and the command.
 */
TEST_F(npu, mmu_invalidate_waits_for_access)
{
	struct client *c = &self->c;
	const unsigned int n = 64;
	uint64_t root = client_pt_new(c), op = client_host_alloc(c, 4096, 64);
	struct client_ring r0, r1, r2;
	struct npu_cmd cmd;

	mmu_map_dev(c, root, MMU_VA, 0, 3, true);
	ASSERT_EQ(NPU_MMU_OK, client_mmu_cmd(c, NPU_MMU_SET_ROOT, 1, root, 0));
	fill_pair(c, 0, PG, n);
	cmd = client_cmd_compute(op, add_op(c, op, MMU_VA, MMU_VA + PG,
					    MMU_VA + 2 * PG, n), NPU_CMD_SRC_HOST);
	ASSERT_TRUE(mmu_ring(c, &r0, 0, 1));
	ASSERT_TRUE(mmu_ring(c, &r1, 1, 0));
	ASSERT_TRUE(client_ctrl_inject(c, 0, NPU_FAULT_HANG_OP, 0));
	client_ring_push(c, &r0, &cmd);
	client_ring_submit(c, &r0);
	/* it held an engine: it holds its address space */
	ASSERT_TRUE(reg_wait_above64(c, NPU_RING_REG(0, NPU_RING_COMPUTE_NS), 0, T_MS));

	client_reg_wr32(c, NPU_MMU_CMD, NPU_MMU_INVALIDATE);
	client_reg_wr32(c, NPU_MMU_CMD_INDEX, 1);
	client_reg_wr64(c, NPU_MMU_CMD_ADDR, MMU_VA);
	client_reg_wr64(c, NPU_MMU_CMD_SIZE, 3 * PG);
	client_reg_wr32(c, NPU_MMU_CMD_CTRL, NPU_MMU_CMD_CTRL_GO);
	client_doorbell(c, 0);
	ASSERT_TRUE(mmu_run(c, &r1, client_cmd_nop(0), T_MS));
	ASSERT_TRUE(mmu_ring(c, &r2, 2, 0));
	usleep(QUIET_MS * 1000);
	EXPECT_EQ(NPU_MMU_CMD_CTRL_GO, client_reg_rd32(c, NPU_MMU_CMD_CTRL));

	ASSERT_TRUE(client_ctrl_ring_reset(c, 0));
	ASSERT_TRUE(client_reg_wait32(c, NPU_MMU_CMD_CTRL, NPU_MMU_CMD_CTRL_GO, 0, T_MS));
	EXPECT_EQ(NPU_MMU_OK, client_reg_rd32(c, NPU_MMU_CMD_STATUS));
	/*
	 * And the operator runs whole once the ring is back; the fault may
	 * not have struck before the reset, so it is disarmed first.
	 */
	ASSERT_TRUE(client_ctrl_inject(c, 0, NPU_FAULT_CLEAR, 0));
	ASSERT_TRUE(mmu_ring(c, &r0, 0, 1));
	ASSERT_TRUE(client_ring_run(c, &r0, &cmd, T_MS));
	EXPECT_EQ(1000.0f - (n - 1) * 0.5f, dev_f32(c, 2 * PG)[n - 1]);
}

/* What mapping 2 MiB of pages and invalidating it costs (printed, not asserted). */
TEST_F(npu, mmu_map_cost)
{
	struct client *c = &self->c;
	uint64_t root = client_pt_new(c), t0, us;
	unsigned int round;

	ASSERT_EQ(NPU_MMU_OK, client_mmu_cmd(c, NPU_MMU_SET_ROOT, 1, root, 0));
	t0 = client_now_us();
	for (round = 0; round < 10; round++) {
		/* scattered pages one round, adjacent the next */
		uint64_t off = round % 2 ? 0 : 4 * MiB;
		unsigned int i;

		for (i = 0; i < 512; i++)
			client_pt_map(c, root, MMU_VA + i * PG, 2,
				      dev_leaf(off + (round % 2 ? i : 511 - i) * PG, true));
		ASSERT_EQ(NPU_MMU_OK, client_mmu_cmd(c, NPU_MMU_INVALIDATE, 1,
						     MMU_VA, 2 * MiB));
	}
	us = client_now_us() - t0;
	TH_LOG("map + invalidate of 2 MiB in 4 KiB pages: %llu us each",
	       (unsigned long long)us / 10);
}

TEST_HARNESS_MAIN
