// SPDX-License-Identifier: MIT
/*
 * Logging as the environment configures it: ASCEND_GLOBAL_LOG_LEVEL
 * filters (0 debug .. 3 error, 4 nothing; error when unset or invalid),
 * ASCEND_SLOG_PRINT_TO_STDOUT=1 prints to stdout, ASCEND_PROCESS_LOG_PATH
 * writes <path>/acl-<pid>.log instead, and with neither nothing is written.
 *
 * The library reads the environment once per process, so each case runs
 * this program again (a constructor catches the re-run) with the variables
 * set, and looks at what the child wrote.
 */
#include "acl_test.h"
#include "kselftest_harness.h"

#include <sys/wait.h>

#define CHILD_VAR "ACL_LOG_TEST_CHILD=1"

/* The child: a line at each level from the application and the library. */
static void child(void)
{
	aclInit(NULL);
	aclAppLog(ACL_DEBUG, "child", "log_test.c", 1, "marker %s", "debug");
	aclAppLog(ACL_INFO, "child", "log_test.c", 2, "marker %s", "info");
	aclAppLog(ACL_WARNING, "child", "log_test.c", 3, "marker %s", "warning");
	aclAppLog(ACL_ERROR, "child", "log_test.c", 4, "marker %s", "error");
	aclrtSetDevice(9999);		/* the library's own error line */
	aclrtResetDevice(0);		/* its warning: the device was not set */
	aclFinalize();
	fflush(stdout);
	_exit(0);
}

__attribute__((constructor)) static void maybe_child(void)
{
	const char *v = getenv("ACL_LOG_TEST_CHILD");

	if (v && !strcmp(v, "1"))
		child();
}

/*
 * Runs the child with env (NULL-terminated "NAME=value" strings) and
 * CHILD_VAR; its stdout goes to out. Returns its pid, or -1.
 */
static pid_t run_child(const char *const *env, char *out, size_t len)
{
	const char *envp[16] = { CHILD_VAR };
	char *argv[] = { "log_test", NULL };
	size_t n = 0, e = 1;
	int fds[2], status;
	pid_t pid;
	ssize_t r;

	while (env && *env && e < 15)
		envp[e++] = *env++;
	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execve("/proc/self/exe", argv, (char **)envp);
		_exit(127);
	}
	close(fds[1]);
	while (n < len - 1 && (r = read(fds[0], out + n, len - 1 - n)) > 0)
		n += (size_t)r;
	out[n] = 0;
	close(fds[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return pid;
}

static char out[65536];

static bool has(const char *s)
{
	return strstr(out, s) != NULL;
}

TEST(stdout_at_each_level)
{
	const char *dbg[] = { "ASCEND_SLOG_PRINT_TO_STDOUT=1", "ASCEND_GLOBAL_LOG_LEVEL=0", NULL };
	const char *info[] = { "ASCEND_SLOG_PRINT_TO_STDOUT=1", "ASCEND_GLOBAL_LOG_LEVEL=1", NULL };
	const char *warn[] = { "ASCEND_SLOG_PRINT_TO_STDOUT=1", "ASCEND_GLOBAL_LOG_LEVEL=2", NULL };
	const char *err[] = { "ASCEND_SLOG_PRINT_TO_STDOUT=1", "ASCEND_GLOBAL_LOG_LEVEL=3", NULL };

	ASSERT_GT(run_child(dbg, out, sizeof(out)), 0);
	EXPECT_TRUE(has("[DEBUG]") && has("marker debug"));
	EXPECT_TRUE(has("[INFO]") && has("marker info"));
	EXPECT_TRUE(has("[WARNING]") && has("marker warning"));
	EXPECT_TRUE(has("[ERROR]") && has("marker error"));
	/* the library logs too: its error and its warning */
	EXPECT_TRUE(has("device 9999 does not exist"));
	EXPECT_TRUE(has("device 0 was not set"));
	/* one line per message, in the documented shape */
	EXPECT_TRUE(has("ASCENDCL(") && has("log_test.c:4 child"));

	ASSERT_GT(run_child(info, out, sizeof(out)), 0);
	EXPECT_FALSE(has("[DEBUG]"));
	EXPECT_TRUE(has("marker info") && has("marker warning") && has("marker error"));

	ASSERT_GT(run_child(warn, out, sizeof(out)), 0);
	EXPECT_FALSE(has("[DEBUG]") || has("[INFO]"));
	EXPECT_TRUE(has("marker warning") && has("device 0 was not set"));
	EXPECT_TRUE(has("marker error") && has("device 9999 does not exist"));

	ASSERT_GT(run_child(err, out, sizeof(out)), 0);
	EXPECT_FALSE(has("[DEBUG]") || has("[INFO]") || has("[WARNING]"));
	EXPECT_TRUE(has("marker error") && has("device 9999 does not exist"));
}

TEST(default_and_invalid_levels_are_error)
{
	const char *unset[] = { "ASCEND_SLOG_PRINT_TO_STDOUT=1", NULL };
	const char *bad[] = { "ASCEND_SLOG_PRINT_TO_STDOUT=1", "ASCEND_GLOBAL_LOG_LEVEL=9", NULL };
	const char *text[] = { "ASCEND_SLOG_PRINT_TO_STDOUT=1", "ASCEND_GLOBAL_LOG_LEVEL=info",
			       NULL };
	const char *const *cases[] = { unset, bad, text };

	for (int i = 0; i < 3; i++) {
		ASSERT_GT(run_child(cases[i], out, sizeof(out)), 0);
		EXPECT_FALSE(has("[DEBUG]") || has("[INFO]") || has("[WARNING]"));
		EXPECT_TRUE(has("[ERROR]") && has("marker error"));
	}
}

TEST(nothing_printed)
{
	const char *off[] = { "ASCEND_SLOG_PRINT_TO_STDOUT=1", "ASCEND_GLOBAL_LOG_LEVEL=4", NULL };
	const char *nowhere[] = { "ASCEND_GLOBAL_LOG_LEVEL=0", NULL };
	const char *not_one[] = { "ASCEND_SLOG_PRINT_TO_STDOUT=0", "ASCEND_GLOBAL_LOG_LEVEL=0",
				  NULL };

	/* level 4, no destination, or stdout switched off */
	ASSERT_GT(run_child(off, out, sizeof(out)), 0);
	EXPECT_STREQ("", out);
	ASSERT_GT(run_child(nowhere, out, sizeof(out)), 0);
	EXPECT_STREQ("", out);
	ASSERT_GT(run_child(not_one, out, sizeof(out)), 0);
	EXPECT_STREQ("", out);
}

TEST(log_file)
{
	char dir[] = "/tmp/acl-log-XXXXXX", var[64], path[128], buf[8192];
	const char *env[] = { var, "ASCEND_GLOBAL_LOG_LEVEL=1", NULL };
	pid_t pid;
	int fd;
	ssize_t n;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(var, sizeof(var), "ASCEND_PROCESS_LOG_PATH=%s", dir);
	pid = run_child(env, out, sizeof(out));
	ASSERT_GT(pid, 0);
	EXPECT_STREQ("", out);	/* not on stdout */
	snprintf(path, sizeof(path), "%s/acl-%d.log", dir, (int)pid);
	fd = open(path, O_RDONLY);
	ASSERT_GE(fd, 0) {
		TH_LOG("no %s", path);
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	ASSERT_GT(n, 0);
	buf[n] = 0;
	EXPECT_EQ(NULL, strstr(buf, "marker debug"));
	EXPECT_NE(NULL, strstr(buf, "marker info"));
	EXPECT_NE(NULL, strstr(buf, "marker error"));
	unlink(path);
	rmdir(dir);
}

TEST_HARNESS_MAIN
