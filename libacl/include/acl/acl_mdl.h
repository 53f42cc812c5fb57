/* SPDX-License-Identifier: MIT */
/*
 * libascendcl: offline-model execution (aclmdl*). This runtime has no model
 * engine; the header exists so that "acl/acl.h" compiles, and declares only
 * the opaque types model code passes around.
 */
#ifndef LIBASCENDCL_ACL_MDL_H
#define LIBASCENDCL_ACL_MDL_H

#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct aclmdlDataset aclmdlDataset;
typedef struct aclmdlDesc aclmdlDesc;
typedef struct aclmdlAIPP aclmdlAIPP;
typedef struct aclmdlConfigHandle aclmdlConfigHandle;
typedef struct aclmdlExecConfigHandle aclmdlExecConfigHandle;

#define ACL_MAX_DIM_CNT 128
#define ACL_MAX_TENSOR_NAME_LEN 128
#define ACL_MAX_BATCH_NUM 128
#define ACL_MAX_HW_NUM 128
#define ACL_MAX_SHAPE_COUNT 128

#ifdef __cplusplus
}
#endif

#endif /* LIBASCENDCL_ACL_MDL_H */
