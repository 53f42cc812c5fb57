// SPDX-License-Identifier: MIT
/*
 * Index operators: GatherV2, IndexSelect and Embedding are the card's
 * GATHER, Gather (take along a dim) its GATHER_ELEMENTS, IndexCopy and
 * Scatter its SCATTER into a copy of self (or into selfRef itself),
 * InplaceScatterUpdate a SCATTER at indices computed on the card, and
 * IndexFillTensor, whose indices are on the host, a fill of each slice.
 * Indices are INT32 or INT64, negative ones counting from the end of the
 * dim; the card checks every one before it writes, and one out of range
 * fails the launch's stream with out untouched.  Data is moved as it is,
 * so every data type the card has is taken.
 */
#include <endian.h>

#include "aclnnop/aclnn_embedding.h"
#include "aclnnop/aclnn_gather.h"
#include "aclnnop/aclnn_gather_v2.h"
#include "aclnnop/aclnn_index_copy.h"
#include "aclnnop/aclnn_index_fill_tensor.h"
#include "aclnnop/aclnn_index_select.h"
#include "aclnnop/aclnn_scatter.h"
#include "aclnnop/aclnn_scatter_update.h"
#include "opnn.h"

#define INDEX_TYPES		(OPNN_DT(ACL_INT32) | OPNN_DT(ACL_INT64))

/* Runs build between opnn_begin() and opnn_end(), as every operator does. */
#define INDEX_OP(name, call)							\
	do {									\
		struct opnn o;							\
										\
		NNOP_CHECK_NOTNULL(workspaceSize);				\
		NNOP_CHECK_NOTNULL(executor);					\
		OPNN_TRY(opnn_begin(&o, __func__, name));			\
		return opnn_end(&o, call, workspaceSize, executor);		\
	} while (0)

/* ---- GatherV2, IndexSelect, Embedding: GATHER ---------------------------- */

enum gather_kind {
	GATHER_V2,		/* out: self's dims, dim replaced by index's dims */
	GATHER_SELECT,		/* index of one dim (or none): out keeps self's rank */
};

static aclnnStatus gather_out_dims(struct opnn *o, enum gather_kind kind,
				   const struct nnop_tensor_info *si,
				   const struct nnop_tensor_info *ii, unsigned int axis,
				   const aclTensor *out)
{
	int64_t want[NNOP_MAX_DIMS];
	unsigned int d, n = 0;

	if (kind == GATHER_SELECT && ii->ndims > 1)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "index has %u dims; at most 1",
				 ii->ndims);
	if (si->ndims - 1 + (kind == GATHER_SELECT ? 1 : ii->ndims) > NNOP_MAX_DIMS)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "out would have more than %d dims",
				 NNOP_MAX_DIMS);
	for (d = 0; d < axis; d++)
		want[n++] = si->dims[d];
	if (kind == GATHER_SELECT)
		want[n++] = ii->nelems;
	else
		for (d = 0; d < ii->ndims; d++)
			want[n++] = ii->dims[d];
	for (d = axis + 1; d < si->ndims; d++)
		want[n++] = si->dims[d];
	return opnn_check_dims(o, out, "out", n, want);
}

static aclnnStatus gather_build(struct opnn *o, enum gather_kind kind, const aclTensor *self,
				int64_t dim, const aclTensor *index, const aclTensor *out)
{
	struct nnop_tensor_info si, ii;
	struct nnop_view v[3];
	struct npu_attr_gather attr = { 0 };
	unsigned int axis;

	OPNN_TRY(opnn_check_tensor(o, self, "self", OPNN_ALL_CARD));
	OPNN_TRY(opnn_check_tensor(o, index, "index", INDEX_TYPES));
	OPNN_TRY(opnn_check_tensor(o, out, "out", OPNN_ALL_CARD));
	OPNN_TRY(opnn_check_same_dtype(o, self, "self", out, "out"));
	nnop_tensor_info(self, &si);
	nnop_tensor_info(index, &ii);
	if (!si.ndims)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "self is a scalar; it has no dim");
	OPNN_TRY(opnn_axis(o, dim, si.ndims, &axis));
	OPNN_TRY(gather_out_dims(o, kind, &si, &ii, axis, out));
	OPNN_TRY(opnn_input(o, self, &v[0]));
	OPNN_TRY(opnn_input(o, index, &v[1]));
	OPNN_TRY(opnn_output(o, out, &v[2]));
	if (!opnn_view_nelems(&v[2]))
		return ACLNN_SUCCESS;
	if (!si.dims[axis])
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "self's dim %u has no elements for index to select", axis);
	if (kind == GATHER_SELECT && !ii.ndims)
		nnop_view_unsqueeze(&v[1], 0);
	attr.axis = htole32(axis);
	return opnn_add(o, NPU_OPERATOR_GATHER, &attr, sizeof(attr), 2, v);
}

aclnnStatus aclnnGatherV2GetWorkspaceSize(const aclTensor *self, int64_t dim,
					  const aclTensor *index, aclTensor *out,
					  uint64_t *workspaceSize, aclOpExecutor **executor)
{
	INDEX_OP("GatherV2", gather_build(&o, GATHER_V2, self, dim, index, out));
}

OPNN_LAUNCH(GatherV2)

aclnnStatus aclnnIndexSelectGetWorkspaceSize(const aclTensor *self, int64_t dim,
					     const aclTensor *index, aclTensor *out,
					     uint64_t *workspaceSize, aclOpExecutor **executor)
{
	INDEX_OP("IndexSelect", gather_build(&o, GATHER_SELECT, self, dim, index, out));
}

OPNN_LAUNCH(IndexSelect)

/* weight's rows by indices of any shape: out is indices' dims, then weight's row. */
static aclnnStatus embedding_build(struct opnn *o, const aclTensor *weight,
				   const aclTensor *indices, const aclTensor *out)
{
	struct nnop_tensor_info wi;

	OPNN_TRY(opnn_check_tensor(o, weight, "weight", OPNN_ALL_CARD));
	nnop_tensor_info(weight, &wi);
	if (wi.ndims != 2)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "weight has %u dims; it must have 2",
				 wi.ndims);
	return gather_build(o, GATHER_V2, weight, 0, indices, out);
}

aclnnStatus aclnnEmbeddingGetWorkspaceSize(const aclTensor *weight, const aclTensor *indices,
					   const aclTensor *out, uint64_t *workspaceSize,
					   aclOpExecutor **executor)
{
	INDEX_OP("Embedding", embedding_build(&o, weight, indices, out));
}

OPNN_LAUNCH(Embedding)

/* ---- Gather: GATHER_ELEMENTS ---------------------------------------------- */

static aclnnStatus take_along_build(struct opnn *o, const aclTensor *self, int64_t dim,
				    const aclTensor *index, const aclTensor *out)
{
	struct nnop_tensor_info si, ii;
	struct npu_attr_gather attr = { 0 };
	struct nnop_view v[3];
	unsigned int axis, d;

	OPNN_TRY(opnn_check_tensor(o, self, "self", OPNN_ALL_CARD));
	OPNN_TRY(opnn_check_tensor(o, index, "index", INDEX_TYPES));
	OPNN_TRY(opnn_check_tensor(o, out, "out", OPNN_ALL_CARD));
	OPNN_TRY(opnn_check_same_dtype(o, self, "self", out, "out"));
	nnop_tensor_info(self, &si);
	nnop_tensor_info(index, &ii);
	OPNN_TRY(opnn_axis(o, dim, si.ndims, &axis));
	if (ii.ndims != si.ndims)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "index has %u dims; self has %u",
				 ii.ndims, si.ndims);
	for (d = 0; d < si.ndims; d++)
		if (d != axis && ii.dims[d] > si.dims[d])
			return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
					 "index's dim %u (%lld) is larger than self's (%lld)", d,
					 (long long)ii.dims[d], (long long)si.dims[d]);
	OPNN_TRY(opnn_check_dims(o, out, "out", ii.ndims, ii.dims));
	OPNN_TRY(opnn_input(o, self, &v[0]));
	OPNN_TRY(opnn_input(o, index, &v[1]));
	OPNN_TRY(opnn_output(o, out, &v[2]));
	if (!ii.nelems)
		return ACLNN_SUCCESS;
	/* the card's operators take a scalar as one element of rank 1 */
	nnop_view_align(&v[0], 1);
	nnop_view_align(&v[1], 1);
	nnop_view_align(&v[2], 1);
	if (!v[0].dims[axis])
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "self's dim %u has no elements for index to select", axis);
	attr.axis = htole32(axis);
	return opnn_add(o, NPU_OPERATOR_GATHER_ELEMENTS, &attr, sizeof(attr), 2, v);
}

aclnnStatus aclnnGatherGetWorkspaceSize(const aclTensor *self, const int64_t dim,
					const aclTensor *index, aclTensor *out,
					uint64_t *workspaceSize, aclOpExecutor **executor)
{
	INDEX_OP("Gather", take_along_build(&o, self, dim, index, out));
}

OPNN_LAUNCH(Gather)

/* ---- IndexCopy, Scatter, ScatterValue: SCATTER ---------------------------- */

struct scatter_req {
	const aclTensor *self;
	const aclTensor *out;		/* self for the Inplace forms */
	int64_t dim;
	const aclTensor *index;
	const aclTensor *src;		/* or NULL, and then value */
	const aclScalar *value;
	int64_t reduce;			/* aclnnScatter's: 0 replace, 1 add, 2 multiply */
	unsigned int mode;		/* enum npu_scatter_mode */
};

static bool scatter_inplace(const struct scatter_req *r)
{
	return r->self == r->out;
}

static const char *scatter_self_name(const struct scatter_req *r)
{
	return scatter_inplace(r) ? "selfRef" : "self";
}

/* index_copy: index of one dim, source self's dims with dim's being index's count. */
static aclnnStatus scatter_check_slices(struct opnn *o, const struct nnop_tensor_info *si,
					const struct nnop_tensor_info *ii,
					const struct nnop_tensor_info *ri, unsigned int axis)
{
	int64_t want[NNOP_MAX_DIMS];

	if (ii->ndims > 1)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "index has %u dims; at most 1",
				 ii->ndims);
	memcpy(want, si->dims, sizeof(want));
	want[axis] = ii->nelems;
	if (ri->ndims != si->ndims || memcmp(want, ri->dims, si->ndims * sizeof(*want)))
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "source's dims must be self's, dim %u being index's %lld", axis,
				 (long long)ii->nelems);
	return ACLNN_SUCCESS;
}

/* scatter: index self's rank, within src, and within self off dim. */
static aclnnStatus scatter_check_elements(struct opnn *o, const struct nnop_tensor_info *si,
					  const struct nnop_tensor_info *ii,
					  const struct nnop_tensor_info *ri, unsigned int axis)
{
	unsigned int d;

	if (ii->ndims != si->ndims || (ri && ri->ndims != si->ndims))
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "index and src must have self's %u dims", si->ndims);
	for (d = 0; d < si->ndims; d++) {
		if (d != axis && ii->dims[d] > si->dims[d])
			return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
					 "index's dim %u (%lld) is larger than self's (%lld)", d,
					 (long long)ii->dims[d], (long long)si->dims[d]);
		if (ri && ii->dims[d] > ri->dims[d])
			return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
					 "index's dim %u (%lld) is larger than src's (%lld)", d,
					 (long long)ii->dims[d], (long long)ri->dims[d]);
	}
	return ACLNN_SUCCESS;
}

static aclnnStatus scatter_check(struct opnn *o, const struct scatter_req *r, unsigned int *axis)
{
	struct nnop_tensor_info si, ii, ri;
	const char *src_name = r->mode == NPU_SCATTER_SLICES ? "source" : "src";

	OPNN_TRY(opnn_check_tensor(o, r->self, scatter_self_name(r), OPNN_ALL_CARD));
	OPNN_TRY(opnn_check_tensor(o, r->index, "index", INDEX_TYPES));
	if (!scatter_inplace(r)) {
		OPNN_TRY(opnn_check_tensor(o, r->out, "out", OPNN_ALL_CARD));
		OPNN_TRY(opnn_check_same_dtype(o, r->self, "self", r->out, "out"));
	}
	nnop_tensor_info(r->self, &si);
	nnop_tensor_info(r->index, &ii);
	if (!scatter_inplace(r))
		OPNN_TRY(opnn_check_dims(o, r->out, "out", si.ndims, si.dims));
	if (r->src) {
		OPNN_TRY(opnn_check_tensor(o, r->src, src_name, OPNN_ALL_CARD));
		OPNN_TRY(opnn_check_same_dtype(o, r->self, scatter_self_name(r), r->src,
					       src_name));
		nnop_tensor_info(r->src, &ri);
	} else if (!r->value) {
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_NULLPTR, "value is NULL");
	}
	if (r->reduce < 0 || r->reduce > 2)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "reduce is %lld; 0 (replace), 1 (add) or 2 (multiply)",
				 (long long)r->reduce);
	if (!si.ndims)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "%s is a scalar; it has no dim",
				 scatter_self_name(r));
	OPNN_TRY(opnn_axis(o, r->dim, si.ndims, axis));
	if (r->mode == NPU_SCATTER_SLICES)
		return scatter_check_slices(o, &si, &ii, &ri, *axis);
	return scatter_check_elements(o, &si, &ii, r->src ? &ri : NULL, *axis);
}

static aclnnStatus scatter_build(struct opnn *o, const struct scatter_req *r)
{
	static const uint32_t reduces[] = { NPU_SCATTER_REPLACE, NPU_SCATTER_ADD,
					    NPU_SCATTER_MUL };
	struct npu_attr_scatter attr = { 0 };
	struct nnop_view self, v[3];
	unsigned int axis, d;

	OPNN_TRY(scatter_check(o, r, &axis));
	if (!scatter_inplace(r))
		OPNN_TRY(opnn_input(o, r->self, &self));
	OPNN_TRY(opnn_input(o, r->index, &v[0]));
	if (r->src)
		OPNN_TRY(opnn_input(o, r->src, &v[1]));
	OPNN_TRY(opnn_output(o, r->out, &v[2]));
	if (!opnn_view_nelems(&v[2]))
		return ACLNN_SUCCESS;
	if (!scatter_inplace(r))
		OPNN_TRY(opnn_copy(o, &self, &v[2]));
	if (!opnn_view_nelems(&v[0]))
		return ACLNN_SUCCESS;
	if (r->mode == NPU_SCATTER_SLICES && !v[0].ndims)
		nnop_view_unsqueeze(&v[0], 0);
	if (!r->src) {
		OPNN_TRY(nnop_view_scalar(o->x, nnop_scalar_f64(r->value), v[2].card_dtype,
					  v[0].ndims, &v[1]));
		for (d = 0; d < v[0].ndims; d++)
			nnop_view_expand(&v[1], d, v[0].dims[d]);
	}
	attr.axis = htole32(axis);
	attr.mode = htole32(r->mode);
	attr.reduce = htole32(reduces[r->reduce]);
	return opnn_add(o, NPU_OPERATOR_SCATTER, &attr, sizeof(attr), 2, v);
}

aclnnStatus aclnnIndexCopyGetWorkspaceSize(aclTensor *selfRef, int64_t dim,
					   const aclTensor *index, const aclTensor *source,
					   aclTensor *outRef, uint64_t *workspaceSize,
					   aclOpExecutor **executor)
{
	const struct scatter_req r = { .self = selfRef, .out = outRef, .dim = dim,
				       .index = index, .src = source,
				       .mode = NPU_SCATTER_SLICES };

	INDEX_OP("IndexCopy", scatter_build(&o, &r));
}

OPNN_LAUNCH(IndexCopy)

aclnnStatus aclnnInplaceIndexCopyGetWorkspaceSize(aclTensor *selfRef, int64_t dim,
						  const aclTensor *index, const aclTensor *source,
						  uint64_t *workspaceSize, aclOpExecutor **executor)
{
	const struct scatter_req r = { .self = selfRef, .out = selfRef, .dim = dim,
				       .index = index, .src = source,
				       .mode = NPU_SCATTER_SLICES };

	INDEX_OP("InplaceIndexCopy", scatter_build(&o, &r));
}

OPNN_LAUNCH(InplaceIndexCopy)

aclnnStatus aclnnScatterGetWorkspaceSize(const aclTensor *self, int64_t dim,
					 const aclTensor *index, const aclTensor *src,
					 int64_t reduce, aclTensor *out, uint64_t *workspaceSize,
					 aclOpExecutor **executor)
{
	const struct scatter_req r = { .self = self, .out = out, .dim = dim, .index = index,
				       .src = src, .reduce = reduce,
				       .mode = NPU_SCATTER_ELEMENTS };

	INDEX_OP("Scatter", scatter_build(&o, &r));
}

OPNN_LAUNCH(Scatter)

aclnnStatus aclnnScatterValueGetWorkspaceSize(const aclTensor *self, int64_t dim,
					      const aclTensor *index, const aclScalar *value,
					      int64_t reduce, aclTensor *out,
					      uint64_t *workspaceSize, aclOpExecutor **executor)
{
	const struct scatter_req r = { .self = self, .out = out, .dim = dim, .index = index,
				       .value = value, .reduce = reduce,
				       .mode = NPU_SCATTER_ELEMENTS };

	INDEX_OP("ScatterValue", scatter_build(&o, &r));
}

OPNN_LAUNCH(ScatterValue)

aclnnStatus aclnnInplaceScatterGetWorkspaceSize(aclTensor *selfRef, int64_t dim,
						const aclTensor *index, const aclTensor *src,
						int64_t reduce, uint64_t *workspaceSize,
						aclOpExecutor **executor)
{
	const struct scatter_req r = { .self = selfRef, .out = selfRef, .dim = dim,
				       .index = index, .src = src, .reduce = reduce,
				       .mode = NPU_SCATTER_ELEMENTS };

	INDEX_OP("InplaceScatter", scatter_build(&o, &r));
}

OPNN_LAUNCH(InplaceScatter)

aclnnStatus aclnnInplaceScatterValueGetWorkspaceSize(aclTensor *selfRef, int64_t dim,
						     const aclTensor *index,
						     const aclScalar *value, int64_t reduce,
						     uint64_t *workspaceSize,
						     aclOpExecutor **executor)
{
	const struct scatter_req r = { .self = selfRef, .out = selfRef, .dim = dim,
				       .index = index, .value = value, .reduce = reduce,
				       .mode = NPU_SCATTER_ELEMENTS };

	INDEX_OP("InplaceScatterValue", scatter_build(&o, &r));
}

OPNN_LAUNCH(InplaceScatterValue)

/* ---- IndexFillTensor: a fill of each slice the host's indices name --------- */

static aclnnStatus index_fill_build(struct opnn *o, const aclTensor *self, int64_t dim,
				    const aclIntArray *index, const aclScalar *value,
				    const aclTensor *out)
{
	bool inplace = self == out;
	const char *self_name = inplace ? "selfRef" : "self";
	struct nnop_tensor_info si;
	struct nnop_view x, y, slice;
	unsigned int axis;
	uint64_t i, n;

	OPNN_TRY(opnn_check_tensor(o, self, self_name, OPNN_ALL_CARD));
	if (!inplace) {
		OPNN_TRY(opnn_check_tensor(o, out, "out", OPNN_ALL_CARD));
		OPNN_TRY(opnn_check_same_dtype(o, self, "self", out, "out"));
	}
	if (!index)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_NULLPTR, "index is NULL");
	if (!value)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_NULLPTR, "value is NULL");
	nnop_tensor_info(self, &si);
	if (!inplace)
		OPNN_TRY(opnn_check_dims(o, out, "out", si.ndims, si.dims));
	OPNN_TRY(opnn_axis(o, dim, si.ndims, &axis));
	n = nnop_int_array_size(index);
	for (i = 0; i < n; i++) {
		int64_t at = nnop_int_array_data(index)[i], len = si.ndims ? si.dims[axis] : 1;

		if (at < -len || at >= len)
			return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
					 "index %lld is out of range for dim %u of %lld elements",
					 (long long)at, axis, (long long)len);
	}
	if (!inplace)
		OPNN_TRY(opnn_input(o, self, &x));
	OPNN_TRY(opnn_output(o, out, &y));
	if (!si.nelems)
		return ACLNN_SUCCESS;
	if (!inplace)
		OPNN_TRY(opnn_copy(o, &x, &y));
	nnop_view_align(&y, 1);
	for (i = 0; i < n; i++) {
		int64_t at = nnop_int_array_data(index)[i];

		slice = y;
		nnop_view_narrow(&slice, axis, at < 0 ? at + y.dims[axis] : at, 1, 1);
		OPNN_TRY(opnn_fill(o, &slice, nnop_scalar_f64(value)));
	}
	return ACLNN_SUCCESS;
}

aclnnStatus aclnnIndexFillTensorGetWorkspaceSize(const aclTensor *self, int64_t dim,
						 const aclIntArray *index, const aclScalar *value,
						 aclTensor *out, uint64_t *workspaceSize,
						 aclOpExecutor **executor)
{
	INDEX_OP("IndexFillTensor", index_fill_build(&o, self, dim, index, value, out));
}

OPNN_LAUNCH(IndexFillTensor)

aclnnStatus aclnnInplaceIndexFillTensorGetWorkspaceSize(aclTensor *selfRef, int64_t dim,
							const aclIntArray *index,
							const aclScalar *value,
							uint64_t *workspaceSize,
							aclOpExecutor **executor)
{
	INDEX_OP("InplaceIndexFillTensor",
		 index_fill_build(&o, selfRef, dim, index, value, selfRef));
}

OPNN_LAUNCH(InplaceIndexFillTensor)

/* ---- InplaceScatterUpdate: a window per batch, SCATTER at computed indices -- */

/*
 * data[i, ..., indices[i] + k, ...] = updates[i, ..., k, ...] along axis
 * (not 0, the batch): the card's SCATTER with an index tensor of updates'
 * dims, indices[i] plus a range along the axis, added up in workspace.
 */
static aclnnStatus scatter_update_check(struct opnn *o, const aclTensor *data,
					const aclTensor *indices, const aclTensor *updates,
					int64_t axis_arg, unsigned int *axis)
{
	struct nnop_tensor_info di, ii, ui;
	unsigned int d;

	OPNN_TRY(opnn_check_tensor(o, data, "data", OPNN_ALL_CARD));
	OPNN_TRY(opnn_check_tensor(o, indices, "indices", INDEX_TYPES));
	OPNN_TRY(opnn_check_tensor(o, updates, "updates", OPNN_ALL_CARD));
	OPNN_TRY(opnn_check_same_dtype(o, data, "data", updates, "updates"));
	nnop_tensor_info(data, &di);
	nnop_tensor_info(indices, &ii);
	nnop_tensor_info(updates, &ui);
	if (ii.ndims != 1)
		return OPNN_FAIL(o, ACLNN_ERR_INNER_FIND_KERNEL_ERROR,
				 "indices of %u dims: only one offset per batch (1 dim) is on this card",
				 ii.ndims);
	if (di.ndims < 2 || ui.ndims != di.ndims)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "data has %u dims and updates %u; 2 or more, the same", di.ndims,
				 ui.ndims);
	OPNN_TRY(opnn_axis(o, axis_arg, di.ndims, axis));
	if (!*axis)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "axis is the batch axis 0");
	if (ii.dims[0] != di.dims[0])
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "indices has %lld entries; data's batch is %lld",
				 (long long)ii.dims[0], (long long)di.dims[0]);
	for (d = 0; d < di.ndims; d++)
		if (d == *axis ? ui.dims[d] > di.dims[d] : ui.dims[d] != di.dims[d])
			return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
					 "updates' dim %u (%lld) does not fit data's (%lld)", d,
					 (long long)ui.dims[d], (long long)di.dims[d]);
	if (!di.nelems || !ui.nelems)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "data or updates is empty");
	return ACLNN_SUCCESS;
}

static aclnnStatus scatter_update_build(struct opnn *o, aclTensor *data,
					const aclTensor *indices, const aclTensor *updates,
					int64_t axis_arg)
{
	struct npu_attr_fill range = { .mode = htole32(NPU_FILL_RANGE),
				       .step = htole64(0x3ff0000000000000ULL) };	/* 1.0 */
	struct npu_attr_scatter attr = { 0 };
	struct nnop_view ind, steps, v[3];
	int64_t dims[NNOP_MAX_DIMS];
	unsigned int axis, d;

	OPNN_TRY(scatter_update_check(o, data, indices, updates, axis_arg, &axis));
	OPNN_TRY(opnn_input(o, indices, &ind));
	OPNN_TRY(opnn_input(o, updates, &v[1]));
	OPNN_TRY(opnn_output(o, data, &v[2]));
	/* offsets (batch, 1, ...) plus 0 .. e - 1 along the axis (1, .., e, .., 1) */
	OPNN_TRY(opnn_dense(o, &ind, NPU_DTYPE_S64));
	for (d = 1; d < v[1].ndims; d++)
		nnop_view_unsqueeze(&ind, d);
	for (d = 0; d < v[1].ndims; d++)
		dims[d] = d == axis ? v[1].dims[d] : 1;
	steps = nnop_view_work(o->x, NPU_DTYPE_S64, v[1].ndims, dims);
	OPNN_TRY(opnn_add(o, NPU_OPERATOR_FILL, &range, sizeof(range), 0, &steps));
	v[0] = nnop_view_work(o->x, NPU_DTYPE_S64, v[1].ndims, v[1].dims);
	/* both read broadcast to the whole of updates' dims */
	for (d = 0; d < v[1].ndims; d++) {
		if (ind.dims[d] != v[1].dims[d])
			nnop_view_expand(&ind, d, v[1].dims[d]);
		if (steps.dims[d] != v[1].dims[d])
			nnop_view_expand(&steps, d, v[1].dims[d]);
	}
	OPNN_TRY(opnn_binary(o, NPU_BINARY_ADD, &ind, &steps, &v[0]));
	attr.axis = htole32(axis);
	attr.mode = htole32(NPU_SCATTER_ELEMENTS);
	return opnn_add(o, NPU_OPERATOR_SCATTER, &attr, sizeof(attr), 2, v);
}

aclnnStatus aclnnInplaceScatterUpdateGetWorkspaceSize(aclTensor *data, const aclTensor *indices,
						      const aclTensor *updates, int64_t axis,
						      uint64_t *workspaceSize,
						      aclOpExecutor **executor)
{
	INDEX_OP("InplaceScatterUpdate", scatter_update_build(&o, data, indices, updates, axis));
}

OPNN_LAUNCH(InplaceScatterUpdate)
