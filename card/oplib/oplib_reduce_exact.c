// SPDX-License-Identifier: GPL-2.0
/*
 * REDUCE over integers and F64, which oneDNN would compute in float: a
 * loop.  Integers accumulate in int64, exactly, a result outside y's type
 * saturated (BOOL: SUM and MAX are "any", PROD and MIN "all"); their MEAN
 * and L2 go through double and round to nearest even.  F64 accumulates in
 * double; its MAX and MIN propagate NaN, as numpy's do.
 */
#include <math.h>

#include "oplib_impl.h"

/* The arithmetic kinds; the arg-reductions are oplib_argreduce.c's. */
bool oplib_reduce_is_exact(const struct oplib_op *op)
{
	unsigned int dtype = op->t[0].dtype;

	return oplib_u32(op->attrs->reduce.kind) <= NPU_REDUCE_PROD &&
	       (dtype == NPU_DTYPE_F64 || oplib_dtype_is_int(dtype));
}

struct reduce_acc {
	int64_t i;	/* SUM, L1, PROD, MAX, MIN and MEAN's sum of integers */
	double d;	/* everything of F64, L2's sum of squares of integers */
	uint64_t n;
};

static int64_t add_saturated(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return a < 0 ? INT64_MIN : INT64_MAX;
	return r;
}

static int64_t mul_saturated(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_mul_overflow(a, b, &r))
		return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
	return r;
}

static void acc_start(struct reduce_acc *acc, uint32_t kind)
{
	acc->n = 0;
	acc->i = kind == NPU_REDUCE_PROD ? 1 : kind == NPU_REDUCE_MAX ?
		 INT64_MIN : kind == NPU_REDUCE_MIN ? INT64_MAX : 0;
	acc->d = kind == NPU_REDUCE_PROD ? 1 : kind == NPU_REDUCE_MAX ?
		 -INFINITY : kind == NPU_REDUCE_MIN ? INFINITY : 0;
}

static void acc_int(struct reduce_acc *acc, uint32_t kind, int64_t v)
{
	switch (kind) {
	case NPU_REDUCE_MEAN:
	case NPU_REDUCE_SUM:
		acc->i = add_saturated(acc->i, v);
		break;
	case NPU_REDUCE_L1:
		acc->i = add_saturated(acc->i, v == INT64_MIN ? INT64_MAX :
					       v < 0 ? -v : v);
		break;
	case NPU_REDUCE_L2:
		acc->d += (double)v * (double)v;
		break;
	case NPU_REDUCE_PROD:
		acc->i = mul_saturated(acc->i, v);
		break;
	case NPU_REDUCE_MAX:
		acc->i = v > acc->i ? v : acc->i;
		break;
	case NPU_REDUCE_MIN:
		acc->i = v < acc->i ? v : acc->i;
		break;
	}
	acc->n++;
}

static void acc_f64(struct reduce_acc *acc, uint32_t kind, double v)
{
	switch (kind) {
	case NPU_REDUCE_MEAN:
	case NPU_REDUCE_SUM:
		acc->d += v;
		break;
	case NPU_REDUCE_L1:
		acc->d += fabs(v);
		break;
	case NPU_REDUCE_L2:
		acc->d += v * v;
		break;
	case NPU_REDUCE_PROD:
		acc->d *= v;
		break;
	case NPU_REDUCE_MAX:
		acc->d = isnan(v) || v > acc->d ? v : acc->d;
		break;
	case NPU_REDUCE_MIN:
		acc->d = isnan(v) || v < acc->d ? v : acc->d;
		break;
	}
	acc->n++;
}

static void acc_store(const struct reduce_acc *acc, uint32_t kind, bool is_int,
		      uint8_t *p, unsigned int dtype)
{
	if (!is_int)
		oplib_store_f64(p, dtype, kind == NPU_REDUCE_MEAN ?
				acc->d / (double)acc->n :
				kind == NPU_REDUCE_L2 ? sqrt(acc->d) : acc->d);
	else if (kind == NPU_REDUCE_MEAN)
		oplib_store_f64(p, dtype, (double)acc->i / (double)acc->n);
	else if (kind == NPU_REDUCE_L2)
		oplib_store_f64(p, dtype, sqrt(acc->d));
	else
		oplib_store_int(p, dtype, acc->i);
}

/*
 * For each element of y, the elements of x it covers: y's index plus
 * every index over the reduced axes, which are 0 in y's.
 */
bool oplib_reduce_exact_loop(const struct oplib_op *op,
			     const struct oplib_step *step,
			     uint8_t *const *bufs,
			     const struct oplib_hooks *hooks)
{
	const struct oplib_tensor *x = &op->t[step->in], *y = &op->t[step->out];
	uint32_t kind = oplib_u32(op->attrs->reduce.kind);
	uint32_t axes = oplib_u32(op->attrs->reduce.axes);
	bool is_int = oplib_dtype_is_int(x->dtype);
	size_t size = oplib_dtype_size(x->dtype);
	int64_t yidx[NPU_TENSOR_MAX_DIMS] = { 0 }, rdims[NPU_TENSOR_MAX_DIMS];
	unsigned int d;
	uint64_t count = 0;

	for (d = 0; d < x->ndims; d++)
		rdims[d] = (axes >> d) & 1 ? x->dims[d] : 1;
	do {
		int64_t ridx[NPU_TENSOR_MAX_DIMS] = { 0 }, xidx[NPU_TENSOR_MAX_DIMS];
		struct reduce_acc acc;

		acc_start(&acc, kind);
		do {
			const uint8_t *p;

			for (d = 0; d < x->ndims; d++)
				xidx[d] = yidx[d] + ridx[d];
			p = bufs[step->in] + oplib_offset(x, xidx) * size;
			if (is_int)
				acc_int(&acc, kind, oplib_load_int(p, x->dtype));
			else
				acc_f64(&acc, kind, oplib_load_f64(p, x->dtype));
			if (!oplib_loop_go_on(hooks, &count))
				return false;
		} while (oplib_index_next(ridx, rdims, x->ndims));
		acc_store(&acc, kind, is_int,
			  bufs[step->out] + oplib_offset(y, yidx) * size, y->dtype);
	} while (oplib_index_next(yidx, y->dims, y->ndims));
	oplib_zero_padding(y, bufs[step->out]);
	return true;
}
