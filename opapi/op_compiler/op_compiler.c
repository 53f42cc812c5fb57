// SPDX-License-Identifier: MIT
/*
 * libacl_op_compiler: the vendor's online compiler of single operators.
 * This stack has none (aclnn runs single operators, atc compiles models),
 * so each call fails with ACL_ERROR_API_NOT_SUPPORT and says where to go.
 */
#include "acl/acl_op_compiler.h"
#include "npu_acl_private.h"

#define OPCOMP_EXPORT	__attribute__((visibility("default")))

static aclError not_supported(const char *func, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	npu_acl_record_error(func, ACL_ERROR_API_NOT_SUPPORT, fmt, ap);
	va_end(ap);
	return ACL_ERROR_API_NOT_SUPPORT;
}

#define NOT_SUPPORTED(op)							\
	not_supported(__func__, "compiling operator %s online is not supported: "	\
		      "run it through its aclnn call (libopapi) or compile a model "	\
		      "with atc", (op) ? (op) : "(NULL)")

OPCOMP_EXPORT aclError aclopCompile(const char *opType, int numInputs,
				    const aclTensorDesc *const inputDesc[], int numOutputs,
				    const aclTensorDesc *const outputDesc[], const aclopAttr *attr,
				    aclopEngineType engineType, aclopCompileType compileFlag,
				    const char *opPath)
{
	(void)numInputs, (void)inputDesc, (void)numOutputs, (void)outputDesc, (void)attr;
	(void)engineType, (void)compileFlag, (void)opPath;
	return NOT_SUPPORTED(opType);
}

OPCOMP_EXPORT aclError aclopCompileAndExecute(const char *opType, int numInputs,
					      const aclTensorDesc *const inputDesc[],
					      const aclDataBuffer *const inputs[], int numOutputs,
					      const aclTensorDesc *const outputDesc[],
					      aclDataBuffer *const outputs[], const aclopAttr *attr,
					      aclopEngineType engineType,
					      aclopCompileType compileFlag, const char *opPath,
					      aclrtStream stream)
{
	(void)numInputs, (void)inputDesc, (void)inputs, (void)numOutputs, (void)outputDesc;
	(void)outputs, (void)attr, (void)engineType, (void)compileFlag, (void)opPath, (void)stream;
	return NOT_SUPPORTED(opType);
}

OPCOMP_EXPORT aclError aclopCompileAndExecuteV2(const char *opType, int numInputs,
						aclTensorDesc *inputDesc[], aclDataBuffer *inputs[],
						int numOutputs, aclTensorDesc *outputDesc[],
						aclDataBuffer *outputs[], aclopAttr *attr,
						aclopEngineType engineType,
						aclopCompileType compileFlag, const char *opPath,
						aclrtStream stream)
{
	(void)numInputs, (void)inputDesc, (void)inputs, (void)numOutputs, (void)outputDesc;
	(void)outputs, (void)attr, (void)engineType, (void)compileFlag, (void)opPath, (void)stream;
	return NOT_SUPPORTED(opType);
}

OPCOMP_EXPORT aclError aclSetCompileopt(aclCompileOpt opt, const char *value)
{
	(void)value;
	return not_supported(__func__, "compile option %d: there is no online compiler", opt);
}

/* No option has a value: 0 bytes. */
OPCOMP_EXPORT size_t aclGetCompileoptSize(aclCompileOpt opt)
{
	(void)opt;
	return 0;
}

OPCOMP_EXPORT aclError aclGetCompileopt(aclCompileOpt opt, char *value, size_t length)
{
	(void)value, (void)length;
	return not_supported(__func__, "compile option %d: there is no online compiler", opt);
}

OPCOMP_EXPORT aclError aclopSetCompileFlag(aclOpCompileFlag flag)
{
	return not_supported(__func__, "compile flag %d: there is no online compiler", flag);
}

OPCOMP_EXPORT aclError aclGenGraphAndDumpForOp(const char *opType, int numInputs,
					       const aclTensorDesc *const inputDesc[],
					       const aclDataBuffer *const inputs[], int numOutputs,
					       const aclTensorDesc *const outputDesc[],
					       aclDataBuffer *const outputs[], const aclopAttr *attr,
					       aclopEngineType engineType, const char *graphDumpPath,
					       const aclGraphDumpOption *graphDumpOpt)
{
	(void)numInputs, (void)inputDesc, (void)inputs, (void)numOutputs, (void)outputDesc;
	(void)outputs, (void)attr, (void)engineType, (void)graphDumpPath, (void)graphDumpOpt;
	return NOT_SUPPORTED(opType);
}

OPCOMP_EXPORT aclGraphDumpOption *aclCreateGraphDumpOpt(void)
{
	not_supported(__func__, "graph dump options: there is no online compiler");
	return NULL;
}

OPCOMP_EXPORT aclError aclDestroyGraphDumpOpt(const aclGraphDumpOption *graphDumpOpt)
{
	(void)graphDumpOpt;
	return not_supported(__func__, "graph dump options: there is no online compiler");
}
