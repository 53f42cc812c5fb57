// SPDX-License-Identifier: MIT
/*
 * RotaryPositionEmbedding: the card's ROPE, one operator.  Modes 0 (halves
 * rotate, GPT-NeoX) and 1 (neighbours rotate, GPT-J), the two ggml's rope
 * uses; the vendor's 2 (quarter) and 3 (interleave-half) are not on this
 * card.  cos and sin broadcast numpy-style against x, aligned at the last
 * axis; yOut may be x itself.
 */
#include <endian.h>

#include "aclnnop/aclnn_rotary_position_embedding.h"
#include "opnn.h"

/* cos or sin: x's type, its last dim x's, the others x's or 1. */
static aclnnStatus rope_check_table(struct opnn *o, const aclTensor *t, const char *name,
				    const struct nnop_tensor_info *xi)
{
	struct nnop_tensor_info ti;
	unsigned int d, lead;

	OPNN_TRY(opnn_check_tensor(o, t, name, OPNN_FLOATS));
	nnop_tensor_info(t, &ti);
	if (!ti.ndims || ti.ndims > xi->ndims)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID, "%s has %u dims; x has %u", name,
				 ti.ndims, xi->ndims);
	lead = xi->ndims - ti.ndims;
	for (d = 0; d < ti.ndims; d++)
		if ((ti.dims[d] != 1 || d + 1 == ti.ndims) && ti.dims[d] != xi->dims[lead + d])
			return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
					 "%s's dim %u is %lld, which does not broadcast to "
					 "x's %lld",
					 name, d, (long long)ti.dims[d],
					 (long long)xi->dims[lead + d]);
	return ACLNN_SUCCESS;
}

static aclnnStatus rope_build(struct opnn *o, const aclTensor *x, const aclTensor *cos,
			      const aclTensor *sin, int64_t mode, const aclTensor *y)
{
	struct npu_attr_rope attr = { 0 };
	struct nnop_tensor_info xi;
	struct nnop_view v[4];

	OPNN_TRY(opnn_check_tensor(o, x, "x", OPNN_FLOATS));
	OPNN_TRY(opnn_check_tensor(o, y, "yOut", OPNN_FLOATS));
	OPNN_TRY(opnn_check_same_dtype(o, x, "x", y, "yOut"));
	nnop_tensor_info(x, &xi);
	OPNN_TRY(opnn_check_rank(o, x, "x", 1, NNOP_MAX_DIMS));
	OPNN_TRY(opnn_check_dims(o, y, "yOut", xi.ndims, xi.dims));
	if (mode != NPU_ROPE_HALF && mode != NPU_ROPE_INTERLEAVED)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "mode %lld is not supported: 0 (half) and 1 (interleave) are",
				 (long long)mode);
	if (xi.dims[xi.ndims - 1] % 2)
		return OPNN_FAIL(o, ACLNN_ERR_PARAM_INVALID,
				 "x's last dim %lld is odd: it must hold pairs",
				 (long long)xi.dims[xi.ndims - 1]);
	OPNN_TRY(rope_check_table(o, cos, "cos", &xi));
	OPNN_TRY(rope_check_table(o, sin, "sin", &xi));
	OPNN_TRY(opnn_check_same_dtype(o, x, "x", cos, "cos"));
	OPNN_TRY(opnn_check_same_dtype(o, x, "x", sin, "sin"));
	OPNN_TRY(opnn_input(o, x, &v[0]));
	OPNN_TRY(opnn_input(o, cos, &v[1]));
	OPNN_TRY(opnn_input(o, sin, &v[2]));
	OPNN_TRY(opnn_output(o, y, &v[3]));
	if (!xi.nelems)
		return ACLNN_SUCCESS;
	attr.mode = htole32((uint32_t)mode);
	return opnn_add(o, NPU_OPERATOR_ROPE, &attr, sizeof(attr), 3, v);
}

aclnnStatus aclnnRotaryPositionEmbeddingGetWorkspaceSize(const aclTensor *x, const aclTensor *cos,
							 const aclTensor *sin, int64_t mode,
							 const aclTensor *yOut,
							 uint64_t *workspaceSize,
							 aclOpExecutor **executor)
{
	struct opnn o;

	NNOP_CHECK_NOTNULL(workspaceSize);
	NNOP_CHECK_NOTNULL(executor);
	OPNN_TRY(opnn_begin(&o, __func__, "RotaryPositionEmbedding"));
	return opnn_end(&o, rope_build(&o, x, cos, sin, mode, yOut), workspaceSize, executor);
}

OPNN_LAUNCH(RotaryPositionEmbedding)
