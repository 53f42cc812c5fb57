// SPDX-License-Identifier: MIT
/*
 * Callbacks that modules register to run in aclInit and aclFinalize
 * (aclInitCallbackRegister and the rest). An init callback gets the config
 * file's text; one registered while the runtime is initialized runs at
 * once, with the text aclInit read. Finalize callbacks run before the
 * devices close, so they may still free what they hold on them.
 * Registering the same function for the same type again replaces its
 * userData. Callbacks run without any lock of this library held: they may
 * call the runtime, register and unregister.
 */
#include <stdlib.h>
#include <string.h>

#include "acl_internal.h"
#include "init_callback.h"

struct reg_callback {
	struct reg_callback *next;
	aclRegisterCallbackType type;
	bool finalize;
	union {
		aclInitCallbackFunc init;
		aclFinalizeCallbackFunc fini;
		void (*any)(void);
	} fn;
	void *user;
};

static struct acl_mutex initcb_lock = ACL_MUTEX_INITIALIZER;
static struct reg_callback *registered;		/* in registration order */
static bool initialized;
static char *kept_config;
static size_t kept_len;

static bool type_known(aclRegisterCallbackType type)
{
	return (unsigned)type <= ACL_REG_TYPE_ACL_RETR || type == ACL_REG_TYPE_OTHER;
}

static struct reg_callback **find_locked(aclRegisterCallbackType type, bool finalize,
					 void (*fn)(void))
{
	struct reg_callback **p;

	ACL_ASSERT_HELD(&initcb_lock);
	for (p = &registered; *p; p = &(*p)->next)
		if ((*p)->type == type && (*p)->finalize == finalize && (*p)->fn.any == fn)
			return p;
	return p;
}

static aclError add(const char *fn, aclRegisterCallbackType type, bool finalize,
		    void (*cb)(void), void *user, char **config, size_t *len)
{
	struct reg_callback **p;

	if (!cb)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "cbFunc is NULL");
	if (!type_known(type))
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "unknown register type %d", (int)type);
	acl_mutex_lock(&initcb_lock);
	p = find_locked(type, finalize, cb);
	if (!*p) {
		*p = calloc(1, sizeof(**p));
		if (!*p) {
			acl_mutex_unlock(&initcb_lock);
			return acl_fail(fn, ACL_ERROR_BAD_ALLOC, "out of memory");
		}
		**p = (struct reg_callback){ .type = type, .finalize = finalize, .fn.any = cb };
	}
	(*p)->user = user;
	*config = NULL;
	*len = 0;
	if (initialized && !finalize) {
		*config = kept_config ? strndup(kept_config, kept_len) : strdup("");
		*len = kept_config ? kept_len : 0;
	}
	acl_mutex_unlock(&initcb_lock);
	if (initialized && !finalize && !*config)
		return acl_fail(fn, ACL_ERROR_BAD_ALLOC, "out of memory");
	return ACL_SUCCESS;
}

static aclError drop(const char *fn, aclRegisterCallbackType type, bool finalize, void (*cb)(void))
{
	struct reg_callback **p, *gone;

	if (!cb)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "cbFunc is NULL");
	acl_mutex_lock(&initcb_lock);
	p = find_locked(type, finalize, cb);
	gone = *p;
	if (gone)
		*p = gone->next;
	acl_mutex_unlock(&initcb_lock);
	if (!gone)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM,
				"no such callback is registered for type %d", (int)type);
	free(gone);
	return ACL_SUCCESS;
}

/* The registered callbacks of one kind, copied, so that they run unlocked. */
static struct reg_callback *snapshot(bool finalize, size_t *n)
{
	struct reg_callback *r, *v;
	size_t i = 0;

	acl_mutex_lock(&initcb_lock);
	*n = 0;
	for (r = registered; r; r = r->next)
		*n += r->finalize == finalize;
	v = calloc(*n ? *n : 1, sizeof(*v));
	for (r = registered; v && r; r = r->next)
		if (r->finalize == finalize)
			v[i++] = *r;
	acl_mutex_unlock(&initcb_lock);
	if (!v)
		*n = 0;
	return v;
}

aclError acl_init_callbacks_run(char *config, size_t len)
{
	struct reg_callback *v;
	aclError first = ACL_SUCCESS, err;
	size_t n, i;

	acl_mutex_lock(&initcb_lock);
	free(kept_config);
	kept_config = config;
	kept_len = config ? len : 0;
	initialized = true;
	acl_mutex_unlock(&initcb_lock);

	v = snapshot(false, &n);
	for (i = 0; i < n; i++) {
		err = v[i].fn.init(config ? config : "", config ? len : 0, v[i].user);
		if (err && !first)
			first = acl_fail("aclInit", err, "the init callback of register type %d "
					 "failed with %d (the runtime stays initialized)",
					 (int)v[i].type, err);
	}
	free(v);
	return first;
}

void acl_finalize_callbacks_run(void)
{
	struct reg_callback *v;
	size_t n, i;
	aclError err;

	acl_mutex_lock(&initcb_lock);
	initialized = false;
	free(kept_config);
	kept_config = NULL;
	kept_len = 0;
	acl_mutex_unlock(&initcb_lock);

	v = snapshot(true, &n);
	for (i = 0; i < n; i++) {
		err = v[i].fn.fini(v[i].user);
		if (err)
			ACL_LOGW("the finalize callback of register type %d failed with %d",
				 (int)v[i].type, err);
	}
	free(v);
}

ACL_EXPORT aclError aclInitCallbackRegister(aclRegisterCallbackType type,
					    aclInitCallbackFunc cbFunc, void *userData)
{
	char *config;
	size_t len;
	aclError err;

	err = add(__func__, type, false, (void (*)(void))cbFunc, userData, &config, &len);
	if (err || !config)
		return err;
	err = cbFunc(config, len, userData);
	free(config);
	if (err)
		return ACL_FAIL(err, "the init callback, run at once since the runtime is "
				"initialized, failed with %d", err);
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclInitCallbackUnRegister(aclRegisterCallbackType type,
					      aclInitCallbackFunc cbFunc)
{
	return drop(__func__, type, false, (void (*)(void))cbFunc);
}

ACL_EXPORT aclError aclFinalizeCallbackRegister(aclRegisterCallbackType type,
						aclFinalizeCallbackFunc cbFunc, void *userData)
{
	char *config;
	size_t len;

	return add(__func__, type, true, (void (*)(void))cbFunc, userData, &config, &len);
}

ACL_EXPORT aclError aclFinalizeCallbackUnRegister(aclRegisterCallbackType type,
						  aclFinalizeCallbackFunc cbFunc)
{
	return drop(__func__, type, true, (void (*)(void))cbFunc);
}
