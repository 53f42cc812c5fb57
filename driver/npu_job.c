// SPDX-License-Identifier: GPL-2.0-only
/*
 * Submission: userspace commands are checked against the submitter's own
 * memory and slots, turned into card commands, and queued on the stream's
 * ring as one job that holds what the card uses until it completes.
 */

#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/uaccess.h>

#include "npu_drv.h"

/* A host operand whose pages are not contiguous for the card. */
struct npu_sg_fixup {
	unsigned int cmd;
	bool dst;
	struct sg_table *sgt;
	u64 offset;
	u64 len;
	unsigned int entries;
};

/*
 * A batch or a program being checked and translated: @job gets what the
 * commands hold, @hw their translation.  @program is the program being
 * built (npu_program.c), NULL for SUBMIT's batch.
 */
struct npu_submit {
	struct npu_ctx *ctx;
	struct npu_job *job;
	struct npu_cmd *hw;
	struct npu_sg_fixup *fixups;
	unsigned int nfixups;
	struct npu_program_build *program;
	const struct drm_npu_cmd *ucmds;
	unsigned int count;
};

/*
 * Commands in flight may write the same user memory, or neighbours that
 * share a cacheline: the DMA API lets memory be mapped more than once only
 * when the caller does the CPU cache maintenance itself, as the pins do.
 */
static void npu_pin_release(struct npu_device *ndev, struct npu_pin *pin)
{
	dma_sync_sgtable_for_cpu(ndev->drm.dev, &pin->sgt, pin->dir);
	dma_unmap_sgtable(ndev->drm.dev, &pin->sgt, pin->dir,
			  DMA_ATTR_SKIP_CPU_SYNC);
	sg_free_table(&pin->sgt);
	unpin_user_pages_dirty_lock(pin->pages, pin->npages,
				    pin->dir == DMA_FROM_DEVICE);
	atomic64_sub(pin->npages, &ndev->pinned_pages);
	kvfree(pin->pages);
}

/* Gives back what the job holds; the job itself stays. */
static void npu_job_release(struct npu_device *ndev, struct npu_job *job)
{
	unsigned int i;

	for (i = 0; i < job->npins; i++)
		npu_pin_release(ndev, &job->pins[i]);
	for (i = 0; i < job->nbos; i++)
		drm_gem_object_put(job->bos[i]);
	for (i = 0; i < job->nprograms; i++)
		npu_program_put(job->programs[i]);
	for (i = 0; i < job->nprogram_edits; i++)
		npu_program_edit_free(job->program_edits[i]);
	if (job->sg)
		dma_free_coherent(ndev->drm.dev, job->sg_count * sizeof(*job->sg),
				  job->sg, job->sg_dma);
	npu_compute_job_fini(ndev, job);
}

static void npu_job_kvfree(struct npu_device *ndev, struct npu_job *job)
{
	atomic_dec(&ndev->jobs_alive);
	kvfree(job);
}

void npu_job_free(struct npu_device *ndev, struct npu_job *job)
{
	npu_job_release(ndev, job);
	npu_job_kvfree(ndev, job);
}

/*
 * Most batches are a command or two (an aclrtMemcpyAsync, an event, an
 * operator and its timestamp): their scratch lives on the stack, which
 * spares the ioctl three allocations, and their jobs, all of one size,
 * come from the stream's pool.
 */
#define NPU_SUBMIT_SMALL	2

/*
 * Pooled jobs a stream keeps, 256 KiB at most: most of what a ring of the
 * default 1024 entries holds in flight (341 batches of one command).
 */
#define NPU_JOB_POOL_MAX	256

static size_t npu_job_size(unsigned int count, unsigned int ops)
{
	unsigned int max_bos = 2 * count + ops * NPU_OP_MAX_TENSORS;

	return sizeof(struct npu_job) + max_bos * sizeof(struct drm_gem_object *) +
	       2 * count * sizeof(struct npu_pin) +
	       count * sizeof(struct npu_slot_wait) + count * sizeof(u32) +
	       2 * count * sizeof(struct npu_program *);
}

/*
 * One block: the job, then room for what @count commands, @ops of them
 * operators, can hold; the arrays fill up from their counts, which start
 * at zero.
 */
static void npu_job_init(struct npu_job *job, unsigned int count, unsigned int ops)
{
	unsigned int max_bos = 2 * count + ops * NPU_OP_MAX_TENSORS;

	memset(job, 0, sizeof(*job));
	job->bos = (struct drm_gem_object **)(job + 1);
	job->pins = (struct npu_pin *)(job->bos + max_bos);
	job->waits = (struct npu_slot_wait *)(job->pins + 2 * count);
	job->programs = (struct npu_program **)(job->waits + count);
	job->program_edits = (struct npu_program_edit **)(job->programs + count);
	job->event_slots = (u32 *)(job->programs + 2 * count);
}

/**
 * npu_job_alloc - a job, not pooled, for @count commands, @ops of them operators
 * @ndev: the card
 * @count: commands
 * @ops: operators among them
 *
 * Return: the job, holding nothing, or NULL.  Freed with npu_job_free().
 */
struct npu_job *npu_job_alloc(struct npu_device *ndev, unsigned int count,
			      unsigned int ops)
{
	struct npu_job *job = kvmalloc(npu_job_size(count, ops), GFP_KERNEL);

	if (!job)
		return NULL;
	atomic64_inc(&ndev->jobs_made);
	atomic_inc(&ndev->jobs_alive);
	npu_job_init(job, count, ops);
	return job;
}

static struct npu_job *npu_job_pool_pop(struct npu_stream *stream)
{
	struct npu_job *job;

	lockdep_assert_held(&stream->lock);
	job = list_first_entry_or_null(&stream->job_pool, struct npu_job, link);
	if (job) {
		list_del(&job->link);
		stream->job_pool_size--;
	}
	return job;
}

/**
 * npu_job_pool_set_spare - set a pooled job aside for the next submission
 * @stream: the stream, with its lock held
 *
 * The submission takes it with one xchg(), without the lock; only here,
 * under the lock, does the spare become non-NULL.
 */
void npu_job_pool_set_spare(struct npu_stream *stream)
{
	struct npu_job *job;

	lockdep_assert_held(&stream->lock);
	if (READ_ONCE(stream->spare_job))
		return;
	job = npu_job_pool_pop(stream);
	if (!job)
		return;
	/* Off the pool's list before a submitter can take it: pairs with xchg(). */
	smp_store_release(&stream->spare_job, job);
}

/* A small job: the spare, else one from the pool, else NULL. */
static struct npu_job *npu_job_pool_take(struct npu_stream *stream)
{
	struct npu_job *job = xchg(&stream->spare_job, NULL);

	if (job)
		return job;
	spin_lock_irq(&stream->lock);
	job = npu_job_pool_pop(stream);
	spin_unlock_irq(&stream->lock);
	return job;
}

/*
 * A job for @count commands, @ops of them operators: a batch of at most
 * NPU_SUBMIT_SMALL commands and one operator gets a pooled one, or a new
 * one of the pool's size.
 */
static struct npu_job *npu_job_get(struct npu_stream *stream, unsigned int count,
				   unsigned int ops)
{
	bool pooled = count <= NPU_SUBMIT_SMALL && ops <= 1;
	struct npu_job *job = pooled ? npu_job_pool_take(stream) : NULL;

	if (pooled) {
		count = NPU_SUBMIT_SMALL;
		ops = 1;
	}
	if (!job)
		job = npu_job_alloc(stream->ctx->ndev, count, ops);
	if (!job)
		return NULL;
	npu_job_init(job, count, ops);
	job->pooled = pooled;
	return job;
}

/**
 * npu_jobs_recycle - let go of retired jobs
 * @stream: the stream that ran them
 * @jobs: the jobs, off every other list; emptied
 *
 * Gives back what each job holds, then keeps pooled jobs for the stream's
 * next submissions, up to NPU_JOB_POOL_MAX, and frees the others.
 */
void npu_jobs_recycle(struct npu_stream *stream, struct list_head *jobs)
{
	struct npu_device *ndev = stream->ctx->ndev;
	struct npu_job *job, *next;
	LIST_HEAD(keep);
	unsigned int room;

	list_for_each_entry_safe(job, next, jobs, link) {
		npu_job_release(ndev, job);
		if (job->pooled)
			list_move_tail(&job->link, &keep);
	}
	if (!list_empty(&keep)) {
		spin_lock_irq(&stream->lock);
		room = NPU_JOB_POOL_MAX - stream->job_pool_size;
		list_for_each_entry_safe(job, next, &keep, link) {
			if (!room--)
				break;
			list_move(&job->link, &stream->job_pool);
			stream->job_pool_size++;
		}
		npu_job_pool_set_spare(stream);
		spin_unlock_irq(&stream->lock);
		list_splice_init(&keep, jobs);
	}
	list_for_each_entry_safe(job, next, jobs, link)
		npu_job_kvfree(ndev, job);
	INIT_LIST_HEAD(jobs);
}

/**
 * npu_job_pool_fini - free the jobs a stream keeps for reuse
 * @stream: the stream, which no longer submits nor retires
 */
void npu_job_pool_fini(struct npu_stream *stream)
{
	struct npu_job *job, *next;

	if (stream->spare_job)
		list_add(&stream->spare_job->link, &stream->job_pool);
	stream->spare_job = NULL;
	list_for_each_entry_safe(job, next, &stream->job_pool, link)
		npu_job_kvfree(stream->ctx->ndev, job);
	INIT_LIST_HEAD(&stream->job_pool);
	stream->job_pool_size = 0;
}

static int npu_pin_user(struct npu_submit *sub, u64 uaddr, u64 size, bool write)
{
	struct npu_device *ndev = sub->ctx->ndev;
	struct device *dev = ndev->drm.dev;
	struct npu_pin *pin = &sub->job->pins[sub->job->npins];
	unsigned long first, last;
	int pinned, ret;

	if (!access_ok(u64_to_user_ptr(uaddr), size))
		return -EFAULT;

	first = uaddr >> PAGE_SHIFT;
	last = (uaddr + size - 1) >> PAGE_SHIFT;
	pin->npages = last - first + 1;
	pin->dir = write ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
	pin->pages = kvmalloc_array(pin->npages, sizeof(*pin->pages), GFP_KERNEL);
	if (!pin->pages)
		return -ENOMEM;

	pinned = pin_user_pages_fast(uaddr & PAGE_MASK, pin->npages,
				     write ? FOLL_WRITE : 0, pin->pages);
	if (pinned != pin->npages) {
		ret = pinned < 0 ? pinned : -EFAULT;
		if (pinned > 0)
			unpin_user_pages(pin->pages, pinned);
		goto err_free;
	}
	ret = sg_alloc_table_from_pages(&pin->sgt, pin->pages, pin->npages,
					offset_in_page(uaddr), size, GFP_KERNEL);
	if (ret)
		goto err_unpin;
	ret = dma_map_sgtable(dev, &pin->sgt, pin->dir, DMA_ATTR_SKIP_CPU_SYNC);
	if (ret)
		goto err_table;
	dma_sync_sgtable_for_device(dev, &pin->sgt, pin->dir);
	atomic64_add(pin->npages, &ndev->pinned_pages);
	sub->job->npins++;
	return 0;

err_table:
	sg_free_table(&pin->sgt);
err_unpin:
	unpin_user_pages(pin->pages, pin->npages);
err_free:
	kvfree(pin->pages);
	return ret;
}

/*
 * The DMA segments of @sgt that [offset, offset + len) touches: their
 * number, and in @first the bus address of @offset. The walk ends with the
 * range, not with the table: a small copy in a large host buffer costs the
 * segments before it, not all of them.
 */
static unsigned int npu_sg_span(struct sg_table *sgt, u64 offset, u64 len,
				dma_addr_t *first)
{
	u64 pos = 0, end = offset + len;
	struct scatterlist *sg;
	unsigned int i, n = 0;

	for_each_sgtable_dma_sg(sgt, sg, i) {
		u64 seg_end = pos + sg_dma_len(sg);

		if (pos >= end)
			break;
		/* The first segment touched starts at or before @offset. */
		if (seg_end > offset && !n++)
			*first = sg_dma_address(sg) + (offset - pos);
		pos = seg_end;
	}
	return n;
}

/* Writes the card's entries for [offset, offset + len) of @sgt. */
static void npu_sg_fill(struct npu_sg_entry *out, struct sg_table *sgt,
			u64 offset, u64 len)
{
	struct scatterlist *sg;
	u64 pos = 0, end = offset + len;
	unsigned int i;

	for_each_sgtable_dma_sg(sgt, sg, i) {
		u64 seg_end = pos + sg_dma_len(sg);
		u64 from = max(pos, offset), to = min(seg_end, end);

		if (pos >= end)
			break;
		if (from < to) {
			out->addr = cpu_to_le64(sg_dma_address(sg) + (from - pos));
			out->len = cpu_to_le64(to - from);
			out++;
		}
		pos = seg_end;
	}
}

/*
 * Resolves a host operand: one contiguous stretch becomes a plain bus
 * address, anything else a scatter-gather table filled in later.
 */
static void npu_host_operand(struct npu_submit *sub, unsigned int cmd, bool dst,
			     struct sg_table *sgt, u64 offset, u64 len)
{
	struct npu_cmd *hw = &sub->hw[cmd];
	u16 flags = le16_to_cpu(hw->flags);
	dma_addr_t first = 0;
	unsigned int entries = npu_sg_span(sgt, offset, len, &first);

	if (entries == 1) {
		if (dst)
			hw->dst = cpu_to_le64(first);
		else
			hw->src = cpu_to_le64(first);
		hw->flags = cpu_to_le16(flags | (dst ? NPU_CMD_DST_HOST : NPU_CMD_SRC_HOST));
		return;
	}
	sub->fixups[sub->nfixups++] = (struct npu_sg_fixup) {
		.cmd = cmd, .dst = dst, .sgt = sgt, .offset = offset, .len = len,
		.entries = entries,
	};
	hw->flags = cpu_to_le16(flags | (dst ? NPU_CMD_DST_HOST | NPU_CMD_DST_SGL :
					       NPU_CMD_SRC_HOST | NPU_CMD_SRC_SGL));
}

/* The job holds @obj, a reference the caller got, until it is freed. */
void npu_job_hold(struct npu_job *job, struct drm_gem_object *obj)
{
	job->bos[job->nbos++] = obj;
}

/* Resolves one side of a COPY or FILL into sub->hw[cmd]. */
static int npu_operand(struct npu_submit *sub, unsigned int cmd, bool dst,
		       u32 flags, u32 handle, u64 addr, u64 size)
{
	u32 host = dst ? DRM_NPU_CMD_DST_HOST : DRM_NPU_CMD_SRC_HOST;
	u32 user = dst ? DRM_NPU_CMD_DST_USER : DRM_NPU_CMD_SRC_USER;
	struct drm_gem_object *obj;
	u64 offset, end;
	int ret;

	/* Bounds what one command pins, and its scatter-gather table. */
	BUILD_BUG_ON((DRM_NPU_MAX_HOST_SIZE >> PAGE_SHIFT) + 1 > NPU_SG_MAX_ENTRIES);
	if ((flags & host) && (flags & user))
		return -EINVAL;
	if (!(flags & host) && handle)
		return -EINVAL;
	if ((flags & (host | user)) && size > DRM_NPU_MAX_HOST_SIZE)
		return -EINVAL;

	if (flags & user) {
		ret = npu_pin_user(sub, addr, size, dst);
		if (ret)
			return ret;
		npu_host_operand(sub, cmd, dst, &sub->job->pins[sub->job->npins - 1].sgt,
				 0, size);
		return 0;
	}
	if (flags & host) {
		obj = npu_host_bo_lookup(sub->ctx, handle);
		if (!obj)
			return -ENOENT;
		npu_job_hold(sub->job, obj);
		if (dst && !npu_userptr_writable(obj))
			return -EACCES;
		if (check_add_overflow(addr, size, &end) || end > obj->size)
			return -EINVAL;
		npu_host_operand(sub, cmd, dst, npu_host_bo_sgt(obj), addr, size);
		return 0;
	}
	ret = npu_vm_address(sub->ctx, sub->job, addr, size, &offset);
	if (ret)
		return ret;
	if (dst)
		sub->hw[cmd].dst = cpu_to_le64(offset);
	else
		sub->hw[cmd].src = cpu_to_le64(offset);
	return 0;
}

static int npu_build_copy(struct npu_submit *sub, unsigned int i,
			  const struct drm_npu_cmd *uc)
{
	const u32 valid = DRM_NPU_CMD_DST_HOST | DRM_NPU_CMD_SRC_HOST |
			  DRM_NPU_CMD_DST_USER | DRM_NPU_CMD_SRC_USER;
	int ret;

	if (uc->flags & ~valid || !uc->size || uc->value || uc->slot || uc->cond)
		return -EINVAL;
	sub->hw[i].opcode = cpu_to_le16(NPU_OP_COPY);
	sub->hw[i].size = cpu_to_le64(uc->size);
	ret = npu_operand(sub, i, true, uc->flags, uc->dst_handle, uc->dst, uc->size);
	if (ret)
		return ret;
	sub->job->bytes += uc->size;
	return npu_operand(sub, i, false, uc->flags, uc->src_handle, uc->src, uc->size);
}

static int npu_build_fill(struct npu_submit *sub, unsigned int i,
			  const struct drm_npu_cmd *uc)
{
	if (uc->flags & ~(DRM_NPU_CMD_DST_HOST | DRM_NPU_CMD_DST_USER) ||
	    !uc->size || uc->value > 0xff || uc->src || uc->src_handle ||
	    uc->slot || uc->cond)
		return -EINVAL;
	sub->hw[i].opcode = cpu_to_le16(NPU_OP_FILL);
	sub->hw[i].size = cpu_to_le64(uc->size);
	sub->hw[i].arg = cpu_to_le32(uc->value);
	sub->job->bytes += uc->size;
	return npu_operand(sub, i, true, uc->flags, uc->dst_handle, uc->dst, uc->size);
}

/*
 * The operand of a slot or value command: value itself, or under
 * DRM_NPU_CMD_VALUE_INDIRECT the aligned word of a device buffer of the
 * context at device address value, which the card reads as it runs.
 */
static int npu_build_cmd_value(struct npu_submit *sub, struct npu_cmd *hw,
			       const struct drm_npu_cmd *uc)
{
	u64 offset;
	int ret;

	if (!(uc->flags & DRM_NPU_CMD_VALUE_INDIRECT)) {
		hw->value = cpu_to_le64(uc->value);
		return 0;
	}
	if (!IS_ALIGNED(uc->value, 8))
		return -EINVAL;
	ret = npu_vm_address(sub->ctx, sub->job, uc->value, 8, &offset);
	if (ret)
		return ret;
	hw->flags |= cpu_to_le16(NPU_CMD_VALUE_INDIRECT);
	hw->value = cpu_to_le64(offset);
	return 0;
}

/* SLOT_WRITE, SLOT_WAIT and TIMESTAMP: a word of the context's fence area. */
static int npu_build_slot(struct npu_submit *sub, unsigned int i,
			  const struct drm_npu_cmd *uc)
{
	struct npu_cmd *hw = &sub->hw[i];
	bool event_only = uc->op != DRM_NPU_OP_SLOT_WAIT;
	bool timestamp = uc->op == DRM_NPU_OP_TIMESTAMP;
	dma_addr_t slot_dma;
	int ret;

	if ((uc->flags & ~DRM_NPU_CMD_VALUE_INDIRECT) || (timestamp && uc->flags) ||
	    uc->dst || uc->src || uc->size || uc->dst_handle ||
	    uc->src_handle || uc->cond || (timestamp && uc->value))
		return -EINVAL;
	if (!npu_ctx_slot_valid(sub->ctx, uc->slot, event_only))
		return -EPERM;

	slot_dma = npu_ctx_slot_dma(sub->ctx, uc->slot);
	hw->flags = cpu_to_le16(NPU_CMD_DST_HOST);
	hw->dst = cpu_to_le64(slot_dma);
	ret = npu_build_cmd_value(sub, hw, uc);
	if (ret)
		return ret;
	switch (uc->op) {
	case DRM_NPU_OP_SLOT_WRITE:
		hw->opcode = cpu_to_le16(NPU_OP_FENCE);
		/* Waiters in DRM_IOCTL_NPU_WAIT ask for this interrupt. */
		hw->flags |= cpu_to_le16(NPU_CMD_FENCE_TIME | NPU_CMD_IRQ_IF);
		hw->src = cpu_to_le64(npu_ctx_slot_irq_dma(sub->ctx, uc->slot));
		sub->job->event_slots[sub->job->nevents++] = uc->slot;
		break;
	case DRM_NPU_OP_SLOT_WAIT:
		hw->opcode = cpu_to_le16(NPU_OP_WAIT);
		hw->arg = cpu_to_le32(NPU_WAIT_GEQ);
		sub->job->waits[sub->job->nwaits++] = (struct npu_slot_wait) {
			.slot = uc->slot, .value = uc->value,
			.indirect = uc->flags & DRM_NPU_CMD_VALUE_INDIRECT,
		};
		break;
	default:
		hw->opcode = cpu_to_le16(NPU_OP_TIMESTAMP);
		hw->dst = cpu_to_le64(slot_dma +
				      offsetof(struct drm_npu_fence_slot, timestamp));
		break;
	}
	return 0;
}

/* VALUE_WAIT hands its condition to the card's WAIT as it is. */
static_assert((int)DRM_NPU_WAIT_GEQ == (int)NPU_WAIT_GEQ);
static_assert((int)DRM_NPU_WAIT_EQ == (int)NPU_WAIT_EQ);
static_assert((int)DRM_NPU_WAIT_AND == (int)NPU_WAIT_AND);
static_assert((int)DRM_NPU_WAIT_NOR == (int)NPU_WAIT_NOR);

/* VALUE_WRITE and VALUE_WAIT: an aligned 64-bit word of device memory. */
static int npu_build_value(struct npu_submit *sub, unsigned int i,
			   const struct drm_npu_cmd *uc)
{
	bool wait = uc->op == DRM_NPU_OP_VALUE_WAIT;
	u64 offset;
	int ret;

	if ((uc->flags & ~DRM_NPU_CMD_VALUE_INDIRECT) || uc->src || uc->size ||
	    uc->dst_handle || uc->src_handle || uc->slot || (!wait && uc->cond) ||
	    uc->cond > DRM_NPU_WAIT_NOR || !IS_ALIGNED(uc->dst, 8))
		return -EINVAL;
	ret = npu_vm_address(sub->ctx, sub->job, uc->dst, 8, &offset);
	if (ret)
		return ret;

	sub->hw[i].opcode = cpu_to_le16(wait ? NPU_OP_WAIT : NPU_OP_FENCE);
	sub->hw[i].dst = cpu_to_le64(offset);
	sub->hw[i].arg = cpu_to_le32(wait ? uc->cond : 0);
	return npu_build_cmd_value(sub, &sub->hw[i], uc);
}

/*
 * CLOCK_WRITE: the card's TIMESTAMP aimed at a word of device memory, so
 * that a stream can stamp each of its tasks without a fence slot apiece.
 */
static int npu_build_clock(struct npu_submit *sub, unsigned int i,
			   const struct drm_npu_cmd *uc)
{
	u64 offset;
	int ret;

	if (uc->flags || uc->src || uc->size || uc->value || uc->dst_handle ||
	    uc->src_handle || uc->slot || uc->cond || !IS_ALIGNED(uc->dst, 8))
		return -EINVAL;
	ret = npu_vm_address(sub->ctx, sub->job, uc->dst, 8, &offset);
	if (ret)
		return ret;

	sub->hw[i].opcode = cpu_to_le16(NPU_OP_TIMESTAMP);
	sub->hw[i].dst = cpu_to_le64(offset);
	return 0;
}

static int npu_build_cmd(struct npu_submit *sub, unsigned int i,
			 const struct drm_npu_cmd *uc)
{
	if (uc->pad)
		return -EINVAL;

	switch (uc->op) {
	case DRM_NPU_OP_NOP:
		if (uc->flags || uc->dst || uc->src || uc->size || uc->value ||
		    uc->dst_handle || uc->src_handle || uc->slot || uc->cond)
			return -EINVAL;
		sub->hw[i].opcode = cpu_to_le16(NPU_OP_NOP);
		return 0;
	case DRM_NPU_OP_COPY:
		return npu_build_copy(sub, i, uc);
	case DRM_NPU_OP_FILL:
		return npu_build_fill(sub, i, uc);
	case DRM_NPU_OP_SLOT_WRITE:
	case DRM_NPU_OP_SLOT_WAIT:
	case DRM_NPU_OP_TIMESTAMP:
		return npu_build_slot(sub, i, uc);
	case DRM_NPU_OP_VALUE_WRITE:
	case DRM_NPU_OP_VALUE_WAIT:
		return npu_build_value(sub, i, uc);
	case DRM_NPU_OP_CLOCK_WRITE:
		return npu_build_clock(sub, i, uc);
	case DRM_NPU_OP_COMPUTE:
		return npu_compute_build(sub->ctx, sub->job, &sub->hw[i], uc);
	case DRM_NPU_OP_PROGRAM:
	case DRM_NPU_OP_SET_CALL:
		if (sub->program)
			return -EINVAL;
		return npu_program_build_submit(sub->ctx, sub->job, &sub->hw[i], uc);
	default:
		if (!sub->program)
			return -EINVAL;
		return npu_program_build_control(sub->program, sub->ucmds, sub->count,
						 i, &sub->hw[i]);
	}
}

/* Gives the scatter-gather operands their tables, in one coherent block. */
static int npu_build_sg_tables(struct npu_submit *sub)
{
	struct npu_job *job = sub->job;
	unsigned int i, next = 0;

	for (i = 0; i < sub->nfixups; i++)
		job->sg_count += sub->fixups[i].entries;
	if (!job->sg_count)
		return 0;

	job->sg = dma_alloc_coherent(sub->ctx->ndev->drm.dev,
				     job->sg_count * sizeof(*job->sg),
				     &job->sg_dma, GFP_KERNEL);
	if (!job->sg)
		return -ENOMEM;

	for (i = 0; i < sub->nfixups; i++) {
		struct npu_sg_fixup *fix = &sub->fixups[i];
		struct npu_cmd *hw = &sub->hw[fix->cmd];
		u64 table = job->sg_dma + next * sizeof(*job->sg);

		npu_sg_fill(&job->sg[next], fix->sgt, fix->offset, fix->len);
		if (fix->dst) {
			hw->dst = cpu_to_le64(table);
			hw->dst_sg_count = cpu_to_le32(fix->entries);
		} else {
			hw->src = cpu_to_le64(table);
			hw->src_sg_count = cpu_to_le32(fix->entries);
		}
		next += fix->entries;
	}
	return 0;
}

/* Checks and translates every command, then gives them their tables. */
static int npu_build_cmds(struct npu_submit *sub)
{
	unsigned int i;
	int ret;

	for (i = 0; i < sub->count; i++) {
		ret = npu_build_cmd(sub, i, &sub->ucmds[i]);
		if (ret)
			return ret;
	}
	return npu_build_sg_tables(sub);
}

/* The fences after a batch: the stream's slot, then the ring's own word. */
#define NPU_DONE_FENCES	2

/*
 * The batch's end interrupts when someone waits for the stream (its slot's
 * waiters: DRM_IOCTL_NPU_WAIT, a submitter waiting for ring space, a
 * stream being destroyed), and always when the batch pinned user pages,
 * which are given back as soon as it is done.
 */
static void npu_build_done_fences(struct npu_submit *sub, unsigned int i,
				  struct npu_stream *stream, u64 seqno)
{
	struct npu_cmd *hw = &sub->hw[i];

	hw[0].opcode = cpu_to_le16(NPU_OP_FENCE);
	hw[0].flags = cpu_to_le16(NPU_CMD_DST_HOST | NPU_CMD_FENCE_TIME);
	hw[0].dst = cpu_to_le64(npu_ctx_slot_dma(sub->ctx, stream->slot));
	hw[0].value = cpu_to_le64(seqno);

	hw[1].opcode = cpu_to_le16(NPU_OP_FENCE);
	hw[1].dst = cpu_to_le64(stream->ring->done_dma);
	hw[1].value = cpu_to_le64(seqno);
	if (sub->job->npins) {
		hw[1].flags = cpu_to_le16(NPU_CMD_DST_HOST | NPU_CMD_IRQ);
	} else {
		hw[1].flags = cpu_to_le16(NPU_CMD_DST_HOST | NPU_CMD_IRQ_IF);
		hw[1].src = cpu_to_le64(npu_ctx_slot_irq_dma(sub->ctx, stream->slot));
	}
}

/* Recording an event again replaces what a failed stream left in it. */
static void npu_job_clear_event_errors(struct npu_submit *sub)
{
	unsigned int i;

	for (i = 0; i < sub->job->nevents; i++)
		WRITE_ONCE(npu_ctx_slot(sub->ctx, sub->job->event_slots[i])->error,
			   DRM_NPU_ERR_NONE);
	npu_job_set_program_events(sub->ctx, sub->job, DRM_NPU_ERR_NONE);
}

/* The batch waits on a slot whose writer already failed. */
static bool npu_job_waits_on_failure(struct npu_submit *sub)
{
	unsigned int i;

	for (i = 0; i < sub->job->nwaits; i++)
		if (npu_ctx_wait_failed(sub->ctx, &sub->job->waits[i]))
			return true;
	return npu_job_programs_wait_on_failure(sub->ctx, sub->job);
}

static bool npu_stream_has_space(struct npu_stream *stream, u32 needed)
{
	bool ok = true;
	int idx;

	if (READ_ONCE(stream->state) != NPU_STREAM_ACTIVE)
		return true;
	if (drm_dev_enter(&stream->ctx->ndev->drm, &idx)) {
		ok = npu_ring_space(stream->ring) >= needed;
		drm_dev_exit(idx);
	}
	return ok;
}

/* Sleeps with the stream's batches interrupting, to be woken as they end. */
static int npu_wait_space(struct npu_stream *stream, u32 needed)
{
	int ret;

	if (npu_stream_has_space(stream, needed))
		return 0;
	/* wait_event looks at HEAD again before sleeping. */
	npu_ctx_slot_irq_get(stream->ctx, stream->slot);
	ret = wait_event_interruptible(stream->space_wq,
				       npu_stream_has_space(stream, needed));
	npu_ctx_slot_irq_put(stream->ctx, stream->slot);
	return ret;
}

/* Puts the job on the ring; -EAGAIN when another submitter took the room. */
static int npu_queue_job(struct npu_submit *sub, struct npu_stream *stream,
			 unsigned int nhw, u64 *seqno)
{
	struct npu_device *ndev = sub->ctx->ndev;
	bool dead;
	int idx, ret;

	lockdep_assert_held(&stream->submit_lock);
	if (!drm_dev_enter(&ndev->drm, &idx))
		return -ENODEV;
	dead = READ_ONCE(ndev->dead);
	if (READ_ONCE(stream->state) != NPU_STREAM_ACTIVE || dead) {
		ret = dead ? -ENODEV : npu_ctx_lost_error(sub->ctx) ?: -EIO;
		goto out_exit;
	}
	ret = -EAGAIN;
	if (npu_ring_space(stream->ring) < nhw)
		goto out_exit;

	/* Once on the ring the job may complete and be freed at any time. */
	*seqno = stream->submitted + 1;
	sub->job->seqno = *seqno;
	npu_build_done_fences(sub, nhw - NPU_DONE_FENCES, stream, *seqno);
	npu_job_commit_program_edits(stream, sub->job);
	npu_job_clear_event_errors(sub);
	npu_stream_add_job(stream, sub->job);
	WRITE_ONCE(stream->submitted, *seqno);
	npu_ring_push(stream->ring, sub->hw, nhw);
	ret = 0;
out_exit:
	drm_dev_exit(idx);
	return ret;
}

/*
 * Queues the job; when the ring is full, waits for space without the
 * submit lock, so that others may go on.
 */
static int npu_queue_job_wait(struct npu_submit *sub, struct npu_stream *stream,
			      unsigned int nhw, bool nonblock, u64 *seqno)
{
	int ret;

	for (;;) {
		ret = mutex_lock_interruptible(&stream->submit_lock);
		if (ret)
			return ret;
		ret = npu_queue_job(sub, stream, nhw, seqno);
		mutex_unlock(&stream->submit_lock);
		if (ret != -EAGAIN || nonblock)
			return ret;
		ret = npu_wait_space(stream, nhw);
		if (ret)
			return ret;
	}
}

static int npu_submit_check_args(struct npu_stream *stream,
				 const struct drm_npu_submit *args)
{
	if (args->flags & ~DRM_NPU_SUBMIT_NONBLOCK || args->seqno ||
	    args->cmd_size != sizeof(struct drm_npu_cmd) || stream->direct)
		return -EINVAL;
	if (!args->count || args->count > DRM_NPU_MAX_BATCH ||
	    args->count + NPU_DONE_FENCES > stream->ring->entries)
		return -EINVAL;
	return 0;
}

struct npu_submit_scratch {
	struct drm_npu_cmd ucmds[NPU_SUBMIT_SMALL];
	struct npu_cmd hw[NPU_SUBMIT_SMALL + NPU_DONE_FENCES];
	struct npu_sg_fixup fixups[2 * NPU_SUBMIT_SMALL];
};

/* The card's commands, zeroed, and room for the operands needing tables. */
static int npu_submit_scratch(struct npu_submit *sub, unsigned int count,
			      struct npu_submit_scratch *small)
{
	unsigned int nhw = count + NPU_DONE_FENCES;

	/* Each fixup is written whole as it is added. */
	if (count <= NPU_SUBMIT_SMALL) {
		memset(small->hw, 0, nhw * sizeof(small->hw[0]));
		sub->hw = small->hw;
		sub->fixups = small->fixups;
		return 0;
	}
	sub->hw = kvzalloc(nhw * sizeof(*sub->hw) + 2 * count * sizeof(*sub->fixups),
			   GFP_KERNEL);
	if (!sub->hw)
		return -ENOMEM;
	sub->fixups = (struct npu_sg_fixup *)(sub->hw + nhw);
	return 0;
}

static int npu_submit(struct npu_stream *stream, struct drm_npu_submit *args,
		      const struct drm_npu_cmd *ucmds, struct npu_submit_scratch *small)
{
	struct npu_submit sub = {
		.ctx = stream->ctx, .ucmds = ucmds, .count = args->count,
	};
	unsigned int nhw = args->count + NPU_DONE_FENCES;
	struct npu_compute_plan plan;
	bool waits_on_failure;
	int ret;

	ret = npu_compute_plan(sub.ctx->ndev, ucmds, args->count, &plan);
	if (ret)
		return ret;
	sub.job = npu_job_get(stream, args->count, plan.ops);
	if (!sub.job)
		return -ENOMEM;
	ret = npu_submit_scratch(&sub, args->count, small);
	if (ret)
		goto out_free_job;
	if (plan.ops) {
		ret = npu_compute_job_init(sub.ctx->ndev, sub.job, &plan);
		if (ret)
			goto out;
	}

	ret = npu_build_cmds(&sub);
	if (ret)
		goto out;

	waits_on_failure = npu_job_waits_on_failure(&sub);
	ret = npu_queue_job_wait(&sub, stream, nhw,
				 args->flags & DRM_NPU_SUBMIT_NONBLOCK, &args->seqno);
	if (!ret) {
		sub.job = NULL;	/* the stream owns it now */
		if (waits_on_failure)
			queue_work(system_wq, &stream->ctx->propagate_work);
	}
out:
	if (sub.hw != small->hw)
		kvfree(sub.hw);
out_free_job:
	if (sub.job)
		npu_job_free(stream->ctx->ndev, sub.job);
	return ret;
}

/*
 * A command or two, word by word under one user_read_access_begin(): for
 * so few bytes, cheaper than copy_from_user()'s string copy.
 */
static int npu_copy_small_cmds(struct drm_npu_cmd *cmds, u64 uptr, unsigned int count)
{
	const u64 __user *src = u64_to_user_ptr(uptr);
	unsigned int i, words = count * sizeof(*cmds) / sizeof(u64);
	u64 *dst = (u64 *)cmds;

	static_assert(sizeof(*cmds) % sizeof(u64) == 0);
	if (!user_read_access_begin(src, words * sizeof(u64)))
		return -EFAULT;
	for (i = 0; i < words; i++)
		unsafe_get_user(dst[i], &src[i], efault);
	user_read_access_end();
	return 0;

efault:
	user_read_access_end();
	return -EFAULT;
}

/* The user's commands, into @small when they fit. */
static struct drm_npu_cmd *npu_submit_copy_cmds(const struct drm_npu_submit *args,
						struct npu_submit_scratch *small)
{
	int ret;

	if (args->count > NPU_SUBMIT_SMALL)
		return vmemdup_array_user(u64_to_user_ptr(args->cmds), args->count,
					  sizeof(struct drm_npu_cmd));
	ret = npu_copy_small_cmds(small->ucmds, args->cmds, args->count);
	return ret ? ERR_PTR(ret) : small->ucmds;
}

int npu_submit_ioctl(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct drm_npu_submit *args = data;
	struct npu_ctx *ctx = file->driver_priv;
	struct npu_stream *stream;
	struct npu_submit_scratch small;
	struct drm_npu_cmd *ucmds;
	int ret;

	stream = npu_stream_get(ctx, args->stream);
	if (!stream)
		return -ENOENT;
	ret = npu_submit_check_args(stream, args);
	if (ret)
		goto out_put;
	ret = npu_ctx_lost_error(ctx);
	if (!ret && READ_ONCE(stream->state) != NPU_STREAM_ACTIVE)
		ret = -EIO;
	if (ret)
		goto out_put;

	ucmds = npu_submit_copy_cmds(args, &small);
	if (IS_ERR(ucmds)) {
		ret = PTR_ERR(ucmds);
		goto out_put;
	}
	ret = npu_submit(stream, args, ucmds, &small);
	if (ucmds != small.ucmds)
		kvfree(ucmds);
	/*
	 * What the card finished of the earlier batches, which no interrupt
	 * retired; after queueing, so that a busy stream does not look idle.
	 */
	npu_stream_retire_completed(stream);
out_put:
	npu_stream_put(stream);
	return ret;
}

/**
 * npu_job_build_program - check and translate a program's commands
 * @ctx: the context creating it
 * @job: what the commands hold, from npu_job_alloc() for @count commands
 * @plan: their operators, from npu_compute_plan()
 * @program: the program being built, for its control commands
 * @ucmds: the user's commands
 * @count: how many
 * @hw: the translation, @count zeroed commands
 *
 * As SUBMIT checks a batch; control commands go to npu_program.c.  On
 * failure the caller frees @job with npu_job_free().
 *
 * Return: 0 or SUBMIT's errors for the commands.
 */
int npu_job_build_program(struct npu_ctx *ctx, struct npu_job *job,
			  const struct npu_compute_plan *plan,
			  struct npu_program_build *program,
			  const struct drm_npu_cmd *ucmds, unsigned int count,
			  struct npu_cmd *hw)
{
	struct npu_submit sub = {
		.ctx = ctx, .job = job, .hw = hw, .program = program,
		.ucmds = ucmds, .count = count,
	};
	int ret;

	ret = npu_compute_job_init(ctx->ndev, job, plan);
	if (ret)
		return ret;
	sub.fixups = kvmalloc_array(2 * count, sizeof(*sub.fixups), GFP_KERNEL);
	if (!sub.fixups)
		return -ENOMEM;
	ret = npu_build_cmds(&sub);
	kvfree(sub.fixups);
	return ret;
}
