// SPDX-License-Identifier: MIT
/*
 * ALiBi biases as ggml's CANN backend adds them before its softmax (guest):
 * per-head slopes from Arange and PowScalarTensor, written at an offset
 * into one buffer, then bias = slope * mask (F32 slopes times an F32 or
 * F16 mask, broadcast over six axes whose strides repeat) and
 * x += bias.  Masks of odd row length make F16 rows end off a 4-byte
 * boundary.  Every expected value is computed here with the same
 * arithmetic; the mask's values are multiples of 1/8, exact in F16, and
 * the slopes powers of two (up to 7 heads), so the products are exact.
 */
#include "../acl/acl_test.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_arange.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_pow.h"

#define MAX_BIAS	8.0f
#define ALIBI_DIMS	6

/*
 * A tensor as ggml names one: ne and nb (bytes) innermost first, reversed
 * into the vendor's outermost-first dims and element strides.
 */
static aclTensor *ggml_tensor(void *data, aclDataType dt, size_t esize, const int64_t *ne,
			      const size_t *nb, int n)
{
	int64_t dims[ALIBI_DIMS], strides[ALIBI_DIMS], storage = 1;

	for (int i = 0; i < n; i++) {
		dims[n - 1 - i] = ne[i];
		strides[n - 1 - i] = (int64_t)(nb[i] / esize);
		storage += (ne[i] - 1) * (int64_t)(nb[i] / esize);
	}
	return aclCreateTensor(dims, n, dt, strides, 0, ACL_FORMAT_ND, &storage, 1, data);
}

/* nb of a dense tensor of ne. */
static void dense_nb(const int64_t *ne, size_t esize, size_t *nb, int n)
{
	nb[0] = esize;
	for (int i = 1; i < n; i++)
		nb[i] = nb[i - 1] * (size_t)ne[i - 1];
}

/*
 * Runs on s the executor *x that GetWorkspaceSize made, ret its status
 * (pointers: read only after that call).
 */
static int launch(int ret, const uint64_t *wsp, aclOpExecutor *const *x, aclrtStream s,
		  aclnnStatus (*run)(void *, uint64_t, aclOpExecutor *, aclrtStream))
{
	uint64_t ws = *wsp;
	void *work = NULL;

	if (ret) {
		printf("# %s\n", aclGetRecentErrMsg());
		return ret;
	}
	if (ws && aclrtMalloc(&work, ws, ACL_MEM_MALLOC_HUGE_FIRST))
		return -1;
	ret = run(work, ws, *x, s);
	if (!ret)
		ret = aclrtSynchronizeStream(s);
	aclrtFree(work);
	return ret;
}

/* slope[0..count) = m ** (start + step * i), as ggml's aclnn_get_slope_inner. */
static int slopes_part(void *slope, float m, int64_t count, float start, float stop, float step,
		       aclrtStream s)
{
	int64_t ne[1] = { count };
	size_t nb[1] = { sizeof(float) };
	void *range = NULL;
	aclTensor *tr, *ts;
	aclScalar *a = aclCreateScalar(&start, ACL_FLOAT), *b = aclCreateScalar(&stop, ACL_FLOAT);
	aclScalar *c = aclCreateScalar(&step, ACL_FLOAT), *base = aclCreateScalar(&m, ACL_FLOAT);
	aclOpExecutor *x = NULL;
	uint64_t ws = 0;
	int ret = aclrtMalloc(&range, count * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST);

	tr = ggml_tensor(range, ACL_FLOAT, sizeof(float), ne, nb, 1);
	ts = ggml_tensor(slope, ACL_FLOAT, sizeof(float), ne, nb, 1);
	if (!ret)
		ret = launch(aclnnArangeGetWorkspaceSize(a, b, c, tr, &ws, &x), &ws, &x, s, aclnnArange);
	if (!ret)
		ret = launch(aclnnPowScalarTensorGetWorkspaceSize(base, tr, ts, &ws, &x), &ws, &x, s,
			     aclnnPowScalarTensor);
	aclDestroyTensor(tr);
	aclDestroyTensor(ts);
	aclDestroyScalar(a);
	aclDestroyScalar(b);
	aclDestroyScalar(c);
	aclDestroyScalar(base);
	aclrtFree(range);
	return ret;
}

/* The largest power of two not above n_head. */
static int n_head_log2_of(int64_t n_head)
{
	int l2 = 1;

	while (2 * l2 <= n_head)
		l2 *= 2;
	return l2;
}

/* 2 ** e, exactly. */
static float pow2(int e)
{
	float v = 1.0f;

	for (; e > 0; e--)
		v *= 2.0f;
	for (; e < 0; e++)
		v /= 2.0f;
	return v;
}

/* ggml's m0 and m1 as powers of two: max_bias / n_head_log2 is whole for n_head < 8. */
static int m0_log2(int l2)
{
	return -(int)MAX_BIAS / l2;
}

static int m1_log2(int l2)
{
	return -(int)MAX_BIAS / 2 / l2;
}

static float absf(float v)
{
	return v < 0 ? -v : v;
}

/* ggml's aclnn_get_slope: heads below n_head_log2 from m0, the rest from m1. */
static int slopes(void *slope, int64_t n_head, aclrtStream s)
{
	int l2 = n_head_log2_of(n_head);
	float m0 = pow2(m0_log2(l2)), m1 = pow2(m1_log2(l2));
	int ret = slopes_part(slope, m0, l2, 1.0f, (float)l2 + 1.0f, 1.0f, s);

	if (!ret && l2 < n_head) {
		float end = 2.0f * (float)(n_head - 1 - l2) + 1.0f;

		ret = slopes_part((char *)slope + l2 * sizeof(float), m1, n_head - l2, 1.0f,
				  end + 1.0f, 2.0f, s);
	}
	return ret;
}

/* The slope of head h, computed here. */
static float slope_of(int64_t h, int64_t n_head)
{
	int l2 = n_head_log2_of(n_head);

	if (h < l2)
		return pow2(m0_log2(l2) * (int)(h + 1));
	return pow2(m1_log2(l2) * (int)(2 * (h - l2) + 1));
}

static float mask_value(int64_t i)
{
	return (float)(i % 17 - 8) / 8.0f;
}

static float x_value(int64_t i)
{
	return (float)(i % 13) - 6.0f;
}

/* One of ggml's SOFT_MAX cases: src a of ne (heads ne[2]), mask of ne[0..1] x mask_ne23. */
struct alibi_case {
	int64_t ne[4];
	int64_t mask_ne2, mask_ne3;
	aclDataType mask_dt;
};

struct alibi_bufs {
	void *dst, *mask, *slope, *bias;
	float *host_x, *host_out;
	size_t mask_bytes, dst_bytes;
};

/* bias = slope * mask; dst += bias, with ggml_cann's six-axis views. */
static int add_alibi(const struct alibi_case *c, const struct alibi_bufs *b, aclrtStream s)
{
	size_t me = c->mask_dt == ACL_FLOAT16 ? 2 : 4;
	int64_t mne[4] = { c->ne[0], c->ne[1], c->mask_ne2, c->mask_ne3 };
	size_t mnb[4], dnb[4], snb[ALIBI_DIMS], bnb[ALIBI_DIMS];
	int64_t nr2 = c->ne[2] / c->mask_ne2, nr3 = c->ne[3] / c->mask_ne3;
	int64_t mask_ne[ALIBI_DIMS] = { mne[0], c->ne[1], mne[2], 1, mne[3], 1 };
	int64_t dst_ne[ALIBI_DIMS] = { c->ne[0], c->ne[1], mne[2], nr2, mne[3], nr3 };
	int64_t slope_ne[ALIBI_DIMS] = { 1, 1, mne[2], nr2, 1, 1 };
	int64_t bias_ne[ALIBI_DIMS] = { mne[0], c->ne[1], mne[2], nr2, mne[3], 1 };
	aclTensor *ts, *tm, *td, *tb;
	aclOpExecutor *x = NULL;
	float one = 1.0f;
	aclScalar *alpha = aclCreateScalar(&one, ACL_FLOAT);
	uint64_t ws = 0;
	int ret;

	dense_nb(mne, me, mnb, 4);
	dense_nb(c->ne, sizeof(float), dnb, 4);
	dense_nb(slope_ne, sizeof(float), snb, ALIBI_DIMS);
	dense_nb(bias_ne, sizeof(float), bnb, ALIBI_DIMS);
	ts = ggml_tensor(b->slope, ACL_FLOAT, 4, slope_ne, snb, ALIBI_DIMS);
	tm = ggml_tensor(b->mask, c->mask_dt, me, mask_ne,
			 (size_t[]){ mnb[0], mnb[1], mnb[2], mnb[2], mnb[3], mnb[3] }, ALIBI_DIMS);
	td = ggml_tensor(b->dst, ACL_FLOAT, 4, dst_ne,
			 (size_t[]){ dnb[0], dnb[1], dnb[2], dnb[2], dnb[3], dnb[3] }, ALIBI_DIMS);
	tb = ggml_tensor(b->bias, ACL_FLOAT, 4, bias_ne, bnb, ALIBI_DIMS);
	ret = launch(aclnnMulGetWorkspaceSize(ts, tm, tb, &ws, &x), &ws, &x, s, aclnnMul);
	if (!ret)
		ret = launch(aclnnInplaceAddGetWorkspaceSize(td, tb, alpha, &ws, &x), &ws, &x, s,
			     aclnnInplaceAdd);
	aclDestroyTensor(ts);
	aclDestroyTensor(tm);
	aclDestroyTensor(td);
	aclDestroyTensor(tb);
	aclDestroyScalar(alpha);
	return ret;
}

static int64_t nelems4(const int64_t *ne)
{
	return ne[0] * ne[1] * ne[2] * ne[3];
}

/* Mask and x into device memory; the mask as F16 or F32. */
static int upload(const struct alibi_case *c, struct alibi_bufs *b)
{
	int64_t mn = c->ne[0] * c->ne[1] * c->mask_ne2 * c->mask_ne3, n = nelems4(c->ne);
	void *hm = malloc(b->mask_bytes);
	int ret;

	if (!hm)
		return -1;
	for (int64_t i = 0; i < mn; i++) {
		if (c->mask_dt == ACL_FLOAT16)
			((_Float16 *)hm)[i] = (_Float16)mask_value(i);
		else
			((float *)hm)[i] = mask_value(i);
	}
	for (int64_t i = 0; i < n; i++)
		b->host_x[i] = x_value(i);
	ret = aclrtMemcpy(b->mask, b->mask_bytes, hm, b->mask_bytes, ACL_MEMCPY_HOST_TO_DEVICE);
	if (!ret)
		ret = aclrtMemcpy(b->dst, b->dst_bytes, b->host_x, b->dst_bytes,
				  ACL_MEMCPY_HOST_TO_DEVICE);
	free(hm);
	return ret;
}

/* Index of the first element of out that is not x + slope(head) * mask, or -1. */
static int64_t first_wrong(const struct alibi_case *c, const float *out)
{
	int64_t n_head = c->ne[2];

	for (int64_t i3 = 0; i3 < c->ne[3]; i3++)
		for (int64_t i2 = 0; i2 < c->ne[2]; i2++)
			for (int64_t i1 = 0; i1 < c->ne[1]; i1++)
				for (int64_t i0 = 0; i0 < c->ne[0]; i0++) {
					int64_t i = ((i3 * c->ne[2] + i2) * c->ne[1] + i1) * c->ne[0] + i0;
					int64_t m = (((i3 % c->mask_ne3) * c->mask_ne2 +
						      i2 % c->mask_ne2) * c->ne[1] + i1) * c->ne[0] + i0;
					float want = x_value(i) + slope_of(i2, n_head) * mask_value(m);

					if (absf(out[i] - want) > 1e-6f * (1.0f + absf(want)))
						return i;
				}
	return -1;
}

FIXTURE(alibi) {
	aclrtStream s;
	struct alibi_bufs b;
};

FIXTURE_SETUP(alibi)
{
	ASSERT_TRUE(acl_ok_init());
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&self->s));
}

FIXTURE_TEARDOWN(alibi)
{
	aclrtFree(self->b.dst);
	aclrtFree(self->b.mask);
	aclrtFree(self->b.slope);
	aclrtFree(self->b.bias);
	free(self->b.host_x);
	free(self->b.host_out);
	aclrtResetDevice(0);
	aclFinalize();
}

static int run_case(const struct alibi_case *c, struct alibi_bufs *b, aclrtStream s)
{
	int64_t n = nelems4(c->ne), n_head = c->ne[2];
	size_t me = c->mask_dt == ACL_FLOAT16 ? 2 : 4;
	int ret;

	b->dst_bytes = (size_t)n * sizeof(float);
	b->mask_bytes = (size_t)(c->ne[0] * c->ne[1] * c->mask_ne2 * c->mask_ne3) * me;
	b->host_x = malloc(b->dst_bytes);
	b->host_out = malloc(b->dst_bytes);
	if (!b->host_x || !b->host_out)
		return -1;
	ret = aclrtMalloc(&b->dst, b->dst_bytes, ACL_MEM_MALLOC_HUGE_FIRST);
	if (!ret)
		ret = aclrtMalloc(&b->mask, b->mask_bytes, ACL_MEM_MALLOC_HUGE_FIRST);
	if (!ret)
		ret = aclrtMalloc(&b->slope, (size_t)n_head * sizeof(float),
				  ACL_MEM_MALLOC_HUGE_FIRST);
	if (!ret)
		ret = aclrtMalloc(&b->bias, b->dst_bytes, ACL_MEM_MALLOC_HUGE_FIRST);
	if (!ret)
		ret = upload(c, b);
	if (!ret)
		ret = slopes(b->slope, n_head, s);
	if (!ret)
		ret = add_alibi(c, b, s);
	if (!ret)
		ret = aclrtMemcpy(b->host_out, b->dst_bytes, b->dst, b->dst_bytes,
				  ACL_MEMCPY_DEVICE_TO_HOST);
	return ret;
}

#define ALIBI_CASE(name, ...)						\
	TEST_F(alibi, name)						\
	{								\
		const struct alibi_case c = __VA_ARGS__;		\
		int64_t bad;						\
									\
		ASSERT_EQ(0, run_case(&c, &self->b, self->s));		\
		bad = first_wrong(&c, self->b.host_out);		\
		EXPECT_EQ(-1, bad);					\
		if (bad >= 0)						\
			TH_LOG("element %lld is %g", (long long)bad,	\
			       self->b.host_out[bad]);			\
	}

/* The slopes alone: three heads, two from m0 and one from m1. */
TEST_F(alibi, slopes_of_three_heads)
{
	float got[3];

	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&self->b.slope, sizeof(got), ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(0, slopes(self->b.slope, 3, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(got, sizeof(got), self->b.slope, sizeof(got),
					   ACL_MEMCPY_DEVICE_TO_HOST));
	/* n_head_log2 2: m0 = 2^-4, m1 = 2^-2; heads m0^1, m0^2, m1^1 */
	EXPECT_EQ(0.0625f, got[0]);
	EXPECT_EQ(0.00390625f, got[1]);
	EXPECT_EQ(0.25f, got[2]);
}

/*
 * F32 slopes times an F16 mask take no workspace, nor does an F32 plus an
 * F16: ggml hands its slope and bias buffers back to its pool before the
 * Mul that reads them, so a workspace taken from that pool for a CAST
 * would land on them.
 */
TEST_F(alibi, mixed_types_take_no_workspace)
{
	int64_t ne_s[3] = { 1, 1, 3 }, ne_m[3] = { 5, 4, 1 }, ne_y[3] = { 5, 4, 3 };
	size_t nb_s[3], nb_m[3], nb_y[3];
	aclTensor *ts, *tm, *ty;
	aclOpExecutor *x = NULL;
	float one = 1.0f;
	aclScalar *alpha = aclCreateScalar(&one, ACL_FLOAT);
	uint64_t ws = 1;

	dense_nb(ne_s, 4, nb_s, 3);
	dense_nb(ne_m, 2, nb_m, 3);
	dense_nb(ne_y, 4, nb_y, 3);
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&self->b.slope, 16, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&self->b.mask, 64, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&self->b.bias, 256, ACL_MEM_MALLOC_HUGE_FIRST));
	ts = ggml_tensor(self->b.slope, ACL_FLOAT, 4, ne_s, nb_s, 3);
	tm = ggml_tensor(self->b.mask, ACL_FLOAT16, 2, ne_m, nb_m, 3);
	ty = ggml_tensor(self->b.bias, ACL_FLOAT, 4, ne_y, nb_y, 3);
	EXPECT_EQ(ACLNN_SUCCESS, aclnnMulGetWorkspaceSize(ts, tm, ty, &ws, &x));
	EXPECT_EQ(0, ws);
	ws = 1;
	EXPECT_EQ(ACLNN_SUCCESS, aclnnAddGetWorkspaceSize(ts, tm, alpha, ty, &ws, &x));
	EXPECT_EQ(0, ws);
	aclDestroyTensor(ts);
	aclDestroyTensor(tm);
	aclDestroyTensor(ty);
	aclDestroyScalar(alpha);
}

ALIBI_CASE(f16_mask_one_head, { { 16, 16, 1, 1 }, 1, 1, ACL_FLOAT16 })
ALIBI_CASE(f16_mask_odd_rows, { { 15, 15, 1, 1 }, 1, 1, ACL_FLOAT16 })
ALIBI_CASE(f16_mask_long_odd_rows, { { 1023, 15, 1, 1 }, 1, 1, ACL_FLOAT16 })
ALIBI_CASE(f16_mask_heads_repeat, { { 16, 16, 3, 3 }, 1, 3, ACL_FLOAT16 })
ALIBI_CASE(f16_mask_odd_rows_heads_and_batches, { { 15, 15, 2, 3 }, 1, 1, ACL_FLOAT16 })
ALIBI_CASE(f32_mask_odd_rows_heads_and_batches, { { 15, 15, 2, 3 }, 1, 1, ACL_FLOAT })

TEST_HARNESS_MAIN
