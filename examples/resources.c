// SPDX-License-Identifier: MIT
/* Resource allocation and release: device, context, stream. */
#include "flows.h"

int main(void)
{
	aclError ret = aclInit(NULL);
	int rc;

	if (ret != ACL_SUCCESS && ret != ACL_ERROR_REPEAT_INITIALIZE)
		return 1;
	rc = flow_resources(0);
	aclFinalize();
	printf("%s: %s\n", "resources", rc ? "FAILED" : "ok");
	return rc;
}
