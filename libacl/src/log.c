// SPDX-License-Identifier: MIT
/*
 * Logging, configured like the vendor runtime through the environment:
 *   ASCEND_GLOBAL_LOG_LEVEL      0 debug, 1 info, 2 warning, 3 error (default),
 *                                4 nothing
 *   ASCEND_SLOG_PRINT_TO_STDOUT  1: print to stdout
 *   ASCEND_PROCESS_LOG_PATH      otherwise: append to <path>/acl-<pid>.log
 * With neither destination set, nothing is written.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "acl_internal.h"

static pthread_once_t log_once = PTHREAD_ONCE_INIT;
static int log_level = ACL_LOG_ERROR;
static FILE *log_file;		/* NULL: no destination */
static struct acl_mutex log_lock = ACL_MUTEX_INITIALIZER;

static void log_setup(void)
{
	const char *lvl = getenv("ASCEND_GLOBAL_LOG_LEVEL");
	const char *out = getenv("ASCEND_SLOG_PRINT_TO_STDOUT");
	const char *dir = getenv("ASCEND_PROCESS_LOG_PATH");

	if (lvl && *lvl >= '0' && *lvl <= '4' && !lvl[1])
		log_level = *lvl - '0';
	if (out && !strcmp(out, "1")) {
		log_file = stdout;
	} else if (dir && *dir) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/acl-%d.log", dir, (int)getpid());
		log_file = fopen(path, "ae");
	}
}

void acl_log_init(void)
{
	pthread_once(&log_once, log_setup);
}

static void log_vwrite(int level, const char *func, const char *fmt, va_list ap)
{
	static const char *const names[] = { "DEBUG", "INFO", "WARNING", "ERROR" };
	char msg[1024];
	struct timespec ts;
	struct tm tm;
	int n;

	acl_log_init();
	if (level < log_level || level >= ACL_LOG_NULL || !log_file)
		return;
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	if (n >= (int)sizeof(msg))
		strcpy(msg + sizeof(msg) - 16, "...[truncated]");
	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	acl_mutex_lock(&log_lock);
	fprintf(log_file, "[%s] ASCENDCL(%d,%ld):%04d-%02d-%02d-%02d:%02d:%02d.%03ld [%s] %s\n",
		names[level], (int)getpid(), (long)syscall(SYS_gettid), tm.tm_year + 1900,
		tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		ts.tv_nsec / 1000000, func, msg);
	fflush(log_file);
	acl_mutex_unlock(&log_lock);
}

void acl_log(int level, const char *func, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vwrite(level, func, fmt, ap);
	va_end(ap);
}

ACL_EXPORT void aclAppLog(aclLogLevel logLevel, const char *func, const char *file,
			  uint32_t line, const char *fmt, ...)
{
	char where[512];
	char msg[1024];
	va_list ap;

	if (!fmt || logLevel < ACL_DEBUG || logLevel > ACL_ERROR)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(where, sizeof(where), "%s:%u %s", file ? file : "?", line, func ? func : "?");
	acl_log((int)logLevel, where, "%s", msg);
}
