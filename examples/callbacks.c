// SPDX-License-Identifier: MIT
/*
 * Host callbacks in a stream. With aclrtLaunchCallback a thread that
 * subscribed to the stream runs them, in its aclrtProcessReport loop; a
 * blocking one holds the stream until it returns, so it sees the copy
 * before it done and nothing after it. aclrtLaunchHostFunc needs no
 * subscription, and its functions run in stream order too.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "acl/acl.h"
#include "check.h"

#define SIZE (1u << 20)
#define HOST_FUNCS 4

/* What the callbacks see and count. */
struct shared {
	uint8_t *host;
	atomic_int calls;
	atomic_bool data_seen;	/* the blocking callback found the copied data */
	atomic_bool stop;	/* the reporting thread may end */
	atomic_int report_error;	/* what aclrtProcessReport failed with */
};

static uint8_t pattern(size_t i)
{
	return (uint8_t)(i * 131 + 35 + (i >> 12));
}

static void count_call(void *arg)
{
	struct shared *sh = arg;

	atomic_fetch_add(&sh->calls, 1);
}

/* Runs while the stream waits for it: the copy back has landed. */
static void check_data(void *arg)
{
	struct shared *sh = arg;
	size_t i;

	for (i = 0; i < SIZE && sh->host[i] == pattern(i); i++)
		;
	atomic_store(&sh->data_seen, i == SIZE);
	atomic_fetch_add(&sh->calls, 1);
}

/* The subscribed thread: runs the stream's callbacks as they come. */
static void *report_thread(void *arg)
{
	struct shared *sh = arg;

	while (!atomic_load(&sh->stop)) {
		aclError ret = aclrtProcessReport(100);

		/* No callback within 100 ms, or not subscribed yet: look again. */
		if (ret != ACL_SUCCESS && ret != ACL_ERROR_RT_REPORT_TIMEOUT &&
		    ret != ACL_ERROR_RT_THREAD_SUBSCRIBE)
			atomic_store(&sh->report_error, ret);
	}
	return NULL;
}

int main(void)
{
	struct shared sh = { 0 };
	int32_t deviceId = 0;
	aclrtContext context;
	aclrtStream stream;
	pthread_t thread;
	void *dev;

	CHECK(aclInit(NULL));
	CHECK(aclrtSetDevice(deviceId));
	CHECK(aclrtCreateContext(&context, deviceId));
	CHECK(aclrtCreateStream(&stream));
	CHECK(aclrtMallocHost((void **)&sh.host, SIZE));
	CHECK(aclrtMalloc(&dev, SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
	if (pthread_create(&thread, NULL, report_thread, &sh)) {
		fprintf(stderr, "callbacks: cannot start the reporting thread\n");
		return 1;
	}
	CHECK(aclrtSubscribeReport((uint64_t)thread, stream));

	/* A round trip through the card, then the callbacks. */
	for (size_t i = 0; i < SIZE; i++)
		sh.host[i] = pattern(i);
	CHECK(aclrtMemcpyAsync(dev, SIZE, sh.host, SIZE, ACL_MEMCPY_HOST_TO_DEVICE, stream));
	CHECK(aclrtMemsetAsync(sh.host, SIZE, 0, SIZE, stream));
	CHECK(aclrtMemcpyAsync(sh.host, SIZE, dev, SIZE, ACL_MEMCPY_DEVICE_TO_HOST, stream));
	CHECK(aclrtLaunchCallback(check_data, &sh, ACL_CALLBACK_BLOCK, stream));
	CHECK(aclrtLaunchCallback(count_call, &sh, ACL_CALLBACK_NO_BLOCK, stream));
	CHECK(aclrtSynchronizeStream(stream));
	/* The stream does not wait for the non-blocking one: give it 5 s. */
	for (int i = 0; i < 500 && atomic_load(&sh.calls) < 2; i++)
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	atomic_store(&sh.stop, true);
	pthread_join(thread, NULL);
	CHECK(aclrtUnSubscribeReport((uint64_t)thread, stream));
	if (atomic_load(&sh.report_error)) {
		fprintf(stderr, "callbacks: aclrtProcessReport failed: %d\n",
			atomic_load(&sh.report_error));
		return 1;
	}
	if (atomic_load(&sh.calls) != 2 || !atomic_load(&sh.data_seen)) {
		fprintf(stderr, "callbacks: %d call(s) of 2; the blocking one saw %s data\n",
			atomic_load(&sh.calls), atomic_load(&sh.data_seen) ? "the" : "wrong");
		return 1;
	}

	/* Host functions: no subscription; the stream waits for each. */
	atomic_store(&sh.calls, 0);
	for (int i = 0; i < HOST_FUNCS; i++)
		CHECK(aclrtLaunchHostFunc(stream, count_call, &sh));
	CHECK(aclrtSynchronizeStream(stream));
	if (atomic_load(&sh.calls) != HOST_FUNCS) {
		fprintf(stderr, "callbacks: %d host function call(s), expected %d\n",
			atomic_load(&sh.calls), HOST_FUNCS);
		return 1;
	}

	CHECK(aclrtFree(dev));
	CHECK(aclrtFreeHost(sh.host));
	CHECK(aclrtDestroyStream(stream));
	CHECK(aclrtDestroyContext(context));
	CHECK(aclrtResetDevice(deviceId));
	CHECK(aclFinalize());

	printf("callbacks: the blocking callback saw the copied data while the stream waited; "
	       "the non-blocking one ran; %d host functions ran before the synchronize "
	       "returned\n", HOST_FUNCS);
	return 0;
}
