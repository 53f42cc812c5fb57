// SPDX-License-Identifier: MIT
/*
 * The card's arithmetic for the reductions: one BINARY operator of the
 * card's operator library per piece (uapi/npu_operator.h), queued on the
 * collective's stream as aclnn queues its operators. Integer arithmetic is
 * the card's: exact, saturated into the type. A type the card has no
 * arithmetic for is refused, never reduced wrongly.
 */
#include <stdalign.h>
#include <string.h>

#include "hccl_internal.h"
#include "npu_acl_private.h"
#include "npu_operator.h"

#define NO_CARD_TYPE	(-1)

struct dtype_row {
	const char *name;
	size_t size;
	int card;		/* enum npu_dtype, or NO_CARD_TYPE */
};

static const struct dtype_row dtypes[] = {
	[HCCL_DATA_TYPE_INT8] = { "int8", 1, NPU_DTYPE_S8 },
	[HCCL_DATA_TYPE_INT16] = { "int16", 2, NPU_DTYPE_S16 },
	[HCCL_DATA_TYPE_INT32] = { "int32", 4, NPU_DTYPE_S32 },
	[HCCL_DATA_TYPE_FP16] = { "float16", 2, NPU_DTYPE_F16 },
	[HCCL_DATA_TYPE_FP32] = { "float32", 4, NPU_DTYPE_F32 },
	[HCCL_DATA_TYPE_INT64] = { "int64", 8, NPU_DTYPE_S64 },
	[HCCL_DATA_TYPE_UINT64] = { "uint64", 8, NPU_DTYPE_U64 },
	[HCCL_DATA_TYPE_UINT8] = { "uint8", 1, NPU_DTYPE_U8 },
	[HCCL_DATA_TYPE_UINT16] = { "uint16", 2, NO_CARD_TYPE },
	[HCCL_DATA_TYPE_UINT32] = { "uint32", 4, NO_CARD_TYPE },
	[HCCL_DATA_TYPE_FP64] = { "float64", 8, NPU_DTYPE_F64 },
	[HCCL_DATA_TYPE_BFP16] = { "bfloat16", 2, NPU_DTYPE_BF16 },
	[HCCL_DATA_TYPE_INT128] = { "int128", 16, NO_CARD_TYPE },
	[HCCL_DATA_TYPE_HIF8] = { "hifloat8", 1, NO_CARD_TYPE },
	[HCCL_DATA_TYPE_FP8E4M3] = { "float8_e4m3", 1, NO_CARD_TYPE },
	[HCCL_DATA_TYPE_FP8E5M2] = { "float8_e5m2", 1, NO_CARD_TYPE },
	[HCCL_DATA_TYPE_FP8E8M0] = { "float8_e8m0", 1, NO_CARD_TYPE },
};

static const struct dtype_row *row(HcclDataType t)
{
	if ((unsigned int)t >= sizeof(dtypes) / sizeof(dtypes[0]) || !dtypes[t].name)
		return NULL;
	return &dtypes[t];
}

size_t hccl_dtype_size(HcclDataType t)
{
	return row(t) ? row(t)->size : 0;
}

const char *hccl_dtype_name(HcclDataType t)
{
	return row(t) ? row(t)->name : "unknown";
}

static const char *const op_names[] = { "sum", "prod", "max", "min" };

HcclResult hccl_reduce_check(const char *func, HcclDataType t, HcclReduceOp op)
{
	if (!row(t))
		return hccl_fail(func, HCCL_E_PARA, "data type %d is not one of HcclDataType's", t);
	if ((unsigned int)op > HCCL_REDUCE_MIN)
		return hccl_fail(func, HCCL_E_PARA, "reduction %d is not one of HcclReduceOp's", op);
	if (row(t)->card == NO_CARD_TYPE)
		return hccl_fail(func, HCCL_E_NOT_SUPPORT, "the card has no arithmetic for %s: "
				 "%s of %s is not supported", row(t)->name, op_names[op],
				 row(t)->name);
	return HCCL_SUCCESS;
}

static void tensor(struct npu_tensor_desc *d, const void *addr, int card_type, uint64_t count)
{
	d->addr = (uintptr_t)addr;
	d->dtype = (uint16_t)card_type;
	d->format = NPU_FORMAT_STRIDED;
	d->ndims = 1;
	d->dims[0] = count;
	d->strides[0] = 1;
}

HcclResult hccl_reduce(void *dst, const void *a, const void *b, uint64_t count, HcclDataType t,
		       HcclReduceOp op, aclrtStream s)
{
	static const uint32_t kinds[] = {
		[HCCL_REDUCE_SUM] = NPU_BINARY_ADD, [HCCL_REDUCE_PROD] = NPU_BINARY_MUL,
		[HCCL_REDUCE_MAX] = NPU_BINARY_MAX, [HCCL_REDUCE_MIN] = NPU_BINARY_MIN,
	};
	union {
		struct npu_op_desc d;
		alignas(NPU_OP_DESC_ALIGN) uint8_t bytes[sizeof(struct npu_op_desc) +
							 3 * sizeof(struct npu_tensor_desc)];
	} u;
	const void *desc = &u;
	uint32_t size = sizeof(u.bytes);
	aclError e;

	if (!count)
		return HCCL_SUCCESS;
	memset(&u, 0, sizeof(u));
	u.d.kind = NPU_OPERATOR_BINARY;
	u.d.num_inputs = 2;
	u.d.num_outputs = 1;
	u.d.attrs.binary.kind = kinds[op];
	tensor(&u.d.tensors[0], a, row(t)->card, count);
	tensor(&u.d.tensors[1], b, row(t)->card, count);
	tensor(&u.d.tensors[2], dst, row(t)->card, count);
	e = npu_acl_submit_named_ops(s, "HcclReduce", &desc, &size, 1);
	return e ? hccl_acl_fail("hccl reduce", e, "queueing the card's reduction") : HCCL_SUCCESS;
}

HcclResult hccl_copy(void *dst, const void *src, uint64_t len, aclrtStream s)
{
	aclError e;

	if (!len || dst == src)
		return HCCL_SUCCESS;
	e = aclrtMemcpyAsync(dst, len, src, len, ACL_MEMCPY_DEVICE_TO_DEVICE, s);
	return e ? hccl_acl_fail("hccl copy", e, "a device copy") : HCCL_SUCCESS;
}
