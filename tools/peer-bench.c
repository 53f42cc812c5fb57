// SPDX-License-Identifier: MIT
/*
 * peer-bench: card-to-card copies and the cost of mapping, each next to a
 * reference measured in the same run:
 *
 *   peer write   aclrtMemcpyAsync of 64 MiB from card 0's memory to card
 *                1's, on a stream of card 0 (its DMA writes through the
 *                peer window)
 *   peer read    the same on a stream of card 1 (its DMA reads through
 *                its window)
 *                both vs a host memcpy between two memories made as the
 *                cards make theirs (memfd, shared; card/card.c): what
 *                moving the bytes costs at best here, the physical limit
 *   map+unmap    DRM_IOCTL_NPU_VM_BIND MAP then UNMAP of a 2 MiB buffer,
 *                pairs per second, vs the null ioctl (GET_PARAM)
 *
 * The host's figure is measured on the host (--limit-out FILE, which make
 * bench runs just before the guest) and read back in the guest
 * (--limit FILE): the guest's CPU reaches the cards' memory only through
 * QEMU. Without peer windows (a driver before 1.6) it says so and exits 0.
 * Run: make bench, or
 * build/tools/peer-bench --limit-out build/bench/peer-limit.txt &&
 * tools/vm-run --cards 2 -- build/tools/peer-bench --limit build/bench/peer-limit.txt
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl.h"
#include "npu_accel.h"

#define COPY_SIZE	(64u << 20)
#define COPY_RUNS	8
#define MAP_RUNS	2000

#define CHECK(call)								\
	do {									\
		aclError r_ = (call);						\
		if (r_ != ACL_SUCCESS) {					\
			const char *m_ = aclGetRecentErrMsg();			\
			fprintf(stderr, "peer-bench: %s failed: %d (%s)\n", #call, r_,	\
				m_ ? m_ : "");					\
			exit(1);						\
		}								\
	} while (0)

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void row(const char *name, double value, const char *unit, const char *ref_name,
		double ref, double ratio)
{
	printf("%-30s %12.3f %-5s | %-22s %12.3f %-5s | x%.2f\n", name, value, unit, ref_name, ref,
	       unit, ratio);
	fflush(stdout);
}

/* ---- the host's limit ----------------------------------------------------- */
static void *memfd_area(size_t n)
{
	int fd = memfd_create("peer-bench", MFD_CLOEXEC);
	void *p;

	if (fd < 0 || ftruncate(fd, (off_t)n)) {
		perror("peer-bench: memfd");
		exit(1);
	}
	p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		perror("peer-bench: mmap");
		exit(1);
	}
	memset(p, 0x5a, n);	/* every page present, as the cards' are */
	return p;
}

/* GB/s of memcpy between two memfd memories, the best of COPY_RUNS. */
static double host_limit(void)
{
	void *a = memfd_area(COPY_SIZE), *b = memfd_area(COPY_SIZE);
	double best = 0;

	for (int i = 0; i < COPY_RUNS; i++) {
		double t = now_s(), gbs;

		memcpy(i & 1 ? a : b, i & 1 ? b : a, COPY_SIZE);
		gbs = COPY_SIZE / (now_s() - t) / 1e9;
		if (gbs > best)
			best = gbs;
	}
	munmap(a, COPY_SIZE);
	munmap(b, COPY_SIZE);
	return best;
}

/* ---- on the cards --------------------------------------------------------- */
/* GB/s of dst <- src on a stream of device cur, the best of COPY_RUNS. */
static double peer_copy(int32_t cur, void *dst, const void *src)
{
	aclrtStream s;
	double best = 0;

	CHECK(aclrtSetDevice(cur));
	CHECK(aclrtCreateStream(&s));
	/* once untimed: first touches, the window opening */
	CHECK(aclrtMemcpyAsync(dst, COPY_SIZE, src, COPY_SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	CHECK(aclrtSynchronizeStream(s));
	for (int i = 0; i < COPY_RUNS; i++) {
		double t = now_s(), gbs;

		CHECK(aclrtMemcpyAsync(dst, COPY_SIZE, src, COPY_SIZE,
				       ACL_MEMCPY_DEVICE_TO_DEVICE, s));
		CHECK(aclrtSynchronizeStream(s));
		gbs = COPY_SIZE / (now_s() - t) / 1e9;
		if (gbs > best)
			best = gbs;
	}
	CHECK(aclrtDestroyStream(s));
	return best;
}

static int ioctl_ok(int fd, unsigned long req, void *arg)
{
	if (ioctl(fd, req, arg)) {
		fprintf(stderr, "peer-bench: ioctl %#lx: %s\n", req, strerror(errno));
		exit(1);
	}
	return 0;
}

/*
 * MAP + UNMAP pairs per second of one 2 MiB buffer at the first address
 * of the user range, in a context of its own (its first stream gives it
 * its address space); and null ioctls per second for the reference.
 */
static void map_unmap(double *pairs, double *nulls)
{
	struct drm_npu_bo_create bo = { .size = DRM_NPU_VM_BLOCK_SIZE,
					.flags = DRM_NPU_BO_BLOCK_ALIGNED };
	struct drm_npu_stream_create sc = { 0 };
	struct drm_npu_get_param gp = { .param = DRM_NPU_PARAM_NUM_RINGS };
	struct drm_npu_vm_bind map = {
		.op = DRM_NPU_VM_MAP, .addr = DRM_NPU_VA_USER_BASE, .size = DRM_NPU_VM_BLOCK_SIZE,
	};
	struct drm_npu_vm_bind unmap = {
		.op = DRM_NPU_VM_UNMAP, .addr = DRM_NPU_VA_USER_BASE, .size = DRM_NPU_VM_BLOCK_SIZE,
	};
	int fd = open("/dev/accel/accel0", O_RDWR | O_CLOEXEC);
	double t;

	if (fd < 0) {
		perror("peer-bench: /dev/accel/accel0");
		exit(1);
	}
	ioctl_ok(fd, DRM_IOCTL_NPU_BO_CREATE, &bo);
	ioctl_ok(fd, DRM_IOCTL_NPU_STREAM_CREATE, &sc);
	map.handle = bo.handle;
	t = now_s();
	for (int i = 0; i < MAP_RUNS; i++) {
		ioctl_ok(fd, DRM_IOCTL_NPU_VM_BIND, &map);
		ioctl_ok(fd, DRM_IOCTL_NPU_VM_BIND, &unmap);
	}
	*pairs = MAP_RUNS / (now_s() - t);
	t = now_s();
	for (int i = 0; i < MAP_RUNS; i++)
		ioctl_ok(fd, DRM_IOCTL_NPU_GET_PARAM, &gp);
	*nulls = MAP_RUNS / (now_s() - t);
	close(fd);
}

static double read_limit(const char *path)
{
	FILE *f = fopen(path, "r");
	double v = 0;

	if (!f || fscanf(f, "%lf", &v) != 1) {
		fprintf(stderr, "peer-bench: no host figure in %s\n", path);
		exit(1);
	}
	fclose(f);
	return v;
}

int main(int argc, char **argv)
{
	double limit, w, r, pairs, nulls;
	void *a, *b;
	int32_t can = 0;
	uint32_t n = 0;

	if (argc == 3 && !strcmp(argv[1], "--limit-out")) {
		FILE *f = fopen(argv[2], "w");

		if (!f || fprintf(f, "%.6f\n", host_limit()) < 0 || fclose(f)) {
			perror(argv[2]);
			return 1;
		}
		return 0;
	}
	if (argc != 3 || strcmp(argv[1], "--limit")) {
		fprintf(stderr, "usage: peer-bench --limit-out FILE (host) | --limit FILE (guest)\n");
		return 2;
	}
	limit = read_limit(argv[2]);
	CHECK(aclInit(NULL));
	CHECK(aclrtGetDeviceCount(&n));
	if (n >= 2)
		CHECK(aclrtDeviceCanAccessPeer(&can, 0, 1));
	if (!can) {
		printf("peer copies: not measured, %u card(s) and no peer windows\n", n);
		aclFinalize();
		return 0;
	}
	CHECK(aclrtSetDevice(1));
	CHECK(aclrtMalloc(&b, COPY_SIZE, ACL_MEM_MALLOC_HUGE_FIRST_P2P));
	CHECK(aclrtDeviceEnablePeerAccess(0, 0));
	CHECK(aclrtSetDevice(0));
	CHECK(aclrtMalloc(&a, COPY_SIZE, ACL_MEM_MALLOC_HUGE_FIRST_P2P));
	CHECK(aclrtDeviceEnablePeerAccess(1, 0));
	CHECK(aclrtMemset(a, COPY_SIZE, 0x11, COPY_SIZE));
	w = peer_copy(0, b, a);
	r = peer_copy(1, b, a);
	row("peer write 64 MiB (card 0)", w, "GB/s", "host memcpy memfd", limit, w / limit);
	row("peer read 64 MiB (card 1)", r, "GB/s", "host memcpy memfd", limit, r / limit);
	map_unmap(&pairs, &nulls);
	row("VM_BIND map+unmap 2 MiB", pairs / 1e3, "k/s", "null ioctl", nulls / 1e3,
	    pairs / nulls);
	CHECK(aclrtFree(a));
	CHECK(aclrtSetDevice(1));
	CHECK(aclrtFree(b));
	aclFinalize();
	return 0;
}
