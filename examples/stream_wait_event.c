// SPDX-License-Identifier: MIT
/*
 * One stream waits, on the device, for an event recorded on another, as
 * the vendor's guide shows for tasks across streams: stream 1 copies the
 * data in and records the event; stream 2 waits for it, then copies the
 * data on and back out. The host waits only for stream 2, and finds the
 * data that stream 1 brought.
 */
#include <stdint.h>
#include <stdio.h>

#include "acl/acl.h"
#include "check.h"

#define SIZE (4u << 20)

static uint8_t pattern(size_t i)
{
	return (uint8_t)(i * 131 + 28 + (i >> 12));
}

int main(void)
{
	int32_t deviceId = 0;
	aclrtContext context;
	aclrtStream s1, s2;
	aclrtEvent event;
	void *devA, *devB;
	uint8_t *host;

	CHECK(aclInit(NULL));
	CHECK(aclrtSetDevice(deviceId));
	CHECK(aclrtCreateContext(&context, deviceId));
	CHECK(aclrtCreateEventExWithFlag(&event, ACL_EVENT_SYNC));
	CHECK(aclrtCreateStream(&s1));
	CHECK(aclrtCreateStream(&s2));
	CHECK(aclrtMalloc(&devA, SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
	CHECK(aclrtMalloc(&devB, SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
	CHECK(aclrtMallocHost((void **)&host, SIZE));
	for (size_t i = 0; i < SIZE; i++)
		host[i] = pattern(i);

	/* Stream 1 produces devA and records the event after it. */
	CHECK(aclrtMemcpyAsync(devA, SIZE, host, SIZE, ACL_MEMCPY_HOST_TO_DEVICE, s1));
	CHECK(aclrtRecordEvent(event, s1));
	/* Stream 2 waits for the event on the card, then consumes devA. */
	CHECK(aclrtStreamWaitEvent(s2, event));
	CHECK(aclrtMemcpyAsync(devB, SIZE, devA, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE, s2));
	CHECK(aclrtMemsetAsync(host, SIZE, 0, SIZE, s2));
	CHECK(aclrtMemcpyAsync(host, SIZE, devB, SIZE, ACL_MEMCPY_DEVICE_TO_HOST, s2));
	CHECK(aclrtSynchronizeStream(s2));
	for (size_t i = 0; i < SIZE; i++) {
		if (host[i] != pattern(i)) {
			fprintf(stderr, "stream wait: byte %zu is %#x, expected %#x\n", i, host[i],
				pattern(i));
			return 1;
		}
	}

	CHECK(aclrtFreeHost(host));
	CHECK(aclrtFree(devB));
	CHECK(aclrtFree(devA));
	CHECK(aclrtDestroyStream(s2));
	CHECK(aclrtDestroyStream(s1));
	CHECK(aclrtDestroyEvent(event));
	CHECK(aclrtDestroyContext(context));
	CHECK(aclrtResetDevice(deviceId));
	CHECK(aclFinalize());

	printf("stream wait: stream 2 waited on the card for stream 1's event; %u bytes "
	       "verified\n", SIZE);
	return 0;
}
