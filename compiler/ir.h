/* SPDX-License-Identifier: MIT */
/*
 * libnpucc's graph IR: one graph of nodes and values that every pass reads
 * and rewrites, from the ONNX import to the .om emitter.
 *
 * A value is a tensor: a graph input, a constant (its elements are on the
 * host in @data) or the output of one node.  Nodes keep ONNX's op types and
 * attributes until lowering turns each into one card operator (or none,
 * for the ops that only rename bytes).  Nodes stay in execution order; a
 * pass that removes a node marks it dead and ir_compact() drops it.
 */
#ifndef NPUCC_IR_H
#define NPUCC_IR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "npu_dtypes.h"
#include "npucc.h"

#define IR_MAX_DIMS	8

/* ONNX TensorProto.DataType numbers, under ONNX's names. */
enum ir_dtype {
	IR_UNDEFINED = NPU_ONNX_UNDEFINED,
	IR_FLOAT = NPU_ONNX_FLOAT,
	IR_UINT8 = NPU_ONNX_UINT8,
	IR_INT8 = NPU_ONNX_INT8,
	IR_UINT16 = NPU_ONNX_UINT16,
	IR_INT16 = NPU_ONNX_INT16,
	IR_INT32 = NPU_ONNX_INT32,
	IR_INT64 = NPU_ONNX_INT64,
	IR_STRING = NPU_ONNX_STRING,
	IR_BOOL = NPU_ONNX_BOOL,
	IR_FLOAT16 = NPU_ONNX_FLOAT16,
	IR_DOUBLE = NPU_ONNX_DOUBLE,
	IR_UINT32 = NPU_ONNX_UINT32,
	IR_UINT64 = NPU_ONNX_UINT64,
	IR_COMPLEX64 = NPU_ONNX_COMPLEX64,
	IR_COMPLEX128 = NPU_ONNX_COMPLEX128,
	IR_BFLOAT16 = NPU_ONNX_BF16,
};

/* Where a value's bytes live once memory is planned (enum om_region). */
#define IR_REGION_NONE		(-1)

struct ir_node;

struct ir_value {
	char *name;
	int dtype;			/* enum ir_dtype */
	int rank;			/* -1 until known */
	int64_t dims[IR_MAX_DIMS];	/* -1: not known yet */
	void *data;			/* a constant's elements, or NULL */
	struct ir_node *producer;	/* NULL for inputs and constants */
	int num_uses;			/* by live nodes; see ir_count_uses() */
	int input_index;		/* graph input number, or -1 */
	int output_index;		/* graph output number, or -1 */

	/* Filled by layout and memory planning. */
	int format;			/* enum npu_tensor_format */
	struct ir_value *alias;		/* shares this value's bytes */
	int region;			/* enum om_region, or IR_REGION_NONE */
	uint64_t offset;		/* into the region */
	int live_begin, live_end;	/* node indices */
};

enum ir_attr_type {
	IR_ATTR_FLOAT = 1,
	IR_ATTR_INT = 2,
	IR_ATTR_STRING = 3,
	IR_ATTR_TENSOR = 4,
	IR_ATTR_FLOATS = 6,
	IR_ATTR_INTS = 7,
	IR_ATTR_OTHER = 100,		/* graphs, strings lists, ...: never used */
};

struct ir_attr {
	char *name;
	int type;			/* enum ir_attr_type */
	float f;
	int64_t i;
	char *s;
	size_t n;			/* FLOATS, INTS */
	float *floats;
	int64_t *ints;
	struct ir_value *t;		/* TENSOR: a constant value */
};

/* An activation fused into the node that produces its input. */
struct ir_act {
	int kind;			/* enum npu_unary_kind; 0: none */
	float alpha, beta;
};

struct ir_node {
	char *name;
	char *op;			/* ONNX op_type */
	int num_in, num_out;
	struct ir_value **in;		/* NULL entries: omitted optional inputs */
	struct ir_value **out;
	int num_attrs;
	struct ir_attr *attrs;
	bool dead;
	bool copy;			/* an alias op that must copy its bytes */
	struct ir_act act;
	int index;			/* position in execution order */
	/* run once when the model is loaded, not by every execution */
	bool at_load;
	const struct ir_node *packs_for;	/* PackConv: the Conv it packs for */
};

struct ir_graph {
	int opset;
	struct ir_node **nodes;
	int num_nodes, cap_nodes;
	struct ir_value **values;
	int num_values, cap_values;
	struct ir_value **inputs;
	int num_inputs;
	struct ir_value **outputs;
	int num_outputs;
	struct ir_value **by_name;	/* hash table of named values */
	size_t by_name_cap;

	const struct npucc_options *opts;
	int err_code;			/* enum npucc_error; 0 while none */
	char err[512];
	unsigned long serial;		/* for generated names */
};

/* Graph and values. */
struct ir_graph *ir_graph_new(const struct npucc_options *opts);
void ir_graph_free(struct ir_graph *g);
struct ir_value *ir_value_new(struct ir_graph *g, const char *name);
struct ir_value *ir_value_find(struct ir_graph *g, const char *name);
int ir_graph_add_output(struct ir_graph *g, const char *name);
struct ir_value *ir_const_new(struct ir_graph *g, const char *hint, int dtype,
			      int rank, const int64_t *dims);
struct ir_node *ir_node_new(struct ir_graph *g, const char *name, const char *op,
			    int num_in, int num_out);
int ir_node_insert_after(struct ir_graph *g, struct ir_node *n, struct ir_node *after);
void ir_compact(struct ir_graph *g);
void ir_count_uses(struct ir_graph *g);
int ir_remove_dead(struct ir_graph *g);
void ir_replace_uses(struct ir_graph *g, struct ir_value *from, struct ir_value *to);
char *ir_strdup(struct ir_graph *g, const char *s);
void *ir_alloc(struct ir_graph *g, size_t size);

/* Tensors. */
size_t ir_dtype_size(int dtype);
const char *ir_dtype_name(int dtype);
bool ir_dtype_is_float(int dtype);
int64_t ir_numel(const struct ir_value *v);
bool ir_shape_known(const struct ir_value *v);
int ir_nbytes(struct ir_graph *g, const struct ir_value *v, uint64_t *bytes);
double ir_get_f64(const struct ir_value *v, int64_t i);
int64_t ir_get_i64(const struct ir_value *v, int64_t i);
void ir_set_f64(struct ir_value *v, int64_t i, double x);
void ir_set_i64(struct ir_value *v, int64_t i, int64_t x);
int ir_alloc_data(struct ir_graph *g, struct ir_value *v);
void ir_set_shape(struct ir_value *v, int dtype, int rank, const int64_t *dims);

/* Attributes. */
const struct ir_attr *ir_attr_find(const struct ir_node *n, const char *name);
int64_t ir_attr_int(const struct ir_node *n, const char *name, int64_t dflt);
float ir_attr_float(const struct ir_node *n, const char *name, float dflt);
const char *ir_attr_str(const struct ir_node *n, const char *name, const char *dflt);
const int64_t *ir_attr_ints(const struct ir_node *n, const char *name, size_t *count);
const float *ir_attr_floats(const struct ir_node *n, const char *name, size_t *count);

/* Errors: the first one sticks; every call returns -1. */
int ir_error(struct ir_graph *g, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int ir_node_error(struct ir_graph *g, const struct ir_node *n, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void ir_log(struct ir_graph *g, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The passes, in the order npucc.c runs them. */
int pass_import(struct ir_graph *g, const void *buf, size_t len);
int pass_import_spec(struct ir_graph *g, const struct npucc_spec *spec);
int import_sort_nodes(struct ir_graph *g);
int pass_input_shape(struct ir_graph *g);
int pass_infer(struct ir_graph *g);
int pass_legalize(struct ir_graph *g);
int pass_bn_fold(struct ir_graph *g);
int pass_affine_fold(struct ir_graph *g);
int pass_hswish(struct ir_graph *g);
int pass_fuse(struct ir_graph *g);
int pass_output_type(struct ir_graph *g);
int pass_layout(struct ir_graph *g);
int pass_memplan(struct ir_graph *g, uint64_t *workspace, uint64_t *weights);
struct lo_program;
int pass_lower(struct ir_graph *g, struct lo_program *prog);
int pass_emit(struct ir_graph *g, const struct lo_program *prog, uint64_t workspace,
	      uint64_t weights, void **om, size_t *om_size);

/* npucc.c: import to layout, for tests that look at the IR. */
int npucc_build_graph(struct ir_graph *g, const void *onnx, size_t size);

/* Per-op knowledge, in ops.c, shape.c and fold.c. */
struct op_def {
	const char *op;
	const char *attrs;		/* space-separated attribute names */
	int min_in, max_in;		/* max_in -1: any number */
	int min_out, max_out;
	int (*infer)(struct ir_graph *g, struct ir_node *n);
	int (*fold)(struct ir_graph *g, struct ir_node *n);
	bool alias;			/* output shares the input's bytes */
};

const struct op_def *op_def_find(const char *op);
int op_check(struct ir_graph *g, struct ir_node *n);
int op_lower_kind(const struct ir_node *n);
int op_unary_kind(const struct ir_node *n, struct ir_act *act);
int op_binary_kind(const char *op);
unsigned op_tensor_inputs(const struct ir_node *n);
int norm_axis(struct ir_graph *g, const struct ir_node *n, int64_t axis, int rank, int *out);

#endif /* NPUCC_IR_H */
