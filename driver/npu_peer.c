// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device buffers through PRIME. A device buffer exports as a dma-buf of
 * our own, which no other driver can attach: its memory is on the card,
 * behind no struct page, and reached by other cards through their peer
 * windows only. Imported into a context of the same card the dma-buf
 * gives the buffer itself, as an import by key does (npu_share.c);
 * imported into another card's context it gives a peer buffer, which
 * names the exporter's card and the buffer's place in its memory and
 * which only DRM_IOCTL_NPU_VM_BIND uses.
 */

#include <linux/dma-buf.h>

#include <drm/drm_prime.h>

#include "npu_drv.h"
#include "npu_vm.h"

/**
 * struct npu_peer_bo - another card's device buffer, imported
 * @bo: the buffer of the importing context; its GEM object's size is the
 *	exported buffer's
 * @dmabuf: the exporter's dma-buf, referenced: it holds the buffer, and the
 *	buffer's card memory, for as long as this object lives
 * @serial: the exporter card's serial, which a peer window opens by
 * @card_offset: where the buffer starts in the exporter card's memory
 * @window: the peer window its mappings go through, while @mapped
 * @mapped: it holds @window open; under the importer card's
 *	npu_peer_windows.lock
 * @imported: its owner is set: the context its first handle was made for
 *	(the DRM core makes that handle under its locks, one at a time)
 */
struct npu_peer_bo {
	struct npu_bo bo;
	struct dma_buf *dmabuf;
	u64 serial;
	u64 card_offset;
	u32 window;
	bool mapped;
	bool imported;
};

static struct npu_peer_bo *to_npu_peer_bo(struct drm_gem_object *obj)
{
	return container_of(obj, struct npu_peer_bo, bo.base.base);
}

/* Card memory has no struct page: nothing outside this driver can use it. */
static int npu_dmabuf_attach(struct dma_buf *dmabuf, struct dma_buf_attachment *attach)
{
	return -EOPNOTSUPP;
}

static struct sg_table *npu_dmabuf_map(struct dma_buf_attachment *attach,
				       enum dma_data_direction dir)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static void npu_dmabuf_unmap(struct dma_buf_attachment *attach, struct sg_table *sgt,
			     enum dma_data_direction dir)
{
}

static const struct dma_buf_ops npu_dmabuf_ops = {
	.attach = npu_dmabuf_attach,
	.map_dma_buf = npu_dmabuf_map,
	.unmap_dma_buf = npu_dmabuf_unmap,
	.release = drm_gem_dmabuf_release,
};

/* drm_gem_object_funcs.export of device buffers. */
struct dma_buf *npu_prime_export(struct drm_gem_object *obj, int flags)
{
	DEFINE_DMA_BUF_EXPORT_INFO(exp_info);

	exp_info.ops = &npu_dmabuf_ops;
	exp_info.size = obj->size;
	exp_info.flags = flags;
	exp_info.priv = obj;
	exp_info.resv = obj->resv;
	return drm_gem_dmabuf_export(obj->dev, &exp_info);
}

/**
 * npu_prime_dmabuf_bo - the device buffer behind a dma-buf of this driver
 * @dmabuf: any dma-buf
 *
 * Return: the buffer, not referenced (the dma-buf holds it), or NULL for a
 * dma-buf that another driver exported.
 */
struct drm_gem_object *npu_prime_dmabuf_bo(struct dma_buf *dmabuf)
{
	return dmabuf->ops == &npu_dmabuf_ops ? dmabuf->priv : NULL;
}

static void npu_peer_bo_unmapped(struct drm_gem_object *obj);

static void npu_peer_bo_free(struct drm_gem_object *obj)
{
	struct npu_peer_bo *peer = to_npu_peer_bo(obj);

	npu_peer_bo_unmapped(obj);
	drm_gem_object_release(obj);
	dma_buf_put(peer->dmabuf);
	kfree(peer);
}

/* Not again as a dma-buf: the exporter's own is there for that. */
static struct dma_buf *npu_peer_bo_export(struct drm_gem_object *obj, int flags)
{
	return ERR_PTR(-EOPNOTSUPP);
}

/* The context that imported it, which its first handle is made for. */
static int npu_peer_bo_open(struct drm_gem_object *obj, struct drm_file *file)
{
	struct npu_peer_bo *peer = to_npu_peer_bo(obj);
	struct npu_ctx *ctx = file->driver_priv;

	if (!peer->imported) {
		peer->bo.owner = ctx->id;
		peer->imported = true;
	}
	return 0;
}

static const struct drm_gem_object_funcs npu_peer_bo_funcs = {
	.free = npu_peer_bo_free,
	.open = npu_peer_bo_open,
	.export = npu_peer_bo_export,
};

bool npu_bo_is_peer(struct drm_gem_object *obj)
{
	return obj->funcs == &npu_peer_bo_funcs;
}

/**
 * npu_peer_bo_place - where another card's buffer lies
 * @obj: a peer buffer
 * @serial: out: the exporter card's serial
 * @card_offset: out: the buffer's start in that card's memory
 */
void npu_peer_bo_place(struct drm_gem_object *obj, u64 *serial, u64 *card_offset)
{
	*serial = to_npu_peer_bo(obj)->serial;
	*card_offset = to_npu_peer_bo(obj)->card_offset;
}

static int npu_peer_bo_map_get(struct drm_gem_object *obj);
static u64 npu_peer_bo_pte(struct drm_gem_object *obj, u64 offset);

/*
 * The peer window opens on the buffer's first mapping and closes when the
 * buffer is freed, which no mapping lets happen before the card has
 * dropped its entries.
 */
static int npu_peer_bo_runs(struct drm_gem_object *obj, u64 offset, u64 size,
			    npu_vm_run_fn fn, void *priv)
{
	int ret = npu_peer_bo_map_get(obj);

	return ret ?: fn(priv, npu_peer_bo_pte(obj, offset), size);
}

static int npu_peer_bo_may_bind(struct npu_ctx *ctx, struct drm_gem_object *obj,
				bool write)
{
	return to_npu_peer_bo(obj)->bo.owner == ctx->id ? 0 : -ENOENT;
}

static const struct npu_vm_backing npu_peer_backing = {
	.runs = npu_peer_bo_runs,
	.may_bind = npu_peer_bo_may_bind,
};

static struct drm_gem_object *npu_peer_bo_create(struct drm_device *dev,
						 struct dma_buf *dmabuf,
						 struct drm_gem_object *exported)
{
	struct npu_peer_bo *peer = kzalloc(sizeof(*peer), GFP_KERNEL);

	if (!peer)
		return ERR_PTR(-ENOMEM);
	peer->bo.base.base.funcs = &npu_peer_bo_funcs;
	peer->bo.vm_backing = &npu_peer_backing;
	drm_gem_private_object_init(dev, &peer->bo.base.base, exported->size);
	get_dma_buf(dmabuf);
	peer->dmabuf = dmabuf;
	peer->serial = to_npu_device(exported->dev)->id.serial;
	peer->card_offset = npu_device_bo_offset(exported);
	return &peer->bo.base.base;
}

/* drm_driver.gem_prime_import */
struct drm_gem_object *npu_gem_prime_import(struct drm_device *dev, struct dma_buf *dmabuf)
{
	struct drm_gem_object *obj = npu_prime_dmabuf_bo(dmabuf);

	if (!obj)
		return ERR_PTR(-EOPNOTSUPP);
	if (obj->dev != dev)
		return npu_peer_bo_create(dev, dmabuf, obj);
	drm_gem_object_get(obj);
	return obj;
}

/*
 * Peer windows: the card reaches another card's memory through one of its
 * windows, which the driver opens by that card's serial on the first
 * mapping of one of its buffers and closes with the last. A card reset
 * closes every window; the driver opens again those still mapped, so that
 * a context created after the reset finds its peers as before the reset
 * (contexts the reset lost use nothing any more).
 */

/**
 * struct npu_peer_windows - a card's peer windows
 * @lock: protects the rest, each peer buffer's @window and @maps, and the
 *	card's MMU command registers while a window command runs
 * @win: per window, the serial of the card it opens on and the peer
 *	buffers mapped through it (0: closed)
 */
struct npu_peer_windows {
	struct mutex lock;	/* windows, peer buffers' @window and @mapped */
	struct {
		u64 serial;
		unsigned int maps;
	} win[NPU_MMU_MAX_PEERS];
};

int npu_peer_init(struct npu_device *ndev)
{
	struct npu_peer_windows *peers;

	peers = drmm_kzalloc(&ndev->drm, sizeof(*peers), GFP_KERNEL);
	if (!peers)
		return -ENOMEM;
	ndev->peers = peers;
	return drmm_mutex_init(&ndev->drm, &peers->lock);
}

static int npu_peer_open(struct npu_device *ndev, u32 window, u64 serial)
{
	int idx;

	if (!drm_dev_enter(&ndev->drm, &idx))
		return -ENODEV;
	lo_hi_writeq(serial, ndev->regs + NPU_MMU_PEER_SERIAL(window));
	drm_dev_exit(idx);
	return npu_mmu_cmd(ndev, NPU_MMU_OPEN_PEER, window, 0, 0);
}

/* The window open on @serial, or a free one opened on it; its index. */
static int npu_peer_window_get(struct npu_device *ndev, u64 serial)
{
	struct npu_peer_windows *peers = ndev->peers;
	int i, free = -1, ret;

	lockdep_assert_held(&peers->lock);
	for (i = 0; i < ndev->vm.num_peers; i++) {
		if (peers->win[i].maps && peers->win[i].serial == serial) {
			peers->win[i].maps++;
			return i;
		}
		if (!peers->win[i].maps && free < 0)
			free = i;
	}
	if (free < 0)
		return -EBUSY;
	ret = npu_peer_open(ndev, free, serial);
	if (ret) {
		drm_warn(&ndev->drm, "peer window %d did not open on card %016llx\n",
			 free, serial);
		return ret;
	}
	peers->win[free].serial = serial;
	peers->win[free].maps = 1;
	return free;
}

static void npu_peer_window_put(struct npu_device *ndev, u32 window)
{
	struct npu_peer_windows *peers = ndev->peers;

	lockdep_assert_held(&peers->lock);
	if (!--peers->win[window].maps)
		npu_mmu_cmd(ndev, NPU_MMU_CLOSE_PEER, window, 0, 0);
}

/* Opens the window on the buffer's card for its first mapping. */
static int npu_peer_bo_map_get(struct drm_gem_object *obj)
{
	struct npu_device *ndev = to_npu_device(obj->dev);
	struct npu_peer_bo *peer = to_npu_peer_bo(obj);
	int ret = 0;

	mutex_lock(&ndev->peers->lock);
	if (!peer->mapped) {
		ret = npu_peer_window_get(ndev, peer->serial);
		if (ret >= 0) {
			peer->window = ret;
			peer->mapped = true;
			ret = 0;
		}
	}
	mutex_unlock(&ndev->peers->lock);
	return ret;
}

/* The buffer is going, unmapped everywhere: its window may close. */
static void npu_peer_bo_unmapped(struct drm_gem_object *obj)
{
	struct npu_device *ndev = to_npu_device(obj->dev);
	struct npu_peer_bo *peer = to_npu_peer_bo(obj);

	mutex_lock(&ndev->peers->lock);
	if (peer->mapped)
		npu_peer_window_put(ndev, peer->window);
	peer->mapped = false;
	mutex_unlock(&ndev->peers->lock);
}

/**
 * npu_peer_bo_pte - what a leaf entry mapping a page of a peer buffer says
 * @obj: the peer buffer, mapped (npu_peer_bo_map_get())
 * @offset: bytes into it, page aligned
 *
 * Return: the entry's target, window and address; the caller adds VALID,
 * LEAF and WRITE.
 */
static u64 npu_peer_bo_pte(struct drm_gem_object *obj, u64 offset)
{
	struct npu_peer_bo *peer = to_npu_peer_bo(obj);

	return NPU_PTE_TARGET(NPU_PTE_PEER_MEM) | NPU_PTE_PEER(peer->window) |
	       ((peer->card_offset + offset) & NPU_PTE_ADDR_MASK);
}

/* After a card reset, which closed them all: the windows still mapped. */
void npu_peer_reset(struct npu_device *ndev)
{
	struct npu_peer_windows *peers = ndev->peers;
	int i;

	mutex_lock(&peers->lock);
	for (i = 0; i < ndev->vm.num_peers; i++)
		if (peers->win[i].maps && npu_peer_open(ndev, i, peers->win[i].serial))
			drm_warn(&ndev->drm, "peer window %d did not open again on card %016llx\n",
				 i, peers->win[i].serial);
	mutex_unlock(&peers->lock);
}

static ssize_t peer_windows_open_show(struct device *dev, struct device_attribute *attr,
				      char *buf)
{
	struct npu_device *ndev = pci_get_drvdata(to_pci_dev(dev));
	u32 open;
	int idx;

	if (!drm_dev_enter(&ndev->drm, &idx))
		return -ENODEV;
	open = npu_rd32(ndev, NPU_MMU_PEER_OPEN);
	drm_dev_exit(idx);
	return sysfs_emit(buf, "%u\n", hweight32(open));
}
DEVICE_ATTR_RO(peer_windows_open);
