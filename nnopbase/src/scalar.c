// SPDX-License-Identifier: MIT
/* Scalars the card reads: one workspace element that a FILL operator sets. */
#include <endian.h>
#include <string.h>

#include "executor.h"

NNOP_EXPORT aclnnStatus nnop_view_scalar(aclOpExecutor *x, double value, int card_dtype,
					 unsigned int ndims, struct nnop_view *out)
{
	struct npu_attr_fill attr = { .mode = htole32(NPU_FILL_CONSTANT) };
	int64_t ones[NNOP_MAX_DIMS];
	uint64_t bits;

	if (ndims > NNOP_MAX_DIMS)
		return NNOP_FAIL(ACLNN_ERR_INNER, "%s: a scalar of %u dims", x->op_name, ndims);
	for (unsigned int d = 0; d < ndims; d++)
		ones[d] = 1;
	memcpy(&bits, &value, sizeof(bits));
	attr.value = htole64(bits);
	*out = nnop_view_work(x, card_dtype, ndims, ones);
	return nnop_executor_add(x, NPU_OPERATOR_FILL, &attr, sizeof(attr), 0, out);
}
