// SPDX-License-Identifier: MIT
/*
 * Model subscription: each operator of each execution of a subscribed
 * model, timed by the card's stamps (prof_collect.c), written as one
 * fixed-size record to the subscriber's file descriptor once its stamps
 * are read (at aclprofModelUnSubscribe, which then closes the descriptor,
 * or when the stream goes); aclprofGetOp* read those records.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model.h"
#include "prof_internal.h"

#define OP_RECORD_MAGIC		0x504f504eu	/* "NPOP" */
#define PROF_MAX_SUBS		64

/* What the descriptor receives per operator. */
struct prof_op_record {
	uint32_t magic;
	uint32_t model_id;
	uint64_t start, end;		/* host clock (CLOCK_MONOTONIC), ns */
	uint32_t flag;			/* aclprofSubscribeOpFlag */
	uint32_t rsvd;
	char type[ACL_PROF_MAX_OP_TYPE_LEN];
	char name[ACL_PROF_MAX_OP_NAME_LEN];
	char thread[22];		/* the submitting thread's id, in decimal */
};

struct aclprofSubscribeConfig {
	int8_t time_info;
	aclprofAicoreMetrics metrics;
	int fd;
};

/* Under acl_prof_lock. */
static struct {
	uint32_t model_id;
	int fd;
} subs[PROF_MAX_SUBS];
static size_t nsubs;
/* Models the graph engine named before loading them (MsprofSetDeviceIdByGeModelIdx). */
static struct {
	uint32_t model_id, device;
} registered[PROF_MAX_SUBS];
static size_t nregistered;

static int sub_find_locked(uint32_t model_id)
{
	for (size_t i = 0; i < nsubs; i++)
		if (subs[i].model_id == model_id)
			return (int)i;
	return -1;
}

bool prof_sub_wants_locked(uint32_t model_id)
{
	return sub_find_locked(model_id) >= 0;
}

bool prof_sub_any_locked(void)
{
	return nsubs > 0;
}

static void write_whole(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ACL_LOGW("subscription descriptor %d: %s", fd, n ? strerror(errno) : "closed");
			return;
		}
		p += n;
		len -= (size_t)n;
	}
}

void prof_sub_deliver_locked(const struct prof_task *t, int64_t card_offset)
{
	struct prof_op_record r = { .magic = OP_RECORD_MAGIC, .model_id = t->model_id,
				    .flag = ACL_SUBSCRIBE_OP };
	int i = sub_find_locked(t->model_id);

	if (i < 0)
		return;
	r.start = (uint64_t)((int64_t)t->start + card_offset);
	r.end = (uint64_t)((int64_t)t->end + card_offset);
	snprintf(r.type, sizeof(r.type), "%s", t->type);
	snprintf(r.name, sizeof(r.name), "%s", t->name ? t->name : t->type);
	snprintf(r.thread, sizeof(r.thread), "%llu", (unsigned long long)t->tid);
	write_whole(subs[i].fd, &r, sizeof(r));
}

ACL_EXPORT aclprofSubscribeConfig *aclprofCreateSubscribeConfig(int8_t timeInfoSwitch,
								aclprofAicoreMetrics aicoreMetrics,
								void *fd)
{
	struct aclprofSubscribeConfig *c;

	if (timeInfoSwitch != 0 && timeInfoSwitch != 1) {
		ACL_FAIL(ACL_ERROR_INVALID_PARAM, "timeInfoSwitch %d: 0 or 1", timeInfoSwitch);
		return NULL;
	}
	if (aicoreMetrics > ACL_AICORE_MEMORY_ACCESS && aicoreMetrics != ACL_AICORE_NONE) {
		ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown aicoreMetrics %d", (int)aicoreMetrics);
		return NULL;
	}
	if (!fd || *(int *)fd < 0) {
		ACL_FAIL(ACL_ERROR_INVALID_PARAM, "fd does not point to a file descriptor");
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory");
		return NULL;
	}
	c->time_info = timeInfoSwitch;
	c->metrics = aicoreMetrics;
	c->fd = *(int *)fd;
	return c;
}

ACL_EXPORT aclError aclprofDestroySubscribeConfig(const aclprofSubscribeConfig *profSubscribeConfig)
{
	ACL_CHECK_NULL(profSubscribeConfig);
	free((void *)profSubscribeConfig);
	return ACL_SUCCESS;
}

static bool model_known(uint32_t model_id)
{
	struct acl_model *m;
	aclError err;
	bool named = false;

	acl_mutex_lock(&acl_prof_lock);
	for (size_t i = 0; i < nregistered; i++)
		named |= registered[i].model_id == model_id;
	acl_mutex_unlock(&acl_prof_lock);
	if (named)
		return true;
	m = acl_model_get(model_id, &err);
	if (m)
		acl_model_put(m);
	return m != NULL;
}

ACL_EXPORT aclError aclprofModelSubscribe(uint32_t modelId,
					  const aclprofSubscribeConfig *profSubscribeConfig)
{
	aclError err = ACL_SUCCESS;

	ACL_CHECK_NULL(profSubscribeConfig);
	if (!model_known(modelId))
		return ACL_FAIL(ACL_ERROR_INVALID_MODEL_ID, "model %u is not loaded", modelId);
	acl_mutex_lock(&acl_prof_lock);
	if (prof_inited_locked())
		err = ACL_FAIL(ACL_ERROR_PROF_API_CONFLICT, "profiling is initialized: model "
			       "subscription and aclprofInit .. aclprofFinalize do not mix");
	else if (sub_find_locked(modelId) >= 0)
		err = ACL_FAIL(ACL_ERROR_PROF_REPEAT_SUBSCRIBE, "model %u is subscribed already",
			       modelId);
	else if (nsubs == PROF_MAX_SUBS)
		err = ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%d models are subscribed already",
			       PROF_MAX_SUBS);
	if (!err) {
		subs[nsubs].model_id = modelId;
		subs[nsubs++].fd = profSubscribeConfig->fd;
		prof_update_stamping_locked();
	}
	acl_mutex_unlock(&acl_prof_lock);
	return err;
}

ACL_EXPORT aclError aclprofModelUnSubscribe(uint32_t modelId)
{
	aclError err = ACL_SUCCESS;
	int i, fd = -1;

	acl_mutex_lock(&acl_prof_lock);
	i = sub_find_locked(modelId);
	if (i < 0) {
		err = ACL_FAIL(ACL_ERROR_INVALID_MODEL_ID, "model %u is not subscribed", modelId);
	} else {
		prof_harvest_all_locked();
		fd = subs[i].fd;
		subs[i] = subs[--nsubs];
		prof_update_stamping_locked();
	}
	acl_mutex_unlock(&acl_prof_lock);
	/* The reader sees the end of the records. */
	if (fd >= 0)
		close(fd);
	return err;
}

ACL_EXPORT int32_t MsprofSetDeviceIdByGeModelIdx(const uint32_t geModelIdx, const uint32_t deviceId)
{
	int32_t ret = 0;

	acl_mutex_lock(&acl_prof_lock);
	for (size_t i = 0; i < nregistered; i++) {
		if (registered[i].model_id == geModelIdx) {
			registered[i].device = deviceId;
			goto out;
		}
	}
	if (nregistered == PROF_MAX_SUBS)
		ret = -1;
	else
		registered[nregistered++] = (typeof(registered[0])){ geModelIdx, deviceId };
out:
	acl_mutex_unlock(&acl_prof_lock);
	return ret;
}

/* ---- reading the records ---------------------------------------------- */

static const struct prof_op_record *record_at(const void *info, size_t len, uint32_t i,
					      const char *fn)
{
	const struct prof_op_record *r;

	if (!info || !len || len % sizeof(*r)) {
		acl_fail(fn, ACL_ERROR_INVALID_PARAM, "opInfo %p of %zu bytes is not whole records "
			 "of %zu bytes", info, len, sizeof(*r));
		return NULL;
	}
	if (i >= len / sizeof(*r)) {
		acl_fail(fn, ACL_ERROR_INVALID_PARAM, "index %u: opInfo holds %zu records", i,
			 len / sizeof(*r));
		return NULL;
	}
	r = (const struct prof_op_record *)info + i;
	if (r->magic != OP_RECORD_MAGIC) {
		acl_fail(fn, ACL_ERROR_INVALID_PARAM, "record %u is not an operator's", i);
		return NULL;
	}
	return r;
}

ACL_EXPORT aclError aclprofGetOpDescSize(size_t *opDescSize)
{
	ACL_CHECK_NULL(opDescSize);
	*opDescSize = sizeof(struct prof_op_record);
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclprofGetOpNum(const void *opInfo, size_t opInfoLen, uint32_t *opNumber)
{
	ACL_CHECK_NULL(opNumber);
	if (!record_at(opInfo, opInfoLen, 0, __func__))
		return ACL_ERROR_INVALID_PARAM;
	*opNumber = (uint32_t)(opInfoLen / sizeof(struct prof_op_record));
	return ACL_SUCCESS;
}

static aclError text_len(const void *info, size_t len, uint32_t i, size_t *out, bool name,
			 const char *fn)
{
	const struct prof_op_record *r = record_at(info, len, i, fn);

	if (!out)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "the length's pointer is NULL");
	if (!r)
		return ACL_ERROR_INVALID_PARAM;
	*out = strnlen(name ? r->name : r->type, name ? sizeof(r->name) : sizeof(r->type)) + 1;
	return ACL_SUCCESS;
}

static aclError text_copy(const void *info, size_t len, uint32_t i, char *out, size_t n,
			  bool name, const char *fn)
{
	const struct prof_op_record *r = record_at(info, len, i, fn);
	const char *text;

	if (!out)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "the output is NULL");
	if (!r)
		return ACL_ERROR_INVALID_PARAM;
	text = name ? r->name : r->type;
	if (strnlen(text, name ? sizeof(r->name) : sizeof(r->type)) + 1 > n)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "%zu bytes do not hold \"%s\"", n, text);
	strcpy(out, text);
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclprofGetOpTypeLen(const void *opInfo, size_t opInfoLen, uint32_t index,
					size_t *opTypeLen)
{
	return text_len(opInfo, opInfoLen, index, opTypeLen, false, __func__);
}

ACL_EXPORT aclError aclprofGetOpType(const void *opInfo, size_t opInfoLen, uint32_t index,
				     char *opType, size_t opTypeLen)
{
	return text_copy(opInfo, opInfoLen, index, opType, opTypeLen, false, __func__);
}

ACL_EXPORT aclError aclprofGetOpNameLen(const void *opInfo, size_t opInfoLen, uint32_t index,
					size_t *opNameLen)
{
	return text_len(opInfo, opInfoLen, index, opNameLen, true, __func__);
}

ACL_EXPORT aclError aclprofGetOpName(const void *opInfo, size_t opInfoLen, uint32_t index,
				     char *opName, size_t opNameLen)
{
	return text_copy(opInfo, opInfoLen, index, opName, opNameLen, true, __func__);
}

ACL_EXPORT uint64_t aclprofGetOpStart(const void *opInfo, size_t opInfoLen, uint32_t index)
{
	const struct prof_op_record *r = record_at(opInfo, opInfoLen, index, __func__);

	return r ? r->start : 0;
}

ACL_EXPORT uint64_t aclprofGetOpEnd(const void *opInfo, size_t opInfoLen, uint32_t index)
{
	const struct prof_op_record *r = record_at(opInfo, opInfoLen, index, __func__);

	return r ? r->end : 0;
}

ACL_EXPORT uint64_t aclprofGetOpDuration(const void *opInfo, size_t opInfoLen, uint32_t index)
{
	const struct prof_op_record *r = record_at(opInfo, opInfoLen, index, __func__);

	return r ? r->end - r->start : 0;
}

ACL_EXPORT size_t aclprofGetModelId(const void *opInfo, size_t opInfoLen, uint32_t index)
{
	const struct prof_op_record *r = record_at(opInfo, opInfoLen, index, __func__);

	return r ? r->model_id : (size_t)-1;
}

ACL_EXPORT aclprofSubscribeOpFlag aclprofGetOpFlag(const void *opInfo, size_t opInfoLen,
						   uint32_t index)
{
	const struct prof_op_record *r = record_at(opInfo, opInfoLen, index, __func__);

	return r ? (aclprofSubscribeOpFlag)r->flag : ACL_SUBSCRIBE_NONE;
}

ACL_EXPORT const char *aclprofGetOpAttriValue(const void *opInfo, size_t opInfoLen,
					      uint32_t index, aclprofSubscribeOpAttri attri)
{
	const struct prof_op_record *r = record_at(opInfo, opInfoLen, index, __func__);

	if (!r)
		return NULL;
	if (attri != ACL_SUBSCRIBE_ATTRI_THREADID) {
		ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown attribute %d", (int)attri);
		return NULL;
	}
	return r->thread;
}
