// SPDX-License-Identifier: GPL-2.0-only
/*
 * Health and telemetry: the hwmon device "npu" and the npu/ files health,
 * health_reasons, util_copy, util_compute, ecc_corrected, ecc_uncorrected
 * (docs/ABI/sysfs-driver-npu). Utilization, power and temperature follow
 * the load the test puts on the card; injected over-temperatures and
 * memory errors set the health level the documented rules give, and a
 * program poll()ing npu/health wakes. A test that leaves the card with a
 * memory error rebinds it, so that later tests and suites find it OK.
 */

#include <poll.h>

#include "kselftest_harness.h"
#include "npu_test_ioctl.h"

#define LOAD_BUF	(32u << 20)
#define LOAD_BYTES	(16u << 20)
#define LOAD_FLOATS	(LOAD_BYTES / 4)
#define LOAD_BATCH	4
#define LOAD_MAX	16	/* streams */
/* the card's engines show busy within this, and idle again after it */
#define LOAD_SETTLE_MS	(3 * TEST_SETTLE_MS)

struct load_stream {
	struct drm_npu_stream_create s;
	struct drm_npu_cmd cmds[LOAD_BATCH];
	uint64_t older, newer;	/* the two batches in flight */
};

FIXTURE(health) {
	struct test_card card;
	struct drm_npu_bo_create buf;
	char hwmon[512];
	struct load_stream load[LOAD_MAX];
	unsigned int nload;
	uint64_t operators;
	_Alignas(64) uint8_t op[sizeof(struct npu_op_desc) + 2 * sizeof(struct npu_tensor_desc)];
	bool rebind;
};

static bool find_hwmon(const char *bdf, char *dir, size_t len)
{
	char path[128], file[512], name[32];
	struct dirent *de;
	bool found = false;
	DIR *d;

	snprintf(path, sizeof(path), TEST_PCI_DEVICES "/%s/hwmon", bdf);
	d = opendir(path);
	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		if (strncmp(de->d_name, "hwmon", 5))
			continue;
		snprintf(file, sizeof(file), "%s/%s/name", path, de->d_name);
		found = !text_read(file, name, sizeof(name)) && !strcmp(name, "npu");
		if (found)
			snprintf(dir, len, "%s/%s", path, de->d_name);
	}
	closedir(d);
	return found;
}

static const char *hwmon_text(struct _test_data_health *self, const char *attr,
			      char *buf, size_t len)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/%s", self->hwmon, attr);
	if (text_read(path, buf, len))
		snprintf(buf, len, "(unreadable)");
	return buf;
}

static long long hwmon_read(struct _test_data_health *self, const char *attr)
{
	char buf[64];

	hwmon_text(self, attr, buf, sizeof(buf));
	return buf[0] == '(' ? -1 : strtoll(buf, NULL, 10);
}

static const char *health_read(struct _test_data_health *self, const char *attr,
			       char *buf, size_t len)
{
	char name[64];

	snprintf(name, sizeof(name), "npu/%s", attr);
	if (test_pci_attr(self->card.bdf, name, buf, len))
		snprintf(buf, len, "(unreadable)");
	return buf;
}

static bool health_is(struct _test_data_health *self, const char *level)
{
	char buf[32];

	return !strcmp(health_read(self, "health", buf, sizeof(buf)), level);
}

static bool has_reason(struct _test_data_health *self, const char *reason)
{
	char buf[256], *word, *save;

	health_read(self, "health_reasons", buf, sizeof(buf));
	for (word = strtok_r(buf, " ", &save); word; word = strtok_r(NULL, " ", &save))
		if (!strcmp(word, reason))
			return true;
	return false;
}

static unsigned long long card_value(struct _test_data_health *self, const char *attr)
{
	return test_card_attr(self->card.bdf, attr);
}

static int inject(struct _test_data_health *self, const char *kind, long long arg)
{
	char what[64];

	snprintf(what, sizeof(what), "%s 0 %lld", kind, arg);
	return test_inject(self->card.bdf, what);
}

FIXTURE_SETUP(health)
{
	ASSERT_EQ(0, test_card_open(&self->card, 0));
	if (!test_can_inject(self->card.bdf))
		SKIP(return, "no debugfs fault injection");
	ASSERT_TRUE(find_hwmon(self->card.bdf, self->hwmon, sizeof(self->hwmon)));
	ASSERT_EQ(0, test_param(self->card.fd, DRM_NPU_PARAM_OPERATORS, &self->operators));
	ASSERT_EQ(0, test_bo_create(self->card.fd, LOAD_BUF, 0, &self->buf));
	/* what an earlier test or suite left settles */
	ASSERT_TRUE(test_wait_until(health_is(self, "OK"), TEST_SETTLE_MS));
}

FIXTURE_TEARDOWN(health)
{
	inject(self, "over_temp", 0);
	test_card_close(&self->card);
	if (self->rebind)
		EXPECT_EQ(0, test_rebind(self->card.bdf));
}

/* The card rebound (its probe resets it), opened again, its hwmon found. */
static int reopen_rebound(struct _test_data_health *self)
{
	int ret;

	test_card_close(&self->card);
	ret = test_rebind(self->card.bdf);
	if (ret)
		return ret;
	self->rebind = false;
	ret = test_card_open(&self->card, 0);
	if (ret)
		return ret;
	return find_hwmon(self->card.bdf, self->hwmon, sizeof(self->hwmon)) ? 0 : -ENOENT;
}

static int add_stream(struct _test_data_health *self, struct drm_npu_cmd cmd)
{
	struct load_stream *l = &self->load[self->nload];
	unsigned int i;

	if (self->nload == LOAD_MAX)
		return -ENOSPC;
	for (i = 0; i < LOAD_BATCH; i++)
		l->cmds[i] = cmd;
	l->older = l->newer = 0;
	self->nload++;
	return test_stream_create(self->card.fd, 0, 0, &l->s);
}

static int add_fill_streams(struct _test_data_health *self, unsigned int n)
{
	int ret = 0;

	while (n-- && !ret)
		ret = add_stream(self, test_cmd_fill(self->buf.addr + LOAD_BYTES, 7,
						     LOAD_BYTES, 0));
	return ret;
}

/* y = relu(x) over LOAD_FLOATS f32, x and y halves of the buffer. */
static int add_relu_streams(struct _test_data_health *self, unsigned int n)
{
	struct npu_op_desc *d = (struct npu_op_desc *)self->op;
	static const uint64_t dims[] = { LOAD_FLOATS / 1024, 1024 };
	int ret = 0;

	memset(self->op, 0, sizeof(self->op));
	d->kind = NPU_OPERATOR_UNARY;
	d->num_inputs = 1;
	d->num_outputs = 1;
	d->attrs.unary.fn.kind = NPU_UNARY_RELU;
	test_tensor_dense(&d->tensors[0], self->buf.addr, NPU_DTYPE_F32, 2, dims);
	test_tensor_dense(&d->tensors[1], self->buf.addr + LOAD_BYTES, NPU_DTYPE_F32, 2,
			  dims);
	while (n-- && !ret)
		ret = add_stream(self, (struct drm_npu_cmd){
			.op = DRM_NPU_OP_COMPUTE, .src = (uintptr_t)self->op,
			.size = sizeof(self->op) });
	return ret;
}

static bool load_done(struct _test_data_health *self, struct load_stream *l, uint64_t seq)
{
	return (int64_t)(self->card.fence[l->s.slot].value - seq) >= 0;
}

/* Keeps two batches queued on every load stream; -errno if one fails. */
static int load_step(struct _test_data_health *self)
{
	unsigned int i;

	for (i = 0; i < self->nload; i++) {
		struct load_stream *l = &self->load[i];
		int ret;

		if (self->card.fence[l->s.slot].error)
			return -EIO;
		if (l->older && !load_done(self, l, l->older))
			continue;
		l->older = l->newer;
		ret = test_submit(self->card.fd, l->s.id, l->cmds, LOAD_BATCH, 0, &l->newer);
		if (ret)
			return ret;
	}
	return 0;
}

/* Loads the card until @cond holds, up to LOAD_SETTLE_MS; true if it did. */
#define load_until(self, cond) \
	test_wait_until(load_step(self) == 0 && (cond), LOAD_SETTLE_MS)

static void load_drain(struct _test_data_health *self)
{
	unsigned int i;

	for (i = 0; i < self->nload; i++)
		test_wait(self->card.fd, self->load[i].s.slot, self->load[i].newer, 20000);
}

static bool idle(struct _test_data_health *self)
{
	return card_value(self, "util_copy") == 0 && card_value(self, "util_compute") == 0;
}

TEST_F(health, hwmon_and_files_are_plausible)
{
	long long temp = hwmon_read(self, "temp1_input");
	long long max = hwmon_read(self, "temp1_max");
	long long crit = hwmon_read(self, "temp1_crit");
	long long power = hwmon_read(self, "power1_input");
	long long power_max = hwmon_read(self, "power1_max");
	long long freq = hwmon_read(self, "freq1_input");
	char buf[64];

	/* a card below its warning threshold, between 0 and 150 C */
	EXPECT_LT(0, temp);
	EXPECT_LT(temp, max);
	EXPECT_LT(max, crit);
	EXPECT_GE(150000, crit);
	/* it draws something, no more than it can: 1 W .. 1 kW */
	EXPECT_LE(1000000, power);
	EXPECT_LE(power, power_max);
	EXPECT_GE(1000000000LL, power_max);
	/* 100 MHz .. 10 GHz */
	EXPECT_LE(100000000LL, freq);
	EXPECT_GE(10000000000LL, freq);
	EXPECT_STREQ("core", hwmon_text(self, "freq1_label", buf, sizeof(buf)));
	EXPECT_STREQ("none", health_read(self, "health_reasons", buf, sizeof(buf)));
	EXPECT_GE(100, card_value(self, "util_copy"));
	EXPECT_GE(100, card_value(self, "util_compute"));
	EXPECT_NE(~0ULL, card_value(self, "ecc_corrected"));
	EXPECT_NE(~0ULL, card_value(self, "ecc_uncorrected"));
}

TEST_F(health, copy_utilization_rises_and_falls)
{
	ASSERT_TRUE(test_wait_until(idle(self), TEST_SETTLE_MS));
	ASSERT_EQ(0, add_fill_streams(self, 1));
	ASSERT_TRUE(load_until(self, card_value(self, "util_copy") > 0));
	EXPECT_GE(100, card_value(self, "util_copy"));
	load_drain(self);
	/* a second after the last transfer: the window is the last second */
	EXPECT_TRUE(test_wait_until(card_value(self, "util_copy") == 0, TEST_SETTLE_MS));
}

TEST_F(health, compute_utilization_rises_and_falls)
{
	if (!(self->operators & 1u << NPU_OPERATOR_UNARY))
		SKIP(return, "the card runs no UNARY operator");
	ASSERT_TRUE(test_wait_until(idle(self), TEST_SETTLE_MS));
	ASSERT_EQ(0, add_relu_streams(self, 1));
	ASSERT_TRUE(load_until(self, card_value(self, "util_compute") > 0));
	EXPECT_GE(100, card_value(self, "util_compute"));
	load_drain(self);
	EXPECT_TRUE(test_wait_until(card_value(self, "util_compute") == 0, TEST_SETTLE_MS));
}

/*
 * Every engine busy: the most the card can draw, so the temperature rises
 * from wherever an earlier load left it (docs/hardware.md, "Telemetry").
 */
TEST_F(health, power_and_temperature_rise_under_load)
{
	long long power0, temp0, loaded;

	if (!(self->operators & 1u << NPU_OPERATOR_UNARY))
		SKIP(return, "the card runs no UNARY operator");
	ASSERT_EQ(0, add_fill_streams(self, card_value(self, "num_copy_engines")));
	ASSERT_EQ(0, add_relu_streams(self, card_value(self, "num_compute_engines")));
	ASSERT_TRUE(test_wait_until(idle(self), TEST_SETTLE_MS));
	power0 = hwmon_read(self, "power1_input");
	temp0 = hwmon_read(self, "temp1_input");
	ASSERT_LT(0, power0);

	ASSERT_TRUE(load_until(self, hwmon_read(self, "power1_input") > power0 &&
				     hwmon_read(self, "temp1_input") > temp0));
	loaded = hwmon_read(self, "power1_input");
	EXPECT_GE(hwmon_read(self, "power1_max"), loaded);
	load_drain(self);
	EXPECT_TRUE(test_wait_until(hwmon_read(self, "power1_input") < loaded,
				    TEST_SETTLE_MS));
}

/* Waits for a sysfs_notify() on an open npu/health; true if it came. */
static bool health_event(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLPRI };
	char buf[32];

	if (poll(&p, 1, TEST_SETTLE_MS) != 1 || !(p.revents & POLLPRI))
		return false;
	return pread(fd, buf, sizeof(buf), 0) > 0;
}

static int health_open(struct _test_data_health *self)
{
	char path[PATH_MAX], buf[32];
	int fd;

	snprintf(path, sizeof(path), TEST_PCI_DEVICES "/%s/npu/health", self->card.bdf);
	fd = open(path, O_RDONLY);
	/* poll() reports changes since the last read */
	if (fd >= 0 && pread(fd, buf, sizeof(buf), 0) <= 0) {
		close(fd);
		return -1;
	}
	return fd;
}

TEST_F(health, over_temperature_alarms_and_wakes_a_poller)
{
	long long max = hwmon_read(self, "temp1_max");
	long long crit = hwmon_read(self, "temp1_crit");
	int fd = health_open(self);

	ASSERT_LE(0, fd);
	/* at the warning threshold: Alarm */
	ASSERT_EQ(0, inject(self, "over_temp", (max + 999) / 1000));
	EXPECT_EQ((max + 999) / 1000 * 1000, hwmon_read(self, "temp1_input"));
	EXPECT_TRUE(health_event(fd));
	EXPECT_TRUE(test_wait_until(health_is(self, "Alarm"), TEST_SETTLE_MS));
	EXPECT_TRUE(has_reason(self, "over_temp"));

	/* at the critical one: Critical */
	ASSERT_EQ(0, inject(self, "over_temp", (crit + 999) / 1000));
	EXPECT_TRUE(health_event(fd));
	EXPECT_TRUE(test_wait_until(health_is(self, "Critical"), TEST_SETTLE_MS));
	EXPECT_TRUE(has_reason(self, "over_temp_crit"));
	EXPECT_FALSE(has_reason(self, "over_temp"));

	/* cleared: OK again, and the poller hears of it */
	ASSERT_EQ(0, inject(self, "over_temp", 0));
	EXPECT_GT(max, hwmon_read(self, "temp1_input"));
	EXPECT_TRUE(health_event(fd));
	EXPECT_TRUE(test_wait_until(health_is(self, "OK"), TEST_SETTLE_MS));
	EXPECT_TRUE(has_reason(self, "none"));
	close(fd);
}

TEST_F(health, corrected_memory_errors_warn)
{
	unsigned long long before = card_value(self, "ecc_corrected");
	int fd = health_open(self);

	ASSERT_LE(0, fd);
	self->rebind = true;
	ASSERT_EQ(0, inject(self, "ecc_corrected", 3));
	EXPECT_EQ(before + 3, card_value(self, "ecc_corrected"));
	EXPECT_TRUE(health_event(fd));
	EXPECT_TRUE(test_wait_until(health_is(self, "Warning"), TEST_SETTLE_MS));
	EXPECT_TRUE(has_reason(self, "ecc_corrected"));
	close(fd);
}

/* Critical until the card is reset; the count survives the reset. */
TEST_F(health, uncorrected_memory_error_is_critical_until_reset)
{
	unsigned long long before = card_value(self, "ecc_uncorrected");
	int fd = health_open(self);

	ASSERT_LE(0, fd);
	self->rebind = true;
	ASSERT_EQ(0, inject(self, "ecc_uncorrected", 1));
	EXPECT_EQ(before + 1, card_value(self, "ecc_uncorrected"));
	EXPECT_TRUE(health_event(fd));
	EXPECT_TRUE(test_wait_until(health_is(self, "Critical"), TEST_SETTLE_MS));
	EXPECT_TRUE(has_reason(self, "ecc_uncorrected"));
	close(fd);

	ASSERT_EQ(0, reopen_rebound(self));
	EXPECT_TRUE(test_wait_until(health_is(self, "OK"), TEST_SETTLE_MS));
	EXPECT_EQ(before + 1, card_value(self, "ecc_uncorrected"));
}

/* A global reset (probing does one) ends an injected over-temperature. */
TEST_F(health, reset_ends_an_injected_over_temperature)
{
	long long crit = hwmon_read(self, "temp1_crit");

	self->rebind = true;
	ASSERT_EQ(0, inject(self, "over_temp", crit / 1000 + 10));
	ASSERT_TRUE(test_wait_until(health_is(self, "Critical"), TEST_SETTLE_MS));
	ASSERT_EQ(0, reopen_rebound(self));
	EXPECT_GT(hwmon_read(self, "temp1_max"), hwmon_read(self, "temp1_input"));
	EXPECT_TRUE(test_wait_until(health_is(self, "OK"), TEST_SETTLE_MS));
}

TEST_HARNESS_MAIN
