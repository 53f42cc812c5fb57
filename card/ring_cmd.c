// SPDX-License-Identifier: GPL-2.0
/*
 * The driver's ring commands (struct npu_cmd): fetch, check and execute.
 *
 * The card trusts nothing in a command: it is copied out of guest memory
 * once, every field is checked against the opcode table below, every range
 * is resolved, and only then does a byte move.  Any violation stops the
 * ring with an error code and leaves HEAD on the command.
 */
#include <string.h>

#include "ring_internal.h"

struct emu_opcode_rule {
	uint16_t flags;		/* NPU_CMD_* the opcode accepts */
	uint8_t fields;		/* F_* the opcode reads */
};

static const struct emu_opcode_rule opcode_rules[] = {
	[NPU_OP_NOP]	   = { NPU_CMD_IRQ, 0 },
	[NPU_OP_COPY]	   = { NPU_CMD_IRQ | NPU_CMD_SRC_HOST | NPU_CMD_DST_HOST |
			       NPU_CMD_SRC_SGL | NPU_CMD_DST_SGL,
			       F_DST | F_SRC | F_SIZE },
	[NPU_OP_FILL]	   = { NPU_CMD_IRQ | NPU_CMD_DST_HOST | NPU_CMD_DST_SGL,
			       F_ARG | F_DST | F_SIZE },
	[NPU_OP_FENCE]	   = { NPU_CMD_IRQ | NPU_CMD_DST_HOST | NPU_CMD_FENCE_TIME |
			       NPU_CMD_IRQ_IF | NPU_CMD_VALUE_INDIRECT, F_DST | F_VALUE },
	[NPU_OP_WAIT]	   = { NPU_CMD_IRQ | NPU_CMD_DST_HOST | NPU_CMD_VALUE_INDIRECT,
			       F_ARG | F_DST | F_VALUE },
	[NPU_OP_TIMESTAMP] = { NPU_CMD_IRQ | NPU_CMD_DST_HOST, F_DST },
	[NPU_OP_COMPUTE]   = { NPU_CMD_IRQ | NPU_CMD_SRC_HOST, F_SRC | F_SIZE },
	[NPU_OP_CALL]	   = { NPU_CMD_IRQ, F_SRC },
	[NPU_OP_JUMP]	   = { 0, F_VALUE },
	[NPU_OP_BRANCH]	   = { NPU_CMD_SRC_IMM, F_ARG | F_DST | F_SRC | F_SIZE | F_VALUE },
	[NPU_OP_SWITCH]	   = { 0, F_DST | F_SIZE | F_VALUE },
	[NPU_OP_ACTIVATE]  = { 0, F_VALUE },
	[NPU_OP_END]	   = { 0, 0 },
	[NPU_OP_RETURN]	   = { 0, 0 },
};

/* The driver's command at the head, copied once. */
void emu_ring_fetch(struct emu_ring *r, struct emu_cmd *c)
{
	emu_cmd_decode(emu_ring_head_entry(r), c);
}

/*
 * A command in guest memory, copied once.  src on its own, as one word:
 * a program's CALL may have it rewritten (the driver's SET_CALL) while
 * another ring runs the program.
 */
void emu_cmd_decode(const void *entry, struct emu_cmd *c)
{
	const struct npu_cmd *cmd = entry;
	struct npu_cmd raw;

	memcpy(&raw, entry, sizeof(raw));
	raw.src = __atomic_load_n(&cmd->src, __ATOMIC_RELAXED);
	c->opcode = le16toh(raw.opcode);
	c->flags = le16toh(raw.flags);
	c->arg = le32toh(raw.arg);
	c->dst = le64toh(raw.dst);
	c->src = le64toh(raw.src);
	c->size = le64toh(raw.size);
	c->value = le64toh(raw.value);
	c->src_sg_count = le32toh(raw.src_sg_count);
	c->dst_sg_count = le32toh(raw.dst_sg_count);
	c->rsvd[0] = le64toh(raw.rsvd[0]);
	c->rsvd[1] = le64toh(raw.rsvd[1]);
}

/* Opcode, flags and the fields the opcode does not use. */
int emu_cmd_check_fields(const struct emu_cmd *c)
{
	const struct emu_opcode_rule *rule;
	uint8_t fields;

	if (c->opcode >= ARRAY_SIZE(opcode_rules))
		return NPU_ERR_OPCODE;
	rule = &opcode_rules[c->opcode];

	if (c->flags & ~rule->flags)
		return NPU_ERR_RESERVED;
	/* a FENCE's src is the word that asks for its interrupt */
	fields = rule->fields | (c->flags & NPU_CMD_IRQ_IF ? F_SRC : 0);
	if ((c->arg && !(fields & F_ARG)) ||
	    (c->dst && !(fields & F_DST)) ||
	    (c->src && !(fields & F_SRC)) ||
	    (c->size && !(fields & F_SIZE)) ||
	    (c->value && !(fields & F_VALUE)))
		return NPU_ERR_RESERVED;
	if ((c->src_sg_count && !(c->flags & NPU_CMD_SRC_SGL)) ||
	    (c->dst_sg_count && !(c->flags & NPU_CMD_DST_SGL)))
		return NPU_ERR_RESERVED;
	if (c->rsvd[0] || c->rsvd[1])
		return NPU_ERR_RESERVED;

	/* arg carries a byte for FILL and a condition for WAIT */
	if (c->opcode == NPU_OP_FILL && c->arg > 0xff)
		return NPU_ERR_RESERVED;
	if (c->opcode == NPU_OP_WAIT && c->arg > NPU_WAIT_NOR)
		return NPU_ERR_RESERVED;
	if (c->opcode == NPU_OP_BRANCH && c->arg > NPU_BRANCH_LE)
		return NPU_ERR_RESERVED;
	return NPU_ERR_NONE;
}

/* One side of a COPY or FILL: an SGL table, a host range or a device range. */
static int copy_side(struct emu_ring *r, struct emu_dma_side *side,
		     uint64_t addr, uint64_t size, bool sgl, bool host,
		     uint32_t sg_count, bool write)
{
	if (sgl)
		return emu_dma_side_sgl(r->card, side, addr, sg_count, size);
	if (!host)
		return emu_ring_dev_side(r, side, addr, size, write);
	return emu_dma_side_contig(r->card, side, addr, host, size);
}

static int emu_exec_copy(struct emu_ring_ctx *ctx, const struct emu_cmd *c)
{
	struct emu_dma_client client = emu_ring_dma_client(ctx);
	struct emu_card *card = ctx->r->card;
	struct emu_dma_side src = { 0 }, dst = { 0 };
	int err;

	err = copy_side(ctx->r, &src, c->src, c->size,
			c->flags & NPU_CMD_SRC_SGL,
			c->flags & (NPU_CMD_SRC_HOST | NPU_CMD_SRC_SGL),
			c->src_sg_count, false);
	if (!err)
		err = copy_side(ctx->r, &dst, c->dst, c->size,
				c->flags & NPU_CMD_DST_SGL,
				c->flags & (NPU_CMD_DST_HOST | NPU_CMD_DST_SGL),
				c->dst_sg_count, true);
	if (!err && emu_ring_take_fail_dma(ctx->r))
		err = NPU_ERR_DMA;
	if (!err && !emu_dma_copy(card, &dst, &src, c->size, &client))
		err = CMD_ABORTED;

	emu_dma_side_free(&src);
	emu_dma_side_free(&dst);
	return err;
}

static int emu_exec_fill(struct emu_ring_ctx *ctx, const struct emu_cmd *c)
{
	struct emu_dma_client client = emu_ring_dma_client(ctx);
	struct emu_card *card = ctx->r->card;
	struct emu_dma_side dst = { 0 };
	int err;

	err = copy_side(ctx->r, &dst, c->dst, c->size,
			c->flags & NPU_CMD_DST_SGL,
			c->flags & (NPU_CMD_DST_HOST | NPU_CMD_DST_SGL),
			c->dst_sg_count, true);
	if (!err && emu_ring_take_fail_dma(ctx->r))
		err = NPU_ERR_DMA;
	if (!err && !emu_dma_fill(card, &dst, c->arg, c->size, &client))
		err = CMD_ABORTED;

	emu_dma_side_free(&dst);
	return err;
}

static void word_store(uint64_t *word, uint64_t v)
{
	__atomic_store_n(word, htole64(v), __ATOMIC_RELEASE);
}

static uint64_t word_load(uint64_t *word)
{
	return le64toh(__atomic_load_n(word, __ATOMIC_ACQUIRE));
}

/* The host u32 whose value says whether an IRQ_IF command interrupts. */
static int emu_irq_if_check(struct emu_card *card, const struct emu_cmd *c)
{
	if (!(c->flags & NPU_CMD_IRQ_IF))
		return NPU_ERR_NONE;
	if (c->src & 3)
		return NPU_ERR_ALIGN;
	if (!emu_dma_host_ok(card, c->src, sizeof(uint32_t)))
		return NPU_ERR_HOST_ADDR;
	return NPU_ERR_NONE;
}

/*
 * A FENCE's or WAIT's operand: value itself, or under VALUE_INDIRECT the
 * device word at value, read as the command runs.
 */
static int emu_cmd_value(struct emu_ring *r, const struct emu_cmd *c,
			 uint64_t *value)
{
	uint64_t *word;
	int err;

	if (!(c->flags & NPU_CMD_VALUE_INDIRECT)) {
		*value = c->value;
		return NPU_ERR_NONE;
	}
	err = emu_ring_word(r, c->value, false, 8, false, &word);
	if (!err)
		*value = word_load(word);
	return err;
}

int emu_exec_fence(struct emu_ring_ctx *ctx, const struct emu_cmd *c)
{
	struct emu_card *card = ctx->r->card;
	bool with_time = c->flags & NPU_CMD_FENCE_TIME;
	uint64_t *word, value;
	int err;

	err = emu_irq_if_check(card, c);
	if (!err)
		err = emu_cmd_value(ctx->r, c, &value);
	if (err)
		return err;
	err = emu_ring_word(ctx->r, c->dst, c->flags & NPU_CMD_DST_HOST,
			    with_time ? 16 : 8, true, &word);
	if (err)
		return err;
	/* The time first: whoever sees the value may read the time. */
	if (with_time)
		word_store(word + 1, emu_card_clock_ns(card));
	word_store(word, value);
	emu_trace(ctx->r->idx, EMU_TRACE_FENCE, value);
	emu_card_fence_written(card);
	return NPU_ERR_NONE;
}

int emu_exec_timestamp(struct emu_ring_ctx *ctx, const struct emu_cmd *c)
{
	struct emu_card *card = ctx->r->card;
	uint64_t *word;
	int err;

	err = emu_ring_word(ctx->r, c->dst, c->flags & NPU_CMD_DST_HOST, 8, true,
			    &word);
	if (err)
		return err;
	word_store(word, emu_card_clock_ns(card));
	return NPU_ERR_NONE;
}

static bool wait_cond_met(uint32_t cond, uint64_t word, uint64_t value)
{
	switch (cond) {
	case NPU_WAIT_GEQ:
		return (int64_t)(word - value) >= 0;
	case NPU_WAIT_EQ:
		return word == value;
	case NPU_WAIT_AND:
		return (word & value) != 0;
	case NPU_WAIT_NOR:
		return ~(word | value) != 0;
	}
	return false;
}

/*
 * The WAIT's word, looked up anew each time on a translated ring, whose
 * address space is not held while the ring waits.
 */
static int wait_look(struct emu_ring_ctx *ctx, const struct emu_cmd *c,
		     uint64_t *now, uint64_t *value)
{
	uint64_t *word;
	int err;

	if (!emu_ring_mmu_enter(ctx))
		return CMD_ABORTED;
	err = emu_ring_word(ctx->r, c->dst, c->flags & NPU_CMD_DST_HOST, 8, false,
			    &word);
	if (!err && value)
		err = emu_cmd_value(ctx->r, c, value);
	if (!err)
		*now = word_load(word);
	emu_ring_mmu_leave(ctx);
	return err;
}

int emu_exec_wait(struct emu_ring_ctx *ctx, const struct emu_cmd *c)
{
	struct emu_card *card = ctx->r->card;
	bool waiting = false;
	uint64_t now, value;
	int err;

	err = wait_look(ctx, c, &now, &value);
	if (err)
		return err;

	for (;;) {
		uint64_t seq = __atomic_load_n(&card->fence_seq,
					       __ATOMIC_ACQUIRE);

		if (wait_cond_met(c->arg, now, value))
			break;
		if (!waiting) {
			emu_ring_set_status(ctx->r, NPU_RING_WAITING);
			waiting = true;
		}
		emu_ring_wait_for_fence(ctx, seq);
		if (!emu_ring_checkpoint(ctx))
			return CMD_ABORTED;
		err = wait_look(ctx, c, &now, NULL);
		if (err)
			return err;
	}
	if (waiting)
		emu_ring_set_status(ctx->r, NPU_RING_RUNNING);
	return NPU_ERR_NONE;
}

static int emu_exec_compute(struct emu_ring_ctx *ctx, const struct emu_cmd *c)
{
	struct emu_compute_client client = emu_ring_compute_client(ctx);
	int err;

	err = emu_compute(ctx->r->card, c->flags, c->src, c->size, &client);
	return err == EMU_COMPUTE_ABORTED ? CMD_ABORTED : err;
}

/* A command that holds the ring's address space from its checks to its end. */
static int emu_exec_held(struct emu_ring_ctx *ctx, const struct emu_cmd *c,
			 int (*exec)(struct emu_ring_ctx *ctx,
				     const struct emu_cmd *c))
{
	int err;

	if (!emu_ring_mmu_enter(ctx))
		return CMD_ABORTED;
	err = exec(ctx, c);
	emu_ring_mmu_leave(ctx);
	return err;
}

int emu_exec_cmd(struct emu_ring_ctx *ctx, const struct emu_cmd *c)
{
	int err = emu_cmd_check_fields(c);

	if (err)
		return err;

	switch (c->opcode) {
	case NPU_OP_NOP:
		return NPU_ERR_NONE;
	case NPU_OP_COPY:
		return emu_exec_held(ctx, c, emu_exec_copy);
	case NPU_OP_FILL:
		return emu_exec_held(ctx, c, emu_exec_fill);
	case NPU_OP_FENCE:
		return emu_exec_held(ctx, c, emu_exec_fence);
	case NPU_OP_WAIT:
		return emu_exec_wait(ctx, c);
	case NPU_OP_TIMESTAMP:
		return emu_exec_held(ctx, c, emu_exec_timestamp);
	case NPU_OP_COMPUTE:
		return emu_exec_held(ctx, c, emu_exec_compute);
	case NPU_OP_CALL:
		return emu_program_call(ctx, c, 0);
	case NPU_OP_JUMP:
	case NPU_OP_BRANCH:
	case NPU_OP_SWITCH:
	case NPU_OP_ACTIVATE:
	case NPU_OP_END:
	case NPU_OP_RETURN:
		/* control commands belong in programs: program.c runs them */
		return NPU_ERR_PROGRAM;
	}
	return NPU_ERR_OPCODE;
}
