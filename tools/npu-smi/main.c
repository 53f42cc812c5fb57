// SPDX-License-Identifier: MIT
/*
 * npu-smi: the vendor's commands (info, info -l, info -t, info watch,
 * set -t reset, -v), and this stack's own (cards, streams, set -t
 * exclusive). README.md, "npu-smi", lists them.
 */
#include <stdarg.h>
#include <string.h>

#include "acl/acl_rt.h"
#include "npu_smi.h"

#define STR_(x) #x
#define STR(x) STR_(x)

/* The tool ships with the runtime: its version is the runtime's. */
const char smi_version[] = STR(ACL_MAJOR_VERSION) "." STR(ACL_MINOR_VERSION) "."
	STR(ACL_PATCH_VERSION);

int smi_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("npu-smi: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

void smi_kv(const char *indent, const char *key, const char *fmt, ...)
{
	va_list ap;

	printf("%s%-31s: ", indent, key);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static int usage(void)
{
	printf("Usage: npu-smi  [Options...]\n"
	       "npu-smi Command:\n"
	       "        -h            This command's help information\n"
	       "        --help        This command's help information\n"
	       "        -v            Show npu-smi version information\n"
	       "        info          Show hardware details\n"
	       "        set           Modify device configuration properties\n"
	       "        cards         Show the cards, one line each (this stack's view)\n"
	       "        streams       Show the live streams of every card (this stack's view)\n");
	return 0;
}

static int info_usage(void)
{
	printf("Usage: npu-smi info  [Options...]\n"
	       "Commands:\n"
	       "       watch          Show all device's status in scrolling format\n"
	       "       -h, --help     Show this help text and exit\n"
	       "       -l             Show all device's topology information\n"
	       "       -t type        Show information for type\n"
	       "                      type: board, memory, usages, temp, power, health,\n"
	       "                            proc-mem, topo, exclusive.\n"
	       "Options:\n"
	       "       -i %%d          NPU ID\n");
	return 0;
}

/* npu-smi info [-l | -t type [-i dev_id] | watch ...] */
static int info(int argc, char **argv)
{
	const char *type = NULL, *dev = NULL;
	int i;

	if (argc == 1)
		return smi_info_table();
	if (!strcmp(argv[1], "watch"))
		return smi_info_watch(argc - 1, argv + 1);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return info_usage();
		if (!strcmp(argv[i], "-l"))
			return smi_info_list();
		if (!strcmp(argv[i], "-t") && i + 1 < argc)
			type = argv[++i];
		else if (!strcmp(argv[i], "-i") && i + 1 < argc)
			dev = argv[++i];
		else
			return smi_fail("info: unknown option %s (npu-smi info -h)", argv[i]);
	}
	if (!type)
		return smi_fail("info: -t type is required with -i (npu-smi info -h)");
	return smi_info_type(type, dev);
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "-h";
	int ret;

	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help"))
		return usage();
	if (!strcmp(cmd, "-v")) {
		printf("npu-smi version: %s\n", smi_version);
		return 0;
	}
	if (!strcmp(cmd, "info"))
		ret = info(argc - 1, argv + 1);
	else if (!strcmp(cmd, "set"))
		ret = smi_set(argc - 1, argv + 1);
	else if (!strcmp(cmd, "cards"))
		ret = smi_show_cards();
	else if (!strcmp(cmd, "streams"))
		ret = smi_show_streams();
	else
		ret = smi_fail("unknown command %s (npu-smi -h)", cmd);
	return ret ? 1 : 0;
}
