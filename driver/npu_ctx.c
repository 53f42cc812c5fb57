// SPDX-License-Identifier: GPL-2.0-only
/*
 * Contexts: one per open file. A context owns a fence area that the card
 * writes and userspace maps read-only (npu_fence.c), and its streams.
 */

#include "npu_drv.h"

int npu_open(struct drm_device *dev, struct drm_file *file)
{
	struct npu_device *ndev = to_npu_device(dev);
	struct npu_ctx *ctx;
	int ret;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ctx->ndev = ndev;
	ret = npu_vm_ctx_init(ctx);
	if (ret)
		goto err_free;
	ret = npu_fence_init(ctx, file);
	if (ret)
		goto err_vm;

	ctx->file = file;
	ctx->pid = task_tgid_nr(current);
	mutex_init(&ctx->lock);
	xa_init_flags(&ctx->streams, XA_FLAGS_ALLOC1);
	init_waitqueue_head(&ctx->wq);
	INIT_WORK(&ctx->propagate_work, npu_ctx_propagate_work);
	mutex_init(&ctx->direct_lock);
	INIT_LIST_HEAD(&ctx->direct_streams);
	npu_program_ctx_init(ctx);
	/* as the fence area's binding table starts */
	ctx->bind_epoch = 1;

	mutex_lock(&ndev->contexts_lock);
	ret = npu_exclusive_admit(ndev, ctx->pid);
	if (ret) {
		mutex_unlock(&ndev->contexts_lock);
		goto err_fence;
	}
	ctx->id = ++ndev->next_ctx_id;
	list_add_tail(&ctx->link, &ndev->contexts);
	mutex_unlock(&ndev->contexts_lock);

	file->driver_priv = ctx;
	return 0;

err_fence:
	npu_fence_fini(ctx, file);
	mutex_destroy(&ctx->direct_lock);
	mutex_destroy(&ctx->lock);
err_vm:
	npu_vm_ctx_fini(ctx);
err_free:
	kfree(ctx);
	return ret;
}

void npu_postclose(struct drm_device *dev, struct drm_file *file)
{
	struct npu_ctx *ctx = file->driver_priv;
	struct npu_device *ndev = ctx->ndev;
	struct npu_stream *stream;
	unsigned long id;

	/* Stops every ring before the pages the rings use are let go. */
	xa_for_each(&ctx->streams, id, stream) {
		mutex_lock(&ctx->lock);
		xa_erase(&ctx->streams, id);
		mutex_unlock(&ctx->lock);
		npu_stream_destroy(stream, true);
	}
	xa_destroy(&ctx->streams);
	/* Queued by the failures above; there is nothing left to fail. */
	cancel_work_sync(&ctx->propagate_work);
	npu_program_ctx_fini(ctx);

	mutex_lock(&ndev->contexts_lock);
	list_del(&ctx->link);
	mutex_unlock(&ndev->contexts_lock);

	npu_share_ctx_close(ctx);
	npu_vm_ctx_fini(ctx);
	npu_fence_fini(ctx, file);
	mutex_destroy(&ctx->direct_lock);
	mutex_destroy(&ctx->lock);
	kfree(ctx);
}
