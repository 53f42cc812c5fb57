// SPDX-License-Identifier: GPL-2.0-only
/*
 * Card attributes in sysfs, group "npu" of the PCI device.
 * Documented in docs/ABI/sysfs-driver-npu.
 */

#include <linux/device.h>
#include <linux/sysfs.h>

#include "npu_drv.h"

static struct npu_device *dev_to_npu(struct device *dev)
{
	return dev_get_drvdata(dev);
}

#define NPU_ID_ATTR(name, fmt)						\
static ssize_t name##_show(struct device *dev,				\
			   struct device_attribute *attr, char *buf)	\
{									\
	return sysfs_emit(buf, fmt "\n", dev_to_npu(dev)->id.name);	\
}									\
static DEVICE_ATTR_RO(name)

NPU_ID_ATTR(serial, "%016llx");
NPU_ID_ATTR(num_rings, "%u");
NPU_ID_ATTR(num_copy_engines, "%u");
NPU_ID_ATTR(num_vectors, "%u");
NPU_ID_ATTR(max_ring_entries, "%u");
NPU_ID_ATTR(devmem_size, "%llu");

static ssize_t version_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	u32 version = dev_to_npu(dev)->id.version;

	return sysfs_emit(buf, "%u.%u\n", version >> 16, version & 0xffff);
}
static DEVICE_ATTR_RO(version);

static ssize_t fw_version_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	u32 version = dev_to_npu(dev)->id.fw_version;

	return sysfs_emit(buf, "%u.%u\n", version >> 16, version & 0xffff);
}
static DEVICE_ATTR_RO(fw_version);

static ssize_t heartbeat_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	return sysfs_emit(buf, "%llu\n",
			  npu_rd64(dev_to_npu(dev), NPU_GLB_HEARTBEAT));
}
static DEVICE_ATTR_RO(heartbeat);

static ssize_t selftest_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%s\n", dev_to_npu(dev)->selftest_ok ? "pass" : "fail");
}
static DEVICE_ATTR_RO(selftest);

static ssize_t selftest_ns_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", dev_to_npu(dev)->selftest_ns);
}
static DEVICE_ATTR_RO(selftest_ns);

static struct attribute *npu_card_attrs[] = {
	&dev_attr_version.attr,
	&dev_attr_fw_version.attr,
	&dev_attr_serial.attr,
	&dev_attr_num_rings.attr,
	&dev_attr_num_copy_engines.attr,
	&dev_attr_num_vectors.attr,
	&dev_attr_max_ring_entries.attr,
	&dev_attr_devmem_size.attr,
	&dev_attr_heartbeat.attr,
	&dev_attr_selftest.attr,
	&dev_attr_selftest_ns.attr,
	NULL
};

static const struct attribute_group npu_card_group = {
	.name = "npu",
	.attrs = npu_card_attrs,
};

const struct attribute_group *npu_card_groups[] = {
	&npu_card_group,
	NULL
};
