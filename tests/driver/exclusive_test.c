// SPDX-License-Identifier: GPL-2.0-only
/*
 * Exclusive mode (npu/exclusive, docs/ABI/sysfs-driver-npu): while it is
 * set, a second process's open of the card fails with EBUSY; the holder
 * opens it as often as it likes; closing, or the holder being killed,
 * lets the next process in; setting it while two processes share the card
 * is refused.
 */

#include <signal.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "npu_test_ioctl.h"

FIXTURE(exclusive) {
	struct test_card card;
	char path[PATH_MAX];
};

static int set_exclusive(struct _test_data_exclusive *self, const char *value)
{
	return text_write(self->path, value);
}

static int read_exclusive(struct _test_data_exclusive *self)
{
	char buf[8];

	if (text_read(self->path, buf, sizeof(buf)))
		return -1;
	return atoi(buf);
}

/* Opens card 0 in a new process: 0, or the errno its open failed with. */
static int open_in_child(void)
{
	struct test_card card;
	pid_t pid = fork();
	int status, ret;

	if (pid == 0) {
		ret = test_card_open(&card, 0);
		_exit(ret ? -ret : 0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

FIXTURE_SETUP(exclusive)
{
	self->card.fd = -1;
	ASSERT_EQ(0, test_card_open(&self->card, 0));
	snprintf(self->path, sizeof(self->path), TEST_PCI_DEVICES "/%s/npu/exclusive",
		 self->card.bdf);
	test_card_close(&self->card);
	ASSERT_EQ(0, read_exclusive(self));
}

FIXTURE_TEARDOWN(exclusive)
{
	test_card_close(&self->card);
	EXPECT_EQ(0, set_exclusive(self, "0"));
}

TEST_F(exclusive, off_by_default_two_processes_share)
{
	ASSERT_EQ(0, test_card_open(&self->card, 0));
	EXPECT_EQ(0, open_in_child());
}

TEST_F(exclusive, second_process_refused_holder_opens_again)
{
	struct test_card again = { .fd = -1 };

	ASSERT_EQ(0, set_exclusive(self, "1"));
	EXPECT_EQ(1, read_exclusive(self));
	ASSERT_EQ(0, test_card_open(&self->card, 0));
	EXPECT_EQ(EBUSY, open_in_child());
	/* One process, any number of files. */
	ASSERT_EQ(0, test_card_open(&again, 0));
	test_card_close(&again);
	EXPECT_EQ(EBUSY, open_in_child());
}

TEST_F(exclusive, free_card_opens_once_exclusive)
{
	ASSERT_EQ(0, set_exclusive(self, "1"));
	EXPECT_EQ(0, open_in_child());
	EXPECT_EQ(0, open_in_child());
}

TEST_F(exclusive, close_releases)
{
	ASSERT_EQ(0, set_exclusive(self, "1"));
	ASSERT_EQ(0, test_card_open(&self->card, 0));
	EXPECT_EQ(EBUSY, open_in_child());
	test_card_close(&self->card);
	EXPECT_EQ(0, open_in_child());
}

TEST_F(exclusive, killed_holder_releases)
{
	int ready[2], status;
	char c = 0;
	pid_t holder;

	ASSERT_EQ(0, set_exclusive(self, "1"));
	ASSERT_EQ(0, pipe(ready));
	holder = fork();
	ASSERT_LE(0, holder);
	if (holder == 0) {
		struct test_card card;

		c = test_card_open(&card, 0) ? 'n' : 'y';
		if (write(ready[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	ASSERT_EQ(1, read(ready[0], &c, 1));
	ASSERT_EQ('y', c);
	EXPECT_EQ(-EBUSY, test_card_open(&self->card, 0));
	/* The holder's files are released before its parent can reap it. */
	ASSERT_EQ(0, kill(holder, SIGKILL));
	ASSERT_EQ(holder, waitpid(holder, &status, 0));
	EXPECT_EQ(0, test_card_open(&self->card, 0));
	close(ready[0]);
	close(ready[1]);
}

TEST_F(exclusive, setting_refused_while_shared)
{
	int ready[2], done[2];
	char c = 0;
	pid_t other;

	ASSERT_EQ(0, test_card_open(&self->card, 0));
	/* One process holding the card may be given it alone. */
	EXPECT_EQ(0, set_exclusive(self, "1"));
	EXPECT_EQ(0, set_exclusive(self, "0"));
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(done));
	other = fork();
	ASSERT_LE(0, other);
	if (other == 0) {
		struct test_card card;

		c = test_card_open(&card, 0) ? 'n' : 'y';
		if (write(ready[1], &c, 1) != 1 || read(done[0], &c, 1) != 1)
			_exit(1);
		_exit(0);
	}
	ASSERT_EQ(1, read(ready[0], &c, 1));
	ASSERT_EQ('y', c);
	EXPECT_EQ(-EBUSY, set_exclusive(self, "1"));
	EXPECT_EQ(0, read_exclusive(self));
	ASSERT_EQ(1, write(done[1], "x", 1));
	ASSERT_EQ(other, waitpid(other, NULL, 0));
	EXPECT_EQ(0, set_exclusive(self, "1"));
	close(ready[0]);
	close(ready[1]);
	close(done[0]);
	close(done[1]);
}

TEST_F(exclusive, bad_values_refused)
{
	EXPECT_EQ(-EINVAL, set_exclusive(self, "2"));
	EXPECT_EQ(-EINVAL, set_exclusive(self, "yes"));
	EXPECT_EQ(0, read_exclusive(self));
}

/* The other card is not affected. */
TEST_F(exclusive, per_card)
{
	struct test_card other = { .fd = -1 };
	pid_t pid;
	int status;

	if (test_card_open(&other, 1))
		SKIP(return, "one card only");
	test_card_close(&other);
	ASSERT_EQ(0, set_exclusive(self, "1"));
	ASSERT_EQ(0, test_card_open(&self->card, 0));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(test_card_open(&other, 1) ? 1 : 0);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST_HARNESS_MAIN
