// SPDX-License-Identifier: MIT
/*
 * acl.util: Python memory as pointers and back (bytes_to_ptr,
 * ptr_to_bytes), and native threads that run Python functions
 * (start_thread, stop_thread). The numpy conversions are in numpy.c.
 */
#include <pthread.h>

#include "pyacl.h"

bool pyacl_host_ptr_ok(const char *func, const void *p)
{
	if (!p) {
		PyErr_Format(PyExc_ValueError, "%s() argument 'ptr' is NULL", func);
		return false;
	}
	if ((uintptr_t)p >= PYACL_DEVICE_ADDR_MIN) {
		PyErr_Format(PyExc_ValueError,
			     "%s() argument 'ptr' (%#llx) is device memory, which the host cannot "
			     "read: copy it to the host first (acl.rt.memcpy)",
			     func, (unsigned long long)(uintptr_t)p);
		return false;
	}
	return true;
}

PyDoc_STRVAR(bytes_to_ptr_doc,
"bytes_to_ptr(data) -> ptr\n\n"
"The address of the contents of a bytes (or bytearray) object, to pass to\n"
"copies as source or destination, as the vendor's samples do. No copy is\n"
"made: the pointer is valid only while data is alive and, for a\n"
"bytearray, not resized. Writing through it into a bytes object changes\n"
"that object in place (the vendor's idiom for a copy's destination).");

static PyObject *util_bytes_to_ptr(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	PyObject *data;
	const struct pyacl_arg spec[] = { pyacl_arg_obj("data", &data) };

	if (!PYACL_PARSE("acl.util.bytes_to_ptr", args, kwargs, spec))
		return NULL;
	if (PyBytes_Check(data))
		return pyacl_ptr(PyBytes_AS_STRING(data));
	if (PyByteArray_Check(data))
		return pyacl_ptr(PyByteArray_AS_STRING(data));
	PyErr_Format(PyExc_TypeError,
		     "acl.util.bytes_to_ptr() argument 'data' must be bytes or bytearray, not %.200s",
		     Py_TYPE(data)->tp_name);
	return NULL;
}

PyDoc_STRVAR(ptr_to_bytes_doc,
"ptr_to_bytes(ptr, size) -> bytes\n\n"
"A new bytes object with a copy of size bytes of host memory at ptr\n"
"(pinned memory from acl.rt.malloc_host, or another host pointer). A\n"
"device pointer raises ValueError: copy it to the host first.");

static PyObject *util_ptr_to_bytes(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	void *p;
	size_t size;
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr("ptr", &p),
		pyacl_arg_size("size", &size),
	};

	if (!PYACL_PARSE("acl.util.ptr_to_bytes", args, kwargs, spec))
		return NULL;
	if (!pyacl_host_ptr_ok("acl.util.ptr_to_bytes", p))
		return NULL;
	if (size > PY_SSIZE_T_MAX) {
		PyErr_SetString(PyExc_OverflowError, "acl.util.ptr_to_bytes() argument 'size' is too large");
		return NULL;
	}
	return PyBytes_FromStringAndSize(p, (Py_ssize_t)size);
}

/* ---- threads ------------------------------------------------------------ */

/* A thread of start_thread until stop_thread joins it; the list is guarded by the GIL. */
struct pythread {
	struct pythread *next;
	pthread_t tid;
	PyObject *fn, *args;
};

static struct pythread *threads;

static void *thread_main(void *arg)
{
	struct pythread *t = arg;
	PyGILState_STATE gil = PyGILState_Ensure();
	PyObject *res;

	res = t->args == Py_None ? PyObject_CallNoArgs(t->fn) : PyObject_CallOneArg(t->fn, t->args);
	if (res)
		Py_DECREF(res);
	else
		PyErr_WriteUnraisable(t->fn);
	Py_CLEAR(t->fn);
	Py_CLEAR(t->args);
	PyGILState_Release(gil);
	return NULL;
}

PyDoc_STRVAR(start_thread_doc,
"start_thread(thr_func, args_list) -> (thr_id, ret)\n\n"
"Starts a native thread that calls thr_func(args_list) (thr_func() when\n"
"args_list is None). thr_id is its pthread id: pass it to\n"
"acl.rt.subscribe_report and, to wait for the thread, to stop_thread.\n"
"The thread starts with no current context (acl.rt.set_context). An\n"
"exception raised by thr_func is printed (sys.unraisablehook).");

static PyObject *util_start_thread(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	PyObject *fn, *fargs;
	const struct pyacl_arg spec[] = {
		pyacl_arg_callable("thr_func", &fn),
		pyacl_arg_obj("args_list", &fargs),
	};
	struct pythread *t;
	int rc;

	if (!PYACL_PARSE("acl.util.start_thread", args, kwargs, spec))
		return NULL;
	t = PyMem_Malloc(sizeof(*t));
	if (!t)
		return PyErr_NoMemory();
	Py_INCREF(fn);
	Py_INCREF(fargs);
	*t = (struct pythread){ .fn = fn, .args = fargs };
	/* The thread waits for the GIL, which this one holds, before it reads t. */
	rc = pthread_create(&t->tid, NULL, thread_main, t);
	if (rc) {
		Py_DECREF(fn);
		Py_DECREF(fargs);
		PyMem_Free(t);
		return Py_BuildValue("(Ki)", 0ULL, ACL_ERROR_FAILURE);
	}
	t->next = threads;
	threads = t;
	return Py_BuildValue("(Ki)", (unsigned long long)t->tid, ACL_SUCCESS);
}

PyDoc_STRVAR(stop_thread_doc,
"stop_thread(thr_id) -> ret\n\n"
"Waits (without the GIL) until the thread of start_thread ends; the\n"
"thread's function must return by itself. ACL_ERROR_INVALID_PARAM for an\n"
"id that start_thread did not give or that was stopped already, and in\n"
"the thread itself.");

static PyObject *util_stop_thread(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	uint64_t tid;
	const struct pyacl_arg spec[] = { pyacl_arg_u64("thr_id", &tid) };
	struct pythread **pp, *t;
	int rc;

	if (!PYACL_PARSE("acl.util.stop_thread", args, kwargs, spec))
		return NULL;
	for (pp = &threads; *pp; pp = &(*pp)->next)
		if ((uint64_t)(*pp)->tid == tid)
			break;
	t = *pp;
	if (!t || pthread_equal(t->tid, pthread_self()))
		return pyacl_ret(ACL_ERROR_INVALID_PARAM);
	*pp = t->next;
	PYACL_NOGIL(rc = pthread_join(t->tid, NULL));
	PyMem_Free(t);
	return pyacl_ret(rc ? ACL_ERROR_FAILURE : ACL_SUCCESS);
}

PyMethodDef pyacl_util_methods[] = {
	PYACL_FUNC("bytes_to_ptr", util_bytes_to_ptr, bytes_to_ptr_doc),
	PYACL_FUNC("ptr_to_bytes", util_ptr_to_bytes, ptr_to_bytes_doc),
	PYACL_FUNC("start_thread", util_start_thread, start_thread_doc),
	PYACL_FUNC("stop_thread", util_stop_thread, stop_thread_doc),
	{ NULL, NULL, 0, NULL },
};
