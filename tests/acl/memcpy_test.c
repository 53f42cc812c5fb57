// SPDX-License-Identifier: MIT
/*
 * Copies and fills: data integrity through every kind (incl. DEFAULT,
 * HOST_TO_HOST and HOST_TO_BUF_TO_DEVICE), pinned / pageable / registered host memory, sizes from a
 * byte to tens of MiB at unaligned offsets, 2D copies, memset, the
 * argument checks, and aclrtValueWrite/aclrtValueWait.
 */
#include "acl_test.h"
#include "kselftest_harness.h"

#define BIG (40u << 20)

FIXTURE(dev) {
	aclrtStream s;
	uint8_t *pin_a, *pin_b;		/* aclrtMallocHost */
	uint8_t *pg_a, *pg_b;		/* malloc */
	void *d_a, *d_b;		/* device */
};

FIXTURE_SETUP(dev)
{
	ASSERT_TRUE(acl_ok_init());
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&self->pin_a, BIG + 4096));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&self->pin_b, BIG + 4096));
	self->pg_a = malloc(BIG + 4096);
	self->pg_b = malloc(BIG + 4096);
	ASSERT_NE(NULL, self->pg_a);
	ASSERT_NE(NULL, self->pg_b);
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&self->d_a, BIG + 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&self->d_b, BIG + 4096, ACL_MEM_MALLOC_HUGE_FIRST));
}

FIXTURE_TEARDOWN(dev)
{
	free(self->pg_a);
	free(self->pg_b);
	aclrtResetDevice(0);
	aclFinalize();
}

/* host src -> dev -> dev -> host dst, through the given kinds */
static int roundtrip(struct _test_data_dev *self, uint8_t *src, uint8_t *dst, size_t n,
		     size_t soff, size_t doff, unsigned seed, bool async, bool infer)
{
	uint8_t *da = (uint8_t *)self->d_a + doff, *db = (uint8_t *)self->d_b + soff;
	aclrtMemcpyKind h2d = infer ? ACL_MEMCPY_DEFAULT : ACL_MEMCPY_HOST_TO_DEVICE;
	aclrtMemcpyKind d2d = infer ? ACL_MEMCPY_DEFAULT : ACL_MEMCPY_DEVICE_TO_DEVICE;
	aclrtMemcpyKind d2h = infer ? ACL_MEMCPY_DEFAULT : ACL_MEMCPY_DEVICE_TO_HOST;
	long bad;

	fill_pat(src + soff, n, seed);
	memset(dst + doff, 0, n);
	if (async) {
		if (aclrtMemcpyAsync(da, n, src + soff, n, h2d, self->s) ||
		    aclrtMemcpyAsync(db, n, da, n, d2d, self->s) ||
		    aclrtMemcpyAsync(dst + doff, n, db, n, d2h, self->s) ||
		    aclrtSynchronizeStream(self->s))
			return -2;
	} else {
		if (aclrtMemcpy(da, n, src + soff, n, h2d) || aclrtMemcpy(db, n, da, n, d2d) ||
		    aclrtMemcpy(dst + doff, n, db, n, d2h))
			return -2;
	}
	bad = check_pat(dst + doff, n, seed);
	return bad < 0 ? 0 : (int)(bad + 1);
}

static const size_t sizes[] = { 1, 7, 63, 64, 65, 4095, 4096, 4097, 100003, 1 << 20,
				(3 << 20) + 5, 17 << 20, BIG };
static const size_t offs[] = { 0, 1, 63, 4095 };

TEST_F(dev, sync_pinned)
{
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (size_t j = 0; j < 2; j++)
			ASSERT_EQ(0, roundtrip(self, self->pin_a, self->pin_b, sizes[i], offs[j],
					       offs[3 - j], (unsigned)i, false, false));
}

TEST_F(dev, sync_pageable)
{
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		ASSERT_EQ(0, roundtrip(self, self->pg_a, self->pg_b, sizes[i], offs[i % 4],
				       offs[(i + 1) % 4], (unsigned)i + 20, false, false));
}

TEST_F(dev, async_pinned)
{
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		ASSERT_EQ(0, roundtrip(self, self->pin_a, self->pin_b, sizes[i], offs[(i + 2) % 4],
				       offs[i % 4], (unsigned)i + 40, true, false));
}

TEST_F(dev, async_pageable)
{
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		ASSERT_EQ(0, roundtrip(self, self->pg_a, self->pg_b, sizes[i], offs[(i + 3) % 4],
				       offs[(i + 1) % 4], (unsigned)i + 60, true, false));
}

TEST_F(dev, async_mixed_and_inferred)
{
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		ASSERT_EQ(0, roundtrip(self, self->pg_a, self->pin_b, sizes[i], offs[i % 4],
				       offs[(i + 2) % 4], (unsigned)i + 80, true, true));
		ASSERT_EQ(0, roundtrip(self, self->pin_a, self->pg_b, sizes[i], 0, 0,
				       (unsigned)i + 100, false, true));
	}
}

/*
 * Host to device through each kind that allows it, HOST_TO_BUF_TO_DEVICE
 * included, sync and async, from pinned and pageable memory; read back.
 */
TEST_F(dev, every_host_to_device_kind)
{
	static const aclrtMemcpyKind kinds[] = { ACL_MEMCPY_HOST_TO_DEVICE,
						 ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE,
						 ACL_MEMCPY_DEFAULT };
	const size_t n = (1 << 20) + 13;
	unsigned seed = 300;

	for (size_t k = 0; k < 3; k++) {
		for (int pinned = 0; pinned < 2; pinned++) {
			for (int async = 0; async < 2; async++, seed++) {
				uint8_t *src = pinned ? self->pin_a : self->pg_a;
				uint8_t *dst = pinned ? self->pg_b : self->pin_b;
				aclError r;

				fill_pat(src + 5, n, seed);
				memset(dst, 0, n);
				r = async ? aclrtMemcpyAsync(self->d_a, n, src + 5, n, kinds[k], self->s)
					  : aclrtMemcpy(self->d_a, n, src + 5, n, kinds[k]);
				ASSERT_EQ(ACL_SUCCESS, r);
				ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
				ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(dst, n, self->d_a, n,
								   ACL_MEMCPY_DEVICE_TO_HOST));
				EXPECT_EQ(-1, check_pat(dst, n, seed)) {
					TH_LOG("kind %d, %s, %s", (int)kinds[k],
					       pinned ? "pinned" : "pageable", async ? "async" : "sync");
				}
			}
		}
	}
	/* 2D too */
	fill_pat(self->pg_a, 64 * 100, seed);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy2d(self->d_a, 64, self->pg_a, 64, 64, 100,
					     ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE));
	memset(self->pg_b, 0, 64 * 100);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(self->pg_b, 64 * 100, self->d_a, 64 * 100,
					   ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pat(self->pg_b, 64 * 100, seed));
	/* the kind still has to match the pointers */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(self->pg_b, 64, self->d_a, 64,
						       ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(self->d_b, 64, self->d_a, 64,
						       ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE));
}

TEST_F(dev, pageable_async_completes_before_return)
{
	size_t n = 8 << 20;
	uint8_t *src = malloc(n), *dst = malloc(n);

	ASSERT_NE(NULL, src);
	ASSERT_NE(NULL, dst);
	fill_pat(src, n, 7);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->d_a, n, src, n, ACL_MEMCPY_HOST_TO_DEVICE,
						self->s));
	/* the source may be reused at once */
	memset(src, 0xee, n);
	memset(dst, 0, n);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(dst, n, self->d_a, n, ACL_MEMCPY_DEVICE_TO_HOST,
						self->s));
	/* and the destination is filled when the call returns */
	EXPECT_EQ(-1, check_pat(dst, n, 7));
	free(src);
	free(dst);
}

TEST_F(dev, host_to_host)
{
	size_t n = (5 << 20) + 3;

	fill_pat(self->pg_a, n, 9);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(self->pg_b, n, self->pg_a, n, ACL_MEMCPY_HOST_TO_HOST));
	EXPECT_EQ(-1, check_pat(self->pg_b, n, 9));
	memset(self->pin_b, 0, n);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(self->pin_b, n, self->pg_a, n, ACL_MEMCPY_DEFAULT));
	EXPECT_EQ(-1, check_pat(self->pin_b, n, 9));
	/* async host to host runs in stream order */
	fill_pat(self->pin_a, n, 10);
	memset(self->pg_b, 0, n);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->pg_b, n, self->pin_a, n,
						ACL_MEMCPY_HOST_TO_HOST, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	EXPECT_EQ(-1, check_pat(self->pg_b, n, 10));
	memset(self->pin_b, 0, n);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->pin_b, n, self->pin_a, n,
						ACL_MEMCPY_HOST_TO_HOST, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	EXPECT_EQ(-1, check_pat(self->pin_b, n, 10));
}

TEST_F(dev, argument_checks)
{
	char h[64];
	void *d = self->d_a;

	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(NULL, 64, h, 64, ACL_MEMCPY_HOST_TO_DEVICE));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(d, 64, NULL, 64, ACL_MEMCPY_HOST_TO_DEVICE));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(d, 64, h, 64, (aclrtMemcpyKind)6));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(d, 64, h, 64, (aclrtMemcpyKind)-1));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(d, 63, h, 64, ACL_MEMCPY_HOST_TO_DEVICE));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID,
		  aclrtMemcpyAsync(d, 0, h, 1, ACL_MEMCPY_HOST_TO_DEVICE, self->s));
	/* count 0 and dst == src are no-ops */
	EXPECT_EQ(ACL_SUCCESS, aclrtMemcpy(d, 64, h, 0, ACL_MEMCPY_HOST_TO_DEVICE));
	EXPECT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(d, 64, h, 0, ACL_MEMCPY_HOST_TO_DEVICE, self->s));
	EXPECT_EQ(ACL_SUCCESS, aclrtMemcpy(d, 64, d, 64, ACL_MEMCPY_DEVICE_TO_DEVICE));
	EXPECT_EQ(ACL_SUCCESS, aclrtMemcpy(h, 64, h, 64, ACL_MEMCPY_HOST_TO_HOST));
	/* kinds that contradict the pointers */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(h, 64, d, 64, ACL_MEMCPY_HOST_TO_DEVICE));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(d, 64, h, 64, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(d, 64, h, 64, ACL_MEMCPY_DEVICE_TO_DEVICE));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(d, 64, h, 64, ACL_MEMCPY_HOST_TO_HOST));
	/* device addresses that are not memory of this process */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclrtMemcpy((void *)((1ULL << 56) + (1ULL << 40)), 64, h, 64,
			      ACL_MEMCPY_HOST_TO_DEVICE));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclrtMemcpyAsync(d, 64, h, 64, ACL_MEMCPY_HOST_TO_DEVICE, (aclrtStream)0x77));
	EXPECT_NE(NULL, aclGetRecentErrMsg());
}

TEST_F(dev, copy_beyond_allocation_fails)
{
	static char h[8192];
	void *small;

	ASSERT_EQ(ACL_SUCCESS, aclrtMallocAlign32(&small, 64, ACL_MEM_MALLOC_NORMAL_ONLY));
	/* 64 bytes fit; the card gives it a whole 4 KiB page, and two pages do not fit */
	EXPECT_EQ(ACL_SUCCESS, aclrtMemcpy(small, 64, h, 64, ACL_MEMCPY_HOST_TO_DEVICE));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(small, sizeof(h), h, sizeof(h),
						       ACL_MEMCPY_HOST_TO_DEVICE));
	aclrtFree(small);
}

TEST_F(dev, memcpy_2d)
{
	const size_t w = 1000, hgt = 300, sp = 1024, dp = 1536;
	uint8_t *src = self->pg_a, *dst = self->pin_b;

	fill_pat(src, sp * hgt, 11);
	memset(dst, 0, dp * hgt);
	/* host (pitch sp) -> device (pitch dp) -> host (pitch dp) */
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy2d(self->d_a, dp, src, sp, w, hgt,
					     ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy2dAsync(dst, dp, self->d_a, dp, w, hgt,
						  ACL_MEMCPY_DEVICE_TO_HOST, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	for (size_t r = 0; r < hgt; r++)
		for (size_t c = 0; c < w; c++)
			ASSERT_EQ(pat(r * sp + c, 11), dst[r * dp + c]);
	/* the bytes between rows were not touched */
	EXPECT_EQ(0, dst[w]);
	EXPECT_EQ(0, dst[dp + w + 10]);
	/* contiguous 2D == 1D; zero width/height are no-ops */
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy2d(self->pg_b, 256, self->pin_a, 256, 256, 64,
					     ACL_MEMCPY_HOST_TO_HOST));
	EXPECT_EQ(ACL_SUCCESS, aclrtMemcpy2d(dst, dp, src, sp, 0, 5, ACL_MEMCPY_HOST_TO_DEVICE));
	EXPECT_EQ(ACL_SUCCESS, aclrtMemcpy2d(dst, dp, src, sp, 5, 0, ACL_MEMCPY_HOST_TO_DEVICE));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2d(self->d_a, 100, src, 200, 150, 2,
							 ACL_MEMCPY_HOST_TO_DEVICE));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2d(self->d_a, 200, src, 100, 150, 2,
							 ACL_MEMCPY_HOST_TO_DEVICE));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2d(NULL, 200, src, 200, 150, 2,
							 ACL_MEMCPY_HOST_TO_DEVICE));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2d(self->d_a, 200, src, 200, 150, 2,
							 (aclrtMemcpyKind)9));
}

TEST_F(dev, memcpy_2d_async_errors)
{
	uint8_t *h = self->pin_a;
	void *d = self->d_a;

	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2dAsync(NULL, 64, h, 64, 64, 2,
							      ACL_MEMCPY_HOST_TO_DEVICE, self->s));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2dAsync(d, 64, NULL, 64, 64, 2,
							      ACL_MEMCPY_HOST_TO_DEVICE, self->s));
	/* width above either pitch */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2dAsync(d, 64, h, 128, 100, 2,
							      ACL_MEMCPY_HOST_TO_DEVICE, self->s));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2dAsync(d, 128, h, 64, 100, 2,
							      ACL_MEMCPY_HOST_TO_DEVICE, self->s));
	/* kinds out of range or contradicting the pointers */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2dAsync(d, 64, h, 64, 64, 2,
							      (aclrtMemcpyKind)6, self->s));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2dAsync(d, 64, h, 64, 64, 2,
							      ACL_MEMCPY_DEVICE_TO_HOST, self->s));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2dAsync(h, 64, d, 64, 64, 2,
							      ACL_MEMCPY_HOST_TO_DEVICE, self->s));
	/* a matrix larger than the address space */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2dAsync(d, SIZE_MAX / 2, h, 64, 64, 4,
							      ACL_MEMCPY_HOST_TO_DEVICE, self->s));
	/* a stream that is not one */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2dAsync(d, 64, h, 64, 64, 2,
							      ACL_MEMCPY_HOST_TO_DEVICE,
							      (aclrtStream)0x77));
	EXPECT_NE(NULL, aclGetRecentErrMsg());
	/* zero width or height: nothing to do */
	EXPECT_EQ(ACL_SUCCESS, aclrtMemcpy2dAsync(d, 64, h, 64, 0, 2, ACL_MEMCPY_HOST_TO_DEVICE,
						  self->s));
	EXPECT_EQ(ACL_SUCCESS, aclrtMemcpy2dAsync(d, 64, h, 64, 64, 0, ACL_MEMCPY_HOST_TO_DEVICE,
						  self->s));
	/* and a good one still works */
	fill_pat(h, 64 * 8, 77);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy2dAsync(d, 64, h, 64, 64, 8, ACL_MEMCPY_HOST_TO_DEVICE,
						  self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
}

TEST_F(dev, memset)
{
	size_t n = (9 << 20) + 77;
	uint8_t *h = self->pin_a;

	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(self->d_a, n, 0x5c, n));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset((uint8_t *)self->d_a + 3, 10, 0x1ff, 10));	/* a byte */
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(h, n, self->d_a, n, ACL_MEMCPY_DEVICE_TO_HOST));
	for (size_t i = 0; i < n; i++)
		ASSERT_EQ(i >= 3 && i < 13 ? 0xff : 0x5c, h[i]);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->d_b, n, 0x21, n, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(h, n, self->d_b, n, ACL_MEMCPY_DEVICE_TO_HOST,
						self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	EXPECT_EQ(0x21, h[0]);
	EXPECT_EQ(0x21, h[n - 1]);
	/* host memory, sync and async */
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(self->pg_a, 100, 7, 100));
	EXPECT_EQ(7, self->pg_a[99]);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->pg_a, 100, 8, 100, self->s));
	EXPECT_EQ(8, self->pg_a[99]);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->pin_a, 100, 9, 100, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	EXPECT_EQ(9, self->pin_a[99]);
	/* checks */
	EXPECT_EQ(ACL_SUCCESS, aclrtMemset(self->d_a, 0, 1, 0));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemset(self->d_a, 10, 1, 11));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemset(NULL, 10, 1, 10));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemsetAsync(NULL, 10, 1, 10, self->s));
}

TEST_F(dev, value_write_and_wait)
{
	uint64_t *w = (uint64_t *)self->d_a, v = 0;
	aclrtStream waiter;
	aclrtStreamStatus st;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&waiter));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(w, 64, 0, 64));
	ASSERT_EQ(ACL_SUCCESS, aclrtValueWait(w, 5, ACL_STREAM_WAIT_VALUE_EQ, waiter));
	ASSERT_EQ(ACL_SUCCESS, aclrtValueWrite(w, 4, 0, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	sleep_ms(20);
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamQuery(waiter, &st));
	EXPECT_EQ(ACL_STREAM_STATUS_NOT_READY, st);
	ASSERT_EQ(ACL_SUCCESS, aclrtValueWrite(w, 5, 0, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(waiter));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(&v, 8, w, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(5, v);
	/* the other conditions */
	ASSERT_EQ(ACL_SUCCESS, aclrtValueWait(w, 3, ACL_STREAM_WAIT_VALUE_GEQ, waiter));
	ASSERT_EQ(ACL_SUCCESS, aclrtValueWait(w, 4, ACL_STREAM_WAIT_VALUE_AND, waiter));
	ASSERT_EQ(ACL_SUCCESS, aclrtValueWait(w, 2, ACL_STREAM_WAIT_VALUE_NOR, waiter));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStreamWithTimeout(waiter, 5000));
	/* checks */
	EXPECT_EQ(ACL_ERROR_RT_ADDR_UNALIGNED, aclrtValueWrite((char *)w + 4, 1, 0, self->s));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtValueWrite(w, 1, 1, self->s));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtValueWait(w, 1, 4, self->s));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtValueWrite(NULL, 1, 0, self->s));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtValueWrite(&v, 1, 0, self->s));
	aclrtDestroyStream(waiter);
}

TEST_F(dev, pinned_memory_of_other_device)
{
	uint32_t ndev;
	uint8_t *h1;
	size_t n = 1 << 20;

	ASSERT_EQ(ACL_SUCCESS, aclrtGetDeviceCount(&ndev));
	if (ndev < 2)
		SKIP(return, "one device only");
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(1));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&h1, n));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	/* pinned by card 1, used with card 0 */
	fill_pat(h1, n, 12);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(self->d_a, n, h1, n, ACL_MEMCPY_HOST_TO_DEVICE));
	memset(h1, 0, n);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(h1, n, self->d_a, n, ACL_MEMCPY_DEVICE_TO_HOST,
						self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	EXPECT_EQ(-1, check_pat(h1, n, 12));
	ASSERT_EQ(ACL_SUCCESS, aclrtFreeHost(h1));
	aclrtResetDevice(1);
}

TEST_HARNESS_MAIN
