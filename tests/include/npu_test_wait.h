/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Waiting for what changes behind a test's back: a counter or a state that
 * the card, or the driver's interrupt and retire paths, update in their own
 * time. A test polls the state until it holds, up to a deadline generous
 * enough for a loaded host; it never sleeps a fixed time and then reads,
 * since a busy host can stall the guest for longer than any such time.
 */
#ifndef NPU_TEST_WAIT_H
#define NPU_TEST_WAIT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

/* How long a test waits for the card to reach a state it must reach. */
#define TEST_SETTLE_MS	10000

static inline int64_t test_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * Evaluates @cond every millisecond until it holds or @timeout_ms passed;
 * true if it held. The last look comes after the last sleep, so a poller
 * stalled past the deadline still sees a state reached meanwhile.
 */
#define test_wait_until(cond, timeout_ms) ({				\
	int64_t __end = test_now_ns() + (int64_t)(timeout_ms) * 1000000;	\
	bool __held;							\
									\
	while (!(__held = (cond)) && test_now_ns() < __end)		\
		usleep(1000);						\
	__held;								\
})

#endif /* NPU_TEST_WAIT_H */
