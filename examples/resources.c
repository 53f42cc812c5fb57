// SPDX-License-Identifier: MIT
/*
 * Runtime resources, allocated and released in order, as the vendor's
 * guide lays them out: AscendCL, the device, a context and a stream on
 * it; the run mode, which tells whether data must cross between host and
 * device; then everything released in reverse order.
 */
#include <stdio.h>

#include "acl/acl.h"
#include "check.h"

int main(void)
{
	aclrtContext context, currentContext;
	int32_t deviceId = 0, currentDevice;
	aclrtRunMode runMode;
	aclrtStream stream;
	uint32_t count;

	/* Allocate: AscendCL, the device, a context on it, a stream in that. */
	CHECK(aclInit(NULL));
	CHECK(aclrtGetDeviceCount(&count));
	CHECK(aclrtSetDevice(deviceId));
	CHECK(aclrtCreateContext(&context, deviceId));
	CHECK(aclrtCreateStream(&stream));
	CHECK(aclrtGetRunMode(&runMode));

	/* The new context is now the thread's, and with it the device. */
	CHECK(aclrtGetCurrentContext(&currentContext));
	CHECK(aclrtGetDevice(&currentDevice));
	if (currentContext != context || currentDevice != deviceId) {
		fprintf(stderr, "resources: the current context or device is not the one set\n");
		return 1;
	}

	/* Release in reverse order. */
	CHECK(aclrtDestroyStream(stream));
	CHECK(aclrtDestroyContext(context));
	CHECK(aclrtResetDevice(deviceId));
	CHECK(aclFinalize());

	printf("resources: %u device(s); device %d set, a context and a stream created and "
	       "released in reverse order; run mode %s\n", count, deviceId,
	       runMode == ACL_HOST ? "ACL_HOST (data crosses between host and device)"
				   : "ACL_DEVICE");
	return 0;
}
