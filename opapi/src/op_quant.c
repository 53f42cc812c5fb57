// SPDX-License-Identifier: MIT
/*
 * Products over quantized weights: WeightQuantBatchMatmulV2, the card's
 * QMATMUL (plus a BINARY add for the bias), the weight preparation the
 * vendor pairs with it, CalculateMatmulWeightSize(V2) and
 * TransMatmulWeight, and GroupedMatmulV3 with its groups known on the
 * host, a MATMUL or QMATMUL a group.  This card keeps weights ND, so a weight's prepared
 * size is its ND size and preparing it changes nothing.
 *
 * An INT4 weight is two values a byte, the even one in the low nibble;
 * the card reads it as the bytes it is, along whichever of K or N is
 * contiguous (a weight given transposed, as ggml gives them, packs pairs
 * along K).
 */
#include <endian.h>
#include <stdlib.h>

#include "aclnnop/aclnn_grouped_matmul_v3.h"
#include "aclnnop/aclnn_trans_matmul_weight.h"
#include "aclnnop/aclnn_weight_quant_batch_matmul_v2.h"
#include "opnn.h"

#define WQ_FLOATS	(OPNN_DT(ACL_FLOAT16) | OPNN_DT(ACL_BF16) | OPNN_DT(ACL_FLOAT))

struct wq_req {
	const aclTensor *x, *weight, *scale, *offset, *quant_scale, *quant_offset, *bias, *y;
	int group;
	struct nnop_view bias_view;	/* once named */
};

/* bias: (n) or (1, n), of x's type or float. */
static aclnnStatus wq_check_bias(struct opnn *o, const aclTensor *bias, const aclTensor *x,
				 int64_t n)
{
	struct nnop_tensor_info bi, xi;

	OPNN_TRY(opnn_check_tensor(o, bias, "biasOptional", WQ_FLOATS));
	nnop_tensor_info(bias, &bi);
	nnop_tensor_info(x, &xi);
	if (bi.acl_dtype != xi.acl_dtype && bi.acl_dtype != ACL_FLOAT)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "biasOptional is %s; x's type (%s) "
				 "or float is supported", nnop_dtype_name(bi.acl_dtype),
				 nnop_dtype_name(xi.acl_dtype));
	if (!((bi.ndims == 1 && bi.dims[0] == n) ||
	      (bi.ndims == 2 && bi.dims[0] == 1 && bi.dims[1] == n)))
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "biasOptional must be (n) or (1, n), "
				 "n %lld", (long long)n);
	return ACLNN_SUCCESS;
}

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
	struct nnop_view b = r->bias_view, yc;

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

/*
 * The product of r's tensors, named already: v[0] x, v[1] the weight,
 * v[2] the scale, v[3] the offset (if any), y the output.
 */
static aclnnStatus wq_product(struct opnn *o, const struct wq_req *r, const struct wq_dims *d,
			      struct nnop_view *v, const struct nnop_view *y)
{
	struct npu_attr_qmatmul attr = { 0 };
	struct nnop_tensor_info wi;
	unsigned int nin = r->offset ? 4 : 3;
	uint32_t trans;

	OPNN_TRY(wq_weight_view(o, r->weight, &v[1], &trans));
	OPNN_TRY(wq_param_view(o, r->scale, "antiquantScale", NULL, d, &v[2]));
	if (r->offset)
		OPNN_TRY(wq_param_view(o, r->offset, "antiquantOffsetOptional", r->scale, d,
				       &v[3]));
	if (!d->m || !d->n)
		return ACLNN_SUCCESS;
	nnop_tensor_info(r->weight, &wi);
	if (!d->k) {
		OPNN_TRY(opnn_fill(o, y, 0));
	} else {
		attr.group = htole32((uint32_t)d->group);
		attr.bits = htole32(wi.acl_dtype == ACL_INT4 ? 4 : 8);
		attr.trans_w = htole32(trans);
		v[nin] = *y;
		OPNN_TRY(opnn_add(o, NPU_OPERATOR_QMATMUL, &attr, sizeof(attr), nin, v));
	}
	return r->bias ? wq_bias(o, r, d, y) : ACLNN_SUCCESS;
}

static aclnnStatus wq_build(struct opnn *o, struct wq_req *r)
{
	struct nnop_view v[5], y;
	struct wq_dims d;

	OPNN_TRY(wq_check(o, r, &d));
	OPNN_TRY(opnn_input(o, r->x, &v[0]));
	OPNN_TRY(opnn_input(o, r->weight, &v[1]));
	OPNN_TRY(opnn_check_tensor(o, r->scale, "antiquantScale", WQ_FLOATS));
	OPNN_TRY(opnn_input(o, r->scale, &v[2]));
	if (r->offset) {
		OPNN_TRY(opnn_check_tensor(o, r->offset, "antiquantOffsetOptional", WQ_FLOATS));
		OPNN_TRY(opnn_input(o, r->offset, &v[3]));
	}
	if (r->bias) {
		OPNN_TRY(wq_check_bias(o, r->bias, r->x, d.n));
		OPNN_TRY(opnn_input(o, r->bias, &r->bias_view));
	}
	OPNN_TRY(opnn_output(o, r->y, &y));
	return wq_product(o, r, &d, v, &y);
}

aclnnStatus aclnnWeightQuantBatchMatmulV2GetWorkspaceSize(const aclTensor *x,
	const aclTensor *weight, const aclTensor *antiquantScale,
	const aclTensor *antiquantOffsetOptional, const aclTensor *quantScaleOptional,
	const aclTensor *quantOffsetOptional, const aclTensor *biasOptional,
	int antiquantGroupSize, const aclTensor *y, uint64_t *workspaceSize,
	aclOpExecutor **executor)
{
	struct wq_req r = { x, weight, antiquantScale, antiquantOffsetOptional,
			    quantScaleOptional, quantOffsetOptional, biasOptional, y,
			    antiquantGroupSize, { 0 } };
	OPNN_GET_WORKSPACE("WeightQuantBatchMatmulV2", wq_build(&o, &r));
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

/* ---- GroupedMatmulV3 ---------------------------------------------------- */

/* The vendor's longest tensor lists. */
#define GMM_MAX_GROUPS		128
/* groupType: no grouping, each x_i with its own weight_i. */
#define GMM_NO_GROUPS		-1

struct gmm_req {
	const aclTensorList *x, *weight, *bias, *scale, *offset, *ascale, *aoffset, *y;
	const aclTensor *group_list;
	int64_t split_item, group_type;
};

/* A list the operator takes: NULL or empty (if optional), or one tensor a group. */
static aclnnStatus gmm_check_list(struct opnn *o, const aclTensorList *l, const char *name,
				  uint64_t groups, bool optional)
{
	uint64_t n = l ? nnop_tensor_list_size(l) : 0;

	if (!l && !optional)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_NULLPTR, "%s is NULL", name);
	if ((optional && !n) || n == groups)
		return ACLNN_SUCCESS;
	return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "%s has %llu tensors; x has %llu",
			 name, (unsigned long long)n, (unsigned long long)groups);
}

static aclnnStatus gmm_check(struct opnn *o, const struct gmm_req *r, uint64_t *groups)
{
	uint64_t g, ny;

	if (!r->x || !r->weight || !r->y)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_NULLPTR, "%s is NULL",
				 !r->x ? "x" : !r->weight ? "weight" : "y");
	if (r->group_list)
		return OPNN_FAIL(o, ACLNN_ERR_INNER_FIND_KERNEL_ERROR, "groups read from device "
				 "memory (groupListOptional) are not on this card yet (issue 26); "
				 "pass one x, weight and y a group");
	if (r->group_type != GMM_NO_GROUPS)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "groupType %lld without a group list: "
				 "only -1 (one tensor a group) is possible", (long long)r->group_type);
	if ((r->scale && nnop_tensor_list_size(r->scale)) ||
	    (r->offset && nnop_tensor_list_size(r->offset)))
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "scaleOptional and offsetOptional: "
				 "this card does not quantize the output; pass NULL");
	g = nnop_tensor_list_size(r->x);
	if (!g || g > GMM_MAX_GROUPS)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "x has %llu tensors; 1 to %d are "
				 "supported", (unsigned long long)g, GMM_MAX_GROUPS);
	OPNN_TRY(gmm_check_list(o, r->weight, "weight", g, false));
	OPNN_TRY(gmm_check_list(o, r->bias, "biasOptional", g, true));
	OPNN_TRY(gmm_check_list(o, r->ascale, "antiquantScaleOptional", g, true));
	OPNN_TRY(gmm_check_list(o, r->aoffset, "antiquantOffsetOptional", g, true));
	ny = nnop_tensor_list_size(r->y);
	if (r->split_item < 0 || r->split_item > 3)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "splitItem %lld is not 0 to 3",
				 (long long)r->split_item);
	if (ny != (r->split_item >= 2 ? 1 : g))
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "y has %llu tensors; splitItem %lld "
				 "wants %llu", (unsigned long long)ny, (long long)r->split_item,
				 (unsigned long long)(r->split_item >= 2 ? 1 : g));
	*groups = g;
	return ACLNN_SUCCESS;
}

/* Each group's x, weight, antiquant scale and offset, and room for y; bias; y. */
struct gmm_views {
	struct nnop_view in[GMM_MAX_GROUPS][5];
	struct nnop_view bias[GMM_MAX_GROUPS];
	struct nnop_view y[GMM_MAX_GROUPS];
};

static const aclTensor *gmm_at(const aclTensorList *l, uint64_t i)
{
	return l && nnop_tensor_list_size(l) ? nnop_tensor_list_at(l, i) : NULL;
}

/* Names every list's tensors, in the order of the parameters. */
static aclnnStatus gmm_name(struct opnn *o, const struct gmm_req *r, uint64_t g,
			    struct nnop_view (*in)[5], struct nnop_view *bias,
			    struct nnop_view *y)
{
	const aclTensorList *lists[] = { r->x, r->weight, r->bias, r->ascale, r->aoffset };
	const unsigned int col[] = { 0, 1, 4, 2, 3 };
	uint64_t i, l;

	for (l = 0; l < sizeof(lists) / sizeof(lists[0]); l++) {
		for (i = 0; i < g && gmm_at(lists[l], i); i++) {
			struct nnop_view *v = col[l] == 4 ? &bias[i] : &in[i][col[l]];

			OPNN_TRY(opnn_input(o, gmm_at(lists[l], i), v));
		}
	}
	for (i = 0; i < nnop_tensor_list_size(r->y); i++)
		OPNN_TRY(opnn_output(o, nnop_tensor_list_at(r->y, i), &y[i]));
	return ACLNN_SUCCESS;
}

/* x_i (m, k) by a float weight_i (k, n), plus bias_i as MATMUL's c. */
static aclnnStatus gmm_float(struct opnn *o, const aclTensor *x, const aclTensor *w,
			     const aclTensor *bias, struct nnop_view *v,
			     const struct nnop_view *bias_view, const struct nnop_view *y)
{
	struct npu_attr_matmul attr = { 0 };
	struct nnop_tensor_info wi;

	OPNN_TRY(opnn_check_tensor(o, w, "weight", WQ_FLOATS));
	OPNN_TRY(opnn_check_same_dtype(o, x, "x", w, "weight"));
	nnop_tensor_info(w, &wi);
	if (bias)
		OPNN_TRY(wq_check_bias(o, bias, x, wi.dims[1]));
	if (!opnn_view_nelems(y))
		return ACLNN_SUCCESS;
	if (!v[0].dims[1])
		return opnn_fill(o, y, 0);
	attr.alpha = opnn_f32_bits(1);
	attr.beta = opnn_f32_bits(bias ? 1 : 0);
	attr.act = opnn_no_act();
	v[2] = *bias_view;
	nnop_view_align(&v[2], 2);
	v[bias ? 3 : 2] = *y;
	return opnn_add(o, NPU_OPERATOR_MATMUL, &attr, sizeof(attr), bias ? 3 : 2, v);
}

/* Group i: y_i = x_i weight_i (+ bias_i), quantized when weight_i is an integer type. */
static aclnnStatus gmm_group(struct opnn *o, const struct gmm_req *r, uint64_t i,
			     struct nnop_view *v, const struct nnop_view *bias_view,
			     const struct nnop_view *y)
{
	struct wq_req q = { gmm_at(r->x, i), gmm_at(r->weight, i), gmm_at(r->ascale, i),
			    gmm_at(r->aoffset, i), NULL, NULL, gmm_at(r->bias, i), NULL, 0,
			    *bias_view };
	struct nnop_tensor_info xi, wi;
	struct wq_dims d;

	OPNN_TRY(opnn_check_tensor(o, q.x, "x", WQ_FLOATS));
	OPNN_TRY(opnn_check_rank(o, q.x, "x", 2, 2));
	OPNN_TRY(opnn_check_rank(o, q.weight, "weight", 2, 2));
	nnop_tensor_info(q.x, &xi);
	nnop_tensor_info(q.weight, &wi);
	if (wi.dims[0] != xi.dims[1])
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "group %llu: weight has %lld rows, "
				 "x %lld columns", (unsigned long long)i, (long long)wi.dims[0],
				 (long long)xi.dims[1]);
	if (y->dims[0] != xi.dims[0] || y->dims[1] != wi.dims[1] || y->card_dtype != v[0].card_dtype)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "group %llu: y is not (%lld, %lld) "
				 "of x's type", (unsigned long long)i, (long long)xi.dims[0],
				 (long long)wi.dims[1]);
	if (wi.acl_dtype != ACL_INT8 && wi.acl_dtype != ACL_INT4)
		return gmm_float(o, q.x, q.weight, q.bias, v, bias_view, y);
	if (!q.scale)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "group %llu: an %s weight needs "
				 "antiquantScaleOptional", (unsigned long long)i,
				 nnop_dtype_name(wi.acl_dtype));
	d = (struct wq_dims){ xi.dims[0], xi.dims[1], wi.dims[1], 0 };
	if (q.bias)
		OPNN_TRY(wq_check_bias(o, q.bias, q.x, d.n));
	return wq_product(o, &q, &d, v, y);
}

/* The groups' products, over views of the tensors named in views. */
static aclnnStatus gmm_groups(struct opnn *o, const struct gmm_req *r, uint64_t g,
			      struct gmm_views *gv)
{
	static const struct nnop_view none;
	uint64_t i;
	int64_t row = 0;

	for (i = 0; i < g; i++) {
		struct nnop_view yi = gv->y[r->split_item >= 2 ? 0 : i];

		/* one y: the groups' rows one after another */
		if (r->split_item >= 2) {
			int64_t m = gv->in[i][0].ndims == 2 ? gv->in[i][0].dims[0] : 0;

			if (yi.ndims != 2 || row + m > yi.dims[0])
				return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "y has too few rows "
						 "for the groups' x");
			nnop_view_narrow(&yi, 0, row, m, 1);
			row += m;
		}
		OPNN_TRY(gmm_group(o, r, i, gv->in[i],
				   gmm_at(r->bias, i) ? &gv->bias[i] : &none, &yi));
	}
	if (r->split_item >= 2 && row != gv->y[0].dims[0])
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "y has %lld rows; the groups' x have "
				 "%lld", (long long)gv->y[0].dims[0], (long long)row);
	return ACLNN_SUCCESS;
}

static aclnnStatus gmm_build(struct opnn *o, const struct gmm_req *r)
{
	struct gmm_views *gv;
	aclnnStatus err;
	uint64_t g = 0;

	OPNN_TRY(gmm_check(o, r, &g));
	gv = calloc(1, sizeof(*gv));
	if (!gv)
		return OPNN_FAIL(o, ACLNN_ERR_INNER_NULLPTR, "out of memory");
	err = gmm_name(o, r, g, gv->in, gv->bias, gv->y);
	if (!err)
		err = gmm_groups(o, r, g, gv);
	free(gv);
	return err;
}

aclnnStatus aclnnGroupedMatmulV3GetWorkspaceSize(const aclTensorList *x,
	const aclTensorList *weight, const aclTensorList *biasOptional,
	const aclTensorList *scaleOptional, const aclTensorList *offsetOptional,
	const aclTensorList *antiquantScaleOptional, const aclTensorList *antiquantOffsetOptional,
	const aclTensor *groupListOptional, int64_t splitItem, int64_t groupType,
	const aclTensorList *y, uint64_t *workspaceSize, aclOpExecutor **executor)
{
	const struct gmm_req r = { x, weight, biasOptional, scaleOptional, offsetOptional,
				   antiquantScaleOptional, antiquantOffsetOptional, y,
				   groupListOptional, splitItem, groupType };
	OPNN_GET_WORKSPACE("GroupedMatmulV3", gmm_build(&o, &r));
}

OPNN_LAUNCH(GroupedMatmulV3)
