// SPDX-License-Identifier: MIT
/*
 * npu-smi set: -t reset (the vendor's), -t exclusive (ours: the vendor's
 * tool has no exclusive mode), each one write to the card's sysfs file.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "npu_smi.h"

static int write_attr(const struct smi_card *card, const char *file, const char *value)
{
	char path[PATH_MAX];
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "%s/npu/%s", card->dev, file);
	/* sysfs refuses to create a file with EACCES: say it is not there. */
	if (access(path, F_OK))
		return -errno;
	f = fopen(path, "we");
	if (!f)
		return -errno;
	if (fputs(value, f) == EOF)
		err = -errno;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

static int report(int err, const char *ok, const char *why)
{
	smi_kv(IND_SET, "Status", "%s", err ? "Fail" : "OK");
	smi_kv(IND_SET, "Message", "%s", err ? why : ok);
	return err ? -1 : 0;
}

static int set_reset(const struct smi_card *card)
{
	char answer[16] = "";
	char why[160];
	int err;

	printf("Resetting the standard PCIe card or NPU chip may cause a system hang or abnormal "
	       "reset during service running.\nAre you sure you want to continue resetting?(Y/N)\n");
	fflush(stdout);
	if (!fgets(answer, sizeof(answer), stdin) || (answer[0] != 'y' && answer[0] != 'Y')) {
		printf("Cancel reset.\n");
		return -1;
	}
	smi_kv(IND_SET, "Message", "resetting ...");
	err = write_attr(card, "reset", "1");
	if (err == -ENOENT)
		snprintf(why, sizeof(why), "this driver cannot reset the card: %s/npu/reset is missing",
			 card->dev);
	else
		snprintf(why, sizeof(why), "resetting NPU %d failed: %s", card->id, strerror(-err));
	return report(err, "Reset card successfully.", why);
}

static int set_exclusive(const struct smi_card *card, const char *value)
{
	char ok[64], why[200];
	int err;

	if (!value || (strcmp(value, "0") && strcmp(value, "1")))
		return smi_fail("set -t exclusive takes -d 0 (shared) or -d 1 (one process at a time)");
	err = write_attr(card, "exclusive", value);
	if (err == -EBUSY)
		snprintf(why, sizeof(why), "NPU %d is open in two or more processes; exclusive mode "
			 "is set while one process at most holds it", card->id);
	else if (err == -ENOENT)
		snprintf(why, sizeof(why), "this driver has no exclusive mode (%s/npu/exclusive)",
			 card->dev);
	else
		snprintf(why, sizeof(why), "setting exclusive mode of NPU %d failed: %s",
			 card->id, strerror(-err));
	snprintf(ok, sizeof(ok), "exclusive mode of NPU %d set to %s", card->id, value);
	return report(err, ok, why);
}

/* npu-smi set -t reset -i dev_id [-m 1] | -t exclusive -i dev_id -d 0|1 */
int smi_set(int argc, char **argv)
{
	static struct smi_card cards[SMI_MAX_CARDS];
	const char *type = NULL, *dev = NULL, *value = NULL;
	int n, id, opt;

	optind = 1;
	while ((opt = getopt(argc, argv, "ht:i:d:m:")) != -1) {
		switch (opt) {
		case 't': type = optarg; break;
		case 'i': dev = optarg; break;
		case 'd': value = optarg; break;
		case 'm':
			if (strcmp(optarg, "1"))
				return smi_fail("-m: only 1 (in-band reset) can be given");
			break;
		case 'h':
			printf("Usage: npu-smi set  [Options...]\n"
			       "Commands:\n"
			       "       -h, --help     Show this help text and exit\n"
			       "       -t type        The set type for device\n"
			       "                      type: reset, exclusive.\n"
			       "Options:\n"
			       "       -i %%d          NPU ID\n"
			       "       -d %%d          Config value (exclusive: 0 or 1)\n"
			       "       -m             By in-band reset, only can input 1\n");
			return 0;
		default:
			return smi_fail("usage: npu-smi set -t reset|exclusive -i dev_id [-d value]");
		}
	}
	if (!type)
		return smi_fail("set: -t type is required (reset, exclusive)");
	n = smi_cards(cards, SMI_MAX_CARDS);
	id = smi_card_arg(cards, n, dev);
	if (id < 0)
		return -1;
	if (!strcmp(type, "reset"))
		return set_reset(&cards[id]);
	if (!strcmp(type, "exclusive"))
		return set_exclusive(&cards[id], value);
	return smi_fail("set -t %s: not a setting this card has (reset, exclusive)", type);
}
