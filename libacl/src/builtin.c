// SPDX-License-Identifier: MIT
/*
 * Built-in tasks: aclrtReduceAsync and aclrtRandomNumAsync, each one card
 * operator queued on the caller's stream behind its earlier work, as a
 * model's operators are (the driver copies the descriptor when it takes
 * the command, so it lives on the stack).
 *
 * A reduce is BINARY with y = a: dst = dst op src, elementwise over
 * count bytes. A random task is RANDOM (card/oplib/oplib_random.c):
 * Philox4x32-10 keyed by the seed, element i at counter c + i, c the
 * 128-bit little-endian number in the task's 16-byte counter, which the
 * card then advances past the numbers drawn; the same seed and counter
 * draw the same numbers. Integers are uniform over [min, max), floats
 * over [min, max) rounded to their type; a dropout mask holds one bit per
 * number, bit i of byte i / 8 at 1 << (i % 8), set (kept) with
 * probability 1 - ratio.
 */
#include <endian.h>
#include <string.h>

#include "acl_internal.h"
#include "npu_dtypes.h"
#include "npu_operator.h"

#define BUILTIN_MAX_TENSORS	3

/* A descriptor with room for a built-in task's tensors, aligned as the card wants. */
struct builtin_desc {
	struct npu_op_desc op;
	struct npu_tensor_desc tensors[BUILTIN_MAX_TENSORS];
} __attribute__((aligned(NPU_OP_DESC_ALIGN)));

static void builtin_tensor(struct npu_tensor_desc *t, const void *addr, unsigned int dtype,
			   uint64_t n)
{
	memset(t, 0, sizeof(*t));
	t->addr = htole64((uintptr_t)addr);
	t->dtype = htole16(dtype);
	t->format = htole16(NPU_FORMAT_STRIDED);
	t->ndims = htole16(1);
	t->dims[0] = htole64(n);
	t->strides[0] = htole64(1);
}

static aclError builtin_submit(struct acl_stream *s, struct builtin_desc *d)
{
	struct drm_npu_cmd cmd = {
		.op = DRM_NPU_OP_COMPUTE,
		.src = (uintptr_t)&d->op,
		.size = sizeof(d->op) +
			(d->op.num_inputs + d->op.num_outputs) * sizeof(struct npu_tensor_desc),
	};

	return acl_stream_submit(s, &cmd, 1, NULL);
}

/* [p, p + len) lies in one allocation of the stream's device. */
static aclError builtin_devmem(const char *fn, struct acl_stream *s, const char *what,
			       const void *p, uint64_t len, unsigned int align)
{
	if (!p)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "%s is NULL", what);
	if (!acl_is_dev_ptr(p) || !acl_devmem_padding_holds(s->dev, (uintptr_t)p, len))
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "%s %p is not %llu bytes of one "
				"allocation of device %d, the stream's", what, p,
				(unsigned long long)len, s->dev->id);
	if ((uintptr_t)p % align)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "%s %p is not aligned to its %u-byte "
				"elements", what, p, align);
	return ACL_SUCCESS;
}

/* ---- aclrtReduceAsync ---------------------------------------------------- */

static aclError reduce_kind(aclrtReduceKind kind, uint32_t *binary)
{
	switch (kind) {
	case ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM:
		*binary = NPU_BINARY_ADD;
		return ACL_SUCCESS;
	case ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX:
		*binary = NPU_BINARY_MAX;
		return ACL_SUCCESS;
	case ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN:
		*binary = NPU_BINARY_MIN;
		return ACL_SUCCESS;
	case ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL:
		return ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "reduce kind EQUAL (%d) is not "
				"supported on this card: SUM, MAX and MIN are", kind);
	}
	return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%d is not an aclrtReduceKind", kind);
}

/* The card's type for a reduce: every one BINARY computes but BOOL. */
static aclError reduce_type(aclDataType type, unsigned int *card)
{
	const struct npu_dtype_info *t = npu_dtype_by_acl(type);

	if (!t)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%d is not an aclDataType", type);
	if (t->card == NPU_DT_NONE || t->card == NPU_DTYPE_BOOL)
		return ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "reducing %s is not supported on "
				"this card", t->name);
	*card = t->card;
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtReduceAsync(void *dst, const void *src, uint64_t count,
				     aclrtReduceKind kind, aclDataType type, aclrtStream stream,
				     void *reserve)
{
	struct builtin_desc d = { 0 };
	struct acl_stream *s;
	unsigned int card = 0, esize;
	uint32_t binary = 0;
	aclError err = ACL_SUCCESS;

	if (reserve)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "reserve must be NULL");
	if ((err = reduce_kind(kind, &binary)) || (err = reduce_type(type, &card)))
		return err;
	esize = NPU_DTYPE_SIZE(card);
	if (count % esize)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "count %llu is not a whole number of "
				"%u-byte elements", (unsigned long long)count, esize);
	s = acl_stream_resolve(stream, &err);
	if (!s)
		return err;
	if ((err = builtin_devmem(__func__, s, "dst", dst, count, esize)) ||
	    (err = builtin_devmem(__func__, s, "src", src, count, esize)))
		return err;
	if (!count)
		return ACL_SUCCESS;
	d.op.kind = htole16(NPU_OPERATOR_BINARY);
	d.op.num_inputs = 2;
	d.op.num_outputs = 1;
	d.op.attrs.binary.kind = htole32(binary);
	builtin_tensor(&d.op.tensors[0], dst, card, count / esize);
	builtin_tensor(&d.op.tensors[1], src, card, count / esize);
	builtin_tensor(&d.op.tensors[2], dst, card, count / esize);
	return builtin_submit(s, &d);
}

/* ---- aclrtRandomNumAsync -------------------------------------------------- */

/* A task's types: the card's for y, and whether its integers are unsigned. */
struct random_type {
	unsigned int card;
	bool is_unsigned;
	bool is_float;
	unsigned int size;	/* of a parameter, in bytes */
};

static aclError random_type(aclDataType type, struct random_type *t)
{
	switch (type) {
	case ACL_FLOAT:
		*t = (struct random_type){ NPU_DTYPE_F32, false, true, 4 };
		return ACL_SUCCESS;
	case ACL_FLOAT16:
		*t = (struct random_type){ NPU_DTYPE_F16, false, true, 2 };
		return ACL_SUCCESS;
	case ACL_BF16:
		*t = (struct random_type){ NPU_DTYPE_BF16, false, true, 2 };
		return ACL_SUCCESS;
	case ACL_INT32:
		*t = (struct random_type){ NPU_DTYPE_S32, false, false, 4 };
		return ACL_SUCCESS;
	case ACL_UINT32:
		*t = (struct random_type){ NPU_DTYPE_S32, true, false, 4 };
		return ACL_SUCCESS;
	case ACL_INT64:
		*t = (struct random_type){ NPU_DTYPE_S64, false, false, 8 };
		return ACL_SUCCESS;
	case ACL_UINT64:
		*t = (struct random_type){ NPU_DTYPE_S64, true, false, 8 };
		return ACL_SUCCESS;
	default:
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "random numbers of aclDataType %d: the "
				"types are FLOAT, FLOAT16, BF16, INT32, UINT32, INT64 and UINT64",
				type);
	}
}

/* A parameter given by value, @size bytes of it (little endian). */
static aclError random_value(const aclrtRandomParaInfo *p, const char *what, unsigned int size,
			     uint64_t *v)
{
	if (p->isAddr)
		return ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "%s given by address: this card "
				"takes a random task's parameters by value (isAddr 0)", what);
	if (p->size != size && !(size == 8 && p->size && p->size < 8))
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%s has size %u, its type %u bytes",
				what, p->size, size);
	*v = 0;
	memcpy(v, p->valueOrAddr, p->size);
	*v = le64toh(*v);
	return ACL_SUCCESS;
}

static uint64_t f64_bits(double d)
{
	uint64_t b;

	memcpy(&b, &d, sizeof(b));
	return b;
}

/* A floating parameter's bits as binary64, an integer's as 64 bits. */
static uint64_t random_widen(const struct random_type *t, uint64_t raw)
{
	uint32_t u32 = (uint32_t)raw;
	uint16_t u16 = (uint16_t)raw;
	_Float16 h;
	float f;

	switch (t->card) {
	case NPU_DTYPE_F32:
		memcpy(&f, &u32, sizeof(f));
		return f64_bits(f);
	case NPU_DTYPE_F16:
		memcpy(&h, &u16, sizeof(h));
		return f64_bits((double)h);
	case NPU_DTYPE_BF16:
		u32 = (uint32_t)u16 << 16;
		memcpy(&f, &u32, sizeof(f));
		return f64_bits(f);
	case NPU_DTYPE_S32:
		return t->is_unsigned ? (uint64_t)u32 : (uint64_t)(int64_t)(int32_t)u32;
	default:
		return raw;
	}
}

/* The operator's distribution and its two parameters. */
static aclError random_params(const aclrtRandomNumTaskInfo *ti, const struct random_type *t,
			      struct npu_attr_random *a)
{
	const aclrtRandomNumFuncParaInfo *f = &ti->randomNumFuncParaInfo;
	const aclrtRandomParaInfo *p0, *p1 = NULL;
	uint64_t lo, hi = 0;
	aclError err;

	switch (f->funcType) {
	case ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK:
		if (ti->dataType != ACL_FLOAT && ti->dataType != ACL_FLOAT16 &&
		    ti->dataType != ACL_BF16)
			return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "a dropout ratio is FLOAT, FLOAT16 "
					"or BF16, not aclDataType %d", ti->dataType);
		a->dist = htole32(NPU_RANDOM_DROPOUT_MASK);
		p0 = &f->paramInfo.dropoutBitmaskInfo.dropoutRation;
		break;
	case ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS:
		a->dist = htole32(NPU_RANDOM_UNIFORM);
		p0 = &f->paramInfo.uniformDisInfo.min;
		p1 = &f->paramInfo.uniformDisInfo.max;
		break;
	case ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS:
	case ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS:
		if (!t->is_float)
			return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "normal distributions draw FLOAT, "
					"FLOAT16 or BF16, not aclDataType %d", ti->dataType);
		a->dist = htole32(f->funcType == ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS ?
				  NPU_RANDOM_NORMAL : NPU_RANDOM_TRUNCATED_NORMAL);
		p0 = &f->paramInfo.normalDisInfo.mean;
		p1 = &f->paramInfo.normalDisInfo.stddev;
		break;
	default:
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%d is not an aclrtRandomNumFuncType",
				f->funcType);
	}
	if ((err = random_value(p0, "the first parameter", t->size, &lo)) ||
	    (p1 && (err = random_value(p1, "the second parameter", t->size, &hi))))
		return err;
	a->lo = htole64(random_widen(t, lo));
	a->hi = htole64(p1 ? random_widen(t, hi) : 0);
	a->flags = htole32(t->is_unsigned && !t->is_float ? NPU_RANDOM_UNSIGNED : 0);
	return ACL_SUCCESS;
}

/* What the card would refuse, said here with the reason. */
static aclError random_bounds(const struct npu_attr_random *a, const struct random_type *t)
{
	uint64_t lo = le64toh(a->lo), hi = le64toh(a->hi);
	double dlo, dhi;

	if (le32toh(a->dist) == NPU_RANDOM_DROPOUT_MASK || t->is_float) {
		memcpy(&dlo, &lo, sizeof(dlo));
		memcpy(&dhi, &hi, sizeof(dhi));
		if (le32toh(a->dist) == NPU_RANDOM_DROPOUT_MASK && !(dlo >= 0 && dlo <= 1))
			return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "dropout ratio %g is not in [0, 1]",
					dlo);
		if (le32toh(a->dist) == NPU_RANDOM_UNIFORM && !(dlo < dhi))
			return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "uniform min %g is not below max %g",
					dlo, dhi);
		if (le32toh(a->dist) != NPU_RANDOM_UNIFORM && !(dhi >= 0))
			return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "stddev %g is negative", dhi);
		return ACL_SUCCESS;
	}
	if (t->is_unsigned ? lo >= hi : (int64_t)lo >= (int64_t)hi)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "uniform min is not below max: integers "
				"are drawn from [min, max)");
	return ACL_SUCCESS;
}

static aclError random_check_task(const aclrtRandomNumTaskInfo *ti, void *reserve,
				  uint64_t *num, uint64_t *seed)
{
	aclError err;

	ACL_CHECK_NULL(ti);
	if (reserve)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "reserve must be NULL");
	if ((err = random_value(&ti->randomNum, "randomNum", 8, num)) ||
	    (err = random_value(&ti->randomSeed, "randomSeed", 8, seed)))
		return err;
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtRandomNumAsync(const aclrtRandomNumTaskInfo *taskInfo,
					const aclrtStream stream, void *reserve)
{
	struct builtin_desc d = { 0 };
	struct random_type t = { 0 };
	struct acl_stream *s;
	uint64_t num, seed, elems, bytes;
	aclError err = ACL_SUCCESS;

	if ((err = random_check_task(taskInfo, reserve, &num, &seed)))
		return err;
	if ((err = random_type(taskInfo->dataType, &t)) ||
	    (err = random_params(taskInfo, &t, &d.op.attrs.random)) ||
	    (err = random_bounds(&d.op.attrs.random, &t)))
		return err;
	d.op.attrs.random.seed = htole64(seed);
	if (le32toh(d.op.attrs.random.dist) == NPU_RANDOM_DROPOUT_MASK) {
		d.op.attrs.random.bits = htole64(num);
		t.card = NPU_DTYPE_U8;
		elems = num / 8 + (num % 8 != 0);
	} else {
		elems = num;
	}
	if (elems > UINT64_MAX / NPU_DTYPE_SIZE(t.card))
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%llu random numbers do not fit in memory",
				(unsigned long long)num);
	bytes = elems * NPU_DTYPE_SIZE(t.card);
	s = acl_stream_resolve(stream, &err);
	if (!s || !num)
		return err;
	if ((err = builtin_devmem(__func__, s, "randomCounterAddr", taskInfo->randomCounterAddr,
				  16, 8)) ||
	    (err = builtin_devmem(__func__, s, "randomResultAddr", taskInfo->randomResultAddr,
				  bytes, NPU_DTYPE_SIZE(t.card))))
		return err;
	d.op.kind = htole16(NPU_OPERATOR_RANDOM);
	d.op.num_inputs = 1;
	d.op.num_outputs = 1;
	builtin_tensor(&d.op.tensors[0], taskInfo->randomCounterAddr, NPU_DTYPE_S64, 2);
	builtin_tensor(&d.op.tensors[1], taskInfo->randomResultAddr, t.card, elems);
	return builtin_submit(s, &d);
}
