// SPDX-License-Identifier: MIT
/*
 * aclnnXxx(): the executor's program gets this launch's addresses and goes
 * to the stream.  Every address is checked against the device's memory
 * before anything is queued, so a bad one fails the call and never
 * reaches the card.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "executor.h"
#include "npu_acl_private.h"

/* What a launch resolves: the workspace and where each slot's view starts. */
struct launch {
	aclOpExecutor *x;
	const char *op_name;
	uint64_t work;
	uint64_t *slot_base;
};

static uint64_t span_bytes(const struct nnop_tensor_info *i)
{
	uint64_t last = 0;

	for (unsigned int d = 0; d < i->ndims; d++)
		last += (uint64_t)(i->dims[d] - 1) * (uint64_t)i->strides[d];
	return nnop_dtype_bytes(i->acl_dtype, last + 1);
}

static aclnnStatus check_workspace(struct launch *l, void *workspace, uint64_t size)
{
	uint64_t need = l->x->work_size;

	if (!need)
		return ACLNN_SUCCESS;
	if (!workspace)
		return nnop_fail(l->op_name, ACLNN_ERR_PARAM_NULLPTR, "the workspace is NULL; the "
				 "operator needs %llu bytes", (unsigned long long)need);
	if (size < need)
		return nnop_fail(l->op_name, ACLNN_ERR_PARAM_INVALID, "the workspace has %llu "
				 "bytes, the operator needs %llu", (unsigned long long)size,
				 (unsigned long long)need);
	if (!npu_acl_devmem_holds(workspace, need))
		return nnop_fail(l->op_name, ACLNN_ERR_PARAM_INVALID, "the workspace %p is not %llu "
				 "bytes of one allocation of the current device", workspace,
				 (unsigned long long)need);
	l->work = (uintptr_t)workspace;
	return ACLNN_SUCCESS;
}

static aclnnStatus check_slot(struct launch *l, unsigned int i)
{
	const struct nnop_slot *s = &l->x->slots[i];
	const struct nnop_tensor_info *t = &s->info;
	size_t esize = nnop_dtype_size(t->acl_dtype);
	const char *what = s->output ? "output" : "input";
	uint64_t start = (uintptr_t)t->data + nnop_dtype_bytes(t->acl_dtype, t->offset);

	l->slot_base[i] = start;
	if (!t->nelems)
		return ACLNN_SUCCESS;
	if (!t->data)
		return nnop_fail(l->op_name, ACLNN_ERR_PARAM_NULLPTR, "%s tensor %u has no "
				 "address", what, s->ir);
	if (start % esize)
		return nnop_fail(l->op_name, ACLNN_ERR_PARAM_INVALID, "%s tensor %u at %p "
				 "is not aligned to its %zu-byte elements", what, s->ir,
				 (void *)(uintptr_t)start, esize);
	if (!npu_acl_devmem_holds((void *)(uintptr_t)start, span_bytes(t)))
		return nnop_fail(l->op_name, ACLNN_ERR_PARAM_INVALID, "%s tensor %u (%p + %llu "
				 "bytes) is not inside one allocation of the current device's "
				 "memory", what, s->ir, (void *)(uintptr_t)start,
				 (unsigned long long)span_bytes(t));
	return ACLNN_SUCCESS;
}

static size_t desc_size(const struct nnop_op *op)
{
	return sizeof(struct npu_op_desc) + (op->num_inputs + 1) * sizeof(struct npu_tensor_desc);
}

static size_t desc_stride(const struct nnop_op *op)
{
	return (desc_size(op) + NPU_OP_DESC_ALIGN - 1) / NPU_OP_DESC_ALIGN * NPU_OP_DESC_ALIGN;
}

static bool view_empty(const struct nnop_view *v)
{
	for (unsigned int d = 0; d < v->ndims; d++)
		if (!v->dims[d])
			return true;
	return false;
}

static void fill_tensor(const struct launch *l, const struct nnop_view *v,
			struct npu_tensor_desc *t)
{
	uint64_t base = v->base == NNOP_BASE_WORKSPACE ? l->work : l->slot_base[v->slot];

	t->addr = htole64(base + v->offset);
	t->dtype = htole16(v->card_dtype);
	t->format = htole16(NPU_FORMAT_STRIDED);
	t->ndims = htole16(v->ndims);
	for (unsigned int d = 0; d < v->ndims; d++) {
		t->dims[d] = htole64(v->dims[d]);
		t->strides[d] = htole64(v->strides[d]);
	}
}

static void fill_desc(const struct launch *l, const struct nnop_op *op, struct npu_op_desc *d)
{
	d->kind = htole16(op->kind);
	d->num_inputs = op->num_inputs;
	d->num_outputs = 1;
	d->attrs = op->attrs;
	for (unsigned int t = 0; t <= op->num_inputs; t++)
		fill_tensor(l, &op->views[t], &d->tensors[t]);
}

/*
 * What a launch of up to this many slots and operators, of descriptors
 * this size together, keeps on the stack: nearly every aclnn operator.
 * Larger programs take their buffers from the heap.
 */
#define LAUNCH_STACK_SLOTS	16
#define LAUNCH_STACK_OPS	8
#define LAUNCH_STACK_IMAGE	4096

/* The descriptors queued: one image, and where each starts. */
struct launch_descs {
	const void **descs;
	uint32_t *sizes;
	uint8_t *image;
	bool heap;
	const void *descs_stack[LAUNCH_STACK_OPS];
	uint32_t sizes_stack[LAUNCH_STACK_OPS];
	_Alignas(NPU_OP_DESC_ALIGN) uint8_t image_stack[LAUNCH_STACK_IMAGE];
};

static bool descs_get(struct launch_descs *b, unsigned int num_ops, size_t total)
{
	b->heap = num_ops > LAUNCH_STACK_OPS || total > LAUNCH_STACK_IMAGE;
	if (!b->heap) {
		b->descs = b->descs_stack;
		b->sizes = b->sizes_stack;
		b->image = b->image_stack;
	} else {
		b->descs = calloc(num_ops, sizeof(*b->descs));
		b->sizes = calloc(num_ops, sizeof(*b->sizes));
		b->image = aligned_alloc(NPU_OP_DESC_ALIGN, total);
	}
	if (b->descs && b->sizes && b->image) {
		memset(b->image, 0, total);
		return true;
	}
	return false;
}

static void descs_put(struct launch_descs *b)
{
	if (!b->heap)
		return;
	free(b->descs);
	free(b->sizes);
	free(b->image);
}

/* The descriptors of the operators that write something, and their queueing. */
static aclnnStatus submit(struct launch *l, aclrtStream stream)
{
	const aclOpExecutor *x = l->x;
	size_t total = NPU_OP_DESC_ALIGN;
	struct launch_descs b;
	uint32_t n = 0;
	aclError err;

	for (unsigned int i = 0; i < x->num_ops; i++)
		total += desc_stride(&x->ops[i]);
	if (!descs_get(&b, x->num_ops, total)) {
		descs_put(&b);
		return nnop_fail(l->op_name, ACLNN_ERR_INNER_NULLPTR, "out of memory for %u card "
				 "operators", x->num_ops);
	}
	for (size_t i = 0, at = 0; i < x->num_ops; at += desc_stride(&x->ops[i]), i++) {
		const struct nnop_op *op = &x->ops[i];

		if (view_empty(&op->views[op->num_inputs]))
			continue;
		fill_desc(l, op, (struct npu_op_desc *)(b.image + at));
		b.descs[n] = b.image + at;
		b.sizes[n++] = desc_size(op);
	}
	err = npu_acl_submit_named_ops(stream, l->op_name, b.descs, b.sizes, n);
	descs_put(&b);
	if (err) {
		const char *why = aclGetRecentErrMsg();

		return nnop_fail(l->op_name, ACLNN_ERR_RUNTIME_ERROR, "queueing its %u card operators "
				 "failed: runtime error %d (%s)", n, err, why ? why : "no message");
	}
	return ACLNN_SUCCESS;
}

static aclnnStatus launch(struct launch *l, void *workspace, uint64_t workspace_size,
			  aclrtStream stream)
{
	aclnnStatus err = check_workspace(l, workspace, workspace_size);

	for (unsigned int i = 0; !err && i < l->x->num_slots; i++)
		err = check_slot(l, i);
	if (!err)
		err = submit(l, stream);
	return err;
}

NNOP_EXPORT aclnnStatus nnop_launch(void *workspace, uint64_t workspace_size,
				    aclOpExecutor *executor, aclrtStream stream,
				    const char *op_name)
{
	struct launch l = { .x = executor, .op_name = op_name };
	uint64_t slot_base[LAUNCH_STACK_SLOTS];
	aclnnStatus err;

	if (!executor)
		return nnop_fail(op_name, ACLNN_ERR_PARAM_NULLPTR, "executor is NULL");
	if (!nnop_executor_live(executor))
		return nnop_fail(op_name, ACLNN_ERR_PARAM_INVALID, "executor %p is not one "
				 "GetWorkspaceSize made, or it is gone (a launch frees an executor "
				 "not made repeatable)", (void *)executor);
	l.slot_base = executor->num_slots <= LAUNCH_STACK_SLOTS ? slot_base :
		      calloc(executor->num_slots, sizeof(*l.slot_base));
	if (!l.slot_base)
		err = nnop_fail(op_name, ACLNN_ERR_INNER_NULLPTR, "out of memory");
	else
		err = launch(&l, workspace, workspace_size, stream);
	if (l.slot_base != slot_base)
		free(l.slot_base);
	if (!executor->repeatable)
		nnop_executor_free(executor);
	return err;
}
