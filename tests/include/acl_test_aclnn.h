/* SPDX-License-Identifier: MIT */
/*
 * libopapi opened at run time by the library's suites that run one aclnn
 * operator: they also run linked to the ThreadSanitizer build of
 * libascendcl, which libopapi then shares.
 */
#ifndef ACL_TEST_ACLNN_H
#define ACL_TEST_ACLNN_H

#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "acl/acl.h"

/* libopapi's calls the suites make, with opaque tensors. */
struct aclnn {
	void *lib;
	void *(*create_tensor)(const int64_t *, uint64_t, aclDataType, const int64_t *, int64_t,
			       aclFormat, const int64_t *, uint64_t, void *);
	void *(*create_scalar)(void *, aclDataType);
	int32_t (*destroy_tensor)(const void *);
	int32_t (*destroy_scalar)(const void *);
	int32_t (*add_ws)(const void *, const void *, const void *, void *, uint64_t *, void **);
	int32_t (*add)(void *, uint64_t, void *, aclrtStream);
};

static inline bool aclnn_open(struct aclnn *nn)
{
	char exe[PATH_MAX], path[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	/* build/tests/acl, or build/tsan/tests/acl: libopapi is in build/lib */
	const char *const tries[] = { "%s/../../lib/libopapi.so", "%s/../../../lib/libopapi.so" };
	const char *dir;

	if (n < 0)
		return false;
	exe[n] = '\0';
	dir = dirname(exe);
	nn->lib = NULL;
	for (size_t i = 0; i < 2 && !nn->lib; i++) {
		snprintf(path, sizeof(path), tries[i], dir);
		nn->lib = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
	}
	if (!nn->lib)
		return false;
	*(void **)&nn->create_tensor = dlsym(nn->lib, "aclCreateTensor");
	*(void **)&nn->create_scalar = dlsym(nn->lib, "aclCreateScalar");
	*(void **)&nn->destroy_tensor = dlsym(nn->lib, "aclDestroyTensor");
	*(void **)&nn->destroy_scalar = dlsym(nn->lib, "aclDestroyScalar");
	*(void **)&nn->add_ws = dlsym(nn->lib, "aclnnAddGetWorkspaceSize");
	*(void **)&nn->add = dlsym(nn->lib, "aclnnAdd");
	return nn->create_tensor && nn->create_scalar && nn->destroy_tensor &&
	       nn->destroy_scalar && nn->add_ws && nn->add;
}

#endif /* ACL_TEST_ACLNN_H */
