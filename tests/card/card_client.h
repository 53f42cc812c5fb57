/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny stand-in for QEMU: starts npu-card, connects to it as the
 * ivshmem client, maps BAR2 and guest RAM, and lets tests ring doorbells
 * and collect interrupts.  Functions return 0 / true on success so tests
 * can ASSERT on them.  Its names start with client_: it drives a ring the
 * way the driver does, but it is neither the driver (npu_) nor the card
 * (emu_).
 */
#ifndef CARD_CLIENT_H
#define CARD_CLIENT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "npu_hw.h"

#define KiB			(1ULL << 10)
#define MiB			(1ULL << 20)
#define GiB			(1ULL << 30)
#define CLIENT_HIGHMEM_BASE		(4 * GiB)
#define CLIENT_MAX_VECTORS	128
/*
 * How long the client waits for the card to take a control request (a
 * reset, a fault to arm, a ring to enable): generous, since a loaded host
 * can keep the card's main thread off the CPU for a long while, and a
 * request taken earlier returns earlier.
 */
#define CLIENT_CTRL_MS		10000

struct client_opts {
	uint64_t ram_size;
	uint64_t lowmem;
	uint64_t bar_size;
	uint32_t rings;
	uint32_t vectors;
	uint32_t copy_engines;
	uint32_t compute_engines;
	uint64_t serial;
	int fetch_poll_us;	/* --fetch-poll-us, unless negative */
	bool fenced_guest;	/* --fenced-guest: no second looks */
	bool stale_socket;	/* leave a dead socket where the card listens */
	const char *peer_dir;	/* --peer-dir, unless NULL */
};

struct client {
	struct client_opts opts;
	pid_t pid;			/* the card, 0 once reaped */
	uint64_t spawn_us;		/* client_now_us() before it started */
	int exit_status;		/* its wait() status once reaped */
	char sock_path[128];
	char ram_path[128];

	int ram_fd;
	uint8_t *ram;
	int conn;
	int shm_fd;
	uint8_t *bar;
	uint64_t bar_size;
	uint32_t vectors;
	int to_card[CLIENT_MAX_VECTORS];	/* doorbells */
	int to_guest[CLIENT_MAX_VECTORS];	/* interrupts */

	uint64_t low_next, high_next;	/* guest RAM bump allocators */
};

/* Options every test uses unless it says otherwise. */
void client_default_opts(struct client_opts *o);

/* Create guest RAM, spawn the card and finish the handshake. */
int client_start(struct client *c, const struct client_opts *o);
/* Close the connection and reap the card (killing it after timeout_ms). */
int client_disconnect(struct client *c, int timeout_ms);
/* Everything: disconnect if needed, unmap, unlink the RAM file. */
void client_cleanup(struct client *c);
/* Wait for the card to exit by itself; false on timeout. */
bool client_reap(struct client *c, int timeout_ms);
/* The card binary the tests run: $NPU_CARD or build/npu-card. */
const char *client_card_path(void);

/* Registers */
uint32_t client_reg_rd32(struct client *c, uint32_t off);
uint64_t client_reg_rd64(struct client *c, uint32_t off);
void client_reg_wr32(struct client *c, uint32_t off, uint32_t v);
void client_reg_wr64(struct client *c, uint32_t off, uint64_t v);
uint32_t client_ring_rd32(struct client *c, unsigned int ring, uint32_t off);
uint64_t client_ring_rd64(struct client *c, unsigned int ring, uint32_t off);
void client_ring_wr32(struct client *c, unsigned int ring, uint32_t off,
		      uint32_t v);
void client_ring_wr64(struct client *c, unsigned int ring, uint32_t off,
		      uint64_t v);
/* Poll a register until (reg & mask) == want, like a driver would. */
bool client_reg_wait32(struct client *c, uint32_t off, uint32_t mask,
		       uint32_t want, int timeout_ms);

/* Doorbells and interrupts */
void client_doorbell(struct client *c, uint32_t vector);
uint64_t client_irq_take(struct client *c, uint32_t vector);
uint64_t client_irq_wait(struct client *c, uint32_t vector, int timeout_ms);

/* Guest memory */
uint8_t *client_gpa_ptr(struct client *c, uint64_t gpa);
uint8_t *client_dev_ptr(struct client *c, uint64_t off);
uint64_t client_devmem_size(struct client *c);
uint64_t client_host_alloc(struct client *c, uint64_t size, uint64_t align);
uint64_t client_host_alloc_high(struct client *c, uint64_t size,
				uint64_t align);
uint64_t client_word_rd(uint8_t *p);
void client_word_wr(uint8_t *p, uint64_t v);

/* Control: all wait for the card to acknowledge (1 s, as the doc says). */
bool client_ctrl_ring_reset(struct client *c, unsigned int ring);
bool client_ctrl_global_reset(struct client *c);
bool client_ctrl_inject(struct client *c, unsigned int ring,
			enum npu_fault kind, uint32_t arg);

/* The driver side of a ring. */
struct client_ring {
	unsigned int idx;
	uint64_t base;
	uint32_t size;
	uint32_t vector;
	uint32_t tail;
	struct npu_ring_shadow *shadow;	/* latched at setup; NULL: none */
	uint64_t doorbells;		/* submissions that rang */
	uint64_t quiet;			/* submissions the card fetched unbidden */
};

/*
 * Give the card a shadow array (SHADOW_BASE) that rings set up afterwards
 * latch; returns its guest address.
 */
uint64_t client_shadows_enable(struct client *c);
struct npu_ring_shadow *client_shadow(struct client *c, uint64_t base,
				      unsigned int ring);

/* Reset, configure and enable; true when STATUS shows IDLE. */
bool client_ring_setup(struct client *c, struct client_ring *r,
		       unsigned int idx, uint32_t size, uint32_t vector);
/* Write a command into the next slot (not yet visible to the card). */
void client_ring_push(struct client *c, struct client_ring *r,
		      const struct npu_cmd *cmd);
/*
 * Publish the tail and ring the ring's vector: always without a shadow;
 * with one only if the card does not say it fetches, after a full barrier
 * (client_ring_submit_unfenced(): without it, as a TCG guest's mb() is).
 */
void client_ring_submit(struct client *c, struct client_ring *r);
void client_ring_submit_unfenced(struct client *c, struct client_ring *r);
bool client_ring_fetching(struct client_ring *r);
/* Push, submit and wait for HEAD to pass the command. */
bool client_ring_run(struct client *c, struct client_ring *r,
		     const struct npu_cmd *cmd, int timeout_ms);
bool client_ring_wait_head(struct client *c, struct client_ring *r,
			   uint32_t head, int timeout_ms);
bool client_ring_wait_status(struct client *c, unsigned int ring,
			     uint32_t status, int timeout_ms);

/* Command builders */
struct npu_cmd client_cmd_nop(uint16_t flags);
struct npu_cmd client_cmd_copy(uint64_t dst, uint64_t src, uint64_t size,
			       uint16_t flags);
struct npu_cmd client_cmd_fill(uint64_t dst, uint64_t size, uint8_t byte,
			       uint16_t flags);
struct npu_cmd client_cmd_fence(uint64_t dst, uint64_t value, uint16_t flags);
struct npu_cmd client_cmd_wait(uint64_t dst, uint64_t value,
			       enum npu_wait_cond cond, uint16_t flags);
struct npu_cmd client_cmd_timestamp(uint64_t dst, uint16_t flags);
struct npu_cmd client_cmd_compute(uint64_t desc, uint64_t size, uint16_t flags);

/*
 * Operator descriptors, written into guest RAM at a 64-byte aligned gpa:
 * a header (kind, inputs, one output) whose attributes the caller fills
 * in, then dense float32 tensors in device memory.  Returns the header.
 */
struct npu_op_desc *client_op_init(struct client *c, uint64_t gpa,
				   uint16_t kind, uint8_t num_inputs);
void client_op_tensor(struct npu_op_desc *d, unsigned int i, uint64_t addr,
		      unsigned int ndims, const uint64_t *dims);
uint64_t client_op_size(const struct npu_op_desc *d);

/*
 * The MMU, as a driver runs it: a command through the control doorbell
 * (the card's NPU_MMU_CMD_STATUS, or -1 if GO never cleared), and page
 * tables in guest RAM.  client_pt_map() sets the entry of va at @level
 * (0: a 1 GiB leaf, 1: 2 MiB, 2: 4 KiB) to @pte, with the tables above it
 * made as needed.
 */
int client_mmu_cmd(struct client *c, uint32_t cmd, uint32_t index,
		   uint64_t addr, uint64_t size);
uint64_t client_pt_new(struct client *c);
void client_pt_map(struct client *c, uint64_t root, uint64_t va,
		   unsigned int level, uint64_t pte);

/* Deterministic pseudo-random bytes */
uint64_t client_rnd_next(uint64_t *state);
void client_rnd_fill(uint64_t *state, void *buf, uint64_t len);

uint64_t client_now_us(void);

#endif /* CARD_CLIENT_H */
