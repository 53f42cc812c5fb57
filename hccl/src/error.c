// SPDX-License-Identifier: MIT
/*
 * Errors: a failed call records "function: why" where the runtime keeps its
 * own (aclGetRecentErrMsg), so one place tells a user what went wrong.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "hccl_internal.h"
#include "npu_acl_private.h"

HcclResult hccl_fail(const char *func, HcclResult code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	npu_acl_record_error(func, (int32_t)code, fmt, ap);
	va_end(ap);
	return code;
}

HcclResult hccl_acl_fail(const char *func, int acl_err, const char *what)
{
	const char *msg = aclGetRecentErrMsg();

	return hccl_fail(func, HCCL_E_RUNTIME, "%s failed (runtime error %d%s%s)", what, acl_err,
			 msg ? ": " : "", msg ? msg : "");
}

HCCL_EXPORT const char *HcclGetErrorString(HcclResult code)
{
	switch (code) {
	case HCCL_SUCCESS: return "success";
	case HCCL_E_PARA: return "parameter error";
	case HCCL_E_PTR: return "empty pointer";
	case HCCL_E_MEMORY: return "memory error";
	case HCCL_E_INTERNAL: return "internal error";
	case HCCL_E_NOT_SUPPORT: return "not supported";
	case HCCL_E_NOT_FOUND: return "resource not found";
	case HCCL_E_UNAVAIL: return "resource unavailable";
	case HCCL_E_SYSCALL: return "system call failed";
	case HCCL_E_TIMEOUT: return "timeout";
	case HCCL_E_OPEN_FILE_FAILURE: return "cannot open file";
	case HCCL_E_TCP_CONNECT: return "tcp connect failed";
	case HCCL_E_ROCE_CONNECT: return "roce connect failed";
	case HCCL_E_TCP_TRANSFER: return "tcp transfer failed";
	case HCCL_E_ROCE_TRANSFER: return "roce transfer failed";
	case HCCL_E_RUNTIME: return "runtime call failed";
	case HCCL_E_DRV: return "driver call failed";
	case HCCL_E_PROFILING: return "profiling call failed";
	case HCCL_E_CCE: return "cce call failed";
	case HCCL_E_NETWORK: return "network call failed";
	case HCCL_E_AGAIN: return "try again";
	case HCCL_E_REMOTE: return "remote error";
	case HCCL_E_SUSPENDING: return "communicator suspending";
	case HCCL_E_OPRETRY_FAIL: return "retry failed";
	case HCCL_E_OOM: return "out of memory";
	case HCCL_E_IN_STATUS: return "the error is in the status";
	default: return "unknown error";
	}
}

long hccl_env_long(const char *name, long def, long min, long max)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (!s || !*s)
		return def;
	v = strtol(s, &end, 10);
	if (*end || v < min || v > max) {
		fprintf(stderr, "hccl: %s=%s is not an integer in [%ld, %ld]; using %ld\n", name, s,
			min, max, def);
		return def;
	}
	return v;
}
