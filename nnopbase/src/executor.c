// SPDX-License-Identifier: MIT
/*
 * Building an executor: libopapi names the operator's tensors, takes
 * workspace and appends card operators (nnop.h); finishing checks the
 * program against the card's operator table, so that a launch only fills
 * in addresses.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "executor.h"

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static aclOpExecutor *live_head;

/*
 * Freed executors kept, arrays and all, for the next GetWorkspaceSize:
 * an application calls GetWorkspaceSize and the launch once per operator
 * it runs, and three allocations of a few kilobytes each time were most
 * of aclnn's cost over a raw submission on an emulated CPU.  Under
 * live_lock; executors with large arrays are not kept.
 */
#define SPARE_EXECUTORS		4
#define SPARE_MAX_SLOTS		32
#define SPARE_MAX_OPS		16

static aclOpExecutor *spare[SPARE_EXECUTORS];
static unsigned int num_spare;

static aclOpExecutor *spare_take(void)
{
	aclOpExecutor *x = NULL;

	pthread_mutex_lock(&live_lock);
	if (num_spare)
		x = spare[--num_spare];
	pthread_mutex_unlock(&live_lock);
	return x;
}

/* Under live_lock: x kept (true), or it is the caller's to free. */
static bool spare_keep_locked(aclOpExecutor *x)
{
	if (num_spare == SPARE_EXECUTORS || x->slots_cap > SPARE_MAX_SLOTS ||
	    x->ops_cap > SPARE_MAX_OPS)
		return false;
	spare[num_spare++] = x;
	return true;
}

bool nnop_executor_live(const aclOpExecutor *x)
{
	bool found = false;

	pthread_mutex_lock(&live_lock);
	for (aclOpExecutor *e = live_head; e && !found; e = e->next)
		found = e == x;
	pthread_mutex_unlock(&live_lock);
	return found;
}

void nnop_executor_go_live(aclOpExecutor *x)
{
	x->finished = true;
	pthread_mutex_lock(&live_lock);
	x->next = live_head;
	live_head = x;
	pthread_mutex_unlock(&live_lock);
}

/* Frees x (or keeps it spare), finished or not; a finished one leaves the live list first. */
void nnop_executor_free(aclOpExecutor *x)
{
	bool kept;

	pthread_mutex_lock(&live_lock);
	for (aclOpExecutor **p = &live_head; x->finished && *p; p = &(*p)->next)
		if (*p == x) {
			*p = x->next;
			break;
		}
	kept = spare_keep_locked(x);
	pthread_mutex_unlock(&live_lock);
	if (kept)
		return;
	free(x->slots);
	free(x->ops);
	free(x);
}

/* A spare executor as new: empty, its arrays kept. */
static void executor_reset(aclOpExecutor *x)
{
	struct nnop_slot *slots = x->slots;
	struct nnop_op *ops = x->ops;
	unsigned int slots_cap = x->slots_cap, ops_cap = x->ops_cap;

	memset(x, 0, sizeof(*x));
	x->slots = slots;
	x->slots_cap = slots_cap;
	x->ops = ops;
	x->ops_cap = ops_cap;
}

NNOP_EXPORT aclOpExecutor *nnop_executor_new(const char *op_name)
{
	aclOpExecutor *x = spare_take();

	if (x)
		executor_reset(x);
	else
		x = calloc(1, sizeof(*x));
	if (!x) {
		NNOP_FAIL(ACLNN_ERR_INNER_CREATE_EXECUTOR, "%s: out of memory for an executor",
			  op_name);
		return NULL;
	}
	memcpy(x->op_name, op_name, strnlen(op_name, sizeof(x->op_name) - 1));
	return x;
}

NNOP_EXPORT void nnop_executor_abandon(aclOpExecutor *x)
{
	if (x)
		nnop_executor_free(x);
}

static bool grow(void **array, unsigned int *cap, unsigned int need, size_t size)
{
	unsigned int n = *cap ? *cap * 2 : 8;
	void *p;

	if (need <= *cap)
		return true;
	p = realloc(*array, (size_t)n * size);
	if (!p)
		return false;
	*array = p;
	*cap = n;
	return true;
}

static int add_slot(aclOpExecutor *x, const aclTensor *t, bool output, unsigned int rel,
		    bool in_list)
{
	struct nnop_slot *s;

	if (!t)
		return NNOP_FAIL(ACLNN_ERR_PARAM_NULLPTR, "%s: %s tensor %u is NULL", x->op_name,
				 output ? "output" : "input", x->num_ir[output]);
	if (!grow((void **)&x->slots, &x->slots_cap, x->num_slots + 1, sizeof(*x->slots)))
		return NNOP_FAIL(ACLNN_ERR_INNER_CREATE_EXECUTOR, "%s: out of memory", x->op_name);
	s = &x->slots[x->num_slots];
	*s = (struct nnop_slot){
		.tensor = t,
		.info = t->info,
		.output = output,
		.ir = x->num_ir[output],
		.rel = rel,
		.in_list = in_list,
	};
	return (int)x->num_slots++;
}

static int name_tensor(aclOpExecutor *x, const aclTensor *t, bool output)
{
	int slot = add_slot(x, t, output, 0, false);

	if (slot >= 0)
		x->num_ir[output]++;
	return slot;
}

static int name_list(aclOpExecutor *x, const aclTensorList *l, bool output, int *first_slot)
{
	int slot = -1;

	if (!l)
		return NNOP_FAIL(ACLNN_ERR_PARAM_NULLPTR, "%s: %s list %u is NULL", x->op_name,
				 output ? "output" : "input", x->num_ir[output]);
	*first_slot = (int)x->num_slots;
	for (uint64_t i = 0; i < l->size; i++) {
		slot = add_slot(x, l->tensors[i], output, (unsigned int)i, true);
		if (slot < 0)
			return slot;
	}
	x->num_ir[output]++;
	return *first_slot;
}

NNOP_EXPORT int nnop_executor_input(aclOpExecutor *x, const aclTensor *t)
{
	return name_tensor(x, t, false);
}

NNOP_EXPORT int nnop_executor_output(aclOpExecutor *x, const aclTensor *t)
{
	return name_tensor(x, t, true);
}

NNOP_EXPORT int nnop_executor_input_list(aclOpExecutor *x, const aclTensorList *l, int *first_slot)
{
	return name_list(x, l, false, first_slot);
}

NNOP_EXPORT int nnop_executor_output_list(aclOpExecutor *x, const aclTensorList *l, int *first_slot)
{
	return name_list(x, l, true, first_slot);
}

NNOP_EXPORT struct nnop_view nnop_view_of(const aclOpExecutor *x, int slot)
{
	const struct nnop_tensor_info *i = &x->slots[slot].info;
	struct nnop_view v = {
		.base = NNOP_BASE_TENSOR,
		.slot = slot,
		.card_dtype = i->card_dtype,
		.ndims = i->ndims,
	};

	memcpy(v.dims, i->dims, sizeof(v.dims));
	memcpy(v.strides, i->strides, sizeof(v.strides));
	return v;
}

NNOP_EXPORT uint64_t nnop_workspace(aclOpExecutor *x, uint64_t bytes)
{
	uint64_t at = x->work_size;

	x->work_size += (bytes + NNOP_WORK_ALIGN - 1) / NNOP_WORK_ALIGN * NNOP_WORK_ALIGN;
	return at;
}

NNOP_EXPORT struct nnop_view nnop_view_work(aclOpExecutor *x, int card_dtype, unsigned int ndims,
					    const int64_t *dims)
{
	struct nnop_view v = {
		.base = NNOP_BASE_WORKSPACE,
		.card_dtype = card_dtype,
		.ndims = ndims,
	};
	int64_t n = 1;

	for (unsigned int d = ndims; d-- > 0;) {
		v.dims[d] = dims[d];
		v.strides[d] = n;
		n *= dims[d] > 1 ? dims[d] : 1;
	}
	if (card_dtype >= 0 && card_dtype <= NPU_DTYPE_LAST)
		v.offset = nnop_workspace(x, (uint64_t)n * NPU_DTYPE_SIZE(card_dtype));
	return v;
}

NNOP_EXPORT aclnnStatus nnop_executor_add(aclOpExecutor *x, unsigned int kind, const void *attrs,
					  size_t attrs_size, unsigned int num_inputs,
					  const struct nnop_view *views)
{
	struct nnop_op *op;

	if (attrs_size > sizeof(op->attrs) || num_inputs + 1 > NPU_OP_MAX_TENSORS)
		return NNOP_FAIL(ACLNN_ERR_INNER, "%s: card operator %u with %zu attribute bytes "
				 "and %u inputs", x->op_name, kind, attrs_size, num_inputs);
	if (!grow((void **)&x->ops, &x->ops_cap, x->num_ops + 1, sizeof(*x->ops)))
		return NNOP_FAIL(ACLNN_ERR_INNER_CREATE_EXECUTOR, "%s: out of memory", x->op_name);
	/*
	 * Only the views the operator has are set: the rest of the array
	 * (kilobytes, which an emulated CPU zeroes slowly) is never read.
	 */
	op = &x->ops[x->num_ops++];
	op->kind = kind;
	op->num_inputs = num_inputs;
	memset(&op->attrs, 0, sizeof(op->attrs));
	if (attrs_size)
		memcpy(&op->attrs, attrs, attrs_size);
	memcpy(op->views, views, (num_inputs + 1) * sizeof(*views));
	return ACLNN_SUCCESS;
}
