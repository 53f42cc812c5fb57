// SPDX-License-Identifier: MIT
/*
 * aclnn-bench: single operators through aclnn on the emulated card, each
 * next to the same operation under onnxruntime on the host, paired run by
 * run (make bench): before each card run the host's
 * tools/aclnn-bench-ort.js --serve runs the operation's ONNX graph once,
 * over the port ACLNN_BENCH_PORT, and reports its wall and CPU time.  The
 * reference is not our code, so the ratio says how the card compares with
 * what an application could run instead.  The card's figure is the whole
 * of aclnnXxxGetWorkspaceSize, aclnnXxx and aclrtSynchronizeStream, as an
 * application sees it.
 *
 *   Mm f32 and f16 1024^3, Mm 4096x4096 by 4096x1, Add 16 Mi elements,
 *   Softmax and RmsNorm over 4096 rows of 4096 (RmsNorm without rstdOut;
 *   onnxruntime's SimplifiedLayerNormalization)
 *
 * Then the host's cost of one aclnn operator, GetWorkspaceSize plus the
 * launch, against one raw submission of the same card operator (an
 * npu_op_desc through libascendcl's npu_acl_submit_ops, what aclnnXxx
 * itself ends in), for an Add of 16 elements; both without the wait,
 * which is timed apart.  Prints a table; no figure is asserted.
 *
 *   aclnn-bench [--ort-port] [--runs N] [--overhead]
 * Without --ort-port the reference columns are left empty; --overhead
 * measures the host's cost of a launch alone.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_mm.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_softmax.h"
#include "bench_clock.h"
#include "bench_operators.h"
#include "bench_port.h"
#include "npu_acl_private.h"

/* tools/aclnn-bench-ort.js --serve, joined by vm-run --host-socket */
#define ACLNN_BENCH_PORT	"npu.aclnn-ort"

#define OVERHEAD_ELEMS	16
#define OVERHEAD_RUNS	200

#define CHECK(call)								\
	do {									\
		long r_ = (long)(call);						\
		if (r_) {							\
			const char *m_ = aclGetRecentErrMsg();			\
			fprintf(stderr, "aclnn-bench: %s failed: %ld (%s)\n", #call, r_, \
				m_ ? m_ : "");					\
			exit(1);						\
		}								\
	} while (0)

/* What an aclnn case calls. */
enum aclnn_call {
	CALL_MM,
	CALL_ADD,
	CALL_SOFTMAX,
	CALL_RMSNORM,
};

/* One operator on the card: its buffers and tensors. */
struct setup {
	enum aclnn_call call;
	const struct bench_operator *op;
	void *dev[BENCH_MAX_TENSORS];
	aclTensor *t[BENCH_MAX_TENSORS];
	aclrtStream stream;
	void *work;
	uint64_t work_size;
};

static aclDataType acl_dtype(unsigned int card_dtype)
{
	return card_dtype == NPU_DTYPE_F16 ? ACL_FLOAT16 : ACL_FLOAT;
}

static aclTensor *tensor_of(const struct bench_operator *op, unsigned int i, void *data)
{
	const struct bench_tensor_shape *s = &op->tensors[i];
	int64_t dims[4], strides[4], stride = 1;
	int d;

	for (d = (int)s->ndims - 1; d >= 0; d--) {
		dims[d] = (int64_t)s->dims[d];
		strides[d] = stride;
		stride *= dims[d];
	}
	return aclCreateTensor(dims, s->ndims, acl_dtype(op->dtype), strides, 0, ACL_FORMAT_ND,
			       dims, s->ndims, data);
}

/* Inputs hold bench_fill()'s values, as the reference's do; the output zeros. */
static void setup_op(struct setup *s, enum aclnn_call call, const struct bench_operator *op,
		     aclrtStream stream)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->call = call;
	s->op = op;
	s->stream = stream;
	for (i = 0; i < bench_op_num_tensors(op); i++) {
		uint64_t bytes = bench_op_tensor_bytes(op, i);
		void *host = malloc(bytes);

		if (!host) {
			fprintf(stderr, "aclnn-bench: out of memory\n");
			exit(1);
		}
		if (i < op->num_inputs)
			bench_fill_dtype(host, bytes / NPU_DTYPE_SIZE(op->dtype), op->dtype);
		else
			memset(host, 0, bytes);
		CHECK(aclrtMalloc(&s->dev[i], bytes, ACL_MEM_MALLOC_HUGE_FIRST));
		CHECK(aclrtMemcpy(s->dev[i], bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
		free(host);
		s->t[i] = tensor_of(op, i, s->dev[i]);
		if (!s->t[i]) {
			fprintf(stderr, "aclnn-bench: aclCreateTensor failed\n");
			exit(1);
		}
	}
}

static void teardown_op(struct setup *s)
{
	unsigned int i;

	for (i = 0; i < BENCH_MAX_TENSORS; i++) {
		if (s->t[i])
			aclDestroyTensor(s->t[i]);
		if (s->dev[i])
			aclrtFree(s->dev[i]);
	}
	if (s->work)
		aclrtFree(s->work);
}

/* The workspace an executor asks for, grown as needed and kept. */
static void *workspace(struct setup *s, uint64_t size)
{
	if (size > s->work_size) {
		if (s->work)
			aclrtFree(s->work);
		CHECK(aclrtMalloc(&s->work, size, ACL_MEM_MALLOC_HUGE_FIRST));
		s->work_size = size;
	}
	return size ? s->work : NULL;
}

/* The first phase of the operator's aclnn call. */
static aclnnStatus prepare(struct setup *s, uint64_t *size, aclOpExecutor **x)
{
	static const float one = 1.0f;
	aclnnStatus ret;
	aclScalar *alpha;

	switch (s->call) {
	case CALL_MM:
		return aclnnMmGetWorkspaceSize(s->t[0], s->t[1], s->t[2], 0, size, x);
	case CALL_ADD:
		alpha = aclCreateScalar((void *)&one, ACL_FLOAT);
		ret = aclnnAddGetWorkspaceSize(s->t[0], s->t[1], alpha, s->t[2], size, x);
		aclDestroyScalar(alpha);
		return ret;
	case CALL_SOFTMAX:
		return aclnnSoftmaxGetWorkspaceSize(s->t[0], 1, s->t[1], size, x);
	case CALL_RMSNORM:
		return aclnnRmsNormGetWorkspaceSize(s->t[0], s->t[1], BENCH_RMSNORM_EPSILON, s->t[2],
						    NULL, size, x);
	}
	return ACLNN_ERR_PARAM_INVALID;
}

static aclnnStatus launch(struct setup *s, uint64_t size, aclOpExecutor *x)
{
	void *w = workspace(s, size);

	switch (s->call) {
	case CALL_MM:
		return aclnnMm(w, size, x, s->stream);
	case CALL_ADD:
		return aclnnAdd(w, size, x, s->stream);
	case CALL_SOFTMAX:
		return aclnnSoftmax(w, size, x, s->stream);
	case CALL_RMSNORM:
		return aclnnRmsNorm(w, size, x, s->stream);
	}
	return ACLNN_ERR_PARAM_INVALID;
}

/* One aclnn run to completion: its wall time, or 0 (said why) if it failed. */
static uint64_t run_aclnn(struct setup *s)
{
	aclOpExecutor *x;
	uint64_t size, t0 = now_ns();
	long ret = prepare(s, &size, &x);

	if (!ret)
		ret = launch(s, size, x);
	if (!ret)
		ret = aclrtSynchronizeStream(s->stream);
	if (ret) {
		const char *m = aclGetRecentErrMsg();

		printf("%-30s failed: %ld (%s)\n", s->op->name, ret, m ? m : "");
		return 0;
	}
	return now_ns() - t0;
}

struct reference {
	struct bench_port port;
	bool paired;
};

struct figure {
	double card_ns, ref_ns, ref_cpu_ns;
};

/* false if the card could not run the operator */
static bool measure(struct setup *s, struct reference *n, unsigned int runs, struct figure *f)
{
	uint64_t *card = calloc(runs, sizeof(*card)), *wall = calloc(runs, sizeof(*wall));
	uint64_t *cpu = calloc(runs, sizeof(*cpu));
	bool ok = card && wall && cpu;
	unsigned int i;

	/* the first run builds the card's primitives */
	ok = ok && run_aclnn(s);
	for (i = 0; ok && i < runs; i++) {
		double w = 0, c = 0;

		/* a failed reference run leaves that column empty */
		if (n->paired && s->op->key && bench_port_run(&n->port, s->op->key, &w, &c))
			w = c = 0;
		wall[i] = (uint64_t)w;
		cpu[i] = (uint64_t)c;
		card[i] = run_aclnn(s);
		ok = card[i] != 0;
	}
	if (ok) {
		f->card_ns = (double)median_u64(card, runs);
		f->ref_ns = (double)median_u64(wall, runs);
		f->ref_cpu_ns = (double)median_u64(cpu, runs);
	}
	free(card);
	free(wall);
	free(cpu);
	return ok;
}

static const struct {
	enum aclnn_call call;
	const struct bench_operator *op;	/* its key names the reference's case */
	const char *name;
	unsigned int runs;	/* divides --runs: the largest run fewer times */
} cases[] = {
	{ CALL_MM, &bench_operators[BENCH_MATMUL], "Mm f32 1024x1024x1024", 1 },
	{ CALL_MM, &bench_operators[BENCH_MATMUL_F16], "Mm f16 1024x1024x1024", 1 },
	{ CALL_MM, &bench_operators[BENCH_MATVEC], "Mm f32 4096x4096 by 4096x1", 1 },
	{ CALL_ADD, &bench_operators[BENCH_ADD], "Add f32 16 Mi", 2 },
	{ CALL_SOFTMAX, &bench_operators[BENCH_SOFTMAX], "Softmax f32 4096x4096", 2 },
	{ CALL_RMSNORM, &bench_operators[BENCH_RMSNORM], "RmsNorm f32 4096x4096", 2 },
};

static void print_row(const char *name, const struct figure *f, bool paired, double flops)
{
	if (paired && f->ref_ns > 0)
		printf("%-30s %10.3f %10.3f %10.3f %8.2f %9.2f\n", name, f->card_ns / 1e6,
		       f->ref_ns / 1e6, f->ref_cpu_ns / 1e6, f->ref_ns / f->card_ns,
		       flops / f->card_ns);
	else
		printf("%-30s %10.3f %10s %10s %8s %9.2f\n", name, f->card_ns / 1e6, "-", "-",
		       "-", flops / f->card_ns);
}

/* ---- the host's cost of a launch ------------------------------------------------ */

/* One BINARY ADD over the setup's tensors, as aclnnAdd queues it. */
static void raw_add_desc(const struct setup *s, struct bench_desc *desc)
{
	struct npu_op_desc *d = (struct npu_op_desc *)desc->bytes;
	const struct bench_tensor_shape shape = { 1, { OVERHEAD_ELEMS } };
	unsigned int i;

	memset(desc, 0, sizeof(*desc));
	d->kind = htole16(NPU_OPERATOR_BINARY);
	d->num_inputs = 2;
	d->num_outputs = 1;
	d->attrs.binary.kind = htole32(NPU_BINARY_ADD);
	for (i = 0; i < 3; i++)
		bench_tensor_desc(&d->tensors[i], (uintptr_t)s->dev[i], &shape);
}

static void overhead(aclrtStream stream)
{
	uint64_t launch[OVERHEAD_RUNS], raw[OVERHEAD_RUNS], wait_aclnn[OVERHEAD_RUNS];
	uint64_t prepare_only[OVERHEAD_RUNS];
	uint64_t wait_raw[OVERHEAD_RUNS];
	/* BINARY's three tensors: the driver takes a descriptor's exact length */
	const uint32_t size = sizeof(struct npu_op_desc) + 3 * sizeof(struct npu_tensor_desc);
	const float one = 1.0f;
	float host[OVERHEAD_ELEMS] = { 0 };
	int64_t dims[1] = { OVERHEAD_ELEMS }, strides[1] = { 1 };
	struct bench_desc desc;
	const void *descs[1] = { desc.bytes };
	aclScalar *alpha = aclCreateScalar((void *)&one, ACL_FLOAT);
	struct setup s = { .call = CALL_ADD, .stream = stream };
	unsigned int i;

	for (i = 0; i < 3; i++) {
		CHECK(aclrtMalloc(&s.dev[i], sizeof(host), ACL_MEM_MALLOC_HUGE_FIRST));
		CHECK(aclrtMemcpy(s.dev[i], sizeof(host), host, sizeof(host),
				  ACL_MEMCPY_HOST_TO_DEVICE));
		s.t[i] = aclCreateTensor(dims, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 1,
					 s.dev[i]);
	}
	raw_add_desc(&s, &desc);
	for (i = 0; i < OVERHEAD_RUNS; i++) {
		aclOpExecutor *x;
		uint64_t ws, t0 = now_ns(), t1;

		CHECK(aclnnAddGetWorkspaceSize(s.t[0], s.t[1], alpha, s.t[2], &ws, &x));
		prepare_only[i] = now_ns() - t0;
		CHECK(aclnnAdd(workspace(&s, ws), ws, x, stream));
		t1 = now_ns();
		CHECK(aclrtSynchronizeStream(stream));
		launch[i] = t1 - t0;
		wait_aclnn[i] = now_ns() - t1;

		t0 = now_ns();
		CHECK(npu_acl_submit_ops(stream, descs, &size, 1));
		t1 = now_ns();
		CHECK(aclrtSynchronizeStream(stream));
		raw[i] = t1 - t0;
		wait_raw[i] = now_ns() - t1;
	}
	printf("\nhost cost of one operator (Add of %u elements), medians of %u:\n",
	       OVERHEAD_ELEMS, OVERHEAD_RUNS);
	printf("  aclnnAddGetWorkspaceSize + aclnnAdd %10.2f us, then the wait %10.2f us\n",
	       median_u64(launch, OVERHEAD_RUNS) / 1e3, median_u64(wait_aclnn, OVERHEAD_RUNS) / 1e3);
	printf("    of which aclnnAddGetWorkspaceSize %10.2f us\n",
	       median_u64(prepare_only, OVERHEAD_RUNS) / 1e3);
	printf("  raw npu_op_desc (npu_acl_submit_ops) %9.2f us, then the wait %10.2f us\n",
	       median_u64(raw, OVERHEAD_RUNS) / 1e3, median_u64(wait_raw, OVERHEAD_RUNS) / 1e3);
	printf("  aclnn / raw: %.2f (the goal: at most 2)\n",
	       (double)median_u64(launch, OVERHEAD_RUNS) / (double)median_u64(raw, OVERHEAD_RUNS));
	aclDestroyScalar(alpha);
	teardown_op(&s);
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "ort-port", no_argument, NULL, 'n' },
		{ "runs", required_argument, NULL, 'r' },
		{ "overhead", no_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	struct reference n = { 0 };
	unsigned int runs = 10, i, num_cases = sizeof(cases) / sizeof(cases[0]);
	aclrtStream stream;
	int opt;

	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		if (opt == 'n') {
			n.paired = true;
		} else if (opt == 'o') {
			num_cases = 0;
		} else if (opt == 'r' && atoi(optarg) > 0) {
			runs = (unsigned int)atoi(optarg);
		} else {
			fprintf(stderr, "usage: aclnn-bench [--ort-port] [--runs N] [--overhead]\n");
			return 2;
		}
	}
	if (n.paired && bench_port_open(&n.port, ACLNN_BENCH_PORT)) {
		fprintf(stderr, "aclnn-bench: no port %s\n", ACLNN_BENCH_PORT);
		return 1;
	}
	CHECK(aclInit(NULL));
	CHECK(aclrtSetDevice(0));
	CHECK(aclrtCreateStream(&stream));
	printf("aclnn-bench: aclnn on the card against onnxruntime on the host (aclnn-bench-ort.js),\n"
	       "paired run by run; medians of %u runs (fewer for the largest);\n"
	       "speed = reference time / card time (the goal: at least 0.9)\n", runs);
	printf("%-30s %10s %10s %10s %8s %9s\n", "operator", "card ms", "ort ms", "ort cpu ms",
	       "speed", "GFLOP/s");
	for (i = 0; i < num_cases; i++) {
		unsigned int r = runs / cases[i].runs ? runs / cases[i].runs : 1;
		struct figure f;
		struct setup s;

		setup_op(&s, cases[i].call, cases[i].op, stream);
		if (measure(&s, &n, r, &f))
			print_row(cases[i].name, &f, n.paired, cases[i].op->flops);
		teardown_op(&s);
	}
	overhead(stream);
	CHECK(aclrtDestroyStream(stream));
	CHECK(aclrtResetDevice(0));
	CHECK(aclFinalize());
	return 0;
}
