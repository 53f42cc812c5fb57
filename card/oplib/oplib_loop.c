// SPDX-License-Identifier: GPL-2.0
/*
 * What the loops share: element access in every data type and format.
 *
 * Loops compute in float, as oneDNN does, and store the way oneDNN's
 * reorders do: round to nearest even, integers saturated.  F64, which
 * oneDNN has not, is computed in double (oplib_load_f64() and
 * oplib_store_f64()), so that a double operator keeps its precision.  What must be
 * exact in int64 (CAST, integer arithmetic) reads and writes integers
 * with oplib_load_int() and oplib_store_int().  Elements are
 * moved with memcpy, so an element need not be aligned for the compiler's
 * sake (the checks align tensors anyway).
 */
#include <math.h>

#include "oplib_impl.h"

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

/* BOOL counts: it is stored as 0 or 1 and converts as an integer. */
bool oplib_dtype_is_int(unsigned int dtype)
{
	return dtype == NPU_DTYPE_S32 || dtype == NPU_DTYPE_S8 ||
	       dtype == NPU_DTYPE_U8 || dtype == NPU_DTYPE_S64 ||
	       dtype == NPU_DTYPE_S16 || dtype == NPU_DTYPE_BOOL ||
	       dtype == NPU_DTYPE_U64;
}

/* The element's bits as they are stored, of any type. */
union oplib_elem {
	double d;
	float f;
	uint16_t h;
	_Float16 f16;
	int64_t s64;
	uint64_t u64;
	int32_t s32;
	int16_t s16;
	int8_t s8;
	uint8_t u8;
};

static union oplib_elem elem_get(const uint8_t *p, unsigned int dtype)
{
	union oplib_elem v;

	memcpy(&v, p, oplib_dtype_size(dtype));
	return v;
}

/*
 * An integer type's value (BOOL: 0 or 1); 0 for the float types.  A U64
 * past INT64_MAX saturates: what must be exact for it uses
 * oplib_load_wide().
 */
int64_t oplib_load_int(const uint8_t *p, unsigned int dtype)
{
	union oplib_elem v = elem_get(p, dtype);

	switch (dtype) {
	case NPU_DTYPE_S64:
		return v.s64;
	case NPU_DTYPE_U64:
		return v.u64 > INT64_MAX ? INT64_MAX : (int64_t)v.u64;
	case NPU_DTYPE_S32:
		return v.s32;
	case NPU_DTYPE_S16:
		return v.s16;
	case NPU_DTYPE_S8:
		return v.s8;
	case NPU_DTYPE_U8:
		return v.u8;
	case NPU_DTYPE_BOOL:
		return v.u8 != 0;
	}
	return 0;
}

/* Any type's value; exact but for S64 beyond 2^53. */
double oplib_load_f64(const uint8_t *p, unsigned int dtype)
{
	union oplib_elem v = elem_get(p, dtype);

	switch (dtype) {
	case NPU_DTYPE_F64:
		return v.d;
	case NPU_DTYPE_F32:
		return v.f;
	case NPU_DTYPE_BF16:
		return oplib_bf16_to_f32(v.h);
	case NPU_DTYPE_F16:
		return v.f16;
	case NPU_DTYPE_U64:
		return (double)v.u64;
	}
	return (double)oplib_load_int(p, dtype);
}

/* The 64-bit integers rounded once, straight into float. */
float oplib_load(const uint8_t *p, unsigned int dtype)
{
	if (dtype == NPU_DTYPE_S64)
		return (float)oplib_load_int(p, dtype);
	if (dtype == NPU_DTYPE_U64)
		return (float)elem_get(p, dtype).u64;
	return (float)oplib_load_f64(p, dtype);
}

static int64_t clamp_int(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* An integer into any type: saturated into an integer type's range. */
void oplib_store_int(uint8_t *p, unsigned int dtype, int64_t i)
{
	union oplib_elem v;

	switch (dtype) {
	case NPU_DTYPE_F64:
		v.d = (double)i;
		break;
	case NPU_DTYPE_F32:
		v.f = (float)i;
		break;
	case NPU_DTYPE_BF16:
		v.h = float_to_bf16((float)i);
		break;
	case NPU_DTYPE_F16:
		v.f16 = (_Float16)i;
		break;
	case NPU_DTYPE_S64:
		v.s64 = i;
		break;
	case NPU_DTYPE_U64:
		v.u64 = i < 0 ? 0 : (uint64_t)i;
		break;
	case NPU_DTYPE_S32:
		v.s32 = clamp_int(i, INT32_MIN, INT32_MAX);
		break;
	case NPU_DTYPE_S16:
		v.s16 = clamp_int(i, INT16_MIN, INT16_MAX);
		break;
	case NPU_DTYPE_S8:
		v.s8 = clamp_int(i, INT8_MIN, INT8_MAX);
		break;
	case NPU_DTYPE_U8:
		v.u8 = clamp_int(i, 0, UINT8_MAX);
		break;
	case NPU_DTYPE_BOOL:
		v.u8 = i != 0;
		break;
	default:
		return;
	}
	memcpy(p, &v, oplib_dtype_size(dtype));
}

/*
 * A float toward zero into int64, saturated, NaN 0: 2^63 is the first
 * double past the range.
 */
int64_t oplib_f64_to_int(double d)
{
	if (isnan(d))
		return 0;
	if (d >= 0x1p63)
		return INT64_MAX;
	if (d < -0x1p63)
		return INT64_MIN;
	return (int64_t)d;
}

/* The same into uint64: 2^64 is the first double past its range. */
uint64_t oplib_f64_to_u64(double d)
{
	if (isnan(d) || d <= 0)
		return 0;
	return d >= 0x1p64 ? UINT64_MAX : (uint64_t)d;
}

void oplib_store(uint8_t *p, unsigned int dtype, float f)
{
	union oplib_elem v;

	switch (dtype) {
	case NPU_DTYPE_F64:
		v.d = f;
		break;
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
	case NPU_DTYPE_S16:
		v.s16 = saturate(f, -32768, 32767);
		break;
	case NPU_DTYPE_S64:
		v.s64 = isnan(f) ? 0 : oplib_f64_to_int(nearbyintf(f));
		break;
	case NPU_DTYPE_U64:
		v.u64 = oplib_f64_to_u64(nearbyintf(f));
		break;
	case NPU_DTYPE_BOOL:
		/* NaN is not 0 */
		v.u8 = f != 0;
		break;
	default:
		return;
	}
	memcpy(p, &v, oplib_dtype_size(dtype));
}

/*
 * A double into any type: F64 as it is, the other floats rounded once
 * from double, integers rounded to nearest even and saturated.
 */
void oplib_store_f64(uint8_t *p, unsigned int dtype, double d)
{
	union oplib_elem v;

	switch (dtype) {
	case NPU_DTYPE_F64:
		v.d = d;
		break;
	case NPU_DTYPE_F16:
		v.f16 = (_Float16)d;
		break;
	case NPU_DTYPE_F32:
	case NPU_DTYPE_BF16:
		oplib_store(p, dtype, (float)d);
		return;
	case NPU_DTYPE_BOOL:
		/* NaN is not 0 */
		v.u8 = d != 0;
		break;
	case NPU_DTYPE_U64:
		v.u64 = oplib_f64_to_u64(nearbyint(d));
		break;
	default:
		oplib_store_int(p, dtype, isnan(d) ? 0 : oplib_f64_to_int(nearbyint(d)));
		return;
	}
	memcpy(p, &v, oplib_dtype_size(dtype));
}

bool oplib_op_has_f64(const struct oplib_op *op)
{
	unsigned int i;

	for (i = 0; i < op->num_tensors; i++)
		if (op->t[i].dtype == NPU_DTYPE_F64)
			return true;
	return false;
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
