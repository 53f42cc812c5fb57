// SPDX-License-Identifier: MIT
/*
 * Streams created with ACL_STREAM_FAST_LAUNCH: copies and fills of device
 * and aclrtMallocHost memory go to a ring libascendcl writes itself, the
 * rest through the driver, and the stream keeps its order across the two;
 * memory freed behind queued copies, events and failures behave as on any
 * stream.
 */
#include "acl_test.h"
#include "kselftest_harness.h"

#define N (8 << 20)

FIXTURE(fast) {
	aclrtStream s;
	uint8_t *pinned, *pageable;
	void *d, *d2;
};

FIXTURE_SETUP(fast)
{
	uint32_t flags = 0;

	ASSERT_TRUE(acl_ok_init());
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStreamWithConfig(&self->s, 0, ACL_STREAM_FAST_LAUNCH));
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamGetFlags(self->s, &flags));
	ASSERT_EQ(ACL_STREAM_FAST_LAUNCH, flags);
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&self->pinned, N));
	self->pageable = malloc(N);
	ASSERT_NE(NULL, self->pageable);
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&self->d, N, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&self->d2, N, ACL_MEM_MALLOC_HUGE_FIRST));
}

FIXTURE_TEARDOWN(fast)
{
	free(self->pageable);
	clear_faults();
	aclrtResetDevice(0);
	aclFinalize();
}

/*
 * Direct copies, then a copy into pageable memory through the driver: the
 * driver's copy waits on the card for the direct ones; and back.
 */
TEST_F(fast, order_across_the_two_rings)
{
	unsigned int round;

	for (round = 0; round < 4; round++) {
		fill_pat(self->pinned, N, round);
		memset(self->pageable, 0, N);
		/* direct: pinned -> d -> d2 */
		ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->d, N, self->pinned, N,
							ACL_MEMCPY_HOST_TO_DEVICE, self->s));
		ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->d2, N, self->d, N,
							ACL_MEMCPY_DEVICE_TO_DEVICE, self->s));
		/* through the driver: d2 -> pageable memory */
		ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->pageable, N, self->d2, N,
							ACL_MEMCPY_DEVICE_TO_HOST, self->s));
		ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
		EXPECT_EQ(-1, check_pat(self->pageable, N, round));

		/* and the other way: pageable -> d (driver), d -> pinned (direct once that is done) */
		fill_pat(self->pageable, N, round + 100);
		ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->d, N, self->pageable, N,
							ACL_MEMCPY_HOST_TO_DEVICE, self->s));
		ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->pinned, N, self->d, N,
							ACL_MEMCPY_DEVICE_TO_HOST, self->s));
		ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
		EXPECT_EQ(-1, check_pat(self->pinned, N, round + 100));
	}
}

/* Fills, and an event recorded behind direct copies. */
TEST_F(fast, memset_and_event)
{
	aclrtEvent e;
	size_t i;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&e));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->d, N, 0x3c, N, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->pinned, N, self->d, N,
						ACL_MEMCPY_DEVICE_TO_HOST, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(e, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeEvent(e));
	for (i = 0; i < N; i += 4093)
		ASSERT_EQ(0x3c, self->pinned[i]);
	ASSERT_EQ(ACL_SUCCESS, aclrtDestroyEvent(e));
}

/*
 * Memory freed right behind the copies that use it: the copies still run
 * whole, and the stream does not fail.
 */
TEST_F(fast, free_behind_queued_copies)
{
	uint8_t *h;
	void *d;
	int i;

	for (i = 0; i < 8; i++) {
		ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&h, N));
		ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&d, N, ACL_MEM_MALLOC_HUGE_FIRST));
		fill_pat(h, N, i);
		ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(d, N, h, N, ACL_MEMCPY_HOST_TO_DEVICE,
							self->s));
		ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->d, N, d, N,
							ACL_MEMCPY_DEVICE_TO_DEVICE, self->s));
		ASSERT_EQ(ACL_SUCCESS, aclrtFree(d));
		ASSERT_EQ(ACL_SUCCESS, aclrtFreeHost(h));
		ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->pinned, N, self->d, N,
							ACL_MEMCPY_DEVICE_TO_HOST, self->s));
		ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
		EXPECT_EQ(-1, check_pat(self->pinned, N, i));
	}
}

/* Many small copies, more than the ring holds at once. */
TEST_F(fast, many_small_copies)
{
	unsigned int i;

	fill_pat(self->pinned, 4096 * 64, 5);
	for (i = 0; i < 5000; i++) {
		size_t off = (i % 64) * 4096;

		ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync((uint8_t *)self->d + off, 4096,
							self->pinned + off, 4096,
							ACL_MEMCPY_HOST_TO_DEVICE, self->s));
	}
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->pageable, 4096 * 64, self->d, 4096 * 64,
						ACL_MEMCPY_DEVICE_TO_HOST, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	EXPECT_EQ(-1, check_pat(self->pageable, 4096 * 64, 5));
}

/*
 * A new fast-launch stream whose two rings, the driver's and the direct
 * one, fail their next transfer: returns how many rings it armed (two),
 * the first two of them in armed[].
 */
static int fast_stream_failing_dma(aclrtStream *s, int armed[2])
{
	int before[128], after[128], nb, na, n = 0;
	char bdf[64];

	if (dev_bdf(0, bdf, sizeof(bdf)))
		return -1;
	nb = test_own_rings(bdf, before, 128);
	if (aclrtCreateStreamWithConfig(s, 0, ACL_STREAM_FAST_LAUNCH))
		return -1;
	na = test_own_rings(bdf, after, 128);
	for (int i = 0; i < na; i++) {
		int j;

		for (j = 0; j < nb && before[j] != after[i]; j++)
			;
		if (j == nb && !inject(0, "dma", after[i], -1)) {
			if (n < 2)
				armed[n] = after[i];
			n++;
		}
	}
	return n;
}

/*
 * A failed transfer on the direct ring is reported by the next
 * synchronization, and the stream carries on (on new rings).
 */
TEST_F(fast, failure_on_the_direct_ring)
{
	int armed[2];
	aclrtStream s2;

	if (!fault_injection_available())
		SKIP(return, "no fault injection (debugfs) on this machine");
	ASSERT_EQ(2, fast_stream_failing_dma(&s2, armed));

	fill_pat(self->pinned, N, 1);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->d, N, self->pinned, N,
						ACL_MEMCPY_HOST_TO_DEVICE, s2));
	EXPECT_EQ(ACL_ERROR_RT_SYS_DMA, aclrtSynchronizeStream(s2));
	/* the copy went to the direct ring: the driver's ring still has its fault armed */
	for (int i = 0; i < 2; i++)
		inject(0, "clear", armed[i], -1);
	/* carries on */
	fill_pat(self->pinned, N, 2);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->d, N, self->pinned, N,
						ACL_MEMCPY_HOST_TO_DEVICE, s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->pageable, N, self->d, N,
						ACL_MEMCPY_DEVICE_TO_HOST, s2));
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(s2));
	EXPECT_EQ(-1, check_pat(self->pageable, N, 2));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyStream(s2));
}

/*
 * An event recorded behind a transfer that fails on the direct ring (the
 * record goes there too) fails with it, with the transfer's error, rather
 * than never completing; the event then records anew on a live stream.
 */
TEST_F(fast, event_behind_a_failed_direct_copy)
{
	aclrtEventRecordedStatus status;
	int armed[2];
	aclrtEvent e;
	aclrtStream s2;

	if (!fault_injection_available())
		SKIP(return, "no fault injection (debugfs) on this machine");
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&e));
	ASSERT_EQ(2, fast_stream_failing_dma(&s2, armed));
	/*
	 * The copy fails only after the record is queued behind it: a stream
	 * already seen failed would take the record on a new ring instead.
	 */
	for (int i = 0; i < 2; i++)
		ASSERT_EQ(0, inject(0, "delay", armed[i], 100000));

	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->d, N, self->pinned, N,
						ACL_MEMCPY_HOST_TO_DEVICE, s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(e, s2));
	EXPECT_EQ(ACL_ERROR_RT_SYS_DMA, aclrtSynchronizeEventWithTimeout(e, 20000));
	for (int i = 0; i < 2; i++)
		inject(0, "clear", armed[i], -1);
	EXPECT_EQ(ACL_ERROR_RT_SYS_DMA, aclrtSynchronizeStream(s2));

	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->d, N, self->pinned, N,
						ACL_MEMCPY_HOST_TO_DEVICE, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(e, self->s));
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeEventWithTimeout(e, 20000));
	ASSERT_EQ(ACL_SUCCESS, aclrtQueryEventStatus(e, &status));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status);
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyEvent(e));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyStream(s2));
}

TEST_HARNESS_MAIN
