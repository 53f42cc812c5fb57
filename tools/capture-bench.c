// SPDX-License-Identifier: MIT
/*
 * capture-bench: the host's cost of launching 100 small operators (aclnn
 * Adds of 16 floats, z = z + y) eagerly, one aclnnAdd each, against
 * capturing them once into a model runtime instance and replaying it with
 * one aclmdlRIExecuteAsync (make bench). Each figure is the host's time
 * per task, the wait for the card timed apart; the medians of ROUNDS
 * rounds. The goal (issue 27): a replay's host cost per task at most a
 * tenth of an eager launch's. The eager launch reuses one repeatable
 * executor, so its figure has no aclnnAddGetWorkspaceSize in it; the one
 * with it is printed too, as frameworks launch eagerly.
 *
 * At the end z must be the number of Adds run, which is checked.
 *
 *   capture-bench [--rounds N]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_add.h"
#include "bench_clock.h"

#define OPS	100
#define ELEMS	16

#define CHECK(call)								\
	do {									\
		long r_ = (long)(call);						\
		if (r_) {							\
			const char *m_ = aclGetRecentErrMsg();			\
			fprintf(stderr, "capture-bench: %s failed: %ld (%s)\n", #call, r_, \
				m_ ? m_ : "");					\
			exit(1);						\
		}								\
	} while (0)

struct bench {
	aclrtStream s;
	void *z, *y;
	aclTensor *tz, *ty;
	aclScalar *one;
	aclOpExecutor *x;	/* z = z + y, repeatable */
	long adds;		/* queued so far */
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
	CHECK(aclrtMalloc(&b->z, sizeof(ones), ACL_MEM_MALLOC_HUGE_FIRST));
	CHECK(aclrtMalloc(&b->y, sizeof(ones), ACL_MEM_MALLOC_HUGE_FIRST));
	CHECK(aclrtMemset(b->z, sizeof(ones), 0, sizeof(ones)));
	CHECK(aclrtMemcpy(b->y, sizeof(ones), ones, sizeof(ones), ACL_MEMCPY_HOST_TO_DEVICE));
	b->tz = vec(b->z);
	b->ty = vec(b->y);
	b->one = aclCreateScalar(&v, ACL_FLOAT);
	CHECK(aclnnAddGetWorkspaceSize(b->tz, b->ty, b->one, b->tz, &ws, &b->x));
	if (ws) {
		fprintf(stderr, "capture-bench: Add asks for a workspace (%llu bytes)\n",
			(unsigned long long)ws);
		exit(1);
	}
	CHECK(aclSetAclOpExecutorRepeatable(b->x));
}

/* Host ns per task of 100 eager launches; with_gws: each gets its executor anew. */
static uint64_t eager(struct bench *b, bool with_gws)
{
	uint64_t t0, t1, ws;
	aclOpExecutor *x;

	t0 = now_ns();
	for (int i = 0; i < OPS; i++) {
		if (with_gws) {
			CHECK(aclnnAddGetWorkspaceSize(b->tz, b->ty, b->one, b->tz, &ws, &x));
			CHECK(aclnnAdd(NULL, 0, x, b->s));
		} else {
			CHECK(aclnnAdd(NULL, 0, b->x, b->s));
		}
	}
	t1 = now_ns();
	b->adds += OPS;
	CHECK(aclrtSynchronizeStream(b->s));
	return (t1 - t0) / OPS;
}

static uint64_t replay(struct bench *b, aclmdlRI m)
{
	uint64_t t0, t1;

	t0 = now_ns();
	CHECK(aclmdlRIExecuteAsync(m, b->s));
	t1 = now_ns();
	b->adds += OPS;
	CHECK(aclrtSynchronizeStream(b->s));
	return (t1 - t0) / OPS;
}

static aclmdlRI capture(struct bench *b)
{
	uint64_t t0 = now_ns();
	aclmdlRI m;

	CHECK(aclmdlRICaptureBegin(b->s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	for (int i = 0; i < OPS; i++)
		CHECK(aclnnAdd(NULL, 0, b->x, b->s));
	CHECK(aclmdlRICaptureEnd(b->s, &m));
	printf("capture of %d Adds: %.1f us\n", OPS, (double)(now_ns() - t0) / 1e3);
	return m;
}

int main(int argc, char **argv)
{
	unsigned rounds = 50;
	uint64_t *ev, *eg, *rp;
	struct bench b = { 0 };
	float z[ELEMS];
	aclmdlRI m;
	double e, r;

	if (argc == 3 && !strcmp(argv[1], "--rounds"))
		rounds = (unsigned)atoi(argv[2]);
	if (!rounds) {
		fprintf(stderr, "usage: capture-bench [--rounds N]\n");
		return 2;
	}
	ev = calloc(rounds, sizeof(*ev));
	eg = calloc(rounds, sizeof(*eg));
	rp = calloc(rounds, sizeof(*rp));
	if (!ev || !eg || !rp)
		return 1;
	setup(&b);
	m = capture(&b);
	replay(&b, m);	/* the first replay makes the card program */
	for (unsigned i = 0; i < rounds; i++) {
		ev[i] = eager(&b, false);
		eg[i] = eager(&b, true);
		rp[i] = replay(&b, m);
	}
	CHECK(aclrtMemcpy(z, sizeof(z), b.z, sizeof(z), ACL_MEMCPY_DEVICE_TO_HOST));
	for (int i = 0; i < ELEMS; i++) {
		if (z[i] != (float)b.adds) {
			fprintf(stderr, "capture-bench: z[%d] = %g after %ld Adds\n", i, z[i], b.adds);
			return 1;
		}
	}
	e = (double)median_u64(ev, rounds) / 1e3;
	r = (double)median_u64(rp, rounds) / 1e3;
	printf("%d Adds of %d floats, host time per task, median of %u rounds:\n", OPS, ELEMS,
	       rounds);
	printf("  eager aclnnAdd (repeatable executor)     %8.2f us\n", e);
	printf("  eager GetWorkspaceSize + aclnnAdd        %8.2f us\n",
	       (double)median_u64(eg, rounds) / 1e3);
	printf("  aclmdlRIExecuteAsync / %d                %8.2f us\n", OPS, r);
	printf("  replay / eager                           %8.3f (goal <= 0.100)\n", r / e);
	printf("  results checked: z = %ld\n", b.adds);
	printf("{\"eager_us_per_task\": %.3f, \"replay_us_per_task\": %.3f, \"ratio\": %.4f}\n",
	       e, r, r / e);
	CHECK(aclmdlRIDestroy(m));
	aclDestroyAclOpExecutor(b.x);
	aclDestroyTensor(b.tz);
	aclDestroyTensor(b.ty);
	aclDestroyScalar(b.one);
	aclrtFree(b.z);
	aclrtFree(b.y);
	aclrtDestroyStream(b.s);
	aclrtResetDevice(0);
	aclFinalize();
	free(ev);
	free(eg);
	free(rp);
	return 0;
}
