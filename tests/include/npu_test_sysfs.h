/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * The card and its driver as the driver's and the library's tests see them
 * from outside, independently of the driver's ioctls: PCI functions and
 * their BAR2 through sysfs, the card's and its streams' sysfs files, the
 * driver's parameters, binding, and fault injection through debugfs.
 *
 * Shared helpers of the kselftest suites start with test_; the driver owns
 * npu_.
 */
#ifndef NPU_TEST_SYSFS_H
#define NPU_TEST_SYSFS_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "npu_hw.h"
#include "npu_test_wait.h"
#include "text_file.h"

/* In the kselftest suites, not in tools that share the helpers. */
#ifdef __KSELFTEST_HARNESS_H
#include "npu_test_timeout.h"
#endif

#define TEST_PCI_DEVICES	"/sys/bus/pci/devices"
#define TEST_DRIVER_DIR		"/sys/bus/pci/drivers/npu"
#define TEST_DRIVER_PARAMS	"/sys/module/npu/parameters"
#define TEST_DEBUGFS		"/sys/kernel/debug/accel"
#define TEST_MAX_DEVS		16

struct test_pci {
	char bdf[32];
	bool is_card;		/* BAR2 carries the card's magic */
	bool bound;		/* the npu driver drives it */
};

/* Copies a directory entry name; false when it does not fit. */
static inline bool test_copy_name(char *dst, size_t len, const char *name)
{
	size_t n = strlen(name);

	if (n >= len)
		return false;
	memcpy(dst, name, n + 1);
	return true;
}

static inline int test_pci_attr(const char *bdf, const char *attr, char *buf,
				size_t len)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), TEST_PCI_DEVICES "/%s/%s", bdf, attr);
	return text_read(path, buf, len);
}

static inline unsigned long long test_card_attr(const char *bdf, const char *attr)
{
	char name[128], buf[64];

	snprintf(name, sizeof(name), "npu/%s", attr);
	if (test_pci_attr(bdf, name, buf, sizeof(buf)))
		return ~0ULL;
	return strtoull(buf, NULL, 0);
}

/* Maps the first page of BAR2; the caller unmaps NPU_REG_WINDOW_SIZE bytes. */
static inline volatile uint8_t *test_map_bar2(const char *bdf)
{
	char path[PATH_MAX];
	void *p;
	int fd;

	snprintf(path, sizeof(path), TEST_PCI_DEVICES "/%s/resource2", bdf);
	fd = open(path, O_RDWR | O_SYNC);
	if (fd < 0)
		return NULL;
	p = mmap(NULL, NPU_REG_WINDOW_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

static inline uint32_t test_bar_rd32(volatile uint8_t *bar, uint32_t reg)
{
	return *(volatile uint32_t *)(bar + reg);
}

static inline uint64_t test_bar_rd64(volatile uint8_t *bar, uint32_t reg)
{
	return *(volatile uint64_t *)(bar + reg);
}

static inline bool test_pci_is_bound(const char *bdf)
{
	char path[PATH_MAX], link[256];
	ssize_t n;

	snprintf(path, sizeof(path), TEST_PCI_DEVICES "/%s/driver", bdf);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return false;
	link[n] = 0;
	return !strcmp(strrchr(link, '/') + 1, "npu");
}

/*
 * Reads the magic of a function no driver holds, with memory decoding on.
 * (A claimed BAR cannot be mapped from userspace: CONFIG_IO_STRICT_DEVMEM.)
 */
static inline bool test_pci_has_magic(const char *bdf)
{
	char path[PATH_MAX], enabled[8] = "";
	volatile uint8_t *bar;
	bool magic = false;

	snprintf(path, sizeof(path), TEST_PCI_DEVICES "/%s/enable", bdf);
	text_read(path, enabled, sizeof(enabled));
	if (strcmp(enabled, "1"))
		text_write(path, "1");
	bar = test_map_bar2(bdf);
	if (bar) {
		magic = test_bar_rd32(bar, NPU_ID_MAGIC) == NPU_MAGIC;
		munmap((void *)bar, NPU_REG_WINDOW_SIZE);
	}
	if (strcmp(enabled, "1"))
		text_write(path, "0");
	return magic;
}

/* Lists the functions with the card's PCI ID: cards and foreign ones. */
static inline int test_list_pci(struct test_pci *devs, int max)
{
	struct dirent *de;
	int n = 0;
	DIR *dir = opendir(TEST_PCI_DEVICES);

	if (!dir)
		return -errno;
	while ((de = readdir(dir)) && n < max) {
		char vendor[16], device[16];

		if (de->d_name[0] == '.' ||
		    test_pci_attr(de->d_name, "vendor", vendor, sizeof(vendor)) ||
		    test_pci_attr(de->d_name, "device", device, sizeof(device)))
			continue;
		if (strtoul(vendor, NULL, 16) != NPU_PCI_VENDOR_ID ||
		    strtoul(device, NULL, 16) != NPU_PCI_DEVICE_ID)
			continue;
		if (!test_copy_name(devs[n].bdf, sizeof(devs[n].bdf), de->d_name))
			continue;
		devs[n].bound = test_pci_is_bound(de->d_name);
		devs[n].is_card = devs[n].bound || test_pci_has_magic(de->d_name);
		n++;
	}
	closedir(dir);
	return n;
}

/* Finds the accel node name ("accel0") of a bound card. */
static inline int test_accel_name(const char *bdf, char *name, size_t len)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *dir;
	int ret = -ENOENT;

	snprintf(path, sizeof(path), TEST_PCI_DEVICES "/%s/accel", bdf);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		if (!strncmp(de->d_name, "accel", 5) &&
		    test_copy_name(name, len, de->d_name)) {
			ret = 0;
			break;
		}
	}
	closedir(dir);
	return ret;
}

/* A count the environment promises (NPU_EXPECT_CARDS, ...); -1 if unset. */
static inline int test_expected(const char *env)
{
	const char *v = getenv(env);

	return v ? atoi(v) : -1;
}

/* Binds the npu driver to a PCI function, or unbinds it; 0 or -errno. */
static inline int test_driver_bind(const char *bdf)
{
	return text_write(TEST_DRIVER_DIR "/bind", bdf);
}

static inline int test_driver_unbind(const char *bdf)
{
	return text_write(TEST_DRIVER_DIR "/unbind", bdf);
}

/* The card's heartbeat has stopped and the driver gave it up (debugfs). */
static inline bool test_card_dead(const char *bdf)
{
	char path[PATH_MAX], head[256];
	FILE *f;
	bool dead;

	snprintf(path, sizeof(path), TEST_DEBUGFS "/%s/rings", bdf);
	f = fopen(path, "r");
	if (!f)
		return false;
	dead = fgets(head, sizeof(head), f) && strstr(head, " DEAD");
	fclose(f);
	return dead;
}

/* The card's accel node is there and its heartbeat moves. */
static inline bool test_card_alive(const char *bdf)
{
	unsigned long long beat = test_card_attr(bdf, "heartbeat");
	char name[32], node[64];

	if (beat == ~0ULL || test_accel_name(bdf, name, sizeof(name)))
		return false;
	snprintf(node, sizeof(node), "/dev/accel/%s", name);
	return access(node, F_OK) == 0 &&
	       test_wait_until(test_card_attr(bdf, "heartbeat") != beat,
			       TEST_SETTLE_MS);
}

/*
 * Unbinds the driver from a card, if bound, and binds it again, which
 * resets the card; 0 once the card is back and alive, or -errno.
 */
static inline int test_rebind(const char *bdf)
{
	int ret;

	if (test_pci_is_bound(bdf)) {
		ret = test_driver_unbind(bdf);
		if (ret)
			return ret;
	}
	ret = test_driver_bind(bdf);
	if (ret)
		return ret;
	return test_card_alive(bdf) ? 0 : -ETIMEDOUT;
}

/*
 * For a suite's teardown: a card the suite may have killed or unbound is
 * brought back, so that the suites after it find it as it was.
 */
static inline int test_card_revive(const char *bdf)
{
	if (test_pci_is_bound(bdf) && !test_card_dead(bdf))
		return 0;
	return test_rebind(bdf);
}

/* A parameter of the npu module (hang_timeout_ms, ...); -1 if unreadable. */
static inline long test_driver_param(const char *name)
{
	char path[PATH_MAX], buf[64];

	snprintf(path, sizeof(path), TEST_DRIVER_PARAMS "/%s", name);
	if (text_read(path, buf, sizeof(buf)))
		return -1;
	return strtol(buf, NULL, 10);
}

static inline int test_set_driver_param(const char *name, long value)
{
	char path[PATH_MAX], buf[64];

	snprintf(path, sizeof(path), TEST_DRIVER_PARAMS "/%s", name);
	snprintf(buf, sizeof(buf), "%ld", value);
	return text_write(path, buf);
}

/* Reads streams/<ring>/<key> of a card: its number, and its text if @text. */
static inline long long test_stream_attr(const char *bdf, unsigned int ring,
					 const char *key, char *text, size_t len)
{
	char path[PATH_MAX], buf[128];

	snprintf(path, sizeof(path), TEST_PCI_DEVICES "/%s/streams/%u/%s", bdf,
		 ring, key);
	if (text_read(path, buf, sizeof(buf)))
		return -1;
	if (text) {
		size_t n = strnlen(buf, len - 1);

		memcpy(text, buf, n);
		text[n] = 0;
	}
	return strtoll(buf, NULL, 10);
}

/*
 * Rings of the card that streams of this process run on; returns how many
 * (at most @max), or -1 if the card has no streams directory.
 */
static inline int test_own_rings(const char *bdf, int *rings, int max)
{
	char path[PATH_MAX];
	struct dirent *de;
	int n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), TEST_PCI_DEVICES "/%s/streams", bdf);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((de = readdir(dir)) && n < max) {
		unsigned int r;

		if (sscanf(de->d_name, "%u", &r) != 1)
			continue;
		if (test_stream_attr(bdf, r, "pid", NULL, 0) == getpid())
			rings[n++] = r;
	}
	closedir(dir);
	return n;
}

/* Finds the ring of this process's stream @id in sysfs; -1 if none. */
static inline int test_stream_ring(const char *bdf, uint32_t id)
{
	char path[PATH_MAX];
	struct dirent *de;
	int ring = -1;
	DIR *dir;

	snprintf(path, sizeof(path), TEST_PCI_DEVICES "/%s/streams", bdf);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((de = readdir(dir)) && ring < 0) {
		unsigned int r;

		if (sscanf(de->d_name, "%u", &r) != 1)
			continue;
		if (test_stream_attr(bdf, r, "pid", NULL, 0) == getpid() &&
		    test_stream_attr(bdf, r, "id", NULL, 0) == id)
			ring = r;
	}
	closedir(dir);
	return ring;
}

/* Arms a fault of the card: "hang 3", "delay 3 50000", "clear 3", ... */
static inline int test_inject(const char *bdf, const char *what)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), TEST_DEBUGFS "/%s/fault", bdf);
	return text_write(path, what);
}

/*
 * Clears the faults armed on every ring of a card: a ring's fault outlives
 * its stream and even a reset, and would slow or fail the next suite's.
 */
static inline void test_clear_faults(const char *bdf)
{
	long long ring, rings = (long long)test_card_attr(bdf, "num_rings");
	char what[32];

	for (ring = 0; ring < rings; ring++) {
		snprintf(what, sizeof(what), "clear %lld", ring);
		test_inject(bdf, what);
	}
}

/* debugfs is mounted and we may write the card's fault file. */
static inline bool test_can_inject(const char *bdf)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), TEST_DEBUGFS "/%s/fault", bdf);
	return access(path, W_OK) == 0;
}

/* What a card's users hold: it must come back when they are gone. */
struct test_baseline {
	unsigned long long devmem, rings, pinned;
};

static inline struct test_baseline test_read_baseline(const char *bdf)
{
	return (struct test_baseline){
		.devmem = test_card_attr(bdf, "devmem_used"),
		.rings = test_card_attr(bdf, "rings_used"),
		.pinned = test_card_attr(bdf, "pinned_pages"),
	};
}

/*
 * Waits up to 10 s for a card to be back at @before (a dead process's file
 * may be released a moment after waitpid) and returns the last reading.
 */
static inline struct test_baseline
test_settled_baseline(const char *bdf, const struct test_baseline *before)
{
	struct test_baseline now;

	test_wait_until((now = test_read_baseline(bdf),
			 !memcmp(&now, before, sizeof(now))), TEST_SETTLE_MS);
	return now;
}

/* The number after "key:" in the fdinfo of fd, -1 without it. */
static inline long long test_fdinfo_value(int fd, const char *key)
{
	char path[64], buf[4096], *p;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	if (text_read(path, buf, sizeof(buf)))
		return -1;
	p = strstr(buf, key);
	if (!p || p[strlen(key)] != ':')
		return -1;
	return strtoll(p + strlen(key) + 1, NULL, 10);
}

#endif /* NPU_TEST_SYSFS_H */
