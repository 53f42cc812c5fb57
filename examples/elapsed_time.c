// SPDX-License-Identifier: MIT
/* Elapsed time between two events. */
#include "flows.h"

int main(void)
{
	aclError ret = aclInit(NULL);
	int rc;

	if (ret != ACL_SUCCESS && ret != ACL_ERROR_REPEAT_INITIALIZE)
		return 1;
	rc = flow_elapsed(0, 16 << 20);
	aclFinalize();
	printf("%s: %s\n", "elapsed_time", rc ? "FAILED" : "ok");
	return rc;
}
