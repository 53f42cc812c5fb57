// SPDX-License-Identifier: MIT
/*
 * acl.rt: devices and contexts (aclrtSetDevice, aclrtCreateContext, ...).
 * Contexts are ints; the current context is per thread, as in C.
 */
#include "pyacl.h"

PyDoc_STRVAR(set_device_doc,
"set_device(device_id) -> ret\n\n"
"aclrtSetDevice: opens the device (counted per process) and makes its\n"
"default context current in the calling thread.");

static PyObject *rt_set_device(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	return pyacl_call_i32("acl.rt.set_device", args, kwargs, "device_id", aclrtSetDevice);
}

PyDoc_STRVAR(reset_device_doc,
"reset_device(device_id) -> ret\n\n"
"aclrtResetDevice: drops one set_device reference; the last one destroys\n"
"the device's contexts, streams and events.");

static PyObject *rt_reset_device(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	return pyacl_call_i32("acl.rt.reset_device", args, kwargs, "device_id", aclrtResetDevice);
}

PyDoc_STRVAR(reset_device_force_doc,
"reset_device_force(device_id) -> ret\n\n"
"aclrtResetDeviceForce: drops every reference to the device at once.");

static PyObject *rt_reset_device_force(PyObject *Py_UNUSED(self), PyObject *args,
				       PyObject *kwargs)
{
	return pyacl_call_i32("acl.rt.reset_device_force", args, kwargs, "device_id",
			aclrtResetDeviceForce);
}

PyDoc_STRVAR(get_device_doc,
"get_device() -> (device_id, ret)\n\n"
"aclrtGetDevice: the device of the calling thread's current context.");

static PyObject *rt_get_device(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(unused))
{
	int32_t dev = 0;
	aclError ret;

	PYACL_NOGIL(ret = aclrtGetDevice(&dev));
	return Py_BuildValue("(ii)", dev, ret);
}

PyDoc_STRVAR(get_device_count_doc,
"get_device_count() -> (count, ret)\n\naclrtGetDeviceCount.");

static PyObject *rt_get_device_count(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(unused))
{
	uint32_t count = 0;
	aclError ret;

	PYACL_NOGIL(ret = aclrtGetDeviceCount(&count));
	return Py_BuildValue("(Ii)", count, ret);
}

PyDoc_STRVAR(get_run_mode_doc,
"get_run_mode() -> (run_mode, ret)\n\n"
"aclrtGetRunMode: ACL_DEVICE (0) or ACL_HOST (1); a PCIe card is ACL_HOST.");

static PyObject *rt_get_run_mode(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(unused))
{
	aclrtRunMode mode = ACL_DEVICE;
	aclError ret;

	PYACL_NOGIL(ret = aclrtGetRunMode(&mode));
	return Py_BuildValue("(ii)", (int)mode, ret);
}

PyDoc_STRVAR(set_ts_device_doc,
"set_ts_device(ts_id) -> ret\n\naclrtSetTsDevice.");

static PyObject *rt_set_ts_device(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	int32_t ts;
	const struct pyacl_arg spec[] = { pyacl_arg_i32("ts_id", &ts) };
	aclError ret;

	if (!PYACL_PARSE("acl.rt.set_ts_device", args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = aclrtSetTsDevice((aclrtTsId)ts));
	return pyacl_ret(ret);
}

PyDoc_STRVAR(synchronize_device_doc,
"synchronize_device() -> ret\n\n"
"aclrtSynchronizeDevice: waits, without the GIL, for every stream of the\n"
"current device.");

static PyObject *rt_synchronize_device(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(unused))
{
	aclError ret;

	PYACL_NOGIL(ret = aclrtSynchronizeDevice());
	return pyacl_ret(ret);
}

PyDoc_STRVAR(synchronize_device_with_timeout_doc,
"synchronize_device_with_timeout(timeout) -> ret\n\n"
"aclrtSynchronizeDeviceWithTimeout: timeout in ms, -1 waits for ever.");

static PyObject *rt_synchronize_device_with_timeout(PyObject *Py_UNUSED(self), PyObject *args,
						    PyObject *kwargs)
{
	return pyacl_call_i32("acl.rt.synchronize_device_with_timeout", args, kwargs, "timeout",
			aclrtSynchronizeDeviceWithTimeout);
}

PyDoc_STRVAR(query_device_status_doc,
"query_device_status(device_id) -> (device_status, ret)\n\n"
"aclrtQueryDeviceStatus: ACL_RT_DEVICE_STATUS_NORMAL (0) or _ABNORMAL (1).");

static PyObject *rt_query_device_status(PyObject *Py_UNUSED(self), PyObject *args,
					PyObject *kwargs)
{
	int32_t dev;
	const struct pyacl_arg spec[] = { pyacl_arg_i32("device_id", &dev) };
	aclrtDeviceStatus status = ACL_RT_DEVICE_STATUS_END;
	aclError ret;

	if (!PYACL_PARSE("acl.rt.query_device_status", args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = aclrtQueryDeviceStatus(dev, &status));
	return Py_BuildValue("(Ii)", (unsigned int)status, ret);
}

PyDoc_STRVAR(get_device_info_doc,
"get_device_info(device_id, attr) -> (value, ret)\n\n"
"aclrtGetDeviceInfo: an aclrtDevAttr value of a device.");

static PyObject *rt_get_device_info(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	uint32_t dev, attr;
	int64_t value = 0;
	const struct pyacl_arg spec[] = {
		pyacl_arg_u32("device_id", &dev),
		pyacl_arg_u32("attr", &attr),
	};
	aclError ret;

	if (!PYACL_PARSE("acl.rt.get_device_info", args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = aclrtGetDeviceInfo(dev, (aclrtDevAttr)attr, &value));
	return Py_BuildValue("(Li)", (long long)value, ret);
}

PyDoc_STRVAR(device_get_stream_priority_range_doc,
"device_get_stream_priority_range() -> (least_priority, greatest_priority, ret)\n\n"
"aclrtDeviceGetStreamPriorityRange.");

static PyObject *rt_device_get_stream_priority_range(PyObject *Py_UNUSED(self),
						     PyObject *Py_UNUSED(unused))
{
	int32_t least = 0, greatest = 0;
	aclError ret;

	PYACL_NOGIL(ret = aclrtDeviceGetStreamPriorityRange(&least, &greatest));
	return Py_BuildValue("(iii)", least, greatest, ret);
}

PyDoc_STRVAR(device_can_access_peer_doc,
"device_can_access_peer(device_id, peer_device_id) -> (can_access_peer, ret)\n\n"
"aclrtDeviceCanAccessPeer.");

static PyObject *rt_device_can_access_peer(PyObject *Py_UNUSED(self), PyObject *args,
					   PyObject *kwargs)
{
	int32_t dev, peer, can = 0;
	const struct pyacl_arg spec[] = {
		pyacl_arg_i32("device_id", &dev),
		pyacl_arg_i32("peer_device_id", &peer),
	};
	aclError ret;

	if (!PYACL_PARSE("acl.rt.device_can_access_peer", args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = aclrtDeviceCanAccessPeer(&can, dev, peer));
	return Py_BuildValue("(ii)", can, ret);
}

PyDoc_STRVAR(device_enable_peer_access_doc,
"device_enable_peer_access(peer_device_id, flags) -> ret\n\n"
"aclrtDeviceEnablePeerAccess.");

static PyObject *rt_device_enable_peer_access(PyObject *Py_UNUSED(self), PyObject *args,
					      PyObject *kwargs)
{
	int32_t peer;
	uint32_t flags;
	const struct pyacl_arg spec[] = {
		pyacl_arg_i32("peer_device_id", &peer),
		pyacl_arg_u32("flags", &flags),
	};
	aclError ret;

	if (!PYACL_PARSE("acl.rt.device_enable_peer_access", args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = aclrtDeviceEnablePeerAccess(peer, flags));
	return pyacl_ret(ret);
}

PyDoc_STRVAR(device_disable_peer_access_doc,
"device_disable_peer_access(peer_device_id) -> ret\n\n"
"aclrtDeviceDisablePeerAccess.");

static PyObject *rt_device_disable_peer_access(PyObject *Py_UNUSED(self), PyObject *args,
					       PyObject *kwargs)
{
	return pyacl_call_i32("acl.rt.device_disable_peer_access", args, kwargs, "peer_device_id",
			aclrtDeviceDisablePeerAccess);
}

PyDoc_STRVAR(device_get_uuid_doc,
"device_get_uuid(device_id) -> ({'bytes': [16 ints]}, ret)\n\n"
"aclrtDeviceGetUuid: the device's UUID, each byte as an int 0..255.");

static PyObject *rt_device_get_uuid(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	int32_t dev;
	const struct pyacl_arg spec[] = { pyacl_arg_i32("device_id", &dev) };
	aclrtUuid uuid = { { 0 } };
	PyObject *bytes, *item;
	aclError ret;
	size_t i;

	if (!PYACL_PARSE("acl.rt.device_get_uuid", args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = aclrtDeviceGetUuid(dev, &uuid));
	bytes = PyList_New(sizeof(uuid.bytes));
	if (!bytes)
		return NULL;
	for (i = 0; i < sizeof(uuid.bytes); i++) {
		item = PyLong_FromLong((unsigned char)uuid.bytes[i]);
		if (!item) {
			Py_DECREF(bytes);
			return NULL;
		}
		PyList_SET_ITEM(bytes, (Py_ssize_t)i, item);
	}
	return Py_BuildValue("({s:N}i)", "bytes", bytes, ret);
}

/* ---- contexts ----------------------------------------------------------- */

PyDoc_STRVAR(create_context_doc,
"create_context(device_id) -> (context, ret)\n\n"
"aclrtCreateContext: a new context on the device, made current in the\n"
"calling thread.");

static PyObject *rt_create_context(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	int32_t dev;
	const struct pyacl_arg spec[] = { pyacl_arg_i32("device_id", &dev) };
	aclrtContext ctx = NULL;
	aclError ret;

	if (!PYACL_PARSE("acl.rt.create_context", args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = aclrtCreateContext(&ctx, dev));
	return pyacl_ptr_ret(ctx, ret);
}

PyDoc_STRVAR(destroy_context_doc,
"destroy_context(context) -> ret\n\n"
"aclrtDestroyContext: waits for the context's streams, then frees them.");

static PyObject *rt_destroy_context(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	return pyacl_call_handle("acl.rt.destroy_context", args, kwargs, "context", aclrtDestroyContext);
}

PyDoc_STRVAR(set_context_doc,
"set_context(context) -> ret\n\n"
"aclrtSetCurrentContext: for the calling thread (a thread made by\n"
"acl.util.start_thread or threading starts with none).");

static PyObject *rt_set_context(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	return pyacl_call_handle("acl.rt.set_context", args, kwargs, "context", aclrtSetCurrentContext);
}

PyDoc_STRVAR(get_context_doc,
"get_context() -> (context, ret)\n\naclrtGetCurrentContext.");

static PyObject *rt_get_context(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(unused))
{
	aclrtContext ctx = NULL;
	aclError ret;

	PYACL_NOGIL(ret = aclrtGetCurrentContext(&ctx));
	return pyacl_ptr_ret(ctx, ret);
}

PyDoc_STRVAR(ctx_get_current_default_stream_doc,
"ctx_get_current_default_stream() -> (stream, ret)\n\n"
"aclrtCtxGetCurrentDefaultStream: the stream that 0 stands for.");

static PyObject *rt_ctx_get_current_default_stream(PyObject *Py_UNUSED(self),
						   PyObject *Py_UNUSED(unused))
{
	aclrtStream stream = NULL;
	aclError ret;

	PYACL_NOGIL(ret = aclrtCtxGetCurrentDefaultStream(&stream));
	return pyacl_ptr_ret(stream, ret);
}

PyMethodDef pyacl_device_methods[] = {
	PYACL_FUNC("set_device", rt_set_device, set_device_doc),
	PYACL_FUNC("reset_device", rt_reset_device, reset_device_doc),
	PYACL_FUNC("reset_device_force", rt_reset_device_force, reset_device_force_doc),
	PYACL_FUNC0("get_device", rt_get_device, get_device_doc),
	PYACL_FUNC0("get_device_count", rt_get_device_count, get_device_count_doc),
	PYACL_FUNC0("get_run_mode", rt_get_run_mode, get_run_mode_doc),
	PYACL_FUNC("set_ts_device", rt_set_ts_device, set_ts_device_doc),
	PYACL_FUNC0("synchronize_device", rt_synchronize_device, synchronize_device_doc),
	PYACL_FUNC("synchronize_device_with_timeout", rt_synchronize_device_with_timeout,
		   synchronize_device_with_timeout_doc),
	PYACL_FUNC("query_device_status", rt_query_device_status, query_device_status_doc),
	PYACL_FUNC("get_device_info", rt_get_device_info, get_device_info_doc),
	PYACL_FUNC0("device_get_stream_priority_range", rt_device_get_stream_priority_range,
		    device_get_stream_priority_range_doc),
	PYACL_FUNC("device_can_access_peer", rt_device_can_access_peer,
		   device_can_access_peer_doc),
	PYACL_FUNC("device_enable_peer_access", rt_device_enable_peer_access,
		   device_enable_peer_access_doc),
	PYACL_FUNC("device_disable_peer_access", rt_device_disable_peer_access,
		   device_disable_peer_access_doc),
	PYACL_FUNC("device_get_uuid", rt_device_get_uuid, device_get_uuid_doc),
	PYACL_FUNC("create_context", rt_create_context, create_context_doc),
	PYACL_FUNC("destroy_context", rt_destroy_context, destroy_context_doc),
	PYACL_FUNC("set_context", rt_set_context, set_context_doc),
	PYACL_FUNC0("get_context", rt_get_context, get_context_doc),
	PYACL_FUNC0("ctx_get_current_default_stream", rt_ctx_get_current_default_stream,
		    ctx_get_current_default_stream_doc),
	{ NULL, NULL, 0, NULL },
};
