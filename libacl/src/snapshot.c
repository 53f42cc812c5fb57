// SPDX-License-Identifier: MIT
/*
 * Process snapshots (aclrtSnapShot*): saving a process's device state and
 * restoring it later. The card keeps no state that the driver can save and
 * put back, so every call returns ACL_ERROR_RT_FEATURE_NOT_SUPPORT with a
 * message.
 */
#include "acl_internal.h"

#define NO_SNAPSHOTS(fn)							\
	acl_fail(fn, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "process snapshots are not "	\
		 "supported: this card cannot save and restore a process's device state")

ACL_EXPORT aclError aclrtSnapShotProcessLock(int pid, void *reserve)
{
	(void)pid, (void)reserve;
	return NO_SNAPSHOTS(__func__);
}

ACL_EXPORT aclError aclrtSnapShotProcessUnlock(int pid, void *reserve)
{
	(void)pid, (void)reserve;
	return NO_SNAPSHOTS(__func__);
}

ACL_EXPORT aclError aclrtSnapShotProcessBackup(int pid, aclrtSnapShotBackupArgs *args)
{
	(void)pid, (void)args;
	return NO_SNAPSHOTS(__func__);
}

ACL_EXPORT aclError aclrtSnapShotProcessRestore(int pid, aclrtSnapShotRestoreArgs *args)
{
	(void)pid, (void)args;
	return NO_SNAPSHOTS(__func__);
}

ACL_EXPORT aclError aclrtSnapShotCallbackRegister(aclrtSnapShotStage stage,
						  aclrtSnapShotCallBack callback, void *args)
{
	(void)stage, (void)callback, (void)args;
	return NO_SNAPSHOTS(__func__);
}

ACL_EXPORT aclError aclrtSnapShotCallbackUnregister(aclrtSnapShotStage stage,
						    aclrtSnapShotCallBack callback)
{
	(void)stage, (void)callback;
	return NO_SNAPSHOTS(__func__);
}
