// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every ioctl: the good path, and bad input (size, flags, padding, handles,
 * slots, ranges) rejected with the documented errno and without effect.
 */

#include "kselftest_harness.h"
#include "npu_test_ioctl.h"

FIXTURE(uapi) {
	struct test_card card;
	struct drm_npu_stream_create stream;
	struct drm_npu_bo_create dev_bo;
	struct drm_npu_bo_create host_bo;
	void *host_map;
};

FIXTURE_SETUP(uapi)
{
	ASSERT_EQ(0, test_card_open(&self->card, 0));
	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &self->stream));
	ASSERT_EQ(0, test_bo_create(self->card.fd, 4096, DRM_NPU_BO_DEVICE, &self->dev_bo));
	ASSERT_EQ(0, test_bo_create(self->card.fd, 8192, DRM_NPU_BO_HOST, &self->host_bo));
	self->host_map = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED,
			      self->card.fd, self->host_bo.mmap_offset);
	ASSERT_NE(MAP_FAILED, self->host_map);
}

FIXTURE_TEARDOWN(uapi)
{
	munmap(self->host_map, 8192);
	test_card_close(&self->card);
}

/* The same ioctl number with another argument size. */
#define RESIZED(cmd, size) \
	((unsigned long)(((cmd) & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT)) | \
			 ((unsigned long)(size) << _IOC_SIZESHIFT)))

TEST_F(uapi, wrong_argument_size)
{
	char buf[256] = { 0 };
	static const unsigned long cmds[] = {
		DRM_IOCTL_NPU_GET_PARAM, DRM_IOCTL_NPU_BO_CREATE,
		DRM_IOCTL_NPU_STREAM_CREATE, DRM_IOCTL_NPU_STREAM_DESTROY,
		DRM_IOCTL_NPU_SUBMIT, DRM_IOCTL_NPU_WAIT, DRM_IOCTL_NPU_SLOT_ALLOC,
		DRM_IOCTL_NPU_SLOT_FREE, DRM_IOCTL_NPU_SLOT_SIGNAL,
	};
	unsigned int i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		unsigned int size = _IOC_SIZE(cmds[i]);

		EXPECT_EQ(-EINVAL, test_ioctl(self->card.fd, RESIZED(cmds[i], size - 4), buf));
		EXPECT_EQ(-EINVAL, test_ioctl(self->card.fd, RESIZED(cmds[i], size + 8), buf));
	}
	EXPECT_EQ(-EINVAL, test_ioctl(self->card.fd,
				      DRM_IOWR(DRM_COMMAND_BASE + 0x30, uint64_t), buf));
}

TEST_F(uapi, get_param)
{
	struct drm_npu_get_param p = { .param = DRM_NPU_PARAM_NUM_RINGS };
	uint64_t v;

	ASSERT_EQ(0, test_ioctl(self->card.fd, DRM_IOCTL_NPU_GET_PARAM, &p));
	EXPECT_EQ(test_card_attr(self->card.bdf, "num_rings"), p.value);
	EXPECT_EQ(0, test_param(self->card.fd, DRM_NPU_PARAM_DEVMEM_SIZE, &v));
	EXPECT_EQ(test_card_attr(self->card.bdf, "devmem_size"), v);
	EXPECT_EQ(0, test_param(self->card.fd, DRM_NPU_PARAM_VERSION, &v));
	EXPECT_EQ(NPU_VERSION, v);
	EXPECT_EQ(0, test_param(self->card.fd, DRM_NPU_PARAM_NUM_SLOTS, &v));
	EXPECT_GE(v, 1024);
	EXPECT_EQ(v * sizeof(struct drm_npu_fence_slot), self->card.fence_size);

	/* The compute capabilities are there, even on a card that does not compute. */
	for (p.param = DRM_NPU_PARAM_NUM_COMPUTE_ENGINES; p.param <= DRM_NPU_PARAM_OP_DESC_MAX;
	     p.param++)
		EXPECT_EQ(0, test_ioctl(self->card.fd, DRM_IOCTL_NPU_GET_PARAM, &p));
	EXPECT_EQ(0, test_param(self->card.fd, DRM_NPU_PARAM_DIRECT_BINDINGS, &v));
	EXPECT_EQ(1024, v);
	EXPECT_EQ(0, test_param(self->card.fd, DRM_NPU_PARAM_COMPUTE_NS, &v));
	EXPECT_EQ(0, test_param(self->card.fd, DRM_NPU_PARAM_RESET_COUNT, &v));
	EXPECT_EQ(0, test_param(self->card.fd, DRM_NPU_PARAM_CTX_LOST, &v));
	EXPECT_EQ(DRM_NPU_RESET_NONE, v);
	EXPECT_EQ(0, test_param(self->card.fd, DRM_NPU_PARAM_VA_WINDOW, &v));
	EXPECT_EQ(0, (v - DRM_NPU_DEVICE_ADDR_BASE) % DRM_NPU_VA_WINDOW_SIZE);
	EXPECT_EQ(0, test_param(self->card.fd, DRM_NPU_PARAM_NUM_PEERS, &v));
	p.param = DRM_NPU_PARAM_NUM_PEERS + 1;
	EXPECT_EQ(-EINVAL, test_ioctl(self->card.fd, DRM_IOCTL_NPU_GET_PARAM, &p));
	p.param = 999;
	EXPECT_EQ(-EINVAL, test_ioctl(self->card.fd, DRM_IOCTL_NPU_GET_PARAM, &p));
	p.param = DRM_NPU_PARAM_NUM_RINGS;
	p.pad = 1;
	EXPECT_EQ(-EINVAL, test_ioctl(self->card.fd, DRM_IOCTL_NPU_GET_PARAM, &p));
}

TEST_F(uapi, clock_advances)
{
	uint64_t a, b;

	ASSERT_EQ(0, test_param(self->card.fd, DRM_NPU_PARAM_CLOCK_NS, &a));
	usleep(20000);
	ASSERT_EQ(0, test_param(self->card.fd, DRM_NPU_PARAM_CLOCK_NS, &b));
	EXPECT_GT(b, a);
}

TEST_F(uapi, bo_create_rejects)
{
	struct drm_npu_bo_create bo = { .size = 64 };
	uint64_t free_before = test_param_or_die(self->card.fd, DRM_NPU_PARAM_DEVMEM_FREE);
	uint64_t total = test_param_or_die(self->card.fd, DRM_NPU_PARAM_DEVMEM_SIZE);

	bo.size = 0;
	EXPECT_EQ(-EINVAL, test_ioctl(self->card.fd, DRM_IOCTL_NPU_BO_CREATE, &bo));
	bo.size = 64;
	bo.flags = 0x80;
	EXPECT_EQ(-EINVAL, test_ioctl(self->card.fd, DRM_IOCTL_NPU_BO_CREATE, &bo));
	bo.flags = 0;
	bo.handle = 5;
	EXPECT_EQ(-EINVAL, test_ioctl(self->card.fd, DRM_IOCTL_NPU_BO_CREATE, &bo));
	bo.handle = 0;
	bo.addr = 1;
	EXPECT_EQ(-EINVAL, test_ioctl(self->card.fd, DRM_IOCTL_NPU_BO_CREATE, &bo));
	bo.addr = 0;
	bo.mmap_offset = 4096;
	EXPECT_EQ(-EINVAL, test_ioctl(self->card.fd, DRM_IOCTL_NPU_BO_CREATE, &bo));
	bo.mmap_offset = 0;
	bo.size = total + 1;
	EXPECT_EQ(-ENOMEM, test_ioctl(self->card.fd, DRM_IOCTL_NPU_BO_CREATE, &bo));
	bo.size = ~0ULL;
	EXPECT_EQ(-ENOMEM, test_ioctl(self->card.fd, DRM_IOCTL_NPU_BO_CREATE, &bo));
	EXPECT_EQ(free_before, test_param_or_die(self->card.fd, DRM_NPU_PARAM_DEVMEM_FREE));
}

TEST_F(uapi, bo_alignment_and_accounting)
{
	uint64_t free_before = test_param_or_die(self->card.fd, DRM_NPU_PARAM_DEVMEM_FREE);
	struct drm_npu_bo_create bos[8];
	int i;

	for (i = 0; i < 8; i++) {
		ASSERT_EQ(0, test_bo_create(self->card.fd, 1 + i * 37, 0, &bos[i]));
		EXPECT_EQ(0, bos[i].addr % DRM_NPU_BO_ADDR_ALIGN);
		EXPECT_GE(bos[i].addr, DRM_NPU_DEVICE_ADDR_BASE);
		EXPECT_EQ(0, bos[i].mmap_offset);
	}
	EXPECT_GT(free_before, test_param_or_die(self->card.fd, DRM_NPU_PARAM_DEVMEM_FREE));
	for (i = 0; i < 8; i++)
		EXPECT_EQ(0, test_bo_close(self->card.fd, bos[i].handle));
	EXPECT_EQ(free_before, test_param_or_die(self->card.fd, DRM_NPU_PARAM_DEVMEM_FREE));
	EXPECT_EQ(-EINVAL, test_bo_close(self->card.fd, bos[0].handle));
}

TEST_F(uapi, device_memory_exhaustion)
{
	uint64_t free_before = test_param_or_die(self->card.fd, DRM_NPU_PARAM_DEVMEM_FREE);
	struct drm_npu_bo_create big, extra;

	ASSERT_EQ(0, test_bo_create(self->card.fd, free_before, 0, &big));
	EXPECT_EQ(0, test_param_or_die(self->card.fd, DRM_NPU_PARAM_DEVMEM_FREE));
	EXPECT_EQ(-ENOMEM, test_bo_create(self->card.fd, 64, 0, &extra));
	EXPECT_EQ(0, test_bo_close(self->card.fd, big.handle));
	EXPECT_EQ(free_before, test_param_or_die(self->card.fd, DRM_NPU_PARAM_DEVMEM_FREE));
}

TEST_F(uapi, host_bo_is_mapped_and_zeroed)
{
	uint8_t *p = self->host_map;
	int i;

	EXPECT_EQ(0, self->host_bo.addr);
	EXPECT_NE(0, self->host_bo.mmap_offset);
	for (i = 0; i < 8192; i++)
		ASSERT_EQ(0, p[i]);
	memset(p, 0xab, 8192);
}

TEST_F(uapi, fence_area_is_read_only)
{
	uint64_t off = test_param_or_die(self->card.fd, DRM_NPU_PARAM_FENCE_MMAP_OFFSET);
	void *p;

	p = mmap(NULL, self->card.fence_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->card.fd, off);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(-1, mprotect(self->card.fence, self->card.fence_size,
			       PROT_READ | PROT_WRITE));
}

TEST_F(uapi, stream_create_rejects)
{
	struct drm_npu_stream_create s;

	memset(&s, 0, sizeof(s));
	s.flags = DRM_NPU_STREAM_DIRECT << 1;
	EXPECT_EQ(-EINVAL, test_ioctl(self->card.fd, DRM_IOCTL_NPU_STREAM_CREATE, &s));
	s.flags = 0;
	s.pad = 1;
	EXPECT_EQ(-EINVAL, test_ioctl(self->card.fd, DRM_IOCTL_NPU_STREAM_CREATE, &s));
	s.pad = 0;
	s.priority = 8;
	EXPECT_EQ(-EINVAL, test_ioctl(self->card.fd, DRM_IOCTL_NPU_STREAM_CREATE, &s));
	s.priority = 0;
	s.ring_entries = 100;
	EXPECT_EQ(-EINVAL, test_ioctl(self->card.fd, DRM_IOCTL_NPU_STREAM_CREATE, &s));
	s.ring_entries = 1u << 30;
	EXPECT_EQ(-EINVAL, test_ioctl(self->card.fd, DRM_IOCTL_NPU_STREAM_CREATE, &s));
	s.ring_entries = 0;
	s.id = 3;
	EXPECT_EQ(-EINVAL, test_ioctl(self->card.fd, DRM_IOCTL_NPU_STREAM_CREATE, &s));
}

TEST_F(uapi, stream_destroy_rejects)
{
	EXPECT_EQ(-ENOENT, test_stream_destroy(self->card.fd, 12345, 0));
	EXPECT_EQ(-EINVAL, test_stream_destroy(self->card.fd, self->stream.id, 0x10));
	EXPECT_EQ(0, test_stream_destroy(self->card.fd, self->stream.id, 0));
	EXPECT_EQ(-ENOENT, test_stream_destroy(self->card.fd, self->stream.id, 0));
	EXPECT_EQ(-ENOENT, test_submit(self->card.fd, self->stream.id,
				       &(struct drm_npu_cmd){ 0 }, 1, 0, NULL));
}

TEST_F(uapi, submit_nop_and_wait)
{
	struct drm_npu_cmd nops[4] = { { 0 } };
	uint64_t seq1, seq2;

	ASSERT_EQ(0, test_submit(self->card.fd, self->stream.id, nops, 4, 0, &seq1));
	ASSERT_EQ(0, test_submit(self->card.fd, self->stream.id, nops, 1, 0, &seq2));
	EXPECT_EQ(seq1 + 1, seq2);
	ASSERT_EQ(0, test_wait(self->card.fd, self->stream.slot, seq2, 10000));
	EXPECT_EQ(seq2, self->card.fence[self->stream.slot].value);
	EXPECT_NE(0, self->card.fence[self->stream.slot].timestamp);
	EXPECT_EQ(0, self->card.fence[self->stream.slot].error);
}

TEST_F(uapi, submit_rejects_batch)
{
	struct drm_npu_cmd cmds[DRM_NPU_MAX_BATCH + 1];
	struct drm_npu_submit s = {
		.stream = self->stream.id, .cmds = (uintptr_t)cmds, .count = 1,
		.cmd_size = sizeof(cmds[0]),
	};

	memset(cmds, 0, sizeof(cmds));
	s.count = 0;
	EXPECT_EQ(-EINVAL, test_ioctl(self->card.fd, DRM_IOCTL_NPU_SUBMIT, &s));
	s.count = DRM_NPU_MAX_BATCH + 1;
	EXPECT_EQ(-EINVAL, test_ioctl(self->card.fd, DRM_IOCTL_NPU_SUBMIT, &s));
	s.count = 1;
	s.cmd_size = 48;
	EXPECT_EQ(-EINVAL, test_ioctl(self->card.fd, DRM_IOCTL_NPU_SUBMIT, &s));
	s.cmd_size = sizeof(cmds[0]);
	s.flags = 0x100;
	EXPECT_EQ(-EINVAL, test_ioctl(self->card.fd, DRM_IOCTL_NPU_SUBMIT, &s));
	s.flags = 0;
	s.seqno = 1;
	EXPECT_EQ(-EINVAL, test_ioctl(self->card.fd, DRM_IOCTL_NPU_SUBMIT, &s));
	s.seqno = 0;
	s.cmds = 16;
	EXPECT_EQ(-EFAULT, test_ioctl(self->card.fd, DRM_IOCTL_NPU_SUBMIT, &s));
	s.cmds = (uintptr_t)cmds;
	s.stream = 999;
	EXPECT_EQ(-ENOENT, test_ioctl(self->card.fd, DRM_IOCTL_NPU_SUBMIT, &s));
	/* Nothing reached the ring. */
	EXPECT_EQ(0, self->card.fence[self->stream.slot].value);
}

static int submit_one(struct _test_data_uapi *self, struct drm_npu_cmd cmd)
{
	return test_submit(self->card.fd, self->stream.id, &cmd, 1, 0, NULL);
}

TEST_F(uapi, submit_rejects_commands)
{
	uint64_t dev = self->dev_bo.addr;
	struct drm_npu_cmd c;
	uint8_t local[64];

	c = (struct drm_npu_cmd){ .op = 42 };
	EXPECT_EQ(-EINVAL, submit_one(self, c));
	c = (struct drm_npu_cmd){ .op = DRM_NPU_OP_NOP, .pad = 1 };
	EXPECT_EQ(-EINVAL, submit_one(self, c));
	c = (struct drm_npu_cmd){ .op = DRM_NPU_OP_NOP, .value = 1 };
	EXPECT_EQ(-EINVAL, submit_one(self, c));

	/* COPY */
	c = test_cmd_copy(dev, dev + 64, 64, 0x100);
	EXPECT_EQ(-EINVAL, submit_one(self, c));
	c = test_cmd_copy(dev, dev + 64, 0, 0);
	EXPECT_EQ(-EINVAL, submit_one(self, c));
	c = test_cmd_copy(dev, dev + 4000, 200, 0);		/* past the buffer */
	EXPECT_EQ(-EPERM, submit_one(self, c));
	c = test_cmd_copy(dev + 8192, dev, 64, 0);		/* no buffer there */
	EXPECT_EQ(-EPERM, submit_one(self, c));
	c = test_cmd_copy(dev, 4096, 64, 0);			/* not a device address */
	EXPECT_EQ(-EPERM, submit_one(self, c));
	c = test_cmd_copy(dev, ~0ULL - 10, 64, 0);		/* wraps */
	EXPECT_EQ(-EPERM, submit_one(self, c));
	c = test_cmd_copy(dev, (uintptr_t)local, 64, DRM_NPU_CMD_SRC_USER | DRM_NPU_CMD_SRC_HOST);
	EXPECT_EQ(-EINVAL, submit_one(self, c));
	c = test_cmd_copy(dev, 0, 64, DRM_NPU_CMD_SRC_HOST);	/* handle 0 */
	EXPECT_EQ(-ENOENT, submit_one(self, c));
	c = test_cmd_copy(dev, 0, 64, DRM_NPU_CMD_SRC_HOST);
	c.src_handle = 77;
	EXPECT_EQ(-ENOENT, submit_one(self, c));
	c.src_handle = self->dev_bo.handle;			/* not a host buffer */
	EXPECT_EQ(-ENOENT, submit_one(self, c));
	c.src_handle = self->host_bo.handle;
	c.src = 8192 - 32;					/* past its end */
	EXPECT_EQ(-EINVAL, submit_one(self, c));
	c.src = ~0ULL - 16;					/* offset wraps */
	EXPECT_EQ(-EINVAL, submit_one(self, c));
	c = test_cmd_copy(dev, (uintptr_t)local, 64, 0);
	c.src_handle = self->host_bo.handle;			/* handle without HOST */
	EXPECT_EQ(-EINVAL, submit_one(self, c));
	c = test_cmd_copy(dev, 0x10, 64, DRM_NPU_CMD_SRC_USER);	/* unmapped */
	EXPECT_EQ(-EFAULT, submit_one(self, c));
	c = test_cmd_copy(dev, 0xffffffffffff0000ULL, 64, DRM_NPU_CMD_SRC_USER);
	EXPECT_EQ(-EFAULT, submit_one(self, c));
	c = test_cmd_copy(dev, ~0ULL - 16, 64, DRM_NPU_CMD_SRC_USER);	/* wraps */
	EXPECT_EQ(-EFAULT, submit_one(self, c));
	c = test_cmd_copy((uintptr_t)"read-only", dev, 8, DRM_NPU_CMD_DST_USER);
	EXPECT_EQ(-EFAULT, submit_one(self, c));

	/* FILL */
	c = test_cmd_fill(dev, 1, 64, 0);
	c.value = 256;
	EXPECT_EQ(-EINVAL, submit_one(self, c));
	c = test_cmd_fill(dev, 1, 64, DRM_NPU_CMD_SRC_HOST);
	EXPECT_EQ(-EINVAL, submit_one(self, c));
	c = test_cmd_fill(dev, 1, 64, 0);
	c.src = 8;
	EXPECT_EQ(-EINVAL, submit_one(self, c));

	/* slots */
	c = (struct drm_npu_cmd){ .op = DRM_NPU_OP_SLOT_WRITE, .slot = 4000, .value = 1 };
	EXPECT_EQ(-EPERM, submit_one(self, c));
	c.slot = self->stream.slot;				/* a stream's slot */
	EXPECT_EQ(-EPERM, submit_one(self, c));
	c = (struct drm_npu_cmd){ .op = DRM_NPU_OP_SLOT_WAIT, .slot = 1u << 31 };
	EXPECT_EQ(-EPERM, submit_one(self, c));
	c = (struct drm_npu_cmd){ .op = DRM_NPU_OP_TIMESTAMP, .slot = 3000 };
	EXPECT_EQ(-EPERM, submit_one(self, c));

	/* values in device memory */
	c = (struct drm_npu_cmd){ .op = DRM_NPU_OP_VALUE_WRITE, .dst = dev + 4, .value = 1 };
	EXPECT_EQ(-EINVAL, submit_one(self, c));
	c.dst = dev + 4096;
	EXPECT_EQ(-EPERM, submit_one(self, c));
	c = (struct drm_npu_cmd){ .op = DRM_NPU_OP_VALUE_WAIT, .dst = dev, .cond = 4 };
	EXPECT_EQ(-EINVAL, submit_one(self, c));

	/* A valid command in a batch with a bad one: nothing runs. */
	{
		struct drm_npu_cmd batch[2] = {
			test_cmd_fill(dev, 0x5a, 64, 0),
			test_cmd_copy(dev, dev + 8192, 64, 0),
		};

		EXPECT_EQ(-EPERM, test_submit(self->card.fd, self->stream.id, batch, 2, 0, NULL));
	}
	EXPECT_EQ(0, self->card.fence[self->stream.slot].value);
	/* And the stream still works. */
	EXPECT_EQ(0, test_run(&self->card, &self->stream, test_cmd_fill(dev, 1, 64, 0)));
}

TEST_F(uapi, slots)
{
	uint64_t free_slots = test_param_or_die(self->card.fd, DRM_NPU_PARAM_FREE_SLOTS);
	struct drm_npu_slot bad = { .pad = 1 };
	uint32_t slot;

	ASSERT_EQ(0, test_slot_alloc(self->card.fd, &slot));
	EXPECT_EQ(free_slots - 1, test_param_or_die(self->card.fd, DRM_NPU_PARAM_FREE_SLOTS));
	EXPECT_EQ(0, self->card.fence[slot].value);

	EXPECT_EQ(0, test_slot_op(self->card.fd, DRM_IOCTL_NPU_SLOT_SIGNAL, slot, 7));
	EXPECT_EQ(7, self->card.fence[slot].value);
	EXPECT_EQ(0, test_wait(self->card.fd, slot, 7, 0));
	EXPECT_EQ(0, test_wait(self->card.fd, slot, 3, 0));

	EXPECT_EQ(-ENOENT, test_slot_op(self->card.fd, DRM_IOCTL_NPU_SLOT_SIGNAL,
					self->stream.slot, 7));
	EXPECT_EQ(-ENOENT, test_slot_op(self->card.fd, DRM_IOCTL_NPU_SLOT_FREE,
					self->stream.slot, 0));
	EXPECT_EQ(-EINVAL, test_ioctl(self->card.fd, DRM_IOCTL_NPU_SLOT_ALLOC, &bad));
	bad.slot = slot;
	EXPECT_EQ(-EINVAL, test_ioctl(self->card.fd, DRM_IOCTL_NPU_SLOT_SIGNAL, &bad));
	EXPECT_EQ(-EINVAL, test_ioctl(self->card.fd, DRM_IOCTL_NPU_SLOT_FREE, &bad));
	bad = (struct drm_npu_slot){ .slot = slot, .value = 1 };
	EXPECT_EQ(-EINVAL, test_ioctl(self->card.fd, DRM_IOCTL_NPU_SLOT_FREE, &bad));
	EXPECT_EQ(7, self->card.fence[slot].value);

	EXPECT_EQ(0, test_slot_op(self->card.fd, DRM_IOCTL_NPU_SLOT_FREE, slot, 0));
	EXPECT_EQ(-ENOENT, test_slot_op(self->card.fd, DRM_IOCTL_NPU_SLOT_FREE, slot, 0));
	EXPECT_EQ(-ENOENT, test_wait(self->card.fd, slot, 1, 0));
	EXPECT_EQ(free_slots, test_param_or_die(self->card.fd, DRM_NPU_PARAM_FREE_SLOTS));
}

TEST_F(uapi, wait_rejects_and_times_out)
{
	struct drm_npu_wait w = { .slot = self->stream.slot, .value = 1, .flags = 1 };
	uint32_t slot;
	int64_t start;

	EXPECT_EQ(-EINVAL, test_ioctl(self->card.fd, DRM_IOCTL_NPU_WAIT, &w));
	EXPECT_EQ(-ENOENT, test_wait(self->card.fd, 4095, 1, 0));
	EXPECT_EQ(-ENOENT, test_wait(self->card.fd, 1u << 31, 1, 0));

	ASSERT_EQ(0, test_slot_alloc(self->card.fd, &slot));
	EXPECT_EQ(-ETIME, test_wait(self->card.fd, slot, 1, 0));
	start = test_now_ns();
	EXPECT_EQ(-ETIME, test_wait(self->card.fd, slot, 1, 100));
	EXPECT_GE(test_now_ns() - start, 100 * 1000000LL);
	/* A deadline in the past. */
	w = (struct drm_npu_wait){ .slot = slot, .value = 1, .timeout_ns = 1 };
	EXPECT_EQ(-ETIME, test_ioctl(self->card.fd, DRM_IOCTL_NPU_WAIT, &w));
}

TEST_HARNESS_MAIN
