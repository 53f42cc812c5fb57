// SPDX-License-Identifier: GPL-2.0
/*
 * GATHER_ELEMENTS: y at p = x at p with p's @axis entry replaced by the
 * index at p, as ONNX's GatherElements and PyTorch's gather (take along
 * an axis): ind has x's rank and dims no larger than x's off the axis,
 * and y has ind's dims.  A copy, so any data type is moved as it is.
 * Every index is checked before y is written, as GATHER does.
 */
#include "oplib_impl.h"

static uint32_t gather_elements_axis(const struct oplib_op *op)
{
	return oplib_u32(op->attrs->gather.axis);
}

static int gather_elements_check(const struct oplib_op *op)
{
	const struct oplib_tensor *x = &op->t[0], *ind = &op->t[1];
	const struct oplib_tensor *y = oplib_out(op);
	uint32_t axis = gather_elements_axis(op);
	unsigned int i, d;
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
	if (!x->ndims || axis >= x->ndims || ind->ndims != x->ndims ||
	    !oplib_same_dims(ind, y))
		return NPU_ERR_OP_PARAM;
	for (d = 0; d < x->ndims; d++)
		if (d != axis && ind->dims[d] > x->dims[d])
			return NPU_ERR_OP_PARAM;
	return NPU_ERR_NONE;
}

static int gather_elements_check_indices(const struct oplib_op *op,
					 const struct oplib_step *step,
					 uint8_t *const *bufs)
{
	return oplib_index_check_all(&op->t[step->in], bufs[step->in],
				     op->t[0].dims[gather_elements_axis(op)]);
}

/*
 * Each index is read again as it is used, since y may overlap the
 * indices: what it then writes is unspecified, but it stays in x and y.
 */
static bool gather_elements_loop(const struct oplib_op *op,
				 const struct oplib_step *step,
				 uint8_t *const *bufs,
				 const struct oplib_hooks *hooks)
{
	const struct oplib_tensor *x = &op->t[0], *ind = &op->t[1];
	const struct oplib_tensor *y = oplib_out(op);
	size_t esize = oplib_dtype_size(y->dtype);
	size_t isize = oplib_dtype_size(ind->dtype);
	uint32_t axis = gather_elements_axis(op);
	int64_t idx[NPU_TENSOR_MAX_DIMS] = { 0 }, from[NPU_TENSOR_MAX_DIMS];
	uint64_t count = 0;

	(void)step;
	do {
		memcpy(from, idx, sizeof(from));
		if (oplib_index_load(bufs[1] + oplib_offset(ind, idx) * isize,
				     ind->dtype, x->dims[axis], &from[axis]))
			memcpy(bufs[op->num_inputs] + oplib_offset(y, idx) * esize,
			       bufs[0] + oplib_offset(x, from) * esize, esize);
		if (!oplib_loop_go_on(hooks, &count))
			return false;
	} while (oplib_index_next(idx, y->dims, y->ndims));
	return true;
}

static int gather_elements_plan(struct oplib *lib, const struct oplib_op *op,
				struct oplib_plan *plan)
{
	int err = oplib_plan_check(plan, gather_elements_check_indices, 1, 0, 0);

	(void)lib;
	return err ? err : oplib_plan_loop(plan, gather_elements_loop, 0,
					   op->num_inputs, NULL);
}

const struct oplib_family oplib_gather_elements_family = {
	.reads_broadcast = true,
	.check = gather_elements_check,
	.plan = gather_elements_plan,
};
