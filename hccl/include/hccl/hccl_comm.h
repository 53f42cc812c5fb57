/* SPDX-License-Identifier: MIT */
/*
 * HCCL's communicators: the vendor's declarations (hicann/hcomm
 * include/hccl/hccl_comm.h) that this libhccl implements, in C and C++.
 */
#ifndef HCCL_COMM_H_
#define HCCL_COMM_H_

#include <stddef.h>
#include <hccl/hccl_types.h>
#include <acl/acl.h>

#ifdef __cplusplus
extern "C" {
#endif

extern HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank, HcclComm *comm);
extern HcclResult HcclCommInitClusterInfoConfig(const char *clusterInfo, uint32_t rank,
						HcclCommConfig *config, HcclComm *comm);
extern HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo);
extern HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
				       HcclComm *comm);
extern HcclResult HcclCommInitRootInfoConfig(uint32_t nRanks, const HcclRootInfo *rootInfo,
					     uint32_t rank, const HcclCommConfig *config,
					     HcclComm *comm);
extern HcclResult HcclSetConfig(HcclConfig config, HcclConfigValue configValue);
extern HcclResult HcclGetConfig(HcclConfig config, HcclConfigValue *configValue);
extern HcclResult HcclGetCommName(HcclComm comm, char *commName);
extern HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize);
extern HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank);
extern HcclResult HcclBarrier(HcclComm comm, aclrtStream stream);
extern HcclResult HcclCommDestroy(HcclComm comm);
extern HcclResult HcclCommInitAll(uint32_t ndev, int32_t *devices, HcclComm *comms);
extern HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult *asyncError);
extern const char *HcclGetErrorString(HcclResult code);
extern uint32_t HcclGetCommConfigCapability(void);

/* Declared as the vendor's; this library returns HCCL_E_NOT_SUPPORT. */
extern HcclResult HcclCommSetMemoryRange(HcclComm comm, void *baseVirPtr, size_t size,
					 size_t alignment, uint64_t flags);
extern HcclResult HcclCommUnsetMemoryRange(HcclComm comm, void *baseVirPtr);
extern HcclResult HcclCommActivateCommMemory(HcclComm comm, void *virPtr, size_t size,
					     size_t offset, aclrtDrvMemHandle handle,
					     uint64_t flags);
extern HcclResult HcclCommDeactivateCommMemory(HcclComm comm, void *virPtr);
extern HcclResult HcclCommSymWinRegister(HcclComm comm, void *addr, uint64_t size,
					 HcclCommSymWindow *winHandle, uint32_t flag);
extern HcclResult HcclCommSymWinDeregister(HcclCommSymWindow winHandle);
extern HcclResult HcclCommSymWinGet(HcclComm comm, void *ptr, size_t size,
				    HcclCommSymWindow *winHandle, size_t *offset);
extern HcclResult HcclCreateSubCommConfig(HcclComm *comm, uint32_t rankNum, uint32_t *rankIds,
					  uint64_t subCommId, uint32_t subCommRankId,
					  HcclCommConfig *config, HcclComm *subComm);
extern HcclResult HcclCommSuspend(HcclComm comm);
extern HcclResult HcclCommResume(HcclComm comm);

/* The vendor's layout of the config's reserved head: what Init checks. */
typedef struct {
	size_t size;
	uint32_t magicWord;
	uint32_t version;
	uint64_t reserved;
} HcclCommConfigInfo;

static inline void HcclCommConfigInit(HcclCommConfig *config)
{
	HcclCommConfigInfo *info = (HcclCommConfigInfo *)(void *)config;

	if (!config)
		return;
	info->size = sizeof(HcclCommConfig);
	info->magicWord = HCCL_COMM_CONFIG_MAGIC_WORD;
	info->version = HCCL_COMM_CONFIG_VERSION;
	info->reserved = 0;
	config->hcclBufferSize = HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET;
	config->hcclDeterministic = HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET;
	config->hcclCommName[0] = '\0';
	config->hcclUdi[0] = '\0';
	config->hcclOpExpansionMode = HCCL_COMM_DEFAULT_OP_EXPANSION_MODE;
	config->hcclRdmaTrafficClass = HCCL_COMM_TRAFFIC_CLASS_CONFIG_NOT_SET;
	config->hcclRdmaServiceLevel = HCCL_COMM_SERVICE_LEVEL_CONFIG_NOT_SET;
	config->hcclWorldRankID = 0;
	config->hcclJobID = 0;
	config->aclGraphZeroCopyEnable = 0;
	config->hcclExecTimeOut = HCCL_COMM_EXECTIMEOUT_CONFIG_NOT_SET;
	config->hcclAlgo[0] = '\0';
	config->hcclRetryEnable[0] = '\0';
	config->hcclRetryParams[0] = '\0';
	config->hcclBufferName[0] = '\0';
	config->hcclQos = HCCL_COMM_QOS_CONFIG_NOT_SET;
	config->hcclSymWinMaxMemSizePerRank = HCCL_DEFAULT_SYMMETRIC_MEMORY_STRIDE;
}

#ifdef __cplusplus
}
#endif
#endif /* HCCL_COMM_H_ */
