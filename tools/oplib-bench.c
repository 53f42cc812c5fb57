// SPDX-License-Identifier: GPL-2.0
/*
 * oplib-bench: the card's operator library (card/oplib) run
 * natively on host memory, with the descriptors and oneDNN primitives the
 * card would use.  It is the reference the guest's op-bench is compared
 * with: what is left over there is the card's and the stack's own cost.
 * The operators are those of bench_operators.h.
 *
 * Each operator runs once to build its primitives (the "first" column),
 * then --runs times; ns/run is the median, cpu ns/run the median of the
 * process's CPU time over the threads (the wall time on a host with
 * nothing else to run, whatever its load).  By default an operator gets
 * the OpenMP threads one engine of a card with --engines engines gets, as
 * the card gives them.  Prints a table, then the figures as JSON,
 * which --json also writes to a file for op-bench.
 *
 * With --serve PATH it runs each operator once to build its primitives,
 * then listens on the UNIX socket PATH (vm-run --host-socket joins it to
 * the guest) and runs an operator once per request of op-bench's, between
 * the card's runs (the protocol is in bench_port.h); it exits when
 * the peer hangs up.
 *
 *   oplib-bench [--engines N] [--threads N] [--runs N] [--json FILE]
 *   oplib-bench [--engines N] [--threads N] --serve PATH
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "bench_operators.h"
#include "bench_port.h"
#include "bench_clock.h"
#include "oplib.h"

#define MIB		(1ULL << 20)

struct bench_run {
	struct bench_desc desc;
	uint32_t desc_size;
	bool ran;		/* false: the library cannot run it (yet) */
	uint64_t first_ns;
	uint64_t median_ns;
	uint64_t min_ns;
	uint64_t cpu_ns;	/* median CPU time over the threads */
};

/* Device memory stand-in: tensors are laid out one after another. */
struct arena {
	uint8_t *mem;
	uint64_t size;
	uint64_t used;
};

/* Room for the operator's tensors, which start as op-bench's do. */
static void build(struct arena *a, enum bench_op_id id, struct bench_run *run)
{
	const struct bench_operator *op = &bench_operators[id];
	uint64_t addrs[BENCH_MAX_TENSORS];
	unsigned int i;

	for (i = 0; i < bench_op_num_tensors(op); i++) {
		uint64_t bytes = bench_op_tensor_bytes(op, i);

		if (a->used + bytes > a->size) {
			fprintf(stderr, "oplib-bench: arena too small\n");
			exit(1);
		}
		addrs[i] = a->used;
		if (i < op->num_inputs)
			bench_fill_dtype(a->mem + a->used,
					 bytes / NPU_DTYPE_SIZE(bench_op_tensor_dtype(op, i)),
					 bench_op_tensor_dtype(op, i));
		else
			memset(a->mem + a->used, 0, bytes);
		a->used = (a->used + bytes + 4095) & ~4095ULL;
	}
	bench_desc_build(id, addrs, &run->desc);
	run->desc_size = bench_desc_size(id);
}

/* One run of @id: its wall time and its CPU time over the threads. */
static int run_once(struct oplib *lib, struct arena *a, const struct bench_run *run,
		    unsigned int threads, uint64_t *wall_ns, uint64_t *cpu_ns)
{
	uint64_t t0, c0;
	int err;

	c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	t0 = now_ns();
	err = oplib_run(lib, (const void *)run->desc.bytes, run->desc_size, a->mem,
			a->size, NULL);
	*wall_ns = now_ns() - t0;
	*cpu_ns = (clock_ns(CLOCK_PROCESS_CPUTIME_ID) - c0) / threads;
	return err;
}

/*
 * Besides the wall time, the process's CPU time over the threads: on a
 * busy host, what the run would take with its CPUs to itself.
 */
static int measure(struct oplib *lib, struct arena *a, enum bench_op_id id,
		   struct bench_run *run, unsigned int runs, unsigned int threads)
{
	const struct npu_op_desc *desc = (const void *)run->desc.bytes;
	uint64_t *ns = calloc(runs, sizeof(*ns)), *cpu = calloc(runs, sizeof(*cpu));
	uint64_t t0;
	unsigned int i;
	int err = -1;

	if (!ns || !cpu)
		goto out;
	t0 = now_ns();
	err = oplib_run(lib, desc, run->desc_size, a->mem, a->size, NULL);
	run->first_ns = now_ns() - t0;
	for (i = 0; !err && i < runs; i++)
		err = run_once(lib, a, run, threads, &ns[i], &cpu[i]);
	if (err) {
		fprintf(stderr, "oplib-bench: %s failed: ring error %d\n",
			bench_operators[id].name, err);
		goto out;
	}
	qsort(ns, runs, sizeof(*ns), cmp_u64);
	qsort(cpu, runs, sizeof(*cpu), cmp_u64);
	run->median_ns = ns[runs / 2];
	run->min_ns = ns[0];
	run->cpu_ns = cpu[runs / 2];
out:
	free(ns);
	free(cpu);
	return err ? -1 : 0;
}

/* This host's 1-minute load average, which op-bench cannot see. */
static double load_average(void)
{
	double load = -1;
	FILE *f = fopen("/proc/loadavg", "r");

	if (f) {
		if (fscanf(f, "%lf", &load) != 1)
			load = -1;
		fclose(f);
	}
	return load;
}

static void print_table(const struct bench_run *runs, unsigned int threads,
			unsigned int nruns)
{
	unsigned int i;

	printf("oplib-bench: %u OpenMP threads per operator, %u runs\n",
	       threads, nruns);
	printf("%-30s %12s %12s %12s %12s %9s\n", "operator", "first ns",
	       "ns/run", "min ns", "cpu ns/run", "GFLOP/s");
	for (i = 0; i < BENCH_ALL_OPS; i++) {
		if (!runs[i].ran)
			continue;
		printf("%-30s %12llu %12llu %12llu %12llu %9.2f\n",
		       bench_operators[i].name,
		       (unsigned long long)runs[i].first_ns,
		       (unsigned long long)runs[i].median_ns,
		       (unsigned long long)runs[i].min_ns,
		       (unsigned long long)runs[i].cpu_ns,
		       bench_operators[i].flops / (double)runs[i].median_ns);
	}
}

/* One line, which op-bench reads (--json) to set its figures beside. */
static void print_json(FILE *f, const struct bench_run *runs,
		       unsigned int engines, unsigned int threads,
		       unsigned int nruns, double load)
{
	const char *sep = "";
	unsigned int i;

	fprintf(f, "{\"tool\": \"oplib-bench\", \"engines\": %u, "
		"\"threads\": %u, \"runs\": %u, \"load\": %.2f, \"results\": [",
		engines, threads, nruns, load);
	for (i = 0; i < BENCH_ALL_OPS; sep = runs[i].ran ? ", " : sep, i++) {
		if (!runs[i].ran)
			continue;
		fprintf(f, "%s{\"key\": \"%s\", \"name\": \"%s\", "
			"\"first_ns\": %llu, \"ns_per_run\": %llu, "
			"\"min_ns\": %llu, \"cpu_ns\": %llu, \"gflops\": %.3f}",
			sep, bench_operators[i].key,
			bench_operators[i].name,
			(unsigned long long)runs[i].first_ns,
			(unsigned long long)runs[i].median_ns,
			(unsigned long long)runs[i].min_ns,
			(unsigned long long)runs[i].cpu_ns,
			bench_operators[i].flops / (double)runs[i].median_ns);
	}
	fprintf(f, "]}\n");
}

static int save_json(const char *path, const struct bench_run *runs,
		     unsigned int engines, unsigned int threads,
		     unsigned int nruns, double load)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		fprintf(stderr, "oplib-bench: %s: %m\n", path);
		return -1;
	}
	print_json(f, runs, engines, threads, nruns, load);
	if (fclose(f)) {
		fprintf(stderr, "oplib-bench: %s: %m\n", path);
		return -1;
	}
	return 0;
}

static void answer(FILE *out, struct oplib *lib, struct arena *a,
		   const struct bench_run *runs, unsigned int engines,
		   unsigned int threads, char *line)
{
	uint64_t wall, cpu;
	unsigned int i;
	int err;

	line[strcspn(line, "\n")] = '\0';
	if (!strcmp(line, "info")) {
		fprintf(out, "info %u %u %.2f\n", engines, threads, load_average());
		return;
	}
	for (i = 0; i < BENCH_ALL_OPS; i++)
		if (!strncmp(line, "run ", 4) && !strcmp(line + 4, bench_operators[i].key))
			break;
	if (i == BENCH_ALL_OPS) {
		fprintf(out, "error unknown request\n");
		return;
	}
	if (!runs[i].ran) {
		fprintf(out, "error the operator library cannot run %s\n", bench_operators[i].key);
		return;
	}
	err = run_once(lib, a, &runs[i], threads, &wall, &cpu);
	if (err)
		fprintf(out, "error ring error %d\n", err);
	else
		fprintf(out, "ran %llu %llu\n", (unsigned long long)wall,
			(unsigned long long)cpu);
}

static int listen_on(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(addr.sun_path)) {
		fprintf(stderr, "oplib-bench: %s: path too long\n", path);
		return -1;
	}
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto fail;
	unlink(path);
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) || listen(fd, 1)) {
		close(fd);
		goto fail;
	}
	return fd;
fail:
	fprintf(stderr, "oplib-bench: %s: %m\n", path);
	return -1;
}

/* One peer (QEMU's end of the guest's port), served until it hangs up. */
static int serve(const char *path, struct oplib *lib, struct arena *a,
		 const struct bench_run *runs, unsigned int engines, unsigned int threads)
{
	char line[BENCH_PORT_LINE_MAX];
	int lfd = listen_on(path), fd;
	FILE *in, *out;

	if (lfd < 0)
		return -1;
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	close(lfd);
	unlink(path);
	if (fd < 0) {
		fprintf(stderr, "oplib-bench: accept: %m\n");
		return -1;
	}
	in = fdopen(fd, "r");
	out = fdopen(dup(fd), "w");
	if (!in || !out) {
		fprintf(stderr, "oplib-bench: fdopen: %m\n");
		return -1;
	}
	while (fgets(line, sizeof(line), in)) {
		answer(out, lib, a, runs, engines, threads, line);
		if (fflush(out))
			break;
	}
	fclose(in);
	fclose(out);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: oplib-bench [--engines N] [--threads N] [--runs N] "
		   "[--json FILE]\n"
		   "       oplib-bench [--engines N] [--threads N] --serve PATH\n"
		   "defaults: --engines 2 (threads: this host's CPUs / engines), "
		   "--runs 40\n");
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "engines", required_argument, NULL, 'e' },
		{ "threads", required_argument, NULL, 't' },
		{ "runs", required_argument, NULL, 'r' },
		{ "json", required_argument, NULL, 'j' },
		{ "serve", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int engines = 2, threads = 0, runs = 40, i;
	struct bench_run results[BENCH_ALL_OPS];
	struct oplib_config cfg = { 0 };
	struct arena a = { .size = 800 * MIB };
	const char *json = NULL, *serve_path = NULL;
	struct oplib *lib;
	double load;
	int opt;

	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (opt) {
		case 'e':
			engines = strtoul(optarg, NULL, 0);
			break;
		case 't':
			threads = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			runs = strtoul(optarg, NULL, 0);
			break;
		case 'j':
			json = optarg;
			break;
		case 's':
			serve_path = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!engines || !runs || optind < argc || (serve_path && json)) {
		usage(stderr);
		return 2;
	}
	cfg.threads = threads ? threads : oplib_threads_per_engine(engines);
	lib = oplib_create(&cfg);
	a.mem = aligned_alloc(4096, a.size);
	if (!lib || !a.mem) {
		fprintf(stderr, "oplib-bench: cannot start the library\n");
		return 1;
	}
	load = load_average();
	for (i = 0; i < BENCH_ALL_OPS; i++) {
		build(&a, i, &results[i]);
		results[i].ran = !measure(lib, &a, i, &results[i], serve_path ? 1 : runs,
					  cfg.threads);
		/* aclnn-bench's operators are left out while the library lacks them */
		if (!results[i].ran && i < BENCH_NUM_OPS)
			return 1;
	}
	if (serve_path) {
		if (serve(serve_path, lib, &a, results, engines, cfg.threads))
			return 1;
		goto out;
	}

	print_table(results, cfg.threads, runs);
	print_json(stdout, results, engines, cfg.threads, runs, load);
	if (json && save_json(json, results, engines, cfg.threads, runs, load))
		return 1;
out:
	oplib_destroy(lib);
	free(a.mem);
	return 0;
}
