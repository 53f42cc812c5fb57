// SPDX-License-Identifier: MIT
/*
 * Work lost to a card reset (uapi/npu_accel.h, "Card reset"): the driver
 * fails the streams of every context open across the reset with
 * DRM_NPU_ERR_RESET and refuses new work in them with -ECANCELED. Both
 * become the vendor's codes for work the device dropped: a reset after a
 * lost heartbeat is ACL_ERROR_RT_LOST_HEARTBEAT, any other (an
 * administrator's, a hung ring's) ACL_ERROR_RT_DEVICE_TASK_ABORT. The
 * device's file stays lost until the device is released (aclrtResetDevice
 * down to its last reference); aclrtSetDevice then opens a new one.
 */
#include "acl_internal.h"

aclError acl_reset_error(struct acl_device *d)
{
	uint64_t reason = DRM_NPU_RESET_NONE;

	if (d->fd >= 0)
		drv_get_param(d->fd, DRM_NPU_PARAM_CTX_LOST, &reason);
	return reason == DRM_NPU_RESET_HEARTBEAT ? ACL_ERROR_RT_LOST_HEARTBEAT :
						    ACL_ERROR_RT_DEVICE_TASK_ABORT;
}
