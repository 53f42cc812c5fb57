/* SPDX-License-Identifier: MIT */
/*
 * The graph engine's session API over libnpucc and libascendcl:
 * GEInitialize, Session (AddGraph, BuildGraph compiles in process,
 * RunGraph, RunGraphAsync, RunGraphWithStreamAsync), GEFinalize.
 */
#ifndef INC_EXTERNAL_GE_GE_API_H_
#define INC_EXTERNAL_GE_GE_API_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ge/ge_api_error_codes.h"
#include "ge/ge_api_types.h"
#include "graph/graph.h"
#include "graph/tensor.h"

namespace ge {
/* Reference-counted: each successful call needs its GEFinalize. */
GE_FUNC_VISIBILITY Status GEInitialize(const std::map<std::string, std::string> &options);
GE_FUNC_VISIBILITY Status GEInitialize(const std::map<AscendString, AscendString> &options);
GE_FUNC_VISIBILITY Status GEFinalize();
/* The last error of this thread, naming what failed and why. */
GE_FUNC_VISIBILITY std::string GEGetErrorMsg();
GE_FUNC_VISIBILITY ge::AscendString GEGetErrorMsgV2();

class SessionImpl;
class GE_FUNC_VISIBILITY Session {
 public:
	explicit Session(const std::map<std::string, std::string> &options);
	explicit Session(const std::map<AscendString, AscendString> &options);
	~Session();

	Status AddGraph(uint32_t graph_id, const Graph &graph);
	Status AddGraph(uint32_t graph_id, const Graph &graph,
			const std::map<AscendString, AscendString> &options);
	Status AddGraphWithCopy(uint32_t graph_id, const Graph &graph);
	Status RemoveGraph(uint32_t graph_id);

	Status BuildGraph(uint32_t graph_id, const std::vector<InputTensorInfo> &inputs);
	Status BuildGraph(uint32_t graph_id, const std::vector<ge::Tensor> &inputs);
	Status CompileGraph(uint32_t graph_id);

	Status RunGraph(uint32_t graph_id, const std::vector<Tensor> &inputs,
			std::vector<Tensor> &outputs);
	Status RunGraphAsync(uint32_t graph_id, const std::vector<ge::Tensor> &inputs,
			     RunAsyncCallback callback);
	Status RunGraphWithStreamAsync(uint32_t graph_id, void *stream,
				       const std::vector<Tensor> &inputs,
				       std::vector<Tensor> &outputs);

	bool IsGraphNeedRebuild(uint32_t graph_id);
	uint64_t GetSessionId() const;

 private:
	std::shared_ptr<SessionImpl> impl_;
};
}  // namespace ge

#endif  // INC_EXTERNAL_GE_GE_API_H_
