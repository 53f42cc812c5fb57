// SPDX-License-Identifier: MIT
/*
 * npu-smi info -l and info -t <type>: the vendor's "key : value" pages
 * for the fields this card has; SMI_NA for the others.
 */
#include <dirent.h>
#include <limits.h>
#include <string.h>

#include "npu_smi.h"

/* The vendor's pages differ: some are indented by a tab, some not. */
#define IND "\t"

static struct smi_card cards[SMI_MAX_CARDS];
static int ncards;

int smi_info_list(void)
{
	char serial[32];
	int i;

	ncards = smi_cards(cards, SMI_MAX_CARDS);
	smi_kv("", "Total Count", "%d", ncards);
	for (i = 0; i < ncards; i++) {
		if (!smi_read(cards[i].dev, "npu/serial", serial, sizeof(serial)))
			strcpy(serial, SMI_NA);
		printf("\n");
		smi_kv("", "NPU ID", "%d", cards[i].id);
		smi_kv("", "Product Name", SMI_NA);
		smi_kv("", "Serial Number", "%s", serial);
	}
	return 0;
}

/* A sysfs file of the card, SMI_NA when absent. */
static const char *card_file(const struct smi_card *card, const char *file, char *buf, size_t len)
{
	if (!smi_read(card->dev, file, buf, len))
		snprintf(buf, len, SMI_NA);
	return buf;
}

/* PCI IDs as the vendor prints them: 0x19E5. */
static const char *pci_id(const struct smi_card *card, const char *file, char *buf, size_t len)
{
	uint64_t v;

	if (!smi_read_u64(card->dev, file, &v))
		snprintf(buf, len, SMI_NA);
	else
		snprintf(buf, len, "0x%04llX", (unsigned long long)v);
	return buf;
}

static void show_board(const struct smi_card *c)
{
	char b[64];

	smi_kv(IND, "NPU ID", "%d", c->id);
	smi_kv(IND, "Product Name", SMI_NA);
	smi_kv(IND, "NPU Name", SMI_NA);
	smi_kv(IND, "Chip Name", "%s", smi_chip_name());
	smi_kv(IND, "Chip Version", "%s", card_file(c, "npu/version", b, sizeof(b)));
	smi_kv(IND, "Model", SMI_NA);
	smi_kv(IND, "Manufacturer", SMI_NA);
	smi_kv(IND, "Serial Number", "%s", card_file(c, "npu/serial", b, sizeof(b)));
	smi_kv(IND, "Software Version", "%s", smi_version);
	smi_kv(IND, "Firmware Version", "%s", card_file(c, "npu/fw_version", b, sizeof(b)));
	smi_kv(IND, "Compatibility", "NOT SUPPORT");
	smi_kv(IND, "Board ID", SMI_NA);
	smi_kv(IND, "Main Board ID", SMI_NA);
	smi_kv(IND, "PCB ID", SMI_NA);
	smi_kv(IND, "BOM ID", SMI_NA);
	smi_bus_id(c, b, sizeof(b));
	smi_kv(IND, "PCIe Bus Info", "%s", b);
	smi_kv(IND, "Slot ID", SMI_NA);
	smi_kv(IND, "Class ID", SMI_NA);
	smi_kv(IND, "PCI Vendor ID", "%s", pci_id(c, "vendor", b, sizeof(b)));
	smi_kv(IND, "PCI Device ID", "%s", pci_id(c, "device", b, sizeof(b)));
	smi_kv(IND, "Subsystem Vendor ID", "%s", pci_id(c, "subsystem_vendor", b, sizeof(b)));
	smi_kv(IND, "Subsystem Device ID", "%s", pci_id(c, "subsystem_device", b, sizeof(b)));
	smi_kv(IND, "Chip Count", "1");
	smi_kv(IND, "DDie ID", SMI_NA);
	smi_kv(IND, "Chip Position ID", "0");
}

static void show_health(const struct smi_card *c)
{
	char health[32], reasons[256];

	smi_health(c, health, sizeof(health));
	smi_kv(IND, "NPU ID", "%d", c->id);
	smi_kv(IND, "Health", "%s", health);
	smi_kv(IND, "Error Code", SMI_NA);
	/* The driver says "none" where the vendor prints NA. */
	if (!smi_read(c->dev, "npu/health_reasons", reasons, sizeof(reasons)) ||
	    !strcmp(reasons, "none"))
		strcpy(reasons, SMI_NA);
	smi_kv(IND, "Error Information", "%s", reasons);
}

static void show_usages(const struct smi_card *c)
{
	char compute[16], copy[16];
	uint64_t used, total;

	smi_percent(c, "util_compute", compute, sizeof(compute));
	smi_percent(c, "util_copy", copy, sizeof(copy));
	smi_kv("", "NPU ID", "%d", c->id);
	smi_kv("", "DDR Capacity(MB)", "0");
	smi_kv("", "DDR Usage Rate(%)", "0");
	smi_kv("", "DDR Hugepages Total(page)", "0");
	smi_kv("", "DDR Hugepages Usage Rate(%)", "0");
	if (smi_hbm_mb(c, &used, &total) && total) {
		smi_kv("", "HBM Capacity(MB)", "%llu", (unsigned long long)total);
		smi_kv("", "HBM Usage Rate(%)", "%llu", (unsigned long long)(used * 100 / total));
	} else {
		smi_kv("", "HBM Capacity(MB)", SMI_NA);
		smi_kv("", "HBM Usage Rate(%)", SMI_NA);
	}
	smi_kv("", "Aicore Usage Rate(%)", "%s", compute);
	smi_kv("", "Aivector Usage Rate(%)", SMI_NA);
	smi_kv("", "Aicpu Usage Rate(%)", SMI_NA);
	smi_kv("", "Ctrlcpu Usage Rate(%)", SMI_NA);
	smi_kv("", "DDR Bandwidth Usage Rate(%)", "0");
	/* The copy engines move what crosses the card's memory. */
	smi_kv("", "HBM Bandwidth Usage Rate(%)", "%s", copy);
	smi_kv("", "NPU Utilization(%)", "%s", compute);
	smi_kv("", "Aicube Usage Rate(%)", SMI_NA);
}

static void show_memory(const struct smi_card *c)
{
	uint64_t used, total;

	smi_kv(IND, "NPU ID", "%d", c->id);
	smi_kv(IND, "DDR Capacity(MB)", "0");
	smi_kv(IND, "DDR Clock Speed(MHz)", "0");
	if (smi_hbm_mb(c, &used, &total))
		smi_kv(IND, "HBM Capacity(MB)", "%llu", (unsigned long long)total);
	else
		smi_kv(IND, "HBM Capacity(MB)", SMI_NA);
	smi_kv(IND, "HBM Clock Speed(MHz)", SMI_NA);
	smi_kv(IND, "HBM Temperature(C)", SMI_NA);
	smi_kv(IND, "HBM Manufacturer ID", SMI_NA);
}

static void show_proc_mem(const struct smi_card *c)
{
	static struct smi_proc procs[SMI_MAX_PROCS];
	int n = smi_procs(cards, ncards, procs, SMI_MAX_PROCS), i;

	smi_kv(IND, "NPU ID", "%d", c->id);
	for (i = 0; i < n; i++)
		if (procs[i].card == c->id)
			printf(IND "Process id:%-7d Process name:%-18sProcess memory(MB):%llu\n",
			       procs[i].pid, procs[i].name,
			       (unsigned long long)(procs[i].device_kib >> 10));
}

static void show_temp(const struct smi_card *c)
{
	char t[16];

	smi_temp_c(c, t, sizeof(t));
	smi_kv("", "NPU ID", "%d", c->id);
	smi_kv("", "Temperature (C)", "%s", t);
}

static void show_power(const struct smi_card *c)
{
	char p[16];

	smi_power_w(c, p, sizeof(p));
	smi_kv(IND, "NPU ID", "%d", c->id);
	smi_kv(IND, "NPU Real-time Power(W)", "%s", p);
}

/* Ours: the vendor's tool has no exclusive mode. */
static void show_exclusive(const struct smi_card *c)
{
	char b[8];

	smi_kv(IND, "NPU ID", "%d", c->id);
	smi_kv(IND, "Exclusive Mode", "%s", card_file(c, "npu/exclusive", b, sizeof(b)));
}

/*
 * How two cards reach each other: through the PCIe host bridge (PHB) when
 * both hang off the same one, a switch (PIX) when a bridge above both is
 * not a host bridge, across host bridges (SYS) otherwise.
 */
static const char *link_kind(const struct smi_card *a, const struct smi_card *b)
{
	char pa[sizeof(a->dev)], pb[sizeof(b->dev)], *up;

	strcpy(pa, a->dev);
	strcpy(pb, b->dev);
	*strrchr(pa, '/') = 0;
	*strrchr(pb, '/') = 0;
	if (strcmp(pa, pb))
		return "SYS";
	up = strrchr(pa, '/');
	return strncmp(up ? up + 1 : pa, "pci", 3) ? "PIX" : "PHB";
}

static void show_topo(void)
{
	char affinity[128];
	int i, j;

	printf("%-11s", "");
	for (i = 0; i < ncards; i++)
		printf("NPU%-8d", cards[i].id);
	printf("CPU Affinity\n");
	for (i = 0; i < ncards; i++) {
		printf("NPU%-8d", cards[i].id);
		for (j = 0; j < ncards; j++)
			printf("%-11s", i == j ? "X" : link_kind(&cards[i], &cards[j]));
		if (!smi_read(cards[i].dev, "local_cpulist", affinity, sizeof(affinity)))
			strcpy(affinity, SMI_NA);
		printf("%s\n", affinity);
	}
	printf("\nLegend:\n\n"
	       "  X    = Self\n"
	       "  SYS  = Path traversing PCIe and NUMA nodes. Nodes are connected through SMP, such as QPI, UPI.\n"
	       "  PHB  = Path traversing PCIe and the PCIe host bridge of a CPU.\n"
	       "  PIX  = Path traversing a single PCIe switch.\n"
	       "  NA   = Unknown relationship.\n");
}

static const struct {
	const char *type;
	void (*show)(const struct smi_card *c);
} types[] = {
	{ "board", show_board },
	{ "health", show_health },
	{ "usages", show_usages },
	{ "memory", show_memory },
	{ "proc-mem", show_proc_mem },
	{ "temp", show_temp },
	{ "power", show_power },
	{ "exclusive", show_exclusive },
};

int smi_info_type(const char *type, const char *dev_arg)
{
	size_t i;
	int id;

	ncards = smi_cards(cards, SMI_MAX_CARDS);
	if (!ncards)
		return smi_fail("no NPU card found (is the npu module loaded?)");
	if (!strcmp(type, "topo")) {
		show_topo();
		return 0;
	}
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		if (strcmp(type, types[i].type))
			continue;
		id = smi_card_arg(cards, ncards, dev_arg);
		if (id < 0)
			return -1;
		types[i].show(&cards[id]);
		return 0;
	}
	return smi_fail("info -t %s: not a type this card has (board, health, usages, "
			"memory, proc-mem, temp, power, topo, exclusive)", type);
}
