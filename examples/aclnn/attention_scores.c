// SPDX-License-Identifier: MIT
/*
 * Single operators (aclnn) as an application calls them: attention scores
 * softmax(q k^T) for a few queries, on the card, in two operators that
 * each take the vendor's two calls.  k^T is not copied anywhere: it is a
 * view of k with its strides swapped, which aclCreateTensor describes.
 * The Mm executor is made repeatable and run again for a second batch of
 * queries by rebinding its input's address; the host checks both batches.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_mm.h"
#include "aclnnop/aclnn_softmax.h"
#include "../check.h"

#define QUERIES	4
#define KEYS	3
#define DIM	8

static float q[2][QUERIES * DIM], k[KEYS * DIM], probs[QUERIES * KEYS];

static void *to_device(const void *host, size_t size)
{
	void *dev = NULL;

	if (aclrtMalloc(&dev, size, ACL_MEM_MALLOC_HUGE_FIRST) ||
	    aclrtMemcpy(dev, size, host, size, ACL_MEMCPY_HOST_TO_DEVICE))
		return NULL;
	return dev;
}

static aclTensor *matrix(int64_t rows, int64_t cols, int64_t row_stride, int64_t col_stride,
			 void *data)
{
	const int64_t dims[2] = { rows, cols }, strides[2] = { row_stride, col_stride };
	/* the storage is the buffer as allocated, whatever view is taken of it */
	const int64_t storage = rows * cols;

	return aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, &storage, 1, data);
}

/* The largest difference between the card's probabilities and the host's. */
static double check_batch(const float *qb)
{
	double worst = 0;

	for (int i = 0; i < QUERIES; i++) {
		double s[KEYS], max = -INFINITY, sum = 0;

		for (int j = 0; j < KEYS; j++) {
			s[j] = 0;
			for (int d = 0; d < DIM; d++)
				s[j] += (double)qb[i * DIM + d] * k[j * DIM + d];
			max = fmax(max, s[j]);
		}
		for (int j = 0; j < KEYS; j++)
			sum += exp(s[j] - max);
		for (int j = 0; j < KEYS; j++)
			worst = fmax(worst, fabs(exp(s[j] - max) / sum - probs[i * KEYS + j]));
	}
	return worst;
}

static int softmax_rows(aclTensor *scores, aclTensor *out, aclrtStream stream)
{
	aclOpExecutor *executor;
	uint64_t size;
	void *work = NULL;

	CHECK(aclnnSoftmaxGetWorkspaceSize(scores, -1, out, &size, &executor));
	if (size)
		CHECK(aclrtMalloc(&work, size, ACL_MEM_MALLOC_HUGE_FIRST));
	CHECK(aclnnSoftmax(work, size, executor, stream));
	CHECK(aclrtSynchronizeStream(stream));
	if (work)
		CHECK(aclrtFree(work));
	return 0;
}

int main(void)
{
	aclTensor *tq, *tkt, *tscores, *tprobs;
	void *dq[2], *dk, *dscores, *dprobs, *work = NULL;
	aclOpExecutor *mm;
	aclrtStream stream;
	uint64_t size;

	for (int i = 0; i < QUERIES * DIM; i++) {
		q[0][i] = (float)((i * 7) % 11) / 11.0f - 0.5f;
		q[1][i] = (float)((i * 5) % 13) / 13.0f - 0.5f;
	}
	for (int i = 0; i < KEYS * DIM; i++)
		k[i] = (float)((i * 3) % 17) / 17.0f - 0.5f;

	CHECK(aclInit(NULL));
	CHECK(aclrtSetDevice(0));
	CHECK(aclrtCreateStream(&stream));
	dq[0] = to_device(q[0], sizeof(q[0]));
	dq[1] = to_device(q[1], sizeof(q[1]));
	dk = to_device(k, sizeof(k));
	if (!dq[0] || !dq[1] || !dk) {
		fprintf(stderr, "cannot put the inputs on the device: %s\n", aclGetRecentErrMsg());
		return 1;
	}
	CHECK(aclrtMalloc(&dscores, sizeof(probs), ACL_MEM_MALLOC_HUGE_FIRST));
	CHECK(aclrtMalloc(&dprobs, sizeof(probs), ACL_MEM_MALLOC_HUGE_FIRST));

	tq = matrix(QUERIES, DIM, DIM, 1, dq[0]);
	tkt = matrix(DIM, KEYS, 1, DIM, dk);	/* k (KEYS x DIM) seen transposed */
	tscores = matrix(QUERIES, KEYS, KEYS, 1, dscores);
	tprobs = matrix(QUERIES, KEYS, KEYS, 1, dprobs);
	if (!tq || !tkt || !tscores || !tprobs) {
		fprintf(stderr, "aclCreateTensor: %s\n", aclGetRecentErrMsg());
		return 1;
	}

	CHECK(aclnnMmGetWorkspaceSize(tq, tkt, tscores, 0, &size, &mm));
	CHECK(aclSetAclOpExecutorRepeatable(mm));
	if (size)
		CHECK(aclrtMalloc(&work, size, ACL_MEM_MALLOC_HUGE_FIRST));

	for (int batch = 0; batch < 2; batch++) {
		/* input 0 of Mm is self: the queries of this batch */
		CHECK(aclSetInputTensorAddr(mm, 0, tq, dq[batch]));
		CHECK(aclnnMm(work, size, mm, stream));
		if (softmax_rows(tscores, tprobs, stream))
			return 1;
		CHECK(aclrtMemcpy(probs, sizeof(probs), dprobs, sizeof(probs),
				  ACL_MEMCPY_DEVICE_TO_HOST));
		double worst = check_batch(q[batch]);

		printf("batch %d: query 0 attends %.4f %.4f %.4f (host and card differ by %.2g)\n",
		       batch, probs[0], probs[1], probs[2], worst);
		if (worst > 1e-5) {
			fprintf(stderr, "batch %d: the card's probabilities are off by %g\n",
				batch, worst);
			return 1;
		}
	}

	CHECK(aclDestroyAclOpExecutor(mm));
	aclDestroyTensor(tq);
	aclDestroyTensor(tkt);
	aclDestroyTensor(tscores);
	aclDestroyTensor(tprobs);
	if (work)
		CHECK(aclrtFree(work));
	CHECK(aclrtFree(dq[0]));
	CHECK(aclrtFree(dq[1]));
	CHECK(aclrtFree(dk));
	CHECK(aclrtFree(dscores));
	CHECK(aclrtFree(dprobs));
	CHECK(aclrtDestroyStream(stream));
	CHECK(aclrtResetDevice(0));
	CHECK(aclFinalize());
	printf("attention scores on the card match the host's\n");
	return 0;
}
