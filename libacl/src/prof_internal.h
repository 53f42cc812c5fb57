/* SPDX-License-Identifier: MIT */
/*
 * What the profiler's files share: the tasks the card stamped, the host's
 * records, and the state aclprofInit .. aclprofFinalize set up.
 */
#ifndef LIBASCENDCL_PROF_INTERNAL_H
#define LIBASCENDCL_PROF_INTERNAL_H

#include "acl/acl_prof.h"
#include "prof.h"

#define PROF_NO_MODEL		UINT32_MAX
#define PROF_PATH_MAX		4096

/* One command on the card, between its two stamps (card clock, ns). */
struct prof_task {
	char *name;		/* operator or marker; else NULL (type says it) */
	const char *type;	/* "copy H2D", "memset", an operator kind, ... */
	int32_t device;
	uint32_t stream;	/* the stream's handle index */
	bool internal;		/* one of the runtime's own (synchronous copies) */
	bool profiled;		/* in the running profile, not only a subscription */
	uint32_t model_id;	/* PROF_NO_MODEL unless a model's operator */
	uint64_t bytes;		/* copies and fills */
	uint64_t tid;		/* the thread that submitted it */
	uint64_t seq;		/* its place in its stream's order */
	uint32_t stamp;		/* its first stamp in its stream's buffers */
	uint64_t start, end;	/* card clock */
};

/* A record on the host clock (CLOCK_MONOTONIC, ns): a span or, t1 = -1, an instant. */
struct prof_host {
	char *name;
	const char *cat;	/* "api", "mark", "range", a domain's name ... */
	uint64_t tid;
	int64_t t0, t1;
};

/* What a profile collected, for the trace writer (prof_trace.c). */
struct prof_result {
	const char *dir;
	unsigned int number;		/* of the profile in this process */
	uint64_t types;			/* ACL_PROF_* asked for */
	uint32_t mem_freq;		/* memory traffic samples a second, 0: none */
	uint64_t storage_limit;		/* bytes, 0: none */
	int64_t host_start;		/* aclprofStart on the host clock */
	int64_t card_offset[ACL_MAX_DEVICES];	/* host clock - card clock */
	struct prof_task *tasks;
	size_t ntasks;
	struct prof_host *host;
	size_t nhost;
	uint64_t dropped;		/* tasks whose stamps did not arrive */
	uint64_t aged_out;		/* records dropped for the storage limit */
};

/* Writes the trace and summary; may reorder and shorten r's arrays (not free them). */
aclError prof_write_result(struct prof_result *r);

/* Host records (prof_mark.c): a leaf lock of their own. */
void prof_host_add(const char *name, const char *cat, int64_t t0, int64_t t1);
/* Takes every host record made so far. */
struct prof_host *prof_host_take(size_t *n);
void prof_host_free(struct prof_host *h, size_t n);
void prof_host_clear(void);
uint64_t prof_thread_id(void);

/* Whether markers are recorded now (a profile runs with ACL_PROF_MSPROFTX). */
bool prof_markers_on(void);
/* Whether host spans of submissions are recorded now. */
bool prof_api_on_locked(void);
/* A marker task on stream: one stamp pair around a NOP, named msg. */
aclError prof_card_marker(aclrtStream stream, const char *msg, const char *type);

/* Subscriptions (prof_sub.c), called with acl_prof_lock held. */
bool prof_sub_wants_locked(uint32_t model_id);
void prof_sub_deliver_locked(const struct prof_task *t, int64_t card_offset);
bool prof_sub_any_locked(void);

/* Stamps of every profiled stream read in, waiting for the work (prof.c). */
void prof_harvest_all_locked(void);
int64_t prof_card_offset_locked(int32_t device);
void prof_update_stamping_locked(void);
bool prof_inited_locked(void);
bool prof_device_profiled_locked(int32_t d);
extern struct acl_mutex acl_prof_lock;
/* The profile's tasks read so far (under the lock), taken by aclprofStop. */
extern struct prof_task *prof_done;
extern size_t prof_ndone, prof_done_cap;
/* Tasks that could not be stamped or whose stamps did not arrive. */
extern _Atomic uint64_t prof_dropped;

/* The operator kind's name (enum npu_operator), "operator" if unknown. */
const char *prof_operator_name(unsigned int kind);

#endif /* LIBASCENDCL_PROF_INTERNAL_H */
