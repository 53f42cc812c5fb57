/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny stand-in for QEMU: starts npu-model, connects to it as the
 * ivshmem client, maps BAR2 and guest RAM, and lets tests ring doorbells
 * and collect interrupts.  Functions return 0 / true on success so tests
 * can ASSERT on them.
 */
#ifndef NPU_CLIENT_H
#define NPU_CLIENT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "../../driver/npu_hw.h"

#define KiB			(1ULL << 10)
#define MiB			(1ULL << 20)
#define GiB			(1ULL << 30)
#define HIGHMEM_BASE		(4 * GiB)
#define CLIENT_MAX_VECTORS	64

struct npu_client_opts {
	uint64_t ram_size;
	uint64_t lowmem;
	uint64_t bar_size;
	uint32_t rings;
	uint32_t vectors;
	uint32_t copy_engines;
	uint64_t serial;
	bool stale_socket;	/* leave a dead socket where the model listens */
};

struct npu_client {
	struct npu_client_opts opts;
	pid_t pid;			/* the model, 0 once reaped */
	uint64_t spawn_us;		/* now_us() just before it started */
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
	int to_model[CLIENT_MAX_VECTORS];	/* doorbells */
	int to_guest[CLIENT_MAX_VECTORS];	/* interrupts */

	uint64_t low_next, high_next;	/* guest RAM bump allocators */
};

/* Options every test uses unless it says otherwise. */
void npu_client_default_opts(struct npu_client_opts *o);

/* Create guest RAM, spawn the model and finish the handshake. */
int npu_client_start(struct npu_client *c, const struct npu_client_opts *o);
/* Close the connection and reap the model (killing it after timeout_ms). */
int npu_client_disconnect(struct npu_client *c, int timeout_ms);
/* Everything: disconnect if needed, unmap, unlink the RAM file. */
void npu_client_cleanup(struct npu_client *c);
/* Wait for the model to exit by itself; false on timeout. */
bool npu_client_reap(struct npu_client *c, int timeout_ms);
/* The model binary the tests run: $NPU_MODEL or build/npu-model. */
const char *npu_model_path(void);

/* Registers */
uint32_t reg_rd32(struct npu_client *c, uint32_t off);
uint64_t reg_rd64(struct npu_client *c, uint32_t off);
void reg_wr32(struct npu_client *c, uint32_t off, uint32_t v);
void reg_wr64(struct npu_client *c, uint32_t off, uint64_t v);
uint32_t ring_rd32(struct npu_client *c, unsigned int ring, uint32_t off);
uint64_t ring_rd64(struct npu_client *c, unsigned int ring, uint32_t off);
void ring_wr32(struct npu_client *c, unsigned int ring, uint32_t off,
	       uint32_t v);
void ring_wr64(struct npu_client *c, unsigned int ring, uint32_t off,
	       uint64_t v);
/* Poll a register until (reg & mask) == want, like a driver would. */
bool reg_wait32(struct npu_client *c, uint32_t off, uint32_t mask,
		uint32_t want, int timeout_ms);

/* Doorbells and interrupts */
void doorbell(struct npu_client *c, uint32_t vector);
uint64_t irq_take(struct npu_client *c, uint32_t vector);
uint64_t irq_wait(struct npu_client *c, uint32_t vector, int timeout_ms);

/* Guest memory */
uint8_t *gpa_ptr(struct npu_client *c, uint64_t gpa);
uint8_t *dev_ptr(struct npu_client *c, uint64_t off);
uint64_t devmem_size(struct npu_client *c);
uint64_t host_alloc(struct npu_client *c, uint64_t size, uint64_t align);
uint64_t host_alloc_high(struct npu_client *c, uint64_t size, uint64_t align);
uint64_t word_rd(uint8_t *p);
void word_wr(uint8_t *p, uint64_t v);

/* Control: all wait for the card to acknowledge (1 s, as the doc says). */
bool ctrl_ring_reset(struct npu_client *c, unsigned int ring);
bool ctrl_global_reset(struct npu_client *c);
bool ctrl_inject(struct npu_client *c, unsigned int ring,
		 enum npu_fault kind, uint32_t arg);

/* The driver side of a ring. */
struct test_ring {
	unsigned int idx;
	uint64_t base;
	uint32_t size;
	uint32_t vector;
	uint32_t tail;
};

/* Reset, configure and enable; true when STATUS shows IDLE. */
bool ring_setup(struct npu_client *c, struct test_ring *r, unsigned int idx,
		uint32_t size, uint32_t vector);
/* Write a command into the next slot (not yet visible to the card). */
void ring_push(struct npu_client *c, struct test_ring *r,
	       const struct npu_cmd *cmd);
/* Publish TAIL and ring the ring's vector. */
void ring_submit(struct npu_client *c, struct test_ring *r);
/* Push, submit and wait for HEAD to pass the command. */
bool ring_run(struct npu_client *c, struct test_ring *r,
	      const struct npu_cmd *cmd, int timeout_ms);
bool ring_wait_head(struct npu_client *c, struct test_ring *r,
		    uint32_t head, int timeout_ms);
bool ring_wait_status(struct npu_client *c, unsigned int ring,
		      uint32_t status, int timeout_ms);

/* Command builders */
struct npu_cmd cmd_nop(uint16_t flags);
struct npu_cmd cmd_copy(uint64_t dst, uint64_t src, uint64_t size,
			uint16_t flags);
struct npu_cmd cmd_fill(uint64_t dst, uint64_t size, uint8_t byte,
			uint16_t flags);
struct npu_cmd cmd_fence(uint64_t dst, uint64_t value, uint16_t flags);
struct npu_cmd cmd_wait(uint64_t dst, uint64_t value, enum npu_wait_cond cond,
			uint16_t flags);
struct npu_cmd cmd_timestamp(uint64_t dst, uint16_t flags);

/* Deterministic pseudo-random bytes */
uint64_t rnd_next(uint64_t *state);
void rnd_fill(uint64_t *state, void *buf, uint64_t len);

uint64_t now_us(void);

#endif /* NPU_CLIENT_H */
