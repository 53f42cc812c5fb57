// SPDX-License-Identifier: MIT
/*
 * Device time of a copy, between two events, as the vendor's guide orders
 * the calls: create the events, record the start, the work, record the
 * end, synchronize the stream, then read the elapsed time (ms) and the
 * events' timestamps (us of device time).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"
#include "check.h"

#define SIZE (16u << 20)

int main(void)
{
	uint64_t startUs, endUs;
	aclrtEvent start, end;
	int32_t deviceId = 0;
	aclrtContext context;
	aclrtStream stream;
	void *host, *dev;
	float ms;

	CHECK(aclInit(NULL));
	CHECK(aclrtSetDevice(deviceId));
	CHECK(aclrtCreateContext(&context, deviceId));
	CHECK(aclrtCreateStream(&stream));
	CHECK(aclrtCreateEvent(&start));
	CHECK(aclrtCreateEvent(&end));
	CHECK(aclrtMallocHost(&host, SIZE));
	CHECK(aclrtMalloc(&dev, SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
	memset(host, 1, SIZE);

	CHECK(aclrtRecordEvent(start, stream));
	CHECK(aclrtMemcpyAsync(dev, SIZE, host, SIZE, ACL_MEMCPY_HOST_TO_DEVICE, stream));
	CHECK(aclrtRecordEvent(end, stream));
	CHECK(aclrtSynchronizeStream(stream));
	CHECK(aclrtEventElapsedTime(&ms, start, end));
	CHECK(aclrtEventGetTimestamp(start, &startUs));
	CHECK(aclrtEventGetTimestamp(end, &endUs));
	if (ms < 0 || endUs < startUs) {
		fprintf(stderr, "elapsed time: device time runs backwards (%.3f ms, %llu -> %llu us)\n",
			ms, (unsigned long long)startUs, (unsigned long long)endUs);
		return 1;
	}

	CHECK(aclrtFree(dev));
	CHECK(aclrtFreeHost(host));
	CHECK(aclrtDestroyEvent(end));
	CHECK(aclrtDestroyEvent(start));
	CHECK(aclrtDestroyStream(stream));
	CHECK(aclrtDestroyContext(context));
	CHECK(aclrtResetDevice(deviceId));
	CHECK(aclFinalize());

	printf("elapsed time: a %u-byte H2D copy took %.3f ms of device time (%.1f MB/s); "
	       "timestamps %llu -> %llu us\n", SIZE, ms, ms > 0 ? SIZE / (ms * 1e3) : 0.0,
	       (unsigned long long)startUs, (unsigned long long)endUs);
	return 0;
}
