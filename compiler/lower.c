// SPDX-License-Identifier: MIT
/*
 * Lowering: each node left in the graph becomes the card operator
 * that computes it, with its attributes in the card's terms.  ONNX's
 * conventions that the card does not share are resolved here: 1-D
 * convolutions and pools run as 2-D ones of height 1, vectors in MatMul
 * become matrices, lower-rank operands of broadcasts get leading 1s,
 * Softmax before opset 13 sees its input as 2-D, reductions without
 * keepdims see their output with its 1s.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "lower.h"
#include "ops.h"

#define ANY_RANK	0

static uint32_t f32_bits(float f)
{
	uint32_t b;

	memcpy(&b, &f, sizeof(b));
	return htole32(b);
}

/* Parameters a function does not take stay 0, as the card requires. */
static void set_act(struct npu_activation *a, const struct ir_act *act)
{
	bool takes_alpha = act->kind == NPU_UNARY_CLIP || act->kind == NPU_UNARY_HARDSIGMOID ||
			   act->kind == NPU_UNARY_LEAKY_RELU || act->kind == NPU_UNARY_ELU;
	bool takes_beta = act->kind == NPU_UNARY_CLIP || act->kind == NPU_UNARY_HARDSIGMOID;
	float alpha = act->alpha;

	/* ONNX's Clip is min(max(x, lo), hi): all hi when lo > hi. */
	if (act->kind == NPU_UNARY_CLIP && alpha > act->beta)
		alpha = act->beta;
	a->kind = htole32((uint32_t)act->kind);
	a->alpha = takes_alpha ? f32_bits(alpha) : 0;
	a->beta = takes_beta ? f32_bits(act->beta) : 0;
}

/* Appends a view of @v with @rank dims; NULL dims: the value's own. */
static int add_view(struct ir_graph *g, const struct ir_node *n, struct lo_op *op,
		    struct ir_value *v, int rank, const int64_t *dims)
{
	struct lo_tensor *t;
	int i = op->num_in + op->num_out;

	if (i >= NPU_OP_MAX_TENSORS)
		return ir_node_error(g, n, NPUCC_E_LIMIT, "more than %d tensors", NPU_OP_MAX_TENSORS);
	if (npu_dtype_onnx_to_card(v->dtype) == NPU_DT_NONE)
		return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_DTYPE,
				     "tensor '%s' has data type %s, which the card does not have",
				     v->name, ir_dtype_name(v->dtype));
	t = &op->t[i];
	t->v = v;
	t->ndims = dims ? rank : v->rank;
	memcpy(t->dims, dims ? dims : v->dims, sizeof(t->dims[0]) * (size_t)t->ndims);
	return 0;
}

static int add_in(struct ir_graph *g, const struct ir_node *n, struct lo_op *op,
		  struct ir_value *v, int rank, const int64_t *dims)
{
	if (op->num_out)
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "internal: input after output");
	if (add_view(g, n, op, v, rank, dims))
		return -1;
	op->num_in++;
	return 0;
}

static int add_out(struct ir_graph *g, const struct ir_node *n, struct lo_op *op,
		   struct ir_value *v, int rank, const int64_t *dims)
{
	if (add_view(g, n, op, v, rank, dims))
		return -1;
	op->num_out++;
	return 0;
}

/* @v's dims with leading 1s up to @rank. */
static void lead_ones(const struct ir_value *v, int vrank, const int64_t *vdims, int rank,
		      int64_t *dims)
{
	int d, lead = rank - vrank;

	for (d = 0; d < rank; d++)
		dims[d] = d < lead ? 1 : vdims[d - lead];
	(void)v;
}

/* N, C, W of a 1-D conv or pool seen as N, C, 1, W. */
static const int64_t *as_2d(const struct ir_value *v, int64_t *dims)
{
	if (v->rank != 3)
		return v->dims;
	dims[0] = v->dims[0];
	dims[1] = v->dims[1];
	dims[2] = 1;
	dims[3] = v->dims[2];
	return dims;
}

static void geo_2d(const struct conv_geo *geo, __le32 *kernel, __le32 *strides,
		   __le32 *dilations, __le32 *pads)
{
	int i, off = 2 - geo->sp;

	for (i = 0; i < 2; i++) {
		int s = i - off;

		if (kernel)
			kernel[i] = htole32(s >= 0 ? (uint32_t)geo->kernel[s] : 1);
		strides[i] = htole32(s >= 0 ? (uint32_t)geo->stride[s] : 1);
		dilations[i] = htole32(s >= 0 ? (uint32_t)geo->dil[s] : 1);
		pads[i] = htole32(s >= 0 ? (uint32_t)geo->pad_begin[s] : 0);
	}
}

static int lower_conv(struct ir_graph *g, const struct ir_node *n, struct lo_op *op)
{
	struct npu_attr_conv *a = &op->attrs.conv;
	struct conv_geo geo;
	int64_t dx[4], dw[4], dy[4];

	if (conv_geometry(g, n, &geo))
		return -1;
	geo_2d(&geo, NULL, a->strides, a->dilations, a->pads_begin);
	a->group = htole32((uint32_t)geo.group);
	set_act(&a->act, &n->act);
	if (add_in(g, n, op, n->in[0], 4, as_2d(n->in[0], dx)) ||
	    add_in(g, n, op, n->in[1], 4, as_2d(n->in[1], dw)))
		return -1;
	if (n->num_in > 2 && n->in[2] && add_in(g, n, op, n->in[2], 0, NULL))
		return -1;
	/* a fused residual Add's other operand, with y's dims */
	if (n->num_in > 3 && n->in[3] && add_in(g, n, op, n->in[3], 4, as_2d(n->in[3], dy)))
		return -1;
	return add_out(g, n, op, n->out[0], 4, as_2d(n->out[0], dy));
}

/* A tensor's layout: its root's, which a view shares. */
static int format_of(const struct ir_value *v)
{
	return v->alias ? v->alias->format : v->format;
}

/* PackConv: the weights, packed for the Conv whose attributes follow. */
static int lower_pack(struct ir_graph *g, const struct ir_node *n, struct lo_op *op)
{
	const struct ir_node *c = n->packs_for;
	struct npu_attr_pack_conv *a = &op->attrs.pack_conv;
	struct conv_geo geo;
	int64_t dx[4], dy[4];
	const int64_t *x, *y;
	int d;

	if (conv_geometry(g, c, &geo))
		return -1;
	geo_2d(&geo, NULL, a->conv.strides, a->conv.dilations, a->conv.pads_begin);
	a->conv.group = htole32((uint32_t)geo.group);
	set_act(&a->conv.act, &c->act);
	x = as_2d(c->in[0], dx);
	y = as_2d(c->out[0], dy);
	for (d = 0; d < 4; d++) {
		a->x_dims[d] = htole64((uint64_t)x[d]);
		a->y_dims[d] = htole64((uint64_t)y[d]);
	}
	a->x_format = htole16((uint16_t)format_of(c->in[0]));
	a->y_format = htole16((uint16_t)format_of(c->out[0]));
	a->flags = htole16((c->num_in > 2 && c->in[2] ? NPU_PACK_CONV_BIAS : 0) |
			   (c->num_in > 3 && c->in[3] ? NPU_PACK_CONV_SUMMAND : 0));
	if (add_in(g, n, op, n->in[0], 0, NULL))
		return -1;
	return add_out(g, n, op, n->out[0], 0, NULL);
}

static int lower_pool(struct ir_graph *g, const struct ir_node *n, struct lo_op *op)
{
	struct npu_attr_pool *a = &op->attrs.pool;
	struct conv_geo geo;
	int64_t dx[4], dy[4];
	int d;

	if (n->num_out > 1 && n->out[1])
		return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_ATTR, "the Indices output is not supported");
	if (ir_attr_int(n, "storage_order", 0))
		return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_ATTR, "storage_order 1");
	if (conv_geometry(g, n, &geo))
		return -1;
	for (d = 0; d < geo.sp; d++)
		if (geo.pad_begin[d] >= geo.dil[d] * (geo.kernel[d] - 1) + 1 ||
		    geo.pad_end[d] >= geo.dil[d] * (geo.kernel[d] - 1) + 1)
			return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_ATTR,
					     "a pad as large as the kernel: a window outside the input");
	geo_2d(&geo, a->kernel, a->strides, a->dilations, a->pads_begin);
	if (strstr(n->op, "MaxPool"))
		a->kind = htole32(NPU_POOL_MAX);
	else if (!strcmp(n->op, "AveragePool") && !ir_attr_int(n, "count_include_pad", 0))
		a->kind = htole32(NPU_POOL_AVG_EXCLUDE_PAD);
	else
		a->kind = htole32(NPU_POOL_AVG_INCLUDE_PAD);
	if (add_in(g, n, op, n->in[0], 4, as_2d(n->in[0], dx)))
		return -1;
	return add_out(g, n, op, n->out[0], 4, as_2d(n->out[0], dy));
}

/* MatMul with numpy's rules for vectors and batch broadcasting. */
static int lower_matmul(struct ir_graph *g, const struct ir_node *n, struct lo_op *op)
{
	const struct ir_value *a = n->in[0], *b = n->in[1];
	int64_t da[IR_MAX_DIMS + 1], db[IR_MAX_DIMS + 1], va[IR_MAX_DIMS], vb[IR_MAX_DIMS];
	int64_t dy[IR_MAX_DIMS];
	int ra = a->rank, rb = b->rank, r, d;

	memcpy(da, a->dims, sizeof(a->dims));
	memcpy(db, b->dims, sizeof(b->dims));
	if (ra == 1) {
		da[1] = da[0];
		da[0] = 1;
		ra = 2;
	}
	if (rb == 1) {
		db[1] = 1;
		rb = 2;
	}
	r = ra > rb ? ra : rb;
	lead_ones(a, ra, da, r, va);
	lead_ones(b, rb, db, r, vb);
	for (d = 0; d < r - 2; d++)
		dy[d] = va[d] == 1 ? vb[d] : va[d];
	dy[r - 2] = va[r - 2];
	dy[r - 1] = vb[r - 1];
	op->attrs.matmul.alpha = f32_bits(1.0f);
	set_act(&op->attrs.matmul.act, &n->act);
	if (add_in(g, n, op, n->in[0], r, va) || add_in(g, n, op, n->in[1], r, vb))
		return -1;
	return add_out(g, n, op, n->out[0], r, dy);
}

static int lower_gemm(struct ir_graph *g, const struct ir_node *n, struct lo_op *op)
{
	struct npu_attr_matmul *a = &op->attrs.matmul;
	struct ir_value *c = n->num_in > 2 ? n->in[2] : NULL;
	float beta = ir_attr_float(n, "beta", 1.0f);
	int64_t dc[2];

	a->trans_a = htole32(ir_attr_int(n, "transA", 0) != 0);
	a->trans_b = htole32(ir_attr_int(n, "transB", 0) != 0);
	a->alpha = f32_bits(ir_attr_float(n, "alpha", 1.0f));
	set_act(&a->act, &n->act);
	if (add_in(g, n, op, n->in[0], 0, NULL) || add_in(g, n, op, n->in[1], 0, NULL))
		return -1;
	if (c && beta != 0) {
		a->beta = f32_bits(beta);
		lead_ones(c, c->rank, c->dims, 2, dc);
		if (add_in(g, n, op, c, 2, dc))
			return -1;
	}
	return add_out(g, n, op, n->out[0], 0, NULL);
}

static int lower_unary(struct ir_graph *g, const struct ir_node *n, struct lo_op *op)
{
	struct ir_act act = { 0 };

	if (!n->copy && op_unary_kind(n, &act) <= 0)
		return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_OP, "no card function for %s", n->op);
	set_act(&op->attrs.unary.fn, &act);
	if (add_in(g, n, op, n->in[0], 0, NULL))
		return -1;
	return add_out(g, n, op, n->out[0], 0, NULL);
}

static int lower_binary(struct ir_graph *g, const struct ir_node *n, struct lo_op *op)
{
	struct ir_value *y = n->out[0];
	int64_t da[IR_MAX_DIMS], db[IR_MAX_DIMS];

	if (n->in[0]->dtype != n->in[1]->dtype)
		return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_DTYPE,
				     "inputs of types %s and %s", ir_dtype_name(n->in[0]->dtype),
				     ir_dtype_name(n->in[1]->dtype));
	op->attrs.binary.kind = htole32((uint32_t)op_binary_kind(n->op));
	set_act(&op->attrs.binary.act, &n->act);
	lead_ones(n->in[0], n->in[0]->rank, n->in[0]->dims, y->rank, da);
	lead_ones(n->in[1], n->in[1]->rank, n->in[1]->dims, y->rank, db);
	if (add_in(g, n, op, n->in[0], y->rank, da) || add_in(g, n, op, n->in[1], y->rank, db))
		return -1;
	return add_out(g, n, op, y, 0, NULL);
}

static int lower_norm(struct ir_graph *g, const struct ir_node *n, struct lo_op *op)
{
	struct npu_attr_norm *a = &op->attrs.norm;
	const struct ir_value *x = n->in[0];
	int axis = 0, k, d;	/* BATCHNORM's axis field is 0: channels are axis 1 */

	if (ir_attr_int(n, "training_mode", 0))
		return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_ATTR, "training_mode 1");
	for (k = 1; k < n->num_out; k++)
		if (n->out[k] && (n->out[k]->num_uses || n->out[k]->output_index >= 0))
			return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_ATTR, "output %d is not supported", k);
	if (!strcmp(n->op, "LayerNormalization") &&
	    norm_axis(g, n, ir_attr_int(n, "axis", -1), x->rank, &axis))
		return -1;
	a->axis = htole32((uint32_t)axis);
	a->epsilon = f32_bits(ir_attr_float(n, "epsilon", 1e-5f));
	set_act(&a->act, &n->act);
	if (add_in(g, n, op, n->in[0], 0, NULL))
		return -1;
	for (k = 1; k < n->num_in; k++) {
		struct ir_value *p = n->in[k];
		int64_t numel = 1;

		if (!p)
			continue;
		if (!strcmp(n->op, "BatchNormalization")) {
			if (add_in(g, n, op, p, 0, NULL))
				return -1;
			continue;
		}
		/* LayerNormalization: scale and bias take the normalized axes' dims. */
		for (d = axis; d < x->rank; d++)
			numel *= x->dims[d];
		if (ir_numel(p) != numel)
			return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_ATTR,
					     "scale and bias must cover the normalized axes");
		if (add_in(g, n, op, p, x->rank - axis, x->dims + axis))
			return -1;
	}
	return add_out(g, n, op, n->out[0], 0, NULL);
}

static int lower_softmax(struct ir_graph *g, const struct ir_node *n, struct lo_op *op)
{
	const struct ir_value *x = n->in[0];
	int64_t dims[2] = { 1, 1 };
	int axis, d;

	op->attrs.softmax.log = htole32(!strcmp(n->op, "LogSoftmax"));
	if (g->opset >= 13) {
		if (norm_axis(g, n, ir_attr_int(n, "axis", -1), x->rank, &axis))
			return -1;
		op->attrs.softmax.axis = htole32((uint32_t)axis);
		if (add_in(g, n, op, n->in[0], 0, NULL))
			return -1;
		return add_out(g, n, op, n->out[0], 0, NULL);
	}
	/* Before opset 13: over the input coerced to 2-D at axis. */
	if (ir_attr_int(n, "axis", 1) == x->rank)
		axis = x->rank;
	else if (norm_axis(g, n, ir_attr_int(n, "axis", 1), x->rank, &axis))
		return -1;
	for (d = 0; d < x->rank; d++)
		dims[d < axis ? 0 : 1] *= x->dims[d];
	op->attrs.softmax.axis = htole32(1);
	if (add_in(g, n, op, n->in[0], 2, dims))
		return -1;
	return add_out(g, n, op, n->out[0], 2, dims);
}

static int lower_reduce(struct ir_graph *g, const struct ir_node *n, struct lo_op *op)
{
	static const char *const kinds[] = {
		[NPU_REDUCE_MEAN] = "ReduceMean", [NPU_REDUCE_SUM] = "ReduceSum",
		[NPU_REDUCE_MAX] = "ReduceMax", [NPU_REDUCE_MIN] = "ReduceMin",
	};
	const struct ir_value *x = n->in[0];
	int64_t dims[IR_MAX_DIMS];
	unsigned mask;
	bool keep;
	int d, kind = 0;

	if (reduce_params(g, n, &mask, &keep))
		return -1;
	if (!mask) {	/* noop_with_empty_axes: a copy (UNARY NONE) */
		op->kind = NPU_OPERATOR_UNARY;
		if (add_in(g, n, op, n->in[0], 0, NULL))
			return -1;
		return add_out(g, n, op, n->out[0], 0, NULL);
	}
	for (d = 0; d < 4; d++)
		if (!strcmp(kinds[d], n->op))
			kind = d;
	op->attrs.reduce.kind = htole32((uint32_t)kind);
	op->attrs.reduce.axes = htole32(mask);
	for (d = 0; d < x->rank; d++)
		dims[d] = mask & (1u << d) ? 1 : x->dims[d];
	if (add_in(g, n, op, n->in[0], 0, NULL))
		return -1;
	return add_out(g, n, op, n->out[0], x->rank, dims);
}

static int lower_concat(struct ir_graph *g, const struct ir_node *n, struct lo_op *op)
{
	int axis, k;

	if (norm_axis(g, n, ir_attr_int(n, "axis", 0), n->out[0]->rank, &axis))
		return -1;
	op->attrs.concat.axis = htole32((uint32_t)axis);
	for (k = 0; k < n->num_in; k++)
		if (add_in(g, n, op, n->in[k], 0, NULL))
			return -1;
	return add_out(g, n, op, n->out[0], 0, NULL);
}

static int lower_transpose(struct ir_graph *g, const struct ir_node *n, struct lo_op *op)
{
	const struct ir_value *x = n->in[0];
	size_t np;
	const int64_t *perm = ir_attr_ints(n, "perm", &np);
	int d;

	for (d = 0; d < x->rank; d++)
		op->attrs.transpose.perm[d] = htole32((uint32_t)(perm ? perm[d] : x->rank - 1 - d));
	if (add_in(g, n, op, n->in[0], 0, NULL))
		return -1;
	return add_out(g, n, op, n->out[0], 0, NULL);
}

static int resize_modes(struct ir_graph *g, const struct ir_node *n, struct npu_attr_resize *a)
{
	const char *mode = ir_attr_str(n, "mode", "nearest");
	bool legacy = !strcmp(n->op, "Upsample") || g->opset < 11;
	const char *coord = ir_attr_str(n, "coordinate_transformation_mode", "half_pixel");
	const char *nearest = ir_attr_str(n, "nearest_mode", "round_prefer_floor");

	if (!strcmp(mode, "nearest"))
		a->mode = htole32(NPU_RESIZE_NEAREST);
	else if (!strcmp(mode, "linear") || !strcmp(mode, "bilinear"))
		a->mode = htole32(NPU_RESIZE_LINEAR);
	else
		return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_ATTR, "mode '%s'", mode);
	if (ir_attr_int(n, "exclude_outside", 0))
		return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_ATTR, "exclude_outside 1");
	if (legacy) {
		a->coord = htole32(NPU_RESIZE_ASYMMETRIC);
		a->nearest = le32toh(a->mode) == NPU_RESIZE_NEAREST ? htole32(NPU_RESIZE_FLOOR) : 0;
		return 0;
	}
	if (le32toh(a->mode) == NPU_RESIZE_LINEAR)
		nearest = "";	/* the card takes no rounding for LINEAR */
	if (!strcmp(coord, "half_pixel"))
		a->coord = htole32(NPU_RESIZE_HALF_PIXEL);
	else if (!strcmp(coord, "asymmetric"))
		a->coord = htole32(NPU_RESIZE_ASYMMETRIC);
	else if (!strcmp(coord, "align_corners"))
		a->coord = htole32(NPU_RESIZE_ALIGN_CORNERS);
	else if (!strcmp(coord, "pytorch_half_pixel"))
		a->coord = htole32(NPU_RESIZE_PYTORCH_HALF_PIXEL);
	else
		return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_ATTR,
				     "coordinate_transformation_mode '%s'", coord);
	if (!*nearest)
		a->nearest = 0;
	else if (!strcmp(nearest, "round_prefer_floor"))
		a->nearest = htole32(NPU_RESIZE_ROUND_PREFER_FLOOR);
	else if (!strcmp(nearest, "round_prefer_ceil"))
		a->nearest = htole32(NPU_RESIZE_ROUND_PREFER_CEIL);
	else if (!strcmp(nearest, "floor"))
		a->nearest = htole32(NPU_RESIZE_FLOOR);
	else if (!strcmp(nearest, "ceil"))
		a->nearest = htole32(NPU_RESIZE_CEIL);
	else
		return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_ATTR, "nearest_mode '%s'", nearest);
	return 0;
}

static int lower_resize(struct ir_graph *g, const struct ir_node *n, struct lo_op *op)
{
	struct npu_attr_resize *a = &op->attrs.resize;
	const struct ir_value *x = n->in[0];
	float scales[IR_MAX_DIMS];
	int64_t dims[IR_MAX_DIMS];
	int d;

	if (resize_params(g, n, scales, dims) || resize_modes(g, n, a))
		return -1;
	for (d = 0; d < x->rank; d++) {
		a->scales[d] = f32_bits(scales[d]);
		if (le32toh(a->mode) == NPU_RESIZE_LINEAR && d < x->rank - 2 &&
		    x->dims[d] != dims[d])
			return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_ATTR,
					     "linear resize of axis %d (only the last two are supported)", d);
	}
	if (le32toh(a->mode) == NPU_RESIZE_LINEAR && x->rank < 2)
		return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_ATTR, "linear resize of a vector");
	if (add_in(g, n, op, n->in[0], 0, NULL))
		return -1;
	return add_out(g, n, op, n->out[0], 0, NULL);
}

static int lower_pad(struct ir_graph *g, const struct ir_node *n, struct lo_op *op)
{
	struct npu_attr_pad *a = &op->attrs.pad;
	int64_t begin[IR_MAX_DIMS], end[IR_MAX_DIMS];
	float value;
	int mode, d;

	if (pad_params(g, n, begin, end, &mode, &value))
		return -1;
	a->mode = htole32((uint32_t)mode);
	a->value = mode == NPU_PAD_CONSTANT ? f32_bits(value) : 0;
	for (d = 0; d < n->in[0]->rank; d++) {
		a->begin[d] = htole32((uint32_t)(int32_t)begin[d]);
		a->end[d] = htole32((uint32_t)(int32_t)end[d]);
	}
	if (add_in(g, n, op, n->in[0], 0, NULL))
		return -1;
	return add_out(g, n, op, n->out[0], 0, NULL);
}

static int lower_slice(struct ir_graph *g, const struct ir_node *n, struct lo_op *op)
{
	int64_t starts[IR_MAX_DIMS], steps[IR_MAX_DIMS], dims[IR_MAX_DIMS];
	int d;

	if (slice_params(g, n, starts, steps, dims))
		return -1;
	for (d = 0; d < n->in[0]->rank; d++) {
		op->attrs.slice.starts[d] = htole64((uint64_t)starts[d]);
		op->attrs.slice.steps[d] = htole64((uint64_t)steps[d]);
	}
	if (add_in(g, n, op, n->in[0], 0, NULL))
		return -1;
	return add_out(g, n, op, n->out[0], 0, NULL);
}

static int lower_cast(struct ir_graph *g, const struct ir_node *n, struct lo_op *op)
{
	if (add_in(g, n, op, n->in[0], 0, NULL))
		return -1;
	return add_out(g, n, op, n->out[0], 0, NULL);
}

/*
 * The card computes in float32 (docs/hardware.md: every operator in F32)
 * and moves any type: the operators that only move elements take them all.
 */
static int check_types(struct ir_graph *g, const struct ir_node *n, const struct lo_op *op)
{
	bool moves = op->kind == NPU_OPERATOR_CONCAT || op->kind == NPU_OPERATOR_TRANSPOSE ||
		     op->kind == NPU_OPERATOR_PAD || op->kind == NPU_OPERATOR_SLICE ||
		     op->kind == NPU_OPERATOR_CAST ||
		     (op->kind == NPU_OPERATOR_UNARY && !op->attrs.unary.fn.kind);
	int i;

	for (i = 0; !moves && i < op->num_in + op->num_out; i++)
		if (op->t[i].v->dtype != IR_FLOAT)
			return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_DTYPE,
					     "the card computes %s in float32, not %s", n->op,
					     ir_dtype_name(op->t[i].v->dtype));
	return 0;
}

/* 0: @op is filled; 1: the node is a view and needs no operator. */
static int lower_node(struct ir_graph *g, const struct ir_node *n, struct lo_op *op)
{
	static int (*const fns[])(struct ir_graph *, const struct ir_node *, struct lo_op *) = {
		[NPU_OPERATOR_CONV2D] = lower_conv,
		[NPU_OPERATOR_CONV_TRANSPOSE2D] = lower_conv,
		[NPU_OPERATOR_MATMUL] = lower_matmul,
		[NPU_OPERATOR_POOL2D] = lower_pool,
		[NPU_OPERATOR_UNARY] = lower_unary,
		[NPU_OPERATOR_BINARY] = lower_binary,
		[NPU_OPERATOR_BATCHNORM] = lower_norm,
		[NPU_OPERATOR_LAYERNORM] = lower_norm,
		[NPU_OPERATOR_SOFTMAX] = lower_softmax,
		[NPU_OPERATOR_REDUCE] = lower_reduce,
		[NPU_OPERATOR_CONCAT] = lower_concat,
		[NPU_OPERATOR_TRANSPOSE] = lower_transpose,
		[NPU_OPERATOR_RESIZE] = lower_resize,
		[NPU_OPERATOR_PAD] = lower_pad,
		[NPU_OPERATOR_SLICE] = lower_slice,
		[NPU_OPERATOR_CAST] = lower_cast,
		[NPU_OPERATOR_PACK_CONV2D] = lower_pack,
	};
	int kind = op_lower_kind(n);

	memset(op, 0, sizeof(*op));
	op->node = n;
	if (kind < 0)
		return 1;
	op->kind = kind;
	if (kind == NPU_OPERATOR_MATMUL && !strcmp(n->op, "Gemm") ? lower_gemm(g, n, op) :
	    fns[kind](g, n, op))
		return -1;
	return check_types(g, n, op);
}

/* The operators run at load first, then those of every execution. */
int pass_lower(struct ir_graph *g, struct lo_program *prog)
{
	int i, round, n = 0, ret;

	memset(prog, 0, sizeof(*prog));
	prog->ops = calloc((size_t)g->num_nodes + 1, sizeof(*prog->ops));
	if (!prog->ops)
		return ir_error(g, NPUCC_E_NOMEM, "out of memory");
	ir_count_uses(g);
	for (round = 0; round < 2; round++) {
		for (i = 0; i < g->num_nodes; i++) {
			if (g->nodes[i]->at_load != !round)
				continue;
			ret = lower_node(g, g->nodes[i], &prog->ops[n]);
			if (ret < 0)
				return -1;
			if (!ret)
				n++;
		}
		if (!round)
			prog->num_load = n;
	}
	prog->num_ops = n - prog->num_load;
	return 0;
}
