// SPDX-License-Identifier: MIT
/*
 * aclgrphParseONNX: the model is checked by libnpucc's ONNX import and
 * kept whole in the Graph; BuildGraph compiles it as atc does.
 */
#include <fstream>
#include <iterator>

#include "ge_internal.h"
#include "npucc.h"
#include "parser/onnx_parser.h"

namespace ge {
static graphStatus parse(const char *name, std::vector<uint8_t> &&bytes,
			 const std::map<AscendString, AscendString> &params, Graph &graph)
{
	npucc_options opts = {};
	npucc_result res = {};
	auto g = std::make_shared<GraphImpl>();

	for (auto &kv : params) {
		std::string k = kv.first.GetString();

		if (k != "input_shape") {
			SetErrorMsg("aclgrphParseONNX: parser parameter '" + k +
				    "' is not supported (input_shape is)");
			return GRAPH_PARAM_INVALID;
		}
		g->input_shape = kv.second.GetString();
	}
	opts.input_shape = g->input_shape.empty() ? nullptr : g->input_shape.c_str();
	npucc_compile(bytes.data(), bytes.size(), &opts, &res);
	npucc_result_free(&res);
	/* Shapes left dynamic are fixed at BuildGraph (ge.inputShape). */
	if (res.error && res.error != NPUCC_E_INPUT_SHAPE && res.error != NPUCC_E_DYNAMIC_SHAPE) {
		SetErrorMsg(std::string("aclgrphParseONNX: ") + name + ": " +
			    npucc_error_name(res.error) + ": " + res.message);
		return GRAPH_FAILED;
	}
	g->name = name;
	g->onnx = std::move(bytes);
	GraphImpl::set(graph, g);
	return GRAPH_SUCCESS;
}

graphStatus aclgrphParseONNX(const char *model_file,
			     const std::map<ge::AscendString, ge::AscendString> &parser_params,
			     ge::Graph &graph)
{
	if (!model_file)
		return GRAPH_PARAM_INVALID;
	std::ifstream f(model_file, std::ios::binary);
	if (!f) {
		SetErrorMsg(std::string("aclgrphParseONNX: cannot read ") + model_file);
		return GRAPH_FAILED;
	}
	std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
	return parse(model_file, std::move(bytes), parser_params, graph);
}

graphStatus aclgrphParseONNXFromMem(const char *buffer, size_t size,
				    const std::map<ge::AscendString, ge::AscendString> &parser_params,
				    ge::Graph &graph)
{
	if (!buffer || !size)
		return GRAPH_PARAM_INVALID;
	return parse("(memory)", std::vector<uint8_t>(buffer, buffer + size), parser_params, graph);
}
}  // namespace ge
