/* SPDX-License-Identifier: MIT */
/*
 * Sharing device buffers with other processes (ipc_share.c), which IPC
 * memory (ipc_mem.c), notifies (notify.c) and IPC events (ipc_event.c)
 * are built on: the driver's DRM_IOCTL_NPU_BO_EXPORT, _EXPORT_CTL and
 * _IMPORT, and the text keys the vendor's API passes between processes.
 */
#ifndef LIBASCENDCL_IPC_H
#define LIBASCENDCL_IPC_H

#include "acl_internal.h"

/* The vendor's key length: its docs fix aclrtIpcMemGetExportKey's len at 65. */
#define ACL_IPC_KEY_LEN	65

/*
 * What a key names: a buffer's driver key on the card with serial, and
 * the offset of the shared memory in it. As text:
 * "<kind>-<serial>-<key>-<offset>", all hexadecimal; kind tells memory,
 * notifies and events apart.
 */
struct acl_ipc_key {
	uint64_t serial;
	uint64_t key;
	uint64_t offset;
};

extern struct acl_mutex acl_ipc_lock;

/* Writes k as text of kind into out (len bytes); false if it does not fit. */
bool acl_ipc_key_format(char *out, size_t len, const char *kind, const struct acl_ipc_key *k);
/* Reads a key of kind; false if text is not one. */
bool acl_ipc_key_parse(const char *text, const char *kind, struct acl_ipc_key *k);

/*
 * The current context's device, and that a key of it names a buffer on
 * that card: another card's key fails with the not-supported code (the
 * cards cannot reach each other's memory, issue 28), a malformed one
 * with ACL_ERROR_INVALID_PARAM.
 */
struct acl_device *acl_ipc_key_device(const char *fn, const char *text, const char *kind,
				      struct acl_ipc_key *k, aclError *err);

/* Exports handle of d under a new driver key (any: every process may import). */
aclError acl_ipc_export(const char *fn, struct acl_device *d, uint32_t handle, bool any,
			uint64_t *key);
/* Allows num processes to import key; ACL_ERROR_INVALID_PARAM for one that does not exist. */
aclError acl_ipc_allow(const char *fn, struct acl_device *d, uint64_t key, const int32_t *pid,
		       size_t num);
void acl_ipc_revoke(struct acl_device *d, uint64_t key);
/*
 * Imports key into d: ACL_ERROR_RT_NO_PERMISSION when this process is not
 * allowed, ACL_ERROR_INVALID_PARAM for a key that is unknown or closed.
 */
aclError acl_ipc_import(const char *fn, struct acl_device *d, uint64_t key, uint32_t *handle,
			uint64_t *addr, uint64_t *size);

/* What each part held in d's file, which is closing, goes with it. */
void acl_ipc_mem_drop_device(struct acl_device *d);
void acl_notify_drop_device(struct acl_device *d);

#endif /* LIBASCENDCL_IPC_H */
