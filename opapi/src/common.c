// SPDX-License-Identifier: MIT
/* The checks and card operators libopapi's operators share (opapi.h). */
#include <endian.h>
#include <stdio.h>
#include <string.h>

#include "opapi.h"

aclnnStatus opapi_check_card_type(const char *op, const char *what, int acl_dtype)
{
	if (nnop_card_dtype(acl_dtype) < 0)
		return nnop_fail(op, ACLNN_ERR_PARAM_INVALID, "%s is %s, a type this card does not "
				 "compute in", what, nnop_dtype_name(acl_dtype));
	return ACLNN_SUCCESS;
}

static void dims_text(const int64_t *dims, unsigned int n, char *buf, size_t size)
{
	size_t at = 0;

	buf[0] = 0;
	at += snprintf(buf, size, "[");
	for (unsigned int d = 0; d < n && at < size; d++)
		at += snprintf(buf + at, size - at, "%s%lld", d ? ", " : "", (long long)dims[d]);
	if (at < size)
		snprintf(buf + at, size - at, "]");
}

aclnnStatus opapi_broadcast(const char *op, const aclTensor *a, const aclTensor *b,
			    int64_t *dims, unsigned int *ndims)
{
	struct nnop_tensor_info ia, ib;
	char ta[128], tb[128];

	nnop_tensor_info(a, &ia);
	nnop_tensor_info(b, &ib);
	*ndims = ia.ndims > ib.ndims ? ia.ndims : ib.ndims;
	for (unsigned int d = 0; d < *ndims; d++) {
		int ka = (int)d - (int)(*ndims - ia.ndims), kb = (int)d - (int)(*ndims - ib.ndims);
		int64_t da = ka >= 0 ? ia.dims[ka] : 1, db = kb >= 0 ? ib.dims[kb] : 1;

		if (da != db && da != 1 && db != 1) {
			dims_text(ia.dims, ia.ndims, ta, sizeof(ta));
			dims_text(ib.dims, ib.ndims, tb, sizeof(tb));
			return nnop_fail(op, ACLNN_ERR_PARAM_INVALID, "shapes %s and %s do not "
					 "broadcast", ta, tb);
		}
		dims[d] = da == 1 ? db : da;
	}
	return ACLNN_SUCCESS;
}

aclnnStatus opapi_check_shape(const char *op, const char *what, const aclTensor *t,
			      const int64_t *dims, unsigned int ndims)
{
	struct nnop_tensor_info i;
	char want[128], have[128];

	nnop_tensor_info(t, &i);
	if (i.ndims == ndims && !memcmp(i.dims, dims, ndims * sizeof(*dims)))
		return ACLNN_SUCCESS;
	dims_text(dims, ndims, want, sizeof(want));
	dims_text(i.dims, i.ndims, have, sizeof(have));
	return nnop_fail(op, ACLNN_ERR_PARAM_INVALID, "%s has shape %s, the result's is %s", what,
			 have, want);
}

/* bool < integers < floats; -1 for the types no operator computes with. */
static int kind_rank(int t)
{
	if (t == ACL_BOOL)
		return 0;
	if (nnop_dtype_is_int(t))
		return 1;
	return nnop_dtype_is_float(t) ? 2 : -1;
}

bool opapi_can_cast(int from, int to)
{
	return kind_rank(from) >= 0 && kind_rank(to) >= kind_rank(from);
}

struct nnop_view opapi_view(const aclOpExecutor *x, int slot, unsigned int rank)
{
	struct nnop_view v = nnop_view_of(x, slot);

	nnop_view_align(&v, rank ? rank : 1);
	return v;
}

aclnnStatus opapi_cast(aclOpExecutor *x, const struct nnop_view *v, int card_dtype,
		       struct nnop_view *out)
{
	struct nnop_view views[2];

	if (v->card_dtype == card_dtype) {
		*out = *v;
		return ACLNN_SUCCESS;
	}
	views[0] = *v;
	views[1] = nnop_view_work(x, card_dtype, v->ndims, v->dims);
	*out = views[1];
	return nnop_executor_add(x, NPU_OPERATOR_CAST, NULL, 0, 1, views);
}

/* BINARY's arithmetic reads F16 and BF16 sources beside F32 ones (docs/hardware.md). */
static bool binary_widens(unsigned int kind, int have, int calc)
{
	return kind < NPU_BINARY_EQ && calc == NPU_DTYPE_F32 &&
	       (have == NPU_DTYPE_F16 || have == NPU_DTYPE_BF16);
}

aclnnStatus opapi_operand(aclOpExecutor *x, unsigned int kind, const struct nnop_view *v,
			  int calc, struct nnop_view *out)
{
	if (binary_widens(kind, v->card_dtype, calc)) {
		*out = *v;
		return ACLNN_SUCCESS;
	}
	return opapi_cast(x, v, calc, out);
}

aclnnStatus opapi_binary(aclOpExecutor *x, unsigned int kind, const struct nnop_view *a,
			 const struct nnop_view *b, const struct nnop_view *y)
{
	struct npu_attr_binary attr = { .kind = htole32(kind) };
	struct nnop_view views[3] = { *a, *b, *y };

	return nnop_executor_add(x, NPU_OPERATOR_BINARY, &attr, sizeof(attr), 2, views);
}

aclnnStatus opapi_binary_in(aclOpExecutor *x, unsigned int kind, int calc,
			    const struct nnop_view *a, const struct nnop_view *b,
			    const struct nnop_view *y)
{
	struct nnop_view ca, cb, cy = *y;
	aclnnStatus err;

	err = opapi_operand(x, kind, a, calc, &ca);
	if (!err)
		err = opapi_operand(x, kind, b, calc, &cb);
	if (err)
		return err;
	if (y->card_dtype != calc)
		cy = nnop_view_work(x, calc, y->ndims, y->dims);
	err = opapi_binary(x, kind, &ca, &cb, &cy);
	if (!err && y->card_dtype != calc) {
		struct nnop_view views[2] = { cy, *y };

		err = nnop_executor_add(x, NPU_OPERATOR_CAST, NULL, 0, 1, views);
	}
	return err;
}
