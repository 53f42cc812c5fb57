// SPDX-License-Identifier: MIT
/* Scalars the card reads: one workspace element that a FILL operator sets. */
#include "executor.h"

NNOP_EXPORT aclnnStatus nnop_view_scalar(aclOpExecutor *x, double value, int card_dtype,
					 unsigned int ndims, struct nnop_view *out)
{
	(void)value;
	(void)card_dtype;
	(void)ndims;
	(void)out;
	return NNOP_FAIL(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, "%s: the card has no FILL operator "
			 "yet, which a scalar operand needs", x->op_name);
}
