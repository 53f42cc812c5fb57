// SPDX-License-Identifier: GPL-2.0
/*
 * RMSNORM: each slice over the axes from @axis to the last is divided by
 * its root mean square and scaled by gamma.  oneDNN 2.6's layer
 * normalization always subtracts the mean, so this is a loop: a pass that
 * sums the squares (in double, for long slices) and a pass that writes.
 *
 * The common case, float32 slices that lie dense in memory (a language
 * model's rows), has a loop of its own: vectors of partial sums, each
 * lane's squares summed in float32 a block at a time and the blocks in
 * double, and the rows shared between the engine's threads.
 */
#include <math.h>
#include <omp.h>

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

/* Squares summed in float lanes this many at a time, then in double. */
#define RMS_BLOCK	512

static double rms_sum_squares(const float *x, int64_t n)
{
	const int64_t lanes = OPLIB_VF32_LANES;
	double sum = 0;
	int64_t i = 0;
	unsigned int l;

	while (i + 2 * lanes <= n) {
		int64_t end = i + RMS_BLOCK < n ? i + RMS_BLOCK : n;
		oplib_vf32 a = { 0 }, b = { 0 };

		for (; i + 2 * lanes <= end; i += 2 * lanes) {
			oplib_vf32 u = oplib_vf32_load(x + i), v = oplib_vf32_load(x + i + lanes);

			a += u * u;
			b += v * v;
		}
		for (l = 0; l < OPLIB_VF32_LANES; l++)
			sum += (double)a[l] + b[l];
	}
	for (; i < n; i++)
		sum += (double)x[i] * x[i];
	return sum;
}

static void rms_scale_row(const float *x, const float *gamma, float r, float *y,
			  int64_t n)
{
	int64_t i = 0;

	for (; i + (int64_t)OPLIB_VF32_LANES <= n; i += OPLIB_VF32_LANES) {
		oplib_vf32 v = oplib_vf32_load(x + i) * r * oplib_vf32_load(gamma + i);

		memcpy(y + i, &v, sizeof(v));
	}
	for (; i < n; i++)
		y[i] = x[i] * r * gamma[i];
}

/* The slice from @axis on lies dense: @t's innermost elements, row-major. */
static bool rms_dense_inner(const struct oplib_tensor *t, unsigned int axis)
{
	int64_t stride = 1;
	unsigned int d;

	for (d = t->ndims; d-- > axis;) {
		if (t->dims[d] != 1 && t->strides[d] != stride)
			return false;
		stride *= t->dims[d];
	}
	return true;
}

static bool rms_rows_apply(const struct oplib_op *op)
{
	const struct oplib_tensor *x = &op->t[0], *gamma = &op->t[1];
	const struct oplib_tensor *y = oplib_out(op);
	unsigned int axis = oplib_u32(op->attrs->norm.axis);

	return x->dtype == NPU_DTYPE_F32 && gamma->dtype == NPU_DTYPE_F32 &&
	       y->dtype == NPU_DTYPE_F32 && x->format == NPU_FORMAT_STRIDED &&
	       y->format == NPU_FORMAT_STRIDED && rms_dense_inner(x, axis) &&
	       rms_dense_inner(y, axis) && rms_dense_inner(gamma, 0);
}

/* Row @row's first element, rows numbered row-major over the outer axes. */
static int64_t rms_row_offset(const struct oplib_tensor *t, unsigned int axis,
			      uint64_t row)
{
	int64_t off = 0;
	unsigned int d;

	for (d = axis; d-- > 0;) {
		off += (int64_t)(row % (uint64_t)t->dims[d]) * t->strides[d];
		row /= (uint64_t)t->dims[d];
	}
	return off;
}

/* Every so many rows a thread asks whether the operator is abandoned. */
#define RMS_ROWS_PER_ASK	64

static bool rmsnorm_rows_loop(const struct oplib_op *op,
			      const struct oplib_step *step,
			      uint8_t *const *bufs,
			      const struct oplib_hooks *hooks)
{
	const struct oplib_tensor *x = &op->t[0], *y = oplib_out(op);
	unsigned int axis = oplib_u32(op->attrs->norm.axis);
	float epsilon = oplib_f32(op->attrs->norm.epsilon);
	const float *gamma = (const float *)bufs[1];
	uint64_t rows = x->nelems / op->t[1].nelems;
	int64_t n = (int64_t)op->t[1].nelems, r;
	bool act = !oplib_act_is_none(&step->act), stop = false;

#pragma omp parallel for schedule(static)
	for (r = 0; r < (int64_t)rows; r++) {
		const float *xr;
		float *yr;
		float inv;
		int64_t i;

		if (__atomic_load_n(&stop, __ATOMIC_RELAXED))
			continue;
		if (hooks && r % RMS_ROWS_PER_ASK == RMS_ROWS_PER_ASK - 1 &&
		    hooks->abandoned(hooks->ctx)) {
			__atomic_store_n(&stop, true, __ATOMIC_RELAXED);
			continue;
		}
		xr = (const float *)bufs[0] + rms_row_offset(x, axis, r);
		yr = (float *)bufs[step->out] + rms_row_offset(y, axis, r);
		inv = 1 / sqrt(rms_sum_squares(xr, n) / n + epsilon);
		rms_scale_row(xr, gamma, inv, yr, n);
		for (i = 0; act && i < n; i++)
			yr[i] = oplib_act_apply(&step->act, yr[i]);
	}
	return !stop;
}

static int rmsnorm_plan(struct oplib *lib, const struct oplib_op *op,
			struct oplib_plan *plan)
{
	struct oplib_act act;

	(void)lib;
	oplib_act_decode(&op->attrs->norm.act, &act);
	return oplib_plan_loop(plan, rms_rows_apply(op) ? rmsnorm_rows_loop :
			       rmsnorm_loop, 0, op->num_inputs, &act);
}

const struct oplib_family oplib_rmsnorm_family = {
	.check = rmsnorm_check,
	.plan = rmsnorm_plan,
};
