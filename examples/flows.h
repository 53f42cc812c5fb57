/* SPDX-License-Identifier: MIT */
/*
 * The vendor guide's sample flows, complete and self-checking. Each
 * example program runs one of them; acl_demo runs them all. Every flow
 * returns 0 on success and prints what it did.
 */
#ifndef EXAMPLES_FLOWS_H
#define EXAMPLES_FLOWS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acl/acl.h"

#define CHECK(call)								\
	do {									\
		aclError ret_ = (call);						\
		if (ret_ != ACL_SUCCESS) {					\
			const char *msg_ = aclGetRecentErrMsg();		\
			fprintf(stderr, "%s:%d: %s failed: %d (%s)\n", __FILE__,	\
				__LINE__, #call, ret_, msg_ ? msg_ : "no message");	\
			return 1;						\
		}								\
	} while (0)

static inline double flow_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static inline void flow_pattern(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 131 + seed * 7 + (i >> 12));
}

static inline int flow_verify(const uint8_t *p, size_t n, unsigned seed, const char *what)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i] != (uint8_t)(i * 131 + seed * 7 + (i >> 12))) {
			fprintf(stderr, "%s: byte %zu is %#x, expected %#x\n", what, i, p[i],
				(uint8_t)(i * 131 + seed * 7 + (i >> 12)));
			return 1;
		}
	}
	return 0;
}

/* Resource allocation and release: device, context, stream, in order. */
static inline int flow_resources(int32_t dev)
{
	aclrtContext ctx, cur;
	aclrtStream stream;
	aclrtRunMode mode;
	uint32_t count;
	int32_t got;

	CHECK(aclrtGetDeviceCount(&count));
	CHECK(aclrtSetDevice(dev));
	CHECK(aclrtCreateContext(&ctx, dev));
	CHECK(aclrtCreateStream(&stream));
	CHECK(aclrtGetRunMode(&mode));
	CHECK(aclrtGetCurrentContext(&cur));
	CHECK(aclrtGetDevice(&got));
	if (cur != ctx || got != dev) {
		fprintf(stderr, "resources: current context/device mismatch\n");
		return 1;
	}
	CHECK(aclrtDestroyStream(stream));
	CHECK(aclrtDestroyContext(ctx));
	CHECK(aclrtResetDevice(dev));
	printf("resources: %u device(s); device %d set, context and stream created and "
	       "released; run mode %s\n", count, dev, mode == ACL_HOST ? "ACL_HOST" : "ACL_DEVICE");
	return 0;
}

/* Synchronous and asynchronous H2D/D2H copies, verified. */
static inline int flow_memcpy(int32_t dev, size_t size)
{
	void *host_src, *host_dst, *dbuf, *dbuf2;
	uint8_t *pageable;
	aclrtStream stream;
	double t0, t1, t2;

	CHECK(aclrtSetDevice(dev));
	CHECK(aclrtCreateStream(&stream));
	CHECK(aclrtMallocHost(&host_src, size));
	CHECK(aclrtMallocHost(&host_dst, size));
	CHECK(aclrtMalloc(&dbuf, size, ACL_MEM_MALLOC_HUGE_FIRST));
	CHECK(aclrtMalloc(&dbuf2, size, ACL_MEM_MALLOC_NORMAL_ONLY));

	/* synchronous: host -> device -> host */
	flow_pattern(host_src, size, 1);
	memset(host_dst, 0, size);
	t0 = flow_now_ms();
	CHECK(aclrtMemcpy(dbuf, size, host_src, size, ACL_MEMCPY_HOST_TO_DEVICE));
	CHECK(aclrtMemcpy(host_dst, size, dbuf, size, ACL_MEMCPY_DEVICE_TO_HOST));
	t1 = flow_now_ms();
	if (flow_verify(host_dst, size, 1, "sync copy"))
		return 1;

	/* asynchronous, pinned memory: H2D, D2D, D2H in one stream */
	flow_pattern(host_src, size, 2);
	memset(host_dst, 0, size);
	CHECK(aclrtMemcpyAsync(dbuf, size, host_src, size, ACL_MEMCPY_HOST_TO_DEVICE, stream));
	CHECK(aclrtMemcpyAsync(dbuf2, size, dbuf, size, ACL_MEMCPY_DEVICE_TO_DEVICE, stream));
	CHECK(aclrtMemcpyAsync(host_dst, size, dbuf2, size, ACL_MEMCPY_DEVICE_TO_HOST, stream));
	CHECK(aclrtSynchronizeStream(stream));
	t2 = flow_now_ms();
	if (flow_verify(host_dst, size, 2, "async copy"))
		return 1;

	/* asynchronous from ordinary (pageable) memory, kind inferred */
	pageable = malloc(size);
	if (!pageable)
		return 1;
	flow_pattern(pageable, size, 3);
	CHECK(aclrtMemcpyAsync(dbuf, size, pageable, size, ACL_MEMCPY_DEFAULT, stream));
	memset(pageable, 0, size);	/* allowed: the call finished with it */
	CHECK(aclrtMemcpyAsync(pageable, size, dbuf, size, ACL_MEMCPY_DEFAULT, stream));
	if (flow_verify(pageable, size, 3, "pageable copy"))
		return 1;
	free(pageable);

	CHECK(aclrtFree(dbuf2));
	CHECK(aclrtFree(dbuf));
	CHECK(aclrtFreeHost(host_dst));
	CHECK(aclrtFreeHost(host_src));
	CHECK(aclrtDestroyStream(stream));
	CHECK(aclrtResetDevice(dev));
	printf("memcpy: %zu bytes verified: sync H2D+D2H %.2f ms, async H2D+D2D+D2H %.2f ms, "
	       "pageable async (DEFAULT kind) verified\n", size, t1 - t0, t2 - t1);
	return 0;
}

/* Event synchronization: the host waits for a point in a stream. */
static inline int flow_event_sync(int32_t dev)
{
	aclrtEventRecordedStatus st;
	aclrtStream stream;
	aclrtEvent event;
	void *dbuf;
	size_t size = 1 << 20;

	CHECK(aclrtSetDevice(dev));
	CHECK(aclrtCreateEventExWithFlag(&event, ACL_EVENT_CAPTURE_STREAM_PROGRESS));
	CHECK(aclrtCreateStream(&stream));
	CHECK(aclrtMalloc(&dbuf, size, ACL_MEM_MALLOC_HUGE_FIRST));
	CHECK(aclrtMemsetAsync(dbuf, size, 0x5a, size, stream));
	CHECK(aclrtRecordEvent(event, stream));
	CHECK(aclrtSynchronizeEvent(event));
	CHECK(aclrtQueryEventStatus(event, &st));
	if (st != ACL_EVENT_RECORDED_STATUS_COMPLETE) {
		fprintf(stderr, "event: not complete after synchronize\n");
		return 1;
	}
	CHECK(aclrtFree(dbuf));
	CHECK(aclrtDestroyStream(stream));
	CHECK(aclrtDestroyEvent(event));
	CHECK(aclrtResetDevice(dev));
	printf("event sync: recorded after a 1 MiB memset, synchronized, query says complete\n");
	return 0;
}

/* One stream waits, on the device, for an event recorded on another. */
static inline int flow_stream_wait(int32_t dev)
{
	size_t size = 4 << 20;
	aclrtStream s1, s2;
	aclrtEvent event;
	void *a, *b, *host;

	CHECK(aclrtSetDevice(dev));
	CHECK(aclrtCreateEventExWithFlag(&event, ACL_EVENT_SYNC));
	CHECK(aclrtCreateStream(&s1));
	CHECK(aclrtCreateStream(&s2));
	CHECK(aclrtMalloc(&a, size, ACL_MEM_MALLOC_HUGE_FIRST));
	CHECK(aclrtMalloc(&b, size, ACL_MEM_MALLOC_HUGE_FIRST));
	CHECK(aclrtMallocHost(&host, size));
	flow_pattern(host, size, 4);
	/* s1 produces a; s2 consumes it only after the event */
	CHECK(aclrtMemcpyAsync(a, size, host, size, ACL_MEMCPY_HOST_TO_DEVICE, s1));
	CHECK(aclrtRecordEvent(event, s1));
	CHECK(aclrtStreamWaitEvent(s2, event));
	CHECK(aclrtMemcpyAsync(b, size, a, size, ACL_MEMCPY_DEVICE_TO_DEVICE, s2));
	CHECK(aclrtMemsetAsync(host, size, 0, size, s2));
	CHECK(aclrtMemcpyAsync(host, size, b, size, ACL_MEMCPY_DEVICE_TO_HOST, s2));
	CHECK(aclrtSynchronizeStream(s2));
	if (flow_verify(host, size, 4, "stream wait"))
		return 1;
	CHECK(aclrtFreeHost(host));
	CHECK(aclrtFree(b));
	CHECK(aclrtFree(a));
	CHECK(aclrtDestroyStream(s2));
	CHECK(aclrtDestroyStream(s1));
	CHECK(aclrtDestroyEvent(event));
	CHECK(aclrtResetDevice(dev));
	printf("stream wait: stream 2 waited on the card for stream 1's event; 4 MiB verified\n");
	return 0;
}

/* aclrtSynchronizeDevice waits for every stream of the device. */
static inline int flow_device_sync(int32_t dev)
{
	size_t size = 2 << 20;
	aclrtStream s[3];
	aclrtStreamStatus st;
	void *d[3];
	int i;

	CHECK(aclrtSetDevice(dev));
	for (i = 0; i < 3; i++) {
		CHECK(aclrtCreateStream(&s[i]));
		CHECK(aclrtMalloc(&d[i], size, ACL_MEM_MALLOC_HUGE_FIRST));
		CHECK(aclrtMemsetAsync(d[i], size, i, size, s[i]));
	}
	CHECK(aclrtSynchronizeDevice());
	for (i = 0; i < 3; i++) {
		CHECK(aclrtStreamQuery(s[i], &st));
		if (st != ACL_STREAM_STATUS_COMPLETE) {
			fprintf(stderr, "device sync: stream %d still busy\n", i);
			return 1;
		}
		CHECK(aclrtFree(d[i]));
		CHECK(aclrtDestroyStream(s[i]));
	}
	CHECK(aclrtResetDevice(dev));
	printf("device sync: 3 streams with 2 MiB fills each, all complete after "
	       "aclrtSynchronizeDevice\n");
	return 0;
}

/* Device time between two events around a copy. */
static inline int flow_elapsed(int32_t dev, size_t size)
{
	aclrtEvent start, end;
	aclrtStream stream;
	uint64_t ts0, ts1;
	void *host, *dbuf;
	float ms;

	CHECK(aclrtSetDevice(dev));
	CHECK(aclrtCreateStream(&stream));
	CHECK(aclrtCreateEvent(&start));
	CHECK(aclrtCreateEvent(&end));
	CHECK(aclrtMallocHost(&host, size));
	CHECK(aclrtMalloc(&dbuf, size, ACL_MEM_MALLOC_HUGE_FIRST));
	memset(host, 1, size);
	CHECK(aclrtRecordEvent(start, stream));
	CHECK(aclrtMemcpyAsync(dbuf, size, host, size, ACL_MEMCPY_HOST_TO_DEVICE, stream));
	CHECK(aclrtRecordEvent(end, stream));
	CHECK(aclrtSynchronizeStream(stream));
	CHECK(aclrtEventElapsedTime(&ms, start, end));
	CHECK(aclrtEventGetTimestamp(start, &ts0));
	CHECK(aclrtEventGetTimestamp(end, &ts1));
	if (ms < 0 || ts1 < ts0) {
		fprintf(stderr, "elapsed: time runs backwards\n");
		return 1;
	}
	CHECK(aclrtFree(dbuf));
	CHECK(aclrtFreeHost(host));
	CHECK(aclrtDestroyEvent(end));
	CHECK(aclrtDestroyEvent(start));
	CHECK(aclrtDestroyStream(stream));
	CHECK(aclrtResetDevice(dev));
	printf("elapsed time: %zu-byte H2D copy took %.3f ms of device time (%.1f MB/s); "
	       "timestamps %llu -> %llu us\n", size, ms, ms > 0 ? size / (ms * 1e3) : 0.0,
	       (unsigned long long)ts0, (unsigned long long)ts1);
	return 0;
}

struct flow_cb_state {
	atomic_int calls;
	atomic_int order_ok;
	atomic_int exit;
	void *host;
};

static inline void flow_cb_count(void *arg)
{
	struct flow_cb_state *st = arg;

	atomic_fetch_add(&st->calls, 1);
}

/* Runs while the stream is stalled on the card: the copy has landed. */
static inline void flow_cb_check(void *arg)
{
	struct flow_cb_state *st = arg;

	if (!flow_verify(st->host, 1 << 20, 5, "callback"))
		atomic_store(&st->order_ok, 1);
	atomic_fetch_add(&st->calls, 1);
}

static inline void *flow_cb_thread(void *arg)
{
	struct flow_cb_state *st = arg;

	while (!atomic_load(&st->exit))
		aclrtProcessReport(100);
	return NULL;
}

/* Callbacks: subscribed thread (blocking and not) and host functions. */
static inline int flow_callbacks(int32_t dev)
{
	struct flow_cb_state st = { 0 };
	size_t size = 1 << 20;
	aclrtStream stream;
	pthread_t th;
	void *dbuf;
	int hostfn_calls;

	CHECK(aclrtSetDevice(dev));
	CHECK(aclrtCreateStream(&stream));
	CHECK(aclrtMallocHost(&st.host, size));
	CHECK(aclrtMalloc(&dbuf, size, ACL_MEM_MALLOC_HUGE_FIRST));
	if (pthread_create(&th, NULL, flow_cb_thread, &st))
		return 1;
	CHECK(aclrtSubscribeReport((uint64_t)th, stream));

	flow_pattern(st.host, size, 5);
	CHECK(aclrtMemcpyAsync(dbuf, size, st.host, size, ACL_MEMCPY_HOST_TO_DEVICE, stream));
	CHECK(aclrtMemsetAsync(st.host, size, 0, size, stream));
	CHECK(aclrtMemcpyAsync(st.host, size, dbuf, size, ACL_MEMCPY_DEVICE_TO_HOST, stream));
	CHECK(aclrtLaunchCallback(flow_cb_check, &st, ACL_CALLBACK_BLOCK, stream));
	CHECK(aclrtLaunchCallback(flow_cb_count, &st, ACL_CALLBACK_NO_BLOCK, stream));
	CHECK(aclrtSynchronizeStream(stream));
	/* the non-blocking one may still be on its way */
	for (int i = 0; i < 500 && atomic_load(&st.calls) < 2; i++) {
		struct timespec ts = { 0, 10000000 };

		nanosleep(&ts, NULL);
	}
	CHECK(aclrtUnSubscribeReport((uint64_t)th, stream));
	atomic_store(&st.exit, 1);
	pthread_join(th, NULL);
	if (atomic_load(&st.calls) != 2 || !atomic_load(&st.order_ok)) {
		fprintf(stderr, "callbacks: %d call(s), data seen by callback %s\n",
			atomic_load(&st.calls), atomic_load(&st.order_ok) ? "ok" : "wrong");
		return 1;
	}

	/* host functions need no subscription and block the stream */
	atomic_store(&st.calls, 0);
	for (int i = 0; i < 4; i++)
		CHECK(aclrtLaunchHostFunc(stream, flow_cb_count, &st));
	CHECK(aclrtSynchronizeStream(stream));
	hostfn_calls = atomic_load(&st.calls);
	if (hostfn_calls != 4) {
		fprintf(stderr, "callbacks: %d host function call(s), expected 4\n", hostfn_calls);
		return 1;
	}
	CHECK(aclrtFree(dbuf));
	CHECK(aclrtFreeHost(st.host));
	CHECK(aclrtDestroyStream(stream));
	CHECK(aclrtResetDevice(dev));
	printf("callbacks: blocking callback saw the copied data while the stream waited; "
	       "non-blocking callback ran; 4 host functions ran in order before sync returned\n");
	return 0;
}

#endif /* EXAMPLES_FLOWS_H */
