/* SPDX-License-Identifier: GPL-2.0 */
/*
 * oplib internals, shared by oplib.c and the operator families
 * (oplib_conv.c, oplib_matmul.c, ...).
 *
 * An operator runs in three stages:
 *
 *  1. oplib.c decodes the descriptor into a struct oplib_op and checks what
 *     every operator shares (sizes, reserved fields, ranks, extents); the
 *     family's check() then checks its attributes and shapes.
 *  2. The family's plan() turns the operator into a struct oplib_plan: a
 *     few steps, each a oneDNN primitive or a loop, over views of the
 *     operator's tensors and of scratch buffers.  Plans depend on shapes,
 *     never on addresses, so they are cached (oplib_cache.c).
 *  3. oplib.c runs the plan's steps on the tensors' memory.
 */
#ifndef OPLIB_IMPL_H
#define OPLIB_IMPL_H

#include <endian.h>
#include <pthread.h>
#include <string.h>

#include <oneapi/dnnl/dnnl.h>

#include "oplib.h"

#define OPLIB_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* The output: every operator has exactly one. */
static inline const struct oplib_tensor *oplib_out(const struct oplib_op *op)
{
	return &op->t[op->num_inputs];
}

/* An elementwise function, decoded from struct npu_activation. */
struct oplib_act {
	uint32_t kind;		/* enum npu_unary_kind */
	float alpha;
	float beta;
};

/*
 * Scratch buffers a plan may use, allocated per run: the family's, and
 * the staged tensors (oplib_plan_stage_begin()).
 */
#define OPLIB_MAX_SCRATCH	12
/*
 * Buffers: the operator's tensors by index (a staged one: its scratch),
 * the scratch buffers, then the tensors where they lie in device memory,
 * which only the steps that stage them touch.
 */
#define OPLIB_NUM_BUFS		(2 * NPU_OP_MAX_TENSORS + OPLIB_MAX_SCRATCH)
#define OPLIB_SCRATCH_BUF(i)	(NPU_OP_MAX_TENSORS + (i))
#define OPLIB_SOURCE_BUF(i)	(NPU_OP_MAX_TENSORS + OPLIB_MAX_SCRATCH + (i))
#define OPLIB_MAX_VIEWS		40
#define OPLIB_MAX_STEPS		12
#define OPLIB_STEP_ARGS		(NPU_OP_MAX_TENSORS + 1)

/* Memory a step reads or writes: md over buffer buf from byte offset. */
struct oplib_view {
	unsigned int buf;
	uint64_t offset;
	dnnl_memory_desc_t md;
};

struct oplib_step;

/*
 * A step done by a loop; bufs[] holds every buffer's address.  False when
 * it stopped early because the operator is abandoned (oplib_loop_go_on).
 */
typedef bool (*oplib_loop_fn)(const struct oplib_op *op,
			      const struct oplib_step *step,
			      uint8_t *const *bufs,
			      const struct oplib_hooks *hooks);

/*
 * A step that checks the bytes of tensor @step->in, with the operator's
 * shapes at hand, before anything is computed: NPU_ERR_NONE to go on, or
 * the ring error.
 */
typedef int (*oplib_check_fn)(const struct oplib_op *op,
			      const struct oplib_step *step,
			      uint8_t *const *bufs);

struct oplib_step {
	dnnl_primitive_t prim;	/* or NULL, and then loop */
	oplib_loop_fn loop;
	unsigned int nargs;
	struct {
		int arg;	/* DNNL_ARG_* */
		unsigned int view;
	} args[OPLIB_STEP_ARGS];
	/* what a loop works on: tensor indices and a function */
	unsigned int in;
	unsigned int out;
	struct oplib_act act;
	/* or a check of the bytes of tensor @in */
	oplib_check_fn check;
	/* what a check or a writer of a packed tensor's header wants there */
	uint64_t key;
	uint64_t size;
	/*
	 * a reorder that is left out when its source and destination are
	 * one memory (same address, same layout): a summand already in place
	 */
	bool skip_in_place;
	/* the primitive's scratchpad; size 0: it needs none */
	dnnl_memory_desc_t scratchpad;
	uint64_t scratchpad_size;
	/* a conversion loop's (oplib_convert.c): buffers in and out */
	struct {
		uint64_t from_offset;
		uint64_t to_offset;
		uint64_t count;
		bool widen;	/* F16 to F32; else F32 to F16 */
	} convert;
};

struct oplib_plan {
	unsigned int nviews;
	unsigned int nsteps;
	unsigned int nscratch;
	uint64_t scratch_size[OPLIB_MAX_SCRATCH];
	/* the largest step scratchpad: steps run one at a time and share it */
	uint64_t scratchpad_size;
	/*
	 * tensors (a bit each) the family works on in scratch, and which of
	 * those are F32 there (oplib_op_staged()); the scratch buffers
	 */
	uint32_t staged;
	uint32_t widened;
	unsigned int staged_buf[NPU_OP_MAX_TENSORS];
	struct oplib_view views[OPLIB_MAX_VIEWS];
	struct oplib_step steps[OPLIB_MAX_STEPS];
};

/* oplib_cache.c */
struct oplib_cache_entry;

struct oplib_cache {
	pthread_mutex_t lock;
	struct oplib_cache_entry **buckets;
	unsigned int nbuckets;
	unsigned int capacity;
	unsigned int entries;
	/* least recently used at lru_tail; evicted first */
	struct oplib_cache_entry *lru_head;
	struct oplib_cache_entry *lru_tail;
	uint64_t hits;
	uint64_t misses;
	uint64_t evictions;
};

int oplib_cache_init(struct oplib_cache *cache, unsigned int capacity);
void oplib_cache_destroy(struct oplib_cache *cache);
struct oplib_cache_entry *oplib_cache_get(struct oplib_cache *cache,
					  const void *key, size_t key_size);
struct oplib_cache_entry *oplib_cache_add(struct oplib_cache *cache,
					  const void *key, size_t key_size,
					  struct oplib_plan *plan);
const struct oplib_plan *oplib_cache_plan(const struct oplib_cache_entry *e);
void oplib_cache_put(struct oplib_cache *cache, struct oplib_cache_entry *e);

struct oplib {
	dnnl_engine_t engine;
	unsigned int threads;
	uint32_t dtypes;
	struct oplib_cache cache;
};

/*
 * One family of operators: its checks and plan.  How many inputs it takes
 * and which attributes are the operator table's (uapi/npu_operator.h).
 */
struct oplib_family {
	/* an empty input is fine even when the output is not */
	bool empty_inputs_ok;
	/*
	 * it reads inputs with a stride of 0 (oplib_broadcasts()) as they
	 * are: loops, and reorders from them; else it gets dense copies
	 */
	bool reads_broadcast;
	int (*check)(const struct oplib_op *op);
	int (*plan)(struct oplib *lib, const struct oplib_op *op,
		    struct oplib_plan *plan);
};

/*
 * Each operator of the table is run by oplib_<name>_family: one the
 * library lacks is an undefined reference wherever the library is linked.
 */
#define NPU_OPERATOR(NAME, number, min, max, attrs, rsvd, act, name) \
	extern const struct oplib_family oplib_##name##_family;
NPU_OPERATOR_TABLE
#undef NPU_OPERATOR

/* Little-endian attribute fields. */
static inline uint32_t oplib_u32(__le32 v)
{
	return le32toh(v);
}

static inline float oplib_f32(__le32 v)
{
	uint32_t bits = le32toh(v);
	float f;

	memcpy(&f, &bits, sizeof(f));
	return f;
}

/* BF16 is F32's upper half: widening is exact. */
static inline float oplib_bf16_to_f32(uint16_t h)
{
	uint32_t bits = (uint32_t)h << 16;
	float f;

	memcpy(&f, &bits, sizeof(f));
	return f;
}

/* Bytes [from, to) of an attribute union are all 0. */
static inline bool oplib_zero(const void *p, size_t from, size_t to)
{
	const uint8_t *b = p;

	for (; from < to; from++)
		if (b[from])
			return false;
	return true;
}

/* oplib_plan.c: building plans */
size_t oplib_dtype_size(unsigned int dtype);
dnnl_data_type_t oplib_dnnl_dtype(unsigned int dtype);
int oplib_md_copy(dnnl_memory_desc_t *md, unsigned int ndims,
		  const int64_t *dims, const int64_t *strides,
		  unsigned int dtype);
int oplib_plan_copy_tensor(struct oplib_plan *plan, const struct oplib_op *op,
			   unsigned int tensor, unsigned int *view);
int oplib_status(dnnl_status_t status);
int oplib_md_strided(dnnl_memory_desc_t *md, unsigned int ndims,
		     const int64_t *dims, const int64_t *strides,
		     unsigned int dtype);
int oplib_md_dense(dnnl_memory_desc_t *md, unsigned int ndims,
		   const int64_t *dims, unsigned int dtype);
int oplib_tensor_md(const struct oplib_tensor *t, dnnl_memory_desc_t *md);
int oplib_plan_view(struct oplib_plan *plan, unsigned int buf,
		    uint64_t offset, const dnnl_memory_desc_t *md,
		    unsigned int *view);
int oplib_plan_tensor(struct oplib_plan *plan, const struct oplib_op *op,
		      unsigned int tensor, unsigned int *view);
int oplib_plan_scratch(struct oplib_plan *plan, const dnnl_memory_desc_t *md,
		       unsigned int *view);
int oplib_plan_primitive(struct oplib_plan *plan, dnnl_primitive_desc_t pd,
			 unsigned int nargs, const int *args,
			 const unsigned int *views);
int oplib_plan_reorder(struct oplib *lib, struct oplib_plan *plan,
		       unsigned int src, unsigned int dst);
int oplib_plan_check(struct oplib_plan *plan, oplib_check_fn check,
		     unsigned int tensor, uint64_t key, uint64_t size);
int oplib_plan_loop(struct oplib_plan *plan, oplib_loop_fn loop,
		    unsigned int in, unsigned int out,
		    const struct oplib_act *act);
int oplib_plan_input(struct oplib *lib, struct oplib_plan *plan,
		     unsigned int view, const dnnl_memory_desc_t *want,
		     unsigned int *bound);
int oplib_plan_output(struct oplib_plan *plan, unsigned int view,
		      const dnnl_memory_desc_t *want, unsigned int *bound);
int oplib_plan_output_done(struct oplib *lib, struct oplib_plan *plan,
			   unsigned int view, unsigned int bound);
void oplib_op_staged(struct oplib_op *op, uint32_t staged, uint32_t widened);
int oplib_plan_stage_begin(struct oplib *lib, struct oplib_plan *plan,
			   const struct oplib_op *op, const struct oplib_op *staged);
int oplib_plan_stage_end(struct oplib *lib, struct oplib_plan *plan,
			 const struct oplib_op *op, const struct oplib_op *staged);
int oplib_plan_reshape(struct oplib *lib, struct oplib_plan *plan,
		       unsigned int view, unsigned int ndims,
		       const int64_t *dims, bool output, unsigned int *shaped,
		       unsigned int *home);
int oplib_attr(const_dnnl_primitive_attr_t from, dnnl_primitive_attr_t *attr);
int oplib_pd_create(dnnl_primitive_desc_t *pd, const void *op_desc,
		    const_dnnl_primitive_attr_t attr, struct oplib *lib);
const dnnl_memory_desc_t *oplib_pd_md(const_dnnl_primitive_desc_t pd,
				      int arg);
bool oplib_pd_is_ref(const_dnnl_primitive_desc_t pd);
void oplib_plan_destroy(struct oplib_plan *plan);

/* oplib_reduce_exact.c: REDUCE of the types oneDNN would round */
bool oplib_reduce_is_exact(const struct oplib_op *op);
bool oplib_reduce_exact_loop(const struct oplib_op *op,
			     const struct oplib_step *step,
			     uint8_t *const *bufs,
			     const struct oplib_hooks *hooks);

/* oplib_convert.c: F16 to and from F32 faster than oneDNN 2.6's reorder */
bool oplib_convert_fits(const struct oplib_view *src, const struct oplib_view *dst);
int oplib_plan_convert(struct oplib_plan *plan, unsigned int src, unsigned int dst);
/* n F16 elements at from (any alignment) as F32, rounded to nearest even back */
void oplib_f16_widen(const uint8_t *from, float *to, uint64_t n);
void oplib_f16_narrow(const float *from, uint8_t *to, uint64_t n);

/* oplib_isa.c: the widest vector instructions the loops may use */
enum oplib_isa {
	OPLIB_ISA_BASE,		/* x86-64's SSE2: the loops the compiler vectorises */
	OPLIB_ISA_AVX2,		/* with FMA */
	OPLIB_ISA_AVX512,	/* AVX-512F */
};
enum oplib_isa oplib_isa(void);

/* oplib_softmax_rows.c: SOFTMAX and log-SOFTMAX over dense F32 rows, with AVX2 or AVX-512 */
bool oplib_softmax_rows_apply(const struct oplib_op *op);
bool oplib_softmax_rows_loop(const struct oplib_op *op, const struct oplib_step *step,
			     uint8_t *const *bufs, const struct oplib_hooks *hooks);

/* oplib_eltwise.c: activations, for every family that fuses one */
int oplib_act_decode(const struct npu_activation *raw, struct oplib_act *act);
bool oplib_act_is_none(const struct oplib_act *act);
double oplib_act_apply_f64(const struct oplib_act *act, double x);
float oplib_act_apply(const struct oplib_act *act, float x);
int oplib_act_post_ops(const struct oplib_act *act, dnnl_primitive_attr_t attr,
		       bool *fused);
/* The same after a sum post-op: dst's prior contents are added first. */
int oplib_sum_act_post_ops(const struct oplib_act *act,
			   dnnl_primitive_attr_t attr, bool *fused);
int oplib_plan_act(struct oplib *lib, struct oplib_plan *plan,
		   unsigned int tensor, unsigned int view,
		   const struct oplib_act *act);

/*
 * Called by a loop for every element: every 64 Ki elements (well under a
 * millisecond) it asks whether the operator is abandoned.
 */
static inline bool oplib_loop_go_on(const struct oplib_hooks *hooks,
				    uint64_t *count)
{
	if (++*count & 0xffff)
		return true;
	return !hooks || !hooks->abandoned(hooks->ctx);
}

/*
 * Four float32 lanes for the loops that vectorise by hand: SSE, which
 * every x86-64 has (the loops that use them are bound by memory, not by
 * the vector width).  Loaded and stored with memcpy: no alignment
 * assumed.
 */
typedef float oplib_vf32 __attribute__((vector_size(16)));

#define OPLIB_VF32_LANES	(sizeof(oplib_vf32) / sizeof(float))

static inline oplib_vf32 oplib_vf32_load(const float *p)
{
	oplib_vf32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* oplib_loop.c: what the loops share */
bool oplib_dtype_is_int(unsigned int dtype);
float oplib_load(const uint8_t *p, unsigned int dtype);
void oplib_store(uint8_t *p, unsigned int dtype, float v);
int64_t oplib_load_int(const uint8_t *p, unsigned int dtype);
double oplib_load_f64(const uint8_t *p, unsigned int dtype);
void oplib_store_int(uint8_t *p, unsigned int dtype, int64_t v);
void oplib_store_f64(uint8_t *p, unsigned int dtype, double v);
/* Whether any of the operator's tensors is F64: its loops compute in double. */
bool oplib_op_has_f64(const struct oplib_op *op);
int64_t oplib_f64_to_int(double d);
uint64_t oplib_f64_to_u64(double d);
int64_t oplib_offset(const struct oplib_tensor *t, const int64_t *idx);
bool oplib_index_next(int64_t *idx, const int64_t *dims, unsigned int ndims);
void oplib_zero_padding(const struct oplib_tensor *t, uint8_t *base);

/* oplib_wide.c: integers past int64, exact */
__extension__ typedef __int128 oplib_wide;
#define OPLIB_WIDE_MAX	((oplib_wide)((~(unsigned __int128)0) >> 1))
#define OPLIB_WIDE_MIN	(-OPLIB_WIDE_MAX - 1)
oplib_wide oplib_load_wide(const uint8_t *p, unsigned int dtype);
void oplib_store_wide(uint8_t *p, unsigned int dtype, oplib_wide v);
oplib_wide oplib_f64_to_wide(double d);
/* NPU_ERR_OPERATOR for a U64 tensor in an operator that lacks the type */
int oplib_u64_check(const struct oplib_op *op);

/* oplib.c: checks several families share */
bool oplib_broadcasts(const struct oplib_tensor *t);
int oplib_strided_only(const struct oplib_tensor *t);
int oplib_all_strided(const struct oplib_op *op);
bool oplib_dense(const struct oplib_tensor *t);
bool oplib_same_dims(const struct oplib_tensor *a, const struct oplib_tensor *b);

/* oplib_index.c: index tensors (S32 or S64, negative from the end) */
bool oplib_index_dtype(unsigned int dtype);
/* Index at p into an axis of n elements, made positive; false if outside. */
bool oplib_index_load(const uint8_t *p, unsigned int dtype, int64_t n,
		      int64_t *at);
/* NPU_ERR_OP_PARAM if any index of ind (its bytes at base) is outside. */
int oplib_index_check_all(const struct oplib_tensor *ind, const uint8_t *base,
			  int64_t n);

/*
 * oplib_loop_go_on() for a loop that does @n elements at a time (a line
 * along an axis): it asks whenever the count passes a multiple of 64 Ki.
 */
static inline bool oplib_loop_go_on_n(const struct oplib_hooks *hooks,
				      uint64_t *count, uint64_t n)
{
	uint64_t before = *count;

	*count += n;
	if ((before >> 16) == (*count >> 16))
		return true;
	return !hooks || !hooks->abandoned(hooks->ctx);
}

/*
 * oplib_rows.c: a loop over independent lines, lines[0..ndims) of them in
 * row-major order, per_line elements each, split among the library's
 * threads; fn does the line at idx as worker (below oplib_rows_workers(),
 * for per-worker scratch).  False if the operator was abandoned.
 */
#define OPLIB_ROWS_MAX_WORKERS	64
typedef void (*oplib_rows_fn)(const struct oplib_op *op,
			      const struct oplib_step *step,
			      uint8_t *const *bufs, const int64_t *idx,
			      unsigned int worker);
unsigned int oplib_rows_workers(void);
bool oplib_rows_run(const struct oplib_op *op, const struct oplib_step *step,
		    uint8_t *const *bufs, const struct oplib_hooks *hooks,
		    const int64_t *lines, unsigned int ndims, uint64_t per_line,
		    oplib_rows_fn fn);

/* oplib_argreduce.c: REDUCE's ARGMAX and ARGMIN, which REDUCE hands over */
extern const struct oplib_family oplib_argreduce_family;

#endif /* OPLIB_IMPL_H */
