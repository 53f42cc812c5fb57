/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu-model: the device model of the NPU card.
 *
 * The card is an ivshmem-doorbell device.  QEMU connects to our unix socket
 * as ivshmem peer 0; we play the server and peer 1.  BAR2 is a memfd we hand
 * to QEMU, so the register window and device memory are plain shared memory.
 * Guest RAM is a file QEMU maps with share=on, which we map too: that is our
 * DMA path.  Doorbells arrive on eventfds, interrupts leave on eventfds.
 *
 * Threads: the main thread waits on doorbells and the socket (control
 * doorbell work runs there), one thread per ring executes commands, and one
 * thread drives the heartbeat.
 */
#ifndef NPU_MODEL_H
#define NPU_MODEL_H

#include <endian.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "../../driver/npu_hw.h"

#define KiB			(1ULL << 10)
#define MiB			(1ULL << 20)
#define GiB			(1ULL << 30)

#define NPU_MODEL_PEER_ID	1	/* our ivshmem id: DOORBELL_ID */
#define NPU_MODEL_CLIENT_ID	0	/* the id we give QEMU */
#define NPU_MODEL_FW_VERSION	((1 << 16) | 0)
#define NPU_MODEL_MAX_RING_ENTRIES 65536
#define NPU_MODEL_HEARTBEAT_US	1000
#define NPU_MODEL_WAIT_POLL_NS	100000	/* a WAIT re-checks this often */
#define NPU_MODEL_DMA_CHUNK	(1 * MiB) /* one copy-engine grant */
#define NPU_HIGHMEM_BASE	(4 * GiB) /* guest RAM above lowmem lives here */

struct npu_config {
	const char *socket_path;
	const char *guest_ram_path;
	uint64_t ram_size;
	uint64_t lowmem;
	uint64_t bar_size;
	uint32_t num_rings;
	uint32_t num_vectors;
	uint32_t num_copy_engines;
	uint64_t serial;
	bool verbose;
};

/* What the card thinks of a ring; RING_STATUS is derived from this. */
enum ring_mode {
	RING_MODE_DISABLED,	/* after reset: nothing latched */
	RING_MODE_ENABLED,	/* configuration latched and valid */
	RING_MODE_STOPPED,	/* error: only RING_CTRL.RESET gets out */
};

struct npu_card;

struct npu_ring {
	struct npu_card *card;
	unsigned int idx;
	pthread_t thread;

	/*
	 * lock protects everything below.  The ring thread runs commands with
	 * the lock dropped and busy set; whoever resets the ring bumps gen,
	 * which makes every wait point of the ring thread give up, and then
	 * waits for busy to clear before touching the ring's state.
	 */
	pthread_mutex_t lock;
	pthread_cond_t wake;	/* doorbell, fence, reset, fault change */
	pthread_cond_t idle;	/* busy went false */
	enum ring_mode mode;
	uint64_t gen;
	bool kick;		/* a doorbell arrived since the last scan */
	bool busy;
	bool waiting;		/* in a WAIT: wants to hear about fences */
	bool quit;

	/* latched at ENABLE */
	uint64_t base;
	uint32_t size;
	uint32_t vector;
	uint32_t priority;

	/*
	 * Card-owned counters, mirrored into the registers.  The ring
	 * thread owns them while busy, the lock holder otherwise.
	 */
	uint32_t head;
	uint64_t cmds_done;
	uint64_t bytes_done;

	/* armed faults */
	bool hang;
	bool fail_dma;
	uint32_t delay_us;
	uint32_t drop_irqs;
	bool stuck_reset;
};

struct npu_card {
	struct npu_config cfg;

	int shm_fd;
	uint8_t *bar;		/* BAR2: register window + device memory */
	uint64_t devmem_size;

	int ram_fd;
	uint8_t *ram;		/* guest RAM, file offset 0 = lowmem GPA 0 */

	int *to_model;		/* per vector: the guest rings us */
	int *to_guest;		/* per vector: we raise MSI-X vectors */

	uint64_t start_ns;	/* CLOCK_MONOTONIC at start: CLOCK_NS 0 */
	bool dead;		/* STOP_HEARTBEAT fired; atomic */
	bool quit;		/* shutting down; atomic */
	uint64_t fence_seq;	/* bumped by every FENCE; atomic */
	pthread_t heartbeat_thread;
	bool heartbeat_started;
	uint32_t rings_started;
	/* serialises heartbeat ticks against the card dying or reviving */
	pthread_mutex_t heartbeat_lock;
	uint64_t heartbeat;

	/*
	 * Copy engines: NUM_COPY_ENGINES grants of one chunk each. wanting[p]
	 * counts transfers of ring priority p that are ready for their next
	 * chunk (not paused by their ring); a free engine goes to the most
	 * urgent of them.
	 */
	pthread_mutex_t engine_lock;
	pthread_cond_t engine_free;
	uint32_t engines_free;
	uint32_t engine_wanting[NPU_RING_PRIORITY_LOWEST + 1];

	struct npu_ring *rings;
};

/* Logging: quiet unless --verbose, errors always. */
extern bool npu_verbose;
void npu_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void npu_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Register access.  BAR2 is shared with a guest that treats it as uncached
 * MMIO: loads of driver-written registers acquire, stores of card-owned
 * registers release, so data the card wrote before a HEAD or STATUS store
 * is visible to a guest that saw the store.
 */
static inline uint32_t reg_read32(struct npu_card *card, uint32_t off)
{
	return le32toh(__atomic_load_n((uint32_t *)(card->bar + off),
				       __ATOMIC_ACQUIRE));
}

static inline uint64_t reg_read64(struct npu_card *card, uint32_t off)
{
	return le64toh(__atomic_load_n((uint64_t *)(card->bar + off),
				       __ATOMIC_ACQUIRE));
}

static inline void reg_write32(struct npu_card *card, uint32_t off, uint32_t v)
{
	__atomic_store_n((uint32_t *)(card->bar + off), htole32(v),
			 __ATOMIC_RELEASE);
}

static inline void reg_write64(struct npu_card *card, uint32_t off, uint64_t v)
{
	__atomic_store_n((uint64_t *)(card->bar + off), htole64(v),
			 __ATOMIC_RELEASE);
}

static inline uint32_t ring_reg(const struct npu_ring *r, uint32_t off)
{
	return NPU_RING_REG(r->idx, off);
}

static inline uint32_t ring_read32(struct npu_ring *r, uint32_t off)
{
	return reg_read32(r->card, ring_reg(r, off));
}

static inline uint64_t ring_read64(struct npu_ring *r, uint32_t off)
{
	return reg_read64(r->card, ring_reg(r, off));
}

static inline void ring_write32(struct npu_ring *r, uint32_t off, uint32_t v)
{
	reg_write32(r->card, ring_reg(r, off), v);
}

static inline void ring_write64(struct npu_ring *r, uint32_t off, uint64_t v)
{
	reg_write64(r->card, ring_reg(r, off), v);
}

static inline uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline struct timespec ns_to_timespec(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = ns / 1000000000ULL,
		.tv_nsec = ns % 1000000000ULL,
	};

	return ts;
}

static inline bool card_is_dead(struct npu_card *card)
{
	return __atomic_load_n(&card->dead, __ATOMIC_ACQUIRE);
}

/* card.c */
int card_init(struct npu_card *card, const struct npu_config *cfg);
int card_start(struct npu_card *card);
void card_stop(struct npu_card *card);
void card_destroy(struct npu_card *card);
void card_control(struct npu_card *card);
void card_doorbell(struct npu_card *card, uint32_t vector);
void card_raise_irq(struct npu_card *card, uint32_t vector);
uint64_t card_clock_ns(struct npu_card *card);
void card_fence_written(struct npu_card *card);

/* ring.c */
int ring_init(struct npu_ring *r, struct npu_card *card, unsigned int idx);
int ring_start(struct npu_ring *r);
void ring_stop_thread(struct npu_ring *r);
void ring_destroy(struct npu_ring *r);
void ring_reset(struct npu_ring *r);
void ring_enable(struct npu_ring *r);
void ring_doorbell(struct npu_ring *r, uint32_t vector);
void ring_poke(struct npu_ring *r);
void ring_inject(struct npu_ring *r, uint32_t kind, uint32_t arg);
bool ring_reset_stuck(struct npu_ring *r);
void ring_raise_irq(struct npu_ring *r);

/* dma.c */
struct dma_seg {
	uint8_t *ptr;
	uint64_t len;
};

/* One side of a transfer: a list of segments, already validated. */
struct dma_side {
	struct dma_seg *segs;
	uint32_t count;
	struct dma_seg one;	/* storage when the side is contiguous */
};

int dma_init(struct npu_card *card);
void dma_destroy(struct npu_card *card);
bool dma_host_ok(struct npu_card *card, uint64_t gpa, uint64_t len);
uint8_t *dma_host_ptr(struct npu_card *card, uint64_t gpa);
bool dma_dev_ok(struct npu_card *card, uint64_t off, uint64_t len);
uint8_t *dma_dev_ptr(struct npu_card *card, uint64_t off);
int dma_word(struct npu_card *card, uint64_t addr, bool host, uint64_t len,
	     uint64_t **word);
int dma_side_contig(struct npu_card *card, struct dma_side *side,
		    uint64_t addr, bool host, uint64_t size);
int dma_side_sgl(struct npu_card *card, struct dma_side *side,
		 uint64_t table, uint32_t count, uint64_t size);
void dma_side_free(struct dma_side *side);

/*
 * The ring a transfer runs for.  Between chunks the transfer asks
 * go_on(ctx, false), which never blocks: may it go on right now?  If not, it
 * leaves the engine queue and asks go_on(ctx, true), which sits out a pause
 * (hung ring, dead card) and is false when the transfer must give up (ring
 * reset, shutdown).  go_on may be called with engine_lock held, so whoever
 * holds a ring's lock must not take engine_lock.  moved() reports every
 * chunk done.
 */
struct dma_client {
	bool (*go_on)(void *ctx, bool wait);
	void (*moved)(void *ctx, uint64_t bytes);
	void *ctx;
	uint32_t priority;
};

bool dma_copy(struct npu_card *card, struct dma_side *dst,
	      struct dma_side *src, uint64_t size, const struct dma_client *cl);
bool dma_fill(struct npu_card *card, struct dma_side *dst, uint8_t byte,
	      uint64_t size, const struct dma_client *cl);
/* A ring was reset, hung or is quitting, or the card died: wake waiters. */
void dma_ring_changed(struct npu_card *card);

/* ivshmem.c */
int ivshmem_listen(const char *path);
int ivshmem_accept(int listen_fd, int sig_fd);
int ivshmem_handshake(int conn_fd, struct npu_card *card);

#endif /* NPU_MODEL_H */
