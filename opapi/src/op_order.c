// SPDX-License-Identifier: MIT
/*
 * Order operators: Argsort, Sort and Topk are the card's SORT (stable,
 * NaN last) into the indices, Sort and Topk then a GATHER_ELEMENTS of
 * self by them into the values; ArgMax and ArgMin its REDUCE of those
 * kinds; Cumsum and CumsumV2 its CUMSUM; Roll copies of the two parts of
 * each rolled dim, each into its place.  Indices are INT64, as the
 * vendor's; ArgMax and ArgMin also write INT32.
 */
#include <endian.h>

#include "aclnnop/aclnn_argmax.h"
#include "aclnnop/aclnn_argmin.h"
#include "aclnnop/aclnn_argsort.h"
#include "aclnnop/aclnn_cumsum.h"
#include "aclnnop/aclnn_roll.h"
#include "aclnnop/aclnn_sort.h"
#include "aclnnop/aclnn_topk.h"
#include "opnn.h"

#define ORDER_TYPES		(OPNN_FLOATS | OPNN_INTS)

#define ORDER_OP(name, call)							\
	do {									\
		struct opnn o;							\
										\
		NNOP_CHECK_NOTNULL(workspaceSize);				\
		NNOP_CHECK_NOTNULL(executor);					\
		OPNN_TRY(opnn_begin(&o, __func__, name));			\
		return opnn_end(&o, call, workspaceSize, executor);		\
	} while (0)

/* ---- Argsort, Sort, Topk --------------------------------------------------- */

struct sort_req {
	const aclTensor *self;
	int64_t dim;
	int64_t k;			/* -1: the whole dim */
	bool descending;
	const aclTensor *values;	/* or NULL: Argsort */
	const aclTensor *indices;
	const char *indices_name;
};

/* Indices and values have self's dims, dim's being k. */
static aclnnStatus sort_check(struct opnn *o, const struct sort_req *r, unsigned int *axis,
			      int64_t *k)
{
	struct nnop_tensor_info si;
	int64_t want[NNOP_MAX_DIMS];
	int64_t n;

	OPNN_TRY(opnn_check_tensor(o, r->self, "self", ORDER_TYPES));
	OPNN_TRY(opnn_check_tensor(o, r->indices, r->indices_name, OPNN_DT(ACL_INT64)));
	if (r->values) {
		OPNN_TRY(opnn_check_tensor(o, r->values, "valuesOut", ORDER_TYPES));
		OPNN_TRY(opnn_check_same_dtype(o, r->self, "self", r->values, "valuesOut"));
	}
	nnop_tensor_info(r->self, &si);
	OPNN_TRY(opnn_axis(o, r->dim, si.ndims, axis));
	n = si.ndims ? si.dims[*axis] : 1;
	*k = r->k < 0 ? n : r->k;
	if (*k > n)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "k is %lld; dim %u has %lld elements", (long long)r->k, *axis,
				 (long long)n);
	memcpy(want, si.dims, sizeof(want));
	if (si.ndims)
		want[*axis] = *k;
	OPNN_TRY(opnn_check_dims(o, r->indices, r->indices_name, si.ndims, want));
	if (r->values)
		OPNN_TRY(opnn_check_dims(o, r->values, "valuesOut", si.ndims, want));
	return ACLNN_SUCCESS;
}

static aclnnStatus sort_build(struct opnn *o, const struct sort_req *r)
{
	struct npu_attr_sort sort = { 0 };
	struct npu_attr_gather gather = { 0 };
	struct nnop_view x, ind, v[3];
	unsigned int axis;
	int64_t k;

	OPNN_TRY(sort_check(o, r, &axis, &k));
	OPNN_TRY(opnn_input(o, r->self, &x));
	OPNN_TRY(opnn_output(o, r->indices, &ind));
	if (r->values)
		OPNN_TRY(opnn_output(o, r->values, &v[2]));
	if (!opnn_view_nelems(&ind))
		return ACLNN_SUCCESS;
	/* the card's operators take a scalar as one element of rank 1 */
	nnop_view_align(&x, 1);
	nnop_view_align(&ind, 1);
	sort.axis = htole32(axis);
	sort.descending = htole32(r->descending);
	v[0] = x;
	v[1] = ind;
	OPNN_TRY(opnn_add(o, NPU_OPERATOR_SORT, &sort, sizeof(sort), 1, v));
	if (!r->values)
		return ACLNN_SUCCESS;
	nnop_view_align(&v[2], 1);
	gather.axis = htole32(axis);
	return opnn_add(o, NPU_OPERATOR_GATHER_ELEMENTS, &gather, sizeof(gather), 2, v);
}

aclnnStatus aclnnArgsortGetWorkspaceSize(const aclTensor *self, int64_t dim, bool descending,
					 aclTensor *out, uint64_t *workspaceSize,
					 aclOpExecutor **executor)
{
	const struct sort_req r = { .self = self, .dim = dim, .k = -1, .descending = descending,
				    .indices = out, .indices_name = "out" };

	ORDER_OP("Argsort", sort_build(&o, &r));
}

OPNN_LAUNCH(Argsort)

/* stable or not, the card's sort is stable */
aclnnStatus aclnnSortGetWorkspaceSize(const aclTensor *self, bool stable, int64_t dim,
				      bool descending, aclTensor *valuesOut,
				      aclTensor *indicesOut, uint64_t *workspaceSize,
				      aclOpExecutor **executor)
{
	const struct sort_req r = { .self = self, .dim = dim, .k = -1, .descending = descending,
				    .values = valuesOut, .indices = indicesOut,
				    .indices_name = "indicesOut" };

	(void)stable;
	NNOP_CHECK_NOTNULL(valuesOut);
	ORDER_OP("Sort", sort_build(&o, &r));
}

OPNN_LAUNCH(Sort)

/* sorted or not, the k come in order */
aclnnStatus aclnnTopkGetWorkspaceSize(const aclTensor *self, int64_t k, int64_t dim,
				      bool largest, bool sorted, aclTensor *valuesOut,
				      aclTensor *indicesOut, uint64_t *workspaceSize,
				      aclOpExecutor **executor)
{
	const struct sort_req r = { .self = self, .dim = dim, .k = k, .descending = largest,
				    .values = valuesOut, .indices = indicesOut,
				    .indices_name = "indicesOut" };

	(void)sorted;
	NNOP_CHECK_NOTNULL(valuesOut);
	if (k < 0)
		return nnop_fail(__func__, ACLNN_ERR_PARAM_INVALID, "k is %lld; not negative",
				 (long long)k);
	ORDER_OP("Topk", sort_build(&o, &r));
}

OPNN_LAUNCH(Topk)

/* ---- ArgMax, ArgMin ------------------------------------------------------- */

static aclnnStatus arg_build(struct opnn *o, unsigned int kind, const aclTensor *self,
			     int64_t dim, bool keepdim, const aclTensor *out)
{
	struct nnop_tensor_info si;
	int64_t want[NNOP_MAX_DIMS];
	struct nnop_view x, y;
	unsigned int axis, d, n = 0;

	OPNN_TRY(opnn_check_tensor(o, self, "self", ORDER_TYPES));
	OPNN_TRY(opnn_check_tensor(o, out, "out", OPNN_DT(ACL_INT32) | OPNN_DT(ACL_INT64)));
	nnop_tensor_info(self, &si);
	OPNN_TRY(opnn_axis(o, dim, si.ndims, &axis));
	for (d = 0; d < si.ndims; d++)
		if (d != axis || keepdim)
			want[n++] = d == axis ? 1 : si.dims[d];
	OPNN_TRY(opnn_check_dims(o, out, "out", n, want));
	if (si.ndims && !si.dims[axis])
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "self's dim %u is empty; it has no largest or smallest element",
				 axis);
	OPNN_TRY(opnn_input(o, self, &x));
	OPNN_TRY(opnn_output(o, out, &y));
	if (si.ndims && !keepdim)
		nnop_view_unsqueeze(&y, axis);
	nnop_view_align(&x, 1);
	nnop_view_align(&y, 1);
	if (!opnn_view_nelems(&y))
		return ACLNN_SUCCESS;
	return opnn_reduce(o, kind, 1u << axis, &x, &y);
}

aclnnStatus aclnnArgMaxGetWorkspaceSize(const aclTensor *self, int64_t dim, bool keepdim,
					aclTensor *out, uint64_t *workspaceSize,
					aclOpExecutor **executor)
{
	ORDER_OP("ArgMax", arg_build(&o, NPU_REDUCE_ARGMAX, self, dim, keepdim, out));
}

OPNN_LAUNCH(ArgMax)

aclnnStatus aclnnArgMinGetWorkspaceSize(const aclTensor *self, int64_t dim, bool keepdim,
					aclTensor *out, uint64_t *workspaceSize,
					aclOpExecutor **executor)
{
	ORDER_OP("ArgMin", arg_build(&o, NPU_REDUCE_ARGMIN, self, dim, keepdim, out));
}

OPNN_LAUNCH(ArgMin)

/* ---- Cumsum, CumsumV2 ------------------------------------------------------ */

static aclnnStatus cumsum_build(struct opnn *o, const aclTensor *self, int64_t dim,
				int out_dtype, bool exclusive, bool reverse, const aclTensor *out)
{
	struct npu_attr_cumsum attr = { 0 };
	struct nnop_tensor_info si, oi;
	struct nnop_view v[2];
	unsigned int axis;

	OPNN_TRY(opnn_check_tensor(o, self, "self", ORDER_TYPES));
	OPNN_TRY(opnn_check_tensor(o, out, "out", ORDER_TYPES));
	nnop_tensor_info(self, &si);
	nnop_tensor_info(out, &oi);
	if (out_dtype == ACL_DT_UNDEFINED)
		out_dtype = si.acl_dtype;
	if (oi.acl_dtype != out_dtype)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "out is %s; expected %s",
				 nnop_dtype_name(oi.acl_dtype), nnop_dtype_name(out_dtype));
	OPNN_TRY(opnn_axis(o, dim, si.ndims, &axis));
	OPNN_TRY(opnn_check_dims(o, out, "out", si.ndims, si.dims));
	OPNN_TRY(opnn_input(o, self, &v[0]));
	OPNN_TRY(opnn_output(o, out, &v[1]));
	if (!si.nelems)
		return ACLNN_SUCCESS;
	nnop_view_align(&v[0], 1);
	nnop_view_align(&v[1], 1);
	attr.axis = htole32(axis);
	attr.exclusive = htole32(exclusive);
	attr.reverse = htole32(reverse);
	return opnn_add(o, NPU_OPERATOR_CUMSUM, &attr, sizeof(attr), 1, v);
}

aclnnStatus aclnnCumsumGetWorkspaceSize(const aclTensor *self, int64_t dim, aclDataType dtype,
					aclTensor *out, uint64_t *workspaceSize,
					aclOpExecutor **executor)
{
	ORDER_OP("Cumsum", cumsum_build(&o, self, dim, dtype, false, false, out));
}

OPNN_LAUNCH(Cumsum)

aclnnStatus aclnnCumsumV2GetWorkspaceSize(const aclTensor *self, int64_t dim, bool exclusive,
					  bool reverse, aclTensor *out, uint64_t *workspaceSize,
					  aclOpExecutor **executor)
{
	ORDER_OP("CumsumV2", cumsum_build(&o, self, dim, ACL_DT_UNDEFINED, exclusive, reverse,
					  out));
}

OPNN_LAUNCH(CumsumV2)

/* ---- Roll ------------------------------------------------------------------ */

struct roll_plan {
	unsigned int n;			/* rolled axes */
	unsigned int axis[NNOP_MAX_DIMS];
	int64_t shift[NNOP_MAX_DIMS];	/* in [0, dim) */
};

/* shifts and dims paired; no dims: one shift of self flattened. */
static aclnnStatus roll_plan(struct opnn *o, const aclIntArray *shifts, const aclIntArray *dims,
			     const struct nnop_view *x, struct roll_plan *p)
{
	uint64_t ns = shifts ? nnop_int_array_size(shifts) : 0;
	uint64_t nd = dims ? nnop_int_array_size(dims) : 0, i;
	uint32_t seen = 0;

	if (!shifts)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_NULLPTR, "shifts is NULL");
	if (!nd && ns != 1)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "without dims, shifts has one entry; it has %llu",
				 (unsigned long long)ns);
	if (nd && nd != ns)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "shifts has %llu entries and dims %llu; they pair up",
				 (unsigned long long)ns, (unsigned long long)nd);
	p->n = nd ? nd : 1;
	for (i = 0; i < p->n; i++) {
		int64_t len;

		if (nd)
			OPNN_TRY(opnn_axis(o, nnop_int_array_data(dims)[i], x->ndims, &p->axis[i]));
		else
			p->axis[i] = 0;
		if (seen & (1u << p->axis[i]))
			return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "dims names axis %u twice",
					 p->axis[i]);
		seen |= 1u << p->axis[i];
		len = x->dims[p->axis[i]];
		p->shift[i] = len ? ((nnop_int_array_data(shifts)[i] % len) + len) % len : 0;
	}
	return ACLNN_SUCCESS;
}

/*
 * One copy per combination of parts: on each rolled axis of n elements
 * shifted by s, x's first n - s go to y's last, x's last s to y's first.
 */
static aclnnStatus roll_copies(struct opnn *o, const struct roll_plan *p,
			       const struct nnop_view *x, const struct nnop_view *y)
{
	uint32_t parts;
	unsigned int i;

	for (parts = 0; parts < (1u << p->n); parts++) {
		struct nnop_view from = *x, to = *y;
		bool empty = false;

		for (i = 0; i < p->n; i++) {
			int64_t len = x->dims[p->axis[i]], s = p->shift[i];
			bool tail = parts >> i & 1;
			int64_t count = tail ? s : len - s;

			empty |= !count;
			if (empty)
				break;
			nnop_view_narrow(&from, p->axis[i], tail ? len - s : 0, count, 1);
			nnop_view_narrow(&to, p->axis[i], tail ? 0 : s, count, 1);
		}
		if (!empty)
			OPNN_TRY(opnn_copy(o, &from, &to));
	}
	return ACLNN_SUCCESS;
}

/* A dense view's elements as one axis. */
static void roll_flatten(struct nnop_view *v)
{
	int64_t n = opnn_view_nelems(v);

	v->ndims = 1;
	v->dims[0] = n;
	opnn_view_set_dense(v);
}

static aclnnStatus roll_build(struct opnn *o, const aclTensor *self, const aclIntArray *shifts,
			      const aclIntArray *dims, const aclTensor *out)
{
	struct nnop_tensor_info si;
	struct nnop_view x, y, shape, flat;
	struct roll_plan p;
	bool flatten = !dims || !nnop_int_array_size(dims);

	OPNN_TRY(opnn_check_tensor(o, self, "x", OPNN_ALL_CARD));
	OPNN_TRY(opnn_check_tensor(o, out, "out", OPNN_ALL_CARD));
	OPNN_TRY(opnn_check_same_dtype(o, self, "x", out, "out"));
	nnop_tensor_info(self, &si);
	OPNN_TRY(opnn_check_dims(o, out, "out", si.ndims, si.dims));
	OPNN_TRY(opnn_input(o, self, &x));
	OPNN_TRY(opnn_output(o, out, &y));
	nnop_view_align(&x, 1);
	nnop_view_align(&y, 1);
	/* the plan needs only dims: those x has once flattened */
	shape = x;
	if (flatten)
		roll_flatten(&shape);
	OPNN_TRY(roll_plan(o, shifts, dims, &shape, &p));
	if (!si.nelems)
		return ACLNN_SUCCESS;
	if (!flatten)
		return roll_copies(o, &p, &x, &y);
	OPNN_TRY(opnn_dense(o, &x, x.card_dtype));
	roll_flatten(&x);
	/* rolled flat into workspace, then seen with out's dims */
	flat = opnn_work_like(o, &x, x.card_dtype);
	OPNN_TRY(roll_copies(o, &p, &x, &flat));
	flat.ndims = y.ndims;
	memcpy(flat.dims, y.dims, sizeof(flat.dims));
	opnn_view_set_dense(&flat);
	return opnn_copy(o, &flat, &y);
}

aclnnStatus aclnnRollGetWorkspaceSize(const aclTensor *x, const aclIntArray *shifts,
				      const aclIntArray *dims, aclTensor *out,
				      uint64_t *workspaceSize, aclOpExecutor **executor)
{
	ORDER_OP("Roll", roll_build(&o, x, shifts, dims, out));
}

OPNN_LAUNCH(Roll)
