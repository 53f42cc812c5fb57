// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unloading the module releases every card; loading it again binds them.
 * NPU_KO names the module file to load again.
 */

#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "npu_test_sysfs.h"

static int count_bound(void)
{
	struct test_pci devs[TEST_MAX_DEVS];
	int i, n = 0, ndevs = test_list_pci(devs, TEST_MAX_DEVS);

	for (i = 0; i < ndevs; i++)
		n += devs[i].bound;
	return n;
}

TEST(unload_and_reload)
{
	const char *ko = getenv("NPU_KO");
	int bound = count_bound(), fd;
	struct stat st;

	if (!ko)
		SKIP(return, "NPU_KO not set");
	ASSERT_GT(bound, 0);

	ASSERT_EQ(0, syscall(SYS_delete_module, "npu", O_NONBLOCK))
		TH_LOG("delete_module: %s", strerror(errno));
	EXPECT_EQ(0, count_bound());
	EXPECT_NE(0, stat(TEST_DRIVER_DIR, &st));
	EXPECT_NE(0, stat("/sys/module/npu", &st));

	fd = open(ko, O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, syscall(SYS_finit_module, fd, "", 0))
		TH_LOG("finit_module: %s", strerror(errno));
	close(fd);
	EXPECT_EQ(bound, count_bound());
}

TEST(unload_refused_while_open)
{
	struct test_pci devs[TEST_MAX_DEVS];
	int i, fd = -1, ndevs = test_list_pci(devs, TEST_MAX_DEVS);
	char name[32], path[64];

	for (i = 0; i < ndevs && fd < 0; i++) {
		if (!devs[i].bound || test_accel_name(devs[i].bdf, name, sizeof(name)))
			continue;
		snprintf(path, sizeof(path), "/dev/accel/%s", name);
		fd = open(path, O_RDWR | O_CLOEXEC);
	}
	ASSERT_GE(fd, 0);
	EXPECT_EQ(-1, syscall(SYS_delete_module, "npu", O_NONBLOCK));
	EXPECT_EQ(EWOULDBLOCK, errno);
	close(fd);
}

TEST_HARNESS_MAIN
