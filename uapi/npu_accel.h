/* SPDX-License-Identifier: (GPL-2.0-only WITH Linux-syscall-note) OR MIT */
/*
 * Userspace interface of the NPU accel driver (/dev/accel/accelN).
 *
 * An open file is a context: it owns device-memory buffers, pinned host
 * buffers, streams and fence slots, and nothing of it is reachable from
 * another context. Closing the file (or the process dying) stops the
 * context's streams and gives everything back.
 *
 * Opening fails with -EBUSY while the card is in exclusive mode (sysfs
 * npu/exclusive, docs/ABI/sysfs-driver-npu) and another process has it
 * open; the process holding it may open it any number of times.
 *
 * Completion is learnt without a syscall: each context has a fence area,
 * an array of struct drm_npu_fence_slot that the card writes and that
 * userspace maps read-only (DRM_NPU_PARAM_FENCE_MMAP_OFFSET, _FENCE_SIZE).
 * Every stream and every event owns one slot. DRM_IOCTL_NPU_WAIT sleeps
 * until a slot reaches a value.
 *
 * Rules for every ioctl: the argument's size must be exactly the size of its
 * struct (-EINVAL otherwise), fields named pad must be zero, unknown flags
 * are rejected with -EINVAL, and a failed call changes nothing.
 */
#ifndef _UAPI_NPU_ACCEL_H_
#define _UAPI_NPU_ACCEL_H_

#include <linux/const.h>

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

#define DRM_NPU_GET_PARAM	0x00
#define DRM_NPU_BO_CREATE	0x01
#define DRM_NPU_STREAM_CREATE	0x02
#define DRM_NPU_STREAM_DESTROY	0x03
#define DRM_NPU_SUBMIT		0x04
#define DRM_NPU_WAIT		0x05
#define DRM_NPU_SLOT_ALLOC	0x06
#define DRM_NPU_SLOT_FREE	0x07
#define DRM_NPU_SLOT_SIGNAL	0x08
#define DRM_NPU_STREAM_MAP	0x09
#define DRM_NPU_STREAM_KICK	0x0a
#define DRM_NPU_PROGRAM_CREATE	0x0b
#define DRM_NPU_PROGRAM_DESTROY	0x0c
#define DRM_NPU_BO_EXPORT	0x0d
#define DRM_NPU_BO_EXPORT_CTL	0x0e
#define DRM_NPU_BO_IMPORT	0x0f
#define DRM_NPU_VM_BIND		0x10
#define DRM_NPU_BO_USERPTR	0x11

/**
 * DRM_IOCTL_NPU_GET_PARAM - read one property of the card or the context
 *
 * Errors: -EINVAL for an unknown @param or non-zero @pad.
 */
#define DRM_IOCTL_NPU_GET_PARAM \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_NPU_GET_PARAM, struct drm_npu_get_param)

/**
 * DRM_IOCTL_NPU_BO_CREATE - allocate a buffer
 *
 * Device memory (DRM_NPU_BO_DEVICE) is taken from the card and has a device
 * address, DRM_NPU_BO_ADDR_ALIGN aligned, that commands name. Host memory
 * (DRM_NPU_BO_HOST) is pinned system memory the card reaches without
 * pinning on every copy; userspace maps it at @mmap_offset and names it in
 * commands by handle and offset.
 * Freed with DRM_IOCTL_GEM_CLOSE; memory that queued commands still use
 * is released when they complete.
 *
 * Errors: -EINVAL for @size 0, unknown @flags, or a non-zero output
 * (@handle, @addr, @mmap_offset); -ENOMEM when the card (or the host) has
 * no room: nothing is allocated.
 */
#define DRM_IOCTL_NPU_BO_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_NPU_BO_CREATE, struct drm_npu_bo_create)

/**
 * DRM_IOCTL_NPU_STREAM_CREATE - create a stream on a hardware ring
 *
 * A stream owns one of the card's rings while it exists: its commands run
 * in order, concurrently with other streams. Its fence slot's value is the
 * sequence number of the last completed submission. With
 * DRM_NPU_STREAM_DIRECT userspace writes the ring itself (see "Direct
 * streams"), and the slot's value is whatever its commands write there.
 *
 * Errors: -EINVAL for unknown @flags, a @priority over
 * DRM_NPU_PRIORITY_LOWEST, a @ring_entries that is neither 0 nor a power of
 * two from 4 to DRM_NPU_PARAM_MAX_RING_ENTRIES, a non-zero output (@id,
 * @slot) or non-zero @pad; -EBUSY when every ring of the card is taken;
 * -ENOSPC when the context has no free fence slot; -ENODEV when the card
 * is dead; -ECANCELED when a card reset lost the context (see "Card
 * reset"); -ENOMEM.
 */
#define DRM_IOCTL_NPU_STREAM_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_NPU_STREAM_CREATE, struct drm_npu_stream_create)

/**
 * DRM_IOCTL_NPU_STREAM_DESTROY - destroy a stream and free its ring
 *
 * Waits (interruptibly) for the stream's submitted work, or with
 * DRM_NPU_STREAM_DESTROY_ABORT stops the ring at once and fails that work.
 * A direct stream's ring is stopped at once: its submitter, who alone
 * knows what it queued, waits for that first.
 *
 * Errors: -ENOENT for an unknown @id; -EINVAL for unknown @flags;
 * -EINTR/-ERESTARTSYS when a signal interrupts the wait (the stream stays).
 */
#define DRM_IOCTL_NPU_STREAM_DESTROY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_NPU_STREAM_DESTROY, struct drm_npu_stream_destroy)

/**
 * DRM_IOCTL_NPU_SUBMIT - queue a batch of commands on a stream
 *
 * All commands are checked before any reaches the ring: every device
 * address must lie in a device buffer of this context, every host range in
 * a host buffer of this context or in the caller's own memory, every slot
 * must belong to this context. The batch then runs in order after the
 * stream's earlier batches, and @seqno is the value the stream's fence slot
 * takes when it is done. Ordinary user memory named by
 * DRM_NPU_CMD_*_USER is pinned until the batch completes.
 *
 * When the ring is full the call sleeps (interruptibly) for room, or fails
 * with -EAGAIN under DRM_NPU_SUBMIT_NONBLOCK.
 *
 * A DRM_NPU_OP_COMPUTE descriptor is read once, when the batch is
 * submitted, into memory the card reads and userspace cannot reach; the
 * driver checks that copy. It checks the structure (see DRM_NPU_OP_COMPUTE)
 * and that every tensor lies in a device buffer of this context; whether
 * the shapes and attributes agree is for the card to say when it runs the
 * operator: a stream whose operator they do not fit fails with
 * DRM_NPU_ERR_OP_PARAM.
 *
 * Errors:
 * -ENOENT: an unknown @stream, a *_handle that is not a host buffer or
 * user memory (DRM_IOCTL_NPU_BO_USERPTR) of this context, a program id
 * (DRM_NPU_OP_PROGRAM, _SET_CALL) that is not one of this context's;
 * -EINVAL: a direct stream, unknown @flags, a non-zero @seqno (an output), @count 0 or over
 * DRM_NPU_MAX_BATCH or over the stream's ring_entries - 2, @cmd_size not
 * sizeof(struct drm_npu_cmd); or in a command: an unknown op, flag or cond,
 * a non-zero field the op does not use, a non-zero pad, size 0 for COPY or
 * FILL, a FILL value over 0xff, a VALUE_* dst not 8-byte aligned, a
 * DRM_NPU_CMD_VALUE_INDIRECT word not 8-byte aligned, a control command
 * (programs only), a SET_CALL whose dst is not the index of a CALL of the
 * program or whose callee is not lower than the program (see "Programs"),
 * both the
 * _HOST and the _USER flag for one operand, a host operand over
 * DRM_NPU_MAX_HOST_SIZE or outside its host buffer, an operator descriptor
 * that is malformed or that the card cannot run (see DRM_NPU_OP_COMPUTE);
 * -EFAULT: unreadable commands, operator descriptors or user memory;
 * -EPERM: an address, tensor, VALUE_INDIRECT word or slot not of this
 * context;
 * -EACCES: user memory registered read only as a COPY's or FILL's dst;
 * -EAGAIN; -EIO: the stream has failed, and accepts nothing until
 * destroyed; -ECANCELED: a card reset lost the context (see "Card
 * reset"); -ENODEV: the card is gone or dead.
 */
#define DRM_IOCTL_NPU_SUBMIT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_NPU_SUBMIT, struct drm_npu_submit)

/**
 * DRM_IOCTL_NPU_WAIT - sleep until a fence slot reaches a value
 *
 * Returns 0 once the slot's value is at or past @value (wrap-aware), woken
 * by the card's interrupt. The deadline @timeout_ns is absolute
 * CLOCK_MONOTONIC; DRM_NPU_WAIT_FOREVER waits without one.
 *
 * Errors: -ETIME at the deadline; -EINTR/-ERESTARTSYS on a signal; -EIO
 * when the slot carries an error (its error field says which); -ENOENT for
 * a slot not allocated in this context; -EINVAL for unknown @flags.
 */
#define DRM_IOCTL_NPU_WAIT \
	DRM_IOW(DRM_COMMAND_BASE + DRM_NPU_WAIT, struct drm_npu_wait)

/**
 * DRM_IOCTL_NPU_SLOT_ALLOC - allocate a fence slot for an event
 *
 * The slot starts with value 0, timestamp 0 and no error.
 * Errors: -EINVAL for a non-zero @slot (an output), @pad or @value;
 * -ENOSPC when all of the context's slots are taken.
 */
#define DRM_IOCTL_NPU_SLOT_ALLOC \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_NPU_SLOT_ALLOC, struct drm_npu_slot)

/**
 * DRM_IOCTL_NPU_SLOT_FREE - free an event's fence slot
 *
 * Errors: -EINVAL for a non-zero @pad or @value; -ENOENT for a @slot that
 * is not an allocated event slot.
 */
#define DRM_IOCTL_NPU_SLOT_FREE \
	DRM_IOW(DRM_COMMAND_BASE + DRM_NPU_SLOT_FREE, struct drm_npu_slot)

/**
 * DRM_IOCTL_NPU_SLOT_SIGNAL - set an event slot's value from the CPU
 *
 * Releases streams whose DRM_NPU_OP_SLOT_WAIT waits on the slot; this is
 * how a stream waits on the card for a host callback to return.
 * Errors: -EINVAL for a non-zero @pad; -ENOENT for a @slot that is not an
 * allocated event slot.
 */
#define DRM_IOCTL_NPU_SLOT_SIGNAL \
	DRM_IOW(DRM_COMMAND_BASE + DRM_NPU_SLOT_SIGNAL, struct drm_npu_slot)

/**
 * DRM_IOCTL_NPU_STREAM_MAP - where to map a direct stream's ring
 *
 * A stream created with DRM_NPU_STREAM_DIRECT has a ring that userspace
 * writes itself (see "Direct streams" below). Mapping @size bytes at
 * @mmap_offset, readable and writable, gives its control page (struct
 * drm_npu_direct_ctrl) followed by its ring_entries commands.
 *
 * Errors: -ENOENT for an unknown @stream; -EINVAL for a stream that is
 * not direct, non-zero @flags, or a non-zero output; -EIO for a stream
 * whose ring is stopped for good (its file is being closed).
 */
#define DRM_IOCTL_NPU_STREAM_MAP \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_NPU_STREAM_MAP, struct drm_npu_stream_map)

/**
 * DRM_IOCTL_NPU_STREAM_KICK - wake the card for a direct stream's ring
 *
 * Rings the ring's doorbell: needed after publishing a tail only when the
 * control page's fetching read 0 (see "Direct streams").
 *
 * Errors: -ENOENT for an unknown @stream; -EINVAL for a stream that is
 * not direct or non-zero @flags; -EIO for a failed stream; -ECANCELED
 * when a card reset lost the context; -ENODEV when the card is gone.
 */
#define DRM_IOCTL_NPU_STREAM_KICK \
	DRM_IOW(DRM_COMMAND_BASE + DRM_NPU_STREAM_KICK, struct drm_npu_stream_kick)

/**
 * DRM_IOCTL_NPU_PROGRAM_CREATE - record commands that the card runs as one
 *
 * @count commands (struct drm_npu_cmd) are checked as SUBMIT checks its
 * batch, once, and kept with everything they name (buffers, operator
 * descriptors, pinned user memory) until the program is destroyed and its
 * last run is over. DRM_NPU_OP_PROGRAM in a SUBMIT batch runs it; what it
 * costs to submit does not grow with its length. See "Programs" below for
 * the control commands only a program may hold.
 *
 * Errors: as SUBMIT's for the commands (the index of the first bad one is
 * not reported; -EFAULT, -EPERM, -ENOENT for a host buffer handle);
 * -EINVAL for @count 0 or over DRM_NPU_MAX_PROGRAM,
 * @cmd_size not sizeof(struct drm_npu_cmd), non-zero @flags or @id,
 * DRM_NPU_OP_PROGRAM or DRM_NPU_OP_SET_CALL, a control command whose
 * target lies outside the program, a SWITCH not followed by its value
 * JUMPs, a BRANCH or SWITCH size other than 4 or 8 or a word not aligned
 * to it, a CALL of a program that does not exist or nests deeper than
 * DRM_NPU_PROGRAM_MAX_DEPTH, a non-zero field a control command does not
 * use; -EPERM for a BRANCH or SWITCH word outside this context's device
 * buffers; -ENOSPC when the context has DRM_NPU_MAX_PROGRAMS programs;
 * -ENOMEM. Ids are the lowest free, from 1.
 */
#define DRM_IOCTL_NPU_PROGRAM_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_NPU_PROGRAM_CREATE, struct drm_npu_program_create)

/**
 * DRM_IOCTL_NPU_PROGRAM_DESTROY - forget a program
 *
 * Runs already submitted finish; what the program holds is released after
 * the last of them, and after the last program that CALLs it is destroyed.
 * Errors: -ENOENT for an unknown @id; -EINVAL for non-zero @flags.
 */
#define DRM_IOCTL_NPU_PROGRAM_DESTROY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_NPU_PROGRAM_DESTROY, struct drm_npu_program_destroy)

/**
 * DRM_IOCTL_NPU_BO_EXPORT - offer a device buffer to other contexts
 *
 * Gives a device buffer of this context a @key: a random, non-zero number
 * that another context of the same card names to DRM_IOCTL_NPU_BO_IMPORT.
 * Only processes allowed with DRM_IOCTL_NPU_BO_EXPORT_CTL may import it,
 * or any process under DRM_NPU_EXPORT_ANY_PROCESS. A buffer may have
 * several keys. The key lives until revoked (DRM_NPU_EXPORT_REVOKE) or
 * until this context is closed; importers keep what they imported either
 * way (see "Shared buffers" below).
 *
 * Errors: -EINVAL for unknown @flags, a non-zero @key (an output) or @pad,
 * a host buffer; -ENOENT for a @handle that is not a buffer this context
 * created; -ENOSPC when the context has DRM_NPU_MAX_EXPORTS keys.
 */
#define DRM_IOCTL_NPU_BO_EXPORT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_NPU_BO_EXPORT, struct drm_npu_bo_export)

/**
 * DRM_IOCTL_NPU_BO_EXPORT_CTL - allow processes to import a key, or revoke it
 *
 * DRM_NPU_EXPORT_ALLOW adds @count process ids (an array of __s32 at
 * @pids, numbers as the caller's pid namespace sees them) to those that
 * may import @key; the processes must exist. DRM_NPU_EXPORT_REVOKE ends
 * the key: nothing more imports it, and what was imported stays.
 *
 * Errors: -ENOENT for an unknown @key; -EPERM for a key another context
 * exported; -EINVAL for an unknown @op, non-zero @pad, @count 0 or @pids
 * given with REVOKE, @count over DRM_NPU_EXPORT_MAX_PIDS; -ESRCH for a
 * process id that names no process; -ENOSPC when the key would allow more
 * than DRM_NPU_EXPORT_MAX_PIDS processes; -EFAULT for unreadable @pids.
 */
#define DRM_IOCTL_NPU_BO_EXPORT_CTL \
	DRM_IOW(DRM_COMMAND_BASE + DRM_NPU_BO_EXPORT_CTL, struct drm_npu_bo_export_ctl)

/**
 * DRM_IOCTL_NPU_BO_IMPORT - use another context's device buffer
 *
 * Gives this context a @handle to the buffer exported under @key, at the
 * exporter's device address @addr and of @size bytes: commands of this
 * context may name it as they name its own device buffers (not as a
 * binding of a direct ring). The handle holds the buffer until closed
 * (DRM_IOCTL_GEM_CLOSE, or the file), whatever the exporter does.
 * Importing a key twice gives two handles.
 *
 * Errors: -EINVAL for non-zero @flags, @pad or outputs (@handle, @addr,
 * @size), a key 0, a key of this context itself; -ENOENT for a key that
 * this card does not know or that was revoked; -EACCES when the calling
 * process is not allowed to import it.
 */
#define DRM_IOCTL_NPU_BO_IMPORT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_NPU_BO_IMPORT, struct drm_npu_bo_import)

/**
 * DRM_IOCTL_NPU_VM_BIND - map or unmap memory in the context's address space
 *
 * DRM_NPU_VM_MAP maps @size bytes of buffer @handle, from byte @offset, at
 * device address @addr (see "Address spaces" below): a device buffer of
 * this context (created or imported), a host buffer (DRM_NPU_BO_HOST), user
 * memory (DRM_IOCTL_NPU_BO_USERPTR), or another card's device buffer
 * imported through PRIME (DRM_IOCTL_PRIME_FD_TO_HANDLE), which the card
 * then reaches through a peer window. With DRM_NPU_VM_READ_ONLY the card
 * may only read it. The mapping holds the buffer until it is unmapped or
 * the context is closed.
 *
 * DRM_NPU_VM_UNMAP removes every mapping that lies in [@addr, @addr +
 * @size); the range must cover each of them whole. It returns once the
 * card has dropped the translations and finished the accesses it had
 * started through them; a command that reaches the range later fails its
 * stream with DRM_NPU_ERR_PAGE_FAULT.
 *
 * Errors: -EINVAL for an unknown @op or @flags, non-zero @pad, @size 0,
 * @addr, @offset or @size not multiples of DRM_NPU_VM_PAGE_SIZE, a range
 * outside the address space or inside this card's own window, a range
 * past the end of the buffer, a device buffer not page aligned in card
 * memory, a non-zero @handle, @offset or @flags for UNMAP, an UNMAP range
 * that cuts a mapping or holds none; -ENOENT for an unknown @handle;
 * -EEXIST when MAP's range overlaps a mapping; -EACCES for MAP of user
 * memory registered read only without DRM_NPU_VM_READ_ONLY; -EBUSY when the card has no
 * free peer window for another card's buffer; -ENOMEM.
 */
#define DRM_IOCTL_NPU_VM_BIND \
	DRM_IOW(DRM_COMMAND_BASE + DRM_NPU_VM_BIND, struct drm_npu_vm_bind)

/**
 * DRM_IOCTL_NPU_BO_USERPTR - make the caller's memory a host buffer
 *
 * Pins @size bytes of the caller's memory at @ptr for the buffer's life and
 * gives a @handle that commands name as a host buffer's (DRM_NPU_CMD_*_HOST)
 * and that DRM_IOCTL_NPU_VM_BIND maps. It cannot be mmap()ed: the memory
 * is the caller's already. Under DRM_NPU_USERPTR_READ_ONLY the card may
 * only read it (read-only memory may be registered so), and a command or
 * mapping that would write it is refused with -EACCES (SUBMIT: as a COPY's
 * or FILL's dst; VM_BIND: without DRM_NPU_VM_READ_ONLY). The pin, not the
 * caller's mapping, holds the pages: memory unmapped or remapped while
 * registered stays the buffer's (what the card reads and writes is no
 * longer what the caller sees there) until the handle is closed and the
 * commands and mappings that name it are gone; the pages count in the
 * card's sysfs pinned_pages until then.
 *
 * Errors: -EINVAL for unknown @flags, a non-zero @handle (an output), @ptr
 * or @size not multiples of the host's page size, @size 0 or over
 * DRM_NPU_MAX_USERPTR_SIZE; -EFAULT for memory that is not the caller's
 * or that cannot be pinned (writable, unless read only); -ENOMEM.
 */
#define DRM_IOCTL_NPU_BO_USERPTR \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_NPU_BO_USERPTR, struct drm_npu_bo_userptr)

enum drm_npu_param {
	DRM_NPU_PARAM_DEVMEM_SIZE = 0,		/* bytes of device memory */
	DRM_NPU_PARAM_DEVMEM_FREE = 1,		/* bytes not allocated, all contexts */
	DRM_NPU_PARAM_NUM_RINGS = 2,
	DRM_NPU_PARAM_FREE_RINGS = 3,		/* rings no stream owns */
	DRM_NPU_PARAM_MAX_RING_ENTRIES = 4,
	DRM_NPU_PARAM_SERIAL = 5,
	DRM_NPU_PARAM_CLOCK_NS = 6,		/* the card's clock now */
	DRM_NPU_PARAM_FENCE_MMAP_OFFSET = 7,	/* mmap offset of the fence area */
	DRM_NPU_PARAM_FENCE_SIZE = 8,		/* bytes of the fence area */
	DRM_NPU_PARAM_NUM_SLOTS = 9,		/* slots in the fence area */
	DRM_NPU_PARAM_FREE_SLOTS = 10,
	DRM_NPU_PARAM_VERSION = 11,		/* card interface, major << 16 | minor */
	/* Operators (DRM_NPU_OP_COMPUTE); all 0 on a card that does not compute */
	DRM_NPU_PARAM_NUM_COMPUTE_ENGINES = 12,	/* operators running at once */
	DRM_NPU_PARAM_OPLIB_VERSION = 13,	/* operator library, major << 16 | minor */
	DRM_NPU_PARAM_OPERATORS = 14,		/* bit n: enum npu_operator n runs */
	DRM_NPU_PARAM_DTYPES = 15,		/* bit n: enum npu_dtype n is supported */
	DRM_NPU_PARAM_OP_DESC_MAX = 16,		/* largest descriptor, bytes */
	DRM_NPU_PARAM_DIRECT_BINDINGS = 17,	/* handles below this are bindings */
	/*
	 * ns the card's compute engines ran operators, every context's,
	 * since probe: as last read from the rings, which the driver does
	 * when a stream retires work; with CLOCK_NS, the engines' utilization
	 */
	DRM_NPU_PARAM_COMPUTE_NS = 18,
	/* card resets since the driver bound the card (see "Card reset") */
	DRM_NPU_PARAM_RESET_COUNT = 19,
	/*
	 * 0 while the caller's context is usable; once a card reset has lost
	 * it, the enum drm_npu_reset_reason of that reset
	 */
	DRM_NPU_PARAM_CTX_LOST = 20,
	/* the device address of this card's window (see "Address spaces") */
	DRM_NPU_PARAM_VA_WINDOW = 21,
	/* peer windows: other cards this card reaches at once; 0: none */
	DRM_NPU_PARAM_NUM_PEERS = 22,
};

struct drm_npu_get_param {
	__u32 param;	/* in: enum drm_npu_param */
	__u32 pad;
	__u64 value;	/* out */
};

/* Device addresses: the card's memory as commands and userspace name it. */
#define DRM_NPU_DEVICE_ADDR_BASE	_BITULL(56)
#define DRM_NPU_BO_ALIGN		64
/*
 * Where a device buffer starts: frameworks carve one allocation into
 * tensors at fixed steps from its start (ggml 128 bytes, PyTorch's caching
 * allocators 512) and need the start itself as aligned; and a whole page,
 * so that mapping it elsewhere (a peer card's address space) maps nothing
 * of another buffer.
 */
#define DRM_NPU_BO_ADDR_ALIGN		4096

#define DRM_NPU_BO_DEVICE	0x0		/* card memory */
#define DRM_NPU_BO_HOST		0x1		/* pinned host memory, mappable */
/*
 * Device memory starting at, and a size rounded up to, a multiple of
 * DRM_NPU_VM_BLOCK_SIZE: it maps with the card's 2 MiB entries.
 */
#define DRM_NPU_BO_BLOCK_ALIGNED	0x2

struct drm_npu_bo_create {
	__u64 size;		/* in: bytes, rounded up to DRM_NPU_BO_ALIGN */
	__u32 flags;		/* in: DRM_NPU_BO_* */
	__u32 handle;		/* out */
	__u64 addr;		/* out: device address, DRM_NPU_BO_ADDR_ALIGN aligned; 0 for host */
	__u64 mmap_offset;	/* out: host buffers only; 0 for device */
};

/*
 * Address spaces (driver 1.6). Each context has an address space of its
 * own: the card translates every device address its commands name through
 * the context's page tables, so a context reaches only what is mapped
 * there. A device address is DRM_NPU_DEVICE_ADDR_BASE plus a virtual
 * address below 2^DRM_NPU_VA_BITS.
 *
 * The driver maps every device buffer a context creates or imports at the
 * device address the buffer reports: DRM_NPU_PARAM_VA_WINDOW plus the
 * buffer's place in the card's memory. That window, DRM_NPU_VA_WINDOW_SIZE
 * bytes, is the card's own; the windows of the cards of one host do not
 * overlap (card N of the accel class has window N modulo
 * DRM_NPU_VA_WINDOWS), so a process using several cards sees addresses
 * unique across them. SUBMIT and PROGRAM_CREATE check an address in the
 * window against the context's buffers, as before (-EPERM).
 *
 * The rest of the address space is the context's to manage with
 * DRM_IOCTL_NPU_VM_BIND. The driver does not check addresses there: the
 * card checks every page a command touches when it runs, and a page that
 * is not mapped (or is read-only, for a write) fails the stream with
 * DRM_NPU_ERR_PAGE_FAULT; the stream's slot's fault word then names the
 * address. Addresses from DRM_NPU_VA_USER_BASE up are in no card's window.
 */
#define DRM_NPU_VA_BITS			39
#define DRM_NPU_VA_WINDOW_SIZE		_BITULL(34)	/* 16 GiB */
#define DRM_NPU_VA_WINDOWS		16
#define DRM_NPU_VA_USER_BASE		(DRM_NPU_DEVICE_ADDR_BASE + _BITULL(38))
#define DRM_NPU_VM_PAGE_SIZE		4096
#define DRM_NPU_VM_BLOCK_SIZE		_BITULL(21)	/* 2 MiB */
#define DRM_NPU_MAX_USERPTR_SIZE	_BITULL(34)

enum drm_npu_vm_bind_op {
	DRM_NPU_VM_MAP = 0,
	DRM_NPU_VM_UNMAP = 1,
};

#define DRM_NPU_VM_READ_ONLY		0x1

struct drm_npu_vm_bind {
	__u32 op;		/* enum drm_npu_vm_bind_op */
	__u32 flags;		/* MAP: DRM_NPU_VM_*; UNMAP: 0 */
	__u32 handle;		/* MAP: the buffer; UNMAP: 0 */
	__u32 pad;
	__u64 offset;		/* MAP: bytes into the buffer; UNMAP: 0 */
	__u64 addr;		/* device address */
	__u64 size;		/* bytes */
};

#define DRM_NPU_USERPTR_READ_ONLY	0x1

struct drm_npu_bo_userptr {
	__u64 ptr;		/* in: the caller's memory, page aligned */
	__u64 size;		/* in: bytes, a multiple of the page size */
	__u32 flags;		/* in: DRM_NPU_USERPTR_* */
	__u32 handle;		/* out */
};

#define DRM_NPU_PRIORITY_HIGHEST	0
#define DRM_NPU_PRIORITY_LOWEST		7
#define DRM_NPU_RING_ENTRIES_DEFAULT	1024

/* The ring is written by userspace (DRM_IOCTL_NPU_STREAM_MAP) */
#define DRM_NPU_STREAM_DIRECT		0x1

struct drm_npu_stream_create {
	__u32 flags;		/* in: DRM_NPU_STREAM_* */
	__u32 priority;		/* in: 0 (highest) .. 7; the card's copy engines serve it first */
	__u32 ring_entries;	/* in: power of two, 0 for the default */
	__u32 id;		/* out: the stream, for SUBMIT and DESTROY */
	__u32 slot;		/* out: its fence slot */
	__u32 pad;
};

#define DRM_NPU_STREAM_DESTROY_ABORT	0x1

struct drm_npu_stream_destroy {
	__u32 id;
	__u32 flags;		/* DRM_NPU_STREAM_DESTROY_* */
};

/*
 * Commands. Operands of COPY and FILL are device addresses by default; with
 * a DRM_NPU_CMD_*_HOST flag the operand is an offset into the host buffer
 * whose handle is in *_handle; with DRM_NPU_CMD_*_USER it is a pointer into
 * the caller's own memory. Fields a command does not use must be zero.
 */
enum drm_npu_op {
	DRM_NPU_OP_NOP = 0,
	DRM_NPU_OP_COPY = 1,		/* dst, src, size */
	DRM_NPU_OP_FILL = 2,		/* dst, size, value: the byte */
	DRM_NPU_OP_SLOT_WRITE = 3,	/* slot: value and the card's clock */
	DRM_NPU_OP_SLOT_WAIT = 4,	/* slot: until its value >= value (wrap-aware) */
	DRM_NPU_OP_VALUE_WRITE = 5,	/* dst (device, 8-byte aligned) = value */
	DRM_NPU_OP_VALUE_WAIT = 6,	/* dst (device, 8-byte aligned), value, cond */
	DRM_NPU_OP_TIMESTAMP = 7,	/* slot: its timestamp only */
	DRM_NPU_OP_COMPUTE = 8,		/* src: descriptor pointer, size: its bytes */
	DRM_NPU_OP_PROGRAM = 9,		/* SUBMIT only: value: a program id, run whole */
	DRM_NPU_OP_SET_CALL = 10,	/* SUBMIT only: program value's CALL at dst calls src */
	DRM_NPU_OP_CLOCK_WRITE = 11,	/* dst (device, 8-byte aligned) = the card's clock, ns */
	/* Control commands: programs only. */
	DRM_NPU_OP_JUMP = 12,		/* value: command index */
	DRM_NPU_OP_BRANCH = 13,		/* if *dst cond operand: to value (see "Programs") */
	DRM_NPU_OP_SWITCH = 14,		/* *dst picks one of the value JUMPs that follow */
	DRM_NPU_OP_ACTIVATE = 15,	/* value: index of a thread to run after this one */
	DRM_NPU_OP_CALL = 16,		/* value: id of another program, run whole here */
	DRM_NPU_OP_END = 17,		/* the run ends here */
	DRM_NPU_OP_RETURN = 18,		/* this thread ends here */
};

/*
 * DRM_NPU_OP_COMPUTE runs one operator of the card's library. src points
 * to a struct npu_op_desc in the caller's memory (uapi/npu_operator.h),
 * size is its length: sizeof(struct npu_op_desc) plus one struct
 * npu_tensor_desc per input and output, at most DRM_NPU_PARAM_OP_DESC_MAX.
 * The other fields and flags are 0. Tensor addresses are device addresses
 * (DRM_NPU_DEVICE_ADDR_BASE + offset). The submission fails with -EINVAL
 * for
 *  - a size that is not that of the descriptor's tensors, or more than
 *    NPU_OP_MAX_TENSORS tensors;
 *  - an operator the card does not run (DRM_NPU_PARAM_OPERATORS), or
 *    numbers of inputs and outputs the operator does not take;
 *  - a non-zero flag, reserved field or tensor bind (a direct ring's), or
 *    a non-zero attribute the operator does not use: bytes past its
 *    member of the union, per-axis entries past the first input's rank,
 *    an activation's alpha or beta that its function does not take,
 *    MatMul's beta without c,
 *    BATCHNORM's axis, a pad value unless CONSTANT, nearest for LINEAR
 *    resizing;
 *  - a tensor of a data type the card lacks (DRM_NPU_PARAM_DTYPES), of an
 *    unknown format, of more than NPU_TENSOR_MAX_DIMS dims, with non-zero
 *    dims or strides past its rank, a dim or stride over INT64_MAX, more
 *    elements than 64 bits count, an NCHW16C tensor not of rank 4 or with
 *    strides, or one whose extent in bytes does not fit in 64 bits;
 * and with -EPERM for a tensor whose bytes (or, for an empty tensor, whose
 * address) do not lie wholly inside one device buffer of this context.
 * The buffers stay allocated until the operator has run. Unknown kinds and
 * modes in the attributes, and everything else about shapes and values,
 * are the card's to refuse when it runs the operator (see
 * DRM_NPU_ERR_OP_UNSUPPORTED and DRM_NPU_ERR_OP_PARAM).
 */

/*
 * Largest host operand (DRM_NPU_CMD_*_HOST or _USER) of one COPY or FILL;
 * larger transfers are split into several commands.
 */
#define DRM_NPU_MAX_HOST_SIZE	(128ULL << 20)

#define DRM_NPU_CMD_DST_HOST	0x1
#define DRM_NPU_CMD_SRC_HOST	0x2
#define DRM_NPU_CMD_DST_USER	0x4
#define DRM_NPU_CMD_SRC_USER	0x8
/* SLOT_WRITE, SLOT_WAIT, VALUE_WRITE, VALUE_WAIT: value is the device address of the operand */
#define DRM_NPU_CMD_VALUE_INDIRECT	0x10
/* BRANCH: src is the operand itself, not its device address */
#define DRM_NPU_CMD_SRC_IMM	0x20

enum drm_npu_wait_cond {
	DRM_NPU_WAIT_GEQ = 0,	/* (__s64)(*dst - value) >= 0 */
	DRM_NPU_WAIT_EQ = 1,	/* *dst == value */
	DRM_NPU_WAIT_AND = 2,	/* (*dst & value) != 0 */
	DRM_NPU_WAIT_NOR = 3,	/* ~(*dst | value) != 0 */
};

/* BRANCH: *dst compared with the operand, both signed, size bytes (4 or 8) */
enum drm_npu_branch_cond {
	DRM_NPU_BRANCH_EQ = 0,
	DRM_NPU_BRANCH_NE = 1,
	DRM_NPU_BRANCH_GT = 2,
	DRM_NPU_BRANCH_GE = 3,
	DRM_NPU_BRANCH_LT = 4,
	DRM_NPU_BRANCH_LE = 5,
};

struct drm_npu_cmd {
	__u32 op;		/* enum drm_npu_op */
	__u32 flags;		/* DRM_NPU_CMD_* */
	__u64 dst;
	__u64 src;
	__u64 size;
	__u64 value;
	__u32 dst_handle;
	__u32 src_handle;
	__u32 slot;		/* SLOT_WRITE, SLOT_WAIT, TIMESTAMP */
	__u32 cond;		/* VALUE_WAIT: enum drm_npu_wait_cond */
	__u64 pad;
};

#define DRM_NPU_MAX_BATCH	256
#define DRM_NPU_SUBMIT_NONBLOCK	0x1

struct drm_npu_submit {
	__u32 stream;		/* in */
	__u32 flags;		/* in: DRM_NPU_SUBMIT_* */
	__u64 cmds;		/* in: pointer to count struct drm_npu_cmd */
	__u32 count;		/* in: 1 .. DRM_NPU_MAX_BATCH */
	__u32 cmd_size;		/* in: sizeof(struct drm_npu_cmd) */
	__u64 seqno;		/* out */
};

#define DRM_NPU_WAIT_FOREVER	0x7fffffffffffffffLL

struct drm_npu_wait {
	__u32 slot;
	__u32 flags;		/* none defined, must be 0 */
	__u64 value;
	__s64 timeout_ns;	/* absolute CLOCK_MONOTONIC, or _FOREVER */
};

struct drm_npu_slot {
	__u32 slot;		/* out for ALLOC, in otherwise */
	__u32 pad;
	__u64 value;		/* SIGNAL: the value; else 0 */
};

#define DRM_NPU_MAX_PROGRAM		65536	/* commands */
#define DRM_NPU_MAX_PROGRAMS		4096	/* per context */
#define DRM_NPU_PROGRAM_MAX_DEPTH	4	/* programs CALLed within CALLed ... */
#define DRM_NPU_PROGRAM_MAX_ACTIVE	64	/* threads ACTIVATEd and not yet run */

struct drm_npu_program_create {
	__u64 cmds;		/* in: pointer to count struct drm_npu_cmd */
	__u32 count;		/* in: 1 .. DRM_NPU_MAX_PROGRAM */
	__u32 cmd_size;		/* in: sizeof(struct drm_npu_cmd) */
	__u32 flags;		/* in: none defined, must be 0 */
	__u32 id;		/* out */
};

struct drm_npu_program_destroy {
	__u32 id;
	__u32 flags;		/* none defined, must be 0 */
};

/*
 * Programs. A run starts at command 0 and goes on in order; the commands
 * from one ACTIVATE target to the next RETURN are a thread. When the
 * running thread reaches RETURN (or the program's end), the card starts
 * the earliest ACTIVATEd thread not yet run; the run is over when none is
 * left, or at END, which drops the threads still waiting. ACTIVATE beyond
 * DRM_NPU_PROGRAM_MAX_ACTIVE pending threads (per program run) fails the
 * stream with DRM_NPU_ERR_REJECTED. Every command of a run counts as
 * progress for the hang check: a program that loops forever runs until
 * its stream is destroyed with DRM_NPU_STREAM_DESTROY_ABORT.
 *
 * BRANCH reads size (4 or 8) bytes at device address dst (aligned to
 * size) and compares them, signed, with the operand by cond: the same
 * size at device address src, or src itself under DRM_NPU_CMD_SRC_IMM
 * (its low size bytes). SWITCH reads index i (size 4 or 8, unsigned) at
 * dst; for i < value it goes on at the i-th of the value (at least 1)
 * JUMPs that follow it, else after them. CALL runs another program of
 * this context, with its own threads, and comes back; the caller keeps
 * the callee (and whatever it holds) while it exists. A program's height
 * is 1 plus its callees' highest; a CALL of a program of height
 * DRM_NPU_PROGRAM_MAX_DEPTH is refused.
 *
 * With DRM_NPU_CMD_VALUE_INDIRECT a slot or value command takes its value
 * from the 8 bytes at device address value when it runs: a submission
 * writes them (VALUE_WRITE) before DRM_NPU_OP_PROGRAM to give one run
 * values of its own.
 *
 * DRM_NPU_OP_SET_CALL, in stream order, makes the CALL at index dst of
 * program value call program src from then on; runs already past it are
 * not affected. src must be lower than program value (which rules out
 * cycles); program value keeps every callee it has had until it is
 * destroyed. The other fields are 0.
 *
 * When a stream fails, the event slots that the programs of its queued
 * runs (and their callees) write get its error, as its own SLOT_WRITEs';
 * a queued run whose program (or callee) SLOT_WAITs on a failed slot fails
 * its stream with DRM_NPU_ERR_DEPENDENCY, as a batch's SLOT_WAIT does
 * (under VALUE_INDIRECT, whatever the value: the slot no longer advances).
 */

/*
 * Shared buffers. An exported device buffer is one buffer however many
 * contexts hold it: the exporter's handle, each key and each importer's
 * handle keep it, and its card memory returns to the card (and to
 * DRM_NPU_PARAM_DEVMEM_FREE) only when the last of them is gone and the
 * commands that named it have completed. The exporter closing its handle,
 * revoking its keys or dying therefore never frees memory an importer
 * still names; an importer's handle closing only ends that importer's use.
 */
#define DRM_NPU_MAX_EXPORTS		4096	/* keys per context */
#define DRM_NPU_EXPORT_MAX_PIDS		64	/* processes per key */

#define DRM_NPU_EXPORT_ANY_PROCESS	0x1	/* no process list: any may import */

struct drm_npu_bo_export {
	__u32 handle;		/* in: a device buffer of this context */
	__u32 flags;		/* in: DRM_NPU_EXPORT_* */
	__u64 key;		/* out */
};

enum drm_npu_export_op {
	DRM_NPU_EXPORT_ALLOW = 0,	/* pids, count: may import from now on */
	DRM_NPU_EXPORT_REVOKE = 1,	/* no more imports */
};

struct drm_npu_bo_export_ctl {
	__u64 key;
	__u32 op;		/* enum drm_npu_export_op */
	__u32 count;		/* ALLOW: entries at pids */
	__u64 pids;		/* ALLOW: pointer to count __s32; REVOKE: 0 */
};

struct drm_npu_bo_import {
	__u64 key;		/* in */
	__u32 flags;		/* in: none defined, must be 0 */
	__u32 handle;		/* out */
	__u64 addr;		/* out: the buffer's device address */
	__u64 size;		/* out: its bytes */
};

/*
 * Buffers of another card (driver 1.6). A device buffer exported with
 * DRM_IOCTL_PRIME_HANDLE_TO_FD gives a dma-buf whose only use is being
 * imported, with DRM_IOCTL_PRIME_FD_TO_HANDLE, by a context of another
 * card of this driver: the handle there is a peer buffer, which that
 * context maps with DRM_IOCTL_NPU_VM_BIND (its card reaches the memory
 * through a peer window, as PCIe peer-to-peer does) and names nowhere
 * else. The dma-buf and every peer buffer hold the exported buffer, as an
 * import by key does. Imported into a context of the same card, the
 * dma-buf gives a handle to the buffer itself, as DRM_IOCTL_NPU_BO_IMPORT
 * does; other drivers cannot import it (-EOPNOTSUPP for now).
 *
 * Unlike a key, a dma-buf has no process list: whoever holds the file
 * descriptor may import it. Host buffers, user memory and peer buffers do
 * not export (-EOPNOTSUPP); the dma-buf cannot be mmap()ed; a dma-buf of
 * another driver does not import (-EOPNOTSUPP).
 *
 * A peer buffer's first mapping opens a peer window of the importing card
 * on the exporter's card, or shares the one open on it; the window closes
 * when the last peer buffer using it is gone (its handle closed and every
 * mapping of it unmapped). VM_BIND fails with -EBUSY when every window
 * (DRM_NPU_PARAM_NUM_PEERS) is open on other cards. The card's sysfs file
 * npu/peer_windows_open counts the open windows. A card reset closes them
 * all; the driver opens again those still in use.
 */

struct drm_npu_stream_map {
	__u32 stream;		/* in */
	__u32 flags;		/* in: none defined, must be 0 */
	__u64 mmap_offset;	/* out */
	__u64 size;		/* out: bytes to map */
};

struct drm_npu_stream_kick {
	__u32 stream;
	__u32 flags;		/* none defined, must be 0 */
};

/*
 * Direct streams. A stream created with DRM_NPU_STREAM_DIRECT owns a ring
 * that userspace writes without a system call, and that the card checks
 * command by command: operands are not addresses but bindings, and slots.
 *
 * A binding is the GEM handle of a buffer this context created, if below
 * DRM_NPU_PARAM_DIRECT_BINDINGS; offsets are bytes into that buffer. A
 * slot is any slot of this context's fence area. Closing a handle revokes
 * its binding, after the transfer that may still use it is over.
 *
 * To submit: write commands at tail % ring_entries, then store tail + n
 * into the control page's tail (a release store), then a full barrier,
 * then read fetching; if it is 0, DRM_IOCTL_NPU_STREAM_KICK. No wake-up is
 * lost that way: the card clears fetching before its last look at tail.
 * head is how far the card got; free entries are ring_entries - (tail -
 * head).
 *
 * COMPUTE (driver version 1.3) runs one operator: its descriptor (uapi/
 * npu_operator.h) is size bytes at offset src, a multiple of
 * NPU_OP_DESC_ALIGN, of buffer src_bind; each tensor names a device
 * buffer's handle in bind and an offset in it in addr, and must lie
 * wholly inside that buffer. The card reads the descriptor once, when
 * the command runs, and checks all of it: the attributes and shapes as
 * DRM_NPU_OP_COMPUTE's, what the tensors name as any direct command's.
 * Closing a handle waits for the operator using it to end.
 *
 * A command that names what it may not (a handle of another context or
 * none, a range outside the buffer, a host buffer as a tensor, a slot
 * past the area), a non-zero flag, pad or unused field, or a size of 0
 * fails the stream with DRM_NPU_ERR_REJECTED in its slot, as the card's
 * errors do for any stream; an operator the card refuses or fails, with
 * DRM_NPU_ERR_OP_UNSUPPORTED, _OP_PARAM or _OP_FAILED. When a direct
 * stream fails, the event slots (DRM_IOCTL_NPU_SLOT_ALLOC) that its
 * SLOT_WRITEs between head and tail were still to write get the stream's
 * error too, as a failed job's events do; no other slot does.
 */
enum drm_npu_direct_op {
	DRM_NPU_DOP_NOP = 0,
	DRM_NPU_DOP_COPY = 1,		/* dst_bind + dst <- src_bind + src, size */
	DRM_NPU_DOP_FILL = 2,		/* dst_bind + dst, size, arg: the byte */
	DRM_NPU_DOP_SLOT_WRITE = 3,	/* slot dst_bind: value and the card's clock */
	DRM_NPU_DOP_SLOT_WAIT = 4,	/* slot dst_bind, arg: enum drm_npu_wait_cond */
	DRM_NPU_DOP_TIMESTAMP = 5,	/* slot dst_bind: the card's clock */
	DRM_NPU_DOP_COMPUTE = 6,	/* descriptor: src_bind + src, size bytes */
};

struct drm_npu_direct_cmd {
	__u16 op;		/* enum drm_npu_direct_op */
	__u16 flags;		/* none defined, must be 0 */
	__u32 arg;
	__u32 dst_bind;		/* a handle, or a slot */
	__u32 src_bind;
	__u64 dst;
	__u64 src;
	__u64 size;
	__u64 value;
	__u64 pad[2];
};

struct drm_npu_direct_ctrl {
	__u32 tail;		/* userspace: free-running */
	__u32 head;		/* card: free-running */
	__u32 fetching;		/* card: non-zero while it reads tail unbidden */
	__u32 pad[13];
};

/* Why a slot failed; its value then no longer advances. */
enum drm_npu_error {
	DRM_NPU_ERR_NONE = 0,
	DRM_NPU_ERR_REJECTED = 1,	/* the card refused a command */
	DRM_NPU_ERR_DMA = 2,		/* a transfer failed */
	DRM_NPU_ERR_HANG = 3,		/* no progress within the hang timeout */
	DRM_NPU_ERR_DEAD = 4,		/* the card stopped its heartbeat */
	DRM_NPU_ERR_ABORTED = 5,	/* the stream was destroyed with ABORT */
	DRM_NPU_ERR_DEPENDENCY = 6,	/* a slot the stream waited on failed */
	/* the card's library lacks an operator's kind, mode, type, format or size */
	DRM_NPU_ERR_OP_UNSUPPORTED = 7,
	/* an operator's shapes, attributes or tensor placement disagree */
	DRM_NPU_ERR_OP_PARAM = 8,
	DRM_NPU_ERR_OP_FAILED = 9,	/* the card's library failed to run an operator */
	DRM_NPU_ERR_RESET = 10,		/* the card was reset with the work queued */
	/* a command reached a page it may not use: the slot's fault says which */
	DRM_NPU_ERR_PAGE_FAULT = 11,
};

/* Why a page faulted: bits 48-55 of a fence slot's fault word. */
enum drm_npu_fault_reason {
	DRM_NPU_FAULT_UNMAPPED = 1,
	DRM_NPU_FAULT_READ_ONLY = 2,	/* a write to a read-only page */
	DRM_NPU_FAULT_MALFORMED = 3,	/* a mapping the card could not use */
	DRM_NPU_FAULT_PEER_CLOSED = 4,	/* a peer card's page, its window closed */
};

#define DRM_NPU_FAULT_VA_MASK		0xffffffffffffULL	/* the VA (address - BASE) */
#define DRM_NPU_FAULT_REASON_SHIFT	48
#define DRM_NPU_FAULT_WRITE		_BITULL(63)

/*
 * Card reset: why the driver reset the card (sysfs last_reset_reason,
 * DRM_NPU_PARAM_CTX_LOST).
 *
 * The driver resets the card as a whole, the device staying bound, when an
 * administrator asks (sysfs "reset"), when a ring does not confirm its own
 * reset (a hang beyond recovery), or when the heartbeat stops and the
 * module parameter reset_on_heartbeat_loss is set (otherwise the card stays
 * dead, as before). Every context open at the time is lost:
 *  - every stream fails with DRM_NPU_ERR_RESET in its slot and in the event
 *    slots its queued work would have written, and every waiter wakes
 *    (DRM_IOCTL_NPU_WAIT: -EIO), direct streams included;
 *  - STREAM_CREATE, SUBMIT and STREAM_KICK then fail with -ECANCELED, which
 *    means "this context was lost to a card reset" and nothing else;
 *    DRM_NPU_PARAM_CTX_LOST says which reset;
 *  - everything else still works: buffers, slots, programs and streams can
 *    be freed or destroyed, GET_PARAM answers, mappings stay valid. Device
 *    buffers keep their contents (a reset does not clear the card's
 *    memory), except what the interrupted work was writing.
 * A context opened after the reset (a new open of the node) works at once;
 * an open during a reset waits for it to end.
 */
enum drm_npu_reset_reason {
	DRM_NPU_RESET_NONE = 0,
	DRM_NPU_RESET_ADMIN = 1,	/* sysfs "reset" */
	DRM_NPU_RESET_HANG = 2,		/* a ring did not confirm its own reset */
	DRM_NPU_RESET_HEARTBEAT = 3,	/* the heartbeat stopped */
};

/*
 * One slot of the fence area. A stream's slot holds the sequence number of
 * its last completed submission; an event's slot the last value written by
 * SLOT_WRITE or SLOT_SIGNAL. error becomes non-zero when the stream that
 * would advance the slot fails; submitting a new SLOT_WRITE to an event's
 * slot, or signalling it, clears it.
 */
struct drm_npu_fence_slot {
	__u64 value;
	__u64 timestamp;	/* card clock, ns, at the last write */
	__u32 error;		/* enum drm_npu_error */
	__u32 pad0;
	/*
	 * A stream's slot after DRM_NPU_ERR_PAGE_FAULT: the first virtual
	 * address the command could not use (DRM_NPU_FAULT_VA_MASK), why
	 * (enum drm_npu_fault_reason << DRM_NPU_FAULT_REASON_SHIFT) and
	 * DRM_NPU_FAULT_WRITE for a write; else 0.
	 */
	__u64 fault;
};

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_NPU_ACCEL_H_ */
