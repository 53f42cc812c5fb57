# SPDX-License-Identifier: MIT
"""aclnn from Python, for the tests: numpy arrays as aclTensors on the
device, scalars and arrays, and an operator's two calls in one.

    x = aclnn.tensor(np.ones((2, 3), np.float32))
    y = aclnn.tensor(np.zeros((2, 3), np.float32))
    assert aclnn.run("Add", x, x, aclnn.scalar(1.0), y) == 0
    np.testing.assert_array_equal(y.numpy(), 2)

run() passes a Tensor, Scalar, IntArray (...) as its handle, None as NULL,
a Python int as int64_t, a float as double and a bool as bool; a ctypes
value goes as it is (c_float for a float parameter). The calls use the
current thread's context (the tests' device fixture sets one) and
libascendcl's instance that the acl module loaded."""
import ctypes
import os
import zlib

import numpy as np

ACLNN_SUCCESS = 0
ACLNN_ERR_PARAM_NULLPTR = 161001
ACLNN_ERR_PARAM_INVALID = 161002
ACLNN_ERR_RUNTIME_ERROR = 361001
ACLNN_ERR_INNER = 561000
ACLNN_ERR_INNER_FIND_KERNEL_ERROR = 561003

# aclDataType
ACL_FLOAT, ACL_FLOAT16, ACL_INT8, ACL_INT32, ACL_UINT8 = 0, 1, 2, 3, 4
ACL_INT16, ACL_UINT16, ACL_UINT32, ACL_INT64, ACL_UINT64 = 6, 7, 8, 9, 10
ACL_DOUBLE, ACL_BOOL, ACL_BF16 = 11, 12, 27
# aclFormat
ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_ND = 0, 1, 2
ACL_FORMAT_NC1HWC0 = 3

_ACL_MEMCPY_HOST_TO_DEVICE, _ACL_MEMCPY_DEVICE_TO_HOST = 1, 2

_NUMPY_TO_ACL = {
    np.dtype(np.float32): ACL_FLOAT, np.dtype(np.float16): ACL_FLOAT16,
    np.dtype(np.int8): ACL_INT8, np.dtype(np.int32): ACL_INT32,
    np.dtype(np.uint8): ACL_UINT8, np.dtype(np.int16): ACL_INT16,
    np.dtype(np.uint16): ACL_UINT16, np.dtype(np.uint32): ACL_UINT32,
    np.dtype(np.int64): ACL_INT64, np.dtype(np.uint64): ACL_UINT64,
    np.dtype(np.float64): ACL_DOUBLE, np.dtype(np.bool_): ACL_BOOL,
}
_SCALAR_CTYPES = {
    ACL_FLOAT: ctypes.c_float, ACL_FLOAT16: ctypes.c_uint16, ACL_INT8: ctypes.c_int8,
    ACL_INT32: ctypes.c_int32, ACL_UINT8: ctypes.c_uint8, ACL_INT16: ctypes.c_int16,
    ACL_UINT16: ctypes.c_uint16, ACL_UINT32: ctypes.c_uint32, ACL_INT64: ctypes.c_int64,
    ACL_UINT64: ctypes.c_uint64, ACL_DOUBLE: ctypes.c_double, ACL_BOOL: ctypes.c_bool,
}

_LIBDIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "lib")
acl = ctypes.CDLL(os.path.join(_LIBDIR, "libascendcl.so"), mode=ctypes.RTLD_GLOBAL)
nnopbase = ctypes.CDLL(os.path.join(_LIBDIR, "libnnopbase.so"), mode=ctypes.RTLD_GLOBAL)
opapi = ctypes.CDLL(os.path.join(_LIBDIR, "libopapi.so"), mode=ctypes.RTLD_GLOBAL)

_vp, _i64, _u64 = ctypes.c_void_p, ctypes.c_int64, ctypes.c_uint64
acl.aclGetRecentErrMsg.restype = ctypes.c_char_p
acl.aclrtMalloc.argtypes = [ctypes.POINTER(_vp), ctypes.c_size_t, ctypes.c_int]
acl.aclrtFree.argtypes = [_vp]
acl.aclrtMemcpy.argtypes = [_vp, ctypes.c_size_t, _vp, ctypes.c_size_t, ctypes.c_int]
acl.aclrtSynchronizeStream.argtypes = [_vp]
nnopbase.aclCreateTensor.restype = _vp
nnopbase.aclCreateTensor.argtypes = [ctypes.POINTER(_i64), _u64, ctypes.c_int,
                                     ctypes.POINTER(_i64), _i64, ctypes.c_int,
                                     ctypes.POINTER(_i64), _u64, _vp]
nnopbase.aclDestroyTensor.argtypes = [_vp]
nnopbase.aclCreateScalar.restype = _vp
nnopbase.aclCreateScalar.argtypes = [_vp, ctypes.c_int]
nnopbase.aclDestroyScalar.argtypes = [_vp]
for _name in ("IntArray", "FloatArray", "BoolArray", "TensorList", "ScalarList"):
    getattr(nnopbase, "aclCreate" + _name).restype = _vp
    getattr(nnopbase, "aclDestroy" + _name).argtypes = [_vp]
nnopbase.aclSetAclOpExecutorRepeatable.argtypes = [_vp]
nnopbase.aclDestroyAclOpExecutor.argtypes = [_vp]


def check(ret, what):
    if ret != 0:
        raise RuntimeError("%s: %d (%s)" % (what, ret, err_msg()))


def err_msg():
    """aclGetRecentErrMsg(): the thread's latest message, once; "" if none."""
    m = acl.aclGetRecentErrMsg()
    return m.decode() if m else ""


def acl_dtype(dtype):
    return _NUMPY_TO_ACL[np.dtype(dtype)]


class DeviceMemory:
    """nbytes of device memory (at least 1), freed with the object."""

    def __init__(self, nbytes):
        self.ptr = _vp()
        self.nbytes = nbytes
        check(acl.aclrtMalloc(ctypes.byref(self.ptr), max(nbytes, 1), 0), "aclrtMalloc")

    def upload(self, host):
        host = np.ascontiguousarray(host)
        if host.nbytes:
            check(acl.aclrtMemcpy(self.ptr, self.nbytes, host.ctypes.data, host.nbytes,
                                  _ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy")

    def download(self, dtype, count):
        host = np.empty(count, dtype)
        if host.nbytes:
            check(acl.aclrtMemcpy(host.ctypes.data, host.nbytes, self.ptr, host.nbytes,
                                  _ACL_MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy")
        return host

    def __del__(self):
        if self.ptr:
            acl.aclrtFree(self.ptr)
            self.ptr = _vp()


def _i64_array(values):
    values = list(values)
    return (_i64 * max(len(values), 1))(*values)


class Tensor:
    """An aclTensor whose view holds array's values: contiguous, or with
    strides (elements) and offset (elements) into a larger storage whose
    other elements are filler. dev=False leaves it in host memory, which
    an operator must refuse."""

    def __init__(self, array, dev=True, strides=None, offset=0, dtype=None,
                 acl_type=None, fmt=ACL_FORMAT_ND, filler=0):
        array = np.asarray(array, dtype=dtype)
        self.shape = array.shape
        self.dtype = array.dtype
        self.acl_type = acl_dtype(array.dtype) if acl_type is None else acl_type
        if strides is None:
            strides, s = [], 1
            for d in reversed(self.shape):
                strides.insert(0, s)
                s *= max(d, 1)
        self.strides = tuple(strides)
        self.offset = offset
        span = offset + sum((d - 1) * s for d, s in zip(self.shape, self.strides)) + 1
        self.storage_elems = span if array.size else offset
        storage = np.full(self.storage_elems, filler, array.dtype)
        if array.size:
            self._view(storage)[...] = array
        self.mem = None
        if dev:
            self.mem = DeviceMemory(storage.nbytes)
            self.mem.upload(storage)
            self.ptr = self.mem.ptr.value
        else:
            self.host = storage
            self.ptr = storage.ctypes.data
        dims = _i64_array(self.shape)
        self.handle = nnopbase.aclCreateTensor(
            dims, len(self.shape), self.acl_type, _i64_array(self.strides), offset, fmt,
            _i64_array([self.storage_elems]), 1, self.ptr)
        if not self.handle:
            raise RuntimeError("aclCreateTensor: " + err_msg())

    def _view(self, storage):
        size = storage.dtype.itemsize
        return np.lib.stride_tricks.as_strided(
            storage[self.offset:], self.shape, [s * size for s in self.strides])

    def storage(self):
        if self.mem is None:
            return self.host.copy()
        return self.mem.download(self.dtype, self.storage_elems)

    def numpy(self):
        """The view's values, read back from the device."""
        if not np.prod(self.shape, dtype=np.int64):
            return np.zeros(self.shape, self.dtype)
        return self._view(self.storage()).copy()

    def __del__(self):
        if getattr(self, "handle", None):
            nnopbase.aclDestroyTensor(self.handle)
            self.handle = None


def tensor(array, dev=True, strides=None, offset=0, **kw):
    return Tensor(array, dev=dev, strides=strides, offset=offset, **kw)


class _Handle:
    """An aclnn object freed with the Python object."""

    def __init__(self, handle, destroy):
        if not handle:
            raise RuntimeError("creating an aclnn object: " + err_msg())
        self.handle = handle
        self._destroy = destroy

    def __del__(self):
        if self.handle:
            self._destroy(self.handle)
            self.handle = None


def scalar(value, dtype=ACL_FLOAT):
    """An aclScalar of aclDataType dtype (or a numpy dtype)."""
    if not isinstance(dtype, int):
        dtype = acl_dtype(dtype)
    if dtype == ACL_FLOAT16:
        raw = ctypes.c_uint16(int(np.array(value, np.float16).view(np.uint16)))
    elif dtype == ACL_BF16:         # the high half of the float32, truncated
        raw = ctypes.c_uint16(int(np.array(value, np.float32).view(np.uint32)) >> 16)
    else:
        raw = _SCALAR_CTYPES[dtype](value)
    return _Handle(nnopbase.aclCreateScalar(ctypes.byref(raw), dtype), nnopbase.aclDestroyScalar)


def int_array(values):
    values = list(values)
    return _Handle(nnopbase.aclCreateIntArray(_i64_array(values), _u64(len(values))),
                   nnopbase.aclDestroyIntArray)


def float_array(values):
    values = list(values)
    arr = (ctypes.c_float * max(len(values), 1))(*values)
    return _Handle(nnopbase.aclCreateFloatArray(arr, _u64(len(values))),
                   nnopbase.aclDestroyFloatArray)


def bool_array(values):
    values = list(values)
    arr = (ctypes.c_bool * max(len(values), 1))(*values)
    return _Handle(nnopbase.aclCreateBoolArray(arr, _u64(len(values))),
                   nnopbase.aclDestroyBoolArray)


class TensorList(_Handle):
    """An aclTensorList of Tensors; the list owns copies of their handles'
    tensors, so the Tensors stay usable after it goes."""

    def __init__(self, tensors):
        self.tensors = list(tensors)
        copies = [nnopbase.aclCreateTensor(
            _i64_array(t.shape), len(t.shape), t.acl_type, _i64_array(t.strides), t.offset,
            ACL_FORMAT_ND, _i64_array([t.storage_elems]), 1, t.ptr) for t in self.tensors]
        arr = (_vp * max(len(copies), 1))(*copies)
        super().__init__(nnopbase.aclCreateTensorList(arr, _u64(len(copies))),
                         nnopbase.aclDestroyTensorList)


def tensor_list(tensors):
    return TensorList(tensors)


def _arg(a):
    if a is None:
        return _vp()
    if isinstance(a, (Tensor, _Handle)):
        return _vp(a.handle)
    if isinstance(a, bool):
        return ctypes.c_bool(a)
    if isinstance(a, int):
        return _i64(a)
    if isinstance(a, float):
        return ctypes.c_double(a)
    return a


def prepare(op, *args):
    """aclnn<op>GetWorkspaceSize(args...): (status, workspace size, executor)."""
    size, executor = _u64(), _vp()
    fn = getattr(opapi, "aclnn%sGetWorkspaceSize" % op)
    fn.restype = ctypes.c_int32
    ret = fn(*[_arg(a) for a in args], ctypes.byref(size), ctypes.byref(executor))
    return ret, size.value, executor.value


def launch(op, workspace, size, executor, stream=None):
    """aclnn<op>(workspace, size, executor, stream): the status."""
    fn = getattr(opapi, "aclnn" + op)
    fn.restype = ctypes.c_int32
    return fn(_vp(workspace), _u64(size), _vp(executor), _vp(stream))


def run(op, *args, stream=None):
    """Both calls with a fresh workspace, then a synchronization of the
    stream (None: the default stream): the first failing status, or 0."""
    ret, size, executor = prepare(op, *args)
    if ret:
        return ret
    work = DeviceMemory(size) if size else None
    ret = launch(op, work.ptr.value if work else None, size, executor, stream)
    if ret:
        return ret
    check(acl.aclrtSynchronizeStream(_vp(stream)), "aclrtSynchronizeStream")
    return 0


# ---- What the test files share ---------------------------------------------

# numpy has no bfloat16: a BF16 tensor's host side is its bits, as uint16.
BF16 = "bfloat16"


def to_bf16(values):
    """float32 values as bfloat16 bits, rounded to nearest even (NaN stays NaN)."""
    f = np.asarray(values, np.float32)
    bits = f.view(np.uint32)
    high = bits >> np.uint32(16)
    # only a NaN's bits wrap around in the sum, and np.where drops those
    with np.errstate(over="ignore"):
        rounded = (bits + np.uint32(0x7FFF) + (high & np.uint32(1))) >> np.uint32(16)
    return np.where(np.isnan(f), high | np.uint32(0x40), rounded).astype(np.uint16)


def from_bf16(bits):
    """bfloat16 bits (uint16) as float32 values, exactly."""
    return (np.asarray(bits, np.uint16).astype(np.uint32) << np.uint32(16)).view(np.float32)


def bf16_tensor(values, **kw):
    """A BF16 aclTensor of float values (rounded); .numpy() gives its bits."""
    return Tensor(to_bf16(values), acl_type=ACL_BF16, **kw)


_rng_state = {}


def rng():
    """A generator of the running test's own, seeded from its name, so
    that a test sees the same data whatever runs before it."""
    test = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" ", 1)[0]
    if _rng_state.get("test") != test:
        _rng_state["test"] = test
        _rng_state["rng"] = np.random.default_rng(zlib.crc32(test.encode()))
    return _rng_state["rng"]


def rand(shape, dtype=np.float32, lo=None, hi=None):
    """Random values of shape: floats normal, or uniform in [lo, hi);
    integers in [lo, hi] (default -100 .. 99)."""
    if dtype == BF16:
        return rand(shape, np.float32, lo, hi)
    if np.issubdtype(dtype, np.integer):
        lo = -100 if lo is None else int(lo)
        hi = 99 if hi is None else int(hi)
        return rng().integers(lo, hi + 1, size=shape).astype(dtype)
    if lo is None:
        return rng().standard_normal(shape).astype(dtype)
    return rng().uniform(lo, hi, size=shape).astype(dtype)


def run_ok(op, *args):
    status = run(op, *args)
    assert status == 0, f"aclnn{op}: {status} {err_msg()}"


def run_fails(op, code, words, *args):
    """op fails with code and a message that has every one of words."""
    assert run(op, *args) == code
    msg = err_msg()
    for w in words:
        assert w in msg, msg


def out(shape, dtype=np.float32):
    if dtype == BF16:
        return bf16_tensor(np.zeros(shape, np.float32))
    return tensor(np.zeros(shape, dtype))


def closer(tolerances, same_dtype=False):
    """close(got, want, dtype=np.float32): got, read back in dtype (BF16:
    bits), against want within tolerances[dtype] = (rtol, atol); with
    same_dtype, got must be of dtype too. A family's tolerances are its
    own: they say how far its arithmetic may round. The key None is
    every other dtype's."""
    def key(dtype):
        return dtype if dtype is None or dtype == BF16 else np.dtype(dtype)

    table = {key(k): v for k, v in tolerances.items()}

    def close(got, want, dtype=np.float32):
        if dtype == BF16:
            assert got.dtype == np.uint16
            got = from_bf16(got)
        elif same_dtype:
            assert got.dtype == np.dtype(dtype)
        rtol, atol = table.get(key(dtype)) or table[None]
        np.testing.assert_allclose(got.astype(np.float64), want, rtol=rtol, atol=atol)
    return close
