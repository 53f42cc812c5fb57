// SPDX-License-Identifier: MIT
/*
 * Matrix products: Matmul (numpy's rules: vectors promoted to matrices and
 * back, batch axes broadcast), Mm, BatchMatMul, Mv and Addmm, all the
 * card's MATMUL, which takes a, b, c and y of one rank and broadcasts
 * batch axes of 1 itself.  Vectors become matrices by views with an axis
 * of 1, so no operator copies its operands.
 */
#include <endian.h>

#include "aclnnop/aclnn_addmm.h"
#include "aclnnop/aclnn_batch_matmul.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_mm.h"
#include "aclnnop/aclnn_mv.h"
#include "opnn.h"

/* The vendor's modes: keep the type, allow lower precision, fp16, hf32, accurate grouping. */
#define CUBE_MATH_LAST		4

struct mm_req {
	const aclTensor *a, *b, *c, *out;
	const char *a_name, *b_name;
	unsigned int a_rank, b_rank;	/* 0: any, from 1 */
	double alpha, beta;
	int8_t cube_math;
};

/*
 * The vendor promotes mixed operands (ggml multiplies F32 activations by
 * F16 weights): two float types of one product give FLOAT, out's type.
 * A product of narrower floats may also be written to a FLOAT out, as
 * ggml's F16 products are.
 */
static int mm_product_dtype(const struct mm_req *r)
{
	struct nnop_tensor_info ia, ib;

	nnop_tensor_info(r->a, &ia);
	nnop_tensor_info(r->b, &ib);
	return ia.acl_dtype == ib.acl_dtype ? ia.acl_dtype : ACL_FLOAT;
}

static aclnnStatus mm_check_types(struct opnn *o, const struct mm_req *r)
{
	struct nnop_tensor_info io;

	nnop_tensor_info(r->out, &io);
	if (io.acl_dtype != mm_product_dtype(r) && io.acl_dtype != ACL_FLOAT)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "out is %s but the product of %s and %s is %s", nnop_dtype_name(io.acl_dtype),
				 r->a_name, r->b_name, nnop_dtype_name(mm_product_dtype(r)));
	return ACLNN_SUCCESS;
}

static aclnnStatus mm_check(struct opnn *o, const struct mm_req *r)
{
	OPNN_TRY(opnn_check_tensor(o, r->a, r->a_name, OPNN_FLOATS));
	OPNN_TRY(opnn_check_tensor(o, r->b, r->b_name, OPNN_FLOATS));
	OPNN_TRY(opnn_check_tensor(o, r->out, "out", OPNN_FLOATS));
	OPNN_TRY(mm_check_types(o, r));
	if (r->a_rank)
		OPNN_TRY(opnn_check_rank(o, r->a, r->a_name, r->a_rank, r->a_rank));
	else
		OPNN_TRY(opnn_check_rank(o, r->a, r->a_name, 1, NNOP_MAX_DIMS));
	if (r->b_rank)
		OPNN_TRY(opnn_check_rank(o, r->b, r->b_name, r->b_rank, r->b_rank));
	else
		OPNN_TRY(opnn_check_rank(o, r->b, r->b_name, 1, NNOP_MAX_DIMS));
	if (r->cube_math < 0 || r->cube_math > CUBE_MATH_LAST)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "cubeMathType %d is not one of 0 to %d",
				 r->cube_math, CUBE_MATH_LAST);
	return ACLNN_SUCCESS;
}

/*
 * The card's shapes of a product: a and b as matrices of one rank r, y's
 * dims; *drop_m / *drop_n when a (b) was a vector, whose axis out lacks.
 */
static aclnnStatus mm_shapes(struct opnn *o, const struct mm_req *r, struct nnop_view *a,
			     struct nnop_view *b, int64_t *ydims, unsigned int *rank,
			     bool *drop_m, bool *drop_n)
{
	unsigned int n, d;

	*drop_m = a->ndims == 1;
	*drop_n = b->ndims == 1;
	if (*drop_m)
		nnop_view_unsqueeze(a, 0);
	if (*drop_n)
		nnop_view_unsqueeze(b, 1);
	n = a->ndims > b->ndims ? a->ndims : b->ndims;
	nnop_view_align(a, n);
	nnop_view_align(b, n);
	if (a->dims[n - 1] != b->dims[n - 2])
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "%s's columns (%lld) do not match %s's rows (%lld)", r->a_name,
				 (long long)a->dims[n - 1], r->b_name, (long long)b->dims[n - 2]);
	for (d = 0; d < n - 2; d++) {
		if (a->dims[d] != b->dims[d] && a->dims[d] != 1 && b->dims[d] != 1)
			return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
					 "batch dim %u: %lld and %lld do not broadcast", d,
					 (long long)a->dims[d], (long long)b->dims[d]);
		ydims[d] = a->dims[d] == 1 ? b->dims[d] : a->dims[d];
	}
	ydims[n - 2] = a->dims[n - 2];
	ydims[n - 1] = b->dims[n - 1];
	*rank = n;
	return ACLNN_SUCCESS;
}

/* out's expected dims: y's without the axes of vectors. */
static unsigned int mm_out_dims(const int64_t *ydims, unsigned int rank, bool drop_m, bool drop_n,
				int64_t *dims)
{
	unsigned int d, n = 0;

	for (d = 0; d < rank; d++)
		if (!(d == rank - 2 && drop_m) && !(d == rank - 1 && drop_n))
			dims[n++] = ydims[d];
	return n;
}

/* No products to sum (k = 0): y = beta * c, or 0. */
static aclnnStatus mm_empty_k(struct opnn *o, const struct mm_req *r, const struct nnop_view *c,
			      const struct nnop_view *y)
{
	if (!c)
		return opnn_fill(o, y, 0.0);
	return opnn_binary_scalar(o, NPU_BINARY_MUL, c, r->beta, y);
}

static aclnnStatus mm_c_view(struct opnn *o, const struct mm_req *r, unsigned int rank,
			     const int64_t *ydims, struct nnop_view *c)
{
	unsigned int d;

	OPNN_TRY(opnn_check_tensor(o, r->c, "self", OPNN_FLOATS));
	OPNN_TRY(opnn_check_same_dtype(o, r->c, "self", r->out, "out"));
	OPNN_TRY(opnn_input(o, r->c, c));
	if (c->ndims > rank)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "self has more dims than the product");
	nnop_view_align(c, rank);
	for (d = 0; d < rank; d++)
		if (c->dims[d] != ydims[d] && c->dims[d] != 1)
			return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
					 "self's dim %u (%lld) does not broadcast to %lld", d,
					 (long long)c->dims[d], (long long)ydims[d]);
	return ACLNN_SUCCESS;
}

static aclnnStatus mm_build(struct opnn *o, const struct mm_req *r)
{
	int64_t ydims[NNOP_MAX_DIMS], odims[NNOP_MAX_DIMS];
	struct npu_attr_matmul attr = { 0 };
	struct nnop_view v[4], c, out;
	bool drop_m = false, drop_n = false, with_c;
	unsigned int rank = 0, n;

	OPNN_TRY(mm_check(o, r));
	OPNN_TRY(opnn_input(o, r->a, &v[0]));
	OPNN_TRY(opnn_input(o, r->b, &v[1]));
	OPNN_TRY(mm_shapes(o, r, &v[0], &v[1], ydims, &rank, &drop_m, &drop_n));
	with_c = r->c && r->beta != 0;
	if (r->c)
		OPNN_TRY(mm_c_view(o, r, rank, ydims, &c));
	n = mm_out_dims(ydims, rank, drop_m, drop_n, odims);
	OPNN_TRY(opnn_check_dims(o, r->out, "out", n, odims));
	OPNN_TRY(opnn_output(o, r->out, &v[3]));
	if (drop_m)
		nnop_view_unsqueeze(&v[3], rank - 2);
	if (drop_n)
		nnop_view_unsqueeze(&v[3], rank - 1);
	if (!opnn_view_nelems(&v[3]))
		return ACLNN_SUCCESS;
	if (!v[0].dims[rank - 1])
		return mm_empty_k(o, r, with_c ? &c : NULL, &v[3]);
	/* the card multiplies operands of one type: a mixed one is converted */
	if (v[0].card_dtype != v[3].card_dtype)
		OPNN_TRY(opnn_to_work(o, &v[0], v[3].card_dtype));
	if (v[1].card_dtype != v[3].card_dtype)
		OPNN_TRY(opnn_to_work(o, &v[1], v[3].card_dtype));
	attr.alpha = opnn_f32_bits(r->alpha);
	attr.beta = opnn_f32_bits(with_c ? r->beta : 0);
	attr.act = opnn_no_act();
	if (!with_c)
		return opnn_add(o, NPU_OPERATOR_MATMUL, &attr, sizeof(attr), 2,
				(struct nnop_view[]){ v[0], v[1], v[3] });
	v[2] = c;
	if (r->c != r->out)
		return opnn_add(o, NPU_OPERATOR_MATMUL, &attr, sizeof(attr), 3, v);
	/* in place: the product is read from self while written, so it goes through workspace */
	out = v[3];
	v[3] = opnn_work_like(o, &out, out.card_dtype);
	OPNN_TRY(opnn_add(o, NPU_OPERATOR_MATMUL, &attr, sizeof(attr), 3, v));
	return opnn_copy(o, &v[3], &out);
}

static aclnnStatus mm_op(const char *fn, const char *name, const struct mm_req *r,
			 uint64_t *workspace_size, aclOpExecutor **executor)
{
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspace_size);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, fn, name));
	return opnn_end(&o, mm_build(&o, r), workspace_size, executor);
}

aclnnStatus aclnnMatmulGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2,
					aclTensor *out, int8_t cubeMathType,
					uint64_t *workspaceSize, aclOpExecutor **executor)
{
	const struct mm_req r = { self, mat2, NULL, out, "self", "mat2", 0, 0, 1.0, 0.0,
				  cubeMathType };

	return mm_op(__func__, "Matmul", &r, workspaceSize, executor);
}

OPNN_LAUNCH(Matmul)

aclnnStatus aclnnMmGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2, aclTensor *out,
				    int8_t cubeMathType, uint64_t *workspaceSize,
				    aclOpExecutor **executor)
{
	const struct mm_req r = { self, mat2, NULL, out, "self", "mat2", 2, 2, 1.0, 0.0,
				  cubeMathType };

	return mm_op(__func__, "Mm", &r, workspaceSize, executor);
}

OPNN_LAUNCH(Mm)

aclnnStatus aclnnBatchMatMulGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2,
					     aclTensor *out, int8_t cubeMathType,
					     uint64_t *workspaceSize, aclOpExecutor **executor)
{
	const struct mm_req r = { self, mat2, NULL, out, "self", "mat2", 3, 3, 1.0, 0.0,
				  cubeMathType };

	return mm_op(__func__, "BatchMatMul", &r, workspaceSize, executor);
}

OPNN_LAUNCH(BatchMatMul)

aclnnStatus aclnnMvGetWorkspaceSize(const aclTensor *self, const aclTensor *vec, aclTensor *out,
				    int8_t cubeMathType, uint64_t *workspaceSize,
				    aclOpExecutor **executor)
{
	const struct mm_req r = { self, vec, NULL, out, "self", "vec", 2, 1, 1.0, 0.0,
				  cubeMathType };

	return mm_op(__func__, "Mv", &r, workspaceSize, executor);
}

OPNN_LAUNCH(Mv)

static aclnnStatus addmm_op(const char *fn, const char *name, const aclTensor *self,
			    const aclTensor *mat1, const aclTensor *mat2, const aclScalar *beta,
			    const aclScalar *alpha, const aclTensor *out, int8_t cube_math,
			    uint64_t *workspace_size, aclOpExecutor **executor)
{
	struct mm_req r = { mat1, mat2, self, out, "mat1", "mat2", 2, 2, 1.0, 1.0, cube_math };

	if (!self)
		return nnop_fail(fn, ACLNN_ERR_PARAM_NULLPTR, "self is NULL");
	if (!beta)
		return nnop_fail(fn, ACLNN_ERR_PARAM_NULLPTR, "beta is NULL");
	if (!alpha)
		return nnop_fail(fn, ACLNN_ERR_PARAM_NULLPTR, "alpha is NULL");
	r.beta = nnop_scalar_f64(beta);
	r.alpha = nnop_scalar_f64(alpha);
	return mm_op(fn, name, &r, workspace_size, executor);
}

aclnnStatus aclnnAddmmGetWorkspaceSize(const aclTensor *self, const aclTensor *mat1,
				       const aclTensor *mat2, const aclScalar *beta,
				       const aclScalar *alpha, aclTensor *out, int8_t cubeMathType,
				       uint64_t *workspaceSize, aclOpExecutor **executor)
{
	return addmm_op(__func__, "Addmm", self, mat1, mat2, beta, alpha, out, cubeMathType,
			workspaceSize, executor);
}

OPNN_LAUNCH(Addmm)

aclnnStatus aclnnInplaceAddmmGetWorkspaceSize(const aclTensor *selfRef, const aclTensor *mat1,
					      const aclTensor *mat2, const aclScalar *beta,
					      const aclScalar *alpha, int8_t cubeMathType,
					      uint64_t *workspaceSize, aclOpExecutor **executor)
{
	return addmm_op(__func__, "InplaceAddmm", selfRef, mat1, mat2, beta, alpha, selfRef,
			cubeMathType, workspaceSize, executor);
}

OPNN_LAUNCH(InplaceAddmm)
