// SPDX-License-Identifier: MIT
/*
 * A thread waits on a stream whose ring another thread replaces
 * (aclrtStreamAbort, or the recovery after a failed DMA). Replacing it
 * gives the old ring's fence slot back to the driver, which may hand the
 * slot to the next stream at once, with value 0. The waiter must still
 * get the old ring's outcome: not an error about an unknown slot, not the
 * new owner's progress taken for its own, and no endless wait.
 *
 * To make that deterministic the test holds the waiter just before it
 * sleeps in the kernel, by interposing drmIoctl, until the slot has changed
 * hands.
 */
#include "acl_test.h"
#include "kselftest_harness.h"

#include <dlfcn.h>
#include <linux/ioctl.h>

#define N (64 << 10)

/* DRM_IOCTL_NPU_WAIT: DRM_IOW(DRM_COMMAND_BASE (0x40) + 0x05, ...) */
static bool is_npu_wait(unsigned long req)
{
	return _IOC_TYPE(req) == 'd' && _IOC_NR(req) == 0x40 + 0x05;
}

static __thread bool hold_my_wait;	/* the thread's next NPU wait is held */
static atomic_int held, go;

int drmIoctl(int fd, unsigned long request, void *arg);

int drmIoctl(int fd, unsigned long request, void *arg)
{
	static int (*real)(int, unsigned long, void *);

	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "drmIoctl");
	if (hold_my_wait && is_npu_wait(request)) {
		hold_my_wait = false;
		atomic_store(&held, 1);
		for (int i = 0; i < 10000 && !atomic_load(&go); i++)
			sleep_ms(1);
	}
	return real(fd, request, arg);
}

struct waiter {
	aclrtStream s;
	aclError err;
	char msg[256];
	pthread_t th;
};

static void *wait_for_stream(void *arg)
{
	struct waiter *w = arg;
	const char *m;

	hold_my_wait = true;
	w->err = aclrtSynchronizeStream(w->s);
	m = aclGetRecentErrMsg();
	snprintf(w->msg, sizeof(w->msg), "%s", m ? m : "");
	return NULL;
}

/* Starts the waiter on s and returns once it is about to sleep in the kernel. */
static int start_waiter(struct waiter *w, aclrtStream s)
{
	atomic_store(&held, 0);
	atomic_store(&go, 0);
	w->s = s;
	if (pthread_create(&w->th, NULL, wait_for_stream, w))
		return -1;
	test_wait_until(atomic_load(&held), TEST_SETTLE_MS);
	return atomic_load(&held) ? 0 : -1;
}

/* Lets the waiter go on; 0 once it has returned (10 s at most). */
static int finish_waiter(struct waiter *w)
{
	struct timespec until;

	atomic_store(&go, 1);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;
	return pthread_timedjoin_np(w->th, NULL, &until);
}

/* A new stream that has completed one submission: it likely got the freed slot. */
static aclError new_stream_past_one(aclrtStream *s, void *d)
{
	aclError r = aclrtCreateStream(s);

	if (!r)
		r = aclrtMemsetAsync(d, N, 7, N, *s);
	if (!r)
		r = aclrtMemsetAsync(d, N, 8, N, *s);
	return r ? r : aclrtSynchronizeStream(*s);
}

FIXTURE(dev) {
	aclrtStream s, other;
	struct gate g;
	struct waiter w;
	void *d;
};

FIXTURE_SETUP(dev)
{
	ASSERT_TRUE(acl_ok_init());
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&self->d, N, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(ACL_SUCCESS, gate_init(&self->g));
}

FIXTURE_TEARDOWN(dev)
{
	clear_faults();
	aclrtResetDevice(0);
	aclFinalize();
}

/* The slot is handed to a new stream that gets past the waiter's target. */
TEST_F(dev, abort_while_another_thread_waits)
{
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&self->s));
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&self->g, self->s));
	ASSERT_EQ(0, start_waiter(&self->w, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamAbort(self->s));
	ASSERT_EQ(ACL_SUCCESS, new_stream_past_one(&self->other, self->d));
	ASSERT_EQ(0, finish_waiter(&self->w)) {
		TH_LOG("the waiter is stuck on a slot that changed hands");
	}
	EXPECT_EQ(ACL_ERROR_RT_STREAM_ABORT, self->w.err);
	EXPECT_NE(NULL, strstr(self->w.msg, "aborted")) {
		TH_LOG("message: %s", self->w.msg);
	}
	/* the stream goes on */
	EXPECT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->d, N, 1, N, self->s));
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	gate_fini(&self->g);
}

/* The slot stays free: the driver does not know it any more. */
TEST_F(dev, abort_leaves_the_slot_free)
{
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&self->s));
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&self->g, self->s));
	ASSERT_EQ(0, start_waiter(&self->w, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamAbort(self->s));
	ASSERT_EQ(0, finish_waiter(&self->w));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_ABORT, self->w.err);
	gate_fini(&self->g);
}

/* Recovery after a failed DMA retires the ring the waiter sleeps on. */
TEST_F(dev, failure_recovered_while_another_thread_waits)
{
	uint8_t *host;
	const char *msg;
	int ring;

	if (!fault_injection_available())
		SKIP(return, "no fault injection (debugfs) on this machine");
	ring = create_stream_ring(0, &self->s);
	ASSERT_GE(ring, 0);
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&host, N));
	ASSERT_EQ(0, inject(0, "dma", ring, -1));
	/* the failing copy waits behind the gate until both threads wait */
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&self->g, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->d, N, host, N, ACL_MEMCPY_HOST_TO_DEVICE,
						self->s));
	ASSERT_EQ(0, start_waiter(&self->w, self->s));
	ASSERT_EQ(ACL_SUCCESS, gate_open(&self->g));
	/* this thread sees the failure first and moves the stream to a new ring */
	EXPECT_EQ(ACL_ERROR_RT_SYS_DMA, aclrtSynchronizeStream(self->s));
	msg = aclGetRecentErrMsg();
	ASSERT_NE(NULL, msg);
	EXPECT_NE(NULL, strstr(msg, "DMA"));
	ASSERT_EQ(ACL_SUCCESS, new_stream_past_one(&self->other, self->d));
	ASSERT_EQ(0, finish_waiter(&self->w)) {
		TH_LOG("the waiter is stuck on a slot that changed hands");
	}
	EXPECT_EQ(ACL_ERROR_RT_SYS_DMA, self->w.err);
	EXPECT_NE(NULL, strstr(self->w.msg, "DMA")) {
		TH_LOG("message: %s", self->w.msg);
	}
	inject(0, "clear", ring, -1);
	EXPECT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->d, N, 1, N, self->s));
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	aclrtFreeHost(host);
	gate_fini(&self->g);
}

TEST_HARNESS_MAIN
