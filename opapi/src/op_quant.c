// SPDX-License-Identifier: MIT
/*
 * Products over quantized weights: WeightQuantBatchMatmulV2, the card's
 * QMATMUL (plus a BINARY add for the bias), and the weight preparation
 * the vendor pairs with it, CalculateMatmulWeightSize(V2) and
 * TransMatmulWeight.  This card keeps weights ND, so a weight's prepared
 * size is its ND size and preparing it changes nothing.
 *
 * An INT4 weight is two values a byte, the even one in the low nibble;
 * the card reads it as the bytes it is, along whichever of K or N is
 * contiguous (a weight given transposed, as ggml gives them, packs pairs
 * along K).
 */
#include <endian.h>

#include "aclnnop/aclnn_trans_matmul_weight.h"
#include "aclnnop/aclnn_weight_quant_batch_matmul_v2.h"
#include "opnn.h"

#define WQ_FLOATS	(OPNN_DT(ACL_FLOAT16) | OPNN_DT(ACL_BF16) | OPNN_DT(ACL_FLOAT))

struct wq_req {
	const aclTensor *x, *weight, *scale, *offset, *quant_scale, *quant_offset, *bias, *y;
	int group;
};

/* The product's sizes, once the operands are checked. */
struct wq_dims {
	int64_t m, k, n;
	int64_t group;		/* 0: one scale row for all K */
};

static aclnnStatus wq_check_weight(struct opnn *o, const aclTensor *w, const struct wq_dims *d)
{
	struct nnop_tensor_info wi;

	NNOP_CHECK_NOTNULL(w);
	nnop_tensor_info(w, &wi);
	if (wi.acl_dtype != ACL_INT8 && wi.acl_dtype != ACL_INT4)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "weight: data type %s is not "
				 "supported; INT8 and INT4 are", nnop_dtype_name(wi.acl_dtype));
	if (wi.ndims != 2 || wi.dims[0] != d->k)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "weight must be 2-D (k, n) with k "
				 "%lld, x's columns", (long long)d->k);
	return ACLNN_SUCCESS;
}

/* x (m, k) and y (m, n) of one floating type; the weight (k, n). */
static aclnnStatus wq_check(struct opnn *o, const struct wq_req *r, struct wq_dims *d)
{
	struct nnop_tensor_info xi, wi;

	OPNN_TRY(opnn_check_tensor(o, r->x, "x", WQ_FLOATS));
	OPNN_TRY(opnn_check_tensor(o, r->y, "y", WQ_FLOATS));
	OPNN_TRY(opnn_check_same_dtype(o, r->x, "x", r->y, "y"));
	OPNN_TRY(opnn_check_rank(o, r->x, "x", 2, 2));
	nnop_tensor_info(r->x, &xi);
	d->m = xi.dims[0];
	d->k = xi.dims[1];
	OPNN_TRY(wq_check_weight(o, r->weight, d));
	nnop_tensor_info(r->weight, &wi);
	d->n = wi.dims[1];
	OPNN_TRY(opnn_check_dims(o, r->y, "y", 2, (const int64_t[]){ d->m, d->n }));
	if (r->quant_scale || r->quant_offset)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "quantScaleOptional and "
				 "quantOffsetOptional: this card does not quantize the output; "
				 "pass NULL and a floating y");
	if (r->group < 0 || r->group > d->k)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "antiquantGroupSize %d is not 0 "
				 "(per channel) or a group of 1 to k (%lld) rows", r->group,
				 (long long)d->k);
	d->group = r->group;
	return ACLNN_SUCCESS;
}

/*
 * The weight as the card reads it: INT8 as it is; INT4 as its bytes,
 * (k, n / 2) or, when K is the contiguous axis, (n, k / 2) and trans_w.
 */
static aclnnStatus wq_weight_view(struct opnn *o, const aclTensor *w, struct nnop_view *v,
				  uint32_t *trans)
{
	struct nnop_tensor_info wi;
	int64_t k, n, sk, sn;

	OPNN_TRY(opnn_input(o, w, v));
	nnop_tensor_info(w, &wi);
	*trans = 0;
	if (wi.acl_dtype == ACL_INT8)
		return ACLNN_SUCCESS;
	k = wi.dims[0];
	n = wi.dims[1];
	sk = k > 1 ? wi.strides[0] : 1;
	sn = n > 1 ? wi.strides[1] : 1;
	if (wi.offset % 2)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "weight: an INT4 view starts at "
				 "an even element (offset %lld)", (long long)wi.offset);
	if (sk == 1 && k % 2 == 0 && (n == 1 || sn % 2 == 0)) {
		*trans = 1;
		*v = (struct nnop_view){ .base = v->base, .slot = v->slot,
					 .card_dtype = NPU_DTYPE_S8, .ndims = 2,
					 .dims = { n, k / 2 }, .strides = { sn / 2, 1 } };
		return ACLNN_SUCCESS;
	}
	if (sn == 1 && n % 2 == 0 && (k == 1 || sk % 2 == 0)) {
		*v = (struct nnop_view){ .base = v->base, .slot = v->slot,
					 .card_dtype = NPU_DTYPE_S8, .ndims = 2,
					 .dims = { k, n / 2 }, .strides = { sk / 2, 1 } };
		return ACLNN_SUCCESS;
	}
	return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "weight: an INT4 weight (%lld, %lld) with "
			 "strides (%lld, %lld) is not two values a byte along k or n",
			 (long long)k, (long long)n, (long long)wi.strides[0],
			 (long long)wi.strides[1]);
}

/*
 * antiquantScale or antiquantOffset as the card takes it: (groups, n), with
 * a per-tensor (1) or per-channel (n) broadcast to (1, n).
 */
static aclnnStatus wq_param_view(struct opnn *o, const aclTensor *t, const char *name,
				 const aclTensor *like, const struct wq_dims *d,
				 struct nnop_view *v)
{
	int64_t groups = d->group ? (d->k + d->group - 1) / d->group : 1;
	struct nnop_tensor_info ti;

	OPNN_TRY(opnn_check_tensor(o, t, name, WQ_FLOATS));
	if (like)
		OPNN_TRY(opnn_check_same_dtype(o, like, "antiquantScale", t, name));
	nnop_tensor_info(t, &ti);
	OPNN_TRY(opnn_input(o, t, v));
	if (ti.ndims == 1 && groups == 1 && (ti.dims[0] == d->n || ti.dims[0] == 1)) {
		nnop_view_unsqueeze(v, 0);
	} else if (!(ti.ndims == 2 && ti.dims[0] == groups &&
		     (ti.dims[1] == d->n || ti.dims[1] == 1))) {
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "%s must be (%lld, %lld)%s", name,
				 (long long)groups, (long long)d->n,
				 groups == 1 ? ", (n) or (1)" : "");
	}
	if (v->dims[1] == 1 && d->n != 1)
		nnop_view_expand(v, 1, d->n);
	return ACLNN_SUCCESS;
}

/* bias: (n) or (1, n), x's type (or FLOAT), added to y. */
static aclnnStatus wq_bias(struct opnn *o, const struct wq_req *r, const struct wq_dims *d,
			   const struct nnop_view *y)
{
	struct nnop_view b, yc;
	struct nnop_tensor_info bi;

	OPNN_TRY(opnn_check_tensor(o, r->bias, "biasOptional", WQ_FLOATS));
	nnop_tensor_info(r->bias, &bi);
	if (!((bi.ndims == 1 && bi.dims[0] == d->n) ||
	      (bi.ndims == 2 && bi.dims[0] == 1 && bi.dims[1] == d->n)))
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "biasOptional must be (n) or (1, n), "
				 "n %lld", (long long)d->n);
	OPNN_TRY(opnn_input(o, r->bias, &b));
	nnop_view_align(&b, 2);
	nnop_view_expand(&b, 0, d->m);
	if (b.card_dtype == y->card_dtype)
		return opnn_binary(o, NPU_BINARY_ADD, y, &b, y);
	/* a FLOAT bias: added in FLOAT, as the vendor's BF16 path does */
	yc = opnn_work_like(o, y, NPU_DTYPE_F32);
	OPNN_TRY(opnn_copy(o, y, &yc));
	OPNN_TRY(opnn_binary(o, NPU_BINARY_ADD, &yc, &b, &yc));
	return opnn_copy(o, &yc, y);
}

static aclnnStatus wq_build(struct opnn *o, const struct wq_req *r)
{
	struct npu_attr_qmatmul attr = { 0 };
	struct nnop_view v[5], y;
	struct nnop_tensor_info wi;
	struct wq_dims d;
	uint32_t trans;
	unsigned int nin = 3;

	OPNN_TRY(wq_check(o, r, &d));
	OPNN_TRY(opnn_input(o, r->x, &v[0]));
	OPNN_TRY(wq_weight_view(o, r->weight, &v[1], &trans));
	OPNN_TRY(wq_param_view(o, r->scale, "antiquantScale", NULL, &d, &v[2]));
	if (r->offset)
		OPNN_TRY(wq_param_view(o, r->offset, "antiquantOffsetOptional", r->scale, &d,
				       &v[nin++]));
	OPNN_TRY(opnn_output(o, r->y, &y));
	if (!d.m || !d.n)
		return ACLNN_SUCCESS;
	nnop_tensor_info(r->weight, &wi);
	if (!d.k) {
		OPNN_TRY(opnn_fill(o, &y, 0));
	} else {
		attr.group = htole32((uint32_t)d.group);
		attr.bits = htole32(wi.acl_dtype == ACL_INT4 ? 4 : 8);
		attr.trans_w = htole32(trans);
		v[nin] = y;
		OPNN_TRY(opnn_add(o, NPU_OPERATOR_QMATMUL, &attr, sizeof(attr), nin, v));
	}
	return r->bias ? wq_bias(o, r, &d, &y) : ACLNN_SUCCESS;
}

aclnnStatus aclnnWeightQuantBatchMatmulV2GetWorkspaceSize(const aclTensor *x,
	const aclTensor *weight, const aclTensor *antiquantScale,
	const aclTensor *antiquantOffsetOptional, const aclTensor *quantScaleOptional,
	const aclTensor *quantOffsetOptional, const aclTensor *biasOptional,
	int antiquantGroupSize, const aclTensor *y, uint64_t *workspaceSize,
	aclOpExecutor **executor)
{
	const struct wq_req r = { x, weight, antiquantScale, antiquantOffsetOptional,
				  quantScaleOptional, quantOffsetOptional, biasOptional, y,
				  antiquantGroupSize };
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, __func__, "WeightQuantBatchMatmulV2"));
	return opnn_end(&o, wq_build(&o, &r), workspaceSize, executor);
}

OPNN_LAUNCH(WeightQuantBatchMatmulV2)

/* tensorShape: 2 to 6 dims, none below 1; *elems their product. */
static aclnnStatus weight_shape(const char *fn, const aclIntArray *shape, uint64_t *elems)
{
	uint64_t n = nnop_int_array_size(shape), d;
	const int64_t *dims = nnop_int_array_data(shape);

	if (n < 2 || n > 6)
		return nnop_fail(fn, ACLNN_ERR_PARAM_INVALID, "tensorShape has %llu dims; 2 to 6 "
				 "are supported", (unsigned long long)n);
	*elems = 1;
	for (d = 0; d < n; d++) {
		if (dims[d] < 1)
			return nnop_fail(fn, ACLNN_ERR_PARAM_INVALID, "tensorShape[%llu] is %lld: "
					 "an empty weight has no size", (unsigned long long)d,
					 (long long)dims[d]);
		if (__builtin_mul_overflow(*elems, (uint64_t)dims[d], elems))
			return nnop_fail(fn, ACLNN_ERR_PARAM_INVALID, "tensorShape overflows");
	}
	return ACLNN_SUCCESS;
}

static bool weight_dtype_ok(int dtype)
{
	return dtype == ACL_FLOAT16 || dtype == ACL_BF16 || dtype == ACL_INT8;
}

aclnnStatus aclnnCalculateMatmulWeightSizeV2(const aclIntArray *tensorShape,
					     aclDataType dataType,
					     uint64_t *weightTensorSize)
{
	NNOP_CHECK_NOTNULL(tensorShape);
	NNOP_CHECK_NOTNULL(weightTensorSize);
	if (!weight_dtype_ok(dataType))
		return NNOP_FAIL(ACLNN_ERR_PARAM_INVALID, "dataType %s is not supported; FLOAT16, "
				 "BFLOAT16 and INT8 are", nnop_dtype_name(dataType));
	return weight_shape(__func__, tensorShape, weightTensorSize);
}

aclnnStatus aclnnCalculateMatmulWeightSize(const aclIntArray *tensorShape,
					   uint64_t *weightTensorSize)
{
	NNOP_CHECK_NOTNULL(tensorShape);
	NNOP_CHECK_NOTNULL(weightTensorSize);
	return weight_shape(__func__, tensorShape, weightTensorSize);
}

/* The weight stays as it is: an executor with no card operators. */
aclnnStatus aclnnTransMatmulWeightGetWorkspaceSize(aclTensor *mmWeightRef,
						   uint64_t *workspaceSize,
						   aclOpExecutor **executor)
{
	struct nnop_tensor_info wi;
	struct opnn o;
	aclnnStatus err;

	NNOP_CHECK_NOTNULL(mmWeightRef);
	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	nnop_tensor_info(mmWeightRef, &wi);
	if (!weight_dtype_ok(wi.acl_dtype))
		return NNOP_FAIL(ACLNN_ERR_PARAM_INVALID, "mmWeightRef: data type %s is not "
				 "supported; FLOAT16, BFLOAT16 and INT8 are",
				 nnop_dtype_name(wi.acl_dtype));
	if (wi.format != ACL_FORMAT_ND)
		return NNOP_FAIL(ACLNN_ERR_PARAM_INVALID, "mmWeightRef: format %d is not ND",
				 wi.format);
	if (wi.ndims < 2 || wi.ndims > 6)
		return NNOP_FAIL(ACLNN_ERR_PARAM_INVALID, "mmWeightRef has %u dims; 2 to 6 are "
				 "supported", wi.ndims);
	if (!wi.nelems)
		return NNOP_FAIL(ACLNN_ERR_PARAM_INVALID, "mmWeightRef is empty");
	OPNN_TRY(opnn_begin(&o, __func__, "TransMatmulWeight"));
	err = nnop_executor_input(o.x, mmWeightRef);
	return opnn_end(&o, err < 0 ? -err : ACLNN_SUCCESS, workspaceSize, executor);
}

OPNN_LAUNCH(TransMatmulWeight)
