# SPDX-License-Identifier: MIT
"""aclnn's reductions and normalisations (ReduceSum, Mean, Amax, Amin, Norm,
Softmax, LogSoftmax, LayerNorm, RmsNorm, AddRmsNorm, GroupNorm, BatchNorm)
on the card against numpy."""
import ctypes

import numpy as np
import pytest

import aclnn
from aclnn import out, rand, run_fails, run_ok

ACLNN_ERR_PARAM_NULLPTR = 161001
ACLNN_ERR_PARAM_INVALID = 161002
ACL_FLOAT, ACL_FLOAT16 = 0, 1

i64, f64, cbool = ctypes.c_int64, ctypes.c_double, ctypes.c_bool


# how far this family's arithmetic may round
close = aclnn.closer({np.float32: (4e-5, 4e-5), np.float16: (8e-3, 8e-3)})


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("keep", [False, True])
def test_reduce_sum_over_two_axes(device, dtype, keep):
    x = rand((3, 4, 5), dtype=dtype)
    want = x.astype(np.float64).sum(axis=(0, 2), keepdims=keep)
    y = out(want.shape, dtype)
    acl = ACL_FLOAT if dtype == np.float32 else ACL_FLOAT16
    run_ok("ReduceSum", aclnn.tensor(x), aclnn.int_array([0, -1]), cbool(keep), ctypes.c_int(acl), y)
    close(y.numpy(), want, dtype)


def test_reduce_sum_of_f16_into_f32(device):
    x = rand((4, 6), dtype=np.float16)
    y = out((4,))
    run_ok("ReduceSum", aclnn.tensor(x), aclnn.int_array([1]), cbool(False), ctypes.c_int(ACL_FLOAT), y)
    close(y.numpy(), x.astype(np.float64).sum(axis=1))


def test_reduce_sum_of_everything_into_a_one_element_out(device):
    """ggml's CANN backend gives the whole sum a (1,) out, not a 0-d one."""
    x = rand((3, 5))
    y = out((1,))
    run_ok("ReduceSum", aclnn.tensor(x), aclnn.int_array([0, 1]), cbool(False),
           ctypes.c_int(ACL_FLOAT), y)
    close(y.numpy(), x.astype(np.float64).sum().reshape(1))


def test_reduce_sum_of_an_empty_axis_is_zero(device):
    y = aclnn.tensor(np.full((3,), 7, np.float32))
    run_ok("ReduceSum", aclnn.tensor(np.zeros((3, 0), np.float32)), aclnn.int_array([1]),
           cbool(False), ctypes.c_int(ACL_FLOAT), y)
    assert np.array_equal(y.numpy(), np.zeros(3, np.float32))


def test_mean_of_a_transposed_view(device):
    base = rand((5, 3))
    y = out((3,))
    run_ok("Mean", aclnn.tensor(base.T, strides=(1, 3)), aclnn.int_array([1]), cbool(False),
           ctypes.c_int(ACL_FLOAT), y)
    close(y.numpy(), base.T.mean(axis=1))


@pytest.mark.parametrize("op,fn", [("Amax", np.max), ("Amin", np.min)])
def test_amax_amin(device, op, fn):
    x = rand((2, 3, 4))
    y = out((2, 1, 4))
    run_ok(op, aclnn.tensor(x), aclnn.int_array([1]), cbool(True), y)
    assert np.array_equal(y.numpy(), fn(x, axis=1, keepdims=True))


def test_amax_of_an_empty_axis_fails(device):
    run_fails("Amax", ACLNN_ERR_PARAM_INVALID, ["empty"], aclnn.tensor(np.zeros((2, 0), np.float32)),
              aclnn.int_array([1]), cbool(False), out((2,)))


def test_reduce_naming_an_axis_twice_fails(device):
    run_fails("Amax", ACLNN_ERR_PARAM_INVALID, ["twice"], aclnn.tensor(rand((2, 3))),
              aclnn.int_array([1, -1]), cbool(False), out((2,)))


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, float("inf"), 0.0])
def test_norm(device, p):
    x = rand((3, 8))
    x[0, 0] = 0
    y = out((3,))
    run_ok("Norm", aclnn.tensor(x), aclnn.scalar(p, ACL_FLOAT), aclnn.int_array([1]), cbool(False), y)
    x64 = x.astype(np.float64)
    want = np.count_nonzero(x, axis=1) if p == 0 else np.linalg.norm(x64, ord=p, axis=1)
    close(y.numpy(), want)


def test_norm_of_a_negative_p_fails(device):
    run_fails("Norm", ACLNN_ERR_PARAM_INVALID, ["p"], aclnn.tensor(rand(3)),
              aclnn.scalar(-1.0, ACL_FLOAT), aclnn.int_array([0]), cbool(False), out(()))


def softmax_ref(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_softmax(device, dtype):
    x = rand((4, 7), dtype=dtype)
    y = out((4, 7), dtype)
    run_ok("Softmax", aclnn.tensor(x), i64(-1), y)
    close(y.numpy(), softmax_ref(x.astype(np.float64), -1), dtype)


def test_log_softmax_over_the_first_axis(device):
    x = rand((5, 3))
    y = out((5, 3))
    run_ok("LogSoftmax", aclnn.tensor(x), i64(0), y)
    close(y.numpy(), np.log(softmax_ref(x.astype(np.float64), 0)))


def test_softmax_dim_out_of_range_fails(device):
    run_fails("Softmax", ACLNN_ERR_PARAM_INVALID, ["dim"], aclnn.tensor(rand((2, 3))), i64(2), out((2, 3)))


def layer_norm_ref(x, k, w, b, eps):
    axes = tuple(range(x.ndim - k, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    rstd = 1 / np.sqrt(var + eps)
    return (x - mean) * rstd * w + b, mean, rstd


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_layer_norm_with_mean_and_rstd(device, dtype):
    x = rand((2, 3, 8), dtype=dtype)
    w, b = rand(8), rand(8)
    want, mean, rstd = layer_norm_ref(x.astype(np.float64), 1, w, b, 1e-5)
    y, m, r = out(x.shape, dtype), out((2, 3, 1)), out((2, 3, 1))
    run_ok("LayerNorm", aclnn.tensor(x), aclnn.int_array([8]), aclnn.tensor(w), aclnn.tensor(b),
           f64(1e-5), y, m, r)
    close(y.numpy(), want, dtype)
    close(m.numpy(), mean, dtype)
    close(r.numpy(), rstd, dtype)


def test_layer_norm_without_weight_bias_or_statistics(device):
    x = rand((4, 2, 3))
    want, _, _ = layer_norm_ref(x.astype(np.float64), 2, 1.0, 0.0, 1e-6)
    y = out(x.shape)
    run_ok("LayerNorm", aclnn.tensor(x), aclnn.int_array([2, 3]), None, None, f64(1e-6), y, None, None)
    close(y.numpy(), want)


def test_layer_norm_shape_mismatch_fails(device):
    run_fails("LayerNorm", ACLNN_ERR_PARAM_INVALID, ["normalizedShape"], aclnn.tensor(rand((2, 4))),
              aclnn.int_array([3]), None, None, f64(1e-5), out((2, 4)), None, None)


def rms_ref(x, gamma, eps):
    axes = tuple(range(x.ndim - gamma.ndim, x.ndim))
    rstd = 1 / np.sqrt((x * x).mean(axis=axes, keepdims=True) + eps)
    return x * rstd * gamma, rstd


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_rms_norm_and_its_rstd(device, dtype):
    x = rand((3, 4, 16), dtype=dtype)
    gamma = rand(16, dtype=dtype)
    want, rstd = rms_ref(x.astype(np.float64), gamma.astype(np.float64), 1e-6)
    y, r = out(x.shape, dtype), out((3, 4, 1))
    run_ok("RmsNorm", aclnn.tensor(x), aclnn.tensor(gamma), f64(1e-6), y, r)
    close(y.numpy(), want, dtype)
    close(r.numpy(), rstd, dtype)


def test_rms_norm_over_two_axes(device):
    x = rand((2, 3, 4))
    gamma = rand((3, 4))
    want, rstd = rms_ref(x.astype(np.float64), gamma, 1e-5)
    y, r = out(x.shape), out((2, 1, 1))
    run_ok("RmsNorm", aclnn.tensor(x), aclnn.tensor(gamma), f64(1e-5), y, r)
    close(y.numpy(), want)
    close(r.numpy(), rstd)


@pytest.mark.parametrize("gdims", [1, 2])
def test_rms_norm_rstd_without_the_normalized_dims(device, gdims):
    x = rand((3, 4, 5, 8))
    gamma = rand(x.shape[4 - gdims:])
    want, rstd = rms_ref(x.astype(np.float64), gamma.astype(np.float64), 1e-6)
    y, r = out(x.shape), out(x.shape[:4 - gdims])
    run_ok("RmsNorm", aclnn.tensor(x), aclnn.tensor(gamma), f64(1e-6), y, r)
    close(y.numpy(), want)
    close(r.numpy(), rstd.reshape(x.shape[:4 - gdims]))
    run_fails("RmsNorm", ACLNN_ERR_PARAM_INVALID, ["rstdOut"], aclnn.tensor(x), aclnn.tensor(gamma),
              f64(1e-6), y, out((3, 4, 6) if gdims == 1 else (3, 6)))


def test_rms_norm_gamma_of_the_wrong_shape_fails(device):
    run_fails("RmsNorm", ACLNN_ERR_PARAM_INVALID, ["gamma"], aclnn.tensor(rand((2, 4))),
              aclnn.tensor(rand(3)), f64(1e-6), out((2, 4)), out((2, 1)))


def test_add_rms_norm(device):
    x1, x2, gamma = rand((4, 8)), rand((4, 8)), rand(8)
    s = x1.astype(np.float64) + x2
    want, rstd = rms_ref(s, gamma, 1e-6)
    y, r, xo = out((4, 8)), out((4, 1)), out((4, 8))
    run_ok("AddRmsNorm", aclnn.tensor(x1), aclnn.tensor(x2), aclnn.tensor(gamma), f64(1e-6), y, r, xo)
    close(xo.numpy(), s)
    close(y.numpy(), want)
    close(r.numpy(), rstd)


def test_add_rms_norm_outputs_are_indexed_y_rstd_x_as_the_vendors(device):
    x1, x2, gamma = rand((4, 8)), rand((4, 8)), rand(8)
    s = x1.astype(np.float64) + x2
    want, rstd = rms_ref(s, gamma, 1e-6)
    inputs = aclnn.tensor(x1), aclnn.tensor(x2), aclnn.tensor(gamma)
    ret, size, ex = aclnn.prepare("AddRmsNorm", *inputs, f64(1e-6), out((4, 8)), out((4, 1)),
                                  out((4, 8)))
    assert ret == 0, aclnn.err_msg()
    assert aclnn.nnopbase.aclSetAclOpExecutorRepeatable(ctypes.c_void_p(ex)) == 0
    y, r, xo = out((4, 8)), out((4, 1)), out((4, 8))
    for index, t in enumerate((y, r, xo)):
        assert aclnn.nnopbase.aclSetOutputTensorAddr(
            ctypes.c_void_p(ex), ctypes.c_size_t(index), None, ctypes.c_void_p(t.ptr)) == 0
    work = aclnn.DeviceMemory(size) if size else None
    assert aclnn.launch("AddRmsNorm", work.ptr.value if work else None, size, ex) == 0, \
        aclnn.err_msg()
    aclnn.check(aclnn.acl.aclrtSynchronizeStream(None), "sync")
    assert aclnn.nnopbase.aclDestroyAclOpExecutor(ctypes.c_void_p(ex)) == 0
    close(y.numpy(), want)
    close(r.numpy(), rstd)
    close(xo.numpy(), s)


def group_norm_ref(x, g, gamma, beta, eps):
    n, c = x.shape[:2]
    xg = x.reshape(n, g, -1)
    mean = xg.mean(axis=2)
    var = xg.var(axis=2)
    rstd = 1 / np.sqrt(var + eps)
    y = ((xg - mean[..., None]) * rstd[..., None]).reshape(x.shape)
    shape = (1, c) + (1,) * (x.ndim - 2)
    return y * gamma.reshape(shape) + beta.reshape(shape), mean, rstd


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_group_norm_with_statistics(device, dtype):
    x = rand((2, 6, 3, 4), dtype=dtype)
    gamma, beta = rand(6), rand(6)
    want, mean, rstd = group_norm_ref(x.astype(np.float64), 3, gamma, beta, 1e-5)
    y, m, r = out(x.shape, dtype), out((2, 3)), out((2, 3))
    run_ok("GroupNorm", aclnn.tensor(x), aclnn.tensor(gamma), aclnn.tensor(beta), i64(2), i64(6),
           i64(12), i64(3), f64(1e-5), y, m, r)
    close(y.numpy(), want, dtype)
    close(m.numpy(), mean, dtype)
    close(r.numpy(), rstd, dtype)


def test_group_norm_groups_not_dividing_channels_fails(device):
    run_fails("GroupNorm", ACLNN_ERR_PARAM_INVALID, ["group"], aclnn.tensor(rand((1, 4, 2))), None, None,
              i64(1), i64(4), i64(2), i64(3), f64(1e-5), out((1, 4, 2)), None, None)


def test_batch_norm_inference(device):
    x = rand((2, 3, 4, 5))
    w, b, rm = rand(3), rand(3), rand(3)
    rv = np.abs(rand(3)) + 0.5
    y = out(x.shape)
    run_ok("BatchNorm", aclnn.tensor(x), aclnn.tensor(w), aclnn.tensor(b), aclnn.tensor(rm),
           aclnn.tensor(rv), cbool(False), f64(0.1), f64(1e-5), y, None, None)
    s = (1, 3, 1, 1)
    want = (x - rm.reshape(s)) / np.sqrt(rv.reshape(s) + 1e-5) * w.reshape(s) + b.reshape(s)
    close(y.numpy(), want)


def test_batch_norm_training_updates_running_statistics(device):
    x = rand((4, 3, 5)).astype(np.float32)
    w, b = rand(3), rand(3)
    rm, rv = rand(3), np.abs(rand(3)) + 0.5
    trm, trv = aclnn.tensor(rm.copy()), aclnn.tensor(rv.copy())
    y, sm, si = out(x.shape), out((3,)), out((3,))
    run_ok("BatchNorm", aclnn.tensor(x), aclnn.tensor(w), aclnn.tensor(b), trm, trv, cbool(True),
           f64(0.1), f64(1e-5), y, sm, si)
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=(0, 2))
    var = x64.var(axis=(0, 2))
    s = (1, 3, 1)
    want = (x64 - mean.reshape(s)) / np.sqrt(var.reshape(s) + 1e-5) * w.reshape(s) + b.reshape(s)
    close(y.numpy(), want)
    close(sm.numpy(), mean)
    close(si.numpy(), 1 / np.sqrt(var + 1e-5))
    n = x.size / 3
    close(trm.numpy(), 0.9 * rm + 0.1 * mean)
    close(trv.numpy(), 0.9 * rv + 0.1 * var * n / (n - 1))


def test_batch_norm_inference_without_running_mean_fails(device):
    run_fails("BatchNorm", ACLNN_ERR_PARAM_NULLPTR, ["runningMean"], aclnn.tensor(rand((2, 3))), None,
              None, None, None, cbool(False), f64(0.1), f64(1e-5), out((2, 3)), None, None)
