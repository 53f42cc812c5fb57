/* SPDX-License-Identifier: MIT */
/*
 * The acl extension module (pyACL over libascendcl): what its files share.
 *
 * Each file wraps one part of the C API and exports a PyMethodDef table;
 * module.c puts the tables into the module "acl" and its submodules
 * ("acl.rt", "acl.util", "acl.mdl").
 *
 * Conventions, as in the vendor's pyACL:
 * - pointers and handles are Python ints (0 is NULL);
 * - a call with outputs returns them followed by the aclError, as a tuple
 *   ("dev_ptr, ret = acl.rt.malloc(size, policy)"); else the bare aclError;
 * - enums and flags are plain ints with the C values.
 * An argument of the wrong Python type raises TypeError, an int that does
 * not fit its C type OverflowError; the runtime's own failures come back as
 * aclError codes, never as exceptions.
 */
#ifndef PYACL_H
#define PYACL_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdbool.h>
#include <stdint.h>

#include "acl/acl.h"

/* C type an argument converts to. */
enum pyacl_kind {
	PYACL_PTR,		/* void *: a non-negative int below 2**64 */
	PYACL_I32,		/* int32_t (and C enums) */
	PYACL_U32,		/* uint32_t */
	PYACL_I64,		/* int64_t */
	PYACL_U64,		/* uint64_t */
	PYACL_SIZE,		/* size_t */
	PYACL_FLOAT,		/* float: a float or an int */
	PYACL_OBJ,		/* PyObject *, borrowed, any type */
	PYACL_CALLABLE,		/* PyObject *, borrowed, callable */
};

struct pyacl_arg {
	const char *name;	/* the vendor's parameter name */
	enum pyacl_kind kind;
	void *out;
};

/* Typed constructors: a wrong out pointer fails to compile. */
#define PYACL_ARG_CTOR(fn, kind, type)					\
	static inline struct pyacl_arg fn(const char *name, type *out)	\
	{								\
		return (struct pyacl_arg){ name, kind, out };		\
	}
PYACL_ARG_CTOR(pyacl_arg_ptr, PYACL_PTR, void *)
PYACL_ARG_CTOR(pyacl_arg_i32, PYACL_I32, int32_t)
PYACL_ARG_CTOR(pyacl_arg_u32, PYACL_U32, uint32_t)
PYACL_ARG_CTOR(pyacl_arg_i64, PYACL_I64, int64_t)
PYACL_ARG_CTOR(pyacl_arg_u64, PYACL_U64, uint64_t)
PYACL_ARG_CTOR(pyacl_arg_size, PYACL_SIZE, size_t)
PYACL_ARG_CTOR(pyacl_arg_float, PYACL_FLOAT, float)
PYACL_ARG_CTOR(pyacl_arg_obj, PYACL_OBJ, PyObject *)
PYACL_ARG_CTOR(pyacl_arg_callable, PYACL_CALLABLE, PyObject *)

#define PYACL_NARGS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/*
 * Binds positional and keyword arguments to spec (all required) and
 * converts them. False with an exception set on a missing, extra or
 * mistyped argument; the message names func and the argument.
 */
bool pyacl_parse(const char *func, PyObject *args, PyObject *kwargs,
		 const struct pyacl_arg *spec, int nspec);
#define PYACL_PARSE(func, args, kwargs, spec) \
	pyacl_parse(func, args, kwargs, spec, PYACL_NARGS(spec))

/* Converts one object as pyacl_parse does. */
bool pyacl_convert(const char *func, const struct pyacl_arg *arg, PyObject *obj);

/* Wrappers of f(int32_t) and f(handle), returning ret; without the GIL. */
PyObject *pyacl_call_i32(const char *func, PyObject *args, PyObject *kwargs, const char *name,
			 aclError (*fn)(int32_t));
PyObject *pyacl_call_handle(const char *func, PyObject *args, PyObject *kwargs,
			    const char *name, aclError (*fn)(void *));

/* What a wrapper returns. */
PyObject *pyacl_ret(aclError ret);
PyObject *pyacl_ptr_ret(const void *p, aclError ret);
PyObject *pyacl_ptr(const void *p);
PyObject *pyacl_str_or_none(const char *s);

/*
 * Every call into the runtime that may wait (for the card, for a lock, for
 * a callback) runs without the GIL, so that other Python threads, and the
 * callbacks that the call may be waiting for, run meanwhile.
 */
#define PYACL_NOGIL(stmt)			\
	do {					\
		Py_BEGIN_ALLOW_THREADS		\
		stmt;				\
		Py_END_ALLOW_THREADS		\
	} while (0)

/* A METH_VARARGS | METH_KEYWORDS entry. */
#define PYACL_FUNC(name, fn, doc) \
	{ name, (PyCFunction)(void (*)(void))(fn), METH_VARARGS | METH_KEYWORDS, doc }
/* A METH_NOARGS entry. */
#define PYACL_FUNC0(name, fn, doc) \
	{ name, (PyCFunction)(void (*)(void))(fn), METH_NOARGS, doc }

/* The tables, one per file. */
extern PyMethodDef pyacl_base_methods[];	/* acl.*: init, versions, ... */
extern PyMethodDef pyacl_databuf_methods[];	/* acl.*: data buffers */
extern PyMethodDef pyacl_tensor_desc_methods[];	/* acl.*: tensor descriptions */
extern PyMethodDef pyacl_error_methods[];	/* acl.rt: last errors */
extern PyMethodDef pyacl_device_methods[];	/* acl.rt: devices, contexts */
extern PyMethodDef pyacl_stream_methods[];	/* acl.rt: streams, events */
extern PyMethodDef pyacl_memory_methods[];	/* acl.rt: memory, copies */
extern PyMethodDef pyacl_callback_methods[];	/* acl.rt: callbacks */
extern PyMethodDef pyacl_util_methods[];	/* acl.util: bytes, threads */
extern PyMethodDef pyacl_numpy_methods[];	/* acl.util: numpy */
extern PyMethodDef pyacl_mdl_methods[];	/* acl.mdl: models */

/*
 * Device memory is named by addresses at or above this (acl/acl_rt.h);
 * the host cannot read or write them.
 */
#define PYACL_DEVICE_ADDR_MIN (1ULL << 56)

/* False, with ValueError, for NULL or a device address: p is read by the host. */
bool pyacl_host_ptr_ok(const char *func, const void *p);

/*
 * Python callbacks handed to the runtime that it dropped without running
 * hold their function and data until their stream is known to be gone:
 * destroyed through acl.rt (stream non-NULL), or everything at finalize
 * (stream NULL).
 */
void pyacl_callbacks_gone(aclrtStream stream);

#endif /* PYACL_H */
