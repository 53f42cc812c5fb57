// SPDX-License-Identifier: MIT
/*
 * acl_demo: the shape of an AscendCL application, on every card there is.
 * For each device: set it, create a context and a stream, take host and
 * device memory, send data through the card (host to device, device to
 * device, device to host) between two events, verify what came back and
 * read the device time it took; then release all of it in reverse order.
 * Exits non-zero if any step fails or any byte is wrong.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"
#include "check.h"

#define SIZE (8u << 20)

/* Different data on each device, so that one card's data cannot pass for another's. */
static uint8_t pattern(size_t i, int32_t deviceId)
{
	return (uint8_t)(i * 131 + deviceId * 7 + 1 + (i >> 12));
}

int main(void)
{
	const char *soc;
	uint32_t count;

	CHECK(aclInit(NULL));
	CHECK(aclrtGetDeviceCount(&count));
	soc = aclrtGetSocName();
	printf("acl_demo: AscendCL interface %d.%d.%d, %u device(s), SoC %s\n",
	       ACL_MAJOR_VERSION, ACL_MINOR_VERSION, ACL_PATCH_VERSION, count, soc ? soc : "-");
	if (!count) {
		printf("acl_demo: no NPU device\n");
		return 1;
	}

	for (int32_t deviceId = 0; deviceId < (int32_t)count; deviceId++) {
		aclrtEvent start, end;
		aclrtContext context;
		uint8_t *hostIn, *hostOut;
		aclrtStream stream;
		void *devA, *devB;
		float ms;
		size_t i;

		CHECK(aclrtSetDevice(deviceId));
		CHECK(aclrtCreateContext(&context, deviceId));
		CHECK(aclrtCreateStream(&stream));
		CHECK(aclrtCreateEvent(&start));
		CHECK(aclrtCreateEvent(&end));
		CHECK(aclrtMallocHost((void **)&hostIn, SIZE));
		CHECK(aclrtMallocHost((void **)&hostOut, SIZE));
		CHECK(aclrtMalloc(&devA, SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
		CHECK(aclrtMalloc(&devB, SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
		for (i = 0; i < SIZE; i++)
			hostIn[i] = pattern(i, deviceId);
		memset(hostOut, 0, SIZE);

		/* Through the card and back, in stream order, timed by the card. */
		CHECK(aclrtRecordEvent(start, stream));
		CHECK(aclrtMemcpyAsync(devA, SIZE, hostIn, SIZE, ACL_MEMCPY_HOST_TO_DEVICE, stream));
		CHECK(aclrtMemcpyAsync(devB, SIZE, devA, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE, stream));
		CHECK(aclrtMemcpyAsync(hostOut, SIZE, devB, SIZE, ACL_MEMCPY_DEVICE_TO_HOST, stream));
		CHECK(aclrtRecordEvent(end, stream));
		CHECK(aclrtSynchronizeStream(stream));
		CHECK(aclrtEventElapsedTime(&ms, start, end));
		for (i = 0; i < SIZE && hostOut[i] == pattern(i, deviceId); i++)
			;
		if (i != SIZE) {
			fprintf(stderr, "acl_demo: device %d: byte %zu is %#x, expected %#x\n",
				deviceId, i, hostOut[i], pattern(i, deviceId));
			return 1;
		}

		CHECK(aclrtFree(devB));
		CHECK(aclrtFree(devA));
		CHECK(aclrtFreeHost(hostOut));
		CHECK(aclrtFreeHost(hostIn));
		CHECK(aclrtDestroyEvent(end));
		CHECK(aclrtDestroyEvent(start));
		CHECK(aclrtDestroyStream(stream));
		CHECK(aclrtDestroyContext(context));
		CHECK(aclrtResetDevice(deviceId));
		printf("acl_demo: device %d: %u bytes host -> device -> device -> host verified, "
		       "%.3f ms of device time\n", deviceId, SIZE, ms);
	}

	CHECK(aclFinalize());
	printf("acl_demo: verified on %u device(s)\n", count);
	return 0;
}
