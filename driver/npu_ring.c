// SPDX-License-Identifier: GPL-2.0-only
/*
 * Hardware command rings: setup, teardown, command submission, interrupts.
 */

#include <linux/dma-mapping.h>
#include <linux/iopoll.h>

#include "npu_drv.h"

static u32 npu_ring_reg(const struct npu_ring *ring, u32 reg)
{
	return NPU_RING_REG(ring->index, reg);
}

u32 npu_ring_rd32(struct npu_ring *ring, u32 reg)
{
	return npu_rd32(ring->ndev, npu_ring_reg(ring, reg));
}

u64 npu_ring_rd64(struct npu_ring *ring, u32 reg)
{
	return npu_rd64(ring->ndev, npu_ring_reg(ring, reg));
}

static void npu_ring_wr32(struct npu_ring *ring, u32 reg, u32 val)
{
	npu_wr32(ring->ndev, npu_ring_reg(ring, reg), val);
}

u32 npu_ring_status(struct npu_ring *ring)
{
	return npu_ring_rd32(ring, NPU_RING_STATUS);
}

u32 npu_ring_error(struct npu_ring *ring)
{
	return npu_ring_rd32(ring, NPU_RING_ERROR);
}

/* The rings' shadows, which each ring latches when it is enabled. */
static struct npu_ring_shadow *npu_rings_alloc_shadows(struct npu_device *ndev)
{
	struct npu_ring_shadow *shadows;
	dma_addr_t dma;

	shadows = dmam_alloc_coherent(ndev->drm.dev,
				      ndev->id.num_rings * sizeof(*shadows),
				      &dma, GFP_KERNEL);
	if (!shadows)
		return NULL;
	ndev->shadows_dma = dma;
	npu_rings_restore_shadows(ndev);
	return shadows;
}

/**
 * npu_rings_restore_shadows - tell the card where the rings' shadows are
 * @ndev: the card, at probe or just reset (which sets SHADOW_BASE to 0)
 */
void npu_rings_restore_shadows(struct npu_device *ndev)
{
	npu_wr32(ndev, NPU_SHADOW_BASE, lower_32_bits(ndev->shadows_dma));
	npu_wr32(ndev, NPU_SHADOW_BASE + 4, upper_32_bits(ndev->shadows_dma));
}

/**
 * npu_rings_init - set up the driver's view of the card's rings
 * @ndev: the card
 *
 * Spreads the rings over the ring vectors and gives each its completion
 * word and its shadow; no ring memory is allocated until a ring is started.
 *
 * Return: 0 or -ENOMEM.
 */
int npu_rings_init(struct npu_device *ndev)
{
	u32 ring_vectors = ndev->num_irqs - 1;
	struct npu_ring_shadow *shadows;
	dma_addr_t done_dma;
	u64 *done;
	u32 i;

	ndev->rings = drmm_kcalloc(&ndev->drm, ndev->id.num_rings,
				   sizeof(*ndev->rings), GFP_KERNEL);
	if (!ndev->rings)
		return -ENOMEM;
	done = dmam_alloc_coherent(ndev->drm.dev, ndev->id.num_rings * sizeof(*done),
				   &done_dma, GFP_KERNEL);
	if (!done)
		return -ENOMEM;
	shadows = npu_rings_alloc_shadows(ndev);
	if (!shadows)
		return -ENOMEM;

	for (i = 0; i < ndev->id.num_rings; i++) {
		struct npu_ring *ring = &ndev->rings[i];

		ring->ndev = ndev;
		ring->index = i;
		ring->vector = 1 + i % ring_vectors;
		ring->done = &done[i];
		ring->done_dma = done_dma + i * sizeof(*done);
		ring->shadow = &shadows[i];
		init_waitqueue_head(&ring->wq);
		INIT_LIST_HEAD(&ring->kept_jobs);
	}
	return 0;
}

/**
 * npu_ring_claim - take a ring no stream owns
 * @ndev: the card
 *
 * Rings are not shared: a stream's order would be lost on a shared ring.
 * Ring 0 is left for last so that a lone stream does not take it.
 *
 * Return: the ring, or NULL when every ring is owned.
 */
struct npu_ring *npu_ring_claim(struct npu_device *ndev)
{
	struct npu_ring *ring = NULL;
	u32 i, n = ndev->id.num_rings;

	spin_lock_irq(&ndev->rings_lock);
	for (i = 1; i <= n; i++) {
		struct npu_ring *candidate = &ndev->rings[i % n];

		/* A ring whose memory was kept after a failed stop stays out. */
		if (!candidate->owned && !candidate->cmds) {
			ring = candidate;
			ring->owned = true;
			ring->as = 0;
			WRITE_ONCE(ndev->rings_used, ndev->rings_used + 1);
			break;
		}
	}
	spin_unlock_irq(&ndev->rings_lock);
	return ring;
}

void npu_ring_release(struct npu_ring *ring)
{
	struct npu_device *ndev = ring->ndev;

	spin_lock_irq(&ndev->rings_lock);
	ring->owned = false;
	ring->stream = NULL;
	/* A ring whose memory was kept after a failed stop stays counted. */
	ring->kept = !!ring->cmds;
	if (!ring->kept)
		WRITE_ONCE(ndev->rings_used, ndev->rings_used - 1);
	spin_unlock_irq(&ndev->rings_lock);
}

/* Routes the ring's interrupts to @stream, or nowhere when NULL. */
void npu_ring_attach(struct npu_ring *ring, struct npu_stream *stream)
{
	spin_lock_irq(&ring->ndev->rings_lock);
	ring->stream = stream;
	spin_unlock_irq(&ring->ndev->rings_lock);
}

/*
 * The card confirms a reset between an operator's steps, so a ring in a
 * long step answers late; it is still busy as long as its COMPUTE_NS
 * advances. Only a control timeout without that is no answer.
 */
static int npu_ring_reset_hw(struct npu_ring *ring)
{
	u64 computed, before;
	int ret;

	npu_ring_wr32(ring, NPU_RING_CTRL, NPU_RING_CTRL_RESET);
	npu_ring_doorbell(ring->ndev, 0);
	computed = npu_ring_rd64(ring, NPU_RING_COMPUTE_NS);
	do {
		before = computed;
		ret = npu_card_wait_ctrl_clear(ring->ndev, npu_ring_reg(ring, NPU_RING_CTRL),
					       NPU_RING_CTRL_RESET);
		computed = npu_ring_rd64(ring, NPU_RING_COMPUTE_NS);
	} while (ret == -ETIMEDOUT && computed != before);
	return ret;
}

/**
 * npu_ring_reset - stop a ring on the card
 * @ring: the ring
 *
 * Once it returns 0 the card no longer reads the ring nor runs its
 * commands. A card that is gone was reset when it went.
 *
 * Return: 0, or -ETIMEDOUT when the card did not confirm.
 */
int npu_ring_reset(struct npu_ring *ring)
{
	int ret, idx;

	if (!drm_dev_enter(&ring->ndev->drm, &idx))
		return 0;
	ret = npu_ring_reset_hw(ring);
	drm_dev_exit(idx);
	return ret;
}

static void npu_ring_wr64(struct npu_ring *ring, u32 reg, u64 val)
{
	npu_ring_wr32(ring, reg, lower_32_bits(val));
	npu_ring_wr32(ring, reg + 4, upper_32_bits(val));
}

/* The registers stay as the ring's last owner left them: all are written. */
static void npu_ring_config_direct(struct npu_ring *ring,
				   const struct npu_ring_direct *direct)
{
	npu_ring_wr64(ring, NPU_RING_BIND_BASE, direct ? direct->binds_dma : 0);
	npu_ring_wr32(ring, NPU_RING_BIND_COUNT, direct ? NPU_DIRECT_BINDINGS : 0);
	npu_ring_wr64(ring, NPU_RING_SLOT_BASE, direct ? direct->slots_dma : 0);
	npu_ring_wr32(ring, NPU_RING_SLOT_COUNT, direct ? direct->nslots : 0);
	npu_ring_wr64(ring, NPU_RING_SLOT_IRQ_BASE, direct ? direct->irq_dma : 0);
	npu_ring_wr64(ring, NPU_RING_USER_SHADOW, direct ? direct->shadow_dma : 0);
}

static int npu_ring_enable(struct npu_ring *ring, u32 priority,
			   const struct npu_ring_direct *direct)
{
	u32 status;
	int ret;

	npu_ring_wr64(ring, NPU_RING_BASE, ring->cmds_dma);
	npu_ring_config_direct(ring, direct);
	npu_ring_wr32(ring, NPU_RING_SIZE, ring->entries);
	npu_ring_wr32(ring, NPU_RING_VECTOR, ring->vector);
	npu_ring_wr32(ring, NPU_RING_PRIORITY, priority);
	npu_ring_wr32(ring, NPU_RING_AS, ring->as);
	npu_ring_wr32(ring, NPU_RING_TAIL, 0);
	WRITE_ONCE(ring->tail, 0);
	npu_ring_wr32(ring, NPU_RING_CTRL, NPU_RING_CTRL_ENABLE);
	npu_ring_doorbell(ring->ndev, 0);

	ret = read_poll_timeout(npu_ring_status, status,
				status != NPU_RING_DISABLED, 20,
				NPU_CONTROL_TIMEOUT_US, false, ring);
	if (ret)
		return ret;
	if (status != NPU_RING_IDLE) {
		drm_err(&ring->ndev->drm, "ring %u refused its configuration: error %u\n",
			ring->index, npu_ring_error(ring));
		return -EIO;
	}
	return 0;
}

/* The debugfs dump looks at the commands under rings_lock. */
static void npu_ring_set_cmds(struct npu_ring *ring, struct npu_cmd *cmds,
			      dma_addr_t cmds_dma, struct npu_direct_area *area)
{
	spin_lock_irq(&ring->ndev->rings_lock);
	ring->cmds = cmds;
	ring->cmds_dma = cmds_dma;
	ring->area = area;
	spin_unlock_irq(&ring->ndev->rings_lock);
}

/*
 * Takes the commands away under rings_lock, so that of a stream destroy and
 * an unbind that race to free them, exactly one does.
 */
static void npu_ring_free_cmds(struct npu_ring *ring)
{
	struct npu_direct_area *area;
	struct npu_cmd *cmds;
	dma_addr_t cmds_dma;

	spin_lock_irq(&ring->ndev->rings_lock);
	cmds = ring->cmds;
	cmds_dma = ring->cmds_dma;
	area = ring->area;
	ring->cmds = NULL;
	ring->cmds_dma = 0;
	ring->area = NULL;
	spin_unlock_irq(&ring->ndev->rings_lock);
	if (area)
		npu_direct_area_put(area);
	else if (cmds)
		dma_free_coherent(ring->ndev->drm.dev,
				  ring->entries * sizeof(*cmds), cmds, cmds_dma);
}

/**
 * npu_rings_free_all - free every ring's commands as the card goes away
 * @ndev: the card, no longer mastering the bus
 *
 * The card can no longer read them, and a stream that outlives the unbind
 * (its file is still open) never pushes again: coherent memory must not
 * outlive the device it was allocated for.
 */
void npu_rings_free_all(struct npu_device *ndev)
{
	u32 i;

	for (i = 0; i < ndev->id.num_rings; i++)
		npu_ring_free_cmds(&ndev->rings[i]);
}

/* Resets the ring with its memory in place, then enables it. */
static int npu_ring_go(struct npu_ring *ring, u32 priority,
		       const struct npu_ring_direct *direct)
{
	int ret;

	ret = npu_ring_reset_hw(ring);
	if (ret)
		goto err_free;
	/* Sequence numbers start again with each stream. */
	WRITE_ONCE(*ring->done, 0);
	/* The card writes the shadow only while the ring is enabled. */
	memset(ring->shadow, 0, sizeof(*ring->shadow));
	WRITE_ONCE(ring->pushes, 0);
	WRITE_ONCE(ring->doorbells, 0);
	ret = npu_ring_enable(ring, priority, direct);
	if (ret)
		goto err_reset;
	return 0;

err_reset:
	/* A ring the card may still read keeps its memory, out of use. */
	if (npu_ring_reset_hw(ring))
		return ret;
err_free:
	npu_ring_free_cmds(ring);
	return ret;
}

/**
 * npu_ring_start - give a ring memory and enable it on the card
 * @ring: a stopped ring
 * @entries: ring size in commands, a power of two the card supports
 * @priority: 0 (served first when copy engines are contended) .. 7
 *
 * Return: 0, -ENOMEM, or -ETIMEDOUT/-EIO when the card does not accept it.
 */
int npu_ring_start(struct npu_ring *ring, u32 entries, u32 priority)
{
	struct device *dev = ring->ndev->drm.dev;
	struct npu_cmd *cmds;
	dma_addr_t cmds_dma;

	if (WARN_ON(ring->cmds))
		return -EBUSY;

	cmds = dma_alloc_coherent(dev, entries * sizeof(*cmds), &cmds_dma,
				  GFP_KERNEL);
	if (!cmds)
		return -ENOMEM;
	ring->entries = entries;
	npu_ring_set_cmds(ring, cmds, cmds_dma, NULL);
	return npu_ring_go(ring, priority, NULL);
}

/**
 * npu_ring_start_direct - enable a ring that userspace writes
 * @ring: a stopped ring
 * @entries: ring size in commands
 * @priority: as npu_ring_start()
 * @direct: the ring's memory and tables; the ring takes over the
 *	reference to @direct->area, and drops it even on failure
 *
 * Return: as npu_ring_start().
 */
int npu_ring_start_direct(struct npu_ring *ring, u32 entries, u32 priority,
			  const struct npu_ring_direct *direct)
{
	if (WARN_ON(ring->cmds)) {
		npu_direct_area_put(direct->area);
		return -EBUSY;
	}
	ring->entries = entries;
	npu_ring_set_cmds(ring, direct->cmds, direct->cmds_dma, direct->area);
	return npu_ring_go(ring, priority, direct);
}

/**
 * npu_ring_stop - stop a ring and release its memory
 * @ring: a started ring
 *
 * The ring's memory is released only once the card confirms the reset, or
 * once a dead card lost bus mastering; a card that does not answer keeps
 * it, since it might still read it.
 *
 * Return: 0, or -ETIMEDOUT when the card did not confirm.
 */
int npu_ring_stop(struct npu_ring *ring)
{
	int ret = npu_rings_stopped(ring->ndev) ? 0 : npu_ring_reset(ring);

	if (ret) {
		drm_err(&ring->ndev->drm, "ring %u did not stop, keeping it out of use\n",
			ring->index);
		return ret;
	}
	npu_ring_free_cmds(ring);
	return 0;
}

/* What a stopped ring's last stream left it, released. */
static void npu_ring_release_kept(struct npu_ring *ring)
{
	struct npu_job *job, *next;

	list_for_each_entry_safe(job, next, &ring->kept_jobs, link) {
		list_del(&job->link);
		npu_job_free(ring->ndev, job);
	}
	if (ring->kept_fence)
		drm_gem_object_put(ring->kept_fence);
	ring->kept_fence = NULL;
}

/* No stream owns the ring, yet it has memory: a stop failed. */
static bool npu_ring_left_over(struct npu_ring *ring)
{
	bool left;

	spin_lock_irq(&ring->ndev->rings_lock);
	left = !ring->owned && ring->cmds;
	spin_unlock_irq(&ring->ndev->rings_lock);
	return left;
}

/**
 * npu_rings_reclaim - free what rings kept after a failed stop held
 * @ndev: the card, just reset as a whole
 */
void npu_rings_reclaim(struct npu_device *ndev)
{
	u32 i;

	for (i = 0; i < ndev->id.num_rings; i++) {
		struct npu_ring *ring = &ndev->rings[i];

		if (!npu_ring_left_over(ring))
			continue;
		npu_ring_release_kept(ring);
		npu_ring_free_cmds(ring);
		spin_lock_irq(&ndev->rings_lock);
		if (ring->kept)
			WRITE_ONCE(ndev->rings_used, ndev->rings_used - 1);
		ring->kept = false;
		spin_unlock_irq(&ndev->rings_lock);
	}
}

/**
 * npu_ring_push - append commands to a ring, ringing its doorbell if need be
 * @ring: a started ring
 * @cmds: commands
 * @count: number of @cmds; the caller made sure that many entries are free
 *
 * The card reads the tail from the ring's shadow while it says it fetches,
 * so only a card that has gone to sleep costs a doorbell.
 */
void npu_ring_push(struct npu_ring *ring, const struct npu_cmd *cmds,
		   unsigned int count)
{
	bool ring_bell;
	unsigned int i;

	for (i = 0; i < count; i++)
		ring->cmds[(ring->tail + i) & (ring->entries - 1)] = cmds[i];
	WRITE_ONCE(ring->tail, ring->tail + count);
	/* The commands before the tail: pairs with the card's acquire of it. */
	dma_wmb();
	WRITE_ONCE(ring->shadow->tail, cpu_to_le32(ring->tail));
	/*
	 * Store the tail, then load fetching: pairs with the card's barrier
	 * between clearing fetching and its last look at the tail, so either
	 * it sees this tail or we see it asleep (docs/hardware.md).
	 */
	mb();
	ring_bell = !READ_ONCE(ring->shadow->fetching);
	if (ring_bell)
		npu_ring_doorbell(ring->ndev, ring->vector);
	WRITE_ONCE(ring->pushes, ring->pushes + 1);
	WRITE_ONCE(ring->doorbells, ring->doorbells + ring_bell);
}

/**
 * npu_ring_irq - handle an interrupt of a ring vector
 * @ndev: the card
 * @vector: the vector that fired
 */
void npu_ring_irq(struct npu_device *ndev, u32 vector)
{
	u32 ring_vectors = ndev->num_irqs - 1;
	u32 i;

	spin_lock(&ndev->rings_lock);
	for (i = vector - 1; i < ndev->id.num_rings; i += ring_vectors) {
		struct npu_ring *ring = &ndev->rings[i];

		if (ring->stream)
			npu_stream_irq(ring->stream);
		else
			wake_up_all(&ring->wq);
	}
	spin_unlock(&ndev->rings_lock);
}
