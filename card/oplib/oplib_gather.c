// SPDX-License-Identifier: GPL-2.0
/*
 * GATHER: y takes x's slices along one axis in the order the indices name
 * them, as ONNX's Gather.  oneDNN has no gather primitive, so this is a
 * loop, and a copy: any data type is moved as it is.
 *
 * The indices are data, so they are checked when the operator runs, all of
 * them before anything is written: an index outside [-n, n) for an axis of
 * n elements stops the operator with OP_PARAM and y untouched.  The copy
 * checks each index again, since y may overlap the indices; what it then
 * writes is unspecified, but it reads and writes nothing outside x and y.
 */
#include "oplib_impl.h"

static uint32_t gather_axis(const struct oplib_op *op)
{
	return oplib_u32(op->attrs->gather.axis);
}

/*
 * y's dims: x's, with the axis replaced by the indices' dims.  Its rank is
 * x's less 1 plus the indices'.
 */
static int gather_check_dims(const struct oplib_tensor *x,
			     const struct oplib_tensor *ind,
			     const struct oplib_tensor *y, uint32_t axis)
{
	unsigned int d;

	if (y->ndims != x->ndims - 1 + ind->ndims)
		return NPU_ERR_OP_PARAM;
	for (d = 0; d < axis; d++)
		if (y->dims[d] != x->dims[d])
			return NPU_ERR_OP_PARAM;
	for (d = 0; d < ind->ndims; d++)
		if (y->dims[axis + d] != ind->dims[d])
			return NPU_ERR_OP_PARAM;
	for (d = axis + 1; d < x->ndims; d++)
		if (y->dims[d - 1 + ind->ndims] != x->dims[d])
			return NPU_ERR_OP_PARAM;
	return NPU_ERR_NONE;
}

static int gather_check(const struct oplib_op *op)
{
	const struct oplib_tensor *x = &op->t[0], *ind = &op->t[1];
	const struct oplib_tensor *y = oplib_out(op);
	uint32_t axis = gather_axis(op);
	unsigned int i;
	int err;

	if (op->attrs->gather.rsvd)
		return NPU_ERR_RESERVED;
	for (i = 0; i < op->num_tensors; i++) {
		err = oplib_strided_only(&op->t[i]);
		if (err)
			return err;
	}
	if (!oplib_index_dtype(ind->dtype) || x->dtype != y->dtype)
		return NPU_ERR_OPERATOR;
	if (!x->ndims || axis >= x->ndims ||
	    x->ndims - 1 + ind->ndims > NPU_TENSOR_MAX_DIMS)
		return NPU_ERR_OP_PARAM;
	return gather_check_dims(x, ind, y, axis);
}

/* Every index in range, before y is written. */
static int gather_check_indices(const struct oplib_op *op,
				const struct oplib_step *step,
				uint8_t *const *bufs)
{
	return oplib_index_check_all(&op->t[step->in], bufs[step->in],
				     op->t[0].dims[gather_axis(op)]);
}

static bool gather_loop(const struct oplib_op *op,
			const struct oplib_step *step, uint8_t *const *bufs,
			const struct oplib_hooks *hooks)
{
	const struct oplib_tensor *x = &op->t[0], *ind = &op->t[1];
	const struct oplib_tensor *y = oplib_out(op);
	size_t esize = oplib_dtype_size(y->dtype);
	size_t isize = oplib_dtype_size(ind->dtype);
	uint32_t axis = gather_axis(op);
	int64_t idx[NPU_TENSOR_MAX_DIMS] = { 0 }, from[NPU_TENSOR_MAX_DIMS];
	unsigned int d;
	uint64_t count = 0;

	(void)step;
	do {
		const uint8_t *i = bufs[1] + oplib_offset(ind, idx + axis) *
					     isize;

		for (d = 0; d < axis; d++)
			from[d] = idx[d];
		for (d = axis + 1; d < x->ndims; d++)
			from[d] = idx[d - 1 + ind->ndims];
		if (oplib_index_load(i, ind->dtype, x->dims[axis], &from[axis]))
			memcpy(bufs[op->num_inputs] + oplib_offset(y, idx) * esize,
			       bufs[0] + oplib_offset(x, from) * esize, esize);
		if (!oplib_loop_go_on(hooks, &count))
			return false;
	} while (oplib_index_next(idx, y->dims, y->ndims));
	return true;
}

static int gather_plan(struct oplib *lib, const struct oplib_op *op,
		       struct oplib_plan *plan)
{
	int err = oplib_plan_check(plan, gather_check_indices, 1, 0, 0);

	(void)lib;
	return err ? err : oplib_plan_loop(plan, gather_loop, 0,
					   op->num_inputs, NULL);
}

const struct oplib_family oplib_gather_family = {
	.reads_broadcast = true,
	.check = gather_check,
	.plan = gather_plan,
};
