/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * NPU_TIMEOUT_SCALE=<n> multiplies the harness's timeout of every test of
 * a kselftest suite: make check-debug sets it, since the debug kernel
 * (KASAN, lockdep, kmemleak) makes the guest several times slower. Only
 * the time a test may take grows; what it asserts stays.
 */
#ifndef NPU_TEST_TIMEOUT_H
#define NPU_TEST_TIMEOUT_H

#include <stdlib.h>

#include "kselftest_harness.h"

/* After every test registered itself (KSELFTEST_PRIO_TEST), before main. */
static void __attribute__((constructor(KSELFTEST_PRIO_XFAIL + 1)))
test_scale_timeouts(void)
{
	const char *env = getenv("NPU_TIMEOUT_SCALE");
	struct __fixture_metadata *f;
	struct __test_metadata *t;
	long scale = env ? strtol(env, NULL, 10) : 1;

	if (scale <= 1)
		return;
	for (f = __fixture_list; f; f = f->next)
		for (t = f->tests; t; t = t->next)
			t->timeout *= scale;
}

#endif
