// SPDX-License-Identifier: MIT
/*
 * aclTensor: a view (dims, strides in elements, an offset in elements)
 * of storage (its dims) at a device address.  Everything is checked when
 * the tensor is made, so operators and the launch trust it.
 */
#include <stdlib.h>
#include <string.h>

#include "nnopbase.h"

static bool format_ok(aclFormat f)
{
	switch (f) {
	case ACL_FORMAT_ND:
	case ACL_FORMAT_NCHW:
	case ACL_FORMAT_NHWC:
	case ACL_FORMAT_NCL:
	case ACL_FORMAT_NC:
	case ACL_FORMAT_NCDHW:
		return true;
	default:
		return false;
	}
}

/* The product of n dims into *out; false if one is negative or it overflows. */
static bool count_elems(const int64_t *dims, uint64_t n, int64_t *out)
{
	int64_t p = 1;

	for (uint64_t i = 0; i < n; i++)
		if (dims[i] < 0 || __builtin_mul_overflow(p, dims[i], &p))
			return false;
	*out = p;
	return true;
}

static aclnnStatus check_dims(const char *what, const int64_t *dims, uint64_t n)
{
	if (n > NNOP_MAX_DIMS)
		return NNOP_FAIL(ACLNN_ERR_PARAM_INVALID, "%s has %llu dims, at most %d are supported",
				 what, (unsigned long long)n, NNOP_MAX_DIMS);
	if (n && !dims)
		return NNOP_FAIL(ACLNN_ERR_PARAM_NULLPTR, "%s is NULL with %llu dims", what,
				 (unsigned long long)n);
	for (uint64_t i = 0; i < n; i++)
		if (dims[i] < 0)
			return NNOP_FAIL(ACLNN_ERR_PARAM_INVALID, "%s[%llu] is %lld: dims are not "
					 "negative", what, (unsigned long long)i, (long long)dims[i]);
	return ACLNN_SUCCESS;
}

static void contiguous_strides(const int64_t *dims, unsigned int n, int64_t *strides)
{
	int64_t s = 1;

	for (unsigned int i = n; i-- > 0;) {
		strides[i] = s;
		s *= dims[i] > 1 ? dims[i] : 1;
	}
}

/*
 * The view, from its first element, fits in the storage's elements.  The
 * offset is left out: ggml's CANN backend sizes the storage from the view's
 * first element and puts the view far into its buffer by the offset, which
 * the vendor's runtime accepts; the launch checks every address against the
 * device allocation anyway.
 */
static aclnnStatus check_extent(const aclTensor *t)
{
	const struct nnop_tensor_info *i = &t->info;
	int64_t storage, last = 0, step;

	if (!i->nelems)
		return ACLNN_SUCCESS;
	if (!count_elems(t->storage_dims, t->storage_ndims, &storage))
		return NNOP_FAIL(ACLNN_ERR_PARAM_INVALID, "the storage shape overflows");
	for (unsigned int d = 0; d < i->ndims; d++)
		if (__builtin_mul_overflow(i->dims[d] - 1, i->strides[d], &step) ||
		    __builtin_add_overflow(last, step, &last))
			return NNOP_FAIL(ACLNN_ERR_PARAM_INVALID, "the view's extent overflows");
	if (last >= storage)
		return NNOP_FAIL(ACLNN_ERR_PARAM_INVALID, "the view spans %lld elements, outside "
				 "the storage's %lld elements", (long long)last + 1,
				 (long long)storage);
	return ACLNN_SUCCESS;
}

static aclnnStatus check_kind(aclDataType dtype, aclFormat format, const int64_t *strides,
			      uint64_t ndims, int64_t offset)
{
	if (!nnop_dtype_size(dtype))
		return NNOP_FAIL(ACLNN_ERR_PARAM_INVALID, "data type %d (%s) is not one a tensor "
				 "can have", dtype, nnop_dtype_name(dtype));
	if (!format_ok(format))
		return NNOP_FAIL(ACLNN_ERR_PARAM_INVALID, "format %d is not supported: a tensor is "
				 "ND, NCHW, NHWC, NCL, NC or NCDHW", format);
	if (offset < 0)
		return NNOP_FAIL(ACLNN_ERR_PARAM_INVALID, "the offset %lld is negative",
				 (long long)offset);
	for (uint64_t i = 0; strides && i < ndims && i < NNOP_MAX_DIMS; i++)
		if (strides[i] < 0)
			return NNOP_FAIL(ACLNN_ERR_PARAM_INVALID, "stride[%llu] is %lld: strides are "
					 "not negative", (unsigned long long)i, (long long)strides[i]);
	return ACLNN_SUCCESS;
}

aclnnStatus nnop_tensor_fill(aclTensor *t, const int64_t *dims, uint64_t ndims, aclDataType dtype,
			     const int64_t *strides, int64_t offset, aclFormat format,
			     const int64_t *storage_dims, uint64_t storage_ndims, void *data)
{
	struct nnop_tensor_info *i = &t->info;
	aclnnStatus err;

	err = check_dims("viewDims", dims, ndims);
	if (!err)
		err = check_dims("storageDims", storage_dims, storage_ndims);
	if (!err)
		err = check_kind(dtype, format, strides, ndims, offset);
	if (err)
		return err;
	memset(t, 0, sizeof(*t));
	i->acl_dtype = dtype;
	i->card_dtype = nnop_card_dtype(dtype);
	i->format = format;
	i->ndims = ndims;
	i->offset = offset;
	i->data = data;
	if (ndims)
		memcpy(i->dims, dims, ndims * sizeof(*dims));
	if (!count_elems(i->dims, ndims, &i->nelems))
		return NNOP_FAIL(ACLNN_ERR_PARAM_INVALID, "the view's element count overflows");
	if (strides)
		memcpy(i->strides, strides, ndims * sizeof(*strides));
	else
		contiguous_strides(i->dims, i->ndims, i->strides);
	t->storage_ndims = storage_ndims;
	if (storage_ndims)
		memcpy(t->storage_dims, storage_dims, storage_ndims * sizeof(*storage_dims));
	return check_extent(t);
}

NNOP_EXPORT aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum,
				       aclDataType dataType, const int64_t *stride, int64_t offset,
				       aclFormat format, const int64_t *storageDims,
				       uint64_t storageDimsNum, void *tensorData)
{
	aclTensor *t = calloc(1, sizeof(*t));

	if (!t) {
		NNOP_FAIL(ACLNN_ERR_INNER_NULLPTR, "out of memory");
		return NULL;
	}
	if (nnop_tensor_fill(t, viewDims, viewDimsNum, dataType, stride, offset, format,
			     storageDims, storageDimsNum, tensorData)) {
		free(t);
		return NULL;
	}
	return t;
}

NNOP_EXPORT aclnnStatus aclInitTensor(aclTensor *tensor, const int64_t *viewDims,
				      uint64_t viewDimsNum, aclDataType dataType,
				      const int64_t *stride, int64_t offset, aclFormat format,
				      const int64_t *storageDims, uint64_t storageDimsNum,
				      void *tensorDataAddr)
{
	aclTensor t;
	aclnnStatus err;

	NNOP_CHECK_NOTNULL(tensor);
	err = nnop_tensor_fill(&t, viewDims, viewDimsNum, dataType, stride, offset, format,
			       storageDims, storageDimsNum, tensorDataAddr);
	if (!err)
		*tensor = t;
	return err;
}

NNOP_EXPORT aclnnStatus aclDestroyTensor(const aclTensor *tensor)
{
	free((void *)tensor);
	return ACLNN_SUCCESS;
}

/* A copy the caller frees with free() (or delete[], as the vendor's callers do). */
static aclnnStatus copy_out(const int64_t *src, uint64_t n, int64_t **out, uint64_t *num)
{
	*out = malloc((n ? n : 1) * sizeof(*src));
	if (!*out)
		return NNOP_FAIL(ACLNN_ERR_INNER_NULLPTR, "out of memory");
	if (n)
		memcpy(*out, src, n * sizeof(*src));
	*num = n;
	return ACLNN_SUCCESS;
}

NNOP_EXPORT aclnnStatus aclGetViewShape(const aclTensor *tensor, int64_t **viewDims,
					uint64_t *viewDimsNum)
{
	NNOP_CHECK_NOTNULL(tensor);
	NNOP_CHECK_NOTNULL(viewDims);
	NNOP_CHECK_NOTNULL(viewDimsNum);
	return copy_out(tensor->info.dims, tensor->info.ndims, viewDims, viewDimsNum);
}

NNOP_EXPORT aclnnStatus aclGetStorageShape(const aclTensor *tensor, int64_t **storageDims,
					   uint64_t *storageDimsNum)
{
	NNOP_CHECK_NOTNULL(tensor);
	NNOP_CHECK_NOTNULL(storageDims);
	NNOP_CHECK_NOTNULL(storageDimsNum);
	return copy_out(tensor->storage_dims, tensor->storage_ndims, storageDims, storageDimsNum);
}

NNOP_EXPORT aclnnStatus aclGetViewStrides(const aclTensor *tensor, int64_t **stridesValue,
					  uint64_t *stridesNum)
{
	NNOP_CHECK_NOTNULL(tensor);
	NNOP_CHECK_NOTNULL(stridesValue);
	NNOP_CHECK_NOTNULL(stridesNum);
	return copy_out(tensor->info.strides, tensor->info.ndims, stridesValue, stridesNum);
}

NNOP_EXPORT aclnnStatus aclGetViewOffset(const aclTensor *tensor, int64_t *offset)
{
	NNOP_CHECK_NOTNULL(tensor);
	NNOP_CHECK_NOTNULL(offset);
	*offset = tensor->info.offset;
	return ACLNN_SUCCESS;
}

NNOP_EXPORT aclnnStatus aclGetFormat(const aclTensor *tensor, aclFormat *format)
{
	NNOP_CHECK_NOTNULL(tensor);
	NNOP_CHECK_NOTNULL(format);
	*format = tensor->info.format;
	return ACLNN_SUCCESS;
}

NNOP_EXPORT aclnnStatus aclGetDataType(const aclTensor *tensor, aclDataType *dataType)
{
	NNOP_CHECK_NOTNULL(tensor);
	NNOP_CHECK_NOTNULL(dataType);
	*dataType = (aclDataType)tensor->info.acl_dtype;
	return ACLNN_SUCCESS;
}

NNOP_EXPORT aclnnStatus aclSetRawTensorAddr(aclTensor *tensor, void *addr)
{
	NNOP_CHECK_NOTNULL(tensor);
	tensor->info.data = addr;
	return ACLNN_SUCCESS;
}

NNOP_EXPORT aclnnStatus aclGetRawTensorAddr(const aclTensor *tensor, void **addr)
{
	NNOP_CHECK_NOTNULL(tensor);
	NNOP_CHECK_NOTNULL(addr);
	*addr = tensor->info.data;
	return ACLNN_SUCCESS;
}

NNOP_EXPORT void nnop_tensor_info(const aclTensor *t, struct nnop_tensor_info *info)
{
	*info = t->info;
}

NNOP_EXPORT bool nnop_tensor_contiguous(const aclTensor *t)
{
	int64_t want[NNOP_MAX_DIMS];

	contiguous_strides(t->info.dims, t->info.ndims, want);
	for (unsigned int d = 0; d < t->info.ndims; d++)
		if (t->info.dims[d] > 1 && t->info.strides[d] != want[d])
			return false;
	return true;
}
