// SPDX-License-Identifier: GPL-2.0-only
/*
 * debugfs, in /sys/kernel/debug/accel/<PCI device>/:
 *   rings   registers and queued commands of every ring a stream owns, and
 *           the jobs allocated so far and still alive (pooled or queued)
 *   fault   arms the card's fault injection: "<kind> <ring> [arg]" with kind
 *           one of clear, hang, dma, delay, drop_irq, stop_heartbeat,
 *           stuck_reset, fail_op, hang_op, and the card-wide over_temp
 *           (arg: degrees C, 0 ends it), ecc_corrected, ecc_uncorrected
 *           (arg: errors to count), whose ring must exist but is ignored
 *   vm      address spaces contexts hold and 4 KiB pages mapped, all
 *           contexts: "address_spaces N\nmapped_pages N\n"
 */

#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include <drm/drm_debugfs.h>

#include "npu_drv.h"

#define NPU_DUMP_CMDS	8

static void npu_dump_ring(struct seq_file *m, struct npu_ring *ring)
{
	u32 head = npu_ring_rd32(ring, NPU_RING_HEAD);
	u32 tail = READ_ONCE(ring->tail);
	u32 i;

	/* Keeps a stopping ring from freeing its commands meanwhile. */
	lockdep_assert_held(&ring->ndev->rings_lock);
	seq_printf(m, "ring %u: vector %u entries %u tail %u head %u status %u error %u at %u, %llu commands, %llu bytes\n",
		   ring->index, ring->vector, ring->entries, tail, head,
		   npu_ring_status(ring), npu_ring_error(ring),
		   npu_ring_rd32(ring, NPU_RING_ERROR_INDEX),
		   npu_ring_rd64(ring, NPU_RING_CMDS_DONE),
		   npu_ring_rd64(ring, NPU_RING_BYTES_DONE));
	seq_printf(m, "  fetching %u, %llu doorbells for %llu pushes\n",
		   le32_to_cpu(READ_ONCE(ring->shadow->fetching)),
		   READ_ONCE(ring->doorbells), READ_ONCE(ring->pushes));

	for (i = head; i != tail && i - head < NPU_DUMP_CMDS; i++) {
		const struct npu_cmd *cmd = &ring->cmds[i & (ring->entries - 1)];

		seq_printf(m, "  [%u] op %u flags %#x arg %#x dst %#llx src %#llx size %llu value %#llx\n",
			   i, le16_to_cpu(cmd->opcode), le16_to_cpu(cmd->flags),
			   le32_to_cpu(cmd->arg), le64_to_cpu(cmd->dst),
			   le64_to_cpu(cmd->src), le64_to_cpu(cmd->size),
			   le64_to_cpu(cmd->value));
	}
}

static int npu_rings_show(struct seq_file *m, void *unused)
{
	struct drm_debugfs_entry *entry = m->private;
	struct npu_device *ndev = to_npu_device(entry->dev);
	u32 i;

	seq_printf(m, "heartbeat %llu clock %llu ns error %#x%s\n",
		   npu_rd64(ndev, NPU_GLB_HEARTBEAT), npu_rd64(ndev, NPU_GLB_CLOCK_NS),
		   npu_rd32(ndev, NPU_GLB_ERROR), READ_ONCE(ndev->dead) ? " DEAD" : "");
	seq_printf(m, "jobs %lld made, %d alive\n", atomic64_read(&ndev->jobs_made),
		   atomic_read(&ndev->jobs_alive));

	spin_lock_irq(&ndev->rings_lock);
	for (i = 0; i < ndev->id.num_rings; i++) {
		if (ndev->rings[i].owned && ndev->rings[i].cmds)
			npu_dump_ring(m, &ndev->rings[i]);
	}
	spin_unlock_irq(&ndev->rings_lock);
	return 0;
}

static const struct drm_debugfs_info npu_debugfs_list[] = {
	{ "rings", npu_rings_show, 0 },
	{ "vm", npu_vm_show, 0 },
};

static const char * const npu_fault_names[] = {
	[NPU_FAULT_CLEAR] = "clear",
	[NPU_FAULT_HANG_RING] = "hang",
	[NPU_FAULT_FAIL_DMA] = "dma",
	[NPU_FAULT_DELAY] = "delay",
	[NPU_FAULT_DROP_IRQ] = "drop_irq",
	[NPU_FAULT_STOP_HEARTBEAT] = "stop_heartbeat",
	[NPU_FAULT_STUCK_RESET] = "stuck_reset",
	[NPU_FAULT_FAIL_OP] = "fail_op",
	[NPU_FAULT_HANG_OP] = "hang_op",
	[NPU_FAULT_OVER_TEMP] = "over_temp",
	[NPU_FAULT_ECC_CORRECTED] = "ecc_corrected",
	[NPU_FAULT_ECC_UNCORRECTED] = "ecc_uncorrected",
};

static ssize_t npu_fault_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *pos)
{
	struct npu_device *ndev = file->private_data;
	char buf[64], name[16];
	u32 ring, arg = 0;
	int kind, idx, ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	if (sscanf(buf, "%15s %u %u", name, &ring, &arg) < 2)
		return -EINVAL;
	kind = match_string(npu_fault_names, ARRAY_SIZE(npu_fault_names), name);
	if (kind < 0)
		return kind;

	if (!drm_dev_enter(&ndev->drm, &idx))
		return -ENODEV;
	ret = npu_card_inject_fault(ndev, ring, kind, arg);
	drm_dev_exit(idx);
	return ret ?: len;
}

static const struct file_operations npu_fault_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = npu_fault_write,
};

void npu_debugfs_init(struct npu_device *ndev)
{
	drm_debugfs_add_files(&ndev->drm, npu_debugfs_list, ARRAY_SIZE(npu_debugfs_list));
	debugfs_create_file("fault", 0200, ndev->drm.debugfs_root, ndev, &npu_fault_fops);
}
