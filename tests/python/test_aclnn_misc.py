# SPDX-License-Identifier: MIT
"""aclnn's Im2col, TriangularSolve, Addcdiv and InplaceAddcdiv, Ger, Sum (of
a tensor list) and SoftmaxCrossEntropyWithLogits on the card against numpy."""
import numpy as np
import pytest

import aclnn

ACLNN_ERR_PARAM_NULLPTR = 161001
ACLNN_ERR_PARAM_INVALID = 161002
rng = np.random.default_rng(2601)
TOL = {np.float32: 1e-5, np.float16: 2e-3}


def rand(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def run_ok(op, *args):
    status = aclnn.run(op, *args)
    assert status == 0, f"aclnn{op}: {status} {aclnn.err_msg()}"


def run_fails(op, code, words, *args):
    assert aclnn.run(op, *args) == code
    msg = aclnn.err_msg()
    for w in words:
        assert w in msg, msg


def close(got, want, dtype=np.float32):
    tol = TOL[dtype] * 4
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=tol, atol=tol)


def zeros(shape, dtype=np.float32):
    return aclnn.tensor(np.zeros(shape, dtype))


# ---- Im2col ----------------------------------------------------------------------

def unfold(x, k, d, p, s):
    """PyTorch's unfold written out: (N, C, H, W) to (N, C * kh * kw, L)."""
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    oh = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    cols = np.zeros((n, c, k[0], k[1], oh, ow), x.dtype)
    for i in range(k[0]):
        for j in range(k[1]):
            cols[:, :, i, j] = xp[:, :, i * d[0]:i * d[0] + s[0] * oh:s[0],
                                  j * d[1]:j * d[1] + s[1] * ow:s[1]]
    return cols.reshape(n, c * k[0] * k[1], oh * ow)


@pytest.mark.parametrize("k,d,p,s", [((3, 3), (1, 1), (1, 1), (1, 1)),
                                     ((2, 3), (2, 1), (0, 2), (2, 1))])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_im2col(device, k, d, p, s, dtype):
    x = rand(2, 3, 7, 6, dtype=dtype)
    want = unfold(x, k, d, p, s)
    y = zeros(want.shape, dtype)
    run_ok("Im2col", aclnn.tensor(x), aclnn.int_array(k), aclnn.int_array(d),
           aclnn.int_array(p), aclnn.int_array(s), y)
    np.testing.assert_array_equal(y.numpy(), want)


def test_im2col_unbatched_and_one_value_for_both_axes(device):
    x = rand(2, 5, 5)
    want = unfold(x[None], (2, 2), (1, 1), (1, 1), (2, 2))[0]
    y = zeros(want.shape)
    run_ok("Im2col", aclnn.tensor(x), aclnn.int_array([2]), aclnn.int_array([1]),
           aclnn.int_array([1]), aclnn.int_array([2]), y)
    np.testing.assert_array_equal(y.numpy(), want)


def test_im2col_errors(device):
    x = aclnn.tensor(rand(1, 1, 4, 4))
    one, two = aclnn.int_array([1]), aclnn.int_array([2])
    run_fails("Im2col", ACLNN_ERR_PARAM_INVALID, ["out"], x, two, one, one, one, zeros((1, 4, 10)))
    run_fails("Im2col", ACLNN_ERR_PARAM_INVALID, ["stride[0] is 0"], x, two, one, one,
              aclnn.int_array([0]), zeros((1, 4, 25)))
    run_fails("Im2col", ACLNN_ERR_PARAM_INVALID, ["larger than the padded input"], x,
              aclnn.int_array([9]), one, one, one, zeros((1, 81, 1)))
    run_fails("Im2col", ACLNN_ERR_PARAM_NULLPTR, ["padding"], x, two, one, None, one,
              zeros((1, 4, 25)))


# ---- TriangularSolve ----------------------------------------------------------------

def tri_system(batch_a, batch_b, n, k):
    a = rand(*batch_a, n, n) * 0.3
    a[..., range(n), range(n)] = 2 + rng.random((*batch_a, n))
    return a, rand(*batch_b, n, k)


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("unit", [False, True])
def test_triangular_solve(device, upper, transpose, unit):
    a, b = tri_system((1,), (3,), 5, 2)
    t = np.triu(a) if upper else np.tril(a)
    if unit:
        t[..., range(5), range(5)] = 1
    if transpose:
        t = np.swapaxes(t, -1, -2)
    want = np.linalg.solve(np.broadcast_to(t, (3, 5, 5)).astype(np.float64), b.astype(np.float64))
    x, m = zeros((3, 5, 2)), zeros((3, 5, 5))
    run_ok("TriangularSolve", aclnn.tensor(b), aclnn.tensor(a), upper, transpose, unit, x, m)
    close(x.numpy(), want)
    np.testing.assert_array_equal(m.numpy(), np.broadcast_to(a, (3, 5, 5)))


def test_triangular_solve_errors(device):
    a, b = tri_system((), (), 3, 1)
    run_fails("TriangularSolve", ACLNN_ERR_PARAM_INVALID, ["square"], aclnn.tensor(b),
              aclnn.tensor(rand(3, 4)), False, False, False, zeros((3, 1)), zeros((3, 3)))
    run_fails("TriangularSolve", ACLNN_ERR_PARAM_INVALID, ["xOut"], aclnn.tensor(b),
              aclnn.tensor(a), False, False, False, zeros((3, 2)), zeros((3, 3)))
    run_fails("TriangularSolve", ACLNN_ERR_PARAM_INVALID, ["batch dims"],
              aclnn.tensor(rand(2, 3, 1)), aclnn.tensor(rand(3, 3, 3)), False, False, False,
              zeros((3, 3, 1)), zeros((3, 3, 3)))


# ---- Addcdiv, InplaceAddcdiv ----------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_addcdiv_broadcast(device, dtype):
    s, t1, t2 = rand(4, 1, dtype=dtype), rand(1, 5, dtype=dtype), \
        (rng.random((4, 5)) + 0.5).astype(dtype)
    want = s.astype(np.float64) + 0.5 * t1.astype(np.float64) / t2.astype(np.float64)
    y = zeros((4, 5), dtype)
    run_ok("Addcdiv", aclnn.tensor(s), aclnn.tensor(t1), aclnn.tensor(t2), aclnn.scalar(0.5), y)
    close(y.numpy(), want, dtype)


def test_inplace_addcdiv(device):
    s, t1, t2 = rand(3, 4), rand(4), rng.random((3, 4)).astype(np.float32) + 1
    t = aclnn.tensor(s)
    run_ok("InplaceAddcdiv", t, aclnn.tensor(t1), aclnn.tensor(t2), aclnn.scalar(-2.0))
    close(t.numpy(), s - 2.0 * t1 / t2)
    run_fails("InplaceAddcdiv", ACLNN_ERR_PARAM_INVALID, ["selfRef"], aclnn.tensor(rand(1, 4)),
              aclnn.tensor(t1), aclnn.tensor(t2), aclnn.scalar(1.0))


def test_addcdiv_errors(device):
    a = aclnn.tensor(rand(2, 3))
    run_fails("Addcdiv", ACLNN_ERR_PARAM_INVALID, ["tensor2", "broadcast"], a, a,
              aclnn.tensor(rand(4)), aclnn.scalar(1.0), zeros((2, 3)))
    run_fails("Addcdiv", ACLNN_ERR_PARAM_NULLPTR, ["value"], a, a, a, None, zeros((2, 3)))
    run_fails("Addcdiv", ACLNN_ERR_PARAM_INVALID, ["int32"], aclnn.tensor(np.ones(3, np.int32)),
              a, a, aclnn.scalar(1.0), zeros((2, 3)))


# ---- Ger -----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_ger(device, dtype):
    a, b = (rand(5) * 4).astype(dtype), (rand(3) * 4).astype(dtype)
    y = zeros((5, 3), dtype)
    run_ok("Ger", aclnn.tensor(a), aclnn.tensor(b), y)
    close(y.numpy(), np.outer(a.astype(np.float64), b.astype(np.float64)),
          np.float16 if dtype == np.float16 else np.float32)


def test_ger_errors(device):
    a = aclnn.tensor(rand(5))
    run_fails("Ger", ACLNN_ERR_PARAM_INVALID, ["out"], a, a, zeros((5, 4)))
    run_fails("Ger", ACLNN_ERR_PARAM_INVALID, ["vec2"], a, aclnn.tensor(rand(2, 2)), zeros((5, 4)))


# ---- Sum ------------------------------------------------------------------------------------

@pytest.mark.parametrize("count", [1, 2, 5])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_sum_of_a_tensor_list(device, count, dtype):
    xs = [(rand(3, 4) * 10).astype(dtype) for _ in range(count)]
    y = zeros((3, 4), dtype)
    run_ok("Sum", aclnn.tensor_list([aclnn.tensor(x) for x in xs]), y)
    want = np.sum([x.astype(np.float64) for x in xs], axis=0)
    if dtype == np.int32:
        np.testing.assert_array_equal(y.numpy(), want)
    else:
        close(y.numpy(), want, dtype)


def test_sum_errors(device):
    y = zeros((3,))
    run_fails("Sum", ACLNN_ERR_PARAM_INVALID, ["tensors[i]"],
              aclnn.tensor_list([aclnn.tensor(rand(3)), aclnn.tensor(rand(4))]), y)
    run_fails("Sum", ACLNN_ERR_PARAM_NULLPTR, ["tensors"], None, y)


# ---- SoftmaxCrossEntropyWithLogits ---------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_softmax_cross_entropy_with_logits(device, dtype):
    f = (rand(6, 10) * 3).astype(dtype)
    lab = rng.random((6, 10))
    lab = (lab / lab.sum(axis=1, keepdims=True)).astype(dtype)
    f64 = f.astype(np.float64)
    e = np.exp(f64 - f64.max(axis=1, keepdims=True))
    sm = e / e.sum(axis=1, keepdims=True)
    loss, bp = zeros((6,), dtype), zeros((6, 10), dtype)
    run_ok("SoftmaxCrossEntropyWithLogits", aclnn.tensor(f), aclnn.tensor(lab), loss, bp)
    close(loss.numpy(), -(lab.astype(np.float64) * np.log(sm)).sum(axis=1), dtype)
    close(bp.numpy(), sm - lab.astype(np.float64), dtype)


def test_softmax_cross_entropy_errors(device):
    f = aclnn.tensor(rand(2, 3))
    run_fails("SoftmaxCrossEntropyWithLogits", ACLNN_ERR_PARAM_INVALID, ["labels"], f,
              aclnn.tensor(rand(2, 4)), zeros((2,)), zeros((2, 3)))
    run_fails("SoftmaxCrossEntropyWithLogits", ACLNN_ERR_PARAM_INVALID, ["loss"], f, f,
              zeros((3,)), zeros((2, 3)))
