# SPDX-License-Identifier: MIT
"""aclnn's DOUBLE operators, computed on the card in double, and the
reductions of integers, exact in int64, against numpy. The guest's numpy
computes float64 tanh and np.minimum wrongly on the emulated CPU, so the
references here use math and np.where."""
import ctypes
import math

import numpy as np
import pytest

import aclnn

ACL_FLOAT, ACL_INT32, ACL_INT64 = 0, 3, 9
ACL_DOUBLE, ACL_BOOL = 11, 12

rng = np.random.default_rng(2511)


def run_ok(op, *args):
    status = aclnn.run(op, *args)
    assert status == 0, f"aclnn{op}: {status} {aclnn.err_msg()}"


def out(shape, dtype):
    return aclnn.tensor(np.zeros(shape, dtype))


def fine(*shape):
    """float64 values that float32 cannot hold: a card computing in float
    would be off by about 1e-8, far beyond these tests' 1e-15."""
    return rng.uniform(0.5, 2.0, shape) + 2.0 ** -40


def exact(got, want, rtol=1e-15):
    np.testing.assert_allclose(got, want, rtol=rtol, atol=0)


@pytest.mark.parametrize("op,ref", [("Mul", np.multiply), ("Div", np.divide)])
def test_double_binary_keeps_every_bit(device, op, ref):
    a, b = fine(3, 4), fine(1, 4)
    y = out((3, 4), np.float64)
    run_ok(op, aclnn.tensor(a), aclnn.tensor(b), y)
    exact(y.numpy(), ref(a, b))


def test_double_add_and_sub_with_alpha(device):
    a, b = fine(2, 5), fine(2, 5)
    y = out((2, 5), np.float64)
    run_ok("Add", aclnn.tensor(a), aclnn.tensor(b), aclnn.scalar(0.5, ACL_DOUBLE), y)
    exact(y.numpy(), a + 0.5 * b)
    run_ok("Sub", aclnn.tensor(a), aclnn.tensor(b), aclnn.scalar(1.0, ACL_DOUBLE), y)
    exact(y.numpy(), a - b, rtol=1e-13)


@pytest.mark.parametrize("op,ref", [("Exp", math.exp), ("Sqrt", math.sqrt), ("Tanh", math.tanh),
                                    ("Abs", abs), ("Neg", lambda v: -v)])
def test_double_unary(device, op, ref):
    x = fine(4, 3) * np.array([1, -1, 1])
    if op == "Sqrt":
        x = np.abs(x)
    y = out(x.shape, np.float64)
    run_ok(op, aclnn.tensor(x), y)
    exact(y.numpy(), np.vectorize(ref)(x), rtol=1e-14)


def test_double_eq_tells_what_float_cannot(device):
    a = np.array([1.0, 1.0 + 2.0 ** -40, 3.0])
    b = np.array([1.0, 1.0, 3.0])
    y = out(3, np.bool_)
    run_ok("EqTensor", aclnn.tensor(a), aclnn.tensor(b), y)
    assert y.numpy().tolist() == [True, False, True]


@pytest.mark.parametrize("src,dst,acl", [(np.float64, np.float32, ACL_FLOAT),
                                         (np.float32, np.float64, ACL_DOUBLE),
                                         (np.int64, np.float64, ACL_DOUBLE),
                                         (np.float64, np.int32, ACL_INT32)])
def test_cast_to_and_from_double(device, src, dst, acl):
    x = (fine(3, 5) * 1000 * np.array([1, -1, 1, -1, 1])).astype(src)
    if src == np.int64:
        x[0, 0] = 2 ** 53
    y = out((3, 5), dst)
    run_ok("Cast", aclnn.tensor(x), ctypes.c_int(acl), y)
    assert np.array_equal(y.numpy(), x.astype(dst))


def test_double_moves_exactly(device):
    x = fine(3, 4)
    y = out((4, 3), np.float64)
    run_ok("Permute", aclnn.tensor(x), aclnn.int_array([1, 0]), y)
    assert np.array_equal(y.numpy(), x.T)


def test_double_reductions(device):
    x = fine(3, 8)
    y = out((3,), np.float64)
    run_ok("ReduceSum", aclnn.tensor(x), aclnn.int_array([1]), False, ctypes.c_int(ACL_DOUBLE), y)
    exact(y.numpy(), x.sum(axis=1), rtol=1e-14)
    run_ok("Mean", aclnn.tensor(x), aclnn.int_array([1]), False, ctypes.c_int(ACL_DOUBLE), y)
    exact(y.numpy(), x.mean(axis=1), rtol=1e-14)
    run_ok("Amax", aclnn.tensor(x), aclnn.int_array([1]), False, y)
    assert np.array_equal(y.numpy(), x.max(axis=1))


def test_int64_sum_is_exact_past_float(device):
    x = np.array([[2 ** 53, 1, 1], [-(2 ** 60), 3, -5]], np.int64)
    y = out((2,), np.int64)
    run_ok("ReduceSum", aclnn.tensor(x), aclnn.int_array([1]), False, ctypes.c_int(ACL_INT64), y)
    assert y.numpy().tolist() == [2 ** 53 + 2, -(2 ** 60) - 2]


def test_int32_sum_into_int64(device):
    x = np.full((4, 1000), 2 ** 24 + 1, np.int32)
    y = out((4,), np.int64)
    run_ok("ReduceSum", aclnn.tensor(x), aclnn.int_array([1]), False, ctypes.c_int(ACL_INT64), y)
    assert y.numpy().tolist() == [1000 * (2 ** 24 + 1)] * 4


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.int64])
def test_amax_amin_of_integers(device, dtype):
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, (5, 7), dtype=dtype, endpoint=True)
    y = out((7,), dtype)
    run_ok("Amax", aclnn.tensor(x), aclnn.int_array([0]), False, y)
    assert np.array_equal(y.numpy(), x.max(axis=0))
    run_ok("Amin", aclnn.tensor(x), aclnn.int_array([0]), False, y)
    assert np.array_equal(y.numpy(), x.min(axis=0))


def test_bool_amax_is_any(device):
    x = np.array([[False, True], [False, False]])
    y = out((2,), np.bool_)
    run_ok("Amax", aclnn.tensor(x), aclnn.int_array([1]), False, y)
    assert y.numpy().tolist() == [True, False]


def test_mean_of_integers_into_float(device):
    x = rng.integers(-1000, 1000, (3, 6), dtype=np.int32)
    y = out((3,), np.float32)
    run_ok("Mean", aclnn.tensor(x), aclnn.int_array([1]), False, ctypes.c_int(ACL_FLOAT), y)
    np.testing.assert_allclose(y.numpy(), x.mean(axis=1), rtol=1e-6)


def test_prod_and_prod_dim(device):
    x = rng.integers(-4, 5, (3, 5), dtype=np.int64)
    y = out((), np.int64)
    run_ok("Prod", aclnn.tensor(x), ctypes.c_int(ACL_INT64), y)
    assert int(y.numpy()) == int(np.prod(x))
    y = out((3, 1), np.int64)
    run_ok("ProdDim", aclnn.tensor(x), 1, True, ctypes.c_int(ACL_INT64), y)
    assert np.array_equal(y.numpy(), np.prod(x, axis=1, keepdims=True))
    f = fine(2, 3)
    y = out((3,), np.float64)
    run_ok("ProdDim", aclnn.tensor(f), 0, False, ctypes.c_int(ACL_DOUBLE), y)
    exact(y.numpy(), f[0] * f[1])


def test_prod_of_an_empty_tensor_is_one(device):
    y = out((), np.float32)
    run_ok("Prod", aclnn.tensor(np.zeros((0, 3), np.float32)), ctypes.c_int(ACL_FLOAT), y)
    assert float(y.numpy()) == 1.0


def test_norm_refuses_integers_and_double_with_a_message(device):
    p = aclnn.scalar(2.0)
    for dtype in (np.int32, np.float64):
        x = aclnn.tensor(np.ones((2, 3), dtype))
        assert aclnn.run("Norm", x, p, aclnn.int_array([1]), False, out((2,), dtype)) == \
            aclnn.ACLNN_ERR_PARAM_INVALID
        assert "self" in aclnn.err_msg()
