// SPDX-License-Identifier: MIT
/*
 * The host's side of a profile: its records (submissions, markers,
 * ranges) on the host clock, and the calls that make markers and ranges:
 * aclprof stamps, pushes and ranges, aclprofMarkEx, step stamps and mstx.
 * A marker given a stream also marks that stream's timeline on the card.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mstx/ms_tools_ext.h"
#include "prof_internal.h"

#define PROF_MSG_MAX	1024	/* bytes of a stamp's message, its NUL included */
#define PROF_STACK_MAX	64	/* pushes a thread may nest */

struct prof_stamp {
	uint32_t magic;
	char msg[PROF_MSG_MAX];
};

struct aclprofStepInfo {
	uint32_t magic;
	uint64_t step;
	bool started;
};

struct mstxDomainRegistrationSt {
	uint32_t magic;
	char name[128];
};

struct prof_range {
	uint64_t id;
	char *name;
	const char *cat;
	uint64_t tid;
	int64_t t0;
	aclrtStream stream;
	bool on_stream;
	struct prof_range *next;
};

#define STAMP_MAGIC	0x70737461u
#define STEP_MAGIC	0x70737465u
#define DOMAIN_MAGIC	0x70646f6du

/* The host records, and the open ranges: a leaf lock. */
static struct acl_mutex host_lock = ACL_MUTEX_INITIALIZER;
static struct prof_host *host_recs;
static size_t nhost, host_cap;
static struct prof_range *ranges;
static uint64_t next_range = 1;

static __thread struct {
	char *name[PROF_STACK_MAX];
	int64_t t0[PROF_STACK_MAX];
	int depth;
} stack;

uint64_t prof_thread_id(void)
{
	return (uint64_t)syscall(SYS_gettid);
}

void prof_host_add(const char *name, const char *cat, int64_t t0, int64_t t1)
{
	struct prof_host *v;
	char *copy = strdup(name);

	if (!copy)
		return;
	acl_mutex_lock(&host_lock);
	if (nhost == host_cap) {
		size_t cap = host_cap ? 2 * host_cap : 256;

		v = realloc(host_recs, cap * sizeof(*v));
		if (!v) {
			acl_mutex_unlock(&host_lock);
			free(copy);
			return;
		}
		host_recs = v;
		host_cap = cap;
	}
	host_recs[nhost++] = (struct prof_host){ copy, cat, prof_thread_id(), t0, t1 };
	acl_mutex_unlock(&host_lock);
}

struct prof_host *prof_host_take(size_t *n)
{
	struct prof_host *h;

	acl_mutex_lock(&host_lock);
	h = host_recs;
	*n = nhost;
	host_recs = NULL;
	nhost = host_cap = 0;
	acl_mutex_unlock(&host_lock);
	return h;
}

void prof_host_free(struct prof_host *h, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(h[i].name);
	free(h);
}

void prof_host_clear(void)
{
	size_t n;
	struct prof_host *h = prof_host_take(&n);

	prof_host_free(h, n);
}

/* An instant on the host's track and, given a stream, a marker task on the card. */
static aclError mark(const char *msg, const char *cat, aclrtStream stream, bool on_stream)
{
	if (!prof_markers_on())
		return ACL_SUCCESS;
	prof_host_add(msg, cat, acl_now_ns(), -1);
	return on_stream ? prof_card_marker(stream, msg, "marker") : ACL_SUCCESS;
}

static uint64_t range_open(const char *msg, const char *cat, aclrtStream stream, bool on_stream)
{
	struct prof_range *r;

	if (!prof_markers_on())
		return MSTX_INVALID_RANGE_ID;
	r = calloc(1, sizeof(*r));
	if (!r || !(r->name = strdup(msg))) {
		free(r);
		return MSTX_INVALID_RANGE_ID;
	}
	if (on_stream && prof_card_marker(stream, msg, "range start")) {
		free(r->name);
		free(r);
		return MSTX_INVALID_RANGE_ID;
	}
	r->cat = cat;
	r->tid = prof_thread_id();
	r->stream = stream;
	r->on_stream = on_stream;
	r->t0 = acl_now_ns();
	acl_mutex_lock(&host_lock);
	r->id = next_range++;
	r->next = ranges;
	ranges = r;
	acl_mutex_unlock(&host_lock);
	return r->id;
}

static bool range_close(uint64_t id)
{
	struct prof_range **p, *r = NULL;
	int64_t t1 = acl_now_ns();

	acl_mutex_lock(&host_lock);
	for (p = &ranges; *p; p = &(*p)->next) {
		if ((*p)->id == id) {
			r = *p;
			*p = r->next;
			break;
		}
	}
	acl_mutex_unlock(&host_lock);
	if (!r)
		return false;
	prof_host_add(r->name, r->cat, r->t0, t1);
	if (r->on_stream)
		prof_card_marker(r->stream, r->name, "range end");
	free(r->name);
	free(r);
	return true;
}

static struct prof_stamp *stamp_of(void *stamp)
{
	struct prof_stamp *s = stamp;

	return s && s->magic == STAMP_MAGIC ? s : NULL;
}

ACL_EXPORT void *aclprofCreateStamp(void)
{
	struct prof_stamp *s = calloc(1, sizeof(*s));

	if (!s) {
		ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory");
		return NULL;
	}
	s->magic = STAMP_MAGIC;
	return s;
}

ACL_EXPORT void aclprofDestroyStamp(void *stamp)
{
	struct prof_stamp *s = stamp_of(stamp);

	if (!s) {
		ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%p is not a stamp", stamp);
		return;
	}
	s->magic = 0;
	free(s);
}

ACL_EXPORT aclError aclprofSetStampTraceMessage(void *stamp, const char *msg, uint32_t msgLen)
{
	struct prof_stamp *s = stamp_of(stamp);

	if (!s)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%p is not a stamp", stamp);
	ACL_CHECK_NULL(msg);
	if (!msgLen || msgLen >= PROF_MSG_MAX)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "msgLen %u: give 1 to %d bytes", msgLen,
				PROF_MSG_MAX - 1);
	memcpy(s->msg, msg, strnlen(msg, msgLen));
	s->msg[strnlen(msg, msgLen)] = '\0';
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclprofMark(void *stamp)
{
	struct prof_stamp *s = stamp_of(stamp);

	if (!s)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%p is not a stamp", stamp);
	return mark(s->msg, "mark", NULL, false);
}

ACL_EXPORT aclError aclprofMarkEx(const char *msg, size_t msgLen, aclrtStream stream)
{
	char text[PROF_MSG_MAX];

	ACL_CHECK_NULL(msg);
	if (!msgLen || msgLen >= PROF_MSG_MAX || strnlen(msg, msgLen) != msgLen)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "msgLen %zu: the message's length, 1 to "
				"%d bytes", msgLen, PROF_MSG_MAX - 1);
	memcpy(text, msg, msgLen);
	text[msgLen] = '\0';
	return mark(text, "mark", stream, true);
}

static aclError push(const char *name)
{
	if (stack.depth == PROF_STACK_MAX)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "more than %d pushes open on this thread",
				PROF_STACK_MAX);
	if (!prof_markers_on())
		name = NULL;	/* kept only for its pop */
	stack.name[stack.depth] = name ? strdup(name) : NULL;
	stack.t0[stack.depth++] = acl_now_ns();
	return ACL_SUCCESS;
}

static aclError pop(void)
{
	char *name;

	if (!stack.depth)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "no push is open on this thread");
	name = stack.name[--stack.depth];
	if (name && prof_markers_on())
		prof_host_add(name, "push", stack.t0[stack.depth], acl_now_ns());
	free(name);
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclprofPush(void *stamp)
{
	struct prof_stamp *s = stamp_of(stamp);

	if (!s)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%p is not a stamp", stamp);
	return push(s->msg);
}

ACL_EXPORT aclError aclprofPop(void)
{
	return pop();
}

ACL_EXPORT aclError aclprofRangePushEx(aclprofEventAttributes *attr)
{
	char name[64];

	ACL_CHECK_NULL(attr);
	if (attr->version != ACL_PROF_EVENT_ATTR_VERSION ||
	    attr->messageType != ACL_PROF_MESSAGE_TYPE_TENSOR_INFO || !attr->message.tensorInfo)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "attr: version %u, message type %u, "
				"tensor info %p", attr->version, attr->messageType,
				(void *)attr->message.tensorInfo);
	snprintf(name, sizeof(name), "op %#llx",
		 (unsigned long long)attr->message.tensorInfo->opNameId);
	return push(name);
}

ACL_EXPORT aclError aclprofRangePop(void)
{
	return pop();
}

ACL_EXPORT aclError aclprofRangeStart(void *stamp, uint32_t *rangeId)
{
	struct prof_stamp *s = stamp_of(stamp);
	uint64_t id;

	if (!s)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%p is not a stamp", stamp);
	ACL_CHECK_NULL(rangeId);
	id = range_open(s->msg, "range", NULL, false);
	*rangeId = (uint32_t)id;
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclprofRangeStop(uint32_t rangeId)
{
	/* A range opened while no profile recorded markers has id 0: nothing to close. */
	if (!rangeId)
		return ACL_SUCCESS;
	if (!range_close(rangeId))
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "range %u is not open", rangeId);
	return ACL_SUCCESS;
}

/* FNV-1a: the same id for the same text, in every process. */
ACL_EXPORT uint64_t aclprofStr2Id(const char *message)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	if (!message)
		return 0;
	for (; *message; message++)
		h = (h ^ (uint8_t)*message) * 0x100000001b3ULL;
	return h;
}

ACL_EXPORT aclprofStepInfo *aclprofCreateStepInfo(void)
{
	struct aclprofStepInfo *s = calloc(1, sizeof(*s));

	if (!s) {
		ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory");
		return NULL;
	}
	s->magic = STEP_MAGIC;
	return s;
}

ACL_EXPORT void aclprofDestroyStepInfo(aclprofStepInfo *stepinfo)
{
	if (!stepinfo || stepinfo->magic != STEP_MAGIC) {
		ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%p is not a step info", (void *)stepinfo);
		return;
	}
	stepinfo->magic = 0;
	free(stepinfo);
}

ACL_EXPORT aclError aclprofGetStepTimestamp(aclprofStepInfo *stepInfo, aclprofStepTag tag,
					    aclrtStream stream)
{
	char name[64];

	if (!stepInfo || stepInfo->magic != STEP_MAGIC)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%p is not a step info", (void *)stepInfo);
	if (tag != ACL_STEP_START && tag != ACL_STEP_END)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "unknown step tag %d", (int)tag);
	if ((tag == ACL_STEP_START) == stepInfo->started)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "step %llu is %s",
				(unsigned long long)stepInfo->step,
				stepInfo->started ? "started already" : "not started");
	snprintf(name, sizeof(name), "step %llu %s", (unsigned long long)stepInfo->step,
		 tag == ACL_STEP_START ? "start" : "end");
	if (prof_markers_on()) {
		aclError err = prof_card_marker(stream, name, "step");

		if (err)
			return err;
		prof_host_add(name, "step", acl_now_ns(), -1);
	}
	stepInfo->started = tag == ACL_STEP_START;
	if (tag == ACL_STEP_END)
		stepInfo->step++;
	return ACL_SUCCESS;
}

/* ---- mstx -------------------------------------------------------------- */

static mstxDomainHandle_t domain_of(mstxDomainHandle_t d)
{
	return d && d->magic == DOMAIN_MAGIC ? d : NULL;
}

ACL_EXPORT void mstxMarkA(const char *message, aclrtStream stream)
{
	if (message)
		mark(message, "mstx", stream, stream != NULL);
}

ACL_EXPORT mstxRangeId mstxRangeStartA(const char *message, aclrtStream stream)
{
	return message ? range_open(message, "mstx", stream, stream != NULL) : MSTX_INVALID_RANGE_ID;
}

ACL_EXPORT void mstxRangeEnd(mstxRangeId id)
{
	if (id)
		range_close(id);
}

ACL_EXPORT mstxDomainHandle_t mstxDomainCreateA(const char *name)
{
	mstxDomainHandle_t d;

	if (!name || !*name || strlen(name) >= sizeof(d->name))
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->magic = DOMAIN_MAGIC;
	strcpy(d->name, name);
	return d;
}

ACL_EXPORT void mstxDomainDestroy(mstxDomainHandle_t domain)
{
	mstxDomainHandle_t d = domain_of(domain);

	if (d) {
		d->magic = 0;
		free(d);
	}
}

/*
 * A domain's records carry its name as their category; the name outlives
 * the domain in the trace, so it is copied into the record's text.
 */
static void domain_text(char *out, size_t n, mstxDomainHandle_t d, const char *message)
{
	snprintf(out, n, "%s: %s", d->name, message);
}

ACL_EXPORT void mstxDomainMarkA(mstxDomainHandle_t domain, const char *message,
				aclrtStream stream)
{
	mstxDomainHandle_t d = domain_of(domain);
	char text[PROF_MSG_MAX];

	if (!d || !message)
		return;
	domain_text(text, sizeof(text), d, message);
	mark(text, "mstx domain", stream, stream != NULL);
}

ACL_EXPORT mstxRangeId mstxDomainRangeStartA(mstxDomainHandle_t domain, const char *message,
					     aclrtStream stream)
{
	mstxDomainHandle_t d = domain_of(domain);
	char text[PROF_MSG_MAX];

	if (!d || !message)
		return MSTX_INVALID_RANGE_ID;
	domain_text(text, sizeof(text), d, message);
	return range_open(text, "mstx domain", stream, stream != NULL);
}

ACL_EXPORT void mstxDomainRangeEnd(mstxDomainHandle_t domain, mstxRangeId id)
{
	if (domain_of(domain) && id)
		range_close(id);
}
