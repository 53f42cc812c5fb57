// SPDX-License-Identifier: MIT
/*
 * Scalars, arrays and lists: each copies what it is given when it is made,
 * so the caller's memory may go at once (a list keeps its elements, which
 * it owns from then on).
 */
#include <stdlib.h>
#include <string.h>

#include "nnopbase.h"

NNOP_EXPORT aclScalar *aclCreateScalar(void *value, aclDataType dataType)
{
	size_t size = nnop_dtype_size(dataType);
	aclScalar *s;

	if (!value) {
		NNOP_FAIL(ACLNN_ERR_PARAM_NULLPTR, "value is NULL");
		return NULL;
	}
	if (!size || size > NNOP_SCALAR_BYTES) {
		NNOP_FAIL(ACLNN_ERR_PARAM_INVALID, "data type %d (%s) is not one a scalar can have",
			  dataType, nnop_dtype_name(dataType));
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		NNOP_FAIL(ACLNN_ERR_INNER_NULLPTR, "out of memory");
		return NULL;
	}
	s->acl_dtype = dataType;
	memcpy(s->value, value, size);
	return s;
}

NNOP_EXPORT aclnnStatus aclDestroyScalar(const aclScalar *scalar)
{
	free((void *)scalar);
	return ACLNN_SUCCESS;
}

NNOP_EXPORT int nnop_scalar_acl_dtype(const aclScalar *s)
{
	return s->acl_dtype;
}

#define SCALAR_AS(s, type) ({ type v_; memcpy(&v_, (s)->value, sizeof(v_)); v_; })

static float bf16_to_float(uint16_t b)
{
	uint32_t bits = (uint32_t)b << 16;
	float f;

	memcpy(&f, &bits, sizeof(f));
	return f;
}

NNOP_EXPORT double nnop_scalar_f64(const aclScalar *s)
{
	switch (s->acl_dtype) {
	case ACL_FLOAT:
		return SCALAR_AS(s, float);
	case ACL_DOUBLE:
		return SCALAR_AS(s, double);
	case ACL_FLOAT16:
		return aclFloat16ToFloat(SCALAR_AS(s, aclFloat16));
	case ACL_BF16:
		return bf16_to_float(SCALAR_AS(s, uint16_t));
	case ACL_UINT64:
		return (double)SCALAR_AS(s, uint64_t);
	default:
		return (double)nnop_scalar_s64(s);
	}
}

NNOP_EXPORT int64_t nnop_scalar_s64(const aclScalar *s)
{
	switch (s->acl_dtype) {
	case ACL_BOOL:
		return SCALAR_AS(s, uint8_t) != 0;
	case ACL_INT8:
		return SCALAR_AS(s, int8_t);
	case ACL_UINT8:
		return SCALAR_AS(s, uint8_t);
	case ACL_INT16:
		return SCALAR_AS(s, int16_t);
	case ACL_UINT16:
		return SCALAR_AS(s, uint16_t);
	case ACL_INT32:
		return SCALAR_AS(s, int32_t);
	case ACL_UINT32:
		return SCALAR_AS(s, uint32_t);
	case ACL_INT64:
	case ACL_UINT64:
		return SCALAR_AS(s, int64_t);
	default:
		return (int64_t)nnop_scalar_f64(s);
	}
}

/* An array object of n elements of size bytes after a header of head bytes, values copied. */
static void *new_array(size_t head, size_t size, const void *values, uint64_t n)
{
	uint64_t *a;

	if (n && !values) {
		NNOP_FAIL(ACLNN_ERR_PARAM_NULLPTR, "value is NULL with size %llu",
			  (unsigned long long)n);
		return NULL;
	}
	if (n > (SIZE_MAX - head) / size) {
		NNOP_FAIL(ACLNN_ERR_PARAM_INVALID, "size %llu is too large", (unsigned long long)n);
		return NULL;
	}
	a = malloc(head + n * size);
	if (!a) {
		NNOP_FAIL(ACLNN_ERR_INNER_NULLPTR, "out of memory for %llu elements",
			  (unsigned long long)n);
		return NULL;
	}
	*a = n;
	if (n)
		memcpy((char *)a + head, values, n * size);
	return a;
}

NNOP_EXPORT aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size)
{
	return new_array(sizeof(aclIntArray), sizeof(*value), value, size);
}

NNOP_EXPORT aclFloatArray *aclCreateFloatArray(const float *value, uint64_t size)
{
	return new_array(sizeof(aclFloatArray), sizeof(*value), value, size);
}

NNOP_EXPORT aclBoolArray *aclCreateBoolArray(const bool *value, uint64_t size)
{
	return new_array(sizeof(aclBoolArray), sizeof(*value), value, size);
}

/* A list's elements may not be NULL: an operator could not tell which is missing. */
static void *new_list(size_t head, const void *const *values, uint64_t n)
{
	for (uint64_t i = 0; i < n && values; i++)
		if (!values[i]) {
			NNOP_FAIL(ACLNN_ERR_PARAM_NULLPTR, "element %llu is NULL",
				  (unsigned long long)i);
			return NULL;
		}
	return new_array(head, sizeof(void *), values, n);
}

NNOP_EXPORT aclTensorList *aclCreateTensorList(const aclTensor *const *value, uint64_t size)
{
	return new_list(sizeof(aclTensorList), (const void *const *)value, size);
}

NNOP_EXPORT aclScalarList *aclCreateScalarList(const aclScalar *const *value, uint64_t size)
{
	return new_list(sizeof(aclScalarList), (const void *const *)value, size);
}

NNOP_EXPORT aclnnStatus aclDestroyIntArray(const aclIntArray *array)
{
	free((void *)array);
	return ACLNN_SUCCESS;
}

NNOP_EXPORT aclnnStatus aclDestroyFloatArray(const aclFloatArray *array)
{
	free((void *)array);
	return ACLNN_SUCCESS;
}

NNOP_EXPORT aclnnStatus aclDestroyBoolArray(const aclBoolArray *array)
{
	free((void *)array);
	return ACLNN_SUCCESS;
}

NNOP_EXPORT aclnnStatus aclDestroyTensorList(const aclTensorList *array)
{
	for (uint64_t i = 0; array && i < array->size; i++)
		aclDestroyTensor(array->tensors[i]);
	free((void *)array);
	return ACLNN_SUCCESS;
}

NNOP_EXPORT aclnnStatus aclDestroyScalarList(const aclScalarList *array)
{
	for (uint64_t i = 0; array && i < array->size; i++)
		aclDestroyScalar(array->scalars[i]);
	free((void *)array);
	return ACLNN_SUCCESS;
}

#define SIZE_GETTER(fn, type, arg)						\
	NNOP_EXPORT aclnnStatus fn(const type *arg, uint64_t *size)		\
	{									\
		NNOP_CHECK_NOTNULL(arg);					\
		NNOP_CHECK_NOTNULL(size);					\
		*size = arg->size;						\
		return ACLNN_SUCCESS;						\
	}

SIZE_GETTER(aclGetIntArraySize, aclIntArray, array)
SIZE_GETTER(aclGetFloatArraySize, aclFloatArray, array)
SIZE_GETTER(aclGetBoolArraySize, aclBoolArray, array)
SIZE_GETTER(aclGetTensorListSize, aclTensorList, tensorList)
SIZE_GETTER(aclGetScalarListSize, aclScalarList, scalarList)

NNOP_EXPORT uint64_t nnop_int_array_size(const aclIntArray *a)
{
	return a->size;
}

NNOP_EXPORT const int64_t *nnop_int_array_data(const aclIntArray *a)
{
	return a->values;
}

NNOP_EXPORT uint64_t nnop_float_array_size(const aclFloatArray *a)
{
	return a->size;
}

NNOP_EXPORT const float *nnop_float_array_data(const aclFloatArray *a)
{
	return a->values;
}

NNOP_EXPORT uint64_t nnop_bool_array_size(const aclBoolArray *a)
{
	return a->size;
}

NNOP_EXPORT const bool *nnop_bool_array_data(const aclBoolArray *a)
{
	return a->values;
}

NNOP_EXPORT uint64_t nnop_tensor_list_size(const aclTensorList *l)
{
	return l->size;
}

NNOP_EXPORT const aclTensor *nnop_tensor_list_at(const aclTensorList *l, uint64_t i)
{
	return i < l->size ? l->tensors[i] : NULL;
}

NNOP_EXPORT uint64_t nnop_scalar_list_size(const aclScalarList *l)
{
	return l->size;
}

NNOP_EXPORT const aclScalar *nnop_scalar_list_at(const aclScalarList *l, uint64_t i)
{
	return i < l->size ? l->scalars[i] : NULL;
}
