// SPDX-License-Identifier: MIT
/*
 * IPC memory: device memory of one process used by another on the same
 * card (ipc.h). The exporter's key names the driver's key for the whole
 * allocation and the offset of the shared range in it; an importer gets
 * a handle to the same buffer, at the same device address, and a pointer
 * into it that its copies and operators may name like its own memory.
 *
 * Lifetimes are the driver's (uapi, "Shared buffers"): the card's memory
 * stays while the exporter's allocation, its open key or any import holds
 * it. aclrtFree by the exporter therefore never pulls memory from under an
 * importer; aclrtIpcMemClose ends what the caller holds: the exporter's
 * key (no more imports; imports made stay valid) or one import. The
 * vendor asks importers to close before the exporter; here either order
 * works.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipc.h"

#define KIND	"npumem"

/* One key this process exported or imported, on device dev. */
struct ipc_mem {
	struct ipc_mem *next;
	char key[ACL_IPC_KEY_LEN];
	struct acl_device *dev;
	bool exported;
	uint64_t drv_key;	/* exported */
	uint32_t handle;	/* imported from another process, else 0 */
	uint64_t base;		/* imported: the buffer's device address */
	void *ptr;		/* imported: what ImportByKey returned */
	unsigned int refs;	/* imported: ImportByKey calls not yet closed */
};

static struct ipc_mem *ipc_mems;	/* under acl_ipc_lock */

static struct ipc_mem *mem_find_locked(const char *key, bool exported)
{
	struct ipc_mem *m;

	ACL_ASSERT_HELD(&acl_ipc_lock);
	for (m = ipc_mems; m; m = m->next)
		if (m->exported == exported && !strncmp(m->key, key, ACL_IPC_KEY_LEN))
			return m;
	return NULL;
}

static void mem_unlink_locked(struct ipc_mem *m)
{
	struct ipc_mem **pp;

	for (pp = &ipc_mems; *pp != m; pp = &(*pp)->next)
		;
	*pp = m->next;
}

ACL_EXPORT aclError aclrtIpcMemGetExportKey(void *devPtr, size_t size, char *key, size_t len,
					    uint64_t flags)
{
	struct acl_ipc_key k = { 0 };
	struct acl_context *c;
	struct ipc_mem *m;
	uint32_t handle;
	aclError err;

	ACL_CHECK_NULL(devPtr);
	ACL_CHECK_NULL(key);
	if (!size)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "size is 0");
	if (len < ACL_IPC_KEY_LEN)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "len %zu is under %d", len,
				ACL_IPC_KEY_LEN);
	if (flags & ~ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown flags %#lx",
				(unsigned long)flags);
	c = acl_current_ctx();
	if (!c)
		return ACL_ERROR_RT_CONTEXT_NULL;
	if (!acl_devmem_binding(c->dev, (uintptr_t)devPtr, size, &handle, &k.offset))
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%p + %zu is not within one allocation "
				"of this process on device %d", devPtr, size, c->dev->id);
	m = calloc(1, sizeof(*m));
	if (!m)
		return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of host memory");
	err = acl_ipc_export(__func__, c->dev, handle,
			     flags & ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION, &k.key);
	if (err) {
		free(m);
		return err;
	}
	k.serial = c->dev->serial;
	acl_ipc_key_format(m->key, sizeof(m->key), KIND, &k);
	m->dev = c->dev;
	m->exported = true;
	m->drv_key = k.key;
	m->ptr = devPtr;
	acl_mutex_lock(&acl_ipc_lock);
	m->next = ipc_mems;
	ipc_mems = m;
	acl_mutex_unlock(&acl_ipc_lock);
	memcpy(key, m->key, sizeof(m->key));
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtIpcMemSetImportPid(const char *key, int32_t *pid, size_t num)
{
	struct ipc_mem *m;
	aclError err;

	ACL_CHECK_NULL(key);
	acl_mutex_lock(&acl_ipc_lock);
	m = mem_find_locked(key, true);
	err = m ? acl_ipc_allow(__func__, m->dev, m->drv_key, pid, num) :
		  ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%.*s is not a key this process exports",
			   ACL_IPC_KEY_LEN, key);
	acl_mutex_unlock(&acl_ipc_lock);
	return err;
}

/* The exporter's own key: its own memory, no handle. */
static aclError import_own_locked(struct ipc_mem *own, void **devPtr)
{
	struct ipc_mem *m = mem_find_locked(own->key, false);

	if (!m) {
		m = calloc(1, sizeof(*m));
		if (!m)
			return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of host memory");
		memcpy(m->key, own->key, sizeof(m->key));
		m->dev = own->dev;
		m->ptr = own->ptr;
		m->next = ipc_mems;
		ipc_mems = m;
	}
	m->refs++;
	*devPtr = m->ptr;
	return ACL_SUCCESS;
}

/* Lists the imported buffer as device memory of d, so that copies take it. */
static aclError import_map(struct acl_device *d, struct ipc_mem *m, uint64_t size)
{
	struct acl_devmem *dm = calloc(1, sizeof(*dm));

	if (dm) {
		dm->addr = m->base;
		dm->size = dm->alloc = size;
		dm->handle = m->handle;
		dm->imported = true;
		if (!acl_rmap_insert(&d->devmem, m->base, m->base + size, dm))
			return ACL_SUCCESS;
		free(dm);
	}
	return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of host memory");
}

static aclError import_new_locked(struct acl_device *d, const char *key,
				  const struct acl_ipc_key *k, void **devPtr)
{
	struct ipc_mem *m = calloc(1, sizeof(*m));
	uint64_t size;
	aclError err;

	if (!m)
		return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of host memory");
	err = acl_ipc_import("aclrtIpcMemImportByKey", d, k->key, &m->handle, &m->base, &size);
	if (!err && k->offset >= size)
		err = ACL_FAIL(ACL_ERROR_INVALID_PARAM, "key %s names an offset past its buffer",
			       key);
	if (!err)
		err = import_map(d, m, size);
	if (err) {
		if (m->handle)
			drv_gem_close(d->fd, m->handle);
		free(m);
		return err;
	}
	memcpy(m->key, key, strnlen(key, ACL_IPC_KEY_LEN - 1));
	m->dev = d;
	m->ptr = (void *)(uintptr_t)(m->base + k->offset);
	m->refs = 1;
	m->next = ipc_mems;
	ipc_mems = m;
	*devPtr = m->ptr;
	return ACL_SUCCESS;
}

/*
 * Importing a key again gives the same pointer, and takes one more
 * aclrtIpcMemClose to give it back.
 */
ACL_EXPORT aclError aclrtIpcMemImportByKey(void **devPtr, const char *key, uint64_t flags)
{
	struct ipc_mem *m, *own;
	struct acl_device *d;
	struct acl_ipc_key k;
	aclError err = ACL_SUCCESS;

	ACL_CHECK_NULL(devPtr);
	/* Peer access is for another card's memory; on one card there is nothing to enable. */
	if (flags & ~ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown flags %#lx",
				(unsigned long)flags);
	d = acl_ipc_key_device(__func__, key, KIND, &k, &err);
	if (!d)
		return err;
	acl_mutex_lock(&acl_ipc_lock);
	m = mem_find_locked(key, false);
	own = mem_find_locked(key, true);
	if (m) {
		m->refs++;
		*devPtr = m->ptr;
	} else if (own) {
		err = import_own_locked(own, devPtr);
	} else {
		err = import_new_locked(d, key, &k, devPtr);
	}
	acl_mutex_unlock(&acl_ipc_lock);
	return err;
}

static void import_close_locked(struct ipc_mem *m)
{
	if (--m->refs)
		return;
	mem_unlink_locked(m);
	if (m->handle) {
		free(acl_rmap_remove(&m->dev->devmem, m->base));
		drv_gem_close(m->dev->fd, m->handle);
	}
	free(m);
}

ACL_EXPORT aclError aclrtIpcMemClose(const char *key)
{
	struct ipc_mem *m;
	aclError err = ACL_SUCCESS;

	ACL_CHECK_NULL(key);
	acl_mutex_lock(&acl_ipc_lock);
	/* An exporter that imported its own key closes the import first. */
	m = mem_find_locked(key, false);
	if (m) {
		import_close_locked(m);
	} else if ((m = mem_find_locked(key, true))) {
		mem_unlink_locked(m);
		acl_ipc_revoke(m->dev, m->drv_key);
		free(m);
	} else {
		err = ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%.*s is not a key this process "
			       "exported or imported", ACL_IPC_KEY_LEN, key);
	}
	acl_mutex_unlock(&acl_ipc_lock);
	return err;
}

ACL_EXPORT aclError aclrtIpcMemSetAttr(const char *key, aclrtIpcMemAttrType type, uint64_t attr)
{
	(void)key, (void)type, (void)attr;
	return ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "this card has no SIO, HCCS or UB "
			"links to choose between: its memory is shared through the driver");
}

ACL_EXPORT aclError aclrtIpcMemImportPidInterServer(const char *key, aclrtServerPid *serverPids,
						    size_t num)
{
	(void)key, (void)serverPids, (void)num;
	return ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
			"processes of other servers cannot import this card's memory");
}

/*
 * The device's file is closing, with every key and handle in it; its
 * imports' entries in the device's memory map go with that map.
 */
void acl_ipc_mem_drop_device(struct acl_device *d)
{
	struct ipc_mem **pp, *m;

	acl_mutex_lock(&acl_ipc_lock);
	for (pp = &ipc_mems; (m = *pp);) {
		if (m->dev == d) {
			*pp = m->next;
			free(m);
		} else {
			pp = &m->next;
		}
	}
	acl_mutex_unlock(&acl_ipc_lock);
}

/*
 * The number SetImportPid takes: the process id as the driver, which
 * resolves those numbers in the caller's pid namespace, sees it.
 */
ACL_EXPORT aclError aclrtDeviceGetBareTgid(int32_t *pid)
{
	ACL_CHECK_NULL(pid);
	*pid = (int32_t)getpid();
	return ACL_SUCCESS;
}
