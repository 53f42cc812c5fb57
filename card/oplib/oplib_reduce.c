// SPDX-License-Identifier: GPL-2.0
/*
 * REDUCE: mean, sum, max or min over the axes of a bit mask, with oneDNN's
 * reduction.  y keeps x's rank, with 1 on the reduced axes.  A reduction
 * over axes of size 1 only is a copy, which oneDNN's reduction refuses,
 * so it is a reorder.
 */
#include "oplib_impl.h"

static int reduce_check(const struct oplib_op *op)
{
	const struct npu_attr_reduce *raw = &op->attrs->reduce;
	const struct oplib_tensor *x = &op->t[0], *y = oplib_out(op);
	uint32_t axes = oplib_u32(raw->axes);
	unsigned int d;

	if (oplib_u32(raw->kind) > NPU_REDUCE_MIN)	/* the last kind */
		return NPU_ERR_OPERATOR;
	if (x->ndims != y->ndims || (axes >> x->ndims))
		return NPU_ERR_OP_PARAM;
	for (d = 0; d < x->ndims; d++)
		if (y->dims[d] != ((axes >> d) & 1 ? 1 : x->dims[d]))
			return NPU_ERR_OP_PARAM;
	return x->dtype == y->dtype ? NPU_ERR_NONE : NPU_ERR_OPERATOR;
}

static int reduce_plan(struct oplib *lib, const struct oplib_op *op,
		       struct oplib_plan *plan)
{
	static const dnnl_alg_kind_t algs[] = {
		[NPU_REDUCE_MEAN]	= dnnl_reduction_mean,
		[NPU_REDUCE_SUM]	= dnnl_reduction_sum,
		[NPU_REDUCE_MAX]	= dnnl_reduction_max,
		[NPU_REDUCE_MIN]	= dnnl_reduction_min,
	};
	static const int args[] = { DNNL_ARG_SRC, DNNL_ARG_DST };
	const struct npu_attr_reduce *raw = &op->attrs->reduce;
	dnnl_reduction_desc_t desc;
	dnnl_primitive_desc_t pd;
	unsigned int views[2];
	int err;

	err = oplib_plan_tensor(plan, op, 0, &views[0]);
	if (!err)
		err = oplib_plan_tensor(plan, op, 1, &views[1]);
	if (err)
		return err;
	if (oplib_same_dims(&op->t[0], &op->t[1]))
		return oplib_plan_reorder(lib, plan, views[0], views[1]);
	err = oplib_status(dnnl_reduction_desc_init(&desc,
				algs[oplib_u32(raw->kind)],
				&plan->views[views[0]].md,
				&plan->views[views[1]].md, 0.0f, 0.0f));
	if (!err)
		err = oplib_pd_create(&pd, &desc, NULL, lib);
	if (!err)
		err = oplib_plan_primitive(plan, pd, 2, args, views);
	return err;
}

const struct oplib_family oplib_reduce_family = {
	.check = reduce_check,
	.plan = reduce_plan,
};
