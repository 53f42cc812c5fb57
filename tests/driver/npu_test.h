/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the driver tests: finding cards through sysfs and
 * reading their registers through the PCI resource files, independently of
 * the driver.
 */
#ifndef NPU_TEST_H
#define NPU_TEST_H

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
#include "text_file.h"

#define PCI_DEVICES	"/sys/bus/pci/devices"
#define NPU_DRIVER_DIR	"/sys/bus/pci/drivers/npu"
#define NPU_MAX_DEVS	16

struct npu_pci {
	char bdf[32];
	bool is_card;		/* BAR2 carries the card's magic */
	bool bound;		/* the npu driver drives it */
};

/* Copies a directory entry name; false when it does not fit. */
static inline bool npu_copy_name(char *dst, size_t len, const char *name)
{
	size_t n = strlen(name);

	if (n >= len)
		return false;
	memcpy(dst, name, n + 1);
	return true;
}

static inline int npu_pci_attr(const char *bdf, const char *attr, char *buf,
			       size_t len)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), PCI_DEVICES "/%s/%s", bdf, attr);
	return text_read(path, buf, len);
}

static inline unsigned long long npu_card_attr(const char *bdf, const char *attr)
{
	char name[128], buf[64];

	snprintf(name, sizeof(name), "npu/%s", attr);
	if (npu_pci_attr(bdf, name, buf, sizeof(buf)))
		return ~0ULL;
	return strtoull(buf, NULL, 0);
}

/* Maps the first page of BAR2; the caller unmaps NPU_REG_WINDOW_SIZE bytes. */
static inline volatile uint8_t *npu_map_bar2(const char *bdf)
{
	char path[PATH_MAX];
	void *p;
	int fd;

	snprintf(path, sizeof(path), PCI_DEVICES "/%s/resource2", bdf);
	fd = open(path, O_RDWR | O_SYNC);
	if (fd < 0)
		return NULL;
	p = mmap(NULL, NPU_REG_WINDOW_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

static inline uint32_t npu_bar_rd32(volatile uint8_t *bar, uint32_t reg)
{
	return *(volatile uint32_t *)(bar + reg);
}

static inline uint64_t npu_bar_rd64(volatile uint8_t *bar, uint32_t reg)
{
	return *(volatile uint64_t *)(bar + reg);
}

static inline bool npu_pci_is_bound(const char *bdf)
{
	char path[PATH_MAX], link[256];
	ssize_t n;

	snprintf(path, sizeof(path), PCI_DEVICES "/%s/driver", bdf);
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
static inline bool npu_pci_has_magic(const char *bdf)
{
	char path[PATH_MAX], enabled[8] = "";
	volatile uint8_t *bar;
	bool magic = false;

	snprintf(path, sizeof(path), PCI_DEVICES "/%s/enable", bdf);
	text_read(path, enabled, sizeof(enabled));
	if (strcmp(enabled, "1"))
		text_write(path, "1");
	bar = npu_map_bar2(bdf);
	if (bar) {
		magic = npu_bar_rd32(bar, NPU_ID_MAGIC) == NPU_MAGIC;
		munmap((void *)bar, NPU_REG_WINDOW_SIZE);
	}
	if (strcmp(enabled, "1"))
		text_write(path, "0");
	return magic;
}

/* Lists the functions with the card's PCI ID: cards and foreign ones. */
static inline int npu_list_pci(struct npu_pci *devs, int max)
{
	struct dirent *de;
	int n = 0;
	DIR *dir = opendir(PCI_DEVICES);

	if (!dir)
		return -errno;
	while ((de = readdir(dir)) && n < max) {
		char vendor[16], device[16];

		if (de->d_name[0] == '.' ||
		    npu_pci_attr(de->d_name, "vendor", vendor, sizeof(vendor)) ||
		    npu_pci_attr(de->d_name, "device", device, sizeof(device)))
			continue;
		if (strtoul(vendor, NULL, 16) != NPU_PCI_VENDOR_ID ||
		    strtoul(device, NULL, 16) != NPU_PCI_DEVICE_ID)
			continue;
		if (!npu_copy_name(devs[n].bdf, sizeof(devs[n].bdf), de->d_name))
			continue;
		devs[n].bound = npu_pci_is_bound(de->d_name);
		devs[n].is_card = devs[n].bound || npu_pci_has_magic(de->d_name);
		n++;
	}
	closedir(dir);
	return n;
}

/* Finds the accel node name ("accel0") of a bound card. */
static inline int npu_accel_name(const char *bdf, char *name, size_t len)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *dir;
	int ret = -ENOENT;

	snprintf(path, sizeof(path), PCI_DEVICES "/%s/accel", bdf);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		if (!strncmp(de->d_name, "accel", 5) &&
		    npu_copy_name(name, len, de->d_name)) {
			ret = 0;
			break;
		}
	}
	closedir(dir);
	return ret;
}

static inline int npu_expected(const char *env)
{
	const char *v = getenv(env);

	return v ? atoi(v) : -1;
}

#endif /* NPU_TEST_H */
