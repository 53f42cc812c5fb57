/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Between the ring's thread (ring.c) and the commands it runs: the driver
 * ring's (ring_cmd.c) and the direct ring's (ring_dcmd.c).
 */
#ifndef EMU_RING_INTERNAL_H
#define EMU_RING_INTERNAL_H

#include "emu_card.h"

/* A command ended because the ring was reset (or we are quitting). */
#define CMD_ABORTED		(-1)

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

/* Command fields an opcode may use; every other field must be zero. */
#define F_ARG			0x01
#define F_DST			0x02
#define F_SRC			0x04
#define F_SIZE			0x08
#define F_VALUE			0x10

/* struct npu_cmd in host byte order. */
struct emu_cmd {
	uint16_t opcode;
	uint16_t flags;
	uint32_t arg;
	uint64_t dst;
	uint64_t src;
	uint64_t size;
	uint64_t value;
	uint32_t src_sg_count;
	uint32_t dst_sg_count;
	uint64_t rsvd[2];
};

/* struct npu_direct_cmd in host byte order. */
struct emu_dcmd {
	uint16_t opcode;
	uint16_t flags;
	uint32_t arg;
	uint32_t dst_bind;
	uint32_t src_bind;
	uint64_t dst;
	uint64_t src;
	uint64_t size;
	uint64_t value;
	uint64_t rsvd[2];
};

/* What a running command needs to know about its ring. */
struct emu_ring_ctx {
	struct emu_ring *r;
	uint64_t gen;		/* the ring's generation when this run began */
};

/* ring.c */
bool emu_ring_checkpoint(struct emu_ring_ctx *ctx);
bool emu_ring_gone(struct emu_ring_ctx *ctx);
struct emu_dma_client emu_ring_dma_client(struct emu_ring_ctx *ctx);
struct emu_compute_client emu_ring_compute_client(struct emu_ring_ctx *ctx);
void emu_ring_set_status(struct emu_ring *r, enum npu_ring_state state);
bool emu_ring_take_fail_dma(struct emu_ring *r);
void emu_ring_wait_for_fence(struct emu_ring_ctx *ctx, uint64_t seq);
void emu_ring_inner_done(struct emu_ring *r, const struct emu_cmd *c);

/*
 * The entry at the ring's head, in guest memory.  Both command formats are
 * 64 bytes; the submitter may rewrite an entry behind our back, so each
 * fetch copies it once.
 */
static inline const void *emu_ring_head_entry(struct emu_ring *r)
{
	_Static_assert(sizeof(struct npu_cmd) == sizeof(struct npu_direct_cmd),
		       "one entry size for both rings");
	return emu_dma_host_ptr(r->card, r->base + (uint64_t)(r->head & (r->size - 1)) *
				sizeof(struct npu_cmd));
}

/* ring_mmu.c */
bool emu_ring_mmu_enter(struct emu_ring_ctx *ctx);
void emu_ring_mmu_leave(struct emu_ring_ctx *ctx);
int emu_ring_dev_range(struct emu_ring *r, uint64_t addr, uint64_t len,
		       bool write, uint8_t **ptr);
int emu_ring_word(struct emu_ring *r, uint64_t addr, bool host, uint64_t len,
		  bool write, uint64_t **word);
int emu_ring_dev_side(struct emu_ring *r, struct emu_dma_side *side,
		      uint64_t addr, uint64_t size, bool write);

/* ring_cmd.c */
void emu_ring_fetch(struct emu_ring *r, struct emu_cmd *c);
void emu_cmd_decode(const void *entry, struct emu_cmd *c);
int emu_cmd_check_fields(const struct emu_cmd *c);
int emu_exec_cmd(struct emu_ring_ctx *ctx, const struct emu_cmd *c);
int emu_exec_fence(struct emu_ring_ctx *ctx, const struct emu_cmd *c);
int emu_exec_wait(struct emu_ring_ctx *ctx, const struct emu_cmd *c);
int emu_exec_timestamp(struct emu_ring_ctx *ctx, const struct emu_cmd *c);

/* program.c */
int emu_program_call(struct emu_ring_ctx *ctx, const struct emu_cmd *c,
		     unsigned int depth);

/* ring_dcmd.c */
void emu_ring_fetch_direct(struct emu_ring *r, struct emu_dcmd *d);
int emu_exec_direct(struct emu_ring_ctx *ctx, const struct emu_dcmd *d,
		    struct emu_cmd *done);

#endif /* EMU_RING_INTERNAL_H */
