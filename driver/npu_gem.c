// SPDX-License-Identifier: GPL-2.0-only
/*
 * Buffers: device memory carved from the card with drm_mm, and pinned host
 * memory (shmem pages, DMA-mapped for their whole life). Both are GEM
 * objects owned by the context that created them.
 */

#include <linux/dma-buf.h>

#include "npu_drv.h"

static struct npu_bo *to_npu_bo(struct drm_gem_object *obj)
{
	return container_of(obj, struct npu_bo, base.base);
}

/* Host memory is the context's own, shared with no other. */
static struct dma_buf *npu_host_bo_export(struct drm_gem_object *obj, int flags)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static void npu_device_bo_free(struct drm_gem_object *obj)
{
	struct npu_bo *bo = to_npu_bo(obj);
	struct npu_device *ndev = to_npu_device(obj->dev);

	/* No context reaches the memory once it is someone else's. */
	npu_vm_bo_free(bo);
	mutex_lock(&ndev->mm_lock);
	drm_mm_remove_node(&bo->node);
	WRITE_ONCE(ndev->devmem_used, ndev->devmem_used - bo->node.size);
	mutex_unlock(&ndev->mm_lock);

	drm_gem_object_release(obj);
	kfree(bo);
}

static void npu_device_bo_close(struct drm_gem_object *obj, struct drm_file *file)
{
	npu_direct_bo_close(obj, file);
	npu_share_bo_close(obj, file);
}

static const struct drm_gem_object_funcs npu_device_bo_funcs = {
	.free = npu_device_bo_free,
	.open = npu_share_bo_open,
	.close = npu_device_bo_close,
	.export = npu_prime_export,
};

static void npu_host_bo_free(struct drm_gem_object *obj)
{
	struct npu_bo *bo = to_npu_bo(obj);

	npu_direct_release_host_bo(to_npu_device(obj->dev), bo);
	if (bo->sgt)
		atomic64_sub(obj->size >> PAGE_SHIFT,
			     &to_npu_device(obj->dev)->pinned_pages);
	drm_gem_shmem_object_free(obj);
}

static const struct drm_gem_object_funcs npu_host_bo_funcs = {
	.free = npu_host_bo_free,
	.close = npu_direct_bo_close,
	.print_info = drm_gem_shmem_object_print_info,
	.pin = drm_gem_shmem_object_pin,
	.unpin = drm_gem_shmem_object_unpin,
	.get_sg_table = drm_gem_shmem_object_get_sg_table,
	.vmap = drm_gem_shmem_object_vmap,
	.vunmap = drm_gem_shmem_object_vunmap,
	.mmap = drm_gem_shmem_object_mmap,
	.export = npu_host_bo_export,
	.vm_ops = &drm_gem_shmem_vm_ops,
};

bool npu_bo_is_host(struct drm_gem_object *obj)
{
	return obj->funcs == &npu_host_bo_funcs;
}

bool npu_bo_is_device(struct drm_gem_object *obj)
{
	return obj->funcs == &npu_device_bo_funcs;
}

/* Where a device buffer starts in the card's memory. */
u64 npu_device_bo_offset(struct drm_gem_object *obj)
{
	return to_npu_bo(obj)->node.start;
}

/*
 * Bytes of memory the buffer takes, on the card or in the host; none for
 * another card's buffer, which that card counts.
 */
u64 npu_bo_size(struct drm_gem_object *obj)
{
	if (npu_bo_is_device(obj))
		return to_npu_bo(obj)->node.size;
	if (npu_bo_is_host(obj) || npu_bo_is_userptr(obj))
		return obj->size;
	return 0;
}

/* drm_driver.gem_create_object: every shmem object is a host buffer. */
struct drm_gem_object *npu_gem_create_object(struct drm_device *dev, size_t size)
{
	struct npu_bo *bo = kzalloc(sizeof(*bo), GFP_KERNEL);

	if (!bo)
		return ERR_PTR(-ENOMEM);
	bo->base.base.funcs = &npu_host_bo_funcs;
	bo->vm_backing = &npu_vm_host_backing;
	INIT_LIST_HEAD(&bo->vm_windows);
	return &bo->base.base;
}

/* What the memory held for its previous owner must not show through. */
static int npu_device_bo_clear(struct npu_device *ndev, struct npu_bo *bo)
{
	int idx;

	if (!drm_dev_enter(&ndev->drm, &idx))
		return -ENODEV;
	memset_io(ndev->regs + ndev->id.devmem_offset + bo->node.start, 0,
		  bo->node.size);
	drm_dev_exit(idx);
	return 0;
}

static int npu_devmem_insert(struct npu_device *ndev, struct drm_mm_node *node,
			     u64 size, u64 align)
{
	int ret;

	mutex_lock(&ndev->mm_lock);
	ret = drm_mm_insert_node_generic(&ndev->mm, node, size, align, 0,
					 DRM_MM_INSERT_BEST);
	if (!ret)
		WRITE_ONCE(ndev->devmem_used, ndev->devmem_used + size);
	mutex_unlock(&ndev->mm_lock);
	return ret;
}

static struct npu_bo *npu_device_bo_create(struct npu_ctx *ctx, u64 size, u64 align)
{
	struct npu_device *ndev = ctx->ndev;
	struct npu_bo *bo;
	int ret;

	bo = kzalloc(sizeof(*bo), GFP_KERNEL);
	if (!bo)
		return ERR_PTR(-ENOMEM);
	bo->owner = ctx->id;
	bo->base.base.funcs = &npu_device_bo_funcs;
	bo->vm_backing = &npu_vm_device_backing;
	INIT_LIST_HEAD(&bo->vm_windows);
	/* GEM sizes are in pages; the allocation itself is bo->node.size. */
	drm_gem_private_object_init(&ndev->drm, &bo->base.base, PAGE_ALIGN(size));

	ret = npu_devmem_insert(ndev, &bo->node, size, align);
	if (ret) {
		/*
		 * Buffers the caller closed stay allocated while completed,
		 * not yet retired jobs hold them; a wait does not retire
		 * those (npu_ctx_retire_for_waiter()), so do it here.
		 */
		npu_ctx_retire(ctx);
		ret = npu_devmem_insert(ndev, &bo->node, size, align);
	}
	if (ret) {
		drm_gem_object_release(&bo->base.base);
		kfree(bo);
		return ERR_PTR(-ENOMEM);
	}
	ret = npu_device_bo_clear(ndev, bo);
	if (!ret)
		ret = npu_vm_window_map(ctx, bo);
	if (ret) {
		drm_gem_object_put(&bo->base.base);
		return ERR_PTR(ret);
	}
	return bo;
}

static struct npu_bo *npu_host_bo_create(struct npu_ctx *ctx, u64 size)
{
	struct drm_gem_shmem_object *shmem;
	struct npu_bo *bo;
	struct sg_table *sgt;
	int ret;

	shmem = drm_gem_shmem_create(&ctx->ndev->drm, size);
	if (IS_ERR(shmem))
		return ERR_CAST(shmem);
	bo = container_of(shmem, struct npu_bo, base);
	bo->owner = ctx->id;

	/* Pins the pages and maps them for the card until the buffer dies. */
	sgt = drm_gem_shmem_get_pages_sgt(shmem);
	if (IS_ERR(sgt)) {
		ret = PTR_ERR(sgt);
		drm_gem_object_put(&shmem->base);
		return ERR_PTR(ret);
	}
	bo->sgt = sgt;
	atomic64_add(size >> PAGE_SHIFT, &ctx->ndev->pinned_pages);

	ret = drm_gem_create_mmap_offset(&shmem->base);
	if (!ret)
		ret = npu_direct_prepare_host_bo(ctx->ndev, bo);
	if (ret) {
		drm_gem_object_put(&shmem->base);
		return ERR_PTR(ret);
	}
	return bo;
}

int npu_bo_create_ioctl(struct drm_device *dev, void *data,
			struct drm_file *file)
{
	struct drm_npu_bo_create *args = data;
	struct npu_ctx *ctx = file->driver_priv;
	struct npu_bo *bo;
	u64 size;
	int ret;

	if (!args->size || args->flags & ~(DRM_NPU_BO_HOST | DRM_NPU_BO_BLOCK_ALIGNED) ||
	    args->flags == (DRM_NPU_BO_HOST | DRM_NPU_BO_BLOCK_ALIGNED) ||
	    args->handle || args->addr || args->mmap_offset)
		return -EINVAL;
	if (args->size > ctx->ndev->id.devmem_size &&
	    !(args->flags & DRM_NPU_BO_HOST))
		return -ENOMEM;
	if (args->size > SZ_16G)
		return -ENOMEM;

	if (args->flags & DRM_NPU_BO_HOST) {
		size = PAGE_ALIGN(args->size);
		bo = npu_host_bo_create(ctx, size);
	} else if (args->flags & DRM_NPU_BO_BLOCK_ALIGNED) {
		size = ALIGN(args->size, DRM_NPU_VM_BLOCK_SIZE);
		bo = npu_device_bo_create(ctx, size, DRM_NPU_VM_BLOCK_SIZE);
	} else {
		/* Whole pages: mapping it elsewhere maps nothing of another buffer. */
		size = ALIGN(args->size, DRM_NPU_VM_PAGE_SIZE);
		bo = npu_device_bo_create(ctx, size, DRM_NPU_BO_ADDR_ALIGN);
	}
	if (IS_ERR(bo))
		return PTR_ERR(bo);

	ret = drm_gem_handle_create(file, &bo->base.base, &args->handle);
	if (!ret) {
		npu_direct_bind(ctx, args->handle, bo);
		if (args->flags & DRM_NPU_BO_HOST)
			args->mmap_offset = drm_vma_node_offset_addr(&bo->base.base.vma_node);
		else
			args->addr = npu_vm_bo_addr(bo);
	}
	/* The handle holds the buffer now, or nothing does. */
	drm_gem_object_put(&bo->base.base);
	return ret;
}

/**
 * npu_device_bo_lookup - find the context's device buffer holding a range
 * @ctx: the context using the range
 * @addr: device address, as userspace names it
 * @size: bytes from @addr, at least one
 * @offset: out: the virtual address of @addr, which the card is given
 *
 * Return: the buffer with a reference the caller puts, or NULL when the
 * range is not wholly inside one device buffer that @ctx created or
 * imported.
 */
struct drm_gem_object *npu_device_bo_lookup(struct npu_ctx *ctx, u64 addr,
					    u64 size, u64 *offset)
{
	struct npu_device *ndev = ctx->ndev;
	struct drm_gem_object *found = NULL;
	struct drm_mm_node *node;
	u64 start, end;

	if (addr < DRM_NPU_DEVICE_ADDR_BASE + ndev->vm.window ||
	    check_add_overflow(addr - DRM_NPU_DEVICE_ADDR_BASE - ndev->vm.window,
			       size, &end))
		return NULL;
	start = addr - DRM_NPU_DEVICE_ADDR_BASE - ndev->vm.window;

	mutex_lock(&ndev->mm_lock);
	drm_mm_for_each_node_in_range(node, &ndev->mm, start, start + 1) {
		struct npu_bo *bo = container_of(node, struct npu_bo, node);

		if ((bo->owner == ctx->id ||
		     npu_share_imported(&bo->base.base, ctx->id)) &&
		    end <= node->start + node->size &&
		    kref_get_unless_zero(&bo->base.base.refcount))
			found = &bo->base.base;
		break;
	}
	mutex_unlock(&ndev->mm_lock);

	if (found)
		*offset = addr - DRM_NPU_DEVICE_ADDR_BASE;
	return found;
}

/**
 * npu_host_bo_lookup - find a host buffer of the context by handle
 * @ctx: the context
 * @handle: GEM handle in the context's file
 *
 * Return: the buffer with a reference, or NULL if @handle is not a host
 * buffer or user memory of @ctx.
 */
struct drm_gem_object *npu_host_bo_lookup(struct npu_ctx *ctx, u32 handle)
{
	struct drm_gem_object *obj = drm_gem_object_lookup(ctx->file, handle);

	if (obj && !(npu_bo_is_host(obj) && to_npu_bo(obj)->owner == ctx->id) &&
	    !npu_userptr_of(ctx, obj)) {
		drm_gem_object_put(obj);
		obj = NULL;
	}
	return obj;
}

struct sg_table *npu_host_bo_sgt(struct drm_gem_object *obj)
{
	return npu_bo_is_userptr(obj) ? npu_userptr_sgt(obj) : to_npu_bo(obj)->sgt;
}
