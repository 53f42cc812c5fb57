// SPDX-License-Identifier: MIT
/* elem: the helpers the elementwise, compare and fill operators share. */
#include <endian.h>
#include <stdio.h>
#include <string.h>

#include "elem.h"

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

static void elem_format_dims(char *buf, size_t size, const int64_t *dims, unsigned int ndims)
{
	size_t n = 0;
	unsigned int i;

	n += snprintf(buf + n, size - n, "[");
	for (i = 0; i < ndims && n < size; i++)
		n += snprintf(buf + n, size - n, "%s%lld", i ? ", " : "", (long long)dims[i]);
	if (n < size)
		snprintf(buf + n, size - n, "]");
}

aclnnStatus elem_broadcast(const aclTensor *a, const char *a_what, const aclTensor *b,
			   const char *b_what, int64_t *dims, unsigned int *ndims)
{
	struct nnop_tensor_info ia, ib;
	char sa[160], sb[160];
	unsigned int i, n;

	nnop_tensor_info(a, &ia);
	nnop_tensor_info(b, &ib);
	n = ia.ndims > ib.ndims ? ia.ndims : ib.ndims;
	for (i = 0; i < n; i++) {
		int64_t da = i < n - ia.ndims ? 1 : ia.dims[i - (n - ia.ndims)];
		int64_t db = i < n - ib.ndims ? 1 : ib.dims[i - (n - ib.ndims)];

		if (da != db && da != 1 && db != 1) {
			elem_format_dims(sa, sizeof(sa), ia.dims, ia.ndims);
			elem_format_dims(sb, sizeof(sb), ib.dims, ib.ndims);
			return ELEM_FAIL(ACLNN_ERR_PARAM_INVALID,
					 "%s %s and %s %s do not broadcast (axis %u)", a_what, sa,
					 b_what, sb, i);
		}
		dims[i] = da == 1 ? db : da;
	}
	*ndims = n;
	return ACLNN_SUCCESS;
}

aclnnStatus elem_check_shape(const aclTensor *t, const char *what, const int64_t *dims,
			     unsigned int ndims)
{
	struct nnop_tensor_info info;
	char want[160], have[160];

	nnop_tensor_info(t, &info);
	if (info.ndims == ndims && !memcmp(info.dims, dims, ndims * sizeof(*dims)))
		return ACLNN_SUCCESS;
	elem_format_dims(want, sizeof(want), dims, ndims);
	elem_format_dims(have, sizeof(have), info.dims, info.ndims);
	return ELEM_FAIL(ACLNN_ERR_PARAM_INVALID, "%s has shape %s, the result has %s", what, have,
			 want);
}

aclnnStatus elem_check_same_shape(const aclTensor *t, const char *what, const aclTensor *like,
				  const char *like_what)
{
	struct nnop_tensor_info ti, li;
	char want[160], have[160];

	nnop_tensor_info(t, &ti);
	nnop_tensor_info(like, &li);
	if (ti.ndims == li.ndims && !memcmp(ti.dims, li.dims, ti.ndims * sizeof(*ti.dims)))
		return ACLNN_SUCCESS;
	elem_format_dims(want, sizeof(want), li.dims, li.ndims);
	elem_format_dims(have, sizeof(have), ti.dims, ti.ndims);
	return ELEM_FAIL(ACLNN_ERR_PARAM_INVALID, "%s has shape %s, %s has %s", what, have,
			 like_what, want);
}

aclnnStatus elem_check_store(int acl_dtype, const aclTensor *out, const char *what)
{
	int to = elem_acl_dtype(out);
	bool ok;

	if (to == ACL_BOOL)
		ok = acl_dtype == ACL_BOOL;
	else if (nnop_dtype_is_float(acl_dtype))
		ok = nnop_dtype_is_float(to);
	else
		ok = true;
	if (ok && nnop_card_dtype(to) >= 0)
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

/* An empty output needs no card operator (and the card takes none). */
aclnnStatus elem_add(aclOpExecutor *x, unsigned int kind, const void *attrs, size_t attrs_size,
		     unsigned int num_inputs, const struct nnop_view *views)
{
	const struct nnop_view *out = &views[num_inputs];
	unsigned int i;

	for (i = 0; i < out->ndims; i++)
		if (!out->dims[i])
			return ACLNN_SUCCESS;
	return nnop_executor_add(x, kind, attrs, attrs_size, num_inputs, views);
}

aclnnStatus elem_cast(aclOpExecutor *x, const struct nnop_view *in, const struct nnop_view *out)
{
	struct nnop_view v[2] = { *in, *out };

	return elem_add(x, NPU_OPERATOR_CAST, NULL, 0, 1, v);
}

struct nnop_view elem_temp(aclOpExecutor *x, const struct nnop_view *like, int acl_dtype)
{
	return nnop_view_work(x, nnop_card_dtype(acl_dtype), like->ndims, like->dims);
}

aclnnStatus elem_input(aclOpExecutor *x, const aclTensor *t, unsigned int ndims, int acl_dtype,
		       struct nnop_view *v)
{
	struct nnop_view tmp;
	int slot = nnop_executor_input(x, t);
	aclnnStatus st;

	if (slot < 0)
		return slot;
	*v = nnop_view_of(x, slot);
	nnop_view_align(v, ndims);
	if (v->card_dtype == nnop_card_dtype(acl_dtype))
		return ACLNN_SUCCESS;
	tmp = elem_temp(x, v, acl_dtype);
	st = elem_cast(x, v, &tmp);
	*v = tmp;
	return st;
}

aclnnStatus elem_output(aclOpExecutor *x, const aclTensor *t, struct nnop_view *v)
{
	int slot = nnop_executor_output(x, t);

	if (slot < 0)
		return slot;
	*v = nnop_view_of(x, slot);
	return ACLNN_SUCCESS;
}

aclnnStatus elem_scalar(aclOpExecutor *x, double value, int acl_dtype, unsigned int ndims,
			struct nnop_view *v)
{
	return nnop_view_scalar(x, value, nnop_card_dtype(acl_dtype), ndims, v);
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

	return elem_add(x, NPU_OPERATOR_UNARY, &attr, sizeof(attr), 1, v);
}

aclnnStatus elem_binary(aclOpExecutor *x, unsigned int kind, const struct nnop_view *a,
			const struct nnop_view *b, const struct nnop_view *out)
{
	struct npu_attr_binary attr = { .kind = htole32(kind) };
	struct nnop_view v[3] = { *a, *b, *out };

	return elem_add(x, NPU_OPERATOR_BINARY, &attr, sizeof(attr), 2, v);
}

aclnnStatus elem_where(aclOpExecutor *x, const struct nnop_view *cond, const struct nnop_view *a,
		       const struct nnop_view *b, const struct nnop_view *out)
{
	struct nnop_view v[4] = { *cond, *a, *b, *out };

	return elem_add(x, NPU_OPERATOR_WHERE, NULL, 0, 3, v);
}
