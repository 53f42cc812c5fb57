// SPDX-License-Identifier: GPL-2.0
/*
 * QMATMUL: not implemented yet; the card refuses it as an operator it does
 * not run (NPU_ERR_OPERATOR), whatever the descriptor.
 */
#include "oplib_impl.h"

static int qmatmul_check(const struct oplib_op *op)
{
	(void)op;
	return NPU_ERR_OPERATOR;
}

static int qmatmul_plan(struct oplib *lib, const struct oplib_op *op,
		     struct oplib_plan *plan)
{
	(void)lib;
	(void)op;
	(void)plan;
	return NPU_ERR_OPERATOR;
}

const struct oplib_family oplib_qmatmul_family = {
	.check = qmatmul_check,
	.plan = qmatmul_plan,
};
