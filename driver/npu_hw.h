/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * Register and command interface of the NPU card.
 *
 * This header is the card's published programming interface.  The kernel
 * driver and the card's device model both include it, so it uses only the
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

#define NPU_PCI_VENDOR_ID		0x1af4
#define NPU_PCI_DEVICE_ID		0x1110

#define NPU_BAR_DOORBELL		0
#define NPU_BAR_CARD			2

/* BAR0 */
#define NPU_BAR0_DOORBELL		0x0c
#define NPU_DOORBELL(id, vector)	(((__u32)(id) << 16) | ((vector) & 0xffff))

#define NPU_MAGIC			0x3155504e	/* "NPU1" */
#define NPU_VERSION_MAJOR		2
#define NPU_VERSION_MINOR		0
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
};

#define NPU_FAULT_LAST			NPU_FAULT_HANG_OP

/* Per-ring registers, at NPU_RING_REGS_BASE + ring * NPU_RING_REGS_STRIDE */
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
};

#define NPU_CMD_IRQ			0x0001	/* raise the ring's vector when done */
#define NPU_CMD_SRC_HOST		0x0002	/* src is a host address */
#define NPU_CMD_DST_HOST		0x0004	/* dst is a host address */
#define NPU_CMD_SRC_SGL			0x0008	/* src is a host npu_sg_entry table */
#define NPU_CMD_DST_SGL			0x0010	/* dst is a host npu_sg_entry table */
#define NPU_CMD_FENCE_TIME		0x0020	/* FENCE also writes CLOCK_NS at addr + 8 */

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
	__le64 src;	/* COPY; COMPUTE: the npu_op_desc, a host address */
	__le64 size;	/* COPY, FILL: bytes; COMPUTE: bytes of the descriptor */
	__le64 value;	/* FENCE: value written; WAIT: operand */
	__le32 src_sg_count;	/* entries of a SRC_SGL table */
	__le32 dst_sg_count;	/* entries of a DST_SGL table */
	__le64 rsvd[2];
};

/* A scatter-gather table entry; tables lie in host memory, 16-byte aligned. */
struct npu_sg_entry {
	__le64 addr;
	__le64 len;
};

#define NPU_SG_MAX_ENTRIES		65536

/*
 * Operators: NPU_OP_COMPUTE runs one operator of the card's operator
 * library.  The command's src is the host bus address of an npu_op_desc,
 * 64-byte aligned, with NPU_CMD_SRC_HOST set; size is the descriptor's
 * length, sizeof(struct npu_op_desc) plus one npu_tensor_desc per input
 * and output.  The card reads the whole descriptor before it touches a
 * tensor, so a descriptor the card has fetched is not read again.
 */
enum npu_operator {
	NPU_OPERATOR_CONV2D = 0,	/* in: x, w, [b]; out: y; attrs.conv */
	NPU_OPERATOR_CONV_TRANSPOSE2D = 1, /* in: x, w, [b]; out: y; attrs.conv */
	NPU_OPERATOR_MATMUL = 2,	/* in: a, b, [c]; out: y; attrs.matmul */
	NPU_OPERATOR_POOL2D = 3,	/* in: x; out: y; attrs.pool */
	NPU_OPERATOR_UNARY = 4,		/* in: x; out: y; attrs.unary */
	NPU_OPERATOR_BINARY = 5,	/* in: a, b; out: y; attrs.binary */
	NPU_OPERATOR_BATCHNORM = 6,	/* in: x, scale, bias, mean, var; out: y; attrs.norm */
	NPU_OPERATOR_LAYERNORM = 7,	/* in: x, scale, [bias]; out: y; attrs.norm */
	NPU_OPERATOR_SOFTMAX = 8,	/* in: x; out: y; attrs.softmax */
	NPU_OPERATOR_REDUCE = 9,	/* in: x; out: y; attrs.reduce */
	NPU_OPERATOR_CONCAT = 10,	/* in: x0 .. xn-1; out: y; attrs.concat */
	NPU_OPERATOR_TRANSPOSE = 11,	/* in: x; out: y; attrs.transpose */
	NPU_OPERATOR_RESIZE = 12,	/* in: x; out: y; attrs.resize */
	NPU_OPERATOR_PAD = 13,		/* in: x; out: y; attrs.pad */
	NPU_OPERATOR_SLICE = 14,	/* in: x; out: y; attrs.slice */
	NPU_OPERATOR_CAST = 15,		/* in: x; out: y (another dtype); no attrs */
};

#define NPU_OPERATOR_LAST		NPU_OPERATOR_CAST

enum npu_dtype {
	NPU_DTYPE_F32 = 0,
	NPU_DTYPE_BF16 = 1,
	NPU_DTYPE_F16 = 2,
	NPU_DTYPE_S32 = 3,
	NPU_DTYPE_S8 = 4,
	NPU_DTYPE_U8 = 5,
};

#define NPU_DTYPE_LAST			NPU_DTYPE_U8

enum npu_tensor_format {
	/* any rank; element i sits at sum(index[d] * strides[d]) elements */
	NPU_FORMAT_STRIDED = 0,
	/*
	 * rank 4 (N, C, H, W): channels in blocks of 16, the block innermost,
	 * C padded up to a multiple of 16 (oneDNN's nChw16c); strides are 0
	 */
	NPU_FORMAT_NCHW16C = 1,
};

#define NPU_TENSOR_MAX_DIMS		8
#define NPU_OP_MAX_TENSORS		16	/* inputs and outputs together */
#define NPU_OP_DESC_ALIGN		64

/*
 * A tensor in device memory.  Strides are in elements and not negative;
 * the bytes the tensor spans are [addr, addr + extent) with extent
 * (sum((dims[d] - 1) * strides[d]) + 1) * element size, which must lie in
 * device memory.  A dimension of 0 makes an empty tensor.
 */
struct npu_tensor_desc {
	__le64 addr;		/* device memory offset of element 0 */
	__le16 dtype;		/* enum npu_dtype */
	__le16 format;		/* enum npu_tensor_format */
	__le16 ndims;		/* 0 (a scalar) .. NPU_TENSOR_MAX_DIMS */
	__le16 rsvd;
	__le64 dims[NPU_TENSOR_MAX_DIMS];	/* unused entries 0 */
	__le64 strides[NPU_TENSOR_MAX_DIMS];	/* unused entries 0 */
};

/* Elementwise functions: UNARY operators and fused activations. */
enum npu_unary_kind {
	NPU_UNARY_NONE = 0,		/* identity; as activation: none */
	NPU_UNARY_RELU = 1,
	NPU_UNARY_CLIP = 2,		/* min alpha, max beta */
	NPU_UNARY_SIGMOID = 3,
	NPU_UNARY_HARDSIGMOID = 4,	/* max(0, min(1, alpha * x + beta)) */
	NPU_UNARY_HARDSWISH = 5,	/* x * max(0, min(1, x / 6 + 1 / 2)) */
	NPU_UNARY_LEAKY_RELU = 6,	/* slope alpha */
	NPU_UNARY_TANH = 7,
	NPU_UNARY_EXP = 8,
	NPU_UNARY_LOG = 9,
	NPU_UNARY_SQRT = 10,
	NPU_UNARY_ABS = 11,
	NPU_UNARY_NEG = 12,
	NPU_UNARY_ERF = 13,
	NPU_UNARY_GELU = 14,		/* the erf form */
	NPU_UNARY_ELU = 15,		/* alpha */
	NPU_UNARY_SOFTPLUS = 16,
};

#define NPU_UNARY_LAST			NPU_UNARY_SOFTPLUS

/* alpha and beta are IEEE 754 binary32 bit patterns, like every float here */
struct npu_activation {
	__le32 kind;		/* enum npu_unary_kind */
	__le32 alpha;
	__le32 beta;
	__le32 rsvd;
};

/*
 * CONV2D and CONV_TRANSPOSE2D over NCHW: x (N, C, H, W), w (O, C / group,
 * KH, KW) for CONV2D and (C, O / group, KH, KW) for CONV_TRANSPOSE2D, b (O).
 * The output's H and W are given by y; the padding at the end of each
 * spatial axis is what makes them consistent with pads_begin, so
 * ConvTranspose's output_padding needs no field of its own.
 */
struct npu_attr_conv {
	__le32 strides[2];
	__le32 dilations[2];	/* 1: dense */
	__le32 pads_begin[2];
	__le32 group;
	__le32 rsvd;
	struct npu_activation act;
};

/*
 * y = act(alpha * a' x b' + beta * c), a' = a or its transpose over the
 * last two axes, likewise b'.  a, b, c and y have the same rank (2..8);
 * batch axes and c broadcast numpy-style where they are 1.
 */
struct npu_attr_matmul {
	__le32 trans_a;
	__le32 trans_b;
	__le32 alpha;
	__le32 beta;
	struct npu_activation act;
};

enum npu_pool_kind {
	NPU_POOL_MAX = 0,
	NPU_POOL_AVG_INCLUDE_PAD = 1,	/* divide by the whole window */
	NPU_POOL_AVG_EXCLUDE_PAD = 2,	/* divide by the window's elements in x */
};

/* Over NCHW; y's H and W fix the end padding, as for convolutions. */
struct npu_attr_pool {
	__le32 kind;		/* enum npu_pool_kind */
	__le32 kernel[2];
	__le32 strides[2];
	__le32 dilations[2];
	__le32 pads_begin[2];
	__le32 rsvd;
};

struct npu_attr_unary {
	struct npu_activation fn;
};

enum npu_binary_kind {
	NPU_BINARY_ADD = 0,
	NPU_BINARY_SUB = 1,
	NPU_BINARY_MUL = 2,
	NPU_BINARY_DIV = 3,
	NPU_BINARY_POW = 4,
	NPU_BINARY_MIN = 5,
	NPU_BINARY_MAX = 6,
};

/* a, b and y have the same rank; a and b broadcast where a dim is 1. */
struct npu_attr_binary {
	__le32 kind;		/* enum npu_binary_kind */
	__le32 rsvd;
	struct npu_activation act;
};

/*
 * BATCHNORM (inference) normalizes NCHW-like x per channel (axis 1) with
 * the given mean and var.  LAYERNORM normalizes over the axes from @axis
 * to the last, scale and bias having those axes' dims.
 */
struct npu_attr_norm {
	__le32 axis;
	__le32 epsilon;
	struct npu_activation act;
};

struct npu_attr_softmax {
	__le32 axis;
	__le32 log;		/* 1: log-softmax */
};

enum npu_reduce_kind {
	NPU_REDUCE_MEAN = 0,
	NPU_REDUCE_SUM = 1,
	NPU_REDUCE_MAX = 2,
	NPU_REDUCE_MIN = 3,
};

/* y has x's rank, with dims of 1 on exactly the axes in @axes. */
struct npu_attr_reduce {
	__le32 kind;		/* enum npu_reduce_kind */
	__le32 axes;		/* bit d set: axis d is reduced */
};

struct npu_attr_concat {
	__le32 axis;
	__le32 rsvd;
};

/* y's axis d is x's axis perm[d]; entries past the rank are 0. */
struct npu_attr_transpose {
	__le32 perm[NPU_TENSOR_MAX_DIMS];
};

enum npu_resize_mode {
	NPU_RESIZE_NEAREST = 0,
	NPU_RESIZE_LINEAR = 1,		/* bilinear over the last two axes */
};

/* How an output coordinate maps to an input coordinate, per ONNX Resize. */
enum npu_resize_coord {
	NPU_RESIZE_HALF_PIXEL = 0,
	NPU_RESIZE_ASYMMETRIC = 1,
	NPU_RESIZE_ALIGN_CORNERS = 2,
	NPU_RESIZE_PYTORCH_HALF_PIXEL = 3,
};

enum npu_resize_nearest {
	NPU_RESIZE_ROUND_PREFER_FLOOR = 0,
	NPU_RESIZE_ROUND_PREFER_CEIL = 1,
	NPU_RESIZE_FLOOR = 2,
	NPU_RESIZE_CEIL = 3,
};

struct npu_attr_resize {
	__le32 mode;		/* enum npu_resize_mode */
	__le32 coord;		/* enum npu_resize_coord */
	__le32 nearest;		/* enum npu_resize_nearest */
	__le32 rsvd;
	__le32 scales[NPU_TENSOR_MAX_DIMS];	/* y dim / x dim as ONNX gives it */
};

enum npu_pad_mode {
	NPU_PAD_CONSTANT = 0,
	NPU_PAD_REFLECT = 1,
	NPU_PAD_EDGE = 2,
};

/* Pads are signed: a negative pad crops. y's dims must agree. */
struct npu_attr_pad {
	__le32 mode;		/* enum npu_pad_mode */
	__le32 value;		/* CONSTANT: the fill value */
	__le32 begin[NPU_TENSOR_MAX_DIMS];
	__le32 end[NPU_TENSOR_MAX_DIMS];
};

/*
 * y[i] = x[starts + i * steps] on every axis; steps are signed and not 0,
 * starts lie inside x, and y's dims say how many elements are taken.
 */
struct npu_attr_slice {
	__le64 starts[NPU_TENSOR_MAX_DIMS];
	__le64 steps[NPU_TENSOR_MAX_DIMS];
};

union npu_op_attrs {
	struct npu_attr_conv conv;
	struct npu_attr_matmul matmul;
	struct npu_attr_pool pool;
	struct npu_attr_unary unary;
	struct npu_attr_binary binary;
	struct npu_attr_norm norm;
	struct npu_attr_softmax softmax;
	struct npu_attr_reduce reduce;
	struct npu_attr_concat concat;
	struct npu_attr_transpose transpose;
	struct npu_attr_resize resize;
	struct npu_attr_pad pad;
	struct npu_attr_slice slice;
	__u8 bytes[128];	/* the union's size; unused bytes 0 */
};

struct npu_op_desc {
	__le16 kind;		/* enum npu_operator */
	__le16 flags;		/* none defined, 0 */
	__u8 num_inputs;
	__u8 num_outputs;
	__le16 rsvd0;
	__le64 rsvd1;
	union npu_op_attrs attrs;
	struct npu_tensor_desc tensors[];	/* inputs, then outputs */
};

#endif /* NPU_HW_H */
