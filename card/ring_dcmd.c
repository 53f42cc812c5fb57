// SPDX-License-Identifier: GPL-2.0
/*
 * The direct ring's commands (struct npu_direct_cmd): fetch, check and
 * execute.  They name buffers by binding and slots by index (direct.c
 * resolves both); FENCE, WAIT and TIMESTAMP then run as the driver ring's.
 */
#include <string.h>

#include "ring_internal.h"

/* Fields of a direct command an opcode may use, beyond the F_* ones. */
#define F_DST_BIND		0x20
#define F_SRC_BIND		0x40

static const uint8_t direct_fields[] = {
	[NPU_OP_NOP]	   = 0,
	[NPU_OP_COPY]	   = F_DST_BIND | F_SRC_BIND | F_DST | F_SRC | F_SIZE,
	[NPU_OP_FILL]	   = F_DST_BIND | F_ARG | F_DST | F_SIZE,
	[NPU_OP_FENCE]	   = F_DST_BIND | F_VALUE,
	[NPU_OP_WAIT]	   = F_DST_BIND | F_ARG | F_VALUE,
	[NPU_OP_TIMESTAMP] = F_DST_BIND,
	[NPU_OP_COMPUTE]   = F_SRC_BIND | F_SRC | F_SIZE,
};

/* The submitter's command at the head, copied once. */
void emu_ring_fetch_direct(struct emu_ring *r, struct emu_dcmd *d)
{
	struct npu_direct_cmd raw;

	memcpy(&raw, emu_ring_head_entry(r), sizeof(raw));
	d->opcode = le16toh(raw.opcode);
	d->flags = le16toh(raw.flags);
	d->arg = le32toh(raw.arg);
	d->dst_bind = le32toh(raw.dst_bind);
	d->src_bind = le32toh(raw.src_bind);
	d->dst = le64toh(raw.dst);
	d->src = le64toh(raw.src);
	d->size = le64toh(raw.size);
	d->value = le64toh(raw.value);
	d->rsvd[0] = le64toh(raw.rsvd[0]);
	d->rsvd[1] = le64toh(raw.rsvd[1]);
}

static int emu_dcmd_check_fields(const struct emu_dcmd *d)
{
	uint8_t fields;

	if (d->opcode >= ARRAY_SIZE(direct_fields))
		return NPU_ERR_OPCODE;
	fields = direct_fields[d->opcode];
	if (d->flags || d->rsvd[0] || d->rsvd[1] ||
	    (d->arg && !(fields & F_ARG)) ||
	    (d->dst_bind && !(fields & F_DST_BIND)) ||
	    (d->src_bind && !(fields & F_SRC_BIND)) ||
	    (d->dst && !(fields & F_DST)) ||
	    (d->src && !(fields & F_SRC)) ||
	    (d->size && !(fields & F_SIZE)) ||
	    (d->value && !(fields & F_VALUE)))
		return NPU_ERR_RESERVED;
	if ((fields & F_SIZE) && !d->size)
		return NPU_ERR_RESERVED;
	if (d->opcode == NPU_OP_FILL && d->arg > 0xff)
		return NPU_ERR_RESERVED;
	if (d->opcode == NPU_OP_WAIT && d->arg > NPU_WAIT_NOR)
		return NPU_ERR_RESERVED;
	return NPU_ERR_NONE;
}

/* COPY and FILL: the bindings are held from the lookup to the last byte. */
static int emu_exec_direct_transfer(struct emu_ring_ctx *ctx, const struct emu_dcmd *d)
{
	struct emu_dma_client client = emu_ring_dma_client(ctx);
	struct emu_ring *r = ctx->r;
	struct emu_card *card = r->card;
	struct emu_dma_side src = { 0 }, dst = { 0 };
	bool copy = d->opcode == NPU_OP_COPY;
	int err;

	if (!emu_ring_mmu_enter(ctx))
		return CMD_ABORTED;
	emu_direct_enter(card, &r->dir);
	err = emu_direct_side(r, &r->dir, d->dst_bind, d->dst, d->size, true, &dst);
	if (!err && copy)
		err = emu_direct_side(r, &r->dir, d->src_bind, d->src, d->size, false,
				      &src);
	if (!err && emu_ring_take_fail_dma(r))
		err = NPU_ERR_DMA;
	if (!err && !(copy ? emu_dma_copy(card, &dst, &src, d->size, &client) :
		      emu_dma_fill(card, &dst, d->arg, d->size, &client)))
		err = CMD_ABORTED;
	emu_direct_leave(&r->dir);
	emu_ring_mmu_leave(ctx);

	emu_dma_side_free(&src);
	emu_dma_side_free(&dst);
	return err;
}

/* COMPUTE: the tensors' buffers are held, as a transfer's, to the operator's end. */
static int emu_exec_direct_compute(struct emu_ring_ctx *ctx, const struct emu_dcmd *d)
{
	struct emu_compute_client client = emu_ring_compute_client(ctx);
	struct emu_ring *r = ctx->r;
	int err;

	if (!emu_ring_mmu_enter(ctx))
		return CMD_ABORTED;
	emu_direct_enter(r->card, &r->dir);
	err = emu_compute_direct(r, &r->dir, d->src_bind, d->src, d->size, &client);
	emu_direct_leave(&r->dir);
	emu_ring_mmu_leave(ctx);
	return err == EMU_COMPUTE_ABORTED ? CMD_ABORTED : err;
}

/*
 * FENCE, WAIT and TIMESTAMP on a slot, run as the privileged commands
 * would on its address.  *done gets what completion needs: a FENCE
 * interrupts as an IRQ_IF on the slot's word.
 */
static int emu_exec_direct_slot(struct emu_ring_ctx *ctx, const struct emu_dcmd *d,
				struct emu_cmd *done)
{
	uint64_t slot_gpa, irq_gpa;
	int err;

	err = emu_direct_slot(&ctx->r->dir, d->dst_bind, &slot_gpa, &irq_gpa);
	if (err)
		return err;
	done->flags = NPU_CMD_DST_HOST;
	done->dst = slot_gpa;
	done->value = d->value;
	done->arg = d->arg;
	switch (d->opcode) {
	case NPU_OP_FENCE:
		done->flags |= NPU_CMD_FENCE_TIME | NPU_CMD_IRQ_IF;
		done->src = irq_gpa;
		return emu_exec_fence(ctx, done);
	case NPU_OP_WAIT:
		return emu_exec_wait(ctx, done);
	default:
		done->dst += offsetof(struct npu_slot, timestamp);
		return emu_exec_timestamp(ctx, done);
	}
}

/* A direct command; *done is what its completion goes by. */
int emu_exec_direct(struct emu_ring_ctx *ctx, const struct emu_dcmd *d,
			   struct emu_cmd *done)
{
	int err = emu_dcmd_check_fields(d);

	memset(done, 0, sizeof(*done));
	done->opcode = d->opcode;
	if (err)
		return err;

	switch (d->opcode) {
	case NPU_OP_NOP:
		return NPU_ERR_NONE;
	case NPU_OP_COPY:
	case NPU_OP_FILL:
		return emu_exec_direct_transfer(ctx, d);
	case NPU_OP_COMPUTE:
		return emu_exec_direct_compute(ctx, d);
	default:
		return emu_exec_direct_slot(ctx, d, done);
	}
}
