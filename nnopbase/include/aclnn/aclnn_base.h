/* SPDX-License-Identifier: MIT */
/* aclnn's setup and teardown (libnnopbase); the vendor's declarations, in C and C++. */
#ifndef ACLNN_ACLNN_BASE_H
#define ACLNN_ACLNN_BASE_H

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclnnStatus aclnnInit(const char *configPath);
ACL_FUNC_VISIBILITY aclnnStatus aclnnFinalize(void);

#ifdef __cplusplus
}
#endif

#endif /* ACLNN_ACLNN_BASE_H */
