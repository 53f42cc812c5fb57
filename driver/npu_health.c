// SPDX-License-Identifier: GPL-2.0-only
/*
 * The card's health: a level (OK, Warning, Alarm, Critical, the words of
 * the vendor's npu-smi) with the reasons for it, and the utilization of
 * the copy and compute engines, from the card's telemetry registers
 * (NPU_TEL_*), which a delayed work of its own reads every
 * NPU_HEALTH_PERIOD_MS.  A program waits for a change with poll() on
 * npu/health.  Rules and files: docs/driver.md, "Health", and
 * docs/ABI/sysfs-driver-npu.
 */

#include <linux/device.h>
#include <linux/sysfs.h>
#include <linux/workqueue.h>

#include <drm/drm_drv.h>
#include <drm/drm_managed.h>

#include "npu_drv.h"

#define NPU_HEALTH_PERIOD_MS		100
/* utilization is over the last second: that many periods, and one more sample */
#define NPU_HEALTH_SAMPLES		(MSEC_PER_SEC / NPU_HEALTH_PERIOD_MS + 1)
/* a corrected memory error is a warning for this long */
#define NPU_HEALTH_ECC_WARN_S		60

enum npu_health_reason {
	NPU_HEALTH_ECC_CORRECTED,	/* Warning */
	NPU_HEALTH_OVER_TEMP,		/* Alarm */
	NPU_HEALTH_OVER_TEMP_CRIT,	/* Critical ... */
	NPU_HEALTH_ECC_UNCORRECTED,
	NPU_HEALTH_HEARTBEAT_LOST,
	NPU_HEALTH_NUM_REASONS
};

static const char * const npu_health_reason_names[] = {
	[NPU_HEALTH_ECC_CORRECTED] = "ecc_corrected",
	[NPU_HEALTH_OVER_TEMP] = "over_temp",
	[NPU_HEALTH_OVER_TEMP_CRIT] = "over_temp_crit",
	[NPU_HEALTH_ECC_UNCORRECTED] = "ecc_uncorrected",
	[NPU_HEALTH_HEARTBEAT_LOST] = "heartbeat_lost",
};

enum npu_health_level {
	NPU_HEALTH_LEVEL_OK,
	NPU_HEALTH_LEVEL_WARNING,
	NPU_HEALTH_LEVEL_ALARM,
	NPU_HEALTH_LEVEL_CRITICAL,
};

static const char * const npu_health_level_names[] = {
	[NPU_HEALTH_LEVEL_OK] = "OK",
	[NPU_HEALTH_LEVEL_WARNING] = "Warning",
	[NPU_HEALTH_LEVEL_ALARM] = "Alarm",
	[NPU_HEALTH_LEVEL_CRITICAL] = "Critical",
};

static const enum npu_health_level npu_health_reason_level[] = {
	[NPU_HEALTH_ECC_CORRECTED] = NPU_HEALTH_LEVEL_WARNING,
	[NPU_HEALTH_OVER_TEMP] = NPU_HEALTH_LEVEL_ALARM,
	[NPU_HEALTH_OVER_TEMP_CRIT] = NPU_HEALTH_LEVEL_CRITICAL,
	[NPU_HEALTH_ECC_UNCORRECTED] = NPU_HEALTH_LEVEL_CRITICAL,
	[NPU_HEALTH_HEARTBEAT_LOST] = NPU_HEALTH_LEVEL_CRITICAL,
};

/* What the card's busy counters said at one card time. */
struct npu_busy_sample {
	u64 at_ns;
	u64 copy_ns;
	u64 compute_ns;
};

/**
 * struct npu_health - the health work's state
 * @ndev: the card
 * @work: reads the telemetry every NPU_HEALTH_PERIOD_MS
 * @samples: the last NPU_HEALTH_SAMPLES busy samples, a ring
 * @next: where the next sample goes
 * @count: samples held
 * @util_copy: percent of the copy engines' time busy over the last second
 * @util_compute: the same for the compute engines
 * @reasons: bit n set: enum npu_health_reason n holds
 * @ecc_corrected: the card's count when last read
 * @ecc_corrected_at: jiffies when it last grew
 * @ecc_uncorrected_base: the card's uncorrected count at its last reset
 * @rebase: set by npu_health_card_reset(): take a new base
 *
 * The work alone writes the fields; sysfs reads them with READ_ONCE().
 */
struct npu_health {
	struct npu_device *ndev;
	struct delayed_work work;
	struct npu_busy_sample samples[NPU_HEALTH_SAMPLES];
	unsigned int next;
	unsigned int count;
	u32 util_copy;
	u32 util_compute;
	u32 reasons;
	u64 ecc_corrected;
	unsigned long ecc_corrected_at;
	u64 ecc_uncorrected_base;
	atomic_t rebase;
};

/* A counter the card may be writing: both halves from one value. */
static u64 npu_health_rd64(struct npu_device *ndev, u32 reg)
{
	u32 hi, lo;

	do {
		hi = npu_rd32(ndev, reg + 4);
		lo = npu_rd32(ndev, reg);
	} while (npu_rd32(ndev, reg + 4) != hi);
	return (u64)hi << 32 | lo;
}

static u32 npu_health_percent(u64 busy_ns, u64 window_ns, u32 engines)
{
	if (!window_ns || !engines || (s64)busy_ns <= 0)
		return 0;
	return min_t(u64, 100, div64_u64(busy_ns * 100, window_ns * engines));
}

/* Adds a sample; utilization is from the oldest sample held to it. */
static void npu_health_sample(struct npu_health *h)
{
	struct npu_device *ndev = h->ndev;
	struct npu_busy_sample *now = &h->samples[h->next], *old;
	u64 window;

	now->at_ns = npu_health_rd64(ndev, NPU_TEL_SAMPLE_NS);
	now->copy_ns = npu_health_rd64(ndev, NPU_TEL_COPY_BUSY_NS);
	now->compute_ns = npu_health_rd64(ndev, NPU_TEL_COMPUTE_BUSY_NS);
	if (h->count < NPU_HEALTH_SAMPLES)
		h->count++;
	h->next = (h->next + 1) % NPU_HEALTH_SAMPLES;
	old = &h->samples[(h->next + NPU_HEALTH_SAMPLES - h->count) %
			  NPU_HEALTH_SAMPLES];

	window = now->at_ns - old->at_ns;
	if ((s64)window < 0)
		window = 0;
	WRITE_ONCE(h->util_copy,
		   npu_health_percent(now->copy_ns - old->copy_ns, window,
				      ndev->id.num_copy_engines));
	WRITE_ONCE(h->util_compute,
		   npu_health_percent(now->compute_ns - old->compute_ns, window,
				      ndev->id.num_compute_engines));
}

static s32 npu_health_temp(struct npu_device *ndev, u32 reg)
{
	return (s32)npu_rd32(ndev, reg);
}

static u32 npu_health_ecc_reasons(struct npu_health *h)
{
	struct npu_device *ndev = h->ndev;
	u64 corrected = npu_health_rd64(ndev, NPU_TEL_ECC_CORRECTED);
	u64 uncorrected = npu_health_rd64(ndev, NPU_TEL_ECC_UNCORRECTED);
	u32 reasons = 0;

	if (atomic_xchg(&h->rebase, 0))
		h->ecc_uncorrected_base = uncorrected;
	if (corrected != h->ecc_corrected) {
		h->ecc_corrected = corrected;
		h->ecc_corrected_at = jiffies;
	}
	if (h->ecc_corrected_at &&
	    time_before(jiffies, h->ecc_corrected_at + NPU_HEALTH_ECC_WARN_S * HZ))
		reasons |= BIT(NPU_HEALTH_ECC_CORRECTED);
	else
		h->ecc_corrected_at = 0;
	if (uncorrected != h->ecc_uncorrected_base)
		reasons |= BIT(NPU_HEALTH_ECC_UNCORRECTED);
	return reasons;
}

static u32 npu_health_reasons(struct npu_health *h)
{
	struct npu_device *ndev = h->ndev;
	s32 temp = npu_health_temp(ndev, NPU_TEL_TEMP);
	u32 reasons = npu_health_ecc_reasons(h);

	if (temp >= npu_health_temp(ndev, NPU_TEL_TEMP_CRIT))
		reasons |= BIT(NPU_HEALTH_OVER_TEMP_CRIT);
	else if (temp >= npu_health_temp(ndev, NPU_TEL_TEMP_WARN))
		reasons |= BIT(NPU_HEALTH_OVER_TEMP);
	if (READ_ONCE(ndev->dead))
		reasons |= BIT(NPU_HEALTH_HEARTBEAT_LOST);
	return reasons;
}

static enum npu_health_level npu_health_level_of(u32 reasons)
{
	enum npu_health_level level = NPU_HEALTH_LEVEL_OK;
	unsigned int r;

	for (r = 0; r < NPU_HEALTH_NUM_REASONS; r++)
		if (reasons & BIT(r))
			level = max(level, npu_health_reason_level[r]);
	return level;
}

static void npu_health_set(struct npu_health *h, u32 reasons)
{
	struct kobject *kobj = &npu_pdev(h->ndev)->dev.kobj;
	u32 was = h->reasons;

	if (reasons == was)
		return;
	WRITE_ONCE(h->reasons, reasons);
	if (npu_health_level_of(reasons) != npu_health_level_of(was))
		drm_warn(&h->ndev->drm, "health %s (was %s)\n",
			 npu_health_level_names[npu_health_level_of(reasons)],
			 npu_health_level_names[npu_health_level_of(was)]);
	sysfs_notify(kobj, "npu", "health");
	sysfs_notify(kobj, "npu", "health_reasons");
}

static void npu_health_work(struct work_struct *work)
{
	struct npu_health *h = container_of(to_delayed_work(work),
					    struct npu_health, work);
	u32 reasons;
	int idx;

	if (!drm_dev_enter(&h->ndev->drm, &idx))
		return;
	npu_health_sample(h);
	reasons = npu_health_reasons(h);
	drm_dev_exit(idx);

	npu_health_set(h, reasons);
	schedule_delayed_work(&h->work, msecs_to_jiffies(NPU_HEALTH_PERIOD_MS));
}

static void npu_health_stop(void *arg)
{
	struct npu_health *h = arg;

	cancel_delayed_work_sync(&h->work);
}

/**
 * npu_health_init - start watching the card's health
 * @ndev: the card, reset and with its heartbeat watched
 *
 * Uncorrected memory errors the card counted before are not held against
 * it: a reset, which probing did, clears them.  The work stops when the
 * device goes (devm).
 *
 * Return: 0 or a negative errno.
 */
int npu_health_init(struct npu_device *ndev)
{
	struct device *dev = &npu_pdev(ndev)->dev;
	struct npu_health *h;
	int ret;

	h = drmm_kzalloc(&ndev->drm, sizeof(*h), GFP_KERNEL);
	if (!h)
		return -ENOMEM;
	h->ndev = ndev;
	h->ecc_corrected = npu_health_rd64(ndev, NPU_TEL_ECC_CORRECTED);
	h->ecc_uncorrected_base = npu_health_rd64(ndev, NPU_TEL_ECC_UNCORRECTED);
	INIT_DELAYED_WORK(&h->work, npu_health_work);
	ndev->health = h;

	ret = devm_add_action_or_reset(dev, npu_health_stop, h);
	if (ret)
		return ret;
	npu_health_sample(h);
	schedule_delayed_work(&h->work, msecs_to_jiffies(NPU_HEALTH_PERIOD_MS));
	return npu_hwmon_init(ndev);
}

/**
 * npu_health_card_reset - the card was reset: forgive its old errors
 * @ndev: the card
 *
 * Uncorrected memory errors counted before the reset no longer make the
 * card Critical; the counters themselves go on (they count from power-on).
 */
void npu_health_card_reset(struct npu_device *ndev)
{
	struct npu_health *h = ndev->health;

	if (!h)
		return;
	atomic_set(&h->rebase, 1);
	mod_delayed_work(system_wq, &h->work, 0);
}

static struct npu_health *dev_to_health(struct device *dev)
{
	struct npu_device *ndev = dev_get_drvdata(dev);

	return ndev->health;
}

static ssize_t health_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	u32 reasons = READ_ONCE(dev_to_health(dev)->reasons);

	return sysfs_emit(buf, "%s\n",
			  npu_health_level_names[npu_health_level_of(reasons)]);
}

static ssize_t health_reasons_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	u32 reasons = READ_ONCE(dev_to_health(dev)->reasons);
	unsigned int r;
	int len = 0;

	if (!reasons)
		return sysfs_emit(buf, "none\n");
	for (r = 0; r < NPU_HEALTH_NUM_REASONS; r++)
		if (reasons & BIT(r))
			len += sysfs_emit_at(buf, len, "%s%s", len ? " " : "",
					     npu_health_reason_names[r]);
	return len + sysfs_emit_at(buf, len, "\n");
}

static ssize_t util_copy_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(dev_to_health(dev)->util_copy));
}

static ssize_t util_compute_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(dev_to_health(dev)->util_compute));
}

static ssize_t npu_health_counter_show(struct device *dev, char *buf, u32 reg)
{
	struct npu_device *ndev = dev_get_drvdata(dev);
	u64 count;
	int idx;

	if (!drm_dev_enter(&ndev->drm, &idx))
		return -ENODEV;
	count = npu_health_rd64(ndev, reg);
	drm_dev_exit(idx);
	return sysfs_emit(buf, "%llu\n", count);
}

static ssize_t ecc_corrected_show(struct device *dev,
				  struct device_attribute *attr, char *buf)
{
	return npu_health_counter_show(dev, buf, NPU_TEL_ECC_CORRECTED);
}

static ssize_t ecc_uncorrected_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	return npu_health_counter_show(dev, buf, NPU_TEL_ECC_UNCORRECTED);
}

struct device_attribute npu_attr_health = __ATTR_RO(health);
struct device_attribute npu_attr_health_reasons = __ATTR_RO(health_reasons);
struct device_attribute npu_attr_util_copy = __ATTR_RO(util_copy);
struct device_attribute npu_attr_util_compute = __ATTR_RO(util_compute);
struct device_attribute npu_attr_ecc_corrected = __ATTR_RO(ecc_corrected);
struct device_attribute npu_attr_ecc_uncorrected = __ATTR_RO(ecc_uncorrected);
