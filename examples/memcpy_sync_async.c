// SPDX-License-Identifier: MIT
/*
 * Copies between host and device, synchronous and asynchronous, each one
 * verified: pinned host memory (aclrtMallocHost) to the device and back
 * with aclrtMemcpy; host to device, device to device and back in one
 * stream with aclrtMemcpyAsync; and ordinary (pageable) memory with the
 * direction left to the runtime (ACL_MEMCPY_DEFAULT).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acl/acl.h"
#include "check.h"

#define SIZE (8u << 20)

/* Data that differs per copy (seed), so that a stale buffer shows. */
static void fill(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 131 + seed * 7 + (i >> 12));
}

static int verify(const uint8_t *p, size_t n, unsigned seed, const char *what)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i] != (uint8_t)(i * 131 + seed * 7 + (i >> 12))) {
			fprintf(stderr, "%s: byte %zu is %#x, expected %#x\n", what, i, p[i],
				(uint8_t)(i * 131 + seed * 7 + (i >> 12)));
			return 1;
		}
	}
	return 0;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(void)
{
	void *hostSrc, *hostDst, *devA, *devB;
	double t0, syncMs, asyncMs;
	int32_t deviceId = 0;
	aclrtContext context;
	aclrtStream stream;
	uint8_t *pageable;

	CHECK(aclInit(NULL));
	CHECK(aclrtSetDevice(deviceId));
	CHECK(aclrtCreateContext(&context, deviceId));
	CHECK(aclrtCreateStream(&stream));
	CHECK(aclrtMallocHost(&hostSrc, SIZE));
	CHECK(aclrtMallocHost(&hostDst, SIZE));
	CHECK(aclrtMalloc(&devA, SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
	CHECK(aclrtMalloc(&devB, SIZE, ACL_MEM_MALLOC_NORMAL_ONLY));
	pageable = malloc(SIZE);
	if (!pageable)
		return 1;

	/* Synchronous: each call returns with its copy done. */
	fill(hostSrc, SIZE, 1);
	memset(hostDst, 0, SIZE);
	t0 = now_ms();
	CHECK(aclrtMemcpy(devA, SIZE, hostSrc, SIZE, ACL_MEMCPY_HOST_TO_DEVICE));
	CHECK(aclrtMemcpy(hostDst, SIZE, devA, SIZE, ACL_MEMCPY_DEVICE_TO_HOST));
	syncMs = now_ms() - t0;
	if (verify(hostDst, SIZE, 1, "synchronous copy"))
		return 1;

	/* Asynchronous: the stream runs them in order; the host waits once. */
	fill(hostSrc, SIZE, 2);
	memset(hostDst, 0, SIZE);
	t0 = now_ms();
	CHECK(aclrtMemcpyAsync(devA, SIZE, hostSrc, SIZE, ACL_MEMCPY_HOST_TO_DEVICE, stream));
	CHECK(aclrtMemcpyAsync(devB, SIZE, devA, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE, stream));
	CHECK(aclrtMemcpyAsync(hostDst, SIZE, devB, SIZE, ACL_MEMCPY_DEVICE_TO_HOST, stream));
	CHECK(aclrtSynchronizeStream(stream));
	asyncMs = now_ms() - t0;
	if (verify(hostDst, SIZE, 2, "asynchronous copy"))
		return 1;

	/*
	 * Ordinary memory, the direction inferred from the pointers: the
	 * runtime finishes with such memory before the call returns, so it
	 * may be reused at once.
	 */
	fill(pageable, SIZE, 3);
	CHECK(aclrtMemcpyAsync(devA, SIZE, pageable, SIZE, ACL_MEMCPY_DEFAULT, stream));
	memset(pageable, 0, SIZE);
	CHECK(aclrtMemcpyAsync(pageable, SIZE, devA, SIZE, ACL_MEMCPY_DEFAULT, stream));
	if (verify(pageable, SIZE, 3, "pageable copy"))
		return 1;

	free(pageable);
	CHECK(aclrtFree(devB));
	CHECK(aclrtFree(devA));
	CHECK(aclrtFreeHost(hostDst));
	CHECK(aclrtFreeHost(hostSrc));
	CHECK(aclrtDestroyStream(stream));
	CHECK(aclrtDestroyContext(context));
	CHECK(aclrtResetDevice(deviceId));
	CHECK(aclFinalize());

	printf("memcpy: %u bytes verified: synchronous H2D+D2H %.2f ms, asynchronous "
	       "H2D+D2D+D2H %.2f ms, pageable asynchronous (ACL_MEMCPY_DEFAULT)\n",
	       SIZE, syncMs, asyncMs);
	return 0;
}
