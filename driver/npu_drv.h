/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef __NPU_DRV_H__
#define __NPU_DRV_H__

#include <linux/dmapool.h>
#include <linux/io.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/pci.h>
#include <linux/rwsem.h>
#include <linux/wait.h>

#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_managed.h>
#include <drm/drm_mm.h>
#include <drm/drm_print.h>

#include "npu_hw.h"
#include "npu_accel.h"
#include "npu_vm.h"

#define DRIVER_NAME	"npu"
#define DRIVER_DESC	"Driver for the NPU PCIe accelerator card"

/* GEM handles below this are bindings of direct rings (npu_direct.c). */
#define NPU_DIRECT_BINDINGS	1024

/* The card answers control writes in microseconds; a second means broken. */
#define NPU_CONTROL_TIMEOUT_US	1000000

struct npu_device;
struct npu_direct_area;
struct npu_peer_windows;
struct npu_program;
struct npu_program_build;
struct npu_program_edit;
struct npu_stream;
struct npu_stream_dir;

/**
 * struct npu_ring - one hardware command ring of the card
 * @ndev: the card
 * @index: ring number on the card
 * @vector: MSI-X vector serving the ring's doorbell and interrupt
 * @entries: number of commands in @cmds, a power of two; set by the owner
 *	before it publishes @cmds
 * @cmds: the ring in coherent memory; set and cleared by the ring's owner
 *	under npu_device.rings_lock, under which debugfs reads it; the owner,
 *	its only writer, reads it without the lock
 * @cmds_dma: bus address of @cmds
 * @tail: next free entry counter, what the card last got in @shadow; written
 *	by the owner (a stream, under its submit_lock), read locklessly by
 *	submitters waiting for space and by debugfs
 * @shadow: the ring's entry of the shadow array the card latched at ENABLE:
 *	the tail goes there, the card's HEAD and whether it still fetches
 *	come from there (docs/hardware.md)
 * @pushes: batches pushed since the ring started; as @tail
 * @doorbells: of those, the ones that rang the doorbell; as @tail
 * @done: sequence number of the last batch the card completed on the ring,
 *	written by the card; kernel memory, unlike the slots userspace names
 * @done_dma: bus address of @done
 * @wq: woken by the ring's interrupt
 * @owned: a stream owns the ring; under npu_device.rings_lock
 * @kept: out of use, memory kept, after the card did not confirm a reset;
 *	under npu_device.rings_lock
 * @kept_jobs: jobs of the last stream, kept with their pages and buffers
 *	since the card may still run them; handed over by that stream as it
 *	goes, freed by npu_rings_reclaim() once no stream owns the ring
 * @kept_fence: fence area of that stream's context, which the card may
 *	still write, referenced; as @kept_jobs
 * @stream: the stream to notify of interrupts; under npu_device.rings_lock
 * @area: for a direct ring, the pages userspace writes that hold @cmds,
 *	referenced; as @cmds
 * @as: the address space the ring runs in from its next start, 0:
 *	untranslated; set by its owner before it starts the ring
 */
struct npu_ring {
	struct npu_device *ndev;
	u32 index;
	u32 vector;
	u32 entries;
	struct npu_cmd *cmds;
	dma_addr_t cmds_dma;
	u32 tail;
	struct npu_ring_shadow *shadow;
	u64 pushes;
	u64 doorbells;
	u64 *done;
	dma_addr_t done_dma;
	wait_queue_head_t wq;
	bool owned;
	bool kept;
	struct list_head kept_jobs;
	struct drm_gem_object *kept_fence;
	struct npu_stream *stream;
	struct npu_direct_area *area;
	u32 as;
};

/**
 * struct npu_identity - the card's constant identity registers
 *
 * The compute capabilities keep only what this driver knows too: an
 * operator or data type beyond enum npu_operator or enum npu_dtype is one
 * whose descriptor it could not check.
 */
struct npu_identity {
	u32 version;
	u32 fw_version;
	u64 serial;
	u32 num_rings;
	u32 num_copy_engines;
	u32 num_vectors;
	u32 doorbell_id;
	u32 max_ring_entries;
	u32 heartbeat_period_us;
	u64 devmem_offset;
	u64 devmem_size;
	u32 num_compute_engines;
	u32 oplib_version;
	u64 operators;
	u32 dtypes;
	u32 op_desc_max;
};

/**
 * struct npu_device - one NPU card
 * @drm: the accel device
 * @regs: BAR2 register window
 * @doorbell: BAR0
 * @id: identity read at probe
 * @num_irqs: MSI-X vectors allocated; ring vectors are 1..num_irqs-1
 * @rings: per-ring state, @id.num_rings of them
 * @rings_lock: protects @rings_used and, in each ring, @owned, @kept,
 *	@stream and the publication of @cmds; taken in interrupt context
 * @rings_used: rings owned by streams or kept out of use; written under
 *	@rings_lock, read locklessly
 * @mm_lock: protects @mm and @devmem_used
 * @mm: allocator of device memory, all contexts; under @mm_lock
 * @devmem_used: bytes of device memory allocated; written under @mm_lock,
 *	read locklessly
 * @sysfs_lock: protects @streams_kobj, @stream_dirs and each stream's
 *	sysfs_dir
 * @contexts_lock: protects @contexts and @next_ctx_id; taken before any
 *	context's lock
 * @contexts: open contexts, for card-wide failure; under @contexts_lock
 * @next_ctx_id: context numbers, for sysfs and fdinfo; under @contexts_lock
 * @exclusive: one process at a time may hold the card (npu_exclusive.c);
 *	written under @contexts_lock, read locklessly by sysfs
 * @pinned_pages: user and host-buffer pages pinned for the card
 * @peers: the card's peer windows (npu_peer.c)
 * @jobs_made: jobs allocated since probe; the pools' reuse is what they spare
 * @jobs_alive: jobs allocated and not yet freed, pooled ones included
 * @fence_lock: protects @fence_areas; a spinlock: the last reference to a
 *	fence area may go anywhere
 * @fence_areas: fence areas whose pages the card can reach, each
 *	DMA-mapped until freed or until the card goes away; under @fence_lock
 * @direct_areas: the same for the rings of direct streams
 * @dead: the heartbeat stopped; no work is accepted any more until a card
 *	reset; written under @reset_sem (for writing), read locklessly
 * @reset_sem: taken for writing by a card reset (npu_reset.c) and by the
 *	watchdog declaring the card dead, for reading by stream creation, so
 *	that a stream is made wholly before or after a reset; taken before
 *	@contexts_lock and before any context's lock
 * @reset_work: resets the card for a hung ring that did not stop
 * @rings_stopped: a card reset stopped every ring, whose streams are being
 *	failed without resetting their rings; written under @reset_sem, read
 *	locklessly
 * @reset_count: card resets since probe; written under @reset_sem, read
 *	locklessly
 * @last_reset_reason: enum drm_npu_reset_reason of the last one; as
 *	@reset_count
 * @shadows_dma: bus address of the rings' shadows, which a card reset
 *	makes the card forget
 * @heartbeat_work: watches the heartbeat
 * @heartbeat_check: jiffies from one look at the heartbeat to the next,
 *	from the period the card states; set before @heartbeat_work starts
 * @heartbeat: last heartbeat value seen; @heartbeat_work's own
 * @heartbeat_seen: jiffies when @heartbeat last changed or the card was
 *	reset; written by @heartbeat_work and a card reset, read locklessly
 * @streams_kobj: sysfs directory with one entry per live stream; under
 *	@sysfs_lock
 * @stream_dirs: the entries in @streams_kobj; under @sysfs_lock
 * @selftest_ok: the probe-time self-test completed a fence
 * @selftest_ns: round trip of the self-test, doorbell to interrupt
 * @compute_ns: time operators of every context held a compute engine, as
 *	last read from the rings (DRM_NPU_PARAM_COMPUTE_NS)
 * @op_desc_pool: blocks for one operator descriptor, for the batches of a
 *	single operator; NULL when the card computes nothing
 * @vm: the MMU's address spaces (npu_vm.c)
 */
struct npu_device {
	struct drm_device drm;
	void __iomem *regs;
	void __iomem *doorbell;
	struct npu_identity id;
	unsigned int num_irqs;
	struct npu_ring *rings;
	spinlock_t rings_lock;		/* ring ownership; also in IRQ */
	u32 rings_used;
	struct mutex mm_lock;		/* @mm, @devmem_used */
	struct drm_mm mm;
	u64 devmem_used;
	struct mutex sysfs_lock;	/* @streams_kobj, @stream_dirs */
	struct mutex contexts_lock;	/* @contexts */
	struct list_head contexts;
	u64 next_ctx_id;
	bool exclusive;
	atomic64_t pinned_pages;
	struct npu_peer_windows *peers;
	atomic64_t jobs_made;
	atomic_t jobs_alive;
	spinlock_t fence_lock;		/* @fence_areas */
	struct list_head fence_areas;
	struct list_head direct_areas;
	bool dead;
	struct rw_semaphore reset_sem;	/* card reset against stream creation */
	struct work_struct reset_work;
	bool rings_stopped;
	u64 reset_count;
	u32 last_reset_reason;
	dma_addr_t shadows_dma;
	struct delayed_work heartbeat_work;
	unsigned long heartbeat_check;
	u64 heartbeat;
	unsigned long heartbeat_seen;
	struct kobject *streams_kobj;
	struct list_head stream_dirs;
	bool selftest_ok;
	u64 selftest_ns;
	atomic64_t compute_ns;
	struct dma_pool *op_desc_pool;
	struct npu_health *health;
	struct npu_vm_card vm;
};

/**
 * struct npu_fence_area - a context's fence slots, mapped read-only
 * @gem: GEM object through which userspace maps the area
 * @slots: the slots, in pages of their own that live as long as @gem: an
 *	ioctl may still wait on a slot after the card went away
 * @dma: bus address of @slots while @link is in npu_device.fence_areas
 * @count: number of slots
 * @irq_wanted: per slot, how many waiters need the card's interrupt when a
 *	fence writes it; pages of their own, not mapped to userspace, which
 *	the fences' NPU_CMD_IRQ_IF reads (the card only tests for zero);
 *	changed with atomics, by npu_ctx_slot_irq_get() and
 *	npu_ctx_slot_irq_put()
 * @irq_wanted_dma: bus address of @irq_wanted while @link is listed
 * @binds: the binding table of the context's direct rings, pages of its
 *	own, not mapped to userspace; entries written under
 *	npu_ctx.direct_lock
 * @binds_dma: bus address of @binds while @link is listed
 * @link: in npu_device.fence_areas while the card can reach @slots and
 *	@irq_wanted; empty once the DMA mappings are gone; under
 *	npu_device.fence_lock
 * @wait_slot: the slot the last WAIT that got there waited on
 * @wait_ns: how long that wait took (npu_wait_ioctl()'s polling goes by
 *	it)
 * @wait_dev_ns: how far such waits have been from what they expected, on
 *	average
 * @wait_late_ns: how late the timer that ends a hybrid wait's sleep has
 *	woken the waiter, on average; the four read and written locklessly:
 *	a torn set costs one wait that polls at the wrong time, within its
 *	bound
 */
struct npu_fence_area {
	struct drm_gem_object gem;
	struct drm_npu_fence_slot *slots;
	dma_addr_t dma;
	u32 count;
	atomic_t *irq_wanted;
	dma_addr_t irq_wanted_dma;
	struct npu_bind_table *binds;
	dma_addr_t binds_dma;
	struct list_head link;
	u32 wait_slot;
	s64 wait_ns;
	s64 wait_dev_ns;
	s64 wait_late_ns;
};

/**
 * struct npu_ctx - what one open file of the accel node owns
 * @ndev: the card
 * @file: the DRM file
 * @link: in npu_device.contexts
 * @id: number of the context on the card, never reused
 * @pid: process that opened it
 * @fence: the fence area
 * @lock: protects @slots_used, @event_slots and changes to @streams; taken
 *	after npu_device.contexts_lock, before a stream's submit_lock
 * @streams: stream id -> struct npu_stream; changed under @lock, looked up
 *	locklessly (RCU)
 * @slots_used: allocated fence slots; written under @lock, tested
 *	locklessly (a slot freed meanwhile is the user's race)
 * @event_slots: slots allocated as events (the others belong to streams);
 *	as @slots_used
 * @wq: woken by every interrupt of the context's rings and every signal
 * @propagate_work: fails the streams that wait on slots a failure left unset
 * @bytes_moved: bytes copied or filled by completed work
 * @busy_ns: time the context's streams had work queued
 * @host_mem: bytes of pinned host buffers
 * @dev_mem: bytes of device buffers
 * @ops_done: operators its streams' rings completed
 * @compute_ns: time those operators held a compute engine
 * @direct_lock: protects @direct_streams, @bind_epoch and the binding
 *	table (fence->binds); taken before a stream's submit_lock, and
 *	never under @lock
 * @direct_streams: the context's direct streams, whose rings use the
 *	binding table; under @direct_lock
 * @bind_epoch: the binding table's epoch; under @direct_lock
 * @exports: keys under which it exports buffers; under npu_share.c's lock
 * @programs: program id -> struct npu_program (npu_program.c)
 * @vm: its address space (npu_vm.c)
 * @lost: 0, or the enum drm_npu_reset_reason of the card reset that lost
 *	the context, which then accepts no new work; written under @lock and
 *	npu_device.reset_sem (for writing), read locklessly
 */
struct npu_ctx {
	struct npu_device *ndev;
	struct drm_file *file;
	struct list_head link;
	u64 id;
	pid_t pid;
	struct npu_fence_area *fence;
	struct mutex lock;		/* streams and slot bitmaps */
	struct xarray streams;
	unsigned long *slots_used;
	unsigned long *event_slots;
	wait_queue_head_t wq;
	struct work_struct propagate_work;
	atomic64_t bytes_moved;
	atomic64_t busy_ns;
	atomic64_t host_mem;
	atomic64_t dev_mem;
	atomic64_t ops_done;
	atomic64_t compute_ns;
	struct mutex direct_lock;	/* direct streams, bindings */
	struct list_head direct_streams;
	u64 bind_epoch;
	u32 exports;
	struct xarray programs;
	struct npu_vm *vm;
	u32 lost;
};

enum npu_stream_state {
	NPU_STREAM_ACTIVE,
	NPU_STREAM_FAILED,	/* npu_stream.error says why */
	NPU_STREAM_DESTROYED,
};

/**
 * struct npu_stream - an in-order queue of work on one ring
 * @ref: held by the context's table and by every ioctl using the stream
 * @ctx: owning context
 * @ring: the ring it owns
 * @id: number in the context
 * @slot: its fence slot
 * @priority: 0 (highest) .. 7
 * @submit_lock: serializes submissions and ring teardown: protects
 *	@submitted and what the stream puts on its ring; taken after the
 *	context's lock, before @lock
 * @lock: protects @jobs, @job_pool, @job_pool_size, @state, @error,
 *	@completed, @busy_since, @ops_done, @compute_ns (a spinlock: also
 *	taken by work the interrupt queues)
 * @jobs: submitted jobs not yet retired, oldest first; under @lock
 * @job_pool: retired small jobs, holding nothing, for the stream's next
 *	submissions; under @lock
 * @job_pool_size: number of jobs in @job_pool; under @lock
 * @spare_job: a job of @job_pool set aside for the next submission, which
 *	takes it with xchg(); set only under @lock
 * @state: enum npu_stream_state; written under @lock, read locklessly
 * @error: enum drm_npu_error once failed; written under @lock, read
 *	locklessly
 * @submitted: sequence number of the last submission; written under
 *	@submit_lock, read locklessly
 * @completed: sequence number of the last retired job; written under
 *	@lock, read locklessly
 * @bytes: bytes moved by retired jobs
 * @busy_since: when the stream last went from idle to busy; under @lock
 * @space_wq: woken when ring entries are freed or the stream fails
 * @retire_work: retires completed jobs and notices ring errors; queued at
 *	once by the ring's interrupt, and NPU_RETIRE_LAZY_MS after a
 *	submission and again while jobs remain, so that completed work is let
 *	go even when no one waits
 * @hang_work: declares the stream hung when it makes no progress
 * @progress: the ring's commands, bytes and compute time at the last hang
 *	check; @hang_work's own
 * @ops_done: operators the ring completed for the stream, as last read;
 *	written under @lock, read locklessly
 * @compute_ns: time they held a compute engine, as last read; likewise
 * @sysfs_dir: its directory in the card's streams/; under
 *	npu_device.sysfs_lock
 * @direct: userspace writes the ring (DRM_NPU_STREAM_DIRECT); no jobs
 * @direct_link: in npu_ctx.direct_streams while the ring runs; under
 *	npu_ctx.direct_lock
 * @area: a direct stream's ring memory, referenced and mappable by its
 *	file until the stream stops; under npu_ctx.direct_lock
 * @rcu: frees the stream after lock-free lookups are done with it
 */
struct npu_stream {
	struct kref ref;
	struct npu_ctx *ctx;
	struct npu_ring *ring;
	u32 id;
	u32 slot;
	u32 priority;
	struct mutex submit_lock;	/* submission and ring teardown */
	spinlock_t lock;		/* jobs, job pool, state, counters */
	struct list_head jobs;
	struct list_head job_pool;
	unsigned int job_pool_size;
	struct npu_job *spare_job;
	enum npu_stream_state state;
	u32 error;
	u64 submitted;
	u64 completed;
	atomic64_t bytes;
	ktime_t busy_since;
	wait_queue_head_t space_wq;
	struct delayed_work retire_work;
	struct delayed_work hang_work;
	u64 progress;
	u64 ops_done;
	u64 compute_ns;
	struct npu_stream_dir *sysfs_dir;
	bool direct;
	struct list_head direct_link;
	struct npu_direct_area *area;
	struct rcu_head rcu;
};

/**
 * struct npu_pin - ordinary user memory pinned for one command
 * @pages: the pinned pages
 * @npages: number of @pages
 * @sgt: their DMA mapping
 * @dir: direction of the mapping
 */
struct npu_pin {
	struct page **pages;
	unsigned int npages;
	struct sg_table sgt;
	enum dma_data_direction dir;
};

/**
 * struct npu_slot_wait - a SLOT_WAIT of a job: the slot and the value awaited
 * @value: the value, unless @indirect
 * @slot: the slot
 * @indirect: the value is read as the wait runs (DRM_NPU_CMD_VALUE_INDIRECT):
 *	a failed slot blocks it whatever the slot's value
 */
struct npu_slot_wait {
	u64 value;
	u32 slot;
	bool indirect;
};

/* Coherent memory holding operator descriptors, see struct npu_job. */
struct npu_op_chunk {
	void *cpu;
	dma_addr_t dma;
	size_t size;
};

/**
 * struct npu_job - one submitted batch, alive until the card completes it
 * @link: in npu_stream.jobs, then in npu_stream.job_pool if @pooled
 * @pooled: sized for a small batch, the pool's size, and reused
 * @seqno: value of the stream's slot once the batch is done
 * @bytes: bytes the batch copies or fills
 * @bos: buffers the batch uses, referenced
 * @nbos: number of @bos
 * @pins: user memory the batch uses, pinned
 * @npins: number of @pins
 * @sg: scatter-gather tables of the batch, in coherent memory
 * @sg_dma: bus address of @sg
 * @sg_count: entries of @sg
 * @event_slots: slots the batch writes, failed with the stream
 * @nevents: number of @event_slots
 * @waits: slots the batch waits on, which fail it if they fail
 * @nwaits: number of @waits
 * @programs: programs the batch runs (DRM_NPU_OP_PROGRAM), referenced
 * @nprograms: number of @programs
 * @program_edits: the batch's DRM_NPU_OP_SET_CALLs: the programs whose
 *	CALLs they rewrite and the new callees, referenced
 * @nprogram_edits: number of @program_edits
 * @ops: chunks of checked copies of the batch's operator descriptors,
 *	which the card reads, in coherent memory that userspace cannot reach
 * @ops_one: the chunk, when one is enough
 * @ops_count: chunks of @ops allocated
 * @ops_cur: the chunk being filled
 * @ops_used: bytes of it filled so far
 * @ops_pooled: @ops is a block of npu_device.op_desc_pool
 */
struct npu_job {
	struct list_head link;
	bool pooled;
	u64 seqno;
	u64 bytes;
	struct drm_gem_object **bos;
	unsigned int nbos;
	struct npu_pin *pins;
	unsigned int npins;
	struct npu_sg_entry *sg;
	dma_addr_t sg_dma;
	unsigned int sg_count;
	u32 *event_slots;
	unsigned int nevents;
	struct npu_slot_wait *waits;
	unsigned int nwaits;
	struct npu_program **programs;
	unsigned int nprograms;
	struct npu_program_edit **program_edits;
	unsigned int nprogram_edits;
	struct npu_op_chunk *ops;
	struct npu_op_chunk ops_one;
	unsigned int ops_count;
	unsigned int ops_cur;
	size_t ops_used;
	bool ops_pooled;
};

/**
 * struct npu_bo - a buffer: device memory, or pinned host memory
 * @base: the shmem object for host buffers; only its GEM part for device
 * @owner: id of the context that created it, the only one that may use it;
 *	an id, not a pointer: a buffer can outlive its context (GEM flink)
 *	and a pointer can be reused by a later context
 * @node: place in device memory (device buffers)
 * @sgt: DMA mapping of the pages (host buffers)
 * @bind_handle: the handle that is its binding for direct rings, 0: none;
 *	written under npu_ctx.direct_lock of its owner, read locklessly
 * @bind_sg: for a host buffer, its pages as the card's scatter-gather
 *	table, which its binding names; mapped for the card with the buffer
 * @bind_sg_dma: bus address of @bind_sg
 * @bind_sg_count: entries of @bind_sg
 * @vm_backing: how its memory is mapped in address spaces (npu_vm.h)
 * @vm_windows: the contexts that have a device buffer mapped at its
 *	address (npu_vm.c); under npu_vm_card.lock
 */
struct npu_bo {
	struct drm_gem_shmem_object base;
	u64 owner;
	struct drm_mm_node node;
	struct sg_table *sgt;
	u32 bind_handle;
	struct npu_sg_entry *bind_sg;
	dma_addr_t bind_sg_dma;
	u32 bind_sg_count;
	const struct npu_vm_backing *vm_backing;
	struct list_head vm_windows;
};

static inline struct npu_device *to_npu_device(struct drm_device *drm)
{
	return container_of(drm, struct npu_device, drm);
}

static inline struct pci_dev *npu_pdev(struct npu_device *ndev)
{
	return to_pci_dev(ndev->drm.dev);
}

static inline u32 npu_rd32(struct npu_device *ndev, u32 reg)
{
	return readl(ndev->regs + reg);
}

static inline u64 npu_rd64(struct npu_device *ndev, u32 reg)
{
	return lo_hi_readq(ndev->regs + reg);
}

static inline void npu_wr32(struct npu_device *ndev, u32 reg, u32 val)
{
	writel(val, ndev->regs + reg);
}

static inline void npu_ring_doorbell(struct npu_device *ndev, u32 vector)
{
	writel(NPU_DOORBELL(ndev->id.doorbell_id, vector),
	       ndev->doorbell + NPU_BAR0_DOORBELL);
}

/**
 * npu_ring_space - free command slots of a ring
 * @ring: a started ring; the caller holds drm_dev_enter()
 *
 * Inline: every submission asks.
 *
 * Return: slots the driver may fill before the card catches up.
 */
static inline u32 npu_ring_space(struct npu_ring *ring)
{
	/* The card's copy of HEAD, in memory: no register read. */
	u32 head = le32_to_cpu(READ_ONCE(ring->shadow->head));

	return ring->entries - (READ_ONCE(ring->tail) - head);
}

/* The card runs no ring: it is dead, or a card reset stopped them all. */
static inline bool npu_rings_stopped(struct npu_device *ndev)
{
	return READ_ONCE(ndev->dead) || READ_ONCE(ndev->rings_stopped);
}

/* What a work ioctl of a context answers once a card reset lost it. */
static inline int npu_ctx_lost_error(struct npu_ctx *ctx)
{
	return READ_ONCE(ctx->lost) ? -ECANCELED : 0;
}

extern unsigned int npu_hang_timeout_ms;
extern unsigned int npu_heartbeat_timeout_ms;

/* npu_card.c */
int npu_card_probe_identity(struct npu_device *ndev);
int npu_card_reset(struct npu_device *ndev);
int npu_card_wait_ctrl_clear(struct npu_device *ndev, u32 reg, u32 bits);
int npu_card_inject_fault(struct npu_device *ndev, u32 ring, u32 kind, u32 arg);
void npu_heartbeat_start(struct npu_device *ndev);
bool npu_card_heartbeat_stale(struct npu_device *ndev);
void npu_card_fail_all(struct npu_device *ndev, u32 error);
void npu_card_declare_dead(struct npu_device *ndev);
void npu_heartbeat_restart(struct npu_device *ndev);

/* npu_reset.c */
int npu_reset_card(struct npu_device *ndev, u32 reason);
void npu_reset_hung_ring(struct npu_ring *ring);
bool npu_reset_heartbeat_lost(struct npu_device *ndev, unsigned long seen);
int npu_reset_stream_create_begin(struct npu_ctx *ctx);
void npu_reset_stream_create_end(struct npu_ctx *ctx);
void npu_reset_init(struct npu_device *ndev);
void npu_reset_fini(struct npu_device *ndev);
extern struct device_attribute dev_attr_reset;
extern struct device_attribute dev_attr_reset_count;
extern struct device_attribute dev_attr_last_reset_reason;

/* npu_ring.c */
int npu_rings_init(struct npu_device *ndev);
struct npu_ring *npu_ring_claim(struct npu_device *ndev);
void npu_ring_release(struct npu_ring *ring);
void npu_ring_attach(struct npu_ring *ring, struct npu_stream *stream);
int npu_ring_start(struct npu_ring *ring, u32 entries, u32 priority);

/**
 * struct npu_ring_direct - what a direct ring is enabled with
 * @area: the pages userspace writes, referenced by the ring from then on
 * @cmds: the commands in @area
 * @cmds_dma: their bus address
 * @shadow_dma: bus address of the control page, the card's user shadow
 * @binds_dma: the binding table
 * @slots_dma: the fence slots
 * @irq_dma: their interrupt words
 * @nslots: number of slots
 */
struct npu_ring_direct {
	struct npu_direct_area *area;
	void *cmds;
	dma_addr_t cmds_dma;
	dma_addr_t shadow_dma;
	dma_addr_t binds_dma;
	dma_addr_t slots_dma;
	dma_addr_t irq_dma;
	u32 nslots;
};

int npu_ring_start_direct(struct npu_ring *ring, u32 entries, u32 priority,
			  const struct npu_ring_direct *direct);
int npu_ring_reset(struct npu_ring *ring);
int npu_ring_stop(struct npu_ring *ring);
void npu_rings_reclaim(struct npu_device *ndev);
void npu_rings_restore_shadows(struct npu_device *ndev);
void npu_rings_free_all(struct npu_device *ndev);
void npu_ring_push(struct npu_ring *ring, const struct npu_cmd *cmds,
		   unsigned int count);
u32 npu_ring_rd32(struct npu_ring *ring, u32 reg);
u64 npu_ring_rd64(struct npu_ring *ring, u32 reg);
u32 npu_ring_status(struct npu_ring *ring);
u32 npu_ring_error(struct npu_ring *ring);
void npu_ring_irq(struct npu_device *ndev, u32 vector);

/* npu_gem.c */
struct drm_gem_object *npu_gem_create_object(struct drm_device *dev, size_t size);
bool npu_bo_is_host(struct drm_gem_object *obj);
bool npu_bo_is_device(struct drm_gem_object *obj);
u64 npu_device_bo_offset(struct drm_gem_object *obj);
u64 npu_bo_size(struct drm_gem_object *obj);
struct drm_gem_object *npu_device_bo_lookup(struct npu_ctx *ctx, u64 addr,
					    u64 size, u64 *offset);
struct drm_gem_object *npu_host_bo_lookup(struct npu_ctx *ctx, u32 handle);
struct sg_table *npu_host_bo_sgt(struct drm_gem_object *obj);
int npu_bo_create_ioctl(struct drm_device *dev, void *data, struct drm_file *file);

/* npu_userptr.c */
bool npu_bo_is_userptr(struct drm_gem_object *obj);
bool npu_userptr_of(struct npu_ctx *ctx, struct drm_gem_object *obj);
bool npu_userptr_writable(struct drm_gem_object *obj);
struct sg_table *npu_userptr_sgt(struct drm_gem_object *obj);
int npu_bo_userptr_ioctl(struct drm_device *dev, void *data, struct drm_file *file);

/* npu_ctx.c */
int npu_open(struct drm_device *dev, struct drm_file *file);
void npu_postclose(struct drm_device *dev, struct drm_file *file);

/* npu_fence.c */
int npu_fence_init(struct npu_ctx *ctx, struct drm_file *file);
void npu_fence_fini(struct npu_ctx *ctx, struct drm_file *file);
void npu_fence_unmap_all(struct npu_device *ndev);
struct drm_npu_fence_slot *npu_ctx_slot(struct npu_ctx *ctx, u32 slot);
dma_addr_t npu_ctx_slot_dma(struct npu_ctx *ctx, u32 slot);
dma_addr_t npu_ctx_slot_irq_dma(struct npu_ctx *ctx, u32 slot);
void npu_ctx_slot_irq_get(struct npu_ctx *ctx, u32 slot);
void npu_ctx_slot_irq_put(struct npu_ctx *ctx, u32 slot);
int npu_ctx_slot_alloc(struct npu_ctx *ctx, bool event);
void npu_ctx_slot_free(struct npu_ctx *ctx, u32 slot);
bool npu_ctx_slot_valid(struct npu_ctx *ctx, u32 slot, bool event_only);
u32 npu_ctx_free_slots(struct npu_ctx *ctx);
bool npu_ctx_wait_failed(struct npu_ctx *ctx, const struct npu_slot_wait *wait);
int npu_wait_ioctl(struct drm_device *dev, void *data, struct drm_file *file);
int npu_slot_alloc_ioctl(struct drm_device *dev, void *data, struct drm_file *file);
int npu_slot_free_ioctl(struct drm_device *dev, void *data, struct drm_file *file);
int npu_slot_signal_ioctl(struct drm_device *dev, void *data, struct drm_file *file);

/* npu_stream.c */
struct npu_stream *npu_stream_get(struct npu_ctx *ctx, u32 id);
void npu_stream_put(struct npu_stream *stream);
void npu_stream_destroy(struct npu_stream *stream, bool abort);
void npu_stream_fail(struct npu_stream *stream, u32 error);
void npu_stream_release_stopped(struct npu_stream *stream);
void npu_ctx_propagate_work(struct work_struct *work);
void npu_stream_irq(struct npu_stream *stream);
void npu_stream_update(struct npu_stream *stream);
void npu_stream_retire_completed(struct npu_stream *stream);
void npu_ctx_retire(struct npu_ctx *ctx);
void npu_ctx_retire_for_waiter(struct npu_ctx *ctx);
void npu_stream_add_job(struct npu_stream *stream, struct npu_job *job);
const char *npu_stream_state_name(struct npu_stream *stream);
int npu_stream_create_ioctl(struct drm_device *dev, void *data, struct drm_file *file);
int npu_stream_destroy_ioctl(struct drm_device *dev, void *data, struct drm_file *file);

/* npu_job.c */
void npu_job_free(struct npu_device *ndev, struct npu_job *job);
void npu_jobs_recycle(struct npu_stream *stream, struct list_head *jobs);
void npu_job_pool_set_spare(struct npu_stream *stream);
void npu_job_pool_fini(struct npu_stream *stream);
void npu_job_hold(struct npu_job *job, struct drm_gem_object *obj);
struct npu_job *npu_job_alloc(struct npu_device *ndev, unsigned int count,
			      unsigned int ops);
int npu_submit_ioctl(struct drm_device *dev, void *data, struct drm_file *file);

/* npu_compute.c */

/**
 * struct npu_compute_plan - what the operators of a batch need
 * @ops: COMPUTE commands in the batch
 * @bytes: room for their descriptors, each 64-byte aligned
 */
/*
 * What a batch's operators need: @ops descriptors packed into @chunks
 * chunks, the last one @last bytes long.
 */
struct npu_compute_plan {
	unsigned int ops;
	unsigned int chunks;
	size_t last;
};

int npu_compute_probe(struct npu_device *ndev);
int npu_compute_param(struct npu_device *ndev, u32 param, u64 *value);
int npu_compute_plan(struct npu_device *ndev, const struct drm_npu_cmd *ucmds,
		     unsigned int count, struct npu_compute_plan *plan);
int npu_compute_job_init(struct npu_device *ndev, struct npu_job *job,
			 const struct npu_compute_plan *plan);
void npu_compute_job_fini(struct npu_device *ndev, struct npu_job *job);
int npu_compute_build(struct npu_ctx *ctx, struct npu_job *job,
		      struct npu_cmd *hw, const struct drm_npu_cmd *uc);
void npu_compute_sample(struct npu_stream *stream);
void npu_compute_show_fdinfo(struct drm_printer *p, struct npu_ctx *ctx);

int npu_job_build_program(struct npu_ctx *ctx, struct npu_job *job,
			  const struct npu_compute_plan *plan,
			  struct npu_program_build *program,
			  const struct drm_npu_cmd *ucmds, unsigned int count,
			  struct npu_cmd *hw);

/* npu_program.c */
void npu_program_ctx_init(struct npu_ctx *ctx);
void npu_program_ctx_fini(struct npu_ctx *ctx);
void npu_program_put(struct npu_program *program);
int npu_program_build_control(struct npu_program_build *build,
			      const struct drm_npu_cmd *ucmds, unsigned int count,
			      unsigned int i, struct npu_cmd *hw);
int npu_program_build_submit(struct npu_ctx *ctx, struct npu_job *job,
			     struct npu_cmd *hw, const struct drm_npu_cmd *uc);
void npu_job_set_program_events(struct npu_ctx *ctx, struct npu_job *job, u32 error);
void npu_job_commit_program_edits(struct npu_stream *stream, struct npu_job *job);
bool npu_job_programs_wait_on_failure(struct npu_ctx *ctx, struct npu_job *job);
void npu_program_edit_free(struct npu_program_edit *edit);
int npu_program_create_ioctl(struct drm_device *dev, void *data, struct drm_file *file);
int npu_program_destroy_ioctl(struct drm_device *dev, void *data, struct drm_file *file);

/* npu_direct.c */
int npu_direct_prepare_host_bo(struct npu_device *ndev, struct npu_bo *bo);
void npu_direct_release_host_bo(struct npu_device *ndev, struct npu_bo *bo);
void npu_direct_bind(struct npu_ctx *ctx, u32 handle, struct npu_bo *bo);
void npu_direct_bo_close(struct drm_gem_object *obj, struct drm_file *file);
int npu_direct_stream_start(struct npu_stream *stream, u32 entries);
void npu_direct_stream_stop(struct npu_stream *stream);
void npu_direct_ctx_stop(struct npu_ctx *ctx);
void npu_direct_unmap_all(struct npu_device *ndev);
void npu_direct_area_put(struct npu_direct_area *area);
u32 npu_direct_ring_tail(struct npu_ring *ring);
void npu_direct_fail_events(struct npu_stream *stream, u32 error);
int npu_stream_map_ioctl(struct drm_device *dev, void *data, struct drm_file *file);
int npu_stream_kick_ioctl(struct drm_device *dev, void *data, struct drm_file *file);

/* npu_peer.c */
struct dma_buf *npu_prime_export(struct drm_gem_object *obj, int flags);
struct drm_gem_object *npu_prime_dmabuf_bo(struct dma_buf *dmabuf);
struct drm_gem_object *npu_gem_prime_import(struct drm_device *dev, struct dma_buf *dmabuf);
bool npu_bo_is_peer(struct drm_gem_object *obj);
void npu_peer_bo_place(struct drm_gem_object *obj, u64 *serial, u64 *card_offset);
int npu_peer_init(struct npu_device *ndev);
void npu_peer_reset(struct npu_device *ndev);
extern struct device_attribute dev_attr_peer_windows_open;

/* npu_share.c */
int npu_share_bo_open(struct drm_gem_object *obj, struct drm_file *file);
int npu_share_prime_fd_to_handle(struct drm_device *dev, struct drm_file *file,
				 int fd, u32 *handle);
bool npu_share_imported(struct drm_gem_object *obj, u64 ctx_id);
void npu_share_bo_close(struct drm_gem_object *obj, struct drm_file *file);
void npu_share_ctx_close(struct npu_ctx *ctx);
int npu_bo_export_ioctl(struct drm_device *dev, void *data, struct drm_file *file);
int npu_bo_export_ctl_ioctl(struct drm_device *dev, void *data, struct drm_file *file);
int npu_bo_import_ioctl(struct drm_device *dev, void *data, struct drm_file *file);

/* npu_irq.c */
int npu_irq_init(struct npu_device *ndev);

/* npu_selftest.c */
int npu_selftest(struct npu_device *ndev);

/* npu_sysfs.c */
extern const struct attribute_group *npu_card_groups[];
int npu_sysfs_init(struct npu_device *ndev);
void npu_sysfs_fini(struct npu_device *ndev);
void npu_sysfs_stream_add(struct npu_stream *stream);
void npu_sysfs_stream_remove(struct npu_stream *stream);

/* npu_exclusive.c */
extern struct device_attribute dev_attr_exclusive;
int npu_exclusive_admit(struct npu_device *ndev, pid_t tgid);

/* npu_health.c; its files are in the card's npu/ group */
int npu_health_init(struct npu_device *ndev);
void npu_health_card_reset(struct npu_device *ndev);
extern struct device_attribute npu_attr_health, npu_attr_health_reasons,
	npu_attr_util_copy, npu_attr_util_compute, npu_attr_ecc_corrected,
	npu_attr_ecc_uncorrected;

/* npu_hwmon.c */
int npu_hwmon_init(struct npu_device *ndev);

/* npu_debugfs.c */
void npu_debugfs_init(struct npu_device *ndev);

#endif /* __NPU_DRV_H__ */
