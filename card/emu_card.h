/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu-card: the emulated NPU card, a host process QEMU attaches.
 *
 * The card is an ivshmem-doorbell device.  QEMU connects to our unix socket
 * as ivshmem peer 0; we play the server and peer 1.  BAR2 is a memfd we hand
 * to QEMU, so the register window and device memory are plain shared memory.
 * Guest RAM is a file QEMU maps with share=on, which we map too: that is our
 * DMA path.  Doorbells arrive on eventfds, interrupts leave on eventfds.
 *
 * Threads: the main thread waits on doorbells and the socket (control
 * doorbell work runs there), one thread per ring executes commands (its
 * operators too, on OpenMP threads of their own), and one thread drives the
 * heartbeat.
 *
 * The card's names start with emu_ (EMU_ for constants): the driver owns
 * npu_, and the card's state and rings are not the driver's struct
 * npu_device and struct npu_ring.
 */
#ifndef EMU_CARD_H
#define EMU_CARD_H

#include <endian.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "npu_hw.h"
#include "thermal.h"

#define KiB			(1ULL << 10)
#define MiB			(1ULL << 20)
#define GiB			(1ULL << 30)

#define EMU_PEER_ID	1	/* our ivshmem id: DOORBELL_ID */
#define EMU_CLIENT_ID	0	/* the id we give QEMU */
#define EMU_FW_VERSION	((1 << 16) | 0)
#define EMU_MAX_RING_ENTRIES 65536
#define EMU_HEARTBEAT_US	1000
#define EMU_WAIT_POLL_NS	100000	/* a WAIT re-checks this often */
/*
 * A ring with a shadow keeps reading its tail for a while after its last
 * command before it sleeps until a doorbell, and only EMU_MAX_POLLERS rings
 * of the card do so at once: the host's CPUs are shared with the guest, so
 * the cost of watching is bounded.  The while is --fetch-poll-us, or, with
 * --fetch-poll-max-us, longer when the ring's last idle spell was: one and
 * a half times that spell, at most --fetch-poll-max-us.  A host that
 * submits again soon after its last completion (a wait and a resubmission
 * through a guest, hundreds of microseconds) then finds the ring awake,
 * and skips the doorbell and the wake-up of a sleeping thread; one that
 * comes back later costs the card one long watch, then only short ones.
 * Off by default: the watching thread yields, and on a loaded host a
 * thread that yielded waits behind others, where a woken one would not
 * (docs/hardware.md, "Latency").
 */
#define EMU_FETCH_POLL_US	100
#define EMU_FETCH_POLL_MAX_US	1000000
#define EMU_MAX_POLLERS		1
/*
 * IRQ_IF words a ring found clear, remembered (distinct ones) until the
 * heartbeat after next looks at them again; see emu_ring_recheck().
 */
#define EMU_RECHECK_WORDS	8
#define EMU_DMA_CHUNK	(1 * MiB) /* one copy-engine grant */
#define EMU_HIGHMEM_BASE	(4 * GiB) /* guest RAM above lowmem lives here */

struct emu_config {
	const char *socket_path;
	const char *guest_ram_path;
	uint64_t ram_size;
	uint64_t lowmem;
	uint64_t bar_size;
	uint32_t num_rings;
	uint32_t num_vectors;
	uint32_t num_copy_engines;
	uint32_t num_compute_engines;
	uint64_t serial;
	uint32_t fetch_poll_us;
	uint32_t fetch_poll_max_us;
	bool fenced_guest;
	const char *trace_path;
	const char *peer_dir;	/* --peer-dir: where cards find each other */
	bool verbose;
};

/* What the card thinks of a ring; RING_STATUS is derived from this. */
enum emu_ring_mode {
	EMU_RING_MODE_DISABLED,	/* after reset: nothing latched */
	EMU_RING_MODE_ENABLED,	/* configuration latched and valid */
	EMU_RING_MODE_STOPPED,	/* error: only RING_CTRL.RESET gets out */
};

struct emu_card;
struct oplib;

/*
 * The MMU (mmu.c).  Address spaces are few enough that their mirrors, each
 * as large as the virtual address space, fit in the card process's own
 * (47 bits: 64 * 512 GiB is a quarter of it), and are reserved only once
 * the driver gives one a root.
 */
#define EMU_MMU_NUM_AS		64
#define EMU_MMU_VA_BITS		39
#define EMU_MMU_VA_SIZE		(1ULL << EMU_MMU_VA_BITS)
#define EMU_MMU_NUM_PEERS	NPU_MMU_MAX_PEERS
#define EMU_MMU_STATE_CHUNK	GiB	/* page bytes are allocated per GiB of VA */
#define EMU_MMU_STATE_CHUNKS	(EMU_MMU_VA_SIZE / EMU_MMU_STATE_CHUNK)

struct emu_as {
	struct emu_card *card;
	pthread_rwlock_t lock;	/* accesses read, MMU commands write */
	uint64_t root;
	uint8_t *mirror;	/* EMU_MMU_VA_SIZE bytes; NULL: no root */
	uint8_t *state[EMU_MMU_STATE_CHUNKS];	/* a byte per page (mmu.c) */
	uint32_t *own[EMU_MMU_STATE_CHUNKS];	/* per page: where the card's own maps hold it */
};

/* A peer window: the peer card's BAR2 file, -1 while closed. */
struct emu_peer {
	int fd;
	uint64_t size;		/* its device memory */
};

struct emu_mmu {
	struct emu_as *as;	/* address space i at as[i - 1] */
	struct emu_peer peers[EMU_MMU_NUM_PEERS];
	pthread_t thread;
	bool started;
	bool published;		/* our link in the peer directory */
	pthread_mutex_t cmd_lock;	/* held while a command runs */
	pthread_mutex_t lock;	/* the hand-over below */
	pthread_cond_t wake;
	bool pending, busy, quit;
};

/*
 * A direct ring's tables, latched at ENABLE (direct.c): guest addresses,
 * read anew by every command, for their owner changes them as it goes.
 */
struct emu_direct {
	uint64_t bind_base;
	uint32_t bind_count;
	uint64_t slot_base;
	uint32_t slot_count;
	uint64_t slot_irq_base;
	struct npu_ring_shadow *kshadow;	/* the privileged shadow: bind_epoch */
};

struct emu_ring {
	struct emu_card *card;
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
	int wake_fd;		/* eventfd: wakes the thread out of idle_wait */
	bool idle_waiting;	/* asleep on wake_fd and the vector's doorbell */
	enum emu_ring_mode mode;
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
	struct emu_as *as;		/* NULL: untranslated */
	struct npu_ring_shadow *shadow;	/* in guest RAM; NULL: TAIL register */
	bool direct;			/* the submitter's shadow above, and: */
	struct emu_direct dir;

	/*
	 * The ring thread's own: how long it watches the tail next time, and
	 * since when the ring has had no commands (0: it has some).
	 */
	uint64_t poll_ns;
	uint64_t idle_since;

	/*
	 * Card-owned counters, mirrored into the registers.  The ring
	 * thread owns them while busy, the lock holder otherwise.
	 */
	uint32_t head;
	uint64_t cmds_done;
	uint64_t bytes_done;
	uint64_t ops_done;

	/*
	 * COMPUTE_NS: time on a compute engine so far, and since when the
	 * ring holds one (0: it does not).  card->compute_lock guards both,
	 * for the heartbeat refreshes the register while an operator runs.
	 */
	uint64_t compute_ns;
	uint64_t compute_since;

	/* IRQ_IF words found clear: since the last heartbeat, and before */
	uint64_t clear_words[EMU_RECHECK_WORDS];
	uint32_t nclear;
	uint64_t older_words[EMU_RECHECK_WORDS];
	uint32_t nolder;

	/* armed faults */
	bool hang;
	bool fail_dma;
	uint32_t delay_us;
	uint32_t drop_irqs;
	bool stuck_reset;
	bool fail_op;
	bool hang_op;		/* armed: the next operator hangs midway */
	bool op_hung;		/* in effect: until the ring is reset */
};

/*
 * A pool of engines the rings share: the copy engines and the compute
 * engines (engine.c).  wanting[p] counts the jobs of ring priority p that
 * are ready for an engine.
 */
struct emu_engines {
	pthread_mutex_t lock;
	pthread_cond_t changed;	/* an engine came free or a ring changed */
	uint32_t count;
	uint32_t free;
	uint32_t wanting[NPU_RING_PRIORITY_LOWEST + 1];
	uint64_t busy_ns;	/* engine time handed out, up to busy_at */
	uint64_t busy_at;
};

/*
 * Telemetry (telemetry.c): the heartbeat feeds the model with how busy the
 * engines were since its last tick.  lock guards it against the control
 * doorbell's fault injection.
 */
struct emu_telemetry {
	pthread_mutex_t lock;
	struct emu_thermal_params params;
	struct emu_thermal model;
	uint64_t at_ns;			/* CLOCK_NS of the last tick */
	uint64_t copy_busy_ns, compute_busy_ns;	/* as of at_ns */
	uint32_t forced_temp_c;		/* NPU_FAULT_OVER_TEMP; 0: the model */
	uint64_t ecc_corrected, ecc_uncorrected;
};

struct emu_card {
	struct emu_config cfg;

	int shm_fd;
	uint8_t *bar;		/* BAR2: register window + device memory */
	uint64_t devmem_size;

	int ram_fd;
	uint8_t *ram;		/* guest RAM, file offset 0 = lowmem GPA 0 */

	int *to_card;		/* per vector: the guest rings us */
	int *to_guest;		/* per vector: we raise MSI-X vectors */

	uint64_t start_ns;	/* CLOCK_MONOTONIC at start: CLOCK_NS 0 */
	bool dead;		/* STOP_HEARTBEAT fired; atomic */
	bool quit;		/* shutting down; atomic */
	uint64_t fence_seq;	/* bumped by every FENCE; atomic */
	uint32_t fence_waiters;	/* rings asleep in a WAIT; atomic */
	uint32_t pollers;	/* rings watching their shadow tail; atomic */
	pthread_t heartbeat_thread;
	bool heartbeat_started;
	uint32_t rings_started;
	/* serialises heartbeat ticks against the card dying or reviving */
	pthread_mutex_t heartbeat_lock;
	uint64_t heartbeat;

	/*
	 * NUM_COPY_ENGINES grants of one chunk each, and NUM_COMPUTE_ENGINES
	 * of one operator each.
	 */
	struct emu_engines copy_engines;
	struct emu_engines compute_engines;

	/* the operator library, shared by every ring (compute.c) */
	struct oplib *oplib;
	pthread_mutex_t compute_lock;	/* every ring's COMPUTE_NS */

	struct emu_ring *rings;

	struct emu_telemetry tel;	/* telemetry.c */

	struct emu_mmu mmu;
};

/* Logging: quiet unless --verbose, errors always. */
extern bool emu_verbose;
void emu_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void emu_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Register access.  BAR2 is shared with a guest that treats it as uncached
 * MMIO: loads of driver-written registers acquire, stores of card-owned
 * registers release, so data the card wrote before a HEAD or STATUS store
 * is visible to a guest that saw the store.
 */
static inline uint32_t emu_reg_read32(struct emu_card *card, uint32_t off)
{
	return le32toh(__atomic_load_n((uint32_t *)(card->bar + off),
				       __ATOMIC_ACQUIRE));
}

static inline uint64_t emu_reg_read64(struct emu_card *card, uint32_t off)
{
	return le64toh(__atomic_load_n((uint64_t *)(card->bar + off),
				       __ATOMIC_ACQUIRE));
}

static inline void emu_reg_write32(struct emu_card *card, uint32_t off,
				   uint32_t v)
{
	__atomic_store_n((uint32_t *)(card->bar + off), htole32(v),
			 __ATOMIC_RELEASE);
}

static inline void emu_reg_write64(struct emu_card *card, uint32_t off,
				   uint64_t v)
{
	__atomic_store_n((uint64_t *)(card->bar + off), htole64(v),
			 __ATOMIC_RELEASE);
}

static inline uint32_t emu_ring_reg(const struct emu_ring *r, uint32_t off)
{
	return NPU_RING_REG(r->idx, off);
}

static inline uint32_t emu_ring_read32(struct emu_ring *r, uint32_t off)
{
	return emu_reg_read32(r->card, emu_ring_reg(r, off));
}

static inline uint64_t emu_ring_read64(struct emu_ring *r, uint32_t off)
{
	return emu_reg_read64(r->card, emu_ring_reg(r, off));
}

static inline void emu_ring_write32(struct emu_ring *r, uint32_t off,
				    uint32_t v)
{
	emu_reg_write32(r->card, emu_ring_reg(r, off), v);
}

static inline void emu_ring_write64(struct emu_ring *r, uint32_t off,
				    uint64_t v)
{
	emu_reg_write64(r->card, emu_ring_reg(r, off), v);
}

static inline uint64_t emu_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline struct timespec emu_ns_to_timespec(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = ns / 1000000000ULL,
		.tv_nsec = ns % 1000000000ULL,
	};

	return ts;
}

static inline bool emu_card_is_dead(struct emu_card *card)
{
	return __atomic_load_n(&card->dead, __ATOMIC_ACQUIRE);
}

/* card.c */
int emu_card_init(struct emu_card *card, const struct emu_config *cfg);
int emu_card_start(struct emu_card *card);
void emu_card_stop(struct emu_card *card);
void emu_card_destroy(struct emu_card *card);
void emu_card_control(struct emu_card *card);
void emu_card_doorbell(struct emu_card *card, uint32_t vector);
bool emu_card_take_doorbell(struct emu_card *card, uint32_t vector);
void emu_card_raise_irq(struct emu_card *card, uint32_t vector);
uint64_t emu_card_clock_ns(struct emu_card *card);
void emu_card_fence_written(struct emu_card *card);
void emu_card_engines_changed(struct emu_card *card);

/* ring.c */
int emu_ring_init(struct emu_ring *r, struct emu_card *card, unsigned int idx);
int emu_ring_start(struct emu_ring *r);
void emu_ring_stop_thread(struct emu_ring *r);
void emu_ring_destroy(struct emu_ring *r);
void emu_ring_reset(struct emu_ring *r);
void emu_ring_enable(struct emu_ring *r);
void emu_ring_doorbell(struct emu_ring *r, uint32_t vector);
void emu_ring_poke(struct emu_ring *r);
void emu_ring_inject(struct emu_ring *r, uint32_t kind, uint32_t arg);
bool emu_ring_reset_stuck(struct emu_ring *r);
void emu_ring_raise_irq(struct emu_ring *r);
void emu_ring_recheck(struct emu_ring *r);

/* dma.c */
struct emu_dma_seg {
	uint8_t *ptr;
	uint64_t len;
};

/* One side of a transfer: a list of segments, already validated. */
struct emu_dma_side {
	struct emu_dma_seg *segs;
	uint32_t count;
	struct emu_dma_seg one;	/* storage when the side is contiguous */
};

int emu_dma_init(struct emu_card *card);
void emu_dma_destroy(struct emu_card *card);
bool emu_dma_host_ok(struct emu_card *card, uint64_t gpa, uint64_t len);
uint8_t *emu_dma_host_ptr(struct emu_card *card, uint64_t gpa);
bool emu_dma_dev_ok(struct emu_card *card, uint64_t off, uint64_t len);
uint8_t *emu_dma_dev_ptr(struct emu_card *card, uint64_t off);
int emu_dma_word(struct emu_card *card, uint64_t addr, bool host, uint64_t len,
		 uint64_t **word);
int emu_dma_side_contig(struct emu_card *card, struct emu_dma_side *side,
			uint64_t addr, bool host, uint64_t size);
int emu_dma_side_sgl(struct emu_card *card, struct emu_dma_side *side,
		     uint64_t table, uint32_t count, uint64_t size);
void emu_dma_side_free(struct emu_dma_side *side);

/* direct.c */
struct npu_direct_cmd;
int emu_direct_latch(struct emu_card *card, unsigned int ring,
		     struct npu_ring_shadow *kshadow, struct emu_direct *dir,
		     struct npu_ring_shadow **user_shadow);
int emu_direct_side(struct emu_ring *r, const struct emu_direct *dir,
		    uint32_t bind, uint64_t offset, uint64_t size, bool write,
		    struct emu_dma_side *side);
int emu_direct_slot(const struct emu_direct *dir, uint32_t slot,
		    uint64_t *slot_gpa, uint64_t *irq_gpa);
struct oplib_range;
int emu_direct_op_desc(struct emu_ring *r, const struct emu_direct *dir,
		       uint32_t bind, uint64_t offset, uint64_t size, void *desc,
		       struct oplib_range *within);
void emu_direct_enter(struct emu_card *card, const struct emu_direct *dir);
void emu_direct_leave(const struct emu_direct *dir);

/*
 * The ring a transfer runs for.  Between chunks the transfer asks
 * go_on(ctx, false), which never blocks: may it go on right now?  If not, it
 * leaves the engine queue and asks go_on(ctx, true), which sits out a pause
 * (hung ring, dead card) and is false when the transfer must give up (ring
 * reset, shutdown).  go_on may be called with engine_lock held, so whoever
 * holds a ring's lock must not take engine_lock.  moved() reports every
 * chunk done.
 */
struct emu_dma_client {
	bool (*go_on)(void *ctx, bool wait);
	void (*moved)(void *ctx, uint64_t bytes);
	void *ctx;
	uint32_t priority;
};

bool emu_dma_copy(struct emu_card *card, struct emu_dma_side *dst,
		  struct emu_dma_side *src, uint64_t size,
		  const struct emu_dma_client *cl);
bool emu_dma_fill(struct emu_card *card, struct emu_dma_side *dst,
		  uint8_t byte, uint64_t size, const struct emu_dma_client *cl);

/* engine.c */
void emu_engines_init(struct emu_engines *e, uint32_t count);
void emu_engines_destroy(struct emu_engines *e);
void emu_engines_want(struct emu_engines *e, uint32_t priority, int delta);
bool emu_engines_get(struct emu_engines *e, uint32_t priority,
		     bool (*go_on)(void *ctx, bool wait), void *ctx);
bool emu_engines_take(struct emu_engines *e, uint32_t priority,
		      bool (*go_on)(void *ctx, bool wait), void *ctx);
void emu_engines_put(struct emu_engines *e, uint32_t priority,
		     bool wants_another);
void emu_engines_changed(struct emu_engines *e);
uint64_t emu_engines_busy_ns(struct emu_engines *e);

/* compute.c */

/* An operator ended because its ring was reset (or we are quitting). */
#define EMU_COMPUTE_ABORTED	(-1)

/*
 * The ring an operator runs for.  go_on is as for a transfer; checkpoint
 * is go_on(ctx, false) asked midway through an operator, where a HANG_OP
 * fault takes effect; abandoned says, without blocking, that the ring was
 * reset (or the card is quitting).  take_fail_op consumes a FAIL_OP fault.
 */
struct emu_compute_client {
	bool (*go_on)(void *ctx, bool wait);
	bool (*checkpoint)(void *ctx);
	bool (*abandoned)(void *ctx);
	bool (*take_fail_op)(void *ctx);
	void *ctx;
	struct emu_ring *ring;
};

int emu_compute_init(struct emu_card *card);
void emu_compute_destroy(struct emu_card *card);
int emu_compute(struct emu_card *card, uint16_t flags, uint64_t src,
		uint64_t size, const struct emu_compute_client *cl);
int emu_compute_direct(struct emu_ring *r, const struct emu_direct *dir,
		       uint32_t bind, uint64_t offset, uint64_t size,
		       const struct emu_compute_client *cl);
void emu_compute_tick(struct emu_card *card);
void emu_compute_reset(struct emu_ring *r);

/* telemetry.c */
void emu_telemetry_init(struct emu_card *card);
void emu_telemetry_destroy(struct emu_card *card);
void emu_telemetry_tick(struct emu_card *card);
bool emu_telemetry_inject(struct emu_card *card, uint32_t kind, uint32_t arg);
void emu_telemetry_reset(struct emu_card *card);

/* mmu.c */
int emu_mmu_init(struct emu_card *card);
void emu_mmu_destroy(struct emu_card *card);
void emu_mmu_reset(struct emu_card *card);
void emu_mmu_control(struct emu_card *card);
bool emu_mmu_as_latch(struct emu_card *card, uint32_t index, struct emu_as **as);
bool emu_mmu_enter(struct emu_as *as, bool (*gone)(void *arg), void *arg);
void emu_mmu_leave(struct emu_as *as);
int emu_mmu_translate(struct emu_as *as, uint64_t va, uint64_t len, bool write,
		      uint8_t **ptr, uint64_t *fault);

/* trace.c: --trace */
enum emu_trace_event {
	EMU_TRACE_DOORBELL,	/* arg: the vector */
	EMU_TRACE_RING_WAKE,	/* a sleeping ring thread got going */
	EMU_TRACE_POLL_HIT,	/* a watching ring saw its tail move */
	EMU_TRACE_FETCH,	/* arg: the opcode */
	EMU_TRACE_OP_START,	/* an operator got its engine; arg: thread CPU ns */
	EMU_TRACE_OP_END,	/* and gave it back; arg: thread CPU ns */
	EMU_TRACE_FENCE,	/* arg: the value written */
	EMU_TRACE_DONE,		/* arg: the opcode; HEAD moved */
	EMU_TRACE_IRQ,		/* arg: the vector; its eventfd written */
	EMU_TRACE_SLEEP,	/* the ring thread sleeps until a doorbell */
};

int emu_trace_init(const char *path);
void emu_trace(uint32_t ring, enum emu_trace_event event, uint64_t arg);
bool emu_tracing(void);
void emu_trace_dump(void);

/* ivshmem.c */
int emu_ivshmem_listen(const char *path);
int emu_ivshmem_accept(int listen_fd, int sig_fd);
int emu_ivshmem_handshake(int conn_fd, struct emu_card *card);

#endif /* EMU_CARD_H */
