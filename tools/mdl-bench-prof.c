// SPDX-License-Identifier: GPL-2.0
/*
 * mdl-bench-prof: a .om's operators run natively on host memory through the
 * card's operator library (card/oplib), one at a time, each
 * timed: where a model's time goes on the card, without the guest, the
 * driver or the rings.  The same descriptors and primitives as the card
 * model; device memory is one host buffer holding the weights, the
 * workspace, the inputs and the outputs.
 *
 * One warm-up run builds every plan, then --runs timed runs.  Prints one
 * line per operator (median microseconds of wall time, then of the
 * process's CPU time: set beside a card's --trace, whose operators give
 * the thread's CPU time too), then the operators grouped by
 * kind and shape, then the sum and the wall time of a whole run.  With
 * --input the first input is read from a file (else seeded values), with
 * --ref the first output is compared with a file of float32.
 *
 * With --shm device memory is shared memory, as the card maps it.
 *
 * With --kinds F it also writes, for mdl-bench's breakdown, one line per
 * operator kind ("KIND COUNT NS", the sum of the medians of the process's
 * CPU time over the threads: what the operators take with the CPUs to
 * themselves, which a loaded host's wall time is not), then "reorder COUNT
 * NS" for the operators that change an activation's layout (op_reorders()),
 * then "all COUNT NS".
 *
 *   mdl-bench-prof [--runs N] [--threads N] [--input F] [--ref F] [--shm]
 *                  [--kinds F] MODEL.om
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "model_parse.h"
#include "bench_clock.h"
#include "oplib.h"

#define REGION_ALIGN	4096

#define NPU_OPERATOR(NAME, number, min, max, attrs, rsvd, act, name) \
	[NPU_OPERATOR_##NAME] = #name,
static const char *const kind_names[NPU_OPERATOR_LAST + 1] = {
	NPU_OPERATOR_TABLE
};
#undef NPU_OPERATOR

struct prof_op {
	uint64_t *ns;		/* one per timed run */
	uint64_t median_ns;
	uint64_t *cpu_ns;	/* the process's CPU time, one per timed run */
	uint64_t cpu_median_ns;
	unsigned int kind;
	bool reorders;
	char label[160];
};

static void *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	void *buf = NULL;
	long len;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 &&
	    fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc(len);
		if (buf && fread(buf, 1, len, f) != (size_t)len) {
			free(buf);
			buf = NULL;
		}
		*size = len;
	}
	fclose(f);
	return buf;
}

/* "64x56x56" for (N, C, H, W) with N left out; a 16c suffix when blocked. */
static int dims_str(char *s, size_t n, const struct npu_tensor_desc *t,
		    bool skip_n)
{
	unsigned int d, nd = le16toh(t->ndims);
	int len = 0;

	for (d = skip_n && nd == 4 ? 1 : 0; d < nd; d++)
		len += snprintf(s + len, n - len, "%s%llu", len ? "x" : "",
				(unsigned long long)le64toh(t->dims[d]));
	if (le16toh(t->format) == NPU_FORMAT_NCHW16C)
		len += snprintf(s + len, n - len, "/16c");
	else if (le16toh(t->format) == NPU_FORMAT_OIHW16I16O)
		len += snprintf(s + len, n - len, "/blk");
	return len;
}

/* What sets the operator's cost apart from others of its kind. */
static void op_label(const struct npu_op_desc *d, char *s, size_t n)
{
	unsigned int kind = le16toh(d->kind), ni = d->num_inputs;
	const struct npu_tensor_desc *t = d->tensors;
	char x[64], y[64];
	int len;

	dims_str(x, sizeof(x), &t[0], true);
	dims_str(y, sizeof(y), &t[ni], true);
	len = snprintf(s, n, "%s", kind_names[kind]);
	if (kind == NPU_OPERATOR_CONV2D) {
		const struct npu_attr_conv *c = &d->attrs.conv;

		len += snprintf(s + len, n - len, " %llux%llu/s%u%s",
				(unsigned long long)le64toh(t[1].dims[2]),
				(unsigned long long)le64toh(t[1].dims[3]),
				le32toh(c->strides[0]),
				le32toh(c->act.kind) ? "+act" : "");
	} else if (kind == NPU_OPERATOR_POOL2D) {
		const struct npu_attr_pool *p = &d->attrs.pool;

		len += snprintf(s + len, n - len, " %s %ux%u/s%u",
				le32toh(p->kind) ? "avg" : "max",
				le32toh(p->kernel[0]), le32toh(p->kernel[1]),
				le32toh(p->strides[0]));
	} else if (kind == NPU_OPERATOR_BINARY) {
		len += snprintf(s + len, n - len, " k%u%s",
				le32toh(d->attrs.binary.kind),
				le32toh(d->attrs.binary.act.kind) ? "+act" : "");
	}
	snprintf(s + len, n - len, " %s -> %s", x, y);
}

struct model {
	struct acl_om om;
	uint8_t *devmem;
	uint64_t devmem_size;
	uint64_t base[ACL_OM_MAX_REGIONS];
	uint8_t *desc;		/* one descriptor, addresses filled in */
};

static int model_place(struct model *m, const uint8_t *file, bool shm)
{
	unsigned int r, nregions = OM_REGION_INPUT0 + m->om.num_inputs +
				   m->om.num_outputs;
	uint64_t at = 0;

	for (r = 0; r < nregions; r++) {
		m->base[r] = at;
		at += (acl_om_region_size(&m->om, r) + REGION_ALIGN - 1) /
		      REGION_ALIGN * REGION_ALIGN;
	}
	m->devmem_size = at + REGION_ALIGN;
	if (shm) {
		/* shared memory, as the card maps its device memory */
		int fd = memfd_create("mdl-bench-prof", MFD_CLOEXEC);

		if (fd < 0 || ftruncate(fd, m->devmem_size))
			return -1;
		m->devmem = mmap(NULL, m->devmem_size, PROT_READ | PROT_WRITE, MAP_SHARED,
				 fd, 0);
		close(fd);
		if (m->devmem == MAP_FAILED)
			return -1;
	} else {
		m->devmem = aligned_alloc(REGION_ALIGN, m->devmem_size);
	}
	m->desc = aligned_alloc(64, OPLIB_DESC_MAX);
	if (!m->devmem || !m->desc)
		return -1;
	memset(m->devmem, 0, m->devmem_size);
	memcpy(m->devmem, file + m->om.weights_offset, m->om.weights_size);
	return 0;
}

static const struct npu_op_desc *fill_desc(struct model *m, const struct acl_om_op *op)
{
	struct npu_op_desc *d = (struct npu_op_desc *)m->desc;
	unsigned int t;

	memcpy(d, (uint8_t *)m->om.image + op->image_offset, op->desc_size);
	for (t = 0; t < op->num_tensors; t++)
		d->tensors[t].addr = htole64(m->base[op->region[t]] +
					     op->offset[t]);
	return d;
}

static const struct npu_op_desc *op_desc(struct model *m, unsigned int i)
{
	return fill_desc(m, &m->om.ops[i]);
}

/* What a loader does once: the card packs weights for its kernels. */
static int model_load_ops(struct oplib *lib, struct model *m)
{
	unsigned int i;

	for (i = 0; i < m->om.num_load_ops; i++) {
		const struct acl_om_op *op = &m->om.load_ops[i];
		int err = oplib_run(lib, fill_desc(m, op), op->desc_size, m->devmem,
				    m->devmem_size, NULL);

		if (err) {
			fprintf(stderr, "mdl-bench-prof: load op %u (%s): error %d\n", i,
				op->name, err);
			return -1;
		}
	}
	return 0;
}

/*
 * One whole run; each operator's time in ns[i] and the process's CPU time
 * in cpu[i], if ns.
 */
static int model_run(struct oplib *lib, struct model *m, uint64_t *ns, uint64_t *cpu)
{
	unsigned int i;

	for (i = 0; i < m->om.num_ops; i++) {
		const struct npu_op_desc *d = op_desc(m, i);
		uint64_t t0 = now_ns(), c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
		int err = oplib_run(lib, d, m->om.ops[i].desc_size, m->devmem,
				    m->devmem_size, NULL);

		if (ns) {
			ns[i] = now_ns() - t0;
			cpu[i] = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - c0;
		}
		if (err) {
			fprintf(stderr, "mdl-bench-prof: op %u (%s): error %d\n",
				i, m->om.ops[i].name, err);
			return -1;
		}
	}
	return 0;
}

static void seed_input(float *p, uint64_t count)
{
	uint32_t x = 2463534242u;

	while (count--) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		*p++ = (float)x / 2147483648.0f - 1.0f;
	}
}

static int load_input(struct model *m, const char *path)
{
	uint64_t size = m->om.io[0].size;
	uint8_t *dst = m->devmem + m->base[OM_REGION_INPUT0];
	size_t len = 0;
	void *buf;

	if (!path) {
		seed_input((float *)dst, size / sizeof(float));
		return 0;
	}
	buf = read_file(path, &len);
	if (!buf || len != size) {
		fprintf(stderr, "mdl-bench-prof: %s: not %llu bytes\n", path,
			(unsigned long long)size);
		free(buf);
		return -1;
	}
	memcpy(dst, buf, size);
	free(buf);
	return 0;
}

static void compare_output(struct model *m, const char *path)
{
	unsigned int out = OM_REGION_INPUT0 + m->om.num_inputs;
	const float *y = (const float *)(m->devmem + m->base[out]);
	uint64_t i, count = m->om.io[m->om.num_inputs].size / sizeof(float);
	size_t len = 0;
	float *ref = read_file(path, &len);
	double worst = 0;

	if (!ref || len != count * sizeof(float)) {
		fprintf(stderr, "mdl-bench-prof: %s: not the output's size\n",
			path);
		free(ref);
		return;
	}
	for (i = 0; i < count; i++) {
		double d = y[i] > ref[i] ? y[i] - ref[i] : ref[i] - y[i];

		if (d > worst)
			worst = d;
	}
	printf("max|diff| against %s: %.3g\n", path, worst);
	free(ref);
}

/*
 * An activation (4 dims) in another layout than the output's: the
 * library reorders it.  A convolution's weights and bias are read in
 * their own layouts.
 */
static bool op_reorders(const struct npu_op_desc *d)
{
	unsigned int kind = le16toh(d->kind), i;
	bool conv = kind == NPU_OPERATOR_CONV2D || kind == NPU_OPERATOR_CONV_TRANSPOSE2D;
	uint16_t out = le16toh(d->tensors[d->num_inputs].format);

	for (i = 0; i < d->num_inputs; i++)
		if (!(conv && (i == 1 || i == 2)) && le16toh(d->tensors[i].ndims) == 4 &&
		    le16toh(d->tensors[i].format) != out)
			return true;
	return false;
}

/* CPU time by kind, and in reorders, for mdl-bench (--kinds). */
static int write_kinds(const char *path, const struct prof_op *ops, unsigned int n,
		       unsigned int threads)
{
	uint64_t ns[NPU_OPERATOR_LAST + 1] = { 0 }, reorder_ns = 0, all_ns = 0;
	unsigned int count[NPU_OPERATOR_LAST + 1] = { 0 }, reorders = 0, k, i;
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	for (i = 0; i < n; i++) {
		uint64_t op_ns = ops[i].cpu_median_ns / threads;

		ns[ops[i].kind] += op_ns;
		count[ops[i].kind]++;
		all_ns += op_ns;
		if (ops[i].reorders) {
			reorder_ns += op_ns;
			reorders++;
		}
	}
	for (k = 0; k <= NPU_OPERATOR_LAST; k++)
		if (count[k])
			fprintf(f, "%s %u %llu\n", kind_names[k], count[k],
				(unsigned long long)ns[k]);
	fprintf(f, "reorder %u %llu\nall %u %llu\n", reorders,
		(unsigned long long)reorder_ns, n, (unsigned long long)all_ns);
	return fclose(f) ? -1 : 0;
}

/* Operators of one label together, the most expensive first. */
static void print_groups(struct prof_op *ops, unsigned int n, uint64_t total)
{
	bool *done = calloc(n, sizeof(*done));
	unsigned int i, j;

	printf("\n%10s %5s %6s  %s\n", "us", "count", "share", "operator");
	for (;;) {
		uint64_t best = 0, sum;
		unsigned int pick = n, count;

		for (i = 0; i < n; i++) {
			if (done[i])
				continue;
			for (sum = 0, j = i; j < n; j++)
				if (!done[j] && !strcmp(ops[j].label, ops[i].label))
					sum += ops[j].median_ns;
			if (pick == n || sum > best) {
				best = sum;
				pick = i;
			}
		}
		if (pick == n)
			break;
		for (count = 0, j = pick; j < n; j++)
			if (!done[j] && !strcmp(ops[j].label, ops[pick].label)) {
				done[j] = true;
				count++;
			}
		printf("%10.1f %5u %5.1f%%  %s\n", best / 1e3, count,
		       100.0 * best / total, ops[pick].label);
	}
	free(done);
}

static void usage(void)
{
	fprintf(stderr, "usage: mdl-bench-prof [--runs N] [--threads N] "
		"[--input F] [--ref F] [--quiet] [--shm] [--kinds F] MODEL.om\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "runs", required_argument, NULL, 'r' },
		{ "threads", required_argument, NULL, 't' },
		{ "input", required_argument, NULL, 'i' },
		{ "ref", required_argument, NULL, 'c' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "shm", no_argument, NULL, 's' },
		{ "kinds", required_argument, NULL, 'k' },
		{ NULL, 0, NULL, 0 },
	};
	struct oplib_config cfg = { .threads = 1 };
	const char *input = NULL, *ref = NULL, *kinds = NULL;
	unsigned int runs = 10, i, r;
	struct model m = { 0 };
	struct prof_op *ops;
	uint64_t *wall, *cpu, total = 0, wall_median;
	bool quiet = false, shm = false;
	char why[256];
	size_t size = 0;
	struct oplib *lib;
	uint8_t *file;
	int c;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			runs = strtoul(optarg, NULL, 0);
			break;
		case 't':
			cfg.threads = strtoul(optarg, NULL, 0);
			break;
		case 'i':
			input = optarg;
			break;
		case 'c':
			ref = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 's':
			shm = true;
			break;
		case 'k':
			kinds = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1 || !runs)
		usage();
	file = read_file(argv[optind], &size);
	if (!file || acl_om_parse(file, size, &m.om, why, sizeof(why))) {
		fprintf(stderr, "mdl-bench-prof: %s: %s\n", argv[optind],
			file ? why : "cannot read");
		return 1;
	}
	lib = oplib_create(&cfg);
	if (!lib || model_place(&m, file, shm) || load_input(&m, input) ||
	    model_load_ops(lib, &m))
		return 1;

	ops = calloc(m.om.num_ops, sizeof(*ops));
	wall = calloc(runs, sizeof(*wall));
	cpu = calloc(runs, sizeof(*cpu));
	for (i = 0; i < m.om.num_ops; i++) {
		const struct npu_op_desc *d = op_desc(&m, i);

		ops[i].ns = calloc(runs, sizeof(uint64_t));
		ops[i].cpu_ns = calloc(runs, sizeof(uint64_t));
		ops[i].kind = le16toh(d->kind);
		ops[i].reorders = op_reorders(d);
		op_label(d, ops[i].label, sizeof(ops[i].label));
	}
	if (model_run(lib, &m, NULL, NULL))
		return 1;
	if (ref)
		compare_output(&m, ref);
	{
		uint64_t *ns = calloc(m.om.num_ops, sizeof(*ns));
		uint64_t *op_cpu = calloc(m.om.num_ops, sizeof(*op_cpu));

		for (r = 0; r < runs; r++) {
			uint64_t t0 = now_ns(), c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);

			if (model_run(lib, &m, ns, op_cpu))
				return 1;
			wall[r] = now_ns() - t0;
			cpu[r] = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - c0;
			for (i = 0; i < m.om.num_ops; i++) {
				ops[i].ns[r] = ns[i];
				ops[i].cpu_ns[r] = op_cpu[i];
			}
		}
		free(ns);
		free(op_cpu);
	}
	for (i = 0; i < m.om.num_ops; i++) {
		ops[i].median_ns = median_u64(ops[i].ns, runs);
		ops[i].cpu_median_ns = median_u64(ops[i].cpu_ns, runs);
		total += ops[i].median_ns;
		if (!quiet)
			printf("%4u %9.1f %9.1f  %-40s %s\n", i,
			       ops[i].median_ns / 1e3, ops[i].cpu_median_ns / 1e3,
			       m.om.ops[i].name,
			       ops[i].label);
	}
	print_groups(ops, m.om.num_ops, total);
	if (kinds && write_kinds(kinds, ops, m.om.num_ops, cfg.threads ? cfg.threads : 1)) {
		fprintf(stderr, "mdl-bench-prof: cannot write %s\n", kinds);
		return 1;
	}
	/* sorted by median_u64() before the minimum is read */
	wall_median = median_u64(wall, runs);
	printf("\n%u operators: sum of medians %.2f ms, whole run median %.2f ms (min %.2f, cpu median %.2f), %u runs, %u thread(s)\n",
	       m.om.num_ops, total / 1e6, wall_median / 1e6, wall[0] / 1e6,
	       median_u64(cpu, runs) / 1e6, runs, cfg.threads);
	oplib_destroy(lib);
	return 0;
}
