/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Clocks and medians for the benchmarks that run on the host
 * (oplib-bench, mdl-bench-prof): nanoseconds as uint64_t.
 */
#ifndef BENCH_CLOCK_H
#define BENCH_CLOCK_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static inline uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static inline int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Sorts @v: v[0] is then the minimum. */
static inline uint64_t median_u64(uint64_t *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

#endif /* BENCH_CLOCK_H */
