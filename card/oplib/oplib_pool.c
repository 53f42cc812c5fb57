// SPDX-License-Identifier: GPL-2.0
/*
 * POOL2D: max and average pooling with oneDNN's pooling (v2, which has
 * dilations).  x and y are (N, C, H, W), strided or NCHW16C.
 *
 * As for convolutions, y's H and W fix the padding at the end, which is
 * how ceil mode arrives; global pooling is a kernel of the whole plane.
 * Every window must overlap x (each pad is smaller than the kernel's
 * extent), or an average over no element would divide by zero.
 */
#include "oplib_impl.h"

#define POOL_MAX_SIZE		(1 << 24)

/* oneDNN reads its dims arguments as whole dnnl_dims_t arrays */
struct pool_attrs {
	uint32_t kind;
	dnnl_dims_t kernel;
	dnnl_dims_t strides;
	dnnl_dims_t dilations;
	dnnl_dims_t pads_begin;
	dnnl_dims_t pads_end;
};

static int pool_end_pad(const struct oplib_op *op, struct pool_attrs *p,
			unsigned int i)
{
	int64_t in = op->t[0].dims[2 + i], out = oplib_out(op)->dims[2 + i];
	int64_t s = p->strides[i];
	int64_t ext = (p->kernel[i] - 1) * p->dilations[i] + 1;
	int64_t lo, hi;

	if (in < 1 || out < 1 || in > POOL_MAX_SIZE || out > POOL_MAX_SIZE)
		return in > POOL_MAX_SIZE || out > POOL_MAX_SIZE ?
		       NPU_ERR_OPERATOR : NPU_ERR_OP_PARAM;
	if (ext > POOL_MAX_SIZE)
		return NPU_ERR_OPERATOR;
	/* the sizes fit in 2^24, so nothing here overflows */
	lo = (out - 1) * s + ext - in - p->pads_begin[i];
	hi = lo + s - 1;
	if (hi < 1 - s || p->pads_begin[i] >= ext || lo >= ext)
		return NPU_ERR_OP_PARAM;
	p->pads_end[i] = lo > 0 ? lo : hi < 0 ? hi : 0;
	return NPU_ERR_NONE;
}

static int pool_decode(const struct oplib_op *op, struct pool_attrs *p)
{
	const struct npu_attr_pool *raw = &op->attrs->pool;
	const struct oplib_tensor *x = &op->t[0], *y = oplib_out(op);
	unsigned int i;
	int err = NPU_ERR_NONE;

	p->kind = oplib_u32(raw->kind);
	if (p->kind > NPU_POOL_AVG_EXCLUDE_PAD)
		return NPU_ERR_OPERATOR;
	if (raw->rsvd)
		return NPU_ERR_RESERVED;
	for (i = 0; i < 2; i++) {
		p->kernel[i] = oplib_u32(raw->kernel[i]);
		p->strides[i] = oplib_u32(raw->strides[i]);
		p->dilations[i] = oplib_u32(raw->dilations[i]);
		p->pads_begin[i] = oplib_u32(raw->pads_begin[i]);
		if (!p->kernel[i] || !p->strides[i] || !p->dilations[i])
			return NPU_ERR_OP_PARAM;
		if (p->kernel[i] > POOL_MAX_SIZE ||
		    p->strides[i] > POOL_MAX_SIZE ||
		    p->dilations[i] > POOL_MAX_SIZE ||
		    p->pads_begin[i] > POOL_MAX_SIZE)
			return NPU_ERR_OPERATOR;
	}
	if (x->ndims != 4 || y->ndims != 4)
		return NPU_ERR_OP_PARAM;
	if (x->dtype != y->dtype)
		return NPU_ERR_OPERATOR;
	if (x->dims[0] != y->dims[0] || x->dims[1] != y->dims[1])
		return NPU_ERR_OP_PARAM;
	if (x->dims[0] > POOL_MAX_SIZE || x->dims[1] > POOL_MAX_SIZE)
		return NPU_ERR_OPERATOR;
	for (i = 0; i < 2 && !err; i++)
		err = pool_end_pad(op, p, i);
	return err;
}

static int pool2d_check(const struct oplib_op *op)
{
	struct pool_attrs p;

	return pool_decode(op, &p);
}

/*
 * y in x's layout: oneDNN's fast kernels pool within one layout, and its
 * reference code is slow.  A y in the other layout (a blocked network's
 * last pooling, read by a Flatten) is written through a reorder.
 */
static int pool_dst_md(const struct oplib_op *op, dnnl_memory_desc_t *md)
{
	const struct oplib_tensor *x = &op->t[0], *y = &op->t[1];
	dnnl_dims_t dims = { y->dims[0], y->dims[1], y->dims[2], y->dims[3] };

	if (x->format == y->format || oplib_dnnl_dtype(y->dtype) == dnnl_data_type_undef)
		return oplib_tensor_md(y, md);
	return oplib_status(dnnl_memory_desc_init_by_tag(md, 4, dims,
				oplib_dnnl_dtype(y->dtype),
				x->format == NPU_FORMAT_NCHW16C ?
				dnnl_nChw16c : dnnl_nchw));
}

static int pool2d_plan(struct oplib *lib, const struct oplib_op *op,
		       struct oplib_plan *plan)
{
	static const dnnl_alg_kind_t algs[] = {
		[NPU_POOL_MAX]			= dnnl_pooling_max,
		[NPU_POOL_AVG_INCLUDE_PAD]	= dnnl_pooling_avg_include_padding,
		[NPU_POOL_AVG_EXCLUDE_PAD]	= dnnl_pooling_avg_exclude_padding,
	};
	static const int args[] = { DNNL_ARG_SRC, DNNL_ARG_DST };
	dnnl_pooling_v2_desc_t desc;
	dnnl_primitive_desc_t pd;
	struct pool_attrs p;
	dnnl_memory_desc_t dst;
	unsigned int views[2], user_y;
	dnnl_dims_t dil = { 0 };
	int err;

	pool_decode(op, &p);
	dil[0] = p.dilations[0] - 1;
	dil[1] = p.dilations[1] - 1;
	err = oplib_plan_tensor(plan, op, 0, &views[0]);
	if (!err)
		err = oplib_plan_tensor(plan, op, 1, &user_y);
	if (!err)
		err = pool_dst_md(op, &dst);
	if (!err)
		err = oplib_plan_output(plan, user_y, &dst, &views[1]);
	if (!err)
		err = oplib_status(dnnl_pooling_v2_forward_desc_init(&desc,
				dnnl_forward_inference, algs[p.kind],
				&plan->views[views[0]].md,
				&plan->views[views[1]].md, p.strides,
				p.kernel, dil, p.pads_begin, p.pads_end));
	if (!err)
		err = oplib_pd_create(&pd, &desc, NULL, lib);
	if (err)
		return err;
	err = oplib_plan_primitive(plan, pd, 2, args, views);
	if (!err)
		err = oplib_plan_output_done(lib, plan, user_y, views[1]);
	return err;
}

const struct oplib_family oplib_pool2d_family = {
	.check = pool2d_check,
	.plan = pool2d_plan,
};
