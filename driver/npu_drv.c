// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPU PCIe accelerator card: PCI and DRM accel registration, the ioctl
 * table, GET_PARAM and fdinfo.
 */

#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/pci.h>

#include <drm/drm_accel.h>
#include <drm/drm_drv.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>

#include "npu_drv.h"

unsigned int npu_hang_timeout_ms = 10000;
module_param_named(hang_timeout_ms, npu_hang_timeout_ms, uint, 0644);
MODULE_PARM_DESC(hang_timeout_ms, "a stream with work that makes no progress this long is hung");

unsigned int npu_heartbeat_timeout_ms = 3000;
module_param_named(heartbeat_timeout_ms, npu_heartbeat_timeout_ms, uint, 0644);
MODULE_PARM_DESC(heartbeat_timeout_ms, "a card whose heartbeat stops this long is dead (no less than two watchdog checks, one per heartbeat period)");

/* A property of the card, or of the caller's context. */
static int npu_param(struct npu_ctx *ctx, u32 param, u64 *value)
{
	struct npu_device *ndev = ctx->ndev;
	int idx;

	switch (param) {
	case DRM_NPU_PARAM_DEVMEM_SIZE:
		*value = ndev->id.devmem_size;
		break;
	case DRM_NPU_PARAM_DEVMEM_FREE:
		*value = ndev->id.devmem_size - READ_ONCE(ndev->devmem_used);
		break;
	case DRM_NPU_PARAM_NUM_RINGS:
		*value = ndev->id.num_rings;
		break;
	case DRM_NPU_PARAM_FREE_RINGS:
		*value = ndev->id.num_rings - READ_ONCE(ndev->rings_used);
		break;
	case DRM_NPU_PARAM_MAX_RING_ENTRIES:
		*value = ndev->id.max_ring_entries;
		break;
	case DRM_NPU_PARAM_SERIAL:
		*value = ndev->id.serial;
		break;
	case DRM_NPU_PARAM_CLOCK_NS:
		if (!drm_dev_enter(&ndev->drm, &idx))
			return -ENODEV;
		*value = npu_rd64(ndev, NPU_GLB_CLOCK_NS);
		drm_dev_exit(idx);
		break;
	case DRM_NPU_PARAM_FENCE_MMAP_OFFSET:
		*value = drm_vma_node_offset_addr(&ctx->fence->gem.vma_node);
		break;
	case DRM_NPU_PARAM_FENCE_SIZE:
		*value = ctx->fence->gem.size;
		break;
	case DRM_NPU_PARAM_NUM_SLOTS:
		*value = ctx->fence->count;
		break;
	case DRM_NPU_PARAM_FREE_SLOTS:
		*value = npu_ctx_free_slots(ctx);
		break;
	case DRM_NPU_PARAM_VERSION:
		*value = ndev->id.version;
		break;
	case DRM_NPU_PARAM_DIRECT_BINDINGS:
		*value = NPU_DIRECT_BINDINGS;
		break;
	case DRM_NPU_PARAM_RESET_COUNT:
		*value = READ_ONCE(ndev->reset_count);
		break;
	case DRM_NPU_PARAM_CTX_LOST:
		*value = READ_ONCE(ctx->lost);
		break;
	default:
		return npu_vm_param(ndev, param, value);
	}
	return 0;
}

static int npu_get_param_ioctl(struct drm_device *dev, void *data,
			       struct drm_file *file)
{
	struct drm_npu_get_param *args = data;

	if (args->pad)
		return -EINVAL;
	return npu_param(file->driver_priv, args->param, &args->value);
}

static const struct drm_ioctl_desc npu_drm_ioctls[] = {
	DRM_IOCTL_DEF_DRV(NPU_GET_PARAM, npu_get_param_ioctl, 0),
	DRM_IOCTL_DEF_DRV(NPU_BO_CREATE, npu_bo_create_ioctl, 0),
	DRM_IOCTL_DEF_DRV(NPU_STREAM_CREATE, npu_stream_create_ioctl, 0),
	DRM_IOCTL_DEF_DRV(NPU_STREAM_DESTROY, npu_stream_destroy_ioctl, 0),
	DRM_IOCTL_DEF_DRV(NPU_SUBMIT, npu_submit_ioctl, 0),
	DRM_IOCTL_DEF_DRV(NPU_WAIT, npu_wait_ioctl, 0),
	DRM_IOCTL_DEF_DRV(NPU_SLOT_ALLOC, npu_slot_alloc_ioctl, 0),
	DRM_IOCTL_DEF_DRV(NPU_SLOT_FREE, npu_slot_free_ioctl, 0),
	DRM_IOCTL_DEF_DRV(NPU_SLOT_SIGNAL, npu_slot_signal_ioctl, 0),
	DRM_IOCTL_DEF_DRV(NPU_STREAM_MAP, npu_stream_map_ioctl, 0),
	DRM_IOCTL_DEF_DRV(NPU_STREAM_KICK, npu_stream_kick_ioctl, 0),
	DRM_IOCTL_DEF_DRV(NPU_PROGRAM_CREATE, npu_program_create_ioctl, 0),
	DRM_IOCTL_DEF_DRV(NPU_PROGRAM_DESTROY, npu_program_destroy_ioctl, 0),
	DRM_IOCTL_DEF_DRV(NPU_BO_EXPORT, npu_bo_export_ioctl, 0),
	DRM_IOCTL_DEF_DRV(NPU_BO_EXPORT_CTL, npu_bo_export_ctl_ioctl, 0),
	DRM_IOCTL_DEF_DRV(NPU_BO_IMPORT, npu_bo_import_ioctl, 0),
	DRM_IOCTL_DEF_DRV(NPU_VM_BIND, npu_vm_bind_ioctl, 0),
	DRM_IOCTL_DEF_DRV(NPU_BO_USERPTR, npu_bo_userptr_ioctl, 0),
};

/*
 * drm_ioctl() pads or truncates an argument whose size differs from the
 * kernel's struct; this driver has one size per ioctl and refuses others.
 */
static long npu_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	unsigned int nr = _IOC_NR(cmd);

	if (_IOC_TYPE(cmd) == DRM_IOCTL_BASE && nr >= DRM_COMMAND_BASE &&
	    nr < DRM_COMMAND_BASE + ARRAY_SIZE(npu_drm_ioctls) &&
	    cmd != npu_drm_ioctls[nr - DRM_COMMAND_BASE].cmd)
		return -EINVAL;
	return drm_ioctl(filp, cmd, arg);
}

/*
 * Direct rings stop before drm_release() closes the file's handles: the
 * handles are their bindings, and closing one waits for the rings.
 */
static int npu_release(struct inode *inode, struct file *filp)
{
	struct drm_file *file = filp->private_data;

	npu_direct_ctx_stop(file->driver_priv);
	return drm_release(inode, filp);
}

static const struct file_operations npu_fops = {
	.owner = THIS_MODULE,
	.open = accel_open,
	.release = npu_release,
	.unlocked_ioctl = npu_ioctl,
	.compat_ioctl = npu_ioctl,
	.poll = drm_poll,
	.read = drm_read,
	.llseek = noop_llseek,
	.mmap = drm_gem_mmap,
	.show_fdinfo = drm_show_fdinfo,
	.fop_flags = FOP_UNSIGNED_OFFSET,
};

static void npu_show_fdinfo(struct drm_printer *p, struct drm_file *file)
{
	struct npu_ctx *ctx = file->driver_priv;
	struct drm_gem_object *obj;
	u64 host = 0, device = 0;
	int id;

	npu_ctx_retire(ctx);

	spin_lock(&file->table_lock);
	idr_for_each_entry(&file->object_idr, obj, id) {
		if (npu_bo_is_device(obj))
			device += npu_bo_size(obj);
		else
			host += npu_bo_size(obj);
	}
	spin_unlock(&file->table_lock);

	drm_printf(p, "drm-engine-npu:\t%lld ns\n", atomic64_read(&ctx->busy_ns));
	drm_printf(p, "drm-total-device:\t%llu KiB\n", device >> 10);
	drm_printf(p, "drm-total-host:\t%llu KiB\n", host >> 10);
	drm_printf(p, "npu-bytes-moved:\t%lld\n", atomic64_read(&ctx->bytes_moved));
	npu_compute_show_fdinfo(p, ctx);
}

static const struct drm_driver npu_drm_driver = {
	.driver_features = DRIVER_GEM | DRIVER_COMPUTE_ACCEL,
	.open = npu_open,
	.postclose = npu_postclose,
	.gem_create_object = npu_gem_create_object,
	.gem_prime_import = npu_gem_prime_import,
	.prime_fd_to_handle = npu_share_prime_fd_to_handle,
	.show_fdinfo = npu_show_fdinfo,
	.ioctls = npu_drm_ioctls,
	.num_ioctls = ARRAY_SIZE(npu_drm_ioctls),
	.fops = &npu_fops,
	.name = DRIVER_NAME,
	.desc = DRIVER_DESC,
	.major = 1,
	/*
	 * 1.1: DRM_NPU_OP_COMPUTE; 1.2: direct streams; 1.3: their operators;
	 * 1.4: programs, CLOCK_WRITE, shared buffers, COMPUTE_NS;
	 * 1.5: card reset (DRM_NPU_ERR_RESET, RESET_COUNT, CTX_LOST);
	 * 1.6: address spaces (VM_BIND, BO_USERPTR, PRIME, page faults);
	 * 1.7: NPU_DTYPE_U64 passed to the card when it offers it
	 */
	.minor = 7,
};

static int npu_map_bars(struct npu_device *ndev)
{
	struct pci_dev *pdev = npu_pdev(ndev);

	if (pci_resource_len(pdev, NPU_BAR_CARD) < NPU_REG_WINDOW_SIZE ||
	    pci_resource_len(pdev, NPU_BAR_DOORBELL) < NPU_BAR0_DOORBELL + 4)
		return -ENODEV;

	ndev->regs = pcim_iomap_region(pdev, NPU_BAR_CARD, DRIVER_NAME);
	if (IS_ERR(ndev->regs))
		return PTR_ERR(ndev->regs);

	ndev->doorbell = pcim_iomap_region(pdev, NPU_BAR_DOORBELL, DRIVER_NAME);
	return PTR_ERR_OR_ZERO(ndev->doorbell);
}

static int npu_sw_init(struct npu_device *ndev)
{
	int ret;

	spin_lock_init(&ndev->rings_lock);
	spin_lock_init(&ndev->fence_lock);
	INIT_LIST_HEAD(&ndev->fence_areas);
	INIT_LIST_HEAD(&ndev->direct_areas);
	INIT_LIST_HEAD(&ndev->contexts);
	npu_reset_init(ndev);
	ret = drmm_mutex_init(&ndev->drm, &ndev->mm_lock);
	if (!ret)
		ret = drmm_mutex_init(&ndev->drm, &ndev->contexts_lock);
	if (!ret)
		ret = drmm_mutex_init(&ndev->drm, &ndev->sysfs_lock);
	if (!ret)
		ret = npu_peer_init(ndev);
	return ret;
}

static int npu_hw_init(struct npu_device *ndev)
{
	struct pci_dev *pdev = npu_pdev(ndev);
	int ret;

	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;
	pci_set_master(pdev);

	ret = npu_card_reset(ndev);
	if (ret)
		return ret;
	ret = npu_irq_init(ndev);
	if (ret)
		return ret;
	return npu_rings_init(ndev);
}

static int npu_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct npu_device *ndev;
	int ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;

	ndev = devm_drm_dev_alloc(&pdev->dev, &npu_drm_driver,
				  struct npu_device, drm);
	if (IS_ERR(ndev))
		return PTR_ERR(ndev);
	pci_set_drvdata(pdev, ndev);

	ret = npu_map_bars(ndev);
	if (ret)
		return ret;

	/* Other functions share the PCI ID; only the magic says it is ours. */
	ret = npu_card_probe_identity(ndev);
	if (ret)
		return ret;

	ret = npu_sw_init(ndev);
	if (ret)
		return ret;
	ret = npu_vm_card_init(ndev);
	if (ret)
		return ret;
	drm_mm_init(&ndev->mm, 0, ndev->id.devmem_size);

	ret = npu_hw_init(ndev);
	if (ret)
		goto err_mm;

	if (npu_selftest(ndev))
		drm_err(&ndev->drm, "self-test failed\n");

	ret = npu_sysfs_init(ndev);
	if (ret)
		goto err_reset;
	npu_debugfs_init(ndev);
	npu_heartbeat_start(ndev);
	ret = npu_health_init(ndev);
	if (ret)
		goto err_heartbeat;

	ret = drm_dev_register(&ndev->drm, 0);
	if (ret)
		goto err_heartbeat;

	drm_info(&ndev->drm, "card %016llx: %u rings, %llu MiB device memory, self-test %s\n",
		 ndev->id.serial, ndev->id.num_rings, ndev->id.devmem_size >> 20,
		 ndev->selftest_ok ? "passed" : "FAILED");
	return 0;

err_heartbeat:
	cancel_delayed_work_sync(&ndev->heartbeat_work);
	npu_reset_fini(ndev);
	npu_sysfs_fini(ndev);
err_reset:
	npu_card_reset(ndev);
err_mm:
	drm_mm_takedown(&ndev->mm);
	return ret;
}

static void npu_remove(struct pci_dev *pdev)
{
	struct npu_device *ndev = pci_get_drvdata(pdev);

	/* No ioctl nor work touches the card once this returns. */
	drm_dev_unplug(&ndev->drm);
	cancel_delayed_work_sync(&ndev->heartbeat_work);
	npu_reset_fini(ndev);

	/*
	 * Stop every ring and bus mastering, then let waiters go and give
	 * pinned pages back.
	 */
	if (!npu_card_reset(ndev))
		npu_rings_reclaim(ndev);
	pci_clear_master(pdev);
	npu_card_fail_all(ndev, DRM_NPU_ERR_DEAD);
	/* Open files keep their fence areas, but not the card's view of them. */
	npu_fence_unmap_all(ndev);
	npu_direct_unmap_all(ndev);
	npu_vm_unplug_all(ndev);
	/* Open streams keep their rings, but not the rings' memory. */
	npu_rings_free_all(ndev);
	npu_sysfs_fini(ndev);
}

static const struct pci_device_id npu_pci_ids[] = {
	{ PCI_DEVICE(NPU_PCI_VENDOR_ID, NPU_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, npu_pci_ids);

static struct pci_driver npu_pci_driver = {
	.name = DRIVER_NAME,
	.id_table = npu_pci_ids,
	.probe = npu_probe,
	.remove = npu_remove,
	.dev_groups = npu_card_groups,
};
module_pci_driver(npu_pci_driver);

MODULE_DESCRIPTION(DRIVER_DESC);
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(DMA_BUF);
