// SPDX-License-Identifier: MIT
/* Device synchronization. */
#include "flows.h"

int main(void)
{
	aclError ret = aclInit(NULL);
	int rc;

	if (ret != ACL_SUCCESS && ret != ACL_ERROR_REPEAT_INITIALIZE)
		return 1;
	rc = flow_device_sync(0);
	aclFinalize();
	printf("%s: %s\n", "device_sync", rc ? "FAILED" : "ok");
	return rc;
}
