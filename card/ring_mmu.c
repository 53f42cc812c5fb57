// SPDX-License-Identifier: GPL-2.0
/*
 * A ring's device addresses: offsets in device memory on an untranslated
 * ring, virtual addresses of its address space on a translated one
 * (mmu.c).  A translated command holds its address space from its first
 * check to its last byte, so an MMU command waits for it; a page fault
 * goes into the ring's FAULT_ADDR before the ring stops.
 */
#include "ring_internal.h"

static bool ring_gone(void *arg)
{
	return emu_ring_gone(arg);
}

/* False: the ring was reset while it waited for an MMU command. */
bool emu_ring_mmu_enter(struct emu_ring_ctx *ctx)
{
	return !ctx->r->as || emu_mmu_enter(ctx->r->as, ring_gone, ctx);
}

void emu_ring_mmu_leave(struct emu_ring_ctx *ctx)
{
	if (ctx->r->as)
		emu_mmu_leave(ctx->r->as);
}

/* [addr, addr + len) of the ring's device addresses, to read or to write. */
int emu_ring_dev_range(struct emu_ring *r, uint64_t addr, uint64_t len,
		       bool write, uint8_t **ptr)
{
	uint64_t fault;
	int err;

	if (!r->as) {
		if (!emu_dma_dev_ok(r->card, addr, len))
			return NPU_ERR_DEV_ADDR;
		*ptr = emu_dma_dev_ptr(r->card, addr);
		return NPU_ERR_NONE;
	}
	err = emu_mmu_translate(r->as, addr, len, write, ptr, &fault);
	if (err == NPU_ERR_PAGE_FAULT) {
		emu_log("ring %u: page fault at %#llx (%s, reason %u)", r->idx,
			(unsigned long long)addr, write ? "write" : "read",
			(unsigned int)NPU_RING_FAULT_REASON(fault));
		emu_ring_write64(r, NPU_RING_FAULT_ADDR, fault);
	}
	return err;
}

/* An 8-byte aligned word (16 bytes for a FENCE with time). */
int emu_ring_word(struct emu_ring *r, uint64_t addr, bool host, uint64_t len,
		  bool write, uint64_t **word)
{
	uint8_t *p;
	int err;

	if (host || !r->as)
		return emu_dma_word(r->card, addr, host, len, word);
	if (addr & 7)
		return NPU_ERR_ALIGN;
	err = emu_ring_dev_range(r, addr, len, write, &p);
	if (!err)
		*word = (uint64_t *)p;
	return err;
}

/* A COPY's or FILL's device side. */
int emu_ring_dev_side(struct emu_ring *r, struct emu_dma_side *side,
		      uint64_t addr, uint64_t size, bool write)
{
	int err = emu_ring_dev_range(r, addr, size, write, &side->one.ptr);

	if (err)
		return err;
	side->one.len = size;
	side->segs = &side->one;
	side->count = 1;
	return NPU_ERR_NONE;
}
