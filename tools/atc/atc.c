// SPDX-License-Identifier: MIT
/*
 * atc: compiles an ONNX model into the card's offline model, with the
 * vendor's command line:
 *
 *   atc --model=net.onnx --framework=5 --output=net --input_shape="x:1,3,224,224"
 *
 * writes net.om.  As the vendor's tool does, it takes --opt=value or
 * --opt value, a single leading '-' as well as two, and '-' for '_' in
 * option names.  On any error it exits non-zero and writes no file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npucc.h"

struct atc_args {
	const char *model, *output, *framework, *input_shape, *input_format;
	const char *output_type, *soc_version, *log, *mode;
	int help;
};

static const char *const log_names[] = { "debug", "info", "warning", "error", "null" };

static void usage(FILE *f)
{
	fprintf(f,
		"usage: atc --model=<file.onnx> --framework=5 --output=<path> [options]\n"
		"\n"
		"  --model          the ONNX model\n"
		"  --framework      5 (ONNX); the only framework this atc reads\n"
		"  --output         the offline model to write, without \".om\"\n"
		"  --input_shape    \"name:n,c,h,w;name2:...\": fixes the inputs' dynamic dims\n"
		"  --input_format   NCHW (default) or ND: the inputs' format in the model\n"
		"  --output_type    FP32 or FP16: the data type of every output\n"
		"  --soc_version    accepted; the model runs on any card of this stack\n"
		"  --log            debug, info, warning, error or null (default)\n"
		"  --mode           0 (default): compile a model\n"
		"  --help, --h      this text\n");
}

static void log_line(void *arg, int level, const char *msg)
{
	(void)arg;
	fprintf(stderr, "[%s] ATC: %s\n", level == NPUCC_LOG_ERROR ? "ERROR" :
		level == NPUCC_LOG_WARNING ? "WARNING" : level == NPUCC_LOG_INFO ? "INFO" : "DEBUG",
		msg);
}

/* "--input-shape" and "-input_shape" both become "input_shape". */
static void canonical(const char *arg, char *name, size_t size)
{
	size_t i;

	while (*arg == '-')
		arg++;
	for (i = 0; i + 1 < size && arg[i] && arg[i] != '='; i++)
		name[i] = arg[i] == '-' ? '_' : arg[i];
	name[i] = 0;
}

static const char **slot(struct atc_args *a, const char *name)
{
	static const struct { const char *name; size_t off; } opts[] = {
		{ "model", offsetof(struct atc_args, model) },
		{ "output", offsetof(struct atc_args, output) },
		{ "framework", offsetof(struct atc_args, framework) },
		{ "input_shape", offsetof(struct atc_args, input_shape) },
		{ "input_format", offsetof(struct atc_args, input_format) },
		{ "output_type", offsetof(struct atc_args, output_type) },
		{ "soc_version", offsetof(struct atc_args, soc_version) },
		{ "log", offsetof(struct atc_args, log) },
		{ "mode", offsetof(struct atc_args, mode) },
	};
	size_t i;

	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (!strcmp(opts[i].name, name))
			return (const char **)((char *)a + opts[i].off);
	return NULL;
}

static int parse_args(int argc, char **argv, struct atc_args *a)
{
	char name[64];
	int i;

	for (i = 1; i < argc; i++) {
		const char *arg = argv[i], *eq = strchr(arg, '='), **dst;

		if (arg[0] != '-') {
			fprintf(stderr, "atc: unexpected argument '%s'\n", arg);
			return -1;
		}
		canonical(arg, name, sizeof(name));
		if (!strcmp(name, "help") || !strcmp(name, "h")) {
			a->help = 1;
			continue;
		}
		dst = slot(a, name);
		if (!dst) {
			fprintf(stderr, "atc: unknown option '%s' (see --help)\n", arg);
			return -1;
		}
		if (eq) {
			*dst = eq + 1;
		} else if (i + 1 < argc) {
			*dst = argv[++i];
		} else {
			fprintf(stderr, "atc: option '%s' needs a value\n", arg);
			return -1;
		}
	}
	return 0;
}

static int check_args(const struct atc_args *a, struct npucc_options *o)
{
	int i;

	if (!a->model || !a->output || !a->framework) {
		fprintf(stderr, "atc: --model, --framework and --output are required (see --help)\n");
		return -1;
	}
	if (strcmp(a->framework, "5")) {
		fprintf(stderr, "atc: --framework=%s: only 5 (ONNX) is supported\n", a->framework);
		return -1;
	}
	if (a->mode && strcmp(a->mode, "0")) {
		fprintf(stderr, "atc: --mode=%s: only 0 (compile a model) is supported\n", a->mode);
		return -1;
	}
	o->log_level = NPUCC_LOG_NULL;
	if (a->log) {
		for (i = 0; i < 5 && strcmp(a->log, log_names[i]); i++)
			;
		if (i == 5) {
			fprintf(stderr, "atc: --log=%s: use debug, info, warning, error or null\n",
				a->log);
			return -1;
		}
		o->log_level = i;
	}
	o->input_shape = a->input_shape;
	o->input_format = a->input_format;
	o->output_type = a->output_type;
	o->plain_layout = getenv("NPUCC_PLAIN_LAYOUT") && !strcmp(getenv("NPUCC_PLAIN_LAYOUT"), "1");
	o->no_residual = getenv("NPUCC_NO_RESIDUAL") && !strcmp(getenv("NPUCC_NO_RESIDUAL"), "1");
	o->no_pack = getenv("NPUCC_NO_PACK") && !strcmp(getenv("NPUCC_NO_PACK"), "1");
	o->log = log_line;
	return 0;
}

/* Written to a temporary name and renamed: a failed run leaves no .om. */
static int write_om(const char *output, const void *om, size_t size)
{
	size_t len = strlen(output);
	char *path = malloc(len + 4), *tmp = malloc(len + 16);
	FILE *f = NULL;
	int ret = -1;

	if (!path || !tmp)
		goto out;
	snprintf(path, len + 4, "%s.om", output);
	snprintf(tmp, len + 16, "%s.om.tmp%d", output, (int)getpid() % 100000);
	f = fopen(tmp, "wb");
	if (!f || fwrite(om, 1, size, f) != size) {
		fprintf(stderr, "atc: cannot write %s: %s\n", tmp, strerror(errno));
		goto out;
	}
	if (fclose(f)) {
		f = NULL;
		fprintf(stderr, "atc: cannot write %s: %s\n", tmp, strerror(errno));
		goto out;
	}
	f = NULL;
	if (rename(tmp, path)) {
		fprintf(stderr, "atc: cannot create %s: %s\n", path, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	if (f)
		fclose(f);
	if (ret && tmp)
		unlink(tmp);
	free(path);
	free(tmp);
	return ret;
}

int main(int argc, char **argv)
{
	struct atc_args args = { 0 };
	struct npucc_options opts = { 0 };
	struct npucc_result res;

	if (parse_args(argc, argv, &args))
		return 1;
	if (args.help || argc == 1) {
		usage(stdout);
		return args.help ? 0 : 1;
	}
	if (check_args(&args, &opts))
		return 1;
	if (npucc_compile_file(args.model, &opts, &res)) {
		fprintf(stderr, "atc: %s: %s: %s\n", args.model, npucc_error_name(res.error),
			res.message);
		return 2;
	}
	if (write_om(args.output, res.om, res.om_size)) {
		npucc_result_free(&res);
		return 1;
	}
	printf("ATC run success: %s.om\n", args.output);
	printf("workspace size: %llu bytes\n", (unsigned long long)res.stats.workspace_size);
	printf("weight size: %llu bytes\n", (unsigned long long)res.stats.weights_size);
	printf("operators: %d\n", res.stats.num_ops);
	printf("reorders: %d activations, %d weights\n", res.stats.num_reorders,
	       res.stats.num_weight_reorders);
	npucc_result_free(&res);
	return 0;
}
