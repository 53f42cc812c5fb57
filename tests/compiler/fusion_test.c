// SPDX-License-Identifier: MIT
/*
 * Host tests of the fusions PP-OCRv4's networks need (affine_fold.c,
 * hswish.c) and of what atc reports about a program (report.c): the
 * graph's structure and the folded constants, computed here again.  The
 * networks' numbers are checked end to end against onnxruntime
 * (tests/onnx).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wclobbered"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include "kselftest_harness.h"

#include "ir.h"
#include "npu_operator.h"
#include "onnx_builder.h"
#include "graph_build.h"

static const int64_t dx[] = { 1, 3, 8, 8 }, dw[] = { 8, 3, 3, 3 }, d8[] = { 8 };
static const int64_t dper[] = { 1, 8, 1, 1 };

static double init_f(struct onnx_builder *b, const char *name, int i)
{
	size_t k;

	for (k = 0; k < b->graph.n_initializer; k++)
		if (!strcmp(b->inits[k]->name, name))
			return ((float *)b->inits[k]->raw_data.data)[i];
	return NAN;
}

/* Conv -> Mul by one number per channel -> Add of one number: PP-LCNetV3's affine block. */
static void conv_affine(struct onnx_builder *b, bool share_conv_output)
{
	static const float shift = 0.25f;

	ob_init(b, 11);
	ob_input(b, "x", 4, dx);
	ob_f32(b, "w", 4, dw, NULL);
	ob_f32(b, "bias", 1, d8, NULL);
	ob_f32(b, "scale", 4, dper, NULL);
	ob_f32(b, "shift", 0, NULL, &shift);
	ob_node(b, "Conv", "conv", "x,w,bias", "c");
	ob_node(b, "Mul", "mul", "scale,c", "m");
	ob_node(b, "Add", "add", "m,shift", "y");
	ob_output(b, "y");
	if (share_conv_output) {
		ob_node(b, "Sigmoid", "other", "c", "z");
		ob_output(b, "z");
	}
}

TEST(affine_mul_and_add_fold_into_conv)
{
	struct onnx_builder b;
	struct ir_graph *g;
	struct ir_node *conv;
	double s, expect;
	int o;

	conv_affine(&b, false);
	g = build(&b, NULL, NULL);
	ASSERT_EQ(0, g->err_code) TH_LOG("%s", g->err);
	ASSERT_EQ(1, g->num_nodes);
	conv = g->nodes[0];
	ASSERT_STREQ("Conv", conv->op);
	EXPECT_STREQ("y", conv->out[0]->name);
	ASSERT_EQ(3, conv->num_in);
	EXPECT_STRNE("w", conv->in[1]->name);	/* new weights, the old kept intact */
	/* w' = w * s, b' = b * s + shift */
	for (o = 0; o < 8; o++) {
		s = init_f(&b, "scale", o);
		expect = init_f(&b, "w", o * 27 + 7) * s;
		EXPECT_LT(fabs(ir_get_f64(conv->in[1], o * 27 + 7) - expect), 1e-6);
		expect = init_f(&b, "bias", o) * s + 0.25;
		EXPECT_LT(fabs(ir_get_f64(conv->in[2], o) - expect), 1e-6);
	}
	ir_graph_free(g);
	ob_free(&b);
}

TEST(affine_stays_when_conv_output_is_shared)
{
	struct onnx_builder b;
	struct ir_graph *g;

	conv_affine(&b, true);
	g = build(&b, NULL, NULL);
	ASSERT_EQ(0, g->err_code) TH_LOG("%s", g->err);
	EXPECT_EQ(1, count_op(g, "Mul"));
	EXPECT_EQ(1, count_op(g, "Add"));
	EXPECT_STREQ("w", find_op(g, "Conv")->in[1]->name);
	ir_graph_free(g);
	ob_free(&b);
}

/* A Mul by a constant that varies along another axis than the channels. */
TEST(affine_not_per_channel_stays)
{
	static const int64_t drow[] = { 1, 1, 6, 1 };
	struct onnx_builder b;
	struct ir_graph *g;

	ob_init(&b, 11);
	ob_input(&b, "x", 4, dx);
	ob_f32(&b, "w", 4, dw, NULL);
	ob_f32(&b, "rows", 4, drow, NULL);
	ob_node(&b, "Conv", "conv", "x,w", "c");
	ob_node(&b, "Mul", "mul", "c,rows", "y");
	ob_output(&b, "y");
	g = build(&b, NULL, NULL);
	ASSERT_EQ(0, g->err_code) TH_LOG("%s", g->err);
	EXPECT_EQ(2, g->num_nodes);
	EXPECT_EQ(1, count_op(g, "Mul"));
	ir_graph_free(g);
	ob_free(&b);
}

/* x * Clip(x + three, 0, 6) then / 6 or * 1/6, as Paddle exports hard-swish. */
static void paddle_hardswish(struct onnx_builder *b, float three, bool div)
{
	static const float zero = 0, six = 6, sixth = 1.0f / 6;

	ob_init(b, 11);
	ob_input(b, "x", 4, dx);
	ob_f32(b, "w", 4, dw, NULL);
	ob_f32(b, "three", 0, NULL, &three);
	ob_f32(b, "zero", 0, NULL, &zero);
	ob_f32(b, "six", 0, NULL, &six);
	ob_f32(b, "sixth", 0, NULL, &sixth);
	ob_node(b, "Conv", "conv", "x,w", "c");
	ob_node(b, "Add", "add", "c,three", "a");
	ob_node(b, "Clip", "clip", "a,zero,six", "r");
	ob_node(b, "Mul", "mul", "c,r", "m");
	if (div)
		ob_node(b, "Div", "div", "m,six", "y");
	else
		ob_node(b, "Mul", "scale", "sixth,m", "y");
	ob_output(b, "y");
}

TEST(paddle_hardswish_becomes_one_node)
{
	struct onnx_builder b;
	struct ir_graph *g;
	int div;

	for (div = 0; div < 2; div++) {
		paddle_hardswish(&b, 3, div);
		g = build(&b, NULL, NULL);
		ASSERT_EQ(0, g->err_code) TH_LOG("%s", g->err);
		ASSERT_EQ(2, g->num_nodes);
		EXPECT_STREQ("Conv", g->nodes[0]->op);
		EXPECT_STREQ("HardSwish", g->nodes[1]->op);
		EXPECT_EQ(1, g->nodes[1]->num_in);
		EXPECT_EQ(g->nodes[0]->out[0], g->nodes[1]->in[0]);
		EXPECT_STREQ("y", g->nodes[1]->out[0]->name);
		ir_graph_free(g);
		ob_free(&b);
	}
}

/* x * Clip(x + 2, 0, 6) / 6 is not a hard-swish. */
TEST(paddle_hardswish_needs_its_constants)
{
	struct onnx_builder b;
	struct ir_graph *g;

	paddle_hardswish(&b, 2, true);
	g = build(&b, NULL, NULL);
	ASSERT_EQ(0, g->err_code) TH_LOG("%s", g->err);
	EXPECT_EQ(0, count_op(g, "HardSwish"));
	EXPECT_EQ(1, count_op(g, "Div"));
	ir_graph_free(g);
	ob_free(&b);
}

/*
 * x (3 channels, plain) -> Conv into 16 channels (NCHW16C) -> 1x1 Conv ->
 * y (a model output, plain): each Conv changes layout once, and the first
 * one's weights (3 input channels, not a block of 16) stay plain.
 */
TEST(reorders_are_counted)
{
	static const int64_t dw1[] = { 16, 3, 3, 3 }, dw2[] = { 16, 16, 1, 1 };
	struct npucc_options opts = { .log_level = NPUCC_LOG_NULL };
	struct npucc_result res;
	struct onnx_builder b;
	uint8_t *buf;
	size_t len;

	ob_init(&b, 11);
	ob_input(&b, "x", 4, dx);
	ob_f32(&b, "w1", 4, dw1, NULL);
	ob_f32(&b, "w2", 4, dw2, NULL);
	ob_node(&b, "Conv", "conv1", "x,w1", "c");
	ob_node(&b, "Conv", "conv2", "c,w2", "y");
	ob_output(&b, "y");
	buf = ob_pack(&b, &len);
	ASSERT_EQ(0, npucc_compile(buf, len, &opts, &res)) TH_LOG("%s", res.message);
	EXPECT_EQ(2, res.stats.num_ops);
	EXPECT_EQ(2, res.stats.num_reorders);
	EXPECT_EQ(1, res.stats.num_weight_reorders);
	npucc_result_free(&res);
	free(buf);
	ob_free(&b);
}

TEST_HARNESS_MAIN
