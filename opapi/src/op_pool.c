// SPDX-License-Identifier: MIT
/*
 * Pooling: AvgPool2d (PyTorch's) and MaxPool (ONNX's, as the vendor
 * gives it) on the card's POOL2D over (N, C, H, W); a (C, H, W) input is
 * seen with N = 1.
 */
#include <endian.h>

#include "aclnnop/aclnn_avgpool2d.h"
#include "aclnnop/aclnn_max_pool.h"
#include "opnn.h"

struct pool_geom {
	int64_t kernel[2], stride[2], dilation[2];
	int64_t pad_begin[2], pad_end[2];
	bool ceil;
};

/* An array of 2 values, or 1 for both; empty gives dflt when that is not 0. */
static aclnnStatus pool_pair(struct opnn *o, const aclIntArray *a, const char *name, int64_t min,
			     int64_t dflt, int64_t *out)
{
	uint64_t n = a ? nnop_int_array_size(a) : 0;

	if (!a && !dflt)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_NULLPTR, "%s is NULL", name);
	if (!n && dflt) {
		out[0] = out[1] = dflt;
		return ACLNN_SUCCESS;
	}
	if (n != 1 && n != 2)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "%s has %llu entries; expected 1 or 2",
				 name, (unsigned long long)n);
	out[0] = nnop_int_array_data(a)[0];
	out[1] = nnop_int_array_data(a)[n - 1];
	if (out[0] < min || out[1] < min)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "%s (%lld, %lld): each at least %lld",
				 name, (long long)out[0], (long long)out[1], (long long)min);
	return ACLNN_SUCCESS;
}

/* Output size per PyTorch: ceil mode drops a last window that would start in the end padding. */
static int64_t pool_out_size(const struct pool_geom *g, unsigned int d, int64_t in)
{
	int64_t span = g->dilation[d] * (g->kernel[d] - 1) + 1;
	int64_t room = in + g->pad_begin[d] + g->pad_end[d] - span;
	int64_t out;

	if (room < 0)
		return 0;
	out = (g->ceil ? room + g->stride[d] - 1 : room) / g->stride[d] + 1;
	if (g->ceil && (out - 1) * g->stride[d] >= in + g->pad_begin[d])
		out--;
	return out;
}

static aclnnStatus pool_build(struct opnn *o, const aclTensor *self, const aclTensor *out,
			      const struct pool_geom *g, unsigned int kind, uint64_t types,
			      double scale)
{
	struct npu_attr_pool attr = { 0 };
	int64_t want[4];
	struct nnop_tensor_info si;
	struct nnop_view v[2];
	unsigned int d, h;

	OPNN_TRY(opnn_check_tensor(o, self, "self", types));
	OPNN_TRY(opnn_check_tensor(o, out, "out", types));
	OPNN_TRY(opnn_check_same_dtype(o, self, "self", out, "out"));
	OPNN_TRY(opnn_check_rank(o, self, "self", 3, 4));
	nnop_tensor_info(self, &si);
	h = si.ndims - 2;
	for (d = 0; d < 2; d++) {
		int64_t span = g->dilation[d] * (g->kernel[d] - 1) + 1;

		if (g->pad_begin[d] * 2 > span || g->pad_end[d] * 2 > span)
			return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
					 "padding (%lld, %lld) exceeds half the window (%lld)",
					 (long long)g->pad_begin[d], (long long)g->pad_end[d],
					 (long long)span);
	}
	memcpy(want, si.dims, si.ndims * sizeof(*want));
	want[h] = pool_out_size(g, 0, si.dims[h]);
	want[h + 1] = pool_out_size(g, 1, si.dims[h + 1]);
	if (!want[h] || !want[h + 1])
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "the window does not fit the padded input (%lld x %lld)",
				 (long long)si.dims[h], (long long)si.dims[h + 1]);
	OPNN_TRY(opnn_check_dims(o, out, "out", si.ndims, want));
	OPNN_TRY(opnn_input(o, self, &v[0]));
	OPNN_TRY(opnn_output(o, out, &v[1]));
	nnop_view_align(&v[0], 4);
	nnop_view_align(&v[1], 4);
	if (!si.nelems)
		return ACLNN_SUCCESS;
	attr.kind = htole32(kind);
	for (d = 0; d < 2; d++) {
		attr.kernel[d] = htole32((uint32_t)g->kernel[d]);
		attr.strides[d] = htole32((uint32_t)g->stride[d]);
		attr.dilations[d] = htole32((uint32_t)g->dilation[d]);
		attr.pads_begin[d] = htole32((uint32_t)g->pad_begin[d]);
	}
	OPNN_TRY(opnn_add(o, NPU_OPERATOR_POOL2D, &attr, sizeof(attr), 1, v));
	return scale == 1 ? ACLNN_SUCCESS :
			    opnn_binary_scalar(o, NPU_BINARY_MUL, &v[1], scale, &v[1]);
}

static aclnnStatus avg_pool_build(struct opnn *o, const aclTensor *self,
				  const aclIntArray *kernel, const aclIntArray *strides,
				  const aclIntArray *paddings, bool ceil_mode,
				  bool count_include_pad, int64_t divisor, const aclTensor *out)
{
	struct pool_geom g = { .ceil = ceil_mode, .dilation = { 1, 1 } };
	unsigned int kind = count_include_pad ? NPU_POOL_AVG_INCLUDE_PAD :
						NPU_POOL_AVG_EXCLUDE_PAD;
	double scale = 1;

	OPNN_TRY(pool_pair(o, kernel, "kernelSize", 1, 0, g.kernel));
	OPNN_TRY(pool_pair(o, strides, "strides", 1, -1, g.stride));
	if (g.stride[0] == -1) {
		g.stride[0] = g.kernel[0];
		g.stride[1] = g.kernel[1];
	}
	OPNN_TRY(pool_pair(o, paddings, "paddings", 0, 0, g.pad_begin));
	memcpy(g.pad_end, g.pad_begin, sizeof(g.pad_end));
	if (divisor) {
		/* the whole window's sum over divisor: the include-pad mean times its size */
		if (divisor < 0)
			return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "divisorOverride %lld is negative",
					 (long long)divisor);
		kind = NPU_POOL_AVG_INCLUDE_PAD;
		scale = (double)(g.kernel[0] * g.kernel[1]) / (double)divisor;
	}
	return pool_build(o, self, out, &g, kind, OPNN_FLOATS, scale);
}

aclnnStatus aclnnAvgPool2dGetWorkspaceSize(const aclTensor *self, const aclIntArray *kernelSize,
					   const aclIntArray *strides, const aclIntArray *paddings,
					   const bool ceilMode, const bool countIncludePad,
					   const int64_t divisorOverride, const int8_t cubeMathType,
					   aclTensor *out, uint64_t *workspaceSize,
					   aclOpExecutor **executor)
{
	struct opnn o;

	(void)cubeMathType;	/* the card computes every type exactly */
	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, __func__, "AvgPool2d"));
	return opnn_end(&o, avg_pool_build(&o, self, kernelSize, strides, paddings, ceilMode,
					   countIncludePad, divisorOverride, out),
			workspaceSize, executor);
}

OPNN_LAUNCH(AvgPool2d)

/* pads: none, one for all, (H, W) for both ends, or (top, left, bottom, right). */
static aclnnStatus max_pool_pads(struct opnn *o, const aclIntArray *pads, struct pool_geom *g)
{
	uint64_t n = pads ? nnop_int_array_size(pads) : 0;
	const int64_t *p = n ? nnop_int_array_data(pads) : NULL;
	unsigned int d;

	if (n == 4) {
		for (d = 0; d < 2; d++) {
			g->pad_begin[d] = p[d];
			g->pad_end[d] = p[2 + d];
		}
	} else if (n <= 2) {
		for (d = 0; d < 2; d++)
			g->pad_begin[d] = g->pad_end[d] = n ? p[n == 2 ? d : 0] : 0;
	} else {
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "pads has %llu entries; expected 0, 1, 2 or 4",
				 (unsigned long long)n);
	}
	for (d = 0; d < 2; d++)
		if (g->pad_begin[d] < 0 || g->pad_end[d] < 0)
			return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "pads are not negative");
	return ACLNN_SUCCESS;
}

static aclnnStatus max_pool_build(struct opnn *o, const aclTensor *self, const aclIntArray *kernel,
				  const aclIntArray *strides, int64_t auto_pad,
				  const aclIntArray *pads, const aclIntArray *dilations,
				  int64_t ceil_mode, const aclTensor *out)
{
	struct pool_geom g = { .ceil = ceil_mode != 0 };

	if (auto_pad)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "autoPad %lld: only 0 (NOTSET) is supported", (long long)auto_pad);
	OPNN_TRY(pool_pair(o, kernel, "kernelShape", 1, 0, g.kernel));
	OPNN_TRY(pool_pair(o, strides, "strides", 1, 1, g.stride));
	OPNN_TRY(pool_pair(o, dilations, "dilations", 1, 1, g.dilation));
	OPNN_TRY(max_pool_pads(o, pads, &g));
	return pool_build(o, self, out, &g, NPU_POOL_MAX, OPNN_FLOATS, 1);
}

aclnnStatus aclnnMaxPoolGetWorkspaceSize(const aclTensor *self, const aclIntArray *kernelShape,
					 const aclIntArray *strides, const int64_t autoPad,
					 const aclIntArray *pads, const aclIntArray *dilations,
					 const int64_t ceilMode, aclTensor *out,
					 uint64_t *workspaceSize, aclOpExecutor **executor)
{
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, __func__, "MaxPool"));
	return opnn_end(&o, max_pool_build(&o, self, kernelShape, strides, autoPad, pads,
					   dilations, ceilMode, out),
			workspaceSize, executor);
}

OPNN_LAUNCH(MaxPool)
