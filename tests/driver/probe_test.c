// SPDX-License-Identifier: GPL-2.0-only
/*
 * The driver binds every card and only cards, exposes one accel node and the
 * identity of each, and survives unbind/rebind, also with the node open.
 *
 * NPU_EXPECT_CARDS and NPU_EXPECT_FOREIGN, when set, give the number of
 * cards and of foreign functions with the same PCI ID the guest was given.
 */

#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <xf86drm.h>

#include "kselftest_harness.h"
#include "npu_test_ioctl.h"

FIXTURE(card) {
	struct test_pci devs[TEST_MAX_DEVS];
	int ndevs;
};

FIXTURE_SETUP(card)
{
	self->ndevs = test_list_pci(self->devs, TEST_MAX_DEVS);
	ASSERT_GE(self->ndevs, 0);
}

/* A test that stopped between unbinding a card and binding it again. */
FIXTURE_TEARDOWN(card)
{
	int i;

	for (i = 0; i < self->ndevs; i++)
		if (self->devs[i].bound)
			EXPECT_EQ(0, test_card_revive(self->devs[i].bdf));
}

static int count_cards(struct _test_data_card *self, bool bound)
{
	int i, n = 0;

	for (i = 0; i < self->ndevs; i++)
		n += self->devs[i].is_card && self->devs[i].bound == bound;
	return n;
}

TEST_F(card, binds_every_card)
{
	int expected = test_expected("NPU_EXPECT_CARDS");

	ASSERT_GT(count_cards(self, true), 0);
	EXPECT_EQ(0, count_cards(self, false));
	if (expected >= 0)
		EXPECT_EQ(expected, count_cards(self, true));
}

TEST_F(card, leaves_foreign_ivshmem_alone)
{
	int expected = test_expected("NPU_EXPECT_FOREIGN");
	int i, foreign = 0;

	for (i = 0; i < self->ndevs; i++) {
		if (self->devs[i].is_card)
			continue;
		foreign++;
		EXPECT_FALSE(self->devs[i].bound) TH_LOG("%s", self->devs[i].bdf);
	}
	if (expected >= 0)
		EXPECT_EQ(expected, foreign);
}

TEST_F(card, accel_node_per_card)
{
	char name[32], path[64], devnum[32], other[32] = "";
	unsigned int maj, min;
	struct stat st;
	int i;

	for (i = 0; i < self->ndevs; i++) {
		if (!self->devs[i].bound)
			continue;
		ASSERT_EQ(0, test_accel_name(self->devs[i].bdf, name, sizeof(name)));
		EXPECT_STRNE(other, name);
		strcpy(other, name);

		snprintf(path, sizeof(path), "accel/%s/dev", name);
		ASSERT_EQ(0, test_pci_attr(self->devs[i].bdf, path, devnum, sizeof(devnum)));
		ASSERT_EQ(2, sscanf(devnum, "%u:%u", &maj, &min));

		snprintf(path, sizeof(path), "/dev/accel/%s", name);
		ASSERT_EQ(0, stat(path, &st)) TH_LOG("%s: %s", path, strerror(errno));
		EXPECT_TRUE(S_ISCHR(st.st_mode));
		EXPECT_EQ(maj, major(st.st_rdev));
		EXPECT_EQ(min, minor(st.st_rdev));
	}
}

TEST_F(card, drm_version)
{
	char name[32], path[64];
	drmVersionPtr ver;
	int i, fd;

	for (i = 0; i < self->ndevs; i++) {
		if (!self->devs[i].bound)
			continue;
		ASSERT_EQ(0, test_accel_name(self->devs[i].bdf, name, sizeof(name)));
		snprintf(path, sizeof(path), "/dev/accel/%s", name);
		fd = open(path, O_RDWR | O_CLOEXEC);
		ASSERT_GE(fd, 0);
		ver = drmGetVersion(fd);
		ASSERT_NE(NULL, ver);
		EXPECT_STREQ("npu", ver->name);
		EXPECT_EQ(1, ver->version_major);
		/* 1.1: DRM_NPU_OP_COMPUTE */
		EXPECT_GE(ver->version_minor, 1);
		drmFreeVersion(ver);
		close(fd);
	}
}

/* Compares the sysfs identity with BAR2, read with the driver unbound. */
TEST_F(card, identity_matches_registers)
{
	unsigned long long rings, engines, vectors, entries, devmem, serial;
	unsigned long long compute_engines, operators, dtypes;
	volatile uint8_t *bar;
	char buf[64], enable[PATH_MAX];
	int i;

	for (i = 0; i < self->ndevs; i++) {
		const char *bdf = self->devs[i].bdf;

		if (!self->devs[i].bound)
			continue;
		ASSERT_EQ(0, test_pci_attr(bdf, "npu/version", buf, sizeof(buf)));
		/*
		 * 2.0: the card computes; .1: shadows; .2: direct rings; .3: their
		 * operators; .4: programs; .5: telemetry, the MMU
		 */
		EXPECT_STREQ("2.5", buf);
		rings = test_card_attr(bdf, "num_rings");
		engines = test_card_attr(bdf, "num_copy_engines");
		vectors = test_card_attr(bdf, "num_vectors");
		entries = test_card_attr(bdf, "max_ring_entries");
		devmem = test_card_attr(bdf, "devmem_size");
		compute_engines = test_card_attr(bdf, "num_compute_engines");
		operators = test_card_attr(bdf, "operators");
		dtypes = test_card_attr(bdf, "dtypes");
		ASSERT_EQ(0, test_pci_attr(bdf, "npu/serial", buf, sizeof(buf)));
		serial = strtoull(buf, NULL, 16);
		EXPECT_GT(devmem, 0);

		ASSERT_EQ(0, test_driver_unbind(bdf));
		snprintf(enable, sizeof(enable), TEST_PCI_DEVICES "/%s/enable", bdf);
		ASSERT_EQ(0, text_write(enable, "1"));
		bar = test_map_bar2(bdf);
		ASSERT_NE(NULL, bar);
		EXPECT_EQ(NPU_MAGIC, test_bar_rd32(bar, NPU_ID_MAGIC));
		EXPECT_EQ(rings, test_bar_rd32(bar, NPU_ID_NUM_RINGS));
		EXPECT_EQ(engines, test_bar_rd32(bar, NPU_ID_NUM_COPY_ENGINES));
		EXPECT_EQ(vectors, test_bar_rd32(bar, NPU_ID_NUM_VECTORS));
		EXPECT_EQ(entries, test_bar_rd32(bar, NPU_ID_MAX_RING_ENTRIES));
		EXPECT_EQ(devmem, test_bar_rd64(bar, NPU_ID_DEVMEM_SIZE));
		EXPECT_EQ(serial, test_bar_rd64(bar, NPU_ID_SERIAL));
		EXPECT_EQ(compute_engines, test_bar_rd32(bar, NPU_ID_NUM_COMPUTE_ENGINES));
		/* What the driver knows of what the card has. */
		EXPECT_EQ(operators, test_bar_rd64(bar, NPU_ID_OPERATORS) &
				     ((2ULL << NPU_OPERATOR_LAST) - 1));
		EXPECT_EQ(dtypes, test_bar_rd32(bar, NPU_ID_DTYPES) &
				  ((2ULL << NPU_DTYPE_LAST) - 1));
		munmap((void *)bar, NPU_REG_WINDOW_SIZE);
		ASSERT_EQ(0, text_write(enable, "0"));
		ASSERT_EQ(0, test_driver_bind(bdf));
		EXPECT_TRUE(test_pci_is_bound(bdf));
	}
}

TEST_F(card, serials_are_distinct)
{
	unsigned long long seen[TEST_MAX_DEVS];
	int i, j, n = 0;

	for (i = 0; i < self->ndevs; i++) {
		if (!self->devs[i].bound)
			continue;
		seen[n] = test_card_attr(self->devs[i].bdf, "serial");
		for (j = 0; j < n; j++)
			EXPECT_NE(seen[j], seen[n]);
		n++;
	}
}

TEST_F(card, heartbeat_advances)
{
	int i;

	for (i = 0; i < self->ndevs; i++) {
		unsigned long long before, now = 0;

		if (!self->devs[i].bound)
			continue;
		before = test_card_attr(self->devs[i].bdf, "heartbeat");
		test_wait_until((now = test_card_attr(self->devs[i].bdf, "heartbeat")) != before,
				TEST_SETTLE_MS);
		EXPECT_GT(now, before);
	}
}

TEST_F(card, selftest_passed)
{
	char buf[32];
	int i;

	for (i = 0; i < self->ndevs; i++) {
		if (!self->devs[i].bound)
			continue;
		ASSERT_EQ(0, test_pci_attr(self->devs[i].bdf, "npu/selftest", buf, sizeof(buf)));
		EXPECT_STREQ("pass", buf);
		EXPECT_GT(test_card_attr(self->devs[i].bdf, "selftest_ns"), 0);
	}
}

TEST_F(card, unbind_rebind)
{
	char name[32], buf[32];
	int i;

	for (i = 0; i < self->ndevs; i++) {
		const char *bdf = self->devs[i].bdf;

		if (!self->devs[i].bound)
			continue;
		ASSERT_EQ(0, test_driver_unbind(bdf));
		EXPECT_FALSE(test_pci_is_bound(bdf));
		EXPECT_NE(0, test_accel_name(bdf, name, sizeof(name)));

		ASSERT_EQ(0, test_driver_bind(bdf));
		ASSERT_TRUE(test_pci_is_bound(bdf));
		EXPECT_EQ(0, test_accel_name(bdf, name, sizeof(name)));
		ASSERT_EQ(0, test_pci_attr(bdf, "npu/selftest", buf, sizeof(buf)));
		EXPECT_STREQ("pass", buf);
	}
}

TEST_F(card, unbind_with_node_open)
{
	char name[32], path[64];
	drmVersionPtr ver;
	int i, fd;

	for (i = 0; i < self->ndevs; i++) {
		const char *bdf = self->devs[i].bdf;

		if (!self->devs[i].bound)
			continue;
		ASSERT_EQ(0, test_accel_name(bdf, name, sizeof(name)));
		snprintf(path, sizeof(path), "/dev/accel/%s", name);
		fd = open(path, O_RDWR | O_CLOEXEC);
		ASSERT_GE(fd, 0);

		ASSERT_EQ(0, test_driver_unbind(bdf));
		/* The file outlives the device; calls on it fail cleanly. */
		ver = drmGetVersion(fd);
		EXPECT_EQ(NULL, ver);
		EXPECT_EQ(ENODEV, errno);
		EXPECT_EQ(0, close(fd));

		ASSERT_EQ(0, test_driver_bind(bdf));
		EXPECT_TRUE(test_pci_is_bound(bdf));
	}
}

/*
 * A mapping of the fence area keeps it, and the file, past the card's
 * removal and rebinding: it reads zeroes once the card is gone, and the
 * area is freed only by the last munmap, while a new instance drives the
 * card. The debug kernel's DMA-API checks fail a removal that leaves the
 * area mapped for the card (make check-debug).
 */
TEST_F(card, fence_mapping_outlives_unbind)
{
	struct test_card old = { .fd = -1 }, again = { .fd = -1 };
	uint32_t ev;

	ASSERT_EQ(0, test_card_open(&old, 0));
	ASSERT_EQ(0, test_slot_alloc(old.fd, &ev));
	ASSERT_EQ(0, test_slot_op(old.fd, DRM_IOCTL_NPU_SLOT_SIGNAL, ev, 5));
	EXPECT_EQ(5, old.fence[ev].value);

	ASSERT_EQ(0, test_driver_unbind(old.bdf));
	EXPECT_EQ(0, old.fence[ev].value);
	EXPECT_EQ(0, close(old.fd));
	old.fd = -1;

	ASSERT_EQ(0, test_driver_bind(old.bdf));
	ASSERT_EQ(0, test_card_open(&again, 0));
	EXPECT_STREQ(old.bdf, again.bdf);
	EXPECT_EQ(0, old.fence[ev].value);
	ASSERT_EQ(0, test_slot_alloc(again.fd, &ev));
	ASSERT_EQ(0, test_slot_op(again.fd, DRM_IOCTL_NPU_SLOT_SIGNAL, ev, 7));
	EXPECT_EQ(7, again.fence[ev].value);
	test_card_close(&old);
	test_card_close(&again);
}

TEST_F(card, bind_refuses_foreign)
{
	int i;

	for (i = 0; i < self->ndevs; i++) {
		if (self->devs[i].is_card)
			continue;
		EXPECT_EQ(-ENODEV, test_driver_bind(self->devs[i].bdf));
		EXPECT_FALSE(test_pci_is_bound(self->devs[i].bdf));
	}
}

TEST_HARNESS_MAIN
