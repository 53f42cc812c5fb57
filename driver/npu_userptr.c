// SPDX-License-Identifier: GPL-2.0-only
/*
 * User memory as a host buffer (DRM_IOCTL_NPU_BO_USERPTR): the caller's
 * pages, pinned long term and DMA-mapped for the buffer's whole life, so
 * that commands name them by handle as they name a host buffer's, and the
 * MMU maps them page by page. The pin, not the caller's mapping, keeps the
 * pages: memory unmapped while registered stays the card's until the last
 * reference (the handle, a job, a mapping) goes.
 */

#include <linux/dma-buf.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>

#include "npu_drv.h"
#include "npu_vm.h"

/**
 * struct npu_userptr - pinned user memory
 * @bo: the buffer; its GEM object's size is the memory's, its owner the
 *	context that registered it, the only one that may use it
 * @pages: the pinned pages
 * @npages: number of @pages
 * @sgt: their DMA mapping for the card
 * @read_only: the card may only read the memory (DRM_NPU_USERPTR_READ_ONLY)
 */
struct npu_userptr {
	struct npu_bo bo;
	struct page **pages;
	unsigned long npages;
	struct sg_table sgt;
	bool read_only;
};

static struct npu_userptr *to_npu_userptr(struct drm_gem_object *obj)
{
	return container_of(obj, struct npu_userptr, bo.base.base);
}

static enum dma_data_direction npu_userptr_dir(struct npu_userptr *up)
{
	return up->read_only ? DMA_TO_DEVICE : DMA_BIDIRECTIONAL;
}

static void npu_userptr_free(struct drm_gem_object *obj)
{
	struct npu_userptr *up = to_npu_userptr(obj);
	struct npu_device *ndev = to_npu_device(obj->dev);

	dma_sync_sgtable_for_cpu(ndev->drm.dev, &up->sgt, npu_userptr_dir(up));
	dma_unmap_sgtable(ndev->drm.dev, &up->sgt, npu_userptr_dir(up),
			  DMA_ATTR_SKIP_CPU_SYNC);
	sg_free_table(&up->sgt);
	unpin_user_pages_dirty_lock(up->pages, up->npages, !up->read_only);
	atomic64_sub(up->npages, &ndev->pinned_pages);
	kvfree(up->pages);
	drm_gem_object_release(obj);
	kfree(up);
}

/* The memory is the caller's own: there is nothing to share. */
static struct dma_buf *npu_userptr_export(struct drm_gem_object *obj, int flags)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static const struct drm_gem_object_funcs npu_userptr_funcs = {
	.free = npu_userptr_free,
	.export = npu_userptr_export,
};

bool npu_bo_is_userptr(struct drm_gem_object *obj)
{
	return obj->funcs == &npu_userptr_funcs;
}

/**
 * npu_userptr_of - user memory of a context
 * @ctx: the context naming it
 * @obj: any buffer
 *
 * Return: true if @obj is user memory that @ctx registered.
 */
bool npu_userptr_of(struct npu_ctx *ctx, struct drm_gem_object *obj)
{
	return npu_bo_is_userptr(obj) && to_npu_userptr(obj)->bo.owner == ctx->id;
}

/* Whether the card may write the buffer, user memory or not. */
bool npu_userptr_writable(struct drm_gem_object *obj)
{
	return !npu_bo_is_userptr(obj) || !to_npu_userptr(obj)->read_only;
}

struct sg_table *npu_userptr_sgt(struct drm_gem_object *obj)
{
	return &to_npu_userptr(obj)->sgt;
}

/* Mapped as a host buffer is, page by page. */
static int npu_userptr_runs(struct drm_gem_object *obj, u64 offset, u64 size,
			    npu_vm_run_fn fn, void *priv)
{
	return npu_vm_host_backing.runs(obj, offset, size, fn, priv);
}

static int npu_userptr_may_bind(struct npu_ctx *ctx, struct drm_gem_object *obj,
				bool write)
{
	if (!npu_userptr_of(ctx, obj))
		return -ENOENT;
	return write && to_npu_userptr(obj)->read_only ? -EACCES : 0;
}

static const struct npu_vm_backing npu_userptr_backing = {
	.runs = npu_userptr_runs,
	.may_bind = npu_userptr_may_bind,
};

/* Pins all of [ptr, ptr + npages pages) or nothing. */
static int npu_userptr_pin(struct npu_userptr *up, u64 ptr)
{
	unsigned int gup = FOLL_LONGTERM | (up->read_only ? 0 : FOLL_WRITE);
	unsigned long done = 0;
	int n;

	while (done < up->npages) {
		n = pin_user_pages_fast(ptr + (done << PAGE_SHIFT),
					min_t(unsigned long, up->npages - done, INT_MAX),
					gup, up->pages + done);
		if (n <= 0) {
			unpin_user_pages(up->pages, done);
			return n ? n : -EFAULT;
		}
		done += n;
	}
	return 0;
}

static int npu_userptr_map(struct npu_device *ndev, struct npu_userptr *up)
{
	int ret;

	ret = sg_alloc_table_from_pages(&up->sgt, up->pages, up->npages, 0,
					up->bo.base.base.size, GFP_KERNEL);
	if (ret)
		return ret;
	/*
	 * The caller may register the same memory twice, or pass it to a
	 * command as user memory too: the DMA API allows mappings that
	 * overlap only to a caller doing its own cache maintenance.
	 */
	ret = dma_map_sgtable(ndev->drm.dev, &up->sgt, npu_userptr_dir(up),
			      DMA_ATTR_SKIP_CPU_SYNC);
	if (ret) {
		sg_free_table(&up->sgt);
		return ret;
	}
	dma_sync_sgtable_for_device(ndev->drm.dev, &up->sgt, npu_userptr_dir(up));
	return 0;
}

static struct npu_userptr *npu_userptr_create(struct npu_ctx *ctx, u64 ptr,
					      u64 size, bool read_only)
{
	struct npu_device *ndev = ctx->ndev;
	struct npu_userptr *up;
	int ret = -ENOMEM;

	up = kzalloc(sizeof(*up), GFP_KERNEL);
	if (!up)
		return ERR_PTR(-ENOMEM);
	up->bo.owner = ctx->id;
	up->bo.vm_backing = &npu_userptr_backing;
	up->read_only = read_only;
	up->npages = size >> PAGE_SHIFT;
	up->pages = kvmalloc_array(up->npages, sizeof(*up->pages), GFP_KERNEL);
	if (!up->pages)
		goto err_free;
	ret = npu_userptr_pin(up, ptr);
	if (ret) {
		/* Memory the caller cannot pin so is not its to give. */
		ret = ret == -ENOMEM ? ret : -EFAULT;
		goto err_pages;
	}
	up->bo.base.base.funcs = &npu_userptr_funcs;
	drm_gem_private_object_init(&ndev->drm, &up->bo.base.base, size);
	ret = npu_userptr_map(ndev, up);
	if (ret) {
		drm_gem_object_release(&up->bo.base.base);
		unpin_user_pages(up->pages, up->npages);
		goto err_pages;
	}
	atomic64_add(up->npages, &ndev->pinned_pages);
	return up;

err_pages:
	kvfree(up->pages);
err_free:
	kfree(up);
	return ERR_PTR(ret);
}

int npu_bo_userptr_ioctl(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct drm_npu_bo_userptr *args = data;
	struct npu_userptr *up;
	int ret;

	if (args->flags & ~DRM_NPU_USERPTR_READ_ONLY || args->handle ||
	    !PAGE_ALIGNED(args->ptr) || !PAGE_ALIGNED(args->size) ||
	    !args->size || args->size > DRM_NPU_MAX_USERPTR_SIZE)
		return -EINVAL;
	if (!access_ok(u64_to_user_ptr(args->ptr), args->size))
		return -EFAULT;

	up = npu_userptr_create(file->driver_priv, args->ptr, args->size,
				args->flags & DRM_NPU_USERPTR_READ_ONLY);
	if (IS_ERR(up))
		return PTR_ERR(up);
	ret = drm_gem_handle_create(file, &up->bo.base.base, &args->handle);
	/* The handle holds the memory now, or nothing does. */
	drm_gem_object_put(&up->bo.base.base);
	return ret;
}
