// SPDX-License-Identifier: GPL-2.0
/*
 * GROUPNORM: x (N, C, ...) normalized over each group of C / groups
 * channels and all their spatial elements, then scaled and shifted per
 * channel.  oneDNN 2.6 has no group normalization, so this is a loop:
 * over each group a pass for the mean, one for the variance (two passes
 * in double, which a large group needs) and one that writes.  x and y may
 * be NCHW16C, the padding channels of y left 0.
 *
 * Dense float32 x and y (a group's elements then lie in one run) have a
 * loop of their own: the same three passes over vectors, summed in float
 * lanes a block at a time and the blocks in double, and the groups shared
 * between the engine's threads.
 */
#include <math.h>
#include <omp.h>

#include "oplib_impl.h"

static uint32_t groupnorm_groups(const struct oplib_op *op)
{
	return oplib_u32(op->attrs->groupnorm.groups);
}

/* gamma and beta: strided vectors of C floats */
static int groupnorm_param_check(const struct oplib_tensor *p, int64_t c)
{
	int err = oplib_strided_only(p);

	if (err)
		return err;
	if (oplib_dtype_is_int(p->dtype))
		return NPU_ERR_OPERATOR;
	return p->ndims == 1 && p->dims[0] == c ? NPU_ERR_NONE : NPU_ERR_OP_PARAM;
}

static int groupnorm_check(const struct oplib_op *op)
{
	const struct npu_attr_groupnorm *raw = &op->attrs->groupnorm;
	const struct oplib_tensor *x = &op->t[0], *y = oplib_out(op);
	float epsilon = oplib_f32(raw->epsilon);
	uint32_t groups = groupnorm_groups(op);
	struct oplib_act act;
	int err;

	err = oplib_act_decode(&raw->act, &act);
	if (err)
		return err;
	if (oplib_dtype_is_int(x->dtype) || y->dtype != x->dtype)
		return NPU_ERR_OPERATOR;
	if (x->ndims < 2 || !oplib_same_dims(x, y))
		return NPU_ERR_OP_PARAM;
	err = groupnorm_param_check(&op->t[1], x->dims[1]);
	if (!err)
		err = groupnorm_param_check(&op->t[2], x->dims[1]);
	if (err)
		return err;
	if (!groups || x->dims[1] % groups)
		return NPU_ERR_OP_PARAM;
	/* also false for NaN */
	if (!(epsilon >= 0 && isfinite(epsilon)))
		return NPU_ERR_OP_PARAM;
	return NPU_ERR_NONE;
}

/* The next element of a group: spatial axes first, then the channel. */
static bool group_next(const struct oplib_tensor *x, int64_t *idx,
		       int64_t c_end)
{
	if (oplib_index_next(idx + 2, x->dims + 2, x->ndims - 2))
		return true;
	return ++idx[1] < c_end;
}

struct group_stats {
	double mean;
	double inv_std;		/* 1 / sqrt(var + epsilon) */
};

/*
 * One pass over the group of channels from at[1] to c_end, batch at[0]:
 * the sum of x - @mean, or of its square.  False if the operator was
 * abandoned meanwhile.
 */
static bool group_sum(const struct oplib_op *op, uint8_t *const *bufs,
		      const int64_t *at, int64_t c_end, double mean, bool square,
		      const struct oplib_hooks *hooks, uint64_t *count,
		      double *sum, uint64_t *n)
{
	const struct oplib_tensor *x = &op->t[0];
	size_t xs = oplib_dtype_size(x->dtype);
	int64_t idx[NPU_TENSOR_MAX_DIMS];

	memcpy(idx, at, sizeof(idx));
	*sum = 0;
	*n = 0;
	do {
		double v = oplib_load(bufs[0] + oplib_offset(x, idx) * xs,
				      x->dtype) - mean;

		*sum += square ? v * v : v;
		++*n;
		if (!oplib_loop_go_on(hooks, count))
			return false;
	} while (group_next(x, idx, c_end));
	return true;
}

/* The group's mean and biased variance, in two passes for accuracy. */
static bool group_stats(const struct oplib_op *op, uint8_t *const *bufs,
			const int64_t *at, int64_t c_end,
			const struct oplib_hooks *hooks, uint64_t *count,
			struct group_stats *s)
{
	double sum;
	uint64_t n;

	if (!group_sum(op, bufs, at, c_end, 0, false, hooks, count, &sum, &n))
		return false;
	s->mean = sum / n;
	if (!group_sum(op, bufs, at, c_end, s->mean, true, hooks, count, &sum, &n))
		return false;
	s->inv_std = 1 / sqrt(sum / n + oplib_f32(op->attrs->groupnorm.epsilon));
	return true;
}

static float param_at(const struct oplib_op *op, uint8_t *const *bufs,
		      unsigned int tensor, int64_t c)
{
	const struct oplib_tensor *p = &op->t[tensor];

	return oplib_load(bufs[tensor] + oplib_offset(p, &c) *
			  oplib_dtype_size(p->dtype), p->dtype);
}

/* Normalizes one group; false if the operator was abandoned. */
static bool group_write(const struct oplib_op *op,
			const struct oplib_step *step, uint8_t *const *bufs,
			const int64_t *at, int64_t c_end,
			const struct oplib_hooks *hooks, uint64_t *count)
{
	const struct oplib_tensor *x = &op->t[0], *y = oplib_out(op);
	size_t xs = oplib_dtype_size(x->dtype);
	int64_t idx[NPU_TENSOR_MAX_DIMS];
	struct group_stats s;

	if (!group_stats(op, bufs, at, c_end, hooks, count, &s))
		return false;
	memcpy(idx, at, sizeof(idx));
	do {
		double v = oplib_load(bufs[0] + oplib_offset(x, idx) * xs, x->dtype);
		float z = (v - s.mean) * s.inv_std;

		z = z * param_at(op, bufs, 1, idx[1]) + param_at(op, bufs, 2, idx[1]);
		oplib_store(bufs[step->out] + oplib_offset(y, idx) * xs, y->dtype,
			    oplib_act_apply(&step->act, z));
		if (!oplib_loop_go_on(hooks, count))
			return false;
	} while (group_next(x, idx, c_end));
	return true;
}

static bool groupnorm_loop(const struct oplib_op *op,
			   const struct oplib_step *step, uint8_t *const *bufs,
			   const struct oplib_hooks *hooks)
{
	const struct oplib_tensor *y = oplib_out(op);
	int64_t per_group = y->dims[1] / groupnorm_groups(op);
	int64_t at[NPU_TENSOR_MAX_DIMS] = { 0 }, n, c;
	uint64_t count = 0;

	for (n = 0; n < y->dims[0]; n++)
		for (c = 0; c < y->dims[1]; c += per_group) {
			at[0] = n;
			at[1] = c;
			if (!group_write(op, step, bufs, at, c + per_group, hooks,
					 &count))
				return false;
		}
	oplib_zero_padding(y, bufs[step->out]);
	return true;
}

/* ---- dense float32 ------------------------------------------------------- */

/* Values summed in float lanes this many at a time, then in double. */
#define GN_BLOCK	512

/* The sum of (x - mean), or of its square, over n dense floats. */
static double gn_sum(const float *x, int64_t n, float mean, bool square)
{
	const int64_t lanes = OPLIB_VF32_LANES;
	oplib_vf32 m = { 0 };
	double sum = 0;
	int64_t i = 0;
	unsigned int l;

	m += mean;
	while (i + lanes <= n) {
		int64_t end = i + GN_BLOCK < n ? i + GN_BLOCK : n;
		oplib_vf32 a = { 0 };

		for (; i + lanes <= end; i += lanes) {
			oplib_vf32 v = oplib_vf32_load(x + i) - m;

			a += square ? v * v : v;
		}
		for (l = 0; l < OPLIB_VF32_LANES; l++)
			sum += a[l];
	}
	for (; i < n; i++)
		sum += square ? ((double)x[i] - mean) * (x[i] - mean) : (double)x[i] - mean;
	return sum;
}

/* y = x * a + b over n dense floats. */
static void gn_scale(const float *x, float a, float b, float *y, int64_t n)
{
	int64_t i = 0;

	for (; i + (int64_t)OPLIB_VF32_LANES <= n; i += OPLIB_VF32_LANES) {
		oplib_vf32 v = oplib_vf32_load(x + i) * a + b;

		memcpy(y + i, &v, sizeof(v));
	}
	for (; i < n; i++)
		y[i] = x[i] * a + b;
}

/* Dense F32, row-major: each group one run of per_group * spatial elements. */
static bool gn_dense_applies(const struct oplib_op *op)
{
	const struct oplib_tensor *x = &op->t[0], *y = oplib_out(op);
	unsigned int i;

	for (i = 0; i < op->num_tensors; i++)
		if (op->t[i].dtype != NPU_DTYPE_F32 || op->t[i].format != NPU_FORMAT_STRIDED)
			return false;
	return oplib_dense(x) && oplib_dense(y) && oplib_dense(&op->t[1]) &&
	       oplib_dense(&op->t[2]);
}

/* Every so many groups a thread asks whether the operator is abandoned. */
#define GN_GROUPS_PER_ASK	16

static void gn_group(const struct oplib_op *op, const struct oplib_step *step,
		     uint8_t *const *bufs, int64_t g, int64_t per_group, int64_t spatial)
{
	int64_t channels = op->t[0].dims[1], len = per_group * spatial;
	int64_t c0 = g % (channels / per_group) * per_group, c;
	const float *x = (const float *)bufs[0] + g * len;
	const float *gamma = (const float *)bufs[1], *beta = (const float *)bufs[2];
	float *y = (float *)bufs[step->out] + g * len;
	double mean = gn_sum(x, len, 0, false) / len;
	double inv = 1 / sqrt(gn_sum(x, len, mean, true) / len +
			      oplib_f32(op->attrs->groupnorm.epsilon));
	int64_t i;

	for (c = 0; c < per_group; c++) {
		float a = inv * gamma[c0 + c];

		gn_scale(x + c * spatial, a, beta[c0 + c] - mean * a, y + c * spatial, spatial);
	}
	for (i = 0; !oplib_act_is_none(&step->act) && i < len; i++)
		y[i] = oplib_act_apply(&step->act, y[i]);
}

static bool groupnorm_dense_loop(const struct oplib_op *op,
				 const struct oplib_step *step, uint8_t *const *bufs,
				 const struct oplib_hooks *hooks)
{
	const struct oplib_tensor *x = &op->t[0];
	int64_t per_group = x->dims[1] / groupnorm_groups(op);
	int64_t groups = x->dims[0] * groupnorm_groups(op), g;
	int64_t spatial = (int64_t)(x->nelems / (uint64_t)(x->dims[0] * x->dims[1]));
	bool stop = false;

#pragma omp parallel for schedule(static)
	for (g = 0; g < groups; g++) {
		if (__atomic_load_n(&stop, __ATOMIC_RELAXED))
			continue;
		if (hooks && g % GN_GROUPS_PER_ASK == GN_GROUPS_PER_ASK - 1 &&
		    hooks->abandoned(hooks->ctx)) {
			__atomic_store_n(&stop, true, __ATOMIC_RELAXED);
			continue;
		}
		gn_group(op, step, bufs, g, per_group, spatial);
	}
	return !stop;
}

static int groupnorm_plan(struct oplib *lib, const struct oplib_op *op,
			  struct oplib_plan *plan)
{
	struct oplib_act act;

	(void)lib;
	oplib_act_decode(&op->attrs->groupnorm.act, &act);
	return oplib_plan_loop(plan, gn_dense_applies(op) ? groupnorm_dense_loop :
			       groupnorm_loop, 0, op->num_inputs, &act);
}

const struct oplib_family oplib_groupnorm_family = {
	.check = groupnorm_check,
	.plan = groupnorm_plan,
};
