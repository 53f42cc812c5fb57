/* SPDX-License-Identifier: MIT */
/* Option keys, with the vendor's spellings, and the session API's types. */
#ifndef INC_EXTERNAL_GE_GE_API_TYPES_H_
#define INC_EXTERNAL_GE_GE_API_TYPES_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ge/ge_error_codes.h"
#include "graph/tensor.h"
#include "graph/types.h"

namespace ge {
/* GEInitialize's and Session's options that libge_runner takes (docs/graph.md). */
const char *const OPTION_GRAPH_RUN_MODE = "ge.graphRunMode";
const char *const OPTION_EXEC_DEVICE_ID = "ge.exec.deviceId";
const char *const OPTION_EXEC_SESSION_ID = "ge.exec.sessionId";
const char *const OPTION_EXEC_JOB_ID = "ge.exec.jobId";
const char *const OPTION_EXEC_PRECISION_MODE = "ge.exec.precision_mode";
const char *const OPTION_EXEC_ENABLE_DUMP = "ge.exec.enableDump";
const char *const OPTION_EXEC_DISABLE_REUSED_MEMORY = "ge.exec.disableReuseMemory";
const char *const SOC_VERSION = "ge.socVersion";
const char *const INPUT_SHAPE = "ge.inputShape";
const char *const OUTPUT_DATATYPE = "ge.outputDatatype";

enum GraphRunMode { PREDICTION = 0, TRAIN };

struct InputTensorInfo {
	uint32_t data_type;
	std::vector<int64_t> dims;
	void *data;
	int64_t length;
};

using RunAsyncCallback = std::function<void(Status, std::vector<ge::Tensor> &)>;
}  // namespace ge

#endif  // INC_EXTERNAL_GE_GE_API_TYPES_H_
