// SPDX-License-Identifier: MIT
/*
 * Arguments in, results out: binding Python arguments to C parameters with
 * messages that name the function and the parameter, and building the
 * (result..., ret) tuples of the pyACL conventions.
 */
#include "pyacl.h"

static bool type_error(const char *func, const struct pyacl_arg *arg, const char *want,
		       PyObject *obj)
{
	PyErr_Format(PyExc_TypeError, "%s() argument '%s' must be %s, not %.200s", func,
		     arg->name, want, Py_TYPE(obj)->tp_name);
	return false;
}

static bool range_error(const char *func, const struct pyacl_arg *arg, const char *ctype,
			PyObject *obj)
{
	PyErr_Format(PyExc_OverflowError, "%s() argument '%s' is out of range for %s: %R", func,
		     arg->name, ctype, obj);
	return false;
}

/*
 * The value of the int idx, as the bits of a 64-bit integer, when it lies
 * in [lo, hi]; false otherwise (no exception left set).
 */
static bool int_in_range(PyObject *idx, long long lo, unsigned long long hi,
			 unsigned long long *bits)
{
	unsigned long long u;
	int overflow;
	long long v;

	v = PyLong_AsLongLongAndOverflow(idx, &overflow);
	if (v == -1 && PyErr_Occurred()) {
		PyErr_Clear();
		return false;
	}
	if (overflow < 0)
		return false;
	if (overflow > 0) {
		u = PyLong_AsUnsignedLongLong(idx);
		if (u == (unsigned long long)-1 && PyErr_Occurred()) {
			PyErr_Clear();
			return false;
		}
		if (u > hi)
			return false;
		*bits = u;
		return true;
	}
	if (v < lo || (v > 0 && (unsigned long long)v > hi))
		return false;
	*bits = (unsigned long long)v;
	return true;
}

static bool convert_int(const char *func, const struct pyacl_arg *arg, PyObject *obj)
{
	static const struct {
		const char *ctype;
		long long lo;
		unsigned long long hi;
	} ranges[] = {
		[PYACL_PTR] = { "a pointer", 0, UINTPTR_MAX },
		[PYACL_I32] = { "int32_t", INT32_MIN, INT32_MAX },
		[PYACL_U32] = { "uint32_t", 0, UINT32_MAX },
		[PYACL_I64] = { "int64_t", INT64_MIN, INT64_MAX },
		[PYACL_U64] = { "uint64_t", 0, UINT64_MAX },
		[PYACL_SIZE] = { "size_t", 0, SIZE_MAX },
	};
	unsigned long long bits;
	PyObject *idx;
	bool ok;

	if (!PyIndex_Check(obj))
		return type_error(func, arg, arg->kind == PYACL_PTR ? "int (a pointer or handle)" : "int",
				  obj);
	idx = PyNumber_Index(obj);
	if (!idx)
		return false;
	ok = int_in_range(idx, ranges[arg->kind].lo, ranges[arg->kind].hi, &bits);
	Py_DECREF(idx);
	if (!ok)
		return range_error(func, arg, ranges[arg->kind].ctype, obj);
	switch (arg->kind) {
	case PYACL_PTR:
		*(void **)arg->out = (void *)(uintptr_t)bits;
		break;
	case PYACL_I32:
		*(int32_t *)arg->out = (int32_t)(long long)bits;
		break;
	case PYACL_U32:
		*(uint32_t *)arg->out = (uint32_t)bits;
		break;
	case PYACL_I64:
		*(int64_t *)arg->out = (int64_t)bits;
		break;
	case PYACL_U64:
		*(uint64_t *)arg->out = (uint64_t)bits;
		break;
	default:
		*(size_t *)arg->out = (size_t)bits;
		break;
	}
	return true;
}

bool pyacl_convert(const char *func, const struct pyacl_arg *arg, PyObject *obj)
{
	double d;

	switch (arg->kind) {
	case PYACL_OBJ:
		*(PyObject **)arg->out = obj;
		return true;
	case PYACL_CALLABLE:
		if (!PyCallable_Check(obj))
			return type_error(func, arg, "callable", obj);
		*(PyObject **)arg->out = obj;
		return true;
	case PYACL_FLOAT:
		if (!PyFloat_Check(obj) && !PyIndex_Check(obj))
			return type_error(func, arg, "float", obj);
		d = PyFloat_AsDouble(obj);
		if (d == -1.0 && PyErr_Occurred())
			return false;
		*(float *)arg->out = (float)d;
		return true;
	default:
		return convert_int(func, arg, obj);
	}
}

/* A keyword that names no parameter is an error. */
static bool check_keywords(const char *func, PyObject *kwargs, const struct pyacl_arg *spec,
			   int nspec)
{
	PyObject *key, *value;
	Py_ssize_t pos = 0;
	int i;

	while (PyDict_Next(kwargs, &pos, &key, &value)) {
		for (i = 0; i < nspec; i++)
			if (PyUnicode_Check(key) && PyUnicode_CompareWithASCIIString(key, spec[i].name) == 0)
				break;
		if (i == nspec) {
			PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument %R",
				     func, key);
			return false;
		}
	}
	return true;
}

bool pyacl_parse(const char *func, PyObject *args, PyObject *kwargs,
		 const struct pyacl_arg *spec, int nspec)
{
	Py_ssize_t npos = PyTuple_GET_SIZE(args);
	PyObject *obj, *kw;
	int i;

	if (npos > nspec) {
		PyErr_Format(PyExc_TypeError, "%s() takes %d argument%s (%zd given)", func, nspec,
			     nspec == 1 ? "" : "s", npos);
		return false;
	}
	if (kwargs && !check_keywords(func, kwargs, spec, nspec))
		return false;
	for (i = 0; i < nspec; i++) {
		kw = kwargs ? PyDict_GetItemString(kwargs, spec[i].name) : NULL;
		if (i < npos && kw) {
			PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'",
				     func, spec[i].name);
			return false;
		}
		obj = i < npos ? PyTuple_GET_ITEM(args, i) : kw;
		if (!obj) {
			PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s' (pos %d)",
				     func, spec[i].name, i + 1);
			return false;
		}
		if (!pyacl_convert(func, &spec[i], obj))
			return false;
	}
	return true;
}

PyObject *pyacl_call_i32(const char *func, PyObject *args, PyObject *kwargs, const char *name,
			 aclError (*fn)(int32_t))
{
	int32_t value;
	const struct pyacl_arg spec[] = { pyacl_arg_i32(name, &value) };
	aclError ret;

	if (!PYACL_PARSE(func, args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = fn(value));
	return pyacl_ret(ret);
}

PyObject *pyacl_call_handle(const char *func, PyObject *args, PyObject *kwargs,
			    const char *name, aclError (*fn)(void *))
{
	void *handle;
	const struct pyacl_arg spec[] = { pyacl_arg_ptr(name, &handle) };
	aclError ret;

	if (!PYACL_PARSE(func, args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = fn(handle));
	return pyacl_ret(ret);
}

PyObject *pyacl_ret(aclError ret)
{
	return PyLong_FromLong(ret);
}

PyObject *pyacl_ptr(const void *p)
{
	return PyLong_FromUnsignedLongLong((unsigned long long)(uintptr_t)p);
}

PyObject *pyacl_ptr_ret(const void *p, aclError ret)
{
	return Py_BuildValue("(Ki)", (unsigned long long)(uintptr_t)p, ret);
}

PyObject *pyacl_str_or_none(const char *s)
{
	if (!s)
		Py_RETURN_NONE;
	return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
}
