// SPDX-License-Identifier: MIT
/*
 * aclnn operators captured into model runtime instances (guest): the
 * vendor's single-stream pattern (pinned input copied in, an Add, the
 * result copied out) replayed with new inputs each time, a thousand
 * replays of z = z + y checked by arithmetic, and executors made during
 * the capture and gone after it, whose operators the model keeps; the
 * captured Add's task attributes.
 */
#include "../acl/acl_test.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_add.h"

#define N	1024

static aclTensor *vec(void *dev)
{
	int64_t n = N;

	return aclCreateTensor(&n, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, &n, 1, dev);
}

FIXTURE(nncap) {
	aclrtStream s;
	void *x, *y, *z;
	float *hin, *hout;
	aclScalar *alpha;
};

FIXTURE_SETUP(nncap)
{
	float a = 1.0f;

	ASSERT_TRUE(acl_ok_init());
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&self->x, N * 4, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&self->y, N * 4, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&self->z, N * 4, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&self->hin, N * 4));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&self->hout, N * 4));
	self->alpha = aclCreateScalar(&a, ACL_FLOAT);
	ASSERT_NE(NULL, self->alpha);
}

FIXTURE_TEARDOWN(nncap)
{
	aclDestroyScalar(self->alpha);
	aclrtResetDevice(0);
	aclFinalize();
}

/* Queues out = a + b on s, its executor made now and gone after the launch. */
static int add(void *a, void *b, void *out, const aclScalar *alpha, aclrtStream s)
{
	aclTensor *ta = vec(a), *tb = vec(b), *to = vec(out);
	aclOpExecutor *x = NULL;
	uint64_t ws = 0;
	int ret;

	ret = aclnnAddGetWorkspaceSize(ta, tb, alpha, to, &ws, &x);
	if (!ret && ws)
		ret = -1;	/* Add takes no workspace on this card */
	if (!ret)
		ret = aclnnAdd(NULL, 0, x, s);
	aclDestroyTensor(ta);
	aclDestroyTensor(tb);
	aclDestroyTensor(to);
	return ret;
}

static void fill(float *h, float base)
{
	for (int i = 0; i < N; i++)
		h[i] = base + (float)i;
}

/* The vendor's single-stream sample: copy in, Add, copy out, replayed. */
TEST_F(nncap, copy_add_copy)
{
	aclmdlRI m;

	fill(self->hin, 0.0f);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(self->y, N * 4, self->hin, N * 4,
					   ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(self->s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->x, N * 4, self->hin, N * 4,
						ACL_MEMCPY_HOST_TO_DEVICE, self->s));
	ASSERT_EQ(0, add(self->x, self->y, self->z, self->alpha, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(self->hout, N * 4, self->z, N * 4,
						ACL_MEMCPY_DEVICE_TO_HOST, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureEnd(self->s, &m));
	for (int r = 1; r <= 8; r++) {
		fill(self->hin, (float)(100 * r));
		ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(m, self->s));
		ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
		for (int i = 0; i < N; i++)
			ASSERT_EQ((float)(100 * r + 2 * i), self->hout[i]);
	}
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroy(m));
}

/* z = z + y, ten Adds per replay, a thousand replays: z = 10000 y. */
TEST_F(nncap, replay_1000_times)
{
	aclmdlRI m;

	fill(self->hin, 1.0f);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(self->y, N * 4, self->hin, N * 4,
					   ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(self->z, N * 4, 0, N * 4));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(self->s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	for (int k = 0; k < 10; k++)
		ASSERT_EQ(0, add(self->z, self->y, self->z, self->alpha, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureEnd(self->s, &m));
	for (int r = 0; r < 1000; r++)
		ASSERT_EQ(ACL_SUCCESS, aclmdlRIExecuteAsync(m, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(self->hout, N * 4, self->z, N * 4,
					   ACL_MEMCPY_DEVICE_TO_HOST));
	for (int i = 0; i < N; i++)
		ASSERT_EQ(10000.0f * (1.0f + (float)i), self->hout[i]);
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroy(m));
}

/* The Add is one kernel task, launched with no configuration of its own. */
TEST_F(nncap, kernel_task_attributes)
{
	aclrtLaunchKernelAttrValue v;
	aclmdlRITask tasks[8];
	aclmdlRITaskType type;
	uint32_t n = 8;
	aclmdlRI m;

	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureBegin(self->s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemsetAsync(self->z, N * 4, 0, N * 4, self->s));
	ASSERT_EQ(0, add(self->x, self->y, self->z, self->alpha, self->s));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRICaptureEnd(self->s, &m));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIGetTasksByStream(self->s, tasks, &n));
	ASSERT_GE(n, 2u);
	ASSERT_EQ(ACL_SUCCESS, aclmdlRITaskGetType(tasks[n - 1], &type));
	ASSERT_EQ(ACL_MODEL_RI_TASK_KERNEL, type);
	tasks[1] = tasks[n - 1];
	memset(&v, 0xff, sizeof(v));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIKernelTaskGetAttribute(tasks[1],
		  ACL_RT_LAUNCH_KERNEL_ATTR_DYN_UBUF_SIZE, &v));
	EXPECT_EQ(0u, v.dynUBufSize);
	memset(&v, 0xff, sizeof(v));
	ASSERT_EQ(ACL_SUCCESS, aclmdlRIKernelTaskGetAttribute(tasks[1],
		  ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US, &v));
	EXPECT_EQ(0u, v.timeoutUs.timeoutLow);
	EXPECT_EQ(0u, v.timeoutUs.timeoutHigh);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIKernelTaskGetAttribute(tasks[1],
		  ACL_RT_LAUNCH_KERNEL_ATTR_ENGINE_TYPE, &v));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRIKernelTaskGetAttribute(tasks[1],
		  ACL_RT_LAUNCH_KERNEL_ATTR_ENABLE_PROFILING, &v));
	/* the fill is not a kernel task */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIKernelTaskGetAttribute(tasks[0],
		  ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE, &v));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIKernelTaskGetAttribute(tasks[1],
		  ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE, NULL));
	EXPECT_EQ(ACL_SUCCESS, aclmdlRIDestroy(m));
}

TEST_HARNESS_MAIN
