// SPDX-License-Identifier: MIT
/* What a stream's page fault names: the address, why, and whether it wrote. */
#include <stdio.h>

#include "vmm.h"

static const char *fault_reason(unsigned reason)
{
	switch (reason) {
	case DRM_NPU_FAULT_UNMAPPED:
		return "nothing is mapped there";
	case DRM_NPU_FAULT_READ_ONLY:
		return "the mapping is read-only";
	case DRM_NPU_FAULT_MALFORMED:
		return "the card could not use the mapping";
	case DRM_NPU_FAULT_PEER_CLOSED:
		return "the peer card's window to it is closed";
	default:
		return "the card gave no reason";
	}
}

const char *acl_vmm_fault_text(struct acl_device *d, uint32_t slot, uint32_t err, char *buf,
			       size_t len)
{
	uint64_t fault;

	if (err != DRM_NPU_ERR_PAGE_FAULT)
		return "";
	fault = d->fence[slot].fault;
	snprintf(buf, len, " (%s address %#llx: %s)",
		 fault & DRM_NPU_FAULT_WRITE ? "writing" : "reading",
		 (unsigned long long)(DRM_NPU_DEVICE_ADDR_BASE + (fault & DRM_NPU_FAULT_VA_MASK)),
		 fault_reason((unsigned)(fault >> DRM_NPU_FAULT_REASON_SHIFT) & 0xff));
	return buf;
}
