// SPDX-License-Identifier: MIT
/*
 * libge_runner in the guest: the network of make_net.py built op by op
 * with the builders and parsed from its ONNX file give what aclmdlExecute
 * of atc's .om gives and what onnxruntime gave on the host
 * (tests/graph/prepare.sh, build/graph-net); RunGraphAsync's callback;
 * RunGraphWithStreamAsync ordered with copies and events on one stream
 * and across two; sessions in concurrent threads; GEInitialize's
 * reference count, the options, and the error paths.
 */
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>
#include <thread>

#include "acl.h"
#include "all_ops.h"
#include "ge_api.h"
#include "ge_test.h"
#include "parser/onnx_parser.h"

using namespace ge;

/* build/graph-net, next to this program's build/tests/graph. */
static std::string net_dir()
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	std::string p(exe, n > 0 ? (size_t)n : 0);

	for (int i = 0; i < 3; i++)
		p = p.substr(0, p.rfind('/'));
	return p + "/graph-net/";
}

static std::vector<uint8_t> read_file(const std::string &name)
{
	std::ifstream f(net_dir() + name, std::ios::binary);

	return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)),
				    std::istreambuf_iterator<char>());
}

static std::vector<float> floats(const std::vector<uint8_t> &b)
{
	std::vector<float> f(b.size() / 4);

	if (!f.empty())
		std::memcpy(f.data(), b.data(), f.size() * 4);
	return f;
}

static std::vector<float> floats(const Tensor &t)
{
	return floats(std::vector<uint8_t>(t.GetData(), t.GetData() + t.GetSize()));
}

static float max_diff(const std::vector<float> &a, const std::vector<float> &b)
{
	float m = a.size() == b.size() ? 0.0f : INFINITY;

	for (size_t i = 0; i < a.size() && i < b.size(); i++)
		m = std::fmax(m, std::fabs(a[i] - b[i]));
	return m;
}

static Tensor host_tensor(const std::vector<int64_t> &dims, const std::vector<uint8_t> &bytes,
			  DataType dt = DT_FLOAT)
{
	return Tensor(TensorDesc(Shape(dims), FORMAT_NCHW, dt), bytes);
}

static op::Const weight(const char *name, const std::vector<int64_t> &dims)
{
	return op::Const(name).set_attr_value(host_tensor(dims, read_file(std::string(name) + ".bin")));
}

/* make_net.py's network, op by op. */
static Graph net_graph()
{
	Graph g("net");
	TensorDesc x_desc(Shape({1, 3, 16, 16}), FORMAT_NCHW, DT_FLOAT);
	auto x = op::Data("x").set_attr_index(0);
	x.update_output_desc_y(x_desc);
	auto w1 = weight("w1", {8, 3, 3, 3});
	auto b1 = weight("b1", {8});
	auto w2 = weight("w2", {8, 8, 3, 3});
	auto w3 = weight("w3", {128, 10});
	auto b3 = weight("b3", {10});
	int32_t shape[2] = {1, 128};
	auto shape_c = op::Const("shape").set_attr_value(
		host_tensor({2}, std::vector<uint8_t>((uint8_t *)shape, (uint8_t *)shape + 8), DT_INT32));

	auto conv1 = op::Conv2D("conv1").set_input_x(x).set_input_filter(w1).set_input_bias(b1)
		.set_attr_strides({1, 1, 1, 1}).set_attr_pads({1, 1, 1, 1})
		.set_attr_data_format("NCHW");
	auto relu1 = op::Relu("relu1").set_input_x(conv1);
	auto pool1 = op::MaxPool("pool1").set_input_x(relu1).set_attr_ksize({1, 1, 2, 2})
		.set_attr_strides({1, 1, 2, 2}).set_attr_padding("VALID").set_attr_data_format("NCHW");
	auto conv2 = op::Conv2D("conv2").set_input_x(pool1).set_input_filter(w2)
		.set_attr_strides({1, 1, 1, 1}).set_attr_pads({1, 1, 1, 1})
		.set_attr_data_format("NCHW");
	auto sig2 = op::Sigmoid("sig2").set_input_x(conv2);
	auto pool2 = op::AvgPool("pool2").set_input_x(sig2).set_attr_ksize({1, 1, 2, 2})
		.set_attr_strides({1, 1, 2, 2}).set_attr_padding("VALID").set_attr_data_format("NCHW");
	auto flat = op::Reshape("flat").set_input_x(pool2).set_input_shape(shape_c);
	auto fc = op::BatchMatMul("fc").set_input_x1(flat).set_input_x2(w3);
	auto fc_bias = op::Add("fc_bias").set_input_x1(fc).set_input_x2(b3);
	auto prob = op::SoftmaxV2("prob").set_input_x(fc_bias).set_attr_axes({-1});
	g.SetInputs({x}).SetOutputs({prob});
	return g;
}

/* y = x * 2 + 1 over @n floats: runs chained on streams stay checkable. */
static Graph affine_graph(int64_t n, float scale = 2.0f, float shift = 1.0f)
{
	Graph g("affine");
	auto x = op::Data("x").set_attr_index(0);
	x.update_output_desc_y(TensorDesc(Shape({n}), FORMAT_ND, DT_FLOAT));
	std::vector<uint8_t> s(4), t(4);
	std::memcpy(s.data(), &scale, 4);
	std::memcpy(t.data(), &shift, 4);
	auto c2 = op::Const("scale").set_attr_value(host_tensor({1}, s));
	auto c1 = op::Const("shift").set_attr_value(host_tensor({1}, t));
	auto mul = op::Mul("mul").set_input_x1(x).set_input_x2(c2);
	auto add = op::Add("add").set_input_x1(mul).set_input_x2(c1);
	g.SetInputs({x}).SetOutputs({add});
	return g;
}

static std::vector<uint8_t> bytes_of(const std::vector<float> &f)
{
	return std::vector<uint8_t>((const uint8_t *)f.data(), (const uint8_t *)(f.data() + f.size()));
}

/* atc's .om of the same network through aclmdlExecute. */
static std::vector<float> om_result(const std::vector<uint8_t> &input)
{
	uint32_t id = 0;
	std::vector<float> out(10);
	void *din = nullptr, *dout = nullptr;

	if (aclmdlLoadFromFile((net_dir() + "net.om").c_str(), &id) != ACL_SUCCESS)
		return {};
	aclrtMalloc(&din, input.size(), ACL_MEM_MALLOC_HUGE_FIRST);
	aclrtMalloc(&dout, 40, ACL_MEM_MALLOC_HUGE_FIRST);
	aclrtMemcpy(din, input.size(), input.data(), input.size(), ACL_MEMCPY_HOST_TO_DEVICE);
	aclmdlDataset *in = aclmdlCreateDataset(), *o = aclmdlCreateDataset();
	aclDataBuffer *bi = aclCreateDataBuffer(din, input.size()), *bo = aclCreateDataBuffer(dout, 40);
	aclmdlAddDatasetBuffer(in, bi);
	aclmdlAddDatasetBuffer(o, bo);
	aclError ret = aclmdlExecute(id, in, o);
	aclrtMemcpy(out.data(), 40, dout, 40, ACL_MEMCPY_DEVICE_TO_HOST);
	aclDestroyDataBuffer(bi);
	aclDestroyDataBuffer(bo);
	aclmdlDestroyDataset(in);
	aclmdlDestroyDataset(o);
	aclrtFree(din);
	aclrtFree(dout);
	aclmdlUnload(id);
	return ret == ACL_SUCCESS ? out : std::vector<float>();
}

static const std::map<AscendString, AscendString> kNoOptions;

/* GE for one test, finalized whatever happens. */
struct GeScope {
	Status status;
	GeScope() : status(GEInitialize(std::map<AscendString, AscendString>{{"ge.exec.deviceId", "0"}})) {}
	~GeScope() { GEFinalize(); }
};

TEST(initialize_is_reference_counted)
{
	EXPECT_EQ(GE_CLI_GE_NOT_INITIALIZED, GEFinalize());
	EXPECT_TRUE(GEGetErrorMsg().find("not initialized") != std::string::npos);
	{
		Session early(kNoOptions);
		EXPECT_EQ(GE_CLI_GE_NOT_INITIALIZED, early.AddGraph(1, affine_graph(4)));
	}
	ASSERT_EQ(SUCCESS, GEInitialize(kNoOptions));
	ASSERT_EQ(SUCCESS, GEInitialize(std::map<std::string, std::string>{{"ge.graphRunMode", "0"}}));
	Session s(kNoOptions);
	EXPECT_EQ(SUCCESS, GEFinalize());
	/* One reference left: the session still works. */
	EXPECT_EQ(SUCCESS, s.AddGraph(1, affine_graph(4)));
	EXPECT_EQ(SUCCESS, GEFinalize());
	EXPECT_EQ(GE_CLI_GE_NOT_INITIALIZED, s.AddGraph(2, affine_graph(4)));
	EXPECT_EQ(GE_CLI_GE_NOT_INITIALIZED, s.BuildGraph(1, std::vector<Tensor>()));
	EXPECT_EQ(GE_CLI_GE_NOT_INITIALIZED, GEFinalize());
}

TEST(options_are_checked)
{
	EXPECT_EQ(PARAM_INVALID, GEInitialize(std::map<AscendString, AscendString>{{"ge.noSuchOption", "1"}}));
	EXPECT_TRUE(GEGetErrorMsg().find("ge.noSuchOption") != std::string::npos);
	EXPECT_EQ(PARAM_INVALID, GEInitialize(std::map<AscendString, AscendString>{{"ge.graphRunMode", "2"}}));
	EXPECT_EQ(GE_CLI_GE_NOT_INITIALIZED, GEFinalize());

	GeScope ge;
	ASSERT_EQ(SUCCESS, ge.status);
	Session bad(std::map<AscendString, AscendString>{{"ge.exec.noSuch", "x"}});
	EXPECT_TRUE(GEGetErrorMsg().find("ge.exec.noSuch") != std::string::npos);
	EXPECT_EQ(GE_CLI_SESS_CONSTRUCT_FAILED, bad.AddGraph(1, affine_graph(4)));
	Session good(std::map<AscendString, AscendString>{{"ge.exec.deviceId", "0"},
							  {"ge.exec.precision_mode", "force_fp32"},
							  {"ge.outputDatatype", "FP32"}});
	EXPECT_EQ(PARAM_INVALID, good.AddGraph(1, affine_graph(4),
			std::map<AscendString, AscendString>{{"ge.notAGraphOption", "1"}}));
	EXPECT_TRUE(GEGetErrorMsg().find("ge.notAGraphOption") != std::string::npos);
	EXPECT_EQ(SUCCESS, good.AddGraph(1, affine_graph(4)));
	EXPECT_EQ(SUCCESS, good.BuildGraph(1, std::vector<Tensor>()));
}

TEST(builders_declare_the_vendors_names)
{
	op::Conv2D conv("c");
	AscendString type, name;

	EXPECT_EQ(GRAPH_SUCCESS, conv.GetOpType(type));
	EXPECT_TRUE(type == "Conv2D");
	EXPECT_EQ(4U, conv.GetInputsSize());	/* x, filter, bias, offset_w */
	EXPECT_EQ(1U, conv.GetOutputsSize());
	EXPECT_TRUE(conv.get_attr_data_format() == "NHWC");
	EXPECT_TRUE(conv.get_attr_dilations() == std::vector<int64_t>({1, 1, 1, 1}));
	EXPECT_EQ(1, conv.get_attr_groups());
	conv.set_attr_groups(2).set_attr_pads({0, 1, 2, 3});
	EXPECT_EQ(2, conv.get_attr_groups());
	EXPECT_TRUE(conv.get_attr_pads() == std::vector<int64_t>({0, 1, 2, 3}));
	EXPECT_TRUE(std::string(op::Conv2D::name_in_filter()) == "filter");
	EXPECT_TRUE(std::string(op::SoftmaxV2::name_attr_axes()) == "axes");
	EXPECT_TRUE(op::SoftmaxV2("s").get_attr_axes() == std::vector<int64_t>({-1}));
	EXPECT_EQ(0, op::Data("d").get_attr_index());
	EXPECT_EQ(true, op::AvgPoolV2("p").get_attr_exclusive());

	op::ConcatD cat("cat");
	cat.create_dynamic_input_x(3);
	EXPECT_EQ(3U, cat.GetInputsSize());
	TensorDesc d(Shape({2, 3}), FORMAT_ND, DT_FLOAT);
	EXPECT_EQ(GRAPH_SUCCESS, cat.update_dynamic_input_desc_x(2, d));
	EXPECT_TRUE(cat.get_dynamic_input_desc_x(2).GetShape().GetDims() == std::vector<int64_t>({2, 3}));

	Graph g = net_graph();
	Operator found;
	std::vector<AscendString> names;
	EXPECT_EQ(GRAPH_SUCCESS, g.FindOpByName("conv2", found));
	EXPECT_EQ(GRAPH_SUCCESS, found.GetName(name));
	EXPECT_TRUE(name == "conv2");
	EXPECT_EQ(GRAPH_SUCCESS, g.GetAllOpName(names));
	EXPECT_EQ(17U, names.size());
}

TEST(built_and_parsed_match_om_and_onnxruntime)
{
	GeScope ge;
	std::vector<uint8_t> input = read_file("input.bin");
	std::vector<float> ort = floats(read_file("ort/output_0.bin"));
	std::vector<uint8_t> onnx = read_file("net.onnx");
	Graph parsed_file, parsed_mem;
	std::vector<Tensor> in = {host_tensor({1, 3, 16, 16}, input)}, out_built, out_file, out_mem;

	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	std::vector<float> om = om_result(input);
	ASSERT_EQ(10U, ort.size());
	ASSERT_EQ(10U, om.size());
	ASSERT_EQ(GRAPH_SUCCESS, aclgrphParseONNX((net_dir() + "net.onnx").c_str(), kNoOptions,
						  parsed_file));
	ASSERT_EQ(GRAPH_SUCCESS, aclgrphParseONNXFromMem((const char *)onnx.data(), onnx.size(),
							 kNoOptions, parsed_mem));
	Session s(kNoOptions);
	ASSERT_EQ(SUCCESS, s.AddGraph(1, net_graph()));
	ASSERT_EQ(SUCCESS, s.AddGraph(2, parsed_file));
	ASSERT_EQ(SUCCESS, s.AddGraph(3, parsed_mem));
	ASSERT_EQ(SUCCESS, s.BuildGraph(1, in));
	ASSERT_EQ(SUCCESS, s.RunGraph(1, in, out_built));
	ASSERT_EQ(SUCCESS, s.RunGraph(2, in, out_file));
	ASSERT_EQ(SUCCESS, s.RunGraph(3, in, out_mem));
	ASSERT_EQ(1U, out_built.size());
	EXPECT_TRUE(out_built[0].GetTensorDesc().GetShape().GetDims() == std::vector<int64_t>({1, 10}));
	EXPECT_EQ(DT_FLOAT, out_built[0].GetTensorDesc().GetDataType());
	/* The parsed model is atc's compile: the same bits. */
	EXPECT_EQ(0.0f, max_diff(floats(out_file[0]), om));
	EXPECT_EQ(0.0f, max_diff(floats(out_mem[0]), om));
	/* Built: MatMul and Add become one Gemm, whose sums may round apart. */
	EXPECT_LE(max_diff(floats(out_built[0]), om), 1e-6f);
	EXPECT_LE(max_diff(floats(out_built[0]), ort), 1e-5f);
	EXPECT_LE(max_diff(om, ort), 1e-5f);
	float sum = 0;
	for (float p : floats(out_built[0]))
		sum += p;
	EXPECT_LE(std::fabs(sum - 1.0f), 1e-5f);
	TH_LOG("largest difference from onnxruntime: built %g, parsed %g",
	       max_diff(floats(out_built[0]), ort), max_diff(floats(out_file[0]), ort));
	/* The models go with their graphs, before their device's last reset. */
	for (uint32_t id = 1; id <= 3; id++)
		EXPECT_EQ(SUCCESS, s.RemoveGraph(id));
	EXPECT_EQ(ACL_SUCCESS, aclrtResetDevice(0));
}

/* One builder's graph: inputs (dims, values), the operator over them, the expected output. */
struct OpCase {
	const char *name;
	std::vector<std::vector<int64_t>> dims;
	std::function<Operator(std::vector<op::Data> &)> build;
	std::function<std::vector<float>(const std::vector<std::vector<float>> &)> expect;
	std::vector<int64_t> out_dims;
};

static const std::vector<float> kA = {-2.5f, -1.0f, 0.0f, 0.5f, 1.5f, 3.0f};	/* [2,3] */
static const std::vector<float> kB = {0.5f, 2.0f, -1.5f};			/* [3] */

static std::vector<float> map1(const std::vector<float> &x, float (*f)(float))
{
	std::vector<float> y;

	for (float v : x)
		y.push_back(f(v));
	return y;
}

static std::vector<float> map2(const std::vector<float> &a, const std::vector<float> &b,
			       float (*f)(float, float))
{
	std::vector<float> y;

	for (size_t i = 0; i < a.size(); i++)
		y.push_back(f(a[i], b[i % b.size()]));
	return y;
}

static op::Const int_const(const char *name, const std::vector<int32_t> &v)
{
	std::vector<uint8_t> b((const uint8_t *)v.data(), (const uint8_t *)(v.data() + v.size()));
	return op::Const(name).set_attr_value(host_tensor({(int64_t)v.size()}, b, DT_INT32));
}

static std::vector<OpCase> op_cases()
{
	typedef std::vector<std::vector<float>> In;
	std::vector<OpCase> c;

	c.push_back({"Sub", {{2, 3}, {3}}, [](std::vector<op::Data> &d) {
		return op::Sub("op").set_input_x1(d[0]).set_input_x2(d[1]); },
		[](const In &in) { return map2(in[0], in[1], [](float a, float b) { return a - b; }); },
		{2, 3}});
	c.push_back({"RealDiv", {{2, 3}, {3}}, [](std::vector<op::Data> &d) {
		return op::RealDiv("op").set_input_x1(d[0]).set_input_x2(d[1]); },
		[](const In &in) { return map2(in[0], in[1], [](float a, float b) { return a / b; }); },
		{2, 3}});
	c.push_back({"Maximum", {{2, 3}, {3}}, [](std::vector<op::Data> &d) {
		return op::Maximum("op").set_input_x1(d[0]).set_input_x2(d[1]); },
		[](const In &in) { return map2(in[0], in[1], [](float a, float b) { return std::fmax(a, b); }); },
		{2, 3}});
	c.push_back({"Relu6", {{2, 3}}, [](std::vector<op::Data> &d) {
		return op::Relu6("op").set_input_x(d[0]); },
		[](const In &in) { return map1(in[0], [](float v) { return std::fmin(std::fmax(v, 0.0f), 6.0f); }); },
		{2, 3}});
	c.push_back({"LeakyRelu", {{2, 3}}, [](std::vector<op::Data> &d) {
		return op::LeakyRelu("op").set_input_x(d[0]).set_attr_negative_slope(0.25f); },
		[](const In &in) { return map1(in[0], [](float v) { return v < 0 ? v * 0.25f : v; }); },
		{2, 3}});
	c.push_back({"Tanh", {{2, 3}}, [](std::vector<op::Data> &d) {
		return op::Tanh("op").set_input_x(d[0]); },
		[](const In &in) { return map1(in[0], [](float v) { return std::tanh(v); }); }, {2, 3}});
	c.push_back({"Exp", {{2, 3}}, [](std::vector<op::Data> &d) {
		return op::Exp("op").set_input_x(d[0]); },
		[](const In &in) { return map1(in[0], [](float v) { return std::exp(v); }); }, {2, 3}});
	c.push_back({"Abs", {{2, 3}}, [](std::vector<op::Data> &d) {
		return op::Abs("op").set_input_x(d[0]); },
		[](const In &in) { return map1(in[0], [](float v) { return std::fabs(v); }); }, {2, 3}});
	c.push_back({"ConcatD", {{2, 3}, {2, 3}}, [](std::vector<op::Data> &d) {
		op::ConcatD cat("op");
		cat.create_dynamic_input_x(2).set_dynamic_input_x(0, d[0]).set_dynamic_input_x(1, d[1])
			.set_attr_concat_dim(1).set_attr_N(2);
		return cat; },
		[](const In &in) {
			std::vector<float> y;
			for (int r = 0; r < 2; r++)
				for (int k = 0; k < 2; k++)
					y.insert(y.end(), in[k].begin() + r * 3, in[k].begin() + r * 3 + 3);
			return y; }, {2, 6}});
	c.push_back({"ConcatV2", {{2, 3}, {2, 3}}, [](std::vector<op::Data> &d) {
		op::ConcatV2 cat("op");
		auto dim = int_const("dim", {0});
		cat.create_dynamic_input_x(2).set_dynamic_input_x(0, d[0]).set_dynamic_input_x(1, d[1])
			.set_input_concat_dim(dim).set_attr_N(2);
		return cat; },
		[](const In &in) {
			std::vector<float> y(in[0]);
			y.insert(y.end(), in[1].begin(), in[1].end());
			return y; }, {4, 3}});
	c.push_back({"TransposeD", {{2, 3}}, [](std::vector<op::Data> &d) {
		return op::TransposeD("op").set_input_x(d[0]).set_attr_perm({1, 0}); },
		[](const In &in) {
			std::vector<float> y;
			for (int j = 0; j < 3; j++)
				for (int i = 0; i < 2; i++)
					y.push_back(in[0][i * 3 + j]);
			return y; }, {3, 2}});
	c.push_back({"Transpose", {{2, 3}}, [](std::vector<op::Data> &d) {
		auto perm = int_const("perm", {1, 0});
		return op::Transpose("op").set_input_x(d[0]).set_input_perm(perm); },
		[](const In &in) {
			std::vector<float> y;
			for (int j = 0; j < 3; j++)
				for (int i = 0; i < 2; i++)
					y.push_back(in[0][i * 3 + j]);
			return y; }, {3, 2}});
	c.push_back({"Cast", {{2, 3}}, [](std::vector<op::Data> &d) {
		auto half = op::Cast("half").set_input_x(d[0]).set_attr_dst_type(DT_FLOAT16);
		return op::Cast("op").set_input_x(half).set_attr_dst_type(DT_FLOAT); },
		[](const In &in) { return in[0]; }, {2, 3}});
	c.push_back({"ReduceMeanD", {{2, 3}}, [](std::vector<op::Data> &d) {
		return op::ReduceMeanD("op").set_input_x(d[0]).set_attr_axes({1}); },
		[](const In &in) {
			return std::vector<float>{(in[0][0] + in[0][1] + in[0][2]) / 3,
						  (in[0][3] + in[0][4] + in[0][5]) / 3}; }, {2}});
	c.push_back({"ReduceSum", {{2, 3}}, [](std::vector<op::Data> &d) {
		auto axes = int_const("axes", {0});
		return op::ReduceSum("op").set_input_x(d[0]).set_input_axes(axes)
			.set_attr_keep_dims(true); },
		[](const In &in) {
			std::vector<float> y;
			for (int j = 0; j < 3; j++)
				y.push_back(in[0][j] + in[0][3 + j]);
			return y; }, {1, 3}});
	c.push_back({"MatMul", {{2, 3}, {2, 3}}, [](std::vector<op::Data> &d) {
		return op::MatMul("op").set_input_x1(d[0]).set_input_x2(d[1]).set_attr_transpose_x2(true); },
		[](const In &in) {
			std::vector<float> y;
			for (int i = 0; i < 2; i++)
				for (int j = 0; j < 2; j++) {
					float sum = 0;
					for (int k = 0; k < 3; k++)
						sum += in[0][i * 3 + k] * in[1][j * 3 + k];
					y.push_back(sum);
				}
			return y; }, {2, 2}});
	/*
	 * H 1 as well as H 2: a unit axis between broadcast ones once gave
	 * oneDNN a permuted layout, and [1,3,1,2] + [3,1,1] came back zeros.
	 */
	c.push_back({"BiasAdd_h1", {{1, 3, 1, 2}, {3}}, [](std::vector<op::Data> &d) {
		return op::BiasAdd("op").set_input_x(d[0]).set_input_bias(d[1]).set_attr_data_format("NCHW"); },
		[](const In &in) {
			std::vector<float> y;
			for (int ch = 0; ch < 3; ch++)
				for (int w = 0; w < 2; w++)
					y.push_back(in[0][ch * 2 + w] + in[1][ch]);
			return y; }, {1, 3, 1, 2}});
	c.push_back({"BiasAdd", {{1, 3, 2, 2}, {3}}, [](std::vector<op::Data> &d) {
		return op::BiasAdd("op").set_input_x(d[0]).set_input_bias(d[1]).set_attr_data_format("NCHW"); },
		[](const In &in) {
			std::vector<float> y;
			for (int ch = 0; ch < 3; ch++)
				for (int hw = 0; hw < 4; hw++)
					y.push_back(in[0][ch * 4 + hw] + in[1][ch]);
			return y; }, {1, 3, 2, 2}});
	c.push_back({"MaxPoolV3", {{1, 1, 2, 3}}, [](std::vector<op::Data> &d) {
		return op::MaxPoolV3("op").set_input_x(d[0]).set_attr_ksize({1, 1, 2, 2})
			.set_attr_strides({1, 1, 1, 1}); },
		[](const In &in) {
			const std::vector<float> &x = in[0];
			return std::vector<float>{
				std::fmax(std::fmax(x[0], x[1]), std::fmax(x[3], x[4])),
				std::fmax(std::fmax(x[1], x[2]), std::fmax(x[4], x[5]))}; }, {1, 1, 1, 2}});
	c.push_back({"AvgPoolV2", {{1, 1, 2, 3}}, [](std::vector<op::Data> &d) {
		return op::AvgPoolV2("op").set_input_x(d[0]).set_attr_global_pooling(true)
			.set_attr_ksize({1, 1, 2, 3}).set_attr_strides({1, 1, 1, 1}); },
		[](const In &in) {
			float sum = 0;
			for (float v : in[0])
				sum += v;
			return std::vector<float>{sum / 6}; }, {1, 1, 1, 1}});
	c.push_back({"SoftmaxV2", {{2, 3}}, [](std::vector<op::Data> &d) {
		return op::SoftmaxV2("op").set_input_x(d[0]).set_attr_axes({0}); },
		[](const In &in) {
			std::vector<float> y(6);
			for (int j = 0; j < 3; j++) {
				float a = std::exp(in[0][j]), b = std::exp(in[0][3 + j]);
				y[j] = a / (a + b);
				y[3 + j] = b / (a + b);
			}
			return y; }, {2, 3}});
	c.push_back({"Flatten", {{1, 3, 1, 2}}, [](std::vector<op::Data> &d) {
		return op::Flatten("op").set_input_x(d[0]); },
		[](const In &in) { return in[0]; }, {1, 6}});
	c.push_back({"Unsqueeze", {{2, 3}}, [](std::vector<op::Data> &d) {
		return op::Unsqueeze("op").set_input_x(d[0]).set_attr_axes({0}); },
		[](const In &in) { return in[0]; }, {1, 2, 3}});
	return c;
}

TEST(each_builder_computes_what_it_says)
{
	GeScope ge;
	Session s(kNoOptions);
	uint32_t id = 100;

	for (auto &oc : op_cases()) {
		std::vector<op::Data> data;
		std::vector<Operator> ins;
		std::vector<Tensor> tensors, out;
		std::vector<std::vector<float>> values;

		for (size_t i = 0; i < oc.dims.size(); i++) {
			int64_t n = 1;
			std::vector<float> v;

			for (int64_t dim : oc.dims[i])
				n *= dim;
			for (int64_t k = 0; k < n; k++)
				v.push_back(i == 0 ? kA[k % kA.size()] + (float)(k / 6) : kB[k % kB.size()]);
			data.push_back(op::Data(("in" + std::to_string(i)).c_str()).set_attr_index((int64_t)i));
			data.back().update_output_desc_y(TensorDesc(Shape(oc.dims[i]), FORMAT_NCHW, DT_FLOAT));
			ins.push_back(data.back());
			tensors.push_back(host_tensor(oc.dims[i], bytes_of(v)));
			values.push_back(v);
		}
		Graph g(oc.name);
		Operator o = oc.build(data);
		g.SetInputs(ins).SetOutputs({o});
		Status st = s.AddGraph(++id, g);
		if (st == SUCCESS)
			st = s.RunGraph(id, tensors, out);
		if (st != SUCCESS) {
			TH_LOG("%s: %s", oc.name, GEGetErrorMsg().c_str());
			EXPECT_EQ(SUCCESS, st);
			continue;
		}
		ASSERT_EQ(1U, out.size());
		std::vector<float> want = oc.expect(values), got = floats(out[0]);
		float diff = max_diff(got, want);
		if (diff > 1e-5f) {
			TH_LOG("%s: largest difference %g", oc.name, diff);
			for (size_t i = 0; i < got.size() && i < want.size(); i++)
				TH_LOG("  [%zu] %g, want %g", i, got[i], want[i]);
		}
		EXPECT_LE(diff, 1e-5f);
		EXPECT_TRUE(out[0].GetTensorDesc().GetShape().GetDims() == oc.out_dims);
	}
}

TEST(run_graph_async_calls_back)
{
	GeScope ge;
	Session s(kNoOptions);
	std::vector<float> x(64);
	std::mutex m;
	std::condition_variable cv;
	int done = 0;
	std::vector<std::vector<float>> results(3);
	std::vector<Status> statuses(3, FAILED);

	for (size_t i = 0; i < x.size(); i++)
		x[i] = (float)i - 20;
	ASSERT_EQ(SUCCESS, s.AddGraph(7, affine_graph(64)));
	for (int r = 0; r < 3; r++) {
		std::vector<float> xr(x);
		xr[0] = (float)r;
		Status st = s.RunGraphAsync(7, {host_tensor({64}, bytes_of(xr))},
			[&, r](Status status, std::vector<Tensor> &outputs) {
				std::lock_guard<std::mutex> l(m);
				statuses[r] = status;
				if (outputs.size() == 1)
					results[r] = floats(outputs[0]);
				done++;
				cv.notify_all();
			});
		ASSERT_EQ(SUCCESS, st);
	}
	std::unique_lock<std::mutex> l(m);
	ASSERT_TRUE(cv.wait_for(l, std::chrono::seconds(60), [&] { return done == 3; }));
	for (int r = 0; r < 3; r++) {
		EXPECT_EQ(SUCCESS, statuses[r]);
		ASSERT_EQ(64U, results[r].size());
		EXPECT_EQ((float)r * 2 + 1, results[r][0]);
		for (size_t i = 1; i < 64; i++)
			EXPECT_EQ(x[i] * 2 + 1, results[r][i]);
	}
	/* The callback hears of a failure too: a wrong size fails before it is queued. */
	EXPECT_EQ(PARAM_INVALID, s.RunGraphAsync(7, {host_tensor({8}, std::vector<uint8_t>(32))},
						 [](Status, std::vector<Tensor> &) {}));
}

/* Device memory named by a tensor; the test frees it. */
static Tensor device_tensor(void *p, size_t size)
{
	Tensor t;

	t.SetData(static_cast<uint8_t *>(p), size, [](uint8_t *) {});
	return t;
}

TEST(stream_run_is_ordered_with_copies_on_the_stream)
{
	GeScope ge;
	const int64_t n = 4096;
	const size_t size = n * 4;
	std::vector<float> x(n), y(n, -1.0f);
	void *host = nullptr, *a = nullptr, *b = nullptr, *c = nullptr;
	aclrtStream stream = nullptr;

	for (int64_t i = 0; i < n; i++)
		x[i] = (float)(i % 97) * 0.25f;
	Session s(kNoOptions);
	ASSERT_EQ(SUCCESS, s.AddGraph(1, affine_graph(n)));
	std::vector<Tensor> none;
	std::vector<Tensor> outs(1);
	/* Run before build: refused. */
	EXPECT_EQ(GE_GRAPH_NOT_BUILT, s.RunGraphWithStreamAsync(1, nullptr, none, outs));
	ASSERT_EQ(SUCCESS, s.BuildGraph(1, none));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&stream));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost(&host, size));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&a, size, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&b, size, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&c, size, ACL_MEM_MALLOC_HUGE_FIRST));
	std::memcpy(host, x.data(), size);
	/* copy in, run twice (the second reads the first's output), copy out: one stream. */
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(a, size, host, size, ACL_MEMCPY_HOST_TO_DEVICE, stream));
	std::vector<Tensor> o1 = {device_tensor(b, size)}, o2 = {device_tensor(c, size)};
	ASSERT_EQ(SUCCESS, s.RunGraphWithStreamAsync(1, stream, {device_tensor(a, size)}, o1));
	ASSERT_EQ(SUCCESS, s.RunGraphWithStreamAsync(1, stream, {device_tensor(b, size)}, o2));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(host, size, c, size, ACL_MEMCPY_DEVICE_TO_HOST, stream));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(stream));
	std::memcpy(y.data(), host, size);
	for (int64_t i = 0; i < n; i++)
		if (y[i] != (x[i] * 2 + 1) * 2 + 1) {
			EXPECT_EQ((x[i] * 2 + 1) * 2 + 1, y[i]);
			break;
		}
	EXPECT_TRUE(o2[0].GetTensorDesc().GetShape().GetDims() == std::vector<int64_t>({n}));
	/* Wrong sizes, wrong counts: refused before anything is queued. */
	std::vector<Tensor> small = {device_tensor(c, size - 4)};
	EXPECT_EQ(PARAM_INVALID, s.RunGraphWithStreamAsync(1, stream, {device_tensor(a, size - 4)}, o1));
	EXPECT_TRUE(GEGetErrorMsg().find("bytes") != std::string::npos);
	EXPECT_EQ(PARAM_INVALID, s.RunGraphWithStreamAsync(1, stream, {device_tensor(a, size)}, small));
	EXPECT_EQ(PARAM_INVALID, s.RunGraphWithStreamAsync(1, stream, none, o1));
	std::vector<Tensor> two(2);
	EXPECT_EQ(PARAM_INVALID, s.RunGraphWithStreamAsync(1, stream, {device_tensor(a, size)}, two));
	EXPECT_EQ(ACL_SUCCESS, aclrtFree(a));
	EXPECT_EQ(ACL_SUCCESS, aclrtFree(b));
	EXPECT_EQ(ACL_SUCCESS, aclrtFree(c));
	EXPECT_EQ(ACL_SUCCESS, aclrtFreeHost(host));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyStream(stream));
	EXPECT_EQ(SUCCESS, s.RemoveGraph(1));
	EXPECT_EQ(ACL_SUCCESS, aclrtResetDevice(0));
}

TEST(stream_runs_are_ordered_across_streams_by_events)
{
	GeScope ge;
	const int64_t n = 1 << 16;
	const size_t size = n * 4;
	std::vector<float> x(n), y(n);
	void *host = nullptr, *a = nullptr, *b = nullptr, *c = nullptr, *gate = nullptr;
	aclrtStream s1 = nullptr, s2 = nullptr, opener = nullptr;
	aclrtEvent ev = nullptr;

	for (int64_t i = 0; i < n; i++)
		x[i] = (float)(i % 1013) - 500;
	Session s(kNoOptions);
	ASSERT_EQ(SUCCESS, s.AddGraph(1, affine_graph(n)));
	ASSERT_EQ(SUCCESS, s.AddGraph(2, affine_graph(n, 3.0f, -2.0f)));
	ASSERT_EQ(SUCCESS, s.BuildGraph(1, std::vector<Tensor>()));
	ASSERT_EQ(SUCCESS, s.BuildGraph(2, std::vector<Tensor>()));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&opener));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&ev));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost(&host, size));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&a, size, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&b, size, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&c, size, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&gate, 64, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(gate, 64, 0, 64));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(b, size, 0, size));
	std::memcpy(host, x.data(), size);
	/*
	 * s1 is held at a gate until everything is queued, so s2's run can
	 * only see s1's output through the event: copy in, run 1, record on
	 * s1; wait, run 2 on s1's output, copy out on s2.
	 */
	ASSERT_EQ(ACL_SUCCESS, aclrtValueWait(gate, 1, ACL_STREAM_WAIT_VALUE_GEQ, s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(a, size, host, size, ACL_MEMCPY_HOST_TO_DEVICE, s1));
	std::vector<Tensor> o1 = {device_tensor(b, size)};
	ASSERT_EQ(SUCCESS, s.RunGraphWithStreamAsync(1, s1, {device_tensor(a, size)}, o1));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(ev, s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamWaitEvent(s2, ev));
	std::vector<Tensor> o2 = {device_tensor(c, size)};
	ASSERT_EQ(SUCCESS, s.RunGraphWithStreamAsync(2, s2, {device_tensor(b, size)}, o2));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(host, size, c, size, ACL_MEMCPY_DEVICE_TO_HOST, s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtValueWrite(gate, 1, 0, opener));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(s2));
	std::memcpy(y.data(), host, size);
	int wrong = 0;
	for (int64_t i = 0; i < n; i++)
		wrong += y[i] != (x[i] * 2 + 1) * 3 - 2;
	EXPECT_EQ(0, wrong);
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(s1));
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(opener));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyEvent(ev));
	EXPECT_EQ(ACL_SUCCESS, aclrtFree(a));
	EXPECT_EQ(ACL_SUCCESS, aclrtFree(b));
	EXPECT_EQ(ACL_SUCCESS, aclrtFree(c));
	EXPECT_EQ(ACL_SUCCESS, aclrtFree(gate));
	EXPECT_EQ(ACL_SUCCESS, aclrtFreeHost(host));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyStream(s1));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyStream(s2));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyStream(opener));
	EXPECT_EQ(SUCCESS, s.RemoveGraph(1));
	EXPECT_EQ(SUCCESS, s.RemoveGraph(2));
	EXPECT_EQ(ACL_SUCCESS, aclrtResetDevice(0));
}

TEST(sessions_run_concurrently)
{
	GeScope ge;
	const int kThreads = 4, kRuns = 5;
	std::atomic<int> wrong{0}, failed{0};
	std::vector<std::thread> threads;

	for (int t = 0; t < kThreads; t++) {
		threads.emplace_back([&, t]() {
			Session s(kNoOptions);
			std::vector<float> x(256);

			for (size_t i = 0; i < x.size(); i++)
				x[i] = (float)i * 0.5f;
			if (s.AddGraph(1, affine_graph(256, (float)t + 1, (float)t)) != SUCCESS) {
				failed++;
				return;
			}
			for (int r = 0; r < kRuns; r++) {
				std::vector<Tensor> out;

				x[0] = (float)r;
				if (s.RunGraph(1, {host_tensor({256}, bytes_of(x))}, out) != SUCCESS ||
				    out.size() != 1) {
					failed++;
					continue;
				}
				std::vector<float> y = floats(out[0]);
				for (size_t i = 0; i < x.size(); i++)
					wrong += y[i] != x[i] * (float)(t + 1) + (float)t;
			}
		});
	}
	for (auto &th : threads)
		th.join();
	EXPECT_EQ(0, failed.load());
	EXPECT_EQ(0, wrong.load());
}

TEST(bad_graphs_are_refused_naming_the_node)
{
	GeScope ge;
	Session s(kNoOptions);
	TensorDesc d(Shape({1, 3, 8, 8}), FORMAT_NCHW, DT_FLOAT);
	auto x = op::Data("x");
	x.update_output_desc_y(d);

	/* A required input left unlinked. */
	auto conv = op::Conv2D("conv_no_filter").set_input_x(x).set_attr_strides({1, 1, 1, 1})
		.set_attr_pads({0, 0, 0, 0}).set_attr_data_format("NCHW");
	Graph g1("g1");
	g1.SetInputs({x}).SetOutputs({conv});
	ASSERT_EQ(SUCCESS, s.AddGraph(1, g1));
	EXPECT_EQ(GE_GRAPH_PREPARE_FAILED, s.BuildGraph(1, std::vector<Tensor>()));
	EXPECT_TRUE(GEGetErrorMsg().find("'conv_no_filter'") != std::string::npos);
	EXPECT_TRUE(GEGetErrorMsg().find("filter") != std::string::npos);

	/* A required attribute left unset. */
	auto pool = op::MaxPool("pool_no_ksize").set_input_x(x).set_attr_strides({1, 1, 2, 2})
		.set_attr_padding("VALID").set_attr_data_format("NCHW");
	Graph g2("g2");
	g2.SetInputs({x}).SetOutputs({pool});
	ASSERT_EQ(SUCCESS, s.AddGraph(2, g2));
	EXPECT_EQ(GE_GRAPH_PREPARE_FAILED, s.BuildGraph(2, std::vector<Tensor>()));
	EXPECT_TRUE(GEGetErrorMsg().find("'pool_no_ksize'") != std::string::npos);
	EXPECT_TRUE(GEGetErrorMsg().find("ksize") != std::string::npos);

	/* An op type with no builder, and a layout the card does not take. */
	Operator odd("odd", "NoSuchOp");
	odd.SetInput("x", x);
	Graph g3("g3");
	g3.SetInputs({x}).SetOutputs({odd});
	ASSERT_EQ(SUCCESS, s.AddGraph(3, g3));
	EXPECT_EQ(GE_GRAPH_PREPARE_FAILED, s.BuildGraph(3, std::vector<Tensor>()));
	EXPECT_TRUE(GEGetErrorMsg().find("'odd' (NoSuchOp)") != std::string::npos);
	auto nhwc = op::AvgPool("pool_nhwc").set_input_x(x).set_attr_ksize({1, 2, 2, 1})
		.set_attr_strides({1, 2, 2, 1}).set_attr_padding("VALID");
	Graph g4("g4");
	g4.SetInputs({x}).SetOutputs({nhwc});
	ASSERT_EQ(SUCCESS, s.AddGraph(4, g4));
	EXPECT_EQ(GE_GRAPH_PREPARE_FAILED, s.BuildGraph(4, std::vector<Tensor>()));
	EXPECT_TRUE(GEGetErrorMsg().find("'pool_nhwc'") != std::string::npos);

	/* Shapes that do not broadcast: the compiler names the node. */
	auto y = op::Data("y").set_attr_index(1);
	y.update_output_desc_y(TensorDesc(Shape({1, 3, 8, 5}), FORMAT_NCHW, DT_FLOAT));
	auto add = op::Add("add_mismatch").set_input_x1(x).set_input_x2(y);
	Graph g5("g5");
	g5.SetInputs({x, y}).SetOutputs({add});
	ASSERT_EQ(SUCCESS, s.AddGraph(5, g5));
	EXPECT_NE(SUCCESS, s.BuildGraph(5, std::vector<Tensor>()));
	EXPECT_TRUE(GEGetErrorMsg().find("add_mismatch") != std::string::npos);

	/* No outputs; the same id twice. */
	EXPECT_EQ(GE_GRAPH_NULL_INPUT, s.AddGraph(6, Graph("empty")));
	EXPECT_EQ(GE_GRAPH_GRAPH_ALREADY_EXIST, s.AddGraph(1, g1));

	/* A model that is not ONNX, and a file that is not there. */
	Graph p;
	const char junk[] = "not a protobuf at all";
	EXPECT_EQ(GRAPH_FAILED, aclgrphParseONNXFromMem(junk, sizeof(junk), kNoOptions, p));
	EXPECT_TRUE(GEGetErrorMsg().find("invalid model") != std::string::npos);
	EXPECT_EQ(GRAPH_FAILED, aclgrphParseONNX("/nonexistent.onnx", kNoOptions, p));
	EXPECT_EQ(GRAPH_PARAM_INVALID, aclgrphParseONNX((net_dir() + "net.onnx").c_str(),
			std::map<AscendString, AscendString>{{"no_such_param", "1"}}, p));
}

TEST(unknown_ids_and_wrong_tensors_are_refused)
{
	GeScope ge;
	Session s(kNoOptions);
	std::vector<Tensor> out;
	std::vector<float> x(16, 1.0f);

	EXPECT_EQ(GE_GRAPH_GRAPH_NOT_EXIST, s.BuildGraph(9, std::vector<Tensor>()));
	EXPECT_TRUE(GEGetErrorMsg().find("graph 9") != std::string::npos);
	EXPECT_EQ(GE_GRAPH_GRAPH_NOT_EXIST, s.RunGraph(9, {}, out));
	EXPECT_EQ(GE_GRAPH_GRAPH_NOT_EXIST, s.RunGraphWithStreamAsync(9, nullptr, {}, out));
	EXPECT_EQ(GE_GRAPH_GRAPH_NOT_EXIST, s.RemoveGraph(9));
	ASSERT_EQ(SUCCESS, s.AddGraph(1, affine_graph(16)));
	EXPECT_TRUE(s.IsGraphNeedRebuild(1));
	/* RunGraph builds a graph not built yet, as the vendor's does. */
	ASSERT_EQ(SUCCESS, s.RunGraph(1, {host_tensor({16}, bytes_of(x))}, out));
	EXPECT_TRUE(!s.IsGraphNeedRebuild(1));
	ASSERT_EQ(1U, out.size());
	EXPECT_EQ(3.0f, floats(out[0])[15]);
	EXPECT_EQ(PARAM_INVALID, s.RunGraph(1, {host_tensor({15}, std::vector<uint8_t>(60))}, out));
	EXPECT_TRUE(GEGetErrorMsg().find("60 bytes") != std::string::npos);
	EXPECT_EQ(PARAM_INVALID, s.RunGraph(1, {}, out));
	EXPECT_EQ(SUCCESS, s.RemoveGraph(1));
	EXPECT_EQ(GE_GRAPH_GRAPH_NOT_EXIST, s.RunGraph(1, {host_tensor({16}, bytes_of(x))}, out));
	/* The id is free again. */
	EXPECT_EQ(SUCCESS, s.AddGraph(1, affine_graph(16)));
}

int main()
{
	if (aclInit(nullptr) != ACL_SUCCESS) {
		std::printf("1..0 # SKIP aclInit failed\n");
		return 4;
	}
	int ret = ge_test_main();
	aclFinalize();
	return ret;
}
