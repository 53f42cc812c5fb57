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
 *
 * PACK_CONV2D lays weights out once for one CONV2D, which then reads them
 * as they are: in the layout of the fastest kernel for its shapes,
 * Winograd's transformed weights where oneDNN has it (3x3, stride 1),
 * behind a header naming the convolution and this library.  Both sides
 * choose the kernel with the same function of the convolution's
 * descriptor, so the choice is made again, never stored: the header only
 * says that the bytes were packed for that choice.
 */
#include "oplib_impl.h"

/* The library's limit on spatial sizes, channels and attributes. */
#define CONV_MAX_SIZE		(1 << 24)

/* The header PACK_CONV2D writes at the start of a PACKED tensor. */
#define PACK_MAGIC		0x574b504e	/* "NPKW" */
#define PACK_VERSION		1

struct pack_header {
	uint32_t magic;
	uint32_t version;
	uint64_t key;		/* the convolution and kernel (conv_pack_key) */
	uint64_t size;		/* bytes of weights after the header */
	uint64_t check;		/* FNV-1a of the fields above */
};

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
	else if (w->format == NPU_FORMAT_PACKED)
		err = transpose ? NPU_ERR_OPERATOR : NPU_ERR_NONE;
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
	/* only its dims: the kernel's layout is the packer's choice */
	if (w->format == NPU_FORMAT_PACKED) {
		int64_t dims[5] = { g, o / g, c / g, w->dims[2], w->dims[3] };

		return g == 1 ? oplib_md_dense(md, 4, w->dims, w->dtype) :
				oplib_md_dense(md, 5, dims, w->dtype);
	}
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

static int conv_pd_alg(struct oplib *lib, const struct oplib_op *op,
		       bool transpose, const struct conv_attrs *a,
		       const dnnl_memory_desc_t *user, bool any_data,
		       dnnl_alg_kind_t alg, dnnl_primitive_attr_t attr,
		       dnnl_primitive_desc_t *pd)
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
				alg, &src, &wei, bias,
				&dst, a->strides, dil, a->pads_begin,
				a->pads_end);
	if (status != dnnl_success)
		return oplib_status(status);
	return oplib_pd_create(pd, &desc, attr, lib);
}

static int conv_pd(struct oplib *lib, const struct oplib_op *op,
		   bool transpose, const struct conv_attrs *a,
		   const dnnl_memory_desc_t *user, bool any_data,
		   dnnl_primitive_attr_t attr, dnnl_primitive_desc_t *pd)
{
	return conv_pd_alg(lib, op, transpose, a, user, any_data,
			   dnnl_convolution_direct, attr, pd);
}

/* Bytes a PACKED tensor holds after its header. */
static uint64_t packed_room(const struct oplib_tensor *w)
{
	return w->extent - NPU_PACKED_HEADER_ELEMS * oplib_dtype_size(w->dtype);
}

/*
 * Packed weights: the first kernel whose weights fit, of Winograd's and
 * the direct one over x and y as they are (both without reordering an
 * activation), then whatever layouts oneDNN likes.
 */
static int conv_pd_packed(struct oplib *lib, const struct oplib_op *op,
			  const struct conv_attrs *a,
			  const dnnl_memory_desc_t *user,
			  dnnl_primitive_attr_t attr, dnnl_primitive_desc_t *pd)
{
	static const struct {
		dnnl_alg_kind_t alg;
		bool any_data;
	} tries[] = {
		{ dnnl_convolution_winograd, false },
		{ dnnl_convolution_direct, false },
		{ dnnl_convolution_direct, true },
	};
	uint64_t room = packed_room(&op->t[1]);
	unsigned int i;

	for (i = 0; i < OPLIB_ARRAY_SIZE(tries); i++) {
		if (conv_pd_alg(lib, op, false, a, user, tries[i].any_data,
				tries[i].alg, attr, pd))
			continue;
		if ((!oplib_pd_is_ref(*pd) || i == OPLIB_ARRAY_SIZE(tries) - 1) &&
		    dnnl_memory_desc_get_size(oplib_pd_md(*pd, DNNL_ARG_WEIGHTS)) <=
		    room)
			return NPU_ERR_NONE;
		dnnl_primitive_desc_destroy(*pd);
	}
	return NPU_ERR_OPERATOR;
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

	if (op->t[1].format == NPU_FORMAT_PACKED)
		return conv_pd_packed(lib, op, a, user, attr, pd);
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
	/* packed weights get their view once the kernel is chosen */
	if (!err && op->t[1].format != NPU_FORMAT_PACKED)
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

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--) {
		h ^= *b++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/*
 * What packed weights are for: the convolution's tensors (but for the
 * addresses), attributes and optional inputs, the kernel chosen, its
 * weights' size and this oneDNN.
 */
static uint64_t conv_pack_key(const struct oplib_op *op,
			      const_dnnl_primitive_desc_t pd)
{
	const dnnl_version_t *v = dnnl_version();
	const struct oplib_tensor *t[2] = { &op->t[0], oplib_out(op) };
	const char *impl = "";
	uint64_t h = 0xcbf29ce484222325ULL, size;
	unsigned int i, n = op->num_inputs;

	dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
	h = fnv1a(h, impl, strlen(impl));
	h = fnv1a(h, &v->major, sizeof(v->major));
	h = fnv1a(h, &v->minor, sizeof(v->minor));
	h = fnv1a(h, &v->patch, sizeof(v->patch));
	h = fnv1a(h, v->hash, strlen(v->hash));
	for (i = 0; i < 2; i++) {
		h = fnv1a(h, &t[i]->format, sizeof(t[i]->format));
		h = fnv1a(h, t[i]->dims, sizeof(t[i]->dims));
		h = fnv1a(h, t[i]->strides, sizeof(t[i]->strides));
	}
	h = fnv1a(h, &op->t[1].dtype, sizeof(op->t[1].dtype));
	h = fnv1a(h, op->t[1].dims, sizeof(op->t[1].dims));
	h = fnv1a(h, &op->attrs->conv, sizeof(op->attrs->conv));
	h = fnv1a(h, &n, sizeof(n));
	size = dnnl_memory_desc_get_size(oplib_pd_md(pd, DNNL_ARG_WEIGHTS));
	return fnv1a(h, &size, sizeof(size));
}

static uint64_t pack_header_check(const struct pack_header *hd)
{
	return fnv1a(0xcbf29ce484222325ULL, hd, offsetof(struct pack_header, check));
}

/* CONV2D: the header must say the bytes were packed for this very kernel. */
static int pack_header_verify(const struct oplib_op *op,
			      const struct oplib_step *step,
			      uint8_t *const *bufs)
{
	struct pack_header hd;

	(void)op;
	memcpy(&hd, bufs[step->in], sizeof(hd));
	if (hd.magic != PACK_MAGIC || hd.version != PACK_VERSION ||
	    hd.key != step->key || hd.size != step->size ||
	    hd.check != pack_header_check(&hd))
		return NPU_ERR_OP_PARAM;
	return NPU_ERR_NONE;
}

/* PACK_CONV2D: the header, or with key 0 none (before the weights move). */
static int pack_header_write(const struct oplib_op *op,
			     const struct oplib_step *step,
			     uint8_t *const *bufs)
{
	struct pack_header hd = { 0 };

	(void)op;
	if (step->key) {
		hd.magic = PACK_MAGIC;
		hd.version = PACK_VERSION;
		hd.key = step->key;
		hd.size = step->size;
		hd.check = pack_header_check(&hd);
	}
	memcpy(bufs[step->in], &hd, sizeof(hd));
	return NPU_ERR_NONE;
}

/* The weights after tensor 1's header, as the kernel reads them. */
static int packed_view(struct oplib_plan *plan, const struct oplib_op *op,
		       const_dnnl_primitive_desc_t pd, unsigned int *view)
{
	return oplib_plan_view(plan, 1, NPU_PACKED_HEADER_ELEMS *
			       oplib_dtype_size(op->t[1].dtype),
			       oplib_pd_md(pd, DNNL_ARG_WEIGHTS), view);
}

/* CONV2D over packed weights: their header checked first, then read. */
static int conv_plan_packed(struct oplib_plan *plan, const struct oplib_op *op,
			    const_dnnl_primitive_desc_t pd, unsigned int *bound)
{
	uint64_t size = dnnl_memory_desc_get_size(
				oplib_pd_md(pd, DNNL_ARG_WEIGHTS));
	int err = oplib_plan_check(plan, pack_header_verify, 1,
				   conv_pack_key(op, pd), size);

	return err ? err : packed_view(plan, op, pd, bound);
}

static int conv_bind(struct oplib *lib, struct oplib_plan *plan,
		     const struct oplib_op *op,
		     const_dnnl_primitive_desc_t pd, bool with_bias,
		     const unsigned int *user, unsigned int *bound)
{
	bool packed = op->t[1].format == NPU_FORMAT_PACKED;
	static const int args[] = { DNNL_ARG_SRC, DNNL_ARG_WEIGHTS,
				    DNNL_ARG_BIAS };
	unsigned int i;
	int err;

	for (i = 0; i < 3; i++) {
		if (i == 2 && !with_bias)
			break;
		if (i == 1 && packed) {
			err = conv_plan_packed(plan, op, pd, &bound[1]);
			if (err)
				return err;
			continue;
		}
		err = oplib_plan_input(lib, plan, user[i],
				       oplib_pd_md(pd, args[i]), &bound[i]);
		if (err)
			return err;
	}
	return oplib_plan_output(plan, user[3], oplib_pd_md(pd, DNNL_ARG_DST),
				 &bound[3]);
}

/* The post-ops: the summand's sum, then the activation where it fuses. */
static int conv_attr(const struct oplib_op *op, const struct conv_attrs *a,
		     dnnl_primitive_attr_t *attr, bool *fused)
{
	int err;

	if (dnnl_primitive_attr_create(attr) != dnnl_success)
		return NPU_ERR_OP_FAILED;
	if (op->num_inputs == 4)
		err = oplib_sum_act_post_ops(&a->act, *attr, fused);
	else
		err = oplib_act_post_ops(&a->act, *attr, fused);
	if (err)
		dnnl_primitive_attr_destroy(*attr);
	return err;
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
	if (!err)
		err = conv_attr(op, &a, &attr, &fused);
	if (err)
		return err;
	if (!err)
		err = conv_pd_choose(lib, op, transpose, &a, user_md, attr, &pd);
	dnnl_primitive_attr_destroy(attr);
	if (err)
		return err;

	err = conv_bind(lib, plan, op, pd, with_bias, user, bound);
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
	.check = conv2d_check,
	.plan = conv2d_plan,
};

const struct oplib_family oplib_conv_transpose2d_family = {
	.check = conv_transpose2d_check,
	.plan = conv_transpose2d_plan,
};

/* The CONV2D a PACK_CONV2D describes, its tensors at address 0. */
struct pack_target {
	struct oplib_op op;
	union npu_op_attrs attrs;
};

/* x or y of the target from the attributes: dense when strided. */
static int pack_target_tensor(const __le64 *raw, unsigned int format,
			      unsigned int dtype, struct oplib_tensor *t)
{
	int64_t stride = 1;
	int d;

	memset(t, 0, sizeof(*t));
	t->dtype = dtype;
	t->format = format;
	t->ndims = 4;
	for (d = 3; d >= 0; d--) {
		uint64_t dim = le64toh(raw[d]);

		if (dim > CONV_MAX_SIZE)
			return NPU_ERR_OPERATOR;
		t->dims[d] = dim;
		if (format == NPU_FORMAT_STRIDED)
			t->strides[d] = stride;
		if (__builtin_mul_overflow(stride, (int64_t)dim, &stride))
			return NPU_ERR_OPERATOR;
	}
	t->nelems = stride;
	return NPU_ERR_NONE;
}

static int pack_target(const struct oplib_op *pk, struct pack_target *t)
{
	const struct npu_attr_pack_conv *a = &pk->attrs->pack_conv;
	const struct oplib_tensor *w = &pk->t[0], *p = oplib_out(pk);
	unsigned int flags = le16toh(a->flags);
	unsigned int fx = le16toh(a->x_format), fy = le16toh(a->y_format);
	struct oplib_op *op = &t->op;
	struct oplib_tensor y;
	unsigned int n = 2;
	int err;

	if (a->rsvd || flags & ~(NPU_PACK_CONV_BIAS | NPU_PACK_CONV_SUMMAND))
		return NPU_ERR_RESERVED;
	/* x and y as a CONV2D may have them; w plain, p packed, alike */
	if (fx > NPU_FORMAT_NCHW16C || fy > NPU_FORMAT_NCHW16C ||
	    w->format != NPU_FORMAT_STRIDED || p->format != NPU_FORMAT_PACKED)
		return NPU_ERR_OPERATOR;
	if (w->ndims != 4 || !oplib_same_dims(w, p) || w->dtype != p->dtype ||
	    ((flags & NPU_PACK_CONV_SUMMAND) && !(flags & NPU_PACK_CONV_BIAS)))
		return NPU_ERR_OP_PARAM;
	memset(t, 0, sizeof(*t));
	t->attrs.conv = a->conv;
	op->kind = NPU_OPERATOR_CONV2D;
	op->attrs = &t->attrs;
	err = pack_target_tensor(a->x_dims, fx, w->dtype, &op->t[0]);
	if (!err)
		err = pack_target_tensor(a->y_dims, fy, w->dtype, &y);
	if (err)
		return err;
	op->t[1] = *p;
	if (flags & NPU_PACK_CONV_BIAS) {
		struct oplib_tensor *b = &op->t[n++];

		b->dtype = NPU_DTYPE_F32;
		b->ndims = 1;
		b->dims[0] = p->dims[0];
		b->strides[0] = 1;
		b->nelems = p->dims[0];
	}
	if (flags & NPU_PACK_CONV_SUMMAND)
		op->t[n++] = y;
	op->t[n] = y;
	op->num_inputs = n;
	op->num_outputs = 1;
	op->num_tensors = n + 1;
	return NPU_ERR_NONE;
}

static int pack_conv2d_check(const struct oplib_op *op)
{
	struct pack_target t;
	struct conv_attrs a;
	int err = pack_target(op, &t);

	return err ? err : conv_decode(&t.op, false, &a);
}

/* The target's x, weights (as plain), b and y, as conv_pd_packed wants. */
static int pack_target_mds(const struct oplib_op *op, int64_t group,
			   dnnl_memory_desc_t *md)
{
	int err = oplib_tensor_md(&op->t[0], &md[0]);

	if (!err)
		err = conv_weights_md(op, false, group, &md[1]);
	if (!err && op->num_inputs >= 3)
		err = oplib_tensor_md(&op->t[2], &md[2]);
	if (!err)
		err = oplib_tensor_md(oplib_out(op), &md[3]);
	return err;
}

/*
 * The header cleared, w reordered into the chosen kernel's layout after
 * it, then the header written: an interrupted pack leaves none.
 */
static int pack_conv2d_plan(struct oplib *lib, const struct oplib_op *op,
			    struct oplib_plan *plan)
{
	dnnl_memory_desc_t md[4], plain;
	dnnl_primitive_attr_t attr;
	dnnl_primitive_desc_t pd;
	struct pack_target t, as_plain;
	unsigned int from, to;
	struct conv_attrs a;
	uint64_t key, size;
	bool fused;
	int err;

	err = pack_target(op, &t);
	if (!err)
		err = conv_decode(&t.op, false, &a);
	if (!err)
		err = pack_target_mds(&t.op, a.group, md);
	if (!err)
		err = conv_attr(&t.op, &a, &attr, &fused);
	if (err)
		return err;
	err = conv_pd_packed(lib, &t.op, &a, md, attr, &pd);
	dnnl_primitive_attr_destroy(attr);
	if (err)
		return err;
	key = conv_pack_key(&t.op, pd);
	size = dnnl_memory_desc_get_size(oplib_pd_md(pd, DNNL_ARG_WEIGHTS));
	/* w as the target would index it, over w's own strides */
	as_plain = t;
	as_plain.op.t[1] = op->t[0];
	err = conv_weights_md(&as_plain.op, false, a.group, &plain);
	if (!err)
		err = oplib_plan_view(plan, 0, 0, &plain, &from);
	if (!err)
		err = packed_view(plan, op, pd, &to);
	dnnl_primitive_desc_destroy(pd);
	if (!err)
		err = oplib_plan_check(plan, pack_header_write, 1, 0, 0);
	if (!err)
		err = oplib_plan_reorder(lib, plan, from, to);
	if (!err)
		err = oplib_plan_check(plan, pack_header_write, 1, key, size);
	return err;
}

const struct oplib_family oplib_pack_conv2d_family = {
	.check = pack_conv2d_check,
	.plan = pack_conv2d_plan,
};
