/* SPDX-License-Identifier: MIT */
/*
 * libascendcl: the base header every AscendCL program reaches first.
 * It gathers the basic types (acl_base_rt.h), the runtime and graph-engine
 * error codes and the tensor-description types that the operator and model
 * headers share.
 */
#ifndef LIBASCENDCL_ACL_BASE_H
#define LIBASCENDCL_ACL_BASE_H

#include <stdint.h>
#include <stddef.h>

#include "error_codes/rt_error_codes.h"
#include "error_codes/ge_error_codes.h"
#include "acl_base_rt.h"

/* Tensor descriptions, which the model and operator headers share. */
#include "acl_base_mdl.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct aclprofStepInfo aclprofStepInfo;

#ifdef __cplusplus
}
#endif

#endif /* LIBASCENDCL_ACL_BASE_H */
