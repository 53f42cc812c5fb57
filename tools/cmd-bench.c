// SPDX-License-Identifier: MIT
/*
 * cmd-bench: the card's cost per command (make bench, issue 31). A chain
 * of CHAIN tiny commands of one kind is queued behind a gate (an
 * aclrtValueWait on a device word), between two event records, then the
 * gate opens from another stream and the card drains the chain at once.
 * The card's time per command is the time between the two records (the
 * card's own clock, aclrtEventElapsedTime) over CHAIN, so the host's
 * submission, done before the gate opens, is not in it; the host's time
 * from opening the gate to aclrtSynchronizeStream's return is printed
 * too. Kinds: 64-byte aclrtMemcpyAsync from aclrtMallocHost memory, event
 * records, and aclnn Adds of 16 floats (z = z + y). Each figure is the
 * median of ROUNDS chains, next to the same work done by the CPU that
 * runs this (a memcpy of 64 bytes, a store, the Add's loop) as a
 * reference: what the command does, without the card. The Adds'
 * result is checked by arithmetic.
 *
 *   cmd-bench [--rounds N]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_add.h"
#include "bench_clock.h"

/*
 * Each call is three commands on the stream's ring (the work and the
 * driver's two fences) and a gated chain must fit the ring's 1024
 * entries, or the submitter would wait for room that only the opened
 * gate makes: so chains of 250, twice per round for 500 commands.
 */
#define CHAIN	250
#define HALVES	2
#define ELEMS	16
/* goals of issue 31, us per command on the card */
#define GOAL_COPY_US	2.0
#define GOAL_OP_US	5.0

#define CHECK(call)								\
	do {									\
		long r_ = (long)(call);						\
		if (r_) {							\
			const char *m_ = aclGetRecentErrMsg();			\
			fprintf(stderr, "cmd-bench: %s failed: %ld (%s)\n", #call, r_, \
				m_ ? m_ : "");					\
			exit(1);						\
		}								\
	} while (0)

enum kind { COPY, RECORD, ADD };

struct bench {
	aclrtStream s, opener;
	aclrtEvent start, end, tick;
	uint64_t *gate;		/* device word the chain waits on */
	uint64_t gate_value;
	void *dst, *src;	/* device and pinned host buffers of 64 bytes */
	void *z, *y;
	aclTensor *tz, *ty;
	aclScalar *one;
	aclOpExecutor *x;	/* z = z + y, repeatable */
	long adds;
};

static aclTensor *vec(void *dev)
{
	int64_t n = ELEMS;

	return aclCreateTensor(&n, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, &n, 1, dev);
}

static void setup(struct bench *b)
{
	float ones[ELEMS], v = 1.0f;
	uint64_t ws = 0;

	for (int i = 0; i < ELEMS; i++)
		ones[i] = 1.0f;
	CHECK(aclInit(NULL));
	CHECK(aclrtSetDevice(0));
	CHECK(aclrtCreateStream(&b->s));
	CHECK(aclrtCreateStream(&b->opener));
	CHECK(aclrtCreateEvent(&b->start));
	CHECK(aclrtCreateEvent(&b->end));
	CHECK(aclrtCreateEvent(&b->tick));
	CHECK(aclrtMalloc((void **)&b->gate, 8, ACL_MEM_MALLOC_HUGE_FIRST));
	CHECK(aclrtMemset(b->gate, 8, 0, 8));
	CHECK(aclrtMalloc(&b->dst, 64, ACL_MEM_MALLOC_HUGE_FIRST));
	CHECK(aclrtMallocHost(&b->src, 64));
	memset(b->src, 7, 64);
	CHECK(aclrtMalloc(&b->z, sizeof(ones), ACL_MEM_MALLOC_HUGE_FIRST));
	CHECK(aclrtMalloc(&b->y, sizeof(ones), ACL_MEM_MALLOC_HUGE_FIRST));
	CHECK(aclrtMemset(b->z, sizeof(ones), 0, sizeof(ones)));
	CHECK(aclrtMemcpy(b->y, sizeof(ones), ones, sizeof(ones), ACL_MEMCPY_HOST_TO_DEVICE));
	b->tz = vec(b->z);
	b->ty = vec(b->y);
	b->one = aclCreateScalar(&v, ACL_FLOAT);
	CHECK(aclnnAddGetWorkspaceSize(b->tz, b->ty, b->one, b->tz, &ws, &b->x));
	if (ws) {
		fprintf(stderr, "cmd-bench: Add asks for a workspace (%llu bytes)\n",
			(unsigned long long)ws);
		exit(1);
	}
	CHECK(aclSetAclOpExecutorRepeatable(b->x));
}

static void queue_one(struct bench *b, enum kind k)
{
	switch (k) {
	case COPY:
		CHECK(aclrtMemcpyAsync(b->dst, 64, b->src, 64, ACL_MEMCPY_HOST_TO_DEVICE, b->s));
		break;
	case RECORD:
		CHECK(aclrtRecordEvent(b->tick, b->s));
		break;
	case ADD:
		CHECK(aclnnAdd(NULL, 0, b->x, b->s));
		b->adds++;
		break;
	}
}

/* One chain: the card's ns; *host_ns += the host's, gate to sync. */
static uint64_t chain(struct bench *b, enum kind k, uint64_t *host_ns)
{
	uint64_t t0;
	float ms;

	b->gate_value++;
	CHECK(aclrtValueWait(b->gate, b->gate_value, ACL_STREAM_WAIT_VALUE_GEQ, b->s));
	CHECK(aclrtRecordEvent(b->start, b->s));
	for (int i = 0; i < CHAIN; i++)
		queue_one(b, k);
	CHECK(aclrtRecordEvent(b->end, b->s));
	t0 = now_ns();
	CHECK(aclrtValueWrite(b->gate, b->gate_value, 0, b->opener));
	CHECK(aclrtSynchronizeStream(b->s));
	*host_ns += now_ns() - t0;
	CHECK(aclrtEventElapsedTime(&ms, b->start, b->end));
	return (uint64_t)((double)ms * 1e6);
}

/* A round: HALVES chains, ns per command on the card and on the host. */
static uint64_t round_ns(struct bench *b, enum kind k, uint64_t *host_ns)
{
	uint64_t card = 0;

	*host_ns = 0;
	for (int i = 0; i < HALVES; i++)
		card += chain(b, k, host_ns);
	*host_ns /= CHAIN * HALVES;
	return card / (CHAIN * HALVES);
}

/* What the command does, done by this CPU: ns per command. */
static uint64_t on_cpu(struct bench *b, enum kind k)
{
	static uint64_t word;
	static float z[ELEMS], y[ELEMS];
	char dst[64];
	uint64_t t0 = now_ns();

	for (int i = 0; i < CHAIN; i++) {
		switch (k) {
		case COPY:
			memcpy(dst, b->src, 64);
			__asm__ volatile("" : : "r"(dst) : "memory");
			break;
		case RECORD:
			__atomic_store_n(&word, (uint64_t)i, __ATOMIC_RELEASE);
			break;
		case ADD:
			for (int j = 0; j < ELEMS; j++)
				z[j] += y[j];
			__asm__ volatile("" : : "r"(z) : "memory");
			break;
		}
	}
	return (now_ns() - t0) / CHAIN;
}

static void check_adds(struct bench *b)
{
	float z[ELEMS];

	CHECK(aclrtMemcpy(z, sizeof(z), b->z, sizeof(z), ACL_MEMCPY_DEVICE_TO_HOST));
	for (int i = 0; i < ELEMS; i++) {
		if (z[i] != (float)b->adds) {
			fprintf(stderr, "cmd-bench: z[%d] = %g after %ld Adds\n", i, z[i], b->adds);
			exit(1);
		}
	}
}

int main(int argc, char **argv)
{
	static const char *const names[] = {
		[COPY] = "aclrtMemcpyAsync 64 B", [RECORD] = "aclrtRecordEvent",
		[ADD] = "aclnnAdd 16 floats",
	};
	static const char *const refs[] = {
		[COPY] = "memcpy 64 B", [RECORD] = "a store", [ADD] = "the add's loop",
	};
	static const double goals[] = {
		[COPY] = GOAL_COPY_US, [RECORD] = GOAL_COPY_US, [ADD] = GOAL_OP_US,
	};
	uint64_t *card, *host, *ref;
	unsigned int rounds = 9;
	struct bench b = { 0 };
	double us[3];

	if (argc == 3 && !strcmp(argv[1], "--rounds"))
		rounds = (unsigned int)atoi(argv[2]);
	if (!rounds) {
		fprintf(stderr, "usage: cmd-bench [--rounds N]\n");
		return 2;
	}
	card = calloc(rounds, sizeof(*card));
	host = calloc(rounds, sizeof(*host));
	ref = calloc(rounds, sizeof(*ref));
	if (!card || !host || !ref)
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	setup(&b);
	printf("cmd-bench: %d commands a round, in chains of %d drained at once; us per command,"
	       " median of %u rounds\n", CHAIN * HALVES, CHAIN, rounds);
	printf("%-24s %10s %10s | %-16s %8s | %s\n", "command", "card", "host", "reference",
	       "us", "goal (card)");
	for (int k = COPY; k <= ADD; k++) {
		round_ns(&b, k, &host[0]);	/* warm: rings, primitives, descriptors */
		for (unsigned int i = 0; i < rounds; i++) {
			ref[i] = on_cpu(&b, k);
			card[i] = round_ns(&b, k, &host[i]);
		}
		us[k] = (double)median_u64(card, rounds) / 1e3;
		printf("%-24s %10.2f %10.2f | %-16s %8.3f | <= %.0f\n", names[k], us[k],
		       (double)median_u64(host, rounds) / 1e3, refs[k],
		       (double)median_u64(ref, rounds) / 1e3, goals[k]);
	}
	check_adds(&b);
	printf("  results checked: z = %ld\n", b.adds);
	printf("{\"tool\": \"cmd-bench\", \"copy_us\": %.3f, \"record_us\": %.3f, \"add_us\": %.3f}\n",
	       us[COPY], us[RECORD], us[ADD]);
	aclDestroyAclOpExecutor(b.x);
	aclDestroyTensor(b.tz);
	aclDestroyTensor(b.ty);
	aclDestroyScalar(b.one);
	aclrtFree(b.z);
	aclrtFree(b.y);
	aclrtFree(b.dst);
	aclrtFreeHost(b.src);
	aclrtFree(b.gate);
	aclrtDestroyEvent(b.start);
	aclrtDestroyEvent(b.end);
	aclrtDestroyEvent(b.tick);
	aclrtDestroyStream(b.s);
	aclrtDestroyStream(b.opener);
	aclrtResetDevice(0);
	aclFinalize();
	free(card);
	free(host);
	free(ref);
	return 0;
}
