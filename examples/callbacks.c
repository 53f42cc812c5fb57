// SPDX-License-Identifier: MIT
/* Callbacks: aclrtLaunchCallback (blocking and not) and aclrtLaunchHostFunc. */
#include "flows.h"

int main(void)
{
	aclError ret = aclInit(NULL);
	int rc;

	if (ret != ACL_SUCCESS && ret != ACL_ERROR_REPEAT_INITIALIZE)
		return 1;
	rc = flow_callbacks(0);
	aclFinalize();
	printf("%s: %s\n", "callbacks", rc ? "FAILED" : "ok");
	return rc;
}
