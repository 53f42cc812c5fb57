// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fence area of a context: pages the card writes and userspace maps
 * read-only, the slots in it (one per stream and per event), and the waits
 * on them.  The fences that write a slot interrupt only while someone waits
 * for it: each slot has a word the card reads after such a fence
 * (NPU_CMD_IRQ_IF), non-zero while the slot has waiters.
 */

#include <linux/dma-mapping.h>
#include <linux/hrtimer.h>

#include "npu_drv.h"

#define NPU_FENCE_SLOTS	4096

/*
 * Hybrid waits, as NVMe's hybrid polling: a WAIT on the slot that the last
 * one waited on expects to take as long, sleeps until this much before
 * then (more when the waits on the slot vary more: npu_wait_margin()) and
 * polls the slot from there, for at most twice as long, before it
 * sleeps until the interrupt. A fence that lands while the waiter polls
 * needs no interrupt (its IRQ_IF word is clear), and the waiter sees it at
 * once; in the TCG guest the interrupt's way from the card to the waiter
 * costs ~200 us of host thread wake-ups, and the timer's before the fence
 * costs nothing. The price: up to twice this, per wait, spent polling, by a
 * CPU that under TCG is a host CPU the card's operators then lack: on a
 * two-CPU host loaded by other work the operators' own time grew by about
 * what the polling saved; on a quiet one it halves what a single operator
 * costs on top of its own time (docs/driver.md).
 */
static unsigned int npu_wait_poll_us = 300;
module_param_named(wait_poll_us, npu_wait_poll_us, uint, 0644);
MODULE_PARM_DESC(wait_poll_us, "a WAIT polls its slot from this long before it expects the fence, for at most twice as long (0: never polls)");

/* The widest a slot's varying waits make the margin. */
#define NPU_WAIT_POLL_MAX_NS	(2 * NSEC_PER_MSEC)

static struct npu_fence_area *to_fence_area(struct drm_gem_object *obj)
{
	return container_of(obj, struct npu_fence_area, gem);
}

static size_t npu_fence_irq_size(struct npu_fence_area *fence)
{
	return PAGE_ALIGN(fence->count * sizeof(*fence->irq_wanted));
}

static size_t npu_fence_binds_size(void)
{
	return PAGE_ALIGN(struct_size_t(struct npu_bind_table, entries,
					NPU_DIRECT_BINDINGS));
}

/* The card can no longer reach the area; the CPU still can. */
static void npu_fence_unmap_locked(struct npu_device *ndev,
				   struct npu_fence_area *fence)
{
	lockdep_assert_held(&ndev->fence_lock);
	dma_unmap_single(ndev->drm.dev, fence->binds_dma, npu_fence_binds_size(),
			 DMA_TO_DEVICE);
	dma_unmap_single(ndev->drm.dev, fence->irq_wanted_dma,
			 npu_fence_irq_size(fence), DMA_TO_DEVICE);
	dma_unmap_single(ndev->drm.dev, fence->dma, fence->gem.size,
			 DMA_BIDIRECTIONAL);
	list_del_init(&fence->link);
}

/**
 * npu_fence_unmap_all - take every fence area away from the card
 * @ndev: the card, unplugged and no longer mastering the bus
 *
 * The areas themselves live on with their files: a waiter may still read
 * a slot, and the card's failure is written into them.
 */
void npu_fence_unmap_all(struct npu_device *ndev)
{
	struct npu_fence_area *fence, *next;

	spin_lock(&ndev->fence_lock);
	list_for_each_entry_safe(fence, next, &ndev->fence_areas, link)
		npu_fence_unmap_locked(ndev, fence);
	spin_unlock(&ndev->fence_lock);
}

static void npu_fence_free(struct drm_gem_object *obj)
{
	struct npu_fence_area *fence = to_fence_area(obj);
	struct npu_device *ndev = to_npu_device(obj->dev);

	spin_lock(&ndev->fence_lock);
	if (!list_empty(&fence->link))
		npu_fence_unmap_locked(ndev, fence);
	spin_unlock(&ndev->fence_lock);
	free_pages_exact(fence->binds, npu_fence_binds_size());
	free_pages_exact(fence->irq_wanted, npu_fence_irq_size(fence));
	free_pages_exact(fence->slots, obj->size);
	drm_gem_object_release(obj);
	kfree(fence);
}

static int npu_fence_mmap(struct drm_gem_object *obj, struct vm_area_struct *vma)
{
	struct npu_fence_area *fence = to_fence_area(obj);
	unsigned long pages = obj->size >> PAGE_SHIFT;
	unsigned long offset;

	/* The card writes the slots; userspace only reads them. */
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	vm_flags_mod(vma, VM_DONTEXPAND | VM_DONTDUMP, VM_MAYWRITE);
	offset = vma->vm_pgoff - drm_vma_node_start(&obj->vma_node);
	if (offset >= pages || vma_pages(vma) > pages - offset)
		return -ENXIO;
	vma->vm_pgoff = offset;
	return remap_pfn_range(vma, vma->vm_start,
			       page_to_pfn(virt_to_page(fence->slots)) + offset,
			       vma->vm_end - vma->vm_start, vma->vm_page_prot);
}

/*
 * The area is mapped whole at mmap time, so a fault means DRM zapped the
 * mapping because the card went away: reads then see zeroes, not SIGBUS.
 */
static vm_fault_t npu_fence_fault(struct vm_fault *vmf)
{
	return vmf_insert_pfn(vmf->vma, vmf->address & PAGE_MASK,
			      my_zero_pfn(vmf->address));
}

static const struct vm_operations_struct npu_fence_vm_ops = {
	.open = drm_gem_vm_open,
	.close = drm_gem_vm_close,
	.fault = npu_fence_fault,
};

static const struct drm_gem_object_funcs npu_fence_funcs = {
	.free = npu_fence_free,
	.mmap = npu_fence_mmap,
	.vm_ops = &npu_fence_vm_ops,
};

/*
 * Pages of their own rather than coherent memory: the DMA mapping must go
 * when the card does (npu_fence_unmap_all()), the memory only with the
 * object. x86 keeps a streaming mapping coherent, as the card needs.
 */
static int npu_fence_map(struct npu_device *ndev, struct npu_fence_area *fence)
{
	fence->dma = dma_map_single(ndev->drm.dev, fence->slots, fence->gem.size,
				    DMA_BIDIRECTIONAL);
	if (dma_mapping_error(ndev->drm.dev, fence->dma))
		return -ENOMEM;
	fence->irq_wanted_dma = dma_map_single(ndev->drm.dev, fence->irq_wanted,
					       npu_fence_irq_size(fence),
					       DMA_TO_DEVICE);
	if (dma_mapping_error(ndev->drm.dev, fence->irq_wanted_dma))
		goto err_unmap_slots;
	fence->binds_dma = dma_map_single(ndev->drm.dev, fence->binds,
					  npu_fence_binds_size(), DMA_TO_DEVICE);
	if (dma_mapping_error(ndev->drm.dev, fence->binds_dma))
		goto err_unmap_irq;
	spin_lock(&ndev->fence_lock);
	list_add_tail(&fence->link, &ndev->fence_areas);
	spin_unlock(&ndev->fence_lock);
	return 0;

err_unmap_irq:
	dma_unmap_single(ndev->drm.dev, fence->irq_wanted_dma,
			 npu_fence_irq_size(fence), DMA_TO_DEVICE);
err_unmap_slots:
	dma_unmap_single(ndev->drm.dev, fence->dma, fence->gem.size,
			 DMA_BIDIRECTIONAL);
	return -ENOMEM;
}

static struct npu_fence_area *npu_fence_create(struct npu_ctx *ctx)
{
	size_t size = PAGE_ALIGN(NPU_FENCE_SLOTS * sizeof(struct drm_npu_fence_slot));
	struct npu_device *ndev = ctx->ndev;
	struct npu_fence_area *fence;
	int ret;

	fence = kzalloc(sizeof(*fence), GFP_KERNEL);
	if (!fence)
		return ERR_PTR(-ENOMEM);
	fence->gem.funcs = &npu_fence_funcs;
	fence->count = NPU_FENCE_SLOTS;
	/* no slot: the first WAIT has nothing to go by */
	fence->wait_slot = U32_MAX;
	INIT_LIST_HEAD(&fence->link);
	drm_gem_private_object_init(&ndev->drm, &fence->gem, size);

	fence->slots = alloc_pages_exact(size, GFP_KERNEL | __GFP_ZERO);
	if (!fence->slots) {
		ret = -ENOMEM;
		goto err_release;
	}
	/* Apart from the slots: userspace must not see the waiter counts. */
	fence->irq_wanted = alloc_pages_exact(npu_fence_irq_size(fence),
					      GFP_KERNEL | __GFP_ZERO);
	if (!fence->irq_wanted) {
		ret = -ENOMEM;
		goto err_free;
	}
	/* The direct rings' bindings: the card reads them, userspace does not. */
	fence->binds = alloc_pages_exact(npu_fence_binds_size(), GFP_KERNEL | __GFP_ZERO);
	if (!fence->binds) {
		ret = -ENOMEM;
		goto err_free_irq;
	}
	fence->binds->epoch = cpu_to_le64(1);
	ret = drm_gem_create_mmap_offset(&fence->gem);
	if (ret)
		goto err_free_binds;
	ret = npu_fence_map(ndev, fence);
	if (ret)
		goto err_free_binds;
	return fence;

err_free_binds:
	free_pages_exact(fence->binds, npu_fence_binds_size());
err_free_irq:
	free_pages_exact(fence->irq_wanted, npu_fence_irq_size(fence));
err_free:
	free_pages_exact(fence->slots, size);
err_release:
	drm_gem_object_release(&fence->gem);
	kfree(fence);
	return ERR_PTR(ret);
}

/**
 * npu_fence_init - give a new context its fence area and slot bitmaps
 * @ctx: the context, not yet published
 * @file: the DRM file that may map the area
 *
 * Return: 0, or a negative errno with nothing allocated.
 */
int npu_fence_init(struct npu_ctx *ctx, struct drm_file *file)
{
	int ret;

	ctx->slots_used = bitmap_zalloc(NPU_FENCE_SLOTS, GFP_KERNEL);
	ctx->event_slots = bitmap_zalloc(NPU_FENCE_SLOTS, GFP_KERNEL);
	if (!ctx->slots_used || !ctx->event_slots) {
		ret = -ENOMEM;
		goto err_free;
	}
	ctx->fence = npu_fence_create(ctx);
	if (IS_ERR(ctx->fence)) {
		ret = PTR_ERR(ctx->fence);
		goto err_free;
	}
	ret = drm_vma_node_allow(&ctx->fence->gem.vma_node, file);
	if (ret)
		goto err_fence;
	return 0;

err_fence:
	drm_gem_object_put(&ctx->fence->gem);
err_free:
	bitmap_free(ctx->event_slots);
	bitmap_free(ctx->slots_used);
	return ret;
}

/**
 * npu_fence_fini - let go of a closing context's fence area
 * @ctx: the context, its streams destroyed
 * @file: the DRM file being closed
 */
void npu_fence_fini(struct npu_ctx *ctx, struct drm_file *file)
{
	drm_vma_node_revoke(&ctx->fence->gem.vma_node, file);
	/* An mmap of the area may outlive the file; the object lives on. */
	drm_gem_object_put(&ctx->fence->gem);
	bitmap_free(ctx->event_slots);
	bitmap_free(ctx->slots_used);
}

struct drm_npu_fence_slot *npu_ctx_slot(struct npu_ctx *ctx, u32 slot)
{
	return &ctx->fence->slots[slot];
}

dma_addr_t npu_ctx_slot_dma(struct npu_ctx *ctx, u32 slot)
{
	return ctx->fence->dma + slot * sizeof(struct drm_npu_fence_slot);
}

/* The word a fence that writes @slot names with NPU_CMD_IRQ_IF. */
dma_addr_t npu_ctx_slot_irq_dma(struct npu_ctx *ctx, u32 slot)
{
	return ctx->fence->irq_wanted_dma + slot * sizeof(*ctx->fence->irq_wanted);
}

/**
 * npu_ctx_slot_irq_get - have the fences that write a slot interrupt
 * @ctx: the context
 * @slot: a slot of @ctx
 *
 * The caller looks at what it waits for (the slot, the ring's HEAD or its
 * completion word) only after this, and sleeps until an interrupt if it
 * is not there yet; npu_ctx_slot_irq_put() when it no longer waits.
 */
void npu_ctx_slot_irq_get(struct npu_ctx *ctx, u32 slot)
{
	atomic_inc(&ctx->fence->irq_wanted[slot]);
	/*
	 * Store the word, then load what the card writes: pairs with the
	 * card's barrier between a fence's writes and its read of the word,
	 * so either it sees the word and interrupts, or the caller sees the
	 * fence's writes (docs/hardware.md).
	 */
	mb();
}

void npu_ctx_slot_irq_put(struct npu_ctx *ctx, u32 slot)
{
	atomic_dec(&ctx->fence->irq_wanted[slot]);
}

/**
 * npu_ctx_slot_alloc - take a fence slot and clear it
 * @ctx: the context
 * @event: the slot is for an event, rather than a stream
 *
 * Return: the slot number, or -ENOSPC.
 */
int npu_ctx_slot_alloc(struct npu_ctx *ctx, bool event)
{
	struct drm_npu_fence_slot *slot;
	unsigned long n;

	mutex_lock(&ctx->lock);
	n = find_first_zero_bit(ctx->slots_used, ctx->fence->count);
	if (n < ctx->fence->count) {
		slot = npu_ctx_slot(ctx, n);
		WRITE_ONCE(slot->value, 0);
		WRITE_ONCE(slot->timestamp, 0);
		WRITE_ONCE(slot->error, DRM_NPU_ERR_NONE);
		__set_bit(n, ctx->slots_used);
		if (event)
			__set_bit(n, ctx->event_slots);
	}
	mutex_unlock(&ctx->lock);
	return n < ctx->fence->count ? n : -ENOSPC;
}

void npu_ctx_slot_free(struct npu_ctx *ctx, u32 slot)
{
	mutex_lock(&ctx->lock);
	__clear_bit(slot, ctx->slots_used);
	__clear_bit(slot, ctx->event_slots);
	mutex_unlock(&ctx->lock);
}

/* Slots may be checked without ctx->lock: a racing free is the user's bug. */
bool npu_ctx_slot_valid(struct npu_ctx *ctx, u32 slot, bool event_only)
{
	if (slot >= ctx->fence->count)
		return false;
	return test_bit(slot, event_only ? ctx->event_slots : ctx->slots_used);
}

/* Slots neither a stream nor an event holds. */
u32 npu_ctx_free_slots(struct npu_ctx *ctx)
{
	u32 used;

	mutex_lock(&ctx->lock);
	used = bitmap_weight(ctx->slots_used, ctx->fence->count);
	mutex_unlock(&ctx->lock);
	return ctx->fence->count - used;
}

int npu_slot_alloc_ioctl(struct drm_device *dev, void *data,
			 struct drm_file *file)
{
	struct drm_npu_slot *args = data;
	int slot;

	if (args->slot || args->pad || args->value)
		return -EINVAL;
	slot = npu_ctx_slot_alloc(file->driver_priv, true);
	if (slot < 0)
		return slot;
	args->slot = slot;
	return 0;
}

int npu_slot_free_ioctl(struct drm_device *dev, void *data,
			struct drm_file *file)
{
	struct drm_npu_slot *args = data;
	struct npu_ctx *ctx = file->driver_priv;

	if (args->pad || args->value)
		return -EINVAL;
	if (!npu_ctx_slot_valid(ctx, args->slot, true))
		return -ENOENT;
	npu_ctx_slot_free(ctx, args->slot);
	return 0;
}

int npu_slot_signal_ioctl(struct drm_device *dev, void *data,
			  struct drm_file *file)
{
	struct drm_npu_slot *args = data;
	struct npu_ctx *ctx = file->driver_priv;
	struct drm_npu_fence_slot *slot;
	int idx;

	if (args->pad)
		return -EINVAL;
	if (!npu_ctx_slot_valid(ctx, args->slot, true))
		return -ENOENT;

	if (!drm_dev_enter(dev, &idx))
		return -ENODEV;
	slot = npu_ctx_slot(ctx, args->slot);
	WRITE_ONCE(slot->error, DRM_NPU_ERR_NONE);
	WRITE_ONCE(slot->timestamp, npu_rd64(ctx->ndev, NPU_GLB_CLOCK_NS));
	drm_dev_exit(idx);
	/* The card's WAIT polls the value; order the timestamp before it. */
	smp_store_release(&slot->value, args->value);
	wake_up_all(&ctx->wq);
	return 0;
}

static bool npu_slot_reached(struct drm_npu_fence_slot *slot, u64 value)
{
	return (s64)(READ_ONCE(slot->value) - value) >= 0;
}

/* The slot failed before reaching what @wait waits for: it never will. */
bool npu_ctx_wait_failed(struct npu_ctx *ctx, const struct npu_slot_wait *wait)
{
	struct drm_npu_fence_slot *slot = npu_ctx_slot(ctx, wait->slot);

	return READ_ONCE(slot->error) &&
	       (wait->indirect || !npu_slot_reached(slot, wait->value));
}

/* Sleeps until the slot reaches @value, fails, or @deadline_ns passes. */
static int npu_wait_slot(struct npu_ctx *ctx, struct drm_npu_fence_slot *slot,
			 u64 value, s64 deadline_ns)
{
	ktime_t timeout = KTIME_MAX;
	int ret;

	if (deadline_ns != DRM_NPU_WAIT_FOREVER) {
		timeout = ktime_sub(ns_to_ktime(deadline_ns), ktime_get());
		/* A relative hrtimer treats a negative time as never. */
		if (timeout <= 0)
			return -ETIME;
	}
	ret = wait_event_interruptible_hrtimeout(ctx->wq,
						 npu_slot_reached(slot, value) ||
						 READ_ONCE(slot->error),
						 timeout);
	if (ret)
		return ret;
	return npu_slot_reached(slot, value) ? 0 : -EIO;
}

/* CLOCK_MONOTONIC, as WAIT's deadline. */
static s64 npu_now_ns(void)
{
	return ktime_to_ns(ktime_get());
}

/* The interrupt's wait: the card interrupts for @args->slot meanwhile. */
static int npu_wait_irq(struct npu_ctx *ctx, const struct drm_npu_wait *args,
			s64 deadline_ns)
{
	int ret;

	/* npu_wait_slot() looks at the slot again before sleeping. */
	npu_ctx_slot_irq_get(ctx, args->slot);
	ret = npu_wait_slot(ctx, npu_ctx_slot(ctx, args->slot), args->value,
			    deadline_ns);
	npu_ctx_slot_irq_put(ctx, args->slot);
	return ret;
}

/*
 * Polls the slot until @until_ns; 0 or -EIO once it is there or failed,
 * -EAGAIN when the time is up or the CPU is wanted elsewhere.
 */
static int npu_wait_poll(struct drm_npu_fence_slot *slot, u64 value, s64 until_ns)
{
	while (!npu_slot_reached(slot, value)) {
		if (READ_ONCE(slot->error))
			return -EIO;
		if (npu_now_ns() >= until_ns || need_resched() ||
		    signal_pending(current))
			return -EAGAIN;
		cpu_relax();
	}
	return 0;
}

/*
 * The timer that ends the sleep wakes the waiter late, by its slack and
 * by what waking a CPU from idle costs: ~250 us in the TCG guest, more
 * than the margin, so that a poll timed by the margin alone would start
 * after the fence half the time. The sleep ends that much earlier, as
 * learnt from the wait's own timers (a quarter of the way to each).
 */
static void npu_wait_learn_late(struct npu_fence_area *fence, s64 late_ns)
{
	s64 late = READ_ONCE(fence->wait_late_ns);

	late_ns = clamp(late_ns, 0LL, (s64)NPU_WAIT_POLL_MAX_NS);
	WRITE_ONCE(fence->wait_late_ns, late + (late_ns - late) / 4);
}

/*
 * The hybrid wait (npu_wait_poll_us): sleeps until the poll's start, or
 * the interrupt if the fence comes first, then polls; -EAGAIN when the
 * poll ran out, and the interrupt's wait takes over. *@polled says that
 * the fence was seen polling.
 */
static int npu_wait_hybrid(struct npu_ctx *ctx, const struct drm_npu_wait *args,
			   s64 start_ns, s64 expect_ns, s64 margin, bool *polled)
{
	struct npu_fence_area *fence = ctx->fence;
	s64 poll_from = start_ns + expect_ns - margin;
	s64 wake_at = poll_from - READ_ONCE(fence->wait_late_ns);
	s64 until = min(wake_at, args->timeout_ns);
	int ret;

	/* The deadline is absolute: DRM_NPU_WAIT_FOREVER is S64_MAX. */
	if (npu_now_ns() < wake_at) {
		ret = npu_wait_irq(ctx, args, until);
		if (ret != -ETIME || until != wake_at)
			return ret;
		npu_wait_learn_late(fence, npu_now_ns() - wake_at);
	}
	until = min(npu_now_ns() + 2 * margin, args->timeout_ns);
	ret = npu_wait_poll(npu_ctx_slot(ctx, args->slot), args->value, until);
	*polled = !ret;
	if (ret == -EAGAIN && npu_now_ns() >= args->timeout_ns)
		return -ETIME;
	return ret;
}

/*
 * How far either side of the expected time to poll: wait_poll_us, or
 * twice how far the waits on the slot have been from what they expected
 * (as TCP's retransmission timer goes by its round trips' deviation), for
 * on a host whose speed swings the same work takes a fifth longer or
 * shorter from one run to the next; at most NPU_WAIT_POLL_MAX_NS.
 */
static s64 npu_wait_margin(const struct npu_fence_area *fence)
{
	s64 base = (s64)npu_wait_poll_us * NSEC_PER_USEC;

	return clamp(2 * READ_ONCE(fence->wait_dev_ns), base,
		     max(base, NPU_WAIT_POLL_MAX_NS));
}

/*
 * What the next wait on the slot expects: this one's time when it polled
 * the fence; otherwise the interrupt told it, late, so a margin less. The
 * deviation moves a quarter of the way to this wait's miss.
 */
static void npu_wait_learn(struct npu_fence_area *fence, u32 slot, s64 took_ns,
			   bool polled)
{
	s64 dev = 0;

	if (!polled)
		took_ns -= (s64)npu_wait_poll_us * NSEC_PER_USEC;
	took_ns = max(took_ns, 0LL);
	if (READ_ONCE(fence->wait_slot) == slot) {
		dev = READ_ONCE(fence->wait_dev_ns);
		dev += (abs(took_ns - READ_ONCE(fence->wait_ns)) - dev) / 4;
	}
	WRITE_ONCE(fence->wait_slot, slot);
	WRITE_ONCE(fence->wait_ns, took_ns);
	WRITE_ONCE(fence->wait_dev_ns, dev);
}

/*
 * A wait that must sleep: hybrid when the last wait that got there was on
 * the same slot, else (or when the poll runs out) by the interrupt.
 */
static int npu_wait_sleep(struct npu_ctx *ctx, const struct drm_npu_wait *args)
{
	struct npu_fence_area *fence = ctx->fence;
	s64 start = npu_now_ns();
	bool polled = false;
	int ret = -EAGAIN;

	if (npu_wait_poll_us && READ_ONCE(fence->wait_slot) == args->slot)
		ret = npu_wait_hybrid(ctx, args, start, READ_ONCE(fence->wait_ns),
				      npu_wait_margin(fence), &polled);
	if (ret == -EAGAIN)
		ret = npu_wait_irq(ctx, args, args->timeout_ns);
	if (!ret)
		npu_wait_learn(fence, args->slot, npu_now_ns() - start, polled);
	return ret;
}

int npu_wait_ioctl(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct drm_npu_wait *args = data;
	struct npu_ctx *ctx = file->driver_priv;
	struct drm_npu_fence_slot *slot;
	int ret;

	if (args->flags)
		return -EINVAL;
	if (!npu_ctx_slot_valid(ctx, args->slot, false))
		return -ENOENT;

	slot = npu_ctx_slot(ctx, args->slot);
	if (npu_slot_reached(slot, args->value))
		ret = 0;
	else if (READ_ONCE(slot->error))
		ret = -EIO;
	else
		ret = npu_wait_sleep(ctx, args);
	/* The work waited for is done: give back the user pages it wrote. */
	if (!ret)
		npu_ctx_retire_for_waiter(ctx);
	return ret;
}
