// SPDX-License-Identifier: GPL-2.0
/*
 * REDUCE's ARGMAX and ARGMIN: the position along one axis of the first
 * largest or smallest element, as numpy's argmax and argmin, which take
 * the first NaN as the extreme.  oneDNN's reduction gives values, not
 * positions, so this is a loop.  Integers compare exactly as int64, the
 * float types as double.
 */
#include <math.h>

#include "oplib_impl.h"

static unsigned int argreduce_axis(const struct oplib_op *op)
{
	return __builtin_ctz(oplib_u32(op->attrs->reduce.axes));
}

static int argreduce_check(const struct oplib_op *op)
{
	const struct oplib_tensor *x = &op->t[0], *y = oplib_out(op);
	uint32_t axes = oplib_u32(op->attrs->reduce.axes);
	unsigned int d, axis;
	int err;

	err = oplib_strided_only(x);
	if (!err)
		err = oplib_strided_only(y);
	if (err)
		return err;
	if (!oplib_index_dtype(y->dtype))
		return NPU_ERR_OPERATOR;
	/* one axis: a position along several has no single number */
	if (!x->ndims || x->ndims != y->ndims || !axes || (axes & (axes - 1)) ||
	    (axes >> x->ndims))
		return NPU_ERR_OP_PARAM;
	axis = argreduce_axis(op);
	for (d = 0; d < x->ndims; d++)
		if (y->dims[d] != (d == axis ? 1 : x->dims[d]))
			return NPU_ERR_OP_PARAM;
	/* the position of nothing is undefined */
	return x->dims[axis] ? NPU_ERR_NONE : NPU_ERR_OP_PARAM;
}

/* a replaces the best so far b: strictly beyond it, or the first NaN */
static bool argreduce_better_f(double a, double b, bool max)
{
	if (isnan(b))
		return false;
	if (isnan(a))
		return true;
	return max ? a > b : a < b;
}

static bool argreduce_better_i(int64_t a, int64_t b, bool max)
{
	return max ? a > b : a < b;
}

/* The position of the extreme along @axis of the line through idx. */
static int64_t argreduce_line(const struct oplib_tensor *x, const uint8_t *base,
			      int64_t *idx, unsigned int axis, bool max)
{
	size_t esize = oplib_dtype_size(x->dtype);
	bool is_int = oplib_dtype_is_int(x->dtype);
	int64_t best = 0, i, bi = 0, vi;
	double bf = 0, vf;

	for (i = 0; i < x->dims[axis]; i++) {
		const uint8_t *p;

		idx[axis] = i;
		p = base + oplib_offset(x, idx) * esize;
		if (is_int) {
			vi = oplib_load_int(p, x->dtype);
			if (!i || argreduce_better_i(vi, bi, max)) {
				bi = vi;
				best = i;
			}
		} else {
			vf = oplib_load_f64(p, x->dtype);
			if (!i || argreduce_better_f(vf, bf, max)) {
				bf = vf;
				best = i;
			}
		}
	}
	idx[axis] = 0;
	return best;
}

static void argreduce_row(const struct oplib_op *op, const struct oplib_step *step,
			  uint8_t *const *bufs, const int64_t *at, unsigned int worker)
{
	const struct oplib_tensor *x = &op->t[0], *y = oplib_out(op);
	bool max = oplib_u32(op->attrs->reduce.kind) == NPU_REDUCE_ARGMAX;
	int64_t idx[NPU_TENSOR_MAX_DIMS], pos;

	(void)step;
	(void)worker;
	memcpy(idx, at, sizeof(idx));
	pos = argreduce_line(x, bufs[0], idx, argreduce_axis(op), max);
	oplib_store_int(bufs[op->num_inputs] +
			oplib_offset(y, idx) * oplib_dtype_size(y->dtype), y->dtype, pos);
}

/* y's elements are independent lines of x: they run on the library's threads. */
static bool argreduce_loop(const struct oplib_op *op,
			   const struct oplib_step *step, uint8_t *const *bufs,
			   const struct oplib_hooks *hooks)
{
	const struct oplib_tensor *y = oplib_out(op);

	return oplib_rows_run(op, step, bufs, hooks, y->dims, y->ndims,
			      op->t[0].dims[argreduce_axis(op)], argreduce_row);
}

static int argreduce_plan(struct oplib *lib, const struct oplib_op *op,
			  struct oplib_plan *plan)
{
	(void)lib;
	return oplib_plan_loop(plan, argreduce_loop, 0, op->num_inputs, NULL);
}

const struct oplib_family oplib_argreduce_family = {
	.reads_broadcast = true,
	.check = argreduce_check,
	.plan = argreduce_plan,
};
