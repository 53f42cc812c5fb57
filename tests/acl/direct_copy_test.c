// SPDX-License-Identifier: MIT
/*
 * Streams created without ACL_STREAM_FAST_LAUNCH: their first copy or fill
 * between device memory and aclrtMallocHost memory gives them a direct ring
 * (fast_launch_test.c covers what runs on one), unless the card is short of
 * rings; direct rings never cost an application a stream.
 */
#include "acl_test.h"
#include "npu_test_ioctl.h"
#include "kselftest_harness.h"

#define N (1 << 20)
#define MAX_RINGS 128

FIXTURE(plain) {
	char bdf[64];
	uint8_t *pinned, *pageable;
	void *d;
};

FIXTURE_SETUP(plain)
{
	ASSERT_TRUE(acl_ok_init());
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(0, dev_bdf(0, self->bdf, sizeof(self->bdf)));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&self->pinned, N));
	self->pageable = malloc(N);
	ASSERT_NE(NULL, self->pageable);
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&self->d, N, ACL_MEM_MALLOC_HUGE_FIRST));
}

FIXTURE_TEARDOWN(plain)
{
	free(self->pageable);
	aclrtResetDevice(0);
	aclFinalize();
}

/* Of this process's rings, how many run direct streams. */
static int direct_rings(const char *bdf)
{
	int rings[MAX_RINGS], n = test_own_rings(bdf, rings, MAX_RINGS), d = 0;
	char state[32];

	for (int i = 0; i < n; i++)
		if (test_stream_attr(bdf, rings[i], "state", state, sizeof(state)) != -1 &&
		    !strncmp(state, "direct", 6))
			d++;
	return d;
}

/* Pinned -> device -> pinned, checked, on stream @s. */
static int round_trip(void *d, uint8_t *pinned, unsigned int seed, aclrtStream s)
{
	fill_pat(pinned, N, seed);
	if (aclrtMemcpyAsync(d, N, pinned, N, ACL_MEMCPY_HOST_TO_DEVICE, s))
		return -1;
	if (aclrtMemsetAsync(pinned, N, 0, N, s))
		return -1;
	if (aclrtMemcpyAsync(pinned, N, d, N, ACL_MEMCPY_DEVICE_TO_HOST, s))
		return -1;
	if (aclrtSynchronizeStream(s))
		return -1;
	return check_pat(pinned, N, seed) == -1 ? 0 : -1;
}

/* The card of ACL device 0, opened through the driver. */
static int open_same_card(const char *bdf, struct test_card *card)
{
	for (int n = 0; n < TEST_MAX_DEVS; n++) {
		memset(card, 0, sizeof(*card));
		card->fd = -1;
		if (test_card_open(card, n))
			return -1;
		if (!strcmp(card->bdf, bdf))
			return 0;
		test_card_close(card);
	}
	return -1;
}

TEST_F(plain, a_copy_takes_a_direct_ring)
{
	int before[MAX_RINGS], nb, na;
	aclrtStream s;

	nb = test_own_rings(self->bdf, before, MAX_RINGS);
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	ASSERT_EQ(nb + 1, test_own_rings(self->bdf, before, MAX_RINGS));
	ASSERT_EQ(0, direct_rings(self->bdf));

	ASSERT_EQ(0, round_trip(self->d, self->pinned, 1, s));
	na = test_own_rings(self->bdf, before, MAX_RINGS);
	EXPECT_EQ(nb + 2, na);
	EXPECT_EQ(1, direct_rings(self->bdf));
	/* and keeps it: later copies take no other */
	ASSERT_EQ(0, round_trip(self->d, self->pinned, 2, s));
	EXPECT_EQ(na, test_own_rings(self->bdf, before, MAX_RINGS));
	ASSERT_EQ(ACL_SUCCESS, aclrtDestroyStream(s));
	EXPECT_EQ(nb, test_own_rings(self->bdf, before, MAX_RINGS));
}

/* Pageable memory has no binding: such copies go through the driver. */
TEST_F(plain, pageable_copies_take_none)
{
	int rings[MAX_RINGS], nb;
	aclrtStream s;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	nb = test_own_rings(self->bdf, rings, MAX_RINGS);
	fill_pat(self->pageable, N, 3);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->d, N, self->pageable, N,
						ACL_MEMCPY_HOST_TO_DEVICE, s));
	memset(self->pageable, 0, N);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->pageable, N, self->d, N,
						ACL_MEMCPY_DEVICE_TO_HOST, s));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(s));
	EXPECT_EQ(-1, check_pat(self->pageable, N, 3));
	EXPECT_EQ(nb, test_own_rings(self->bdf, rings, MAX_RINGS));
	EXPECT_EQ(0, direct_rings(self->bdf));
	ASSERT_EQ(ACL_SUCCESS, aclrtDestroyStream(s));
}

/*
 * With a quarter of the card's rings or fewer free, another process's
 * streams need them more: a stream copies through the driver instead.
 */
TEST_F(plain, a_crowded_card_keeps_its_rings)
{
	struct drm_npu_stream_create held[MAX_RINGS];
	struct test_card other;
	uint64_t free_rings, num_rings;
	int rings[MAX_RINGS], nheld = 0, nb;
	aclrtStream s;

	ASSERT_EQ(0, open_same_card(self->bdf, &other));
	num_rings = test_param_or_die(other.fd, DRM_NPU_PARAM_NUM_RINGS);
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	nb = test_own_rings(self->bdf, rings, MAX_RINGS);
	/* the other file takes rings until a quarter are left */
	while ((free_rings = test_param_or_die(other.fd, DRM_NPU_PARAM_FREE_RINGS)) >
	       num_rings / 4)
		ASSERT_EQ(0, test_stream_create(other.fd, 0, 0, &held[nheld++]));
	TH_LOG("%d rings held elsewhere, %llu of %llu free", nheld,
	       (unsigned long long)free_rings, (unsigned long long)num_rings);

	ASSERT_EQ(0, round_trip(self->d, self->pinned, 4, s));
	EXPECT_EQ(0, direct_rings(self->bdf));
	EXPECT_EQ(free_rings, test_param_or_die(other.fd, DRM_NPU_PARAM_FREE_RINGS));
	/* the other file's streams are not this process's */
	EXPECT_EQ(nb + nheld, test_own_rings(self->bdf, rings, MAX_RINGS));
	ASSERT_EQ(ACL_SUCCESS, aclrtDestroyStream(s));
	test_card_close(&other);
}

/*
 * Streams that took direct rings do not lower how many streams an
 * application gets: a new stream takes an idle direct ring back.
 */
TEST_F(plain, as_many_streams_as_without)
{
	aclrtStream s[MAX_RINGS];
	uint32_t avail = 0, now = 0;
	aclError r = ACL_SUCCESS;
	int n = 0, direct_max = 0;

	ASSERT_EQ(ACL_SUCCESS, aclrtGetStreamAvailableNum(&avail));
	while (n < MAX_RINGS && (r = aclrtCreateStream(&s[n])) == ACL_SUCCESS) {
		ASSERT_EQ(0, round_trip(self->d, self->pinned, (unsigned int)n, s[n]));
		n++;
		/* a held direct ring counts as available: it is given back on demand */
		ASSERT_EQ(ACL_SUCCESS, aclrtGetStreamAvailableNum(&now));
		ASSERT_EQ(avail - n, now);
		if (direct_rings(self->bdf) > direct_max)
			direct_max = direct_rings(self->bdf);
	}
	TH_LOG("%d streams of %u available; at most %d direct rings", n, avail, direct_max);
	EXPECT_EQ(ACL_ERROR_RT_NO_STREAM_RESOURCE, r);
	EXPECT_EQ((int)avail, n);
	EXPECT_GE(direct_max, 1);
	EXPECT_EQ(0, direct_rings(self->bdf));
	/* every stream still copies, direct ring or not */
	for (int i = 0; i < n; i += 7)
		EXPECT_EQ(0, round_trip(self->d, self->pinned, 100 + i, s[i]));
	while (n > 0)
		ASSERT_EQ(ACL_SUCCESS, aclrtDestroyStream(s[--n]));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetStreamAvailableNum(&now));
	EXPECT_EQ(avail, now);
}

TEST_HARNESS_MAIN
