/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the libascendcl tests: data patterns, the card's
 * sysfs/debugfs seen through an ACL device (the helpers themselves, shared
 * with the driver's tests, are in tests/include/npu_test_sysfs.h) and a
 * device-side "gate" that holds a stream back until the test opens it
 * (aclrtValueWait on a device word, opened by aclrtValueWrite from another
 * stream).
 */
#ifndef ACL_TEST_H
#define ACL_TEST_H

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl.h"
#include "kselftest_harness.h"
#include "npu_test_sysfs.h"

static inline double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static inline void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static inline uint8_t pat(size_t i, unsigned seed)
{
	return (uint8_t)(i * 167 + seed * 13 + (i >> 11) + (i >> 19));
}

static inline void fill_pat(void *p, size_t n, unsigned seed)
{
	uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		b[i] = pat(i, seed);
}

/* Index of the first wrong byte, or -1. */
static inline long check_pat(const void *p, size_t n, unsigned seed)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i] != pat(i, seed))
			return (long)i;
	return -1;
}

static inline bool acl_ok_init(void)
{
	aclError r = aclInit(NULL);

	return r == ACL_SUCCESS || r == ACL_ERROR_REPEAT_INITIALIZE;
}

/*
 * The fixture of suites that need ACL initialized and device 0 set for
 * each test, and nothing more. Expand it after kselftest_harness.h.
 */
#define ACL_DEVICE0_FIXTURE(name)				\
	FIXTURE(name) {						\
		int unused;					\
	};							\
	FIXTURE_SETUP(name)					\
	{							\
		ASSERT_TRUE(acl_ok_init());			\
		ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));	\
	}							\
	FIXTURE_TEARDOWN(name)					\
	{							\
		aclrtResetDevice(0);				\
		aclFinalize();					\
	}

/*
 * What the three event queries say about e: 1 complete, 0 not ready, -1
 * when one fails or they disagree. Makes no system call of its own.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static inline int event_state(aclrtEvent e)
{
	aclrtEventRecordedStatus st;
	aclrtEventWaitStatus ws;
	aclrtEventStatus old;

	if (aclrtQueryEventStatus(e, &st) || aclrtQueryEventWaitStatus(e, &ws) ||
	    aclrtQueryEvent(e, &old))
		return -1;
	if (st == ACL_EVENT_RECORDED_STATUS_COMPLETE && ws == ACL_EVENT_WAIT_STATUS_COMPLETE &&
	    old == ACL_EVENT_STATUS_COMPLETE)
		return 1;
	if (st == ACL_EVENT_RECORDED_STATUS_NOT_READY && ws == ACL_EVENT_WAIT_STATUS_NOT_READY &&
	    old == ACL_EVENT_STATUS_NOT_READY)
		return 0;
	return -1;
}
#pragma GCC diagnostic pop

/* PCI address of an ACL device. */
static inline int dev_bdf(int32_t dev, char *bdf, size_t len)
{
	return aclrtDeviceGetPCIBusId(dev, bdf, (int32_t)len) == ACL_SUCCESS ? 0 : -1;
}

/* Creates a stream and tells which ring it got (-1 if unknown). */
static inline int create_stream_ring(int32_t dev, aclrtStream *s)
{
	int before[128], after[128], nb, na, i, j;
	char bdf[64];

	if (dev_bdf(dev, bdf, sizeof(bdf)))
		return -1;
	nb = test_own_rings(bdf, before, 128);
	if (aclrtCreateStream(s) != ACL_SUCCESS)
		return -1;
	na = test_own_rings(bdf, after, 128);
	for (i = 0; i < na; i++) {
		for (j = 0; j < nb && before[j] != after[i]; j++)
			;
		if (j == nb)
			return after[i];
	}
	return -1;
}

/* Arms a fault: "dma", "hang", "delay <us>", ..., on a ring of a device. */
static inline int inject(int32_t dev, const char *kind, int ring, int arg)
{
	char bdf[64], val[64];

	if (dev_bdf(dev, bdf, sizeof(bdf)))
		return -1;
	if (arg >= 0)
		snprintf(val, sizeof(val), "%s %d %d", kind, ring, arg);
	else
		snprintf(val, sizeof(val), "%s %d", kind, ring);
	return test_inject(bdf, val);
}

/* For a teardown: no fault a test armed stays on device 0's rings. */
static inline void clear_faults(void)
{
	char bdf[64];

	if (!dev_bdf(0, bdf, sizeof(bdf)))
		test_clear_faults(bdf);
}

static inline bool fault_injection_available(void)
{
	char bdf[64];

	return !dev_bdf(0, bdf, sizeof(bdf)) && test_can_inject(bdf);
}

/*
 * A gate: stream s stops at aclrtValueWait(word >= 1) until gate_open
 * writes 1 from another stream. Device memory comes from aclrtMalloc.
 */
struct gate {
	void *word;
	aclrtStream opener;
};

static inline aclError gate_init(struct gate *g)
{
	aclError r = aclrtMalloc(&g->word, 64, ACL_MEM_MALLOC_NORMAL_ONLY);

	if (!r)
		r = aclrtMemset(g->word, 64, 0, 64);
	if (!r)
		r = aclrtCreateStream(&g->opener);
	return r;
}

static inline aclError gate_close_on(struct gate *g, aclrtStream s)
{
	return aclrtValueWait(g->word, 1, ACL_STREAM_WAIT_VALUE_GEQ, s);
}

static inline aclError gate_open(struct gate *g)
{
	aclError r = aclrtValueWrite(g->word, 1, 0, g->opener);

	return r ? r : aclrtSynchronizeStream(g->opener);
}

static inline void gate_fini(struct gate *g)
{
	aclrtDestroyStream(g->opener);
	aclrtFree(g->word);
}

#endif /* ACL_TEST_H */
