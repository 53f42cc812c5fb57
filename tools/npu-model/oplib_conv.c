// SPDX-License-Identifier: GPL-2.0
/*
 * CONV2D and CONV_TRANSPOSE2D, with oneDNN's convolution and deconvolution.
 *
 * x is (N, C, H, W), strided or NCHW16C; y likewise.  CONV2D's weights are
 * (O, C / group, KH, KW); CONV_TRANSPOSE2D's are ONNX's (C, O / group, KH,
 * KW), which the weights view reorders into oneDNN's (group, O / group,
 * C / group, KH, KW) by strides alone.
 *
 * x and y are taken as they are when oneDNN has a fast kernel for their
 * layout; otherwise the primitive chooses (format "any") and the plan
 * reorders x in and y out.  Plain weights are reordered into the kernel's
 * layout on every run, since device memory may change between runs;
 * weights a compiler laid out in OIHW16I16O are read as they are when the
 * kernel wants that layout, as oneDNN's AVX-512 kernels do.
 *
 * CONV2D's optional fourth input s is added to the convolution before the
 * activation (a residual connection), as oneDNN's sum post-op: the
 * primitive adds what its destination holds, so s is copied there first,
 * unless s already is that memory (a compiler that gives y the bytes of
 * s), when the copy is left out at run time.
 */
#include "oplib_impl.h"

/* The library's limit on spatial sizes, channels and attributes. */
#define CONV_MAX_SIZE		(1 << 24)

/* oneDNN reads its dims arguments as whole dnnl_dims_t arrays */
struct conv_attrs {
	dnnl_dims_t strides;
	dnnl_dims_t dilations;
	dnnl_dims_t pads_begin;
	dnnl_dims_t pads_end;
	int64_t group;
	struct oplib_act act;
};

/* Channels of y: O. */
static int64_t conv_out_channels(const struct oplib_op *op, bool transpose,
				 int64_t group)
{
	const struct oplib_tensor *w = &op->t[1];

	return transpose ? w->dims[1] * group : w->dims[0];
}

static int conv_check_tensors(const struct oplib_op *op, bool transpose,
			      int64_t group)
{
	const struct oplib_tensor *x = &op->t[0], *w = &op->t[1];
	const struct oplib_tensor *y = oplib_out(op);
	const struct oplib_tensor *b = op->num_inputs >= 3 ? &op->t[2] : NULL;
	const struct oplib_tensor *s = op->num_inputs == 4 ? &op->t[3] : NULL;
	int64_t c = x->dims[1], o;
	unsigned int i;
	int err;

	/* weights laid out for the kernel: a plain convolution's */
	if (w->format == NPU_FORMAT_OIHW16I16O)
		err = transpose || group != 1 ? NPU_ERR_OPERATOR : NPU_ERR_NONE;
	else
		err = oplib_strided_only(w);
	if (!err && b)
		err = oplib_strided_only(b);
	if (err)
		return err;
	if (x->ndims != 4 || w->ndims != 4 || y->ndims != 4 ||
	    (b && b->ndims != 1))
		return NPU_ERR_OP_PARAM;
	if (s && !oplib_same_dims(s, y))
		return NPU_ERR_OP_PARAM;
	if (s && s->dtype != y->dtype)
		return NPU_ERR_OPERATOR;
	if (w->dtype != x->dtype || y->dtype != x->dtype ||
	    (b && b->dtype != x->dtype && b->dtype != NPU_DTYPE_F32))
		return NPU_ERR_OPERATOR;
	for (i = 0; i < 4; i++)
		if (x->dims[i] > CONV_MAX_SIZE || w->dims[i] > CONV_MAX_SIZE ||
		    y->dims[i] > CONV_MAX_SIZE)
			return NPU_ERR_OPERATOR;

	o = conv_out_channels(op, transpose, group);
	if (c % group || o % group || y->dims[0] != x->dims[0] ||
	    y->dims[1] != o || (b && b->dims[0] != o))
		return NPU_ERR_OP_PARAM;
	if (transpose ? w->dims[0] != c : w->dims[1] * group != c)
		return NPU_ERR_OP_PARAM;
	return NPU_ERR_NONE;
}

/*
 * The padding at the end of axis i that makes the sizes agree.  Any value
 * in [lo, lo + stride - 1] gives the same windows; it must be more than
 * -stride, or a whole window of input would be left out, and we pick the
 * one nearest 0.
 */
static int conv_end_pad(const struct oplib_op *op, bool transpose,
			struct conv_attrs *a, unsigned int i)
{
	const struct oplib_tensor *x = &op->t[0], *w = &op->t[1];
	int64_t in = x->dims[2 + i], out = oplib_out(op)->dims[2 + i];
	int64_t k = w->dims[2 + i], s = a->strides[i];
	__int128 ext = (__int128)(k - 1) * a->dilations[i] + 1;
	__int128 lo, hi;

	if (in < 1 || out < 1 || k < 1)
		return NPU_ERR_OP_PARAM;
	if (transpose)
		lo = (__int128)(in - 1) * s + ext - out - a->pads_begin[i];
	else
		lo = (__int128)(out - 1) * s + ext - in - a->pads_begin[i];
	hi = lo + s - 1;
	if (hi < 1 - s)
		return NPU_ERR_OP_PARAM;
	if (ext > CONV_MAX_SIZE || lo > CONV_MAX_SIZE)
		return NPU_ERR_OPERATOR;
	a->pads_end[i] = lo > 0 ? lo : hi < 0 ? hi : 0;
	return NPU_ERR_NONE;
}

static int conv_decode(const struct oplib_op *op, bool transpose,
		       struct conv_attrs *a)
{
	const struct npu_attr_conv *raw = &op->attrs->conv;
	unsigned int i;
	int err;

	err = oplib_act_decode(&raw->act, &a->act);
	if (err)
		return err;
	if (raw->rsvd)
		return NPU_ERR_RESERVED;
	a->group = oplib_u32(raw->group);
	if (!a->group)
		return NPU_ERR_OP_PARAM;
	for (i = 0; i < 2; i++) {
		a->strides[i] = oplib_u32(raw->strides[i]);
		a->dilations[i] = oplib_u32(raw->dilations[i]);
		a->pads_begin[i] = oplib_u32(raw->pads_begin[i]);
		if (!a->strides[i] || !a->dilations[i])
			return NPU_ERR_OP_PARAM;
		if (a->strides[i] > CONV_MAX_SIZE ||
		    a->dilations[i] > CONV_MAX_SIZE ||
		    a->pads_begin[i] > CONV_MAX_SIZE)
			return NPU_ERR_OPERATOR;
	}
	if (a->group > CONV_MAX_SIZE)
		return NPU_ERR_OPERATOR;
	err = conv_check_tensors(op, transpose, a->group);
	for (i = 0; i < 2 && !err; i++)
		err = conv_end_pad(op, transpose, a, i);
	return err;
}

/*
 * The weights as oneDNN indexes them: (O, C, KH, KW), or with groups
 * (group, O / group, C / group, KH, KW), over the tensor's own strides.
 */
static int conv_weights_md(const struct oplib_op *op, bool transpose,
			   int64_t g, dnnl_memory_desc_t *md)
{
	const struct oplib_tensor *w = &op->t[1];
	const int64_t *s = w->strides;
	int64_t c = op->t[0].dims[1], o = conv_out_channels(op, transpose, g);

	if (w->format == NPU_FORMAT_OIHW16I16O)
		return oplib_tensor_md(w, md);
	if (g == 1) {
		int64_t dims[4] = { o, c, w->dims[2], w->dims[3] };
		int64_t conv[4] = { s[0], s[1], s[2], s[3] };
		int64_t deconv[4] = { s[1], s[0], s[2], s[3] };

		return oplib_md_strided(md, 4, dims, transpose ? deconv : conv,
					w->dtype);
	} else {
		int64_t dims[5] = { g, o / g, c / g, w->dims[2], w->dims[3] };
		int64_t conv[5] = { s[0] * (o / g), s[0], s[1], s[2], s[3] };
		int64_t deconv[5] = { s[0] * (c / g), s[1], s[0], s[2], s[3] };

		return oplib_md_strided(md, 5, dims, transpose ? deconv : conv,
					w->dtype);
	}
}

/* The tensor's own layout, or "any": whatever the primitive likes. */
static void conv_want_md(const dnnl_memory_desc_t *user, bool any,
			 dnnl_memory_desc_t *md)
{
	if (!any)
		*md = *user;
	else
		dnnl_memory_desc_init_by_tag(md, user->ndims, user->dims,
					     user->data_type,
					     dnnl_format_tag_any);
}

static int conv_pd(struct oplib *lib, const struct oplib_op *op,
		   bool transpose, const struct conv_attrs *a,
		   const dnnl_memory_desc_t *user, bool any_data,
		   dnnl_primitive_attr_t attr, dnnl_primitive_desc_t *pd)
{
	dnnl_memory_desc_t src, wei, dst;
	const dnnl_memory_desc_t *bias = op->num_inputs >= 3 ? &user[2] : NULL;
	dnnl_dims_t dil = { a->dilations[0] - 1, a->dilations[1] - 1 };
	union {
		dnnl_convolution_desc_t conv;
		dnnl_deconvolution_desc_t deconv;
	} desc;
	dnnl_status_t status;

	conv_want_md(&user[0], any_data, &src);
	conv_want_md(&user[1], true, &wei);
	conv_want_md(&user[3], any_data, &dst);
	if (transpose)
		status = dnnl_dilated_deconvolution_forward_desc_init(
				&desc.deconv, dnnl_forward_inference,
				dnnl_deconvolution_direct, &src, &wei, bias,
				&dst, a->strides, dil, a->pads_begin,
				a->pads_end);
	else
		status = dnnl_dilated_convolution_forward_desc_init(
				&desc.conv, dnnl_forward_inference,
				dnnl_convolution_direct, &src, &wei, bias,
				&dst, a->strides, dil, a->pads_begin,
				a->pads_end);
	if (status != dnnl_success)
		return oplib_status(status);
	return oplib_pd_create(pd, &desc, attr, lib);
}

/*
 * x and y as they are, if oneDNN has a fast kernel for them: reordering a
 * whole activation in and out costs more than a plain-layout kernel loses
 * (a 64-channel 56x56 3x3 convolution: 2 ms against 14).  Otherwise
 * whatever layouts the primitive likes, with the reorders.  Weights
 * are always reordered: they are small.
 */
static int conv_pd_choose(struct oplib *lib, const struct oplib_op *op,
			  bool transpose, const struct conv_attrs *a,
			  const dnnl_memory_desc_t *user,
			  dnnl_primitive_attr_t attr, dnnl_primitive_desc_t *pd)
{
	dnnl_primitive_desc_t any;
	int err;

	err = conv_pd(lib, op, transpose, a, user, false, attr, pd);
	if (!err && !oplib_pd_is_ref(*pd))
		return NPU_ERR_NONE;
	if (conv_pd(lib, op, transpose, a, user, true, attr, &any))
		return err;
	if (!err)
		dnnl_primitive_desc_destroy(*pd);
	*pd = any;
	return NPU_ERR_NONE;
}

/* Views of x, w, b, y and s as the user laid them out; absent: unused. */
static int conv_user_views(struct oplib_plan *plan, const struct oplib_op *op,
			   bool transpose, int64_t group,
			   dnnl_memory_desc_t *md, unsigned int *view)
{
	unsigned int y = op->num_inputs;
	int err;

	err = oplib_plan_tensor(plan, op, 0, &view[0]);
	if (!err)
		err = conv_weights_md(op, transpose, group, &md[1]);
	if (!err)
		err = oplib_plan_view(plan, 1, 0, &md[1], &view[1]);
	if (!err && op->num_inputs >= 3)
		err = oplib_plan_tensor(plan, op, 2, &view[2]);
	if (!err)
		err = oplib_plan_tensor(plan, op, y, &view[3]);
	if (!err && op->num_inputs == 4)
		err = oplib_plan_tensor(plan, op, 3, &view[4]);
	if (err)
		return err;
	md[0] = plan->views[view[0]].md;
	if (op->num_inputs >= 3)
		md[2] = plan->views[view[2]].md;
	md[3] = plan->views[view[3]].md;
	return NPU_ERR_NONE;
}

static int conv_bind(struct oplib *lib, struct oplib_plan *plan,
		     const_dnnl_primitive_desc_t pd, bool with_bias,
		     const unsigned int *user, unsigned int *bound)
{
	static const int args[] = { DNNL_ARG_SRC, DNNL_ARG_WEIGHTS,
				    DNNL_ARG_BIAS };
	unsigned int i;
	int err;

	for (i = 0; i < 3; i++) {
		if (i == 2 && !with_bias)
			break;
		err = oplib_plan_input(lib, plan, user[i],
				       oplib_pd_md(pd, args[i]), &bound[i]);
		if (err)
			return err;
	}
	return oplib_plan_output(plan, user[3], oplib_pd_md(pd, DNNL_ARG_DST),
				 &bound[3]);
}

/*
 * The summand copied to where the primitive writes, which the sum post-op
 * then adds to; left out at run time when it is there already.
 */
static int conv_plan_summand(struct oplib *lib, struct oplib_plan *plan,
			     unsigned int summand, unsigned int dst)
{
	int err = oplib_plan_reorder(lib, plan, summand, dst);

	if (!err)
		plan->steps[plan->nsteps - 1].skip_in_place =
			dnnl_memory_desc_equal(&plan->views[summand].md,
					       &plan->views[dst].md);
	return err;
}

static int conv_plan_common(struct oplib *lib, const struct oplib_op *op,
			    struct oplib_plan *plan, bool transpose)
{
	static const int args[] = { DNNL_ARG_SRC, DNNL_ARG_WEIGHTS,
				    DNNL_ARG_DST, DNNL_ARG_BIAS };
	bool with_bias = op->num_inputs >= 3, fused = true;
	bool summand = op->num_inputs == 4;
	dnnl_memory_desc_t user_md[4];
	unsigned int user[5], bound[4], views[4];
	dnnl_primitive_attr_t attr;
	dnnl_primitive_desc_t pd;
	struct conv_attrs a;
	int err;

	conv_decode(op, transpose, &a);
	err = conv_user_views(plan, op, transpose, a.group, user_md, user);
	if (err)
		return err;
	if (dnnl_primitive_attr_create(&attr) != dnnl_success)
		return NPU_ERR_OP_FAILED;
	if (summand)
		err = oplib_sum_act_post_ops(&a.act, attr, &fused);
	else
		err = oplib_act_post_ops(&a.act, attr, &fused);
	if (!err)
		err = conv_pd_choose(lib, op, transpose, &a, user_md, attr, &pd);
	dnnl_primitive_attr_destroy(attr);
	if (err)
		return err;

	err = conv_bind(lib, plan, pd, with_bias, user, bound);
	if (!err && summand)
		err = conv_plan_summand(lib, plan, user[4], bound[3]);
	if (err) {
		dnnl_primitive_desc_destroy(pd);
		return err;
	}
	views[0] = bound[0];
	views[1] = bound[1];
	views[2] = bound[3];
	views[3] = bound[2];
	err = oplib_plan_primitive(plan, pd, with_bias ? 4 : 3, args, views);
	if (!err)
		err = oplib_plan_output_done(lib, plan, user[3], bound[3]);
	if (!err && !fused)
		err = oplib_plan_act(lib, plan, op->num_inputs, user[3], &a.act);
	return err;
}

static int conv2d_check(const struct oplib_op *op)
{
	struct conv_attrs a;

	return conv_decode(op, false, &a);
}

static int conv2d_plan(struct oplib *lib, const struct oplib_op *op,
		       struct oplib_plan *plan)
{
	return conv_plan_common(lib, op, plan, false);
}

static int conv_transpose2d_check(const struct oplib_op *op)
{
	struct conv_attrs a;

	return conv_decode(op, true, &a);
}

static int conv_transpose2d_plan(struct oplib *lib, const struct oplib_op *op,
				 struct oplib_plan *plan)
{
	return conv_plan_common(lib, op, plan, true);
}

const struct oplib_family oplib_conv2d_family = {
	.min_inputs = 2,
	.max_inputs = 4,
	.attr_size = sizeof(struct npu_attr_conv),
	.check = conv2d_check,
	.plan = conv2d_plan,
};

const struct oplib_family oplib_conv_transpose2d_family = {
	.min_inputs = 2,
	.max_inputs = 3,
	.attr_size = sizeof(struct npu_attr_conv),
	.check = conv_transpose2d_check,
	.plan = conv_transpose2d_plan,
};
