// SPDX-License-Identifier: MIT
/*
 * Im2col and TriangularSolve (the card's IM2COL and TRISOLVE), and
 * operators composed of card operators already there: Addcdiv and
 * InplaceAddcdiv, Ger, Sum (of a tensor list) and
 * SoftmaxCrossEntropyWithLogits.  The composed ones compute in float32
 * workspace and store in the output's type, as the vendor's compute in the
 * promoted type.
 */
#include <endian.h>

#include "aclnnop/aclnn_addcdiv.h"
#include "aclnnop/aclnn_ger.h"
#include "aclnnop/aclnn_im2col.h"
#include "aclnnop/aclnn_softmax_cross_entropy_with_logits.h"
#include "aclnnop/aclnn_sum.h"
#include "aclnnop/aclnn_triangular_solve.h"
#include "opapi.h"
#include "opnn.h"

/* ---- Im2col ---------------------------------------------------------------- */

/* An IntArray of one value (for both axes) or two, each min to 65536, as a pair. */
static aclnnStatus im2col_pair(struct opnn *o, const aclIntArray *a, const char *name,
			       int64_t min, uint32_t *pair)
{
	const int64_t *v;
	uint64_t n, i;

	if (!a)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_NULLPTR, "%s is NULL", name);
	n = nnop_int_array_size(a);
	v = nnop_int_array_data(a);
	if (n != 1 && n != 2)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "%s has %llu values; it takes 1 or 2",
				 name, (unsigned long long)n);
	for (i = 0; i < 2; i++) {
		int64_t x = v[n == 2 ? i : 0];

		if (x < min || x > 0x10000)
			return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
					 "%s[%llu] is %lld; it must be %lld to 65536", name,
					 (unsigned long long)i, (long long)x, (long long)min);
		pair[i] = (uint32_t)x;
	}
	return ACLNN_SUCCESS;
}

static aclnnStatus im2col_build(struct opnn *o, const aclTensor *self, const aclIntArray *kernel,
				const aclIntArray *dilation, const aclIntArray *padding,
				const aclIntArray *stride, const aclTensor *out)
{
	struct npu_attr_im2col attr = { 0 };
	uint32_t k[2], d[2], p[2], s[2];
	struct nnop_tensor_info xi;
	int64_t od[3], pos[2];
	struct nnop_view v[2];
	unsigned int a, batched;

	OPNN_TRY(opnn_check_tensor(o, self, "self", OPNN_ALL_CARD));
	OPNN_TRY(opnn_check_tensor(o, out, "out", OPNN_ALL_CARD));
	OPNN_TRY(opnn_check_same_dtype(o, self, "self", out, "out"));
	OPNN_TRY(opnn_check_rank(o, self, "self", 3, 4));
	OPNN_TRY(im2col_pair(o, kernel, "kernelSize", 1, k));
	OPNN_TRY(im2col_pair(o, dilation, "dilation", 1, d));
	OPNN_TRY(im2col_pair(o, padding, "padding", 0, p));
	OPNN_TRY(im2col_pair(o, stride, "stride", 1, s));
	nnop_tensor_info(self, &xi);
	batched = xi.ndims == 4;
	for (a = 0; a < 2; a++) {
		int64_t room = xi.dims[batched + 1 + a] + 2 * (int64_t)p[a];
		int64_t span = (int64_t)d[a] * (k[a] - 1) + 1;

		if (room < span)
			return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
					 "the dilated kernel (%lld) is larger than the padded "
					 "input (%lld) on axis %u", (long long)span,
					 (long long)room, batched + 1 + a);
		pos[a] = (room - span) / s[a] + 1;
		attr.kernel[a] = htole32(k[a]);
		attr.stride[a] = htole32(s[a]);
		attr.pad[a] = htole32(p[a]);
		attr.dilation[a] = htole32(d[a]);
	}
	od[0] = xi.dims[0];
	od[batched] = xi.dims[batched] * k[0] * k[1];
	od[batched + 1] = pos[0] * pos[1];
	OPNN_TRY(opnn_check_dims(o, out, "out", 2 + batched, od));
	OPNN_TRY(opnn_input(o, self, &v[0]));
	OPNN_TRY(opnn_output(o, out, &v[1]));
	if (!xi.nelems)
		return ACLNN_SUCCESS;
	if (!batched) {
		nnop_view_unsqueeze(&v[0], 0);
		nnop_view_unsqueeze(&v[1], 0);
	}
	return opnn_add(o, NPU_OPERATOR_IM2COL, &attr, sizeof(attr), 1, v);
}

aclnnStatus aclnnIm2colGetWorkspaceSize(const aclTensor *self, const aclIntArray *kernelSize,
					const aclIntArray *dilation, const aclIntArray *padding,
					const aclIntArray *stride, const aclTensor *out,
					uint64_t *workspaceSize, aclOpExecutor **executor)
{
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, __func__, "Im2col"));
	return opnn_end(&o, im2col_build(&o, self, kernelSize, dilation, padding, stride, out),
			workspaceSize, executor);
}

OPNN_LAUNCH(Im2col)

/* ---- TriangularSolve ------------------------------------------------------- */

/* numpy's broadcast of a's and b's batch dims (all but the last two) into batch. */
static aclnnStatus trisolve_batch(struct opnn *o, const struct nnop_tensor_info *a,
				  const struct nnop_tensor_info *b, unsigned int *rank,
				  int64_t *batch)
{
	unsigned int r = a->ndims > b->ndims ? a->ndims : b->ndims, d;

	for (d = 0; d + 2 < r; d++) {
		int ia = (int)d - (int)(r - a->ndims), ib = (int)d - (int)(r - b->ndims);
		int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;

		if (da != db && da != 1 && db != 1)
			return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
					 "the batch dims of self and A do not broadcast "
					 "(%lld and %lld)",
					 (long long)db, (long long)da);
		batch[d] = da == 1 ? db : da;
	}
	*rank = r;
	return ACLNN_SUCCESS;
}

static aclnnStatus trisolve_build(struct opnn *o, const aclTensor *b, const aclTensor *a,
				  bool upper, bool transpose, bool unit, const aclTensor *x,
				  const aclTensor *m)
{
	struct npu_attr_trisolve attr = { 0 };
	struct nnop_tensor_info ai, bi;
	int64_t xd[NNOP_MAX_DIMS], md[NNOP_MAX_DIMS], n;
	struct nnop_view v[3], mv;
	unsigned int r = 0;

	OPNN_TRY(opnn_check_tensor(o, b, "self", OPNN_FLOATS));
	OPNN_TRY(opnn_check_tensor(o, a, "A", OPNN_FLOATS));
	OPNN_TRY(opnn_check_tensor(o, x, "xOut", OPNN_FLOATS));
	OPNN_TRY(opnn_check_tensor(o, m, "mOut", OPNN_FLOATS));
	OPNN_TRY(opnn_check_same_dtype(o, b, "self", a, "A"));
	OPNN_TRY(opnn_check_same_dtype(o, b, "self", x, "xOut"));
	OPNN_TRY(opnn_check_same_dtype(o, b, "self", m, "mOut"));
	OPNN_TRY(opnn_check_rank(o, a, "A", 2, NNOP_MAX_DIMS));
	OPNN_TRY(opnn_check_rank(o, b, "self", 2, NNOP_MAX_DIMS));
	nnop_tensor_info(a, &ai);
	nnop_tensor_info(b, &bi);
	n = ai.dims[ai.ndims - 1];
	if (ai.dims[ai.ndims - 2] != n || bi.dims[bi.ndims - 2] != n)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "A must be square (n, n) and self (n, k): A is %lld x %lld, self "
				 "has %lld rows", (long long)ai.dims[ai.ndims - 2], (long long)n,
				 (long long)bi.dims[bi.ndims - 2]);
	OPNN_TRY(trisolve_batch(o, &ai, &bi, &r, xd));
	memcpy(md, xd, sizeof(md));
	xd[r - 2] = md[r - 2] = md[r - 1] = n;
	xd[r - 1] = bi.dims[bi.ndims - 1];
	OPNN_TRY(opnn_check_dims(o, x, "xOut", r, xd));
	OPNN_TRY(opnn_check_dims(o, m, "mOut", r, md));
	OPNN_TRY(opnn_input(o, b, &v[1]));
	OPNN_TRY(opnn_input(o, a, &v[0]));
	OPNN_TRY(opnn_output(o, x, &v[2]));
	OPNN_TRY(opnn_output(o, m, &mv));
	nnop_view_align(&v[0], r);
	nnop_view_align(&v[1], r);
	/* mOut is A as PyTorch returns it: a copy, broadcast to the batch */
	if (opnn_view_nelems(&mv)) {
		struct nnop_view am = v[0];
		unsigned int d;

		for (d = 0; d + 2 < r; d++)
			if (am.dims[d] != md[d])
				nnop_view_expand(&am, d, md[d]);
		OPNN_TRY(opnn_copy(o, &am, &mv));
	}
	if (!opnn_view_nelems(&v[2]))
		return ACLNN_SUCCESS;
	attr.flags = htole32((upper ? NPU_TRISOLVE_UPPER : 0) |
			     (transpose ? NPU_TRISOLVE_TRANSPOSE : 0) |
			     (unit ? NPU_TRISOLVE_UNIT : 0));
	return opnn_add(o, NPU_OPERATOR_TRISOLVE, &attr, sizeof(attr), 2, v);
}

aclnnStatus aclnnTriangularSolveGetWorkspaceSize(const aclTensor *self, const aclTensor *A,
						 bool upper, bool transpose, bool unitriangular,
						 aclTensor *xOut, aclTensor *mOut,
						 uint64_t *workspaceSize, aclOpExecutor **executor)
{
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, __func__, "TriangularSolve"));
	return opnn_end(&o, trisolve_build(&o, self, A, upper, transpose, unitriangular, xOut,
					   mOut), workspaceSize, executor);
}

OPNN_LAUNCH(TriangularSolve)

/* ---- shared by the composed operators ----------------------------------------- */

/* numpy's broadcast of n tensors' dims into dims (*ndims of them). */
static aclnnStatus misc_broadcast(struct opnn *o, const aclTensor *const *t,
				  const char *const *names, unsigned int n, int64_t *dims,
				  unsigned int *ndims)
{
	struct nnop_tensor_info ti;
	unsigned int i, d, r = 0;

	for (i = 0; i < n; i++) {
		nnop_tensor_info(t[i], &ti);
		r = ti.ndims > r ? ti.ndims : r;
	}
	for (d = 0; d < r; d++)
		dims[d] = 1;
	for (i = 0; i < n; i++) {
		nnop_tensor_info(t[i], &ti);
		for (d = 0; d < ti.ndims; d++) {
			int64_t *at = &dims[r - ti.ndims + d];

			if (ti.dims[d] != *at && ti.dims[d] != 1 && *at != 1)
				return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
						 "%s's dim %u (%lld) does not broadcast against "
						 "%lld", names[i], d, (long long)ti.dims[d],
						 (long long)*at);
			if (*at == 1)
				*at = ti.dims[d];
		}
	}
	*ndims = r;
	return ACLNN_SUCCESS;
}

/* ---- Addcdiv, InplaceAddcdiv ------------------------------------------------------ */

/* out = self + value * tensor1 / tensor2, in float32 */
static aclnnStatus addcdiv_build(struct opnn *o, const aclTensor *self, const aclTensor *t1,
				 const aclTensor *t2, const aclScalar *value, const aclTensor *out,
				 const char *out_name)
{
	static const char *const names[3] = { "self", "tensor1", "tensor2" };
	const aclTensor *in[3] = { self, t1, t2 };
	int64_t dims[NNOP_MAX_DIMS];
	struct nnop_view v[4], q;
	unsigned int i, r = 0;

	for (i = 0; i < 3; i++)
		OPNN_TRY(opnn_check_tensor(o, in[i], names[i], OPNN_FLOATS));
	OPNN_TRY(opnn_check_tensor(o, out, out_name, OPNN_FLOATS));
	if (!value)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_NULLPTR, "value is NULL");
	OPNN_TRY(misc_broadcast(o, in, names, 3, dims, &r));
	OPNN_TRY(opnn_check_dims(o, out, out_name, r, dims));
	for (i = 0; i < 3; i++)
		OPNN_TRY(opnn_input(o, in[i], &v[i]));
	OPNN_TRY(opnn_output(o, out, &v[3]));
	if (!opnn_view_nelems(&v[3]))
		return ACLNN_SUCCESS;
	r = r ? r : 1;
	for (i = 0; i < 4; i++)
		nnop_view_align(&v[i], r);
	q = nnop_view_work(o->x, NPU_DTYPE_F32, r, v[3].dims);
	OPNN_TRY(opapi_binary_in(o->x, NPU_BINARY_DIV, NPU_DTYPE_F32, &v[1], &v[2], &q));
	OPNN_TRY(opnn_binary_scalar(o, NPU_BINARY_MUL, &q, nnop_scalar_f64(value), &q));
	return opapi_binary_in(o->x, NPU_BINARY_ADD, NPU_DTYPE_F32, &v[0], &q, &v[3]);
}

aclnnStatus aclnnAddcdivGetWorkspaceSize(const aclTensor *self, const aclTensor *tensor1,
					 const aclTensor *tensor2, const aclScalar *value,
					 const aclTensor *out, uint64_t *workspaceSize,
					 aclOpExecutor **executor)
{
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, __func__, "Addcdiv"));
	return opnn_end(&o, addcdiv_build(&o, self, tensor1, tensor2, value, out, "out"),
			workspaceSize, executor);
}

OPNN_LAUNCH(Addcdiv)

aclnnStatus aclnnInplaceAddcdivGetWorkspaceSize(const aclTensor *selfRef, const aclTensor *tensor1,
						const aclTensor *tensor2, const aclScalar *value,
						uint64_t *workspaceSize, aclOpExecutor **executor)
{
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, __func__, "InplaceAddcdiv"));
	return opnn_end(&o, addcdiv_build(&o, selfRef, tensor1, tensor2, value, selfRef,
					      "selfRef"),
			workspaceSize, executor);
}

OPNN_LAUNCH(InplaceAddcdiv)

/* ---- Ger -------------------------------------------------------------------------- */

/* out (n, m) = self (n) times vec2 (m), each pair */
static aclnnStatus ger_build(struct opnn *o, const aclTensor *self, const aclTensor *vec2,
			     const aclTensor *out)
{
	struct nnop_tensor_info si, vi, oi;
	struct nnop_view v[3];
	int64_t dims[2];
	int calc;

	OPNN_TRY(opnn_check_tensor(o, self, "self", OPNN_FLOATS | OPNN_INTS));
	OPNN_TRY(opnn_check_tensor(o, vec2, "vec2", OPNN_FLOATS | OPNN_INTS));
	OPNN_TRY(opnn_check_tensor(o, out, "out", OPNN_FLOATS | OPNN_INTS));
	OPNN_TRY(opnn_check_rank(o, self, "self", 1, 1));
	OPNN_TRY(opnn_check_rank(o, vec2, "vec2", 1, 1));
	nnop_tensor_info(self, &si);
	nnop_tensor_info(vec2, &vi);
	nnop_tensor_info(out, &oi);
	calc = nnop_promote(si.acl_dtype, vi.acl_dtype);
	if (calc == ACL_DT_UNDEFINED || !opapi_can_cast(calc, oi.acl_dtype))
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "the product of %s and %s cannot be stored as %s",
				 nnop_dtype_name(si.acl_dtype), nnop_dtype_name(vi.acl_dtype),
				 nnop_dtype_name(oi.acl_dtype));
	dims[0] = si.dims[0];
	dims[1] = vi.dims[0];
	OPNN_TRY(opnn_check_dims(o, out, "out", 2, dims));
	OPNN_TRY(opnn_input(o, self, &v[0]));
	OPNN_TRY(opnn_input(o, vec2, &v[1]));
	OPNN_TRY(opnn_output(o, out, &v[2]));
	if (!oi.nelems)
		return ACLNN_SUCCESS;
	nnop_view_unsqueeze(&v[0], 1);
	nnop_view_unsqueeze(&v[1], 0);
	return opapi_binary_in(o->x, NPU_BINARY_MUL, nnop_card_dtype(calc), &v[0], &v[1], &v[2]);
}

aclnnStatus aclnnGerGetWorkspaceSize(const aclTensor *self, const aclTensor *vec2, aclTensor *out,
				     uint64_t *workspaceSize, aclOpExecutor **executor)
{
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, __func__, "Ger"));
	return opnn_end(&o, ger_build(&o, self, vec2, out), workspaceSize, executor);
}

OPNN_LAUNCH(Ger)

/* ---- Sum (of a tensor list) ---------------------------------------------------------- */

/* out = the elementwise sum of tensors of one shape, accumulated in float32 */
static aclnnStatus sum_build(struct opnn *o, const aclTensorList *tensors, const aclTensor *out)
{
	struct nnop_tensor_info oi;
	struct nnop_view y, acc;
	uint64_t n, i;
	int first, named;

	if (!tensors)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_NULLPTR, "tensors is NULL");
	n = nnop_tensor_list_size(tensors);
	if (!n)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "tensors is empty");
	OPNN_TRY(opnn_check_tensor(o, out, "out", OPNN_FLOATS | OPNN_INTS));
	nnop_tensor_info(out, &oi);
	for (i = 0; i < n; i++) {
		const aclTensor *t = nnop_tensor_list_at(tensors, i);

		OPNN_TRY(opnn_check_tensor(o, t, "tensors[i]", OPNN_FLOATS | OPNN_INTS));
		OPNN_TRY(opnn_check_same_dtype(o, t, "tensors[i]", out, "out"));
		OPNN_TRY(opnn_check_dims(o, t, "tensors[i]", oi.ndims, oi.dims));
	}
	named = nnop_executor_input_list(o->x, tensors, &first);
	if (named < 0)
		return -named;
	OPNN_TRY(opnn_output(o, out, &y));
	if (!oi.nelems)
		return ACLNN_SUCCESS;
	nnop_view_align(&y, 1);
	if (n == 1) {
		acc = nnop_view_of(o->x, first);
		nnop_view_align(&acc, 1);
		return opnn_copy(o, &acc, &y);
	}
	acc = opnn_work_like(o, &y, nnop_dtype_is_float(oi.acl_dtype) ? NPU_DTYPE_F32 :
			     NPU_DTYPE_S64);
	for (i = 0; i < n; i++) {
		struct nnop_view t = nnop_view_of(o->x, first + (int)i);

		nnop_view_align(&t, 1);
		if (i)
			OPNN_TRY(opapi_binary_in(o->x, NPU_BINARY_ADD, acc.card_dtype, &acc, &t,
						 i + 1 == n ? &y : &acc));
		else
			OPNN_TRY(opnn_copy(o, &t, &acc));
	}
	return ACLNN_SUCCESS;
}

aclnnStatus aclnnSumGetWorkspaceSize(const aclTensorList *tensors, aclTensor *out,
				     uint64_t *workspaceSize, aclOpExecutor **executor)
{
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, __func__, "Sum"));
	return opnn_end(&o, sum_build(&o, tensors, out), workspaceSize, executor);
}

OPNN_LAUNCH(Sum)

/* ---- SoftmaxCrossEntropyWithLogits ------------------------------------------------------ */

/*
 * Per row of features (N, C): loss = -sum(labels * log_softmax(features)),
 * backprop = softmax(features) - labels; a softmax, a log-softmax, a
 * product, a sum and a negation and a difference.
 */
static aclnnStatus sce_build(struct opnn *o, const aclTensor *features, const aclTensor *labels,
			     const aclTensor *loss, const aclTensor *backprop)
{
	struct npu_attr_softmax sm = { .axis = htole32(1) };
	struct nnop_tensor_info fi;
	struct nnop_view f, l, lo, bp, p, s[2], sum;
	int64_t n;

	OPNN_TRY(opnn_check_tensor(o, features, "features", OPNN_FLOATS));
	OPNN_TRY(opnn_check_tensor(o, labels, "labels", OPNN_FLOATS));
	OPNN_TRY(opnn_check_tensor(o, loss, "loss", OPNN_FLOATS));
	OPNN_TRY(opnn_check_tensor(o, backprop, "backprop", OPNN_FLOATS));
	OPNN_TRY(opnn_check_rank(o, features, "features", 2, 2));
	nnop_tensor_info(features, &fi);
	n = fi.dims[0];
	OPNN_TRY(opnn_check_dims(o, labels, "labels", 2, fi.dims));
	OPNN_TRY(opnn_check_dims(o, backprop, "backprop", 2, fi.dims));
	OPNN_TRY(opnn_check_dims(o, loss, "loss", 1, &n));
	OPNN_TRY(opnn_input(o, features, &f));
	OPNN_TRY(opnn_input(o, labels, &l));
	OPNN_TRY(opnn_output(o, loss, &lo));
	OPNN_TRY(opnn_output(o, backprop, &bp));
	if (!fi.nelems) {
		if (!n)
			return ACLNN_SUCCESS;
		/* no classes: nothing to lose */
		return opnn_fill(o, &lo, 0);
	}
	OPNN_TRY(opnn_dense(o, &f, NPU_DTYPE_F32));
	s[0] = f;
	s[1] = opnn_work_like(o, &f, NPU_DTYPE_F32);
	OPNN_TRY(opnn_add(o, NPU_OPERATOR_SOFTMAX, &sm, sizeof(sm), 1, s));
	OPNN_TRY(opapi_binary_in(o->x, NPU_BINARY_SUB, NPU_DTYPE_F32, &s[1], &l, &bp));
	sm.log = htole32(1);
	OPNN_TRY(opnn_add(o, NPU_OPERATOR_SOFTMAX, &sm, sizeof(sm), 1, s));
	p = s[1];
	OPNN_TRY(opapi_binary_in(o->x, NPU_BINARY_MUL, NPU_DTYPE_F32, &l, &s[1], &p));
	sum = opnn_work_reduced(o, &p, 2, NPU_DTYPE_F32);
	OPNN_TRY(opnn_reduce(o, NPU_REDUCE_SUM, 2, &p, &sum));
	OPNN_TRY(opnn_unary(o, NPU_UNARY_NEG, 0, 0, &sum, &sum));
	nnop_view_unsqueeze(&lo, 1);
	return opnn_copy(o, &sum, &lo);
}

aclnnStatus aclnnSoftmaxCrossEntropyWithLogitsGetWorkspaceSize(const aclTensor *features,
							       aclTensor *labels, aclTensor *loss,
							       aclTensor *backprop,
							       uint64_t *workspaceSize,
							       aclOpExecutor **executor)
{
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, __func__, "SoftmaxCrossEntropyWithLogits"));
	return opnn_end(&o, sce_build(&o, features, labels, loss, backprop), workspaceSize,
			executor);
}

OPNN_LAUNCH(SoftmaxCrossEntropyWithLogits)
