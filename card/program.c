// SPDX-License-Identifier: GPL-2.0
/*
 * Programs: a CALL runs a list of the driver's commands that lies in host
 * memory (struct npu_program_desc), in the ring's own thread, with the
 * control commands only a program holds: JUMP, BRANCH, SWITCH, ACTIVATE,
 * CALL, END and RETURN.  Each command is fetched when reached and checked
 * as a ring's; the ring's checkpoint before each lets a reset stop a
 * program that never ends, and each counts in CMDS_DONE, so that a long
 * program is seen to make progress.
 */
#include <string.h>

#include "ring_internal.h"

/* A program ended the run (END, or no thread left): not an error. */
#define PROGRAM_OVER		(-2)

/* One CALL of a program, on the ring's stack. */
struct emu_program {
	struct emu_card *card;
	struct emu_ring_ctx *ctx;
	const uint64_t *chunks;		/* the descriptor's, in guest RAM */
	uint32_t count;
	unsigned int depth;		/* 1: CALLed by the ring itself */
	uint32_t pending[NPU_PROGRAM_MAX_ACTIVE];	/* ACTIVATEd threads */
	uint32_t first;			/* oldest of pending */
	uint32_t npending;
};

static int emu_program_open(struct emu_program *p, struct emu_ring_ctx *ctx,
			    uint64_t desc_addr, unsigned int depth)
{
	struct emu_card *card = ctx->r->card;
	struct npu_program_desc desc;
	uint64_t nchunks;
	unsigned int i;

	if (desc_addr & 63)
		return NPU_ERR_ALIGN;
	if (!emu_dma_host_ok(card, desc_addr, sizeof(desc)))
		return NPU_ERR_HOST_ADDR;
	memcpy(&desc, emu_dma_host_ptr(card, desc_addr), sizeof(desc));
	if (desc.rsvd0)
		return NPU_ERR_RESERVED;
	for (i = 0; i < ARRAY_SIZE(desc.rsvd); i++)
		if (desc.rsvd[i])
			return NPU_ERR_RESERVED;
	p->count = le32toh(desc.count);
	if (!p->count || p->count > NPU_PROGRAM_MAX_CMDS)
		return NPU_ERR_PROGRAM;
	nchunks = (p->count + NPU_PROGRAM_CHUNK_CMDS - 1) / NPU_PROGRAM_CHUNK_CMDS;
	if (!emu_dma_host_ok(card, desc_addr + sizeof(desc),
			     nchunks * sizeof(uint64_t)))
		return NPU_ERR_HOST_ADDR;
	p->card = card;
	p->ctx = ctx;
	p->chunks = (const uint64_t *)emu_dma_host_ptr(card, desc_addr + sizeof(desc));
	p->depth = depth;
	p->first = 0;
	p->npending = 0;
	return NPU_ERR_NONE;
}

static int emu_program_fetch(struct emu_program *p, uint32_t i, struct emu_cmd *c)
{
	uint64_t chunk = le64toh(__atomic_load_n(&p->chunks[i / NPU_PROGRAM_CHUNK_CMDS],
						 __ATOMIC_RELAXED));
	uint64_t addr = chunk + (uint64_t)(i % NPU_PROGRAM_CHUNK_CMDS) *
			sizeof(struct npu_cmd);

	if (chunk & 63)
		return NPU_ERR_ALIGN;
	if (addr < chunk || !emu_dma_host_ok(p->card, addr, sizeof(struct npu_cmd)))
		return NPU_ERR_HOST_ADDR;
	emu_cmd_decode(emu_dma_host_ptr(p->card, addr), c);
	return NPU_ERR_NONE;
}

/* A device word of size 4 or 8, aligned to its size, little endian. */
static int emu_program_word(struct emu_program *p, uint64_t off, uint64_t size,
			    uint64_t *v)
{
	uint8_t *ptr;
	int err;

	if (size != 4 && size != 8)
		return NPU_ERR_PROGRAM;
	if (off & (size - 1))
		return NPU_ERR_ALIGN;
	if (!emu_ring_mmu_enter(p->ctx))
		return CMD_ABORTED;
	err = emu_ring_dev_range(p->ctx->r, off, size, false, &ptr);
	if (!err && size == 4)
		*v = le32toh(__atomic_load_n((uint32_t *)ptr, __ATOMIC_ACQUIRE));
	else if (!err)
		*v = le64toh(__atomic_load_n((uint64_t *)ptr, __ATOMIC_ACQUIRE));
	emu_ring_mmu_leave(p->ctx);
	return err;
}

/* The value, sign-extended from size bytes. */
static int64_t emu_program_signed(uint64_t v, uint64_t size)
{
	return size == 4 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;
}

static bool emu_branch_taken(uint32_t cond, int64_t a, int64_t b)
{
	switch (cond) {
	case NPU_BRANCH_EQ:
		return a == b;
	case NPU_BRANCH_NE:
		return a != b;
	case NPU_BRANCH_GT:
		return a > b;
	case NPU_BRANCH_GE:
		return a >= b;
	case NPU_BRANCH_LT:
		return a < b;
	default:
		return a <= b;
	}
}

static int emu_program_branch(struct emu_program *p, const struct emu_cmd *c,
			      uint32_t *pc)
{
	uint64_t a, b = c->src;
	int err;

	if (c->value >= p->count)
		return NPU_ERR_PROGRAM;
	err = emu_program_word(p, c->dst, c->size, &a);
	if (!err && !(c->flags & NPU_CMD_SRC_IMM))
		err = emu_program_word(p, c->src, c->size, &b);
	if (err)
		return err;
	if (emu_branch_taken(c->arg, emu_program_signed(a, c->size),
			     emu_program_signed(b, c->size)))
		*pc = c->value;
	else
		(*pc)++;
	return NPU_ERR_NONE;
}

/* The i-th of the value commands after the SWITCH, or past them all. */
static int emu_program_switch(struct emu_program *p, const struct emu_cmd *c,
			      uint32_t *pc)
{
	uint64_t i;
	int err;

	if (c->value > p->count - *pc - 1)
		return NPU_ERR_PROGRAM;
	err = emu_program_word(p, c->dst, c->size, &i);
	if (err)
		return err;
	*pc += 1 + (i < c->value ? i : c->value);
	return NPU_ERR_NONE;
}

static int emu_program_activate(struct emu_program *p, const struct emu_cmd *c)
{
	if (c->value >= p->count || p->npending == NPU_PROGRAM_MAX_ACTIVE)
		return NPU_ERR_PROGRAM;
	p->pending[(p->first + p->npending++) % NPU_PROGRAM_MAX_ACTIVE] = c->value;
	return NPU_ERR_NONE;
}

/* The running thread is over: the oldest ACTIVATEd one, or the run's end. */
static int emu_program_next_thread(struct emu_program *p, uint32_t *pc)
{
	if (!p->npending)
		return PROGRAM_OVER;
	*pc = p->pending[p->first];
	p->first = (p->first + 1) % NPU_PROGRAM_MAX_ACTIVE;
	p->npending--;
	return NPU_ERR_NONE;
}

/* Runs the command at *pc and moves *pc on; PROGRAM_OVER ends the run. */
static int emu_program_exec(struct emu_ring_ctx *ctx, struct emu_program *p,
			    const struct emu_cmd *c, uint32_t *pc)
{
	int err;

	switch (c->opcode) {
	case NPU_OP_JUMP:
		if (c->value >= p->count)
			return NPU_ERR_PROGRAM;
		*pc = c->value;
		return NPU_ERR_NONE;
	case NPU_OP_BRANCH:
		return emu_program_branch(p, c, pc);
	case NPU_OP_SWITCH:
		return emu_program_switch(p, c, pc);
	case NPU_OP_ACTIVATE:
		err = emu_program_activate(p, c);
		break;
	case NPU_OP_CALL:
		err = emu_program_call(ctx, c, p->depth);
		break;
	case NPU_OP_END:
		return PROGRAM_OVER;
	case NPU_OP_RETURN:
		return emu_program_next_thread(p, pc);
	default:
		err = emu_exec_cmd(ctx, c);
		break;
	}
	if (!err)
		(*pc)++;
	return err;
}

static int emu_program_run(struct emu_ring_ctx *ctx, struct emu_program *p)
{
	uint32_t pc = 0;
	struct emu_cmd c;
	int err;

	for (;;) {
		/* Past the last command: the thread returns. */
		if (pc >= p->count) {
			err = emu_program_next_thread(p, &pc);
			if (err)
				return err == PROGRAM_OVER ? NPU_ERR_NONE : err;
			continue;
		}
		if (!emu_ring_checkpoint(ctx))
			return CMD_ABORTED;
		err = emu_program_fetch(p, pc, &c);
		if (!err)
			err = emu_cmd_check_fields(&c);
		if (!err)
			err = emu_program_exec(ctx, p, &c, &pc);
		if (err && err != PROGRAM_OVER) {
			if (err != CMD_ABORTED)
				emu_log("ring %u: program command %u failed, error %d",
					ctx->r->idx, pc, err);
			return err;
		}
		emu_ring_inner_done(ctx->r, &c);
		if (err == PROGRAM_OVER)
			return NPU_ERR_NONE;
	}
}

/**
 * emu_program_call - run the program a CALL names
 * @ctx: the ring
 * @c: the CALL
 * @depth: programs running already: 0 on the ring, else the caller's depth
 *
 * Returns NPU_ERR_NONE when the program's run is over, the card's error
 * for the first command that failed (the ring stops on the CALL the ring
 * holds), or CMD_ABORTED when the ring was reset meanwhile.
 */
int emu_program_call(struct emu_ring_ctx *ctx, const struct emu_cmd *c,
		     unsigned int depth)
{
	struct emu_program p;
	int err;

	if (depth >= NPU_PROGRAM_MAX_DEPTH)
		return NPU_ERR_PROGRAM;
	err = emu_program_open(&p, ctx, c->src, depth + 1);
	if (err)
		return err;
	return emu_program_run(ctx, &p);
}
