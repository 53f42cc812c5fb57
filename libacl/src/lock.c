// SPDX-License-Identifier: MIT
/*
 * The lock checks' verdict (acl_internal.h): a helper that needs a lock
 * was called without it, a bug in libascendcl that would corrupt state
 * silently, so it stops the process where it happened.
 */
#include <stdio.h>
#include <stdlib.h>

#include "acl_internal.h"

void acl_lock_not_held(const char *func, const char *lock)
{
	fprintf(stderr, "libascendcl: %s() called without holding %s\n", func, lock);
	abort();
}
