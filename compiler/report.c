// SPDX-License-Identifier: MIT
/*
 * The compiled program in numbers, for atc's log and npucc_stats: the
 * card operators of one execution by kind (and by the ONNX op each one
 * computes, which tells a fused Conv from a plain one and a Mul from an
 * Add), and the reorders the card does because of the layouts layout.c
 * chose.
 *
 * A reorder is counted where the card converts a tensor between layouts
 * inside an operator: an activation read in a layout other than the one
 * the operator writes (a Conv from plain NCHW into NCHW16C, or back), and
 * convolution weights left plain, which the card lays out for its kernel
 * on every run (docs/compiler.md, "layout").  Each operator boundary
 * where nothing changes layout costs no reorder.
 */
#include <stdio.h>
#include <string.h>

#include "lower.h"

#define REPORT_MAX_GROUPS	64

#define NPU_OPERATOR(NAME, number, min, max, attrs, rsvd, act, name) \
	[NPU_OPERATOR_##NAME] = #name,
static const char *const report_kind_names[NPU_OPERATOR_LAST + 1] = {
	NPU_OPERATOR_TABLE
};
#undef NPU_OPERATOR

/* The operators of one card kind that compute one ONNX op (fused or not). */
struct report_group {
	int kind;
	const char *op;
	bool fused;
	int count;
};

struct report {
	struct report_group groups[REPORT_MAX_GROUPS];
	int num_groups;
	int kinds[NPU_OPERATOR_LAST + 1];
	int act_reorders, weight_reorders;
};

static bool fused(const struct lo_op *op)
{
	return op->node->act.kind || (op->kind == NPU_OPERATOR_CONV2D && op->num_in > 3);
}

static void count_group(struct report *r, const struct lo_op *op)
{
	bool f = fused(op);
	int i;

	r->kinds[op->kind]++;
	for (i = 0; i < r->num_groups; i++) {
		struct report_group *gr = &r->groups[i];

		if (gr->kind == op->kind && gr->fused == f && !strcmp(gr->op, op->node->op)) {
			gr->count++;
			return;
		}
	}
	if (r->num_groups == REPORT_MAX_GROUPS)
		return;
	r->groups[r->num_groups++] = (struct report_group){ op->kind, op->node->op, f, 1 };
}

static bool is_weight_input(const struct lo_op *op, int k)
{
	return k == 1 && (op->kind == NPU_OPERATOR_CONV2D ||
			  op->kind == NPU_OPERATOR_CONV_TRANSPOSE2D);
}

/* Reorders inside @op: activations read in another layout than y's, plain weights. */
static void count_reorders(struct ir_graph *g, struct report *r, const struct lo_op *op)
{
	int y = op->t[op->num_in].v->format, k;

	for (k = 0; k < op->num_in; k++) {
		const struct ir_value *v = op->t[k].v;

		if (is_weight_input(op, k)) {
			if (v->format == NPU_FORMAT_STRIDED) {
				r->weight_reorders++;
				ir_log(g, NPUCC_LOG_DEBUG, "reorder: the weights of %s '%s', on every run",
				       op->node->op, op->node->name);
			}
			continue;
		}
		if (v->data || v->format == y)
			continue;
		r->act_reorders++;
		ir_log(g, NPUCC_LOG_DEBUG, "reorder: %s '%s' reads '%s' in %s, writes %s",
		       op->node->op, op->node->name, v->name,
		       v->format == NPU_FORMAT_NCHW16C ? "NCHW16C" : "NCHW",
		       y == NPU_FORMAT_NCHW16C ? "NCHW16C" : "NCHW");
	}
}

/* "conv2d 97 (Conv 60, Conv+ 37), binary 12 (Mul 10, Add 2)": + is fused. */
static void log_kinds(struct ir_graph *g, const struct report *r, int num_ops)
{
	char line[2048];
	size_t len;
	int kind, i;

	len = (size_t)snprintf(line, sizeof(line), "%d card operators by kind (+: fused):",
			       num_ops);
	for (kind = 0; kind <= NPU_OPERATOR_LAST && len < sizeof(line); kind++) {
		const char *sep = " (";

		if (!r->kinds[kind])
			continue;
		len += (size_t)snprintf(line + len, sizeof(line) - len, " %s %d",
					report_kind_names[kind], r->kinds[kind]);
		for (i = 0; i < r->num_groups && len < sizeof(line); i++) {
			const struct report_group *gr = &r->groups[i];

			if (gr->kind != kind)
				continue;
			len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s%s %d", sep,
						gr->op, gr->fused ? "+" : "", gr->count);
			sep = ", ";
		}
		if (len < sizeof(line) && sep[0] == ',')
			len += (size_t)snprintf(line + len, sizeof(line) - len, ")");
	}
	ir_log(g, NPUCC_LOG_INFO, "%s", line);
}

/* One line per operator: what it computes and from what, for --log=debug. */
static void log_op(struct ir_graph *g, const struct lo_op *op)
{
	char line[1024];
	size_t len;
	int k;

	len = (size_t)snprintf(line, sizeof(line), "%s %s%s '%s':", report_kind_names[op->kind],
			       op->node->op, fused(op) ? "+" : "", op->node->name);
	for (k = 0; k < op->num_in + op->num_out && len < sizeof(line); k++) {
		const struct ir_value *v = op->t[k].v;

		len += (size_t)snprintf(line + len, sizeof(line) - len, "%s %s%s",
					k == op->num_in ? " ->" : "",
					v->data ? "const " : "", v->name);
	}
	ir_log(g, NPUCC_LOG_DEBUG, "%s", line);
}

void report_program(struct ir_graph *g, const struct lo_program *prog, struct npucc_stats *st)
{
	static struct report zero;
	struct report r = zero;
	int i;

	for (i = prog->num_load; i < prog->num_load + prog->num_ops; i++) {
		log_op(g, &prog->ops[i]);
		count_group(&r, &prog->ops[i]);
		count_reorders(g, &r, &prog->ops[i]);
	}
	st->num_reorders = r.act_reorders;
	st->num_weight_reorders = r.weight_reorders;
	log_kinds(g, &r, prog->num_ops);
	ir_log(g, NPUCC_LOG_INFO, "reorders: %d activations change layout inside an operator, "
	       "%d convolutions' weights are laid out by the card on every run",
	       r.act_reorders, r.weight_reorders);
}
