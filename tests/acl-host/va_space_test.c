// SPDX-License-Identifier: MIT
/*
 * The process-wide reservation allocator (libacl/src/va_space.c), on the
 * host, linked alone: first fit above DRM_NPU_VA_USER_BASE, alignment,
 * an expected address honoured when free and refused when taken or
 * misaligned, release and reuse, lookups inside a reservation, the end
 * of the range, and threads reserving at once never overlapping.
 */
#include <errno.h>
#include <pthread.h>

#include "npu_accel.h"
#include "va_space.h"
#include "kselftest_harness.h"

#define MiB (1ULL << 20)
#define GiB (1ULL << 30)
#define START DRM_NPU_VA_USER_BASE
#define END (DRM_NPU_DEVICE_ADDR_BASE + (1ULL << 39))

TEST(first_fit_alignment_release)
{
	uint64_t a, b, c, s, n;

	ASSERT_EQ(0, acl_va_reserve(2 * MiB, 2 * MiB, 0, &a));
	EXPECT_EQ(START, a);
	/* 1 GiB alignment: the next free 1 GiB boundary past a's 2 MiB */
	ASSERT_EQ(0, acl_va_reserve(4096, GiB, 0, &b));
	EXPECT_EQ(START + GiB, b);
	/* a page-sized request fits between them, right after a */
	ASSERT_EQ(0, acl_va_reserve(100, 4096, 0, &c));
	EXPECT_EQ(START + 2 * MiB, c);
	ASSERT_EQ(0, acl_va_lookup(c + 4095, &s, &n));
	EXPECT_EQ(c, s);
	EXPECT_EQ(4096, n);		/* rounded up to a page */
	EXPECT_EQ(-ENOENT, acl_va_lookup(c + 4096, &s, &n));
	EXPECT_EQ(-ENOENT, acl_va_release(c + 4096));
	EXPECT_EQ(0, acl_va_release(a));
	EXPECT_EQ(-ENOENT, acl_va_release(a));
	EXPECT_EQ(-ENOENT, acl_va_lookup(a, &s, &n));
	ASSERT_EQ(0, acl_va_reserve(2 * MiB, 2 * MiB, 0, &a));
	EXPECT_EQ(START, a);		/* the hole is reused */
	EXPECT_EQ(0, acl_va_release(a));
	EXPECT_EQ(0, acl_va_release(b));
	EXPECT_EQ(0, acl_va_release(c));
}

TEST(expected_address)
{
	uint64_t want = START + 64 * GiB, a, b;

	ASSERT_EQ(0, acl_va_reserve(4 * MiB, 2 * MiB, want, &a));
	EXPECT_EQ(want, a);
	/* taken, also when only its last page overlaps */
	EXPECT_EQ(-EEXIST, acl_va_reserve(2 * MiB, 2 * MiB, want + 2 * MiB, &b));
	EXPECT_EQ(-EEXIST, acl_va_reserve(4 * MiB, 2 * MiB, want - 2 * MiB, &b));
	ASSERT_EQ(0, acl_va_reserve(2 * MiB, 2 * MiB, want - 2 * MiB, &b));
	EXPECT_EQ(want - 2 * MiB, b);
	EXPECT_EQ(0, acl_va_release(b));
	/* misaligned, below the range, past its end */
	EXPECT_EQ(-EINVAL, acl_va_reserve(2 * MiB, 2 * MiB, want + 4096, &b));
	EXPECT_EQ(-EINVAL, acl_va_reserve(2 * MiB, 2 * MiB, START - 2 * MiB, &b));
	EXPECT_EQ(-EINVAL, acl_va_reserve(4 * MiB, 2 * MiB, END - 2 * MiB, &b));
	ASSERT_EQ(0, acl_va_reserve(2 * MiB, 2 * MiB, END - 2 * MiB, &b));
	EXPECT_EQ(0, acl_va_release(b));
	EXPECT_EQ(0, acl_va_release(a));
}

TEST(bad_arguments_and_exhaustion)
{
	uint64_t a, b;

	EXPECT_EQ(-EINVAL, acl_va_reserve(0, 4096, 0, &a));
	EXPECT_EQ(-EINVAL, acl_va_reserve(4096, 0, 0, &a));
	EXPECT_EQ(-EINVAL, acl_va_reserve(4096, 3 * 4096, 0, &a));
	EXPECT_EQ(-EINVAL, acl_va_reserve(4096, 2048, 0, &a));
	EXPECT_EQ(-EINVAL, acl_va_reserve(END - START + 4096, 4096, 0, &a));
	/* the whole range, then nothing more */
	ASSERT_EQ(0, acl_va_reserve(END - START, 4096, 0, &a));
	EXPECT_EQ(START, a);
	EXPECT_EQ(-ENOMEM, acl_va_reserve(4096, 4096, 0, &b));
	EXPECT_EQ(0, acl_va_release(a));
}

#define THREADS 4
#define PER_THREAD 200

static void *reserve_many(void *arg)
{
	uint64_t *out = arg;

	for (int i = 0; i < PER_THREAD; i++)
		if (acl_va_reserve(4096 * (1 + i % 3), 4096, 0, &out[i]))
			out[i] = 0;
	return NULL;
}

TEST(threads_never_overlap)
{
	static uint64_t got[THREADS][PER_THREAD];
	pthread_t t[THREADS];
	uint64_t s, n;
	int i, j;

	for (i = 0; i < THREADS; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, reserve_many, got[i]));
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	/* every reservation is found whole at its own start: none overlaps another */
	for (i = 0; i < THREADS; i++) {
		for (j = 0; j < PER_THREAD; j++) {
			ASSERT_NE(0, got[i][j]);
			ASSERT_EQ(0, acl_va_lookup(got[i][j] + 4096 * (1 + j % 3) - 1, &s, &n));
			EXPECT_EQ(got[i][j], s);
			EXPECT_EQ(4096 * (1 + j % 3), n);
		}
	}
	for (i = 0; i < THREADS; i++)
		for (j = 0; j < PER_THREAD; j++)
			EXPECT_EQ(0, acl_va_release(got[i][j]));
}

TEST_HARNESS_MAIN
