// SPDX-License-Identifier: MIT
/*
 * Event records and waits with an operation-level flag: the
 * ACL_EVENT_RECORD_EXTERNAL / ACL_EVENT_WAIT_EXTERNAL forms that mark a
 * captured record meant for waiters outside the model, or a captured wait
 * for a record made outside it. Every record and wait of this runtime is
 * visible across models and streams, so the flags change nothing but what
 * is accepted: a captured record or wait is replayed as it was captured
 * (capture.c).
 */
#include "capture.h"

ACL_EXPORT aclError aclrtRecordEventWithFlag(aclrtEvent event, aclrtStream stream, uint32_t flag)
{
	if (flag != ACL_EVENT_RECORD_DEFAULT && flag != ACL_EVENT_RECORD_EXTERNAL)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown record flag %#x", flag);
	return aclrtRecordEvent(event, stream);
}

ACL_EXPORT aclError aclrtStreamWaitEventWithFlag(aclrtStream stream, aclrtEvent event,
						 uint32_t timeout, uint32_t flag)
{
	if (flag != ACL_EVENT_WAIT_DEFAULT && flag != ACL_EVENT_WAIT_EXTERNAL)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown wait flag %#x", flag);
	if (flag == ACL_EVENT_WAIT_EXTERNAL && timeout)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "an external wait takes no timeout (%u)",
				timeout);
	if (timeout)
		return ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "the card's waits on events have "
				"no timeout: pass 0");
	return aclrtStreamWaitEvent(stream, event);
}
