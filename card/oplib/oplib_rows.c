// SPDX-License-Identifier: GPL-2.0
/*
 * Loops over lines that do not depend on each other (a sort, a running
 * sum, an arg-reduction per line), split among the library's threads
 * (oplib_config.threads, which oplib_run() gives OpenMP for oneDNN's
 * sake): each worker takes a contiguous run of lines.  A small operator
 * runs on the caller's thread alone, where starting threads would cost
 * more than it saves.  Each worker asks whether the operator is
 * abandoned as it goes; one that is told so stops them all.
 */
#include <omp.h>
#include <stdatomic.h>

#include "oplib_impl.h"

/* Elements below which one thread does it all. */
#define ROWS_PER_THREAD_MIN	(1u << 16)

struct rows_job {
	const struct oplib_op *op;
	const struct oplib_step *step;
	uint8_t *const *bufs;
	const struct oplib_hooks *hooks;
	const int64_t *lines;
	unsigned int ndims;
	uint64_t per_line;
	oplib_rows_fn fn;
	atomic_bool stop;
};

struct rows_worker {
	struct rows_job *job;
	unsigned int id;
	uint64_t first, end;	/* lines [first, end) */
	pthread_t thread;
};

/* Row-major line number i as an index into lines' dims. */
static void rows_unravel(uint64_t i, const int64_t *dims, unsigned int ndims, int64_t *idx)
{
	unsigned int d;

	memset(idx, 0, NPU_TENSOR_MAX_DIMS * sizeof(*idx));
	for (d = ndims; d-- > 0;) {
		idx[d] = i % dims[d];
		i /= dims[d];
	}
}

static void *rows_work(void *arg)
{
	struct rows_worker *w = arg;
	struct rows_job *job = w->job;
	int64_t idx[NPU_TENSOR_MAX_DIMS];
	uint64_t i, count = 0;

	rows_unravel(w->first, job->lines, job->ndims, idx);
	for (i = w->first; i < w->end; i++) {
		if (atomic_load_explicit(&job->stop, memory_order_relaxed))
			break;
		job->fn(job->op, job->step, job->bufs, idx, w->id);
		if (!oplib_loop_go_on_n(job->hooks, &count, job->per_line)) {
			atomic_store(&job->stop, true);
			break;
		}
		oplib_index_next(idx, job->lines, job->ndims);
	}
	return NULL;
}

unsigned int oplib_rows_workers(void)
{
	int n = omp_get_max_threads();

	return n < 1 ? 1 : n > OPLIB_ROWS_MAX_WORKERS ? OPLIB_ROWS_MAX_WORKERS : n;
}

static uint64_t rows_count(const int64_t *lines, unsigned int ndims)
{
	uint64_t n = 1;
	unsigned int d;

	for (d = 0; d < ndims; d++)
		n *= lines[d];
	return n;
}

bool oplib_rows_run(const struct oplib_op *op, const struct oplib_step *step,
		    uint8_t *const *bufs, const struct oplib_hooks *hooks,
		    const int64_t *lines, unsigned int ndims, uint64_t per_line,
		    oplib_rows_fn fn)
{
	struct rows_job job = { op, step, bufs, hooks, lines, ndims, per_line, fn, false };
	struct rows_worker w[OPLIB_ROWS_MAX_WORKERS];
	uint64_t n = rows_count(lines, ndims), work = n * (per_line ? per_line : 1);
	unsigned int k = oplib_rows_workers(), i, started;

	if (work / ROWS_PER_THREAD_MIN < k)
		k = work / ROWS_PER_THREAD_MIN ? work / ROWS_PER_THREAD_MIN : 1;
	if (k > n)
		k = n ? n : 1;
	for (i = 0; i < k; i++) {
		w[i].job = &job;
		w[i].id = i;
		w[i].first = n * i / k;
		w[i].end = n * (i + 1) / k;
	}
	/* workers 1..k-1 on threads of their own, worker 0 here */
	for (started = 1; started < k; started++)
		if (pthread_create(&w[started].thread, NULL, rows_work, &w[started]))
			break;
	rows_work(&w[0]);
	/* the lines of threads that could not start are done here, with 0's scratch */
	if (started < k) {
		w[started].id = 0;
		w[started].end = n;
		rows_work(&w[started]);
	}
	for (i = 1; i < started; i++)
		pthread_join(w[i].thread, NULL);
	return !atomic_load(&job.stop);
}
