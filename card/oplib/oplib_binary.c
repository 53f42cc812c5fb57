// SPDX-License-Identifier: GPL-2.0
/*
 * BINARY: y = act(a op b), broadcast numpy-style, with oneDNN's binary.
 *
 * oneDNN broadcasts only its second source.  When a broadcasts, a
 * commutative operation swaps the sources; otherwise a is read through a
 * view of y's shape with stride 0 on its broadcast axes.  POW is a loop:
 * oneDNN's pow takes its exponent as a constant, not a tensor.  So is
 * arithmetic on integers, which oneDNN does in float: here it is exact, in
 * 128 bits (oplib_wide.c: U64 and the product of two 64-bit integers fit),
 * a result outside y's type saturated; DIV truncates toward zero
 * and gives 0 for a division by 0.  oneDNN has no double, so arithmetic
 * with an F64 tensor is a loop computing in double.
 *
 * The comparisons write 1 or 0 in y's data type.  oneDNN compares
 * float32 and bfloat16 sources; the others compare exactly in a loop,
 * integers in 128 bits, since oneDNN would compare them as float32, which
 * cannot tell 2^24 from 2^24 + 1.  Swapped sources swap the comparison.
 */
#include <math.h>

#include "oplib_impl.h"

/* Arithmetic (ADD .. MAX) on integers, which int_loop() does exactly. */
static bool binary_is_int(const struct oplib_op *op)
{
	return oplib_u32(op->attrs->binary.kind) <= NPU_BINARY_MAX &&
	       oplib_dtype_is_int(op->t[0].dtype) &&
	       oplib_dtype_is_int(op->t[1].dtype) &&
	       oplib_dtype_is_int(oplib_out(op)->dtype);
}

static int binary_check(const struct oplib_op *op)
{
	const struct npu_attr_binary *raw = &op->attrs->binary;
	const struct oplib_tensor *a = &op->t[0], *b = &op->t[1];
	const struct oplib_tensor *y = oplib_out(op);
	uint32_t kind = oplib_u32(raw->kind);
	struct oplib_act act;
	unsigned int d;
	int err;

	if (kind > NPU_BINARY_LAST)
		return NPU_ERR_OPERATOR;
	if (kind >= NPU_BINARY_EQ && a->dtype != b->dtype)
		return NPU_ERR_OPERATOR;
	if (raw->rsvd)
		return NPU_ERR_RESERVED;
	err = oplib_act_decode(&raw->act, &act);
	if (err)
		return err;
	/* functions are of floats */
	if (binary_is_int(op) && !oplib_act_is_none(&act))
		return NPU_ERR_OPERATOR;
	if (a->ndims != y->ndims || b->ndims != y->ndims)
		return NPU_ERR_OP_PARAM;
	for (d = 0; d < y->ndims; d++) {
		int64_t want = a->dims[d] == 1 ? b->dims[d] : a->dims[d];

		if ((b->dims[d] != 1 && b->dims[d] != want) ||
		    y->dims[d] != want)
			return NPU_ERR_OP_PARAM;
	}
	return NPU_ERR_NONE;
}

static bool broadcasts(const struct oplib_tensor *t,
		       const struct oplib_tensor *y)
{
	return !oplib_same_dims(t, y);
}

/* What a loop does to one element: y at py from a at pa and b at pb. */
typedef void (*binary_element_fn)(const struct oplib_op *op, const struct oplib_step *step,
				  const uint8_t *pa, const uint8_t *pb, uint8_t *py);

/* Every element of y through element, a and b indexed with broadcasting. */
static bool binary_walk(const struct oplib_op *op, const struct oplib_step *step,
			uint8_t *const *bufs, const struct oplib_hooks *hooks,
			binary_element_fn element)
{
	const struct oplib_tensor *a = &op->t[0], *b = &op->t[1];
	const struct oplib_tensor *y = oplib_out(op);
	size_t as = oplib_dtype_size(a->dtype), bs = oplib_dtype_size(b->dtype);
	size_t ys = oplib_dtype_size(y->dtype);
	int64_t idx[NPU_TENSOR_MAX_DIMS] = { 0 };
	int64_t ia[NPU_TENSOR_MAX_DIMS] = { 0 }, ib[NPU_TENSOR_MAX_DIMS] = { 0 };
	unsigned int d;
	uint64_t count = 0;

	do {
		for (d = 0; d < y->ndims; d++) {
			ia[d] = a->dims[d] == 1 ? 0 : idx[d];
			ib[d] = b->dims[d] == 1 ? 0 : idx[d];
		}
		element(op, step, bufs[0] + oplib_offset(a, ia) * as,
			bufs[1] + oplib_offset(b, ib) * bs,
			bufs[step->out] + oplib_offset(y, idx) * ys);
		if (!oplib_loop_go_on(hooks, &count))
			return false;
	} while (oplib_index_next(idx, y->dims, y->ndims));
	oplib_zero_padding(y, bufs[step->out]);
	return true;
}

/* y = act(pow(a, b)) in float. */
static void pow_element(const struct oplib_op *op, const struct oplib_step *step,
			const uint8_t *pa, const uint8_t *pb, uint8_t *py)
{
	float v = powf(oplib_load(pa, op->t[0].dtype), oplib_load(pb, op->t[1].dtype));

	oplib_store(py, oplib_out(op)->dtype, oplib_act_apply(&step->act, v));
}

static bool pow_loop(const struct oplib_op *op,
		     const struct oplib_step *step, uint8_t *const *bufs,
		     const struct oplib_hooks *hooks)
{
	return binary_walk(op, step, bufs, hooks, pow_element);
}

/* An overflowed result saturated toward the side it overflowed to. */
static oplib_wide saturated(bool overflow, oplib_wide v, bool negative)
{
	if (!overflow)
		return v;
	return negative ? OPLIB_WIDE_MIN : OPLIB_WIDE_MAX;
}

/* a to the b, saturated; a negative b leaves the integer part of 1 / a^-b. */
static oplib_wide int_pow(oplib_wide a, oplib_wide b)
{
	oplib_wide r = 1;
	bool negative = a < 0 && (b & 1);

	if (b < 0)
		return a == 1 ? 1 : a == -1 ? (negative ? -1 : 1) : 0;
	for (; b; b >>= 1) {
		if ((b & 1) && __builtin_mul_overflow(r, a, &r))
			return negative ? OPLIB_WIDE_MIN : OPLIB_WIDE_MAX;
		if (b > 1 && __builtin_mul_overflow(a, a, &a))
			return negative ? OPLIB_WIDE_MIN : OPLIB_WIDE_MAX;
	}
	return r;
}

static oplib_wide binary_int(uint32_t kind, oplib_wide a, oplib_wide b)
{
	oplib_wide r = 0;
	bool over;

	switch (kind) {
	case NPU_BINARY_ADD:
		over = __builtin_add_overflow(a, b, &r);
		return saturated(over, r, a < 0);
	case NPU_BINARY_SUB:
		over = __builtin_sub_overflow(a, b, &r);
		return saturated(over, r, a < 0);
	case NPU_BINARY_MUL:
		over = __builtin_mul_overflow(a, b, &r);
		return saturated(over, r, (a < 0) != (b < 0));
	case NPU_BINARY_DIV:
		if (!b)
			return 0;
		return a == OPLIB_WIDE_MIN && b == -1 ? OPLIB_WIDE_MAX : a / b;
	case NPU_BINARY_POW:
		return int_pow(a, b);
	case NPU_BINARY_MIN:
		return a < b ? a : b;
	case NPU_BINARY_MAX:
		return a > b ? a : b;
	}
	return 0;
}

/* y = a op b on integers, exactly. */
static void int_element(const struct oplib_op *op, const struct oplib_step *step,
			const uint8_t *pa, const uint8_t *pb, uint8_t *py)
{
	(void)step;
	oplib_store_wide(py, oplib_out(op)->dtype,
			 binary_int(oplib_u32(op->attrs->binary.kind),
				    oplib_load_wide(pa, op->t[0].dtype),
				    oplib_load_wide(pb, op->t[1].dtype)));
}

static bool int_loop(const struct oplib_op *op, const struct oplib_step *step,
		     uint8_t *const *bufs, const struct oplib_hooks *hooks)
{
	return binary_walk(op, step, bufs, hooks, int_element);
}

static double binary_f64(uint32_t kind, double a, double b)
{
	switch (kind) {
	case NPU_BINARY_ADD:
		return a + b;
	case NPU_BINARY_SUB:
		return a - b;
	case NPU_BINARY_MUL:
		return a * b;
	case NPU_BINARY_DIV:
		return a / b;
	case NPU_BINARY_POW:
		return pow(a, b);
	case NPU_BINARY_MIN:
		return isnan(a) || isnan(b) ? NAN : fmin(a, b);
	case NPU_BINARY_MAX:
		return isnan(a) || isnan(b) ? NAN : fmax(a, b);
	}
	return 0;
}

/* y = act(a op b) in double. */
static void f64_element(const struct oplib_op *op, const struct oplib_step *step,
			const uint8_t *pa, const uint8_t *pb, uint8_t *py)
{
	double v = binary_f64(oplib_u32(op->attrs->binary.kind),
			      oplib_load_f64(pa, op->t[0].dtype),
			      oplib_load_f64(pb, op->t[1].dtype));

	oplib_store_f64(py, oplib_out(op)->dtype, oplib_act_apply_f64(&step->act, v));
}

static bool f64_loop(const struct oplib_op *op, const struct oplib_step *step,
		     uint8_t *const *bufs, const struct oplib_hooks *hooks)
{
	return binary_walk(op, step, bufs, hooks, f64_element);
}

/* Whether a @kind b holds; NaN is unordered, unequal to everything. */
static bool compare_holds(uint32_t kind, const uint8_t *pa, const uint8_t *pb,
			  unsigned int dtype)
{
	bool lt, gt;

	if (!oplib_dtype_is_int(dtype)) {
		double a = oplib_load_f64(pa, dtype), b = oplib_load_f64(pb, dtype);

		if (isnan(a) || isnan(b))
			return kind == NPU_BINARY_NE;
		lt = a < b;
		gt = a > b;
	} else {
		oplib_wide a = oplib_load_wide(pa, dtype), b = oplib_load_wide(pb, dtype);

		lt = a < b;
		gt = a > b;
	}
	switch (kind) {
	case NPU_BINARY_EQ:
		return !lt && !gt;
	case NPU_BINARY_NE:
		return lt || gt;
	case NPU_BINARY_LT:
		return lt;
	case NPU_BINARY_LE:
		return !gt;
	case NPU_BINARY_GT:
		return gt;
	default:
		return !lt;
	}
}

/* y = act(a op b ? 1 : 0), exact in every data type. */
static void compare_element(const struct oplib_op *op, const struct oplib_step *step,
			    const uint8_t *pa, const uint8_t *pb, uint8_t *py)
{
	bool holds = compare_holds(oplib_u32(op->attrs->binary.kind), pa, pb, op->t[0].dtype);

	oplib_store(py, oplib_out(op)->dtype, oplib_act_apply(&step->act, holds));
}

static bool compare_loop(const struct oplib_op *op,
			 const struct oplib_step *step, uint8_t *const *bufs,
			 const struct oplib_hooks *hooks)
{
	return binary_walk(op, step, bufs, hooks, compare_element);
}

/*
 * The loop a kind needs, or NULL for oneDNN's binary: comparisons oneDNN
 * cannot make exactly or write, integer arithmetic, double, POW.
 */
static oplib_loop_fn binary_loop(const struct oplib_op *op, uint32_t kind)
{
	unsigned int src = op->t[0].dtype, dst = oplib_out(op)->dtype;

	if (kind >= NPU_BINARY_EQ)
		return (src != NPU_DTYPE_F32 && src != NPU_DTYPE_BF16) ||
		       oplib_dnnl_dtype(dst) == dnnl_data_type_undef ?
		       compare_loop : NULL;
	if (binary_is_int(op))
		return int_loop;
	if (oplib_op_has_f64(op))
		return f64_loop;
	return kind == NPU_BINARY_POW ? pow_loop : NULL;
}

/* a seen with y's shape: stride 0 where it broadcasts. */
static int broadcast_view(struct oplib_plan *plan, const struct oplib_op *op,
			  unsigned int tensor, unsigned int *view)
{
	const struct oplib_tensor *t = &op->t[tensor], *y = oplib_out(op);
	int64_t strides[NPU_TENSOR_MAX_DIMS];
	dnnl_memory_desc_t md;
	unsigned int d;
	int err;

	err = oplib_strided_only(t);
	if (err)
		return err;
	for (d = 0; d < t->ndims; d++)
		strides[d] = t->dims[d] == y->dims[d] ? t->strides[d] : 0;
	err = oplib_md_strided(&md, y->ndims, y->dims, strides, t->dtype);
	if (err)
		return err;
	return oplib_plan_view(plan, tensor, 0, &md, view);
}

static int binary_plan(struct oplib *lib, const struct oplib_op *op,
		       struct oplib_plan *plan)
{
	static const dnnl_alg_kind_t algs[] = {
		[NPU_BINARY_ADD] = dnnl_binary_add,
		[NPU_BINARY_SUB] = dnnl_binary_sub,
		[NPU_BINARY_MUL] = dnnl_binary_mul,
		[NPU_BINARY_DIV] = dnnl_binary_div,
		[NPU_BINARY_MIN] = dnnl_binary_min,
		[NPU_BINARY_MAX] = dnnl_binary_max,
		[NPU_BINARY_EQ] = dnnl_binary_eq,
		[NPU_BINARY_NE] = dnnl_binary_ne,
		[NPU_BINARY_LT] = dnnl_binary_lt,
		[NPU_BINARY_LE] = dnnl_binary_le,
		[NPU_BINARY_GT] = dnnl_binary_gt,
		[NPU_BINARY_GE] = dnnl_binary_ge,
	};
	/* b op a for a op b; 0 where the sources cannot swap */
	static const dnnl_alg_kind_t swapped[] = {
		[NPU_BINARY_ADD] = dnnl_binary_add,
		[NPU_BINARY_MUL] = dnnl_binary_mul,
		[NPU_BINARY_MIN] = dnnl_binary_min,
		[NPU_BINARY_MAX] = dnnl_binary_max,
		[NPU_BINARY_EQ] = dnnl_binary_eq,
		[NPU_BINARY_NE] = dnnl_binary_ne,
		[NPU_BINARY_LT] = dnnl_binary_gt,
		[NPU_BINARY_LE] = dnnl_binary_ge,
		[NPU_BINARY_GT] = dnnl_binary_lt,
		[NPU_BINARY_GE] = dnnl_binary_le,
	};
	static const int args[] = { DNNL_ARG_SRC_0, DNNL_ARG_SRC_1,
				    DNNL_ARG_DST };
	const struct npu_attr_binary *raw = &op->attrs->binary;
	const struct oplib_tensor *y = oplib_out(op);
	uint32_t kind = oplib_u32(raw->kind);
	dnnl_alg_kind_t alg = algs[kind];
	unsigned int src0 = 0, src1 = 1, views[3];
	oplib_loop_fn loop = binary_loop(op, kind);
	dnnl_primitive_attr_t attr;
	dnnl_primitive_desc_t pd;
	dnnl_binary_desc_t desc;
	struct oplib_act act;
	bool fused;
	int err;

	oplib_act_decode(&raw->act, &act);
	if (loop)
		return oplib_plan_loop(plan, loop, 0, 2, &act);

	if (broadcasts(&op->t[0], y) && !broadcasts(&op->t[1], y) &&
	    swapped[kind]) {
		src0 = 1;
		src1 = 0;
		alg = swapped[kind];
	}
	if (broadcasts(&op->t[src0], y))
		err = broadcast_view(plan, op, src0, &views[0]);
	else
		err = oplib_plan_tensor(plan, op, src0, &views[0]);
	if (!err)
		err = oplib_plan_tensor(plan, op, src1, &views[1]);
	if (!err)
		err = oplib_plan_tensor(plan, op, 2, &views[2]);
	if (err)
		return err;

	if (dnnl_primitive_attr_create(&attr) != dnnl_success)
		return NPU_ERR_OP_FAILED;
	err = oplib_act_post_ops(&act, attr, &fused);
	if (!err)
		err = oplib_status(dnnl_binary_desc_init(&desc, alg,
					&plan->views[views[0]].md,
					&plan->views[views[1]].md,
					&plan->views[views[2]].md));
	if (!err)
		err = oplib_pd_create(&pd, &desc, attr, lib);
	dnnl_primitive_attr_destroy(attr);
	if (!err)
		err = oplib_plan_primitive(plan, pd, 3, args, views);
	if (!err && !fused)
		err = oplib_plan_act(lib, plan, 2, views[2], &act);
	return err;
}

const struct oplib_family oplib_binary_family = {
	.check = binary_check,
	.plan = binary_plan,
};
