// SPDX-License-Identifier: GPL-2.0
/*
 * Elementwise functions: the UNARY operator, and the activations other
 * operators fuse (struct npu_activation).
 *
 * Each function is one or two oneDNN eltwise algorithms, which fuse into a
 * convolution, matmul or binary primitive as post-ops; HARDSIGMOID is
 * linear then clip, NEG is linear, RSQRT is a power.
 * oneDNN 2.6 has no erf, sine or cosine, and nothing that compares x with
 * a parameter, so those functions are loops, run on the output after the
 * primitive when they are activations.
 */
#include <math.h>

#include "oplib_impl.h"

#define USES_ALPHA	0x1
#define USES_BETA	0x2

/* The parameters each function reads; the others must be 0. */
static const uint8_t act_params[NPU_UNARY_LAST + 1] = {
	[NPU_UNARY_CLIP]	= USES_ALPHA | USES_BETA,
	[NPU_UNARY_HARDSIGMOID]	= USES_ALPHA | USES_BETA,
	[NPU_UNARY_LEAKY_RELU]	= USES_ALPHA,
	[NPU_UNARY_ELU]		= USES_ALPHA,
	[NPU_UNARY_THRESHOLD]	= USES_ALPHA | USES_BETA,
	[NPU_UNARY_SOFTPLUS_BETA] = USES_ALPHA | USES_BETA,
};

int oplib_act_decode(const struct npu_activation *raw, struct oplib_act *act)
{
	uint8_t uses;

	act->kind = oplib_u32(raw->kind);
	act->alpha = oplib_f32(raw->alpha);
	act->beta = oplib_f32(raw->beta);
	if (act->kind > NPU_UNARY_LAST)
		return NPU_ERR_OPERATOR;
	if (raw->rsvd)
		return NPU_ERR_RESERVED;
	uses = act_params[act->kind];
	if ((!(uses & USES_ALPHA) && raw->alpha) ||
	    (!(uses & USES_BETA) && raw->beta))
		return NPU_ERR_RESERVED;
	/* the clip bounds the range; also false for NaN */
	if (act->kind == NPU_UNARY_CLIP && !(act->alpha <= act->beta))
		return NPU_ERR_OP_PARAM;
	/* it divides by alpha */
	if (act->kind == NPU_UNARY_SOFTPLUS_BETA &&
	    (act->alpha == 0 || !isfinite(act->alpha)))
		return NPU_ERR_OP_PARAM;
	return NPU_ERR_NONE;
}

bool oplib_act_is_none(const struct oplib_act *act)
{
	return act->kind == NPU_UNARY_NONE;
}

/*
 * The scalar definition, for loops: in double, which F64 needs and which
 * the float types round from once.
 */
double oplib_act_apply_f64(const struct oplib_act *act, double x)
{
	switch (act->kind) {
	case NPU_UNARY_NONE:
		return x;
	case NPU_UNARY_RELU:
		return x > 0 ? x : x * 0.0;
	case NPU_UNARY_CLIP:
		return x < act->alpha ? act->alpha : x > act->beta ? act->beta : x;
	case NPU_UNARY_SIGMOID:
		return 1.0 / (1.0 + exp(-x));
	case NPU_UNARY_HARDSIGMOID:
		return fmax(0.0, fmin(1.0, act->alpha * x + act->beta));
	case NPU_UNARY_HARDSWISH:
		return x * fmax(0.0, fmin(1.0, x / 6.0 + 0.5));
	case NPU_UNARY_LEAKY_RELU:
		return x > 0 ? x : x * act->alpha;
	case NPU_UNARY_TANH:
		return tanh(x);
	case NPU_UNARY_EXP:
		return exp(x);
	case NPU_UNARY_LOG:
		return log(x);
	case NPU_UNARY_SQRT:
		return sqrt(x);
	case NPU_UNARY_ABS:
		return fabs(x);
	case NPU_UNARY_NEG:
		return -x;
	case NPU_UNARY_ERF:
		return erf(x);
	case NPU_UNARY_GELU:
		return 0.5 * x * (1.0 + erf(x * M_SQRT1_2));
	case NPU_UNARY_ELU:
		return x > 0 ? x : act->alpha * expm1(x);
	case NPU_UNARY_SOFTPLUS:
		return x > 20.0 ? x : log1p(exp(x));
	case NPU_UNARY_SIN:
		return sin(x);
	case NPU_UNARY_COS:
		return cos(x);
	case NPU_UNARY_RSQRT:
		return 1.0 / sqrt(x);
	case NPU_UNARY_SILU:
		return x / (1.0 + exp(-x));
	case NPU_UNARY_GELU_TANH:
		return 0.5 * x * (1.0 + tanh(0.7978845608028654 *
					     (x + 0.044715 * x * x * x)));
	case NPU_UNARY_SIGN:
		return x > 0 ? 1.0 : x < 0 ? -1.0 : x;
	case NPU_UNARY_THRESHOLD:
		return x > act->alpha ? x : act->beta;
	case NPU_UNARY_SOFTPLUS_BETA:
		return x * act->alpha > act->beta ? x :
		       log1p(exp(act->alpha * x)) / act->alpha;
	case NPU_UNARY_LOGICAL_NOT:
		return x == 0 ? 1.0 : 0.0;
	case NPU_UNARY_RECIPROCAL:
		return 1.0 / x;
	}
	return x;
}

float oplib_act_apply(const struct oplib_act *act, float x)
{
	return (float)oplib_act_apply_f64(act, x);
}

struct eltwise_alg {
	dnnl_alg_kind_t alg;
	float alpha;
	float beta;
};

/*
 * The oneDNN algorithms computing act, in order: how many (0 for the
 * identity), or -1 when only a loop can.
 */
static int act_algs(const struct oplib_act *act, struct eltwise_alg *algs)
{
	static const dnnl_alg_kind_t plain[NPU_UNARY_LAST + 1] = {
		[NPU_UNARY_RELU]	= dnnl_eltwise_relu,
		[NPU_UNARY_SIGMOID]	= dnnl_eltwise_logistic,
		[NPU_UNARY_HARDSWISH]	= dnnl_eltwise_hardswish,
		[NPU_UNARY_TANH]	= dnnl_eltwise_tanh,
		[NPU_UNARY_EXP]		= dnnl_eltwise_exp,
		[NPU_UNARY_SQRT]	= dnnl_eltwise_sqrt,
		[NPU_UNARY_ABS]		= dnnl_eltwise_abs,
		[NPU_UNARY_GELU]	= dnnl_eltwise_gelu_erf,
		[NPU_UNARY_SOFTPLUS]	= dnnl_eltwise_soft_relu,
		[NPU_UNARY_GELU_TANH]	= dnnl_eltwise_gelu_tanh,
	};

	switch (act->kind) {
	case NPU_UNARY_NONE:
		return 0;
	case NPU_UNARY_ERF:
	case NPU_UNARY_SIN:
	case NPU_UNARY_COS:
	case NPU_UNARY_SIGN:
	case NPU_UNARY_THRESHOLD:
	case NPU_UNARY_SOFTPLUS_BETA:
	case NPU_UNARY_LOGICAL_NOT:
	/* oneDNN's pow makes 1 / -0 +inf where IEEE has -inf */
	case NPU_UNARY_RECIPROCAL:
		return -1;
	case NPU_UNARY_RSQRT:
		algs[0] = (struct eltwise_alg){ dnnl_eltwise_pow, 1.0f, -0.5f };
		return 1;
	case NPU_UNARY_SILU:
		algs[0] = (struct eltwise_alg){ dnnl_eltwise_swish, 1.0f, 0.0f };
		return 1;
	/*
	 * oneDNN's log is a polynomial that gives log(1) = -1.4e-6, outside
	 * ONNX's atol of 1e-7 for Log; the loop's logf is exact there.
	 */
	case NPU_UNARY_LOG:
		return -1;
	case NPU_UNARY_CLIP:
		algs[0] = (struct eltwise_alg){ dnnl_eltwise_clip,
						act->alpha, act->beta };
		return 1;
	case NPU_UNARY_HARDSIGMOID:
		algs[0] = (struct eltwise_alg){ dnnl_eltwise_linear,
						act->alpha, act->beta };
		algs[1] = (struct eltwise_alg){ dnnl_eltwise_clip, 0.0f, 1.0f };
		return 2;
	case NPU_UNARY_LEAKY_RELU:
		algs[0] = (struct eltwise_alg){ dnnl_eltwise_relu,
						act->alpha, 0.0f };
		return 1;
	case NPU_UNARY_NEG:
		algs[0] = (struct eltwise_alg){ dnnl_eltwise_linear, -1.0f,
						0.0f };
		return 1;
	case NPU_UNARY_ELU:
		algs[0] = (struct eltwise_alg){ dnnl_eltwise_elu, act->alpha,
						0.0f };
		return 1;
	}
	algs[0] = (struct eltwise_alg){ plain[act->kind], 0.0f, 0.0f };
	return 1;
}

/*
 * Fuse act into a primitive's attributes.  *fused false: it cannot be,
 * and the caller runs oplib_plan_act() on the output afterwards.
 */
/* A sum post-op first if @sum, then the activation's eltwise ones. */
static int post_ops(const struct oplib_act *act, bool sum,
		    dnnl_primitive_attr_t attr, bool *fused)
{
	struct eltwise_alg algs[2];
	dnnl_post_ops_t po;
	dnnl_status_t status = dnnl_success;
	int n = act_algs(act, algs), i;

	*fused = n >= 0;
	if (n <= 0 && !sum)
		return NPU_ERR_NONE;
	if (dnnl_post_ops_create(&po) != dnnl_success)
		return NPU_ERR_OP_FAILED;
	if (sum)
		status = dnnl_post_ops_append_sum(po, 1.0f);
	for (i = 0; i < n && status == dnnl_success; i++)
		status = dnnl_post_ops_append_eltwise(po, 1.0f, algs[i].alg,
						      algs[i].alpha,
						      algs[i].beta);
	if (status == dnnl_success)
		status = dnnl_primitive_attr_set_post_ops(attr, po);
	dnnl_post_ops_destroy(po);
	return oplib_status(status);
}

int oplib_act_post_ops(const struct oplib_act *act, dnnl_primitive_attr_t attr,
		       bool *fused)
{
	return post_ops(act, false, attr, fused);
}

int oplib_sum_act_post_ops(const struct oplib_act *act,
			   dnnl_primitive_attr_t attr, bool *fused)
{
	return post_ops(act, true, attr, fused);
}

/* float32 x and y laid out alike without gaps: no index arithmetic. */
static bool act_dense_f32(const struct oplib_tensor *x,
			  const struct oplib_tensor *y)
{
	return x->dtype == NPU_DTYPE_F32 && y->dtype == NPU_DTYPE_F32 &&
	       oplib_dense(x) && oplib_dense(y);
}

/* Applies step->act to tensor step->in, writing tensor step->out. */
static bool act_loop(const struct oplib_op *op,
		     const struct oplib_step *step, uint8_t *const *bufs,
		     const struct oplib_hooks *hooks)
{
	const struct oplib_tensor *x = &op->t[step->in], *y = &op->t[step->out];
	size_t xsize = oplib_dtype_size(x->dtype);
	size_t ysize = oplib_dtype_size(y->dtype);
	int64_t idx[NPU_TENSOR_MAX_DIMS] = { 0 };
	bool f64 = x->dtype == NPU_DTYPE_F64 || y->dtype == NPU_DTYPE_F64;
	uint64_t count = 0, i;

	if (act_dense_f32(x, y)) {
		/* the checks aligned both to their element */
		const float *in = (const float *)bufs[step->in];
		float *out = (float *)bufs[step->out];

		for (i = 0; i < y->nelems; i++) {
			out[i] = oplib_act_apply(&step->act, in[i]);
			if (!oplib_loop_go_on(hooks, &count))
				return false;
		}
		return true;
	}
	do {
		const uint8_t *in = bufs[step->in] + oplib_offset(x, idx) * xsize;
		uint8_t *out = bufs[step->out] + oplib_offset(y, idx) * ysize;

		if (f64)
			oplib_store_f64(out, y->dtype,
					oplib_act_apply_f64(&step->act,
							    oplib_load_f64(in, x->dtype)));
		else
			oplib_store(out, y->dtype,
				    oplib_act_apply(&step->act,
						    oplib_load(in, x->dtype)));
		if (!oplib_loop_go_on(hooks, &count))
			return false;
	} while (oplib_index_next(idx, y->dims, y->ndims));
	oplib_zero_padding(y, bufs[step->out]);
	return true;
}

static int plan_eltwise(struct oplib *lib, struct oplib_plan *plan,
			const struct eltwise_alg *alg, unsigned int src,
			unsigned int dst)
{
	static const int args[] = { DNNL_ARG_SRC, DNNL_ARG_DST };
	const unsigned int views[] = { src, dst };
	dnnl_eltwise_desc_t desc;
	dnnl_primitive_desc_t pd;
	int err;

	err = oplib_status(dnnl_eltwise_forward_desc_init(&desc,
				dnnl_forward_inference, alg->alg,
				&plan->views[src].md, alg->alpha, alg->beta));
	if (!err)
		err = oplib_pd_create(&pd, &desc, NULL, lib);
	if (err)
		return err;
	return oplib_plan_primitive(plan, pd, 2, args, views);
}

/* Apply act in place to tensor @tensor, seen through @view. */
int oplib_plan_act(struct oplib *lib, struct oplib_plan *plan,
		   unsigned int tensor, unsigned int view,
		   const struct oplib_act *act)
{
	struct eltwise_alg algs[2];
	int n = act_algs(act, algs), i, err = NPU_ERR_NONE;

	if (n < 0)
		return oplib_plan_loop(plan, act_loop, tensor, tensor, act);
	for (i = 0; i < n && !err; i++)
		err = plan_eltwise(lib, plan, &algs[i], view, view);
	return err;
}

/* UNARY: y = fn(x), x and y of one shape and type. */
static int unary_check(const struct oplib_op *op)
{
	const struct oplib_tensor *x = &op->t[0], *y = oplib_out(op);
	struct oplib_act fn;
	int err = oplib_act_decode(&op->attrs->unary.fn, &fn);

	if (err)
		return err;
	if (x->dtype != y->dtype)
		return NPU_ERR_OPERATOR;
	if (!oplib_same_dims(x, y))
		return NPU_ERR_OP_PARAM;
	return NPU_ERR_NONE;
}

/* ABS and NEG of integers, exactly, saturated into y's type. */
static bool int_sign_loop(const struct oplib_op *op,
			  const struct oplib_step *step, uint8_t *const *bufs,
			  const struct oplib_hooks *hooks)
{
	const struct oplib_tensor *x = &op->t[step->in], *y = &op->t[step->out];
	size_t size = oplib_dtype_size(y->dtype);
	int64_t idx[NPU_TENSOR_MAX_DIMS] = { 0 };
	uint64_t count = 0;

	do {
		int64_t v = oplib_load_int(bufs[step->in] + oplib_offset(x, idx) * size,
					   x->dtype);

		if (step->act.kind == NPU_UNARY_NEG || v < 0)
			v = v == INT64_MIN ? INT64_MAX : -v;
		oplib_store_int(bufs[step->out] + oplib_offset(y, idx) * size,
				y->dtype, v);
		if (!oplib_loop_go_on(hooks, &count))
			return false;
	} while (oplib_index_next(idx, y->dims, y->ndims));
	oplib_zero_padding(y, bufs[step->out]);
	return true;
}

/* The identity: a copy, of any type. */
static int unary_copy_plan(struct oplib *lib, const struct oplib_op *op,
			   struct oplib_plan *plan)
{
	unsigned int x, y;
	int err;

	err = oplib_plan_copy_tensor(plan, op, 0, &x);
	if (!err)
		err = oplib_plan_copy_tensor(plan, op, op->num_inputs, &y);
	if (!err)
		err = oplib_plan_reorder(lib, plan, x, y);
	return err;
}

static int unary_plan(struct oplib *lib, const struct oplib_op *op,
		      struct oplib_plan *plan)
{
	struct eltwise_alg algs[2];
	unsigned int x, y;
	struct oplib_act fn;
	int n, i, err;

	oplib_act_decode(&op->attrs->unary.fn, &fn);
	n = act_algs(&fn, algs);
	if (n == 0)
		return unary_copy_plan(lib, op, plan);
	/* oneDNN computes in float, which would round large integers */
	if (oplib_dtype_is_int(op->t[0].dtype) &&
	    (fn.kind == NPU_UNARY_ABS || fn.kind == NPU_UNARY_NEG))
		return oplib_plan_loop(plan, int_sign_loop, 0, op->num_inputs, &fn);
	if (n < 0 || oplib_dnnl_dtype(op->t[0].dtype) == dnnl_data_type_undef)
		return oplib_plan_loop(plan, act_loop, 0, op->num_inputs, &fn);

	err = oplib_plan_tensor(plan, op, 0, &x);
	if (!err)
		err = oplib_plan_tensor(plan, op, op->num_inputs, &y);
	if (err)
		return err;
	/* oneDNN's eltwise writes the layout it reads: else copy first */
	if (!dnnl_memory_desc_equal(&plan->views[x].md,
					      &plan->views[y].md)) {
		err = oplib_plan_reorder(lib, plan, x, y);
		x = y;
	}
	for (i = 0; i < n && !err; i++) {
		err = plan_eltwise(lib, plan, &algs[i], x, y);
		x = y;
	}
	return err;
}

const struct oplib_family oplib_unary_family = {
	.check = unary_check,
	.plan = unary_plan,
};
