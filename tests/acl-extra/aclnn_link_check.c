// SPDX-License-Identifier: MIT
/*
 * Built against the install tree with -lascendcl -lnnopbase -lopapi
 * -lacl_op_compiler: an operator's first half on host memory (no card
 * needed), an object's checks, and the online compiler's refusal.
 */
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/acl_op_compiler.h"
#include "aclnn/aclnn_base.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_add.h"

static int fail(const char *what, int ret)
{
	const char *msg = aclGetRecentErrMsg();

	fprintf(stderr, "aclnn_link_check: %s: %d (%s)\n", what, ret, msg ? msg : "no message");
	return 1;
}

int main(void)
{
	int64_t dims[2] = { 2, 3 }, bad[2] = { 2, -3 };
	float x[6] = { 0 }, one = 1.0f;
	aclOpExecutor *executor = NULL;
	aclTensor *t, *refused;
	uint64_t size = 1;
	aclScalar *alpha;
	int ret;

	ret = aclnnInit(NULL);
	if (ret)
		return fail("aclnnInit", ret);
	t = aclCreateTensor(dims, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, dims, 2, x);
	alpha = aclCreateScalar(&one, ACL_FLOAT);
	if (!t || !alpha)
		return fail("aclCreateTensor/aclCreateScalar", -1);
	refused = aclCreateTensor(bad, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, bad, 2, x);
	if (refused || !strstr(aclGetRecentErrMsg(), "negative"))
		return fail("aclCreateTensor with a negative dim", -1);
	ret = aclnnAddGetWorkspaceSize(t, t, alpha, t, &size, &executor);
	if (ret || size || !executor)
		return fail("aclnnAddGetWorkspaceSize", ret);
	ret = aclDestroyAclOpExecutor(executor);
	if (ret)
		return fail("aclDestroyAclOpExecutor", ret);
	ret = aclopCompile("Add", 0, NULL, 0, NULL, NULL, ACL_ENGINE_SYS, ACL_COMPILE_SYS, NULL);
	if (ret != ACL_ERROR_API_NOT_SUPPORT || !strstr(aclGetRecentErrMsg(), "not supported"))
		return fail("aclopCompile", ret);
	aclDestroyScalar(alpha);
	aclDestroyTensor(t);
	ret = aclnnFinalize();
	if (ret)
		return fail("aclnnFinalize", ret);
	printf("aclnn_link_check: ok\n");
	return 0;
}
