/* SPDX-License-Identifier: MIT */
/*
 * The examples' one shared line of error handling, as the vendor's samples
 * keep theirs in a common header: everything else in an example is its flow.
 */
#ifndef EXAMPLES_CHECK_H
#define EXAMPLES_CHECK_H

#include <stdio.h>

#include "acl/acl.h"

/* A failed call: say which and why, and end (exiting frees the rest). */
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

#endif /* EXAMPLES_CHECK_H */
