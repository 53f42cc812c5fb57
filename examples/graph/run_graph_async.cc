// SPDX-License-Identifier: MIT
/*
 * Seed 003 of the vendor's guide, "running a graph asynchronously on
 * device memory", in its order: GEInitialize, a Session, AddGraph,
 * aclInit, BuildGraph, aclrtSetDevice, a stream, host and device memory,
 * RunGraphWithStreamAsync, aclrtSynchronizeStream, the copy back, then
 * the releases, GEFinalize and aclFinalize.  The graph is a convolution
 * and a Relu built with the operator builders; the result is checked
 * against the same arithmetic on the host.
 */
#include <cmath>
#include <cstring>
#include <iostream>
#include <map>
#include <vector>

#include "acl.h"
#include "acl_rt.h"
#include "all_ops.h"
#include "ge_api.h"

using namespace ge;

static const int kCin = 3, kCout = 4, kH = 8, kW = 8, kK = 3;
static const uint32_t conv_graph_id = 1;

static float input_at(int c, int h, int w) { return (float)((c * 7 + h * 3 + w) % 11) / 11.0f - 0.5f; }
static float weight_at(int i) { return (float)((i * 5) % 13) / 13.0f - 0.4f; }

/* x [1,3,8,8] -> Conv2D 3x3, pad 1 -> Relu -> y [1,4,8,8] */
static Graph build_conv_graph()
{
	Graph conv_graph("conv_graph");
	TensorDesc x_desc(Shape({1, kCin, kH, kW}), FORMAT_NCHW, DT_FLOAT);
	auto x = op::Data("x").set_attr_index(0);
	x.update_input_desc_x(x_desc);
	x.update_output_desc_y(x_desc);

	std::vector<float> w(kCout * kCin * kK * kK);
	for (size_t i = 0; i < w.size(); i++)
		w[i] = weight_at((int)i);
	TensorDesc w_desc(Shape({kCout, kCin, kK, kK}), FORMAT_NCHW, DT_FLOAT);
	Tensor w_tensor(w_desc, reinterpret_cast<uint8_t *>(w.data()), w.size() * sizeof(float));
	auto filter = op::Const("filter").set_attr_value(w_tensor);

	auto conv = op::Conv2D("conv")
		.set_input_x(x)
		.set_input_filter(filter)
		.set_attr_strides({1, 1, 1, 1})
		.set_attr_pads({1, 1, 1, 1})
		.set_attr_data_format("NCHW");
	auto relu = op::Relu("relu").set_input_x(conv);

	conv_graph.SetInputs({x}).SetOutputs({relu});
	return conv_graph;
}

static float reference(int co, int h, int w)
{
	float sum = 0;

	for (int ci = 0; ci < kCin; ci++)
		for (int kh = 0; kh < kK; kh++)
			for (int kw = 0; kw < kK; kw++) {
				int y = h + kh - 1, x = w + kw - 1;

				if (y >= 0 && y < kH && x >= 0 && x < kW)
					sum += input_at(ci, y, x) *
					       weight_at(((co * kCin + ci) * kK + kh) * kK + kw);
			}
	return sum > 0 ? sum : 0;
}

int main()
{
	const char *aclConfigPath = nullptr;
	size_t in_size = sizeof(float) * kCin * kH * kW, out_size = sizeof(float) * kCout * kH * kW;
	Graph conv_graph = build_conv_graph();

	// System resources: ge.graphRunMode 1 as the guide writes it.
	std::map<AscendString, AscendString> config = {{"ge.exec.deviceId", "0"},
							{"ge.graphRunMode", "1"}};
	Status ret = ge::GEInitialize(config);
	if (ret != SUCCESS) {
		std::cout << "GEInitialize failed: " << GEGetErrorMsg() << std::endl;
		return 1;
	}

	// A session, and the graph in it.
	std::map<AscendString, AscendString> options;
	ge::Session *session = new Session(options);
	if (session == nullptr) {
		std::cout << "Create session failed." << std::endl;
		ge::GEFinalize();
		return 1;
	}
	ret = session->AddGraph(conv_graph_id, conv_graph);
	if (ret != SUCCESS) {
		std::cout << "AddGraph failed: " << GEGetErrorMsg() << std::endl;
		ge::GEFinalize();
		delete session;
		return 1;
	}

	// AscendCL.
	aclError retInit = aclInit(aclConfigPath);
	if (retInit != ACL_ERROR_NONE) {
		std::cout << "aclInit failed: " << retInit << std::endl;
		return 1;
	}

	// Compile the graph, in this process.
	std::vector<Tensor> input;
	ret = session->BuildGraph(conv_graph_id, input);
	if (ret != SUCCESS) {
		std::cout << "BuildGraph failed: " << GEGetErrorMsg() << std::endl;
		ge::GEFinalize();
		delete session;
		return 1;
	}

	// The device, a stream, host and device memory.
	int32_t deviceId = 0;
	retInit = aclrtSetDevice(deviceId);
	aclrtStream stream = nullptr;
	aclError aclRet = aclrtCreateStream(&stream);
	void *hostPtrA = NULL, *hostPtrB = NULL;
	aclRet |= aclrtMallocHost(&hostPtrA, in_size);
	aclRet |= aclrtMallocHost(&hostPtrB, out_size);
	void *devPtrB = NULL, *devPtrA = NULL;
	aclRet |= aclrtMalloc(&devPtrB, in_size, ACL_MEM_MALLOC_HUGE_FIRST);
	aclRet |= aclrtMalloc(&devPtrA, out_size, ACL_MEM_MALLOC_HUGE_FIRST);
	if (retInit != ACL_SUCCESS || aclRet != ACL_SUCCESS) {
		std::cout << "device setup failed: " << aclGetRecentErrMsg() << std::endl;
		return 1;
	}
	float *in = static_cast<float *>(hostPtrA);
	for (int c = 0; c < kCin; c++)
		for (int h = 0; h < kH; h++)
			for (int w = 0; w < kW; w++)
				in[(c * kH + h) * kW + w] = input_at(c, h, w);
	aclrtMemcpy(devPtrB, in_size, hostPtrA, in_size, ACL_MEMCPY_HOST_TO_DEVICE);

	// Tensors naming device memory: the deleters leave it to aclrtFree.
	input.resize(1);
	input[0].SetTensorDesc(TensorDesc(Shape({1, kCin, kH, kW}), FORMAT_NCHW, DT_FLOAT));
	input[0].SetData(static_cast<uint8_t *>(devPtrB), in_size, [](uint8_t *) {});
	std::vector<Tensor> output(1);
	output[0].SetData(static_cast<uint8_t *>(devPtrA), out_size, [](uint8_t *) {});

	// Run on the stream, wait, copy the result back.
	ret = session->RunGraphWithStreamAsync(conv_graph_id, stream, input, output);
	if (ret != SUCCESS) {
		std::cout << "RunGraphWithStreamAsync failed: " << GEGetErrorMsg() << std::endl;
		return 1;
	}
	aclRet = aclrtSynchronizeStream(stream);
	aclRet |= aclrtMemcpy(hostPtrB, out_size, devPtrA, out_size, ACL_MEMCPY_DEVICE_TO_HOST);
	if (aclRet != ACL_SUCCESS) {
		std::cout << "synchronize or copy failed: " << aclGetRecentErrMsg() << std::endl;
		return 1;
	}

	const float *out = static_cast<const float *>(hostPtrB);
	double max_err = 0;
	for (int co = 0; co < kCout; co++)
		for (int h = 0; h < kH; h++)
			for (int w = 0; w < kW; w++)
				max_err = std::fmax(max_err, std::fabs(out[(co * kH + h) * kW + w] -
									 reference(co, h, w)));
	std::vector<int64_t> dims = output[0].GetTensorDesc().GetShape().GetDims();
	std::cout << "graph " << conv_graph_id << ": conv 3x3 + relu, output [";
	for (size_t i = 0; i < dims.size(); i++)
		std::cout << (i ? "," : "") << dims[i];
	std::cout << "], largest difference from the host " << max_err << std::endl;

	// Release: memory, the session's graph, GE, AscendCL.
	ret = aclrtFree(devPtrB);
	ret |= aclrtFree(devPtrA);
	ret |= aclrtFreeHost(hostPtrA);
	ret |= aclrtFreeHost(hostPtrB);
	delete session;
	aclrtDestroyStream(stream);
	aclrtResetDevice(deviceId);
	ret |= ge::GEFinalize();
	ret |= aclFinalize();
	if (ret != SUCCESS || max_err > 1e-4) {
		std::cout << "FAILED" << std::endl;
		return 1;
	}
	return 0;
}
