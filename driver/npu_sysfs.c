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

static ssize_t devmem_used_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", READ_ONCE(dev_to_npu(dev)->devmem_used));
}
static DEVICE_ATTR_RO(devmem_used);

static ssize_t rings_used_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(dev_to_npu(dev)->rings_used));
}
static DEVICE_ATTR_RO(rings_used);

static ssize_t pinned_pages_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lld\n", atomic64_read(&dev_to_npu(dev)->pinned_pages));
}
static DEVICE_ATTR_RO(pinned_pages);

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
	&dev_attr_devmem_used.attr,
	&dev_attr_rings_used.attr,
	&dev_attr_pinned_pages.attr,
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

/*
 * streams/: one read-only file per live stream, named after its ring (a
 * ring has one stream at most), with one "key: value" line per property.
 */
static ssize_t npu_stream_show(struct kobject *kobj, struct kobj_attribute *attr,
			       char *buf)
{
	struct npu_stream *stream = container_of(attr, struct npu_stream, sysfs_attr);
	u64 completed, submitted;

	npu_stream_update(stream);
	completed = READ_ONCE(stream->completed);
	submitted = READ_ONCE(stream->submitted);

	return sysfs_emit(buf,
			  "pid: %d\ncontext: %u\nid: %u\nring: %u\npriority: %u\n"
			  "submitted: %llu\ncompleted: %llu\npending: %llu\n"
			  "state: %s\nbytes: %lld\n",
			  stream->ctx->pid, stream->ctx->id, stream->id,
			  stream->ring->index, stream->priority, submitted, completed,
			  submitted - completed, npu_stream_state_name(stream),
			  atomic64_read(&stream->bytes));
}

void npu_sysfs_stream_add(struct npu_stream *stream)
{
	struct npu_device *ndev = stream->ctx->ndev;

	snprintf(stream->sysfs_name, sizeof(stream->sysfs_name), "%u",
		 stream->ring->index);
	sysfs_attr_init(&stream->sysfs_attr.attr);
	stream->sysfs_attr.attr.name = stream->sysfs_name;
	stream->sysfs_attr.attr.mode = 0444;
	stream->sysfs_attr.show = npu_stream_show;

	mutex_lock(&ndev->sysfs_lock);
	if (ndev->streams_kobj &&
	    !sysfs_create_file(ndev->streams_kobj, &stream->sysfs_attr.attr))
		stream->sysfs_added = true;
	mutex_unlock(&ndev->sysfs_lock);
}

void npu_sysfs_stream_remove(struct npu_stream *stream)
{
	struct npu_device *ndev = stream->ctx->ndev;

	mutex_lock(&ndev->sysfs_lock);
	/* Without streams_kobj the directory, entries included, is gone. */
	if (ndev->streams_kobj && stream->sysfs_added)
		sysfs_remove_file(ndev->streams_kobj, &stream->sysfs_attr.attr);
	stream->sysfs_added = false;
	mutex_unlock(&ndev->sysfs_lock);
}

int npu_sysfs_init(struct npu_device *ndev)
{
	ndev->streams_kobj = kobject_create_and_add("streams", &ndev->drm.dev->kobj);
	return ndev->streams_kobj ? 0 : -ENOMEM;
}

void npu_sysfs_fini(struct npu_device *ndev)
{
	mutex_lock(&ndev->sysfs_lock);
	kobject_put(ndev->streams_kobj);
	ndev->streams_kobj = NULL;
	mutex_unlock(&ndev->sysfs_lock);
}
