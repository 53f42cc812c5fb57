/* SPDX-License-Identifier: MIT */
/*
 * graphStatus, the graph API's return type, with the vendor's values, and
 * the visibility and deprecation macros the other headers use.
 */
#ifndef INC_EXTERNAL_GRAPH_GE_ERROR_CODES_H_
#define INC_EXTERNAL_GRAPH_GE_ERROR_CODES_H_

#include <cstdint>

#if defined(__GNUC__)
#define GE_FUNC_HOST_VISIBILITY __attribute__((visibility("default")))
#define GE_FUNC_DEV_VISIBILITY
#define GE_FUNC_VISIBILITY __attribute__((visibility("default")))
#define ATTRIBUTED_DEPRECATED(replacement) \
	__attribute__((deprecated("Please use " #replacement " instead.")))
#else
#define GE_FUNC_HOST_VISIBILITY
#define GE_FUNC_DEV_VISIBILITY
#define GE_FUNC_VISIBILITY
#define ATTRIBUTED_DEPRECATED(replacement)
#endif

namespace ge {
using graphStatus = uint32_t;
const graphStatus GRAPH_FAILED = 0xFFFFFFFF;
const graphStatus GRAPH_SUCCESS = 0;
const graphStatus GRAPH_NOT_CHANGED = 1343242304;
const graphStatus GRAPH_PARAM_INVALID = 50331649;
const graphStatus GRAPH_NODE_WITHOUT_CONST_INPUT = 50331648;
const graphStatus GRAPH_INVALID_IR_DEF = 50331646;
const graphStatus GRAPH_PARAM_OUT_OF_RANGE = 50331644;
const graphStatus GRAPH_NULL_PTR = 50331538;
}  // namespace ge

#endif  // INC_EXTERNAL_GRAPH_GE_ERROR_CODES_H_
