// SPDX-License-Identifier: GPL-2.0
/*
 * RANDOM: numbers drawn from Philox4x32-10, a counter-based generator,
 * one block of four words per element at counter ctr + i.  Nothing is
 * carried from one element to the next, so the result depends on the
 * seed and the counter alone, whatever the threading; and it is the
 * generator the Random123 paper tests, with known answers to check it by.
 */
#include <math.h>

#include "oplib_impl.h"

#define PHILOX_M0	0xD2511F53u
#define PHILOX_M1	0xCD9E8D57u
#define PHILOX_W0	0x9E3779B9u	/* the golden ratio */
#define PHILOX_W1	0xBB67AE85u	/* sqrt(3) - 1 */
#define PHILOX_ROUNDS	10
#define TRUNCATED_TRIES	16
#define TRUNCATED_BOUND	2.0
/* elements (mask bytes) a worker draws at a time */
#define RANDOM_CHUNK	4096

void oplib_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2],
			 uint32_t out[4])
{
	uint32_t c[4] = { ctr[0], ctr[1], ctr[2], ctr[3] };
	uint32_t k0 = key[0], k1 = key[1];
	unsigned int r;

	for (r = 0; r < PHILOX_ROUNDS; r++) {
		uint64_t p0 = (uint64_t)PHILOX_M0 * c[0];
		uint64_t p1 = (uint64_t)PHILOX_M1 * c[2];
		uint32_t n[4] = {
			(uint32_t)(p1 >> 32) ^ c[1] ^ k0, (uint32_t)p1,
			(uint32_t)(p0 >> 32) ^ c[3] ^ k1, (uint32_t)p0,
		};

		memcpy(c, n, sizeof(c));
		k0 += PHILOX_W0;
		k1 += PHILOX_W1;
	}
	memcpy(out, c, sizeof(c));
}

struct random_attrs {
	uint32_t dist;
	bool is_unsigned;
	uint64_t seed;
	uint64_t lo;		/* raw: double, int64 or uint64 bits */
	uint64_t hi;
	uint64_t bits;
};

static void random_decode(const struct oplib_op *op, struct random_attrs *a)
{
	const struct npu_attr_random *raw = &op->attrs->random;

	a->dist = oplib_u32(raw->dist);
	a->is_unsigned = oplib_u32(raw->flags) & NPU_RANDOM_UNSIGNED;
	a->seed = le64toh(raw->seed);
	a->lo = le64toh(raw->lo);
	a->hi = le64toh(raw->hi);
	a->bits = le64toh(raw->bits);
}

static double bits_f64(uint64_t bits)
{
	double d;

	memcpy(&d, &bits, sizeof(d));
	return d;
}

static bool random_float_type(unsigned int dtype)
{
	return dtype == NPU_DTYPE_F32 || dtype == NPU_DTYPE_F16 ||
	       dtype == NPU_DTYPE_BF16 || dtype == NPU_DTYPE_F64;
}

/* An integer UNIFORM's bounds: lo < hi, both within y's type (S32 or S64). */
static int random_check_int(const struct random_attrs *a, unsigned int dtype)
{
	if (dtype != NPU_DTYPE_S32 && dtype != NPU_DTYPE_S64)
		return NPU_ERR_OPERATOR;
	if (a->is_unsigned) {
		if (a->lo >= a->hi)
			return NPU_ERR_OP_PARAM;
		/* hi is exclusive: the type's largest value plus 1 still fits */
		if (dtype == NPU_DTYPE_S32 && a->hi > (uint64_t)UINT32_MAX + 1)
			return NPU_ERR_OP_PARAM;
		return NPU_ERR_NONE;
	}
	if ((int64_t)a->lo >= (int64_t)a->hi)
		return NPU_ERR_OP_PARAM;
	if (dtype == NPU_DTYPE_S32 &&
	    ((int64_t)a->lo < INT32_MIN || (int64_t)a->hi > (int64_t)INT32_MAX + 1))
		return NPU_ERR_OP_PARAM;
	return NPU_ERR_NONE;
}

static int random_check_float(const struct random_attrs *a)
{
	double lo = bits_f64(a->lo), hi = bits_f64(a->hi);

	if (a->is_unsigned || !isfinite(lo) || !isfinite(hi))
		return NPU_ERR_OP_PARAM;
	if (a->dist == NPU_RANDOM_UNIFORM)
		return lo < hi && isfinite(hi - lo) ? NPU_ERR_NONE : NPU_ERR_OP_PARAM;
	return hi >= 0 ? NPU_ERR_NONE : NPU_ERR_OP_PARAM;
}

static int random_check_mask(const struct random_attrs *a,
			     const struct oplib_tensor *y)
{
	double ratio = bits_f64(a->lo);

	if (y->dtype != NPU_DTYPE_U8)
		return NPU_ERR_OPERATOR;
	if (a->is_unsigned || a->hi || !(ratio >= 0 && ratio <= 1))
		return NPU_ERR_OP_PARAM;
	if (a->bits > y->nelems * 8 || a->bits + 8 <= y->nelems * 8)
		return NPU_ERR_OP_PARAM;
	return NPU_ERR_NONE;
}

static int random_check(const struct oplib_op *op)
{
	const struct npu_attr_random *raw = &op->attrs->random;
	const struct oplib_tensor *ctr = &op->t[0], *y = oplib_out(op);
	struct random_attrs a;
	int err;

	random_decode(op, &a);
	if (raw->rsvd2 || (oplib_u32(raw->flags) & ~NPU_RANDOM_UNSIGNED))
		return NPU_ERR_RESERVED;
	if (a.dist > NPU_RANDOM_DIST_LAST)
		return NPU_ERR_OPERATOR;
	err = oplib_all_strided(op);
	if (err)
		return err;
	if (ctr->dtype != NPU_DTYPE_S64 || ctr->ndims != 1 || ctr->dims[0] != 2)
		return NPU_ERR_OP_PARAM;
	if (a.dist == NPU_RANDOM_DROPOUT_MASK)
		return random_check_mask(&a, y);
	if (a.bits)
		return NPU_ERR_OP_PARAM;
	if (random_float_type(y->dtype))
		return random_check_float(&a);
	if (a.dist != NPU_RANDOM_UNIFORM)
		return NPU_ERR_OPERATOR;
	return random_check_int(&a, y->dtype);
}

/* The block at counter ctr + i, under key seed + (0, tweak). */
static void random_block(const uint64_t ctr[2], uint64_t i, uint64_t seed,
			 uint32_t tweak, uint32_t out[4])
{
	uint64_t lo = ctr[0] + i;
	uint64_t hi = ctr[1] + (lo < i);
	const uint32_t c[4] = { (uint32_t)lo, (uint32_t)(lo >> 32),
				(uint32_t)hi, (uint32_t)(hi >> 32) };
	const uint32_t k[2] = { (uint32_t)seed, (uint32_t)(seed >> 32) + tweak };

	oplib_philox4x32_10(c, k, out);
}

/* Two words as a double in [0, 1), 53 bits of it. */
static double unit53(uint32_t a, uint32_t b)
{
	return (double)((((uint64_t)b << 32) | a) >> 11) * 0x1p-53;
}

/* Box-Muller: the block's two standard normals. */
static void normal_pair(const uint32_t w[4], double z[2])
{
	/* in (0, 1]: the logarithm stays finite */
	double u1 = 1.0 - unit53(w[0], w[1]);
	double u2 = unit53(w[2], w[3]);
	double r = sqrt(-2.0 * log(u1));

	z[0] = r * cos(2 * M_PI * u2);
	z[1] = r * sin(2 * M_PI * u2);
}

static double truncated_normal(const uint64_t ctr[2], uint64_t i, uint64_t seed)
{
	uint32_t w[4];
	double z[2];
	uint32_t t;

	for (t = 0; t < TRUNCATED_TRIES; t++) {
		random_block(ctr, i, seed, t, w);
		normal_pair(w, z);
		if (fabs(z[0]) <= TRUNCATED_BOUND)
			return z[0];
		if (fabs(z[1]) <= TRUNCATED_BOUND)
			return z[1];
	}
	return copysign(TRUNCATED_BOUND, z[0]);
}

/* lo + a uniform draw below hi - lo, widened 64 x 64 bits so as not to bias it. */
static uint64_t uniform_int(const struct random_attrs *a, const uint32_t w[4])
{
	uint64_t span = a->hi - a->lo;
	uint64_t draw = ((uint64_t)w[1] << 32) | w[0];

	return a->lo + (uint64_t)(((unsigned __int128)draw * span) >> 64);
}

static void random_element(const struct random_attrs *a, const uint64_t ctr[2],
			   uint64_t i, unsigned int dtype, uint8_t *p)
{
	uint32_t w[4];
	double z[2], v;

	if (a->dist == NPU_RANDOM_TRUNCATED_NORMAL) {
		v = truncated_normal(ctr, i, a->seed);
		oplib_store_f64(p, dtype, bits_f64(a->lo) + bits_f64(a->hi) * v);
		return;
	}
	random_block(ctr, i, a->seed, 0, w);
	if (a->dist == NPU_RANDOM_NORMAL) {
		normal_pair(w, z);
		oplib_store_f64(p, dtype, bits_f64(a->lo) + bits_f64(a->hi) * z[0]);
	} else if (random_float_type(dtype)) {
		v = bits_f64(a->lo) + unit53(w[0], w[1]) * (bits_f64(a->hi) - bits_f64(a->lo));
		oplib_store_f64(p, dtype, v);
	} else {
		uint64_t u = uniform_int(a, w);

		/* the low bytes, little endian: signed or not alike */
		memcpy(p, &u, oplib_dtype_size(dtype));
	}
}

/* Row-major element i of y as an index. */
static void random_unravel(uint64_t i, const struct oplib_tensor *y, int64_t *idx)
{
	unsigned int d;

	memset(idx, 0, NPU_TENSOR_MAX_DIMS * sizeof(*idx));
	for (d = y->ndims; d-- > 0;) {
		idx[d] = i % y->dims[d];
		i /= y->dims[d];
	}
}

static void random_ctr_load(const uint8_t *bytes, uint64_t ctr[2])
{
	memcpy(ctr, bytes, 2 * sizeof(*ctr));
	ctr[0] = le64toh(ctr[0]);
	ctr[1] = le64toh(ctr[1]);
}

/* Mask byte j: bits 8j .. 8j + 7 below the count. */
static uint8_t random_mask_byte(const struct random_attrs *a, const uint64_t ctr[2],
				uint64_t j)
{
	double ratio = bits_f64(a->lo);
	uint8_t m = 0;
	unsigned int b;

	for (b = 0; b < 8 && j * 8 + b < a->bits; b++) {
		uint32_t w[4];

		random_block(ctr, j * 8 + b, a->seed, 0, w);
		if ((double)w[0] * 0x1p-32 >= ratio)
			m |= 1u << b;
	}
	return m;
}

/*
 * Chunk idx[0] of RANDOM_CHUNK elements of y (mask bytes), on any worker:
 * each element depends on its own index alone, so the split is invisible.
 */
static void random_chunk(const struct oplib_op *op, const struct oplib_step *step,
			 uint8_t *const *bufs, const int64_t *chunk, unsigned int worker)
{
	const struct oplib_tensor *y = oplib_out(op);
	size_t esize = oplib_dtype_size(y->dtype);
	uint64_t i = (uint64_t)chunk[0] * RANDOM_CHUNK, end = i + RANDOM_CHUNK;
	int64_t idx[NPU_TENSOR_MAX_DIMS];
	struct random_attrs a;
	uint64_t ctr[2];

	(void)worker;
	random_decode(op, &a);
	random_ctr_load(bufs[step->in], ctr);
	if (end > y->nelems)
		end = y->nelems;
	random_unravel(i, y, idx);
	for (; i < end; i++) {
		uint8_t *p = bufs[step->out] + oplib_offset(y, idx) * esize;

		if (a.dist == NPU_RANDOM_DROPOUT_MASK)
			*p = random_mask_byte(&a, ctr, i);
		else
			random_element(&a, ctr, i, y->dtype, p);
		oplib_index_next(idx, y->dims, y->ndims);
	}
}

static bool random_loop(const struct oplib_op *op, const struct oplib_step *step,
			uint8_t *const *bufs, const struct oplib_hooks *hooks)
{
	const struct oplib_tensor *y = oplib_out(op);
	const int64_t chunks = (int64_t)((y->nelems + RANDOM_CHUNK - 1) / RANDOM_CHUNK);
	uint8_t *ctr_bytes = bufs[step->in];
	struct random_attrs a;
	uint64_t ctr[2], drawn;

	/* the counter changes once every chunk has read it */
	if (!oplib_rows_run(op, step, bufs, hooks, &chunks, 1, RANDOM_CHUNK, random_chunk))
		return false;
	random_decode(op, &a);
	drawn = a.dist == NPU_RANDOM_DROPOUT_MASK ? a.bits : y->nelems;
	random_ctr_load(ctr_bytes, ctr);
	ctr[0] += drawn;
	ctr[1] += ctr[0] < drawn;
	ctr[0] = htole64(ctr[0]);
	ctr[1] = htole64(ctr[1]);
	memcpy(ctr_bytes, ctr, sizeof(ctr));
	return true;
}

static int random_plan(struct oplib *lib, const struct oplib_op *op,
		       struct oplib_plan *plan)
{
	(void)lib;
	return oplib_plan_loop(plan, random_loop, 0, op->num_inputs, NULL);
}

const struct oplib_family oplib_random_family = {
	.check = random_check,
	.plan = random_plan,
};
