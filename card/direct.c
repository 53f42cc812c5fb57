// SPDX-License-Identifier: GPL-2.0
/*
 * Direct rings: what the card checks for a submitter it does not trust.
 *
 * A direct ring's commands name buffers by binding and slots by index; the
 * tables behind the names belong to the ring's owner (the driver), which
 * changes them while the ring runs.  So every command reads the entries it
 * uses once, checks them, and works with what it read; and before it reads
 * any binding it publishes the table's epoch in the privileged shadow, so
 * that the owner can tell when no transfer still uses a revoked buffer
 * (docs/hardware.md, "Direct rings").
 */
#include <stdlib.h>
#include <string.h>

#include "oplib.h"
#include "ring_internal.h"

static bool direct_host_ok(struct emu_card *card, uint64_t gpa, uint64_t len,
			   uint64_t align)
{
	return !(gpa & (align - 1)) && emu_dma_host_ok(card, gpa, len);
}

/*
 * ENABLE of a ring with BIND_BASE set: latch and check the tables' places.
 * The privileged shadow must exist (SHADOW_BASE), for bind_epoch lives
 * there, out of the submitter's reach.
 */
int emu_direct_latch(struct emu_card *card, unsigned int ring,
		     struct npu_ring_shadow *kshadow, struct emu_direct *dir,
		     struct npu_ring_shadow **user_shadow)
{
	uint64_t ushadow = emu_reg_read64(card, NPU_RING_REG(ring, NPU_RING_USER_SHADOW));

	dir->bind_base = emu_reg_read64(card, NPU_RING_REG(ring, NPU_RING_BIND_BASE));
	dir->bind_count = emu_reg_read32(card, NPU_RING_REG(ring, NPU_RING_BIND_COUNT));
	dir->slot_base = emu_reg_read64(card, NPU_RING_REG(ring, NPU_RING_SLOT_BASE));
	dir->slot_count = emu_reg_read32(card, NPU_RING_REG(ring, NPU_RING_SLOT_COUNT));
	dir->slot_irq_base = emu_reg_read64(card, NPU_RING_REG(ring, NPU_RING_SLOT_IRQ_BASE));
	dir->kshadow = kshadow;

	if (!kshadow)
		return -1;
	if (!dir->bind_count || dir->bind_count > NPU_BIND_MAX ||
	    !direct_host_ok(card, dir->bind_base, sizeof(struct npu_bind_table) +
			    (uint64_t)dir->bind_count * sizeof(struct npu_binding), 64))
		return -1;
	if (!dir->slot_count || dir->slot_count > NPU_SLOT_MAX ||
	    !direct_host_ok(card, dir->slot_base,
			    (uint64_t)dir->slot_count * sizeof(struct npu_slot), 32) ||
	    !direct_host_ok(card, dir->slot_irq_base,
			    (uint64_t)dir->slot_count * sizeof(uint32_t), 4))
		return -1;
	if (!direct_host_ok(card, ushadow, sizeof(**user_shadow), 64))
		return -1;
	*user_shadow = (struct npu_ring_shadow *)emu_dma_host_ptr(card, ushadow);
	__atomic_store_n(&kshadow->bind_epoch, 0, __ATOMIC_RELEASE);
	return 0;
}

static struct npu_bind_table *direct_table(struct emu_card *card,
					   const struct emu_direct *dir)
{
	return (struct npu_bind_table *)emu_dma_host_ptr(card, dir->bind_base);
}

/*
 * Announce the epoch before reading any binding.  The full fence pairs
 * with the owner's between revoking and reading bind_epoch: either it sees
 * our epoch and waits for us, or we see the revocation.
 */
void emu_direct_enter(struct emu_card *card, const struct emu_direct *dir)
{
	uint64_t epoch = __atomic_load_n(&direct_table(card, dir)->epoch,
					 __ATOMIC_ACQUIRE);

	/* 0 means idle: an owner that never set the epoch gets 1 */
	if (!epoch)
		epoch = htole64(1);
	__atomic_store_n(&dir->kshadow->bind_epoch, epoch, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* The command's transfers are over: it holds no binding any more. */
void emu_direct_leave(const struct emu_direct *dir)
{
	__atomic_store_n(&dir->kshadow->bind_epoch, 0, __ATOMIC_RELEASE);
}

/* Read a binding once: the owner may change it under us. */
static void direct_binding(struct emu_card *card, const struct emu_direct *dir,
			   uint32_t bind, struct npu_binding *b)
{
	struct npu_bind_table *t = direct_table(card, dir);

	memcpy(b, &t->entries[bind], sizeof(*b));
	b->kind = le32toh(b->kind);
	b->sg_count = le32toh(b->sg_count);
	b->addr = le64toh(b->addr);
	b->size = le64toh(b->size);
}

/*
 * [offset, offset + size) of a host buffer: the segments of its table
 * that the range touches, cut to it.  The table is the owner's, checked
 * entry by entry as the buffer's own.
 */
static int direct_host_side(struct emu_card *card, const struct npu_binding *b,
			    uint64_t offset, uint64_t size, struct emu_dma_side *side)
{
	uint64_t pos = 0, end = offset + size;
	uint32_t i, n = 0;

	if (!b->sg_count || b->sg_count > NPU_SG_MAX_ENTRIES ||
	    !direct_host_ok(card, b->addr, (uint64_t)b->sg_count *
			    sizeof(struct npu_sg_entry), sizeof(struct npu_sg_entry)))
		return NPU_ERR_ACCESS;
	side->segs = calloc(b->sg_count, sizeof(*side->segs));
	if (!side->segs) {
		emu_reg_write32(card, NPU_GLB_ERROR, NPU_GLB_ERR_INTERNAL);
		return NPU_ERR_DMA;
	}
	for (i = 0; i < b->sg_count && pos < end; i++) {
		struct npu_sg_entry e;
		uint64_t addr, len, from, to;

		memcpy(&e, emu_dma_host_ptr(card, b->addr + (uint64_t)i * sizeof(e)),
		       sizeof(e));
		addr = le64toh(e.addr);
		len = le64toh(e.len);
		if (len > b->size - pos || !emu_dma_host_ok(card, addr, len))
			return NPU_ERR_ACCESS;
		from = offset > pos ? offset - pos : 0;
		to = end < pos + len ? end - pos : len;
		if (from < to) {
			side->segs[n].ptr = emu_dma_host_ptr(card, addr) + from;
			side->segs[n].len = to - from;
			n++;
		}
		pos += len;
	}
	side->count = n;
	/* a table shorter than its buffer */
	return pos < end ? NPU_ERR_ACCESS : NPU_ERR_NONE;
}

/*
 * A device binding's buffer: in device memory, or on a translated ring in
 * its virtual address space (its pages are checked as they are used).
 */
static bool direct_device_ok(struct emu_ring *r, const struct npu_binding *b)
{
	if (r->as)
		return b->addr <= EMU_MMU_VA_SIZE && b->size <= EMU_MMU_VA_SIZE - b->addr;
	return emu_dma_dev_ok(r->card, b->addr, b->size);
}

/*
 * One operand of a direct COPY or FILL (or the descriptor of a COMPUTE,
 * which is read).  Between emu_direct_enter() and emu_direct_leave()
 * only: the side points into the bound buffer.
 */
int emu_direct_side(struct emu_ring *r, const struct emu_direct *dir,
		    uint32_t bind, uint64_t offset, uint64_t size, bool write,
		    struct emu_dma_side *side)
{
	struct emu_card *card = r->card;
	struct npu_binding b;

	if (bind >= dir->bind_count)
		return NPU_ERR_ACCESS;
	direct_binding(card, dir, bind, &b);
	if (offset > b.size || size > b.size - offset)
		return NPU_ERR_ACCESS;
	switch (b.kind) {
	case NPU_BIND_DEVICE:
		if (!direct_device_ok(r, &b))
			return NPU_ERR_ACCESS;
		return emu_ring_dev_side(r, side, b.addr + offset, size, write);
	case NPU_BIND_HOST:
		return direct_host_side(card, &b, offset, size, side);
	}
	return NPU_ERR_ACCESS;
}

/* Guest addresses of a slot (its value, then its timestamp) and of its interrupt word. */
int emu_direct_slot(const struct emu_direct *dir, uint32_t slot,
		    uint64_t *slot_gpa, uint64_t *irq_gpa)
{
	if (slot >= dir->slot_count)
		return NPU_ERR_ACCESS;
	*slot_gpa = dir->slot_base + (uint64_t)slot * sizeof(struct npu_slot);
	*irq_gpa = dir->slot_irq_base + (uint64_t)slot * sizeof(uint32_t);
	return NPU_ERR_NONE;
}

/*
 * A direct COMPUTE's descriptor: @size bytes at @offset in binding @bind,
 * copied once into @desc.  Each tensor then names a DEVICE binding and an
 * offset in it; the copy gets the address instead, and @within the
 * buffer, which the tensor's extent must not leave (oplib_check_within()).
 * Between emu_direct_enter() and emu_direct_leave() only.
 */
int emu_direct_op_desc(struct emu_ring *r, const struct emu_direct *dir,
		       uint32_t bind, uint64_t offset, uint64_t size, void *desc,
		       struct oplib_range *within)
{
	struct emu_card *card = r->card;
	struct npu_op_desc *d = desc;
	struct emu_dma_side side = { 0 };
	uint8_t *to = desc;
	uint32_t i, n;
	int err;

	if (offset % NPU_OP_DESC_ALIGN || size < sizeof(*d) || size > OPLIB_DESC_MAX)
		return NPU_ERR_OP_PARAM;
	err = emu_direct_side(r, dir, bind, offset, size, false, &side);
	for (i = 0; !err && i < side.count; i++) {
		memcpy(to, side.segs[i].ptr, side.segs[i].len);
		to += side.segs[i].len;
	}
	emu_dma_side_free(&side);
	if (err)
		return err;

	n = (size - sizeof(*d)) / sizeof(d->tensors[0]);
	for (i = 0; i < n; i++) {
		struct npu_tensor_desc *t = &d->tensors[i];
		uint64_t at = le64toh(t->addr);
		struct npu_binding b;

		if (le16toh(t->bind) >= dir->bind_count)
			return NPU_ERR_ACCESS;
		direct_binding(card, dir, le16toh(t->bind), &b);
		if (b.kind != NPU_BIND_DEVICE || !direct_device_ok(r, &b) ||
		    at > b.size)
			return NPU_ERR_ACCESS;
		t->addr = htole64(b.addr + at);
		t->bind = 0;
		within[i].addr = b.addr;
		within[i].size = b.size;
	}
	return NPU_ERR_NONE;
}
