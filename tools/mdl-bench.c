// SPDX-License-Identifier: MIT
/*
 * mdl-bench: whole models on the card through the AscendCL model API
 * (aclmdlLoadFromFile, aclmdlExecuteAsync), beside onnxruntime running the
 * same ONNX file on the host with as many threads as the card's engine
 * gives one execution (tools/mdl-bench-ort.js, run by make bench just
 * before).  The ratio is onnxruntime's wall time over the card's: >= 1
 * means the card is at least as fast.  The max abs difference is between
 * the two outputs for the same input; max|ort| gives its scale.
 *
 * Per case: load the .om, copy the input to the device once, one warm-up
 * execution (the card builds its primitives), then --runs executions, each
 * between two events on the stream and waited for.  "guest" is the wall
 * time from submission to the wait's return, in the guest; "card" is the
 * events' elapsed time, on the card's clock.  The onnxruntime figures are
 * its wall time and its CPU time over its threads; on a busy host the
 * latter is what it would take with the CPUs to itself, and the ratio
 * with it (r cpu) is the card's worst case.
 *
 * Where each case's time goes: PROF_KINDS is mdl-bench-prof --kinds's
 * file for the same .om (its operators run natively on the host, one at a
 * time, by the card's operator library with one engine's threads), read
 * to print the operators' CPU time by kind and in reorders, against the
 * card's time (what is left is the cost around the operators on the
 * card) and the guest's (the way to the card and back).
 *
 * With --ort-port (make bench), the onnxruntime figures are paired runs
 * instead: before each execution on the card, mdl-bench-ort.js --serve
 * runs the case once on the host, asked on the virtio port npu.ort
 * (bench_port.h), so that both figures come from the same seconds of a
 * host whose speed swings between runs (tools/bench_operators.h).
 *
 *   mdl-bench [--runs N] [--ort-port] NAME OM INPUT.bin ORT_OUT.bin ORT_FIGURES.txt PROF_KINDS ...
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acl/acl.h"
#include "bench_port.h"

#define CASE_ARGS	6
/* the operator table's kinds, "reorder" and "all" */
#define MAX_KINDS	64
#define MAX_RUNS	1000
#define ORT_PORT_NAME	"npu.ort"

/* Paired onnxruntime runs, when asked for */
static struct bench_port ort_port;
static bool ort_paired;

struct ort_figures {
	unsigned int batch, threads, runs;
	double wall_ns, wall_min_ns, cpu_ns;
};

/* One line of mdl-bench-prof --kinds: operators of a kind, their native time. */
struct prof_kind {
	char name[32];
	unsigned int count;
	double ns;
};

struct case_result {
	const char *name;
	struct ort_figures ort;
	struct prof_kind kinds[MAX_KINDS];
	unsigned int num_kinds;
	double guest_ns, guest_min_ns, card_ns, card_min_ns;
	double max_abs_diff, max_abs_ref;
};

#define CHECK(call) do {						\
	aclError err_ = (call);						\
	if (err_ != ACL_SUCCESS) {					\
		fprintf(stderr, "mdl-bench: %s: error %d (%s)\n", #call,	\
			err_, aclGetRecentErrMsg());			\
		return -1;						\
	}								\
} while (0)

static void *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	void *buf = NULL;
	long size;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (size = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET)) {
		buf = malloc((size_t)size);
		if (buf && fread(buf, 1, (size_t)size, f) != (size_t)size) {
			free(buf);
			buf = NULL;
		}
		*len = (size_t)size;
	}
	fclose(f);
	return buf;
}

static int read_ort(const char *path, struct ort_figures *o)
{
	FILE *f = fopen(path, "r");
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "%u %u %u %lf %lf %lf", &o->batch, &o->threads, &o->runs,
		   &o->wall_ns, &o->wall_min_ns, &o->cpu_ns);
	fclose(f);
	return n == 6 ? 0 : -1;
}

static int read_kinds(const char *path, struct case_result *r)
{
	FILE *f = fopen(path, "r");
	struct prof_kind *k;

	if (!f)
		return -1;
	for (r->num_kinds = 0; r->num_kinds < MAX_KINDS; r->num_kinds++) {
		k = &r->kinds[r->num_kinds];
		if (fscanf(f, "%31s %u %lf", k->name, &k->count, &k->ns) != 3)
			break;
	}
	fclose(f);
	return r->num_kinds ? 0 : -1;
}

/* The line of kind @name, or NULL. */
static const struct prof_kind *find_kind(const struct case_result *r, const char *name)
{
	for (unsigned int i = 0; i < r->num_kinds; i++)
		if (!strcmp(r->kinds[i].name, name))
			return &r->kinds[i];
	return NULL;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}

static double max_abs_diff(const float *a, const float *b, size_t n)
{
	double worst = 0;

	for (size_t i = 0; i < n; i++) {
		double d = fabs((double)a[i] - (double)b[i]);

		if (!(d <= worst))
			worst = d;	/* a NaN is the worst */
	}
	return worst;
}

/* The device buffers and datasets of one model with one input and one output. */
struct model_io {
	void *in_dev, *out_dev;
	size_t in_size, out_size;
	aclmdlDataset *in, *out;
};

static int io_create(aclmdlDesc *desc, struct model_io *io)
{
	io->in_size = aclmdlGetInputSizeByIndex(desc, 0);
	io->out_size = aclmdlGetOutputSizeByIndex(desc, 0);
	CHECK(aclrtMalloc(&io->in_dev, io->in_size, ACL_MEM_MALLOC_HUGE_FIRST));
	CHECK(aclrtMalloc(&io->out_dev, io->out_size, ACL_MEM_MALLOC_HUGE_FIRST));
	io->in = aclmdlCreateDataset();
	io->out = aclmdlCreateDataset();
	if (!io->in || !io->out)
		return -1;
	CHECK(aclmdlAddDatasetBuffer(io->in, aclCreateDataBuffer(io->in_dev, io->in_size)));
	CHECK(aclmdlAddDatasetBuffer(io->out, aclCreateDataBuffer(io->out_dev, io->out_size)));
	return 0;
}

static void io_destroy(struct model_io *io)
{
	aclmdlDataset *ds[2] = { io->in, io->out };

	for (int d = 0; d < 2; d++) {
		if (!ds[d])
			continue;
		for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(ds[d]); i++)
			aclDestroyDataBuffer(aclmdlGetDatasetBuffer(ds[d], i));
		aclmdlDestroyDataset(ds[d]);
	}
	aclrtFree(io->in_dev);
	aclrtFree(io->out_dev);
}

static int time_runs(uint32_t id, struct model_io *io, aclrtStream stream, unsigned int runs,
		     struct case_result *r)
{
	static double guest[MAX_RUNS], card[MAX_RUNS], ort_wall[MAX_RUNS], ort_cpu[MAX_RUNS];
	aclrtEvent start, end;
	float ms;

	CHECK(aclrtCreateEvent(&start));
	CHECK(aclrtCreateEvent(&end));
	/* the warm-up: the card compiles the model's operators */
	CHECK(aclmdlExecute(id, io->in, io->out));
	for (unsigned int i = 0; i < runs; i++) {
		double t0;

		if (ort_paired && bench_port_run(&ort_port, r->name, &ort_wall[i], &ort_cpu[i]))
			return -1;
		t0 = now_ns();
		CHECK(aclrtRecordEvent(start, stream));
		CHECK(aclmdlExecuteAsync(id, io->in, io->out, stream));
		CHECK(aclrtRecordEvent(end, stream));
		CHECK(aclrtSynchronizeStream(stream));
		guest[i] = now_ns() - t0;
		CHECK(aclrtEventElapsedTime(&ms, start, end));
		card[i] = ms * 1e6;
	}
	r->guest_ns = median(guest, runs);
	r->guest_min_ns = guest[0];
	r->card_ns = median(card, runs);
	r->card_min_ns = card[0];
	if (ort_paired) {
		r->ort.wall_ns = median(ort_wall, runs);
		r->ort.wall_min_ns = ort_wall[0];
		r->ort.cpu_ns = median(ort_cpu, runs);
		r->ort.runs = runs;
	}
	aclrtDestroyEvent(start);
	aclrtDestroyEvent(end);
	return 0;
}

static int run_case(char **arg, unsigned int runs, aclrtStream stream, struct case_result *r)
{
	const char *om = arg[1];
	size_t in_len = 0, ref_len = 0;
	float *input = NULL, *ref = NULL, *got = NULL;
	struct model_io io = { 0 };
	aclmdlDesc *desc = NULL;
	uint32_t id = 0;
	bool loaded = false;
	int ret = -1;

	r->name = arg[0];
	if (read_ort(arg[4], &r->ort)) {
		fprintf(stderr, "mdl-bench: %s: cannot read onnxruntime's figures\n", arg[4]);
		return -1;
	}
	if (read_kinds(arg[5], r) || !find_kind(r, "all") || !find_kind(r, "reorder")) {
		fprintf(stderr, "mdl-bench: %s: cannot read mdl-bench-prof's kinds\n", arg[5]);
		return -1;
	}
	input = read_file(arg[2], &in_len);
	ref = read_file(arg[3], &ref_len);
	if (!input || !ref) {
		fprintf(stderr, "mdl-bench: cannot read %s or %s\n", arg[2], arg[3]);
		goto out;
	}
	if (aclmdlLoadFromFile(om, &id) != ACL_SUCCESS) {
		fprintf(stderr, "mdl-bench: loading %s: %s\n", om, aclGetRecentErrMsg());
		goto out;
	}
	loaded = true;
	desc = aclmdlCreateDesc();
	if (!desc || aclmdlGetDesc(desc, id) != ACL_SUCCESS || io_create(desc, &io))
		goto out;
	if (in_len != io.in_size || ref_len != io.out_size) {
		fprintf(stderr, "mdl-bench: %s: input %zu/%zu bytes, output %zu/%zu\n", om,
			in_len, io.in_size, ref_len, io.out_size);
		goto out;
	}
	if (aclrtMemcpy(io.in_dev, io.in_size, input, in_len, ACL_MEMCPY_HOST_TO_DEVICE) ||
	    time_runs(id, &io, stream, runs, r))
		goto out;
	got = malloc(io.out_size);
	if (!got || aclrtMemcpy(got, io.out_size, io.out_dev, io.out_size,
				ACL_MEMCPY_DEVICE_TO_HOST))
		goto out;
	r->max_abs_diff = max_abs_diff(got, ref, io.out_size / sizeof(float));
	for (size_t i = 0; i < io.out_size / sizeof(float); i++)
		r->max_abs_ref = fmax(r->max_abs_ref, fabs(ref[i]));
	ret = 0;
out:
	if (ret)
		fprintf(stderr, "mdl-bench: %s failed\n", r->name);
	io_destroy(&io);
	if (desc)
		aclmdlDestroyDesc(desc);
	if (loaded)
		aclmdlUnload(id);
	free(input);
	free(ref);
	free(got);
	return ret;
}

static void print_table(const struct case_result *r, unsigned int n, unsigned int runs)
{
	printf("\nmdl-bench: medians of %u executions (ms); onnxruntime on the host, same threads, "
	       "%s\n", runs, ort_paired ? "a run before each execution (paired)" :
					   "measured before the guest booted");
	printf("%-18s %3s %8s %8s %8s %8s %8s %8s %6s %6s %9s %9s\n", "model", "thr",
	       "card", "guest", "g min", "ort wall", "ort min", "ort cpu", "ratio", "r cpu",
	       "max|diff|", "max|ort|");
	for (unsigned int i = 0; i < n; i++) {
		const struct ort_figures *o = &r[i].ort;

		printf("%-18s %3u %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f %6.2f %6.2f %9.3g %9.3g\n",
		       r[i].name, o->threads, r[i].card_ns / 1e6, r[i].guest_ns / 1e6,
		       r[i].guest_min_ns / 1e6, o->wall_ns / 1e6, o->wall_min_ns / 1e6,
		       o->cpu_ns / 1e6, o->wall_ns / r[i].guest_ns, o->cpu_ns / r[i].guest_ns,
		       r[i].max_abs_diff, r[i].max_abs_ref);
	}
	printf("ratio: onnxruntime's wall time over the card's (submission to completion\n"
	       "seen in the guest), both medians on this host; >= 1.0: the card is at least\n"
	       "as fast.  r cpu: onnxruntime's CPU time over the threads instead, what it\n"
	       "would take with the CPUs to itself; the card's time is wall time, so on a\n"
	       "busy host r cpu is the card's worst case.\n");
}

static int cmp_kind_time(const void *a, const void *b)
{
	const struct prof_kind *x = a, *y = b;

	return (x->ns < y->ns) - (x->ns > y->ns);
}

/* The operators by kind, the most expensive first, then the reorders among them. */
static void print_kinds(const struct case_result *r)
{
	struct prof_kind k[MAX_KINDS];
	const struct prof_kind *re = find_kind(r, "reorder");
	unsigned int i, n = 0;

	for (i = 0; i < r->num_kinds; i++)
		if (strcmp(r->kinds[i].name, "all") && strcmp(r->kinds[i].name, "reorder"))
			k[n++] = r->kinds[i];
	qsort(k, n, sizeof(k[0]), cmp_kind_time);
	printf("  by kind (ms, count):");
	for (i = 0; i < n; i++)
		printf(" %s %.2f (%u)%s", k[i].name, k[i].ns / 1e6, k[i].count,
		       i + 1 < n ? "," : "\n");
	printf("  reorders: %u operators take an input in another layout than their output's, "
	       "%.2f ms of the operators' time\n", re->count, re->ns / 1e6);
}

/*
 * Native operators, the card's time around them, and the way to the card
 * and back: what each case's time on the guest is made of.
 */
static void print_breakdown(const struct case_result *r, unsigned int n)
{
	printf("\nmdl-bench: where the time goes (ms, medians): \"ops\" the operators' CPU time "
	       "natively on the host\nby the card's library (mdl-bench-prof, one engine's "
	       "threads, before the guest booted),\n\"around\" the card's time less that "
	       "(per operator in us; on a loaded host it holds the\nwaits for a CPU too), "
	       "\"to card+back\" the guest's less the card's\n");
	printf("%-18s %5s %8s %8s %8s %8s %8s %13s\n", "model", "ops#", "guest", "card",
	       "ops", "around", "us/op", "to card+back");
	for (unsigned int i = 0; i < n; i++) {
		const struct prof_kind *all = find_kind(&r[i], "all");
		double around = r[i].card_ns - all->ns;

		printf("%-18s %5u %8.2f %8.2f %8.2f %8.2f %8.1f %13.2f\n", r[i].name, all->count,
		       r[i].guest_ns / 1e6, r[i].card_ns / 1e6, all->ns / 1e6, around / 1e6,
		       all->count ? around / 1e3 / all->count : 0, (r[i].guest_ns - r[i].card_ns) / 1e6);
		print_kinds(&r[i]);
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: mdl-bench [--runs N] [--ort-port] NAME OM INPUT.bin ORT_OUT.bin "
		"ORT_FIGURES.txt PROF_KINDS ...\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "runs", required_argument, NULL, 'r' },
		{ "ort-port", no_argument, NULL, 'p' },
		{ 0 }
	};
	struct case_result *results;
	unsigned int runs = 10, n, i;
	aclrtStream stream = NULL;
	int c, ret = 0;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'p') {
			ort_paired = true;
			continue;
		}
		if (c != 'r') {
			usage();
			return 2;
		}
		runs = strtoul(optarg, NULL, 0);
	}
	argc -= optind;
	argv += optind;
	if (!argc || argc % CASE_ARGS || !runs || runs > MAX_RUNS) {
		usage();
		return 2;
	}
	n = argc / CASE_ARGS;
	if (ort_paired && bench_port_open(&ort_port, ORT_PORT_NAME)) {
		fprintf(stderr, "mdl-bench: no virtio port %s (vm-run --host-socket)\n",
			ORT_PORT_NAME);
		return 1;
	}
	results = calloc(n, sizeof(*results));
	if (!results || aclInit(NULL) || aclrtSetDevice(0) || aclrtCreateStream(&stream)) {
		fprintf(stderr, "mdl-bench: cannot start: %s\n", aclGetRecentErrMsg());
		return 1;
	}
	for (i = 0; i < n && !ret; i++)
		ret = run_case(argv + i * CASE_ARGS, runs, stream, &results[i]);
	if (!ret) {
		print_table(results, n, runs);
		print_breakdown(results, n);
	}
	aclrtDestroyStream(stream);
	aclrtResetDevice(0);
	aclFinalize();
	free(results);
	return ret ? 1 : 0;
}
