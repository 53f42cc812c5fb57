/* SPDX-License-Identifier: MIT */
/*
 * libascendcl: offline models (aclmdl*). A model is a .om file of
 * tools/atc (docs/om-format.md): loading checks it and uploads its
 * weights to the card; executing runs its operators on the card, in
 * order, on a stream.
 *
 * The types are those of the vendor's acl_mdl.h, so that code written for
 * it compiles; the functions declared are the ones this library provides
 * (static-shape models: no dynamic batch, AIPP, queues or bundles).
 */
#ifndef LIBASCENDCL_ACL_MDL_H
#define LIBASCENDCL_ACL_MDL_H

#include <stddef.h>
#include <stdint.h>

#include "acl_base.h"
#include "acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ACL_DIM_ENDPOINTS 2
#define ACL_MAX_DIM_CNT 128
#define ACL_MAX_TENSOR_NAME_LEN 128
#define ACL_MAX_BATCH_NUM 128
#define ACL_MAX_HW_NUM 128
#define ACL_MAX_SHAPE_COUNT 128
#define ACL_INVALID_NODE_INDEX 0xFFFFFFFF

#define ACL_MDL_LOAD_FROM_FILE 1
#define ACL_MDL_LOAD_FROM_FILE_WITH_MEM 2
#define ACL_MDL_LOAD_FROM_MEM 3
#define ACL_MDL_LOAD_FROM_MEM_WITH_MEM 4
#define ACL_MDL_LOAD_FROM_FILE_WITH_Q 5
#define ACL_MDL_LOAD_FROM_MEM_WITH_Q 6

#define ACL_DYNAMIC_TENSOR_NAME "ascend_mbatch_shape_data"
#define ACL_DYNAMIC_AIPP_NAME "ascend_dynamic_aipp_data"
#define ACL_ATTR_NAME_DATA_DUMP_ORIGIN_OP_NAMES "_datadump_original_op_names"

#define ACL_WORKSPACE_MEM_OPTIMIZE_DEFAULT 0
#define ACL_WORKSPACE_MEM_OPTIMIZE_INPUTOUTPUT 1

#define ACL_MODEL_STREAM_FLAG_HEAD 0x00000000U
#define ACL_MODEL_STREAM_FLAG_DEFAULT 0x7FFFFFFFU

typedef struct aclmdlDataset aclmdlDataset;
typedef struct aclmdlDesc aclmdlDesc;
typedef struct aclmdlAIPP aclmdlAIPP;
typedef struct aclAippExtendInfo aclAippExtendInfo;
typedef struct aclmdlConfigHandle aclmdlConfigHandle;
typedef struct aclmdlExecConfigHandle aclmdlExecConfigHandle;
typedef struct aclmdlBundleQueryInfo aclmdlBundleQueryInfo;
typedef void *aclmdlModel;

typedef enum {
	ACL_YUV420SP_U8 = 1,
	ACL_XRGB8888_U8 = 2,
	ACL_RGB888_U8 = 3,
	ACL_YUV400_U8 = 4,
	ACL_NC1HWC0DI_FP16 = 5,
	ACL_NC1HWC0DI_S8 = 6,
	ACL_ARGB8888_U8 = 7,
	ACL_YUYV_U8 = 8,
	ACL_YUV422SP_U8 = 9,
	ACL_AYUV444_U8 = 10,
	ACL_RAW10 = 11,
	ACL_RAW12 = 12,
	ACL_RAW16 = 13,
	ACL_RAW24 = 14,
	ACL_AIPP_RESERVED = 0xFFFF,
} aclAippInputFormat;

typedef enum {
	ACL_MDL_PRIORITY_INT32 = 0,
	ACL_MDL_LOAD_TYPE_SIZET,
	ACL_MDL_PATH_PTR,
	ACL_MDL_MEM_ADDR_PTR,
	ACL_MDL_MEM_SIZET,
	ACL_MDL_WEIGHT_ADDR_PTR,
	ACL_MDL_WEIGHT_SIZET,
	ACL_MDL_WORKSPACE_ADDR_PTR,
	ACL_MDL_WORKSPACE_SIZET,
	ACL_MDL_INPUTQ_NUM_SIZET,
	ACL_MDL_INPUTQ_ADDR_PTR,
	ACL_MDL_OUTPUTQ_NUM_SIZET,
	ACL_MDL_OUTPUTQ_ADDR_PTR,
	ACL_MDL_WORKSPACE_MEM_OPTIMIZE,
	ACL_MDL_WEIGHT_PATH_PTR,
	ACL_MDL_MODEL_DESC_PTR,
	ACL_MDL_MODEL_DESC_SIZET,
	ACL_MDL_KERNEL_PTR,
	ACL_MDL_KERNEL_SIZET,
	ACL_MDL_KERNEL_ARGS_PTR,
	ACL_MDL_KERNEL_ARGS_SIZET,
	ACL_MDL_STATIC_TASK_PTR,
	ACL_MDL_STATIC_TASK_SIZET,
	ACL_MDL_DYNAMIC_TASK_PTR,
	ACL_MDL_DYNAMIC_TASK_SIZET,
	ACL_MDL_MEM_MALLOC_POLICY_SIZET,
	ACL_MDL_FIFO_PTR,
	ACL_MDL_FIFO_SIZET,
	ACL_MDL_WITHOUT_GRAPH_INT32,
	ACL_NPU_PERF_MODE,
	ACL_MDL_RESERVED = 0xFFFF
} aclmdlConfigAttr;

typedef enum { ACL_MDL_ATTR_PRIORITY_INT32 = 0 } aclmdlAttr;

typedef union {
	uint32_t mdlPriority;
	uint32_t reserved[8];
} aclmdlAttrValue_t;

typedef enum {
	ACL_MDL_STREAM_SYNC_TIMEOUT = 0,
	ACL_MDL_EVENT_SYNC_TIMEOUT,
	ACL_MDL_WORK_ADDR_PTR,
	ACL_MDL_WORK_SIZET,
	ACL_MDL_MPAIMID_SIZET,
	ACL_MDL_AICQOS_SIZET,
	ACL_MDL_AICOST_SIZET,
	ACL_MDL_MEC_TIMETHR_SIZET,
	ACL_MDL_EXEC_PRIORITY_INT32,
	ACL_MDL_NPU_PERF_MODE
} aclmdlExecConfigAttr;

typedef enum {
	ACL_DATA_WITHOUT_AIPP = 0,
	ACL_DATA_WITH_STATIC_AIPP,
	ACL_DATA_WITH_DYNAMIC_AIPP,
	ACL_DYNAMIC_AIPP_NODE
} aclmdlInputAippType;

typedef struct aclmdlIODims {
	char name[ACL_MAX_TENSOR_NAME_LEN];
	size_t dimCount;
	int64_t dims[ACL_MAX_DIM_CNT];
} aclmdlIODims;

typedef struct aclmdlIODimsRange {
	size_t rangeCount;
	int64_t range[ACL_MAX_DIM_CNT][ACL_DIM_ENDPOINTS];
} aclmdlIODimsRange;

typedef struct aclAippDims {
	aclmdlIODims srcDims;
	size_t srcSize;
	aclmdlIODims aippOutdims;
	size_t aippOutSize;
} aclAippDims;

typedef struct aclmdlBatch {
	size_t batchCount;
	uint64_t batch[ACL_MAX_BATCH_NUM];
} aclmdlBatch;

typedef struct aclmdlHW {
	size_t hwCount;
	uint64_t hw[ACL_MAX_HW_NUM][2];
} aclmdlHW;

typedef struct aclAippInfo {
	aclAippInputFormat inputFormat;
	int32_t srcImageSizeW;
	int32_t srcImageSizeH;
	int8_t cropSwitch;
	int32_t loadStartPosW;
	int32_t loadStartPosH;
	int32_t cropSizeW;
	int32_t cropSizeH;
	int8_t resizeSwitch;
	int32_t resizeOutputW;
	int32_t resizeOutputH;
	int8_t paddingSwitch;
	int32_t leftPaddingSize;
	int32_t rightPaddingSize;
	int32_t topPaddingSize;
	int32_t bottomPaddingSize;
	int8_t cscSwitch;
	int8_t rbuvSwapSwitch;
	int8_t axSwapSwitch;
	int8_t singleLineMode;
	int32_t matrixR0C0;
	int32_t matrixR0C1;
	int32_t matrixR0C2;
	int32_t matrixR1C0;
	int32_t matrixR1C1;
	int32_t matrixR1C2;
	int32_t matrixR2C0;
	int32_t matrixR2C1;
	int32_t matrixR2C2;
	int32_t outputBias0;
	int32_t outputBias1;
	int32_t outputBias2;
	int32_t inputBias0;
	int32_t inputBias1;
	int32_t inputBias2;
	int32_t meanChn0;
	int32_t meanChn1;
	int32_t meanChn2;
	int32_t meanChn3;
	float minChn0;
	float minChn1;
	float minChn2;
	float minChn3;
	float varReciChn0;
	float varReciChn1;
	float varReciChn2;
	float varReciChn3;
	aclFormat srcFormat;
	aclDataType srcDatatype;
	size_t srcDimNum;
	size_t shapeCount;
	aclAippDims outDims[ACL_MAX_SHAPE_COUNT];
	aclAippExtendInfo *aippExtend;
} aclAippInfo;

typedef struct aclmdlExeOMDesc {
	size_t workSize;
	size_t weightSize;
	size_t modelDescSize;
	size_t kernelSize;
	size_t kernelArgsSize;
	size_t staticTaskSize;
	size_t dynamicTaskSize;
	size_t fifoTaskSize;
	size_t reserved[8];
} aclmdlExeOMDesc;

/* ---- model descriptions: host copies of a model's inputs and outputs ---- */

ACL_FUNC_VISIBILITY aclmdlDesc *aclmdlCreateDesc(void);
ACL_FUNC_VISIBILITY aclError aclmdlDestroyDesc(aclmdlDesc *modelDesc);
/* Fills modelDesc from a loaded model, or from a file or buffer (no device needed). */
ACL_FUNC_VISIBILITY aclError aclmdlGetDesc(aclmdlDesc *modelDesc, uint32_t modelId);
ACL_FUNC_VISIBILITY aclError aclmdlGetDescFromFile(aclmdlDesc *modelDesc, const char *modelPath);
ACL_FUNC_VISIBILITY aclError aclmdlGetDescFromMem(aclmdlDesc *modelDesc, const void *model,
						  size_t modelSize);

/* On bad arguments the getters record an error and return 0, "" or UNDEFINED. */
ACL_FUNC_VISIBILITY size_t aclmdlGetNumInputs(aclmdlDesc *modelDesc);
ACL_FUNC_VISIBILITY size_t aclmdlGetNumOutputs(aclmdlDesc *modelDesc);
ACL_FUNC_VISIBILITY size_t aclmdlGetInputSizeByIndex(aclmdlDesc *modelDesc, size_t index);
ACL_FUNC_VISIBILITY size_t aclmdlGetOutputSizeByIndex(aclmdlDesc *modelDesc, size_t index);
ACL_FUNC_VISIBILITY aclError aclmdlGetInputDims(const aclmdlDesc *modelDesc, size_t index,
						aclmdlIODims *dims);
ACL_FUNC_VISIBILITY aclError aclmdlGetInputDimsV2(const aclmdlDesc *modelDesc, size_t index,
						  aclmdlIODims *dims);
ACL_FUNC_VISIBILITY aclError aclmdlGetOutputDims(const aclmdlDesc *modelDesc, size_t index,
						 aclmdlIODims *dims);
/* Static shapes only: the same as aclmdlGetOutputDims. */
ACL_FUNC_VISIBILITY aclError aclmdlGetCurOutputDims(const aclmdlDesc *modelDesc, size_t index,
						    aclmdlIODims *dims);
ACL_FUNC_VISIBILITY const char *aclmdlGetInputNameByIndex(const aclmdlDesc *modelDesc,
							  size_t index);
ACL_FUNC_VISIBILITY const char *aclmdlGetOutputNameByIndex(const aclmdlDesc *modelDesc,
							   size_t index);
ACL_FUNC_VISIBILITY aclFormat aclmdlGetInputFormat(const aclmdlDesc *modelDesc, size_t index);
ACL_FUNC_VISIBILITY aclFormat aclmdlGetOutputFormat(const aclmdlDesc *modelDesc, size_t index);
ACL_FUNC_VISIBILITY aclDataType aclmdlGetInputDataType(const aclmdlDesc *modelDesc, size_t index);
ACL_FUNC_VISIBILITY aclDataType aclmdlGetOutputDataType(const aclmdlDesc *modelDesc,
							size_t index);
ACL_FUNC_VISIBILITY aclError aclmdlGetInputIndexByName(const aclmdlDesc *modelDesc,
						       const char *name, size_t *index);
ACL_FUNC_VISIBILITY aclError aclmdlGetOutputIndexByName(const aclmdlDesc *modelDesc,
							const char *name, size_t *index);

/* ---- datasets: the data buffers (device memory) of one execution ---- */

ACL_FUNC_VISIBILITY aclmdlDataset *aclmdlCreateDataset(void);
/* Frees the dataset, not its buffers. */
ACL_FUNC_VISIBILITY aclError aclmdlDestroyDataset(const aclmdlDataset *dataset);
ACL_FUNC_VISIBILITY aclError aclmdlAddDatasetBuffer(aclmdlDataset *dataset,
						    aclDataBuffer *dataBuffer);
ACL_FUNC_VISIBILITY size_t aclmdlGetDatasetNumBuffers(const aclmdlDataset *dataset);
ACL_FUNC_VISIBILITY aclDataBuffer *aclmdlGetDatasetBuffer(const aclmdlDataset *dataset,
							  size_t index);
ACL_FUNC_VISIBILITY aclError aclmdlSetDatasetTensorDesc(aclmdlDataset *dataset,
							aclTensorDesc *tensorDesc, size_t index);
ACL_FUNC_VISIBILITY aclTensorDesc *aclmdlGetDatasetTensorDesc(const aclmdlDataset *dataset,
							      size_t index);

/* ---- loading: the current context's device gets the model ---- */

ACL_FUNC_VISIBILITY aclError aclmdlLoadFromFile(const char *modelPath, uint32_t *modelId);
ACL_FUNC_VISIBILITY aclError aclmdlLoadFromMem(const void *model, size_t modelSize,
					       uint32_t *modelId);
/*
 * The caller gives device memory: the weights (at least the queried
 * weight size; NULL: the library allocates them) and the workspace (NULL:
 * the library gives each execution its own). Executions sharing a
 * caller's workspace run one after the other (libacl/README.md).
 */
ACL_FUNC_VISIBILITY aclError aclmdlLoadFromFileWithMem(const char *modelPath, uint32_t *modelId,
						       void *workPtr, size_t workSize,
						       void *weightPtr, size_t weightSize);
ACL_FUNC_VISIBILITY aclError aclmdlLoadFromMemWithMem(const void *model, size_t modelSize,
						      uint32_t *modelId, void *workPtr,
						      size_t workSize, void *weightPtr,
						      size_t weightSize);
ACL_FUNC_VISIBILITY aclError aclmdlQuerySize(const char *fileName, size_t *workSize,
					     size_t *weightSize);
ACL_FUNC_VISIBILITY aclError aclmdlQuerySizeFromMem(const void *model, size_t modelSize,
						    size_t *workSize, size_t *weightSize);
/* Safe with executions still queued: the card keeps what they use. */
ACL_FUNC_VISIBILITY aclError aclmdlUnload(uint32_t modelId);

/* ---- execution ---- */

/* Runs the model on the current context's default stream and waits for it. */
ACL_FUNC_VISIBILITY aclError aclmdlExecute(uint32_t modelId, const aclmdlDataset *input,
					   aclmdlDataset *output);
/* Queues the model on stream (NULL: the default stream), in order with its other work. */
ACL_FUNC_VISIBILITY aclError aclmdlExecuteAsync(uint32_t modelId, const aclmdlDataset *input,
						aclmdlDataset *output, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* LIBASCENDCL_ACL_MDL_H */
