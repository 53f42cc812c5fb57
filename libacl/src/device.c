// SPDX-License-Identifier: MIT
/*
 * Devices: one per npu card (/dev/accel/accelN whose DRM driver is "npu"),
 * numbered in the order of their accel minors. A device is opened on its
 * first reference (aclrtSetDevice, aclrtCreateContext): one DRM file for
 * the process, its fence area mapped read-only, the default context with
 * its default stream created. It is closed when the last reference goes.
 *
 * A close waits for the streams and for running callbacks, which may call
 * the runtime meanwhile, aclrtSetDevice included. So it holds no lock of
 * the device while it works: d->closing keeps others from reopening the
 * device until it is done. They wait for that, except from inside a
 * callback: the close may be waiting for that very callback.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "peer.h"
#include "vmm.h"
#include "model.h"

struct acl_device acl_devices[ACL_MAX_DEVICES];
int acl_ndevices = -1;		/* -1: not enumerated yet */
static struct acl_mutex enum_lock = ACL_MUTEX_INITIALIZER;

static int cmp_minor(const void *a, const void *b)
{
	const struct acl_device *x = a, *y = b;

	return (int)x->minor - (int)y->minor;
}

static void read_bdf(struct acl_device *d)
{
	char link[PATH_MAX], path[128];
	const char *base;
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/class/accel/accel%u/device", d->minor);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0) {
		snprintf(d->bdf, sizeof(d->bdf), "unknown");
		return;
	}
	link[n] = 0;
	base = strrchr(link, '/');
	base = base ? base + 1 : link;
	if (strlen(base) >= sizeof(d->bdf))
		base = "unknown";
	memcpy(d->bdf, base, strlen(base) + 1);
}

static void device_init_struct(struct acl_device *d)
{
	acl_mutex_init(&d->lock);
	pthread_cond_init(&d->closed, NULL);
	acl_mutex_init(&d->list_lock);
	acl_mutex_init(&d->slot_lock);
	acl_list_init(&d->contexts);
	acl_list_init(&d->streams);
	acl_list_init(&d->events);
	acl_rmap_init(&d->devmem);
	d->fd = -1;
}

void acl_enumerate_devices(bool rescan)
{
	struct acl_device found[ACL_MAX_DEVICES];
	struct dirent *de;
	DIR *dir;
	int n = 0, i;

	acl_mutex_lock(&enum_lock);
	if (acl_ndevices >= 0 && !rescan)
		goto out;
	/* Devices in use keep their slot; a rescan happens with none open. */
	for (i = 0; i < (acl_ndevices > 0 ? acl_ndevices : 0); i++)
		if (acl_devices[i].refs > 0 || acl_devices[i].closing)
			goto out;

	memset(found, 0, sizeof(found));
	dir = opendir("/dev/accel");
	while (dir && (de = readdir(dir)) && n < ACL_MAX_DEVICES) {
		unsigned minor;
		char path[64];

		if (sscanf(de->d_name, "accel%u", &minor) != 1)
			continue;
		snprintf(path, sizeof(path), "/dev/accel/accel%u", minor);
		if (!drv_probe(path))
			continue;
		snprintf(found[n].path, sizeof(found[n].path), "%s", path);
		found[n].minor = minor;
		n++;
	}
	if (dir)
		closedir(dir);
	qsort(found, (size_t)n, sizeof(found[0]), cmp_minor);

	for (i = 0; i < n; i++) {
		struct acl_device *d = &acl_devices[i];

		if (acl_ndevices < 0 || i >= acl_ndevices || d->fd < 0) {
			acl_rmap_destroy(&d->devmem);
			memset(d, 0, sizeof(*d));
			device_init_struct(d);
		}
		d->id = i;
		d->minor = found[i].minor;
		memcpy(d->path, found[i].path, sizeof(d->path));
		read_bdf(d);
	}
	acl_ndevices = n;
	ACL_LOGI("%d npu device(s) found", n);
out:
	acl_mutex_unlock(&enum_lock);
}

struct acl_device *acl_device_get(int32_t id)
{
	acl_enumerate_devices(false);
	if (id < 0 || id >= acl_ndevices)
		return NULL;
	return &acl_devices[id];
}

/* The first context of d other than the default one, NULL if none. */
static struct acl_context *next_context(struct acl_device *d)
{
	struct acl_context *c = NULL;
	struct acl_list *pos;

	acl_mutex_lock(&d->list_lock);
	for (pos = d->contexts.next; pos != &d->contexts && !c; pos = pos->next) {
		c = acl_container_of(pos, struct acl_context, link);
		if (c == d->default_ctx)
			c = NULL;
	}
	acl_mutex_unlock(&d->list_lock);
	return c;
}

/* A stream of d that nobody is freeing yet, NULL if none. */
static struct acl_stream *next_stream(struct acl_device *d)
{
	struct acl_stream *s = NULL;
	struct acl_list *pos;

	acl_mutex_lock(&d->list_lock);
	for (pos = d->streams.next; pos != &d->streams && !s; pos = pos->next)
		if (!acl_container_of(pos, struct acl_stream, link)->dying)
			s = acl_container_of(pos, struct acl_stream, link);
	acl_mutex_unlock(&d->list_lock);
	return s;
}

/*
 * Closes the card (d->closing set, or still being opened: no callback can
 * run yet). The lists are walked one element at a time under the list
 * lock, which is dropped while a context or stream is destroyed: that may
 * wait for a running callback, which may create and destroy streams and
 * events.
 */
static void device_teardown(struct acl_device *d, bool wait)
{
	struct acl_context *c;
	struct acl_stream *s;

	/* Explicit contexts first, the default one (and its stream) last. */
	while ((c = next_context(d)))
		acl_context_destroy(c, wait);
	if (d->default_ctx)
		acl_context_destroy(d->default_ctx, wait);
	d->default_ctx = NULL;
	acl_copy_pool_fini(d, wait);
	acl_peer_signal_drop(d);
	/* Streams that outlived their context. */
	while ((s = next_stream(d)))
		acl_stream_free(s, wait);
	acl_mutex_lock(&d->list_lock);
	while (d->events.next != &d->events)
		acl_event_free(acl_container_of(d->events.next, struct acl_event, link));
	acl_mutex_unlock(&d->list_lock);

	acl_hostmem_drop(d);
	acl_model_drop_device(d);
	acl_ipc_drop_device(d);
	acl_devmem_drop_device(d);
	acl_vmm_drop_device(d);
	acl_mutex_lock(&d->slot_lock);
	while (d->deferred) {
		struct acl_deferred_slot *ds = d->deferred;

		d->deferred = ds->next;
		free(ds);
	}
	acl_mutex_unlock(&d->slot_lock);
	if (d->fence)
		munmap((void *)d->fence, d->fence_size);
	d->fence = NULL;
	/* Closing the file stops whatever is left and frees it all. */
	close(d->fd);
	d->fd = -1;
	atomic_store(&d->dead, false);
}

static aclError device_open_locked(struct acl_device *d)
{
	uint64_t off, size, v;
	aclError err = ACL_SUCCESS;
	void *map;
	int fd, ret;

	ACL_ASSERT_HELD(&d->lock);
	fd = drv_open(d->path);
	if (fd == -EBUSY)
		return ACL_FAIL(ACL_ERROR_RT_DEV_SETUP_ERROR, "cannot open %s: the card is in "
				"exclusive mode and another process holds it", d->path);
	if (fd < 0)
		return ACL_FAIL(fd == -EACCES ? ACL_ERROR_RT_NO_PERMISSION : ACL_ERROR_RT_NO_DEVICE,
				"cannot open %s: %s", d->path, strerror(-fd));
	ret = drv_get_param(fd, DRM_NPU_PARAM_FENCE_MMAP_OFFSET, &off);
	if (!ret)
		ret = drv_get_param(fd, DRM_NPU_PARAM_FENCE_SIZE, &size);
	if (!ret)
		ret = drv_get_param(fd, DRM_NPU_PARAM_NUM_SLOTS, &v);
	if (!ret)
		d->num_slots = (uint32_t)v;
	if (!ret)
		ret = drv_get_param(fd, DRM_NPU_PARAM_NUM_RINGS, &v);
	if (!ret)
		d->num_rings = (uint32_t)v;
	/* Optional: a driver before direct streams refuses the parameter. */
	d->direct_bindings = 0;
	if (!ret && !drv_get_param(fd, DRM_NPU_PARAM_DIRECT_BINDINGS, &v) && acl_direct_rings_wanted())
		d->direct_bindings = (uint32_t)v;
	if (!ret)
		ret = drv_get_param(fd, DRM_NPU_PARAM_DEVMEM_SIZE, &d->devmem_size);
	if (!ret)
		ret = drv_get_param(fd, DRM_NPU_PARAM_SERIAL, &d->serial);
	if (!ret)
		ret = drv_get_param(fd, DRM_NPU_PARAM_VERSION, &v);
	if (ret) {
		close(fd);
		return ACL_FAIL(ACL_ERROR_RT_DRV_INTERNAL_ERROR, "querying %s failed: %s",
				d->path, strerror(-ret));
	}
	d->version = (uint32_t)v;
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, (off_t)off);
	if (map == MAP_FAILED) {
		err = ACL_FAIL(ACL_ERROR_RT_DRV_INTERNAL_ERROR, "mapping the fence area of %s: %s",
			       d->path, strerror(errno));
		close(fd);
		return err;
	}
	d->fd = fd;
	d->fence = map;
	d->fence_size = size;
	atomic_store(&d->dead, false);
	acl_copy_pool_init(d);

	d->default_ctx = acl_context_create(d, true, &err);
	if (!d->default_ctx) {
		device_teardown(d, false);
		return err;
	}
	ACL_LOGI("opened device %d (%s, %s): %llu bytes, %u rings", d->id, d->path, d->bdf,
		 (unsigned long long)d->devmem_size, d->num_rings);
	return ACL_SUCCESS;
}

/*
 * Waits while another thread closes d (d->lock held), unless told not to
 * or called in a callback. False if d is still closing.
 */
static bool wait_closed_locked(struct acl_device *d, bool wait)
{
	ACL_ASSERT_HELD(&d->lock);
	while (d->closing && wait && !acl_cb_running())
		acl_cond_wait(&d->closed, &d->lock);
	return !d->closing;
}

bool acl_device_wait_closed(struct acl_device *d)
{
	bool closed;

	acl_mutex_lock(&d->lock);
	closed = wait_closed_locked(d, true);
	acl_mutex_unlock(&d->lock);
	return closed;
}

aclError acl_device_acquire(struct acl_device *d, bool wait)
{
	aclError err = ACL_SUCCESS;
	bool closing;

	acl_mutex_lock(&d->lock);
	closing = !wait_closed_locked(d, wait);
	if (!closing && d->refs == 0)
		err = device_open_locked(d);
	if (!closing && !err)
		d->refs++;
	acl_mutex_unlock(&d->lock);
	if (!closing)
		return err;
	if (!wait)
		return ACL_ERROR_RT_DEVICE_TASK_ABORT;
	return ACL_FAIL(ACL_ERROR_RT_DEVICE_TASK_ABORT,
			"device %d is being closed by a teardown that waits for this callback",
			d->id);
}

/* Closes d, which the caller marked closing, without holding its lock. */
static void device_close(struct acl_device *d, bool wait)
{
	device_teardown(d, wait);
	acl_mutex_lock(&d->lock);
	d->closing = false;
	pthread_cond_broadcast(&d->closed);
	acl_mutex_unlock(&d->lock);
}

aclError acl_device_release(struct acl_device *d, bool force)
{
	bool close;

	acl_mutex_lock(&d->lock);
	/* Forced, it returns with d closed, also when another thread closes it. */
	wait_closed_locked(d, force);
	close = d->refs > 0 && (force || --d->refs == 0);
	if (close) {
		d->refs = 0;
		d->closing = true;
	}
	acl_mutex_unlock(&d->lock);
	if (close)
		device_close(d, !force);
	return ACL_SUCCESS;
}

void acl_device_shutdown_all(void)
{
	int i;

	for (i = 0; i < (acl_ndevices > 0 ? acl_ndevices : 0); i++)
		acl_device_release(&acl_devices[i], true);
}

void acl_device_mark_dead(struct acl_device *d)
{
	if (!atomic_exchange(&d->dead, true))
		ACL_LOGW("device %d (%s) lost its heartbeat", d->id, d->bdf);
}

void acl_device_defer_slot(struct acl_device *d, uint32_t slot, uint64_t value)
{
	struct acl_deferred_slot *ds = malloc(sizeof(*ds));

	if (!ds)
		return;		/* the slot leaks until the device closes */
	ds->slot = slot;
	ds->value = value;
	acl_mutex_lock(&d->slot_lock);
	ds->next = d->deferred;
	d->deferred = ds;
	acl_mutex_unlock(&d->slot_lock);
}

/* Frees deferred event slots whose last record has completed. */
void acl_device_reap_slots(struct acl_device *d)
{
	struct acl_deferred_slot **pp, *ds;

	if (!d->deferred)
		return;
	acl_mutex_lock(&d->slot_lock);
	for (pp = &d->deferred; (ds = *pp);) {
		if (acl_seq_reached(acl_slot_value(d, ds->slot), ds->value)) {
			*pp = ds->next;
			drv_slot_free(d->fd, ds->slot);
			free(ds);
		} else {
			pp = &ds->next;
		}
	}
	acl_mutex_unlock(&d->slot_lock);
}

aclError acl_current_dev_param(const char *fn, uint32_t param, uint64_t *value)
{
	struct acl_context *c = acl_current_ctx();
	int ret;

	if (!c)
		return ACL_ERROR_RT_CONTEXT_NULL;
	ret = drv_get_param(c->dev->fd, param, value);
	if (ret)
		return acl_drv_fail(fn, c->dev, ret, "reading parameter %u", param);
	return ACL_SUCCESS;
}

/* ---- public API -------------------------------------------------------- */

ACL_EXPORT aclError aclrtGetDeviceCount(uint32_t *count)
{
	ACL_CHECK_NULL(count);
	acl_enumerate_devices(false);
	*count = (uint32_t)acl_ndevices;
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtSetDevice(int32_t deviceId)
{
	struct acl_device *d = acl_device_get(deviceId);
	aclError err = ACL_SUCCESS;

	if (!d)
		return ACL_FAIL(ACL_ERROR_RT_INVALID_DEVICEID,
				"device %d does not exist (%d device(s))", deviceId,
				acl_ndevices < 0 ? 0 : acl_ndevices);
	err = acl_device_acquire(d, true);
	if (err)
		return err;
	acl_mutex_lock(&d->lock);
	acl_set_current_ctx(d->default_ctx);
	acl_mutex_unlock(&d->lock);
	return ACL_SUCCESS;
}

/*
 * Drops a reference unless it is the last one; returns the count it found.
 * Deciding under the lock means that of two racing resets exactly one sees
 * the last reference, and it waits for the streams.
 */
static int release_unless_last(struct acl_device *d)
{
	int refs;

	acl_mutex_lock(&d->lock);
	refs = d->refs;
	if (refs > 1)
		d->refs--;
	acl_mutex_unlock(&d->lock);
	return refs;
}

ACL_EXPORT aclError aclrtResetDevice(int32_t deviceId)
{
	struct acl_device *d = acl_device_get(deviceId);
	int refs;

	if (!d)
		return ACL_FAIL(ACL_ERROR_RT_INVALID_DEVICEID, "device %d does not exist", deviceId);
	refs = release_unless_last(d);
	if (refs == 0) {
		ACL_LOGW("device %d was not set", deviceId);
		return ACL_SUCCESS;
	}
	if (refs > 1)
		return ACL_SUCCESS;
	/*
	 * The last reference waits for the streams without the lock, then
	 * goes (closing the card unless an aclrtSetDevice came meanwhile).
	 */
	acl_device_drain(d, NULL);
	return acl_device_release(d, false);
}

ACL_EXPORT aclError aclrtResetDeviceForce(int32_t deviceId)
{
	struct acl_device *d = acl_device_get(deviceId);

	if (!d)
		return ACL_FAIL(ACL_ERROR_RT_INVALID_DEVICEID, "device %d does not exist", deviceId);
	return acl_device_release(d, true);
}

ACL_EXPORT aclError aclrtGetDevice(int32_t *deviceId)
{
	aclError err = ACL_SUCCESS;
	struct acl_context *c = acl_current_ctx_for(deviceId, &err);

	if (c)
		*deviceId = c->dev->id;
	return err;
}

ACL_EXPORT aclError aclrtGetRunMode(aclrtRunMode *runMode)
{
	ACL_CHECK_NULL(runMode);
	*runMode = ACL_HOST;	/* a PCIe card driven from the host */
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtSetTsDevice(aclrtTsId tsId)
{
	if (tsId != ACL_TS_ID_AICORE && tsId != ACL_TS_ID_AIVECTOR)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "invalid ts id %d", (int)tsId);
	return ACL_SUCCESS;
}

/* A stream seen under the device lock, to be waited for after it is dropped. */
struct stream_ref {
	struct acl_stream *s;
	uint32_t gen;
};

/* The streams of d (of ctx only, unless NULL): *list of *n; fails only for memory. */
static aclError snapshot_streams(struct acl_device *d, struct acl_context *ctx,
				 struct stream_ref **list, size_t *n)
{
	struct acl_list *pos;
	size_t cap = 0;

	*list = NULL;
	*n = 0;
	acl_mutex_lock(&d->list_lock);
	for (pos = d->streams.next; pos != &d->streams; pos = pos->next) {
		struct acl_stream *s = acl_container_of(pos, struct acl_stream, link);

		if (ctx && s->ctx != ctx)
			continue;
		if (*n == cap) {
			void *p = realloc(*list, (cap = cap ? cap * 2 : 16) * sizeof(**list));

			if (!p) {
				acl_mutex_unlock(&d->list_lock);
				free(*list);
				return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory");
			}
			*list = p;
		}
		(*list)[(*n)++] = (struct stream_ref){ s, atomic_load(&s->obj.gen) };
	}
	acl_mutex_unlock(&d->list_lock);
	return ACL_SUCCESS;
}

/* False once the stream was destroyed after the snapshot. */
static bool still_live(const struct stream_ref *r)
{
	return atomic_load(&r->s->obj.gen) == r->gen;
}

void acl_device_drain(struct acl_device *d, struct acl_context *ctx)
{
	struct stream_ref *list;
	size_t n, i;

	/* Without memory for the list, the teardown waits under the lock. */
	if (snapshot_streams(d, ctx, &list, &n))
		return;
	for (i = 0; i < n; i++)
		if (still_live(&list[i]))
			acl_stream_drain(list[i].s);
	free(list);
}

static aclError sync_device(int32_t timeout)
{
	struct stream_ref *list;
	struct acl_context *c;
	size_t n, i;
	aclError err, e;
	int64_t deadline;

	if (timeout < -1)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "timeout %d is invalid", timeout);
	c = acl_current_ctx();
	if (!c)
		return ACL_ERROR_RT_CONTEXT_NULL;
	err = acl_capture_check_device(timeout < 0 ? "aclrtSynchronizeDevice" :
				       "aclrtSynchronizeDeviceWithTimeout", c->dev);
	if (err)
		return err;
	err = snapshot_streams(c->dev, NULL, &list, &n);
	if (err)
		return err;
	deadline = timeout < 0 ? 0 : acl_now_ns() + (int64_t)timeout * 1000000;
	for (i = 0; i < n; i++) {
		int32_t left = -1;

		if (!still_live(&list[i]))
			continue;
		if (timeout >= 0) {
			int64_t ns = deadline - acl_now_ns();

			left = ns > 0 ? (int32_t)((ns + 999999) / 1000000) : 0;
		}
		e = acl_stream_sync(list[i].s, left);
		if (e && !err)
			err = e;
	}
	free(list);
	return err;
}

ACL_EXPORT aclError aclrtSynchronizeDevice(void)
{
	return sync_device(-1);
}

ACL_EXPORT aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout)
{
	return sync_device(timeout);
}

ACL_EXPORT aclError aclrtGetDeviceInfo(uint32_t deviceId, aclrtDevAttr attr, int64_t *value)
{
	struct acl_device *d = acl_device_get((int32_t)deviceId);
	uint64_t v;

	ACL_CHECK_NULL(value);
	if (!d)
		return ACL_FAIL(ACL_ERROR_RT_INVALID_DEVICEID, "device %u does not exist", deviceId);
	switch (attr) {
	case ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE:
		if (d->fd >= 0) {
			*value = (int64_t)d->devmem_size;
		} else {
			int fd = drv_open(d->path);

			if (fd < 0)
				return ACL_FAIL(ACL_ERROR_RT_NO_DEVICE, "cannot open %s", d->path);
			if (drv_get_param(fd, DRM_NPU_PARAM_DEVMEM_SIZE, &v)) {
				close(fd);
				return ACL_FAIL(ACL_ERROR_RT_DRV_INTERNAL_ERROR, "query failed");
			}
			close(fd);
			*value = (int64_t)v;
		}
		return ACL_SUCCESS;
	/* Its cores are its compute engines (res_limit.c). */
	case ACL_DEV_ATTR_AICORE_CORE_NUM:
	case ACL_DEV_ATTR_CUBE_CORE_NUM:
	case ACL_DEV_ATTR_VECTOR_CORE_NUM: {
		aclError err = acl_device_param(__func__, d, DRM_NPU_PARAM_NUM_COMPUTE_ENGINES, &v);

		if (!err)
			*value = (int64_t)v;
		return err;
	}
	/* The card has no AI CPU and no cache. */
	case ACL_DEV_ATTR_AICPU_CORE_NUM:
	case ACL_DEV_ATTR_L2_CACHE_SIZE:
	case ACL_DEV_ATTR_SMP_ID:
	case ACL_DEV_ATTR_IS_VIRTUAL:
	case ACL_DEV_ATTR_CUST_OP_PRIVILEGE:
		*value = 0;
		return ACL_SUCCESS;
	case ACL_DEV_ATTR_PHY_CHIP_ID:
		*value = d->id;
		return ACL_SUCCESS;
	case ACL_DEV_ATTR_HD_CONNECT_TYPE:
		*value = ACL_HOST_DEVICE_CONNECT_TYPE_PCIE;
		return ACL_SUCCESS;
	case ACL_DEV_ATTR_DEVICE_FORM_FACTOR:
		*value = ACL_DEVICE_FORM_FACTOR_PCIE_CARD;
		return ACL_SUCCESS;
	case ACL_DEV_ATTR_WARP_SIZE:
	case ACL_DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE:
	case ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE:
	case ACL_DEV_ATTR_MAX_GRID_DIM_X:
	case ACL_DEV_ATTR_MAX_GRID_DIM_Y:
	case ACL_DEV_ATTR_MAX_GRID_DIM_Z:
	case ACL_DEV_ATTR_MAX_BLOCK_PER_GRID:
	case ACL_DEV_ATTR_MAX_THREADS_PER_BLOCK:
	case ACL_DEV_ATTR_MAX_BLOCK_DIM_X:
	case ACL_DEV_ATTR_MAX_BLOCK_DIM_Y:
	case ACL_DEV_ATTR_MAX_BLOCK_DIM_Z:
	case ACL_DEV_ATTR_SUPER_POD_DEVICE_ID:
	case ACL_DEV_ATTR_SUPER_POD_SERVER_ID:
	case ACL_DEV_ATTR_SUPER_POD_ID:
	case ACL_DEV_ATTR_MAINBOARD_ID:
	case ACL_DEV_ATTR_SUPER_POD_CHASSIS_ID:
	case ACL_DEV_ATTR_NPU_ARCH:
		return ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
				"attribute %d does not apply to this card", (int)attr);
	default:
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown device attribute %d", (int)attr);
	}
}

/* A dead card's clock stands still: it is refreshed with the heartbeat. */
ACL_EXPORT aclError aclrtQueryDeviceStatus(int32_t deviceId, aclrtDeviceStatus *deviceStatus)
{
	struct acl_device *d = acl_device_get(deviceId);
	uint64_t c0, c1;
	int fd, i, ret;
	bool own = false;

	ACL_CHECK_NULL(deviceStatus);
	if (!d)
		return ACL_FAIL(ACL_ERROR_RT_INVALID_DEVICEID, "device %d does not exist", deviceId);
	if (atomic_load(&d->dead)) {
		*deviceStatus = ACL_RT_DEVICE_STATUS_ABNORMAL;
		return ACL_SUCCESS;
	}
	fd = d->fd;
	if (fd < 0) {
		fd = drv_open(d->path);
		if (fd < 0)
			return ACL_FAIL(ACL_ERROR_RT_NO_DEVICE, "cannot open %s", d->path);
		own = true;
	}
	ret = drv_get_param(fd, DRM_NPU_PARAM_CLOCK_NS, &c0);
	c1 = c0;
	for (i = 0; !ret && i < 50 && c1 == c0; i++) {
		struct timespec ts = { 0, 2000000 };

		nanosleep(&ts, NULL);
		ret = drv_get_param(fd, DRM_NPU_PARAM_CLOCK_NS, &c1);
	}
	if (own)
		close(fd);
	else if (ret == -ENODEV)
		acl_device_mark_dead(d);	/* its streams must learn it too */
	if (ret == -ENODEV || (!ret && c1 == c0)) {
		*deviceStatus = ACL_RT_DEVICE_STATUS_ABNORMAL;
		return ACL_SUCCESS;
	}
	if (ret)
		return ACL_FAIL(ACL_ERROR_RT_DRV_INTERNAL_ERROR, "querying device %d failed: %s",
				deviceId, strerror(-ret));
	*deviceStatus = ACL_RT_DEVICE_STATUS_NORMAL;
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtDeviceGetStreamPriorityRange(int32_t *leastPriority,
						      int32_t *greatestPriority)
{
	ACL_CHECK_NULL(leastPriority);
	ACL_CHECK_NULL(greatestPriority);
	*leastPriority = DRM_NPU_PRIORITY_LOWEST;
	*greatestPriority = DRM_NPU_PRIORITY_HIGHEST;
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtDeviceGetUuid(int32_t deviceId, aclrtUuid *uuid)
{
	struct acl_device *d = acl_device_get(deviceId);
	uint64_t serial = 0;
	int fd;

	ACL_CHECK_NULL(uuid);
	if (!d)
		return ACL_FAIL(ACL_ERROR_RT_INVALID_DEVICEID, "device %d does not exist", deviceId);
	fd = d->fd >= 0 ? d->fd : drv_open(d->path);
	if (fd < 0)
		return ACL_FAIL(ACL_ERROR_RT_NO_DEVICE, "cannot open %s", d->path);
	drv_get_param(fd, DRM_NPU_PARAM_SERIAL, &serial);
	if (fd != d->fd)
		close(fd);
	/* "NPU" + version byte + serial (big-endian) + padding */
	memset(uuid, 0, sizeof(*uuid));
	memcpy(uuid->bytes, "NPU", 3);
	uuid->bytes[3] = 1;
	for (int i = 0; i < 8; i++)
		uuid->bytes[4 + i] = (char)(serial >> (56 - 8 * i));
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtDeviceGetPCIBusId(int32_t deviceId, char *pciBusId, int32_t len)
{
	struct acl_device *d = acl_device_get(deviceId);

	ACL_CHECK_NULL(pciBusId);
	if (!d)
		return ACL_FAIL(ACL_ERROR_RT_INVALID_DEVICEID, "device %d does not exist", deviceId);
	if (len < 13 || (size_t)len <= strlen(d->bdf))
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "buffer of %d bytes is too small", len);
	snprintf(pciBusId, (size_t)len, "%s", d->bdf);
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtDeviceGetByPCIBusId(const char *pciBusId, int32_t *deviceId)
{
	int i;

	ACL_CHECK_NULL(pciBusId);
	ACL_CHECK_NULL(deviceId);
	acl_enumerate_devices(false);
	for (i = 0; i < acl_ndevices; i++) {
		if (!strcasecmp(acl_devices[i].bdf, pciBusId)) {
			*deviceId = i;
			return ACL_SUCCESS;
		}
	}
	return ACL_FAIL(ACL_ERROR_RT_INVALID_DEVICEID, "no device at %s", pciBusId);
}
