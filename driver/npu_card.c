// SPDX-License-Identifier: GPL-2.0-only
/*
 * Card-wide registers: identity, global reset and control handshakes.
 */

#include <linux/iopoll.h>

#include "npu_drv.h"

static int npu_card_check_identity(struct npu_device *ndev)
{
	struct npu_identity *id = &ndev->id;
	resource_size_t bar_len = pci_resource_len(npu_pdev(ndev), NPU_BAR_CARD);

	/* Minor versions add to the interface; this driver needs its own. */
	if (id->version >> 16 != NPU_VERSION_MAJOR ||
	    (id->version & 0xffff) < NPU_VERSION_MINOR) {
		drm_err(&ndev->drm, "unsupported interface version %u.%u\n",
			id->version >> 16, id->version & 0xffff);
		return -ENODEV;
	}
	if (!id->num_rings || id->num_rings > NPU_MAX_RINGS ||
	    id->num_vectors < 2 || id->num_vectors > 0xffff ||
	    id->max_ring_entries < 2 || !is_power_of_2(id->max_ring_entries)) {
		drm_err(&ndev->drm, "inconsistent capabilities: %u rings, %u vectors\n",
			id->num_rings, id->num_vectors);
		return -ENODEV;
	}
	if (id->devmem_offset < NPU_REG_WINDOW_SIZE ||
	    id->devmem_offset > bar_len ||
	    id->devmem_size > bar_len - id->devmem_offset) {
		drm_err(&ndev->drm, "device memory outside BAR2\n");
		return -ENODEV;
	}
	return 0;
}

/**
 * npu_card_probe_identity - read and check the card's identity registers
 * @ndev: the card, with BAR2 mapped
 *
 * Return: 0, or -ENODEV when BAR2 does not hold a card this driver knows.
 */
int npu_card_probe_identity(struct npu_device *ndev)
{
	struct npu_identity *id = &ndev->id;
	int ret;

	if (npu_rd32(ndev, NPU_ID_MAGIC) != NPU_MAGIC)
		return -ENODEV;

	id->version = npu_rd32(ndev, NPU_ID_VERSION);
	id->fw_version = npu_rd32(ndev, NPU_ID_FW_VERSION);
	id->serial = npu_rd64(ndev, NPU_ID_SERIAL);
	id->num_rings = npu_rd32(ndev, NPU_ID_NUM_RINGS);
	id->num_copy_engines = npu_rd32(ndev, NPU_ID_NUM_COPY_ENGINES);
	id->num_vectors = npu_rd32(ndev, NPU_ID_NUM_VECTORS);
	id->doorbell_id = npu_rd32(ndev, NPU_ID_DOORBELL_ID);
	id->max_ring_entries = npu_rd32(ndev, NPU_ID_MAX_RING_ENTRIES);
	id->heartbeat_period_us = npu_rd32(ndev, NPU_ID_HEARTBEAT_PERIOD_US);
	id->devmem_offset = npu_rd64(ndev, NPU_ID_DEVMEM_OFFSET);
	id->devmem_size = npu_rd64(ndev, NPU_ID_DEVMEM_SIZE);

	if (npu_rd32(ndev, NPU_ID_CMD_SIZE) != sizeof(struct npu_cmd)) {
		drm_err(&ndev->drm, "unsupported command size\n");
		return -ENODEV;
	}
	ret = npu_card_check_identity(ndev);
	return ret ?: npu_compute_probe(ndev);
}

/**
 * npu_card_wait_ctrl_clear - wait for the card to clear self-clearing bits
 * @ndev: the card
 * @reg: control register
 * @bits: bits written to @reg that the card clears once done
 *
 * Return: 0, or -ETIMEDOUT if the card did not answer.
 */
int npu_card_wait_ctrl_clear(struct npu_device *ndev, u32 reg, u32 bits)
{
	u32 val;

	return read_poll_timeout(npu_rd32, val, !(val & bits), 20,
				 NPU_CONTROL_TIMEOUT_US, false, ndev, reg);
}

/**
 * npu_card_reset - reset the whole card
 * @ndev: the card
 *
 * Stops and disables every ring, so the card no longer touches host memory,
 * and disarms injected faults.
 *
 * Return: 0, or -ETIMEDOUT if the card did not complete the reset.
 */
int npu_card_reset(struct npu_device *ndev)
{
	int ret;

	npu_wr32(ndev, NPU_GLB_CTRL, NPU_GLB_CTRL_RESET);
	npu_ring_doorbell(ndev, 0);
	ret = npu_card_wait_ctrl_clear(ndev, NPU_GLB_CTRL, NPU_GLB_CTRL_RESET);
	if (ret)
		drm_err(&ndev->drm, "card did not complete reset\n");
	return ret;
}

/**
 * npu_card_inject_fault - arm one of the card's debug faults
 * @ndev: the card
 * @ring: ring the fault applies to
 * @kind: enum npu_fault
 * @arg: argument of the fault
 *
 * Return: 0, -EINVAL for a bad ring or kind, -ETIMEDOUT.
 */
int npu_card_inject_fault(struct npu_device *ndev, u32 ring, u32 kind, u32 arg)
{
	if (ring >= ndev->id.num_rings || kind > NPU_FAULT_LAST)
		return -EINVAL;
	npu_wr32(ndev, NPU_INJ_RING, ring);
	npu_wr32(ndev, NPU_INJ_KIND, kind);
	npu_wr32(ndev, NPU_INJ_ARG, arg);
	npu_wr32(ndev, NPU_INJ_CTRL, NPU_INJ_CTRL_GO);
	npu_ring_doorbell(ndev, 0);
	return npu_card_wait_ctrl_clear(ndev, NPU_INJ_CTRL, NPU_INJ_CTRL_GO);
}

/**
 * npu_card_fail_all - fail every stream of every context
 * @ndev: the card
 * @error: enum drm_npu_error given to the streams' waiters
 */
void npu_card_fail_all(struct npu_device *ndev, u32 error)
{
	struct npu_stream *stream;
	struct npu_ctx *ctx;
	unsigned long id;

	mutex_lock(&ndev->contexts_lock);
	list_for_each_entry(ctx, &ndev->contexts, link) {
		mutex_lock(&ctx->lock);
		xa_for_each(&ctx->streams, id, stream)
			npu_stream_fail(stream, error);
		mutex_unlock(&ctx->lock);
		wake_up_all(&ctx->wq);
	}
	mutex_unlock(&ndev->contexts_lock);
}

/*
 * The watchdog looks at the heartbeat once per period the card states
 * (NPU_ID_HEARTBEAT_PERIOD_US): looking sooner would find it unchanged.
 * The period is clamped: a card beating faster is looked at every 100 ms,
 * soon enough for any sane heartbeat_timeout_ms, and one stating no period
 * (0) or over a second is looked at every second, so that a nonsensical
 * period can neither busy a CPU nor leave the card unwatched.
 */
#define NPU_HEARTBEAT_CHECK_MIN_MS	100
#define NPU_HEARTBEAT_CHECK_MAX_MS	1000

static unsigned long npu_heartbeat_check(const struct npu_identity *id)
{
	u32 us = id->heartbeat_period_us;
	u32 ms = us ? us / USEC_PER_MSEC : NPU_HEARTBEAT_CHECK_MAX_MS;

	return msecs_to_jiffies(clamp_t(u32, ms, NPU_HEARTBEAT_CHECK_MIN_MS,
					NPU_HEARTBEAT_CHECK_MAX_MS));
}

/* At least two looks: a live heartbeat may be found unchanged once. */
static unsigned long npu_heartbeat_timeout(struct npu_device *ndev)
{
	return max(msecs_to_jiffies(READ_ONCE(npu_heartbeat_timeout_ms)),
		   2 * ndev->heartbeat_check);
}

/**
 * npu_card_declare_dead - give up a card whose heartbeat stopped
 * @ndev: the card
 *
 * A dead card cannot confirm ring resets; without bus mastering it can no
 * longer reach the pages its streams are about to let go. Only a card reset
 * (npu_reset.c) or a rebind brings it back.
 */
void npu_card_declare_dead(struct npu_device *ndev)
{
	lockdep_assert_held_write(&ndev->reset_sem);
	drm_err(&ndev->drm, "card is dead\n");
	pci_clear_master(npu_pdev(ndev));
	WRITE_ONCE(ndev->dead, true);
	npu_card_fail_all(ndev, DRM_NPU_ERR_DEAD);
}

static void npu_heartbeat_work(struct work_struct *work)
{
	struct npu_device *ndev = container_of(to_delayed_work(work),
					       struct npu_device, heartbeat_work);
	unsigned long timeout = npu_heartbeat_timeout(ndev);
	unsigned long seen = READ_ONCE(ndev->heartbeat_seen);
	u64 beat;
	int idx;

	if (!drm_dev_enter(&ndev->drm, &idx))
		return;
	beat = npu_rd64(ndev, NPU_GLB_HEARTBEAT);
	drm_dev_exit(idx);

	if (beat != ndev->heartbeat) {
		ndev->heartbeat = beat;
		WRITE_ONCE(ndev->heartbeat_seen, jiffies);
	} else if (time_after(jiffies, seen + timeout)) {
		drm_err(&ndev->drm, "heartbeat stopped for %u ms\n",
			jiffies_to_msecs(timeout));
		if (!npu_reset_heartbeat_lost(ndev, seen))
			return;
	}
	schedule_delayed_work(&ndev->heartbeat_work, ndev->heartbeat_check);
}

/* The heartbeat has not been seen advancing for a few checks. */
bool npu_card_heartbeat_stale(struct npu_device *ndev)
{
	return time_after(jiffies, READ_ONCE(ndev->heartbeat_seen) +
			  3 * ndev->heartbeat_check);
}

void npu_heartbeat_start(struct npu_device *ndev)
{
	ndev->heartbeat = npu_rd64(ndev, NPU_GLB_HEARTBEAT);
	WRITE_ONCE(ndev->heartbeat_seen, jiffies);
	ndev->heartbeat_check = npu_heartbeat_check(&ndev->id);
	INIT_DELAYED_WORK(&ndev->heartbeat_work, npu_heartbeat_work);
	schedule_delayed_work(&ndev->heartbeat_work, ndev->heartbeat_check);
}

/**
 * npu_heartbeat_restart - watch the heartbeat of a card just reset
 * @ndev: the card, its watchdog started
 *
 * A full timeout from now before it is stale; watched again if the card
 * had been declared dead (a pending watchdog stays as it is).
 */
void npu_heartbeat_restart(struct npu_device *ndev)
{
	WRITE_ONCE(ndev->heartbeat_seen, jiffies);
	schedule_delayed_work(&ndev->heartbeat_work, ndev->heartbeat_check);
}
