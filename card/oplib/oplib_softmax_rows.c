// SPDX-License-Identifier: GPL-2.0
/*
 * SOFTMAX over the last axis of dense float32 rows (attention scores, a
 * language model's logits): oneDNN 2.6's kernel takes about twice
 * onnxruntime's time there, so with AVX2 and FMA this loop does it, eight
 * lanes at a time, rows shared between the engine's threads.  Three
 * passes over a row, which stays in cache: its maximum, exp(x - max)
 * written to y and summed, y scaled by 1 / sum.
 *
 * exp is computed as 2^n * e^r, n = round(x / ln 2), |r| <= ln 2 / 2, e^r
 * by its Taylor polynomial to degree 6 (relative error under 2e-7, the
 * float32 rounding of the terms), 2^n put into the exponent bits.
 * Arguments below -87 (e^-87 ~ 1.6e-38) give that smallest value rather
 * than a denormal: weights that small vanish in any sum that has the
 * row's maximum, whose weight is 1.
 */
#include <immintrin.h>
#include <math.h>
#include <omp.h>

#include "oplib_impl.h"

#define EXP_MIN_ARG	-87.0f
#define LOG2E		1.44269504088896341f
/* ln 2 in two parts, the first exact in float, so r keeps its bits */
#define LN2_HI		0.693145751953125f
#define LN2_LO		1.42860682030941723e-6f

/* Every so many rows a thread asks whether the operator is abandoned. */
#define SOFTMAX_ROWS_PER_ASK	64

__attribute__((target("avx2,fma")))
static __m256 exp_avx2(__m256 x)
{
	__m256 n, r, p;
	__m256i bits;

	x = _mm256_max_ps(x, _mm256_set1_ps(EXP_MIN_ARG));
	n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(LOG2E)),
			    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
	r = _mm256_fnmadd_ps(n, _mm256_set1_ps(LN2_HI), x);
	r = _mm256_fnmadd_ps(n, _mm256_set1_ps(LN2_LO), r);
	p = _mm256_set1_ps(1.0f / 720);
	p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 120));
	p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 24));
	p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 6));
	p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
	p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
	p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
	bits = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
	return _mm256_mul_ps(p, _mm256_castsi256_ps(bits));
}

__attribute__((target("avx2,fma")))
static float row_max(const float *x, int64_t n)
{
	__m256 m = _mm256_set1_ps(-INFINITY);
	float lanes[8], best;
	int64_t i = 0;
	unsigned int l;

	for (; i + 8 <= n; i += 8)
		m = _mm256_max_ps(m, _mm256_loadu_ps(x + i));
	_mm256_storeu_ps(lanes, m);
	best = lanes[0];
	for (l = 1; l < 8; l++)
		best = lanes[l] > best ? lanes[l] : best;
	for (; i < n; i++)
		best = x[i] > best ? x[i] : best;
	return best;
}

/* y = exp(x - max); returns the sum of y, in double over blocks of lanes. */
__attribute__((target("avx2,fma")))
static double row_exp(const float *x, float max, float *y, int64_t n)
{
	__m256 m = _mm256_set1_ps(max), s = _mm256_setzero_ps();
	float lanes[8], tail[8] = { 0 };
	int64_t i = 0;
	double sum = 0;
	unsigned int l;

	for (; i + 8 <= n; i += 8) {
		__m256 e = exp_avx2(_mm256_sub_ps(_mm256_loadu_ps(x + i), m));

		_mm256_storeu_ps(y + i, e);
		s = _mm256_add_ps(s, e);
	}
	_mm256_storeu_ps(lanes, s);
	for (l = 0; l < 8; l++)
		sum += lanes[l];
	if (i < n) {
		memcpy(tail, x + i, (n - i) * sizeof(float));
		_mm256_storeu_ps(lanes, exp_avx2(_mm256_sub_ps(_mm256_loadu_ps(tail), m)));
		for (l = 0; i + l < n; l++) {
			y[i + l] = lanes[l];
			sum += lanes[l];
		}
	}
	return sum;
}

__attribute__((target("avx2,fma")))
static void row_scale(float *y, float k, int64_t n)
{
	__m256 kk = _mm256_set1_ps(k);
	int64_t i = 0;

	for (; i + 8 <= n; i += 8)
		_mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_loadu_ps(y + i), kk));
	for (; i < n; i++)
		y[i] *= k;
}

bool oplib_softmax_rows_apply(const struct oplib_op *op)
{
	const struct oplib_tensor *x = &op->t[0], *y = oplib_out(op);

	return x->dtype == NPU_DTYPE_F32 && y->dtype == NPU_DTYPE_F32 &&
	       oplib_dense(x) && oplib_dense(y) && !oplib_u32(op->attrs->softmax.log) &&
	       oplib_u32(op->attrs->softmax.axis) == x->ndims - 1 &&
	       __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

bool oplib_softmax_rows_loop(const struct oplib_op *op, const struct oplib_step *step,
			     uint8_t *const *bufs, const struct oplib_hooks *hooks)
{
	const struct oplib_tensor *x = &op->t[0];
	int64_t n = x->dims[x->ndims - 1], rows = (int64_t)(x->nelems / (uint64_t)n), r;
	bool stop = false;

#pragma omp parallel for schedule(static)
	for (r = 0; r < rows; r++) {
		const float *xr = (const float *)bufs[0] + r * n;
		float *yr = (float *)bufs[step->out] + r * n;

		if (__atomic_load_n(&stop, __ATOMIC_RELAXED))
			continue;
		if (hooks && r % SOFTMAX_ROWS_PER_ASK == SOFTMAX_ROWS_PER_ASK - 1 &&
		    hooks->abandoned(hooks->ctx)) {
			__atomic_store_n(&stop, true, __ATOMIC_RELAXED);
			continue;
		}
		row_scale(yr, (float)(1 / row_exp(xr, row_max(xr, n), yr, n)), n);
	}
	return !stop;
}
