// SPDX-License-Identifier: GPL-2.0
/*
 * SORT: the positions of each line's elements along the axis in sorted
 * order, ascending or descending, the first k of them (ind's length
 * along the axis: top-k).  A merge sort, so it is stable: equal elements
 * keep their order either way.  NaN sorts last either way, integers
 * compare exactly as int64, floats as double.  Each line's keys and
 * positions are sorted in scratch: three int64 per element of a line, per
 * worker thread.
 */
#include <math.h>

#include "oplib_impl.h"

union sort_key {
	double f;
	int64_t i;
};

struct sort_line {
	union sort_key *key;
	int64_t *pos;
	int64_t *tmp;
	bool is_int;
	bool descending;
};

static int sort_check(const struct oplib_op *op)
{
	const struct npu_attr_sort *raw = &op->attrs->sort;
	const struct oplib_tensor *x = &op->t[0], *ind = oplib_out(op);
	uint32_t axis = oplib_u32(raw->axis);
	unsigned int d;
	int err;

	err = oplib_strided_only(x);
	if (!err)
		err = oplib_strided_only(ind);
	if (err)
		return err;
	if (!oplib_index_dtype(ind->dtype))
		return NPU_ERR_OPERATOR;
	if (oplib_u32(raw->descending) > 1 || !x->ndims || axis >= x->ndims ||
	    ind->ndims != x->ndims)
		return NPU_ERR_OP_PARAM;
	for (d = 0; d < x->ndims; d++)
		if (d == axis ? ind->dims[d] > x->dims[d] : ind->dims[d] != x->dims[d])
			return NPU_ERR_OP_PARAM;
	return NPU_ERR_NONE;
}

/* Position a goes before position b: strictly, so ties keep their order. */
static bool sort_before(const struct sort_line *l, int64_t a, int64_t b)
{
	const union sort_key *ka = &l->key[a], *kb = &l->key[b];

	if (l->is_int)
		return l->descending ? ka->i > kb->i : ka->i < kb->i;
	if (isnan(ka->f) || isnan(kb->f))
		return !isnan(ka->f);
	return l->descending ? ka->f > kb->f : ka->f < kb->f;
}

/* Bottom-up merge sort of l->pos[0..n), l->tmp as much again. */
static void sort_merge(struct sort_line *l, int64_t n)
{
	int64_t width, lo, *from = l->pos, *to = l->tmp, *swap;

	for (width = 1; width < n; width *= 2) {
		for (lo = 0; lo < n; lo += 2 * width) {
			int64_t mid = lo + width < n ? lo + width : n;
			int64_t hi = lo + 2 * width < n ? lo + 2 * width : n;
			int64_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi)
				to[k++] = sort_before(l, from[j], from[i]) ?
					  from[j++] : from[i++];
			while (i < mid)
				to[k++] = from[i++];
			while (j < hi)
				to[k++] = from[j++];
		}
		swap = from;
		from = to;
		to = swap;
	}
	if (from != l->pos)
		memcpy(l->pos, from, n * sizeof(*from));
}

/* The line through idx (its axis entry ignored) sorted into ind. */
static void sort_one_line(const struct oplib_op *op, struct sort_line *l,
			  uint8_t *const *bufs, int64_t *idx, unsigned int axis)
{
	const struct oplib_tensor *x = &op->t[0], *ind = oplib_out(op);
	size_t xs = oplib_dtype_size(x->dtype), is = oplib_dtype_size(ind->dtype);
	int64_t n = x->dims[axis], i;

	for (i = 0; i < n; i++) {
		const uint8_t *p;

		idx[axis] = i;
		p = bufs[0] + oplib_offset(x, idx) * xs;
		if (l->is_int)
			l->key[i].i = oplib_load_int(p, x->dtype);
		else
			l->key[i].f = oplib_load_f64(p, x->dtype);
		l->pos[i] = i;
	}
	sort_merge(l, n);
	for (i = 0; i < ind->dims[axis]; i++) {
		idx[axis] = i;
		oplib_store_int(bufs[op->num_inputs] + oplib_offset(ind, idx) * is,
				ind->dtype, l->pos[i]);
	}
	idx[axis] = 0;
}

/* Each worker sorts in its own part of the scratch. */
static void sort_row(const struct oplib_op *op, const struct oplib_step *step,
		     uint8_t *const *bufs, const int64_t *at, unsigned int worker)
{
	const struct oplib_tensor *x = &op->t[0];
	unsigned int axis = oplib_u32(op->attrs->sort.axis);
	int64_t n = x->dims[axis], idx[NPU_TENSOR_MAX_DIMS];
	int64_t *scratch = (int64_t *)bufs[step->out] + 3 * n * worker;
	struct sort_line l = {
		.key = (union sort_key *)scratch,
		.pos = scratch + n,
		.tmp = scratch + 2 * n,
		.is_int = oplib_dtype_is_int(x->dtype),
		.descending = oplib_u32(op->attrs->sort.descending),
	};

	memcpy(idx, at, sizeof(idx));
	sort_one_line(op, &l, bufs, idx, axis);
}

/* The lines are independent: they run on the library's threads. */
static bool sort_loop(const struct oplib_op *op, const struct oplib_step *step,
		      uint8_t *const *bufs, const struct oplib_hooks *hooks)
{
	const struct oplib_tensor *x = &op->t[0];
	unsigned int axis = oplib_u32(op->attrs->sort.axis);
	int64_t lines[NPU_TENSOR_MAX_DIMS];

	memcpy(lines, x->dims, sizeof(lines));
	lines[axis] = 1;
	return oplib_rows_run(op, step, bufs, hooks, lines, x->ndims, x->dims[axis],
			      sort_row);
}

static int sort_plan(struct oplib *lib, const struct oplib_op *op,
		     struct oplib_plan *plan)
{
	/* bytes, per worker: oneDNN, which describes scratch, has no 64-bit type */
	int64_t bytes = 3 * sizeof(int64_t) * oplib_rows_workers() *
			op->t[0].dims[oplib_u32(op->attrs->sort.axis)];
	dnnl_memory_desc_t md;
	unsigned int view;
	int err;

	(void)lib;
	err = oplib_md_dense(&md, 1, &bytes, NPU_DTYPE_U8);
	if (!err)
		err = oplib_plan_scratch(plan, &md, &view);
	if (err)
		return err;
	return oplib_plan_loop(plan, sort_loop, 0, plan->views[view].buf, NULL);
}

const struct oplib_family oplib_sort_family = {
	.reads_broadcast = true,
	.check = sort_check,
	.plan = sort_plan,
};
