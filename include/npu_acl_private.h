/* SPDX-License-Identifier: MIT */
/*
 * What libascendcl exports for libnnopbase alone: not AscendCL, not
 * installed.  libnnopbase builds its card operators itself and needs only
 * a stream to queue them on, the device memory map to check addresses
 * against, and the runtime's per-thread error message.
 */
#ifndef NPU_ACL_PRIVATE_H
#define NPU_ACL_PRIVATE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Queues count card operators on stream (NULL: the current context's
 * default stream) behind its earlier work, as DRM_NPU_OP_COMPUTE commands:
 * descs[i] is an npu_op_desc of sizes[i] bytes, NPU_OP_DESC_ALIGN aligned,
 * its tensors' addresses filled in.  The descriptors are copied by the
 * time it returns.
 */
aclError npu_acl_submit_ops(aclrtStream stream, const void *const *descs, const uint32_t *sizes,
			    uint32_t count);

/* As npu_acl_submit_ops, the operators named (aclnn's API, for profiles). */
aclError npu_acl_submit_named_ops(aclrtStream stream, const char *name, const void *const *descs,
				  const uint32_t *sizes, uint32_t count);

/*
 * [ptr, ptr + len) lies in one device allocation of the current context's
 * device, the 32 bytes aclrtMalloc adds past its size included.
 */
bool npu_acl_devmem_holds(const void *ptr, uint64_t len);

/* Records "func: message" as the thread's aclGetRecentErrMsg() and logs it. */
void npu_acl_record_error(const char *func, int32_t code, const char *fmt, va_list ap);

#ifdef __cplusplus
}
#endif

#endif /* NPU_ACL_PRIVATE_H */
