/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Thin helpers over the driver's uapi for the tests: each maps onto one
 * ioctl and returns 0 or -errno.
 */
#ifndef NPU_UAPI_TEST_H
#define NPU_UAPI_TEST_H

#include <pthread.h>
#include <sys/ioctl.h>
#include <time.h>
#include <xf86drm.h>

#include "npu_accel.h"
#include "npu_test.h"

struct npu_card {
	int fd;
	char bdf[32];
	char accel[32];
	struct drm_npu_fence_slot *fence;
	size_t fence_size;
};

static inline int npu_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

static inline int npu_param(int fd, uint32_t param, uint64_t *value)
{
	struct drm_npu_get_param p = { .param = param };
	int ret = npu_ioctl(fd, DRM_IOCTL_NPU_GET_PARAM, &p);

	*value = p.value;
	return ret;
}

static inline uint64_t npu_param_or_die(int fd, uint32_t param)
{
	uint64_t v = 0;

	if (npu_param(fd, param, &v))
		abort();
	return v;
}

/* Opens the n-th bound card and maps its fence area. */
static inline int npu_card_open(struct npu_card *card, int n)
{
	struct npu_pci devs[NPU_MAX_DEVS];
	int i, ndevs = npu_list_pci(devs, NPU_MAX_DEVS);
	char path[64];
	uint64_t off;

	for (i = 0; i < ndevs; i++) {
		if (!devs[i].bound || n--)
			continue;
		memcpy(card->bdf, devs[i].bdf, sizeof(card->bdf));
		if (npu_accel_name(card->bdf, card->accel, sizeof(card->accel)))
			return -ENOENT;
		snprintf(path, sizeof(path), "/dev/accel/%s", card->accel);
		card->fd = open(path, O_RDWR | O_CLOEXEC);
		if (card->fd < 0)
			return -errno;
		card->fence_size = npu_param_or_die(card->fd, DRM_NPU_PARAM_FENCE_SIZE);
		off = npu_param_or_die(card->fd, DRM_NPU_PARAM_FENCE_MMAP_OFFSET);
		card->fence = mmap(NULL, card->fence_size, PROT_READ, MAP_SHARED,
				   card->fd, off);
		if (card->fence == MAP_FAILED)
			return -errno;
		return 0;
	}
	return -ENODEV;
}

static inline void npu_card_close(struct npu_card *card)
{
	if (card->fence && card->fence != MAP_FAILED)
		munmap(card->fence, card->fence_size);
	if (card->fd >= 0)
		close(card->fd);
	card->fd = -1;
	card->fence = NULL;
}

static inline int npu_bo_new(int fd, uint64_t size, uint32_t flags,
			     struct drm_npu_bo_create *bo)
{
	memset(bo, 0, sizeof(*bo));
	bo->size = size;
	bo->flags = flags;
	return npu_ioctl(fd, DRM_IOCTL_NPU_BO_CREATE, bo);
}

static inline int npu_bo_close(int fd, uint32_t handle)
{
	struct drm_gem_close c = { .handle = handle };

	return npu_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &c);
}

static inline int npu_stream_new(int fd, uint32_t priority, uint32_t entries,
				 struct drm_npu_stream_create *s)
{
	memset(s, 0, sizeof(*s));
	s->priority = priority;
	s->ring_entries = entries;
	return npu_ioctl(fd, DRM_IOCTL_NPU_STREAM_CREATE, s);
}

static inline int npu_stream_del(int fd, uint32_t id, uint32_t flags)
{
	struct drm_npu_stream_destroy d = { .id = id, .flags = flags };

	return npu_ioctl(fd, DRM_IOCTL_NPU_STREAM_DESTROY, &d);
}

static inline int npu_submit(int fd, uint32_t stream, const struct drm_npu_cmd *cmds,
			     uint32_t count, uint32_t flags, uint64_t *seqno)
{
	struct drm_npu_submit s = {
		.stream = stream, .flags = flags, .cmds = (uintptr_t)cmds,
		.count = count, .cmd_size = sizeof(*cmds),
	};
	int ret = npu_ioctl(fd, DRM_IOCTL_NPU_SUBMIT, &s);

	if (seqno)
		*seqno = s.seqno;
	return ret;
}

static inline int64_t npu_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline int npu_wait(int fd, uint32_t slot, uint64_t value, int64_t timeout_ms)
{
	struct drm_npu_wait w = {
		.slot = slot, .value = value,
		.timeout_ns = timeout_ms < 0 ? DRM_NPU_WAIT_FOREVER :
			      npu_now_ns() + timeout_ms * 1000000LL,
	};

	return npu_ioctl(fd, DRM_IOCTL_NPU_WAIT, &w);
}

static inline int npu_slot_new(int fd, uint32_t *slot)
{
	struct drm_npu_slot s = { 0 };
	int ret = npu_ioctl(fd, DRM_IOCTL_NPU_SLOT_ALLOC, &s);

	*slot = s.slot;
	return ret;
}

static inline int npu_slot_op(int fd, unsigned long cmd, uint32_t slot, uint64_t value)
{
	struct drm_npu_slot s = { .slot = slot, .value = value };

	return npu_ioctl(fd, cmd, &s);
}

static inline struct drm_npu_cmd npu_cmd_copy(uint64_t dst, uint64_t src, uint64_t size,
					       uint32_t flags)
{
	return (struct drm_npu_cmd){ .op = DRM_NPU_OP_COPY, .flags = flags,
				     .dst = dst, .src = src, .size = size };
}

static inline struct drm_npu_cmd npu_cmd_fill(uint64_t dst, uint8_t byte, uint64_t size,
					       uint32_t flags)
{
	return (struct drm_npu_cmd){ .op = DRM_NPU_OP_FILL, .flags = flags,
				     .dst = dst, .value = byte, .size = size };
}

/* Submits one command and waits for it; returns 0 or -errno. */
static inline int npu_run(struct npu_card *card, struct drm_npu_stream_create *s,
			  struct drm_npu_cmd cmd)
{
	uint64_t seq;
	int ret = npu_submit(card->fd, s->id, &cmd, 1, 0, &seq);

	return ret ?: npu_wait(card->fd, s->slot, seq, 20000);
}

static inline void npu_fill_random(void *buf, size_t len, unsigned int seed)
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

/* Reads streams/<ring>/<key> of a card: its number, and its text if @text. */
static inline long long npu_stream_sysfs(const char *bdf, unsigned int ring,
					 const char *key, char *text, size_t len)
{
	char path[PATH_MAX], buf[128];

	snprintf(path, sizeof(path), PCI_DEVICES "/%s/streams/%u/%s", bdf, ring, key);
	if (text_read(path, buf, sizeof(buf)))
		return -1;
	if (text) {
		size_t n = strnlen(buf, len - 1);

		memcpy(text, buf, n);
		text[n] = 0;
	}
	return strtoll(buf, NULL, 10);
}

/* Finds the ring of this process's stream @id in sysfs; -1 if none. */
static inline int npu_stream_ring(const char *bdf, uint32_t id)
{
	char path[PATH_MAX];
	struct dirent *de;
	int ring = -1;
	DIR *dir;

	snprintf(path, sizeof(path), PCI_DEVICES "/%s/streams", bdf);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((de = readdir(dir)) && ring < 0) {
		unsigned int r;

		if (sscanf(de->d_name, "%u", &r) != 1)
			continue;
		if (npu_stream_sysfs(bdf, r, "pid", NULL, 0) == getpid() &&
		    npu_stream_sysfs(bdf, r, "id", NULL, 0) == id)
			ring = r;
	}
	closedir(dir);
	return ring;
}

static inline int npu_inject(const char *bdf, const char *what)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/sys/kernel/debug/accel/%s/fault", bdf);
	return text_write(path, what);
}

/* What a card's users hold: it must come back when they are gone. */
struct npu_baseline {
	unsigned long long devmem, rings, pinned;
};

static inline struct npu_baseline npu_read_baseline(const char *bdf)
{
	return (struct npu_baseline){
		.devmem = npu_card_attr(bdf, "devmem_used"),
		.rings = npu_card_attr(bdf, "rings_used"),
		.pinned = npu_card_attr(bdf, "pinned_pages"),
	};
}

/*
 * Waits up to 10 s for a card to be back at @before (a dead process's file
 * may be released a moment after waitpid) and returns the last reading.
 */
static inline struct npu_baseline npu_settled_baseline(const char *bdf,
						       const struct npu_baseline *before)
{
	struct npu_baseline now;
	int tries;

	for (tries = 0; tries < 500; tries++) {
		now = npu_read_baseline(bdf);
		if (!memcmp(&now, before, sizeof(now)))
			break;
		usleep(20 * 1000);
	}
	return now;
}

#endif /* NPU_UAPI_TEST_H */
