// SPDX-License-Identifier: MIT
/*
 * Tensor descriptions (acl_base_mdl.h): host records of a tensor's type,
 * format and shape, with the optional extras (ranges, name, const data)
 * that model and operator code attach. Nothing here touches a device.
 */
#include <stdlib.h>
#include <string.h>

#include "acl_internal.h"

#define UNKNOWN_DIM	(-1)
#define UNKNOWN_RANK	(-2)

struct acl_shape {
	int num_dims;
	int64_t *dims;
};

struct aclTensorDesc {
	aclDataType type;
	aclFormat format;
	aclFormat origin_format;
	struct acl_shape shape;
	struct acl_shape origin_shape;
	size_t num_ranges;
	int64_t (*ranges)[ACL_TENSOR_SHAPE_RANGE_NUM];
	size_t num_value_ranges;
	int64_t (*value_ranges)[ACL_TENSOR_VALUE_RANGE_NUM];
	char *name;
	char *dynamic_input;
	void *const_data;
	size_t const_size;
	aclMemType placement;
};

static aclError shape_set(struct acl_shape *s, int num_dims, const int64_t *dims)
{
	int64_t *copy = NULL;

	if (num_dims < 0 || num_dims > ACL_MAX_DIM_CNT)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "numDims %d is outside 0..%d", num_dims,
				ACL_MAX_DIM_CNT);
	if (num_dims && !dims)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "dims is NULL for %d dims", num_dims);
	for (int i = 0; i < num_dims; i++)
		if (dims[i] < UNKNOWN_RANK || (dims[i] == UNKNOWN_RANK && num_dims != 1))
			return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "dim %d is %lld", i,
					(long long)dims[i]);
	if (num_dims) {
		copy = malloc(num_dims * sizeof(*copy));
		if (!copy)
			return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory");
		memcpy(copy, dims, num_dims * sizeof(*copy));
	}
	free(s->dims);
	s->dims = copy;
	s->num_dims = num_dims;
	return ACL_SUCCESS;
}

static bool unknown_rank(const struct acl_shape *s)
{
	return s->num_dims == 1 && s->dims[0] == UNKNOWN_RANK;
}

ACL_EXPORT aclTensorDesc *aclCreateTensorDesc(aclDataType dataType, int numDims,
					      const int64_t *dims, aclFormat format)
{
	aclTensorDesc *d = calloc(1, sizeof(*d));

	if (!d) {
		ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory");
		return NULL;
	}
	if (shape_set(&d->shape, numDims, dims) ||
	    shape_set(&d->origin_shape, numDims, dims)) {
		aclDestroyTensorDesc(d);
		return NULL;
	}
	d->type = dataType;
	d->format = format;
	d->origin_format = format;
	d->placement = ACL_MEMTYPE_DEVICE;
	return d;
}

ACL_EXPORT void aclDestroyTensorDesc(const aclTensorDesc *desc)
{
	aclTensorDesc *d = (aclTensorDesc *)desc;

	if (!d)
		return;
	free(d->shape.dims);
	free(d->origin_shape.dims);
	free(d->ranges);
	free(d->value_ranges);
	free(d->name);
	free(d->dynamic_input);
	free(d->const_data);
	free(d);
}

/* Copies count pairs into *dst (freeing what was there). */
static aclError pairs_set(void *dst, size_t *num, size_t count, const void *pairs)
{
	void **slot = dst;
	void *copy = NULL;

	if (count && !pairs)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "the range array is NULL");
	if (count > ACL_MAX_DIM_CNT)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%zu ranges, at most %d", count,
				ACL_MAX_DIM_CNT);
	if (count) {
		copy = malloc(count * 2 * sizeof(int64_t));
		if (!copy)
			return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory");
		memcpy(copy, pairs, count * 2 * sizeof(int64_t));
	}
	free(*slot);
	*slot = copy;
	*num = count;
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclSetTensorShapeRange(aclTensorDesc *desc, size_t dimsCount,
					   int64_t dimsRange[][ACL_TENSOR_SHAPE_RANGE_NUM])
{
	ACL_CHECK_NULL(desc);
	return pairs_set(&desc->ranges, &desc->num_ranges, dimsCount, dimsRange);
}

ACL_EXPORT aclError aclSetTensorValueRange(aclTensorDesc *desc, size_t valueCount,
					   int64_t valueRange[][ACL_TENSOR_VALUE_RANGE_NUM])
{
	ACL_CHECK_NULL(desc);
	return pairs_set(&desc->value_ranges, &desc->num_value_ranges, valueCount, valueRange);
}

ACL_EXPORT aclDataType aclGetTensorDescType(const aclTensorDesc *desc)
{
	return desc ? desc->type : ACL_DT_UNDEFINED;
}

ACL_EXPORT aclFormat aclGetTensorDescFormat(const aclTensorDesc *desc)
{
	return desc ? desc->format : ACL_FORMAT_UNDEFINED;
}

ACL_EXPORT size_t aclGetTensorDescElementCount(const aclTensorDesc *desc)
{
	size_t n = 1;

	if (!desc)
		return 0;
	for (int i = 0; i < desc->shape.num_dims; i++) {
		int64_t dim = desc->shape.dims[i];

		if (dim < 0 || __builtin_mul_overflow(n, (uint64_t)dim, &n))
			return 0;
	}
	return n;
}

ACL_EXPORT size_t aclGetTensorDescSize(const aclTensorDesc *desc)
{
	size_t bytes;

	if (__builtin_mul_overflow(aclGetTensorDescElementCount(desc),
				   desc ? aclDataTypeSize(desc->type) : 0, &bytes))
		return 0;
	return bytes;
}

ACL_EXPORT size_t aclGetTensorDescNumDims(const aclTensorDesc *desc)
{
	if (!desc)
		return 0;
	return unknown_rank(&desc->shape) ? ACL_UNKNOWN_RANK : (size_t)desc->shape.num_dims;
}

ACL_EXPORT aclError aclGetTensorDescDimV2(const aclTensorDesc *desc, size_t index,
					  int64_t *dimSize)
{
	ACL_CHECK_NULL(desc);
	ACL_CHECK_NULL(dimSize);
	if (unknown_rank(&desc->shape) || index >= (size_t)desc->shape.num_dims)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "dim %zu of a tensor with %d dims", index,
				desc->shape.num_dims);
	*dimSize = desc->shape.dims[index];
	return ACL_SUCCESS;
}

ACL_EXPORT int64_t aclGetTensorDescDim(const aclTensorDesc *desc, size_t index)
{
	int64_t dim;

	return aclGetTensorDescDimV2(desc, index, &dim) ? -1 : dim;
}

/* A static dim's range is the dim itself. */
ACL_EXPORT aclError aclGetTensorDescDimRange(const aclTensorDesc *desc, size_t index,
					     size_t dimRangeNum, int64_t *dimRange)
{
	int64_t dim;
	aclError err;

	ACL_CHECK_NULL(dimRange);
	if (dimRangeNum < ACL_TENSOR_SHAPE_RANGE_NUM)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "dimRangeNum %zu, the range has %d ends",
				dimRangeNum, ACL_TENSOR_SHAPE_RANGE_NUM);
	err = aclGetTensorDescDimV2(desc, index, &dim);
	if (err)
		return err;
	if (index < desc->num_ranges) {
		dimRange[0] = desc->ranges[index][0];
		dimRange[1] = desc->ranges[index][1];
	} else {
		dimRange[0] = dim;
		dimRange[1] = dim;
	}
	return ACL_SUCCESS;
}

static aclError string_set(char **dst, const char *s)
{
	char *copy = s ? strdup(s) : NULL;

	if (s && !copy)
		return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory");
	free(*dst);
	*dst = copy;
	return ACL_SUCCESS;
}

ACL_EXPORT void aclSetTensorDescName(aclTensorDesc *desc, const char *name)
{
	if (desc)
		string_set(&desc->name, name);
}

ACL_EXPORT const char *aclGetTensorDescName(aclTensorDesc *desc)
{
	return desc && desc->name ? desc->name : "";
}

ACL_EXPORT aclError aclSetTensorFormat(aclTensorDesc *desc, aclFormat format)
{
	ACL_CHECK_NULL(desc);
	desc->format = format;
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclSetTensorShape(aclTensorDesc *desc, int numDims, const int64_t *dims)
{
	ACL_CHECK_NULL(desc);
	return shape_set(&desc->shape, numDims, dims);
}

ACL_EXPORT aclError aclSetTensorStorageFormat(aclTensorDesc *desc, aclFormat format)
{
	return aclSetTensorFormat(desc, format);
}

ACL_EXPORT aclError aclSetTensorStorageShape(aclTensorDesc *desc, int numDims,
					     const int64_t *dims)
{
	return aclSetTensorShape(desc, numDims, dims);
}

ACL_EXPORT aclError aclSetTensorOriginFormat(aclTensorDesc *desc, aclFormat format)
{
	ACL_CHECK_NULL(desc);
	desc->origin_format = format;
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclSetTensorOriginShape(aclTensorDesc *desc, int numDims,
					    const int64_t *dims)
{
	ACL_CHECK_NULL(desc);
	return shape_set(&desc->origin_shape, numDims, dims);
}

ACL_EXPORT void *aclGetTensorDescAddress(const aclTensorDesc *desc)
{
	return desc ? desc->const_data : NULL;
}

ACL_EXPORT aclError aclSetTensorDynamicInput(aclTensorDesc *desc, const char *dynamicInputName)
{
	ACL_CHECK_NULL(desc);
	ACL_CHECK_NULL(dynamicInputName);
	return string_set(&desc->dynamic_input, dynamicInputName);
}

ACL_EXPORT aclError aclSetTensorConst(aclTensorDesc *desc, void *dataBuffer, size_t length)
{
	void *copy;

	ACL_CHECK_NULL(desc);
	ACL_CHECK_NULL(dataBuffer);
	if (!length)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "length is 0");
	copy = malloc(length);
	if (!copy)
		return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory for %zu bytes", length);
	memcpy(copy, dataBuffer, length);
	free(desc->const_data);
	desc->const_data = copy;
	desc->const_size = length;
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclSetTensorPlaceMent(aclTensorDesc *desc, aclMemType memType)
{
	ACL_CHECK_NULL(desc);
	if (memType < ACL_MEMTYPE_DEVICE || memType > ACL_MEMTYPE_HOST_COMPILE_INDEPENDENT)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown memory type %d", (int)memType);
	desc->placement = memType;
	return ACL_SUCCESS;
}
