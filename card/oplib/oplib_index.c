// SPDX-License-Identifier: GPL-2.0
/*
 * Index tensors, which GATHER, GATHER_ELEMENTS and SCATTER read: S32 or
 * S64, a negative index counting from the end of its axis.  The indices
 * are data, so they are checked when the operator runs, every one before
 * anything is written.
 */
#include "oplib_impl.h"

bool oplib_index_dtype(unsigned int dtype)
{
	return dtype == NPU_DTYPE_S32 || dtype == NPU_DTYPE_S64;
}

bool oplib_index_load(const uint8_t *p, unsigned int dtype, int64_t n,
		      int64_t *at)
{
	int64_t i = oplib_load_int(p, dtype);

	if (i < 0)
		i += n;
	*at = i;
	return i >= 0 && i < n;
}

int oplib_index_check_all(const struct oplib_tensor *ind, const uint8_t *base,
			  int64_t n)
{
	size_t esize = oplib_dtype_size(ind->dtype);
	int64_t idx[NPU_TENSOR_MAX_DIMS] = { 0 }, at;

	if (!ind->nelems)
		return NPU_ERR_NONE;
	do {
		if (!oplib_index_load(base + oplib_offset(ind, idx) * esize,
				      ind->dtype, n, &at))
			return NPU_ERR_OP_PARAM;
	} while (oplib_index_next(idx, ind->dims, ind->ndims));
	return NPU_ERR_NONE;
}
