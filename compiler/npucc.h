/* SPDX-License-Identifier: MIT */
/*
 * libnpucc: compiles an ONNX model into the card's offline model (.om,
 * compiler/om_format.h).  tools/atc is its command line; a program can
 * compile in process with the same calls.  The runtime does not link it.
 */
#ifndef NPUCC_H
#define NPUCC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum npucc_error {
	NPUCC_OK = 0,
	NPUCC_E_INVALID_MODEL = 1,	/* not ONNX, truncated, inconsistent */
	NPUCC_E_UNSUPPORTED_OP = 2,	/* an operator the card cannot run */
	NPUCC_E_UNSUPPORTED_ATTR = 3,	/* an attribute, or a value of one */
	NPUCC_E_UNSUPPORTED_DTYPE = 4,	/* a data type the card has not */
	NPUCC_E_DYNAMIC_SHAPE = 5,	/* a shape that depends on input data */
	NPUCC_E_INPUT_SHAPE = 6,	/* --input_shape wrong or missing */
	NPUCC_E_OPTION = 7,		/* another option */
	NPUCC_E_NOMEM = 8,
	NPUCC_E_IO = 9,
	NPUCC_E_LIMIT = 10,		/* beyond the card's or the file's limits */
};

enum npucc_log_level {
	NPUCC_LOG_DEBUG = 0,
	NPUCC_LOG_INFO = 1,
	NPUCC_LOG_WARNING = 2,
	NPUCC_LOG_ERROR = 3,
	NPUCC_LOG_NULL = 4,		/* the default: no log */
};

struct npucc_options {
	/* "name:n,c,h,w;name2:..." as atc's --input_shape, or NULL */
	const char *input_shape;
	/* "NCHW" (the default) or "ND": the inputs' aclFormat */
	const char *input_format;
	/* "FP32", "FP16", or NULL to keep the model's output types */
	const char *output_type;
	int log_level;			/* enum npucc_log_level */
	int plain_layout;		/* 1: no NCHW16C between convolutions */
	int no_residual;		/* 1: a residual Add stays an operator */
	int no_pack;			/* 1: no convolution weights packed at load */
	/* log lines go here (atc: stderr); NULL: nowhere */
	void (*log)(void *arg, int level, const char *msg);
	void *log_arg;
};

struct npucc_stats {
	uint64_t workspace_size;	/* bytes one execution needs */
	uint64_t weights_size;		/* bytes uploaded at load */
	uint64_t activations_size;	/* all workspace tensors, unshared */
	int num_ops;			/* card operators */
	int num_nodes;			/* graph nodes after the passes */
	int num_reorders;		/* activations changing layout inside an operator */
	int num_weight_reorders;	/* convolutions whose weights the card lays out per run */
};

struct npucc_result {
	int error;			/* enum npucc_error */
	char message[512];		/* why, naming the node and op type */
	void *om;			/* the .om file's bytes; free() it */
	size_t om_size;
	struct npucc_stats stats;
};

/* Compile an ONNX model held in memory; returns result->error. */
int npucc_compile(const void *onnx, size_t size, const struct npucc_options *opts,
		  struct npucc_result *result);

/* Read an ONNX file and compile it. */
int npucc_compile_file(const char *path, const struct npucc_options *opts,
		       struct npucc_result *result);

/*
 * A graph given as a spec instead of ONNX bytes, for libge_runner:
 * the same IR and the same passes as npucc_compile.  Op types, attribute
 * names and data types are ONNX's (opset @opset); values are named, and a
 * node's inputs name graph inputs, constants or earlier nodes' outputs.
 */
enum npucc_attr_type {
	NPUCC_ATTR_FLOAT = 1,
	NPUCC_ATTR_INT = 2,
	NPUCC_ATTR_STRING = 3,
	NPUCC_ATTR_FLOATS = 6,
	NPUCC_ATTR_INTS = 7,
};

struct npucc_spec_attr {
	const char *name;
	int type;			/* enum npucc_attr_type */
	float f;
	int64_t i;
	const char *s;
	size_t n;			/* FLOATS, INTS */
	const float *floats;
	const int64_t *ints;
};

struct npucc_spec_tensor {
	const char *name;
	int dtype;			/* ONNX TensorProto.DataType */
	int rank;
	const int64_t *dims;
	const void *data;		/* constants: the elements; inputs: NULL */
	size_t size;			/* bytes at data */
};

struct npucc_spec_node {
	const char *name;
	const char *op;
	int num_in, num_out;
	const char *const *in;		/* NULL or "": an optional input left out */
	const char *const *out;
	int num_attrs;
	const struct npucc_spec_attr *attrs;
};

struct npucc_spec {
	int opset;
	int num_inputs, num_consts, num_nodes, num_outputs;
	const struct npucc_spec_tensor *inputs;	/* in the model's input order */
	const struct npucc_spec_tensor *consts;
	const struct npucc_spec_node *nodes;
	const char *const *outputs;		/* value names, in output order */
};

int npucc_compile_spec(const struct npucc_spec *desc, const struct npucc_options *opts,
		       struct npucc_result *result);

void npucc_result_free(struct npucc_result *result);

const char *npucc_error_name(int error);

#ifdef __cplusplus
}
#endif

#endif /* NPUCC_H */
