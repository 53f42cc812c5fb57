// SPDX-License-Identifier: MIT
/*
 * npu-smi info: the vendor's table, column for column, so that scripts
 * written for it read ours (ggml's CANN build takes the chip name from
 * line 7, field 3); and npu-smi info watch.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npu_smi.h"

#define RULE_TOP "+------------------------------------------------------------------------------------------------+"
#define RULE_COLS "+---------------------------+---------------+----------------------------------------------------+"
#define RULE_BOLD "+===========================+===============+====================================================+"

static void card_rows(const struct smi_card *card)
{
	char power[16], temp[16], health[32], aicore[16], bus[32];
	char used_s[24] = SMI_NA, total_s[24] = SMI_NA;
	uint64_t used, total;

	smi_power_w(card, power, sizeof(power));
	smi_temp_c(card, temp, sizeof(temp));
	smi_health(card, health, sizeof(health));
	smi_percent(card, "util_compute", aicore, sizeof(aicore));
	smi_bus_id(card, bus, sizeof(bus));
	if (smi_hbm_mb(card, &used, &total)) {
		snprintf(used_s, sizeof(used_s), "%llu", (unsigned long long)used);
		snprintf(total_s, sizeof(total_s), "%llu", (unsigned long long)total);
	}
	/* The card has neither huge pages nor DDR apart from its HBM: 0 / 0. */
	printf("| %-5d %-20s| %-14s| %-12s%-18s%-5s/ %-14s|\n",
	       card->id, smi_chip_name(), health, power, temp, "0", "0");
	printf("| %-26d| %-14s| %-12s%-5s/ %-11s%-5s/ %-14s|\n",
	       0, bus, aicore, "0", "0", used_s, total_s);
	puts(RULE_BOLD);
}

static void process_rows(const struct smi_card *card, const struct smi_proc *procs, int n)
{
	bool any = false;
	char line[128];
	int i;

	for (i = 0; i < n; i++) {
		if (procs[i].card != card->id)
			continue;
		printf("| %-7d %-17d | %-13d | %-24.24s | %-23llu |\n", card->id, 0,
		       procs[i].pid, procs[i].name,
		       (unsigned long long)(procs[i].device_kib >> 10));
		any = true;
	}
	if (!any) {
		snprintf(line, sizeof(line), "No running processes found in NPU %d", card->id);
		printf("| %-95s|\n", line);
	}
	puts(RULE_BOLD);
}

int smi_info_table(void)
{
	static struct smi_card cards[SMI_MAX_CARDS];
	static struct smi_proc procs[SMI_MAX_PROCS];
	int n = smi_cards(cards, SMI_MAX_CARDS), np, i;

	if (!n)
		return smi_fail("no NPU card found (is the npu module loaded?)");
	np = smi_procs(cards, n, procs, SMI_MAX_PROCS);
	puts(RULE_TOP);
	printf("| npu-smi %-25sVersion: %-53s|\n", smi_version, smi_version);
	puts(RULE_COLS);
	puts("| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|");
	puts("| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |");
	puts(RULE_BOLD);
	for (i = 0; i < n; i++)
		card_rows(&cards[i]);
	puts(RULE_COLS);
	puts("| NPU     Chip              | Process id    | Process name             | Process memory(MB)      |");
	puts(RULE_BOLD);
	for (i = 0; i < n; i++)
		process_rows(&cards[i], procs, np);
	return 0;
}

/* The vendor's watch columns, in its order, each picked by its letter. */
struct watch_col {
	char letter;
	const char *title;
	int width;
	void (*value)(const struct smi_card *card, char *buf, size_t len);
};

static void watch_na(const struct smi_card *card, char *buf, size_t len)
{
	(void)card;
	snprintf(buf, len, SMI_NA);
}

static void watch_compute(const struct smi_card *card, char *buf, size_t len)
{
	smi_percent(card, "util_compute", buf, len);
}

static void watch_copy(const struct smi_card *card, char *buf, size_t len)
{
	smi_percent(card, "util_copy", buf, len);
}

static void watch_memory(const struct smi_card *card, char *buf, size_t len)
{
	uint64_t used, total;

	if (smi_hbm_mb(card, &used, &total) && total)
		snprintf(buf, len, "%llu", (unsigned long long)(used * 100 / total));
	else
		snprintf(buf, len, SMI_NA);
}

static const struct watch_col watch_cols[] = {
	{ 'p', "Pwr(W)", 12, smi_power_w },
	{ 't', "Temp(C)", 12, smi_temp_c },
	{ 'a', "AI Core(%)", 12, watch_compute },
	{ 'i', "AI Cpu(%)", 12, watch_na },
	{ 'c', "Ctrl Cpu(%)", 12, watch_na },
	{ 'm', "Memory(%)", 12, watch_memory },
	{ 'b', "Memory BW(%)", 15, watch_copy },
	{ 'n', "NPU Util(%)", 15, watch_compute },
	{ 'u', "AI Cube(%)", 12, watch_na },
};
#define WATCH_COLS (sizeof(watch_cols) / sizeof(watch_cols[0]))

static void watch_line(const char *cells[], const bool *shown)
{
	char line[256];
	size_t i, at;

	at = (size_t)snprintf(line, sizeof(line), "%-12s", cells[WATCH_COLS]);
	for (i = 0; i < WATCH_COLS; i++)
		if (shown[i])
			at += (size_t)snprintf(line + at, sizeof(line) - at, "%-*s",
					       watch_cols[i].width, cells[i]);
	while (at && line[at - 1] == ' ')
		line[--at] = 0;
	puts(line);
}

static void watch_round(const struct smi_card *cards, int n, int only, const bool *shown)
{
	char values[WATCH_COLS][24], id[16];
	const char *cells[WATCH_COLS + 1];
	size_t c;
	int i;

	for (i = 0; i < n; i++) {
		if (only >= 0 && i != only)
			continue;
		for (c = 0; c < WATCH_COLS; c++) {
			if (shown[c])
				watch_cols[c].value(&cards[i], values[c], sizeof(values[c]));
			cells[c] = values[c];
		}
		snprintf(id, sizeof(id), "%d", cards[i].id);
		cells[WATCH_COLS] = id;
		watch_line(cells, shown);
	}
	fflush(stdout);
}

/* npu-smi info watch [-i dev_id] [-d delay_seconds] [-s watch_type] */
int smi_info_watch(int argc, char **argv)
{
	static struct smi_card cards[SMI_MAX_CARDS];
	const char *cells[WATCH_COLS + 1], *types = NULL, *dev = NULL;
	bool shown[WATCH_COLS];
	int n, only = -1, delay = 1, opt;
	char *end;
	size_t c;

	optind = 1;
	while ((opt = getopt(argc, argv, "i:d:s:")) != -1) {
		switch (opt) {
		case 'i': dev = optarg; break;
		case 'd':
			delay = (int)strtol(optarg, &end, 10);
			if (*end || delay < 1 || delay > 100)
				return smi_fail("-d takes a delay of 1 to 100 seconds, not %s", optarg);
			break;
		case 's': types = optarg; break;
		default:
			return smi_fail("usage: npu-smi info watch [-i dev_id] [-d delay_seconds] [-s ptaicmbnu]");
		}
	}
	n = smi_cards(cards, SMI_MAX_CARDS);
	if (!n)
		return smi_fail("no NPU card found (is the npu module loaded?)");
	if (dev && (only = smi_card_arg(cards, n, dev)) < 0)
		return -1;
	for (c = 0; c < WATCH_COLS; c++)
		shown[c] = !types || strchr(types, watch_cols[c].letter);
	for (end = (char *)types; types && *end; end++) {
		for (c = 0; c < WATCH_COLS && watch_cols[c].letter != *end; c++)
			;
		if (c == WATCH_COLS)
			return smi_fail("-s: unknown watch type '%c' (ptaicmbnu)", *end);
	}
	for (c = 0; c < WATCH_COLS; c++)
		cells[c] = watch_cols[c].title;
	cells[WATCH_COLS] = "NpuID(Idx)";
	watch_line(cells, shown);
	for (;;) {
		watch_round(cards, n, only, shown);
		sleep((unsigned int)delay);
	}
}
