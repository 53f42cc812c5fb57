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

#define NPU_ID_ATTR(name, fmt, field)					\
static ssize_t name##_show(struct device *dev,				\
			   struct device_attribute *attr, char *buf)	\
{									\
	return sysfs_emit(buf, fmt "\n", dev_to_npu(dev)->id.field);	\
}									\
static DEVICE_ATTR_RO(name)

NPU_ID_ATTR(serial, "%016llx", serial);
NPU_ID_ATTR(num_rings, "%u", num_rings);
NPU_ID_ATTR(num_copy_engines, "%u", num_copy_engines);
NPU_ID_ATTR(num_vectors, "%u", num_vectors);
NPU_ID_ATTR(max_ring_entries, "%u", max_ring_entries);
NPU_ID_ATTR(devmem_size, "%llu", devmem_size);
NPU_ID_ATTR(num_compute_engines, "%u", num_compute_engines);
NPU_ID_ATTR(operators, "%#llx", operators);
NPU_ID_ATTR(dtypes, "%#x", dtypes);

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

static ssize_t oplib_version_show(struct device *dev,
				  struct device_attribute *attr, char *buf)
{
	u32 version = dev_to_npu(dev)->id.oplib_version;

	return sysfs_emit(buf, "%u.%u\n", version >> 16, version & 0xffff);
}
static DEVICE_ATTR_RO(oplib_version);

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
	&dev_attr_peer_windows_open.attr,
	&dev_attr_heartbeat.attr,
	&npu_attr_health.attr,
	&npu_attr_health_reasons.attr,
	&npu_attr_util_copy.attr,
	&npu_attr_util_compute.attr,
	&npu_attr_ecc_corrected.attr,
	&npu_attr_ecc_uncorrected.attr,
	&dev_attr_selftest.attr,
	&dev_attr_selftest_ns.attr,
	&dev_attr_num_compute_engines.attr,
	&dev_attr_oplib_version.attr,
	&dev_attr_operators.attr,
	&dev_attr_dtypes.attr,
	&dev_attr_reset.attr,
	&dev_attr_reset_count.attr,
	&dev_attr_last_reset_reason.attr,
	&dev_attr_exclusive.attr,
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
 * streams/<ring>/: one directory per live stream, named after its ring (a
 * ring has one stream at most), one value per file. The directory is a
 * kobject of its own: removing it waits for readers, after which the
 * stream may go while the kobject lingers until its last reference.
 */
struct npu_stream_dir {
	struct kobject kobj;
	struct list_head link;
	struct npu_stream *stream;
};

static struct npu_stream *kobj_to_stream(struct kobject *kobj)
{
	return container_of(kobj, struct npu_stream_dir, kobj)->stream;
}

/* Counters are read after retiring what the card completed. */
static struct npu_stream *kobj_to_updated_stream(struct kobject *kobj)
{
	struct npu_stream *stream = kobj_to_stream(kobj);

	npu_stream_update(stream);
	return stream;
}

/*
 * A direct stream has no jobs to count by: the card's own count of what
 * its ring moved, chunk by chunk, while it runs.
 */
static u64 npu_stream_bytes(struct npu_stream *stream)
{
	u64 bytes = 0;
	int idx;

	if (!stream->direct)
		return atomic64_read(&stream->bytes);
	if (READ_ONCE(stream->state) == NPU_STREAM_ACTIVE &&
	    drm_dev_enter(&stream->ctx->ndev->drm, &idx)) {
		bytes = npu_ring_rd64(stream->ring, NPU_RING_BYTES_DONE);
		drm_dev_exit(idx);
	}
	return bytes;
}

#define NPU_STREAM_ATTR(name, fmt, value)				\
static ssize_t stream_##name##_show(struct kobject *kobj,		\
				    struct kobj_attribute *attr, char *buf) \
{									\
	struct npu_stream *stream = kobj_to_updated_stream(kobj);	\
									\
	return sysfs_emit(buf, fmt "\n", value);			\
}									\
static struct kobj_attribute stream_##name##_attr =			\
	__ATTR(name, 0444, stream_##name##_show, NULL)

NPU_STREAM_ATTR(pid, "%d", stream->ctx->pid);
NPU_STREAM_ATTR(context, "%llu", stream->ctx->id);
NPU_STREAM_ATTR(id, "%u", stream->id);
NPU_STREAM_ATTR(ring, "%u", stream->ring->index);
NPU_STREAM_ATTR(priority, "%u", stream->priority);
NPU_STREAM_ATTR(submitted, "%llu", READ_ONCE(stream->submitted));
NPU_STREAM_ATTR(completed, "%llu", READ_ONCE(stream->completed));
NPU_STREAM_ATTR(pending, "%llu",
		READ_ONCE(stream->submitted) - READ_ONCE(stream->completed));
NPU_STREAM_ATTR(state, "%s", npu_stream_state_name(stream));
NPU_STREAM_ATTR(bytes, "%llu", npu_stream_bytes(stream));
NPU_STREAM_ATTR(ops_done, "%llu", READ_ONCE(stream->ops_done));
NPU_STREAM_ATTR(compute_ns, "%llu", READ_ONCE(stream->compute_ns));

static struct attribute *npu_stream_attrs[] = {
	&stream_pid_attr.attr,
	&stream_context_attr.attr,
	&stream_id_attr.attr,
	&stream_ring_attr.attr,
	&stream_priority_attr.attr,
	&stream_submitted_attr.attr,
	&stream_completed_attr.attr,
	&stream_pending_attr.attr,
	&stream_state_attr.attr,
	&stream_bytes_attr.attr,
	&stream_ops_done_attr.attr,
	&stream_compute_ns_attr.attr,
	NULL
};
ATTRIBUTE_GROUPS(npu_stream);

static void npu_stream_dir_release(struct kobject *kobj)
{
	kfree(container_of(kobj, struct npu_stream_dir, kobj));
}

static const struct kobj_type npu_stream_ktype = {
	.release = npu_stream_dir_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = npu_stream_groups,
};

static void npu_stream_dir_remove(struct npu_device *ndev,
				  struct npu_stream_dir *dir)
{
	lockdep_assert_held(&ndev->sysfs_lock);
	list_del(&dir->link);
	dir->stream->sysfs_dir = NULL;
	kobject_del(&dir->kobj);
	kobject_put(&dir->kobj);
}

/* An operator's view only: a stream works without its directory. */
void npu_sysfs_stream_add(struct npu_stream *stream)
{
	struct npu_device *ndev = stream->ctx->ndev;
	struct npu_stream_dir *dir;

	dir = kzalloc(sizeof(*dir), GFP_KERNEL);
	if (!dir)
		return;
	dir->stream = stream;

	mutex_lock(&ndev->sysfs_lock);
	if (!ndev->streams_kobj) {
		kfree(dir);
	} else if (kobject_init_and_add(&dir->kobj, &npu_stream_ktype,
					ndev->streams_kobj, "%u", stream->ring->index)) {
		kobject_put(&dir->kobj);
	} else {
		list_add_tail(&dir->link, &ndev->stream_dirs);
		stream->sysfs_dir = dir;
	}
	mutex_unlock(&ndev->sysfs_lock);
}

void npu_sysfs_stream_remove(struct npu_stream *stream)
{
	struct npu_device *ndev = stream->ctx->ndev;

	mutex_lock(&ndev->sysfs_lock);
	if (stream->sysfs_dir)
		npu_stream_dir_remove(ndev, stream->sysfs_dir);
	mutex_unlock(&ndev->sysfs_lock);
}

int npu_sysfs_init(struct npu_device *ndev)
{
	INIT_LIST_HEAD(&ndev->stream_dirs);
	ndev->streams_kobj = kobject_create_and_add("streams", &ndev->drm.dev->kobj);
	return ndev->streams_kobj ? 0 : -ENOMEM;
}

/* Streams of files still open outlive the card's directories. */
void npu_sysfs_fini(struct npu_device *ndev)
{
	struct npu_stream_dir *dir, *next;

	mutex_lock(&ndev->sysfs_lock);
	list_for_each_entry_safe(dir, next, &ndev->stream_dirs, link)
		npu_stream_dir_remove(ndev, dir);
	kobject_put(ndev->streams_kobj);
	ndev->streams_kobj = NULL;
	mutex_unlock(&ndev->sysfs_lock);
}
