// SPDX-License-Identifier: MIT
/*
 * Shape inference and constant folding, node by node in execution order:
 * a node's shape function (shape.c) may need constants that the folding
 * of earlier nodes (fold.c) produced, as a Reshape needs the shape a
 * Shape/Gather/Concat chain computes.  A folded node is dead: its outputs
 * are constants.
 */
#include <string.h>

#include "ir.h"
#include "ops.h"

/*
 * Before opset 7, Add, Sub, Mul, Div and Pow broadcast only when told to
 * (broadcast=1), and @axis says where the second operand's axes start in
 * the first's; trailing 1s make that numpy's rule.
 */
static int legacy_broadcast(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_attr *ax = ir_attr_find(n, "axis"), *bc = ir_attr_find(n, "broadcast");
	struct ir_value *a, *b, *nb;
	int64_t dims[IR_MAX_DIMS];
	int axis, trailing, d;

	if (!bc)
		return 0;
	if (g->opset >= 7)
		return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_ATTR,
				     "attribute 'broadcast' is not supported");
	if (!ax || !bc->i || strcmp(n->op, "Gemm") == 0)
		return 0;
	a = n->in[0];
	b = n->in[1];
	if (norm_axis(g, n, ax->i, a->rank, &axis))
		return -1;
	trailing = a->rank - axis - b->rank;
	if (trailing < 0)
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "axis %d leaves no room for B", axis);
	if (!trailing)
		return 0;
	if (!b->data)
		return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_ATTR,
				     "a broadcast axis for an operand computed from the input data");
	nb = ir_value_new(g, NULL);
	if (!nb)
		return -1;
	for (d = 0; d < b->rank + trailing; d++)
		dims[d] = d < b->rank ? b->dims[d] : 1;
	ir_set_shape(nb, b->dtype, b->rank + trailing, dims);
	nb->data = b->data;
	n->in[1] = nb;
	return 0;
}

static int infer_node(struct ir_graph *g, struct ir_node *n)
{
	const struct op_def *def;

	if (op_check(g, n))
		return -1;
	if (ir_attr_find(n, "axis") && op_binary_kind(n->op) >= 0 && g->opset >= 7)
		return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_ATTR, "attribute 'axis' is not supported");
	if (legacy_broadcast(g, n))
		return -1;
	def = op_def_find(n->op);
	if (def->infer(g, n))
		return -1;
	return fold_node(g, n, def);
}

int pass_infer(struct ir_graph *g)
{
	int i;

	for (i = 0; i < g->num_nodes; i++)
		if (infer_node(g, g->nodes[i]))
			return -1;
	ir_remove_dead(g);
	return 0;
}
