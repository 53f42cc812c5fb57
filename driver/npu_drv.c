// SPDX-License-Identifier: GPL-2.0-only
/*
 * NPU PCIe accelerator card: PCI and DRM accel registration.
 */

#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/pci.h>

#include <drm/drm_accel.h>
#include <drm/drm_drv.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>

#include "npu_drv.h"

DEFINE_DRM_ACCEL_FOPS(npu_fops);

static const struct drm_driver npu_drm_driver = {
	.driver_features = DRIVER_COMPUTE_ACCEL,
	.fops = &npu_fops,
	.name = DRIVER_NAME,
	.desc = DRIVER_DESC,
	.major = 1,
	.minor = 0,
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

	ret = npu_hw_init(ndev);
	if (ret)
		goto err_reset;

	if (npu_selftest(ndev))
		drm_err(&ndev->drm, "self-test failed\n");

	ret = drm_dev_register(&ndev->drm, 0);
	if (ret)
		goto err_reset;

	drm_info(&ndev->drm, "card %016llx: %u rings, %llu MiB device memory, self-test %s\n",
		 ndev->id.serial, ndev->id.num_rings, ndev->id.devmem_size >> 20,
		 ndev->selftest_ok ? "passed" : "FAILED");
	return 0;

err_reset:
	npu_card_reset(ndev);
	return ret;
}

static void npu_remove(struct pci_dev *pdev)
{
	struct npu_device *ndev = pci_get_drvdata(pdev);

	drm_dev_unplug(&ndev->drm);
	/* Stop every ring before devres frees the memory the card may use. */
	npu_card_reset(ndev);
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
	.driver.dev_groups = npu_card_groups,
};
module_pci_driver(npu_pci_driver);

MODULE_DESCRIPTION(DRIVER_DESC);
MODULE_LICENSE("GPL");
