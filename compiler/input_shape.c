// SPDX-License-Identifier: MIT
/*
 * Input shapes: --input_shape ("name:n,c,h,w;name2:...", as the
 * vendor's atc takes it) fixes the dims a model leaves dynamic.  A given
 * shape must agree with every dim the model fixes itself; afterwards every
 * graph input has a complete static shape, or compilation stops here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"

static int parse_dims(struct ir_graph *g, const char *name, char *list,
		      int64_t *dims, int *rank)
{
	char *tok, *save = NULL, *end;

	*rank = 0;
	if (!*list)
		return 0;	/* a scalar */
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long long d;

		errno = 0;
		d = strtoll(tok, &end, 10);
		if (errno || end == tok || *end)
			return ir_error(g, NPUCC_E_INPUT_SHAPE,
					"--input_shape: '%s' is not a dim of input '%s'", tok, name);
		if (d < 0)
			return ir_error(g, NPUCC_E_INPUT_SHAPE,
					"--input_shape: input '%s' has dim %lld; dynamic dims (-1) need --dynamic_batch_size, which is not supported",
					name, d);
		if (*rank == IR_MAX_DIMS)
			return ir_error(g, NPUCC_E_INPUT_SHAPE,
					"--input_shape: input '%s' has more than %d dims",
					name, IR_MAX_DIMS);
		dims[(*rank)++] = d;
	}
	return 0;
}

static int apply_shape(struct ir_graph *g, const char *name, const int64_t *dims, int rank)
{
	struct ir_value *v = ir_value_find(g, name);
	int d;

	if (!v || v->input_index < 0)
		return ir_error(g, NPUCC_E_INPUT_SHAPE,
				"--input_shape: the model has no input named '%s'", name);
	if (v->rank >= 0 && v->rank != rank)
		return ir_error(g, NPUCC_E_INPUT_SHAPE,
				"--input_shape: input '%s' has %d dims in the model, %d given",
				name, v->rank, rank);
	for (d = 0; d < rank; d++)
		if (v->rank >= 0 && v->dims[d] >= 0 && v->dims[d] != dims[d])
			return ir_error(g, NPUCC_E_INPUT_SHAPE,
					"--input_shape: dim %d of input '%s' is %lld in the model, %lld given",
					d, name, (long long)v->dims[d], (long long)dims[d]);
	ir_set_shape(v, v->dtype, rank, dims);
	return 0;
}

/* Names may contain ':' (PyTorch's "input:0"), so the last ':' splits. */
static int apply_option(struct ir_graph *g, char *spec)
{
	char *item, *save = NULL, *colon;
	int64_t dims[IR_MAX_DIMS];
	int rank;

	for (item = strtok_r(spec, ";", &save); item; item = strtok_r(NULL, ";", &save)) {
		colon = strrchr(item, ':');
		if (!colon || colon == item)
			return ir_error(g, NPUCC_E_INPUT_SHAPE,
					"--input_shape: '%s' is not name:dims", item);
		*colon = 0;
		if (parse_dims(g, item, colon + 1, dims, &rank) ||
		    apply_shape(g, item, dims, rank))
			return -1;
	}
	return 0;
}

int pass_input_shape(struct ir_graph *g)
{
	const char *opt = g->opts ? g->opts->input_shape : NULL;
	int i, d;

	if (opt && *opt) {
		char *spec = strdup(opt);
		int ret;

		if (!spec)
			return ir_error(g, NPUCC_E_NOMEM, "out of memory");
		ret = apply_option(g, spec);
		free(spec);
		if (ret)
			return ret;
	}
	for (i = 0; i < g->num_inputs; i++) {
		struct ir_value *v = g->inputs[i];

		if (v->rank < 0)
			return ir_error(g, NPUCC_E_INPUT_SHAPE,
					"input '%s' has no shape in the model; give it with --input_shape",
					v->name);
		for (d = 0; d < v->rank; d++)
			if (v->dims[d] < 0)
				return ir_error(g, NPUCC_E_INPUT_SHAPE,
						"dim %d of input '%s' is dynamic; fix it with --input_shape=\"%s:...\"",
						d, v->name, v->name);
	}
	return 0;
}
