/* SPDX-License-Identifier: MIT */
/*
 * Every HcclDataType as the test writes and reads it: each element of
 * rank r is a small whole number, exact in every type, so that the
 * expected sum, product, maximum and minimum are the test's own
 * arithmetic.
 */
#ifndef HCCL_VALUES_H
#define HCCL_VALUES_H

#include <stdint.h>
#include <string.h>

#include "hccl/hccl_types.h"

static const HcclDataType all_types[] = {
	HCCL_DATA_TYPE_INT8, HCCL_DATA_TYPE_INT16, HCCL_DATA_TYPE_INT32, HCCL_DATA_TYPE_FP16,
	HCCL_DATA_TYPE_FP32, HCCL_DATA_TYPE_INT64, HCCL_DATA_TYPE_UINT64, HCCL_DATA_TYPE_UINT8,
	HCCL_DATA_TYPE_UINT16, HCCL_DATA_TYPE_UINT32, HCCL_DATA_TYPE_FP64, HCCL_DATA_TYPE_BFP16,
	HCCL_DATA_TYPE_INT128, HCCL_DATA_TYPE_HIF8, HCCL_DATA_TYPE_FP8E4M3,
	HCCL_DATA_TYPE_FP8E5M2, HCCL_DATA_TYPE_FP8E8M0,
};
#define NTYPES	(sizeof(all_types) / sizeof(all_types[0]))

static inline size_t type_size(HcclDataType t)
{
	switch (t) {
	case HCCL_DATA_TYPE_INT8: case HCCL_DATA_TYPE_UINT8: case HCCL_DATA_TYPE_HIF8:
	case HCCL_DATA_TYPE_FP8E4M3: case HCCL_DATA_TYPE_FP8E5M2: case HCCL_DATA_TYPE_FP8E8M0:
		return 1;
	case HCCL_DATA_TYPE_INT16: case HCCL_DATA_TYPE_UINT16: case HCCL_DATA_TYPE_FP16:
	case HCCL_DATA_TYPE_BFP16:
		return 2;
	case HCCL_DATA_TYPE_INT32: case HCCL_DATA_TYPE_UINT32: case HCCL_DATA_TYPE_FP32:
		return 4;
	case HCCL_DATA_TYPE_INT64: case HCCL_DATA_TYPE_UINT64: case HCCL_DATA_TYPE_FP64:
		return 8;
	case HCCL_DATA_TYPE_INT128:
		return 16;
	default:
		return 0;
	}
}

/* The types the card has arithmetic for (docs/hccl.md). */
static inline int type_reduces(HcclDataType t)
{
	switch (t) {
	case HCCL_DATA_TYPE_INT8: case HCCL_DATA_TYPE_INT16: case HCCL_DATA_TYPE_INT32:
	case HCCL_DATA_TYPE_INT64: case HCCL_DATA_TYPE_UINT8: case HCCL_DATA_TYPE_FP16:
	case HCCL_DATA_TYPE_FP32: case HCCL_DATA_TYPE_FP64: case HCCL_DATA_TYPE_BFP16:
	case HCCL_DATA_TYPE_UINT64:
		return 1;
	default:
		return 0;
	}
}

/* How the refusal of a type the card does not reduce names it. */
static inline const char *unreduced_type_name(HcclDataType t)
{
	switch (t) {
	case HCCL_DATA_TYPE_UINT16: return "uint16";
	case HCCL_DATA_TYPE_UINT32: return "uint32";
	case HCCL_DATA_TYPE_INT128: return "int128";
	case HCCL_DATA_TYPE_HIF8: return "hifloat8";
	case HCCL_DATA_TYPE_FP8E4M3: return "float8_e4m3";
	case HCCL_DATA_TYPE_FP8E5M2: return "float8_e5m2";
	case HCCL_DATA_TYPE_FP8E8M0: return "float8_e8m0";
	default: return "?";
	}
}

/* IEEE binary16 of a whole number below 2048 in magnitude. */
static inline uint16_t half_of(int v)
{
	uint16_t sign = v < 0 ? 0x8000 : 0;
	unsigned int m = (unsigned int)(v < 0 ? -v : v), e = 0;

	if (!m)
		return sign;
	while ((m >> e) > 1)
		e++;
	return (uint16_t)(sign | ((e + 15) << 10) | (((m << 10) >> e) & 0x3ff));
}

static inline int half_value(uint16_t h)
{
	int e = (h >> 10) & 0x1f, v;

	if (!(h & 0x7fff))
		return 0;
	v = (int)(((h & 0x3ff) | 0x400) << (e > 25 ? e - 25 : 0) >> (e < 25 ? 25 - e : 0));
	return h & 0x8000 ? -v : v;
}

static inline void put_value(HcclDataType t, void *buf, size_t i, int64_t v)
{
	uint8_t *p = (uint8_t *)buf + i * type_size(t);
	float f = (float)v;
	double d = (double)v;
	uint32_t fb;

	switch (t) {
	case HCCL_DATA_TYPE_FP16: { uint16_t h = half_of((int)v); memcpy(p, &h, 2); break; }
	case HCCL_DATA_TYPE_BFP16: { memcpy(&fb, &f, 4); uint16_t h = (uint16_t)(fb >> 16);
		memcpy(p, &h, 2); break; }
	case HCCL_DATA_TYPE_FP32: memcpy(p, &f, 4); break;
	case HCCL_DATA_TYPE_FP64: memcpy(p, &d, 8); break;
	default:
		/* integers little endian, sign extended to the type's size */
		for (size_t b = 0; b < type_size(t); b++)
			p[b] = (uint8_t)(b < 8 ? (uint64_t)v >> (8 * b) : (v < 0 ? 0xff : 0));
	}
}

static inline int64_t get_value(HcclDataType t, const void *buf, size_t i)
{
	const uint8_t *p = (const uint8_t *)buf + i * type_size(t);
	uint64_t u = 0;
	size_t n = type_size(t);
	float f;
	double d;
	uint16_t h;
	uint32_t fb;

	switch (t) {
	case HCCL_DATA_TYPE_FP16: memcpy(&h, p, 2); return half_value(h);
	case HCCL_DATA_TYPE_BFP16: memcpy(&h, p, 2); fb = (uint32_t)h << 16; memcpy(&f, &fb, 4);
		return (int64_t)f;
	case HCCL_DATA_TYPE_FP32: memcpy(&f, p, 4); return (int64_t)f;
	case HCCL_DATA_TYPE_FP64: memcpy(&d, p, 8); return (int64_t)d;
	default:
		for (size_t b = 0; b < (n < 8 ? n : 8); b++)
			u |= (uint64_t)p[b] << (8 * b);
		if (n < 8 && t != HCCL_DATA_TYPE_UINT8 && t != HCCL_DATA_TYPE_UINT16 &&
		    t != HCCL_DATA_TYPE_UINT32 && (u >> (8 * n - 1)) & 1)
			u |= ~0ULL << (8 * n);
		return (int64_t)u;
	}
}

/* Element i of rank r: 1..7, so that two ranks' product fits int8. */
static inline int64_t value_of(uint32_t r, uint64_t i)
{
	return (int64_t)((i * 3 + r * 5) % 7) + 1;
}

static inline int64_t reduced(HcclReduceOp op, int64_t a, int64_t b)
{
	switch (op) {
	case HCCL_REDUCE_SUM: return a + b;
	case HCCL_REDUCE_PROD: return a * b;
	case HCCL_REDUCE_MAX: return a > b ? a : b;
	default: return a < b ? a : b;
	}
}

/* Element i reduced over ranks 0..n-1 (value_of), in rank order. */
static inline int64_t reduced_over(HcclReduceOp op, uint32_t n, uint64_t i)
{
	int64_t v = value_of(0, i);

	for (uint32_t r = 1; r < n; r++)
		v = reduced(op, v, value_of(r, i));
	return v;
}

/*
 * Element i of rank r where data only moves: in a type of 4 bytes or
 * more, distinct for every rank and every element below a million, so
 * that a block put in the wrong place shows; in a narrower type,
 * value_of's.
 */
static inline int64_t moved_value(HcclDataType t, uint32_t r, uint64_t i)
{
	switch (t) {
	case HCCL_DATA_TYPE_INT32: case HCCL_DATA_TYPE_UINT32: case HCCL_DATA_TYPE_INT64:
	case HCCL_DATA_TYPE_UINT64:
		return (int64_t)r * 1000003 + (int64_t)i;
	default:
		return value_of(r, i);
	}
}

#endif
