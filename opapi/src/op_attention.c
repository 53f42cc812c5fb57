// SPDX-License-Identifier: MIT
/*
 * FusedInferAttentionScoreV2 on the card's ATTENTION, one operator: the
 * layouts BSND, BNSD, BSH and BNSD_BSND become (B, N, S, D) views of the
 * tensors as they lie, grouped key/value heads, pseShift added to the
 * scaled scores and attenMask leaving scores out, broadcast (both
 * together merged into one added mask first).  What
 * the card has no counterpart for (quantization, paged and shared-prefix
 * caches, sparse modes, variable lengths, the log-sum-exp output) is
 * refused with ACLNN_ERR_PARAM_INVALID and a message naming it.
 */
#include <endian.h>
#include <math.h>
#include <string.h>

#include "aclnnop/aclnn_fused_infer_attention_score_v2.h"
#include "opapi.h"
#include "opnn.h"

/* An input layout: how many dims each tensor has and whether S comes before N. */
struct fias_layout {
	const char *name;
	unsigned int rank;
	bool in_bsnd, out_bsnd;
};

static const struct fias_layout fias_layouts[] = {
	{ "BSND", 4, true, true },
	{ "BNSD", 4, false, false },
	{ "BSH", 3, true, true },
	{ "BNSD_BSND", 4, false, true },
};

/* The operator's shape, in (B, N, S, D) terms. */
struct fias_shape {
	const struct fias_layout *layout;
	int64_t b, n, nkv, sq, skv, d, dv;
};

static aclnnStatus fias_layout_find(struct opnn *o, const char *name,
				    const struct fias_layout **layout)
{
	unsigned int i;

	if (!name)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_NULLPTR, "inputLayout is NULL");
	for (i = 0; i < sizeof(fias_layouts) / sizeof(fias_layouts[0]); i++)
		if (!strcmp(name, fias_layouts[i].name)) {
			*layout = &fias_layouts[i];
			return ACLNN_SUCCESS;
		}
	return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
			 "inputLayout \"%.16s\" is not supported: BSND, BNSD, BSH and "
			 "BNSD_BSND are", name);
}

/*
 * A tensor's (B, N, S, D) from its dims in layout l; heads splits H for
 * BSH.  Returns false when H is not a multiple of heads.
 */
static bool fias_dims(const struct nnop_tensor_info *ti, bool bsnd, unsigned int rank,
		      int64_t heads, int64_t *bnsd)
{
	if (rank == 3) {
		if (heads <= 0 || ti->dims[2] % heads)
			return false;
		bnsd[0] = ti->dims[0];
		bnsd[1] = heads;
		bnsd[2] = ti->dims[1];
		bnsd[3] = ti->dims[2] / heads;
		return true;
	}
	bnsd[0] = ti->dims[0];
	bnsd[1] = ti->dims[bsnd ? 2 : 1];
	bnsd[2] = ti->dims[bsnd ? 1 : 2];
	bnsd[3] = ti->dims[3];
	return true;
}

/* The view of a tensor in layout l as the card's (B, N, S, D). */
static void fias_view(struct nnop_view *v, bool bsnd, int64_t heads)
{
	static const unsigned int swap[4] = { 0, 2, 1, 3 };

	if (v->ndims == 3) {
		/* H = N * D, D innermost: split the axis, then it is BSND */
		v->ndims = 4;
		v->dims[3] = v->dims[2] / heads;
		v->strides[3] = v->strides[2];
		v->dims[2] = heads;
		v->strides[2] = v->strides[3] * v->dims[3];
	}
	if (bsnd)
		nnop_view_permute(v, swap);
}

static const aclTensor *fias_only(const aclTensorList *l)
{
	return l && nnop_tensor_list_size(l) == 1 ? nnop_tensor_list_at(l, 0) : NULL;
}

static aclnnStatus fias_tensors(struct opnn *o, const aclTensor *q, const aclTensorList *kl,
				const aclTensorList *vl, const aclTensor *out)
{
	const aclTensor *k = fias_only(kl), *v = fias_only(vl);

	if (!kl || !vl)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_NULLPTR, "%s is NULL", kl ? "value" : "key");
	if (!k || !v)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "key and value must each be a list of one tensor");
	OPNN_TRY(opnn_check_tensor(o, q, "query", OPNN_FLOATS));
	OPNN_TRY(opnn_check_tensor(o, k, "key", OPNN_FLOATS));
	OPNN_TRY(opnn_check_tensor(o, v, "value", OPNN_FLOATS));
	OPNN_TRY(opnn_check_tensor(o, out, "attentionOut", OPNN_FLOATS));
	OPNN_TRY(opnn_check_same_dtype(o, q, "query", k, "key"));
	OPNN_TRY(opnn_check_same_dtype(o, q, "query", v, "value"));
	return opnn_check_same_dtype(o, q, "query", out, "attentionOut");
}

static aclnnStatus fias_shape(struct opnn *o, const aclTensor *q, const aclTensorList *kl,
			      const aclTensorList *vl, const aclTensor *out, int64_t num_heads,
			      int64_t num_kv_heads, struct fias_shape *s)
{
	const struct fias_layout *l = s->layout;
	struct nnop_tensor_info qi, ki, vi;
	int64_t qd[4], kd[4], vd[4], od[NNOP_MAX_DIMS];

	nnop_tensor_info(q, &qi);
	nnop_tensor_info(fias_only(kl), &ki);
	nnop_tensor_info(fias_only(vl), &vi);
	OPNN_TRY(opnn_check_rank(o, q, "query", l->rank, l->rank));
	OPNN_TRY(opnn_check_rank(o, fias_only(kl), "key", l->rank, l->rank));
	OPNN_TRY(opnn_check_rank(o, fias_only(vl), "value", l->rank, l->rank));
	if (l->rank == 4 && num_heads != qi.dims[l->in_bsnd ? 2 : 1])
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "numHeads %lld is not query's N %lld",
				 (long long)num_heads, (long long)qi.dims[l->in_bsnd ? 2 : 1]);
	if (num_kv_heads < 0)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "numKeyValueHeads %lld is negative",
				 (long long)num_kv_heads);
	if (!num_kv_heads)
		num_kv_heads = l->rank == 4 ? ki.dims[l->in_bsnd ? 2 : 1] : num_heads;
	if (!fias_dims(&qi, l->in_bsnd, l->rank, num_heads, qd) ||
	    !fias_dims(&ki, l->in_bsnd, l->rank, num_kv_heads, kd) ||
	    !fias_dims(&vi, l->in_bsnd, l->rank, num_kv_heads, vd))
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "H of query, key or value is not a multiple of its heads");
	if (num_heads <= 0 || kd[1] != num_kv_heads || num_heads % num_kv_heads)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "numHeads %lld must be a positive multiple of key's %lld heads "
				 "(numKeyValueHeads %lld)", (long long)num_heads, (long long)kd[1],
				 (long long)num_kv_heads);
	if (kd[0] != qd[0] || vd[0] != qd[0] || kd[3] != qd[3] || vd[1] != kd[1] ||
	    vd[2] != kd[2])
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "query (B %lld, D %lld), key (B %lld, N %lld, S %lld, D %lld) and "
				 "value (B %lld, N %lld, S %lld) disagree", (long long)qd[0],
				 (long long)qd[3], (long long)kd[0], (long long)kd[1],
				 (long long)kd[2], (long long)kd[3], (long long)vd[0],
				 (long long)vd[1], (long long)vd[2]);
	*s = (struct fias_shape){ .layout = l, .b = qd[0], .n = qd[1], .nkv = kd[1],
				  .sq = qd[2], .skv = kd[2], .d = qd[3], .dv = vd[3] };
	/* attentionOut: query's layout (BSND for BNSD_BSND), value's D */
	od[0] = s->b;
	od[1] = l->out_bsnd ? s->sq : s->n;
	od[2] = l->out_bsnd ? s->n : s->sq;
	od[3] = s->dv;
	if (l->rank == 3)
		od[2] = s->n * s->dv;
	return opnn_check_dims(o, out, "attentionOut", l->rank, od);
}

/* A mask or pse: rank 2 to 4, aligned at the end, each dim the scores' or 1. */
static aclnnStatus fias_check_mask(struct opnn *o, const aclTensor *t, const char *name,
				   uint64_t types, const struct fias_shape *s)
{
	const int64_t scores[4] = { s->b, s->n, s->sq, s->skv };
	struct nnop_tensor_info ti;
	unsigned int d, lead;

	OPNN_TRY(opnn_check_tensor(o, t, name, types));
	OPNN_TRY(opnn_check_rank(o, t, name, 2, 4));
	nnop_tensor_info(t, &ti);
	lead = 4 - ti.ndims;
	for (d = 0; d < ti.ndims; d++)
		if (ti.dims[d] != 1 && ti.dims[d] != scores[lead + d])
			return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
					 "%s's dim %u is %lld; it must be 1 or %lld to broadcast "
					 "to (B, N, Sq, Skv)", name, d, (long long)ti.dims[d],
					 (long long)scores[lead + d]);
	return ACLNN_SUCCESS;
}

/* Every sequence length given is the whole sequence. */
static aclnnStatus fias_check_lengths(struct opnn *o, const aclIntArray *a, const char *name,
				      int64_t full)
{
	const int64_t *v = a ? nnop_int_array_data(a) : NULL;
	uint64_t i, n = a ? nnop_int_array_size(a) : 0;

	for (i = 0; i < n; i++)
		if (v[i] != full)
			return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
					 "%s[%llu] is %lld: lengths shorter than the sequence "
					 "(%lld) are not supported", name, (unsigned long long)i,
					 (long long)v[i], (long long)full);
	return ACLNN_SUCCESS;
}

/* The parameters of FusedInferAttentionScoreV2 this card honours, and the rest. */
struct fias_args {
	const aclTensor *q;
	const aclTensorList *k, *v;
	const aclTensor *pse, *mask;
	const aclIntArray *seq_q, *seq_kv;
	const void *unsupported[17];
	int64_t num_heads, pre_tokens, next_tokens, num_kv_heads, sparse_mode, inner_precise;
	double scale;
	const char *layout;
	bool lse;
	const aclTensor *out, *lse_out;
};

static const char *const fias_unsupported_names[17] = {
	"deqScale1", "quantScale1", "deqScale2", "quantScale2", "quantOffset2",
	"antiquantScale", "antiquantOffset", "blockTable", "queryPaddingSize",
	"kvPaddingSize", "keyAntiquantScale", "keyAntiquantOffset", "valueAntiquantScale",
	"valueAntiquantOffset", "keySharedPrefix", "valueSharedPrefix", "actualSharedPrefixLen",
};

static aclnnStatus fias_check_scalars(struct opnn *o, const struct fias_args *a,
				      const struct fias_shape *s)
{
	unsigned int i;

	for (i = 0; i < 17; i++)
		if (a->unsupported[i])
			return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
					 "%sOptional is not supported on this card: pass NULL",
					 fias_unsupported_names[i]);
	if (a->sparse_mode)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "sparseMode %lld is not supported: 0 is",
				 (long long)a->sparse_mode);
	if (a->inner_precise < 0 || a->inner_precise > 3)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "innerPrecise %lld is not 0 to 3",
				 (long long)a->inner_precise);
	if (a->lse)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "softmaxLseFlag is not supported: the card returns no softmaxLse");
	if (!isfinite(a->scale))
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "scaleValue is not finite");
	/* the band of keys each query sees must be all of them */
	if (a->pre_tokens < s->sq - 1 || a->next_tokens < s->skv - 1)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "preTokens %lld and nextTokens %lld narrow the keys a query sees; "
				 "only bands covering them all (%lld and %lld or more) are "
				 "supported",
				 (long long)a->pre_tokens, (long long)a->next_tokens,
				 (long long)(s->sq - 1), (long long)(s->skv - 1));
	OPNN_TRY(fias_check_lengths(o, a->seq_q, "actualSeqLengths", s->sq));
	return fias_check_lengths(o, a->seq_kv, "actualSeqLengthsKv", s->skv);
}

/* Names the tensors in the vendor's order and gives the card's views. */
static aclnnStatus fias_views(struct opnn *o, const struct fias_args *a,
			      const struct fias_shape *s, struct nnop_view *v,
			      unsigned int *nin, struct nnop_view *mask)
{
	const struct fias_layout *l = s->layout;
	int first, named;

	OPNN_TRY(opnn_input(o, a->q, &v[0]));
	named = nnop_executor_input_list(o->x, a->k, &first);
	if (named < 0)
		return -named;
	v[1] = nnop_view_of(o->x, first);
	named = nnop_executor_input_list(o->x, a->v, &first);
	if (named < 0)
		return -named;
	v[2] = nnop_view_of(o->x, first);
	fias_view(&v[0], l->in_bsnd, s->n);
	fias_view(&v[1], l->in_bsnd, s->nkv);
	fias_view(&v[2], l->in_bsnd, s->nkv);
	*nin = 3;
	if (a->pse || a->mask) {
		OPNN_TRY(opnn_input(o, a->pse ? a->pse : a->mask, &v[3]));
		nnop_view_align(&v[3], 4);
		*nin = 4;
	}
	if (a->pse && a->mask) {
		OPNN_TRY(opnn_input(o, a->mask, mask));
		nnop_view_align(mask, 4);
	}
	OPNN_TRY(opnn_output(o, a->out, &v[*nin]));
	fias_view(&v[*nin], l->out_bsnd, s->n);
	if (a->lse_out) {
		struct nnop_view unused;

		OPNN_TRY(opnn_output(o, a->lse_out, &unused));
	}
	return ACLNN_SUCCESS;
}

/*
 * pseShift where attenMask is 0 and -inf where it is not, in float32
 * workspace of the shape both broadcast to: the card takes one mask.
 */
static aclnnStatus fias_merge_masks(struct opnn *o, struct nnop_view *pse,
				    const struct nnop_view *mask)
{
	struct nnop_view v[4], f;
	unsigned int d;

	v[0] = *mask;
	OPNN_TRY(nnop_view_scalar(o->x, -INFINITY, NPU_DTYPE_F32, 4, &v[1]));
	OPNN_TRY(opapi_cast(o->x, pse, NPU_DTYPE_F32, &f));
	v[2] = f;
	v[3] = *pse;
	for (d = 0; d < 4; d++)
		if (mask->dims[d] > v[3].dims[d])
			v[3].dims[d] = mask->dims[d];
	v[3] = nnop_view_work(o->x, NPU_DTYPE_F32, 4, v[3].dims);
	OPNN_TRY(opnn_add(o, NPU_OPERATOR_WHERE, NULL, 0, 3, v));
	*pse = v[3];
	return ACLNN_SUCCESS;
}

static aclnnStatus fias_build(struct opnn *o, const struct fias_args *a)
{
	struct npu_attr_attention attr = { 0 };
	struct nnop_view v[5], mask;
	struct fias_shape s = { 0 };
	unsigned int nin;

	OPNN_TRY(fias_tensors(o, a->q, a->k, a->v, a->out));
	OPNN_TRY(fias_layout_find(o, a->layout, &s.layout));
	OPNN_TRY(fias_shape(o, a->q, a->k, a->v, a->out, a->num_heads, a->num_kv_heads, &s));
	if (a->pse)
		OPNN_TRY(fias_check_mask(o, a->pse, "pseShift", OPNN_FLOATS, &s));
	if (a->mask)
		OPNN_TRY(fias_check_mask(o, a->mask, "attenMask",
					 OPNN_DT(ACL_BOOL) | OPNN_DT(ACL_INT8) | OPNN_DT(ACL_UINT8),
					 &s));
	OPNN_TRY(fias_check_scalars(o, a, &s));
	OPNN_TRY(fias_views(o, a, &s, v, &nin, &mask));
	if (!s.b || !s.n || !s.sq || !s.dv)
		return ACLNN_SUCCESS;
	/* no keys: every row is left with no score, which is 0 */
	if (!s.skv || !s.d)
		return opnn_fill(o, &v[nin], 0);
	if (a->pse && a->mask)
		OPNN_TRY(fias_merge_masks(o, &v[3], &mask));
	attr.scale = htole32(opnn_f32_bits(a->scale));
	attr.mask = htole32(a->mask && !a->pse ? NPU_ATTENTION_MASK_BOOL :
			    NPU_ATTENTION_MASK_ADD);
	return opnn_add(o, NPU_OPERATOR_ATTENTION, &attr, sizeof(attr), nin, v);
}

aclnnStatus aclnnFusedInferAttentionScoreV2GetWorkspaceSize(const aclTensor *query,
	const aclTensorList *key, const aclTensorList *value, const aclTensor *pseShiftOptional,
	const aclTensor *attenMaskOptional, const aclIntArray *actualSeqLengthsOptional,
	const aclIntArray *actualSeqLengthsKvOptional, const aclTensor *deqScale1Optional,
	const aclTensor *quantScale1Optional, const aclTensor *deqScale2Optional,
	const aclTensor *quantScale2Optional, const aclTensor *quantOffset2Optional,
	const aclTensor *antiquantScaleOptional, const aclTensor *antiquantOffsetOptional,
	const aclTensor *blockTableOptional, const aclTensor *queryPaddingSizeOptional,
	const aclTensor *kvPaddingSizeOptional, const aclTensor *keyAntiquantScaleOptional,
	const aclTensor *keyAntiquantOffsetOptional, const aclTensor *valueAntiquantScaleOptional,
	const aclTensor *valueAntiquantOffsetOptional, const aclTensor *keySharedPrefixOptional,
	const aclTensor *valueSharedPrefixOptional,
	const aclIntArray *actualSharedPrefixLenOptional, int64_t numHeads, double scaleValue,
	int64_t preTokens, int64_t nextTokens, char *inputLayout, int64_t numKeyValueHeads,
	int64_t sparseMode, int64_t innerPrecise, int64_t blockSize, int64_t antiquantMode,
	bool softmaxLseFlag, int64_t keyAntiquantMode, int64_t valueAntiquantMode,
	const aclTensor *attentionOut, const aclTensor *softmaxLse, uint64_t *workspaceSize,
	aclOpExecutor **executor)
{
	const struct fias_args a = {
		.q = query, .k = key, .v = value, .pse = pseShiftOptional,
		.mask = attenMaskOptional, .seq_q = actualSeqLengthsOptional,
		.seq_kv = actualSeqLengthsKvOptional,
		.unsupported = { deqScale1Optional, quantScale1Optional, deqScale2Optional,
				 quantScale2Optional, quantOffset2Optional, antiquantScaleOptional,
				 antiquantOffsetOptional, blockTableOptional,
				 queryPaddingSizeOptional, kvPaddingSizeOptional,
				 keyAntiquantScaleOptional, keyAntiquantOffsetOptional,
				 valueAntiquantScaleOptional, valueAntiquantOffsetOptional,
				 keySharedPrefixOptional, valueSharedPrefixOptional,
				 actualSharedPrefixLenOptional },
		.num_heads = numHeads, .scale = scaleValue, .pre_tokens = preTokens,
		.next_tokens = nextTokens, .layout = inputLayout,
		.num_kv_heads = numKeyValueHeads, .sparse_mode = sparseMode,
		.inner_precise = innerPrecise, .lse = softmaxLseFlag, .out = attentionOut,
		.lse_out = softmaxLse,
	};
	struct opnn o;

	/* a paged cache's block size and the quantizations' modes go with tensors refused */
	(void)blockSize;
	(void)antiquantMode;
	(void)keyAntiquantMode;
	(void)valueAntiquantMode;
	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, __func__, "FusedInferAttentionScoreV2"));
	return opnn_end(&o, fias_build(&o, &a), workspaceSize, executor);
}

OPNN_LAUNCH(FusedInferAttentionScoreV2)
