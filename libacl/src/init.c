// SPDX-License-Identifier: MIT
/*
 * aclInit / aclFinalize. Initialization counts references: every aclInit
 * adds one (the second and later return ACL_ERROR_REPEAT_INITIALIZE, which
 * callers treat as success), aclFinalizeReference drops one, aclFinalize
 * drops them all. The last one going releases every device, stream, event
 * and buffer of the process.
 *
 * The teardown waits for running callbacks, which may call the runtime, so
 * it runs without the init lock: "finalizing" keeps aclInit waiting until
 * it is done (failing at once in a callback, which the teardown may be
 * waiting for).
 *
 * The configuration file is JSON (parsed with json-c). Recognised keys:
 *   "defaultDevice": {"default_device": "<id>"}   device used by threads
 *                                                 that set none
 *   "err_msg_mode": "0" | "1"                     accepted (messages are
 *                                                 always per thread here)
 * Other sections ("dump", "profiler", ...) are accepted and ignored.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <json-c/json.h>

#include "acl_internal.h"
#include "init_callback.h"

struct acl_mutex acl_init_lock = ACL_MUTEX_INITIALIZER;
_Atomic int32_t acl_default_device = -1;
bool acl_default_taken;
static uint64_t init_refs;
static bool finalizing;
static pthread_cond_t finalized = PTHREAD_COND_INITIALIZER;

/* Reads a small integer given as a JSON number or a decimal string. */
static bool json_int(struct json_object *o, long *out)
{
	const char *s;
	char *end;

	if (json_object_is_type(o, json_type_int)) {
		*out = (long)json_object_get_int64(o);
		return true;
	}
	if (!json_object_is_type(o, json_type_string))
		return false;
	s = json_object_get_string(o);
	errno = 0;
	*out = strtol(s, &end, 10);
	return *s && !*end && !errno;
}

/* The whole file at path, NUL-terminated, into *text (*len bytes). */
static aclError read_config(const char *path, char **text, size_t *len)
{
	struct stat sb;
	FILE *f;
	aclError err = ACL_SUCCESS;

	*text = NULL;
	f = fopen(path, "re");
	if (!f)
		return ACL_FAIL(ACL_ERROR_INVALID_FILE, "cannot open config file %s: %s", path,
				strerror(errno));
	if (fstat(fileno(f), &sb) || !S_ISREG(sb.st_mode))
		err = ACL_FAIL(ACL_ERROR_INVALID_FILE, "config file %s is not a regular file", path);
	else if (sb.st_size > (10L << 20))
		err = ACL_FAIL(ACL_ERROR_INVALID_FILE_SIZE, "config file %s is too large", path);
	else if (!(*text = calloc(1, (size_t)sb.st_size + 1)))
		err = ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory reading %s", path);
	else {
		*len = fread(*text, 1, (size_t)sb.st_size, f);
		if (ferror(f))
			err = ACL_FAIL(ACL_ERROR_INVALID_FILE, "cannot read config file %s", path);
	}
	fclose(f);
	if (err) {
		free(*text);
		*text = NULL;
	}
	return err;
}

static bool blank(const char *s)
{
	return !s[strspn(s, " \t\r\n")];
}

/* On success *text is the file's text, for the init callbacks; the caller frees it. */
static aclError parse_config(const char *path, int32_t *default_device, char **text, size_t *len)
{
	struct json_tokener *tok;
	struct json_object *root = NULL, *o, *dev;
	long v;
	aclError err;

	*default_device = -1;
	*len = 0;
	err = read_config(path, text, len);
	if (err)
		return err;
	if (blank(*text))
		return ACL_SUCCESS;	/* an empty file: default configuration */

	/* "{" and "[" nest at most 10 deep in an ACL config. */
	tok = json_tokener_new_ex(10);
	root = tok ? json_tokener_parse_ex(tok, *text, (int)*len) : NULL;
	if (!root || json_tokener_get_error(tok) != json_tokener_success) {
		err = ACL_FAIL(ACL_ERROR_PARSE_FILE, "config file %s is not valid JSON: %s", path,
			       tok ? json_tokener_error_desc(json_tokener_get_error(tok)) : "no memory");
		goto out;
	}
	/* The tokener stops after the first value; anything after it is an error. */
	if (!blank(*text + json_tokener_get_parse_end(tok))) {
		err = ACL_FAIL(ACL_ERROR_PARSE_FILE, "config file %s: text after the JSON object",
			       path);
		goto out;
	}
	if (!json_object_is_type(root, json_type_object)) {
		err = ACL_FAIL(ACL_ERROR_PARSE_FILE, "config file %s: top level is not an object", path);
		goto out;
	}
	if (json_object_object_get_ex(root, "defaultDevice", &o)) {
		if (!json_object_is_type(o, json_type_object) ||
		    !json_object_object_get_ex(o, "default_device", &dev) ||
		    !json_int(dev, &v) || v < 0 || v >= ACL_MAX_DEVICES) {
			err = ACL_FAIL(ACL_ERROR_FILE_ATTR_INVALID,
				       "config file %s: defaultDevice.default_device must be a device id",
				       path);
			goto out;
		}
		*default_device = (int32_t)v;
	}
	if (json_object_object_get_ex(root, "err_msg_mode", &o) &&
	    (!json_int(o, &v) || (v != 0 && v != 1))) {
		err = ACL_FAIL(ACL_ERROR_FILE_ATTR_INVALID, "config file %s: err_msg_mode must be 0 or 1",
			       path);
		goto out;
	}
	json_object_object_foreach(root, key, val) {
		(void)val;
		if (strcmp(key, "defaultDevice") && strcmp(key, "err_msg_mode"))
			ACL_LOGI("config key \"%s\" is ignored by this runtime", key);
	}
out:
	json_object_put(root);
	if (tok)
		json_tokener_free(tok);
	if (err) {
		free(*text);
		*text = NULL;
	}
	return err;
}

ACL_EXPORT aclError aclInit(const char *configPath)
{
	int32_t defdev = -1;
	aclError err = ACL_SUCCESS;
	char *config = NULL;
	size_t config_len = 0;

	acl_log_init();
	acl_mutex_lock(&acl_init_lock);
	while (finalizing && !acl_cb_running())
		acl_cond_wait(&finalized, &acl_init_lock);
	if (finalizing) {
		acl_mutex_unlock(&acl_init_lock);
		return ACL_FAIL(ACL_ERROR_RT_DEVICE_TASK_ABORT,
				"aclFinalize is under way and waits for this callback");
	}
	if (init_refs) {
		init_refs++;
		acl_mutex_unlock(&acl_init_lock);
		return ACL_ERROR_REPEAT_INITIALIZE;
	}
	if (configPath && *configPath) {
		err = parse_config(configPath, &defdev, &config, &config_len);
		if (err) {
			acl_mutex_unlock(&acl_init_lock);
			return err;
		}
	}
	acl_enumerate_devices(true);
	if (defdev >= acl_ndevices) {
		acl_mutex_unlock(&acl_init_lock);
		free(config);
		return ACL_FAIL(ACL_ERROR_RT_INVALID_DEVICEID,
				"default_device %d does not exist (%d device(s))", defdev, acl_ndevices);
	}
	acl_default_device = defdev;
	acl_default_taken = false;
	init_refs = 1;
	acl_mutex_unlock(&acl_init_lock);
	ACL_LOGI("initialized: %d device(s)", acl_ndevices);
	return acl_init_callbacks_run(config, config_len);
}

/*
 * Called with acl_init_lock held when the last reference goes; drops it
 * while it waits. The default device stops standing in first, so that a
 * callback running meanwhile does not take it again. Devices close before
 * the worker stops: their running callbacks are waited for, queued ones
 * dropped.
 */
static void teardown_locked(void)
{
	ACL_ASSERT_HELD(&acl_init_lock);
	init_refs = 0;
	acl_default_device = -1;
	acl_default_taken = false;
	finalizing = true;
	acl_mutex_unlock(&acl_init_lock);
	acl_finalize_callbacks_run();
	acl_device_shutdown_all();
	acl_cb_shutdown();
	acl_hostmem_drop(NULL);
	acl_mutex_lock(&acl_init_lock);
	finalizing = false;
	pthread_cond_broadcast(&finalized);
}

ACL_EXPORT aclError aclFinalize(void)
{
	acl_mutex_lock(&acl_init_lock);
	if (!init_refs) {
		acl_mutex_unlock(&acl_init_lock);
		return ACL_FAIL(ACL_ERROR_REPEAT_FINALIZE, "aclFinalize without aclInit");
	}
	teardown_locked();
	acl_mutex_unlock(&acl_init_lock);
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclFinalizeReference(uint64_t *refCount)
{
	acl_mutex_lock(&acl_init_lock);
	if (!init_refs) {
		acl_mutex_unlock(&acl_init_lock);
		return ACL_FAIL(ACL_ERROR_REPEAT_FINALIZE, "aclFinalizeReference without aclInit");
	}
	if (--init_refs == 0)
		teardown_locked();
	if (refCount)
		*refCount = init_refs;
	acl_mutex_unlock(&acl_init_lock);
	return ACL_SUCCESS;
}
