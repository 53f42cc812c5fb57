/* SPDX-License-Identifier: (GPL-2.0-only WITH Linux-syscall-note) OR MIT */
/*
 * The NPU card's operator descriptor format.
 *
 * The card reads it (driver/npu_hw.h includes this file), userspace builds
 * it (a model compiler writes one per operator), and the driver checks it
 * in between: DRM_NPU_OP_COMPUTE in npu_accel.h points at one.  It is one
 * format, so it has one definition, here.  Fields are little endian.
 */
#ifndef _UAPI_NPU_OPERATOR_H_
#define _UAPI_NPU_OPERATOR_H_

#include <linux/types.h>

#if defined(__cplusplus)
extern "C" {
#endif

enum npu_dtype {
	NPU_DTYPE_F32 = 0,
	NPU_DTYPE_BF16 = 1,
	NPU_DTYPE_F16 = 2,
	NPU_DTYPE_S32 = 3,
	NPU_DTYPE_S8 = 4,
	NPU_DTYPE_U8 = 5,
	NPU_DTYPE_S64 = 6,
	NPU_DTYPE_S16 = 7,
	/* one byte, 0 or 1; the card reads any byte but 0 as true */
	NPU_DTYPE_BOOL = 8,
	NPU_DTYPE_F64 = 9,
	/* BINARY, CAST and the operators that move elements only */
	NPU_DTYPE_U64 = 10,
};

#define NPU_DTYPE_LAST			NPU_DTYPE_U64

/*
 * Bytes per element of enum npu_dtype t, for t up to NPU_DTYPE_LAST: four
 * bits per type, so that the sizes are constants a C compiler can check
 * and the kernel, the card and userspace read them from one place.
 */
#define NPU_DTYPE_SIZES		((4ULL << (4 * NPU_DTYPE_F32)) |	\
				 (2ULL << (4 * NPU_DTYPE_BF16)) |	\
				 (2ULL << (4 * NPU_DTYPE_F16)) |	\
				 (4ULL << (4 * NPU_DTYPE_S32)) |	\
				 (1ULL << (4 * NPU_DTYPE_S8)) |		\
				 (1ULL << (4 * NPU_DTYPE_U8)) |		\
				 (8ULL << (4 * NPU_DTYPE_S64)) |	\
				 (2ULL << (4 * NPU_DTYPE_S16)) |	\
				 (1ULL << (4 * NPU_DTYPE_BOOL)) |	\
				 (8ULL << (4 * NPU_DTYPE_F64)) |	\
				 (8ULL << (4 * NPU_DTYPE_U64)))
#define NPU_DTYPE_SIZE(t)	((unsigned int)((NPU_DTYPE_SIZES >> (4 * (t))) & 0xf))

enum npu_tensor_format {
	/* any rank; element i sits at sum(index[d] * strides[d]) elements */
	NPU_FORMAT_STRIDED = 0,
	/*
	 * rank 4 (N, C, H, W): channels in blocks of 16, the block innermost,
	 * C padded up to a multiple of 16 (oneDNN's nChw16c); strides are 0;
	 * the padding channels are 0
	 */
	NPU_FORMAT_NCHW16C = 1,
	/*
	 * rank 4 (O, I, KH, KW): convolution weights in 16 x 16 blocks of
	 * output by input channels, the output channel innermost, O and I
	 * padded up to multiples of 16 (oneDNN's OIhw16i16o); strides are 0;
	 * the padding is 0.  A compiler lays weights out so once, and the
	 * card need not reorder them on every run.  CONV2D's weights only.
	 */
	NPU_FORMAT_OIHW16I16O = 2,
	/*
	 * rank 4 (O, I, KH, KW): a CONV2D's weights as PACK_CONV2D wrote them
	 * for that one convolution, in the card's own layout behind a header
	 * the card checks on every run; strides are 0.  The extent is
	 * NPU_PACKED_ELEMS elements, a bound on every layout the card picks.
	 * CONV2D's weights and PACK_CONV2D's output only.
	 */
	NPU_FORMAT_PACKED = 3,
};

#define NPU_FORMAT_LAST			NPU_FORMAT_PACKED

/* The card's header at the start of a PACKED tensor, in elements. */
#define NPU_PACKED_HEADER_ELEMS		64
/* Elements a PACKED tensor of dims (o, i, kh, kw) spans. */
#define NPU_PACKED_ELEMS(o, i, kh, kw) \
	(NPU_PACKED_HEADER_ELEMS + \
	 ((o) + 15) / 16 * 16 * (((i) + 15) / 16 * 16) * ((kh) + 3) * ((kw) + 3))

#define NPU_TENSOR_MAX_DIMS		8
#define NPU_OP_MAX_TENSORS		16	/* inputs and outputs together */
#define NPU_OP_DESC_ALIGN		64

/*
 * A tensor in device memory.  Strides are in elements and not negative;
 * the bytes the tensor spans are [addr, addr + extent) with extent
 * (sum((dims[d] - 1) * strides[d]) + 1) * element size, which must lie in
 * device memory; addr is a multiple of the element size.  No two elements
 * of an output share an address: by increasing stride, each axis of more
 * than one element has a stride above the span of those before it.  An
 * input may repeat its elements along axes of stride 0, as a broadcast
 * view does (its other axes as an output's), and then have no more
 * elements than device memory holds in its data type.  A dimension of 0
 * makes an empty tensor.
 *
 * On a direct ring (docs/hardware.md) a tensor names its buffer instead:
 * bind is a DEVICE binding, addr an offset into it, and the extent must
 * lie in that buffer.  Everywhere else bind is 0.
 */
struct npu_tensor_desc {
	__le64 addr;		/* device memory offset of element 0 */
	__le16 dtype;		/* enum npu_dtype */
	__le16 format;		/* enum npu_tensor_format */
	__le16 ndims;		/* 0 (a scalar) .. NPU_TENSOR_MAX_DIMS */
	__le16 bind;		/* direct rings: the buffer's binding; else 0 */
	__le64 dims[NPU_TENSOR_MAX_DIMS];	/* unused entries 0 */
	__le64 strides[NPU_TENSOR_MAX_DIMS];	/* unused entries 0 */
};

/* Elementwise functions: UNARY operators and fused activations. */
enum npu_unary_kind {
	NPU_UNARY_NONE = 0,		/* identity; as activation: none */
	NPU_UNARY_RELU = 1,
	NPU_UNARY_CLIP = 2,		/* min alpha, max beta; alpha <= beta */
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
	NPU_UNARY_SIN = 17,
	NPU_UNARY_COS = 18,
	NPU_UNARY_RSQRT = 19,		/* 1 / sqrt(x) */
	NPU_UNARY_SILU = 20,		/* x * sigmoid(x) */
	NPU_UNARY_GELU_TANH = 21,	/* the tanh approximation */
	NPU_UNARY_SIGN = 22,		/* 1, -1, or x itself for 0 and NaN */
	NPU_UNARY_THRESHOLD = 23,	/* x > alpha ? x : beta */
	/*
	 * alpha is beta and beta the threshold of PyTorch's Softplus:
	 * x * alpha > beta ? x : log1p(exp(alpha * x)) / alpha; alpha not 0
	 */
	NPU_UNARY_SOFTPLUS_BETA = 24,
	NPU_UNARY_LOGICAL_NOT = 25,	/* x == 0 ? 1 : 0 */
	NPU_UNARY_RECIPROCAL = 26,	/* 1 / x */
};

#define NPU_UNARY_LAST			NPU_UNARY_RECIPROCAL

/*
 * alpha and beta are IEEE 754 binary32 bit patterns, like every float
 * here; those the function does not take are 0
 */
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
 * ConvTranspose's output_padding needs no field of its own.  It is more
 * than -stride: no window of input is left out whole.  CONV2D's optional
 * s, with y's dims and data type, is added before the activation:
 * y = act(conv(x, w) + b + s), a residual connection in one operator; s may
 * be y itself (the same bytes and layout), which saves the card a copy.
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
 * batch axes and c broadcast numpy-style where they are 1.  Without c,
 * beta is 0.
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

/*
 * Over NCHW; y's H and W fix the end padding, as for convolutions.  Every
 * window overlaps x: each pad is smaller than the dilated kernel.
 */
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
	/*
	 * Comparisons: y is 1 where a op b holds, else 0, in y's data type,
	 * which need not be a's and b's (BOOL, say); a and b have one
	 */
	NPU_BINARY_EQ = 7,
	NPU_BINARY_NE = 8,
	NPU_BINARY_LT = 9,
	NPU_BINARY_LE = 10,
	NPU_BINARY_GT = 11,
	NPU_BINARY_GE = 12,
};

#define NPU_BINARY_LAST			NPU_BINARY_GE

/*
 * a, b and y have the same rank; a and b broadcast where a dim is 1.  On
 * integers (all three of integer types, U64 among them) the arithmetic is
 * exact, saturated into y's type (U64 at 0 and 2^64 - 1, as U8 at 0 and
 * 255), DIV toward zero and 0 for a division by 0, and act is NONE.
 */
struct npu_attr_binary {
	__le32 kind;		/* enum npu_binary_kind */
	__le32 rsvd;
	struct npu_activation act;
};

/*
 * BATCHNORM (inference) normalizes NCHW-like x per channel (axis 1) with
 * the given mean and var; its @axis is 0.  LAYERNORM normalizes over the
 * axes from @axis to the last, scale and bias having those axes' dims.
 * The parameters are F32.  RMSNORM divides by the root mean square over
 * the axes from @axis to the last: y = act(x / sqrt(mean(x^2) + epsilon) *
 * gamma), gamma having those axes' dims and any floating data type.
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
	NPU_REDUCE_L1 = 4,		/* sum(|x|) */
	NPU_REDUCE_L2 = 5,		/* sqrt(sum(x^2)) */
	NPU_REDUCE_PROD = 6,
	/*
	 * The index along the one axis in @axes of the first largest or
	 * smallest element; y is S32 or S64.
	 */
	NPU_REDUCE_ARGMAX = 7,
	NPU_REDUCE_ARGMIN = 8,
};

#define NPU_REDUCE_LAST			NPU_REDUCE_ARGMIN

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

/*
 * Each y dim is within 1 of x's times its scale (ONNX rounds either way);
 * LINEAR leaves the leading axes alone, with scale 1.
 */
struct npu_attr_resize {
	__le32 mode;		/* enum npu_resize_mode */
	__le32 coord;		/* enum npu_resize_coord */
	__le32 nearest;		/* enum npu_resize_nearest; 0 for LINEAR */
	__le32 rsvd;
	__le32 scales[NPU_TENSOR_MAX_DIMS];	/* y dim / x dim as ONNX gives it */
};

enum npu_pad_mode {
	NPU_PAD_CONSTANT = 0,
	NPU_PAD_REFLECT = 1,
	NPU_PAD_EDGE = 2,
};

/*
 * Pads are signed: a negative pad crops. y's dims must agree.  REFLECT
 * mirrors once: a pad is at most the dim minus 1.
 */
struct npu_attr_pad {
	__le32 mode;		/* enum npu_pad_mode */
	__le32 value;		/* CONSTANT: the fill value; else 0 */
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

/*
 * PACK_CONV2D lays w (O, C / group, KH, KW, strided) out for the CONV2D
 * described here, writing p: the convolution's attributes, its x's and
 * y's dims and formats, and which optional inputs it has.  That CONV2D,
 * given p as its weights, checks p's header against its own descriptor
 * (NPU_ERR_OP_PARAM if p was packed for another convolution, or by
 * another version of the card) and reads p as it is: a compiler packs
 * weights once, when a model is loaded, where plain weights would be
 * reordered on every run.
 */
struct npu_attr_pack_conv {
	struct npu_attr_conv conv;
	__le64 x_dims[4];
	__le64 y_dims[4];
	__le16 x_format;	/* enum npu_tensor_format */
	__le16 y_format;
	__le16 flags;		/* NPU_PACK_CONV_* */
	__le16 rsvd;
};

#define NPU_PACK_CONV_BIAS		0x0001	/* the CONV2D has b */
#define NPU_PACK_CONV_SUMMAND		0x0002	/* and s */

/*
 * y = x indexed along @axis by ind (S32 or S64), as ONNX's Gather: y's
 * dims are x's with that axis replaced by ind's dims, so y's rank is x's
 * less 1 plus ind's.  An index into an axis of n elements lies in [-n, n), a
 * negative one counting from the end.  The card reads the indices only
 * when it runs the operator, and checks every one before it writes y: one
 * outside stops the ring with NPU_ERR_OP_PARAM, y untouched.
 */
struct npu_attr_gather {
	__le32 axis;
	__le32 rsvd;
};

enum npu_fill_mode {
	NPU_FILL_CONSTANT = 0,		/* y = value */
	NPU_FILL_RANGE = 1,		/* y[i] = value + i * step */
};

/*
 * FILL writes y without reading anything: i is an element's row-major
 * index in y; value and step are IEEE 754 binary64 bit patterns (step 0
 * for CONSTANT).  Into an integer y exactly when value and step are
 * integers (computed in 64 bits), else toward zero and saturated; into
 * BOOL, 1 where the value is not 0.
 */
struct npu_attr_fill {
	__le32 mode;		/* enum npu_fill_mode */
	__le32 rsvd;
	__le64 value;
	__le64 step;
};

/*
 * TRIANGLE keeps a triangle of each matrix of the last two axes (row i,
 * column j) and zeroes the rest: y = x where j - i <= diagonal (upper 0,
 * tril) or j - i >= diagonal (upper 1, triu), else 0.  x and y have one
 * shape and data type, of rank 2 or more.
 */
struct npu_attr_triangle {
	__le32 upper;
	__le32 rsvd;
	__le64 diagonal;	/* signed */
};

/*
 * GROUPNORM normalizes x (N, C, ...) over each group of C / groups
 * channels with all their spatial elements, by the group's mean and biased
 * variance, then scales and shifts per channel: y = act((x - mean) /
 * sqrt(var + epsilon) * gamma + beta), gamma and beta of dims (C) and any
 * floating data type.  groups divides C.
 */
struct npu_attr_groupnorm {
	__le32 groups;
	__le32 epsilon;
	struct npu_activation act;
};

enum npu_scatter_mode {
	/* y's slices along @axis at ind[i] = src's slice i (index_copy) */
	NPU_SCATTER_SLICES = 0,
	/* y at ind[p] on @axis, p elsewhere = src[p] (ONNX ScatterElements) */
	NPU_SCATTER_ELEMENTS = 1,
};

enum npu_scatter_reduce {
	NPU_SCATTER_REPLACE = 0,
	NPU_SCATTER_ADD = 1,
	NPU_SCATTER_MUL = 2,
};

/*
 * SCATTER writes src into y, which it updates in place: only the elements
 * the indices (S32 or S64, negative ones counting from the end) select are
 * written.  The card checks every index before it writes: one outside
 * stops the ring with NPU_ERR_OP_PARAM, y untouched.
 */
struct npu_attr_scatter {
	__le32 axis;
	__le32 mode;		/* enum npu_scatter_mode */
	__le32 reduce;		/* enum npu_scatter_reduce */
	__le32 rsvd;
};

/*
 * SORT writes into ind (S32 or S64) the positions along @axis of x's
 * elements in sorted order, stable (equal elements keep their order),
 * NaN last; ind's dims are x's but for @axis, which may be shorter (the
 * first k: top-k).  The values are a GATHER_ELEMENTS away.
 */
struct npu_attr_sort {
	__le32 axis;
	__le32 descending;	/* 0 or 1 */
};

/* CUMSUM: y[i] = sum of x[j] along @axis, j <= i (exclusive: j < i). */
struct npu_attr_cumsum {
	__le32 axis;
	__le32 exclusive;	/* 0 or 1 */
	__le32 reverse;		/* 1: from the end */
	__le32 rsvd;
};

enum npu_rope_mode {
	/* pairs (i, i + d / 2): the halves rotate (GPT-NeoX) */
	NPU_ROPE_HALF = 0,
	/* pairs (2i, 2i + 1) (GPT-J) */
	NPU_ROPE_INTERLEAVED = 1,
};

/*
 * ROPE rotates pairs of x's last axis (d, even) by the angles whose
 * cosines and sines are cos and sin, of d elements each in the layout of
 * @mode, broadcast over x's other axes: y = x * cos + rotated(x) * sin.
 */
struct npu_attr_rope {
	__le32 mode;		/* enum npu_rope_mode */
	__le32 rsvd;
};

enum npu_attention_mask {
	NPU_ATTENTION_MASK_ADD = 0,	/* added to the scaled scores */
	NPU_ATTENTION_MASK_BOOL = 1,	/* not 0: that score is left out */
};

/*
 * ATTENTION: y = softmax(q k^T * scale + mask) v per head, q (B, N, Sq,
 * D), k (B, Nk, Sk, D), v (B, Nk, Sk, Dv), y (B, N, Sq, Dv), N a multiple
 * of Nk (grouped heads: head h reads k and v head h / (N / Nk)); mask
 * broadcast to (B, N, Sq, Sk).  The card never holds a whole row of
 * scores: it keeps a running maximum and sum.  A row left with no score
 * is 0.
 */
struct npu_attr_attention {
	__le32 scale;		/* IEEE 754 binary32 */
	__le32 mask;		/* enum npu_attention_mask */
	__le32 rsvd;
	__le32 rsvd2;		/* 0 */
};

/*
 * IM2COL: x (N, C, H, W) to y (N, C * kh * kw, L), L the count of window
 * positions, as PyTorch's unfold; padding is zeros, the same on both
 * sides of an axis.  Entries are (h, w).
 */
struct npu_attr_im2col {
	__le32 kernel[2];
	__le32 stride[2];
	__le32 pad[2];
	__le32 dilation[2];
};

#define NPU_TRISOLVE_UPPER		0x1	/* else lower */
#define NPU_TRISOLVE_TRANSPOSE		0x2	/* solve a^T x = b */
#define NPU_TRISOLVE_UNIT		0x4	/* a's diagonal taken as 1 */

/* TRISOLVE: x with a x = b, a (..., n, n) triangular, b and x (..., n, k). */
struct npu_attr_trisolve {
	__le32 flags;		/* NPU_TRISOLVE_* */
	__le32 rsvd;
};

/*
 * QMATMUL: y = x w', w' = (w + offset) * scale dequantized inside the
 * product: x (..., M, K) of a floating type; w S8, (K, N), or (N, K) with
 * @trans_w; at @bits 4 each byte of w holds two signed 4-bit values along
 * its last axis, the even one in the low nibble, so that axis counts
 * bytes, half the values.  scale and offset (one type: F32, F16 or BF16)
 * are (ceil(K / group), N), or (1, N) or (N) with @group 0; y (..., M, N)
 * x's type.
 */
struct npu_attr_qmatmul {
	__le32 group;		/* rows of w per scale; 0: one for all K */
	__le32 bits;		/* 8 or 4 */
	__le32 rsvd;		/* 0 */
	__le32 trans_w;		/* 1: w is given as (N, K) */
};

enum npu_random_dist {
	/* [lo, hi): floating lo and hi, or integers (NPU_RANDOM_UNSIGNED) */
	NPU_RANDOM_UNIFORM = 0,
	/* mean lo, standard deviation hi (not negative) */
	NPU_RANDOM_NORMAL = 1,
	/* the same, drawn again until within 2 standard deviations of the mean */
	NPU_RANDOM_TRUNCATED_NORMAL = 2,
	/*
	 * y (U8) holds @bits bits, bit i in byte i / 8 at 1 << (i % 8): 1
	 * (keep) with probability 1 - lo, lo the dropout ratio in [0, 1];
	 * the bits of the last byte past @bits are 0
	 */
	NPU_RANDOM_DROPOUT_MASK = 3,
};

#define NPU_RANDOM_DIST_LAST		NPU_RANDOM_DROPOUT_MASK

/* lo and hi of an integer UNIFORM are unsigned, as are y's elements */
#define NPU_RANDOM_UNSIGNED		0x1

/*
 * RANDOM draws y from Philox4x32-10 (Salmon et al., "Parallel random
 * numbers: as easy as 1, 2, 3", SC11), keyed by @seed (low word first),
 * so that a draw depends only on the seed and the counter, never on how
 * the card shares the work out.  Element i (for DROPOUT_MASK, bit i) takes
 * the four words of the block at counter ctr + i, ctr the 128-bit little
 * endian number in the operator's input (S64, dims (2)); once y is
 * written, the card adds the elements (bits) drawn to ctr, in place, so
 * that the next draw from the same ctr continues the sequence.  A
 * TRUNCATED_NORMAL block with neither of its two normals within bounds
 * is drawn again with the key's high word plus 1, 2, ... (at most 16
 * times; then the bound).  lo and hi are IEEE 754 binary64 bit patterns
 * for a floating y and for DROPOUT_MASK, else S64 (U64 with
 * NPU_RANDOM_UNSIGNED) that y's type holds; a floating y gets the draw
 * rounded to its type.  @bits is DROPOUT_MASK's count, at most y's
 * elements times 8 and more than that less 8; else 0.
 */
struct npu_attr_random {
	__le32 dist;		/* enum npu_random_dist */
	__le32 flags;		/* NPU_RANDOM_* */
	__le64 seed;
	__le64 lo;
	__le64 hi;
	__le64 bits;
	__le32 rsvd;		/* 0 */
	__le32 rsvd2;		/* 0 */
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
	struct npu_attr_pack_conv pack_conv;
	struct npu_attr_gather gather;
	struct npu_attr_fill fill;
	struct npu_attr_triangle triangle;
	struct npu_attr_groupnorm groupnorm;
	struct npu_attr_scatter scatter;
	struct npu_attr_sort sort;
	struct npu_attr_cumsum cumsum;
	struct npu_attr_rope rope;
	struct npu_attr_attention attention;
	struct npu_attr_im2col im2col;
	struct npu_attr_trisolve trisolve;
	struct npu_attr_qmatmul qmatmul;
	struct npu_attr_random random;
	__u8 bytes[128];	/* the union's size; unused bytes 0 */
};

/*
 * Operators: the card's NPU_OP_COMPUTE runs one operator of the card's operator
 * library.  The command's src is the host bus address of an npu_op_desc,
 * 64-byte aligned, with NPU_CMD_SRC_HOST set; size is the descriptor's
 * length, sizeof(struct npu_op_desc) plus one npu_tensor_desc per input
 * and output.  The card reads the whole descriptor before it touches a
 * tensor, so a descriptor the card has fetched is not read again.
 *
 * The operators are listed here once, a row each, and what the driver
 * checks of a descriptor and the card's dispatch derive from this list, as
 * enum npu_operator does.  A row is
 *
 *	NPU_OPERATOR(NAME, number, min_inputs, max_inputs, attrs, rsvd, act, name)
 *
 * NAME		the enumerator is NPU_OPERATOR_<NAME>
 * number	its value, and the operator's bit of the card's
 *		NPU_ID_OPERATORS: ABI, so it never changes.  Rows are in order
 *		of number, from 0 without holes; the driver's build checks that
 *		each number is its enumerator's value.
 * min_inputs, max_inputs
 *		how many inputs the operator takes; it has one output
 * attrs	attr(its member of union npu_op_attrs), or none; every
 *		attribute byte past that member is 0
 * rsvd		attr(a __le32 reserved field in union npu_op_attrs), which is
 *		0, or none
 * act		attr(its struct npu_activation in union npu_op_attrs), or none
 * name		NAME in lower case: the card's implementation is named after it
 *
 * The comment above a row names the operator's tensors.  To use the table,
 * define NPU_OPERATOR() to what a row becomes, expand NPU_OPERATOR_TABLE
 * and undefine NPU_OPERATOR.
 */
#define NPU_OPERATOR_TABLE __NPU_OPERATOR_ROWS( \
	/* in: x, w, [b, [s]]; out: y */ \
	NPU_OPERATOR(CONV2D, 0, 2, 4, attr(conv), attr(conv.rsvd), attr(conv.act), conv2d) \
	/* in: x, w, [b]; out: y */ \
	NPU_OPERATOR(CONV_TRANSPOSE2D, 1, 2, 3, attr(conv), attr(conv.rsvd), attr(conv.act), \
		     conv_transpose2d) \
	/* in: a, b, [c]; out: y */ \
	NPU_OPERATOR(MATMUL, 2, 2, 3, attr(matmul), none, attr(matmul.act), matmul) \
	/* in: x; out: y */ \
	NPU_OPERATOR(POOL2D, 3, 1, 1, attr(pool), attr(pool.rsvd), none, pool2d) \
	/* in: x; out: y */ \
	NPU_OPERATOR(UNARY, 4, 1, 1, attr(unary), none, attr(unary.fn), unary) \
	/* in: a, b; out: y */ \
	NPU_OPERATOR(BINARY, 5, 2, 2, attr(binary), attr(binary.rsvd), attr(binary.act), binary) \
	/* in: x, scale, bias, mean, var; out: y */ \
	NPU_OPERATOR(BATCHNORM, 6, 5, 5, attr(norm), none, attr(norm.act), batchnorm) \
	/* in: x, scale, [bias]; out: y */ \
	NPU_OPERATOR(LAYERNORM, 7, 2, 3, attr(norm), none, attr(norm.act), layernorm) \
	/* in: x; out: y */ \
	NPU_OPERATOR(SOFTMAX, 8, 1, 1, attr(softmax), none, none, softmax) \
	/* in: x; out: y */ \
	NPU_OPERATOR(REDUCE, 9, 1, 1, attr(reduce), none, none, reduce) \
	/* in: x0 .. xn-1; out: y */ \
	NPU_OPERATOR(CONCAT, 10, 1, NPU_OP_MAX_TENSORS - 1, attr(concat), attr(concat.rsvd), none, \
		     concat) \
	/* in: x; out: y */ \
	NPU_OPERATOR(TRANSPOSE, 11, 1, 1, attr(transpose), none, none, transpose) \
	/* in: x; out: y */ \
	NPU_OPERATOR(RESIZE, 12, 1, 1, attr(resize), attr(resize.rsvd), none, resize) \
	/* in: x; out: y */ \
	NPU_OPERATOR(PAD, 13, 1, 1, attr(pad), none, none, pad) \
	/* in: x; out: y */ \
	NPU_OPERATOR(SLICE, 14, 1, 1, attr(slice), none, none, slice) \
	/* in: x; out: y (another dtype) */ \
	NPU_OPERATOR(CAST, 15, 1, 1, none, none, none, cast) \
	/* in: w; out: p (PACKED) */ \
	NPU_OPERATOR(PACK_CONV2D, 16, 1, 1, attr(pack_conv), attr(pack_conv.conv.rsvd), \
		     attr(pack_conv.conv.act), pack_conv2d) \
	/* in: x, ind (S32 or S64); out: y */ \
	NPU_OPERATOR(GATHER, 17, 2, 2, attr(gather), attr(gather.rsvd), none, gather) \
	/* in: none; out: y */ \
	NPU_OPERATOR(FILL, 18, 0, 0, attr(fill), attr(fill.rsvd), none, fill) \
	/* in: cond (any type, not 0: true), a, b; out: y = cond ? a : b */ \
	NPU_OPERATOR(WHERE, 19, 3, 3, none, none, none, where) \
	/* in: x; out: y */ \
	NPU_OPERATOR(TRIANGLE, 20, 1, 1, attr(triangle), attr(triangle.rsvd), none, triangle) \
	/* in: x, gamma; out: y */ \
	NPU_OPERATOR(RMSNORM, 21, 2, 2, attr(norm), none, attr(norm.act), rmsnorm) \
	/* in: x, gamma, beta; out: y */ \
	NPU_OPERATOR(GROUPNORM, 22, 3, 3, attr(groupnorm), none, attr(groupnorm.act), groupnorm) \
	/* in: ind (S32 or S64), src; out: y (updated in place) */ \
	NPU_OPERATOR(SCATTER, 23, 2, 2, attr(scatter), attr(scatter.rsvd), none, scatter) \
	/* in: x; out: ind (S32 or S64) */ \
	NPU_OPERATOR(SORT, 24, 1, 1, attr(sort), none, none, sort) \
	/* in: x, ind (S32 or S64); out: y, ind's dims */ \
	NPU_OPERATOR(GATHER_ELEMENTS, 25, 2, 2, attr(gather), attr(gather.rsvd), none, \
		     gather_elements) \
	/* in: x; out: y */ \
	NPU_OPERATOR(CUMSUM, 26, 1, 1, attr(cumsum), attr(cumsum.rsvd), none, cumsum) \
	/* in: x, cos, sin; out: y */ \
	NPU_OPERATOR(ROPE, 27, 3, 3, attr(rope), attr(rope.rsvd), none, rope) \
	/* in: q, k, v, [mask]; out: y */ \
	NPU_OPERATOR(ATTENTION, 28, 3, 4, attr(attention), attr(attention.rsvd), none, attention) \
	/* in: x; out: y */ \
	NPU_OPERATOR(IM2COL, 29, 1, 1, attr(im2col), none, none, im2col) \
	/* in: a, b; out: x */ \
	NPU_OPERATOR(TRISOLVE, 30, 2, 2, attr(trisolve), attr(trisolve.rsvd), none, trisolve) \
	/* in: x, w, scale, [offset]; out: y */ \
	NPU_OPERATOR(QMATMUL, 31, 3, 4, attr(qmatmul), attr(qmatmul.rsvd), none, qmatmul) \
	/* in: ctr (S64, dims (2), advanced in place); out: y */ \
	NPU_OPERATOR(RANDOM, 32, 1, 1, attr(random), attr(random.rsvd), none, random))

/* The rows as one macro argument, which checkpatch takes for an expression. */
#define __NPU_OPERATOR_ROWS(...)	__VA_ARGS__

#define NPU_OPERATOR(NAME, ...)		NPU_OPERATOR_##NAME,
enum npu_operator {
	NPU_OPERATOR_TABLE
	__NPU_OPERATOR_END
};

#undef NPU_OPERATOR

#define NPU_OPERATOR_LAST		(__NPU_OPERATOR_END - 1)

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

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_NPU_OPERATOR_H_ */
