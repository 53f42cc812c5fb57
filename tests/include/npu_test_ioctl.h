/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Thin helpers over the driver's uapi for the tests: each maps onto one
 * ioctl and returns 0 or -errno.  Their names start with test_: the
 * driver's own npu_ioctl() and npu_submit() are other things.
 */
#ifndef NPU_TEST_IOCTL_H
#define NPU_TEST_IOCTL_H

#include <pthread.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <time.h>
#include <xf86drm.h>

#include "npu_accel.h"
#include "npu_operator.h"
#include "npu_test_sysfs.h"

/* One open card: its accel node and its fence area, mapped. */
struct test_card {
	int fd;
	char bdf[32];
	char accel[32];
	struct drm_npu_fence_slot *fence;
	size_t fence_size;
};

static inline int test_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

static inline int test_param(int fd, uint32_t param, uint64_t *value)
{
	struct drm_npu_get_param p = { .param = param };
	int ret = test_ioctl(fd, DRM_IOCTL_NPU_GET_PARAM, &p);

	*value = p.value;
	return ret;
}

static inline uint64_t test_param_or_die(int fd, uint32_t param)
{
	uint64_t v = 0;

	if (test_param(fd, param, &v))
		abort();
	return v;
}

/* Opens the n-th bound card and maps its fence area. */
static inline int test_card_open(struct test_card *card, int n)
{
	struct test_pci devs[TEST_MAX_DEVS];
	int i, ndevs = test_list_pci(devs, TEST_MAX_DEVS);
	char path[64];
	uint64_t off;

	for (i = 0; i < ndevs; i++) {
		if (!devs[i].bound || n--)
			continue;
		memcpy(card->bdf, devs[i].bdf, sizeof(card->bdf));
		if (test_accel_name(card->bdf, card->accel, sizeof(card->accel)))
			return -ENOENT;
		snprintf(path, sizeof(path), "/dev/accel/%s", card->accel);
		card->fd = open(path, O_RDWR | O_CLOEXEC);
		if (card->fd < 0)
			return -errno;
		card->fence_size = test_param_or_die(card->fd, DRM_NPU_PARAM_FENCE_SIZE);
		off = test_param_or_die(card->fd, DRM_NPU_PARAM_FENCE_MMAP_OFFSET);
		card->fence = mmap(NULL, card->fence_size, PROT_READ, MAP_SHARED,
				   card->fd, off);
		if (card->fence == MAP_FAILED)
			return -errno;
		return 0;
	}
	return -ENODEV;
}

static inline void test_card_close(struct test_card *card)
{
	if (card->fence && card->fence != MAP_FAILED)
		munmap(card->fence, card->fence_size);
	if (card->fd >= 0)
		close(card->fd);
	card->fd = -1;
	card->fence = NULL;
}

static inline int test_bo_create(int fd, uint64_t size, uint32_t flags,
				 struct drm_npu_bo_create *bo)
{
	memset(bo, 0, sizeof(*bo));
	bo->size = size;
	bo->flags = flags;
	return test_ioctl(fd, DRM_IOCTL_NPU_BO_CREATE, bo);
}

static inline int test_bo_close(int fd, uint32_t handle)
{
	struct drm_gem_close c = { .handle = handle };

	return test_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &c);
}

static inline int test_stream_create(int fd, uint32_t priority, uint32_t entries,
				     struct drm_npu_stream_create *s)
{
	memset(s, 0, sizeof(*s));
	s->priority = priority;
	s->ring_entries = entries;
	return test_ioctl(fd, DRM_IOCTL_NPU_STREAM_CREATE, s);
}

static inline int test_stream_destroy(int fd, uint32_t id, uint32_t flags)
{
	struct drm_npu_stream_destroy d = { .id = id, .flags = flags };

	return test_ioctl(fd, DRM_IOCTL_NPU_STREAM_DESTROY, &d);
}

static inline int test_submit(int fd, uint32_t stream, const struct drm_npu_cmd *cmds,
			      uint32_t count, uint32_t flags, uint64_t *seqno)
{
	struct drm_npu_submit s = {
		.stream = stream, .flags = flags, .cmds = (uintptr_t)cmds,
		.count = count, .cmd_size = sizeof(*cmds),
	};
	int ret = test_ioctl(fd, DRM_IOCTL_NPU_SUBMIT, &s);

	if (seqno)
		*seqno = s.seqno;
	return ret;
}

static inline int test_wait(int fd, uint32_t slot, uint64_t value, int64_t timeout_ms)
{
	struct drm_npu_wait w = {
		.slot = slot, .value = value,
		.timeout_ns = timeout_ms < 0 ? DRM_NPU_WAIT_FOREVER :
			      test_now_ns() + timeout_ms * 1000000LL,
	};

	return test_ioctl(fd, DRM_IOCTL_NPU_WAIT, &w);
}

static inline int test_slot_alloc(int fd, uint32_t *slot)
{
	struct drm_npu_slot s = { 0 };
	int ret = test_ioctl(fd, DRM_IOCTL_NPU_SLOT_ALLOC, &s);

	*slot = s.slot;
	return ret;
}

static inline int test_slot_op(int fd, unsigned long cmd, uint32_t slot, uint64_t value)
{
	struct drm_npu_slot s = { .slot = slot, .value = value };

	return test_ioctl(fd, cmd, &s);
}

static inline struct drm_npu_cmd test_cmd_copy(uint64_t dst, uint64_t src, uint64_t size,
					       uint32_t flags)
{
	return (struct drm_npu_cmd){ .op = DRM_NPU_OP_COPY, .flags = flags,
				     .dst = dst, .src = src, .size = size };
}

static inline struct drm_npu_cmd test_cmd_fill(uint64_t dst, uint8_t byte, uint64_t size,
					       uint32_t flags)
{
	return (struct drm_npu_cmd){ .op = DRM_NPU_OP_FILL, .flags = flags,
				     .dst = dst, .value = byte, .size = size };
}

/* Submits one command and waits for it; returns 0 or -errno. */
static inline int test_run(struct test_card *card, struct drm_npu_stream_create *s,
			   struct drm_npu_cmd cmd)
{
	uint64_t seq;
	int ret = test_submit(card->fd, s->id, &cmd, 1, 0, &seq);

	return ret ?: test_wait(card->fd, s->slot, seq, 20000);
}

/* Data for copies: the same for the same seed. */
static inline void test_fill_random(void *buf, size_t len, unsigned int seed)
{
	uint32_t *w = buf, x = seed * 2654435761u + 1;
	size_t i;

	for (i = 0; i < len / 4; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		w[i] = x;
	}
	for (i = len & ~3UL; i < len; i++)
		((uint8_t *)buf)[i] = (uint8_t)(x >> (i & 3) * 8);
}

/* A dense row-major tensor of @dtype at @addr; returns its elements. */
static inline uint64_t test_tensor_dense(struct npu_tensor_desc *t, uint64_t addr,
					 uint16_t dtype, unsigned int ndims,
					 const uint64_t *dims)
{
	uint64_t stride = 1;
	int d;

	memset(t, 0, sizeof(*t));
	t->addr = htole64(addr);
	t->dtype = htole16(dtype);
	t->format = htole16(NPU_FORMAT_STRIDED);
	t->ndims = htole16(ndims);
	for (d = (int)ndims - 1; d >= 0; d--) {
		t->dims[d] = htole64(dims[d]);
		t->strides[d] = htole64(stride);
		stride *= dims[d];
	}
	return stride;
}

/*
 * uapi/npu_accel.h's direct submission: @n commands at the tail of a
 * mapped ring of @entries (a power of two) once there is room, the tail
 * (a release store), a full barrier, then a kick only if the card does
 * not watch the ring.
 */
static inline int test_direct_push(int fd, uint32_t stream, struct drm_npu_direct_ctrl *ctrl,
				   struct drm_npu_direct_cmd *ring, uint32_t entries,
				   const struct drm_npu_direct_cmd *cmds, unsigned int n)
{
	struct drm_npu_stream_kick kick = { .stream = stream };
	uint32_t tail = ctrl->tail;
	unsigned int i;

	while (entries - (tail - __atomic_load_n(&ctrl->head, __ATOMIC_ACQUIRE)) < n)
		sched_yield();
	for (i = 0; i < n; i++)
		ring[(tail + i) & (entries - 1)] = cmds[i];
	__atomic_store_n(&ctrl->tail, tail + n, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&ctrl->fetching, __ATOMIC_ACQUIRE))
		return 0;
	return test_ioctl(fd, DRM_IOCTL_NPU_STREAM_KICK, &kick);
}

#endif /* NPU_TEST_IOCTL_H */
