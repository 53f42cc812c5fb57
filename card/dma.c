// SPDX-License-Identifier: GPL-2.0
/*
 * DMA: the card's view of guest RAM and of its own device memory.
 *
 * Guest physical addresses map onto the guest RAM file the way QEMU's pc
 * machines lay RAM out: [0, lowmem) is file offset GPA, and the rest of RAM
 * sits above 4 GiB, [4 GiB, 4 GiB + ram - lowmem).  Anything else (the PCI
 * hole, beyond RAM) is not host memory.  Every range is checked before any
 * byte moves, and transfers go through a small pool of copy engines in
 * chunks so that one big copy does not starve the other rings.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emu_card.h"

int emu_dma_init(struct emu_card *card)
{
	struct stat st;

	card->ram_fd = open(card->cfg.guest_ram_path, O_RDWR | O_CLOEXEC);
	if (card->ram_fd < 0) {
		emu_err("cannot open guest RAM %s: %m",
			card->cfg.guest_ram_path);
		return -1;
	}
	/* A short file would turn a valid DMA into SIGBUS. */
	if (fstat(card->ram_fd, &st) < 0 ||
	    (uint64_t)st.st_size < card->cfg.ram_size) {
		emu_err("guest RAM %s is smaller than --ram-size",
			card->cfg.guest_ram_path);
		return -1;
	}
	card->ram = mmap(NULL, card->cfg.ram_size, PROT_READ | PROT_WRITE,
			 MAP_SHARED, card->ram_fd, 0);
	if (card->ram == MAP_FAILED) {
		card->ram = NULL;
		emu_err("cannot map guest RAM: %m");
		return -1;
	}
	return 0;
}

void emu_dma_destroy(struct emu_card *card)
{
	if (card->ram)
		munmap(card->ram, card->cfg.ram_size);
	if (card->ram_fd >= 0)
		close(card->ram_fd);
}

/* [addr, addr + len) inside [start, end), without wrapping. */
static bool range_within(uint64_t addr, uint64_t len, uint64_t start,
			 uint64_t end)
{
	return addr >= start && addr <= end && len <= end - addr;
}

bool emu_dma_host_ok(struct emu_card *card, uint64_t gpa, uint64_t len)
{
	uint64_t low = card->cfg.lowmem;
	uint64_t high = card->cfg.ram_size - low;

	if (gpa < EMU_HIGHMEM_BASE)
		return range_within(gpa, len, 0, low);
	return range_within(gpa, len, EMU_HIGHMEM_BASE,
			    EMU_HIGHMEM_BASE + high);
}

/* Only for a range emu_dma_host_ok() accepted. */
uint8_t *emu_dma_host_ptr(struct emu_card *card, uint64_t gpa)
{
	if (gpa < EMU_HIGHMEM_BASE)
		return card->ram + gpa;
	return card->ram + card->cfg.lowmem + (gpa - EMU_HIGHMEM_BASE);
}

bool emu_dma_dev_ok(struct emu_card *card, uint64_t off, uint64_t len)
{
	return range_within(off, len, 0, card->devmem_size);
}

uint8_t *emu_dma_dev_ptr(struct emu_card *card, uint64_t off)
{
	return card->bar + NPU_REG_WINDOW_SIZE + off;
}

/*
 * Resolve the 8-byte word of a FENCE, WAIT or TIMESTAMP (len 16 for a
 * FENCE with time).  The alignment makes the word's atomic access legal.
 */
int emu_dma_word(struct emu_card *card, uint64_t addr, bool host, uint64_t len,
		 uint64_t **word)
{
	if (addr & 7)
		return NPU_ERR_ALIGN;
	if (host) {
		if (!emu_dma_host_ok(card, addr, len))
			return NPU_ERR_HOST_ADDR;
		*word = (uint64_t *)emu_dma_host_ptr(card, addr);
	} else {
		if (!emu_dma_dev_ok(card, addr, len))
			return NPU_ERR_DEV_ADDR;
		*word = (uint64_t *)emu_dma_dev_ptr(card, addr);
	}
	return NPU_ERR_NONE;
}

int emu_dma_side_contig(struct emu_card *card, struct emu_dma_side *side,
			uint64_t addr, bool host, uint64_t size)
{
	if (host) {
		if (!emu_dma_host_ok(card, addr, size))
			return NPU_ERR_HOST_ADDR;
		side->one.ptr = emu_dma_host_ptr(card, addr);
	} else {
		if (!emu_dma_dev_ok(card, addr, size))
			return NPU_ERR_DEV_ADDR;
		side->one.ptr = emu_dma_dev_ptr(card, addr);
	}
	side->one.len = size;
	side->segs = &side->one;
	side->count = 1;
	return NPU_ERR_NONE;
}

/* Read one table entry; the driver may scribble on it, so read it once. */
static void sg_entry_read(struct emu_card *card, uint64_t table, uint32_t i,
			  uint64_t *addr, uint64_t *len)
{
	struct npu_sg_entry e;

	memcpy(&e, emu_dma_host_ptr(card, table + (uint64_t)i * sizeof(e)),
	       sizeof(e));
	*addr = le64toh(e.addr);
	*len = le64toh(e.len);
}

/*
 * Resolve a scatter-gather table into segments.  The table is read exactly
 * once into our own memory, so the transfer uses what was validated.
 */
int emu_dma_side_sgl(struct emu_card *card, struct emu_dma_side *side,
		     uint64_t table, uint32_t count, uint64_t size)
{
	uint64_t total = 0;
	uint32_t i;

	if (count == 0 || count > NPU_SG_MAX_ENTRIES)
		return NPU_ERR_SGL;
	if (table & (sizeof(struct npu_sg_entry) - 1))
		return NPU_ERR_ALIGN;
	if (!emu_dma_host_ok(card, table, (uint64_t)count *
			     sizeof(struct npu_sg_entry)))
		return NPU_ERR_HOST_ADDR;

	side->segs = calloc(count, sizeof(*side->segs));
	if (!side->segs) {
		emu_reg_write32(card, NPU_GLB_ERROR, NPU_GLB_ERR_INTERNAL);
		return NPU_ERR_DMA;
	}
	side->count = count;

	for (i = 0; i < count; i++) {
		uint64_t addr, len;

		sg_entry_read(card, table, i, &addr, &len);
		/* Compare against what is left so the sum cannot wrap. */
		if (len > size - total || !emu_dma_host_ok(card, addr, len))
			return NPU_ERR_SGL;
		total += len;
		side->segs[i].ptr = emu_dma_host_ptr(card, addr);
		side->segs[i].len = len;
	}
	if (total != size)
		return NPU_ERR_SGL;
	return NPU_ERR_NONE;
}

void emu_dma_side_free(struct emu_dma_side *side)
{
	if (side->segs != &side->one)
		free(side->segs);
	side->segs = NULL;
	side->count = 0;
}

/* Out of the engine queue while the ring pauses us; false: give up. */
static bool transfer_pause(struct emu_card *card,
			   const struct emu_dma_client *cl)
{
	bool ok;

	emu_engines_want(&card->copy_engines, cl->priority, -1);
	ok = cl->go_on(cl->ctx, true);
	emu_engines_want(&card->copy_engines, cl->priority, 1);
	return ok;
}

/* A position in a emu_dma_side. */
struct emu_seg_cursor {
	struct emu_dma_side *side;
	uint32_t seg;
	uint64_t off;
};

/* Bytes left in the current segment, skipping empty ones. */
static uint64_t cursor_avail(struct emu_seg_cursor *c)
{
	while (c->seg < c->side->count &&
	       c->off == c->side->segs[c->seg].len) {
		c->seg++;
		c->off = 0;
	}
	if (c->seg == c->side->count)
		return 0;
	return c->side->segs[c->seg].len - c->off;
}

static uint8_t *cursor_ptr(struct emu_seg_cursor *c)
{
	return c->side->segs[c->seg].ptr + c->off;
}

static uint64_t min3(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t m = a < b ? a : b;

	return m < c ? m : c;
}

/*
 * Move one engine's worth of bytes.  src NULL means fill with byte.
 * Returns the bytes moved, short only if a side ran out (which
 * validation rules out).
 */
static uint64_t transfer_chunk(struct emu_seg_cursor *dst,
			       struct emu_seg_cursor *src, uint8_t byte,
			       uint64_t chunk)
{
	uint64_t done = 0;

	while (done < chunk) {
		uint64_t n = min3(chunk - done, cursor_avail(dst),
				  src ? cursor_avail(src) : UINT64_MAX);

		if (n == 0)
			break;
		/* memmove: overlapping copies must not fault, whatever lands */
		if (src) {
			memmove(cursor_ptr(dst), cursor_ptr(src), n);
			src->off += n;
		} else {
			memset(cursor_ptr(dst), byte, n);
		}
		dst->off += n;
		done += n;
	}
	return done;
}

static bool transfer(struct emu_card *card, struct emu_dma_side *dst,
		     struct emu_dma_side *src, uint8_t byte, uint64_t size,
		     const struct emu_dma_client *cl)
{
	struct emu_seg_cursor d = { .side = dst }, s = { .side = src };
	bool ok = true;

	emu_engines_want(&card->copy_engines, cl->priority, 1);
	while (size) {
		uint64_t chunk = size < EMU_DMA_CHUNK ?
				 size : EMU_DMA_CHUNK;
		uint64_t done;

		/* Between chunks: a reset, hang or dead card stops us here. */
		if (!emu_engines_get(&card->copy_engines, cl->priority,
				     cl->go_on, cl->ctx)) {
			if (!transfer_pause(card, cl)) {
				ok = false;
				break;
			}
			continue;
		}
		done = transfer_chunk(&d, src ? &s : NULL, byte, chunk);
		/* the next chunk competes again, from the head of the queue */
		emu_engines_put(&card->copy_engines, cl->priority, true);
		cl->moved(cl->ctx, done);
		if (done != chunk)
			break;
		size -= chunk;
	}
	emu_engines_want(&card->copy_engines, cl->priority, -1);
	return ok;
}

bool emu_dma_copy(struct emu_card *card, struct emu_dma_side *dst,
		  struct emu_dma_side *src, uint64_t size,
		  const struct emu_dma_client *cl)
{
	return transfer(card, dst, src, 0, size, cl);
}

bool emu_dma_fill(struct emu_card *card, struct emu_dma_side *dst,
		  uint8_t byte, uint64_t size, const struct emu_dma_client *cl)
{
	return transfer(card, dst, NULL, byte, size, cl);
}
