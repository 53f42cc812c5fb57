// SPDX-License-Identifier: GPL-2.0
/*
 * TRIANGLE: the lower (tril) or upper (triu) triangle of each matrix of the
 * last two axes, the rest zeroed.  oneDNN has no such primitive, so this
 * is a loop, and a copy: any data type is moved as it is, and zero is
 * all-zero bytes in each of them.
 */
#include "oplib_impl.h"

static int triangle_check(const struct oplib_op *op)
{
	const struct npu_attr_triangle *raw = &op->attrs->triangle;
	const struct oplib_tensor *x = &op->t[0], *y = oplib_out(op);
	int err;

	if (raw->rsvd)
		return NPU_ERR_RESERVED;
	err = oplib_strided_only(x);
	if (!err)
		err = oplib_strided_only(y);
	if (err)
		return err;
	if (x->dtype != y->dtype)
		return NPU_ERR_OPERATOR;
	if (oplib_u32(raw->upper) > 1 || x->ndims < 2 || !oplib_same_dims(x, y))
		return NPU_ERR_OP_PARAM;
	return NPU_ERR_NONE;
}

/* Whether column j of row i is kept. */
static bool triangle_keeps(const struct npu_attr_triangle *raw, int64_t i,
			   int64_t j)
{
	int64_t diagonal = (int64_t)le64toh(raw->diagonal);

	/* both are below 2^63, so j - i does not overflow */
	return oplib_u32(raw->upper) ? j - i >= diagonal : j - i <= diagonal;
}

static bool triangle_loop(const struct oplib_op *op,
			  const struct oplib_step *step, uint8_t *const *bufs,
			  const struct oplib_hooks *hooks)
{
	const struct oplib_tensor *x = &op->t[0], *y = oplib_out(op);
	size_t esize = oplib_dtype_size(y->dtype);
	int64_t idx[NPU_TENSOR_MAX_DIMS] = { 0 };
	unsigned int row = y->ndims - 2;
	uint64_t count = 0;

	do {
		uint8_t *to = bufs[step->out] + oplib_offset(y, idx) * esize;

		if (triangle_keeps(&op->attrs->triangle, idx[row], idx[row + 1]))
			memmove(to, bufs[step->in] + oplib_offset(x, idx) * esize,
				esize);
		else
			memset(to, 0, esize);
		if (!oplib_loop_go_on(hooks, &count))
			return false;
	} while (oplib_index_next(idx, y->dims, y->ndims));
	return true;
}

static int triangle_plan(struct oplib *lib, const struct oplib_op *op,
			 struct oplib_plan *plan)
{
	(void)lib;
	return oplib_plan_loop(plan, triangle_loop, 0, op->num_inputs, NULL);
}

const struct oplib_family oplib_triangle_family = {
	.check = triangle_check,
	.plan = triangle_plan,
};
