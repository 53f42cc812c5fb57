// SPDX-License-Identifier: GPL-2.0
/*
 * ATTENTION: softmax(q k^T * scale + mask) v per head, flash style.  A
 * task is one block of query rows of one head; it walks the keys a block
 * at a time, keeping per row the largest score so far and the sum of
 * exponentials relative to it, and rescales what it has accumulated when
 * the largest score grows.  A whole row of scores never exists, so a long
 * sequence costs memory in proportion to the block, not to Sk.
 *
 * Blocks are widened to F32 (F16 and BF16 are computed in F32) and
 * multiplied by oneDNN's sgemm.  Tasks are shared among the engine's
 * threads, each running its products on one thread; with fewer tasks than
 * threads (one head decoding one token) the products get the threads.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>

#include <immintrin.h>
#include <omp.h>

#include "oplib_impl.h"

#define ATT_Q_ROWS	128	/* query rows per task */
#define ATT_K_ROWS	256	/* keys per block */

enum { ATT_Q, ATT_K, ATT_V, ATT_MASK };

static bool attention_float(unsigned int dtype)
{
	return dtype == NPU_DTYPE_F32 || dtype == NPU_DTYPE_F16 ||
	       dtype == NPU_DTYPE_BF16;
}

/* The mask's dims each the scores' or 1. */
static bool mask_broadcasts(const struct oplib_tensor *m, const int64_t *dims)
{
	unsigned int d;

	if (m->ndims != 4)
		return false;
	for (d = 0; d < 4; d++)
		if (m->dims[d] != 1 && m->dims[d] != dims[d])
			return false;
	return true;
}

static int attention_shapes(const struct oplib_op *op)
{
	const struct oplib_tensor *q = &op->t[ATT_Q], *k = &op->t[ATT_K];
	const struct oplib_tensor *v = &op->t[ATT_V], *y = oplib_out(op);
	int64_t scores[4] = { q->dims[0], q->dims[1], q->dims[2], k->dims[2] };

	if (q->ndims != 4 || k->ndims != 4 || v->ndims != 4 || y->ndims != 4)
		return NPU_ERR_OP_PARAM;
	if (k->dims[0] != q->dims[0] || v->dims[0] != q->dims[0] ||
	    k->dims[1] != v->dims[1] || k->dims[2] != v->dims[2] ||
	    k->dims[3] != q->dims[3] || !k->dims[1] || q->dims[1] % k->dims[1])
		return NPU_ERR_OP_PARAM;
	if (y->dims[0] != q->dims[0] || y->dims[1] != q->dims[1] ||
	    y->dims[2] != q->dims[2] || y->dims[3] != v->dims[3])
		return NPU_ERR_OP_PARAM;
	if (op->num_inputs > ATT_MASK &&
	    !mask_broadcasts(&op->t[ATT_MASK], scores))
		return NPU_ERR_OP_PARAM;
	return NPU_ERR_NONE;
}

/*
 * The bytes t spans: checks run before the library places tensors, so
 * t->extent is not known yet.  0 when it overflows, which placing the
 * tensor then refuses.
 */
static uint64_t attention_span(const struct oplib_tensor *t)
{
	uint64_t elems = 1, part;
	unsigned int d;

	if (!t->nelems)
		return 0;
	for (d = 0; d < t->ndims; d++)
		if (__builtin_mul_overflow((uint64_t)(t->dims[d] - 1),
					   (uint64_t)t->strides[d], &part) ||
		    __builtin_add_overflow(elems, part, &elems))
			return 0;
	return __builtin_mul_overflow(elems, oplib_dtype_size(t->dtype), &part) ? 0 : part;
}

static bool attention_overlap(const struct oplib_tensor *a, const struct oplib_tensor *b)
{
	uint64_t sa = attention_span(a), sb = attention_span(b);

	return sa && sb && a->addr < b->addr + sb && b->addr < a->addr + sa;
}

/*
 * y is written a block of rows at a time while other threads still read
 * k, v and the mask, and other rows of q: it may be q itself, nothing
 * else it overlaps.
 */
static int attention_aliases(const struct oplib_op *op)
{
	const struct oplib_tensor *q = &op->t[ATT_Q], *y = oplib_out(op);
	unsigned int i;

	for (i = ATT_K; i < op->num_inputs; i++)
		if (attention_overlap(&op->t[i], y))
			return NPU_ERR_OP_PARAM;
	if (attention_overlap(q, y) &&
	    (q->addr != y->addr || memcmp(q->strides, y->strides, sizeof(q->strides)) ||
	     q->dtype != y->dtype || q->dims[3] != y->dims[3]))
		return NPU_ERR_OP_PARAM;
	return NPU_ERR_NONE;
}

static int attention_check(const struct oplib_op *op)
{
	const struct npu_attr_attention *raw = &op->attrs->attention;
	uint32_t mask = oplib_u32(raw->mask);
	unsigned int i;
	int err = NPU_ERR_NONE;

	if (raw->rsvd || raw->rsvd2)
		return NPU_ERR_RESERVED;
	for (i = 0; i < op->num_tensors && !err; i++)
		err = oplib_strided_only(&op->t[i]);
	if (err)
		return err;
	for (i = ATT_Q; i <= ATT_V; i++)
		if (!attention_float(op->t[i].dtype) ||
		    op->t[i].dtype != oplib_out(op)->dtype)
			return NPU_ERR_OPERATOR;
	if (mask > NPU_ATTENTION_MASK_BOOL ||
	    (op->num_inputs <= ATT_MASK && mask != NPU_ATTENTION_MASK_ADD))
		return NPU_ERR_OP_PARAM;
	if (op->num_inputs > ATT_MASK && mask == NPU_ATTENTION_MASK_ADD &&
	    !attention_float(op->t[ATT_MASK].dtype))
		return NPU_ERR_OPERATOR;
	/* also false for NaN */
	if (!isfinite(oplib_f32(raw->scale)))
		return NPU_ERR_OP_PARAM;
	err = attention_shapes(op);
	return err ? err : attention_aliases(op);
}

/* What every task shares. */
struct attention_run {
	const struct oplib_op *op;
	uint8_t *const *bufs;
	unsigned int out;
	float scale;
	int64_t group;		/* query heads per key head */
	int64_t row_blocks;	/* per key head: its group's rows, Sq each */
	int64_t tasks;
	atomic_llong next;
	atomic_bool stop;
	const struct oplib_hooks *hooks;
};

/* A task's blocks, F32, and the query head and row of each of its rows. */
struct attention_work {
	float *q, *k, *v, *s, *o, *max, *sum, *mask;
	int64_t head[ATT_Q_ROWS], row[ATT_Q_ROWS];
};

static bool has_f16c;

__attribute__((constructor))
static void attention_probe_cpu(void)
{
	has_f16c = __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx");
}

/* IEEE 754 binary16 to binary32 by its bits, which no instruction does here. */
static float half_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000) << 16, em = h & 0x7fff, bits;
	float f;

	if (em < 0x400) {
		f = em * 0x1p-24f;
		return sign ? -f : f;
	}
	if (em >= 0x7c00)
		bits = sign | 0x7f800000 | (em & 0x3ff) << 13;
	else
		bits = sign | (em + ((127 - 15) << 10)) << 13;
	memcpy(&f, &bits, sizeof(f));
	return f;
}

/* n dense binary16 values as F32, eight at a time, where the CPU converts them. */
__attribute__((target("f16c,avx")))
static void halves_to_floats(const uint8_t *p, int64_t n, float *to)
{
	int64_t i = 0;

	for (; i + 8 <= n; i += 8)
		_mm256_storeu_ps(to + i,
				 _mm256_cvtph_ps(_mm_loadu_si128((const void *)(p + 2 * i))));
	for (; i < n; i++) {
		uint16_t h;

		memcpy(&h, p + 2 * i, sizeof(h));
		to[i] = half_to_float(h);
	}
}

/* n elements from p, stride apart (elements), as F32. */
static void row_load(const uint8_t *p, int64_t stride, unsigned int dtype,
		     int64_t n, float *to)
{
	size_t es = oplib_dtype_size(dtype);
	uint32_t bits;
	uint16_t h;
	int64_t i;

	if (dtype == NPU_DTYPE_F32 && (stride == 1 || n == 1)) {
		memcpy(to, p, n * sizeof(float));
		return;
	}
	if (dtype == NPU_DTYPE_F16 && (stride == 1 || n == 1) && has_f16c) {
		halves_to_floats(p, n, to);
		return;
	}
	for (i = 0; i < n; i++) {
		const uint8_t *e = p + i * stride * es;

		switch (dtype) {
		case NPU_DTYPE_F16:
			memcpy(&h, e, sizeof(h));
			to[i] = half_to_float(h);
			break;
		case NPU_DTYPE_BF16:
			memcpy(&h, e, sizeof(h));
			bits = (uint32_t)h << 16;
			memcpy(&to[i], &bits, sizeof(bits));
			break;
		default:
			to[i] = oplib_load(e, dtype);
		}
	}
}

/*
 * Rows [from, from + rows) of t's head h as F32, rows ld apart: in place
 * when t is F32 with rows a leading dimension sgemm takes, else copied
 * into buf.  Returns where they are.
 */
static const float *block_get(const struct oplib_tensor *t, const uint8_t *base,
			      int64_t b, int64_t h, int64_t from, int64_t rows,
			      float *buf, int64_t *ld)
{
	int64_t idx[4] = { b, h, from, 0 }, n = t->dims[3], r;
	const uint8_t *p = base + oplib_offset(t, idx) * oplib_dtype_size(t->dtype);

	if (t->dtype == NPU_DTYPE_F32 && t->strides[3] == 1 &&
	    (rows == 1 || t->strides[2] >= n) && !((uintptr_t)p % sizeof(float))) {
		*ld = rows == 1 ? n : t->strides[2];
		return (const float *)p;
	}
	for (r = 0; r < rows; r++)
		row_load(p + r * t->strides[2] * oplib_dtype_size(t->dtype),
			 t->strides[3], t->dtype, n, buf + r * n);
	*ld = n;
	return buf;
}

/* The mask over scores s (the task's rows x keys from key j0). */
static void mask_apply(const struct attention_run *run, struct attention_work *w,
		       int64_t b, int64_t rows, int64_t j0, int64_t keys)
{
	const struct oplib_tensor *m = &run->op->t[ATT_MASK];
	bool add = oplib_u32(run->op->attrs->attention.mask) ==
		   NPU_ATTENTION_MASK_ADD;
	int64_t stride = m->dims[3] > 1 ? m->strides[3] : 0, idx[4], r, j;

	idx[0] = m->dims[0] > 1 ? b : 0;
	idx[3] = m->dims[3] > 1 ? j0 : 0;
	for (r = 0; r < rows; r++) {
		float *s = w->s + r * ATT_K_ROWS;

		idx[1] = m->dims[1] > 1 ? w->head[r] : 0;
		idx[2] = m->dims[2] > 1 ? w->row[r] : 0;
		row_load(run->bufs[ATT_MASK] + oplib_offset(m, idx) *
			 oplib_dtype_size(m->dtype), stride, m->dtype, keys, w->mask);
		for (j = 0; j < keys; j++)
			if (add)
				s[j] += w->mask[j];
			else if (w->mask[j] != 0)
				s[j] = -INFINITY;
	}
}

/*
 * Scores of a block into probabilities relative to each row's running
 * maximum, and the rows' accumulated output and sum rescaled to it.
 */
static void block_softmax(struct attention_work *w, int64_t rows,
			  int64_t keys, int64_t dv)
{
	int64_t i, j;

	for (i = 0; i < rows; i++) {
		float *s = w->s + i * ATT_K_ROWS, top = w->max[i], fix, sum = 0;

		/* NaN scores are left out of the maximum, as fmaxf would */
		for (j = 0; j < keys; j++)
			top = s[j] > top ? s[j] : top;
		if (top == -INFINITY) {
			/* nothing scored yet: this block adds nothing */
			memset(s, 0, keys * sizeof(float));
			continue;
		}
		for (j = 0; j < keys; j++) {
			s[j] = expf(s[j] - top);
			sum += s[j];
		}
		fix = expf(w->max[i] - top);
		w->max[i] = top;
		w->sum[i] = w->sum[i] * fix + sum;
		for (j = 0; j < dv; j++)
			w->o[i * dv + j] *= fix;
	}
}

static void block_store(const struct attention_run *run, struct attention_work *w,
			int64_t b, int64_t rows)
{
	const struct oplib_tensor *y = oplib_out(run->op);
	size_t es = oplib_dtype_size(y->dtype);
	int64_t idx[4] = { b, 0, 0, 0 }, r, j, dv = y->dims[3];

	for (r = 0; r < rows; r++) {
		float f = w->sum[r] > 0 ? 1 / w->sum[r] : 0;
		uint8_t *p;

		idx[1] = w->head[r];
		idx[2] = w->row[r];
		p = run->bufs[run->out] + oplib_offset(y, idx) * es;
		for (j = 0; j < dv; j++)
			oplib_store(p + j * y->strides[3] * es, y->dtype, w->o[r * dv + j] * f);
	}
}

static bool attention_keep_going(struct attention_run *run, bool hooked,
				 uint64_t *count)
{
	if (atomic_load_explicit(&run->stop, memory_order_relaxed))
		return false;
	*count |= 0xffff;
	if (hooked && !oplib_loop_go_on(run->hooks, count)) {
		atomic_store(&run->stop, true);
		return false;
	}
	return true;
}

/*
 * The task's rows: a block of the rows of the query heads that share key
 * head kh, head by head, so that each block of keys and values is
 * converted once for all of them.  Loads them, scaled, into w->q.
 */
static int64_t task_rows(struct attention_run *run, struct attention_work *w,
			 int64_t task, int64_t *b, int64_t *kh)
{
	const struct oplib_tensor *q = &run->op->t[ATT_Q];
	int64_t nk = run->op->t[ATT_K].dims[1], sq = q->dims[2], d = q->dims[3];
	int64_t bk = task / run->row_blocks, t0, rows, r, i;

	*b = bk / nk;
	*kh = bk % nk;
	t0 = task % run->row_blocks * ATT_Q_ROWS;
	rows = run->group * sq - t0 < ATT_Q_ROWS ? run->group * sq - t0 : ATT_Q_ROWS;
	for (r = 0; r < rows; r++) {
		int64_t idx[4] = { *b, *kh * run->group + (t0 + r) / sq, (t0 + r) % sq, 0 };

		w->head[r] = idx[1];
		w->row[r] = idx[2];
		row_load(run->bufs[ATT_Q] + oplib_offset(q, idx) * oplib_dtype_size(q->dtype),
			 q->strides[3], q->dtype, d, w->q + r * d);
	}
	for (i = 0; i < rows * d; i++)
		w->q[i] *= run->scale;
	return rows;
}

static bool attention_task(struct attention_run *run, struct attention_work *w,
			   int64_t task, bool hooked, uint64_t *count)
{
	const struct oplib_op *op = run->op;
	const struct oplib_tensor *k = &op->t[ATT_K], *v = &op->t[ATT_V];
	int64_t d = k->dims[3], dv = v->dims[3], sk = k->dims[2];
	int64_t b, kh, rows, j0, keys, i, ldk, ldv;
	const float *kb, *vb;

	rows = task_rows(run, w, task, &b, &kh);
	for (i = 0; i < rows; i++) {
		w->max[i] = -INFINITY;
		w->sum[i] = 0;
	}
	memset(w->o, 0, rows * dv * sizeof(float));
	for (j0 = 0; j0 < sk; j0 += ATT_K_ROWS) {
		if (!attention_keep_going(run, hooked, count))
			return false;
		keys = sk - j0 < ATT_K_ROWS ? sk - j0 : ATT_K_ROWS;
		kb = block_get(k, run->bufs[ATT_K], b, kh, j0, keys, w->k, &ldk);
		vb = block_get(v, run->bufs[ATT_V], b, kh, j0, keys, w->v, &ldv);
		dnnl_sgemm('N', 'T', rows, keys, d, 1, w->q, d, kb, ldk, 0,
			   w->s, ATT_K_ROWS);
		if (op->num_inputs > ATT_MASK)
			mask_apply(run, w, b, rows, j0, keys);
		block_softmax(w, rows, keys, dv);
		dnnl_sgemm('N', 'N', rows, dv, keys, 1, w->s, ATT_K_ROWS, vb, ldv,
			   1, w->o, dv);
	}
	block_store(run, w, b, rows);
	return true;
}

static void work_free(struct attention_work *w)
{
	free(w->q);
	free(w->k);
	free(w->v);
	free(w->s);
	free(w->o);
	free(w->max);
	free(w->sum);
	free(w->mask);
}

static bool work_alloc(struct attention_work *w, const struct oplib_op *op)
{
	int64_t d = op->t[ATT_Q].dims[3], dv = op->t[ATT_V].dims[3];

	w->q = malloc(ATT_Q_ROWS * d * sizeof(float));
	w->k = malloc(ATT_K_ROWS * d * sizeof(float));
	w->v = malloc(ATT_K_ROWS * dv * sizeof(float));
	w->s = malloc(ATT_Q_ROWS * ATT_K_ROWS * sizeof(float));
	w->o = malloc(ATT_Q_ROWS * dv * sizeof(float));
	w->max = malloc(ATT_Q_ROWS * sizeof(float));
	w->sum = malloc(ATT_Q_ROWS * sizeof(float));
	w->mask = malloc(ATT_K_ROWS * sizeof(float));
	if (w->q && w->k && w->v && w->s && w->o && w->max && w->sum && w->mask)
		return true;
	work_free(w);
	return false;
}

/* Tasks until none is left; the thread that has the hooks polls them. */
static bool attention_tasks(struct attention_run *run, bool hooked)
{
	struct attention_work w;
	uint64_t count = 0;
	long long task;
	bool ok = true;

	if (!work_alloc(&w, run->op)) {
		atomic_store(&run->stop, true);
		return false;
	}
	while (ok && (task = atomic_fetch_add(&run->next, 1)) < run->tasks)
		ok = attention_task(run, &w, task, hooked, &count);
	work_free(&w);
	return ok;
}

static void *attention_worker(void *arg)
{
	/* the products of a task stay on its thread */
	omp_set_num_threads(1);
	attention_tasks(arg, false);
	return NULL;
}

static bool attention_loop(const struct oplib_op *op,
			   const struct oplib_step *step, uint8_t *const *bufs,
			   const struct oplib_hooks *hooks)
{
	const struct oplib_tensor *q = &op->t[ATT_Q];
	struct attention_run run = {
		.op = op, .bufs = bufs, .out = step->out, .hooks = hooks,
		.scale = oplib_f32(op->attrs->attention.scale),
		.group = q->dims[1] / op->t[ATT_K].dims[1],
	};
	pthread_t helpers[64];
	unsigned int nhelpers = 0, i;
	bool ok;

	run.row_blocks = (run.group * q->dims[2] + ATT_Q_ROWS - 1) / ATT_Q_ROWS;
	run.tasks = q->dims[0] * op->t[ATT_K].dims[1] * run.row_blocks;
	atomic_init(&run.next, 0);
	atomic_init(&run.stop, false);
	/* enough tasks for every thread: a task per thread, a thread per product */
	if ((uint64_t)run.tasks >= step->key)
		while (nhelpers + 1 < step->key && nhelpers < OPLIB_ARRAY_SIZE(helpers) &&
		       !pthread_create(&helpers[nhelpers], NULL, attention_worker, &run))
			nhelpers++;
	if (nhelpers)
		omp_set_num_threads(1);
	ok = attention_tasks(&run, true);
	for (i = 0; i < nhelpers; i++)
		pthread_join(helpers[i], NULL);
	omp_set_num_threads(step->key);
	/* a helper that could not allocate its blocks stopped the others */
	return ok && !atomic_load(&run.stop);
}

static int attention_plan(struct oplib *lib, const struct oplib_op *op,
			  struct oplib_plan *plan)
{
	int err = oplib_plan_loop(plan, attention_loop, 0, op->num_inputs, NULL);

	if (!err)
		plan->steps[plan->nsteps - 1].key = lib->threads;
	return err;
}

const struct oplib_family oplib_attention_family = {
	.reads_broadcast = true,
	.check = attention_check,
	.plan = attention_plan,
};
