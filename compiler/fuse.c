// SPDX-License-Identifier: MIT
/*
 * Pass 6, activation fusion: an elementwise activation whose input is the
 * output of a convolution, matrix product, binary op or normalization,
 * used by nothing else, becomes that node's fused activation (the card's
 * npu_activation), saving an operator and a trip through memory.
 * Exporters that predate ONNX's HardSwish write it as x * HardSigmoid(x)
 * with alpha 1/6 and beta 1/2; that pair becomes one HardSwish first.
 */
#include <math.h>
#include <string.h>

#include "ir.h"
#include "npu_operator.h"

static bool can_carry_act(const struct ir_node *n)
{
	static const char *const ops[] = {
		"Conv", "ConvTranspose", "MatMul", "Gemm", "Add", "Sub", "Mul", "Div", "Pow",
		"Min", "Max", "Sum", "BatchNormalization", "LayerNormalization",
	};
	size_t i;
	int k;

	for (k = 1; k < n->num_out; k++)
		if (n->out[k])
			return false;
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(n->op, ops[i]))
			return !n->act.kind && !n->copy;
	return false;
}

static bool single_use(const struct ir_value *v)
{
	return v->num_uses == 1 && v->output_index < 0;
}

static bool is_hardswish_gate(const struct ir_node *h, const struct ir_value *x)
{
	return h && !h->dead && !strcmp(h->op, "HardSigmoid") && h->in[0] == x &&
	       fabsf(ir_attr_float(h, "alpha", 0.2f) - 1.0f / 6) < 1e-6f &&
	       fabsf(ir_attr_float(h, "beta", 0.5f) - 0.5f) < 1e-6f && single_use(h->out[0]);
}

static int fuse_hardswish(struct ir_graph *g, struct ir_node *n)
{
	int k;

	if (strcmp(n->op, "Mul") || n->num_in != 2)
		return 0;
	for (k = 0; k < 2; k++) {
		struct ir_node *h = n->in[k]->producer;

		if (!is_hardswish_gate(h, n->in[1 - k]))
			continue;
		n->op = ir_strdup(g, "HardSwish");
		if (!n->op)
			return -1;
		n->in[0] = n->in[1 - k];
		n->num_in = 1;
		h->dead = true;
		ir_log(g, NPUCC_LOG_INFO, "'%s' and '%s' became one HardSwish", h->name, n->name);
		return 0;
	}
	return 0;
}

static void fuse_act(struct ir_graph *g, struct ir_node *a)
{
	struct ir_value *x = a->in[0];
	struct ir_node *p = x->producer;
	struct ir_act act;

	if (op_unary_kind(a, &act) <= 0 || !p || p->dead || !single_use(x) || !can_carry_act(p))
		return;
	if (x->dtype != IR_FLOAT)
		return;
	p->act = act;
	p->out[0] = a->out[0];
	p->out[0]->producer = p;
	a->dead = true;
	ir_log(g, NPUCC_LOG_INFO, "%s '%s' fused into %s '%s'", a->op, a->name, p->op, p->name);
}

int pass_fuse(struct ir_graph *g)
{
	int i;

	ir_count_uses(g);
	for (i = 0; i < g->num_nodes; i++)
		if (!g->nodes[i]->dead && fuse_hardswish(g, g->nodes[i]))
			return -1;
	ir_compact(g);
	ir_count_uses(g);
	for (i = 0; i < g->num_nodes; i++)
		if (!g->nodes[i]->dead)
			fuse_act(g, g->nodes[i]);
	ir_compact(g);
	return 0;
}
