// SPDX-License-Identifier: GPL-2.0
/*
 * REDUCE: mean, sum, max, min, L1 and L2 norms or product over the axes of
 * a bit mask, with oneDNN's reduction (the norms are its p-norms of p 1
 * and 2).  y keeps x's rank, with 1 on the reduced axes.  A reduction over
 * axes of size 1 only is a copy, which oneDNN's reduction refuses, so it
 * is a reorder, and for the norms the absolute value after it.  Integers
 * and F64 are oplib_reduce_exact.c's.
 */
#include "oplib_impl.h"

static int reduce_check(const struct oplib_op *op)
{
	const struct npu_attr_reduce *raw = &op->attrs->reduce;
	const struct oplib_tensor *x = &op->t[0], *y = oplib_out(op);
	uint32_t axes = oplib_u32(raw->axes);
	unsigned int d;

	if (oplib_u32(raw->kind) > NPU_REDUCE_LAST)
		return NPU_ERR_OPERATOR;
	if (oplib_u32(raw->kind) >= NPU_REDUCE_ARGMAX)
		return oplib_argreduce_family.check(op);
	if (x->ndims != y->ndims || (axes >> x->ndims))
		return NPU_ERR_OP_PARAM;
	for (d = 0; d < x->ndims; d++)
		if (y->dims[d] != ((axes >> d) & 1 ? 1 : x->dims[d]))
			return NPU_ERR_OP_PARAM;
	return x->dtype == y->dtype ? NPU_ERR_NONE : NPU_ERR_OPERATOR;
}

/* The reduction itself, from views[0] to views[1]. */
static int plan_reduction(struct oplib *lib, struct oplib_plan *plan,
			  uint32_t kind, const unsigned int *views, bool copy)
{
	static const dnnl_alg_kind_t algs[] = {
		[NPU_REDUCE_MEAN]	= dnnl_reduction_mean,
		[NPU_REDUCE_SUM]	= dnnl_reduction_sum,
		[NPU_REDUCE_MAX]	= dnnl_reduction_max,
		[NPU_REDUCE_MIN]	= dnnl_reduction_min,
		[NPU_REDUCE_L1]		= dnnl_reduction_norm_lp_sum,
		[NPU_REDUCE_L2]		= dnnl_reduction_norm_lp_sum,
		[NPU_REDUCE_PROD]	= dnnl_reduction_mul,
	};
	static const int args[] = { DNNL_ARG_SRC, DNNL_ARG_DST };
	static const struct oplib_act abs = { .kind = NPU_UNARY_ABS };
	bool norm = kind == NPU_REDUCE_L1 || kind == NPU_REDUCE_L2;
	dnnl_reduction_desc_t desc;
	dnnl_primitive_desc_t pd;
	int err;

	if (copy) {
		err = oplib_plan_reorder(lib, plan, views[0], views[1]);
		if (!err && norm)
			err = oplib_plan_act(lib, plan, 1, views[1], &abs);
		return err;
	}
	/* p: the norm's power; the others ignore it */
	err = oplib_status(dnnl_reduction_desc_init(&desc, algs[kind],
				&plan->views[views[0]].md,
				&plan->views[views[1]].md,
				kind == NPU_REDUCE_L2 ? 2.0f : 1.0f, 0.0f));
	if (!err)
		err = oplib_pd_create(&pd, &desc, NULL, lib);
	if (!err)
		err = oplib_plan_primitive(plan, pd, 2, args, views);
	return err;
}

static int reduce_plan(struct oplib *lib, const struct oplib_op *op,
		       struct oplib_plan *plan)
{
	uint32_t kind = oplib_u32(op->attrs->reduce.kind);
	bool copy = oplib_same_dims(&op->t[0], &op->t[1]);
	unsigned int views[2];
	int err;

	if (kind >= NPU_REDUCE_ARGMAX)
		return oplib_argreduce_family.plan(lib, op, plan);
	if (oplib_reduce_is_exact(op))
		return oplib_plan_loop(plan, oplib_reduce_exact_loop, 0, 1, NULL);
	err = oplib_plan_tensor(plan, op, 0, &views[0]);
	if (!err)
		err = oplib_plan_tensor(plan, op, 1, &views[1]);
	if (err)
		return err;
	return plan_reduction(lib, plan, kind, views, copy);
}

const struct oplib_family oplib_reduce_family = {
	.check = reduce_check,
	.plan = reduce_plan,
};
