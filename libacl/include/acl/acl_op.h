/* SPDX-License-Identifier: MIT */
/*
 * libascendcl: single-operator execution (aclop*). This runtime has no
 * operator engine; the header exists so that "acl/acl.h" compiles, and
 * declares only the opaque types operator code passes around.
 */
#ifndef LIBASCENDCL_ACL_OP_H
#define LIBASCENDCL_ACL_OP_H

#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct aclopHandle aclopHandle;
typedef struct aclopAttr aclopAttr;
typedef struct aclopKernelDesc aclopKernelDesc;

typedef enum aclEngineType {
	ACL_ENGINE_SYS,
	ACL_ENGINE_AICORE,
	ACL_ENGINE_VECTOR,
} aclopEngineType;

#ifdef __cplusplus
}
#endif

#endif /* LIBASCENDCL_ACL_OP_H */
