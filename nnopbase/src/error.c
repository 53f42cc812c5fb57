// SPDX-License-Identifier: MIT
/* Failures: the runtime keeps the thread's message (aclGetRecentErrMsg). */
#include "npu_acl_private.h"
#include "nnopbase.h"

NNOP_EXPORT aclnnStatus nnop_fail(const char *func, aclnnStatus code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	npu_acl_record_error(func, code, fmt, ap);
	va_end(ap);
	return code;
}
