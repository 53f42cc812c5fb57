// SPDX-License-Identifier: MIT
/* Scalars the card reads: one workspace element that a FILL operator sets. */
#include <endian.h>
#include <string.h>

#include "executor.h"

NNOP_EXPORT aclnnStatus nnop_view_scalar(aclOpExecutor *x, double value, int card_dtype,
					 unsigned int ndims, struct nnop_view *out)
{
	int64_t ones[NNOP_MAX_DIMS];
	struct npu_attr_fill attr = { .mode = htole32(NPU_FILL_CONSTANT) };
	uint64_t bits;
	aclnnStatus ret;

	if (ndims > NNOP_MAX_DIMS)
		return NNOP_FAIL(ACLNN_ERR_PARAM_INVALID, "%s: a scalar of %u dims, more than %d",
				 x->op_name, ndims, NNOP_MAX_DIMS);
	for (unsigned int d = 0; d < NNOP_MAX_DIMS; d++)
		ones[d] = 1;
	/* FILL's rank must be at least one; a rank-0 scalar is a one-element view. */
	*out = nnop_view_work(x, card_dtype, ndims ? ndims : 1, ones);
	memcpy(&bits, &value, sizeof(bits));
	attr.value = htole64(bits);
	ret = nnop_executor_add(x, NPU_OPERATOR_FILL, &attr, sizeof(attr), 0, out);
	out->ndims = ndims;
	return ret;
}
