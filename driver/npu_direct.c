// SPDX-License-Identifier: GPL-2.0-only
/*
 * Direct streams: rings that userspace writes without a system call, and
 * whose commands the card checks itself against the context's bindings
 * and slots (docs/hardware.md, "Direct rings"). A binding is a GEM handle
 * below NPU_DIRECT_BINDINGS; the driver fills its entry when the buffer is
 * created and revokes it when the handle is closed, waiting until no
 * transfer still uses the buffer before the handle, and so perhaps the
 * memory, is let go.
 */

#include <linux/dma-mapping.h>
#include <linux/iopoll.h>

#include "npu_drv.h"

/**
 * struct npu_direct_area - the memory of a direct ring, mapped by userspace
 * @gem: GEM object through which userspace maps it, read-write
 * @vaddr: a control page (struct drm_npu_direct_ctrl), then the commands;
 *	pages of their own that live as long as @gem
 * @dma: bus address of @vaddr while @link is in npu_device.direct_areas
 * @link: as npu_fence_area.link; under npu_device.fence_lock
 */
struct npu_direct_area {
	struct drm_gem_object gem;
	void *vaddr;
	dma_addr_t dma;
	struct list_head link;
};

/* The card's user shadow is the uapi's control page. */
static_assert(sizeof(struct drm_npu_direct_ctrl) == sizeof(struct npu_ring_shadow));
static_assert(offsetof(struct drm_npu_direct_ctrl, tail) == offsetof(struct npu_ring_shadow, tail));
static_assert(offsetof(struct drm_npu_direct_ctrl, head) == offsetof(struct npu_ring_shadow, head));
static_assert(offsetof(struct drm_npu_direct_ctrl, fetching) ==
	      offsetof(struct npu_ring_shadow, fetching));
/* Userspace writes the card's direct commands as they are. */
static_assert(sizeof(struct drm_npu_direct_cmd) == sizeof(struct npu_direct_cmd));
static_assert(offsetof(struct drm_npu_direct_cmd, dst_bind) ==
	      offsetof(struct npu_direct_cmd, dst_bind));
static_assert(offsetof(struct drm_npu_direct_cmd, value) == offsetof(struct npu_direct_cmd, value));
static_assert((int)DRM_NPU_DOP_COPY == (int)NPU_OP_COPY);
static_assert((int)DRM_NPU_DOP_FILL == (int)NPU_OP_FILL);
static_assert((int)DRM_NPU_DOP_SLOT_WRITE == (int)NPU_OP_FENCE);
static_assert((int)DRM_NPU_DOP_COMPUTE == (int)NPU_OP_COMPUTE);
static_assert((int)DRM_NPU_DOP_SLOT_WAIT == (int)NPU_OP_WAIT);
static_assert((int)DRM_NPU_DOP_TIMESTAMP == (int)NPU_OP_TIMESTAMP);
static_assert(sizeof(struct drm_npu_fence_slot) == sizeof(struct npu_slot));

static struct npu_direct_area *to_direct_area(struct drm_gem_object *obj)
{
	return container_of(obj, struct npu_direct_area, gem);
}

static void npu_direct_area_unmap_locked(struct npu_device *ndev,
					 struct npu_direct_area *area)
{
	lockdep_assert_held(&ndev->fence_lock);
	dma_unmap_single(ndev->drm.dev, area->dma, area->gem.size, DMA_BIDIRECTIONAL);
	list_del_init(&area->link);
}

/**
 * npu_direct_unmap_all - take every direct ring's memory away from the card
 * @ndev: the card, unplugged and no longer mastering the bus
 */
void npu_direct_unmap_all(struct npu_device *ndev)
{
	struct npu_direct_area *area, *next;

	spin_lock(&ndev->fence_lock);
	list_for_each_entry_safe(area, next, &ndev->direct_areas, link)
		npu_direct_area_unmap_locked(ndev, area);
	spin_unlock(&ndev->fence_lock);
}

static void npu_direct_area_free(struct drm_gem_object *obj)
{
	struct npu_direct_area *area = to_direct_area(obj);
	struct npu_device *ndev = to_npu_device(obj->dev);

	spin_lock(&ndev->fence_lock);
	if (!list_empty(&area->link))
		npu_direct_area_unmap_locked(ndev, area);
	spin_unlock(&ndev->fence_lock);
	free_pages_exact(area->vaddr, obj->size);
	drm_gem_object_release(obj);
	kfree(area);
}

/**
 * npu_direct_ring_tail - the tail userspace last gave a direct ring
 * @ring: a started direct ring
 *
 * Return: the control page's tail: any value; userspace owns it.
 */
u32 npu_direct_ring_tail(struct npu_ring *ring)
{
	const struct drm_npu_direct_ctrl *ctrl = ring->area->vaddr;

	return READ_ONCE(ctrl->tail);
}

void npu_direct_area_put(struct npu_direct_area *area)
{
	drm_gem_object_put(&area->gem);
}

static int npu_direct_area_mmap(struct drm_gem_object *obj, struct vm_area_struct *vma)
{
	struct npu_direct_area *area = to_direct_area(obj);
	unsigned long pages = obj->size >> PAGE_SHIFT;
	unsigned long offset;

	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	offset = vma->vm_pgoff - drm_vma_node_start(&obj->vma_node);
	if (offset >= pages || vma_pages(vma) > pages - offset)
		return -ENXIO;
	vma->vm_pgoff = offset;
	return remap_pfn_range(vma, vma->vm_start,
			       page_to_pfn(virt_to_page(area->vaddr)) + offset,
			       vma->vm_end - vma->vm_start, vma->vm_page_prot);
}

/*
 * Mapped whole at mmap time: a fault means DRM zapped the mapping because
 * the card went away, and a ring that no card reads is gone.
 */
static vm_fault_t npu_direct_area_fault(struct vm_fault *vmf)
{
	return VM_FAULT_SIGBUS;
}

static const struct vm_operations_struct npu_direct_area_vm_ops = {
	.open = drm_gem_vm_open,
	.close = drm_gem_vm_close,
	.fault = npu_direct_area_fault,
};

static const struct drm_gem_object_funcs npu_direct_area_funcs = {
	.free = npu_direct_area_free,
	.mmap = npu_direct_area_mmap,
	.vm_ops = &npu_direct_area_vm_ops,
};

/*
 * Pages of their own, as a fence area's: the DMA mapping goes with the
 * card, the memory with the object, which a mapping may keep.
 */
static struct npu_direct_area *npu_direct_area_create(struct npu_ctx *ctx, u32 entries)
{
	size_t size = PAGE_SIZE + PAGE_ALIGN(entries * sizeof(struct npu_direct_cmd));
	struct npu_device *ndev = ctx->ndev;
	struct npu_direct_area *area;
	int ret;

	area = kzalloc(sizeof(*area), GFP_KERNEL);
	if (!area)
		return ERR_PTR(-ENOMEM);
	area->gem.funcs = &npu_direct_area_funcs;
	INIT_LIST_HEAD(&area->link);
	drm_gem_private_object_init(&ndev->drm, &area->gem, size);

	ret = -ENOMEM;
	area->vaddr = alloc_pages_exact(size, GFP_KERNEL | __GFP_ZERO);
	if (!area->vaddr)
		goto err_release;
	ret = drm_gem_create_mmap_offset(&area->gem);
	if (ret)
		goto err_free;
	ret = drm_vma_node_allow(&area->gem.vma_node, ctx->file);
	if (ret)
		goto err_free;
	area->dma = dma_map_single(ndev->drm.dev, area->vaddr, size, DMA_BIDIRECTIONAL);
	if (dma_mapping_error(ndev->drm.dev, area->dma)) {
		ret = -ENOMEM;
		goto err_revoke;
	}
	spin_lock(&ndev->fence_lock);
	list_add_tail(&area->link, &ndev->direct_areas);
	spin_unlock(&ndev->fence_lock);
	return area;

err_revoke:
	drm_vma_node_revoke(&area->gem.vma_node, ctx->file);
err_free:
	free_pages_exact(area->vaddr, size);
err_release:
	drm_gem_object_release(&area->gem);
	kfree(area);
	return ERR_PTR(ret);
}

/**
 * npu_direct_prepare_host_bo - give a host buffer the table its binding names
 * @ndev: the card
 * @bo: a host buffer whose pages are mapped (bo->sgt)
 *
 * Return: 0 or -ENOMEM.
 */
int npu_direct_prepare_host_bo(struct npu_device *ndev, struct npu_bo *bo)
{
	struct scatterlist *sg;
	size_t bytes;
	unsigned int i;

	bo->bind_sg_count = bo->sgt->nents;
	bytes = PAGE_ALIGN(bo->bind_sg_count * sizeof(*bo->bind_sg));
	bo->bind_sg = alloc_pages_exact(bytes, GFP_KERNEL);
	if (!bo->bind_sg)
		return -ENOMEM;
	for_each_sgtable_dma_sg(bo->sgt, sg, i) {
		bo->bind_sg[i].addr = cpu_to_le64(sg_dma_address(sg));
		bo->bind_sg[i].len = cpu_to_le64(sg_dma_len(sg));
	}
	bo->bind_sg_dma = dma_map_single(ndev->drm.dev, bo->bind_sg, bytes, DMA_TO_DEVICE);
	if (dma_mapping_error(ndev->drm.dev, bo->bind_sg_dma)) {
		free_pages_exact(bo->bind_sg, bytes);
		bo->bind_sg = NULL;
		return -ENOMEM;
	}
	return 0;
}

void npu_direct_release_host_bo(struct npu_device *ndev, struct npu_bo *bo)
{
	size_t bytes = PAGE_ALIGN(bo->bind_sg_count * sizeof(*bo->bind_sg));

	if (!bo->bind_sg)
		return;
	dma_unmap_single(ndev->drm.dev, bo->bind_sg_dma, bytes, DMA_TO_DEVICE);
	free_pages_exact(bo->bind_sg, bytes);
	bo->bind_sg = NULL;
}

/**
 * npu_direct_fail_events - fail the events a stopped direct ring still owed
 * @stream: a direct stream whose ring the card has stopped (reset)
 * @error: the stream's error
 *
 * The driver reads none of a direct ring's commands to queue them, so it
 * cannot fail their events with their job as it fails a job's: it reads
 * the rest of the ring now, from the first command the card did not
 * complete (the privileged shadow's head, which a reset leaves) to the
 * tail userspace gave it. All of that is userspace's to write, so only
 * the context's event slots are failed: a ring that lies fails nothing
 * work of its own could not.
 */
void npu_direct_fail_events(struct npu_stream *stream, u32 error)
{
	struct npu_ring *ring = stream->ring;
	const struct npu_direct_cmd *cmds;
	u32 head, left, i;
	int idx;

	/* Once unplugged, the ring's memory may be gone: so are the events. */
	if (!drm_dev_enter(&stream->ctx->ndev->drm, &idx))
		return;
	cmds = ring->area->vaddr + PAGE_SIZE;
	head = le32_to_cpu(READ_ONCE(ring->shadow->head));
	left = min(npu_direct_ring_tail(ring) - head, ring->entries);
	for (i = 0; i < left; i++) {
		const struct npu_direct_cmd *c = &cmds[(head + i) & (ring->entries - 1)];
		u32 slot = le32_to_cpu(READ_ONCE(c->dst_bind));

		if (le16_to_cpu(READ_ONCE(c->opcode)) == NPU_OP_FENCE &&
		    npu_ctx_slot_valid(stream->ctx, slot, true))
			WRITE_ONCE(npu_ctx_slot(stream->ctx, slot)->error, error);
	}
	drm_dev_exit(idx);
}

/**
 * npu_direct_bind - make a new buffer's handle its binding
 * @ctx: the context that created it
 * @handle: its handle in @ctx's file
 * @bo: the buffer, device memory or a host buffer prepared for it
 *
 * Handles past NPU_DIRECT_BINDINGS are no binding: direct rings cannot
 * name those buffers.
 */
void npu_direct_bind(struct npu_ctx *ctx, u32 handle, struct npu_bo *bo)
{
	struct npu_binding entry = { };
	bool host = npu_bo_is_host(&bo->base.base);

	if (handle >= NPU_DIRECT_BINDINGS)
		return;
	entry.size = cpu_to_le64(npu_bo_size(&bo->base.base));
	if (host) {
		entry.kind = cpu_to_le32(NPU_BIND_HOST);
		entry.addr = cpu_to_le64(bo->bind_sg_dma);
		entry.sg_count = cpu_to_le32(bo->bind_sg_count);
	} else {
		entry.kind = cpu_to_le32(NPU_BIND_DEVICE);
		/* a VA on a translated ring */
		entry.addr = cpu_to_le64(npu_vm_bo_addr(bo) - DRM_NPU_DEVICE_ADDR_BASE);
	}
	mutex_lock(&ctx->direct_lock);
	WRITE_ONCE(bo->bind_handle, handle);
	ctx->fence->binds->entries[handle] = entry;
	mutex_unlock(&ctx->direct_lock);
}

/* Whether the ring shows a transfer that may use a binding revoked at @epoch. */
static bool npu_direct_ring_holds(struct npu_ring *ring, u64 epoch)
{
	u64 seen = le64_to_cpu(READ_ONCE(ring->shadow->bind_epoch));

	return seen && seen < epoch;
}

/*
 * Waits until the stream's ring no longer uses a binding revoked at
 * @epoch: at most one transfer long, or a hang timeout for a ring that
 * stopped moving, which then fails. A reset ring shows 0 at once; a
 * dead card moves nothing any more.
 */
static void npu_direct_quiesce(struct npu_stream *stream, u64 epoch)
{
	struct npu_ring *ring = stream->ring;
	bool held;
	int ret;

	lockdep_assert_held(&stream->ctx->direct_lock);
	if (READ_ONCE(stream->ctx->ndev->dead))
		return;
	ret = read_poll_timeout(npu_direct_ring_holds, held, !held, 50,
				(u64)npu_hang_timeout_ms * USEC_PER_MSEC, false,
				ring, epoch);
	if (ret)
		npu_stream_fail(stream, DRM_NPU_ERR_HANG);
}

/*
 * Revokes @bo's binding; the caller lets its handle go afterwards. The
 * buffer forgets the handle: once the number goes to another buffer, a
 * later close of this one (through a second handle) must not revoke it.
 */
static void npu_direct_revoke(struct npu_ctx *ctx, struct npu_bo *bo)
{
	struct npu_stream *stream;
	u64 epoch;

	mutex_lock(&ctx->direct_lock);
	if (!bo->bind_handle) {
		mutex_unlock(&ctx->direct_lock);
		return;
	}
	WRITE_ONCE(ctx->fence->binds->entries[bo->bind_handle].kind,
		   cpu_to_le32(NPU_BIND_NONE));
	WRITE_ONCE(bo->bind_handle, 0);
	epoch = ++ctx->bind_epoch;
	WRITE_ONCE(ctx->fence->binds->epoch, cpu_to_le64(epoch));
	/*
	 * Store the revocation and the epoch, then load the rings' epochs:
	 * pairs with the card's barrier between publishing the epoch it
	 * looks up under and its lookup (docs/hardware.md).
	 */
	mb();
	list_for_each_entry(stream, &ctx->direct_streams, direct_link)
		npu_direct_quiesce(stream, epoch);
	mutex_unlock(&ctx->direct_lock);
}

/**
 * npu_direct_bo_close - drm_gem_object_funcs.close of every buffer
 * @obj: the buffer
 * @file: the file whose handle to it is being deleted
 *
 * A binding is the handle the buffer was created with: it is revoked when
 * that handle goes (DRM_IOCTL_GEM_CLOSE), which drm_gem_handle_delete()
 * has already taken out of the file's table. A file being released has
 * stopped its direct rings before (npu_direct_ctx_stop()), and its table
 * still holds every handle: nothing to do then.
 */
void npu_direct_bo_close(struct drm_gem_object *obj, struct drm_file *file)
{
	struct npu_bo *bo = container_of(obj, struct npu_bo, base.base);
	struct npu_ctx *ctx = file->driver_priv;
	u32 handle = READ_ONCE(bo->bind_handle);
	bool gone;

	if (!handle || bo->owner != ctx->id)
		return;
	spin_lock(&file->table_lock);
	gone = idr_find(&file->object_idr, handle) != obj;
	spin_unlock(&file->table_lock);
	if (gone)
		npu_direct_revoke(ctx, bo);
}

/* The file may map the area no more; mappings it made stay. */
static void npu_direct_area_drop(struct npu_ctx *ctx, struct npu_direct_area *area)
{
	drm_vma_node_revoke(&area->gem.vma_node, ctx->file);
	npu_direct_area_put(area);
}

/**
 * npu_direct_stream_start - give a direct stream its ring
 * @stream: a stream with a claimed, stopped ring
 * @entries: ring size in commands
 *
 * Return: 0, or a negative errno with the ring stopped.
 */
int npu_direct_stream_start(struct npu_stream *stream, u32 entries)
{
	struct npu_ctx *ctx = stream->ctx;
	struct npu_fence_area *fence = ctx->fence;
	struct npu_ring_direct direct;
	struct npu_direct_area *area;
	int ret;

	area = npu_direct_area_create(ctx, entries);
	if (IS_ERR(area))
		return PTR_ERR(area);
	direct = (struct npu_ring_direct) {
		.area = area,
		.cmds = area->vaddr + PAGE_SIZE,
		.cmds_dma = area->dma + PAGE_SIZE,
		.shadow_dma = area->dma,
		.binds_dma = fence->binds_dma,
		.slots_dma = fence->dma,
		.irq_dma = fence->irq_wanted_dma,
		.nslots = fence->count,
	};
	/* One reference for the ring, one for the stream. */
	drm_gem_object_get(&area->gem);
	mutex_lock(&ctx->direct_lock);
	ret = npu_ring_start_direct(stream->ring, entries, stream->priority, &direct);
	if (!ret) {
		list_add_tail(&stream->direct_link, &ctx->direct_streams);
		stream->area = area;
	}
	mutex_unlock(&ctx->direct_lock);
	if (ret)
		npu_direct_area_drop(ctx, area);
	return ret;
}

/**
 * npu_direct_stream_stop - a direct stream's ring no longer uses bindings
 * @stream: the stream, failed (its ring reset) or being destroyed
 */
void npu_direct_stream_stop(struct npu_stream *stream)
{
	struct npu_ctx *ctx = stream->ctx;

	struct npu_direct_area *area;

	mutex_lock(&ctx->direct_lock);
	list_del_init(&stream->direct_link);
	area = stream->area;
	stream->area = NULL;
	mutex_unlock(&ctx->direct_lock);
	if (area)
		npu_direct_area_drop(ctx, area);
}

/**
 * npu_direct_ctx_stop - stop a closing file's direct rings
 * @ctx: the context, whose file is being released, before its handles go
 */
void npu_direct_ctx_stop(struct npu_ctx *ctx)
{
	struct npu_stream *stream;
	unsigned long id;

	mutex_lock(&ctx->lock);
	xa_for_each(&ctx->streams, id, stream)
		if (stream->direct && kref_get_unless_zero(&stream->ref))
			break;
	mutex_unlock(&ctx->lock);
	/* One at a time: npu_stream_fail() must not run under ctx->lock. */
	while (stream) {
		npu_stream_fail(stream, DRM_NPU_ERR_ABORTED);
		npu_direct_stream_stop(stream);
		npu_stream_put(stream);
		mutex_lock(&ctx->lock);
		xa_for_each_start(&ctx->streams, id, stream, id + 1)
			if (stream->direct && kref_get_unless_zero(&stream->ref))
				break;
		mutex_unlock(&ctx->lock);
	}
}

static struct npu_stream *npu_direct_stream_get(struct npu_ctx *ctx, u32 id)
{
	struct npu_stream *stream = npu_stream_get(ctx, id);

	if (stream && !stream->direct) {
		npu_stream_put(stream);
		return ERR_PTR(-EINVAL);
	}
	return stream ?: ERR_PTR(-ENOENT);
}

int npu_stream_map_ioctl(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct drm_npu_stream_map *args = data;
	struct npu_stream *stream;
	int ret = 0;

	if (args->flags || args->mmap_offset || args->size)
		return -EINVAL;
	stream = npu_direct_stream_get(file->driver_priv, args->stream);
	if (IS_ERR(stream))
		return PTR_ERR(stream);
	mutex_lock(&stream->ctx->direct_lock);
	if (stream->area) {
		args->mmap_offset = drm_vma_node_offset_addr(&stream->area->gem.vma_node);
		args->size = stream->area->gem.size;
	} else {
		ret = -EIO;
	}
	mutex_unlock(&stream->ctx->direct_lock);
	npu_stream_put(stream);
	return ret;
}

int npu_stream_kick_ioctl(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct drm_npu_stream_kick *args = data;
	struct npu_stream *stream;
	int ret = 0, idx;

	if (args->flags)
		return -EINVAL;
	stream = npu_direct_stream_get(file->driver_priv, args->stream);
	if (IS_ERR(stream))
		return PTR_ERR(stream);
	if (!drm_dev_enter(dev, &idx)) {
		ret = -ENODEV;
	} else {
		ret = npu_ctx_lost_error(stream->ctx);
		if (!ret && READ_ONCE(stream->state) != NPU_STREAM_ACTIVE)
			ret = -EIO;
		else if (!ret)
			npu_ring_doorbell(stream->ctx->ndev, stream->ring->vector);
		drm_dev_exit(idx);
	}
	npu_stream_put(stream);
	return ret;
}
