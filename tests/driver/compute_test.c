// SPDX-License-Identifier: GPL-2.0-only
/*
 * Operators (DRM_NPU_OP_COMPUTE). The driver refuses every descriptor
 * whose structure is wrong or whose tensors leave the caller's buffers,
 * with the documented errno and nothing queued or held. The card computes
 * what plain C loops (compute_ref.h) compute, orders operators with the
 * stream's other work, fails a stream whose operator it refuses, fails or
 * hangs, and counts what it computed.
 */

#include <signal.h>
#include <stddef.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "npu_test_ioctl.h"
#include "npu_operator.h"
#include "compute_ref.h"

#define DESC_MAX	(sizeof(struct npu_op_desc) + \
			 NPU_OP_MAX_TENSORS * sizeof(struct npu_tensor_desc))
#define BUF_SIZE	(1u << 20)

/* A descriptor with room for every tensor, and some beyond. */
struct op {
	_Alignas(64) uint8_t bytes[DESC_MAX + 4096];
};

static struct npu_op_desc *desc_of(struct op *op)
{
	return (struct npu_op_desc *)op->bytes;
}

static struct npu_tensor_desc *tensor_of(struct op *op, unsigned int i)
{
	return &desc_of(op)->tensors[i];
}

static uint64_t desc_size(struct op *op)
{
	struct npu_op_desc *d = desc_of(op);

	return sizeof(*d) + (d->num_inputs + d->num_outputs) * sizeof(d->tensors[0]);
}

static void op_init(struct op *op, uint16_t kind, uint8_t inputs, uint8_t outputs)
{
	memset(op, 0, sizeof(*op));
	desc_of(op)->kind = kind;
	desc_of(op)->num_inputs = inputs;
	desc_of(op)->num_outputs = outputs;
}

/* A dense row-major tensor; returns its bytes. */
static uint64_t tensor_dense(struct npu_tensor_desc *t, uint64_t addr, uint16_t dtype,
			     unsigned int ndims, const uint64_t *dims)
{
	return test_tensor_dense(t, addr, dtype, ndims, dims) * NPU_DTYPE_SIZE(dtype);
}

static struct drm_npu_cmd compute_cmd(struct op *op, uint64_t size)
{
	return (struct drm_npu_cmd){ .op = DRM_NPU_OP_COMPUTE, .src = (uintptr_t)op->bytes,
				     .size = size };
}

FIXTURE(compute) {
	struct test_card card, other;
	struct drm_npu_stream_create stream;
	struct drm_npu_bo_create buf, theirs;
	uint64_t operators, dtypes, desc_max;
	uint64_t submitted;
	struct op op;
};

FIXTURE_SETUP(compute)
{
	ASSERT_EQ(0, test_card_open(&self->card, 0));
	ASSERT_EQ(0, test_card_open(&self->other, 0));
	ASSERT_EQ(0, test_param(self->card.fd, DRM_NPU_PARAM_OPERATORS, &self->operators));
	ASSERT_EQ(0, test_param(self->card.fd, DRM_NPU_PARAM_DTYPES, &self->dtypes));
	ASSERT_EQ(0, test_param(self->card.fd, DRM_NPU_PARAM_OP_DESC_MAX, &self->desc_max));
	if (!(self->operators & 1u << NPU_OPERATOR_UNARY) ||
	    !(self->dtypes & 1u << NPU_DTYPE_F32))
		SKIP(return, "the card runs no f32 UNARY operator");
	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &self->stream));
	ASSERT_EQ(0, test_bo_create(self->card.fd, BUF_SIZE, 0, &self->buf));
	ASSERT_EQ(0, test_bo_create(self->other.fd, BUF_SIZE, 0, &self->theirs));
}

FIXTURE_TEARDOWN(compute)
{
	test_card_close(&self->other);
	test_card_close(&self->card);
}

/* y = relu(x), 8 x 32 f32 each: x at @x, y at @y. */
static void unary_op(struct op *op, uint64_t x, uint64_t y)
{
	static const uint64_t dims[] = { 8, 32 };

	op_init(op, NPU_OPERATOR_UNARY, 1, 1);
	desc_of(op)->attrs.unary.fn.kind = NPU_UNARY_RELU;
	tensor_dense(tensor_of(op, 0), x, NPU_DTYPE_F32, 2, dims);
	tensor_dense(tensor_of(op, 1), y, NPU_DTYPE_F32, 2, dims);
}

static int submit_op(struct _test_data_compute *self, struct op *op, uint64_t size)
{
	struct drm_npu_cmd cmd = compute_cmd(op, size);

	return test_submit(self->card.fd, self->stream.id, &cmd, 1, 0, NULL);
}

/* The descriptor as it stands, at its own size. */
static int try(struct _test_data_compute *self)
{
	return submit_op(self, &self->op, desc_size(&self->op));
}

static void reset_op(struct _test_data_compute *self)
{
	unary_op(&self->op, self->buf.addr, self->buf.addr + 4096);
}

/*
 * Nothing reached the ring, and the stream still runs: a fill and a copy
 * back show the data the card wrote.
 */
static void stream_untouched(struct __test_metadata *_metadata,
			     struct _test_data_compute *self)
{
	uint8_t back[256], want[256];
	struct drm_npu_cmd cmds[2] = {
		test_cmd_fill(self->buf.addr + 8192, 0x5c, sizeof(back), 0),
		test_cmd_copy((uintptr_t)back, self->buf.addr + 8192, sizeof(back),
			     DRM_NPU_CMD_DST_USER),
	};
	uint64_t seq;

	EXPECT_EQ(0, test_stream_attr(self->card.bdf, test_stream_ring(self->card.bdf,
								   self->stream.id),
				      "submitted", NULL, 0));
	memset(want, 0x5c, sizeof(want));
	ASSERT_EQ(0, test_submit(self->card.fd, self->stream.id, cmds, 2, 0, &seq));
	EXPECT_EQ(1, seq);
	ASSERT_EQ(0, test_wait(self->card.fd, self->stream.slot, seq, 10000));
	EXPECT_EQ(0, memcmp(back, want, sizeof(back)));
	EXPECT_EQ(0, self->card.fence[self->stream.slot].error);
}

TEST_F(compute, capabilities_match_sysfs)
{
	uint64_t engines, version;

	ASSERT_EQ(0, test_param(self->card.fd, DRM_NPU_PARAM_NUM_COMPUTE_ENGINES, &engines));
	ASSERT_EQ(0, test_param(self->card.fd, DRM_NPU_PARAM_OPLIB_VERSION, &version));
	EXPECT_GE(engines, 1);
	EXPECT_EQ(test_card_attr(self->card.bdf, "num_compute_engines"), engines);
	EXPECT_EQ(test_card_attr(self->card.bdf, "operators"), self->operators);
	EXPECT_EQ(test_card_attr(self->card.bdf, "dtypes"), self->dtypes);
	/* Only what the uapi header names. */
	EXPECT_EQ(0, self->operators >> (NPU_OPERATOR_LAST + 1));
	EXPECT_EQ(0, self->dtypes >> (NPU_DTYPE_LAST + 1));
	EXPECT_GE(self->desc_max, sizeof(struct npu_op_desc) + 2 * sizeof(struct npu_tensor_desc));
	EXPECT_LE(self->desc_max, DESC_MAX);
}

TEST_F(compute, tensor_outside_own_buffers_is_eperm)
{
	/* The card's window is checked buffer by buffer; beyond 2^39, all is refused. */
	const uint64_t window = test_param_or_die(self->card.fd, DRM_NPU_PARAM_VA_WINDOW);
	const uint64_t addrs[] = {
		0, 64, DRM_NPU_DEVICE_ADDR_BASE - 64, window,
		~0ULL - 63, 1ULL << 63,
	};
	unsigned int i, t;

	for (t = 0; t < 2; t++) {
		for (i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++) {
			reset_op(self);
			/* The card's first bytes may be ours: skip a hit. */
			if (addrs[i] == self->buf.addr)
				continue;
			tensor_of(&self->op, t)->addr = addrs[i];
			EXPECT_EQ(-EPERM, try(self)) TH_LOG("tensor %u at %#llx", t,
							    (unsigned long long)addrs[i]);
		}
		/* Another context's buffer, wholly inside it. */
		reset_op(self);
		tensor_of(&self->op, t)->addr = self->theirs.addr + 4096;
		EXPECT_EQ(-EPERM, try(self));
	}
	stream_untouched(_metadata, self);
}

/* PACK_CONV2D of (16, 16, 3, 3) weights at @w into a PACKED tensor at @p. */
static void pack_op(struct op *op, uint64_t w, uint64_t p)
{
	static const uint64_t dims[] = { 16, 16, 3, 3 };
	struct npu_attr_pack_conv *a = &desc_of(op)->attrs.pack_conv;
	struct npu_tensor_desc *t;
	unsigned int d;

	op_init(op, NPU_OPERATOR_PACK_CONV2D, 1, 1);
	a->conv = (struct npu_attr_conv){ .strides = { 1, 1 }, .dilations = { 1, 1 },
					  .pads_begin = { 1, 1 }, .group = 1 };
	for (d = 0; d < 4; d++)
		a->x_dims[d] = a->y_dims[d] = d ? (d == 1 ? 16 : 8) : 1;
	tensor_dense(tensor_of(op, 0), w, NPU_DTYPE_F32, 4, dims);
	t = tensor_of(op, 1);
	*t = *tensor_of(op, 0);
	t->addr = p;
	t->format = NPU_FORMAT_PACKED;
	memset(t->strides, 0, sizeof(t->strides));
}

/*
 * A PACKED tensor spans the card's header and room for any layout:
 * NPU_PACKED_ELEMS elements, which must lie in the submitter's buffer.
 */
TEST_F(compute, packed_weights_extent_is_checked)
{
	uint64_t extent = NPU_PACKED_ELEMS(16, 16, 3, 3) * 4;
	uint64_t end = self->buf.addr + BUF_SIZE;

	if (!(self->operators & 1ULL << NPU_OPERATOR_PACK_CONV2D))
		SKIP(return, "the card has no PACK_CONV2D");
	EXPECT_EQ(37120, extent);
	pack_op(&self->op, self->buf.addr, end - extent + 64);
	EXPECT_EQ(-EPERM, try(self));
	/* rank 4 without strides */
	pack_op(&self->op, self->buf.addr, end - extent);
	tensor_of(&self->op, 1)->strides[3] = 1;
	EXPECT_EQ(-EINVAL, try(self));
	pack_op(&self->op, self->buf.addr, end - extent);
	tensor_of(&self->op, 1)->ndims = 3;
	tensor_of(&self->op, 1)->dims[3] = 0;
	EXPECT_EQ(-EINVAL, try(self));
	/* its own padding and flags, past the CONV2D's */
	pack_op(&self->op, self->buf.addr, end - extent);
	desc_of(&self->op)->attrs.pack_conv.rsvd = 1;
	EXPECT_EQ(-EINVAL, try(self));
	pack_op(&self->op, self->buf.addr, end - extent);
	desc_of(&self->op)->attrs.pack_conv.flags = NPU_PACK_CONV_SUMMAND << 1;
	EXPECT_EQ(-EINVAL, try(self));
	stream_untouched(_metadata, self);
	/* ending at the buffer's last byte: the card packs */
	pack_op(&self->op, self->buf.addr, end - extent);
	EXPECT_EQ(0, try(self));
}

TEST_F(compute, another_process_buffer_is_eperm)
{
	struct drm_npu_bo_create child_buf;
	int to_parent[2], to_child[2], status;
	pid_t pid;

	ASSERT_EQ(0, pipe(to_parent));
	ASSERT_EQ(0, pipe(to_child));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		struct test_card card;
		char c;

		if (test_card_open(&card, 0) || test_bo_create(card.fd, BUF_SIZE, 0, &child_buf) ||
		    write(to_parent[1], &child_buf, sizeof(child_buf)) != sizeof(child_buf))
			_exit(1);
		/* Keeps the buffer until the parent is done. */
		if (read(to_child[0], &c, 1) != 1)
			_exit(2);
		_exit(0);
	}
	ASSERT_EQ(sizeof(child_buf), read(to_parent[0], &child_buf, sizeof(child_buf)));
	reset_op(self);
	tensor_of(&self->op, 1)->addr = child_buf.addr;
	EXPECT_EQ(-EPERM, try(self));
	reset_op(self);
	tensor_of(&self->op, 0)->addr = child_buf.addr + 64;
	EXPECT_EQ(-EPERM, try(self));
	ASSERT_EQ(1, write(to_child[1], "x", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	close(to_parent[0]);
	close(to_parent[1]);
	close(to_child[0]);
	close(to_child[1]);
	stream_untouched(_metadata, self);
}

TEST_F(compute, ranges_that_wrap_or_overrun_are_eperm)
{
	struct npu_tensor_desc *x;

	/* One element past the buffer's end. */
	reset_op(self);
	x = tensor_of(&self->op, 0);
	x->addr = self->buf.addr + BUF_SIZE - 8 * 32 * 4 + 4;
	EXPECT_EQ(-EPERM, try(self));
	/* A stride that carries the last row past the end. */
	reset_op(self);
	x = tensor_of(&self->op, 0);
	x->strides[0] = BUF_SIZE / 4 / 7;
	EXPECT_EQ(-EPERM, try(self));
	/* Extents that fit in 64 bits but wrap from the address. */
	reset_op(self);
	x = tensor_of(&self->op, 0);
	x->dims[0] = 2;
	x->strides[0] = (1ULL << 62) - (1ULL << 53);	/* 2^64 - 2^55 + 128 bytes */
	EXPECT_EQ(-EPERM, try(self));
	reset_op(self);
	x = tensor_of(&self->op, 1);
	x->addr = ~0ULL - 128;
	EXPECT_EQ(-EPERM, try(self));
	/* An empty tensor names an address all the same. */
	reset_op(self);
	x = tensor_of(&self->op, 0);
	x->dims[1] = 0;
	x->addr = self->theirs.addr;
	EXPECT_EQ(-EPERM, try(self));
	stream_untouched(_metadata, self);
}

/* Two buffers, one right after the other in device memory, if we get them. */
static bool adjacent_pair(struct _test_data_compute *self, struct drm_npu_bo_create *a,
			  struct drm_npu_bo_create *b)
{
	struct drm_npu_bo_create bos[8];
	int i, j;

	for (i = 0; i < 8; i++)
		if (test_bo_create(self->card.fd, 64 << 10, 0, &bos[i]))
			return false;
	for (i = 0; i < 8; i++)
		for (j = 0; j < 8; j++)
			if (bos[j].addr == bos[i].addr + (64 << 10)) {
				*a = bos[i];
				*b = bos[j];
				return true;
			}
	return false;
}

TEST_F(compute, tensor_spanning_two_buffers_is_eperm)
{
	struct drm_npu_bo_create a, b;
	struct npu_tensor_desc *y;

	ASSERT_TRUE(adjacent_pair(self, &a, &b));
	reset_op(self);
	y = tensor_of(&self->op, 1);
	y->addr = b.addr - 512;		/* 1 KiB: half in a, half in b */
	EXPECT_EQ(-EPERM, try(self));
	/* Freed, the first of them takes its tensors' ranges with it. */
	reset_op(self);
	tensor_of(&self->op, 0)->addr = a.addr;
	ASSERT_EQ(0, test_bo_close(self->card.fd, a.handle));
	EXPECT_EQ(-EPERM, try(self));
	stream_untouched(_metadata, self);
}

TEST_F(compute, unknown_operator_dtype_format_are_einval)
{
	static const uint16_t kinds[] = { NPU_OPERATOR_LAST + 1, 64, 0xffff };
	static const uint16_t dtypes[] = { NPU_DTYPE_LAST + 1, 16, 31, 0xffff };
	static const uint16_t formats[] = { NPU_FORMAT_LAST + 1, 0x100, 0xffff };
	unsigned int i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		reset_op(self);
		desc_of(&self->op)->kind = kinds[i];
		EXPECT_EQ(-EINVAL, try(self)) TH_LOG("operator %u", kinds[i]);
	}
	for (i = 0; i <= NPU_OPERATOR_LAST; i++) {
		if (self->operators & 1ULL << i)
			continue;
		reset_op(self);
		desc_of(&self->op)->kind = i;
		EXPECT_EQ(-EINVAL, try(self)) TH_LOG("operator %u the card lacks", i);
	}
	for (i = 0; i < sizeof(dtypes) / sizeof(dtypes[0]); i++) {
		reset_op(self);
		tensor_of(&self->op, i % 2)->dtype = dtypes[i];
		EXPECT_EQ(-EINVAL, try(self)) TH_LOG("dtype %u", dtypes[i]);
	}
	for (i = 0; i <= NPU_DTYPE_LAST; i++) {
		if (self->dtypes & 1ULL << i)
			continue;
		reset_op(self);
		tensor_of(&self->op, 1)->dtype = i;
		EXPECT_EQ(-EINVAL, try(self)) TH_LOG("dtype %u the card lacks", i);
	}
	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		reset_op(self);
		tensor_of(&self->op, i % 2)->format = formats[i];
		EXPECT_EQ(-EINVAL, try(self)) TH_LOG("format %u", formats[i]);
	}
	stream_untouched(_metadata, self);
}

TEST_F(compute, malformed_tensors_are_einval)
{
	struct npu_tensor_desc *x;

	/* Rank 9, even with every dim in range. */
	reset_op(self);
	tensor_of(&self->op, 0)->ndims = NPU_TENSOR_MAX_DIMS + 1;
	EXPECT_EQ(-EINVAL, try(self));
	reset_op(self);
	tensor_of(&self->op, 0)->ndims = 0xffff;
	EXPECT_EQ(-EINVAL, try(self));
	/* Dims and strides past the rank are 0. */
	reset_op(self);
	tensor_of(&self->op, 0)->dims[2] = 1;
	EXPECT_EQ(-EINVAL, try(self));
	reset_op(self);
	tensor_of(&self->op, 1)->strides[NPU_TENSOR_MAX_DIMS - 1] = 1;
	EXPECT_EQ(-EINVAL, try(self));
	/* A negative stride. */
	reset_op(self);
	tensor_of(&self->op, 0)->strides[0] = -32LL;
	EXPECT_EQ(-EINVAL, try(self));
	/* An extent that does not fit in 64 bits. */
	reset_op(self);
	x = tensor_of(&self->op, 0);
	x->dims[0] = 1ULL << 40;
	x->strides[0] = 1ULL << 40;
	EXPECT_EQ(-EINVAL, try(self));
	reset_op(self);
	x = tensor_of(&self->op, 0);
	x->dims[0] = 1ULL << 62;
	x->strides[0] = 1;
	x->dims[1] = 1;
	EXPECT_EQ(-EINVAL, try(self));	/* 2^62 f32 elements: 2^64 bytes */
	/* NCHW16C is rank 4 without strides. */
	reset_op(self);
	tensor_of(&self->op, 0)->format = NPU_FORMAT_NCHW16C;
	EXPECT_EQ(-EINVAL, try(self));
	reset_op(self);
	x = tensor_of(&self->op, 0);
	memset(x->strides, 0, sizeof(x->strides));
	x->format = NPU_FORMAT_NCHW16C;
	x->ndims = 4;
	x->dims[2] = x->dims[3] = 1;
	x->strides[3] = 1;
	EXPECT_EQ(-EINVAL, try(self));
	/* Its channels round up to 16 and overflow like any other extent. */
	x->strides[3] = 0;
	x->dims[1] = ~0ULL - 3;
	EXPECT_EQ(-EINVAL, try(self));
	stream_untouched(_metadata, self);
}

TEST_F(compute, nonzero_reserved_fields_are_einval)
{
	struct npu_op_desc *d = desc_of(&self->op);

	reset_op(self);
	d->flags = 1;
	EXPECT_EQ(-EINVAL, try(self));
	reset_op(self);
	d->rsvd0 = 1;
	EXPECT_EQ(-EINVAL, try(self));
	reset_op(self);
	d->rsvd1 = 1ULL << 63;
	EXPECT_EQ(-EINVAL, try(self));
	reset_op(self);
	/* a binding, which only a direct ring takes */
	tensor_of(&self->op, 1)->bind = 1;
	EXPECT_EQ(-EINVAL, try(self));
	reset_op(self);
	d->attrs.unary.fn.rsvd = 1;
	EXPECT_EQ(-EINVAL, try(self));
	/* Attribute bytes past the operator's member of the union. */
	reset_op(self);
	d->attrs.bytes[sizeof(struct npu_attr_unary)] = 1;
	EXPECT_EQ(-EINVAL, try(self));
	reset_op(self);
	d->attrs.bytes[sizeof(d->attrs) - 1] = 0x80;
	EXPECT_EQ(-EINVAL, try(self));
	stream_untouched(_metadata, self);
}

TEST_F(compute, reserved_attributes_of_each_operator_are_einval)
{
	static const struct {
		uint16_t kind;
		uint8_t inputs;
		size_t offset;
	} cases[] = {
		{ NPU_OPERATOR_CONV2D, 2, offsetof(struct npu_attr_conv, rsvd) },
		{ NPU_OPERATOR_CONV2D, 3, offsetof(struct npu_attr_conv, act.rsvd) },
		{ NPU_OPERATOR_CONV_TRANSPOSE2D, 2, offsetof(struct npu_attr_conv, rsvd) },
		{ NPU_OPERATOR_MATMUL, 2, offsetof(struct npu_attr_matmul, act.rsvd) },
		{ NPU_OPERATOR_POOL2D, 1, offsetof(struct npu_attr_pool, rsvd) },
		{ NPU_OPERATOR_BINARY, 2, offsetof(struct npu_attr_binary, rsvd) },
		{ NPU_OPERATOR_BINARY, 2, offsetof(struct npu_attr_binary, act.rsvd) },
		{ NPU_OPERATOR_BATCHNORM, 5, offsetof(struct npu_attr_norm, act.rsvd) },
		{ NPU_OPERATOR_LAYERNORM, 2, offsetof(struct npu_attr_norm, act.rsvd) },
		{ NPU_OPERATOR_CONCAT, 3, offsetof(struct npu_attr_concat, rsvd) },
		{ NPU_OPERATOR_RESIZE, 1, offsetof(struct npu_attr_resize, rsvd) },
		/* Per-axis entries past the first input's rank, 2 here. */
		{ NPU_OPERATOR_TRANSPOSE, 1, offsetof(struct npu_attr_transpose, perm[2]) },
		{ NPU_OPERATOR_RESIZE, 1, offsetof(struct npu_attr_resize, scales[7]) },
		{ NPU_OPERATOR_PAD, 1, offsetof(struct npu_attr_pad, begin[2]) },
		{ NPU_OPERATOR_PAD, 1, offsetof(struct npu_attr_pad, end[5]) },
		{ NPU_OPERATOR_SLICE, 1, offsetof(struct npu_attr_slice, starts[3]) },
		{ NPU_OPERATOR_SLICE, 1, offsetof(struct npu_attr_slice, steps[7]) },
		/* CAST has no attributes at all. */
		{ NPU_OPERATOR_CAST, 1, 0 },
		{ NPU_OPERATOR_SOFTMAX, 1, sizeof(struct npu_attr_softmax) },
		{ NPU_OPERATOR_REDUCE, 1, sizeof(struct npu_attr_reduce) + 4 },
		{ NPU_OPERATOR_GATHER, 2, offsetof(struct npu_attr_gather, rsvd) },
		{ NPU_OPERATOR_GATHER, 2, sizeof(struct npu_attr_gather) },
		{ NPU_OPERATOR_TRIANGLE, 1, offsetof(struct npu_attr_triangle, rsvd) },
		{ NPU_OPERATOR_TRIANGLE, 1, sizeof(struct npu_attr_triangle) },
		{ NPU_OPERATOR_RMSNORM, 2, offsetof(struct npu_attr_norm, act.rsvd) },
		{ NPU_OPERATOR_RMSNORM, 2, sizeof(struct npu_attr_norm) },
		{ NPU_OPERATOR_GROUPNORM, 3, offsetof(struct npu_attr_groupnorm, act.rsvd) },
		{ NPU_OPERATOR_GROUPNORM, 3, sizeof(struct npu_attr_groupnorm) },
	};
	static const uint64_t dims[] = { 8, 32 };
	unsigned int i, t;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct npu_op_desc *d = desc_of(&self->op);

		if (!(self->operators & 1ULL << cases[i].kind))
			continue;
		op_init(&self->op, cases[i].kind, cases[i].inputs, 1);
		for (t = 0; t <= cases[i].inputs; t++)
			tensor_dense(tensor_of(&self->op, t), self->buf.addr + t * 4096,
				     NPU_DTYPE_F32, 2, dims);
		d->attrs.bytes[cases[i].offset] = 1;
		EXPECT_EQ(-EINVAL, try(self)) TH_LOG("operator %u, byte %zu", cases[i].kind,
						     cases[i].offset);
	}
	stream_untouched(_metadata, self);
}

/* Parameters an operator's configuration does not take are 0, as reserved ones. */
TEST_F(compute, unused_parameters_are_einval)
{
	struct npu_op_desc *d = desc_of(&self->op);
	static const uint64_t dims[] = { 8, 32 };
	unsigned int t;

	/* An activation's alpha and beta that its function does not take. */
	reset_op(self);
	d->attrs.unary.fn.alpha = ref_bits(1);
	EXPECT_EQ(-EINVAL, try(self));
	reset_op(self);
	d->attrs.unary.fn.kind = NPU_UNARY_LEAKY_RELU;
	d->attrs.unary.fn.beta = ref_bits(1);
	EXPECT_EQ(-EINVAL, try(self));
	reset_op(self);
	d->attrs.unary.fn.kind = NPU_UNARY_NEG;
	d->attrs.unary.fn.beta = 1;
	EXPECT_EQ(-EINVAL, try(self));
	reset_op(self);
	d->attrs.unary.fn.kind = NPU_UNARY_SIGN;
	d->attrs.unary.fn.alpha = ref_bits(1);
	EXPECT_EQ(-EINVAL, try(self));

	if (self->operators & 1ULL << NPU_OPERATOR_MATMUL) {
		/* beta scales c, which there is not. */
		op_init(&self->op, NPU_OPERATOR_MATMUL, 2, 1);
		for (t = 0; t < 3; t++)
			tensor_dense(tensor_of(&self->op, t), self->buf.addr + t * 4096,
				     NPU_DTYPE_F32, 2, dims);
		d->attrs.matmul.alpha = ref_bits(1);
		d->attrs.matmul.beta = ref_bits(1);
		EXPECT_EQ(-EINVAL, try(self));
		/* A fused activation's unused parameter. */
		d->attrs.matmul.beta = 0;
		d->attrs.matmul.act.kind = NPU_UNARY_SIGMOID;
		d->attrs.matmul.act.alpha = ref_bits(0.5f);
		EXPECT_EQ(-EINVAL, try(self));
	}
	if (self->operators & 1ULL << NPU_OPERATOR_BATCHNORM) {
		op_init(&self->op, NPU_OPERATOR_BATCHNORM, 5, 1);
		for (t = 0; t < 6; t++)
			tensor_dense(tensor_of(&self->op, t), self->buf.addr + t * 4096,
				     NPU_DTYPE_F32, 2, dims);
		d->attrs.norm.axis = 1;
		EXPECT_EQ(-EINVAL, try(self));
	}
	if (self->operators & 1ULL << NPU_OPERATOR_PAD) {
		op_init(&self->op, NPU_OPERATOR_PAD, 1, 1);
		for (t = 0; t < 2; t++)
			tensor_dense(tensor_of(&self->op, t), self->buf.addr + t * 4096,
				     NPU_DTYPE_F32, 2, dims);
		d->attrs.pad.mode = NPU_PAD_REFLECT;
		d->attrs.pad.value = ref_bits(2);
		EXPECT_EQ(-EINVAL, try(self));
		d->attrs.pad.mode = NPU_PAD_EDGE;
		EXPECT_EQ(-EINVAL, try(self));
	}
	if (self->operators & 1ULL << NPU_OPERATOR_RESIZE) {
		op_init(&self->op, NPU_OPERATOR_RESIZE, 1, 1);
		for (t = 0; t < 2; t++)
			tensor_dense(tensor_of(&self->op, t), self->buf.addr + t * 4096,
				     NPU_DTYPE_F32, 2, dims);
		d->attrs.resize.mode = NPU_RESIZE_LINEAR;
		d->attrs.resize.nearest = NPU_RESIZE_FLOOR;
		EXPECT_EQ(-EINVAL, try(self));
	}
	stream_untouched(_metadata, self);
}

TEST_F(compute, dims_the_card_cannot_count_are_einval)
{
	struct npu_tensor_desc *x;

	/* A dim over INT64_MAX, even with a stride of 0 spanning one element. */
	reset_op(self);
	x = tensor_of(&self->op, 0);
	x->dims[0] = 1ULL << 63;
	x->strides[0] = 0;
	EXPECT_EQ(-EINVAL, try(self));
	/* Dims whose product does not fit 64 bits. */
	reset_op(self);
	x = tensor_of(&self->op, 0);
	x->dims[0] = 1ULL << 32;
	x->dims[1] = 1ULL << 32;
	x->strides[0] = x->strides[1] = 0;
	EXPECT_EQ(-EINVAL, try(self));
	stream_untouched(_metadata, self);
}

/*
 * An output's elements each have an address of their own; an input may
 * repeat its elements along an axis of stride 0, a broadcast view, which
 * the card then checks (it fails the stream for other overlaps).
 */
TEST_F(compute, overlapping_output_is_einval)
{
	struct npu_tensor_desc *t;

	reset_op(self);
	t = tensor_of(&self->op, 1);
	t->strides[0] = 0;
	EXPECT_EQ(-EINVAL, try(self));
	/* rows overlapping by half */
	t->strides[0] = 16;
	EXPECT_EQ(-EINVAL, try(self));
	/* an axis of one element may have any stride, 0 too (x has one too) */
	reset_op(self);
	t = tensor_of(&self->op, 1);
	t->dims[0] = 1;
	t->strides[0] = 0;
	tensor_of(&self->op, 0)->dims[0] = 1;
	EXPECT_EQ(0, try(self));
	/* a broadcast input is the card's to check */
	reset_op(self);
	tensor_of(&self->op, 0)->strides[0] = 0;
	EXPECT_EQ(0, try(self));
}

/* A constant FILL has no step; the driver says so before the card. */
TEST_F(compute, fill_constant_with_a_step_is_einval)
{
	static const uint64_t dims[] = { 8, 32 };

	if (!(self->operators & 1ULL << NPU_OPERATOR_FILL))
		SKIP(return, "the card has no FILL");
	op_init(&self->op, NPU_OPERATOR_FILL, 0, 1);
	tensor_dense(tensor_of(&self->op, 0), self->buf.addr, NPU_DTYPE_F32, 2, dims);
	desc_of(&self->op)->attrs.fill.step = 1;
	EXPECT_EQ(-EINVAL, try(self));
	desc_of(&self->op)->attrs.fill.mode = NPU_FILL_RANGE;
	EXPECT_EQ(0, try(self));
}

TEST_F(compute, wrong_sizes_and_counts_are_einval)
{
	static const struct {
		uint16_t kind;
		uint8_t inputs, outputs;
	} counts[] = {
		{ NPU_OPERATOR_UNARY, 2, 1 }, { NPU_OPERATOR_UNARY, 1, 0 },
		{ NPU_OPERATOR_UNARY, 1, 2 }, { NPU_OPERATOR_UNARY, 0, 1 },
		{ NPU_OPERATOR_CONV2D, 1, 1 }, { NPU_OPERATOR_CONV2D, 5, 1 },
		{ NPU_OPERATOR_MATMUL, 4, 1 }, { NPU_OPERATOR_BINARY, 3, 1 },
		{ NPU_OPERATOR_BATCHNORM, 4, 1 }, { NPU_OPERATOR_LAYERNORM, 1, 1 },
		{ NPU_OPERATOR_CONCAT, 0, 1 }, { NPU_OPERATOR_CONCAT, 15, 2 },
		{ NPU_OPERATOR_CAST, 1, 2 },
		{ NPU_OPERATOR_GATHER, 1, 1 }, { NPU_OPERATOR_GATHER, 3, 1 },
		{ NPU_OPERATOR_TRIANGLE, 2, 1 }, { NPU_OPERATOR_RMSNORM, 1, 1 },
		{ NPU_OPERATOR_RMSNORM, 3, 1 }, { NPU_OPERATOR_GROUPNORM, 2, 1 },
		{ NPU_OPERATOR_GROUPNORM, 4, 1 },
	};
	uint64_t size;
	unsigned int i, t;

	reset_op(self);
	size = desc_size(&self->op);
	EXPECT_EQ(-EINVAL, submit_op(self, &self->op, 0));
	EXPECT_EQ(-EINVAL, submit_op(self, &self->op, sizeof(struct npu_op_desc) - 1));
	EXPECT_EQ(-EINVAL, submit_op(self, &self->op, sizeof(struct npu_op_desc)));
	EXPECT_EQ(-EINVAL, submit_op(self, &self->op, size - 1));
	EXPECT_EQ(-EINVAL, submit_op(self, &self->op, size + 1));
	EXPECT_EQ(-EINVAL, submit_op(self, &self->op, size + sizeof(struct npu_tensor_desc)));
	EXPECT_EQ(-EINVAL, submit_op(self, &self->op, self->desc_max + 1));
	EXPECT_EQ(-EINVAL, submit_op(self, &self->op, DESC_MAX + 64));
	EXPECT_EQ(-EINVAL, submit_op(self, &self->op, 1ULL << 32));
	EXPECT_EQ(-EINVAL, submit_op(self, &self->op, ~0ULL));

	/* More tensors than any operator has, even at the matching size. */
	op_init(&self->op, NPU_OPERATOR_CONCAT, NPU_OP_MAX_TENSORS, 1);
	for (t = 0; t <= NPU_OP_MAX_TENSORS; t++)
		tensor_dense(tensor_of(&self->op, t), self->buf.addr, NPU_DTYPE_F32, 1,
			     (uint64_t[]){ 4 });
	EXPECT_EQ(-EINVAL, try(self));
	desc_of(&self->op)->num_inputs = 255;
	desc_of(&self->op)->num_outputs = 255;
	EXPECT_EQ(-EINVAL, submit_op(self, &self->op, DESC_MAX));

	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		if (!(self->operators & 1ULL << counts[i].kind))
			continue;
		op_init(&self->op, counts[i].kind, counts[i].inputs, counts[i].outputs);
		for (t = 0; t < (unsigned int)counts[i].inputs + counts[i].outputs; t++)
			tensor_dense(tensor_of(&self->op, t), self->buf.addr + t * 4096,
				     NPU_DTYPE_F32, 2, (uint64_t[]){ 8, 32 });
		EXPECT_EQ(-EINVAL, try(self)) TH_LOG("operator %u with %u inputs, %u outputs",
						     counts[i].kind, counts[i].inputs,
						     counts[i].outputs);
	}
	stream_untouched(_metadata, self);
}

TEST_F(compute, command_fields_and_descriptor_memory)
{
	struct drm_npu_cmd cmd;
	void *unmapped;

	reset_op(self);
	cmd = compute_cmd(&self->op, desc_size(&self->op));
	cmd.flags = DRM_NPU_CMD_SRC_USER;
	EXPECT_EQ(-EINVAL, test_submit(self->card.fd, self->stream.id, &cmd, 1, 0, NULL));
	cmd = compute_cmd(&self->op, desc_size(&self->op));
	cmd.dst = self->buf.addr;
	EXPECT_EQ(-EINVAL, test_submit(self->card.fd, self->stream.id, &cmd, 1, 0, NULL));
	cmd = compute_cmd(&self->op, desc_size(&self->op));
	cmd.value = 1;
	EXPECT_EQ(-EINVAL, test_submit(self->card.fd, self->stream.id, &cmd, 1, 0, NULL));
	cmd = compute_cmd(&self->op, desc_size(&self->op));
	cmd.slot = 1;
	EXPECT_EQ(-EINVAL, test_submit(self->card.fd, self->stream.id, &cmd, 1, 0, NULL));
	cmd = compute_cmd(&self->op, desc_size(&self->op));
	cmd.pad = 1;
	EXPECT_EQ(-EINVAL, test_submit(self->card.fd, self->stream.id, &cmd, 1, 0, NULL));

	/* A descriptor the driver cannot read. */
	cmd = compute_cmd(&self->op, desc_size(&self->op));
	cmd.src = 0;
	EXPECT_EQ(-EFAULT, test_submit(self->card.fd, self->stream.id, &cmd, 1, 0, NULL));
	unmapped = mmap(NULL, 8192, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, unmapped);
	cmd.src = (uintptr_t)unmapped;
	EXPECT_EQ(-EFAULT, test_submit(self->card.fd, self->stream.id, &cmd, 1, 0, NULL));
	/* Readable up to the last byte, which is not. */
	ASSERT_EQ(0, mprotect(unmapped, 4096, PROT_READ | PROT_WRITE));
	memcpy(unmapped, self->op.bytes, desc_size(&self->op));
	cmd.src = (uintptr_t)unmapped + 4096 - desc_size(&self->op) + 1;
	EXPECT_EQ(-EFAULT, test_submit(self->card.fd, self->stream.id, &cmd, 1, 0, NULL));
	munmap(unmapped, 8192);
	stream_untouched(_metadata, self);
}

/* A batch with one bad operator among good commands queues nothing. */
TEST_F(compute, a_bad_operator_fails_its_whole_batch)
{
	struct drm_npu_cmd cmds[4];
	struct op bad;

	reset_op(self);
	unary_op(&bad, self->buf.addr, self->theirs.addr);
	cmds[0] = test_cmd_fill(self->buf.addr, 1, 4096, 0);
	cmds[1] = compute_cmd(&self->op, desc_size(&self->op));
	cmds[2] = compute_cmd(&bad, desc_size(&bad));
	cmds[3] = test_cmd_fill(self->buf.addr, 2, 4096, 0);
	EXPECT_EQ(-EPERM, test_submit(self->card.fd, self->stream.id, cmds, 4, 0, NULL));
	desc_of(&bad)->tensors[1].addr = self->buf.addr;
	desc_of(&bad)->rsvd0 = 1;
	EXPECT_EQ(-EINVAL, test_submit(self->card.fd, self->stream.id, cmds, 4, 0, NULL));
	stream_untouched(_metadata, self);
}

/* Refused operators hold no buffer: freeing them gives the memory back. */
TEST_F(compute, refused_operators_hold_nothing)
{
	unsigned long long used = test_card_attr(self->card.bdf, "devmem_used");
	struct drm_npu_bo_create a, b;
	struct drm_npu_cmd cmds[DRM_NPU_MAX_BATCH];
	unsigned int i;

	ASSERT_EQ(0, test_bo_create(self->card.fd, 4096, 0, &a));
	ASSERT_EQ(0, test_bo_create(self->card.fd, 4096, 0, &b));
	/* Every tensor but the last resolves before the last one fails. */
	op_init(&self->op, NPU_OPERATOR_CONCAT, NPU_OP_MAX_TENSORS - 1, 1);
	for (i = 0; i < NPU_OP_MAX_TENSORS; i++)
		tensor_dense(tensor_of(&self->op, i), i % 2 ? a.addr : b.addr, NPU_DTYPE_F32, 1,
			     (uint64_t[]){ 16 });
	tensor_of(&self->op, NPU_OP_MAX_TENSORS - 1)->addr = self->theirs.addr;
	for (i = 0; i < DRM_NPU_MAX_BATCH; i++)
		cmds[i] = compute_cmd(&self->op, desc_size(&self->op));
	if (self->operators & 1ULL << NPU_OPERATOR_CONCAT)
		EXPECT_EQ(-EPERM, test_submit(self->card.fd, self->stream.id, cmds,
					     DRM_NPU_MAX_BATCH, 0, NULL));
	reset_op(self);
	tensor_of(&self->op, 0)->addr = a.addr;
	tensor_of(&self->op, 1)->addr = b.addr + 4096 - 512;
	for (i = 0; i < DRM_NPU_MAX_BATCH; i++)
		cmds[i] = compute_cmd(&self->op, desc_size(&self->op));
	EXPECT_EQ(-EPERM, test_submit(self->card.fd, self->stream.id, cmds, 4, 0, NULL));

	EXPECT_EQ(used + 8192, test_card_attr(self->card.bdf, "devmem_used"));
	ASSERT_EQ(0, test_bo_close(self->card.fd, a.handle));
	ASSERT_EQ(0, test_bo_close(self->card.fd, b.handle));
	EXPECT_EQ(used, test_card_attr(self->card.bdf, "devmem_used"));
	stream_untouched(_metadata, self);
}

/* ---- What the card computes ---- */

#define POOL_SIZE	(96u << 20)

FIXTURE(result) {
	struct test_card card;
	struct drm_npu_stream_create stream;
	struct drm_npu_bo_create pool;
	uint64_t next;		/* free device memory in the pool */
	uint64_t operators, dtypes;
	uint32_t seed;
	struct op op;
	struct ref_tensor t[NPU_OP_MAX_TENSORS];	/* inputs, then the output */
	uint64_t addr[NPU_OP_MAX_TENSORS];
	unsigned int nt;
	double *want;
	int fault_ring;
	long hang_timeout;
};

FIXTURE_SETUP(result)
{
	self->fault_ring = -1;
	self->hang_timeout = test_driver_param("hang_timeout_ms");
	ASSERT_LE(0, self->hang_timeout);
	ASSERT_EQ(0, test_card_open(&self->card, 0));
	ASSERT_EQ(0, test_param(self->card.fd, DRM_NPU_PARAM_OPERATORS, &self->operators));
	ASSERT_EQ(0, test_param(self->card.fd, DRM_NPU_PARAM_DTYPES, &self->dtypes));
	if (!self->operators || !(self->dtypes & 1u << NPU_DTYPE_F32))
		SKIP(return, "the card does not compute in f32");
	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &self->stream));
	ASSERT_EQ(0, test_bo_create(self->card.fd, POOL_SIZE, 0, &self->pool));
	self->next = self->pool.addr;
	self->seed = 12345;
}

static void forget_tensors(struct _test_data_result *self)
{
	unsigned int i;

	for (i = 0; i < self->nt; i++)
		free(self->t[i].val);
	free(self->want);
	self->want = NULL;
	self->nt = 0;
	self->next = self->pool.addr;
}

FIXTURE_TEARDOWN(result)
{
	char what[32];

	forget_tensors(self);
	test_card_close(&self->card);
	if (self->fault_ring >= 0) {
		snprintf(what, sizeof(what), "clear %d", self->fault_ring);
		test_inject(self->card.bdf, what);
	}
	if (self->hang_timeout >= 0)
		test_set_driver_param("hang_timeout_ms", self->hang_timeout);
}

#define NEED_OPERATOR(kind)						\
	do {								\
		if (!(self->operators & 1ULL << (kind)))		\
			SKIP(return, "the card lacks operator %d", kind); \
	} while (0)

static float random_in(struct _test_data_result *self, float lo, float hi)
{
	self->seed ^= self->seed << 13;
	self->seed ^= self->seed >> 17;
	self->seed ^= self->seed << 5;
	return lo + (hi - lo) * (float)(self->seed >> 8) / (float)(1u << 24);
}

static bool unsigned_dtype(uint16_t dtype)
{
	return dtype == NPU_DTYPE_U8 || dtype == NPU_DTYPE_U64;
}

/* Values every data type holds exactly: eighths, or integers. */
static float random_value(struct _test_data_result *self, uint16_t dtype)
{
	switch (dtype) {
	case NPU_DTYPE_S32:
	case NPU_DTYPE_S64:
	case NPU_DTYPE_S16:
		return floorf(random_in(self, -1000, 1000));
	case NPU_DTYPE_BOOL:
		return floorf(random_in(self, 0, 2));
	case NPU_DTYPE_S8:
		return floorf(random_in(self, -128, 128));
	case NPU_DTYPE_U8:
		return floorf(random_in(self, 0, 256));
	case NPU_DTYPE_U64:
		return floorf(random_in(self, 0, 1000));
	case NPU_DTYPE_F32:
		return random_in(self, -2, 2);
	default:
		return floorf(random_in(self, -64, 64)) / 8;
	}
}

static void fill(struct _test_data_result *self, struct ref_tensor *t, float lo, float hi)
{
	uint64_t i;

	for (i = 0; i < t->elems; i++)
		t->val[i] = random_in(self, lo, hi);
}

/*
 * A tensor in the pool, with random values in the whole image, gaps
 * included; @strides NULL makes it dense, and @format NCHW16C blocked.
 */
static struct ref_tensor *tensor(struct _test_data_result *self, uint16_t dtype,
				 uint16_t format, unsigned int ndims, const uint64_t *dims,
				 const uint64_t *strides)
{
	struct ref_tensor *t = &self->t[self->nt];
	uint64_t dense = 1, last = 0, i;
	int d;

	memset(t, 0, sizeof(*t));
	t->dtype = dtype;
	t->format = format;
	t->ndims = ndims;
	memcpy(t->dims, dims, ndims * sizeof(*dims));
	for (d = (int)ndims - 1; d >= 0 && format == NPU_FORMAT_STRIDED; d--) {
		t->strides[d] = strides ? strides[d] : dense;
		dense *= dims[d];
		last += dims[d] ? (dims[d] - 1) * t->strides[d] : 0;
	}
	if (format == NPU_FORMAT_NCHW16C)
		t->elems = dims[0] * (dims[1] + 15) / 16 * 16 * dims[2] * dims[3];
	else
		t->elems = ref_count(t) ? last + 1 : 0;
	t->val = malloc((t->elems + 1) * sizeof(float));
	for (i = 0; i < t->elems; i++)
		t->val[i] = random_value(self, dtype);
	/* The card reads NCHW16C's padding channels as 0 and writes them so. */
	for (i = 0; format == NPU_FORMAT_NCHW16C && i < t->elems; i++)
		if ((i / (16 * dims[2] * dims[3])) % ((dims[1] + 15) / 16) * 16 + i % 16 >= dims[1])
			t->val[i] = 0;
	self->addr[self->nt++] = self->next;
	self->next += ((t->elems + 1) * NPU_DTYPE_SIZE(dtype) + 63) & ~63ULL;
	return t;
}

static struct ref_tensor *dense(struct _test_data_result *self, unsigned int ndims,
				const uint64_t *dims)
{
	return tensor(self, NPU_DTYPE_F32, NPU_FORMAT_STRIDED, ndims, dims, NULL);
}

#define DIMS(...)	(const uint64_t[]){ __VA_ARGS__ }
#define RANK(...)	(sizeof(DIMS(__VA_ARGS__)) / sizeof(uint64_t))
#define DENSE(...)	dense(self, RANK(__VA_ARGS__), DIMS(__VA_ARGS__))

static void pack(const struct ref_tensor *t, uint8_t *out)
{
	uint64_t i;

	for (i = 0; i < t->elems; i++) {
		float v = t->val[i];
		uint32_t bits = ref_bits(v);
		_Float16 h = (_Float16)v;
		int32_t s = (int32_t)v;
		int64_t s64 = (int64_t)v;
		int16_t s16 = (int16_t)v;
		double d = v;

		switch (t->dtype) {
		case NPU_DTYPE_F64:
			memcpy(out + 8 * i, &d, 8);
			break;
		case NPU_DTYPE_F32:
			memcpy(out + 4 * i, &v, 4);
			break;
		case NPU_DTYPE_BF16:
			bits >>= 16;
			memcpy(out + 2 * i, &bits, 2);
			break;
		case NPU_DTYPE_F16:
			memcpy(out + 2 * i, &h, 2);
			break;
		case NPU_DTYPE_S32:
			memcpy(out + 4 * i, &s, 4);
			break;
		case NPU_DTYPE_S64:
		case NPU_DTYPE_U64:
			memcpy(out + 8 * i, &s64, 8);
			break;
		case NPU_DTYPE_S16:
			memcpy(out + 2 * i, &s16, 2);
			break;
		default:
			out[i] = (uint8_t)s;
			break;
		}
	}
}

static float unpack_one(uint16_t dtype, const uint8_t *in, uint64_t i)
{
	uint32_t bits = 0;
	_Float16 h;
	int32_t s;
	int64_t s64;
	uint64_t u64;
	int16_t s16;
	double d;
	float f;

	switch (dtype) {
	case NPU_DTYPE_F64:
		memcpy(&d, in + 8 * i, 8);
		return (float)d;
	case NPU_DTYPE_U64:
		memcpy(&u64, in + 8 * i, 8);
		return (float)u64;
	case NPU_DTYPE_F32:
		memcpy(&f, in + 4 * i, 4);
		return f;
	case NPU_DTYPE_BF16:
		memcpy(&bits, in + 2 * i, 2);
		return ref_f32(bits << 16);
	case NPU_DTYPE_F16:
		memcpy(&h, in + 2 * i, 2);
		return h;
	case NPU_DTYPE_S32:
		memcpy(&s, in + 4 * i, 4);
		return (float)s;
	case NPU_DTYPE_S8:
		return (int8_t)in[i];
	case NPU_DTYPE_S64:
		memcpy(&s64, in + 8 * i, 8);
		return (float)s64;
	case NPU_DTYPE_S16:
		memcpy(&s16, in + 2 * i, 2);
		return s16;
	case NPU_DTYPE_BOOL:
		return in[i] != 0;
	default:
		return in[i];
	}
}

/* Every tensor's image to the card, the output's too: its gaps must stay. */
static int upload(struct _test_data_result *self)
{
	struct drm_npu_cmd cmds[NPU_OP_MAX_TENSORS];
	uint8_t *images[NPU_OP_MAX_TENSORS];
	unsigned int i, n = 0;
	uint64_t seq;
	int ret;

	for (i = 0; i < self->nt; i++) {
		uint64_t bytes = self->t[i].elems * NPU_DTYPE_SIZE(self->t[i].dtype);

		images[i] = malloc(bytes + 1);
		pack(&self->t[i], images[i]);
		if (bytes)
			cmds[n++] = test_cmd_copy(self->addr[i], (uintptr_t)images[i], bytes,
						 DRM_NPU_CMD_SRC_USER);
	}
	ret = test_submit(self->card.fd, self->stream.id, cmds, n, 0, &seq);
	if (!ret)
		ret = test_wait(self->card.fd, self->stream.slot, seq, 60000);
	for (i = 0; i < self->nt; i++)
		free(images[i]);
	return ret;
}

/* The descriptor of the tensors so far, the last one the output. */
static struct npu_op_desc *build(struct _test_data_result *self, uint16_t kind)
{
	unsigned int i;

	op_init(&self->op, kind, self->nt - 1, 1);
	for (i = 0; i < self->nt; i++) {
		struct npu_tensor_desc *d = tensor_of(&self->op, i);
		const struct ref_tensor *t = &self->t[i];

		d->addr = self->addr[i];
		d->dtype = t->dtype;
		d->format = t->format;
		d->ndims = t->ndims;
		memcpy(d->dims, t->dims, t->ndims * sizeof(t->dims[0]));
		memcpy(d->strides, t->strides, t->ndims * sizeof(t->strides[0]));
	}
	free(self->want);
	self->want = calloc(ref_count(&self->t[self->nt - 1]) + 1, sizeof(double));
	return desc_of(&self->op);
}

static int run_op(struct _test_data_result *self)
{
	struct drm_npu_cmd cmd = compute_cmd(&self->op, desc_size(&self->op));
	uint64_t seq;
	int ret = test_submit(self->card.fd, self->stream.id, &cmd, 1, 0, &seq);

	return ret ?: test_wait(self->card.fd, self->stream.slot, seq, 60000);
}

static bool close_enough(double got, double want, double atol, double rtol)
{
	if (isnan(want) || isnan(got))
		return isnan(want) && isnan(got);
	if (isinf(want) || isinf(got))
		return got == want;
	return fabs(got - want) <= atol + rtol * fabs(want);
}

/*
 * Uploads, runs the operator, and holds the output against self->want;
 * the output's gaps must hold what was uploaded. Returns -errno, or the
 * number of wrong elements.
 */
static int run_and_check(struct _test_data_result *self, double atol, double rtol)
{
	struct ref_tensor *y = &self->t[self->nt - 1];
	uint64_t idx[NPU_TENSOR_MAX_DIMS] = { 0 }, i = 0, seq, bytes;
	uint8_t *image, *logical;
	struct drm_npu_cmd back;
	int ret, bad = 0;

	ret = upload(self);
	if (!ret)
		ret = run_op(self);
	if (ret)
		return ret;
	bytes = y->elems * NPU_DTYPE_SIZE(y->dtype);
	image = malloc(bytes + 1);
	logical = calloc(y->elems + 1, 1);
	back = test_cmd_copy((uintptr_t)image, self->addr[self->nt - 1], bytes,
			    DRM_NPU_CMD_DST_USER);
	ret = bytes ? test_submit(self->card.fd, self->stream.id, &back, 1, 0, &seq) : 0;
	if (!ret && bytes)
		ret = test_wait(self->card.fd, self->stream.slot, seq, 60000);
	if (ret)
		goto out;
	if (ref_count(y)) {
		do {
			uint64_t off = ref_offset(y, idx);
			double got = unpack_one(y->dtype, image, off);

			logical[off] = 1;
			if (!close_enough(got, self->want[i], atol, rtol) && bad++ < 5)
				fprintf(stderr, "#   element %llu (offset %llu): %.9g, want %.9g\n",
					(unsigned long long)i, (unsigned long long)off, got,
					self->want[i]);
			i++;
		} while (ref_next(idx, y->dims, y->ndims));
	}
	for (i = 0; i < y->elems; i++) {
		float was = y->val[i];
		uint8_t packed[8];
		struct ref_tensor one = { .dtype = y->dtype, .elems = 1, .val = &was };

		pack(&one, packed);
		if (!logical[i] && memcmp(packed, image + i * NPU_DTYPE_SIZE(y->dtype),
					  NPU_DTYPE_SIZE(y->dtype)) && bad++ < 5)
			fprintf(stderr, "#   gap at offset %llu was written\n",
				(unsigned long long)i);
	}
	ret = bad;
out:
	free(image);
	free(logical);
	return ret;
}

static struct npu_activation activation(uint32_t kind, float alpha, float beta)
{
	return (struct npu_activation){ .kind = kind, .alpha = ref_bits(alpha),
					.beta = ref_bits(beta) };
}

/* Each function with its parameters, and the inputs it is defined on. */
static const struct {
	uint32_t kind;
	float alpha, beta, lo, hi;
} functions[] = {
	{ NPU_UNARY_NONE, 0, 0, -2, 2 },	{ NPU_UNARY_RELU, 0, 0, -2, 2 },
	{ NPU_UNARY_CLIP, -0.5f, 0.75f, -2, 2 },	{ NPU_UNARY_SIGMOID, 0, 0, -4, 4 },
	{ NPU_UNARY_HARDSIGMOID, 0.2f, 0.5f, -4, 4 },
	{ NPU_UNARY_HARDSWISH, 0, 0, -4, 4 },	{ NPU_UNARY_LEAKY_RELU, 0.1f, 0, -2, 2 },
	{ NPU_UNARY_TANH, 0, 0, -3, 3 },	{ NPU_UNARY_EXP, 0, 0, -3, 3 },
	{ NPU_UNARY_LOG, 0, 0, 0.05f, 4 },	{ NPU_UNARY_SQRT, 0, 0, 0, 4 },
	{ NPU_UNARY_ABS, 0, 0, -2, 2 },	{ NPU_UNARY_NEG, 0, 0, -2, 2 },
	{ NPU_UNARY_ERF, 0, 0, -2, 2 },	{ NPU_UNARY_GELU, 0, 0, -3, 3 },
	{ NPU_UNARY_ELU, 1.3f, 0, -3, 3 },	{ NPU_UNARY_SOFTPLUS, 0, 0, -3, 3 },
	{ NPU_UNARY_SIN, 0, 0, -4, 4 },	{ NPU_UNARY_COS, 0, 0, -4, 4 },
	{ NPU_UNARY_RSQRT, 0, 0, 0.1f, 4 },	{ NPU_UNARY_SILU, 0, 0, -4, 4 },
	{ NPU_UNARY_GELU_TANH, 0, 0, -3, 3 },	{ NPU_UNARY_SIGN, 0, 0, -2, 2 },
	{ NPU_UNARY_THRESHOLD, 0.5f, -2, -2, 2 },
	{ NPU_UNARY_SOFTPLUS_BETA, 2, 3, -3, 3 },
	{ NPU_UNARY_LOGICAL_NOT, 0, 0, -2, 2 },	{ NPU_UNARY_RECIPROCAL, 0, 0, 0.25f, 4 },
};

#define NFUNCTIONS	(sizeof(functions) / sizeof(functions[0]))

TEST_F(result, unary_every_function)
{
	struct npu_op_desc *d;
	struct ref_tensor *x;
	unsigned int i;

	NEED_OPERATOR(NPU_OPERATOR_UNARY);
	ASSERT_EQ(NPU_UNARY_LAST + 1, NFUNCTIONS);
	for (i = 0; i < NFUNCTIONS; i++) {
		forget_tensors(self);
		x = DENSE(3, 5, 7);
		fill(self, x, functions[i].lo, functions[i].hi);
		DENSE(3, 5, 7);
		d = build(self, NPU_OPERATOR_UNARY);
		d->attrs.unary.fn = activation(functions[i].kind, functions[i].alpha,
					       functions[i].beta);
		ref_unary(x, &d->attrs.unary, self->want);
		EXPECT_EQ(0, run_and_check(self, 1e-5, 1e-4)) TH_LOG("function %u",
								    functions[i].kind);
	}
}

TEST_F(result, unary_on_strided_and_broadcast_tensors)
{
	struct npu_op_desc *d;
	struct ref_tensor *x;

	NEED_OPERATOR(NPU_OPERATOR_UNARY);
	/* Rows with gaps in, columns with gaps out: the gaps stay. */
	x = tensor(self, NPU_DTYPE_F32, NPU_FORMAT_STRIDED, 2, DIMS(5, 6), DIMS(11, 1));
	tensor(self, NPU_DTYPE_F32, NPU_FORMAT_STRIDED, 2, DIMS(5, 6), DIMS(1, 7));
	d = build(self, NPU_OPERATOR_UNARY);
	d->attrs.unary.fn = activation(NPU_UNARY_NEG, 0, 0);
	ref_unary(x, &d->attrs.unary, self->want);
	EXPECT_EQ(0, run_and_check(self, 0, 0));

	/* Columns first: strides need not decrease. */
	forget_tensors(self);
	x = tensor(self, NPU_DTYPE_F32, NPU_FORMAT_STRIDED, 3, DIMS(4, 3, 9), DIMS(1, 36, 4));
	DENSE(4, 3, 9);
	d = build(self, NPU_OPERATOR_UNARY);
	d->attrs.unary.fn = activation(NPU_UNARY_ABS, 0, 0);
	ref_unary(x, &d->attrs.unary, self->want);
	EXPECT_EQ(0, run_and_check(self, 0, 0));

	/* Rank 0 and rank 8. */
	forget_tensors(self);
	x = tensor(self, NPU_DTYPE_F32, NPU_FORMAT_STRIDED, 0, DIMS(0), NULL);
	tensor(self, NPU_DTYPE_F32, NPU_FORMAT_STRIDED, 0, DIMS(0), NULL);
	d = build(self, NPU_OPERATOR_UNARY);
	d->attrs.unary.fn = activation(NPU_UNARY_NEG, 0, 0);
	ref_unary(x, &d->attrs.unary, self->want);
	EXPECT_EQ(0, run_and_check(self, 0, 0));
	forget_tensors(self);
	x = DENSE(2, 1, 3, 1, 2, 3, 1, 2);
	DENSE(2, 1, 3, 1, 2, 3, 1, 2);
	d = build(self, NPU_OPERATOR_UNARY);
	d->attrs.unary.fn = activation(NPU_UNARY_RELU, 0, 0);
	ref_unary(x, &d->attrs.unary, self->want);
	EXPECT_EQ(0, run_and_check(self, 0, 0));
}

TEST_F(result, binary_every_kind_with_broadcast)
{
	struct ref_tensor *a, *b, *y;
	struct npu_op_desc *d;
	uint32_t kind;

	NEED_OPERATOR(NPU_OPERATOR_BINARY);
	for (kind = 0; kind <= NPU_BINARY_LAST; kind++) {
		forget_tensors(self);
		a = DENSE(4, 1, 5);
		b = DENSE(1, 6, 5);
		if (kind == NPU_BINARY_POW)
			fill(self, a, 0.5f, 2);
		if (kind == NPU_BINARY_DIV)
			fill(self, b, 0.5f, 2);
		y = DENSE(4, 6, 5);
		d = build(self, NPU_OPERATOR_BINARY);
		d->attrs.binary.kind = kind;
		ref_binary(a, b, y, &d->attrs.binary, self->want);
		EXPECT_EQ(0, run_and_check(self, 1e-5, 1e-5)) TH_LOG("kind %u", kind);
	}
	/* Odd sizes, a scalar-like operand and a strided one. */
	forget_tensors(self);
	a = tensor(self, NPU_DTYPE_F32, NPU_FORMAT_STRIDED, 2, DIMS(31, 17), DIMS(20, 1));
	b = DENSE(1, 1);
	y = DENSE(31, 17);
	d = build(self, NPU_OPERATOR_BINARY);
	d->attrs.binary.kind = NPU_BINARY_MUL;
	ref_binary(a, b, y, &d->attrs.binary, self->want);
	EXPECT_EQ(0, run_and_check(self, 1e-6, 1e-6));
}

TEST_F(result, every_fused_activation)
{
	struct ref_tensor *a, *b, *y;
	struct npu_op_desc *d;
	unsigned int i;

	NEED_OPERATOR(NPU_OPERATOR_BINARY);
	for (i = 0; i < NFUNCTIONS; i++) {
		forget_tensors(self);
		a = DENSE(3, 4, 5);
		b = DENSE(3, 4, 5);
		fill(self, a, functions[i].lo / 2, functions[i].hi / 2);
		fill(self, b, functions[i].lo / 2, functions[i].hi / 2);
		y = DENSE(3, 4, 5);
		d = build(self, NPU_OPERATOR_BINARY);
		d->attrs.binary.kind = NPU_BINARY_ADD;
		d->attrs.binary.act = activation(functions[i].kind, functions[i].alpha,
						 functions[i].beta);
		ref_binary(a, b, y, &d->attrs.binary, self->want);
		EXPECT_EQ(0, run_and_check(self, 1e-5, 1e-4)) TH_LOG("activation %u",
								    functions[i].kind);
	}
}

static void matmul_case(struct __test_metadata *_metadata, struct _test_data_result *self,
			unsigned int rank, const uint64_t *adims, const uint64_t *bdims,
			const uint64_t *cdims, const uint64_t *ydims,
			const struct npu_attr_matmul *attrs)
{
	struct ref_tensor *a, *b, *c = NULL, *y;
	struct npu_op_desc *d;
	uint64_t k = attrs->trans_a ? adims[rank - 2] : adims[rank - 1];

	forget_tensors(self);
	a = dense(self, rank, adims);
	b = dense(self, rank, bdims);
	if (cdims)
		c = dense(self, rank, cdims);
	y = dense(self, rank, ydims);
	d = build(self, NPU_OPERATOR_MATMUL);
	d->attrs.matmul = *attrs;
	ref_matmul(a, b, c, y, attrs, self->want);
	EXPECT_EQ(0, run_and_check(self, 2e-5 * k, 1e-5)) TH_LOG("k %llu", (unsigned long long)k);
}

TEST_F(result, matmul_transposes_batches_and_bias)
{
	struct npu_attr_matmul plain = { .alpha = ref_bits(1) };
	struct npu_attr_matmul both = {
		.trans_a = 1, .trans_b = 1, .alpha = ref_bits(0.5f), .beta = ref_bits(2),
		.act = activation(NPU_UNARY_RELU, 0, 0),
	};
	struct npu_attr_matmul batch = {
		.alpha = ref_bits(1), .beta = ref_bits(1),
		.act = activation(NPU_UNARY_TANH, 0, 0),
	};

	NEED_OPERATOR(NPU_OPERATOR_MATMUL);
	matmul_case(_metadata, self, 2, DIMS(7, 13), DIMS(13, 5), NULL, DIMS(7, 5), &plain);
	matmul_case(_metadata, self, 2, DIMS(33, 65), DIMS(65, 17), NULL, DIMS(33, 17), &plain);
	matmul_case(_metadata, self, 2, DIMS(13, 7), DIMS(5, 13), DIMS(1, 5), DIMS(7, 5), &both);
	matmul_case(_metadata, self, 4, DIMS(2, 1, 3, 4), DIMS(1, 3, 4, 5), DIMS(1, 1, 3, 1),
		    DIMS(2, 3, 3, 5), &batch);
	matmul_case(_metadata, self, 3, DIMS(3, 1, 9), DIMS(3, 9, 1), DIMS(3, 1, 1),
		    DIMS(3, 1, 1), &batch);
}

static void conv_case(struct __test_metadata *_metadata, struct _test_data_result *self,
		      bool transpose, const uint64_t *xdims, const uint64_t *wdims,
		      bool bias, const uint64_t *ydims, const struct npu_attr_conv *attrs)
{
	struct ref_tensor *x, *w, *b = NULL, *y;
	struct npu_op_desc *d;

	forget_tensors(self);
	x = dense(self, 4, xdims);
	w = dense(self, 4, wdims);
	if (bias)
		b = dense(self, 1, &ydims[1]);
	y = dense(self, 4, ydims);
	d = build(self, transpose ? NPU_OPERATOR_CONV_TRANSPOSE2D : NPU_OPERATOR_CONV2D);
	d->attrs.conv = *attrs;
	ref_conv(x, w, b, y, attrs, transpose, self->want);
	EXPECT_EQ(0, run_and_check(self, 2e-5 * wdims[1] * wdims[2] * wdims[3], 1e-5));
}

#define CONV_ATTRS(s, dil, p, g, ...)					\
	(struct npu_attr_conv){ .strides = { s, s }, .dilations = { dil, dil }, \
				.pads_begin = { p, p }, .group = g, __VA_ARGS__ }

TEST_F(result, conv2d_strides_padding_groups_depthwise)
{
	NEED_OPERATOR(NPU_OPERATOR_CONV2D);
	/* 3x3, same padding, bias and relu. */
	conv_case(_metadata, self, false, DIMS(2, 3, 9, 7), DIMS(4, 3, 3, 3), true,
		  DIMS(2, 4, 9, 7),
		  &CONV_ATTRS(1, 1, 1, 1, .act = activation(NPU_UNARY_RELU, 0, 0)));
	/* Stride 2, dilation 2, padding only at the beginning. */
	conv_case(_metadata, self, false, DIMS(1, 2, 11, 10), DIMS(3, 2, 3, 2), false,
		  DIMS(1, 3, 4, 5), &CONV_ATTRS(2, 2, 1, 1));
	/* Asymmetric: more padding at the end, so the output is one larger. */
	conv_case(_metadata, self, false, DIMS(1, 3, 6, 6), DIMS(2, 3, 3, 3), true,
		  DIMS(1, 2, 4, 4), &CONV_ATTRS(2, 1, 1, 1));
	/* Two groups. */
	conv_case(_metadata, self, false, DIMS(2, 4, 5, 6), DIMS(6, 2, 3, 3), true,
		  DIMS(2, 6, 3, 4), &CONV_ATTRS(1, 1, 0, 2));
	/* Depthwise, with a clip. */
	conv_case(_metadata, self, false, DIMS(1, 5, 7, 7), DIMS(5, 1, 3, 3), true,
		  DIMS(1, 5, 7, 7),
		  &CONV_ATTRS(1, 1, 1, 5, .act = activation(NPU_UNARY_CLIP, -1, 1)));
	/* 1x1. */
	conv_case(_metadata, self, false, DIMS(3, 17, 3, 5), DIMS(9, 17, 1, 1), false,
		  DIMS(3, 9, 3, 5), &CONV_ATTRS(1, 1, 0, 1));
}

TEST_F(result, conv_transpose2d)
{
	NEED_OPERATOR(NPU_OPERATOR_CONV_TRANSPOSE2D);
	/* Stride 2, pad 1 and output padding 1: (5 - 1) * 2 - 2 + 3 + 1 = 10. */
	conv_case(_metadata, self, true, DIMS(1, 4, 5, 4), DIMS(4, 3, 3, 3), true,
		  DIMS(1, 6, 10, 8), &CONV_ATTRS(2, 1, 1, 2));
	conv_case(_metadata, self, true, DIMS(2, 3, 4, 4), DIMS(3, 2, 2, 2), false,
		  DIMS(2, 2, 8, 8),
		  &CONV_ATTRS(2, 1, 0, 1, .act = activation(NPU_UNARY_SIGMOID, 0, 0)));
	/* Dilated, stride 1. */
	conv_case(_metadata, self, true, DIMS(1, 2, 5, 5), DIMS(2, 2, 3, 3), true,
		  DIMS(1, 2, 9, 9), &CONV_ATTRS(1, 2, 0, 1));
}

TEST_F(result, conv2d_on_blocked_channels)
{
	struct npu_attr_conv attrs = CONV_ATTRS(1, 1, 1, 1);
	struct ref_tensor *x, *w, *b, *y;
	struct npu_op_desc *d;

	NEED_OPERATOR(NPU_OPERATOR_CONV2D);
	/* 20 and 18 channels: the blocks' padding channels are not data. */
	x = tensor(self, NPU_DTYPE_F32, NPU_FORMAT_NCHW16C, 4, DIMS(2, 20, 6, 5), NULL);
	w = DENSE(18, 20, 3, 3);
	b = DENSE(18);
	y = tensor(self, NPU_DTYPE_F32, NPU_FORMAT_NCHW16C, 4, DIMS(2, 18, 6, 5), NULL);
	d = build(self, NPU_OPERATOR_CONV2D);
	d->attrs.conv = attrs;
	ref_conv(x, w, b, y, &attrs, false, self->want);
	EXPECT_EQ(0, run_and_check(self, 2e-5 * 180, 1e-5));
}

static void pool_case(struct __test_metadata *_metadata, struct _test_data_result *self,
		      const uint64_t *xdims, const uint64_t *ydims,
		      const struct npu_attr_pool *attrs)
{
	struct ref_tensor *x, *y;
	struct npu_op_desc *d;

	forget_tensors(self);
	x = dense(self, 4, xdims);
	y = dense(self, 4, ydims);
	d = build(self, NPU_OPERATOR_POOL2D);
	d->attrs.pool = *attrs;
	ref_pool(x, y, attrs, self->want);
	EXPECT_EQ(0, run_and_check(self, 1e-6, 1e-5)) TH_LOG("kind %u", attrs->kind);
}

#define POOL_ATTRS(k, kern, s, dil, p)					\
	(struct npu_attr_pool){ .kind = k, .kernel = { kern, kern }, .strides = { s, s }, \
				.dilations = { dil, dil }, .pads_begin = { p, p } }

TEST_F(result, pool2d_kinds_padding_ceil_mode)
{
	uint32_t kind;

	NEED_OPERATOR(NPU_OPERATOR_POOL2D);
	for (kind = NPU_POOL_MAX; kind <= NPU_POOL_AVG_EXCLUDE_PAD; kind++) {
		/* Floor mode: (8 + 2 - 3) / 2 + 1 = 4. */
		pool_case(_metadata, self, DIMS(2, 3, 8, 8), DIMS(2, 3, 4, 4),
			  &POOL_ATTRS(kind, 3, 2, 1, 1));
		/* Ceil mode: one more, its windows partly past the end. */
		pool_case(_metadata, self, DIMS(2, 3, 8, 8), DIMS(2, 3, 5, 5),
			  &POOL_ATTRS(kind, 3, 2, 1, 1));
		/* Odd sizes, no padding, kernel 2 stride 1. */
		pool_case(_metadata, self, DIMS(1, 5, 7, 9), DIMS(1, 5, 6, 8),
			  &POOL_ATTRS(kind, 2, 1, 1, 0));
	}
	/* Dilated max pooling. */
	pool_case(_metadata, self, DIMS(1, 2, 9, 9), DIMS(1, 2, 5, 5),
		  &POOL_ATTRS(NPU_POOL_MAX, 3, 1, 2, 0));
	/* A global average. */
	pool_case(_metadata, self, DIMS(2, 7, 5, 6), DIMS(2, 7, 1, 1),
		  &(struct npu_attr_pool){ .kind = NPU_POOL_AVG_EXCLUDE_PAD, .kernel = { 5, 6 },
					   .strides = { 1, 1 }, .dilations = { 1, 1 } });
}

TEST_F(result, batchnorm_and_layernorm)
{
	const struct ref_tensor *in[5];
	struct ref_tensor *x, *scale, *bias;
	struct npu_op_desc *d;
	unsigned int i;

	if (self->operators & 1ULL << NPU_OPERATOR_BATCHNORM) {
		in[0] = DENSE(2, 5, 3, 4);
		for (i = 1; i < 5; i++)
			in[i] = DENSE(5);
		fill(self, &self->t[4], 0.1f, 2);	/* variances */
		DENSE(2, 5, 3, 4);
		d = build(self, NPU_OPERATOR_BATCHNORM);
		d->attrs.norm.epsilon = ref_bits(1e-5f);
		d->attrs.norm.act = activation(NPU_UNARY_RELU, 0, 0);
		ref_batchnorm(in, &d->attrs.norm, self->want);
		EXPECT_EQ(0, run_and_check(self, 1e-5, 1e-4));
	}
	NEED_OPERATOR(NPU_OPERATOR_LAYERNORM);
	/* Over the last two axes, with a bias. */
	forget_tensors(self);
	x = DENSE(3, 4, 6);
	scale = DENSE(4, 6);
	bias = DENSE(4, 6);
	DENSE(3, 4, 6);
	d = build(self, NPU_OPERATOR_LAYERNORM);
	d->attrs.norm.axis = 1;
	d->attrs.norm.epsilon = ref_bits(1e-5f);
	ref_layernorm(x, scale, bias, &d->attrs.norm, self->want);
	EXPECT_EQ(0, run_and_check(self, 1e-4, 1e-4));
	/* Over the last one, without. */
	forget_tensors(self);
	x = DENSE(5, 3, 17);
	scale = DENSE(17);
	DENSE(5, 3, 17);
	d = build(self, NPU_OPERATOR_LAYERNORM);
	d->attrs.norm.axis = 2;
	d->attrs.norm.epsilon = ref_bits(1e-3f);
	ref_layernorm(x, scale, NULL, &d->attrs.norm, self->want);
	EXPECT_EQ(0, run_and_check(self, 1e-4, 1e-4));
}

/* Lower and upper triangles, from a diagonal inside and one past the matrix. */
TEST_F(result, triangle_both_ways)
{
	static const int64_t diagonals[] = { 0, -2, 3, 1LL << 40, -(1LL << 40) };
	struct ref_tensor *x;
	struct npu_op_desc *d;
	unsigned int k, upper;

	NEED_OPERATOR(NPU_OPERATOR_TRIANGLE);
	for (k = 0; k < sizeof(diagonals) / sizeof(diagonals[0]); k++) {
		for (upper = 0; upper < 2; upper++) {
			forget_tensors(self);
			x = tensor(self, NPU_DTYPE_F32, NPU_FORMAT_STRIDED, 3, DIMS(2, 5, 7),
				   DIMS(48, 9, 1));
			DENSE(2, 5, 7);
			d = build(self, NPU_OPERATOR_TRIANGLE);
			d->attrs.triangle.upper = upper;
			d->attrs.triangle.diagonal = (uint64_t)diagonals[k];
			ref_triangle(x, &d->attrs.triangle, self->want);
			EXPECT_EQ(0, run_and_check(self, 0, 0)) TH_LOG("diagonal %lld, upper %u",
								    (long long)diagonals[k], upper);
		}
	}
}

/* RMS norms over one and two axes, a group norm of 1, 2 and C groups. */
TEST_F(result, rmsnorm_and_groupnorm)
{
	static const uint32_t groups[] = { 1, 2, 6 };
	struct ref_tensor *x, *gamma, *beta;
	struct npu_op_desc *d;
	unsigned int axis, i;

	NEED_OPERATOR(NPU_OPERATOR_RMSNORM);
	for (axis = 1; axis < 3; axis++) {
		forget_tensors(self);
		x = DENSE(3, 4, 6);
		gamma = axis == 1 ? DENSE(4, 6) : DENSE(6);
		DENSE(3, 4, 6);
		d = build(self, NPU_OPERATOR_RMSNORM);
		d->attrs.norm.axis = axis;
		d->attrs.norm.epsilon = ref_bits(1e-6f);
		d->attrs.norm.act = activation(NPU_UNARY_SILU, 0, 0);
		ref_rmsnorm(x, gamma, &d->attrs.norm, self->want);
		EXPECT_EQ(0, run_and_check(self, 1e-4, 1e-4)) TH_LOG("axis %u", axis);
	}
	NEED_OPERATOR(NPU_OPERATOR_GROUPNORM);
	for (i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		forget_tensors(self);
		x = DENSE(2, 6, 3, 5);
		gamma = DENSE(6);
		beta = DENSE(6);
		DENSE(2, 6, 3, 5);
		d = build(self, NPU_OPERATOR_GROUPNORM);
		d->attrs.groupnorm.groups = groups[i];
		d->attrs.groupnorm.epsilon = ref_bits(1e-5f);
		ref_groupnorm(x, gamma, beta, &d->attrs.groupnorm, self->want);
		EXPECT_EQ(0, run_and_check(self, 1e-4, 1e-4)) TH_LOG("%u groups", groups[i]);
	}
}

TEST_F(result, softmax_every_axis_and_log)
{
	struct ref_tensor *x;
	struct npu_op_desc *d;
	unsigned int axis, log;

	NEED_OPERATOR(NPU_OPERATOR_SOFTMAX);
	for (axis = 0; axis < 3; axis++) {
		for (log = 0; log < 2; log++) {
			forget_tensors(self);
			x = DENSE(3, 5, 7);
			fill(self, x, -5, 5);
			DENSE(3, 5, 7);
			d = build(self, NPU_OPERATOR_SOFTMAX);
			d->attrs.softmax.axis = axis;
			d->attrs.softmax.log = log;
			ref_softmax(x, &d->attrs.softmax, self->want);
			EXPECT_EQ(0, run_and_check(self, 1e-6, 1e-4)) TH_LOG("axis %u log %u",
									    axis, log);
		}
	}
}

TEST_F(result, reduce_every_kind_and_axes)
{
	static const uint32_t masks[] = { 1 << 1, 1 << 0 | 1 << 2, 7, 1 << 2 };
	struct ref_tensor *x, *y;
	struct npu_op_desc *d;
	unsigned int kind, m, i;

	NEED_OPERATOR(NPU_OPERATOR_REDUCE);
	/* to values: ARGMAX and ARGMIN give positions, on one axis */
	for (kind = 0; kind <= NPU_REDUCE_PROD; kind++) {
		for (m = 0; m < sizeof(masks) / sizeof(masks[0]); m++) {
			uint64_t ydims[3] = { 4, 5, 6 };

			forget_tensors(self);
			x = DENSE(4, 5, 6);
			/* a product of 120 factors near 1 stays a float */
			if (kind == NPU_REDUCE_PROD)
				fill(self, x, 0.8f, 1.25f);
			for (i = 0; i < 3; i++)
				if (masks[m] >> i & 1)
					ydims[i] = 1;
			y = dense(self, 3, ydims);
			d = build(self, NPU_OPERATOR_REDUCE);
			d->attrs.reduce.kind = kind;
			d->attrs.reduce.axes = masks[m];
			ref_reduce(x, y, &d->attrs.reduce, self->want);
			EXPECT_EQ(0, run_and_check(self, 1e-5, 1e-5)) TH_LOG("kind %u axes %#x",
									    kind, masks[m]);
		}
	}
}

TEST_F(result, concat_transpose_slice)
{
	const struct ref_tensor *in[3];
	struct ref_tensor *x, *y;
	struct npu_op_desc *d;

	if (self->operators & 1ULL << NPU_OPERATOR_CONCAT) {
		in[0] = DENSE(2, 3, 4);
		in[1] = DENSE(2, 1, 4);
		in[2] = tensor(self, NPU_DTYPE_F32, NPU_FORMAT_STRIDED, 3, DIMS(2, 5, 4),
			       DIMS(30, 6, 1));
		y = DENSE(2, 9, 4);
		d = build(self, NPU_OPERATOR_CONCAT);
		d->attrs.concat.axis = 1;
		ref_concat(in, 3, y, &d->attrs.concat, self->want);
		EXPECT_EQ(0, run_and_check(self, 0, 0));
	}
	if (self->operators & 1ULL << NPU_OPERATOR_TRANSPOSE) {
		forget_tensors(self);
		x = DENSE(2, 3, 4, 5);
		y = DENSE(5, 3, 2, 4);
		d = build(self, NPU_OPERATOR_TRANSPOSE);
		memcpy(d->attrs.transpose.perm, (uint32_t[]){ 3, 1, 0, 2 }, 4 * sizeof(uint32_t));
		ref_transpose(x, y, &d->attrs.transpose, self->want);
		EXPECT_EQ(0, run_and_check(self, 0, 0));
	}
	NEED_OPERATOR(NPU_OPERATOR_SLICE);
	/* Every other row from 1, the columns backwards from 4. */
	forget_tensors(self);
	x = DENSE(5, 6);
	y = DENSE(2, 5);
	d = build(self, NPU_OPERATOR_SLICE);
	d->attrs.slice.starts[0] = 1;
	d->attrs.slice.steps[0] = 2;
	d->attrs.slice.starts[1] = 4;
	d->attrs.slice.steps[1] = -1;
	ref_slice(x, y, &d->attrs.slice, self->want);
	EXPECT_EQ(0, run_and_check(self, 0, 0));
}

TEST_F(result, pad_every_mode_and_crop)
{
	static const int32_t begin[] = { 0, 1, 2, 0 }, end[] = { 0, 2, -1, 1 };
	static const int32_t grow_begin[] = { 0, 1, 2, 3 }, grow_end[] = { 1, 2, 1, 0 };
	struct ref_tensor *x, *y;
	struct npu_op_desc *d;
	uint32_t mode;

	NEED_OPERATOR(NPU_OPERATOR_PAD);
	for (mode = NPU_PAD_CONSTANT; mode <= NPU_PAD_EDGE; mode++) {
		forget_tensors(self);
		x = DENSE(2, 3, 4, 5);
		y = DENSE(3, 6, 7, 8);
		d = build(self, NPU_OPERATOR_PAD);
		d->attrs.pad.mode = mode;
		if (mode == NPU_PAD_CONSTANT)
			d->attrs.pad.value = ref_bits(1.5f);
		memcpy(d->attrs.pad.begin, grow_begin, sizeof(grow_begin));
		memcpy(d->attrs.pad.end, grow_end, sizeof(grow_end));
		ref_pad(x, y, &d->attrs.pad, self->want);
		EXPECT_EQ(0, run_and_check(self, 0, 0)) TH_LOG("mode %u", mode);
	}
	/* A negative pad crops. */
	forget_tensors(self);
	x = DENSE(2, 3, 4, 5);
	y = DENSE(2, 6, 5, 6);
	d = build(self, NPU_OPERATOR_PAD);
	d->attrs.pad.value = ref_bits(-3);
	memcpy(d->attrs.pad.begin, begin, sizeof(begin));
	memcpy(d->attrs.pad.end, end, sizeof(end));
	ref_pad(x, y, &d->attrs.pad, self->want);
	EXPECT_EQ(0, run_and_check(self, 0, 0));
}

TEST_F(result, resize_modes)
{
	static const struct {
		uint32_t mode, coord, nearest;
	} cases[] = {
		{ NPU_RESIZE_NEAREST, NPU_RESIZE_ASYMMETRIC, NPU_RESIZE_FLOOR },
		{ NPU_RESIZE_NEAREST, NPU_RESIZE_HALF_PIXEL, NPU_RESIZE_ROUND_PREFER_FLOOR },
		{ NPU_RESIZE_NEAREST, NPU_RESIZE_ALIGN_CORNERS, NPU_RESIZE_ROUND_PREFER_CEIL },
		{ NPU_RESIZE_NEAREST, NPU_RESIZE_ASYMMETRIC, NPU_RESIZE_CEIL },
		{ NPU_RESIZE_LINEAR, NPU_RESIZE_HALF_PIXEL, 0 },
		{ NPU_RESIZE_LINEAR, NPU_RESIZE_ALIGN_CORNERS, 0 },
		{ NPU_RESIZE_LINEAR, NPU_RESIZE_ASYMMETRIC, 0 },
		{ NPU_RESIZE_LINEAR, NPU_RESIZE_PYTORCH_HALF_PIXEL, 0 },
	};
	struct ref_tensor *x, *y;
	struct npu_op_desc *d;
	unsigned int i;

	NEED_OPERATOR(NPU_OPERATOR_RESIZE);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		forget_tensors(self);
		x = DENSE(1, 2, 4, 5);
		y = DENSE(1, 2, 8, 7);
		d = build(self, NPU_OPERATOR_RESIZE);
		d->attrs.resize.mode = cases[i].mode;
		d->attrs.resize.coord = cases[i].coord;
		d->attrs.resize.nearest = cases[i].nearest;
		d->attrs.resize.scales[0] = ref_bits(1);
		d->attrs.resize.scales[1] = ref_bits(1);
		d->attrs.resize.scales[2] = ref_bits(2);
		d->attrs.resize.scales[3] = ref_bits(1.4f);
		ref_resize(x, y, &d->attrs.resize, self->want);
		EXPECT_EQ(0, run_and_check(self, 1e-5, 1e-5)) TH_LOG("case %u", i);
	}
}

TEST_F(result, cast_between_types)
{
	uint16_t from, to;
	struct ref_tensor *x;
	struct npu_op_desc *d;
	uint64_t i;

	NEED_OPERATOR(NPU_OPERATOR_CAST);
	for (from = 0; from <= NPU_DTYPE_LAST; from++) {
		for (to = 0; to <= NPU_DTYPE_LAST; to++) {
			if (!(self->dtypes & 1u << from) || !(self->dtypes & 1u << to))
				continue;
			forget_tensors(self);
			/* Values both types hold exactly: small integers. */
			x = tensor(self, from, NPU_FORMAT_STRIDED, 2, DIMS(7, 9), NULL);
			for (i = 0; i < x->elems; i++)
				x->val[i] = floorf(random_in(self, unsigned_dtype(from) ||
								unsigned_dtype(to) ? 0 : -100,
							  100));
			tensor(self, to, NPU_FORMAT_STRIDED, 2, DIMS(7, 9), NULL);
			d = build(self, NPU_OPERATOR_CAST);
			(void)d;
			/* BOOL: any byte but 0 is true, and true is 1 */
			for (i = 0; i < x->elems; i++)
				self->want[i] = from == NPU_DTYPE_BOOL || to == NPU_DTYPE_BOOL ?
						x->val[i] != 0 : x->val[i];
			EXPECT_EQ(0, run_and_check(self, 0, 0)) TH_LOG("%u to %u", from, to);
		}
	}
}

/* ---- How operators live on a stream ---- */

/* y = -x over 8 x 32 f32 in the pool; want holds -x. */
static void negate_op(struct _test_data_result *self)
{
	struct npu_op_desc *d;
	struct ref_tensor *x;

	forget_tensors(self);
	x = DENSE(8, 32);
	DENSE(8, 32);
	d = build(self, NPU_OPERATOR_UNARY);
	d->attrs.unary.fn = activation(NPU_UNARY_NEG, 0, 0);
	ref_unary(x, &d->attrs.unary, self->want);
}

static long long stream_attr(struct _test_data_result *self, uint32_t id, const char *key,
			     char *text, size_t len)
{
	int ring = test_stream_ring(self->card.bdf, id);

	return ring < 0 ? -1 : test_stream_attr(self->card.bdf, ring, key, text, len);
}

TEST_F(result, tensors_may_end_exactly_at_their_buffers_end)
{
	struct drm_npu_bo_create x, y;
	struct npu_tensor_desc *t;

	NEED_OPERATOR(NPU_OPERATOR_UNARY);
	ASSERT_EQ(0, test_bo_create(self->card.fd, 8 * 32 * 4, 0, &x));
	ASSERT_EQ(0, test_bo_create(self->card.fd, 8 * 32 * 4, 0, &y));
	unary_op(&self->op, x.addr, y.addr);
	EXPECT_EQ(0, run_op(self));
	/* Two rows, the second one ending at the last byte. */
	t = tensor_of(&self->op, 0);
	t->dims[0] = 2;
	t->strides[0] = 224;
	tensor_of(&self->op, 1)->dims[0] = 2;
	EXPECT_EQ(0, run_op(self));
	/* Empty tensors at the start of a buffer: nothing to do. */
	tensor_of(&self->op, 0)->dims[0] = 0;
	tensor_of(&self->op, 1)->dims[0] = 0;
	EXPECT_EQ(0, run_op(self));
	EXPECT_EQ(0, self->card.fence[self->stream.slot].error);
}

TEST_F(result, copy_after_operator_sees_its_result)
{
	struct drm_npu_cmd cmds[2];
	float back[8 * 32];
	uint64_t seq;
	unsigned int i;

	NEED_OPERATOR(NPU_OPERATOR_UNARY);
	negate_op(self);
	ASSERT_EQ(0, upload(self));
	/* One batch: the copy must wait for the operator's writes. */
	cmds[0] = compute_cmd(&self->op, desc_size(&self->op));
	cmds[1] = test_cmd_copy((uintptr_t)back, self->addr[1], sizeof(back), DRM_NPU_CMD_DST_USER);
	ASSERT_EQ(0, test_submit(self->card.fd, self->stream.id, cmds, 2, 0, &seq));
	ASSERT_EQ(0, test_wait(self->card.fd, self->stream.slot, seq, 20000));
	for (i = 0; i < 8 * 32; i++)
		ASSERT_EQ(self->want[i], back[i]) TH_LOG("element %u", i);
}

/* 96 x 200 by 200 x 128: the reference is cheap even in an emulated guest. */
#define WAITED_M	96
#define WAITED_K	200
#define WAITED_N	128

TEST_F(result, another_stream_waits_for_an_operators_result)
{
	struct drm_npu_stream_create reader;
	struct drm_npu_cmd producer[2], consumer[2];
	uint64_t seq_p, seq_c, i, n = WAITED_M * WAITED_N;
	uint32_t ev;
	float *back;

	NEED_OPERATOR(NPU_OPERATOR_MATMUL);
	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &reader));
	ASSERT_EQ(0, test_slot_alloc(self->card.fd, &ev));
	forget_tensors(self);
	DENSE(WAITED_M, WAITED_K);
	DENSE(WAITED_K, WAITED_N);
	DENSE(WAITED_M, WAITED_N);
	build(self, NPU_OPERATOR_MATMUL)->attrs.matmul.alpha = ref_bits(1);
	ref_matmul(&self->t[0], &self->t[1], NULL, &self->t[2], &desc_of(&self->op)->attrs.matmul,
		   self->want);
	ASSERT_EQ(0, upload(self));
	back = calloc(n, sizeof(float));
	ASSERT_NE(NULL, back);

	/* The reader is queued first: it waits on the card for the event. */
	consumer[0] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_SLOT_WAIT, .slot = ev, .value = 1 };
	consumer[1] = test_cmd_copy((uintptr_t)back, self->addr[2], n * 4, DRM_NPU_CMD_DST_USER);
	ASSERT_EQ(0, test_submit(self->card.fd, reader.id, consumer, 2, 0, &seq_c));
	producer[0] = compute_cmd(&self->op, desc_size(&self->op));
	producer[1] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_SLOT_WRITE, .slot = ev, .value = 1 };
	ASSERT_EQ(0, test_submit(self->card.fd, self->stream.id, producer, 2, 0, &seq_p));
	ASSERT_EQ(0, test_wait(self->card.fd, reader.slot, seq_c, 20000));
	for (i = 0; i < n; i++)
		if (!close_enough(back[i], self->want[i], 2e-5 * WAITED_K, 1e-5))
			break;
	EXPECT_EQ(n, i) TH_LOG("%.9g, want %.9g", back[i], self->want[i]);
	free(back);
}

TEST_F(result, disagreeing_shapes_fail_the_stream_with_op_param)
{
	struct drm_npu_stream_create other;
	struct drm_npu_cmd cmds[2];
	char state[32];
	uint64_t seq;
	uint32_t ev;

	NEED_OPERATOR(NPU_OPERATOR_MATMUL);
	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &other));
	ASSERT_EQ(0, test_slot_alloc(self->card.fd, &ev));
	/* 4 x 5 times 6 x 7: the driver cannot tell, the card can. */
	DENSE(4, 5);
	DENSE(6, 7);
	DENSE(4, 7);
	build(self, NPU_OPERATOR_MATMUL)->attrs.matmul.alpha = ref_bits(1);
	cmds[0] = compute_cmd(&self->op, desc_size(&self->op));
	cmds[1] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_SLOT_WRITE, .slot = ev, .value = 1 };
	ASSERT_EQ(0, test_submit(self->card.fd, self->stream.id, cmds, 2, 0, &seq));
	EXPECT_EQ(-EIO, test_wait(self->card.fd, self->stream.slot, seq, 20000));
	EXPECT_EQ(DRM_NPU_ERR_OP_PARAM, self->card.fence[self->stream.slot].error);
	EXPECT_EQ(-EIO, test_wait(self->card.fd, ev, 1, 1000));
	EXPECT_EQ(DRM_NPU_ERR_OP_PARAM, self->card.fence[ev].error);
	stream_attr(self, self->stream.id, "state", state, sizeof(state));
	EXPECT_STREQ("failed", state);
	EXPECT_EQ(-EIO, test_submit(self->card.fd, self->stream.id, cmds, 1, 0, NULL));
	/* The card goes on with other streams' operators. */
	negate_op(self);
	self->stream = other;
	EXPECT_EQ(0, run_and_check(self, 0, 0));
}

/* Runs self->op on a stream of its own: the card may fail it. */
static int run_on_new_stream(struct _test_data_result *self, uint32_t *error)
{
	int ret;

	ret = test_stream_create(self->card.fd, 0, 0, &self->stream);
	if (!ret)
		ret = run_op(self);
	*error = self->card.fence[self->stream.slot].error;
	return ret;
}

TEST_F(result, what_only_the_card_checks_fails_the_stream)
{
	struct npu_tensor_desc *x;
	struct npu_op_desc *d;
	uint32_t error;

	NEED_OPERATOR(NPU_OPERATOR_UNARY);
	negate_op(self);
	ASSERT_EQ(0, upload(self));
	d = desc_of(&self->op);
	x = tensor_of(&self->op, 0);

	/* Input elements overlapping other than by a stride of 0. */
	x->dims[0] = 8;
	x->strides[0] = 16;
	EXPECT_EQ(-EIO, run_on_new_stream(self, &error));
	EXPECT_EQ(DRM_NPU_ERR_OP_PARAM, error);
	x->strides[0] = 32;
	/* Not aligned to its element. */
	x->addr += 2;
	EXPECT_EQ(-EIO, run_on_new_stream(self, &error));
	EXPECT_EQ(DRM_NPU_ERR_OP_PARAM, error);
	x->addr -= 2;
	/* A function the card does not know. */
	d->attrs.unary.fn.kind = NPU_UNARY_LAST + 1;
	EXPECT_EQ(-EIO, run_on_new_stream(self, &error));
	EXPECT_EQ(DRM_NPU_ERR_OP_UNSUPPORTED, error);
	/* Clip bounds the wrong way round. */
	d->attrs.unary.fn = activation(NPU_UNARY_CLIP, 1, -1);
	EXPECT_EQ(-EIO, run_on_new_stream(self, &error));
	EXPECT_EQ(DRM_NPU_ERR_OP_PARAM, error);
	/* Shapes that disagree. */
	d->attrs.unary.fn = activation(NPU_UNARY_NEG, 0, 0);
	tensor_of(&self->op, 1)->dims[1] = 31;
	EXPECT_EQ(-EIO, run_on_new_stream(self, &error));
	EXPECT_EQ(DRM_NPU_ERR_OP_PARAM, error);
	/* And the same operator, right, runs. */
	tensor_of(&self->op, 1)->dims[1] = 32;
	EXPECT_EQ(0, run_on_new_stream(self, &error));
	EXPECT_EQ(0, error);
}

/* An input read through a stride of 0 repeats its first row. */
TEST_F(result, broadcast_input_by_stride_0)
{
	struct ref_tensor *x;
	uint64_t i;

	NEED_OPERATOR(NPU_OPERATOR_UNARY);
	negate_op(self);
	x = &self->t[0];
	tensor_of(&self->op, 0)->strides[0] = 0;
	for (i = 0; i < 8 * 32; i++)
		self->want[i] = -x->val[i % 32];
	EXPECT_EQ(0, run_and_check(self, 0, 0));
}

static uint64_t f64_bits(double d)
{
	uint64_t bits;

	memcpy(&bits, &d, sizeof(bits));
	return bits;
}

/* FILL writes a range from nothing; WHERE picks by a condition. */
TEST_F(result, fill_and_where)
{
	struct ref_tensor *c, *a, *b;
	struct npu_op_desc *d;
	uint64_t i;

	NEED_OPERATOR(NPU_OPERATOR_FILL);
	NEED_OPERATOR(NPU_OPERATOR_WHERE);
	forget_tensors(self);
	DENSE(8, 32);
	d = build(self, NPU_OPERATOR_FILL);
	d->attrs.fill.mode = NPU_FILL_RANGE;
	d->attrs.fill.value = f64_bits(-3);
	d->attrs.fill.step = f64_bits(0.25);
	for (i = 0; i < 8 * 32; i++)
		self->want[i] = -3 + 0.25 * i;
	EXPECT_EQ(0, run_and_check(self, 0, 0));

	forget_tensors(self);
	c = DENSE(8, 1);
	a = DENSE(8, 32);
	b = DENSE(1, 32);
	DENSE(8, 32);
	for (i = 0; i < 8; i++)
		c->val[i] = i % 3 ? 0 : 1.5f;
	build(self, NPU_OPERATOR_WHERE);
	for (i = 0; i < 8 * 32; i++)
		self->want[i] = c->val[i / 32] ? a->val[i] : b->val[i % 32];
	EXPECT_EQ(0, run_and_check(self, 0, 0));
}

/* The output's image on the card is still what upload() wrote there. */
static bool output_unchanged(struct _test_data_result *self)
{
	const struct ref_tensor *y = &self->t[self->nt - 1];
	uint64_t bytes = y->elems * NPU_DTYPE_SIZE(y->dtype), seq;
	uint8_t *want = malloc(bytes + 1), *got = malloc(bytes + 1);
	struct drm_npu_cmd back = test_cmd_copy((uintptr_t)got, self->addr[self->nt - 1], bytes,
						DRM_NPU_CMD_DST_USER);
	bool same = false;

	pack(y, want);
	if (!test_submit(self->card.fd, self->stream.id, &back, 1, 0, &seq) &&
	    !test_wait(self->card.fd, self->stream.slot, seq, 60000))
		same = !memcmp(want, got, bytes);
	free(want);
	free(got);
	return same;
}

/* What only the card checks of the new kinds fails the stream with OP_PARAM. */
TEST_F(result, bad_new_attributes_fail_the_stream)
{
	struct npu_op_desc *d;
	uint32_t error;

	NEED_OPERATOR(NPU_OPERATOR_GROUPNORM);
	DENSE(2, 6, 4);
	DENSE(6);
	DENSE(6);
	DENSE(2, 6, 4);
	d = build(self, NPU_OPERATOR_GROUPNORM);
	d->attrs.groupnorm.groups = 4;		/* does not divide 6 */
	ASSERT_EQ(0, upload(self));
	EXPECT_EQ(-EIO, run_on_new_stream(self, &error));
	EXPECT_EQ(DRM_NPU_ERR_OP_PARAM, error);
	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &self->stream));
	EXPECT_TRUE(output_unchanged(self));
}

/*
 * GATHER: a middle axis by a matrix of indices, negative ones too; an index
 * outside the axis fails the stream with OP_PARAM, its output untouched.
 */
TEST_F(result, gather_and_an_index_out_of_range)
{
	static const int32_t ind[] = { 2, -1, 0, 1, -3, 2 };
	struct ref_tensor *x, *i, *y;
	struct npu_op_desc *d;
	uint32_t error;
	unsigned int k;

	NEED_OPERATOR(NPU_OPERATOR_GATHER);
	x = tensor(self, NPU_DTYPE_F32, NPU_FORMAT_STRIDED, 3, DIMS(4, 3, 5), DIMS(20, 6, 1));
	i = tensor(self, NPU_DTYPE_S32, NPU_FORMAT_STRIDED, 2, DIMS(2, 3), NULL);
	for (k = 0; k < 6; k++)
		i->val[k] = ind[k];
	y = DENSE(4, 2, 3, 5);
	d = build(self, NPU_OPERATOR_GATHER);
	d->attrs.gather.axis = 1;
	ref_gather(x, i, y, &d->attrs.gather, self->want);
	EXPECT_EQ(0, run_and_check(self, 0, 0));

	/* 3 is past an axis of 3; the stream fails before y is written. */
	i->val[4] = 3;
	ASSERT_EQ(0, upload(self));
	EXPECT_EQ(-EIO, run_on_new_stream(self, &error));
	EXPECT_EQ(DRM_NPU_ERR_OP_PARAM, error);
	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &self->stream));
	EXPECT_TRUE(output_unchanged(self));
}

static int inject_fault(struct _test_data_result *self, const char *kind)
{
	char what[64];
	int ring = test_stream_ring(self->card.bdf, self->stream.id);

	if (ring < 0)
		return -ENOENT;
	self->fault_ring = ring;
	snprintf(what, sizeof(what), "%s %d", kind, ring);
	return test_inject(self->card.bdf, what);
}

TEST_F(result, fail_op_fault_fails_the_stream)
{
	struct drm_npu_cmd cmd;
	uint64_t seq;

	NEED_OPERATOR(NPU_OPERATOR_UNARY);
	negate_op(self);
	ASSERT_EQ(0, upload(self));
	cmd = compute_cmd(&self->op, desc_size(&self->op));
	/* No assertion between arming and the operator that takes it. */
	ASSERT_EQ(0, inject_fault(self, "fail_op"));
	EXPECT_EQ(0, test_submit(self->card.fd, self->stream.id, &cmd, 1, 0, &seq));
	EXPECT_EQ(-EIO, test_wait(self->card.fd, self->stream.slot, seq, 20000));
	EXPECT_EQ(DRM_NPU_ERR_OP_FAILED, self->card.fence[self->stream.slot].error);
	EXPECT_EQ(0, test_stream_destroy(self->card.fd, self->stream.id, 0));
}

TEST_F(result, hang_op_fault_is_declared_hung)
{
	struct drm_npu_cmd cmd;
	int64_t start, took = 0;
	char state[32];
	uint64_t seq;
	int ret;

	NEED_OPERATOR(NPU_OPERATOR_UNARY);
	negate_op(self);
	cmd = compute_cmd(&self->op, desc_size(&self->op));
	/*
	 * The timeout is set before the stream's first work, whose check it
	 * schedules; the harness skips the teardown after a failed
	 * assertion, so none until the timeout is back.
	 */
	ASSERT_EQ(0, test_set_driver_param("hang_timeout_ms", 500));
	ret = upload(self);
	if (!ret)
		ret = inject_fault(self, "hang_op");
	if (!ret) {
		start = test_now_ns();
		ret = test_submit(self->card.fd, self->stream.id, &cmd, 1, 0, &seq);
		if (!ret)
			ret = test_wait(self->card.fd, self->stream.slot, seq, 20000);
		took = test_now_ns() - start;
	}
	test_set_driver_param("hang_timeout_ms", self->hang_timeout);
	EXPECT_EQ(-EIO, ret);
	EXPECT_EQ(DRM_NPU_ERR_HANG, self->card.fence[self->stream.slot].error);
	/* Within a few checks of the timeout. */
	EXPECT_LT(took, 5000000000LL);
	stream_attr(self, self->stream.id, "state", state, sizeof(state));
	EXPECT_STREQ("hung", state);
	EXPECT_EQ(0, test_stream_destroy(self->card.fd, self->stream.id, 0));
}

/* A product of two @n x @n matrices, at @addr. */
static void square_matmul(struct op *op, uint64_t addr, uint64_t n)
{
	unsigned int i;

	op_init(op, NPU_OPERATOR_MATMUL, 2, 1);
	desc_of(op)->attrs.matmul.alpha = ref_bits(1);
	for (i = 0; i < 3; i++)
		tensor_dense(tensor_of(op, i), addr + i * n * n * 4, NPU_DTYPE_F32, 2,
			     DIMS(n, n));
}

/*
 * 1024 to 1024 channels of 96 x 96 by 3 x 3: 174 GFLOP from 113 MiB, which
 * takes a host core seconds.
 */
#define LONG_CHANNELS	1024
#define LONG_SIDE	96
#define LONG_HANG_MS	300

static void long_conv(struct op *op, uint64_t addr)
{
	uint64_t map = LONG_CHANNELS * LONG_SIDE * LONG_SIDE * 4;
	struct npu_attr_conv *conv = &desc_of(op)->attrs.conv;

	op_init(op, NPU_OPERATOR_CONV2D, 2, 1);
	tensor_dense(tensor_of(op, 0), addr, NPU_DTYPE_F32, 4,
		     DIMS(1, LONG_CHANNELS, LONG_SIDE, LONG_SIDE));
	tensor_dense(tensor_of(op, 1), addr + map, NPU_DTYPE_F32, 4,
		     DIMS(LONG_CHANNELS, LONG_CHANNELS, 3, 3));
	tensor_dense(tensor_of(op, 2), addr + 2 * map, NPU_DTYPE_F32, 4,
		     DIMS(1, LONG_CHANNELS, LONG_SIDE, LONG_SIDE));
	conv->strides[0] = conv->strides[1] = 1;
	conv->dilations[0] = conv->dilations[1] = 1;
	conv->pads_begin[0] = conv->pads_begin[1] = 1;
	conv->group = 1;
}

TEST_F_TIMEOUT(result, long_operator_is_not_a_hang, 300)
{
	struct drm_npu_bo_create big;
	long long before, after;
	int ret;

	NEED_OPERATOR(NPU_OPERATOR_CONV2D);
	forget_tensors(self);
	ASSERT_EQ(0, test_bo_close(self->card.fd, self->pool.handle));
	ASSERT_EQ(0, test_bo_create(self->card.fd, 120u << 20, 0, &big));
	long_conv(&self->op, big.addr);
	before = stream_attr(self, self->stream.id, "compute_ns", NULL, 0);
	/* The harness skips the teardown after a failed assertion: none here. */
	ASSERT_EQ(0, test_set_driver_param("hang_timeout_ms", LONG_HANG_MS));
	ret = run_op(self);
	test_set_driver_param("hang_timeout_ms", self->hang_timeout);
	after = stream_attr(self, self->stream.id, "compute_ns", NULL, 0);
	ASSERT_EQ(0, ret) TH_LOG("slot error %u", self->card.fence[self->stream.slot].error);
	if (after - before < 2 * LONG_HANG_MS * 1000000LL)
		SKIP(return, "the operator took %lld ns: too fast to outlast two hang checks",
		     after - before);
}

/*
 * The child runs long products until killed: 4096^3 is a single oneDNN
 * primitive of seconds, which the card finishes before it confirms the
 * ring's reset.
 */
static void compute_until_killed(int ready_fd)
{
	struct drm_npu_stream_create s;
	struct drm_npu_bo_create dev;
	struct drm_npu_cmd cmds[4];
	struct test_card card;
	struct op *op = calloc(1, sizeof(*op));
	uint64_t n = 4096, bytes = n * n * 4;
	unsigned int i;

	if (!op || test_card_open(&card, 0) || test_stream_create(card.fd, 0, 0, &s) ||
	    test_bo_create(card.fd, 3 * bytes, 0, &dev))
		_exit(1);
	square_matmul(op, dev.addr, n);
	for (i = 0; i < 4; i++)
		cmds[i] = compute_cmd(op, desc_size(op));
	if (test_submit(card.fd, s.id, cmds, 4, 0, NULL))
		_exit(3);
	if (write(ready_fd, "x", 1) != 1)
		_exit(4);
	pause();
	_exit(5);
}

/* The ring of the one stream process @pid has on the card; -1 if none. */
static int stream_ring_of(const char *bdf, pid_t pid)
{
	char path[PATH_MAX];
	struct dirent *de;
	int ring = -1;
	unsigned int r;
	DIR *dir;

	snprintf(path, sizeof(path), TEST_PCI_DEVICES "/%s/streams", bdf);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((de = readdir(dir)) && ring < 0)
		if (sscanf(de->d_name, "%u", &r) == 1 &&
		    test_stream_attr(bdf, r, "pid", NULL, 0) == pid)
			ring = r;
	closedir(dir);
	return ring;
}

TEST_F(result, killed_mid_operator_gives_everything_back)
{
	struct test_baseline before, during, after;
	int pipefd[2], status, ring;
	char c, state[32] = "";
	pid_t pid;

	NEED_OPERATOR(NPU_OPERATOR_MATMUL);
	test_card_close(&self->card);
	before = test_read_baseline(self->card.bdf);

	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid)
		compute_until_killed(pipefd[1]);
	ASSERT_EQ(1, read(pipefd[0], &c, 1));
	usleep(100 * 1000);
	during = test_read_baseline(self->card.bdf);
	EXPECT_GT(during.devmem, before.devmem);
	EXPECT_EQ(before.rings + 1, during.rings);
	/* Killed in the middle of its first operator. */
	ring = stream_ring_of(self->card.bdf, pid);
	ASSERT_LE(0, ring);
	test_stream_attr(self->card.bdf, ring, "state", state, sizeof(state));
	EXPECT_STREQ("busy", state);
	EXPECT_EQ(0, test_stream_attr(self->card.bdf, ring, "ops_done", NULL, 0));

	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));

	after = test_settled_baseline(self->card.bdf, &before);
	EXPECT_EQ(before.devmem, after.devmem);
	EXPECT_EQ(before.rings, after.rings);
	EXPECT_EQ(before.pinned, after.pinned);
	close(pipefd[0]);
	close(pipefd[1]);
}

TEST_F(result, counters_in_sysfs_and_fdinfo)
{
	long long ns0, ns1, ctx_ns0, ops0;
	uint64_t engines;
	int i;

	NEED_OPERATOR(NPU_OPERATOR_UNARY);
	ASSERT_EQ(0, test_param(self->card.fd, DRM_NPU_PARAM_NUM_COMPUTE_ENGINES, &engines));
	EXPECT_EQ(0, stream_attr(self, self->stream.id, "ops_done", NULL, 0));
	ns0 = stream_attr(self, self->stream.id, "compute_ns", NULL, 0);
	EXPECT_EQ(0, ns0);
	ctx_ns0 = test_fdinfo_value(self->card.fd, "drm-engine-compute");
	ops0 = test_fdinfo_value(self->card.fd, "npu-ops-done");
	EXPECT_EQ(0, ctx_ns0);
	EXPECT_EQ(0, ops0);
	if (engines > 1)
		EXPECT_EQ((long long)engines, test_fdinfo_value(self->card.fd,
							   "drm-engine-capacity-compute"));

	negate_op(self);
	ASSERT_EQ(0, upload(self));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, run_op(self));
	EXPECT_EQ(3, stream_attr(self, self->stream.id, "ops_done", NULL, 0));
	ns1 = stream_attr(self, self->stream.id, "compute_ns", NULL, 0);
	EXPECT_GT(ns1, ns0);
	EXPECT_EQ(3, test_fdinfo_value(self->card.fd, "npu-ops-done"));
	EXPECT_EQ(ns1, test_fdinfo_value(self->card.fd, "drm-engine-compute"));
	/* Copies are not operators. */
	ASSERT_EQ(0, upload(self));
	EXPECT_EQ(3, stream_attr(self, self->stream.id, "ops_done", NULL, 0));
	EXPECT_EQ(ns1, stream_attr(self, self->stream.id, "compute_ns", NULL, 0));

	/* A second stream of the context adds to the context's totals. */
	{
		struct drm_npu_stream_create second;

		ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &second));
		self->stream = second;
		ASSERT_EQ(0, run_op(self));
		EXPECT_EQ(1, stream_attr(self, second.id, "ops_done", NULL, 0));
		EXPECT_EQ(4, test_fdinfo_value(self->card.fd, "npu-ops-done"));
		EXPECT_GT(test_fdinfo_value(self->card.fd, "drm-engine-compute"), ns1);
	}
}

/*
 * The card's total counts every context's operators: this one's among
 * them. Reading fdinfo brings the context's counters up to date first.
 */
TEST_F(result, device_compute_ns_counts_contexts)
{
	long long ctx0, ctx1, ctx2;
	uint64_t dev0, dev1, dev2;
	int i;

	NEED_OPERATOR(NPU_OPERATOR_UNARY);
	ctx0 = test_fdinfo_value(self->card.fd, "drm-engine-compute");
	ASSERT_EQ(0, test_param(self->card.fd, DRM_NPU_PARAM_COMPUTE_NS, &dev0));
	negate_op(self);
	ASSERT_EQ(0, upload(self));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, run_op(self));
	ctx1 = test_fdinfo_value(self->card.fd, "drm-engine-compute");
	ASSERT_EQ(0, test_param(self->card.fd, DRM_NPU_PARAM_COMPUTE_NS, &dev1));
	EXPECT_GT(ctx1, ctx0);
	EXPECT_GE((long long)(dev1 - dev0), ctx1 - ctx0);
	/* Copies are not operators. */
	ASSERT_EQ(0, upload(self));
	ctx2 = test_fdinfo_value(self->card.fd, "drm-engine-compute");
	ASSERT_EQ(0, test_param(self->card.fd, DRM_NPU_PARAM_COMPUTE_NS, &dev2));
	EXPECT_EQ(ctx1, ctx2);
	EXPECT_EQ(dev1, dev2);
}

TEST_HARNESS_MAIN
