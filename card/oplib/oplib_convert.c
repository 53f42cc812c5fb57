// SPDX-License-Identifier: GPL-2.0
/*
 * F16 to F32 and back between dense tensors: what a family that computes
 * F16 widened (oplib_plan_stage_begin()) spends its time on otherwise.
 * oneDNN 2.6 converts F16 one element at a time in its reference reorder,
 * several times slower than the F32 product it feeds; the CPU's F16C
 * instructions convert eight at once, rounding to nearest even as the
 * reorder does.  Without F16C the compiler's _Float16 conversions do it.
 */
#include <immintrin.h>
#include <omp.h>

#include "oplib_impl.h"

/* Elements per chunk: a thread's share, and how often it asks to go on. */
#define CONVERT_CHUNK	(64 * 1024)

__attribute__((target("avx,f16c")))
static void widen_f16c(const uint16_t *from, float *to, uint64_t n)
{
	uint64_t i = 0;

	for (; i + 8 <= n; i += 8)
		_mm256_storeu_ps(to + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(from + i))));
	for (; i < n; i++)
		to[i] = _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(from[i])));
}

__attribute__((target("avx,f16c")))
static void narrow_f16c(const float *from, uint16_t *to, uint64_t n)
{
	uint64_t i = 0;

	for (; i + 8 <= n; i += 8)
		_mm_storeu_si128((__m128i *)(to + i),
				 _mm256_cvtps_ph(_mm256_loadu_ps(from + i), _MM_FROUND_TO_NEAREST_INT));
	for (; i < n; i++)
		to[i] = (uint16_t)_mm_cvtsi128_si32(_mm_cvtps_ph(_mm_set_ss(from[i]),
								  _MM_FROUND_TO_NEAREST_INT));
}

static void widen_plain(const _Float16 *from, float *to, uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		to[i] = from[i];
}

static void narrow_plain(const float *from, _Float16 *to, uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		to[i] = (_Float16)from[i];
}

static bool have_f16c(void)
{
	return __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c");
}

static void convert_chunk(const uint8_t *from, uint8_t *to, uint64_t n, bool widen,
			  bool f16c)
{
	if (widen && f16c)
		widen_f16c((const uint16_t *)from, (float *)to, n);
	else if (widen)
		widen_plain((const _Float16 *)from, (float *)to, n);
	else if (f16c)
		narrow_f16c((const float *)from, (uint16_t *)to, n);
	else
		narrow_plain((const float *)from, (_Float16 *)to, n);
}

static bool convert_loop(const struct oplib_op *op, const struct oplib_step *step,
			 uint8_t *const *bufs, const struct oplib_hooks *hooks)
{
	const uint8_t *from = bufs[step->in] + step->convert.from_offset;
	uint8_t *to = bufs[step->out] + step->convert.to_offset;
	size_t from_size = step->convert.widen ? 2 : 4, to_size = 6 - from_size;
	int64_t chunks = (step->convert.count + CONVERT_CHUNK - 1) / CONVERT_CHUNK, c;
	bool f16c = have_f16c(), stop = false;

	(void)op;
#pragma omp parallel for schedule(static)
	for (c = 0; c < chunks; c++) {
		uint64_t at = (uint64_t)c * CONVERT_CHUNK, n = step->convert.count - at;

		if (__atomic_load_n(&stop, __ATOMIC_RELAXED))
			continue;
		if (hooks && hooks->abandoned(hooks->ctx)) {
			__atomic_store_n(&stop, true, __ATOMIC_RELAXED);
			continue;
		}
		convert_chunk(from + at * from_size, to + at * to_size,
			      n < CONVERT_CHUNK ? n : CONVERT_CHUNK, step->convert.widen, f16c);
	}
	return !stop;
}

/* Plain row-major with no gaps and no blocking: the elements in order. */
static bool md_dense(const dnnl_memory_desc_t *md)
{
	const dnnl_blocking_desc_t *b = &md->format_desc.blocking;
	int64_t stride = 1;
	int d;

	if (md->format_kind != dnnl_blocked || b->inner_nblks || md->offset0)
		return false;
	for (d = md->ndims - 1; d >= 0; d--) {
		if (md->padded_dims[d] != md->dims[d] ||
		    (md->dims[d] != 1 && b->strides[d] != stride))
			return false;
		stride *= md->dims[d];
	}
	return true;
}

/* A reorder this file does: F16 to F32 or back, both dense, one shape. */
bool oplib_convert_fits(const struct oplib_view *src, const struct oplib_view *dst)
{
	dnnl_data_type_t from = src->md.data_type, to = dst->md.data_type;

	if (!((from == dnnl_f16 && to == dnnl_f32) || (from == dnnl_f32 && to == dnnl_f16)))
		return false;
	if (src->md.ndims != dst->md.ndims ||
	    memcmp(src->md.dims, dst->md.dims, src->md.ndims * sizeof(src->md.dims[0])))
		return false;
	return md_dense(&src->md) && md_dense(&dst->md);
}

int oplib_plan_convert(struct oplib_plan *plan, unsigned int src, unsigned int dst)
{
	const struct oplib_view *from = &plan->views[src], *to = &plan->views[dst];
	struct oplib_step *step;
	uint64_t count = 1;
	int d, err;

	for (d = 0; d < from->md.ndims; d++)
		count *= from->md.dims[d];
	err = oplib_plan_loop(plan, convert_loop, from->buf, to->buf, NULL);
	if (err)
		return err;
	step = &plan->steps[plan->nsteps - 1];
	step->convert.from_offset = from->offset;
	step->convert.to_offset = to->offset;
	step->convert.count = count;
	step->convert.widen = from->md.data_type == dnnl_f16;
	return NPU_ERR_NONE;
}
