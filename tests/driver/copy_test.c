// SPDX-License-Identifier: GPL-2.0-only
/*
 * Data integrity: random data through host-to-device, device-to-device and
 * device-to-host copies, from pageable memory and from pinned host buffers,
 * at sizes from 1 byte to 64 MiB and at unaligned offsets; fills.
 */

#include "kselftest_harness.h"
#include "npu_test_ioctl.h"

#define MAX_SIZE	(64u << 20)

FIXTURE(copy) {
	struct test_card card;
	struct drm_npu_stream_create stream;
	struct drm_npu_bo_create a, b;
	uint8_t *src, *dst;
};

FIXTURE_SETUP(copy)
{
	ASSERT_EQ(0, test_card_open(&self->card, 0));
	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &self->stream));
	ASSERT_EQ(0, test_bo_create(self->card.fd, MAX_SIZE + 4096, 0, &self->a));
	ASSERT_EQ(0, test_bo_create(self->card.fd, MAX_SIZE + 4096, 0, &self->b));
	self->src = malloc(MAX_SIZE + 4096);
	self->dst = malloc(MAX_SIZE + 4096);
	ASSERT_NE(NULL, self->src);
	ASSERT_NE(NULL, self->dst);
}

FIXTURE_TEARDOWN(copy)
{
	free(self->src);
	free(self->dst);
	test_card_close(&self->card);
}

/* Host -> device a -> device b -> host through pageable memory. */
static int round_trip(struct _test_data_copy *self, size_t size, size_t host_off,
		      size_t dev_off, unsigned int seed)
{
	struct drm_npu_cmd cmds[3] = {
		test_cmd_copy(self->a.addr + dev_off, (uintptr_t)self->src + host_off,
			      size, DRM_NPU_CMD_SRC_USER),
		test_cmd_copy(self->b.addr + dev_off + 1, self->a.addr + dev_off, size, 0),
		test_cmd_copy((uintptr_t)self->dst + host_off, self->b.addr + dev_off + 1,
			      size, DRM_NPU_CMD_DST_USER),
	};
	uint64_t seq;
	int ret;

	test_fill_random(self->src + host_off, size, seed);
	memset(self->dst + host_off, 0, size);
	ret = test_submit(self->card.fd, self->stream.id, cmds, 3, 0, &seq);
	if (!ret)
		ret = test_wait(self->card.fd, self->stream.slot, seq, 60000);
	if (!ret && memcmp(self->src + host_off, self->dst + host_off, size))
		ret = -EBADMSG;
	return ret;
}

TEST_F(copy, sizes_from_one_byte_to_64mib)
{
	static const size_t sizes[] = {
		1, 2, 3, 7, 63, 64, 65, 4095, 4096, 4097, 65536 + 3, 1 << 20,
		(1 << 20) + 17, 4u << 20, MAX_SIZE,
	};
	unsigned int i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		EXPECT_EQ(0, round_trip(self, sizes[i], 0, 0, i)) TH_LOG("size %zu", sizes[i]);
}

TEST_F(copy, unaligned_offsets)
{
	unsigned int i;

	for (i = 0; i < 16; i++)
		EXPECT_EQ(0, round_trip(self, 10000 + i * 333, i * 7 + 1, i * 13 + 3, i))
			TH_LOG("case %u", i);
}

TEST_F(copy, pinned_host_buffers)
{
	struct drm_npu_bo_create h1, h2;
	size_t size = (8u << 20) + 123;
	uint8_t *p1, *p2;
	uint64_t seq;
	struct drm_npu_cmd cmds[2];

	ASSERT_EQ(0, test_bo_create(self->card.fd, size, DRM_NPU_BO_HOST, &h1));
	ASSERT_EQ(0, test_bo_create(self->card.fd, size, DRM_NPU_BO_HOST, &h2));
	p1 = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, self->card.fd, h1.mmap_offset);
	p2 = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, self->card.fd, h2.mmap_offset);
	ASSERT_NE(MAP_FAILED, p1);
	ASSERT_NE(MAP_FAILED, p2);

	test_fill_random(p1, size, 99);
	cmds[0] = test_cmd_copy(self->a.addr + 5, 3, size - 3, DRM_NPU_CMD_SRC_HOST);
	cmds[0].src_handle = h1.handle;
	cmds[1] = test_cmd_copy(1, self->a.addr + 5, size - 3, DRM_NPU_CMD_DST_HOST);
	cmds[1].dst_handle = h2.handle;
	ASSERT_EQ(0, test_submit(self->card.fd, self->stream.id, cmds, 2, 0, &seq));
	ASSERT_EQ(0, test_wait(self->card.fd, self->stream.slot, seq, 60000));
	EXPECT_EQ(0, memcmp(p1 + 3, p2 + 1, size - 3));
	EXPECT_EQ(0, p2[0]);

	munmap(p1, size);
	munmap(p2, size);
	EXPECT_EQ(0, test_bo_close(self->card.fd, h1.handle));
	EXPECT_EQ(0, test_bo_close(self->card.fd, h2.handle));
}

TEST_F(copy, host_to_host)
{
	size_t size = (3u << 20) + 5;

	test_fill_random(self->src + 1, size, 7);
	memset(self->dst, 0, size + 8);
	EXPECT_EQ(0, test_run(&self->card, &self->stream,
			      test_cmd_copy((uintptr_t)self->dst + 3, (uintptr_t)self->src + 1, size,
					    DRM_NPU_CMD_SRC_USER | DRM_NPU_CMD_DST_USER)));
	EXPECT_EQ(0, memcmp(self->dst + 3, self->src + 1, size));
	EXPECT_EQ(0, self->dst[2]);
	EXPECT_EQ(0, self->dst[size + 3]);
}

TEST_F(copy, fills)
{
	size_t size = (2u << 20) + 77, i;
	struct drm_npu_cmd cmds[3] = {
		test_cmd_fill(self->a.addr, 0x11, size + 2, 0),
		test_cmd_fill(self->a.addr + 1, 0xc3, size, 0),
		test_cmd_copy((uintptr_t)self->dst, self->a.addr, size + 2, DRM_NPU_CMD_DST_USER),
	};
	uint64_t seq;

	ASSERT_EQ(0, test_submit(self->card.fd, self->stream.id, cmds, 3, 0, &seq));
	ASSERT_EQ(0, test_wait(self->card.fd, self->stream.slot, seq, 60000));
	EXPECT_EQ(0x11, self->dst[0]);
	for (i = 1; i <= size; i++)
		ASSERT_EQ(0xc3, self->dst[i]) TH_LOG("at %zu", i);
	EXPECT_EQ(0x11, self->dst[size + 1]);

	/* Straight into pageable memory, too. */
	memset(self->dst, 0, 4096);
	EXPECT_EQ(0, test_run(&self->card, &self->stream,
			      test_cmd_fill((uintptr_t)self->dst + 1, 0x7e, 4094,
					    DRM_NPU_CMD_DST_USER)));
	EXPECT_EQ(0, self->dst[0]);
	EXPECT_EQ(0x7e, self->dst[1]);
	EXPECT_EQ(0x7e, self->dst[4094]);
	EXPECT_EQ(0, self->dst[4095]);
}

TEST_F(copy, values_in_device_memory)
{
	uint64_t got = 0;
	struct drm_npu_cmd cmds[2] = {
		{ .op = DRM_NPU_OP_VALUE_WRITE, .dst = self->a.addr + 64, .value = 0x1122334455667788ULL },
		test_cmd_copy((uintptr_t)&got, self->a.addr + 64, 8, DRM_NPU_CMD_DST_USER),
	};
	uint64_t seq;

	ASSERT_EQ(0, test_submit(self->card.fd, self->stream.id, cmds, 2, 0, &seq));
	ASSERT_EQ(0, test_wait(self->card.fd, self->stream.slot, seq, 10000));
	EXPECT_EQ(0x1122334455667788ULL, got);
}

TEST_F(copy, bytes_are_accounted)
{
	int ring = test_stream_ring(self->card.bdf, self->stream.id);
	long long before;

	ASSERT_GE(ring, 0);
	before = test_stream_attr(self->card.bdf, ring, "bytes", NULL, 0);
	ASSERT_EQ(0, round_trip(self, 1 << 20, 0, 0, 5));
	EXPECT_EQ(before + 3 * (1 << 20), test_stream_attr(self->card.bdf, ring, "bytes", NULL, 0));
}

/*
 * Two streams' fills, held back by one event, write neighbouring bytes of
 * one cacheline of pageable memory: both are mapped for the card at once.
 * The debug kernel's DMA-API checks report such overlapping mappings unless
 * the driver does the cache maintenance itself (make check-debug).
 */
TEST_F(copy, writes_in_flight_share_a_cacheline)
{
	struct drm_npu_cmd cmds[2] = { { .op = DRM_NPU_OP_SLOT_WAIT, .value = 1 } };
	struct drm_npu_stream_create other;
	uint64_t seq, other_seq;
	uint8_t *line;
	uint32_t ev;
	int i;

	line = aligned_alloc(64, 64);
	ASSERT_NE(NULL, line);
	memset(line, 0, 64);
	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &other));
	ASSERT_EQ(0, test_slot_alloc(self->card.fd, &ev));
	cmds[0].slot = ev;
	cmds[1] = test_cmd_fill((uintptr_t)line, 0x11, 32, DRM_NPU_CMD_DST_USER);
	ASSERT_EQ(0, test_submit(self->card.fd, self->stream.id, cmds, 2, 0, &seq));
	cmds[1] = test_cmd_fill((uintptr_t)line + 32, 0x22, 32, DRM_NPU_CMD_DST_USER);
	ASSERT_EQ(0, test_submit(self->card.fd, other.id, cmds, 2, 0, &other_seq));

	ASSERT_EQ(0, test_slot_op(self->card.fd, DRM_IOCTL_NPU_SLOT_SIGNAL, ev, 1));
	ASSERT_EQ(0, test_wait(self->card.fd, self->stream.slot, seq, 10000));
	ASSERT_EQ(0, test_wait(self->card.fd, other.slot, other_seq, 10000));
	for (i = 0; i < 64; i++)
		ASSERT_EQ(i < 32 ? 0x11 : 0x22, line[i]) TH_LOG("byte %d", i);
	free(line);
}

TEST_HARNESS_MAIN
