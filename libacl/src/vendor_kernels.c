// SPDX-License-Identifier: MIT
/*
 * acl/acl_rt_kernel.h: vendor-compiled kernels and managed memory, which
 * this card cannot honour (the header says why). Each call fails with
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT and says so in aclGetRecentErrMsg, so
 * that a program written for the vendor's cards stops at its first such
 * call with a reason instead of at link time.
 */
#include "acl_internal.h"

static aclError no_kernels(const char *fn)
{
	return acl_fail(fn, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
			"vendor-compiled kernels are not supported: this card runs aclnn operators "
			"and models compiled by atc, not Ascend C kernel binaries");
}

static aclError no_managed(const char *fn)
{
	return acl_fail(fn, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
			"managed memory is not supported: the card cannot reach host and device "
			"memory at one address; use aclrtMalloc and aclrtMallocHost, or "
			"aclrtHostRegister");
}

/* Each parameter is named in the vendor's declaration; none is looked at. */
#define NO_KERNELS(name, ...)						\
	ACL_EXPORT aclError name(__VA_ARGS__)				\
	{								\
		return no_kernels(__func__);				\
	}
#define NO_MANAGED(name, ...)						\
	ACL_EXPORT aclError name(__VA_ARGS__)				\
	{								\
		return no_managed(__func__);				\
	}

/* Every limit the vendor names sizes a kernel's stack or printf buffer. */
static aclError no_kernel_limits(const char *fn, aclrtDeviceLimit limit)
{
	if ((unsigned)limit > ACL_RT_DEV_LIMIT_SIMT_PRINTF_FIFO_SIZE)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "unknown device limit %d", (int)limit);
	return acl_fail(fn, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
			"device limit %d is not supported: it sizes the stacks or printf buffers "
			"of vendor-compiled kernels, which this card does not run", (int)limit);
}

ACL_EXPORT aclError aclrtDeviceSetLimit(aclrtDeviceLimit limit, size_t value)
{
	(void)value;
	return no_kernel_limits(__func__, limit);
}

ACL_EXPORT aclError aclrtDeviceGetLimit(aclrtDeviceLimit limit, size_t *value)
{
	ACL_CHECK_NULL(value);
	return no_kernel_limits(__func__, limit);
}

ACL_EXPORT aclrtBinary aclrtCreateBinary(const void *data, size_t dataLen)
{
	(void)data;
	(void)dataLen;
	no_kernels(__func__);
	return NULL;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
NO_KERNELS(aclrtDestroyBinary, aclrtBinary binary)
NO_KERNELS(aclrtBinaryLoad, const aclrtBinary binary, aclrtBinHandle *binHandle)
NO_KERNELS(aclrtBinaryLoadFromFile, const char *binPath, aclrtBinaryLoadOptions *options,
	   aclrtBinHandle *binHandle)
NO_KERNELS(aclrtBinaryLoadFromData, const void *data, size_t length,
	   const aclrtBinaryLoadOptions *options, aclrtBinHandle *binHandle)
NO_KERNELS(aclrtBinaryUnLoad, aclrtBinHandle binHandle)
NO_KERNELS(aclrtBinaryGetDevAddress, const aclrtBinHandle binHandle, void **binAddr,
	   size_t *binSize)
NO_KERNELS(aclrtBinaryGetGlobal, aclrtBinHandle binHandle, const char *name, void **dptr,
	   size_t *size)
NO_KERNELS(aclrtBinarySetExceptionCallback, aclrtBinHandle binHandle,
	   aclrtOpExceptionCallback callback, void *userData)
NO_KERNELS(aclrtBinaryGetFunction, const aclrtBinHandle binHandle, const char *kernelName,
	   aclrtFuncHandle *funcHandle)
NO_KERNELS(aclrtBinaryGetFunctionByEntry, aclrtBinHandle binHandle, uint64_t funcEntry,
	   aclrtFuncHandle *funcHandle)
NO_KERNELS(aclrtRegisterCpuFunc, const aclrtBinHandle handle, const char *funcName,
	   const char *kernelName, aclrtFuncHandle *funcHandle)
NO_KERNELS(aclrtGetFuncBySymbol, const void *symbol, aclrtFuncHandle *funcHandle)
NO_KERNELS(aclrtGetFunctionAddr, aclrtFuncHandle funcHandle, void **aicAddr, void **aivAddr)
NO_KERNELS(aclrtGetFunctionSize, aclrtFuncHandle funcHandle, size_t *aicSize, size_t *aivSize)
NO_KERNELS(aclrtGetFunctionName, aclrtFuncHandle funcHandle, uint32_t maxLen, char *name)
NO_KERNELS(aclrtGetFunctionAttribute, aclrtFuncHandle funcHandle, aclrtFuncAttribute attrType,
	   int64_t *attrValue)
NO_KERNELS(aclrtFunctionGetBinary, const aclrtFuncHandle funcHandle, aclrtBinHandle *binHandle)
NO_KERNELS(aclrtFunctionGetParamCount, const void *func, size_t *paramCount)
NO_KERNELS(aclrtFunctionGetParamInfo, const void *func, size_t paramIndex, size_t *paramOffset,
	   size_t *paramSize)
NO_KERNELS(aclrtFunctionGetAvailDynUbufPerBlock, void *func, uint32_t flags,
	   size_t *dynamicUbufSize)
NO_KERNELS(aclrtKernelArgsGetHandleMemSize, aclrtFuncHandle funcHandle, size_t *memSize)
NO_KERNELS(aclrtKernelArgsGetMemSize, aclrtFuncHandle funcHandle, size_t userArgsSize,
	   size_t *actualArgsSize)
NO_KERNELS(aclrtKernelArgsInit, aclrtFuncHandle funcHandle, aclrtArgsHandle *argsHandle)
NO_KERNELS(aclrtKernelArgsInitByUserMem, aclrtFuncHandle funcHandle, aclrtArgsHandle argsHandle,
	   void *userHostMem, size_t actualArgsSize)
NO_KERNELS(aclrtKernelArgsAppend, aclrtArgsHandle argsHandle, void *param, size_t paramSize,
	   aclrtParamHandle *paramHandle)
NO_KERNELS(aclrtKernelArgsAppendPlaceHolder, aclrtArgsHandle argsHandle,
	   aclrtParamHandle *paramHandle)
NO_KERNELS(aclrtKernelArgsGetPlaceHolderBuffer, aclrtArgsHandle argsHandle,
	   aclrtParamHandle paramHandle, size_t dataSize, void **bufferAddr)
NO_KERNELS(aclrtKernelArgsParaUpdate, aclrtArgsHandle argsHandle, aclrtParamHandle paramHandle,
	   void *param, size_t paramSize)
NO_KERNELS(aclrtKernelArgsFinalize, aclrtArgsHandle argsHandle)
NO_KERNELS(aclrtLaunchKernel, aclrtFuncHandle funcHandle, uint32_t numBlocks,
	   const void *argsData, size_t argsSize, aclrtStream stream)
NO_KERNELS(aclrtLaunchKernelV2, aclrtFuncHandle funcHandle, uint32_t numBlocks,
	   const void *argsData, size_t argsSize, aclrtLaunchKernelCfg *cfg, aclrtStream stream)
NO_KERNELS(aclrtLaunchKernelWithConfig, aclrtFuncHandle funcHandle, uint32_t numBlocks,
	   aclrtStream stream, aclrtLaunchKernelCfg *cfg, aclrtArgsHandle argsHandle,
	   void *reserve)
NO_KERNELS(aclrtLaunchKernelWithHostArgs, aclrtFuncHandle funcHandle, uint32_t numBlocks,
	   aclrtStream stream, aclrtLaunchKernelCfg *cfg, void *hostArgs, size_t argsSize,
	   aclrtPlaceHolderInfo *placeHolderArray, size_t placeHolderNum)
NO_KERNELS(aclrtLaunchKernelWithArgsArray, void *func, uint32_t numBlocks, aclrtStream stream,
	   aclrtLaunchKernelCfg *cfg, void **args)
NO_KERNELS(aclrtLaunchSIMTKernelWithArgsArray, void *func, dim3 gridDim, dim3 blockDim,
	   size_t dynUbufSize, aclrtStream stream, aclrtLaunchKernelCfg *cfg, void **args)
NO_KERNELS(aclrtLaunchSIMTKernelWithHostArgs, void *func, dim3 gridDim, dim3 blockDim,
	   size_t dynUbufSize, aclrtStream stream, aclrtLaunchKernelCfg *cfg, void *hostArgs,
	   size_t argsSize, aclrtPlaceHolderInfo *placeHolderArray, size_t placeHolderNum)
NO_KERNELS(aclrtGetSymbolAddress, const void *symbol, void **devPtr)
NO_KERNELS(aclrtGetSymbolSize, const void *symbol, size_t *size)
NO_KERNELS(aclrtMemcpyToSymbol, const void *symbol, const void *src, size_t count, size_t offset,
	   aclrtMemcpyKind kind)
NO_KERNELS(aclrtMemcpyToSymbolAsync, const void *symbol, const void *src, size_t count,
	   size_t offset, aclrtMemcpyKind kind, aclrtStream stream)
NO_KERNELS(aclrtMemcpyFromSymbol, void *dst, size_t dstMax, const void *symbol, size_t count,
	   size_t offset, aclrtMemcpyKind kind)
NO_KERNELS(aclrtMemcpyFromSymbolAsync, void *dst, size_t dstMax, const void *symbol,
	   size_t count, size_t offset, aclrtMemcpyKind kind, aclrtStream stream)

NO_MANAGED(aclrtMemAllocManaged, void **ptr, uint64_t size, uint32_t flag)
NO_MANAGED(aclrtMemManagedAdvise, const void *const ptr, uint64_t size,
	   aclrtMemManagedAdviseType advise, aclrtMemManagedLocation location)
NO_MANAGED(aclrtMemManagedGetAttr, aclrtMemManagedRangeAttribute attribute, const void *ptr,
	   size_t size, void *data, size_t dataSize)
NO_MANAGED(aclrtMemManagedGetAttrs, aclrtMemManagedRangeAttribute *attributes,
	   size_t numAttributes, const void *ptr, size_t size, void **data, size_t *dataSizes)
NO_MANAGED(aclrtMemManagedPrefetchAsync, const void *ptr, size_t size,
	   aclrtMemManagedLocation location, uint32_t flags, aclrtStream stream)
NO_MANAGED(aclrtMemManagedPrefetchBatchAsync, const void **ptrs, size_t *sizes, size_t count,
	   aclrtMemManagedLocation *prefetchLocs, size_t *prefetchLocIdxs, size_t numPrefetchLocs,
	   uint64_t flags, aclrtStream stream)
#pragma GCC diagnostic pop
