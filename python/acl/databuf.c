// SPDX-License-Identifier: MIT
/*
 * acl.*: data buffers (aclDataBuffer), the (pointer, size) pairs that model
 * and operator calls take. A data buffer is a C object named by an int: it
 * lives until destroy_data_buffer, and using it afterwards is undefined,
 * as in C. It does not keep the memory it describes alive.
 */
#include "pyacl.h"

PyDoc_STRVAR(create_data_buffer_doc,
"create_data_buffer(data, size) -> data_buffer\n\n"
"aclCreateDataBuffer: a buffer describing size bytes at pointer data;\n"
"0 on failure (see get_recent_err_msg).");

static PyObject *acl_create_data_buffer(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	void *data;
	size_t size;
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr("data", &data),
		pyacl_arg_size("size", &size),
	};

	if (!PYACL_PARSE("acl.create_data_buffer", args, kwargs, spec))
		return NULL;
	return pyacl_ptr(aclCreateDataBuffer(data, size));
}

PyDoc_STRVAR(destroy_data_buffer_doc,
"destroy_data_buffer(data_buffer) -> ret\n\n"
"aclDestroyDataBuffer: frees the descriptor, not the memory it describes.");

static PyObject *acl_destroy_data_buffer(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	void *buf;
	const struct pyacl_arg spec[] = { pyacl_arg_ptr("data_buffer", &buf) };

	if (!PYACL_PARSE("acl.destroy_data_buffer", args, kwargs, spec))
		return NULL;
	return pyacl_ret(aclDestroyDataBuffer(buf));
}

PyDoc_STRVAR(update_data_buffer_doc,
"update_data_buffer(data_buffer, data, size) -> ret\n\n"
"aclUpdateDataBuffer: points the buffer at other memory.");

static PyObject *acl_update_data_buffer(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	void *buf, *data;
	size_t size;
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr("data_buffer", &buf),
		pyacl_arg_ptr("data", &data),
		pyacl_arg_size("size", &size),
	};

	if (!PYACL_PARSE("acl.update_data_buffer", args, kwargs, spec))
		return NULL;
	return pyacl_ret(aclUpdateDataBuffer(buf, data, size));
}

PyDoc_STRVAR(get_data_buffer_addr_doc,
"get_data_buffer_addr(data_buffer) -> int\n\n"
"aclGetDataBufferAddr: the pointer the buffer describes; 0 for buffer 0.");

static PyObject *acl_get_data_buffer_addr(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	void *buf;
	const struct pyacl_arg spec[] = { pyacl_arg_ptr("data_buffer", &buf) };

	if (!PYACL_PARSE("acl.get_data_buffer_addr", args, kwargs, spec))
		return NULL;
	return pyacl_ptr(aclGetDataBufferAddr(buf));
}

PyDoc_STRVAR(get_data_buffer_size_doc,
"get_data_buffer_size(data_buffer) -> int\n\n"
"aclGetDataBufferSize (deprecated): the size, cut to 32 bits.");

static PyObject *acl_get_data_buffer_size(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	void *buf;
	const struct pyacl_arg spec[] = { pyacl_arg_ptr("data_buffer", &buf) };
	uint32_t size;

	if (!PYACL_PARSE("acl.get_data_buffer_size", args, kwargs, spec))
		return NULL;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	size = aclGetDataBufferSize(buf);
#pragma GCC diagnostic pop
	return PyLong_FromUnsignedLong(size);
}

PyDoc_STRVAR(get_data_buffer_size_v2_doc,
"get_data_buffer_size_v2(data_buffer) -> int\n\n"
"aclGetDataBufferSizeV2: the size in bytes; 0 for buffer 0.");

static PyObject *acl_get_data_buffer_size_v2(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	void *buf;
	const struct pyacl_arg spec[] = { pyacl_arg_ptr("data_buffer", &buf) };

	if (!PYACL_PARSE("acl.get_data_buffer_size_v2", args, kwargs, spec))
		return NULL;
	return PyLong_FromSize_t(aclGetDataBufferSizeV2(buf));
}

PyMethodDef pyacl_databuf_methods[] = {
	PYACL_FUNC("create_data_buffer", acl_create_data_buffer, create_data_buffer_doc),
	PYACL_FUNC("destroy_data_buffer", acl_destroy_data_buffer, destroy_data_buffer_doc),
	PYACL_FUNC("update_data_buffer", acl_update_data_buffer, update_data_buffer_doc),
	PYACL_FUNC("get_data_buffer_addr", acl_get_data_buffer_addr, get_data_buffer_addr_doc),
	PYACL_FUNC("get_data_buffer_size", acl_get_data_buffer_size, get_data_buffer_size_doc),
	PYACL_FUNC("get_data_buffer_size_v2", acl_get_data_buffer_size_v2,
		   get_data_buffer_size_v2_doc),
	{ NULL, NULL, 0, NULL },
};
