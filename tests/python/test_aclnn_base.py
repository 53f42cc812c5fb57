# SPDX-License-Identifier: MIT
"""libnnopbase's objects and executors, and aclnnAdd, Adds, InplaceAdd
against numpy (tests/python/aclnn.py). In a guest with two cards."""
import ctypes

import numpy as np
import pytest

import aclnn
from aclnn import rand
from aclnn import (ACL_FLOAT, ACL_FORMAT_NC1HWC0, ACL_FORMAT_ND, ACLNN_ERR_PARAM_INVALID,
                   ACLNN_ERR_PARAM_NULLPTR, nnopbase)

_i64 = ctypes.c_int64
ACL_ERROR_API_NOT_SUPPORT = 200001
ACL_ERROR_INVALID_PARAM = 100000


def create(dims, strides=None, offset=0, storage=None, dtype=ACL_FLOAT, fmt=ACL_FORMAT_ND,
           data=0x1000):
    """aclCreateTensor with Python lists; the handle (or None) and the message."""
    arr = lambda v: (_i64 * max(len(v), 1))(*v)
    storage = storage if storage is not None else [int(np.prod(dims))]
    h = nnopbase.aclCreateTensor(arr(dims), len(dims), dtype,
                                 arr(strides) if strides is not None else None, offset, fmt,
                                 arr(storage), len(storage), data)
    msg = aclnn.err_msg()
    return h, msg


# ---- objects (no device needed) --------------------------------------------

def test_tensor_getters_return_what_was_given():
    h, _ = create([2, 3], [1, 2], 1, [7])
    assert h
    dims, n = ctypes.POINTER(_i64)(), ctypes.c_uint64()
    assert nnopbase.aclGetViewShape(ctypes.c_void_p(h), ctypes.byref(dims), ctypes.byref(n)) == 0
    assert [dims[i] for i in range(n.value)] == [2, 3]
    assert nnopbase.aclGetViewStrides(ctypes.c_void_p(h), ctypes.byref(dims),
                                      ctypes.byref(n)) == 0
    assert [dims[i] for i in range(n.value)] == [1, 2]
    assert nnopbase.aclGetStorageShape(ctypes.c_void_p(h), ctypes.byref(dims),
                                       ctypes.byref(n)) == 0
    assert [dims[i] for i in range(n.value)] == [7]
    off, fmt, dt = _i64(), ctypes.c_int(), ctypes.c_int()
    assert nnopbase.aclGetViewOffset(ctypes.c_void_p(h), ctypes.byref(off)) == 0
    assert off.value == 1
    assert nnopbase.aclGetFormat(ctypes.c_void_p(h), ctypes.byref(fmt)) == 0
    assert fmt.value == ACL_FORMAT_ND
    assert nnopbase.aclGetDataType(ctypes.c_void_p(h), ctypes.byref(dt)) == 0
    assert dt.value == ACL_FLOAT
    addr = ctypes.c_void_p()
    assert nnopbase.aclGetRawTensorAddr(ctypes.c_void_p(h), ctypes.byref(addr)) == 0
    assert addr.value == 0x1000
    assert nnopbase.aclSetRawTensorAddr(ctypes.c_void_p(h), ctypes.c_void_p(0x2000)) == 0
    assert nnopbase.aclGetRawTensorAddr(ctypes.c_void_p(h), ctypes.byref(addr)) == 0
    assert addr.value == 0x2000
    assert nnopbase.aclDestroyTensor(ctypes.c_void_p(h)) == 0


@pytest.mark.parametrize("kw, words", [
    (dict(dims=[1] * 9), "at most 8"),
    (dict(dims=[2, -1]), "not negative"),
    (dict(dims=[2, 2], strides=[-1, 1]), "not negative"),
    (dict(dims=[2], dtype=999), "data type"),
    (dict(dims=[2], fmt=ACL_FORMAT_NC1HWC0), "format"),
    (dict(dims=[2, 3], storage=[5]), "outside the storage"),
    (dict(dims=[2], offset=-1), "negative"),
])
def test_bad_tensor_is_null_with_a_message(kw, words):
    h, msg = create(**kw)
    assert not h
    assert words in msg


def test_scalar_copies_its_value_at_create():
    v = ctypes.c_float(2.5)
    s = nnopbase.aclCreateScalar(ctypes.byref(v), ACL_FLOAT)
    assert s
    v.value = 7.0
    assert nnopbase.aclDestroyScalar(ctypes.c_void_p(s)) == 0
    assert not nnopbase.aclCreateScalar(None, ACL_FLOAT)
    assert "value is NULL" in aclnn.err_msg()


def test_arrays_and_lists_report_their_sizes():
    size = ctypes.c_uint64()
    a = aclnn.int_array([1, 2, 3])
    assert nnopbase.aclGetIntArraySize(ctypes.c_void_p(a.handle), ctypes.byref(size)) == 0
    assert size.value == 3
    f = aclnn.float_array([1.0])
    assert nnopbase.aclGetFloatArraySize(ctypes.c_void_p(f.handle), ctypes.byref(size)) == 0
    assert size.value == 1
    b = aclnn.bool_array([])
    assert nnopbase.aclGetBoolArraySize(ctypes.c_void_p(b.handle), ctypes.byref(size)) == 0
    assert size.value == 0
    t1, _ = create([2])
    t2, _ = create([3])
    lst = nnopbase.aclCreateTensorList((ctypes.c_void_p * 2)(t1, t2), ctypes.c_uint64(2))
    assert nnopbase.aclGetTensorListSize(ctypes.c_void_p(lst), ctypes.byref(size)) == 0
    assert size.value == 2
    assert nnopbase.aclDestroyTensorList(ctypes.c_void_p(lst)) == 0   # and its tensors
    assert nnopbase.aclGetIntArraySize(None, ctypes.byref(size)) == ACLNN_ERR_PARAM_NULLPTR
    assert "NULL" in aclnn.err_msg()
    assert not nnopbase.aclCreateIntArray(None, ctypes.c_uint64(2))
    assert "NULL" in aclnn.err_msg()


# ---- Add on the card -------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
@pytest.mark.parametrize("a_shape, b_shape", [
    ((4, 5), (4, 5)), ((2, 3, 4), (4,)), ((3, 1), (1, 5)), ((), (3,)), ((0, 3), (3,)),
])
def test_add_matches_numpy(device, dtype, a_shape, b_shape):
    a, b = rand(a_shape, dtype), rand(b_shape, dtype)
    want = a + b
    x, y = aclnn.tensor(a), aclnn.tensor(b)
    out = aclnn.tensor(np.zeros(want.shape, dtype))
    one = aclnn.scalar(1, dtype)            # a float alpha does not fit integers
    assert aclnn.run("Add", x, y, one, out) == 0, aclnn.err_msg()
    np.testing.assert_array_equal(out.numpy(), want)


def test_add_of_strided_and_offset_views(device):
    a = rand((3, 4), np.float32)
    b = rand((4, 3), np.float32).T          # a transposed view
    x = aclnn.tensor(a, strides=(8, 2), offset=5, filler=99)
    y = aclnn.tensor(b, strides=(1, 3))
    out = aclnn.tensor(np.zeros((3, 4), np.float32), strides=(1, 3))
    assert aclnn.run("Add", x, y, aclnn.scalar(1.0), out) == 0, aclnn.err_msg()
    np.testing.assert_array_equal(out.numpy(), a + b)


def test_offset_may_reach_past_the_storage_dims(device):
    """ggml's CANN backend gives storage dims that count from the view's first
    element and an offset far into the buffer (a Q8_0 tensor's scales)."""
    h, msg = create(dims=[2, 3], offset=100, storage=[6])
    assert h, msg
    assert nnopbase.aclDestroyTensor(ctypes.c_void_p(h)) == 0
    a, b = rand((2, 3), np.float32), rand((2, 3), np.float32)
    x = aclnn.tensor(a, offset=40, filler=99)
    nnopbase.aclDestroyTensor(ctypes.c_void_p(x.handle))
    x.handle = nnopbase.aclCreateTensor(
        (_i64 * 2)(2, 3), 2, ACL_FLOAT, (_i64 * 2)(3, 1), 40, ACL_FORMAT_ND, (_i64 * 1)(6), 1,
        ctypes.c_void_p(x.ptr))
    assert x.handle, aclnn.err_msg()
    y, out = aclnn.tensor(b), aclnn.tensor(np.zeros((2, 3), np.float32))
    assert aclnn.run("Add", x, y, aclnn.scalar(1.0), out) == 0, aclnn.err_msg()
    np.testing.assert_array_equal(out.numpy(), a + b)


def test_add_promotes_and_stores_in_outs_type(device):
    a, b = rand((6,), np.int32), rand((6,), np.float32)
    x, y = aclnn.tensor(a), aclnn.tensor(b)
    out = aclnn.tensor(np.zeros(6, np.float32))
    assert aclnn.run("Add", x, y, aclnn.scalar(1.0), out) == 0, aclnn.err_msg()
    np.testing.assert_allclose(out.numpy(), a.astype(np.float32) + b, rtol=1e-6)


def test_inplace_add_writes_self(device):
    a, b = rand((2, 8), np.float32), rand((8,), np.float32)
    x, y = aclnn.tensor(a), aclnn.tensor(b)
    assert aclnn.run("InplaceAdd", x, y, aclnn.scalar(1.0)) == 0, aclnn.err_msg()
    np.testing.assert_array_equal(x.numpy(), a + b)


def test_add_with_alpha_and_adds(device):
    a, b = rand((5,), np.float32), rand((5,), np.float32)
    x, y = aclnn.tensor(a), aclnn.tensor(b)
    out = aclnn.tensor(np.zeros(5, np.float32))
    assert aclnn.run("Add", x, y, aclnn.scalar(2.5), out) == 0, aclnn.err_msg()
    np.testing.assert_allclose(out.numpy(), a + 2.5 * b, rtol=1e-6)
    assert aclnn.run("Adds", x, aclnn.scalar(3.0), aclnn.scalar(2.0), out) == 0
    np.testing.assert_allclose(out.numpy(), a + 6.0, rtol=1e-6)
    ints = rand((3, 4), np.int32)
    t = aclnn.tensor(ints)
    assert aclnn.run("InplaceAdds", t, aclnn.scalar(7, np.int32), aclnn.scalar(-2, np.int32)) == 0
    np.testing.assert_array_equal(t.numpy(), ints - 14)
    h = rand((6,), np.float16)
    th, oh = aclnn.tensor(h), aclnn.tensor(np.zeros(6, np.float16))
    assert aclnn.run("Adds", th, aclnn.scalar(0.5), aclnn.scalar(1.0), oh) == 0, aclnn.err_msg()
    np.testing.assert_allclose(oh.numpy(), h + np.float16(0.5), rtol=1e-3, atol=1e-3)


def test_add_bad_arguments_return_codes_and_messages(device):
    x = aclnn.tensor(np.zeros((2, 3), np.float32))
    y = aclnn.tensor(np.zeros((4,), np.float32))
    out = aclnn.tensor(np.zeros((2, 3), np.float32))
    one = aclnn.scalar(1.0)
    assert aclnn.run("Add", None, x, one, out) == ACLNN_ERR_PARAM_NULLPTR
    assert "self is NULL" in aclnn.err_msg()
    assert aclnn.run("Add", x, y, one, out) == ACLNN_ERR_PARAM_INVALID
    assert "broadcast" in aclnn.err_msg()
    wrong = aclnn.tensor(np.zeros((3, 2), np.float32))
    assert aclnn.run("Add", x, x, one, wrong) == ACLNN_ERR_PARAM_INVALID
    assert "shape" in aclnn.err_msg()
    as_int = aclnn.tensor(np.zeros((2, 3), np.int32))
    assert aclnn.run("Add", x, x, one, as_int) == ACLNN_ERR_PARAM_INVALID
    assert "cannot be stored" in aclnn.err_msg()
    ints = aclnn.tensor(np.zeros((2, 3), np.int32))
    assert aclnn.run("Add", ints, ints, aclnn.scalar(1.5), ints) == ACLNN_ERR_PARAM_INVALID
    assert "alpha" in aclnn.err_msg()


def test_launch_refuses_host_memory_and_a_small_workspace(device):
    host = aclnn.tensor(np.zeros(4, np.float32), dev=False)
    x = aclnn.tensor(np.zeros(4, np.float32))
    assert aclnn.run("Add", host, x, aclnn.scalar(1.0), x) == ACLNN_ERR_PARAM_INVALID
    assert "device" in aclnn.err_msg()
    a = aclnn.tensor(np.zeros(4, np.int32))
    ret, size, ex = aclnn.prepare("Add", a, x, aclnn.scalar(1.0), x)
    assert ret == 0 and size > 0        # the int32 input is cast in workspace
    assert aclnn.launch("Add", None, 0, ex) == ACLNN_ERR_PARAM_NULLPTR
    assert "workspace" in aclnn.err_msg()
    ret, size, ex = aclnn.prepare("Add", a, x, aclnn.scalar(1.0), x)
    work = aclnn.DeviceMemory(size)
    assert aclnn.launch("Add", work.ptr.value, size - 1, ex) == ACLNN_ERR_PARAM_INVALID
    assert "workspace" in aclnn.err_msg()
    # Both launches freed their executors, as the vendor's do.
    assert aclnn.launch("Add", work.ptr.value, size, ex) == ACLNN_ERR_PARAM_INVALID


def test_repeatable_executor_runs_again_on_new_addresses(device):
    a, b = rand((16,), np.float32), rand((16,), np.float32)
    x, y = aclnn.tensor(a), aclnn.tensor(b)
    out = aclnn.tensor(np.zeros(16, np.float32))
    ret, size, ex = aclnn.prepare("Add", x, y, aclnn.scalar(1.0), out)
    assert ret == 0 and size == 0
    assert nnopbase.aclSetAclOpExecutorRepeatable(ctypes.c_void_p(ex)) == 0
    assert aclnn.launch("Add", None, 0, ex) == 0
    aclnn.check(aclnn.acl.aclrtSynchronizeStream(None), "sync")
    np.testing.assert_array_equal(out.numpy(), a + b)
    c = rand((16,), np.float32)
    z, out2 = aclnn.tensor(c), aclnn.tensor(np.zeros(16, np.float32))
    assert nnopbase.aclSetInputTensorAddr(ctypes.c_void_p(ex), ctypes.c_size_t(1), None,
                                          ctypes.c_void_p(z.ptr)) == 0
    assert nnopbase.aclSetOutputTensorAddr(ctypes.c_void_p(ex), ctypes.c_size_t(0), None,
                                           ctypes.c_void_p(out2.ptr)) == 0
    assert aclnn.launch("Add", None, 0, ex) == 0
    aclnn.check(aclnn.acl.aclrtSynchronizeStream(None), "sync")
    np.testing.assert_array_equal(out2.numpy(), a + c)
    np.testing.assert_array_equal(out.numpy(), a + b)
    assert nnopbase.aclSetInputTensorAddr(ctypes.c_void_p(ex), ctypes.c_size_t(5), None,
                                          ctypes.c_void_p(z.ptr)) == ACLNN_ERR_PARAM_INVALID
    assert "no input tensor 5" in aclnn.err_msg()
    assert nnopbase.aclDestroyAclOpExecutor(ctypes.c_void_p(ex)) == 0
    assert nnopbase.aclDestroyAclOpExecutor(ctypes.c_void_p(ex)) == ACLNN_ERR_PARAM_INVALID


# ---- what is not on this card yet -----------------------------------------

def test_issue_26_operators_link_and_refuse_with_a_message():
    h = aclnn.tensor(np.zeros(4, np.float32), dev=False)
    ret, _, _ = aclnn.prepare("RecurrentGatedDeltaRule", h, h, h, h, h, h, h, h, h, h,
                              ctypes.c_float(1.0), h)
    assert ret == aclnn.ACLNN_ERR_INNER_FIND_KERNEL_ERROR
    assert "RecurrentGatedDeltaRule: not on this card yet (issue 26)" in aclnn.err_msg()
    assert aclnn.launch("RecurrentGatedDeltaRule", None, 0, None) == \
        aclnn.ACLNN_ERR_INNER_FIND_KERNEL_ERROR
    assert "issue 26" in aclnn.err_msg()


def test_virtual_memory_reserves_above_the_user_base():
    ptr = ctypes.c_void_p()
    assert aclnn.acl.aclrtReserveMemAddress(ctypes.byref(ptr), ctypes.c_size_t(1 << 21),
                                            ctypes.c_size_t(0), None, ctypes.c_uint64(0)) == 0
    assert ptr.value >= (1 << 56) + (1 << 38)     # DRM_NPU_VA_USER_BASE
    assert aclnn.acl.aclrtReleaseMemAddress(ptr) == 0
    assert aclnn.acl.aclrtReleaseMemAddress(ptr) == ACL_ERROR_INVALID_PARAM
    assert "not the start of a reservation" in aclnn.err_msg()


def test_dump_is_not_supported_with_a_message():
    assert nnopbase.aclDumpOpTensors(b"Add", b"add0", None, ctypes.c_size_t(0),
                                     ctypes.c_size_t(0), None) == ACL_ERROR_API_NOT_SUPPORT
    assert "not supported" in aclnn.err_msg()
