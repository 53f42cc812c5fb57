/* SPDX-License-Identifier: MIT */
/*
 * What libascendcl exports for libhccl alone: not AscendCL, not installed.
 * A rank's process hands another process, on another card of the host,
 * one of its device allocations as a dma-buf file descriptor (passed over
 * a unix socket); the other maps it into its own card's address space at
 * the exporter's address, so that its card's DMA and value writes reach
 * it through a peer window (uapi/npu_accel.h, "Buffers of another card").
 */
#ifndef NPU_ACL_SHARE_H
#define NPU_ACL_SHARE_H

#include <stdint.h>

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The current device's allocation that holds ptr (from aclrtMalloc),
 * exported: *fd a new dma-buf (close-on-exec; the caller closes it),
 * *base and *size the range of device addresses it covers.
 */
aclError npu_acl_mem_export_fd(const void *ptr, int *fd, uint64_t *base, uint64_t *size);

/*
 * Maps the dma-buf fd (exported by another card) into the current device's
 * address space at [base, base + size): device work of this process on
 * this device may then name those addresses. *mapping is what
 * npu_acl_mem_unmap_fd takes back; fd stays the caller's.
 */
aclError npu_acl_mem_map_fd(int fd, uint64_t base, uint64_t size, void **mapping);
void npu_acl_mem_unmap_fd(void *mapping);

#ifdef __cplusplus
}
#endif

#endif /* NPU_ACL_SHARE_H */
