// SPDX-License-Identifier: GPL-2.0-only
/*
 * Shared buffers (DRM_IOCTL_NPU_BO_EXPORT, _EXPORT_CTL, _IMPORT): a device
 * buffer of one context used by another, in one process and across a
 * fork; who may import; every error; and the card memory coming back only
 * when the last holder, killed or not, is gone.
 */

#include <signal.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "npu_test_ioctl.h"
#include "npu_test_wait.h"

static int bo_export(int fd, uint32_t handle, uint32_t flags, uint64_t *key)
{
	struct drm_npu_bo_export e = { .handle = handle, .flags = flags };
	int ret = test_ioctl(fd, DRM_IOCTL_NPU_BO_EXPORT, &e);

	*key = e.key;
	return ret;
}

static int bo_allow(int fd, uint64_t key, const int32_t *pids, uint32_t count)
{
	struct drm_npu_bo_export_ctl c = {
		.key = key, .op = DRM_NPU_EXPORT_ALLOW, .count = count,
		.pids = (uintptr_t)pids,
	};

	return test_ioctl(fd, DRM_IOCTL_NPU_BO_EXPORT_CTL, &c);
}

static int bo_revoke(int fd, uint64_t key)
{
	struct drm_npu_bo_export_ctl c = { .key = key, .op = DRM_NPU_EXPORT_REVOKE };

	return test_ioctl(fd, DRM_IOCTL_NPU_BO_EXPORT_CTL, &c);
}

static int bo_import(int fd, uint64_t key, struct drm_npu_bo_import *imp)
{
	memset(imp, 0, sizeof(*imp));
	imp->key = key;
	return test_ioctl(fd, DRM_IOCTL_NPU_BO_IMPORT, imp);
}

/* Copies size bytes of device memory at addr into out, on s of card. */
static int read_back(struct test_card *card, struct drm_npu_stream_create *s,
		     uint64_t addr, void *out, uint64_t size)
{
	return test_run(card, s, test_cmd_copy((uintptr_t)out, addr, size, DRM_NPU_CMD_DST_USER));
}

static bool all_bytes(const uint8_t *p, size_t n, uint8_t byte)
{
	while (n--)
		if (*p++ != byte)
			return false;
	return true;
}

#define SIZE	4096

FIXTURE(share) {
	struct test_card exporter, importer;
	struct drm_npu_stream_create es, is;
	struct drm_npu_bo_create buf;
	uint64_t free_before;
};

FIXTURE_SETUP(share)
{
	ASSERT_EQ(0, test_card_open(&self->exporter, 0));
	ASSERT_EQ(0, test_card_open(&self->importer, 0));
	self->free_before = test_param_or_die(self->exporter.fd, DRM_NPU_PARAM_DEVMEM_FREE);
	ASSERT_EQ(0, test_stream_create(self->exporter.fd, 0, 0, &self->es));
	ASSERT_EQ(0, test_stream_create(self->importer.fd, 0, 0, &self->is));
	ASSERT_EQ(0, test_bo_create(self->exporter.fd, SIZE, 0, &self->buf));
	ASSERT_EQ(0, test_run(&self->exporter, &self->es,
			      test_cmd_fill(self->buf.addr, 0x5a, SIZE, 0)));
}

FIXTURE_TEARDOWN(share)
{
	test_card_close(&self->exporter);
	test_card_close(&self->importer);
}

static uint64_t devmem_free(struct test_card *card)
{
	return test_param_or_die(card->fd, DRM_NPU_PARAM_DEVMEM_FREE);
}

TEST_F(share, import_names_the_same_memory)
{
	struct drm_npu_bo_import imp;
	uint8_t out[SIZE];
	uint64_t key;

	ASSERT_EQ(0, bo_export(self->exporter.fd, self->buf.handle,
			       DRM_NPU_EXPORT_ANY_PROCESS, &key));
	EXPECT_NE(0, key);
	/* Before the import the address is not the importer's. */
	EXPECT_EQ(-EPERM, read_back(&self->importer, &self->is, self->buf.addr, out, SIZE));
	ASSERT_EQ(0, bo_import(self->importer.fd, key, &imp));
	EXPECT_EQ(self->buf.addr, imp.addr);
	EXPECT_EQ(SIZE, imp.size);
	ASSERT_EQ(0, read_back(&self->importer, &self->is, imp.addr, out, SIZE));
	EXPECT_TRUE(all_bytes(out, SIZE, 0x5a));

	/* What the importer writes, the exporter reads. */
	ASSERT_EQ(0, test_run(&self->importer, &self->is, test_cmd_fill(imp.addr, 0x17, SIZE, 0)));
	ASSERT_EQ(0, read_back(&self->exporter, &self->es, self->buf.addr, out, SIZE));
	EXPECT_TRUE(all_bytes(out, SIZE, 0x17));

	/* Its handle closed, the importer may name the buffer no more. */
	ASSERT_EQ(0, test_bo_close(self->importer.fd, imp.handle));
	EXPECT_EQ(-EPERM, read_back(&self->importer, &self->is, imp.addr, out, SIZE));
	EXPECT_EQ(0, read_back(&self->exporter, &self->es, self->buf.addr, out, SIZE));
}

TEST_F(share, two_imports_two_handles)
{
	struct drm_npu_bo_import a, b;
	uint8_t out[64];
	uint64_t key;

	ASSERT_EQ(0, bo_export(self->exporter.fd, self->buf.handle,
			       DRM_NPU_EXPORT_ANY_PROCESS, &key));
	ASSERT_EQ(0, bo_import(self->importer.fd, key, &a));
	ASSERT_EQ(0, bo_import(self->importer.fd, key, &b));
	EXPECT_NE(a.handle, b.handle);
	/* One handle closed, the other still gives the right to name it. */
	ASSERT_EQ(0, test_bo_close(self->importer.fd, a.handle));
	EXPECT_EQ(0, read_back(&self->importer, &self->is, b.addr, out, sizeof(out)));
	ASSERT_EQ(0, test_bo_close(self->importer.fd, b.handle));
	EXPECT_EQ(-EPERM, read_back(&self->importer, &self->is, b.addr, out, sizeof(out)));
}

TEST_F(share, export_errors)
{
	struct drm_npu_bo_create host;
	struct drm_npu_bo_export e = { .handle = self->buf.handle, .key = 1 };
	struct drm_npu_bo_import imp;
	uint64_t key;

	EXPECT_EQ(-EINVAL, bo_export(self->exporter.fd, self->buf.handle, 0x2, &key));
	EXPECT_EQ(0, key);
	EXPECT_EQ(-EINVAL, test_ioctl(self->exporter.fd, DRM_IOCTL_NPU_BO_EXPORT, &e));
	EXPECT_EQ(-ENOENT, bo_export(self->exporter.fd, self->buf.handle + 100, 0, &key));
	ASSERT_EQ(0, test_bo_create(self->exporter.fd, SIZE, DRM_NPU_BO_HOST, &host));
	EXPECT_EQ(-EINVAL, bo_export(self->exporter.fd, host.handle, 0, &key));

	/* An imported buffer is not the importer's to export again. */
	ASSERT_EQ(0, bo_export(self->exporter.fd, self->buf.handle,
			       DRM_NPU_EXPORT_ANY_PROCESS, &key));
	ASSERT_EQ(0, bo_import(self->importer.fd, key, &imp));
	EXPECT_EQ(-ENOENT, bo_export(self->importer.fd, imp.handle, 0, &key));
}

TEST_F(share, export_ctl_errors)
{
	struct drm_npu_bo_export_ctl c;
	int32_t pids[DRM_NPU_EXPORT_MAX_PIDS + 1];
	uint64_t key;
	int i;

	for (i = 0; i <= DRM_NPU_EXPORT_MAX_PIDS; i++)
		pids[i] = getpid();
	ASSERT_EQ(0, bo_export(self->exporter.fd, self->buf.handle, 0, &key));

	c = (struct drm_npu_bo_export_ctl){ .key = key, .op = 2 };
	EXPECT_EQ(-EINVAL, test_ioctl(self->exporter.fd, DRM_IOCTL_NPU_BO_EXPORT_CTL, &c));
	EXPECT_EQ(-EINVAL, bo_allow(self->exporter.fd, key, pids, 0));
	EXPECT_EQ(-EINVAL, bo_allow(self->exporter.fd, key, pids, DRM_NPU_EXPORT_MAX_PIDS + 1));
	c = (struct drm_npu_bo_export_ctl){ .key = key, .op = DRM_NPU_EXPORT_REVOKE, .count = 1 };
	EXPECT_EQ(-EINVAL, test_ioctl(self->exporter.fd, DRM_IOCTL_NPU_BO_EXPORT_CTL, &c));
	c = (struct drm_npu_bo_export_ctl){ .key = key, .op = DRM_NPU_EXPORT_REVOKE,
					    .pids = (uintptr_t)pids };
	EXPECT_EQ(-EINVAL, test_ioctl(self->exporter.fd, DRM_IOCTL_NPU_BO_EXPORT_CTL, &c));
	EXPECT_EQ(-EFAULT, bo_allow(self->exporter.fd, key, (int32_t *)8, 1));
	EXPECT_EQ(-ENOENT, bo_allow(self->exporter.fd, key + 1, pids, 1));
	EXPECT_EQ(-ENOENT, bo_revoke(self->exporter.fd, key + 1));
	/* Only the exporter controls its key. */
	EXPECT_EQ(-EPERM, bo_allow(self->importer.fd, key, pids, 1));
	EXPECT_EQ(-EPERM, bo_revoke(self->importer.fd, key));
	/* A process that does not exist, and a pid that is none. */
	pids[1] = -1;
	EXPECT_EQ(-ESRCH, bo_allow(self->exporter.fd, key, pids, 2));
	pids[1] = 0;
	EXPECT_EQ(-ESRCH, bo_allow(self->exporter.fd, key, pids, 2));
	pids[1] = getpid();
	/* The same process many times over is allowed once. */
	EXPECT_EQ(0, bo_allow(self->exporter.fd, key, pids, DRM_NPU_EXPORT_MAX_PIDS));
	EXPECT_EQ(0, bo_allow(self->exporter.fd, key, pids, 1));
	EXPECT_EQ(0, bo_revoke(self->exporter.fd, key));
	EXPECT_EQ(-ENOENT, bo_revoke(self->exporter.fd, key));
}

TEST_F(share, import_errors)
{
	struct drm_npu_bo_import imp = { 0 };
	uint64_t key, open_key;

	ASSERT_EQ(0, bo_export(self->exporter.fd, self->buf.handle, 0, &key));
	ASSERT_EQ(0, bo_export(self->exporter.fd, self->buf.handle,
			       DRM_NPU_EXPORT_ANY_PROCESS, &open_key));
	EXPECT_NE(key, open_key);

	EXPECT_EQ(-EINVAL, bo_import(self->importer.fd, 0, &imp));
	imp = (struct drm_npu_bo_import){ .key = open_key, .flags = 1 };
	EXPECT_EQ(-EINVAL, test_ioctl(self->importer.fd, DRM_IOCTL_NPU_BO_IMPORT, &imp));
	imp = (struct drm_npu_bo_import){ .key = open_key, .handle = 1 };
	EXPECT_EQ(-EINVAL, test_ioctl(self->importer.fd, DRM_IOCTL_NPU_BO_IMPORT, &imp));
	imp = (struct drm_npu_bo_import){ .key = open_key, .addr = 1 };
	EXPECT_EQ(-EINVAL, test_ioctl(self->importer.fd, DRM_IOCTL_NPU_BO_IMPORT, &imp));
	imp = (struct drm_npu_bo_import){ .key = open_key, .size = 1 };
	EXPECT_EQ(-EINVAL, test_ioctl(self->importer.fd, DRM_IOCTL_NPU_BO_IMPORT, &imp));
	/* The exporter's own key, and keys this card does not know. */
	EXPECT_EQ(-EINVAL, bo_import(self->exporter.fd, open_key, &imp));
	EXPECT_EQ(-ENOENT, bo_import(self->importer.fd, open_key ^ 1, &imp));
	EXPECT_EQ(0, imp.handle);
	/* Without the process on its list, not even this one may import. */
	EXPECT_EQ(-EACCES, bo_import(self->importer.fd, key, &imp));
	EXPECT_EQ(0, imp.handle);
	/* A revoked key is gone. */
	ASSERT_EQ(0, bo_revoke(self->exporter.fd, open_key));
	EXPECT_EQ(-ENOENT, bo_import(self->importer.fd, open_key, &imp));
}

TEST_F(share, too_many_keys)
{
	uint64_t key, refused;
	int i;

	for (i = 0; i < DRM_NPU_MAX_EXPORTS; i++)
		ASSERT_EQ(0, bo_export(self->exporter.fd, self->buf.handle, 0, &key));
	EXPECT_EQ(-ENOSPC, bo_export(self->exporter.fd, self->buf.handle, 0, &refused));
	EXPECT_EQ(0, refused);
	ASSERT_EQ(0, bo_revoke(self->exporter.fd, key));
	EXPECT_EQ(0, bo_export(self->exporter.fd, self->buf.handle, 0, &key));
}

/* The exporter closing everything leaves the memory to the importer. */
TEST_F(share, importer_outlives_exporter)
{
	struct drm_npu_bo_import imp;
	uint8_t out[SIZE];
	uint64_t key;

	ASSERT_EQ(0, bo_export(self->exporter.fd, self->buf.handle,
			       DRM_NPU_EXPORT_ANY_PROCESS, &key));
	ASSERT_EQ(0, bo_import(self->importer.fd, key, &imp));
	ASSERT_EQ(0, test_bo_close(self->exporter.fd, self->buf.handle));
	ASSERT_EQ(0, bo_revoke(self->exporter.fd, key));
	test_card_close(&self->exporter);
	EXPECT_EQ(self->free_before - SIZE, devmem_free(&self->importer));

	ASSERT_EQ(0, read_back(&self->importer, &self->is, imp.addr, out, SIZE));
	EXPECT_TRUE(all_bytes(out, SIZE, 0x5a));
	ASSERT_EQ(0, test_bo_close(self->importer.fd, imp.handle));
	EXPECT_TRUE(test_wait_until(devmem_free(&self->importer) == self->free_before,
				    TEST_SETTLE_MS));
}

/* A key not revoked goes with its exporter's file; the import stays. */
TEST_F(share, exporter_closing_revokes_its_keys)
{
	struct drm_npu_bo_import imp, late;
	uint64_t key;

	ASSERT_EQ(0, bo_export(self->exporter.fd, self->buf.handle,
			       DRM_NPU_EXPORT_ANY_PROCESS, &key));
	ASSERT_EQ(0, bo_import(self->importer.fd, key, &imp));
	test_card_close(&self->exporter);
	EXPECT_EQ(-ENOENT, bo_import(self->importer.fd, key, &late));
	EXPECT_EQ(self->free_before - SIZE, devmem_free(&self->importer));
	ASSERT_EQ(0, test_bo_close(self->importer.fd, imp.handle));
	EXPECT_TRUE(test_wait_until(devmem_free(&self->importer) == self->free_before,
				    TEST_SETTLE_MS));
}

static void send_u64(int fd, uint64_t v)
{
	if (write(fd, &v, sizeof(v)) != sizeof(v))
		_exit(10);
}

static uint64_t recv_u64(int fd)
{
	uint64_t v = 0;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

/*
 * The child imports key on a file of its own (a forked file descriptor
 * would be the parent's context), reads the buffer, sends back the first
 * byte it read or the negated errno of its import, then waits to be
 * killed, still holding its import.
 */
static void import_and_hold(int key_fd, int reply_fd)
{
	struct drm_npu_stream_create s;
	struct drm_npu_bo_import imp;
	struct test_card card;
	uint64_t key = recv_u64(key_fd);
	uint8_t out[SIZE];
	int ret;

	if (test_card_open(&card, 0) || test_stream_create(card.fd, 0, 0, &s))
		_exit(1);
	ret = bo_import(card.fd, key, &imp);
	if (!ret)
		ret = read_back(&card, &s, imp.addr, out, SIZE);
	send_u64(reply_fd, ret ? (uint64_t)(int64_t)ret : out[0]);
	pause();
	_exit(0);
}

static pid_t spawn(void (*fn)(int, int), int *to_child, int *from_child)
{
	int down[2], up[2];
	pid_t pid;

	if (pipe(down) || pipe(up))
		return -1;
	pid = fork();
	if (!pid) {
		close(down[1]);
		close(up[0]);
		fn(down[0], up[1]);
	}
	close(down[0]);
	close(up[1]);
	*to_child = down[1];
	*from_child = up[0];
	return pid;
}

static void reap(pid_t pid)
{
	int status;

	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
}

TEST_F(share, only_allowed_processes_import)
{
	int to_child, from_child;
	uint64_t key;
	pid_t pid;

	ASSERT_EQ(0, bo_export(self->exporter.fd, self->buf.handle, 0, &key));
	/* Allowing this process does not allow its children. */
	ASSERT_EQ(0, bo_allow(self->exporter.fd, key, (int32_t[]){ getpid() }, 1));
	pid = spawn(import_and_hold, &to_child, &from_child);
	ASSERT_GT(pid, 0);
	send_u64(to_child, key);
	EXPECT_EQ((uint64_t)(int64_t)-EACCES, recv_u64(from_child));
	reap(pid);
	close(to_child);
	close(from_child);

	pid = spawn(import_and_hold, &to_child, &from_child);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(0, bo_allow(self->exporter.fd, key, (int32_t[]){ pid }, 1));
	send_u64(to_child, key);
	EXPECT_EQ(0x5a, recv_u64(from_child));
	reap(pid);
	close(to_child);
	close(from_child);
}

/* A killed importer gives its hold back: the exporter's free is final. */
TEST_F(share, killed_importer_gives_back)
{
	int to_child, from_child;
	uint64_t key;
	pid_t pid;

	ASSERT_EQ(0, bo_export(self->exporter.fd, self->buf.handle,
			       DRM_NPU_EXPORT_ANY_PROCESS, &key));
	pid = spawn(import_and_hold, &to_child, &from_child);
	ASSERT_GT(pid, 0);
	send_u64(to_child, key);
	ASSERT_EQ(0x5a, recv_u64(from_child));
	ASSERT_EQ(0, bo_revoke(self->exporter.fd, key));
	ASSERT_EQ(0, test_bo_close(self->exporter.fd, self->buf.handle));
	/* The child holds it still. */
	EXPECT_EQ(self->free_before - SIZE, devmem_free(&self->exporter));
	reap(pid);
	EXPECT_TRUE(test_wait_until(devmem_free(&self->exporter) == self->free_before,
				    TEST_SETTLE_MS));
	close(to_child);
	close(from_child);
}

/*
 * The child exports a buffer of 0x3c bytes to its parent, sends the key,
 * and waits to be killed.
 */
static void export_and_hold(int unused_fd, int reply_fd)
{
	struct drm_npu_stream_create s;
	struct drm_npu_bo_create bo;
	struct test_card card;
	uint64_t key;

	(void)unused_fd;
	if (test_card_open(&card, 0) || test_stream_create(card.fd, 0, 0, &s) ||
	    test_bo_create(card.fd, SIZE, 0, &bo) ||
	    test_run(&card, &s, test_cmd_fill(bo.addr, 0x3c, SIZE, 0)) ||
	    bo_export(card.fd, bo.handle, 0, &key) ||
	    bo_allow(card.fd, key, (int32_t[]){ getppid() }, 1))
		_exit(1);
	send_u64(reply_fd, key);
	pause();
	_exit(0);
}

/* Whether key may still be imported; the handle that tells is closed. */
static bool key_alive(int fd, uint64_t key)
{
	struct drm_npu_bo_import imp;

	if (bo_import(fd, key, &imp))
		return false;
	test_bo_close(fd, imp.handle);
	return true;
}

TEST_F(share, killed_exporter_leaves_the_import_valid)
{
	struct drm_npu_bo_import imp;
	int to_child, from_child;
	uint8_t out[SIZE];
	uint64_t key, free_start;
	pid_t pid;

	test_card_close(&self->exporter);
	free_start = devmem_free(&self->importer);
	pid = spawn(export_and_hold, &to_child, &from_child);
	ASSERT_GT(pid, 0);
	key = recv_u64(from_child);
	ASSERT_NE(0, key);
	ASSERT_EQ(0, bo_import(self->importer.fd, key, &imp));
	reap(pid);

	/* The child's file may close a moment after waitpid: its key goes then. */
	EXPECT_TRUE(test_wait_until(!key_alive(self->importer.fd, key), TEST_SETTLE_MS));
	EXPECT_EQ(free_start - SIZE, devmem_free(&self->importer));
	ASSERT_EQ(0, read_back(&self->importer, &self->is, imp.addr, out, SIZE));
	EXPECT_TRUE(all_bytes(out, SIZE, 0x3c));
	ASSERT_EQ(0, test_bo_close(self->importer.fd, imp.handle));
	EXPECT_TRUE(test_wait_until(devmem_free(&self->importer) == free_start,
				    TEST_SETTLE_MS));
	close(to_child);
	close(from_child);
}

TEST_HARNESS_MAIN
