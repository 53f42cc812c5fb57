/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the card's operators compute, as plain C loops in double precision:
 * the reference compute_test holds the card's results against. A tensor
 * here is the host image of a card tensor: its values as floats at their
 * element offsets, gaps between strided rows and NCHW16C's padding
 * channels included. Each reference writes its output densely, in the
 * output's row-major logical order.
 */
#ifndef COMPUTE_REF_H
#define COMPUTE_REF_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "npu_operator.h"

#define REF_MAX_INPUTS	(NPU_OP_MAX_TENSORS - 1)

struct ref_tensor {
	uint16_t dtype;
	uint16_t format;
	unsigned int ndims;
	uint64_t dims[NPU_TENSOR_MAX_DIMS];
	uint64_t strides[NPU_TENSOR_MAX_DIMS];	/* elements; 0 for NCHW16C */
	uint64_t elems;		/* elements the image spans */
	float *val;
};

static inline float ref_f32(uint32_t bits)
{
	float f;

	memcpy(&f, &bits, sizeof(f));
	return f;
}

static inline uint32_t ref_bits(float f)
{
	uint32_t bits;

	memcpy(&bits, &f, sizeof(bits));
	return bits;
}

static inline uint64_t ref_count(const struct ref_tensor *t)
{
	uint64_t n = 1;
	unsigned int d;

	for (d = 0; d < t->ndims; d++)
		n *= t->dims[d];
	return n;
}

/* Steps a row-major index; false once it wraps around to all zeros. */
static inline bool ref_next(uint64_t *idx, const uint64_t *dims, unsigned int ndims)
{
	int d;

	for (d = (int)ndims - 1; d >= 0; d--) {
		if (++idx[d] < dims[d])
			return true;
		idx[d] = 0;
	}
	return false;
}

/* nChw16c: blocks of 16 channels, the block innermost. */
static inline uint64_t ref_offset(const struct ref_tensor *t, const uint64_t *idx)
{
	uint64_t off = 0;
	unsigned int d;

	if (t->format == NPU_FORMAT_NCHW16C) {
		uint64_t blocks = (t->dims[1] + 15) / 16;

		return (((idx[0] * blocks + idx[1] / 16) * t->dims[2] + idx[2]) * t->dims[3] +
			idx[3]) * 16 + idx[1] % 16;
	}
	for (d = 0; d < t->ndims; d++)
		off += idx[d] * t->strides[d];
	return off;
}

static inline double ref_at(const struct ref_tensor *t, const uint64_t *idx)
{
	return t->val[ref_offset(t, idx)];
}

/* Element @i of a rank-1 tensor. */
static inline double ref_at1(const struct ref_tensor *t, uint64_t i)
{
	uint64_t idx[NPU_TENSOR_MAX_DIMS] = { i };

	return ref_at(t, idx);
}

/* Numpy broadcasting between tensors of one rank: a dim of 1 repeats. */
static inline double ref_bcast(const struct ref_tensor *t, const uint64_t *idx)
{
	uint64_t at[NPU_TENSOR_MAX_DIMS];
	unsigned int d;

	for (d = 0; d < t->ndims; d++)
		at[d] = t->dims[d] == 1 ? 0 : idx[d];
	return ref_at(t, at);
}

static inline double ref_act(const struct npu_activation *a, double x)
{
	double alpha = ref_f32(a->alpha), beta = ref_f32(a->beta);

	switch (a->kind) {
	case NPU_UNARY_RELU:
		return x > 0 ? x : 0;
	case NPU_UNARY_CLIP:
		return x < alpha ? alpha : x > beta ? beta : x;
	case NPU_UNARY_SIGMOID:
		return 1 / (1 + exp(-x));
	case NPU_UNARY_HARDSIGMOID:
		return fmax(0, fmin(1, alpha * x + beta));
	case NPU_UNARY_HARDSWISH:
		return x * fmax(0, fmin(1, x / 6 + 0.5));
	case NPU_UNARY_LEAKY_RELU:
		return x >= 0 ? x : alpha * x;
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
		return 0.5 * x * (1 + erf(x / sqrt(2)));
	case NPU_UNARY_ELU:
		return x > 0 ? x : alpha * (exp(x) - 1);
	case NPU_UNARY_SOFTPLUS:
		return log1p(exp(x));
	case NPU_UNARY_SIN:
		return sin(x);
	case NPU_UNARY_COS:
		return cos(x);
	case NPU_UNARY_RSQRT:
		return 1 / sqrt(x);
	case NPU_UNARY_SILU:
		return x / (1 + exp(-x));
	case NPU_UNARY_GELU_TANH:
		return 0.5 * x * (1 + tanh(sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
	case NPU_UNARY_SIGN:
		return x > 0 ? 1 : x < 0 ? -1 : x;
	case NPU_UNARY_THRESHOLD:
		return x > alpha ? x : beta;
	case NPU_UNARY_SOFTPLUS_BETA:
		return x * alpha > beta ? x : log1p(exp(alpha * x)) / alpha;
	case NPU_UNARY_LOGICAL_NOT:
		return x == 0;
	case NPU_UNARY_RECIPROCAL:
		return 1 / x;
	default:
		return x;
	}
}

static inline void ref_unary(const struct ref_tensor *x, const struct npu_attr_unary *a,
			     double *y)
{
	uint64_t idx[NPU_TENSOR_MAX_DIMS] = { 0 }, i = 0;

	do
		y[i++] = ref_act(&a->fn, ref_at(x, idx));
	while (ref_next(idx, x->dims, x->ndims));
}

static inline double ref_binary_fn(uint32_t kind, double a, double b)
{
	switch (kind) {
	case NPU_BINARY_ADD:
		return a + b;
	case NPU_BINARY_SUB:
		return a - b;
	case NPU_BINARY_MUL:
		return a * b;
	case NPU_BINARY_DIV:
		return a / b;
	case NPU_BINARY_POW:
		return pow(a, b);
	case NPU_BINARY_MIN:
		return fmin(a, b);
	case NPU_BINARY_EQ:
		return a == b;
	case NPU_BINARY_NE:
		return a != b;
	case NPU_BINARY_LT:
		return a < b;
	case NPU_BINARY_LE:
		return a <= b;
	case NPU_BINARY_GT:
		return a > b;
	case NPU_BINARY_GE:
		return a >= b;
	default:
		return fmax(a, b);
	}
}

static inline void ref_binary(const struct ref_tensor *a, const struct ref_tensor *b,
			      const struct ref_tensor *yt, const struct npu_attr_binary *at,
			      double *y)
{
	uint64_t idx[NPU_TENSOR_MAX_DIMS] = { 0 }, i = 0;

	do
		y[i++] = ref_act(&at->act, ref_binary_fn(at->kind, ref_bcast(a, idx),
							  ref_bcast(b, idx)));
	while (ref_next(idx, yt->dims, yt->ndims));
}

/* y = act(alpha * a' b' + beta * c), batch axes and c broadcast. */
static inline void ref_matmul(const struct ref_tensor *a, const struct ref_tensor *b,
			      const struct ref_tensor *c, const struct ref_tensor *yt,
			      const struct npu_attr_matmul *at, double *y)
{
	unsigned int r = yt->ndims;
	uint64_t idx[NPU_TENSOR_MAX_DIMS] = { 0 }, ai[NPU_TENSOR_MAX_DIMS],
		 bi[NPU_TENSOR_MAX_DIMS], i = 0, k, kdim;
	double alpha = ref_f32(at->alpha), beta = ref_f32(at->beta);

	kdim = at->trans_a ? a->dims[r - 2] : a->dims[r - 1];
	do {
		double sum = 0;
		unsigned int d;

		for (d = 0; d < r - 2; d++) {
			ai[d] = a->dims[d] == 1 ? 0 : idx[d];
			bi[d] = b->dims[d] == 1 ? 0 : idx[d];
		}
		for (k = 0; k < kdim; k++) {
			ai[r - 2] = at->trans_a ? k : idx[r - 2];
			ai[r - 1] = at->trans_a ? idx[r - 2] : k;
			bi[r - 2] = at->trans_b ? idx[r - 1] : k;
			bi[r - 1] = at->trans_b ? k : idx[r - 1];
			sum += ref_at(a, ai) * ref_at(b, bi);
		}
		sum *= alpha;
		if (c)
			sum += beta * ref_bcast(c, idx);
		y[i++] = ref_act(&at->act, sum);
	} while (ref_next(idx, yt->dims, r));
}

/*
 * The input coordinate that kernel tap @k brings to output coordinate @o,
 * or -1: o = i * stride - pad + k * dilation for a convolution; for its
 * transpose the roles of i and o are swapped.
 */
static inline int64_t ref_conv_tap(bool transpose, uint64_t o, uint64_t k, uint32_t stride,
				   uint32_t dilation, uint32_t pad, uint64_t len)
{
	int64_t i;

	if (transpose) {
		i = (int64_t)o + pad - (int64_t)(k * dilation);
		if (i < 0 || i % stride)
			return -1;
		i /= stride;
	} else {
		i = (int64_t)(o * stride + k * dilation) - pad;
	}
	return i >= 0 && (uint64_t)i < len ? i : -1;
}

/* Convolution over NCHW, or its transpose: w is (O, C/G, ..) or (C, O/G, ..). */
static inline void ref_conv(const struct ref_tensor *x, const struct ref_tensor *w,
			    const struct ref_tensor *b, const struct ref_tensor *yt,
			    const struct npu_attr_conv *at, bool transpose, double *y)
{
	uint64_t cg = x->dims[1] / at->group, og = yt->dims[1] / at->group;
	uint64_t idx[4] = { 0 }, i = 0, ci, kh, kw;

	do {
		uint64_t o = idx[1], g = o / og, xi[4], wi[4];
		double sum = b ? ref_at1(b, o) : 0;

		xi[0] = idx[0];
		for (ci = 0; ci < cg; ci++) {
			xi[1] = g * cg + ci;
			wi[0] = transpose ? xi[1] : o;
			wi[1] = transpose ? o % og : ci;
			for (kh = 0; kh < w->dims[2]; kh++) {
				int64_t h = ref_conv_tap(transpose, idx[2], kh, at->strides[0],
							 at->dilations[0], at->pads_begin[0],
							 x->dims[2]);

				for (kw = 0; h >= 0 && kw < w->dims[3]; kw++) {
					int64_t v = ref_conv_tap(transpose, idx[3], kw,
								 at->strides[1], at->dilations[1],
								 at->pads_begin[1], x->dims[3]);

					if (v < 0)
						continue;
					xi[2] = h, xi[3] = v, wi[2] = kh, wi[3] = kw;
					sum += ref_at(x, xi) * ref_at(w, wi);
				}
			}
		}
		y[i++] = ref_act(&at->act, sum);
	} while (ref_next(idx, yt->dims, 4));
}

static inline void ref_pool(const struct ref_tensor *x, const struct ref_tensor *yt,
			    const struct npu_attr_pool *at, double *y)
{
	uint64_t idx[4] = { 0 }, xi[4], i = 0, kh, kw;

	do {
		double acc = at->kind == NPU_POOL_MAX ? -INFINITY : 0;
		unsigned int inside = 0;

		xi[0] = idx[0];
		xi[1] = idx[1];
		for (kh = 0; kh < at->kernel[0]; kh++) {
			for (kw = 0; kw < at->kernel[1]; kw++) {
				int64_t h = (int64_t)(idx[2] * at->strides[0] +
						      kh * at->dilations[0]) - at->pads_begin[0];
				int64_t w = (int64_t)(idx[3] * at->strides[1] +
						      kw * at->dilations[1]) - at->pads_begin[1];

				if (h < 0 || w < 0 || (uint64_t)h >= x->dims[2] ||
				    (uint64_t)w >= x->dims[3])
					continue;
				xi[2] = h;
				xi[3] = w;
				inside++;
				if (at->kind == NPU_POOL_MAX)
					acc = fmax(acc, ref_at(x, xi));
				else
					acc += ref_at(x, xi);
			}
		}
		if (at->kind == NPU_POOL_AVG_INCLUDE_PAD)
			acc /= at->kernel[0] * at->kernel[1];
		else if (at->kind == NPU_POOL_AVG_EXCLUDE_PAD)
			acc /= inside;
		y[i++] = acc;
	} while (ref_next(idx, yt->dims, 4));
}

/* Inference batch norm over axis 1: inputs x, scale, bias, mean, var. */
static inline void ref_batchnorm(const struct ref_tensor *const *in,
				 const struct npu_attr_norm *at, double *y)
{
	const struct ref_tensor *x = in[0];
	uint64_t idx[NPU_TENSOR_MAX_DIMS] = { 0 }, i = 0;
	double eps = ref_f32(at->epsilon);

	do {
		uint64_t c = idx[1];
		double v = (ref_at(x, idx) - ref_at1(in[3], c)) / sqrt(ref_at1(in[4], c) + eps);

		y[i++] = ref_act(&at->act, v * ref_at1(in[1], c) + ref_at1(in[2], c));
	} while (ref_next(idx, x->dims, x->ndims));
}

/* Normalized over the axes from @axis on; scale and bias have those dims. */
static inline void ref_layernorm(const struct ref_tensor *x, const struct ref_tensor *scale,
				 const struct ref_tensor *bias, const struct npu_attr_norm *at,
				 double *y)
{
	uint64_t inner = 1, outer = 1, o, j, idx[NPU_TENSOR_MAX_DIMS], rest;
	double eps = ref_f32(at->epsilon);
	unsigned int d;

	for (d = 0; d < x->ndims; d++) {
		if (d < at->axis)
			outer *= x->dims[d];
		else
			inner *= x->dims[d];
	}
	for (o = 0; o < outer; o++) {
		double mean = 0, var = 0, v;

		for (j = 0; j < 2 * inner; j++) {
			rest = o * inner + j % inner;
			for (d = x->ndims; d-- > 0;) {
				idx[d] = rest % x->dims[d];
				rest /= x->dims[d];
			}
			v = ref_at(x, idx);
			if (j < inner)
				mean += v / inner;
			else
				var += (v - mean) * (v - mean) / inner;
		}
		for (j = 0; j < inner; j++) {
			rest = o * inner + j;
			for (d = x->ndims; d-- > 0;) {
				idx[d] = rest % x->dims[d];
				rest /= x->dims[d];
			}
			v = (ref_at(x, idx) - mean) / sqrt(var + eps);
			v *= ref_at(scale, idx + at->axis);
			if (bias)
				v += ref_at(bias, idx + at->axis);
			y[o * inner + j] = ref_act(&at->act, v);
		}
	}
}

/* x's element idx, or 0 outside the triangle of the last two axes. */
static inline void ref_triangle(const struct ref_tensor *x, const struct npu_attr_triangle *at,
				double *y)
{
	uint64_t idx[NPU_TENSOR_MAX_DIMS] = { 0 }, i = 0;
	int64_t diagonal = (int64_t)at->diagonal, col;

	do {
		col = (int64_t)idx[x->ndims - 1] - (int64_t)idx[x->ndims - 2];
		y[i++] = (at->upper ? col >= diagonal : col <= diagonal) ? ref_at(x, idx) : 0;
	} while (ref_next(idx, x->dims, x->ndims));
}

/* x's rows from @axis on divided by their root mean square, times gamma. */
static inline void ref_rmsnorm(const struct ref_tensor *x, const struct ref_tensor *gamma,
			       const struct npu_attr_norm *at, double *y)
{
	uint64_t idx[NPU_TENSOR_MAX_DIMS] = { 0 }, inner = 1, i = 0, j;
	unsigned int d;

	for (d = at->axis; d < x->ndims; d++)
		inner *= x->dims[d];
	do {
		double sum = 0, r;
		uint64_t row[NPU_TENSOR_MAX_DIMS];

		memcpy(row, idx, sizeof(row));
		for (j = 0; j < inner; j++) {
			sum += ref_at(x, row) * ref_at(x, row);
			ref_next(row, x->dims, x->ndims);
		}
		r = 1 / sqrt(sum / inner + ref_f32(at->epsilon));
		for (j = 0; j < inner; j++, i++) {
			y[i] = ref_act(&at->act, ref_at(x, idx) * r * ref_at(gamma, idx + at->axis));
			ref_next(idx, x->dims, x->ndims);
		}
	} while (i < ref_count(x));
}

/* x (N, C, ...) normalized per group of channels, then per channel. */
static inline void ref_groupnorm(const struct ref_tensor *x, const struct ref_tensor *gamma,
				 const struct ref_tensor *beta,
				 const struct npu_attr_groupnorm *at, double *y)
{
	uint64_t idx[NPU_TENSOR_MAX_DIMS] = { 0 }, spatial = 1, per, i = 0, j;
	unsigned int d;

	for (d = 2; d < x->ndims; d++)
		spatial *= x->dims[d];
	per = x->dims[1] / at->groups * spatial;
	/* in row-major order, a group's elements follow each other */
	do {
		uint64_t first[NPU_TENSOR_MAX_DIMS];
		double mean = 0, var = 0, v;

		memcpy(first, idx, sizeof(first));
		for (j = 0; j < per; j++) {
			mean += ref_at(x, idx) / per;
			ref_next(idx, x->dims, x->ndims);
		}
		memcpy(idx, first, sizeof(idx));
		for (j = 0; j < per; j++) {
			v = ref_at(x, idx) - mean;
			var += v * v / per;
			ref_next(idx, x->dims, x->ndims);
		}
		memcpy(idx, first, sizeof(idx));
		for (j = 0; j < per; j++, i++) {
			v = (ref_at(x, idx) - mean) / sqrt(var + ref_f32(at->epsilon));
			y[i] = ref_act(&at->act, v * ref_at1(gamma, idx[1]) + ref_at1(beta, idx[1]));
			ref_next(idx, x->dims, x->ndims);
		}
	} while (i < ref_count(x));
}

/* Softmax along one axis; @y is dense, in x's logical order. */
static inline void ref_softmax(const struct ref_tensor *x, const struct npu_attr_softmax *at,
			       double *y)
{
	uint64_t idx[NPU_TENSOR_MAX_DIMS] = { 0 }, i = 0, k, n = x->dims[at->axis];

	do {
		uint64_t at_k[NPU_TENSOR_MAX_DIMS];
		double max = -INFINITY, sum = 0;

		memcpy(at_k, idx, sizeof(at_k));
		for (k = 0; k < n; k++) {
			at_k[at->axis] = k;
			max = fmax(max, ref_at(x, at_k));
		}
		for (k = 0; k < n; k++) {
			at_k[at->axis] = k;
			sum += exp(ref_at(x, at_k) - max);
		}
		y[i] = at->log ? ref_at(x, idx) - max - log(sum) :
				 exp(ref_at(x, idx) - max) / sum;
		i++;
	} while (ref_next(idx, x->dims, x->ndims));
}

static inline double ref_reduce_start(uint32_t kind)
{
	return kind == NPU_REDUCE_MAX ? -INFINITY : kind == NPU_REDUCE_MIN ? INFINITY :
	       kind == NPU_REDUCE_PROD ? 1 : 0;
}

static inline double ref_reduce_step(uint32_t kind, double acc, double v, uint64_t n)
{
	switch (kind) {
	case NPU_REDUCE_MAX:
		return fmax(acc, v);
	case NPU_REDUCE_MIN:
		return fmin(acc, v);
	case NPU_REDUCE_MEAN:
		return acc + v / n;
	case NPU_REDUCE_L1:
		return acc + fabs(v);
	case NPU_REDUCE_L2:
		return acc + v * v;
	case NPU_REDUCE_PROD:
		return acc * v;
	default:
		return acc + v;
	}
}

static inline void ref_reduce(const struct ref_tensor *x, const struct ref_tensor *yt,
			      const struct npu_attr_reduce *at, double *y)
{
	uint64_t count = ref_count(yt), idx[NPU_TENSOR_MAX_DIMS] = { 0 }, i, n;
	unsigned int d;

	for (i = 0; i < count; i++)
		y[i] = ref_reduce_start(at->kind);
	n = ref_count(x) / count;
	do {
		for (i = 0, d = 0; d < x->ndims; d++)
			i = i * yt->dims[d] + (at->axes >> d & 1 ? 0 : idx[d]);
		y[i] = ref_reduce_step(at->kind, y[i], ref_at(x, idx), n);
	} while (ref_next(idx, x->dims, x->ndims));
	for (i = 0; i < count && at->kind == NPU_REDUCE_L2; i++)
		y[i] = sqrt(y[i]);
}

static inline void ref_concat(const struct ref_tensor *const *in, unsigned int nin,
			      const struct ref_tensor *yt, const struct npu_attr_concat *at,
			      double *y)
{
	uint64_t idx[NPU_TENSOR_MAX_DIMS] = { 0 }, xi[NPU_TENSOR_MAX_DIMS], i = 0;
	unsigned int k;

	do {
		uint64_t pos = idx[at->axis];

		for (k = 0; k < nin && pos >= in[k]->dims[at->axis]; k++)
			pos -= in[k]->dims[at->axis];
		memcpy(xi, idx, sizeof(xi));
		xi[at->axis] = pos;
		y[i++] = ref_at(in[k], xi);
	} while (ref_next(idx, yt->dims, yt->ndims));
}

static inline void ref_transpose(const struct ref_tensor *x, const struct ref_tensor *yt,
				 const struct npu_attr_transpose *at, double *y)
{
	uint64_t idx[NPU_TENSOR_MAX_DIMS] = { 0 }, xi[NPU_TENSOR_MAX_DIMS], i = 0;
	unsigned int d;

	do {
		for (d = 0; d < yt->ndims; d++)
			xi[at->perm[d]] = idx[d];
		y[i++] = ref_at(x, xi);
	} while (ref_next(idx, yt->dims, yt->ndims));
}

/* The input coordinate of output coordinate @o on an axis, per ONNX. */
static inline double ref_resize_coord(uint32_t mode, uint64_t o, uint64_t in_len,
				      uint64_t out_len, double scale)
{
	switch (mode) {
	case NPU_RESIZE_ASYMMETRIC:
		return o / scale;
	case NPU_RESIZE_ALIGN_CORNERS:
		return out_len == 1 ? 0 : (double)o * (in_len - 1) / (out_len - 1);
	case NPU_RESIZE_PYTORCH_HALF_PIXEL:
		return out_len > 1 ? (o + 0.5) / scale - 0.5 : 0;
	default:
		return (o + 0.5) / scale - 0.5;
	}
}

static inline uint64_t ref_resize_nearest(uint32_t rounding, double c, uint64_t len)
{
	double r;

	switch (rounding) {
	case NPU_RESIZE_ROUND_PREFER_CEIL:
		r = floor(c + 0.5);
		break;
	case NPU_RESIZE_FLOOR:
		r = floor(c);
		break;
	case NPU_RESIZE_CEIL:
		r = ceil(c);
		break;
	default:
		r = ceil(c - 0.5);
		break;
	}
	return r < 0 ? 0 : r > len - 1 ? len - 1 : (uint64_t)r;
}

/* Bilinear over the last two axes at input coordinates @c, clamped. */
static inline double ref_bilinear(const struct ref_tensor *x, const uint64_t *idx,
				  const double *c)
{
	uint64_t xi[NPU_TENSOR_MAX_DIMS], lo[2], hi[2];
	int r = (int)x->ndims, d, j;
	double f[2], v = 0;

	for (d = 0; d < r; d++)
		xi[d] = idx[d];
	for (j = 0; j < 2; j++) {
		uint64_t len = x->dims[r - 2 + j];
		double at = fmin(fmax(c[r - 2 + j], 0), len - 1);

		lo[j] = (uint64_t)at;
		hi[j] = lo[j] + 1 < len ? lo[j] + 1 : lo[j];
		f[j] = at - lo[j];
	}
	for (j = 0; j < 4; j++) {
		xi[r - 2] = j & 2 ? hi[0] : lo[0];
		xi[r - 1] = j & 1 ? hi[1] : lo[1];
		v += (j & 2 ? f[0] : 1 - f[0]) * (j & 1 ? f[1] : 1 - f[1]) * ref_at(x, xi);
	}
	return v;
}

/* Nearest on every axis, or bilinear over the last two (rank 2 or more). */
static inline void ref_resize(const struct ref_tensor *x, const struct ref_tensor *yt,
			      const struct npu_attr_resize *at, double *y)
{
	uint64_t idx[NPU_TENSOR_MAX_DIMS] = { 0 }, xi[NPU_TENSOR_MAX_DIMS], i = 0;
	unsigned int d, r = x->ndims;

	do {
		double c[NPU_TENSOR_MAX_DIMS];

		for (d = 0; d < r; d++)
			c[d] = ref_resize_coord(at->coord, idx[d], x->dims[d], yt->dims[d],
						ref_f32(at->scales[d]));
		if (at->mode == NPU_RESIZE_LINEAR) {
			y[i++] = ref_bilinear(x, idx, c);
			continue;
		}
		for (d = 0; d < r; d++)
			xi[d] = ref_resize_nearest(at->nearest, c[d], x->dims[d]);
		y[i++] = ref_at(x, xi);
	} while (ref_next(idx, yt->dims, yt->ndims));
}

/* Where y's coordinate @o comes from on an axis; -1 for the constant. */
static inline int64_t ref_pad_source(uint32_t mode, int64_t o, int32_t begin, int64_t len)
{
	int64_t s = o - begin;

	if (s >= 0 && s < len)
		return s;
	if (mode == NPU_PAD_EDGE)
		return s < 0 ? 0 : len - 1;
	if (mode == NPU_PAD_REFLECT) {
		while (s < 0 || s >= len)
			s = s < 0 ? -s : 2 * (len - 1) - s;
		return s;
	}
	return -1;
}

static inline void ref_pad(const struct ref_tensor *x, const struct ref_tensor *yt,
			   const struct npu_attr_pad *at, double *y)
{
	uint64_t idx[NPU_TENSOR_MAX_DIMS] = { 0 }, xi[NPU_TENSOR_MAX_DIMS], i = 0;
	unsigned int d;

	do {
		bool constant = false;

		for (d = 0; d < x->ndims; d++) {
			int64_t s = ref_pad_source(at->mode, idx[d], (int32_t)at->begin[d],
						   x->dims[d]);

			if (s < 0)
				constant = true;
			else
				xi[d] = s;
		}
		y[i++] = constant ? ref_f32(at->value) : ref_at(x, xi);
	} while (ref_next(idx, yt->dims, yt->ndims));
}

static inline void ref_slice(const struct ref_tensor *x, const struct ref_tensor *yt,
			     const struct npu_attr_slice *at, double *y)
{
	uint64_t idx[NPU_TENSOR_MAX_DIMS] = { 0 }, xi[NPU_TENSOR_MAX_DIMS], i = 0;
	unsigned int d;

	do {
		for (d = 0; d < x->ndims; d++)
			xi[d] = (int64_t)at->starts[d] + (int64_t)idx[d] * (int64_t)at->steps[d];
		y[i++] = ref_at(x, xi);
	} while (ref_next(idx, yt->dims, yt->ndims));
}

/* y = x indexed along the axis by ind, negative indices from the end. */
static inline void ref_gather(const struct ref_tensor *x, const struct ref_tensor *ind,
			      const struct ref_tensor *yt, const struct npu_attr_gather *at,
			      double *y)
{
	uint64_t idx[NPU_TENSOR_MAX_DIMS] = { 0 }, xi[NPU_TENSOR_MAX_DIMS], i = 0;
	unsigned int d, axis = at->axis;
	int64_t k;

	do {
		for (d = 0; d < axis; d++)
			xi[d] = idx[d];
		k = (int64_t)ref_at(ind, idx + axis);
		xi[axis] = k < 0 ? k + (int64_t)x->dims[axis] : k;
		for (d = axis + 1; d < x->ndims; d++)
			xi[d] = idx[d - 1 + ind->ndims];
		y[i++] = ref_at(x, xi);
	} while (ref_next(idx, yt->dims, yt->ndims));
}

#endif /* COMPUTE_REF_H */
