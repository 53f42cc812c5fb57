// SPDX-License-Identifier: MIT
// The public headers in C++: every declaration must have C linkage.
#include "acl/acl.h"
#include "acl/acl_prof.h"
#include "mstx/ms_tools_ext.h"
#include "profiling/aprof_pub.h"

#include <cstdio>

int main()
{
	// Taking the address forces the C symbol to be resolved at link time.
	aclError (*set)(int32_t) = &aclrtSetDevice;
	aclError (*cpy)(void *, size_t, const void *, size_t, aclrtMemcpyKind) = &aclrtMemcpy;
	aclError (*prof)(const char *, size_t) = &aclprofInit;
	void (*mark)(const char *, aclrtStream) = &mstxMarkA;
	int32_t (*name)(uint32_t, uint32_t) = &MsprofSetDeviceIdByGeModelIdx;
	uint32_t n = 0;
	aclError ret = aclrtGetDeviceCount(&n);

	if (!set || !cpy || !prof || !mark || !name || ret != ACL_SUCCESS) {
		std::printf("cxx_check: FAILED (%d)\n", ret);
		return 1;
	}
	static_assert(sizeof(aclrtStream) == sizeof(void *), "handles are pointers");
	static_assert(ACL_MEMCPY_DEVICE_TO_HOST == 2, "memcpy kind values");
	std::printf("cxx_check: ok (C++ build, %u device(s))\n", n);
	return 0;
}
