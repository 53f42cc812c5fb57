// SPDX-License-Identifier: GPL-2.0-only
/*
 * Address spaces (docs/driver.md, "Address spaces"): every context has
 * page tables of its own in host memory, which the card walks for every
 * ring of the context. The tables are mirrored by a shadow tree in kernel
 * memory that says which table hangs where.
 *
 * Every device buffer is mapped in the context that creates or imports it
 * at its address in the card's window, until the buffer is freed or the
 * context closes; the rest of the address space is the context's, through
 * DRM_IOCTL_NPU_VM_BIND.
 */

#include <linux/maple_tree.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include <drm/drm_debugfs.h>

#include "npu_drv.h"

#define NPU_VM_SPACE		BIT_ULL(DRM_NPU_VA_BITS)
#define NPU_VM_SHIFT_ROOT	30
#define NPU_VM_SHIFT_MID	21
#define NPU_VM_INDEX(va, shift)	(((va) >> (shift)) & (NPU_MMU_ENTRIES - 1))

/**
 * struct npu_vm_table - one page table and its place in the shadow tree
 * @entries: the table the card reads, in coherent memory
 * @dma: its bus address
 * @next: the tables its entries point to; NULL for a bottom table
 * @used: entries that are valid
 * @link: in a list of tables to free once the card dropped them
 */
struct npu_vm_table {
	__le64 *entries;
	dma_addr_t dma;
	struct npu_vm_table **next;
	u32 used;
	struct list_head link;
};

/**
 * struct npu_vm - a context's address space
 * @ndev: the card
 * @lock: protects the tables, @binds, @as and @pages; taken after
 *	npu_vm_card.lock, before npu_vm_card.cmd_lock
 * @root: the root table; NULL once the card is unplugged (the tables
 *	went with its DMA, npu_vm_unplug_all())
 * @as: the card's address space that runs it, 0 until the context's first
 *	stream; written under @lock, read locklessly
 * @windows: the buffers mapped in the card's window (struct
 *	npu_vm_window); under npu_vm_card.lock
 * @binds: VM_BIND mappings by VA (struct npu_vm_bind); under @lock
 * @pages: 4 KiB pages mapped
 */
struct npu_vm {
	struct npu_device *ndev;
	struct mutex lock;		/* tables, mappings */
	struct npu_vm_table *root;
	u32 as;
	struct list_head windows;
	struct maple_tree binds;
	u64 pages;
};

/* A device buffer mapped in a context at its window address. */
struct npu_vm_window {
	struct list_head bo_link;	/* in npu_bo.vm_windows */
	struct list_head vm_link;	/* in npu_vm.windows */
	struct npu_vm *vm;
};

/* A VM_BIND mapping, holding its buffer. */
struct npu_vm_bind {
	struct drm_gem_object *obj;
	u64 va;
	u64 size;
};

static struct npu_bo *to_npu_bo(struct drm_gem_object *obj)
{
	return container_of(obj, struct npu_bo, base.base);
}

/**
 * npu_mmu_cmd - run one MMU command on the card
 * @ndev: the card
 * @cmd: enum npu_mmu_cmd
 * @index: the address space, or the peer window
 * @addr: SET_ROOT: the root's bus address; INVALIDATE: the first VA
 * @size: INVALIDATE: bytes
 *
 * A card that is gone or dead runs nothing any more: its reset (or its
 * end) drops every translation, so there is nothing to do.
 *
 * Return: 0, -ETIMEDOUT, -EINVAL (BAD_CMD), -ENODEV (NO_PEER), -ENOMEM
 * (NO_ROOM).
 */
int npu_mmu_cmd(struct npu_device *ndev, u32 cmd, u32 index, u64 addr, u64 size)
{
	static const int errors[] = {
		[NPU_MMU_OK] = 0, [NPU_MMU_BAD_CMD] = -EINVAL,
		[NPU_MMU_NO_PEER] = -ENODEV, [NPU_MMU_NO_ROOM] = -ENOMEM,
	};
	u32 status;
	int ret, idx;

	if (READ_ONCE(ndev->dead) || !drm_dev_enter(&ndev->drm, &idx))
		return 0;
	mutex_lock(&ndev->vm.cmd_lock);
	npu_wr32(ndev, NPU_MMU_CMD, cmd);
	npu_wr32(ndev, NPU_MMU_CMD_INDEX, index);
	lo_hi_writeq(addr, ndev->regs + NPU_MMU_CMD_ADDR);
	lo_hi_writeq(size, ndev->regs + NPU_MMU_CMD_SIZE);
	npu_wr32(ndev, NPU_MMU_CMD_CTRL, NPU_MMU_CMD_CTRL_GO);
	npu_ring_doorbell(ndev, 0);
	ret = npu_card_wait_ctrl_clear(ndev, NPU_MMU_CMD_CTRL, NPU_MMU_CMD_CTRL_GO);
	if (!ret) {
		status = npu_rd32(ndev, NPU_MMU_CMD_STATUS);
		ret = status < ARRAY_SIZE(errors) ? errors[status] : -EIO;
	}
	mutex_unlock(&ndev->vm.cmd_lock);
	drm_dev_exit(idx);
	if (ret)
		drm_err(&ndev->drm, "MMU command %u on %u failed: %d\n", cmd, index, ret);
	return ret;
}

/**
 * npu_vm_card_init - learn the card's MMU
 * @ndev: the card, its identity read
 *
 * Return: 0, or -ENODEV for a card whose VA space is not the uapi's.
 */
int npu_vm_card_init(struct npu_device *ndev)
{
	struct npu_vm_card *card = &ndev->vm;

	mutex_init(&card->cmd_lock);
	mutex_init(&card->lock);
	ida_init(&card->ida);
	card->num_as = npu_rd32(ndev, NPU_MMU_NUM_AS);
	card->num_peers = min(npu_rd32(ndev, NPU_MMU_NUM_PEERS), NPU_MMU_MAX_PEERS);
	card->window = (u64)(ndev->drm.accel->index % DRM_NPU_VA_WINDOWS) *
		       DRM_NPU_VA_WINDOW_SIZE;
	if (card->num_as && (npu_rd32(ndev, NPU_MMU_VA_BITS) != DRM_NPU_VA_BITS ||
			     npu_rd32(ndev, NPU_MMU_PAGE_SHIFT) != 12)) {
		drm_err(&ndev->drm, "the card's MMU is not Sv39 with 4 KiB pages\n");
		return -ENODEV;
	}
	if (ndev->id.devmem_size > DRM_NPU_VA_WINDOW_SIZE) {
		drm_err(&ndev->drm, "device memory larger than the card's window\n");
		return -ENODEV;
	}
	return 0;
}

static struct npu_vm_table *npu_vm_table_alloc(struct npu_device *ndev, bool bottom)
{
	struct npu_vm_table *t = kzalloc(sizeof(*t), GFP_KERNEL);

	if (!t)
		return NULL;
	if (!bottom) {
		t->next = kcalloc(NPU_MMU_ENTRIES, sizeof(*t->next), GFP_KERNEL);
		if (!t->next)
			goto err;
	}
	t->entries = dma_alloc_coherent(ndev->drm.dev, NPU_MMU_PAGE_SIZE, &t->dma,
					GFP_KERNEL);
	if (!t->entries)
		goto err;
	INIT_LIST_HEAD(&t->link);
	return t;
err:
	kfree(t->next);
	kfree(t);
	return NULL;
}

/* Frees @t and every table under it. */
static void npu_vm_table_free(struct npu_device *ndev, struct npu_vm_table *t)
{
	unsigned int i;

	if (t->next) {
		for (i = 0; i < NPU_MMU_ENTRIES; i++)
			if (t->next[i])
				npu_vm_table_free(ndev, t->next[i]);
		kfree(t->next);
	}
	dma_free_coherent(ndev->drm.dev, NPU_MMU_PAGE_SIZE, t->entries, t->dma);
	kfree(t);
}

static void npu_vm_tables_free(struct npu_device *ndev, struct list_head *tables)
{
	struct npu_vm_table *t, *tmp;

	list_for_each_entry_safe(t, tmp, tables, link)
		npu_vm_table_free(ndev, t);
}

/* The table under entry @i of @t, made if absent. */
static struct npu_vm_table *npu_vm_descend(struct npu_vm *vm, struct npu_vm_table *t,
					   unsigned int i, bool bottom)
{
	struct npu_vm_table *next = t->next[i];

	if (next)
		return next;
	if (WARN_ON(t->entries[i]))	/* a leaf where a table should go */
		return NULL;
	next = npu_vm_table_alloc(vm->ndev, bottom);
	if (!next)
		return NULL;
	t->next[i] = next;
	WRITE_ONCE(t->entries[i], cpu_to_le64(next->dma | NPU_PTE_VALID));
	t->used++;
	return next;
}

/* Sets the leaf for @va: a 2 MiB block under @block, else a 4 KiB page. */
static int npu_vm_set_leaf(struct npu_vm *vm, u64 va, u64 pte, bool block)
{
	struct npu_vm_table *mid, *bottom;
	unsigned int i;

	mid = npu_vm_descend(vm, vm->root, NPU_VM_INDEX(va, NPU_VM_SHIFT_ROOT), false);
	if (!mid)
		return -ENOMEM;
	i = NPU_VM_INDEX(va, NPU_VM_SHIFT_MID);
	if (block) {
		if (WARN_ON(mid->entries[i]))
			return -EEXIST;
		WRITE_ONCE(mid->entries[i], cpu_to_le64(pte));
		mid->used++;
		return 0;
	}
	bottom = npu_vm_descend(vm, mid, i, true);
	if (!bottom)
		return -ENOMEM;
	i = NPU_VM_INDEX(va, PAGE_SHIFT);
	if (WARN_ON(bottom->entries[i]))
		return -EEXIST;
	WRITE_ONCE(bottom->entries[i], cpu_to_le64(pte));
	bottom->used++;
	return 0;
}

/* Unhooks entry @i of @t, a table, to be freed once the card dropped it. */
static void npu_vm_unhook(struct npu_vm_table *t, unsigned int i,
			  struct list_head *freed)
{
	list_add_tail(&t->next[i]->link, freed);
	t->next[i] = NULL;
	WRITE_ONCE(t->entries[i], 0);
	t->used--;
}

/* Clears the leaves of the bottom table @t in [@va, @end) of its 2 MiB. */
static u64 npu_vm_clear_bottom(struct npu_vm_table *t, u64 va, u64 end)
{
	u64 pages = 0;

	for (; va < end; va += NPU_MMU_PAGE_SIZE) {
		unsigned int i = NPU_VM_INDEX(va, PAGE_SHIFT);

		if (t->entries[i]) {
			WRITE_ONCE(t->entries[i], 0);
			t->used--;
			pages++;
		}
	}
	return pages;
}

/* Clears the leaves of the middle table @t in [@va, @end) of its 1 GiB. */
static u64 npu_vm_clear_mid(struct npu_vm_table *t, u64 va, u64 end,
			    struct list_head *freed)
{
	u64 next, pages = 0;

	for (; va < end; va = next) {
		unsigned int i = NPU_VM_INDEX(va, NPU_VM_SHIFT_MID);
		u64 e = le64_to_cpu(t->entries[i]);

		next = min(round_down(va, SZ_2M) + SZ_2M, end);
		if (!e)
			continue;
		if (e & NPU_PTE_LEAF) {
			/* Mappings are removed whole: a block is never cut. */
			WARN_ON(!IS_ALIGNED(va, SZ_2M) || next - va != SZ_2M);
			WRITE_ONCE(t->entries[i], 0);
			t->used--;
			pages += SZ_2M / NPU_MMU_PAGE_SIZE;
			continue;
		}
		pages += npu_vm_clear_bottom(t->next[i], va, next);
		if (!t->next[i]->used)
			npu_vm_unhook(t, i, freed);
	}
	return pages;
}

/* Clears [@va, @end); the tables left empty go to @freed. */
static u64 npu_vm_clear(struct npu_vm *vm, u64 va, u64 end, struct list_head *freed)
{
	struct npu_vm_table *root = vm->root;
	u64 next, pages = 0;

	for (; va < end; va = next) {
		unsigned int i = NPU_VM_INDEX(va, NPU_VM_SHIFT_ROOT);

		next = min(round_down(va, SZ_1G) + SZ_1G, end);
		if (!root->next[i])
			continue;
		pages += npu_vm_clear_mid(root->next[i], va, next, freed);
		if (!root->next[i]->used)
			npu_vm_unhook(root, i, freed);
	}
	return pages;
}

/* After the tables changed in [@va, @va + @size): the card forgets them. */
static void npu_vm_invalidate(struct npu_vm *vm, u64 va, u64 size)
{
	if (vm->as)
		npu_mmu_cmd(vm->ndev, NPU_MMU_INVALIDATE, vm->as, va, size);
}

static void npu_vm_count(struct npu_vm *vm, s64 pages)
{
	vm->pages += pages;
	atomic64_add(pages, &vm->ndev->vm.pages);
}

/* Removes [@va, @va + @size) with @vm->lock held. */
static void npu_vm_unmap_locked(struct npu_vm *vm, u64 va, u64 size)
{
	LIST_HEAD(freed);

	if (!vm->root)
		return;
	npu_vm_count(vm, -npu_vm_clear(vm, va, va + size, &freed));
	npu_vm_invalidate(vm, va, size);
	npu_vm_tables_free(vm->ndev, &freed);
}

struct npu_vm_mapper {
	struct npu_vm *vm;
	u64 va;
	u64 bits;
};

static int npu_vm_map_run(void *priv, u64 target, u64 bytes)
{
	struct npu_vm_mapper *m = priv;
	int ret;

	while (bytes) {
		bool block = bytes >= SZ_2M && IS_ALIGNED(m->va, SZ_2M) &&
			     IS_ALIGNED(target & NPU_PTE_ADDR_MASK, SZ_2M);
		u64 step = block ? SZ_2M : NPU_MMU_PAGE_SIZE;

		ret = npu_vm_set_leaf(m->vm, m->va, target | m->bits, block);
		if (ret)
			return ret;
		m->va += step;
		target += step;
		bytes -= step;
	}
	return 0;
}

static int npu_vm_map_locked(struct npu_vm *vm, u64 va, u64 size,
			     struct drm_gem_object *obj, u64 offset, u32 flags)
{
	struct npu_vm_mapper m = {
		.vm = vm, .va = va,
		.bits = NPU_PTE_VALID | NPU_PTE_LEAF |
			(flags & NPU_VM_READ_ONLY ? 0 : NPU_PTE_WRITE),
	};
	int ret;

	if (!vm->root)
		return -ENODEV;
	ret = to_npu_bo(obj)->vm_backing->runs(obj, offset, size, npu_vm_map_run, &m);
	if (ret) {
		LIST_HEAD(freed);

		/* The whole range: tables made for a leaf never set go too. */
		npu_vm_count(vm, -npu_vm_clear(vm, va, va + size, &freed));
		npu_vm_tables_free(vm->ndev, &freed);
		return ret;
	}
	npu_vm_count(vm, size / NPU_MMU_PAGE_SIZE);
	/* The card may have cached the entries as invalid. */
	npu_vm_invalidate(vm, va, size);
	return 0;
}

/**
 * npu_vm_map - map a buffer's memory in a context's address space
 * @ctx: the context
 * @va: where, page aligned, in a range nothing maps
 * @size: bytes, page aligned
 * @obj: the buffer, whose kind's npu_bo.vm_backing gives its memory
 * @offset: from where in @obj, page aligned
 * @flags: NPU_VM_*
 *
 * The caller keeps @obj alive while it is mapped and removes the mapping
 * with npu_vm_unmap(). 2 MiB entries are used where the VA and the memory
 * are both aligned.
 *
 * Return: 0, -ENOMEM, or the backing's error; on error nothing is mapped.
 */
int npu_vm_map(struct npu_ctx *ctx, u64 va, u64 size, struct drm_gem_object *obj,
	       u64 offset, u32 flags)
{
	struct npu_vm *vm = ctx->vm;
	int ret;

	mutex_lock(&vm->lock);
	ret = npu_vm_map_locked(vm, va, size, obj, offset, flags);
	mutex_unlock(&vm->lock);
	return ret;
}

/**
 * npu_vm_unmap - remove what npu_vm_map() mapped
 * @ctx: the context
 * @va: as mapped
 * @size: as mapped
 *
 * Returns once the card no longer uses the pages.
 */
void npu_vm_unmap(struct npu_ctx *ctx, u64 va, u64 size)
{
	struct npu_vm *vm = ctx->vm;

	mutex_lock(&vm->lock);
	npu_vm_unmap_locked(vm, va, size);
	mutex_unlock(&vm->lock);
}

/* The card's window: VA of a device buffer. */
static u64 npu_vm_bo_va(struct npu_bo *bo)
{
	return to_npu_device(bo->base.base.dev)->vm.window + bo->node.start;
}

/**
 * npu_vm_bo_addr - the device address of a device buffer
 * @bo: the buffer
 *
 * Return: where every context that holds it has it mapped.
 */
u64 npu_vm_bo_addr(struct npu_bo *bo)
{
	return DRM_NPU_DEVICE_ADDR_BASE + npu_vm_bo_va(bo);
}

/**
 * npu_vm_window_map - map a device buffer at its address in a context
 * @ctx: the context creating or importing it
 * @bo: the buffer
 *
 * Once per context however many handles it has; the mapping lasts until
 * the buffer is freed (npu_vm_bo_free()) or the context closes.
 *
 * Return: 0 or -ENOMEM.
 */
int npu_vm_window_map(struct npu_ctx *ctx, struct npu_bo *bo)
{
	struct npu_device *ndev = ctx->ndev;
	struct npu_vm_window *w;
	int ret = 0;

	mutex_lock(&ndev->vm.lock);
	list_for_each_entry(w, &bo->vm_windows, bo_link)
		if (w->vm == ctx->vm)
			goto out;
	ret = -ENOMEM;
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		goto out;
	ret = npu_vm_map(ctx, npu_vm_bo_va(bo), bo->node.size, &bo->base.base, 0, 0);
	if (ret) {
		kfree(w);
		goto out;
	}
	w->vm = ctx->vm;
	list_add_tail(&w->bo_link, &bo->vm_windows);
	list_add_tail(&w->vm_link, &ctx->vm->windows);
out:
	mutex_unlock(&ndev->vm.lock);
	return ret;
}

/**
 * npu_vm_bo_free - unmap a device buffer being freed from every context
 * @bo: the buffer; no job holds it any more
 *
 * Returns once the card no longer reaches its memory, which may then be
 * given to another buffer.
 */
void npu_vm_bo_free(struct npu_bo *bo)
{
	struct npu_device *ndev = to_npu_device(bo->base.base.dev);
	struct npu_vm_window *w, *tmp;

	mutex_lock(&ndev->vm.lock);
	list_for_each_entry_safe(w, tmp, &bo->vm_windows, bo_link) {
		mutex_lock(&w->vm->lock);
		npu_vm_unmap_locked(w->vm, npu_vm_bo_va(bo), bo->node.size);
		mutex_unlock(&w->vm->lock);
		list_del(&w->bo_link);
		list_del(&w->vm_link);
		kfree(w);
	}
	mutex_unlock(&ndev->vm.lock);
}

/**
 * npu_vm_ctx_init - give a new context its (empty) address space
 * @ctx: the context
 *
 * Return: 0 or -ENOMEM.
 */
int npu_vm_ctx_init(struct npu_ctx *ctx)
{
	struct npu_vm *vm = kzalloc(sizeof(*vm), GFP_KERNEL);

	if (!vm)
		return -ENOMEM;
	vm->root = npu_vm_table_alloc(ctx->ndev, false);
	if (!vm->root) {
		kfree(vm);
		return -ENOMEM;
	}
	vm->ndev = ctx->ndev;
	mutex_init(&vm->lock);
	INIT_LIST_HEAD(&vm->windows);
	mt_init(&vm->binds);
	ctx->vm = vm;
	return 0;
}

/* Drops every VM_BIND mapping's buffer; the tables are going. */
static void npu_vm_binds_release(struct npu_vm *vm)
{
	struct npu_vm_bind *bind;
	unsigned long index = 0;

	mt_for_each(&vm->binds, bind, index, ULONG_MAX) {
		drm_gem_object_put(bind->obj);
		kfree(bind);
	}
	mtree_destroy(&vm->binds);
}

/*
 * A ring that did not confirm its reset keeps its address space latched
 * and may still run: that number is not given to another context.
 */
static bool npu_vm_as_kept(struct npu_device *ndev, u32 as)
{
	bool kept = false;
	u32 i;

	spin_lock_irq(&ndev->rings_lock);
	for (i = 0; i < ndev->id.num_rings && !kept; i++)
		kept = ndev->rings[i].kept && ndev->rings[i].as == as;
	spin_unlock_irq(&ndev->rings_lock);
	return kept;
}

/**
 * npu_vm_ctx_fini - take a closing context's address space apart
 * @ctx: the context, whose streams are all destroyed
 *
 * The card drops the root (waiting for accesses in flight) before the
 * tables are freed and the address space is given back. One whose root
 * the card did not drop stays out of use, tables and all; one a kept ring
 * still names stays out of use, its root dropped.
 */
void npu_vm_ctx_fini(struct npu_ctx *ctx)
{
	struct npu_device *ndev = ctx->ndev;
	struct npu_vm *vm = ctx->vm;
	struct npu_vm_window *w, *tmp;
	bool keep = false;

	mutex_lock(&ndev->vm.lock);
	list_for_each_entry_safe(w, tmp, &vm->windows, vm_link) {
		list_del(&w->bo_link);
		kfree(w);
	}
	mutex_unlock(&ndev->vm.lock);

	if (vm->as) {
		keep = npu_mmu_cmd(ndev, NPU_MMU_SET_ROOT, vm->as, 0, 0) != 0;
		if (!keep && !npu_vm_as_kept(ndev, vm->as)) {
			ida_free(&ndev->vm.ida, vm->as);
			atomic_dec(&ndev->vm.spaces);
		}
	}
	atomic64_sub(vm->pages, &ndev->vm.pages);
	if (!keep && vm->root)
		npu_vm_table_free(ndev, vm->root);
	npu_vm_binds_release(vm);
	mutex_destroy(&vm->lock);
	kfree(vm);
	ctx->vm = NULL;
}

/**
 * npu_vm_unplug_all - free every open context's page tables
 * @ndev: the card, unplugged and no longer mastering the bus
 *
 * The contexts live on with their files, but the tables are memory only
 * the card read, allocated for the device: they go with it. The mappings'
 * buffers stay held until their contexts close.
 */
void npu_vm_unplug_all(struct npu_device *ndev)
{
	struct npu_ctx *ctx;

	mutex_lock(&ndev->contexts_lock);
	list_for_each_entry(ctx, &ndev->contexts, link) {
		struct npu_vm *vm = ctx->vm;

		mutex_lock(&vm->lock);
		if (vm->root)
			npu_vm_table_free(ndev, vm->root);
		vm->root = NULL;
		mutex_unlock(&vm->lock);
	}
	mutex_unlock(&ndev->contexts_lock);
}

/**
 * npu_vm_activate - give the context an address space of the card
 * @ctx: the context, creating a stream
 *
 * Once per context: its first stream takes one, which it keeps until it
 * closes. On a card without an MMU rings stay untranslated.
 *
 * Return: 0, -EBUSY when every address space is taken, -ENOMEM, or the
 * error of an MMU command.
 */
int npu_vm_activate(struct npu_ctx *ctx)
{
	struct npu_device *ndev = ctx->ndev;
	struct npu_vm *vm = ctx->vm;
	int id, ret = 0;

	mutex_lock(&vm->lock);
	if (!vm->root) {
		ret = -ENODEV;
		goto out;
	}
	if (vm->as || !ndev->vm.num_as)
		goto out;
	id = ida_alloc_range(&ndev->vm.ida, 1, ndev->vm.num_as, GFP_KERNEL);
	if (id < 0) {
		ret = id == -ENOSPC ? -EBUSY : id;
		goto out;
	}
	ret = npu_mmu_cmd(ndev, NPU_MMU_SET_ROOT, id, vm->root->dma, 0);
	if (ret) {
		ida_free(&ndev->vm.ida, id);
		goto out;
	}
	WRITE_ONCE(vm->as, id);
	atomic_inc(&ndev->vm.spaces);
out:
	mutex_unlock(&vm->lock);
	return ret;
}

/* The address space the context's rings run in, 0: untranslated. */
u32 npu_vm_as(struct npu_ctx *ctx)
{
	return READ_ONCE(ctx->vm->as);
}

/* Whether [@va, @end) touches the card's own window. */
static bool npu_vm_in_window(struct npu_device *ndev, u64 va, u64 end)
{
	return va < ndev->vm.window + DRM_NPU_VA_WINDOW_SIZE && end > ndev->vm.window;
}

/**
 * npu_vm_address - check a device address a command names
 * @ctx: the context submitting it
 * @job: the job, which holds the buffer the range lies in, if any
 * @addr: device address
 * @size: bytes from @addr, at least one
 * @va: out: the virtual address the card is given
 *
 * In the card's window the range must lie in one device buffer of @ctx;
 * elsewhere in the address space it is the card's to check as it runs.
 *
 * Return: 0, or -EPERM.
 */
int npu_vm_address(struct npu_ctx *ctx, struct npu_job *job, u64 addr, u64 size,
		   u64 *va)
{
	struct drm_gem_object *obj;
	u64 end;

	if (addr < DRM_NPU_DEVICE_ADDR_BASE ||
	    check_add_overflow(addr - DRM_NPU_DEVICE_ADDR_BASE, size, &end) ||
	    end > NPU_VM_SPACE)
		return -EPERM;
	if (!ctx->ndev->vm.num_as ||
	    npu_vm_in_window(ctx->ndev, addr - DRM_NPU_DEVICE_ADDR_BASE, end)) {
		obj = npu_device_bo_lookup(ctx, addr, size, va);
		if (!obj)
			return -EPERM;
		npu_job_hold(job, obj);
		return 0;
	}
	*va = addr - DRM_NPU_DEVICE_ADDR_BASE;
	return 0;
}

/**
 * npu_vm_param - the MMU's GET_PARAMs
 * @ndev: the card
 * @param: enum drm_npu_param
 * @value: out
 *
 * Return: 0, or -EINVAL for a parameter of no other part either.
 */
int npu_vm_param(struct npu_device *ndev, u32 param, u64 *value)
{
	switch (param) {
	case DRM_NPU_PARAM_VA_WINDOW:
		*value = DRM_NPU_DEVICE_ADDR_BASE + ndev->vm.window;
		return 0;
	case DRM_NPU_PARAM_NUM_PEERS:
		*value = ndev->vm.num_peers;
		return 0;
	default:
		return npu_compute_param(ndev, param, value);
	}
}

static int npu_vm_device_runs(struct drm_gem_object *obj, u64 offset, u64 size,
			      npu_vm_run_fn fn, void *priv)
{
	return fn(priv, NPU_PTE_TARGET(NPU_PTE_DEVICE) | (to_npu_bo(obj)->node.start + offset),
		  size);
}

static int npu_vm_device_may_bind(struct npu_ctx *ctx, struct drm_gem_object *obj,
				  bool write)
{
	if (to_npu_bo(obj)->owner != ctx->id && !npu_share_imported(obj, ctx->id))
		return -ENOENT;
	return 0;
}

const struct npu_vm_backing npu_vm_device_backing = {
	.runs = npu_vm_device_runs,
	.may_bind = npu_vm_device_may_bind,
};

static int npu_vm_host_runs(struct drm_gem_object *obj, u64 offset, u64 size,
			    npu_vm_run_fn fn, void *priv)
{
	struct sg_table *sgt = npu_host_bo_sgt(obj);
	struct scatterlist *sg;
	unsigned int i;
	int ret;

	for_each_sgtable_dma_sg(sgt, sg, i) {
		u64 len = sg_dma_len(sg), take;

		if (offset >= len) {
			offset -= len;
			continue;
		}
		take = min(len - offset, size);
		ret = fn(priv, NPU_PTE_TARGET(NPU_PTE_HOST) | (sg_dma_address(sg) + offset),
			 take);
		if (ret)
			return ret;
		offset = 0;
		size -= take;
		if (!size)
			break;
	}
	return 0;
}

static int npu_vm_host_may_bind(struct npu_ctx *ctx, struct drm_gem_object *obj,
				bool write)
{
	return to_npu_bo(obj)->owner == ctx->id ? 0 : -ENOENT;
}

const struct npu_vm_backing npu_vm_host_backing = {
	.runs = npu_vm_host_runs,
	.may_bind = npu_vm_host_may_bind,
};

static const char *const npu_vm_fault_reasons[] = {
	[DRM_NPU_FAULT_UNMAPPED] = "unmapped",
	[DRM_NPU_FAULT_READ_ONLY] = "read-only",
	[DRM_NPU_FAULT_MALFORMED] = "malformed mapping",
	[DRM_NPU_FAULT_PEER_CLOSED] = "peer window closed",
};

static_assert(DRM_NPU_FAULT_VA_MASK == NPU_RING_FAULT_VA_MASK);
static_assert(DRM_NPU_FAULT_REASON_SHIFT == NPU_RING_FAULT_REASON_SHIFT);
static_assert(DRM_NPU_FAULT_WRITE == NPU_RING_FAULT_WRITE);
static_assert((int)DRM_NPU_FAULT_PEER_CLOSED == (int)NPU_PF_PEER_CLOSED);

/**
 * npu_vm_report_fault - tell a stream's slot where its ring faulted
 * @stream: the stream, failing with DRM_NPU_ERR_PAGE_FAULT, its ring not
 *	yet reset (which zeroes FAULT_ADDR)
 */
void npu_vm_report_fault(struct npu_stream *stream)
{
	struct npu_device *ndev = stream->ctx->ndev;
	const char *why;
	u32 reason;
	u64 fault;
	int idx;

	if (!drm_dev_enter(&ndev->drm, &idx))
		return;
	fault = npu_ring_rd64(stream->ring, NPU_RING_FAULT_ADDR);
	drm_dev_exit(idx);
	/* The uapi word is the card's: same fields, same places. */
	WRITE_ONCE(npu_ctx_slot(stream->ctx, stream->slot)->fault, fault);
	reason = NPU_RING_FAULT_REASON(fault);
	why = reason < ARRAY_SIZE(npu_vm_fault_reasons) ? npu_vm_fault_reasons[reason] : NULL;
	dev_warn_ratelimited(ndev->drm.dev,
			     "context %llu stream %u: page fault at %#llx (%s, %s)\n",
			     stream->ctx->id, stream->id,
			     DRM_NPU_DEVICE_ADDR_BASE + (fault & NPU_RING_FAULT_VA_MASK),
			     fault & NPU_RING_FAULT_WRITE ? "write" : "read", why ?: "unknown");
}

/* The checks both ops share: the range, and the fields each must leave 0. */
static int npu_vm_bind_check(struct npu_device *ndev, const struct drm_npu_vm_bind *args)
{
	u64 va, end;

	if (args->pad || args->op > DRM_NPU_VM_UNMAP || !args->size ||
	    !IS_ALIGNED(args->addr | args->offset | args->size, DRM_NPU_VM_PAGE_SIZE))
		return -EINVAL;
	if (args->op == DRM_NPU_VM_UNMAP && (args->handle || args->offset || args->flags))
		return -EINVAL;
	if (args->op == DRM_NPU_VM_MAP && args->flags & ~DRM_NPU_VM_READ_ONLY)
		return -EINVAL;
	if (args->addr < DRM_NPU_DEVICE_ADDR_BASE)
		return -EINVAL;
	va = args->addr - DRM_NPU_DEVICE_ADDR_BASE;
	if (check_add_overflow(va, args->size, &end) || end > NPU_VM_SPACE ||
	    npu_vm_in_window(ndev, va, end))
		return -EINVAL;
	return ndev->vm.num_as ? 0 : -EOPNOTSUPP;
}

static int npu_vm_bind_map(struct npu_ctx *ctx, struct drm_file *file,
			   const struct drm_npu_vm_bind *args)
{
	bool write = !(args->flags & DRM_NPU_VM_READ_ONLY);
	u64 va = args->addr - DRM_NPU_DEVICE_ADDR_BASE, end;
	struct npu_vm *vm = ctx->vm;
	struct drm_gem_object *obj;
	struct npu_vm_bind *bind;
	int ret;

	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	ret = to_npu_bo(obj)->vm_backing->may_bind(ctx, obj, write);
	if (ret)
		goto err_put;
	ret = -EINVAL;
	if (check_add_overflow(args->offset, args->size, &end) || end > obj->size)
		goto err_put;
	ret = -ENOMEM;
	bind = kzalloc(sizeof(*bind), GFP_KERNEL);
	if (!bind)
		goto err_put;
	*bind = (struct npu_vm_bind) { .obj = obj, .va = va, .size = args->size };

	mutex_lock(&vm->lock);
	ret = mtree_insert_range(&vm->binds, va, va + args->size - 1, bind, GFP_KERNEL);
	if (!ret) {
		ret = npu_vm_map_locked(vm, va, args->size, obj, args->offset,
					write ? 0 : NPU_VM_READ_ONLY);
		if (ret)
			mtree_erase(&vm->binds, va);
	}
	mutex_unlock(&vm->lock);
	if (ret)
		goto err_free;
	return 0;

err_free:
	kfree(bind);
err_put:
	drm_gem_object_put(obj);
	return ret;
}

static int npu_vm_bind_unmap(struct npu_ctx *ctx, const struct drm_npu_vm_bind *args)
{
	u64 va = args->addr - DRM_NPU_DEVICE_ADDR_BASE, last = va + args->size - 1;
	struct npu_vm *vm = ctx->vm;
	struct npu_vm_bind *bind, **binds = NULL;
	unsigned long index = va;
	LIST_HEAD(freed);
	unsigned int n = 0;
	u64 pages = 0;
	int ret = 0;

	mutex_lock(&vm->lock);
	mt_for_each(&vm->binds, bind, index, last) {
		if (bind->va < va || bind->va + bind->size - 1 > last) {
			ret = -EINVAL;	/* the range cuts it */
			goto out;
		}
		n++;
	}
	if (!n) {
		ret = -EINVAL;
		goto out;
	}
	binds = kmalloc_array(n, sizeof(*binds), GFP_KERNEL);
	if (!binds) {
		ret = -ENOMEM;
		goto out;
	}
	n = 0;
	index = va;
	mt_for_each(&vm->binds, bind, index, last) {
		binds[n++] = bind;
		pages += npu_vm_clear(vm, bind->va, bind->va + bind->size, &freed);
	}
	npu_vm_count(vm, -pages);
	npu_vm_invalidate(vm, va, args->size);
	for (index = 0; index < n; index++)
		mtree_erase(&vm->binds, binds[index]->va);
out:
	mutex_unlock(&vm->lock);
	npu_vm_tables_free(vm->ndev, &freed);
	/* Not under the lock: the last reference frees the buffer, which unmaps. */
	while (!ret && n--) {
		drm_gem_object_put(binds[n]->obj);
		kfree(binds[n]);
	}
	kfree(binds);
	return ret;
}

int npu_vm_bind_ioctl(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct drm_npu_vm_bind *args = data;
	struct npu_ctx *ctx = file->driver_priv;
	int ret;

	ret = npu_vm_bind_check(ctx->ndev, args);
	if (ret)
		return ret;
	if (args->op == DRM_NPU_VM_MAP)
		return npu_vm_bind_map(ctx, file, args);
	return npu_vm_bind_unmap(ctx, args);
}

/* debugfs "vm": what a test reads to see that a context left nothing behind. */
int npu_vm_show(struct seq_file *m, void *unused)
{
	struct drm_debugfs_entry *entry = m->private;
	struct npu_device *ndev = to_npu_device(entry->dev);

	seq_printf(m, "address_spaces %d\nmapped_pages %lld\n",
		   atomic_read(&ndev->vm.spaces), atomic64_read(&ndev->vm.pages));
	return 0;
}
