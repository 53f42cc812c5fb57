// SPDX-License-Identifier: MIT
/* Views reshaped without copying: only dims, strides and the byte offset change. */
#include <string.h>

#include "nnopbase.h"

NNOP_EXPORT void nnop_view_unsqueeze(struct nnop_view *v, unsigned int axis)
{
	memmove(&v->dims[axis + 1], &v->dims[axis], (v->ndims - axis) * sizeof(v->dims[0]));
	memmove(&v->strides[axis + 1], &v->strides[axis],
		(v->ndims - axis) * sizeof(v->strides[0]));
	v->dims[axis] = 1;
	v->strides[axis] = 0;
	v->ndims++;
}

NNOP_EXPORT void nnop_view_squeeze(struct nnop_view *v, unsigned int axis)
{
	v->ndims--;
	memmove(&v->dims[axis], &v->dims[axis + 1], (v->ndims - axis) * sizeof(v->dims[0]));
	memmove(&v->strides[axis], &v->strides[axis + 1],
		(v->ndims - axis) * sizeof(v->strides[0]));
	v->dims[v->ndims] = 0;
	v->strides[v->ndims] = 0;
}

NNOP_EXPORT void nnop_view_align(struct nnop_view *v, unsigned int ndims)
{
	while (v->ndims < ndims)
		nnop_view_unsqueeze(v, 0);
}

NNOP_EXPORT void nnop_view_expand(struct nnop_view *v, unsigned int axis, int64_t n)
{
	v->dims[axis] = n;
	v->strides[axis] = 0;
}

NNOP_EXPORT void nnop_view_permute(struct nnop_view *v, const unsigned int *perm)
{
	int64_t dims[NNOP_MAX_DIMS], strides[NNOP_MAX_DIMS];

	for (unsigned int d = 0; d < v->ndims; d++) {
		dims[d] = v->dims[perm[d]];
		strides[d] = v->strides[perm[d]];
	}
	memcpy(v->dims, dims, v->ndims * sizeof(dims[0]));
	memcpy(v->strides, strides, v->ndims * sizeof(strides[0]));
}

NNOP_EXPORT void nnop_view_narrow(struct nnop_view *v, unsigned int axis, int64_t start,
				  int64_t len, int64_t step)
{
	v->offset += (uint64_t)(start * v->strides[axis]) * NPU_DTYPE_SIZE(v->card_dtype);
	v->dims[axis] = len;
	v->strides[axis] *= step;
}
