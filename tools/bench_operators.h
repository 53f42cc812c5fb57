/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * The operators that oplib-bench runs natively and op-bench runs on the
 * card: one definition, so that both build the same descriptors (the same
 * shapes and attributes, hence the same oneDNN primitives) over the same
 * data.  Only the tensors' addresses differ: arena offsets natively,
 * device addresses on the card.
 *
 *   conv2d   3x3, x 1x64x56x56, 64 filters, pad 1 (float32)
 *   matmul   1024x1024 by 1024x1024 (float32)
 *   add      two tensors of 16 Mi float32 elements
 *
 * and, for aclnn-bench's single operators only (op-bench runs the first
 * BENCH_NUM_OPS):
 *
 *   matmul_f16  1024x1024 by 1024x1024 (float16)
 *   matvec      4096x4096 by 4096x1 (float32)
 *   softmax     4096 rows of 4096 (float32)
 *   rmsnorm     4096 rows of 4096 by a gamma of 4096 (float32)
 *
 * and, for oplib-bench only, products over quantized weights against the
 * same products in float32 (QMATMUL: x float32, w int8 or int4 given as
 * (N, K) as ggml's q8_0 and q4_0 are, float16 scales per 32 rows of K):
 *
 *   matmul_x128   128x4096 by 4096x4096 (float32)
 *   qmatmul_q8    128x4096 by 4096x4096 int8
 *   qmatmul_q4    128x4096 by 4096x4096 int4
 *   qmatvec_q8    1x4096 by 4096x4096 int8 (against matvec)
 *   qmatvec_q4    1x4096 by 4096x4096 int4
 */
#ifndef BENCH_OPERATORS_H
#define BENCH_OPERATORS_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

#include "npu_operator.h"

enum bench_op_id {
	BENCH_CONV2D,
	BENCH_MATMUL,
	BENCH_ADD,
	BENCH_NUM_OPS,			/* op-bench's */
	BENCH_MATMUL_F16 = BENCH_NUM_OPS,
	BENCH_MATVEC,
	BENCH_SOFTMAX,
	BENCH_RMSNORM,
	BENCH_MATMUL_X128,
	BENCH_QMATMUL_Q8,
	BENCH_QMATMUL_Q4,
	BENCH_QMATVEC_Q8,
	BENCH_QMATVEC_Q4,
	BENCH_ALL_OPS,
};

#define BENCH_RMSNORM_EPSILON	1e-6f

/* Inputs, then the output. */
#define BENCH_MAX_TENSORS	4

/* QMATMUL's rows of K per scale, as ggml's q8_0 and q4_0 blocks. */
#define BENCH_QMATMUL_GROUP	32

struct bench_tensor_shape {
	unsigned int ndims;
	uint64_t dims[4];
};

struct bench_operator {
	const char *key;	/* its name in both programs' JSON */
	const char *name;
	uint16_t kind;		/* enum npu_operator */
	uint8_t num_inputs;
	uint16_t dtype;		/* enum npu_dtype of every tensor; 0 is F32 */
	const uint16_t *tensor_dtypes;	/* or, when not NULL, of each */
	struct bench_tensor_shape tensors[BENCH_MAX_TENSORS];
	double flops;		/* per run: a multiply-add counts 2 */
};

/* QMATMUL's x, w, scale and y. */
static const uint16_t bench_qmatmul_dtypes[BENCH_MAX_TENSORS] = {
	NPU_DTYPE_F32, NPU_DTYPE_S8, NPU_DTYPE_F16, NPU_DTYPE_F32,
};

static const struct bench_operator bench_operators[BENCH_ALL_OPS] = {
	[BENCH_CONV2D] = {
		.key = "conv2d", .name = "conv2d 3x3 1x64x56x56 o64 p1",
		.kind = NPU_OPERATOR_CONV2D, .num_inputs = 2,
		.tensors = { { 4, { 1, 64, 56, 56 } }, { 4, { 64, 64, 3, 3 } },
			     { 4, { 1, 64, 56, 56 } } },
		.flops = 2.0 * 64 * 56 * 56 * 64 * 3 * 3,
	},
	[BENCH_MATMUL] = {
		.key = "matmul", .name = "matmul 1024x1024x1024",
		.kind = NPU_OPERATOR_MATMUL, .num_inputs = 2,
		.tensors = { { 2, { 1024, 1024 } }, { 2, { 1024, 1024 } },
			     { 2, { 1024, 1024 } } },
		.flops = 2.0 * 1024 * 1024 * 1024,
	},
	[BENCH_ADD] = {
		.key = "add", .name = "add 16Mi",
		.kind = NPU_OPERATOR_BINARY, .num_inputs = 2,
		.tensors = { { 1, { 16u << 20 } }, { 1, { 16u << 20 } },
			     { 1, { 16u << 20 } } },
		.flops = 16.0 * (1u << 20),
	},
	[BENCH_MATMUL_F16] = {
		.key = "matmul_f16", .name = "matmul f16 1024x1024x1024",
		.kind = NPU_OPERATOR_MATMUL, .num_inputs = 2, .dtype = NPU_DTYPE_F16,
		.tensors = { { 2, { 1024, 1024 } }, { 2, { 1024, 1024 } },
			     { 2, { 1024, 1024 } } },
		.flops = 2.0 * 1024 * 1024 * 1024,
	},
	[BENCH_MATVEC] = {
		.key = "matvec", .name = "matmul 4096x4096 by 4096x1",
		.kind = NPU_OPERATOR_MATMUL, .num_inputs = 2,
		.tensors = { { 2, { 4096, 4096 } }, { 2, { 4096, 1 } }, { 2, { 4096, 1 } } },
		.flops = 2.0 * 4096 * 4096,
	},
	[BENCH_SOFTMAX] = {
		.key = "softmax", .name = "softmax 4096x4096",
		.kind = NPU_OPERATOR_SOFTMAX, .num_inputs = 1,
		.tensors = { { 2, { 4096, 4096 } }, { 2, { 4096, 4096 } } },
		.flops = 4.0 * 4096 * 4096,
	},
	[BENCH_RMSNORM] = {
		.key = "rmsnorm", .name = "rmsnorm 4096x4096",
		.kind = NPU_OPERATOR_RMSNORM, .num_inputs = 2,
		.tensors = { { 2, { 4096, 4096 } }, { 1, { 4096 } }, { 2, { 4096, 4096 } } },
		.flops = 4.0 * 4096 * 4096,
	},
	[BENCH_MATMUL_X128] = {
		.key = "matmul_x128", .name = "matmul 128x4096 by 4096x4096",
		.kind = NPU_OPERATOR_MATMUL, .num_inputs = 2,
		.tensors = { { 2, { 128, 4096 } }, { 2, { 4096, 4096 } }, { 2, { 128, 4096 } } },
		.flops = 2.0 * 128 * 4096 * 4096,
	},
	[BENCH_QMATMUL_Q8] = {
		.key = "qmatmul_q8", .name = "qmatmul int8 128x4096 by 4096x4096",
		.kind = NPU_OPERATOR_QMATMUL, .num_inputs = 3,
		.tensor_dtypes = bench_qmatmul_dtypes,
		.tensors = { { 2, { 128, 4096 } }, { 2, { 4096, 4096 } },
			     { 2, { 4096 / BENCH_QMATMUL_GROUP, 4096 } }, { 2, { 128, 4096 } } },
		.flops = 2.0 * 128 * 4096 * 4096,
	},
	[BENCH_QMATMUL_Q4] = {
		.key = "qmatmul_q4", .name = "qmatmul int4 128x4096 by 4096x4096",
		.kind = NPU_OPERATOR_QMATMUL, .num_inputs = 3,
		.tensor_dtypes = bench_qmatmul_dtypes,
		.tensors = { { 2, { 128, 4096 } }, { 2, { 4096, 2048 } },
			     { 2, { 4096 / BENCH_QMATMUL_GROUP, 4096 } }, { 2, { 128, 4096 } } },
		.flops = 2.0 * 128 * 4096 * 4096,
	},
	[BENCH_QMATVEC_Q8] = {
		.key = "qmatvec_q8", .name = "qmatmul int8 1x4096 by 4096x4096",
		.kind = NPU_OPERATOR_QMATMUL, .num_inputs = 3,
		.tensor_dtypes = bench_qmatmul_dtypes,
		.tensors = { { 2, { 1, 4096 } }, { 2, { 4096, 4096 } },
			     { 2, { 4096 / BENCH_QMATMUL_GROUP, 4096 } }, { 2, { 1, 4096 } } },
		.flops = 2.0 * 4096 * 4096,
	},
	[BENCH_QMATVEC_Q4] = {
		.key = "qmatvec_q4", .name = "qmatmul int4 1x4096 by 4096x4096",
		.kind = NPU_OPERATOR_QMATMUL, .num_inputs = 3,
		.tensor_dtypes = bench_qmatmul_dtypes,
		.tensors = { { 2, { 1, 4096 } }, { 2, { 4096, 2048 } },
			     { 2, { 4096 / BENCH_QMATMUL_GROUP, 4096 } }, { 2, { 1, 4096 } } },
		.flops = 2.0 * 4096 * 4096,
	},
};

/* The descriptor's bytes: the header and one tensor per input and output. */
#define BENCH_DESC_SIZE	(sizeof(struct npu_op_desc) + \
			 BENCH_MAX_TENSORS * sizeof(struct npu_tensor_desc))

struct bench_desc {
	_Alignas(NPU_OP_DESC_ALIGN) uint8_t bytes[BENCH_DESC_SIZE];
};

static inline uint64_t bench_tensor_elems(const struct bench_tensor_shape *s)
{
	uint64_t n = 1;
	unsigned int d;

	for (d = 0; d < s->ndims; d++)
		n *= s->dims[d];
	return n;
}

static inline uint64_t bench_tensor_bytes(const struct bench_tensor_shape *s)
{
	return bench_tensor_elems(s) * sizeof(float);
}

static inline unsigned int bench_op_tensor_dtype(const struct bench_operator *op, unsigned int i)
{
	return op->tensor_dtypes ? op->tensor_dtypes[i] : op->dtype;
}

/* Tensor i of operator op, which has fewer than BENCH_MAX_TENSORS when ndims is 0. */
static inline uint64_t bench_op_tensor_bytes(const struct bench_operator *op, unsigned int i)
{
	return bench_tensor_elems(&op->tensors[i]) * NPU_DTYPE_SIZE(bench_op_tensor_dtype(op, i));
}

/* The output: the last tensor the operator has. */
static inline unsigned int bench_op_num_tensors(const struct bench_operator *op)
{
	return op->num_inputs + 1u;
}

/* The values every tensor starts with: small, and no denormals. */
static inline void bench_fill(float *p, uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		p[i] = (float)((uint32_t)(i * 2654435761u) % 1000) / 1000.0f - 0.5f;
}

/* bench_fill()'s values in dtype (F32 or F16); S8 from -127 to 127. */
static inline void bench_fill_dtype(void *p, uint64_t n, unsigned int dtype)
{
	_Float16 *h = p;
	int8_t *b = p;
	uint64_t i;

	if (dtype == NPU_DTYPE_S8) {
		for (i = 0; i < n; i++)
			b[i] = (int8_t)((uint32_t)(i * 2654435761u) % 255 - 127);
		return;
	}
	if (dtype != NPU_DTYPE_F16) {
		bench_fill(p, n);
		return;
	}
	for (i = 0; i < n; i++)
		h[i] = (_Float16)((float)((uint32_t)(i * 2654435761u) % 1000) / 1000.0f - 0.5f);
}

/* A dense, row-major tensor of dtype at @addr. */
static inline void bench_tensor_desc_of(struct npu_tensor_desc *t, uint64_t addr,
					const struct bench_tensor_shape *s, unsigned int dtype)
{
	uint64_t stride = 1;
	int d;

	memset(t, 0, sizeof(*t));
	t->addr = htole64(addr);
	t->dtype = htole16(dtype);
	t->format = htole16(NPU_FORMAT_STRIDED);
	t->ndims = htole16(s->ndims);
	for (d = (int)s->ndims - 1; d >= 0; d--) {
		t->dims[d] = htole64(s->dims[d]);
		t->strides[d] = htole64(stride);
		stride *= s->dims[d];
	}
}

/* A dense, row-major float32 tensor at @addr. */
static inline void bench_tensor_desc(struct npu_tensor_desc *t, uint64_t addr,
				     const struct bench_tensor_shape *s)
{
	bench_tensor_desc_of(t, addr, s, NPU_DTYPE_F32);
}

static inline void bench_attrs(enum bench_op_id id, union npu_op_attrs *a)
{
	const float one = 1.0f, epsilon = BENCH_RMSNORM_EPSILON;
	uint32_t bits;
	unsigned int i;

	switch (id) {
	case BENCH_CONV2D:
		for (i = 0; i < 2; i++) {
			a->conv.strides[i] = htole32(1);
			a->conv.dilations[i] = htole32(1);
			a->conv.pads_begin[i] = htole32(1);
		}
		a->conv.group = htole32(1);
		break;
	case BENCH_MATMUL:
	case BENCH_MATMUL_F16:
	case BENCH_MATVEC:
		memcpy(&bits, &one, sizeof(bits));
		a->matmul.alpha = htole32(bits);
		break;
	case BENCH_MATMUL_X128:
		memcpy(&bits, &one, sizeof(bits));
		a->matmul.alpha = htole32(bits);
		break;
	case BENCH_QMATMUL_Q8:
	case BENCH_QMATMUL_Q4:
	case BENCH_QMATVEC_Q8:
	case BENCH_QMATVEC_Q4:
		a->qmatmul.group = htole32(BENCH_QMATMUL_GROUP);
		a->qmatmul.bits = htole32(id == BENCH_QMATMUL_Q4 || id == BENCH_QMATVEC_Q4 ? 4 : 8);
		a->qmatmul.trans_w = htole32(1);
		break;
	case BENCH_ADD:
		a->binary.kind = htole32(NPU_BINARY_ADD);
		break;
	case BENCH_SOFTMAX:
		a->softmax.axis = htole32(1);
		break;
	case BENCH_RMSNORM:
		memcpy(&bits, &epsilon, sizeof(bits));
		a->norm.axis = htole32(1);
		a->norm.epsilon = htole32(bits);
		break;
	case BENCH_ALL_OPS:
		break;
	}
}

/* Operator @id over tensors at @addrs (inputs, then the output). */
static inline void bench_desc_build(enum bench_op_id id, const uint64_t *addrs,
				    struct bench_desc *desc)
{
	const struct bench_operator *op = &bench_operators[id];
	struct npu_op_desc *d = (struct npu_op_desc *)desc->bytes;
	unsigned int i;

	memset(desc, 0, sizeof(*desc));
	d->kind = htole16(op->kind);
	d->num_inputs = op->num_inputs;
	d->num_outputs = 1;
	bench_attrs(id, &d->attrs);
	for (i = 0; i < bench_op_num_tensors(op); i++)
		bench_tensor_desc_of(&d->tensors[i], addrs[i], &op->tensors[i],
				     bench_op_tensor_dtype(op, i));
}

/* The descriptor's length: the header and the operator's tensors. */
static inline uint32_t bench_desc_size(enum bench_op_id id)
{
	return sizeof(struct npu_op_desc) +
	       bench_op_num_tensors(&bench_operators[id]) * sizeof(struct npu_tensor_desc);
}

/*
 * Paired runs (make bench): this host's speed swings by up to 40% between
 * runs a few seconds apart (it is a guest itself, beside others), so a
 * native figure taken before the guest boots can be another machine's.
 * oplib-bench --serve answers op-bench on this virtio port, one native run
 * per request, between the card's runs (bench_port.h).
 */
#define BENCH_PORT_NAME		"npu.native"

#endif /* BENCH_OPERATORS_H */
