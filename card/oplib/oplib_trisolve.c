// SPDX-License-Identifier: GPL-2.0
/*
 * TRISOLVE: x with a x = b (or a^T x = b) for triangular a, by forward or
 * back substitution, in double.  a's and b's batch axes broadcast where
 * they are 1.  Each matrix of a and each column of b is read whole before
 * the column of x is written, so x may be b itself.  A zero on a's
 * diagonal divides by zero, as IEEE 754 does: x gets infinities and NaNs.
 */
#include <stdlib.h>

#include "oplib_impl.h"

enum { TRI_A, TRI_B };

#define TRI_FLAGS	(NPU_TRISOLVE_UPPER | NPU_TRISOLVE_TRANSPOSE | \
			 NPU_TRISOLVE_UNIT)

static bool trisolve_batch_ok(const struct oplib_tensor *t,
			      const struct oplib_tensor *x)
{
	unsigned int d;

	for (d = 0; d + 2 < x->ndims; d++)
		if (t->dims[d] != 1 && t->dims[d] != x->dims[d])
			return false;
	return true;
}

static int trisolve_check(const struct oplib_op *op)
{
	const struct oplib_tensor *a = &op->t[TRI_A], *b = &op->t[TRI_B];
	const struct oplib_tensor *x = oplib_out(op);
	unsigned int i, r = x->ndims;
	int err = NPU_ERR_NONE;

	if (op->attrs->trisolve.rsvd)
		return NPU_ERR_RESERVED;
	for (i = 0; i < op->num_tensors && !err; i++)
		err = oplib_strided_only(&op->t[i]);
	if (err)
		return err;
	for (i = 0; i < op->num_tensors; i++)
		if (oplib_dtype_is_int(op->t[i].dtype) ||
		    op->t[i].dtype != x->dtype)
			return NPU_ERR_OPERATOR;
	if (oplib_u32(op->attrs->trisolve.flags) & ~TRI_FLAGS)
		return NPU_ERR_OP_PARAM;
	if (r < 2 || a->ndims != r || b->ndims != r ||
	    a->dims[r - 2] != a->dims[r - 1] || b->dims[r - 2] != a->dims[r - 1] ||
	    x->dims[r - 2] != b->dims[r - 2] || x->dims[r - 1] != b->dims[r - 1] ||
	    !trisolve_batch_ok(a, x) || !trisolve_batch_ok(b, x))
		return NPU_ERR_OP_PARAM;
	return NPU_ERR_NONE;
}

/* The element offset of batch idx[0..r-2) in t, broadcast. */
static int64_t trisolve_batch(const struct oplib_tensor *t, const int64_t *idx)
{
	int64_t off = 0;
	unsigned int d;

	for (d = 0; d + 2 < t->ndims; d++)
		if (t->dims[d] != 1)
			off += idx[d] * t->strides[d];
	return off;
}

/* The matrix a solves with, row-major, n x n: a or its transpose. */
static void trisolve_load_a(const struct oplib_op *op, const uint8_t *base,
			    int64_t off, double *m)
{
	const struct oplib_tensor *a = &op->t[TRI_A];
	bool trans = oplib_u32(op->attrs->trisolve.flags) & NPU_TRISOLVE_TRANSPOSE;
	int64_t n = a->dims[a->ndims - 1], i, j;
	int64_t rs = a->strides[a->ndims - 2], cs = a->strides[a->ndims - 1];
	size_t es = oplib_dtype_size(a->dtype);

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			m[trans ? j * n + i : i * n + j] =
				oplib_load_f64(base + (off + i * rs + j * cs) * es,
					       a->dtype);
}

/* Column c solved in place: lower is the triangle of m that is used. */
static void trisolve_column(const double *m, int64_t n, bool lower, bool unit,
			    double *col)
{
	int64_t s, i, j;

	for (s = 0; s < n; s++) {
		double v;

		i = lower ? s : n - 1 - s;
		v = col[i];
		if (lower)
			for (j = 0; j < i; j++)
				v -= m[i * n + j] * col[j];
		else
			for (j = i + 1; j < n; j++)
				v -= m[i * n + j] * col[j];
		col[i] = unit ? v : v / m[i * n + i];
	}
}

static void trisolve_matrix(const struct oplib_op *op, uint8_t *const *bufs,
			    unsigned int out, const int64_t *idx, double *m,
			    double *col)
{
	const struct oplib_tensor *b = &op->t[TRI_B], *x = oplib_out(op);
	uint32_t flags = oplib_u32(op->attrs->trisolve.flags);
	unsigned int r = x->ndims;
	int64_t n = x->dims[r - 2], k = x->dims[r - 1], c, i;
	int64_t boff = trisolve_batch(b, idx), xoff = trisolve_batch(x, idx);
	size_t es = oplib_dtype_size(x->dtype);
	/* a^T of an upper a is lower */
	bool lower = !(flags & NPU_TRISOLVE_UPPER) ^
		     !!(flags & NPU_TRISOLVE_TRANSPOSE);

	trisolve_load_a(op, bufs[TRI_A], trisolve_batch(&op->t[TRI_A], idx), m);
	for (c = 0; c < k; c++) {
		for (i = 0; i < n; i++)
			col[i] = oplib_load_f64(bufs[TRI_B] + (boff + i * b->strides[r - 2] +
					       c * b->strides[r - 1]) * es, b->dtype);
		trisolve_column(m, n, lower, flags & NPU_TRISOLVE_UNIT, col);
		for (i = 0; i < n; i++)
			oplib_store(bufs[out] + (xoff + i * x->strides[r - 2] +
				    c * x->strides[r - 1]) * es, x->dtype, col[i]);
	}
}

static bool trisolve_loop(const struct oplib_op *op,
			  const struct oplib_step *step, uint8_t *const *bufs,
			  const struct oplib_hooks *hooks)
{
	const struct oplib_tensor *x = oplib_out(op);
	int64_t idx[NPU_TENSOR_MAX_DIMS] = { 0 }, n = x->dims[x->ndims - 2];
	double *m = malloc(n * n * sizeof(double)), *col = malloc(n * sizeof(double));
	uint64_t count = 0xffff;
	bool ok = m && col;

	/* a matrix at a time; asking before each is often enough */
	while (ok) {
		trisolve_matrix(op, bufs, step->out, idx, m, col);
		ok = oplib_loop_go_on(hooks, &count);
		count = 0xffff;
		if (!oplib_index_next(idx, x->dims, x->ndims - 2))
			break;
	}
	free(m);
	free(col);
	return ok;
}

static int trisolve_plan(struct oplib *lib, const struct oplib_op *op,
			 struct oplib_plan *plan)
{
	(void)lib;
	return oplib_plan_loop(plan, trisolve_loop, 0, op->num_inputs, NULL);
}

const struct oplib_family oplib_trisolve_family = {
	.reads_broadcast = true,
	.check = trisolve_check,
	.plan = trisolve_plan,
};
