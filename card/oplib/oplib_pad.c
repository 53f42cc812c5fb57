// SPDX-License-Identifier: GPL-2.0
/*
 * PAD: constant, reflect and edge padding, with signed pads (a negative
 * pad crops).  oneDNN has no padding primitive, so this is a loop: every
 * element of y takes the element of x its index maps to, or the fill.
 *
 * Reflection mirrors about the edge element without repeating it (ONNX's
 * and numpy's "reflect"), once: a pad may not exceed x's dim minus 1.
 */
#include "oplib_impl.h"

struct pad_attrs {
	uint32_t mode;
	float value;
	int64_t begin[NPU_TENSOR_MAX_DIMS];
	int64_t end[NPU_TENSOR_MAX_DIMS];
};

static void pad_decode(const struct oplib_op *op, struct pad_attrs *p)
{
	const struct npu_attr_pad *raw = &op->attrs->pad;
	unsigned int d;

	p->mode = oplib_u32(raw->mode);
	p->value = oplib_f32(raw->value);
	for (d = 0; d < NPU_TENSOR_MAX_DIMS; d++) {
		p->begin[d] = (int32_t)oplib_u32(raw->begin[d]);
		p->end[d] = (int32_t)oplib_u32(raw->end[d]);
	}
}

static int pad_check_axis(const struct pad_attrs *p, unsigned int d,
			  int64_t in, int64_t out)
{
	__int128 want = (__int128)in + p->begin[d] + p->end[d];

	if (want < 0 || out != want)
		return NPU_ERR_OP_PARAM;
	if (!out || (p->begin[d] <= 0 && p->end[d] <= 0))
		return NPU_ERR_NONE;
	/* something is padded: the mode must have something to pad with */
	if (p->mode == NPU_PAD_EDGE && !in)
		return NPU_ERR_OP_PARAM;
	if (p->mode == NPU_PAD_REFLECT &&
	    (p->begin[d] > in - 1 || p->end[d] > in - 1))
		return NPU_ERR_OP_PARAM;
	return NPU_ERR_NONE;
}

static int pad_check(const struct oplib_op *op)
{
	const struct npu_attr_pad *raw = &op->attrs->pad;
	const struct oplib_tensor *x = &op->t[0], *y = oplib_out(op);
	struct pad_attrs p;
	unsigned int d;
	int err;

	pad_decode(op, &p);
	if (p.mode > NPU_PAD_EDGE)
		return NPU_ERR_OPERATOR;
	if (p.mode != NPU_PAD_CONSTANT && raw->value)
		return NPU_ERR_RESERVED;
	for (d = x->ndims; d < NPU_TENSOR_MAX_DIMS; d++)
		if (raw->begin[d] || raw->end[d])
			return NPU_ERR_RESERVED;
	err = oplib_strided_only(x);
	if (!err)
		err = oplib_strided_only(y);
	if (err)
		return err;
	if (x->ndims != y->ndims)
		return NPU_ERR_OP_PARAM;
	if (x->dtype != y->dtype)
		return NPU_ERR_OPERATOR;
	/* an empty x is padded only with a constant */
	if (!x->nelems && y->nelems && p.mode != NPU_PAD_CONSTANT)
		return NPU_ERR_OP_PARAM;
	for (d = 0; d < x->ndims; d++) {
		err = pad_check_axis(&p, d, x->dims[d], y->dims[d]);
		if (err)
			return err;
	}
	return NPU_ERR_NONE;
}

/* The index into an axis of n elements that index i (maybe outside) reads. */
static int64_t pad_source(uint32_t mode, int64_t i, int64_t n)
{
	if (i >= 0 && i < n)
		return i;
	switch (mode) {
	case NPU_PAD_REFLECT:
		return i < 0 ? -i : 2 * (n - 1) - i;
	case NPU_PAD_EDGE:
		return i < 0 ? 0 : n - 1;
	}
	return -1;
}

static bool pad_loop(const struct oplib_op *op,
		     const struct oplib_step *step, uint8_t *const *bufs,
		     const struct oplib_hooks *hooks)
{
	const struct oplib_tensor *x = &op->t[0], *y = oplib_out(op);
	size_t esize = oplib_dtype_size(y->dtype);
	int64_t idx[NPU_TENSOR_MAX_DIMS] = { 0 }, from[NPU_TENSOR_MAX_DIMS];
	uint8_t fill[sizeof(int64_t)];
	struct pad_attrs p;
	unsigned int d;
	uint64_t count = 0;

	pad_decode(op, &p);
	oplib_store(fill, y->dtype, p.value);
	do {
		const uint8_t *src = fill;

		for (d = 0; d < y->ndims; d++) {
			from[d] = pad_source(p.mode, idx[d] - p.begin[d],
					     x->dims[d]);
			if (from[d] < 0)
				break;
		}
		if (d == y->ndims)
			src = bufs[step->in] + oplib_offset(x, from) * esize;
		memcpy(bufs[step->out] + oplib_offset(y, idx) * esize, src,
		       esize);
		if (!oplib_loop_go_on(hooks, &count))
			return false;
	} while (oplib_index_next(idx, y->dims, y->ndims));
	return true;
}

static int pad_plan(struct oplib *lib, const struct oplib_op *op,
		    struct oplib_plan *plan)
{
	(void)lib;
	return oplib_plan_loop(plan, pad_loop, 0, op->num_inputs, NULL);
}

const struct oplib_family oplib_pad_family = {
	.reads_broadcast = true,
	.empty_inputs_ok = true,
	.check = pad_check,
	.plan = pad_plan,
};
