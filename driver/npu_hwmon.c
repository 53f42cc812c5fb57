// SPDX-License-Identifier: GPL-2.0-only
/*
 * The card's temperature, power and clock as a hwmon device named "npu":
 * temp1_input, temp1_max, temp1_crit, power1_input, power1_max, and
 * freq1_input with freq1_label, an extra group as amdgpu has it (hwmon's
 * channel types have no clock).  Documented in docs/ABI/sysfs-driver-npu.
 */

#include <linux/hwmon.h>

#include <drm/drm_drv.h>

#include "npu_drv.h"

static const u32 npu_hwmon_temp_regs[] = {
	[hwmon_temp_input] = NPU_TEL_TEMP,
	[hwmon_temp_max] = NPU_TEL_TEMP_WARN,
	[hwmon_temp_crit] = NPU_TEL_TEMP_CRIT,
};

static const u32 npu_hwmon_power_regs[] = {
	[hwmon_power_input] = NPU_TEL_POWER_MW,
	[hwmon_power_max] = NPU_TEL_POWER_MAX_MW,
};

static int npu_hwmon_read(struct device *dev, enum hwmon_sensor_types type,
			  u32 attr, int channel, long *val)
{
	struct npu_device *ndev = dev_get_drvdata(dev);
	int idx, ret = 0;

	if (!drm_dev_enter(&ndev->drm, &idx))
		return -ENODEV;
	if (type == hwmon_temp && attr < ARRAY_SIZE(npu_hwmon_temp_regs) &&
	    npu_hwmon_temp_regs[attr])
		*val = (s32)npu_rd32(ndev, npu_hwmon_temp_regs[attr]);
	else if (type == hwmon_power && attr < ARRAY_SIZE(npu_hwmon_power_regs) &&
		 npu_hwmon_power_regs[attr])
		/* milliwatts to hwmon's microwatts */
		*val = (long)npu_rd32(ndev, npu_hwmon_power_regs[attr]) * 1000;
	else
		ret = -EOPNOTSUPP;
	drm_dev_exit(idx);
	return ret;
}

static umode_t npu_hwmon_is_visible(const void *data,
				    enum hwmon_sensor_types type, u32 attr,
				    int channel)
{
	return 0444;
}

static const struct hwmon_channel_info * const npu_hwmon_info[] = {
	HWMON_CHANNEL_INFO(temp, HWMON_T_INPUT | HWMON_T_MAX | HWMON_T_CRIT),
	HWMON_CHANNEL_INFO(power, HWMON_P_INPUT | HWMON_P_MAX),
	NULL
};

static const struct hwmon_ops npu_hwmon_ops = {
	.is_visible = npu_hwmon_is_visible,
	.read = npu_hwmon_read,
};

static const struct hwmon_chip_info npu_hwmon_chip = {
	.ops = &npu_hwmon_ops,
	.info = npu_hwmon_info,
};

static ssize_t freq1_input_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	struct npu_device *ndev = dev_get_drvdata(dev);
	u64 khz;
	int idx;

	if (!drm_dev_enter(&ndev->drm, &idx))
		return -ENODEV;
	khz = npu_rd32(ndev, NPU_TEL_CLOCK_KHZ);
	drm_dev_exit(idx);
	return sysfs_emit(buf, "%llu\n", khz * 1000);
}
static DEVICE_ATTR_RO(freq1_input);

static ssize_t freq1_label_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "core\n");
}
static DEVICE_ATTR_RO(freq1_label);

static struct attribute *npu_hwmon_attrs[] = {
	&dev_attr_freq1_input.attr,
	&dev_attr_freq1_label.attr,
	NULL
};
ATTRIBUTE_GROUPS(npu_hwmon);

/**
 * npu_hwmon_init - register the card's hwmon device
 * @ndev: the card
 *
 * Return: 0 or a negative errno.
 */
int npu_hwmon_init(struct npu_device *ndev)
{
	struct device *hwmon;

	hwmon = devm_hwmon_device_register_with_info(&npu_pdev(ndev)->dev, "npu",
						     ndev, &npu_hwmon_chip,
						     npu_hwmon_groups);
	return PTR_ERR_OR_ZERO(hwmon);
}
