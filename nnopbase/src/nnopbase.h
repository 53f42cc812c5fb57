/* SPDX-License-Identifier: MIT */
/*
 * libnnopbase's own objects.  An application sees them only as opaque
 * handles (aclnn/acl_meta.h), libopapi through nnop.h.
 */
#ifndef NNOPBASE_H
#define NNOPBASE_H

#include "nnop.h"

#define NNOP_SCALAR_BYTES	16	/* the largest aclDataType: complex128 */

struct aclTensor {
	struct nnop_tensor_info info;
	unsigned int storage_ndims;
	int64_t storage_dims[NNOP_MAX_DIMS];
};

struct aclScalar {
	int acl_dtype;
	unsigned char value[NNOP_SCALAR_BYTES];
};

struct aclIntArray {
	uint64_t size;
	int64_t values[];
};

struct aclFloatArray {
	uint64_t size;
	float values[];
};

struct aclBoolArray {
	uint64_t size;
	bool values[];
};

/* The lists own their elements: destroying one destroys them, as the vendor's do. */
struct aclTensorList {
	uint64_t size;
	const aclTensor *tensors[];
};

struct aclScalarList {
	uint64_t size;
	const aclScalar *scalars[];
};

/* Checks of a tensor's description, shared by aclCreateTensor and aclInitTensor. */
aclnnStatus nnop_tensor_fill(aclTensor *t, const int64_t *dims, uint64_t ndims, aclDataType dtype,
			     const int64_t *strides, int64_t offset, aclFormat format,
			     const int64_t *storage_dims, uint64_t storage_ndims, void *data);

#endif /* NNOPBASE_H */
