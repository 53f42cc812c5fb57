// SPDX-License-Identifier: MIT
/*
 * --output_type: the data type of every model output (atc's FP32 or
 * FP16).  An output of another type gets a Cast at the end of the graph;
 * the Cast takes the output's name, so the model's interface keeps it.
 * Without the option the outputs keep the model's own types.
 */
#include <string.h>

#include "ir.h"

static int add_cast(struct ir_graph *g, int j, int to)
{
	struct ir_value *v = g->outputs[j], *c;
	struct ir_node *n;
	char *name;

	n = ir_node_new(g, NULL, "Cast", 1, 1);
	c = ir_value_new(g, NULL);
	if (!n || !c)
		return -1;
	n->attrs = ir_alloc(g, sizeof(*n->attrs));
	if (!n->attrs)
		return -1;
	n->attrs[0].name = ir_strdup(g, "to");
	n->attrs[0].type = IR_ATTR_INT;
	n->attrs[0].i = to;
	n->num_attrs = 1;
	n->in[0] = v;
	n->out[0] = c;
	c->producer = n;
	ir_set_shape(c, to, v->rank, v->dims);
	name = c->name;
	c->name = v->name;
	v->name = name;
	c->output_index = j;
	v->output_index = -1;
	g->outputs[j] = c;
	return 0;
}

int pass_output_type(struct ir_graph *g)
{
	const char *opt = g->opts ? g->opts->output_type : NULL;
	int j, to;

	if (!opt || !*opt)
		return 0;
	if (!strcmp(opt, "FP32"))
		to = IR_FLOAT;
	else if (!strcmp(opt, "FP16"))
		to = IR_FLOAT16;
	else
		return ir_error(g, NPUCC_E_OPTION,
				"--output_type=%s: only FP32 and FP16 are supported", opt);
	for (j = 0; j < g->num_outputs; j++)
		if (g->outputs[j]->dtype != to && add_cast(g, j, to))
			return -1;
	return 0;
}
