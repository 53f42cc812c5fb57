// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the card's operator library (tools/npu-card/oplib*.c),
 * without a card: descriptors are built here, run on a block of host
 * memory that stands in for device memory, and every output is compared
 * with a plain loop written here (in double precision, from the inputs as
 * stored, so only the library's own rounding is tolerated).
 *
 * Every run also checks that the library changed no byte but the output's
 * elements (and the zero padding of an NCHW16C output), and every rejected
 * descriptor that it changed nothing at all.  NPU_TEST_SEED varies the
 * random data.
 */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* As in card_test.c: the harness is not -Wextra clean. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wclobbered"
#pragma GCC diagnostic ignored "-Wsign-compare"
/* Case tables leave the trailing fields most cases do not need. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include "kselftest_harness.h"
#include "oplib.h"
#include "../driver/compute_ref.h"

#define ARENA_SIZE	(16u << 20)	/* "device memory" */
#define GUARD		64		/* bytes left between tensors */
#define MAX_TENSORS	96

/* A tensor of a test: its descriptor fields and its values, row-major. */
struct tt {
	unsigned int dtype;
	unsigned int format;
	unsigned int ndims;
	int64_t dims[NPU_TENSOR_MAX_DIMS];
	int64_t strides[NPU_TENSOR_MAX_DIMS];
	uint64_t addr;
	uint64_t extent;	/* bytes */
	uint64_t n;		/* elements */
	double *v;
};

/* A descriptor being built. */
struct desc {
	uint8_t raw[OPLIB_DESC_MAX] __attribute__((aligned(64)));
	size_t size;
	struct tt *out;
};

static struct npu_op_desc *D(struct desc *o)
{
	return (struct npu_op_desc *)o->raw;
}

static uint64_t test_seed(void)
{
	const char *env = getenv("NPU_TEST_SEED");

	return env ? strtoull(env, NULL, 0) | 1 : 0x2545f4914f6cdd1dULL;
}

FIXTURE(oplib) {
	struct oplib *lib;
	uint8_t *mem;
	uint8_t *snap;
	uint64_t used;
	uint64_t rnd;
	uint64_t stray;		/* bytes the last run changed outside its output */
	struct tt t[MAX_TENSORS];
	unsigned int nt;
	const char *step;	/* the case a table-driven test is on */
	char step_buf[96];
};

static void arena_reset(FIXTURE_DATA(oplib) *self);

FIXTURE_SETUP(oplib)
{
	struct oplib_config cfg = { .threads = 2 };

	self->lib = oplib_create(&cfg);
	ASSERT_NE(NULL, self->lib);
	self->mem = aligned_alloc(4096, ARENA_SIZE);
	self->snap = malloc(ARENA_SIZE);
	ASSERT_NE(NULL, self->mem);
	ASSERT_NE(NULL, self->snap);
	/* a pattern no computation leaves behind by chance */
	memset(self->mem, 0xa5, ARENA_SIZE);
	self->rnd = test_seed();
}

FIXTURE_TEARDOWN(oplib)
{
	arena_reset(self);
	free(self->mem);
	free(self->snap);
	oplib_destroy(self->lib);
}

/* xorshift64*, uniform in [lo, hi] */
static double rnd_uniform(FIXTURE_DATA(oplib) *self, double lo, double hi)
{
	uint64_t x = self->rnd;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	self->rnd = x;
	return lo + (hi - lo) * ((x * 0x2545f4914f6cdd1dULL) >> 11) * 0x1.0p-53;
}

static size_t dtype_size(unsigned int dtype)
{
	return NPU_DTYPE_SIZE(dtype);
}

/* Round half to even, then clamp: how the card stores into integers. */
static double to_int(double v, double lo, double hi)
{
	if (isnan(v))
		return 0;
	v = nearbyint(v);
	return v < lo ? lo : v > hi ? hi : v;
}

static void store(uint8_t *p, unsigned int dtype, double v)
{
	float f = v;
	uint32_t bits;
	int32_t s32;
	int8_t s8;
	uint8_t u8;
	uint16_t h;
	_Float16 f16;
	int64_t s64;
	uint64_t u64;
	int16_t s16;

	switch (dtype) {
	case NPU_DTYPE_F64:
		memcpy(p, &v, 8);
		break;
	case NPU_DTYPE_U64:
		/* the largest double below 2^64 */
		u64 = v >= 0x1p64 ? UINT64_MAX : (uint64_t)to_int(v, 0, 0x1.fffffffffffffp63);
		memcpy(p, &u64, 8);
		break;
	case NPU_DTYPE_F32:
		memcpy(p, &f, 4);
		break;
	case NPU_DTYPE_BF16:
		memcpy(&bits, &f, 4);
		if (isnan(f))
			h = (bits >> 16) | 0x40;
		else
			h = (bits + 0x7fff + ((bits >> 16) & 1)) >> 16;
		memcpy(p, &h, 2);
		break;
	case NPU_DTYPE_F16:
		f16 = f;
		memcpy(p, &f16, 2);
		break;
	case NPU_DTYPE_S32:
		/* float32 has no INT32_MAX: the card tops out below 2^31 */
		s32 = to_int(v, INT32_MIN, 2147483520.0);
		memcpy(p, &s32, 4);
		break;
	case NPU_DTYPE_S8:
		s8 = to_int(v, -128, 127);
		memcpy(p, &s8, 1);
		break;
	case NPU_DTYPE_U8:
		u8 = to_int(v, 0, 255);
		memcpy(p, &u8, 1);
		break;
	case NPU_DTYPE_S16:
		s16 = to_int(v, INT16_MIN, INT16_MAX);
		memcpy(p, &s16, 2);
		break;
	case NPU_DTYPE_S64:
		/* the largest double below 2^63 */
		s64 = to_int(v, -0x1p63, 0x1.fffffffffffffp62);
		memcpy(p, &s64, 8);
		break;
	case NPU_DTYPE_BOOL:
		*p = v != 0;
		break;
	}
}

static double load(const uint8_t *p, unsigned int dtype)
{
	uint32_t bits;
	uint16_t h;
	_Float16 f16;
	int32_t s32;
	int16_t s16;
	int64_t s64;
	uint64_t u64;
	double d;
	float f;

	switch (dtype) {
	case NPU_DTYPE_U64:
		memcpy(&u64, p, 8);
		return u64;
	case NPU_DTYPE_F64:
		memcpy(&d, p, 8);
		return d;
	case NPU_DTYPE_F32:
		memcpy(&f, p, 4);
		return f;
	case NPU_DTYPE_BF16:
		memcpy(&h, p, 2);
		bits = (uint32_t)h << 16;
		memcpy(&f, &bits, 4);
		return f;
	case NPU_DTYPE_F16:
		memcpy(&f16, p, 2);
		return f16;
	case NPU_DTYPE_S32:
		memcpy(&s32, p, 4);
		return s32;
	case NPU_DTYPE_S8:
		return *(const int8_t *)p;
	case NPU_DTYPE_U8:
		return *p;
	case NPU_DTYPE_S16:
		memcpy(&s16, p, 2);
		return s16;
	case NPU_DTYPE_S64:
		memcpy(&s64, p, 8);
		return s64;
	case NPU_DTYPE_BOOL:
		return *p != 0;
	}
	return 0;
}

/* Row-major index i as one index per axis. */
static void unravel(uint64_t i, const int64_t *dims, unsigned int ndims,
		    int64_t *idx)
{
	int d;

	for (d = (int)ndims - 1; d >= 0; d--) {
		idx[d] = i % dims[d];
		i /= dims[d];
	}
}

static uint64_t ravel(const int64_t *idx, const int64_t *dims,
		      unsigned int ndims)
{
	uint64_t i = 0;
	unsigned int d;

	for (d = 0; d < ndims; d++)
		i = i * dims[d] + idx[d];
	return i;
}

/* Where element idx lives, in elements from addr: the contract's formula. */
static int64_t tt_offset(const struct tt *t, const int64_t *idx)
{
	int64_t off = 0;
	unsigned int d;

	if (t->format == NPU_FORMAT_NCHW16C) {
		int64_t cb = (t->dims[1] + 15) / 16;

		return (((idx[0] * cb + idx[1] / 16) * t->dims[2] + idx[2]) *
			t->dims[3] + idx[3]) * 16 + idx[1] % 16;
	}
	if (t->format == NPU_FORMAT_OIHW16I16O) {
		int64_t ib = (t->dims[1] + 15) / 16;

		return (((idx[0] / 16 * ib + idx[1] / 16) * t->dims[2] + idx[2]) *
			t->dims[3] + idx[3]) * 256 + idx[1] % 16 * 16 + idx[0] % 16;
	}
	for (d = 0; d < t->ndims; d++)
		off += idx[d] * t->strides[d];
	return off;
}

static uint8_t *tt_ptr(FIXTURE_DATA(oplib) *self, const struct tt *t,
		       const int64_t *idx)
{
	return self->mem + t->addr + tt_offset(t, idx) * dtype_size(t->dtype);
}

/* Forget every tensor: each case of a table starts with an empty arena. */
static void arena_reset(FIXTURE_DATA(oplib) *self)
{
	unsigned int i;

	for (i = 0; i < self->nt; i++)
		free(self->t[i].v);
	self->nt = 0;
	memset(self->mem, 0xa5, self->used);
	self->used = 0;
}

/* A tensor in the arena; strides NULL: dense row-major. */
static struct tt *tt_alloc(FIXTURE_DATA(oplib) *self, unsigned int dtype,
			   unsigned int format, unsigned int ndims,
			   const int64_t *dims, const int64_t *strides)
{
	struct tt *t;
	uint64_t span = 1, s = 1;
	int d;

	/* a test that needs more is broken: say so loudly */
	if (self->nt == MAX_TENSORS) {
		fprintf(stderr, "# too many tensors in one case\n");
		abort();
	}
	t = &self->t[self->nt++];

	memset(t, 0, sizeof(*t));
	t->dtype = dtype;
	t->format = format;
	t->ndims = ndims;
	t->n = 1;
	for (d = (int)ndims - 1; d >= 0; d--) {
		t->dims[d] = dims[d];
		t->n *= dims[d];
		if (format == NPU_FORMAT_STRIDED)
			t->strides[d] = strides ? strides[d] : (int64_t)s;
		s *= dims[d];
	}
	if (format == NPU_FORMAT_NCHW16C)
		span = dims[0] * ((dims[1] + 15) / 16 * 16) * dims[2] * dims[3];
	else if (format == NPU_FORMAT_OIHW16I16O)
		span = (dims[0] + 15) / 16 * 16 * ((dims[1] + 15) / 16 * 16) * dims[2] * dims[3];
	else if (format == NPU_FORMAT_PACKED)
		span = NPU_PACKED_ELEMS(dims[0], dims[1], dims[2], dims[3]);
	else
		for (d = 0; d < (int)ndims; d++)
			span += (dims[d] - 1) * t->strides[d];
	if (!t->n)
		span = 0;
	t->extent = span * dtype_size(dtype);
	t->addr = (self->used + GUARD + 63) & ~63ULL;
	self->used = t->addr + t->extent;
	if (self->used + 4096 > ARENA_SIZE) {
		fprintf(stderr, "# the arena is too small for this case\n");
		abort();
	}
	t->v = calloc(t->n ? t->n : 1, sizeof(double));
	return t;
}

static struct tt *T(FIXTURE_DATA(oplib) *self, unsigned int dtype,
		    unsigned int ndims, const int64_t *dims)
{
	return tt_alloc(self, dtype, NPU_FORMAT_STRIDED, ndims, dims, NULL);
}

/* Write t->v into the arena (the padding of a blocked format as 0). */
static void tt_put(FIXTURE_DATA(oplib) *self, struct tt *t)
{
	int64_t idx[NPU_TENSOR_MAX_DIMS];
	uint64_t i;

	if (t->format != NPU_FORMAT_STRIDED)
		memset(self->mem + t->addr, 0, t->extent);
	for (i = 0; i < t->n; i++) {
		unravel(i, t->dims, t->ndims, idx);
		store(tt_ptr(self, t, idx), t->dtype, t->v[i]);
	}
}

static void tt_get(FIXTURE_DATA(oplib) *self, const struct tt *t, double *v)
{
	int64_t idx[NPU_TENSOR_MAX_DIMS];
	uint64_t i;

	for (i = 0; i < t->n; i++) {
		unravel(i, t->dims, t->ndims, idx);
		v[i] = load(tt_ptr(self, t, idx), t->dtype);
	}
}

/* Random values, then read back as stored, so the oracle sees them exactly. */
static void tt_fill(FIXTURE_DATA(oplib) *self, struct tt *t, double lo,
		    double hi)
{
	uint64_t i;

	for (i = 0; i < t->n; i++)
		t->v[i] = rnd_uniform(self, lo, hi);
	tt_put(self, t);
	tt_get(self, t, t->v);
}

static void tensor_desc(struct npu_tensor_desc *d, const struct tt *t)
{
	unsigned int i;

	memset(d, 0, sizeof(*d));
	d->addr = htole64(t->addr);
	d->dtype = htole16(t->dtype);
	d->format = htole16(t->format);
	d->ndims = htole16(t->ndims);
	for (i = 0; i < t->ndims; i++) {
		d->dims[i] = htole64(t->dims[i]);
		d->strides[i] = htole64(t->strides[i]);
	}
}

static void desc_init(struct desc *o, unsigned int kind, struct tt *const *in,
		      unsigned int nin, struct tt *out)
{
	struct npu_op_desc *d = D(o);
	unsigned int i;

	memset(o->raw, 0, sizeof(o->raw));
	d->kind = htole16(kind);
	d->num_inputs = nin;
	d->num_outputs = 1;
	for (i = 0; i < nin; i++)
		tensor_desc(&d->tensors[i], in[i]);
	tensor_desc(&d->tensors[nin], out);
	o->size = sizeof(*d) + (nin + 1) * sizeof(struct npu_tensor_desc);
	o->out = out;
}

static __le32 F(float f)
{
	uint32_t bits;

	memcpy(&bits, &f, 4);
	return htole32(bits);
}

static struct npu_activation act(unsigned int kind, float alpha, float beta)
{
	return (struct npu_activation){ .kind = htole32(kind),
					.alpha = F(alpha), .beta = F(beta) };
}

/* Bytes of the output's elements and NCHW16C padding, which may change. */
static void mark_output(FIXTURE_DATA(oplib) *self, const struct tt *t,
			uint8_t *may)
{
	size_t es = dtype_size(t->dtype);
	int64_t idx[NPU_TENSOR_MAX_DIMS];
	uint64_t i;

	if (t->format == NPU_FORMAT_NCHW16C || t->format == NPU_FORMAT_PACKED) {
		memset(may + t->addr, 1, t->extent);
		return;
	}
	for (i = 0; i < t->n; i++) {
		unravel(i, t->dims, t->ndims, idx);
		memset(may + t->addr + tt_offset(t, idx) * es, 1, es);
	}
}

static int run_with(FIXTURE_DATA(oplib) *self, struct oplib *lib,
		    struct desc *o, const struct oplib_hooks *hooks)
{
	uint8_t *may;
	uint64_t i;
	int err;

	memcpy(self->snap, self->mem, self->used);
	err = oplib_run(lib, D(o), o->size, self->mem, ARENA_SIZE, hooks);
	may = calloc(1, self->used);
	/* an abandoned operator may have written part of its output */
	if ((!err || err == OPLIB_ABORTED) && o->out)
		mark_output(self, o->out, may);
	self->stray = 0;
	for (i = 0; i < self->used; i++)
		if (self->mem[i] != self->snap[i] && !may[i])
			self->stray++;
	/* and beyond the tensors: still the fill pattern */
	for (i = self->used; i < self->used + 4096 && i < ARENA_SIZE; i++)
		if (self->mem[i] != 0xa5)
			self->stray++;
	free(may);
	return err;
}

static int run(FIXTURE_DATA(oplib) *self, struct desc *o)
{
	return run_with(self, self->lib, o, NULL);
}

/* The case a table-driven test is on, for failure messages. */
#define STEP	(self->step ? self->step : "-")

#define RUN_OK(o) do {							\
	ASSERT_EQ(NPU_ERR_NONE, run(self, (o))) TH_LOG("case: %s", STEP); \
	ASSERT_EQ(0, self->stray)					\
		TH_LOG("case %s: bytes changed outside the output", STEP); \
} while (0)

static bool close_enough(double got, double want, double rtol, double atol)
{
	if (isnan(want))
		return isnan(got);
	if (isinf(want))
		return got == want;
	return fabs(got - want) <= atol + rtol * fabs(want);
}

/* Non-zero elements in an NCHW16C tensor's padding channels. */
static uint64_t padding_dirt(FIXTURE_DATA(oplib) *self, const struct tt *t)
{
	int64_t idx[4], c, padded = (t->dims[1] + 15) / 16 * 16;
	int64_t plane[3] = { t->dims[0], t->dims[2], t->dims[3] }, at[3];
	uint64_t i, bad = 0;

	if (t->format != NPU_FORMAT_NCHW16C)
		return 0;
	for (i = 0; i < (uint64_t)(plane[0] * plane[1] * plane[2]); i++) {
		unravel(i, plane, 3, at);
		idx[0] = at[0];
		idx[2] = at[1];
		idx[3] = at[2];
		for (c = t->dims[1]; c < padded; c++) {
			idx[1] = c;
			bad += load(tt_ptr(self, t, idx), t->dtype) != 0;
		}
	}
	return bad;
}

/* Mismatches of the output against want; the first few are logged. */
static uint64_t compare(FIXTURE_DATA(oplib) *self, const struct tt *t,
			const double *want, double rtol, double atol)
{
	double *got = calloc(t->n ? t->n : 1, sizeof(double));
	int64_t idx[NPU_TENSOR_MAX_DIMS];
	uint64_t i, bad = padding_dirt(self, t);
	unsigned int d;

	if (bad)
		fprintf(stderr, "#   %llu padding channel elements are not 0\n",
			(unsigned long long)bad);

	tt_get(self, t, got);
	for (i = 0; i < t->n; i++) {
		if (close_enough(got[i], want[i], rtol, atol))
			continue;
		if (bad++ < 4) {
			unravel(i, t->dims, t->ndims, idx);
			fprintf(stderr, "#   element %llu (",
				(unsigned long long)i);
			for (d = 0; d < t->ndims; d++)
				fprintf(stderr, "%s%lld", d ? "," : "",
					(long long)idx[d]);
			fprintf(stderr, "): got %.9g, want %.9g\n", got[i],
				want[i]);
		}
	}
	free(got);
	return bad;
}

/* Tolerances: float32 sums, and bfloat16's 8-bit mantissa. */
#define RTOL(dt)	((dt) == NPU_DTYPE_F32 ? 1e-4 : 2e-2)
#define ATOL(dt)	((dt) == NPU_DTYPE_F32 ? 1e-4 : 2e-2)

#define EXPECT_CLOSE(t, want, rtol, atol)				\
	ASSERT_EQ(0, compare(self, (t), (want), (rtol), (atol)))	\
		TH_LOG("case: %s", STEP)
#define EXPECT_OUTPUT(t, want) \
	EXPECT_CLOSE((t), (want), RTOL((t)->dtype), ATOL((t)->dtype))
#define EXPECT_EXACT(t, want) EXPECT_CLOSE((t), (want), 0, 0)

/* The activation, as the header defines it: the driver tests' reference. */
static double act_ref(unsigned int kind, double a, double b, double x)
{
	struct npu_activation fn = act(kind, a, b);

	return ref_act(&fn, x);
}

/* Parameters each function takes, for building valid activations. */
static void act_params(unsigned int kind, float *a, float *b)
{
	*a = 0;
	*b = 0;
	switch (kind) {
	case NPU_UNARY_CLIP:
		*a = -0.5f;
		*b = 0.75f;
		break;
	case NPU_UNARY_HARDSIGMOID:
		*a = 0.2f;
		*b = 0.5f;
		break;
	case NPU_UNARY_LEAKY_RELU:
		*a = 0.1f;
		break;
	case NPU_UNARY_ELU:
		*a = 0.7f;
		break;
	case NPU_UNARY_THRESHOLD:
		*a = 0.25f;
		*b = -7;
		break;
	case NPU_UNARY_SOFTPLUS_BETA:
		/* both branches within the inputs */
		*a = 2;
		*b = 3;
		break;
	}
}

static double *want_alloc(const struct tt *t)
{
	return calloc(t->n ? t->n : 1, sizeof(double));
}

/* Convolutions */

struct conv_case {
	const char *what;
	int64_t n, c, h, w, o, kh, kw;
	int64_t oh, ow;		/* output size: fixes the end padding */
	uint32_t stride[2], dil[2], pad[2], group;
	bool bias;
	unsigned int fmt;	/* of x and y */
	unsigned int dtype;
	unsigned int act;
	unsigned int wfmt;	/* of w */
};

/* y[n, o, oh, ow] = act(b[o] + sum over its group's c, kh, kw). */
static void conv_ref(const struct conv_case *k, const struct tt *x,
		     const struct tt *w, const struct tt *b, double *y,
		     float alpha, float beta)
{
	int64_t cg = k->c / k->group, og = k->o / k->group;
	int64_t n, o, oh, ow, ci, i, j;

	for (n = 0; n < k->n; n++)
	for (o = 0; o < k->o; o++)
	for (oh = 0; oh < k->oh; oh++)
	for (ow = 0; ow < k->ow; ow++) {
		double acc = b ? b->v[o] : 0;
		int64_t g = o / og;

		for (ci = 0; ci < cg; ci++)
		for (i = 0; i < k->kh; i++)
		for (j = 0; j < k->kw; j++) {
			int64_t ih = oh * k->stride[0] - k->pad[0] + i * k->dil[0];
			int64_t iw = ow * k->stride[1] - k->pad[1] + j * k->dil[1];
			int64_t c = g * cg + ci;

			if (ih < 0 || ih >= k->h || iw < 0 || iw >= k->w)
				continue;
			acc += x->v[((n * k->c + c) * k->h + ih) * k->w + iw] *
			       w->v[((o * cg + ci) * k->kh + i) * k->kw + j];
		}
		y[((n * k->o + o) * k->oh + oh) * k->ow + ow] =
			act_ref(k->act, alpha, beta, acc);
	}
}

/*
 * ConvTranspose: x[n, c, ih, iw] spreads into y[n, o, ih * s - p + kh * d,
 * ...] with weight w[c, o in group, kh, kw].
 */
static void conv_transpose_ref(const struct conv_case *k, const struct tt *x,
			       const struct tt *w, const struct tt *b,
			       double *y)
{
	int64_t cg = k->c / k->group, og = k->o / k->group;
	int64_t n, o, c, ih, iw, i, j;

	for (n = 0; n < k->n; n++)
		for (o = 0; o < k->o; o++)
			for (i = 0; i < k->oh * k->ow; i++)
				y[(n * k->o + o) * k->oh * k->ow + i] =
					b ? b->v[o] : 0;
	for (n = 0; n < k->n; n++)
	for (c = 0; c < k->c; c++)
	for (ih = 0; ih < k->h; ih++)
	for (iw = 0; iw < k->w; iw++)
	for (o = (c / cg) * og; o < (c / cg + 1) * og; o++)
	for (i = 0; i < k->kh; i++)
	for (j = 0; j < k->kw; j++) {
		int64_t oh = ih * k->stride[0] - k->pad[0] + i * k->dil[0];
		int64_t ow = iw * k->stride[1] - k->pad[1] + j * k->dil[1];

		if (oh < 0 || oh >= k->oh || ow < 0 || ow >= k->ow)
			continue;
		y[((n * k->o + o) * k->oh + oh) * k->ow + ow] +=
			x->v[((n * k->c + c) * k->h + ih) * k->w + iw] *
			w->v[((c * og + o % og) * k->kh + i) * k->kw + j];
	}
}

static void conv_build(FIXTURE_DATA(oplib) *self, const struct conv_case *k,
		       bool transpose, struct desc *o, struct tt **x_,
		       struct tt **w_, struct tt **b_, double lo, double hi)
{
	int64_t xd[4] = { k->n, k->c, k->h, k->w };
	int64_t yd[4] = { k->n, k->o, k->oh, k->ow };
	int64_t wd[4] = { k->o, k->c / k->group, k->kh, k->kw };
	int64_t wt[4] = { k->c, k->o / k->group, k->kh, k->kw };
	struct tt *x, *w, *b = NULL, *y, *in[3];
	struct npu_attr_conv *a = &D(o)->attrs.conv;
	float alpha, beta;
	int i;

	x = tt_alloc(self, k->dtype, k->fmt, 4, xd, NULL);
	w = tt_alloc(self, k->dtype, k->wfmt, 4, transpose ? wt : wd, NULL);
	if (k->bias)
		b = T(self, NPU_DTYPE_F32, 1, &k->o);
	y = tt_alloc(self, k->dtype, k->fmt, 4, yd, NULL);
	tt_fill(self, x, lo, hi);
	tt_fill(self, w, lo, hi);
	if (b)
		tt_fill(self, b, lo, hi);
	in[0] = x;
	in[1] = w;
	in[2] = b;
	desc_init(o, transpose ? NPU_OPERATOR_CONV_TRANSPOSE2D :
		  NPU_OPERATOR_CONV2D, in, b ? 3 : 2, y);
	for (i = 0; i < 2; i++) {
		a->strides[i] = htole32(k->stride[i]);
		a->dilations[i] = htole32(k->dil[i]);
		a->pads_begin[i] = htole32(k->pad[i]);
	}
	a->group = htole32(k->group);
	act_params(k->act, &alpha, &beta);
	a->act = act(k->act, alpha, beta);
	*x_ = x;
	*w_ = w;
	*b_ = b;
}

static const struct conv_case conv_cases[] = {
	{ "3x3 pad 1, bias", 1, 3, 7, 5, 4, 3, 3, 7, 5, {1, 1}, {1, 1}, {1, 1}, 1, true },
	{ "odd sizes, no bias", 2, 5, 9, 11, 7, 3, 2, 7, 10, {1, 1}, {1, 1}, {0, 0}, 1, false },
	{ "stride 2, floor mode", 1, 4, 10, 9, 6, 3, 3, 4, 4, {2, 2}, {1, 1}, {0, 0}, 1, true },
	{ "stride 2, ceil mode end pad", 1, 4, 10, 9, 6, 3, 3, 5, 5, {2, 2}, {1, 1}, {0, 0}, 1, true },
	{ "asymmetric pads", 1, 3, 6, 6, 2, 3, 3, 8, 7, {1, 1}, {1, 1}, {2, 1}, 1, true },
	{ "dilation 2", 1, 3, 11, 12, 5, 3, 3, 7, 8, {1, 1}, {2, 2}, {0, 0}, 1, true },
	{ "dilation and stride", 2, 2, 13, 13, 3, 3, 2, 5, 6, {2, 2}, {3, 2}, {1, 1}, 1, false },
	{ "groups 3", 1, 6, 8, 8, 9, 3, 3, 8, 8, {1, 1}, {1, 1}, {1, 1}, 3, true },
	{ "depthwise", 2, 8, 9, 7, 8, 3, 3, 9, 7, {1, 1}, {1, 1}, {1, 1}, 8, true },
	{ "depthwise multiplier 2", 1, 4, 6, 6, 8, 3, 3, 3, 3, {2, 2}, {1, 1}, {1, 1}, 4, false },
	{ "1x1", 3, 17, 5, 3, 19, 1, 1, 5, 3, {1, 1}, {1, 1}, {0, 0}, 1, true },
	{ "pads beyond the kernel", 1, 2, 4, 4, 3, 2, 2, 9, 9, {1, 1}, {1, 1}, {3, 3}, 1, true },
	{ "NCHW16C, 20 channels", 1, 20, 6, 7, 18, 3, 3, 6, 7, {1, 1}, {1, 1}, {1, 1}, 1, true, NPU_FORMAT_NCHW16C },
	{ "NCHW16C depthwise", 2, 32, 5, 5, 32, 3, 3, 3, 3, {2, 2}, {1, 1}, {1, 1}, 32, true, NPU_FORMAT_NCHW16C },
	{ "bf16", 1, 16, 8, 8, 16, 3, 3, 8, 8, {1, 1}, {1, 1}, {1, 1}, 1, true, 0, NPU_DTYPE_BF16 },
	{ "OIHW16I16O weights", 1, 32, 6, 5, 48, 3, 3, 6, 5, {1, 1}, {1, 1}, {1, 1}, 1, true,
	  NPU_FORMAT_NCHW16C, 0, 0, NPU_FORMAT_OIHW16I16O },
	{ "OIHW16I16O padded, plain x", 2, 20, 5, 5, 18, 1, 1, 3, 3, {2, 2}, {1, 1}, {0, 0}, 1,
	  false, 0, 0, 0, NPU_FORMAT_OIHW16I16O },
};

TEST_F(oplib, conv2d_shapes)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(conv_cases); i++) {
		const struct conv_case *k = &conv_cases[i];
		struct tt *x, *w, *b;
		struct desc o;
		double *want;

		arena_reset(self);
		self->step = k->what;
		conv_build(self, k, false, &o, &x, &w, &b, -1, 1);
		want = want_alloc(o.out);
		conv_ref(k, x, w, b, want, 0, 0);
		RUN_OK(&o);
		EXPECT_OUTPUT(o.out, want);
		free(want);
	}
}

/* Every activation, fused: a loop where oneDNN lacks it. */
TEST_F(oplib, conv2d_activations)
{
	unsigned int kind;

	for (kind = 0; kind <= NPU_UNARY_LAST; kind++) {
		struct conv_case k = { "act", 1, 3, 6, 6, 4, 3, 3, 6, 6,
				       {1, 1}, {1, 1}, {1, 1}, 1, true };
		bool positive = kind == NPU_UNARY_LOG || kind == NPU_UNARY_SQRT;
		struct tt *x, *w, *b;
		float alpha, beta;
		struct desc o;
		double *want;

		snprintf(self->step_buf, sizeof(self->step_buf),
			 "activation %u", kind);
		self->step = self->step_buf;
		arena_reset(self);
		k.act = kind;
		/* log and sqrt of sums kept well away from 0 */
		conv_build(self, &k, false, &o, &x, &w, &b, positive ? 0.1 : -1,
			   positive ? 1 : 1);
		act_params(kind, &alpha, &beta);
		want = want_alloc(o.out);
		conv_ref(&k, x, w, b, want, alpha, beta);
		RUN_OK(&o);
		EXPECT_CLOSE(o.out, want, 1e-4, 1e-4);
		free(want);
	}
}

/* The descriptor again with four inputs, keeping conv_build()'s attributes. */
static void summand_desc(struct desc *o, unsigned int kind, struct tt *const *in)
{
	struct npu_attr_conv a = D(o)->attrs.conv;

	desc_init(o, kind, in, 4, o->out);
	D(o)->attrs.conv = a;
}

/*
 * CONV2D's summand s: y = act(conv + b + s), with s a tensor of its own in
 * either layout, or y itself holding s beforehand (in place).
 */
TEST_F(oplib, conv2d_summand)
{
	static const struct {
		const char *what;
		unsigned int fmt, sfmt;	/* of x and y, of s */
		bool in_place;
		unsigned int act;
	} cases[] = {
		{ "plain s, relu", 0, 0, false, NPU_UNARY_RELU },
		{ "NCHW16C s of its own", NPU_FORMAT_NCHW16C, NPU_FORMAT_NCHW16C, false,
		  NPU_UNARY_RELU },
		{ "plain s, NCHW16C y", NPU_FORMAT_NCHW16C, 0, false, NPU_UNARY_NONE },
		{ "in place, NCHW16C", NPU_FORMAT_NCHW16C, NPU_FORMAT_NCHW16C, true,
		  NPU_UNARY_RELU },
		{ "in place, plain, tanh", 0, 0, true, NPU_UNARY_TANH },
	};
	unsigned int i;
	int64_t e;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct conv_case k = { "summand", 2, 20, 6, 5, 18, 3, 3, 6, 5,
				       {1, 1}, {1, 1}, {1, 1}, 1, true, cases[i].fmt };
		int64_t yd[4] = { 2, 18, 6, 5 };
		struct tt *x, *w, *b, *sm, *in[4];
		float alpha, beta;
		struct desc o;
		double *want, *plain;

		arena_reset(self);
		self->step = cases[i].what;
		k.act = cases[i].act;
		conv_build(self, &k, false, &o, &x, &w, &b, -1, 1);
		sm = cases[i].in_place ? o.out :
		     tt_alloc(self, NPU_DTYPE_F32, cases[i].sfmt, 4, yd, NULL);
		tt_fill(self, sm, -2, 2);
		in[0] = x;
		in[1] = w;
		in[2] = b;
		in[3] = sm;
		summand_desc(&o, NPU_OPERATOR_CONV2D, in);
		k.act = NPU_UNARY_NONE;
		plain = want_alloc(o.out);
		conv_ref(&k, x, w, b, plain, 0, 0);
		act_params(cases[i].act, &alpha, &beta);
		D(&o)->attrs.conv.act = act(cases[i].act, alpha, beta);
		want = want_alloc(o.out);
		for (e = 0; e < (int64_t)o.out->n; e++)
			want[e] = act_ref(cases[i].act, alpha, beta, plain[e] + sm->v[e]);
		RUN_OK(&o);
		EXPECT_OUTPUT(o.out, want);
		free(plain);
		free(want);
	}
}

/* PACK_CONV2D for the CONV2D @conv, from its plain weights @w into @p. */
static void pack_desc(struct desc *pk, struct desc *conv, struct tt *w, struct tt *p)
{
	struct npu_op_desc *c = D(conv);
	struct npu_attr_pack_conv *a;
	struct tt *in[1] = { w };
	unsigned int d, n = c->num_inputs;

	desc_init(pk, NPU_OPERATOR_PACK_CONV2D, in, 1, p);
	a = &D(pk)->attrs.pack_conv;
	a->conv = c->attrs.conv;
	for (d = 0; d < 4; d++) {
		a->x_dims[d] = c->tensors[0].dims[d];
		a->y_dims[d] = c->tensors[n].dims[d];
	}
	a->x_format = c->tensors[0].format;
	a->y_format = c->tensors[n].format;
	a->flags = htole16((n >= 3 ? NPU_PACK_CONV_BIAS : 0) |
			   (n == 4 ? NPU_PACK_CONV_SUMMAND : 0));
}

/* The convolution again, reading @p for its weights. */
static void use_packed(struct desc *conv, const struct tt *p)
{
	tensor_desc(&D(conv)->tensors[1], p);
}

/*
 * Packed weights give the plain weights' results, Winograd's (3x3, stride
 * 1) within its error; packing again after the plain weights change gives
 * the new results: nothing of the old ones is kept.
 */
TEST_F(oplib, conv2d_packed_weights)
{
	static const struct conv_case cases[] = {
		{ "3x3 NCHW16C, Winograd's", 2, 32, 9, 9, 48, 3, 3, 9, 9, {1, 1}, {1, 1},
		  {1, 1}, 1, true, NPU_FORMAT_NCHW16C, 0, NPU_UNARY_RELU },
		{ "3x3 stride 2", 1, 20, 9, 8, 24, 3, 3, 5, 4, {2, 2}, {1, 1}, {1, 1}, 1,
		  true, NPU_FORMAT_NCHW16C },
		{ "1x1 plain x, no bias", 1, 5, 4, 6, 7, 1, 1, 4, 6, {1, 1}, {1, 1},
		  {0, 0}, 1, false },
		{ "groups 2", 1, 8, 6, 6, 4, 3, 3, 6, 6, {1, 1}, {1, 1}, {1, 1}, 2, true },
	};
	unsigned int i, round;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct conv_case *k = &cases[i];
		int64_t wd[4] = { k->o, k->c / k->group, k->kh, k->kw };
		struct tt *x, *w, *b, *p;
		struct desc o, pk;
		float alpha, beta;
		double *want;

		arena_reset(self);
		self->step = k->what;
		conv_build(self, k, false, &o, &x, &w, &b, -1, 1);
		p = tt_alloc(self, k->dtype, NPU_FORMAT_PACKED, 4, wd, NULL);
		pack_desc(&pk, &o, w, p);
		use_packed(&o, p);
		act_params(k->act, &alpha, &beta);
		want = want_alloc(o.out);
		for (round = 0; round < 2; round++) {
			if (round)
				tt_fill(self, w, -1, 1);
			RUN_OK(&pk);
			conv_ref(k, x, w, b, want, alpha, beta);
			RUN_OK(&o);
			EXPECT_CLOSE(o.out, want, 1e-3, 1e-3);
		}
		free(want);
	}
}

/*
 * Packed weights are checked on every run: for another convolution, with
 * a header that was changed, or never packed, they are NPU_ERR_OP_PARAM.
 */
TEST_F(oplib, conv2d_packed_weights_checked)
{
	struct conv_case k = { "packed", 1, 16, 6, 6, 16, 3, 3, 6, 6, {1, 1}, {1, 1},
			       {1, 1}, 1, true, NPU_FORMAT_NCHW16C };
	int64_t wd[4] = { 16, 16, 3, 3 };
	struct tt *x, *w, *b, *p, *fresh;
	struct desc o, pk, other;

	conv_build(self, &k, false, &o, &x, &w, &b, -1, 1);
	p = tt_alloc(self, NPU_DTYPE_F32, NPU_FORMAT_PACKED, 4, wd, NULL);
	fresh = tt_alloc(self, NPU_DTYPE_F32, NPU_FORMAT_PACKED, 4, wd, NULL);
	memset(self->mem + fresh->addr, 0, fresh->extent);
	pack_desc(&pk, &o, w, p);
	use_packed(&o, p);
	RUN_OK(&pk);
	RUN_OK(&o);
	/* stride 2: another convolution over the same weights */
	other = o;
	D(&other)->attrs.conv.strides[0] = htole32(2);
	D(&other)->attrs.conv.strides[1] = htole32(2);
	D(&other)->tensors[3].dims[2] = htole64(3);
	D(&other)->tensors[3].dims[3] = htole64(3);
	D(&other)->tensors[3].format = htole16(NPU_FORMAT_STRIDED);
	D(&other)->tensors[3].strides[0] = htole64(16 * 9);
	D(&other)->tensors[3].strides[1] = htole64(9);
	D(&other)->tensors[3].strides[2] = htole64(3);
	D(&other)->tensors[3].strides[3] = htole64(1);
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &other));
	/* one byte of the header */
	self->mem[p->addr + 9] ^= 1;
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &o));
	self->mem[p->addr + 9] ^= 1;
	RUN_OK(&o);
	use_packed(&o, fresh);
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &o));
	EXPECT_EQ(0, self->stray);
}

/* What PACK_CONV2D itself refuses. */
TEST_F(oplib, pack_conv2d_rejects)
{
	struct conv_case k = { "pack", 1, 16, 6, 6, 16, 3, 3, 6, 6, {1, 1}, {1, 1},
			       {1, 1}, 1, true };
	int64_t wd[4] = { 16, 16, 3, 3 }, wrong[4] = { 16, 16, 3, 2 };
	struct tt *x, *w, *b, *p, *in[2];
	struct desc o, pk;

	conv_build(self, &k, false, &o, &x, &w, &b, -1, 1);
	p = tt_alloc(self, NPU_DTYPE_F32, NPU_FORMAT_PACKED, 4, wd, NULL);
	pack_desc(&pk, &o, w, p);
	D(&pk)->attrs.pack_conv.flags = htole16(4);
	EXPECT_EQ(NPU_ERR_RESERVED, run(self, &pk));
	pack_desc(&pk, &o, w, p);
	D(&pk)->attrs.pack_conv.flags = htole16(NPU_PACK_CONV_SUMMAND);
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &pk));
	pack_desc(&pk, &o, w, p);
	D(&pk)->attrs.pack_conv.x_format = htole16(NPU_FORMAT_PACKED);
	EXPECT_EQ(NPU_ERR_OPERATOR, run(self, &pk));
	/* p of other dims than w, or a y that disagrees with the attributes */
	pack_desc(&pk, &o, w, tt_alloc(self, NPU_DTYPE_F32, NPU_FORMAT_PACKED, 4, wrong, NULL));
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &pk));
	pack_desc(&pk, &o, w, p);
	D(&pk)->attrs.pack_conv.y_dims[1] = htole64(17);
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &pk));
	/* packed weights anywhere but a convolution's w */
	in[0] = x;
	in[1] = p;
	desc_init(&pk, NPU_OPERATOR_BINARY, in, 2, x);
	EXPECT_EQ(NPU_ERR_OPERATOR, run(self, &pk));
	EXPECT_EQ(0, self->stray);
}

/* A summand of other dims, or on a transposed convolution. */
TEST_F(oplib, conv2d_summand_mismatch)
{
	struct conv_case k = { "summand", 1, 4, 5, 5, 6, 3, 3, 5, 5,
			       {1, 1}, {1, 1}, {1, 1}, 1, true };
	int64_t wrong[4] = { 1, 6, 5, 4 };
	struct tt *x, *w, *b, *in[4];
	struct desc o;

	conv_build(self, &k, false, &o, &x, &w, &b, -1, 1);
	in[0] = x;
	in[1] = w;
	in[2] = b;
	in[3] = T(self, NPU_DTYPE_F32, 4, wrong);
	summand_desc(&o, NPU_OPERATOR_CONV2D, in);
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &o));
	in[3] = T(self, NPU_DTYPE_BF16, 4, o.out->dims);
	summand_desc(&o, NPU_OPERATOR_CONV2D, in);
	EXPECT_EQ(NPU_ERR_OPERATOR, run(self, &o));
	in[3] = o.out;
	summand_desc(&o, NPU_OPERATOR_CONV_TRANSPOSE2D, in);
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &o));
	EXPECT_EQ(0, self->stray);
}

static const struct conv_case conv_transpose_cases[] = {
	{ "stride 2, pad 1", 1, 3, 4, 5, 2, 3, 3, 7, 9, {2, 2}, {1, 1}, {1, 1}, 1, true },
	{ "output padding 1", 1, 3, 4, 5, 2, 3, 3, 8, 10, {2, 2}, {1, 1}, {1, 1}, 1, true },
	{ "stride 1, no pad", 2, 4, 5, 3, 3, 2, 3, 6, 5, {1, 1}, {1, 1}, {0, 0}, 1, false },
	{ "groups 2", 1, 4, 3, 3, 6, 3, 3, 7, 7, {2, 2}, {1, 1}, {0, 0}, 2, true },
	{ "dilation 2", 1, 2, 4, 4, 3, 3, 3, 8, 8, {1, 1}, {2, 2}, {0, 0}, 1, true },
	{ "stride 3, asymmetric", 1, 2, 3, 4, 2, 4, 2, 9, 9, {3, 2}, {1, 1}, {2, 0}, 1, true },
	{ "NCHW16C", 1, 17, 3, 3, 5, 2, 2, 6, 6, {2, 2}, {1, 1}, {0, 0}, 1, true, NPU_FORMAT_NCHW16C },
};

TEST_F(oplib, conv_transpose2d)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(conv_transpose_cases); i++) {
		const struct conv_case *k = &conv_transpose_cases[i];
		struct tt *x, *w, *b;
		struct desc o;
		double *want;

		arena_reset(self);
		self->step = k->what;
		conv_build(self, k, true, &o, &x, &w, &b, -1, 1);
		want = want_alloc(o.out);
		conv_transpose_ref(k, x, w, b, want);
		RUN_OK(&o);
		EXPECT_OUTPUT(o.out, want);
		free(want);
	}
}


/* MatMul */

struct matmul_case {
	const char *what;
	unsigned int rank;
	int64_t a[5], b[5], c[5];	/* as stored; c[0] == 0: no c */
	bool ta, tb;
	float alpha, beta;
	unsigned int act;
	unsigned int dtype;
	bool gaps;			/* a's rows 3 elements apart more */
};

static const struct matmul_case matmul_cases[] = {
	{ "2-D", 2, { 5, 7 }, { 7, 3 }, { 0 }, false, false, 1, 0 },
	{ "a transposed", 2, { 7, 5 }, { 7, 3 }, { 0 }, true, false, 1, 0 },
	{ "b transposed", 2, { 5, 7 }, { 3, 7 }, { 0 }, false, true, 1, 0 },
	{ "both transposed, batch", 3, { 4, 9, 6 }, { 4, 5, 9 }, { 0 }, true, true, 1, 0 },
	{ "batch broadcast both ways", 4, { 2, 1, 3, 4 }, { 1, 3, 4, 5 }, { 0 }, false, false, 1, 0 },
	{ "c a bias row", 2, { 6, 8 }, { 8, 10 }, { 1, 10 }, false, false, 1, 1 },
	{ "c full, alpha and beta", 2, { 6, 8 }, { 8, 10 }, { 6, 10 }, false, false, 0.5f, 2 },
	{ "c a column, beta -1", 3, { 2, 6, 8 }, { 2, 8, 10 }, { 1, 6, 1 }, false, false, 1, -1 },
	{ "c batch broadcast, relu", 4, { 2, 3, 4, 5 }, { 2, 3, 5, 6 }, { 2, 1, 1, 6 }, false, false, 1, 1, NPU_UNARY_RELU },
	{ "alpha 1.5, sigmoid", 2, { 5, 7 }, { 7, 3 }, { 0 }, false, false, 1.5f, 0, NPU_UNARY_SIGMOID },
	{ "bias row, erf after", 2, { 5, 7 }, { 3, 7 }, { 1, 3 }, false, true, 1, 1, NPU_UNARY_ERF },
	{ "a with gaps", 2, { 9, 11 }, { 11, 4 }, { 0 }, false, false, 1, 0, 0, 0, true },
	{ "larger", 2, { 64, 96 }, { 96, 80 }, { 1, 80 }, false, false, 1, 1 },
	{ "bf16", 3, { 2, 16, 32 }, { 2, 32, 8 }, { 0 }, false, false, 1, 0, 0, NPU_DTYPE_BF16 },
	{ "rank 5", 5, { 2, 1, 2, 3, 4 }, { 1, 2, 2, 4, 2 }, { 0 }, false, false, 1, 0 },
};

/* The element of t at y's index idx, broadcast; the last two axes given. */
static double bcast_at(const struct tt *t, const int64_t *idx, unsigned int r,
		       int64_t i, int64_t j, bool trans)
{
	int64_t at[NPU_TENSOR_MAX_DIMS];
	unsigned int d;

	for (d = 0; d + 2 < r; d++)
		at[d] = t->dims[d] == 1 ? 0 : idx[d];
	at[r - 2] = trans ? j : i;
	at[r - 1] = trans ? i : j;
	return t->v[ravel(at, t->dims, r)];
}

TEST_F(oplib, matmul)
{
	unsigned int i, d;

	for (i = 0; i < ARRAY_SIZE(matmul_cases); i++) {
		const struct matmul_case *k = &matmul_cases[i];
		unsigned int r = k->rank, nin = k->c[0] ? 3 : 2;
		int64_t m = k->ta ? k->a[r - 1] : k->a[r - 2];
		int64_t kk = k->ta ? k->a[r - 2] : k->a[r - 1];
		int64_t n = k->tb ? k->b[r - 2] : k->b[r - 1];
		int64_t yd[NPU_TENSOR_MAX_DIMS], idx[NPU_TENSOR_MAX_DIMS];
		int64_t gapped[2] = { k->a[1] + 3, 1 };
		struct tt *in[3], *y;
		struct npu_attr_matmul *a;
		float alpha, beta;
		struct desc o;
		double *want;
		uint64_t e;

		arena_reset(self);
		self->step = k->what;
		for (d = 0; d + 2 < r; d++)
			yd[d] = k->a[d] == 1 ? k->b[d] : k->a[d];
		yd[r - 2] = m;
		yd[r - 1] = n;
		in[0] = tt_alloc(self, k->dtype, 0, r, k->a,
				 k->gaps ? gapped : NULL);
		in[1] = T(self, k->dtype, r, k->b);
		in[2] = nin == 3 ? T(self, NPU_DTYPE_F32, r, k->c) : NULL;
		y = T(self, k->dtype, r, yd);
		for (d = 0; d < nin; d++)
			tt_fill(self, in[d], -1, 1);
		desc_init(&o, NPU_OPERATOR_MATMUL, in, nin, y);
		a = &D(&o)->attrs.matmul;
		a->trans_a = htole32(k->ta);
		a->trans_b = htole32(k->tb);
		a->alpha = F(k->alpha);
		a->beta = F(k->beta);
		act_params(k->act, &alpha, &beta);
		a->act = act(k->act, alpha, beta);

		want = want_alloc(y);
		for (e = 0; e < y->n; e++) {
			double acc = 0, c = 0;
			int64_t j;

			unravel(e, y->dims, r, idx);
			for (j = 0; j < kk; j++)
				acc += bcast_at(in[0], idx, r, idx[r - 2], j, k->ta) *
				       bcast_at(in[1], idx, r, j, idx[r - 1], k->tb);
			if (in[2]) {
				int64_t at[NPU_TENSOR_MAX_DIMS];

				for (d = 0; d < r; d++)
					at[d] = in[2]->dims[d] == 1 ? 0 : idx[d];
				c = in[2]->v[ravel(at, in[2]->dims, r)];
			}
			want[e] = act_ref(k->act, alpha, beta,
					  k->alpha * acc + k->beta * c);
		}
		RUN_OK(&o);
		EXPECT_OUTPUT(y, want);
		free(want);
	}
}

/* Pooling */

struct pool_case {
	const char *what;
	int64_t n, c, h, w, oh, ow;
	unsigned int kind;
	uint32_t kernel[2], stride[2], dil[2], pad[2];
	unsigned int fmt;
	unsigned int dtype;
};

static const struct pool_case pool_cases[] = {
	{ "max 2x2 stride 2", 1, 3, 8, 6, 4, 3, NPU_POOL_MAX, {2, 2}, {2, 2}, {1, 1}, {0, 0} },
	{ "max 3x3 stride 2 pad 1, odd", 2, 5, 9, 7, 5, 4, NPU_POOL_MAX, {3, 3}, {2, 2}, {1, 1}, {1, 1} },
	{ "avg counting pads", 1, 4, 7, 7, 7, 7, NPU_POOL_AVG_INCLUDE_PAD, {3, 3}, {1, 1}, {1, 1}, {1, 1} },
	{ "avg not counting pads", 1, 4, 7, 7, 7, 7, NPU_POOL_AVG_EXCLUDE_PAD, {3, 3}, {1, 1}, {1, 1}, {1, 1} },
	{ "max ceil mode", 1, 2, 7, 7, 4, 4, NPU_POOL_MAX, {2, 2}, {2, 2}, {1, 1}, {0, 0} },
	{ "avg ceil mode, not counting pads", 1, 2, 7, 8, 3, 4, NPU_POOL_AVG_EXCLUDE_PAD, {3, 3}, {3, 2}, {1, 1}, {0, 0} },
	{ "max dilated", 1, 3, 10, 10, 6, 6, NPU_POOL_MAX, {3, 3}, {1, 1}, {2, 2}, {0, 0} },
	{ "global average", 2, 6, 5, 9, 1, 1, NPU_POOL_AVG_EXCLUDE_PAD, {5, 9}, {1, 1}, {1, 1}, {0, 0} },
	{ "stride past the kernel", 1, 2, 11, 11, 3, 3, NPU_POOL_MAX, {2, 2}, {4, 4}, {1, 1}, {0, 0} },
	{ "NCHW16C max", 1, 19, 6, 6, 3, 3, NPU_POOL_MAX, {2, 2}, {2, 2}, {1, 1}, {0, 0}, NPU_FORMAT_NCHW16C },
	{ "NCHW16C avg", 2, 16, 5, 5, 5, 5, NPU_POOL_AVG_INCLUDE_PAD, {3, 3}, {1, 1}, {1, 1}, {1, 1}, NPU_FORMAT_NCHW16C },
	{ "bf16 max", 1, 16, 8, 8, 4, 4, NPU_POOL_MAX, {2, 2}, {2, 2}, {1, 1}, {0, 0}, 0, NPU_DTYPE_BF16 },
};

static double pool_ref(const struct pool_case *k, const struct tt *x,
		       int64_t n, int64_t c, int64_t oh, int64_t ow)
{
	double acc = k->kind == NPU_POOL_MAX ? -INFINITY : 0;
	int64_t i, j, count = 0;

	for (i = 0; i < k->kernel[0]; i++)
		for (j = 0; j < k->kernel[1]; j++) {
			int64_t ih = oh * k->stride[0] - k->pad[0] + i * k->dil[0];
			int64_t iw = ow * k->stride[1] - k->pad[1] + j * k->dil[1];
			double v;

			if (ih < 0 || ih >= k->h || iw < 0 || iw >= k->w)
				continue;
			v = x->v[((n * k->c + c) * k->h + ih) * k->w + iw];
			acc = k->kind == NPU_POOL_MAX ? fmax(acc, v) : acc + v;
			count++;
		}
	if (k->kind == NPU_POOL_AVG_INCLUDE_PAD)
		return acc / (k->kernel[0] * k->kernel[1]);
	if (k->kind == NPU_POOL_AVG_EXCLUDE_PAD)
		return acc / count;
	return acc;
}

TEST_F(oplib, pool2d)
{
	unsigned int i, d;

	for (i = 0; i < ARRAY_SIZE(pool_cases); i++) {
		const struct pool_case *k = &pool_cases[i];
		int64_t xd[4] = { k->n, k->c, k->h, k->w };
		int64_t yd[4] = { k->n, k->c, k->oh, k->ow };
		struct npu_attr_pool *a;
		int64_t idx[4];
		struct tt *x, *y;
		struct desc o;
		double *want;
		uint64_t e;

		arena_reset(self);
		self->step = k->what;
		x = tt_alloc(self, k->dtype, k->fmt, 4, xd, NULL);
		y = tt_alloc(self, k->dtype, k->fmt, 4, yd, NULL);
		tt_fill(self, x, -1, 1);
		desc_init(&o, NPU_OPERATOR_POOL2D, &x, 1, y);
		a = &D(&o)->attrs.pool;
		a->kind = htole32(k->kind);
		for (d = 0; d < 2; d++) {
			a->kernel[d] = htole32(k->kernel[d]);
			a->strides[d] = htole32(k->stride[d]);
			a->dilations[d] = htole32(k->dil[d]);
			a->pads_begin[d] = htole32(k->pad[d]);
		}
		want = want_alloc(y);
		for (e = 0; e < y->n; e++) {
			unravel(e, y->dims, 4, idx);
			want[e] = pool_ref(k, x, idx[0], idx[1], idx[2], idx[3]);
		}
		RUN_OK(&o);
		EXPECT_OUTPUT(y, want);
		free(want);
	}
}

/* Elementwise */

static void unary_range(unsigned int kind, double *lo, double *hi)
{
	*lo = -4;
	*hi = 4;
	if (kind == NPU_UNARY_LOG || kind == NPU_UNARY_SQRT ||
	    kind == NPU_UNARY_RSQRT || kind == NPU_UNARY_RECIPROCAL)
		*lo = 0.1;
}

/*
 * Every function, in four layouts: dense, gapped x, NCHW16C, and a
 * column-major x whose strides run the other way.
 */
TEST_F(oplib, unary)
{
	static const int64_t dims[3] = { 3, 5, 7 }, gaps[3] = { 80, 12, 1 };
	static const int64_t column_major[3] = { 1, 3, 15 };
	static const int64_t blocked[4] = { 2, 20, 3, 5 };
	unsigned int kind, layout;

	for (kind = 0; kind <= NPU_UNARY_LAST; kind++)
	for (layout = 0; layout < 4; layout++) {
		struct tt *x, *y;
		float alpha, beta;
		double lo, hi, *want;
		struct desc o;
		uint64_t e;

		snprintf(self->step_buf, sizeof(self->step_buf),
			 "function %u, layout %u", kind, layout);
		self->step = self->step_buf;
		arena_reset(self);
		if (layout == 2) {
			x = tt_alloc(self, 0, NPU_FORMAT_NCHW16C, 4, blocked, NULL);
			y = tt_alloc(self, 0, NPU_FORMAT_NCHW16C, 4, blocked, NULL);
		} else {
			x = tt_alloc(self, 0, 0, 3, dims, layout == 3 ?
				     column_major : layout ? gaps : NULL);
			y = T(self, 0, 3, dims);
		}
		unary_range(kind, &lo, &hi);
		tt_fill(self, x, lo, hi);
		desc_init(&o, NPU_OPERATOR_UNARY, &x, 1, y);
		act_params(kind, &alpha, &beta);
		D(&o)->attrs.unary.fn = act(kind, alpha, beta);
		want = want_alloc(y);
		for (e = 0; e < y->n; e++)
			want[e] = act_ref(kind, alpha, beta, x->v[e]);
		RUN_OK(&o);
		/* oneDNN's log is 3e-6 off near log(1) = 0 */
		EXPECT_CLOSE(y, want, 1e-5, 1e-5);
		free(want);
	}
}

/* bf16, a scalar, and x and y the same tensor. */
TEST_F(oplib, unary_bf16_scalar_in_place)
{
	static const unsigned int kinds[] = { NPU_UNARY_RELU, NPU_UNARY_GELU,
					      NPU_UNARY_ERF, NPU_UNARY_HARDSIGMOID };
	static const int64_t dims[2] = { 7, 9 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		struct tt *x = T(self, NPU_DTYPE_BF16, 2, dims);
		struct tt *y = T(self, NPU_DTYPE_BF16, 2, dims);
		struct tt *s = T(self, 0, 0, NULL), *sy = T(self, 0, 0, NULL);
		float alpha, beta;
		double want[63];
		struct desc o;
		uint64_t e;

		self->step = "bf16";
		tt_fill(self, x, -3, 3);
		desc_init(&o, NPU_OPERATOR_UNARY, &x, 1, y);
		act_params(kinds[i], &alpha, &beta);
		D(&o)->attrs.unary.fn = act(kinds[i], alpha, beta);
		for (e = 0; e < y->n; e++)
			want[e] = act_ref(kinds[i], alpha, beta, x->v[e]);
		RUN_OK(&o);
		EXPECT_OUTPUT(y, want);

		self->step = "scalar";
		tt_fill(self, s, -3, 3);
		desc_init(&o, NPU_OPERATOR_UNARY, &s, 1, sy);
		D(&o)->attrs.unary.fn = act(kinds[i], alpha, beta);
		want[0] = act_ref(kinds[i], alpha, beta, s->v[0]);
		RUN_OK(&o);
		EXPECT_OUTPUT(sy, want);

		self->step = "in place";
		desc_init(&o, NPU_OPERATOR_UNARY, &x, 1, x);
		D(&o)->attrs.unary.fn = act(kinds[i], alpha, beta);
		for (e = 0; e < x->n; e++)
			want[e] = act_ref(kinds[i], alpha, beta, x->v[e]);
		RUN_OK(&o);
		EXPECT_OUTPUT(x, want);
	}
}

/*
 * The new functions where they turn: THRESHOLD at its threshold, SIGN and
 * LOGICAL_NOT of both zeros and NaN, SOFTPLUS_BETA on both sides of its
 * threshold, RSQRT and RECIPROCAL of 0 and negatives; in f32, f16, bf16.
 */
TEST_F(oplib, unary_new_functions_at_their_edges)
{
	static const struct {
		unsigned int kind;
		float alpha, beta;
		double x[6];
	} cases[] = {
		{ NPU_UNARY_THRESHOLD, 1, -5, { 1, 1.0078125, 0.5, 2, -1, 0 } },
		{ NPU_UNARY_THRESHOLD, -0.5f, 0.25f, { -0.5, -0.25, -1, 3, 0, -0.5 } },
		{ NPU_UNARY_SIGN, 0, 0, { 0, -0.0, 3, -2, NAN, 0.0078125 } },
		{ NPU_UNARY_LOGICAL_NOT, 0, 0, { 0, -0.0, 1, -3, 0.5, NAN } },
		{ NPU_UNARY_SOFTPLUS_BETA, 1, 20, { 25, 20.5, 0, -3, 19.5, 4 } },
		{ NPU_UNARY_SOFTPLUS_BETA, -2, 4, { -3, -1, 0, 1, -2.5, 2 } },
		{ NPU_UNARY_RSQRT, 0, 0, { 4, 0, 0.25, 16, 1, 2 } },
		{ NPU_UNARY_RECIPROCAL, 0, 0, { -4, 0, 0.5, -0.125, 3, -0.0 } },
		{ NPU_UNARY_SIN, 0, 0, { 0, M_PI / 2, -M_PI / 6, 3, -5, 1 } },
		{ NPU_UNARY_COS, 0, 0, { 0, M_PI, M_PI / 3, -2, 5, 1 } },
		{ NPU_UNARY_SILU, 0, 0, { 0, -1, 1, -6, 6, 0.5 } },
		{ NPU_UNARY_GELU_TANH, 0, 0, { 0, -1, 1, -3, 3, 0.5 } },
	};
	static const unsigned int dtypes[] = { NPU_DTYPE_F32, NPU_DTYPE_F16, NPU_DTYPE_BF16 };
	static const int64_t dims[1] = { 6 };
	unsigned int i, j, e;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
	for (j = 0; j < ARRAY_SIZE(dtypes); j++) {
		struct tt *x, *y;
		struct desc o;
		double want[6];

		arena_reset(self);
		snprintf(self->step_buf, sizeof(self->step_buf), "case %u, dtype %u",
			 i, dtypes[j]);
		self->step = self->step_buf;
		x = T(self, dtypes[j], 1, dims);
		y = T(self, dtypes[j], 1, dims);
		memcpy(x->v, cases[i].x, sizeof(cases[i].x));
		tt_put(self, x);
		tt_get(self, x, x->v);
		for (e = 0; e < 6; e++)
			want[e] = act_ref(cases[i].kind, cases[i].alpha, cases[i].beta,
					  x->v[e]);
		desc_init(&o, NPU_OPERATOR_UNARY, &x, 1, y);
		D(&o)->attrs.unary.fn = act(cases[i].kind, cases[i].alpha, cases[i].beta);
		RUN_OK(&o);
		EXPECT_OUTPUT(y, want);
	}
}

/* SIGN and LOGICAL_NOT of integers: exact, whatever the magnitude. */
TEST_F(oplib, unary_sign_and_not_of_integers)
{
	static const unsigned int dtypes[] = { NPU_DTYPE_S32, NPU_DTYPE_S8, NPU_DTYPE_U8 };
	static const double v[5] = { 0, 1, -7, 100, 2147483520.0 };
	static const int64_t dims[1] = { 5 };
	unsigned int j, k, e;

	for (j = 0; j < ARRAY_SIZE(dtypes); j++)
	for (k = 0; k < 2; k++) {
		unsigned int kind = k ? NPU_UNARY_LOGICAL_NOT : NPU_UNARY_SIGN;
		struct tt *x, *y;
		struct desc o;
		double want[5];

		arena_reset(self);
		snprintf(self->step_buf, sizeof(self->step_buf), "function %u, dtype %u",
			 kind, dtypes[j]);
		self->step = self->step_buf;
		x = T(self, dtypes[j], 1, dims);
		y = T(self, dtypes[j], 1, dims);
		memcpy(x->v, v, sizeof(v));
		tt_put(self, x);
		tt_get(self, x, x->v);
		for (e = 0; e < 5; e++)
			want[e] = to_int(act_ref(kind, 0, 0, x->v[e]), -128, 255);
		desc_init(&o, NPU_OPERATOR_UNARY, &x, 1, y);
		D(&o)->attrs.unary.fn = act(kind, 0, 0);
		RUN_OK(&o);
		EXPECT_EXACT(y, want);
	}
}

static double binary_ref(unsigned int kind, double a, double b)
{
	return ref_binary_fn(kind, a, b);
}

struct binary_shapes {
	const char *what;
	unsigned int rank;
	int64_t a[4], b[4];
	unsigned int fa, fb;	/* formats */
};

static const struct binary_shapes binary_shapes[] = {
	{ "same shape", 3, { 2, 3, 5 }, { 2, 3, 5 } },
	{ "b broadcast", 3, { 2, 3, 5 }, { 1, 3, 1 } },
	{ "a broadcast", 3, { 1, 3, 1 }, { 2, 3, 5 } },
	{ "both broadcast", 3, { 2, 1, 5 }, { 1, 4, 1 } },
	{ "scalars", 0 },
	/* unit axes between others: oneDNN must see them in place, not permuted */
	{ "one row, scalar b", 4, { 1, 60, 1, 40 }, { 1, 1, 1, 1 } },
	{ "one row, per channel b", 4, { 1, 60, 1, 40 }, { 1, 60, 1, 1 } },
	{ "one row, both broadcast", 4, { 1, 12, 1, 1 }, { 1, 1, 1, 40 } },
	{ "NCHW16C, per channel b", 4, { 2, 20, 3, 3 }, { 1, 20, 1, 1 }, NPU_FORMAT_NCHW16C, 0 },
	{ "NCHW16C both", 4, { 1, 17, 2, 3 }, { 1, 17, 2, 3 }, NPU_FORMAT_NCHW16C, NPU_FORMAT_NCHW16C },
};

TEST_F(oplib, binary)
{
	unsigned int kind, i, d;

	for (kind = 0; kind <= NPU_BINARY_LAST; kind++)
	for (i = 0; i < ARRAY_SIZE(binary_shapes); i++) {
		const struct binary_shapes *k = &binary_shapes[i];
		int64_t yd[4], idx[4], ia[4], ib[4];
		struct tt *in[2], *y;
		struct desc o;
		double *want;
		uint64_t e;

		snprintf(self->step_buf, sizeof(self->step_buf),
			 "kind %u, %s", kind, k->what);
		self->step = self->step_buf;
		arena_reset(self);
		for (d = 0; d < k->rank; d++)
			yd[d] = k->a[d] == 1 ? k->b[d] : k->a[d];
		in[0] = tt_alloc(self, 0, k->fa, k->rank, k->a, NULL);
		in[1] = tt_alloc(self, 0, k->fb, k->rank, k->b, NULL);
		y = tt_alloc(self, 0, k->fa, k->rank, yd, NULL);
		tt_fill(self, in[0], kind == NPU_BINARY_POW ? 0.5 : -2, 2);
		tt_fill(self, in[1], kind == NPU_BINARY_DIV ? 0.5 : -2, 2);
		desc_init(&o, NPU_OPERATOR_BINARY, in, 2, y);
		D(&o)->attrs.binary.kind = htole32(kind);
		want = want_alloc(y);
		for (e = 0; e < y->n; e++) {
			unravel(e, yd, k->rank, idx);
			for (d = 0; d < k->rank; d++) {
				ia[d] = k->a[d] == 1 ? 0 : idx[d];
				ib[d] = k->b[d] == 1 ? 0 : idx[d];
			}
			want[e] = binary_ref(kind,
					in[0]->v[ravel(ia, k->a, k->rank)],
					in[1]->v[ravel(ib, k->b, k->rank)]);
		}
		RUN_OK(&o);
		EXPECT_CLOSE(y, want, 1e-5, 1e-6);
		free(want);
	}
}

/* Fused activations, bf16, and a strided output. */
TEST_F(oplib, binary_activations)
{
	static const int64_t a_dims[3] = { 4, 3, 6 }, b_dims[3] = { 4, 1, 6 };
	static const int64_t y_gaps[3] = { 40, 10, 1 };
	unsigned int kind, dt;

	for (dt = 0; dt < 2; dt++)
	for (kind = 0; kind <= NPU_UNARY_LAST; kind++) {
		unsigned int dtype = dt ? NPU_DTYPE_BF16 : NPU_DTYPE_F32;
		int64_t idx[3], ib[3];
		struct tt *in[2], *y;
		float alpha, beta;
		struct desc o;
		double *want, lo, hi;
		uint64_t e;

		snprintf(self->step_buf, sizeof(self->step_buf),
			 "activation %u, dtype %u", kind, dtype);
		self->step = self->step_buf;
		arena_reset(self);
		unary_range(kind, &lo, &hi);
		in[0] = T(self, dtype, 3, a_dims);
		in[1] = T(self, dtype, 3, b_dims);
		y = tt_alloc(self, dtype, 0, 3, a_dims, y_gaps);
		/* a sum, so log and sqrt get half the range each */
		tt_fill(self, in[0], lo / 2, hi / 2);
		tt_fill(self, in[1], lo / 2, hi / 2);
		desc_init(&o, NPU_OPERATOR_BINARY, in, 2, y);
		D(&o)->attrs.binary.kind = htole32(NPU_BINARY_ADD);
		act_params(kind, &alpha, &beta);
		D(&o)->attrs.binary.act = act(kind, alpha, beta);
		want = want_alloc(y);
		for (e = 0; e < y->n; e++) {
			unravel(e, a_dims, 3, idx);
			memcpy(ib, idx, sizeof(ib));
			ib[1] = 0;
			want[e] = act_ref(kind, alpha, beta, in[0]->v[e] +
					  in[1]->v[ravel(ib, b_dims, 3)]);
		}
		RUN_OK(&o);
		EXPECT_OUTPUT(y, want);
		free(want);
	}
}

/*
 * Arithmetic on an F32 and a half operand into F32 (aclnn's Mul and Add
 * of ggml's ALiBi: F32 slopes times an F16 mask, per head): the half
 * operand is widened as it is read, either side, broadcasting or not.
 */
TEST_F(oplib, binary_mixed_floats)
{
	static const int64_t big[4] = { 2, 3, 5, 7 }, heads[4] = { 1, 3, 1, 1 };
	static const int64_t mask[4] = { 2, 1, 5, 7 };
	static const unsigned int halves[] = { NPU_DTYPE_F16, NPU_DTYPE_BF16 };
	unsigned int kind, h, swap;

	for (kind = NPU_BINARY_ADD; kind < NPU_BINARY_EQ; kind++)
	for (h = 0; h < ARRAY_SIZE(halves); h++)
	for (swap = 0; swap < 2; swap++) {
		int64_t idx[4], ia[4], ib[4];
		struct tt *in[2], *y;
		struct desc o;
		double *want;
		uint64_t e;
		int d;

		snprintf(self->step_buf, sizeof(self->step_buf),
			 "kind %u, half %u, swapped %u", kind, halves[h], swap);
		self->step = self->step_buf;
		arena_reset(self);
		in[swap] = T(self, NPU_DTYPE_F32, 4, heads);
		in[!swap] = T(self, halves[h], 4, mask);
		y = T(self, NPU_DTYPE_F32, 4, big);
		tt_fill(self, in[0], 0.5, 2);
		tt_fill(self, in[1], 0.5, 2);
		desc_init(&o, NPU_OPERATOR_BINARY, in, 2, y);
		D(&o)->attrs.binary.kind = htole32(kind);
		want = want_alloc(y);
		for (e = 0; e < y->n; e++) {
			unravel(e, big, 4, idx);
			for (d = 0; d < 4; d++) {
				ia[d] = in[0]->dims[d] == 1 ? 0 : idx[d];
				ib[d] = in[1]->dims[d] == 1 ? 0 : idx[d];
			}
			want[e] = binary_ref(kind, in[0]->v[ravel(ia, in[0]->dims, 4)],
					     in[1]->v[ravel(ib, in[1]->dims, 4)]);
		}
		RUN_OK(&o);
		EXPECT_CLOSE(y, want, 1e-6, 1e-6);
		free(want);
	}
}

/*
 * Comparisons: sources of every data type holding equal values often, into
 * outputs of another type, each side broadcast (which swaps the sources
 * for oneDNN); integers beyond float32's precision and NaN.
 */
TEST_F(oplib, compare)
{
	static const struct {
		unsigned int src, dst;
	} types[] = {
		{ NPU_DTYPE_F32, NPU_DTYPE_F32 }, { NPU_DTYPE_F32, NPU_DTYPE_U8 },
		{ NPU_DTYPE_BF16, NPU_DTYPE_S8 }, { NPU_DTYPE_F16, NPU_DTYPE_F16 },
		{ NPU_DTYPE_F16, NPU_DTYPE_U8 }, { NPU_DTYPE_S32, NPU_DTYPE_U8 },
		{ NPU_DTYPE_S8, NPU_DTYPE_F32 }, { NPU_DTYPE_U8, NPU_DTYPE_BF16 },
		{ NPU_DTYPE_F32, NPU_DTYPE_BOOL }, { NPU_DTYPE_S64, NPU_DTYPE_BOOL },
		{ NPU_DTYPE_S16, NPU_DTYPE_S64 }, { NPU_DTYPE_BOOL, NPU_DTYPE_BOOL },
	};
	static const int64_t shapes[3][2][3] = {
		{ { 2, 3, 4 }, { 2, 3, 4 } },
		{ { 2, 3, 4 }, { 1, 3, 1 } },
		{ { 2, 1, 4 }, { 2, 3, 4 } },
	};
	unsigned int kind, t, sh, d;

	for (kind = NPU_BINARY_EQ; kind <= NPU_BINARY_LAST; kind++)
	for (t = 0; t < ARRAY_SIZE(types); t++)
	for (sh = 0; sh < 3; sh++) {
		int64_t yd[3], idx[3], ia[3], ib[3];
		struct tt *in[2], *y;
		struct desc o;
		double *want;
		uint64_t e;

		arena_reset(self);
		snprintf(self->step_buf, sizeof(self->step_buf), "kind %u, types %u, shape %u",
			 kind, t, sh);
		self->step = self->step_buf;
		for (d = 0; d < 3; d++)
			yd[d] = shapes[sh][0][d] == 1 ? shapes[sh][1][d] : shapes[sh][0][d];
		in[0] = T(self, types[t].src, 3, shapes[sh][0]);
		in[1] = T(self, types[t].src, 3, shapes[sh][1]);
		y = T(self, types[t].dst, 3, yd);
		/* three values, so that a third of the pairs are equal */
		for (e = 0; e < in[0]->n; e++)
			in[0]->v[e] = floor(rnd_uniform(self, 0, 3));
		for (e = 0; e < in[1]->n; e++)
			in[1]->v[e] = floor(rnd_uniform(self, 0, 3));
		tt_put(self, in[0]);
		tt_put(self, in[1]);
		/* as stored: BOOL holds 2 as 1 */
		tt_get(self, in[0], in[0]->v);
		tt_get(self, in[1], in[1]->v);
		desc_init(&o, NPU_OPERATOR_BINARY, in, 2, y);
		D(&o)->attrs.binary.kind = htole32(kind);
		want = want_alloc(y);
		for (e = 0; e < y->n; e++) {
			unravel(e, yd, 3, idx);
			for (d = 0; d < 3; d++) {
				ia[d] = shapes[sh][0][d] == 1 ? 0 : idx[d];
				ib[d] = shapes[sh][1][d] == 1 ? 0 : idx[d];
			}
			want[e] = binary_ref(kind, in[0]->v[ravel(ia, shapes[sh][0], 3)],
					     in[1]->v[ravel(ib, shapes[sh][1], 3)]);
		}
		RUN_OK(&o);
		EXPECT_EXACT(y, want);
		free(want);
	}
}

/* Beyond double's 2^53 too: S64 compares as int64. */
TEST_F(oplib, compare_s64_exact)
{
	static const int64_t a[3] = { (1LL << 62) + 1, INT64_MIN, -(1LL << 60) };
	static const int64_t b[3] = { 1LL << 62, INT64_MIN + 1, -(1LL << 60) };
	static const int64_t dims[1] = { 3 };
	unsigned int kind;
	uint64_t e;

	for (kind = NPU_BINARY_EQ; kind <= NPU_BINARY_LAST; kind++) {
		struct tt *in[2], *y;
		struct desc o;
		double want[3];

		arena_reset(self);
		in[0] = T(self, NPU_DTYPE_S64, 1, dims);
		in[1] = T(self, NPU_DTYPE_S64, 1, dims);
		y = T(self, NPU_DTYPE_BOOL, 1, dims);
		for (e = 0; e < 3; e++) {
			memcpy(tt_ptr(self, in[0], (int64_t[]){ e }), &a[e], 8);
			memcpy(tt_ptr(self, in[1], (int64_t[]){ e }), &b[e], 8);
			want[e] = kind == NPU_BINARY_EQ ? a[e] == b[e] :
				  kind == NPU_BINARY_NE ? a[e] != b[e] :
				  kind == NPU_BINARY_LT ? a[e] < b[e] :
				  kind == NPU_BINARY_LE ? a[e] <= b[e] :
				  kind == NPU_BINARY_GT ? a[e] > b[e] : a[e] >= b[e];
		}
		desc_init(&o, NPU_OPERATOR_BINARY, in, 2, y);
		D(&o)->attrs.binary.kind = htole32(kind);
		self->step = "s64";
		RUN_OK(&o);
		EXPECT_EXACT(y, want);
	}
}

/* float32 cannot tell 2^24 + 1 from 2^24; the card's comparisons can. */
TEST_F(oplib, compare_exact_integers_and_nan)
{
	static const int64_t dims[1] = { 4 };
	static const double ia[4] = { 16777217, -2147483648.0, 5, 16777216 };
	static const double ib[4] = { 16777216, -2147483647.0, 5, 16777217 };
	static const double fa[4] = { NAN, 1, NAN, -0.0 };
	static const double fb[4] = { 1, NAN, NAN, 0 };
	unsigned int kind, f;

	for (f = 0; f < 2; f++)
	for (kind = NPU_BINARY_EQ; kind <= NPU_BINARY_LAST; kind++) {
		unsigned int dtype = f ? NPU_DTYPE_F32 : NPU_DTYPE_S32;
		struct tt *in[2], *y;
		struct desc o;
		double want[4];
		uint64_t e;

		arena_reset(self);
		snprintf(self->step_buf, sizeof(self->step_buf), "kind %u, %s", kind,
			 f ? "NaN" : "s32");
		self->step = self->step_buf;
		in[0] = T(self, dtype, 1, dims);
		in[1] = T(self, dtype, 1, dims);
		y = T(self, NPU_DTYPE_U8, 1, dims);
		memcpy(in[0]->v, f ? fa : ia, sizeof(ia));
		memcpy(in[1]->v, f ? fb : ib, sizeof(ib));
		/* the s32 ones straight in: store() goes through float */
		for (e = 0; e < 4; e++) {
			int32_t a = ia[e], b = ib[e];

			if (f) {
				store(tt_ptr(self, in[0], (int64_t[]){ e }), dtype, fa[e]);
				store(tt_ptr(self, in[1], (int64_t[]){ e }), dtype, fb[e]);
				continue;
			}
			memcpy(tt_ptr(self, in[0], (int64_t[]){ e }), &a, 4);
			memcpy(tt_ptr(self, in[1], (int64_t[]){ e }), &b, 4);
		}
		for (e = 0; e < 4; e++)
			want[e] = binary_ref(kind, in[0]->v[e], in[1]->v[e]);
		desc_init(&o, NPU_OPERATOR_BINARY, in, 2, y);
		D(&o)->attrs.binary.kind = htole32(kind);
		RUN_OK(&o);
		EXPECT_EXACT(y, want);
	}
}

/* Normalizations */

struct norm_case {
	const char *what;
	unsigned int rank;
	int64_t dims[6];
	unsigned int axis;		/* LAYERNORM */
	bool bias;			/* LAYERNORM */
	unsigned int act;
	unsigned int fmt;
	unsigned int dtype;
	bool gaps;			/* x with gaps between its rows */
};

static const struct norm_case batchnorm_cases[] = {
	{ "NCHW", 4, { 2, 5, 3, 7 } },
	{ "N, C only", 2, { 6, 9 } },
	{ "rank 6", 6, { 2, 3, 2, 2, 3, 2 } },
	{ "NCHW16C, relu", 4, { 2, 20, 3, 3 }, 0, false, NPU_UNARY_RELU, NPU_FORMAT_NCHW16C },
	{ "x with gaps, sigmoid", 4, { 2, 3, 4, 5 }, 0, false, NPU_UNARY_SIGMOID, 0, 0, true },
	{ "erf", 3, { 3, 4, 5 }, 0, false, NPU_UNARY_ERF },
	{ "bf16", 4, { 2, 16, 4, 4 }, 0, false, 0, 0, NPU_DTYPE_BF16 },
};

/* Strides with 2 elements of gap after every innermost row. */
static void gapped_strides(const int64_t *dims, unsigned int rank,
			   int64_t *strides)
{
	int64_t s = dims[rank - 1] + 2;
	int d;

	strides[rank - 1] = 1;
	for (d = (int)rank - 2; d >= 0; d--) {
		strides[d] = s;
		s *= dims[d];
	}
}

static struct tt *norm_x(FIXTURE_DATA(oplib) *self, const struct norm_case *k)
{
	int64_t strides[NPU_TENSOR_MAX_DIMS];

	gapped_strides(k->dims, k->rank, strides);
	return tt_alloc(self, k->dtype, k->fmt, k->rank, k->dims,
			k->gaps ? strides : NULL);
}

TEST_F(oplib, batchnorm)
{
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(batchnorm_cases); i++) {
		const struct norm_case *k = &batchnorm_cases[i];
		int64_t c = k->dims[1], idx[NPU_TENSOR_MAX_DIMS];
		struct tt *in[5], *y;
		const float eps = 1e-3f;
		float alpha, beta;
		struct desc o;
		double *want;
		uint64_t e;

		arena_reset(self);
		self->step = k->what;
		in[0] = norm_x(self, k);
		for (j = 1; j < 5; j++)
			in[j] = T(self, NPU_DTYPE_F32, 1, &c);
		y = tt_alloc(self, k->dtype, k->fmt, k->rank, k->dims, NULL);
		tt_fill(self, in[0], -2, 2);
		tt_fill(self, in[1], 0.5, 2);		/* scale */
		tt_fill(self, in[2], -1, 1);		/* bias */
		tt_fill(self, in[3], -0.5, 0.5);	/* mean */
		tt_fill(self, in[4], 0.2, 3);		/* variance */
		desc_init(&o, NPU_OPERATOR_BATCHNORM, in, 5, y);
		D(&o)->attrs.norm.epsilon = F(eps);
		act_params(k->act, &alpha, &beta);
		D(&o)->attrs.norm.act = act(k->act, alpha, beta);
		want = want_alloc(y);
		for (e = 0; e < y->n; e++) {
			int64_t ch;

			unravel(e, k->dims, k->rank, idx);
			ch = idx[1];
			want[e] = act_ref(k->act, alpha, beta,
					  (in[0]->v[e] - in[3]->v[ch]) /
					  sqrt(in[4]->v[ch] + eps) *
					  in[1]->v[ch] + in[2]->v[ch]);
		}
		RUN_OK(&o);
		EXPECT_OUTPUT(y, want);
		free(want);
	}
}

static const struct norm_case layernorm_cases[] = {
	{ "last axis", 3, { 4, 3, 10 }, 2, true },
	{ "two axes", 3, { 4, 3, 10 }, 1, true },
	{ "every axis", 2, { 5, 6 }, 0, true },
	{ "no bias, gelu", 2, { 7, 12 }, 1, false, NPU_UNARY_GELU },
	{ "x with gaps, erf", 3, { 3, 4, 5 }, 1, true, NPU_UNARY_ERF, 0, 0, true },
	{ "rank 1", 1, { 33 }, 0, true },
	{ "bf16", 2, { 8, 64 }, 1, true, 0, 0, NPU_DTYPE_BF16 },
};

TEST_F(oplib, layernorm)
{
	unsigned int i, d;

	for (i = 0; i < ARRAY_SIZE(layernorm_cases); i++) {
		const struct norm_case *k = &layernorm_cases[i];
		unsigned int nin = k->bias ? 3 : 2, prank = k->rank - k->axis;
		int64_t outer = 1, inner = 1, r, j;
		const float eps = 1e-5f;
		struct tt *in[3], *y;
		float alpha, beta;
		struct desc o;
		double *want;

		arena_reset(self);
		self->step = k->what;
		for (d = 0; d < k->rank; d++) {
			if (d < k->axis)
				outer *= k->dims[d];
			else
				inner *= k->dims[d];
		}
		in[0] = norm_x(self, k);
		in[1] = T(self, NPU_DTYPE_F32, prank, &k->dims[k->axis]);
		in[2] = T(self, NPU_DTYPE_F32, prank, &k->dims[k->axis]);
		y = T(self, k->dtype, k->rank, k->dims);
		tt_fill(self, in[0], -2, 2);
		tt_fill(self, in[1], 0.5, 2);
		tt_fill(self, in[2], -1, 1);
		desc_init(&o, NPU_OPERATOR_LAYERNORM, in, nin, y);
		D(&o)->attrs.norm.axis = htole32(k->axis);
		D(&o)->attrs.norm.epsilon = F(eps);
		act_params(k->act, &alpha, &beta);
		D(&o)->attrs.norm.act = act(k->act, alpha, beta);
		want = want_alloc(y);
		for (r = 0; r < outer; r++) {
			const double *x = &in[0]->v[r * inner];
			double mean = 0, var = 0;

			for (j = 0; j < inner; j++)
				mean += x[j] / inner;
			for (j = 0; j < inner; j++)
				var += (x[j] - mean) * (x[j] - mean) / inner;
			for (j = 0; j < inner; j++)
				want[r * inner + j] = act_ref(k->act, alpha, beta,
					(x[j] - mean) / sqrt(var + eps) *
					in[1]->v[j] + (k->bias ? in[2]->v[j] : 0));
		}
		RUN_OK(&o);
		EXPECT_OUTPUT(y, want);
		free(want);
	}
}

/* Softmax and log-softmax on every axis of a tensor, and NCHW16C. */
TEST_F(oplib, softmax)
{
	static const int64_t dims[4] = { 2, 19, 3, 5 };
	unsigned int axis, lg, fmt;

	for (fmt = 0; fmt < 2; fmt++)
	for (lg = 0; lg < 2; lg++)
	for (axis = 0; axis < 4; axis++) {
		int64_t idx[4], at[4], j;
		struct tt *x, *y;
		struct desc o;
		double *want;
		uint64_t e;

		snprintf(self->step_buf, sizeof(self->step_buf),
			 "format %u, log %u, axis %u", fmt, lg, axis);
		self->step = self->step_buf;
		arena_reset(self);
		x = tt_alloc(self, 0, fmt, 4, dims, NULL);
		y = tt_alloc(self, 0, fmt, 4, dims, NULL);
		tt_fill(self, x, -5, 5);
		desc_init(&o, NPU_OPERATOR_SOFTMAX, &x, 1, y);
		D(&o)->attrs.softmax.axis = htole32(axis);
		D(&o)->attrs.softmax.log = htole32(lg);
		want = want_alloc(y);
		for (e = 0; e < y->n; e++) {
			double max = -INFINITY, sum = 0;

			unravel(e, dims, 4, idx);
			memcpy(at, idx, sizeof(at));
			for (j = 0; j < dims[axis]; j++) {
				at[axis] = j;
				max = fmax(max, x->v[ravel(at, dims, 4)]);
			}
			for (j = 0; j < dims[axis]; j++) {
				at[axis] = j;
				sum += exp(x->v[ravel(at, dims, 4)] - max);
			}
			want[e] = lg ? x->v[e] - max - log(sum) :
				  exp(x->v[e] - max) / sum;
		}
		RUN_OK(&o);
		EXPECT_CLOSE(y, want, 1e-5, 1e-5);
		free(want);
	}
}

/* Reductions */

struct reduce_case {
	const char *what;
	unsigned int rank;
	int64_t dims[5];
	uint32_t axes;
	unsigned int fmt;
};

static const struct reduce_case reduce_cases[] = {
	{ "last axis", 3, { 4, 5, 6 }, 0x4 },
	{ "first axis", 3, { 4, 5, 6 }, 0x1 },
	{ "two axes", 4, { 2, 3, 4, 5 }, 0x6 },
	{ "everything", 3, { 3, 7, 2 }, 0x7 },
	{ "an axis of 1 only: a copy", 3, { 3, 1, 2 }, 0x2 },
	{ "rank 5", 5, { 2, 2, 3, 2, 3 }, 0x15 },
	{ "NCHW16C over H and W", 4, { 2, 18, 3, 4 }, 0xc, NPU_FORMAT_NCHW16C },
};

/* What a reduction starts from, adds each element with, and ends with. */
static double reduce_start(unsigned int kind)
{
	return kind == NPU_REDUCE_MAX ? -INFINITY : kind == NPU_REDUCE_MIN ? INFINITY :
	       kind == NPU_REDUCE_PROD ? 1 : 0;
}

static double reduce_step(unsigned int kind, double w, double v)
{
	switch (kind) {
	case NPU_REDUCE_MAX:
		return fmax(w, v);
	case NPU_REDUCE_MIN:
		return fmin(w, v);
	case NPU_REDUCE_L1:
		return w + fabs(v);
	case NPU_REDUCE_L2:
		return w + v * v;
	case NPU_REDUCE_PROD:
		return w * v;
	}
	return w + v;
}

static double reduce_end(unsigned int kind, double w, uint64_t n)
{
	return kind == NPU_REDUCE_MEAN ? w / n : kind == NPU_REDUCE_L2 ? sqrt(w) : w;
}

/* The reductions to a value; ARGMAX and ARGMIN, to a position, have their own. */
TEST_F(oplib, reduce)
{
	unsigned int i, kind, d;

	for (i = 0; i < ARRAY_SIZE(reduce_cases); i++)
	for (kind = 0; kind <= NPU_REDUCE_PROD; kind++) {
		const struct reduce_case *k = &reduce_cases[i];
		int64_t yd[5], idx[5], at[5];
		struct tt *x, *y;
		struct desc o;
		double *want;
		uint64_t e, n = 0;

		snprintf(self->step_buf, sizeof(self->step_buf), "%s, kind %u",
			 k->what, kind);
		self->step = self->step_buf;
		arena_reset(self);
		for (d = 0; d < k->rank; d++)
			yd[d] = (k->axes >> d) & 1 ? 1 : k->dims[d];
		x = tt_alloc(self, 0, k->fmt, k->rank, k->dims, NULL);
		y = tt_alloc(self, 0, k->fmt, k->rank, yd, NULL);
		tt_fill(self, x, -3, 3);
		desc_init(&o, NPU_OPERATOR_REDUCE, &x, 1, y);
		D(&o)->attrs.reduce.kind = htole32(kind);
		D(&o)->attrs.reduce.axes = htole32(k->axes);
		want = want_alloc(y);
		for (e = 0; e < y->n; e++)
			want[e] = reduce_start(kind);
		for (e = 0; e < x->n; e++) {
			double *w;

			unravel(e, k->dims, k->rank, idx);
			for (d = 0; d < k->rank; d++)
				at[d] = (k->axes >> d) & 1 ? 0 : idx[d];
			w = &want[ravel(at, yd, k->rank)];
			*w = reduce_step(kind, *w, x->v[e]);
		}
		n = x->n / y->n;
		for (e = 0; e < y->n; e++)
			want[e] = reduce_end(kind, want[e], n);
		RUN_OK(&o);
		EXPECT_CLOSE(y, want, 1e-5, 1e-5);
		free(want);
	}
}

/* The new kinds in bf16 and f16: norms of signs that cancel, products. */
TEST_F(oplib, reduce_norms_and_product_half)
{
	static const unsigned int kinds[] = { NPU_REDUCE_L1, NPU_REDUCE_L2, NPU_REDUCE_PROD };
	static const unsigned int dtypes[] = { NPU_DTYPE_BF16, NPU_DTYPE_F16 };
	static const int64_t xd[2] = { 3, 4 }, yd[2] = { 3, 1 };
	static const double v[12] = { -1, 2, -2, 0.5, 3, -3, 1, 1, 0, 4, -1, 2 };
	unsigned int i, j;
	uint64_t e;

	for (i = 0; i < ARRAY_SIZE(kinds); i++)
	for (j = 0; j < ARRAY_SIZE(dtypes); j++) {
		struct tt *x, *y;
		struct desc o;
		double want[3];

		arena_reset(self);
		snprintf(self->step_buf, sizeof(self->step_buf), "kind %u, dtype %u",
			 kinds[i], dtypes[j]);
		self->step = self->step_buf;
		x = T(self, dtypes[j], 2, xd);
		y = T(self, dtypes[j], 2, yd);
		memcpy(x->v, v, sizeof(v));
		tt_put(self, x);
		for (e = 0; e < 3; e++)
			want[e] = reduce_start(kinds[i]);
		for (e = 0; e < 12; e++)
			want[e / 4] = reduce_step(kinds[i], want[e / 4], v[e]);
		for (e = 0; e < 3; e++)
			want[e] = reduce_end(kinds[i], want[e], 4);
		desc_init(&o, NPU_OPERATOR_REDUCE, &x, 1, y);
		D(&o)->attrs.reduce.kind = htole32(kinds[i]);
		D(&o)->attrs.reduce.axes = htole32(0x2);
		RUN_OK(&o);
		EXPECT_OUTPUT(y, want);
	}
}

/* Moving elements */

TEST_F(oplib, concat)
{
	static const struct {
		const char *what;
		unsigned int rank, axis, n;
		int64_t dims[4];
		int64_t sizes[4];	/* each input's size on the axis */
		unsigned int fmt;
	} cases[] = {
		{ "axis 0", 3, 0, 3, { 0, 3, 4 }, { 2, 1, 3 } },
		{ "middle axis", 3, 1, 2, { 2, 0, 5 }, { 3, 4 } },
		{ "last axis, one input empty", 3, 2, 3, { 2, 3, 0 }, { 3, 0, 5 } },
		{ "one input", 2, 1, 1, { 4, 0 }, { 6 } },
		{ "NCHW16C on channels", 4, 1, 2, { 1, 0, 2, 3 }, { 16, 5 }, NPU_FORMAT_NCHW16C },
	};
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		int64_t yd[4], idx[4], at[4], base;
		struct tt *in[4], *y;
		struct desc o;
		double *want;
		uint64_t e;

		arena_reset(self);
		self->step = cases[i].what;
		memcpy(yd, cases[i].dims, sizeof(yd));
		yd[cases[i].axis] = 0;
		for (j = 0; j < cases[i].n; j++) {
			int64_t xd[4];

			memcpy(xd, cases[i].dims, sizeof(xd));
			xd[cases[i].axis] = cases[i].sizes[j];
			yd[cases[i].axis] += cases[i].sizes[j];
			in[j] = tt_alloc(self, 0, cases[i].fmt, cases[i].rank, xd,
					 NULL);
			tt_fill(self, in[j], -1, 1);
		}
		y = tt_alloc(self, 0, cases[i].fmt, cases[i].rank, yd, NULL);
		desc_init(&o, NPU_OPERATOR_CONCAT, in, cases[i].n, y);
		D(&o)->attrs.concat.axis = htole32(cases[i].axis);
		want = want_alloc(y);
		for (e = 0; e < y->n; e++) {
			unravel(e, yd, cases[i].rank, idx);
			memcpy(at, idx, sizeof(at));
			for (j = 0, base = 0;
			     idx[cases[i].axis] >= base + cases[i].sizes[j]; j++)
				base += cases[i].sizes[j];
			at[cases[i].axis] -= base;
			want[e] = in[j]->v[ravel(at, in[j]->dims, cases[i].rank)];
		}
		RUN_OK(&o);
		EXPECT_EXACT(y, want);
		free(want);
	}
}

TEST_F(oplib, transpose)
{
	static const struct {
		const char *what;
		unsigned int rank;
		int64_t dims[6];
		uint32_t perm[6];
		unsigned int fx, fy;
	} cases[] = {
		{ "2-D", 2, { 5, 7 }, { 1, 0 } },
		{ "rank 3 rotate", 3, { 2, 3, 4 }, { 2, 0, 1 } },
		{ "NCHW to NHWC", 4, { 2, 5, 3, 4 }, { 0, 2, 3, 1 } },
		{ "rank 6 reversed", 6, { 2, 1, 3, 2, 2, 3 }, { 5, 4, 3, 2, 1, 0 } },
		{ "identity: a copy", 3, { 3, 3, 3 }, { 0, 1, 2 } },
		{ "to NCHW16C", 4, { 2, 21, 3, 2 }, { 0, 1, 2, 3 }, 0, NPU_FORMAT_NCHW16C },
		{ "from NCHW16C, swapping H and W", 4, { 1, 18, 3, 5 }, { 0, 1, 3, 2 }, NPU_FORMAT_NCHW16C, 0 },
	};
	unsigned int i, d;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned int r = cases[i].rank;
		int64_t yd[6], idx[6], at[6];
		struct tt *x, *y;
		struct desc o;
		double *want;
		uint64_t e;

		arena_reset(self);
		self->step = cases[i].what;
		for (d = 0; d < r; d++)
			yd[d] = cases[i].dims[cases[i].perm[d]];
		x = tt_alloc(self, 0, cases[i].fx, r, cases[i].dims, NULL);
		y = tt_alloc(self, 0, cases[i].fy, r, yd, NULL);
		tt_fill(self, x, -1, 1);
		desc_init(&o, NPU_OPERATOR_TRANSPOSE, &x, 1, y);
		for (d = 0; d < r; d++)
			D(&o)->attrs.transpose.perm[d] = htole32(cases[i].perm[d]);
		want = want_alloc(y);
		for (e = 0; e < y->n; e++) {
			unravel(e, yd, r, idx);
			for (d = 0; d < r; d++)
				at[cases[i].perm[d]] = idx[d];
			want[e] = x->v[ravel(at, cases[i].dims, r)];
		}
		RUN_OK(&o);
		EXPECT_EXACT(y, want);
		free(want);
	}
}

/* Resize, as ONNX's reference defines it, in float like the card. */
struct resize_case {
	const char *what;
	unsigned int rank;
	int64_t x[5], y[5];
	float scales[5];
	unsigned int mode, coord, nearest;
};

static float onnx_coord(const struct resize_case *k, unsigned int d,
			int64_t o)
{
	float s = k->scales[d];

	switch (k->coord) {
	case NPU_RESIZE_ASYMMETRIC:
		return o / s;
	case NPU_RESIZE_ALIGN_CORNERS:
		return k->y[d] == 1 ? 0 :
		       o * (float)(k->x[d] - 1) / (float)(k->y[d] - 1);
	case NPU_RESIZE_PYTORCH_HALF_PIXEL:
		if (k->y[d] == 1)
			return 0;
		break;
	}
	return (o + 0.5f) / s - 0.5f;
}

static int64_t onnx_nearest(const struct resize_case *k, float c, int64_t n)
{
	float f = floorf(c);
	int64_t i;

	switch (k->nearest) {
	case NPU_RESIZE_ROUND_PREFER_FLOOR:
		i = c == f + 0.5f ? f : roundf(c);
		break;
	case NPU_RESIZE_ROUND_PREFER_CEIL:
		i = c == f + 0.5f ? f + 1 : roundf(c);
		break;
	case NPU_RESIZE_FLOOR:
		i = f;
		break;
	default:
		i = ceilf(c);
	}
	return i < 0 ? 0 : i >= n ? n - 1 : i;
}

static const struct resize_case resize_cases[] = {
	{ "nearest x2, asymmetric floor", 4, { 1, 2, 3, 4 }, { 1, 2, 6, 8 }, { 1, 1, 2, 2 }, 0, NPU_RESIZE_ASYMMETRIC, NPU_RESIZE_FLOOR },
	{ "nearest 1.7, half pixel, prefer floor", 3, { 2, 5, 5 }, { 2, 8, 8 }, { 1, 1.7f, 1.7f }, 0, NPU_RESIZE_HALF_PIXEL, NPU_RESIZE_ROUND_PREFER_FLOOR },
	{ "nearest 1.5, prefer ceil", 2, { 4, 6 }, { 6, 9 }, { 1.5f, 1.5f }, 0, NPU_RESIZE_HALF_PIXEL, NPU_RESIZE_ROUND_PREFER_CEIL },
	{ "nearest down 0.6, ceil", 2, { 10, 7 }, { 6, 4 }, { 0.6f, 0.6f }, 0, NPU_RESIZE_ASYMMETRIC, NPU_RESIZE_CEIL },
	{ "nearest align corners", 2, { 3, 4 }, { 7, 9 }, { 2.34f, 2.25f }, 0, NPU_RESIZE_ALIGN_CORNERS, NPU_RESIZE_ROUND_PREFER_FLOOR },
	{ "nearest every axis of rank 5", 5, { 2, 3, 2, 3, 2 }, { 3, 3, 4, 5, 2 }, { 1.5f, 1, 2, 1.7f, 1 }, 0, NPU_RESIZE_HALF_PIXEL, NPU_RESIZE_ROUND_PREFER_CEIL },
	{ "linear half pixel, oneDNN", 4, { 1, 3, 5, 4 }, { 1, 3, 8, 6 }, { 1, 1, 1.6f, 1.5f }, 1, NPU_RESIZE_HALF_PIXEL },
	{ "linear half pixel, a scale not the size ratio", 4, { 1, 2, 5, 5 }, { 1, 2, 8, 8 }, { 1, 1, 1.7f, 1.7f }, 1, NPU_RESIZE_HALF_PIXEL },
	{ "linear asymmetric", 3, { 2, 4, 5 }, { 2, 8, 7 }, { 1, 2, 1.4f }, 1, NPU_RESIZE_ASYMMETRIC },
	{ "linear align corners", 2, { 4, 5 }, { 7, 3 }, { 1.75f, 0.6f }, 1, NPU_RESIZE_ALIGN_CORNERS },
	{ "linear pytorch half pixel, to 1 row", 2, { 4, 5 }, { 1, 9 }, { 0.25f, 1.8f }, 1, NPU_RESIZE_PYTORCH_HALF_PIXEL },
	{ "linear down", 4, { 1, 1, 9, 8 }, { 1, 1, 4, 3 }, { 1, 1, 0.45f, 0.4f }, 1, NPU_RESIZE_HALF_PIXEL },
};

static double resize_ref(const struct resize_case *k, const struct tt *x,
			 const int64_t *idx)
{
	unsigned int r = k->rank, h = r - 2, w = r - 1, d;
	int64_t at[5];
	float ch, cw, wh, ww;
	int64_t h0, h1, w0, w1;
	double v00, v01, v10, v11;

	memcpy(at, idx, sizeof(at));
	if (k->mode == NPU_RESIZE_NEAREST) {
		for (d = 0; d < r; d++)
			at[d] = onnx_nearest(k, onnx_coord(k, d, idx[d]), k->x[d]);
		return x->v[ravel(at, k->x, r)];
	}
	ch = fminf(fmaxf(onnx_coord(k, h, idx[h]), 0), k->x[h] - 1);
	cw = fminf(fmaxf(onnx_coord(k, w, idx[w]), 0), k->x[w] - 1);
	h0 = floorf(ch);
	w0 = floorf(cw);
	h1 = h0 + 1 < k->x[h] ? h0 + 1 : h0;
	w1 = w0 + 1 < k->x[w] ? w0 + 1 : w0;
	wh = ch - h0;
	ww = cw - w0;
	at[h] = h0, at[w] = w0, v00 = x->v[ravel(at, k->x, r)];
	at[h] = h0, at[w] = w1, v01 = x->v[ravel(at, k->x, r)];
	at[h] = h1, at[w] = w0, v10 = x->v[ravel(at, k->x, r)];
	at[h] = h1, at[w] = w1, v11 = x->v[ravel(at, k->x, r)];
	return (v00 * (1 - ww) + v01 * ww) * (1 - wh) +
	       (v10 * (1 - ww) + v11 * ww) * wh;
}

/* @o: case @k's RESIZE of @x into @y; returns what @y must then hold. */
static double *resize_case_desc(struct desc *o, const struct resize_case *k,
				struct tt *x, struct tt *y)
{
	struct npu_attr_resize *a;
	int64_t idx[5];
	double *want;
	unsigned int d;
	uint64_t e;

	desc_init(o, NPU_OPERATOR_RESIZE, &x, 1, y);
	a = &D(o)->attrs.resize;
	a->mode = htole32(k->mode);
	a->coord = htole32(k->coord);
	a->nearest = htole32(k->nearest);
	for (d = 0; d < k->rank; d++)
		a->scales[d] = F(k->scales[d]);
	want = want_alloc(y);
	for (e = 0; e < y->n; e++) {
		unravel(e, k->y, k->rank, idx);
		want[e] = resize_ref(k, x, idx);
	}
	return want;
}

TEST_F(oplib, resize)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(resize_cases); i++) {
		const struct resize_case *k = &resize_cases[i];
		struct tt *x, *y;
		struct desc o;
		double *want;

		arena_reset(self);
		self->step = k->what;
		x = T(self, 0, k->rank, k->x);
		y = T(self, 0, k->rank, k->y);
		tt_fill(self, x, -1, 1);
		want = resize_case_desc(&o, k, x, y);
		RUN_OK(&o);
		EXPECT_CLOSE(y, want, 1e-5, 1e-5);
		free(want);
	}
}

/*
 * Nearest resizing goes a line at a time (a table of source columns, the
 * lines split among threads): every element size, strides that are not
 * row-major, lines wider than the table, and an FPN's upsampling large
 * enough to be split.
 */
TEST_F(oplib, resize_nearest_lines)
{
	static const struct {
		struct resize_case k;
		unsigned int dtype;
		int64_t x_strides[5], y_strides[5];	/* all 0: dense */
	} cases[] = {
		{ { "FPN x2, 1x24x40x40, split among threads", 4, { 1, 24, 40, 40 }, { 1, 24, 80, 80 }, { 1, 1, 2, 2 }, 0, NPU_RESIZE_ASYMMETRIC, NPU_RESIZE_FLOOR } },
		{ { "f16 into a transposed output", 3, { 2, 4, 6 }, { 2, 6, 9 }, { 1, 1.5f, 1.5f }, 0, NPU_RESIZE_HALF_PIXEL, NPU_RESIZE_ROUND_PREFER_FLOOR }, NPU_DTYPE_F16, { 0 }, { 1, 2, 12 } },
		{ { "s8 lines wider than the table", 2, { 2, 40000 }, { 2, 70000 }, { 1, 1.75f }, 0, NPU_RESIZE_HALF_PIXEL, NPU_RESIZE_ROUND_PREFER_CEIL }, NPU_DTYPE_S8 },
		{ { "s64 from a gapped input, down and up", 2, { 3, 5 }, { 5, 3 }, { 1.6667f, 0.6f }, 0, NPU_RESIZE_ALIGN_CORNERS, NPU_RESIZE_CEIL }, NPU_DTYPE_S64, { 10, 2 } },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct resize_case *k = &cases[i].k;
		struct tt *x, *y;
		struct desc o;
		double *want;

		arena_reset(self);
		self->step = k->what;
		x = tt_alloc(self, cases[i].dtype, NPU_FORMAT_STRIDED, k->rank, k->x,
			     cases[i].x_strides[0] ? cases[i].x_strides : NULL);
		y = tt_alloc(self, cases[i].dtype, NPU_FORMAT_STRIDED, k->rank, k->y,
			     cases[i].y_strides[0] ? cases[i].y_strides : NULL);
		tt_fill(self, x, -100, 100);
		want = resize_case_desc(&o, k, x, y);
		RUN_OK(&o);
		/* a copy of its source: exact in every type */
		EXPECT_EXACT(y, want);
		free(want);
	}
}

TEST_F(oplib, pad)
{
	static const struct {
		const char *what;
		unsigned int rank, mode;
		int64_t dims[4];
		int32_t begin[4], end[4];
		float value;
		unsigned int dtype;
	} cases[] = {
		{ "constant", 2, NPU_PAD_CONSTANT, { 3, 4 }, { 1, 2 }, { 2, 0 }, 7.5f },
		{ "reflect", 2, NPU_PAD_REFLECT, { 4, 5 }, { 3, 1 }, { 2, 4 } },
		{ "edge", 3, NPU_PAD_EDGE, { 2, 3, 4 }, { 0, 2, 3 }, { 1, 0, 5 } },
		{ "crop and pad", 3, NPU_PAD_REFLECT, { 3, 6, 5 }, { -1, 2, -2 }, { 1, -3, 3 } },
		{ "crop only", 4, NPU_PAD_CONSTANT, { 3, 4, 5, 6 }, { -1, 0, -2, -1 }, { 0, -3, -1, -2 } },
		{ "constant from nothing", 2, NPU_PAD_CONSTANT, { 0, 3 }, { 2, 1 }, { 1, 0 }, -2.0f },
		{ "s8 constant, saturated fill", 2, NPU_PAD_CONSTANT, { 2, 3 }, { 1, 1 }, { 1, 1 }, 300.0f, NPU_DTYPE_S8 },
		{ "bf16 edge", 2, NPU_PAD_EDGE, { 2, 2 }, { 3, 3 }, { 3, 3 }, 0, NPU_DTYPE_BF16 },
	};
	unsigned int i, d;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned int r = cases[i].rank;
		int64_t yd[4], idx[4], at[4];
		struct npu_attr_pad *a;
		struct tt *x, *y;
		struct desc o;
		double *want;
		uint64_t e;

		arena_reset(self);
		self->step = cases[i].what;
		for (d = 0; d < r; d++)
			yd[d] = cases[i].dims[d] + cases[i].begin[d] + cases[i].end[d];
		x = T(self, cases[i].dtype, r, cases[i].dims);
		y = T(self, cases[i].dtype, r, yd);
		tt_fill(self, x, -100, 100);
		desc_init(&o, NPU_OPERATOR_PAD, &x, 1, y);
		a = &D(&o)->attrs.pad;
		a->mode = htole32(cases[i].mode);
		a->value = F(cases[i].value);
		for (d = 0; d < r; d++) {
			a->begin[d] = htole32((uint32_t)cases[i].begin[d]);
			a->end[d] = htole32((uint32_t)cases[i].end[d]);
		}
		want = want_alloc(y);
		for (e = 0; e < y->n; e++) {
			bool fill = false;

			unravel(e, yd, r, idx);
			for (d = 0; d < r; d++) {
				int64_t n = cases[i].dims[d];
				int64_t j = idx[d] - cases[i].begin[d];

				if (j < 0 || j >= n) {
					if (cases[i].mode == NPU_PAD_CONSTANT)
						fill = true;
					else if (cases[i].mode == NPU_PAD_EDGE)
						j = j < 0 ? 0 : n - 1;
					else
						j = j < 0 ? -j : 2 * (n - 1) - j;
				}
				at[d] = j;
			}
			want[e] = fill ? cases[i].value : x->v[ravel(at, cases[i].dims, r)];
			/* the fill, stored in y's type */
			if (fill && cases[i].dtype == NPU_DTYPE_S8)
				want[e] = 127;
		}
		RUN_OK(&o);
		EXPECT_EXACT(y, want);
		free(want);
	}
}

TEST_F(oplib, slice)
{
	static const struct {
		const char *what;
		unsigned int rank;
		int64_t dims[4], out[4];
		int64_t starts[4], steps[4];
	} cases[] = {
		{ "contiguous", 2, { 6, 7 }, { 3, 4 }, { 1, 2 }, { 1, 1 } },
		{ "steps of 2 and 3", 3, { 5, 9, 4 }, { 3, 3, 2 }, { 0, 1, 1 }, { 2, 3, 2 } },
		{ "backwards", 2, { 6, 7 }, { 6, 3 }, { 5, 6 }, { -1, -3 } },
		{ "forwards and backwards", 4, { 3, 4, 5, 2 }, { 2, 2, 3, 2 }, { 0, 3, 4, 0 }, { 2, -2, -2, 1 } },
		{ "one element, a huge step", 2, { 4, 4 }, { 1, 4 }, { 2, 0 }, { INT64_MAX, 1 } },
		{ "one element, a huge step back", 2, { 4, 4 }, { 4, 1 }, { 0, 3 }, { 1, INT64_MIN } },
	};
	unsigned int i, d;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned int r = cases[i].rank;
		int64_t idx[4], at[4];
		struct tt *x, *y;
		struct desc o;
		double *want;
		uint64_t e;

		arena_reset(self);
		self->step = cases[i].what;
		x = T(self, 0, r, cases[i].dims);
		y = T(self, 0, r, cases[i].out);
		tt_fill(self, x, -1, 1);
		desc_init(&o, NPU_OPERATOR_SLICE, &x, 1, y);
		for (d = 0; d < r; d++) {
			D(&o)->attrs.slice.starts[d] = htole64(cases[i].starts[d]);
			D(&o)->attrs.slice.steps[d] = htole64(cases[i].steps[d]);
		}
		want = want_alloc(y);
		for (e = 0; e < y->n; e++) {
			unravel(e, cases[i].out, r, idx);
			for (d = 0; d < r; d++)
				at[d] = cases[i].starts[d] +
					idx[d] * cases[i].steps[d];
			want[e] = x->v[ravel(at, cases[i].dims, r)];
		}
		RUN_OK(&o);
		EXPECT_EXACT(y, want);
		free(want);
	}
}

/* y's element idx: x's, the gathered axis indexed by ind at idx's axes. */
static double gather_ref(const struct tt *x, const struct tt *ind,
			 const struct tt *y, unsigned int axis, const int64_t *idx)
{
	int64_t from[NPU_TENSOR_MAX_DIMS], i;
	unsigned int d;

	for (d = 0; d < axis; d++)
		from[d] = idx[d];
	i = (int64_t)ind->v[ravel(idx + axis, ind->dims, ind->ndims)];
	from[axis] = i < 0 ? i + x->dims[axis] : i;
	for (d = axis + 1; d < x->ndims; d++)
		from[d] = idx[d - 1 + ind->ndims];
	(void)y;
	return x->v[ravel(from, x->dims, x->ndims)];
}

/* Rows, columns and middle axes, by indices of any rank, negative ones too. */
TEST_F(oplib, gather)
{
	static const struct {
		const char *what;
		unsigned int dtype, rank, axis, irank;
		int64_t dims[4], idims[2];
		int32_t ind[6];
	} cases[] = {
		{ "rows", NPU_DTYPE_F32, 2, 0, 1, { 5, 3 }, { 4 }, { 4, 0, -1, 2 } },
		{ "columns, one repeated", NPU_DTYPE_F32, 2, 1, 1, { 3, 6 }, { 3 }, { 5, 5, -6 } },
		{ "a middle axis by a matrix", NPU_DTYPE_F32, 3, 1, 2, { 2, 4, 3 }, { 2, 3 },
		  { 3, -4, 0, 1, -1, 2 } },
		{ "one element by a scalar", NPU_DTYPE_F32, 1, 0, 0, { 7 }, { 0 }, { -2 } },
		{ "the last axis by a scalar", NPU_DTYPE_F32, 3, 2, 0, { 2, 3, 4 }, { 0 }, { 3 } },
		{ "bf16", NPU_DTYPE_BF16, 2, 0, 1, { 4, 2 }, { 3 }, { 1, 1, -4 } },
		{ "f16", NPU_DTYPE_F16, 2, 1, 1, { 2, 5 }, { 2 }, { 4, -5 } },
		{ "s8", NPU_DTYPE_S8, 1, 0, 1, { 6 }, { 2 }, { -6, 5 } },
		{ "s32", NPU_DTYPE_S32, 2, 0, 2, { 3, 2 }, { 2, 2 }, { 2, 0, -3, 1 } },
	};
	unsigned int i, d;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned int r = cases[i].rank, ir = cases[i].irank;
		unsigned int axis = cases[i].axis, yr = r - 1 + ir;
		int64_t yd[NPU_TENSOR_MAX_DIMS], idx[NPU_TENSOR_MAX_DIMS];
		struct tt *in[2], *y;
		struct desc o;
		double *want;
		uint64_t e;

		arena_reset(self);
		self->step = cases[i].what;
		for (d = 0; d < axis; d++)
			yd[d] = cases[i].dims[d];
		for (d = 0; d < ir; d++)
			yd[axis + d] = cases[i].idims[d];
		for (d = axis + 1; d < r; d++)
			yd[d - 1 + ir] = cases[i].dims[d];
		in[0] = T(self, cases[i].dtype, r, cases[i].dims);
		in[1] = T(self, NPU_DTYPE_S32, ir, cases[i].idims);
		y = T(self, cases[i].dtype, yr, yd);
		tt_fill(self, in[0], -100, 100);
		for (e = 0; e < in[1]->n; e++)
			in[1]->v[e] = cases[i].ind[e];
		tt_put(self, in[1]);
		desc_init(&o, NPU_OPERATOR_GATHER, in, 2, y);
		D(&o)->attrs.gather.axis = htole32(axis);
		want = want_alloc(y);
		for (e = 0; e < y->n; e++) {
			unravel(e, yd, yr, idx);
			want[e] = gather_ref(in[0], in[1], y, axis, idx);
		}
		RUN_OK(&o);
		EXPECT_EXACT(y, want);
		free(want);
	}
}

/* x and y strided with gaps, the indices too: only y's elements change. */
TEST_F(oplib, gather_strided)
{
	static const int64_t xd[3] = { 3, 4, 2 }, xs[3] = { 40, 8, 3 };
	static const int64_t id[1] = { 3 }, is[1] = { 5 };
	static const int64_t yd[3] = { 3, 3, 2 }, ys[3] = { 1, 9, 4 };
	static const int32_t ind[3] = { -1, 0, 2 };
	int64_t idx[NPU_TENSOR_MAX_DIMS];
	struct tt *in[2], *y;
	struct desc o;
	double *want;
	uint64_t e;

	in[0] = tt_alloc(self, NPU_DTYPE_F32, NPU_FORMAT_STRIDED, 3, xd, xs);
	in[1] = tt_alloc(self, NPU_DTYPE_S32, NPU_FORMAT_STRIDED, 1, id, is);
	y = tt_alloc(self, NPU_DTYPE_F32, NPU_FORMAT_STRIDED, 3, yd, ys);
	tt_fill(self, in[0], -1, 1);
	for (e = 0; e < 3; e++)
		in[1]->v[e] = ind[e];
	tt_put(self, in[1]);
	desc_init(&o, NPU_OPERATOR_GATHER, in, 2, y);
	D(&o)->attrs.gather.axis = htole32(1);
	want = want_alloc(y);
	for (e = 0; e < y->n; e++) {
		unravel(e, yd, 3, idx);
		want[e] = gather_ref(in[0], in[1], y, 1, idx);
	}
	RUN_OK(&o);
	EXPECT_EXACT(y, want);
	free(want);
}

/*
 * An index outside [-n, n) fails the operator when it runs, after the
 * descriptor's checks passed, and y is not written: not even the elements
 * that valid indices before it name.
 */
TEST_F(oplib, gather_index_out_of_range)
{
	static const int32_t bad[] = { 5, -6, INT32_MAX, INT32_MIN };
	static const int64_t xd[2] = { 5, 3 }, id[1] = { 4 }, yd[2] = { 4, 3 };
	struct tt *in[2], *y;
	struct desc o;
	unsigned int i;
	uint64_t e;

	in[0] = T(self, NPU_DTYPE_F32, 2, xd);
	in[1] = T(self, NPU_DTYPE_S32, 1, id);
	y = T(self, NPU_DTYPE_F32, 2, yd);
	tt_fill(self, in[0], -1, 1);
	tt_fill(self, y, 5, 6);
	desc_init(&o, NPU_OPERATOR_GATHER, in, 2, y);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		self->step = "an index out of range";
		for (e = 0; e < 3; e++)
			in[1]->v[e] = e;
		in[1]->v[3] = bad[i];
		tt_put(self, in[1]);
		ASSERT_EQ(NPU_ERR_NONE, oplib_check(D(&o), o.size, ARENA_SIZE));
		ASSERT_EQ(NPU_ERR_OP_PARAM, run(self, &o)) TH_LOG("index %d", bad[i]);
		ASSERT_EQ(0, self->stray) TH_LOG("index %d: y written", bad[i]);
		EXPECT_EXACT(y, y->v);
	}
	/* and in range at both ends, it runs */
	in[1]->v[3] = -5;
	in[1]->v[0] = 4;
	tt_put(self, in[1]);
	RUN_OK(&o);
}

static bool dtype_is_int(unsigned int dtype)
{
	return dtype != NPU_DTYPE_F32 && dtype != NPU_DTYPE_F16 &&
	       dtype != NPU_DTYPE_BF16 && dtype != NPU_DTYPE_F64;
}

/* An integer type's range, in int64. */
static void int_range(unsigned int dtype, int64_t *lo, int64_t *hi)
{
	switch (dtype) {
	case NPU_DTYPE_S64: *lo = INT64_MIN; *hi = INT64_MAX; break;
	case NPU_DTYPE_S32: *lo = INT32_MIN; *hi = INT32_MAX; break;
	case NPU_DTYPE_S16: *lo = INT16_MIN; *hi = INT16_MAX; break;
	case NPU_DTYPE_S8: *lo = INT8_MIN; *hi = INT8_MAX; break;
	case NPU_DTYPE_U8: *lo = 0; *hi = UINT8_MAX; break;
	/* what int64 holds of it: test_u64's tests go past */
	case NPU_DTYPE_U64: *lo = 0; *hi = INT64_MAX; break;
	default: *lo = 0; *hi = 1; break;
	}
}

/* An integer into an integer type's bytes, saturated exactly. */
static void store_int(uint8_t *p, unsigned int dtype, int64_t v)
{
	int64_t lo, hi;

	int_range(dtype, &lo, &hi);
	v = v < lo ? lo : v > hi ? hi : v;
	/* little endian: the low bytes */
	memcpy(p, &v, dtype_size(dtype));
}

/*
 * What CAST makes of v: floats into integers toward zero, saturated (NaN
 * 0), integers exactly, anything into BOOL whether it is not 0.
 */
static void cast_ref(uint8_t *cell, unsigned int from, unsigned int to, double v)
{
	if (to == NPU_DTYPE_BOOL)
		store_int(cell, to, v != 0);
	else if (!dtype_is_int(to))
		store(cell, to, v);
	else if (isnan(v))
		store_int(cell, to, 0);
	else if (to == NPU_DTYPE_U64 && v > 0)
		store(cell, to, trunc(v));
	else if (!dtype_is_int(from) && fabs(v) >= 0x1p63)
		store_int(cell, to, v < 0 ? INT64_MIN : INT64_MAX);
	else
		store_int(cell, to, (int64_t)v);
}

/* New kinds: triangles and the normalizations the single-operator API adds */

static double triangle_ref(const struct tt *x, uint64_t e, bool upper, int64_t diagonal)
{
	int64_t idx[NPU_TENSOR_MAX_DIMS], i, j;

	unravel(e, x->dims, x->ndims, idx);
	i = idx[x->ndims - 2];
	j = idx[x->ndims - 1];
	return (upper ? j - i >= diagonal : j - i <= diagonal) ? x->v[e] : 0;
}

/*
 * Both triangles from diagonals inside, at and past the matrix either way,
 * INT64_MIN and INT64_MAX too; batches, gaps, and every data type moved.
 */
TEST_F(oplib, triangle)
{
	static const struct {
		const char *what;
		unsigned int dtype, rank;
		int64_t dims[4], strides[4];
	} shapes[] = {
		{ "4x5", NPU_DTYPE_F32, 2, { 4, 5 } },
		{ "batched 2x3x6x4 with gaps", NPU_DTYPE_F32, 4, { 2, 3, 6, 4 },
		  { 200, 60, 9, 1 } },
		{ "tall bf16", NPU_DTYPE_BF16, 2, { 7, 2 } },
		{ "f16", NPU_DTYPE_F16, 3, { 2, 3, 3 } },
		{ "s32", NPU_DTYPE_S32, 2, { 5, 5 } },
		{ "s8, columns first", NPU_DTYPE_S8, 2, { 3, 4 }, { 1, 3 } },
		{ "u8", NPU_DTYPE_U8, 2, { 1, 6 } },
		{ "s64", NPU_DTYPE_S64, 2, { 4, 3 } },
		{ "s16", NPU_DTYPE_S16, 3, { 2, 2, 5 } },
		{ "bool", NPU_DTYPE_BOOL, 2, { 5, 4 } },
	};
	static const int64_t diagonals[] = { 0, 1, -1, 2, -3, 5, -7, 1LL << 40,
					     -(1LL << 40), INT64_MAX, INT64_MIN };
	unsigned int s, k, upper;

	for (s = 0; s < ARRAY_SIZE(shapes); s++)
	for (k = 0; k < ARRAY_SIZE(diagonals); k++)
	for (upper = 0; upper < 2; upper++) {
		struct tt *x, *y;
		struct desc o;
		double *want;
		uint64_t e;

		arena_reset(self);
		snprintf(self->step_buf, sizeof(self->step_buf), "%s, %s diagonal %lld",
			 shapes[s].what, upper ? "upper" : "lower", (long long)diagonals[k]);
		self->step = self->step_buf;
		x = tt_alloc(self, shapes[s].dtype, 0, shapes[s].rank, shapes[s].dims,
			     shapes[s].strides[0] ? shapes[s].strides : NULL);
		y = T(self, shapes[s].dtype, shapes[s].rank, shapes[s].dims);
		tt_fill(self, x, 1, 100);
		desc_init(&o, NPU_OPERATOR_TRIANGLE, &x, 1, y);
		D(&o)->attrs.triangle.upper = htole32(upper);
		D(&o)->attrs.triangle.diagonal = htole64((uint64_t)diagonals[k]);
		want = want_alloc(y);
		for (e = 0; e < y->n; e++)
			want[e] = triangle_ref(x, e, upper, diagonals[k]);
		RUN_OK(&o);
		EXPECT_EXACT(y, want);
		free(want);
	}
}

/* x and y one tensor: each element is read before it is written. */
TEST_F(oplib, triangle_in_place)
{
	static const int64_t dims[2] = { 6, 6 };
	struct tt *x = T(self, NPU_DTYPE_F32, 2, dims);
	double want[36];
	struct desc o;
	uint64_t e;

	tt_fill(self, x, 1, 2);
	desc_init(&o, NPU_OPERATOR_TRIANGLE, &x, 1, x);
	D(&o)->attrs.triangle.upper = htole32(1);
	D(&o)->attrs.triangle.diagonal = htole64(-1);
	for (e = 0; e < 36; e++)
		want[e] = triangle_ref(x, e, true, -1);
	RUN_OK(&o);
	EXPECT_EXACT(x, want);
}

struct rms_case {
	const char *what;
	unsigned int rank;
	int64_t dims[4];
	unsigned int axis;
	unsigned int dtype, gamma_dtype;
	float epsilon;
	unsigned int act;
	bool gaps;
};

static const struct rms_case rms_cases[] = {
	{ "over the last axis", 3, { 2, 3, 8 }, 2, NPU_DTYPE_F32, NPU_DTYPE_F32, 1e-6f },
	{ "over the last two axes", 3, { 2, 3, 8 }, 1, NPU_DTYPE_F32, NPU_DTYPE_F32, 1e-5f },
	{ "over everything", 2, { 5, 7 }, 0, NPU_DTYPE_F32, NPU_DTYPE_F32, 0.5f },
	{ "rank 1, epsilon 0", 1, { 9 }, 0, NPU_DTYPE_F32, NPU_DTYPE_F32, 0 },
	{ "bf16 x, f32 gamma, gapped", 3, { 3, 2, 16 }, 2, NPU_DTYPE_BF16, NPU_DTYPE_F32, 1e-6f,
	  NPU_UNARY_NONE, true },
	{ "f16 x and gamma, silu", 2, { 4, 24 }, 1, NPU_DTYPE_F16, NPU_DTYPE_F16, 1e-6f,
	  NPU_UNARY_SILU },
	{ "relu, gapped, two axes", 4, { 2, 2, 3, 5 }, 2, NPU_DTYPE_F32, NPU_DTYPE_BF16, 1e-6f,
	  NPU_UNARY_RELU, true },
};

TEST_F(oplib, rmsnorm)
{
	unsigned int i, d;

	for (i = 0; i < ARRAY_SIZE(rms_cases); i++) {
		const struct rms_case *k = &rms_cases[i];
		int64_t strides[4], s = 1;
		uint64_t e, inner = 1, row;
		struct tt *in[2], *y;
		struct desc o;
		double *want;

		arena_reset(self);
		self->step = k->what;
		for (d = k->rank; d-- > 0;) {
			strides[d] = s;
			s *= k->dims[d] + (k->gaps && d == k->rank - 1 ? 3 : 0);
		}
		for (d = k->axis; d < k->rank; d++)
			inner *= k->dims[d];
		in[0] = tt_alloc(self, k->dtype, 0, k->rank, k->dims, k->gaps ? strides : NULL);
		in[1] = T(self, k->gamma_dtype, k->rank - k->axis, &k->dims[k->axis]);
		y = T(self, k->dtype, k->rank, k->dims);
		tt_fill(self, in[0], -3, 3);
		tt_fill(self, in[1], -2, 2);
		desc_init(&o, NPU_OPERATOR_RMSNORM, in, 2, y);
		D(&o)->attrs.norm.axis = htole32(k->axis);
		D(&o)->attrs.norm.epsilon = F(k->epsilon);
		D(&o)->attrs.norm.act = act(k->act, 0, 0);
		want = want_alloc(y);
		for (row = 0; row < y->n / inner; row++) {
			double sum = 0, r;

			for (e = 0; e < inner; e++)
				sum += in[0]->v[row * inner + e] * in[0]->v[row * inner + e];
			r = 1 / sqrt(sum / inner + k->epsilon);
			for (e = 0; e < inner; e++)
				want[row * inner + e] = act_ref(k->act, 0, 0, in[0]->v[row * inner + e] *
								r * in[1]->v[e]);
		}
		RUN_OK(&o);
		EXPECT_OUTPUT(y, want);
		free(want);
	}
}

struct gn_case {
	const char *what;
	unsigned int rank;
	int64_t dims[5];
	uint32_t groups;
	unsigned int dtype, fmt;
	float epsilon;
	unsigned int act;
};

static const struct gn_case gn_cases[] = {
	{ "one group", 4, { 2, 6, 3, 4 }, 1, NPU_DTYPE_F32, 0, 1e-5f },
	{ "a group per channel", 4, { 2, 6, 3, 4 }, 6, NPU_DTYPE_F32, 0, 1e-5f },
	{ "three groups", 4, { 2, 6, 3, 4 }, 3, NPU_DTYPE_F32, 0, 1e-3f },
	{ "N, C only", 2, { 3, 8 }, 2, NPU_DTYPE_F32, 0, 1e-5f },
	{ "rank 3, silu", 3, { 2, 4, 10 }, 2, NPU_DTYPE_F32, 0, 1e-5f, NPU_UNARY_SILU },
	{ "rank 5", 5, { 1, 4, 2, 3, 2 }, 4, NPU_DTYPE_F32, 0, 1e-5f },
	{ "bf16", 4, { 1, 8, 4, 4 }, 4, NPU_DTYPE_BF16, 0, 1e-5f },
	{ "f16, relu", 4, { 2, 4, 3, 3 }, 2, NPU_DTYPE_F16, 0, 1e-5f, NPU_UNARY_RELU },
	{ "NCHW16C", 4, { 2, 20, 3, 3 }, 5, NPU_DTYPE_F32, NPU_FORMAT_NCHW16C, 1e-5f },
};

TEST_F(oplib, groupnorm)
{
	unsigned int i, d;

	for (i = 0; i < ARRAY_SIZE(gn_cases); i++) {
		const struct gn_case *k = &gn_cases[i];
		uint64_t spatial = 1, per, n, g, e;
		struct tt *in[3], *y;
		struct desc o;
		double *want;

		arena_reset(self);
		self->step = k->what;
		for (d = 2; d < k->rank; d++)
			spatial *= k->dims[d];
		/* a group's elements are consecutive in row-major NC... order */
		per = k->dims[1] / k->groups * spatial;
		in[0] = tt_alloc(self, k->dtype, k->fmt, k->rank, k->dims, NULL);
		in[1] = T(self, NPU_DTYPE_F32, 1, &k->dims[1]);
		in[2] = T(self, k->dtype, 1, &k->dims[1]);
		y = tt_alloc(self, k->dtype, k->fmt, k->rank, k->dims, NULL);
		/* an offset, so that a variance about 0 would be wrong */
		tt_fill(self, in[0], 1, 5);
		tt_fill(self, in[1], -2, 2);
		tt_fill(self, in[2], -1, 1);
		desc_init(&o, NPU_OPERATOR_GROUPNORM, in, 3, y);
		D(&o)->attrs.groupnorm.groups = htole32(k->groups);
		D(&o)->attrs.groupnorm.epsilon = F(k->epsilon);
		D(&o)->attrs.groupnorm.act = act(k->act, 0, 0);
		want = want_alloc(y);
		for (n = 0; n < (uint64_t)k->dims[0]; n++)
		for (g = 0; g < k->groups; g++) {
			uint64_t at = (n * k->groups + g) * per;
			double mean = 0, var = 0;

			for (e = 0; e < per; e++)
				mean += in[0]->v[at + e] / per;
			for (e = 0; e < per; e++)
				var += (in[0]->v[at + e] - mean) * (in[0]->v[at + e] - mean) / per;
			for (e = 0; e < per; e++) {
				uint64_t c = (at + e) / spatial % k->dims[1];
				double z = (in[0]->v[at + e] - mean) / sqrt(var + k->epsilon);

				want[at + e] = act_ref(k->act, 0, 0, z * in[1]->v[c] + in[2]->v[c]);
			}
		}
		RUN_OK(&o);
		EXPECT_OUTPUT(y, want);
		free(want);
	}
}

/* Every conversion, toward zero into integers and saturating. */
TEST_F(oplib, cast)
{
	static const int64_t dims[2] = { 5, 11 };
	uint32_t dtypes = oplib_dtypes(self->lib);
	unsigned int from, to;

	ASSERT_EQ(1u << NPU_DTYPE_F32, dtypes & (1u << NPU_DTYPE_F32));
	ASSERT_TRUE(dtypes & (1u << NPU_DTYPE_BF16));
	for (from = 0; from <= NPU_DTYPE_LAST; from++)
	for (to = 0; to <= NPU_DTYPE_LAST; to++) {
		struct tt *x, *y;
		struct desc o;
		double want[55];
		uint8_t cell[8];
		uint64_t e;

		snprintf(self->step_buf, sizeof(self->step_buf),
			 "dtype %u to %u", from, to);
		self->step = self->step_buf;
		arena_reset(self);
		x = T(self, from, 2, dims);
		y = T(self, to, 2, dims);
		/* past every integer range; halves to see the rounding */
		for (e = 0; e < x->n; e++)
			x->v[e] = e == 0 ? 1e10 : e == 1 ? -1e10 : e == 2 ? 0 :
				  round(rnd_uniform(self, -600, 600)) / 2;
		tt_put(self, x);
		tt_get(self, x, x->v);
		desc_init(&o, NPU_OPERATOR_CAST, &x, 1, y);
		for (e = 0; e < y->n; e++) {
			cast_ref(cell, from, to, x->v[e]);
			want[e] = load(cell, to);
		}
		RUN_OK(&o);
		EXPECT_EXACT(y, want);
	}
}

/* int64 beyond float's and double's precision, exactly through integers. */
TEST_F(oplib, cast_s64_exact)
{
	static const int64_t big[] = {
		INT64_MAX, INT64_MIN, (1LL << 53) + 1, -(1LL << 53) - 3,
		(1LL << 31) + 1, -(1LL << 31) - 1, 40000, -40000, 255, -1,
	};
	static const unsigned int to[] = {
		NPU_DTYPE_S64, NPU_DTYPE_S32, NPU_DTYPE_S16, NPU_DTYPE_S8,
		NPU_DTYPE_U8, NPU_DTYPE_BOOL,
	};
	const int64_t dims[1] = { ARRAY_SIZE(big) };
	unsigned int i, e;

	for (i = 0; i < ARRAY_SIZE(to); i++) {
		struct tt *x, *y;
		struct desc o;

		arena_reset(self);
		x = T(self, NPU_DTYPE_S64, 1, dims);
		y = T(self, to[i], 1, dims);
		memcpy(self->mem + x->addr, big, sizeof(big));
		desc_init(&o, NPU_OPERATOR_CAST, &x, 1, y);
		RUN_OK(&o);
		for (e = 0; e < dims[0]; e++) {
			uint8_t want[8] = { 0 };

			store_int(want, to[i], to[i] == NPU_DTYPE_BOOL ? big[e] != 0 : big[e]);
			EXPECT_EQ(0, memcmp(want, self->mem + y->addr + e * dtype_size(to[i]),
					    dtype_size(to[i])))
				TH_LOG("to %u: element %u", to[i], e);
		}
	}
}

/* NCHW16C in and out of a cast: the layout changes, the values do not. */
TEST_F(oplib, cast_layouts)
{
	static const int64_t dims[4] = { 2, 21, 3, 2 };
	struct tt *x, *y, *z;
	struct desc o;

	x = T(self, NPU_DTYPE_F32, 4, dims);
	y = tt_alloc(self, NPU_DTYPE_BF16, NPU_FORMAT_NCHW16C, 4, dims, NULL);
	z = T(self, NPU_DTYPE_F32, 4, dims);
	tt_fill(self, x, -1, 1);
	desc_init(&o, NPU_OPERATOR_CAST, &x, 1, y);
	RUN_OK(&o);
	desc_init(&o, NPU_OPERATOR_CAST, &y, 1, z);
	RUN_OK(&o);
	/* through bf16 */
	ASSERT_EQ(0, compare(self, z, x->v, 1.0 / 256, 0));
}

/*
 * Values of every type that tell its bytes apart: S64 ones with both
 * halves in use (still exact in a double), BOOL 0 and 1.
 */
static void fill_any(FIXTURE_DATA(oplib) *self, struct tt *t)
{
	uint64_t i;

	for (i = 0; i < t->n; i++) {
		double v = round(rnd_uniform(self, -100, 100));

		if (t->dtype == NPU_DTYPE_S64)
			v = v * 0x1p32 + round(rnd_uniform(self, 0, 1000));
		else if (t->dtype == NPU_DTYPE_U64)
			v = fabs(v) * 0x1p32 + round(rnd_uniform(self, 0, 1000));
		else if (t->dtype == NPU_DTYPE_U8)
			v = fabs(v);
		else if (t->dtype == NPU_DTYPE_BOOL)
			v = v > 0;
		t->v[i] = v;
	}
	tt_put(self, t);
	tt_get(self, t, t->v);
}

enum copy_kind { COPY_UNARY, COPY_TRANSPOSE, COPY_SLICE, COPY_SLICE_BACK,
		 COPY_CONCAT, COPY_PAD, COPY_GATHER, COPY_COUNT };

/*
 * x (2, 3, 4) into y by one of the operators that only move elements,
 * and the index into x that y's element idx comes from (false: PAD's
 * fill).
 */
static bool copy_source(enum copy_kind k, const int64_t *idx, int64_t *at)
{
	switch (k) {
	case COPY_TRANSPOSE:	/* perm (2, 0, 1): y (4, 2, 3) */
		at[0] = idx[1];
		at[1] = idx[2];
		at[2] = idx[0];
		return true;
	case COPY_SLICE:	/* starts (1, 0, 1), steps (1, 2, 2): y (1, 2, 2) */
		at[0] = 1 + idx[0];
		at[1] = 2 * idx[1];
		at[2] = 1 + 2 * idx[2];
		return true;
	case COPY_SLICE_BACK:	/* starts (1, 2, 3), steps (-1, -1, -3): y (2, 3, 2) */
		at[0] = 1 - idx[0];
		at[1] = 2 - idx[1];
		at[2] = 3 - 3 * idx[2];
		return true;
	case COPY_CONCAT:	/* x twice along axis 1: y (2, 6, 4) */
		at[0] = idx[0];
		at[1] = idx[1] % 3;
		at[2] = idx[2];
		return true;
	case COPY_PAD:		/* one in front of axis 2: y (2, 3, 5) */
		at[0] = idx[0];
		at[1] = idx[1];
		at[2] = idx[2] - 1;
		return at[2] >= 0;
	case COPY_GATHER:	/* axis 1 at (2, -3, 1): y (2, 3, 4) */
		at[0] = idx[0];
		at[1] = idx[1] == 0 ? 2 : idx[1] == 1 ? 0 : 1;
		at[2] = idx[2];
		return true;
	default:
		memcpy(at, idx, 3 * sizeof(*at));
		return true;
	}
}

static struct tt *copy_build(FIXTURE_DATA(oplib) *self, enum copy_kind k,
			     unsigned int dtype, struct tt *x, struct desc *o)
{
	static const int64_t ydims[COPY_COUNT][3] = {
		[COPY_UNARY] = { 2, 3, 4 }, [COPY_TRANSPOSE] = { 4, 2, 3 },
		[COPY_SLICE] = { 1, 2, 2 }, [COPY_SLICE_BACK] = { 2, 3, 2 },
		[COPY_CONCAT] = { 2, 6, 4 }, [COPY_PAD] = { 2, 3, 5 },
		[COPY_GATHER] = { 2, 3, 4 },
	};
	static const int64_t starts[2][3] = { { 1, 0, 1 }, { 1, 2, 3 } };
	static const int64_t steps[2][3] = { { 1, 2, 2 }, { -1, -1, -3 } };
	static const int64_t three = 3;
	struct tt *in[2] = { x, x };
	struct tt *y = T(self, dtype, 3, ydims[k]);
	unsigned int d;

	switch (k) {
	case COPY_UNARY:
		desc_init(o, NPU_OPERATOR_UNARY, in, 1, y);
		break;
	case COPY_TRANSPOSE:
		desc_init(o, NPU_OPERATOR_TRANSPOSE, in, 1, y);
		D(o)->attrs.transpose.perm[0] = htole32(2);
		D(o)->attrs.transpose.perm[2] = htole32(1);
		break;
	case COPY_SLICE:
	case COPY_SLICE_BACK:
		desc_init(o, NPU_OPERATOR_SLICE, in, 1, y);
		for (d = 0; d < 3; d++) {
			D(o)->attrs.slice.starts[d] = htole64(starts[k == COPY_SLICE_BACK][d]);
			D(o)->attrs.slice.steps[d] = htole64(steps[k == COPY_SLICE_BACK][d]);
		}
		break;
	case COPY_CONCAT:
		desc_init(o, NPU_OPERATOR_CONCAT, in, 2, y);
		D(o)->attrs.concat.axis = htole32(1);
		break;
	case COPY_PAD:
		desc_init(o, NPU_OPERATOR_PAD, in, 1, y);
		D(o)->attrs.pad.value = F(1);
		D(o)->attrs.pad.begin[2] = htole32(1);
		break;
	default:
		in[1] = T(self, NPU_DTYPE_S32, 1, &three);
		in[1]->v[0] = 2;
		in[1]->v[1] = -3;
		in[1]->v[2] = 1;
		tt_put(self, in[1]);
		desc_init(o, NPU_OPERATOR_GATHER, in, 2, y);
		D(o)->attrs.gather.axis = htole32(1);
		break;
	}
	return y;
}

/* UNARY NONE, TRANSPOSE, SLICE, CONCAT, PAD and GATHER move every type. */
TEST_F(oplib, copies_every_type)
{
	static const int64_t xdims[3] = { 2, 3, 4 };
	unsigned int dtype, k;

	for (dtype = 0; dtype <= NPU_DTYPE_LAST; dtype++)
	for (k = 0; k < COPY_COUNT; k++) {
		int64_t idx[3], at[3];
		struct tt *x, *y;
		struct desc o;
		double *want;
		uint64_t e;

		snprintf(self->step_buf, sizeof(self->step_buf),
			 "dtype %u, copy %u", dtype, k);
		self->step = self->step_buf;
		arena_reset(self);
		x = T(self, dtype, 3, xdims);
		fill_any(self, x);
		y = copy_build(self, k, dtype, x, &o);
		want = want_alloc(y);
		for (e = 0; e < y->n; e++) {
			unravel(e, y->dims, 3, idx);
			want[e] = copy_source(k, idx, at) ? x->v[ravel(at, xdims, 3)] : 1;
		}
		RUN_OK(&o);
		EXPECT_EXACT(y, want);
		free(want);
	}
}

static __le64 F64(double d)
{
	uint64_t bits;

	memcpy(&bits, &d, 8);
	return htole64(bits);
}

static void fill_desc(struct desc *o, struct tt *y, uint32_t mode, double value,
		      double step)
{
	desc_init(o, NPU_OPERATOR_FILL, NULL, 0, y);
	D(o)->attrs.fill.mode = htole32(mode);
	D(o)->attrs.fill.value = F64(value);
	D(o)->attrs.fill.step = F64(step);
}

/* A constant and a range into every type, through a strided y. */
TEST_F(oplib, fill)
{
	static const int64_t dims[2] = { 3, 5 }, strides[2] = { 7, 1 };
	unsigned int dtype, e;

	for (dtype = 0; dtype <= NPU_DTYPE_LAST; dtype++) {
		uint8_t cell[8];
		double want[15];
		struct desc o;
		struct tt *y;

		snprintf(self->step_buf, sizeof(self->step_buf), "dtype %u", dtype);
		self->step = self->step_buf;
		arena_reset(self);
		y = tt_alloc(self, dtype, NPU_FORMAT_STRIDED, 2, dims, strides);
		fill_desc(&o, y, NPU_FILL_CONSTANT, -3.75, 0);
		for (e = 0; e < 15; e++) {
			cast_ref(cell, NPU_DTYPE_F32, dtype, -3.75);
			want[e] = load(cell, dtype);
		}
		RUN_OK(&o);
		EXPECT_EXACT(y, want);
		/* a range through 0, toward zero into integers */
		fill_desc(&o, y, NPU_FILL_RANGE, -2.5, 0.5);
		for (e = 0; e < 15; e++) {
			cast_ref(cell, NPU_DTYPE_F32, dtype, -2.5 + 0.5 * e);
			want[e] = load(cell, dtype);
		}
		RUN_OK(&o);
		EXPECT_EXACT(y, want);
	}
}

/* Integer ranges of int64 past double's precision are exact. */
TEST_F(oplib, fill_s64_exact)
{
	static const int64_t n = 6;
	struct desc o;
	struct tt *y;
	int64_t got;
	unsigned int e;

	y = T(self, NPU_DTYPE_S64, 1, &n);
	fill_desc(&o, y, NPU_FILL_RANGE, 0x1p60, -3);
	RUN_OK(&o);
	for (e = 0; e < n; e++) {
		memcpy(&got, self->mem + y->addr + 8 * e, 8);
		EXPECT_EQ((1LL << 60) - 3 * (int64_t)e, got);
	}
	/* and saturate rather than wrap */
	fill_desc(&o, y, NPU_FILL_RANGE, 0x1p62, 0x1p62);
	RUN_OK(&o);
	memcpy(&got, self->mem + y->addr + 8 * 2, 8);
	EXPECT_EQ(INT64_MAX, got);
	/* a plain range */
	fill_desc(&o, y, NPU_FILL_RANGE, 0, 1);
	RUN_OK(&o);
	memcpy(&got, self->mem + y->addr + 8 * 5, 8);
	EXPECT_EQ(5, got);
}

TEST_F(oplib, fill_rejects)
{
	static const int64_t n = 4;
	struct desc o;
	struct tt *y;

	y = T(self, NPU_DTYPE_F32, 1, &n);
	fill_desc(&o, y, NPU_FILL_CONSTANT, 1, 1);
	EXPECT_EQ(NPU_ERR_RESERVED, run(self, &o));
	fill_desc(&o, y, NPU_FILL_RANGE + 1, 1, 0);
	EXPECT_EQ(NPU_ERR_OPERATOR, run(self, &o));
	fill_desc(&o, y, NPU_FILL_CONSTANT, 1, 0);
	D(&o)->attrs.fill.rsvd = htole32(1);
	EXPECT_EQ(NPU_ERR_RESERVED, run(self, &o));
	EXPECT_EQ(0, self->stray);
}

/*
 * y = cond ? a : b for every type of a, b and y, cond in several types,
 * all three broadcast to y by dims of 1.
 */
TEST_F(oplib, where)
{
	static const int64_t cd[3] = { 2, 1, 4 }, ad[3] = { 1, 3, 4 };
	static const int64_t bd[3] = { 2, 3, 1 }, yd[3] = { 2, 3, 4 };
	static const unsigned int conds[] = { NPU_DTYPE_BOOL, NPU_DTYPE_F32,
					      NPU_DTYPE_S64, NPU_DTYPE_U8 };
	unsigned int dtype, c, e;

	for (dtype = 0; dtype <= NPU_DTYPE_LAST; dtype++)
	for (c = 0; c < ARRAY_SIZE(conds); c++) {
		int64_t idx[3], at[3];
		struct tt *in[3], *y;
		double want[24];
		struct desc o;

		snprintf(self->step_buf, sizeof(self->step_buf),
			 "dtype %u, cond %u", dtype, conds[c]);
		self->step = self->step_buf;
		arena_reset(self);
		in[0] = T(self, conds[c], 3, cd);
		in[1] = T(self, dtype, 3, ad);
		in[2] = T(self, dtype, 3, bd);
		y = T(self, dtype, 3, yd);
		for (e = 0; e < in[0]->n; e++)
			in[0]->v[e] = e % 3 == 0 ? 0 : e % 3 == 1 ? 1 : 2;
		if (conds[c] == NPU_DTYPE_F32)
			in[0]->v[7] = NAN;
		tt_put(self, in[0]);
		fill_any(self, in[1]);
		fill_any(self, in[2]);
		desc_init(&o, NPU_OPERATOR_WHERE, in, 3, y);
		for (e = 0; e < y->n; e++) {
			bool pick;

			unravel(e, yd, 3, idx);
			memcpy(at, idx, sizeof(at));
			at[1] = 0;
			/* NaN is not 0 */
			pick = in[0]->v[ravel(at, cd, 3)] != 0;
			at[0] = 0;
			at[1] = idx[1];
			if (pick) {
				want[e] = in[1]->v[ravel(at, ad, 3)];
			} else {
				at[0] = idx[0];
				at[2] = 0;
				want[e] = in[2]->v[ravel(at, bd, 3)];
			}
		}
		RUN_OK(&o);
		EXPECT_EXACT(y, want);
	}
}

TEST_F(oplib, where_rejects)
{
	static const int64_t d2[2] = { 2, 3 }, d3[2] = { 3, 3 };
	struct tt *in[3], *y;
	struct desc o;

	in[0] = T(self, NPU_DTYPE_BOOL, 2, d2);
	in[1] = T(self, NPU_DTYPE_F32, 2, d2);
	in[2] = T(self, NPU_DTYPE_F16, 2, d2);
	y = T(self, NPU_DTYPE_F32, 2, d2);
	desc_init(&o, NPU_OPERATOR_WHERE, in, 3, y);
	EXPECT_EQ(NPU_ERR_OPERATOR, run(self, &o));
	in[2] = T(self, NPU_DTYPE_F32, 2, d3);
	desc_init(&o, NPU_OPERATOR_WHERE, in, 3, y);
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &o));
	EXPECT_EQ(0, self->stray);
}

/* An integer type's element, exactly. */
static int64_t load_int(const uint8_t *p, unsigned int dtype)
{
	int64_t s64;
	int32_t s32;
	int16_t s16;

	switch (dtype) {
	case NPU_DTYPE_S64: memcpy(&s64, p, 8); return s64;
	case NPU_DTYPE_S32: memcpy(&s32, p, 4); return s32;
	case NPU_DTYPE_S16: memcpy(&s16, p, 2); return s16;
	case NPU_DTYPE_S8: return (int8_t)*p;
	default: return *p;
	}
}

/* The exact result, in 128 bits, saturated later into the type. */
static __int128 binary_int_ref(unsigned int kind, __int128 a, __int128 b)
{
	__int128 r = 1;
	int64_t i;

	switch (kind) {
	case NPU_BINARY_ADD: return a + b;
	case NPU_BINARY_SUB: return a - b;
	case NPU_BINARY_MUL: return a * b;
	case NPU_BINARY_DIV: return b ? a / b : 0;
	case NPU_BINARY_MIN: return a < b ? a : b;
	case NPU_BINARY_MAX: return a > b ? a : b;
	}
	/* POW: past 2^64 the sign is all that is left to know */
	if (b < 0)
		return a == 1 ? 1 : a == -1 ? (b % 2 ? -1 : 1) : 0;
	for (i = 0; i < b; i++) {
		r *= a;
		if (r > (__int128)1 << 64 || r < -((__int128)1 << 64))
			return (a < 0 && b % 2 ? -1 : 1) * ((__int128)1 << 64);
	}
	return r;
}

static int64_t clamp128(__int128 v, unsigned int dtype)
{
	int64_t lo, hi;

	int_range(dtype, &lo, &hi);
	return v < lo ? lo : v > hi ? hi : (int64_t)v;
}

/*
 * Every binary operation on every integer type, b broadcast along a's
 * rows: exact, saturated into y's type, DIV toward zero and 0 by 0.
 */
TEST_F(oplib, binary_integers)
{
	static const unsigned int types[] = { NPU_DTYPE_S64, NPU_DTYPE_S32,
					      NPU_DTYPE_S16, NPU_DTYPE_S8,
					      NPU_DTYPE_U8 };
	static const int64_t av[3][4] = {
		{ 7, -7, 0, (1LL << 53) + 1 },
		{ INT64_MAX, INT64_MIN, 100, -100 },
		{ 3, 250, -3, 2 },
	};
	static const int64_t bv[4] = { 2, -3, 0, 3 };
	static const int64_t ad[2] = { 3, 4 }, bd[2] = { 1, 4 };
	unsigned int t, kind, e;

	for (t = 0; t < ARRAY_SIZE(types); t++)
	for (kind = 0; kind <= NPU_BINARY_MAX; kind++) {
		unsigned int dt = types[t];
		size_t es = dtype_size(dt);
		struct tt *in[2], *y;
		struct desc o;

		snprintf(self->step_buf, sizeof(self->step_buf),
			 "dtype %u, kind %u", dt, kind);
		self->step = self->step_buf;
		arena_reset(self);
		in[0] = T(self, dt, 2, ad);
		in[1] = T(self, dt, 2, bd);
		y = T(self, dt, 2, ad);
		for (e = 0; e < 12; e++)
			store_int(self->mem + in[0]->addr + e * es, dt, av[e / 4][e % 4]);
		for (e = 0; e < 4; e++)
			store_int(self->mem + in[1]->addr + e * es, dt, bv[e]);
		desc_init(&o, NPU_OPERATOR_BINARY, in, 2, y);
		D(&o)->attrs.binary.kind = htole32(kind);
		RUN_OK(&o);
		for (e = 0; e < 12; e++) {
			int64_t a = load_int(self->mem + in[0]->addr + e * es, dt);
			int64_t b = load_int(self->mem + in[1]->addr + e % 4 * es, dt);
			int64_t want = clamp128(binary_int_ref(kind, a, b), dt);

			ASSERT_EQ(want, load_int(self->mem + y->addr + e * es, dt))
				TH_LOG("%s: %lld, %lld", STEP, (long long)a, (long long)b);
		}
	}
}

/* U64 and S64 elements, as 128-bit integers. */
static __int128 load_wide(const uint8_t *p, unsigned int dtype)
{
	uint64_t u64;

	if (dtype != NPU_DTYPE_U64)
		return load_int(p, dtype);
	memcpy(&u64, p, 8);
	return u64;
}

static void store_wide(uint8_t *p, unsigned int dtype, __int128 v)
{
	uint64_t u64;

	if (dtype != NPU_DTYPE_U64) {
		store_int(p, dtype, v < INT64_MIN ? INT64_MIN : v > INT64_MAX ? INT64_MAX :
				    (int64_t)v);
		return;
	}
	u64 = v < 0 ? 0 : v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
	memcpy(p, &u64, 8);
}

/* binary_int_ref() with U64's products, which may pass __int128's range. */
static __int128 binary_wide_ref(unsigned int kind, __int128 a, __int128 b)
{
	__int128 r;

	if (kind == NPU_BINARY_MUL && __builtin_mul_overflow(a, b, &r))
		return (a < 0) != (b < 0) ? -((__int128)1 << 64) : (__int128)1 << 64;
	return binary_int_ref(kind, a, b);
}

/*
 * U64 arithmetic past int64 (the card saturates it as it does U8, at 0 and
 * at the type's top), with an S64 operand and into S64 too; comparisons
 * that a double could not make.
 */
TEST_F(oplib, binary_u64)
{
	static const uint64_t av[8] = {
		UINT64_MAX, UINT64_MAX - 1, 1ULL << 63, (1ULL << 63) - 1,
		1ULL << 32, (1ULL << 53) + 1, 3, 0,
	};
	static const uint64_t bv[8] = {
		1, UINT64_MAX, 1ULL << 63, 1ULL << 63, (1ULL << 32) - 1, (1ULL << 53) + 2, 5, 0,
	};
	static const int64_t sv[8] = { -1, INT64_MIN, INT64_MAX, 2, -3, 7, -5, 1 };
	static const unsigned int types[][3] = {
		{ NPU_DTYPE_U64, NPU_DTYPE_U64, NPU_DTYPE_U64 },
		{ NPU_DTYPE_U64, NPU_DTYPE_S64, NPU_DTYPE_U64 },
		{ NPU_DTYPE_U64, NPU_DTYPE_S64, NPU_DTYPE_S64 },
		{ NPU_DTYPE_U64, NPU_DTYPE_U64, NPU_DTYPE_U8 },
	};
	static const int64_t n = 8;
	unsigned int t, kind, e;

	for (t = 0; t < ARRAY_SIZE(types); t++)
	for (kind = 0; kind <= NPU_BINARY_GE; kind++) {
		const unsigned int *dt = types[t];
		bool compares = kind >= NPU_BINARY_EQ;
		struct tt *in[2], *y;
		struct desc o;

		/* comparisons take one type in a and b */
		if (compares && dt[0] != dt[1])
			continue;
		snprintf(self->step_buf, sizeof(self->step_buf), "types %u %u %u, kind %u",
			 dt[0], dt[1], dt[2], kind);
		self->step = self->step_buf;
		arena_reset(self);
		in[0] = T(self, dt[0], 1, &n);
		in[1] = T(self, dt[1], 1, &n);
		y = T(self, dt[2], 1, &n);
		for (e = 0; e < n; e++) {
			store_wide(self->mem + in[0]->addr + e * 8, dt[0], av[e]);
			store_wide(self->mem + in[1]->addr + e * 8, dt[1],
				   dt[1] == NPU_DTYPE_U64 ? (__int128)bv[e] : (__int128)sv[e]);
		}
		desc_init(&o, NPU_OPERATOR_BINARY, in, 2, y);
		D(&o)->attrs.binary.kind = htole32(kind);
		RUN_OK(&o);
		for (e = 0; e < n; e++) {
			__int128 a = load_wide(self->mem + in[0]->addr + e * 8, dt[0]);
			__int128 b = load_wide(self->mem + in[1]->addr + e * 8, dt[1]);
			uint8_t want[8] = { 0 };
			size_t ys = dtype_size(dt[2]);
			bool holds = kind == NPU_BINARY_EQ ? a == b : kind == NPU_BINARY_NE ? a != b :
				     kind == NPU_BINARY_LT ? a < b : kind == NPU_BINARY_LE ? a <= b :
				     kind == NPU_BINARY_GT ? a > b : a >= b;

			store_wide(want, dt[2], compares ? holds : binary_wide_ref(kind, a, b));
			ASSERT_EQ(0, memcmp(want, self->mem + y->addr + e * ys, ys))
				TH_LOG("%s: element %u", STEP, e);
		}
	}
}

/* U64 through CAST: exact between the integers, saturated, and to and from double. */
TEST_F(oplib, cast_u64_exact)
{
	static const uint64_t big[] = {
		UINT64_MAX, 1ULL << 63, (1ULL << 63) - 1, (1ULL << 53) + 1, 256, 255, 1, 0,
	};
	static const int64_t sv[] = { -1, INT64_MIN, INT64_MAX, 5 };
	static const double dv[] = { 1e20, -3.5, 0x1p63 + 2048, 0x1p64, 7.9, NAN };
	static const uint64_t dwant[] = {
		UINT64_MAX, 0, (1ULL << 63) + 2048, UINT64_MAX, 7, 0,
	};
	static const unsigned int to[] = {
		NPU_DTYPE_U64, NPU_DTYPE_S64, NPU_DTYPE_S32, NPU_DTYPE_U8, NPU_DTYPE_BOOL,
		NPU_DTYPE_F64,
	};
	const int64_t nb = ARRAY_SIZE(big), ns = ARRAY_SIZE(sv), nd = ARRAY_SIZE(dv);
	struct tt *x, *y;
	struct desc o;
	unsigned int i, e;

	for (i = 0; i < ARRAY_SIZE(to); i++) {
		size_t ys = dtype_size(to[i]);

		arena_reset(self);
		x = T(self, NPU_DTYPE_U64, 1, &nb);
		y = T(self, to[i], 1, &nb);
		memcpy(self->mem + x->addr, big, sizeof(big));
		desc_init(&o, NPU_OPERATOR_CAST, &x, 1, y);
		RUN_OK(&o);
		for (e = 0; e < nb; e++) {
			uint8_t want[8] = { 0 };
			double d = (double)big[e];

			if (to[i] == NPU_DTYPE_F64)
				memcpy(want, &d, 8);
			else
				store_wide(want, to[i], to[i] == NPU_DTYPE_BOOL ? big[e] != 0 :
							(__int128)big[e]);
			EXPECT_EQ(0, memcmp(want, self->mem + y->addr + e * ys, ys))
				TH_LOG("to %u: element %u", to[i], e);
		}
	}
	arena_reset(self);
	x = T(self, NPU_DTYPE_S64, 1, &ns);
	y = T(self, NPU_DTYPE_U64, 1, &ns);
	memcpy(self->mem + x->addr, sv, sizeof(sv));
	desc_init(&o, NPU_OPERATOR_CAST, &x, 1, y);
	RUN_OK(&o);
	for (e = 0; e < ns; e++)
		EXPECT_EQ(sv[e] < 0 ? 0 : (uint64_t)sv[e],
			  load_wide(self->mem + y->addr + e * 8, NPU_DTYPE_U64));
	arena_reset(self);
	x = T(self, NPU_DTYPE_F64, 1, &nd);
	y = T(self, NPU_DTYPE_U64, 1, &nd);
	memcpy(self->mem + x->addr, dv, sizeof(dv));
	desc_init(&o, NPU_OPERATOR_CAST, &x, 1, y);
	RUN_OK(&o);
	for (e = 0; e < nd; e++)
		EXPECT_EQ(dwant[e], load_wide(self->mem + y->addr + e * 8, NPU_DTYPE_U64))
			TH_LOG("from %g", dv[e]);
}

/* What would compute a U64 through int64 or float refuses it rather than round it. */
TEST_F(oplib, u64_only_where_exact)
{
	static const int64_t n = 4;
	struct tt *in[2], *y;
	struct desc o;

	in[0] = T(self, NPU_DTYPE_U64, 1, &n);
	in[1] = T(self, NPU_DTYPE_F32, 1, &n);
	y = T(self, NPU_DTYPE_U64, 1, &n);
	desc_init(&o, NPU_OPERATOR_UNARY, in, 1, y);
	D(&o)->attrs.unary.fn = act(NPU_UNARY_EXP, 0, 0);
	EXPECT_EQ(NPU_ERR_OPERATOR, run(self, &o));
	D(&o)->attrs.unary.fn = act(NPU_UNARY_ABS, 0, 0);
	EXPECT_EQ(NPU_ERR_OPERATOR, run(self, &o));
	/* arithmetic with a float */
	desc_init(&o, NPU_OPERATOR_BINARY, in, 2, y);
	EXPECT_EQ(NPU_ERR_OPERATOR, run(self, &o));
	desc_init(&o, NPU_OPERATOR_CUMSUM, in, 1, y);
	EXPECT_EQ(NPU_ERR_OPERATOR, run(self, &o));
	EXPECT_EQ(0, self->stray);
}

/* ABS and NEG of integers, saturated; a function of floats is refused. */
TEST_F(oplib, unary_integers)
{
	static const int64_t v[4] = { INT64_MIN, -5, 0, (1LL << 60) + 1 };
	static const int64_t n = 4;
	static const unsigned int kinds[2] = { NPU_UNARY_ABS, NPU_UNARY_NEG };
	unsigned int dt, k, e;

	for (dt = NPU_DTYPE_S32; dt <= NPU_DTYPE_S16; dt++)
	for (k = 0; k < 2; k++) {
		struct tt *x, *y;
		struct desc o;
		size_t es = dtype_size(dt);

		arena_reset(self);
		x = T(self, dt, 1, &n);
		y = T(self, dt, 1, &n);
		for (e = 0; e < 4; e++)
			store_int(self->mem + x->addr + e * es, dt, v[e]);
		desc_init(&o, NPU_OPERATOR_UNARY, &x, 1, y);
		D(&o)->attrs.unary.fn = act(kinds[k], 0, 0);
		RUN_OK(&o);
		for (e = 0; e < 4; e++) {
			__int128 a = load_int(self->mem + x->addr + e * es, dt);
			__int128 want = kinds[k] == NPU_UNARY_NEG || a < 0 ? -a : a;

			ASSERT_EQ(clamp128(want, dt), load_int(self->mem + y->addr + e * es, dt))
				TH_LOG("dtype %u, kind %u, element %u", dt, kinds[k], e);
		}
	}
}

/* Bad descriptors */

enum base { B_CONV, B_MATMUL, B_POOL, B_UNARY, B_BINARY, B_BATCHNORM,
	    B_LAYERNORM, B_SOFTMAX, B_REDUCE, B_CONCAT, B_TRANSPOSE, B_RESIZE,
	    B_PAD, B_SLICE, B_CAST, B_GATHER, B_TRIANGLE, B_RMSNORM, B_GROUPNORM,
	    B_COUNT };

/* A valid descriptor of each operator, for the mutations to break. */
static void base_build(FIXTURE_DATA(oplib) *self, enum base b, struct desc *o)
{
	static const int64_t d2x3[2] = { 2, 3 }, d3x4[2] = { 3, 4 };
	struct tt *in[5], *y;
	unsigned int i;

	switch (b) {
	case B_CONV:
		in[0] = T(self, 0, 4, (int64_t[]){ 1, 3, 8, 8 });
		in[1] = T(self, 0, 4, (int64_t[]){ 4, 3, 3, 3 });
		in[2] = T(self, 0, 1, (int64_t[]){ 4 });
		y = T(self, 0, 4, (int64_t[]){ 1, 4, 8, 8 });
		desc_init(o, NPU_OPERATOR_CONV2D, in, 3, y);
		for (i = 0; i < 2; i++) {
			D(o)->attrs.conv.strides[i] = htole32(1);
			D(o)->attrs.conv.dilations[i] = htole32(1);
			D(o)->attrs.conv.pads_begin[i] = htole32(1);
		}
		D(o)->attrs.conv.group = htole32(1);
		break;
	case B_MATMUL:
		in[0] = T(self, 0, 3, (int64_t[]){ 2, 4, 5 });
		in[1] = T(self, 0, 3, (int64_t[]){ 2, 5, 3 });
		in[2] = T(self, 0, 3, (int64_t[]){ 1, 1, 3 });
		y = T(self, 0, 3, (int64_t[]){ 2, 4, 3 });
		desc_init(o, NPU_OPERATOR_MATMUL, in, 3, y);
		D(o)->attrs.matmul.alpha = F(1);
		D(o)->attrs.matmul.beta = F(1);
		break;
	case B_POOL:
		in[0] = T(self, 0, 4, (int64_t[]){ 1, 2, 6, 6 });
		y = T(self, 0, 4, (int64_t[]){ 1, 2, 3, 3 });
		desc_init(o, NPU_OPERATOR_POOL2D, in, 1, y);
		for (i = 0; i < 2; i++) {
			D(o)->attrs.pool.kernel[i] = htole32(2);
			D(o)->attrs.pool.strides[i] = htole32(2);
			D(o)->attrs.pool.dilations[i] = htole32(1);
		}
		break;
	case B_UNARY:
		in[0] = T(self, 0, 2, d3x4);
		desc_init(o, NPU_OPERATOR_UNARY, in, 1, T(self, 0, 2, d3x4));
		D(o)->attrs.unary.fn = act(NPU_UNARY_RELU, 0, 0);
		break;
	case B_BINARY:
		in[0] = T(self, 0, 2, d2x3);
		in[1] = T(self, 0, 2, (int64_t[]){ 1, 3 });
		desc_init(o, NPU_OPERATOR_BINARY, in, 2, T(self, 0, 2, d2x3));
		break;
	case B_BATCHNORM:
		in[0] = T(self, 0, 3, (int64_t[]){ 2, 3, 4 });
		for (i = 1; i < 5; i++)
			in[i] = T(self, 0, 1, (int64_t[]){ 3 });
		y = T(self, 0, 3, (int64_t[]){ 2, 3, 4 });
		desc_init(o, NPU_OPERATOR_BATCHNORM, in, 5, y);
		D(o)->attrs.norm.epsilon = F(1e-5f);
		break;
	case B_LAYERNORM:
		in[0] = T(self, 0, 2, (int64_t[]){ 2, 6 });
		in[1] = T(self, 0, 1, (int64_t[]){ 6 });
		in[2] = T(self, 0, 1, (int64_t[]){ 6 });
		y = T(self, 0, 2, (int64_t[]){ 2, 6 });
		desc_init(o, NPU_OPERATOR_LAYERNORM, in, 3, y);
		D(o)->attrs.norm.axis = htole32(1);
		break;
	case B_SOFTMAX:
		in[0] = T(self, 0, 2, d2x3);
		desc_init(o, NPU_OPERATOR_SOFTMAX, in, 1, T(self, 0, 2, d2x3));
		D(o)->attrs.softmax.axis = htole32(1);
		break;
	case B_REDUCE:
		in[0] = T(self, 0, 3, (int64_t[]){ 2, 3, 4 });
		y = T(self, 0, 3, (int64_t[]){ 2, 1, 4 });
		desc_init(o, NPU_OPERATOR_REDUCE, in, 1, y);
		D(o)->attrs.reduce.kind = htole32(NPU_REDUCE_SUM);
		D(o)->attrs.reduce.axes = htole32(0x2);
		break;
	case B_CONCAT:
		in[0] = T(self, 0, 2, d2x3);
		in[1] = T(self, 0, 2, (int64_t[]){ 2, 4 });
		y = T(self, 0, 2, (int64_t[]){ 2, 7 });
		desc_init(o, NPU_OPERATOR_CONCAT, in, 2, y);
		D(o)->attrs.concat.axis = htole32(1);
		break;
	case B_TRANSPOSE:
		in[0] = T(self, 0, 3, (int64_t[]){ 2, 3, 4 });
		y = T(self, 0, 3, (int64_t[]){ 4, 2, 3 });
		desc_init(o, NPU_OPERATOR_TRANSPOSE, in, 1, y);
		D(o)->attrs.transpose.perm[0] = htole32(2);
		D(o)->attrs.transpose.perm[2] = htole32(1);
		break;
	case B_RESIZE:
		in[0] = T(self, 0, 4, (int64_t[]){ 1, 1, 4, 4 });
		y = T(self, 0, 4, (int64_t[]){ 1, 1, 8, 8 });
		desc_init(o, NPU_OPERATOR_RESIZE, in, 1, y);
		for (i = 0; i < 4; i++)
			D(o)->attrs.resize.scales[i] = F(i < 2 ? 1 : 2);
		break;
	case B_PAD:
		in[0] = T(self, 0, 2, d3x4);
		desc_init(o, NPU_OPERATOR_PAD, in, 1,
			  T(self, 0, 2, (int64_t[]){ 5, 6 }));
		for (i = 0; i < 2; i++) {
			D(o)->attrs.pad.begin[i] = htole32(1);
			D(o)->attrs.pad.end[i] = htole32(1);
		}
		break;
	case B_SLICE:
		in[0] = T(self, 0, 2, (int64_t[]){ 6, 6 });
		desc_init(o, NPU_OPERATOR_SLICE, in, 1, T(self, 0, 2, d3x4));
		D(o)->attrs.slice.steps[0] = htole64(2);
		D(o)->attrs.slice.steps[1] = htole64(1);
		D(o)->attrs.slice.starts[1] = htole64(2);
		break;
	case B_CAST:
		in[0] = T(self, 0, 2, d3x4);
		desc_init(o, NPU_OPERATOR_CAST, in, 1,
			  T(self, NPU_DTYPE_BF16, 2, d3x4));
		break;
	case B_GATHER:
		in[0] = T(self, 0, 2, d3x4);
		in[1] = T(self, NPU_DTYPE_S32, 1, (int64_t[]){ 2 });
		desc_init(o, NPU_OPERATOR_GATHER, in, 2, T(self, 0, 2, (int64_t[]){ 2, 4 }));
		break;
	case B_TRIANGLE:
		in[0] = T(self, 0, 2, d3x4);
		desc_init(o, NPU_OPERATOR_TRIANGLE, in, 1, T(self, 0, 2, d3x4));
		D(o)->attrs.triangle.diagonal = htole64(-1);
		break;
	case B_RMSNORM:
		in[0] = T(self, 0, 2, d3x4);
		in[1] = T(self, 0, 1, (int64_t[]){ 4 });
		desc_init(o, NPU_OPERATOR_RMSNORM, in, 2, T(self, 0, 2, d3x4));
		D(o)->attrs.norm.axis = htole32(1);
		D(o)->attrs.norm.epsilon = F(1e-6f);
		break;
	case B_GROUPNORM:
		in[0] = T(self, 0, 3, (int64_t[]){ 2, 6, 4 });
		in[1] = T(self, 0, 1, (int64_t[]){ 6 });
		in[2] = T(self, 0, 1, (int64_t[]){ 6 });
		desc_init(o, NPU_OPERATOR_GROUPNORM, in, 3, T(self, 0, 3, (int64_t[]){ 2, 6, 4 }));
		D(o)->attrs.groupnorm.groups = htole32(3);
		D(o)->attrs.groupnorm.epsilon = F(1e-5f);
		break;
	case B_COUNT:
		break;
	}
	for (i = 0; i < self->nt; i++)
		tt_fill(self, &self->t[i], 0.5, 1);
}

typedef void (*mutation)(struct npu_op_desc *d, size_t *size);

#define MUT(name, body)							\
	static void name(struct npu_op_desc *d, size_t *size)		\
	{								\
		struct npu_tensor_desc *t = d->tensors;			\
		(void)t;						\
		(void)size;						\
		body;							\
	}
#define Y	(t[d->num_inputs])
#define L32(v)	htole32(v)
#define L64(v)	htole64(v)

/* the header */
MUT(size_short, *size -= 1)
MUT(size_long, *size += sizeof(struct npu_tensor_desc))
MUT(size_header_only, *size = sizeof(*d) - 8)
MUT(size_huge, *size = OPLIB_DESC_MAX + sizeof(struct npu_tensor_desc))
MUT(kind_unknown, d->kind = htole16(NPU_OPERATOR_LAST + 1))
MUT(flags_set, d->flags = htole16(1))
MUT(rsvd0_set, d->rsvd0 = htole16(1))
MUT(rsvd1_set, d->rsvd1 = L64(1ULL << 40))
MUT(two_outputs, d->num_outputs = 2; *size += sizeof(*t))
MUT(no_outputs, d->num_outputs = 0; *size -= sizeof(*t))
MUT(one_input_too_few, d->num_inputs = 1; *size -= sizeof(*t))
MUT(attr_tail_set, d->attrs.bytes[127] = 1)
/* a tensor's fields */
MUT(dtype_unknown, t[0].dtype = htole16(NPU_DTYPE_LAST + 1))
MUT(format_unknown, t[0].format = htole16(NPU_FORMAT_LAST + 1))
MUT(tensor_bind, t[1].bind = htole16(1))
MUT(weights_format_on_x, t[0].format = htole16(NPU_FORMAT_OIHW16I16O);
    memset(t[0].strides, 0, sizeof(t[0].strides)))
MUT(weights_format_grouped, t[0].dims[1] = htole64(6); t[0].strides[0] = htole64(6 * 64);
    t[1].format = htole16(NPU_FORMAT_OIHW16I16O); memset(t[1].strides, 0, sizeof(t[1].strides));
    d->attrs.conv.group = htole32(2))
MUT(ndims_9, t[0].ndims = htole16(9))
MUT(unused_dim, t[0].dims[7] = L64(1))
MUT(unused_stride, Y.strides[6] = L64(4))
MUT(blocked_strides, Y.format = htole16(NPU_FORMAT_NCHW16C))
MUT(blocked_rank_3, t[0].format = htole16(NPU_FORMAT_NCHW16C);
    memset(t[0].strides, 0, sizeof(t[0].strides)); t[0].ndims = htole16(3);
    t[0].dims[3] = 0)
MUT(dim_negative, t[0].dims[0] = L64(1ULL << 63))
MUT(stride_negative, t[0].strides[1] = L64(~0ULL))
/* where tensors are */
MUT(addr_misaligned, t[0].addr = L64(le64toh(t[0].addr) + 2))
MUT(addr_past_memory, Y.addr = L64(ARENA_SIZE + 64))
MUT(extent_past_memory, Y.addr = L64(ARENA_SIZE - 64))
MUT(addr_wraps, t[1].addr = L64(~0ULL - 3))
MUT(span_overflows, t[0].strides[0] = L64(1ULL << 62))
MUT(elements_overflow, t[0].dims[0] = L64(1ULL << 40);
    t[0].dims[1] = L64(1ULL << 40); t[0].strides[0] = 0; t[0].strides[1] = 0)
MUT(bytes_overflow, t[0].dims[0] = L64(1ULL << 62); t[0].strides[0] = L64(1))
MUT(output_broadcast_by_stride_0, Y.strides[0] = 0)
MUT(input_overlapping, t[0].strides[0] = L64(1))
MUT(output_overlapping, Y.strides[0] = L64(1))
MUT(huge_by_stride_0, t[0].dims[0] = L64(1ULL << 40); t[0].strides[0] = 0;
    t[0].strides[1] = L64(1))
/* activations */
MUT(act_kind_unknown, d->attrs.conv.act.kind = L32(NPU_UNARY_LAST + 1))
MUT(act_rsvd, d->attrs.conv.act.rsvd = L32(1))
MUT(relu_with_alpha, d->attrs.conv.act = act(NPU_UNARY_RELU, 0.5f, 0))
MUT(elu_with_beta, d->attrs.conv.act = act(NPU_UNARY_ELU, 1, 1))
MUT(clip_upside_down, d->attrs.conv.act = act(NPU_UNARY_CLIP, 2, 1))
MUT(clip_nan, d->attrs.conv.act = act(NPU_UNARY_CLIP, NAN, 1))
MUT(softplus_beta_0, d->attrs.conv.act = act(NPU_UNARY_SOFTPLUS_BETA, 0, 20))
MUT(softplus_beta_inf, d->attrs.conv.act = act(NPU_UNARY_SOFTPLUS_BETA, INFINITY, 20))
MUT(sign_with_alpha, d->attrs.conv.act = act(NPU_UNARY_SIGN, 1, 0))
MUT(rsqrt_with_beta, d->attrs.conv.act = act(NPU_UNARY_RSQRT, 0, 1))
/* convolution */
MUT(conv_rsvd, d->attrs.conv.rsvd = L32(1))
MUT(conv_stride_0, d->attrs.conv.strides[1] = 0)
MUT(conv_dilation_0, d->attrs.conv.dilations[0] = 0)
MUT(conv_group_0, d->attrs.conv.group = 0)
MUT(conv_group_not_dividing, d->attrs.conv.group = L32(2))
MUT(conv_stride_huge, d->attrs.conv.strides[0] = L32(1u << 30))
MUT(conv_y_too_small, Y.dims[2] = L64(5))
MUT(conv_y_channels, Y.dims[1] = L64(3))
MUT(conv_y_batch, Y.dims[0] = L64(2))
MUT(conv_w_channels, t[1].dims[1] = L64(2))
MUT(conv_bias_length, t[2].dims[0] = L64(5))
MUT(conv_x_rank_3, t[0].ndims = htole16(3); t[0].dims[3] = 0; t[0].strides[3] = 0)
MUT(conv_w_bf16, t[1].dtype = htole16(NPU_DTYPE_BF16))
MUT(conv_bias_s8, t[2].dtype = htole16(NPU_DTYPE_S8))
MUT(conv_w_blocked, t[1].format = htole16(NPU_FORMAT_NCHW16C);
    memset(t[1].strides, 0, sizeof(t[1].strides)))
MUT(conv_w_empty, t[1].dims[1] = 0; t[0].dims[1] = 0)
MUT(conv_four_inputs, d->num_inputs = 4; *size += sizeof(*t))
/* matmul */
MUT(mm_trans_2, d->attrs.matmul.trans_a = L32(2))
MUT(mm_beta_without_c, d->num_inputs = 2; t[2] = t[3]; *size -= sizeof(*t))
MUT(mm_k_mismatch, t[1].dims[1] = L64(4))
MUT(mm_batch_mismatch, t[1].dims[0] = L64(3))
MUT(mm_y_batch, Y.dims[0] = L64(1))
MUT(mm_c_not_broadcast, t[2].dims[2] = L64(2))
MUT(mm_rank_mismatch, t[2].ndims = htole16(2); t[2].dims[2] = 0; t[2].strides[2] = 0)
MUT(mm_rank_1, for (int i = 0; i < 4; i++) { t[i].ndims = htole16(1);
    t[i].dims[1] = t[i].dims[2] = 0; t[i].strides[1] = t[i].strides[2] = 0; })
MUT(mm_k_empty, t[0].dims[2] = 0; t[1].dims[1] = 0)
/* pooling */
MUT(pool_kind, d->attrs.pool.kind = L32(3))
MUT(pool_rsvd, d->attrs.pool.rsvd = L32(1))
MUT(pool_kernel_0, d->attrs.pool.kernel[0] = 0)
MUT(pool_pad_kernel, d->attrs.pool.pads_begin[1] = L32(2))
MUT(pool_window_in_pad, Y.dims[2] = L64(5))
MUT(pool_y_channels, Y.dims[1] = L64(1))
/* elementwise */
MUT(unary_dtype, Y.dtype = htole16(NPU_DTYPE_BF16))
MUT(unary_dims, Y.dims[1] = L64(5))
MUT(unary_kind, d->attrs.unary.fn.kind = L32(99))
MUT(binary_kind, d->attrs.binary.kind = L32(NPU_BINARY_LAST + 1))
MUT(binary_rsvd, d->attrs.binary.rsvd = L32(1))
MUT(binary_not_broadcast, t[1].dims[1] = L64(2))
MUT(binary_y_wrong, Y.dims[0] = L64(1))
MUT(binary_rank, t[1].ndims = htole16(1); t[1].dims[1] = 0; t[1].strides[1] = 0)
MUT(compare_mixed, d->attrs.binary.kind = L32(NPU_BINARY_LT);
    t[1].dtype = htole16(NPU_DTYPE_BF16))
/* normalizations */
MUT(bn_axis, d->attrs.norm.axis = L32(1))
MUT(bn_scale_length, t[1].dims[0] = L64(4))
MUT(bn_var_bf16, t[4].dtype = htole16(NPU_DTYPE_BF16))
MUT(bn_x_rank_1, t[0].ndims = htole16(1); Y.ndims = htole16(1);
    t[0].dims[1] = t[0].dims[2] = Y.dims[1] = Y.dims[2] = 0;
    t[0].strides[1] = t[0].strides[2] = Y.strides[1] = Y.strides[2] = 0)
MUT(ln_axis, d->attrs.norm.axis = L32(2))
MUT(ln_scale_dims, t[1].dims[0] = L64(2))
MUT(ln_act_unknown, d->attrs.norm.act.kind = L32(NPU_UNARY_LAST + 1))
MUT(sm_axis, d->attrs.softmax.axis = L32(2))
MUT(sm_log_2, d->attrs.softmax.log = L32(2))
MUT(sm_attr_tail, d->attrs.bytes[8] = 1)
/* reductions and moves */
MUT(red_kind, d->attrs.reduce.kind = L32(NPU_REDUCE_LAST + 1))
MUT(red_axis_past_rank, d->attrs.reduce.axes = L32(0x8))
MUT(red_y_not_1, d->attrs.reduce.axes = L32(0x1))
MUT(cat_sum, Y.dims[1] = L64(8))
MUT(cat_other_dim, t[1].dims[0] = L64(3))
MUT(cat_axis, d->attrs.concat.axis = L32(2))
MUT(cat_dtype, t[1].dtype = htole16(NPU_DTYPE_BF16))
MUT(cat_rsvd, d->attrs.concat.rsvd = L32(1))
MUT(tr_duplicate, d->attrs.transpose.perm[1] = L32(2))
MUT(tr_out_of_range, d->attrs.transpose.perm[0] = L32(3))
MUT(tr_past_rank, d->attrs.transpose.perm[5] = L32(1))
MUT(tr_y_dims, Y.dims[0] = L64(3))
MUT(rs_mode, d->attrs.resize.mode = L32(2))
MUT(rs_coord, d->attrs.resize.coord = L32(4))
MUT(rs_nearest, d->attrs.resize.nearest = L32(4))
MUT(rs_linear_nearest, d->attrs.resize.mode = L32(1);
    d->attrs.resize.nearest = L32(1))
MUT(rs_scale_0, d->attrs.resize.scales[2] = F(0))
MUT(rs_scale_nan, d->attrs.resize.scales[3] = F(NAN))
MUT(rs_scale_past_rank, d->attrs.resize.scales[4] = F(1))
MUT(rs_y_off, Y.dims[3] = L64(10))
MUT(rs_linear_leading, d->attrs.resize.mode = L32(1);
    d->attrs.resize.scales[1] = F(2); Y.dims[1] = L64(2))
MUT(rs_rsvd, d->attrs.resize.rsvd = L32(1))
MUT(pad_mode, d->attrs.pad.mode = L32(3))
MUT(pad_value_reflect, d->attrs.pad.mode = L32(NPU_PAD_REFLECT);
    d->attrs.pad.value = F(1))
MUT(pad_y_dims, Y.dims[0] = L64(6))
MUT(pad_reflect_too_far, d->attrs.pad.mode = L32(NPU_PAD_REFLECT);
    d->attrs.pad.begin[0] = L32(3); d->attrs.pad.end[0] = L32(-1u);
    Y.dims[0] = L64(5))
MUT(pad_past_rank, d->attrs.pad.end[2] = L32(1))
MUT(pad_crop_too_far, d->attrs.pad.begin[0] = L32(-5); d->attrs.pad.end[0] = 0)
MUT(sl_step_0, d->attrs.slice.steps[1] = 0)
MUT(sl_start_outside, d->attrs.slice.starts[0] = L64(6))
MUT(sl_last_outside, d->attrs.slice.starts[1] = L64(3))
MUT(sl_backwards_below_0, d->attrs.slice.steps[0] = L64(-1);
    d->attrs.slice.starts[0] = L64(1))
MUT(sl_past_rank, d->attrs.slice.starts[2] = L64(1))
MUT(sl_blocked, t[0].format = htole16(NPU_FORMAT_NCHW16C);
    memset(t[0].strides, 0, sizeof(t[0].strides)); t[0].ndims = htole16(4);
    t[0].dims[2] = t[0].dims[3] = L64(1))
MUT(cast_dims, Y.dims[1] = L64(3))
MUT(cast_attr, d->attrs.bytes[0] = 1)
/* gather */
MUT(ga_one_input, d->num_inputs = 1; t[1] = t[2]; *size -= sizeof(*t))
MUT(ga_three_inputs, d->num_inputs = 3; t[3] = t[2]; t[2] = t[1]; *size += sizeof(*t))
MUT(ga_axis_past_rank, d->attrs.gather.axis = L32(2))
MUT(ga_rsvd, d->attrs.gather.rsvd = L32(1))
MUT(ga_attr_tail, d->attrs.bytes[sizeof(struct npu_attr_gather)] = 1)
MUT(ga_indices_f32, t[1].dtype = htole16(NPU_DTYPE_F32))
MUT(ga_y_dtype, Y.dtype = htole16(NPU_DTYPE_BF16))
MUT(ga_y_dims, Y.dims[0] = L64(3))
MUT(ga_y_rank, Y.ndims = htole16(3); Y.dims[2] = L64(1); Y.strides[2] = L64(1))
MUT(ga_indices_s8, t[1].dtype = htole16(NPU_DTYPE_S8))
/* triangles and the new normalizations */
MUT(tri_upper_2, d->attrs.triangle.upper = L32(2))
MUT(tri_rsvd, d->attrs.triangle.rsvd = L32(1))
MUT(tri_attr_tail, d->attrs.bytes[sizeof(struct npu_attr_triangle)] = 1)
MUT(tri_rank_1, t[0].ndims = Y.ndims = htole16(1); t[0].dims[1] = Y.dims[1] = 0;
    t[0].strides[1] = Y.strides[1] = 0; t[0].dims[0] = Y.dims[0] = L64(12);
    t[0].strides[0] = Y.strides[0] = L64(1))
MUT(tri_y_dtype, Y.dtype = htole16(NPU_DTYPE_BF16))
MUT(tri_y_dims, Y.dims[1] = L64(3))
MUT(tri_blocked, t[0].format = Y.format = htole16(NPU_FORMAT_NCHW16C);
    memset(t[0].strides, 0, sizeof(t[0].strides)); memset(Y.strides, 0, sizeof(Y.strides));
    t[0].ndims = Y.ndims = htole16(4); t[0].dims[2] = t[0].dims[3] = L64(1);
    Y.dims[2] = Y.dims[3] = L64(1))
MUT(rms_axis_past_rank, d->attrs.norm.axis = L32(2))
MUT(rms_gamma_dims, t[1].dims[0] = L64(3))
MUT(rms_gamma_s32, t[1].dtype = htole16(NPU_DTYPE_S32))
MUT(rms_x_s8, t[0].dtype = Y.dtype = htole16(NPU_DTYPE_S8))
MUT(rms_y_dtype, Y.dtype = htole16(NPU_DTYPE_BF16))
MUT(rms_epsilon_negative, d->attrs.norm.epsilon = F(-1e-6f))
MUT(rms_epsilon_nan, d->attrs.norm.epsilon = F(NAN))
MUT(rms_act_unknown, d->attrs.norm.act.kind = L32(NPU_UNARY_LAST + 1))
MUT(rms_three_inputs, d->num_inputs = 3; t[3] = t[2]; t[2] = t[1]; *size += sizeof(*t))
MUT(gn_groups_0, d->attrs.groupnorm.groups = 0)
MUT(gn_groups_not_dividing, d->attrs.groupnorm.groups = L32(4))
MUT(gn_groups_past_c, d->attrs.groupnorm.groups = L32(12))
MUT(gn_beta_length, t[2].dims[0] = L64(5))
MUT(gn_gamma_s32, t[1].dtype = htole16(NPU_DTYPE_S32))
MUT(gn_x_rank_1, t[0].ndims = Y.ndims = htole16(1); t[0].dims[1] = Y.dims[1] = 0;
    t[0].dims[2] = Y.dims[2] = 0; t[0].strides[1] = Y.strides[1] = 0;
    t[0].strides[2] = Y.strides[2] = 0; t[0].dims[0] = Y.dims[0] = L64(6);
    t[0].strides[0] = Y.strides[0] = L64(1))
MUT(gn_epsilon_inf, d->attrs.groupnorm.epsilon = F(INFINITY))
MUT(gn_act_rsvd, d->attrs.groupnorm.act.rsvd = L32(1))
MUT(gn_attr_tail, d->attrs.bytes[sizeof(struct npu_attr_groupnorm)] = 1)
MUT(gn_two_inputs, d->num_inputs = 2; t[2] = t[3]; *size -= sizeof(*t))

static const struct reject_case {
	const char *what;
	enum base base;
	mutation mutate;
	int err;
} reject_cases[] = {
	{ "size one byte short", B_CONV, size_short, NPU_ERR_OP_PARAM },
	{ "size a tensor too long", B_CONV, size_long, NPU_ERR_OP_PARAM },
	{ "size less than the header", B_CONV, size_header_only, NPU_ERR_OP_PARAM },
	{ "size past the largest", B_CONV, size_huge, NPU_ERR_OP_PARAM },
	{ "unknown operator", B_CONV, kind_unknown, NPU_ERR_OPERATOR },
	{ "flags", B_CONV, flags_set, NPU_ERR_RESERVED },
	{ "rsvd0", B_CONV, rsvd0_set, NPU_ERR_RESERVED },
	{ "rsvd1", B_UNARY, rsvd1_set, NPU_ERR_RESERVED },
	{ "two outputs", B_CONV, two_outputs, NPU_ERR_OP_PARAM },
	{ "no output", B_UNARY, no_outputs, NPU_ERR_OP_PARAM },
	{ "too few inputs", B_CONV, one_input_too_few, NPU_ERR_OP_PARAM },
	{ "attribute bytes past the struct", B_CONV, attr_tail_set, NPU_ERR_RESERVED },
	{ "unknown dtype", B_CONV, dtype_unknown, NPU_ERR_OPERATOR },
	{ "unknown format", B_UNARY, format_unknown, NPU_ERR_OPERATOR },
	{ "OIHW16I16O for a convolution's x", B_CONV, weights_format_on_x, NPU_ERR_OPERATOR },
	{ "OIHW16I16O weights of a grouped convolution", B_CONV, weights_format_grouped,
	  NPU_ERR_OPERATOR },
	{ "tensor binding", B_CONV, tensor_bind, NPU_ERR_RESERVED },
	{ "rank 9", B_UNARY, ndims_9, NPU_ERR_OP_PARAM },
	{ "dim past the rank", B_BINARY, unused_dim, NPU_ERR_RESERVED },
	{ "stride past the rank", B_BINARY, unused_stride, NPU_ERR_RESERVED },
	{ "NCHW16C with strides", B_CONV, blocked_strides, NPU_ERR_RESERVED },
	{ "NCHW16C of rank 3", B_UNARY, blocked_rank_3, NPU_ERR_OP_PARAM },
	{ "negative dim", B_UNARY, dim_negative, NPU_ERR_OP_PARAM },
	{ "negative stride", B_UNARY, stride_negative, NPU_ERR_OP_PARAM },
	{ "misaligned tensor", B_CONV, addr_misaligned, NPU_ERR_OP_PARAM },
	{ "tensor past device memory", B_CONV, addr_past_memory, NPU_ERR_DEV_ADDR },
	{ "tensor running off device memory", B_CONV, extent_past_memory, NPU_ERR_DEV_ADDR },
	{ "tensor address wrapping", B_BINARY, addr_wraps, NPU_ERR_DEV_ADDR },
	{ "span overflowing", B_UNARY, span_overflows, NPU_ERR_DEV_ADDR },
	{ "elements overflowing", B_CAST, elements_overflow, NPU_ERR_DEV_ADDR },
	{ "bytes overflowing", B_UNARY, bytes_overflow, NPU_ERR_DEV_ADDR },
	{ "output broadcast by a stride of 0", B_BINARY, output_broadcast_by_stride_0,
	  NPU_ERR_OP_PARAM },
	{ "input overlapping but by a stride of 0", B_UNARY, input_overlapping, NPU_ERR_OP_PARAM },
	{ "output writing elements twice", B_UNARY, output_overlapping, NPU_ERR_OP_PARAM },
	{ "2^40 elements in a few bytes", B_REDUCE, huge_by_stride_0, NPU_ERR_OP_PARAM },
	{ "unknown activation", B_CONV, act_kind_unknown, NPU_ERR_OPERATOR },
	{ "activation rsvd", B_CONV, act_rsvd, NPU_ERR_RESERVED },
	{ "relu with an alpha", B_CONV, relu_with_alpha, NPU_ERR_RESERVED },
	{ "elu with a beta", B_CONV, elu_with_beta, NPU_ERR_RESERVED },
	{ "clip upside down", B_CONV, clip_upside_down, NPU_ERR_OP_PARAM },
	{ "clip to NaN", B_CONV, clip_nan, NPU_ERR_OP_PARAM },
	{ "softplus with beta 0", B_CONV, softplus_beta_0, NPU_ERR_OP_PARAM },
	{ "softplus with an infinite beta", B_CONV, softplus_beta_inf, NPU_ERR_OP_PARAM },
	{ "sign with an alpha", B_CONV, sign_with_alpha, NPU_ERR_RESERVED },
	{ "rsqrt with a beta", B_CONV, rsqrt_with_beta, NPU_ERR_RESERVED },
	{ "conv rsvd", B_CONV, conv_rsvd, NPU_ERR_RESERVED },
	{ "conv stride 0", B_CONV, conv_stride_0, NPU_ERR_OP_PARAM },
	{ "conv dilation 0", B_CONV, conv_dilation_0, NPU_ERR_OP_PARAM },
	{ "conv group 0", B_CONV, conv_group_0, NPU_ERR_OP_PARAM },
	{ "conv group not dividing C", B_CONV, conv_group_not_dividing, NPU_ERR_OP_PARAM },
	{ "conv stride past the library", B_CONV, conv_stride_huge, NPU_ERR_OPERATOR },
	{ "conv y dropping a window", B_CONV, conv_y_too_small, NPU_ERR_OP_PARAM },
	{ "conv y channels", B_CONV, conv_y_channels, NPU_ERR_OP_PARAM },
	{ "conv y batch", B_CONV, conv_y_batch, NPU_ERR_OP_PARAM },
	{ "conv w channels", B_CONV, conv_w_channels, NPU_ERR_OP_PARAM },
	{ "conv bias length", B_CONV, conv_bias_length, NPU_ERR_OP_PARAM },
	{ "conv x rank 3", B_CONV, conv_x_rank_3, NPU_ERR_OP_PARAM },
	{ "conv w of another dtype", B_CONV, conv_w_bf16, NPU_ERR_OPERATOR },
	{ "conv bias s8", B_CONV, conv_bias_s8, NPU_ERR_OPERATOR },
	{ "conv w NCHW16C", B_CONV, conv_w_blocked, NPU_ERR_OPERATOR },
	{ "conv from empty x and w", B_CONV, conv_w_empty, NPU_ERR_OP_PARAM },
	{ "conv four inputs", B_CONV, conv_four_inputs, NPU_ERR_OP_PARAM },
	{ "matmul trans_a 2", B_MATMUL, mm_trans_2, NPU_ERR_OP_PARAM },
	{ "matmul beta without c", B_MATMUL, mm_beta_without_c, NPU_ERR_RESERVED },
	{ "matmul K mismatch", B_MATMUL, mm_k_mismatch, NPU_ERR_OP_PARAM },
	{ "matmul batch mismatch", B_MATMUL, mm_batch_mismatch, NPU_ERR_OP_PARAM },
	{ "matmul y batch", B_MATMUL, mm_y_batch, NPU_ERR_OP_PARAM },
	{ "matmul c not broadcastable", B_MATMUL, mm_c_not_broadcast, NPU_ERR_OP_PARAM },
	{ "matmul c of another rank", B_MATMUL, mm_rank_mismatch, NPU_ERR_OP_PARAM },
	{ "matmul rank 1", B_MATMUL, mm_rank_1, NPU_ERR_OP_PARAM },
	{ "matmul K 0", B_MATMUL, mm_k_empty, NPU_ERR_OP_PARAM },
	{ "pool kind", B_POOL, pool_kind, NPU_ERR_OPERATOR },
	{ "pool rsvd", B_POOL, pool_rsvd, NPU_ERR_RESERVED },
	{ "pool kernel 0", B_POOL, pool_kernel_0, NPU_ERR_OP_PARAM },
	{ "pool pad as large as the kernel", B_POOL, pool_pad_kernel, NPU_ERR_OP_PARAM },
	{ "pool window all padding", B_POOL, pool_window_in_pad, NPU_ERR_OP_PARAM },
	{ "pool y channels", B_POOL, pool_y_channels, NPU_ERR_OP_PARAM },
	{ "unary dtype change", B_UNARY, unary_dtype, NPU_ERR_OPERATOR },
	{ "unary dims", B_UNARY, unary_dims, NPU_ERR_OP_PARAM },
	{ "unary kind", B_UNARY, unary_kind, NPU_ERR_OPERATOR },
	{ "binary kind", B_BINARY, binary_kind, NPU_ERR_OPERATOR },
	{ "binary rsvd", B_BINARY, binary_rsvd, NPU_ERR_RESERVED },
	{ "binary not broadcastable", B_BINARY, binary_not_broadcast, NPU_ERR_OP_PARAM },
	{ "binary y", B_BINARY, binary_y_wrong, NPU_ERR_OP_PARAM },
	{ "binary ranks", B_BINARY, binary_rank, NPU_ERR_OP_PARAM },
	{ "comparison of two dtypes", B_BINARY, compare_mixed, NPU_ERR_OPERATOR },
	{ "batchnorm axis", B_BATCHNORM, bn_axis, NPU_ERR_RESERVED },
	{ "batchnorm scale length", B_BATCHNORM, bn_scale_length, NPU_ERR_OP_PARAM },
	{ "batchnorm var bf16", B_BATCHNORM, bn_var_bf16, NPU_ERR_OPERATOR },
	{ "batchnorm x rank 1", B_BATCHNORM, bn_x_rank_1, NPU_ERR_OP_PARAM },
	{ "layernorm axis", B_LAYERNORM, ln_axis, NPU_ERR_OP_PARAM },
	{ "layernorm scale dims", B_LAYERNORM, ln_scale_dims, NPU_ERR_OP_PARAM },
	{ "layernorm activation", B_LAYERNORM, ln_act_unknown, NPU_ERR_OPERATOR },
	{ "softmax axis", B_SOFTMAX, sm_axis, NPU_ERR_OP_PARAM },
	{ "softmax log 2", B_SOFTMAX, sm_log_2, NPU_ERR_OP_PARAM },
	{ "softmax attribute tail", B_SOFTMAX, sm_attr_tail, NPU_ERR_RESERVED },
	{ "reduce kind", B_REDUCE, red_kind, NPU_ERR_OPERATOR },
	{ "reduce axis past the rank", B_REDUCE, red_axis_past_rank, NPU_ERR_OP_PARAM },
	{ "reduce y not 1 on the axis", B_REDUCE, red_y_not_1, NPU_ERR_OP_PARAM },
	{ "concat sum", B_CONCAT, cat_sum, NPU_ERR_OP_PARAM },
	{ "concat other dim", B_CONCAT, cat_other_dim, NPU_ERR_OP_PARAM },
	{ "concat axis", B_CONCAT, cat_axis, NPU_ERR_OP_PARAM },
	{ "concat dtype", B_CONCAT, cat_dtype, NPU_ERR_OPERATOR },
	{ "concat rsvd", B_CONCAT, cat_rsvd, NPU_ERR_RESERVED },
	{ "transpose duplicate axis", B_TRANSPOSE, tr_duplicate, NPU_ERR_OP_PARAM },
	{ "transpose axis out of range", B_TRANSPOSE, tr_out_of_range, NPU_ERR_OP_PARAM },
	{ "transpose perm past the rank", B_TRANSPOSE, tr_past_rank, NPU_ERR_RESERVED },
	{ "transpose y dims", B_TRANSPOSE, tr_y_dims, NPU_ERR_OP_PARAM },
	{ "resize mode", B_RESIZE, rs_mode, NPU_ERR_OPERATOR },
	{ "resize coord", B_RESIZE, rs_coord, NPU_ERR_OPERATOR },
	{ "resize nearest", B_RESIZE, rs_nearest, NPU_ERR_OPERATOR },
	{ "resize linear with a rounding", B_RESIZE, rs_linear_nearest, NPU_ERR_RESERVED },
	{ "resize scale 0", B_RESIZE, rs_scale_0, NPU_ERR_OP_PARAM },
	{ "resize scale NaN", B_RESIZE, rs_scale_nan, NPU_ERR_OP_PARAM },
	{ "resize scale past the rank", B_RESIZE, rs_scale_past_rank, NPU_ERR_RESERVED },
	{ "resize y off the scale", B_RESIZE, rs_y_off, NPU_ERR_OP_PARAM },
	{ "resize linear on a leading axis", B_RESIZE, rs_linear_leading, NPU_ERR_OP_PARAM },
	{ "resize rsvd", B_RESIZE, rs_rsvd, NPU_ERR_RESERVED },
	{ "pad mode", B_PAD, pad_mode, NPU_ERR_OPERATOR },
	{ "pad value when reflecting", B_PAD, pad_value_reflect, NPU_ERR_RESERVED },
	{ "pad y dims", B_PAD, pad_y_dims, NPU_ERR_OP_PARAM },
	{ "pad reflecting past the edge", B_PAD, pad_reflect_too_far, NPU_ERR_OP_PARAM },
	{ "pad past the rank", B_PAD, pad_past_rank, NPU_ERR_RESERVED },
	{ "pad cropping past nothing", B_PAD, pad_crop_too_far, NPU_ERR_OP_PARAM },
	{ "slice step 0", B_SLICE, sl_step_0, NPU_ERR_OP_PARAM },
	{ "slice start outside", B_SLICE, sl_start_outside, NPU_ERR_OP_PARAM },
	{ "slice running off the end", B_SLICE, sl_last_outside, NPU_ERR_OP_PARAM },
	{ "slice running off the start", B_SLICE, sl_backwards_below_0, NPU_ERR_OP_PARAM },
	{ "slice past the rank", B_SLICE, sl_past_rank, NPU_ERR_RESERVED },
	{ "slice of NCHW16C", B_SLICE, sl_blocked, NPU_ERR_OPERATOR },
	{ "cast dims", B_CAST, cast_dims, NPU_ERR_OP_PARAM },
	{ "cast with attributes", B_CAST, cast_attr, NPU_ERR_RESERVED },
	{ "gather of one input", B_GATHER, ga_one_input, NPU_ERR_OP_PARAM },
	{ "gather of three inputs", B_GATHER, ga_three_inputs, NPU_ERR_OP_PARAM },
	{ "gather along an axis past the rank", B_GATHER, ga_axis_past_rank, NPU_ERR_OP_PARAM },
	{ "gather rsvd", B_GATHER, ga_rsvd, NPU_ERR_RESERVED },
	{ "gather attribute bytes past its struct", B_GATHER, ga_attr_tail, NPU_ERR_RESERVED },
	{ "gather by f32 indices", B_GATHER, ga_indices_f32, NPU_ERR_OPERATOR },
	{ "gather into another dtype", B_GATHER, ga_y_dtype, NPU_ERR_OPERATOR },
	{ "gather y dims", B_GATHER, ga_y_dims, NPU_ERR_OP_PARAM },
	{ "gather y rank", B_GATHER, ga_y_rank, NPU_ERR_OP_PARAM },
	{ "gather by s8 indices", B_GATHER, ga_indices_s8, NPU_ERR_OPERATOR },
	{ "triangle upper 2", B_TRIANGLE, tri_upper_2, NPU_ERR_OP_PARAM },
	{ "triangle rsvd", B_TRIANGLE, tri_rsvd, NPU_ERR_RESERVED },
	{ "triangle attribute bytes past its struct", B_TRIANGLE, tri_attr_tail,
	  NPU_ERR_RESERVED },
	{ "triangle of rank 1", B_TRIANGLE, tri_rank_1, NPU_ERR_OP_PARAM },
	{ "triangle into another dtype", B_TRIANGLE, tri_y_dtype, NPU_ERR_OPERATOR },
	{ "triangle y dims", B_TRIANGLE, tri_y_dims, NPU_ERR_OP_PARAM },
	{ "triangle of NCHW16C", B_TRIANGLE, tri_blocked, NPU_ERR_OPERATOR },
	{ "rmsnorm axis past the rank", B_RMSNORM, rms_axis_past_rank, NPU_ERR_OP_PARAM },
	{ "rmsnorm gamma dims", B_RMSNORM, rms_gamma_dims, NPU_ERR_OP_PARAM },
	{ "rmsnorm gamma s32", B_RMSNORM, rms_gamma_s32, NPU_ERR_OPERATOR },
	{ "rmsnorm of s8", B_RMSNORM, rms_x_s8, NPU_ERR_OPERATOR },
	{ "rmsnorm into another dtype", B_RMSNORM, rms_y_dtype, NPU_ERR_OPERATOR },
	{ "rmsnorm epsilon negative", B_RMSNORM, rms_epsilon_negative, NPU_ERR_OP_PARAM },
	{ "rmsnorm epsilon NaN", B_RMSNORM, rms_epsilon_nan, NPU_ERR_OP_PARAM },
	{ "rmsnorm activation", B_RMSNORM, rms_act_unknown, NPU_ERR_OPERATOR },
	{ "rmsnorm of three inputs", B_RMSNORM, rms_three_inputs, NPU_ERR_OP_PARAM },
	{ "groupnorm of 0 groups", B_GROUPNORM, gn_groups_0, NPU_ERR_OP_PARAM },
	{ "groupnorm groups not dividing C", B_GROUPNORM, gn_groups_not_dividing,
	  NPU_ERR_OP_PARAM },
	{ "groupnorm more groups than channels", B_GROUPNORM, gn_groups_past_c,
	  NPU_ERR_OP_PARAM },
	{ "groupnorm beta length", B_GROUPNORM, gn_beta_length, NPU_ERR_OP_PARAM },
	{ "groupnorm gamma s32", B_GROUPNORM, gn_gamma_s32, NPU_ERR_OPERATOR },
	{ "groupnorm x rank 1", B_GROUPNORM, gn_x_rank_1, NPU_ERR_OP_PARAM },
	{ "groupnorm epsilon infinite", B_GROUPNORM, gn_epsilon_inf, NPU_ERR_OP_PARAM },
	{ "groupnorm activation rsvd", B_GROUPNORM, gn_act_rsvd, NPU_ERR_RESERVED },
	{ "groupnorm attribute bytes past its struct", B_GROUPNORM, gn_attr_tail,
	  NPU_ERR_RESERVED },
	{ "groupnorm of two inputs", B_GROUPNORM, gn_two_inputs, NPU_ERR_OP_PARAM },
};

/*
 * Each case breaks one thing in a valid descriptor: the library reports
 * it, as oplib_check() and oplib_check_op() (the card's one check before
 * oplib_run_op()) do, and changes no byte of device memory.
 */
TEST_F(oplib, rejects_bad_descriptors)
{
	struct desc base[B_COUNT];
	struct oplib_op op;
	unsigned int i;

	for (i = 0; i < B_COUNT; i++) {
		base_build(self, i, &base[i]);
		base[i].out = NULL;
		self->step = "the valid base";
		ASSERT_EQ(NPU_ERR_NONE, run(self, &base[i]))
			TH_LOG("base %u", i);
	}
	for (i = 0; i < ARRAY_SIZE(reject_cases); i++) {
		const struct reject_case *k = &reject_cases[i];
		struct desc o = base[k->base];

		self->step = k->what;
		k->mutate(D(&o), &o.size);
		ASSERT_EQ(k->err, oplib_check(D(&o), o.size, ARENA_SIZE))
			TH_LOG("case: %s", k->what);
		ASSERT_EQ(k->err, oplib_check_op(D(&o), o.size, ARENA_SIZE, NULL, &op))
			TH_LOG("case: %s", k->what);
		ASSERT_EQ(k->err, run(self, &o)) TH_LOG("case: %s", k->what);
		ASSERT_EQ(0, self->stray) TH_LOG("case %s: memory changed", k->what);
	}
}

/* The plan cache */

/* A 3x3 convolution of x (1, c, 9, 9): its shape picks the plan. */
/*
 * Input i of @o read through a stride of 0 on @axis: a row of one element
 * there, repeated.  *full is the same input written out densely.
 */
static struct tt *broadcast_input(FIXTURE_DATA(oplib) *self, struct desc *o,
				  unsigned int i, unsigned int axis, struct tt **full)
{
	const struct npu_tensor_desc *t = &D(o)->tensors[i];
	int64_t dims[NPU_TENSOR_MAX_DIMS], idx[NPU_TENSOR_MAX_DIMS];
	unsigned int d, n = le16toh(t->ndims);
	struct tt *row;
	uint64_t e;

	for (d = 0; d < n; d++)
		dims[d] = le64toh(t->dims[d]);
	*full = T(self, le16toh(t->dtype), n, dims);
	dims[axis] = 1;
	row = T(self, le16toh(t->dtype), n, dims);
	tt_fill(self, row, -1, 1);
	for (e = 0; e < (*full)->n; e++) {
		unravel(e, (*full)->dims, n, idx);
		idx[axis] = 0;
		(*full)->v[e] = row->v[ravel(idx, dims, n)];
	}
	tt_put(self, *full);
	/* the row, seen with the full dims */
	row->dims[axis] = (*full)->dims[axis];
	row->strides[axis] = 0;
	return row;
}

/*
 * Every operator reads an input with a stride of 0 as the same input
 * written out densely: on its outermost and on its innermost axis of more
 * than one element, each input in turn.
 */
TEST_F(oplib, broadcast_inputs)
{
	unsigned int b, i, a, d;

	for (b = 0; b < B_COUNT; b++) {
		struct desc o;
		unsigned int nin;

		arena_reset(self);
		base_build(self, b, &o);
		nin = D(&o)->num_inputs;
		for (i = 0; i < nin; i++)
		for (a = 0; a < 2; a++) {
			const struct npu_tensor_desc *t = &D(&o)->tensors[i];
			unsigned int n = le16toh(t->ndims), axis = n;
			struct tt *full, *row;
			double *want;

			for (d = 0; d < n; d++)
				if (le64toh(t->dims[d]) > 1 && (axis == n || a))
					axis = d;
			if (axis == n || le16toh(t->format) != NPU_FORMAT_STRIDED)
				continue;
			snprintf(self->step_buf, sizeof(self->step_buf),
				 "operator %u, input %u, axis %u", b, i, axis);
			self->step = self->step_buf;
			row = broadcast_input(self, &o, i, axis, &full);
			tensor_desc(&D(&o)->tensors[i], full);
			want = want_alloc(o.out);
			RUN_OK(&o);
			tt_get(self, o.out, want);
			tensor_desc(&D(&o)->tensors[i], row);
			RUN_OK(&o);
			EXPECT_EXACT(o.out, want);
			free(want);
			/* the next case starts from a dense input again */
			tensor_desc(&D(&o)->tensors[i], full);
		}
	}
}

/* Whether base b's tensor i is data, which takes the half types. */
static bool half_tensor(enum base b, unsigned int i, unsigned int nin)
{
	if (b == B_GATHER && i == 1)
		return false;
	/* the norms' parameters are F32 */
	if ((b == B_BATCHNORM || b == B_LAYERNORM) && i && i < nin)
		return false;
	return true;
}

/*
 * Every operator in F16 and BF16, against itself in F32 on the same
 * values: within the half type's rounding of the result.
 */
TEST_F(oplib, half_types_on_every_family)
{
	static const unsigned int halves[2] = { NPU_DTYPE_F16, NPU_DTYPE_BF16 };
	unsigned int b, h, i;

	for (b = 0; b < B_COUNT; b++)
	for (h = 0; h < 2; h++) {
		struct tt *half[NPU_OP_MAX_TENSORS], *y;
		unsigned int nt;
		double *want;
		struct desc o;

		snprintf(self->step_buf, sizeof(self->step_buf),
			 "operator %u, dtype %u", b, halves[h]);
		self->step = self->step_buf;
		arena_reset(self);
		base_build(self, b, &o);
		nt = D(&o)->num_inputs + 1;
		for (i = 0; i < nt; i++) {
			struct tt *t = &self->t[i];

			half[i] = t;
			if (!half_tensor(b, i, nt - 1))
				continue;
			/* values the half type holds, in both runs */
			half[i] = tt_alloc(self, halves[h], t->format, t->ndims,
					   t->dims, NULL);
			memcpy(half[i]->v, t->v, t->n * sizeof(double));
			tt_put(self, half[i]);
			tt_get(self, half[i], half[i]->v);
			memcpy(t->v, half[i]->v, t->n * sizeof(double));
			tt_put(self, t);
		}
		y = o.out;
		want = want_alloc(y);
		RUN_OK(&o);
		tt_get(self, y, want);
		for (i = 0; i < nt; i++)
			tensor_desc(&D(&o)->tensors[i], half[i]);
		o.out = half[nt - 1];
		RUN_OK(&o);
		EXPECT_CLOSE(o.out, want, h ? 1.0 / 64 : 1.0 / 512, h ? 1.0 / 64 : 1.0 / 512);
		free(want);
	}
}

static void small_conv(FIXTURE_DATA(oplib) *self, int64_t c, struct desc *o)
{
	struct conv_case k = { "cached", 1, c, 9, 9, 4, 3, 3, 9, 9,
			       {1, 1}, {1, 1}, {1, 1}, 1, true };
	struct tt *x, *w, *b;

	conv_build(self, &k, false, o, &x, &w, &b, -1, 1);
}

static void expect_stats(struct __test_metadata *_metadata,
			 struct oplib *lib, uint64_t hits, uint64_t misses,
			 uint64_t evictions, uint32_t entries)
{
	struct oplib_stats st;

	oplib_get_stats(lib, &st);
	EXPECT_EQ(hits, st.hits);
	EXPECT_EQ(misses, st.misses);
	EXPECT_EQ(evictions, st.evictions);
	EXPECT_EQ(entries, st.entries);
}

TEST_F(oplib, cache_hits_on_the_second_run)
{
	struct desc a, a_moved, b;

	small_conv(self, 3, &a);
	small_conv(self, 3, &a_moved);	/* the same shapes elsewhere */
	small_conv(self, 5, &b);
	expect_stats(_metadata, self->lib, 0, 0, 0, 0);
	RUN_OK(&a);
	expect_stats(_metadata, self->lib, 0, 1, 0, 1);
	RUN_OK(&a);
	expect_stats(_metadata, self->lib, 1, 1, 0, 1);
	RUN_OK(&a_moved);
	expect_stats(_metadata, self->lib, 2, 1, 0, 1);
	RUN_OK(&b);
	expect_stats(_metadata, self->lib, 2, 2, 0, 2);
	/* a rejected descriptor never reaches the cache */
	D(&b)->attrs.conv.group = 0;
	ASSERT_EQ(NPU_ERR_OP_PARAM, run(self, &b));
	expect_stats(_metadata, self->lib, 2, 2, 0, 2);
}

/* A cache of 2 evicts the least recently used plan. */
TEST_F(oplib, cache_is_bounded)
{
	struct oplib_config cfg = { .threads = 1, .cache_capacity = 2 };
	struct oplib *lib = oplib_create(&cfg);
	struct desc a, b, c;

	ASSERT_NE(NULL, lib);
	small_conv(self, 1, &a);
	small_conv(self, 2, &b);
	small_conv(self, 3, &c);
	ASSERT_EQ(0, run_with(self, lib, &a, NULL));
	ASSERT_EQ(0, run_with(self, lib, &b, NULL));
	ASSERT_EQ(0, run_with(self, lib, &a, NULL));	/* b is now the oldest */
	expect_stats(_metadata, lib, 1, 2, 0, 2);
	ASSERT_EQ(0, run_with(self, lib, &c, NULL));
	expect_stats(_metadata, lib, 1, 3, 1, 2);
	ASSERT_EQ(0, run_with(self, lib, &a, NULL));
	expect_stats(_metadata, lib, 2, 3, 1, 2);
	ASSERT_EQ(0, run_with(self, lib, &b, NULL));
	expect_stats(_metadata, lib, 2, 4, 2, 2);
	ASSERT_EQ(0, self->stray);
	oplib_destroy(lib);
}

/*
 * Threads sharing one library and a cache smaller than their operators:
 * plans are built, evicted and run at once, and every result is right.
 */
struct runner {
	struct oplib *lib;
	uint8_t *mem;
	struct desc *descs;	/* this thread's, with its own outputs */
	const uint8_t *const *want;
	unsigned int ndescs;
	unsigned int bad;
};

static void *runner_main(void *arg)
{
	struct runner *r = arg;
	unsigned int i;

	for (i = 0; i < 40; i++) {
		struct desc *o = &r->descs[i % r->ndescs];
		const struct tt *y = o->out;

		memset(r->mem + y->addr, 0, y->extent);
		if (oplib_run(r->lib, D(o), o->size, r->mem, ARENA_SIZE, NULL) ||
		    memcmp(r->mem + y->addr, r->want[i % r->ndescs], y->extent))
			r->bad++;
	}
	return NULL;
}

TEST_F(oplib, threads_share_a_library)
{
	enum { THREADS = 4, OPS = 3 };
	struct oplib_config cfg = { .threads = 1, .cache_capacity = 2 };
	struct oplib *lib = oplib_create(&cfg);
	struct desc descs[THREADS][OPS];
	const uint8_t *want[OPS];
	struct runner runners[THREADS];
	pthread_t threads[THREADS];
	unsigned int t, i;

	ASSERT_NE(NULL, lib);
	/* one x and w per operator; each thread writes its own y */
	for (i = 0; i < OPS; i++) {
		small_conv(self, i + 2, &descs[0][i]);
		ASSERT_EQ(0, run_with(self, lib, &descs[0][i], NULL));
		want[i] = malloc(descs[0][i].out->extent);
		memcpy((uint8_t *)want[i], self->mem + descs[0][i].out->addr,
		       descs[0][i].out->extent);
	}
	for (t = 1; t < THREADS; t++) {
		for (i = 0; i < OPS; i++) {
			struct tt *y = tt_alloc(self, 0, 0, 4,
						descs[0][i].out->dims, NULL);

			descs[t][i] = descs[0][i];
			tensor_desc(&D(&descs[t][i])->tensors[3], y);
			descs[t][i].out = y;
		}
	}
	for (t = 0; t < THREADS; t++) {
		runners[t] = (struct runner){ .lib = lib, .mem = self->mem,
					      .descs = descs[t], .want = want,
					      .ndescs = OPS };
		ASSERT_EQ(0, pthread_create(&threads[t], NULL, runner_main,
					    &runners[t]));
	}
	for (t = 0; t < THREADS; t++) {
		pthread_join(threads[t], NULL);
		EXPECT_EQ(0, runners[t].bad) TH_LOG("thread %u", t);
	}
	for (i = 0; i < OPS; i++)
		free((void *)want[i]);
	oplib_destroy(lib);
}

/* The engine hooks */

struct engine_log {
	unsigned int gets, puts, held, max_held;
	unsigned int refuse_gets;	/* engine_get says no this often */
	unsigned int pauses;		/* go_on(false) says no this often */
	bool resume;			/* what go_on(true) says */
	unsigned int waits;
	unsigned int asked;		/* abandoned() calls */
	unsigned int abandon_after;	/* it says yes from this call on; 0: never */
};

static bool log_engine_get(void *ctx)
{
	struct engine_log *l = ctx;

	if (l->refuse_gets) {
		l->refuse_gets--;
		return false;
	}
	l->gets++;
	if (++l->held > l->max_held)
		l->max_held = l->held;
	return true;
}

static void log_engine_put(void *ctx)
{
	struct engine_log *l = ctx;

	l->puts++;
	l->held--;
}

static bool log_go_on(void *ctx, bool wait)
{
	struct engine_log *l = ctx;

	if (wait) {
		l->waits++;
		return l->resume;
	}
	if (l->pauses) {
		l->pauses--;
		return false;
	}
	return true;
}

static bool log_abandoned(void *ctx)
{
	struct engine_log *l = ctx;

	return ++l->asked >= l->abandon_after && l->abandon_after;
}

#define LOG_HOOKS(l) { log_engine_get, log_engine_put, log_go_on, \
		       log_abandoned, &(l) }

/* A MatMul with a full c: two steps, so a pause can come between them. */
static void two_step_op(FIXTURE_DATA(oplib) *self, struct desc *o,
			double *want)
{
	static const int64_t ad[2] = { 4, 6 }, bd[2] = { 6, 5 }, yd[2] = { 4, 5 };
	struct tt *in[3], *y;
	int64_t i, j, k;

	in[0] = T(self, 0, 2, ad);
	in[1] = T(self, 0, 2, bd);
	in[2] = T(self, 0, 2, yd);
	y = T(self, 0, 2, yd);
	for (i = 0; i < 3; i++)
		tt_fill(self, in[i], -1, 1);
	desc_init(o, NPU_OPERATOR_MATMUL, in, 3, y);
	D(o)->attrs.matmul.alpha = F(2);
	D(o)->attrs.matmul.beta = F(-1);
	for (i = 0; i < 4; i++)
		for (j = 0; j < 5; j++) {
			double acc = 0;

			for (k = 0; k < 6; k++)
				acc += in[0]->v[i * 6 + k] * in[1]->v[k * 5 + j];
			want[i * 5 + j] = 2 * acc - in[2]->v[i * 5 + j];
		}
}

TEST_F(oplib, hooks_share_the_engine)
{
	struct engine_log l = { .resume = true };
	struct oplib_hooks hooks = LOG_HOOKS(l);
	struct desc o;
	double want[20];

	two_step_op(self, &o, want);
	/* runs holding one engine, and gives it back */
	ASSERT_EQ(NPU_ERR_NONE, run_with(self, self->lib, &o, &hooks));
	ASSERT_EQ(0, self->stray);
	EXPECT_OUTPUT(o.out, want);
	EXPECT_EQ(1, l.gets);
	EXPECT_EQ(1, l.puts);
	EXPECT_EQ(1, l.max_held);

	/* paused between steps: the engine goes back, then comes again */
	memset(&l, 0, sizeof(l));
	l.pauses = 1;
	l.resume = true;
	ASSERT_EQ(NPU_ERR_NONE, run_with(self, self->lib, &o, &hooks));
	EXPECT_OUTPUT(o.out, want);
	EXPECT_EQ(2, l.gets);
	EXPECT_EQ(2, l.puts);
	EXPECT_EQ(1, l.waits);
	EXPECT_EQ(0, l.held);

	/* no engine at first: it sits out the pause and waits again */
	memset(&l, 0, sizeof(l));
	l.refuse_gets = 2;
	l.resume = true;
	ASSERT_EQ(NPU_ERR_NONE, run_with(self, self->lib, &o, &hooks));
	EXPECT_OUTPUT(o.out, want);
	EXPECT_EQ(2, l.waits);
	EXPECT_EQ(1, l.gets);
	EXPECT_EQ(0, l.held);
}

TEST_F(oplib, hooks_abandon_the_operator)
{
	struct engine_log l = { 0 };
	struct oplib_hooks hooks = LOG_HOOKS(l);
	struct desc o;
	double want[20];

	two_step_op(self, &o, want);
	/* abandoned midway: the engine is given back, nothing else */
	l.pauses = 1;
	l.resume = false;
	ASSERT_EQ(OPLIB_ABORTED, run_with(self, self->lib, &o, &hooks));
	EXPECT_EQ(1, l.gets);
	EXPECT_EQ(1, l.puts);
	EXPECT_EQ(0, l.held);

	/* abandoned while waiting for an engine: never held one */
	memset(&l, 0, sizeof(l));
	l.refuse_gets = 1;
	l.resume = false;
	ASSERT_EQ(OPLIB_ABORTED, run_with(self, self->lib, &o, &hooks));
	EXPECT_EQ(0, l.gets);
	EXPECT_EQ(0, l.puts);

	/* a rejected descriptor and an empty output take no engine */
	memset(&l, 0, sizeof(l));
	D(&o)->attrs.matmul.trans_a = htole32(7);
	ASSERT_EQ(NPU_ERR_OP_PARAM, run_with(self, self->lib, &o, &hooks));
	D(&o)->attrs.matmul.trans_a = 0;
	D(&o)->tensors[0].dims[0] = 0;
	D(&o)->tensors[3].dims[0] = 0;
	D(&o)->tensors[2].dims[0] = 1;
	o.out = NULL;
	ASSERT_EQ(NPU_ERR_NONE, run_with(self, self->lib, &o, &hooks));
	ASSERT_EQ(0, self->stray);
	EXPECT_EQ(0, l.gets);
}

/*
 * A step done by a loop asks whether its operator is abandoned as it goes,
 * so a reset does not wait for a loop over a large tensor to end.
 */
TEST_F(oplib, loops_stop_for_an_abandoned_operator)
{
	static const int64_t dims[1] = { 1 << 20 };
	struct engine_log l = { .resume = true };
	struct oplib_hooks hooks = LOG_HOOKS(l);
	struct tt *x = T(self, 0, 1, dims), *y = T(self, 0, 1, dims);
	struct desc o;

	desc_init(&o, NPU_OPERATOR_UNARY, &x, 1, y);
	D(&o)->attrs.unary.fn = act(NPU_UNARY_ERF, 0, 0);
	/* 16 checks for 1 Mi elements; abandoned at the third */
	l.abandon_after = 3;
	ASSERT_EQ(OPLIB_ABORTED, run_with(self, self->lib, &o, &hooks));
	ASSERT_EQ(0, self->stray);
	EXPECT_EQ(3, l.asked);
	EXPECT_EQ(1, l.gets);
	EXPECT_EQ(1, l.puts);

	/* not abandoned: the loop runs to the end, asking 16 times */
	memset(&l, 0, sizeof(l));
	ASSERT_EQ(NPU_ERR_NONE, run_with(self, self->lib, &o, &hooks));
	EXPECT_EQ(16, l.asked);
	EXPECT_EQ(l.gets, l.puts);
}

/* The capability registers' sources. */
TEST_F(oplib, capabilities)
{
	uint32_t dtypes = oplib_dtypes(self->lib);
	unsigned int dt;

	EXPECT_EQ((2ULL << NPU_OPERATOR_LAST) - 1, oplib_operators(self->lib));
	for (dt = 0; dt <= NPU_DTYPE_LAST; dt++)
		EXPECT_TRUE(dtypes & (1u << dt)) TH_LOG("dtype %u", dt);
	EXPECT_EQ(0, dtypes >> (NPU_DTYPE_LAST + 1));
	EXPECT_GE(OPLIB_DESC_MAX, sizeof(struct npu_op_desc) +
		  NPU_OP_MAX_TENSORS * sizeof(struct npu_tensor_desc));
	EXPECT_LE(1, oplib_threads_per_engine(1));
	EXPECT_LE(oplib_threads_per_engine(2), oplib_threads_per_engine(1));
	EXPECT_EQ(1, oplib_threads_per_engine(100000));
}
/*
 * Index and order: GATHER with S64 indices, GATHER_ELEMENTS, SCATTER,
 * CUMSUM, SORT and REDUCE's ARGMAX and ARGMIN.
 */

#define DIMS_OF(...)	((const int64_t[]){ __VA_ARGS__ })

/* Indices into t, S32 or S64, from a table. */
static void put_indices(FIXTURE_DATA(oplib) *self, struct tt *t, const int64_t *v)
{
	uint64_t e;

	for (e = 0; e < t->n; e++)
		t->v[e] = v[e];
	tt_put(self, t);
}

/* S64 indices past 32 bits are out of range, not wrapped into it. */
TEST_F(oplib, gather_s64_indices)
{
	static const int64_t xd[2] = { 5, 3 }, id[1] = { 4 }, yd[2] = { 4, 3 };
	static const int64_t good[4] = { 4, -5, 0, 2 };
	static const int64_t bad[] = { 5, -6, (1LL << 32) + 1, INT64_MIN };
	int64_t idx[2], v[4];
	struct tt *in[2], *y;
	struct desc o;
	double *want;
	unsigned int i;
	uint64_t e;

	in[0] = T(self, NPU_DTYPE_F16, 2, xd);
	in[1] = T(self, NPU_DTYPE_S64, 1, id);
	y = T(self, NPU_DTYPE_F16, 2, yd);
	tt_fill(self, in[0], -8, 8);
	tt_fill(self, y, 20, 30);
	desc_init(&o, NPU_OPERATOR_GATHER, in, 2, y);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		memcpy(v, good, sizeof(v));
		v[2] = bad[i];
		/* INT64_MIN is no double the table can hold exactly: store it */
		put_indices(self, in[1], v);
		memcpy(self->mem + in[1]->addr + 2 * 8, &bad[i], 8);
		ASSERT_EQ(NPU_ERR_OP_PARAM, run(self, &o)) TH_LOG("index %lld", (long long)bad[i]);
		ASSERT_EQ(0, self->stray);
	}
	put_indices(self, in[1], good);
	want = want_alloc(y);
	for (e = 0; e < y->n; e++) {
		unravel(e, yd, 2, idx);
		want[e] = gather_ref(in[0], in[1], y, 0, idx);
	}
	RUN_OK(&o);
	EXPECT_EXACT(y, want);
	free(want);
}

/* torch.gather: y[p] = x[p with p[axis] = ind[p]], ind smaller than x. */
TEST_F(oplib, gather_elements)
{
	static const struct {
		const char *what;
		unsigned int dtype, itype, axis;
		int64_t xd[3], id[3];
	} cases[] = {
		{ "rows of a matrix", NPU_DTYPE_F32, NPU_DTYPE_S32, 0, { 4, 3, 1 }, { 6, 3, 1 } },
		{ "the last axis, s64", NPU_DTYPE_BF16, NPU_DTYPE_S64, 2, { 2, 3, 5 }, { 2, 2, 3 } },
		{ "the middle axis, s8", NPU_DTYPE_S8, NPU_DTYPE_S32, 1, { 3, 4, 2 }, { 2, 7, 2 } },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned int axis = cases[i].axis;
		int64_t idx[3], from[3];
		struct tt *in[2], *y;
		struct desc o;
		double *want;
		uint64_t e;

		arena_reset(self);
		self->step = cases[i].what;
		in[0] = T(self, cases[i].dtype, 3, cases[i].xd);
		in[1] = T(self, cases[i].itype, 3, cases[i].id);
		y = T(self, cases[i].dtype, 3, cases[i].id);
		tt_fill(self, in[0], -100, 100);
		for (e = 0; e < in[1]->n; e++)
			in[1]->v[e] = floor(rnd_uniform(self, -cases[i].xd[axis],
							cases[i].xd[axis] - 0.01));
		tt_put(self, in[1]);
		desc_init(&o, NPU_OPERATOR_GATHER_ELEMENTS, in, 2, y);
		D(&o)->attrs.gather.axis = htole32(axis);
		want = want_alloc(y);
		for (e = 0; e < y->n; e++) {
			unravel(e, y->dims, 3, idx);
			memcpy(from, idx, sizeof(from));
			from[axis] = (int64_t)in[1]->v[e];
			if (from[axis] < 0)
				from[axis] += cases[i].xd[axis];
			want[e] = in[0]->v[ravel(from, in[0]->dims, 3)];
		}
		RUN_OK(&o);
		EXPECT_EXACT(y, want);
		free(want);

		/* one index out of range: nothing written */
		tt_fill(self, y, 1, 2);
		in[1]->v[in[1]->n - 1] = cases[i].xd[axis];
		tt_put(self, in[1]);
		ASSERT_EQ(NPU_ERR_OP_PARAM, run(self, &o)) TH_LOG("case %s", STEP);
		ASSERT_EQ(0, self->stray) TH_LOG("case %s: y written", STEP);
		EXPECT_EXACT(y, y->v);
	}
}

/* y updated in place from src: the arithmetic written out per case. */
TEST_F(oplib, scatter_slices_and_elements)
{
	static const int64_t yd[2] = { 4, 3 };
	/* index_copy of rows 2 and 0; then index_add with row 1 twice */
	static const int64_t sd[2] = { 2, 3 }, rows[2] = { 2, -4 }, twice[2] = { 1, 1 };
	/* scatter along columns: ind (2, 2) within src (2, 3) */
	static const int64_t ed[2] = { 2, 2 }, cols[4] = { 2, 0, 1, 1 };
	struct tt *in[2], *y;
	struct desc o;
	double *want;
	unsigned int r, c;

	y = T(self, NPU_DTYPE_S32, 2, yd);
	in[0] = T(self, NPU_DTYPE_S64, 1, DIMS_OF(2));
	in[1] = T(self, NPU_DTYPE_S32, 2, sd);
	want = want_alloc(y);
	for (r = 0; r < 12; r++)
		y->v[r] = r;
	tt_put(self, y);
	for (r = 0; r < 6; r++)
		in[1]->v[r] = 100 + r;
	tt_put(self, in[1]);
	put_indices(self, in[0], rows);
	desc_init(&o, NPU_OPERATOR_SCATTER, in, 2, y);
	self->step = "index_copy";
	for (r = 0; r < 12; r++)
		want[r] = r;
	for (c = 0; c < 3; c++) {
		want[2 * 3 + c] = 100 + c;
		want[0 * 3 + c] = 103 + c;
	}
	RUN_OK(&o);
	EXPECT_EXACT(y, want);

	self->step = "index_add, one row twice";
	put_indices(self, in[0], twice);
	D(&o)->attrs.scatter.reduce = htole32(NPU_SCATTER_ADD);
	for (c = 0; c < 3; c++)
		want[3 + c] += 100 + c + 103 + c;
	RUN_OK(&o);
	EXPECT_EXACT(y, want);

	self->step = "elements, multiplied";
	tt_get(self, y, y->v);
	in[0] = T(self, NPU_DTYPE_S32, 2, ed);
	put_indices(self, in[0], cols);
	desc_init(&o, NPU_OPERATOR_SCATTER, in, 2, y);
	D(&o)->attrs.scatter.axis = htole32(1);
	D(&o)->attrs.scatter.mode = htole32(NPU_SCATTER_ELEMENTS);
	D(&o)->attrs.scatter.reduce = htole32(NPU_SCATTER_MUL);
	/* src (0, 0) into y (0, 2), (0, 1) into (0, 0), (1, 0), (1, 1) into (1, 1) */
	want[2] *= 100;
	want[0] *= 101;
	want[4] *= 103 * 104;
	RUN_OK(&o);
	EXPECT_EXACT(y, want);

	self->step = "elements, replaced: the last of a repeated index wins";
	D(&o)->attrs.scatter.reduce = htole32(NPU_SCATTER_REPLACE);
	want[2] = 100;
	want[0] = 101;
	want[4] = 104;
	RUN_OK(&o);
	EXPECT_EXACT(y, want);
	free(want);
}

/* One index out of range, the last one: y untouched, then it runs. */
TEST_F(oplib, scatter_index_out_of_range)
{
	static const int64_t yd[2] = { 3, 2 }, sd[2] = { 3, 2 };
	static const int64_t bad[] = { 3, -4, 1LL << 40 };
	int64_t ind[3] = { 0, 1, 0 };
	struct tt *in[2], *y;
	struct desc o;
	unsigned int i;

	y = T(self, NPU_DTYPE_F32, 2, yd);
	in[0] = T(self, NPU_DTYPE_S64, 1, DIMS_OF(3));
	in[1] = T(self, NPU_DTYPE_F32, 2, sd);
	tt_fill(self, y, -1, 1);
	tt_fill(self, in[1], 5, 6);
	desc_init(&o, NPU_OPERATOR_SCATTER, in, 2, y);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ind[2] = bad[i];
		put_indices(self, in[0], ind);
		ASSERT_EQ(NPU_ERR_OP_PARAM, run(self, &o)) TH_LOG("index %lld", (long long)bad[i]);
		ASSERT_EQ(0, self->stray) TH_LOG("index %lld: y written", (long long)bad[i]);
		EXPECT_EXACT(y, y->v);
	}
	ind[2] = -1;
	put_indices(self, in[0], ind);
	RUN_OK(&o);
}

/* Inclusive, exclusive, from either end, integers exact past 2^53. */
TEST_F(oplib, cumsum)
{
	static const int64_t xd[3] = { 2, 5, 3 };
	unsigned int axis, ex, rev, dt;

	for (dt = 0; dt < 3; dt++)
	for (axis = 0; axis < 3; axis++)
	for (ex = 0; ex < 2; ex++)
	for (rev = 0; rev < 2; rev++) {
		static const unsigned int types[3] = { NPU_DTYPE_F32, NPU_DTYPE_S64,
						       NPU_DTYPE_BF16 };
		unsigned int t = types[dt];
		int64_t idx[3], at[3], j;
		struct tt *x, *y;
		struct desc o;
		double *want;
		uint64_t e;

		arena_reset(self);
		snprintf(self->step_buf, sizeof(self->step_buf),
			 "type %u axis %u exclusive %u reverse %u", t, axis, ex, rev);
		self->step = self->step_buf;
		x = T(self, t, 3, xd);
		y = T(self, t, 3, xd);
		tt_fill(self, x, -50, 50);
		desc_init(&o, NPU_OPERATOR_CUMSUM, &x, 1, y);
		D(&o)->attrs.cumsum.axis = htole32(axis);
		D(&o)->attrs.cumsum.exclusive = htole32(ex);
		D(&o)->attrs.cumsum.reverse = htole32(rev);
		want = want_alloc(y);
		for (e = 0; e < y->n; e++) {
			unravel(e, xd, 3, idx);
			memcpy(at, idx, sizeof(at));
			for (j = 0; j < xd[axis]; j++) {
				bool in = rev ? j > idx[axis] : j < idx[axis];

				at[axis] = j;
				if (in || (!ex && j == idx[axis]))
					want[e] += x->v[ravel(at, xd, 3)];
			}
		}
		RUN_OK(&o);
		EXPECT_OUTPUT(y, want);
		free(want);
	}
}

TEST_F(oplib, cumsum_s64_exact_in_place)
{
	static const int64_t v[3] = { (1LL << 60) + 1, 1, -(1LL << 60) };
	int64_t got[3];
	struct tt *x;
	struct desc o;

	x = T(self, NPU_DTYPE_S64, 1, DIMS_OF(3));
	memcpy(self->mem + x->addr, v, sizeof(v));
	desc_init(&o, NPU_OPERATOR_CUMSUM, &x, 1, x);
	RUN_OK(&o);
	memcpy(got, self->mem + x->addr, sizeof(got));
	EXPECT_EQ((1LL << 60) + 1, got[0]);
	EXPECT_EQ((1LL << 60) + 2, got[1]);
	EXPECT_EQ(2, got[2]);
}

/* a goes before b in a stable sort: strictly, NaN last either way */
static bool sort_ref_before(double a, double b, bool descending)
{
	if (isnan(a) || isnan(b))
		return !isnan(a);
	return descending ? a > b : a < b;
}

/* Positions of v[0..n) sorted stably: an insertion sort. */
static void sort_ref(const double *v, unsigned int n, bool descending, int64_t *pos)
{
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		for (j = i; j > 0 && sort_ref_before(v[i], v[pos[j - 1]], descending); j--)
			pos[j] = pos[j - 1];
		pos[j] = i;
	}
}

/* Stable either way, NaN last, the first k, along axis 0. */
TEST_F(oplib, sort_stable_descending_top_k)
{
	static const double keys[8] = { 3, 1, NAN, 3, -2, 1, 3, NAN };
	static const struct {
		const char *what;
		unsigned int descending, k, itype;
		int64_t want[8];
	} cases[] = {
		{ "ascending", 0, 8, NPU_DTYPE_S64, { 4, 1, 5, 0, 3, 6, 2, 7 } },
		{ "descending", 1, 8, NPU_DTYPE_S32, { 0, 3, 6, 1, 5, 4, 2, 7 } },
		{ "top 3", 1, 3, NPU_DTYPE_S32, { 0, 3, 6 } },
		{ "bottom 2", 0, 2, NPU_DTYPE_S64, { 4, 1 } },
	};
	unsigned int i, r, j;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		/* two columns, the second the first reversed */
		int64_t xd[2] = { 8, 2 }, yd[2] = { cases[i].k, 2 }, pos[8];
		double rev[8];
		struct tt *x, *y;
		struct desc o;
		double *want;

		arena_reset(self);
		self->step = cases[i].what;
		x = T(self, NPU_DTYPE_F16, 2, xd);
		y = T(self, cases[i].itype, 2, yd);
		for (r = 0; r < 8; r++) {
			rev[7 - r] = keys[r];
			x->v[2 * r] = keys[r];
			x->v[2 * (7 - r) + 1] = keys[r];
		}
		tt_put(self, x);
		desc_init(&o, NPU_OPERATOR_SORT, &x, 1, y);
		D(&o)->attrs.sort.descending = htole32(cases[i].descending);
		sort_ref(rev, 8, cases[i].descending, pos);
		want = want_alloc(y);
		for (j = 0; j < cases[i].k; j++) {
			want[2 * j] = cases[i].want[j];
			want[2 * j + 1] = pos[j];
		}
		RUN_OK(&o);
		EXPECT_EXACT(y, want);
		free(want);
	}
}

/* Long lines of few distinct keys, S32: stable against the reference. */
TEST_F(oplib, sort_long_lines)
{
	static const int64_t xd[2] = { 3, 1000 };
	int64_t pos[1000];
	struct tt *x, *y;
	struct desc o;
	double *want;
	unsigned int r, j, desc;

	x = T(self, NPU_DTYPE_S32, 2, xd);
	y = T(self, NPU_DTYPE_S64, 2, xd);
	for (j = 0; j < x->n; j++)
		x->v[j] = floor(rnd_uniform(self, -5, 5));
	tt_put(self, x);
	want = want_alloc(y);
	for (desc = 0; desc < 2; desc++) {
		self->step = desc ? "descending" : "ascending";
		desc_init(&o, NPU_OPERATOR_SORT, &x, 1, y);
		D(&o)->attrs.sort.axis = htole32(1);
		D(&o)->attrs.sort.descending = htole32(desc);
		for (r = 0; r < 3; r++) {
			sort_ref(x->v + r * 1000, 1000, desc, pos);
			for (j = 0; j < 1000; j++)
				want[r * 1000 + j] = pos[j];
		}
		RUN_OK(&o);
		EXPECT_EXACT(y, want);
	}
	free(want);
}

/* The first extreme of a line wins; a NaN is the extreme. */
TEST_F(oplib, reduce_argmax_argmin)
{
	static const int64_t xd[2] = { 3, 5 };
	static const double rows[3][5] = {
		{ 2, 7, 7, -1, -1 },
		{ 0, 0, 0, 0, 0 },
		{ 1, NAN, 9, NAN, -9 },
	};
	static const int64_t amax[3] = { 1, 0, 1 }, amin[3] = { 3, 0, 1 };
	struct tt *x, *y;
	struct desc o;
	double want[5];
	unsigned int r, c;

	x = T(self, NPU_DTYPE_F32, 2, xd);
	for (r = 0; r < 3; r++)
		for (c = 0; c < 5; c++)
			x->v[r * 5 + c] = rows[r][c];
	tt_put(self, x);
	y = T(self, NPU_DTYPE_S64, 2, DIMS_OF(3, 1));
	desc_init(&o, NPU_OPERATOR_REDUCE, &x, 1, y);
	D(&o)->attrs.reduce.axes = htole32(1 << 1);
	self->step = "argmax over rows";
	D(&o)->attrs.reduce.kind = htole32(NPU_REDUCE_ARGMAX);
	for (r = 0; r < 3; r++)
		want[r] = amax[r];
	RUN_OK(&o);
	EXPECT_EXACT(y, want);
	self->step = "argmin over rows";
	D(&o)->attrs.reduce.kind = htole32(NPU_REDUCE_ARGMIN);
	for (r = 0; r < 3; r++)
		want[r] = amin[r];
	RUN_OK(&o);
	EXPECT_EXACT(y, want);

	self->step = "argmax over columns, into s32";
	y = T(self, NPU_DTYPE_S32, 2, DIMS_OF(1, 5));
	desc_init(&o, NPU_OPERATOR_REDUCE, &x, 1, y);
	D(&o)->attrs.reduce.axes = htole32(1 << 0);
	D(&o)->attrs.reduce.kind = htole32(NPU_REDUCE_ARGMAX);
	{
		static const double cmax[5] = { 0, 2, 2, 2, 1 };

		RUN_OK(&o);
		EXPECT_EXACT(y, cmax);
	}
	self->step = "two axes, or a float y: refused";
	D(&o)->attrs.reduce.axes = htole32(3);
	D(&o)->tensors[1].dims[1] = htole64(1);
	EXPECT_EQ(NPU_ERR_OP_PARAM, oplib_check(D(&o), o.size, ARENA_SIZE));
	D(&o)->attrs.reduce.axes = htole32(1 << 0);
	D(&o)->tensors[1].dims[1] = htole64(5);
	D(&o)->tensors[1].dtype = htole16(NPU_DTYPE_F32);
	EXPECT_EQ(NPU_ERR_OPERATOR, oplib_check(D(&o), o.size, ARENA_SIZE));
}

/* What the descriptor checks refuse, before anything runs. */
TEST_F(oplib, index_and_order_reject)
{
	static const int64_t xd[2] = { 4, 3 };
	struct tt *x, *ind, *y, *in[2];
	struct desc o;

	x = T(self, NPU_DTYPE_F32, 2, xd);
	ind = T(self, NPU_DTYPE_S64, 2, xd);
	y = T(self, NPU_DTYPE_F32, 2, xd);
	in[0] = x;
	in[1] = ind;
	desc_init(&o, NPU_OPERATOR_GATHER_ELEMENTS, in, 2, y);
	EXPECT_EQ(NPU_ERR_NONE, oplib_check(D(&o), o.size, ARENA_SIZE));
	D(&o)->attrs.gather.axis = htole32(2);
	EXPECT_EQ(NPU_ERR_OP_PARAM, oplib_check(D(&o), o.size, ARENA_SIZE));
	D(&o)->attrs.gather.axis = 0;
	D(&o)->tensors[1].dtype = htole16(NPU_DTYPE_S16);
	EXPECT_EQ(NPU_ERR_OPERATOR, oplib_check(D(&o), o.size, ARENA_SIZE));

	in[0] = ind;
	in[1] = x;
	desc_init(&o, NPU_OPERATOR_SCATTER, in, 2, y);
	EXPECT_EQ(NPU_ERR_OP_PARAM, oplib_check(D(&o), o.size, ARENA_SIZE));
	D(&o)->attrs.scatter.mode = htole32(NPU_SCATTER_ELEMENTS);
	EXPECT_EQ(NPU_ERR_NONE, oplib_check(D(&o), o.size, ARENA_SIZE));
	D(&o)->attrs.scatter.reduce = htole32(3);
	EXPECT_EQ(NPU_ERR_OP_PARAM, oplib_check(D(&o), o.size, ARENA_SIZE));
	D(&o)->attrs.scatter.reduce = 0;
	D(&o)->attrs.scatter.rsvd = htole32(1);
	EXPECT_NE(NPU_ERR_NONE, oplib_check(D(&o), o.size, ARENA_SIZE));

	desc_init(&o, NPU_OPERATOR_SORT, &x, 1, ind);
	EXPECT_EQ(NPU_ERR_NONE, oplib_check(D(&o), o.size, ARENA_SIZE));
	D(&o)->attrs.sort.descending = htole32(2);
	EXPECT_EQ(NPU_ERR_OP_PARAM, oplib_check(D(&o), o.size, ARENA_SIZE));
	D(&o)->attrs.sort.descending = 0;
	D(&o)->tensors[1].dims[1] = htole64(2);
	EXPECT_EQ(NPU_ERR_OP_PARAM, oplib_check(D(&o), o.size, ARENA_SIZE));

	desc_init(&o, NPU_OPERATOR_CUMSUM, &x, 1, y);
	EXPECT_EQ(NPU_ERR_NONE, oplib_check(D(&o), o.size, ARENA_SIZE));
	D(&o)->attrs.cumsum.reverse = htole32(2);
	EXPECT_EQ(NPU_ERR_OP_PARAM, oplib_check(D(&o), o.size, ARENA_SIZE));
}

/*
 * Lines enough for both of the fixture's threads: each sorted line is a
 * permutation in order of key, then of position (stable); the running sums
 * and arg-maxima per line as the test adds them up.
 */
TEST_F(oplib, index_and_order_lines_on_threads)
{
	static const int64_t xd[2] = { 96, 2048 }, yd[2] = { 96, 1 };
	struct tt *x, *ind, *sum, *am;
	struct desc o;
	double *want;
	uint64_t r, j;

	x = T(self, NPU_DTYPE_S32, 2, xd);
	ind = T(self, NPU_DTYPE_S32, 2, xd);
	sum = T(self, NPU_DTYPE_S64, 2, xd);
	am = T(self, NPU_DTYPE_S64, 2, yd);
	for (j = 0; j < x->n; j++)
		x->v[j] = floor(rnd_uniform(self, -50, 50));
	tt_put(self, x);

	self->step = "sort";
	desc_init(&o, NPU_OPERATOR_SORT, &x, 1, ind);
	D(&o)->attrs.sort.axis = htole32(1);
	RUN_OK(&o);
	tt_get(self, ind, ind->v);
	for (r = 0; r < 96; r++) {
		const double *k = x->v + r * 2048, *p = ind->v + r * 2048;
		uint8_t seen[2048] = { 0 };

		for (j = 0; j < 2048; j++) {
			ASSERT_TRUE(p[j] >= 0 && p[j] < 2048 && !seen[(int)p[j]]) TH_LOG("line %llu", (unsigned long long)r);
			seen[(int)p[j]] = 1;
			if (j)
				ASSERT_TRUE(k[(int)p[j - 1]] < k[(int)p[j]] ||
					    (k[(int)p[j - 1]] == k[(int)p[j]] && p[j - 1] < p[j]))
					TH_LOG("line %llu, place %llu", (unsigned long long)r, (unsigned long long)j);
		}
	}

	self->step = "cumsum";
	desc_init(&o, NPU_OPERATOR_CUMSUM, &x, 1, sum);
	D(&o)->attrs.cumsum.axis = htole32(1);
	want = want_alloc(sum);
	for (r = 0; r < 96; r++)
		for (j = 0; j < 2048; j++)
			want[r * 2048 + j] = x->v[r * 2048 + j] + (j ? want[r * 2048 + j - 1] : 0);
	RUN_OK(&o);
	EXPECT_EXACT(sum, want);

	self->step = "argmax";
	desc_init(&o, NPU_OPERATOR_REDUCE, &x, 1, am);
	D(&o)->attrs.reduce.kind = htole32(NPU_REDUCE_ARGMAX);
	D(&o)->attrs.reduce.axes = htole32(1 << 1);
	for (r = 0; r < 96; r++) {
		want[r] = 0;
		for (j = 1; j < 2048; j++)
			if (x->v[r * 2048 + j] > x->v[r * 2048 + (int)want[r]])
				want[r] = j;
	}
	RUN_OK(&o);
	EXPECT_EXACT(am, want);
	free(want);
}

/* A sort of 64 Ki elements (one thread) asks once whether to go on, and stops. */
TEST_F(oplib, sort_stops_for_an_abandoned_operator)
{
	static const int64_t xd[2] = { 32, 2048 };
	struct engine_log l = { .resume = true, .abandon_after = 1 };
	struct oplib_hooks hooks = LOG_HOOKS(l);
	struct tt *x = T(self, NPU_DTYPE_F32, 2, xd), *y = T(self, NPU_DTYPE_S64, 2, xd);
	struct desc o;

	tt_fill(self, x, -1, 1);
	desc_init(&o, NPU_OPERATOR_SORT, &x, 1, y);
	D(&o)->attrs.sort.axis = htole32(1);
	ASSERT_EQ(OPLIB_ABORTED, run_with(self, self->lib, &o, &hooks));
	ASSERT_EQ(0, self->stray);
	EXPECT_EQ(1, l.asked);
	EXPECT_EQ(l.gets, l.puts);
}

/* Language model operators: rotary embedding, attention, im2col, solves */

/* y = x * cos + rotated(x) * sin, the pairing written out per mode. */
static double rope_ref(const struct tt *x, const struct tt *c, const struct tt *s,
		       uint64_t e, bool half)
{
	int64_t idx[NPU_TENSOR_MAX_DIMS], at[NPU_TENSOR_MAX_DIMS];
	int64_t d = x->dims[x->ndims - 1], i, lead = x->ndims - c->ndims, a;
	double rot;

	unravel(e, x->dims, x->ndims, idx);
	i = idx[x->ndims - 1];
	if (half)
		rot = i < d / 2 ? -x->v[e + d / 2] : x->v[e - d / 2];
	else
		rot = i % 2 ? x->v[e - 1] : -x->v[e + 1];
	for (a = 0; a < (int64_t)c->ndims; a++)
		at[a] = c->dims[a] == 1 ? 0 : idx[lead + a];
	return x->v[e] * c->v[ravel(at, c->dims, c->ndims)] +
	       rot * s->v[ravel(at, s->dims, s->ndims)];
}

/*
 * Both pairings; cos and sin per position broadcast over batch and heads
 * (stride 0 or dims of 1, of lower rank), x with gaps, halves, in place.
 */
TEST_F(oplib, rope)
{
	static const struct {
		const char *what;
		unsigned int dtype, rank, crank;
		int64_t dims[4], cdims[4];
		bool gaps, in_place;
	} cases[] = {
		{ "f32 (2,3,2,8), cos (1,3,1,8)", NPU_DTYPE_F32, 4, 4, { 2, 3, 2, 8 },
		  { 1, 3, 1, 8 } },
		{ "f32 gapped, cos (3,1,8)", NPU_DTYPE_F32, 4, 3, { 2, 3, 2, 8 }, { 3, 1, 8 },
		  true },
		{ "f16 (1,5,4,16), cos (5,1,16)", NPU_DTYPE_F16, 4, 3, { 1, 5, 4, 16 },
		  { 5, 1, 16 } },
		{ "bf16 (4,6), cos (4,6)", NPU_DTYPE_BF16, 2, 2, { 4, 6 }, { 4, 6 } },
		{ "f32 in place, cos (1,1,2)", NPU_DTYPE_F32, 3, 3, { 3, 4, 2 }, { 1, 1, 2 },
		  false, true },
	};
	unsigned int k, mode;

	for (k = 0; k < ARRAY_SIZE(cases); k++)
	for (mode = 0; mode < 2; mode++) {
		int64_t gapped[4], s = 1;
		struct tt *in[3], *y;
		struct desc o;
		double *want;
		uint64_t e;
		int d;

		arena_reset(self);
		snprintf(self->step_buf, sizeof(self->step_buf), "%s, mode %u",
			 cases[k].what, mode);
		self->step = self->step_buf;
		for (d = cases[k].rank - 1; d >= 0; d--) {
			gapped[d] = s;
			s *= cases[k].dims[d] + 1;
		}
		in[0] = tt_alloc(self, cases[k].dtype, 0, cases[k].rank, cases[k].dims,
				 cases[k].gaps ? gapped : NULL);
		in[1] = T(self, NPU_DTYPE_F32, cases[k].crank, cases[k].cdims);
		in[2] = T(self, cases[k].dtype, cases[k].crank, cases[k].cdims);
		tt_fill(self, in[0], -2, 2);
		tt_fill(self, in[1], -1, 1);
		tt_fill(self, in[2], -1, 1);
		y = cases[k].in_place ? in[0] : T(self, cases[k].dtype, cases[k].rank,
						  cases[k].dims);
		want = want_alloc(y);
		for (e = 0; e < y->n; e++)
			want[e] = rope_ref(in[0], in[1], in[2], e, mode == NPU_ROPE_HALF);
		desc_init(&o, NPU_OPERATOR_ROPE, in, 3, y);
		D(&o)->attrs.rope.mode = htole32(mode);
		RUN_OK(&o);
		EXPECT_OUTPUT(y, want);
		free(want);
	}
}

/* cos broadcast along an axis by a stride of 0, as a view of one row. */
TEST_F(oplib, rope_stride_zero_cos)
{
	static const int64_t dims[3] = { 2, 3, 4 }, row[1] = { 4 };
	struct tt *in[3], *y, *c, *sn;
	struct desc o;
	double want[24];
	uint64_t e;

	in[0] = T(self, NPU_DTYPE_F32, 3, dims);
	c = T(self, NPU_DTYPE_F32, 1, row);
	sn = T(self, NPU_DTYPE_F32, 1, row);
	y = T(self, NPU_DTYPE_F32, 3, dims);
	tt_fill(self, in[0], -1, 1);
	tt_fill(self, c, -1, 1);
	tt_fill(self, sn, -1, 1);
	for (e = 0; e < 24; e++)
		want[e] = rope_ref(in[0], c, sn, e, false);
	in[1] = c;
	in[2] = sn;
	desc_init(&o, NPU_OPERATOR_ROPE, in, 3, y);
	/* cos and sin seen as (2, 3, 4) with strides (0, 0, 1) */
	for (e = 1; e < 3; e++) {
		struct npu_tensor_desc *t = &D(&o)->tensors[e];

		t->ndims = htole16(3);
		t->dims[0] = htole64(2);
		t->dims[1] = htole64(3);
		t->dims[2] = htole64(4);
		t->strides[0] = 0;
		t->strides[1] = 0;
		t->strides[2] = htole64(1);
	}
	D(&o)->attrs.rope.mode = htole32(NPU_ROPE_INTERLEAVED);
	RUN_OK(&o);
	EXPECT_OUTPUT(y, want);
}

TEST_F(oplib, rope_rejects)
{
	static const int64_t odd[2] = { 2, 5 }, dims[2] = { 2, 6 }, wrong[2] = { 3, 6 };
	static const int64_t ok[1] = { 6 };
	struct tt *in[3], *y;
	struct desc o;

	in[0] = T(self, NPU_DTYPE_F32, 2, odd);
	in[1] = in[2] = T(self, NPU_DTYPE_F32, 2, odd);
	y = T(self, NPU_DTYPE_F32, 2, odd);
	desc_init(&o, NPU_OPERATOR_ROPE, in, 3, y);
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &o)) TH_LOG("odd last axis");

	in[0] = T(self, NPU_DTYPE_F32, 2, dims);
	in[1] = in[2] = T(self, NPU_DTYPE_F32, 2, wrong);
	y = T(self, NPU_DTYPE_F32, 2, dims);
	desc_init(&o, NPU_OPERATOR_ROPE, in, 3, y);
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &o)) TH_LOG("cos does not broadcast");

	in[1] = in[2] = T(self, NPU_DTYPE_F32, 1, ok);
	desc_init(&o, NPU_OPERATOR_ROPE, in, 3, y);
	D(&o)->attrs.rope.mode = htole32(2);
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &o)) TH_LOG("mode 2");
	D(&o)->attrs.rope.mode = 0;
	D(&o)->attrs.rope.rsvd = htole32(1);
	EXPECT_EQ(NPU_ERR_RESERVED, run(self, &o)) TH_LOG("rsvd");
	D(&o)->attrs.rope.rsvd = 0;
	ASSERT_EQ(NPU_ERR_NONE, run(self, &o));

	in[0] = T(self, NPU_DTYPE_S32, 2, dims);
	y = T(self, NPU_DTYPE_S32, 2, dims);
	desc_init(&o, NPU_OPERATOR_ROPE, in, 3, y);
	EXPECT_EQ(NPU_ERR_OPERATOR, run(self, &o)) TH_LOG("integers");
}

struct attention_case {
	const char *what;
	unsigned int dtype;
	int64_t b, n, nk, sq, sk, d, dv;
	/* mask dims (0: none), its kind and data type */
	int64_t mdims[4];
	unsigned int mkind, mdtype;
	bool bsnd;	/* q, k, v and y strided as (B, S, N, D) */
};

static const struct attention_case attention_cases[] = {
	{ "one head", NPU_DTYPE_F32, 1, 1, 1, 3, 5, 4, 4 },
	{ "grouped heads, keys over two blocks", NPU_DTYPE_F32, 2, 4, 2, 7, 300, 8, 6 },
	{ "query rows over two blocks, BSND", NPU_DTYPE_F32, 1, 2, 2, 70, 40, 16, 16,
	  { 0 }, 0, 0, true },
	{ "added mask broadcast over batch and heads", NPU_DTYPE_F32, 2, 2, 1, 5, 260, 8, 8,
	  { 1, 1, 5, 260 }, NPU_ATTENTION_MASK_ADD, NPU_DTYPE_F32 },
	{ "causal bool mask, f16", NPU_DTYPE_F16, 1, 2, 1, 9, 9, 8, 8,
	  { 1, 1, 9, 9 }, NPU_ATTENTION_MASK_BOOL, NPU_DTYPE_BOOL },
	{ "bool mask per key, a row all masked, bf16", NPU_DTYPE_BF16, 2, 2, 2, 4, 20, 8, 4,
	  { 2, 1, 4, 20 }, NPU_ATTENTION_MASK_BOOL, NPU_DTYPE_U8 },
	{ "f16 mask added to bf16", NPU_DTYPE_BF16, 1, 3, 1, 2, 33, 8, 8,
	  { 1, 3, 1, 33 }, NPU_ATTENTION_MASK_ADD, NPU_DTYPE_F16 },
	{ "decoding: one query, 4096 keys", NPU_DTYPE_F32, 1, 2, 1, 1, 4096, 64, 64 },
};

static struct tt *attention_tensor(FIXTURE_DATA(oplib) *self, unsigned int dtype,
				   int64_t b, int64_t n, int64_t s, int64_t d, bool bsnd)
{
	int64_t dims[4] = { b, n, s, d }, strides[4] = { s * n * d, d, n * d, 1 };

	return tt_alloc(self, dtype, 0, 4, dims, bsnd ? strides : NULL);
}

/* The mask's value at (b, h, i, j), as broadcast. */
static double attention_mask_at(const struct tt *m, int64_t b, int64_t h, int64_t i,
				int64_t j)
{
	int64_t at[4] = { b, h, i, j };
	unsigned int d;

	for (d = 0; d < 4; d++)
		if (m->dims[d] == 1)
			at[d] = 0;
	return m->v[ravel(at, m->dims, 4)];
}

/* Naive softmax attention in double, a whole row of scores at a time. */
static void attention_ref(const struct attention_case *k, float scale, struct tt *const *in,
			  double *want)
{
	const struct tt *q = in[0], *kt = in[1], *v = in[2], *m = k->mdims[0] ? in[3] : NULL;
	double *row = calloc(k->sk, sizeof(double));
	int64_t b, h, i, j, e;

	for (b = 0; b < k->b; b++)
	for (h = 0; h < k->n; h++)
	for (i = 0; i < k->sq; i++) {
		int64_t kh = h / (k->n / k->nk);
		double top = -INFINITY, sum = 0;

		for (j = 0; j < k->sk; j++) {
			double s = 0;

			for (e = 0; e < k->d; e++)
				s += q->v[((b * k->n + h) * k->sq + i) * k->d + e] *
				     kt->v[((b * k->nk + kh) * k->sk + j) * k->d + e];
			s *= scale;
			if (m && k->mkind == NPU_ATTENTION_MASK_ADD)
				s += attention_mask_at(m, b, h, i, j);
			else if (m && attention_mask_at(m, b, h, i, j) != 0)
				s = -INFINITY;
			row[j] = s;
			if (s > top)
				top = s;
		}
		for (j = 0; j < k->sk; j++) {
			row[j] = top == -INFINITY ? 0 : exp(row[j] - top);
			sum += row[j];
		}
		for (e = 0; e < k->dv; e++) {
			double acc = 0;

			for (j = 0; j < k->sk; j++)
				acc += row[j] * v->v[((b * k->nk + kh) * k->sk + j) * k->dv + e];
			want[((b * k->n + h) * k->sq + i) * k->dv + e] = sum ? acc / sum : 0;
		}
	}
	free(row);
}

static void attention_mask_fill(FIXTURE_DATA(oplib) *self, const struct attention_case *k,
				struct tt *m)
{
	int64_t idx[4];
	uint64_t e;

	if (k->mkind == NPU_ATTENTION_MASK_ADD) {
		tt_fill(self, m, -3, 1);
		return;
	}
	for (e = 0; e < m->n; e++) {
		unravel(e, m->dims, 4, idx);
		if (m->dims[3] == m->dims[2])	/* causal */
			m->v[e] = idx[3] > idx[2];
		else				/* batch 1's row 2 left with nothing */
			m->v[e] = (idx[0] == 1 && idx[2] == 2) || rnd_uniform(self, 0, 1) < 0.3;
	}
	tt_put(self, m);
}

/*
 * Against the naive definition: grouped heads, blocks of keys and of
 * query rows crossed, masks added and left out with broadcasts, the half
 * types, a row with no score (0), a strided BSND layout, a long decode.
 */
TEST_F(oplib, attention)
{
	unsigned int c;

	for (c = 0; c < ARRAY_SIZE(attention_cases); c++) {
		const struct attention_case *k = &attention_cases[c];
		float scale = 1 / sqrt((double)k->d);
		struct tt *in[4], *y;
		unsigned int nin = 3;
		struct desc o;
		double *want;

		arena_reset(self);
		self->step = k->what;
		in[0] = attention_tensor(self, k->dtype, k->b, k->n, k->sq, k->d, k->bsnd);
		in[1] = attention_tensor(self, k->dtype, k->b, k->nk, k->sk, k->d, k->bsnd);
		in[2] = attention_tensor(self, k->dtype, k->b, k->nk, k->sk, k->dv, k->bsnd);
		y = attention_tensor(self, k->dtype, k->b, k->n, k->sq, k->dv, k->bsnd);
		tt_fill(self, in[0], -1, 1);
		tt_fill(self, in[1], -1, 1);
		tt_fill(self, in[2], -1, 1);
		if (k->mdims[0]) {
			in[nin] = T(self, k->mdtype, 4, k->mdims);
			attention_mask_fill(self, k, in[nin]);
			nin++;
		}
		want = want_alloc(y);
		attention_ref(k, scale, in, want);
		desc_init(&o, NPU_OPERATOR_ATTENTION, in, nin, y);
		D(&o)->attrs.attention.scale = F(scale);
		D(&o)->attrs.attention.mask = htole32(k->mkind);
		RUN_OK(&o);
		EXPECT_OUTPUT(y, want);
		free(want);
	}
}

/* A mask of one row seen through strides of 0 over batch, heads and queries. */
TEST_F(oplib, attention_stride_zero_mask)
{
	const struct attention_case k = { "row mask", NPU_DTYPE_F32, 2, 2, 2, 3, 10, 4, 4,
					  { 1, 1, 1, 10 }, NPU_ATTENTION_MASK_ADD };
	struct tt *in[4], *y;
	struct npu_tensor_desc *t;
	struct desc o;
	double *want;
	unsigned int d;

	in[0] = attention_tensor(self, k.dtype, 2, 2, 3, 4, false);
	in[1] = attention_tensor(self, k.dtype, 2, 2, 10, 4, false);
	in[2] = attention_tensor(self, k.dtype, 2, 2, 10, 4, false);
	in[3] = T(self, NPU_DTYPE_F32, 4, k.mdims);
	y = attention_tensor(self, k.dtype, 2, 2, 3, 4, false);
	tt_fill(self, in[0], -1, 1);
	tt_fill(self, in[1], -1, 1);
	tt_fill(self, in[2], -1, 1);
	tt_fill(self, in[3], -2, 0);
	want = want_alloc(y);
	attention_ref(&k, 0.5f, in, want);
	desc_init(&o, NPU_OPERATOR_ATTENTION, in, 4, y);
	t = &D(&o)->tensors[3];
	for (d = 0; d < 3; d++) {
		static const int64_t full[3] = { 2, 2, 3 };

		t->dims[d] = htole64(full[d]);
		t->strides[d] = 0;
	}
	D(&o)->attrs.attention.scale = F(0.5f);
	RUN_OK(&o);
	EXPECT_OUTPUT(y, want);
	free(want);
}

TEST_F(oplib, attention_rejects)
{
	static const int64_t q3[4] = { 1, 3, 2, 4 }, k2[4] = { 1, 2, 5, 4 };
	static const int64_t q2[4] = { 1, 2, 2, 4 }, bad_mask[4] = { 1, 1, 2, 4 };
	struct tt *in[4], *y;
	struct desc o;

	in[0] = T(self, NPU_DTYPE_F32, 4, q3);
	in[1] = in[2] = T(self, NPU_DTYPE_F32, 4, k2);
	y = T(self, NPU_DTYPE_F32, 4, q3);
	desc_init(&o, NPU_OPERATOR_ATTENTION, in, 3, y);
	D(&o)->attrs.attention.scale = F(1);
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &o)) TH_LOG("3 heads over 2 key heads");

	in[0] = T(self, NPU_DTYPE_F32, 4, q2);
	y = T(self, NPU_DTYPE_F32, 4, q2);
	desc_init(&o, NPU_OPERATOR_ATTENTION, in, 3, y);
	D(&o)->attrs.attention.scale = F(1);
	ASSERT_EQ(NPU_ERR_NONE, run(self, &o));
	D(&o)->attrs.attention.mask = htole32(NPU_ATTENTION_MASK_BOOL);
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &o)) TH_LOG("a mask kind without a mask");
	D(&o)->attrs.attention.mask = 0;
	D(&o)->attrs.attention.rsvd2 = htole32(1);
	EXPECT_EQ(NPU_ERR_RESERVED, run(self, &o)) TH_LOG("rsvd2");
	D(&o)->attrs.attention.rsvd2 = 0;
	D(&o)->attrs.attention.rsvd = htole32(1);
	EXPECT_EQ(NPU_ERR_RESERVED, run(self, &o)) TH_LOG("rsvd");
	D(&o)->attrs.attention.rsvd = 0;
	D(&o)->attrs.attention.scale = F(NAN);
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &o)) TH_LOG("NaN scale");

	in[3] = T(self, NPU_DTYPE_F32, 4, bad_mask);
	desc_init(&o, NPU_OPERATOR_ATTENTION, in, 4, y);
	D(&o)->attrs.attention.scale = F(1);
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &o)) TH_LOG("mask of 4 keys for 5");
	in[3] = T(self, NPU_DTYPE_S32, 4, (const int64_t[4]){ 1, 1, 2, 5 });
	desc_init(&o, NPU_OPERATOR_ATTENTION, in, 4, y);
	D(&o)->attrs.attention.scale = F(1);
	EXPECT_EQ(NPU_ERR_OPERATOR, run(self, &o)) TH_LOG("an integer mask added");
	D(&o)->attrs.attention.mask = htole32(NPU_ATTENTION_MASK_BOOL);
	EXPECT_EQ(NPU_ERR_NONE, run(self, &o)) TH_LOG("an integer mask as bool");
	D(&o)->attrs.attention.mask = htole32(2);
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &o)) TH_LOG("mask kind 2");

	desc_init(&o, NPU_OPERATOR_ATTENTION, in, 3, in[0]);
	D(&o)->attrs.attention.scale = F(1);
	EXPECT_EQ(NPU_ERR_NONE, run(self, &o)) TH_LOG("y is q");
	desc_init(&o, NPU_OPERATOR_ATTENTION, in, 3, y);
	D(&o)->attrs.attention.scale = F(1);
	D(&o)->tensors[3].addr = htole64(in[1]->addr);
	D(&o)->tensors[3].dims[2] = htole64(2);
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &o)) TH_LOG("y over k");
	D(&o)->tensors[3].addr = htole64(in[0]->addr + 4);
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &o)) TH_LOG("y over q, shifted");

	in[0] = T(self, NPU_DTYPE_S32, 4, q2);
	in[1] = in[2] = T(self, NPU_DTYPE_S32, 4, k2);
	y = T(self, NPU_DTYPE_S32, 4, q2);
	desc_init(&o, NPU_OPERATOR_ATTENTION, in, 3, y);
	EXPECT_EQ(NPU_ERR_OPERATOR, run(self, &o)) TH_LOG("integers");
}

struct im2col_case {
	const char *what;
	unsigned int dtype;
	int64_t n, c, h, w;
	uint32_t kernel[2], stride[2], pad[2], dilation[2];
};

/* y (n, c * kh * kw, L) from the definition of unfold. */
static void im2col_ref(const struct im2col_case *k, const struct tt *x, int64_t oh,
		       int64_t ow, double *want)
{
	int64_t n, c, i, j, p, q, row, at = 0;

	for (n = 0; n < k->n; n++)
	for (c = 0; c < k->c; c++)
	for (i = 0; i < k->kernel[0]; i++)
	for (j = 0; j < k->kernel[1]; j++) {
		row = (c * k->kernel[0] + i) * k->kernel[1] + j;
		for (p = 0; p < oh; p++)
		for (q = 0; q < ow; q++) {
			int64_t h = p * k->stride[0] - (int64_t)k->pad[0] + i * k->dilation[0];
			int64_t w = q * k->stride[1] - (int64_t)k->pad[1] + j * k->dilation[1];
			bool in = h >= 0 && h < k->h && w >= 0 && w < k->w;

			at = (n * k->c * k->kernel[0] * k->kernel[1] + row) * oh * ow + p * ow + q;
			want[at] = in ? x->v[((n * k->c + c) * k->h + h) * k->w + w] : 0;
		}
	}
}

TEST_F(oplib, im2col)
{
	static const struct im2col_case cases[] = {
		{ "3x3 dense", NPU_DTYPE_F32, 1, 2, 5, 6, { 3, 3 }, { 1, 1 }, { 0, 0 }, { 1, 1 } },
		{ "padded, strided", NPU_DTYPE_F32, 2, 3, 7, 5, { 3, 2 }, { 2, 1 }, { 1, 2 },
		  { 1, 1 } },
		{ "dilated, f16", NPU_DTYPE_F16, 1, 1, 9, 8, { 2, 3 }, { 1, 3 }, { 0, 1 },
		  { 3, 2 } },
		{ "1x1, bf16", NPU_DTYPE_BF16, 1, 4, 3, 3, { 1, 1 }, { 2, 2 }, { 0, 0 }, { 1, 1 } },
		{ "s32 moved as is", NPU_DTYPE_S32, 1, 2, 4, 4, { 2, 2 }, { 2, 2 }, { 1, 1 },
		  { 1, 1 } },
	};
	unsigned int c, a;

	for (c = 0; c < ARRAY_SIZE(cases); c++) {
		const struct im2col_case *k = &cases[c];
		int64_t xd[4] = { k->n, k->c, k->h, k->w }, yd[3], oh, ow;
		struct tt *x, *y;
		struct desc o;
		double *want;

		arena_reset(self);
		self->step = k->what;
		oh = (k->h + 2 * k->pad[0] - k->dilation[0] * (k->kernel[0] - 1) - 1) /
		     k->stride[0] + 1;
		ow = (k->w + 2 * k->pad[1] - k->dilation[1] * (k->kernel[1] - 1) - 1) /
		     k->stride[1] + 1;
		yd[0] = k->n;
		yd[1] = k->c * k->kernel[0] * k->kernel[1];
		yd[2] = oh * ow;
		x = T(self, k->dtype, 4, xd);
		y = T(self, k->dtype, 3, yd);
		tt_fill(self, x, -100, 100);
		want = want_alloc(y);
		im2col_ref(k, x, oh, ow, want);
		desc_init(&o, NPU_OPERATOR_IM2COL, &x, 1, y);
		for (a = 0; a < 2; a++) {
			D(&o)->attrs.im2col.kernel[a] = htole32(k->kernel[a]);
			D(&o)->attrs.im2col.stride[a] = htole32(k->stride[a]);
			D(&o)->attrs.im2col.pad[a] = htole32(k->pad[a]);
			D(&o)->attrs.im2col.dilation[a] = htole32(k->dilation[a]);
		}
		RUN_OK(&o);
		EXPECT_EXACT(y, want);
		if (c == 1) {
			D(&o)->tensors[1].dims[2] = htole64(oh * ow - 1);
			EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &o)) TH_LOG("one column short");
			D(&o)->tensors[1].dims[2] = htole64(oh * ow);
			D(&o)->attrs.im2col.stride[0] = 0;
			EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &o)) TH_LOG("stride 0");
			D(&o)->attrs.im2col.stride[0] = htole32(k->stride[0]);
			D(&o)->attrs.im2col.kernel[0] = htole32(20);
			EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &o)) TH_LOG("kernel past x");
		}
		free(want);
	}
}

/* a's entry (i, j) as the solve sees it: its triangle, the unit diagonal. */
static double trisolve_entry(const struct tt *a, int64_t batch, int64_t n, uint32_t flags,
			     int64_t i, int64_t j)
{
	bool upper = flags & NPU_TRISOLVE_UPPER;
	int64_t r = i, c = j;

	if (flags & NPU_TRISOLVE_TRANSPOSE) {
		r = j;
		c = i;
	}
	if (r == c && (flags & NPU_TRISOLVE_UNIT))
		return 1;
	if (upper ? c < r : c > r)
		return 0;
	return a->v[(batch * n + r) * n + c];
}

/*
 * Every combination of upper, transposed and unit, a's batch broadcast
 * over b's, the other triangle of a filled with values that must not be
 * read; checked by multiplying back: a x = b.
 */
TEST_F(oplib, trisolve)
{
	static const int64_t ad[3] = { 1, 5, 5 }, bd[3] = { 3, 5, 2 };
	uint32_t flags;

	for (flags = 0; flags < 8; flags++) {
		struct tt *in[2], *x;
		double *got;
		struct desc o;
		int64_t m, i, j, c, n = 5;

		arena_reset(self);
		snprintf(self->step_buf, sizeof(self->step_buf), "flags %u", flags);
		self->step = self->step_buf;
		in[0] = T(self, NPU_DTYPE_F32, 3, ad);
		in[1] = T(self, NPU_DTYPE_F32, 3, bd);
		x = T(self, NPU_DTYPE_F32, 3, bd);
		tt_fill(self, in[0], -0.5, 0.5);
		for (i = 0; i < n; i++)
			in[0]->v[i * n + i] = 2 + i;
		tt_put(self, in[0]);
		tt_fill(self, in[1], -3, 3);
		desc_init(&o, NPU_OPERATOR_TRISOLVE, in, 2, x);
		D(&o)->attrs.trisolve.flags = htole32(flags);
		RUN_OK(&o);
		got = want_alloc(x);
		tt_get(self, x, got);
		for (m = 0; m < 3; m++)
		for (i = 0; i < n; i++)
		for (c = 0; c < 2; c++) {
			double sum = 0;

			for (j = 0; j < n; j++)
				sum += trisolve_entry(in[0], 0, n, flags, i, j) *
				       got[(m * n + j) * 2 + c];
			EXPECT_TRUE(close_enough(sum, in[1]->v[(m * n + i) * 2 + c], 1e-5, 1e-5))
				TH_LOG("flags %u, batch %lld row %lld col %lld: %g, want %g",
				       flags, (long long)m, (long long)i, (long long)c, sum,
				       in[1]->v[(m * n + i) * 2 + c]);
		}
		free(got);
	}
}

/* x is b: each column read whole before it is written. */
TEST_F(oplib, trisolve_in_place_and_rejects)
{
	static const int64_t ad[2] = { 3, 3 }, bd[2] = { 3, 1 }, wrong[2] = { 4, 1 };
	static const double a[9] = { 2, 0, 0, 1, 4, 0, -1, 2, 8 };
	struct tt *in[2];
	struct desc o;
	double want[3];

	in[0] = T(self, NPU_DTYPE_F32, 2, ad);
	in[1] = T(self, NPU_DTYPE_F32, 2, bd);
	memcpy(in[0]->v, a, sizeof(a));
	tt_put(self, in[0]);
	in[1]->v[0] = 2;
	in[1]->v[1] = 9;
	in[1]->v[2] = 15;
	tt_put(self, in[1]);
	/* 2 x0 = 2; x0 + 4 x1 = 9; -x0 + 2 x1 + 8 x2 = 15 */
	want[0] = 1;
	want[1] = 2;
	want[2] = 1.5;
	desc_init(&o, NPU_OPERATOR_TRISOLVE, in, 2, in[1]);
	RUN_OK(&o);
	EXPECT_CLOSE(in[1], want, 1e-6, 1e-6);

	D(&o)->attrs.trisolve.flags = htole32(8);
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &o)) TH_LOG("flag 8");
	D(&o)->attrs.trisolve.flags = 0;
	D(&o)->attrs.trisolve.rsvd = htole32(1);
	EXPECT_EQ(NPU_ERR_RESERVED, run(self, &o)) TH_LOG("rsvd");
	in[1] = T(self, NPU_DTYPE_F32, 2, wrong);
	desc_init(&o, NPU_OPERATOR_TRISOLVE, in, 2, in[1]);
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &o)) TH_LOG("4 rows for 3");
	in[0] = T(self, NPU_DTYPE_S32, 2, ad);
	in[1] = T(self, NPU_DTYPE_S32, 2, bd);
	desc_init(&o, NPU_OPERATOR_TRISOLVE, in, 2, in[1]);
	EXPECT_EQ(NPU_ERR_OPERATOR, run(self, &o)) TH_LOG("integers");
}

/*
 * A long attention asks whether it is abandoned before each block of keys
 * and stops there, its helper thread with it, having written nothing
 * outside its output.
 */
TEST_F(oplib, attention_abandoned_between_blocks_of_keys)
{
	static const int64_t qd[4] = { 1, 4, 64, 16 }, kd[4] = { 1, 1, 4096, 16 };
	struct engine_log l = { .resume = true, .abandon_after = 3 };
	struct oplib_hooks hooks = LOG_HOOKS(l);
	struct tt *in[3], *y;
	struct desc o;

	in[0] = T(self, NPU_DTYPE_F32, 4, qd);
	in[1] = T(self, NPU_DTYPE_F32, 4, kd);
	in[2] = T(self, NPU_DTYPE_F32, 4, kd);
	y = T(self, NPU_DTYPE_F32, 4, qd);
	tt_fill(self, in[0], -1, 1);
	tt_fill(self, in[1], -1, 1);
	tt_fill(self, in[2], -1, 1);
	desc_init(&o, NPU_OPERATOR_ATTENTION, in, 3, y);
	D(&o)->attrs.attention.scale = F(0.25f);
	ASSERT_EQ(OPLIB_ABORTED, run_with(self, self->lib, &o, &hooks));
	ASSERT_EQ(0, self->stray);
	EXPECT_EQ(3, l.asked);
	EXPECT_EQ(l.gets, l.puts);

	memset(&l, 0, sizeof(l));
	l.resume = true;
	ASSERT_EQ(NPU_ERR_NONE, run_with(self, self->lib, &o, &hooks));
	EXPECT_LE(1, l.asked);
	EXPECT_EQ(l.gets, l.puts);
}

/* QMATMUL: products over 8- and 4-bit weights, dequantised on the card */

struct qmm_case {
	const char *what;
	unsigned int xdt, sdt;	/* x's and y's type; scale's and offset's */
	unsigned int bits;
	bool trans;		/* w given as (N, K) */
	bool strided;		/* w (K, N) as a transposed view, K contiguous */
	uint32_t group;
	bool offset;
	int64_t batch, m, k, n;
	bool scale_1d;		/* scale (N), group 0 */
};

static const struct qmm_case qmm_cases[] = {
	{ "int8 per channel, scale (N)", NPU_DTYPE_F32, NPU_DTYPE_F32, 8, false, false, 0, false, 1, 3, 40, 70, true },
	{ "int8 (N, K) groups of 32, offset, f16", NPU_DTYPE_F16, NPU_DTYPE_F16, 8, true, false, 32, true, 2, 3, 96, 24 },
	{ "int8 transposed view, as ggml's q8_0", NPU_DTYPE_F16, NPU_DTYPE_F16, 8, false, true, 32, false, 1, 5, 128, 66 },
	{ "int4 (N, K) groups of 32 over slices, bf16", NPU_DTYPE_BF16, NPU_DTYPE_BF16, 4, true, false, 32, true, 1, 4, 1100, 130 },
	{ "int4 (K, N) per channel", NPU_DTYPE_F32, NPU_DTYPE_F32, 4, false, false, 0, true, 1, 2, 24, 18 },
	{ "int4 (N, K) odd groups", NPU_DTYPE_F32, NPU_DTYPE_F16, 4, true, false, 5, false, 1, 3, 22, 9 },
	{ "int8 one row, wide", NPU_DTYPE_F32, NPU_DTYPE_F32, 8, true, false, 64, true, 1, 1, 640, 300 },
};

/* A 4-bit value's bits in a byte; the byte as the S8 it is stored as. */
static double qmm_pack(double lo, double hi)
{
	return (int8_t)(((int)lo & 15) | (((int)hi & 15) << 4));
}

/*
 * The weights as integers, vals[k * n + n]: random in the bit width's range,
 * then packed into w as the descriptor describes it.
 */
static void qmm_weights(FIXTURE_DATA(oplib) *self, const struct qmm_case *c,
			struct tt *w, double *vals)
{
	double lo = c->bits == 4 ? -8 : -128, hi = c->bits == 4 ? 7 : 127;
	int64_t k, n, i;

	for (i = 0; i < c->k * c->n; i++)
		vals[i] = floor(rnd_uniform(self, lo, hi + 0.999));
	for (k = 0; k < c->k; k++) {
		for (n = 0; n < c->n; n++) {
			double v = vals[k * c->n + n];

			if (c->bits == 8 && c->trans)
				w->v[n * c->k + k] = v;
			else if (c->bits == 8)
				w->v[k * c->n + n] = v;
			else if (c->trans && !(k & 1))
				w->v[n * (c->k / 2) + k / 2] =
					qmm_pack(v, vals[(k + 1) * c->n + n]);
			else if (!c->trans && !(n & 1))
				w->v[k * (c->n / 2) + n / 2] =
					qmm_pack(v, vals[k * c->n + n + 1]);
		}
	}
	tt_put(self, w);
}

static struct tt *qmm_weight_tensor(FIXTURE_DATA(oplib) *self,
				    const struct qmm_case *c)
{
	int64_t per = c->bits == 4 ? 2 : 1;
	int64_t dims[2] = { c->k, c->n / per }, tdims[2] = { c->n, c->k / per };
	int64_t strides[2] = { 1, c->k };

	if (c->trans)
		return T(self, NPU_DTYPE_S8, 2, tdims);
	return tt_alloc(self, NPU_DTYPE_S8, 0, 2, dims, c->strided ? strides : NULL);
}

/* The descriptor of case c over fresh tensors; *want its y. */
static void qmm_build(FIXTURE_DATA(oplib) *self, const struct qmm_case *c,
		      struct desc *o, double **want)
{
	uint32_t groups = c->group ? (c->k + c->group - 1) / c->group : 1;
	int64_t xd[3] = { c->batch, c->m, c->k }, yd[3] = { c->batch, c->m, c->n };
	int64_t sd[2] = { groups, c->n }, sn[1] = { c->n };
	struct tt *in[4], *y;
	double *vals = calloc(c->k * c->n, sizeof(double));
	struct npu_attr_qmatmul *a;
	unsigned int nin = c->offset ? 4 : 3, i;
	int64_t e, j;

	in[0] = T(self, c->xdt, 3, xd);
	in[1] = qmm_weight_tensor(self, c);
	for (i = 2; i < nin; i++)
		in[i] = c->scale_1d ? T(self, c->sdt, 1, sn) : T(self, c->sdt, 2, sd);
	y = T(self, c->xdt, 3, yd);
	tt_fill(self, in[0], -1, 1);
	qmm_weights(self, c, in[1], vals);
	tt_fill(self, in[2], 0.005, 0.05);
	if (c->offset)
		tt_fill(self, in[3], -4, 4);
	desc_init(o, NPU_OPERATOR_QMATMUL, in, nin, y);
	a = &D(o)->attrs.qmatmul;
	a->group = htole32(c->group);
	a->bits = htole32(c->bits);
	a->trans_w = htole32(c->trans);

	*want = want_alloc(y);
	for (e = 0; e < (int64_t)y->n; e++) {
		int64_t row = e / c->n, n = e % c->n;
		double acc = 0;

		for (j = 0; j < c->k; j++) {
			int64_t g = (c->group ? j / c->group : 0) * c->n + n;
			double off = c->offset ? in[3]->v[g] : 0;

			acc += in[0]->v[row * c->k + j] *
			       (vals[j * c->n + n] + off) * in[2]->v[g];
		}
		(*want)[e] = acc;
	}
	free(vals);
}

TEST_F(oplib, qmatmul)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(qmm_cases); i++) {
		const struct qmm_case *c = &qmm_cases[i];
		struct desc o;
		double *want;

		arena_reset(self);
		self->step = c->what;
		qmm_build(self, c, &o, &want);
		RUN_OK(&o);
		EXPECT_CLOSE(o.out, want, c->xdt == NPU_DTYPE_F32 ? 1e-4 : 1e-2,
			     c->xdt == NPU_DTYPE_F32 ? 1e-3 : 2e-2);
		free(want);
	}
}

/* What the card refuses of a QMATMUL, y untouched. */
TEST_F(oplib, qmatmul_rejects)
{
	const struct qmm_case *c = &qmm_cases[1];
	struct npu_op_desc *d;
	struct desc o;
	double *want;

	qmm_build(self, c, &o, &want);
	free(want);
	d = D(&o);
	d->attrs.qmatmul.bits = htole32(6);
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &o));
	d->attrs.qmatmul.bits = htole32(8);
	d->attrs.qmatmul.trans_w = htole32(2);
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &o));
	d->attrs.qmatmul.trans_w = htole32(0);
	/* (N, K) read as (K, N) */
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &o));
	d->attrs.qmatmul.trans_w = htole32(1);
	d->attrs.qmatmul.rsvd = htole32(1);
	EXPECT_EQ(NPU_ERR_RESERVED, run(self, &o));
	d->attrs.qmatmul.rsvd = 0;
	d->attrs.qmatmul.group = htole32(c->k + 1);
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &o));
	/* groups of 48: two rows of scale, not three */
	d->attrs.qmatmul.group = htole32(48);
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &o));
	d->attrs.qmatmul.group = htole32(c->group);
	d->tensors[1].dtype = htole16(NPU_DTYPE_U8);
	EXPECT_EQ(NPU_ERR_OPERATOR, run(self, &o));
	d->tensors[1].dtype = htole16(NPU_DTYPE_S8);
	d->tensors[3].dtype = htole16(NPU_DTYPE_BF16);
	EXPECT_EQ(NPU_ERR_OPERATOR, run(self, &o));
	d->tensors[3].dtype = htole16(NPU_DTYPE_F16);
	d->tensors[4].dtype = htole16(NPU_DTYPE_F32);
	EXPECT_EQ(NPU_ERR_OPERATOR, run(self, &o));
	d->tensors[4].dtype = htole16(NPU_DTYPE_F16);
	d->tensors[4].dims[2] = htole64(c->n - 1);
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &o));
	d->tensors[4].dims[2] = htole64(c->n);
	ASSERT_EQ(NPU_ERR_NONE, run(self, &o));
	ASSERT_EQ(0, self->stray);
}

/* A long product asks between tiles whether it is abandoned. */
TEST_F(oplib, qmatmul_stops_for_an_abandoned_operator)
{
	const struct qmm_case *c = &qmm_cases[3];
	/* asked before the first tile: y untouched */
	struct engine_log l = { .resume = true, .abandon_after = 1 };
	struct oplib_hooks hooks = LOG_HOOKS(l);
	struct desc o;
	double *want;

	qmm_build(self, c, &o, &want);
	free(want);
	ASSERT_EQ(OPLIB_ABORTED, run_with(self, self->lib, &o, &hooks));
	ASSERT_EQ(0, self->stray);
	EXPECT_EQ(1, l.asked);
	EXPECT_EQ(1, l.puts);
}
/* F64 and exact integer reductions: loops in double and in int64 */

/*
 * Values a float32 cannot hold (1 + 2^-40 is 1 to it), so that a card
 * computing in float would miss the want by far more than the tolerance.
 */
static void tt_fill_fine(FIXTURE_DATA(oplib) *self, struct tt *t, double lo, double hi)
{
	uint64_t i;

	for (i = 0; i < t->n; i++)
		t->v[i] = rnd_uniform(self, lo, hi) + 0x1p-40 * (double)(i % 7 + 1);
	tt_put(self, t);
}

/* Every function in double, on a strided x. */
TEST_F(oplib, f64_unary_every_function)
{
	static const int64_t dims[2] = { 4, 6 }, gaps[2] = { 9, 1 };
	unsigned int kind;

	for (kind = 0; kind <= NPU_UNARY_LAST; kind++) {
		struct tt *x, *y;
		float alpha, beta;
		double lo, hi, *want;
		struct desc o;
		uint64_t e;

		snprintf(self->step_buf, sizeof(self->step_buf), "function %u", kind);
		self->step = self->step_buf;
		arena_reset(self);
		x = tt_alloc(self, NPU_DTYPE_F64, NPU_FORMAT_STRIDED, 2, dims, gaps);
		y = T(self, NPU_DTYPE_F64, 2, dims);
		unary_range(kind, &lo, &hi);
		tt_fill_fine(self, x, lo, hi);
		desc_init(&o, NPU_OPERATOR_UNARY, &x, 1, y);
		act_params(kind, &alpha, &beta);
		D(&o)->attrs.unary.fn = act(kind, alpha, beta);
		want = want_alloc(y);
		for (e = 0; e < y->n; e++)
			want[e] = act_ref(kind, alpha, beta, x->v[e]);
		RUN_OK(&o);
		/* GELU_TANH's constant is written to 10 digits */
		EXPECT_CLOSE(y, want, 1e-10, 1e-12);
		free(want);
	}
}

/* Arithmetic and comparisons in double, broadcast, one source F32. */
TEST_F(oplib, f64_binary)
{
	static const int64_t a_dims[2] = { 3, 5 }, b_dims[2] = { 1, 5 };
	unsigned int kind;

	for (kind = 0; kind <= NPU_BINARY_LAST; kind++) {
		bool cmp = kind >= NPU_BINARY_EQ;
		struct tt *in[2], *y;
		double *want;
		struct desc o;
		uint64_t e;

		snprintf(self->step_buf, sizeof(self->step_buf), "kind %u", kind);
		self->step = self->step_buf;
		arena_reset(self);
		in[0] = T(self, NPU_DTYPE_F64, 2, a_dims);
		in[1] = T(self, cmp ? NPU_DTYPE_F64 : NPU_DTYPE_F32, 2, b_dims);
		y = T(self, cmp ? NPU_DTYPE_BOOL : NPU_DTYPE_F64, 2, a_dims);
		tt_fill_fine(self, in[0], 0.5, 2);
		tt_fill(self, in[1], 0.5, 2);
		/* equal but for bits float32 has not */
		in[0]->v[1] = in[1]->v[1] + (cmp ? 0x1p-40 : 0);
		in[0]->v[6] = in[1]->v[1];
		tt_put(self, in[0]);
		desc_init(&o, NPU_OPERATOR_BINARY, in, 2, y);
		D(&o)->attrs.binary.kind = htole32(kind);
		want = want_alloc(y);
		for (e = 0; e < y->n; e++)
			want[e] = binary_ref(kind, in[0]->v[e], in[1]->v[e % 5]);
		RUN_OK(&o);
		EXPECT_CLOSE(y, want, 1e-15, 0);
		free(want);
	}
}

/* Every arithmetic reduction of F64 in double. */
TEST_F(oplib, f64_reduce)
{
	static const int64_t xd[3] = { 2, 3, 4 }, yd[3] = { 2, 1, 1 };
	unsigned int kind;

	for (kind = 0; kind <= NPU_REDUCE_PROD; kind++) {
		struct tt *x, *y;
		double want[2];
		struct desc o;
		uint64_t e;

		snprintf(self->step_buf, sizeof(self->step_buf), "kind %u", kind);
		self->step = self->step_buf;
		arena_reset(self);
		x = T(self, NPU_DTYPE_F64, 3, xd);
		y = T(self, NPU_DTYPE_F64, 3, yd);
		tt_fill_fine(self, x, -2, 2);
		desc_init(&o, NPU_OPERATOR_REDUCE, &x, 1, y);
		D(&o)->attrs.reduce.kind = htole32(kind);
		D(&o)->attrs.reduce.axes = htole32(0x6);
		want[0] = want[1] = reduce_start(kind);
		for (e = 0; e < x->n; e++)
			want[e / 12] = reduce_step(kind, want[e / 12], x->v[e]);
		for (e = 0; e < 2; e++)
			want[e] = reduce_end(kind, want[e], 12);
		RUN_OK(&o);
		EXPECT_CLOSE(y, want, 1e-14, 1e-15);
	}
}

/* Integer reductions are exact where float32 would round, and saturate. */
TEST_F(oplib, reduce_integers_exact)
{
	static const struct {
		unsigned int dtype, kind;
		int64_t x[3];
		int64_t want;
	} cases[] = {
		{ NPU_DTYPE_S64, NPU_REDUCE_SUM, { 1LL << 53, 1, 1 }, (1LL << 53) + 2 },
		{ NPU_DTYPE_S64, NPU_REDUCE_SUM, { INT64_MAX, 1, 0 }, INT64_MAX },
		{ NPU_DTYPE_S64, NPU_REDUCE_MAX, { -(1LL << 60) - 1, -(1LL << 60), -(1LL << 61) },
		  -(1LL << 60) },
		{ NPU_DTYPE_S64, NPU_REDUCE_PROD, { 1LL << 40, 3, -1 }, -(3LL << 40) },
		{ NPU_DTYPE_S64, NPU_REDUCE_PROD, { 1LL << 40, 1LL << 30, 1 }, INT64_MAX },
		{ NPU_DTYPE_S64, NPU_REDUCE_L1, { -(1LL << 55), 1, -1 }, (1LL << 55) + 2 },
		{ NPU_DTYPE_S32, NPU_REDUCE_SUM, { 1 << 24, 1, 0 }, (1 << 24) + 1 },
		{ NPU_DTYPE_S32, NPU_REDUCE_SUM, { INT32_MAX, INT32_MAX, 0 }, INT32_MAX },
		{ NPU_DTYPE_S32, NPU_REDUCE_MIN, { (1 << 24) + 1, (1 << 24) + 3, (1 << 24) + 2 },
		  (1 << 24) + 1 },
		/* 7 / 3 to nearest */
		{ NPU_DTYPE_S32, NPU_REDUCE_MEAN, { 2, 2, 3 }, 2 },
		{ NPU_DTYPE_S16, NPU_REDUCE_L2, { 3, 4, 0 }, 5 },
		{ NPU_DTYPE_U8, NPU_REDUCE_SUM, { 200, 100, 1 }, 255 },
		{ NPU_DTYPE_S8, NPU_REDUCE_PROD, { -2, 100, 1 }, -128 },
		{ NPU_DTYPE_BOOL, NPU_REDUCE_SUM, { 0, 1, 0 }, 1 },
		{ NPU_DTYPE_BOOL, NPU_REDUCE_PROD, { 1, 1, 0 }, 0 },
		{ NPU_DTYPE_BOOL, NPU_REDUCE_MAX, { 0, 0, 0 }, 0 },
	};
	static const int64_t xd[2] = { 2, 3 }, yd[2] = { 2, 1 };
	unsigned int i, row;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct tt *x, *y;
		struct desc o;
		int64_t got;

		snprintf(self->step_buf, sizeof(self->step_buf), "case %u", i);
		self->step = self->step_buf;
		arena_reset(self);
		x = T(self, cases[i].dtype, 2, xd);
		y = T(self, cases[i].dtype, 2, yd);
		/* row 1 is row 0 reversed: the order does not matter */
		for (row = 0; row < 2; row++) {
			int64_t at[2] = { row, 0 };

			for (at[1] = 0; at[1] < 3; at[1]++)
				store_int(tt_ptr(self, x, at), x->dtype,
					  cases[i].x[row ? 2 - at[1] : at[1]]);
		}
		desc_init(&o, NPU_OPERATOR_REDUCE, &x, 1, y);
		D(&o)->attrs.reduce.kind = htole32(cases[i].kind);
		D(&o)->attrs.reduce.axes = htole32(0x2);
		RUN_OK(&o);
		for (row = 0; row < 2; row++) {
			got = 0;
			memcpy(&got, self->mem + y->addr + row * dtype_size(y->dtype),
			       dtype_size(y->dtype));
			if (y->dtype == NPU_DTYPE_S8 && got > INT8_MAX)
				got -= 256;
			if (y->dtype == NPU_DTYPE_S16 && got > INT16_MAX)
				got -= 65536;
			if (y->dtype == NPU_DTYPE_S32 && got > INT32_MAX)
				got -= 1LL << 32;
			EXPECT_EQ(cases[i].want, got) TH_LOG("case %u, row %u", i, row);
		}
	}
}

/* F64 moves, casts and fills exactly: beyond float32's precision. */
TEST_F(oplib, f64_keeps_its_bits)
{
	static const int64_t n = 4;
	static const double v[4] = { 1 + 0x1p-50, -0x1p-1060, 1e300, 0x1p53 };
	static const int64_t as_int[4] = { 1, 0, INT64_MAX, 1LL << 53 };
	double range[4];
	struct tt *x, *y, *s;
	struct desc o;
	unsigned int e;
	int64_t got;

	x = T(self, NPU_DTYPE_F64, 1, &n);
	y = T(self, NPU_DTYPE_F64, 1, &n);
	s = T(self, NPU_DTYPE_S64, 1, &n);
	memcpy(x->v, v, sizeof(v));
	tt_put(self, x);
	desc_init(&o, NPU_OPERATOR_UNARY, &x, 1, y);
	RUN_OK(&o);
	EXPECT_EXACT(y, v);
	desc_init(&o, NPU_OPERATOR_CAST, &x, 1, s);
	RUN_OK(&o);
	for (e = 0; e < n; e++) {
		memcpy(&got, self->mem + s->addr + 8 * e, 8);
		EXPECT_EQ(as_int[e], got) TH_LOG("element %u", e);
	}
	fill_desc(&o, y, NPU_FILL_RANGE, 1 + 0x1p-50, 0x1p-50);
	RUN_OK(&o);
	for (e = 0; e < n; e++)
		range[e] = 1 + 0x1p-50 * (e + 1);
	EXPECT_EXACT(y, range);
}
/* ---- the loops that stand in for slow oneDNN paths (aclnn-bench's) ---- */

struct rms_rows_case {
	const char *what;
	unsigned int rank;
	int64_t dims[3];
	unsigned int axis;
	int64_t row_gap;	/* x's and y's outer rows this many elements apart more */
	unsigned int act;
};

static const struct rms_rows_case rms_rows_cases[] = {
	{ "rows of 37", 2, { 7, 37 }, 1, 0 },
	{ "two inner axes", 3, { 2, 3, 64 }, 1, 0 },
	{ "rows apart, silu", 2, { 5, 300 }, 1, 11, NPU_UNARY_SILU },
	{ "rows shorter than a vector", 2, { 9, 3 }, 1, 0 },
	{ "one slice of everything", 2, { 4, 10 }, 0, 0 },
};

/* F32 rows that lie dense: the vectorised, threaded loop. */
TEST_F(oplib, rmsnorm_dense_rows)
{
	const float epsilon = 1e-5f;
	unsigned int i, d;

	for (i = 0; i < ARRAY_SIZE(rms_rows_cases); i++) {
		const struct rms_rows_case *k = &rms_rows_cases[i];
		int64_t strides[3], s = 1;
		uint64_t e, inner = 1, row;
		struct tt *in[2], *y;
		struct desc o;
		double *want;

		arena_reset(self);
		self->step = k->what;
		for (d = k->rank; d-- > 0;) {
			if (d + 1 == k->axis)
				s += k->row_gap;
			strides[d] = s;
			s *= k->dims[d];
		}
		for (d = k->axis; d < k->rank; d++)
			inner *= k->dims[d];
		in[0] = tt_alloc(self, NPU_DTYPE_F32, 0, k->rank, k->dims, strides);
		in[1] = T(self, NPU_DTYPE_F32, k->rank - k->axis, &k->dims[k->axis]);
		y = tt_alloc(self, NPU_DTYPE_F32, 0, k->rank, k->dims, strides);
		tt_fill(self, in[0], -3, 3);
		tt_fill(self, in[1], -2, 2);
		desc_init(&o, NPU_OPERATOR_RMSNORM, in, 2, y);
		D(&o)->attrs.norm.axis = htole32(k->axis);
		D(&o)->attrs.norm.epsilon = F(epsilon);
		D(&o)->attrs.norm.act = act(k->act, 0, 0);
		want = want_alloc(y);
		for (row = 0; row < y->n / inner; row++) {
			const double *x = &in[0]->v[row * inner];
			double sum = 0, r;

			for (e = 0; e < inner; e++)
				sum += x[e] * x[e];
			r = 1 / sqrt(sum / inner + epsilon);
			for (e = 0; e < inner; e++)
				want[row * inner + e] = act_ref(k->act, 0, 0, x[e] * r * in[1]->v[e]);
		}
		RUN_OK(&o);
		EXPECT_OUTPUT(y, want);
		free(want);
	}
}

struct matvec_case {
	const char *what;
	unsigned int rank;
	int64_t m, k;
	bool ta, tb;
	int64_t a_gap;		/* a's rows this many elements apart more */
	int64_t y_stride;	/* y's rows apart; 0: dense */
	float alpha;
	unsigned int act;
	unsigned int dtype;
};

static const struct matvec_case matvec_cases[] = {
	{ "33 rows of 1000", 2, 33, 1000, false, false, 0, 0, 1, 0, NPU_DTYPE_F32 },
	{ "K shorter than a vector", 2, 9, 3, false, false, 0, 0, 1, 0, NPU_DTYPE_F32 },
	{ "rows apart, y strided", 2, 17, 130, false, false, 5, 3, 1, 0, NPU_DTYPE_F32 },
	{ "batch of 1, alpha, relu", 3, 20, 77, false, false, 0, 0, 0.5f, NPU_UNARY_RELU,
	  NPU_DTYPE_F32 },
	{ "b a transposed row", 2, 12, 40, false, true, 0, 0, 1, 0, NPU_DTYPE_F32 },
	{ "a transposed: oneDNN", 2, 12, 40, true, false, 0, 0, 1, 0, NPU_DTYPE_F32 },
	{ "f16, widened", 2, 31, 200, false, false, 0, 0, 1, 0, NPU_DTYPE_F16 },
};

/* A matrix by a column: the dot-product loop, or oneDNN where it does not fit. */
TEST_F(oplib, matvec)
{
	unsigned int i, d;

	for (i = 0; i < ARRAY_SIZE(matvec_cases); i++) {
		const struct matvec_case *k = &matvec_cases[i];
		unsigned int r = k->rank;
		int64_t a_dims[3], b_dims[3], y_dims[3], a_strides[3], y_strides[3];
		struct npu_attr_matmul *at;
		struct tt *in[2], *y;
		struct desc o;
		double *want;
		int64_t row, j;

		arena_reset(self);
		self->step = k->what;
		for (d = 0; d + 2 < r; d++)
			a_dims[d] = b_dims[d] = y_dims[d] = 1;
		a_dims[r - 2] = k->ta ? k->k : k->m;
		a_dims[r - 1] = k->ta ? k->m : k->k;
		b_dims[r - 2] = k->tb ? 1 : k->k;
		b_dims[r - 1] = k->tb ? k->k : 1;
		y_dims[r - 2] = k->m;
		y_dims[r - 1] = 1;
		a_strides[r - 1] = 1;
		a_strides[r - 2] = a_dims[r - 1] + k->a_gap;
		y_strides[r - 1] = 1;
		y_strides[r - 2] = k->y_stride ? k->y_stride : 1;
		for (d = r - 2; d-- > 0;) {
			a_strides[d] = a_strides[d + 1] * a_dims[d + 1];
			y_strides[d] = y_strides[d + 1] * y_dims[d + 1];
		}
		in[0] = tt_alloc(self, k->dtype, 0, r, a_dims, a_strides);
		in[1] = T(self, k->dtype, r, b_dims);
		y = tt_alloc(self, k->dtype, 0, r, y_dims, y_strides);
		tt_fill(self, in[0], -1, 1);
		tt_fill(self, in[1], -1, 1);
		desc_init(&o, NPU_OPERATOR_MATMUL, in, 2, y);
		at = &D(&o)->attrs.matmul;
		at->trans_a = htole32(k->ta);
		at->trans_b = htole32(k->tb);
		at->alpha = F(k->alpha);
		at->act = act(k->act, 0, 0);
		want = want_alloc(y);
		for (row = 0; row < k->m; row++) {
			double acc = 0;

			/* a and b as stored, row-major: a'(row, j) and b'(j) */
			for (j = 0; j < k->k; j++)
				acc += in[0]->v[k->ta ? j * k->m + row : row * k->k + j] *
				       in[1]->v[j];
			want[row] = act_ref(k->act, 0, 0, k->alpha * acc);
		}
		RUN_OK(&o);
		EXPECT_OUTPUT(y, want);
		free(want);
	}
}

/* F16 products are widened by the F16C conversion loops, tails and all. */
TEST_F(oplib, matmul_f16_widened)
{
	static const int64_t shapes[][3] = { { 64, 96, 80 }, { 5, 7, 3 }, { 1, 9, 17 } };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(shapes); i++) {
		int64_t m = shapes[i][0], kk = shapes[i][1], n = shapes[i][2];
		int64_t a_dims[2] = { m, kk }, b_dims[2] = { kk, n }, y_dims[2] = { m, n };
		struct tt *in[2], *y;
		struct desc o;
		double *want;
		int64_t row, col, j;

		arena_reset(self);
		self->step = "f16 matmul";
		in[0] = T(self, NPU_DTYPE_F16, 2, a_dims);
		in[1] = T(self, NPU_DTYPE_F16, 2, b_dims);
		y = T(self, NPU_DTYPE_F16, 2, y_dims);
		tt_fill(self, in[0], -1, 1);
		tt_fill(self, in[1], -1, 1);
		desc_init(&o, NPU_OPERATOR_MATMUL, in, 2, y);
		D(&o)->attrs.matmul.alpha = F(1);
		D(&o)->attrs.matmul.act = act(NPU_UNARY_NONE, 0, 0);
		want = want_alloc(y);
		for (row = 0; row < m; row++)
			for (col = 0; col < n; col++) {
				double acc = 0;

				for (j = 0; j < kk; j++)
					acc += in[0]->v[row * kk + j] * in[1]->v[j * n + col];
				want[row * n + col] = acc;
			}
		RUN_OK(&o);
		EXPECT_OUTPUT(y, want);
		free(want);
	}
}

/* The threaded loops stop for an abandoned operator too. */
TEST_F(oplib, dense_row_loops_stop_for_an_abandoned_operator)
{
	static const int64_t dims[2] = { 4096, 256 }, gamma_dims[1] = { 256 };
	struct oplib_config cfg = { .threads = 1 };
	struct oplib *lib = oplib_create(&cfg);
	struct engine_log l = { .resume = true, .abandon_after = 2 };
	struct oplib_hooks hooks = LOG_HOOKS(l);
	struct tt *in[2], *y;
	struct desc o;

	ASSERT_NE(NULL, lib);
	in[0] = T(self, NPU_DTYPE_F32, 2, dims);
	in[1] = T(self, NPU_DTYPE_F32, 1, gamma_dims);
	y = T(self, NPU_DTYPE_F32, 2, dims);
	desc_init(&o, NPU_OPERATOR_RMSNORM, in, 2, y);
	D(&o)->attrs.norm.axis = htole32(1);
	D(&o)->attrs.norm.epsilon = F(1e-6f);
	ASSERT_EQ(OPLIB_ABORTED, run_with(self, lib, &o, &hooks));
	ASSERT_EQ(0, self->stray);
	EXPECT_EQ(1, l.gets);
	EXPECT_EQ(1, l.puts);

	memset(&l, 0, sizeof(l));
	l.resume = true;
	ASSERT_EQ(NPU_ERR_NONE, run_with(self, lib, &o, &hooks));
	EXPECT_EQ(l.gets, l.puts);
	EXPECT_LE(1, l.asked);
	oplib_destroy(lib);
}

/* Dense F32 groups long enough for several blocks of the vector sums, and a tail. */
TEST_F(oplib, groupnorm_dense_long_groups)
{
	static const int64_t dims[4] = { 2, 8, 33, 31 };
	const uint64_t groups = 2, spatial = 33 * 31, per = 8 / 2 * spatial;
	const float epsilon = 1e-5f;
	struct tt *in[3], *y;
	struct desc o;
	double *want;
	uint64_t n, g, e;

	self->step = "groups of 4092";
	in[0] = T(self, NPU_DTYPE_F32, 4, dims);
	in[1] = T(self, NPU_DTYPE_F32, 1, &dims[1]);
	in[2] = T(self, NPU_DTYPE_F32, 1, &dims[1]);
	y = T(self, NPU_DTYPE_F32, 4, dims);
	tt_fill(self, in[0], 1, 5);
	tt_fill(self, in[1], -2, 2);
	tt_fill(self, in[2], -1, 1);
	desc_init(&o, NPU_OPERATOR_GROUPNORM, in, 3, y);
	D(&o)->attrs.groupnorm.groups = htole32(groups);
	D(&o)->attrs.groupnorm.epsilon = F(epsilon);
	D(&o)->attrs.groupnorm.act = act(NPU_UNARY_RELU, 0, 0);
	want = want_alloc(y);
	for (n = 0; n < (uint64_t)dims[0]; n++)
		for (g = 0; g < groups; g++) {
			uint64_t at = (n * groups + g) * per;
			double mean = 0, var = 0;

			for (e = 0; e < per; e++)
				mean += in[0]->v[at + e] / per;
			for (e = 0; e < per; e++)
				var += (in[0]->v[at + e] - mean) * (in[0]->v[at + e] - mean) / per;
			for (e = 0; e < per; e++) {
				uint64_t c = (at + e) / spatial % dims[1];
				double z = (in[0]->v[at + e] - mean) / sqrt(var + epsilon);

				want[at + e] = act_ref(NPU_UNARY_RELU, 0, 0,
						       z * in[1]->v[c] + in[2]->v[c]);
			}
		}
	RUN_OK(&o);
	EXPECT_OUTPUT(y, want);
	free(want);
}

/*
 * Softmax and log-softmax over the last axis of dense F32 rows, as the
 * row loops compute them: tails, far tails, a weight below float range,
 * and y in place of x.
 */
static void softmax_rows_check(struct __test_metadata *_metadata, FIXTURE_DATA(oplib) *self)
{
	static const int64_t shapes[][2] = { { 7, 300 }, { 3, 16 }, { 5, 13 }, { 2, 4096 },
					     { 3, 37 } };
	unsigned int i, lg, in_place;

	for (in_place = 0; in_place < 2; in_place++)
	for (lg = 0; lg < 2; lg++)
	for (i = 0; i < ARRAY_SIZE(shapes); i++) {
		int64_t rows = shapes[i][0], n = shapes[i][1], r, j;
		struct tt *x, *y;
		struct desc o;
		double *want;

		arena_reset(self);
		snprintf(self->step_buf, sizeof(self->step_buf), "%s%s, %lldx%lld",
			 lg ? "log-softmax" : "softmax", in_place ? " in place" : "",
			 (long long)rows, (long long)n);
		self->step = self->step_buf;
		x = T(self, NPU_DTYPE_F32, 2, shapes[i]);
		y = in_place ? x : T(self, NPU_DTYPE_F32, 2, shapes[i]);
		tt_fill(self, x, -20, 20);
		/* e^-200 is below float32's range: its weight is 0 */
		x->v[n - 1] = -200;
		tt_put(self, x);
		desc_init(&o, NPU_OPERATOR_SOFTMAX, &x, 1, y);
		D(&o)->attrs.softmax.axis = htole32(1);
		D(&o)->attrs.softmax.log = htole32(lg);
		want = want_alloc(y);
		for (r = 0; r < rows; r++) {
			const double *xr = &x->v[r * n];
			double max = -INFINITY, sum = 0;

			for (j = 0; j < n; j++)
				max = fmax(max, xr[j]);
			for (j = 0; j < n; j++)
				sum += exp(xr[j] - max);
			for (j = 0; j < n; j++)
				want[r * n + j] = lg ? xr[j] - max - log(sum) : exp(xr[j] - max) / sum;
		}
		RUN_OK(&o);
		EXPECT_OUTPUT(y, want);
		free(want);
	}
}

/* With the widest vectors this CPU has (AVX-512 where it has it). */
TEST_F(oplib, softmax_dense_rows)
{
	softmax_rows_check(_metadata, self);
}

/*
 * The same capped at AVX2, as ONEDNN_MAX_CPU_ISA caps oneDNN: the eight-lane
 * loop a CPU without AVX-512 runs.  Read once per process (the harness forks
 * each test), before any operator here.
 */
TEST_F(oplib, softmax_dense_rows_avx2)
{
	ASSERT_EQ(0, setenv("ONEDNN_MAX_CPU_ISA", "AVX2", 1));
	softmax_rows_check(_metadata, self);
}

/* F64 in the index, order and solver families: double all the way, or refused */

/* Running sums of values float32 cannot hold, either way along the axis. */
TEST_F(oplib, f64_cumsum)
{
	static const int64_t xd[2] = { 3, 6 };
	unsigned int ex;

	for (ex = 0; ex < 2; ex++) {
		struct tt *x, *y;
		struct desc o;
		double *want;
		int64_t r, c, j;

		arena_reset(self);
		self->step = ex ? "exclusive, from the end" : "inclusive";
		x = T(self, NPU_DTYPE_F64, 2, xd);
		y = T(self, NPU_DTYPE_F64, 2, xd);
		tt_fill_fine(self, x, 1, 2);
		desc_init(&o, NPU_OPERATOR_CUMSUM, &x, 1, y);
		D(&o)->attrs.cumsum.axis = htole32(1);
		D(&o)->attrs.cumsum.exclusive = htole32(ex);
		D(&o)->attrs.cumsum.reverse = htole32(ex);
		want = want_alloc(y);
		for (r = 0; r < 3; r++)
		for (c = 0; c < 6; c++)
			for (j = 0; j < 6; j++)
				if (ex ? j > c : j <= c)
					want[r * 6 + c] += x->v[r * 6 + j];
		RUN_OK(&o);
		EXPECT_CLOSE(y, want, 1e-15, 0);
		free(want);
	}
}

/* index_add and a multiplying scatter keep the bits float32 has not. */
TEST_F(oplib, f64_scatter_add_and_mul)
{
	static const int64_t yd[2] = { 3, 2 }, rows[2] = { 2, 2 };
	unsigned int reduce;

	for (reduce = NPU_SCATTER_ADD; reduce <= NPU_SCATTER_MUL; reduce++) {
		struct tt *in[2], *y;
		struct desc o;
		double *want;
		unsigned int e;

		arena_reset(self);
		self->step = reduce == NPU_SCATTER_ADD ? "add" : "mul";
		y = T(self, NPU_DTYPE_F64, 2, yd);
		in[0] = T(self, NPU_DTYPE_S64, 1, DIMS_OF(2));
		in[1] = T(self, NPU_DTYPE_F64, 2, DIMS_OF(2, 2));
		tt_fill_fine(self, y, 1, 2);
		tt_fill_fine(self, in[1], 1, 2);
		put_indices(self, in[0], rows);
		desc_init(&o, NPU_OPERATOR_SCATTER, in, 2, y);
		D(&o)->attrs.scatter.reduce = htole32(reduce);
		want = want_alloc(y);
		memcpy(want, y->v, y->n * sizeof(*want));
		/* both of src's rows into y's row 2 */
		for (e = 0; e < 2; e++)
			want[4 + e] = reduce == NPU_SCATTER_ADD ?
				      want[4 + e] + in[1]->v[e] + in[1]->v[2 + e] :
				      want[4 + e] * in[1]->v[e] * in[1]->v[2 + e];
		RUN_OK(&o);
		EXPECT_CLOSE(y, want, 1e-15, 0);
		free(want);
	}
}

/* A lower solve in double: a x gives b back to double's precision. */
TEST_F(oplib, f64_trisolve)
{
	static const int64_t ad[2] = { 4, 4 }, bd[2] = { 4, 3 };
	struct tt *in[2], *x;
	double *got;
	struct desc o;
	int64_t i, j, c, n = 4;

	in[0] = T(self, NPU_DTYPE_F64, 2, ad);
	in[1] = T(self, NPU_DTYPE_F64, 2, bd);
	x = T(self, NPU_DTYPE_F64, 2, bd);
	tt_fill_fine(self, in[0], -0.5, 0.5);
	for (i = 0; i < n; i++)
		in[0]->v[i * n + i] = 2 + i + 0x1p-40;
	tt_put(self, in[0]);
	tt_fill_fine(self, in[1], -3, 3);
	desc_init(&o, NPU_OPERATOR_TRISOLVE, in, 2, x);
	RUN_OK(&o);
	got = want_alloc(x);
	tt_get(self, x, got);
	for (i = 0; i < n; i++)
	for (c = 0; c < 3; c++) {
		double sum = 0;

		for (j = 0; j <= i; j++)
			sum += in[0]->v[i * n + j] * got[j * 3 + c];
		EXPECT_TRUE(close_enough(sum, in[1]->v[i * 3 + c], 1e-13, 1e-13))
			TH_LOG("row %lld col %lld: %.17g, want %.17g", (long long)i,
			       (long long)c, sum, in[1]->v[i * 3 + c]);
	}
	free(got);
}

/* Families that compute through float refuse an F64 tensor, whichever it is. */
TEST_F(oplib, f64_refused_where_float_computes)
{
	static const int64_t xd[2] = { 2, 4 }, cd[1] = { 4 };
	struct tt *in[3], *y;
	struct desc o;
	unsigned int t;

	for (t = 0; t < 3; t++) {
		snprintf(self->step_buf, sizeof(self->step_buf), "rmsnorm, tensor %u F64", t);
		self->step = self->step_buf;
		arena_reset(self);
		in[0] = T(self, t == 0 ? NPU_DTYPE_F64 : NPU_DTYPE_F32, 2, xd);
		in[1] = T(self, t == 1 ? NPU_DTYPE_F64 : NPU_DTYPE_F32, 1, cd);
		y = T(self, t == 2 ? NPU_DTYPE_F64 : NPU_DTYPE_F32, 2, xd);
		desc_init(&o, NPU_OPERATOR_RMSNORM, in, 2, y);
		D(&o)->attrs.norm.axis = htole32(1);
		D(&o)->attrs.norm.epsilon = F(1e-5f);
		EXPECT_EQ(NPU_ERR_OPERATOR, run(self, &o)) TH_LOG("%s", STEP);
	}
	for (t = 0; t < 3; t++) {
		snprintf(self->step_buf, sizeof(self->step_buf), "groupnorm, input %u F64", t);
		self->step = self->step_buf;
		arena_reset(self);
		in[0] = T(self, t == 0 ? NPU_DTYPE_F64 : NPU_DTYPE_F32, 2, xd);
		in[1] = T(self, t == 1 ? NPU_DTYPE_F64 : NPU_DTYPE_F32, 1, DIMS_OF(4));
		in[2] = T(self, t == 2 ? NPU_DTYPE_F64 : NPU_DTYPE_F32, 1, DIMS_OF(4));
		y = T(self, t == 0 ? NPU_DTYPE_F64 : NPU_DTYPE_F32, 2, xd);
		desc_init(&o, NPU_OPERATOR_GROUPNORM, in, 3, y);
		D(&o)->attrs.groupnorm.groups = htole32(2);
		D(&o)->attrs.groupnorm.epsilon = F(1e-5f);
		EXPECT_EQ(NPU_ERR_OPERATOR, run(self, &o)) TH_LOG("%s", STEP);
	}
	for (t = 0; t < 3; t++) {
		snprintf(self->step_buf, sizeof(self->step_buf), "rope, input %u F64", t);
		self->step = self->step_buf;
		arena_reset(self);
		in[0] = T(self, t == 0 ? NPU_DTYPE_F64 : NPU_DTYPE_F32, 2, xd);
		in[1] = T(self, t == 1 ? NPU_DTYPE_F64 : NPU_DTYPE_F32, 1, cd);
		in[2] = T(self, t == 2 ? NPU_DTYPE_F64 : NPU_DTYPE_F32, 1, cd);
		y = T(self, t == 0 ? NPU_DTYPE_F64 : NPU_DTYPE_F32, 2, xd);
		desc_init(&o, NPU_OPERATOR_ROPE, in, 3, y);
		EXPECT_EQ(NPU_ERR_OPERATOR, run(self, &o)) TH_LOG("%s", STEP);
	}
	/* the same descriptors in F32 run: the refusal is the type's */
	for (t = 0; t < 3; t++)
		in[t] = T(self, NPU_DTYPE_F32, t ? 1 : 2, t ? cd : xd);
	y = T(self, NPU_DTYPE_F32, 2, xd);
	desc_init(&o, NPU_OPERATOR_ROPE, in, 3, y);
	RUN_OK(&o);
}

/*
 * RANDOM: Philox4x32-10 against the Random123 paper's known answers, then
 * the operator, whose draws for a fixed seed and counter are fixed: the
 * statistics below are of that one sample, so they cannot flake.
 */
TEST_F(oplib, philox_known_answers)
{
	static const struct {
		uint32_t ctr[4], key[2], want[4];
	} kat[] = {
		{ { 0, 0, 0, 0 }, { 0, 0 },
		  { 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8 } },
		{ { 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff },
		  { 0xffffffff, 0xffffffff },
		  { 0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd } },
		{ { 0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344 },
		  { 0xa4093822, 0x299f31d0 },
		  { 0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1 } },
	};
	unsigned int i, w;

	for (i = 0; i < sizeof(kat) / sizeof(kat[0]); i++) {
		uint32_t got[4];

		oplib_philox4x32_10(kat[i].ctr, kat[i].key, got);
		for (w = 0; w < 4; w++)
			EXPECT_EQ(kat[i].want[w], got[w]) TH_LOG("vector %u word %u", i, w);
	}
}

static struct tt *random_ctr(FIXTURE_DATA(oplib) *self, uint64_t lo, uint64_t hi)
{
	static const int64_t two = 2;
	struct tt *c = T(self, NPU_DTYPE_S64, 1, &two);
	uint64_t v[2] = { htole64(lo), htole64(hi) };

	memcpy(self->mem + c->addr, v, sizeof(v));
	return c;
}

static uint64_t random_ctr_word(FIXTURE_DATA(oplib) *self, const struct tt *c, unsigned int w)
{
	uint64_t v;

	memcpy(&v, self->mem + c->addr + 8 * w, 8);
	return le64toh(v);
}

static void random_desc(struct desc *o, struct tt *ctr, struct tt *y, uint32_t dist,
			uint32_t flags, uint64_t seed, uint64_t lo, uint64_t hi)
{
	desc_init(o, NPU_OPERATOR_RANDOM, &ctr, 1, y);
	D(o)->attrs.random.dist = htole32(dist);
	D(o)->attrs.random.flags = htole32(flags);
	D(o)->attrs.random.seed = htole64(seed);
	D(o)->attrs.random.lo = htole64(lo);
	D(o)->attrs.random.hi = htole64(hi);
}

static uint64_t f64_bits(double d)
{
	uint64_t b;

	memcpy(&b, &d, 8);
	return b;
}

/* Runs it; the counter's bytes are the only ones outside y it may change. */
static int random_run(FIXTURE_DATA(oplib) *self, struct desc *o, const struct tt *ctr)
{
	uint8_t before[16];
	uint64_t changed = 0;
	unsigned int b;
	int err;

	memcpy(before, self->mem + ctr->addr, 16);
	err = run(self, o);
	for (b = 0; b < 16; b++)
		changed += before[b] != self->mem[ctr->addr + b];
	return err ? err : self->stray == changed ? 0 : -1;
}

/* Over [0, 2^32), a U32's draw is its block's second word: the known answer. */
TEST_F(oplib, random_known_answer)
{
	static const int64_t n = 3;
	struct tt *ctr = random_ctr(self, 0, 0);
	struct tt *y = T(self, NPU_DTYPE_S32, 1, &n);
	uint32_t got, want[4];
	const uint32_t c1[4] = { 1, 0, 0, 0 }, key[2] = { 0, 0 };
	struct desc o;

	random_desc(&o, ctr, y, NPU_RANDOM_UNIFORM, NPU_RANDOM_UNSIGNED, 0, 0, 1ULL << 32);
	ASSERT_EQ(0, random_run(self, &o, ctr));
	memcpy(&got, self->mem + y->addr, 4);
	EXPECT_EQ(0xe169c58du, got);
	oplib_philox4x32_10(c1, key, want);
	memcpy(&got, self->mem + y->addr + 4, 4);
	EXPECT_EQ(want[1], got);
	/* the counter moved past the three blocks drawn */
	EXPECT_EQ(3, random_ctr_word(self, ctr, 0));
	EXPECT_EQ(0, random_ctr_word(self, ctr, 1));
}

/* The same seed and counter draw the same; a continued counter continues. */
TEST_F(oplib, random_reproducible)
{
	static const int64_t n = 100, n2 = 200;
	struct tt *ctr = random_ctr(self, ~0ULL - 50, 7);
	struct tt *y = T(self, NPU_DTYPE_F32, 1, &n);
	struct tt *y2 = T(self, NPU_DTYPE_F32, 1, &n2);
	uint8_t first[400], second[400];
	struct desc o, o2;

	random_desc(&o2, ctr, y2, NPU_RANDOM_NORMAL, 0, 42, f64_bits(0), f64_bits(1));
	ASSERT_EQ(0, random_run(self, &o2, ctr));
	/* the carry into the counter's high word */
	EXPECT_EQ(~0ULL - 50 + 200, random_ctr_word(self, ctr, 0));
	EXPECT_EQ(8, random_ctr_word(self, ctr, 1));
	random_desc(&o, ctr, y, NPU_RANDOM_NORMAL, 0, 42, f64_bits(0), f64_bits(1));
	memcpy(self->mem + ctr->addr, (uint64_t[2]){ htole64(~0ULL - 50), htole64(7) }, 16);
	ASSERT_EQ(0, random_run(self, &o, ctr));
	memcpy(first, self->mem + y->addr, 400);
	ASSERT_EQ(0, random_run(self, &o, ctr));
	memcpy(second, self->mem + y->addr, 400);
	EXPECT_EQ(0, memcmp(first, self->mem + y2->addr, 400));
	EXPECT_EQ(0, memcmp(second, self->mem + y2->addr + 400, 400));
	/* another seed draws otherwise */
	memcpy(self->mem + ctr->addr, (uint64_t[2]){ htole64(~0ULL - 50), htole64(7) }, 16);
	random_desc(&o, ctr, y, NPU_RANDOM_NORMAL, 0, 43, f64_bits(0), f64_bits(1));
	ASSERT_EQ(0, random_run(self, &o, ctr));
	EXPECT_NE(0, memcmp(first, self->mem + y->addr, 400));
}

static void random_moments(FIXTURE_DATA(oplib) *self, const struct tt *y, double *mean,
			   double *var, double *lo, double *hi)
{
	double sum = 0, sq = 0;
	uint64_t i;

	tt_get(self, y, y->v);
	*lo = INFINITY;
	*hi = -INFINITY;
	for (i = 0; i < y->n; i++) {
		sum += y->v[i];
		*lo = fmin(*lo, y->v[i]);
		*hi = fmax(*hi, y->v[i]);
	}
	*mean = sum / y->n;
	for (i = 0; i < y->n; i++)
		sq += (y->v[i] - *mean) * (y->v[i] - *mean);
	*var = sq / (y->n - 1);
}

/*
 * 4096 draws per case: the bounds are 5 standard errors of the mean and
 * of the variance (for a normal, sqrt(2 / n) sigma^2; uniform and
 * truncated ones vary less), which this fixed sample meets.
 */
TEST_F(oplib, random_distributions)
{
	static const int64_t n = 4096;
	static const unsigned int types[] = { NPU_DTYPE_F32, NPU_DTYPE_F16, NPU_DTYPE_BF16,
					      NPU_DTYPE_F64 };
	/* truncated at 2 sigma: variance 1 - 4 phi(2) / (2 Phi(2) - 1) */
	const double tvar = 1 - 4 * exp(-2) / sqrt(2 * M_PI) / erf(2 / sqrt(2));
	double mean, var, lo, hi, se = 5 / sqrt(n);
	unsigned int t;

	for (t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
		struct tt *ctr, *y;
		struct desc o;

		snprintf(self->step_buf, sizeof(self->step_buf), "dtype %u", types[t]);
		self->step = self->step_buf;
		arena_reset(self);
		ctr = random_ctr(self, 0, 0);
		y = T(self, types[t], 1, &n);
		random_desc(&o, ctr, y, NPU_RANDOM_UNIFORM, 0, 1, f64_bits(1), f64_bits(2));
		ASSERT_EQ(0, random_run(self, &o, ctr));
		random_moments(self, y, &mean, &var, &lo, &hi);
		EXPECT_GE(lo, 1) TH_LOG("%s", STEP);
		EXPECT_LE(hi, 2) TH_LOG("%s", STEP);
		EXPECT_LT(fabs(mean - 1.5), se * sqrt(1.0 / 12)) TH_LOG("%s: %g", STEP, mean);
		EXPECT_LT(fabs(var - 1.0 / 12), se / 12) TH_LOG("%s: %g", STEP, var);

		random_desc(&o, ctr, y, NPU_RANDOM_NORMAL, 0, 2, f64_bits(3), f64_bits(2));
		ASSERT_EQ(0, random_run(self, &o, ctr));
		random_moments(self, y, &mean, &var, &lo, &hi);
		EXPECT_LT(fabs(mean - 3), se * 2) TH_LOG("%s: %g", STEP, mean);
		EXPECT_LT(fabs(var - 4), se * sqrt(2) * 4) TH_LOG("%s: %g", STEP, var);

		random_desc(&o, ctr, y, NPU_RANDOM_TRUNCATED_NORMAL, 0, 3, f64_bits(1),
			    f64_bits(2));
		ASSERT_EQ(0, random_run(self, &o, ctr));
		random_moments(self, y, &mean, &var, &lo, &hi);
		/* within 2 sigma, and the type's rounding */
		EXPECT_GE(lo, -3 - 0.02) TH_LOG("%s: %g", STEP, lo);
		EXPECT_LE(hi, 5 + 0.02) TH_LOG("%s: %g", STEP, hi);
		EXPECT_LT(fabs(mean - 1), se * 2) TH_LOG("%s: %g", STEP, mean);
		EXPECT_LT(fabs(var - 4 * tvar), se * sqrt(2) * 4 * tvar) TH_LOG("%s: %g", STEP, var);
	}
}

TEST_F(oplib, random_integers)
{
	static const int64_t n = 4096;
	struct tt *ctr = random_ctr(self, 0, 0);
	struct tt *y = T(self, NPU_DTYPE_S32, 1, &n);
	struct tt *y64 = T(self, NPU_DTYPE_S64, 1, &n);
	double mean, var, lo, hi;
	uint64_t i, big = 0;
	struct desc o;

	random_desc(&o, ctr, y, NPU_RANDOM_UNIFORM, 0, 9, (uint64_t)-5, 5);
	ASSERT_EQ(0, random_run(self, &o, ctr));
	random_moments(self, y, &mean, &var, &lo, &hi);
	EXPECT_EQ(-5, lo);
	EXPECT_EQ(4, hi);
	/* ten values: mean -0.5, variance (10^2 - 1) / 12 */
	EXPECT_LT(fabs(mean + 0.5), 5 * sqrt(99.0 / 12 / n));
	/* U64 past INT64_MAX, stored as they are */
	random_desc(&o, ctr, y64, NPU_RANDOM_UNIFORM, NPU_RANDOM_UNSIGNED, 9, 1ULL << 63, ~0ULL);
	ASSERT_EQ(0, random_run(self, &o, ctr));
	for (i = 0; i < (uint64_t)n; i++) {
		uint64_t v;

		memcpy(&v, self->mem + y64->addr + 8 * i, 8);
		big += v >= 1ULL << 63;
	}
	EXPECT_EQ((uint64_t)n, big);
}

TEST_F(oplib, random_dropout_mask)
{
	static const int64_t n = 512;
	struct tt *ctr = random_ctr(self, 0, 0);
	struct tt *y = T(self, NPU_DTYPE_U8, 1, &n);
	uint64_t i, ones = 0;
	struct desc o;

	random_desc(&o, ctr, y, NPU_RANDOM_DROPOUT_MASK, 0, 5, f64_bits(0.4), 0);
	D(&o)->attrs.random.bits = htole64(n * 8 - 3);
	ASSERT_EQ(0, random_run(self, &o, ctr));
	for (i = 0; i < (uint64_t)n * 8; i++)
		ones += self->mem[y->addr + i / 8] >> (i % 8) & 1;
	/* the last byte's three bits past the count are 0 */
	EXPECT_EQ(0, self->mem[y->addr + n - 1] >> 5);
	/* kept with probability 0.6: 4093 bits, 5 standard errors */
	EXPECT_LT(fabs(ones / 4093.0 - 0.6), 5 * sqrt(0.24 / 4093));
	EXPECT_EQ(4093, random_ctr_word(self, ctr, 0));
	/* a ratio of 1 drops everything, 0 keeps everything */
	random_desc(&o, ctr, y, NPU_RANDOM_DROPOUT_MASK, 0, 5, f64_bits(1), 0);
	D(&o)->attrs.random.bits = htole64(n * 8);
	ASSERT_EQ(0, random_run(self, &o, ctr));
	for (i = 0; i < (uint64_t)n; i++)
		ASSERT_EQ(0, self->mem[y->addr + i]);
	random_desc(&o, ctr, y, NPU_RANDOM_DROPOUT_MASK, 0, 5, f64_bits(0), 0);
	D(&o)->attrs.random.bits = htole64(n * 8);
	ASSERT_EQ(0, random_run(self, &o, ctr));
	for (i = 0; i < (uint64_t)n; i++)
		ASSERT_EQ(0xff, self->mem[y->addr + i]);
}

/* One thread or several, the same numbers: each depends on its index alone. */
TEST_F(oplib, random_threads)
{
	static const int64_t n = 300000, mask_n = 40000;
	struct oplib_config one = { .threads = 1 };
	struct oplib *lib1 = oplib_create(&one);
	struct tt *ctr = random_ctr(self, 5, 0);
	struct tt *y = T(self, NPU_DTYPE_F32, 1, &n);
	struct tt *mask = T(self, NPU_DTYPE_U8, 1, &mask_n);
	uint8_t *first = malloc(n * 4);
	struct desc o;

	ASSERT_NE(NULL, lib1);
	ASSERT_NE(NULL, first);
	random_desc(&o, ctr, y, NPU_RANDOM_TRUNCATED_NORMAL, 0, 11, f64_bits(0), f64_bits(1));
	ASSERT_EQ(NPU_ERR_NONE, run_with(self, lib1, &o, NULL));
	memcpy(first, self->mem + y->addr, n * 4);
	memcpy(self->mem + ctr->addr, (uint64_t[2]){ htole64(5), 0 }, 16);
	ASSERT_EQ(0, random_run(self, &o, ctr));
	EXPECT_EQ(0, memcmp(first, self->mem + y->addr, n * 4));
	EXPECT_EQ(5 + n, random_ctr_word(self, ctr, 0));

	random_desc(&o, ctr, mask, NPU_RANDOM_DROPOUT_MASK, 0, 11, f64_bits(0.25), 0);
	D(&o)->attrs.random.bits = htole64(mask_n * 8);
	ASSERT_EQ(NPU_ERR_NONE, run_with(self, lib1, &o, NULL));
	memcpy(first, self->mem + mask->addr, mask_n);
	memcpy(self->mem + ctr->addr, (uint64_t[2]){ htole64(5 + n), 0 }, 16);
	ASSERT_EQ(0, random_run(self, &o, ctr));
	EXPECT_EQ(0, memcmp(first, self->mem + mask->addr, mask_n));
	free(first);
	oplib_destroy(lib1);
}

TEST_F(oplib, random_rejects)
{
	static const int64_t n = 8, three = 3;
	struct tt *ctr = random_ctr(self, 0, 0);
	struct tt *bad_ctr = T(self, NPU_DTYPE_S64, 1, &three);
	struct tt *y = T(self, NPU_DTYPE_F32, 1, &n);
	struct tt *yi = T(self, NPU_DTYPE_S32, 1, &n);
	struct tt *mask = T(self, NPU_DTYPE_U8, 1, &n);
	struct desc o;

	random_desc(&o, ctr, y, NPU_RANDOM_DIST_LAST + 1, 0, 0, f64_bits(0), f64_bits(1));
	EXPECT_EQ(NPU_ERR_OPERATOR, run(self, &o));
	random_desc(&o, ctr, y, NPU_RANDOM_UNIFORM, 0, 0, f64_bits(1), f64_bits(1));
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &o));
	random_desc(&o, ctr, y, NPU_RANDOM_UNIFORM, 0, 0, f64_bits(0), f64_bits(INFINITY));
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &o));
	random_desc(&o, ctr, y, NPU_RANDOM_NORMAL, 0, 0, f64_bits(0), f64_bits(-1));
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &o));
	random_desc(&o, ctr, y, NPU_RANDOM_UNIFORM, 0x2, 0, f64_bits(0), f64_bits(1));
	EXPECT_EQ(NPU_ERR_RESERVED, run(self, &o));
	random_desc(&o, ctr, y, NPU_RANDOM_UNIFORM, 0, 0, f64_bits(0), f64_bits(1));
	D(&o)->attrs.random.rsvd2 = htole32(1);
	EXPECT_EQ(NPU_ERR_RESERVED, run(self, &o));
	random_desc(&o, bad_ctr, y, NPU_RANDOM_UNIFORM, 0, 0, f64_bits(0), f64_bits(1));
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &o));
	/* integers: uniform only, within the type */
	random_desc(&o, ctr, yi, NPU_RANDOM_NORMAL, 0, 0, 0, 1);
	EXPECT_EQ(NPU_ERR_OPERATOR, run(self, &o));
	random_desc(&o, ctr, yi, NPU_RANDOM_UNIFORM, 0, 0, 0, 1ULL << 32);
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &o));
	random_desc(&o, ctr, yi, NPU_RANDOM_UNIFORM, 0, 0, 5, 5);
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &o));
	/* a mask: U8 and a count that fits y's last byte */
	random_desc(&o, ctr, mask, NPU_RANDOM_DROPOUT_MASK, 0, 0, f64_bits(0.5), 0);
	D(&o)->attrs.random.bits = htole64(n * 8 - 8);
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &o));
	D(&o)->attrs.random.bits = htole64(n * 8 + 1);
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &o));
	random_desc(&o, ctr, y, NPU_RANDOM_DROPOUT_MASK, 0, 0, f64_bits(0.5), 0);
	D(&o)->attrs.random.bits = htole64(n * 8);
	EXPECT_EQ(NPU_ERR_OPERATOR, run(self, &o));
	random_desc(&o, ctr, y, NPU_RANDOM_UNIFORM, 0, 0, f64_bits(0), f64_bits(1));
	D(&o)->attrs.random.bits = htole64(1);
	EXPECT_EQ(NPU_ERR_OP_PARAM, run(self, &o));
	/* nothing written by a refused operator */
	EXPECT_EQ(0, random_ctr_word(self, ctr, 0));
	EXPECT_EQ(0, self->stray);
}

TEST_HARNESS_MAIN
