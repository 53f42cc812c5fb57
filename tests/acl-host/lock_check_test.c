// SPDX-License-Identifier: MIT
/*
 * libascendcl's lock checks, on the host, linked alone
 * (libacl/src/lock.c and the locks of libacl/src/acl_internal.h): a
 * helper that asserts its lock passes while its thread holds it, also
 * after a condition wait, and aborts when no thread or another thread
 * holds it; one that asserts a rwlock passes under a read or a write
 * lock, and aborts once both are let go.
 */
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "acl_internal.h"
#include "kselftest_harness.h"

static struct acl_mutex lock = ACL_MUTEX_INITIALIZER;
static struct acl_rwlock rwlock = ACL_RWLOCK_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;

static void needs_lock(void)
{
	ACL_ASSERT_HELD(&lock);
}

static void needs_rwlock(void)
{
	ACL_ASSERT_RWLOCK_HELD(&rwlock);
}

static void *hold_lock(void *started)
{
	acl_mutex_lock(&lock);
	__atomic_store_n((bool *)started, true, __ATOMIC_RELEASE);
	pause();	/* until the test's process ends */
	return NULL;
}

/*
 * Whether fn aborts, run in a child: the harness takes a test's SIGABRT
 * for a failed assertion of its own.
 */
static bool aborts(void (*fn)(void))
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		close(STDERR_FILENO);	/* the expected complaint */
		fn();
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return false;
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

TEST(held_mutex_passes)
{
	acl_mutex_lock(&lock);
	needs_lock();
	acl_mutex_unlock(&lock);
	ASSERT_TRUE(acl_mutex_trylock(&lock));
	needs_lock();
	acl_mutex_unlock(&lock);
}

TEST(condition_wait_keeps_the_holder)
{
	struct timespec past = { 0, 0 };

	acl_mutex_lock(&lock);
	acl_cond_timedwait(&cond, &lock, &past);
	needs_lock();
	acl_mutex_unlock(&lock);
}

static void after_unlock(void)
{
	acl_mutex_lock(&lock);
	acl_mutex_unlock(&lock);
	needs_lock();
}

TEST(free_mutex_aborts)
{
	ASSERT_TRUE(aborts(after_unlock));
}

static void while_another_thread_holds(void)
{
	bool started = false;
	pthread_t t;

	if (pthread_create(&t, NULL, hold_lock, &started))
		_exit(1);
	while (!__atomic_load_n(&started, __ATOMIC_ACQUIRE))
		usleep(1000);
	needs_lock();
}

TEST(mutex_of_another_thread_aborts)
{
	ASSERT_TRUE(aborts(while_another_thread_holds));
}

TEST(held_rwlock_passes)
{
	acl_rwlock_rdlock(&rwlock);
	needs_rwlock();
	acl_rwlock_unlock(&rwlock);
	acl_rwlock_wrlock(&rwlock);
	needs_rwlock();
	acl_rwlock_unlock(&rwlock);
}

static void after_rwlock_unlocks(void)
{
	acl_rwlock_wrlock(&rwlock);
	acl_rwlock_unlock(&rwlock);
	acl_rwlock_rdlock(&rwlock);
	acl_rwlock_unlock(&rwlock);
	needs_rwlock();
}

TEST(released_rwlock_aborts)
{
	ASSERT_TRUE(aborts(after_rwlock_unlocks));
}

TEST_HARNESS_MAIN
