// SPDX-License-Identifier: MIT
/*
 * A rank that fails while the others wait for it in a collective, across
 * hosts (guests of tools/vm-run --guests, ranks started by
 * tools/hccl-launch). The last rank is the victim: it joins the
 * communicator but never calls the AllReduce the others queue.
 *
 *   fail_test kill   the victim is killed (SIGKILL) once the others have
 *                    queued: theirs fails with HCCL_E_REMOTE, long before
 *                    HCCL_EXEC_TIMEOUT (60 s here).
 *   fail_test hang   the victim lives on without calling: the others' fails
 *                    with HCCL_E_TIMEOUT after HCCL_EXEC_TIMEOUT (5 s here).
 *
 * Either way every other rank's stream synchronization returns
 * ACL_ERROR_RT_STREAM_ABORT instead of hanging, HcclGetCommAsyncError
 * reports the error, a later call on the communicator returns it, and
 * HcclCommDestroy returns with the card's memory as it was before the
 * communicator (aclrtGetMemInfo). The victim runs in a child of the
 * process hccl-launch started, which checks that it died of SIGKILL.
 *
 * Test control goes over sockets of the test's (rank_net.h): every rank
 * keeps a connection to rank 0, which says when to kill.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <acl/acl.h>
#include <hccl/hccl.h>
#include <hccl/hccl_comm.h>
#include "rank_net.h"
#include "rank_tap.h"

#define MAX_RANKS 16
#define COUNT 4099

enum { QUEUED = 'q', FAILED = 'f', GO = 'g', KILL = 'k' };

struct ctx {
	uint32_t rank, n, dev;
	bool kill_mode;
	int fds[MAX_RANKS];	/* rank 0: to every other rank; others: fds[0], to rank 0 */
	HcclComm comm;
	aclrtStream s;
};


/* Seconds since the first call: what the log says of each step, not a check. */
static double seconds(void)
{
	static struct timespec t0;
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	if (!t0.tv_sec)
		t0 = t;
	return (double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) * 1e-9;
}

static uint32_t env_number(const char *name, uint32_t otherwise)
{
	const char *v = getenv(name);

	return v ? (uint32_t)strtoul(v, NULL, 10) : otherwise;
}

static void say(int fd, char what)
{
	if (write_all(fd, &what, 1))
		die("a control message did not go");
}

static void expect(int fd, char what)
{
	char got = 0;

	if (read_all(fd, &got, 1) || got != what)
		die("a control message did not come");
}

/* Rank 0 hands the root info out and keeps every connection. */
static void meet(struct ctx *c, const char *addr, HcclRootInfo *root)
{
	uint32_t i, who;
	int lfd, fd;

	if (c->rank) {
		c->fds[0] = connect_root(addr);
		if (write_all(c->fds[0], &c->rank, sizeof(c->rank)) ||
		    read_all(c->fds[0], root, sizeof(*root)))
			die("the root info did not arrive");
		return;
	}
	if (HcclGetRootInfo(root))
		die("HcclGetRootInfo failed");
	lfd = listen_root(addr);
	for (i = 1; i < c->n; i++) {
		fd = accept(lfd, NULL, NULL);
		if (fd < 0 || read_all(fd, &who, sizeof(who)) || !who || who >= c->n ||
		    write_all(fd, root, sizeof(*root)))
			die("handing out the root info failed");
		c->fds[who] = fd;
	}
	close(lfd);
}

static void join(struct ctx *c, const HcclRootInfo *root)
{
	check(HcclCommInitRootInfo(c->n, root, c->rank, &c->comm) == HCCL_SUCCESS,
	      "HcclCommInitRootInfo across hosts");
	if (tests_failed)
		die("no communicator");
}

/* The victim: waits to be told, then dies as a killed process does. */
static void victim(struct ctx *c, const HcclRootInfo *root)
{
	join(c, root);
	expect(c->fds[0], KILL);
	raise(SIGKILL);
}

/* Rank 0: every survivor has said `what`; the others: said it to rank 0. */
static void gather(struct ctx *c, char what)
{
	if (c->rank) {
		say(c->fds[0], what);
		return;
	}
	for (uint32_t r = 1; r + 1 < c->n; r++)
		expect(c->fds[r], what);
}

/* Rank 0 tells every survivor to go on; the others wait for it. */
static void release(struct ctx *c)
{
	if (c->rank) {
		expect(c->fds[0], GO);
		return;
	}
	for (uint32_t r = 1; r + 1 < c->n; r++)
		say(c->fds[r], GO);
}

static void survivor(struct ctx *c, const HcclRootInfo *root, size_t free_before)
{
	HcclResult want = c->kill_mode ? HCCL_E_REMOTE : HCCL_E_TIMEOUT, async = HCCL_SUCCESS;
	size_t free_after = 0, total = 0;
	void *in, *out;
	char what[160];
	aclError sync;

	if (aclrtCreateStream(&c->s) || aclrtMalloc(&in, COUNT * 4, ACL_MEM_MALLOC_HUGE_FIRST) ||
	    aclrtMalloc(&out, COUNT * 4, ACL_MEM_MALLOC_HUGE_FIRST))
		die("no stream or memory");
	join(c, root);
	check(HcclAllReduce(in, out, COUNT, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, c->comm, c->s) ==
	      HCCL_SUCCESS, "AllReduce is queued without the last rank");
	gather(c, QUEUED);
	if (!c->rank && c->kill_mode)
		say(c->fds[c->n - 1], KILL);
	seconds();
	sync = aclrtSynchronizeStream(c->s);
	printf("# the synchronization returned after %.1f s\n", seconds());
	snprintf(what, sizeof(what), "the stream's synchronization fails (%d): %s", sync,
		 aclGetRecentErrMsg());
	check(sync == ACL_ERROR_RT_STREAM_ABORT, what);
	check(HcclGetCommAsyncError(c->comm, &async) == HCCL_SUCCESS, "HcclGetCommAsyncError");
	snprintf(what, sizeof(what), "the async error is %s (%d): %s",
		 HcclGetErrorString(want), async, HcclGetErrorString(async));
	check(async == want, what);
	check(HcclBarrier(c->comm, c->s) == async, "a later call on the communicator fails the same");
	/* Nobody leaves before every survivor has seen its failure. */
	gather(c, FAILED);
	release(c);
	check(HcclCommDestroy(c->comm) == HCCL_SUCCESS, "HcclCommDestroy returns");
	printf("# HcclCommDestroy returned at %.1f s\n", seconds());
	aclrtFree(in);
	aclrtFree(out);
	aclrtDestroyStream(c->s);
	if (aclrtGetMemInfo(ACL_HBM_MEM, &free_after, &total))
		die("aclrtGetMemInfo failed");
	snprintf(what, sizeof(what), "the card's free memory is back to %zu bytes (%zu)",
		 free_before, free_after);
	check(free_after == free_before, what);
	if (!c->rank && !c->kill_mode)
		say(c->fds[c->n - 1], KILL);
}

static int run_rank(struct ctx *c, const char *addr)
{
	size_t free_before = 0, total = 0;
	HcclRootInfo root;

	setenv("HCCL_EXEC_TIMEOUT", c->kill_mode ? "60" : "5", 1);
	if (aclInit(NULL) || aclrtSetDevice((int32_t)c->dev) ||
	    aclrtGetMemInfo(ACL_HBM_MEM, &free_before, &total))
		die("the runtime did not start");
	meet(c, addr, &root);
	if (c->rank == c->n - 1)
		victim(c, &root);
	survivor(c, &root, free_before);
	aclrtResetDevice((int32_t)c->dev);
	aclFinalize();
	printf("# aclFinalize returned at %.1f s\n", seconds());
	return tests_failed ? 1 : 0;
}

/* The victim's rank runs in a child, whose death is the expected end. */
static int watch_victim(struct ctx *c, const char *addr)
{
	pid_t pid;
	int st = 0;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork failed");
	if (!pid)
		_exit(run_rank(c, addr));
	if (waitpid(pid, &st, 0) != pid)
		die("waitpid failed");
	check(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
	      c->kill_mode ? "the last rank was killed (SIGKILL) while the others waited" :
			     "the hung last rank was killed (SIGKILL) after the others failed");
	return tests_failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct ctx c = {
		.rank = env_number("RANK_ID", MAX_RANKS), .n = env_number("RANK_SIZE", 0),
		.dev = env_number("DEVICE_ID", 0),
	};
	const char *addr = getenv("HCCL_ROOT_ADDR");
	int status;

	if (argc != 2 || (strcmp(argv[1], "kill") && strcmp(argv[1], "hang")))
		die("usage: fail_test kill|hang");
	if (c.n < 2 || c.n > MAX_RANKS || c.rank >= c.n || !addr)
		die("set RANK_ID, RANK_SIZE (2..16) and HCCL_ROOT_ADDR (address:port)");
	c.kill_mode = !strcmp(argv[1], "kill");
	printf("TAP version 13\n");
	status = c.rank == c.n - 1 ? watch_victim(&c, addr) : run_rank(&c, addr);
	printf("1..%d\n", tests_run);
	return status;
}
