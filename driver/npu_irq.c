// SPDX-License-Identifier: GPL-2.0-only
/*
 * MSI-X: vector 0 reports card-wide events, the others serve rings.
 */

#include <linux/interrupt.h>

#include "npu_drv.h"

struct npu_vector {
	struct npu_device *ndev;
	u32 vector;
};

static irqreturn_t npu_control_irq(int irq, void *arg)
{
	struct npu_vector *v = arg;
	u32 error = npu_rd32(v->ndev, NPU_GLB_ERROR);

	if (error)
		drm_err_ratelimited(&v->ndev->drm, "card error %#x\n", error);
	return IRQ_HANDLED;
}

static irqreturn_t npu_ring_vector_irq(int irq, void *arg)
{
	struct npu_vector *v = arg;

	npu_ring_irq(v->ndev, v->vector);
	return IRQ_HANDLED;
}

/**
 * npu_irq_init - allocate the card's MSI-X vectors and install handlers
 * @ndev: the card
 *
 * Takes as many vectors as the card offers, at least two; rings share the
 * ring vectors when there are fewer of them than rings.
 *
 * Return: 0 or a negative errno.
 */
int npu_irq_init(struct npu_device *ndev)
{
	struct pci_dev *pdev = npu_pdev(ndev);
	struct npu_vector *vectors;
	int nvec, i, ret;

	nvec = pci_alloc_irq_vectors(pdev, 2, ndev->id.num_vectors, PCI_IRQ_MSIX);
	if (nvec < 0) {
		drm_err(&ndev->drm, "cannot enable MSI-X: %d\n", nvec);
		return nvec;
	}
	ndev->num_irqs = nvec;

	vectors = drmm_kcalloc(&ndev->drm, nvec, sizeof(*vectors), GFP_KERNEL);
	if (!vectors)
		return -ENOMEM;

	for (i = 0; i < nvec; i++) {
		vectors[i].ndev = ndev;
		vectors[i].vector = i;
		ret = devm_request_irq(&pdev->dev, pci_irq_vector(pdev, i),
				       i ? npu_ring_vector_irq : npu_control_irq,
				       0, DRIVER_NAME, &vectors[i]);
		if (ret) {
			drm_err(&ndev->drm, "cannot request vector %d: %d\n", i, ret);
			return ret;
		}
	}
	return 0;
}
