// SPDX-License-Identifier: GPL-2.0
/*
 * oplib: decoding and checking descriptors, dispatching to the operator
 * families, and running their plans.
 *
 * A descriptor is checked in full before any tensor is touched, in this
 * order: its size and header, every tensor's fields, the family's
 * attributes and shapes, then every tensor's alignment, extent in device
 * memory and elements' addresses.  The first fault found is the ring's
 * error.
 */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "oplib_impl.h"

/* What the table says of an operator, and the family that runs it. */
struct oplib_kind {
	uint8_t min_inputs;
	uint8_t max_inputs;
	/* bytes of npu_op_attrs it uses; the rest must be 0 */
	uint8_t attr_size;
	const struct oplib_family *family;
};

/* The operator table's attribute column: attr(member), or none. */
#define OPLIB_ATTR_SIZE_attr(member)	sizeof(((union npu_op_attrs *)NULL)->member)
#define OPLIB_ATTR_SIZE_none		0

#define NPU_OPERATOR(NAME, number, min, max, attrs, rsvd, act, name) \
	[NPU_OPERATOR_##NAME] = { \
		.min_inputs = (min), .max_inputs = (max), \
		.attr_size = OPLIB_ATTR_SIZE_##attrs, \
		.family = &oplib_##name##_family, \
	},

static const struct oplib_kind kinds[NPU_OPERATOR_LAST + 1] = {
	NPU_OPERATOR_TABLE
};

#undef NPU_OPERATOR

/* Families whose checks meet a tensor they cannot take in NCHW16C. */
int oplib_strided_only(const struct oplib_tensor *t)
{
	return t->format == NPU_FORMAT_STRIDED ? NPU_ERR_NONE : NPU_ERR_OPERATOR;
}

/* The same for every one of the operator's tensors. */
int oplib_all_strided(const struct oplib_op *op)
{
	unsigned int i;
	int err = NPU_ERR_NONE;

	for (i = 0; i < op->num_tensors && !err; i++)
		err = oplib_strided_only(&op->t[i]);
	return err;
}

/* Strided, row-major, without gaps (axes of one element aside). */
bool oplib_dense(const struct oplib_tensor *t)
{
	int64_t stride = 1;
	int d;

	if (t->format != NPU_FORMAT_STRIDED)
		return false;
	for (d = (int)t->ndims - 1; d >= 0; d--) {
		if (t->dims[d] != 1 && t->strides[d] != stride)
			return false;
		stride *= t->dims[d];
	}
	return true;
}

bool oplib_same_dims(const struct oplib_tensor *a, const struct oplib_tensor *b)
{
	return a->ndims == b->ndims &&
	       !memcmp(a->dims, b->dims, a->ndims * sizeof(a->dims[0]));
}

/* Fields of one tensor; unused dims and strides must be 0. */
static int tensor_decode(const struct npu_tensor_desc *raw,
			 struct oplib_tensor *t)
{
	unsigned int d;

	t->addr = le64toh(raw->addr);
	t->dtype = le16toh(raw->dtype);
	t->format = le16toh(raw->format);
	t->ndims = le16toh(raw->ndims);
	if (t->dtype > NPU_DTYPE_LAST || t->format > NPU_FORMAT_LAST)
		return NPU_ERR_OPERATOR;
	if (raw->bind)
		return NPU_ERR_RESERVED;
	if (t->ndims > NPU_TENSOR_MAX_DIMS)
		return NPU_ERR_OP_PARAM;
	for (d = 0; d < NPU_TENSOR_MAX_DIMS; d++) {
		uint64_t dim = le64toh(raw->dims[d]);
		uint64_t stride = le64toh(raw->strides[d]);
		bool used = d < t->ndims;

		if ((!used && dim) ||
		    ((!used || t->format != NPU_FORMAT_STRIDED) && stride))
			return NPU_ERR_RESERVED;
		/* neither is negative, so both fit in an int64_t */
		if (dim > INT64_MAX || stride > INT64_MAX)
			return NPU_ERR_OP_PARAM;
		t->dims[d] = dim;
		t->strides[d] = stride;
	}
	if (t->format != NPU_FORMAT_STRIDED && t->ndims != 4)
		return NPU_ERR_OP_PARAM;
	t->nelems = 1;
	for (d = 0; d < t->ndims; d++)
		/* more elements than any memory holds */
		if (__builtin_mul_overflow(t->nelems, t->dims[d], &t->nelems))
			return NPU_ERR_DEV_ADDR;
	return NPU_ERR_NONE;
}

static int desc_decode(const struct npu_op_desc *desc, size_t size,
		       struct oplib_op *op)
{
	const struct oplib_kind *k;
	unsigned int i;
	int err;

	if (size < sizeof(*desc) || size > OPLIB_DESC_MAX)
		return NPU_ERR_OP_PARAM;
	op->kind = le16toh(desc->kind);
	if (op->kind > NPU_OPERATOR_LAST)
		return NPU_ERR_OPERATOR;
	if (desc->flags || desc->rsvd0 || desc->rsvd1)
		return NPU_ERR_RESERVED;
	op->num_inputs = desc->num_inputs;
	op->num_outputs = desc->num_outputs;
	op->num_tensors = op->num_inputs + op->num_outputs;
	if (size != sizeof(*desc) +
		    op->num_tensors * sizeof(struct npu_tensor_desc))
		return NPU_ERR_OP_PARAM;
	k = &kinds[op->kind];
	if (op->num_inputs < k->min_inputs ||
	    op->num_inputs > k->max_inputs || op->num_outputs != 1)
		return NPU_ERR_OP_PARAM;
	if (!oplib_zero(&desc->attrs, k->attr_size, sizeof(desc->attrs)))
		return NPU_ERR_RESERVED;
	op->attrs = &desc->attrs;
	for (i = 0; i < op->num_tensors; i++) {
		err = tensor_decode(&desc->tensors[i], &op->t[i]);
		if (err)
			return err;
		/* weights laid out for a convolution are only a convolution's */
		if (op->t[i].format == NPU_FORMAT_OIHW16I16O &&
		    (op->kind != NPU_OPERATOR_CONV2D || i != 1))
			return NPU_ERR_OPERATOR;
		/* and packed ones its, or what packs them */
		if (op->t[i].format == NPU_FORMAT_PACKED &&
		    ((op->kind != NPU_OPERATOR_CONV2D &&
		      op->kind != NPU_OPERATOR_PACK_CONV2D) || i != 1))
			return NPU_ERR_OPERATOR;
	}
	op->family = k->family;
	op->desc = desc;
	op->desc_size = size;
	return NPU_ERR_NONE;
}

/* Elements a tensor spans from its first; false if it overflows. */
static bool tensor_span(const struct oplib_tensor *t, uint64_t *elems)
{
	uint64_t last = 0, term, padded;
	unsigned int d;

	if (t->format == NPU_FORMAT_PACKED) {
		uint64_t n = NPU_PACKED_HEADER_ELEMS, term = 1;
		unsigned int d;

		for (d = 0; d < 4; d++) {
			uint64_t dim = t->dims[d];

			if (dim > (1ULL << 62) ||
			    __builtin_mul_overflow(term, d < 2 ? (dim + 15) / 16 * 16 :
						   dim + 3, &term))
				return false;
		}
		return !__builtin_add_overflow(n, term, elems);
	}
	if (t->format != NPU_FORMAT_STRIDED) {
		uint64_t outer = t->dims[0];

		if (t->format == NPU_FORMAT_OIHW16I16O)
			outer = (outer + 15) / 16 * 16;
		padded = ((uint64_t)t->dims[1] + 15) / 16 * 16;
		return !__builtin_mul_overflow(outer, padded, elems) &&
		       !__builtin_mul_overflow(*elems, t->dims[2], elems) &&
		       !__builtin_mul_overflow(*elems, t->dims[3], elems);
	}
	for (d = 0; d < t->ndims; d++) {
		if (__builtin_mul_overflow(t->dims[d] - 1, t->strides[d],
					   &term) ||
		    __builtin_add_overflow(last, term, &last))
			return false;
	}
	*elems = last + 1;
	return *elems != 0;
}

/* An input that repeats elements: a stride of 0 on an axis of several. */
bool oplib_broadcasts(const struct oplib_tensor *t)
{
	unsigned int d;

	if (t->format != NPU_FORMAT_STRIDED || !t->nelems)
		return false;
	for (d = 0; d < t->ndims; d++)
		if (t->dims[d] > 1 && !t->strides[d])
			return true;
	return false;
}

/*
 * Two indices at one address: taken by increasing stride, an axis's stride
 * does not pass the span of the axes before it.  An output must not, or
 * what it holds would depend on the order of the writes.  An input may
 * repeat its elements along axes of stride 0, as a broadcast view does,
 * but not otherwise: an axis of stride 0 is left out here.  The span is
 * bounded by the extent, which is checked first.
 */
static bool tensor_overlaps(const struct oplib_tensor *t, bool output)
{
	bool done[NPU_TENSOR_MAX_DIMS] = { false };
	uint64_t span = 0;
	unsigned int n, d, next;

	if (t->format != NPU_FORMAT_STRIDED || !t->nelems)
		return false;
	for (n = 0; n < t->ndims; n++) {
		next = t->ndims;
		for (d = 0; d < t->ndims; d++)
			if (!done[d] && t->dims[d] > 1 && (output || t->strides[d]) &&
			    (next == t->ndims || t->strides[d] < t->strides[next]))
				next = d;
		if (next == t->ndims)
			break;
		if ((uint64_t)t->strides[next] <= span)
			return true;
		span += (t->dims[next] - 1) * t->strides[next];
		done[next] = true;
	}
	return false;
}

/*
 * A broadcast input stands for more elements than its bytes; no more than
 * device memory would hold densely, or a few bytes could stand for hours
 * of work.
 */
static bool tensor_too_many(const struct oplib_tensor *t, size_t esize,
			    uint64_t devmem_size)
{
	uint64_t bytes;

	return oplib_broadcasts(t) &&
	       (__builtin_mul_overflow(t->nelems, esize, &bytes) ||
		bytes > devmem_size);
}

/*
 * Aligned, in device memory (and in @within, when the submitter's buffer
 * is known), and not overlapping itself.
 */
static int tensor_place(struct oplib_tensor *t, uint64_t devmem_size,
			const struct oplib_range *within, bool output)
{
	size_t esize = oplib_dtype_size(t->dtype);
	uint64_t elems;

	if (t->addr % esize)
		return NPU_ERR_OP_PARAM;
	if (t->nelems == 0)
		t->extent = 0;
	else if (!tensor_span(t, &elems) ||
		 __builtin_mul_overflow(elems, esize, &t->extent))
		return NPU_ERR_DEV_ADDR;
	if (t->addr > devmem_size || t->extent > devmem_size - t->addr)
		return NPU_ERR_DEV_ADDR;
	if (within && (t->addr < within->addr || t->addr - within->addr > within->size ||
		       t->extent > within->size - (t->addr - within->addr)))
		return NPU_ERR_ACCESS;
	if (tensor_overlaps(t, output) ||
	    tensor_too_many(t, esize, devmem_size))
		return NPU_ERR_OP_PARAM;
	return NPU_ERR_NONE;
}

static int tensors_place(struct oplib_op *op, const struct oplib_family *fam,
			 uint64_t devmem_size, const struct oplib_range *within)
{
	unsigned int i;
	int err;

	for (i = 0; i < op->num_tensors; i++) {
		err = tensor_place(&op->t[i], devmem_size, within ? &within[i] : NULL,
				   i >= op->num_inputs);
		if (err)
			return err;
	}
	/* nothing would say what an output computed from nothing holds */
	if (oplib_out(op)->nelems && !fam->empty_inputs_ok)
		for (i = 0; i < op->num_inputs; i++)
			if (!op->t[i].nelems)
				return NPU_ERR_OP_PARAM;
	return NPU_ERR_NONE;
}

int oplib_check_op(const struct npu_op_desc *desc, size_t size,
		   uint64_t devmem_size, const struct oplib_range *within,
		   struct oplib_op *op)
{
	int err = desc_decode(desc, size, op);

	if (!err)
		err = oplib_u64_check(op);
	if (!err)
		err = op->family->check(op);
	if (!err)
		err = tensors_place(op, op->family, devmem_size, within);
	return err;
}

int oplib_check(const struct npu_op_desc *desc, size_t size,
		uint64_t devmem_size)
{
	return oplib_check_within(desc, size, devmem_size, NULL);
}

int oplib_check_within(const struct npu_op_desc *desc, size_t size,
		       uint64_t devmem_size, const struct oplib_range *within)
{
	struct oplib_op op;

	return oplib_check_op(desc, size, devmem_size, within, &op);
}

/* The cache key: the descriptor with every tensor address zeroed. */
static void desc_key(const struct npu_op_desc *desc, size_t size,
		     unsigned int num_tensors, uint8_t *key)
{
	struct npu_op_desc *k = (struct npu_op_desc *)key;
	unsigned int i;

	memcpy(key, desc, size);
	for (i = 0; i < num_tensors; i++)
		k->tensors[i].addr = 0;
}

/* Inputs with a stride of 0 the family would rather read densely. */
static uint32_t broadcast_inputs(const struct oplib_op *op,
				 const struct oplib_family *fam)
{
	uint32_t inputs = 0;
	unsigned int i;

	for (i = 0; !fam->reads_broadcast && i < op->num_inputs; i++)
		if (oplib_broadcasts(&op->t[i]))
			inputs |= 1u << i;
	return inputs;
}

/*
 * F16 and BF16 tensors, which the family may have no primitive for on
 * this CPU (oneDNN 2.6 has F16 only where the CPU computes it): they are
 * then computed in F32 in scratch.  Not a packed convolution's: its
 * header names its type.
 */
static uint32_t half_tensors(const struct oplib_op *op)
{
	uint32_t half = 0;
	unsigned int i;

	for (i = 0; i < op->num_tensors; i++) {
		if (op->t[i].format == NPU_FORMAT_PACKED)
			return 0;
		if (op->t[i].dtype == NPU_DTYPE_F16 ||
		    op->t[i].dtype == NPU_DTYPE_BF16)
			half |= 1u << i;
	}
	return half;
}

/* The family's plan with @staged tensors in scratch, @widened in F32. */
static int plan_staged(struct oplib *lib, const struct oplib_op *op,
		       const struct oplib_family *fam, uint32_t staged,
		       uint32_t widened, struct oplib_plan **planp)
{
	struct oplib_plan *plan = calloc(1, sizeof(*plan));
	struct oplib_op seen = *op;
	int err;

	if (!plan)
		return NPU_ERR_OP_FAILED;
	plan->staged = staged;
	plan->widened = widened;
	oplib_op_staged(&seen, staged, widened);
	err = oplib_plan_stage_begin(lib, plan, op, &seen);
	if (!err)
		err = fam->plan(lib, &seen, plan);
	if (!err)
		err = oplib_plan_stage_end(lib, plan, op, &seen);
	if (err) {
		oplib_plan_destroy(plan);
		return err;
	}
	*planp = plan;
	return NPU_ERR_NONE;
}

static int plan_get(struct oplib *lib, const struct oplib_op *op,
		    struct oplib_cache_entry **entry)
{
	const struct oplib_family *fam = op->family;
	size_t size = op->desc_size;
	uint8_t key[OPLIB_DESC_MAX] __attribute__((aligned(8)));
	uint32_t dense = broadcast_inputs(op, fam), half = half_tensors(op);
	struct oplib_plan *plan = NULL;
	int err;

	desc_key(op->desc, size, op->num_tensors, key);
	*entry = oplib_cache_get(&lib->cache, key, size);
	if (*entry)
		return NPU_ERR_NONE;

	err = plan_staged(lib, op, fam, dense, 0, &plan);
	if (err == NPU_ERR_OPERATOR && half)
		err = plan_staged(lib, op, fam, dense | half, half, &plan);
	if (err)
		return err;
	*entry = oplib_cache_add(&lib->cache, key, size, plan);
	return *entry ? NPU_ERR_NONE : NPU_ERR_OP_FAILED;
}

static bool engine_get(const struct oplib_hooks *hooks)
{
	if (!hooks)
		return true;
	while (!hooks->engine_get(hooks->ctx))
		if (!hooks->go_on(hooks->ctx, true))
			return false;
	return true;
}

static void engine_put(const struct oplib_hooks *hooks)
{
	if (hooks)
		hooks->engine_put(hooks->ctx);
}

/*
 * Between steps: go on, or sit out a pause without the engine.  False
 * when the operator is abandoned; the engine is then not held.
 */
static bool checkpoint(const struct oplib_hooks *hooks)
{
	if (!hooks || hooks->go_on(hooks->ctx, false))
		return true;
	engine_put(hooks);
	return hooks->go_on(hooks->ctx, true) && engine_get(hooks);
}

/*
 * Scratch memory kept by each thread that runs operators, grown as plans
 * need: a plan's buffers and scratchpad hold nothing from one run to the
 * next, and allocating them anew on every run costs a page fault per page
 * touched (a Winograd convolution's scratchpad at batch 8: tens of MiB).
 * A run that needs more than SCRATCH_KEEP gets memory of its own.
 */
#define SCRATCH_KEEP	(256ULL << 20)

static __thread struct {
	uint8_t *mem;
	uint64_t size;
} scratch_kept;

static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;

static void scratch_key_init(void)
{
	/* the destructor frees a thread's scratch when it exits */
	pthread_key_create(&scratch_key, free);
}

/* Bytes for @size, 64-byte aligned: the thread's, or *own (free it). */
static uint8_t *scratch_get(uint64_t size, uint8_t **own)
{
	*own = NULL;
	if (size > SCRATCH_KEEP) {
		*own = aligned_alloc(64, size);
		return *own;
	}
	if (size > scratch_kept.size) {
		pthread_once(&scratch_once, scratch_key_init);
		free(scratch_kept.mem);
		scratch_kept.size = 0;
		scratch_kept.mem = aligned_alloc(64, size);
		if (!scratch_kept.mem)
			return NULL;
		scratch_kept.size = size;
		pthread_setspecific(scratch_key, scratch_kept.mem);
	}
	return scratch_kept.mem;
}

/* The plan's scratch buffers, then its scratchpad, in one piece of scratch. */
static int scratch_alloc(const struct oplib_plan *plan, uint8_t **bufs,
			 void **scratchpad, uint8_t **own)
{
	uint64_t at = 0, size = (plan->scratchpad_size + 63) & ~(uint64_t)63;
	unsigned int i;
	uint8_t *mem;

	for (i = 0; i < plan->nscratch; i++)
		size += (plan->scratch_size[i] + 63) & ~(uint64_t)63;
	mem = scratch_get(size ? size : 64, own);
	if (!mem)
		return NPU_ERR_OP_FAILED;
	for (i = 0; i < plan->nscratch; i++) {
		bufs[OPLIB_SCRATCH_BUF(i)] = mem + at;
		at += (plan->scratch_size[i] + 63) & ~(uint64_t)63;
	}
	*scratchpad = plan->scratchpad_size ? mem + at : NULL;
	return NPU_ERR_NONE;
}

/* A two-argument step's source and destination start at one address. */
static bool in_place(const dnnl_exec_arg_t *args)
{
	void *src = NULL, *dst = NULL;

	dnnl_memory_get_data_handle(args[0].memory, &src);
	dnnl_memory_get_data_handle(args[1].memory, &dst);
	return src == dst;
}

/* OPLIB_ABORTED: a loop stopped early, and the engine is given back. */
static int step_execute(struct oplib *lib, const struct oplib_op *op,
			const struct oplib_step *step, uint8_t *const *bufs,
			dnnl_memory_t *mems, dnnl_stream_t stream,
			void *scratchpad, const struct oplib_hooks *hooks)
{
	dnnl_exec_arg_t args[OPLIB_STEP_ARGS + 1];
	dnnl_memory_t pad = NULL;
	unsigned int i, n = step->nargs;
	int err = NPU_ERR_NONE;

	if (step->check)
		return step->check(op, step, bufs);
	if (!step->prim) {
		if (step->loop(op, step, bufs, hooks))
			return NPU_ERR_NONE;
		engine_put(hooks);
		return OPLIB_ABORTED;
	}
	for (i = 0; i < n; i++) {
		args[i].arg = step->args[i].arg;
		args[i].memory = mems[step->args[i].view];
	}
	if (step->skip_in_place && in_place(args))
		return NPU_ERR_NONE;
	if (step->scratchpad_size) {
		if (dnnl_memory_create(&pad, &step->scratchpad, lib->engine,
				       scratchpad) != dnnl_success)
			return NPU_ERR_OP_FAILED;
		args[n].arg = DNNL_ARG_SCRATCHPAD;
		args[n++].memory = pad;
	}
	if (dnnl_primitive_execute(step->prim, stream, n, args) !=
	    dnnl_success || dnnl_stream_wait(stream) != dnnl_success)
		err = NPU_ERR_OP_FAILED;
	if (pad)
		dnnl_memory_destroy(pad);
	return err;
}

/* Engine held on entry; on return too, unless OPLIB_ABORTED. */
static int plan_execute(struct oplib *lib, const struct oplib_op *op,
			const struct oplib_plan *plan, uint8_t *devmem,
			const struct oplib_hooks *hooks)
{
	uint8_t *bufs[OPLIB_NUM_BUFS] = { NULL };
	dnnl_memory_t mems[OPLIB_MAX_VIEWS] = { NULL };
	dnnl_stream_t stream = NULL;
	void *scratchpad = NULL;
	uint8_t *own = NULL;
	unsigned int i;
	int err;

	for (i = 0; i < op->num_tensors; i++)
		bufs[i] = bufs[OPLIB_SOURCE_BUF(i)] = devmem + op->t[i].addr;
	err = scratch_alloc(plan, bufs, &scratchpad, &own);
	for (i = 0; !err && i < op->num_tensors; i++)
		if (plan->staged & (1u << i))
			bufs[i] = bufs[plan->staged_buf[i]];
	if (!err && dnnl_stream_create(&stream, lib->engine,
				       dnnl_stream_default_flags) != dnnl_success)
		err = NPU_ERR_OP_FAILED;
	for (i = 0; !err && i < plan->nviews; i++) {
		const struct oplib_view *v = &plan->views[i];

		if (dnnl_memory_create(&mems[i], &v->md, lib->engine,
				       bufs[v->buf] + v->offset) != dnnl_success)
			err = NPU_ERR_OP_FAILED;
	}
	for (i = 0; !err && i < plan->nsteps; i++) {
		err = step_execute(lib, op, &plan->steps[i], bufs, mems, stream,
				   scratchpad, hooks);
		if (!err && !checkpoint(hooks))
			err = OPLIB_ABORTED;
	}

	for (i = 0; i < plan->nviews; i++)
		if (mems[i])
			dnnl_memory_destroy(mems[i]);
	if (stream)
		dnnl_stream_destroy(stream);
	free(own);
	return err;
}

int oplib_run(struct oplib *lib, const struct npu_op_desc *desc, size_t size,
	      uint8_t *devmem, uint64_t devmem_size,
	      const struct oplib_hooks *hooks)
{
	struct oplib_op op;
	int err;

	err = oplib_check_op(desc, size, devmem_size, NULL, &op);
	return err ? err : oplib_run_op(lib, &op, devmem, hooks);
}

int oplib_run_op(struct oplib *lib, const struct oplib_op *op,
		 uint8_t *devmem, const struct oplib_hooks *hooks)
{
	struct oplib_cache_entry *entry;
	const struct oplib_plan *plan;
	struct oplib_op seen;
	int err;

	if (!oplib_out(op)->nelems)
		return NPU_ERR_NONE;

	/* per thread: oneDNN sizes its parallel regions by it */
	omp_set_num_threads(lib->threads);
	if (!engine_get(hooks))
		return OPLIB_ABORTED;
	/* compiling is the engine's work too */
	err = plan_get(lib, op, &entry);
	if (!err) {
		plan = oplib_cache_plan(entry);
		seen = *op;
		oplib_op_staged(&seen, plan->staged, plan->widened);
		err = plan_execute(lib, &seen, plan, devmem, hooks);
		oplib_cache_put(&lib->cache, entry);
	}
	if (err != OPLIB_ABORTED)
		engine_put(hooks);
	return err;
}

void oplib_get_stats(struct oplib *lib, struct oplib_stats *stats)
{
	struct oplib_cache *cache = &lib->cache;

	pthread_mutex_lock(&cache->lock);
	stats->hits = cache->hits;
	stats->misses = cache->misses;
	stats->evictions = cache->evictions;
	stats->entries = cache->entries;
	pthread_mutex_unlock(&cache->lock);
}

unsigned int oplib_threads_per_engine(unsigned int engines)
{
	cpu_set_t set;
	long cpus = 0;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		cpus = CPU_COUNT(&set);
	if (cpus <= 0)
		cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (!engines || cpus < (long)engines)
		return 1;
	return cpus / engines;
}

uint64_t oplib_operators(const struct oplib *lib)
{
	(void)lib;
	return (2ULL << NPU_OPERATOR_LAST) - 1;
}

uint32_t oplib_dtypes(const struct oplib *lib)
{
	return lib->dtypes;
}

/*
 * A data type is supported if values convert to and from float32; those
 * oneDNN has not are the loops', which convert every type.
 */
static uint32_t probe_dtypes(dnnl_engine_t engine)
{
	uint32_t dtypes = 1u << NPU_DTYPE_F32;
	const dnnl_dims_t dims = { 16 };
	dnnl_memory_desc_t f32, other;
	dnnl_primitive_desc_t pd;
	unsigned int dt;

	dnnl_memory_desc_init_by_tag(&f32, 1, dims, dnnl_f32, dnnl_a);
	for (dt = 0; dt <= NPU_DTYPE_LAST; dt++) {
		bool ok = true;

		if (oplib_dnnl_dtype(dt) == dnnl_data_type_undef) {
			dtypes |= 1u << dt;
			continue;
		}
		dnnl_memory_desc_init_by_tag(&other, 1, dims,
					     oplib_dnnl_dtype(dt), dnnl_a);
		if (dnnl_reorder_primitive_desc_create(&pd, &f32, engine, &other,
						       engine, NULL) == dnnl_success)
			dnnl_primitive_desc_destroy(pd);
		else
			ok = false;
		if (dnnl_reorder_primitive_desc_create(&pd, &other, engine, &f32,
						       engine, NULL) == dnnl_success)
			dnnl_primitive_desc_destroy(pd);
		else
			ok = false;
		if (ok)
			dtypes |= 1u << dt;
	}
	return dtypes;
}

struct oplib *oplib_create(const struct oplib_config *cfg)
{
	struct oplib *lib = calloc(1, sizeof(*lib));

	if (!lib)
		return NULL;
	lib->threads = cfg->threads ? cfg->threads : oplib_threads_per_engine(1);
	if (oplib_cache_init(&lib->cache, cfg->cache_capacity ?
			     cfg->cache_capacity : OPLIB_CACHE_DEFAULT)) {
		free(lib);
		return NULL;
	}
	if (dnnl_engine_create(&lib->engine, dnnl_cpu, 0) != dnnl_success) {
		oplib_cache_destroy(&lib->cache);
		free(lib);
		return NULL;
	}
	/*
	 * oneDNN's own primitive cache would keep primitives our cache has
	 * evicted: ours is the one bound on compiled code.
	 */
	dnnl_set_primitive_cache_capacity(0);
	lib->dtypes = probe_dtypes(lib->engine);
	return lib;
}

/* No operator may be running. */
void oplib_destroy(struct oplib *lib)
{
	if (!lib)
		return;
	oplib_cache_destroy(&lib->cache);
	dnnl_engine_destroy(lib->engine);
	free(lib);
}
