// SPDX-License-Identifier: MIT
/*
 * Hard-swish as Paddle's exporter writes it, x * Clip(x + 3, 0, 6) / 6
 * (four nodes: Add, Clip, Mul, then Div by 6 or Mul by 1/6), becomes one
 * HardSwish node, which activation fusion (fuse.c) then makes the fused
 * activation of the convolution before it.  PP-OCRv4's networks have one
 * after most of their convolutions: four card operators each, before.
 */
#include <math.h>
#include <string.h>

#include "ir.h"
#include "npu_operator.h"

static bool is_scalar(const struct ir_value *v, double want)
{
	return v && v->data && v->dtype == IR_FLOAT && ir_numel(v) == 1 &&
	       fabs(ir_get_f64(v, 0) - want) <= 1e-6 * fabs(want);
}

/* A live node of type @op that produced @v, which nothing else reads. */
static struct ir_node *sole_producer(const struct ir_value *v, const char *op)
{
	struct ir_node *p = v ? v->producer : NULL;

	if (!p || p->dead || strcmp(p->op, op) || p->num_in != 2 || p->act.kind ||
	    p->out[0] != v || v->num_uses != 1 || v->output_index >= 0)
		return NULL;
	return p;
}

/* If @n computes @m * c or @m / c for a constant c that means "/ 6", @m's index. */
static int sixth_of(const struct ir_node *n)
{
	int k;

	if (n->num_in != 2 || !n->in[0] || !n->in[1])
		return -1;
	if (!strcmp(n->op, "Div"))
		return is_scalar(n->in[1], 6) ? 0 : -1;
	if (strcmp(n->op, "Mul"))
		return -1;
	for (k = 0; k < 2; k++)
		if (is_scalar(n->in[1 - k], 1.0 / 6))
			return k;
	return -1;
}

/* The other operand of two-input @n than @v, or NULL. */
static struct ir_value *other(const struct ir_node *n, const struct ir_value *v)
{
	return n->in[0] == v ? n->in[1] : n->in[1] == v ? n->in[0] : NULL;
}

static int try_hswish(struct ir_graph *g, struct ir_node *d)
{
	struct ir_node *m, *clip = NULL, *add = NULL;
	struct ir_value *x = NULL;
	struct ir_act act;
	int k = sixth_of(d), j;

	m = k < 0 ? NULL : sole_producer(d->in[k], "Mul");
	if (!m)
		return 0;
	for (j = 0; j < 2 && !x; j++) {
		struct ir_value *r = m->in[j];

		clip = r->producer;
		if (!clip || clip->dead || strcmp(clip->op, "Clip") || r->num_uses != 1 ||
		    r->output_index >= 0 || op_unary_kind(clip, &act) != NPU_UNARY_CLIP ||
		    act.alpha != 0 || act.beta != 6)
			continue;
		add = sole_producer(clip->in[0], "Add");
		if (add && other(add, m->in[1 - j]) && is_scalar(other(add, m->in[1 - j]), 3))
			x = m->in[1 - j];
	}
	if (!x || x->dtype != IR_FLOAT)
		return 0;
	d->op = ir_strdup(g, "HardSwish");
	if (!d->op)
		return -1;
	d->in[0] = x;
	d->num_in = 1;
	m->dead = true;
	clip->dead = true;
	add->dead = true;
	ir_log(g, NPUCC_LOG_INFO, "'%s', '%s', '%s' and '%s' became one HardSwish", add->name,
	       clip->name, m->name, d->name);
	return 0;
}

int pass_hswish(struct ir_graph *g)
{
	int i;

	ir_count_uses(g);
	for (i = 0; i < g->num_nodes; i++)
		if (!g->nodes[i]->dead && try_hswish(g, g->nodes[i]))
			return -1;
	ir_compact(g);
	return 0;
}
