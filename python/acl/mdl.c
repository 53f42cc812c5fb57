// SPDX-License-Identifier: MIT
/*
 * acl.mdl: models (aclmdl* of acl/acl_mdl.h): loading an .om, its
 * description, the datasets of an execution, and execution. Model
 * descriptions and datasets are C objects named by ints, living until
 * their destroy call, as in C; a dataset does not own its data buffers
 * nor its tensor descriptions.
 */
#include "pyacl.h"

/* A str argument as UTF-8, or NULL with TypeError naming func and name. */
static const char *str_arg(const char *func, const char *name, PyObject *obj)
{
	if (!PyUnicode_Check(obj)) {
		PyErr_Format(PyExc_TypeError, "%s() argument '%s' must be str, not %.100s",
			     func, name, Py_TYPE(obj)->tp_name);
		return NULL;
	}
	return PyUnicode_AsUTF8(obj);
}

static PyObject *model_id_ret(uint32_t model_id, aclError ret)
{
	return Py_BuildValue("(ki)", (unsigned long)model_id, (int)ret);
}

/* The vendor's dims dict: {"name": str, "dimCount": int, "dims": [int]}. */
static PyObject *dims_dict(const aclmdlIODims *d)
{
	size_t n = d->dimCount > ACL_MAX_DIM_CNT ? ACL_MAX_DIM_CNT : d->dimCount;
	PyObject *list = PyList_New((Py_ssize_t)n);
	size_t i;

	if (!list)
		return NULL;
	for (i = 0; i < n; i++) {
		PyObject *v = PyLong_FromLongLong(d->dims[i]);

		if (!v) {
			Py_DECREF(list);
			return NULL;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, v);
	}
	return Py_BuildValue("{s:s#,s:n,s:N}", "name", d->name,
			     (Py_ssize_t)strnlen(d->name, sizeof(d->name)),
			     "dimCount", (Py_ssize_t)d->dimCount, "dims", list);
}

/* ---- loading ---- */

PyDoc_STRVAR(load_from_file_doc,
"load_from_file(model_path) -> model_id, ret\n\n"
"aclmdlLoadFromFile: loads an .om file on the current context's device.");

static PyObject *mdl_load_from_file(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	PyObject *path_obj;
	const struct pyacl_arg spec[] = { pyacl_arg_obj("model_path", &path_obj) };
	const char *path;
	uint32_t id = 0;
	aclError ret;

	if (!PYACL_PARSE("acl.mdl.load_from_file", args, kwargs, spec))
		return NULL;
	path = str_arg("acl.mdl.load_from_file", "model_path", path_obj);
	if (!path)
		return NULL;
	PYACL_NOGIL(ret = aclmdlLoadFromFile(path, &id));
	return model_id_ret(id, ret);
}

PyDoc_STRVAR(load_from_mem_doc,
"load_from_mem(model, model_size) -> model_id, ret\n\n"
"aclmdlLoadFromMem: loads the .om image of model_size bytes at host pointer model.");

static PyObject *mdl_load_from_mem(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	void *model;
	size_t size;
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr("model", &model),
		pyacl_arg_size("model_size", &size),
	};
	uint32_t id = 0;
	aclError ret;

	if (!PYACL_PARSE("acl.mdl.load_from_mem", args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = aclmdlLoadFromMem(model, size, &id));
	return model_id_ret(id, ret);
}

PyDoc_STRVAR(load_from_file_with_mem_doc,
"load_from_file_with_mem(model_path, work_ptr, work_size, weight_ptr, weight_size)\n"
"    -> model_id, ret\n\n"
"aclmdlLoadFromFileWithMem: loads with the caller's device workspace and weights\n"
"(0: the library's own).");

static PyObject *mdl_load_from_file_with_mem(PyObject *Py_UNUSED(self), PyObject *args,
					     PyObject *kwargs)
{
	PyObject *path_obj;
	void *work, *weight;
	size_t work_size, weight_size;
	const struct pyacl_arg spec[] = {
		pyacl_arg_obj("model_path", &path_obj),
		pyacl_arg_ptr("work_ptr", &work),
		pyacl_arg_size("work_size", &work_size),
		pyacl_arg_ptr("weight_ptr", &weight),
		pyacl_arg_size("weight_size", &weight_size),
	};
	const char *path;
	uint32_t id = 0;
	aclError ret;

	if (!PYACL_PARSE("acl.mdl.load_from_file_with_mem", args, kwargs, spec))
		return NULL;
	path = str_arg("acl.mdl.load_from_file_with_mem", "model_path", path_obj);
	if (!path)
		return NULL;
	PYACL_NOGIL(ret = aclmdlLoadFromFileWithMem(path, &id, work, work_size,
						    weight, weight_size));
	return model_id_ret(id, ret);
}

PyDoc_STRVAR(load_from_mem_with_mem_doc,
"load_from_mem_with_mem(model, model_size, work_ptr, work_size, weight_ptr, weight_size)\n"
"    -> model_id, ret\n\n"
"aclmdlLoadFromMemWithMem: load_from_mem with the caller's device memory.");

static PyObject *mdl_load_from_mem_with_mem(PyObject *Py_UNUSED(self), PyObject *args,
					    PyObject *kwargs)
{
	void *model, *work, *weight;
	size_t size, work_size, weight_size;
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr("model", &model),
		pyacl_arg_size("model_size", &size),
		pyacl_arg_ptr("work_ptr", &work),
		pyacl_arg_size("work_size", &work_size),
		pyacl_arg_ptr("weight_ptr", &weight),
		pyacl_arg_size("weight_size", &weight_size),
	};
	uint32_t id = 0;
	aclError ret;

	if (!PYACL_PARSE("acl.mdl.load_from_mem_with_mem", args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = aclmdlLoadFromMemWithMem(model, size, &id, work, work_size,
						   weight, weight_size));
	return model_id_ret(id, ret);
}

PyDoc_STRVAR(query_size_doc,
"query_size(file_name) -> work_size, weight_size, ret\n\n"
"aclmdlQuerySize: the device memory a load_from_file_with_mem needs.");

static PyObject *mdl_query_size(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	PyObject *path_obj;
	const struct pyacl_arg spec[] = { pyacl_arg_obj("file_name", &path_obj) };
	size_t work = 0, weight = 0;
	const char *path;
	aclError ret;

	if (!PYACL_PARSE("acl.mdl.query_size", args, kwargs, spec))
		return NULL;
	path = str_arg("acl.mdl.query_size", "file_name", path_obj);
	if (!path)
		return NULL;
	PYACL_NOGIL(ret = aclmdlQuerySize(path, &work, &weight));
	return Py_BuildValue("(nni)", (Py_ssize_t)work, (Py_ssize_t)weight, (int)ret);
}

PyDoc_STRVAR(query_size_from_mem_doc,
"query_size_from_mem(model, model_size) -> work_size, weight_size, ret\n\n"
"aclmdlQuerySizeFromMem: query_size of an .om image in host memory.");

static PyObject *mdl_query_size_from_mem(PyObject *Py_UNUSED(self), PyObject *args,
					 PyObject *kwargs)
{
	void *model;
	size_t size, work = 0, weight = 0;
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr("model", &model),
		pyacl_arg_size("model_size", &size),
	};
	aclError ret;

	if (!PYACL_PARSE("acl.mdl.query_size_from_mem", args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = aclmdlQuerySizeFromMem(model, size, &work, &weight));
	return Py_BuildValue("(nni)", (Py_ssize_t)work, (Py_ssize_t)weight, (int)ret);
}

PyDoc_STRVAR(unload_doc,
"unload(model_id) -> ret\n\n"
"aclmdlUnload: unloads the model; executions already queued still run.");

static PyObject *mdl_unload(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	uint32_t id;
	const struct pyacl_arg spec[] = { pyacl_arg_u32("model_id", &id) };
	aclError ret;

	if (!PYACL_PARSE("acl.mdl.unload", args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = aclmdlUnload(id));
	return pyacl_ret(ret);
}

/* ---- descriptions ---- */

PyDoc_STRVAR(create_desc_doc,
"create_desc() -> model_desc\n\n"
"aclmdlCreateDesc: an empty description for get_desc; 0 on failure.");

static PyObject *mdl_create_desc(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(unused))
{
	return pyacl_ptr(aclmdlCreateDesc());
}

PyDoc_STRVAR(get_desc_doc,
"get_desc(model_desc, model_id) -> ret\n\n"
"aclmdlGetDesc: fills model_desc with the loaded model's inputs and outputs.");

static PyObject *mdl_get_desc(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	void *desc;
	uint32_t id;
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr("model_desc", &desc),
		pyacl_arg_u32("model_id", &id),
	};

	if (!PYACL_PARSE("acl.mdl.get_desc", args, kwargs, spec))
		return NULL;
	return pyacl_ret(aclmdlGetDesc(desc, id));
}

PyDoc_STRVAR(destroy_desc_doc,
"destroy_desc(model_desc) -> ret\n\n"
"aclmdlDestroyDesc: frees the description.");

static PyObject *mdl_destroy_desc(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	void *desc;
	const struct pyacl_arg spec[] = { pyacl_arg_ptr("model_desc", &desc) };

	if (!PYACL_PARSE("acl.mdl.destroy_desc", args, kwargs, spec))
		return NULL;
	return pyacl_ret(aclmdlDestroyDesc(desc));
}

PyDoc_STRVAR(get_desc_from_file_doc,
"get_desc_from_file(model_desc, model_path) -> ret\n\n"
"aclmdlGetDescFromFile: fills model_desc from an .om file, without loading it.");

static PyObject *mdl_get_desc_from_file(PyObject *Py_UNUSED(self), PyObject *args,
					PyObject *kwargs)
{
	void *desc;
	PyObject *path_obj;
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr("model_desc", &desc),
		pyacl_arg_obj("model_path", &path_obj),
	};
	const char *path;
	aclError ret;

	if (!PYACL_PARSE("acl.mdl.get_desc_from_file", args, kwargs, spec))
		return NULL;
	path = str_arg("acl.mdl.get_desc_from_file", "model_path", path_obj);
	if (!path)
		return NULL;
	PYACL_NOGIL(ret = aclmdlGetDescFromFile(desc, path));
	return pyacl_ret(ret);
}

PyDoc_STRVAR(get_desc_from_mem_doc,
"get_desc_from_mem(model_desc, model, model_size) -> ret\n\n"
"aclmdlGetDescFromMem: fills model_desc from the .om image of model_size bytes\n"
"at host pointer model, without loading it.");

static PyObject *mdl_get_desc_from_mem(PyObject *Py_UNUSED(self), PyObject *args,
				       PyObject *kwargs)
{
	void *desc, *model;
	size_t size;
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr("model_desc", &desc),
		pyacl_arg_ptr("model", &model),
		pyacl_arg_size("model_size", &size),
	};
	aclError ret;

	if (!PYACL_PARSE("acl.mdl.get_desc_from_mem", args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = aclmdlGetDescFromMem(desc, model, size));
	return pyacl_ret(ret);
}

/* f(model_desc) -> size_t: the counts. */
static PyObject *desc_count(const char *func, PyObject *args, PyObject *kwargs,
			    size_t (*fn)(aclmdlDesc *))
{
	void *desc;
	const struct pyacl_arg spec[] = { pyacl_arg_ptr("model_desc", &desc) };

	if (!PYACL_PARSE(func, args, kwargs, spec))
		return NULL;
	return PyLong_FromSize_t(fn(desc));
}

/* Parses (model_desc, index), the arguments of the per-tensor getters. */
static bool desc_index_args(const char *func, PyObject *args, PyObject *kwargs,
			    void **desc, size_t *index)
{
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr("model_desc", desc),
		pyacl_arg_size("index", index),
	};

	return PYACL_PARSE(func, args, kwargs, spec);
}

static PyObject *desc_size(const char *func, PyObject *args, PyObject *kwargs,
			   size_t (*fn)(aclmdlDesc *, size_t))
{
	void *desc;
	size_t index;

	if (!desc_index_args(func, args, kwargs, &desc, &index))
		return NULL;
	return PyLong_FromSize_t(fn(desc, index));
}

static PyObject *desc_dims(const char *func, PyObject *args, PyObject *kwargs,
			   aclError (*fn)(const aclmdlDesc *, size_t, aclmdlIODims *))
{
	aclmdlIODims dims = { 0 };
	void *desc;
	size_t index;
	aclError ret;
	PyObject *d;

	if (!desc_index_args(func, args, kwargs, &desc, &index))
		return NULL;
	ret = fn(desc, index, &dims);
	d = dims_dict(&dims);
	return d ? Py_BuildValue("(Ni)", d, (int)ret) : NULL;
}

static PyObject *desc_name(const char *func, PyObject *args, PyObject *kwargs,
			   const char *(*fn)(const aclmdlDesc *, size_t))
{
	void *desc;
	size_t index;
	const char *s;

	if (!desc_index_args(func, args, kwargs, &desc, &index))
		return NULL;
	s = fn(desc, index);
	return PyUnicode_FromString(s ? s : "");
}

static PyObject *desc_index_by_name(const char *func, PyObject *args, PyObject *kwargs,
				    aclError (*fn)(const aclmdlDesc *, const char *, size_t *))
{
	void *desc;
	PyObject *name_obj;
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr("model_desc", &desc),
		pyacl_arg_obj("name", &name_obj),
	};
	const char *name;
	size_t index = 0;
	aclError ret;

	if (!PYACL_PARSE(func, args, kwargs, spec))
		return NULL;
	name = str_arg(func, "name", name_obj);
	if (!name)
		return NULL;
	ret = fn(desc, name, &index);
	return Py_BuildValue("(ni)", (Py_ssize_t)index, (int)ret);
}

static PyObject *desc_enum(const char *func, PyObject *args, PyObject *kwargs,
			   int (*fn)(const aclmdlDesc *, size_t))
{
	void *desc;
	size_t index;

	if (!desc_index_args(func, args, kwargs, &desc, &index))
		return NULL;
	return PyLong_FromLong(fn(desc, index));
}

/* The C getters return enums; these give them one type for desc_enum. */
static int input_data_type(const aclmdlDesc *d, size_t i) { return aclmdlGetInputDataType(d, i); }
static int output_data_type(const aclmdlDesc *d, size_t i) { return aclmdlGetOutputDataType(d, i); }
static int input_format(const aclmdlDesc *d, size_t i) { return aclmdlGetInputFormat(d, i); }
static int output_format(const aclmdlDesc *d, size_t i) { return aclmdlGetOutputFormat(d, i); }

#define MDL_DESC_FUNC(pyname, helper, cfn, sig, what)					\
	PyDoc_STRVAR(pyname##_doc, #pyname sig "\n\n" what);			\
	static PyObject *mdl_##pyname(PyObject *Py_UNUSED(self), PyObject *args,	\
				      PyObject *kwargs)					\
	{										\
		return helper("acl.mdl." #pyname, args, kwargs, cfn);			\
	}

MDL_DESC_FUNC(get_num_inputs, desc_count, aclmdlGetNumInputs,
	      "(model_desc) -> int", "aclmdlGetNumInputs: the number of inputs.")
MDL_DESC_FUNC(get_num_outputs, desc_count, aclmdlGetNumOutputs,
	      "(model_desc) -> int", "aclmdlGetNumOutputs: the number of outputs.")
MDL_DESC_FUNC(get_input_size_by_index, desc_size, aclmdlGetInputSizeByIndex,
	      "(model_desc, index) -> int", "aclmdlGetInputSizeByIndex: the input's size in bytes; 0 for a bad index.")
MDL_DESC_FUNC(get_output_size_by_index, desc_size, aclmdlGetOutputSizeByIndex,
	      "(model_desc, index) -> int", "aclmdlGetOutputSizeByIndex: the output's size in bytes; 0 for a bad index.")
MDL_DESC_FUNC(get_input_dims, desc_dims, aclmdlGetInputDims,
	      "(model_desc, index) -> dims, ret",
	      "aclmdlGetInputDims: dims is {'name': str, 'dimCount': int, 'dims': [int]}.")
MDL_DESC_FUNC(get_input_dims_v2, desc_dims, aclmdlGetInputDimsV2,
	      "(model_desc, index) -> dims, ret",
	      "aclmdlGetInputDimsV2: as get_input_dims (they differ only for AIPP inputs).")
MDL_DESC_FUNC(get_output_dims, desc_dims, aclmdlGetOutputDims,
	      "(model_desc, index) -> dims, ret",
	      "aclmdlGetOutputDims: dims is {'name': str, 'dimCount': int, 'dims': [int]}.")
MDL_DESC_FUNC(get_cur_output_dims, desc_dims, aclmdlGetCurOutputDims,
	      "(model_desc, index) -> dims, ret",
	      "aclmdlGetCurOutputDims: the output's dims for the last execution (static shapes: get_output_dims).")
MDL_DESC_FUNC(get_input_name_by_index, desc_name, aclmdlGetInputNameByIndex,
	      "(model_desc, index) -> str", "aclmdlGetInputNameByIndex: the input's name; '' for a bad index.")
MDL_DESC_FUNC(get_output_name_by_index, desc_name, aclmdlGetOutputNameByIndex,
	      "(model_desc, index) -> str", "aclmdlGetOutputNameByIndex: the output's name; '' for a bad index.")
MDL_DESC_FUNC(get_input_index_by_name, desc_index_by_name, aclmdlGetInputIndexByName,
	      "(model_desc, name) -> index, ret", "aclmdlGetInputIndexByName: the index of the input named name.")
MDL_DESC_FUNC(get_output_index_by_name, desc_index_by_name, aclmdlGetOutputIndexByName,
	      "(model_desc, name) -> index, ret", "aclmdlGetOutputIndexByName: the index of the output named name.")
MDL_DESC_FUNC(get_input_data_type, desc_enum, input_data_type,
	      "(model_desc, index) -> int", "aclmdlGetInputDataType; ACL_DT_UNDEFINED (-1) for a bad index.")
MDL_DESC_FUNC(get_output_data_type, desc_enum, output_data_type,
	      "(model_desc, index) -> int", "aclmdlGetOutputDataType; ACL_DT_UNDEFINED (-1) for a bad index.")
MDL_DESC_FUNC(get_input_format, desc_enum, input_format,
	      "(model_desc, index) -> int", "aclmdlGetInputFormat; ACL_FORMAT_UNDEFINED (-1) for a bad index.")
MDL_DESC_FUNC(get_output_format, desc_enum, output_format,
	      "(model_desc, index) -> int", "aclmdlGetOutputFormat; ACL_FORMAT_UNDEFINED (-1) for a bad index.")

/* ---- datasets ---- */

PyDoc_STRVAR(create_dataset_doc,
"create_dataset() -> dataset\n\n"
"aclmdlCreateDataset: an empty dataset; 0 on failure.");

static PyObject *mdl_create_dataset(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(unused))
{
	return pyacl_ptr(aclmdlCreateDataset());
}

PyDoc_STRVAR(destroy_dataset_doc,
"destroy_dataset(dataset) -> ret\n\n"
"aclmdlDestroyDataset: frees the dataset, not its data buffers.");

static PyObject *mdl_destroy_dataset(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	void *ds;
	const struct pyacl_arg spec[] = { pyacl_arg_ptr("dataset", &ds) };

	if (!PYACL_PARSE("acl.mdl.destroy_dataset", args, kwargs, spec))
		return NULL;
	return pyacl_ret(aclmdlDestroyDataset(ds));
}

PyDoc_STRVAR(add_dataset_buffer_doc,
"add_dataset_buffer(dataset, data_buffer) -> dataset, ret\n\n"
"aclmdlAddDatasetBuffer: appends the data buffer to the dataset.");

static PyObject *mdl_add_dataset_buffer(PyObject *Py_UNUSED(self), PyObject *args,
					PyObject *kwargs)
{
	void *ds, *buf;
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr("dataset", &ds),
		pyacl_arg_ptr("data_buffer", &buf),
	};

	if (!PYACL_PARSE("acl.mdl.add_dataset_buffer", args, kwargs, spec))
		return NULL;
	return pyacl_ptr_ret(ds, aclmdlAddDatasetBuffer(ds, buf));
}

PyDoc_STRVAR(get_dataset_num_buffers_doc,
"get_dataset_num_buffers(dataset) -> int\n\n"
"aclmdlGetDatasetNumBuffers: the number of data buffers; 0 for dataset 0.");

static PyObject *mdl_get_dataset_num_buffers(PyObject *Py_UNUSED(self), PyObject *args,
					     PyObject *kwargs)
{
	void *ds;
	const struct pyacl_arg spec[] = { pyacl_arg_ptr("dataset", &ds) };

	if (!PYACL_PARSE("acl.mdl.get_dataset_num_buffers", args, kwargs, spec))
		return NULL;
	return PyLong_FromSize_t(aclmdlGetDatasetNumBuffers(ds));
}

PyDoc_STRVAR(get_dataset_buffer_doc,
"get_dataset_buffer(dataset, index) -> data_buffer\n\n"
"aclmdlGetDatasetBuffer: the index-th data buffer; 0 for a bad index.");

static PyObject *mdl_get_dataset_buffer(PyObject *Py_UNUSED(self), PyObject *args,
					PyObject *kwargs)
{
	void *ds;
	size_t index;
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr("dataset", &ds),
		pyacl_arg_size("index", &index),
	};

	if (!PYACL_PARSE("acl.mdl.get_dataset_buffer", args, kwargs, spec))
		return NULL;
	return pyacl_ptr(aclmdlGetDatasetBuffer(ds, index));
}

PyDoc_STRVAR(set_dataset_tensor_desc_doc,
"set_dataset_tensor_desc(dataset, tensorDesc, index) -> dataset, ret\n\n"
"aclmdlSetDatasetTensorDesc: attaches the tensor description (from\n"
"acl.create_tensor_desc) to the index-th buffer of the dataset. The dataset\n"
"refers to it without a copy: keep it until the dataset is destroyed.");

static PyObject *mdl_set_dataset_tensor_desc(PyObject *Py_UNUSED(self), PyObject *args,
					     PyObject *kwargs)
{
	void *ds, *td;
	size_t index;
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr("dataset", &ds),
		pyacl_arg_ptr("tensorDesc", &td),
		pyacl_arg_size("index", &index),
	};

	if (!PYACL_PARSE("acl.mdl.set_dataset_tensor_desc", args, kwargs, spec))
		return NULL;
	return pyacl_ptr_ret(ds, aclmdlSetDatasetTensorDesc(ds, td, index));
}

PyDoc_STRVAR(get_dataset_tensor_desc_doc,
"get_dataset_tensor_desc(dataset, index) -> tensorDesc\n\n"
"aclmdlGetDatasetTensorDesc: the description attached to the index-th buffer;\n"
"0 if none or for a bad index.");

static PyObject *mdl_get_dataset_tensor_desc(PyObject *Py_UNUSED(self), PyObject *args,
					     PyObject *kwargs)
{
	void *ds;
	size_t index;
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr("dataset", &ds),
		pyacl_arg_size("index", &index),
	};

	if (!PYACL_PARSE("acl.mdl.get_dataset_tensor_desc", args, kwargs, spec))
		return NULL;
	return pyacl_ptr(aclmdlGetDatasetTensorDesc(ds, index));
}

/* ---- execution ---- */

PyDoc_STRVAR(execute_doc,
"execute(model_id, input, output) -> ret\n\n"
"aclmdlExecute: runs the model on the datasets and waits for it.");

static PyObject *mdl_execute(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	uint32_t id;
	void *in, *out;
	const struct pyacl_arg spec[] = {
		pyacl_arg_u32("model_id", &id),
		pyacl_arg_ptr("input", &in),
		pyacl_arg_ptr("output", &out),
	};
	aclError ret;

	if (!PYACL_PARSE("acl.mdl.execute", args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = aclmdlExecute(id, in, out));
	return pyacl_ret(ret);
}

PyDoc_STRVAR(execute_async_doc,
"execute_async(model_id, input, output, stream) -> ret\n\n"
"aclmdlExecuteAsync: queues the model on stream (0: the default stream).");

static PyObject *mdl_execute_async(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	uint32_t id;
	void *in, *out, *stream;
	const struct pyacl_arg spec[] = {
		pyacl_arg_u32("model_id", &id),
		pyacl_arg_ptr("input", &in),
		pyacl_arg_ptr("output", &out),
		pyacl_arg_ptr("stream", &stream),
	};
	aclError ret;

	if (!PYACL_PARSE("acl.mdl.execute_async", args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = aclmdlExecuteAsync(id, in, out, stream));
	return pyacl_ret(ret);
}

#define MDL_ENTRY(name) PYACL_FUNC(#name, mdl_##name, name##_doc)

PyMethodDef pyacl_mdl_methods[] = {
	MDL_ENTRY(load_from_file),
	MDL_ENTRY(load_from_mem),
	MDL_ENTRY(load_from_file_with_mem),
	MDL_ENTRY(load_from_mem_with_mem),
	MDL_ENTRY(query_size),
	MDL_ENTRY(query_size_from_mem),
	MDL_ENTRY(unload),
	PYACL_FUNC0("create_desc", mdl_create_desc, create_desc_doc),
	MDL_ENTRY(get_desc),
	MDL_ENTRY(destroy_desc),
	MDL_ENTRY(get_desc_from_file),
	MDL_ENTRY(get_desc_from_mem),
	MDL_ENTRY(get_num_inputs),
	MDL_ENTRY(get_num_outputs),
	MDL_ENTRY(get_input_size_by_index),
	MDL_ENTRY(get_output_size_by_index),
	MDL_ENTRY(get_input_dims),
	MDL_ENTRY(get_input_dims_v2),
	MDL_ENTRY(get_output_dims),
	MDL_ENTRY(get_cur_output_dims),
	MDL_ENTRY(get_input_name_by_index),
	MDL_ENTRY(get_output_name_by_index),
	MDL_ENTRY(get_input_index_by_name),
	MDL_ENTRY(get_output_index_by_name),
	MDL_ENTRY(get_input_data_type),
	MDL_ENTRY(get_output_data_type),
	MDL_ENTRY(get_input_format),
	MDL_ENTRY(get_output_format),
	PYACL_FUNC0("create_dataset", mdl_create_dataset, create_dataset_doc),
	MDL_ENTRY(add_dataset_buffer),
	MDL_ENTRY(get_dataset_buffer),
	MDL_ENTRY(get_dataset_num_buffers),
	MDL_ENTRY(destroy_dataset),
	MDL_ENTRY(set_dataset_tensor_desc),
	MDL_ENTRY(get_dataset_tensor_desc),
	MDL_ENTRY(execute),
	MDL_ENTRY(execute_async),
	{ NULL, NULL, 0, NULL },
};
