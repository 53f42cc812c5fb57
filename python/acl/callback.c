// SPDX-License-Identifier: MIT
/*
 * acl.rt: host callbacks in streams (aclrtLaunchCallback and the threads
 * that serve it, aclrtLaunchHostFunc).
 *
 * The runtime calls a C trampoline with a record that holds the Python
 * function and its data. The trampoline takes the GIL (the runtime calls
 * it from a thread in aclrtProcessReport, which runs without the GIL, or
 * from its own host-function thread), calls the function, and prints an
 * exception it raises through sys.unraisablehook: a callback has no caller
 * to raise to, and the stream goes on.
 *
 * Records hold references to the function and its data until the callback
 * has run. The runtime drops, without running them, callbacks of a failed
 * stream and queued callbacks that a teardown finds nobody to serve; their
 * records are released when their stream is destroyed through this module,
 * or at finalize (the default stream's, and those of streams that a
 * reset_device or destroy_context took with it).
 *
 * The list of records is guarded by the GIL.
 */
#include "pyacl.h"

struct pycb {
	struct pycb *prev, *next;
	PyObject *fn, *data;
	aclrtStream stream;	/* launched on; 0 resolved to the default stream */
	bool running;		/* its trampoline holds it: only it may free it */
};

static struct pycb pending = { .prev = &pending, .next = &pending };

static void unlink_cb(struct pycb *cb)
{
	cb->prev->next = cb->next;
	cb->next->prev = cb->prev;
	cb->prev = cb->next = cb;
}

static void free_cb(struct pycb *cb)
{
	Py_DECREF(cb->fn);
	Py_DECREF(cb->data);
	PyMem_Free(cb);
}

static struct pycb *new_cb(PyObject *fn, PyObject *data, aclrtStream stream)
{
	struct pycb *cb = PyMem_Malloc(sizeof(*cb));

	if (!cb) {
		PyErr_NoMemory();
		return NULL;
	}
	Py_INCREF(fn);
	Py_INCREF(data);
	*cb = (struct pycb){ .fn = fn, .data = data, .stream = stream };
	cb->next = &pending;
	cb->prev = pending.prev;
	pending.prev->next = cb;
	pending.prev = cb;
	return cb;
}

void pyacl_callbacks_gone(aclrtStream stream)
{
	struct pycb gone = { .prev = &gone, .next = &gone };
	struct pycb *cb, *next;

	/* Unlinked first: a __del__ run by the release may launch more. */
	for (cb = pending.next; cb != &pending; cb = next) {
		next = cb->next;
		if (cb->running || (stream && cb->stream != stream))
			continue;
		unlink_cb(cb);
		cb->next = gone.next;
		cb->prev = &gone;
		gone.next->prev = cb;
		gone.next = cb;
	}
	while (gone.next != &gone) {
		cb = gone.next;
		unlink_cb(cb);
		free_cb(cb);
	}
}

/* Called by the runtime, without the GIL, in whatever thread serves the stream. */
static void run_cb(void *arg)
{
	struct pycb *cb = arg;
	PyGILState_STATE gil;
	PyObject *res;

	/* After interpreter shutdown there is nobody left to call. */
	if (!Py_IsInitialized())
		return;
	gil = PyGILState_Ensure();
	cb->running = true;
	res = PyObject_CallOneArg(cb->fn, cb->data);
	if (res)
		Py_DECREF(res);
	else
		PyErr_WriteUnraisable(cb->fn);
	unlink_cb(cb);
	free_cb(cb);
	PyGILState_Release(gil);
}

/* The stream a callback will run for: stream 0 names the current default one. */
static aclrtStream resolve_stream(aclrtStream stream)
{
	aclrtStream def = NULL;

	if (stream)
		return stream;
	PYACL_NOGIL(aclrtCtxGetCurrentDefaultStream(&def));
	return def;
}

PyDoc_STRVAR(subscribe_report_doc,
"subscribe_report(thread_id, stream) -> ret\n\n"
"aclrtSubscribeReport: callbacks of launch_callback on the stream will run\n"
"in that thread, inside its process_report calls. thread_id is the id of a\n"
"thread from acl.util.start_thread, or threading.get_ident() (the\n"
"ident attribute of a threading.Thread) of a Python thread.");

static PyObject *rt_subscribe_report(PyObject *Py_UNUSED(self), PyObject *args,
				     PyObject *kwargs)
{
	uint64_t tid;
	void *stream;
	const struct pyacl_arg spec[] = {
		pyacl_arg_u64("thread_id", &tid),
		pyacl_arg_ptr("stream", &stream),
	};
	aclError ret;

	if (!PYACL_PARSE("acl.rt.subscribe_report", args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = aclrtSubscribeReport(tid, stream));
	return pyacl_ret(ret);
}

PyDoc_STRVAR(unsubscribe_report_doc,
"unsubscribe_report(thread_id, stream) -> ret\n\naclrtUnSubscribeReport.");

static PyObject *rt_unsubscribe_report(PyObject *Py_UNUSED(self), PyObject *args,
				       PyObject *kwargs)
{
	uint64_t tid;
	void *stream;
	const struct pyacl_arg spec[] = {
		pyacl_arg_u64("thread_id", &tid),
		pyacl_arg_ptr("stream", &stream),
	};
	aclError ret;

	if (!PYACL_PARSE("acl.rt.unsubscribe_report", args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = aclrtUnSubscribeReport(tid, stream));
	return pyacl_ret(ret);
}

PyDoc_STRVAR(launch_callback_doc,
"launch_callback(fn, user_data_list, block_type, stream) -> ret\n\n"
"aclrtLaunchCallback: when the stream gets there, fn(user_data_list) runs\n"
"in the thread subscribed to the stream (subscribe_report), inside its\n"
"process_report. block_type ACL_CALLBACK_BLOCK (1) holds the stream's\n"
"later work until fn returns, ACL_CALLBACK_NO_BLOCK (0) does not.\n"
"fn and user_data_list are kept alive until fn has run. An exception\n"
"raised by fn is printed (sys.unraisablehook) and the stream goes on.");

static PyObject *rt_launch_callback(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	PyObject *fn, *data;
	int32_t block;
	void *stream;
	const struct pyacl_arg spec[] = {
		pyacl_arg_callable("fn", &fn),
		pyacl_arg_obj("user_data_list", &data),
		pyacl_arg_i32("block_type", &block),
		pyacl_arg_ptr("stream", &stream),
	};
	struct pycb *cb;
	aclError ret;

	if (!PYACL_PARSE("acl.rt.launch_callback", args, kwargs, spec))
		return NULL;
	cb = new_cb(fn, data, resolve_stream(stream));
	if (!cb)
		return NULL;
	/* Once queued, cb belongs to run_cb, which may run before we get the GIL back. */
	PYACL_NOGIL(ret = aclrtLaunchCallback(run_cb, cb, (aclrtCallbackBlockType)block, stream));
	if (ret != ACL_SUCCESS) {
		unlink_cb(cb);
		free_cb(cb);
	}
	return pyacl_ret(ret);
}

PyDoc_STRVAR(process_report_doc,
"process_report(timeout) -> ret\n\n"
"aclrtProcessReport: in a thread subscribed to streams, runs their due\n"
"callbacks, waiting (without the GIL) up to timeout ms (-1: for ever) for\n"
"the first; ACL_ERROR_RT_REPORT_TIMEOUT (507012) when none came.");

static PyObject *rt_process_report(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	return pyacl_call_i32("acl.rt.process_report", args, kwargs, "timeout",
			      aclrtProcessReport);
}

PyDoc_STRVAR(launch_host_func_doc,
"launch_host_func(stream, fn, args) -> ret\n\n"
"aclrtLaunchHostFunc (no vendor pyACL page; the C order of arguments):\n"
"when the stream gets there, fn(args) runs in the runtime's own\n"
"host-function thread, and the stream's later work waits until it\n"
"returns. fn and args are kept alive until fn has run; an exception it\n"
"raises is printed (sys.unraisablehook).");

static PyObject *rt_launch_host_func(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	PyObject *fn, *data;
	void *stream;
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr("stream", &stream),
		pyacl_arg_callable("fn", &fn),
		pyacl_arg_obj("args", &data),
	};
	struct pycb *cb;
	aclError ret;

	if (!PYACL_PARSE("acl.rt.launch_host_func", args, kwargs, spec))
		return NULL;
	cb = new_cb(fn, data, resolve_stream(stream));
	if (!cb)
		return NULL;
	PYACL_NOGIL(ret = aclrtLaunchHostFunc(stream, run_cb, cb));
	if (ret != ACL_SUCCESS) {
		unlink_cb(cb);
		free_cb(cb);
	}
	return pyacl_ret(ret);
}

PyMethodDef pyacl_callback_methods[] = {
	PYACL_FUNC("subscribe_report", rt_subscribe_report, subscribe_report_doc),
	PYACL_FUNC("unsubscribe_report", rt_unsubscribe_report, unsubscribe_report_doc),
	PYACL_FUNC("launch_callback", rt_launch_callback, launch_callback_doc),
	PYACL_FUNC("process_report", rt_process_report, process_report_doc),
	PYACL_FUNC("launch_host_func", rt_launch_host_func, launch_host_func_doc),
	{ NULL, NULL, 0, NULL },
};
