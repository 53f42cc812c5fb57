// SPDX-License-Identifier: MIT
/*
 * The vendor's calls this library does not do: memory registered with a
 * communicator (zero copy, symmetric windows), sub-communicators, suspend
 * and resume. Each says so (HCCL_E_NOT_SUPPORT, with a message); none
 * pretends.
 */
#include "hccl_internal.h"

static HcclResult no(const char *func, const char *what)
{
	return hccl_fail(func, HCCL_E_NOT_SUPPORT, "%s is not supported", what);
}

HCCL_EXPORT HcclResult HcclCommSetMemoryRange(HcclComm comm, void *baseVirPtr, size_t size,
					      size_t alignment, uint64_t flags)
{
	(void)comm, (void)baseVirPtr, (void)size, (void)alignment, (void)flags;
	return no(__func__, "zero-copy memory (collectives take memory from aclrtMalloc)");
}

HCCL_EXPORT HcclResult HcclCommUnsetMemoryRange(HcclComm comm, void *baseVirPtr)
{
	(void)comm, (void)baseVirPtr;
	return no(__func__, "zero-copy memory (collectives take memory from aclrtMalloc)");
}

HCCL_EXPORT HcclResult HcclCommActivateCommMemory(HcclComm comm, void *virPtr, size_t size,
						  size_t offset, aclrtDrvMemHandle handle,
						  uint64_t flags)
{
	(void)comm, (void)virPtr, (void)size, (void)offset, (void)handle, (void)flags;
	return no(__func__, "zero-copy memory (collectives take memory from aclrtMalloc)");
}

HCCL_EXPORT HcclResult HcclCommDeactivateCommMemory(HcclComm comm, void *virPtr)
{
	(void)comm, (void)virPtr;
	return no(__func__, "zero-copy memory (collectives take memory from aclrtMalloc)");
}

HCCL_EXPORT HcclResult HcclCommSymWinRegister(HcclComm comm, void *addr, uint64_t size,
					      HcclCommSymWindow *winHandle, uint32_t flag)
{
	(void)comm, (void)addr, (void)size, (void)winHandle, (void)flag;
	return no(__func__, "a symmetric memory window");
}

HCCL_EXPORT HcclResult HcclCommSymWinDeregister(HcclCommSymWindow winHandle)
{
	(void)winHandle;
	return no(__func__, "a symmetric memory window");
}

HCCL_EXPORT HcclResult HcclCommSymWinGet(HcclComm comm, void *ptr, size_t size,
					 HcclCommSymWindow *winHandle, size_t *offset)
{
	(void)comm, (void)ptr, (void)size, (void)winHandle, (void)offset;
	return no(__func__, "a symmetric memory window");
}

HCCL_EXPORT HcclResult HcclCreateSubCommConfig(HcclComm *comm, uint32_t rankNum, uint32_t *rankIds,
					       uint64_t subCommId, uint32_t subCommRankId,
					       HcclCommConfig *config, HcclComm *subComm)
{
	(void)comm, (void)rankNum, (void)rankIds, (void)subCommId, (void)subCommRankId;
	(void)config, (void)subComm;
	return no(__func__, "a sub-communicator");
}

HCCL_EXPORT HcclResult HcclCommSuspend(HcclComm comm)
{
	(void)comm;
	return no(__func__, "suspending a communicator");
}

HCCL_EXPORT HcclResult HcclCommResume(HcclComm comm)
{
	(void)comm;
	return no(__func__, "resuming a communicator");
}
