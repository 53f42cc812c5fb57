// SPDX-License-Identifier: MIT
/*
 * Operator timeouts. The card bounds neither how long an operator runs
 * nor how long a stream waits for an event: the driver fails a stream
 * only when it makes no progress at all for its hang timeout (the npu
 * module's hang_timeout_ms, the administrator's), and a running operator
 * is progress while a wait is not a hang. So none of these can be
 * honoured, and each says so instead of pretending.
 */
#include "acl_internal.h"

#define NO_OP_TIMEOUT(what) \
	ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "%s is not supported: the card has no "	\
		 "per-task timeout; a stream fails only when it makes no progress for the "	\
		 "driver's hang timeout (npu module parameter hang_timeout_ms)", what)

ACL_EXPORT aclError aclrtSetOpWaitTimeout(uint32_t timeout)
{
	(void)timeout;
	return NO_OP_TIMEOUT("a timeout for waits on events");
}

ACL_EXPORT aclError aclrtSetOpExecuteTimeOut(uint32_t timeout)
{
	(void)timeout;
	return NO_OP_TIMEOUT("a timeout for operators");
}

ACL_EXPORT aclError aclrtSetOpExecuteTimeOutWithMs(uint32_t timeout)
{
	(void)timeout;
	return NO_OP_TIMEOUT("a timeout for operators");
}

ACL_EXPORT aclError aclrtSetOpExecuteTimeOutV2(uint64_t timeout, uint64_t *actualTimeout)
{
	(void)timeout;
	ACL_CHECK_NULL(actualTimeout);
	return NO_OP_TIMEOUT("a timeout for operators");
}

ACL_EXPORT aclError aclrtGetOpTimeOutInterval(uint64_t *interval)
{
	ACL_CHECK_NULL(interval);
	return NO_OP_TIMEOUT("a timeout for operators");
}

ACL_EXPORT aclError aclrtGetOpExecuteTimeout(uint32_t *const timeoutMs)
{
	ACL_CHECK_NULL(timeoutMs);
	return NO_OP_TIMEOUT("a timeout for operators");
}
