// SPDX-License-Identifier: MIT
/*
 * The host waits for a point in a stream, as the vendor's guide shows: an
 * event recorded after the stream's work, then aclrtSynchronizeEvent. The
 * event is made by aclrtCreateEventExWithFlag, which records what the
 * stream has been given so far; once synchronized, the query says
 * complete and the work is there.
 */
#include <stdint.h>
#include <stdio.h>

#include "acl/acl.h"
#include "check.h"

#define SIZE (1u << 20)
#define VALUE 0x5a

int main(void)
{
	aclrtEventRecordedStatus status;
	int32_t deviceId = 0;
	aclrtContext context;
	aclrtStream stream;
	aclrtEvent event;
	uint8_t *host;
	void *dev;

	CHECK(aclInit(NULL));
	CHECK(aclrtSetDevice(deviceId));
	CHECK(aclrtCreateContext(&context, deviceId));
	CHECK(aclrtCreateEventExWithFlag(&event, ACL_EVENT_CAPTURE_STREAM_PROGRESS));
	CHECK(aclrtCreateStream(&stream));
	CHECK(aclrtMalloc(&dev, SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
	CHECK(aclrtMallocHost((void **)&host, SIZE));

	/* Work, then the event at the end of the stream; wait for the event. */
	CHECK(aclrtMemsetAsync(dev, SIZE, VALUE, SIZE, stream));
	CHECK(aclrtRecordEvent(event, stream));
	CHECK(aclrtSynchronizeEvent(event));
	CHECK(aclrtQueryEventStatus(event, &status));
	if (status != ACL_EVENT_RECORDED_STATUS_COMPLETE) {
		fprintf(stderr, "event sync: not complete after aclrtSynchronizeEvent\n");
		return 1;
	}
	CHECK(aclrtMemcpy(host, SIZE, dev, SIZE, ACL_MEMCPY_DEVICE_TO_HOST));
	for (size_t i = 0; i < SIZE; i++) {
		if (host[i] != VALUE) {
			fprintf(stderr, "event sync: byte %zu is %#x, expected %#x\n", i, host[i],
				VALUE);
			return 1;
		}
	}

	CHECK(aclrtFreeHost(host));
	CHECK(aclrtFree(dev));
	CHECK(aclrtDestroyStream(stream));
	CHECK(aclrtDestroyEvent(event));
	CHECK(aclrtDestroyContext(context));
	CHECK(aclrtResetDevice(deviceId));
	CHECK(aclFinalize());

	printf("event sync: event recorded after a %u-byte memset, synchronized; the query "
	       "says complete and the memory holds %#x\n", SIZE, VALUE);
	return 0;
}
