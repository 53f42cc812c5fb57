// SPDX-License-Identifier: MIT
/*
 * acl.*: tensor descriptions (aclTensorDesc of acl/acl_base_mdl.h), the
 * type, format and shape records that datasets carry for dynamic shapes.
 * A tensor description is a C object named by an int: it lives until
 * destroy_tensor_desc, and using it afterwards is undefined, as in C.
 * Everything here is host memory and returns at once, so the GIL is kept.
 */
#include "pyacl.h"

/* A Python list or tuple of ints as a PyMem_Malloc'ed int64_t array. */
static bool int64_list(const char *func, const char *name, PyObject *obj, int64_t **out,
		       Py_ssize_t *count)
{
	struct pyacl_arg item_arg;
	char item_name[64];
	PyObject *seq;
	Py_ssize_t n, i;
	int64_t *v;

	if (!PyList_Check(obj) && !PyTuple_Check(obj)) {
		PyErr_Format(PyExc_TypeError, "%s() argument '%s' must be a list of int, not %.200s",
			     func, name, Py_TYPE(obj)->tp_name);
		return false;
	}
	seq = PySequence_Fast(obj, "");
	if (!seq)
		return false;
	n = PySequence_Fast_GET_SIZE(seq);
	if (n > INT32_MAX) {
		Py_DECREF(seq);
		PyErr_Format(PyExc_OverflowError, "%s() argument '%s' has too many items", func, name);
		return false;
	}
	v = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(*v));
	if (!v) {
		Py_DECREF(seq);
		PyErr_NoMemory();
		return false;
	}
	for (i = 0; i < n; i++) {
		snprintf(item_name, sizeof(item_name), "%s[%zd]", name, i);
		item_arg = pyacl_arg_i64(item_name, &v[i]);
		if (!pyacl_convert(func, &item_arg, PySequence_Fast_GET_ITEM(seq, i))) {
			Py_DECREF(seq);
			PyMem_Free(v);
			return false;
		}
	}
	Py_DECREF(seq);
	*out = v;
	*count = n;
	return true;
}

/* A list of [min, max] pairs as a PyMem_Malloc'ed int64_t[][2]. */
static bool int64_pairs(const char *func, const char *name, PyObject *obj,
			int64_t (**out)[2], Py_ssize_t *count)
{
	int64_t (*pairs)[2];
	Py_ssize_t n, i, len;
	char pair_name[48];
	PyObject *seq;
	int64_t *pair;

	if (!PyList_Check(obj) && !PyTuple_Check(obj)) {
		PyErr_Format(PyExc_TypeError,
			     "%s() argument '%s' must be a list of [min, max] lists, not %.200s", func,
			     name, Py_TYPE(obj)->tp_name);
		return false;
	}
	seq = PySequence_Fast(obj, "");
	if (!seq)
		return false;
	n = PySequence_Fast_GET_SIZE(seq);
	pairs = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(*pairs));
	if (!pairs) {
		Py_DECREF(seq);
		PyErr_NoMemory();
		return false;
	}
	for (i = 0; i < n; i++) {
		snprintf(pair_name, sizeof(pair_name), "%s[%zd]", name, i);
		if (!int64_list(func, pair_name, PySequence_Fast_GET_ITEM(seq, i), &pair, &len))
			goto fail;
		if (len != 2) {
			PyMem_Free(pair);
			PyErr_Format(PyExc_ValueError, "%s() argument '%s' has %zd values, not 2",
				     func, pair_name, len);
			goto fail;
		}
		pairs[i][0] = pair[0];
		pairs[i][1] = pair[1];
		PyMem_Free(pair);
	}
	Py_DECREF(seq);
	*out = pairs;
	*count = n;
	return true;
fail:
	Py_DECREF(seq);
	PyMem_Free(pairs);
	return false;
}

/* A str argument as UTF-8 (None as NULL when none_ok), or NULL with TypeError. */
static bool str_arg(const char *func, const char *name, PyObject *obj, bool none_ok,
		    const char **out)
{
	if (none_ok && obj == Py_None) {
		*out = NULL;
		return true;
	}
	if (!PyUnicode_Check(obj)) {
		PyErr_Format(PyExc_TypeError, "%s() argument '%s' must be str%s, not %.200s", func,
			     name, none_ok ? " or None" : "", Py_TYPE(obj)->tp_name);
		return false;
	}
	*out = PyUnicode_AsUTF8(obj);
	return *out != NULL;
}

/* ---- creation ---- */

PyDoc_STRVAR(create_tensor_desc_doc,
"create_tensor_desc(data_type, dims, format) -> tensor_desc\n\n"
"aclCreateTensorDesc: a description of a tensor of data_type (aclDataType),\n"
"shape dims (a list of int; [] for a scalar, -1 for an unknown dim, [-2]\n"
"for an unknown rank) and format (aclFormat); 0 on bad arguments (see\n"
"get_recent_err_msg). Free it with destroy_tensor_desc.");

static PyObject *acl_create_tensor_desc(PyObject *Py_UNUSED(self), PyObject *args,
					PyObject *kwargs)
{
	static const char func[] = "acl.create_tensor_desc";
	int32_t type, format;
	PyObject *dims_obj;
	const struct pyacl_arg spec[] = {
		pyacl_arg_i32("data_type", &type),
		pyacl_arg_obj("dims", &dims_obj),
		pyacl_arg_i32("format", &format),
	};
	aclTensorDesc *desc;
	Py_ssize_t n;
	int64_t *dims;

	if (!PYACL_PARSE(func, args, kwargs, spec) ||
	    !int64_list(func, "dims", dims_obj, &dims, &n))
		return NULL;
	desc = aclCreateTensorDesc((aclDataType)type, (int)n, dims, (aclFormat)format);
	PyMem_Free(dims);
	return pyacl_ptr(desc);
}

PyDoc_STRVAR(destroy_tensor_desc_doc,
"destroy_tensor_desc(desc) -> None\n\n"
"aclDestroyTensorDesc: frees the description (0: nothing). A dataset that\n"
"was given it by acl.mdl.set_dataset_tensor_desc must not be used after.");

static PyObject *acl_destroy_tensor_desc(PyObject *Py_UNUSED(self), PyObject *args,
					 PyObject *kwargs)
{
	void *desc;
	const struct pyacl_arg spec[] = { pyacl_arg_ptr("desc", &desc) };

	if (!PYACL_PARSE("acl.destroy_tensor_desc", args, kwargs, spec))
		return NULL;
	aclDestroyTensorDesc(desc);
	Py_RETURN_NONE;
}

/* ---- getters: f(desc) ---- */

static bool desc_arg(const char *func, PyObject *args, PyObject *kwargs, void **desc)
{
	const struct pyacl_arg spec[] = { pyacl_arg_ptr("desc", desc) };

	return PYACL_PARSE(func, args, kwargs, spec);
}

PyDoc_STRVAR(get_tensor_desc_type_doc,
"get_tensor_desc_type(desc) -> data_type\n\n"
"aclGetTensorDescType: the aclDataType; ACL_DT_UNDEFINED (-1) for desc 0.");

static PyObject *acl_get_tensor_desc_type(PyObject *Py_UNUSED(self), PyObject *args,
					  PyObject *kwargs)
{
	void *desc;

	if (!desc_arg("acl.get_tensor_desc_type", args, kwargs, &desc))
		return NULL;
	return PyLong_FromLong(aclGetTensorDescType(desc));
}

PyDoc_STRVAR(get_tensor_desc_format_doc,
"get_tensor_desc_format(desc) -> format\n\n"
"aclGetTensorDescFormat: the aclFormat; ACL_FORMAT_UNDEFINED (-1) for desc 0.");

static PyObject *acl_get_tensor_desc_format(PyObject *Py_UNUSED(self), PyObject *args,
					    PyObject *kwargs)
{
	void *desc;

	if (!desc_arg("acl.get_tensor_desc_format", args, kwargs, &desc))
		return NULL;
	return PyLong_FromLong(aclGetTensorDescFormat(desc));
}

PyDoc_STRVAR(get_tensor_desc_size_doc,
"get_tensor_desc_size(desc) -> size\n\n"
"aclGetTensorDescSize: the tensor's bytes; 0 for desc 0 or an unknown dim.");

static PyObject *acl_get_tensor_desc_size(PyObject *Py_UNUSED(self), PyObject *args,
					  PyObject *kwargs)
{
	void *desc;

	if (!desc_arg("acl.get_tensor_desc_size", args, kwargs, &desc))
		return NULL;
	return PyLong_FromSize_t(aclGetTensorDescSize(desc));
}

PyDoc_STRVAR(get_tensor_desc_element_count_doc,
"get_tensor_desc_element_count(desc) -> count\n\n"
"aclGetTensorDescElementCount: the tensor's elements (1 for a scalar); 0 for\n"
"desc 0 or an unknown dim.");

static PyObject *acl_get_tensor_desc_element_count(PyObject *Py_UNUSED(self), PyObject *args,
						   PyObject *kwargs)
{
	void *desc;

	if (!desc_arg("acl.get_tensor_desc_element_count", args, kwargs, &desc))
		return NULL;
	return PyLong_FromSize_t(aclGetTensorDescElementCount(desc));
}

PyDoc_STRVAR(get_tensor_desc_num_dims_doc,
"get_tensor_desc_num_dims(desc) -> num_dims\n\n"
"aclGetTensorDescNumDims: the rank; 0 for desc 0, ACL_UNKNOWN_RANK\n"
"(0xFFFFFFFFFFFFFFFE) for a shape [-2].");

static PyObject *acl_get_tensor_desc_num_dims(PyObject *Py_UNUSED(self), PyObject *args,
					      PyObject *kwargs)
{
	void *desc;

	if (!desc_arg("acl.get_tensor_desc_num_dims", args, kwargs, &desc))
		return NULL;
	return PyLong_FromSize_t(aclGetTensorDescNumDims(desc));
}

PyDoc_STRVAR(get_tensor_desc_name_doc,
"get_tensor_desc_name(desc) -> name\n\n"
"aclGetTensorDescName: the name set by set_tensor_desc_name; '' if none.");

static PyObject *acl_get_tensor_desc_name(PyObject *Py_UNUSED(self), PyObject *args,
					  PyObject *kwargs)
{
	void *desc;

	if (!desc_arg("acl.get_tensor_desc_name", args, kwargs, &desc))
		return NULL;
	return pyacl_str_or_none(aclGetTensorDescName(desc));
}

PyDoc_STRVAR(get_tensor_desc_address_doc,
"get_tensor_desc_address(desc) -> addr\n\n"
"aclGetTensorDescAddress: the description's copy of the data given to\n"
"set_tensor_const (a host pointer, valid until the description is destroyed\n"
"or given other const data); 0 if none.");

static PyObject *acl_get_tensor_desc_address(PyObject *Py_UNUSED(self), PyObject *args,
					     PyObject *kwargs)
{
	void *desc;

	if (!desc_arg("acl.get_tensor_desc_address", args, kwargs, &desc))
		return NULL;
	return pyacl_ptr(aclGetTensorDescAddress(desc));
}

/* ---- dims ---- */

static bool desc_index_args(const char *func, PyObject *args, PyObject *kwargs, void **desc,
			    size_t *index)
{
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr("desc", desc),
		pyacl_arg_size("index", index),
	};

	return PYACL_PARSE(func, args, kwargs, spec);
}

PyDoc_STRVAR(get_tensor_desc_dim_doc,
"get_tensor_desc_dim(desc, index) -> dim_size\n\n"
"aclGetTensorDescDim (deprecated: get_tensor_desc_dim_v2): the index-th dim;\n"
"-1 for a bad index, as for an unknown dim.");

static PyObject *acl_get_tensor_desc_dim(PyObject *Py_UNUSED(self), PyObject *args,
					 PyObject *kwargs)
{
	void *desc;
	size_t index;
	int64_t dim;

	if (!desc_index_args("acl.get_tensor_desc_dim", args, kwargs, &desc, &index))
		return NULL;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	dim = aclGetTensorDescDim(desc, index);
#pragma GCC diagnostic pop
	return PyLong_FromLongLong(dim);
}

PyDoc_STRVAR(get_tensor_desc_dim_v2_doc,
"get_tensor_desc_dim_v2(desc, index) -> dim_size, ret\n\n"
"aclGetTensorDescDimV2: the index-th dim (-1: unknown until run time).");

static PyObject *acl_get_tensor_desc_dim_v2(PyObject *Py_UNUSED(self), PyObject *args,
					    PyObject *kwargs)
{
	void *desc;
	size_t index;
	int64_t dim = 0;
	aclError ret;

	if (!desc_index_args("acl.get_tensor_desc_dim_v2", args, kwargs, &desc, &index))
		return NULL;
	ret = aclGetTensorDescDimV2(desc, index, &dim);
	return Py_BuildValue("(Li)", (long long)dim, (int)ret);
}

PyDoc_STRVAR(get_tensor_desc_dim_range_doc,
"get_tensor_desc_dim_range(desc, index, dim_range_num) -> dim_range, ret\n\n"
"aclGetTensorDescDimRange: [min, max] of the index-th dim (set by\n"
"set_tensor_shape_range; the dim itself for a static one). dim_range_num\n"
"must be at least 2. dim_range is [] on failure.");

static PyObject *acl_get_tensor_desc_dim_range(PyObject *Py_UNUSED(self), PyObject *args,
					       PyObject *kwargs)
{
	void *desc;
	size_t index, num;
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr("desc", &desc),
		pyacl_arg_size("index", &index),
		pyacl_arg_size("dim_range_num", &num),
	};
	int64_t range[ACL_TENSOR_SHAPE_RANGE_NUM] = { 0 };
	aclError ret;

	if (!PYACL_PARSE("acl.get_tensor_desc_dim_range", args, kwargs, spec))
		return NULL;
	/* Only the first two values are defined: the buffer holds just those. */
	ret = aclGetTensorDescDimRange(desc, index, num < 2 ? num : 2, range);
	if (ret != ACL_SUCCESS)
		return Py_BuildValue("([]i)", (int)ret);
	return Py_BuildValue("([LL]i)", (long long)range[0], (long long)range[1], (int)ret);
}

/* ---- setters ---- */

/* f(desc, dims) -> ret: the shape setters. */
static PyObject *set_shape(const char *func, PyObject *args, PyObject *kwargs,
			   aclError (*fn)(aclTensorDesc *, int, const int64_t *))
{
	void *desc;
	PyObject *dims_obj;
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr("desc", &desc),
		pyacl_arg_obj("dims", &dims_obj),
	};
	Py_ssize_t n;
	int64_t *dims;
	aclError ret;

	if (!PYACL_PARSE(func, args, kwargs, spec) || !int64_list(func, "dims", dims_obj, &dims, &n))
		return NULL;
	ret = fn(desc, (int)n, dims);
	PyMem_Free(dims);
	return pyacl_ret(ret);
}

/* f(desc, format) -> ret: the format setters. */
static PyObject *set_format(const char *func, PyObject *args, PyObject *kwargs,
			    aclError (*fn)(aclTensorDesc *, aclFormat))
{
	void *desc;
	int32_t format;
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr("desc", &desc),
		pyacl_arg_i32("format", &format),
	};

	if (!PYACL_PARSE(func, args, kwargs, spec))
		return NULL;
	return pyacl_ret(fn(desc, (aclFormat)format));
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static aclError storage_shape(aclTensorDesc *d, int n, const int64_t *dims)
{
	return aclSetTensorStorageShape(d, n, dims);
}

static aclError storage_format(aclTensorDesc *d, aclFormat f)
{
	return aclSetTensorStorageFormat(d, f);
}
#pragma GCC diagnostic pop

#define TENSOR_SETTER(pyname, helper, cfn, sig, what)					\
	PyDoc_STRVAR(pyname##_doc, #pyname sig " -> ret\n\n" what);			\
	static PyObject *acl_##pyname(PyObject *Py_UNUSED(self), PyObject *args,	\
				      PyObject *kwargs)					\
	{										\
		return helper("acl." #pyname, args, kwargs, cfn);			\
	}

TENSOR_SETTER(set_tensor_shape, set_shape, aclSetTensorShape, "(desc, dims)",
	      "aclSetTensorShape: replaces the shape (a list of int).")
TENSOR_SETTER(set_tensor_origin_shape, set_shape, aclSetTensorOriginShape, "(desc, dims)",
	      "aclSetTensorOriginShape: the shape before any format conversion.")
TENSOR_SETTER(set_tensor_storage_shape, set_shape, storage_shape, "(desc, dims)",
	      "aclSetTensorStorageShape (deprecated: set_tensor_shape).")
TENSOR_SETTER(set_tensor_format, set_format, aclSetTensorFormat, "(desc, format)",
	      "aclSetTensorFormat: replaces the format (aclFormat).")
TENSOR_SETTER(set_tensor_origin_format, set_format, aclSetTensorOriginFormat,
	      "(desc, format)", "aclSetTensorOriginFormat: the format before any conversion.")
TENSOR_SETTER(set_tensor_storage_format, set_format, storage_format, "(desc, format)",
	      "aclSetTensorStorageFormat (deprecated: set_tensor_format).")

/* f(desc, list of pairs) -> ret: the range setters. */
static PyObject *set_ranges(const char *func, const char *name, PyObject *args,
			    PyObject *kwargs,
			    aclError (*fn)(aclTensorDesc *, size_t, int64_t (*)[2]))
{
	void *desc;
	PyObject *obj;
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr("desc", &desc),
		pyacl_arg_obj(name, &obj),
	};
	int64_t (*pairs)[2];
	Py_ssize_t n;
	aclError ret;

	if (!PYACL_PARSE(func, args, kwargs, spec) || !int64_pairs(func, name, obj, &pairs, &n))
		return NULL;
	ret = fn(desc, (size_t)n, pairs);
	PyMem_Free(pairs);
	return pyacl_ret(ret);
}

PyDoc_STRVAR(set_tensor_shape_range_doc,
"set_tensor_shape_range(desc, dims_range) -> ret\n\n"
"aclSetTensorShapeRange: [min, max] of each dim, as a list of pairs\n"
"([[16, 16], [1, 128]] for a shape [16, -1]).");

static PyObject *acl_set_tensor_shape_range(PyObject *Py_UNUSED(self), PyObject *args,
					    PyObject *kwargs)
{
	return set_ranges("acl.set_tensor_shape_range", "dims_range", args, kwargs,
			  aclSetTensorShapeRange);
}

PyDoc_STRVAR(set_tensor_value_range_doc,
"set_tensor_value_range(desc, value_range) -> ret\n\n"
"aclSetTensorValueRange: [min, max] of each value, as a list of pairs.");

static PyObject *acl_set_tensor_value_range(PyObject *Py_UNUSED(self), PyObject *args,
					    PyObject *kwargs)
{
	return set_ranges("acl.set_tensor_value_range", "value_range", args, kwargs,
			  aclSetTensorValueRange);
}

PyDoc_STRVAR(set_tensor_desc_name_doc,
"set_tensor_desc_name(desc, name) -> None\n\n"
"aclSetTensorDescName: names the description (None: no name); the\n"
"description keeps a copy.");

static PyObject *acl_set_tensor_desc_name(PyObject *Py_UNUSED(self), PyObject *args,
					  PyObject *kwargs)
{
	static const char func[] = "acl.set_tensor_desc_name";
	void *desc;
	PyObject *name_obj;
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr("desc", &desc),
		pyacl_arg_obj("name", &name_obj),
	};
	const char *name;

	if (!PYACL_PARSE(func, args, kwargs, spec) || !str_arg(func, "name", name_obj, true, &name))
		return NULL;
	aclSetTensorDescName(desc, name);
	Py_RETURN_NONE;
}

PyDoc_STRVAR(set_tensor_dynamic_input_doc,
"set_tensor_dynamic_input(desc, dynamic_input_name) -> ret\n\n"
"aclSetTensorDynamicInput: the name of the dynamic input the tensor belongs to.");

static PyObject *acl_set_tensor_dynamic_input(PyObject *Py_UNUSED(self), PyObject *args,
					      PyObject *kwargs)
{
	static const char func[] = "acl.set_tensor_dynamic_input";
	void *desc;
	PyObject *name_obj;
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr("desc", &desc),
		pyacl_arg_obj("dynamic_input_name", &name_obj),
	};
	const char *name;

	if (!PYACL_PARSE(func, args, kwargs, spec) ||
	    !str_arg(func, "dynamic_input_name", name_obj, false, &name))
		return NULL;
	return pyacl_ret(aclSetTensorDynamicInput(desc, name));
}

PyDoc_STRVAR(set_tensor_const_doc,
"set_tensor_const(desc, dataBuffer, length) -> ret\n\n"
"aclSetTensorConst: makes the tensor a constant of the length bytes at host\n"
"pointer dataBuffer (from acl.util.bytes_to_ptr, numpy_to_ptr or\n"
"acl.rt.malloc_host). The description keeps a copy, so the source may go\n"
"once the call returns; get_tensor_desc_address gives the copy.");

static PyObject *acl_set_tensor_const(PyObject *Py_UNUSED(self), PyObject *args,
				      PyObject *kwargs)
{
	static const char func[] = "acl.set_tensor_const";
	void *desc, *data;
	size_t length;
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr("desc", &desc),
		pyacl_arg_ptr("dataBuffer", &data),
		pyacl_arg_size("length", &length),
	};

	if (!PYACL_PARSE(func, args, kwargs, spec))
		return NULL;
	/* The library reads the bytes: a device address would fault the process. */
	if (data && !pyacl_host_ptr_ok(func, data))
		return NULL;
	return pyacl_ret(aclSetTensorConst(desc, data, length));
}

PyDoc_STRVAR(set_tensor_place_ment_doc,
"set_tensor_place_ment(desc, mem_type) -> ret\n\n"
"aclSetTensorPlaceMent: where the tensor's data lives (aclMemType: 0 device,\n"
"1 host, 2 host and compile-independent).");

static PyObject *acl_set_tensor_place_ment(PyObject *Py_UNUSED(self), PyObject *args,
					   PyObject *kwargs)
{
	void *desc;
	int32_t mem_type;
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr("desc", &desc),
		pyacl_arg_i32("mem_type", &mem_type),
	};

	if (!PYACL_PARSE("acl.set_tensor_place_ment", args, kwargs, spec))
		return NULL;
	return pyacl_ret(aclSetTensorPlaceMent(desc, (aclMemType)mem_type));
}

#define TD_ENTRY(name) PYACL_FUNC(#name, acl_##name, name##_doc)

PyMethodDef pyacl_tensor_desc_methods[] = {
	TD_ENTRY(create_tensor_desc),
	TD_ENTRY(destroy_tensor_desc),
	TD_ENTRY(set_tensor_shape_range),
	TD_ENTRY(set_tensor_value_range),
	TD_ENTRY(get_tensor_desc_type),
	TD_ENTRY(get_tensor_desc_format),
	TD_ENTRY(get_tensor_desc_size),
	TD_ENTRY(get_tensor_desc_element_count),
	TD_ENTRY(get_tensor_desc_num_dims),
	TD_ENTRY(get_tensor_desc_dim),
	TD_ENTRY(get_tensor_desc_dim_v2),
	TD_ENTRY(get_tensor_desc_dim_range),
	TD_ENTRY(set_tensor_desc_name),
	TD_ENTRY(get_tensor_desc_name),
	TD_ENTRY(set_tensor_storage_format),
	TD_ENTRY(set_tensor_storage_shape),
	TD_ENTRY(set_tensor_format),
	TD_ENTRY(set_tensor_shape),
	TD_ENTRY(set_tensor_origin_format),
	TD_ENTRY(set_tensor_origin_shape),
	TD_ENTRY(get_tensor_desc_address),
	TD_ENTRY(set_tensor_dynamic_input),
	TD_ENTRY(set_tensor_const),
	TD_ENTRY(set_tensor_place_ment),
	{ NULL, NULL, 0, NULL },
};
