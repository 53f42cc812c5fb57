// SPDX-License-Identifier: GPL-2.0
/*
 * Normalizations: BATCHNORM (inference, with the given statistics),
 * LAYERNORM and SOFTMAX, with oneDNN's primitives of the same names.
 *
 * oneDNN's batch and layer normalization write the layout they read, so
 * when x and y are laid out differently x is copied into y first and the
 * primitive runs in place.  Layer normalization normalizes over one last
 * axis: x is seen as (outer, inner), which its strides allow unless it is
 * gapped, and then it goes through a dense copy.  Their parameters are
 * float32, whatever x is.
 */
#include "oplib_impl.h"

/* oneDNN's batch normalization takes N, C and up to three spatial axes. */
#define BNORM_MAX_RANK		5

static int param_check(const struct oplib_tensor *p, unsigned int ndims,
		       const int64_t *dims)
{
	int err = oplib_strided_only(p);

	if (err)
		return err;
	if (p->ndims != ndims || memcmp(p->dims, dims, ndims * sizeof(*dims)))
		return NPU_ERR_OP_PARAM;
	return p->dtype == NPU_DTYPE_F32 ? NPU_ERR_NONE : NPU_ERR_OPERATOR;
}

/* x and y have one shape and type. */
static int data_check(const struct oplib_op *op)
{
	const struct oplib_tensor *x = &op->t[0], *y = oplib_out(op);

	if (!oplib_same_dims(x, y))
		return NPU_ERR_OP_PARAM;
	return x->dtype == y->dtype ? NPU_ERR_NONE : NPU_ERR_OPERATOR;
}

static int batchnorm_check(const struct oplib_op *op)
{
	const struct npu_attr_norm *raw = &op->attrs->norm;
	const struct oplib_tensor *x = &op->t[0];
	struct oplib_act act;
	unsigned int i;
	int err;

	/* the channel axis is 1: axis is LAYERNORM's */
	if (raw->axis)
		return NPU_ERR_RESERVED;
	err = oplib_act_decode(&raw->act, &act);
	if (!err)
		err = data_check(op);
	if (err)
		return err;
	if (x->ndims < 2)
		return NPU_ERR_OP_PARAM;
	for (i = 1; i < 5 && !err; i++)
		err = param_check(&op->t[i], 1, &x->dims[1]);
	return err;
}

/*
 * The source the primitive reads: x, or y after x is copied into it when
 * their layouts differ (the primitive writes the layout it reads).
 */
static int norm_source(struct oplib *lib, struct oplib_plan *plan,
		       unsigned int x, unsigned int y, unsigned int *src)
{
	if (dnnl_memory_desc_equal(&plan->views[x].md, &plan->views[y].md)) {
		*src = x;
		return NPU_ERR_NONE;
	}
	*src = y;
	return oplib_plan_reorder(lib, plan, x, y);
}

/* A float32 parameter vector, dense as oneDNN wants it. */
static int param_view(struct oplib *lib, struct oplib_plan *plan,
		      const struct oplib_op *op, unsigned int tensor,
		      int64_t len, unsigned int *view)
{
	const struct oplib_tensor *p = &op->t[tensor];
	dnnl_memory_desc_t want;
	unsigned int user, flat;
	int err;

	err = oplib_plan_tensor(plan, op, tensor, &user);
	if (!err)
		err = oplib_plan_reshape(lib, plan, user, 1, &len, false, &flat,
					 NULL);
	if (!err)
		err = oplib_md_dense(&want, 1, &len, p->dtype);
	if (!err)
		err = oplib_plan_input(lib, plan, flat, &want, view);
	return err;
}

/*
 * x and y reshaped to @dims (@ndims 0: as they are).  *src and *dst are
 * what the primitive reads and writes, *y the output's own view and *home
 * where the result lands, for oplib_plan_output_done(*y, *home).
 */
static int norm_shape(struct oplib *lib, struct oplib_plan *plan,
		      const struct oplib_op *op, unsigned int ndims,
		      const int64_t *dims, unsigned int *src,
		      unsigned int *dst, unsigned int *y, unsigned int *home)
{
	unsigned int x, in;
	int err;

	err = oplib_plan_tensor(plan, op, 0, &x);
	if (!err)
		err = oplib_plan_tensor(plan, op, op->num_inputs, y);
	if (!err)
		err = norm_source(lib, plan, x, *y, &in);
	if (err)
		return err;
	if (!ndims) {
		*src = in;
		*dst = *y;
		*home = *y;
		return NPU_ERR_NONE;
	}
	err = oplib_plan_reshape(lib, plan, in, ndims, dims, false, src, NULL);
	if (!err)
		err = oplib_plan_reshape(lib, plan, *y, ndims, dims, true, dst,
					 home);
	return err;
}

static int batchnorm_plan(struct oplib *lib, const struct oplib_op *op,
			  struct oplib_plan *plan)
{
	static const int args[] = { DNNL_ARG_SRC, DNNL_ARG_DST, DNNL_ARG_SCALE,
				    DNNL_ARG_SHIFT, DNNL_ARG_MEAN,
				    DNNL_ARG_VARIANCE };
	const struct npu_attr_norm *raw = &op->attrs->norm;
	const struct oplib_tensor *x = &op->t[0];
	unsigned int flags = dnnl_use_global_stats | dnnl_use_scale |
			     dnnl_use_shift;
	unsigned int views[6], y, home, i;
	int64_t dims[3] = { x->dims[0], x->dims[1], 1 };
	dnnl_batch_normalization_desc_t desc;
	dnnl_primitive_desc_t pd;
	struct oplib_act act;
	int err;

	oplib_act_decode(&raw->act, &act);
	for (i = 2; i < x->ndims; i++)
		dims[2] *= x->dims[i];
	err = norm_shape(lib, plan, op, x->ndims > BNORM_MAX_RANK ? 3 : 0,
			 dims, &views[0], &views[1], &y, &home);
	/* scale, bias, mean, var: tensors 1 to 4 */
	for (i = 0; i < 4 && !err; i++)
		err = param_view(lib, plan, op, 1 + i, x->dims[1],
				 &views[2 + i]);
	if (err)
		return err;
	if (act.kind == NPU_UNARY_RELU)
		flags |= dnnl_fuse_norm_relu;
	err = oplib_status(dnnl_batch_normalization_forward_desc_init(&desc,
				dnnl_forward_inference,
				&plan->views[views[0]].md,
				oplib_f32(raw->epsilon), flags));
	if (!err)
		err = oplib_pd_create(&pd, &desc, NULL, lib);
	if (!err)
		err = oplib_plan_primitive(plan, pd, 6, args, views);
	if (!err)
		err = oplib_plan_output_done(lib, plan, y, home);
	if (!err && act.kind != NPU_UNARY_RELU)
		err = oplib_plan_act(lib, plan, op->num_inputs, y, &act);
	return err;
}

static int layernorm_check(const struct oplib_op *op)
{
	const struct npu_attr_norm *raw = &op->attrs->norm;
	const struct oplib_tensor *x = &op->t[0];
	uint32_t axis = oplib_u32(raw->axis);
	struct oplib_act act;
	unsigned int i;
	int err;

	err = oplib_act_decode(&raw->act, &act);
	for (i = 0; i < op->num_tensors && !err; i++)
		err = oplib_strided_only(&op->t[i]);
	if (!err)
		err = data_check(op);
	if (err)
		return err;
	if (axis >= x->ndims)
		return NPU_ERR_OP_PARAM;
	for (i = 1; i < op->num_inputs && !err; i++)
		err = param_check(&op->t[i], x->ndims - axis, &x->dims[axis]);
	return err;
}

static int layernorm_plan(struct oplib *lib, const struct oplib_op *op,
			  struct oplib_plan *plan)
{
	static const int args[] = { DNNL_ARG_SRC, DNNL_ARG_DST, DNNL_ARG_SCALE,
				    DNNL_ARG_SHIFT };
	const struct npu_attr_norm *raw = &op->attrs->norm;
	const struct oplib_tensor *x = &op->t[0];
	bool with_bias = op->num_inputs == 3;
	unsigned int flags = dnnl_use_scale | (with_bias ? dnnl_use_shift : 0);
	unsigned int axis = oplib_u32(raw->axis), views[4], home, y, i;
	dnnl_layer_normalization_desc_t desc;
	int64_t dims[2] = { 1, 1 };
	dnnl_primitive_desc_t pd;
	struct oplib_act act;
	int err;

	oplib_act_decode(&raw->act, &act);
	for (i = 0; i < x->ndims; i++)
		dims[i >= axis] *= x->dims[i];
	err = norm_shape(lib, plan, op, 2, dims, &views[0], &views[1], &y,
			 &home);
	for (i = 1; i < op->num_inputs && !err; i++)
		err = param_view(lib, plan, op, i, dims[1], &views[1 + i]);
	if (err)
		return err;
	err = oplib_status(dnnl_layer_normalization_forward_desc_init(&desc,
				dnnl_forward_inference,
				&plan->views[views[0]].md, NULL,
				oplib_f32(raw->epsilon), flags));
	if (!err)
		err = oplib_pd_create(&pd, &desc, NULL, lib);
	if (!err)
		err = oplib_plan_primitive(plan, pd, with_bias ? 4 : 3, args,
					   views);
	if (!err)
		err = oplib_plan_output_done(lib, plan, y, home);
	if (!err)
		err = oplib_plan_act(lib, plan, op->num_inputs, y, &act);
	return err;
}

static int softmax_check(const struct oplib_op *op)
{
	const struct npu_attr_softmax *raw = &op->attrs->softmax;
	int err = data_check(op);

	if (err)
		return err;
	if (oplib_u32(raw->axis) >= op->t[0].ndims || oplib_u32(raw->log) > 1)
		return NPU_ERR_OP_PARAM;
	return NPU_ERR_NONE;
}

static int softmax_plan(struct oplib *lib, const struct oplib_op *op,
			struct oplib_plan *plan)
{
	static const int args[] = { DNNL_ARG_SRC, DNNL_ARG_DST };
	const struct npu_attr_softmax *raw = &op->attrs->softmax;
	dnnl_alg_kind_t alg = oplib_u32(raw->log) ? dnnl_softmax_log :
						     dnnl_softmax_accurate;
	dnnl_softmax_v2_desc_t desc;
	dnnl_primitive_desc_t pd;
	unsigned int views[2];
	int err;

	if (oplib_softmax_rows_apply(op))
		return oplib_plan_loop(plan, oplib_softmax_rows_loop, 0, 1, NULL);
	err = oplib_plan_tensor(plan, op, 0, &views[0]);
	if (!err)
		err = oplib_plan_tensor(plan, op, 1, &views[1]);
	if (!err)
		err = oplib_status(dnnl_softmax_v2_forward_desc_init(&desc,
				dnnl_forward_inference, alg,
				&plan->views[views[0]].md,
				&plan->views[views[1]].md,
				oplib_u32(raw->axis)));
	if (!err)
		err = oplib_pd_create(&pd, &desc, NULL, lib);
	if (!err)
		err = oplib_plan_primitive(plan, pd, 2, args, views);
	return err;
}

const struct oplib_family oplib_batchnorm_family = {
	.check = batchnorm_check,
	.plan = batchnorm_plan,
};

const struct oplib_family oplib_layernorm_family = {
	.check = layernorm_check,
	.plan = layernorm_plan,
};

const struct oplib_family oplib_softmax_family = {
	.check = softmax_check,
	.plan = softmax_plan,
};
