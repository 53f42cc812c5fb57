// SPDX-License-Identifier: MIT
/*
 * A small decoder block run through aclnn as ggml's CANN backend runs one:
 * token rows (Embedding), RMSNorm, float16 products over int8 and int4
 * weights with a float16 scale per 32 rows (WeightQuantBatchMatmulV2),
 * rotary embedding, keys and values appended to a cache (InplaceIndexCopy),
 * grouped-head attention over the cache (FusedInferAttentionScoreV2, BSND),
 * SwiGlu, the residual Adds and the logits' ArgMax.  A prompt of four
 * tokens, then four single-token steps, each feeding back the card's
 * choice; the host computes the same block in double, rounding to float16
 * where the card stores float16, and checks every step's logits and choice.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_argmax.h"
#include "aclnnop/aclnn_cast.h"
#include "aclnnop/aclnn_embedding.h"
#include "aclnnop/aclnn_fused_infer_attention_score_v2.h"
#include "aclnnop/aclnn_index_copy.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_rotary_position_embedding.h"
#include "aclnnop/aclnn_swi_glu.h"
#include "aclnnop/aclnn_weight_quant_batch_matmul_v2.h"
#include "../check.h"

#define HIDDEN		64
#define HEADS		4
#define KV_HEADS	2
#define HEAD_DIM	16
#define FFN		96
#define VOCAB		256
#define MAX_TOKENS	16
#define GROUP		32
#define PROMPT		4
#define STEPS		4
#define EPS		1e-6
/* ggml's normal rope: neighbouring pairs rotate */
#define ROPE_INTERLEAVED 1
/* float16 storage through a dozen operations, relative to the largest logit */
#define TOLERANCE	5e-3

typedef aclnnStatus (*launch_fn)(void *, uint64_t, aclOpExecutor *, aclrtStream);

static aclrtStream stream;

/* The second of an operator's two calls, with a workspace of its size. */
static int launch(uint64_t size, aclOpExecutor *executor, launch_fn fn)
{
	void *work = NULL;

	if (size)
		CHECK(aclrtMalloc(&work, size, ACL_MEM_MALLOC_HUGE_FIRST));
	CHECK(fn(work, size, executor, stream));
	CHECK(aclrtSynchronizeStream(stream));
	if (work)
		CHECK(aclrtFree(work));
	return 0;
}

/* Both calls of aclnn<op>; the enclosing function returns 1 if one fails. */
#define RUN(op, ...)								\
	do {									\
		uint64_t size_;							\
		aclOpExecutor *executor_;					\
		CHECK(aclnn##op##GetWorkspaceSize(__VA_ARGS__, &size_, &executor_)); \
		if (launch(size_, executor_, aclnn##op))			\
			return 1;						\
	} while (0)

static double f16(double v)
{
	return (double)(_Float16)v;
}

/* Deterministic values in [-1, 1). */
static double next_value(void)
{
	static uint32_t state = 2604;

	state = state * 1664525u + 1013904223u;
	return (double)(state >> 8) / (1 << 23) - 1.0;
}

/*
 * Device memory is kept on a stack: the model's stays for the run, a
 * step's goes at its end (free_device_memory(mark)).
 */
static void *allocations[128];
static int allocated;

/* size bytes of device memory, holding host's if not NULL */
static void *device_copy(const void *host, size_t size)
{
	void *dev = NULL;

	if (allocated == (int)(sizeof(allocations) / sizeof(allocations[0])) ||
	    aclrtMalloc(&dev, size, ACL_MEM_MALLOC_HUGE_FIRST) ||
	    (host && aclrtMemcpy(dev, size, host, size, ACL_MEMCPY_HOST_TO_DEVICE))) {
		fprintf(stderr, "device memory: %s\n", aclGetRecentErrMsg());
		exit(1);
	}
	allocations[allocated++] = dev;
	return dev;
}

/* Frees what device_copy allocated since mark (the value of allocated then). */
static int free_device_memory(int mark)
{
	while (allocated > mark)
		CHECK(aclrtFree(allocations[--allocated]));
	return 0;
}

/* A view of storage elements at data: dims and strides (NULL: contiguous). */
static aclTensor *view(aclDataType type, int ndim, const int64_t *dims, const int64_t *strides,
		       int64_t storage, void *data)
{
	int64_t contiguous[4];
	aclTensor *t;

	for (int i = ndim - 1, s = 1; i >= 0; s *= (int)dims[i], i--)
		contiguous[i] = s;
	t = aclCreateTensor(dims, ndim, type, strides ? strides : contiguous, 0, ACL_FORMAT_ND,
			    &storage, 1, data);
	if (!t) {
		fprintf(stderr, "aclCreateTensor: %s\n", aclGetRecentErrMsg());
		exit(1);
	}
	return t;
}

static aclTensor *matrix(aclDataType type, int64_t rows, int64_t cols, void *data)
{
	const int64_t dims[2] = { rows, cols };

	return view(type, 2, dims, NULL, rows * cols, data);
}

/*
 * A (k, n) weight of int8 or int4 values and a float16 scale per GROUP rows,
 * stored (n, k) as ggml's q8_0 and q4_0 store theirs and seen transposed.
 */
struct qweight {
	int k, n;
	int8_t *values;		/* values[j * k + i]: row i, column j */
	_Float16 *scales;	/* scales[j * k / GROUP + i / GROUP] */
	aclTensor *weight, *scale;
};

static void qweight_init(struct qweight *w, int k, int n, int bits)
{
	const int top = bits == 4 ? 8 : 128, groups = k / GROUP;
	const int64_t wdims[2] = { k, n }, wstrides[2] = { 1, k };
	const int64_t sdims[2] = { groups, n }, sstrides[2] = { 1, groups };
	size_t bytes = bits == 4 ? (size_t)k * n / 2 : (size_t)k * n;
	uint8_t *packed = calloc(bytes, 1);

	w->k = k;
	w->n = n;
	w->values = malloc((size_t)k * n);
	w->scales = malloc(sizeof(*w->scales) * n * groups);
	for (int e = 0; e < k * n; e++) {
		w->values[e] = (int8_t)floor(next_value() * top);
		if (bits == 4)	/* two a byte, the even one in the low nibble */
			packed[e / 2] |= (uint8_t)((w->values[e] & 15) << (e % 2 * 4));
		else
			packed[e] = (uint8_t)w->values[e];
	}
	/* outputs about as large as the inputs */
	for (int e = 0; e < n * groups; e++)
		w->scales[e] = (_Float16)((1.25 + next_value() * 0.5) / (top * sqrt(k) / 2));
	w->weight = view(bits == 4 ? ACL_INT4 : ACL_INT8, 2, wdims, wstrides, (int64_t)k * n,
			 device_copy(packed, bytes));
	w->scale = view(ACL_FLOAT16, 2, sdims, sstrides, (int64_t)n * groups,
			device_copy(w->scales, sizeof(*w->scales) * n * groups));
	free(packed);
}

static double qweight_at(const struct qweight *w, int i, int j)
{
	return w->values[j * w->k + i] * (double)w->scales[j * (w->k / GROUP) + i / GROUP];
}

/* y (rows, n) = f16(x (rows, k) w), on the host */
static void host_product(const struct qweight *w, int rows, const double *x, double *y)
{
	for (int r = 0; r < rows; r++)
		for (int j = 0; j < w->n; j++) {
			double s = 0;

			for (int i = 0; i < w->k; i++)
				s += x[r * w->k + i] * qweight_at(w, i, j);
			y[r * w->n + j] = f16(s);
		}
}

static struct model {
	float embedding[VOCAB * HIDDEN], gamma[3][HIDDEN];
	struct qweight wq, wk, wv, wo, gate_up, down, out;
	void *dev_embedding, *dev_gamma[3], *dev_cache[2];
	double host_cache[2][MAX_TOKENS * KV_HEADS * HEAD_DIM];
} m;

static void model_init(void)
{
	for (int e = 0; e < VOCAB * HIDDEN; e++)
		m.embedding[e] = (float)(next_value() * 2);
	for (int g = 0; g < 3; g++)
		for (int e = 0; e < HIDDEN; e++)
			m.gamma[g][e] = (float)(1 + next_value() * 0.2);
	qweight_init(&m.wq, HIDDEN, HEADS * HEAD_DIM, 8);
	qweight_init(&m.wk, HIDDEN, KV_HEADS * HEAD_DIM, 8);
	qweight_init(&m.wv, HIDDEN, KV_HEADS * HEAD_DIM, 8);
	qweight_init(&m.wo, HEADS * HEAD_DIM, HIDDEN, 8);
	qweight_init(&m.gate_up, HIDDEN, 2 * FFN, 4);
	qweight_init(&m.down, FFN, HIDDEN, 4);
	qweight_init(&m.out, HIDDEN, VOCAB, 8);
	m.dev_embedding = device_copy(m.embedding, sizeof(m.embedding));
	for (int g = 0; g < 3; g++)
		m.dev_gamma[g] = device_copy(m.gamma[g], sizeof(m.gamma[g]));
	for (int c = 0; c < 2; c++)
		m.dev_cache[c] = device_copy(NULL, sizeof(_Float16) * MAX_TOKENS * KV_HEADS * HEAD_DIM);
}

static int model_free(void)
{
	struct qweight *weights[] = { &m.wq, &m.wk, &m.wv, &m.wo, &m.gate_up, &m.down, &m.out };

	for (size_t i = 0; i < sizeof(weights) / sizeof(weights[0]); i++) {
		aclDestroyTensor(weights[i]->weight);
		aclDestroyTensor(weights[i]->scale);
		free(weights[i]->values);
		free(weights[i]->scales);
	}
	return free_device_memory(0);
}

/* ggml's rope tables for positions pos ...: (1, rows, 1, HEAD_DIM), each angle twice */
static void rope_tables(int pos, int rows, _Float16 *cos_t, _Float16 *sin_t)
{
	for (int r = 0; r < rows; r++)
		for (int d = 0; d < HEAD_DIM; d++) {
			double theta = (pos + r) * pow(10000.0, -(double)(d / 2 * 2) / HEAD_DIM);

			cos_t[r * HEAD_DIM + d] = (_Float16)cos(theta);
			sin_t[r * HEAD_DIM + d] = (_Float16)sin(theta);
		}
}

/* ---- on the card ---------------------------------------------------------- */

/* RMSNorm of x (rows, HIDDEN) F32 with gamma g, as F16 at h16 */
static int card_norm16(aclTensor *x, int g, int rows, void *h16)
{
	void *y = device_copy(NULL, sizeof(float) * rows * HIDDEN);
	void *rstd = device_copy(NULL, sizeof(float) * rows);
	const int64_t rdims[2] = { rows, 1 }, gdims[1] = { HIDDEN };
	aclTensor *ty = matrix(ACL_FLOAT, rows, HIDDEN, y);
	aclTensor *tr = view(ACL_FLOAT, 2, rdims, NULL, rows, rstd);
	aclTensor *tg = view(ACL_FLOAT, 1, gdims, NULL, HIDDEN, m.dev_gamma[g]);
	aclTensor *th = matrix(ACL_FLOAT16, rows, HIDDEN, h16);

	RUN(RmsNorm, x, tg, EPS, ty, tr);
	RUN(Cast, ty, ACL_FLOAT16, th);
	aclDestroyTensor(ty);
	aclDestroyTensor(tr);
	aclDestroyTensor(tg);
	aclDestroyTensor(th);
	return 0;
}

static int card_product(const struct qweight *w, int rows, void *x, void *y)
{
	aclTensor *tx = matrix(ACL_FLOAT16, rows, w->k, x), *ty = matrix(ACL_FLOAT16, rows, w->n, y);

	RUN(WeightQuantBatchMatmulV2, tx, w->weight, w->scale, NULL, NULL, NULL, NULL, GROUP, ty);
	aclDestroyTensor(tx);
	aclDestroyTensor(ty);
	return 0;
}

/* t (rows, heads * HEAD_DIM) F16 rotated in place, seen as BSND */
static int card_rope(void *t, int rows, int heads, aclTensor *cos_t, aclTensor *sin_t)
{
	const int64_t dims[4] = { 1, rows, heads, HEAD_DIM };
	aclTensor *tt = view(ACL_FLOAT16, 4, dims, NULL, (int64_t)rows * heads * HEAD_DIM, t);

	RUN(RotaryPositionEmbedding, tt, cos_t, sin_t, ROPE_INTERLEAVED, tt);
	aclDestroyTensor(tt);
	return 0;
}

/* ggml's SET_ROWS: rows of keys or values into the cache at pos ... */
static int card_cache_write(int c, void *rows_data, int pos, int rows)
{
	const int64_t cdims[3] = { MAX_TOKENS, KV_HEADS, HEAD_DIM };
	const int64_t sdims[3] = { rows, KV_HEADS, HEAD_DIM };
	const int64_t idims[1] = { rows };
	int64_t positions[MAX_TOKENS];
	void *dpos;
	aclTensor *cache, *src, *index;

	for (int r = 0; r < rows; r++)
		positions[r] = pos + r;
	dpos = device_copy(positions, sizeof(int64_t) * rows);
	cache = view(ACL_FLOAT16, 3, cdims, NULL, MAX_TOKENS * KV_HEADS * HEAD_DIM, m.dev_cache[c]);
	src = view(ACL_FLOAT16, 3, sdims, NULL, (int64_t)rows * KV_HEADS * HEAD_DIM, rows_data);
	index = view(ACL_INT64, 1, idims, NULL, rows, dpos);
	RUN(InplaceIndexCopy, cache, 0, index, src);
	aclDestroyTensor(cache);
	aclDestroyTensor(src);
	aclDestroyTensor(index);
	return 0;
}

/* q (rows, HEADS * HEAD_DIM) over the cache's first pos + rows tokens into out */
static int card_attention(void *q, int pos, int rows, void *out)
{
	const int64_t length = pos + rows;
	const int64_t qdims[4] = { 1, rows, HEADS, HEAD_DIM };
	const int64_t kdims[4] = { 1, length, KV_HEADS, HEAD_DIM };
	const int64_t mdims[4] = { 1, HEADS, rows, length }, mstrides[4] = { rows * length, 0, length, 1 };
	const int64_t storage = MAX_TOKENS * KV_HEADS * HEAD_DIM;
	_Float16 mask[PROMPT * PROMPT];
	aclTensor *tq = view(ACL_FLOAT16, 4, qdims, NULL, rows * HEADS * HEAD_DIM, q);
	aclTensor *to = view(ACL_FLOAT16, 4, qdims, NULL, rows * HEADS * HEAD_DIM, out);
	aclTensor *tk = view(ACL_FLOAT16, 4, kdims, NULL, storage, m.dev_cache[0]);
	aclTensor *tv = view(ACL_FLOAT16, 4, kdims, NULL, storage, m.dev_cache[1]);
	const aclTensor *const key_list[1] = { tk }, *const value_list[1] = { tv };
	/* the lists own their tensors */
	aclTensorList *keys = aclCreateTensorList(key_list, 1);
	aclTensorList *values = aclCreateTensorList(value_list, 1);
	aclTensor *tmask = NULL;
	char layout[] = "BSND";

	if (rows > 1) {
		/* a prompt's query sees no later key: ggml's F16 mask, one for every head */
		for (int r = 0; r < rows; r++)
			for (int j = 0; j < length; j++)
				mask[r * length + j] = j > pos + r ? -INFINITY : 0;
		tmask = view(ACL_FLOAT16, 4, mdims, mstrides, rows * length,
			     device_copy(mask, sizeof(_Float16) * rows * length));
	}
	RUN(FusedInferAttentionScoreV2, tq, keys, values, tmask, NULL, NULL, NULL, NULL, NULL, NULL,
	    NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	    HEADS, 1 / sqrt(HEAD_DIM), 65535, 65535, layout, KV_HEADS, 0, 0, 0, 0, false, 0, 0,
	    to, NULL);
	aclDestroyTensorList(keys);
	aclDestroyTensorList(values);
	aclDestroyTensor(tq);
	aclDestroyTensor(to);
	if (tmask)
		aclDestroyTensor(tmask);
	return 0;
}

/* x += y (F16), both (rows, HIDDEN), x F32 */
static int card_residual(aclTensor *x, void *y, int rows, void *sum)
{
	float one = 1;
	aclScalar *alpha = aclCreateScalar(&one, ACL_FLOAT);
	aclTensor *ty = matrix(ACL_FLOAT16, rows, HIDDEN, y), *ts = matrix(ACL_FLOAT, rows, HIDDEN, sum);

	RUN(Add, x, ty, alpha, ts);
	aclDestroyScalar(alpha);
	aclDestroyTensor(ty);
	aclDestroyTensor(ts);
	return 0;
}

/* The block for tokens at positions pos ...: the last row's logits and choice. */
static int card_step(const int64_t *tokens, int pos, int rows, _Float16 *logits, int64_t *choice)
{
	const int mark = allocated;
	const size_t act = sizeof(_Float16) * rows;
	void *dtok = device_copy(tokens, sizeof(int64_t) * rows);
	void *x = device_copy(NULL, sizeof(float) * rows * HIDDEN);
	void *x2 = device_copy(NULL, sizeof(float) * rows * HIDDEN);
	void *x3 = device_copy(NULL, sizeof(float) * rows * HIDDEN);
	void *h = device_copy(NULL, act * HIDDEN), *o = device_copy(NULL, act * HIDDEN);
	void *q = device_copy(NULL, act * HEADS * HEAD_DIM);
	void *att = device_copy(NULL, act * HEADS * HEAD_DIM);
	void *k = device_copy(NULL, act * KV_HEADS * HEAD_DIM);
	void *v = device_copy(NULL, act * KV_HEADS * HEAD_DIM);
	void *gu = device_copy(NULL, act * 2 * FFN), *sw = device_copy(NULL, act * FFN);
	void *lg = device_copy(NULL, act * VOCAB), *best = device_copy(NULL, sizeof(int64_t) * rows);
	_Float16 cos_h[PROMPT * HEAD_DIM], sin_h[PROMPT * HEAD_DIM];
	const int64_t tdims[1] = { rows }, cdims[4] = { 1, rows, 1, HEAD_DIM };
	aclTensor *ttok = view(ACL_INT64, 1, tdims, NULL, rows, dtok);
	aclTensor *temb = matrix(ACL_FLOAT, VOCAB, HIDDEN, m.dev_embedding);
	aclTensor *tx = matrix(ACL_FLOAT, rows, HIDDEN, x), *tx2 = matrix(ACL_FLOAT, rows, HIDDEN, x2);
	aclTensor *tx3 = matrix(ACL_FLOAT, rows, HIDDEN, x3);
	aclTensor *tgu = matrix(ACL_FLOAT16, rows, 2 * FFN, gu), *tsw = matrix(ACL_FLOAT16, rows, FFN, sw);
	aclTensor *tlg = matrix(ACL_FLOAT16, rows, VOCAB, lg);
	aclTensor *tbest = view(ACL_INT64, 1, tdims, NULL, rows, best);
	aclTensor *tcos, *tsin, **made[] = { &ttok, &temb, &tx, &tx2, &tx3, &tgu, &tsw, &tlg, &tbest,
					      &tcos, &tsin };

	rope_tables(pos, rows, cos_h, sin_h);
	tcos = view(ACL_FLOAT16, 4, cdims, NULL, rows * HEAD_DIM, device_copy(cos_h, act * HEAD_DIM));
	tsin = view(ACL_FLOAT16, 4, cdims, NULL, rows * HEAD_DIM, device_copy(sin_h, act * HEAD_DIM));

	RUN(Embedding, temb, ttok, tx);
	if (card_norm16(tx, 0, rows, h) || card_product(&m.wq, rows, h, q) ||
	    card_product(&m.wk, rows, h, k) || card_product(&m.wv, rows, h, v) ||
	    card_rope(q, rows, HEADS, tcos, tsin) || card_rope(k, rows, KV_HEADS, tcos, tsin) ||
	    card_cache_write(0, k, pos, rows) || card_cache_write(1, v, pos, rows) ||
	    card_attention(q, pos, rows, att) || card_product(&m.wo, rows, att, o) ||
	    card_residual(tx, o, rows, x2) || card_norm16(tx2, 1, rows, h) ||
	    card_product(&m.gate_up, rows, h, gu))
		return 1;
	RUN(SwiGlu, tgu, -1, tsw);
	if (card_product(&m.down, rows, sw, o) || card_residual(tx2, o, rows, x3) ||
	    card_norm16(tx3, 2, rows, h) || card_product(&m.out, rows, h, lg))
		return 1;
	RUN(ArgMax, tlg, -1, false, tbest);
	CHECK(aclrtMemcpy(logits, sizeof(_Float16) * VOCAB, (_Float16 *)lg + (rows - 1) * VOCAB,
			  sizeof(_Float16) * VOCAB, ACL_MEMCPY_DEVICE_TO_HOST));
	CHECK(aclrtMemcpy(choice, sizeof(*choice), (int64_t *)best + rows - 1, sizeof(*choice),
			  ACL_MEMCPY_DEVICE_TO_HOST));
	for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++)
		aclDestroyTensor(*made[i]);
	return free_device_memory(mark);
}

/* ---- on the host ---------------------------------------------------------- */

static void host_norm16(const double *x, int g, int rows, double *h)
{
	for (int r = 0; r < rows; r++) {
		double ss = 0;

		for (int i = 0; i < HIDDEN; i++)
			ss += x[r * HIDDEN + i] * x[r * HIDDEN + i];
		for (int i = 0; i < HIDDEN; i++)
			h[r * HIDDEN + i] = f16(x[r * HIDDEN + i] / sqrt(ss / HIDDEN + EPS) * m.gamma[g][i]);
	}
}

static void host_rope(double *t, int rows, int heads, const _Float16 *cos_t, const _Float16 *sin_t)
{
	for (int r = 0; r < rows; r++)
		for (int n = 0; n < heads; n++)
			for (int d = 0; d < HEAD_DIM; d += 2) {
				double *p = t + (r * heads + n) * HEAD_DIM + d, a = p[0], b = p[1];
				int c = r * HEAD_DIM + d;

				p[0] = f16(a * (double)cos_t[c] - b * (double)sin_t[c]);
				p[1] = f16(b * (double)cos_t[c + 1] + a * (double)sin_t[c + 1]);
			}
}

static void host_attention(const double *q, int pos, int rows, double *out)
{
	for (int r = 0; r < rows; r++)
		for (int n = 0; n < HEADS; n++) {
			const int kv = n / (HEADS / KV_HEADS), seen = pos + r + 1;
			double s[MAX_TOKENS], top = -INFINITY, total = 0;

			for (int j = 0; j < seen; j++) {
				s[j] = 0;
				for (int d = 0; d < HEAD_DIM; d++)
					s[j] += q[(r * HEADS + n) * HEAD_DIM + d] *
						m.host_cache[0][(j * KV_HEADS + kv) * HEAD_DIM + d];
				s[j] /= sqrt(HEAD_DIM);
				top = fmax(top, s[j]);
			}
			for (int j = 0; j < seen; j++)
				total += (s[j] = exp(s[j] - top));
			for (int d = 0; d < HEAD_DIM; d++) {
				double a = 0;

				for (int j = 0; j < seen; j++)
					a += s[j] * m.host_cache[1][(j * KV_HEADS + kv) * HEAD_DIM + d];
				out[(r * HEADS + n) * HEAD_DIM + d] = f16(a / total);
			}
		}
}

static void host_step(const int64_t *tokens, int pos, int rows, double *logits)
{
	static double x[PROMPT * HIDDEN], h[PROMPT * HIDDEN], o[PROMPT * HIDDEN];
	static double q[PROMPT * HEADS * HEAD_DIM], att[PROMPT * HEADS * HEAD_DIM];
	static double k[PROMPT * KV_HEADS * HEAD_DIM], v[PROMPT * KV_HEADS * HEAD_DIM];
	static double gu[PROMPT * 2 * FFN], sw[PROMPT * FFN], lg[PROMPT * VOCAB];
	const int kv = KV_HEADS * HEAD_DIM;
	_Float16 cos_t[PROMPT * HEAD_DIM], sin_t[PROMPT * HEAD_DIM];

	rope_tables(pos, rows, cos_t, sin_t);
	for (int r = 0; r < rows; r++)
		for (int i = 0; i < HIDDEN; i++)
			x[r * HIDDEN + i] = m.embedding[tokens[r] * HIDDEN + i];
	host_norm16(x, 0, rows, h);
	host_product(&m.wq, rows, h, q);
	host_product(&m.wk, rows, h, k);
	host_product(&m.wv, rows, h, v);
	host_rope(q, rows, HEADS, cos_t, sin_t);
	host_rope(k, rows, KV_HEADS, cos_t, sin_t);
	memcpy(m.host_cache[0] + pos * kv, k, sizeof(double) * rows * kv);
	memcpy(m.host_cache[1] + pos * kv, v, sizeof(double) * rows * kv);
	host_attention(q, pos, rows, att);
	host_product(&m.wo, rows, att, o);
	for (int e = 0; e < rows * HIDDEN; e++)
		x[e] += o[e];
	host_norm16(x, 1, rows, h);
	host_product(&m.gate_up, rows, h, gu);
	for (int r = 0; r < rows; r++)
		for (int i = 0; i < FFN; i++) {
			double g = gu[r * 2 * FFN + i], u = gu[r * 2 * FFN + FFN + i];

			sw[r * FFN + i] = f16(g / (1 + exp(-g)) * u);
		}
	host_product(&m.down, rows, sw, o);
	for (int e = 0; e < rows * HIDDEN; e++)
		x[e] += o[e];
	host_norm16(x, 2, rows, h);
	host_product(&m.out, rows, h, lg);
	memcpy(logits, lg + (rows - 1) * VOCAB, sizeof(double) * VOCAB);
}

/*
 * The card's logits near the host's and its choice the host's, unless the
 * host's two best are within the tolerance (then the card's is one of them).
 */
static int check_step(int step, const _Float16 *got, const double *want, int64_t choice)
{
	double top = -INFINITY, second = -INFINITY, scale = 0, worst = 0;
	int best = 0;

	for (int i = 0; i < VOCAB; i++) {
		scale = fmax(scale, fabs(want[i]));
		worst = fmax(worst, fabs((double)got[i] - want[i]));
		if (want[i] > top) {
			second = top;
			top = want[i];
			best = i;
		} else {
			second = fmax(second, want[i]);
		}
	}
	printf("step %d: the card chose token %lld, the host %d (logit %.4f, next best %.4f, "
	       "logits differ by %.2g)\n", step, (long long)choice, best, top, second, worst);
	if (worst > TOLERANCE * scale) {
		fprintf(stderr, "step %d: the card's logits are off by %g\n", step, worst);
		return 1;
	}
	if (choice < 0 || choice >= VOCAB ||
	    (choice != best && (top - second > 2 * TOLERANCE * scale ||
				want[choice] < top - 2 * TOLERANCE * scale))) {
		fprintf(stderr, "step %d: the card chose %lld, the host %d\n", step, (long long)choice, best);
		return 1;
	}
	return 0;
}

int main(void)
{
	int64_t tokens[PROMPT + STEPS + 1] = { 17, 3, 250, 96 };
	_Float16 logits[VOCAB];
	double want[VOCAB];
	int pos = 0, count = PROMPT;

	CHECK(aclInit(NULL));
	CHECK(aclrtSetDevice(0));
	CHECK(aclrtCreateStream(&stream));
	model_init();
	for (int step = 0; step <= STEPS; step++) {
		int64_t choice;

		if (card_step(tokens + pos, pos, count - pos, logits, &choice))
			return 1;
		host_step(tokens + pos, pos, count - pos, want);
		if (check_step(step, logits, want, choice))
			return 1;
		pos = count;
		tokens[count++] = choice;
	}
	if (model_free())
		return 1;
	CHECK(aclrtDestroyStream(stream));
	CHECK(aclrtResetDevice(0));
	CHECK(aclFinalize());
	printf("a prompt of %d tokens and %d steps of the decoder on the card match the host's\n",
	       PROMPT, STEPS);
	return 0;
}
