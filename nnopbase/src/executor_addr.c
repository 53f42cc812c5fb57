// SPDX-License-Identifier: MIT
/*
 * A finished executor's life: made repeatable, its tensors moved to new
 * addresses between launches, destroyed.  An index names the operator's
 * tensor parameters in order (inputs, or outputs, or inputs then outputs
 * for the calls without In/Out in their names); a list parameter's tensors
 * are reached through the Dynamic calls, by the list's index and the
 * tensor's place in it.
 */
#include "executor.h"

static aclnnStatus check_live(const aclOpExecutor *x, const char *func)
{
	if (!x)
		return nnop_fail(func, ACLNN_ERR_PARAM_NULLPTR, "executor is NULL");
	if (!nnop_executor_live(x))
		return nnop_fail(func, ACLNN_ERR_PARAM_INVALID, "executor %p is not one "
				 "GetWorkspaceSize made, or it is gone (a launch frees an executor "
				 "not made repeatable)", (const void *)x);
	return ACLNN_SUCCESS;
}

NNOP_EXPORT aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor)
{
	aclnnStatus err = check_live(executor, __func__);

	if (!err)
		executor->repeatable = true;
	return err;
}

NNOP_EXPORT aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor)
{
	aclnnStatus err = check_live(executor, __func__);

	if (!err)
		nnop_executor_free(executor);
	return err;
}

/*
 * Moves the tensor of parameter ir (and place rel of a list) to addr,
 * under every name the operator gave it: an in-place operator's input is
 * its output.
 */
static aclnnStatus set_addr(const char *func, aclOpExecutor *x, bool output, size_t ir,
			    bool in_list, size_t rel, aclTensor *tensor, void *addr)
{
	const struct nnop_slot *found = NULL;
	aclnnStatus err = check_live(x, func);

	if (err)
		return err;
	for (unsigned int i = 0; i < x->num_slots && !found; i++) {
		const struct nnop_slot *s = &x->slots[i];

		if (s->output == output && s->ir == ir && s->in_list == in_list &&
		    (!in_list || s->rel == rel))
			found = s;
	}
	if (!found && in_list)
		return nnop_fail(func, ACLNN_ERR_PARAM_INVALID, "%s has no tensor %zu in an %s "
				 "list %zu", x->op_name, rel, output ? "output" : "input", ir);
	if (!found)
		return nnop_fail(func, ACLNN_ERR_PARAM_INVALID, "%s has no %s tensor %zu (a list's "
				 "tensors take the Dynamic calls)", x->op_name,
				 output ? "output" : "input", ir);
	for (unsigned int i = 0; i < x->num_slots; i++)
		if (x->slots[i].tensor == found->tensor)
			x->slots[i].info.data = addr;
	if (tensor)
		tensor->info.data = addr;
	return ACLNN_SUCCESS;
}

/* An index over inputs then outputs, as one parameter. */
static aclnnStatus set_any(const char *func, aclOpExecutor *x, size_t index, bool in_list,
			   size_t rel, aclTensor *tensor, void *addr)
{
	aclnnStatus err = check_live(x, func);

	if (err)
		return err;
	if (index < x->num_ir[0])
		return set_addr(func, x, false, index, in_list, rel, tensor, addr);
	return set_addr(func, x, true, index - x->num_ir[0], in_list, rel, tensor, addr);
}

static aclTensor *list_tensor(aclTensorList *l, size_t rel)
{
	return l && rel < l->size ? (aclTensor *)l->tensors[rel] : NULL;
}

NNOP_EXPORT aclnnStatus aclSetInputTensorAddr(aclOpExecutor *executor, const size_t index,
					      aclTensor *tensor, void *addr)
{
	return set_addr(__func__, executor, false, index, false, 0, tensor, addr);
}

NNOP_EXPORT aclnnStatus aclSetOutputTensorAddr(aclOpExecutor *executor, const size_t index,
					       aclTensor *tensor, void *addr)
{
	return set_addr(__func__, executor, true, index, false, 0, tensor, addr);
}

NNOP_EXPORT aclnnStatus aclSetTensorAddr(aclOpExecutor *executor, const size_t index,
					 aclTensor *tensor, void *addr)
{
	return set_any(__func__, executor, index, false, 0, tensor, addr);
}

NNOP_EXPORT aclnnStatus aclSetDynamicInputTensorAddr(aclOpExecutor *executor, size_t irIndex,
						     const size_t relativeIndex,
						     aclTensorList *tensors, void *addr)
{
	return set_addr(__func__, executor, false, irIndex, true, relativeIndex,
			list_tensor(tensors, relativeIndex), addr);
}

NNOP_EXPORT aclnnStatus aclSetDynamicOutputTensorAddr(aclOpExecutor *executor, size_t irIndex,
						      const size_t relativeIndex,
						      aclTensorList *tensors, void *addr)
{
	return set_addr(__func__, executor, true, irIndex, true, relativeIndex,
			list_tensor(tensors, relativeIndex), addr);
}

NNOP_EXPORT aclnnStatus aclSetDynamicTensorAddr(aclOpExecutor *executor, size_t irIndex,
						const size_t relativeIndex, aclTensorList *tensors,
						void *addr)
{
	return set_any(__func__, executor, irIndex, true, relativeIndex,
		       list_tensor(tensors, relativeIndex), addr);
}

/* The vendor's older names for the same calls. */
NNOP_EXPORT aclnnStatus AclSetInputTensorAddr(aclOpExecutor *executor, const size_t index,
					      aclTensor *tensor, void *addr)
{
	return aclSetInputTensorAddr(executor, index, tensor, addr);
}

NNOP_EXPORT aclnnStatus AclSetOutputTensorAddr(aclOpExecutor *executor, const size_t index,
					       aclTensor *tensor, void *addr)
{
	return aclSetOutputTensorAddr(executor, index, tensor, addr);
}

NNOP_EXPORT aclnnStatus AclSetTensorAddr(aclOpExecutor *executor, const size_t index,
					 aclTensor *tensor, void *addr)
{
	return aclSetTensorAddr(executor, index, tensor, addr);
}

NNOP_EXPORT aclnnStatus AclSetDynamicInputTensorAddr(aclOpExecutor *executor, size_t irIndex,
						     const size_t relativeIndex,
						     aclTensorList *tensors, void *addr)
{
	return aclSetDynamicInputTensorAddr(executor, irIndex, relativeIndex, tensors, addr);
}

NNOP_EXPORT aclnnStatus AclSetDynamicOutputTensorAddr(aclOpExecutor *executor, size_t irIndex,
						      const size_t relativeIndex,
						      aclTensorList *tensors, void *addr)
{
	return aclSetDynamicOutputTensorAddr(executor, irIndex, relativeIndex, tensors, addr);
}

NNOP_EXPORT aclnnStatus AclSetDynamicTensorAddr(aclOpExecutor *executor, size_t irIndex,
						const size_t relativeIndex, aclTensorList *tensors,
						void *addr)
{
	return aclSetDynamicTensorAddr(executor, irIndex, relativeIndex, tensors, addr);
}
