// SPDX-License-Identifier: MIT
/*
 * The processes using the cards and their device memory, from the DRM
 * fdinfo keys of their open files (/proc/<pid>/fdinfo/<fd>): drm-driver
 * names the driver, drm-pdev the card, drm-client-id the context (several
 * descriptors may share one), drm-total-device its device memory.
 */
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "npu_smi.h"

struct fdinfo {
	bool npu;
	char pdev[32];
	uint64_t client_id;
	uint64_t device_kib;
};

/* "123 KiB" and the like, in KiB. */
static uint64_t parse_kib(const char *v)
{
	char *unit;
	uint64_t n = strtoull(v, &unit, 10);

	while (*unit == ' ')
		unit++;
	if (!strncmp(unit, "GiB", 3))
		return n << 20;
	if (!strncmp(unit, "MiB", 3))
		return n << 10;
	if (!strncmp(unit, "KiB", 3))
		return n;
	return n >> 10;
}

static bool read_fdinfo(const char *path, struct fdinfo *fi)
{
	char line[256];
	FILE *f = fopen(path, "re");

	if (!f)
		return false;
	memset(fi, 0, sizeof(*fi));
	while (fgets(line, sizeof(line), f)) {
		char *v = strchr(line, ':');

		if (!v)
			continue;
		*v++ = 0;
		while (isspace((unsigned char)*v))
			v++;
		v[strcspn(v, "\n")] = 0;
		if (!strcmp(line, "drm-driver"))
			fi->npu = !strcmp(v, "npu");
		else if (!strcmp(line, "drm-pdev"))
			snprintf(fi->pdev, sizeof(fi->pdev), "%s", v);
		else if (!strcmp(line, "drm-client-id"))
			fi->client_id = strtoull(v, NULL, 10);
		else if (!strcmp(line, "drm-total-device"))
			fi->device_kib = parse_kib(v);
	}
	fclose(f);
	return fi->npu && fi->pdev[0];
}

static int card_of_pdev(const struct smi_card *cards, int n, const char *pdev)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcasecmp(cards[i].bdf, pdev))
			return i;
	return -1;
}

static struct smi_proc *proc_entry(struct smi_proc *procs, int *n, int max, int pid, int card)
{
	int i;

	for (i = 0; i < *n; i++)
		if (procs[i].pid == pid && procs[i].card == card)
			return &procs[i];
	if (*n == max)
		return NULL;
	memset(&procs[*n], 0, sizeof(procs[*n]));
	procs[*n].pid = pid;
	procs[*n].card = card;
	return &procs[(*n)++];
}

/* One process's contexts, each counted once however many fds share it. */
static void scan_pid(int pid, const struct smi_card *cards, int ncards,
		     struct smi_proc *procs, int *n, int max)
{
	uint64_t seen[64];
	int nseen = 0, i;
	char dir[64], path[PATH_MAX];
	struct dirent *de;
	struct fdinfo fi;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fdinfo", pid);
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		struct smi_proc *p;
		int card;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!read_fdinfo(path, &fi) || (card = card_of_pdev(cards, ncards, fi.pdev)) < 0)
			continue;
		for (i = 0; i < nseen && seen[i] != fi.client_id; i++)
			;
		if (i < nseen)
			continue;
		if (nseen < (int)(sizeof(seen) / sizeof(seen[0])))
			seen[nseen++] = fi.client_id;
		p = proc_entry(procs, n, max, pid, card);
		if (!p)
			break;
		p->device_kib += fi.device_kib;
		snprintf(path, sizeof(path), "/proc/%d", pid);
		if (!p->name[0] && !smi_read(path, "comm", p->name, sizeof(p->name)))
			strcpy(p->name, "?");
	}
	if (d)
		closedir(d);
}

static int by_card_pid(const void *a, const void *b)
{
	const struct smi_proc *x = a, *y = b;

	if (x->card != y->card)
		return x->card - y->card;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

int smi_procs(const struct smi_card *cards, int ncards, struct smi_proc *procs, int max)
{
	struct dirent *de;
	int n = 0;
	DIR *d = opendir("/proc");

	while (d && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0)
			continue;
		scan_pid((int)pid, cards, ncards, procs, &n, max);
	}
	if (d)
		closedir(d);
	qsort(procs, (size_t)n, sizeof(*procs), by_card_pid);
	return n;
}
