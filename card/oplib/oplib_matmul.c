// SPDX-License-Identifier: GPL-2.0
/*
 * MATMUL: y = act(alpha * a' x b' + beta * c), with oneDNN's matmul.
 *
 * A transposed operand is the tensor with its last two strides swapped,
 * so no copy is made; batch axes broadcast where a or b has 1.  alpha is
 * the primitive's output scale.  c is the primitive's bias when it can
 * be (alpha and beta 1, one row broadcast down y); otherwise a binary add
 * with c scaled by beta follows the matmul, carrying the activation.
 *
 * A float32 product by one column without c (a matrix by a vector, as
 * aclnnMv and a language model's decoding step have it) is a loop of dot
 * products instead, rows shared between the engine's threads: it only
 * streams a through once, where oneDNN's matmul at N = 1 is several times
 * slower.
 */
#include <omp.h>

#include "oplib_impl.h"

struct matmul_attrs {
	bool trans_a;
	bool trans_b;
	float alpha;
	float beta;
	struct oplib_act act;
};

/* t as the product sees it: the last two axes swapped if transposed. */
static void matmul_operand(const struct oplib_tensor *t, bool trans,
			   int64_t *dims, int64_t *strides)
{
	unsigned int r = t->ndims;

	memcpy(dims, t->dims, r * sizeof(*dims));
	memcpy(strides, t->strides, r * sizeof(*strides));
	if (trans) {
		dims[r - 2] = t->dims[r - 1];
		dims[r - 1] = t->dims[r - 2];
		strides[r - 2] = t->strides[r - 1];
		strides[r - 1] = t->strides[r - 2];
	}
}

/* a' is (..., M, K), b' (..., K, N), y (..., M, N); batch axes broadcast. */
static int matmul_check_shapes(const struct oplib_op *op,
			       const struct matmul_attrs *m)
{
	const struct oplib_tensor *y = oplib_out(op);
	const struct oplib_tensor *c = op->num_inputs == 3 ? &op->t[2] : NULL;
	int64_t a[NPU_TENSOR_MAX_DIMS], b[NPU_TENSOR_MAX_DIMS];
	int64_t unused[NPU_TENSOR_MAX_DIMS];
	unsigned int r = y->ndims, d;

	matmul_operand(&op->t[0], m->trans_a, a, unused);
	matmul_operand(&op->t[1], m->trans_b, b, unused);
	if (a[r - 1] != b[r - 2] || y->dims[r - 2] != a[r - 2] ||
	    y->dims[r - 1] != b[r - 1])
		return NPU_ERR_OP_PARAM;
	for (d = 0; d < r - 2; d++) {
		int64_t want = a[d] == 1 ? b[d] : a[d];

		if ((b[d] != 1 && b[d] != a[d] && a[d] != 1) ||
		    y->dims[d] != want)
			return NPU_ERR_OP_PARAM;
	}
	for (d = 0; c && d < r; d++)
		if (c->dims[d] != 1 && c->dims[d] != y->dims[d])
			return NPU_ERR_OP_PARAM;
	return NPU_ERR_NONE;
}

static int matmul_decode(const struct oplib_op *op, struct matmul_attrs *m)
{
	const struct npu_attr_matmul *raw = &op->attrs->matmul;
	const struct oplib_tensor *y = oplib_out(op);
	const struct oplib_tensor *c = op->num_inputs == 3 ? &op->t[2] : NULL;
	uint32_t ta = oplib_u32(raw->trans_a), tb = oplib_u32(raw->trans_b);
	unsigned int i;
	int err;

	err = oplib_act_decode(&raw->act, &m->act);
	if (err)
		return err;
	if (ta > 1 || tb > 1)
		return NPU_ERR_OP_PARAM;
	m->trans_a = ta;
	m->trans_b = tb;
	m->alpha = oplib_f32(raw->alpha);
	m->beta = oplib_f32(raw->beta);
	/* beta scales c: without c it is an unused field */
	if (!c && raw->beta)
		return NPU_ERR_RESERVED;
	for (i = 0; i < op->num_tensors; i++) {
		err = oplib_strided_only(&op->t[i]);
		if (err)
			return err;
		if (op->t[i].ndims != y->ndims)
			return NPU_ERR_OP_PARAM;
	}
	if (y->ndims < 2)
		return NPU_ERR_OP_PARAM;
	if (op->t[1].dtype != op->t[0].dtype || y->dtype != op->t[0].dtype ||
	    (c && c->dtype != y->dtype && c->dtype != NPU_DTYPE_F32))
		return NPU_ERR_OPERATOR;
	return matmul_check_shapes(op, m);
}

static int matmul_check(const struct oplib_op *op)
{
	struct matmul_attrs m;

	return matmul_decode(op, &m);
}

/* c is one row, broadcast over everything else, like a bias. */
static bool matmul_c_is_bias(const struct oplib_op *op,
			     const struct matmul_attrs *m)
{
	const struct oplib_tensor *c = &op->t[2];
	unsigned int d;

	if (op->num_inputs != 3 || m->alpha != 1.0f || m->beta != 1.0f)
		return false;
	for (d = 0; d + 1 < c->ndims; d++)
		if (c->dims[d] != 1)
			return false;
	return true;
}

static int operand_view(struct oplib_plan *plan, const struct oplib_op *op,
			unsigned int tensor, bool trans, unsigned int *view)
{
	const struct oplib_tensor *t = &op->t[tensor];
	int64_t dims[NPU_TENSOR_MAX_DIMS], strides[NPU_TENSOR_MAX_DIMS];
	dnnl_memory_desc_t md;
	int err;

	matmul_operand(t, trans, dims, strides);
	err = oplib_md_strided(&md, t->ndims, dims, strides, t->dtype);
	if (err)
		return err;
	return oplib_plan_view(plan, tensor, 0, &md, view);
}

static int matmul_pd(struct oplib *lib, struct oplib_plan *plan,
		     const unsigned int *user, bool with_bias, bool any,
		     const_dnnl_primitive_attr_t attr,
		     dnnl_primitive_desc_t *pd)
{
	dnnl_memory_desc_t src = plan->views[user[0]].md;
	dnnl_memory_desc_t wei = plan->views[user[1]].md;
	dnnl_matmul_desc_t desc;
	int err;

	if (any) {
		dnnl_memory_desc_init_by_tag(&src, src.ndims, src.dims,
					     src.data_type, dnnl_format_tag_any);
		dnnl_memory_desc_init_by_tag(&wei, wei.ndims, wei.dims,
					     wei.data_type, dnnl_format_tag_any);
	}
	err = oplib_status(dnnl_matmul_desc_init(&desc, &src, &wei,
				with_bias ? &plan->views[user[2]].md : NULL,
				&plan->views[user[3]].md));
	if (!err)
		err = oplib_pd_create(pd, &desc, attr, lib);
	return err;
}

/*
 * The product, with the bias and activation when they fuse.  Strides
 * oneDNN's fast kernels cannot read make it slow: then the operands are
 * copied in, laid out as the kernel likes.
 */
static int plan_product(struct oplib *lib, struct oplib_plan *plan,
			const unsigned int *user, bool with_bias,
			const_dnnl_primitive_attr_t attr)
{
	static const int args[] = { DNNL_ARG_SRC, DNNL_ARG_WEIGHTS,
				    DNNL_ARG_DST, DNNL_ARG_BIAS };
	dnnl_primitive_desc_t pd, fast;
	unsigned int views[4];
	int err;

	err = matmul_pd(lib, plan, user, with_bias, false, attr, &pd);
	if (err)
		return err;
	if (oplib_pd_is_ref(pd) &&
	    !matmul_pd(lib, plan, user, with_bias, true, attr, &fast)) {
		dnnl_primitive_desc_destroy(pd);
		pd = fast;
	}
	/*
	 * No fast kernel for a half type (F16 without AVX512-FP16): the
	 * library runs the product widened to F32 instead, which costs two
	 * conversions of each operand (O(n^2)) against oneDNN's reference
	 * kernel's many times slower O(n^3).
	 */
	if (oplib_pd_is_ref(pd) && plan->views[user[0]].md.data_type != dnnl_f32) {
		dnnl_primitive_desc_destroy(pd);
		return NPU_ERR_OPERATOR;
	}
	err = oplib_plan_input(lib, plan, user[0],
			       oplib_pd_md(pd, DNNL_ARG_SRC), &views[0]);
	if (!err)
		err = oplib_plan_input(lib, plan, user[1],
				       oplib_pd_md(pd, DNNL_ARG_WEIGHTS),
				       &views[1]);
	if (err) {
		dnnl_primitive_desc_destroy(pd);
		return err;
	}
	views[2] = user[3];
	views[3] = with_bias ? user[2] : 0;
	return oplib_plan_primitive(plan, pd, with_bias ? 4 : 3, args, views);
}

/* y = act(y + beta * c), c broadcast. */
static int plan_add_c(struct oplib *lib, struct oplib_plan *plan,
		      const unsigned int *user, const struct matmul_attrs *m,
		      bool *fused)
{
	static const int args[] = { DNNL_ARG_SRC_0, DNNL_ARG_SRC_1,
				    DNNL_ARG_DST };
	const unsigned int views[] = { user[3], user[2], user[3] };
	const dnnl_memory_desc_t *y = &plan->views[user[3]].md;
	dnnl_primitive_attr_t attr;
	dnnl_binary_desc_t desc;
	dnnl_primitive_desc_t pd;
	int err;

	if (dnnl_primitive_attr_create(&attr) != dnnl_success)
		return NPU_ERR_OP_FAILED;
	err = oplib_status(dnnl_primitive_attr_set_scales(attr, DNNL_ARG_SRC_1,
							  1, 0, &m->beta));
	if (!err)
		err = oplib_act_post_ops(&m->act, attr, fused);
	if (!err)
		err = oplib_status(dnnl_binary_desc_init(&desc, dnnl_binary_add,
					y, &plan->views[user[2]].md, y));
	if (!err)
		err = oplib_pd_create(&pd, &desc, attr, lib);
	dnnl_primitive_attr_destroy(attr);
	if (err)
		return err;
	return oplib_plan_primitive(plan, pd, 3, args, views);
}

/* ---- a matrix by a vector ------------------------------------------------ */

/* Every so many rows a thread asks whether the operator is abandoned. */
#define GEMV_ROWS_PER_ASK	256

static float gemv_dot(const float *a, const float *x, int64_t k)
{
	oplib_vf32 s0 = { 0 }, s1 = { 0 }, s2 = { 0 }, s3 = { 0 };
	const int64_t lanes = OPLIB_VF32_LANES;
	float sum = 0;
	int64_t i = 0;
	unsigned int l;

	for (; i + 4 * lanes <= k; i += 4 * lanes) {
		s0 += oplib_vf32_load(a + i) * oplib_vf32_load(x + i);
		s1 += oplib_vf32_load(a + i + lanes) * oplib_vf32_load(x + i + lanes);
		s2 += oplib_vf32_load(a + i + 2 * lanes) * oplib_vf32_load(x + i + 2 * lanes);
		s3 += oplib_vf32_load(a + i + 3 * lanes) * oplib_vf32_load(x + i + 3 * lanes);
	}
	for (; i + lanes <= k; i += lanes)
		s0 += oplib_vf32_load(a + i) * oplib_vf32_load(x + i);
	s0 += s1 + s2 + s3;
	for (l = 0; l < OPLIB_VF32_LANES; l++)
		sum += s0[l];
	for (; i < k; i++)
		sum += a[i] * x[i];
	return sum;
}

/*
 * y (M, 1) = act(alpha * a' x b'), a' (M, K) with its rows dense, b' a
 * dense column: batch axes, if any, are all 1.
 */
static bool gemv_loop(const struct oplib_op *op, const struct oplib_step *step,
		      uint8_t *const *bufs, const struct oplib_hooks *hooks)
{
	const struct oplib_tensor *y = oplib_out(op);
	struct matmul_attrs m;
	int64_t dims[NPU_TENSOR_MAX_DIMS], strides[NPU_TENSOR_MAX_DIMS];
	unsigned int r = y->ndims;
	int64_t rows, k, row_stride, y_stride, i;
	bool act, stop = false;
	const float *a = (const float *)bufs[0], *x = (const float *)bufs[1];
	float *out = (float *)bufs[step->out];

	matmul_decode(op, &m);
	matmul_operand(&op->t[0], m.trans_a, dims, strides);
	rows = dims[r - 2];
	k = dims[r - 1];
	row_stride = strides[r - 2];
	y_stride = y->strides[r - 2];
	act = !oplib_act_is_none(&m.act);

#pragma omp parallel for schedule(static)
	for (i = 0; i < rows; i++) {
		float v;

		if (__atomic_load_n(&stop, __ATOMIC_RELAXED))
			continue;
		if (hooks && i % GEMV_ROWS_PER_ASK == GEMV_ROWS_PER_ASK - 1 &&
		    hooks->abandoned(hooks->ctx)) {
			__atomic_store_n(&stop, true, __ATOMIC_RELAXED);
			continue;
		}
		v = m.alpha * gemv_dot(a + i * row_stride, x, k);
		out[i * y_stride] = act ? oplib_act_apply(&m.act, v) : v;
	}
	return !stop;
}

/* The product is one the loop above computes. */
static bool matmul_is_gemv(const struct oplib_op *op, const struct matmul_attrs *m)
{
	const struct oplib_tensor *y = oplib_out(op);
	int64_t a_dims[NPU_TENSOR_MAX_DIMS], a_strides[NPU_TENSOR_MAX_DIMS];
	int64_t b_dims[NPU_TENSOR_MAX_DIMS], b_strides[NPU_TENSOR_MAX_DIMS];
	unsigned int r = y->ndims, i, d;

	if (op->num_inputs != 2 || y->dims[r - 1] != 1)
		return false;
	for (i = 0; i < op->num_tensors; i++)
		if (op->t[i].dtype != NPU_DTYPE_F32 ||
		    op->t[i].format != NPU_FORMAT_STRIDED)
			return false;
	for (d = 0; d + 2 < r; d++)
		if (y->dims[d] != 1)
			return false;
	matmul_operand(&op->t[0], m->trans_a, a_dims, a_strides);
	matmul_operand(&op->t[1], m->trans_b, b_dims, b_strides);
	/* a row or a column of one element is dense whatever its stride */
	return (a_strides[r - 1] == 1 || a_dims[r - 1] == 1) &&
	       (b_strides[r - 2] == 1 || b_dims[r - 2] == 1);
}

static int matmul_plan(struct oplib *lib, const struct oplib_op *op,
		       struct oplib_plan *plan)
{
	bool with_c = op->num_inputs == 3, as_bias, fused = true;
	unsigned int user[4];
	dnnl_primitive_attr_t attr;
	struct matmul_attrs m;
	int err;

	matmul_decode(op, &m);
	if (matmul_is_gemv(op, &m))
		return oplib_plan_loop(plan, gemv_loop, 0, op->num_inputs, NULL);
	as_bias = matmul_c_is_bias(op, &m);
	err = operand_view(plan, op, 0, m.trans_a, &user[0]);
	if (!err)
		err = operand_view(plan, op, 1, m.trans_b, &user[1]);
	if (!err && with_c)
		err = oplib_plan_tensor(plan, op, 2, &user[2]);
	if (!err)
		err = oplib_plan_tensor(plan, op, op->num_inputs, &user[3]);
	if (err)
		return err;

	if (dnnl_primitive_attr_create(&attr) != dnnl_success)
		return NPU_ERR_OP_FAILED;
	if (m.alpha != 1.0f)
		err = oplib_status(dnnl_primitive_attr_set_output_scales(attr,
						1, 0, &m.alpha));
	if (!err && (!with_c || as_bias))
		err = oplib_act_post_ops(&m.act, attr, &fused);
	if (!err)
		err = plan_product(lib, plan, user, as_bias, attr);
	dnnl_primitive_attr_destroy(attr);
	if (!err && with_c && !as_bias)
		err = plan_add_c(lib, plan, user, &m, &fused);
	if (!err && !fused)
		err = oplib_plan_act(lib, plan, op->num_inputs, user[3], &m.act);
	return err;
}

const struct oplib_family oplib_matmul_family = {
	.check = matmul_check,
	.plan = matmul_plan,
};
