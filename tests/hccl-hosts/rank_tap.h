/* SPDX-License-Identifier: MIT */
/*
 * TAP for the programs of tests/hccl-hosts: each rank prints its own lines,
 * which tests/hccl-hosts/run merges into one stream naming the rank.
 */
#ifndef HCCL_HOSTS_RANK_TAP_H
#define HCCL_HOSTS_RANK_TAP_H

#include <stdio.h>
#include <stdlib.h>

static int tests_run, tests_failed;

static void check(int ok, const char *what)
{
	tests_run++;
	if (!ok)
		tests_failed++;
	printf("%s %d - %s\n", ok ? "ok" : "not ok", tests_run, what);
	fflush(stdout);
}

static void die(const char *what)
{
	printf("Bail out! %s\n", what);
	fflush(stdout);
	exit(1);
}

#endif
