/* SPDX-License-Identifier: MIT */
/*
 * Two ranks, one process each, on cards 0 and 1: forked by the test
 * before either touches ACL, joined by the root info rank 0 makes (it goes
 * to rank 1 through a pipe). Each runs fn and exits with the number of
 * its failed checks; the test waits for both.
 */
#ifndef HCCL_RANKS_H
#define HCCL_RANKS_H

#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl.h"
#include "hccl/hccl.h"

#define NRANKS	2

struct rank_ctx {
	uint32_t rank;
	HcclComm comm;
	aclrtStream stream;
	int to_parent;		/* a pipe the rank may say things on */
	int fails;
};

#define CHECK(ctx, cond, ...) do {						\
	if (!(cond)) {								\
		(ctx)->fails++;							\
		fprintf(stderr, "rank %u: %s:%d: %s: ", (ctx)->rank, __FILE__,	\
			__LINE__, #cond);					\
		fprintf(stderr, __VA_ARGS__);					\
		fputc('\n', stderr);						\
	}									\
} while (0)

#define CHECK_OK(ctx, call) do {						\
	int __r = (int)(call);							\
	CHECK(ctx, __r == 0, "returned %d: %s", __r, aclGetRecentErrMsg());	\
} while (0)

typedef void (*rank_fn)(struct rank_ctx *c);

static inline int rank_main(uint32_t rank, int root_fd_in, int root_fd_out, int to_parent,
			    rank_fn fn)
{
	struct rank_ctx c = { .rank = rank, .to_parent = to_parent };
	HcclRootInfo root;

	if (aclInit(NULL) || aclrtSetDevice((int32_t)rank) || aclrtCreateStream(&c.stream))
		return 100;
	/* a rank table in the environment: the ranks meet by it instead */
	const char *table = getenv("HCCL_TEST_RANK_TABLE");

	if (table) {
		if (HcclCommInitClusterInfo(table, rank, &c.comm)) {
			fprintf(stderr, "rank %u: init: %s\n", rank, aclGetRecentErrMsg());
			return 104;
		}
	} else if (rank == 0) {
		if (HcclGetRootInfo(&root) ||
		    write(root_fd_out, &root, sizeof(root)) != sizeof(root))
			return 101;
	} else if (read(root_fd_in, &root, sizeof(root)) != sizeof(root)) {
		return 102;
	}
	if (!table && HcclCommInitRootInfo(NRANKS, &root, rank, &c.comm)) {
		fprintf(stderr, "rank %u: init: %s\n", rank, aclGetRecentErrMsg());
		return 103;
	}
	fn(&c);
	if (c.comm && HcclCommDestroy(c.comm))
		c.fails++;
	aclrtDestroyStream(c.stream);
	aclrtResetDevice((int32_t)rank);
	aclFinalize();
	return c.fails > 99 ? 99 : c.fails;
}

struct ranks {
	pid_t pid[NRANKS];
	int from[NRANKS];	/* what each rank says on its pipe */
};

/* Forks both ranks; fns[r] runs in rank r (the same fn for both, often). */
static inline void ranks_start(struct ranks *rs, rank_fn f0, rank_fn f1)
{
	int root[2], say[NRANKS][2];

	if (pipe(root))
		abort();
	for (uint32_t r = 0; r < NRANKS; r++) {
		if (pipe(say[r]))
			abort();
		rs->pid[r] = fork();
		if (!rs->pid[r]) {
			close(say[r][0]);
			_exit(rank_main(r, root[0], root[1], say[r][1], r ? f1 : f0));
		}
		close(say[r][1]);
		rs->from[r] = say[r][0];
	}
	close(root[0]);
	close(root[1]);
}

/* Each rank's exit status (its failures, or 128 + a signal). */
static inline void ranks_wait(struct ranks *rs, int *status)
{
	for (uint32_t r = 0; r < NRANKS; r++) {
		int st = 0;

		status[r] = -1;
		if (rs->pid[r] > 0 && waitpid(rs->pid[r], &st, 0) == rs->pid[r])
			status[r] = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		close(rs->from[r]);
	}
}

static inline void run_ranks(struct __test_metadata *_metadata, rank_fn fn)
{
	struct ranks rs;
	int st[NRANKS];

	ranks_start(&rs, fn, fn);
	ranks_wait(&rs, st);
	EXPECT_EQ(0, st[0]);
	EXPECT_EQ(0, st[1]);
}

#endif
