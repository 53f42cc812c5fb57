// SPDX-License-Identifier: MIT
/*
 * hccl-bench: the bandwidth of libhccl's collectives as nccl-tests states
 * it, next to a limit measured in the same run.
 *
 * For AllReduce (fp32 sum), AllGather, ReduceScatter (fp32 sum) and
 * Broadcast (from the last rank) of 1, 8 and 64 MiB: one warm-up, then
 * the median of --runs timed calls, each started after a barrier and
 * ended by aclrtSynchronizeStream, on rank 0. size is nccl-tests' "size": the
 * buffer of count elements (AllReduce, Broadcast), the gathered output
 * (AllGather) or the scattered input (ReduceScatter); algbw = size / time;
 * busbw = algbw x 2(n-1)/n (AllReduce), x (n-1)/n (AllGather,
 * ReduceScatter), x 1 (Broadcast). Each row gives busbw / limit.
 *
 * The limit, --limit FILE (without it the rows have none): either one figure in GB/s for every size
 * (peer-bench --limit-out's host memcpy between two cards' memory files,
 * the limit within a guest) or lines "BYTES GB/s" (tools/hccl-bench-guests
 * writes ucx_perftest tag_bw's between the guests per message size);
 * --limit-name says which in the table.
 *
 * One process per rank. Started with RANK_ID, RANK_SIZE, DEVICE_ID and
 * HCCL_ROOT_ADDR (tools/hccl-launch, across guests) it is that rank;
 * without them it forks one rank per card for cards 0 and 1, as
 * tests/hccl does. Rank 0 hands its root info to the others over a socket
 * at HCCL_ROOT_ADDR (tests/hccl-hosts/rank_net.h) and prints the table,
 * then the figures as one JSON line.
 * Run: make bench-hccl.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <acl/acl.h>
#include <hccl/hccl.h>
#include "../tests/hccl-hosts/rank_net.h"
#include "bench_clock.h"

#define FORKED_RANKS	2
#define FORKED_ROOT	"127.0.0.1:29411"
#define MAX_RANKS	16
#define MAX_RUNS	64
#define MAX_LIMITS	16

static const uint64_t sizes[] = { 1u << 20, 8u << 20, 64u << 20 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

enum coll { ALLREDUCE, ALLGATHER, REDUCESCATTER, BROADCAST, NCOLLS };

static const char *const coll_names[NCOLLS] = {
	[ALLREDUCE] = "allreduce", [ALLGATHER] = "allgather",
	[REDUCESCATTER] = "reducescatter", [BROADCAST] = "broadcast",
};

struct limits {
	const char *name;
	unsigned int n;
	uint64_t bytes[MAX_LIMITS];	/* 0: every size */
	double gbs[MAX_LIMITS];
};

struct rank {
	uint32_t id, n;
	int32_t dev;
	HcclComm comm;
	aclrtStream s;
	void *in, *out;		/* the largest size each */
};

struct result {
	enum coll coll;
	uint64_t size;
	double time_s, algbw, busbw, limit;
};

static void die(const char *what)
{
	fprintf(stderr, "hccl-bench: %s\n", what);
	exit(1);
}

static void check_acl(aclError r, const char *what)
{
	const char *m;

	if (r == ACL_SUCCESS)
		return;
	m = aclGetRecentErrMsg();
	fprintf(stderr, "hccl-bench: %s failed: %d (%s)\n", what, r, m ? m : "");
	exit(1);
}

static void check_hccl(HcclResult r, const char *what)
{
	if (r == HCCL_SUCCESS)
		return;
	fprintf(stderr, "hccl-bench: %s failed: %s (%s)\n", what, HcclGetErrorString(r),
		aclGetRecentErrMsg());
	exit(1);
}

/* nccl-tests' factor from algorithm to bus bandwidth. */
static double bus_factor(enum coll c, uint32_t n)
{
	switch (c) {
	case ALLREDUCE:
		return 2.0 * (n - 1) / n;
	case ALLGATHER:
	case REDUCESCATTER:
		return (double)(n - 1) / n;
	default:
		return 1.0;
	}
}

static void read_limits(const char *path, struct limits *l)
{
	FILE *f = fopen(path, "r");
	char line[128];

	if (!f)
		die("cannot open the --limit file");
	l->n = 0;
	while (l->n < MAX_LIMITS && fgets(line, sizeof(line), f)) {
		double a, b;

		switch (sscanf(line, "%lf %lf", &a, &b)) {
		case 2:		/* BYTES GB/s */
			l->bytes[l->n] = (uint64_t)a;
			l->gbs[l->n++] = b;
			break;
		case 1:		/* GB/s for every size */
			l->bytes[l->n] = 0;
			l->gbs[l->n++] = a;
			break;
		default:
			break;
		}
	}
	fclose(f);
	if (!l->n)
		die("no figure in the --limit file");
}

/* The limit for messages of size bytes; 0 when the file has none. */
static double limit_for(const struct limits *l, uint64_t size)
{
	for (unsigned int i = 0; i < l->n; i++)
		if (!l->bytes[i] || l->bytes[i] == size)
			return l->gbs[i];
	return 0;
}

/* Rank 0 makes the root info and hands it to every other rank. */
static void share_root_info(const struct rank *r, const char *addr, HcclRootInfo *root)
{
	int lfd, fd;

	if (r->id) {
		fd = connect_root(addr);
		if (read_all(fd, root, sizeof(*root)))
			die("the root info did not arrive");
		close(fd);
		return;
	}
	check_hccl(HcclGetRootInfo(root), "HcclGetRootInfo");
	lfd = listen_root(addr);
	for (uint32_t i = 1; i < r->n; i++) {
		fd = accept(lfd, NULL, NULL);
		if (fd < 0 || write_all(fd, root, sizeof(*root)))
			die("handing out the root info failed");
		close(fd);
	}
	close(lfd);
}

static void issue(struct rank *r, enum coll c, uint64_t size)
{
	uint64_t count = size / sizeof(float), part = count / r->n;
	HcclResult e;

	switch (c) {
	case ALLREDUCE:
		e = HcclAllReduce(r->in, r->out, count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM,
				  r->comm, r->s);
		break;
	case ALLGATHER:
		e = HcclAllGather(r->in, r->out, part, HCCL_DATA_TYPE_FP32, r->comm, r->s);
		break;
	case REDUCESCATTER:
		e = HcclReduceScatter(r->in, r->out, part, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM,
				      r->comm, r->s);
		break;
	default:
		/* rank 0 times a receiver: the root is done once it has sent */
		e = HcclBroadcast(r->in, count, HCCL_DATA_TYPE_FP32, r->n - 1, r->comm, r->s);
		break;
	}
	check_hccl(e, coll_names[c]);
}

/* Seconds of one call, started together on every rank. */
static double timed(struct rank *r, enum coll c, uint64_t size)
{
	uint64_t t;

	check_hccl(HcclBarrier(r->comm, r->s), "HcclBarrier");
	check_acl(aclrtSynchronizeStream(r->s), "aclrtSynchronizeStream");
	t = now_ns();
	issue(r, c, size);
	check_acl(aclrtSynchronizeStream(r->s), "aclrtSynchronizeStream");
	return (now_ns() - t) / 1e9;
}

static void measure(struct rank *r, enum coll c, uint64_t size, unsigned int runs,
		    const struct limits *l, struct result *res)
{
	uint64_t ns[MAX_RUNS];

	timed(r, c, size);
	for (unsigned int i = 0; i < runs; i++)
		ns[i] = (uint64_t)(timed(r, c, size) * 1e9);
	res->coll = c;
	res->size = size;
	res->time_s = median_u64(ns, runs) / 1e9;
	res->algbw = size / res->time_s / 1e9;
	res->busbw = res->algbw * bus_factor(c, r->n);
	res->limit = limit_for(l, size);
}

static void print_row(const struct result *x, const char *limit_name)
{
	printf("%-14s %3llu MiB %10.2f ms %10.5f %10.5f | %-20s %10.5f | x%.3f\n",
	       coll_names[x->coll], (unsigned long long)(x->size >> 20), x->time_s * 1e3, x->algbw,
	       x->busbw, limit_name, x->limit, x->limit > 0 ? x->busbw / x->limit : 0);
	fflush(stdout);
}

static void print_json(const struct result *res, unsigned int n, const struct rank *r,
		       const char *limit_name, double seconds)
{
	printf("{\"tool\": \"hccl-bench\", \"ranks\": %u, \"seconds\": %.1f, \"results\": [",
	       r->n, seconds);
	for (unsigned int i = 0; i < n; i++) {
		const struct result *x = &res[i];

		printf("%s{\"name\": \"%s %llu MiB busbw\", \"value\": %.6f, \"unit\": \"GB/s\", "
		       "\"algbw\": %.6f, \"time_ms\": %.3f, \"reference\": \"%s\", "
		       "\"reference_value\": %.6f, \"ratio\": %.4f}", i ? ", " : "",
		       coll_names[x->coll], (unsigned long long)(x->size >> 20), x->busbw,
		       x->algbw, x->time_s * 1e3, limit_name, x->limit,
		       x->limit > 0 ? x->busbw / x->limit : 0);
	}
	printf("]}\n");
}

static void setup(struct rank *r, const char *addr)
{
	uint64_t max = sizes[NSIZES - 1];
	HcclRootInfo root;

	check_acl(aclInit(NULL), "aclInit");
	check_acl(aclrtSetDevice(r->dev), "aclrtSetDevice");
	check_acl(aclrtCreateStream(&r->s), "aclrtCreateStream");
	share_root_info(r, addr, &root);
	check_hccl(HcclCommInitRootInfo(r->n, &root, r->id, &r->comm), "HcclCommInitRootInfo");
	check_acl(aclrtMalloc(&r->in, max, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
	check_acl(aclrtMalloc(&r->out, max, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
	/* zeros: the sums stay zero however many runs add them up */
	check_acl(aclrtMemset(r->in, max, 0, max), "aclrtMemset");
}

static void teardown(struct rank *r)
{
	check_hccl(HcclCommDestroy(r->comm), "HcclCommDestroy");
	check_acl(aclrtFree(r->in), "aclrtFree");
	check_acl(aclrtFree(r->out), "aclrtFree");
	check_acl(aclrtDestroyStream(r->s), "aclrtDestroyStream");
	check_acl(aclrtResetDevice(r->dev), "aclrtResetDevice");
	aclFinalize();
}

/* --size MIB: that size alone instead of sizes[] */
static uint64_t only_size;

static int run_rank(struct rank *r, const char *addr, unsigned int runs, const struct limits *l)
{
	struct result res[NCOLLS * NSIZES];
	uint64_t start = now_ns();
	unsigned int n = 0;

	setup(r, addr);
	if (!r->id)
		printf("%-14s %7s %13s %10s %10s | %-20s %10s | busbw/limit\n", "collective",
		       "size", "time", "algbw GB/s", "busbw GB/s", "limit", "GB/s");
	for (unsigned int k = 0; k < NSIZES; k++)
		for (int c = 0; c < NCOLLS && (!only_size || !k); c++, n++) {
			measure(r, c, only_size ? only_size : sizes[k], runs, l, &res[n]);
			if (!r->id)
				print_row(&res[n], l->name);
		}
	if (!r->id)
		print_json(res, n, r, l->name, (now_ns() - start) / 1e9);
	teardown(r);
	return 0;
}

/* Cards 0 and 1 of this host, a process each. */
static int fork_ranks(unsigned int runs, const struct limits *l)
{
	pid_t pid[FORKED_RANKS];
	int failed = 0;

	for (uint32_t i = 0; i < FORKED_RANKS; i++) {
		struct rank r = { .id = i, .n = FORKED_RANKS, .dev = (int32_t)i };

		pid[i] = fork();
		if (pid[i] < 0)
			die("fork failed");
		if (!pid[i])
			_exit(run_rank(&r, FORKED_ROOT, runs, l));
	}
	for (uint32_t i = 0; i < FORKED_RANKS; i++) {
		int st = 0;

		if (waitpid(pid[i], &st, 0) != pid[i] || !WIFEXITED(st) || WEXITSTATUS(st))
			failed = 1;
	}
	return failed;
}

static uint32_t env_number(const char *name, uint32_t otherwise)
{
	const char *v = getenv(name);

	return v ? (uint32_t)strtoul(v, NULL, 10) : otherwise;
}

static int usage(void)
{
	fprintf(stderr, "usage: hccl-bench [--limit FILE] [--limit-name NAME] [--runs N (1..%d)] "
		"[--size MIB (1..64)]\n"
		"  (with RANK_ID, RANK_SIZE, DEVICE_ID, HCCL_ROOT_ADDR: that rank; "
		"without: ranks on cards 0 and 1)\n", MAX_RUNS);
	return 2;
}

int main(int argc, char **argv)
{
	struct limits l = { .name = "host memcpy memfd" };
	const char *limit_file = NULL, *addr = getenv("HCCL_ROOT_ADDR");
	unsigned int runs = 5;
	struct rank r;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--limit"))
			limit_file = argv[i + 1];
		else if (!strcmp(argv[i], "--limit-name"))
			l.name = argv[i + 1];
		else if (!strcmp(argv[i], "--runs"))
			runs = (unsigned int)strtoul(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--size"))
			only_size = strtoull(argv[i + 1], NULL, 10) << 20;
		else
			return usage();
	}
	if (argc % 2 == 0 || !runs || runs > MAX_RUNS || only_size > sizes[NSIZES - 1])
		return usage();
	if (limit_file)
		read_limits(limit_file, &l);
	else
		l.name = "none";
	if (!getenv("RANK_ID"))
		return fork_ranks(runs, &l);
	r = (struct rank){ .id = env_number("RANK_ID", MAX_RANKS),
			   .n = env_number("RANK_SIZE", 0),
			   .dev = (int32_t)env_number("DEVICE_ID", 0) };
	if (r.n < 2 || r.n > MAX_RANKS || r.id >= r.n || !addr)
		die("set RANK_ID, RANK_SIZE (2..16), DEVICE_ID and HCCL_ROOT_ADDR (address:port)");
	return run_rank(&r, addr, runs, &l);
}
