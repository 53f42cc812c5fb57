// SPDX-License-Identifier: GPL-2.0-only
/*
 * Operators: DRM_NPU_OP_COMPUTE.  A descriptor is copied from userspace
 * once, into coherent memory of its job that only the driver and the card
 * reach, and checked there: its structure, and that each tensor lies in
 * one device buffer of the submitter, which the job then holds.  Whether
 * shapes and attributes agree is the card's to say, by stopping the ring
 * with NPU_ERR_OP_PARAM.  Also here: the card's compute capabilities and
 * the rings' compute counters, as streams and contexts account them.
 */

#include <linux/dma-mapping.h>
#include <linux/overflow.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "npu_drv.h"

/* The largest descriptor the format allows, whatever the card says. */
#define NPU_OP_DESC_LIMIT \
	(sizeof(struct npu_op_desc) + NPU_OP_MAX_TENSORS * sizeof(struct npu_tensor_desc))

#define NPU_ATTR_OFFSET(member)	offsetof(union npu_op_attrs, member)

/* An attribute field the operator does not have. */
#define NPU_ATTR_NONE		0xff

/* The operator table's attribute columns: attr(member), or none. */
#define NPU_ATTR_OFFSET_attr(member)	NPU_ATTR_OFFSET(member)
#define NPU_ATTR_OFFSET_none		NPU_ATTR_NONE
#define NPU_ATTR_SIZE_attr(member)	sizeof_field(union npu_op_attrs, member)
#define NPU_ATTR_SIZE_none		0

/*
 * What the driver checks of an operator's descriptor, as the operator
 * table gives it: how many inputs it takes (it has one output), how much of
 * the attribute union it uses, and the offsets there of its __le32 reserved
 * field and of its activation.
 */
struct npu_op_rule {
	u8 min_inputs;
	u8 max_inputs;
	u8 attr_size;
	u8 rsvd_offset;
	u8 act_offset;
};

/*
 * A row's operator.  Its enumerator counts the rows before it, so the
 * build fails unless each row's ABI number is its place in the table:
 * numbers from 0, none twice and none left out, every one with a rule.
 */
#define NPU_OP_KIND(NAME, number) \
	(NPU_OPERATOR_##NAME + BUILD_BUG_ON_ZERO(NPU_OPERATOR_##NAME != (number)))

#define NPU_OPERATOR(NAME, number, min, max, attrs, rsvd, act, ...) \
	[NPU_OP_KIND(NAME, number)] = { \
		.min_inputs = (min), .max_inputs = (max), \
		.attr_size = NPU_ATTR_SIZE_##attrs, \
		.rsvd_offset = NPU_ATTR_OFFSET_##rsvd, \
		.act_offset = NPU_ATTR_OFFSET_##act, \
	},

static const struct npu_op_rule npu_op_rules[NPU_OPERATOR_LAST + 1] = {
	NPU_OPERATOR_TABLE
};

#undef NPU_OPERATOR

/*
 * An operator's per-axis arrays: @arrays consecutive arrays at @offset of
 * the attribute union, of NPU_TENSOR_MAX_DIMS entries of @entry bytes,
 * whose entries past the rank of the first input are unused.
 */
struct npu_op_axes {
	u8 offset;
	u8 entry;
	u8 arrays;
};

static const struct npu_op_axes npu_op_axes[NPU_OPERATOR_LAST + 1] = {
	[NPU_OPERATOR_TRANSPOSE] = {
		.offset = NPU_ATTR_OFFSET(transpose.perm),
		.entry = sizeof(__le32), .arrays = 1,
	},
	[NPU_OPERATOR_RESIZE] = {
		.offset = NPU_ATTR_OFFSET(resize.scales),
		.entry = sizeof(__le32), .arrays = 1,
	},
	[NPU_OPERATOR_PAD] = {
		.offset = NPU_ATTR_OFFSET(pad.begin),
		.entry = sizeof(__le32), .arrays = 2,
	},
	[NPU_OPERATOR_SLICE] = {
		.offset = NPU_ATTR_OFFSET(slice.starts),
		.entry = sizeof(__le64), .arrays = 2,
	},
};

/* The axes read pads' and slices' two arrays as one run. */
static_assert(offsetofend(struct npu_attr_pad, begin) ==
	      offsetof(struct npu_attr_pad, end));
static_assert(offsetofend(struct npu_attr_slice, starts) ==
	      offsetof(struct npu_attr_slice, steps));

#define NPU_ACT_ALPHA		BIT(0)
#define NPU_ACT_BETA		BIT(1)

/* The parameters each function takes; the card refuses the others unless 0. */
static const u8 npu_act_params[NPU_UNARY_LAST + 1] = {
	[NPU_UNARY_CLIP] = NPU_ACT_ALPHA | NPU_ACT_BETA,
	[NPU_UNARY_HARDSIGMOID] = NPU_ACT_ALPHA | NPU_ACT_BETA,
	[NPU_UNARY_LEAKY_RELU] = NPU_ACT_ALPHA,
	[NPU_UNARY_ELU] = NPU_ACT_ALPHA,
	[NPU_UNARY_THRESHOLD] = NPU_ACT_ALPHA | NPU_ACT_BETA,
	[NPU_UNARY_SOFTPLUS_BETA] = NPU_ACT_ALPHA | NPU_ACT_BETA,
};

static void npu_op_desc_pool_release(struct drm_device *drm, void *pool)
{
	dma_pool_destroy(pool);
}

/**
 * npu_compute_probe - read the card's compute capabilities
 * @ndev: the card, with BAR2 mapped
 *
 * Return: 0, or -ENODEV when the card claims operators it cannot run.
 */
int npu_compute_probe(struct npu_device *ndev)
{
	struct npu_identity *id = &ndev->id;

	id->num_compute_engines = npu_rd32(ndev, NPU_ID_NUM_COMPUTE_ENGINES);
	id->oplib_version = npu_rd32(ndev, NPU_ID_OPLIB_VERSION);
	id->operators = npu_rd64(ndev, NPU_ID_OPERATORS) &
			GENMASK_ULL(NPU_OPERATOR_LAST, 0);
	id->dtypes = npu_rd32(ndev, NPU_ID_DTYPES) & GENMASK(NPU_DTYPE_LAST, 0);
	id->op_desc_max = min_t(u32, npu_rd32(ndev, NPU_ID_OP_DESC_MAX),
				NPU_OP_DESC_LIMIT);

	if (id->operators &&
	    (!id->num_compute_engines || !id->dtypes ||
	     id->op_desc_max < struct_size_t(struct npu_op_desc, tensors, 2))) {
		drm_err(&ndev->drm, "inconsistent compute capabilities: %u engines, descriptors of %u bytes\n",
			id->num_compute_engines, id->op_desc_max);
		return -ENODEV;
	}
	if (!id->operators)
		return 0;
	/*
	 * Descriptors of single-operator batches come from a pool: a page
	 * allocated, zeroed and freed per operator costs more than the
	 * operator's whole submission otherwise does. Jobs outlive an unbind
	 * (open files free theirs), so the pool lives as long as the DRM
	 * device, not the binding.
	 */
	ndev->op_desc_pool = dma_pool_create("npu-op-desc", ndev->drm.dev,
					     ALIGN(id->op_desc_max, NPU_OP_DESC_ALIGN),
					     NPU_OP_DESC_ALIGN, 0);
	if (!ndev->op_desc_pool)
		return -ENOMEM;
	return drmm_add_action_or_reset(&ndev->drm, npu_op_desc_pool_release,
					ndev->op_desc_pool);
}

/**
 * npu_compute_param - the GET_PARAM values of the compute capabilities
 * @ndev: the card
 * @param: enum drm_npu_param
 * @value: out
 *
 * Return: 0, or -EINVAL for a parameter that is not one of them.
 */
int npu_compute_param(struct npu_device *ndev, u32 param, u64 *value)
{
	const struct npu_identity *id = &ndev->id;

	switch (param) {
	case DRM_NPU_PARAM_NUM_COMPUTE_ENGINES:
		*value = id->num_compute_engines;
		return 0;
	case DRM_NPU_PARAM_OPLIB_VERSION:
		*value = id->oplib_version;
		return 0;
	case DRM_NPU_PARAM_OPERATORS:
		*value = id->operators;
		return 0;
	case DRM_NPU_PARAM_DTYPES:
		*value = id->dtypes;
		return 0;
	case DRM_NPU_PARAM_OP_DESC_MAX:
		*value = id->operators ? id->op_desc_max : 0;
		return 0;
	case DRM_NPU_PARAM_COMPUTE_NS:
		*value = atomic64_read(&ndev->compute_ns);
		return 0;
	default:
		return -EINVAL;
	}
}

/*
 * A batch's descriptors lie in chunks of coherent memory no larger than
 * this (a program's may need hundreds of MiB, far beyond what the page
 * allocator gives in one piece); none straddles two chunks.
 */
#define NPU_OP_CHUNK_BYTES	SZ_256K

static size_t npu_op_chunk_bytes(const struct npu_device *ndev)
{
	return max_t(size_t, NPU_OP_CHUNK_BYTES,
		     ALIGN(ndev->id.op_desc_max, NPU_OP_DESC_ALIGN));
}

/**
 * npu_compute_plan - size what the operators of a batch need
 * @ndev: the card
 * @ucmds: the batch, in kernel memory
 * @count: number of @ucmds
 * @plan: out
 *
 * Return: 0, or -EINVAL for a COMPUTE no descriptor the card takes fits.
 */
int npu_compute_plan(struct npu_device *ndev, const struct drm_npu_cmd *ucmds,
		     unsigned int count, struct npu_compute_plan *plan)
{
	u32 max = ndev->id.operators ? ndev->id.op_desc_max : 0;
	size_t chunk = npu_op_chunk_bytes(ndev), len;
	unsigned int i;

	memset(plan, 0, sizeof(*plan));
	for (i = 0; i < count; i++) {
		if (ucmds[i].op != DRM_NPU_OP_COMPUTE)
			continue;
		if (ucmds[i].size < sizeof(struct npu_op_desc) || ucmds[i].size > max)
			return -EINVAL;
		plan->ops++;
		len = ALIGN(ucmds[i].size, NPU_OP_DESC_ALIGN);
		if (!plan->chunks || plan->last + len > chunk) {
			plan->chunks++;
			plan->last = 0;
		}
		plan->last += len;
	}
	return 0;
}

static int npu_compute_job_chunks(struct npu_device *ndev, struct npu_job *job,
				  const struct npu_compute_plan *plan)
{
	struct npu_op_chunk *c;
	unsigned int i;

	job->ops = &job->ops_one;
	if (plan->chunks > 1) {
		job->ops = kcalloc(plan->chunks, sizeof(*job->ops), GFP_KERNEL);
		if (!job->ops)
			return -ENOMEM;
	}
	for (i = 0; i < plan->chunks; i++) {
		c = &job->ops[i];
		c->size = i + 1 < plan->chunks ? npu_op_chunk_bytes(ndev) : plan->last;
		c->cpu = dma_alloc_coherent(ndev->drm.dev, c->size, &c->dma, GFP_KERNEL);
		if (!c->cpu)
			return -ENOMEM;
		job->ops_count++;
	}
	return 0;
}

/**
 * npu_compute_job_init - give a job room for its operators' descriptors
 * @ndev: the card
 * @job: a job being built
 * @plan: what its batch needs
 *
 * Return: 0 or -ENOMEM; what it did take, npu_compute_job_fini() frees.
 */
int npu_compute_job_init(struct npu_device *ndev, struct npu_job *job,
			 const struct npu_compute_plan *plan)
{
	struct npu_op_chunk *c = &job->ops_one;

	if (!plan->ops)
		return 0;
	if (plan->ops > 1)
		return npu_compute_job_chunks(ndev, job, plan);
	c->cpu = dma_pool_alloc(ndev->op_desc_pool, GFP_KERNEL, &c->dma);
	if (!c->cpu)
		return -ENOMEM;
	c->size = ALIGN(ndev->id.op_desc_max, NPU_OP_DESC_ALIGN);
	job->ops = c;
	job->ops_count = 1;
	job->ops_pooled = true;
	return 0;
}

void npu_compute_job_fini(struct npu_device *ndev, struct npu_job *job)
{
	struct npu_op_chunk *c;
	unsigned int i;

	for (i = 0; i < job->ops_count; i++) {
		c = &job->ops[i];
		if (job->ops_pooled)
			dma_pool_free(ndev->op_desc_pool, c->cpu, c->dma);
		else
			dma_free_coherent(ndev->drm.dev, c->size, c->cpu, c->dma);
	}
	if (job->ops != &job->ops_one)
		kfree(job->ops);
	job->ops = NULL;
	job->ops_count = 0;
}

static bool npu_bytes_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

/* A function the card does not know is the card's to refuse. */
static int npu_check_act(const struct npu_activation *act)
{
	u32 kind = le32_to_cpu(act->kind);

	if (act->rsvd)
		return -EINVAL;
	if (kind > NPU_UNARY_LAST)
		return 0;
	if ((act->alpha && !(npu_act_params[kind] & NPU_ACT_ALPHA)) ||
	    (act->beta && !(npu_act_params[kind] & NPU_ACT_BETA)))
		return -EINVAL;
	return 0;
}

/*
 * Attributes that the operator's configuration leaves unused; modes the
 * card does not know are its to refuse.
 */
static int npu_check_unused(u16 kind, const struct npu_op_desc *desc)
{
	const union npu_op_attrs *a = &desc->attrs;
	u32 mode;

	switch (kind) {
	case NPU_OPERATOR_MATMUL:
		/* beta scales c */
		return desc->num_inputs < 3 && a->matmul.beta ? -EINVAL : 0;
	case NPU_OPERATOR_BATCHNORM:
		/* its channel axis is 1: axis is LAYERNORM's */
		return a->norm.axis ? -EINVAL : 0;
	case NPU_OPERATOR_FILL:
		return le32_to_cpu(a->fill.mode) == NPU_FILL_CONSTANT && a->fill.step ?
		       -EINVAL : 0;
	case NPU_OPERATOR_PAD:
		mode = le32_to_cpu(a->pad.mode);
		return (mode == NPU_PAD_REFLECT || mode == NPU_PAD_EDGE) && a->pad.value ?
		       -EINVAL : 0;
	case NPU_OPERATOR_RESIZE:
		mode = le32_to_cpu(a->resize.mode);
		return mode == NPU_RESIZE_LINEAR && a->resize.nearest ? -EINVAL : 0;
	case NPU_OPERATOR_PACK_CONV2D:
		/* the rule checks the CONV2D's padding, this its own */
		return a->pack_conv.rsvd ||
		       le16_to_cpu(a->pack_conv.flags) &
		       ~(NPU_PACK_CONV_BIAS | NPU_PACK_CONV_SUMMAND) ? -EINVAL : 0;
	default:
		return 0;
	}
}

/* The attribute bytes the operator does not use are 0. */
static int npu_check_attrs(u16 kind, const union npu_op_attrs *attrs,
			   unsigned int rank)
{
	const struct npu_op_rule *rule = &npu_op_rules[kind];
	const struct npu_op_axes *axes = &npu_op_axes[kind];
	const u8 *bytes = attrs->bytes;
	unsigned int i, unused;
	__le32 rsvd;
	int ret;

	if (!npu_bytes_zero(bytes + rule->attr_size, sizeof(*attrs) - rule->attr_size))
		return -EINVAL;
	if (rule->rsvd_offset != NPU_ATTR_NONE) {
		memcpy(&rsvd, bytes + rule->rsvd_offset, sizeof(rsvd));
		if (rsvd)
			return -EINVAL;
	}
	unused = (NPU_TENSOR_MAX_DIMS - rank) * axes->entry;
	for (i = 0; i < axes->arrays; i++) {
		const u8 *array = bytes + axes->offset +
				  i * NPU_TENSOR_MAX_DIMS * axes->entry;

		if (!npu_bytes_zero(array + rank * axes->entry, unused))
			return -EINVAL;
	}
	if (rule->act_offset != NPU_ATTR_NONE) {
		ret = npu_check_act((const struct npu_activation *)(bytes + rule->act_offset));
		if (ret)
			return ret;
	}
	return 0;
}

/* Elements from the first to one past the last, strides not negative. */
static int npu_strided_elements(const struct npu_tensor_desc *t, unsigned int ndims,
				u64 *elements)
{
	u64 last = 0, step;
	bool empty = false;
	unsigned int d;

	for (d = 0; d < ndims; d++) {
		u64 dim = le64_to_cpu(t->dims[d]), stride = le64_to_cpu(t->strides[d]);

		if (stride > S64_MAX)
			return -EINVAL;
		if (!dim) {
			empty = true;
			continue;
		}
		if (check_mul_overflow(dim - 1, stride, &step) ||
		    check_add_overflow(last, step, &last))
			return -EINVAL;
	}
	if (check_add_overflow(last, 1, elements))
		return -EINVAL;
	if (empty)
		*elements = 0;
	return 0;
}

/* oneDNN's nChw16c: N x ceil(C / 16) x H x W blocks of 16 channels. */
/*
 * The blocked formats: rank 4 without strides, dim 1 (and for weights dim
 * 0 too) rounded up to a multiple of 16.
 */
static int npu_blocked_elements(const struct npu_tensor_desc *t, unsigned int ndims,
				bool weights, u64 *elements)
{
	u64 n = le64_to_cpu(t->dims[0]), c = le64_to_cpu(t->dims[1]);
	u64 h = le64_to_cpu(t->dims[2]), w = le64_to_cpu(t->dims[3]);
	unsigned int d;

	if (ndims != 4)
		return -EINVAL;
	for (d = 0; d < ndims; d++)
		if (t->strides[d])
			return -EINVAL;
	if (check_add_overflow(c, 15, &c))
		return -EINVAL;
	c &= ~15ULL;
	if (weights) {
		if (check_add_overflow(n, 15, &n))
			return -EINVAL;
		n &= ~15ULL;
	}
	if (check_mul_overflow(n, c, elements) ||
	    check_mul_overflow(*elements, h, elements) ||
	    check_mul_overflow(*elements, w, elements))
		return -EINVAL;
	return 0;
}

/*
 * NPU_FORMAT_PACKED: rank 4 without strides, the card's header and room
 * for any layout it packs weights of these dims in (NPU_PACKED_ELEMS).
 */
static int npu_packed_elements(const struct npu_tensor_desc *t, unsigned int ndims,
			       u64 *elements)
{
	u64 dim, term = 1;
	bool empty = false;
	unsigned int d;

	if (ndims != 4)
		return -EINVAL;
	for (d = 0; d < ndims; d++) {
		dim = le64_to_cpu(t->dims[d]);
		if (t->strides[d])
			return -EINVAL;
		empty |= !dim;
		/* O and I rounded up to 16, KH and KW grown by 3 */
		if (d < 2 && check_add_overflow(dim, 15, &dim))
			return -EINVAL;
		if (d < 2)
			dim &= ~15ULL;
		else if (check_add_overflow(dim, 3, &dim))
			return -EINVAL;
		if (check_mul_overflow(term, dim, &term))
			return -EINVAL;
	}
	if (empty) {
		*elements = 0;
		return 0;
	}
	if (check_add_overflow(term, (u64)NPU_PACKED_HEADER_ELEMS, elements))
		return -EINVAL;
	return 0;
}

/* A tensor the card can lay out; *extent: the bytes it spans from addr. */
static int npu_tensor_extent(struct npu_device *ndev, const struct npu_tensor_desc *t,
			     u64 *extent)
{
	u16 dtype = le16_to_cpu(t->dtype), format = le16_to_cpu(t->format);
	u16 ndims = le16_to_cpu(t->ndims);
	u64 elements, count = 1;
	unsigned int d;
	int ret;

	if (t->bind || dtype > NPU_DTYPE_LAST || !(ndev->id.dtypes & BIT(dtype)) ||
	    ndims > NPU_TENSOR_MAX_DIMS)
		return -EINVAL;
	for (d = ndims; d < NPU_TENSOR_MAX_DIMS; d++)
		if (t->dims[d] || t->strides[d])
			return -EINVAL;
	/* Dims are not negative either, and the card counts the elements. */
	for (d = 0; d < ndims; d++)
		if (le64_to_cpu(t->dims[d]) > S64_MAX ||
		    check_mul_overflow(count, le64_to_cpu(t->dims[d]), &count))
			return -EINVAL;

	switch (format) {
	case NPU_FORMAT_STRIDED:
		ret = npu_strided_elements(t, ndims, &elements);
		break;
	case NPU_FORMAT_NCHW16C:
		ret = npu_blocked_elements(t, ndims, false, &elements);
		break;
	case NPU_FORMAT_OIHW16I16O:
		ret = npu_blocked_elements(t, ndims, true, &elements);
		break;
	case NPU_FORMAT_PACKED:
		ret = npu_packed_elements(t, ndims, &elements);
		break;
	default:
		return -EINVAL;
	}
	if (ret)
		return ret;
	if (check_mul_overflow(elements, (u64)NPU_DTYPE_SIZE(dtype), extent))
		return -EINVAL;
	return 0;
}

/*
 * Two of a strided output's elements at one address: taken by increasing
 * stride, an axis of more than one element has a stride not above the
 * span of the axes before it.  The card would refuse the operator; an
 * input may so repeat elements (a broadcast view), an output may not.
 * Called after npu_tensor_extent(), so no product overflows.
 */
static bool npu_output_overlaps(const struct npu_tensor_desc *t)
{
	unsigned int n, d, next, ndims = le16_to_cpu(t->ndims);
	u64 span = 0, dim, stride;
	u32 done = 0;

	if (le16_to_cpu(t->format) != NPU_FORMAT_STRIDED)
		return false;
	for (d = 0; d < ndims; d++)
		if (!t->dims[d])
			return false;
	for (n = 0; n < ndims; n++) {
		next = ndims;
		for (d = 0; d < ndims; d++) {
			if ((done & BIT(d)) || le64_to_cpu(t->dims[d]) < 2)
				continue;
			if (next == ndims ||
			    le64_to_cpu(t->strides[d]) < le64_to_cpu(t->strides[next]))
				next = d;
		}
		if (next == ndims)
			break;
		dim = le64_to_cpu(t->dims[next]);
		stride = le64_to_cpu(t->strides[next]);
		if (stride <= span)
			return true;
		span += (dim - 1) * stride;
		done |= BIT(next);
	}
	return false;
}

/* Header, operator, attributes: everything but the tensors' ranges. */
static int npu_check_desc(struct npu_device *ndev, const struct npu_op_desc *desc,
			  u64 size, u64 *extents)
{
	unsigned int i, ntensors = desc->num_inputs + desc->num_outputs;
	u16 kind = le16_to_cpu(desc->kind);
	const struct npu_op_rule *rule;
	int ret;

	if (desc->flags || desc->rsvd0 || desc->rsvd1)
		return -EINVAL;
	if (ntensors > NPU_OP_MAX_TENSORS ||
	    size != struct_size(desc, tensors, ntensors))
		return -EINVAL;
	if (kind > NPU_OPERATOR_LAST || !(ndev->id.operators & BIT_ULL(kind)))
		return -EINVAL;
	rule = &npu_op_rules[kind];
	if (desc->num_inputs < rule->min_inputs || desc->num_inputs > rule->max_inputs ||
	    desc->num_outputs != 1)
		return -EINVAL;

	for (i = 0; i < ntensors; i++) {
		ret = npu_tensor_extent(ndev, &desc->tensors[i], &extents[i]);
		if (ret)
			return ret;
		if (i >= desc->num_inputs && npu_output_overlaps(&desc->tensors[i]))
			return -EINVAL;
	}
	ret = npu_check_attrs(kind, &desc->attrs, le16_to_cpu(desc->tensors[0].ndims));
	return ret ?: npu_check_unused(kind, desc);
}

/*
 * Each tensor in one device buffer of the context (held by the job) when
 * it lies in the card's window, else in the address space, whose pages
 * the card checks.  An empty tensor spans nothing, but its address must
 * still be one of the context's.
 */
static int npu_resolve_tensors(struct npu_ctx *ctx, struct npu_job *job,
			       struct npu_op_desc *desc, const u64 *extents)
{
	unsigned int i, ntensors = desc->num_inputs + desc->num_outputs;
	u64 offset;
	int ret;

	for (i = 0; i < ntensors; i++) {
		struct npu_tensor_desc *t = &desc->tensors[i];

		ret = npu_vm_address(ctx, job, le64_to_cpu(t->addr),
				     max(extents[i], 1ULL), &offset);
		if (ret)
			return ret;
		t->addr = cpu_to_le64(offset);
	}
	return 0;
}

/**
 * npu_compute_build - turn a DRM_NPU_OP_COMPUTE into the card's command
 * @ctx: the submitting context
 * @job: the job, with room from npu_compute_job_init() for the descriptor
 *	and from npu_job_alloc() for NPU_OP_MAX_TENSORS buffers
 * @hw: the card's command to fill
 * @uc: the command, whose size npu_compute_plan() has checked
 *
 * Return: 0, -EFAULT, -EINVAL for a malformed descriptor or one the card
 * cannot run, -EPERM for a tensor outside the context's device buffers.
 */
int npu_compute_build(struct npu_ctx *ctx, struct npu_job *job,
		      struct npu_cmd *hw, const struct drm_npu_cmd *uc)
{
	u64 extents[NPU_OP_MAX_TENSORS];
	struct npu_op_desc *desc;
	dma_addr_t desc_dma;
	size_t len;
	int ret;

	if (uc->flags || uc->dst || uc->value || uc->dst_handle || uc->src_handle ||
	    uc->slot || uc->cond)
		return -EINVAL;
	/* As npu_compute_plan() packed them. */
	len = ALIGN(uc->size, NPU_OP_DESC_ALIGN);
	if (job->ops_used + len > job->ops[job->ops_cur].size) {
		job->ops_cur++;
		job->ops_used = 0;
	}
	if (WARN_ON(job->ops_cur >= job->ops_count ||
		    len > job->ops[job->ops_cur].size))
		return -EINVAL;

	/* Read once: the checks and the card see the same bytes. */
	desc = job->ops[job->ops_cur].cpu + job->ops_used;
	desc_dma = job->ops[job->ops_cur].dma + job->ops_used;
	job->ops_used += len;
	if (copy_from_user(desc, u64_to_user_ptr(uc->src), uc->size))
		return -EFAULT;

	ret = npu_check_desc(ctx->ndev, desc, uc->size, extents);
	if (ret)
		return ret;
	ret = npu_resolve_tensors(ctx, job, desc, extents);
	if (ret)
		return ret;

	hw->opcode = cpu_to_le16(NPU_OP_COMPUTE);
	hw->flags = cpu_to_le16(NPU_CMD_SRC_HOST);
	hw->src = cpu_to_le64(desc_dma);
	hw->size = cpu_to_le64(uc->size);
	return 0;
}

/* The ring's counters only grow while the stream owns it; a reset reads 0. */
static void npu_compute_advance(struct npu_stream *stream, u64 *seen, u64 now,
				atomic64_t *total)
{
	lockdep_assert_held(&stream->lock);

	if (now > *seen) {
		atomic64_add(now - *seen, total);
		WRITE_ONCE(*seen, now);
	}
}

/**
 * npu_compute_sample - account what the stream's ring computed since the last look
 * @stream: a stream that owns its ring
 *
 * Read before the ring is reset, which zeroes the counters, and before a
 * report on the stream or its context.
 */
void npu_compute_sample(struct npu_stream *stream)
{
	struct npu_ctx *ctx = stream->ctx;
	u64 ops, ns, before;
	int idx;

	if (!ctx->ndev->id.operators || !drm_dev_enter(&ctx->ndev->drm, &idx))
		return;
	ops = npu_ring_rd64(stream->ring, NPU_RING_OPS_DONE);
	ns = npu_ring_rd64(stream->ring, NPU_RING_COMPUTE_NS);
	drm_dev_exit(idx);

	spin_lock_irq(&stream->lock);
	npu_compute_advance(stream, &stream->ops_done, ops, &ctx->ops_done);
	before = stream->compute_ns;
	npu_compute_advance(stream, &stream->compute_ns, ns, &ctx->compute_ns);
	atomic64_add(stream->compute_ns - before, &ctx->ndev->compute_ns);
	spin_unlock_irq(&stream->lock);
}

/**
 * npu_compute_show_fdinfo - the context's compute usage, in DRM's fdinfo keys
 * @p: the fdinfo printer
 * @ctx: the context, its streams just updated
 */
void npu_compute_show_fdinfo(struct drm_printer *p, struct npu_ctx *ctx)
{
	u32 engines = ctx->ndev->id.num_compute_engines;

	if (!ctx->ndev->id.operators)
		return;
	drm_printf(p, "drm-engine-compute:\t%lld ns\n", atomic64_read(&ctx->compute_ns));
	/* Engine time adds up across engines: tools divide by the capacity. */
	if (engines > 1)
		drm_printf(p, "drm-engine-capacity-compute:\t%u\n", engines);
	drm_printf(p, "npu-ops-done:\t%lld\n", atomic64_read(&ctx->ops_done));
}
