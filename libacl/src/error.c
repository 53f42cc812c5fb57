// SPDX-License-Identifier: MIT
/*
 * Errors: every failing call records its code and a readable message for
 * the calling thread (aclGetRecentErrMsg, aclrtGetLastError) and logs it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "acl_internal.h"

static __thread char err_pending[1024];
static __thread char err_returned[1024];
static __thread bool err_has_msg;
static __thread aclError last_error;

aclError acl_fail(const char *func, aclError code, const char *fmt, ...)
{
	char msg[900];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(err_pending, sizeof(err_pending), "EE%06d: %s: %s", code, func, msg);
	err_has_msg = true;
	last_error = code;
	acl_log(ACL_LOG_ERROR, func, "error %d: %s", code, msg);
	return code;
}

/* The message stays valid until the thread's next call of this function. */
ACL_EXPORT const char *aclGetRecentErrMsg(void)
{
	if (!err_has_msg)
		return NULL;
	memcpy(err_returned, err_pending, sizeof(err_returned));
	err_has_msg = false;
	return err_returned;
}

ACL_EXPORT aclError aclrtPeekAtLastError(aclrtLastErrLevel level)
{
	if (level != ACL_RT_THREAD_LEVEL)
		return ACL_ERROR_INVALID_PARAM;
	return last_error;
}

ACL_EXPORT aclError aclrtGetLastError(aclrtLastErrLevel level)
{
	aclError e;

	if (level != ACL_RT_THREAD_LEVEL)
		return ACL_ERROR_INVALID_PARAM;
	e = last_error;
	last_error = ACL_SUCCESS;
	return e;
}

aclError acl_slot_error_code(uint32_t err)
{
	switch (err) {
	case DRM_NPU_ERR_NONE:
		return ACL_SUCCESS;
	case DRM_NPU_ERR_DMA:
		return ACL_ERROR_RT_SYS_DMA;
	case DRM_NPU_ERR_HANG:
		return ACL_ERROR_RT_TASK_TIMEOUT;
	case DRM_NPU_ERR_DEAD:
		return ACL_ERROR_RT_LOST_HEARTBEAT;
	case DRM_NPU_ERR_ABORTED:
	case DRM_NPU_ERR_DEPENDENCY:
		return ACL_ERROR_RT_STREAM_ABORT;
	case DRM_NPU_ERR_REJECTED:
		return ACL_ERROR_RT_DRV_INTERNAL_ERROR;
	default:
		return ACL_ERROR_RT_INTERNAL_ERROR;
	}
}

const char *acl_slot_error_text(uint32_t err)
{
	switch (err) {
	case DRM_NPU_ERR_NONE:
		return "no error";
	case DRM_NPU_ERR_DMA:
		return "a DMA transfer of the stream failed on the card";
	case DRM_NPU_ERR_HANG:
		return "the stream made no progress within the driver's hang timeout";
	case DRM_NPU_ERR_DEAD:
		return "the card stopped its heartbeat (device lost)";
	case DRM_NPU_ERR_ABORTED:
		return "the stream was aborted";
	case DRM_NPU_ERR_DEPENDENCY:
		return "an event the stream waited for on the card failed with its own stream";
	case DRM_NPU_ERR_REJECTED:
		return "the card rejected a command of the stream";
	default:
		return "unknown stream error";
	}
}

aclError acl_errno_code(int err)
{
	if (err < 0)
		err = -err;
	switch (err) {
	case 0:
		return ACL_SUCCESS;
	case ENOMEM:
		return ACL_ERROR_RT_MEMORY_ALLOCATION;
	case EBUSY:
		return ACL_ERROR_RT_NO_STREAM_RESOURCE;
	case ENOSPC:
		return ACL_ERROR_RT_NO_EVENT_RESOURCE;
	case ENODEV:
		return ACL_ERROR_RT_LOST_HEARTBEAT;
	case EPERM:
	case EFAULT:
	case ENOENT:
		return ACL_ERROR_INVALID_PARAM;
	case ETIME:
	case ETIMEDOUT:
		return ACL_ERROR_RT_STREAM_SYNC_TIMEOUT;
	case EACCES:
		return ACL_ERROR_RT_NO_PERMISSION;
	default:
		return ACL_ERROR_RT_DRV_INTERNAL_ERROR;
	}
}
