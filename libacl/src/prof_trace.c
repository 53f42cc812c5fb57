// SPDX-License-Identifier: MIT
/*
 * A profile's results: a Chrome trace (JSON object format, which Perfetto
 * and chrome://tracing open) with a process per card and a track per
 * stream, the host's records on a process of their own; and a text
 * summary, time per operator kind and per stream. Both go into the
 * directory aclprofInit named, as npu_prof_<pid>_<n>.json and .txt.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prof_internal.h"

#define HOST_PID	0	/* the host's process in the trace; card d is d + 1 */

static int mkdir_p(const char *dir)
{
	char path[PROF_PATH_MAX + 1];

	snprintf(path, sizeof(path), "%s", dir);
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

static int64_t task_host_ns(const struct prof_result *r, const struct prof_task *t, uint64_t card)
{
	return (int64_t)card + r->card_offset[t->device];
}

static uint64_t track_of(const struct prof_task *t)
{
	return (t->internal ? 1ULL << 32 : 0) | t->stream;
}

static void add(json_object *o, const char *k, json_object *v)
{
	json_object_object_add(o, k, v);
}

/* Microseconds from the profile's start, as the format counts. */
static json_object *us(const struct prof_result *r, int64_t host_ns)
{
	return json_object_new_double((double)(host_ns - r->host_start) / 1000.0);
}

static json_object *meta(const char *what, int pid, uint64_t tid, const char *name)
{
	json_object *e = json_object_new_object(), *args = json_object_new_object();

	add(e, "ph", json_object_new_string("M"));
	add(e, "name", json_object_new_string(what));
	add(e, "pid", json_object_new_int(pid));
	add(e, "tid", json_object_new_uint64(tid));
	add(args, "name", json_object_new_string(name));
	add(e, "args", args);
	return e;
}

static json_object *task_event(const struct prof_result *r, const struct prof_task *t)
{
	json_object *e = json_object_new_object(), *args = json_object_new_object();
	int64_t t0 = task_host_ns(r, t, t->start), t1 = task_host_ns(r, t, t->end);

	add(e, "name", json_object_new_string(t->name ? t->name : t->type));
	add(e, "cat", json_object_new_string(t->type));
	add(e, "ph", json_object_new_string("X"));
	add(e, "pid", json_object_new_int(t->device + 1));
	add(e, "tid", json_object_new_uint64(track_of(t)));
	add(e, "ts", us(r, t0));
	add(e, "dur", json_object_new_double((double)(t1 - t0) / 1000.0));
	add(args, "type", json_object_new_string(t->type));
	add(args, "stream", json_object_new_int64(t->stream));
	add(args, "seq", json_object_new_uint64(t->seq));
	add(args, "card_start_ns", json_object_new_uint64(t->start));
	add(args, "card_end_ns", json_object_new_uint64(t->end));
	add(args, "duration_ns", json_object_new_uint64(t->end - t->start));
	if (t->model_id != PROF_NO_MODEL)
		add(args, "model_id", json_object_new_int64(t->model_id));
	if (t->bytes)
		add(args, "bytes", json_object_new_uint64(t->bytes));
	add(e, "args", args);
	return e;
}

static json_object *host_event(const struct prof_result *r, const struct prof_host *h)
{
	json_object *e = json_object_new_object();

	add(e, "name", json_object_new_string(h->name));
	add(e, "cat", json_object_new_string(h->cat));
	add(e, "ph", json_object_new_string(h->t1 < 0 ? "i" : "X"));
	add(e, "pid", json_object_new_int(HOST_PID));
	add(e, "tid", json_object_new_uint64(h->tid));
	add(e, "ts", us(r, h->t0));
	if (h->t1 < 0)
		add(e, "s", json_object_new_string("t"));
	else
		add(e, "dur", json_object_new_double((double)(h->t1 - h->t0) / 1000.0));
	return e;
}

/*
 * The bytes copies and fills moved on each card, per sampling interval
 * (ACL_PROF_SYS_HARDWARE_MEM_FREQ), each task's bytes spread evenly
 * over its duration: a counter track per card.
 */
static void memory_counters(const struct prof_result *r, json_object *events)
{
	int64_t step = 1000000000LL / r->mem_freq;

	for (int d = 0; d < ACL_MAX_DEVICES; d++) {
		int64_t lo = INT64_MAX, hi = INT64_MIN;

		for (size_t i = 0; i < r->ntasks; i++) {
			const struct prof_task *t = &r->tasks[i];

			if (t->device != d || !t->bytes)
				continue;
			lo = lo < task_host_ns(r, t, t->start) ? lo : task_host_ns(r, t, t->start);
			hi = hi > task_host_ns(r, t, t->end) ? hi : task_host_ns(r, t, t->end);
		}
		for (int64_t at = lo; lo <= hi && at <= hi; at += step) {
			json_object *e = json_object_new_object(), *args = json_object_new_object();
			double bytes = 0;

			for (size_t i = 0; i < r->ntasks; i++) {
				const struct prof_task *t = &r->tasks[i];
				int64_t a = task_host_ns(r, t, t->start), b = task_host_ns(r, t, t->end);
				int64_t from = a > at ? a : at, to = b < at + step ? b : at + step;

				if (t->device == d && t->bytes && to > from)
					bytes += (double)t->bytes * (double)(to - from) /
						 (double)(b - a > 0 ? b - a : 1);
			}
			add(e, "name", json_object_new_string("memory traffic"));
			add(e, "ph", json_object_new_string("C"));
			add(e, "pid", json_object_new_int(d + 1));
			add(e, "ts", us(r, at));
			add(args, "bytes per second", json_object_new_double(bytes * r->mem_freq));
			add(e, "args", args);
			json_object_array_add(events, e);
		}
	}
}

static json_object *trace(const struct prof_result *r)
{
	json_object *root = json_object_new_object(), *ev = json_object_new_array();
	json_object *other = json_object_new_object();
	char name[64];
	uint32_t devices = 0;

	snprintf(name, sizeof(name), "host (pid %d)", (int)getpid());
	json_object_array_add(ev, meta("process_name", HOST_PID, 0, name));
	/* The tasks are sorted by card and track: a track's name before its first. */
	for (size_t i = 0; i < r->ntasks; i++) {
		const struct prof_task *t = &r->tasks[i];

		if (!(devices >> t->device & 1)) {
			snprintf(name, sizeof(name), "NPU %d", t->device);
			json_object_array_add(ev, meta("process_name", t->device + 1, 0, name));
			devices |= 1u << t->device;
		}
		if (!i || r->tasks[i - 1].device != t->device ||
		    track_of(&r->tasks[i - 1]) != track_of(t)) {
			snprintf(name, sizeof(name), "%sstream %u", t->internal ? "internal " : "",
				 t->stream);
			json_object_array_add(ev, meta("thread_name", t->device + 1, track_of(t), name));
		}
	}
	for (size_t i = 0; i < r->ntasks; i++)
		json_object_array_add(ev, task_event(r, &r->tasks[i]));
	for (size_t i = 0; i < r->nhost; i++)
		json_object_array_add(ev, host_event(r, &r->host[i]));
	if (r->mem_freq)
		memory_counters(r, ev);
	add(root, "traceEvents", ev);
	add(root, "displayTimeUnit", json_object_new_string("ns"));
	add(other, "types", json_object_new_uint64(r->types));
	add(other, "dropped_tasks", json_object_new_uint64(r->dropped));
	add(other, "aged_out_records", json_object_new_uint64(r->aged_out));
	add(root, "otherData", other);
	return root;
}

struct total {
	int32_t device;
	const char *key;	/* operator kind, or NULL for a stream */
	uint64_t track;
	uint64_t count, ns;
};

static void total_add(struct total *v, size_t *n, const struct prof_task *t, bool by_kind)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (v[i].device == t->device &&
		    (by_kind ? !strcmp(v[i].key, t->type) : v[i].track == track_of(t)))
			break;
	if (i == *n)
		v[(*n)++] = (struct total){ t->device, by_kind ? t->type : NULL, track_of(t), 0, 0 };
	v[i].count++;
	v[i].ns += t->end - t->start;
}

static void summary(FILE *f, const struct prof_result *r)
{
	struct total *kinds = calloc(r->ntasks + 1, sizeof(*kinds));
	struct total *streams = calloc(r->ntasks + 1, sizeof(*streams));
	size_t nk = 0, ns = 0;
	uint64_t total = 0;

	if (!kinds || !streams) {
		fprintf(f, "out of memory for the summary\n");
		goto out;
	}
	for (size_t i = 0; i < r->ntasks; i++) {
		total_add(kinds, &nk, &r->tasks[i], true);
		total_add(streams, &ns, &r->tasks[i], false);
		total += r->tasks[i].end - r->tasks[i].start;
	}
	fprintf(f, "npu profile %u of process %d: %zu tasks on the card, %zu host records, "
		"%llu tasks dropped, %llu records over the storage limit aged out\n", r->number,
		(int)getpid(), r->ntasks, r->nhost, (unsigned long long)r->dropped,
		(unsigned long long)r->aged_out);
	fprintf(f, "\nby kind\n%-8s %-24s %10s %16s %14s\n", "device", "kind", "tasks", "total ns",
		"mean ns");
	for (size_t i = 0; i < nk; i++)
		fprintf(f, "%-8d %-24s %10llu %16llu %14llu\n", kinds[i].device, kinds[i].key,
			(unsigned long long)kinds[i].count, (unsigned long long)kinds[i].ns,
			(unsigned long long)(kinds[i].ns / kinds[i].count));
	fprintf(f, "\nby stream\n%-8s %-24s %10s %16s %14s\n", "device", "stream", "tasks",
		"total ns", "mean ns");
	for (size_t i = 0; i < ns; i++) {
		char name[40];

		snprintf(name, sizeof(name), "%sstream %u", streams[i].track >> 32 ? "internal " : "",
			 (uint32_t)streams[i].track);
		fprintf(f, "%-8d %-24s %10llu %16llu %14llu\n", streams[i].device, name,
			(unsigned long long)streams[i].count, (unsigned long long)streams[i].ns,
			(unsigned long long)(streams[i].ns / streams[i].count));
	}
	fprintf(f, "\ntotal %zu tasks %llu ns\n", r->ntasks, (unsigned long long)total);
	if (r->types & ~(ACL_PROF_ACL_API | ACL_PROF_TASK_TIME | ACL_PROF_MSPROFTX |
			 ACL_PROF_RUNTIME_API | ACL_PROF_TASK_TIME_L0 | ACL_PROF_TASK_TIME_L2 |
			 ACL_PROF_TASK_TIME_L3))
		fprintf(f, "not collected (this card has no such counters): types %#llx\n",
			(unsigned long long)(r->types & ~(ACL_PROF_ACL_API | ACL_PROF_TASK_TIME |
				ACL_PROF_MSPROFTX | ACL_PROF_RUNTIME_API | ACL_PROF_TASK_TIME_L0 |
				ACL_PROF_TASK_TIME_L2 | ACL_PROF_TASK_TIME_L3)));
out:
	free(kinds);
	free(streams);
}

static int task_order(const void *a, const void *b)
{
	const struct prof_task *x = a, *y = b;

	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	if (track_of(x) != track_of(y))
		return track_of(x) < track_of(y) ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static uint64_t json_trace_size(json_object *root)
{
	size_t len = 0;

	json_object_to_json_string_length(root, JSON_C_TO_STRING_PLAIN, &len);
	return len;
}

static int64_t task_begin(const struct prof_result *r, size_t i)
{
	return task_host_ns(r, &r->tasks[i], r->tasks[i].start);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * ACL_PROF_STORAGE_LIMIT: the oldest records go, as many as the trace is
 * over the limit (and a tenth more), counted as aged out.
 */
static void age_out(struct prof_result *r, uint64_t size)
{
	size_t n = r->ntasks + r->nhost, drop, kept = 0;
	int64_t *t = malloc(n * sizeof(*t)), cut;

	drop = (size_t)((double)n * (1.0 - 0.9 * (double)r->storage_limit / (double)size)) + 1;
	if (!t || drop >= n) {
		free(t);
		r->aged_out += n;
		r->ntasks = r->nhost = 0;	/* their memory is freed by the caller */
		return;
	}
	for (size_t i = 0; i < r->ntasks; i++)
		t[i] = task_begin(r, i);
	for (size_t i = 0; i < r->nhost; i++)
		t[r->ntasks + i] = r->host[i].t0;
	qsort(t, n, sizeof(*t), cmp_i64);
	cut = t[drop];
	free(t);
	for (size_t i = 0; i < r->ntasks; i++) {
		if (task_begin(r, i) >= cut) {
			struct prof_task keep = r->tasks[i];

			r->tasks[i] = r->tasks[kept];
			r->tasks[kept++] = keep;
		}
	}
	r->aged_out += r->ntasks - kept;
	r->ntasks = kept;
	kept = 0;
	for (size_t i = 0; i < r->nhost; i++) {
		if (r->host[i].t0 >= cut) {
			struct prof_host keep = r->host[i];

			r->host[i] = r->host[kept];
			r->host[kept++] = keep;
		}
	}
	r->aged_out += r->nhost - kept;
	r->nhost = kept;
	qsort(r->tasks, r->ntasks, sizeof(*r->tasks), task_order);
}

aclError prof_write_result(struct prof_result *r)
{
	char path[PROF_PATH_MAX + 64];
	json_object *root;
	FILE *f;
	int ret;

	qsort(r->tasks, r->ntasks, sizeof(*r->tasks), task_order);
	root = trace(r);
	while (r->storage_limit && json_trace_size(root) > r->storage_limit &&
	       r->ntasks + r->nhost) {
		age_out(r, json_trace_size(root));
		json_object_put(root);
		root = trace(r);
	}
	ret = mkdir_p(r->dir);
	if (ret)
		return ACL_FAIL(ACL_ERROR_PROFILING_FAILURE, "making %s: %s", r->dir, strerror(-ret));
	snprintf(path, sizeof(path), "%s/npu_prof_%d_%u.json", r->dir, (int)getpid(), r->number);
	ret = json_object_to_file_ext(path, root, JSON_C_TO_STRING_PLAIN);
	json_object_put(root);
	if (ret)
		return ACL_FAIL(ACL_ERROR_PROFILING_FAILURE, "writing %s: %s", path,
				json_util_get_last_err());
	snprintf(path, sizeof(path), "%s/npu_prof_%d_%u.txt", r->dir, (int)getpid(), r->number);
	f = fopen(path, "w");
	if (!f)
		return ACL_FAIL(ACL_ERROR_PROFILING_FAILURE, "writing %s: %s", path, strerror(errno));
	summary(f, r);
	if (fclose(f))
		return ACL_FAIL(ACL_ERROR_PROFILING_FAILURE, "writing %s: %s", path, strerror(errno));
	ACL_LOGI("profile %u written to %s/npu_prof_%d_%u.{json,txt}", r->number, r->dir,
		 (int)getpid(), r->number);
	return ACL_SUCCESS;
}
