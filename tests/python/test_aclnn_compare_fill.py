# SPDX-License-Identifier: MIT
"""aclnn's compare and fill operators (libopapi) against numpy: Eq, Ne,
Gt, Ge, Lt, Le against tensors and scalars (bool and other outputs,
in-place), LogicalNot, InplaceFillScalar/Zero/One, InplaceMaskedFillScalar,
Arange, Tril and Triu; and their errors."""
import numpy as np
import pytest

import aclnn
from aclnn import run_ok

ACLNN_ERR_PARAM_NULLPTR = 161001
ACLNN_ERR_PARAM_INVALID = 161002

COMPARE = [("Eq", np.equal), ("Ne", np.not_equal), ("Gt", np.greater),
           ("Ge", np.greater_equal), ("Lt", np.less), ("Le", np.less_equal)]


def small_ints(shape, dtype):
    """Values with many ties, so that equality is tested as well."""
    return aclnn.rng().integers(-2, 3, size=shape).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.int64, np.int8])
@pytest.mark.parametrize("name,ref", COMPARE, ids=[c[0] for c in COMPARE])
def test_compare_tensor(device, name, ref, dtype):
    a = small_ints((3, 1, 6), dtype)
    b = small_ints((4, 6), dtype)
    out = aclnn.tensor(np.zeros((3, 4, 6), np.bool_))
    run_ok(name + "Tensor", aclnn.tensor(a), aclnn.tensor(b), out)
    np.testing.assert_array_equal(out.numpy(), ref(a, b))


@pytest.mark.parametrize("name,ref", COMPARE, ids=[c[0] for c in COMPARE])
def test_compare_scalar(device, name, ref):
    a = small_ints((5, 7), np.float32)
    out = aclnn.tensor(np.zeros(a.shape, np.bool_))
    run_ok(name + "Scalar", aclnn.tensor(a), aclnn.scalar(1, np.int64), out)
    np.testing.assert_array_equal(out.numpy(), ref(a, 1))


@pytest.mark.parametrize("name,ref", COMPARE, ids=[c[0] for c in COMPARE])
def test_compare_in_place_and_into_float(device, name, ref):
    a = small_ints((4, 5), np.float32)
    b = small_ints((5,), np.float32)
    out = aclnn.tensor(np.full(a.shape, 9, np.float32))
    run_ok(name + "Tensor", aclnn.tensor(a), aclnn.tensor(b), out)
    np.testing.assert_array_equal(out.numpy(), ref(a, b).astype(np.float32))
    t = aclnn.tensor(a)
    run_ok("Inplace" + name + "Scalar", t, aclnn.scalar(0.5, np.float32))
    np.testing.assert_array_equal(t.numpy(), ref(a, 0.5).astype(np.float32))
    t = aclnn.tensor(a)
    run_ok("Inplace" + name + "Tensor", t, aclnn.tensor(b))
    np.testing.assert_array_equal(t.numpy(), ref(a, b).astype(np.float32))


def test_compare_mixed_types(device):
    a = small_ints((3, 4), np.int32)
    b = small_ints((3, 4), np.float32) + 0.5
    out = aclnn.tensor(np.zeros(a.shape, np.bool_))
    run_ok("GtTensor", aclnn.tensor(a), aclnn.tensor(b), out)
    np.testing.assert_array_equal(out.numpy(), a > b)
    run_ok("LtScalar", aclnn.tensor(a), aclnn.scalar(0.5, np.float32), out)
    np.testing.assert_array_equal(out.numpy(), a < 0.5)


def test_compare_of_a_transposed_view(device):
    a = small_ints((4, 6), np.float32)
    out = aclnn.tensor(np.zeros((4, 6), np.bool_))
    run_ok("EqScalar", aclnn.tensor(a, strides=(1, 4)), aclnn.scalar(0, np.int64), out)
    np.testing.assert_array_equal(out.numpy(), a == 0)


def test_compare_of_empty_tensors(device):
    out = aclnn.tensor(np.zeros((2, 0), np.bool_))
    run_ok("EqTensor", aclnn.tensor(np.zeros((2, 0), np.float32)),
           aclnn.tensor(np.zeros((1, 0), np.float32)), out)
    assert out.numpy().shape == (2, 0)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_])
def test_logical_not(device, dtype):
    a = small_ints((4, 6), dtype)
    out = aclnn.tensor(np.zeros(a.shape, np.bool_))
    run_ok("LogicalNot", aclnn.tensor(a), out)
    np.testing.assert_array_equal(out.numpy(), np.logical_not(a))
    t = aclnn.tensor(a)
    run_ok("InplaceLogicalNot", t)
    np.testing.assert_array_equal(t.numpy(), np.logical_not(a).astype(dtype))


def test_compare_errors(device):
    a = aclnn.tensor(np.zeros((2, 3), np.float32))
    out = aclnn.tensor(np.zeros((2, 3), np.bool_))
    assert aclnn.run("EqTensor", a, None, out) == ACLNN_ERR_PARAM_NULLPTR
    assert "other is NULL" in aclnn.err_msg()
    b = aclnn.tensor(np.zeros((3, 2), np.float32))
    assert aclnn.run("GeTensor", a, b, out) == ACLNN_ERR_PARAM_INVALID
    assert "broadcast" in aclnn.err_msg()
    assert aclnn.run("LeScalar", a, aclnn.scalar(1, np.int64),
                     aclnn.tensor(np.zeros((2, 2), np.bool_))) == ACLNN_ERR_PARAM_INVALID


# ---- fills ------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.int64, np.uint8, np.bool_])
def test_fill_zero_one(device, dtype):
    t = aclnn.tensor(np.full((3, 5), 7, dtype))
    run_ok("InplaceFillScalar", t, aclnn.scalar(2, np.int64))
    np.testing.assert_array_equal(t.numpy(), np.full((3, 5), 2, dtype))
    run_ok("InplaceZero", t)
    np.testing.assert_array_equal(t.numpy(), np.zeros((3, 5), dtype))
    run_ok("InplaceOne", t)
    np.testing.assert_array_equal(t.numpy(), np.ones((3, 5), dtype))


def test_fill_a_strided_view_leaves_the_rest(device):
    t = aclnn.tensor(np.full((2, 3), 5, np.float32), strides=(12, 2), offset=1, filler=5)
    run_ok("InplaceFillScalar", t, aclnn.scalar(-1.5, np.float32))
    want = np.full(t.storage_elems, 5, np.float32)
    for i in range(2):
        for j in range(3):
            want[1 + 12 * i + 2 * j] = -1.5
    np.testing.assert_array_equal(t.storage(), want)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float16])
def test_masked_fill(device, dtype):
    a = small_ints((3, 4, 5), dtype)
    mask = aclnn.rng().integers(0, 2, size=(4, 1)).astype(np.bool_)
    t = aclnn.tensor(a)
    run_ok("InplaceMaskedFillScalar", t, aclnn.tensor(mask), aclnn.scalar(-7, np.int64))
    np.testing.assert_array_equal(t.numpy(), np.where(mask, dtype(-7), a))


def test_masked_fill_errors(device):
    t = aclnn.tensor(np.zeros((3, 4), np.float32))
    assert aclnn.run("InplaceMaskedFillScalar", t, aclnn.tensor(np.zeros((4,), np.float32)),
                     aclnn.scalar(1, np.int64)) == ACLNN_ERR_PARAM_INVALID
    assert "mask" in aclnn.err_msg()
    assert aclnn.run("InplaceMaskedFillScalar", t, aclnn.tensor(np.zeros((2, 4), np.bool_)),
                     aclnn.scalar(1, np.int64)) == ACLNN_ERR_PARAM_INVALID
    assert aclnn.run("InplaceMaskedFillScalar", t, aclnn.tensor(np.zeros((4,), np.bool_)),
                     None) == ACLNN_ERR_PARAM_NULLPTR


@pytest.mark.parametrize("start,end,step,dtype", [
    (0, 10, 1, np.int64), (3, -4, -2, np.int32), (0.5, 3.0, 0.25, np.float32),
    (1, 2, 0.1, np.float16), (0, 0, 1, np.float32)])
def test_arange(device, start, end, step, dtype):
    want = np.arange(start, end, step, dtype=np.float64)
    out = aclnn.tensor(np.zeros(want.shape, dtype))
    sd = np.int64 if all(isinstance(v, int) for v in (start, end, step)) else np.float64
    run_ok("Arange", aclnn.scalar(start, sd), aclnn.scalar(end, sd), aclnn.scalar(step, sd), out)
    got = out.numpy()
    if np.issubdtype(dtype, np.integer):
        np.testing.assert_array_equal(got, want.astype(dtype))
    else:
        np.testing.assert_allclose(got.astype(np.float64), want, rtol=1e-3 if dtype == np.float16
                                   else 1e-6, atol=1e-6)


@pytest.mark.parametrize("shape", [(1, 1, 1, 10), (2, 5), (10, 1)])
def test_arange_fills_any_shape_in_row_major_order(device, shape):
    out = aclnn.tensor(np.zeros(shape, np.float32))
    s = lambda v: aclnn.scalar(v, np.float64)
    run_ok("Arange", s(-3.0), s(2.0), s(0.5), out)
    np.testing.assert_allclose(out.numpy(), np.arange(-3.0, 2.0, 0.5).reshape(shape), atol=1e-6)


def test_arange_errors(device):
    out = aclnn.tensor(np.zeros((5,), np.float32))
    s = lambda v: aclnn.scalar(v, np.int64)
    assert aclnn.run("Arange", s(0), s(5), s(0), out) == ACLNN_ERR_PARAM_INVALID
    assert "step" in aclnn.err_msg()
    assert aclnn.run("Arange", s(0), s(6), s(1), out) == ACLNN_ERR_PARAM_INVALID
    assert "6 elements" in aclnn.err_msg()
    assert aclnn.run("Arange", s(0), s(6), s(1),
                     aclnn.tensor(np.zeros((2, 2), np.float32))) == ACLNN_ERR_PARAM_INVALID
    assert "4 elements" in aclnn.err_msg()
    assert aclnn.run("Arange", s(5), s(0), s(1), out) == ACLNN_ERR_PARAM_INVALID


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float16, np.bool_])
@pytest.mark.parametrize("diagonal", [0, 1, -2])
def test_tril_triu(device, diagonal, dtype):
    x = aclnn.rng().integers(1, 9, size=(2, 4, 6)).astype(dtype)
    out = aclnn.tensor(np.zeros(x.shape, dtype))
    run_ok("Tril", aclnn.tensor(x), diagonal, out)
    np.testing.assert_array_equal(out.numpy(), np.tril(x, diagonal))
    run_ok("Triu", aclnn.tensor(x), diagonal, out)
    np.testing.assert_array_equal(out.numpy(), np.triu(x, diagonal))
    t = aclnn.tensor(x)
    run_ok("InplaceTriu", t, diagonal)
    np.testing.assert_array_equal(t.numpy(), np.triu(x, diagonal))
    t = aclnn.tensor(x)
    run_ok("InplaceTril", t, diagonal)
    np.testing.assert_array_equal(t.numpy(), np.tril(x, diagonal))


def test_triu_of_a_transposed_view(device):
    x = aclnn.rng().uniform(-1, 1, size=(3, 5)).astype(np.float32)
    out = aclnn.tensor(np.zeros((3, 5), np.float32))
    run_ok("Triu", aclnn.tensor(x, strides=(1, 3)), 1, out)
    np.testing.assert_array_equal(out.numpy(), np.triu(x, 1))


def test_tril_of_one_dim_fails(device):
    x = aclnn.tensor(np.zeros((5,), np.float32))
    assert aclnn.run("Tril", x, 0, aclnn.tensor(np.zeros((5,), np.float32))) == \
        ACLNN_ERR_PARAM_INVALID
    assert "dims" in aclnn.err_msg()
