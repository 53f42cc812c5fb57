// SPDX-License-Identifier: GPL-2.0-only
/*
 * Exclusive mode: while a card's npu/exclusive is 1, the files open on it
 * all belong to one process. Documented in docs/ABI/sysfs-driver-npu.
 */

#include <linux/device.h>
#include <linux/kstrtox.h>
#include <linux/sysfs.h>

#include "npu_drv.h"

/* Whether a process other than @tgid holds a context on the card. */
static bool npu_held_by_other(struct npu_device *ndev, pid_t tgid)
{
	struct npu_ctx *ctx;

	lockdep_assert_held(&ndev->contexts_lock);
	list_for_each_entry(ctx, &ndev->contexts, link)
		if (ctx->pid != tgid)
			return true;
	return false;
}

/**
 * npu_exclusive_admit - may process @tgid add a context to the card
 * @ndev: the card
 * @tgid: the opening process
 *
 * Called under contexts_lock, so that the check and the context's joining
 * the list are one step.
 *
 * Return: 0, or -EBUSY when the card is exclusive and another process
 * holds it.
 */
int npu_exclusive_admit(struct npu_device *ndev, pid_t tgid)
{
	lockdep_assert_held(&ndev->contexts_lock);
	if (ndev->exclusive && npu_held_by_other(ndev, tgid))
		return -EBUSY;
	return 0;
}

static ssize_t exclusive_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	struct npu_device *ndev = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%d\n", READ_ONCE(ndev->exclusive));
}

/*
 * Setting it is refused while two processes share the card: it would hold
 * a promise already broken.
 */
static ssize_t exclusive_store(struct device *dev, struct device_attribute *attr,
			       const char *buf, size_t count)
{
	struct npu_device *ndev = dev_get_drvdata(dev);
	struct npu_ctx *first;
	unsigned int on;
	int ret;

	ret = kstrtouint(buf, 0, &on);
	if (ret)
		return ret;
	if (on > 1)
		return -EINVAL;

	mutex_lock(&ndev->contexts_lock);
	first = list_first_entry_or_null(&ndev->contexts, struct npu_ctx, link);
	if (on && first && npu_held_by_other(ndev, first->pid))
		ret = -EBUSY;
	else
		WRITE_ONCE(ndev->exclusive, on);
	mutex_unlock(&ndev->contexts_lock);
	return ret ?: count;
}
DEVICE_ATTR_RW(exclusive);
