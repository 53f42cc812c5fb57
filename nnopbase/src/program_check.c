// SPDX-License-Identifier: MIT
/*
 * Finishing an executor: each card operator is checked against what every
 * card operator must be (uapi/npu_operator.h), so that a libopapi mistake
 * is a readable error here and not a rejected command on the stream.
 * The operator's own rules (shapes, types) the card checks when it runs.
 */
#include <stdlib.h>

#include "executor.h"

struct kind_info {
	const char *name;
	unsigned int min_inputs, max_inputs;
};

#define NPU_OPERATOR(NAME, number, min_in, max_in, attrs, rsvd, act, name) \
	[number] = { #name, min_in, max_in },
static const struct kind_info kinds[] = { NPU_OPERATOR_TABLE };
#undef NPU_OPERATOR

/* The last byte a view reaches from its base, plus 1; 0 for an empty view. */
static uint64_t view_end(const struct nnop_view *v)
{
	uint64_t last = 0;

	for (unsigned int d = 0; d < v->ndims; d++) {
		if (!v->dims[d])
			return 0;
		last += (uint64_t)(v->dims[d] - 1) * (uint64_t)v->strides[d];
	}
	return v->offset + (last + 1) * NPU_DTYPE_SIZE(v->card_dtype);
}

/* The same for a named tensor, from its view's first element. */
static uint64_t slot_end(const struct nnop_tensor_info *i)
{
	uint64_t last = 0;

	if (!i->nelems)
		return 0;
	for (unsigned int d = 0; d < i->ndims; d++)
		last += (uint64_t)(i->dims[d] - 1) * (uint64_t)i->strides[d];
	return nnop_dtype_bytes(i->acl_dtype, last + 1);
}

/* No two elements of an output share an address: no stride 0 over a dim of more than 1. */
static bool overlaps(const struct nnop_view *v)
{
	for (unsigned int d = 0; d < v->ndims; d++)
		if (v->dims[d] > 1 && !v->strides[d])
			return true;
	return false;
}

static aclnnStatus check_view(const aclOpExecutor *x, unsigned int i, unsigned int t,
			      const struct nnop_view *v, bool output)
{
	const char *kind = kinds[x->ops[i].kind].name;

	if (v->card_dtype < 0 || v->card_dtype > NPU_DTYPE_LAST)
		return NNOP_FAIL(ACLNN_ERR_PARAM_INVALID, "%s: the card has no type for tensor %u "
				 "of its %s (card type %d)", x->op_name, t, kind, v->card_dtype);
	if (v->ndims > NNOP_MAX_DIMS)
		return NNOP_FAIL(ACLNN_ERR_INNER, "%s: tensor %u of its %s has %u dims", x->op_name,
				 t, kind, v->ndims);
	if (output && overlaps(v))
		return NNOP_FAIL(ACLNN_ERR_PARAM_INVALID, "%s: its output has elements sharing an "
				 "address (a stride of 0)", x->op_name);
	if (v->base == NNOP_BASE_WORKSPACE && view_end(v) > x->work_size)
		return NNOP_FAIL(ACLNN_ERR_INNER, "%s: tensor %u of its %s reaches past the "
				 "workspace", x->op_name, t, kind);
	if (v->base == NNOP_BASE_TENSOR && (v->slot < 0 || (unsigned int)v->slot >= x->num_slots))
		return NNOP_FAIL(ACLNN_ERR_INNER, "%s: tensor %u of its %s names slot %d of %u",
				 x->op_name, t, kind, v->slot, x->num_slots);
	if (v->base == NNOP_BASE_TENSOR && view_end(v) > slot_end(&x->slots[v->slot].info))
		return NNOP_FAIL(ACLNN_ERR_INNER, "%s: tensor %u of its %s reaches past the "
				 "tensor it views", x->op_name, t, kind);
	return ACLNN_SUCCESS;
}

static aclnnStatus check_op(const aclOpExecutor *x, unsigned int i)
{
	const struct nnop_op *op = &x->ops[i];
	aclnnStatus err;

	if (op->kind > NPU_OPERATOR_LAST)
		return NNOP_FAIL(ACLNN_ERR_INNER, "%s: card operator kind %u does not exist",
				 x->op_name, op->kind);
	if (op->num_inputs < kinds[op->kind].min_inputs ||
	    op->num_inputs > kinds[op->kind].max_inputs)
		return NNOP_FAIL(ACLNN_ERR_INNER, "%s: the card's %s takes %u to %u inputs, not %u",
				 x->op_name, kinds[op->kind].name, kinds[op->kind].min_inputs,
				 kinds[op->kind].max_inputs, op->num_inputs);
	for (unsigned int t = 0; t <= op->num_inputs; t++) {
		err = check_view(x, i, t, &op->views[t], t == op->num_inputs);
		if (err)
			return err;
	}
	return ACLNN_SUCCESS;
}

NNOP_EXPORT aclnnStatus nnop_executor_finish(aclOpExecutor *x, uint64_t *workspace_size,
					     aclOpExecutor **executor)
{
	aclnnStatus err = ACLNN_SUCCESS;

	if (!workspace_size || !executor)
		err = NNOP_FAIL(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is NULL", x->op_name,
				!workspace_size ? "workspaceSize" : "executor");
	for (unsigned int i = 0; !err && i < x->num_ops; i++)
		err = check_op(x, i);
	if (err) {
		nnop_executor_free(x);
		return err;
	}
	nnop_executor_go_live(x);
	*workspace_size = x->work_size;
	*executor = x;
	return ACLNN_SUCCESS;
}
