/* SPDX-License-Identifier: MIT */
/*
 * npu-smi: the vendor's command line over what the npu driver exposes in
 * sysfs, hwmon and /proc (docs/ABI/sysfs-driver-npu, docs/driver.md
 * "Usage in fdinfo"); it opens no card.
 */
#ifndef NPU_SMI_H
#define NPU_SMI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define SMI_MAX_CARDS	64
#define SMI_MAX_PROCS	256
/* What the vendor prints for a value this card or driver does not have. */
#define SMI_NA		"NA"
/* The vendor indents its settings' key : value replies by a tab. */
#define IND_SET		"\t"

struct smi_card {
	int id;			/* the NPU ID: libascendcl's device id */
	unsigned int minor;	/* /dev/accel/accel<minor> */
	char bdf[32];		/* PCI address, as sysfs spells it */
	char dev[128];		/* /sys/bus/pci/devices/<bdf> */
	char hwmon[160];	/* its hwmon directory named "npu", or "" */
};

struct smi_proc {
	int pid;
	int card;		/* index into the card list */
	char name[64];
	uint64_t device_kib;	/* drm-total-device over its contexts */
};

/* cards.c */
int smi_cards(struct smi_card *cards, int max);
bool smi_read(const char *dir, const char *file, char *buf, size_t len);
bool smi_read_u64(const char *dir, const char *file, uint64_t *value);
const char *smi_chip_name(void);
void smi_bus_id(const struct smi_card *card, char *buf, size_t len);
int smi_card_arg(const struct smi_card *cards, int n, const char *arg);

/* procs.c */
int smi_procs(const struct smi_card *cards, int ncards, struct smi_proc *procs, int max);

/* values.c: one field each, printed into buf, SMI_NA when unknown */
void smi_power_w(const struct smi_card *card, char *buf, size_t len);
void smi_temp_c(const struct smi_card *card, char *buf, size_t len);
void smi_health(const struct smi_card *card, char *buf, size_t len);
void smi_percent(const struct smi_card *card, const char *file, char *buf, size_t len);
bool smi_hbm_mb(const struct smi_card *card, uint64_t *used, uint64_t *total);

/* table.c */
int smi_info_table(void);
int smi_info_watch(int argc, char **argv);

/* query.c */
int smi_info_list(void);
int smi_info_type(const char *type, const char *dev_arg);

/* set.c */
int smi_set(int argc, char **argv);

/* ours.c: this stack's own views */
int smi_show_cards(void);
int smi_show_streams(void);

/* main.c */
int smi_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void smi_kv(const char *indent, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
extern const char smi_version[];

#endif /* NPU_SMI_H */
