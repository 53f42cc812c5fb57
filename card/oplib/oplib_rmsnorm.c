// SPDX-License-Identifier: GPL-2.0
/*
 * RMSNORM: each slice over the axes from @axis to the last is divided by
 * its root mean square and scaled by gamma.  oneDNN 2.6's layer
 * normalization always subtracts the mean, so this is a loop: a pass that
 * sums the squares (in double, for long slices) and a pass that writes.
 */
#include <math.h>

#include "oplib_impl.h"

static int rmsnorm_check(const struct oplib_op *op)
{
	const struct npu_attr_norm *raw = &op->attrs->norm;
	const struct oplib_tensor *x = &op->t[0], *gamma = &op->t[1];
	const struct oplib_tensor *y = oplib_out(op);
	uint32_t axis = oplib_u32(raw->axis);
	float epsilon = oplib_f32(raw->epsilon);
	struct oplib_act act;
	unsigned int i;
	int err;

	err = oplib_act_decode(&raw->act, &act);
	for (i = 0; i < op->num_tensors && !err; i++)
		err = oplib_strided_only(&op->t[i]);
	if (err)
		return err;
	if (oplib_dtype_is_int(x->dtype) || y->dtype != x->dtype ||
	    oplib_dtype_is_int(gamma->dtype))
		return NPU_ERR_OPERATOR;
	if (!oplib_same_dims(x, y) || axis >= x->ndims ||
	    gamma->ndims != x->ndims - axis ||
	    memcmp(gamma->dims, &x->dims[axis], gamma->ndims * sizeof(x->dims[0])))
		return NPU_ERR_OP_PARAM;
	/* also false for NaN */
	if (!(epsilon >= 0 && isfinite(epsilon)))
		return NPU_ERR_OP_PARAM;
	return NPU_ERR_NONE;
}

/*
 * *r: 1 / the root mean square of the slice at outer index idx[0..axis);
 * false if the operator was abandoned meanwhile.
 */
static bool rms_inverse(const struct oplib_op *op, uint8_t *const *bufs,
			int64_t *idx, const struct oplib_hooks *hooks,
			uint64_t *count, float *r)
{
	const struct oplib_tensor *x = &op->t[0];
	unsigned int axis = oplib_u32(op->attrs->norm.axis);
	size_t xs = oplib_dtype_size(x->dtype);
	uint64_t n = 0;
	double sum = 0;

	do {
		double v = oplib_load(bufs[0] + oplib_offset(x, idx) * xs, x->dtype);

		sum += v * v;
		n++;
		if (!oplib_loop_go_on(hooks, count))
			return false;
	} while (oplib_index_next(idx + axis, x->dims + axis, x->ndims - axis));
	*r = 1 / sqrt(sum / n + oplib_f32(op->attrs->norm.epsilon));
	return true;
}

static bool rmsnorm_loop(const struct oplib_op *op,
			 const struct oplib_step *step, uint8_t *const *bufs,
			 const struct oplib_hooks *hooks)
{
	const struct npu_attr_norm *raw = &op->attrs->norm;
	const struct oplib_tensor *x = &op->t[0], *gamma = &op->t[1];
	const struct oplib_tensor *y = oplib_out(op);
	size_t xs = oplib_dtype_size(x->dtype), gs = oplib_dtype_size(gamma->dtype);
	unsigned int axis = oplib_u32(raw->axis);
	int64_t idx[NPU_TENSOR_MAX_DIMS] = { 0 };
	uint64_t count = 0;
	float r;

	do {
		if (!rms_inverse(op, bufs, idx, hooks, &count, &r))
			return false;
		do {
			float v = oplib_load(bufs[0] + oplib_offset(x, idx) * xs,
					     x->dtype);
			float g = oplib_load(bufs[1] + oplib_offset(gamma, idx + axis) *
					     gs, gamma->dtype);

			oplib_store(bufs[step->out] + oplib_offset(y, idx) * xs,
				    y->dtype, oplib_act_apply(&step->act, v * r * g));
			if (!oplib_loop_go_on(hooks, &count))
				return false;
		} while (oplib_index_next(idx + axis, x->dims + axis,
					  x->ndims - axis));
	} while (oplib_index_next(idx, x->dims, axis));
	return true;
}

static int rmsnorm_plan(struct oplib *lib, const struct oplib_op *op,
			struct oplib_plan *plan)
{
	struct oplib_act act;

	(void)lib;
	oplib_act_decode(&op->attrs->norm.act, &act);
	return oplib_plan_loop(plan, rmsnorm_loop, 0, op->num_inputs, &act);
}

const struct oplib_family oplib_rmsnorm_family = {
	.check = rmsnorm_check,
	.plan = rmsnorm_plan,
};
