// SPDX-License-Identifier: MIT
/*
 * Concurrency: many threads copying on their own streams, many threads
 * sharing one stream, threads with their own contexts, events recorded
 * and queried from several threads, stream creation racing with use.
 */
#include "acl_test.h"
#include "kselftest_harness.h"

#define NTHREADS 6

struct worker {
	int id;
	aclrtContext ctx;
	aclrtStream stream;	/* NULL: create one */
	int iters;
	size_t size;
	int errors;
	aclError first_err;
};

static void *copy_worker(void *p)
{
	struct worker *w = p;
	aclrtStream s = w->stream;
	bool own = !s;
	uint8_t *src, *dst;
	void *d;

	if (aclrtSetCurrentContext(w->ctx))
		goto fail;
	if (own && aclrtCreateStream(&s))
		goto fail;
	if (aclrtMallocHost((void **)&src, w->size) || aclrtMallocHost((void **)&dst, w->size) ||
	    aclrtMalloc(&d, w->size, ACL_MEM_MALLOC_HUGE_FIRST))
		goto fail;
	for (int i = 0; i < w->iters; i++) {
		unsigned seed = (unsigned)(w->id * 1000 + i);
		aclError r;

		fill_pat(src, w->size, seed);
		memset(dst, 0, w->size);
		r = aclrtMemcpyAsync(d, w->size, src, w->size, ACL_MEMCPY_HOST_TO_DEVICE, s);
		if (!r)
			r = aclrtMemcpyAsync(dst, w->size, d, w->size, ACL_MEMCPY_DEVICE_TO_HOST, s);
		/* on a shared stream, an event marks our own point */
		if (!r)
			r = aclrtSynchronizeStream(s);
		if (r) {
			if (!w->first_err)
				w->first_err = r;
			w->errors++;
		} else if (check_pat(dst, w->size, seed) >= 0) {
			w->errors++;
		}
	}
	aclrtFree(d);
	aclrtFreeHost(src);
	aclrtFreeHost(dst);
	if (own)
		aclrtDestroyStream(s);
	return NULL;
fail:
	w->errors = 1000;
	return NULL;
}

/* Synchronous copies: host -> device -> device -> host, pageable and pinned. */
static void *sync_copy_worker(void *p)
{
	struct worker *w = p;
	uint8_t *pinned, *pageable = malloc(w->size);
	void *d1, *d2;

	if (!pageable || aclrtSetCurrentContext(w->ctx) ||
	    aclrtMallocHost((void **)&pinned, w->size) ||
	    aclrtMalloc(&d1, w->size, ACL_MEM_MALLOC_HUGE_FIRST) ||
	    aclrtMalloc(&d2, w->size, ACL_MEM_MALLOC_HUGE_FIRST)) {
		w->errors = 1000;
		return NULL;
	}
	for (int i = 0; i < w->iters; i++) {
		unsigned seed = (unsigned)(w->id * 1000 + i);
		uint8_t *src = i & 1 ? pinned : pageable, *dst = i & 1 ? pageable : pinned;
		aclError r;

		fill_pat(src, w->size, seed);
		memset(dst, 0, w->size);
		r = aclrtMemcpy(d1, w->size, src, w->size, ACL_MEMCPY_HOST_TO_DEVICE);
		if (!r)
			r = aclrtMemset(d2, w->size, 0, w->size);
		if (!r)
			r = aclrtMemcpy(d2, w->size, d1, w->size, ACL_MEMCPY_DEVICE_TO_DEVICE);
		if (!r)
			r = aclrtMemcpy(dst, w->size, d2, w->size, ACL_MEMCPY_DEVICE_TO_HOST);
		if (r) {
			if (!w->first_err)
				w->first_err = r;
			w->errors++;
		} else if (check_pat(dst, w->size, seed) >= 0) {
			w->errors++;
		}
	}
	aclrtFree(d1);
	aclrtFree(d2);
	aclrtFreeHost(pinned);
	free(pageable);
	return NULL;
}

FIXTURE(dev) {
	aclrtContext ctx;
};

FIXTURE_SETUP(dev)
{
	ASSERT_TRUE(acl_ok_init());
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetCurrentContext(&self->ctx));
}

FIXTURE_TEARDOWN(dev)
{
	aclrtResetDevice(0);
	aclFinalize();
}

TEST_F(dev, threads_own_streams)
{
	struct worker w[NTHREADS];
	pthread_t th[NTHREADS];

	for (int i = 0; i < NTHREADS; i++) {
		w[i] = (struct worker){ .id = i, .ctx = self->ctx, .iters = 30,
					.size = (size_t)(64 << 10) + (size_t)i * 4099 };
		ASSERT_EQ(0, pthread_create(&th[i], NULL, copy_worker, &w[i]));
	}
	for (int i = 0; i < NTHREADS; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, w[i].errors);
		if (w[i].errors)
			TH_LOG("thread %d: %d errors, first %d", i, w[i].errors, w[i].first_err);
	}
}

/*
 * Synchronous copies from many threads at once: each sees its own data,
 * and the library's internal streams take a few rings, not one per thread.
 */
TEST_F(dev, threads_copy_synchronously)
{
	struct worker w[2 * NTHREADS];
	pthread_t th[2 * NTHREADS];
	int rings[128], n;
	char bdf[64];

	for (int i = 0; i < 2 * NTHREADS; i++) {
		w[i] = (struct worker){ .id = i + 20, .ctx = self->ctx, .iters = 20,
					.size = (size_t)(48 << 10) + (size_t)i * 4093 };
		ASSERT_EQ(0, pthread_create(&th[i], NULL, sync_copy_worker, &w[i]));
	}
	for (int i = 0; i < 2 * NTHREADS; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, w[i].errors);
		if (w[i].errors)
			TH_LOG("thread %d: %d errors, first %d", i, w[i].errors, w[i].first_err);
	}
	/* the default stream's ring and at most four internal ones */
	ASSERT_EQ(0, dev_bdf(0, bdf, sizeof(bdf)));
	n = test_own_rings(bdf, rings, 128);
	TH_LOG("%d rings in use", n);
	EXPECT_GE(n, 2);
	EXPECT_LE(n, 5);
}

TEST_F(dev, threads_share_a_stream)
{
	struct worker w[NTHREADS];
	pthread_t th[NTHREADS];
	aclrtStream s;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	for (int i = 0; i < NTHREADS; i++) {
		w[i] = (struct worker){ .id = i + 10, .ctx = self->ctx, .stream = s, .iters = 20,
					.size = 32 << 10 };
		ASSERT_EQ(0, pthread_create(&th[i], NULL, copy_worker, &w[i]));
	}
	for (int i = 0; i < NTHREADS; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, w[i].errors);
	}
	aclrtDestroyStream(s);
}

TEST_F(dev, threads_share_the_default_stream)
{
	struct worker w[NTHREADS];
	pthread_t th[NTHREADS];
	aclrtStream def;

	ASSERT_EQ(ACL_SUCCESS, aclrtCtxGetCurrentDefaultStream(&def));
	for (int i = 0; i < NTHREADS; i++) {
		w[i] = (struct worker){ .id = i + 20, .ctx = self->ctx, .stream = def, .iters = 10,
					.size = 16 << 10 };
		ASSERT_EQ(0, pthread_create(&th[i], NULL, copy_worker, &w[i]));
	}
	for (int i = 0; i < NTHREADS; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, w[i].errors);
	}
}

static void *ctx_worker(void *p)
{
	struct worker *w = p;

	/* each thread its own context on the device */
	if (aclrtCreateContext(&w->ctx, 0)) {
		w->errors = 1000;
		return NULL;
	}
	copy_worker(w);
	if (aclrtDestroyContext(w->ctx))
		w->errors++;
	return NULL;
}

TEST_F(dev, threads_own_contexts)
{
	struct worker w[4];
	pthread_t th[4];

	for (int i = 0; i < 4; i++) {
		w[i] = (struct worker){ .id = i + 30, .iters = 10, .size = 100000 };
		ASSERT_EQ(0, pthread_create(&th[i], NULL, ctx_worker, &w[i]));
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, w[i].errors);
	}
}

TEST_F(dev, threads_multi_device)
{
	struct worker w[4];
	pthread_t th[4];
	aclrtContext c1;
	uint32_t ndev;

	ASSERT_EQ(ACL_SUCCESS, aclrtGetDeviceCount(&ndev));
	if (ndev < 2)
		SKIP(return, "one device only");
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(1));
	ASSERT_EQ(ACL_SUCCESS, aclrtGetCurrentContext(&c1));
	for (int i = 0; i < 4; i++) {
		w[i] = (struct worker){ .id = i + 40, .ctx = i & 1 ? c1 : self->ctx, .iters = 15,
					.size = 256 << 10 };
		ASSERT_EQ(0, pthread_create(&th[i], NULL, copy_worker, &w[i]));
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, w[i].errors);
	}
	aclrtResetDevice(1);
}

struct ev_arg {
	aclrtContext ctx;
	aclrtEvent ev;
	aclrtStream s;
	atomic_int *stop;
	int errors;
};

static void *recorder(void *p)
{
	struct ev_arg *a = p;

	aclrtSetCurrentContext(a->ctx);
	for (int i = 0; i < 300; i++)
		if (aclrtRecordEvent(a->ev, a->s))
			a->errors++;
	if (aclrtSynchronizeStream(a->s))
		a->errors++;
	return NULL;
}

static void *querier(void *p)
{
	struct ev_arg *a = p;
	aclrtEventRecordedStatus st;

	aclrtSetCurrentContext(a->ctx);
	while (!atomic_load(a->stop))
		if (aclrtQueryEventStatus(a->ev, &st))
			a->errors++;
	return NULL;
}

TEST_F(dev, event_record_and_query_from_threads)
{
	struct ev_arg r[3], q;
	pthread_t tr[3], tq;
	atomic_int stop = 0;
	aclrtEvent ev;
	aclrtEventRecordedStatus st;

	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&ev));
	q = (struct ev_arg){ .ctx = self->ctx, .ev = ev, .stop = &stop };
	ASSERT_EQ(0, pthread_create(&tq, NULL, querier, &q));
	for (int i = 0; i < 3; i++) {
		r[i] = (struct ev_arg){ .ctx = self->ctx, .ev = ev, .stop = &stop };
		ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&r[i].s));
		ASSERT_EQ(0, pthread_create(&tr[i], NULL, recorder, &r[i]));
	}
	for (int i = 0; i < 3; i++) {
		pthread_join(tr[i], NULL);
		EXPECT_EQ(0, r[i].errors);
	}
	atomic_store(&stop, 1);
	pthread_join(tq, NULL);
	EXPECT_EQ(0, q.errors);
	/* records from three streams: the last one counts, and it completes */
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeEventWithTimeout(ev, 5000));
	ASSERT_EQ(ACL_SUCCESS, aclrtQueryEventStatus(ev, &st));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, st);
	for (int i = 0; i < 3; i++)
		aclrtDestroyStream(r[i].s);
	aclrtDestroyEvent(ev);
}

static void *churn(void *p)
{
	struct worker *w = p;

	aclrtSetCurrentContext(w->ctx);
	for (int i = 0; i < 40; i++) {
		aclrtStream s;
		aclrtEvent e;

		if (aclrtCreateStream(&s) || aclrtCreateEvent(&e)) {
			w->errors++;
			continue;
		}
		if (aclrtRecordEvent(e, s) || aclrtSynchronizeEvent(e))
			w->errors++;
		if (aclrtDestroyEvent(e) || aclrtDestroyStream(s))
			w->errors++;
	}
	return NULL;
}

TEST_F(dev, create_destroy_churn)
{
	struct worker w[4];
	pthread_t th[4];

	for (int i = 0; i < 4; i++) {
		w[i] = (struct worker){ .ctx = self->ctx };
		ASSERT_EQ(0, pthread_create(&th[i], NULL, churn, &w[i]));
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, w[i].errors);
	}
}

TEST_HARNESS_MAIN
