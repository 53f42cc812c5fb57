// SPDX-License-Identifier: MIT
/*
 * aclrtMemcpyBatch(Async): many copies in one call, all host to device or
 * all device to host, each described by the attributes that apply to its
 * index. Every copy's attributes and direction are checked against its
 * pointers before any is queued, so a batch refused for them copies
 * nothing and names the copy in *failIndex; then the copies go to the
 * stream in order, each as aclrtMemcpy(Async) would queue it.
 */
#include <stdint.h>

#include "acl_internal.h"

static bool loc_is(const aclrtMemLocation *want, const void *p)
{
	aclrtPtrAttributes a;

	if (aclrtPointerGetAttributes(p, &a))
		return false;
	if (want->type == ACL_MEM_LOCATION_TYPE_HOST)
		return a.location.type == ACL_MEM_LOCATION_TYPE_HOST ||
		       a.location.type == ACL_MEM_LOCATION_TYPE_UNREGISTERED;
	return want->type == ACL_MEM_LOCATION_TYPE_DEVICE &&
	       a.location.type == ACL_MEM_LOCATION_TYPE_DEVICE && a.location.id == want->id;
}

static aclrtMemcpyKind attr_kind(const aclrtMemcpyBatchAttr *a)
{
	if (a->srcLoc.type == ACL_MEM_LOCATION_TYPE_HOST &&
	    a->dstLoc.type == ACL_MEM_LOCATION_TYPE_DEVICE)
		return ACL_MEMCPY_HOST_TO_DEVICE;
	if (a->srcLoc.type == ACL_MEM_LOCATION_TYPE_DEVICE &&
	    a->dstLoc.type == ACL_MEM_LOCATION_TYPE_HOST)
		return ACL_MEMCPY_DEVICE_TO_HOST;
	return ACL_MEMCPY_DEFAULT;
}

static aclError check_indexes(const char *fn, size_t numBatches, const size_t *attrsIndexes,
			      size_t numAttrs)
{
	size_t k;

	if (!numBatches)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "numBatches is 0");
	if (!numAttrs || numAttrs > numBatches)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM,
				"numAttrs %zu must be from 1 to numBatches %zu", numAttrs, numBatches);
	if (attrsIndexes[0])
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "attrsIndexes[0] is %zu, not 0",
				attrsIndexes[0]);
	for (k = 1; k < numAttrs; k++)
		if (attrsIndexes[k] <= attrsIndexes[k - 1] || attrsIndexes[k] >= numBatches)
			return acl_fail(fn, ACL_ERROR_INVALID_PARAM,
					"attrsIndexes[%zu] = %zu does not grow within numBatches %zu",
					k, attrsIndexes[k], numBatches);
	return ACL_SUCCESS;
}

/* Each copy's attributes against its pointers; the one direction of all. */
static aclError check_copies(const char *fn, void **dsts, void **srcs, size_t numBatches,
			     const aclrtMemcpyBatchAttr *attrs, const size_t *attrsIndexes,
			     size_t numAttrs, size_t *failIndex, aclrtMemcpyKind *kind)
{
	const aclrtMemcpyBatchAttr *a;
	size_t i, k = 0;

	*kind = attr_kind(&attrs[0]);
	for (i = 0; i < numBatches; i++) {
		if (k + 1 < numAttrs && i == attrsIndexes[k + 1])
			k++;
		a = &attrs[k];
		*failIndex = i;
		if (attr_kind(a) == ACL_MEMCPY_DEFAULT)
			return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "copy %zu: attrs[%zu] is neither "
					"host to device nor device to host", i, k);
		if (attr_kind(a) != *kind)
			return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "copy %zu: attrs[%zu] goes the "
					"other way than attrs[0]; a batch has one direction", i, k);
		if (!dsts[i] || !srcs[i])
			return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "copy %zu: a pointer is NULL", i);
		if (!loc_is(&a->dstLoc, dsts[i]) || !loc_is(&a->srcLoc, srcs[i]))
			return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "copy %zu: dst %p or src %p is "
					"not where attrs[%zu] says", i, dsts[i], srcs[i], k);
	}
	*failIndex = SIZE_MAX;
	return ACL_SUCCESS;
}

static aclError batch(const char *fn, void **dsts, size_t *destMaxs, void **srcs, size_t *sizes,
		      size_t numBatches, aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes,
		      size_t numAttrs, size_t *failIndex, aclrtStream stream, bool sync)
{
	aclrtMemcpyKind kind;
	aclError err;
	size_t i;

	if (!failIndex)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "failIndex is NULL");
	*failIndex = SIZE_MAX;
	if (!dsts || !destMaxs || !srcs || !sizes || !attrs || !attrsIndexes)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM,
				"dsts, destMaxs, srcs, sizes, attrs and attrsIndexes may not be NULL");
	err = check_indexes(fn, numBatches, attrsIndexes, numAttrs);
	if (!err)
		err = check_copies(fn, dsts, srcs, numBatches, attrs, attrsIndexes, numAttrs,
				   failIndex, &kind);
	for (i = 0; !err && i < numBatches; i++)
		err = acl_copy_1d(fn, dsts[i], destMaxs[i], srcs[i], sizes[i], kind, stream, sync);
	return err;
}

ACL_EXPORT aclError aclrtMemcpyBatch(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes,
				     size_t numBatches, aclrtMemcpyBatchAttr *attrs,
				     size_t *attrsIndexes, size_t numAttrs, size_t *failIndex)
{
	return batch(__func__, dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes,
		     numAttrs, failIndex, NULL, true);
}

ACL_EXPORT aclError aclrtMemcpyBatchAsync(void **dsts, size_t *destMaxs, void **srcs,
					  size_t *sizes, size_t numBatches,
					  aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes,
					  size_t numAttrs, size_t *failIndex, aclrtStream stream)
{
	return batch(__func__, dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes,
		     numAttrs, failIndex, stream, false);
}
