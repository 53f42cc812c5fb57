/* SPDX-License-Identifier: MIT */
/*
 * The chip's name, in one place: libascendcl's aclrtGetSocName() returns
 * it, and npu-smi prints it in its Name and Chip Name fields (with the
 * vendor's "Ascend" prefix taken off, were it there, as the vendor's tool
 * prints "910B3" for the SoC "Ascend910B3").
 */
#ifndef NPU_SOC_H
#define NPU_SOC_H

#define NPU_SOC_NAME		"NPU-EMU-1"
#define NPU_SOC_VENDOR_PREFIX	"Ascend"

#endif /* NPU_SOC_H */
