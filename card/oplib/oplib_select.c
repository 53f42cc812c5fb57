// SPDX-License-Identifier: GPL-2.0
/*
 * FILL and WHERE: operators that write constants or pick elements, for
 * every data type.  oneDNN has neither, so both are loops; WHERE moves
 * elements as bytes, FILL computes integers in int64 so that a range of
 * int64 is exact where a double would round.
 */
#include <math.h>

#include "oplib_impl.h"

struct fill_attrs {
	uint32_t mode;
	double value;
	double step;
};

static double f64_of(__le64 raw)
{
	uint64_t bits = le64toh(raw);
	double d;

	memcpy(&d, &bits, sizeof(d));
	return d;
}

static void fill_decode(const struct oplib_op *op, struct fill_attrs *f)
{
	const struct npu_attr_fill *raw = &op->attrs->fill;

	f->mode = oplib_u32(raw->mode);
	f->value = f64_of(raw->value);
	f->step = f64_of(raw->step);
}

static int fill_check(const struct oplib_op *op)
{
	const struct npu_attr_fill *raw = &op->attrs->fill;
	struct fill_attrs f;

	fill_decode(op, &f);
	if (raw->rsvd)
		return NPU_ERR_RESERVED;
	if (f.mode > NPU_FILL_RANGE)
		return NPU_ERR_OPERATOR;
	if (f.mode == NPU_FILL_CONSTANT && raw->step)
		return NPU_ERR_RESERVED;
	return oplib_strided_only(oplib_out(op));
}

/* A double that an int64 holds exactly. */
static bool f64_is_int64(double d)
{
	return d == trunc(d) && d >= -0x1p63 && d < 0x1p63;
}

/* value + i * step in int64, saturated. */
static int64_t fill_int(int64_t value, int64_t step, uint64_t i)
{
	int64_t term, sum;

	if (i > INT64_MAX || __builtin_mul_overflow(step, (int64_t)i, &term))
		return step < 0 ? INT64_MIN : INT64_MAX;
	if (__builtin_add_overflow(value, term, &sum))
		return term < 0 ? INT64_MIN : INT64_MAX;
	return sum;
}

static bool fill_loop(const struct oplib_op *op, const struct oplib_step *step,
		      uint8_t *const *bufs, const struct oplib_hooks *hooks)
{
	const struct oplib_tensor *y = oplib_out(op);
	size_t esize = oplib_dtype_size(y->dtype);
	int64_t idx[NPU_TENSOR_MAX_DIMS] = { 0 };
	struct fill_attrs f;
	bool exact;
	uint64_t i = 0, count = 0;

	fill_decode(op, &f);
	exact = oplib_dtype_is_int(y->dtype) && y->dtype != NPU_DTYPE_BOOL &&
		f64_is_int64(f.value) && f64_is_int64(f.step);
	do {
		uint8_t *p = bufs[step->out] + oplib_offset(y, idx) * esize;
		double v = f.value + (double)i * f.step;

		if (exact)
			oplib_store_int(p, y->dtype, fill_int((int64_t)f.value,
							     (int64_t)f.step, i));
		else if (y->dtype == NPU_DTYPE_BOOL)
			oplib_store_int(p, y->dtype, v != 0);
		else if (oplib_dtype_is_int(y->dtype))
			oplib_store_wide(p, y->dtype, oplib_f64_to_wide(v));
		else
			oplib_store_f64(p, y->dtype, v);
		i++;
		if (!oplib_loop_go_on(hooks, &count))
			return false;
	} while (oplib_index_next(idx, y->dims, y->ndims));
	return true;
}

static int fill_plan(struct oplib *lib, const struct oplib_op *op,
		     struct oplib_plan *plan)
{
	(void)lib;
	return oplib_plan_loop(plan, fill_loop, 0, op->num_inputs, NULL);
}

/* cond, a and b have y's rank, each dim y's or 1. */
static int where_check(const struct oplib_op *op)
{
	const struct oplib_tensor *y = oplib_out(op);
	unsigned int i, d;
	int err;

	err = oplib_all_strided(op);
	if (err)
		return err;
	if (op->t[1].dtype != y->dtype || op->t[2].dtype != y->dtype)
		return NPU_ERR_OPERATOR;
	for (i = 0; i < op->num_inputs; i++) {
		const struct oplib_tensor *t = &op->t[i];

		if (t->ndims != y->ndims)
			return NPU_ERR_OP_PARAM;
		for (d = 0; d < y->ndims; d++)
			if (t->dims[d] != y->dims[d] && t->dims[d] != 1)
				return NPU_ERR_OP_PARAM;
	}
	return NPU_ERR_NONE;
}

/* Tensor t's element at y's index idx, broadcast where t's dim is 1. */
static const uint8_t *where_at(const struct oplib_tensor *t, const uint8_t *base,
			       const int64_t *idx)
{
	int64_t at[NPU_TENSOR_MAX_DIMS];
	unsigned int d;

	for (d = 0; d < t->ndims; d++)
		at[d] = t->dims[d] == 1 ? 0 : idx[d];
	return base + oplib_offset(t, at) * oplib_dtype_size(t->dtype);
}

static bool where_loop(const struct oplib_op *op, const struct oplib_step *step,
		       uint8_t *const *bufs, const struct oplib_hooks *hooks)
{
	const struct oplib_tensor *y = oplib_out(op);
	size_t esize = oplib_dtype_size(y->dtype);
	int64_t idx[NPU_TENSOR_MAX_DIMS] = { 0 };
	uint64_t count = 0;

	do {
		const uint8_t *c = where_at(&op->t[0], bufs[0], idx);
		/* NaN is not 0: true */
		unsigned int pick = oplib_load_f64(c, op->t[0].dtype) != 0 ? 1 : 2;

		memcpy(bufs[step->out] + oplib_offset(y, idx) * esize,
		       where_at(&op->t[pick], bufs[pick], idx), esize);
		if (!oplib_loop_go_on(hooks, &count))
			return false;
	} while (oplib_index_next(idx, y->dims, y->ndims));
	return true;
}

static int where_plan(struct oplib *lib, const struct oplib_op *op,
		      struct oplib_plan *plan)
{
	(void)lib;
	return oplib_plan_loop(plan, where_loop, 0, op->num_inputs, NULL);
}

const struct oplib_family oplib_fill_family = {
	.check = fill_check,
	.plan = fill_plan,
};

const struct oplib_family oplib_where_family = {
	.reads_broadcast = true,
	.check = where_check,
	.plan = where_plan,
};
