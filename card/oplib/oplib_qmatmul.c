// SPDX-License-Identifier: GPL-2.0
/*
 * QMATMUL: y = x ((w + offset) * scale), w of 8- or 4-bit integers.
 *
 * The weights are never dequantised whole: a product of a language model
 * reads each weight once, so what it costs is reading w.  The product
 * walks K in slices; for each slice, threads take tiles of N columns,
 * dequantise their tile into a small F32 buffer of their own (it stays
 * in cache) and multiply it with oneDNN's sgemm, adding into an F32 copy
 * of y.  x is read once into F32 and y written once from it, so any
 * floating type and any strides cost one pass over x and y.
 *
 * A tile is laid out the way w runs: weights whose K axis is contiguous
 * (a transposed weight, as ggml hands them) dequantise into (N, K) rows
 * and the product reads them transposed; others into (K, N) rows.
 */
#include <omp.h>

#include "oplib_impl.h"

/* K and N of one tile: 128 KiB of F32, well inside a core's L2. */
#define QMM_TILE_K		512
#define QMM_TILE_N		64

/* Scratch the plan asks for, in this order. */
enum { QMM_SCRATCH_X, QMM_SCRATCH_Y, QMM_SCRATCH_TILES };

/* The operator as the loop sees it. */
struct qmm_shape {
	int64_t m, k, n;	/* rows of x (batch axes folded in), K, N */
	int64_t groups;		/* rows of scale */
	int64_t group;		/* rows of w per row of scale */
	int64_t wk, wn;		/* w's strides along K and N: bytes at 4 bits */
	int64_t sg, sn;		/* scale's along groups and N */
	int64_t og, on;		/* offset's */
	bool int4;
	bool pairs_k;		/* a byte's two values are neighbours in K */
	bool k_inner;		/* tiles are (N, K): w's K axis is its closest */
};

static bool qmm_float(unsigned int dtype)
{
	return dtype == NPU_DTYPE_F32 || dtype == NPU_DTYPE_F16 ||
	       dtype == NPU_DTYPE_BF16;
}

static void qmm_decode(const struct oplib_op *op, struct qmm_shape *s)
{
	const struct npu_attr_qmatmul *a = &op->attrs->qmatmul;
	const struct oplib_tensor *x = &op->t[0], *w = &op->t[1], *sc = &op->t[2];
	const struct oplib_tensor *off = op->num_inputs > 3 ? &op->t[3] : sc;
	const struct oplib_tensor *y = oplib_out(op);
	bool trans = oplib_u32(a->trans_w);
	unsigned int ka = trans ? 1 : 0;

	s->int4 = oplib_u32(a->bits) == 4;
	s->k = x->dims[x->ndims - 1];
	s->n = y->dims[y->ndims - 1];
	s->m = y->nelems / (s->n ? s->n : 1);
	s->group = oplib_u32(a->group) ? oplib_u32(a->group) : s->k;
	s->groups = (s->k + s->group - 1) / s->group;
	s->wk = w->strides[ka];
	s->wn = w->strides[1 - ka];
	s->pairs_k = s->int4 && trans;
	s->k_inner = s->wk <= s->wn;
	s->sg = sc->ndims == 2 ? sc->strides[0] : 0;
	s->sn = sc->strides[sc->ndims - 1];
	s->og = off->ndims == 2 ? off->strides[0] : 0;
	s->on = off->strides[off->ndims - 1];
}

/* w's dims for K and N values, @bits and @trans_w as given. */
static bool qmm_weight_dims(const struct oplib_tensor *w, bool trans,
			    bool int4, int64_t k, int64_t n)
{
	int64_t rows = trans ? n : k, cols = trans ? k : n;

	if (int4 && cols % 2)
		return false;
	return w->ndims == 2 && w->dims[0] == rows &&
	       w->dims[1] == (int4 ? cols / 2 : cols);
}

/* scale and offset: (groups, N), or (N) for one group. */
static bool qmm_param_dims(const struct oplib_tensor *t, int64_t groups,
			   int64_t n)
{
	if (t->ndims == 1)
		return groups == 1 && t->dims[0] == n;
	return t->ndims == 2 && t->dims[0] == groups && t->dims[1] == n;
}

static int qmm_check_types(const struct oplib_op *op)
{
	const struct oplib_tensor *x = &op->t[0], *sc = &op->t[2];
	unsigned int i;
	int err;

	for (i = 0; i < op->num_tensors; i++) {
		err = oplib_strided_only(&op->t[i]);
		if (err)
			return err;
	}
	if (!qmm_float(x->dtype) || oplib_out(op)->dtype != x->dtype ||
	    op->t[1].dtype != NPU_DTYPE_S8 || !qmm_float(sc->dtype) ||
	    (op->num_inputs > 3 && op->t[3].dtype != sc->dtype))
		return NPU_ERR_OPERATOR;
	return NPU_ERR_NONE;
}

static int qmatmul_check(const struct oplib_op *op)
{
	const struct npu_attr_qmatmul *a = &op->attrs->qmatmul;
	const struct oplib_tensor *x = &op->t[0], *y = oplib_out(op);
	uint32_t bits = oplib_u32(a->bits), trans = oplib_u32(a->trans_w);
	uint32_t group = oplib_u32(a->group);
	int64_t k, n, groups;
	unsigned int d;
	int err;

	if (a->rsvd)
		return NPU_ERR_RESERVED;
	err = qmm_check_types(op);
	if (err)
		return err;
	if ((bits != 8 && bits != 4) || trans > 1 || x->ndims < 2 ||
	    y->ndims != x->ndims)
		return NPU_ERR_OP_PARAM;
	for (d = 0; d + 1 < x->ndims; d++)
		if (y->dims[d] != x->dims[d])
			return NPU_ERR_OP_PARAM;
	k = x->dims[x->ndims - 1];
	n = y->dims[y->ndims - 1];
	if (group > k || !qmm_weight_dims(&op->t[1], trans, bits == 4, k, n))
		return NPU_ERR_OP_PARAM;
	groups = group ? (k + group - 1) / group : 1;
	for (d = 2; d < op->num_inputs; d++)
		if (!qmm_param_dims(&op->t[d], groups, n))
			return NPU_ERR_OP_PARAM;
	return NPU_ERR_NONE;
}

/* A signed 4-bit value: the low or high nibble of b. */
static inline float qmm_nibble(uint8_t b, bool high)
{
	int v = high ? b >> 4 : b & 15;

	return (float)((v ^ 8) - 8);
}

/* The weight at (k, n) as an integer, before its scale. */
static inline float qmm_weight(const struct qmm_shape *s, const uint8_t *w,
			       int64_t k, int64_t n)
{
	if (!s->int4)
		return (float)(int8_t)w[k * s->wk + n * s->wn];
	if (s->pairs_k)
		return qmm_nibble(w[(k >> 1) * s->wk + n * s->wn], k & 1);
	return qmm_nibble(w[k * s->wk + (n >> 1) * s->wn], n & 1);
}

/* Where scale and offset are, and their type. */
struct qmm_params {
	const uint8_t *scale, *offset;
	unsigned int dtype;
	size_t esize;
};

/* Scale and offset of group g, column n. */
static inline void qmm_param(const struct qmm_shape *s,
			     const struct qmm_params *p, int64_t g, int64_t n,
			     float *scale, float *offset)
{
	*scale = oplib_load(p->scale + (g * s->sg + n * s->sn) * p->esize,
			    p->dtype);
	*offset = p->offset ? oplib_load(p->offset + (g * s->og + n * s->on) *
					 p->esize, p->dtype) : 0;
}

/*
 * One column n of the tile, K values k0..k1 into dst[0..): where w runs
 * along K, the loops over its bytes vectorise.
 */
static void qmm_column(const struct qmm_shape *s, const struct qmm_params *p,
		       const uint8_t *w, int64_t n, int64_t k0, int64_t k1,
		       float *dst)
{
	int64_t k = k0;

	while (k < k1) {
		int64_t g = k / s->group, end = (g + 1) * s->group;
		float sc, of;

		qmm_param(s, p, g, n, &sc, &of);
		if (end > k1)
			end = k1;
		if (!s->int4 && s->wk == 1) {
			const int8_t *row = (const int8_t *)w + n * s->wn;

			for (; k < end; k++)
				dst[k - k0] = ((float)row[k] + of) * sc;
		} else if (s->pairs_k && s->wk == 1 && !(k & 1) && !(end & 1)) {
			const uint8_t *row = w + n * s->wn;

			for (; k < end; k += 2) {
				dst[k - k0] = (qmm_nibble(row[k >> 1], false) + of) * sc;
				dst[k - k0 + 1] = (qmm_nibble(row[k >> 1], true) + of) * sc;
			}
		} else {
			for (; k < end; k++)
				dst[k - k0] = (qmm_weight(s, w, k, n) + of) * sc;
		}
	}
}

/* One row k of the tile, N values n0..n1 into dst[0..). */
static void qmm_row(const struct qmm_shape *s, const struct qmm_params *p,
		    const uint8_t *w, int64_t k, int64_t n0, int64_t n1,
		    float *dst)
{
	int64_t g = k / s->group, n;
	float sc, of;

	for (n = n0; n < n1; n++) {
		qmm_param(s, p, g, n, &sc, &of);
		dst[n - n0] = (qmm_weight(s, w, k, n) + of) * sc;
	}
}

/* The tile's weights, then its product added into y (N floats a row). */
static void qmm_tile(const struct qmm_shape *s, const struct qmm_params *p,
		     const uint8_t *w, const float *x, float *y, float *tile,
		     int64_t k0, int64_t kn, int64_t n0, int64_t nn)
{
	float beta = k0 ? 1 : 0;
	int64_t i;

	if (s->k_inner) {
		for (i = 0; i < nn; i++)
			qmm_column(s, p, w, n0 + i, k0, k0 + kn, tile + i * kn);
		dnnl_sgemm('N', 'T', s->m, nn, kn, 1, x + k0, s->k, tile, kn,
			   beta, y + n0, s->n);
		return;
	}
	for (i = 0; i < kn; i++)
		qmm_row(s, p, w, k0 + i, n0, n0 + nn, tile + i * nn);
	dnnl_sgemm('N', 'N', s->m, nn, kn, 1, x + k0, s->k, tile, nn, beta,
		   y + n0, s->n);
}

/* Between x (or y) and its dense F32 copy, element by element. */
static void qmm_copy(const struct oplib_tensor *t, uint8_t *base, float *dense,
		     bool to_dense)
{
	size_t esize = oplib_dtype_size(t->dtype);
	int64_t idx[NPU_TENSOR_MAX_DIMS] = { 0 };
	uint64_t i = 0;

	do {
		uint8_t *e = base + oplib_offset(t, idx) * esize;

		if (to_dense)
			dense[i++] = oplib_load(e, t->dtype);
		else
			oplib_store(e, t->dtype, dense[i++]);
	} while (oplib_index_next(idx, t->dims, t->ndims));
}

static bool qmatmul_loop(const struct oplib_op *op,
			 const struct oplib_step *step, uint8_t *const *bufs,
			 const struct oplib_hooks *hooks)
{
	float *x = (float *)bufs[OPLIB_SCRATCH_BUF(QMM_SCRATCH_X)];
	float *y = (float *)bufs[OPLIB_SCRATCH_BUF(QMM_SCRATCH_Y)];
	float *tiles = (float *)bufs[OPLIB_SCRATCH_BUF(QMM_SCRATCH_TILES)];
	const struct qmm_params p = {
		.scale = bufs[2],
		.offset = op->num_inputs > 3 ? bufs[3] : NULL,
		.dtype = op->t[2].dtype,
		.esize = oplib_dtype_size(op->t[2].dtype),
	};
	struct qmm_shape s;
	int64_t k0, ntiles;

	(void)step;
	qmm_decode(op, &s);
	qmm_copy(&op->t[0], bufs[0], x, true);
	ntiles = (s.n + QMM_TILE_N - 1) / QMM_TILE_N;
	for (k0 = 0; k0 < s.k; k0 += QMM_TILE_K) {
		int64_t kn = s.k - k0 < QMM_TILE_K ? s.k - k0 : QMM_TILE_K;
		int64_t t;

		if (hooks && hooks->abandoned(hooks->ctx))
			return false;
#pragma omp parallel for schedule(static)
		for (t = 0; t < ntiles; t++) {
			int64_t n0 = t * QMM_TILE_N;
			int64_t nn = s.n - n0 < QMM_TILE_N ? s.n - n0 : QMM_TILE_N;
			float *tile = tiles + (size_t)omp_get_thread_num() *
					      QMM_TILE_K * QMM_TILE_N;

			qmm_tile(&s, &p, bufs[1], x, y, tile, k0, kn, n0, nn);
		}
	}
	qmm_copy(oplib_out(op), bufs[op->num_inputs], y, false);
	return true;
}

static int qmm_scratch(struct oplib_plan *plan, int64_t rows, int64_t cols)
{
	int64_t dims[2] = { rows, cols };
	dnnl_memory_desc_t md;
	unsigned int view;
	int err = oplib_md_dense(&md, 2, dims, NPU_DTYPE_F32);

	return err ? err : oplib_plan_scratch(plan, &md, &view);
}

/*
 * The tiles: one per thread, and oplib_run() sets the threads of a
 * parallel region to lib->threads.
 */
static int qmatmul_plan(struct oplib *lib, const struct oplib_op *op,
			struct oplib_plan *plan)
{
	struct qmm_shape s;
	int err;

	/* the loop finds its buffers by number */
	if (plan->nscratch != QMM_SCRATCH_X)
		return NPU_ERR_OP_FAILED;
	qmm_decode(op, &s);
	err = qmm_scratch(plan, s.m, s.k);
	if (!err)
		err = qmm_scratch(plan, s.m, s.n);
	if (!err)
		err = qmm_scratch(plan, lib->threads, QMM_TILE_K * QMM_TILE_N);
	return err ? err : oplib_plan_loop(plan, qmatmul_loop, 0,
					   op->num_inputs, NULL);
}

const struct oplib_family oplib_qmatmul_family = {
	.reads_broadcast = true,
	.check = qmatmul_check,
	.plan = qmatmul_plan,
};
