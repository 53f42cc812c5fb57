/* SPDX-License-Identifier: MIT */
/*
 * libascendcl: the part of the AscendCL runtime API that runs
 * vendor-compiled kernels (Ascend C binaries: loading, functions, their
 * arguments, launches, device symbols) and managed (unified) memory.
 * Included by acl_rt.h, where the vendor declares the same.
 *
 * The npu card runs its own operators (aclnn, models compiled by atc), not
 * the vendor's kernel binaries, and its MMU maps no address the host and
 * the card share. Every function here is declared as the vendor does, so
 * that programs using them compile and link, and returns
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT with a message (aclGetRecentErrMsg);
 * aclrtCreateBinary, which returns a handle, returns NULL.
 */
#ifndef LIBASCENDCL_ACL_RT_KERNEL_H
#define LIBASCENDCL_ACL_RT_KERNEL_H

#include "acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* aclrtMemAllocManaged flag: the memory is reachable from every device. */
#define ACL_RT_MEM_ATTACH_GLOBAL 0x01U

/* A launch's options. */
typedef struct aclrtLaunchKernelAttr {
	aclrtLaunchKernelAttrId id;
	aclrtLaunchKernelAttrValue value;
} aclrtLaunchKernelAttr;

typedef struct aclrtLaunchKernelCfg {
	aclrtLaunchKernelAttr *attrs;
	size_t numAttrs;
} aclrtLaunchKernelCfg;

/* Grid and block sizes of a SIMT launch. */
typedef struct dim3 {
	uint32_t x;
	uint32_t y;
	uint32_t z;
#if defined(__cplusplus) && __cplusplus >= 201103L
	constexpr dim3(uint32_t vx = 1, uint32_t vy = 1, uint32_t vz = 1) : x(vx), y(vy), z(vz) {}
#endif
} dim3;

/* Where a launch's host arguments hold a device address to patch. */
typedef struct {
	uint32_t addrOffset;
	uint32_t dataOffset;
} aclrtPlaceHolderInfo;

/* Kernel binaries. */
ACL_FUNC_VISIBILITY aclrtBinary aclrtCreateBinary(const void *data, size_t dataLen);
ACL_FUNC_VISIBILITY aclError aclrtDestroyBinary(aclrtBinary binary);
ACL_FUNC_VISIBILITY aclError aclrtBinaryLoad(const aclrtBinary binary, aclrtBinHandle *binHandle);
ACL_FUNC_VISIBILITY aclError aclrtBinaryLoadFromFile(const char *binPath,
						     aclrtBinaryLoadOptions *options,
						     aclrtBinHandle *binHandle);
ACL_FUNC_VISIBILITY aclError aclrtBinaryLoadFromData(const void *data, size_t length,
						     const aclrtBinaryLoadOptions *options,
						     aclrtBinHandle *binHandle);
ACL_FUNC_VISIBILITY aclError aclrtBinaryUnLoad(aclrtBinHandle binHandle);
ACL_FUNC_VISIBILITY aclError aclrtBinaryGetDevAddress(const aclrtBinHandle binHandle, void **binAddr,
						      size_t *binSize);
ACL_FUNC_VISIBILITY aclError aclrtBinaryGetGlobal(aclrtBinHandle binHandle, const char *name,
						  void **dptr, size_t *size);
ACL_FUNC_VISIBILITY aclError aclrtBinarySetExceptionCallback(aclrtBinHandle binHandle,
							     aclrtOpExceptionCallback callback,
							     void *userData);

/* Functions of a binary. */
ACL_FUNC_VISIBILITY aclError aclrtBinaryGetFunction(const aclrtBinHandle binHandle,
						    const char *kernelName,
						    aclrtFuncHandle *funcHandle);
ACL_FUNC_VISIBILITY aclError aclrtBinaryGetFunctionByEntry(aclrtBinHandle binHandle,
							   uint64_t funcEntry,
							   aclrtFuncHandle *funcHandle);
ACL_FUNC_VISIBILITY aclError aclrtRegisterCpuFunc(const aclrtBinHandle handle, const char *funcName,
						  const char *kernelName,
						  aclrtFuncHandle *funcHandle);
ACL_FUNC_VISIBILITY aclError aclrtGetFuncBySymbol(const void *symbol, aclrtFuncHandle *funcHandle);
ACL_FUNC_VISIBILITY aclError aclrtGetFunctionAddr(aclrtFuncHandle funcHandle, void **aicAddr,
						  void **aivAddr);
ACL_FUNC_VISIBILITY aclError aclrtGetFunctionSize(aclrtFuncHandle funcHandle, size_t *aicSize,
						  size_t *aivSize);
ACL_FUNC_VISIBILITY aclError aclrtGetFunctionName(aclrtFuncHandle funcHandle, uint32_t maxLen,
						  char *name);
ACL_FUNC_VISIBILITY aclError aclrtGetFunctionAttribute(aclrtFuncHandle funcHandle,
						       aclrtFuncAttribute attrType,
						       int64_t *attrValue);
ACL_FUNC_VISIBILITY aclError aclrtFunctionGetBinary(const aclrtFuncHandle funcHandle,
						    aclrtBinHandle *binHandle);
ACL_FUNC_VISIBILITY aclError aclrtFunctionGetParamCount(const void *func, size_t *paramCount);
ACL_FUNC_VISIBILITY aclError aclrtFunctionGetParamInfo(const void *func, size_t paramIndex,
						       size_t *paramOffset, size_t *paramSize);
ACL_FUNC_VISIBILITY aclError aclrtFunctionGetAvailDynUbufPerBlock(void *func, uint32_t flags,
								  size_t *dynamicUbufSize);

/* A launch's arguments. */
ACL_FUNC_VISIBILITY aclError aclrtKernelArgsGetHandleMemSize(aclrtFuncHandle funcHandle,
							     size_t *memSize);
ACL_FUNC_VISIBILITY aclError aclrtKernelArgsGetMemSize(aclrtFuncHandle funcHandle,
						       size_t userArgsSize, size_t *actualArgsSize);
ACL_FUNC_VISIBILITY aclError aclrtKernelArgsInit(aclrtFuncHandle funcHandle,
						 aclrtArgsHandle *argsHandle);
ACL_FUNC_VISIBILITY aclError aclrtKernelArgsInitByUserMem(aclrtFuncHandle funcHandle,
							  aclrtArgsHandle argsHandle,
							  void *userHostMem, size_t actualArgsSize);
ACL_FUNC_VISIBILITY aclError aclrtKernelArgsAppend(aclrtArgsHandle argsHandle, void *param,
						   size_t paramSize, aclrtParamHandle *paramHandle);
ACL_FUNC_VISIBILITY aclError aclrtKernelArgsAppendPlaceHolder(aclrtArgsHandle argsHandle,
							      aclrtParamHandle *paramHandle);
ACL_FUNC_VISIBILITY aclError aclrtKernelArgsGetPlaceHolderBuffer(aclrtArgsHandle argsHandle,
								 aclrtParamHandle paramHandle,
								 size_t dataSize,
								 void **bufferAddr);
ACL_FUNC_VISIBILITY aclError aclrtKernelArgsParaUpdate(aclrtArgsHandle argsHandle,
						       aclrtParamHandle paramHandle, void *param,
						       size_t paramSize);
ACL_FUNC_VISIBILITY aclError aclrtKernelArgsFinalize(aclrtArgsHandle argsHandle);

/* Launches. */
ACL_FUNC_VISIBILITY aclError aclrtLaunchKernel(aclrtFuncHandle funcHandle, uint32_t numBlocks,
					       const void *argsData, size_t argsSize,
					       aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtLaunchKernelV2(aclrtFuncHandle funcHandle, uint32_t numBlocks,
						 const void *argsData, size_t argsSize,
						 aclrtLaunchKernelCfg *cfg, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtLaunchKernelWithConfig(aclrtFuncHandle funcHandle,
							 uint32_t numBlocks, aclrtStream stream,
							 aclrtLaunchKernelCfg *cfg,
							 aclrtArgsHandle argsHandle, void *reserve);
ACL_FUNC_VISIBILITY aclError aclrtLaunchKernelWithHostArgs(aclrtFuncHandle funcHandle,
							   uint32_t numBlocks, aclrtStream stream,
							   aclrtLaunchKernelCfg *cfg,
							   void *hostArgs, size_t argsSize,
							   aclrtPlaceHolderInfo *placeHolderArray,
							   size_t placeHolderNum);
ACL_FUNC_VISIBILITY aclError aclrtLaunchKernelWithArgsArray(void *func, uint32_t numBlocks,
							    aclrtStream stream,
							    aclrtLaunchKernelCfg *cfg, void **args);
ACL_FUNC_VISIBILITY aclError aclrtLaunchSIMTKernelWithArgsArray(void *func, dim3 gridDim,
								dim3 blockDim, size_t dynUbufSize,
								aclrtStream stream,
								aclrtLaunchKernelCfg *cfg,
								void **args);
ACL_FUNC_VISIBILITY aclError aclrtLaunchSIMTKernelWithHostArgs(void *func, dim3 gridDim,
							       dim3 blockDim, size_t dynUbufSize,
							       aclrtStream stream,
							       aclrtLaunchKernelCfg *cfg,
							       void *hostArgs, size_t argsSize,
							       aclrtPlaceHolderInfo *placeHolderArray,
							       size_t placeHolderNum);

/* Kernels' stacks and printf buffers. */
ACL_FUNC_VISIBILITY aclError aclrtDeviceSetLimit(aclrtDeviceLimit limit, size_t value);
ACL_FUNC_VISIBILITY aclError aclrtDeviceGetLimit(aclrtDeviceLimit limit, size_t *value);

/* Device symbols of kernel binaries. */
ACL_FUNC_VISIBILITY aclError aclrtGetSymbolAddress(const void *symbol, void **devPtr);
ACL_FUNC_VISIBILITY aclError aclrtGetSymbolSize(const void *symbol, size_t *size);
ACL_FUNC_VISIBILITY aclError aclrtMemcpyToSymbol(const void *symbol, const void *src, size_t count,
						 size_t offset, aclrtMemcpyKind kind);
ACL_FUNC_VISIBILITY aclError aclrtMemcpyToSymbolAsync(const void *symbol, const void *src,
						      size_t count, size_t offset,
						      aclrtMemcpyKind kind, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtMemcpyFromSymbol(void *dst, size_t dstMax, const void *symbol,
						   size_t count, size_t offset,
						   aclrtMemcpyKind kind);
ACL_FUNC_VISIBILITY aclError aclrtMemcpyFromSymbolAsync(void *dst, size_t dstMax,
							const void *symbol, size_t count,
							size_t offset, aclrtMemcpyKind kind,
							aclrtStream stream);

/* Managed memory: one address for the host and every device. */
ACL_FUNC_VISIBILITY aclError aclrtMemAllocManaged(void **ptr, uint64_t size, uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclrtMemManagedAdvise(const void *const ptr, uint64_t size,
						   aclrtMemManagedAdviseType advise,
						   aclrtMemManagedLocation location);
ACL_FUNC_VISIBILITY aclError aclrtMemManagedGetAttr(aclrtMemManagedRangeAttribute attribute,
						    const void *ptr, size_t size, void *data,
						    size_t dataSize);
ACL_FUNC_VISIBILITY aclError aclrtMemManagedGetAttrs(aclrtMemManagedRangeAttribute *attributes,
						     size_t numAttributes, const void *ptr,
						     size_t size, void **data, size_t *dataSizes);
ACL_FUNC_VISIBILITY aclError aclrtMemManagedPrefetchAsync(const void *ptr, size_t size,
							  aclrtMemManagedLocation location,
							  uint32_t flags, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtMemManagedPrefetchBatchAsync(const void **ptrs, size_t *sizes,
							       size_t count,
							       aclrtMemManagedLocation *prefetchLocs,
							       size_t *prefetchLocIdxs,
							       size_t numPrefetchLocs,
							       uint64_t flags, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* LIBASCENDCL_ACL_RT_KERNEL_H */
