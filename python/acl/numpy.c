// SPDX-License-Identifier: MIT
/*
 * acl.util: numpy arrays as pointers and back (numpy_to_ptr,
 * numpy_contiguous_to_ptr, ptr_to_numpy), through numpy's C API.
 *
 * numpy is imported by the first of these calls, not by "import acl":
 * the rest of the module works without it.
 */
#include "pyacl.h"

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

/* False with ImportError when numpy's C API cannot be loaded. */
static bool numpy_ready(void)
{
	static bool ready;

	if (!ready && _import_array() == 0)
		ready = true;
	return ready;
}

static PyArrayObject *as_ndarray(const char *func, PyObject *obj)
{
	if (!numpy_ready())
		return NULL;
	if (!PyArray_Check(obj)) {
		PyErr_Format(PyExc_TypeError, "%s() argument 'data' must be numpy.ndarray, not %.200s",
			     func, Py_TYPE(obj)->tp_name);
		return NULL;
	}
	return (PyArrayObject *)obj;
}

PyDoc_STRVAR(numpy_to_ptr_doc,
"numpy_to_ptr(data) -> ptr\n\n"
"The address of a numpy array's data, without a copy: valid while the\n"
"array is alive (and not resized). Copies read it as contiguous bytes, so\n"
"a non-contiguous array gives a warning; use numpy_contiguous_to_ptr.");

static PyObject *util_numpy_to_ptr(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	PyObject *data;
	const struct pyacl_arg spec[] = { pyacl_arg_obj("data", &data) };
	PyArrayObject *arr;

	if (!PYACL_PARSE("acl.util.numpy_to_ptr", args, kwargs, spec))
		return NULL;
	arr = as_ndarray("acl.util.numpy_to_ptr", data);
	if (!arr)
		return NULL;
	if (!PyArray_IS_C_CONTIGUOUS(arr) &&
	    PyErr_WarnEx(PyExc_UserWarning,
			 "The input ndarray is discontiguous. Please use "
			 "acl.util.numpy_contiguous_to_ptr instead.", 1) < 0)
		return NULL;
	return pyacl_ptr(PyArray_DATA(arr));
}

PyDoc_STRVAR(numpy_contiguous_to_ptr_doc,
"numpy_contiguous_to_ptr(data) -> (ptr, data_out)\n\n"
"data_out is data if it is C-contiguous, else a C-contiguous copy; ptr is\n"
"the address of data_out's data, valid while data_out is alive.");

static PyObject *util_numpy_contiguous_to_ptr(PyObject *Py_UNUSED(self), PyObject *args,
					      PyObject *kwargs)
{
	PyObject *data;
	const struct pyacl_arg spec[] = { pyacl_arg_obj("data", &data) };
	PyArrayObject *arr, *out;

	if (!PYACL_PARSE("acl.util.numpy_contiguous_to_ptr", args, kwargs, spec))
		return NULL;
	arr = as_ndarray("acl.util.numpy_contiguous_to_ptr", data);
	if (!arr)
		return NULL;
	out = PyArray_GETCONTIGUOUS(arr);
	if (!out)
		return NULL;
	return Py_BuildValue("(KN)", (unsigned long long)(uintptr_t)PyArray_DATA(out), out);
}

/* shape, a tuple or list of non-negative ints, into dims; its length, or -1. */
static int shape_dims(PyObject *shape, npy_intp *dims)
{
	size_t d;
	struct pyacl_arg arg = pyacl_arg_size("shape", &d);
	Py_ssize_t n, i;

	if (!PyTuple_Check(shape) && !PyList_Check(shape)) {
		PyErr_Format(PyExc_TypeError,
			     "acl.util.ptr_to_numpy() argument 'shape' must be tuple, not %.200s",
			     Py_TYPE(shape)->tp_name);
		return -1;
	}
	n = PySequence_Fast_GET_SIZE(shape);
	if (n > NPY_MAXDIMS) {
		PyErr_Format(PyExc_ValueError, "acl.util.ptr_to_numpy() shape has %zd dimensions, "
			     "more than %d", n, NPY_MAXDIMS);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (!pyacl_convert("acl.util.ptr_to_numpy", &arg, PySequence_Fast_GET_ITEM(shape, i)))
			return -1;
		if (d > NPY_MAX_INTP) {
			PyErr_SetString(PyExc_ValueError, "acl.util.ptr_to_numpy() shape is too large");
			return -1;
		}
		dims[i] = (npy_intp)d;
	}
	return (int)n;
}

PyDoc_STRVAR(ptr_to_numpy_doc,
"ptr_to_numpy(ptr, shape, type) -> numpy.ndarray\n\n"
"A writable C-contiguous array over host memory at ptr, without a copy.\n"
"type is a numpy type number: 0 NPY_BOOL, 1 NPY_INT8, 2 NPY_UINT8,\n"
"3 NPY_INT16, 4 NPY_UINT16, 5 NPY_INT32, 6 NPY_UINT32, 7 NPY_INT64,\n"
"8 NPY_UINT64, 9 NPY_LONGLONG, 10 NPY_ULONGLONG, 11 NPY_FLOAT32,\n"
"12 NPY_DOUBLE, 23 NPY_FLOAT16, ... The array neither owns nor keeps the\n"
"memory alive: it must not be used after the memory is freed\n"
"(acl.rt.free_host) or its Python owner is gone. A device pointer raises\n"
"ValueError: copy it to the host first.");

static PyObject *util_ptr_to_numpy(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	void *p;
	PyObject *shape;
	int32_t type;
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr("ptr", &p),
		pyacl_arg_obj("shape", &shape),
		pyacl_arg_i32("type", &type),
	};
	npy_intp dims[NPY_MAXDIMS];
	PyArray_Descr *descr;
	int nd;

	if (!PYACL_PARSE("acl.util.ptr_to_numpy", args, kwargs, spec))
		return NULL;
	if (!numpy_ready())
		return NULL;
	if (!pyacl_host_ptr_ok("acl.util.ptr_to_numpy", p))
		return NULL;
	nd = shape_dims(shape, dims);
	if (nd < 0)
		return NULL;
	descr = PyArray_DescrFromType(type);
	if (!descr)
		return NULL;
	/* Steals descr. */
	return PyArray_NewFromDescr(&PyArray_Type, descr, nd, dims, NULL, p, NPY_ARRAY_WRITEABLE,
				    NULL);
}

PyMethodDef pyacl_numpy_methods[] = {
	PYACL_FUNC("numpy_to_ptr", util_numpy_to_ptr, numpy_to_ptr_doc),
	PYACL_FUNC("numpy_contiguous_to_ptr", util_numpy_contiguous_to_ptr,
		   numpy_contiguous_to_ptr_doc),
	PYACL_FUNC("ptr_to_numpy", util_ptr_to_numpy, ptr_to_numpy_doc),
	{ NULL, NULL, 0, NULL },
};
