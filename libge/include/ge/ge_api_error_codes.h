/* SPDX-License-Identifier: MIT */
/*
 * The Status values the session API returns, the vendor's numbers: 0, and
 * the GE codes (runtime 0, type 1, level 2, system 0x50 "GE", a module and
 * a value, packed as the vendor packs them).
 */
#ifndef INC_EXTERNAL_GE_GE_API_ERROR_CODES_H_
#define INC_EXTERNAL_GE_GE_API_ERROR_CODES_H_

#include <string>

#include "ge/ge_error_codes.h"

namespace ge {
constexpr Status SUCCESS = 0;
constexpr Status FAILED = 0xFFFFFFFFU;

/* The common module. */
constexpr Status MEMALLOC_FAILED = 1343225856;
constexpr Status PARAM_INVALID = 1343225857;
constexpr Status RT_FAILED = 1343225859;
constexpr Status INTERNAL_ERROR = 1343225860;
constexpr Status UNSUPPORTED = 1343225956;

/* The client module. */
constexpr Status GE_CLI_INIT_FAILED = 1343229953;
constexpr Status GE_CLI_FINAL_FAILED = 1343229954;
constexpr Status GE_CLI_SESS_CONSTRUCT_FAILED = 1343229955;
constexpr Status GE_CLI_SESS_DESTROY_FAILED = 1343229956;
constexpr Status GE_CLI_SESS_ADD_FAILED = 1343229957;
constexpr Status GE_CLI_SESS_REMOVE_FAILED = 1343229959;
constexpr Status GE_CLI_SESS_RUN_FAILED = 1343229960;
constexpr Status GE_CLI_GE_ALREADY_INITIALIZED = 1343229962;
constexpr Status GE_CLI_GE_NOT_INITIALIZED = 1343229963;

/* The session module. */
constexpr Status GE_SESS_INIT_FAILED = 1343238144;
constexpr Status GE_SESS_GRAPH_NOT_EXIST = 1343238146;
constexpr Status GE_SESS_GRAPH_ALREADY_EXIST = 1343238147;

/* The graph module. */
constexpr Status GE_GRAPH_GRAPH_NOT_EXIST = 1343242242;
constexpr Status GE_GRAPH_GRAPH_ALREADY_EXIST = 1343242243;
constexpr Status GE_GRAPH_GRAPH_IS_RUNNING = 1343242244;
constexpr Status GE_GRAPH_PARAM_NULLPTR = 1343242248;
constexpr Status GE_GRAPH_PREPARE_FAILED = 1343242265;
constexpr Status GE_GRAPH_INFERSHAPE_FAILED = 1343242270;
constexpr Status GE_GRAPH_RUNGRAPH_FAILED = 1343242273;
constexpr Status GE_GRAPH_NOT_INIT = 1343242277;
constexpr Status GE_GRAPH_NULL_INPUT = 1343242278;
constexpr Status GE_GRAPH_UNSUPPORTED = 1343242281;
constexpr Status GE_GRAPH_OPTIONS_INVALID = 1343242291;
constexpr Status GE_GRAPH_NOT_BUILT = 1343242295;
}  // namespace ge

#endif  // INC_EXTERNAL_GE_GE_API_ERROR_CODES_H_
