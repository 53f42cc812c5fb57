// SPDX-License-Identifier: MIT
/*
 * acl.rt: memory, copies and fills (aclrtMalloc, aclrtMemcpy, ...).
 *
 * Pointers are ints: device memory from malloc*, pinned host memory from
 * malloc_host, or Python memory from acl.util.bytes_to_ptr/numpy_to_ptr.
 * The module cannot tell how long the memory behind a pointer lives: the
 * Python object it came from must stay alive (and, for an asynchronous
 * call, unchanged) until the copy is done, as the vendor documents.
 * Copies run without the GIL, so another thread must not free or resize
 * that object meanwhile.
 */
#include "pyacl.h"

/* malloc*(size, policy) -> (ptr, ret) */
static PyObject *malloc_policy(const char *func, PyObject *args, PyObject *kwargs,
			       aclError (*fn)(void **, size_t, aclrtMemMallocPolicy))
{
	size_t size;
	int32_t policy;
	const struct pyacl_arg spec[] = {
		pyacl_arg_size("size", &size),
		pyacl_arg_i32("policy", &policy),
	};
	void *p = NULL;
	aclError ret;

	if (!PYACL_PARSE(func, args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = fn(&p, size, (aclrtMemMallocPolicy)policy));
	return pyacl_ptr_ret(p, ret);
}

PyDoc_STRVAR(malloc_doc,
"malloc(size, policy) -> (dev_ptr, ret)\n\n"
"aclrtMalloc: device memory, uninitialized; free it with acl.rt.free.\n"
"policy is an aclrtMemMallocPolicy (ACL_MEM_MALLOC_HUGE_FIRST = 0, ...).");

static PyObject *rt_malloc(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	return malloc_policy("acl.rt.malloc", args, kwargs, aclrtMalloc);
}

PyDoc_STRVAR(malloc_align32_doc,
"malloc_align32(size, policy) -> (dev_ptr, ret)\n\naclrtMallocAlign32.");

static PyObject *rt_malloc_align32(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	return malloc_policy("acl.rt.malloc_align32", args, kwargs, aclrtMallocAlign32);
}

PyDoc_STRVAR(malloc_cached_doc,
"malloc_cached(size, policy) -> (dev_ptr, ret)\n\naclrtMallocCached.");

static PyObject *rt_malloc_cached(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	return malloc_policy("acl.rt.malloc_cached", args, kwargs, aclrtMallocCached);
}

PyDoc_STRVAR(free_doc,
"free(dev_ptr) -> ret\n\naclrtFree: device memory from malloc*.");

static PyObject *rt_free(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	return pyacl_call_handle("acl.rt.free", args, kwargs, "dev_ptr", aclrtFree);
}

PyDoc_STRVAR(malloc_host_doc,
"malloc_host(size) -> (host_ptr, ret)\n\n"
"aclrtMallocHost: pinned host memory; read and write it with\n"
"acl.util.ptr_to_bytes/ptr_to_numpy, free it with acl.rt.free_host.");

static PyObject *rt_malloc_host(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	size_t size;
	const struct pyacl_arg spec[] = { pyacl_arg_size("size", &size) };
	void *p = NULL;
	aclError ret;

	if (!PYACL_PARSE("acl.rt.malloc_host", args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = aclrtMallocHost(&p, size));
	return pyacl_ptr_ret(p, ret);
}

PyDoc_STRVAR(free_host_doc,
"free_host(host_ptr) -> ret\n\n"
"aclrtFreeHost: memory from malloc_host. Arrays from ptr_to_numpy on it\n"
"must not be used afterwards.");

static PyObject *rt_free_host(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	return pyacl_call_handle("acl.rt.free_host", args, kwargs, "host_ptr", aclrtFreeHost);
}

PyDoc_STRVAR(get_mem_info_doc,
"get_mem_info(attr) -> (free, total, ret)\n\n"
"aclrtGetMemInfo: bytes of device memory of an aclrtMemAttr kind.");

static PyObject *rt_get_mem_info(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	int32_t attr;
	const struct pyacl_arg spec[] = { pyacl_arg_i32("attr", &attr) };
	size_t free_bytes = 0, total = 0;
	aclError ret;

	if (!PYACL_PARSE("acl.rt.get_mem_info", args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = aclrtGetMemInfo((aclrtMemAttr)attr, &free_bytes, &total));
	return Py_BuildValue("(KKi)", (unsigned long long)free_bytes, (unsigned long long)total,
			     ret);
}

PyDoc_STRVAR(pointer_get_attributes_doc,
"pointer_get_attributes(ptr) -> (attributes, ret)\n\n"
"aclrtPointerGetAttributes: attributes is {'location': {'id': int,\n"
"'type': aclrtMemLocationType}, 'page_size': int, 'rsv': [4 ints]}.");

static PyObject *rt_pointer_get_attributes(PyObject *Py_UNUSED(self), PyObject *args,
					   PyObject *kwargs)
{
	void *p;
	const struct pyacl_arg spec[] = { pyacl_arg_ptr("ptr", &p) };
	aclrtPtrAttributes a;
	aclError ret;

	memset(&a, 0, sizeof(a));
	if (!PYACL_PARSE("acl.rt.pointer_get_attributes", args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = aclrtPointerGetAttributes(p, &a));
	return Py_BuildValue("({s:{s:I,s:I},s:I,s:[IIII]}i)", "location", "id", a.location.id,
			     "type", (unsigned int)a.location.type, "page_size", a.pageSize,
			     "rsv", a.rsv[0], a.rsv[1], a.rsv[2], a.rsv[3], ret);
}

PyDoc_STRVAR(host_register_doc,
"host_register(ptr, size, type) -> (dev_ptr, ret)\n\n"
"aclrtHostRegister: here dev_ptr is ptr itself, which every copy accepts.");

static PyObject *rt_host_register(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	void *p, *dev = NULL;
	uint64_t size;
	int32_t type;
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr("ptr", &p),
		pyacl_arg_u64("size", &size),
		pyacl_arg_i32("type", &type),
	};
	aclError ret;

	if (!PYACL_PARSE("acl.rt.host_register", args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = aclrtHostRegister(p, size, (aclrtHostRegisterType)type, &dev));
	return pyacl_ptr_ret(dev, ret);
}

PyDoc_STRVAR(host_unregister_doc,
"host_unregister(ptr) -> ret\n\naclrtHostUnregister.");

static PyObject *rt_host_unregister(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	return pyacl_call_handle("acl.rt.host_unregister", args, kwargs, "ptr",
				 aclrtHostUnregister);
}

/* ---- copies and fills ----------------------------------------------------- */

/* memcpy(dst, dest_max, src, count, kind) and memcpy_async(..., stream) */
static PyObject *copy(const char *func, PyObject *args, PyObject *kwargs, bool async)
{
	void *dst, *src, *stream = NULL;
	size_t dest_max, count;
	int32_t kind;
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr("dst", &dst),
		pyacl_arg_size("dest_max", &dest_max),
		pyacl_arg_ptr("src", &src),
		pyacl_arg_size("count", &count),
		pyacl_arg_i32("kind", &kind),
		pyacl_arg_ptr("stream", &stream),
	};
	aclError ret;

	if (!pyacl_parse(func, args, kwargs, spec, PYACL_NARGS(spec) - !async))
		return NULL;
	if (async)
		PYACL_NOGIL(ret = aclrtMemcpyAsync(dst, dest_max, src, count, (aclrtMemcpyKind)kind,
						   stream));
	else
		PYACL_NOGIL(ret = aclrtMemcpy(dst, dest_max, src, count, (aclrtMemcpyKind)kind));
	return pyacl_ret(ret);
}

PyDoc_STRVAR(memcpy_doc,
"memcpy(dst, dest_max, src, count, kind) -> ret\n\n"
"aclrtMemcpy: copies count bytes, at most dest_max, and waits (without the\n"
"GIL) until they are copied. kind is an aclrtMemcpyKind\n"
"(ACL_MEMCPY_HOST_TO_DEVICE = 1, ..., ACL_MEMCPY_DEFAULT = 4: inferred).");

static PyObject *rt_memcpy(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	return copy("acl.rt.memcpy", args, kwargs, false);
}

PyDoc_STRVAR(memcpy_async_doc,
"memcpy_async(dst, dest_max, src, count, kind, stream) -> ret\n\n"
"aclrtMemcpyAsync: queued on the stream. With pinned or device memory at\n"
"both ends, the memory must stay alive until the stream is synchronized;\n"
"a copy touching other host memory is done when the call returns.");

static PyObject *rt_memcpy_async(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	return copy("acl.rt.memcpy_async", args, kwargs, true);
}

/* memcpy2d(dst, dpitch, src, spitch, width, height, kind) and the _async one */
static PyObject *copy2d(const char *func, PyObject *args, PyObject *kwargs, bool async)
{
	void *dst, *src, *stream = NULL;
	size_t dpitch, spitch, width, height;
	int32_t kind;
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr("dst", &dst),
		pyacl_arg_size("dpitch", &dpitch),
		pyacl_arg_ptr("src", &src),
		pyacl_arg_size("spitch", &spitch),
		pyacl_arg_size("width", &width),
		pyacl_arg_size("height", &height),
		pyacl_arg_i32("kind", &kind),
		pyacl_arg_ptr("stream", &stream),
	};
	aclError ret;

	if (!pyacl_parse(func, args, kwargs, spec, PYACL_NARGS(spec) - !async))
		return NULL;
	if (async)
		PYACL_NOGIL(ret = aclrtMemcpy2dAsync(dst, dpitch, src, spitch, width, height,
						     (aclrtMemcpyKind)kind, stream));
	else
		PYACL_NOGIL(ret = aclrtMemcpy2d(dst, dpitch, src, spitch, width, height,
						(aclrtMemcpyKind)kind));
	return pyacl_ret(ret);
}

PyDoc_STRVAR(memcpy2d_doc,
"memcpy2d(dst, dpitch, src, spitch, width, height, kind) -> ret\n\n"
"aclrtMemcpy2d: height rows of width bytes, rows dpitch/spitch apart.");

static PyObject *rt_memcpy2d(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	return copy2d("acl.rt.memcpy2d", args, kwargs, false);
}

PyDoc_STRVAR(memcpy2d_async_doc,
"memcpy2d_async(dst, dpitch, src, spitch, width, height, kind, stream) -> ret\n\n"
"aclrtMemcpy2dAsync.");

static PyObject *rt_memcpy2d_async(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	return copy2d("acl.rt.memcpy2d_async", args, kwargs, true);
}

/* memset(dev_ptr, max_count, value, count) and memset_async(..., stream) */
static PyObject *fill(const char *func, PyObject *args, PyObject *kwargs, bool async)
{
	void *p, *stream = NULL;
	size_t max_count, count;
	int32_t value;
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr("dev_ptr", &p),
		pyacl_arg_size("max_count", &max_count),
		pyacl_arg_i32("value", &value),
		pyacl_arg_size("count", &count),
		pyacl_arg_ptr("stream", &stream),
	};
	aclError ret;

	if (!pyacl_parse(func, args, kwargs, spec, PYACL_NARGS(spec) - !async))
		return NULL;
	if (async)
		PYACL_NOGIL(ret = aclrtMemsetAsync(p, max_count, value, count, stream));
	else
		PYACL_NOGIL(ret = aclrtMemset(p, max_count, value, count));
	return pyacl_ret(ret);
}

PyDoc_STRVAR(memset_doc,
"memset(dev_ptr, max_count, value, count) -> ret\n\n"
"aclrtMemset: count bytes set to value (its low byte).");

static PyObject *rt_memset(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	return fill("acl.rt.memset", args, kwargs, false);
}

PyDoc_STRVAR(memset_async_doc,
"memset_async(dev_ptr, max_count, value, count, stream) -> ret\n\n"
"aclrtMemsetAsync.");

static PyObject *rt_memset_async(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	return fill("acl.rt.memset_async", args, kwargs, true);
}

/* value_write/value_wait(dev_addr, value, flag, stream) */
static PyObject *value_op(const char *func, PyObject *args, PyObject *kwargs,
			  aclError (*fn)(void *, uint64_t, uint32_t, aclrtStream))
{
	void *addr, *stream;
	uint64_t value;
	uint32_t flag;
	const struct pyacl_arg spec[] = {
		pyacl_arg_ptr("dev_addr", &addr),
		pyacl_arg_u64("value", &value),
		pyacl_arg_u32("flag", &flag),
		pyacl_arg_ptr("stream", &stream),
	};
	aclError ret;

	if (!PYACL_PARSE(func, args, kwargs, spec))
		return NULL;
	PYACL_NOGIL(ret = fn(addr, value, flag, stream));
	return pyacl_ret(ret);
}

PyDoc_STRVAR(value_write_doc,
"value_write(dev_addr, value, flag, stream) -> ret\n\n"
"aclrtValueWrite: the stream writes a 64-bit value to device memory.");

static PyObject *rt_value_write(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	return value_op("acl.rt.value_write", args, kwargs, aclrtValueWrite);
}

PyDoc_STRVAR(value_wait_doc,
"value_wait(dev_addr, value, flag, stream) -> ret\n\n"
"aclrtValueWait: the stream waits until the 64-bit word at dev_addr\n"
"meets value by flag (ACL_STREAM_WAIT_VALUE_GEQ = 0, _EQ, _AND, _NOR).");

static PyObject *rt_value_wait(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs)
{
	return value_op("acl.rt.value_wait", args, kwargs, aclrtValueWait);
}

PyMethodDef pyacl_memory_methods[] = {
	PYACL_FUNC("malloc", rt_malloc, malloc_doc),
	PYACL_FUNC("malloc_align32", rt_malloc_align32, malloc_align32_doc),
	PYACL_FUNC("malloc_cached", rt_malloc_cached, malloc_cached_doc),
	PYACL_FUNC("free", rt_free, free_doc),
	PYACL_FUNC("malloc_host", rt_malloc_host, malloc_host_doc),
	PYACL_FUNC("free_host", rt_free_host, free_host_doc),
	PYACL_FUNC("get_mem_info", rt_get_mem_info, get_mem_info_doc),
	PYACL_FUNC("pointer_get_attributes", rt_pointer_get_attributes,
		   pointer_get_attributes_doc),
	PYACL_FUNC("host_register", rt_host_register, host_register_doc),
	PYACL_FUNC("host_unregister", rt_host_unregister, host_unregister_doc),
	PYACL_FUNC("memcpy", rt_memcpy, memcpy_doc),
	PYACL_FUNC("memcpy_async", rt_memcpy_async, memcpy_async_doc),
	PYACL_FUNC("memcpy2d", rt_memcpy2d, memcpy2d_doc),
	PYACL_FUNC("memcpy2d_async", rt_memcpy2d_async, memcpy2d_async_doc),
	PYACL_FUNC("memset", rt_memset, memset_doc),
	PYACL_FUNC("memset_async", rt_memset_async, memset_async_doc),
	PYACL_FUNC("value_write", rt_value_write, value_write_doc),
	PYACL_FUNC("value_wait", rt_value_wait, value_wait_doc),
	{ NULL, NULL, 0, NULL },
};
