// SPDX-License-Identifier: MIT
/*
 * GEInitialize, GEFinalize and Session over libnpucc and libascendcl.
 * BuildGraph compiles to an .om in memory; the first run loads it with
 * aclmdlLoadFromMem in the calling thread's context (or on the session's
 * device, ge.exec.deviceId, when the thread has none).  RunGraph copies
 * host tensors through device buffers around aclmdlExecute;
 * RunGraphWithStreamAsync queues aclmdlExecuteAsync on the caller's
 * stream, so it is ordered with the caller's copies and events there.
 */
#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>

#include "acl/acl.h"
#include "ge_internal.h"

namespace ge {
namespace {
std::mutex g_lock;
int g_refs;				/* GEInitialize calls not yet finalized */
std::map<std::string, std::string> g_options;
std::atomic<uint64_t> g_session_ids{1};
thread_local std::string t_error;

/* The options libge_runner takes; docs/graph.md says what each does. */
const std::set<std::string> kOptions = {
	OPTION_GRAPH_RUN_MODE, OPTION_EXEC_DEVICE_ID, OPTION_EXEC_SESSION_ID, OPTION_EXEC_JOB_ID,
	OPTION_EXEC_PRECISION_MODE, OPTION_EXEC_ENABLE_DUMP, OPTION_EXEC_DISABLE_REUSED_MEMORY,
	SOC_VERSION, INPUT_SHAPE, OUTPUT_DATATYPE,
};

bool is_uint(const std::string &s)
{
	return !s.empty() && s.size() < 10 && s.find_first_not_of("0123456789") == std::string::npos;
}

Status fail(Status s, const std::string &msg)
{
	SetErrorMsg(msg);
	return s;
}

Status check_options(const std::map<std::string, std::string> &o, const char *who)
{
	for (auto &kv : o) {
		const std::string &k = kv.first, &v = kv.second;

		if (!kOptions.count(k))
			return fail(PARAM_INVALID, std::string(who) + ": option '" + k +
				    "' is not supported (docs/graph.md lists the options)");
		if ((k == OPTION_GRAPH_RUN_MODE && v != "0" && v != "1") ||
		    ((k == OPTION_EXEC_DEVICE_ID || k == OPTION_EXEC_SESSION_ID ||
		      k == OPTION_EXEC_JOB_ID) && !is_uint(v)) ||
		    (k == OPTION_EXEC_ENABLE_DUMP && v != "0" && v != "false") ||
		    (k == OPTION_EXEC_DISABLE_REUSED_MEMORY && v != "0" && v != "1") ||
		    (k == OUTPUT_DATATYPE && v != "FP32" && v != "FP16"))
			return fail(PARAM_INVALID, std::string(who) + ": option '" + k +
				    "' cannot be '" + v + "'");
	}
	return SUCCESS;
}

std::map<std::string, std::string> strings(const std::map<AscendString, AscendString> &o)
{
	std::map<std::string, std::string> r;

	for (auto &kv : o)
		r[kv.first.GetString()] = kv.second.GetString();
	return r;
}

bool initialized()
{
	std::lock_guard<std::mutex> l(g_lock);
	return g_refs > 0;
}

std::string acl_error(aclError e)
{
	const char *msg = aclGetRecentErrMsg();

	return "AscendCL error " + std::to_string(e) + (msg && *msg ? std::string(": ") + msg : "");
}
}  // namespace

void SetErrorMsg(const std::string &msg) { t_error = msg; }
std::string ErrorMsg() { return t_error; }
std::string GEGetErrorMsg() { return t_error; }
AscendString GEGetErrorMsgV2() { return AscendString(t_error.c_str()); }

Status GEInitialize(const std::map<std::string, std::string> &options)
{
	Status s = check_options(options, "GEInitialize");

	if (s != SUCCESS)
		return s;
	std::lock_guard<std::mutex> l(g_lock);
	if (g_refs++ == 0)
		g_options = options;
	return SUCCESS;
}

Status GEInitialize(const std::map<AscendString, AscendString> &options)
{
	return GEInitialize(strings(options));
}

Status GEFinalize()
{
	std::lock_guard<std::mutex> l(g_lock);

	if (g_refs == 0)
		return fail(GE_CLI_GE_NOT_INITIALIZED, "GEFinalize: GE is not initialized");
	if (--g_refs == 0)
		g_options.clear();
	return SUCCESS;
}

/* One graph of a session: its compiled .om and, once run, its loaded model. */
struct GraphEntry {
	std::mutex lock;
	Graph graph;
	std::map<std::string, std::string> options;
	std::vector<uint8_t> om;
	bool built = false;
	bool loaded = false;
	uint32_t model_id = 0;
	aclrtContext ctx = nullptr;
	aclmdlDesc *desc = nullptr;

	~GraphEntry();
};

GraphEntry::~GraphEntry()
{
	aclrtContext cur = nullptr;

	if (!loaded)
		return;
	/* The model belongs to the context it was loaded in. */
	(void)aclrtGetCurrentContext(&cur);
	if (cur != ctx)
		(void)aclrtSetCurrentContext(ctx);
	(void)aclmdlUnload(model_id);
	(void)aclmdlDestroyDesc(desc);
	if (cur && cur != ctx)
		(void)aclrtSetCurrentContext(cur);
}

class SessionImpl {
 public:
	std::mutex lock;
	std::map<uint32_t, std::shared_ptr<GraphEntry>> graphs;
	std::map<std::string, std::string> options;
	std::vector<std::thread> async;		/* RunGraphAsync's, joined at the end */
	bool valid = false;
	int32_t device = 0;
	bool device_set = false;
	uint64_t id = 0;

	~SessionImpl();
	Status Check() const;
	Status Find(uint32_t graph_id, std::shared_ptr<GraphEntry> &e, const char *who);
	Status Build(GraphEntry &e, const std::vector<TensorDesc> &shapes);
	Status Load(GraphEntry &e);
	Status RunHost(GraphEntry &e, const std::vector<Tensor> &inputs, std::vector<Tensor> &outputs);
	Status CheckInputs(GraphEntry &e, const std::vector<Tensor> &inputs, const char *who);
};

SessionImpl::~SessionImpl()
{
	for (auto &t : async)
		t.join();
	graphs.clear();
	if (device_set)
		(void)aclrtResetDevice(device);
}

Status SessionImpl::Check() const
{
	if (!initialized())
		return fail(GE_CLI_GE_NOT_INITIALIZED, "GE is not initialized: call GEInitialize first");
	if (!valid)
		return fail(GE_CLI_SESS_CONSTRUCT_FAILED,
			    "the session was not constructed: " + std::string("see its options"));
	return SUCCESS;
}

Status SessionImpl::Find(uint32_t graph_id, std::shared_ptr<GraphEntry> &e, const char *who)
{
	Status s = Check();

	if (s != SUCCESS)
		return s;
	std::lock_guard<std::mutex> l(lock);
	auto it = graphs.find(graph_id);
	if (it == graphs.end())
		return fail(GE_GRAPH_GRAPH_NOT_EXIST, std::string(who) + ": graph " +
			    std::to_string(graph_id) + " was not added to this session");
	e = it->second;
	return SUCCESS;
}

Status SessionImpl::Build(GraphEntry &e, const std::vector<TensorDesc> &shapes)
{
	std::lock_guard<std::mutex> l(e.lock);
	std::map<std::string, std::string> opts = options;
	std::string error;
	const GraphImpl *g = GraphImpl::of(e.graph);

	if (e.built)
		return SUCCESS;
	for (auto &kv : e.options)
		opts[kv.first] = kv.second;
	Status s = CompileGraphToOm(*g, shapes, opts, e.om, error);
	if (s != SUCCESS)
		return fail(s, "BuildGraph: graph '" + g->name + "': " + error);
	e.built = true;
	return SUCCESS;
}

Status SessionImpl::Load(GraphEntry &e)
{
	std::lock_guard<std::mutex> l(e.lock);
	aclError ret;

	if (e.loaded)
		return SUCCESS;
	if (aclrtGetCurrentContext(&e.ctx) != ACL_SUCCESS || !e.ctx) {
		std::lock_guard<std::mutex> sl(lock);

		ret = aclrtSetDevice(device);
		if (ret != ACL_SUCCESS)
			return fail(RT_FAILED, "aclrtSetDevice(" + std::to_string(device) + "): " +
				    acl_error(ret));
		device_set = true;
		(void)aclrtGetCurrentContext(&e.ctx);
	}
	ret = aclmdlLoadFromMem(e.om.data(), e.om.size(), &e.model_id);
	if (ret != ACL_SUCCESS)
		return fail(RT_FAILED, "aclmdlLoadFromMem: " + acl_error(ret));
	e.desc = aclmdlCreateDesc();
	if (!e.desc || aclmdlGetDesc(e.desc, e.model_id) != ACL_SUCCESS) {
		(void)aclmdlDestroyDesc(e.desc);
		(void)aclmdlUnload(e.model_id);
		e.desc = nullptr;
		return fail(RT_FAILED, "aclmdlGetDesc: " + acl_error(ACL_ERROR_FAILURE));
	}
	e.loaded = true;
	return SUCCESS;
}

Status SessionImpl::CheckInputs(GraphEntry &e, const std::vector<Tensor> &inputs, const char *who)
{
	size_t n = aclmdlGetNumInputs(e.desc);

	if (inputs.size() != n)
		return fail(PARAM_INVALID, std::string(who) + ": " + std::to_string(inputs.size()) +
			    " input tensors, the graph has " + std::to_string(n) + " inputs");
	for (size_t i = 0; i < n; i++) {
		size_t want = aclmdlGetInputSizeByIndex(e.desc, i);

		if (inputs[i].GetSize() != want)
			return fail(PARAM_INVALID, std::string(who) + ": input " + std::to_string(i) +
				    " (" + aclmdlGetInputNameByIndex(e.desc, i) + ") has " +
				    std::to_string(inputs[i].GetSize()) + " bytes, the graph needs " +
				    std::to_string(want));
	}
	return SUCCESS;
}

static TensorDesc output_desc(aclmdlDesc *desc, size_t i)
{
	aclmdlIODims dims = {};
	std::vector<int64_t> shape;

	(void)aclmdlGetOutputDims(desc, i, &dims);
	for (size_t d = 0; d < dims.dimCount; d++)
		shape.push_back(dims.dims[d]);
	/* aclDataType and ge::DataType share their values (include/npu_dtypes.h). */
	return TensorDesc(Shape(shape), FORMAT_ND, (DataType)aclmdlGetOutputDataType(desc, i));
}

/* Device buffers of the given sizes, in a dataset; freed by free_dataset. */
static aclmdlDataset *device_dataset(const std::vector<size_t> &sizes)
{
	aclmdlDataset *ds = aclmdlCreateDataset();

	for (size_t i = 0; ds && i < sizes.size(); i++) {
		void *p = nullptr;

		if (aclrtMalloc(&p, sizes[i] ? sizes[i] : 1, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS ||
		    aclmdlAddDatasetBuffer(ds, aclCreateDataBuffer(p, sizes[i])) != ACL_SUCCESS) {
			(void)aclrtFree(p);
			return ds;	/* short: the caller sees the count */
		}
	}
	return ds;
}

static void free_dataset(aclmdlDataset *ds, bool free_memory)
{
	for (size_t i = 0; ds && i < aclmdlGetDatasetNumBuffers(ds); i++) {
		aclDataBuffer *b = aclmdlGetDatasetBuffer(ds, i);

		if (free_memory)
			(void)aclrtFree(aclGetDataBufferAddr(b));
		(void)aclDestroyDataBuffer(b);
	}
	(void)aclmdlDestroyDataset(ds);
}

Status SessionImpl::RunHost(GraphEntry &e, const std::vector<Tensor> &inputs,
			    std::vector<Tensor> &outputs)
{
	size_t nin = aclmdlGetNumInputs(e.desc), nout = aclmdlGetNumOutputs(e.desc);
	std::vector<size_t> in_sizes, out_sizes;
	Status s = CheckInputs(e, inputs, "RunGraph");

	if (s != SUCCESS)
		return s;
	for (size_t i = 0; i < nin; i++)
		in_sizes.push_back(aclmdlGetInputSizeByIndex(e.desc, i));
	for (size_t i = 0; i < nout; i++)
		out_sizes.push_back(aclmdlGetOutputSizeByIndex(e.desc, i));
	aclmdlDataset *in = device_dataset(in_sizes), *out = device_dataset(out_sizes);
	aclError ret = ACL_ERROR_BAD_ALLOC;

	if (in && out && aclmdlGetDatasetNumBuffers(in) == nin &&
	    aclmdlGetDatasetNumBuffers(out) == nout) {
		ret = ACL_SUCCESS;
		for (size_t i = 0; i < nin && ret == ACL_SUCCESS; i++)
			if (in_sizes[i])
				ret = aclrtMemcpy(aclGetDataBufferAddr(aclmdlGetDatasetBuffer(in, i)),
						  in_sizes[i], inputs[i].GetData(), in_sizes[i],
						  ACL_MEMCPY_HOST_TO_DEVICE);
		if (ret == ACL_SUCCESS)
			ret = aclmdlExecute(e.model_id, in, out);
		outputs.clear();
		for (size_t i = 0; i < nout && ret == ACL_SUCCESS; i++) {
			std::vector<uint8_t> host(out_sizes[i]);

			if (out_sizes[i])
				ret = aclrtMemcpy(host.data(), host.size(),
						  aclGetDataBufferAddr(aclmdlGetDatasetBuffer(out, i)),
						  out_sizes[i], ACL_MEMCPY_DEVICE_TO_HOST);
			outputs.push_back(Tensor(output_desc(e.desc, i), host));
		}
	}
	if (ret != ACL_SUCCESS)
		s = fail(GE_GRAPH_RUNGRAPH_FAILED, "RunGraph: " + acl_error(ret));
	free_dataset(in, true);
	free_dataset(out, true);
	return s;
}

/* Session */

Session::Session(const std::map<std::string, std::string> &options)
	: impl_(std::make_shared<SessionImpl>())
{
	impl_->id = g_session_ids++;
	impl_->options = options;
	if (!initialized()) {
		SetErrorMsg("Session: GE is not initialized: call GEInitialize first");
		return;
	}
	if (check_options(options, "Session") != SUCCESS)
		return;
	std::lock_guard<std::mutex> l(g_lock);
	std::string dev;
	if (options.count(OPTION_EXEC_DEVICE_ID))
		dev = options.at(OPTION_EXEC_DEVICE_ID);
	else if (g_options.count(OPTION_EXEC_DEVICE_ID))
		dev = g_options.at(OPTION_EXEC_DEVICE_ID);
	if (!dev.empty())
		impl_->device = std::stoi(dev);
	impl_->valid = true;
}

Session::Session(const std::map<AscendString, AscendString> &options) : Session(strings(options)) {}

Session::~Session() = default;

Status Session::AddGraph(uint32_t graph_id, const Graph &graph)
{
	return AddGraph(graph_id, graph, std::map<AscendString, AscendString>());
}

Status Session::AddGraph(uint32_t graph_id, const Graph &graph,
			 const std::map<AscendString, AscendString> &options)
{
	std::map<std::string, std::string> opts = strings(options);
	Status s = impl_->Check();

	if (s != SUCCESS || (s = check_options(opts, "AddGraph")) != SUCCESS)
		return s;
	if (!graph.IsValid())
		return fail(GE_GRAPH_NULL_INPUT, "AddGraph: graph " + std::to_string(graph_id) +
			    " has no outputs (SetOutputs) and is no parsed model");
	std::lock_guard<std::mutex> l(impl_->lock);
	if (impl_->graphs.count(graph_id))
		return fail(GE_GRAPH_GRAPH_ALREADY_EXIST, "AddGraph: graph " +
			    std::to_string(graph_id) + " is already in this session");
	auto e = std::make_shared<GraphEntry>();
	e->graph = graph;
	e->options = opts;
	impl_->graphs[graph_id] = e;
	return SUCCESS;
}

Status Session::AddGraphWithCopy(uint32_t graph_id, const Graph &graph)
{
	return AddGraph(graph_id, graph);
}

Status Session::RemoveGraph(uint32_t graph_id)
{
	std::shared_ptr<GraphEntry> e;
	Status s = impl_->Find(graph_id, e, "RemoveGraph");

	if (s != SUCCESS)
		return s;
	std::lock_guard<std::mutex> l(impl_->lock);
	impl_->graphs.erase(graph_id);
	return SUCCESS;
}

static std::vector<TensorDesc> descs_of(const std::vector<Tensor> &inputs)
{
	std::vector<TensorDesc> d;

	for (auto &t : inputs)
		d.push_back(t.GetTensorDesc());
	return d;
}

Status Session::BuildGraph(uint32_t graph_id, const std::vector<InputTensorInfo> &inputs)
{
	std::vector<Tensor> tensors;

	for (auto &i : inputs)
		tensors.push_back(Tensor(TensorDesc(Shape(i.dims), FORMAT_ND, (DataType)i.data_type)));
	return BuildGraph(graph_id, tensors);
}

Status Session::BuildGraph(uint32_t graph_id, const std::vector<ge::Tensor> &inputs)
{
	std::shared_ptr<GraphEntry> e;
	Status s = impl_->Find(graph_id, e, "BuildGraph");

	return s != SUCCESS ? s : impl_->Build(*e, descs_of(inputs));
}

Status Session::CompileGraph(uint32_t graph_id)
{
	return BuildGraph(graph_id, std::vector<ge::Tensor>());
}

Status Session::RunGraph(uint32_t graph_id, const std::vector<Tensor> &inputs,
			 std::vector<Tensor> &outputs)
{
	std::shared_ptr<GraphEntry> e;
	Status s = impl_->Find(graph_id, e, "RunGraph");

	/* As the vendor's: a graph not built yet is built for these inputs. */
	if (s == SUCCESS)
		s = impl_->Build(*e, descs_of(inputs));
	if (s == SUCCESS)
		s = impl_->Load(*e);
	return s != SUCCESS ? s : impl_->RunHost(*e, inputs, outputs);
}

Status Session::RunGraphAsync(uint32_t graph_id, const std::vector<ge::Tensor> &inputs,
			      RunAsyncCallback callback)
{
	std::shared_ptr<GraphEntry> e;
	Status s = impl_->Find(graph_id, e, "RunGraphAsync");

	if (s == SUCCESS)
		s = impl_->Build(*e, descs_of(inputs));
	if (s == SUCCESS)
		s = impl_->Load(*e);
	if (s == SUCCESS)
		s = impl_->CheckInputs(*e, inputs, "RunGraphAsync");
	if (s != SUCCESS)
		return s;
	SessionImpl *impl = impl_.get();
	std::lock_guard<std::mutex> l(impl_->lock);
	impl_->async.emplace_back([impl, e, inputs, callback]() {
		std::vector<Tensor> outputs;
		Status st;

		(void)aclrtSetCurrentContext(e->ctx);
		st = impl->RunHost(*e, inputs, outputs);
		if (callback)
			callback(st, outputs);
	});
	return SUCCESS;
}

Status Session::RunGraphWithStreamAsync(uint32_t graph_id, void *stream,
					const std::vector<Tensor> &inputs,
					std::vector<Tensor> &outputs)
{
	std::shared_ptr<GraphEntry> e;
	Status s = impl_->Find(graph_id, e, "RunGraphWithStreamAsync");

	if (s != SUCCESS)
		return s;
	{
		std::lock_guard<std::mutex> l(e->lock);

		if (!e->built)
			return fail(GE_GRAPH_NOT_BUILT, "RunGraphWithStreamAsync: graph " +
				    std::to_string(graph_id) + " is not built: call BuildGraph first");
	}
	if ((s = impl_->Load(*e)) != SUCCESS ||
	    (s = impl_->CheckInputs(*e, inputs, "RunGraphWithStreamAsync")) != SUCCESS)
		return s;
	size_t nout = aclmdlGetNumOutputs(e->desc);
	if (outputs.size() != nout)
		return fail(PARAM_INVALID, "RunGraphWithStreamAsync: " +
			    std::to_string(outputs.size()) + " output tensors, the graph has " +
			    std::to_string(nout) + " outputs (give device memory for each)");
	for (size_t i = 0; i < nout; i++)
		if (outputs[i].GetSize() < aclmdlGetOutputSizeByIndex(e->desc, i))
			return fail(PARAM_INVALID, "RunGraphWithStreamAsync: output " +
				    std::to_string(i) + " has " + std::to_string(outputs[i].GetSize()) +
				    " bytes, the graph writes " +
				    std::to_string(aclmdlGetOutputSizeByIndex(e->desc, i)));
	aclmdlDataset *in = aclmdlCreateDataset(), *out = aclmdlCreateDataset();
	for (auto &t : inputs)
		(void)aclmdlAddDatasetBuffer(in, aclCreateDataBuffer(const_cast<uint8_t *>(t.GetData()),
								     t.GetSize()));
	for (auto &t : outputs)
		(void)aclmdlAddDatasetBuffer(out, aclCreateDataBuffer(t.GetData(), t.GetSize()));
	aclError ret = aclmdlExecuteAsync(e->model_id, in, out, stream);
	free_dataset(in, false);
	free_dataset(out, false);
	if (ret != ACL_SUCCESS)
		return fail(GE_GRAPH_RUNGRAPH_FAILED, "RunGraphWithStreamAsync: " + acl_error(ret));
	for (size_t i = 0; i < nout; i++) {
		TensorDesc d = output_desc(e->desc, i);

		d.SetPlacement(kPlacementDevice);
		outputs[i].SetTensorDesc(d);
	}
	return SUCCESS;
}

bool Session::IsGraphNeedRebuild(uint32_t graph_id)
{
	std::shared_ptr<GraphEntry> e;

	if (impl_->Find(graph_id, e, "IsGraphNeedRebuild") != SUCCESS)
		return true;
	std::lock_guard<std::mutex> l(e->lock);
	return !e->built;
}

uint64_t Session::GetSessionId() const { return impl_->id; }
}  // namespace ge
