// SPDX-License-Identifier: GPL-2.0
/*
 * What the loops share: element access in every data type and format.
 *
 * Loops compute in float, as oneDNN does, and store the way oneDNN's
 * reorders do: round to nearest even, integers saturated.  Elements are
 * moved with memcpy, so an element need not be aligned for the compiler's
 * sake (the checks align tensors anyway).
 */
#include <math.h>

#include "oplib_impl.h"

static float bf16_to_float(uint16_t h)
{
	uint32_t bits = (uint32_t)h << 16;
	float f;

	memcpy(&f, &bits, sizeof(f));
	return f;
}

static uint16_t float_to_bf16(float f)
{
	uint32_t bits;

	memcpy(&bits, &f, sizeof(bits));
	if ((bits & 0x7fffffff) > 0x7f800000)	/* NaN stays NaN */
		return (bits >> 16) | 0x40;
	bits += 0x7fff + ((bits >> 16) & 1);
	return bits >> 16;
}

/* Round to nearest even and clamp into [lo, hi]; NaN becomes 0. */
static float saturate(float v, float lo, float hi)
{
	if (isnan(v))
		return 0;
	v = nearbyintf(v);
	return v < lo ? lo : v > hi ? hi : v;
}

float oplib_load(const uint8_t *p, unsigned int dtype)
{
	union {
		float f;
		uint16_t h;
		_Float16 f16;
		int32_t s32;
		int8_t s8;
		uint8_t u8;
	} v;

	memcpy(&v, p, oplib_dtype_size(dtype));
	switch (dtype) {
	case NPU_DTYPE_F32:
		return v.f;
	case NPU_DTYPE_BF16:
		return bf16_to_float(v.h);
	case NPU_DTYPE_F16:
		return v.f16;
	case NPU_DTYPE_S32:
		return v.s32;
	case NPU_DTYPE_S8:
		return v.s8;
	case NPU_DTYPE_U8:
		return v.u8;
	}
	return 0;
}

void oplib_store(uint8_t *p, unsigned int dtype, float f)
{
	union {
		float f;
		uint16_t h;
		_Float16 f16;
		int32_t s32;
		int8_t s8;
		uint8_t u8;
	} v;

	switch (dtype) {
	case NPU_DTYPE_F32:
		v.f = f;
		break;
	case NPU_DTYPE_BF16:
		v.h = float_to_bf16(f);
		break;
	case NPU_DTYPE_F16:
		v.f16 = f;
		break;
	case NPU_DTYPE_S32:
		/* as oneDNN: the largest float32 below 2^31 is the top */
		v.s32 = saturate(f, -2147483648.0f, 2147483520.0f);
		break;
	case NPU_DTYPE_S8:
		v.s8 = saturate(f, -128, 127);
		break;
	case NPU_DTYPE_U8:
		v.u8 = saturate(f, 0, 255);
		break;
	default:
		return;
	}
	memcpy(p, &v, oplib_dtype_size(dtype));
}

bool oplib_dtype_is_float(unsigned int dtype)
{
	return dtype == NPU_DTYPE_F32 || dtype == NPU_DTYPE_BF16 ||
	       dtype == NPU_DTYPE_F16;
}

/* An integer element as it is, where float would round it. */
int64_t oplib_load_int(const uint8_t *p, unsigned int dtype)
{
	int32_t s32;

	switch (dtype) {
	case NPU_DTYPE_S32:
		memcpy(&s32, p, sizeof(s32));
		return s32;
	case NPU_DTYPE_S8:
		return (int8_t)*p;
	case NPU_DTYPE_U8:
		return *p;
	}
	return 0;
}

/* The element offset, in elements, of index idx[0..ndims). */
int64_t oplib_offset(const struct oplib_tensor *t, const int64_t *idx)
{
	int64_t off = 0;
	unsigned int d;

	if (t->format == NPU_FORMAT_NCHW16C) {
		int64_t blocks = (t->dims[1] + 15) / 16;
		int64_t c = idx[1];

		off = (idx[0] * blocks + c / 16) * t->dims[2] + idx[2];
		return (off * t->dims[3] + idx[3]) * 16 + c % 16;
	}
	for (d = 0; d < t->ndims; d++)
		off += idx[d] * t->strides[d];
	return off;
}

/* The next index in row-major order; false after the last. */
bool oplib_index_next(int64_t *idx, const int64_t *dims, unsigned int ndims)
{
	int d;

	for (d = (int)ndims - 1; d >= 0; d--) {
		if (++idx[d] < dims[d])
			return true;
		idx[d] = 0;
	}
	return false;
}

/*
 * An NCHW16C output's padding channels read as 0, as oneDNN's own outputs
 * do; a loop that wrote only the real channels calls this.
 */
void oplib_zero_padding(const struct oplib_tensor *t, uint8_t *base)
{
	size_t esize = oplib_dtype_size(t->dtype);
	int64_t idx[4] = { 0 }, c;
	int64_t padded = (t->dims[1] + 15) / 16 * 16;
	int64_t plane[3] = { t->dims[0], t->dims[2], t->dims[3] };
	int64_t at[3] = { 0 };

	if (t->format != NPU_FORMAT_NCHW16C || padded == t->dims[1] ||
	    !t->nelems)
		return;
	do {
		idx[0] = at[0];
		idx[2] = at[1];
		idx[3] = at[2];
		for (c = t->dims[1]; c < padded; c++) {
			idx[1] = c;
			memset(base + oplib_offset(t, idx) * esize, 0, esize);
		}
	} while (oplib_index_next(at, plane, 3));
}
