// SPDX-License-Identifier: GPL-2.0
/*
 * SOFTMAX and log-SOFTMAX over the last axis of dense float32 rows
 * (attention scores, a language model's logits): oneDNN 2.6's kernel takes
 * about twice onnxruntime's time there, so with AVX2 and FMA, or AVX-512,
 * these loops do it, eight or sixteen lanes at a time (oplib_isa() says
 * which: onnxruntime's kernels are AVX-512 on a CPU that has it), rows
 * shared between the engine's threads.  Three passes over a row, which
 * stays in cache: its maximum; exp(x - max) summed (and for SOFTMAX
 * written to y); then y = exp(x - max) / sum, scaling y in place, or y =
 * x - max - log(sum).  Log-SOFTMAX stores nothing in the second pass, so
 * that x may be y.  The second pass, bound by the FMA pipes, also fetches
 * the next row into L1: without that, a row's first pass waited on memory
 * (4096 rows of 4096 took 6.1 ms, of which 3.3 ms computing).
 *
 * exp is computed as 2^n * e^r, n = round(x / ln 2), |r| <= ln 2 / 2, e^r
 * by its Taylor polynomial to degree 6 (relative error under 2e-7, the
 * float32 rounding of the terms), 2^n put into the exponent bits; both
 * widths compute the same value for each element.  Arguments below -87
 * (e^-87 ~ 1.6e-38) give that smallest value rather than a denormal:
 * weights that small vanish in any sum that has the row's maximum, whose
 * weight is 1.
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

/* ---- AVX2, eight lanes ----------------------------------------------------- */

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
static float row_max_avx2(const float *x, int64_t n)
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

/*
 * The sum of exp(x - max), each term also written to y unless y is NULL;
 * meanwhile the row after it (@next) is fetched, as row_exp_avx512() does.
 */
__attribute__((target("avx2,fma")))
static double row_exp_avx2(const float *x, float max, float *y, int64_t n, const float *next)
{
	__m256 m = _mm256_set1_ps(max), s = _mm256_setzero_ps();
	float lanes[8], tail[8] = { 0 };
	int64_t i = 0;
	double sum = 0;
	unsigned int l;

	if (y) {
		for (; i + 8 <= n; i += 8) {
			__m256 e = exp_avx2(_mm256_sub_ps(_mm256_loadu_ps(x + i), m));

			_mm_prefetch((const char *)(next + i), _MM_HINT_T0);
			_mm256_storeu_ps(y + i, e);
			s = _mm256_add_ps(s, e);
		}
	} else {
		for (; i + 8 <= n; i += 8) {
			_mm_prefetch((const char *)(next + i), _MM_HINT_T0);
			s = _mm256_add_ps(s, exp_avx2(_mm256_sub_ps(_mm256_loadu_ps(x + i), m)));
		}
	}
	_mm256_storeu_ps(lanes, s);
	for (l = 0; l < 8; l++)
		sum += lanes[l];
	if (i < n) {
		memcpy(tail, x + i, (n - i) * sizeof(float));
		_mm256_storeu_ps(lanes, exp_avx2(_mm256_sub_ps(_mm256_loadu_ps(tail), m)));
		for (l = 0; i + l < n; l++) {
			if (y)
				y[i + l] = lanes[l];
			sum += lanes[l];
		}
	}
	return sum;
}

__attribute__((target("avx2,fma")))
static void row_scale_avx2(float *y, float k, int64_t n)
{
	__m256 kk = _mm256_set1_ps(k);
	int64_t i = 0;

	for (; i + 8 <= n; i += 8)
		_mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_loadu_ps(y + i), kk));
	for (; i < n; i++)
		y[i] *= k;
}

/* y = (x - max) - k */
__attribute__((target("avx2,fma")))
static void row_shift_avx2(const float *x, float max, float k, float *y, int64_t n)
{
	__m256 m = _mm256_set1_ps(max), kk = _mm256_set1_ps(k);
	int64_t i = 0;

	for (; i + 8 <= n; i += 8)
		_mm256_storeu_ps(y + i, _mm256_sub_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i), m), kk));
	for (; i < n; i++)
		y[i] = (x[i] - max) - k;
}

static void softmax_row_avx2(const float *x, float *y, int64_t n, const float *next,
			     bool log_softmax)
{
	float max = row_max_avx2(x, n);

	if (log_softmax)
		row_shift_avx2(x, max, (float)log(row_exp_avx2(x, max, NULL, n, next)), y, n);
	else
		row_scale_avx2(y, (float)(1 / row_exp_avx2(x, max, y, n, next)), n);
}

/* ---- AVX-512, sixteen lanes, the tail under a mask ------------------------------ */

/*
 * The same arithmetic as exp_avx2(), lane for lane: VSCALEFPS multiplies
 * by 2^n as exactly as the exponent bits do (n >= -126 here, a normal
 * scale), in one instruction instead of three; the FMA pipes, which the
 * polynomial fills, are what bounds this loop.
 */
__attribute__((target("avx512f")))
static __m512 exp_avx512(__m512 x)
{
	__m512 n, r, p;

	x = _mm512_max_ps(x, _mm512_set1_ps(EXP_MIN_ARG));
	n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(LOG2E)),
				 _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
	r = _mm512_fnmadd_ps(n, _mm512_set1_ps(LN2_HI), x);
	r = _mm512_fnmadd_ps(n, _mm512_set1_ps(LN2_LO), r);
	p = _mm512_set1_ps(1.0f / 720);
	p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 120));
	p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 24));
	p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 6));
	p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
	p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
	p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
	return _mm512_scalef_ps(p, n);
}

/* The lanes of a row's last, partial vector of @left elements. */
static inline __mmask16 tail_mask(int64_t left)
{
	return (__mmask16)((1u << left) - 1);
}

/* Four maxima at once: one would wait on the last at every vector. */
__attribute__((target("avx512f")))
static float row_max_avx512(const float *x, int64_t n)
{
	__m512 m0 = _mm512_set1_ps(-INFINITY), m1 = m0, m2 = m0, m3 = m0;
	int64_t i = 0;

	for (; i + 64 <= n; i += 64) {
		m0 = _mm512_max_ps(m0, _mm512_loadu_ps(x + i));
		m1 = _mm512_max_ps(m1, _mm512_loadu_ps(x + i + 16));
		m2 = _mm512_max_ps(m2, _mm512_loadu_ps(x + i + 32));
		m3 = _mm512_max_ps(m3, _mm512_loadu_ps(x + i + 48));
	}
	for (; i + 16 <= n; i += 16)
		m0 = _mm512_max_ps(m0, _mm512_loadu_ps(x + i));
	if (i < n)
		m0 = _mm512_max_ps(m0, _mm512_mask_loadu_ps(m0, tail_mask(n - i), x + i));
	return _mm512_reduce_max_ps(_mm512_max_ps(_mm512_max_ps(m0, m1), _mm512_max_ps(m2, m3)));
}

/*
 * exp(x - max) for sixteen elements at @i; the sum of them is added to *s
 * and, unless y is NULL, they are written to y.  While the FMA pipes work
 * on this row, the row after it (@next) is fetched into L1, a line per
 * step, so that its maximum reads it there instead of waiting on memory.
 */
__attribute__((target("avx512f")))
static inline void exp_step_avx512(const float *x, __m512 m, float *y, const float *next,
				   int64_t i, __m512 *s)
{
	__m512 e = exp_avx512(_mm512_sub_ps(_mm512_loadu_ps(x + i), m));

	_mm_prefetch((const char *)(next + i), _MM_HINT_T0);
	if (y)
		_mm512_storeu_ps(y + i, e);
	*s = _mm512_add_ps(*s, e);
}

/* The sum of exp(x - max), each term also written to y unless y is NULL. */
__attribute__((target("avx512f")))
static double row_exp_avx512(const float *x, float max, float *y, int64_t n, const float *next)
{
	__m512 m = _mm512_set1_ps(max), s0 = _mm512_setzero_ps(), s1 = s0;
	int64_t i = 0;

	for (; i + 32 <= n; i += 32) {
		exp_step_avx512(x, m, y, next, i, &s0);
		exp_step_avx512(x, m, y, next, i + 16, &s1);
	}
	if (i + 16 <= n) {
		exp_step_avx512(x, m, y, next, i, &s0);
		i += 16;
	}
	if (i < n) {
		__mmask16 k = tail_mask(n - i);
		__m512 e = exp_avx512(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + i), m));

		if (y)
			_mm512_mask_storeu_ps(y + i, k, e);
		s0 = _mm512_mask_add_ps(s0, k, s0, e);
	}
	return _mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
}

__attribute__((target("avx512f")))
static void row_scale_avx512(float *y, float k, int64_t n)
{
	__m512 kk = _mm512_set1_ps(k);
	int64_t i = 0;

	for (; i + 16 <= n; i += 16)
		_mm512_storeu_ps(y + i, _mm512_mul_ps(_mm512_loadu_ps(y + i), kk));
	if (i < n)
		_mm512_mask_storeu_ps(y + i, tail_mask(n - i),
				      _mm512_mul_ps(_mm512_maskz_loadu_ps(tail_mask(n - i), y + i), kk));
}

/* y = (x - max) - k */
__attribute__((target("avx512f")))
static void row_shift_avx512(const float *x, float max, float k, float *y, int64_t n)
{
	__m512 m = _mm512_set1_ps(max), kk = _mm512_set1_ps(k);
	int64_t i = 0;

	for (; i + 16 <= n; i += 16)
		_mm512_storeu_ps(y + i, _mm512_sub_ps(_mm512_sub_ps(_mm512_loadu_ps(x + i), m), kk));
	if (i < n) {
		__m512 v = _mm512_maskz_loadu_ps(tail_mask(n - i), x + i);

		_mm512_mask_storeu_ps(y + i, tail_mask(n - i),
				      _mm512_sub_ps(_mm512_sub_ps(v, m), kk));
	}
}

static void softmax_row_avx512(const float *x, float *y, int64_t n, const float *next,
			       bool log_softmax)
{
	float max = row_max_avx512(x, n);

	if (log_softmax)
		row_shift_avx512(x, max, (float)log(row_exp_avx512(x, max, NULL, n, next)), y, n);
	else
		row_scale_avx512(y, (float)(1 / row_exp_avx512(x, max, y, n, next)), n);
}

/* ---- the rows ------------------------------------------------------------------ */

bool oplib_softmax_rows_apply(const struct oplib_op *op)
{
	const struct oplib_tensor *x = &op->t[0], *y = oplib_out(op);

	return x->dtype == NPU_DTYPE_F32 && y->dtype == NPU_DTYPE_F32 &&
	       oplib_dense(x) && oplib_dense(y) &&
	       oplib_u32(op->attrs->softmax.axis) == x->ndims - 1 &&
	       oplib_isa() >= OPLIB_ISA_AVX2;
}

bool oplib_softmax_rows_loop(const struct oplib_op *op, const struct oplib_step *step,
			     uint8_t *const *bufs, const struct oplib_hooks *hooks)
{
	const struct oplib_tensor *x = &op->t[0];
	int64_t n = x->dims[x->ndims - 1], rows = (int64_t)(x->nelems / (uint64_t)n), r;
	void (*row)(const float *x, float *y, int64_t n, const float *next, bool log_softmax) =
		oplib_isa() >= OPLIB_ISA_AVX512 ? softmax_row_avx512 : softmax_row_avx2;
	bool log_softmax = oplib_u32(op->attrs->softmax.log), stop = false;

#pragma omp parallel for schedule(static)
	for (r = 0; r < rows; r++) {
		if (__atomic_load_n(&stop, __ATOMIC_RELAXED))
			continue;
		if (hooks && r % SOFTMAX_ROWS_PER_ASK == SOFTMAX_ROWS_PER_ASK - 1 &&
		    hooks->abandoned(hooks->ctx)) {
			__atomic_store_n(&stop, true, __ATOMIC_RELAXED);
			continue;
		}
		/* the last row fetches itself again rather than past the tensor */
		row((const float *)bufs[0] + r * n, (float *)bufs[step->out] + r * n, n,
		    (const float *)bufs[0] + (r + 1 < rows ? r + 1 : r) * n, log_softmax);
	}
	return !stop;
}
