/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * Register and command interface of the NPU card.
 *
 * This header is the card's published programming interface.  The kernel
 * driver and the emulated card (card/) both include it, so it uses only the
 * fixed-width types of <linux/types.h>.  docs/hardware.md explains the
 * protocol in prose; this file is the authoritative table.
 *
 * BAR0: doorbell.  Writing (NPU_ID_DOORBELL_ID << 16 | vector) to
 *       NPU_BAR0_DOORBELL wakes the card's engine that serves that vector.
 * BAR2: a 64 KiB register window followed by the card's device memory.
 * MSI-X: vector 0 signals global events, vectors 1..N-1 serve rings.
 *
 * Every multi-byte register and command field is little endian.
 */
#ifndef NPU_HW_H
#define NPU_HW_H

#include <linux/types.h>

#include "npu_operator.h"

#define NPU_PCI_VENDOR_ID		0x1af4
#define NPU_PCI_DEVICE_ID		0x1110

#define NPU_BAR_DOORBELL		0
#define NPU_BAR_CARD			2

/* BAR0 */
#define NPU_BAR0_DOORBELL		0x0c
#define NPU_DOORBELL(id, vector)	(((__u32)(id) << 16) | ((vector) & 0xffff))

#define NPU_MAGIC			0x3155504e	/* "NPU1" */
#define NPU_VERSION_MAJOR		2
/*
 * 1: ring shadows, NPU_CMD_IRQ_IF; 2: direct rings; 3: COMPUTE on them;
 * 4: programs; 5: telemetry, the MMU
 */
#define NPU_VERSION_MINOR		5
#define NPU_VERSION			((NPU_VERSION_MAJOR << 16) | NPU_VERSION_MINOR)

/* BAR2 window layout */
#define NPU_REG_WINDOW_SIZE		0x10000
#define NPU_RING_REGS_BASE		0x1000
#define NPU_RING_REGS_STRIDE		0x80
#define NPU_MAX_RINGS			((NPU_REG_WINDOW_SIZE - NPU_RING_REGS_BASE) / \
					 NPU_RING_REGS_STRIDE)

/* Identity, read-only */
#define NPU_ID_MAGIC			0x000	/* u32: NPU_MAGIC */
#define NPU_ID_VERSION			0x004	/* u32: major << 16 | minor */
#define NPU_ID_NUM_RINGS		0x008	/* u32 */
#define NPU_ID_NUM_COPY_ENGINES		0x00c	/* u32: DMA transfers in flight at once */
#define NPU_ID_NUM_VECTORS		0x010	/* u32: MSI-X vectors, vector 0 included */
#define NPU_ID_DOORBELL_ID		0x014	/* u32: upper half of a doorbell write */
#define NPU_ID_DEVMEM_OFFSET		0x018	/* u64: device memory offset in BAR2 */
#define NPU_ID_DEVMEM_SIZE		0x020	/* u64: bytes of device memory */
#define NPU_ID_MAX_RING_ENTRIES		0x028	/* u32: largest NPU_RING_SIZE */
#define NPU_ID_CMD_SIZE			0x02c	/* u32: sizeof(struct npu_cmd) */
#define NPU_ID_HEARTBEAT_PERIOD_US	0x030	/* u32: HEARTBEAT advances this often */
#define NPU_ID_FW_VERSION		0x034	/* u32: major << 16 | minor */
#define NPU_ID_SERIAL			0x038	/* u64 */

/* Compute capabilities, read-only (see "Operators" below) */
#define NPU_ID_NUM_COMPUTE_ENGINES	0x080	/* u32: operators running at once */
#define NPU_ID_OPLIB_VERSION		0x084	/* u32: operator library, major << 16 | minor */
#define NPU_ID_OPERATORS		0x088	/* u64: bit n set: enum npu_operator n runs */
#define NPU_ID_DTYPES			0x090	/* u32: bit n set: enum npu_dtype n supported */
#define NPU_ID_OP_DESC_MAX		0x094	/* u32: largest operator descriptor, bytes */

/*
 * MSI-X vectors of the emulated card unless npu-card is given --vectors.
 * The card, its host test client and QEMU's ivshmem device must agree on
 * it; this header is what the first two share, and tools/vm-run asks the
 * card (npu-card --print-vectors).  A driver must not use it: it reads
 * NPU_ID_NUM_VECTORS, which is what a card really has.
 */
#define NPU_DEFAULT_NUM_VECTORS		65	/* control + one per default ring */

/* Global control and status */
#define NPU_GLB_CTRL			0x040	/* u32, RW */
#define   NPU_GLB_CTRL_RESET		0x1	/* self-clearing, via control doorbell */
#define NPU_GLB_STATUS			0x044	/* u32, RO */
#define   NPU_GLB_STATUS_READY		0x1
#define NPU_GLB_ERROR			0x048	/* u32, RO: NPU_GLB_ERR_*, cleared by reset */
#define   NPU_GLB_ERR_INTERNAL		0x1	/* the card failed an internal check */
#define NPU_GLB_HEARTBEAT		0x050	/* u64, RO: advances while the card is alive */
#define NPU_GLB_CLOCK_NS		0x058	/* u64, RO: ns, refreshed each heartbeat */

/*
 * Doorbells and interrupts on demand (docs/hardware.md).  SHADOW_BASE is
 * the bus address of NUM_RINGS struct npu_ring_shadow in host memory,
 * 64-byte aligned, or 0 for none; each ring latches its own at ENABLE.  A
 * global reset sets it to 0.
 */
#define NPU_SHADOW_BASE			0x0c0	/* u64, RW */

/*
 * Fault injection (a debug feature of the card, used to test error paths).
 * Write RING, KIND and ARG, then NPU_INJ_CTRL_GO and ring the control
 * doorbell; the card clears GO when the fault is armed.
 */
#define NPU_INJ_RING			0x100	/* u32 */
#define NPU_INJ_KIND			0x104	/* u32: enum npu_fault */
#define NPU_INJ_ARG			0x108	/* u32 */
#define NPU_INJ_CTRL			0x10c	/* u32 */
#define   NPU_INJ_CTRL_GO		0x1

enum npu_fault {
	NPU_FAULT_CLEAR = 0,		/* disarm every fault of the ring */
	NPU_FAULT_HANG_RING = 1,	/* the ring stops fetching until reset */
	NPU_FAULT_FAIL_DMA = 2,		/* the ring's next transfer fails */
	NPU_FAULT_DELAY = 3,		/* ARG microseconds before each command */
	NPU_FAULT_DROP_IRQ = 4,		/* drop the ring's next ARG interrupts */
	NPU_FAULT_STOP_HEARTBEAT = 5,	/* the whole card dies until global reset */
	NPU_FAULT_STUCK_RESET = 6,	/* the ring ignores RESET until global reset */
	NPU_FAULT_FAIL_OP = 7,		/* the ring's next operator fails */
	NPU_FAULT_HANG_OP = 8,		/* the ring's next operator never ends, until reset */
	/* card-wide, RING ignored (see "Telemetry" below) */
	NPU_FAULT_OVER_TEMP = 9,	/* TEL_TEMP reads ARG degrees C; ARG 0: the model again */
	NPU_FAULT_ECC_CORRECTED = 10,	/* TEL_ECC_CORRECTED grows by ARG */
	NPU_FAULT_ECC_UNCORRECTED = 11,	/* TEL_ECC_UNCORRECTED grows by ARG */
};

#define NPU_FAULT_LAST			NPU_FAULT_ECC_UNCORRECTED
#define NPU_FAULT_OVER_TEMP_MAX_C	1000	/* larger ARGs are ignored */

/*
 * Telemetry, read-only, refreshed every heartbeat (docs/hardware.md,
 * "Telemetry").  Temperatures are signed milli-degrees Celsius.  The busy
 * counters add up every engine of the kind: busy time over a window,
 * divided by the window and the engine count, is the kind's utilization;
 * SAMPLE_NS is CLOCK_NS when they were taken.  Busy and error counters
 * count from power-on: a global reset leaves them alone.
 */
#define NPU_TEL_TEMP			0x200	/* s32: milli-degrees C */
#define NPU_TEL_TEMP_WARN		0x204	/* s32: the card wants cooling above this */
#define NPU_TEL_TEMP_CRIT		0x208	/* s32: the card may be damaged above this */
#define NPU_TEL_POWER_MW		0x20c	/* u32: power draw, averaged over ~100 ms */
#define NPU_TEL_POWER_MAX_MW		0x210	/* u32: draw with every engine busy */
#define NPU_TEL_CLOCK_KHZ		0x214	/* u32: core clock */
#define NPU_TEL_SAMPLE_NS		0x218	/* u64 */
#define NPU_TEL_COPY_BUSY_NS		0x220	/* u64 */
#define NPU_TEL_COMPUTE_BUSY_NS		0x228	/* u64 */
#define NPU_TEL_ECC_CORRECTED		0x230	/* u64: device memory errors corrected */
#define NPU_TEL_ECC_UNCORRECTED		0x238	/* u64: and not correctable */

/*
 * The MMU (docs/hardware.md, "The MMU"): per address space, page tables
 * in host memory that the driver owns.  Sv39-like: a 39-bit virtual
 * address, 4 KiB pages, three levels of 512 little-endian u64 entries, a
 * table one 4 KiB page at a bus address.  VA bits 38..30 index the root,
 * 29..21 the middle table, 20..12 the bottom one.  A middle entry may be
 * a 2 MiB leaf, a root entry a 1 GiB leaf (address aligned to the size).
 *
 * Commands: write the operands, then CMD and CMD_CTRL = GO, and ring the
 * control doorbell; the card clears GO when the command is done and puts
 * its outcome in CMD_STATUS.  An INVALIDATE is done when no access, of a
 * command started before it or after, uses a translation it dropped.
 * The card may cache any entry, valid or not, until it is invalidated.
 */
#define NPU_MMU_NUM_AS			0x300	/* u32, RO: address spaces 1..NUM_AS */
#define NPU_MMU_VA_BITS			0x304	/* u32, RO: 39 */
#define NPU_MMU_PAGE_SHIFT		0x308	/* u32, RO: 12 */
#define NPU_MMU_NUM_PEERS		0x30c	/* u32, RO: peer windows 0..NUM_PEERS-1 */
#define NPU_MMU_CMD			0x310	/* u32, RW: enum npu_mmu_cmd */
#define NPU_MMU_CMD_INDEX		0x314	/* u32, RW: the address space, or the peer window */
#define NPU_MMU_CMD_ADDR		0x318	/* u64, RW: SET_ROOT: root table; INVALIDATE: VA */
#define NPU_MMU_CMD_SIZE		0x320	/* u64, RW: INVALIDATE: bytes */
#define NPU_MMU_CMD_CTRL		0x328	/* u32, RW, via control doorbell */
#define   NPU_MMU_CMD_CTRL_GO		0x1
#define NPU_MMU_CMD_STATUS		0x32c	/* u32, RO: the last command's npu_mmu_status */
#define NPU_MMU_PEER_OPEN		0x330	/* u32, RO: bit i set: window i open */
#define NPU_MMU_PEER_SERIAL(i)		(0x340 + (i) * 8)	/* u64, RW: the peer's SERIAL */
#define NPU_MMU_PEER_SIZE(i)		(0x380 + (i) * 8)	/* u64, RO: its devmem, 0: closed */
#define NPU_MMU_MAX_PEERS		8	/* room for the registers above */

enum npu_mmu_cmd {
	NPU_MMU_SET_ROOT = 1,		/* INDEX: AS; ADDR: root table's bus address, 0: none */
	NPU_MMU_INVALIDATE = 2,		/* INDEX: AS; [ADDR, ADDR + SIZE) */
	NPU_MMU_INVALIDATE_ALL = 3,	/* INDEX: AS */
	NPU_MMU_OPEN_PEER = 4,		/* INDEX: window; the card of PEER_SERIAL(INDEX) */
	NPU_MMU_CLOSE_PEER = 5,		/* INDEX: window */
};

enum npu_mmu_status {
	NPU_MMU_OK = 0,
	NPU_MMU_BAD_CMD = 1,		/* unknown command, index or unaligned operand */
	NPU_MMU_NO_PEER = 2,		/* OPEN_PEER: no card of that serial reachable */
	NPU_MMU_NO_ROOM = 3,		/* the card could not take the address space on */
};

/* A page table entry. */
#define NPU_PTE_VALID			0x1ULL
#define NPU_PTE_LEAF			0x2ULL	/* else: the next table's address */
#define NPU_PTE_WRITE			0x4ULL	/* leaf: writable */
#define NPU_PTE_TARGET_SHIFT		4		/* leaf: enum npu_pte_target */
#define NPU_PTE_TARGET_MASK		(3ULL << NPU_PTE_TARGET_SHIFT)
#define NPU_PTE_PEER_SHIFT		6		/* leaf, TARGET_PEER: the window */
#define NPU_PTE_PEER_MASK		(0xfULL << NPU_PTE_PEER_SHIFT)
#define NPU_PTE_ADDR_MASK		(~0xfffULL)
#define NPU_PTE_TARGET(t)		((__u64)(t) << NPU_PTE_TARGET_SHIFT)
#define NPU_PTE_PEER(i)			((__u64)(i) << NPU_PTE_PEER_SHIFT)

enum npu_pte_target {
	NPU_PTE_DEVICE = 0,		/* address: offset in this card's device memory */
	NPU_PTE_HOST = 1,		/* address: host bus address */
	NPU_PTE_PEER_MEM = 2,		/* address: offset in the window's peer's device memory */
};

#define NPU_MMU_PAGE_SIZE		4096
#define NPU_MMU_LEVELS			3
#define NPU_MMU_ENTRIES			512

/* Per-ring registers: NPU_RING_REG(ring, NPU_RING_*) is the BAR2 offset. */
#define NPU_RING_REG(ring, reg)		(NPU_RING_REGS_BASE + \
					 (ring) * NPU_RING_REGS_STRIDE + (reg))

#define NPU_RING_BASE			0x00	/* u64, RW: DMA address, 64-byte aligned */
#define NPU_RING_SIZE			0x08	/* u32, RW: entries, power of two >= 2 */
#define NPU_RING_VECTOR			0x0c	/* u32, RW: 1..NUM_VECTORS-1 */
#define NPU_RING_TAIL			0x10	/* u32, RW: free-running, driver-owned */
#define NPU_RING_HEAD			0x14	/* u32, RO: free-running, card-owned */
#define NPU_RING_CTRL			0x18	/* u32, RW, via control doorbell */
#define   NPU_RING_CTRL_ENABLE		0x1
#define   NPU_RING_CTRL_RESET		0x2	/* self-clearing; clears ENABLE too */
#define NPU_RING_STATUS			0x1c	/* u32, RO: enum npu_ring_state */
#define NPU_RING_ERROR			0x20	/* u32, RO: enum npu_error */
#define NPU_RING_ERROR_INDEX		0x24	/* u32, RO: ring index of the failed command */
#define NPU_RING_CMDS_DONE		0x28	/* u64, RO: commands executed */
#define NPU_RING_BYTES_DONE		0x30	/* u64, RO: bytes copied or filled */
#define NPU_RING_PRIORITY		0x38	/* u32, RW: 0 (first) .. 7, latched at ENABLE */
#define   NPU_RING_PRIORITY_LOWEST	7
#define NPU_RING_OPS_DONE		0x40	/* u64, RO: COMPUTE commands completed */
#define NPU_RING_COMPUTE_NS		0x48	/* u64, RO: ns spent on a compute engine */

/*
 * Direct rings (docs/hardware.md, "Direct rings"): a ring enabled with a
 * non-zero BIND_BASE is written by an unprivileged submitter.  It runs
 * struct npu_direct_cmd, whose operands are buffers of its binding table
 * and slots of its fence array; the card checks each against them.  The
 * five registers are latched at ENABLE; SHADOW_BASE must be set.
 */
#define NPU_RING_BIND_BASE		0x50	/* u64, RW: struct npu_bind_table; 0: privileged */
#define NPU_RING_BIND_COUNT		0x58	/* u32, RW: its entries, 1..NPU_BIND_MAX */
#define NPU_RING_SLOT_COUNT		0x5c	/* u32, RW: fence slots, 1..NPU_SLOT_MAX */
#define NPU_RING_SLOT_BASE		0x60	/* u64, RW: SLOT_COUNT struct npu_slot */
#define NPU_RING_SLOT_IRQ_BASE		0x68	/* u64, RW: SLOT_COUNT u32 interrupt words */
#define NPU_RING_USER_SHADOW		0x70	/* u64, RW: the submitter's npu_ring_shadow */

/*
 * The ring's address space (docs/hardware.md, "The MMU"), latched at
 * ENABLE: 0, untranslated (device addresses are device-memory offsets), or
 * 1..NPU_MMU_NUM_AS.  FAULT_ADDR describes the ring's last page fault
 * (NPU_ERR_PAGE_FAULT): the first virtual address the access could not
 * use, the reason and whether it wrote; a ring reset zeroes it.
 */
#define NPU_RING_AS			0x3c	/* u32, RW */
#define NPU_RING_FAULT_ADDR		0x78	/* u64, RO */
#define   NPU_RING_FAULT_VA_MASK	((1ULL << 48) - 1)
#define   NPU_RING_FAULT_REASON_SHIFT	48	/* 8 bits: enum npu_page_fault */
#define   NPU_RING_FAULT_REASON(v)	(((v) >> NPU_RING_FAULT_REASON_SHIFT) & 0xff)
#define   NPU_RING_FAULT_WRITE		0x8000000000000000ULL

enum npu_page_fault {
	NPU_PF_NONE = 0,
	NPU_PF_UNMAPPED = 1,		/* no valid entry maps the page */
	NPU_PF_READ_ONLY = 2,		/* a write to a leaf without WRITE */
	NPU_PF_MALFORMED = 3,		/* a reserved bit, a misaligned or out-of-range address */
	NPU_PF_PEER_CLOSED = 4,		/* a peer leaf whose window is not open */
};

enum npu_ring_state {
	NPU_RING_DISABLED = 0,
	NPU_RING_IDLE = 1,		/* HEAD == TAIL */
	NPU_RING_RUNNING = 2,
	NPU_RING_WAITING = 3,		/* stalled on a WAIT command */
	NPU_RING_STOPPED = 4,		/* ERROR says why; only RESET restarts */
};

enum npu_error {
	NPU_ERR_NONE = 0,
	NPU_ERR_OPCODE = 1,		/* unknown opcode */
	NPU_ERR_RESERVED = 2,		/* unknown flag or non-zero reserved field */
	NPU_ERR_HOST_ADDR = 3,		/* host range outside host memory */
	NPU_ERR_DEV_ADDR = 4,		/* device range outside device memory */
	NPU_ERR_ALIGN = 5,		/* fence, wait or timestamp address not 8-byte aligned */
	NPU_ERR_SGL = 6,		/* malformed scatter-gather list */
	NPU_ERR_DMA = 7,		/* transfer failed */
	NPU_ERR_RING_CONFIG = 8,	/* BASE, SIZE, VECTOR or PRIORITY invalid at enable */
	NPU_ERR_OPERATOR = 9,		/* unknown operator, or data type or format it lacks */
	NPU_ERR_OP_PARAM = 10,		/* malformed descriptor: attributes or shapes disagree */
	NPU_ERR_OP_FAILED = 11,		/* the operator library failed to run the operator */
	NPU_ERR_ACCESS = 12,		/* direct ring: a binding or slot it may not use */
	NPU_ERR_PROGRAM = 13,		/* malformed program, bad control target, too deep */
	NPU_ERR_PAGE_FAULT = 14,	/* translated ring: see NPU_RING_FAULT_ADDR */
};

/*
 * Commands: 64 bytes each.  A ring is SIZE consecutive commands at BASE;
 * the card executes the command at HEAD % SIZE while HEAD != TAIL.
 * Addresses are device-memory offsets unless the command's flag marks them
 * as host (bus) addresses.
 */
enum npu_opcode {
	NPU_OP_NOP = 0,
	NPU_OP_COPY = 1,
	NPU_OP_FILL = 2,
	NPU_OP_FENCE = 3,
	NPU_OP_WAIT = 4,
	NPU_OP_TIMESTAMP = 5,
	NPU_OP_COMPUTE = 6,
	/* Programs (see "Programs" below) */
	NPU_OP_CALL = 7,		/* src: a struct npu_program_desc, run whole */
	NPU_OP_JUMP = 8,		/* in a program: go on at command value */
	NPU_OP_BRANCH = 9,		/* in a program: to value if *dst arg *src */
	NPU_OP_SWITCH = 10,		/* in a program: *dst picks one of value JUMPs */
	NPU_OP_ACTIVATE = 11,		/* in a program: queue the thread at value */
	NPU_OP_END = 12,		/* in a program: the run is over */
	NPU_OP_RETURN = 13,		/* in a program: this thread is over */
};

#define NPU_CMD_IRQ			0x0001	/* raise the ring's vector when done */
#define NPU_CMD_SRC_HOST		0x0002	/* src is a host address */
#define NPU_CMD_DST_HOST		0x0004	/* dst is a host address */
#define NPU_CMD_SRC_SGL			0x0008	/* src is a host npu_sg_entry table */
#define NPU_CMD_DST_SGL			0x0010	/* dst is a host npu_sg_entry table */
#define NPU_CMD_FENCE_TIME		0x0020	/* FENCE also writes CLOCK_NS at addr + 8 */
#define NPU_CMD_IRQ_IF			0x0040	/* FENCE: IRQ if the host u32 at src != 0 */
#define NPU_CMD_VALUE_INDIRECT		0x0080	/* FENCE, WAIT: value is its device word */
#define NPU_CMD_SRC_IMM			0x0100	/* BRANCH: src is the operand itself */

enum npu_wait_cond {
	NPU_WAIT_GEQ = 0,		/* (__s64)(*addr - value) >= 0 */
	NPU_WAIT_EQ = 1,		/* *addr == value */
	NPU_WAIT_AND = 2,		/* (*addr & value) != 0 */
	NPU_WAIT_NOR = 3,		/* ~(*addr | value) != 0 */
};

struct npu_cmd {
	__le16 opcode;
	__le16 flags;
	__le32 arg;	/* FILL: byte value; WAIT: npu_wait_cond; else 0 */
	__le64 dst;	/* COPY, FILL; FENCE, TIMESTAMP, WAIT: the 8-byte word */
	__le64 src;	/* COPY; COMPUTE: the npu_op_desc; FENCE + IRQ_IF: the u32 */
	__le64 size;	/* COPY, FILL: bytes; COMPUTE: bytes of the descriptor */
	__le64 value;	/* FENCE: value written; WAIT: operand */
	__le32 src_sg_count;	/* entries of a SRC_SGL table */
	__le32 dst_sg_count;	/* entries of a DST_SGL table */
	__le64 rsvd[2];
};

/* BRANCH: *dst compared, signed, with the operand */
enum npu_branch_cond {
	NPU_BRANCH_EQ = 0,
	NPU_BRANCH_NE = 1,
	NPU_BRANCH_GT = 2,
	NPU_BRANCH_GE = 3,
	NPU_BRANCH_LT = 4,
	NPU_BRANCH_LE = 5,
};

/*
 * Programs.  CALL's src is the host address, 64-byte aligned, of a
 * program descriptor: the number of commands and the host addresses of
 * the chunks holding them, NPU_PROGRAM_CHUNK_CMDS commands each (the last
 * one fewer), each chunk 64-byte aligned.  The card reads the descriptor
 * at every CALL and each command as it reaches it, checked as a ring's.
 * Inside a program, command indexes name the targets of JUMP, BRANCH,
 * ACTIVATE; a CALL there nests, at most NPU_PROGRAM_MAX_DEPTH programs
 * deep counting the one the ring CALLed.  docs/hardware.md, "Programs".
 */
#define NPU_PROGRAM_MAX_CMDS		65536
#define NPU_PROGRAM_CHUNK_CMDS		1024
#define NPU_PROGRAM_MAX_CHUNKS		(NPU_PROGRAM_MAX_CMDS / NPU_PROGRAM_CHUNK_CMDS)
#define NPU_PROGRAM_MAX_DEPTH		4
#define NPU_PROGRAM_MAX_ACTIVE		64	/* threads queued by ACTIVATE, per program run */

struct npu_program_desc {
	__le32 count;		/* commands, 1..NPU_PROGRAM_MAX_CMDS */
	__le32 rsvd0;
	__le64 rsvd[7];
	__le64 chunks[];	/* (count + CHUNK_CMDS - 1) / CHUNK_CMDS addresses */
};

/*
 * A ring's shadow, in host memory: the driver publishes its tail there
 * instead of in TAIL, and the card says there whether it still watches
 * the tail (no doorbell needed) and mirrors HEAD.
 */
struct npu_ring_shadow {
	__le32 tail;		/* driver: free-running, replaces NPU_RING_TAIL */
	__le32 head;		/* card: NPU_RING_HEAD, written with it */
	__le32 fetching;	/* card: non-zero while it reads the tail unbidden */
	__le32 rsvd0;
	__le64 bind_epoch;	/* card, direct rings: the epoch a command uses, 0: none */
	__le64 rsvd[5];
};

/*
 * A direct ring's commands.  The opcodes are those of struct npu_cmd:
 * NOP, COPY, FILL, FENCE (value and clock to a slot; an interrupt when
 * the slot's word is non-zero), WAIT (on a slot), TIMESTAMP (the clock
 * to a slot's timestamp) and COMPUTE (the descriptor, its tensors named
 * by binding); any other is NPU_ERR_OPCODE.  flags and the fields an
 * opcode does not use are zero.
 */
struct npu_direct_cmd {
	__le16 opcode;
	__le16 flags;
	__le32 arg;		/* FILL: byte value; WAIT: npu_wait_cond */
	__le32 dst_bind;	/* COPY, FILL: binding; FENCE, WAIT, TIMESTAMP: slot */
	__le32 src_bind;	/* COPY: binding; COMPUTE: the descriptor's */
	__le64 dst;		/* COPY, FILL: offset in the dst binding */
	__le64 src;		/* COPY, COMPUTE: offset in the src binding */
	__le64 size;		/* COPY, FILL: bytes; COMPUTE: the descriptor's */
	__le64 value;		/* FENCE: value written; WAIT: operand */
	__le64 rsvd[2];
};

#define NPU_BIND_MAX			65536
#define NPU_SLOT_MAX			65536

enum npu_bind_kind {
	NPU_BIND_NONE = 0,
	NPU_BIND_DEVICE = 1,		/* addr: device memory offset */
	NPU_BIND_HOST = 2,		/* addr: npu_sg_entry table of sg_count entries */
};

struct npu_binding {
	__le32 kind;		/* enum npu_bind_kind */
	__le32 sg_count;
	__le64 addr;
	__le64 size;		/* bytes of the buffer */
	__le64 rsvd;
};

/*
 * The binding table.  The owner revokes a binding by setting its kind to
 * NONE, then advancing epoch; a command that looks up bindings first
 * stores the epoch it read in its ring's (privileged) shadow bind_epoch,
 * and 0 there when done.  Once every direct ring using the table shows 0
 * or a newer epoch, no transfer uses the revoked buffer.
 */
struct npu_bind_table {
	__le64 epoch;		/* owner: starts at 1, only grows */
	__le64 rsvd[7];
	struct npu_binding entries[];
};

/* One slot of a direct ring's fence array. */
struct npu_slot {
	__le64 value;
	__le64 timestamp;	/* CLOCK_NS at the last FENCE or TIMESTAMP */
	__le64 rsvd[2];		/* the card leaves them alone */
};

/* A scatter-gather table entry; tables lie in host memory, 16-byte aligned. */
struct npu_sg_entry {
	__le64 addr;
	__le64 len;
};

#define NPU_SG_MAX_ENTRIES		65536

#endif /* NPU_HW_H */
