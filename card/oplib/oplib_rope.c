// SPDX-License-Identifier: GPL-2.0
/*
 * ROPE: rotary position embedding, y = x * cos + rotated(x) * sin over
 * x's last axis, rotated pairing elements as @mode says.  cos and sin
 * broadcast numpy-style (aligned at the last axis, a dim of 1 repeated).
 * A loop over rows: each row of x is read whole before its row of y is
 * written, so y may be x itself.
 */
#include <stdlib.h>

#include "oplib_impl.h"

enum { ROPE_X, ROPE_COS, ROPE_SIN };

static bool rope_float(unsigned int dtype)
{
	return !oplib_dtype_is_int(dtype);
}

/* t broadcasts to x: no more axes, each dim x's or 1, the last x's. */
static bool rope_broadcasts(const struct oplib_tensor *t,
			    const struct oplib_tensor *x)
{
	unsigned int lead = x->ndims - t->ndims, d;

	if (!t->ndims || t->ndims > x->ndims ||
	    t->dims[t->ndims - 1] != x->dims[x->ndims - 1])
		return false;
	for (d = 0; d < t->ndims; d++)
		if (t->dims[d] != 1 && t->dims[d] != x->dims[lead + d])
			return false;
	return true;
}

static int rope_check(const struct oplib_op *op)
{
	const struct oplib_tensor *x = &op->t[ROPE_X], *y = oplib_out(op);
	unsigned int i;
	int err = NPU_ERR_NONE;

	if (op->attrs->rope.rsvd)
		return NPU_ERR_RESERVED;
	for (i = 0; i < op->num_tensors && !err; i++)
		err = oplib_strided_only(&op->t[i]);
	if (err)
		return err;
	for (i = 0; i < op->num_tensors; i++)
		if (!rope_float(op->t[i].dtype))
			return NPU_ERR_OPERATOR;
	if (y->dtype != x->dtype)
		return NPU_ERR_OPERATOR;
	if (oplib_u32(op->attrs->rope.mode) > NPU_ROPE_INTERLEAVED ||
	    !x->ndims || x->dims[x->ndims - 1] % 2 || !oplib_same_dims(x, y) ||
	    !rope_broadcasts(&op->t[ROPE_COS], x) ||
	    !rope_broadcasts(&op->t[ROPE_SIN], x))
		return NPU_ERR_OP_PARAM;
	return NPU_ERR_NONE;
}

/* The element offset in broadcast t of x's index idx. */
static int64_t rope_offset(const struct oplib_tensor *t, unsigned int xdims,
			   const int64_t *idx)
{
	unsigned int lead = xdims - t->ndims, d;
	int64_t off = 0;

	for (d = 0; d < t->ndims; d++)
		if (t->dims[d] != 1)
			off += idx[lead + d] * t->strides[d];
	return off;
}

/* rotated(x)[i], row being x's row. */
static float rope_rotated(const float *row, int64_t i, int64_t n, bool half)
{
	if (half)
		return i < n / 2 ? -row[i + n / 2] : row[i - n / 2];
	return i % 2 ? row[i - 1] : -row[i + 1];
}

static void rope_row(const struct oplib_op *op, uint8_t *const *bufs,
		     unsigned int out, const int64_t *idx, float *row)
{
	const struct oplib_tensor *x = &op->t[ROPE_X], *y = oplib_out(op);
	const struct oplib_tensor *c = &op->t[ROPE_COS], *s = &op->t[ROPE_SIN];
	bool half = oplib_u32(op->attrs->rope.mode) == NPU_ROPE_HALF;
	unsigned int last = x->ndims - 1;
	size_t xs = oplib_dtype_size(x->dtype);
	size_t cs = oplib_dtype_size(c->dtype), ss = oplib_dtype_size(s->dtype);
	const uint8_t *xp = bufs[ROPE_X] + oplib_offset(x, idx) * xs;
	const uint8_t *cp = bufs[ROPE_COS] + rope_offset(c, x->ndims, idx) * cs;
	const uint8_t *sp = bufs[ROPE_SIN] + rope_offset(s, x->ndims, idx) * ss;
	uint8_t *yp = bufs[out] + oplib_offset(y, idx) * xs;
	int64_t n = x->dims[last], i;

	for (i = 0; i < n; i++)
		row[i] = oplib_load(xp + i * x->strides[last] * xs, x->dtype);
	for (i = 0; i < n; i++) {
		float cv = oplib_load(cp + i * c->strides[c->ndims - 1] * cs, c->dtype);
		float sv = oplib_load(sp + i * s->strides[s->ndims - 1] * ss, s->dtype);

		oplib_store(yp + i * y->strides[last] * xs, y->dtype,
			    row[i] * cv + rope_rotated(row, i, n, half) * sv);
	}
}

static bool rope_loop(const struct oplib_op *op, const struct oplib_step *step,
		      uint8_t *const *bufs, const struct oplib_hooks *hooks)
{
	const struct oplib_tensor *x = &op->t[ROPE_X];
	int64_t idx[NPU_TENSOR_MAX_DIMS] = { 0 }, n = x->dims[x->ndims - 1];
	float *row = malloc(n * sizeof(float));
	uint64_t count = 0;
	bool ok = row != NULL;

	do {
		if (!ok)
			break;
		rope_row(op, bufs, step->out, idx, row);
		/* asks every 64 Ki elements, as oplib_loop_go_on() does */
		count += n;
		if (count >= 0x10000) {
			count = 0xffff;
			ok = oplib_loop_go_on(hooks, &count);
			count = 0;
		}
	} while (oplib_index_next(idx, x->dims, x->ndims - 1));
	free(row);
	return ok;
}

static int rope_plan(struct oplib *lib, const struct oplib_op *op,
		     struct oplib_plan *plan)
{
	(void)lib;
	return oplib_plan_loop(plan, rope_loop, 0, op->num_inputs, NULL);
}

const struct oplib_family oplib_rope_family = {
	.reads_broadcast = true,
	.check = rope_check,
	.plan = rope_plan,
};
