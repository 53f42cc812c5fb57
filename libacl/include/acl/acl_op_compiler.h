/* SPDX-License-Identifier: MIT */
/*
 * The vendor's online operator compiler (libacl_op_compiler).  This stack
 * runs operators through aclnn (libopapi) and compiled models; every call
 * here returns ACL_ERROR_API_NOT_SUPPORT with a message.
 */
#ifndef INC_EXTERNAL_ACL_ACL_OP_COMPILER_H_
#define INC_EXTERNAL_ACL_ACL_OP_COMPILER_H_

#include "acl_base.h"
#include "acl_op.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum aclCompileType { ACL_COMPILE_SYS, ACL_COMPILE_UNREGISTERED } aclopCompileType;

typedef enum {
	ACL_PRECISION_MODE,
	ACL_AICORE_NUM,
	ACL_AUTO_TUNE_MODE,
	ACL_OP_SELECT_IMPL_MODE,
	ACL_OPTYPELIST_FOR_IMPLMODE,
	ACL_OP_DEBUG_LEVEL,
	ACL_DEBUG_DIR,
	ACL_OP_COMPILER_CACHE_MODE,
	ACL_OP_COMPILER_CACHE_DIR,
	ACL_OP_PERFORMANCE_MODE,
	ACL_OP_JIT_COMPILE,
	ACL_OP_DETERMINISTIC,
	ACL_CUSTOMIZE_DTYPES,
	ACL_OP_PRECISION_MODE,
	ACL_ALLOW_HF32,
	ACL_PRECISION_MODE_V2,
	ACL_OP_DEBUG_OPTION
} aclCompileOpt;

typedef enum aclCompileFlag { ACL_OP_COMPILE_DEFAULT, ACL_OP_COMPILE_FUZZ } aclOpCompileFlag;

typedef struct aclGraphDumpOption aclGraphDumpOption;

ACL_FUNC_VISIBILITY aclError aclopCompile(const char *opType, int numInputs,
					  const aclTensorDesc *const inputDesc[], int numOutputs,
					  const aclTensorDesc *const outputDesc[],
					  const aclopAttr *attr, aclopEngineType engineType,
					  aclopCompileType compileFlag, const char *opPath);

ACL_FUNC_VISIBILITY aclError aclopCompileAndExecute(const char *opType, int numInputs,
						    const aclTensorDesc *const inputDesc[],
						    const aclDataBuffer *const inputs[],
						    int numOutputs,
						    const aclTensorDesc *const outputDesc[],
						    aclDataBuffer *const outputs[],
						    const aclopAttr *attr,
						    aclopEngineType engineType,
						    aclopCompileType compileFlag,
						    const char *opPath, aclrtStream stream);

ACL_FUNC_VISIBILITY aclError aclopCompileAndExecuteV2(const char *opType, int numInputs,
						      aclTensorDesc *inputDesc[],
						      aclDataBuffer *inputs[], int numOutputs,
						      aclTensorDesc *outputDesc[],
						      aclDataBuffer *outputs[], aclopAttr *attr,
						      aclopEngineType engineType,
						      aclopCompileType compileFlag,
						      const char *opPath, aclrtStream stream);

ACL_FUNC_VISIBILITY aclError aclSetCompileopt(aclCompileOpt opt, const char *value);
ACL_FUNC_VISIBILITY size_t aclGetCompileoptSize(aclCompileOpt opt);
ACL_FUNC_VISIBILITY aclError aclGetCompileopt(aclCompileOpt opt, char *value, size_t length);
ACL_FUNC_VISIBILITY aclError aclopSetCompileFlag(aclOpCompileFlag flag);

ACL_FUNC_VISIBILITY aclError aclGenGraphAndDumpForOp(const char *opType, int numInputs,
						     const aclTensorDesc *const inputDesc[],
						     const aclDataBuffer *const inputs[],
						     int numOutputs,
						     const aclTensorDesc *const outputDesc[],
						     aclDataBuffer *const outputs[],
						     const aclopAttr *attr,
						     aclopEngineType engineType,
						     const char *graphDumpPath,
						     const aclGraphDumpOption *graphDumpOpt);

/* NULL (not supported), with a message. */
ACL_FUNC_VISIBILITY aclGraphDumpOption *aclCreateGraphDumpOpt(void);
ACL_FUNC_VISIBILITY aclError aclDestroyGraphDumpOpt(const aclGraphDumpOption *graphDumpOpt);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_ACL_OP_COMPILER_H_ */
