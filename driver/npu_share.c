// SPDX-License-Identifier: GPL-2.0-only
/*
 * Shared buffers: a device buffer of one context used by other contexts of
 * the same card, as the runtime's IPC memory, notifies and events need.
 *
 * Exporting wraps the buffer in a dma-buf (PRIME) that the key holds; an
 * import takes the GEM object behind the dma-buf and gives the importer a
 * handle of its own. Every holder is a GEM reference, so card memory goes
 * back to the allocator only after the last one, and after the commands
 * that named it (their jobs hold it too). A context may name a buffer it
 * did not create only while it holds an imported handle to it: an import
 * record, counted per handle, says so to npu_device_bo_lookup().
 */

#include <linux/dma-buf.h>
#include <linux/hashtable.h>
#include <linux/pid.h>
#include <linux/random.h>
#include <linux/sched.h>

#include <drm/drm_prime.h>

#include "npu_drv.h"

/**
 * struct npu_export - a key under which a buffer may be imported
 * @node: in npu_exports, by @key
 * @ndev: the card
 * @key: random, non-zero, unique on the card
 * @exporter: id of the context that exported the buffer
 * @dmabuf: the buffer as a dma-buf, holding a reference to it
 * @any_process: every process may import (DRM_NPU_EXPORT_ANY_PROCESS)
 * @npids: entries of @pids
 * @pids: processes that may import, referenced: a number reused by a new
 *	process does not name the old one's struct pid
 */
struct npu_export {
	struct hlist_node node;
	struct npu_device *ndev;
	u64 key;
	u64 exporter;
	struct dma_buf *dmabuf;
	bool any_process;
	unsigned int npids;
	struct pid *pids[DRM_NPU_EXPORT_MAX_PIDS];
};

/**
 * struct npu_import - a context's imported handles to one buffer
 * @node: in npu_imports, by @obj and @ctx_id
 * @obj: the buffer, not referenced: the handles hold it
 * @ctx_id: the importing context
 * @handles: its handles to @obj that imports created and that are open
 */
struct npu_import {
	struct hlist_node node;
	struct drm_gem_object *obj;
	u64 ctx_id;
	unsigned int handles;
};

/*
 * Keys, and each context's count of them. A mutex: export and import
 * create handles and dma-bufs under it. Never held while a buffer is put
 * (its free takes npu_device.mm_lock, under which npu_share_imported()
 * runs).
 */
static DEFINE_MUTEX(npu_exports_lock);
static DEFINE_HASHTABLE(npu_exports, 8);

/* Import records; taken under npu_device.mm_lock. */
static DEFINE_SPINLOCK(npu_imports_lock);
static DEFINE_HASHTABLE(npu_imports, 8);

static unsigned long npu_import_hash(struct drm_gem_object *obj, u64 ctx_id)
{
	return (unsigned long)obj ^ (unsigned long)ctx_id;
}

static struct npu_import *npu_import_find(struct drm_gem_object *obj, u64 ctx_id)
{
	struct npu_import *imp;

	lockdep_assert_held(&npu_imports_lock);
	hash_for_each_possible(npu_imports, imp, node, npu_import_hash(obj, ctx_id))
		if (imp->obj == obj && imp->ctx_id == ctx_id)
			return imp;
	return NULL;
}

/**
 * npu_share_imported - whether a context holds an imported handle to a buffer
 * @obj: a device buffer
 * @ctx_id: the context
 *
 * Return: true if @ctx_id may name @obj in its commands though it did not
 * create it.
 */
bool npu_share_imported(struct drm_gem_object *obj, u64 ctx_id)
{
	bool found;

	spin_lock(&npu_imports_lock);
	found = npu_import_find(obj, ctx_id);
	spin_unlock(&npu_imports_lock);
	return found;
}

/*
 * The import through PRIME under way (DRM_IOCTL_PRIME_FD_TO_HANDLE of a
 * buffer of this card that the context did not create): the handle the
 * DRM core creates for it is counted when it opens (npu_share_bo_open()),
 * before the core publishes it, so that it cannot be closed uncounted.
 * Imports through PRIME take turns under the mutex; the rest is under
 * npu_imports_lock.
 */
static DEFINE_MUTEX(npu_prime_import_lock);
static struct {
	struct task_struct *task;
	struct drm_gem_object *obj;
	u64 ctx_id;
	struct npu_import *spare;
} npu_prime_importing;

/* Counts one more imported handle; @spare is used if it is the first. */
static void npu_import_get_locked(struct drm_gem_object *obj, u64 ctx_id,
				  struct npu_import **spare)
{
	struct npu_import *imp;

	lockdep_assert_held(&npu_imports_lock);
	imp = npu_import_find(obj, ctx_id);
	if (!imp) {
		imp = *spare;
		*spare = NULL;
		imp->obj = obj;
		imp->ctx_id = ctx_id;
		hash_add(npu_imports, &imp->node, npu_import_hash(obj, ctx_id));
	}
	imp->handles++;
}

static void npu_import_get(struct drm_gem_object *obj, u64 ctx_id,
			   struct npu_import **spare)
{
	spin_lock(&npu_imports_lock);
	npu_import_get_locked(obj, ctx_id, spare);
	spin_unlock(&npu_imports_lock);
}

static void npu_import_put(struct drm_gem_object *obj, u64 ctx_id)
{
	struct npu_import *imp, *gone = NULL;

	spin_lock(&npu_imports_lock);
	imp = npu_import_find(obj, ctx_id);
	if (imp && !--imp->handles) {
		hash_del(&imp->node);
		gone = imp;
	}
	spin_unlock(&npu_imports_lock);
	kfree(gone);
}

/**
 * npu_share_bo_open - a handle to a device buffer is being created
 * @obj: the buffer
 * @file: the file that gets the handle
 *
 * Return: 0; a handle PRIME creates for an importer is counted as an
 * import.
 */
int npu_share_bo_open(struct drm_gem_object *obj, struct drm_file *file)
{
	struct npu_ctx *ctx = file->driver_priv;

	spin_lock(&npu_imports_lock);
	if (npu_prime_importing.task == current && npu_prime_importing.obj == obj &&
	    npu_prime_importing.ctx_id == ctx->id && npu_prime_importing.spare)
		npu_import_get_locked(obj, ctx->id, &npu_prime_importing.spare);
	spin_unlock(&npu_imports_lock);
	return 0;
}

/**
 * npu_share_prime_fd_to_handle - drm_driver.prime_fd_to_handle
 * @dev: the card
 * @file: the importing context's file
 * @fd: a dma-buf
 * @handle: out: the handle
 *
 * As the DRM core's, and a buffer of this card that another context
 * created becomes an import of this one, as DRM_IOCTL_NPU_BO_IMPORT makes
 * it.
 *
 * Return: 0 or -errno.
 */
int npu_share_prime_fd_to_handle(struct drm_device *dev, struct drm_file *file,
				 int fd, u32 *handle)
{
	struct npu_ctx *ctx = file->driver_priv;
	struct drm_gem_object *obj;
	struct npu_import *spare;
	struct dma_buf *dmabuf;
	int ret;

	dmabuf = dma_buf_get(fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	obj = npu_prime_dmabuf_bo(dmabuf);
	if (!obj || obj->dev != dev ||
	    container_of(obj, struct npu_bo, base.base)->owner == ctx->id) {
		ret = drm_gem_prime_fd_to_handle(dev, file, fd, handle);
		goto out;
	}
	/* Mapped at its address first, as an import by key is. */
	ret = npu_vm_window_map(ctx, container_of(obj, struct npu_bo, base.base));
	if (ret)
		goto out;
	ret = -ENOMEM;
	spare = kzalloc(sizeof(*spare), GFP_KERNEL);
	if (!spare)
		goto out;

	mutex_lock(&npu_prime_import_lock);
	spin_lock(&npu_imports_lock);
	npu_prime_importing.task = current;
	npu_prime_importing.obj = obj;
	npu_prime_importing.ctx_id = ctx->id;
	npu_prime_importing.spare = spare;
	spin_unlock(&npu_imports_lock);

	ret = drm_gem_prime_fd_to_handle(dev, file, fd, handle);

	spin_lock(&npu_imports_lock);
	spare = npu_prime_importing.spare;
	npu_prime_importing.task = NULL;
	npu_prime_importing.obj = NULL;
	npu_prime_importing.spare = NULL;
	spin_unlock(&npu_imports_lock);
	mutex_unlock(&npu_prime_import_lock);
	kfree(spare);
out:
	dma_buf_put(dmabuf);
	return ret;
}

/**
 * npu_share_bo_close - a handle to a device buffer is being deleted
 * @obj: the buffer
 * @file: the file that held the handle
 *
 * Handles that the creator holds are not counted; an importer's last
 * handle ends its right to name the buffer. Commands it already queued
 * hold the buffer themselves.
 */
void npu_share_bo_close(struct drm_gem_object *obj, struct drm_file *file)
{
	struct npu_ctx *ctx = file->driver_priv;

	if (container_of(obj, struct npu_bo, base.base)->owner != ctx->id)
		npu_import_put(obj, ctx->id);
}

static struct npu_export *npu_export_find(struct npu_device *ndev, u64 key)
{
	struct npu_export *exp;

	lockdep_assert_held(&npu_exports_lock);
	hash_for_each_possible(npu_exports, exp, node, key)
		if (exp->key == key && exp->ndev == ndev)
			return exp;
	return NULL;
}

static void npu_export_free(struct npu_export *exp)
{
	unsigned int i;

	for (i = 0; i < exp->npids; i++)
		put_pid(exp->pids[i]);
	dma_buf_put(exp->dmabuf);
	kfree(exp);
}

/* A key no one can guess, so that the process list is not the only guard. */
static void npu_export_add(struct npu_ctx *ctx, struct npu_export *exp)
{
	lockdep_assert_held(&npu_exports_lock);
	do {
		exp->key = get_random_u64();
	} while (!exp->key || npu_export_find(ctx->ndev, exp->key));
	hash_add(npu_exports, &exp->node, exp->key);
	ctx->exports++;
}

int npu_bo_export_ioctl(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct drm_npu_bo_export *args = data;
	struct npu_ctx *ctx = file->driver_priv;
	struct drm_gem_object *obj;
	struct npu_export *exp;
	int ret;

	if (args->flags & ~DRM_NPU_EXPORT_ANY_PROCESS || args->key)
		return -EINVAL;
	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	ret = -EINVAL;
	if (!npu_bo_is_device(obj))
		goto put;
	ret = -ENOENT;
	if (container_of(obj, struct npu_bo, base.base)->owner != ctx->id)
		goto put;
	ret = -ENOMEM;
	exp = kzalloc(sizeof(*exp), GFP_KERNEL);
	if (!exp)
		goto put;
	exp->ndev = ctx->ndev;
	exp->exporter = ctx->id;
	exp->any_process = args->flags & DRM_NPU_EXPORT_ANY_PROCESS;
	exp->dmabuf = drm_gem_prime_export(obj, O_RDWR);
	if (IS_ERR(exp->dmabuf)) {
		ret = PTR_ERR(exp->dmabuf);
		kfree(exp);
		goto put;
	}

	mutex_lock(&npu_exports_lock);
	if (ctx->exports < DRM_NPU_MAX_EXPORTS) {
		npu_export_add(ctx, exp);
		args->key = exp->key;
		ret = 0;
	} else {
		ret = -ENOSPC;
	}
	mutex_unlock(&npu_exports_lock);
	if (ret)
		npu_export_free(exp);
put:
	drm_gem_object_put(obj);
	return ret;
}

/* The processes the caller names, in its pid namespace, referenced. */
static int npu_export_pids_get(const struct drm_npu_bo_export_ctl *args,
			       struct pid **pids)
{
	s32 nr[DRM_NPU_EXPORT_MAX_PIDS];
	unsigned int i;

	if (copy_from_user(nr, u64_to_user_ptr(args->pids),
			   array_size(args->count, sizeof(nr[0]))))
		return -EFAULT;
	for (i = 0; i < args->count; i++) {
		pids[i] = nr[i] > 0 ? find_get_pid(nr[i]) : NULL;
		if (!pids[i] || !pid_has_task(pids[i], PIDTYPE_TGID)) {
			put_pid(pids[i]);
			while (i--)
				put_pid(pids[i]);
			return -ESRCH;
		}
	}
	return 0;
}

static bool npu_export_allows(const struct npu_export *exp, struct pid *pid)
{
	unsigned int i;

	for (i = 0; i < exp->npids; i++)
		if (exp->pids[i] == pid)
			return true;
	return false;
}

/* Adds @pids not yet allowed; those it does not keep are put. */
static int npu_export_allow(struct npu_export *exp, struct pid **pids,
			    unsigned int count)
{
	unsigned int i, added = 0;

	for (i = 0; i < count; i++)
		if (!npu_export_allows(exp, pids[i]))
			added++;
	if (exp->npids + added > DRM_NPU_EXPORT_MAX_PIDS)
		return -ENOSPC;
	for (i = 0; i < count; i++) {
		if (!npu_export_allows(exp, pids[i])) {
			exp->pids[exp->npids++] = pids[i];
			pids[i] = NULL;
		}
	}
	return 0;
}

static int npu_export_ctl_check(const struct drm_npu_bo_export_ctl *args)
{
	switch (args->op) {
	case DRM_NPU_EXPORT_ALLOW:
		if (!args->count || args->count > DRM_NPU_EXPORT_MAX_PIDS)
			return -EINVAL;
		return 0;
	case DRM_NPU_EXPORT_REVOKE:
		return args->count || args->pids ? -EINVAL : 0;
	default:
		return -EINVAL;
	}
}

int npu_bo_export_ctl_ioctl(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct drm_npu_bo_export_ctl *args = data;
	struct npu_ctx *ctx = file->driver_priv;
	struct pid *pids[DRM_NPU_EXPORT_MAX_PIDS] = {};
	struct npu_export *exp, *revoked = NULL;
	unsigned int i;
	int ret;

	ret = npu_export_ctl_check(args);
	if (!ret && args->op == DRM_NPU_EXPORT_ALLOW)
		ret = npu_export_pids_get(args, pids);
	if (ret)
		return ret;

	mutex_lock(&npu_exports_lock);
	exp = npu_export_find(ctx->ndev, args->key);
	if (!exp) {
		ret = -ENOENT;
	} else if (exp->exporter != ctx->id) {
		ret = -EPERM;
	} else if (args->op == DRM_NPU_EXPORT_ALLOW) {
		ret = npu_export_allow(exp, pids, args->count);
	} else {
		hash_del(&exp->node);
		ctx->exports--;
		revoked = exp;
	}
	mutex_unlock(&npu_exports_lock);

	for (i = 0; i < args->count; i++)
		put_pid(pids[i]);
	if (revoked)
		npu_export_free(revoked);
	return ret;
}

/* The buffer under @key if this context may import it, referenced. */
static struct drm_gem_object *npu_export_open(struct npu_ctx *ctx, u64 key)
{
	struct drm_gem_object *obj = ERR_PTR(-ENOENT);
	struct npu_export *exp;
	struct pid *me = get_task_pid(current, PIDTYPE_TGID);

	mutex_lock(&npu_exports_lock);
	exp = npu_export_find(ctx->ndev, key);
	if (!exp)
		goto out;
	if (exp->exporter == ctx->id) {
		obj = ERR_PTR(-EINVAL);
	} else if (!exp->any_process && !npu_export_allows(exp, me)) {
		obj = ERR_PTR(-EACCES);
	} else {
		obj = exp->dmabuf->priv;
		drm_gem_object_get(obj);
	}
out:
	mutex_unlock(&npu_exports_lock);
	put_pid(me);
	return obj;
}

int npu_bo_import_ioctl(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct drm_npu_bo_import *args = data;
	struct npu_ctx *ctx = file->driver_priv;
	struct drm_gem_object *obj;
	struct npu_import *spare;
	struct npu_bo *bo;
	int ret;

	if (!args->key || args->flags || args->handle || args->addr || args->size)
		return -EINVAL;
	spare = kzalloc(sizeof(*spare), GFP_KERNEL);
	if (!spare)
		return -ENOMEM;
	obj = npu_export_open(ctx, args->key);
	if (IS_ERR(obj)) {
		kfree(spare);
		return PTR_ERR(obj);
	}

	ret = npu_vm_window_map(ctx, container_of(obj, struct npu_bo, base.base));
	if (ret)
		goto out;
	/* Counted first: the handle may be closed as soon as it exists. */
	npu_import_get(obj, ctx->id, &spare);
	ret = drm_gem_handle_create(file, obj, &args->handle);
	if (ret) {
		npu_import_put(obj, ctx->id);
	} else {
		bo = container_of(obj, struct npu_bo, base.base);
		args->addr = npu_vm_bo_addr(bo);
		args->size = bo->node.size;
	}
out:
	kfree(spare);
	drm_gem_object_put(obj);
	return ret;
}

/**
 * npu_share_ctx_close - revoke the keys of a context being closed
 * @ctx: the context, whose handles are all closed already
 *
 * Importers keep the buffers they imported.
 */
void npu_share_ctx_close(struct npu_ctx *ctx)
{
	struct npu_export *exp;
	struct hlist_node *tmp;
	HLIST_HEAD(revoked);
	unsigned int bkt;

	mutex_lock(&npu_exports_lock);
	hash_for_each_safe(npu_exports, bkt, tmp, exp, node) {
		if (exp->ndev == ctx->ndev && exp->exporter == ctx->id) {
			hash_del(&exp->node);
			hlist_add_head(&exp->node, &revoked);
		}
	}
	ctx->exports = 0;
	mutex_unlock(&npu_exports_lock);

	hlist_for_each_entry_safe(exp, tmp, &revoked, node)
		npu_export_free(exp);
}
