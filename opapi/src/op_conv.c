// SPDX-License-Identifier: MIT
/*
 * aclnnConvolution: 2-D convolutions, plain or transposed, grouped, with a
 * bias, on the card's CONV2D and CONV_TRANSPOSE2D; a 1-D one is a 2-D one
 * over rows of height 1, seen so by views with an axis of 1.
 */
#include <endian.h>

#include "aclnnop/aclnn_convolution.h"
#include "opnn.h"

struct conv_req {
	const aclTensor *input, *weight, *bias;
	const aclIntArray *stride, *padding, *dilation, *output_padding;
	bool transposed;
	int64_t groups;
	const aclTensor *output;
	int8_t cube_math;
};

/* Spatial parameters, per axis (H, W); a 1-D convolution's H is 1, stride 1, no padding. */
struct conv_geom {
	unsigned int spatial;		/* 1 or 2 */
	int64_t stride[2], pad[2], dilation[2], out_pad[2];
};

/*
 * a's values for the last `spatial` axes: as many entries, or one for all;
 * an empty or NULL array gives dflt when allow_empty.
 */
static aclnnStatus conv_param(struct opnn *o, const aclIntArray *a, const char *name,
			      unsigned int spatial, int64_t min, bool allow_empty, int64_t dflt,
			      int64_t *out)
{
	uint64_t n = a ? nnop_int_array_size(a) : 0;
	unsigned int d;

	out[0] = out[1] = dflt;
	if (!n && allow_empty)
		return ACLNN_SUCCESS;
	if (!a)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_NULLPTR, "%s is NULL", name);
	if (n != spatial && n != 1)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "%s has %llu entries; expected %u",
				 name, (unsigned long long)n, spatial);
	for (d = 0; d < spatial; d++) {
		int64_t v = nnop_int_array_data(a)[n == 1 ? 0 : d];

		if (v < min)
			return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "%s[%u] = %lld; at least %lld",
					 name, d, (long long)v, (long long)min);
		out[2 - spatial + d] = v;
	}
	return ACLNN_SUCCESS;
}

static aclnnStatus conv_geometry(struct opnn *o, const struct conv_req *r, unsigned int rank,
				 struct conv_geom *g)
{
	g->spatial = rank - 2;
	OPNN_TRY(conv_param(o, r->stride, "stride", g->spatial, 1, false, 1, g->stride));
	OPNN_TRY(conv_param(o, r->padding, "padding", g->spatial, 0, false, 0, g->pad));
	OPNN_TRY(conv_param(o, r->dilation, "dilation", g->spatial, 1, false, 1, g->dilation));
	OPNN_TRY(conv_param(o, r->output_padding, "outputPadding", g->spatial, 0, true, 0,
			 g->out_pad));
	if (r->transposed) {
		unsigned int d;

		for (d = 0; d < 2; d++)
			if (g->out_pad[d] >= g->stride[d] && g->out_pad[d] >= g->dilation[d])
				return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
						 "outputPadding must be smaller than stride or dilation");
	}
	return ACLNN_SUCCESS;
}

/* The output's dims (4-D) from the input's and the weight's (4-D). */
static aclnnStatus conv_out_dims(struct opnn *o, const struct conv_req *r,
				 const struct conv_geom *g, const int64_t *x, const int64_t *w,
				 int64_t *y)
{
	unsigned int d;

	if (r->groups < 1 || x[1] % r->groups)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "groups %lld must be positive and divide the %lld input channels",
				 (long long)r->groups, (long long)x[1]);
	if (r->transposed ? w[0] != x[1] : w[1] * r->groups != x[1])
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "weight's channels (%lld, %lld) do not match input's %lld in %lld groups",
				 (long long)w[0], (long long)w[1], (long long)x[1],
				 (long long)r->groups);
	if (!r->transposed && w[0] % r->groups)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "the %lld output channels are not a multiple of groups %lld",
				 (long long)w[0], (long long)r->groups);
	y[0] = x[0];
	y[1] = r->transposed ? w[1] * r->groups : w[0];
	for (d = 0; d < 2; d++) {
		int64_t span = g->dilation[d] * (w[2 + d] - 1) + 1;

		if (r->transposed)
			y[2 + d] = (x[2 + d] - 1) * g->stride[d] - 2 * g->pad[d] + span +
				   g->out_pad[d];
		else
			y[2 + d] = (x[2 + d] + 2 * g->pad[d] - span) / g->stride[d] + 1;
		if (y[2 + d] <= 0 || (!r->transposed && x[2 + d] + 2 * g->pad[d] < span))
			return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
					 "the kernel (%lld) does not fit the padded input (%lld)",
					 (long long)span, (long long)(x[2 + d] + 2 * g->pad[d]));
	}
	return ACLNN_SUCCESS;
}

static aclnnStatus conv_views(struct opnn *o, const struct conv_req *r, struct nnop_view *v,
			      unsigned int *n)
{
	*n = 0;
	OPNN_TRY(opnn_input(o, r->input, &v[(*n)++]));
	OPNN_TRY(opnn_input(o, r->weight, &v[(*n)++]));
	if (r->bias) {
		OPNN_TRY(opnn_check_tensor(o, r->bias, "bias", OPNN_FLOATS));
		OPNN_TRY(opnn_check_rank(o, r->bias, "bias", 1, 1));
		OPNN_TRY(opnn_input(o, r->bias, &v[(*n)++]));
	}
	return opnn_output(o, r->output, &v[*n]);
}

static aclnnStatus conv_build(struct opnn *o, const struct conv_req *r)
{
	int64_t x[4], w[4], y[4];
	struct npu_attr_conv attr = { 0 };
	struct nnop_tensor_info xi, wi;
	struct nnop_view v[4];
	struct conv_geom g;
	unsigned int n, i, d;

	OPNN_TRY(opnn_check_tensor(o, r->input, "input", OPNN_FLOATS));
	OPNN_TRY(opnn_check_tensor(o, r->weight, "weight", OPNN_FLOATS));
	OPNN_TRY(opnn_check_tensor(o, r->output, "output", OPNN_FLOATS));
	OPNN_TRY(opnn_check_same_dtype(o, r->input, "input", r->weight, "weight"));
	OPNN_TRY(opnn_check_same_dtype(o, r->input, "input", r->output, "output"));
	OPNN_TRY(opnn_check_rank(o, r->input, "input", 3, 4));
	nnop_tensor_info(r->input, &xi);
	nnop_tensor_info(r->weight, &wi);
	OPNN_TRY(opnn_check_rank(o, r->weight, "weight", xi.ndims, xi.ndims));
	OPNN_TRY(conv_geometry(o, r, xi.ndims, &g));
	/* a 1-D convolution's H axis of 1 */
	for (d = 0, i = 0; d < 4; d++) {
		bool h1 = xi.ndims == 3 && d == 2;

		x[d] = h1 ? 1 : xi.dims[i];
		w[d] = h1 ? 1 : wi.dims[i];
		i += !h1;
	}
	OPNN_TRY(conv_out_dims(o, r, &g, x, w, y));
	if (xi.ndims == 3) {
		int64_t y3[3] = { y[0], y[1], y[3] };

		OPNN_TRY(opnn_check_dims(o, r->output, "output", 3, y3));
	} else {
		OPNN_TRY(opnn_check_dims(o, r->output, "output", 4, y));
	}
	OPNN_TRY(conv_views(o, r, v, &n));
	if (r->bias && v[2].dims[0] != y[1])
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "bias has %lld entries; expected %lld",
				 (long long)v[2].dims[0], (long long)y[1]);
	if (xi.ndims == 3) {
		nnop_view_unsqueeze(&v[0], 2);
		nnop_view_unsqueeze(&v[1], 2);
		nnop_view_unsqueeze(&v[n], 2);
	}
	if (!opnn_view_nelems(&v[n]))
		return ACLNN_SUCCESS;
	if (!xi.nelems || !wi.nelems)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "input or weight is empty");
	for (d = 0; d < 2; d++) {
		attr.strides[d] = htole32((uint32_t)g.stride[d]);
		attr.dilations[d] = htole32((uint32_t)g.dilation[d]);
		attr.pads_begin[d] = htole32((uint32_t)g.pad[d]);
	}
	attr.group = htole32((uint32_t)r->groups);
	attr.act = opnn_no_act();
	return opnn_add(o, r->transposed ? NPU_OPERATOR_CONV_TRANSPOSE2D : NPU_OPERATOR_CONV2D,
			&attr, sizeof(attr), n, v);
}

aclnnStatus aclnnConvolutionGetWorkspaceSize(const aclTensor *input, const aclTensor *weight,
					     const aclTensor *bias, const aclIntArray *stride,
					     const aclIntArray *padding, const aclIntArray *dilation,
					     bool transposed, const aclIntArray *outputPadding,
					     const int64_t groups, aclTensor *output,
					     int8_t cubeMathType, uint64_t *workspaceSize,
					     aclOpExecutor **executor)
{
	const struct conv_req r = { input, weight, bias, stride, padding, dilation, outputPadding,
				    transposed, groups, output, cubeMathType };
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, __func__, "Convolution"));
	return opnn_end(&o, conv_build(&o, &r), workspaceSize, executor);
}

OPNN_LAUNCH(Convolution)
