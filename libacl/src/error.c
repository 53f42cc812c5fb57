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

aclError acl_vfail(const char *func, aclError code, const char *fmt, va_list ap)
{
	char msg[900];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	snprintf(err_pending, sizeof(err_pending), "EE%06d: %s: %s", code, func, msg);
	err_has_msg = true;
	last_error = code;
	acl_log(ACL_LOG_ERROR, func, "error %d: %s", code, msg);
	return code;
}

aclError acl_fail(const char *func, aclError code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = acl_vfail(func, code, fmt, ap);
	va_end(ap);
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

aclError acl_slot_error(struct acl_device *d, uint32_t err)
{
	switch (err) {
	case DRM_NPU_ERR_NONE:
		return ACL_SUCCESS;
	case DRM_NPU_ERR_DMA:
		return ACL_ERROR_RT_SYS_DMA;
	case DRM_NPU_ERR_HANG:
		return ACL_ERROR_RT_TASK_TIMEOUT;
	case DRM_NPU_ERR_DEAD:
		acl_device_mark_dead(d);
		return ACL_ERROR_RT_LOST_HEARTBEAT;
	case DRM_NPU_ERR_ABORTED:
	case DRM_NPU_ERR_DEPENDENCY:
		return ACL_ERROR_RT_STREAM_ABORT;
	case DRM_NPU_ERR_REJECTED:
		return ACL_ERROR_RT_DRV_INTERNAL_ERROR;
	case DRM_NPU_ERR_OP_UNSUPPORTED:
		return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
	/* The vendor's code for an operator that faults on its compute core. */
	case DRM_NPU_ERR_OP_PARAM:
	case DRM_NPU_ERR_OP_FAILED:
	/* and for one that reaches memory it may not: the vendor's out-of-bounds access */
	case DRM_NPU_ERR_PAGE_FAULT:
		return ACL_ERROR_RT_AICORE_EXCEPTION;
	case DRM_NPU_ERR_RESET:
		return acl_reset_error(d);
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
	case DRM_NPU_ERR_OP_UNSUPPORTED:
		return "the card's operator library cannot run an operator of the stream "
		       "(its kind, mode, type, format or size)";
	case DRM_NPU_ERR_OP_PARAM:
		return "an operator of the stream has shapes, attributes or tensors that disagree";
	case DRM_NPU_ERR_OP_FAILED:
		return "the card's operator library failed to run an operator of the stream";
	case DRM_NPU_ERR_RESET:
		return "the card was reset (device reset) with the stream's work queued, "
		       "which was lost; release the device (aclrtResetDevice) and set it again";
	case DRM_NPU_ERR_PAGE_FAULT:
		return "a command of the stream reached a device address it may not use "
		       "(a page fault)";
	default:
		return "unknown stream error";
	}
}

/* What each errno of the driver's ioctls (uapi/npu_accel.h) means to a caller. */
static const struct errno_meaning {
	int err;
	aclError code;
	const char *why;
} errno_meanings[] = {
	{ ENOMEM, ACL_ERROR_RT_MEMORY_ALLOCATION, "no room left on the card or the host" },
	{ EBUSY, ACL_ERROR_RT_NO_STREAM_RESOURCE, "every hardware ring of the card is taken" },
	/* Streams, events and callbacks all complete through fence slots. */
	{ ENOSPC, ACL_ERROR_RT_NO_EVENT_RESOURCE, "no fence slot of the card is free" },
	{ ENODEV, ACL_ERROR_RT_LOST_HEARTBEAT, "the card is lost (its heartbeat stopped)" },
	{ EPERM, ACL_ERROR_INVALID_PARAM,
	  "the card rejected an address: not memory of this device or not accessible" },
	{ EFAULT, ACL_ERROR_INVALID_PARAM,
	  "the card rejected an address: not memory of this device or not accessible" },
	{ ENOENT, ACL_ERROR_INVALID_PARAM, "the driver knows no such object" },
	{ ETIME, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, "timed out" },
	{ ETIMEDOUT, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, "timed out" },
	{ EACCES, ACL_ERROR_RT_NO_PERMISSION, "permission denied" },
	{ ECANCELED, ACL_ERROR_RT_DEVICE_TASK_ABORT,
	  "the card was reset (device reset) and this process's work on it was lost; "
	  "release the device (aclrtResetDevice) and set it again" },
};

static const struct errno_meaning *errno_meaning_of(int ret)
{
	static const struct errno_meaning other = { 0, ACL_ERROR_RT_DRV_INTERNAL_ERROR,
						    "driver error" };

	for (size_t i = 0; i < sizeof(errno_meanings) / sizeof(errno_meanings[0]); i++)
		if (errno_meanings[i].err == -ret)
			return &errno_meanings[i];
	return &other;
}

aclError acl_drv_error(struct acl_device *d, int ret)
{
	if (ret == -ENODEV)
		acl_device_mark_dead(d);
	if (ret == -ECANCELED)
		return acl_reset_error(d);
	return ret ? errno_meaning_of(ret)->code : ACL_SUCCESS;
}

aclError acl_drv_fail(const char *func, struct acl_device *d, int ret, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return acl_fail(func, acl_drv_error(d, ret), "%s on device %d: %s (%s)", what, d->id,
			errno_meaning_of(ret)->why, strerror(-ret));
}
