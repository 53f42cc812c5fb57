// SPDX-License-Identifier: GPL-2.0
/*
 * CUMSUM: running sums along one axis, inclusive or exclusive, from the
 * start or from the end.  A loop over the lines along the axis: integers
 * (x and y both of integer types) sum exactly in int64 and are saturated
 * into y's type, anything else sums in double and is rounded once into
 * y's, so a long F16 or BF16 line does not drift.  y may be x itself:
 * each element is read before it is written.
 */
#include "oplib_impl.h"

struct cumsum_attrs {
	unsigned int axis;
	bool exclusive;
	bool reverse;
};

static struct cumsum_attrs cumsum_attrs(const struct oplib_op *op)
{
	const struct npu_attr_cumsum *raw = &op->attrs->cumsum;

	return (struct cumsum_attrs){
		.axis = oplib_u32(raw->axis),
		.exclusive = oplib_u32(raw->exclusive),
		.reverse = oplib_u32(raw->reverse),
	};
}

static int cumsum_check(const struct oplib_op *op)
{
	const struct npu_attr_cumsum *raw = &op->attrs->cumsum;
	const struct oplib_tensor *x = &op->t[0], *y = oplib_out(op);
	int err;

	if (raw->rsvd)
		return NPU_ERR_RESERVED;
	err = oplib_strided_only(x);
	if (!err)
		err = oplib_strided_only(y);
	if (err)
		return err;
	if (oplib_u32(raw->exclusive) > 1 || oplib_u32(raw->reverse) > 1)
		return NPU_ERR_OP_PARAM;
	if (!x->ndims || oplib_u32(raw->axis) >= x->ndims ||
	    !oplib_same_dims(x, y))
		return NPU_ERR_OP_PARAM;
	return NPU_ERR_NONE;
}

/* One line along the axis, through idx (its axis entry ignored). */
static void cumsum_line(const struct oplib_op *op, const struct cumsum_attrs *a,
			uint8_t *const *bufs, int64_t *idx)
{
	const struct oplib_tensor *x = &op->t[0], *y = oplib_out(op);
	bool exact = oplib_dtype_is_int(x->dtype) && oplib_dtype_is_int(y->dtype);
	size_t xs = oplib_dtype_size(x->dtype), ys = oplib_dtype_size(y->dtype);
	int64_t n = x->dims[a->axis], i, si = 0, vi;
	double sf = 0, vf;

	for (i = 0; i < n; i++) {
		const uint8_t *in;
		uint8_t *out;

		idx[a->axis] = a->reverse ? n - 1 - i : i;
		out = bufs[op->num_inputs] + oplib_offset(y, idx) * ys;
		in = bufs[0] + oplib_offset(x, idx) * xs;
		if (exact) {
			vi = oplib_load_int(in, x->dtype);
			if (a->exclusive)
				oplib_store_int(out, y->dtype, si);
			/* wraps in two's complement: no undefined overflow */
			si = (int64_t)((uint64_t)si + (uint64_t)vi);
			if (!a->exclusive)
				oplib_store_int(out, y->dtype, si);
		} else {
			vf = oplib_load_f64(in, x->dtype);
			if (a->exclusive)
				oplib_store(out, y->dtype, (float)sf);
			sf += vf;
			if (!a->exclusive)
				oplib_store(out, y->dtype, (float)sf);
		}
	}
	idx[a->axis] = 0;
}

static void cumsum_row(const struct oplib_op *op, const struct oplib_step *step,
		       uint8_t *const *bufs, const int64_t *at, unsigned int worker)
{
	const struct cumsum_attrs a = cumsum_attrs(op);
	int64_t idx[NPU_TENSOR_MAX_DIMS];

	(void)step;
	(void)worker;
	memcpy(idx, at, sizeof(idx));
	cumsum_line(op, &a, bufs, idx);
}

/* The lines along the axis are independent: they run on the library's threads. */
static bool cumsum_loop(const struct oplib_op *op,
			const struct oplib_step *step, uint8_t *const *bufs,
			const struct oplib_hooks *hooks)
{
	const struct oplib_tensor *x = &op->t[0];
	unsigned int axis = cumsum_attrs(op).axis;
	int64_t lines[NPU_TENSOR_MAX_DIMS];

	memcpy(lines, x->dims, sizeof(lines));
	lines[axis] = 1;
	return oplib_rows_run(op, step, bufs, hooks, lines, x->ndims, x->dims[axis],
			      cumsum_row);
}

static int cumsum_plan(struct oplib *lib, const struct oplib_op *op,
		       struct oplib_plan *plan)
{
	(void)lib;
	return oplib_plan_loop(plan, cumsum_loop, 0, op->num_inputs, NULL);
}

const struct oplib_family oplib_cumsum_family = {
	.reads_broadcast = true,
	.check = cumsum_check,
	.plan = cumsum_plan,
};
