// SPDX-License-Identifier: MIT
/*
 * The cards, numbered as libascendcl numbers its devices: the npu driver's
 * accel nodes in the order of their minors.
 */
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npu_smi.h"
#include "npu_soc.h"

#define SMI_ACCEL_CLASS "/sys/class/accel"

bool smi_read(const char *dir, const char *file, char *buf, size_t len)
{
	char path[PATH_MAX];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "re");
	if (!f)
		return false;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = 0;
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = 0;
	return n > 0;
}

bool smi_read_u64(const char *dir, const char *file, uint64_t *value)
{
	char buf[64], *end;

	if (!smi_read(dir, file, buf, sizeof(buf)))
		return false;
	*value = strtoull(buf, &end, 0);
	return end != buf;
}

/* The hwmon device the driver registers under the card, named "npu". */
static void find_hwmon(struct smi_card *card)
{
	char dir[PATH_MAX], name[32], sub[PATH_MAX + 256];
	struct dirent *de;
	DIR *d;

	card->hwmon[0] = 0;
	snprintf(dir, sizeof(dir), "%s/hwmon", card->dev);
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, "hwmon", 5))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
		if (smi_read(sub, "name", name, sizeof(name)) && !strcmp(name, "npu") &&
		    strlen(sub) < sizeof(card->hwmon)) {
			strcpy(card->hwmon, sub);
			break;
		}
	}
	if (d)
		closedir(d);
}

/* Fills card from accel<minor> when the npu driver drives it. */
static bool card_of_node(const char *node, struct smi_card *card)
{
	char link[PATH_MAX], target[PATH_MAX], dev[PATH_MAX], *base;
	ssize_t n;

	if (sscanf(node, "accel%u", &card->minor) != 1)
		return false;
	snprintf(link, sizeof(link), SMI_ACCEL_CLASS "/%s/device/driver", node);
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return false;
	target[n] = 0;
	base = strrchr(target, '/');
	if (strcmp(base ? base + 1 : target, "npu"))
		return false;
	snprintf(link, sizeof(link), SMI_ACCEL_CLASS "/%s/device", node);
	if (!realpath(link, dev) || strlen(dev) >= sizeof(card->dev))
		return false;
	strcpy(card->dev, dev);
	base = strrchr(dev, '/');
	snprintf(card->bdf, sizeof(card->bdf), "%.31s", base ? base + 1 : dev);
	find_hwmon(card);
	return true;
}

static int by_minor(const void *a, const void *b)
{
	const struct smi_card *x = a, *y = b;

	return (x->minor > y->minor) - (x->minor < y->minor);
}

int smi_cards(struct smi_card *cards, int max)
{
	struct dirent *de;
	int n = 0, i;
	DIR *d;

	d = opendir(SMI_ACCEL_CLASS);
	while (d && n < max && (de = readdir(d)))
		if (card_of_node(de->d_name, &cards[n]))
			n++;
	if (d)
		closedir(d);
	qsort(cards, (size_t)n, sizeof(*cards), by_minor);
	for (i = 0; i < n; i++)
		cards[i].id = i;
	return n;
}

const char *smi_chip_name(void)
{
	const char *name = NPU_SOC_NAME;
	size_t n = strlen(NPU_SOC_VENDOR_PREFIX);

	return strncmp(name, NPU_SOC_VENDOR_PREFIX, n) ? name : name + n;
}

/* The vendor prints the PCI address with upper-case hexadecimal digits. */
void smi_bus_id(const struct smi_card *card, char *buf, size_t len)
{
	size_t i;

	snprintf(buf, len, "%s", card->bdf);
	for (i = 0; buf[i]; i++)
		buf[i] = (char)toupper((unsigned char)buf[i]);
}

/* The card an -i argument names, or -1 after saying why not. */
int smi_card_arg(const struct smi_card *cards, int n, const char *arg)
{
	char *end;
	long id;

	if (!arg)
		return smi_fail("-i is required: the NPU ID (npu-smi info -l lists them)");
	id = strtol(arg, &end, 10);
	if (*arg == 0 || *end || id < 0 || id >= n)
		return smi_fail("the NPU ID %s does not exist (npu-smi info -l lists %d)", arg, n);
	(void)cards;
	return (int)id;
}
