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
from aclnn import out, run_ok

ACL_FLOAT, ACL_INT32, ACL_INT64 = 0, 3, 9
ACL_DOUBLE, ACL_BOOL = 11, 12

def fine(*shape):
    """float64 values that float32 cannot hold: a card computing in float
    would be off by about 1e-8, far beyond these tests' 1e-15."""
    return aclnn.rng().uniform(0.5, 2.0, shape) + 2.0 ** -40


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
    x = aclnn.rng().integers(info.min, info.max, (5, 7), dtype=dtype, endpoint=True)
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
    x = aclnn.rng().integers(-1000, 1000, (3, 6), dtype=np.int32)
    y = out((3,), np.float32)
    run_ok("Mean", aclnn.tensor(x), aclnn.int_array([1]), False, ctypes.c_int(ACL_FLOAT), y)
    np.testing.assert_allclose(y.numpy(), x.mean(axis=1), rtol=1e-6)


def test_prod_and_prod_dim(device):
    x = aclnn.rng().integers(-4, 5, (3, 5), dtype=np.int64)
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


# ---- BF16, as numpy cannot hold it: bits in uint16, values through float32 --

ACL_BF16 = 27
# bfloat16 keeps 8 significant bits: a couple of its units in the last place
bf16_close = aclnn.closer({aclnn.BF16: (2e-2, 2e-2)})


def bf16_rand(*shape, lo=-2.0, hi=2.0):
    """Random values that bfloat16 holds exactly, as float64 for references."""
    return aclnn.from_bf16(aclnn.to_bf16(aclnn.rand(shape, np.float32, lo, hi))).astype(np.float64)


def bf16(values, **kw):
    return aclnn.bf16_tensor(values, **kw)


def test_bf16_helper_rounds_to_nearest_even():
    bits = aclnn.to_bf16(np.array([1.0, 1.0 + 2.0 ** -8, 1.0 + 3 * 2.0 ** -8, -2.5, np.inf],
                                  np.float32))
    assert bits.tolist() == [0x3F80, 0x3F80, 0x3F82, 0xC020, 0x7F80]
    assert np.isnan(aclnn.from_bf16(aclnn.to_bf16(np.float32(np.nan))))


@pytest.mark.parametrize("op,ref", [("Mul", np.multiply), ("Div", np.divide)])
def test_bf16_binary(device, op, ref):
    a, b = bf16_rand(3, 4), bf16_rand(1, 4, lo=0.5)
    y = aclnn.out((3, 4), aclnn.BF16)
    run_ok(op, bf16(a), bf16(b), y)
    bf16_close(y.numpy(), ref(a, b), aclnn.BF16)


def test_bf16_add_of_a_strided_view(device):
    base, b = bf16_rand(4, 6), bf16_rand(6, 4)
    y = aclnn.out((6, 4), aclnn.BF16)
    run_ok("Add", bf16(base.T, strides=(1, 6)), bf16(b), aclnn.scalar(1.0), y)
    bf16_close(y.numpy(), base.T + b, aclnn.BF16)


@pytest.mark.parametrize("op,ref", [("Exp", np.exp), ("Relu", lambda v: np.where(v > 0, v, 0)),
                                    ("Sigmoid", lambda v: 1 / (1 + np.exp(-v)))])
def test_bf16_unary(device, op, ref):
    x = bf16_rand(5, 3)
    y = aclnn.out(x.shape, aclnn.BF16)
    run_ok(op, bf16(x), y)
    bf16_close(y.numpy(), ref(x), aclnn.BF16)


def test_bf16_compare(device):
    a = bf16_rand(4, 5)
    b = a.copy()
    b[::2] += 0.5
    y = out((4, 5), np.bool_)
    run_ok("EqTensor", bf16(a), bf16(b), y)
    assert np.array_equal(y.numpy(), a == b)
    run_ok("GtScalar", bf16(a), aclnn.scalar(0.25), y)
    assert np.array_equal(y.numpy(), a > 0.25)


def test_bf16_layout_moves_bits(device):
    x = bf16_rand(2, 3, 4)
    y = aclnn.out((4, 2, 3), aclnn.BF16)
    run_ok("Permute", bf16(x), aclnn.int_array([2, 0, 1]), y)
    assert np.array_equal(aclnn.from_bf16(y.numpy()), x.transpose(2, 0, 1))
    parts = [bf16_rand(2, 1), bf16_rand(2, 3)]
    y = aclnn.out((2, 4), aclnn.BF16)
    run_ok("Cat", aclnn.tensor_list([bf16(p) for p in parts]), 1, y)
    assert np.array_equal(aclnn.from_bf16(y.numpy()), np.concatenate(parts, axis=1))


def test_bf16_cast_both_ways(device):
    x = aclnn.rand((3, 5), np.float32)
    y = aclnn.out((3, 5), aclnn.BF16)
    run_ok("Cast", aclnn.tensor(x), ctypes.c_int(ACL_BF16), y)
    assert np.array_equal(y.numpy(), aclnn.to_bf16(x))
    back = out((3, 5), np.float32)
    run_ok("Cast", y, ctypes.c_int(ACL_FLOAT), back)
    assert np.array_equal(back.numpy(), aclnn.from_bf16(aclnn.to_bf16(x)))


def test_bf16_softmax_and_rms_norm(device):
    x = bf16_rand(3, 8)
    y = aclnn.out((3, 8), aclnn.BF16)
    run_ok("Softmax", bf16(x), -1, y)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    bf16_close(y.numpy(), e / e.sum(axis=-1, keepdims=True), aclnn.BF16)
    gamma = bf16_rand(8)
    rstd = out((3, 1), np.float32)
    run_ok("RmsNorm", bf16(x), bf16(gamma), 1e-6, y, rstd)
    r = 1 / np.sqrt((x * x).mean(axis=-1, keepdims=True) + 1e-6)
    bf16_close(y.numpy(), x * r * gamma, aclnn.BF16)


def test_bf16_mm(device):
    a, b = bf16_rand(5, 7), bf16_rand(7, 3)
    y = aclnn.out((5, 3), aclnn.BF16)
    run_ok("Mm", bf16(a), bf16(b), y, ctypes.c_int8(1))
    bf16_close(y.numpy(), a @ b, aclnn.BF16)


# ---- ConstantPadNd's value, exactly in the tensor's type ---------------------

@pytest.mark.parametrize("dtype,value", [(np.int64, 2 ** 40 + 1), (np.int64, -(2 ** 62) - 3),
                                         (np.int64, 2 ** 63 - 1), (np.int32, 2 ** 31 - 1),
                                         (np.float64, 1 + 2.0 ** -40), (np.bool_, 1e-50)])
def test_constant_pad_value_is_exact(device, dtype, value):
    x = np.arange(6).reshape(2, 3).astype(dtype)
    acl = {np.int64: ACL_INT64, np.int32: ACL_INT32, np.float64: ACL_DOUBLE,
           np.bool_: ACL_DOUBLE}[dtype]
    y = out((4, 3), dtype)
    # a row added on either side, a column on the left, one cropped on the right
    run_ok("ConstantPadNd", aclnn.tensor(x), aclnn.int_array([1, -1, 1, 1]),
           aclnn.scalar(value, acl), y)
    want = np.full((4, 3), value, dtype)
    want[1:3, 1:3] = x[:, :2]
    assert np.array_equal(y.numpy(), want)


def test_constant_pad_of_an_empty_int64_tensor_is_all_value(device):
    y = out((2, 2), np.int64)
    run_ok("ConstantPadNd", aclnn.tensor(np.zeros((0, 2), np.int64)), aclnn.int_array([0, 0, 1, 1]),
           aclnn.scalar(2 ** 60 + 7, ACL_INT64), y)
    assert np.array_equal(y.numpy(), np.full((2, 2), 2 ** 60 + 7, np.int64))


# ---- DivMod: true, truncated and floored division --------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("mode", [1, 2])
def test_div_mod_of_floats(device, dtype, mode):
    a = (aclnn.rand((3, 8), np.float64) * 20).astype(dtype)
    b = np.array([2.5, -3.0, 0.5, -0.75, 7.0, -1.0, 4.0, 3.0], dtype)
    a[0, :3] = [np.inf, np.nan, -np.inf]
    a[1, :2] = [2.0 ** 60 if dtype == np.float64 else 2.0 ** 14, -6.0]
    # the card's own quotient (mode 0), so that only the rounding is tested
    q, y = out((3, 8), dtype), out((3, 8), dtype)
    run_ok("DivMod", aclnn.tensor(a), aclnn.tensor(b), 0, q)
    np.testing.assert_allclose(q.numpy(), a.astype(np.float64) / b, rtol=1e-3)
    run_ok("DivMod", aclnn.tensor(a), aclnn.tensor(b), mode, y)
    np.testing.assert_array_equal(y.numpy(), (np.trunc if mode == 1 else np.floor)(q.numpy()))


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.int8])
@pytest.mark.parametrize("mode", [1, 2])
def test_div_mod_of_integers_is_exact(device, dtype, mode):
    a = np.array([[7, -7, 7, -7, 0, 100], [6, -6, 1, -1, 5, -100]], dtype)
    b = np.array([2, 2, -2, -2, 3, 7], dtype)
    if dtype == np.int64:
        a[0, 0] = 2 ** 62 + 1
    y = out((2, 6), dtype)
    run_ok("DivMod", aclnn.tensor(a), aclnn.tensor(b), mode, y)
    want = np.floor_divide(a, b)
    if mode == 1:
        want = np.where((a % b != 0) & ((a < 0) != (b < 0)), want + 1, want)
    np.testing.assert_array_equal(y.numpy(), want)


def test_div_mod_true_division_of_integers_is_float(device):
    a, b = np.array([7, -7, 3], np.int32), np.array([2, 4, 3], np.int32)
    y = out(3, np.float32)
    run_ok("DivMod", aclnn.tensor(a), aclnn.tensor(b), 0, y)
    np.testing.assert_array_equal(y.numpy(), np.array([3.5, -1.75, 1.0], np.float32))


def test_inplace_div_mod_floors_self(device):
    a = np.array([7.5, -7.5, 2.0], np.float32)
    t = aclnn.tensor(a)
    run_ok("InplaceDivMod", t, aclnn.tensor(np.array([2.0], np.float32)), 2)
    np.testing.assert_array_equal(t.numpy(), np.floor(a / 2))


def test_div_mod_refuses_a_bad_mode_and_an_integer_true_quotient(device):
    a = aclnn.tensor(np.ones(3, np.float32))
    aclnn.run_fails("DivMod", aclnn.ACLNN_ERR_PARAM_INVALID, ["mode 3"], a, a, 3,
                    out(3, np.float32))
    i = aclnn.tensor(np.ones(3, np.int32))
    aclnn.run_fails("DivMod", aclnn.ACLNN_ERR_PARAM_INVALID, ["mode 0"], i, i, 0,
                    out(3, np.int32))
