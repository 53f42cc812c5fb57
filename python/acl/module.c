// SPDX-License-Identifier: MIT
/*
 * The module "acl" and its submodules, put together from the tables of the
 * other files. A submodule is a module object registered in sys.modules
 * as "acl.<name>", so that "import acl.rt" and "from acl import rt" work
 * although acl is a single extension, as the vendor's is.
 */
#include "pyacl.h"

PyDoc_STRVAR(acl_doc,
"pyACL: the AscendCL runtime (libascendcl) for Python.\n"
"\n"
"Conventions (as the vendor's pyACL):\n"
"- pointers and handles (streams, events, contexts, data buffers, tensor\n"
"  descriptions, model descriptions, datasets) are ints, 0 being NULL;\n"
"  stream 0 is the current context's default stream;\n"
"- a call with outputs returns them followed by the error code,\n"
"  'dev_ptr, ret = acl.rt.malloc(size, policy)'; other calls return the\n"
"  bare code, 'ret = acl.rt.free(dev_ptr)';\n"
"- error codes, enums and flags are the C values (ACL_SUCCESS = 0, ...);\n"
"  define them in the application as with the vendor's module;\n"
"- a wrong Python type raises TypeError, an int out of its C type's\n"
"  range OverflowError; the runtime's failures are only return codes\n"
"  (the message: acl.get_recent_err_msg()).\n"
"\n"
"Threads: calls that may wait (synchronizations, synchronous copies,\n"
"process_report, teardowns, ...) release the GIL. Python callbacks run\n"
"with the GIL in the thread the runtime calls them in; an exception they\n"
"raise is printed through sys.unraisablehook and the stream goes on.\n"
"\n"
"Lifetimes: a pointer from acl.util.bytes_to_ptr, numpy_to_ptr or\n"
"numpy_contiguous_to_ptr points into a Python object and is valid only\n"
"while that object is alive (and not resized); keep it alive until every\n"
"copy using the pointer is done (for memcpy_async with pinned or device\n"
"memory at the other end: until the stream is synchronized). An array of\n"
"ptr_to_numpy does not keep its memory alive. Runtime objects (device and\n"
"pinned memory, streams, events, contexts, data buffers, tensor and model\n"
"descriptions, datasets) live until their destroy or free call, never by\n"
"reference counting; a dataset refers to its data buffers and tensor\n"
"descriptions without owning them: keep them until the dataset is gone.\n"
"Callback functions and their data are kept alive by the module until the\n"
"callback has run.");

PyDoc_STRVAR(rt_doc,
"acl.rt: devices, contexts, streams, events, memory, copies and host\n"
"callbacks (aclrt* of acl/acl_rt.h).");

PyDoc_STRVAR(util_doc,
"acl.util: pointers to and from Python memory (bytes, numpy arrays) and\n"
"native threads for callbacks.");

PyDoc_STRVAR(mdl_doc,
"acl.mdl: loading .om models, their descriptions, datasets and execution\n"
"(aclmdl* of acl/acl_mdl.h).");

static const struct submodule {
	const char *name;
	const char *doc;
	PyMethodDef *tables[6];		/* NULL-terminated */
} submodules[] = {
	{ "rt", rt_doc, { pyacl_device_methods, pyacl_stream_methods, pyacl_memory_methods,
			  pyacl_callback_methods, pyacl_error_methods, NULL } },
	{ "util", util_doc, { pyacl_util_methods, pyacl_numpy_methods, NULL } },
	{ "mdl", mdl_doc, { pyacl_mdl_methods, NULL } },
};

static int add_submodule(PyObject *acl, const struct submodule *sm)
{
	PyObject *sub, *fullname;
	PyMethodDef *const *t;
	int rc = -1;

	fullname = PyUnicode_FromFormat("acl.%s", sm->name);
	if (!fullname)
		return -1;
	sub = PyModule_NewObject(fullname);
	if (!sub)
		goto out_name;
	if (PyModule_SetDocString(sub, sm->doc) < 0)
		goto out_sub;
	for (t = sm->tables; *t; t++)
		if (PyModule_AddFunctions(sub, *t) < 0)
			goto out_sub;
	if (PyDict_SetItem(PyImport_GetModuleDict(), fullname, sub) < 0)
		goto out_sub;
	rc = PyModule_AddObjectRef(acl, sm->name, sub);
out_sub:
	Py_DECREF(sub);
out_name:
	Py_DECREF(fullname);
	return rc;
}

static struct PyModuleDef acl_module = {
	PyModuleDef_HEAD_INIT,
	.m_name = "acl",
	.m_doc = acl_doc,
	.m_size = -1,		/* state in globals: the callback and thread lists */
};

PyMODINIT_FUNC PyInit_acl(void)
{
	PyObject *acl = PyModule_Create(&acl_module);
	size_t i;

	if (!acl)
		return NULL;
	if (PyModule_AddFunctions(acl, pyacl_base_methods) < 0 ||
	    PyModule_AddFunctions(acl, pyacl_databuf_methods) < 0 ||
	    PyModule_AddFunctions(acl, pyacl_tensor_desc_methods) < 0)
		goto fail;
	for (i = 0; i < sizeof(submodules) / sizeof(submodules[0]); i++)
		if (add_submodule(acl, &submodules[i]) < 0)
			goto fail;
	return acl;
fail:
	Py_DECREF(acl);
	return NULL;
}
