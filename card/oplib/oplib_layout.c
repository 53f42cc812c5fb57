// SPDX-License-Identifier: GPL-2.0
/*
 * Operators that move elements: CONCAT, TRANSPOSE, SLICE and CAST.
 *
 * All of them are oneDNN reorders (or a concat) between views: TRANSPOSE
 * reads x through its axes permuted, SLICE through strides multiplied by
 * the steps from an offset, CAST converts on the way.  A slice that walks
 * an axis backwards would need a negative stride, which oneDNN has not,
 * so it is a loop; so are the conversions oneDNN's reorders lack.  The
 * types oneDNN has not are moved as bytes (oplib_md_copy()).
 */
#include "oplib_impl.h"

static int concat_check(const struct oplib_op *op)
{
	const struct npu_attr_concat *raw = &op->attrs->concat;
	const struct oplib_tensor *y = oplib_out(op);
	uint32_t axis = oplib_u32(raw->axis);
	unsigned __int128 sum = 0;
	unsigned int i, d;

	if (raw->rsvd)
		return NPU_ERR_RESERVED;
	if (axis >= y->ndims)
		return NPU_ERR_OP_PARAM;
	for (i = 0; i < op->num_inputs; i++) {
		const struct oplib_tensor *x = &op->t[i];

		if (x->ndims != y->ndims)
			return NPU_ERR_OP_PARAM;
		if (x->dtype != y->dtype)
			return NPU_ERR_OPERATOR;
		for (d = 0; d < y->ndims; d++)
			if (d != axis && x->dims[d] != y->dims[d])
				return NPU_ERR_OP_PARAM;
		sum += x->dims[axis];
	}
	return sum == (uint64_t)y->dims[axis] ? NPU_ERR_NONE : NPU_ERR_OP_PARAM;
}

/* Inputs with nothing in them take no part. */
static int concat_plan(struct oplib *lib, const struct oplib_op *op,
		       struct oplib_plan *plan)
{
	const struct npu_attr_concat *raw = &op->attrs->concat;
	dnnl_memory_desc_t srcs[NPU_OP_MAX_TENSORS];
	unsigned int views[NPU_OP_MAX_TENSORS], y, i, n = 0;
	int args[NPU_OP_MAX_TENSORS];
	dnnl_primitive_attr_t attr;
	dnnl_primitive_desc_t pd;
	int err;

	for (i = 0; i < op->num_inputs; i++) {
		if (!op->t[i].nelems)
			continue;
		err = oplib_plan_copy_tensor(plan, op, i, &views[n]);
		if (err)
			return err;
		srcs[n] = plan->views[views[n]].md;
		args[n] = DNNL_ARG_MULTIPLE_SRC + n;
		n++;
	}
	err = oplib_plan_copy_tensor(plan, op, op->num_inputs, &y);
	if (err)
		return err;
	if (n == 1)
		return oplib_plan_reorder(lib, plan, views[0], y);
	err = oplib_attr(NULL, &attr);
	if (err)
		return err;
	err = oplib_status(dnnl_concat_primitive_desc_create(&pd,
				&plan->views[y].md, n, oplib_u32(raw->axis),
				srcs, attr, lib->engine));
	dnnl_primitive_attr_destroy(attr);
	if (err)
		return err;
	views[n] = y;
	args[n] = DNNL_ARG_DST;
	return oplib_plan_primitive(plan, pd, n + 1, args, views);
}

static int transpose_check(const struct oplib_op *op)
{
	const struct npu_attr_transpose *raw = &op->attrs->transpose;
	const struct oplib_tensor *x = &op->t[0], *y = oplib_out(op);
	unsigned int seen = 0, d;

	for (d = 0; d < NPU_TENSOR_MAX_DIMS; d++) {
		uint32_t p = oplib_u32(raw->perm[d]);

		if (d >= x->ndims) {
			if (p)
				return NPU_ERR_RESERVED;
			continue;
		}
		if (p >= x->ndims || (seen & (1u << p)))
			return NPU_ERR_OP_PARAM;
		seen |= 1u << p;
	}
	if (y->ndims != x->ndims)
		return NPU_ERR_OP_PARAM;
	for (d = 0; d < y->ndims; d++)
		if (y->dims[d] != x->dims[oplib_u32(raw->perm[d])])
			return NPU_ERR_OP_PARAM;
	return x->dtype == y->dtype ? NPU_ERR_NONE : NPU_ERR_OPERATOR;
}

/* y's axis d is x's axis perm[d]: read x with its axes moved so. */
static int transpose_plan(struct oplib *lib, const struct oplib_op *op,
			  struct oplib_plan *plan)
{
	const struct npu_attr_transpose *raw = &op->attrs->transpose;
	const struct oplib_tensor *t = &op->t[0];
	int moved_to[NPU_TENSOR_MAX_DIMS + 1] = { 0 };
	dnnl_memory_desc_t x, permuted;
	unsigned int view, y, d;
	int err;

	for (d = 0; d < t->ndims; d++)
		moved_to[oplib_u32(raw->perm[d])] = d;
	/* the innermost axis oplib_md_copy() may add stays where it is */
	moved_to[t->ndims] = t->ndims;
	if (oplib_dnnl_dtype(t->dtype) != dnnl_data_type_undef)
		err = oplib_tensor_md(t, &x);
	else
		err = oplib_strided_only(t) ?:
		      oplib_md_copy(&x, t->ndims, t->dims, t->strides, t->dtype);
	if (!err)
		err = oplib_status(dnnl_memory_desc_permute_axes(&permuted, &x,
								 moved_to));
	if (!err)
		err = oplib_plan_view(plan, 0, 0, &permuted, &view);
	if (!err)
		err = oplib_plan_copy_tensor(plan, op, 1, &y);
	if (!err)
		err = oplib_plan_reorder(lib, plan, view, y);
	return err;
}

static int cast_check(const struct oplib_op *op)
{
	return oplib_same_dims(&op->t[0], oplib_out(op)) ? NPU_ERR_NONE :
							   NPU_ERR_OP_PARAM;
}

/*
 * One element: integers exactly, U64 too; floats through double, which
 * holds every value of the float types; a float into an integer toward
 * zero and saturated, as C, numpy and PyTorch convert.  BOOL is whether
 * the value is not 0.
 */
static void cast_elem(const uint8_t *from, unsigned int from_dtype,
		      uint8_t *to, unsigned int to_dtype)
{
	double v;

	if (oplib_dtype_is_int(from_dtype)) {
		oplib_store_wide(to, to_dtype, oplib_load_wide(from, from_dtype));
		return;
	}
	v = oplib_load_f64(from, from_dtype);
	if (to_dtype == NPU_DTYPE_BOOL)
		oplib_store_int(to, to_dtype, v != 0);
	else if (oplib_dtype_is_int(to_dtype))
		oplib_store_wide(to, to_dtype, oplib_f64_to_wide(v));
	else
		oplib_store_f64(to, to_dtype, v);
}

static bool cast_loop(const struct oplib_op *op,
		      const struct oplib_step *step, uint8_t *const *bufs,
		      const struct oplib_hooks *hooks)
{
	const struct oplib_tensor *x = &op->t[0], *y = oplib_out(op);
	size_t xs = oplib_dtype_size(x->dtype), ys = oplib_dtype_size(y->dtype);
	int64_t idx[NPU_TENSOR_MAX_DIMS] = { 0 };
	uint64_t count = 0;

	do {
		cast_elem(bufs[step->in] + oplib_offset(x, idx) * xs, x->dtype,
			  bufs[step->out] + oplib_offset(y, idx) * ys, y->dtype);
		if (!oplib_loop_go_on(hooks, &count))
			return false;
	} while (oplib_index_next(idx, y->dims, y->ndims));
	oplib_zero_padding(y, bufs[step->out]);
	return true;
}

/*
 * oneDNN's reorders convert as cast_elem() does between its own types,
 * but for floats into integers, which they round to nearest (and bf16
 * into 8 bits, which oneDNN 2.6 wraps).
 */
static bool cast_by_reorder(unsigned int from, unsigned int to)
{
	if (from == to)
		return true;
	return oplib_dnnl_dtype(from) != dnnl_data_type_undef &&
	       oplib_dnnl_dtype(to) != dnnl_data_type_undef &&
	       (oplib_dtype_is_int(from) || !oplib_dtype_is_int(to));
}

static int cast_plan(struct oplib *lib, const struct oplib_op *op,
		     struct oplib_plan *plan)
{
	unsigned int x, y;
	int err;

	if (!cast_by_reorder(op->t[0].dtype, oplib_out(op)->dtype))
		return oplib_plan_loop(plan, cast_loop, 0, 1, NULL);
	err = oplib_plan_copy_tensor(plan, op, 0, &x);
	if (!err)
		err = oplib_plan_copy_tensor(plan, op, 1, &y);
	if (!err)
		err = oplib_plan_reorder(lib, plan, x, y);
	if (err == NPU_ERR_OPERATOR)
		err = oplib_plan_loop(plan, cast_loop, 0, 1, NULL);
	return err;
}

struct slice_attrs {
	int64_t starts[NPU_TENSOR_MAX_DIMS];
	int64_t steps[NPU_TENSOR_MAX_DIMS];
};

static void slice_decode(const struct oplib_op *op, struct slice_attrs *s)
{
	const struct npu_attr_slice *raw = &op->attrs->slice;
	unsigned int d;

	for (d = 0; d < NPU_TENSOR_MAX_DIMS; d++) {
		s->starts[d] = le64toh(raw->starts[d]);
		s->steps[d] = le64toh(raw->steps[d]);
	}
}

/* Every index taken, start + i * step for i < y's dim, lies in x. */
static int slice_check(const struct oplib_op *op)
{
	const struct npu_attr_slice *raw = &op->attrs->slice;
	const struct oplib_tensor *x = &op->t[0], *y = oplib_out(op);
	unsigned int d;
	int err;

	err = oplib_strided_only(x);
	if (!err)
		err = oplib_strided_only(y);
	if (err)
		return err;
	if (x->ndims != y->ndims)
		return NPU_ERR_OP_PARAM;
	for (d = 0; d < NPU_TENSOR_MAX_DIMS; d++) {
		uint64_t start = le64toh(raw->starts[d]);
		int64_t step = le64toh(raw->steps[d]);
		__int128 last;

		if (d >= x->ndims) {
			if (start || step)
				return NPU_ERR_RESERVED;
			continue;
		}
		if (!step)
			return NPU_ERR_OP_PARAM;
		if (!y->dims[d])
			continue;
		last = (__int128)start + (__int128)(y->dims[d] - 1) * step;
		if (start >= (uint64_t)x->dims[d] || last < 0 ||
		    last >= x->dims[d])
			return NPU_ERR_OP_PARAM;
	}
	return x->dtype == y->dtype ? NPU_ERR_NONE : NPU_ERR_OPERATOR;
}

static bool slice_loop(const struct oplib_op *op,
		       const struct oplib_step *step, uint8_t *const *bufs,
		       const struct oplib_hooks *hooks)
{
	const struct oplib_tensor *x = &op->t[0], *y = oplib_out(op);
	size_t esize = oplib_dtype_size(y->dtype);
	int64_t idx[NPU_TENSOR_MAX_DIMS] = { 0 }, from[NPU_TENSOR_MAX_DIMS];
	struct slice_attrs s;
	unsigned int d;
	uint64_t count = 0;

	slice_decode(op, &s);
	do {
		for (d = 0; d < y->ndims; d++)
			from[d] = s.starts[d] + idx[d] * s.steps[d];
		memcpy(bufs[step->out] + oplib_offset(y, idx) * esize,
		       bufs[step->in] + oplib_offset(x, from) * esize, esize);
		if (!oplib_loop_go_on(hooks, &count))
			return false;
	} while (oplib_index_next(idx, y->dims, y->ndims));
	return true;
}

static int slice_plan(struct oplib *lib, const struct oplib_op *op,
		      struct oplib_plan *plan)
{
	const struct oplib_tensor *x = &op->t[0], *y = oplib_out(op);
	int64_t strides[NPU_TENSOR_MAX_DIMS];
	uint64_t offset = 0;
	struct slice_attrs s;
	dnnl_memory_desc_t md;
	unsigned int view, out, d;
	int err;

	slice_decode(op, &s);
	for (d = 0; d < x->ndims; d++) {
		/* an axis that takes one element has no step to speak of */
		if (y->dims[d] > 1 && s.steps[d] < 0)
			return oplib_plan_loop(plan, slice_loop, 0,
					       op->num_inputs, NULL);
		strides[d] = y->dims[d] > 1 ? x->strides[d] * s.steps[d] :
					      x->strides[d];
		offset += s.starts[d] * x->strides[d];
	}
	err = oplib_md_copy(&md, x->ndims, y->dims, strides, x->dtype);
	if (!err)
		err = oplib_plan_view(plan, 0, offset * oplib_dtype_size(x->dtype),
				      &md, &view);
	if (!err)
		err = oplib_plan_copy_tensor(plan, op, 1, &out);
	if (!err)
		err = oplib_plan_reorder(lib, plan, view, out);
	return err;
}

const struct oplib_family oplib_concat_family = {
	.empty_inputs_ok = true,
	.check = concat_check,
	.plan = concat_plan,
};

const struct oplib_family oplib_transpose_family = {
	.reads_broadcast = true,
	.check = transpose_check,
	.plan = transpose_plan,
};

const struct oplib_family oplib_slice_family = {
	.reads_broadcast = true,
	.check = slice_check,
	.plan = slice_plan,
};

const struct oplib_family oplib_cast_family = {
	.reads_broadcast = true,
	.check = cast_check,
	.plan = cast_plan,
};
