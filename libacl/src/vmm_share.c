// SPDX-License-Identifier: MIT
/*
 * Physical allocations shared with other processes: a shareable handle is
 * the allocation's driver key (DRM_IOCTL_NPU_BO_EXPORT, see ipc.h), valid
 * on the allocation's card. The importer maps what it imports at an
 * address it reserves itself.
 */
#include "ipc.h"
#include "vmm.h"

ACL_EXPORT aclError aclrtMemExportToShareableHandle(aclrtDrvMemHandle handle,
						    aclrtMemHandleType handleType, uint64_t flags,
						    uint64_t *shareableHandle)
{
	struct acl_phys *p;
	aclError err;

	ACL_CHECK_NULL(handle);
	ACL_CHECK_NULL(shareableHandle);
	if (handleType != ACL_MEM_HANDLE_TYPE_NONE)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM,
				"handleType must be ACL_MEM_HANDLE_TYPE_NONE, not %d", (int)handleType);
	if (flags & ~ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown flags %#llx",
				(unsigned long long)flags);
	pthread_mutex_lock(&acl_vmm_lock);
	p = acl_vmm_phys_locked(handle);
	if (!p || !p->user_refs)
		err = ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%p is not a live physical memory handle",
			       handle);
	else if (p->key)
		err = ACL_FAIL(ACL_ERROR_INVALID_PARAM,
			       "%p is exported already, as %#llx (one shareable handle each)",
			       handle, (unsigned long long)p->key);
	else
		err = acl_ipc_export(__func__, p->dev, p->bo,
				     flags & ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION, &p->key);
	if (!err)
		*shareableHandle = p->key;
	pthread_mutex_unlock(&acl_vmm_lock);
	return err;
}

/* The vendor's fabric handles reach other servers; this card has no fabric. */
static aclError check_share_type(const char *fn, aclrtMemSharedHandleType t)
{
	if (t == ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT)
		return ACL_SUCCESS;
	if (t == ACL_MEM_SHARE_HANDLE_TYPE_FABRIC)
		return acl_fail(fn, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
				"ACL_MEM_SHARE_HANDLE_TYPE_FABRIC is not supported: there is no "
				"fabric between servers, only ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT");
	return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "unknown shareType %d", (int)t);
}

ACL_EXPORT aclError aclrtMemExportToShareableHandleV2(aclrtDrvMemHandle handle, uint64_t flags,
						      aclrtMemSharedHandleType shareType,
						      void *shareableHandle)
{
	aclError err = check_share_type(__func__, shareType);

	if (err)
		return err;
	ACL_CHECK_NULL(shareableHandle);
	return aclrtMemExportToShareableHandle(handle, ACL_MEM_HANDLE_TYPE_NONE, flags,
					       shareableHandle);
}

ACL_EXPORT aclError aclrtMemSetPidToShareableHandle(uint64_t shareableHandle, int32_t *pid,
						    size_t pidNum)
{
	struct acl_device *d;

	ACL_CHECK_NULL(pid);
	if (!pidNum)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "pidNum is 0");
	pthread_mutex_lock(&acl_vmm_lock);
	d = acl_vmm_key_device_locked(shareableHandle);
	pthread_mutex_unlock(&acl_vmm_lock);
	if (!d)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM,
				"%#llx is no shareable handle this process exported",
				(unsigned long long)shareableHandle);
	return acl_ipc_allow(__func__, d, shareableHandle, pid, pidNum);
}

ACL_EXPORT aclError aclrtMemSetPidToShareableHandleV2(void *shareableHandle,
						      aclrtMemSharedHandleType shareType,
						      int32_t *pid, size_t pidNum)
{
	aclError err = check_share_type(__func__, shareType);

	if (err)
		return err;
	ACL_CHECK_NULL(shareableHandle);
	return aclrtMemSetPidToShareableHandle(*(uint64_t *)shareableHandle, pid, pidNum);
}

static aclError import(const char *fn, uint64_t key, struct acl_device *d,
		       aclrtDrvMemHandle *handle)
{
	aclrtPhysicalMemProp prop = {
		.handleType = ACL_MEM_HANDLE_TYPE_NONE,
		.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED,
		.memAttr = ACL_HBM_MEM_HUGE,
		.location = { .id = (uint32_t)d->id, .type = ACL_MEM_LOCATION_TYPE_DEVICE },
	};
	uint64_t addr, size;
	struct acl_phys *p;
	uint32_t bo;
	aclError err;

	if (!key)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "shareableHandle is 0");
	err = acl_ipc_import(fn, d, key, &bo, &addr, &size);
	if (err)
		return err;
	pthread_mutex_lock(&acl_vmm_lock);
	p = acl_vmm_phys_new_locked(d, bo, size, &prop);
	pthread_mutex_unlock(&acl_vmm_lock);
	if (!p) {
		drv_gem_close(d->fd, bo);
		return acl_fail(fn, ACL_ERROR_BAD_ALLOC, "out of host memory");
	}
	*handle = p;
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtMemImportFromShareableHandle(uint64_t shareableHandle, int32_t deviceId,
						      aclrtDrvMemHandle *handle)
{
	struct acl_device *d;
	aclError err;

	ACL_CHECK_NULL(handle);
	d = acl_vmm_open_device(__func__, deviceId, &err);
	return d ? import(__func__, shareableHandle, d, handle) : err;
}

ACL_EXPORT aclError aclrtMemImportFromShareableHandleV2(void *shareableHandle,
							aclrtMemSharedHandleType shareType,
							uint64_t flags, aclrtDrvMemHandle *handle)
{
	struct acl_context *c;
	aclError err = check_share_type(__func__, shareType);

	if (err)
		return err;
	ACL_CHECK_NULL(shareableHandle);
	ACL_CHECK_NULL(handle);
	if (flags)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "flags must be 0, not %#llx",
				(unsigned long long)flags);
	c = acl_current_ctx();
	if (!c)
		return ACL_ERROR_RT_CONTEXT_NULL;
	return import(__func__, *(uint64_t *)shareableHandle, c->dev, handle);
}
