// SPDX-License-Identifier: MIT
/*
 * The three calls libnnopbase (the aclnn runtime) takes from the library
 * (include/npu_acl_private.h): it turns each aclnn operator into card
 * operators itself, and queues them here as a model's are queued
 * (model_exec.c), on the caller's stream behind its earlier work.
 */
#include <stdlib.h>

#include "model.h"
#include "npu_acl_private.h"
#include "npu_operator.h"
#include "prof.h"

ACL_EXPORT aclError npu_acl_submit_ops(aclrtStream stream, const void *const *descs,
				       const uint32_t *sizes, uint32_t count)
{
	return npu_acl_submit_named_ops(stream, NULL, descs, sizes, count);
}

ACL_EXPORT aclError npu_acl_submit_named_ops(aclrtStream stream, const char *name,
					     const void *const *descs, const uint32_t *sizes,
					     uint32_t count)
{
	struct drm_npu_cmd *cmds;
	struct acl_stream *s;
	aclError err = ACL_SUCCESS;

	if (!count)
		return ACL_SUCCESS;
	ACL_CHECK_NULL(descs);
	ACL_CHECK_NULL(sizes);
	s = acl_stream_resolve(stream, &err);
	if (!s)
		return err;
	cmds = calloc(count, sizeof(*cmds));
	if (!cmds)
		return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory for %u operators", count);
	for (uint32_t i = 0; i < count; i++) {
		if (!descs[i] || (uintptr_t)descs[i] % NPU_OP_DESC_ALIGN ||
		    sizes[i] < sizeof(struct npu_op_desc)) {
			free(cmds);
			return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "operator %u's descriptor %p (%u "
					"bytes) is not an aligned npu_op_desc", i, descs[i], sizes[i]);
		}
		cmds[i] = (struct drm_npu_cmd){
			.op = DRM_NPU_OP_COMPUTE,
			.src = (uintptr_t)descs[i],
			.size = sizes[i],
		};
	}
	if (name)
		acl_prof_label(cmds, name, NULL, 0);
	err = acl_stream_submit(s, cmds, count, NULL);
	free(cmds);
	return err;
}

ACL_EXPORT bool npu_acl_devmem_holds(const void *ptr, uint64_t len)
{
	struct acl_context *c = acl_current_ctx_quiet();

	if (!c || !acl_is_dev_ptr(ptr))
		return false;
	return acl_devmem_padding_holds(c->dev, (uintptr_t)ptr, len);
}

ACL_EXPORT void npu_acl_record_error(const char *func, int32_t code, const char *fmt, va_list ap)
{
	acl_vfail(func, code, fmt, ap);
}
