/* SPDX-License-Identifier: MIT */
/*
 * Data types: every type the stack names, with its number in each of the
 * four numberings it speaks.  Applications and .om files use aclDataType
 * (libacl/include/acl/acl_base_rt.h), ONNX files TensorProto.DataType
 * (which libnpucc keeps in its IR), the graph engine's applications
 * ge::DataType (libge/include/graph/types.h), and the card enum npu_dtype
 * (uapi/npu_operator.h).  The vendor's enums stay what applications
 * compile against; this table is where the stack translates between them,
 * and libacl and libge check it against their enums at build time.
 *
 * NPU_DTYPES(X) calls X(id, name, size, acl, onnx, ge, card) once per type:
 *   id	   the type's aclDataType name without "ACL_"
 *   name  its name in messages (ONNX's spelling where ONNX has the type)
 *   size  bytes per element; 1 for the types of less than a byte, as the
 *	   vendor's aclDataTypeSize counts them; 0 for strings
 *   acl   aclDataType
 *   onnx  TensorProto.DataType; NPU_DT_NONE for the types ONNX has not,
 *	   and for those it added from float8 on (IR version 9), which no
 *	   part of the stack reads
 *   ge	   ge::DataType, NPU_DT_NONE for the types libge's enum has not
 *   card  enum npu_dtype, NPU_DT_NONE for the types the card has not
 *
 * NPU_DTYPES_GE(X) are the types libge's ge::DataType has, the rest are in
 * NPU_DTYPES_ACL_ONLY(X), so that libge can check each of its names.
 */
#ifndef NPU_DTYPES_H
#define NPU_DTYPES_H

#include <stddef.h>

#include "npu_operator.h"

#define NPU_DT_NONE		(-1)

/* What each numbering calls "no type". */
#define NPU_DT_ACL_UNDEFINED	(-1)
#define NPU_DT_ONNX_UNDEFINED	0
#define NPU_DT_GE_UNDEFINED	28

#define NPU_DTYPES_GE(X)							\
	X(FLOAT,	"float",	4,  0, 1,  0,  NPU_DTYPE_F32)		\
	X(FLOAT16,	"float16",	2,  1, 10, 1,  NPU_DTYPE_F16)		\
	X(INT8,		"int8",		1,  2, 3,  2,  NPU_DTYPE_S8)		\
	X(INT32,	"int32",	4,  3, 6,  3,  NPU_DTYPE_S32)		\
	X(UINT8,	"uint8",	1,  4, 2,  4,  NPU_DTYPE_U8)		\
	X(INT16,	"int16",	2,  6, 5,  6,  NPU_DTYPE_S16)		\
	X(UINT16,	"uint16",	2,  7, 4,  7,  NPU_DT_NONE)		\
	X(UINT32,	"uint32",	4,  8, 12, 8,  NPU_DT_NONE)		\
	X(INT64,	"int64",	8,  9, 7,  9,  NPU_DTYPE_S64)		\
	X(UINT64,	"uint64",	8, 10, 13, 10, NPU_DTYPE_U64)		\
	X(DOUBLE,	"double",	8, 11, 11, 11, NPU_DTYPE_F64)		\
	X(BOOL,		"bool",		1, 12, 9,  12, NPU_DTYPE_BOOL)		\
	X(STRING,	"string",	0, 13, 8,  13, NPU_DT_NONE)		\
	X(BF16,		"bfloat16",	2, 27, 16, 27, NPU_DTYPE_BF16)

#define NPU_DTYPES_ACL_ONLY(X)							\
	X(COMPLEX64,	"complex64",	8, 16, 14, NPU_DT_NONE, NPU_DT_NONE)	\
	X(COMPLEX128,	"complex128",	16, 17, 15, NPU_DT_NONE, NPU_DT_NONE)	\
	X(INT4,		"int4",		1, 29, NPU_DT_NONE, NPU_DT_NONE, NPU_DT_NONE) \
	X(UINT1,	"uint1",	1, 30, NPU_DT_NONE, NPU_DT_NONE, NPU_DT_NONE) \
	X(COMPLEX32,	"complex32",	4, 33, NPU_DT_NONE, NPU_DT_NONE, NPU_DT_NONE) \
	X(HIFLOAT8,	"hifloat8",	1, 34, NPU_DT_NONE, NPU_DT_NONE, NPU_DT_NONE) \
	X(FLOAT8_E5M2,	"float8_e5m2",	1, 35, NPU_DT_NONE, NPU_DT_NONE, NPU_DT_NONE) \
	X(FLOAT8_E4M3FN, "float8_e4m3fn", 1, 36, NPU_DT_NONE, NPU_DT_NONE, NPU_DT_NONE) \
	X(FLOAT8_E8M0,	"float8_e8m0",	1, 37, NPU_DT_NONE, NPU_DT_NONE, NPU_DT_NONE) \
	X(FLOAT6_E3M2,	"float6_e3m2",	1, 38, NPU_DT_NONE, NPU_DT_NONE, NPU_DT_NONE) \
	X(FLOAT6_E2M3,	"float6_e2m3",	1, 39, NPU_DT_NONE, NPU_DT_NONE, NPU_DT_NONE) \
	X(FLOAT4_E2M1,	"float4_e2m1",	1, 40, NPU_DT_NONE, NPU_DT_NONE, NPU_DT_NONE) \
	X(FLOAT4_E1M2,	"float4_e1m2",	1, 41, NPU_DT_NONE, NPU_DT_NONE, NPU_DT_NONE) \
	X(HIFLOAT4,	"hifloat4",	1, 42, NPU_DT_NONE, NPU_DT_NONE, NPU_DT_NONE) \
	X(HIFLOAT4_SCALE, "hifloat4_scale", 1, 43, NPU_DT_NONE, NPU_DT_NONE, NPU_DT_NONE)

#define NPU_DTYPES(X) NPU_DTYPES_GE(X) NPU_DTYPES_ACL_ONLY(X)

/*
 * The ONNX numbers by name, for the parts that keep ONNX's numbering;
 * NPU_DT_NONE for the types without one.
 */
#define NPU_DT_ONNX_ENUM(id, name, size, acl, onnx, ge, card) NPU_ONNX_##id = (onnx),
enum npu_onnx_dtype {
	NPU_ONNX_UNDEFINED = NPU_DT_ONNX_UNDEFINED,
	NPU_DTYPES(NPU_DT_ONNX_ENUM)
};
#undef NPU_DT_ONNX_ENUM

struct npu_dtype_info {
	const char *name;
	unsigned int size;
	int acl, onnx, ge, card;
};

#define NPU_DT_INFO(id, name, size, acl, onnx, ge, card) \
	{ name, size, acl, onnx, ge, card },
static const struct npu_dtype_info npu_dtype_infos[] = { NPU_DTYPES(NPU_DT_INFO) };
#undef NPU_DT_INFO

#ifdef __cplusplus
#define NPU_DT_STATIC_ASSERT static_assert
#else
#define NPU_DT_STATIC_ASSERT _Static_assert
#endif

/*
 * The card's sizes are the uapi's (the conditional keeps NPU_DTYPE_SIZE's
 * shift from going negative on the rows without a card type); the graph
 * engine converts aclDataType to ge::DataType by value
 * (libge/src/session.cc), as the vendor's share their numbers.
 */
#define NPU_DT_CHECK(id, name, size, acl, onnx, ge, card)			\
	NPU_DT_STATIC_ASSERT((card) == NPU_DT_NONE ||				\
			     NPU_DTYPE_SIZE((card) < 0 ? 0 : (card)) == (size),	\
			     "the uapi's size of " #id);			\
	NPU_DT_STATIC_ASSERT((ge) == NPU_DT_NONE || (ge) == (acl),		\
			     "ge::DataType and aclDataType of " #id);
NPU_DTYPES(NPU_DT_CHECK)
#undef NPU_DT_CHECK

/* Every card type has its row. */
#define NPU_DT_IS_CARD(id, name, size, acl, onnx, ge, card) + ((card) != NPU_DT_NONE)
NPU_DT_STATIC_ASSERT((0 NPU_DTYPES(NPU_DT_IS_CARD)) == NPU_DTYPE_LAST + 1,
		     "a card type without a row");
#undef NPU_DT_IS_CARD

/* The row of a type by its number in one numbering; NULL if none has it. */
#define NPU_DT_LOOKUP(numbering)						\
static inline const struct npu_dtype_info *npu_dtype_by_##numbering(int n)	\
{										\
	size_t i;								\
										\
	for (i = 0; n != NPU_DT_NONE &&						\
		    i < sizeof(npu_dtype_infos) / sizeof(npu_dtype_infos[0]); i++) \
		if (npu_dtype_infos[i].numbering == n)				\
			return &npu_dtype_infos[i];				\
	return NULL;								\
}
NPU_DT_LOOKUP(acl)
NPU_DT_LOOKUP(onnx)
NPU_DT_LOOKUP(ge)
#undef NPU_DT_LOOKUP

/* Bytes per element; 0 for unknown types and strings. */
static inline size_t npu_dtype_acl_size(int acl)
{
	const struct npu_dtype_info *t = npu_dtype_by_acl(acl);

	return t ? t->size : 0;
}

static inline size_t npu_dtype_onnx_size(int onnx)
{
	const struct npu_dtype_info *t = npu_dtype_by_onnx(onnx);

	return t ? t->size : 0;
}

static inline size_t npu_dtype_ge_size(int ge)
{
	const struct npu_dtype_info *t = npu_dtype_by_ge(ge);

	return t ? t->size : 0;
}

/* The uapi's size of enum npu_dtype card; 0 for numbers past the enum. */
static inline size_t npu_dtype_card_size(unsigned int card)
{
	return card <= NPU_DTYPE_LAST ? NPU_DTYPE_SIZE(card) : 0;
}

/* Conversions: the other numbering's "no type" when it has none. */
static inline int npu_dtype_onnx_to_acl(int onnx)
{
	const struct npu_dtype_info *t = npu_dtype_by_onnx(onnx);

	return t ? t->acl : NPU_DT_ACL_UNDEFINED;
}

static inline int npu_dtype_acl_to_onnx(int acl)
{
	const struct npu_dtype_info *t = npu_dtype_by_acl(acl);

	return t && t->onnx != NPU_DT_NONE ? t->onnx : NPU_DT_ONNX_UNDEFINED;
}

static inline int npu_dtype_ge_to_acl(int ge)
{
	const struct npu_dtype_info *t = npu_dtype_by_ge(ge);

	return t ? t->acl : NPU_DT_ACL_UNDEFINED;
}

static inline int npu_dtype_ge_to_onnx(int ge)
{
	const struct npu_dtype_info *t = npu_dtype_by_ge(ge);

	return t && t->onnx != NPU_DT_NONE ? t->onnx : NPU_DT_ONNX_UNDEFINED;
}

/*
 * The card type a compiler may plan any operator with, or NPU_DT_NONE:
 * U64 the card has for BINARY, CAST and moving elements only
 * (docs/hardware.md), so the compilers, which lower every operator of a
 * model or of aclnn onto any of the card's, leave it out.
 */
static inline int npu_dtype_card_for_compilers(int card)
{
	return card == NPU_DTYPE_U64 ? NPU_DT_NONE : card;
}

/* enum npu_dtype, or NPU_DT_NONE for a type the card has not. */
static inline int npu_dtype_onnx_to_card(int onnx)
{
	const struct npu_dtype_info *t = npu_dtype_by_onnx(onnx);

	return t ? npu_dtype_card_for_compilers(t->card) : NPU_DT_NONE;
}

#endif /* NPU_DTYPES_H */
