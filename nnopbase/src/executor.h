/* SPDX-License-Identifier: MIT */
/*
 * The executor: the tensors an operator named (slots), the card operators
 * over views of them and of the workspace, and what the launch needs.
 */
#ifndef NNOPBASE_EXECUTOR_H
#define NNOPBASE_EXECUTOR_H

#include "nnopbase.h"

struct nnop_slot {
	const aclTensor *tensor;	/* as named, to find its other names */
	struct nnop_tensor_info info;	/* info.data: the address the launch uses */
	bool output;
	unsigned int ir;		/* the operator's parameter, among inputs or outputs */
	unsigned int rel;		/* the tensor's place in a list parameter */
	bool in_list;
};

struct nnop_op {
	unsigned int kind;
	unsigned int num_inputs;
	union npu_op_attrs attrs;
	struct nnop_view views[NPU_OP_MAX_TENSORS];	/* inputs, then the output */
};

struct aclOpExecutor {
	char op_name[64];
	bool finished;
	bool repeatable;
	struct nnop_slot *slots;
	unsigned int num_slots, slots_cap;
	unsigned int num_ir[2];		/* parameters named: inputs, outputs */
	struct nnop_op *ops;
	unsigned int num_ops, ops_cap;
	uint64_t work_size;
	struct aclOpExecutor *next;	/* in the live list, once finished */
};

/* Finished executors not yet freed: only those may be launched or changed. */
bool nnop_executor_live(const aclOpExecutor *x);
/* Finished: from now on it may be launched. */
void nnop_executor_go_live(aclOpExecutor *x);
void nnop_executor_free(aclOpExecutor *x);

#endif /* NNOPBASE_EXECUTOR_H */
