// SPDX-License-Identifier: GPL-2.0
/*
 * SCATTER: src's elements written into y, in place, where the indices
 * say, replacing what is there or added to or multiplied into it.  In
 * SLICES mode (PyTorch's index_copy and index_add) src's slice i along
 * the axis goes to y's slice ind[i]; in ELEMENTS mode (ONNX's
 * ScatterElements, PyTorch's scatter) src at p goes to y at p with the
 * axis entry replaced by the index at p.  Writes happen in row-major order
 * of src's positions, so where indices repeat the last write wins.
 *
 * Every index is checked before anything is written: one outside stops the
 * operator with OP_PARAM and y untouched.  Integers (y of an integer type)
 * add and multiply exactly in int64, saturated into y's type; floats in
 * double, rounded once.
 */
#include "oplib_impl.h"

struct scatter_attrs {
	unsigned int axis;
	uint32_t mode;		/* enum npu_scatter_mode */
	uint32_t reduce;	/* enum npu_scatter_reduce */
};

static struct scatter_attrs scatter_attrs(const struct oplib_op *op)
{
	const struct npu_attr_scatter *raw = &op->attrs->scatter;

	return (struct scatter_attrs){
		.axis = oplib_u32(raw->axis),
		.mode = oplib_u32(raw->mode),
		.reduce = oplib_u32(raw->reduce),
	};
}

/* src's slices along the axis, one per index, each one of y's. */
static int scatter_check_slices(const struct oplib_tensor *ind,
				const struct oplib_tensor *src,
				const struct oplib_tensor *y, unsigned int axis)
{
	unsigned int d;

	if (ind->ndims > 1 || src->ndims != y->ndims ||
	    src->dims[axis] != (int64_t)ind->nelems)
		return NPU_ERR_OP_PARAM;
	for (d = 0; d < y->ndims; d++)
		if (d != axis && src->dims[d] != y->dims[d])
			return NPU_ERR_OP_PARAM;
	return NPU_ERR_NONE;
}

/* As PyTorch's scatter: ind within src, and within y off the axis. */
static int scatter_check_elements(const struct oplib_tensor *ind,
				  const struct oplib_tensor *src,
				  const struct oplib_tensor *y, unsigned int axis)
{
	unsigned int d;

	if (ind->ndims != y->ndims || src->ndims != y->ndims)
		return NPU_ERR_OP_PARAM;
	for (d = 0; d < y->ndims; d++)
		if (ind->dims[d] > src->dims[d] ||
		    (d != axis && ind->dims[d] > y->dims[d]))
			return NPU_ERR_OP_PARAM;
	return NPU_ERR_NONE;
}

static int scatter_check(const struct oplib_op *op)
{
	const struct oplib_tensor *ind = &op->t[0], *src = &op->t[1];
	const struct oplib_tensor *y = oplib_out(op);
	struct scatter_attrs a = scatter_attrs(op);
	unsigned int i;
	int err;

	if (op->attrs->scatter.rsvd)
		return NPU_ERR_RESERVED;
	for (i = 0; i < op->num_tensors; i++) {
		err = oplib_strided_only(&op->t[i]);
		if (err)
			return err;
	}
	if (!oplib_index_dtype(ind->dtype) || src->dtype != y->dtype)
		return NPU_ERR_OPERATOR;
	if (a.mode > NPU_SCATTER_ELEMENTS || a.reduce > NPU_SCATTER_MUL ||
	    !y->ndims || a.axis >= y->ndims)
		return NPU_ERR_OP_PARAM;
	if (a.mode == NPU_SCATTER_SLICES)
		return scatter_check_slices(ind, src, y, a.axis);
	return scatter_check_elements(ind, src, y, a.axis);
}

static int scatter_check_indices(const struct oplib_op *op,
				 const struct oplib_step *step,
				 uint8_t *const *bufs)
{
	return oplib_index_check_all(&op->t[step->in], bufs[step->in],
				     oplib_out(op)->dims[scatter_attrs(op).axis]);
}

/* y's element at to combined with src's at from. */
static void scatter_one(uint8_t *to, const uint8_t *from, unsigned int dtype,
			uint32_t reduce)
{
	int64_t a, b;
	double f, g;

	if (reduce == NPU_SCATTER_REPLACE) {
		memcpy(to, from, oplib_dtype_size(dtype));
	} else if (oplib_dtype_is_int(dtype)) {
		a = oplib_load_int(to, dtype);
		b = oplib_load_int(from, dtype);
		/* in two's complement: overflow is not undefined */
		a = reduce == NPU_SCATTER_ADD ?
		    (int64_t)((uint64_t)a + (uint64_t)b) :
		    (int64_t)((uint64_t)a * (uint64_t)b);
		oplib_store_int(to, dtype, a);
	} else {
		f = oplib_load_f64(to, dtype);
		g = oplib_load_f64(from, dtype);
		oplib_store(to, dtype, (float)(reduce == NPU_SCATTER_ADD ? f + g : f * g));
	}
}

/*
 * Over src's positions (SLICES) or the indices' (ELEMENTS); the index of
 * position p is at p's axis entry (SLICES) or at p.  Each index is read
 * again as it is used, in case y overlaps the indices: then what is
 * written is unspecified, but nothing outside y is.
 */
static bool scatter_loop(const struct oplib_op *op,
			 const struct oplib_step *step, uint8_t *const *bufs,
			 const struct oplib_hooks *hooks)
{
	const struct oplib_tensor *ind = &op->t[0], *src = &op->t[1];
	const struct oplib_tensor *y = oplib_out(op);
	const struct scatter_attrs a = scatter_attrs(op);
	const struct oplib_tensor *space = a.mode == NPU_SCATTER_SLICES ? src : ind;
	size_t esize = oplib_dtype_size(y->dtype);
	size_t isize = oplib_dtype_size(ind->dtype);
	int64_t p[NPU_TENSOR_MAX_DIMS] = { 0 }, to[NPU_TENSOR_MAX_DIMS];
	uint64_t count = 0;

	(void)step;
	if (!space->nelems)
		return true;
	do {
		const int64_t *at = a.mode == NPU_SCATTER_SLICES ? &p[a.axis] : p;

		memcpy(to, p, sizeof(to));
		if (oplib_index_load(bufs[0] + oplib_offset(ind, at) * isize,
				     ind->dtype, y->dims[a.axis], &to[a.axis]))
			scatter_one(bufs[op->num_inputs] + oplib_offset(y, to) * esize,
				    bufs[1] + oplib_offset(src, p) * esize,
				    y->dtype, a.reduce);
		if (!oplib_loop_go_on(hooks, &count))
			return false;
	} while (oplib_index_next(p, space->dims, space->ndims));
	return true;
}

static int scatter_plan(struct oplib *lib, const struct oplib_op *op,
			struct oplib_plan *plan)
{
	int err = oplib_plan_check(plan, scatter_check_indices, 0, 0, 0);

	(void)lib;
	return err ? err : oplib_plan_loop(plan, scatter_loop, 1,
					   op->num_inputs, NULL);
}

const struct oplib_family oplib_scatter_family = {
	.empty_inputs_ok = true,
	.reads_broadcast = true,
	.check = scatter_check,
	.plan = scatter_plan,
};
