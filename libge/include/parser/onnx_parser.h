/* SPDX-License-Identifier: MIT */
/* ONNX models into a ge::Graph, through libnpucc's ONNX import. */
#ifndef INC_EXTERNAL_PARSER_ONNX_PARSER_H_
#define INC_EXTERNAL_PARSER_ONNX_PARSER_H_

#include <cstddef>
#include <map>

#include "graph/ascend_string.h"
#include "graph/ge_error_codes.h"
#include "graph/graph.h"

#define PARSER_FUNC_VISIBILITY __attribute__((visibility("default")))

namespace ge {
PARSER_FUNC_VISIBILITY graphStatus aclgrphParseONNX(const char *model_file,
		const std::map<ge::AscendString, ge::AscendString> &parser_params, ge::Graph &graph);
PARSER_FUNC_VISIBILITY graphStatus aclgrphParseONNXFromMem(const char *buffer, size_t size,
		const std::map<ge::AscendString, ge::AscendString> &parser_params, ge::Graph &graph);
}  // namespace ge

#endif  // INC_EXTERNAL_PARSER_ONNX_PARSER_H_
