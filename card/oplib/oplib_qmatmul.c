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

/*
 * A tile: 128 KiB of F32, well inside a core's L2.  For a few rows of x
 * it spans as much of K as it can, so that each weight row is read in
 * long runs the prefetcher follows, and at least QMM_TILE_MIN_N columns.
 * For many rows the product dominates, and sgemm packs its slice of x
 * again for every tile: slices of QMM_MANY_ROWS_TILE_K rows of K, 128
 * columns wide, pack the least x for the work (measured with oplib-bench
 * against 64 x 512, 256 x 256 and 128 x 512).
 */
#define QMM_TILE_ELEMS		(32 * 1024)
#define QMM_TILE_MIN_N		16
#define QMM_MANY_ROWS_TILE_K	256
/* Up to this many rows of x, dot products beat sgemm on a tile. */
#define QMM_FEW_ROWS		4
#define QMM_LANES		16

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
	int64_t tile_k, tile_n;
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
	s->tile_k = s->m > QMM_FEW_ROWS ? QMM_MANY_ROWS_TILE_K :
		    QMM_TILE_ELEMS / QMM_TILE_MIN_N;
	if (s->tile_k > s->k)
		s->tile_k = s->k;
	s->tile_n = QMM_TILE_ELEMS / s->tile_k;
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
	int err;

	err = oplib_all_strided(op);
	if (err)
		return err;
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

/* Each byte's two 4-bit values, low nibble first, as floats. */
static float qmm_pairs[256][2];

static void __attribute__((constructor)) qmm_pairs_init(void)
{
	unsigned int b;

	for (b = 0; b < 256; b++) {
		qmm_pairs[b][0] = qmm_nibble(b, false);
		qmm_pairs[b][1] = qmm_nibble(b, true);
	}
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

/* A scale or an offset: oplib_load() goes through double, too slow here. */
static inline float qmm_load(const uint8_t *p, unsigned int dtype)
{
	_Float16 h;
	uint16_t b;
	float f;

	if (dtype == NPU_DTYPE_F16) {
		memcpy(&h, p, sizeof(h));
		return h;
	}
	if (dtype == NPU_DTYPE_BF16) {
		memcpy(&b, p, sizeof(b));
		return oplib_bf16_to_f32(le16toh(b));
	}
	memcpy(&f, p, sizeof(f));
	return f;
}

/* Scale and offset of group g, column n. */
static inline void qmm_param(const struct qmm_shape *s,
			     const struct qmm_params *p, int64_t g, int64_t n,
			     float *scale, float *offset)
{
	*scale = qmm_load(p->scale + (g * s->sg + n * s->sn) * p->esize, p->dtype);
	*offset = p->offset ? qmm_load(p->offset + (g * s->og + n * s->on) *
				       p->esize, p->dtype) : 0;
}

/*
 * What dequantises is built for this CPU's vector width as well as for
 * the baseline, and chosen when the card starts.
 */
#define QMM_VECTOR	__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))

/*
 * One column n of the tile, K values k0..k1 into dst[0..): where w runs
 * along K, the loops over its bytes vectorise.
 */
QMM_VECTOR
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
			int64_t j;

			/* a byte's two values from the table, then scaled in vectors */
			for (j = k >> 1; j < end >> 1; j++)
				memcpy(&dst[2 * j - k0], qmm_pairs[row[j]], sizeof(qmm_pairs[0]));
			for (; k < end; k++)
				dst[k - k0] = (dst[k - k0] + of) * sc;
		} else {
			for (; k < end; k++)
				dst[k - k0] = (qmm_weight(s, w, k, n) + of) * sc;
		}
	}
}

/* One row k of the tile, N values n0..n1 into dst[0..). */
QMM_VECTOR
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

/* x . w over n floats, in lanes the compiler keeps in vector registers. */
QMM_VECTOR
static float qmm_dot(const float *x, const float *w, int64_t n)
{
	float lane[QMM_LANES] = { 0 }, sum = 0;
	int64_t i, l;

	for (i = 0; i + QMM_LANES <= n; i += QMM_LANES)
		for (l = 0; l < QMM_LANES; l++)
			lane[l] += x[i + l] * w[i + l];
	for (; i < n; i++)
		sum += x[i] * w[i];
	for (l = 0; l < QMM_LANES; l++)
		sum += lane[l];
	return sum;
}

/*
 * A few rows of x (a decoding step's): each column is dequantised and
 * taken straight into dot products while it is in L1, with no call of
 * sgemm per tile.
 */
static void qmm_few_rows(const struct qmm_shape *s, const struct qmm_params *p,
			 const uint8_t *w, const float *x, float *y, float *col,
			 int64_t k0, int64_t kn, int64_t n0, int64_t nn)
{
	int64_t i, r;

	for (i = 0; i < nn; i++) {
		qmm_column(s, p, w, n0 + i, k0, k0 + kn, col);
		for (r = 0; r < s->m; r++) {
			float d = qmm_dot(x + r * s->k + k0, col, kn);
			float *at = y + r * s->n + n0 + i;

			*at = k0 ? *at + d : d;
		}
	}
}

/* The tile's weights, then its product added into y (N floats a row). */
static void qmm_tile(const struct qmm_shape *s, const struct qmm_params *p,
		     const uint8_t *w, const float *x, float *y, float *tile,
		     int64_t k0, int64_t kn, int64_t n0, int64_t nn)
{
	float beta = k0 ? 1 : 0;
	int64_t i;

	if (s->k_inner && s->m <= QMM_FEW_ROWS) {
		qmm_few_rows(s, p, w, x, y, tile, k0, kn, n0, nn);
		return;
	}
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

/* n contiguous elements of dtype at p into F32, or back. */
static void qmm_convert_row(uint8_t *p, unsigned int dtype, float *f,
			    int64_t n, bool to_f32)
{
	int64_t i;

	if (dtype == NPU_DTYPE_F16 && to_f32) {
		oplib_f16_widen(p, f, n);
	} else if (dtype == NPU_DTYPE_F16) {
		oplib_f16_narrow(f, p, n);
	} else {
		size_t esize = oplib_dtype_size(dtype);

		for (i = 0; i < n; i++) {
			if (to_f32)
				f[i] = oplib_load(p + i * esize, dtype);
			else
				oplib_store(p + i * esize, dtype, f[i]);
		}
	}
}

/* Between x (or y) and its dense F32 copy, a row of the last axis at a time. */
static void qmm_copy(const struct oplib_tensor *t, uint8_t *base, float *dense,
		     bool to_dense)
{
	size_t esize = oplib_dtype_size(t->dtype);
	int64_t idx[NPU_TENSOR_MAX_DIMS] = { 0 }, n = t->dims[t->ndims - 1];
	int64_t step = t->strides[t->ndims - 1], i;

	do {
		uint8_t *row = base + oplib_offset(t, idx) * esize;

		if (step == 1) {
			qmm_convert_row(row, t->dtype, dense, n, to_dense);
		} else {
			for (i = 0; i < n; i++)
				qmm_convert_row(row + i * step * esize, t->dtype,
						dense + i, 1, to_dense);
		}
		dense += n;
	} while (oplib_index_next(idx, t->dims, t->ndims - 1));
}

/* y may be computed where it lies: F32, dense, and no input beneath it. */
static bool qmm_y_in_place(const struct oplib_op *op)
{
	const struct oplib_tensor *y = oplib_out(op);
	unsigned int i;

	if (y->dtype != NPU_DTYPE_F32 || !oplib_dense(y))
		return false;
	for (i = 0; i < op->num_inputs; i++)
		if (op->t[i].addr < y->addr + y->extent &&
		    y->addr < op->t[i].addr + op->t[i].extent)
			return false;
	return true;
}

/*
 * Threads take runs of N tiles and go down K in each, with no barrier
 * between: on a busy host, a thread that is descheduled holds up no
 * other.  The first thread asks whether the operator is abandoned before
 * each of its tiles, and the others stop at the flag it sets.
 */
static bool qmm_tiles(const struct qmm_shape *s, const struct qmm_params *p,
		      const uint8_t *w, const float *x, float *y, float *tiles,
		      const struct oplib_hooks *hooks)
{
	int64_t ntiles = (s->n + s->tile_n - 1) / s->tile_n, t;
	bool stop = false;

#pragma omp parallel for schedule(static)
	for (t = 0; t < ntiles; t++) {
		int64_t n0 = t * s->tile_n, k0;
		int64_t nn = s->n - n0 < s->tile_n ? s->n - n0 : s->tile_n;
		float *tile = tiles + (size_t)omp_get_thread_num() *
				      QMM_TILE_ELEMS;

		if (__atomic_load_n(&stop, __ATOMIC_RELAXED))
			continue;
		if (!omp_get_thread_num() && hooks &&
		    hooks->abandoned(hooks->ctx)) {
			__atomic_store_n(&stop, true, __ATOMIC_RELAXED);
			continue;
		}
		for (k0 = 0; k0 < s->k; k0 += s->tile_k)
			qmm_tile(s, p, w, x, y, tile, k0,
				 s->k - k0 < s->tile_k ? s->k - k0 : s->tile_k,
				 n0, nn);
	}
	return !stop;
}

static bool qmatmul_loop(const struct oplib_op *op,
			 const struct oplib_step *step, uint8_t *const *bufs,
			 const struct oplib_hooks *hooks)
{
	const struct oplib_tensor *xt = &op->t[0], *yt = oplib_out(op);
	float *x = (float *)bufs[OPLIB_SCRATCH_BUF(QMM_SCRATCH_X)];
	float *y = (float *)bufs[OPLIB_SCRATCH_BUF(QMM_SCRATCH_Y)];
	float *tiles = (float *)bufs[OPLIB_SCRATCH_BUF(QMM_SCRATCH_TILES)];
	const struct qmm_params p = {
		.scale = bufs[2],
		.offset = op->num_inputs > 3 ? bufs[3] : NULL,
		.dtype = op->t[2].dtype,
		.esize = oplib_dtype_size(op->t[2].dtype),
	};
	bool in_place = qmm_y_in_place(op);
	struct qmm_shape s;

	(void)step;
	qmm_decode(op, &s);
	if (xt->dtype == NPU_DTYPE_F32 && oplib_dense(xt))
		x = (float *)bufs[0];
	else
		qmm_copy(xt, bufs[0], x, true);
	if (in_place)
		y = (float *)bufs[op->num_inputs];
	if (!qmm_tiles(&s, &p, bufs[1], x, y, tiles, hooks))
		return false;
	if (!in_place)
		qmm_copy(yt, bufs[op->num_inputs], y, false);
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
		err = qmm_scratch(plan, lib->threads, QMM_TILE_ELEMS);
	return err ? err : oplib_plan_loop(plan, qmatmul_loop, 0,
					   op->num_inputs, NULL);
}

const struct oplib_family oplib_qmatmul_family = {
	.reads_broadcast = true,
	.check = qmatmul_check,
	.plan = qmatmul_plan,
};
