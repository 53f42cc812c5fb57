// SPDX-License-Identifier: MIT
/*
 * acl_demo: runs the vendor guide's flows on the emulated card and says
 * what it did (copies verified, sizes, timings). Exits non-zero if any
 * flow fails.
 */
#include "flows.h"

int main(void)
{
	uint32_t count = 0;
	int failed = 0;
	aclError ret;

	ret = aclInit(NULL);
	if (ret != ACL_SUCCESS) {
		printf("aclInit failed: %d\n", ret);
		return 1;
	}
	aclrtGetDeviceCount(&count);
	printf("acl_demo: AscendCL interface %d.%d.%d, %u device(s), SoC %s\n", ACL_MAJOR_VERSION,
	       ACL_MINOR_VERSION, ACL_PATCH_VERSION, count, aclrtGetSocName() ? aclrtGetSocName() : "-");
	if (!count) {
		printf("acl_demo: no NPU device\n");
		aclFinalize();
		return 1;
	}
	failed |= flow_resources(0);
	failed |= flow_memcpy(0, 8 << 20);
	failed |= flow_memcpy(0, 12345);
	failed |= flow_event_sync(0);
	failed |= flow_stream_wait(0);
	failed |= flow_device_sync(0);
	failed |= flow_elapsed(0, 16 << 20);
	failed |= flow_callbacks(0);
	if (count > 1)
		failed |= flow_memcpy(1, 4 << 20);
	aclFinalize();
	printf("acl_demo: %s\n", failed ? "FAILED" : "all flows verified");
	return failed;
}
