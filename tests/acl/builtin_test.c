// SPDX-License-Identifier: MIT
/*
 * Built-in tasks and the calls around them: aclrtReduceAsync against
 * arithmetic done here; aclrtRandomNumAsync against Philox4x32-10's
 * published known answer, reproducible from its seed and counter, with
 * the statistics of fixed samples (which cannot flake); allocators
 * registered on a stream, which a model's workspace then comes from;
 * saturation mode and overflow detection, which this card lacks and says
 * so; and every documented error.
 */
#include "acl_test.h"
#include "acl/acl_rt_allocator.h"
#include "om_builder.h"
#include "kselftest_harness.h"

#define AFFINE_N	1000
#define RAND_N		4096

FIXTURE(bi) {
	aclrtStream s;
	void *a, *b, *ctr;
};

FIXTURE_SETUP(bi)
{
	ASSERT_TRUE(acl_ok_init());
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&self->a, RAND_N * 8, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&self->b, RAND_N * 8, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&self->ctr, 16, ACL_MEM_MALLOC_HUGE_FIRST));
}

FIXTURE_TEARDOWN(bi)
{
	aclrtResetDevice(0);
	aclFinalize();
}

/* Without libm, which the library's suites do not link. */
static double absd(double v)
{
	return v < 0 ? -v : v;
}

static float maxf(float a, float b)
{
	return a > b ? a : b;
}

static float minf(float a, float b)
{
	return a < b ? a : b;
}

static bool msg_has(const char *s)
{
	const char *m = aclGetRecentErrMsg();

	return m && strstr(m, s);
}

static aclError put(void *dev, const void *host, size_t n)
{
	return aclrtMemcpy(dev, n, host, n, ACL_MEMCPY_HOST_TO_DEVICE);
}

static aclError get(void *host, const void *dev, size_t n)
{
	return aclrtMemcpy(host, n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST);
}

/* ---- aclrtReduceAsync ---------------------------------------------------- */

/* The vendor's example: dst = dst + src over four floats; then MAX and MIN. */
TEST_F(bi, reduce_float)
{
	const float x[4] = { 1, 2, 3, 4 }, y[4] = { 4, -3, 2.5f, 1 };
	float got[4];
	int i;

	ASSERT_EQ(ACL_SUCCESS, put(self->a, x, sizeof(x)));
	ASSERT_EQ(ACL_SUCCESS, put(self->b, x, sizeof(x)));
	ASSERT_EQ(ACL_SUCCESS, aclrtReduceAsync(self->a, self->b, sizeof(x),
						ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT,
						self->s, NULL));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	ASSERT_EQ(ACL_SUCCESS, get(got, self->a, sizeof(got)));
	for (i = 0; i < 4; i++)
		EXPECT_EQ(2 * x[i], got[i]);
	/* queued behind one another on the stream, as a copy would be */
	ASSERT_EQ(ACL_SUCCESS, put(self->a, x, sizeof(x)));
	ASSERT_EQ(ACL_SUCCESS, put(self->b, y, sizeof(y)));
	ASSERT_EQ(ACL_SUCCESS, aclrtReduceAsync(self->a, self->b, sizeof(x),
						ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX, ACL_FLOAT,
						self->s, NULL));
	ASSERT_EQ(ACL_SUCCESS, aclrtReduceAsync(self->a, self->b, 3 * sizeof(float),
						ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN, ACL_FLOAT,
						self->s, NULL));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	ASSERT_EQ(ACL_SUCCESS, get(got, self->a, sizeof(got)));
	for (i = 0; i < 3; i++)
		EXPECT_EQ(minf(maxf(x[i], y[i]), y[i]), got[i]);
	EXPECT_EQ(maxf(x[3], y[3]), got[3]);
}

/* Integers saturate rather than wrap; halves and bytes reduce too. */
TEST_F(bi, reduce_types)
{
	const int32_t i32[3] = { INT32_MAX, -5, INT32_MIN }, d32[3] = { 1, 7, -1 };
	const int8_t i8[5] = { 100, -100, 3, 0, -1 }, d8[5] = { 100, -100, 4, 0, 1 };
	const uint16_t h[2] = { 0x3c00, 0x4000 };	/* F16 1 and 2 */
	int32_t g32[3];
	int8_t g8[5];
	uint16_t gh[2];

	ASSERT_EQ(ACL_SUCCESS, put(self->a, i32, sizeof(i32)));
	ASSERT_EQ(ACL_SUCCESS, put(self->b, d32, sizeof(d32)));
	ASSERT_EQ(ACL_SUCCESS, aclrtReduceAsync(self->a, self->b, sizeof(i32),
						ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT32,
						self->s, NULL));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	ASSERT_EQ(ACL_SUCCESS, get(g32, self->a, sizeof(g32)));
	EXPECT_EQ(INT32_MAX, g32[0]);
	EXPECT_EQ(2, g32[1]);
	EXPECT_EQ(INT32_MIN, g32[2]);

	ASSERT_EQ(ACL_SUCCESS, put(self->a, i8, sizeof(i8)));
	ASSERT_EQ(ACL_SUCCESS, put(self->b, d8, sizeof(d8)));
	ASSERT_EQ(ACL_SUCCESS, aclrtReduceAsync(self->a, self->b, sizeof(i8),
						ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT8,
						self->s, NULL));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	ASSERT_EQ(ACL_SUCCESS, get(g8, self->a, sizeof(g8)));
	EXPECT_EQ(127, g8[0]);
	EXPECT_EQ(-128, g8[1]);
	EXPECT_EQ(7, g8[2]);
	EXPECT_EQ(0, g8[3]);
	EXPECT_EQ(0, g8[4]);

	ASSERT_EQ(ACL_SUCCESS, put(self->a, h, sizeof(h)));
	ASSERT_EQ(ACL_SUCCESS, put(self->b, h, sizeof(h)));
	ASSERT_EQ(ACL_SUCCESS, aclrtReduceAsync(self->a, self->b, sizeof(h),
						ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT16,
						self->s, NULL));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	ASSERT_EQ(ACL_SUCCESS, get(gh, self->a, sizeof(gh)));
	EXPECT_EQ(0x4000, gh[0]);	/* 2 */
	EXPECT_EQ(0x4400, gh[1]);	/* 4 */
}

/* uint64 past int64's top, exact, and saturated at 2^64 - 1 rather than wrapped. */
TEST_F(bi, reduce_uint64)
{
	const uint64_t x[3] = { UINT64_MAX - 2, 1ULL << 63, (1ULL << 53) + 1 };
	const uint64_t y[3] = { 5, (1ULL << 63) - 1, 2 };
	uint64_t got[3];

	ASSERT_EQ(ACL_SUCCESS, put(self->a, x, sizeof(x)));
	ASSERT_EQ(ACL_SUCCESS, put(self->b, y, sizeof(y)));
	ASSERT_EQ(ACL_SUCCESS, aclrtReduceAsync(self->a, self->b, sizeof(x),
						ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_UINT64,
						self->s, NULL));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	ASSERT_EQ(ACL_SUCCESS, get(got, self->a, sizeof(got)));
	EXPECT_EQ(UINT64_MAX, got[0]);
	EXPECT_EQ(UINT64_MAX, got[1]);
	EXPECT_EQ((1ULL << 53) + 3, got[2]);
}

TEST_F(bi, reduce_errors)
{
	float host[4] = { 0 };

	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclrtReduceAsync(self->a, self->b, 16, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
				   ACL_FLOAT, self->s, host));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		  aclrtReduceAsync(self->a, self->b, 16, ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL,
				   ACL_FLOAT, self->s, NULL));
	EXPECT_TRUE(msg_has("EQUAL"));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclrtReduceAsync(self->a, self->b, 16, (aclrtReduceKind)3, ACL_FLOAT,
				   self->s, NULL));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		  aclrtReduceAsync(self->a, self->b, 16, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
				   ACL_UINT32, self->s, NULL));
	EXPECT_TRUE(msg_has("uint32"));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclrtReduceAsync(self->a, self->b, 16, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
				   (aclDataType)1000, self->s, NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclrtReduceAsync(self->a, self->b, 15, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
				   ACL_FLOAT, self->s, NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclrtReduceAsync(host, self->b, 16, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
				   ACL_FLOAT, self->s, NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclrtReduceAsync(self->a, NULL, 16, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
				   ACL_FLOAT, self->s, NULL));
	/* past the end of the allocation (and of its padding) */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclrtReduceAsync(self->a, self->ctr, RAND_N * 8, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
				   ACL_FLOAT, self->s, NULL));
	EXPECT_EQ(ACL_SUCCESS,
		  aclrtReduceAsync(self->a, self->b, 0, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
				   ACL_FLOAT, self->s, NULL));
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
}

/* ---- aclrtRandomNumAsync -------------------------------------------------- */

static void para(aclrtRandomParaInfo *p, const void *v, uint8_t size)
{
	memset(p, 0, sizeof(*p));
	memcpy(p->valueOrAddr, v, size);
	p->size = size;
}

/* A task of n numbers into out, with the fixture's counter. */
static aclrtRandomNumTaskInfo task(struct _test_data_bi *self, aclDataType type,
				   aclrtRandomNumFuncType fn, const void *p0, const void *p1,
				   uint8_t psize, uint64_t seed, uint64_t n)
{
	aclrtRandomNumTaskInfo t;

	memset(&t, 0, sizeof(t));
	t.dataType = type;
	t.randomNumFuncParaInfo.funcType = fn;
	para(&t.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min, p0, psize);
	if (p1)
		para(&t.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max, p1, psize);
	t.randomResultAddr = self->a;
	t.randomCounterAddr = self->ctr;
	para(&t.randomSeed, &seed, 8);
	para(&t.randomNum, &n, 8);
	return t;
}

static aclError set_ctr(struct _test_data_bi *self, uint64_t lo, uint64_t hi)
{
	const uint64_t c[2] = { lo, hi };

	return put(self->ctr, c, sizeof(c));
}

static aclError run_task(struct _test_data_bi *self, const aclrtRandomNumTaskInfo *t)
{
	aclError err = aclrtRandomNumAsync(t, self->s, NULL);

	return err ? err : aclrtSynchronizeStream(self->s);
}

/*
 * Over [0, 2^64 - 1), a U64's draw is its block's first two words less 1:
 * Random123's answer for counter 0 and key 0 is 0x6627e8d5, 0xe169c58d.
 */
TEST_F(bi, random_known_answer)
{
	const uint64_t lo = 0, hi = UINT64_MAX;
	aclrtRandomNumTaskInfo t = task(self, ACL_UINT64, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS,
					&lo, &hi, 8, 0, 5);
	uint64_t got, ctr[2];

	ASSERT_EQ(ACL_SUCCESS, set_ctr(self, 0, 0));
	ASSERT_EQ(ACL_SUCCESS, run_task(self, &t));
	ASSERT_EQ(ACL_SUCCESS, get(&got, self->a, 8));
	EXPECT_EQ(0xe169c58d6627e8d5ULL - 1, got);
	/* the counter moved past the five numbers drawn */
	ASSERT_EQ(ACL_SUCCESS, get(ctr, self->ctr, 16));
	EXPECT_EQ(5, ctr[0]);
	EXPECT_EQ(0, ctr[1]);
}

/* One seed and counter, one sequence: two draws of n continue one of 2n. */
TEST_F(bi, random_reproducible)
{
	const float mean = 3, stddev = 2;
	aclrtRandomNumTaskInfo t2 = task(self, ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS,
					 &mean, &stddev, 4, 1234, 200);
	aclrtRandomNumTaskInfo t = task(self, ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS,
					&mean, &stddev, 4, 1234, 100);
	float whole[200], half[200];

	ASSERT_EQ(ACL_SUCCESS, set_ctr(self, 77, 0));
	ASSERT_EQ(ACL_SUCCESS, run_task(self, &t2));
	ASSERT_EQ(ACL_SUCCESS, get(whole, self->a, sizeof(whole)));
	ASSERT_EQ(ACL_SUCCESS, set_ctr(self, 77, 0));
	ASSERT_EQ(ACL_SUCCESS, run_task(self, &t));
	ASSERT_EQ(ACL_SUCCESS, get(half, self->a, 400));
	ASSERT_EQ(ACL_SUCCESS, run_task(self, &t));
	ASSERT_EQ(ACL_SUCCESS, get(half + 100, self->a, 400));
	EXPECT_EQ(0, memcmp(whole, half, sizeof(whole)));
	/* another seed, another sequence */
	t = task(self, ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS, &mean, &stddev, 4,
		 1235, 100);
	ASSERT_EQ(ACL_SUCCESS, set_ctr(self, 77, 0));
	ASSERT_EQ(ACL_SUCCESS, run_task(self, &t));
	ASSERT_EQ(ACL_SUCCESS, get(half, self->a, 400));
	EXPECT_NE(0, memcmp(whole, half, 400));
}

static double bf16_value(uint16_t h)
{
	uint32_t b = (uint32_t)h << 16;
	float f;

	memcpy(&f, &b, 4);
	return f;
}

/*
 * Fixed samples of RAND_N: bounds of 5 standard errors of the mean
 * (sigma / sqrt(n)), which these samples meet, and the ranges exactly.
 */
TEST_F(bi, random_distributions)
{
	const int32_t lo = 1, hi = 100;
	const float mean = 3, stddev = 2;
	const uint16_t bmean = 0x3f80, bstd = 0x4000;	/* BF16 1 and 2 */
	static int32_t i32[RAND_N];
	static float f32[RAND_N];
	static uint16_t b16[RAND_N];
	aclrtRandomNumTaskInfo t;
	double sum = 0;
	int32_t imin = INT32_MAX, imax = INT32_MIN;
	int i;

	ASSERT_EQ(ACL_SUCCESS, set_ctr(self, 0, 0));
	t = task(self, ACL_INT32, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, &lo, &hi, 4, 7, RAND_N);
	ASSERT_EQ(ACL_SUCCESS, run_task(self, &t));
	ASSERT_EQ(ACL_SUCCESS, get(i32, self->a, sizeof(i32)));
	for (i = 0; i < RAND_N; i++) {
		imin = i32[i] < imin ? i32[i] : imin;
		imax = i32[i] > imax ? i32[i] : imax;
		sum += i32[i];
	}
	/*
	 * [1, 100): 99 values, mean 50, variance (99^2 - 1) / 12: 5 standard
	 * errors are 5 sqrt(816.67 / 4096) = 2.233
	 */
	EXPECT_EQ(1, imin);
	EXPECT_EQ(99, imax);
	EXPECT_LT(absd(sum / RAND_N - 50), 2.233);

	t = task(self, ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS, &mean, &stddev, 4, 7,
		 RAND_N);
	ASSERT_EQ(ACL_SUCCESS, run_task(self, &t));
	ASSERT_EQ(ACL_SUCCESS, get(f32, self->a, sizeof(f32)));
	for (sum = 0, i = 0; i < RAND_N; i++)
		sum += f32[i];
	/* 5 standard errors: 5 * 2 / sqrt(4096) */
	EXPECT_LT(absd(sum / RAND_N - 3), 5 * 2 / 64.0);

	t = task(self, ACL_BF16, ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS, &bmean, &bstd,
		 2, 7, RAND_N);
	ASSERT_EQ(ACL_SUCCESS, run_task(self, &t));
	ASSERT_EQ(ACL_SUCCESS, get(b16, self->a, sizeof(b16)));
	for (sum = 0, i = 0; i < RAND_N; i++) {
		double v = bf16_value(b16[i]);

		/* within two standard deviations, and BF16's rounding */
		ASSERT_GE(v, -3.02) TH_LOG("element %d: %g", i, v);
		ASSERT_LE(v, 5.02) TH_LOG("element %d: %g", i, v);
		sum += v;
	}
	/* truncation narrows it: 5 * 2 / sqrt(4096) bounds it still */
	EXPECT_LT(absd(sum / RAND_N - 1), 5 * 2 / 64.0);
}

/* A mask of n bits, one per number, set with probability 1 - ratio. */
TEST_F(bi, random_dropout_mask)
{
	const float ratio = 0.4f;
	aclrtRandomNumTaskInfo t = task(self, ACL_FLOAT,
					ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK, &ratio, NULL, 4,
					3, RAND_N - 3);
	static uint8_t mask[RAND_N / 8];
	unsigned int ones = 0;
	uint64_t ctr[2];
	int i;

	ASSERT_EQ(ACL_SUCCESS, set_ctr(self, 0, 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(self->a, RAND_N / 8, 0xff, RAND_N / 8));
	ASSERT_EQ(ACL_SUCCESS, run_task(self, &t));
	ASSERT_EQ(ACL_SUCCESS, get(mask, self->a, sizeof(mask)));
	for (i = 0; i < RAND_N; i++)
		ones += mask[i / 8] >> (i % 8) & 1;
	/* the last byte's three bits past the count are 0 */
	EXPECT_EQ(0, mask[RAND_N / 8 - 1] >> 5);
	/* 5 standard errors: 5 sqrt(0.6 * 0.4 / 4093) = 0.0383 */
	EXPECT_LT(absd(ones / (RAND_N - 3.0) - 0.6), 0.0383);
	ASSERT_EQ(ACL_SUCCESS, get(ctr, self->ctr, 16));
	EXPECT_EQ(RAND_N - 3, ctr[0]);
}

TEST_F(bi, random_errors)
{
	const int32_t lo = 5, hi = 5, ok = 6;
	const float m = 0, sd = -1;
	aclrtRandomNumTaskInfo t;
	char host[16];

	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtRandomNumAsync(NULL, self->s, NULL));
	t = task(self, ACL_INT32, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, &lo, &ok, 4, 0, 8);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtRandomNumAsync(&t, self->s, host));
	/* min not below max */
	t = task(self, ACL_INT32, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, &lo, &hi, 4, 0, 8);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtRandomNumAsync(&t, self->s, NULL));
	/* a normal of integers, a negative stddev, a type of none */
	t = task(self, ACL_INT32, ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS, &lo, &ok, 4, 0, 8);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtRandomNumAsync(&t, self->s, NULL));
	t = task(self, ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS, &m, &sd, 4, 0, 8);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtRandomNumAsync(&t, self->s, NULL));
	t = task(self, ACL_DOUBLE, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, &lo, &ok, 4, 0, 8);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtRandomNumAsync(&t, self->s, NULL));
	t = task(self, ACL_INT32, (aclrtRandomNumFuncType)9, &lo, &ok, 4, 0, 8);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtRandomNumAsync(&t, self->s, NULL));
	/* a parameter of the wrong size */
	t = task(self, ACL_INT32, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, &lo, &ok, 2, 0, 8);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtRandomNumAsync(&t, self->s, NULL));
	/* parameters in device memory: not on this card */
	t = task(self, ACL_INT32, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, &lo, &ok, 4, 0, 8);
	t.randomSeed.isAddr = 1;
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtRandomNumAsync(&t, self->s, NULL));
	EXPECT_TRUE(msg_has("by value"));
	/* a counter or result that is not device memory, or too small */
	t = task(self, ACL_INT32, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, &lo, &ok, 4, 0, 8);
	t.randomCounterAddr = host;
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtRandomNumAsync(&t, self->s, NULL));
	t.randomCounterAddr = NULL;
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtRandomNumAsync(&t, self->s, NULL));
	t = task(self, ACL_INT32, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, &lo, &ok, 4, 0, RAND_N);
	t.randomResultAddr = self->ctr;
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtRandomNumAsync(&t, self->s, NULL));
	/* nothing to draw: nothing queued, the counter untouched */
	ASSERT_EQ(ACL_SUCCESS, set_ctr(self, 9, 0));
	t = task(self, ACL_INT32, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, &lo, &ok, 4, 0, 0);
	EXPECT_EQ(ACL_SUCCESS, run_task(self, &t));
	t = task(self, ACL_INT32, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, &lo, &ok, 4, 0, 1);
	EXPECT_EQ(ACL_SUCCESS, run_task(self, &t));
	{
		uint64_t ctr[2];
		int32_t v;

		ASSERT_EQ(ACL_SUCCESS, get(ctr, self->ctr, 16));
		EXPECT_EQ(10, ctr[0]);
		ASSERT_EQ(ACL_SUCCESS, get(&v, self->a, 4));
		EXPECT_EQ(5, v);
	}
}

/* ---- allocators ------------------------------------------------------------- */

/* A bump allocator over one device buffer, counting its calls. */
struct bump {
	uint8_t *base;
	size_t size, used;
	unsigned int allocs, frees;
	size_t last_size;
	bool hand_out_host;
	char host[64];
};

struct bump_block {
	void *addr;
};

static void *bump_alloc(aclrtAllocator allocator, size_t size)
{
	struct bump *b = allocator;
	struct bump_block *blk;

	b->allocs++;
	b->last_size = size;
	if (b->used + size > b->size)
		return NULL;
	blk = malloc(sizeof(*blk));
	blk->addr = b->hand_out_host ? (void *)b->host : b->base + b->used;
	b->used += (size + 255) & ~(size_t)255;
	return blk;
}

static void bump_free(aclrtAllocator allocator, aclrtAllocatorBlock block)
{
	struct bump *b = allocator;

	b->frees++;
	free(block);
}

static void *bump_advise(aclrtAllocator allocator, size_t size, aclrtAllocatorAddr addr)
{
	(void)addr;
	return bump_alloc(allocator, size);
}

static void *bump_addr(aclrtAllocatorBlock block)
{
	return ((struct bump_block *)block)->addr;
}

static aclrtAllocatorDesc bump_desc(struct bump *b)
{
	aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();

	if (d && (aclrtAllocatorSetObjToDesc(d, b) || aclrtAllocatorSetAllocFuncToDesc(d, bump_alloc) ||
		  aclrtAllocatorSetFreeFuncToDesc(d, bump_free) ||
		  aclrtAllocatorSetAllocAdviseFuncToDesc(d, bump_advise) ||
		  aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, bump_addr))) {
		aclrtAllocatorDestroyDesc(d);
		return NULL;
	}
	return d;
}

TEST_F(bi, allocator_registration)
{
	struct bump b = { 0 };
	aclrtAllocatorDesc d = bump_desc(&b), half, got = NULL;
	aclrtAllocator obj = NULL;
	aclrtAllocatorAllocFunc af = NULL;
	aclrtAllocatorFreeFunc ff = NULL;
	aclrtAllocatorAllocAdviseFunc adv = NULL;
	aclrtAllocatorGetAddrFromBlockFunc gf = NULL;

	ASSERT_NE(NULL, d);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetAllocFuncToDesc(d, NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetObjToDesc(NULL, &b));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorRegister(NULL, d));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorRegister(self->s, NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorGetByStream(self->s, &got, NULL, NULL,
								     NULL, NULL, NULL));
	/* a descriptor without its free function is refused */
	half = aclrtAllocatorCreateDesc();
	ASSERT_NE(NULL, half);
	ASSERT_EQ(ACL_SUCCESS, aclrtAllocatorSetObjToDesc(half, &b));
	ASSERT_EQ(ACL_SUCCESS, aclrtAllocatorSetAllocFuncToDesc(half, bump_alloc));
	ASSERT_EQ(ACL_SUCCESS, aclrtAllocatorSetGetAddrFromBlockFuncToDesc(half, bump_addr));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorRegister(self->s, half));
	EXPECT_TRUE(msg_has("free function"));

	ASSERT_EQ(ACL_SUCCESS, aclrtAllocatorRegister(self->s, d));
	/* the registration keeps the functions: the descriptor may go */
	ASSERT_EQ(ACL_SUCCESS, aclrtAllocatorSetFreeFuncToDesc(half, bump_free));
	ASSERT_EQ(ACL_SUCCESS, aclrtAllocatorGetByStream(self->s, &got, &obj, &af, &ff, &adv, &gf));
	EXPECT_EQ(d, got);
	EXPECT_EQ((void *)&b, obj);
	EXPECT_TRUE(af == bump_alloc);
	EXPECT_TRUE(ff == bump_free);
	EXPECT_TRUE(adv == bump_advise);
	EXPECT_TRUE(gf == bump_addr);
	/* registering again replaces it */
	ASSERT_EQ(ACL_SUCCESS, aclrtAllocatorRegister(self->s, half));
	ASSERT_EQ(ACL_SUCCESS, aclrtAllocatorGetByStream(self->s, &got, NULL, NULL, NULL, &adv,
							 NULL));
	EXPECT_EQ(half, got);
	EXPECT_TRUE(adv == NULL);
	EXPECT_EQ(ACL_SUCCESS, aclrtAllocatorDestroyDesc(half));
	EXPECT_EQ(ACL_SUCCESS, aclrtAllocatorUnregister(self->s));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocatorGetByStream(self->s, &got, NULL, NULL,
								     NULL, NULL, NULL));
	/* unregistering twice does nothing */
	EXPECT_EQ(ACL_SUCCESS, aclrtAllocatorUnregister(self->s));
	EXPECT_EQ(ACL_SUCCESS, aclrtAllocatorDestroyDesc(d));
	EXPECT_EQ(0, b.allocs);
}

/* A model's workspace, executed on a stream with an allocator, is the allocator's. */
static long affine_exec(aclrtStream s, uint32_t id, void *x, void *y)
{
	float hx[AFFINE_N], hy[AFFINE_N], want[AFFINE_N];
	aclmdlDataset *in = aclmdlCreateDataset(), *out = aclmdlCreateDataset();
	long bad = -2;

	for (int i = 0; i < AFFINE_N; i++)
		hx[i] = (float)(i % 17 - 8) * 0.5f;
	om_affine_ref(hx, want, AFFINE_N);
	aclmdlAddDatasetBuffer(in, aclCreateDataBuffer(x, sizeof(hx)));
	aclmdlAddDatasetBuffer(out, aclCreateDataBuffer(y, sizeof(hy)));
	if (put(x, hx, sizeof(hx)))
		goto done;
	bad = aclmdlExecuteAsync(id, in, out, s);
	if (bad)
		goto done;
	bad = -3;
	if (aclrtSynchronizeStream(s) || get(hy, y, sizeof(hy)))
		goto done;
	bad = -1;
	for (int i = 0; i < AFFINE_N && bad < 0; i++)
		if (hy[i] != want[i])
			bad = 1000000 + i;
done:
	aclDestroyDataBuffer(aclmdlGetDatasetBuffer(in, 0));
	aclDestroyDataBuffer(aclmdlGetDatasetBuffer(out, 0));
	aclmdlDestroyDataset(in);
	aclmdlDestroyDataset(out);
	return bad;
}

TEST_F(bi, allocator_model_workspace)
{
	size_t om_size, work = 0, weights = 0;
	void *om = om_model_affine(AFFINE_N, &om_size);
	struct bump b = { .size = 1 << 20 };
	aclrtAllocatorDesc d = bump_desc(&b);
	uint32_t id;

	ASSERT_NE(NULL, om);
	ASSERT_NE(NULL, d);
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc((void **)&b.base, b.size, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(ACL_SUCCESS, aclmdlQuerySizeFromMem(om, om_size, &work, &weights));
	ASSERT_NE(0, work);
	ASSERT_EQ(ACL_SUCCESS, aclmdlLoadFromMem(om, om_size, &id));
	ASSERT_EQ(ACL_SUCCESS, aclrtAllocatorRegister(self->s, d));

	/* taken for the execution, given back once it is queued */
	EXPECT_EQ(-1, affine_exec(self->s, id, self->a, self->b));
	EXPECT_EQ(1, b.allocs);
	EXPECT_EQ(1, b.frees);
	EXPECT_EQ(work, b.last_size);
	EXPECT_EQ(-1, affine_exec(self->s, id, self->a, self->b));
	EXPECT_EQ(2, b.allocs);
	EXPECT_EQ(2, b.frees);

	/* memory that is not the device's is refused, and given back */
	b.hand_out_host = true;
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, affine_exec(self->s, id, self->a, self->b));
	EXPECT_TRUE(msg_has("allocator"));
	EXPECT_EQ(3, b.allocs);
	EXPECT_EQ(3, b.frees);
	/* an allocator out of memory fails the execution */
	b.hand_out_host = false;
	b.used = b.size;
	EXPECT_EQ(ACL_ERROR_BAD_ALLOC, affine_exec(self->s, id, self->a, self->b));
	EXPECT_EQ(4, b.allocs);
	EXPECT_EQ(3, b.frees);

	/* unregistered: the runtime's own workspace again */
	ASSERT_EQ(ACL_SUCCESS, aclrtAllocatorUnregister(self->s));
	EXPECT_EQ(-1, affine_exec(self->s, id, self->a, self->b));
	EXPECT_EQ(4, b.allocs);
	/* a stream freed takes its registration along */
	{
		aclrtStream s2;
		aclrtAllocatorDesc got;

		ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s2));
		ASSERT_EQ(ACL_SUCCESS, aclrtAllocatorRegister(s2, d));
		ASSERT_EQ(ACL_SUCCESS, aclrtDestroyStream(s2));
		ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s2));
		EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
			  aclrtAllocatorGetByStream(s2, &got, NULL, NULL, NULL, NULL, NULL));
		ASSERT_EQ(ACL_SUCCESS, aclrtDestroyStream(s2));
	}
	EXPECT_EQ(ACL_SUCCESS, aclmdlUnload(id));
	EXPECT_EQ(ACL_SUCCESS, aclrtAllocatorDestroyDesc(d));
	free(om);
}

/* ---- saturation and overflow --------------------------------------------- */

TEST_F(bi, overflow_not_supported)
{
	aclrtFloatOverflowMode mode = ACL_RT_OVERFLOW_MODE_UNDEF;
	uint32_t flag = 7;

	ASSERT_EQ(ACL_SUCCESS, aclrtGetDeviceSatMode(&mode));
	EXPECT_EQ(ACL_RT_OVERFLOW_MODE_INFNAN, mode);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetDeviceSatMode(NULL));
	EXPECT_EQ(ACL_SUCCESS, aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_INFNAN));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		  aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_SATURATION));
	EXPECT_TRUE(msg_has("saturation"));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_UNDEF));

	EXPECT_EQ(ACL_SUCCESS, aclrtSetStreamOverflowSwitch(self->s, 0));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtSetStreamOverflowSwitch(self->s, 1));
	EXPECT_TRUE(msg_has("overflow"));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetStreamOverflowSwitch(self->s, &flag));
	EXPECT_EQ(0, flag);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetStreamOverflowSwitch(self->s, NULL));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtGetOverflowStatus(self->a, 64, self->s));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtResetOverflowStatus(self->s));
	EXPECT_TRUE(msg_has("overflow status"));
}

TEST_HARNESS_MAIN
