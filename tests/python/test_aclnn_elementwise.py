# SPDX-License-Identifier: MIT
"""aclnn's elementwise operators (libopapi) against numpy: the arithmetic
(Sub, Mul, Div, Pow with tensors and scalars, and their in-place forms),
the one-tensor functions, Clamp and the gated units, in float32 and
float16, with integers where the operators take them, over broadcasts,
strided views, storage offsets and empty tensors; and their errors."""
import math

import numpy as np
import pytest

import aclnn
from aclnn import run_ok

ACLNN_ERR_PARAM_NULLPTR = 161001
ACLNN_ERR_PARAM_INVALID = 161002


def rand(shape, dtype, lo=-3.0, hi=3.0):
    """This family's inputs: uniform in [-3, 3) unless said otherwise."""
    return aclnn.rand(shape, dtype, lo, hi)


def out_like(shape, dtype):
    return aclnn.tensor(np.full(shape, 77, dtype=dtype))


# a few of float16's units in the last place; float32's own rounding
check = aclnn.closer({np.float16: (4e-3, 4e-3), None: (2e-5, 2e-6)}, same_dtype=True)


# ---- the one-tensor functions -------------------------------------------

def erf(x):
    return np.vectorize(math.erf)(x)


def gelu(x):
    return 0.5 * x * (1 + erf(x / math.sqrt(2)))


# numpy's own float64 tanh goes wrong in the guest's emulated CPU (its SIMD
# path), so the reference is the C library's.
tanh = np.vectorize(math.tanh)


def gelu_tanh(x):
    return 0.5 * x * (1 + tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


# name, numpy reference over float64, input range
UNARY = [
    ("Abs", np.abs, (-3, 3)),
    ("Neg", np.negative, (-3, 3)),
    ("Exp", np.exp, (-3, 3)),
    ("Log", np.log, (0.1, 5)),
    ("Sqrt", np.sqrt, (0, 5)),
    ("Rsqrt", lambda x: 1 / np.sqrt(x), (0.2, 5)),
    ("Sin", np.sin, (-3, 3)),
    ("Cos", np.cos, (-3, 3)),
    ("Tanh", tanh, (-3, 3)),
    ("Erf", erf, (-3, 3)),
    ("Relu", lambda x: np.maximum(x, 0), (-3, 3)),
    ("Sigmoid", sigmoid, (-5, 5)),
    ("Silu", lambda x: x * sigmoid(x), (-5, 5)),
    ("Gelu", gelu, (-4, 4)),
    ("Hardswish", lambda x: x * np.clip(x + 3, 0, 6) / 6, (-5, 5)),
    ("Hardsigmoid", lambda x: np.clip(x + 3, 0, 6) / 6, (-5, 5)),
    ("Sign", np.sign, (-3, 3)),
]
INPLACE_UNARY = {"Neg", "Exp", "Log", "Sqrt", "Rsqrt", "Sin", "Cos", "Tanh", "Erf", "Relu",
                 "Sigmoid", "Hardswish", "Hardsigmoid"}


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("name,ref,rng", UNARY, ids=[u[0] for u in UNARY])
def test_unary(device, name, ref, rng, dtype):
    x = rand((3, 5, 4), dtype, *rng)
    out = out_like(x.shape, dtype)
    run_ok(name, aclnn.tensor(x), out)
    check(out.numpy(), ref(x.astype(np.float64)), dtype)


@pytest.mark.parametrize("name,ref,rng", [u for u in UNARY if u[0] in INPLACE_UNARY],
                         ids=[u[0] for u in UNARY if u[0] in INPLACE_UNARY])
def test_unary_inplace(device, name, ref, rng):
    x = rand((4, 6), np.float32, *rng)
    t = aclnn.tensor(x)
    run_ok("Inplace" + name, t)
    check(t.numpy(), ref(x.astype(np.float64)), np.float32)


@pytest.mark.parametrize("name,ref", [("Exp", np.exp), ("Sqrt", np.sqrt), ("Sin", np.sin)])
def test_unary_of_integers_gives_float(device, name, ref):
    x = np.arange(0, 12, dtype=np.int32).reshape(3, 4)
    out = out_like(x.shape, np.float32)
    run_ok(name, aclnn.tensor(x), out)
    check(out.numpy(), ref(x.astype(np.float64)), np.float32)


@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.int64])
@pytest.mark.parametrize("name,ref", [("Abs", np.abs), ("Neg", np.negative),
                                      ("Relu", lambda x: np.maximum(x, 0)), ("Sign", np.sign)])
def test_unary_of_integers_is_exact(device, name, ref, dtype):
    x = rand((5, 7), dtype, -100, 100)
    out = out_like(x.shape, dtype)
    run_ok(name, aclnn.tensor(x), out)
    np.testing.assert_array_equal(out.numpy(), ref(x))


def test_unary_of_a_transposed_view_at_an_offset(device):
    x = rand((4, 5), np.float32)
    out = out_like((4, 5), np.float32)
    # column-major, from element 3 of its storage
    run_ok("Exp", aclnn.tensor(x, strides=(1, 4), offset=3), out)
    check(out.numpy(), np.exp(x.astype(np.float64)), np.float32)


def test_unary_into_a_strided_output(device):
    x = rand((3, 4), np.float32)
    out = aclnn.tensor(np.zeros((3, 4), np.float32), strides=(8, 2), offset=1)
    run_ok("Tanh", aclnn.tensor(x), out)
    check(out.numpy(), tanh(x.astype(np.float64)), np.float32)
    storage = out.storage()
    written = np.zeros(storage.shape, bool)
    for i in range(3):
        written[1 + 8 * i:1 + 8 * i + 8:2][:4] = True
    assert not storage[~written].any()


def test_unary_of_an_empty_tensor(device):
    out = out_like((0, 4), np.float32)
    run_ok("Exp", aclnn.tensor(np.zeros((0, 4), np.float32)), out)
    assert out.numpy().shape == (0, 4)


@pytest.mark.parametrize("approximate,ref", [(0, gelu), (1, gelu_tanh)])
def test_gelu_v2(device, approximate, ref):
    x = rand((6, 8), np.float32, -4, 4)
    out = out_like(x.shape, np.float32)
    run_ok("GeluV2", aclnn.tensor(x), approximate, out)
    check(out.numpy(), ref(x.astype(np.float64)), np.float32)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_leaky_relu(device, dtype):
    x = rand((5, 6), dtype)
    out = out_like(x.shape, dtype)
    run_ok("LeakyRelu", aclnn.tensor(x), aclnn.scalar(0.1, np.float32), out)
    xd = x.astype(np.float64)
    check(out.numpy(), np.where(xd > 0, xd, 0.1 * xd), dtype)


@pytest.mark.parametrize("alpha,scale,input_scale", [(1.0, 1.0, 1.0), (0.5, 2.0, 1.0),
                                                     (1.5, 1.0, 0.5)])
def test_elu(device, alpha, scale, input_scale):
    x = rand((4, 9), np.float32)
    out = out_like(x.shape, np.float32)
    run_ok("Elu", aclnn.tensor(x), aclnn.scalar(alpha, np.float32),
           aclnn.scalar(scale, np.float32), aclnn.scalar(input_scale, np.float32), out)
    xd = x.astype(np.float64)
    want = scale * np.where(xd > 0, xd, alpha * (np.exp(input_scale * xd) - 1))
    check(out.numpy(), want, np.float32)


def test_softplus(device):
    x = rand((4, 9), np.float32, -10, 10)
    beta, threshold = 2.0, 5.0
    out = out_like(x.shape, np.float32)
    run_ok("Softplus", aclnn.tensor(x), aclnn.scalar(beta, np.float32),
           aclnn.scalar(threshold, np.float32), out)
    xd = x.astype(np.float64)
    want = np.where(xd * beta > threshold, xd, np.log1p(np.exp(beta * xd)) / beta)
    check(out.numpy(), want, np.float32)


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_threshold_and_in_place(device, dtype):
    x = rand((4, 9), dtype, -5, 5)
    out = out_like(x.shape, dtype)
    run_ok("Threshold", aclnn.tensor(x), aclnn.scalar(1, np.int64), aclnn.scalar(-2, np.int64),
           out)
    want = np.where(x > 1, x, -2)
    np.testing.assert_allclose(out.numpy(), want)
    t = aclnn.tensor(x)
    run_ok("InplaceThreshold", t, aclnn.scalar(1, np.int64), aclnn.scalar(-2, np.int64))
    np.testing.assert_allclose(t.numpy(), want)


# ---- Clamp -----------------------------------------------------------------

# numpy's minimum and maximum crash the guest's emulated CPU (their SIMD
# paths), so the references pick with where.
def lower(x, lo):
    return np.where(x < lo, lo, x)


def upper(x, hi):
    return np.where(x > hi, hi, x)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_clamp(device, dtype):
    x = rand((5, 8), dtype, -10, 10)
    out = out_like(x.shape, dtype)
    run_ok("Clamp", aclnn.tensor(x), aclnn.scalar(-2, np.int64), aclnn.scalar(3, np.int64), out)
    np.testing.assert_array_equal(out.numpy(), upper(lower(x, -2), 3).astype(dtype))
    run_ok("Clamp", aclnn.tensor(x), None, aclnn.scalar(3, np.int64), out)
    np.testing.assert_array_equal(out.numpy(), upper(x, 3).astype(dtype))
    run_ok("ClampMin", aclnn.tensor(x), aclnn.scalar(-2, np.int64), out)
    np.testing.assert_array_equal(out.numpy(), lower(x, -2).astype(dtype))
    run_ok("ClampMax", aclnn.tensor(x), aclnn.scalar(3, np.int64), out)
    np.testing.assert_array_equal(out.numpy(), upper(x, 3).astype(dtype))
    t = aclnn.tensor(x)
    run_ok("InplaceClampMax", t, aclnn.scalar(3, np.int64))
    np.testing.assert_array_equal(t.numpy(), upper(x, 3).astype(dtype))


def test_clamp_with_tensor_bounds_that_broadcast(device):
    x = rand((4, 6), np.float32, -10, 10)
    lo = rand((6,), np.float32, -5, 0)
    hi = rand((4, 1), np.float32, 0, 5)
    out = out_like(x.shape, np.float32)
    run_ok("ClampTensor", aclnn.tensor(x), aclnn.tensor(lo), aclnn.tensor(hi), out)
    np.testing.assert_array_equal(out.numpy(), upper(lower(x, lo), hi))
    run_ok("ClampMinTensor", aclnn.tensor(x), aclnn.tensor(lo), out)
    np.testing.assert_array_equal(out.numpy(), lower(x, lo))
    run_ok("ClampMaxTensor", aclnn.tensor(x), aclnn.tensor(hi), out)
    np.testing.assert_array_equal(out.numpy(), upper(x, hi))


def test_clamp_without_bounds_fails(device):
    x = aclnn.tensor(rand((2, 2), np.float32))
    assert aclnn.run("Clamp", x, None, None, out_like((2, 2), np.float32)) == \
        ACLNN_ERR_PARAM_NULLPTR
    assert "clipValueMin" in aclnn.err_msg()


# ---- Sub, Mul, Div, Pow ----------------------------------------------------

BINARY = [
    ("Sub", lambda a, b: a - b),
    ("Mul", lambda a, b: a * b),
    ("Div", lambda a, b: a / b),
]


def binary_args(name, a, b, out, alpha=1):
    if name == "Sub":
        return (a, b, aclnn.scalar(alpha, np.int64), out)
    return (a, b, out)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("name,ref", BINARY, ids=[b[0] for b in BINARY])
def test_binary_broadcast(device, name, ref, dtype):
    a = rand((3, 1, 5), dtype, 0.5, 3)
    b = rand((4, 5), dtype, 0.5, 3)
    out = out_like((3, 4, 5), dtype)
    run_ok(name, *binary_args(name, aclnn.tensor(a), aclnn.tensor(b), out))
    check(out.numpy(), ref(a.astype(np.float64), b.astype(np.float64)), dtype)


@pytest.mark.parametrize("name,ref", BINARY, ids=[b[0] for b in BINARY])
def test_binary_scalar_and_in_place(device, name, ref):
    a = rand((6, 7), np.float32, 0.5, 3)
    out = out_like(a.shape, np.float32)
    s = aclnn.scalar(2.5, np.float32)
    scalar_args = (aclnn.tensor(a), s, aclnn.scalar(1, np.int64), out) if name == "Sub" else \
        (aclnn.tensor(a), s, out)
    run_ok(name + "s", *scalar_args)
    check(out.numpy(), ref(a.astype(np.float64), 2.5), np.float32)

    b = rand((7,), np.float32, 0.5, 3)
    t = aclnn.tensor(a)
    inplace_args = (t, aclnn.tensor(b), aclnn.scalar(1, np.int64)) if name == "Sub" else \
        (t, aclnn.tensor(b))
    run_ok("Inplace" + name, *inplace_args)
    check(t.numpy(), ref(a.astype(np.float64), b.astype(np.float64)), np.float32)

    t = aclnn.tensor(a)
    inplace_args = (t, s, aclnn.scalar(1, np.int64)) if name == "Sub" else (t, s)
    run_ok("Inplace" + name + "s", *inplace_args)
    check(t.numpy(), ref(a.astype(np.float64), 2.5), np.float32)


def test_sub_with_alpha(device):
    a = rand((4, 5), np.float32)
    b = rand((4, 5), np.float32)
    out = out_like(a.shape, np.float32)
    run_ok("Sub", aclnn.tensor(a), aclnn.tensor(b), aclnn.scalar(0.5, np.float32), out)
    check(out.numpy(), a.astype(np.float64) - 0.5 * b, np.float32)
    run_ok("Subs", aclnn.tensor(a), aclnn.scalar(3, np.int64), aclnn.scalar(2, np.int64), out)
    check(out.numpy(), a.astype(np.float64) - 6, np.float32)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.int8, np.uint8])
def test_integer_arithmetic_is_exact(device, dtype):
    # no result outside the type: the card saturates where numpy wraps
    a = rand((5, 6), dtype, 5, 11)
    b = rand((5, 6), dtype, 0, 5)
    out = out_like(a.shape, dtype)
    run_ok("Sub", aclnn.tensor(a), aclnn.tensor(b), aclnn.scalar(1, np.int64), out)
    np.testing.assert_array_equal(out.numpy(), a - b)
    run_ok("Mul", aclnn.tensor(a), aclnn.tensor(b), out)
    np.testing.assert_array_equal(out.numpy(), a * b)


def test_div_of_integers_gives_float(device):
    a = np.arange(1, 13, dtype=np.int32).reshape(3, 4)
    b = np.full((4,), 4, dtype=np.int32)
    out = out_like(a.shape, np.float32)
    run_ok("Div", aclnn.tensor(a), aclnn.tensor(b), out)
    check(out.numpy(), a / 4.0, np.float32)


def test_mixed_types_promote(device):
    a = rand((3, 4), np.float16)
    b = rand((3, 4), np.float32)
    out = out_like(a.shape, np.float32)
    run_ok("Mul", aclnn.tensor(a), aclnn.tensor(b), out)
    check(out.numpy(), a.astype(np.float64) * b, np.float32)
    i = rand((3, 4), np.int32, -5, 5)
    run_ok("Mul", aclnn.tensor(i), aclnn.tensor(b), out)
    check(out.numpy(), i * b.astype(np.float64), np.float32)


def test_binary_of_strided_views(device):
    a = rand((4, 5), np.float32, 0.5, 3)
    b = rand((4, 5), np.float32, 0.5, 3)
    out = out_like((4, 5), np.float32)
    # a: every other row and column of an (8, 10) storage from (1, 1); b: column-major
    run_ok("Div", aclnn.tensor(a, strides=(20, 2), offset=11), aclnn.tensor(b, strides=(1, 4)),
           out)
    check(out.numpy(), a.astype(np.float64) / b, np.float32)


def test_binary_of_empty_tensors(device):
    out = out_like((0, 3), np.float32)
    run_ok("Mul", aclnn.tensor(np.zeros((0, 3), np.float32)),
           aclnn.tensor(np.ones((1, 3), np.float32)), out)
    assert out.numpy().shape == (0, 3)


def test_pow(device):
    a = rand((4, 5), np.float32, 0.5, 3)
    e = rand((4, 5), np.float32, -2, 2)
    out = out_like(a.shape, np.float32)
    run_ok("PowTensorScalar", aclnn.tensor(a), aclnn.scalar(2.5, np.float32), out)
    check(out.numpy(), a.astype(np.float64) ** 2.5, np.float32)
    run_ok("PowScalarTensor", aclnn.scalar(2.0, np.float32), aclnn.tensor(e), out)
    check(out.numpy(), 2.0 ** e.astype(np.float64), np.float32)
    run_ok("PowTensorTensor", aclnn.tensor(a), aclnn.tensor(e), out)
    check(out.numpy(), a.astype(np.float64) ** e, np.float32)
    t = aclnn.tensor(a)
    run_ok("InplacePowTensorTensor", t, aclnn.tensor(e[0]))
    check(t.numpy(), a.astype(np.float64) ** e[0], np.float32)
    t = aclnn.tensor(a)
    run_ok("InplacePowTensorScalar", t, aclnn.scalar(2, np.int64))
    check(t.numpy(), a.astype(np.float64) ** 2, np.float32)


# ---- SwiGlu, GeGluV3 ---------------------------------------------------------

@pytest.mark.parametrize("dim", [-1, 0])
def test_swiglu(device, dim):
    x = rand((6, 8), np.float32)
    a, b = np.split(x.astype(np.float64), 2, axis=dim)
    out = out_like(a.shape, np.float32)
    run_ok("SwiGlu", aclnn.tensor(x), dim, out)
    check(out.numpy(), a * sigmoid(a) * b, np.float32)


@pytest.mark.parametrize("approximate,left", [(0, True), (1, False)])
def test_geglu_v3(device, approximate, left):
    x = rand((4, 10), np.float32)
    a, b = np.split(x.astype(np.float64), 2, axis=-1)
    act = gelu_tanh if approximate else gelu
    g = act(a) if left else act(b)
    want = g * b if left else a * g
    out = out_like(a.shape, np.float32)
    out_gelu = out_like(a.shape, np.float32)
    run_ok("GeGluV3", aclnn.tensor(x), -1, approximate,
           left, out, out_gelu)
    check(out_gelu.numpy(), g, np.float32)
    check(out.numpy(), want, np.float32)


def test_swiglu_of_an_odd_axis_fails(device):
    x = aclnn.tensor(rand((3, 5), np.float32))
    assert aclnn.run("SwiGlu", x, -1, out_like((3, 2), np.float32)) == \
        ACLNN_ERR_PARAM_INVALID
    assert "odd" in aclnn.err_msg()


# ---- errors -------------------------------------------------------------

def test_null_tensor(device):
    out = out_like((2, 2), np.float32)
    assert aclnn.run("Mul", None, aclnn.tensor(np.ones((2, 2), np.float32)), out) == \
        ACLNN_ERR_PARAM_NULLPTR
    assert "self is NULL" in aclnn.err_msg()
    assert aclnn.run("Exp", aclnn.tensor(np.ones((2, 2), np.float32)), None) == \
        ACLNN_ERR_PARAM_NULLPTR
    assert "out is NULL" in aclnn.err_msg()


def test_shapes_that_do_not_broadcast(device):
    a = aclnn.tensor(np.ones((2, 3), np.float32))
    b = aclnn.tensor(np.ones((4, 3), np.float32))
    assert aclnn.run("Mul", a, b, out_like((2, 3), np.float32)) == ACLNN_ERR_PARAM_INVALID
    assert "broadcast" in aclnn.err_msg()


def test_out_of_the_wrong_shape(device):
    a = aclnn.tensor(np.ones((2, 3), np.float32))
    assert aclnn.run("Exp", a, out_like((3, 2), np.float32)) == ACLNN_ERR_PARAM_INVALID
    assert "shape" in aclnn.err_msg()
    assert aclnn.run("Div", a, a, out_like((2, 1), np.float32)) == ACLNN_ERR_PARAM_INVALID


def test_unsupported_types(device):
    i = aclnn.tensor(np.ones((2, 3), np.int32))
    assert aclnn.run("Silu", i, out_like((2, 3), np.int32)) == ACLNN_ERR_PARAM_INVALID
    assert "int32" in aclnn.err_msg()
    f = aclnn.tensor(np.ones((2, 3), np.float32))
    # a float result does not fit an integer out
    assert aclnn.run("Exp", f, out_like((2, 3), np.int32)) == ACLNN_ERR_PARAM_INVALID
    u = aclnn.tensor(np.ones((2, 3), np.uint32))
    assert aclnn.run("Abs", u, out_like((2, 3), np.uint32)) == ACLNN_ERR_PARAM_INVALID
    assert "uint32" in aclnn.err_msg()


def test_bad_gelu_approximate(device):
    f = aclnn.tensor(np.ones((2, 3), np.float32))
    assert aclnn.run("GeluV2", f, 2, out_like((2, 3), np.float32)) == \
        ACLNN_ERR_PARAM_INVALID
    assert "approximate" in aclnn.err_msg()
