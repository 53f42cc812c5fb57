// SPDX-License-Identifier: GPL-2.0
/*
 * TRISOLVE: not implemented yet; the card refuses it as an operator it does
 * not run (NPU_ERR_OPERATOR), whatever the descriptor.
 */
#include "oplib_impl.h"

static int trisolve_check(const struct oplib_op *op)
{
	(void)op;
	return NPU_ERR_OPERATOR;
}

static int trisolve_plan(struct oplib *lib, const struct oplib_op *op,
		     struct oplib_plan *plan)
{
	(void)lib;
	(void)op;
	(void)plan;
	return NPU_ERR_OPERATOR;
}

const struct oplib_family oplib_trisolve_family = {
	.check = trisolve_check,
	.plan = trisolve_plan,
};
