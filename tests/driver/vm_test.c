// SPDX-License-Identifier: GPL-2.0-only
/*
 * Address spaces: DRM_IOCTL_NPU_VM_BIND of device and host buffers at user
 * addresses, the copies and fills that go through them, page faults and
 * their fault word, read-only mappings, a remap behind queued work,
 * isolation between contexts and processes, every VM_BIND error, a killed
 * process leaving no address space or page behind (debugfs "vm"), and a
 * random VM_BIND sequence against a model of the map.
 */

#include <signal.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "npu_test_ioctl.h"
#include "text_file.h"

#define PAGE		4096ull
#define BLOCK		(2ull << 20)
#define USER		DRM_NPU_VA_USER_BASE
#define FAULT_VA(w)	((w) & DRM_NPU_FAULT_VA_MASK)
#define FAULT_WHY(w)	(((w) >> DRM_NPU_FAULT_REASON_SHIFT) & 0xff)

static int vm_bind(int fd, uint32_t op, uint32_t flags, uint32_t handle,
		   uint64_t offset, uint64_t addr, uint64_t size)
{
	struct drm_npu_vm_bind b = {
		.op = op, .flags = flags, .handle = handle, .offset = offset,
		.addr = addr, .size = size,
	};

	return test_ioctl(fd, DRM_IOCTL_NPU_VM_BIND, &b);
}

static int vm_map(int fd, uint32_t handle, uint64_t offset, uint64_t addr, uint64_t size)
{
	return vm_bind(fd, DRM_NPU_VM_MAP, 0, handle, offset, addr, size);
}

static int vm_unmap(int fd, uint64_t addr, uint64_t size)
{
	return vm_bind(fd, DRM_NPU_VM_UNMAP, 0, 0, 0, addr, size);
}

/* Copies @size bytes at device address @addr into @out; 0 or -errno. */
static int dev_read(struct test_card *card, struct drm_npu_stream_create *s,
		    uint64_t addr, void *out, uint64_t size)
{
	return test_run(card, s, test_cmd_copy((uintptr_t)out, addr, size,
					       DRM_NPU_CMD_DST_USER));
}

static int dev_write(struct test_card *card, struct drm_npu_stream_create *s,
		     uint64_t addr, const void *in, uint64_t size)
{
	return test_run(card, s, test_cmd_copy(addr, (uintptr_t)in, size,
					       DRM_NPU_CMD_SRC_USER));
}

/* The fault word of a stream that failed, after checking it did so. */
static uint64_t stream_fault(struct test_card *card, struct drm_npu_stream_create *s)
{
	if (card->fence[s->slot].error != DRM_NPU_ERR_PAGE_FAULT)
		return ~0ull;
	return card->fence[s->slot].fault;
}

/* Reads debugfs "vm" of the card; -1 when debugfs is not there. */
static int vm_counts(struct test_card *card, long long *spaces, long long *pages)
{
	char path[128];
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/sys/kernel/debug/accel/%s/vm", card->bdf);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fscanf(f, "address_spaces %lld mapped_pages %lld", spaces, pages);
	fclose(f);
	return n == 2 ? 0 : -1;
}

FIXTURE(vm) {
	struct test_card card;
	struct drm_npu_stream_create s;
	struct drm_npu_bo_create a, b, h;
	uint8_t *hmap;
	uint8_t *buf, *want;
};

FIXTURE_SETUP(vm)
{
	ASSERT_EQ(0, test_card_open(&self->card, 0));
	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &self->s));
	ASSERT_EQ(0, test_bo_create(self->card.fd, 2 * BLOCK, DRM_NPU_BO_BLOCK_ALIGNED, &self->a));
	ASSERT_EQ(0, test_bo_create(self->card.fd, 4 * PAGE, 0, &self->b));
	ASSERT_EQ(0, test_bo_create(self->card.fd, 4 * PAGE, DRM_NPU_BO_HOST, &self->h));
	self->hmap = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED,
			  self->card.fd, self->h.mmap_offset);
	ASSERT_NE(MAP_FAILED, self->hmap);
	self->buf = malloc(2 * BLOCK);
	self->want = malloc(2 * BLOCK);
	ASSERT_NE(NULL, self->buf);
	ASSERT_NE(NULL, self->want);
}

FIXTURE_TEARDOWN(vm)
{
	if (self->hmap)
		munmap(self->hmap, 4 * PAGE);
	free(self->buf);
	free(self->want);
	test_card_close(&self->card);
}

/* The window is the card's, and device buffers lie in it, aligned. */
TEST_F(vm, window_and_alignment)
{
	uint64_t window = test_param_or_die(self->card.fd, DRM_NPU_PARAM_VA_WINDOW);
	uint64_t size = test_param_or_die(self->card.fd, DRM_NPU_PARAM_DEVMEM_SIZE);
	uint64_t peers;

	EXPECT_EQ(0, (window - DRM_NPU_DEVICE_ADDR_BASE) % DRM_NPU_VA_WINDOW_SIZE);
	EXPECT_LT(window, DRM_NPU_DEVICE_ADDR_BASE +
		  DRM_NPU_VA_WINDOWS * DRM_NPU_VA_WINDOW_SIZE);
	EXPECT_GE(self->a.addr, window);
	EXPECT_LE(self->a.addr + 2 * BLOCK, window + size);
	EXPECT_EQ(0, self->a.addr % BLOCK);
	EXPECT_EQ(0, self->b.addr % DRM_NPU_BO_ADDR_ALIGN);
	EXPECT_EQ(0, test_param(self->card.fd, DRM_NPU_PARAM_NUM_PEERS, &peers));
	EXPECT_LE(peers, 16);
}

/* A block-aligned buffer takes whole blocks of device memory. */
TEST_F(vm, block_aligned_takes_whole_blocks)
{
	struct drm_npu_bo_create c;
	uint64_t before, after;

	before = test_param_or_die(self->card.fd, DRM_NPU_PARAM_DEVMEM_FREE);
	ASSERT_EQ(0, test_bo_create(self->card.fd, BLOCK + 1, DRM_NPU_BO_BLOCK_ALIGNED, &c));
	after = test_param_or_die(self->card.fd, DRM_NPU_PARAM_DEVMEM_FREE);
	EXPECT_EQ(2 * BLOCK, before - after);
	EXPECT_EQ(0, c.addr % BLOCK);
	EXPECT_EQ(0, test_bo_close(self->card.fd, c.handle));
	EXPECT_EQ(before, test_param_or_die(self->card.fd, DRM_NPU_PARAM_DEVMEM_FREE));
	EXPECT_EQ(-EINVAL, test_bo_create(self->card.fd, PAGE,
					  DRM_NPU_BO_HOST | DRM_NPU_BO_BLOCK_ALIGNED, &c));
	ASSERT_EQ(0, test_bo_create(self->card.fd, 1, 0, &c));
	EXPECT_EQ(before - PAGE, test_param_or_die(self->card.fd, DRM_NPU_PARAM_DEVMEM_FREE));
}

/* Copies and fills through a device buffer mapped at a user address. */
TEST_F(vm, device_buffer_at_user_address)
{
	uint64_t u = USER + 8 * BLOCK, i;

	ASSERT_EQ(0, vm_map(self->card.fd, self->a.handle, 0, u, 2 * BLOCK));
	for (i = 0; i < 2 * BLOCK; i++)
		self->want[i] = (uint8_t)(i * 7 + 3);
	ASSERT_EQ(0, dev_write(&self->card, &self->s, u, self->want, 2 * BLOCK));
	/* bytes 5000..5000+9999 become 0xa5 */
	ASSERT_EQ(0, test_run(&self->card, &self->s, test_cmd_fill(u + 5000, 0xa5, 10000, 0)));
	memset(self->want + 5000, 0xa5, 10000);
	/* the same memory read through the window address */
	ASSERT_EQ(0, dev_read(&self->card, &self->s, self->a.addr, self->buf, 2 * BLOCK));
	EXPECT_EQ(0, memcmp(self->buf, self->want, 2 * BLOCK));
	/* a copy from the user address to buffer b, read back through b */
	ASSERT_EQ(0, test_run(&self->card, &self->s,
			      test_cmd_copy(self->b.addr, u + BLOCK - 100, 3 * PAGE, 0)));
	ASSERT_EQ(0, dev_read(&self->card, &self->s, self->b.addr, self->buf, 3 * PAGE));
	EXPECT_EQ(0, memcmp(self->buf, self->want + BLOCK - 100, 3 * PAGE));
	EXPECT_EQ(0, vm_unmap(self->card.fd, u, 2 * BLOCK));
}

/* Part of a buffer, from an offset, at an address that is not block aligned. */
TEST_F(vm, device_buffer_part_at_page_address)
{
	uint64_t u = USER + 3 * PAGE, i;

	for (i = 0; i < 2 * BLOCK; i++)
		self->want[i] = (uint8_t)(i ^ (i >> 9));
	ASSERT_EQ(0, dev_write(&self->card, &self->s, self->a.addr, self->want, 2 * BLOCK));
	ASSERT_EQ(0, vm_map(self->card.fd, self->a.handle, 5 * PAGE, u, BLOCK));
	ASSERT_EQ(0, dev_read(&self->card, &self->s, u, self->buf, BLOCK));
	EXPECT_EQ(0, memcmp(self->buf, self->want + 5 * PAGE, BLOCK));
	EXPECT_EQ(0, vm_unmap(self->card.fd, u, BLOCK));
}

/*
 * Pages that follow each other at their addresses but not in memory: a's
 * pages 1 and 0 in that order, then host page 0, read across both seams.
 */
TEST_F(vm, pages_out_of_order_read_across)
{
	uint64_t u = USER + 16 * BLOCK, i;

	for (i = 0; i < 2 * PAGE; i++)
		self->want[i] = (uint8_t)(i * 13 + 1);
	ASSERT_EQ(0, dev_write(&self->card, &self->s, self->a.addr, self->want, 2 * PAGE));
	memset(self->hmap, 0x5a, PAGE);
	ASSERT_EQ(0, vm_map(self->card.fd, self->a.handle, PAGE, u, PAGE));
	ASSERT_EQ(0, vm_map(self->card.fd, self->a.handle, 0, u + PAGE, PAGE));
	ASSERT_EQ(0, vm_map(self->card.fd, self->h.handle, 0, u + 2 * PAGE, PAGE));
	ASSERT_EQ(0, dev_read(&self->card, &self->s, u + 100, self->buf, 3 * PAGE - 200));
	EXPECT_EQ(0, memcmp(self->buf, self->want + PAGE + 100, PAGE - 100));
	EXPECT_EQ(0, memcmp(self->buf + PAGE - 100, self->want, PAGE));
	for (i = 2 * PAGE - 100; i < 3 * PAGE - 200; i++)
		ASSERT_EQ(0x5a, self->buf[i]);
	EXPECT_EQ(0, vm_unmap(self->card.fd, u, 3 * PAGE));
}

/* A host buffer mapped at a user address: the card writes the host's pages. */
TEST_F(vm, host_buffer_at_user_address)
{
	uint64_t u = USER + 64 * BLOCK, i;

	memset(self->hmap, 0, 4 * PAGE);
	ASSERT_EQ(0, vm_map(self->card.fd, self->h.handle, PAGE, u, 3 * PAGE));
	ASSERT_EQ(0, test_run(&self->card, &self->s, test_cmd_fill(u + 10, 0x3c, 2 * PAGE, 0)));
	for (i = 0; i < 4 * PAGE; i++)
		EXPECT_EQ(i >= PAGE + 10 && i < 3 * PAGE + 10 ? 0x3c : 0, self->hmap[i])
			TH_LOG("byte %llu", (unsigned long long)i);
	for (i = 0; i < 3 * PAGE; i++)
		self->hmap[PAGE + i] = (uint8_t)(i * 13);
	ASSERT_EQ(0, dev_read(&self->card, &self->s, u, self->buf, 3 * PAGE));
	EXPECT_EQ(0, memcmp(self->buf, self->hmap + PAGE, 3 * PAGE));
	EXPECT_EQ(0, vm_unmap(self->card.fd, u, 3 * PAGE));
}

/* An unmapped page faults, and the slot names the address, reason and write. */
TEST_F(vm, unmapped_page_faults_with_its_address)
{
	uint64_t u = USER + 100 * BLOCK, word;

	ASSERT_EQ(0, vm_map(self->card.fd, self->b.handle, 0, u, PAGE));
	/* a write of two pages: the second is not mapped */
	EXPECT_EQ(-EIO, test_run(&self->card, &self->s, test_cmd_fill(u, 1, 2 * PAGE, 0)));
	word = stream_fault(&self->card, &self->s);
	EXPECT_EQ(u + PAGE - DRM_NPU_DEVICE_ADDR_BASE, FAULT_VA(word));
	EXPECT_EQ(DRM_NPU_FAULT_UNMAPPED, FAULT_WHY(word));
	EXPECT_TRUE(word & DRM_NPU_FAULT_WRITE);

	/* a read: no write bit */
	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &self->s));
	EXPECT_EQ(-EIO, test_run(&self->card, &self->s,
				 test_cmd_copy(self->b.addr, u + 7 * PAGE + 8, 16, 0)));
	word = stream_fault(&self->card, &self->s);
	EXPECT_EQ(u + 7 * PAGE + 8 - DRM_NPU_DEVICE_ADDR_BASE, FAULT_VA(word));
	EXPECT_EQ(DRM_NPU_FAULT_UNMAPPED, FAULT_WHY(word));
	EXPECT_FALSE(word & DRM_NPU_FAULT_WRITE);
}

/* Unmapped: the mapping's pages fault from then on. */
TEST_F(vm, unmapped_range_faults)
{
	uint64_t u = USER + 200 * BLOCK;

	ASSERT_EQ(0, vm_map(self->card.fd, self->b.handle, 0, u, 4 * PAGE));
	ASSERT_EQ(0, test_run(&self->card, &self->s, test_cmd_fill(u, 9, 4 * PAGE, 0)));
	ASSERT_EQ(0, vm_unmap(self->card.fd, u, 4 * PAGE));
	EXPECT_EQ(-EIO, test_run(&self->card, &self->s, test_cmd_fill(u + 2 * PAGE, 1, 1, 0)));
	EXPECT_EQ(u + 2 * PAGE - DRM_NPU_DEVICE_ADDR_BASE,
		  FAULT_VA(stream_fault(&self->card, &self->s)));
}

/* A read-only mapping reads, and a write to it faults READ_ONLY. */
TEST_F(vm, read_only_mapping)
{
	uint64_t u = USER + 300 * BLOCK, word;

	memset(self->want, 0x5a, 4 * PAGE);
	ASSERT_EQ(0, dev_write(&self->card, &self->s, self->b.addr, self->want, 4 * PAGE));
	ASSERT_EQ(0, vm_bind(self->card.fd, DRM_NPU_VM_MAP, DRM_NPU_VM_READ_ONLY,
			     self->b.handle, 0, u, 4 * PAGE));
	ASSERT_EQ(0, dev_read(&self->card, &self->s, u, self->buf, 4 * PAGE));
	EXPECT_EQ(0, memcmp(self->buf, self->want, 4 * PAGE));
	EXPECT_EQ(-EIO, test_run(&self->card, &self->s, test_cmd_fill(u + PAGE, 1, 8, 0)));
	word = stream_fault(&self->card, &self->s);
	EXPECT_EQ(u + PAGE - DRM_NPU_DEVICE_ADDR_BASE, FAULT_VA(word));
	EXPECT_EQ(DRM_NPU_FAULT_READ_ONLY, FAULT_WHY(word));
	EXPECT_TRUE(word & DRM_NPU_FAULT_WRITE);
	/* nothing was written */
	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &self->s));
	ASSERT_EQ(0, dev_read(&self->card, &self->s, self->b.addr, self->buf, 4 * PAGE));
	EXPECT_EQ(0, memcmp(self->buf, self->want, 4 * PAGE));
}

/* Remapped while a copy waits behind a slot: the copy lands in the new buffer. */
TEST_F(vm, remap_while_work_is_queued)
{
	uint64_t u = USER + 400 * BLOCK, seq;
	struct drm_npu_cmd cmds[2];
	uint32_t ev;

	memset(self->want, 0x77, PAGE);
	ASSERT_EQ(0, test_slot_alloc(self->card.fd, &ev));
	ASSERT_EQ(0, vm_map(self->card.fd, self->b.handle, 0, u, PAGE));
	cmds[0] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_SLOT_WAIT, .slot = ev, .value = 1 };
	cmds[1] = test_cmd_copy(u, (uintptr_t)self->want, PAGE, DRM_NPU_CMD_SRC_USER);
	ASSERT_EQ(0, test_submit(self->card.fd, self->s.id, cmds, 2, 0, &seq));
	ASSERT_EQ(0, vm_unmap(self->card.fd, u, PAGE));
	ASSERT_EQ(0, vm_map(self->card.fd, self->a.handle, BLOCK, u, PAGE));
	ASSERT_EQ(0, test_slot_op(self->card.fd, DRM_IOCTL_NPU_SLOT_SIGNAL, ev, 1));
	ASSERT_EQ(0, test_wait(self->card.fd, self->s.slot, seq, 20000));
	ASSERT_EQ(0, dev_read(&self->card, &self->s, self->a.addr + BLOCK, self->buf, PAGE));
	EXPECT_EQ(0, memcmp(self->buf, self->want, PAGE));
	/* b, created zeroed, was not written */
	ASSERT_EQ(0, dev_read(&self->card, &self->s, self->b.addr, self->buf, PAGE));
	memset(self->want, 0, PAGE);
	EXPECT_EQ(0, memcmp(self->buf, self->want, PAGE));
}

/* Another context's user addresses are not this one's: they fault. */
TEST_F(vm, other_context_addresses_fault)
{
	struct drm_npu_stream_create s2;
	uint64_t u = USER + 500 * BLOCK;
	struct test_card other;

	ASSERT_EQ(0, vm_map(self->card.fd, self->b.handle, 0, u, PAGE));
	ASSERT_EQ(0, test_card_open(&other, 0));
	ASSERT_EQ(0, test_stream_create(other.fd, 0, 0, &s2));
	EXPECT_EQ(-EIO, test_run(&other, &s2, test_cmd_fill(u, 1, 8, 0)));
	EXPECT_EQ(DRM_NPU_FAULT_UNMAPPED, FAULT_WHY(stream_fault(&other, &s2)));
	/* nor is the other's window address of this context's buffer: -EPERM */
	ASSERT_EQ(0, test_stream_create(other.fd, 0, 0, &s2));
	EXPECT_EQ(-EPERM, test_run(&other, &s2, test_cmd_fill(self->b.addr, 1, 8, 0)));
	test_card_close(&other);
}

TEST_F(vm, other_process_addresses_fault)
{
	uint64_t u = USER + 600 * BLOCK;
	int status;
	pid_t pid;

	ASSERT_EQ(0, vm_map(self->card.fd, self->b.handle, 0, u, PAGE));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		struct drm_npu_stream_create s2;
		struct test_card other;

		if (test_card_open(&other, 0) || test_stream_create(other.fd, 0, 0, &s2))
			_exit(2);
		if (test_run(&other, &s2, test_cmd_fill(u, 1, 8, 0)) != -EIO)
			_exit(3);
		_exit(FAULT_WHY(stream_fault(&other, &s2)) == DRM_NPU_FAULT_UNMAPPED ? 0 : 4);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* Every error of VM_BIND, and the mapping it would have touched still works. */
TEST_F(vm, bind_errors_change_nothing)
{
	uint64_t u = USER + 700 * BLOCK, window;
	struct drm_npu_vm_bind bad;
	int fd = self->card.fd;

	window = test_param_or_die(fd, DRM_NPU_PARAM_VA_WINDOW);
	ASSERT_EQ(0, vm_map(fd, self->b.handle, 0, u, 2 * PAGE));

	EXPECT_EQ(-EINVAL, vm_bind(fd, 2, 0, self->b.handle, 0, u + BLOCK, PAGE));
	EXPECT_EQ(-EINVAL, vm_bind(fd, DRM_NPU_VM_MAP, 2, self->b.handle, 0, u + BLOCK, PAGE));
	EXPECT_EQ(-EINVAL, vm_map(fd, self->b.handle, 0, u + BLOCK, 0));
	EXPECT_EQ(-EINVAL, vm_map(fd, self->b.handle, 0, u + BLOCK + 8, PAGE));
	EXPECT_EQ(-EINVAL, vm_map(fd, self->b.handle, 8, u + BLOCK, PAGE));
	EXPECT_EQ(-EINVAL, vm_map(fd, self->b.handle, 0, u + BLOCK, PAGE + 8));
	EXPECT_EQ(-EINVAL, vm_map(fd, self->b.handle, 0, window, PAGE));
	EXPECT_EQ(-EINVAL, vm_map(fd, self->b.handle, 0, window + DRM_NPU_VA_WINDOW_SIZE - PAGE,
				  2 * PAGE));
	EXPECT_EQ(-EINVAL, vm_map(fd, self->b.handle, 0, DRM_NPU_DEVICE_ADDR_BASE - PAGE, PAGE));
	EXPECT_EQ(-EINVAL, vm_map(fd, self->b.handle, 0,
				  DRM_NPU_DEVICE_ADDR_BASE + (1ull << DRM_NPU_VA_BITS) - PAGE,
				  2 * PAGE));
	EXPECT_EQ(-EINVAL, vm_map(fd, self->b.handle, 3 * PAGE, u + BLOCK, 2 * PAGE));
	EXPECT_EQ(-ENOENT, vm_map(fd, 0x7fffffff, 0, u + BLOCK, PAGE));
	EXPECT_EQ(-EEXIST, vm_map(fd, self->a.handle, 0, u + PAGE, 2 * PAGE));
	EXPECT_EQ(-EEXIST, vm_map(fd, self->a.handle, 0, u - PAGE, 2 * PAGE));
	bad = (struct drm_npu_vm_bind){ .op = DRM_NPU_VM_MAP, .handle = self->b.handle,
					.pad = 1, .addr = u + BLOCK, .size = PAGE };
	EXPECT_EQ(-EINVAL, test_ioctl(fd, DRM_IOCTL_NPU_VM_BIND, &bad));

	EXPECT_EQ(-EINVAL, vm_unmap(fd, u, PAGE));		/* cuts it */
	EXPECT_EQ(-EINVAL, vm_unmap(fd, u + PAGE, 2 * PAGE));	/* overlaps it */
	EXPECT_EQ(-EINVAL, vm_unmap(fd, u + BLOCK, PAGE));	/* holds none */
	EXPECT_EQ(-EINVAL, vm_unmap(fd, u + 8, 2 * PAGE));
	EXPECT_EQ(-EINVAL, vm_bind(fd, DRM_NPU_VM_UNMAP, 0, self->b.handle, 0, u, 2 * PAGE));
	EXPECT_EQ(-EINVAL, vm_bind(fd, DRM_NPU_VM_UNMAP, 0, 0, PAGE, u, 2 * PAGE));
	EXPECT_EQ(-EINVAL, vm_bind(fd, DRM_NPU_VM_UNMAP, DRM_NPU_VM_READ_ONLY, 0, 0, u,
				   2 * PAGE));

	/* still mapped, writable, whole */
	memset(self->want, 0x42, 2 * PAGE);
	ASSERT_EQ(0, dev_write(&self->card, &self->s, u, self->want, 2 * PAGE));
	ASSERT_EQ(0, dev_read(&self->card, &self->s, self->b.addr, self->buf, 2 * PAGE));
	EXPECT_EQ(0, memcmp(self->buf, self->want, 2 * PAGE));
	/* a range covering it and more unmaps it */
	EXPECT_EQ(0, vm_unmap(fd, u - BLOCK, 3 * BLOCK));
	EXPECT_EQ(-EINVAL, vm_unmap(fd, u, 2 * PAGE));
}

/* A mapping holds its buffer: closing the handle leaves the memory mapped. */
TEST_F(vm, mapping_holds_its_buffer)
{
	uint64_t u = USER + 800 * BLOCK, before;

	memset(self->want, 0x11, PAGE);
	ASSERT_EQ(0, vm_map(self->card.fd, self->b.handle, 0, u, PAGE));
	before = test_param_or_die(self->card.fd, DRM_NPU_PARAM_DEVMEM_FREE);
	ASSERT_EQ(0, test_bo_close(self->card.fd, self->b.handle));
	EXPECT_EQ(before, test_param_or_die(self->card.fd, DRM_NPU_PARAM_DEVMEM_FREE));
	ASSERT_EQ(0, dev_write(&self->card, &self->s, u, self->want, PAGE));
	ASSERT_EQ(0, dev_read(&self->card, &self->s, u, self->buf, PAGE));
	EXPECT_EQ(0, memcmp(self->buf, self->want, PAGE));
	ASSERT_EQ(0, vm_unmap(self->card.fd, u, PAGE));
	EXPECT_EQ(before + 4 * PAGE, test_param_or_die(self->card.fd, DRM_NPU_PARAM_DEVMEM_FREE));
}

/* A process killed with its mappings and streams leaves nothing behind. */
TEST_F(vm, killed_process_leaves_nothing)
{
	long long spaces, pages, spaces2 = -1, pages2 = -1;
	int ready[2], status, i;
	char c;
	pid_t pid;

	if (vm_counts(&self->card, &spaces, &pages))
		SKIP(return, "no debugfs vm file on this machine");
	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		struct drm_npu_stream_create s2;
		struct drm_npu_bo_create bo;
		struct test_card other;

		if (test_card_open(&other, 0) || test_stream_create(other.fd, 0, 0, &s2) ||
		    test_bo_create(other.fd, BLOCK, 0, &bo))
			_exit(2);
		for (i = 0; i < 8; i++)
			if (vm_map(other.fd, bo.handle, 0, USER + i * BLOCK, BLOCK))
				_exit(3);
		if (write(ready[1], "x", 1) != 1)
			_exit(4);
		pause();
		_exit(0);
	}
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	ASSERT_EQ(0, vm_counts(&self->card, &spaces2, &pages2));
	EXPECT_EQ(spaces + 1, spaces2);
	/* the buffer in the window and eight times at user addresses */
	EXPECT_EQ(pages + 9 * BLOCK / PAGE, pages2);
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	close(ready[0]);
	/* the file's last reference goes as the process ends: poll for it */
	for (i = 0; i < 10000; i++) {
		ASSERT_EQ(0, vm_counts(&self->card, &spaces2, &pages2));
		if (spaces2 == spaces && pages2 == pages)
			break;
		usleep(1000);
	}
	EXPECT_EQ(spaces, spaces2);
	EXPECT_EQ(pages, pages2);
}

/*
 * A card reset drops every root: the lost context keeps its address space
 * until it closes, a new context takes another, and closing both gives
 * back exactly what they held.
 */
TEST_F(vm, card_reset_neither_leaks_nor_shares_address_spaces)
{
	long long spaces, pages, spaces2, pages2;
	struct drm_npu_stream_create s2;
	struct drm_npu_bo_create bo;
	struct test_card fresh;
	char path[256];

	if (vm_counts(&self->card, &spaces, &pages))
		SKIP(return, "no debugfs vm file on this machine");
	snprintf(path, sizeof(path), TEST_PCI_DEVICES "/%s/npu/reset", self->card.bdf);
	ASSERT_EQ(0, text_write(path, "1"));
	EXPECT_EQ(-ECANCELED, test_stream_create(self->card.fd, 0, 0, &s2));
	ASSERT_EQ(0, vm_counts(&self->card, &spaces2, &pages2));
	EXPECT_EQ(spaces, spaces2);
	EXPECT_EQ(pages, pages2);

	ASSERT_EQ(0, test_card_open(&fresh, 0));
	ASSERT_EQ(0, test_stream_create(fresh.fd, 0, 0, &s2));
	ASSERT_EQ(0, test_bo_create(fresh.fd, PAGE, 0, &bo));
	ASSERT_EQ(0, vm_map(fresh.fd, bo.handle, 0, USER, PAGE));
	ASSERT_EQ(0, test_run(&fresh, &s2, test_cmd_fill(USER, 0xe1, PAGE, 0)));
	memset(self->want, 0xe1, PAGE);
	ASSERT_EQ(0, dev_read(&fresh, &s2, bo.addr, self->buf, PAGE));
	EXPECT_EQ(0, memcmp(self->buf, self->want, PAGE));
	ASSERT_EQ(0, vm_counts(&self->card, &spaces2, &pages2));
	EXPECT_EQ(spaces + 1, spaces2);
	EXPECT_EQ(pages + 2, pages2);	/* its window and its user page */

	test_card_close(&fresh);
	/* a mapping of the file holds it open */
	munmap(self->hmap, 4 * PAGE);
	self->hmap = NULL;
	test_card_close(&self->card);
	ASSERT_EQ(0, vm_counts(&fresh, &spaces2, &pages2));
	EXPECT_EQ(spaces - 1, spaces2);
	/* the fixture's a (two blocks) and b (four pages) in its window */
	EXPECT_EQ(pages - 2 * BLOCK / PAGE - 4, pages2);
}

/*
 * Random MAP and UNMAP over 64 pages of user addresses, each answered as a
 * model of the map says, with copies through the mapped pages checked
 * against the model now and then.
 */
#define FUZZ_PAGES	64
#define FUZZ_OPS	3000

struct fuzz_map {
	int bo;			/* -1: free */
	uint64_t first;		/* the page of the mapping's start */
	uint64_t bo_page;	/* page of the buffer this page shows */
};

static uint32_t fuzz_rand(uint32_t *state)
{
	*state = *state * 1103515245u + 12345u;
	return *state >> 8;
}

TEST_F(vm, fuzz_against_model)
{
	struct drm_npu_bo_create bos[3];
	struct fuzz_map map[FUZZ_PAGES];
	uint64_t base = USER + 900 * BLOCK, p, q;
	uint32_t rnd = 12345, n;
	int fd = self->card.fd, i, want, got, checked = 0;
	uint8_t page[PAGE];

	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, test_bo_create(fd, 16 * PAGE, 0, &bos[i]));
		for (p = 0; p < 16; p++) {
			memset(page, 0x10 * (i + 1) + (int)p, PAGE);
			ASSERT_EQ(0, dev_write(&self->card, &self->s, bos[i].addr + p * PAGE,
					       page, PAGE));
		}
	}
	for (p = 0; p < FUZZ_PAGES; p++)
		map[p].bo = -1;

	for (n = 0; n < FUZZ_OPS; n++) {
		uint64_t at = fuzz_rand(&rnd) % FUZZ_PAGES;
		uint64_t len = 1 + fuzz_rand(&rnd) % 8;
		int bo = fuzz_rand(&rnd) % 3;
		uint64_t off = fuzz_rand(&rnd) % 18;

		if (at + len > FUZZ_PAGES)
			len = FUZZ_PAGES - at;
		if (fuzz_rand(&rnd) % 2) {
			want = off + len > 16 ? -EINVAL : 0;
			for (q = at; q < at + len && !want; q++)
				if (map[q].bo >= 0)
					want = -EEXIST;
			got = vm_map(fd, bos[bo].handle, off * PAGE, base + at * PAGE, len * PAGE);
			if (!want)
				for (q = at; q < at + len; q++)
					map[q] = (struct fuzz_map){ bo, at, off + q - at };
		} else {
			bool any = false;

			want = 0;
			for (q = at; q < at + len; q++) {
				if (map[q].bo < 0)
					continue;
				any = true;
				/* a mapping must lie wholly inside the range */
				if (map[q].first < at)
					want = -EINVAL;
				if (q + 1 < FUZZ_PAGES && q + 1 == at + len &&
				    map[q + 1].bo >= 0 && map[q + 1].first == map[q].first)
					want = -EINVAL;
			}
			if (!any)
				want = -EINVAL;
			got = vm_unmap(fd, base + at * PAGE, len * PAGE);
			if (!want)
				for (q = at; q < at + len; q++)
					map[q].bo = -1;
		}
		ASSERT_EQ(want, got) TH_LOG("op %u at %llu len %llu", n,
					    (unsigned long long)at, (unsigned long long)len);
		if (n % 50 == 0) {
			for (q = 0; q < FUZZ_PAGES; q++) {
				if (map[q].bo < 0)
					continue;
				ASSERT_EQ(0, dev_read(&self->card, &self->s, base + q * PAGE,
						      page, 8));
				EXPECT_EQ(0x10 * (map[q].bo + 1) + map[q].bo_page, page[0])
					TH_LOG("page %llu", (unsigned long long)q);
				checked++;
			}
		}
	}
	EXPECT_GT(checked, 0);
	/* the free pages fault */
	for (q = 0; q < FUZZ_PAGES && map[q].bo >= 0; q++)
		;
	if (q < FUZZ_PAGES) {
		EXPECT_EQ(-EIO, dev_read(&self->card, &self->s, base + q * PAGE, page, 8));
		EXPECT_EQ(base + q * PAGE - DRM_NPU_DEVICE_ADDR_BASE,
			  FAULT_VA(stream_fault(&self->card, &self->s)));
	}
}

TEST_HARNESS_MAIN
