// SPDX-License-Identifier: MIT
/* A stream waiting on another stream's event. */
#include "flows.h"

int main(void)
{
	aclError ret = aclInit(NULL);
	int rc;

	if (ret != ACL_SUCCESS && ret != ACL_ERROR_REPEAT_INITIALIZE)
		return 1;
	rc = flow_stream_wait(0);
	aclFinalize();
	printf("%s: %s\n", "stream_wait_event", rc ? "FAILED" : "ok");
	return rc;
}
