// SPDX-License-Identifier: MIT
/*
 * Configuring and controlling a stream after the fact: creation from a
 * configuration handle (aclrtCreateStreamV2), attributes, stopping and
 * aborting its work.
 *
 * A stopped stream (aclrtStreamStop) has its queued work dropped, as by an
 * abort, and then accepts no work, reporting ACL_ERROR_RT_STREAM_ABORT,
 * until aclrtStreamAbort restarts it or it is destroyed: the work stops
 * but the stream is not cleaned up for reuse.
 */
#include <stdlib.h>

#include "acl_internal.h"

/*
 * Drops the queued work of s (s->lock held): its rings are destroyed with
 * abort and replaced, its pending callbacks dropped.
 */
aclError acl_stream_restart_locked(struct acl_stream *s)
{
	struct acl_kstream *k, *nk, *dk;
	aclError err;

	ACL_ASSERT_HELD(&s->lock);
	k = atomic_load(&s->kst);
	err = acl_kstream_new(s, &nk);
	if (err)
		return err;
	dk = atomic_load(&s->dst);
	acl_kstream_retire(s->dev, k);
	nk->older = k;
	if (dk) {
		acl_kstream_retire(s->dev, dk);
		dk->older = k->older;
		k->older = dk;
		atomic_store(&s->dst, acl_direct_new(s));
	}
	atomic_store(&s->kst, nk);
	atomic_store(&s->last, nk);
	s->sticky_err = 0;
	atomic_store(&s->pending_err, 0);
	acl_cb_stream_failed(s);
	return ACL_SUCCESS;
}

/* A stopped stream's ring is a fresh one, without an error of its own. */
const char *acl_stream_refusal_text(struct acl_stream *s, struct acl_kstream *k)
{
	uint32_t e = acl_kstream_err(s->dev, k);

	return e ? acl_slot_error_text(e) : "it was stopped by aclrtStreamStop; aclrtStreamAbort "
		   "restarts it";
}

static struct acl_stream *explicit_stream(const char *fn, aclrtStream stream, aclError *err)
{
	if (!stream) {
		*err = acl_fail(fn, ACL_ERROR_INVALID_PARAM, "the default stream (NULL) is not "
				"allowed here: name a stream made by aclrtCreateStream");
		return NULL;
	}
	return acl_stream_resolve(stream, err);
}

ACL_EXPORT aclError aclrtStreamAbort(aclrtStream stream)
{
	aclError err = ACL_SUCCESS;
	struct acl_stream *s = explicit_stream(__func__, stream, &err);

	if (!s)
		return err;
	acl_mutex_lock(&s->lock);
	err = acl_stream_restart_locked(s);
	acl_mutex_unlock(&s->lock);
	return err;
}

ACL_EXPORT aclError aclrtStreamStop(aclrtStream stream)
{
	aclError err = ACL_SUCCESS;
	struct acl_stream *s = explicit_stream(__func__, stream, &err);

	if (!s)
		return err;
	acl_mutex_lock(&s->lock);
	err = acl_stream_restart_locked(s);
	if (!err)
		s->sticky_err = ACL_ERROR_RT_STREAM_ABORT;
	acl_mutex_unlock(&s->lock);
	return err;
}

/* ---- configuration handles --------------------------------------------- */

ACL_EXPORT aclrtStreamConfigHandle *aclrtCreateStreamConfigHandle(void)
{
	aclrtStreamConfigHandle *h = calloc(1, sizeof(*h));

	if (!h)
		ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of host memory");
	else
		h->priority = DRM_NPU_PRIORITY_HIGHEST;	/* as aclrtCreateStream */
	return h;
}

ACL_EXPORT aclError aclrtDestroyStreamConfigHandle(aclrtStreamConfigHandle *handle)
{
	ACL_CHECK_NULL(handle);
	free(handle);
	return ACL_SUCCESS;
}

/* A uint32_t or size_t option's value. */
static aclError config_value(const void *v, size_t size, uint64_t *out)
{
	if (size == sizeof(uint32_t))
		*out = *(const uint32_t *)v;
	else if (size == sizeof(uint64_t))
		*out = *(const uint64_t *)v;
	else
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "valueSize %zu is neither 4 nor 8", size);
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtSetStreamConfigOpt(aclrtStreamConfigHandle *handle,
					    aclrtStreamConfigAttr attr, const void *attrValue,
					    size_t valueSize)
{
	uint64_t v = 0;
	aclError err;

	ACL_CHECK_NULL(handle);
	ACL_CHECK_NULL(attrValue);
	switch (attr) {
	case ACL_RT_STREAM_WORK_ADDR_PTR:
	case ACL_RT_STREAM_WORK_SIZE:
		return ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "streams on this card take no "
				"workspace memory: attribute %d is not supported", (int)attr);
	case ACL_RT_STREAM_FLAG:
		err = config_value(attrValue, valueSize, &v);
		if (!err)
			handle->flag = (size_t)v;	/* checked when the stream is made */
		return err;
	case ACL_RT_STREAM_PRIORITY:
		err = config_value(attrValue, valueSize, &v);
		if (err)
			return err;
		if (v > DRM_NPU_PRIORITY_LOWEST)
			return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "priority %llu is outside 0..%d",
					(unsigned long long)v, DRM_NPU_PRIORITY_LOWEST);
		handle->priority = (uint32_t)v;
		return ACL_SUCCESS;
	default:
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown stream config attribute %d", (int)attr);
	}
}

ACL_EXPORT aclError aclrtCreateStreamV2(aclrtStream *stream, const aclrtStreamConfigHandle *handle)
{
	ACL_CHECK_NULL(stream);
	ACL_CHECK_NULL(handle);
	if (handle->flag > UINT32_MAX)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown stream flags %#zx", handle->flag);
	return aclrtCreateStreamWithConfig(stream, handle->priority, (uint32_t)handle->flag);
}

/* ---- attributes -------------------------------------------------------- */

#define OVERFLOW_ATTR_MSG "the stream attribute FLOAT_OVERFLOW_CHECK is not supported: " \
	"overflow detection is aclrtSetStreamOverflowSwitch's"

ACL_EXPORT aclError aclrtSetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType,
					    aclrtStreamAttrValue *value)
{
	aclError err = ACL_SUCCESS;
	struct acl_stream *s;

	ACL_CHECK_NULL(value);
	s = acl_stream_resolve(stream, &err);
	if (!s)
		return err;
	switch (stmAttrType) {
	case ACL_STREAM_ATTR_FAILURE_MODE:
		return aclrtSetStreamFailureMode(stream, value->failureMode);
	case ACL_STREAM_ATTR_USER_CUSTOM_TAG:
		atomic_store(&s->user_tag, value->userCustomTag);
		return ACL_SUCCESS;
	case ACL_STREAM_ATTR_PRIORITY:
		return ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "a stream's priority is fixed when "
				"it is made (aclrtCreateStreamWithConfig): the card's rings take it then");
	case ACL_STREAM_ATTR_CACHE_OP_INFO:
		return ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "caching operator information for "
				"exceptions is not supported: the exception information names the task");
	case ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK:
		return ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, OVERFLOW_ATTR_MSG);
	default:
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown stream attribute %d", (int)stmAttrType);
	}
}

ACL_EXPORT aclError aclrtGetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType,
					    aclrtStreamAttrValue *value)
{
	aclError err = ACL_SUCCESS;
	struct acl_stream *s;

	ACL_CHECK_NULL(value);
	s = acl_stream_resolve(stream, &err);
	if (!s)
		return err;
	switch (stmAttrType) {
	case ACL_STREAM_ATTR_FAILURE_MODE:
		acl_mutex_lock(&s->lock);
		value->failureMode = s->failure_mode;
		acl_mutex_unlock(&s->lock);
		return ACL_SUCCESS;
	case ACL_STREAM_ATTR_USER_CUSTOM_TAG:
		value->userCustomTag = atomic_load(&s->user_tag);
		return ACL_SUCCESS;
	case ACL_STREAM_ATTR_PRIORITY:
		value->streamPriority = s->priority;
		return ACL_SUCCESS;
	case ACL_STREAM_ATTR_CACHE_OP_INFO:
		value->cacheOpInfoSwitch = 0;	/* never on: setting it is refused */
		return ACL_SUCCESS;
	case ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK:
		return ACL_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, OVERFLOW_ATTR_MSG);
	default:
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown stream attribute %d", (int)stmAttrType);
	}
}
