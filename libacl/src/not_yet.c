// SPDX-License-Identifier: MIT
/*
 * Runtime calls this card does not offer yet, declared so that programs
 * written for the vendor's runtime (ggml's CANN backend) build and link,
 * and learn at run time, from the code and the message, what is missing:
 * virtual memory (issue 28).
 */
#include "acl_internal.h"

#define NOT_YET(what, issue)							\
	ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "%s is not supported on this "	\
		 "card yet (issue %d)", what, issue)

#define VMM	"virtual memory (reserving addresses, mapping physical memory)"

ACL_EXPORT aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment,
					   void *expectPtr, uint64_t flags)
{
	(void)virPtr, (void)size, (void)alignment, (void)expectPtr, (void)flags;
	return NOT_YET(VMM, 28);
}

ACL_EXPORT aclError aclrtReleaseMemAddress(void *virPtr)
{
	(void)virPtr;
	return NOT_YET(VMM, 28);
}

ACL_EXPORT aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size,
					const aclrtPhysicalMemProp *prop, uint64_t flags)
{
	(void)handle, (void)size, (void)prop, (void)flags;
	return NOT_YET(VMM, 28);
}

ACL_EXPORT aclError aclrtFreePhysical(aclrtDrvMemHandle handle)
{
	(void)handle;
	return NOT_YET(VMM, 28);
}

ACL_EXPORT aclError aclrtMapMem(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle,
				uint64_t flags)
{
	(void)virPtr, (void)size, (void)offset, (void)handle, (void)flags;
	return NOT_YET(VMM, 28);
}

ACL_EXPORT aclError aclrtUnmapMem(void *virPtr)
{
	(void)virPtr;
	return NOT_YET(VMM, 28);
}

ACL_EXPORT aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp *prop,
						     aclrtMemGranularityOptions option,
						     size_t *granularity)
{
	(void)prop, (void)option, (void)granularity;
	return NOT_YET(VMM, 28);
}
