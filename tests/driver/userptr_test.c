// SPDX-License-Identifier: GPL-2.0-only
/*
 * User memory (DRM_IOCTL_NPU_BO_USERPTR): the caller's pages as a host
 * buffer. Copies to and from it by handle, read-only registration, memory
 * unmapped while registered, every error, many registrations, and the
 * pages coming unpinned when the last holder, killed or not, is gone.
 */

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "npu_test_ioctl.h"
#include "npu_test_wait.h"

#define PAGE	4096UL

static int userptr(int fd, const void *ptr, uint64_t size, uint32_t flags,
		   uint32_t *handle)
{
	struct drm_npu_bo_userptr u = {
		.ptr = (uintptr_t)ptr, .size = size, .flags = flags,
	};
	int ret = test_ioctl(fd, DRM_IOCTL_NPU_BO_USERPTR, &u);

	*handle = u.handle;
	return ret;
}

static void *map_anon(size_t size, int prot)
{
	void *p = mmap(NULL, size, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* COPY between device address dev and offset off of user memory handle. */
static struct drm_npu_cmd copy_to_user_mem(uint32_t handle, uint64_t off, uint64_t dev,
					   uint64_t size)
{
	struct drm_npu_cmd c = test_cmd_copy(off, dev, size, DRM_NPU_CMD_DST_HOST);

	c.dst_handle = handle;
	return c;
}

static struct drm_npu_cmd copy_from_user_mem(uint64_t dev, uint32_t handle, uint64_t off,
					     uint64_t size)
{
	struct drm_npu_cmd c = test_cmd_copy(dev, off, size, DRM_NPU_CMD_SRC_HOST);

	c.src_handle = handle;
	return c;
}

static long long pinned(struct test_card *card)
{
	return test_card_attr(card->bdf, "pinned_pages");
}

FIXTURE(userptr) {
	struct test_card card;
	struct drm_npu_stream_create s;
	struct drm_npu_bo_create dev;
	long long pinned_before;
};

#define DEV_SIZE	(1 << 20)

FIXTURE_SETUP(userptr)
{
	ASSERT_EQ(0, test_card_open(&self->card, 0));
	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &self->s));
	ASSERT_EQ(0, test_bo_create(self->card.fd, DEV_SIZE, 0, &self->dev));
	self->pinned_before = pinned(&self->card);
}

FIXTURE_TEARDOWN(userptr)
{
	test_card_close(&self->card);
}

/*
 * Registered memory in, through the card's memory, and out into other
 * registered memory, at offsets that start and end inside pages, checked
 * byte by byte; the pages are scattered, so both ways take the card's
 * scatter-gather path.
 */
TEST_F(userptr, copies_in_and_out_by_handle)
{
	static const struct { uint64_t off, size; } cases[] = {
		{ 0, 1 }, { 0, PAGE }, { 1, PAGE }, { PAGE - 3, 7 }, { 123, 5 * PAGE + 17 },
		{ 0, DEV_SIZE }, { PAGE, DEV_SIZE - PAGE },
	};
	uint8_t *src = map_anon(DEV_SIZE, PROT_READ | PROT_WRITE);
	uint8_t *dst = map_anon(DEV_SIZE, PROT_READ | PROT_WRITE);
	uint32_t hs, hd;
	unsigned int i;

	ASSERT_NE(NULL, src);
	ASSERT_NE(NULL, dst);
	ASSERT_EQ(0, userptr(self->card.fd, src, DEV_SIZE, 0, &hs));
	ASSERT_EQ(0, userptr(self->card.fd, dst, DEV_SIZE, 0, &hd));
	EXPECT_NE(hs, hd);
	EXPECT_EQ(self->pinned_before + 2 * DEV_SIZE / PAGE, pinned(&self->card));

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t off = cases[i].off, size = cases[i].size, j;

		test_fill_random(src, DEV_SIZE, i + 1);
		memset(dst, 0xa5, DEV_SIZE);
		ASSERT_EQ(0, test_run(&self->card, &self->s,
				      copy_from_user_mem(self->dev.addr, hs, off, size)));
		ASSERT_EQ(0, test_run(&self->card, &self->s,
				      copy_to_user_mem(hd, DEV_SIZE - size, self->dev.addr, size)));
		for (j = 0; j < DEV_SIZE - size; j++)
			ASSERT_EQ(0xa5, dst[j]) TH_LOG("case %u: byte %llu before the copy",
						       i, (unsigned long long)j);
		for (j = 0; j < size; j++)
			ASSERT_EQ(src[off + j], dst[DEV_SIZE - size + j])
				TH_LOG("case %u: byte %llu", i, (unsigned long long)j);
	}

	/* A FILL writes it too. */
	ASSERT_EQ(0, test_run(&self->card, &self->s, ({
		struct drm_npu_cmd c = test_cmd_fill(PAGE + 1, 0x3c, 10, DRM_NPU_CMD_DST_HOST);

		c.dst_handle = hd;
		c;
	})));
	EXPECT_EQ(0x3c, dst[PAGE + 1]);
	EXPECT_EQ(0x3c, dst[PAGE + 10]);
	EXPECT_NE(0x3c, dst[PAGE + 11]);

	/* Outside the memory, or named as a device address: refused. */
	EXPECT_EQ(-EINVAL, test_run(&self->card, &self->s,
				    copy_from_user_mem(self->dev.addr, hs, DEV_SIZE - 1, 2)));
	EXPECT_EQ(-ENOENT, test_run(&self->card, &self->s,
				    copy_from_user_mem(self->dev.addr, hs + hd + 100, 0, 1)));

	EXPECT_EQ(0, test_bo_close(self->card.fd, hs));
	EXPECT_EQ(0, test_bo_close(self->card.fd, hd));
	EXPECT_TRUE(test_wait_until(pinned(&self->card) == self->pinned_before, TEST_SETTLE_MS));
	munmap(src, DEV_SIZE);
	munmap(dst, DEV_SIZE);
}

/* Another context, even of the same process, cannot name the handle. */
TEST_F(userptr, other_context_cannot_use_it)
{
	uint8_t *mem = map_anon(PAGE, PROT_READ | PROT_WRITE);
	struct drm_npu_stream_create s2;
	struct test_card other;
	uint32_t h;

	ASSERT_NE(NULL, mem);
	ASSERT_EQ(0, userptr(self->card.fd, mem, PAGE, 0, &h));
	ASSERT_EQ(0, test_card_open(&other, 0));
	ASSERT_EQ(0, test_stream_create(other.fd, 0, 0, &s2));
	EXPECT_EQ(-ENOENT, test_run(&other, &s2, ({
		struct drm_npu_cmd c = test_cmd_fill(0, 1, 1, DRM_NPU_CMD_DST_HOST);

		c.dst_handle = h;
		c;
	})));
	test_card_close(&other);
	munmap(mem, PAGE);
}

/*
 * Memory the caller may only read registers only read-only, and the card
 * then only reads it: as a destination it is refused with -EACCES.
 */
TEST_F(userptr, read_only)
{
	uint8_t *mem = map_anon(4 * PAGE, PROT_READ | PROT_WRITE);
	uint8_t out[64];
	uint32_t h;

	ASSERT_NE(NULL, mem);
	test_fill_random(mem, 4 * PAGE, 7);
	ASSERT_EQ(0, mprotect(mem, 4 * PAGE, PROT_READ));
	EXPECT_EQ(-EFAULT, userptr(self->card.fd, mem, 4 * PAGE, 0, &h));
	ASSERT_EQ(0, userptr(self->card.fd, mem, 4 * PAGE, DRM_NPU_USERPTR_READ_ONLY, &h));

	ASSERT_EQ(0, test_run(&self->card, &self->s,
			      copy_from_user_mem(self->dev.addr, h, 2 * PAGE - 32, 64)));
	ASSERT_EQ(0, test_run(&self->card, &self->s,
			      test_cmd_copy((uintptr_t)out, self->dev.addr, 64,
					    DRM_NPU_CMD_DST_USER)));
	EXPECT_EQ(0, memcmp(out, mem + 2 * PAGE - 32, 64));

	EXPECT_EQ(-EACCES, test_run(&self->card, &self->s,
				    copy_to_user_mem(h, 0, self->dev.addr, 64)));
	EXPECT_EQ(-EACCES, test_run(&self->card, &self->s, ({
		struct drm_npu_cmd c = test_cmd_fill(0, 1, 1, DRM_NPU_CMD_DST_HOST);

		c.dst_handle = h;
		c;
	})));
	/* Writable memory may be registered read-only too. */
	ASSERT_EQ(0, mprotect(mem, 4 * PAGE, PROT_READ | PROT_WRITE));
	EXPECT_EQ(0, test_bo_close(self->card.fd, h));
	ASSERT_EQ(0, userptr(self->card.fd, mem, 4 * PAGE, DRM_NPU_USERPTR_READ_ONLY, &h));
	EXPECT_EQ(-EACCES, test_run(&self->card, &self->s,
				    copy_to_user_mem(h, 0, self->dev.addr, 64)));
	EXPECT_EQ(0, test_bo_close(self->card.fd, h));
	munmap(mem, 4 * PAGE);
}

/*
 * The pin holds the pages: memory unmapped while registered still holds
 * what it held, for the card, and stays pinned until the handle closes.
 */
TEST_F(userptr, unmapped_memory_stays_pinned)
{
	const size_t size = 8 * PAGE;
	uint8_t *mem = map_anon(size, PROT_READ | PROT_WRITE);
	uint8_t *expect = malloc(size), *out = malloc(size);
	uint32_t h;

	ASSERT_NE(NULL, mem);
	ASSERT_NE(NULL, expect);
	ASSERT_NE(NULL, out);
	test_fill_random(mem, size, 3);
	memcpy(expect, mem, size);
	ASSERT_EQ(0, userptr(self->card.fd, mem, size, 0, &h));
	ASSERT_EQ(0, munmap(mem, size));
	EXPECT_EQ(self->pinned_before + (long long)(size / PAGE), pinned(&self->card));

	ASSERT_EQ(0, test_run(&self->card, &self->s,
			      copy_from_user_mem(self->dev.addr, h, 0, size)));
	ASSERT_EQ(0, test_run(&self->card, &self->s,
			      test_cmd_copy((uintptr_t)out, self->dev.addr, size,
					    DRM_NPU_CMD_DST_USER)));
	EXPECT_EQ(0, memcmp(out, expect, size));
	/* The card may still write the pages no one else sees any more. */
	EXPECT_EQ(0, test_run(&self->card, &self->s,
			      copy_to_user_mem(h, 0, self->dev.addr, size)));

	EXPECT_EQ(0, test_bo_close(self->card.fd, h));
	EXPECT_TRUE(test_wait_until(pinned(&self->card) == self->pinned_before, TEST_SETTLE_MS));
	free(expect);
	free(out);
}

/* A handle closed with a copy queued: the job keeps the pages till it ends. */
TEST_F(userptr, queued_copy_keeps_the_pages)
{
	const size_t size = 16 * PAGE;
	uint8_t *mem = map_anon(size, PROT_READ | PROT_WRITE);
	struct drm_npu_cmd cmds[2];
	uint64_t seq;
	uint32_t h, ev;

	ASSERT_NE(NULL, mem);
	ASSERT_EQ(0, userptr(self->card.fd, mem, size, 0, &h));
	ASSERT_EQ(0, test_slot_alloc(self->card.fd, &ev));
	cmds[0] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_SLOT_WAIT, .slot = ev, .value = 1 };
	cmds[1] = test_cmd_fill(0, 0x5a, size, DRM_NPU_CMD_DST_HOST);
	cmds[1].dst_handle = h;
	ASSERT_EQ(0, test_submit(self->card.fd, self->s.id, cmds, 2, 0, &seq));
	EXPECT_EQ(0, test_bo_close(self->card.fd, h));
	EXPECT_EQ(self->pinned_before + (long long)(size / PAGE), pinned(&self->card));

	ASSERT_EQ(0, test_slot_op(self->card.fd, DRM_IOCTL_NPU_SLOT_SIGNAL, ev, 1));
	ASSERT_EQ(0, test_wait(self->card.fd, self->s.slot, seq, 20000));
	EXPECT_EQ(0x5a, mem[0]);
	EXPECT_EQ(0x5a, mem[size - 1]);
	EXPECT_TRUE(test_wait_until(pinned(&self->card) == self->pinned_before, TEST_SETTLE_MS));
	munmap(mem, size);
}

TEST_F(userptr, bad_args)
{
	uint8_t *mem = map_anon(4 * PAGE, PROT_READ | PROT_WRITE);
	struct drm_npu_bo_userptr u = { .ptr = (uintptr_t)mem, .size = PAGE, .handle = 1 };
	struct drm_npu_bo_export e = { 0 };
	struct drm_prime_handle prime = { 0 };
	struct drm_npu_bo_create host;
	uint8_t *hostmap;
	uint32_t h;

	ASSERT_NE(NULL, mem);
	EXPECT_EQ(-EINVAL, userptr(self->card.fd, mem, PAGE, 0x2, &h));
	EXPECT_EQ(-EINVAL, userptr(self->card.fd, mem, PAGE, ~0u, &h));
	EXPECT_EQ(-EINVAL, test_ioctl(self->card.fd, DRM_IOCTL_NPU_BO_USERPTR, &u));
	EXPECT_EQ(-EINVAL, userptr(self->card.fd, mem + 1, PAGE, 0, &h));
	EXPECT_EQ(-EINVAL, userptr(self->card.fd, mem, PAGE + 1, 0, &h));
	EXPECT_EQ(-EINVAL, userptr(self->card.fd, mem, 100, 0, &h));
	EXPECT_EQ(-EINVAL, userptr(self->card.fd, mem, 0, 0, &h));
	EXPECT_EQ(-EINVAL, userptr(self->card.fd, mem, DRM_NPU_MAX_USERPTR_SIZE + PAGE, 0, &h));
	EXPECT_EQ(-EINVAL, userptr(self->card.fd, mem, -PAGE, 0, &h));

	/* Memory that is not the caller's, wholly or in part. */
	EXPECT_EQ(-EFAULT, userptr(self->card.fd, NULL, PAGE, 0, &h));
	EXPECT_EQ(-EFAULT, userptr(self->card.fd, (void *)0xffff888000000000ULL, PAGE, 0, &h));
	ASSERT_EQ(0, munmap(mem + 3 * PAGE, PAGE));
	EXPECT_EQ(-EFAULT, userptr(self->card.fd, mem, 4 * PAGE, 0, &h));
	EXPECT_EQ(-EFAULT, userptr(self->card.fd, mem + 3 * PAGE, PAGE, 0, &h));
	/* The card's own mapping of a host buffer is no user memory to pin. */
	ASSERT_EQ(0, test_bo_create(self->card.fd, PAGE, DRM_NPU_BO_HOST, &host));
	hostmap = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, self->card.fd,
		       host.mmap_offset);
	ASSERT_NE(MAP_FAILED, hostmap);
	EXPECT_EQ(-EFAULT, userptr(self->card.fd, hostmap, PAGE, 0, &h));
	munmap(hostmap, PAGE);
	EXPECT_EQ(self->pinned_before + 1, pinned(&self->card));

	/* Nothing failed left anything pinned; and it is shared with no one. */
	ASSERT_EQ(0, userptr(self->card.fd, mem, PAGE, 0, &h));
	e.handle = h;
	EXPECT_EQ(-EINVAL, test_ioctl(self->card.fd, DRM_IOCTL_NPU_BO_EXPORT, &e));
	prime.handle = h;
	prime.flags = DRM_CLOEXEC;
	EXPECT_EQ(-EOPNOTSUPP, test_ioctl(self->card.fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &prime));
	EXPECT_EQ(0, test_bo_close(self->card.fd, h));
	EXPECT_EQ(0, test_bo_close(self->card.fd, host.handle));
	EXPECT_TRUE(test_wait_until(pinned(&self->card) == self->pinned_before, TEST_SETTLE_MS));
	munmap(mem, 3 * PAGE);
}

static int vm_bind(int fd, uint32_t op, uint32_t handle, uint32_t flags, uint64_t addr,
		   uint64_t size)
{
	struct drm_npu_vm_bind b = {
		.op = op, .flags = flags, .handle = handle, .addr = addr, .size = size,
	};

	return test_ioctl(fd, DRM_IOCTL_NPU_VM_BIND, &b);
}

/*
 * Mapped with VM_BIND, user memory is at a device address: the card reads
 * and writes it in place, page by page, and a read-only registration maps
 * only read-only.
 */
TEST_F(userptr, mapped_at_a_device_address)
{
	const uint64_t va = DRM_NPU_VA_USER_BASE + (1ULL << 30);
	const size_t size = 64 * PAGE;
	uint8_t *mem = map_anon(size, PROT_READ | PROT_WRITE);
	uint8_t *ro = map_anon(PAGE, PROT_READ | PROT_WRITE);
	uint8_t out[100];
	uint32_t h, hro;
	size_t i;

	ASSERT_NE(NULL, mem);
	ASSERT_NE(NULL, ro);
	test_fill_random(mem, size, 11);
	ASSERT_EQ(0, userptr(self->card.fd, mem, size, 0, &h));
	ASSERT_EQ(0, vm_bind(self->card.fd, DRM_NPU_VM_MAP, h, 0, va, size));
	/* Across page boundaries, in and out. */
	ASSERT_EQ(0, test_run(&self->card, &self->s,
			      test_cmd_copy(self->dev.addr, va + PAGE - 50, sizeof(out), 0)));
	ASSERT_EQ(0, test_run(&self->card, &self->s,
			      test_cmd_copy((uintptr_t)out, self->dev.addr, sizeof(out),
					    DRM_NPU_CMD_DST_USER)));
	EXPECT_EQ(0, memcmp(out, mem + PAGE - 50, sizeof(out)));
	ASSERT_EQ(0, test_run(&self->card, &self->s, test_cmd_fill(va + 3 * PAGE - 1, 0x42, 2, 0)));
	EXPECT_EQ(0x42, mem[3 * PAGE - 1]);
	EXPECT_EQ(0x42, mem[3 * PAGE]);
	for (i = 0; i < size; i += PAGE)
		ASSERT_EQ(0, test_run(&self->card, &self->s, test_cmd_fill(va + i, (uint8_t)i, 1, 0)));
	for (i = 0; i < size; i += PAGE)
		ASSERT_EQ((uint8_t)i, mem[i]);

	memset(ro, 0x24, PAGE);
	ASSERT_EQ(0, userptr(self->card.fd, ro, PAGE, DRM_NPU_USERPTR_READ_ONLY, &hro));
	EXPECT_EQ(-EACCES, vm_bind(self->card.fd, DRM_NPU_VM_MAP, hro, 0, va + size, PAGE));
	ASSERT_EQ(0, vm_bind(self->card.fd, DRM_NPU_VM_MAP, hro, DRM_NPU_VM_READ_ONLY,
			     va + size, PAGE));
	ASSERT_EQ(0, test_run(&self->card, &self->s,
			      test_cmd_copy(self->dev.addr, va + size, 16, 0)));
	EXPECT_EQ(-EIO, test_run(&self->card, &self->s, test_cmd_fill(va + size, 1, 1, 0)));
	EXPECT_EQ(DRM_NPU_ERR_PAGE_FAULT, self->card.fence[self->s.slot].error);
	EXPECT_EQ(0x24, ro[0]);

	/* The mappings hold the pages after the handles close, till unmapped. */
	EXPECT_EQ(0, test_bo_close(self->card.fd, h));
	EXPECT_EQ(0, test_bo_close(self->card.fd, hro));
	EXPECT_EQ(self->pinned_before + (long long)(size / PAGE) + 1, pinned(&self->card));
	ASSERT_EQ(0, vm_bind(self->card.fd, DRM_NPU_VM_UNMAP, 0, 0, va, size + PAGE));
	EXPECT_TRUE(test_wait_until(pinned(&self->card) == self->pinned_before, TEST_SETTLE_MS));
	munmap(mem, size);
	munmap(ro, PAGE);
}

/* Many registrations, of one page each and of the same memory over again. */
TEST_F(userptr, many_registrations)
{
	enum { N = 1024 };
	uint8_t *mem = map_anon(N * PAGE, PROT_READ | PROT_WRITE);
	uint32_t *h = calloc(N, sizeof(*h)), again;
	unsigned int i;

	ASSERT_NE(NULL, mem);
	ASSERT_NE(NULL, h);
	for (i = 0; i < N; i++)
		ASSERT_EQ(0, userptr(self->card.fd, mem + i * PAGE, PAGE, 0, &h[i]));
	ASSERT_EQ(0, userptr(self->card.fd, mem, N * PAGE, 0, &again));
	EXPECT_EQ(self->pinned_before + 2 * N, pinned(&self->card));

	/* Each page written through its own handle, read through the whole. */
	for (i = 0; i < N; i += 97) {
		struct drm_npu_cmd c = test_cmd_fill(i % PAGE, (uint8_t)i, 1, DRM_NPU_CMD_DST_HOST);

		c.dst_handle = h[i];
		ASSERT_EQ(0, test_run(&self->card, &self->s, c));
		EXPECT_EQ((uint8_t)i, mem[i * PAGE + i % PAGE]);
		ASSERT_EQ(0, test_run(&self->card, &self->s,
				      copy_from_user_mem(self->dev.addr, again, i * PAGE, PAGE)));
	}
	for (i = 0; i < N; i++)
		ASSERT_EQ(0, test_bo_close(self->card.fd, h[i]));
	/* Completed jobs hold the pages they used until they are retired. */
	EXPECT_TRUE(test_wait_until(pinned(&self->card) == self->pinned_before + N,
				    TEST_SETTLE_MS));
	ASSERT_EQ(0, test_bo_close(self->card.fd, again));
	EXPECT_TRUE(test_wait_until(pinned(&self->card) == self->pinned_before, TEST_SETTLE_MS));
	free(h);
	munmap(mem, N * PAGE);
}

/* A process killed with memory registered leaves nothing pinned. */
TEST_F(userptr, killed_process_unpins_everything)
{
	const size_t size = 256 * PAGE;
	struct test_baseline before, after;
	int ready[2], status;
	pid_t pid;
	char c;

	before = test_read_baseline(self->card.bdf);
	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		struct test_card card;
		struct drm_npu_stream_create s;
		uint8_t *mem = map_anon(size, PROT_READ | PROT_WRITE);
		struct drm_npu_cmd cmds[2];
		uint32_t h1, h2, ev;

		if (!mem || test_card_open(&card, 0) ||
		    test_stream_create(card.fd, 0, 0, &s) ||
		    userptr(card.fd, mem, size, 0, &h1) ||
		    userptr(card.fd, mem, PAGE, DRM_NPU_USERPTR_READ_ONLY, &h2) ||
		    test_slot_alloc(card.fd, &ev))
			_exit(1);
		/* And a job, waiting forever, that names the memory. */
		cmds[0] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_SLOT_WAIT, .slot = ev, .value = 1 };
		cmds[1] = test_cmd_fill(0, 1, size, DRM_NPU_CMD_DST_HOST);
		cmds[1].dst_handle = h1;
		if (test_submit(card.fd, s.id, cmds, 2, 0, NULL))
			_exit(1);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	EXPECT_EQ(before.pinned + size / PAGE + 1, test_card_attr(self->card.bdf, "pinned_pages"));
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	close(ready[0]);
	after = test_settled_baseline(self->card.bdf, &before);

	EXPECT_EQ(before.pinned, after.pinned);
	EXPECT_EQ(before.devmem, after.devmem);
	EXPECT_EQ(before.rings, after.rings);
}

TEST_HARNESS_MAIN
