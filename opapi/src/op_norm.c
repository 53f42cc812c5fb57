// SPDX-License-Identifier: MIT
/*
 * Normalisation: Softmax and LogSoftmax, LayerNorm, BatchNorm, RmsNorm,
 * AddRmsNorm and GroupNorm (one card operator each for the main output).  The statistics the vendor's
 * operators also return (mean, rstd, the running averages of training)
 * are composed likewise, over float32 workspace, as the card's norm
 * operators compute in float32 and keep their parameters so.
 */
#include <endian.h>

#include "aclnnop/aclnn_add_rms_norm.h"
#include "aclnnop/aclnn_batch_norm.h"
#include "aclnnop/aclnn_group_norm.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_logsoftmax.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_softmax.h"
#include "opnn.h"

/* ---- Softmax, LogSoftmax ----------------------------------------------------- */

static aclnnStatus softmax_build(struct opnn *o, const aclTensor *self, int64_t dim,
				 const aclTensor *out, bool log)
{
	struct npu_attr_softmax attr = { 0 };
	struct nnop_tensor_info si;
	struct nnop_view v[2];
	unsigned int axis = 0;

	OPNN_TRY(opnn_check_tensor(o, self, "self", OPNN_FLOATS));
	OPNN_TRY(opnn_check_tensor(o, out, "out", OPNN_FLOATS));
	OPNN_TRY(opnn_check_same_dtype(o, self, "self", out, "out"));
	nnop_tensor_info(self, &si);
	OPNN_TRY(opnn_check_dims(o, out, "out", si.ndims, si.dims));
	OPNN_TRY(opnn_axis(o, dim, si.ndims, &axis));
	OPNN_TRY(opnn_input(o, self, &v[0]));
	OPNN_TRY(opnn_output(o, out, &v[1]));
	if (!si.nelems)
		return ACLNN_SUCCESS;
	nnop_view_align(&v[0], 1);
	nnop_view_align(&v[1], 1);
	attr.axis = htole32(axis);
	attr.log = htole32(log);
	return opnn_add(o, NPU_OPERATOR_SOFTMAX, &attr, sizeof(attr), 1, v);
}

aclnnStatus aclnnSoftmaxGetWorkspaceSize(const aclTensor *self, int64_t dim, aclTensor *out,
					 uint64_t *workspaceSize, aclOpExecutor **executor)
{
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, __func__, "Softmax"));
	return opnn_end(&o, softmax_build(&o, self, dim, out, false), workspaceSize, executor);
}

OPNN_LAUNCH(Softmax)

aclnnStatus aclnnLogSoftmaxGetWorkspaceSize(const aclTensor *self, int64_t dim, aclTensor *out,
					    uint64_t *workspaceSize, aclOpExecutor **executor)
{
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, __func__, "LogSoftmax"));
	return opnn_end(&o, softmax_build(&o, self, dim, out, true), workspaceSize, executor);
}

OPNN_LAUNCH(LogSoftmax)

/* ---- shared pieces ------------------------------------------------------------ */

/*
 * A norm operator's parameter (weight, bias, gamma, ...) as the card takes
 * it: float32 with exactly dims.  An absent one is value everywhere.
 */
static aclnnStatus norm_param(struct opnn *o, const aclTensor *t, const char *name,
			      unsigned int ndims, const int64_t *dims, double value,
			      struct nnop_view *v)
{
	unsigned int d;

	if (!t) {
		OPNN_TRY(nnop_view_scalar(o->x, value, NPU_DTYPE_F32, ndims, v));
		for (d = 0; d < ndims; d++)
			nnop_view_expand(v, d, dims[d]);
		return ACLNN_SUCCESS;
	}
	OPNN_TRY(opnn_check_tensor(o, t, name, OPNN_FLOATS));
	OPNN_TRY(opnn_check_dims(o, t, name, ndims, dims));
	OPNN_TRY(opnn_input(o, t, v));
	return v->card_dtype == NPU_DTYPE_F32 ? ACLNN_SUCCESS : opnn_to_work(o, v, NPU_DTYPE_F32);
}

static struct npu_attr_norm norm_attr(unsigned int axis, double eps)
{
	struct npu_attr_norm attr = { 0 };

	attr.axis = htole32(axis);
	attr.epsilon = opnn_f32_bits(eps);
	attr.act = opnn_no_act();
	return attr;
}

/*
 * mean and 1 / sqrt(variance + eps) of x (float32) over the axes in mask,
 * into float32 workspace with x's rank; mean may be NULL when only rstd is
 * wanted with the mean taken as 0 (RMS).
 */
static aclnnStatus norm_stats(struct opnn *o, const struct nnop_view *x, uint32_t mask,
			      double eps, struct nnop_view *mean, struct nnop_view *rstd)
{
	struct nnop_view d = opnn_work_like(o, x, NPU_DTYPE_F32);

	*rstd = opnn_work_reduced(o, x, mask, NPU_DTYPE_F32);
	if (mean) {
		*mean = opnn_work_reduced(o, x, mask, NPU_DTYPE_F32);
		OPNN_TRY(opnn_reduce(o, NPU_REDUCE_MEAN, mask, x, mean));
		OPNN_TRY(opnn_binary(o, NPU_BINARY_SUB, x, mean, &d));
		OPNN_TRY(opnn_binary(o, NPU_BINARY_MUL, &d, &d, &d));
	} else {
		OPNN_TRY(opnn_binary(o, NPU_BINARY_MUL, x, x, &d));
	}
	OPNN_TRY(opnn_reduce(o, NPU_REDUCE_MEAN, mask, &d, rstd));
	OPNN_TRY(opnn_binary_scalar(o, NPU_BINARY_ADD, rstd, eps, rstd));
	return opnn_unary(o, NPU_UNARY_RSQRT, 0, 0, rstd, rstd);
}

/*
 * A statistics output t (ndims dims) given v's values: v has t's dims plus
 * dims of 1 on the axes in squeezed, which t leaves out.
 */
static aclnnStatus stat_out(struct opnn *o, const aclTensor *t, const char *name,
			    const struct nnop_view *v, unsigned int ndims, const int64_t *dims,
			    uint32_t squeezed)
{
	struct nnop_view y;
	unsigned int d;

	OPNN_TRY(opnn_check_tensor(o, t, name, OPNN_FLOATS));
	OPNN_TRY(opnn_check_dims(o, t, name, ndims, dims));
	OPNN_TRY(opnn_output(o, t, &y));
	for (d = 0; d < v->ndims; d++)
		if (squeezed & (1u << d))
			nnop_view_unsqueeze(&y, d);
	return opnn_copy(o, v, &y);
}

/* x's dims with 1 on the axes in mask. */
static void dims_reduced(const struct nnop_tensor_info *x, uint32_t mask, int64_t *dims)
{
	unsigned int d;

	for (d = 0; d < x->ndims; d++)
		dims[d] = (mask >> d) & 1 ? 1 : x->dims[d];
}

static uint32_t trailing_mask(unsigned int from, unsigned int ndims)
{
	return ((1u << ndims) - 1) & ~((1u << from) - 1);
}

/* ---- LayerNorm ------------------------------------------------------------------- */

struct layer_norm_req {
	const aclTensor *input;
	const aclIntArray *shape;
	const aclTensor *weight, *bias;
	double eps;
	const aclTensor *out, *mean, *rstd;
};

static aclnnStatus layer_norm_axis(struct opnn *o, const struct layer_norm_req *r,
				   const struct nnop_tensor_info *xi, unsigned int *axis)
{
	uint64_t k;
	unsigned int d;

	if (!r->shape)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_NULLPTR, "normalizedShape is NULL");
	k = nnop_int_array_size(r->shape);
	if (k < 1 || k > xi->ndims)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "normalizedShape has %llu dims; input has %u",
				 (unsigned long long)k, xi->ndims);
	*axis = xi->ndims - (unsigned int)k;
	for (d = *axis; d < xi->ndims; d++)
		if (nnop_int_array_data(r->shape)[d - *axis] != xi->dims[d])
			return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
					 "normalizedShape[%u] is %lld but input's dim %u is %lld",
					 d - *axis,
					 (long long)nnop_int_array_data(r->shape)[d - *axis], d,
					 (long long)xi->dims[d]);
	return ACLNN_SUCCESS;
}

static aclnnStatus layer_norm_stats(struct opnn *o, const struct layer_norm_req *r,
				    const struct nnop_tensor_info *xi, const struct nnop_view *x,
				    unsigned int axis)
{
	uint32_t mask = trailing_mask(axis, xi->ndims);
	struct nnop_view xf = *x, mean, rstd;
	int64_t dims[NNOP_MAX_DIMS];

	dims_reduced(xi, mask, dims);
	if (!r->mean && !r->rstd)
		return ACLNN_SUCCESS;
	OPNN_TRY(opnn_dense(o, &xf, NPU_DTYPE_F32));
	OPNN_TRY(norm_stats(o, &xf, mask, r->eps, &mean, &rstd));
	if (r->mean)
		OPNN_TRY(stat_out(o, r->mean, "meanOutOptional", &mean, xi->ndims, dims, 0));
	if (r->rstd)
		OPNN_TRY(stat_out(o, r->rstd, "rstdOutOptional", &rstd, xi->ndims, dims, 0));
	return ACLNN_SUCCESS;
}

static aclnnStatus layer_norm_build(struct opnn *o, const struct layer_norm_req *r)
{
	struct npu_attr_norm attr;
	struct nnop_tensor_info xi;
	struct nnop_view v[4];
	unsigned int axis = 0;

	OPNN_TRY(opnn_check_tensor(o, r->input, "input", OPNN_FLOATS));
	OPNN_TRY(opnn_check_tensor(o, r->out, "out", OPNN_FLOATS));
	OPNN_TRY(opnn_check_same_dtype(o, r->input, "input", r->out, "out"));
	nnop_tensor_info(r->input, &xi);
	OPNN_TRY(opnn_check_dims(o, r->out, "out", xi.ndims, xi.dims));
	OPNN_TRY(layer_norm_axis(o, r, &xi, &axis));
	OPNN_TRY(opnn_input(o, r->input, &v[0]));
	OPNN_TRY(norm_param(o, r->weight, "weightOptional", xi.ndims - axis, &xi.dims[axis], 1.0,
			 &v[1]));
	OPNN_TRY(norm_param(o, r->bias, "biasOptional", xi.ndims - axis, &xi.dims[axis], 0.0,
			 &v[2]));
	OPNN_TRY(opnn_output(o, r->out, &v[3]));
	if (!xi.nelems)
		return ACLNN_SUCCESS;
	attr = norm_attr(axis, r->eps);
	OPNN_TRY(opnn_add(o, NPU_OPERATOR_LAYERNORM, &attr, sizeof(attr), 3, v));
	return layer_norm_stats(o, r, &xi, &v[0], axis);
}

aclnnStatus aclnnLayerNormGetWorkspaceSize(const aclTensor *input, const aclIntArray *normalizedShape,
					   const aclTensor *weightOptional,
					   const aclTensor *biasOptional, double eps, aclTensor *out,
					   aclTensor *meanOutOptional, aclTensor *rstdOutOptional,
					   uint64_t *workspaceSize, aclOpExecutor **executor)
{
	const struct layer_norm_req r = { input, normalizedShape, weightOptional, biasOptional,
					  eps, out, meanOutOptional, rstdOutOptional };
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, __func__, "LayerNorm"));
	return opnn_end(&o, layer_norm_build(&o, &r), workspaceSize, executor);
}

OPNN_LAUNCH(LayerNorm)

/* ---- RmsNorm, AddRmsNorm --------------------------------------------------------- */

/* An RMS norm's gamma, outputs and the axes it normalizes over. */
struct rms_norm_plan {
	struct nnop_view g, y, rstd;
	unsigned int axis;
	bool with_rstd;
	int64_t rstd_dims[NNOP_MAX_DIMS];
};

/*
 * rstdOut has x's rank with the normalized dims 1 (the vendor's shape), or
 * lacks them (ggml's CANN backend passes x's leading dims only).
 */
static aclnnStatus rms_norm_rstd(struct opnn *o, const struct nnop_tensor_info *xi,
				 const aclTensor *rstd_out, struct rms_norm_plan *p)
{
	struct nnop_tensor_info ri;
	unsigned int d;

	nnop_tensor_info(rstd_out, &ri);
	if (!p->axis || ri.ndims != p->axis ||
	    memcmp(ri.dims, p->rstd_dims, p->axis * sizeof(*ri.dims))) {
		OPNN_TRY(opnn_check_dims(o, rstd_out, "rstdOut", xi->ndims, p->rstd_dims));
		return opnn_output(o, rstd_out, &p->rstd);
	}
	OPNN_TRY(opnn_output(o, rstd_out, &p->rstd));
	for (d = p->axis; d < xi->ndims; d++)
		nnop_view_unsqueeze(&p->rstd, d);
	return ACLNN_SUCCESS;
}

/*
 * Checks gamma, yOut and rstdOut against x's shape xi and names the outputs
 * in the vendor's order (yOut, then rstdOut).
 */
static aclnnStatus rms_norm_outputs(struct opnn *o, const struct nnop_tensor_info *xi,
				    int x_dtype, const aclTensor *gamma, const aclTensor *y_out,
				    const aclTensor *rstd_out, struct rms_norm_plan *p)
{
	struct nnop_tensor_info gi;

	OPNN_TRY(opnn_check_tensor(o, gamma, "gamma", OPNN_FLOATS));
	nnop_tensor_info(gamma, &gi);
	if (!gi.ndims || gi.ndims > xi->ndims ||
	    memcmp(gi.dims, &xi->dims[xi->ndims - gi.ndims], gi.ndims * sizeof(*gi.dims)))
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "gamma's shape must be the last %u dims of x's", gi.ndims);
	p->axis = xi->ndims - gi.ndims;
	OPNN_TRY(norm_param(o, gamma, "gamma", gi.ndims, gi.dims, 1.0, &p->g));
	OPNN_TRY(opnn_check_tensor(o, y_out, "yOut", OPNN_FLOATS));
	OPNN_TRY(opnn_check_dims(o, y_out, "yOut", xi->ndims, xi->dims));
	OPNN_TRY(opnn_output(o, y_out, &p->y));
	if (p->y.card_dtype != x_dtype)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "yOut's type must be x's");
	dims_reduced(xi, trailing_mask(p->axis, xi->ndims), p->rstd_dims);
	p->with_rstd = rstd_out != NULL;
	if (!rstd_out)
		return ACLNN_SUCCESS;
	OPNN_TRY(opnn_check_tensor(o, rstd_out, "rstdOut", OPNN_FLOATS));
	return rms_norm_rstd(o, xi, rstd_out, p);
}

/*
 * yOut = x / sqrt(mean(x^2) + eps) * gamma on the card's RMSNORM, and
 * rstdOut, which RMSNORM does not return, composed of reductions; x is a
 * view of the input (or of AddRmsNorm's sum), xi its shape.
 */
static aclnnStatus rms_norm_compute(struct opnn *o, const struct nnop_tensor_info *xi,
				    const struct nnop_view *x, double eps,
				    const struct rms_norm_plan *p)
{
	struct npu_attr_norm attr = norm_attr(p->axis, eps);
	struct nnop_view v[3] = { *x, p->g, p->y }, xf = *x, rstd;

	if (!xi->nelems)
		return ACLNN_SUCCESS;
	OPNN_TRY(opnn_add(o, NPU_OPERATOR_RMSNORM, &attr, sizeof(attr), 2, v));
	if (!p->with_rstd)
		return ACLNN_SUCCESS;
	OPNN_TRY(opnn_dense(o, &xf, NPU_DTYPE_F32));
	OPNN_TRY(norm_stats(o, &xf, trailing_mask(p->axis, xi->ndims), eps, NULL, &rstd));
	return opnn_copy(o, &rstd, &p->rstd);
}

static aclnnStatus rms_norm_build(struct opnn *o, const aclTensor *x, const aclTensor *gamma,
				  double eps, const aclTensor *y, const aclTensor *rstd)
{
	struct nnop_tensor_info xi;
	struct rms_norm_plan p;
	struct nnop_view xv;

	OPNN_TRY(opnn_check_tensor(o, x, "x", OPNN_FLOATS));
	nnop_tensor_info(x, &xi);
	OPNN_TRY(opnn_input(o, x, &xv));
	OPNN_TRY(rms_norm_outputs(o, &xi, xv.card_dtype, gamma, y, rstd, &p));
	return rms_norm_compute(o, &xi, &xv, eps, &p);
}

aclnnStatus aclnnRmsNormGetWorkspaceSize(const aclTensor *x, const aclTensor *gamma, double epsilon,
					 const aclTensor *yOut, const aclTensor *rstdOut,
					 uint64_t *workspaceSize, aclOpExecutor **executor)
{
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, __func__, "RmsNorm"));
	return opnn_end(&o, rms_norm_build(&o, x, gamma, epsilon, yOut, rstdOut), workspaceSize,
			executor);
}

OPNN_LAUNCH(RmsNorm)

static aclnnStatus add_rms_norm_build(struct opnn *o, const aclTensor *x1, const aclTensor *x2,
				      const aclTensor *gamma, double eps, const aclTensor *y,
				      const aclTensor *rstd, const aclTensor *x_out)
{
	struct nnop_view a, b, sum;
	struct nnop_tensor_info xi;
	struct rms_norm_plan p;

	OPNN_TRY(opnn_check_tensor(o, x1, "x1", OPNN_FLOATS));
	OPNN_TRY(opnn_check_tensor(o, x2, "x2", OPNN_FLOATS));
	OPNN_TRY(opnn_check_tensor(o, x_out, "xOut", OPNN_FLOATS));
	OPNN_TRY(opnn_check_same_dtype(o, x1, "x1", x2, "x2"));
	OPNN_TRY(opnn_check_same_dtype(o, x1, "x1", x_out, "xOut"));
	nnop_tensor_info(x1, &xi);
	OPNN_TRY(opnn_check_dims(o, x2, "x2", xi.ndims, xi.dims));
	OPNN_TRY(opnn_check_dims(o, x_out, "xOut", xi.ndims, xi.dims));
	OPNN_TRY(opnn_input(o, x1, &a));
	OPNN_TRY(opnn_input(o, x2, &b));
	OPNN_TRY(rms_norm_outputs(o, &xi, a.card_dtype, gamma, y, rstd, &p));
	OPNN_TRY(opnn_output(o, x_out, &sum));
	if (xi.nelems)
		OPNN_TRY(opnn_binary(o, NPU_BINARY_ADD, &a, &b, &sum));
	return rms_norm_compute(o, &xi, &sum, eps, &p);
}

aclnnStatus aclnnAddRmsNormGetWorkspaceSize(const aclTensor *x1, const aclTensor *x2,
					    const aclTensor *gamma, double epsilon, aclTensor *yOut,
					    aclTensor *rstdOut, aclTensor *xOut,
					    uint64_t *workspaceSize, aclOpExecutor **executor)
{
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, __func__, "AddRmsNorm"));
	return opnn_end(&o, add_rms_norm_build(&o, x1, x2, gamma, epsilon, yOut, rstdOut, xOut),
			workspaceSize, executor);
}

OPNN_LAUNCH(AddRmsNorm)

/* ---- GroupNorm -------------------------------------------------------------------- */

struct group_norm_req {
	const aclTensor *self, *gamma, *beta;
	int64_t n, c, hxw, group;
	double eps;
	const aclTensor *out, *mean, *rstd;
};

static aclnnStatus group_norm_check(struct opnn *o, const struct group_norm_req *r,
				    const struct nnop_tensor_info *xi)
{
	int64_t hxw = 1;
	unsigned int d;

	if (xi->ndims < 2)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "self has %u dims; it needs (N, C, ...)",
				 xi->ndims);
	for (d = 2; d < xi->ndims; d++)
		hxw *= xi->dims[d];
	if (xi->dims[0] != r->n || xi->dims[1] != r->c || hxw != r->hxw)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "N %lld, C %lld, HxW %lld do not match self's (%lld, %lld, %lld)",
				 (long long)r->n, (long long)r->c, (long long)r->hxw,
				 (long long)xi->dims[0], (long long)xi->dims[1], (long long)hxw);
	if (r->group <= 0 || r->c % r->group)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "group %lld must be positive and divide C (%lld)",
				 (long long)r->group, (long long)r->c);
	return ACLNN_SUCCESS;
}

/*
 * meanOut and rstdOut, which GROUPNORM does not return: per (n, group) over
 * x seen densely as (N, group, rest), in float32.
 */
static aclnnStatus group_norm_stats(struct opnn *o, const struct group_norm_req *r,
				    const struct nnop_view *x)
{
	int64_t dims[2] = { r->n, r->group };
	struct nnop_view xf = *x, mean, rstd;

	OPNN_TRY(opnn_dense(o, &xf, NPU_DTYPE_F32));
	xf.ndims = 3;
	xf.dims[0] = r->n;
	xf.dims[1] = r->group;
	xf.dims[2] = r->c / r->group * r->hxw;
	opnn_view_set_dense(&xf);
	OPNN_TRY(norm_stats(o, &xf, 1u << 2, r->eps, &mean, &rstd));
	if (r->mean)
		OPNN_TRY(stat_out(o, r->mean, "meanOut", &mean, 2, dims, 1u << 2));
	if (r->rstd)
		OPNN_TRY(stat_out(o, r->rstd, "rstdOut", &rstd, 2, dims, 1u << 2));
	return ACLNN_SUCCESS;
}

static aclnnStatus group_norm_build(struct opnn *o, const struct group_norm_req *r)
{
	struct npu_attr_groupnorm attr = { 0 };
	struct nnop_tensor_info xi;
	struct nnop_view v[4];

	OPNN_TRY(opnn_check_tensor(o, r->self, "self", OPNN_FLOATS));
	OPNN_TRY(opnn_check_tensor(o, r->out, "out", OPNN_FLOATS));
	OPNN_TRY(opnn_check_same_dtype(o, r->self, "self", r->out, "out"));
	nnop_tensor_info(r->self, &xi);
	OPNN_TRY(group_norm_check(o, r, &xi));
	OPNN_TRY(opnn_check_dims(o, r->out, "out", xi.ndims, xi.dims));
	OPNN_TRY(opnn_input(o, r->self, &v[0]));
	OPNN_TRY(norm_param(o, r->gamma, "gamma", 1, &r->c, 1.0, &v[1]));
	OPNN_TRY(norm_param(o, r->beta, "beta", 1, &r->c, 0.0, &v[2]));
	OPNN_TRY(opnn_output(o, r->out, &v[3]));
	if (!xi.nelems)
		return ACLNN_SUCCESS;
	attr.groups = htole32((uint32_t)r->group);
	attr.epsilon = opnn_f32_bits(r->eps);
	attr.act = opnn_no_act();
	OPNN_TRY(opnn_add(o, NPU_OPERATOR_GROUPNORM, &attr, sizeof(attr), 3, v));
	return r->mean || r->rstd ? group_norm_stats(o, r, &v[0]) : ACLNN_SUCCESS;
}

aclnnStatus aclnnGroupNormGetWorkspaceSize(const aclTensor *self, const aclTensor *gamma,
					   const aclTensor *beta, int64_t N, int64_t C, int64_t HxW,
					   int64_t group, double eps, aclTensor *out,
					   aclTensor *meanOut, aclTensor *rstdOut,
					   uint64_t *workspaceSize, aclOpExecutor **executor)
{
	const struct group_norm_req r = { self, gamma, beta, N, C, HxW, group, eps, out,
					  meanOut, rstdOut };
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, __func__, "GroupNorm"));
	return opnn_end(&o, group_norm_build(&o, &r), workspaceSize, executor);
}

OPNN_LAUNCH(GroupNorm)

/* ---- BatchNorm -------------------------------------------------------------------- */

struct batch_norm_req {
	const aclTensor *input, *weight, *bias, *running_mean, *running_var;
	bool training;
	double momentum, eps;
	const aclTensor *output, *save_mean, *save_invstd;
};

/* A (1, C, 1, ...) dense view seen as (C). */
static struct nnop_view channel_view(const struct nnop_view *v)
{
	struct nnop_view c = *v;

	c.ndims = 1;
	c.dims[0] = v->dims[1];
	c.strides[0] = 1;
	return c;
}

/* running = (1 - momentum) * running + momentum * batch, in float32. */
static aclnnStatus running_update(struct opnn *o, const aclTensor *t, const char *name,
				  const struct nnop_view *batch, double scale, double momentum)
{
	struct nnop_view run, w, b;

	if (!t)
		return ACLNN_SUCCESS;
	OPNN_TRY(opnn_check_tensor(o, t, name, OPNN_FLOATS));
	OPNN_TRY(opnn_check_dims(o, t, name, 1, batch->dims));
	OPNN_TRY(opnn_output(o, t, &run));
	w = run;
	OPNN_TRY(opnn_to_work(o, &w, NPU_DTYPE_F32));
	b = opnn_work_like(o, batch, NPU_DTYPE_F32);
	OPNN_TRY(opnn_binary_scalar(o, NPU_BINARY_MUL, batch, momentum * scale, &b));
	OPNN_TRY(opnn_binary_scalar(o, NPU_BINARY_MUL, &w, 1.0 - momentum, &w));
	OPNN_TRY(opnn_binary(o, NPU_BINARY_ADD, &w, &b, &w));
	return opnn_copy(o, &w, &run);
}

/*
 * Training: the batch's mean and biased variance over every axis but
 * the channels normalise, and are saved, and move the running averages
 * (the variance's unbiased).
 */
static aclnnStatus batch_norm_train(struct opnn *o, const struct batch_norm_req *r,
				    const struct nnop_tensor_info *xi, struct nnop_view *v)
{
	uint32_t mask = ((1u << xi->ndims) - 1) & ~2u;
	struct nnop_view xf = v[0], mean, var, rstd, save;
	double n = (double)xi->nelems / (double)xi->dims[1];
	struct npu_attr_norm attr = norm_attr(0, r->eps);
	struct nnop_view d;

	OPNN_TRY(opnn_dense(o, &xf, NPU_DTYPE_F32));
	mean = opnn_work_reduced(o, &xf, mask, NPU_DTYPE_F32);
	var = opnn_work_reduced(o, &xf, mask, NPU_DTYPE_F32);
	d = opnn_work_like(o, &xf, NPU_DTYPE_F32);
	OPNN_TRY(opnn_reduce(o, NPU_REDUCE_MEAN, mask, &xf, &mean));
	OPNN_TRY(opnn_binary(o, NPU_BINARY_SUB, &xf, &mean, &d));
	OPNN_TRY(opnn_binary(o, NPU_BINARY_MUL, &d, &d, &d));
	OPNN_TRY(opnn_reduce(o, NPU_REDUCE_MEAN, mask, &d, &var));
	mean = channel_view(&mean);
	var = channel_view(&var);
	v[3] = mean;
	v[4] = var;
	OPNN_TRY(opnn_add(o, NPU_OPERATOR_BATCHNORM, &attr, sizeof(attr), 5, v));
	if (r->save_mean) {
		OPNN_TRY(opnn_check_tensor(o, r->save_mean, "saveMean", OPNN_FLOATS));
		OPNN_TRY(opnn_check_dims(o, r->save_mean, "saveMean", 1, mean.dims));
		OPNN_TRY(opnn_output(o, r->save_mean, &save));
		OPNN_TRY(opnn_copy(o, &mean, &save));
	}
	if (r->save_invstd) {
		rstd = opnn_work_like(o, &var, NPU_DTYPE_F32);
		OPNN_TRY(opnn_binary_scalar(o, NPU_BINARY_ADD, &var, r->eps, &rstd));
		OPNN_TRY(opnn_unary(o, NPU_UNARY_RSQRT, 0, 0, &rstd, &rstd));
		OPNN_TRY(opnn_check_tensor(o, r->save_invstd, "saveInvstd", OPNN_FLOATS));
		OPNN_TRY(opnn_check_dims(o, r->save_invstd, "saveInvstd", 1, rstd.dims));
		OPNN_TRY(opnn_output(o, r->save_invstd, &save));
		OPNN_TRY(opnn_copy(o, &rstd, &save));
	}
	OPNN_TRY(running_update(o, r->running_mean, "runningMean", &mean, 1.0, r->momentum));
	return running_update(o, r->running_var, "runningVar", &var,
			      n > 1 ? n / (n - 1) : 1.0, r->momentum);
}

static aclnnStatus batch_norm_build(struct opnn *o, const struct batch_norm_req *r)
{
	struct npu_attr_norm attr = norm_attr(0, r->eps);
	struct nnop_tensor_info xi;
	struct nnop_view v[6];	/* x, weight, bias, mean, var, then y */
	int64_t c;

	OPNN_TRY(opnn_check_tensor(o, r->input, "input", OPNN_FLOATS));
	OPNN_TRY(opnn_check_tensor(o, r->output, "output", OPNN_FLOATS));
	OPNN_TRY(opnn_check_same_dtype(o, r->input, "input", r->output, "output"));
	OPNN_TRY(opnn_check_rank(o, r->input, "input", 2, 5));
	nnop_tensor_info(r->input, &xi);
	OPNN_TRY(opnn_check_dims(o, r->output, "output", xi.ndims, xi.dims));
	c = xi.dims[1];
	if (!r->training && (!r->running_mean || !r->running_var))
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_NULLPTR,
				 "inference needs runningMean and runningVar");
	OPNN_TRY(opnn_input(o, r->input, &v[0]));
	OPNN_TRY(norm_param(o, r->weight, "weight", 1, &c, 1.0, &v[1]));
	OPNN_TRY(norm_param(o, r->bias, "bias", 1, &c, 0.0, &v[2]));
	if (!r->training) {
		OPNN_TRY(norm_param(o, r->running_mean, "runningMean", 1, &c, 0.0, &v[3]));
		OPNN_TRY(norm_param(o, r->running_var, "runningVar", 1, &c, 1.0, &v[4]));
	}
	OPNN_TRY(opnn_output(o, r->output, &v[5]));
	if (!xi.nelems)
		return ACLNN_SUCCESS;
	if (r->training)
		return batch_norm_train(o, r, &xi, v);
	return opnn_add(o, NPU_OPERATOR_BATCHNORM, &attr, sizeof(attr), 5, v);
}

aclnnStatus aclnnBatchNormGetWorkspaceSize(const aclTensor *input, const aclTensor *weight,
					   const aclTensor *bias, aclTensor *runningMean,
					   aclTensor *runningVar, bool training, double momentum,
					   double eps, aclTensor *output, aclTensor *saveMean,
					   aclTensor *saveInvstd, uint64_t *workspaceSize,
					   aclOpExecutor **executor)
{
	const struct batch_norm_req r = { input, weight, bias, runningMean, runningVar, training,
					  momentum, eps, output, saveMean, saveInvstd };
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, __func__, "BatchNorm"));
	return opnn_end(&o, batch_norm_build(&o, &r), workspaceSize, executor);
}

OPNN_LAUNCH(BatchNorm)
