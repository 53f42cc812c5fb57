// SPDX-License-Identifier: MIT
/*
 * acl.rt: streams and events (aclrtCreateStream, aclrtRecordEvent, ...).
 * Stream 0 is the default stream of the calling thread's current context.
 * Every wait (synchronize_*, and destroys, which wait for the stream) runs
 * without the GIL.
 */
#include "pyacl.h"

/* f(handle) -> (uint32 value, ret), e.g. a status query. */
static PyObject *query_u32(const char *func, PyObject *args, PyObject *kwargs, const char *name,
			   aclError (*fn)(void *, uint32_t *))
{
	void *handle;
	const struct pyacl_arg spec[] = { pyacl_arg_ptr(name, &handle) };
	uint32_t value = 0;
	aclError ret;

	if (!PYACL_PARSE(func, args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = fn(handle, &value));
	return Py_BuildValue("(Ii)", value, ret);
}

/* f(handle, int32 timeout) -> ret */
static PyObject *call_timeout(const char *func, PyObject *args, PyObject *kwargs,
			      const char *name, aclError (*fn)(void *, int32_t))
{
	void *handle;
	int32_t timeout;
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr(name, &handle),
		pyacl_arg_i32("timeout", &timeout),
	};
	aclError ret;

	if (!PYACL_PARSE(func, args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = fn(handle, timeout));
	return pyacl_ret(ret);
}

/* f(event, stream) -> ret */
static PyObject *call_event_stream(const char *func, PyObject *args, PyObject *kwargs,
				   aclError (*fn)(aclrtEvent, aclrtStream))
{
	void *event, *stream;
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr("event", &event),
		pyacl_arg_ptr("stream", &stream),
	};
	aclError ret;

	if (!PYACL_PARSE(func, args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = fn(event, stream));
	return pyacl_ret(ret);
}

/* create_event*(flag) -> (event, ret) */
static PyObject *create_event_flag(const char *func, PyObject *args, PyObject *kwargs,
				   aclError (*fn)(aclrtEvent *, uint32_t))
{
	uint32_t flag;
	const struct pyacl_arg spec[] = { pyacl_arg_u32("flag", &flag) };
	aclrtEvent event = NULL;
	aclError ret;

	if (!PYACL_PARSE(func, args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = fn(&event, flag));
	return pyacl_ptr_ret(event, ret);
}

/* The status enums are ints in C; the queries read them through uint32_t. */
static aclError stream_query(void *stream, uint32_t *status)
{
	aclrtStreamStatus s = ACL_STREAM_STATUS_RESERVED;
	aclError ret = aclrtStreamQuery(stream, &s);

	*status = (uint32_t)s;
	return ret;
}

static aclError event_query(void *event, uint32_t *status)
{
	aclrtEventStatus s = ACL_EVENT_STATUS_RESERVED;
	aclError ret;

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	ret = aclrtQueryEvent(event, &s);
#pragma GCC diagnostic pop
	*status = (uint32_t)s;
	return ret;
}

static aclError event_query_status(void *event, uint32_t *status)
{
	aclrtEventRecordedStatus s = ACL_EVENT_RECORDED_STATUS_NOT_READY;
	aclError ret = aclrtQueryEventStatus(event, &s);

	*status = (uint32_t)s;
	return ret;
}

static aclError event_query_wait_status(void *event, uint32_t *status)
{
	aclrtEventWaitStatus s = ACL_EVENT_WAIT_STATUS_RESERVED;
	aclError ret = aclrtQueryEventWaitStatus(event, &s);

	*status = (uint32_t)s;
	return ret;
}

/* ---- streams ------------------------------------------------------------ */

PyDoc_STRVAR(create_stream_doc,
"create_stream() -> (stream, ret)\n\naclrtCreateStream: in the current context.");

static PyObject *rt_create_stream(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(unused))
{
	aclrtStream stream = NULL;
	aclError ret;

	PYACL_NOGIL(ret = aclrtCreateStream(&stream));
	return pyacl_ptr_ret(stream, ret);
}

PyDoc_STRVAR(create_stream_with_config_doc,
"create_stream_with_config(priority, flag) -> (stream, ret)\n\n"
"aclrtCreateStreamWithConfig: priority 0 (greatest) .. 7 (least).");

static PyObject *rt_create_stream_with_config(PyObject *Py_UNUSED(self), PyObject *args,
					      PyObject *kwargs)
{
	uint32_t priority, flag;
	const struct pyacl_arg spec[] = {
		pyacl_arg_u32("priority", &priority),
		pyacl_arg_u32("flag", &flag),
	};
	aclrtStream stream = NULL;
	aclError ret;

	if (!PYACL_PARSE("acl.rt.create_stream_with_config", args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = aclrtCreateStreamWithConfig(&stream, priority, flag));
	return pyacl_ptr_ret(stream, ret);
}

/* Callbacks of a destroyed stream that never ran will never run. */
static PyObject *destroy_stream(const char *func, PyObject *args, PyObject *kwargs,
				aclError (*fn)(aclrtStream))
{
	void *stream;
	const struct pyacl_arg spec[] = { pyacl_arg_ptr("stream", &stream) };
	aclError ret;

	if (!PYACL_PARSE(func, args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = fn(stream));
	if (ret == ACL_SUCCESS && stream)
		pyacl_callbacks_gone(stream);
	return pyacl_ret(ret);
}

PyDoc_STRVAR(destroy_stream_doc,
"destroy_stream(stream) -> ret\n\n"
"aclrtDestroyStream: waits for the stream's work, then frees it.");

static PyObject *rt_destroy_stream(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	return destroy_stream("acl.rt.destroy_stream", args, kwargs, aclrtDestroyStream);
}

PyDoc_STRVAR(destroy_stream_force_doc,
"destroy_stream_force(stream) -> ret\n\n"
"aclrtDestroyStreamForce: frees the stream without waiting for its work.");

static PyObject *rt_destroy_stream_force(PyObject *Py_UNUSED(self), PyObject *args,
					 PyObject *kwargs)
{
	return destroy_stream("acl.rt.destroy_stream_force", args, kwargs,
			      aclrtDestroyStreamForce);
}

PyDoc_STRVAR(synchronize_stream_doc,
"synchronize_stream(stream) -> ret\n\n"
"aclrtSynchronizeStream: waits, without the GIL, for the stream's work.");

static PyObject *rt_synchronize_stream(PyObject *Py_UNUSED(self), PyObject *args,
				       PyObject *kwargs)
{
	return pyacl_call_handle("acl.rt.synchronize_stream", args, kwargs, "stream",
				 aclrtSynchronizeStream);
}

PyDoc_STRVAR(synchronize_stream_with_timeout_doc,
"synchronize_stream_with_timeout(stream, timeout) -> ret\n\n"
"aclrtSynchronizeStreamWithTimeout: timeout in ms, -1 waits for ever.");

static PyObject *rt_synchronize_stream_with_timeout(PyObject *Py_UNUSED(self), PyObject *args,
						    PyObject *kwargs)
{
	return call_timeout("acl.rt.synchronize_stream_with_timeout", args, kwargs, "stream",
			    aclrtSynchronizeStreamWithTimeout);
}

PyDoc_STRVAR(stream_query_doc,
"stream_query(stream) -> (status, ret)\n\n"
"aclrtStreamQuery: ACL_STREAM_STATUS_COMPLETE (0) or _NOT_READY (1).");

static PyObject *rt_stream_query(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	return query_u32("acl.rt.stream_query", args, kwargs, "stream", stream_query);
}

PyDoc_STRVAR(stream_wait_event_doc,
"stream_wait_event(stream, event) -> ret\n\n"
"aclrtStreamWaitEvent: the stream's later work waits, on the card, for\n"
"the event's record.");

static PyObject *rt_stream_wait_event(PyObject *Py_UNUSED(self), PyObject *args,
				      PyObject *kwargs)
{
	void *stream, *event;
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr("stream", &stream),
		pyacl_arg_ptr("event", &event),
	};
	aclError ret;

	if (!PYACL_PARSE("acl.rt.stream_wait_event", args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = aclrtStreamWaitEvent(stream, event));
	return pyacl_ret(ret);
}

PyDoc_STRVAR(stream_get_id_doc,
"stream_get_id(stream) -> (stream_id, ret)\n\naclrtStreamGetId.");

static PyObject *rt_stream_get_id(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	void *stream;
	const struct pyacl_arg spec[] = { pyacl_arg_ptr("stream", &stream) };
	int32_t id = 0;
	aclError ret;

	if (!PYACL_PARSE("acl.rt.stream_get_id", args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = aclrtStreamGetId(stream, &id));
	return Py_BuildValue("(ii)", id, ret);
}

PyDoc_STRVAR(get_stream_available_num_doc,
"get_stream_available_num() -> (stream_count, ret)\n\naclrtGetStreamAvailableNum.");

static PyObject *rt_get_stream_available_num(PyObject *Py_UNUSED(self),
					     PyObject *Py_UNUSED(unused))
{
	uint32_t count = 0;
	aclError ret;

	PYACL_NOGIL(ret = aclrtGetStreamAvailableNum(&count));
	return Py_BuildValue("(Ii)", count, ret);
}

PyDoc_STRVAR(set_stream_failure_mode_doc,
"set_stream_failure_mode(stream, mode) -> ret\n\n"
"aclrtSetStreamFailureMode: ACL_CONTINUE_ON_FAILURE (0) or\n"
"ACL_STOP_ON_FAILURE (1).");

static PyObject *rt_set_stream_failure_mode(PyObject *Py_UNUSED(self), PyObject *args,
					    PyObject *kwargs)
{
	void *stream;
	uint64_t mode;
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr("stream", &stream),
		pyacl_arg_u64("mode", &mode),
	};
	aclError ret;

	if (!PYACL_PARSE("acl.rt.set_stream_failure_mode", args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = aclrtSetStreamFailureMode(stream, mode));
	return pyacl_ret(ret);
}

PyDoc_STRVAR(stream_abort_doc,
"stream_abort(stream) -> ret\n\naclrtStreamAbort: drops the stream's queued work.");

static PyObject *rt_stream_abort(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	return pyacl_call_handle("acl.rt.stream_abort", args, kwargs, "stream", aclrtStreamAbort);
}

/* ---- events ------------------------------------------------------------- */

PyDoc_STRVAR(create_event_doc,
"create_event() -> (event, ret)\n\naclrtCreateEvent.");

static PyObject *rt_create_event(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(unused))
{
	aclrtEvent event = NULL;
	aclError ret;

	PYACL_NOGIL(ret = aclrtCreateEvent(&event));
	return pyacl_ptr_ret(event, ret);
}

PyDoc_STRVAR(create_event_with_flag_doc,
"create_event_with_flag(flag) -> (event, ret)\n\n"
"aclrtCreateEventWithFlag: ACL_EVENT_SYNC (1), ACL_EVENT_TIME_LINE (8), ...");

static PyObject *rt_create_event_with_flag(PyObject *Py_UNUSED(self), PyObject *args,
					   PyObject *kwargs)
{
	return create_event_flag("acl.rt.create_event_with_flag", args, kwargs,
				 aclrtCreateEventWithFlag);
}

PyDoc_STRVAR(create_event_ex_with_flag_doc,
"create_event_ex_with_flag(flag) -> (event, ret)\n\naclrtCreateEventExWithFlag.");

static PyObject *rt_create_event_ex_with_flag(PyObject *Py_UNUSED(self), PyObject *args,
					      PyObject *kwargs)
{
	return create_event_flag("acl.rt.create_event_ex_with_flag", args, kwargs,
				 aclrtCreateEventExWithFlag);
}

PyDoc_STRVAR(destroy_event_doc,
"destroy_event(event) -> ret\n\naclrtDestroyEvent.");

static PyObject *rt_destroy_event(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	return pyacl_call_handle("acl.rt.destroy_event", args, kwargs, "event", aclrtDestroyEvent);
}

PyDoc_STRVAR(record_event_doc,
"record_event(event, stream) -> ret\n\n"
"aclrtRecordEvent: the event completes when the stream gets there.");

static PyObject *rt_record_event(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	return call_event_stream("acl.rt.record_event", args, kwargs, aclrtRecordEvent);
}

PyDoc_STRVAR(reset_event_doc,
"reset_event(event, stream) -> ret\n\n"
"aclrtResetEvent: back to never recorded when the stream gets there.");

static PyObject *rt_reset_event(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	return call_event_stream("acl.rt.reset_event", args, kwargs, aclrtResetEvent);
}

PyDoc_STRVAR(query_event_doc,
"query_event(event) -> (status, ret)\n\n"
"aclrtQueryEvent (deprecated): ACL_EVENT_STATUS_COMPLETE (0) or\n"
"_NOT_READY (1).");

static PyObject *rt_query_event(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	return query_u32("acl.rt.query_event", args, kwargs, "event", event_query);
}

PyDoc_STRVAR(query_event_status_doc,
"query_event_status(event) -> (status, ret)\n\n"
"aclrtQueryEventStatus: ACL_EVENT_RECORDED_STATUS_NOT_READY (0) or\n"
"_COMPLETE (1).");

static PyObject *rt_query_event_status(PyObject *Py_UNUSED(self), PyObject *args,
				       PyObject *kwargs)
{
	return query_u32("acl.rt.query_event_status", args, kwargs, "event", event_query_status);
}

PyDoc_STRVAR(query_event_wait_status_doc,
"query_event_wait_status(event) -> (status, ret)\n\n"
"aclrtQueryEventWaitStatus: ACL_EVENT_WAIT_STATUS_COMPLETE (0) or\n"
"_NOT_READY (1).");

static PyObject *rt_query_event_wait_status(PyObject *Py_UNUSED(self), PyObject *args,
					    PyObject *kwargs)
{
	return query_u32("acl.rt.query_event_wait_status", args, kwargs, "event",
			 event_query_wait_status);
}

PyDoc_STRVAR(synchronize_event_doc,
"synchronize_event(event) -> ret\n\n"
"aclrtSynchronizeEvent: waits, without the GIL, for the event's record.");

static PyObject *rt_synchronize_event(PyObject *Py_UNUSED(self), PyObject *args,
				      PyObject *kwargs)
{
	return pyacl_call_handle("acl.rt.synchronize_event", args, kwargs, "event",
				 aclrtSynchronizeEvent);
}

PyDoc_STRVAR(synchronize_event_with_timeout_doc,
"synchronize_event_with_timeout(event, timeout) -> ret\n\n"
"aclrtSynchronizeEventWithTimeout: timeout in ms, -1 waits for ever.");

static PyObject *rt_synchronize_event_with_timeout(PyObject *Py_UNUSED(self), PyObject *args,
						   PyObject *kwargs)
{
	return call_timeout("acl.rt.synchronize_event_with_timeout", args, kwargs, "event",
			    aclrtSynchronizeEventWithTimeout);
}

PyDoc_STRVAR(event_elapsed_time_doc,
"event_elapsed_time(start, end) -> (ms, ret)\n\n"
"aclrtEventElapsedTime: milliseconds (a float) between two recorded events.");

static PyObject *rt_event_elapsed_time(PyObject *Py_UNUSED(self), PyObject *args,
				       PyObject *kwargs)
{
	void *start, *end;
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr("start", &start),
		pyacl_arg_ptr("end", &end),
	};
	float ms = 0.0f;
	aclError ret;

	if (!PYACL_PARSE("acl.rt.event_elapsed_time", args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = aclrtEventElapsedTime(&ms, start, end));
	return Py_BuildValue("(di)", (double)ms, ret);
}

PyDoc_STRVAR(event_get_timestamp_doc,
"event_get_timestamp(event) -> (timestamp, ret)\n\n"
"aclrtEventGetTimestamp: the card's clock when the event was recorded.");

static PyObject *rt_event_get_timestamp(PyObject *Py_UNUSED(self), PyObject *args,
					PyObject *kwargs)
{
	void *event;
	const struct pyacl_arg spec[] = { pyacl_arg_ptr("event", &event) };
	uint64_t ts = 0;
	aclError ret;

	if (!PYACL_PARSE("acl.rt.event_get_timestamp", args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = aclrtEventGetTimestamp(event, &ts));
	return Py_BuildValue("(Ki)", (unsigned long long)ts, ret);
}

PyDoc_STRVAR(get_event_id_doc,
"get_event_id(event) -> (event_id, ret)\n\naclrtGetEventId.");

static PyObject *rt_get_event_id(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	return query_u32("acl.rt.get_event_id", args, kwargs, "event", aclrtGetEventId);
}

PyDoc_STRVAR(get_event_avail_num_doc,
"get_event_avail_num() -> (event_count, ret)\n\naclrtGetEventAvailNum.");

static PyObject *rt_get_event_avail_num(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(unused))
{
	uint32_t count = 0;
	aclError ret;

	PYACL_NOGIL(ret = aclrtGetEventAvailNum(&count));
	return Py_BuildValue("(Ii)", count, ret);
}

PyMethodDef pyacl_stream_methods[] = {
	PYACL_FUNC0("create_stream", rt_create_stream, create_stream_doc),
	PYACL_FUNC("create_stream_with_config", rt_create_stream_with_config,
		   create_stream_with_config_doc),
	PYACL_FUNC("destroy_stream", rt_destroy_stream, destroy_stream_doc),
	PYACL_FUNC("destroy_stream_force", rt_destroy_stream_force, destroy_stream_force_doc),
	PYACL_FUNC("synchronize_stream", rt_synchronize_stream, synchronize_stream_doc),
	PYACL_FUNC("synchronize_stream_with_timeout", rt_synchronize_stream_with_timeout,
		   synchronize_stream_with_timeout_doc),
	PYACL_FUNC("stream_query", rt_stream_query, stream_query_doc),
	PYACL_FUNC("stream_wait_event", rt_stream_wait_event, stream_wait_event_doc),
	PYACL_FUNC("stream_get_id", rt_stream_get_id, stream_get_id_doc),
	PYACL_FUNC0("get_stream_available_num", rt_get_stream_available_num,
		    get_stream_available_num_doc),
	PYACL_FUNC("set_stream_failure_mode", rt_set_stream_failure_mode,
		   set_stream_failure_mode_doc),
	PYACL_FUNC("stream_abort", rt_stream_abort, stream_abort_doc),
	PYACL_FUNC0("create_event", rt_create_event, create_event_doc),
	PYACL_FUNC("create_event_with_flag", rt_create_event_with_flag,
		   create_event_with_flag_doc),
	PYACL_FUNC("create_event_ex_with_flag", rt_create_event_ex_with_flag,
		   create_event_ex_with_flag_doc),
	PYACL_FUNC("destroy_event", rt_destroy_event, destroy_event_doc),
	PYACL_FUNC("record_event", rt_record_event, record_event_doc),
	PYACL_FUNC("reset_event", rt_reset_event, reset_event_doc),
	PYACL_FUNC("query_event", rt_query_event, query_event_doc),
	PYACL_FUNC("query_event_status", rt_query_event_status, query_event_status_doc),
	PYACL_FUNC("query_event_wait_status", rt_query_event_wait_status,
		   query_event_wait_status_doc),
	PYACL_FUNC("synchronize_event", rt_synchronize_event, synchronize_event_doc),
	PYACL_FUNC("synchronize_event_with_timeout", rt_synchronize_event_with_timeout,
		   synchronize_event_with_timeout_doc),
	PYACL_FUNC("event_elapsed_time", rt_event_elapsed_time, event_elapsed_time_doc),
	PYACL_FUNC("event_get_timestamp", rt_event_get_timestamp, event_get_timestamp_doc),
	PYACL_FUNC("get_event_id", rt_get_event_id, get_event_id_doc),
	PYACL_FUNC0("get_event_avail_num", rt_get_event_avail_num, get_event_avail_num_doc),
	{ NULL, NULL, 0, NULL },
};
