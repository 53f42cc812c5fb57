// SPDX-License-Identifier: MIT
/*
 * Shape inference, one function per kind of operator: each checks its
 * inputs' ranks, dims and attributes against ONNX's rules and sets its
 * outputs' data types and dims.  Inputs that fix an output's shape (a
 * Reshape's shape, a Slice's starts) must be constants by now; when one
 * is computed from the input data, the model has a data-dependent shape,
 * which an offline model cannot have.
 */
#include <math.h>
#include <string.h>

#include "ir.h"
#include "npu_operator.h"
#include "ops.h"

static struct ir_value *input(const struct ir_node *n, int i)
{
	return i < n->num_in ? n->in[i] : NULL;
}

static int set_out(struct ir_graph *g, struct ir_node *n, int k, int dtype, int rank,
		   const int64_t *dims)
{
	int d;

	if (rank > IR_MAX_DIMS)
		return ir_node_error(g, n, NPUCC_E_LIMIT, "output %d would have %d dims, at most %d are supported",
				     k, rank, IR_MAX_DIMS);
	for (d = 0; d < rank; d++)
		if (dims[d] < 0)
			return ir_node_error(g, n, NPUCC_E_INVALID_MODEL,
					     "output %d would have dim %d of %lld", k, d,
					     (long long)dims[d]);
	if (k < n->num_out && n->out[k])
		ir_set_shape(n->out[k], dtype, rank, dims);
	return 0;
}

static int need_rank(struct ir_graph *g, const struct ir_node *n, int i, int lo, int hi)
{
	const struct ir_value *v = input(n, i);

	if (!v)
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "input %d is missing", i);
	if (v->rank < lo || v->rank > hi)
		return ir_node_error(g, n, lo == 3 && v->rank == 5 ? NPUCC_E_UNSUPPORTED_ATTR :
				     NPUCC_E_INVALID_MODEL,
				     "input %d has %d dims; %d to %d are supported", i, v->rank, lo, hi);
	return 0;
}

int norm_axis(struct ir_graph *g, const struct ir_node *n, int64_t axis, int rank, int *out)
{
	if (axis < -rank || axis >= (rank ? rank : 1))
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "axis %lld is out of range for %d dims",
				     (long long)axis, rank);
	*out = (int)(axis < 0 ? axis + rank : axis);
	return 0;
}

/* The elements of constant input @idx as int64; at most @max of them. */
int const_ints(struct ir_graph *g, const struct ir_node *n, int idx, const char *what,
	       int64_t *vals, int max, int *count)
{
	const struct ir_value *v = input(n, idx);
	int64_t i, num;

	if (!v)
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "input '%s' is missing", what);
	if (!v->data)
		return ir_node_error(g, n, NPUCC_E_DYNAMIC_SHAPE,
				     "input '%s' is computed from the input data, so the output shape is not static",
				     what);
	if (v->rank > 1)
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "input '%s' has %d dims", what,
				     v->rank);
	num = ir_numel(v);
	if (num > max)
		return ir_node_error(g, n, NPUCC_E_LIMIT, "input '%s' has %lld elements, at most %d are supported",
				     what, (long long)num, max);
	for (i = 0; i < num; i++)
		vals[i] = ir_get_i64(v, i);
	*count = (int)num;
	return 0;
}

/* Numpy (multidirectional) broadcasting of two shapes. */
static int broadcast2(struct ir_graph *g, const struct ir_node *n, int ra, const int64_t *da_in,
		      int rb, const int64_t *db_in, int *rank, int64_t *dims)
{
	int64_t da[IR_MAX_DIMS], db[IR_MAX_DIMS];	/* @dims may be either input */
	int r = ra > rb ? ra : rb, d;

	if (ra > IR_MAX_DIMS || rb > IR_MAX_DIMS)
		return ir_node_error(g, n, NPUCC_E_LIMIT, "more than %d dims", IR_MAX_DIMS);
	memcpy(da, da_in, sizeof(*da) * (size_t)ra);
	memcpy(db, db_in, sizeof(*db) * (size_t)rb);
	for (d = 0; d < r; d++) {
		int64_t x = d - (r - ra) >= 0 ? da[d - (r - ra)] : 1;
		int64_t y = d - (r - rb) >= 0 ? db[d - (r - rb)] : 1;

		if (x != y && x != 1 && y != 1)
			return ir_node_error(g, n, NPUCC_E_INVALID_MODEL,
					     "dims %lld and %lld do not broadcast", (long long)x,
					     (long long)y);
		dims[d] = x == 1 ? y : x;
	}
	*rank = r;
	return 0;
}

int infer_same(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_value *x = input(n, 0);
	int k;

	if (!x)
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "input 0 is missing");
	for (k = 0; k < n->num_out; k++) {
		int dtype = x->dtype;

		if (k == 1 && !strcmp(n->op, "Dropout"))
			dtype = IR_BOOL;
		if (set_out(g, n, k, dtype, x->rank, x->dims))
			return -1;
	}
	return 0;
}

int infer_norm(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_value *x = input(n, 0);
	int axis, k, rank;
	int64_t dims[IR_MAX_DIMS];

	if (!strcmp(n->op, "BatchNormalization")) {
		if (need_rank(g, n, 0, 2, IR_MAX_DIMS))
			return -1;
		if (!ir_attr_int(n, "spatial", 1))
			return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_ATTR, "spatial 0");
		for (k = 1; k < 5; k++)
			if (!input(n, k) || input(n, k)->rank != 1 || input(n, k)->dims[0] != x->dims[1])
				return ir_node_error(g, n, NPUCC_E_INVALID_MODEL,
						     "input %d must have the channel count %lld", k,
						     (long long)x->dims[1]);
		return infer_same(g, n);
	}
	/* LayerNormalization: Mean and InvStdDev have 1 on the normalized axes. */
	if (need_rank(g, n, 0, 1, IR_MAX_DIMS) ||
	    norm_axis(g, n, ir_attr_int(n, "axis", -1), x->rank, &axis))
		return -1;
	rank = x->rank;
	memcpy(dims, x->dims, sizeof(dims));
	for (k = axis; k < rank; k++)
		dims[k] = 1;
	if (set_out(g, n, 0, x->dtype, rank, x->dims))
		return -1;
	for (k = 1; k < n->num_out; k++)
		if (set_out(g, n, k, IR_FLOAT, rank, dims))
			return -1;
	return 0;
}

int infer_cast(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_value *x = input(n, 0);
	int to = (int)ir_attr_int(n, "to", 0);

	if (!ir_dtype_size(to))
		return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_DTYPE, "cast to %s is not supported",
				     ir_dtype_name(to));
	return set_out(g, n, 0, to, x->rank, x->dims);
}

static int broadcast_inputs(struct ir_graph *g, struct ir_node *n, int first, int *rank,
			    int64_t *dims)
{
	int i;

	*rank = 0;
	for (i = first; i < n->num_in; i++) {
		const struct ir_value *v = n->in[i];

		if (!v)
			return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "input %d is missing", i);
		if (broadcast2(g, n, *rank, dims, v->rank, v->dims, rank, dims))
			return -1;
	}
	return 0;
}

int infer_broadcast(struct ir_graph *g, struct ir_node *n)
{
	int64_t dims[IR_MAX_DIMS + 8];
	int rank, i;

	if (broadcast_inputs(g, n, 0, &rank, dims))
		return -1;
	for (i = 1; i < n->num_in; i++)
		if (n->in[i]->dtype != n->in[0]->dtype && strcmp(n->op, "Pow"))
			return ir_node_error(g, n, NPUCC_E_INVALID_MODEL,
					     "inputs of types %s and %s",
					     ir_dtype_name(n->in[0]->dtype),
					     ir_dtype_name(n->in[i]->dtype));
	return set_out(g, n, 0, n->in[0]->dtype, rank, dims);
}

int infer_compare(struct ir_graph *g, struct ir_node *n)
{
	int64_t dims[IR_MAX_DIMS + 8];
	int rank;

	if (broadcast_inputs(g, n, 0, &rank, dims))
		return -1;
	return set_out(g, n, 0, IR_BOOL, rank, dims);
}

int infer_where(struct ir_graph *g, struct ir_node *n)
{
	int64_t dims[IR_MAX_DIMS + 8];
	int rank;

	if (n->num_in != 3 || broadcast_inputs(g, n, 0, &rank, dims))
		return -1;
	return set_out(g, n, 0, n->in[1]->dtype, rank, dims);
}

/* Conv, ConvTranspose, MaxPool, AveragePool, Global*Pool. */
static int geo_attrs(struct ir_graph *g, const struct ir_node *n, struct conv_geo *geo)
{
	size_t ns, nd, np, i;
	const int64_t *s = ir_attr_ints(n, "strides", &ns);
	const int64_t *d = ir_attr_ints(n, "dilations", &nd);
	const int64_t *p = ir_attr_ints(n, "pads", &np);

	if ((s && ns != (size_t)geo->sp) || (d && nd != (size_t)geo->sp) ||
	    (p && np != 2 * (size_t)geo->sp))
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL,
				     "strides, dilations or pads do not match the %d spatial axes",
				     geo->sp);
	for (i = 0; i < (size_t)geo->sp; i++) {
		geo->stride[i] = s ? s[i] : 1;
		geo->dil[i] = d ? d[i] : 1;
		geo->pad_begin[i] = p ? p[i] : 0;
		geo->pad_end[i] = p ? p[i + geo->sp] : 0;
		if (geo->stride[i] < 1 || geo->dil[i] < 1 || geo->pad_begin[i] < 0 ||
		    geo->pad_end[i] < 0 || geo->stride[i] > 0xffff || geo->dil[i] > 0xffff ||
		    geo->pad_begin[i] > 0xffff || geo->pad_end[i] > 0xffff)
			return ir_node_error(g, n, NPUCC_E_INVALID_MODEL,
					     "stride, dilation or pad out of range");
	}
	return 0;
}

static int auto_pad_mode(struct ir_graph *g, const struct ir_node *n, int *mode)
{
	const char *ap = ir_attr_str(n, "auto_pad", "NOTSET");

	if (!strcmp(ap, "NOTSET"))
		*mode = 0;
	else if (!strcmp(ap, "VALID"))
		*mode = 1;
	else if (!strcmp(ap, "SAME_UPPER"))
		*mode = 2;
	else if (!strcmp(ap, "SAME_LOWER"))
		*mode = 3;
	else
		return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_ATTR, "auto_pad '%s'", ap);
	return 0;
}

static void split_pad(int64_t total, bool upper, int64_t *begin, int64_t *end)
{
	*begin = upper ? total / 2 : total - total / 2;
	*end = total - *begin;
}

static int conv_out(struct ir_graph *g, const struct ir_node *n, struct conv_geo *geo, int ap,
		    bool ceil_mode)
{
	int i;

	for (i = 0; i < geo->sp; i++) {
		int64_t ek = geo->dil[i] * (geo->kernel[i] - 1) + 1, span;

		if (ap >= 2) {
			int64_t out = (geo->in[i] + geo->stride[i] - 1) / geo->stride[i];
			int64_t total = (out - 1) * geo->stride[i] + ek - geo->in[i];

			split_pad(total > 0 ? total : 0, ap == 2, &geo->pad_begin[i],
				  &geo->pad_end[i]);
		} else if (ap == 1) {
			geo->pad_begin[i] = geo->pad_end[i] = 0;
		}
		span = geo->in[i] + geo->pad_begin[i] + geo->pad_end[i] - ek;
		if (span < 0)
			return ir_node_error(g, n, NPUCC_E_INVALID_MODEL,
					     "the kernel (%lld) is larger than the padded input (%lld)",
					     (long long)ek,
					     (long long)(span + ek));
		geo->out[i] = (ceil_mode ? (span + geo->stride[i] - 1) : span) / geo->stride[i] + 1;
		/* PyTorch's and onnxruntime's rule: no window starts in the end padding. */
		if (ceil_mode && (geo->out[i] - 1) * geo->stride[i] >= geo->in[i] + geo->pad_begin[i])
			geo->out[i]--;
	}
	return 0;
}

static int convt_out(struct ir_graph *g, const struct ir_node *n, struct conv_geo *geo, int ap)
{
	size_t nop, nos;
	const int64_t *op = ir_attr_ints(n, "output_padding", &nop);
	const int64_t *os = ir_attr_ints(n, "output_shape", &nos);
	int i;

	if ((op && nop != (size_t)geo->sp) ||
	    (os && nos != (size_t)geo->sp && nos != (size_t)geo->sp + 2))
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL,
				     "output_padding or output_shape do not match the spatial axes");
	for (i = 0; i < geo->sp; i++) {
		int64_t ek = geo->dil[i] * (geo->kernel[i] - 1) + 1;
		int64_t opad = op ? op[i] : 0;
		int64_t full = geo->stride[i] * (geo->in[i] - 1) + opad + ek;

		if (opad < 0 || (opad >= geo->stride[i] && opad >= geo->dil[i]))
			return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "output_padding %lld",
					     (long long)opad);
		if (os || ap >= 2) {
			int64_t out = os ? os[i + nos - geo->sp] : geo->in[i] * geo->stride[i];

			if (full - out < 0)
				return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_ATTR,
						     "output_shape %lld needs negative padding",
						     (long long)out);
			split_pad(full - out, ap == 2, &geo->pad_begin[i], &geo->pad_end[i]);
		} else if (ap == 1) {
			geo->pad_begin[i] = geo->pad_end[i] = 0;
		}
		geo->out[i] = full - geo->pad_begin[i] - geo->pad_end[i];
		if (geo->out[i] < 0)
			return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "the output would be empty");
	}
	return 0;
}

int conv_geometry(struct ir_graph *g, const struct ir_node *n, struct conv_geo *geo)
{
	const struct ir_value *x = input(n, 0), *w = input(n, 1);
	bool is_conv = !strcmp(n->op, "Conv"), is_convt = !strcmp(n->op, "ConvTranspose");
	bool global = !strncmp(n->op, "Global", 6);
	size_t nk;
	const int64_t *k = ir_attr_ints(n, "kernel_shape", &nk);
	int i, ap = 0;

	memset(geo, 0, sizeof(*geo));
	if (need_rank(g, n, 0, 3, 4))
		return -1;
	geo->sp = x->rank - 2;
	geo->group = ir_attr_int(n, "group", 1);
	for (i = 0; i < geo->sp; i++)
		geo->in[i] = x->dims[i + 2];
	if (global) {
		for (i = 0; i < geo->sp; i++) {
			geo->kernel[i] = geo->in[i];
			geo->stride[i] = geo->dil[i] = geo->out[i] = 1;
		}
		return 0;
	}
	if (geo_attrs(g, n, geo) || auto_pad_mode(g, n, &ap))
		return -1;
	if (is_conv || is_convt) {
		if (need_rank(g, n, 1, x->rank, x->rank))
			return -1;
		for (i = 0; i < geo->sp; i++)
			geo->kernel[i] = w->dims[i + 2];
	}
	if (k && nk != (size_t)geo->sp)
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "kernel_shape has %zu entries", nk);
	if (!k && !is_conv && !is_convt)
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "kernel_shape is missing");
	for (i = 0; k && i < geo->sp; i++) {
		if ((is_conv || is_convt) && k[i] != geo->kernel[i])
			return ir_node_error(g, n, NPUCC_E_INVALID_MODEL,
					     "kernel_shape disagrees with the weights");
		geo->kernel[i] = k[i];
	}
	for (i = 0; i < geo->sp; i++)
		if (geo->kernel[i] < 1 || geo->kernel[i] > 0xffff)
			return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "kernel size %lld",
					     (long long)geo->kernel[i]);
	if (geo->group < 1)
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "group %lld",
				     (long long)geo->group);
	if (is_convt)
		return convt_out(g, n, geo, ap);
	return conv_out(g, n, geo, ap, ir_attr_int(n, "ceil_mode", 0) != 0);
}

int infer_conv(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_value *x = input(n, 0), *w = input(n, 1), *b = input(n, 2);
	struct conv_geo geo;
	int64_t dims[4];
	int i;

	if (conv_geometry(g, n, &geo))
		return -1;
	if (x->dims[1] != w->dims[1] * geo.group || w->dims[0] % geo.group)
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL,
				     "%lld input channels do not match weights %lldx%lld in %lld groups",
				     (long long)x->dims[1], (long long)w->dims[0],
				     (long long)w->dims[1], (long long)geo.group);
	if (b && (b->rank != 1 || b->dims[0] != w->dims[0]))
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "the bias does not match the weights");
	dims[0] = x->dims[0];
	dims[1] = w->dims[0];
	for (i = 0; i < geo.sp; i++)
		dims[2 + i] = geo.out[i];
	return set_out(g, n, 0, x->dtype, x->rank, dims);
}

int infer_conv_transpose(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_value *x = input(n, 0), *w = input(n, 1), *b = input(n, 2);
	struct conv_geo geo;
	int64_t dims[4];
	int i;

	if (conv_geometry(g, n, &geo))
		return -1;
	if (x->dims[1] != w->dims[0] || w->dims[0] % geo.group)
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL,
				     "%lld input channels do not match the weights' %lld",
				     (long long)x->dims[1], (long long)w->dims[0]);
	if (b && (b->rank != 1 || b->dims[0] != w->dims[1] * geo.group))
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "the bias does not match the weights");
	dims[0] = x->dims[0];
	dims[1] = w->dims[1] * geo.group;
	for (i = 0; i < geo.sp; i++)
		dims[2 + i] = geo.out[i];
	return set_out(g, n, 0, x->dtype, x->rank, dims);
}

int infer_pool(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_value *x = input(n, 0);
	struct conv_geo geo;
	int64_t dims[4];
	int i;

	if (conv_geometry(g, n, &geo))
		return -1;
	dims[0] = x->dims[0];
	dims[1] = x->dims[1];
	for (i = 0; i < geo.sp; i++)
		dims[2 + i] = geo.out[i];
	if (set_out(g, n, 0, x->dtype, x->rank, dims))
		return -1;
	return n->num_out > 1 ? set_out(g, n, 1, IR_INT64, x->rank, dims) : 0;
}

int infer_global_pool(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_value *x = input(n, 0);
	int64_t dims[IR_MAX_DIMS];
	int d;

	if (need_rank(g, n, 0, 3, 4))
		return -1;
	for (d = 0; d < x->rank; d++)
		dims[d] = d < 2 ? x->dims[d] : 1;
	return set_out(g, n, 0, x->dtype, x->rank, dims);
}

int infer_matmul(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_value *a = input(n, 0), *b = input(n, 1);
	int64_t da[IR_MAX_DIMS], db[IR_MAX_DIMS], dims[IR_MAX_DIMS + 8];
	int ra, rb, rank, d;

	if (need_rank(g, n, 0, 1, IR_MAX_DIMS) || need_rank(g, n, 1, 1, IR_MAX_DIMS))
		return -1;
	ra = a->rank;
	rb = b->rank;
	memcpy(da, a->dims, sizeof(da));
	memcpy(db, b->dims, sizeof(db));
	if (ra == 1) {
		da[1] = da[0];
		da[0] = 1;
		ra = 2;
	}
	if (rb == 1) {
		db[1] = 1;
		rb = 2;
	}
	if (da[ra - 1] != db[rb - 2])
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "inner dims %lld and %lld differ",
				     (long long)da[ra - 1], (long long)db[rb - 2]);
	if (broadcast2(g, n, ra - 2, da, rb - 2, db, &rank, dims))
		return -1;
	if (a->rank > 1)
		dims[rank++] = da[ra - 2];
	if (b->rank > 1)
		dims[rank++] = db[rb - 1];
	for (d = 0; d < rank; d++)
		if (dims[d] < 0)
			return -1;
	return set_out(g, n, 0, a->dtype, rank, dims);
}

int infer_gemm(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_value *a = input(n, 0), *b = input(n, 1), *c = input(n, 2);
	int ta = ir_attr_int(n, "transA", 0) != 0, tb = ir_attr_int(n, "transB", 0) != 0;
	int64_t dims[2], bd[IR_MAX_DIMS + 8];
	int rank;

	if (need_rank(g, n, 0, 2, 2) || need_rank(g, n, 1, 2, 2))
		return -1;
	if (a->dims[ta ? 0 : 1] != b->dims[tb ? 1 : 0])
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "inner dims differ");
	dims[0] = a->dims[ta ? 1 : 0];
	dims[1] = b->dims[tb ? 0 : 1];
	if (c && (c->rank > 2 || broadcast2(g, n, 2, dims, c->rank, c->dims, &rank, bd) ||
		  bd[0] != dims[0] || bd[1] != dims[1]))
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "C does not broadcast to the output");
	return set_out(g, n, 0, a->dtype, 2, dims);
}

int reduce_params(struct ir_graph *g, const struct ir_node *n, unsigned *mask, bool *keepdims)
{
	const struct ir_value *x = input(n, 0);
	int64_t axes[IR_MAX_DIMS];
	int count = 0, i, ax;
	bool from_input = n->num_in > 1 && n->in[1];

	*keepdims = ir_attr_int(n, "keepdims", 1) != 0;
	*mask = 0;
	if (from_input) {
		if (const_ints(g, n, 1, "axes", axes, IR_MAX_DIMS, &count))
			return -1;
	} else {
		size_t na;
		const int64_t *a = ir_attr_ints(n, "axes", &na);

		if (na > IR_MAX_DIMS)
			return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "too many axes");
		for (i = 0; i < (int)na; i++)
			axes[i] = a[i];
		count = (int)na;
	}
	if (!count) {
		if (ir_attr_int(n, "noop_with_empty_axes", 0))
			return 0;
		*mask = x->rank ? (1u << x->rank) - 1 : 0;
		return 0;
	}
	for (i = 0; i < count; i++) {
		if (norm_axis(g, n, axes[i], x->rank, &ax))
			return -1;
		*mask |= 1u << ax;
	}
	return 0;
}

int infer_reduce(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_value *x = input(n, 0);
	int64_t dims[IR_MAX_DIMS];
	unsigned mask;
	bool keep;
	int d, rank = 0;

	if (!x || reduce_params(g, n, &mask, &keep))
		return -1;
	for (d = 0; d < x->rank; d++) {
		if (!(mask & (1u << d)))
			dims[rank++] = x->dims[d];
		else if (keep)
			dims[rank++] = 1;
	}
	return set_out(g, n, 0, x->dtype, rank, dims);
}

int infer_concat(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_value *x = input(n, 0);
	int64_t dims[IR_MAX_DIMS];
	int axis, i, d;

	if (!x || !ir_attr_find(n, "axis"))
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "no inputs or no axis");
	if (norm_axis(g, n, ir_attr_int(n, "axis", 0), x->rank, &axis))
		return -1;
	memcpy(dims, x->dims, sizeof(dims));
	dims[axis] = 0;
	for (i = 0; i < n->num_in; i++) {
		const struct ir_value *v = n->in[i];

		if (!v || v->rank != x->rank || v->dtype != x->dtype)
			return ir_node_error(g, n, NPUCC_E_INVALID_MODEL,
					     "input %d's rank or type differs", i);
		for (d = 0; d < x->rank; d++)
			if (d != axis && v->dims[d] != x->dims[d])
				return ir_node_error(g, n, NPUCC_E_INVALID_MODEL,
						     "input %d's dim %d differs", i, d);
		dims[axis] += v->dims[axis];
	}
	return set_out(g, n, 0, x->dtype, x->rank, dims);
}

int infer_transpose(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_value *x = input(n, 0);
	int64_t dims[IR_MAX_DIMS];
	size_t np;
	const int64_t *perm = ir_attr_ints(n, "perm", &np);
	unsigned seen = 0;
	int d;

	if (perm && np != (size_t)x->rank)
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "perm has %zu entries for %d dims",
				     np, x->rank);
	for (d = 0; d < x->rank; d++) {
		int64_t p = perm ? perm[d] : x->rank - 1 - d;

		if (p < 0 || p >= x->rank || (seen & (1u << p)))
			return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "perm is not a permutation");
		seen |= 1u << p;
		dims[d] = x->dims[p];
	}
	return set_out(g, n, 0, x->dtype, x->rank, dims);
}

static int const_floats(struct ir_graph *g, const struct ir_node *n, int idx, const char *what,
			float *vals, int max, int *count)
{
	const struct ir_value *v = input(n, idx);
	int64_t i, num;

	if (!v->data)
		return ir_node_error(g, n, NPUCC_E_DYNAMIC_SHAPE,
				     "input '%s' is computed from the input data, so the output shape is not static",
				     what);
	num = ir_numel(v);
	if (v->rank != 1 || num > max)
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "input '%s' has the wrong size", what);
	for (i = 0; i < num; i++)
		vals[i] = (float)ir_get_f64(v, i);
	*count = (int)num;
	return 0;
}

/* Resize (10: X, scales; 11+: X, roi, scales, sizes) and Upsample. */
int resize_params(struct ir_graph *g, const struct ir_node *n, float *scales, int64_t *out_dims)
{
	const struct ir_value *x = input(n, 0);
	bool upsample = !strcmp(n->op, "Upsample");
	int scale_idx = upsample || g->opset < 11 ? 1 : 2, count = 0, d;
	const struct ir_value *sc = input(n, scale_idx), *sz = input(n, 3);

	if (!upsample && g->opset >= 11 && sz && ir_numel(sz) > 0) {
		int64_t sizes[IR_MAX_DIMS];

		if (const_ints(g, n, 3, "sizes", sizes, IR_MAX_DIMS, &count))
			return -1;
		if (count != x->rank)
			return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "sizes has %d entries", count);
		for (d = 0; d < x->rank; d++) {
			out_dims[d] = sizes[d];
			scales[d] = x->dims[d] ? (float)sizes[d] / (float)x->dims[d] : 1.0f;
		}
		return 0;
	}
	if (upsample && g->opset < 9) {	/* Upsample-7: scales is an attribute */
		size_t na;
		const float *a = ir_attr_floats(n, "scales", &na);

		for (d = 0; d < (int)na && d < IR_MAX_DIMS; d++)
			scales[d] = a[d];
		count = (int)na;
	} else if (!sc) {
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "neither scales nor sizes is given");
	} else if (const_floats(g, n, scale_idx, "scales", scales, IR_MAX_DIMS, &count)) {
		return -1;
	}
	if (count != x->rank)
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "scales has %d entries", count);
	for (d = 0; d < x->rank; d++) {
		if (!(scales[d] > 0) || scales[d] > 65536)
			return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "scale %g", scales[d]);
		out_dims[d] = (int64_t)floor((double)x->dims[d] * scales[d]);
	}
	return 0;
}

int infer_resize(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_value *x = input(n, 0);
	float scales[IR_MAX_DIMS];
	int64_t dims[IR_MAX_DIMS];

	if (!x || resize_params(g, n, scales, dims))
		return -1;
	return set_out(g, n, 0, x->dtype, x->rank, dims);
}

int pad_params(struct ir_graph *g, const struct ir_node *n, int64_t *begin, int64_t *end,
	       int *mode, float *value)
{
	const struct ir_value *x = input(n, 0), *cv = input(n, 2);
	const char *m = ir_attr_str(n, "mode", "constant");
	int64_t pads[2 * IR_MAX_DIMS];
	int count, d;

	if (!strcmp(m, "constant"))
		*mode = NPU_PAD_CONSTANT;
	else if (!strcmp(m, "reflect"))
		*mode = NPU_PAD_REFLECT;
	else if (!strcmp(m, "edge"))
		*mode = NPU_PAD_EDGE;
	else
		return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_ATTR, "mode '%s'", m);
	*value = 0;
	if (g->opset < 11) {
		size_t np;
		const int64_t *p = ir_attr_ints(n, "pads", &np);

		if (np > 2 * IR_MAX_DIMS)
			return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "too many pads");
		for (d = 0; d < (int)np; d++)
			pads[d] = p[d];
		count = (int)np;
		*value = ir_attr_float(n, "value", 0);
	} else {
		if (const_ints(g, n, 1, "pads", pads, 2 * IR_MAX_DIMS, &count))
			return -1;
		if (cv && ir_numel(cv)) {
			if (!cv->data)
				return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_ATTR,
						     "constant_value comes from the input data");
			*value = (float)ir_get_f64(cv, 0);
		}
	}
	if (count != 2 * x->rank)
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "pads has %d entries for %d dims",
				     count, x->rank);
	for (d = 0; d < x->rank; d++) {
		begin[d] = pads[d];
		end[d] = pads[d + x->rank];
		if (begin[d] < -(1LL << 31) || begin[d] >= (1LL << 31) ||
		    end[d] < -(1LL << 31) || end[d] >= (1LL << 31) ||
		    x->dims[d] + begin[d] + end[d] < 0)
			return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "pads out of range");
		if (*mode == NPU_PAD_REFLECT && (begin[d] >= x->dims[d] || end[d] >= x->dims[d]))
			return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_ATTR,
					     "reflect pads as large as the input");
	}
	return 0;
}

int infer_pad(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_value *x = input(n, 0);
	int64_t begin[IR_MAX_DIMS], end[IR_MAX_DIMS], dims[IR_MAX_DIMS];
	float value;
	int mode, d;

	if (!x || pad_params(g, n, begin, end, &mode, &value))
		return -1;
	for (d = 0; d < x->rank; d++)
		dims[d] = x->dims[d] + begin[d] + end[d];
	return set_out(g, n, 0, x->dtype, x->rank, dims);
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* Slice (1: attributes; 10+: inputs), with ONNX's clamping rules. */
int slice_params(struct ir_graph *g, const struct ir_node *n, int64_t *starts, int64_t *steps,
		 int64_t *out_dims)
{
	const struct ir_value *x = input(n, 0);
	int64_t st[IR_MAX_DIMS], en[IR_MAX_DIMS], ax[IR_MAX_DIMS], sp[IR_MAX_DIMS];
	int ns, ne, na, nsp, i, d;

	if (!x || x->rank < 1)
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "input 0 is missing or a scalar");
	if (g->opset < 10) {
		size_t cs, ce, ca;
		const int64_t *s = ir_attr_ints(n, "starts", &cs);
		const int64_t *e = ir_attr_ints(n, "ends", &ce);
		const int64_t *a = ir_attr_ints(n, "axes", &ca);

		if (cs > IR_MAX_DIMS || ce != cs || (a && ca != cs))
			return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "starts, ends and axes differ");
		for (i = 0; i < (int)cs; i++) {
			st[i] = s[i];
			en[i] = e[i];
			ax[i] = a ? a[i] : i;
			sp[i] = 1;
		}
		ns = (int)cs;
	} else {
		if (const_ints(g, n, 1, "starts", st, IR_MAX_DIMS, &ns) ||
		    const_ints(g, n, 2, "ends", en, IR_MAX_DIMS, &ne))
			return -1;
		if (ne != ns)
			return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "starts and ends differ");
		na = nsp = ns;
		for (i = 0; i < ns; i++) {
			ax[i] = i;
			sp[i] = 1;
		}
		if (input(n, 3) && const_ints(g, n, 3, "axes", ax, IR_MAX_DIMS, &na))
			return -1;
		if (input(n, 4) && const_ints(g, n, 4, "steps", sp, IR_MAX_DIMS, &nsp))
			return -1;
		if (na != ns || nsp != ns)
			return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "axes or steps differ in length");
	}
	for (d = 0; d < x->rank; d++) {
		starts[d] = 0;
		steps[d] = 1;
		out_dims[d] = x->dims[d];
	}
	for (i = 0; i < ns; i++) {
		int64_t dim, s, e, step = sp[i], cnt;

		if (norm_axis(g, n, ax[i], x->rank, &d))
			return -1;
		dim = x->dims[d];
		if (!step)
			return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "step 0");
		s = st[i] < 0 ? (st[i] < -dim ? 0 : st[i] + dim) : st[i];
		e = en[i] < 0 ? (en[i] < -dim ? -1 : en[i] + dim) : en[i];
		if (step > 0) {
			s = clamp64(s, 0, dim);
			e = clamp64(e, 0, dim);
			cnt = e > s ? (e - s + step - 1) / step : 0;
		} else {
			s = clamp64(s, 0, dim - 1);
			e = clamp64(e, -1, dim - 1);
			cnt = s > e ? (s - e + (-step) - 1) / (-step) : 0;
		}
		starts[d] = cnt ? s : 0;
		steps[d] = step;
		out_dims[d] = cnt;
	}
	return 0;
}

int infer_slice(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_value *x = input(n, 0);
	int64_t starts[IR_MAX_DIMS], steps[IR_MAX_DIMS], dims[IR_MAX_DIMS];

	if (slice_params(g, n, starts, steps, dims))
		return -1;
	return set_out(g, n, 0, x->dtype, x->rank, dims);
}

/*
 * Split's part sizes along *@axis: the attribute (before opset 13), the
 * constant input (13+), or equal parts.  The card has no empty tensors.
 */
int split_sizes(struct ir_graph *g, const struct ir_node *n, int *axis, int64_t *sizes)
{
	const struct ir_value *x = input(n, 0);
	int64_t total = 0;
	size_t count = 0;
	int k, num = 0;

	if (!x || norm_axis(g, n, ir_attr_int(n, "axis", 0), x->rank, axis))
		return -1;
	if (g->opset < 13 && ir_attr_find(n, "split")) {
		const int64_t *split = ir_attr_ints(n, "split", &count);

		for (k = 0; k < (int)count && k < n->num_out; k++)
			sizes[k] = split[k];
		num = (int)count;
	} else if (g->opset >= 13 && input(n, 1)) {
		if (const_ints(g, n, 1, "split", sizes, SPLIT_MAX_OUT, &num))
			return -1;
	} else {
		if (x->dims[*axis] % n->num_out)
			return ir_node_error(g, n, NPUCC_E_INVALID_MODEL,
					     "dim %d of %lld does not split in %d equal parts", *axis,
					     (long long)x->dims[*axis], n->num_out);
		for (k = 0; k < n->num_out; k++)
			sizes[k] = x->dims[*axis] / n->num_out;
		num = n->num_out;
	}
	if (num != n->num_out)
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "%d sizes for %d outputs", num,
				     n->num_out);
	for (k = 0; k < num; k++) {
		if (sizes[k] <= 0)
			return ir_node_error(g, n, NPUCC_E_LIMIT, "output %d would be empty", k);
		total += sizes[k];
	}
	if (total != x->dims[*axis])
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "the sizes add up to %lld, not %lld",
				     (long long)total, (long long)x->dims[*axis]);
	return 0;
}

int infer_split(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_value *x = input(n, 0);
	int64_t sizes[SPLIT_MAX_OUT], dims[IR_MAX_DIMS];
	int axis, k;

	if (split_sizes(g, n, &axis, sizes))
		return -1;
	memcpy(dims, x->dims, sizeof(dims));
	for (k = 0; k < n->num_out; k++) {
		dims[axis] = sizes[k];
		if (set_out(g, n, k, x->dtype, x->rank, dims))
			return -1;
	}
	return 0;
}

int infer_reshape(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_value *x = input(n, 0);
	int64_t shape[IR_MAX_DIMS + 1], known = 1, total = ir_numel(x);
	int count, d, infer_at = -1;
	bool allowzero = ir_attr_int(n, "allowzero", 0) != 0;

	if (!x || const_ints(g, n, 1, "shape", shape, IR_MAX_DIMS, &count))
		return -1;
	for (d = 0; d < count; d++) {
		if (shape[d] == 0 && !allowzero) {
			if (d >= x->rank)
				return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "0 copies a missing dim");
			shape[d] = x->dims[d];
		}
		if (shape[d] == -1) {
			if (infer_at >= 0)
				return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "two -1 dims");
			infer_at = d;
			continue;
		}
		if (shape[d] < 0)
			return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "dim %lld",
					     (long long)shape[d]);
		known *= shape[d];
	}
	if (infer_at >= 0) {
		if (!known || total % known)
			return ir_node_error(g, n, NPUCC_E_INVALID_MODEL,
					     "%lld elements do not reshape", (long long)total);
		shape[infer_at] = total / known;
		known *= shape[infer_at];
	}
	if (known != total)
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL,
				     "%lld elements cannot take a shape of %lld",
				     (long long)total, (long long)known);
	return set_out(g, n, 0, x->dtype, count, shape);
}

int infer_flatten(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_value *x = input(n, 0);
	int64_t dims[2] = { 1, 1 };
	int axis, d;

	if (ir_attr_int(n, "axis", 1) == x->rank)
		axis = x->rank;
	else if (norm_axis(g, n, ir_attr_int(n, "axis", 1), x->rank, &axis))
		return -1;
	for (d = 0; d < x->rank; d++)
		dims[d < axis ? 0 : 1] *= x->dims[d];
	return set_out(g, n, 0, x->dtype, 2, dims);
}

static int axes_list(struct ir_graph *g, const struct ir_node *n, int64_t *axes, int *count)
{
	if (g->opset >= 13) {
		*count = 0;
		return input(n, 1) ? const_ints(g, n, 1, "axes", axes, IR_MAX_DIMS, count) : 0;
	} else {
		size_t na;
		const int64_t *a = ir_attr_ints(n, "axes", &na);

		if (na > IR_MAX_DIMS)
			return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "too many axes");
		memcpy(axes, a ? a : axes, na * sizeof(*axes));
		*count = (int)na;
		return 0;
	}
}

int infer_squeeze(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_value *x = input(n, 0);
	int64_t axes[IR_MAX_DIMS], dims[IR_MAX_DIMS];
	unsigned mask = 0;
	int count, i, d, rank = 0;

	if (axes_list(g, n, axes, &count))
		return -1;
	for (i = 0; i < count; i++) {
		if (norm_axis(g, n, axes[i], x->rank, &d))
			return -1;
		if (x->dims[d] != 1)
			return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "axis %d is not 1", d);
		mask |= 1u << d;
	}
	for (d = 0; d < x->rank; d++)
		if (!(count ? mask & (1u << d) : x->dims[d] == 1))
			dims[rank++] = x->dims[d];
	return set_out(g, n, 0, x->dtype, rank, dims);
}

int infer_unsqueeze(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_value *x = input(n, 0);
	int64_t axes[IR_MAX_DIMS], dims[IR_MAX_DIMS];
	unsigned mask = 0;
	int count, i, d, k = 0, rank;

	if (axes_list(g, n, axes, &count))
		return -1;
	rank = x->rank + count;
	if (rank > IR_MAX_DIMS)
		return ir_node_error(g, n, NPUCC_E_LIMIT, "the output would have %d dims", rank);
	for (i = 0; i < count; i++) {
		if (norm_axis(g, n, axes[i], rank, &d))
			return -1;
		if (mask & (1u << d))
			return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "axis %d repeats", d);
		mask |= 1u << d;
	}
	for (d = 0; d < rank; d++)
		dims[d] = mask & (1u << d) ? 1 : x->dims[k++];
	return set_out(g, n, 0, x->dtype, rank, dims);
}

/* Constant: its value becomes the output itself, in fold_constant. */
int infer_constant(struct ir_graph *g, struct ir_node *n)
{
	if (n->num_attrs != 1)
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "needs exactly one attribute");
	if (!strcmp(n->attrs[0].name, "sparse_value") || !strncmp(n->attrs[0].name, "value_string", 12))
		return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_ATTR, "attribute '%s'",
				     n->attrs[0].name);
	return 0;
}

static void shape_range(const struct ir_node *n, int rank, int64_t *start, int64_t *end)
{
	*start = ir_attr_int(n, "start", 0);
	*end = ir_attr_int(n, "end", rank);
	if (*start < 0)
		*start += rank;
	if (*end < 0)
		*end += rank;
	*start = clamp64(*start, 0, rank);
	*end = clamp64(*end, 0, rank);
	if (*end < *start)
		*end = *start;
}

int infer_shape(struct ir_graph *g, struct ir_node *n)
{
	int64_t start, end, dims[1];

	shape_range(n, n->in[0]->rank, &start, &end);
	dims[0] = end - start;
	return set_out(g, n, 0, IR_INT64, 1, dims);
}

int infer_size(struct ir_graph *g, struct ir_node *n)
{
	return set_out(g, n, 0, IR_INT64, 0, NULL);
}

int infer_gather(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_value *x = input(n, 0), *idx = input(n, 1);
	int64_t dims[IR_MAX_DIMS + IR_MAX_DIMS];
	int axis, d, rank = 0;

	if (!idx || norm_axis(g, n, ir_attr_int(n, "axis", 0), x->rank, &axis))
		return -1;
	if (idx->dtype != IR_INT64 && idx->dtype != IR_INT32)
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "indices of type %s",
				     ir_dtype_name(idx->dtype));
	for (d = 0; d < axis; d++)
		dims[rank++] = x->dims[d];
	for (d = 0; d < idx->rank; d++)
		dims[rank++] = idx->dims[d];
	for (d = axis + 1; d < x->rank; d++)
		dims[rank++] = x->dims[d];
	return set_out(g, n, 0, x->dtype, rank, dims);
}

int infer_constant_of_shape(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_attr *a = ir_attr_find(n, "value");
	int64_t dims[IR_MAX_DIMS];
	int count;

	if (const_ints(g, n, 0, "shape", dims, IR_MAX_DIMS, &count))
		return -1;
	return set_out(g, n, 0, a && a->t ? a->t->dtype : IR_FLOAT, count, dims);
}

int infer_range(struct ir_graph *g, struct ir_node *n)
{
	double start, limit, delta;
	int64_t dims[1];
	int i;

	for (i = 0; i < 3; i++)
		if (!input(n, i) || !n->in[i]->data || ir_numel(n->in[i]) != 1)
			return ir_node_error(g, n, NPUCC_E_DYNAMIC_SHAPE,
					     "start, limit and delta must be constant scalars");
	start = ir_get_f64(n->in[0], 0);
	limit = ir_get_f64(n->in[1], 0);
	delta = ir_get_f64(n->in[2], 0);
	if (delta == 0 || !isfinite(start) || !isfinite(limit) || !isfinite(delta))
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "delta 0");
	dims[0] = (int64_t)fmax(ceil((limit - start) / delta), 0);
	if (dims[0] > (1 << 24))
		return ir_node_error(g, n, NPUCC_E_LIMIT, "%lld elements", (long long)dims[0]);
	return set_out(g, n, 0, n->in[0]->dtype, 1, dims);
}

int infer_expand(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_value *x = input(n, 0);
	int64_t shape[IR_MAX_DIMS], dims[IR_MAX_DIMS + 8];
	int count, rank;

	if (const_ints(g, n, 1, "shape", shape, IR_MAX_DIMS, &count) ||
	    broadcast2(g, n, x->rank, x->dims, count, shape, &rank, dims))
		return -1;
	return set_out(g, n, 0, x->dtype, rank, dims);
}
