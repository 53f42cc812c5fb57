// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device buffers through PRIME (DRM_IOCTL_PRIME_HANDLE_TO_FD and
 * _FD_TO_HANDLE): imported into another context of the same card, the
 * buffer itself, as an import by key; into a context of another card, a
 * peer buffer that holds the exporter's memory and that only VM_BIND
 * names; dma-bufs of other drivers refused. The tests of another card
 * skip on a machine with one card.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* memfd_create()'s sealing */
#endif
#include <fcntl.h>
#include <linux/udmabuf.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "npu_test_ioctl.h"
#include "npu_test_wait.h"

#define SIZE	(64 * 1024)

static int prime_export(int fd, uint32_t handle, int *dmabuf)
{
	struct drm_prime_handle p = { .handle = handle, .flags = DRM_CLOEXEC | DRM_RDWR };
	int ret = test_ioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &p);

	*dmabuf = p.fd;
	return ret;
}

static int prime_import(int fd, int dmabuf, uint32_t *handle)
{
	struct drm_prime_handle p = { .fd = dmabuf };
	int ret = test_ioctl(fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &p);

	*handle = p.handle;
	return ret;
}

static int vm_bind(int fd, uint32_t op, uint32_t handle, uint32_t flags, uint64_t addr,
		   uint64_t size)
{
	struct drm_npu_vm_bind b = {
		.op = op, .flags = flags, .handle = handle, .addr = addr, .size = size,
	};

	return test_ioctl(fd, DRM_IOCTL_NPU_VM_BIND, &b);
}

static long long windows_open(struct test_card *card)
{
	return test_card_attr(card->bdf, "peer_windows_open");
}

static uint64_t devmem_free(struct test_card *card)
{
	return test_param_or_die(card->fd, DRM_NPU_PARAM_DEVMEM_FREE);
}

static bool all_bytes(const uint8_t *p, size_t n, uint8_t byte)
{
	while (n--)
		if (*p++ != byte)
			return false;
	return true;
}

static int read_back(struct test_card *card, struct drm_npu_stream_create *s,
		     uint64_t addr, void *out, uint64_t size)
{
	return test_run(card, s, test_cmd_copy((uintptr_t)out, addr, size, DRM_NPU_CMD_DST_USER));
}

/* Two contexts of card 0: one exports, the other imports. */
FIXTURE(same_card) {
	struct test_card exporter, importer;
	struct drm_npu_stream_create es, is;
	struct drm_npu_bo_create buf;
};

FIXTURE_SETUP(same_card)
{
	ASSERT_EQ(0, test_card_open(&self->exporter, 0));
	ASSERT_EQ(0, test_card_open(&self->importer, 0));
	ASSERT_EQ(0, test_stream_create(self->exporter.fd, 0, 0, &self->es));
	ASSERT_EQ(0, test_stream_create(self->importer.fd, 0, 0, &self->is));
	ASSERT_EQ(0, test_bo_create(self->exporter.fd, SIZE, 0, &self->buf));
	ASSERT_EQ(0, test_run(&self->exporter, &self->es,
			      test_cmd_fill(self->buf.addr, 0x5a, SIZE, 0)));
}

FIXTURE_TEARDOWN(same_card)
{
	test_card_close(&self->exporter);
	test_card_close(&self->importer);
}

/* The import is the buffer itself, named by its own address, as by key. */
TEST_F(same_card, import_is_the_buffer)
{
	static uint8_t out[SIZE];
	uint32_t h, again;
	int dmabuf;

	ASSERT_EQ(0, prime_export(self->exporter.fd, self->buf.handle, &dmabuf));
	EXPECT_EQ(-EPERM, read_back(&self->importer, &self->is, self->buf.addr, out, SIZE));
	ASSERT_EQ(0, prime_import(self->importer.fd, dmabuf, &h));
	ASSERT_EQ(0, read_back(&self->importer, &self->is, self->buf.addr, out, SIZE));
	EXPECT_TRUE(all_bytes(out, SIZE, 0x5a));
	ASSERT_EQ(0, test_run(&self->importer, &self->is,
			      test_cmd_fill(self->buf.addr + 100, 0x17, 10, 0)));
	ASSERT_EQ(0, read_back(&self->exporter, &self->es, self->buf.addr, out, SIZE));
	EXPECT_EQ(0x5a, out[99]);
	EXPECT_EQ(0x17, out[100]);
	EXPECT_EQ(0x17, out[109]);
	EXPECT_EQ(0x5a, out[110]);

	/* The same dma-buf again gives the same handle, and one close ends it. */
	ASSERT_EQ(0, prime_import(self->importer.fd, dmabuf, &again));
	EXPECT_EQ(h, again);
	/* The exporter importing its own gets its own handle back. */
	ASSERT_EQ(0, prime_import(self->exporter.fd, dmabuf, &again));
	EXPECT_EQ(self->buf.handle, again);
	ASSERT_EQ(0, test_bo_close(self->importer.fd, h));
	EXPECT_EQ(-EPERM, read_back(&self->importer, &self->is, self->buf.addr, out, SIZE));
	close(dmabuf);
}

/*
 * The import holds the memory as a key's importer does: the exporter
 * closing its handle and the dma-buf frees nothing until the importer
 * closes too.
 */
TEST_F(same_card, import_holds_the_memory)
{
	uint64_t free_with_buf = devmem_free(&self->exporter);
	uint8_t out[64];
	uint32_t h;
	int dmabuf;

	ASSERT_EQ(0, prime_export(self->exporter.fd, self->buf.handle, &dmabuf));
	ASSERT_EQ(0, prime_import(self->importer.fd, dmabuf, &h));
	close(dmabuf);
	ASSERT_EQ(0, test_bo_close(self->exporter.fd, self->buf.handle));
	EXPECT_EQ(free_with_buf, devmem_free(&self->exporter));
	ASSERT_EQ(0, read_back(&self->importer, &self->is, self->buf.addr, out, sizeof(out)));
	EXPECT_TRUE(all_bytes(out, sizeof(out), 0x5a));
	ASSERT_EQ(0, test_bo_close(self->importer.fd, h));
	EXPECT_TRUE(test_wait_until(devmem_free(&self->exporter) ==
				    free_with_buf + SIZE, TEST_SETTLE_MS));
}

/* Only device buffers export; and the dma-buf is for this driver only. */
TEST_F(same_card, what_exports_and_imports)
{
	struct drm_npu_bo_create host;
	struct udmabuf_create create = { .size = 4096 };
	uint32_t h;
	void *p;
	int dmabuf, memfd, udev;

	ASSERT_EQ(0, test_bo_create(self->exporter.fd, 4096, DRM_NPU_BO_HOST, &host));
	EXPECT_EQ(-EOPNOTSUPP, prime_export(self->exporter.fd, host.handle, &dmabuf));
	EXPECT_EQ(-ENOENT, prime_export(self->exporter.fd, self->buf.handle + 100, &dmabuf));
	EXPECT_EQ(-EBADF, prime_import(self->importer.fd, -1, &h));

	/* No mapping the card's memory through the dma-buf. */
	ASSERT_EQ(0, prime_export(self->exporter.fd, self->buf.handle, &dmabuf));
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, dmabuf, 0);
	EXPECT_EQ(MAP_FAILED, p);
	close(dmabuf);

	udev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (udev < 0)
		SKIP(return, "no /dev/udmabuf for a dma-buf of another driver");
	memfd = memfd_create("peer_test", MFD_ALLOW_SEALING);
	ASSERT_LE(0, memfd);
	ASSERT_EQ(0, ftruncate(memfd, 4096));
	ASSERT_EQ(0, fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK));
	create.memfd = memfd;
	dmabuf = ioctl(udev, UDMABUF_CREATE, &create);
	ASSERT_LE(0, dmabuf);
	EXPECT_EQ(-EOPNOTSUPP, prime_import(self->importer.fd, dmabuf, &h));
	close(dmabuf);
	close(memfd);
	close(udev);
}

/* Card 0 exports, a context of card 1 imports. */
FIXTURE(two_cards) {
	struct test_card a, b;
	struct drm_npu_stream_create as, bs;
	struct drm_npu_bo_create buf;
	bool skip;
};

FIXTURE_SETUP(two_cards)
{
	ASSERT_EQ(0, test_card_open(&self->a, 0));
	if (test_card_open(&self->b, 1)) {
		self->b.fd = -1;
		self->skip = true;
		SKIP(return, "one card: no peer to import into");
	}
	ASSERT_EQ(0, test_stream_create(self->a.fd, 0, 0, &self->as));
	ASSERT_EQ(0, test_stream_create(self->b.fd, 0, 0, &self->bs));
	ASSERT_EQ(0, test_bo_create(self->a.fd, SIZE, 0, &self->buf));
	ASSERT_EQ(0, test_run(&self->a, &self->as, test_cmd_fill(self->buf.addr, 0x5a, SIZE, 0)));
}

FIXTURE_TEARDOWN(two_cards)
{
	test_card_close(&self->a);
	test_card_close(&self->b);
}

/*
 * The peer buffer is a handle that nothing but VM_BIND names: not a host
 * buffer, not an address of the importer's card, not exportable again by
 * key.
 */
TEST_F(two_cards, peer_buffer_is_for_vm_bind_only)
{
	struct drm_npu_bo_export e = { 0 };
	struct drm_npu_cmd c;
	uint8_t out[64];
	uint32_t h;
	int dmabuf;

	if (self->skip)
		return;
	ASSERT_EQ(0, prime_export(self->a.fd, self->buf.handle, &dmabuf));
	ASSERT_EQ(0, prime_import(self->b.fd, dmabuf, &h));
	c = test_cmd_copy((uintptr_t)out, 0, sizeof(out), DRM_NPU_CMD_DST_USER | DRM_NPU_CMD_SRC_HOST);
	c.src_handle = h;
	EXPECT_EQ(-ENOENT, test_run(&self->b, &self->bs, c));
	e.handle = h;
	EXPECT_EQ(-EINVAL, test_ioctl(self->b.fd, DRM_IOCTL_NPU_BO_EXPORT, &e));
	EXPECT_EQ(0, test_bo_close(self->b.fd, h));
	close(dmabuf);
}

/*
 * The peer buffer holds the exporter's memory: card A's handle and the
 * dma-buf closed, A's free memory does not grow until B closes its handle.
 */
TEST_F(two_cards, peer_buffer_holds_the_memory)
{
	uint64_t free_a;
	uint32_t h;
	int dmabuf;

	if (self->skip)
		return;
	free_a = devmem_free(&self->a);
	ASSERT_EQ(0, prime_export(self->a.fd, self->buf.handle, &dmabuf));
	ASSERT_EQ(0, prime_import(self->b.fd, dmabuf, &h));
	close(dmabuf);
	ASSERT_EQ(0, test_bo_close(self->a.fd, self->buf.handle));
	EXPECT_EQ(free_a, devmem_free(&self->a));
	ASSERT_EQ(0, test_bo_close(self->b.fd, h));
	EXPECT_TRUE(test_wait_until(devmem_free(&self->a) == free_a + SIZE, TEST_SETTLE_MS));
}

#define BIG	(64ULL << 20)

/*
 * Card B maps card A's buffer at A's own address and copies into and out
 * of it with B's engine, through the peer window; A's own copies check
 * every byte.
 */
TEST_F(two_cards, copies_through_the_window)
{
	static const struct { uint64_t off, size; } cases[] = {
		{ 0, 1 }, { 1, 1 }, { 4095, 2 }, { 0, 4096 }, { 17, 3 * 4096 + 5 },
		{ (1 << 20) - 3, (1 << 20) + 7 }, { (2 << 20) - 64, 128 },
		{ 0, BIG }, { 123, BIG - 123 },
	};
	struct drm_npu_bo_create big;
	uint8_t *in, *out;
	unsigned int i;
	uint32_t h;
	int dmabuf;

	if (self->skip)
		return;
	in = malloc(BIG);
	out = malloc(BIG);
	ASSERT_NE(NULL, in);
	ASSERT_NE(NULL, out);
	ASSERT_EQ(0, test_bo_create(self->a.fd, BIG, 0, &big));
	ASSERT_EQ(0, prime_export(self->a.fd, big.handle, &dmabuf));
	ASSERT_EQ(0, prime_import(self->b.fd, dmabuf, &h));
	EXPECT_TRUE(test_wait_until(windows_open(&self->b) == 0, TEST_SETTLE_MS));
	ASSERT_EQ(0, vm_bind(self->b.fd, DRM_NPU_VM_MAP, h, 0, big.addr, BIG));
	EXPECT_EQ(1, windows_open(&self->b));

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t off = cases[i].off, size = cases[i].size;

		/* B writes A's memory; A reads it. */
		test_fill_random(in, size, 2 * i + 1);
		ASSERT_EQ(0, test_run(&self->a, &self->as, test_cmd_fill(big.addr, 0xee, BIG, 0)));
		ASSERT_EQ(0, test_run(&self->b, &self->bs,
				      test_cmd_copy(big.addr + off, (uintptr_t)in, size,
						    DRM_NPU_CMD_SRC_USER)));
		ASSERT_EQ(0, read_back(&self->a, &self->as, big.addr, out, BIG));
		ASSERT_TRUE(all_bytes(out, off, 0xee)) TH_LOG("case %u: before", i);
		ASSERT_EQ(0, memcmp(out + off, in, size)) TH_LOG("case %u: B's write", i);
		ASSERT_TRUE(all_bytes(out + off + size, BIG - off - size, 0xee))
			TH_LOG("case %u: after", i);

		/* A writes its memory; B reads it. */
		test_fill_random(in, size, 2 * i + 2);
		ASSERT_EQ(0, test_run(&self->a, &self->as,
				      test_cmd_copy(big.addr + off, (uintptr_t)in, size,
						    DRM_NPU_CMD_SRC_USER)));
		memset(out, 0, size);
		ASSERT_EQ(0, read_back(&self->b, &self->bs, big.addr + off, out, size));
		ASSERT_EQ(0, memcmp(out, in, size)) TH_LOG("case %u: B's read", i);
	}

	ASSERT_EQ(0, vm_bind(self->b.fd, DRM_NPU_VM_UNMAP, 0, 0, big.addr, BIG));
	/* The window stays open while the handle does; it may be mapped again. */
	ASSERT_EQ(0, test_bo_close(self->b.fd, h));
	EXPECT_TRUE(test_wait_until(windows_open(&self->b) == 0, TEST_SETTLE_MS));
	close(dmabuf);
	free(in);
	free(out);
}

/* A peer buffer mapped read-only: B's write faults and names the address. */
TEST_F(two_cards, read_only_mapping_faults_on_write)
{
	uint8_t out[64];
	uint64_t fault;
	uint32_t h;
	int dmabuf;

	if (self->skip)
		return;
	ASSERT_EQ(0, prime_export(self->a.fd, self->buf.handle, &dmabuf));
	ASSERT_EQ(0, prime_import(self->b.fd, dmabuf, &h));
	ASSERT_EQ(0, vm_bind(self->b.fd, DRM_NPU_VM_MAP, h, DRM_NPU_VM_READ_ONLY,
			     self->buf.addr, SIZE));
	ASSERT_EQ(0, read_back(&self->b, &self->bs, self->buf.addr + SIZE - 64, out, 64));
	EXPECT_TRUE(all_bytes(out, 64, 0x5a));
	EXPECT_EQ(-EIO, test_run(&self->b, &self->bs,
				 test_cmd_fill(self->buf.addr + 4096 + 8, 1, 8, 0)));
	EXPECT_EQ(DRM_NPU_ERR_PAGE_FAULT, self->b.fence[self->bs.slot].error);
	fault = self->b.fence[self->bs.slot].fault;
	EXPECT_EQ(self->buf.addr + 4096 + 8 - DRM_NPU_DEVICE_ADDR_BASE,
		  fault & DRM_NPU_FAULT_VA_MASK);
	EXPECT_EQ(DRM_NPU_FAULT_READ_ONLY, (fault >> DRM_NPU_FAULT_REASON_SHIFT) & 0xff);
	EXPECT_TRUE(fault & DRM_NPU_FAULT_WRITE);
	/* Nothing was written. */
	ASSERT_EQ(0, read_back(&self->a, &self->as, self->buf.addr + 4096, out, 64));
	EXPECT_TRUE(all_bytes(out, 64, 0x5a));
	close(dmabuf);
}

/*
 * The mapping holds the exporter's memory: A closing its handle and the
 * dma-buf, and B its handle, leaves A's free memory as it was until B
 * unmaps.
 */
TEST_F(two_cards, mapping_holds_the_memory)
{
	uint8_t out[64];
	uint64_t free_a;
	uint32_t h;
	int dmabuf;

	if (self->skip)
		return;
	free_a = devmem_free(&self->a);
	ASSERT_EQ(0, prime_export(self->a.fd, self->buf.handle, &dmabuf));
	ASSERT_EQ(0, prime_import(self->b.fd, dmabuf, &h));
	ASSERT_EQ(0, vm_bind(self->b.fd, DRM_NPU_VM_MAP, h, 0, self->buf.addr, SIZE));
	close(dmabuf);
	ASSERT_EQ(0, test_bo_close(self->a.fd, self->buf.handle));
	ASSERT_EQ(0, test_bo_close(self->b.fd, h));
	EXPECT_EQ(free_a, devmem_free(&self->a));
	ASSERT_EQ(0, read_back(&self->b, &self->bs, self->buf.addr, out, 64));
	EXPECT_TRUE(all_bytes(out, 64, 0x5a));
	EXPECT_EQ(1, windows_open(&self->b));

	ASSERT_EQ(0, vm_bind(self->b.fd, DRM_NPU_VM_UNMAP, 0, 0, self->buf.addr, SIZE));
	EXPECT_TRUE(test_wait_until(devmem_free(&self->a) == free_a + SIZE, TEST_SETTLE_MS));
	EXPECT_EQ(0, windows_open(&self->b));
	/* Unmapped, the address faults. */
	EXPECT_EQ(-EIO, read_back(&self->b, &self->bs, self->buf.addr, out, 64));
	EXPECT_EQ(DRM_NPU_ERR_PAGE_FAULT, self->b.fence[self->bs.slot].error);
}

/* Mapping errors: B's own window, past the buffer, a read-only handle's. */
TEST_F(two_cards, bind_errors)
{
	uint64_t window_b = test_param_or_die(self->b.fd, DRM_NPU_PARAM_VA_WINDOW);
	uint32_t h;
	int dmabuf;

	if (self->skip)
		return;
	EXPECT_EQ(8, test_param_or_die(self->b.fd, DRM_NPU_PARAM_NUM_PEERS));
	ASSERT_EQ(0, prime_export(self->a.fd, self->buf.handle, &dmabuf));
	ASSERT_EQ(0, prime_import(self->b.fd, dmabuf, &h));
	EXPECT_EQ(-EINVAL, vm_bind(self->b.fd, DRM_NPU_VM_MAP, h, 0, window_b, SIZE));
	EXPECT_EQ(-EINVAL, vm_bind(self->b.fd, DRM_NPU_VM_MAP, h, 0, self->buf.addr,
				   SIZE + 4096));
	EXPECT_EQ(0, windows_open(&self->b));
	/* Mapped twice, at two addresses, through one window. */
	ASSERT_EQ(0, vm_bind(self->b.fd, DRM_NPU_VM_MAP, h, 0, self->buf.addr, SIZE));
	ASSERT_EQ(0, vm_bind(self->b.fd, DRM_NPU_VM_MAP, h, 0, DRM_NPU_VA_USER_BASE, SIZE));
	EXPECT_EQ(-EEXIST, vm_bind(self->b.fd, DRM_NPU_VM_MAP, h, 0, self->buf.addr, SIZE));
	EXPECT_EQ(1, windows_open(&self->b));
	close(dmabuf);
}

/*
 * A reset of card B closes its windows on the card; the driver opens again
 * the one still mapped, so that a context made after the reset reaches
 * card A through it.
 */
TEST_F(two_cards, reset_reopens_windows_in_use)
{
	struct drm_npu_stream_create s;
	struct test_card fresh;
	char path[PATH_MAX];
	uint8_t out[64];
	uint32_t h, h2;
	int dmabuf;

	if (self->skip)
		return;
	ASSERT_EQ(0, prime_export(self->a.fd, self->buf.handle, &dmabuf));
	ASSERT_EQ(0, prime_import(self->b.fd, dmabuf, &h));
	ASSERT_EQ(0, vm_bind(self->b.fd, DRM_NPU_VM_MAP, h, 0, self->buf.addr, SIZE));
	EXPECT_EQ(1, windows_open(&self->b));

	snprintf(path, sizeof(path), TEST_PCI_DEVICES "/%s/npu/reset", self->b.bdf);
	ASSERT_EQ(0, text_write(path, "1"));
	EXPECT_EQ(1, windows_open(&self->b));

	ASSERT_EQ(0, test_card_open(&fresh, 1));
	ASSERT_EQ(0, test_stream_create(fresh.fd, 0, 0, &s));
	ASSERT_EQ(0, prime_import(fresh.fd, dmabuf, &h2));
	ASSERT_EQ(0, vm_bind(fresh.fd, DRM_NPU_VM_MAP, h2, 0, self->buf.addr, SIZE));
	EXPECT_EQ(1, windows_open(&self->b));
	ASSERT_EQ(0, read_back(&fresh, &s, self->buf.addr + 128, out, sizeof(out)));
	EXPECT_TRUE(all_bytes(out, sizeof(out), 0x5a));
	test_card_close(&fresh);
	test_card_close(&self->b);
	EXPECT_TRUE(test_wait_until(windows_open(&self->b) == 0, TEST_SETTLE_MS));
	close(dmabuf);
}

/* A process killed with a peer buffer mapped gives the memory and window back. */
TEST_F(two_cards, killed_importer_gives_the_memory_back)
{
	int ready[2], status, dmabuf;
	uint64_t free_a;
	pid_t pid;
	char c;

	if (self->skip)
		return;
	ASSERT_EQ(0, prime_export(self->a.fd, self->buf.handle, &dmabuf));
	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		struct test_card b;
		uint32_t h;

		if (test_card_open(&b, 1) || prime_import(b.fd, dmabuf, &h) ||
		    vm_bind(b.fd, DRM_NPU_VM_MAP, h, 0, self->buf.addr, SIZE) ||
		    write(ready[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	close(dmabuf);
	free_a = devmem_free(&self->a);
	ASSERT_EQ(0, test_bo_close(self->a.fd, self->buf.handle));
	EXPECT_EQ(free_a, devmem_free(&self->a));
	EXPECT_EQ(1, windows_open(&self->b));
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	close(ready[0]);
	EXPECT_TRUE(test_wait_until(devmem_free(&self->a) == free_a + SIZE, TEST_SETTLE_MS));
	EXPECT_TRUE(test_wait_until(windows_open(&self->b) == 0, TEST_SETTLE_MS));
}

TEST_HARNESS_MAIN
