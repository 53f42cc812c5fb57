// SPDX-License-Identifier: MIT
/*
 * Profiling (acl/acl_prof.h, mstx): the calls' order and errors; a known
 * sequence of copies, an aclnn Add, a model's execution, events and
 * markers on two streams, found in the trace in each stream's order with
 * the card's timestamps and the operators' names, and the summary's
 * totals adding up; model subscription's records; mstx's ranges and
 * domains. libopapi is opened at run time (the suite also runs linked to
 * the ThreadSanitizer build of libascendcl, which libopapi then shares).
 */
#include <dlfcn.h>
#include <json-c/json.h>
#include <libgen.h>
#include <sys/stat.h>

#include "acl_test.h"
#include "acl_test_aclnn.h"
#include "acl/acl_prof.h"
#include "mstx/ms_tools_ext.h"
#include "om_builder.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#define N	30		/* elements of the add model and the aclnn Add */
static const int64_t dims[3] = { 2, 3, 5 };

FIXTURE(prof) {
	aclrtStream s1, s2;
	char dir[64];
	void *model;
	size_t model_size;
	struct aclnn nn;
};

FIXTURE_SETUP(prof)
{
	ASSERT_TRUE(acl_ok_init());
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&self->s2));
	snprintf(self->dir, sizeof(self->dir), "/tmp/prof_test_%d", (int)getpid());
	self->model = om_model_add(3, dims, &self->model_size);
	ASSERT_NE(NULL, self->model);
	ASSERT_TRUE(aclnn_open(&self->nn)) TH_LOG("libopapi: %s", dlerror());
}

FIXTURE_TEARDOWN(prof)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	if (system(cmd))
		TH_LOG("could not remove %s", self->dir);
	free(self->model);
	aclrtDestroyStream(self->s1);
	aclrtDestroyStream(self->s2);
	aclrtResetDevice(0);
	aclFinalize();
}

static aclprofConfig *config_of(uint64_t types)
{
	uint32_t dev = 0;

	return aclprofCreateConfig(&dev, 1, ACL_AICORE_NONE, NULL, types);
}

/* The contents of the profile's file with this extension (exactly one there). */
static char *profile_file(const char *dir, const char *ext)
{
	char path[256], *text = NULL;
	struct dirent *e;
	int found = 0;
	DIR *d = opendir(dir);
	FILE *f;
	long len;

	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (n > strlen(ext) && !strcmp(e->d_name + n - strlen(ext), ext)) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			found++;
		}
	}
	closedir(d);
	if (found != 1 || !(f = fopen(path, "r")))
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)len + 1);
	if (text && fread(text, 1, (size_t)len, f) != (size_t)len) {
		free(text);
		text = NULL;
	}
	fclose(f);
	return text;
}

static const char *str_of(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : NULL;
}

static int64_t int_of(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_int64(v) : -1;
}

static json_object *args_of(json_object *o)
{
	json_object *v;

	return json_object_object_get_ex(o, "args", &v) ? v : NULL;
}

/* ---- order and errors ------------------------------------------------------ */

TEST_F(prof, calls_out_of_order_fail)
{
	aclprofConfig *c = config_of(ACL_PROF_TASK_TIME), *other;
	uint32_t dev = 0, bad = 99;

	ASSERT_NE(NULL, c);
	EXPECT_EQ(ACL_ERROR_PROF_NOT_RUN, aclprofStart(c));
	EXPECT_EQ(ACL_ERROR_PROF_NOT_RUN, aclprofStop(c));
	EXPECT_EQ(ACL_ERROR_PROF_NOT_RUN, aclprofFinalize());

	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclprofInit(NULL, 4));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclprofInit(self->dir, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclprofInit(self->dir, strlen(self->dir) + 1));
	EXPECT_EQ(NULL, aclprofCreateConfig(&bad, 1, ACL_AICORE_NONE, NULL, ACL_PROF_TASK_TIME));
	EXPECT_EQ(NULL, aclprofCreateConfig(&dev, 1, ACL_AICORE_NONE, NULL, 0));
	EXPECT_EQ(NULL, aclprofCreateConfig(&dev, 1, ACL_AICORE_NONE, NULL, 1ULL << 60));
	EXPECT_EQ(NULL, aclprofCreateConfig(&dev, 0, ACL_AICORE_NONE, NULL, ACL_PROF_TASK_TIME));

	ASSERT_EQ(ACL_SUCCESS, aclprofInit(self->dir, strlen(self->dir)));
	EXPECT_EQ(ACL_ERROR_PROF_ALREADY_RUN, aclprofInit(self->dir, strlen(self->dir)));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclprofSetConfig(ACL_PROF_LLC_MODE, "read", 4));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclprofSetConfig(ACL_PROF_SYS_HARDWARE_MEM_FREQ, "0", 1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclprofSetConfig(ACL_PROF_SYS_HARDWARE_MEM_FREQ, "x", 1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclprofSetConfig(ACL_PROF_ARGS_MAX, "1", 1));
	EXPECT_EQ(ACL_SUCCESS, aclprofSetConfig(ACL_PROF_SYS_HARDWARE_MEM_FREQ, "15", 2));

	ASSERT_EQ(ACL_SUCCESS, aclprofStart(c));
	EXPECT_EQ(ACL_ERROR_PROF_ALREADY_RUN, aclprofStart(c));
	EXPECT_EQ(ACL_ERROR_PROF_ALREADY_RUN, aclprofSetConfig(ACL_PROF_SYS_HARDWARE_MEM_FREQ,
							       "10", 2));
	other = config_of(ACL_PROF_TASK_TIME | ACL_PROF_ACL_API);
	ASSERT_NE(NULL, other);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclprofStop(other));
	EXPECT_EQ(ACL_SUCCESS, aclprofStop(c));
	EXPECT_EQ(ACL_ERROR_PROF_NOT_RUN, aclprofStop(c));
	EXPECT_EQ(ACL_SUCCESS, aclprofFinalize());
	EXPECT_EQ(ACL_ERROR_PROF_NOT_RUN, aclprofFinalize());
	EXPECT_EQ(ACL_SUCCESS, aclprofDestroyConfig(other));
	EXPECT_EQ(ACL_SUCCESS, aclprofDestroyConfig(c));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclprofDestroyConfig(NULL));
}

TEST_F(prof, markers_misused_fail)
{
	aclprofStepInfo *step = aclprofCreateStepInfo();
	void *stamp = aclprofCreateStamp();
	uint32_t id = 0;

	ASSERT_NE(NULL, step);
	ASSERT_NE(NULL, stamp);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclprofPop());
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclprofMark(NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclprofMark(&id));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclprofSetStampTraceMessage(stamp, "m", 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclprofMarkEx("abc", 0, self->s1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclprofMarkEx("abc", 4, self->s1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclprofMarkEx(NULL, 3, self->s1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclprofRangeStart(stamp, NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclprofRangeStop(12345));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclprofGetStepTimestamp(step, ACL_STEP_END, self->s1));
	EXPECT_EQ(ACL_SUCCESS, aclprofGetStepTimestamp(step, ACL_STEP_START, self->s1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclprofGetStepTimestamp(step, ACL_STEP_START, self->s1));
	EXPECT_EQ(ACL_SUCCESS, aclprofGetStepTimestamp(step, ACL_STEP_END, self->s1));
	EXPECT_EQ(aclprofStr2Id("abc"), aclprofStr2Id("abc"));
	EXPECT_NE(aclprofStr2Id("abc"), aclprofStr2Id("abd"));
	aclprofDestroyStepInfo(step);
	aclprofDestroyStamp(stamp);
}

/* ---- the timeline ---------------------------------------------------------- */

static int run_aclnn_add(struct aclnn *nn, void *a, void *b, void *y, aclrtStream s)
{
	float one = 1.0f;
	void *ta = nn->create_tensor(dims, 3, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, dims, 3, a);
	void *tb = nn->create_tensor(dims, 3, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, dims, 3, b);
	void *ty = nn->create_tensor(dims, 3, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, dims, 3, y);
	void *alpha = nn->create_scalar(&one, ACL_FLOAT), *x = NULL;
	uint64_t ws = 0;
	int ret = nn->add_ws(ta, tb, alpha, ty, &ws, &x);

	if (!ret)
		ret = ws ? -1 : nn->add(NULL, 0, x, s);
	nn->destroy_tensor(ta);
	nn->destroy_tensor(tb);
	nn->destroy_tensor(ty);
	nn->destroy_scalar(alpha);
	return ret;
}

struct seen {
	json_object *ev[64];
	int n;
};

/* The card's tasks of one track, in the stream's order (args.seq). */
static void track_sorted(struct seen *t)
{
	for (int i = 1; i < t->n; i++)
		for (int j = i; j > 0 && int_of(args_of(t->ev[j - 1]), "seq") >
					 int_of(args_of(t->ev[j]), "seq"); j--) {
			json_object *o = t->ev[j];

			t->ev[j] = t->ev[j - 1];
			t->ev[j - 1] = o;
		}
}

static int find_in(const struct seen *t, int from, const char *cat, const char *name)
{
	for (int i = from; i < t->n; i++)
		if (!strcmp(str_of(t->ev[i], "cat"), cat) &&
		    (!name || !strcmp(str_of(t->ev[i], "name"), name)))
			return i;
	return -1;
}

/* The n-th number from the right of a line of columns (0: the last). */
static unsigned long long column_from_right(const char *line, int n)
{
	const char *p = line + strlen(line);

	for (;;) {
		while (p > line && p[-1] == ' ')
			p--;
		while (p > line && p[-1] != ' ')
			p--;
		if (!n-- || p == line)
			return strtoull(p, NULL, 10);
	}
}

/* Sums a summary section's tasks and "total ns" columns, until a blank line. */
static uint64_t section_total(const char *text, const char *heading, uint64_t *tasks)
{
	const char *p = strstr(text, heading);
	uint64_t sum = 0;

	*tasks = 0;
	if (!p)
		return 0;
	p += strlen(heading);
	p = strchr(p, '\n') + 1;	/* the column names */
	while (*p && *p != '\n') {
		const char *end = strchr(p, '\n');
		char line[256];

		snprintf(line, sizeof(line), "%.*s", (int)(end - p), p);
		*tasks += column_from_right(line, 2);
		sum += column_from_right(line, 1);
		p = end + 1;
	}
	return sum;
}

TEST_F(prof, trace_has_each_task_in_stream_order)
{
	aclprofConfig *c = config_of(ACL_PROF_TASK_TIME | ACL_PROF_ACL_API | ACL_PROF_MSPROFTX);
	struct seen s1 = { .n = 0 }, s2 = { .n = 0 }, *tracks[16] = { 0 };
	void *a, *b, *y, *host;
	json_object *root, *events;
	char *text, *summary;
	aclmdlDataset *in, *out;
	int64_t tids[16];
	int ntracks = 0, host_spans = 0, host_marks = 0, card_tasks = 0, counters = 0;
	uint64_t kind_tasks, stream_tasks, kinds, streams, total;
	unsigned long long total_tasks, total_ns;
	struct gate g;
	aclrtEvent ev;
	uint32_t model;
	int i;

	ASSERT_NE(NULL, c);
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&a, N * 4, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&b, N * 4, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&y, N * 4, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost(&host, N * 4));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&ev));
	ASSERT_EQ(ACL_SUCCESS, aclmdlLoadFromMem(self->model, self->model_size, &model));
	in = aclmdlCreateDataset();
	out = aclmdlCreateDataset();
	ASSERT_EQ(ACL_SUCCESS, aclmdlAddDatasetBuffer(in, aclCreateDataBuffer(a, N * 4)));
	ASSERT_EQ(ACL_SUCCESS, aclmdlAddDatasetBuffer(in, aclCreateDataBuffer(b, N * 4)));
	ASSERT_EQ(ACL_SUCCESS, aclmdlAddDatasetBuffer(out, aclCreateDataBuffer(y, N * 4)));
	for (i = 0; i < N; i++)
		((float *)host)[i] = (float)i;

	ASSERT_EQ(ACL_SUCCESS, aclprofInit(self->dir, strlen(self->dir)));
	ASSERT_EQ(ACL_SUCCESS, aclprofSetConfig(ACL_PROF_SYS_HARDWARE_MEM_FREQ, "100", 3));
	ASSERT_EQ(ACL_SUCCESS, gate_init(&g));
	ASSERT_EQ(ACL_SUCCESS, aclprofStart(c));
	/* s1 held until all is queued: s2's wait for its event is queued too */
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&g, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(a, N * 4, host, N * 4, ACL_MEMCPY_HOST_TO_DEVICE,
						self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(b, N * 4, host, N * 4, ACL_MEMCPY_HOST_TO_DEVICE,
						self->s1));
	ASSERT_EQ(0, run_aclnn_add(&self->nn, a, b, y, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(ev, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclprofMarkEx("after add", 9, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamWaitEvent(self->s2, ev));
	ASSERT_EQ(ACL_SUCCESS, aclmdlExecuteAsync(model, in, out, self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(b, N * 4, 0, N * 4, self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(host, N * 4, y, N * 4, ACL_MEMCPY_DEVICE_TO_HOST,
						self->s2));
	ASSERT_EQ(ACL_SUCCESS, gate_open(&g));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclprofStop(c));
	gate_fini(&g);
	ASSERT_EQ(ACL_SUCCESS, aclprofFinalize());
	/* the model added a to b (both i): y = 2i */
	for (i = 0; i < N; i++)
		ASSERT_EQ((float)(2 * i), ((float *)host)[i]) TH_LOG("y[%d]", i);

	text = profile_file(self->dir, ".json");
	ASSERT_NE(NULL, text);
	root = json_tokener_parse(text);
	free(text);
	ASSERT_NE(NULL, root);
	ASSERT_TRUE(json_object_object_get_ex(root, "traceEvents", &events));
	for (size_t k = 0; k < json_object_array_length(events); k++) {
		json_object *e = json_object_array_get_idx(events, k);
		const char *ph = str_of(e, "ph");

		if (int_of(e, "pid") == 0) {
			host_spans += !strcmp(ph, "X") && !strcmp(str_of(e, "cat"), "api");
			host_marks += !strcmp(ph, "i") && !strcmp(str_of(e, "name"), "after add");
			continue;
		}
		if (!strcmp(ph, "C")) {
			EXPECT_STREQ("memory traffic", str_of(e, "name"));
			EXPECT_EQ(1, int_of(e, "pid"));
			counters++;
		}
		if (strcmp(ph, "X"))
			continue;
		EXPECT_EQ(1, int_of(e, "pid"));	/* device 0 */
		card_tasks++;
		for (i = 0; i < ntracks && tids[i] != int_of(e, "tid"); i++)
			;
		if (i == ntracks) {
			ASSERT_LT(ntracks, 16);
			tids[ntracks] = int_of(e, "tid");
			tracks[ntracks++] = calloc(1, sizeof(struct seen));
		}
		ASSERT_LT(tracks[i]->n, 64);
		tracks[i]->ev[tracks[i]->n++] = e;
	}
	EXPECT_GE(host_spans, 7);
	EXPECT_GE(counters, 1);	/* the copies' bytes, sampled 100 times a second */
	EXPECT_EQ(1, host_marks);

	/* Which track is which stream: the one with the aclnn Add, the one with the model. */
	for (i = 0; i < ntracks; i++) {
		track_sorted(tracks[i]);
		if (find_in(tracks[i], 0, "BINARY", "aclnnAdd") >= 0)
			s1 = *tracks[i];
		if (find_in(tracks[i], 0, "BINARY", "add") >= 0)
			s2 = *tracks[i];
	}
	ASSERT_GT(s1.n, 0);
	ASSERT_GT(s2.n, 0);
	{
		int h1 = find_in(&s1, 1, "copy H2D", NULL), h2 = find_in(&s1, h1 + 1, "copy H2D", NULL);
		int add = find_in(&s1, h2 + 1, "BINARY", "aclnnAdd");
		int rec = find_in(&s1, add + 1, "event record", NULL);
		int mark = find_in(&s1, rec + 1, "marker", "after add");
		int gate = find_in(&s1, 0, "value wait", NULL);
		int wait = find_in(&s2, 0, "event wait", NULL);
		int op = find_in(&s2, wait + 1, "BINARY", "add");
		int set = find_in(&s2, op + 1, "memset", NULL);
		int d2h = find_in(&s2, set + 1, "copy D2H", NULL);

		EXPECT_GE(h1, 0);
		EXPECT_GT(h2, h1);
		EXPECT_GT(add, h2);
		EXPECT_GT(rec, add);
		EXPECT_GT(mark, rec);
		EXPECT_EQ(0, gate);
		EXPECT_GE(wait, 0);
		EXPECT_GT(op, wait);
		EXPECT_GT(set, op);
		EXPECT_GT(d2h, set);
		if (op >= 0)
			EXPECT_EQ(model, int_of(args_of(s2.ev[op]), "model_id"));
		if (d2h >= 0)
			EXPECT_EQ(N * 4, int_of(args_of(s2.ev[d2h]), "bytes"));
	}
	for (i = 0; i < ntracks; i++) {
		for (int k = 0; k < tracks[i]->n; k++) {
			json_object *args = args_of(tracks[i]->ev[k]);
			int64_t start = int_of(args, "card_start_ns"), end = int_of(args, "card_end_ns");

			EXPECT_GT(end, start) TH_LOG("%s", str_of(tracks[i]->ev[k], "name"));
			EXPECT_EQ(end - start, int_of(args, "duration_ns"));
			if (k)
				EXPECT_LE(int_of(args_of(tracks[i]->ev[k - 1]), "card_end_ns"), start);
		}
		free(tracks[i]);
	}
	json_object_put(root);

	summary = profile_file(self->dir, ".txt");
	ASSERT_NE(NULL, summary);
	kinds = section_total(summary, "\nby kind\n", &kind_tasks);
	streams = section_total(summary, "\nby stream\n", &stream_tasks);
	ASSERT_NE(NULL, strstr(summary, "\ntotal "));
	ASSERT_EQ(2, sscanf(strstr(summary, "\ntotal "), "\ntotal %llu tasks %llu ns", &total_tasks,
			    &total_ns));
	total = total_ns;
	EXPECT_EQ((uint64_t)card_tasks, total_tasks);
	EXPECT_EQ(total_tasks, kind_tasks);
	EXPECT_EQ(total_tasks, stream_tasks);
	EXPECT_EQ(total, kinds);
	EXPECT_EQ(total, streams);
	EXPECT_GT(total, 0);
	free(summary);

	aclDestroyDataBuffer(aclmdlGetDatasetBuffer(in, 0));
	aclDestroyDataBuffer(aclmdlGetDatasetBuffer(in, 1));
	aclDestroyDataBuffer(aclmdlGetDatasetBuffer(out, 0));
	aclmdlDestroyDataset(in);
	aclmdlDestroyDataset(out);
	EXPECT_EQ(ACL_SUCCESS, aclmdlUnload(model));
	aclrtDestroyEvent(ev);
	aclrtFreeHost(host);
	aclrtFree(a);
	aclrtFree(b);
	aclrtFree(y);
	aclprofDestroyConfig(c);
}

/* ---- model subscription ---------------------------------------------------- */

TEST_F(prof, subscription_records_each_operator)
{
	size_t size = 0, len;
	char buf[8192], name[ACL_PROF_MAX_OP_NAME_LEN], type[ACL_PROF_MAX_OP_TYPE_LEN];
	aclprofSubscribeConfig *sub;
	aclmdlDataset *in, *out;
	void *a, *b, *y;
	uint32_t model, num = 0;
	ssize_t got = 0, n;
	int fds[2], bad = -1;

	ASSERT_EQ(0, pipe(fds));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&a, N * 4, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&b, N * 4, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&y, N * 4, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_EQ(ACL_SUCCESS, aclmdlLoadFromMem(self->model, self->model_size, &model));
	in = aclmdlCreateDataset();
	out = aclmdlCreateDataset();
	ASSERT_EQ(ACL_SUCCESS, aclmdlAddDatasetBuffer(in, aclCreateDataBuffer(a, N * 4)));
	ASSERT_EQ(ACL_SUCCESS, aclmdlAddDatasetBuffer(in, aclCreateDataBuffer(b, N * 4)));
	ASSERT_EQ(ACL_SUCCESS, aclmdlAddDatasetBuffer(out, aclCreateDataBuffer(y, N * 4)));

	EXPECT_EQ(NULL, aclprofCreateSubscribeConfig(1, ACL_AICORE_NONE, &bad));
	EXPECT_EQ(NULL, aclprofCreateSubscribeConfig(2, ACL_AICORE_NONE, &fds[1]));
	sub = aclprofCreateSubscribeConfig(1, ACL_AICORE_NONE, &fds[1]);
	ASSERT_NE(NULL, sub);
	EXPECT_EQ(ACL_ERROR_INVALID_MODEL_ID, aclprofModelSubscribe(model + 1000, sub));
	EXPECT_EQ(ACL_ERROR_INVALID_MODEL_ID, aclprofModelUnSubscribe(model));
	ASSERT_EQ(ACL_SUCCESS, aclprofInit(self->dir, strlen(self->dir)));
	EXPECT_EQ(ACL_ERROR_PROF_API_CONFLICT, aclprofModelSubscribe(model, sub));
	ASSERT_EQ(ACL_SUCCESS, aclprofFinalize());

	ASSERT_EQ(ACL_SUCCESS, aclprofModelSubscribe(model, sub));
	EXPECT_EQ(ACL_ERROR_PROF_REPEAT_SUBSCRIBE, aclprofModelSubscribe(model, sub));
	EXPECT_EQ(ACL_ERROR_PROF_API_CONFLICT, aclprofInit(self->dir, strlen(self->dir)));
	ASSERT_EQ(ACL_SUCCESS, aclprofGetOpDescSize(&size));
	ASSERT_EQ(ACL_SUCCESS, aclmdlExecuteAsync(model, in, out, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s1));
	/* the first execution's record is written when the model runs again */
	ASSERT_EQ(0, fcntl(fds[0], F_SETFL, O_NONBLOCK));
	EXPECT_EQ(-1, read(fds[0], buf, sizeof(buf)));
	ASSERT_EQ(ACL_SUCCESS, aclmdlExecuteAsync(model, in, out, self->s1));
	EXPECT_EQ((ssize_t)size, read(fds[0], buf, sizeof(buf)));
	got = (ssize_t)size;
	ASSERT_EQ(0, fcntl(fds[0], F_SETFL, 0));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(a, N * 4, 0, N * 4, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclprofModelUnSubscribe(model));	/* closes fds[1] */
	while ((n = read(fds[0], buf + got, sizeof(buf) - (size_t)got)) > 0)
		got += n;
	close(fds[0]);

	/* the model's one operator, twice; the memset is no model's */
	ASSERT_EQ(2 * size, (size_t)got);
	ASSERT_EQ(ACL_SUCCESS, aclprofGetOpNum(buf, (size_t)got, &num));
	ASSERT_EQ(2, num);
	for (uint32_t i = 0; i < num; i++) {
		ASSERT_EQ(ACL_SUCCESS, aclprofGetOpNameLen(buf, (size_t)got, i, &len));
		EXPECT_EQ(strlen("add") + 1, len);
		ASSERT_EQ(ACL_SUCCESS, aclprofGetOpName(buf, (size_t)got, i, name, len));
		EXPECT_STREQ("add", name);
		ASSERT_EQ(ACL_SUCCESS, aclprofGetOpTypeLen(buf, (size_t)got, i, &len));
		ASSERT_EQ(ACL_SUCCESS, aclprofGetOpType(buf, (size_t)got, i, type, len));
		EXPECT_STREQ("BINARY", type);
		EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclprofGetOpName(buf, (size_t)got, i, name, 2));
		EXPECT_EQ(model, aclprofGetModelId(buf, (size_t)got, i));
		EXPECT_GT(aclprofGetOpEnd(buf, (size_t)got, i), aclprofGetOpStart(buf, (size_t)got, i));
		EXPECT_EQ(aclprofGetOpEnd(buf, (size_t)got, i) - aclprofGetOpStart(buf, (size_t)got, i),
			  aclprofGetOpDuration(buf, (size_t)got, i));
		EXPECT_EQ(ACL_SUBSCRIBE_OP, aclprofGetOpFlag(buf, (size_t)got, i));
		EXPECT_NE(NULL, aclprofGetOpAttriValue(buf, (size_t)got, i,
						       ACL_SUBSCRIBE_ATTRI_THREADID));
	}
	EXPECT_LE(aclprofGetOpEnd(buf, (size_t)got, 0), aclprofGetOpStart(buf, (size_t)got, 1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclprofGetOpNum(buf, (size_t)got - 1, &num));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclprofGetOpNameLen(buf, (size_t)got, 2, &len));
	EXPECT_EQ(0, aclprofGetOpStart(buf, (size_t)got, 2));

	EXPECT_EQ(ACL_SUCCESS, aclprofDestroySubscribeConfig(sub));
	aclDestroyDataBuffer(aclmdlGetDatasetBuffer(in, 0));
	aclDestroyDataBuffer(aclmdlGetDatasetBuffer(in, 1));
	aclDestroyDataBuffer(aclmdlGetDatasetBuffer(out, 0));
	aclmdlDestroyDataset(in);
	aclmdlDestroyDataset(out);
	EXPECT_EQ(ACL_SUCCESS, aclmdlUnload(model));
	aclrtFree(a);
	aclrtFree(b);
	aclrtFree(y);
}

/* ---- mstx ------------------------------------------------------------------ */

static json_object *event_named(json_object *events, const char *name, const char *ph, int pid)
{
	for (size_t k = 0; k < json_object_array_length(events); k++) {
		json_object *e = json_object_array_get_idx(events, k);

		if (!strcmp(str_of(e, "name"), name) && !strcmp(str_of(e, "ph"), ph) &&
		    int_of(e, "pid") == pid)
			return e;
	}
	return NULL;
}

TEST_F(prof, mstx_ranges_and_domains_reach_the_trace)
{
	aclprofConfig *c = config_of(ACL_PROF_TASK_TIME | ACL_PROF_MSPROFTX);
	mstxDomainHandle_t dom = mstxDomainCreateA("dom");
	json_object *root, *events, *e;
	mstxRangeId outer, inner;
	char *text;

	ASSERT_NE(NULL, c);
	ASSERT_NE(NULL, dom);
	EXPECT_EQ(NULL, mstxDomainCreateA(""));
	/* not recorded: no profile runs */
	EXPECT_EQ(MSTX_INVALID_RANGE_ID, mstxRangeStartA("early", self->s1));
	mstxMarkA("early mark", NULL);

	ASSERT_EQ(ACL_SUCCESS, aclprofInit(self->dir, strlen(self->dir)));
	ASSERT_EQ(ACL_SUCCESS, aclprofStart(c));
	outer = mstxRangeStartA("outer", self->s1);
	EXPECT_NE(MSTX_INVALID_RANGE_ID, outer);
	mstxMarkA("host only", NULL);
	inner = mstxDomainRangeStartA(dom, "inner", NULL);
	EXPECT_NE(MSTX_INVALID_RANGE_ID, inner);
	mstxDomainMarkA(dom, "on the card", self->s1);
	mstxDomainRangeEnd(dom, inner);
	mstxRangeEnd(outer);
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclprofStop(c));
	ASSERT_EQ(ACL_SUCCESS, aclprofFinalize());
	mstxDomainDestroy(dom);

	text = profile_file(self->dir, ".json");
	ASSERT_NE(NULL, text);
	root = json_tokener_parse(text);
	free(text);
	ASSERT_NE(NULL, root);
	ASSERT_TRUE(json_object_object_get_ex(root, "traceEvents", &events));
	e = event_named(events, "outer", "X", 0);
	ASSERT_NE(NULL, e);
	EXPECT_STREQ("mstx", str_of(e, "cat"));
	EXPECT_NE(NULL, event_named(events, "host only", "i", 0));
	e = event_named(events, "dom: inner", "X", 0);
	ASSERT_NE(NULL, e);
	EXPECT_STREQ("mstx domain", str_of(e, "cat"));
	EXPECT_NE(NULL, event_named(events, "dom: on the card", "i", 0));
	/* the card's marks of the stream: the range's ends and the domain's mark */
	EXPECT_NE(NULL, event_named(events, "outer", "X", 1));
	EXPECT_NE(NULL, event_named(events, "dom: on the card", "X", 1));
	EXPECT_EQ(NULL, event_named(events, "early mark", "i", 0));
	EXPECT_EQ(NULL, event_named(events, "dom: inner", "X", 1));
	json_object_put(root);
	aclprofDestroyConfig(c);
}

TEST_HARNESS_MAIN
