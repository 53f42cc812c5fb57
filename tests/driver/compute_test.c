// SPDX-License-Identifier: GPL-2.0-only
/*
 * Operators (DRM_NPU_OP_COMPUTE): the driver refuses every descriptor
 * whose structure is wrong or whose tensors leave the caller's buffers,
 * with the documented errno and nothing queued or held.
 */

#include <stddef.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "npu_test_ioctl.h"
#include "npu_operator.h"

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

static const unsigned int dtype_bytes[] = {
	[NPU_DTYPE_F32] = 4, [NPU_DTYPE_BF16] = 2, [NPU_DTYPE_F16] = 2,
	[NPU_DTYPE_S32] = 4, [NPU_DTYPE_S8] = 1, [NPU_DTYPE_U8] = 1,
};

/* A dense row-major tensor; returns its bytes. */
static uint64_t tensor_dense(struct npu_tensor_desc *t, uint64_t addr, uint16_t dtype,
			     unsigned int ndims, const uint64_t *dims)
{
	uint64_t stride = 1;
	int d;

	memset(t, 0, sizeof(*t));
	t->addr = addr;
	t->dtype = dtype;
	t->format = NPU_FORMAT_STRIDED;
	t->ndims = ndims;
	for (d = (int)ndims - 1; d >= 0; d--) {
		t->dims[d] = dims[d];
		t->strides[d] = stride;
		stride *= dims[d];
	}
	return stride * dtype_bytes[dtype];
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
	static const uint64_t addrs[] = {
		0, 64, DRM_NPU_DEVICE_ADDR_BASE - 64, DRM_NPU_DEVICE_ADDR_BASE,
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
	static const uint16_t formats[] = { NPU_FORMAT_NCHW16C + 1, 0x100, 0xffff };
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
	tensor_of(&self->op, 1)->rsvd = 1;
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

TEST_F(compute, wrong_sizes_and_counts_are_einval)
{
	static const struct {
		uint16_t kind;
		uint8_t inputs, outputs;
	} counts[] = {
		{ NPU_OPERATOR_UNARY, 2, 1 }, { NPU_OPERATOR_UNARY, 1, 0 },
		{ NPU_OPERATOR_UNARY, 1, 2 }, { NPU_OPERATOR_UNARY, 0, 1 },
		{ NPU_OPERATOR_CONV2D, 1, 1 }, { NPU_OPERATOR_CONV2D, 4, 1 },
		{ NPU_OPERATOR_MATMUL, 4, 1 }, { NPU_OPERATOR_BINARY, 3, 1 },
		{ NPU_OPERATOR_BATCHNORM, 4, 1 }, { NPU_OPERATOR_LAYERNORM, 1, 1 },
		{ NPU_OPERATOR_CONCAT, 0, 1 }, { NPU_OPERATOR_CONCAT, 15, 2 },
		{ NPU_OPERATOR_CAST, 1, 2 },
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

TEST_HARNESS_MAIN
