// SPDX-License-Identifier: MIT
/*
 * aclnn executors on the card (guest, two cards): a repeatable executor
 * launched again on new addresses, launches ordered with copies and events
 * on one stream and across streams, workspaces refused, and a process
 * killed in the middle of a large Add, which must give its device memory
 * back and leave other processes' work alone.
 */
#include <signal.h>
#include <sys/wait.h>

#include "../acl/acl_test.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_add.h"

/* A contiguous F32 (or other) tensor of n elements at dev. */
static aclTensor *vec(void *dev, int64_t n, aclDataType t)
{
	return aclCreateTensor(&n, 1, t, NULL, 0, ACL_FORMAT_ND, &n, 1, dev);
}

static void *dev_alloc(size_t bytes)
{
	void *p = NULL;

	return aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST) ? NULL : p;
}

static void fill_f32(float *h, size_t n, float base)
{
	for (size_t i = 0; i < n; i++)
		h[i] = base + (float)(i % 1000) * 0.5f;
}

/* Elements of got that are not a + b; 0 when all are. */
static size_t wrong_sums(const float *a, const float *b, const float *got, size_t n)
{
	size_t bad = 0;

	for (size_t i = 0; i < n; i++)
		bad += got[i] != a[i] + b[i];
	return bad;
}

static aclError upload(void *dev, const void *host, size_t bytes)
{
	return aclrtMemcpy(dev, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE);
}

static aclError download(void *host, const void *dev, size_t bytes)
{
	return aclrtMemcpy(host, bytes, dev, bytes, ACL_MEMCPY_DEVICE_TO_HOST);
}

#define N	4096

FIXTURE(exec) {
	float a[N], b[N], c[N], got[N];
	void *x, *y, *z, *out, *out2;
	aclScalar *one;
};

FIXTURE_SETUP(exec)
{
	float v = 1.0f;

	ASSERT_TRUE(acl_ok_init());
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	fill_f32(self->a, N, 1.0f);
	fill_f32(self->b, N, -3.0f);
	fill_f32(self->c, N, 100.0f);
	self->x = dev_alloc(N * 4);
	self->y = dev_alloc(N * 4);
	self->z = dev_alloc(N * 4);
	self->out = dev_alloc(N * 4);
	self->out2 = dev_alloc(N * 4);
	ASSERT_TRUE(self->x && self->y && self->z && self->out && self->out2);
	ASSERT_EQ(ACL_SUCCESS, upload(self->x, self->a, N * 4));
	ASSERT_EQ(ACL_SUCCESS, upload(self->y, self->b, N * 4));
	ASSERT_EQ(ACL_SUCCESS, upload(self->z, self->c, N * 4));
	self->one = aclCreateScalar(&v, ACL_FLOAT);
	ASSERT_NE(NULL, self->one);
}

FIXTURE_TEARDOWN(exec)
{
	aclDestroyScalar(self->one);
	aclrtFree(self->x);
	aclrtFree(self->y);
	aclrtFree(self->z);
	aclrtFree(self->out);
	aclrtFree(self->out2);
	aclrtResetDevice(0);
	aclFinalize();
}

/* Add's first half over tensors at a, b and out; the tensors are destroyed after. */
static int add_executor(void *a, void *b, void *out, aclDataType ta, const aclScalar *alpha,
			uint64_t *ws, aclOpExecutor **x)
{
	aclTensor *ta_ = vec(a, N, ta), *tb = vec(b, N, ACL_FLOAT), *to = vec(out, N, ACL_FLOAT);
	int ret = aclnnAddGetWorkspaceSize(ta_, tb, alpha, to, ws, x);

	aclDestroyTensor(ta_);
	aclDestroyTensor(tb);
	aclDestroyTensor(to);
	return ret;
}

/* Add over n floats at a, b and out, synchronised; an aclnn status. */
static int add_synchronised(void *a, void *b, void *out, int64_t n)
{
	aclTensor *ta = vec(a, n, ACL_FLOAT), *tb = vec(b, n, ACL_FLOAT), *to = vec(out, n, ACL_FLOAT);
	aclOpExecutor *x = NULL;
	float v = 1.0f;
	aclScalar *alpha = aclCreateScalar(&v, ACL_FLOAT);
	uint64_t ws = 0;
	int ret = aclnnAddGetWorkspaceSize(ta, tb, alpha, to, &ws, &x);

	if (!ret)
		ret = ws ? ACLNN_ERR_INNER : aclnnAdd(NULL, 0, x, NULL);
	if (!ret)
		ret = aclrtSynchronizeStream(NULL);
	aclDestroyTensor(ta);
	aclDestroyTensor(tb);
	aclDestroyTensor(to);
	aclDestroyScalar(alpha);
	return ret;
}

/*
 * aclrtMalloc gives 32 bytes past the size rounded up to 32 (the vendor's
 * rule), and ggml's CANN backend lays GroupNorm's rstd output over them: a
 * tensor may reach into them, not one byte past; aclrtMallocAlign32 has none.
 */
TEST_F(exec, tensors_may_use_the_padding_of_their_allocation)
{
	float a[112], b[112], got[112];
	void *p[3], *q;
	int i;

	fill_f32(a, 112, 2.0f);
	fill_f32(b, 112, -7.0f);
	for (i = 0; i < 3; i++) {
		p[i] = dev_alloc(400);	/* 416 bytes rounded, 448 with the padding */
		ASSERT_NE(NULL, p[i]);
	}
	ASSERT_EQ(ACL_SUCCESS, upload(p[0], a, sizeof(a)));
	ASSERT_EQ(ACL_SUCCESS, upload(p[1], b, sizeof(b)));
	ASSERT_EQ(ACLNN_SUCCESS, add_synchronised(p[0], p[1], p[2], 112));
	ASSERT_EQ(ACL_SUCCESS, download(got, p[2], sizeof(got)));
	EXPECT_EQ(0, wrong_sums(a, b, got, 112));
	EXPECT_EQ(ACLNN_ERR_PARAM_INVALID, add_synchronised(p[0], p[1], p[2], 113));
	EXPECT_NE(NULL, strstr(aclGetRecentErrMsg(), "allocation"));
	EXPECT_EQ(ACLNN_ERR_PARAM_INVALID, add_synchronised(p[0], p[1], (float *)p[2] + 1, 112));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocAlign32(&q, 400, ACL_MEM_MALLOC_HUGE_FIRST));
	EXPECT_EQ(ACLNN_SUCCESS, add_synchronised(p[0], p[1], q, 104));
	EXPECT_EQ(ACLNN_ERR_PARAM_INVALID, add_synchronised(p[0], p[1], q, 105));
	aclrtFree(q);
	for (i = 0; i < 3; i++)
		aclrtFree(p[i]);
}

TEST_F(exec, repeatable_executor_relaunched_on_new_addresses)
{
	aclOpExecutor *x = NULL;
	uint64_t ws = 1;

	ASSERT_EQ(ACLNN_SUCCESS, add_executor(self->x, self->y, self->out, ACL_FLOAT, self->one,
					      &ws, &x));
	ASSERT_EQ(0, ws);
	ASSERT_EQ(ACLNN_SUCCESS, aclSetAclOpExecutorRepeatable(x));
	ASSERT_EQ(ACLNN_SUCCESS, aclnnAdd(NULL, 0, x, NULL));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(NULL));
	ASSERT_EQ(ACL_SUCCESS, download(self->got, self->out, N * 4));
	EXPECT_EQ(0, wrong_sums(self->a, self->b, self->got, N));

	/* other = z, out = out2; then self = z through the index over all tensors */
	ASSERT_EQ(ACLNN_SUCCESS, aclSetInputTensorAddr(x, 1, NULL, self->z));
	ASSERT_EQ(ACLNN_SUCCESS, aclSetOutputTensorAddr(x, 0, NULL, self->out2));
	ASSERT_EQ(ACLNN_SUCCESS, aclnnAdd(NULL, 0, x, NULL));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(NULL));
	ASSERT_EQ(ACL_SUCCESS, download(self->got, self->out2, N * 4));
	EXPECT_EQ(0, wrong_sums(self->a, self->c, self->got, N));
	ASSERT_EQ(ACLNN_SUCCESS, AclSetTensorAddr(x, 0, NULL, self->z));
	ASSERT_EQ(ACLNN_SUCCESS, aclnnAdd(NULL, 0, x, NULL));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(NULL));
	ASSERT_EQ(ACL_SUCCESS, download(self->got, self->out2, N * 4));
	EXPECT_EQ(0, wrong_sums(self->c, self->c, self->got, N));
	/* the first result is untouched by the later launches */
	ASSERT_EQ(ACL_SUCCESS, download(self->got, self->out, N * 4));
	EXPECT_EQ(0, wrong_sums(self->a, self->b, self->got, N));

	EXPECT_EQ(ACLNN_ERR_PARAM_INVALID, aclSetOutputTensorAddr(x, 1, NULL, self->z));
	EXPECT_NE(NULL, strstr(aclGetRecentErrMsg(), "no output tensor 1"));
	EXPECT_EQ(ACLNN_SUCCESS, aclDestroyAclOpExecutor(x));
	EXPECT_EQ(ACLNN_ERR_PARAM_INVALID, aclnnAdd(NULL, 0, x, NULL));
	EXPECT_EQ(ACLNN_ERR_PARAM_INVALID, aclDestroyAclOpExecutor(x));
}

TEST_F(exec, one_launch_frees_an_executor_not_repeatable)
{
	aclOpExecutor *x = NULL;
	uint64_t ws;

	ASSERT_EQ(ACLNN_SUCCESS, add_executor(self->x, self->y, self->out, ACL_FLOAT, self->one,
					      &ws, &x));
	ASSERT_EQ(ACLNN_SUCCESS, aclnnAdd(NULL, 0, x, NULL));
	EXPECT_EQ(ACLNN_ERR_PARAM_INVALID, aclnnAdd(NULL, 0, x, NULL));
	EXPECT_NE(NULL, strstr(aclGetRecentErrMsg(), "not made repeatable"));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(NULL));
}

/*
 * A copy in, the Add, a copy out and an event on one stream held at a
 * gate: nothing completes before the gate opens, and then everything in
 * order.
 */
TEST_F(exec, launch_is_ordered_with_copies_and_events_on_one_stream)
{
	aclOpExecutor *x = NULL;
	aclrtStream s;
	aclrtEvent done;
	struct gate g;
	float *in, *res;
	uint64_t ws;

	ASSERT_EQ(ACL_SUCCESS, gate_init(&g));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&done));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&in, N * 4));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&res, N * 4));
	memcpy(in, self->c, N * 4);
	memset(res, 0, N * 4);
	ASSERT_EQ(ACLNN_SUCCESS, add_executor(self->x, self->y, self->out, ACL_FLOAT, self->one,
					      &ws, &x));
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&g, s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->x, N * 4, in, N * 4,
						ACL_MEMCPY_HOST_TO_DEVICE, s));
	ASSERT_EQ(ACLNN_SUCCESS, aclnnAdd(NULL, 0, x, s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(res, N * 4, self->out, N * 4,
						ACL_MEMCPY_DEVICE_TO_HOST, s));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(done, s));
	EXPECT_EQ(0, event_state(done));
	ASSERT_EQ(ACL_SUCCESS, gate_open(&g));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeEvent(done));
	EXPECT_EQ(0, wrong_sums(self->c, self->b, res, N));
	aclrtFreeHost(in);
	aclrtFreeHost(res);
	aclrtDestroyEvent(done);
	aclrtDestroyStream(s);
	gate_fini(&g);
}

/* The Add on s2 waits for an event of s1, which a gate holds, then for s1's copy. */
TEST_F(exec, launch_waits_for_an_event_of_another_stream)
{
	aclOpExecutor *x = NULL;
	aclrtStream s1, s2;
	aclrtEvent copied, added;
	struct gate g;
	float *in;
	uint64_t ws;

	ASSERT_EQ(ACL_SUCCESS, gate_init(&g));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&copied));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&added));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&in, N * 4));
	memcpy(in, self->c, N * 4);
	ASSERT_EQ(ACLNN_SUCCESS, add_executor(self->x, self->y, self->out, ACL_FLOAT, self->one,
					      &ws, &x));
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&g, s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->x, N * 4, in, N * 4,
						ACL_MEMCPY_HOST_TO_DEVICE, s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(copied, s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamWaitEvent(s2, copied));
	ASSERT_EQ(ACLNN_SUCCESS, aclnnAdd(NULL, 0, x, s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(added, s2));
	EXPECT_EQ(0, event_state(added));
	ASSERT_EQ(ACL_SUCCESS, gate_open(&g));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(s2));
	ASSERT_EQ(ACL_SUCCESS, download(self->got, self->out, N * 4));
	EXPECT_EQ(0, wrong_sums(self->c, self->b, self->got, N));
	aclrtFreeHost(in);
	aclrtDestroyEvent(copied);
	aclrtDestroyEvent(added);
	aclrtDestroyStream(s1);
	aclrtDestroyStream(s2);
	gate_fini(&g);
}

/* An int32 self is cast to float in workspace: the launch needs it, whole and on the device. */
TEST_F(exec, bad_workspace_is_refused_before_anything_is_queued)
{
	int32_t ints[N];
	aclOpExecutor *x = NULL;
	void *work, *host_work;
	uint64_t ws = 0;

	for (int i = 0; i < N; i++) {
		ints[i] = i - 7;
		self->c[i] = (float)(i - 7);
	}
	ASSERT_EQ(ACL_SUCCESS, upload(self->z, ints, N * 4));
	ASSERT_EQ(ACLNN_SUCCESS, add_executor(self->z, self->y, self->out, ACL_INT32, self->one,
					      &ws, &x));
	ASSERT_GE(ws, N * 4);
	ASSERT_EQ(ACLNN_SUCCESS, aclSetAclOpExecutorRepeatable(x));
	work = dev_alloc(ws);
	ASSERT_NE(NULL, work);
	host_work = malloc(ws);
	ASSERT_NE(NULL, host_work);

	EXPECT_EQ(ACLNN_ERR_PARAM_NULLPTR, aclnnAdd(NULL, ws, x, NULL));
	EXPECT_NE(NULL, strstr(aclGetRecentErrMsg(), "workspace is NULL"));
	EXPECT_EQ(ACLNN_ERR_PARAM_INVALID, aclnnAdd(work, ws - 1, x, NULL));
	EXPECT_NE(NULL, strstr(aclGetRecentErrMsg(), "needs"));
	EXPECT_EQ(ACLNN_ERR_PARAM_INVALID, aclnnAdd(host_work, ws, x, NULL));
	EXPECT_NE(NULL, strstr(aclGetRecentErrMsg(), "allocation"));
	EXPECT_EQ(ACLNN_ERR_PARAM_INVALID, aclnnAdd((char *)work + 64, ws, x, NULL));
	/* none of those queued anything: out is still zero */
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(self->out, N * 4, 0, N * 4));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(NULL));
	ASSERT_EQ(ACLNN_SUCCESS, aclnnAdd(work, ws, x, NULL));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(NULL));
	ASSERT_EQ(ACL_SUCCESS, download(self->got, self->out, N * 4));
	EXPECT_EQ(0, wrong_sums(self->c, self->b, self->got, N));
	EXPECT_EQ(ACLNN_SUCCESS, aclDestroyAclOpExecutor(x));
	free(host_work);
	aclrtFree(work);
}


/*
 * out[0..n) = a + alpha * b through one executor, launched with the
 * workspace it asks for; the tensors are destroyed after.
 */
static int add_n(void *a, void *b, void *out, int64_t n, float alpha, uint64_t *ws_size)
{
	aclTensor *ta = vec(a, n, ACL_FLOAT), *tb = vec(b, n, ACL_FLOAT);
	aclTensor *to = vec(out, n, ACL_FLOAT);
	aclScalar *s = aclCreateScalar(&alpha, ACL_FLOAT);
	aclOpExecutor *x = NULL;
	void *work = NULL;
	int ret;

	ret = aclnnAddGetWorkspaceSize(ta, tb, s, to, ws_size, &x);
	if (!ret && *ws_size)
		ret = (work = dev_alloc(*ws_size)) ? 0 : -1;
	if (!ret)
		ret = aclnnAdd(work, *ws_size, x, NULL);
	if (!ret)
		ret = aclrtSynchronizeStream(NULL);
	aclrtFree(work);
	aclDestroyScalar(s);
	aclDestroyTensor(ta);
	aclDestroyTensor(tb);
	aclDestroyTensor(to);
	return ret;
}

/*
 * A launched executor's memory serves the next GetWorkspaceSize (aclnn's
 * cost per call): what the next one builds is its own, whatever the
 * shapes, operator counts, workspaces and addresses before it.
 */
TEST_F(exec, executors_built_after_others_compute_their_own_program)
{
	static float zeros[N];
	uint64_t ws = 0;
	size_t i, bad = 0;

	/* two card operators and a workspace: b scaled, then the sum */
	ASSERT_EQ(0, add_n(self->x, self->y, self->out, N, 2.0f, &ws));
	EXPECT_LT(0, ws);
	ASSERT_EQ(ACL_SUCCESS, download(self->got, self->out, N * 4));
	for (i = 0; i < N; i++)
		bad += self->got[i] != self->a[i] + 2.0f * self->b[i];
	EXPECT_EQ(0, bad);

	/* one operator, half the length, other tensors, no workspace */
	ASSERT_EQ(ACL_SUCCESS, upload(self->out2, zeros, N * 4));
	ASSERT_EQ(0, add_n(self->z, self->x, self->out2, N / 2, 1.0f, &ws));
	EXPECT_EQ(0, ws);
	ASSERT_EQ(ACL_SUCCESS, download(self->got, self->out2, N * 4));
	EXPECT_EQ(0, wrong_sums(self->c, self->a, self->got, N / 2));
	for (i = N / 2, bad = 0; i < N; i++)
		bad += self->got[i] != 0.0f;
	EXPECT_EQ(0, bad);

	/* and the full length again on the first result's tensors */
	ASSERT_EQ(0, add_n(self->y, self->z, self->out, N, 1.0f, &ws));
	ASSERT_EQ(ACL_SUCCESS, download(self->got, self->out, N * 4));
	EXPECT_EQ(0, wrong_sums(self->b, self->c, self->got, N));
}
/*
 * The child (this program run with --add-child FD): a large Add queued
 * behind the rest of its stream, a byte on FD once it is launched, and
 * then it waits to be killed.
 */
#define BIG	(16 << 20)

static int add_child(int fd)
{
	void *a, *b, *o;
	aclOpExecutor *x;
	aclTensor *ta, *tb, *to;
	aclScalar *one;
	int64_t n = BIG;
	float v = 1.0f;
	uint64_t ws;

	if (aclInit(NULL) || aclrtSetDevice(0))
		return 2;
	a = dev_alloc(BIG * 4);
	b = dev_alloc(BIG * 4);
	o = dev_alloc(BIG * 4);
	if (!a || !b || !o || aclrtMemset(a, BIG * 4, 0, BIG * 4) ||
	    aclrtMemset(b, BIG * 4, 0, BIG * 4))
		return 3;
	ta = aclCreateTensor(&n, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, &n, 1, a);
	tb = aclCreateTensor(&n, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, &n, 1, b);
	to = aclCreateTensor(&n, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, &n, 1, o);
	one = aclCreateScalar(&v, ACL_FLOAT);
	if (aclnnAddGetWorkspaceSize(ta, tb, one, to, &ws, &x) || aclnnAdd(NULL, 0, x, NULL))
		return 4;
	if (write(fd, "q", 1) != 1)
		return 5;
	for (;;)
		pause();
}

/* Free device memory once back at want, polled; 0 if it never comes back. */
static size_t free_mem_back_to(size_t want)
{
	size_t f = 0, t;

	for (int i = 0; i < 2000; i++) {
		if (aclrtGetMemInfo(ACL_HBM_MEM, &f, &t))
			return 0;
		if (f == want)
			return f;
		sleep_ms(5);
	}
	return f;
}

TEST_F(exec, killed_mid_add_gives_back_its_memory_and_spares_others)
{
	size_t before, total;
	aclOpExecutor *x = NULL;
	int fds[2], status;
	char fdarg[16], c;
	uint64_t ws;
	pid_t pid;

	ASSERT_EQ(ACL_SUCCESS, aclrtGetMemInfo(ACL_HBM_MEM, &before, &total));
	ASSERT_EQ(0, pipe(fds));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(fds[0]);
		snprintf(fdarg, sizeof(fdarg), "%d", fds[1]);
		execl("/proc/self/exe", "executor_test", "--add-child", fdarg, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	ASSERT_EQ(1, read(fds[0], &c, 1)) TH_LOG("the child failed before its Add was queued");
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	close(fds[0]);
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	EXPECT_EQ(before, free_mem_back_to(before));

	/* this process's operators still run, and right */
	ASSERT_EQ(ACLNN_SUCCESS, add_executor(self->x, self->y, self->out, ACL_FLOAT, self->one,
					      &ws, &x));
	ASSERT_EQ(ACLNN_SUCCESS, aclnnAdd(NULL, 0, x, NULL));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(NULL));
	ASSERT_EQ(ACL_SUCCESS, download(self->got, self->out, N * 4));
	EXPECT_EQ(0, wrong_sums(self->a, self->b, self->got, N));
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--add-child"))
		return add_child(atoi(argv[2]));
	return test_harness_run(argc, argv);
}
