// SPDX-License-Identifier: MIT
/*
 * aclrtSynchronizeDevice waits for every stream of the current context's
 * device, as the vendor's guide shows: three streams each fill a buffer;
 * after one aclrtSynchronizeDevice every stream is complete and every
 * buffer holds its value.
 */
#include <stdint.h>
#include <stdio.h>

#include "acl/acl.h"
#include "check.h"

#define SIZE (2u << 20)
#define STREAMS 3

int main(void)
{
	aclrtStream streams[STREAMS];
	void *buffers[STREAMS];
	aclrtStreamStatus status;
	int32_t deviceId = 0;
	aclrtContext context;
	uint8_t *host;
	int i;

	CHECK(aclInit(NULL));
	CHECK(aclrtSetDevice(deviceId));
	CHECK(aclrtCreateContext(&context, deviceId));
	for (i = 0; i < STREAMS; i++) {
		CHECK(aclrtCreateStream(&streams[i]));
		CHECK(aclrtMalloc(&buffers[i], SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
	}
	CHECK(aclrtMallocHost((void **)&host, SIZE));

	/* Each stream fills its buffer with its number plus one; one wait for all. */
	for (i = 0; i < STREAMS; i++)
		CHECK(aclrtMemsetAsync(buffers[i], SIZE, i + 1, SIZE, streams[i]));
	CHECK(aclrtSynchronizeDevice());
	for (i = 0; i < STREAMS; i++) {
		CHECK(aclrtStreamQuery(streams[i], &status));
		if (status != ACL_STREAM_STATUS_COMPLETE) {
			fprintf(stderr, "device sync: stream %d is still busy\n", i);
			return 1;
		}
		CHECK(aclrtMemcpy(host, SIZE, buffers[i], SIZE, ACL_MEMCPY_DEVICE_TO_HOST));
		for (size_t j = 0; j < SIZE; j++) {
			if (host[j] != i + 1) {
				fprintf(stderr, "device sync: buffer %d byte %zu is %#x, expected %#x\n",
					i, j, host[j], i + 1);
				return 1;
			}
		}
	}

	CHECK(aclrtFreeHost(host));
	for (i = STREAMS - 1; i >= 0; i--) {
		CHECK(aclrtFree(buffers[i]));
		CHECK(aclrtDestroyStream(streams[i]));
	}
	CHECK(aclrtDestroyContext(context));
	CHECK(aclrtResetDevice(deviceId));
	CHECK(aclFinalize());

	printf("device sync: %d streams with %u-byte fills each, all complete and verified after "
	       "aclrtSynchronizeDevice\n", STREAMS, SIZE);
	return 0;
}
