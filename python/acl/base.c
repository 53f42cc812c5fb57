// SPDX-License-Identifier: MIT
/*
 * acl.*: initialization, errors, versions and the small helpers of
 * acl_base_rt.h (aclInit, aclFinalize, aclGetRecentErrMsg, ...).
 */
#include "pyacl.h"

PyDoc_STRVAR(init_doc,
"init(config_path=None) -> ret\n\n"
"aclInit. config_path names a JSON configuration file; None or \"\" means\n"
"none. A second call returns ACL_ERROR_REPEAT_INITIALIZE (100002), which\n"
"applications treat as success.");

static PyObject *acl_init(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	static char *names[] = { "config_path", NULL };
	PyObject *path = Py_None, *bytes = NULL;
	const char *cpath = NULL;
	aclError ret;

	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:init", names, &path))
		return NULL;
	if (path != Py_None) {
		if (!PyUnicode_Check(path) && !PyBytes_Check(path) && !PyObject_HasAttrString(path, "__fspath__")) {
			PyErr_Format(PyExc_TypeError,
				     "acl.init() argument 'config_path' must be str, bytes, os.PathLike or None, not %.200s",
				     Py_TYPE(path)->tp_name);
			return NULL;
		}
		if (!PyUnicode_FSConverter(path, &bytes))
			return NULL;
		cpath = PyBytes_AS_STRING(bytes);
	}
	PYACL_NOGIL(ret = aclInit(cpath));
	Py_XDECREF(bytes);
	return pyacl_ret(ret);
}

PyDoc_STRVAR(finalize_doc,
"finalize() -> ret\n\n"
"aclFinalize: drops every aclInit reference, resets every device. Python\n"
"callbacks the runtime dropped without running are released here.");

static PyObject *acl_finalize(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(unused))
{
	aclError ret;

	PYACL_NOGIL(ret = aclFinalize());
	if (ret == ACL_SUCCESS)
		pyacl_callbacks_gone(NULL);
	return pyacl_ret(ret);
}

PyDoc_STRVAR(finalize_reference_doc,
"finalize_reference() -> (count, ret)\n\n"
"aclFinalizeReference: drops one aclInit reference; count is what is left.");

static PyObject *acl_finalize_reference(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(unused))
{
	uint64_t count = 0;
	aclError ret;

	PYACL_NOGIL(ret = aclFinalizeReference(&count));
	if (ret == ACL_SUCCESS && count == 0)
		pyacl_callbacks_gone(NULL);
	return Py_BuildValue("(Ki)", (unsigned long long)count, ret);
}

PyDoc_STRVAR(get_recent_err_msg_doc,
"get_recent_err_msg() -> str or None\n\n"
"aclGetRecentErrMsg: the calling thread's last error message, then clears\n"
"it; None when there is none.");

static PyObject *acl_get_recent_err_msg(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(unused))
{
	return pyacl_str_or_none(aclGetRecentErrMsg());
}

PyDoc_STRVAR(get_version_doc,
"get_version() -> (major, minor, patch, ret)\n\naclrtGetVersion.");

static PyObject *acl_get_version(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(unused))
{
	int32_t major = 0, minor = 0, patch = 0;
	aclError ret;

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	ret = aclrtGetVersion(&major, &minor, &patch);
#pragma GCC diagnostic pop
	return Py_BuildValue("(iiii)", major, minor, patch, ret);
}

PyDoc_STRVAR(get_soc_name_doc,
"get_soc_name() -> str or None\n\naclrtGetSocName; None when unknown.");

static PyObject *acl_get_soc_name(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(unused))
{
	const char *name;

	PYACL_NOGIL(name = aclrtGetSocName());
	return pyacl_str_or_none(name);
}

PyDoc_STRVAR(app_log_doc,
"app_log(log_level, message) -> None\n\n"
"ACL_APP_LOG: writes message to the runtime's log at log_level\n"
"(0 DEBUG, 1 INFO, 2 WARNING, 3 ERROR).");

/* Logs text as written at the Python caller's line, as ACL_APP_LOG does in C. */
static PyObject *log_from_caller(int32_t level, const char *text)
{
	PyFrameObject *frame = PyEval_GetFrame();
	const char *func = "?", *file = "?";
	PyCodeObject *code = NULL;
	int line = 0;

	if (frame) {
		code = PyFrame_GetCode(frame);
		func = PyUnicode_AsUTF8(code->co_name);
		file = PyUnicode_AsUTF8(code->co_filename);
		line = PyFrame_GetLineNumber(frame);
		if (!func || !file) {
			Py_DECREF(code);
			return NULL;
		}
	}
	aclAppLog((aclLogLevel)level, func, file, (uint32_t)line, "%s", text);
	Py_XDECREF(code);
	Py_RETURN_NONE;
}

static PyObject *acl_app_log(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	int32_t level;
	PyObject *msg;
	const struct pyacl_arg spec[] = {
		pyacl_arg_i32("log_level", &level),
		pyacl_arg_obj("message", &msg),
	};
	const char *text;

	if (!PYACL_PARSE("acl.app_log", args, kwargs, spec))
		return NULL;
	if (!PyUnicode_Check(msg)) {
		PyErr_Format(PyExc_TypeError, "acl.app_log() argument 'message' must be str, not %.200s",
			     Py_TYPE(msg)->tp_name);
		return NULL;
	}
	text = PyUnicode_AsUTF8(msg);
	if (!text)
		return NULL;
	return log_from_caller(level, text);
}

PyDoc_STRVAR(data_type_size_doc,
"data_type_size(data_type) -> int\n\n"
"aclDataTypeSize: bytes per element of an aclDataType; 0 if unknown.");

static PyObject *acl_data_type_size(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	int32_t type;
	const struct pyacl_arg spec[] = { pyacl_arg_i32("data_type", &type) };

	if (!PYACL_PARSE("acl.data_type_size", args, kwargs, spec))
		return NULL;
	return PyLong_FromSize_t(aclDataTypeSize((aclDataType)type));
}

PyDoc_STRVAR(float16_to_float_doc,
"float16_to_float(value) -> float\n\n"
"aclFloat16ToFloat: value is the 16-bit pattern of an IEEE half.");

static PyObject *acl_float16_to_float(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	uint32_t bits;
	const struct pyacl_arg spec[] = { pyacl_arg_u32("value", &bits) };

	if (!PYACL_PARSE("acl.float16_to_float", args, kwargs, spec))
		return NULL;
	if (bits > UINT16_MAX) {
		PyErr_Format(PyExc_OverflowError,
			     "acl.float16_to_float() argument 'value' is out of range for aclFloat16: %u",
			     bits);
		return NULL;
	}
	return PyFloat_FromDouble(aclFloat16ToFloat((aclFloat16)bits));
}

PyDoc_STRVAR(float_to_float16_doc,
"float_to_float16(value) -> int\n\n"
"aclFloatToFloat16: the 16-bit pattern of value as an IEEE half.");

static PyObject *acl_float_to_float16(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	float value;
	const struct pyacl_arg spec[] = { pyacl_arg_float("value", &value) };

	if (!PYACL_PARSE("acl.float_to_float16", args, kwargs, spec))
		return NULL;
	return PyLong_FromLong(aclFloatToFloat16(value));
}

PyDoc_STRVAR(get_cann_attribute_list_doc,
"get_cann_attribute_list() -> (cann_attr_list, num, ret)\n\n"
"aclGetCannAttributeList: the aclCannAttr values this runtime supports.");

static PyObject *acl_get_cann_attribute_list(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(unused))
{
	const aclCannAttr *attrs = NULL;
	PyObject *list, *item;
	size_t num = 0, i;
	aclError ret;

	ret = aclGetCannAttributeList(&attrs, &num);
	if (ret != ACL_SUCCESS || !attrs)
		num = 0;
	list = PyList_New((Py_ssize_t)num);
	if (!list)
		return NULL;
	for (i = 0; i < num; i++) {
		item = PyLong_FromLong(attrs[i]);
		if (!item) {
			Py_DECREF(list);
			return NULL;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, item);
	}
	return Py_BuildValue("(Nni)", list, (Py_ssize_t)num, ret);
}

PyDoc_STRVAR(get_cann_attribute_doc,
"get_cann_attribute(cann_attr) -> (value, ret)\n\n"
"aclGetCannAttribute: 1 if the feature is supported, else 0.");

static PyObject *acl_get_cann_attribute(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	int32_t attr, value = 0;
	const struct pyacl_arg spec[] = { pyacl_arg_i32("cann_attr", &attr) };
	aclError ret;

	if (!PYACL_PARSE("acl.get_cann_attribute", args, kwargs, spec))
		return NULL;
	ret = aclGetCannAttribute((aclCannAttr)attr, &value);
	return Py_BuildValue("(ii)", value, ret);
}

PyDoc_STRVAR(get_device_capability_doc,
"get_device_capability(device_id, device_info) -> (value, ret)\n\n"
"aclGetDeviceCapability: an aclDeviceInfo value of a device.");

static PyObject *acl_get_device_capability(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	uint32_t dev;
	int32_t info;
	int64_t value = 0;
	const struct pyacl_arg spec[] = {
		pyacl_arg_u32("device_id", &dev),
		pyacl_arg_i32("device_info", &info),
	};
	aclError ret;

	if (!PYACL_PARSE("acl.get_device_capability", args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = aclGetDeviceCapability(dev, (aclDeviceInfo)info, &value));
	return Py_BuildValue("(Li)", (long long)value, ret);
}

PyDoc_STRVAR(peek_at_last_error_doc,
"peek_at_last_error(level) -> ret\n\n"
"aclrtPeekAtLastError: the calling thread's last error code (level\n"
"ACL_RT_THREAD_LEVEL = 0), left as it is.");

static PyObject *rt_peek_at_last_error(PyObject *Py_UNUSED(self), PyObject *args,
				       PyObject *kwargs)
{
	int32_t level;
	const struct pyacl_arg spec[] = { pyacl_arg_i32("level", &level) };

	if (!PYACL_PARSE("acl.rt.peek_at_last_error", args, kwargs, spec))
		return NULL;
	return pyacl_ret(aclrtPeekAtLastError((aclrtLastErrLevel)level));
}

PyDoc_STRVAR(get_last_error_doc,
"get_last_error(level) -> ret\n\n"
"aclrtGetLastError: the calling thread's last error code, then clears it.");

static PyObject *rt_get_last_error(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	int32_t level;
	const struct pyacl_arg spec[] = { pyacl_arg_i32("level", &level) };

	if (!PYACL_PARSE("acl.rt.get_last_error", args, kwargs, spec))
		return NULL;
	return pyacl_ret(aclrtGetLastError((aclrtLastErrLevel)level));
}

PyMethodDef pyacl_base_methods[] = {
	PYACL_FUNC("init", acl_init, init_doc),
	PYACL_FUNC0("finalize", acl_finalize, finalize_doc),
	PYACL_FUNC0("finalize_reference", acl_finalize_reference, finalize_reference_doc),
	PYACL_FUNC0("get_recent_err_msg", acl_get_recent_err_msg, get_recent_err_msg_doc),
	PYACL_FUNC0("get_version", acl_get_version, get_version_doc),
	PYACL_FUNC0("get_soc_name", acl_get_soc_name, get_soc_name_doc),
	PYACL_FUNC("app_log", acl_app_log, app_log_doc),
	PYACL_FUNC("data_type_size", acl_data_type_size, data_type_size_doc),
	PYACL_FUNC("float16_to_float", acl_float16_to_float, float16_to_float_doc),
	PYACL_FUNC("float_to_float16", acl_float_to_float16, float_to_float16_doc),
	PYACL_FUNC0("get_cann_attribute_list", acl_get_cann_attribute_list,
		    get_cann_attribute_list_doc),
	PYACL_FUNC("get_cann_attribute", acl_get_cann_attribute, get_cann_attribute_doc),
	PYACL_FUNC("get_device_capability", acl_get_device_capability,
		   get_device_capability_doc),
	{ NULL, NULL, 0, NULL },
};

/* acl.rt's share of the error calls. */
PyMethodDef pyacl_error_methods[] = {
	PYACL_FUNC("peek_at_last_error", rt_peek_at_last_error, peek_at_last_error_doc),
	PYACL_FUNC("get_last_error", rt_get_last_error, get_last_error_doc),
	{ NULL, NULL, 0, NULL },
};
