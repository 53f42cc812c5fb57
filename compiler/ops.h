/* SPDX-License-Identifier: MIT */
/*
 * What the passes know about each ONNX operator: shape functions
 * (shape.c), host evaluation of constant subgraphs (fold.c), and the
 * parameters shape inference and lowering both derive from attributes.
 */
#ifndef NPUCC_OPS_H
#define NPUCC_OPS_H

#define SPLIT_MAX_OUT	64	/* outputs of one Split */

#include "ir.h"

/* Spatial geometry of Conv, ConvTranspose and the pools (1 or 2 axes). */
struct conv_geo {
	int sp;
	int64_t kernel[2], stride[2], dil[2];
	int64_t pad_begin[2], pad_end[2];
	int64_t in[2], out[2];
	int64_t group;
};

int conv_geometry(struct ir_graph *g, const struct ir_node *n, struct conv_geo *geo);
int slice_params(struct ir_graph *g, const struct ir_node *n, int64_t *starts,
		 int64_t *steps, int64_t *out_dims);
int pad_params(struct ir_graph *g, const struct ir_node *n, int64_t *begin,
	       int64_t *end, int *mode, float *value);
int resize_params(struct ir_graph *g, const struct ir_node *n, float *scales,
		  int64_t *out_dims);
int reduce_params(struct ir_graph *g, const struct ir_node *n, unsigned *mask,
		  bool *keepdims);
int const_ints(struct ir_graph *g, const struct ir_node *n, int idx, const char *what,
	       int64_t *vals, int max, int *count);

/* Shape functions: set every output's dtype and dims. */
int infer_conv(struct ir_graph *g, struct ir_node *n);
int infer_conv_transpose(struct ir_graph *g, struct ir_node *n);
int infer_pool(struct ir_graph *g, struct ir_node *n);
int infer_global_pool(struct ir_graph *g, struct ir_node *n);
int infer_matmul(struct ir_graph *g, struct ir_node *n);
int infer_gemm(struct ir_graph *g, struct ir_node *n);
int infer_same(struct ir_graph *g, struct ir_node *n);
int infer_cast(struct ir_graph *g, struct ir_node *n);
int infer_broadcast(struct ir_graph *g, struct ir_node *n);
int infer_compare(struct ir_graph *g, struct ir_node *n);
int infer_where(struct ir_graph *g, struct ir_node *n);
int infer_reduce(struct ir_graph *g, struct ir_node *n);
int infer_concat(struct ir_graph *g, struct ir_node *n);
int infer_transpose(struct ir_graph *g, struct ir_node *n);
int infer_resize(struct ir_graph *g, struct ir_node *n);
int infer_pad(struct ir_graph *g, struct ir_node *n);
int infer_slice(struct ir_graph *g, struct ir_node *n);
int infer_split(struct ir_graph *g, struct ir_node *n);
int split_sizes(struct ir_graph *g, const struct ir_node *n, int *axis, int64_t *sizes);
int infer_reshape(struct ir_graph *g, struct ir_node *n);
int infer_flatten(struct ir_graph *g, struct ir_node *n);
int infer_squeeze(struct ir_graph *g, struct ir_node *n);
int infer_unsqueeze(struct ir_graph *g, struct ir_node *n);
int infer_constant(struct ir_graph *g, struct ir_node *n);
int infer_shape(struct ir_graph *g, struct ir_node *n);
int infer_size(struct ir_graph *g, struct ir_node *n);
int infer_gather(struct ir_graph *g, struct ir_node *n);
int infer_constant_of_shape(struct ir_graph *g, struct ir_node *n);
int infer_range(struct ir_graph *g, struct ir_node *n);
int infer_expand(struct ir_graph *g, struct ir_node *n);
int infer_norm(struct ir_graph *g, struct ir_node *n);

/* Host evaluation: every input is a constant; fill every output's data. */
int fold_constant(struct ir_graph *g, struct ir_node *n);
int fold_view(struct ir_graph *g, struct ir_node *n);
int fold_shape(struct ir_graph *g, struct ir_node *n);
int fold_size(struct ir_graph *g, struct ir_node *n);
int fold_gather(struct ir_graph *g, struct ir_node *n);
int fold_cast(struct ir_graph *g, struct ir_node *n);
int fold_slice(struct ir_graph *g, struct ir_node *n);
int fold_concat(struct ir_graph *g, struct ir_node *n);
int fold_transpose(struct ir_graph *g, struct ir_node *n);
int fold_unary(struct ir_graph *g, struct ir_node *n);
int fold_binary(struct ir_graph *g, struct ir_node *n);
int fold_where(struct ir_graph *g, struct ir_node *n);
int fold_constant_of_shape(struct ir_graph *g, struct ir_node *n);
int fold_range(struct ir_graph *g, struct ir_node *n);
int fold_expand(struct ir_graph *g, struct ir_node *n);
int fold_reduce(struct ir_graph *g, struct ir_node *n);

/* Folds @n after its shape function if its inputs allow: @n is then dead. */
int fold_node(struct ir_graph *g, struct ir_node *n, const struct op_def *def);

#endif /* NPUCC_OPS_H */
