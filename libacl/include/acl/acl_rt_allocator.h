/* SPDX-License-Identifier: MIT */
/*
 * libascendcl: allocators an application registers on a stream. While
 * one is registered, the device memory the runtime itself needs for work
 * queued on that stream (a model execution's workspace) comes from it:
 * taken with allocFunc when the work is queued and given back with
 * freeFunc as soon as it is, the stream ordering the block's next use
 * after this one. An allocator must therefore hand out device memory of
 * the stream's device, and return none of it to the system before the
 * streams that used it are synchronized.
 */
#ifndef LIBASCENDCL_ACL_RT_ALLOCATOR_H
#define LIBASCENDCL_ACL_RT_ALLOCATOR_H

#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void *(*aclrtAllocatorAllocFunc)(aclrtAllocator allocator, size_t size);
typedef void (*aclrtAllocatorFreeFunc)(aclrtAllocator allocator, aclrtAllocatorBlock block);
typedef void *(*aclrtAllocatorAllocAdviseFunc)(aclrtAllocator allocator, size_t size,
					       aclrtAllocatorAddr addr);
typedef void *(*aclrtAllocatorGetAddrFromBlockFunc)(aclrtAllocatorBlock block);

ACL_FUNC_VISIBILITY aclrtAllocatorDesc aclrtAllocatorCreateDesc(void);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetObjToDesc(aclrtAllocatorDesc allocatorDesc,
							aclrtAllocator allocator);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetAllocFuncToDesc(aclrtAllocatorDesc allocatorDesc,
							      aclrtAllocatorAllocFunc func);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetFreeFuncToDesc(aclrtAllocatorDesc allocatorDesc,
							     aclrtAllocatorFreeFunc func);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetAllocAdviseFuncToDesc(aclrtAllocatorDesc allocatorDesc,
								    aclrtAllocatorAllocAdviseFunc func);
ACL_FUNC_VISIBILITY aclError
aclrtAllocatorSetGetAddrFromBlockFuncToDesc(aclrtAllocatorDesc allocatorDesc,
					    aclrtAllocatorGetAddrFromBlockFunc func);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorRegister(aclrtStream stream,
						    aclrtAllocatorDesc allocatorDesc);
ACL_FUNC_VISIBILITY aclError
aclrtAllocatorGetByStream(aclrtStream stream, aclrtAllocatorDesc *allocatorDesc,
			  aclrtAllocator *allocator, aclrtAllocatorAllocFunc *allocFunc,
			  aclrtAllocatorFreeFunc *freeFunc,
			  aclrtAllocatorAllocAdviseFunc *allocAdviseFunc,
			  aclrtAllocatorGetAddrFromBlockFunc *getAddrFromBlockFunc);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorUnregister(aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* LIBASCENDCL_ACL_RT_ALLOCATOR_H */
