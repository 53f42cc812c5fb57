// SPDX-License-Identifier: MIT
/*
 * A card's values as the vendor prints them, from the driver's files
 * (docs/ABI/sysfs-driver-npu): hwmon for power and temperature, npu/ for
 * the rest. A file this driver does not have prints SMI_NA.
 */
#include <string.h>

#include "npu_smi.h"

void smi_power_w(const struct smi_card *card, char *buf, size_t len)
{
	uint64_t uw;

	if (card->hwmon[0] && smi_read_u64(card->hwmon, "power1_input", &uw))
		snprintf(buf, len, "%.1f", (double)uw / 1e6);
	else
		snprintf(buf, len, SMI_NA);
}

void smi_temp_c(const struct smi_card *card, char *buf, size_t len)
{
	uint64_t mc;

	if (card->hwmon[0] && smi_read_u64(card->hwmon, "temp1_input", &mc))
		snprintf(buf, len, "%llu", (unsigned long long)(mc / 1000));
	else
		snprintf(buf, len, SMI_NA);
}

void smi_health(const struct smi_card *card, char *buf, size_t len)
{
	if (!smi_read(card->dev, "npu/health", buf, len))
		snprintf(buf, len, SMI_NA);
}

/* npu/<file>: a percentage. */
void smi_percent(const struct smi_card *card, const char *file, char *buf, size_t len)
{
	char path[64];
	uint64_t pct;

	snprintf(path, sizeof(path), "npu/%s", file);
	if (smi_read_u64(card->dev, path, &pct))
		snprintf(buf, len, "%llu", (unsigned long long)pct);
	else
		snprintf(buf, len, SMI_NA);
}

/* The card's device memory, the vendor's HBM, in MB (2^20 bytes). */
bool smi_hbm_mb(const struct smi_card *card, uint64_t *used, uint64_t *total)
{
	if (!smi_read_u64(card->dev, "npu/devmem_used", used) ||
	    !smi_read_u64(card->dev, "npu/devmem_size", total))
		return false;
	*used >>= 20;
	*total >>= 20;
	return true;
}
