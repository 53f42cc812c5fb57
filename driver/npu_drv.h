/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef __NPU_DRV_H__
#define __NPU_DRV_H__

#include <linux/io.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/pci.h>
#include <linux/wait.h>

#include <drm/drm_device.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include "npu_hw.h"

#define DRIVER_NAME	"npu"
#define DRIVER_DESC	"Driver for the NPU PCIe accelerator card"

/* The card answers control writes in microseconds; a second means broken. */
#define NPU_CONTROL_TIMEOUT_US	1000000

struct npu_device;

/**
 * struct npu_ring - one hardware command ring of the card
 * @ndev: the card
 * @index: ring number on the card
 * @vector: MSI-X vector serving the ring's doorbell and interrupt
 * @entries: number of commands in @cmds, a power of two
 * @cmds: the ring in coherent memory
 * @cmds_dma: bus address of @cmds
 * @tail: next free slot counter, a copy of the TAIL register
 * @wq: woken by the ring's interrupt
 */
struct npu_ring {
	struct npu_device *ndev;
	u32 index;
	u32 vector;
	u32 entries;
	struct npu_cmd *cmds;
	dma_addr_t cmds_dma;
	u32 tail;
	wait_queue_head_t wq;
};

/**
 * struct npu_identity - the card's constant identity registers
 */
struct npu_identity {
	u32 version;
	u32 fw_version;
	u64 serial;
	u32 num_rings;
	u32 num_copy_engines;
	u32 num_vectors;
	u32 doorbell_id;
	u32 max_ring_entries;
	u32 heartbeat_period_us;
	u64 devmem_offset;
	u64 devmem_size;
};

/**
 * struct npu_device - one NPU card
 * @drm: the accel device
 * @regs: BAR2 register window
 * @doorbell: BAR0
 * @id: identity read at probe
 * @num_irqs: MSI-X vectors allocated; ring vectors are 1..num_irqs-1
 * @rings: per-ring state, @id.num_rings of them
 * @selftest_ok: the probe-time self-test completed a fence
 * @selftest_ns: round trip of the self-test, doorbell to interrupt
 */
struct npu_device {
	struct drm_device drm;
	void __iomem *regs;
	void __iomem *doorbell;
	struct npu_identity id;
	unsigned int num_irqs;
	struct npu_ring *rings;
	bool selftest_ok;
	u64 selftest_ns;
};

static inline struct npu_device *to_npu_device(struct drm_device *drm)
{
	return container_of(drm, struct npu_device, drm);
}

static inline struct pci_dev *npu_pdev(struct npu_device *ndev)
{
	return to_pci_dev(ndev->drm.dev);
}

static inline u32 npu_rd32(struct npu_device *ndev, u32 reg)
{
	return readl(ndev->regs + reg);
}

static inline u64 npu_rd64(struct npu_device *ndev, u32 reg)
{
	return lo_hi_readq(ndev->regs + reg);
}

static inline void npu_wr32(struct npu_device *ndev, u32 reg, u32 val)
{
	writel(val, ndev->regs + reg);
}

static inline void npu_ring_doorbell(struct npu_device *ndev, u32 vector)
{
	writel(NPU_DOORBELL(ndev->id.doorbell_id, vector),
	       ndev->doorbell + NPU_BAR0_DOORBELL);
}

/* npu_card.c */
int npu_card_probe_identity(struct npu_device *ndev);
int npu_card_reset(struct npu_device *ndev);
int npu_card_wait_ctrl_clear(struct npu_device *ndev, u32 reg, u32 bits);

/* npu_ring.c */
int npu_rings_init(struct npu_device *ndev);
int npu_ring_start(struct npu_ring *ring, u32 entries);
int npu_ring_stop(struct npu_ring *ring);
void npu_ring_push(struct npu_ring *ring, const struct npu_cmd *cmds,
		   unsigned int count);
u32 npu_ring_status(struct npu_ring *ring);
u32 npu_ring_error(struct npu_ring *ring);
void npu_ring_irq(struct npu_device *ndev, u32 vector);

/* npu_irq.c */
int npu_irq_init(struct npu_device *ndev);

/* npu_selftest.c */
int npu_selftest(struct npu_device *ndev);

/* npu_sysfs.c */
extern const struct attribute_group *npu_card_groups[];

#endif /* __NPU_DRV_H__ */
