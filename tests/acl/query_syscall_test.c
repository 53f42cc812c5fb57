// SPDX-License-Identifier: MIT
/*
 * The status queries are loads: aclrtQueryEventStatus,
 * aclrtQueryEventWaitStatus, aclrtQueryEvent and aclrtStreamQuery make no
 * system call, for work that is complete, pending, or completing while
 * they look. A child process sets up a device, streams and events, enters
 * seccomp strict mode (any system call but read, write, _exit and
 * sigreturn kills it) and queries; it reports the answers through a pipe.
 * Debug logging is on in the child, so a log line or an error recorded on
 * a query path would make system calls (getpid, gettid) too. Strict mode
 * also disables the TSC: reading the clock there is caught as well.
 */
#include <linux/seccomp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "acl_test.h"
#include "kselftest_harness.h"

#define BIG (64 << 20)		/* a fill the card takes a while over */
#define POLL_LIMIT (1L << 24)

struct world {
	struct gate g;
	aclrtStream idle, gated, busy;
	aclrtEvent never, never_ex, done, held, late;
	void *big;
};

enum probe {
	NEVER_RECORDED,
	NEVER_RECORDED_EX,
	DONE_EVENT,
	IDLE_STREAM,
	DEFAULT_STREAM,
	HELD_EVENT,
	GATED_STREAM,
	LATE_EVENT,
	BUSY_STREAM,
	NO_ERROR_RECORDED,
	NPROBES
};

/* What each probe must read: 1 complete (or true), 0 not ready. */
static const struct {
	const char *what;
	int want;
} probes[NPROBES] = {
	[NEVER_RECORDED] = { "event never recorded: the vendor's answers", 1 },
	[NEVER_RECORDED_EX] = { "event of aclrtCreateEventExWithFlag never recorded", 1 },
	[DONE_EVENT] = { "event completed before strict mode", 1 },
	[IDLE_STREAM] = { "the stream it was recorded on", 1 },
	[DEFAULT_STREAM] = { "the default stream (NULL)", 1 },
	[HELD_EVENT] = { "event behind aclrtValueWait", 0 },
	[GATED_STREAM] = { "the stream held by aclrtValueWait", 0 },
	[LATE_EVENT] = { "event behind a large fill, polled until complete", 1 },
	[BUSY_STREAM] = { "its stream, polled until complete", 1 },
	[NO_ERROR_RECORDED] = { "aclGetRecentErrMsg() is NULL afterwards", 1 },
};

struct report {
	int setup_line;		/* the setup step that failed, 0 if none */
	int got[NPROBES];	/* -1: a query failed or they disagreed; -2: unstable */
	long pending_polls;	/* polls that found the late event not ready */
};

static int stream_state(aclrtStream s)
{
	aclrtStreamStatus st;

	if (aclrtStreamQuery(s, &st))
		return -1;
	return st == ACL_STREAM_STATUS_COMPLETE;
}

/*
 * 1 when the queries answer for a never-recorded event of aclrtCreateEvent
 * as the vendor's runtime does: aclrtQueryEventStatus not ready (no record
 * has completed), the other two complete (nothing to wait for); 0 if not,
 * -1 if one fails.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static int never_recorded_state(aclrtEvent e)
{
	aclrtEventRecordedStatus st;
	aclrtEventWaitStatus ws;
	aclrtEventStatus old;

	if (aclrtQueryEventStatus(e, &st) || aclrtQueryEventWaitStatus(e, &ws) ||
	    aclrtQueryEvent(e, &old))
		return -1;
	return st == ACL_EVENT_RECORDED_STATUS_NOT_READY && ws == ACL_EVENT_WAIT_STATUS_COMPLETE &&
	       old == ACL_EVENT_STATUS_COMPLETE;
}
#pragma GCC diagnostic pop

/* aclrtQueryEventStatus alone: events of aclrtCreateEventExWithFlag take no other. */
static int recorded_state(aclrtEvent e)
{
	aclrtEventRecordedStatus st;

	if (aclrtQueryEventStatus(e, &st))
		return -1;
	return st == ACL_EVENT_RECORDED_STATUS_COMPLETE;
}

#define TRY(x) do { if (x) return __LINE__; } while (0)

/* Returns 0, or the line of the step that failed. */
static int setup(struct world *w)
{
	TRY(!acl_ok_init());
	TRY(aclrtSetDevice(0));
	TRY(gate_init(&w->g));
	TRY(aclrtCreateStream(&w->idle));
	TRY(aclrtCreateStream(&w->gated));
	TRY(aclrtCreateStream(&w->busy));
	TRY(aclrtCreateEvent(&w->never));
	TRY(aclrtCreateEventExWithFlag(&w->never_ex, ACL_EVENT_SYNC));
	TRY(aclrtCreateEvent(&w->done));
	TRY(aclrtCreateEvent(&w->held));
	TRY(aclrtCreateEvent(&w->late));
	/* complete before the queries */
	TRY(aclrtRecordEvent(w->done, w->idle));
	TRY(aclrtSynchronizeEvent(w->done));
	/* The stream's own completion lands just after the event's. */
	TRY(aclrtSynchronizeStream(w->idle));
	/* not complete while the child lives: nobody opens the gate */
	TRY(gate_close_on(&w->g, w->gated));
	TRY(aclrtRecordEvent(w->held, w->gated));
	/* completes while the child queries (or just before) */
	TRY(aclrtMalloc(&w->big, BIG, ACL_MEM_MALLOC_HUGE_FIRST));
	TRY(aclrtMemsetAsync(w->big, BIG, 1, BIG, w->busy));
	TRY(aclrtRecordEvent(w->late, w->busy));
	/* bind the symbols now (lazy binding), and start with no message */
	TRY(never_recorded_state(w->never) != 1 || recorded_state(w->never_ex) != 1 ||
	    stream_state(NULL) != 1);
	aclGetRecentErrMsg();
	return 0;
}

static void query_all(struct world *w, struct report *r)
{
	for (int round = 0; round < 3; round++) {
		int now[NPROBES] = {
			[NEVER_RECORDED] = never_recorded_state(w->never),
			[NEVER_RECORDED_EX] = recorded_state(w->never_ex),
			[DONE_EVENT] = event_state(w->done),
			[IDLE_STREAM] = stream_state(w->idle),
			[DEFAULT_STREAM] = stream_state(NULL),
			[HELD_EVENT] = event_state(w->held),
			[GATED_STREAM] = stream_state(w->gated),
		};

		for (int i = 0; i < LATE_EVENT; i++)
			r->got[i] = round && r->got[i] != now[i] ? -2 : now[i];
	}
	while (event_state(w->late) == 0 && r->pending_polls < POLL_LIMIT)
		r->pending_polls++;
	r->got[LATE_EVENT] = event_state(w->late);
	/* The stream's own completion is written just after its last event's. */
	while (stream_state(w->busy) == 0 && r->pending_polls < POLL_LIMIT)
		r->pending_polls++;
	r->got[BUSY_STREAM] = stream_state(w->busy);
	r->got[NO_ERROR_RECORDED] = aclGetRecentErrMsg() == NULL;
}

/* The control: this makes an ioctl, so strict mode must kill the child. */
static void make_an_ioctl(struct world *w, struct report *r)
{
	uint32_t n;

	(void)w;
	r->got[0] = aclrtGetStreamAvailableNum(&n);
}

/* Debug logging, to /dev/null: any log line would make system calls. */
static void log_everything_nowhere(void)
{
	int fd = open("/dev/null", O_WRONLY);

	if (fd >= 0) {
		dup2(fd, STDOUT_FILENO);
		close(fd);
	}
	setenv("ASCEND_GLOBAL_LOG_LEVEL", "0", 1);
	setenv("ASCEND_SLOG_PRINT_TO_STDOUT", "1", 1);
}

static void __attribute__((noreturn))
child(int fd, void (*probe)(struct world *, struct report *))
{
	struct report r = { 0 };
	struct world w;

	log_everything_nowhere();
	r.setup_line = setup(&w);
	if (!r.setup_line && prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT))
		r.setup_line = -1;
	if (!r.setup_line)
		probe(&w, &r);
	/* write and exit are all that strict mode allows (exit_group is not) */
	if (write(fd, &r, sizeof(r)) != sizeof(r))
		syscall(SYS_exit, 2);
	syscall(SYS_exit, 0);
	__builtin_unreachable();
}

/* Runs probe in a strict-mode child; its wait status, and *r if it wrote one. */
static int run_child(void (*probe)(struct world *, struct report *), struct report *r,
		     ssize_t *len)
{
	int p[2], status = -1;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	if (pipe(p))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		child(p[1], probe);
	}
	close(p[1]);
	*len = pid > 0 ? read(p[0], r, sizeof(*r)) : -1;
	close(p[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	return status;
}

TEST(queries_make_no_system_call)
{
	struct report r;
	ssize_t len;
	int status = run_child(query_all, &r, &len);

	/* SIGKILL: a system call; SIGSEGV: the clock (strict mode disables the TSC) */
	ASSERT_TRUE(WIFEXITED(status)) {
		TH_LOG("the child was killed by signal %d: a query made a system call "
		       "or read the clock", WIFSIGNALED(status) ? WTERMSIG(status) : -1);
	}
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(sizeof(r), len);
	ASSERT_EQ(0, r.setup_line) {
		TH_LOG("setting up failed at line %d (-1: no seccomp)", r.setup_line);
	}
	for (int i = 0; i < NPROBES; i++) {
		EXPECT_EQ(probes[i].want, r.got[i]) {
			TH_LOG("%s", probes[i].what);
		}
	}
	TH_LOG("the late event read not ready %ld times", r.pending_polls);
}

TEST(strict_mode_catches_a_system_call)
{
	struct report r;
	ssize_t len;
	int status = run_child(make_an_ioctl, &r, &len);

	ASSERT_TRUE(WIFSIGNALED(status)) {
		TH_LOG("exit status %d, setup line %d", WEXITSTATUS(status), r.setup_line);
	}
	EXPECT_EQ(SIGKILL, WTERMSIG(status));
	EXPECT_EQ(0, len);
}

TEST_HARNESS_MAIN
