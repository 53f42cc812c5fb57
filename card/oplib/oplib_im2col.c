// SPDX-License-Identifier: GPL-2.0
/*
 * IM2COL: every window of x (N, C, H, W) laid out as a column of y (N,
 * C * kh * kw, L), as PyTorch's unfold.  A copy, so any data type is moved
 * as it is, and the zero padding is all-zero bytes in each of them.
 */
#include "oplib_impl.h"

/* Window positions along one axis, or 0 if not even one fits. */
static int64_t im2col_positions(int64_t size, uint32_t kernel, uint32_t stride,
				uint32_t pad, uint32_t dilation)
{
	int64_t span = (int64_t)dilation * (kernel - 1) + 1;
	int64_t room = size + 2 * (int64_t)pad;

	return room < span ? 0 : (room - span) / stride + 1;
}

static int im2col_check(const struct oplib_op *op)
{
	const struct npu_attr_im2col *raw = &op->attrs->im2col;
	const struct oplib_tensor *x = &op->t[0], *y = oplib_out(op);
	int64_t pos[2], window;
	unsigned int a;
	int err;

	err = oplib_strided_only(x);
	if (!err)
		err = oplib_strided_only(y);
	if (err)
		return err;
	if (x->dtype != y->dtype)
		return NPU_ERR_OPERATOR;
	if (x->ndims != 4 || y->ndims != 3)
		return NPU_ERR_OP_PARAM;
	for (a = 0; a < 2; a++) {
		uint32_t k = oplib_u32(raw->kernel[a]), s = oplib_u32(raw->stride[a]);
		uint32_t d = oplib_u32(raw->dilation[a]), p = oplib_u32(raw->pad[a]);

		/* bounds that keep the arithmetic far from overflowing */
		if (!k || !s || !d || k > 0x10000 || d > 0x10000 || p > 0x10000000)
			return NPU_ERR_OP_PARAM;
		pos[a] = im2col_positions(x->dims[2 + a], k, s, p, d);
		if (!pos[a])
			return NPU_ERR_OP_PARAM;
	}
	window = (int64_t)oplib_u32(raw->kernel[0]) * oplib_u32(raw->kernel[1]);
	/* divided, not multiplied: no product of dims can overflow */
	if (y->dims[0] != x->dims[0] || y->dims[1] % window ||
	    y->dims[1] / window != x->dims[1] || y->dims[2] % pos[0] ||
	    y->dims[2] / pos[0] != pos[1])
		return NPU_ERR_OP_PARAM;
	return NPU_ERR_NONE;
}

/* x's index (n, c, h, w) behind y's (n, row, col); false in the padding. */
static bool im2col_source(const struct oplib_op *op, const int64_t *yi,
			  int64_t *xi)
{
	const struct npu_attr_im2col *raw = &op->attrs->im2col;
	const struct oplib_tensor *x = &op->t[0];
	int64_t kh = oplib_u32(raw->kernel[0]), kw = oplib_u32(raw->kernel[1]);
	int64_t ow = im2col_positions(x->dims[3], kw, oplib_u32(raw->stride[1]),
				      oplib_u32(raw->pad[1]),
				      oplib_u32(raw->dilation[1]));
	int64_t in_window = yi[1] % (kh * kw), at[2], a;

	at[0] = yi[2] / ow * oplib_u32(raw->stride[0]) - oplib_u32(raw->pad[0]) +
		in_window / kw * oplib_u32(raw->dilation[0]);
	at[1] = yi[2] % ow * oplib_u32(raw->stride[1]) - oplib_u32(raw->pad[1]) +
		in_window % kw * oplib_u32(raw->dilation[1]);
	xi[0] = yi[0];
	xi[1] = yi[1] / (kh * kw);
	for (a = 0; a < 2; a++) {
		if (at[a] < 0 || at[a] >= x->dims[2 + a])
			return false;
		xi[2 + a] = at[a];
	}
	return true;
}

static bool im2col_loop(const struct oplib_op *op,
			const struct oplib_step *step, uint8_t *const *bufs,
			const struct oplib_hooks *hooks)
{
	const struct oplib_tensor *x = &op->t[0], *y = oplib_out(op);
	size_t es = oplib_dtype_size(y->dtype);
	int64_t yi[3] = { 0 }, xi[4];
	uint64_t count = 0;

	do {
		uint8_t *to = bufs[step->out] + oplib_offset(y, yi) * es;

		if (im2col_source(op, yi, xi))
			memcpy(to, bufs[step->in] + oplib_offset(x, xi) * es, es);
		else
			memset(to, 0, es);
		if (!oplib_loop_go_on(hooks, &count))
			return false;
	} while (oplib_index_next(yi, y->dims, 3));
	return true;
}

static int im2col_plan(struct oplib *lib, const struct oplib_op *op,
		       struct oplib_plan *plan)
{
	(void)lib;
	return oplib_plan_loop(plan, im2col_loop, 0, op->num_inputs, NULL);
}

const struct oplib_family oplib_im2col_family = {
	.reads_broadcast = true,
	.check = im2col_check,
	.plan = im2col_plan,
};
