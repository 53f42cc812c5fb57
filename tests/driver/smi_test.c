// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu-smi (build/tools/npu-smi) against the cards and this process: the
 * vendor's table line for line (ggml's CANN build reads the chip name as
 * line 7, field 3), every card listed, this process's row with the device
 * memory it allocated, read from DRM fdinfo; info -l, info -t memory and
 * proc-mem, watch, set -t exclusive, and set -t reset without a driver
 * that resets.
 */

#include <ctype.h>
#include <signal.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "npu_soc.h"
#include "npu_test_ioctl.h"

#define SMI		"build/tools/npu-smi"
#define ALLOC_MIB	48ULL
/* The vendor's table is 98 columns wide, borders included. */
#define TABLE_WIDTH	98

FIXTURE(smi) {
	struct test_card card;
	struct drm_npu_bo_create bo;
	int npu_id;		/* card 0's NPU ID: its rank by accel minor */
	int ncards;
	char out[65536];
};

/*
 * Runs an npu-smi command line, its stdin fed with feed (when not NULL),
 * stdout and stderr into out; its exit status.
 */
static int smi_fed(char *out, size_t len, const char *feed, const char *args)
{
	char cmd[256];
	size_t n;
	FILE *p;
	int status;

	snprintf(cmd, sizeof(cmd), "echo '%s' | " SMI " %s 2>&1", feed ? feed : "", args);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	n = fread(out, 1, len - 1, p);
	out[n] = 0;
	status = pclose(p);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int smi(char *out, size_t len, const char *args)
{
	return smi_fed(out, len, NULL, args);
}

static unsigned int accel_minor(const char *accel)
{
	return (unsigned int)atoi(accel + strlen("accel"));
}

FIXTURE_SETUP(smi)
{
	struct test_pci devs[TEST_MAX_DEVS];
	int i, n = test_list_pci(devs, TEST_MAX_DEVS);
	char name[32];

	ASSERT_EQ(0, test_card_open(&self->card, 0));
	ASSERT_EQ(0, test_bo_create(self->card.fd, ALLOC_MIB << 20, 0, &self->bo));
	for (i = 0; i < n; i++) {
		if (!devs[i].bound || test_accel_name(devs[i].bdf, name, sizeof(name)))
			continue;
		self->ncards++;
		if (accel_minor(name) < accel_minor(self->card.accel))
			self->npu_id++;
	}
	if (test_expected("NPU_EXPECT_CARDS") >= 0)
		ASSERT_EQ(test_expected("NPU_EXPECT_CARDS"), self->ncards);
}

FIXTURE_TEARDOWN(smi)
{
	test_card_close(&self->card);
}

static const char *chip_name(void)
{
	const char *name = NPU_SOC_NAME;

	if (!strncmp(name, NPU_SOC_VENDOR_PREFIX, strlen(NPU_SOC_VENDOR_PREFIX)))
		name += strlen(NPU_SOC_VENDOR_PREFIX);
	return name;
}

/* Line n (from 1) of text, without its newline, into buf. */
static bool nth_line(const char *text, int n, char *buf, size_t len)
{
	const char *end;

	while (--n > 0 && text)
		text = strchr(text, '\n') ? strchr(text, '\n') + 1 : NULL;
	if (!text || !*text)
		return false;
	end = strchr(text, '\n');
	if (!end)
		end = text + strlen(text);
	snprintf(buf, len, "%.*s", (int)(end - text), text);
	return true;
}

TEST_F(smi, info_table_layout_chip_name_cards)
{
	char line[256], field[3][64], bus[32], want[128];
	int i, rows = 0, n;

	ASSERT_EQ(0, smi(self->out, sizeof(self->out), "info")) TH_LOG("%s", self->out);
	/* What ggml's CMake runs: awk 'NR==7 {print $3}'. */
	ASSERT_TRUE(nth_line(self->out, 7, line, sizeof(line)));
	ASSERT_EQ(3, sscanf(line, "%63s %63s %63s", field[0], field[1], field[2]));
	EXPECT_STREQ(chip_name(), field[2]) TH_LOG("%s", self->out);
	for (n = 1; nth_line(self->out, n, line, sizeof(line)); n++) {
		EXPECT_EQ(TABLE_WIDTH, (int)strlen(line)) TH_LOG("line %d: %s", n, line);
		EXPECT_TRUE(line[0] == '+' || line[0] == '|') TH_LOG("line %d: %s", n, line);
	}
	for (i = 0; i < self->ncards; i++) {
		snprintf(want, sizeof(want), "| %-5d %-20s|", i, chip_name());
		if (strstr(self->out, want))
			rows++;
	}
	EXPECT_EQ(self->ncards, rows) TH_LOG("%s", self->out);
	for (i = 0; self->card.bdf[i]; i++)
		bus[i] = (char)toupper((unsigned char)self->card.bdf[i]);
	bus[i] = 0;
	EXPECT_NE(NULL, strstr(self->out, bus)) TH_LOG("%s", self->out);
}

TEST_F(smi, info_process_row_has_our_memory)
{
	char line[256];
	int n, npu, chip, pid, found = 0;
	unsigned long long mb;

	ASSERT_EQ(0, smi(self->out, sizeof(self->out), "info"));
	for (n = 1; nth_line(self->out, n, line, sizeof(line)); n++) {
		if (sscanf(line, "| %d %d | %d | %*s | %llu |", &npu, &chip, &pid, &mb) != 4 ||
		    pid != getpid())
			continue;
		found++;
		EXPECT_EQ(self->npu_id, npu) TH_LOG("%s", line);
		EXPECT_EQ(0, chip);
		EXPECT_EQ(ALLOC_MIB, mb) TH_LOG("%s", line);
	}
	EXPECT_EQ(1, found) TH_LOG("%s", self->out);
}

TEST_F(smi, info_list_and_memory)
{
	unsigned long long size = test_card_attr(self->card.bdf, "devmem_size");
	char want[128], args[64];
	int i;

	ASSERT_EQ(0, smi(self->out, sizeof(self->out), "info -l"));
	snprintf(want, sizeof(want), "%-31s: %d\n", "Total Count", self->ncards);
	EXPECT_NE(NULL, strstr(self->out, want)) TH_LOG("%s", self->out);
	for (i = 0; i < self->ncards; i++) {
		snprintf(want, sizeof(want), "%-31s: %d\n", "NPU ID", i);
		EXPECT_NE(NULL, strstr(self->out, want)) TH_LOG("%s", self->out);
	}

	snprintf(args, sizeof(args), "info -t memory -i %d", self->npu_id);
	ASSERT_EQ(0, smi(self->out, sizeof(self->out), args));
	snprintf(want, sizeof(want), "\t%-31s: %llu\n", "HBM Capacity(MB)", size >> 20);
	EXPECT_NE(NULL, strstr(self->out, want)) TH_LOG("%s", self->out);

	snprintf(args, sizeof(args), "info -t proc-mem -i %d", self->npu_id);
	ASSERT_EQ(0, smi(self->out, sizeof(self->out), args));
	snprintf(want, sizeof(want), "Process id:%-7d ", getpid());
	EXPECT_NE(NULL, strstr(self->out, want)) TH_LOG("%s", self->out);
	snprintf(want, sizeof(want), "Process memory(MB):%llu\n", ALLOC_MIB);
	EXPECT_NE(NULL, strstr(self->out, want)) TH_LOG("%s", self->out);
}

TEST_F(smi, bad_npu_id_and_type)
{
	char args[64];

	snprintf(args, sizeof(args), "info -t memory -i %d", self->ncards);
	EXPECT_EQ(1, smi(self->out, sizeof(self->out), args));
	EXPECT_NE(NULL, strstr(self->out, "does not exist")) TH_LOG("%s", self->out);
	EXPECT_EQ(1, smi(self->out, sizeof(self->out), "info -t nonsense -i 0"));
	EXPECT_EQ(1, smi(self->out, sizeof(self->out), "info -t memory"));
	EXPECT_NE(NULL, strstr(self->out, "-i is required")) TH_LOG("%s", self->out);
}

/* watch prints its header, then a row per round; it runs until killed. */
TEST_F(smi, watch_rows)
{
	char id[16], line[256];
	int out[2], n = 0, lines = 0;
	pid_t pid;
	FILE *f;

	ASSERT_EQ(0, pipe(out));
	snprintf(id, sizeof(id), "%d", self->npu_id);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		dup2(out[1], 1);
		execl(SMI, SMI, "info", "watch", "-i", id, "-d", "1", "-s", "ptm", NULL);
		_exit(127);
	}
	close(out[1]);
	f = fdopen(out[0], "r");
	ASSERT_NE(NULL, f);
	while (lines < 3 && fgets(line, sizeof(line), f)) {
		if (lines++ == 0) {
			EXPECT_STREQ("NpuID(Idx)  Pwr(W)      Temp(C)     Memory(%)\n", line);
			continue;
		}
		ASSERT_EQ(1, sscanf(line, "%d", &n));
		EXPECT_EQ(self->npu_id, n);
	}
	EXPECT_EQ(3, lines);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	fclose(f);
}

TEST_F(smi, set_exclusive)
{
	char args[64], value[8];

	snprintf(args, sizeof(args), "set -t exclusive -i %d -d 1", self->npu_id);
	ASSERT_EQ(0, smi(self->out, sizeof(self->out), args)) TH_LOG("%s", self->out);
	ASSERT_EQ(0, test_pci_attr(self->card.bdf, "npu/exclusive", value, sizeof(value)));
	EXPECT_STREQ("1", value);
	snprintf(args, sizeof(args), "info -t exclusive -i %d", self->npu_id);
	ASSERT_EQ(0, smi(self->out, sizeof(self->out), args));
	EXPECT_NE(NULL, strstr(self->out, "Exclusive Mode                 : 1")) TH_LOG("%s", self->out);
	snprintf(args, sizeof(args), "set -t exclusive -i %d -d 0", self->npu_id);
	ASSERT_EQ(0, smi(self->out, sizeof(self->out), args));
	ASSERT_EQ(0, test_pci_attr(self->card.bdf, "npu/exclusive", value, sizeof(value)));
	EXPECT_STREQ("0", value);
	snprintf(args, sizeof(args), "set -t exclusive -i %d -d 2", self->npu_id);
	EXPECT_EQ(1, smi(self->out, sizeof(self->out), args));
}

/* Resets themselves are the reset suites' business. */
TEST_F(smi, reset_without_driver_support_fails_clearly)
{
	char path[PATH_MAX], args[64];

	snprintf(path, sizeof(path), TEST_PCI_DEVICES "/%s/npu/reset", self->card.bdf);
	if (!access(path, F_OK))
		SKIP(return, "this driver resets cards");
	snprintf(args, sizeof(args), "set -t reset -i %d", self->npu_id);
	EXPECT_EQ(1, smi_fed(self->out, sizeof(self->out), "n", args));
	EXPECT_NE(NULL, strstr(self->out, "Cancel reset")) TH_LOG("%s", self->out);
	EXPECT_EQ(1, smi_fed(self->out, sizeof(self->out), "y", args));
	EXPECT_NE(NULL, strstr(self->out, "Fail")) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "npu/reset is missing")) TH_LOG("%s", self->out);
}

TEST_F(smi, own_views)
{
	ASSERT_EQ(0, smi(self->out, sizeof(self->out), "cards"));
	EXPECT_NE(NULL, strstr(self->out, self->card.accel)) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, self->card.bdf));
	ASSERT_EQ(0, smi(self->out, sizeof(self->out), "streams"));
	EXPECT_NE(NULL, strstr(self->out, "STREAM")) TH_LOG("%s", self->out);
}

TEST_HARNESS_MAIN
