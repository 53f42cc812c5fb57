// SPDX-License-Identifier: MIT
/*
 * A card in exclusive mode (npu/exclusive) that another process holds:
 * it keeps its device number, aclrtSetDevice on it fails with
 * ACL_ERROR_RT_DEV_SETUP_ERROR and a message naming exclusive mode, the
 * other card works, and once the holder is gone the card opens.
 */
#include <sys/wait.h>

#include "acl_test.h"
#include "kselftest_harness.h"

FIXTURE(exclusive) {
	char bdf[32];		/* device 0: the card with the lowest accel minor */
	char accel[32];
	char path[PATH_MAX];
	int ncards;
};

FIXTURE_SETUP(exclusive)
{
	struct test_pci devs[TEST_MAX_DEVS];
	int i, n = test_list_pci(devs, TEST_MAX_DEVS);
	char name[32];

	for (i = 0; i < n; i++) {
		if (!devs[i].bound || test_accel_name(devs[i].bdf, name, sizeof(name)))
			continue;
		self->ncards++;
		if (!self->accel[0] || atoi(name + 5) < atoi(self->accel + 5)) {
			strcpy(self->accel, name);
			strcpy(self->bdf, devs[i].bdf);
		}
	}
	ASSERT_LT(0, self->ncards);
	snprintf(self->path, sizeof(self->path), TEST_PCI_DEVICES "/%s/npu/exclusive", self->bdf);
}

/* In the parent: also after the test crashed, and once its files are closed. */
FIXTURE_TEARDOWN_PARENT(exclusive)
{
	EXPECT_EQ(0, text_write(self->path, "0"));
}

/* A process that holds the card open until its pipe closes. */
static pid_t hold(const char *accel, int *release)
{
	int ready[2], done[2];
	char dev[64], c;
	pid_t pid;

	if (pipe(ready) || pipe(done))
		return -1;
	pid = fork();
	if (pid == 0) {
		snprintf(dev, sizeof(dev), "/dev/accel/%s", accel);
		c = open(dev, O_RDWR) >= 0 ? 'y' : 'n';
		close(done[1]);
		if (write(ready[1], &c, 1) == 1)
			while (read(done[0], &c, 1) > 0)
				;
		_exit(0);
	}
	close(done[0]);
	close(ready[1]);
	if (pid < 0 || read(ready[0], &c, 1) != 1 || c != 'y')
		pid = -1;
	close(ready[0]);
	*release = done[1];
	return pid;
}

TEST_F(exclusive, set_device_on_a_card_held_by_another_process)
{
	const char *msg;
	uint32_t count;
	int release;
	pid_t holder;

	ASSERT_EQ(0, text_write(self->path, "1"));
	holder = hold(self->accel, &release);
	ASSERT_LT(0, holder);

	ASSERT_TRUE(acl_ok_init());
	/* The held card is still counted: device numbers do not shift. */
	ASSERT_EQ(ACL_SUCCESS, aclrtGetDeviceCount(&count));
	EXPECT_EQ(self->ncards, (int)count);
	EXPECT_EQ(ACL_ERROR_RT_DEV_SETUP_ERROR, aclrtSetDevice(0));
	msg = aclGetRecentErrMsg();
	ASSERT_NE(NULL, msg);
	EXPECT_NE(NULL, strstr(msg, "exclusive")) TH_LOG("%s", msg);
	if (self->ncards > 1) {
		EXPECT_EQ(ACL_SUCCESS, aclrtSetDevice(1));
		EXPECT_EQ(ACL_SUCCESS, aclrtResetDevice(1));
	}

	/* The holder's file is released before its parent can reap it. */
	close(release);
	ASSERT_EQ(holder, waitpid(holder, NULL, 0));
	EXPECT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	EXPECT_EQ(ACL_SUCCESS, aclrtResetDevice(0));
	aclFinalize();
}

TEST_HARNESS_MAIN
