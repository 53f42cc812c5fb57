// SPDX-License-Identifier: GPL-2.0-only
/*
 * Card reset and recovery with the device bound: an administrator's
 * request, a hung ring that did not confirm its own reset, or (with
 * reset_on_heartbeat_loss) a lost heartbeat resets the card as a whole.
 * Every context open at the time is lost: its streams fail with
 * DRM_NPU_ERR_RESET and it accepts no new work (-ECANCELED); contexts
 * opened afterwards work at once (uapi/npu_accel.h, "Card reset").
 */

#include <linux/device.h>
#include <linux/module.h>
#include <linux/sysfs.h>

#include "npu_drv.h"

static bool npu_reset_on_heartbeat_loss;
module_param_named(reset_on_heartbeat_loss, npu_reset_on_heartbeat_loss, bool, 0644);
MODULE_PARM_DESC(reset_on_heartbeat_loss,
		 "reset a card whose heartbeat stopped instead of declaring it dead (default: no)");

static const char *const npu_reset_reason_names[] = {
	[DRM_NPU_RESET_NONE] = "none",
	[DRM_NPU_RESET_ADMIN] = "admin",
	[DRM_NPU_RESET_HANG] = "hang",
	[DRM_NPU_RESET_HEARTBEAT] = "heartbeat",
};

/*
 * Before the global reset zeroes the rings' counters, what they computed
 * is accounted; the context is marked lost first, so that a stream it
 * creates from now on is refused (its creation holds reset_sem).
 */
static void npu_reset_ctx_before(struct npu_ctx *ctx, u32 reason)
{
	struct npu_stream *stream;
	unsigned long id;

	mutex_lock(&ctx->lock);
	WRITE_ONCE(ctx->lost, reason);
	xa_for_each(&ctx->streams, id, stream)
		npu_compute_sample(stream);
	mutex_unlock(&ctx->lock);
}

/* The card no longer runs any ring: fail what is queued, free what is kept. */
static void npu_reset_ctx_after(struct npu_ctx *ctx)
{
	struct npu_stream *stream;
	unsigned long id;

	mutex_lock(&ctx->lock);
	xa_for_each(&ctx->streams, id, stream) {
		npu_stream_fail(stream, DRM_NPU_ERR_RESET);
		npu_stream_release_stopped(stream);
	}
	mutex_unlock(&ctx->lock);
	wake_up_all(&ctx->wq);
}

/* A global reset sets SHADOW_BASE to 0; rings enabled later latch it. */
static int npu_reset_hw(struct npu_device *ndev)
{
	int ret = npu_card_reset(ndev);

	if (ret)
		return ret;
	pci_set_master(npu_pdev(ndev));
	npu_rings_restore_shadows(ndev);
	return 0;
}

static int npu_reset_locked(struct npu_device *ndev, u32 reason)
{
	struct npu_ctx *ctx;
	int ret;

	lockdep_assert_held_write(&ndev->reset_sem);
	mutex_lock(&ndev->contexts_lock);
	list_for_each_entry(ctx, &ndev->contexts, link)
		npu_reset_ctx_before(ctx, reason);

	ret = npu_reset_hw(ndev);
	if (ret) {
		mutex_unlock(&ndev->contexts_lock);
		npu_card_declare_dead(ndev);
		return ret;
	}
	/* Every ring is stopped: failing streams need not reset theirs. */
	WRITE_ONCE(ndev->rings_stopped, true);
	list_for_each_entry(ctx, &ndev->contexts, link)
		npu_reset_ctx_after(ctx);
	npu_rings_reclaim(ndev);
	WRITE_ONCE(ndev->rings_stopped, false);
	WRITE_ONCE(ndev->dead, false);
	WRITE_ONCE(ndev->reset_count, ndev->reset_count + 1);
	WRITE_ONCE(ndev->last_reset_reason, reason);
	mutex_unlock(&ndev->contexts_lock);

	npu_heartbeat_restart(ndev);
	npu_health_card_reset(ndev);
	/* Once the card is alive again: a dead card runs no MMU command. */
	npu_peer_reset(ndev);
	drm_info(&ndev->drm, "card reset (%s), %llu since probe\n",
		 npu_reset_reason_names[reason], ndev->reset_count);
	return 0;
}

/**
 * npu_reset_card - reset the card, keeping it bound
 * @ndev: the card
 * @reason: enum drm_npu_reset_reason
 *
 * Takes reset_sem for writing: no stream is being created meanwhile, and
 * contexts_lock: no context opens or closes.
 *
 * Return: 0; -ENODEV when the card is gone; -ETIMEDOUT when it did not
 * complete the reset (it is then declared dead).
 */
int npu_reset_card(struct npu_device *ndev, u32 reason)
{
	int ret, idx;

	if (!drm_dev_enter(&ndev->drm, &idx))
		return -ENODEV;
	down_write(&ndev->reset_sem);
	ret = npu_reset_locked(ndev, reason);
	up_write(&ndev->reset_sem);
	drm_dev_exit(idx);
	return ret;
}

static void npu_reset_work(struct work_struct *work)
{
	struct npu_device *ndev = container_of(work, struct npu_device, reset_work);

	npu_reset_card(ndev, DRM_NPU_RESET_HANG);
}

/**
 * npu_reset_hung_ring - a hung ring did not confirm its reset: reset the card
 * @ring: the ring
 *
 * From the stream's failure, which holds locks the reset takes: queued.
 */
void npu_reset_hung_ring(struct npu_ring *ring)
{
	drm_err(&ring->ndev->drm, "hung ring %u did not stop: resetting the card\n",
		ring->index);
	queue_work(system_unbound_wq, &ring->ndev->reset_work);
}

/**
 * npu_reset_heartbeat_lost - the heartbeat stopped: reset, or give the card up
 * @ndev: the card
 * @seen: npu_device.heartbeat_seen on which the watchdog decided; a reset
 *	meanwhile moved it, and the verdict no longer holds
 *
 * Called by the heartbeat watchdog only.
 *
 * Return: true when the card lives on and is to be watched further.
 */
bool npu_reset_heartbeat_lost(struct npu_device *ndev, unsigned long seen)
{
	bool alive = true;
	int idx;

	if (!drm_dev_enter(&ndev->drm, &idx))
		return false;
	down_write(&ndev->reset_sem);
	if (READ_ONCE(ndev->heartbeat_seen) != seen) {
		/* Reset by someone else: watched from its new beat. */
	} else if (READ_ONCE(npu_reset_on_heartbeat_loss)) {
		drm_err(&ndev->drm, "heartbeat stopped: resetting the card\n");
		alive = !npu_reset_locked(ndev, DRM_NPU_RESET_HEARTBEAT);
	} else {
		npu_card_declare_dead(ndev);
		alive = false;
	}
	up_write(&ndev->reset_sem);
	drm_dev_exit(idx);
	return alive;
}

/**
 * npu_reset_stream_create_begin - hold off card resets while a stream is made
 * @ctx: the context the stream is for
 *
 * Return: 0 with reset_sem held for reading, to be released with
 * npu_reset_stream_create_end(); -ECANCELED when a reset lost @ctx.
 */
int npu_reset_stream_create_begin(struct npu_ctx *ctx)
{
	down_read(&ctx->ndev->reset_sem);
	if (READ_ONCE(ctx->lost)) {
		up_read(&ctx->ndev->reset_sem);
		return -ECANCELED;
	}
	return 0;
}

void npu_reset_stream_create_end(struct npu_ctx *ctx)
{
	up_read(&ctx->ndev->reset_sem);
}

void npu_reset_init(struct npu_device *ndev)
{
	init_rwsem(&ndev->reset_sem);
	INIT_WORK(&ndev->reset_work, npu_reset_work);
}

/* After drm_dev_unplug(): a queued reset finds the card gone. */
void npu_reset_fini(struct npu_device *ndev)
{
	cancel_work_sync(&ndev->reset_work);
}

static struct npu_device *npu_reset_dev(struct device *dev)
{
	return dev_get_drvdata(dev);
}

static ssize_t reset_store(struct device *dev, struct device_attribute *attr,
			   const char *buf, size_t count)
{
	bool reset;
	int ret;

	ret = kstrtobool(buf, &reset);
	if (ret)
		return ret;
	if (!reset)
		return -EINVAL;
	ret = npu_reset_card(npu_reset_dev(dev), DRM_NPU_RESET_ADMIN);
	return ret ?: count;
}
DEVICE_ATTR_WO(reset);

static ssize_t reset_count_show(struct device *dev, struct device_attribute *attr,
				char *buf)
{
	return sysfs_emit(buf, "%llu\n", READ_ONCE(npu_reset_dev(dev)->reset_count));
}
DEVICE_ATTR_RO(reset_count);

static ssize_t last_reset_reason_show(struct device *dev,
				      struct device_attribute *attr, char *buf)
{
	u32 reason = READ_ONCE(npu_reset_dev(dev)->last_reset_reason);

	return sysfs_emit(buf, "%s\n", npu_reset_reason_names[reason]);
}
DEVICE_ATTR_RO(last_reset_reason);
