// SPDX-License-Identifier: MIT
/*
 * This stack's own views, beside the vendor's: npu-smi cards (a line per
 * card) and npu-smi streams (a line per live stream, by process).
 */
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "npu_smi.h"

static const char *attr(const struct smi_card *c, const char *file, char *buf, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "npu/%s", file);
	if (!smi_read(c->dev, path, buf, len))
		snprintf(buf, len, "?");
	return buf;
}

int smi_show_cards(void)
{
	static struct smi_card cards[SMI_MAX_CARDS];
	char serial[32], version[16], used[16], rings[16], selftest[16], beat[32], excl[8];
	char ring_col[40], mem_col[48];
	uint64_t mem_used, mem_total;
	int n = smi_cards(cards, SMI_MAX_CARDS), i;

	if (!n)
		return smi_fail("no NPU card found (is the npu module loaded?)");
	printf("%-4s %-8s %-14s %-17s %-7s %11s %21s %-9s %-10s %s\n", "NPU", "NODE", "PCI",
	       "SERIAL", "VERSION", "RINGS USED", "MEMORY USED/TOTAL MiB", "SELFTEST", "EXCLUSIVE",
	       "HEARTBEAT");
	for (i = 0; i < n; i++) {
		const struct smi_card *c = &cards[i];
		char node[24];

		snprintf(node, sizeof(node), "accel%u", c->minor);
		snprintf(ring_col, sizeof(ring_col), "%s/%s", attr(c, "rings_used", used, sizeof(used)),
			 attr(c, "num_rings", rings, sizeof(rings)));
		if (smi_read_u64(c->dev, "npu/devmem_used", &mem_used) &&
		    smi_read_u64(c->dev, "npu/devmem_size", &mem_total))
			snprintf(mem_col, sizeof(mem_col), "%llu/%llu",
				 (unsigned long long)(mem_used >> 20),
				 (unsigned long long)(mem_total >> 20));
		else
			snprintf(mem_col, sizeof(mem_col), "?");
		printf("%-4d %-8s %-14s %-17s %-7s %11s %21s %-9s %-10s %s\n", c->id, node, c->bdf,
		       attr(c, "serial", serial, sizeof(serial)),
		       attr(c, "version", version, sizeof(version)), ring_col, mem_col,
		       attr(c, "selftest", selftest, sizeof(selftest)),
		       attr(c, "exclusive", excl, sizeof(excl)),
		       attr(c, "heartbeat", beat, sizeof(beat)));
	}
	return 0;
}

struct stream_row {
	long long pid, context, id;
	char line[400];
};

static int by_pid_context_id(const void *a, const void *b)
{
	const struct stream_row *x = a, *y = b;

	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	if (x->context != y->context)
		return (x->context > y->context) - (x->context < y->context);
	return (x->id > y->id) - (x->id < y->id);
}

/* A stream destroyed while it is read shows '?' in its fields. */
static void stream_row(const struct smi_card *c, const char *dir, struct stream_row *r)
{
	static const char *const files[] = { "pid", "context", "id", "ring", "priority",
		"submitted", "completed", "pending", "state", "bytes" };
	char v[10][32], node[24];
	size_t i;

	for (i = 0; i < 10; i++)
		if (!smi_read(dir, files[i], v[i], sizeof(v[i])))
			strcpy(v[i], "?");
	r->pid = atoll(v[0]);
	r->context = atoll(v[1]);
	r->id = atoll(v[2]);
	snprintf(node, sizeof(node), "accel%u", c->minor);
	snprintf(r->line, sizeof(r->line), "%-8s %-8s %-8s %-6s %-5s %-8s %10s %10s %8s %-9s %s",
		 node, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9]);
}

int smi_show_streams(void)
{
	static struct smi_card cards[SMI_MAX_CARDS];
	static struct stream_row rows[1024];
	int n = smi_cards(cards, SMI_MAX_CARDS), nrows = 0, i;

	if (!n)
		return smi_fail("no NPU card found (is the npu module loaded?)");
	printf("%-8s %-8s %-8s %-6s %-5s %-8s %10s %10s %8s %-9s %s\n", "NODE", "PID", "CONTEXT",
	       "STREAM", "RING", "PRIORITY", "SUBMITTED", "COMPLETED", "PENDING", "STATE", "BYTES");
	for (i = 0; i < n; i++) {
		char dir[PATH_MAX], sub[PATH_MAX + 300];
		struct dirent *de;
		DIR *d;

		snprintf(dir, sizeof(dir), "%s/streams", cards[i].dev);
		d = opendir(dir);
		while (d && nrows < (int)(sizeof(rows) / sizeof(rows[0])) && (de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
			stream_row(&cards[i], sub, &rows[nrows++]);
		}
		if (d)
			closedir(d);
	}
	qsort(rows, (size_t)nrows, sizeof(rows[0]), by_pid_context_id);
	for (i = 0; i < nrows; i++)
		puts(rows[i].line);
	return 0;
}
