// SPDX-License-Identifier: GPL-2.0-only
/*
 * Probe-time self-test: one NOP and one FENCE through ring 0 prove the path
 * doorbell -> ring fetch -> DMA write -> MSI-X interrupt end to end.
 */

#include <linux/dma-mapping.h>
#include <linux/ktime.h>

#include "npu_drv.h"

#define NPU_SELFTEST_ENTRIES	4
#define NPU_SELFTEST_VALUE	0x5e1f7e5700c0ffeeULL
#define NPU_SELFTEST_TIMEOUT	(5 * HZ)

struct npu_selftest_fence {
	u64 value;
	u64 timestamp;
};

static void npu_selftest_build(struct npu_cmd *cmds, dma_addr_t fence_dma)
{
	memset(cmds, 0, 2 * sizeof(*cmds));
	cmds[0].opcode = cpu_to_le16(NPU_OP_NOP);
	cmds[1].opcode = cpu_to_le16(NPU_OP_FENCE);
	cmds[1].flags = cpu_to_le16(NPU_CMD_IRQ | NPU_CMD_DST_HOST |
				    NPU_CMD_FENCE_TIME);
	cmds[1].dst = cpu_to_le64(fence_dma);
	cmds[1].value = cpu_to_le64(NPU_SELFTEST_VALUE);
}

static int npu_selftest_run(struct npu_ring *ring,
			    struct npu_selftest_fence *fence,
			    dma_addr_t fence_dma)
{
	struct npu_device *ndev = ring->ndev;
	struct npu_cmd cmds[2];
	ktime_t start;
	long left;

	npu_selftest_build(cmds, fence_dma);
	start = ktime_get();
	npu_ring_push(ring, cmds, ARRAY_SIZE(cmds));
	left = wait_event_timeout(ring->wq,
				  READ_ONCE(fence->value) == NPU_SELFTEST_VALUE,
				  NPU_SELFTEST_TIMEOUT);
	if (!left) {
		drm_err(&ndev->drm, "self-test: no fence interrupt (ring status %u, error %u)\n",
			npu_ring_status(ring), npu_ring_error(ring));
		return -ETIMEDOUT;
	}
	ndev->selftest_ns = ktime_to_ns(ktime_sub(ktime_get(), start));
	if (!READ_ONCE(fence->timestamp)) {
		drm_err(&ndev->drm, "self-test: fence carries no timestamp\n");
		return -EIO;
	}
	return 0;
}

/**
 * npu_selftest - check that the card executes commands and interrupts
 * @ndev: the card, with interrupts set up
 *
 * Return: 0 when a fence came back with its interrupt, else a negative errno.
 */
int npu_selftest(struct npu_device *ndev)
{
	struct npu_ring *ring = &ndev->rings[0];
	struct npu_selftest_fence *fence;
	dma_addr_t fence_dma;
	int ret;

	fence = dma_alloc_coherent(ndev->drm.dev, sizeof(*fence), &fence_dma,
				   GFP_KERNEL);
	if (!fence)
		return -ENOMEM;

	ret = npu_ring_start(ring, NPU_SELFTEST_ENTRIES, 0);
	if (ret)
		goto out_free;

	ret = npu_selftest_run(ring, fence, fence_dma);
	if (npu_ring_stop(ring))
		return -ETIMEDOUT;	/* the card may still write the fence */
	ndev->selftest_ok = !ret;
out_free:
	dma_free_coherent(ndev->drm.dev, sizeof(*fence), fence, fence_dma);
	return ret;
}
