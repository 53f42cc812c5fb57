// SPDX-License-Identifier: MIT
/*
 * libnpucc's entry points: the passes in order, from ONNX bytes to .om
 * bytes.  Each pass is one file; see ir.h for the list.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lower.h"
#include "om_format.h"

const char *npucc_error_name(int error)
{
	static const char *const names[] = {
		[NPUCC_OK] = "ok",
		[NPUCC_E_INVALID_MODEL] = "invalid model",
		[NPUCC_E_UNSUPPORTED_OP] = "unsupported operator",
		[NPUCC_E_UNSUPPORTED_ATTR] = "unsupported attribute",
		[NPUCC_E_UNSUPPORTED_DTYPE] = "unsupported data type",
		[NPUCC_E_DYNAMIC_SHAPE] = "data-dependent shape",
		[NPUCC_E_INPUT_SHAPE] = "input shape",
		[NPUCC_E_OPTION] = "option",
		[NPUCC_E_NOMEM] = "out of memory",
		[NPUCC_E_IO] = "i/o",
		[NPUCC_E_LIMIT] = "limit",
	};

	if (error < 0 || error >= (int)(sizeof(names) / sizeof(names[0])) || !names[error])
		return "unknown";
	return names[error];
}

static int check_options(struct ir_graph *g)
{
	const char *fmt = g->opts ? g->opts->input_format : NULL;

	if (fmt && strcmp(fmt, "NCHW") && strcmp(fmt, "ND"))
		return ir_error(g, NPUCC_E_OPTION,
				"--input_format=%s: ONNX models take NCHW or ND", fmt);
	return 0;
}

/* The graph passes after the import, to layout. */
static int build_imported(struct ir_graph *g)
{
	if (pass_input_shape(g) || pass_infer(g) || pass_legalize(g) || pass_bn_fold(g) ||
	    pass_affine_fold(g) || pass_hswish(g) || pass_fuse(g) || pass_output_type(g))
		return -1;
	ir_remove_dead(g);
	return pass_layout(g);
}

/* The graph passes, import to layout; tests stop here to look at the IR. */
int npucc_build_graph(struct ir_graph *g, const void *onnx, size_t size)
{
	if (check_options(g) || pass_import(g, onnx, size))
		return -1;
	return build_imported(g);
}

static int build_spec(struct ir_graph *g, const struct npucc_spec *spec)
{
	if (check_options(g) || pass_import_spec(g, spec))
		return -1;
	return build_imported(g);
}

static uint64_t activations(const struct ir_graph *g)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < g->num_values; i++) {
		const struct ir_value *v = g->values[i];
		uint64_t n = ir_dtype_size(v->dtype);
		int d;

		if (v->region != OM_REGION_WORKSPACE || v->alias)
			continue;
		for (d = 0; d < v->rank; d++)
			n *= (uint64_t)v->dims[d];
		sum += n;
	}
	return sum;
}

/* Either an ONNX model (@onnx, @size) or a graph spec (@spec). */
static int compile(const void *onnx, size_t size, const struct npucc_spec *spec,
		   const struct npucc_options *opts, struct npucc_result *res)
{
	struct ir_graph *g = ir_graph_new(opts);
	uint64_t workspace = 0, weights = 0;
	struct lo_program prog = { 0 };
	int built;

	memset(res, 0, sizeof(*res));
	if (!g) {
		res->error = NPUCC_E_NOMEM;
		snprintf(res->message, sizeof(res->message), "out of memory");
		return res->error;
	}
	built = spec ? build_spec(g, spec) : npucc_build_graph(g, onnx, size);
	if (!built && !pass_memplan(g, &workspace, &weights) && !pass_lower(g, &prog) &&
	    !pass_emit(g, &prog, workspace, weights, &res->om, &res->om_size)) {
		res->stats.num_ops = prog.num_ops;
		res->stats.workspace_size = workspace;
		res->stats.weights_size = weights;
		res->stats.activations_size = activations(g);
		res->stats.num_nodes = g->num_nodes;
		report_program(g, &prog, &res->stats);
		ir_log(g, NPUCC_LOG_INFO, "%d nodes, %d card operators, workspace %llu bytes, weights %llu bytes",
		       g->num_nodes, res->stats.num_ops, (unsigned long long)workspace,
		       (unsigned long long)weights);
	} else {
		free(res->om);
		res->om = NULL;
		res->om_size = 0;
		res->error = g->err_code ? g->err_code : NPUCC_E_INVALID_MODEL;
		snprintf(res->message, sizeof(res->message), "%s", g->err[0] ? g->err : "failed");
		ir_log(g, NPUCC_LOG_ERROR, "%s", res->message);
	}
	free(prog.ops);
	ir_graph_free(g);
	return res->error;
}

int npucc_compile(const void *onnx, size_t size, const struct npucc_options *opts,
		  struct npucc_result *res)
{
	return compile(onnx, size, NULL, opts, res);
}

int npucc_compile_spec(const struct npucc_spec *spec, const struct npucc_options *opts,
		       struct npucc_result *res)
{
	if (!spec) {
		memset(res, 0, sizeof(*res));
		res->error = NPUCC_E_INVALID_MODEL;
		snprintf(res->message, sizeof(res->message), "no graph spec");
		return res->error;
	}
	return compile(NULL, 0, spec, opts, res);
}

int npucc_compile_file(const char *path, const struct npucc_options *opts,
		       struct npucc_result *res)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	void *buf = NULL;
	int ret;

	memset(res, 0, sizeof(*res));
	if (!f || fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
		res->error = NPUCC_E_IO;
		snprintf(res->message, sizeof(res->message), "cannot read %s: %s", path,
			 f ? "not a regular file" : strerror(errno));
		if (f)
			fclose(f);
		return res->error;
	}
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf || fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
		res->error = buf ? NPUCC_E_IO : NPUCC_E_NOMEM;
		snprintf(res->message, sizeof(res->message), "cannot read %s", path);
		free(buf);
		fclose(f);
		return res->error;
	}
	fclose(f);
	ret = npucc_compile(buf, (size_t)st.st_size, opts, res);
	free(buf);
	return ret;
}

void npucc_result_free(struct npucc_result *res)
{
	free(res->om);
	res->om = NULL;
	res->om_size = 0;
}
