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

#include <omp.h>

#include "oplib_impl.h"

#define ATT_Q_ROWS	64	/* query rows per task */
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
	return attention_shapes(op);
}

/* What every task shares. */
struct attention_run {
	const struct oplib_op *op;
	uint8_t *const *bufs;
	unsigned int out;
	float scale;
	int64_t row_blocks;
	int64_t tasks;
	atomic_llong next;
	atomic_bool stop;
	const struct oplib_hooks *hooks;
};

/* A task's blocks, F32. */
struct attention_work {
	float *q, *k, *v, *s, *o, *max, *sum;
};

/* n elements of t from index idx on along its last axis, as F32. */
static void row_load(const struct oplib_tensor *t, const uint8_t *base,
		     const int64_t *idx, int64_t n, float *to)
{
	size_t es = oplib_dtype_size(t->dtype);
	const uint8_t *p = base + oplib_offset(t, idx) * es;
	int64_t stride = t->strides[t->ndims - 1] * es, i;

	if (t->dtype == NPU_DTYPE_F32 && (stride == 4 || n == 1)) {
		memcpy(to, p, n * sizeof(float));
		return;
	}
	for (i = 0; i < n; i++)
		to[i] = oplib_load(p + i * stride, t->dtype);
}

static void block_load(const struct oplib_tensor *t, const uint8_t *base,
		       int64_t b, int64_t h, int64_t from, int64_t rows,
		       float *to)
{
	int64_t idx[4] = { b, h, 0, 0 }, r;

	for (r = 0; r < rows; r++) {
		idx[2] = from + r;
		row_load(t, base, idx, t->dims[3], to + r * t->dims[3]);
	}
}

/* The mask over scores s (rows x keys, from row i0 and key j0). */
static void mask_apply(const struct attention_run *run, int64_t b, int64_t h,
		       int64_t i0, int64_t rows, int64_t j0, int64_t keys,
		       float *s, int64_t lds)
{
	const struct oplib_tensor *m = &run->op->t[ATT_MASK];
	bool add = oplib_u32(run->op->attrs->attention.mask) ==
		   NPU_ATTENTION_MASK_ADD;
	size_t es = oplib_dtype_size(m->dtype);
	int64_t idx[4], i, j;

	idx[0] = m->dims[0] > 1 ? b : 0;
	idx[1] = m->dims[1] > 1 ? h : 0;
	for (i = 0; i < rows; i++) {
		const uint8_t *p;

		idx[2] = m->dims[2] > 1 ? i0 + i : 0;
		idx[3] = m->dims[3] > 1 ? j0 : 0;
		p = run->bufs[ATT_MASK] + oplib_offset(m, idx) * es;
		for (j = 0; j < keys; j++) {
			const uint8_t *e = p + j * m->strides[3] * es;

			if (add)
				s[i * lds + j] += oplib_load(e, m->dtype);
			else if (oplib_load(e, m->dtype) != 0)
				s[i * lds + j] = -INFINITY;
		}
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

		for (j = 0; j < keys; j++)
			top = fmaxf(top, s[j]);
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
			int64_t b, int64_t h, int64_t i0, int64_t rows)
{
	const struct oplib_tensor *y = oplib_out(run->op);
	size_t es = oplib_dtype_size(y->dtype);
	int64_t idx[4] = { b, h, 0, 0 }, i, j, dv = y->dims[3];

	for (i = 0; i < rows; i++) {
		float r = w->sum[i] > 0 ? 1 / w->sum[i] : 0;

		idx[2] = i0 + i;
		for (idx[3] = 0, j = 0; j < dv; j++, idx[3]++)
			oplib_store(run->bufs[run->out] + oplib_offset(y, idx) * es,
				    y->dtype, w->o[i * dv + j] * r);
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

static bool attention_task(struct attention_run *run, struct attention_work *w,
			   int64_t task, bool hooked, uint64_t *count)
{
	const struct oplib_op *op = run->op;
	const struct oplib_tensor *q = &op->t[ATT_Q], *k = &op->t[ATT_K];
	const struct oplib_tensor *v = &op->t[ATT_V];
	int64_t d = q->dims[3], dv = v->dims[3], sk = k->dims[2];
	int64_t heads = q->dims[1], group = heads / k->dims[1];
	int64_t bh = task / run->row_blocks, i0, rows, j0, keys, i;
	int64_t b = bh / heads, h = bh % heads, kh = h / group;

	i0 = task % run->row_blocks * ATT_Q_ROWS;
	rows = q->dims[2] - i0 < ATT_Q_ROWS ? q->dims[2] - i0 : ATT_Q_ROWS;
	block_load(q, run->bufs[ATT_Q], b, h, i0, rows, w->q);
	for (i = 0; i < rows * d; i++)
		w->q[i] *= run->scale;
	for (i = 0; i < rows; i++) {
		w->max[i] = -INFINITY;
		w->sum[i] = 0;
	}
	memset(w->o, 0, rows * dv * sizeof(float));
	for (j0 = 0; j0 < sk; j0 += ATT_K_ROWS) {
		if (!attention_keep_going(run, hooked, count))
			return false;
		keys = sk - j0 < ATT_K_ROWS ? sk - j0 : ATT_K_ROWS;
		block_load(k, run->bufs[ATT_K], b, kh, j0, keys, w->k);
		block_load(v, run->bufs[ATT_V], b, kh, j0, keys, w->v);
		dnnl_sgemm('N', 'T', rows, keys, d, 1, w->q, d, w->k, d, 0,
			   w->s, ATT_K_ROWS);
		if (op->num_inputs > ATT_MASK)
			mask_apply(run, b, h, i0, rows, j0, keys, w->s, ATT_K_ROWS);
		block_softmax(w, rows, keys, dv);
		dnnl_sgemm('N', 'N', rows, dv, keys, 1, w->s, ATT_K_ROWS, w->v, dv,
			   1, w->o, dv);
	}
	block_store(run, w, b, h, i0, rows);
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
	if (w->q && w->k && w->v && w->s && w->o && w->max && w->sum)
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
	};
	pthread_t helpers[64];
	unsigned int nhelpers = 0, i;
	bool ok;

	run.row_blocks = (q->dims[2] + ATT_Q_ROWS - 1) / ATT_Q_ROWS;
	run.tasks = q->dims[0] * q->dims[1] * run.row_blocks;
	atomic_init(&run.next, 0);
	atomic_init(&run.stop, false);
	if ((uint64_t)run.tasks >= step->key)
		while (nhelpers + 1 < step->key && nhelpers < OPLIB_ARRAY_SIZE(helpers) &&
		       !pthread_create(&helpers[nhelpers], NULL, attention_worker, &run))
			nhelpers++;
	ok = attention_tasks(&run, true);
	for (i = 0; i < nhelpers; i++)
		pthread_join(helpers[i], NULL);
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
