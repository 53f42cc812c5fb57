// SPDX-License-Identifier: MIT
/* Synchronous and asynchronous host/device copies, verified. */
#include "flows.h"

int main(void)
{
	aclError ret = aclInit(NULL);
	int rc;

	if (ret != ACL_SUCCESS && ret != ACL_ERROR_REPEAT_INITIALIZE)
		return 1;
	rc = flow_memcpy(0, 8 << 20);
	aclFinalize();
	printf("%s: %s\n", "memcpy_sync_async", rc ? "FAILED" : "ok");
	return rc;
}
