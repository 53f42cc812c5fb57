// SPDX-License-Identifier: GPL-2.0
/*
 * RESIZE: nearest (any axes) and bilinear (the last two axes) resizing
 * with ONNX's coordinate modes.
 *
 * oneDNN's resampling maps coordinates by y's size over x's, not by the
 * scale ONNX gives, and rounds nearest neighbours its own way, so it runs
 * only what it computes exactly as ONNX does: bilinear, half_pixel, rank 4,
 * with scales equal to the size ratios.  Everything else is a loop:
 * nearest a line at a time (a feature pyramid's upsampling is at memory
 * speed), linear an element at a time.
 */
#include <math.h>
#include <stdlib.h>

#include "oplib_impl.h"

struct resize_attrs {
	uint32_t mode;
	uint32_t coord;
	uint32_t nearest;
	float scales[NPU_TENSOR_MAX_DIMS];
};

static void resize_decode(const struct oplib_op *op, struct resize_attrs *r)
{
	const struct npu_attr_resize *raw = &op->attrs->resize;
	unsigned int d;

	r->mode = oplib_u32(raw->mode);
	r->coord = oplib_u32(raw->coord);
	r->nearest = oplib_u32(raw->nearest);
	for (d = 0; d < NPU_TENSOR_MAX_DIMS; d++)
		r->scales[d] = oplib_f32(raw->scales[d]);
}

static int resize_check_axis(const struct resize_attrs *r, unsigned int d,
			     unsigned int rank, int64_t in, int64_t out)
{
	float s = r->scales[d];

	if (!(s > 0) || isinf(s))
		return NPU_ERR_OP_PARAM;
	/* bilinear leaves the leading axes alone */
	if (r->mode == NPU_RESIZE_LINEAR && d + 2 < rank &&
	    (s != 1.0f || out != in))
		return NPU_ERR_OP_PARAM;
	/* ONNX's output size is x * scale, rounded either way */
	if (fabs((double)out - (double)in * s) >= 1.0)
		return NPU_ERR_OP_PARAM;
	return NPU_ERR_NONE;
}

static int resize_check(const struct oplib_op *op)
{
	const struct npu_attr_resize *raw = &op->attrs->resize;
	const struct oplib_tensor *x = &op->t[0], *y = oplib_out(op);
	struct resize_attrs r;
	unsigned int d;
	int err;

	resize_decode(op, &r);
	if (r.mode > NPU_RESIZE_LINEAR || r.coord > NPU_RESIZE_PYTORCH_HALF_PIXEL ||
	    r.nearest > NPU_RESIZE_CEIL)
		return NPU_ERR_OPERATOR;
	if (raw->rsvd || (r.mode == NPU_RESIZE_LINEAR && r.nearest))
		return NPU_ERR_RESERVED;
	for (d = x->ndims; d < NPU_TENSOR_MAX_DIMS; d++)
		if (raw->scales[d])
			return NPU_ERR_RESERVED;
	err = oplib_strided_only(x);
	if (!err)
		err = oplib_strided_only(y);
	if (err)
		return err;
	if (x->ndims != y->ndims ||
	    (r.mode == NPU_RESIZE_LINEAR && x->ndims < 2))
		return NPU_ERR_OP_PARAM;
	if (x->dtype != y->dtype)
		return NPU_ERR_OPERATOR;
	for (d = 0; d < x->ndims; d++) {
		err = resize_check_axis(&r, d, x->ndims, x->dims[d], y->dims[d]);
		if (err)
			return err;
	}
	return NPU_ERR_NONE;
}

/* Output coordinate o on an axis of out elements, in input coordinates. */
static float resize_coord(const struct resize_attrs *r, unsigned int d,
			  int64_t o, int64_t in, int64_t out)
{
	float s = r->scales[d];

	switch (r->coord) {
	case NPU_RESIZE_ASYMMETRIC:
		return o / s;
	case NPU_RESIZE_ALIGN_CORNERS:
		return out == 1 ? 0.0f : o * (float)(in - 1) / (float)(out - 1);
	case NPU_RESIZE_PYTORCH_HALF_PIXEL:
		if (out == 1)
			return 0.0f;
		break;
	}
	return (o + 0.5f) / s - 0.5f;
}

static int64_t clamp_index(float c, int64_t n)
{
	if (!(c > 0))
		return 0;
	return c >= n - 1 ? n - 1 : (int64_t)c;
}

static int64_t resize_nearest(uint32_t rounding, float c, int64_t n)
{
	bool half = c - floorf(c) == 0.5f;

	switch (rounding) {
	case NPU_RESIZE_ROUND_PREFER_FLOOR:
		c = half ? floorf(c) : roundf(c);
		break;
	case NPU_RESIZE_ROUND_PREFER_CEIL:
		c = half ? ceilf(c) : roundf(c);
		break;
	case NPU_RESIZE_FLOOR:
		c = floorf(c);
		break;
	case NPU_RESIZE_CEIL:
		c = ceilf(c);
		break;
	}
	return clamp_index(c, n);
}

/*
 * Nearest neighbours, a line of the output at a time: the source of each
 * output element is separable, so the leading axes give a line's source
 * line once, and a table made once per run gives each column's source
 * column.  The lines are split among the library's threads.  Past
 * NEAREST_TABLE_MAX columns (a table larger than the cache would cost
 * more than it saves) each element finds its source itself.
 */
#define NEAREST_TABLE_MAX	(1 << 16)
/* Elements below which one thread does it all: threads cost more. */
#define NEAREST_PER_THREAD_MIN	(1 << 16)

struct nearest_run {
	const struct oplib_tensor *x, *y;
	struct resize_attrs r;
	const uint8_t *src;
	uint8_t *dst;
	size_t esize;
	int64_t *cols;		/* source offset of each output column, in elements */
};

/* The source element of output index idx along axis d, as an offset. */
static int64_t nearest_from(const struct nearest_run *n, unsigned int d,
			    int64_t o)
{
	const struct oplib_tensor *x = n->x, *y = n->y;

	return resize_nearest(n->r.nearest,
			      resize_coord(&n->r, d, o, x->dims[d], y->dims[d]),
			      x->dims[d]) * x->strides[d];
}

/*
 * One line: with @esize a constant, memcpy() is a single move (and makes
 * no assumption about the tensors' alignment).
 */
static inline __attribute__((always_inline)) void
nearest_gather(uint8_t *o, const uint8_t *s, const int64_t *cols, int64_t n,
	       int64_t ys, size_t esize)
{
	int64_t j;

	for (j = 0; j < n; j++)
		memcpy(o + j * ys * esize, s + cols[j] * esize, esize);
}

/* Output line @line (row-major over every axis but the last). */
static void nearest_line(const struct nearest_run *n, int64_t line)
{
	const struct oplib_tensor *y = n->y;
	unsigned int last = y->ndims - 1, d;
	int64_t cols = y->dims[last], ys = y->strides[last], from = 0, to = 0, j;
	const uint8_t *s;
	uint8_t *o;

	for (d = last; d-- > 0;) {
		int64_t i = line % y->dims[d];

		line /= y->dims[d];
		from += nearest_from(n, d, i);
		to += i * y->strides[d];
	}
	s = n->src + from * n->esize;
	o = n->dst + to * n->esize;
	if (!n->cols) {
		for (j = 0; j < cols; j++)
			memcpy(o + j * ys * n->esize,
			       s + nearest_from(n, last, j) * n->esize, n->esize);
		return;
	}
	switch (n->esize) {
	case 4:
		nearest_gather(o, s, n->cols, cols, ys, 4);
		break;
	case 2:
		nearest_gather(o, s, n->cols, cols, ys, 2);
		break;
	case 8:
		nearest_gather(o, s, n->cols, cols, ys, 8);
		break;
	default:
		nearest_gather(o, s, n->cols, cols, ys, n->esize);
	}
}

static bool nearest_loop(const struct oplib_op *op,
			 const struct oplib_step *step, uint8_t *const *bufs,
			 const struct oplib_hooks *hooks)
{
	const struct oplib_tensor *y = oplib_out(op);
	struct nearest_run n = {
		.x = &op->t[0], .y = y, .src = bufs[step->in],
		.dst = bufs[step->out], .esize = oplib_dtype_size(y->dtype),
	};
	int64_t cols, lines, l;
	bool stop = false;

	if (!y->ndims) {
		memcpy(n.dst, n.src, n.esize);
		return true;
	}
	cols = y->dims[y->ndims - 1];
	lines = y->nelems / cols;

	resize_decode(op, &n.r);
	/* without the table (too wide, or no memory for it) it is only slower */
	if (cols <= NEAREST_TABLE_MAX)
		n.cols = malloc(cols * sizeof(*n.cols));
	for (l = 0; n.cols && l < cols; l++)
		n.cols[l] = nearest_from(&n, y->ndims - 1, l);
#pragma omp parallel for schedule(static) if (y->nelems >= NEAREST_PER_THREAD_MIN)
	for (l = 0; l < lines; l++) {
		uint64_t count = (uint64_t)l * cols;

		if (__atomic_load_n(&stop, __ATOMIC_RELAXED))
			continue;
		if (!oplib_loop_go_on_n(hooks, &count, cols)) {
			__atomic_store_n(&stop, true, __ATOMIC_RELAXED);
			continue;
		}
		nearest_line(&n, l);
	}
	free(n.cols);
	return !stop;
}

/* The two neighbours of coordinate c on an axis of n, and c's weight. */
struct lerp {
	int64_t lo;
	int64_t hi;
	float w;
};

static struct lerp resize_lerp(float c, int64_t n)
{
	struct lerp l;

	if (!(c > 0))
		c = 0;
	if (c > n - 1)
		c = n - 1;
	l.lo = (int64_t)c;
	l.hi = l.lo + 1 < n ? l.lo + 1 : n - 1;
	l.w = c - l.lo;
	return l;
}

static bool linear_loop(const struct oplib_op *op,
			const struct oplib_step *step, uint8_t *const *bufs,
			const struct oplib_hooks *hooks)
{
	const struct oplib_tensor *x = &op->t[0], *y = oplib_out(op);
	unsigned int h = y->ndims - 2, w = y->ndims - 1;
	size_t esize = oplib_dtype_size(y->dtype);
	int64_t idx[NPU_TENSOR_MAX_DIMS] = { 0 }, at[NPU_TENSOR_MAX_DIMS];
	const uint8_t *src = bufs[step->in];
	struct resize_attrs r;
	uint64_t count = 0;

	resize_decode(op, &r);
	do {
		struct lerp lh = resize_lerp(resize_coord(&r, h, idx[h],
					x->dims[h], y->dims[h]), x->dims[h]);
		struct lerp lw = resize_lerp(resize_coord(&r, w, idx[w],
					x->dims[w], y->dims[w]), x->dims[w]);
		float v[2][2];
		int i, j;

		memcpy(at, idx, sizeof(at));
		for (i = 0; i < 2; i++) {
			for (j = 0; j < 2; j++) {
				at[h] = i ? lh.hi : lh.lo;
				at[w] = j ? lw.hi : lw.lo;
				v[i][j] = oplib_load(src + oplib_offset(x, at) *
						     esize, x->dtype);
			}
		}
		oplib_store(bufs[step->out] + oplib_offset(y, idx) * esize,
			    y->dtype,
			    (v[0][0] * (1 - lw.w) + v[0][1] * lw.w) * (1 - lh.w) +
			    (v[1][0] * (1 - lw.w) + v[1][1] * lw.w) * lh.w);
		if (!oplib_loop_go_on(hooks, &count))
			return false;
	} while (oplib_index_next(idx, y->dims, y->ndims));
	return true;
}

/* Where oneDNN's bilinear resampling is ONNX's. */
static bool resize_by_onednn(const struct oplib_op *op,
			     const struct resize_attrs *r)
{
	const struct oplib_tensor *x = &op->t[0], *y = oplib_out(op);

	return r->mode == NPU_RESIZE_LINEAR &&
	       r->coord == NPU_RESIZE_HALF_PIXEL && x->ndims == 4 &&
	       r->scales[2] == (float)y->dims[2] / (float)x->dims[2] &&
	       r->scales[3] == (float)y->dims[3] / (float)x->dims[3];
}

static int resize_plan(struct oplib *lib, const struct oplib_op *op,
		       struct oplib_plan *plan)
{
	static const int args[] = { DNNL_ARG_SRC, DNNL_ARG_DST };
	dnnl_resampling_desc_t desc;
	dnnl_primitive_desc_t pd;
	struct resize_attrs r;
	unsigned int views[2];
	int err;

	resize_decode(op, &r);
	if (!resize_by_onednn(op, &r))
		return oplib_plan_loop(plan, r.mode == NPU_RESIZE_LINEAR ?
				       linear_loop : nearest_loop,
				       0, op->num_inputs, NULL);
	err = oplib_plan_tensor(plan, op, 0, &views[0]);
	if (!err)
		err = oplib_plan_tensor(plan, op, 1, &views[1]);
	if (!err)
		err = oplib_status(dnnl_resampling_forward_desc_init(&desc,
				dnnl_forward_inference, dnnl_resampling_linear,
				NULL, &plan->views[views[0]].md,
				&plan->views[views[1]].md));
	if (!err)
		err = oplib_pd_create(&pd, &desc, NULL, lib);
	if (!err)
		err = oplib_plan_primitive(plan, pd, 2, args, views);
	return err;
}

const struct oplib_family oplib_resize_family = {
	.check = resize_check,
	.plan = resize_plan,
};
