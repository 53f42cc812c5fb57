// SPDX-License-Identifier: MIT
/* Built with nothing but `pkg-config --cflags --libs ascendcl`. */
#include <stdio.h>

#include "acl/acl.h"

/* aclrtGetVersion is deprecated upstream; it still has to work. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

int main(void)
{
	int32_t major, minor, patch;
	uint32_t n = 0;
	aclError ret;

	ret = aclInit(NULL);
	if (ret != ACL_SUCCESS)
		goto fail;
	ret = aclrtGetDeviceCount(&n);
	if (ret != ACL_SUCCESS)
		goto fail;
	ret = aclrtGetVersion(&major, &minor, &patch);
	if (ret != ACL_SUCCESS)
		goto fail;
	ret = aclFinalize();
	if (ret != ACL_SUCCESS)
		goto fail;
	printf("pkgconfig_check: ok (interface %d.%d.%d, %u device(s))\n", major, minor, patch, n);
	return 0;
fail:
	printf("pkgconfig_check: FAILED (%d)\n", ret);
	return 1;
}
