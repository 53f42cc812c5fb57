/* SPDX-License-Identifier: MIT */
/*
 * Lowering: one graph node becomes one card operator (uapi/npu_operator.h)
 * whose tensors are views of IR values: the value's bytes, with the dims
 * the operator needs (a 1-D convolution's input seen as N, C, 1, W; a
 * MatMul's vector seen as a matrix; a broadcast operand with leading 1s).
 */
#ifndef NPUCC_LOWER_H
#define NPUCC_LOWER_H

#include "ir.h"
#include "npu_operator.h"

struct lo_tensor {
	struct ir_value *v;
	int ndims;
	int64_t dims[IR_MAX_DIMS];
};

struct lo_op {
	const struct ir_node *node;
	int kind;			/* enum npu_operator */
	union npu_op_attrs attrs;
	int num_in, num_out;
	struct lo_tensor t[NPU_OP_MAX_TENSORS];
};

/* The lowering pass's result, for emit: the loader's operators first. */
struct lo_program {
	struct lo_op *ops;
	int num_load;		/* ops run once, at load */
	int num_ops;		/* ops run at every execution, after those */
};

/* report.c: the program's operators by kind and its reorders, logged and counted. */
void report_program(struct ir_graph *g, const struct lo_program *prog, struct npucc_stats *st);

#endif /* NPUCC_LOWER_H */
