/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Address spaces: each context's page tables on the card's MMU
 * (docs/driver.md, "Address spaces").
 */
#ifndef __NPU_VM_H__
#define __NPU_VM_H__

#include <linux/idr.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>

struct drm_device;
struct drm_file;
struct drm_gem_object;
struct npu_bo;
struct npu_ctx;
struct npu_device;
struct npu_job;
struct npu_stream;
struct seq_file;
struct npu_vm;

/**
 * struct npu_vm_card - the card's MMU as the driver shares it out
 * @cmd_lock: serializes MMU commands (their registers are one set)
 * @lock: protects every buffer's @vm_windows and every npu_vm's window
 *	list; taken before any npu_vm's lock
 * @ida: address space numbers 1..@num_as in use
 * @num_as: address spaces the card has; 0: no MMU, rings untranslated
 * @num_peers: peer windows the card has
 * @window: VA of this card's window (DRM_NPU_PARAM_VA_WINDOW - BASE)
 * @spaces: address spaces taken by contexts
 * @pages: 4 KiB pages mapped, every context's
 */
struct npu_vm_card {
	struct mutex cmd_lock;		/* MMU command registers */
	struct mutex lock;		/* window links */
	struct ida ida;
	u32 num_as;
	u32 num_peers;
	u64 window;
	atomic_t spaces;
	atomic64_t pages;
};

/*
 * Called by a buffer kind for each run of its memory: @target is what a
 * leaf entry holds besides VALID, LEAF and WRITE (NPU_PTE_TARGET(),
 * NPU_PTE_PEER() and a page-aligned address), @bytes a multiple of the
 * page size.
 */
typedef int (*npu_vm_run_fn)(void *priv, u64 target, u64 bytes);

/**
 * struct npu_vm_backing - how a buffer kind's memory is mapped
 * @runs: calls @fn for the runs of memory backing [@offset, @offset +
 *	@size) of @obj in order, stopping at @fn's first error, which it
 *	returns; both page aligned and inside the buffer
 * @may_bind: whether @ctx may map @obj with VM_BIND (and @write for
 *	writing); 0 or the error VM_BIND returns
 */
struct npu_vm_backing {
	int (*runs)(struct drm_gem_object *obj, u64 offset, u64 size,
		    npu_vm_run_fn fn, void *priv);
	int (*may_bind)(struct npu_ctx *ctx, struct drm_gem_object *obj, bool write);
};

extern const struct npu_vm_backing npu_vm_device_backing;
extern const struct npu_vm_backing npu_vm_host_backing;

#define NPU_VM_READ_ONLY	0x1	/* npu_vm_map(): leaves without WRITE */

int npu_vm_card_init(struct npu_device *ndev);
int npu_mmu_cmd(struct npu_device *ndev, u32 cmd, u32 index, u64 addr, u64 size);
int npu_vm_ctx_init(struct npu_ctx *ctx);
void npu_vm_ctx_fini(struct npu_ctx *ctx);
void npu_vm_unplug_all(struct npu_device *ndev);
int npu_vm_activate(struct npu_ctx *ctx);
u32 npu_vm_as(struct npu_ctx *ctx);
int npu_vm_map(struct npu_ctx *ctx, u64 va, u64 size, struct drm_gem_object *obj,
	       u64 offset, u32 flags);
void npu_vm_unmap(struct npu_ctx *ctx, u64 va, u64 size);
int npu_vm_window_map(struct npu_ctx *ctx, struct npu_bo *bo);
void npu_vm_bo_free(struct npu_bo *bo);
u64 npu_vm_bo_addr(struct npu_bo *bo);
int npu_vm_address(struct npu_ctx *ctx, struct npu_job *job, u64 addr, u64 size,
		   u64 *va);
void npu_vm_report_fault(struct npu_stream *stream);
int npu_vm_show(struct seq_file *m, void *unused);
int npu_vm_param(struct npu_device *ndev, u32 param, u64 *value);
int npu_vm_bind_ioctl(struct drm_device *dev, void *data, struct drm_file *file);

#endif /* __NPU_VM_H__ */
