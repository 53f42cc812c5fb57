// SPDX-License-Identifier: MIT
/*
 * aclrtFreeWithDevSync and aclrtFreeHostWithDevSync: the current device
 * finishes all its queued work first, so that nothing still queued can
 * touch the memory; a failed synchronization frees nothing.
 */
#include "acl_internal.h"

ACL_EXPORT aclError aclrtFreeWithDevSync(void *devPtr)
{
	aclError err;

	ACL_CHECK_NULL(devPtr);
	err = aclrtSynchronizeDevice();
	return err ? err : aclrtFree(devPtr);
}

ACL_EXPORT aclError aclrtFreeHostWithDevSync(void *hostPtr)
{
	aclError err;

	ACL_CHECK_NULL(hostPtr);
	err = aclrtSynchronizeDevice();
	return err ? err : aclrtFreeHost(hostPtr);
}
