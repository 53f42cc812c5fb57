// SPDX-License-Identifier: GPL-2.0
/*
 * Building plans: memory descriptors for tensors, views, scratch buffers,
 * and the steps (oneDNN primitives, reorders, loops) over them.
 *
 * Plans are built once per distinct operator and then cached, so nothing
 * here may depend on a tensor's address: a view is a buffer number, a byte
 * offset into it and a memory descriptor.
 */
#include <stdlib.h>

#include "npu_dtypes.h"
#include "oplib_impl.h"

size_t oplib_dtype_size(unsigned int dtype)
{
	return npu_dtype_card_size(dtype);
}

dnnl_data_type_t oplib_dnnl_dtype(unsigned int dtype)
{
	switch (dtype) {
	case NPU_DTYPE_F32:
		return dnnl_f32;
	case NPU_DTYPE_BF16:
		return dnnl_bf16;
	case NPU_DTYPE_F16:
		return dnnl_f16;
	case NPU_DTYPE_S32:
		return dnnl_s32;
	case NPU_DTYPE_S8:
		return dnnl_s8;
	case NPU_DTYPE_U8:
		return dnnl_u8;
	}
	return dnnl_data_type_undef;
}

/*
 * What a oneDNN failure means for the ring.  The descriptor has passed our
 * checks by then, so oneDNN refusing it means the library lacks that case.
 */
int oplib_status(dnnl_status_t status)
{
	switch (status) {
	case dnnl_success:
		return NPU_ERR_NONE;
	case dnnl_unimplemented:
	case dnnl_invalid_arguments:
		return NPU_ERR_OPERATOR;
	default:
		return NPU_ERR_OP_FAILED;
	}
}

/*
 * oneDNN has no rank 0: a scalar is one element of rank 1.  The stride of
 * an axis of size 1 says nothing, and the checks leave it unbounded, so
 * oneDNN gets one of its own: the span of the axes inside it, as a dense
 * tensor has.  oneDNN sizes a tensor by strides times sizes, which this
 * keeps within the tensor, and it reads the order of the axes from the
 * strides: a larger stride, say the whole tensor's span, would make a
 * plain tensor look permuted (1x60x1x40 as acbd), and oneDNN 2.6's jit
 * binary computes a permuted source with a unit axis and a broadcast
 * second source wrongly (zeros on AVX-512 when C is not a multiple of 16).
 */
static int md_strided(dnnl_memory_desc_t *md, unsigned int ndims,
		      const int64_t *dims, const int64_t *strides,
		      dnnl_data_type_t dtype)
{
	dnnl_dims_t size = { 1 }, fixed = { 1 };
	int64_t inner = 1;
	int d;

	for (d = (int)ndims - 1; d >= 0; d--) {
		size[d] = dims[d];
		fixed[d] = dims[d] == 1 ? inner : strides[d];
		if (dims[d] > 1 && dims[d] * strides[d] > inner)
			inner = dims[d] * strides[d];
	}
	return oplib_status(dnnl_memory_desc_init_by_strides(md,
				ndims ? ndims : 1, size, dtype, fixed));
}

int oplib_md_strided(dnnl_memory_desc_t *md, unsigned int ndims,
		     const int64_t *dims, const int64_t *strides,
		     unsigned int dtype)
{
	/* arithmetic on the types oneDNN has not is the loops' */
	if (oplib_dnnl_dtype(dtype) == dnnl_data_type_undef)
		return NPU_ERR_OPERATOR;
	return md_strided(md, ndims, dims, strides, oplib_dnnl_dtype(dtype));
}

/*
 * For operators that only move elements: a type oneDNN has not is moved
 * as its bytes, a type oneDNN has of the same size (BOOL as u8), or as
 * two of one of half the size on an innermost axis of their own (S64, U64
 * and F64 as s32 pairs, S16 as u8 pairs).  Such a view is good for reorders and
 * concatenations, never for arithmetic.
 */
int oplib_md_copy(dnnl_memory_desc_t *md, unsigned int ndims,
		  const int64_t *dims, const int64_t *strides,
		  unsigned int dtype)
{
	int64_t wide_dims[NPU_TENSOR_MAX_DIMS + 1];
	int64_t wide_strides[NPU_TENSOR_MAX_DIMS + 1];
	dnnl_data_type_t half;
	unsigned int d;

	switch (dtype) {
	case NPU_DTYPE_BOOL:
		return md_strided(md, ndims, dims, strides, dnnl_u8);
	case NPU_DTYPE_S64:
	case NPU_DTYPE_U64:
	case NPU_DTYPE_F64:
		half = dnnl_s32;
		break;
	case NPU_DTYPE_S16:
		half = dnnl_u8;
		break;
	default:
		return oplib_md_strided(md, ndims, dims, strides, dtype);
	}
	for (d = 0; d < ndims; d++) {
		wide_dims[d] = dims[d];
		wide_strides[d] = strides[d] * 2;
	}
	wide_dims[ndims] = 2;
	wide_strides[ndims] = 1;
	return md_strided(md, ndims + 1, wide_dims, wide_strides, half);
}

/* A tensor seen by oplib_md_copy(): strided ones only. */
int oplib_plan_copy_tensor(struct oplib_plan *plan, const struct oplib_op *op,
			   unsigned int tensor, unsigned int *view)
{
	const struct oplib_tensor *t = &op->t[tensor];
	dnnl_memory_desc_t md;
	int err;

	if (oplib_dnnl_dtype(t->dtype) != dnnl_data_type_undef)
		return oplib_plan_tensor(plan, op, tensor, view);
	err = oplib_strided_only(t);
	if (!err)
		err = oplib_md_copy(&md, t->ndims, t->dims, t->strides, t->dtype);
	if (!err)
		err = oplib_plan_view(plan, tensor, 0, &md, view);
	return err;
}

static void dense_strides(unsigned int ndims, const int64_t *dims,
			  int64_t *strides)
{
	int64_t s = 1;
	int d;

	for (d = (int)ndims - 1; d >= 0; d--) {
		strides[d] = s;
		/* an empty tensor has no elements to place */
		s *= dims[d] ? dims[d] : 1;
	}
}

/* Row-major, no gaps. */
int oplib_md_dense(dnnl_memory_desc_t *md, unsigned int ndims,
		   const int64_t *dims, unsigned int dtype)
{
	int64_t strides[DNNL_MAX_NDIMS];

	dense_strides(ndims, dims, strides);
	return oplib_md_strided(md, ndims, dims, strides, dtype);
}

int oplib_tensor_md(const struct oplib_tensor *t, dnnl_memory_desc_t *md)
{
	dnnl_dims_t dims = { t->dims[0], t->dims[1], t->dims[2], t->dims[3] };

	if (oplib_dnnl_dtype(t->dtype) == dnnl_data_type_undef)
		return NPU_ERR_OPERATOR;
	if (t->format != NPU_FORMAT_STRIDED)
		return oplib_status(dnnl_memory_desc_init_by_tag(md, 4, dims,
					oplib_dnnl_dtype(t->dtype),
					t->format == NPU_FORMAT_NCHW16C ?
					dnnl_nChw16c : dnnl_OIhw16i16o));
	return oplib_md_strided(md, t->ndims, t->dims, t->strides, t->dtype);
}

int oplib_plan_view(struct oplib_plan *plan, unsigned int buf,
		    uint64_t offset, const dnnl_memory_desc_t *md,
		    unsigned int *view)
{
	struct oplib_view *v;

	if (plan->nviews == OPLIB_MAX_VIEWS)
		return NPU_ERR_OP_FAILED;
	v = &plan->views[plan->nviews];
	v->buf = buf;
	v->offset = offset;
	v->md = *md;
	*view = plan->nviews++;
	return NPU_ERR_NONE;
}

int oplib_plan_tensor(struct oplib_plan *plan, const struct oplib_op *op,
		      unsigned int tensor, unsigned int *view)
{
	dnnl_memory_desc_t md;
	int err = oplib_tensor_md(&op->t[tensor], &md);

	if (err)
		return err;
	return oplib_plan_view(plan, tensor, 0, &md, view);
}

int oplib_plan_scratch(struct oplib_plan *plan, const dnnl_memory_desc_t *md,
		       unsigned int *view)
{
	unsigned int i = plan->nscratch;
	int err;

	if (i == OPLIB_MAX_SCRATCH)
		return NPU_ERR_OP_FAILED;
	err = oplib_plan_view(plan, OPLIB_SCRATCH_BUF(i), 0, md, view);
	if (err)
		return err;
	plan->scratch_size[i] = dnnl_memory_desc_get_size(md);
	plan->nscratch++;
	return NPU_ERR_NONE;
}

static struct oplib_step *plan_step(struct oplib_plan *plan)
{
	struct oplib_step *step;

	if (plan->nsteps == OPLIB_MAX_STEPS)
		return NULL;
	step = &plan->steps[plan->nsteps++];
	memset(step, 0, sizeof(*step));
	return step;
}

/* Takes pd, whatever happens. */
int oplib_plan_primitive(struct oplib_plan *plan, dnnl_primitive_desc_t pd,
			 unsigned int nargs, const int *args,
			 const unsigned int *views)
{
	struct oplib_step *step = plan_step(plan);
	dnnl_status_t status;
	unsigned int i;

	if (!step || nargs > OPLIB_STEP_ARGS) {
		dnnl_primitive_desc_destroy(pd);
		return NPU_ERR_OP_FAILED;
	}
	status = dnnl_primitive_create(&step->prim, pd);
	if (status == dnnl_success) {
		step->scratchpad = *dnnl_primitive_desc_query_md(pd,
					dnnl_query_scratchpad_md, 0);
		step->scratchpad_size =
			dnnl_memory_desc_get_size(&step->scratchpad);
	}
	dnnl_primitive_desc_destroy(pd);
	if (status != dnnl_success) {
		step->prim = NULL;
		plan->nsteps--;
		return oplib_status(status);
	}
	if (step->scratchpad_size > plan->scratchpad_size)
		plan->scratchpad_size = step->scratchpad_size;
	step->nargs = nargs;
	for (i = 0; i < nargs; i++) {
		step->args[i].arg = args[i];
		step->args[i].view = views[i];
	}
	return NPU_ERR_NONE;
}

/*
 * Attributes every primitive gets: from's, and a scratchpad we pass in.
 * oneDNN 2.6's own scratchpad is NULL in any thread but the one that
 * created the primitive (its gemm convolution then writes to address 0),
 * and ours is allocated per run, so rings running one primitive at once
 * do not share it.
 */
int oplib_attr(const_dnnl_primitive_attr_t from, dnnl_primitive_attr_t *attr)
{
	dnnl_status_t status;

	status = from ? dnnl_primitive_attr_clone(attr, from) :
			dnnl_primitive_attr_create(attr);
	if (status != dnnl_success)
		return NPU_ERR_OP_FAILED;
	status = dnnl_primitive_attr_set_scratchpad_mode(*attr,
						dnnl_scratchpad_mode_user);
	if (status != dnnl_success) {
		dnnl_primitive_attr_destroy(*attr);
		return NPU_ERR_OP_FAILED;
	}
	return NPU_ERR_NONE;
}

int oplib_pd_create(dnnl_primitive_desc_t *pd, const void *op_desc,
		    const_dnnl_primitive_attr_t from, struct oplib *lib)
{
	dnnl_primitive_attr_t attr;
	int err = oplib_attr(from, &attr);

	if (err)
		return err;
	err = oplib_status(dnnl_primitive_desc_create(pd, op_desc, attr,
						      lib->engine, NULL));
	dnnl_primitive_attr_destroy(attr);
	return err;
}

int oplib_plan_reorder(struct oplib *lib, struct oplib_plan *plan,
		       unsigned int src, unsigned int dst)
{
	static const int args[] = { DNNL_ARG_SRC, DNNL_ARG_DST };
	const unsigned int views[] = { src, dst };
	dnnl_primitive_attr_t attr;
	dnnl_primitive_desc_t pd;
	dnnl_status_t status;
	int err;

	if (oplib_convert_fits(&plan->views[src], &plan->views[dst]))
		return oplib_plan_convert(plan, src, dst);
	err = oplib_attr(NULL, &attr);
	if (err)
		return err;
	status = dnnl_reorder_primitive_desc_create(&pd,
			&plan->views[src].md, lib->engine,
			&plan->views[dst].md, lib->engine, attr);
	dnnl_primitive_attr_destroy(attr);
	if (status != dnnl_success)
		return oplib_status(status);
	return oplib_plan_primitive(plan, pd, 2, args, views);
}

/* A step that checks (or writes) the bytes of a tensor, as a packed header. */
int oplib_plan_check(struct oplib_plan *plan, oplib_check_fn check,
		     unsigned int tensor, uint64_t key, uint64_t size)
{
	struct oplib_step *step = plan_step(plan);

	if (!step)
		return NPU_ERR_OP_FAILED;
	step->check = check;
	step->in = tensor;
	step->key = key;
	step->size = size;
	return NPU_ERR_NONE;
}

int oplib_plan_loop(struct oplib_plan *plan, oplib_loop_fn loop,
		    unsigned int in, unsigned int out,
		    const struct oplib_act *act)
{
	struct oplib_step *step = plan_step(plan);

	if (!step)
		return NPU_ERR_OP_FAILED;
	step->loop = loop;
	step->in = in;
	step->out = out;
	if (act)
		step->act = *act;
	return NPU_ERR_NONE;
}

/* The view an input is read through: itself, or a copy laid out as want. */
int oplib_plan_input(struct oplib *lib, struct oplib_plan *plan,
		     unsigned int view, const dnnl_memory_desc_t *want,
		     unsigned int *bound)
{
	dnnl_memory_desc_t md = *want;
	int err;

	if (dnnl_memory_desc_equal(&plan->views[view].md, &md)) {
		*bound = view;
		return NPU_ERR_NONE;
	}
	err = oplib_plan_scratch(plan, &md, bound);
	if (!err)
		err = oplib_plan_reorder(lib, plan, view, *bound);
	return err;
}

/*
 * The view an output is written through: itself, or scratch laid out as
 * want, which oplib_plan_output_done() copies into the output afterwards.
 */
int oplib_plan_output(struct oplib_plan *plan, unsigned int view,
		      const dnnl_memory_desc_t *want, unsigned int *bound)
{
	dnnl_memory_desc_t md = *want;

	if (dnnl_memory_desc_equal(&plan->views[view].md, &md)) {
		*bound = view;
		return NPU_ERR_NONE;
	}
	return oplib_plan_scratch(plan, &md, bound);
}

int oplib_plan_output_done(struct oplib *lib, struct oplib_plan *plan,
			   unsigned int view, unsigned int bound)
{
	if (bound == view)
		return NPU_ERR_NONE;
	return oplib_plan_reorder(lib, plan, bound, view);
}

/*
 * The operator as a plan's family sees it: each tensor in @staged lies in
 * scratch, row-major if strided, and in F32 if in @widened.
 */
void oplib_op_staged(struct oplib_op *op, uint32_t staged, uint32_t widened)
{
	unsigned int i;

	for (i = 0; i < op->num_tensors; i++) {
		struct oplib_tensor *t = &op->t[i];

		if (!(staged & (1u << i)))
			continue;
		if (t->format == NPU_FORMAT_STRIDED)
			dense_strides(t->ndims, t->dims, t->strides);
		if (widened & (1u << i))
			t->dtype = NPU_DTYPE_F32;
	}
}

/* A tensor's md for staging: a copy's view of the types oneDNN has not. */
static int stage_md(const struct oplib_tensor *t, dnnl_memory_desc_t *md)
{
	if (t->format == NPU_FORMAT_STRIDED)
		return oplib_md_copy(md, t->ndims, t->dims, t->strides, t->dtype);
	return oplib_tensor_md(t, md);
}

/*
 * Before the family's steps: each staged input copied into scratch (made
 * dense, widened), and the staged output's scratch set aside.
 */
int oplib_plan_stage_begin(struct oplib *lib, struct oplib_plan *plan,
			   const struct oplib_op *op, const struct oplib_op *staged)
{
	dnnl_memory_desc_t md;
	unsigned int i, src, dst;
	int err;

	for (i = 0; i < op->num_tensors; i++) {
		if (!(plan->staged & (1u << i)))
			continue;
		err = stage_md(&staged->t[i], &md);
		if (!err)
			err = oplib_plan_scratch(plan, &md, &dst);
		if (err)
			return err;
		plan->staged_buf[i] = plan->views[dst].buf;
		if (i >= op->num_inputs)
			continue;
		err = stage_md(&op->t[i], &md);
		if (!err)
			err = oplib_plan_view(plan, OPLIB_SOURCE_BUF(i), 0, &md, &src);
		if (!err)
			err = oplib_plan_reorder(lib, plan, src, dst);
		if (err)
			return err;
	}
	return NPU_ERR_NONE;
}

/* After them: the staged output copied to where it lies. */
int oplib_plan_stage_end(struct oplib *lib, struct oplib_plan *plan,
			 const struct oplib_op *op, const struct oplib_op *staged)
{
	unsigned int y = op->num_inputs;
	dnnl_memory_desc_t md;
	unsigned int src, dst;
	int err;

	if (!(plan->staged & (1u << y)))
		return NPU_ERR_NONE;
	err = stage_md(&op->t[y], &md);
	if (!err)
		err = oplib_plan_view(plan, OPLIB_SOURCE_BUF(y), 0, &md, &dst);
	if (!err)
		err = stage_md(&staged->t[y], &md);
	if (!err)
		err = oplib_plan_view(plan, plan->staged_buf[y], 0, &md, &src);
	if (!err)
		err = oplib_plan_reorder(lib, plan, src, dst);
	return err;
}

/*
 * A view with other dims over the same elements in the same order (oneDNN's
 * reshape rules).  When the strides do not allow it, the data goes through a
 * dense copy: an input is copied in first, an output lands in *home and
 * oplib_plan_output_done(view, *home) copies it out.
 */
int oplib_plan_reshape(struct oplib *lib, struct oplib_plan *plan,
		       unsigned int view, unsigned int ndims,
		       const int64_t *dims, bool output, unsigned int *shaped,
		       unsigned int *home)
{
	struct oplib_view v = plan->views[view];
	dnnl_dims_t strides, shape = { 0 };
	dnnl_memory_desc_t md, dense;
	unsigned int scratch;
	int err;

	memcpy(shape, dims, ndims * sizeof(*dims));
	if (dnnl_memory_desc_reshape(&md, &v.md, ndims, shape) == dnnl_success) {
		if (home)
			*home = view;
		return oplib_plan_view(plan, v.buf, v.offset, &md, shaped);
	}
	dense_strides(v.md.ndims, v.md.dims, strides);
	err = oplib_status(dnnl_memory_desc_init_by_strides(&dense, v.md.ndims,
				v.md.dims, v.md.data_type, strides));
	if (err)
		return err;
	err = oplib_plan_scratch(plan, &dense, &scratch);
	if (!err && !output)
		err = oplib_plan_reorder(lib, plan, view, scratch);
	if (err)
		return err;
	if (home)
		*home = scratch;
	if (dnnl_memory_desc_reshape(&md, &dense, ndims, shape) != dnnl_success)
		return NPU_ERR_OPERATOR;
	return oplib_plan_view(plan, OPLIB_SCRATCH_BUF(plan->nscratch - 1), 0,
			       &md, shaped);
}

const dnnl_memory_desc_t *oplib_pd_md(const_dnnl_primitive_desc_t pd, int arg)
{
	return dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg);
}

/* oneDNN's reference code: correct for any layout, but slow. */
bool oplib_pd_is_ref(const_dnnl_primitive_desc_t pd)
{
	const char *impl = NULL;

	if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0,
				      &impl) != dnnl_success || !impl)
		return false;
	return strncmp(impl, "ref", 3) == 0;
}

void oplib_plan_destroy(struct oplib_plan *plan)
{
	unsigned int i;

	if (!plan)
		return;
	for (i = 0; i < plan->nsteps; i++)
		if (plan->steps[i].prim)
			dnnl_primitive_destroy(plan->steps[i].prim);
	free(plan);
}
