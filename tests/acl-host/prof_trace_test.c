// SPDX-License-Identifier: MIT
/*
 * The profiler's trace writer (libacl/src/prof_trace.c), on the host,
 * compiled in alone: a profile of known tasks written as its trace and
 * summary, the card's times placed on the host's clock; and
 * ACL_PROF_STORAGE_LIMIT's aging, which keeps the newest records within
 * the limit and counts the others.
 */
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "kselftest_harness.h"
#include "prof_internal.h"

/* What prof_trace.c takes from the rest of the library. */
aclError acl_fail(const char *func, aclError code, const char *fmt, ...)
{
	(void)func;
	(void)fmt;
	return code;
}

void acl_log(int level, const char *func, const char *fmt, ...)
{
	(void)level;
	(void)func;
	(void)fmt;
}

#include "../../libacl/src/prof_trace.c"

#define TASKS	2000
#define OFFSET	1000000		/* host clock - card clock, ns */

/* Each test's own directory (each runs in a process of its own). */
static char dir[64];

static bool dir_make(void)
{
	snprintf(dir, sizeof(dir), "/tmp/prof_trace_test.XXXXXX");
	return mkdtemp(dir) != NULL;
}

static int dir_remove(void)
{
	char cmd[96];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

/* Task i: 1000 ns on the card from i * 2000 + 5000, on stream i % 2. */
static void make_tasks(struct prof_result *r, struct prof_task *t)
{
	for (int i = 0; i < TASKS; i++)
		t[i] = (struct prof_task){
			.type = i % 3 ? "copy H2D" : "BINARY", .device = 0, .stream = (uint32_t)(i % 2),
			.model_id = PROF_NO_MODEL, .seq = (uint64_t)i / 2, .bytes = 64,
			.start = (uint64_t)i * 2000 + 5000, .end = (uint64_t)i * 2000 + 6000,
		};
	*r = (struct prof_result){ .dir = dir, .number = 1, .types = ACL_PROF_TASK_TIME,
				   .host_start = OFFSET, .tasks = t, .ntasks = TASKS };
	r->card_offset[0] = OFFSET;
}

static json_object *read_trace(unsigned int number, long *size)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/npu_prof_%d_%u.json", dir, (int)getpid(), number);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	*size = ftell(f);
	fclose(f);
	return json_object_from_file(path);
}

static json_object *events_of(json_object *root)
{
	json_object *ev = NULL;

	json_object_object_get_ex(root, "traceEvents", &ev);
	return ev;
}

TEST(trace_places_each_task)
{
	static struct prof_task t[TASKS];
	struct prof_result r;
	json_object *root, *ev;
	size_t x = 0;
	long size;

	ASSERT_TRUE(dir_make());
	make_tasks(&r, t);
	ASSERT_EQ(ACL_SUCCESS, prof_write_result(&r));
	root = read_trace(1, &size);
	ASSERT_NE(NULL, root);
	ev = events_of(root);
	ASSERT_NE(NULL, ev);
	for (size_t i = 0; i < json_object_array_length(ev); i++) {
		json_object *e = json_object_array_get_idx(ev, i), *v;

		json_object_object_get_ex(e, "ph", &v);
		if (strcmp(json_object_get_string(v), "X"))
			continue;
		x++;
		/* ts: microseconds from the start on the host's clock, i.e. the card's time */
		json_object_object_get_ex(e, "dur", &v);
		EXPECT_EQ(1.0, json_object_get_double(v));
		json_object_object_get_ex(e, "ts", &v);
		EXPECT_EQ(0, ((int64_t)(json_object_get_double(v) * 1000) - 5000) % 2000);
	}
	EXPECT_EQ(TASKS, x);
	json_object_put(root);
	EXPECT_EQ(0, dir_remove());
}

TEST(storage_limit_keeps_the_newest)
{
	static struct prof_task t[TASKS];
	struct prof_result r;
	json_object *root, *ev, *v;
	long full, size;
	int64_t oldest = INT64_MAX;
	size_t x = 0;

	ASSERT_TRUE(dir_make());
	make_tasks(&r, t);
	ASSERT_EQ(ACL_SUCCESS, prof_write_result(&r));
	root = read_trace(1, &full);
	ASSERT_NE(NULL, root);
	json_object_put(root);

	make_tasks(&r, t);
	r.number = 2;
	r.storage_limit = (uint64_t)full / 2;
	ASSERT_EQ(ACL_SUCCESS, prof_write_result(&r));
	root = read_trace(2, &size);
	ASSERT_NE(NULL, root);
	EXPECT_LE(size, full / 2);
	ev = events_of(root);
	for (size_t i = 0; i < json_object_array_length(ev); i++) {
		json_object *e = json_object_array_get_idx(ev, i);

		json_object_object_get_ex(e, "ph", &v);
		if (strcmp(json_object_get_string(v), "X"))
			continue;
		x++;
		json_object_object_get_ex(e, "ts", &v);
		if ((int64_t)(json_object_get_double(v) * 1000) < oldest)
			oldest = (int64_t)(json_object_get_double(v) * 1000);
	}
	EXPECT_GT(x, 0);
	EXPECT_LT(x, TASKS);
	/* the tasks kept are the last x */
	EXPECT_EQ((int64_t)(TASKS - x) * 2000 + 5000, oldest);
	ASSERT_TRUE(json_object_object_get_ex(root, "otherData", &v));
	ASSERT_TRUE(json_object_object_get_ex(v, "aged_out_records", &v));
	EXPECT_EQ(TASKS - x, (size_t)json_object_get_int64(v));
	json_object_put(root);
	EXPECT_EQ(0, dir_remove());
}

TEST_HARNESS_MAIN
