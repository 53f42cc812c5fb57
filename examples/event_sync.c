// SPDX-License-Identifier: MIT
/* Event synchronization. */
#include "flows.h"

int main(void)
{
	aclError ret = aclInit(NULL);
	int rc;

	if (ret != ACL_SUCCESS && ret != ACL_ERROR_REPEAT_INITIALIZE)
		return 1;
	rc = flow_event_sync(0);
	aclFinalize();
	printf("%s: %s\n", "event_sync", rc ? "FAILED" : "ok");
	return rc;
}
