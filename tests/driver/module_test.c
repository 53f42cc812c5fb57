// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unloading the module releases every card; loading it again, with the
 * parameters it had, binds them. NPU_KO names the module file to load again.
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

/*
 * Nobody holds the module: a suite that ran just before may have exited a
 * moment before the kernel released its files.
 */
static bool module_unused(void)
{
	char buf[32];

	return !text_read("/sys/module/npu/refcnt", buf, sizeof(buf)) &&
	       strtol(buf, NULL, 10) == 0;
}

/*
 * The driver's parameters as "name=value ..." for loading it again: the
 * suites after this one find them as they were.
 */
static int current_params(char *params, size_t len)
{
	DIR *dir = opendir(TEST_DRIVER_PARAMS);
	struct dirent *de;
	size_t used = 0;

	if (!dir)
		return -errno;
	params[0] = 0;
	while ((de = readdir(dir))) {
		char path[PATH_MAX], value[64];
		int n;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), TEST_DRIVER_PARAMS "/%s", de->d_name);
		if (text_read(path, value, sizeof(value)))
			continue;
		n = snprintf(params + used, len - used, "%s%s=%s", used ? " " : "",
			     de->d_name, value);
		if (n < 0 || (size_t)n >= len - used) {
			closedir(dir);
			return -ENOSPC;
		}
		used += n;
	}
	closedir(dir);
	return 0;
}

TEST(unload_and_reload)
{
	const char *ko = getenv("NPU_KO");
	int bound = count_bound(), fd;
	char params[1024];
	struct stat st;

	if (!ko)
		SKIP(return, "NPU_KO not set");
	ASSERT_GT(bound, 0);

	ASSERT_EQ(0, current_params(params, sizeof(params)));
	ASSERT_TRUE(test_wait_until(module_unused(), TEST_SETTLE_MS));
	ASSERT_EQ(0, syscall(SYS_delete_module, "npu", O_NONBLOCK))
		TH_LOG("delete_module: %s", strerror(errno));
	EXPECT_EQ(0, count_bound());
	EXPECT_NE(0, stat(TEST_DRIVER_DIR, &st));
	EXPECT_NE(0, stat("/sys/module/npu", &st));

	fd = open(ko, O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, syscall(SYS_finit_module, fd, params, 0))
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
