// SPDX-License-Identifier: GPL-2.0
/*
 * Integers past int64: a U64 holds values int64 has not, and so may the
 * sum or product of two 64-bit integers.  What must be exact on them
 * (BINARY's integer arithmetic and comparisons, CAST) computes in
 * __int128, which holds every 64-bit value of either sign, and saturates
 * once, when it stores.
 */
#include <math.h>

#include "oplib_impl.h"

oplib_wide oplib_load_wide(const uint8_t *p, unsigned int dtype)
{
	uint64_t u;

	if (dtype != NPU_DTYPE_U64)
		return oplib_load_int(p, dtype);
	memcpy(&u, p, sizeof(u));
	return u;
}

/* A double toward zero, NaN 0; past every 64-bit range it saturates as 2^64 does. */
oplib_wide oplib_f64_to_wide(double d)
{
	if (isnan(d))
		return 0;
	if (fabs(d) >= 0x1p64)
		return d < 0 ? -((oplib_wide)1 << 64) : (oplib_wide)1 << 64;
	return (oplib_wide)d;
}

/* Saturated into an integer type, rounded once into a float one. */
void oplib_store_wide(uint8_t *p, unsigned int dtype, oplib_wide v)
{
	uint64_t u;

	if (v >= INT64_MIN && v <= INT64_MAX) {
		oplib_store_int(p, dtype, (int64_t)v);
		return;
	}
	switch (dtype) {
	case NPU_DTYPE_U64:
		u = v < 0 ? 0 : v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
		memcpy(p, &u, sizeof(u));
		return;
	case NPU_DTYPE_F64:
		oplib_store_f64(p, dtype, (double)v);
		return;
	case NPU_DTYPE_F32:
	case NPU_DTYPE_BF16:
	case NPU_DTYPE_F16:
		oplib_store(p, dtype, (float)v);
		return;
	default:
		oplib_store_int(p, dtype, v < 0 ? INT64_MIN : INT64_MAX);
	}
}

/*
 * The operators U64 has: those exact for it above (BINARY's arithmetic on
 * integers only, for which U64 is one), FILL, and those that only move
 * elements.  The others compute through int64 or float, which would round
 * or saturate a U64 silently.
 */
static bool u64_kind_ok(const struct oplib_op *op)
{
	switch (op->kind) {
	case NPU_OPERATOR_BINARY:
		return oplib_u32(op->attrs->binary.kind) >= NPU_BINARY_EQ ||
		       (oplib_dtype_is_int(op->t[0].dtype) && oplib_dtype_is_int(op->t[1].dtype) &&
			oplib_dtype_is_int(oplib_out(op)->dtype));
	case NPU_OPERATOR_UNARY:
		return oplib_u32(op->attrs->unary.fn.kind) == NPU_UNARY_NONE;
	case NPU_OPERATOR_CAST:
	case NPU_OPERATOR_FILL:
	case NPU_OPERATOR_CONCAT:
	case NPU_OPERATOR_TRANSPOSE:
	case NPU_OPERATOR_PAD:
	case NPU_OPERATOR_SLICE:
	case NPU_OPERATOR_GATHER:
	case NPU_OPERATOR_GATHER_ELEMENTS:
	case NPU_OPERATOR_WHERE:
	case NPU_OPERATOR_TRIANGLE:
		return true;
	}
	return false;
}

int oplib_u64_check(const struct oplib_op *op)
{
	unsigned int i;

	for (i = 0; i < op->num_tensors; i++)
		if (op->t[i].dtype == NPU_DTYPE_U64)
			return u64_kind_ok(op) ? NPU_ERR_NONE : NPU_ERR_OPERATOR;
	return NPU_ERR_NONE;
}
