// SPDX-License-Identifier: MIT
/*
 * Stream state callbacks (aclrtRegStreamStateCallback): functions, each
 * registered under a unique name, told of every stream of the program's
 * contexts (default streams too) just after it is made and just before it
 * is destroyed.
 *
 * They are called with no lock of this file held (a callback may register
 * or unregister), but perhaps with the device's: a callback that makes or
 * destroys streams or devices may deadlock, as the vendor documents.
 */
#include <string.h>

#include "acl_internal.h"

#define STATE_CB_MAX	32
#define STATE_NAME_MAX	128

struct state_cb {
	char name[STATE_NAME_MAX];
	aclrtStreamStateCallback fn;
	void *args;
};

static struct acl_mutex state_lock = ACL_MUTEX_INITIALIZER;
static struct state_cb state_cbs[STATE_CB_MAX];
static int state_ncbs;
static atomic_int state_any;	/* state_ncbs, read without the lock */

static int find(const char *name)
{
	int i;

	ACL_ASSERT_HELD(&state_lock);
	for (i = 0; i < state_ncbs; i++)
		if (!strcmp(state_cbs[i].name, name))
			return i;
	return -1;
}

static aclError unregister(const char *name)
{
	int i = find(name);

	if (i < 0)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "no stream state callback is registered "
				"as \"%s\"", name);
	state_cbs[i] = state_cbs[--state_ncbs];
	atomic_store(&state_any, state_ncbs);
	return ACL_SUCCESS;
}

static aclError add(const char *name, aclrtStreamStateCallback fn, void *args)
{
	if (find(name) >= 0)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "a stream state callback is already "
				"registered as \"%s\"", name);
	if (state_ncbs == STATE_CB_MAX)
		return ACL_FAIL(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "%d stream state callbacks are "
				"registered already, the most there may be", STATE_CB_MAX);
	state_cbs[state_ncbs] = (struct state_cb){ .fn = fn, .args = args };
	strcpy(state_cbs[state_ncbs].name, name);
	state_ncbs++;
	atomic_store(&state_any, state_ncbs);
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtRegStreamStateCallback(const char *regName,
						aclrtStreamStateCallback callback, void *args)
{
	aclError err;

	ACL_CHECK_NULL(regName);
	if (!regName[0] || strnlen(regName, STATE_NAME_MAX) == STATE_NAME_MAX)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "regName must have 1 to %d characters",
				STATE_NAME_MAX - 1);
	acl_mutex_lock(&state_lock);
	err = callback ? add(regName, callback, args) : unregister(regName);
	acl_mutex_unlock(&state_lock);
	return err;
}

/* Tells the registered callbacks that s was made or is about to go. */
void acl_stream_state_notify(struct acl_stream *s, aclrtStreamState state)
{
	struct state_cb cbs[STATE_CB_MAX];
	aclrtStream handle = acl_obj_handle(s);
	int i, n;

	if (!atomic_load(&state_any) || !s->ctx)
		return;
	acl_mutex_lock(&state_lock);
	n = state_ncbs;
	memcpy(cbs, state_cbs, sizeof(cbs[0]) * (size_t)n);
	acl_mutex_unlock(&state_lock);
	for (i = 0; i < n; i++)
		cbs[i].fn(handle, state, cbs[i].args);
}
