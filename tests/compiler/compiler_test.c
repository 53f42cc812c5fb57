// SPDX-License-Identifier: MIT
/*
 * Host tests of libnpucc: shape inference, folding, batch norm folding,
 * activation fusion, memory planning, error paths (with a fuzzer over
 * truncated and corrupted files) and the .om files it writes, checked
 * against docs/om-format.md by om_check.h.
 *
 * The models are built here with protobuf-c (onnx_builder.h).  Numbers are
 * not checked by running the graph on the host: the structure is checked
 * here, the arithmetic end to end against onnxruntime (tests/onnx).
 * NPUCC_TEST_SEED varies the fuzzer; NPUCC_FUZZ_ITERS its length.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wclobbered"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include "kselftest_harness.h"

#include "ir.h"
#include "npu_operator.h"
#include "om_check.h"
#include "onnx_builder.h"
#include "graph_build.h"

#define ONNX_TESTDATA	"/usr/share/libonnx-testdata/data/node"

static const int64_t d1[] = { 1 }, d4_8[] = { 8, 3, 3, 3 };

static int compile(struct onnx_builder *b, const char *input_shape, struct npucc_result *res)
{
	struct npucc_options opts = { .input_shape = input_shape, .log_level = NPUCC_LOG_NULL };
	uint8_t *buf;
	size_t len;
	int ret;

	buf = ob_pack(b, &len);
	ret = npucc_compile(buf, len, &opts, res);
	free(buf);
	return ret;
}

static void expect_dims(struct __test_metadata *_metadata, const struct ir_value *v,
			int rank, const int64_t *dims)
{
	int d;

	ASSERT_NE(NULL, v);
	ASSERT_EQ(rank, v->rank);
	for (d = 0; d < rank; d++)
		EXPECT_EQ(dims[d], v->dims[d]) TH_LOG("dim %d of '%s'", d, v->name);
}

/* x (1, 3, 32, 32) -> Conv 3x3 stride 2 pad 1 -> MaxPool 3x3 stride 2 */
static void conv_pool_model(struct onnx_builder *b, int ceil_mode)
{
	static const int64_t dx[] = { 1, 3, 32, 32 };
	Onnx__NodeProto *n;

	ob_init(b, 11);
	ob_input(b, "x", 4, dx);
	ob_f32(b, "w", 4, d4_8, NULL);
	n = ob_node(b, "Conv", "conv", "x,w", "c");
	ob_attr_ints(b, n, "strides", 2, 2, 2);
	ob_attr_ints(b, n, "pads", 4, 1, 1, 1, 1);
	n = ob_node(b, "MaxPool", "pool", "c", "y");
	ob_attr_ints(b, n, "kernel_shape", 2, 3, 3);
	ob_attr_ints(b, n, "strides", 2, 2, 2);
	ob_attr_i(b, n, "ceil_mode", ceil_mode);
	ob_output(b, "y");
}

TEST(shape_conv_and_pool)
{
	static const int64_t conv[] = { 1, 8, 16, 16 }, floor_pool[] = { 1, 8, 7, 7 };
	static const int64_t ceil_pool[] = { 1, 8, 8, 8 };
	struct onnx_builder b;
	struct ir_graph *g;

	conv_pool_model(&b, 0);
	g = build(&b, NULL, NULL);
	ASSERT_EQ(0, g->err_code) TH_LOG("%s", g->err);
	expect_dims(_metadata, ir_value_find(g, "c"), 4, conv);
	expect_dims(_metadata, ir_value_find(g, "y"), 4, floor_pool);
	ir_graph_free(g);
	ob_free(&b);

	conv_pool_model(&b, 1);
	g = build(&b, NULL, NULL);
	ASSERT_EQ(0, g->err_code) TH_LOG("%s", g->err);
	expect_dims(_metadata, ir_value_find(g, "y"), 4, ceil_pool);
	ir_graph_free(g);
	ob_free(&b);
}

TEST(shape_matmul_broadcast_and_vectors)
{
	static const int64_t da[] = { 2, 1, 3, 4 }, db[] = { 5, 4, 6 }, dv[] = { 4 };
	static const int64_t y1[] = { 2, 5, 3, 6 }, y2[] = { 5, 6 };
	struct onnx_builder b;
	struct ir_graph *g;

	ob_init(&b, 13);
	ob_input(&b, "a", 4, da);
	ob_input(&b, "v", 1, dv);
	ob_f32(&b, "b", 3, db, NULL);
	ob_node(&b, "MatMul", "mm", "a,b", "y1");
	ob_node(&b, "MatMul", "mv", "v,b", "y2");
	ob_output(&b, "y1");
	ob_output(&b, "y2");
	g = build(&b, NULL, NULL);
	ASSERT_EQ(0, g->err_code) TH_LOG("%s", g->err);
	expect_dims(_metadata, ir_value_find(g, "y1"), 4, y1);
	expect_dims(_metadata, ir_value_find(g, "y2"), 2, y2);
	ir_graph_free(g);
	ob_free(&b);
}

TEST(shape_broadcast_of_a_shorter_first_operand)
{
	static const int64_t da[] = { 1 }, db[] = { 3, 3, 3, 1 }, dy[] = { 3, 3, 3, 1 };
	struct onnx_builder b;
	struct ir_graph *g;

	ob_init(&b, 13);
	ob_input(&b, "b", 4, db);
	ob_f32(&b, "a", 1, da, NULL);
	ob_node(&b, "Mul", "mul", "a,b", "y");
	ob_output(&b, "y");
	g = build(&b, NULL, NULL);
	ASSERT_EQ(0, g->err_code) TH_LOG("%s", g->err);
	expect_dims(_metadata, ir_value_find(g, "y"), 4, dy);
	ir_graph_free(g);
	ob_free(&b);
}

TEST(shape_reshape_flatten_unsqueeze)
{
	static const int64_t dx[] = { 2, 3, 4 }, shape[] = { 0, -1 }, axes[] = { 0, 3 };
	static const int64_t r[] = { 2, 12 }, f[] = { 6, 4 }, u[] = { 1, 2, 3, 1, 4 };
	struct onnx_builder b;
	struct ir_graph *g;
	Onnx__NodeProto *n;

	ob_init(&b, 13);
	ob_input(&b, "x", 3, dx);
	ob_i64(&b, "shape", 2, shape);
	ob_i64(&b, "axes", 2, axes);
	ob_node(&b, "Reshape", "r", "x,shape", "r");
	n = ob_node(&b, "Flatten", "f", "x", "f");
	ob_attr_i(&b, n, "axis", 2);
	ob_node(&b, "Unsqueeze", "u", "x,axes", "u");
	ob_output(&b, "r");
	ob_output(&b, "f");
	ob_output(&b, "u");
	g = build(&b, NULL, NULL);
	ASSERT_EQ(0, g->err_code) TH_LOG("%s", g->err);
	expect_dims(_metadata, ir_value_find(g, "r"), 2, r);
	expect_dims(_metadata, ir_value_find(g, "f"), 2, f);
	expect_dims(_metadata, ir_value_find(g, "u"), 5, u);
	ir_graph_free(g);
	ob_free(&b);
}

TEST(fold_slice_backwards)
{
	static const int64_t st[] = { -1 }, en[] = { -100 }, ax[] = { 0 }, sp[] = { -3 };
	static const int64_t dx[] = { 10 }, dy[] = { 4 };
	float x[10];
	struct onnx_builder b;
	struct ir_graph *g;
	struct ir_value *y;
	int i;

	for (i = 0; i < 10; i++)
		x[i] = (float)i;
	ob_init(&b, 13);
	ob_input(&b, "in", 1, d1);
	ob_f32(&b, "x", 1, dx, x);
	ob_i64(&b, "st", 1, st);
	ob_i64(&b, "en", 1, en);
	ob_i64(&b, "ax", 1, ax);
	ob_i64(&b, "sp", 1, sp);
	ob_node(&b, "Slice", "s", "x,st,en,ax,sp", "s");
	ob_node(&b, "Mul", "m", "in,s", "y");
	ob_output(&b, "y");
	g = build(&b, NULL, NULL);
	ASSERT_EQ(0, g->err_code) TH_LOG("%s", g->err);
	EXPECT_EQ(0, count_op(g, "Slice"));
	y = ir_value_find(g, "s");
	expect_dims(_metadata, y, 1, dy);
	ASSERT_NE(NULL, y->data);
	EXPECT_EQ(9.0, ir_get_f64(y, 0));
	EXPECT_EQ(6.0, ir_get_f64(y, 1));
	EXPECT_EQ(3.0, ir_get_f64(y, 2));
	EXPECT_EQ(0.0, ir_get_f64(y, 3));
	ir_graph_free(g);
	ob_free(&b);
}

/* x.view(x.size(0), -1) as PyTorch exports it, with a dynamic batch. */
static void flatten_chain_model(struct onnx_builder *b, int opset)
{
	static const int64_t dx[] = { -1, 3, 8, 8 }, minus1[] = { -1 }, zero[] = { 0 };
	Onnx__NodeProto *n;

	ob_init(b, opset);
	ob_input(b, "x", 4, dx);
	ob_i64(b, "minus1", 1, minus1);
	b->inits[b->graph.n_initializer++] = ob_tensor(b, "zero", 7, 0, NULL, zero);
	ob_node(b, "Shape", "shape", "x", "s");
	ob_node(b, "Gather", "gather", "s,zero", "n");
	n = ob_node(b, "Unsqueeze", "unsq", "n", "n1");
	ob_attr_ints(b, n, "axes", 1, 0);
	n = ob_node(b, "Concat", "cat", "n1,minus1", "shape2");
	ob_attr_i(b, n, "axis", 0);
	ob_node(b, "Reshape", "reshape", "x,shape2", "flat");
	ob_node(b, "Relu", "relu", "flat", "y");
	ob_output(b, "y");
}

TEST(fold_shape_chain_after_input_shape)
{
	static const int64_t flat[] = { 2, 192 };
	struct onnx_builder b;
	struct ir_graph *g;

	flatten_chain_model(&b, 11);
	g = build(&b, "x:2,3,8,8", NULL);
	ASSERT_EQ(0, g->err_code) TH_LOG("%s", g->err);
	/* The chain is gone; Reshape is a view and Relu the one operator. */
	EXPECT_EQ(2, g->num_nodes);
	EXPECT_EQ(1, count_op(g, "Reshape"));
	EXPECT_EQ(0, count_op(g, "Shape") + count_op(g, "Gather") + count_op(g, "Concat") +
		     count_op(g, "Unsqueeze"));
	expect_dims(_metadata, ir_value_find(g, "y"), 2, flat);
	ir_graph_free(g);
	ob_free(&b);
}

TEST(input_shape_required_and_checked)
{
	struct onnx_builder b;
	struct ir_graph *g;

	flatten_chain_model(&b, 11);
	g = build(&b, NULL, NULL);
	EXPECT_EQ(NPUCC_E_INPUT_SHAPE, g->err_code);
	EXPECT_NE(NULL, strstr(g->err, "'x'")) TH_LOG("%s", g->err);
	ir_graph_free(g);
	g = build(&b, "x:2,4,8,8", NULL);	/* dim 1 is 3 in the model */
	EXPECT_EQ(NPUCC_E_INPUT_SHAPE, g->err_code);
	ir_graph_free(g);
	g = build(&b, "nosuch:2,3,8,8", NULL);
	EXPECT_EQ(NPUCC_E_INPUT_SHAPE, g->err_code);
	ir_graph_free(g);
	g = build(&b, "x:-1,3,8,8", NULL);
	EXPECT_EQ(NPUCC_E_INPUT_SHAPE, g->err_code);
	ir_graph_free(g);
	ob_free(&b);
}

TEST(data_dependent_shape_is_an_error)
{
	static const int64_t dx[] = { 2, 6 }, ds[] = { 2 };
	struct onnx_builder b;
	struct npucc_result res;
	Onnx__ValueInfoProto *vi;

	ob_init(&b, 13);
	ob_input(&b, "x", 2, dx);
	vi = ob_value_info(&b, "shape", 7, 1, ds);
	b.inputs[b.graph.n_input++] = vi;
	ob_node(&b, "Reshape", "the_reshape", "x,shape", "y");
	ob_output(&b, "y");
	EXPECT_EQ(NPUCC_E_DYNAMIC_SHAPE, compile(&b, NULL, &res));
	EXPECT_NE(NULL, strstr(res.message, "the_reshape")) TH_LOG("%s", res.message);
	EXPECT_EQ(NULL, res.om);
	ob_free(&b);
}

/* Conv (with bias) -> BatchNormalization -> Relu */
static void conv_bn_relu(struct onnx_builder *b, bool share_conv_output)
{
	static const int64_t dx[] = { 1, 3, 8, 8 }, dc[] = { 8 };
	static const float var[8] = { 0.5f, 1, 1.5f, 2, 0.25f, 1, 1, 3 };

	ob_init(b, 11);
	ob_input(b, "x", 4, dx);
	ob_f32(b, "w", 4, d4_8, NULL);
	ob_f32(b, "bias", 1, dc, NULL);
	ob_f32(b, "scale", 1, dc, NULL);
	ob_f32(b, "shift", 1, dc, NULL);
	ob_f32(b, "mean", 1, dc, NULL);
	ob_f32(b, "var", 1, dc, var);
	ob_node(b, "Conv", "conv", "x,w,bias", "c");
	ob_node(b, "BatchNormalization", "bn", "c,scale,shift,mean,var", "n");
	ob_node(b, "Relu", "relu", "n", "y");
	ob_output(b, "y");
	if (share_conv_output) {
		ob_node(b, "Sigmoid", "other", "c", "z");
		ob_output(b, "z");
	}
}

static double init_f(struct onnx_builder *b, const char *name, int i)
{
	size_t k;

	for (k = 0; k < b->graph.n_initializer; k++)
		if (!strcmp(b->inits[k]->name, name))
			return ((float *)b->inits[k]->raw_data.data)[i];
	return NAN;
}

TEST(bn_folds_into_conv_and_relu_fuses)
{
	struct onnx_builder b;
	struct ir_graph *g;
	struct ir_node *conv;
	double f, expect;
	int o;

	conv_bn_relu(&b, false);
	g = build(&b, NULL, NULL);
	ASSERT_EQ(0, g->err_code) TH_LOG("%s", g->err);
	ASSERT_EQ(1, g->num_nodes);
	conv = g->nodes[0];
	ASSERT_STREQ("Conv", conv->op);
	EXPECT_EQ(NPU_UNARY_RELU, conv->act.kind);
	EXPECT_STREQ("y", conv->out[0]->name);
	ASSERT_EQ(3, conv->num_in);
	ASSERT_NE(NULL, conv->in[1]->data);
	EXPECT_STRNE("w", conv->in[1]->name);	/* new weights, the old kept intact */
	/* w' = w * f and b' = (b - mean) * f + shift, f = scale / sqrt(var + eps) */
	for (o = 0; o < 8; o++) {
		f = init_f(&b, "scale", o) / sqrt(init_f(&b, "var", o) + 1e-5);
		expect = init_f(&b, "w", o * 27 + 5) * f;
		EXPECT_LT(fabs(ir_get_f64(conv->in[1], o * 27 + 5) - expect), 1e-6);
		expect = (init_f(&b, "bias", o) - init_f(&b, "mean", o)) * f + init_f(&b, "shift", o);
		EXPECT_LT(fabs(ir_get_f64(conv->in[2], o) - expect), 1e-6);
	}
	ir_graph_free(g);
	ob_free(&b);
}

TEST(bn_stays_when_conv_output_is_shared)
{
	struct onnx_builder b;
	struct ir_graph *g;

	conv_bn_relu(&b, true);
	g = build(&b, NULL, NULL);
	ASSERT_EQ(0, g->err_code) TH_LOG("%s", g->err);
	EXPECT_EQ(1, count_op(g, "BatchNormalization"));
	EXPECT_EQ(0, count_op(g, "Relu"));	/* fused into the batch norm instead */
	EXPECT_EQ(NPU_UNARY_RELU, find_op(g, "BatchNormalization")->act.kind);
	EXPECT_EQ(0, find_op(g, "Conv")->act.kind);
	ir_graph_free(g);
	ob_free(&b);
}

/*
 * One HardSwish, not fused into the Conv: the card's plain-layout
 * convolution applies it per element (fuse.c, slow_conv_act()).
 */
TEST(hardsigmoid_mul_becomes_hardswish)
{
	static const int64_t dx[] = { 1, 3, 8, 8 };
	struct onnx_builder b;
	struct ir_graph *g;
	Onnx__NodeProto *n;

	ob_init(&b, 11);
	ob_input(&b, "x", 4, dx);
	ob_f32(&b, "w", 4, d4_8, NULL);
	ob_node(&b, "Conv", "conv", "x,w", "c");
	n = ob_node(&b, "HardSigmoid", "hs", "c", "gate");
	ob_attr_f(&b, n, "alpha", 1.0f / 6);
	ob_attr_f(&b, n, "beta", 0.5f);
	ob_node(&b, "Mul", "mul", "c,gate", "y");
	ob_output(&b, "y");
	g = build(&b, NULL, NULL);
	ASSERT_EQ(0, g->err_code) TH_LOG("%s", g->err);
	ASSERT_EQ(2, g->num_nodes);
	EXPECT_EQ(0, g->nodes[0]->act.kind);
	EXPECT_STREQ("HardSwish", g->nodes[1]->op);
	EXPECT_EQ(g->nodes[0]->out[0], g->nodes[1]->in[0]);
	ir_graph_free(g);
	ob_free(&b);
}

TEST(activation_fusion_rules)
{
	static const int64_t dx[] = { 4, 5 };
	struct onnx_builder b;
	struct ir_graph *g;
	Onnx__NodeProto *n;

	ob_init(&b, 11);
	ob_input(&b, "a", 2, dx);
	ob_input(&b, "b", 2, dx);
	ob_node(&b, "Add", "add", "a,b", "s");
	n = ob_node(&b, "LeakyRelu", "lrelu", "s", "t");
	ob_attr_f(&b, n, "alpha", 0.25f);
	ob_node(&b, "Sub", "sub", "t,a", "u");	/* u is an output and feeds Tanh */
	ob_node(&b, "Tanh", "tanh", "u", "y");
	ob_output(&b, "u");
	ob_output(&b, "y");
	g = build(&b, NULL, NULL);
	ASSERT_EQ(0, g->err_code) TH_LOG("%s", g->err);
	EXPECT_EQ(3, g->num_nodes);
	EXPECT_EQ(NPU_UNARY_LEAKY_RELU, find_op(g, "Add")->act.kind);
	EXPECT_EQ(0.25f, find_op(g, "Add")->act.alpha);
	EXPECT_EQ(0, find_op(g, "Sub")->act.kind);
	EXPECT_EQ(1, count_op(g, "Tanh"));
	ir_graph_free(g);
	ob_free(&b);
}

/*
 * x -> Conv a -> Relu r -> Conv b -> Conv c; Add(c, @other) -> Relu y ->
 * Sigmoid, where @other is r or x, and r is read once more at the end with
 * @late_reader.  (A sum that is a model output is left alone.)
 */
static struct ir_graph *residual_graph(struct onnx_builder *b, const char *other,
				       bool late_reader)
{
	static const int64_t dx[] = { 1, 16, 8, 8 }, dw[] = { 16, 16, 3, 3 };
	Onnx__NodeProto *n;

	ob_init(b, 11);
	ob_input(b, "x", 4, dx);
	ob_f32(b, "wa", 4, dw, NULL);
	ob_f32(b, "wb", 4, dw, NULL);
	ob_f32(b, "wc", 4, dw, NULL);
	n = ob_node(b, "Conv", "ca", "x,wa", "a");
	ob_attr_ints(b, n, "pads", 4, 1, 1, 1, 1);
	ob_node(b, "Relu", "ra", "a", "r");
	n = ob_node(b, "Conv", "cb", "r,wb", "t");
	ob_attr_ints(b, n, "pads", 4, 1, 1, 1, 1);
	n = ob_node(b, "Conv", "cc", "t,wc", "cc");
	ob_attr_ints(b, n, "pads", 4, 1, 1, 1, 1);
	ob_node(b, "Add", "add", other, "sum");
	ob_node(b, "Relu", "rs", "sum", "y");
	ob_node(b, "Sigmoid", "out", "y", "o");
	ob_output(b, "o");
	if (late_reader) {
		ob_node(b, "Sigmoid", "late", "r", "z");
		ob_output(b, "z");
	}
	return build(b, NULL, NULL);
}

TEST(residual_add_becomes_the_conv_summand)
{
	static const struct {
		const char *add_inputs;
		bool late_reader;
		bool fused;
	} cases[] = {
		{ "cc,r", false, true },	/* r read by nothing after Conv cc */
		{ "r,cc", false, true },
		{ "cc,x", false, false },	/* a model input: the caller's bytes */
		{ "cc,r", true, false },	/* r read after Conv cc */
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct onnx_builder b;
		struct ir_graph *g = residual_graph(&b, cases[i].add_inputs, cases[i].late_reader);
		struct ir_node *cb;
		uint64_t ws, weights;

		ASSERT_EQ(0, g->err_code) TH_LOG("%s", g->err);
		EXPECT_EQ(!cases[i].fused, count_op(g, "Add")) TH_LOG("case %u", i);
		cb = g->nodes[2];
		ASSERT_EQ(0, strcmp(cb->op, "Conv"));
		if (cases[i].fused) {
			ASSERT_EQ(4, cb->num_in);
			EXPECT_EQ(ir_value_find(g, "r"), cb->in[3]);
			EXPECT_NE(NULL, cb->in[2]);	/* a zero bias before it */
			EXPECT_EQ(NPU_UNARY_RELU, cb->act.kind);
			EXPECT_EQ(ir_value_find(g, "y"), cb->out[0]);
			/* the summand and the sum in one layout, at one place */
			EXPECT_EQ(cb->in[3]->format, cb->out[0]->format);
			ASSERT_EQ(0, pass_memplan(g, &ws, &weights)) TH_LOG("%s", g->err);
			EXPECT_EQ(cb->in[3]->offset, cb->out[0]->offset);
			EXPECT_EQ(cb->in[3]->region, cb->out[0]->region);
		} else {
			EXPECT_EQ(2, cb->num_in);
		}
		ir_graph_free(g);
		ob_free(&b);
	}
}

/* A Conv that reads the summand itself must not overwrite it. */
TEST(residual_add_over_the_conv_input_stays)
{
	static const int64_t dx[] = { 1, 16, 8, 8 }, dw[] = { 16, 16, 3, 3 };
	struct onnx_builder b;
	struct ir_graph *g;
	Onnx__NodeProto *n;

	ob_init(&b, 11);
	ob_input(&b, "x", 4, dx);
	ob_f32(&b, "w", 4, dw, NULL);
	ob_node(&b, "Relu", "rx", "x", "r");
	n = ob_node(&b, "Conv", "c", "r,w", "c");
	ob_attr_ints(&b, n, "pads", 4, 1, 1, 1, 1);
	ob_node(&b, "Add", "add", "c,r", "s");
	ob_node(&b, "Sigmoid", "out", "s", "y");
	ob_output(&b, "y");
	g = build(&b, NULL, NULL);
	ASSERT_EQ(0, g->err_code) TH_LOG("%s", g->err);
	EXPECT_EQ(1, count_op(g, "Add"));
	ir_graph_free(g);
	ob_free(&b);
}

/* A chain of convolutions with a skip, a view and two outputs. */
static void planning_model(struct onnx_builder *b)
{
	static const int64_t dx[] = { 1, 16, 16, 16 }, dw[] = { 16, 16, 3, 3 };
	static const int64_t shape[] = { 1, -1 };
	char name[32], in[64], out[32];
	Onnx__NodeProto *n;
	int i;

	ob_init(b, 11);
	ob_input(b, "x", 4, dx);
	ob_i64(b, "shape", 2, shape);
	for (i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "w%d", i);
		ob_f32(b, name, 4, dw, NULL);
		snprintf(in, sizeof(in), "%s,%s", i ? (i == 5 ? "sum" : out) : "x", name);
		snprintf(out, sizeof(out), "c%d", i);
		n = ob_node(b, "Conv", out, in, out);
		ob_attr_ints(b, n, "pads", 4, 1, 1, 1, 1);
		if (i == 4)
			ob_node(b, "Add", "add", "c4,c1", "sum");
	}
	ob_node(b, "Reshape", "flat", "c7,shape", "flat");
	ob_node(b, "Sigmoid", "sig", "flat", "y");
	ob_node(b, "Identity", "id", "x", "x_copy");
	ob_output(b, "y");
	ob_output(b, "x_copy");
}

TEST(memory_plan_shares_without_overlap)
{
	/* the weights as the file has them: none packed at load */
	struct npucc_options opts = { .plain_layout = 0, .no_pack = 1 };
	struct onnx_builder b;
	struct ir_graph *g;
	uint64_t ws, weights, sum = 0;
	int i, j, copies = 0;

	planning_model(&b);
	g = build(&b, NULL, &opts);
	ASSERT_EQ(0, g->err_code) TH_LOG("%s", g->err);
	ASSERT_EQ(0, pass_memplan(g, &ws, &weights)) TH_LOG("%s", g->err);
	/* and the zero bias of c4, which took the residual Add as its summand */
	EXPECT_EQ(8 * 16 * 16 * 9 * 4 + 16 * 4, weights);
	EXPECT_EQ(0, count_op(g, "Add"));
	EXPECT_EQ(ir_value_find(g, "c1"), ir_value_find(g, "sum")->alias);
	EXPECT_EQ(ir_value_find(g, "c1")->offset, ir_value_find(g, "sum")->offset);
	for (i = 0; i < g->num_values; i++) {
		const struct ir_value *a = g->values[i];
		uint64_t asize = ir_numel(a) * 4;

		if (a->region != 1 || a->alias)
			continue;
		sum += asize;
		EXPECT_LE(a->offset + asize, ws);
		for (j = 0; j < i; j++) {
			const struct ir_value *c = g->values[j];
			uint64_t csize = ir_numel(c) * 4;

			if (c->region != 1 || c->alias)
				continue;
			if (a->live_end < c->live_begin || c->live_end < a->live_begin)
				continue;
			EXPECT_TRUE(a->offset + asize <= c->offset || c->offset + csize <= a->offset)
				TH_LOG("'%s' and '%s' are live together and overlap", a->name, c->name);
		}
	}
	EXPECT_LT(ws, sum);
	/* The Reshape aliases c7; y (Sigmoid) writes the output buffer. */
	EXPECT_EQ(ir_value_find(g, "c7"), ir_value_find(g, "flat")->alias);
	EXPECT_EQ(ir_value_find(g, "c7")->offset, ir_value_find(g, "flat")->offset);
	/* An output that is a model input gets a copy. */
	for (i = 0; i < g->num_nodes; i++)
		copies += g->nodes[i]->copy;
	EXPECT_EQ(1, copies);
	EXPECT_EQ(2 + 1 + 1, g->outputs[1]->region);	/* input 0, then output 1 */
	ir_graph_free(g);
	ob_free(&b);
}

TEST(output_view_of_activation_is_written_in_place)
{
	static const int64_t dx[] = { 2, 3, 4 };
	struct onnx_builder b;
	struct npucc_result res;
	struct ir_graph *g;
	uint64_t ws, weights;
	Onnx__NodeProto *n;

	ob_init(&b, 11);
	ob_input(&b, "x", 3, dx);
	ob_node(&b, "Relu", "relu", "x", "r");
	n = ob_node(&b, "Flatten", "flat", "r", "y");
	ob_attr_i(&b, n, "axis", 1);
	ob_output(&b, "y");
	g = build(&b, NULL, NULL);
	ASSERT_EQ(0, pass_memplan(g, &ws, &weights)) TH_LOG("%s", g->err);
	EXPECT_EQ(0, ws);
	EXPECT_EQ(3, ir_value_find(g, "r")->region);	/* output 0 */
	ir_graph_free(g);
	ASSERT_EQ(0, compile(&b, NULL, &res)) TH_LOG("%s", res.message);
	EXPECT_EQ(1, res.stats.num_ops);
	EXPECT_EQ(NULL, om_check(res.om, res.om_size));
	npucc_result_free(&res);
	ob_free(&b);
}

/* What the card runs as several operators is split before planning. */
TEST(legalize_splits_for_the_card)
{
	static const int64_t dx[] = { 2, 3, 4 }, ds[] = { 3, 1 }, d0[] = { 0 };
	char names[256] = "", one[16];
	struct onnx_builder b;
	struct ir_graph *g;
	Onnx__NodeProto *n;
	int i;

	ob_init(&b, 13);
	ob_input(&b, "x", 3, dx);
	ob_input(&b, "lo", 0, d0);
	ob_input(&b, "hi", 0, d0);
	ob_f32(&b, "slope", 2, ds, NULL);
	ob_node(&b, "Max", "max3", "x,x,x", "m");
	ob_node(&b, "Clip", "clip", "m,lo,hi", "c");
	ob_node(&b, "PRelu", "prelu", "c,slope", "p");
	for (i = 0; i < 17; i++) {
		snprintf(one, sizeof(one), "%sp", i ? "," : "");
		strcat(names, one);
	}
	n = ob_node(&b, "Concat", "cat", names, "y");
	ob_attr_i(&b, n, "axis", 1);
	ob_output(&b, "y");
	g = build(&b, NULL, NULL);
	ASSERT_EQ(0, g->err_code) TH_LOG("%s", g->err);
	EXPECT_EQ(0, count_op(g, "Clip") + count_op(g, "PRelu"));
	EXPECT_EQ(2 + 1 + 1, count_op(g, "Max"));	/* Max of 3, Clip's, PRelu's */
	EXPECT_EQ(1 + 1, count_op(g, "Min"));
	EXPECT_EQ(1, count_op(g, "Mul"));
	EXPECT_EQ(1, count_op(g, "Add"));
	EXPECT_EQ(2, count_op(g, "Concat"));
	for (i = 0; i < g->num_nodes; i++)
		EXPECT_GE(NPU_OP_MAX_TENSORS - 1, g->nodes[i]->num_in);
	expect_dims(_metadata, ir_value_find(g, "y"), 3, (const int64_t[]){ 2, 51, 4 });
	ir_graph_free(g);
	ob_free(&b);
}

/* Opset 6's Add aligns B at @axis when broadcast=1; opset 7 has no such attribute. */
TEST(legacy_broadcast_before_opset_7)
{
	static const int64_t dx[] = { 2, 3, 4, 5 }, dc[] = { 3 };
	struct onnx_builder b;
	struct npucc_result res;
	Onnx__NodeProto *n;
	int opset;

	for (opset = 6; opset <= 7; opset++) {
		ob_init(&b, opset);
		ob_input(&b, "x", 4, dx);
		ob_f32(&b, "bias", 1, dc, NULL);
		n = ob_node(&b, "Add", "add", "x,bias", "y");
		ob_attr_i(&b, n, "broadcast", 1);
		ob_attr_i(&b, n, "axis", 1);
		ob_output(&b, "y");
		if (opset == 6) {
			ASSERT_EQ(0, compile(&b, NULL, &res)) TH_LOG("%s", res.message);
			EXPECT_EQ(NULL, om_check(res.om, res.om_size));
			npucc_result_free(&res);
		} else {
			EXPECT_EQ(NPUCC_E_UNSUPPORTED_ATTR, compile(&b, NULL, &res));
		}
		ob_free(&b);
	}
}

/*
 * Opset 1's GlobalAveragePool is opset 6's: such a model compiles.  Its
 * Relu had consumed_inputs until opset 6, so a model with one does not.
 */
TEST(opset_1_compiles_when_its_operators_are_unchanged)
{
	static const int64_t dx[] = { 1, 3, 5, 5 };
	struct onnx_builder b;
	struct npucc_result res;

	ob_init(&b, 1);
	ob_input(&b, "x", 4, dx);
	ob_node(&b, "GlobalAveragePool", "pool", "x", "y");
	ob_output(&b, "y");
	ASSERT_EQ(0, compile(&b, NULL, &res)) TH_LOG("%s", res.message);
	EXPECT_EQ(NULL, om_check(res.om, res.om_size));
	npucc_result_free(&res);
	ob_free(&b);

	ob_init(&b, 1);
	ob_input(&b, "x", 4, dx);
	ob_node(&b, "GlobalAveragePool", "pool", "x", "p");
	ob_node(&b, "Relu", "relu", "p", "y");
	ob_output(&b, "y");
	EXPECT_EQ(NPUCC_E_UNSUPPORTED_OP, compile(&b, NULL, &res));
	EXPECT_NE(NULL, strstr(res.message, "opset 1 is not supported for Relu"))
		TH_LOG("%s", res.message);
	ob_free(&b);
}

/*
 * Split runs as a Slice per output; LayerNormalization's Mean and
 * InvStdDev outputs as the reductions and elementwise ops that define them.
 */
TEST(split_and_layernorm_statistics_become_card_operators)
{
	static const int64_t dx[] = { 5, 4 }, sizes[] = { 2, 3 }, da[] = { 2, 4 }, db[] = { 3, 4 };
	static const int64_t dl[] = { 2, 3, 4 }, dp[] = { 4 }, dstat[] = { 2, 3, 1 };
	struct onnx_builder b;
	struct npucc_result res;
	struct ir_graph *g;
	Onnx__NodeProto *n;

	ob_init(&b, 13);
	ob_input(&b, "x", 2, dx);
	ob_i64(&b, "split", 2, sizes);
	ob_node(&b, "Split", "split", "x,split", "a,b");
	ob_output(&b, "a");
	ob_output(&b, "b");
	g = build(&b, NULL, NULL);
	ASSERT_EQ(0, g->err_code) TH_LOG("%s", g->err);
	EXPECT_EQ(0, count_op(g, "Split"));
	EXPECT_EQ(2, count_op(g, "Slice"));
	expect_dims(_metadata, ir_value_find(g, "a"), 2, da);
	expect_dims(_metadata, ir_value_find(g, "b"), 2, db);
	ir_graph_free(g);
	ASSERT_EQ(0, compile(&b, NULL, &res)) TH_LOG("%s", res.message);
	EXPECT_EQ(NULL, om_check(res.om, res.om_size));
	npucc_result_free(&res);
	ob_free(&b);

	ob_init(&b, 17);
	ob_input(&b, "x", 3, dl);
	ob_f32(&b, "scale", 1, dp, NULL);
	ob_f32(&b, "bias", 1, dp, NULL);
	n = ob_node(&b, "LayerNormalization", "ln", "x,scale,bias", "y,mean,inv");
	ob_attr_i(&b, n, "axis", -1);
	ob_output(&b, "y");
	ob_output(&b, "mean");
	ob_output(&b, "inv");
	g = build(&b, NULL, NULL);
	ASSERT_EQ(0, g->err_code) TH_LOG("%s", g->err);
	EXPECT_EQ(1, count_op(g, "LayerNormalization"));
	EXPECT_EQ(2, count_op(g, "ReduceMean"));
	EXPECT_EQ(1, count_op(g, "Div"));
	expect_dims(_metadata, ir_value_find(g, "mean"), 3, dstat);
	expect_dims(_metadata, ir_value_find(g, "inv"), 3, dstat);
	ir_graph_free(g);
	ASSERT_EQ(0, compile(&b, NULL, &res)) TH_LOG("%s", res.message);
	EXPECT_EQ(NULL, om_check(res.om, res.om_size));
	npucc_result_free(&res);
	ob_free(&b);
}

/* ReduceL2, Mean, Selu and Softsign run as the card operators that define them. */
TEST(composite_operators_become_card_operators)
{
	static const int64_t dx[] = { 3, 4 }, dr[] = { 3, 1 };
	struct onnx_builder b;
	struct npucc_result res;
	struct ir_graph *g;
	Onnx__NodeProto *n;
	int i, elu;

	ob_init(&b, 13);
	ob_input(&b, "x", 2, dx);
	n = ob_node(&b, "ReduceL2", "l2", "x", "r");
	ob_attr_ints(&b, n, "axes", 1, 1);
	ob_node(&b, "Mean", "mean", "x,x,x", "m");
	ob_node(&b, "Selu", "selu", "m", "s");
	ob_node(&b, "Softsign", "softsign", "s", "y");
	ob_output(&b, "r");
	ob_output(&b, "y");
	g = build(&b, NULL, NULL);
	ASSERT_EQ(0, g->err_code) TH_LOG("%s", g->err);
	EXPECT_EQ(1, count_op(g, "ReduceSum"));
	EXPECT_EQ(0, count_op(g, "ReduceL2"));
	EXPECT_EQ(2, count_op(g, "Sum"));
	/* Elu: a node of its own, or fused into the Div that computes Mean. */
	for (i = 0, elu = 0; i < g->num_nodes; i++)
		elu += !strcmp(g->nodes[i]->op, "Elu") || g->nodes[i]->act.kind == NPU_UNARY_ELU;
	EXPECT_EQ(1, elu);
	EXPECT_EQ(0, count_op(g, "Selu") + count_op(g, "Mean") + count_op(g, "Softsign"));
	EXPECT_EQ(2, count_op(g, "Div"));
	expect_dims(_metadata, ir_value_find(g, "r"), 2, dr);
	expect_dims(_metadata, ir_value_find(g, "y"), 2, dx);
	ir_graph_free(g);
	ASSERT_EQ(0, compile(&b, NULL, &res)) TH_LOG("%s", res.message);
	EXPECT_EQ(NULL, om_check(res.om, res.om_size));
	npucc_result_free(&res);
	ob_free(&b);
}

TEST(unsupported_operator_is_named)
{
	static const int64_t dx[] = { 4, 4 };
	struct onnx_builder b;
	struct npucc_result res;

	ob_init(&b, 11);
	ob_input(&b, "x", 2, dx);
	ob_node(&b, "Relu", "r", "x", "r");
	ob_node(&b, "NonZero", "find_them", "r", "y");
	ob_output(&b, "y");
	EXPECT_EQ(NPUCC_E_UNSUPPORTED_OP, compile(&b, NULL, &res));
	EXPECT_NE(NULL, strstr(res.message, "find_them")) TH_LOG("%s", res.message);
	EXPECT_NE(NULL, strstr(res.message, "NonZero")) TH_LOG("%s", res.message);
	EXPECT_EQ(NULL, res.om);
	ob_free(&b);
}

/* x [2,3] -> Conv-free chain: Mul by w, Relu, Softmax(axis 1): the same as ONNX and as a graph spec. */
TEST(graph_spec_compiles_as_the_same_onnx)
{
	static const int64_t dx[] = { 2, 3 }, dw[] = { 3 };
	static const float w[] = { 0.5f, -2.0f, 1.5f };
	static const char *const mul_in[] = { "x", "w" }, *const mul_out[] = { "m" };
	static const char *const relu_in[] = { "m" }, *const relu_out[] = { "r" };
	static const char *const sm_in[] = { "r" }, *const sm_out[] = { "y" };
	static const char *const outputs[] = { "y" };
	struct npucc_spec_attr axis = { .name = "axis", .type = NPUCC_ATTR_INT, .i = 1 };
	struct npucc_spec_tensor input = { .name = "x", .dtype = 1, .rank = 2, .dims = dx };
	struct npucc_spec_tensor weight = { .name = "w", .dtype = 1, .rank = 1, .dims = dw,
					    .data = w, .size = sizeof(w) };
	struct npucc_spec_node nodes[] = {
		{ .name = "mul", .op = "Mul", .num_in = 2, .num_out = 1, .in = mul_in, .out = mul_out },
		{ .name = "relu", .op = "Relu", .num_in = 1, .num_out = 1, .in = relu_in, .out = relu_out },
		{ .name = "sm", .op = "Softmax", .num_in = 1, .num_out = 1, .in = sm_in, .out = sm_out,
		  .num_attrs = 1, .attrs = &axis },
	};
	struct npucc_spec spec = {
		.opset = 13, .num_inputs = 1, .num_consts = 1, .num_nodes = 3, .num_outputs = 1,
		.inputs = &input, .consts = &weight, .nodes = nodes, .outputs = outputs,
	};
	struct npucc_options opts = { .log_level = NPUCC_LOG_NULL };
	struct npucc_result from_onnx, from_spec;
	struct onnx_builder b;
	Onnx__NodeProto *sm;

	ob_init(&b, 13);
	ob_f32(&b, "w", 1, dw, w);
	ob_input(&b, "x", 2, dx);
	ob_node(&b, "Mul", "mul", "x,w", "m");
	ob_node(&b, "Relu", "relu", "m", "r");
	sm = ob_node(&b, "Softmax", "sm", "r", "y");
	ob_attr_i(&b, sm, "axis", 1);
	ob_output(&b, "y");
	ASSERT_EQ(NPUCC_OK, compile(&b, NULL, &from_onnx)) TH_LOG("%s", from_onnx.message);
	ASSERT_EQ(NPUCC_OK, npucc_compile_spec(&spec, &opts, &from_spec)) TH_LOG("%s", from_spec.message);
	EXPECT_EQ(NULL, om_check(from_spec.om, from_spec.om_size));
	ASSERT_EQ(from_onnx.om_size, from_spec.om_size);
	EXPECT_EQ(0, memcmp(from_onnx.om, from_spec.om, from_spec.om_size));
	EXPECT_EQ(from_onnx.stats.num_ops, from_spec.stats.num_ops);
	npucc_result_free(&from_onnx);
	npucc_result_free(&from_spec);
	ob_free(&b);

	/* An input no value defines, a constant of the wrong size, an op the card has not. */
	{
		static const char *const bad_in[] = { "nowhere" };

		nodes[1].in = bad_in;
		EXPECT_EQ(NPUCC_E_INVALID_MODEL, npucc_compile_spec(&spec, &opts, &from_spec));
		EXPECT_NE(NULL, strstr(from_spec.message, "'relu'")) TH_LOG("%s", from_spec.message);
		EXPECT_NE(NULL, strstr(from_spec.message, "nowhere")) TH_LOG("%s", from_spec.message);
		EXPECT_EQ(NULL, from_spec.om);
		nodes[1].in = relu_in;
	}
	weight.size = 8;
	EXPECT_EQ(NPUCC_E_INVALID_MODEL, npucc_compile_spec(&spec, &opts, &from_spec));
	EXPECT_NE(NULL, strstr(from_spec.message, "'w'")) TH_LOG("%s", from_spec.message);
	weight.size = sizeof(w);
	nodes[1].op = "NonZero";
	EXPECT_EQ(NPUCC_E_UNSUPPORTED_OP, npucc_compile_spec(&spec, &opts, &from_spec));
	EXPECT_NE(NULL, strstr(from_spec.message, "relu")) TH_LOG("%s", from_spec.message);
	EXPECT_EQ(NPUCC_E_INVALID_MODEL, npucc_compile_spec(NULL, &opts, &from_spec));
}

TEST(unsupported_attributes_are_named)
{
	static const int64_t dx[] = { 1, 1, 4, 4 };
	static const float scales[] = { 1, 1, 2, 2 };
	static const int64_t ds[] = { 4 };
	struct onnx_builder b;
	struct npucc_result res;
	Onnx__NodeProto *n;

	ob_init(&b, 13);
	ob_input(&b, "x", 4, dx);
	ob_f32(&b, "scales", 1, ds, scales);
	n = ob_node(&b, "Resize", "rs", "x,,scales", "y");
	ob_attr_s(&b, n, "mode", "cubic");
	ob_output(&b, "y");
	EXPECT_EQ(NPUCC_E_UNSUPPORTED_ATTR, compile(&b, NULL, &res));
	EXPECT_NE(NULL, strstr(res.message, "'rs' (Resize)")) TH_LOG("%s", res.message);
	EXPECT_NE(NULL, strstr(res.message, "cubic")) TH_LOG("%s", res.message);
	ob_free(&b);

	ob_init(&b, 13);
	ob_input(&b, "x", 4, dx);
	n = ob_node(&b, "Relu", "r", "x", "y");
	ob_attr_i(&b, n, "frobnicate", 1);
	ob_output(&b, "y");
	EXPECT_EQ(NPUCC_E_UNSUPPORTED_ATTR, compile(&b, NULL, &res));
	EXPECT_NE(NULL, strstr(res.message, "frobnicate")) TH_LOG("%s", res.message);
	ob_free(&b);

	ob_init(&b, 5);
	ob_input(&b, "x", 4, dx);
	ob_node(&b, "Relu", "r", "x", "y");
	ob_output(&b, "y");
	EXPECT_EQ(NPUCC_E_UNSUPPORTED_OP, compile(&b, NULL, &res));
	EXPECT_NE(NULL, strstr(res.message, "opset 5")) TH_LOG("%s", res.message);
	ob_free(&b);
}

TEST(malformed_models_are_errors)
{
	static const int64_t dx[] = { 2, 2 }, dw[] = { 3 };
	static const uint8_t junk[] = { 0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01 };
	struct onnx_builder b;
	struct npucc_result res;

	EXPECT_EQ(NPUCC_E_INVALID_MODEL, npucc_compile(junk, sizeof(junk), NULL, &res));
	EXPECT_EQ(NPUCC_E_INVALID_MODEL, npucc_compile(junk, 0, NULL, &res));
	EXPECT_EQ(NPUCC_E_IO, npucc_compile_file("/nonexistent.onnx", NULL, &res));

	ob_init(&b, 11);
	ob_input(&b, "x", 2, dx);
	ob_node(&b, "Relu", "r", "nosuch", "y");
	ob_output(&b, "y");
	EXPECT_EQ(NPUCC_E_INVALID_MODEL, compile(&b, NULL, &res));
	EXPECT_NE(NULL, strstr(res.message, "nosuch")) TH_LOG("%s", res.message);
	ob_free(&b);

	ob_init(&b, 11);	/* a cycle */
	ob_input(&b, "x", 2, dx);
	ob_node(&b, "Add", "a1", "x,t2", "t1");
	ob_node(&b, "Relu", "a2", "t1", "t2");
	ob_output(&b, "t2");
	EXPECT_EQ(NPUCC_E_INVALID_MODEL, compile(&b, NULL, &res));
	ob_free(&b);

	ob_init(&b, 11);	/* raw_data shorter than the shape */
	ob_input(&b, "x", 2, dx);
	ob_f32(&b, "w", 1, dw, NULL);
	b.inits[0]->raw_data.len = 8;
	ob_node(&b, "Add", "a", "x,w", "y");
	ob_output(&b, "y");
	EXPECT_EQ(NPUCC_E_INVALID_MODEL, compile(&b, NULL, &res));
	EXPECT_NE(NULL, strstr(res.message, "raw_data")) TH_LOG("%s", res.message);
	ob_free(&b);

	ob_init(&b, 11);	/* shapes that do not broadcast */
	ob_input(&b, "x", 2, dx);
	ob_f32(&b, "w", 1, dw, NULL);
	ob_node(&b, "Add", "a", "x,w", "y");
	ob_output(&b, "y");
	EXPECT_EQ(NPUCC_E_INVALID_MODEL, compile(&b, NULL, &res));
	ob_free(&b);
}

static uint64_t rng_state;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	struct stat st;

	if (!f)
		return NULL;
	if (fstat(fileno(f), &st) || st.st_size > (1 << 20)) {
		fclose(f);
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	*len = fread(buf, 1, (size_t)st.st_size, f);
	fclose(f);
	return buf;
}

/* Truncations and byte flips of real models: errors or good .om, never a crash. */
TEST(fuzz_truncated_and_corrupted_models)
{
	static const char *const corpus_tests[] = {
		"test_conv_with_strides_padding", "test_resize_upsample_scales_linear",
		"test_batchnorm_example", "test_gemm_all_attributes", "test_slice",
		"test_maxpool_2d_ceil", "test_reshape_negative_dim", "test_concat_3d_axis_0",
	};
	const char *iters_env = getenv("NPUCC_FUZZ_ITERS"), *seed_env = getenv("NPUCC_TEST_SEED");
	int iters = iters_env ? atoi(iters_env) : 3000, nfiles = 0, i, ok = 0, k;
	struct onnx_builder b;
	uint8_t *files[16], *buf;
	size_t lens[16];

	rng_state = seed_env ? strtoull(seed_env, NULL, 0) | 1 : 0x9e3779b97f4a7c15ULL;
	planning_model(&b);
	files[nfiles] = ob_pack(&b, &lens[nfiles]);
	nfiles++;
	ob_free(&b);
	flatten_chain_model(&b, 11);
	files[nfiles] = ob_pack(&b, &lens[nfiles]);
	nfiles++;
	ob_free(&b);
	for (k = 0; k < (int)(sizeof(corpus_tests) / sizeof(corpus_tests[0])); k++) {
		char path[256];

		snprintf(path, sizeof(path), ONNX_TESTDATA "/%s/model.onnx", corpus_tests[k]);
		files[nfiles] = read_file(path, &lens[nfiles]);
		nfiles += files[nfiles] != NULL;
	}
	for (i = 0; i < iters; i++) {
		int f = (int)(rng() % (uint64_t)nfiles), flips = (int)(rng() % 8);
		size_t len = lens[f];
		struct npucc_options opts = { .input_shape = f == 1 ? "x:2,3,8,8" : NULL,
					      .log_level = NPUCC_LOG_NULL };
		struct npucc_result res;

		buf = malloc(len + 1);
		memcpy(buf, files[f], len);
		if (!flips || rng() % 2)
			len = (size_t)(rng() % (len + 1));
		for (k = 0; k < flips && len; k++)
			buf[rng() % len] ^= (uint8_t)(1 + rng() % 255);
		if (!npucc_compile(buf, len, &opts, &res)) {
			const char *why = om_check(res.om, res.om_size);

			EXPECT_EQ(NULL, why) TH_LOG("iteration %d: %s", i, why);
			ok++;
		} else {
			EXPECT_EQ(NULL, res.om);
			EXPECT_NE(0, res.message[0]);
		}
		npucc_result_free(&res);
		free(buf);
	}
	TH_LOG("%d of %d mutated models compiled", ok, iters);
	for (i = 0; i < nfiles; i++)
		free(files[i]);
}

TEST(om_files_pass_the_format_checks)
{
	struct onnx_builder b;
	struct npucc_result res;
	uint8_t *bad;
	const struct om_header *h;
	const struct om_op_record *r;
	int i;

	planning_model(&b);
	ASSERT_EQ(0, compile(&b, NULL, &res)) TH_LOG("%s", res.message);
	ob_free(&b);
	ASSERT_EQ(NULL, om_check(res.om, res.om_size));
	h = res.om;
	EXPECT_EQ(10, le32toh(h->num_ops));	/* 8 Conv (one with the Add), Sigmoid, the copy */
	/*
	 * the weights of the 3x3 Convs from and into NCHW16C: not the first's
	 * (the plain input), nor the last's (the Reshape reads it plain)
	 */
	EXPECT_EQ(6, le32toh(h->num_load_ops));
	EXPECT_EQ(1, le32toh(h->num_inputs));
	EXPECT_EQ(2, le32toh(h->num_outputs));
	EXPECT_EQ(res.stats.workspace_size, le64toh(h->workspace_size));
	r = (const void *)((const uint8_t *)res.om + le64toh(h->program_offset));
	EXPECT_EQ(NPU_OPERATOR_PACK_CONV2D, le16toh(r->desc.kind));
	EXPECT_EQ(1, r->desc.num_inputs);
	EXPECT_EQ(0, r->region[0]);
	EXPECT_EQ(0, r->region[1]);
	EXPECT_EQ(NPU_FORMAT_STRIDED, le16toh(r->desc.tensors[0].format));
	EXPECT_EQ(NPU_FORMAT_PACKED, le16toh(r->desc.tensors[1].format));
	EXPECT_EQ(NPU_FORMAT_NCHW16C, le16toh(r->desc.attrs.pack_conv.x_format));
	EXPECT_EQ(0, r->desc.attrs.pack_conv.flags);	/* c1: no bias, no summand */
	for (i = 0; i < 6; i++)
		r = (const void *)((const uint8_t *)r + le32toh(r->size));
	EXPECT_EQ(NPU_OPERATOR_CONV2D, le16toh(r->desc.kind));
	EXPECT_EQ(2, r->desc.num_inputs);
	EXPECT_EQ(1, r->desc.num_outputs);
	EXPECT_EQ(2, r->region[0]);		/* x */
	EXPECT_EQ(0, r->region[1]);		/* weights */
	EXPECT_EQ(1, r->region[2]);		/* workspace */
	EXPECT_EQ(NPU_FORMAT_NCHW16C, le16toh(r->desc.tensors[2].format));
	EXPECT_EQ(NPU_FORMAT_STRIDED, le16toh(r->desc.tensors[0].format));
	EXPECT_EQ(1, le32toh(r->desc.attrs.conv.pads_begin[0]));

	/* The checker itself notices what it is there to notice. */
	bad = malloc(res.om_size);
	memcpy(bad, res.om, res.om_size);
	bad[0] ^= 1;
	EXPECT_STREQ("magic", om_check(bad, res.om_size));
	EXPECT_STREQ("file_size", om_check(res.om, res.om_size - 64));
	memcpy(bad, res.om, res.om_size);
	((struct om_op_record *)(bad + le64toh(h->program_offset)))->desc.tensors[0].dims[0] =
		htole64(1000);
	EXPECT_STREQ("a tensor's extent overruns its region", om_check(bad, res.om_size));
	memcpy(bad, res.om, res.om_size);
	((struct om_op_record *)(bad + le64toh(h->program_offset)))->region[1] = 1;
	EXPECT_STREQ("a load-time operator's tensor outside the weights",
		     om_check(bad, res.om_size));
	free(bad);
	npucc_result_free(&res);
}

TEST(output_type_fp16_appends_casts)
{
	static const int64_t dx[] = { 2, 3 };
	struct npucc_options opts = { .output_type = "FP16" };
	struct onnx_builder b;
	struct ir_graph *g;

	ob_init(&b, 11);
	ob_input(&b, "x", 2, dx);
	ob_node(&b, "Relu", "r", "x", "y");
	ob_output(&b, "y");
	g = build(&b, NULL, &opts);
	ASSERT_EQ(0, g->err_code) TH_LOG("%s", g->err);
	EXPECT_EQ(1, count_op(g, "Cast"));
	EXPECT_EQ(IR_FLOAT16, g->outputs[0]->dtype);
	EXPECT_STREQ("y", g->outputs[0]->name);
	ir_graph_free(g);
	opts.output_type = "INT4";
	g = build(&b, NULL, &opts);
	EXPECT_EQ(NPUCC_E_OPTION, g->err_code);
	ir_graph_free(g);
	ob_free(&b);
}

TEST_HARNESS_MAIN
