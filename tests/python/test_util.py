# SPDX-License-Identifier: MIT
"""acl.util: pointers to and from bytes and numpy arrays, and numpy arrays
round trips through device memory with the vendor's type numbers."""
import subprocess
import sys
import warnings

import numpy as np
import pytest

import acl
from constants import (ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_HOST_TO_DEVICE, ACL_SUCCESS,
                       NPY_BOOL, NPY_DOUBLE, NPY_FLOAT16, NPY_FLOAT32, NPY_INT8, NPY_INT16,
                       NPY_INT32, NPY_INT64, NPY_LONGLONG, NPY_UINT8, NPY_UINT16, NPY_UINT32,
                       NPY_UINT64, NPY_ULONGLONG)
from conftest import pattern

NPY_TYPES = [(NPY_BOOL, np.bool_), (NPY_INT8, np.int8), (NPY_UINT8, np.uint8),
             (NPY_INT16, np.int16), (NPY_UINT16, np.uint16), (NPY_INT32, np.int32),
             (NPY_UINT32, np.uint32), (NPY_INT64, np.int64), (NPY_UINT64, np.uint64),
             (NPY_LONGLONG, np.longlong), (NPY_ULONGLONG, np.ulonglong),
             (NPY_FLOAT32, np.float32), (NPY_DOUBLE, np.float64), (NPY_FLOAT16, np.float16)]


def test_bytes_to_ptr_points_at_the_object_contents():
    data = pattern(100)
    ptr = acl.util.bytes_to_ptr(data)
    assert acl.util.ptr_to_bytes(ptr, 100) == data
    assert acl.util.ptr_to_bytes(ptr + 10, 5) == data[10:15]
    assert acl.util.ptr_to_bytes(ptr, 0) == b""
    ba = bytearray(b"abc")
    assert acl.util.ptr_to_bytes(acl.util.bytes_to_ptr(ba), 3) == b"abc"


def test_ptr_to_bytes_copies():
    ba = bytearray(b"1234")
    out = acl.util.ptr_to_bytes(acl.util.bytes_to_ptr(ba), 4)
    ba[0] = ord("x")
    assert out == b"1234"


def test_host_reads_of_null_or_device_pointers_raise_value_error(device, dev_buf):
    d = dev_buf(64)
    for fn, args in ((acl.util.ptr_to_bytes, (d, 8)), (acl.util.ptr_to_numpy, (d, (8,), 2))):
        with pytest.raises(ValueError, match="device memory"):
            fn(*args)
        with pytest.raises(ValueError, match="NULL"):
            fn(0, *args[1:])


def test_numpy_to_ptr_is_the_array_data():
    arr = np.arange(12, dtype=np.int32).reshape(3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ptr = acl.util.numpy_to_ptr(arr)
    assert ptr == arr.ctypes.data
    assert acl.util.ptr_to_bytes(ptr, arr.nbytes) == arr.tobytes()


def test_numpy_to_ptr_warns_on_a_non_contiguous_array():
    arr = np.arange(12, dtype=np.int32).reshape(3, 4)[:, ::2]
    with pytest.warns(UserWarning, match="discontiguous.*numpy_contiguous_to_ptr"):
        assert acl.util.numpy_to_ptr(arr) == arr.ctypes.data


def test_numpy_contiguous_to_ptr():
    arr = np.arange(12, dtype=np.int16).reshape(3, 4)
    ptr, out = acl.util.numpy_contiguous_to_ptr(arr)
    assert out is arr and ptr == arr.ctypes.data
    view = arr.T
    ptr, out = acl.util.numpy_contiguous_to_ptr(view)
    assert out is not view and out.flags["C_CONTIGUOUS"]
    assert ptr == out.ctypes.data
    assert np.array_equal(out, view)
    assert acl.util.ptr_to_bytes(ptr, out.nbytes) == np.ascontiguousarray(view).tobytes()


def test_ptr_to_numpy_views_memory_without_a_copy():
    buf = bytearray(24)
    arr = acl.util.ptr_to_numpy(acl.util.bytes_to_ptr(buf), (2, 3), NPY_INT32)
    assert arr.shape == (2, 3) and arr.dtype == np.int32
    assert arr.flags["C_CONTIGUOUS"] and arr.flags["WRITEABLE"] and not arr.flags["OWNDATA"]
    arr[1, 2] = 0x01020304
    assert buf[20:24] == b"\x04\x03\x02\x01"
    buf[0] = 7
    assert arr[0, 0] == 7
    assert acl.util.ptr_to_numpy(acl.util.bytes_to_ptr(buf), [6], NPY_INT32).shape == (6,)
    assert acl.util.ptr_to_numpy(acl.util.bytes_to_ptr(buf), (), NPY_INT32).shape == ()


def test_ptr_to_numpy_rejects_bad_types_and_shapes():
    buf = bytes(64)
    ptr = acl.util.bytes_to_ptr(buf)
    with pytest.raises(ValueError, match="data-type"):
        acl.util.ptr_to_numpy(ptr, (4,), 9999)
    with pytest.raises(OverflowError):
        acl.util.ptr_to_numpy(ptr, (-1,), NPY_INT8)
    with pytest.raises(ValueError, match="more than 32"):
        acl.util.ptr_to_numpy(ptr, (1,) * 33, NPY_INT8)


def test_pointers_from_python_objects_keep_no_reference():
    data = pattern(64)
    arr = np.zeros(8)
    refs = sys.getrefcount(data), sys.getrefcount(arr)
    acl.util.bytes_to_ptr(data)
    acl.util.numpy_to_ptr(arr)
    assert (sys.getrefcount(data), sys.getrefcount(arr)) == refs


@pytest.mark.parametrize("npy,dtype", NPY_TYPES, ids=[d.__name__ for _, d in NPY_TYPES])
def test_numpy_round_trip_through_device_memory(device, dev_buf, npy, dtype):
    rng = np.random.default_rng(npy)
    if dtype is np.bool_:
        src = rng.integers(0, 2, size=(4, 33)).astype(np.bool_)
    elif np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        src = rng.integers(info.min, info.max, size=(4, 33), dtype=dtype, endpoint=True)
    else:
        src = rng.standard_normal((4, 33)).astype(dtype)
    d = dev_buf(src.nbytes)
    assert acl.rt.memcpy(d, src.nbytes, acl.util.numpy_to_ptr(src), src.nbytes,
                         ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS
    # back into pinned memory, viewed as an array of the vendor's type number
    host, ret = acl.rt.malloc_host(src.nbytes)
    assert ret == ACL_SUCCESS
    assert acl.rt.memcpy(host, src.nbytes, d, src.nbytes,
                         ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS
    out = acl.util.ptr_to_numpy(host, src.shape, npy)
    assert out.dtype == src.dtype and np.array_equal(out, src)
    # and through bytes, the vendor's recommended path
    back = acl.util.ptr_to_bytes(host, src.nbytes)
    assert np.array_equal(np.frombuffer(back, dtype=dtype).reshape(src.shape), src)
    del out
    assert acl.rt.free_host(host) == ACL_SUCCESS


def test_non_contiguous_array_round_trip(device, dev_buf):
    src = np.arange(64, dtype=np.float32).reshape(8, 8)[::2, 1::3]
    ptr, contiguous = acl.util.numpy_contiguous_to_ptr(src)
    d = dev_buf(contiguous.nbytes)
    assert acl.rt.memcpy(d, contiguous.nbytes, ptr, contiguous.nbytes,
                         ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS
    out = np.empty_like(contiguous)
    assert acl.rt.memcpy(acl.util.numpy_to_ptr(out), out.nbytes, d, out.nbytes,
                         ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS
    assert np.array_equal(out, src)


def test_the_module_works_without_numpy():
    """numpy is loaded by the first numpy call, not by import acl."""
    code = """
import sys
sys.modules["numpy"] = None          # as if not installed
import acl
data = b"abc"
assert acl.util.ptr_to_bytes(acl.util.bytes_to_ptr(data), 3) == data
try:
    acl.util.ptr_to_numpy(acl.util.bytes_to_ptr(data), (3,), 2)
except ImportError:
    print("ImportError")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout == "ImportError\n"
