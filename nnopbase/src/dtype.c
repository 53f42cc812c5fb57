// SPDX-License-Identifier: MIT
/* aclDataType as libopapi needs it: names, sizes, card types (include/npu_dtypes.h) and promotion. */
#include "npu_dtypes.h"
#include "nnopbase.h"

static const struct npu_dtype_info *info_of(int acl_dtype)
{
	for (size_t i = 0; i < sizeof(npu_dtype_infos) / sizeof(npu_dtype_infos[0]); i++)
		if (npu_dtype_infos[i].acl == acl_dtype)
			return &npu_dtype_infos[i];
	return NULL;
}

NNOP_EXPORT const char *nnop_dtype_name(int acl_dtype)
{
	const struct npu_dtype_info *d = info_of(acl_dtype);

	return d ? d->name : "unknown";
}

NNOP_EXPORT size_t nnop_dtype_size(int acl_dtype)
{
	const struct npu_dtype_info *d = info_of(acl_dtype);

	return d ? d->size : 0;
}

/* npu_dtypes.h's size of INT4 (1) is the byte a pair of them shares. */
NNOP_EXPORT uint64_t nnop_dtype_bytes(int acl_dtype, uint64_t elems)
{
	if (acl_dtype == ACL_INT4)
		return (elems + 1) / 2;
	return elems * nnop_dtype_size(acl_dtype);
}

NNOP_EXPORT int nnop_card_dtype(int acl_dtype)
{
	const struct npu_dtype_info *d = info_of(acl_dtype);

	return d && npu_dtype_card_for_compilers(d->card) != NPU_DT_NONE ? d->card : -1;
}

NNOP_EXPORT bool nnop_dtype_is_float(int acl_dtype)
{
	return acl_dtype == ACL_FLOAT16 || acl_dtype == ACL_BF16 || acl_dtype == ACL_FLOAT ||
	       acl_dtype == ACL_DOUBLE;
}

static bool is_unsigned(int t)
{
	return t == ACL_UINT8 || t == ACL_UINT16 || t == ACL_UINT32 || t == ACL_UINT64;
}

NNOP_EXPORT bool nnop_dtype_is_int(int acl_dtype)
{
	return is_unsigned(acl_dtype) || acl_dtype == ACL_INT8 || acl_dtype == ACL_INT16 ||
	       acl_dtype == ACL_INT32 || acl_dtype == ACL_INT64;
}

/* Where a type stands in PyTorch's order: bool < integers < floats. */
static int category(int t)
{
	if (t == ACL_BOOL)
		return 0;
	if (nnop_dtype_is_int(t))
		return 1;
	if (nnop_dtype_is_float(t))
		return 2;
	return -1;
}

/* Two integer types: the smallest signed one holding both (uint64 with a signed one: none). */
static int promote_ints(int a, int b)
{
	size_t sa = nnop_dtype_size(a), sb = nnop_dtype_size(b), s;

	if (is_unsigned(a) == is_unsigned(b))
		return sa >= sb ? a : b;
	if (is_unsigned(b)) {
		int t = a;

		a = b;
		b = t;
		s = sa;
		sa = sb;
		sb = s;
	}
	/* a unsigned, b signed */
	if (sb > sa)
		return b;
	switch (sa) {
	case 1:
		return ACL_INT16;
	case 2:
		return ACL_INT32;
	case 4:
		return ACL_INT64;
	default:
		return ACL_DT_UNDEFINED;
	}
}

static int promote_floats(int a, int b)
{
	if (a == b)
		return a;
	if ((a == ACL_FLOAT16 && b == ACL_BF16) || (a == ACL_BF16 && b == ACL_FLOAT16))
		return ACL_FLOAT;
	return nnop_dtype_size(a) >= nnop_dtype_size(b) ? a : b;
}

NNOP_EXPORT int nnop_promote(int a, int b)
{
	int ca = category(a), cb = category(b);

	if (ca < 0 || cb < 0)
		return ACL_DT_UNDEFINED;
	if (a == b)
		return a;
	if (ca != cb)
		return ca > cb ? a : b;
	if (ca == 1)
		return promote_ints(a, b);
	return promote_floats(a, b);
}
