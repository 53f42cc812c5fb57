// SPDX-License-Identifier: GPL-2.0
/*
 * oplib-bench: the card's operator library (tools/npu-model/oplib*.c) run
 * natively on host memory, with the descriptors and oneDNN primitives the
 * card would use.  It is the reference a guest-side benchmark of COMPUTE
 * is compared with: what is left over there is the card's and the
 * stack's own cost.
 *
 *   conv2d   3x3, x 1x64x56x56, 64 filters, pad 1 (float32)
 *   matmul   1024x1024 by 1024x1024 (float32)
 *   add      two tensors of 16 Mi float32 elements
 *
 * Each operator runs once to build its primitives (the "first" column),
 * then --runs times; ns/run is the median.  By default an operator gets
 * the OpenMP threads one engine of a card with --engines engines gets, as
 * the card model gives them.  Prints a table, then the figures as JSON.
 *
 *   oplib-bench [--engines N] [--threads N] [--runs N]
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oplib.h"

#define MIB		(1ULL << 20)

struct bench_op {
	const char *name;
	uint8_t desc[OPLIB_DESC_MAX] __attribute__((aligned(64)));
	size_t size;
	uint64_t first_ns;
	uint64_t median_ns;
	uint64_t min_ns;
};

/* Device memory stand-in: tensors are laid out one after another. */
struct arena {
	uint8_t *mem;
	uint64_t size;
	uint64_t used;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* A dense float32 tensor, filled with small values. */
static void tensor(struct arena *a, struct npu_tensor_desc *t,
		   unsigned int ndims, const uint64_t *dims)
{
	uint64_t n = 1, stride = 1, i;
	float *p;
	int d;

	memset(t, 0, sizeof(*t));
	for (d = (int)ndims - 1; d >= 0; d--) {
		t->dims[d] = htole64(dims[d]);
		t->strides[d] = htole64(stride);
		stride *= dims[d];
	}
	n = stride;
	t->addr = htole64(a->used);
	t->dtype = htole16(NPU_DTYPE_F32);
	t->format = htole16(NPU_FORMAT_STRIDED);
	t->ndims = htole16(ndims);
	if (a->used + n * sizeof(float) > a->size) {
		fprintf(stderr, "oplib-bench: arena too small\n");
		exit(1);
	}
	p = (float *)(a->mem + a->used);
	for (i = 0; i < n; i++)
		p[i] = (float)((i * 2654435761u) % 1000) / 1000.0f - 0.5f;
	a->used = (a->used + n * sizeof(float) + 4095) & ~4095ULL;
}

static struct npu_op_desc *op_init(struct bench_op *op, const char *name,
				   unsigned int kind, unsigned int nin)
{
	struct npu_op_desc *d = (struct npu_op_desc *)op->desc;

	memset(op->desc, 0, sizeof(op->desc));
	op->name = name;
	d->kind = htole16(kind);
	d->num_inputs = nin;
	d->num_outputs = 1;
	op->size = sizeof(*d) + (nin + 1) * sizeof(struct npu_tensor_desc);
	return d;
}

static void build_conv(struct arena *a, struct bench_op *op)
{
	static const uint64_t x[4] = { 1, 64, 56, 56 }, w[4] = { 64, 64, 3, 3 };
	struct npu_op_desc *d = op_init(op, "conv2d 3x3 1x64x56x56 o64 p1",
					NPU_OPERATOR_CONV2D, 2);
	unsigned int i;

	tensor(a, &d->tensors[0], 4, x);
	tensor(a, &d->tensors[1], 4, w);
	tensor(a, &d->tensors[2], 4, x);
	for (i = 0; i < 2; i++) {
		d->attrs.conv.strides[i] = htole32(1);
		d->attrs.conv.dilations[i] = htole32(1);
		d->attrs.conv.pads_begin[i] = htole32(1);
	}
	d->attrs.conv.group = htole32(1);
}

static void build_matmul(struct arena *a, struct bench_op *op)
{
	static const uint64_t dims[2] = { 1024, 1024 };
	const float one = 1.0f;
	struct npu_op_desc *d = op_init(op, "matmul 1024x1024x1024",
					NPU_OPERATOR_MATMUL, 2);
	uint32_t bits;

	tensor(a, &d->tensors[0], 2, dims);
	tensor(a, &d->tensors[1], 2, dims);
	tensor(a, &d->tensors[2], 2, dims);
	memcpy(&bits, &one, sizeof(bits));
	d->attrs.matmul.alpha = htole32(bits);
}

static void build_add(struct arena *a, struct bench_op *op)
{
	static const uint64_t dims[1] = { 16 * MIB };
	struct npu_op_desc *d = op_init(op, "add 16Mi", NPU_OPERATOR_BINARY, 2);

	tensor(a, &d->tensors[0], 1, dims);
	tensor(a, &d->tensors[1], 1, dims);
	tensor(a, &d->tensors[2], 1, dims);
	d->attrs.binary.kind = htole32(NPU_BINARY_ADD);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int measure(struct oplib *lib, struct arena *a, struct bench_op *op,
		   unsigned int runs)
{
	uint64_t *ns = calloc(runs, sizeof(*ns)), t0;
	unsigned int i;
	int err;

	if (!ns)
		return -1;
	t0 = now_ns();
	err = oplib_run(lib, (struct npu_op_desc *)op->desc, op->size, a->mem,
			a->size, NULL);
	op->first_ns = now_ns() - t0;
	for (i = 0; !err && i < runs; i++) {
		t0 = now_ns();
		err = oplib_run(lib, (struct npu_op_desc *)op->desc, op->size,
				a->mem, a->size, NULL);
		ns[i] = now_ns() - t0;
	}
	if (err) {
		fprintf(stderr, "oplib-bench: %s failed: ring error %d\n",
			op->name, err);
		free(ns);
		return -1;
	}
	qsort(ns, runs, sizeof(*ns), cmp_u64);
	op->median_ns = ns[runs / 2];
	op->min_ns = ns[0];
	free(ns);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: oplib-bench [--engines N] [--threads N] [--runs N]\n"
		   "defaults: --engines 2 (threads: this host's CPUs / engines), "
		   "--runs 20\n");
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "engines", required_argument, NULL, 'e' },
		{ "threads", required_argument, NULL, 't' },
		{ "runs", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int engines = 2, threads = 0, runs = 20, i;
	void (*const build[])(struct arena *, struct bench_op *) = {
		build_conv, build_matmul, build_add,
	};
	struct bench_op ops[3];
	struct oplib_config cfg = { 0 };
	struct arena a = { .size = 256 * MIB };
	struct oplib *lib;
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
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!engines || !runs || optind < argc) {
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
	for (i = 0; i < 3; i++) {
		build[i](&a, &ops[i]);
		if (measure(lib, &a, &ops[i], runs))
			return 1;
	}

	printf("oplib-bench: %u OpenMP threads per operator, %u runs\n",
	       cfg.threads, runs);
	printf("%-30s %14s %14s %14s\n", "operator", "first ns", "ns/run",
	       "min ns");
	for (i = 0; i < 3; i++)
		printf("%-30s %14llu %14llu %14llu\n", ops[i].name,
		       (unsigned long long)ops[i].first_ns,
		       (unsigned long long)ops[i].median_ns,
		       (unsigned long long)ops[i].min_ns);
	printf("{\"threads\": %u, \"runs\": %u", cfg.threads, runs);
	for (i = 0; i < 3; i++)
		printf(", \"%s\": {\"first_ns\": %llu, \"ns_per_run\": %llu}",
		       ops[i].name, (unsigned long long)ops[i].first_ns,
		       (unsigned long long)ops[i].median_ns);
	printf("}\n");
	oplib_destroy(lib);
	free(a.mem);
	return 0;
}
