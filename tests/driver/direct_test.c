// SPDX-License-Identifier: GPL-2.0-only
/*
 * Direct streams: userspace writes the ring, the card checks each command
 * against the context's bindings (handles) and slots.  Data moves, fences
 * land and wake waiters; what a context may not name fails only its own
 * stream; closing a handle waits out the transfer that uses it; a killed
 * process gives everything back.
 */

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "npu_test_ioctl.h"

/* A direct stream, its ring mapped. */
struct direct {
	struct drm_npu_stream_create s;
	struct drm_npu_direct_ctrl *ctrl;
	struct drm_npu_direct_cmd *cmds;
	uint32_t entries;
	size_t size;
};

static int direct_open(int fd, uint32_t entries, struct direct *d)
{
	struct drm_npu_stream_map map = { 0 };
	void *p;
	int ret;

	memset(d, 0, sizeof(*d));
	d->s.flags = DRM_NPU_STREAM_DIRECT;
	d->s.ring_entries = entries;
	ret = test_ioctl(fd, DRM_IOCTL_NPU_STREAM_CREATE, &d->s);
	if (ret)
		return ret;
	map.stream = d->s.id;
	ret = test_ioctl(fd, DRM_IOCTL_NPU_STREAM_MAP, &map);
	if (ret)
		return ret;
	p = mmap(NULL, map.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, map.mmap_offset);
	if (p == MAP_FAILED)
		return -errno;
	d->size = map.size;
	d->ctrl = p;
	d->cmds = (void *)((char *)p + 4096);
	d->entries = entries;
	return 0;
}

static void direct_close(struct direct *d)
{
	if (d->ctrl)
		munmap(d->ctrl, d->size);
}

static int direct_submit(int fd, struct direct *d, const struct drm_npu_direct_cmd *cmds,
			 unsigned int n)
{
	return test_direct_push(fd, d->s.id, d->ctrl, d->cmds, d->entries, cmds, n);
}

static struct drm_npu_direct_cmd dcopy(uint32_t dst_bind, uint64_t dst, uint32_t src_bind,
				       uint64_t src, uint64_t size)
{
	return (struct drm_npu_direct_cmd){ .op = DRM_NPU_DOP_COPY, .dst_bind = dst_bind,
					    .dst = dst, .src_bind = src_bind, .src = src,
					    .size = size };
}

static struct drm_npu_direct_cmd dfence(uint32_t slot, uint64_t value)
{
	return (struct drm_npu_direct_cmd){ .op = DRM_NPU_DOP_SLOT_WRITE, .dst_bind = slot,
					    .value = value };
}

static struct drm_npu_direct_cmd dcompute(uint32_t desc_bind, uint64_t offset, uint64_t size)
{
	return (struct drm_npu_direct_cmd){ .op = DRM_NPU_DOP_COMPUTE, .src_bind = desc_bind,
					    .src = offset, .size = size };
}

/* An operator of up to three float32 tensors, each named by binding and offset. */
struct dop {
	struct npu_op_desc h;
	struct npu_tensor_desc t[3];
};

static void dop_tensor(struct dop *op, unsigned int i, uint32_t bind, uint64_t offset,
		       unsigned int ndims, const uint64_t *dims)
{
	test_tensor_dense(&op->t[i], offset, NPU_DTYPE_F32, ndims, dims);
	op->t[i].bind = htole16(bind);
}

/* y[2][3][8] = a[2][3][8] + b[1][3][1]: a broadcast, three buffers. */
static size_t dop_add(struct dop *op, uint32_t a_bind, uint64_t a, uint32_t b_bind, uint64_t b,
		      uint32_t y_bind, uint64_t y)
{
	static const uint64_t full[3] = { 2, 3, 8 }, per_row[3] = { 1, 3, 1 };

	memset(op, 0, sizeof(*op));
	op->h.kind = htole16(NPU_OPERATOR_BINARY);
	op->h.num_inputs = 2;
	op->h.num_outputs = 1;
	op->h.attrs.binary.kind = htole32(NPU_BINARY_ADD);
	dop_tensor(op, 0, a_bind, a, 3, full);
	dop_tensor(op, 1, b_bind, b, 3, per_row);
	dop_tensor(op, 2, y_bind, y, 3, full);
	return sizeof(op->h) + 3 * sizeof(op->t[0]);
}

/* y[m][n] = a[m][k] b[k][n] */
static size_t dop_matmul(struct dop *op, uint32_t a_bind, uint32_t b_bind, uint32_t y_bind,
			 uint64_t m, uint64_t k, uint64_t n)
{
	const uint64_t ad[2] = { m, k }, bd[2] = { k, n }, yd[2] = { m, n };
	float one = 1.0f;
	uint32_t bits;

	memcpy(&bits, &one, sizeof(bits));
	memset(op, 0, sizeof(*op));
	op->h.kind = htole16(NPU_OPERATOR_MATMUL);
	op->h.num_inputs = 2;
	op->h.num_outputs = 1;
	op->h.attrs.matmul.alpha = htole32(bits);
	dop_tensor(op, 0, a_bind, 0, 2, ad);
	dop_tensor(op, 1, b_bind, 0, 2, bd);
	dop_tensor(op, 2, y_bind, 0, 2, yd);
	return sizeof(op->h) + 3 * sizeof(op->t[0]);
}

static void *host_map(int fd, const struct drm_npu_bo_create *bo)
{
	void *p = mmap(NULL, bo->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, bo->mmap_offset);

	return p == MAP_FAILED ? NULL : p;
}

FIXTURE(direct) {
	struct test_card card;
	struct direct d;
	struct drm_npu_bo_create dev, host_in, host_out;
	uint8_t *in, *out;
	long hang_timeout;	/* -1, or hang_timeout_ms before a test changed it */
};

FIXTURE_SETUP(direct)
{
	int fd;

	self->hang_timeout = -1;
	ASSERT_EQ(0, test_card_open(&self->card, 0));
	fd = self->card.fd;
	ASSERT_EQ(0, direct_open(fd, 64, &self->d));
	ASSERT_EQ(0, test_bo_create(fd, 1 << 20, DRM_NPU_BO_DEVICE, &self->dev));
	ASSERT_EQ(0, test_bo_create(fd, 256 << 10, DRM_NPU_BO_HOST, &self->host_in));
	ASSERT_EQ(0, test_bo_create(fd, 256 << 10, DRM_NPU_BO_HOST, &self->host_out));
	self->in = host_map(fd, &self->host_in);
	self->out = host_map(fd, &self->host_out);
	ASSERT_NE(NULL, self->in);
	ASSERT_NE(NULL, self->out);
}

/* What a test changed, also when it stopped half-way. */
FIXTURE_TEARDOWN(direct)
{
	test_clear_faults(self->card.bdf);
	if (self->hang_timeout >= 0)
		test_set_driver_param("hang_timeout_ms", self->hang_timeout);
	munmap(self->in, self->host_in.size);
	munmap(self->out, self->host_out.size);
	direct_close(&self->d);
	test_card_close(&self->card);
}

/*
 * Host to device to host through bindings, a fill, fences that a WAIT
 * sleeps on, and a timestamp; the ring's head follows in the control page.
 */
TEST_F(direct, copies_fills_and_fences)
{
	int fd = self->card.fd;
	struct direct *d = &self->d;
	struct drm_npu_direct_cmd cmds[4];
	uint32_t event;
	unsigned int i;

	test_fill_random(self->in, self->host_in.size, 7);
	memset(self->out, 0, self->host_out.size);
	ASSERT_EQ(0, test_slot_alloc(fd, &event));

	cmds[0] = dcopy(self->dev.handle, 100, self->host_in.handle, 5000, 200000);
	cmds[1] = dcopy(self->host_out.handle, 3, self->dev.handle, 100, 200000);
	cmds[2] = dfence(d->s.slot, 1);
	ASSERT_EQ(0, direct_submit(fd, d, cmds, 3));
	ASSERT_EQ(0, test_wait(fd, d->s.slot, 1, 20000));
	EXPECT_EQ(0, memcmp(self->out + 3, self->in + 5000, 200000));
	EXPECT_EQ(0, self->out[2]);
	EXPECT_EQ(0, self->out[200003]);

	cmds[0] = (struct drm_npu_direct_cmd){ .op = DRM_NPU_DOP_FILL, .dst_bind = self->dev.handle,
					       .dst = 64, .size = 1000, .arg = 0x5a };
	cmds[1] = dcopy(self->host_out.handle, 0, self->dev.handle, 0, 2048);
	cmds[2] = (struct drm_npu_direct_cmd){ .op = DRM_NPU_DOP_TIMESTAMP, .dst_bind = event };
	cmds[3] = dfence(event, 9);
	ASSERT_EQ(0, direct_submit(fd, d, cmds, 4));
	ASSERT_EQ(0, test_wait(fd, event, 9, 20000));
	for (i = 64; i < 1064; i++)
		ASSERT_EQ(0x5a, self->out[i]);
	EXPECT_EQ(0, self->out[63]);
	EXPECT_NE(0, self->card.fence[event].timestamp);
	EXPECT_EQ(7, __atomic_load_n(&d->ctrl->head, __ATOMIC_ACQUIRE));
	EXPECT_EQ(1, self->card.fence[d->s.slot].value);
}

/* A ring that waits on a slot goes on when the CPU signals it. */
TEST_F(direct, waits_on_a_slot)
{
	int fd = self->card.fd;
	struct direct *d = &self->d;
	struct drm_npu_direct_cmd cmds[2] = {
		{ .op = DRM_NPU_DOP_SLOT_WAIT, .value = 3, .arg = DRM_NPU_WAIT_GEQ },
		dfence(d->s.slot, 5),
	};
	uint32_t event;

	ASSERT_EQ(0, test_slot_alloc(fd, &event));
	cmds[0].dst_bind = event;
	ASSERT_EQ(0, direct_submit(fd, d, cmds, 2));
	EXPECT_EQ(-ETIME, test_wait(fd, d->s.slot, 5, 50));
	ASSERT_EQ(0, test_slot_op(fd, DRM_IOCTL_NPU_SLOT_SIGNAL, event, 3));
	EXPECT_EQ(0, test_wait(fd, d->s.slot, 5, 20000));
}

/* Destroying a direct stream stops its ring at once, even one that waits forever. */
TEST_F(direct, destroy_stops_the_ring)
{
	int fd = self->card.fd;
	struct test_baseline before = test_read_baseline(self->card.bdf), after;
	struct drm_npu_direct_cmd wait = { .op = DRM_NPU_DOP_SLOT_WAIT, .value = 1 };
	struct direct d;
	uint32_t event;

	ASSERT_EQ(0, test_slot_alloc(fd, &event));
	ASSERT_EQ(0, direct_open(fd, 16, &d));
	wait.dst_bind = event;
	ASSERT_EQ(0, direct_submit(fd, &d, &wait, 1));
	after = test_read_baseline(self->card.bdf);
	EXPECT_EQ(before.rings + 1, after.rings);
	{
		char state[32] = "";
		int ring = test_stream_ring(self->card.bdf, d.s.id);

		ASSERT_GE(ring, 0);
		test_stream_attr(self->card.bdf, ring, "state", state, sizeof(state));
		EXPECT_EQ(0, strncmp(state, "direct", 6));
	}
	EXPECT_EQ(0, test_stream_destroy(fd, d.s.id, 0));
	after = test_read_baseline(self->card.bdf);
	EXPECT_EQ(before.rings, after.rings);
	/* the mapping outlives the stream; the card no longer reads it */
	d.ctrl->tail = 0;
	direct_close(&d);
}

/*
 * What the context may not name fails its stream, as the card's errors
 * do, and nothing else: another stream of the context goes on, and the
 * target is untouched.
 */
TEST_F(direct, refused_commands_fail_only_the_stream)
{
	struct test_card other;
	struct drm_npu_bo_create theirs;
	struct drm_npu_stream_create plain;
	uint64_t nbind = 0;
	struct {
		const char *name;
		struct drm_npu_direct_cmd cmd;
	} cases[] = {
		{ "range past the buffer", dcopy(0, (1 << 20) - 8, 0, 0, 16) },
		{ "no such handle", dcopy(0, 0, 0, 0, 16) },
		{ "handle past the bindings", dcopy(0, 0, 0, 0, 16) },
		{ "slot past the area", dfence(1 << 20, 1) },
		{ "an unknown opcode", { .op = 8 } },
		{ "a flag", { .op = DRM_NPU_DOP_NOP, .flags = 1 } },
		{ "pad", { .op = DRM_NPU_DOP_NOP, .pad = { 0, 1 } } },
		{ "size 0", dcopy(0, 0, 0, 0, 0) },
		{ "their handle", dcopy(0, 0, 0, 0, 16) },
	};
	int fd = self->card.fd;
	unsigned int i;
	int ret;

	ASSERT_EQ(0, test_param(fd, DRM_NPU_PARAM_DIRECT_BINDINGS, &nbind));
	ASSERT_EQ(1024, nbind);
	ASSERT_EQ(0, test_card_open(&other, 0));
	/* theirs: a handle number this context has no buffer under */
	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, test_bo_create(other.fd, 4096, DRM_NPU_BO_DEVICE, &theirs));
	cases[0].cmd.dst_bind = self->dev.handle;
	cases[0].cmd.src_bind = self->dev.handle;
	cases[1].cmd.dst_bind = 900;
	cases[1].cmd.src_bind = self->dev.handle;
	cases[2].cmd.dst_bind = nbind;
	cases[2].cmd.src_bind = self->dev.handle;
	cases[7].cmd.dst_bind = self->dev.handle;
	cases[7].cmd.src_bind = self->dev.handle;
	cases[8].cmd.dst_bind = theirs.handle;
	cases[8].cmd.src_bind = self->dev.handle;
	ASSERT_GT(theirs.handle, self->host_out.handle);
	ASSERT_EQ(0, test_stream_create(fd, 0, 0, &plain));

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct direct d;
		struct drm_npu_direct_cmd cmds[2] = { cases[i].cmd, dfence(0, 1) };

		ASSERT_EQ(0, direct_open(fd, 16, &d));
		cmds[1].dst_bind = d.s.slot;
		/* the ring, still watching since it was enabled, may fail before our kick */
		ret = direct_submit(fd, &d, cmds, 2);
		ASSERT_TRUE(ret == 0 || ret == -EIO) TH_LOG("case %u: %d", i, ret);
		EXPECT_EQ(-EIO, test_wait(fd, d.s.slot, 1, 20000));
		EXPECT_EQ(DRM_NPU_ERR_REJECTED, self->card.fence[d.s.slot].error);
		EXPECT_EQ(0, self->card.fence[d.s.slot].value);
		/* a failed stream takes no kick */
		EXPECT_EQ(-EIO, test_ioctl(fd, DRM_IOCTL_NPU_STREAM_KICK,
					   &(struct drm_npu_stream_kick){ .stream = d.s.id }));
		direct_close(&d);
		EXPECT_EQ(0, test_stream_destroy(fd, d.s.id, 0));
	}
	/* the others go on */
	EXPECT_EQ(0, test_run(&self->card, &plain, test_cmd_fill(self->dev.addr, 1, 64, 0)));
	ASSERT_EQ(0, test_stream_create(other.fd, 0, 0, &plain));
	EXPECT_EQ(0, test_run(&other, &plain, test_cmd_fill(theirs.addr, 1, 64, 0)));
	test_card_close(&other);
}

/*
 * Events a direct ring was still to write when it stopped fail with it,
 * as those of a queued job do; events it wrote before, other events and
 * other streams' slots the ring names keep what they had.
 */
TEST_F(direct, events_behind_a_refused_command_fail)
{
	struct drm_npu_stream_create plain;
	uint32_t written, behind, untouched;
	struct drm_npu_direct_cmd cmds[5];
	int fd = self->card.fd;
	int ret;

	ASSERT_EQ(0, test_slot_alloc(fd, &written));
	ASSERT_EQ(0, test_slot_alloc(fd, &behind));
	ASSERT_EQ(0, test_slot_alloc(fd, &untouched));
	ASSERT_EQ(0, test_stream_create(fd, 0, 0, &plain));
	cmds[0] = dfence(written, 7);
	cmds[1] = dcopy(900, 0, self->dev.handle, 0, 16);	/* no such handle */
	cmds[2] = dfence(behind, 3);
	cmds[3] = dfence(plain.slot, 5);	/* a stream's slot: not an event's */
	cmds[4] = dfence(self->d.s.slot, 1);
	ret = direct_submit(fd, &self->d, cmds, 5);
	ASSERT_TRUE(ret == 0 || ret == -EIO);
	EXPECT_EQ(-EIO, test_wait(fd, self->d.s.slot, 1, 20000));
	EXPECT_EQ(DRM_NPU_ERR_REJECTED, self->card.fence[self->d.s.slot].error);

	EXPECT_EQ(0, test_wait(fd, written, 7, 1000));
	EXPECT_EQ(DRM_NPU_ERR_NONE, self->card.fence[written].error);
	EXPECT_EQ(-EIO, test_wait(fd, behind, 3, 1000));
	EXPECT_EQ(DRM_NPU_ERR_REJECTED, self->card.fence[behind].error);
	EXPECT_EQ(0, self->card.fence[behind].value);
	EXPECT_EQ(DRM_NPU_ERR_NONE, self->card.fence[untouched].error);
	EXPECT_EQ(DRM_NPU_ERR_NONE, self->card.fence[plain.slot].error);
	/* the plain stream goes on */
	EXPECT_EQ(0, test_run(&self->card, &plain, test_cmd_fill(self->dev.addr, 1, 64, 0)));
}

/* The uapi rules: sizes, flags, outputs, the wrong kind of stream. */
TEST_F(direct, uapi_errors)
{
	int fd = self->card.fd;
	struct drm_npu_stream_create plain, bad = { .flags = 2 };
	struct drm_npu_stream_map map = { .stream = self->d.s.id, .size = 1 };
	struct drm_npu_stream_kick kick = { .stream = self->d.s.id, .flags = 1 };
	struct drm_npu_cmd nop = { .op = DRM_NPU_OP_NOP };

	EXPECT_EQ(-EINVAL, test_ioctl(fd, DRM_IOCTL_NPU_STREAM_CREATE, &bad));
	EXPECT_EQ(-EINVAL, test_ioctl(fd, DRM_IOCTL_NPU_STREAM_MAP, &map));
	map = (struct drm_npu_stream_map){ .stream = self->d.s.id, .flags = 1 };
	EXPECT_EQ(-EINVAL, test_ioctl(fd, DRM_IOCTL_NPU_STREAM_MAP, &map));
	EXPECT_EQ(-EINVAL, test_ioctl(fd, DRM_IOCTL_NPU_STREAM_KICK, &kick));
	/* SUBMIT is for the driver's rings */
	EXPECT_EQ(-EINVAL, test_submit(fd, self->d.s.id, &nop, 1, 0, NULL));

	ASSERT_EQ(0, test_stream_create(fd, 0, 0, &plain));
	map = (struct drm_npu_stream_map){ .stream = plain.id };
	EXPECT_EQ(-EINVAL, test_ioctl(fd, DRM_IOCTL_NPU_STREAM_MAP, &map));
	kick = (struct drm_npu_stream_kick){ .stream = plain.id };
	EXPECT_EQ(-EINVAL, test_ioctl(fd, DRM_IOCTL_NPU_STREAM_KICK, &kick));
	map = (struct drm_npu_stream_map){ .stream = 4242 };
	EXPECT_EQ(-ENOENT, test_ioctl(fd, DRM_IOCTL_NPU_STREAM_MAP, &map));
	kick = (struct drm_npu_stream_kick){ .stream = 4242 };
	EXPECT_EQ(-ENOENT, test_ioctl(fd, DRM_IOCTL_NPU_STREAM_KICK, &kick));
}

/*
 * Closing a handle while the ring copies into it returns once that copy
 * is over, which lands whole; afterwards the handle names nothing, and a
 * command naming it fails the stream.
 */
TEST_F(direct, closing_a_handle_waits_for_its_transfer)
{
	int fd = self->card.fd;
	struct direct *d = &self->d;
	struct drm_npu_bo_create src, dst;
	struct drm_npu_direct_cmd cmds[3];
	uint64_t size = 64 << 20;
	int64_t t0;
	int ring;

	ASSERT_EQ(0, test_bo_create(fd, size, DRM_NPU_BO_DEVICE, &src));
	ASSERT_EQ(0, test_bo_create(fd, size, DRM_NPU_BO_DEVICE, &dst));
	ring = test_stream_ring(self->card.bdf, d->s.id);
	ASSERT_GE(ring, 0);
	cmds[0] = dfence(d->s.slot, 1);
	cmds[1] = dcopy(dst.handle, 0, src.handle, 0, size);
	cmds[2] = dfence(d->s.slot, 2);
	ASSERT_EQ(0, direct_submit(fd, d, cmds, 3));
	/* the copy is under way once the ring has moved some of it */
	t0 = test_now_ns();
	while (test_stream_attr(self->card.bdf, ring, "bytes", NULL, 0) <= 0 &&
	       test_now_ns() - t0 < 10000000000LL)
		usleep(100);
	ASSERT_EQ(0, test_bo_close(fd, dst.handle));
	EXPECT_EQ(0, test_wait(fd, d->s.slot, 2, 20000));

	cmds[0] = dcopy(dst.handle, 0, src.handle, 0, 64);
	cmds[1] = dfence(d->s.slot, 3);
	ASSERT_EQ(0, direct_submit(fd, d, cmds, 2));
	EXPECT_EQ(-EIO, test_wait(fd, d->s.slot, 3, 20000));
	EXPECT_EQ(DRM_NPU_ERR_REJECTED, self->card.fence[d->s.slot].error);
}

/*
 * A buffer with a second handle in the same file (flink, then open): the
 * binding is its first handle, revoked once; closing the second handle
 * later leaves alone the buffer that took the first handle's number.
 */
TEST_F(direct, second_handle_does_not_revoke_a_reused_number)
{
	int fd = self->card.fd;
	struct direct *d = &self->d;
	struct drm_npu_bo_create a, b;
	struct drm_gem_flink flink = { 0 };
	struct drm_gem_open open_arg = { 0 };
	struct drm_npu_direct_cmd cmds[2];
	int ret;

	ASSERT_EQ(0, test_bo_create(fd, 4096, DRM_NPU_BO_DEVICE, &a));
	flink.handle = a.handle;
	ret = test_ioctl(fd, DRM_IOCTL_GEM_FLINK, &flink);
	if (ret)
		SKIP(return, "no GEM_FLINK on this node (%d)", ret);
	open_arg.name = flink.name;
	ASSERT_EQ(0, test_ioctl(fd, DRM_IOCTL_GEM_OPEN, &open_arg));
	ASSERT_NE(a.handle, open_arg.handle);
	ASSERT_EQ(0, test_bo_close(fd, a.handle));
	ASSERT_EQ(0, test_bo_create(fd, 4096, DRM_NPU_BO_DEVICE, &b));
	if (b.handle != a.handle)
		SKIP(return, "the handle number was not reused");
	ASSERT_EQ(0, test_bo_close(fd, open_arg.handle));

	test_fill_random(self->in, 4096, 3);
	cmds[0] = dcopy(b.handle, 0, self->host_in.handle, 0, 4096);
	cmds[1] = dfence(d->s.slot, 1);
	ASSERT_EQ(0, direct_submit(fd, d, cmds, 2));
	EXPECT_EQ(0, test_wait(fd, d->s.slot, 1, 20000));
	EXPECT_EQ(0, self->card.fence[d->s.slot].error);
}

/*
 * A direct ring that holds commands and does not move is hung, as any
 * ring; one that has run all it was given is not, however long it idles.
 */
TEST_F(direct, hung_ring_is_declared)
{
	int fd = self->card.fd;
	struct drm_npu_direct_cmd cmds[2];
	char what[64];
	struct direct d;
	int ring;

	if (!test_can_inject(self->card.bdf))
		SKIP(return, "no fault injection (debugfs) on this machine");
	self->hang_timeout = test_driver_param("hang_timeout_ms");
	ASSERT_EQ(0, test_set_driver_param("hang_timeout_ms", 300));
	ASSERT_EQ(0, direct_open(fd, 16, &d));
	cmds[0] = dfence(d.s.slot, 1);
	ASSERT_EQ(0, direct_submit(fd, &d, cmds, 1));
	ASSERT_EQ(0, test_wait(fd, d.s.slot, 1, 20000));
	/* idle for several hang timeouts: not hung */
	usleep(1200 * 1000);
	EXPECT_EQ(0, self->card.fence[d.s.slot].error);

	ring = test_stream_ring(self->card.bdf, d.s.id);
	ASSERT_GE(ring, 0);
	snprintf(what, sizeof(what), "hang %d", ring);
	ASSERT_EQ(0, test_inject(self->card.bdf, what));
	cmds[0] = dcopy(self->dev.handle, 0, self->host_in.handle, 0, 4096);
	cmds[1] = dfence(d.s.slot, 2);
	ASSERT_EQ(0, direct_submit(fd, &d, cmds, 2));
	EXPECT_EQ(-EIO, test_wait(fd, d.s.slot, 2, 20000));
	EXPECT_EQ(DRM_NPU_ERR_HANG, self->card.fence[d.s.slot].error);
	snprintf(what, sizeof(what), "clear %d", ring);
	test_inject(self->card.bdf, what);
	direct_close(&d);
}

static uint64_t rnd_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Mostly near the edges of what is valid, sometimes anything. */
static uint64_t rnd_pick(uint64_t *x, uint64_t edge)
{
	switch (rnd_next(x) % 4) {
	case 0:
		return rnd_next(x) % (edge + 1);
	case 1:
		return edge + rnd_next(x) % 3 - 1;
	case 2:
		return rnd_next(x) % 64;
	default:
		return rnd_next(x);
	}
}

/*
 * Random direct commands: each ring completes or fails, never hangs;
 * another context's buffers keep their bytes, and the card goes on.
 */
TEST_F(direct, random_commands_touch_nothing_else)
{
	const char *env = getenv("NPU_FUZZ_SEED");
	uint64_t seed = env ? strtoull(env, NULL, 0) : (uint64_t)test_now_ns() | 1, x = seed;
	int fd = self->card.fd;
	struct drm_npu_stream_create theirs_s;
	struct drm_npu_bo_create theirs_d, theirs_h;
	struct test_card other;
	struct drm_npu_cmd cp;
	uint8_t *theirs_map;
	uint64_t nslots;
	int round, done = 0, failed = 0;

	TH_LOG("seed %#llx", (unsigned long long)seed);
	ASSERT_EQ(0, test_param(fd, DRM_NPU_PARAM_NUM_SLOTS, &nslots));
	ASSERT_EQ(0, test_card_open(&other, 0));
	ASSERT_EQ(0, test_stream_create(other.fd, 0, 0, &theirs_s));
	ASSERT_EQ(0, test_bo_create(other.fd, 1 << 20, DRM_NPU_BO_DEVICE, &theirs_d));
	ASSERT_EQ(0, test_bo_create(other.fd, 1 << 20, DRM_NPU_BO_HOST, &theirs_h));
	theirs_map = host_map(other.fd, &theirs_h);
	ASSERT_NE(NULL, theirs_map);
	test_fill_random(theirs_map, 1 << 20, 99);
	cp = test_cmd_copy(theirs_d.addr, 0, 1 << 20, DRM_NPU_CMD_SRC_HOST);
	cp.src_handle = theirs_h.handle;
	ASSERT_EQ(0, test_run(&other, &theirs_s, cp));

	for (round = 0; round < 40; round++) {
		struct drm_npu_direct_cmd cmds[9];
		uint32_t binds[4] = { self->dev.handle, self->host_in.handle,
				      self->host_out.handle, theirs_d.handle };
		uint64_t sizes[4] = { 1 << 20, 256 << 10, 256 << 10, 1 << 20 };
		int i, ret, n = 1 + (int)(rnd_next(&x) % 3);
		struct direct d;

		ASSERT_EQ(0, direct_open(fd, 16, &d));
		for (i = 0; i < n; i++) {
			struct drm_npu_direct_cmd *c = &cmds[i];
			unsigned int b = rnd_next(&x) % 8 ? rnd_next(&x) % 3 : 3;
			unsigned int b2 = rnd_next(&x) % 8 ? rnd_next(&x) % 3 : 3;
			uint64_t room = sizes[b] < sizes[b2] ? sizes[b] : sizes[b2];

			memset(c, 0, sizeof(*c));
			c->op = rnd_next(&x) % 8 ? rnd_next(&x) % 7 : rnd_next(&x) % 16;
			c->dst_bind = rnd_next(&x) % 8 ? binds[b] : (uint32_t)rnd_pick(&x, 1024);
			c->src_bind = rnd_next(&x) % 8 ? binds[b2] : (uint32_t)rnd_pick(&x, 1024);
			c->size = rnd_pick(&x, room / 2);
			c->dst = rnd_pick(&x, sizes[b] - c->size);
			c->src = rnd_pick(&x, sizes[b2] - c->size);
			if (c->op == DRM_NPU_DOP_SLOT_WRITE || c->op == DRM_NPU_DOP_TIMESTAMP ||
			    c->op == DRM_NPU_DOP_SLOT_WAIT) {
				c->dst_bind = (uint32_t)rnd_pick(&x, nslots);
				c->src_bind = rnd_next(&x) % 16 ? 0 : 1;
				c->size = c->dst = c->src = 0;
				/*
				 * A wait that is already true: nothing may block the ring
				 * for good. GEQ compares as (__s64)(slot - value), so a
				 * write with the top bit set would make GEQ 0 false.
				 */
				c->arg = c->op == DRM_NPU_DOP_SLOT_WAIT ? DRM_NPU_WAIT_GEQ : 0;
				c->value = c->op == DRM_NPU_DOP_SLOT_WAIT ? 0 :
					   rnd_next(&x) & INT64_MAX;
			} else if (c->op == DRM_NPU_DOP_COMPUTE) {
				/* an add whose tensors are anywhere, theirs too */
				struct dop op;
				uint64_t at = 4096 * (uint64_t)(i + 1);
				size_t size = dop_add(&op, binds[rnd_next(&x) % 4], 0,
						      binds[rnd_next(&x) % 4], 0,
						      binds[rnd_next(&x) % 4], 0);

				for (int t = 0; t < 3; t++)
					op.t[t].addr = htole64(rnd_pick(&x, sizes[b] - 192) & ~3ULL);
				if (!(rnd_next(&x) % 4))
					op.t[rnd_next(&x) % 3].dims[rnd_next(&x) % 3] =
						htole64(rnd_pick(&x, 1ULL << 20));
				memcpy(self->in + at, &op, size);
				c->src_bind = rnd_next(&x) % 8 ? self->host_in.handle : c->src_bind;
				c->src = rnd_next(&x) % 8 ? at : rnd_pick(&x, 256 << 10);
				c->size = rnd_next(&x) % 8 ? size : rnd_pick(&x, size);
				c->dst_bind = c->dst = c->arg = 0;
			} else {
				c->arg = rnd_next(&x) % 16 ? (uint32_t)(rnd_next(&x) & 0xff) :
							    (uint32_t)rnd_next(&x);
			}
			c->flags = rnd_next(&x) % 32 ? 0 : (uint16_t)rnd_next(&x);
			if (!(rnd_next(&x) % 32))
				c->pad[rnd_next(&x) % 2] = rnd_next(&x);
		}
		cmds[n] = dfence(d.s.slot, 1);
		/* a kick finds the stream failed if the watching ring was quicker */
		ret = direct_submit(fd, &d, cmds, n + 1);
		ASSERT_TRUE(ret == 0 || ret == -EIO) TH_LOG("round %d: kick %d", round, ret);
		ret = test_wait(fd, d.s.slot, 1, 20000);
		ASSERT_TRUE(ret == 0 || ret == -EIO) TH_LOG("round %d: %d", round, ret);
		if (ret)
			failed++;
		else
			done++;
		direct_close(&d);
		ASSERT_EQ(0, test_stream_destroy(fd, d.s.id, 0));
	}
	TH_LOG("%d rings completed, %d failed", done, failed);

	/* theirs is as it was, and both contexts still work */
	memset(theirs_map, 0, 1 << 20);
	cp = test_cmd_copy(0, theirs_d.addr, 1 << 20, DRM_NPU_CMD_DST_HOST);
	cp.dst_handle = theirs_h.handle;
	ASSERT_EQ(0, test_run(&other, &theirs_s, cp));
	{
		uint8_t *want = malloc(1 << 20);

		ASSERT_NE(NULL, want);
		test_fill_random(want, 1 << 20, 99);
		EXPECT_EQ(0, memcmp(want, theirs_map, 1 << 20));
		free(want);
	}
	munmap(theirs_map, 1 << 20);
	test_card_close(&other);
}

/*
 * Operators on a direct ring: the descriptor in a host buffer, then in a
 * device buffer; tensors in three device buffers, by binding and offset;
 * copies behind the operators see their results; the stream counts them.
 */
TEST_F(direct, operators_compute_on_bound_tensors)
{
	int fd = self->card.fd;
	struct direct *d = &self->d;
	struct drm_npu_bo_create a, b, y;
	struct drm_npu_direct_cmd cmds[8];
	float *in = (float *)self->in, *out = (float *)self->out;
	uint32_t host = self->host_in.handle;
	struct dop op;
	size_t size;
	int ring, i;

	ASSERT_EQ(0, test_bo_create(fd, 4096, DRM_NPU_BO_DEVICE, &a));
	ASSERT_EQ(0, test_bo_create(fd, 4096, DRM_NPU_BO_DEVICE, &b));
	ASSERT_EQ(0, test_bo_create(fd, 4096, DRM_NPU_BO_DEVICE, &y));
	ring = test_stream_ring(self->card.bdf, d->s.id);
	ASSERT_GE(ring, 0);
	for (i = 0; i < 48; i++)
		in[i] = (float)i * 0.5f - 7.0f;
	for (i = 0; i < 3; i++)
		in[64 + i] = 100.0f * (float)(i + 1);
	size = dop_add(&op, a.handle, 128, b.handle, 0, y.handle, 512);
	memcpy(self->in + 1024, &op, size);
	dop_add(&op, a.handle, 128, b.handle, 0, y.handle, 1024);
	memcpy(self->in + 2048, &op, size);
	memset(self->out, 0, 4096);

	cmds[0] = dcopy(a.handle, 128, host, 0, 48 * sizeof(float));
	cmds[1] = dcopy(b.handle, 0, host, 256, 3 * sizeof(float));
	cmds[2] = dcompute(host, 1024, size);
	cmds[3] = dcopy(self->dev.handle, 4096, host, 2048, size);
	cmds[4] = dcompute(self->dev.handle, 4096, size);
	cmds[5] = dcopy(self->host_out.handle, 0, y.handle, 512, 48 * sizeof(float));
	cmds[6] = dcopy(self->host_out.handle, 1024, y.handle, 1024, 48 * sizeof(float));
	cmds[7] = dfence(d->s.slot, 1);
	ASSERT_EQ(0, direct_submit(fd, d, cmds, 8));
	ASSERT_EQ(0, test_wait(fd, d->s.slot, 1, 20000));
	for (i = 0; i < 48; i++) {
		float want = in[i] + in[64 + (i / 8) % 3];

		ASSERT_EQ(want, out[i]) TH_LOG("element %d", i);
		ASSERT_EQ(want, out[256 + i]) TH_LOG("element %d, second run", i);
	}
	EXPECT_EQ(2, test_stream_attr(self->card.bdf, ring, "ops_done", NULL, 0));
	EXPECT_LT(0, test_stream_attr(self->card.bdf, ring, "compute_ns", NULL, 0));
}

/*
 * What a direct operator may not name stops only its stream, with the
 * error of the kind of fault: a binding's for what the tensors and the
 * descriptor name, the operator's for what it is.
 */
TEST_F(direct, refused_operators_fail_only_the_stream)
{
	int fd = self->card.fd;
	uint32_t host = self->host_in.handle;
	struct drm_npu_bo_create x, y;
	struct drm_npu_stream_create plain;
	struct dop op;
	size_t size = dop_add(&op, 0, 0, 0, 0, 0, 0);
	struct {
		const char *name;
		uint32_t error;
	} cases[] = {
		{ "a tensor past its buffer's end", DRM_NPU_ERR_REJECTED },
		{ "a tensor's offset past its buffer", DRM_NPU_ERR_REJECTED },
		{ "a tensor in a host buffer", DRM_NPU_ERR_REJECTED },
		{ "a tensor with no buffer", DRM_NPU_ERR_REJECTED },
		{ "a descriptor past its buffer", DRM_NPU_ERR_REJECTED },
		{ "a descriptor not aligned", DRM_NPU_ERR_OP_PARAM },
		{ "a descriptor of the wrong size", DRM_NPU_ERR_OP_PARAM },
		{ "an unknown binary function", DRM_NPU_ERR_OP_UNSUPPORTED },
		{ "shapes that do not broadcast", DRM_NPU_ERR_OP_PARAM },
		{ "a destination offset", DRM_NPU_ERR_REJECTED },
	};
	unsigned int i;
	int ret;

	ASSERT_EQ(0, test_bo_create(fd, 4096, DRM_NPU_BO_DEVICE, &x));
	ASSERT_EQ(0, test_bo_create(fd, 4096, DRM_NPU_BO_DEVICE, &y));
	ASSERT_EQ(0, test_stream_create(fd, 0, 0, &plain));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct drm_npu_direct_cmd cmds[2];
		struct direct d;

		/* y's last 192 bytes hold the output; the inputs are in x */
		dop_add(&op, x.handle, 0, x.handle, 1024, y.handle, 4096 - 192);
		cmds[0] = dcompute(host, 0, size);
		switch (i) {
		case 0:
			op.t[2].addr = htole64(4096 - 188);
			break;
		case 1:
			op.t[0].addr = htole64(4100);
			break;
		case 2:
			op.t[1].bind = htole16(self->host_out.handle);
			break;
		case 3:
			op.t[1].bind = htole16(900);
			break;
		case 4:
			cmds[0].src = (256 << 10) - 64;
			break;
		case 5:
			cmds[0].src = 8;
			break;
		case 6:
			cmds[0].size = size - sizeof(op.t[0]);
			break;
		case 7:
			op.h.attrs.binary.kind = htole32(99);
			break;
		case 8:
			op.t[1].dims[2] = htole64(4);
			break;
		case 9:
			cmds[0].dst = 64;
			break;
		}
		memcpy(self->in + (cmds[0].src % 64 ? 8 : 0), &op, size);
		ASSERT_EQ(0, direct_open(fd, 16, &d));
		cmds[1] = dfence(d.s.slot, 1);
		ret = direct_submit(fd, &d, cmds, 2);
		ASSERT_TRUE(ret == 0 || ret == -EIO) TH_LOG("%s: %d", cases[i].name, ret);
		EXPECT_EQ(-EIO, test_wait(fd, d.s.slot, 1, 20000)) TH_LOG("%s", cases[i].name);
		EXPECT_EQ(cases[i].error, self->card.fence[d.s.slot].error)
			TH_LOG("%s", cases[i].name);
		direct_close(&d);
		EXPECT_EQ(0, test_stream_destroy(fd, d.s.id, 0));
	}
	/* the well-formed operator runs, and the others go on */
	dop_add(&op, x.handle, 0, x.handle, 1024, y.handle, 4096 - 192);
	memcpy(self->in, &op, size);
	{
		struct drm_npu_direct_cmd cmds[2] = { dcompute(host, 0, size),
						      dfence(self->d.s.slot, 1) };

		ASSERT_EQ(0, direct_submit(fd, &self->d, cmds, 2));
		EXPECT_EQ(0, test_wait(fd, self->d.s.slot, 1, 20000));
	}
	EXPECT_EQ(0, test_run(&self->card, &plain, test_cmd_fill(self->dev.addr, 1, 64, 0)));
}

/*
 * Closing a handle while a direct operator writes into the buffer waits
 * for the operator: the memory a new buffer then gets is not written.
 */
TEST_F(direct, closing_a_handle_waits_for_its_operator)
{
	const uint64_t m = 2048, k = 2048, n = 2048;
	int fd = self->card.fd;
	struct direct *d = &self->d;
	struct drm_npu_bo_create a, b, y, reused;
	struct drm_npu_stream_create plain;
	struct drm_npu_direct_cmd cmds[3];
	struct drm_npu_cmd cp;
	uint32_t *back = (uint32_t *)self->out;
	struct dop op;
	size_t size;
	int64_t t0;
	int i, ring;

	ASSERT_EQ(0, test_bo_create(fd, m * k * 4, DRM_NPU_BO_DEVICE, &a));
	ASSERT_EQ(0, test_bo_create(fd, k * n * 4, DRM_NPU_BO_DEVICE, &b));
	ASSERT_EQ(0, test_bo_create(fd, m * n * 4, DRM_NPU_BO_DEVICE, &y));
	ASSERT_EQ(0, test_stream_create(fd, 0, 0, &plain));
	ring = test_stream_ring(self->card.bdf, d->s.id);
	ASSERT_GE(ring, 0);
	size = dop_matmul(&op, a.handle, b.handle, y.handle, m, k, n);
	memcpy(self->in, &op, size);
	cmds[0] = dfence(d->s.slot, 1);
	cmds[1] = dcompute(self->host_in.handle, 0, size);
	cmds[2] = dfence(d->s.slot, 2);
	ASSERT_EQ(0, direct_submit(fd, d, cmds, 3));
	/*
	 * Under way once it has held an engine (the fence before it lands
	 * sooner): a close before the lookup would leave the handle's number
	 * free for the next buffer, which the operator would then rightly use.
	 */
	ASSERT_EQ(0, test_wait(fd, d->s.slot, 1, 20000));
	t0 = test_now_ns();
	while (test_stream_attr(self->card.bdf, ring, "compute_ns", NULL, 0) <= 0 &&
	       test_now_ns() - t0 < 10000000000LL)
		usleep(100);
	/* some 17 GFLOP: still running */
	if (__atomic_load_n(&self->card.fence[d->s.slot].value, __ATOMIC_ACQUIRE) != 1)
		SKIP(return, "the operator ended before the close");
	ASSERT_EQ(0, test_bo_close(fd, y.handle));
	TH_LOG("closed: slot %llu, head %u",
	       (unsigned long long)__atomic_load_n(&self->card.fence[d->s.slot].value,
						   __ATOMIC_ACQUIRE),
	       __atomic_load_n(&d->ctrl->head, __ATOMIC_ACQUIRE));
	ASSERT_EQ(0, test_bo_create(fd, m * n * 4, DRM_NPU_BO_DEVICE, &reused));
	TH_LOG("the output was at %#llx, the new buffer is at %#llx",
	       (unsigned long long)y.addr, (unsigned long long)reused.addr);
	ASSERT_EQ(0, test_run(&self->card, &plain, test_cmd_fill(reused.addr, 0x5a, m * n * 4, 0)));
	EXPECT_EQ(0, test_wait(fd, d->s.slot, 2, 60000));
	EXPECT_EQ(0, self->card.fence[d->s.slot].error);
	/* its last 256 KiB, which an operator still running would write last */
	cp = test_cmd_copy(0, reused.addr + m * n * 4 - (256 << 10), 256 << 10,
			   DRM_NPU_CMD_DST_HOST);
	cp.dst_handle = self->host_out.handle;
	ASSERT_EQ(0, test_run(&self->card, &plain, cp));
	for (i = 0; i < (256 << 10) / 4 && back[i] == 0x5a5a5a5au; i++)
		;
	EXPECT_EQ((256 << 10) / 4, i) TH_LOG("word %d is %#x", i, back[i]);
}

/* A FAIL_OP fault takes a direct operator as it does any. */
TEST_F(direct, failed_operator_fails_the_stream)
{
	int fd = self->card.fd;
	struct direct *d = &self->d;
	struct drm_npu_bo_create x;
	struct drm_npu_direct_cmd cmds[2];
	char what[64];
	struct dop op;
	size_t size;
	int ring;

	if (!test_can_inject(self->card.bdf))
		SKIP(return, "no fault injection (debugfs) on this machine");
	ASSERT_EQ(0, test_bo_create(fd, 4096, DRM_NPU_BO_DEVICE, &x));
	size = dop_add(&op, x.handle, 0, x.handle, 1024, x.handle, 2048);
	memcpy(self->in, &op, size);
	ring = test_stream_ring(self->card.bdf, d->s.id);
	ASSERT_GE(ring, 0);
	snprintf(what, sizeof(what), "fail_op %d", ring);
	ASSERT_EQ(0, test_inject(self->card.bdf, what));
	cmds[0] = dcompute(self->host_in.handle, 0, size);
	cmds[1] = dfence(d->s.slot, 1);
	EXPECT_EQ(0, direct_submit(fd, d, cmds, 2));
	EXPECT_EQ(-EIO, test_wait(fd, d->s.slot, 1, 20000));
	EXPECT_EQ(DRM_NPU_ERR_OP_FAILED, self->card.fence[d->s.slot].error);
}

/* A process killed while its direct ring copies gives everything back. */
TEST_F(direct, killed_mid_copy_leaves_nothing)
{
	struct test_baseline before, after;
	int status;
	pid_t pid;

	before = test_read_baseline(self->card.bdf);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		struct test_card card;
		struct drm_npu_bo_create a, b, h;
		struct drm_npu_direct_cmd cmds[8];
		struct direct d;
		int i;

		if (test_card_open(&card, 0) || direct_open(card.fd, 64, &d) ||
		    test_bo_create(card.fd, 32 << 20, 0, &a) ||
		    test_bo_create(card.fd, 32 << 20, 0, &b) ||
		    test_bo_create(card.fd, 1 << 20, DRM_NPU_BO_HOST, &h))
			_exit(1);
		for (i = 0; i < 8; i++)
			cmds[i] = i % 2 ? dcopy(h.handle, 0, a.handle, 0, 1 << 20) :
					  dcopy(b.handle, 0, a.handle, 0, 32 << 20);
		for (i = 0; i < 4; i++)
			if (direct_submit(card.fd, &d, cmds, 8))
				_exit(1);
		pause();
		_exit(0);
	}
	usleep(200 * 1000);
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status));
	after = test_settled_baseline(self->card.bdf, &before);
	EXPECT_EQ(before.devmem, after.devmem);
	EXPECT_EQ(before.rings, after.rings);
	EXPECT_EQ(before.pinned, after.pinned);
}

TEST_HARNESS_MAIN
