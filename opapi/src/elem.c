// SPDX-License-Identifier: MIT
/* elem: the helpers the elementwise, compare and fill operators share. */
#include <endian.h>
#include <stdio.h>
#include <string.h>

#include "elem.h"
#include "opapi.h"

/* Messages name the operator's GetWorkspaceSize, which the helpers do not know. */
static __thread char elem_func_name[64];

const char *elem_func(void)
{
	return elem_func_name;
}

aclnnStatus elem_run(const char *op_name, elem_build_fn build, const void *args,
		     uint64_t *workspace_size, aclOpExecutor **executor)
{
	aclOpExecutor *x;
	aclnnStatus st;

	snprintf(elem_func_name, sizeof(elem_func_name), "aclnn%sGetWorkspaceSize", op_name);
	if (!workspace_size)
		return ELEM_FAIL(ACLNN_ERR_PARAM_NULLPTR, "workspaceSize is NULL");
	if (!executor)
		return ELEM_FAIL(ACLNN_ERR_PARAM_NULLPTR, "executor is NULL");
	x = nnop_executor_new(op_name);
	if (!x)
		return ACLNN_ERR_INNER_CREATE_EXECUTOR;
	st = build(x, args);
	if (st != ACLNN_SUCCESS) {
		nnop_executor_abandon(x);
		return st;
	}
	return nnop_executor_finish(x, workspace_size, executor);
}

int elem_acl_dtype(const aclTensor *t)
{
	struct nnop_tensor_info info;

	nnop_tensor_info(t, &info);
	return info.acl_dtype;
}

int64_t elem_nelems(const aclTensor *t)
{
	struct nnop_tensor_info info;

	nnop_tensor_info(t, &info);
	return info.nelems;
}

unsigned int elem_ndims(const aclTensor *t)
{
	struct nnop_tensor_info info;

	nnop_tensor_info(t, &info);
	return info.ndims;
}

bool elem_dtype_in(int acl_dtype, unsigned int classes)
{
	if (nnop_card_dtype(acl_dtype) < 0)
		return false;
	if (acl_dtype == ACL_BOOL)
		return classes & ELEM_BOOL;
	if (nnop_dtype_is_float(acl_dtype))
		return classes & ELEM_FLOAT;
	return (classes & ELEM_INT) && nnop_dtype_is_int(acl_dtype);
}

static const char *elem_class_names(unsigned int allowed)
{
	switch (allowed) {
	case ELEM_FLOAT:
		return "float16, bfloat16 or float";
	case ELEM_FLOAT | ELEM_INT:
		return "a floating point or integer type";
	case ELEM_BOOL:
		return "bool";
	default:
		return "a type the card has";
	}
}

aclnnStatus elem_check_dtype(const aclTensor *t, const char *what, unsigned int allowed)
{
	int dt = elem_acl_dtype(t);

	if (!elem_dtype_in(dt, allowed ? allowed : ELEM_ANY))
		return ELEM_FAIL(ACLNN_ERR_PARAM_INVALID, "%s has data type %s, not %s", what,
				 nnop_dtype_name(dt), elem_class_names(allowed));
	return ACLNN_SUCCESS;
}

aclnnStatus elem_broadcast(const aclTensor *a, const aclTensor *b, int64_t *dims,
			   unsigned int *ndims)
{
	return opapi_broadcast(elem_func(), a, b, dims, ndims);
}

aclnnStatus elem_check_shape(const aclTensor *t, const char *what, const int64_t *dims,
			     unsigned int ndims)
{
	return opapi_check_shape(elem_func(), what, t, dims, ndims);
}

aclnnStatus elem_check_same_shape(const aclTensor *t, const char *what, const aclTensor *like)
{
	struct nnop_tensor_info info;

	nnop_tensor_info(like, &info);
	return opapi_check_shape(elem_func(), what, t, info.dims, info.ndims);
}

aclnnStatus elem_check_store(int acl_dtype, const aclTensor *out, const char *what)
{
	int to = elem_acl_dtype(out);

	if (opapi_can_cast(acl_dtype, to) && nnop_card_dtype(to) >= 0)
		return ACLNN_SUCCESS;
	return ELEM_FAIL(ACLNN_ERR_PARAM_INVALID, "a %s result cannot be stored in %s of type %s",
			 nnop_dtype_name(acl_dtype), what, nnop_dtype_name(to));
}

int elem_promote_scalar(const aclTensor *t, const aclScalar *s)
{
	int td = elem_acl_dtype(t), sd = nnop_scalar_acl_dtype(s);

	if (nnop_dtype_is_float(td))
		return td;
	if (nnop_dtype_is_float(sd))
		return ACL_FLOAT;
	if (td == ACL_BOOL && sd != ACL_BOOL)
		return ACL_INT64;
	return td;
}

aclnnStatus elem_cast(aclOpExecutor *x, const struct nnop_view *in, const struct nnop_view *out)
{
	struct nnop_view v[2] = { *in, *out };

	return nnop_executor_add(x, NPU_OPERATOR_CAST, NULL, 0, 1, v);
}

struct nnop_view elem_temp(aclOpExecutor *x, const struct nnop_view *like, int acl_dtype)
{
	return nnop_view_work(x, nnop_card_dtype(acl_dtype), like->ndims, like->dims);
}

aclnnStatus elem_input(aclOpExecutor *x, const aclTensor *t, unsigned int ndims, int acl_dtype,
		       struct nnop_view *v)
{
	int slot = nnop_executor_input(x, t);
	struct nnop_view named;

	if (slot < 0)
		return slot;
	named = opapi_view(x, slot, ndims);
	return opapi_cast(x, &named, nnop_card_dtype(acl_dtype), v);
}

aclnnStatus elem_output(aclOpExecutor *x, const aclTensor *t, struct nnop_view *v)
{
	int slot = nnop_executor_output(x, t);

	if (slot < 0)
		return slot;
	*v = opapi_view(x, slot, elem_ndims(t));
	return ACLNN_SUCCESS;
}

aclnnStatus elem_scalar(aclOpExecutor *x, double value, int acl_dtype, unsigned int ndims,
			struct nnop_view *v)
{
	return nnop_view_scalar(x, value, nnop_card_dtype(acl_dtype), ndims ? ndims : 1, v);
}

struct nnop_view elem_target(aclOpExecutor *x, const struct nnop_view *out, int acl_dtype)
{
	if (out->card_dtype == nnop_card_dtype(acl_dtype))
		return *out;
	return elem_temp(x, out, acl_dtype);
}

aclnnStatus elem_store(aclOpExecutor *x, const struct nnop_view *result,
		       const struct nnop_view *out)
{
	if (result->base == out->base && result->slot == out->slot &&
	    result->offset == out->offset && result->card_dtype == out->card_dtype)
		return ACLNN_SUCCESS;
	return elem_cast(x, result, out);
}

static uint32_t elem_f32_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

aclnnStatus elem_unary(aclOpExecutor *x, unsigned int kind, float alpha, float beta,
		       const struct nnop_view *in, const struct nnop_view *out)
{
	struct npu_attr_unary attr = {
		.fn.kind = htole32(kind),
		.fn.alpha = htole32(elem_f32_bits(alpha)),
		.fn.beta = htole32(elem_f32_bits(beta)),
	};
	struct nnop_view v[2] = { *in, *out };

	return nnop_executor_add(x, NPU_OPERATOR_UNARY, &attr, sizeof(attr), 1, v);
}

aclnnStatus elem_where(aclOpExecutor *x, const struct nnop_view *cond, const struct nnop_view *a,
		       const struct nnop_view *b, const struct nnop_view *out)
{
	struct nnop_view v[4] = { *cond, *a, *b, *out };

	return nnop_executor_add(x, NPU_OPERATOR_WHERE, NULL, 0, 3, v);
}
