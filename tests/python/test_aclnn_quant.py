# SPDX-License-Identifier: MIT
"""aclnn's products over quantized weights (WeightQuantBatchMatmulV2) on the
card against numpy's product of x and the weights dequantised in float64,
with INT8 and INT4 weights, per-channel and per-group scales and offsets,
weights given transposed as ggml gives them, and the weight preparation
calls (CalculateMatmulWeightSize(V2), TransMatmulWeight)."""
import ctypes

import numpy as np
import pytest

import aclnn
from aclnn import BF16, out, run_fails, run_ok

ACL_INT4 = 29


class Int4Weight(aclnn._Handle):
    """An ACL_INT4 weight (k, n) holding values, two a byte with the even
    one in the low nibble: stored (n, k) and seen through a transposed view
    (strides (1, k)) when transposed, as ggml's q4_0, else (k, n)."""

    def __init__(self, values, transposed):
        k, n = values.shape
        rows = values.T if transposed else values
        nib = (rows.astype(np.int16) & 15).astype(np.uint8)
        packed = nib[:, 0::2] | (nib[:, 1::2] << 4)
        self.mem = aclnn.DeviceMemory(packed.nbytes)
        self.mem.upload(packed)
        # what aclnn.TensorList copies of a tensor
        self.shape, self.acl_type, self.offset = (k, n), ACL_INT4, 0
        self.strides = (1, k) if transposed else (n, 1)
        self.storage_elems, self.ptr = k * n, self.mem.ptr.value
        super().__init__(aclnn.nnopbase.aclCreateTensor(
            aclnn._i64_array(self.shape), 2, ACL_INT4, aclnn._i64_array(self.strides), 0,
            aclnn.ACL_FORMAT_ND, aclnn._i64_array([k * n]), 1, self.ptr),
            aclnn.nnopbase.aclDestroyTensor)


def floating(a, dtype, **kw):
    """A device tensor of a in dtype (BF16 or a numpy type) and the values it holds."""
    if dtype == BF16:
        bits = aclnn.to_bf16(a)
        return aclnn.tensor(bits, acl_type=aclnn.ACL_BF16, **kw), aclnn.from_bf16(bits)
    held = np.asarray(a).astype(dtype)
    return aclnn.tensor(held, **kw), held.astype(np.float32)


def values(t, dtype):
    got = t.numpy()
    return aclnn.from_bf16(got) if dtype == BF16 else got.astype(np.float32)


def dequantised(w, scale, offset, group):
    """(k, n) weights as the product uses them, in float64."""
    k = w.shape[0]
    rows = np.arange(k) // group if group else np.zeros(k, int)
    s = np.broadcast_to(scale.reshape(-1, scale.shape[-1]), (rows.max() + 1, w.shape[1]))
    o = 0 if offset is None else np.broadcast_to(offset.reshape(-1, offset.shape[-1]), s.shape)
    return (w + (o if np.isscalar(o) else o[rows])) * s[rows]


def close(got, want, dtype):
    tol = {np.float32: 1e-4, np.float16: 4e-3, BF16: 1.6e-2}[dtype]
    scale = np.abs(want).max() + 1
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=tol, atol=tol * scale)


CASES = [
    # bits, dtype, m, k, n, group, offset, transposed, scale as (n)
    (8, np.float16, 3, 40, 24, 0, True, False, True),
    (8, np.float16, 4, 96, 40, 32, False, True, False),
    (8, BF16, 2, 64, 33, 32, True, True, False),
    (4, np.float16, 3, 128, 48, 32, False, True, False),
    (4, BF16, 5, 96, 20, 32, True, True, False),
    (4, np.float32, 2, 24, 18, 0, True, False, False),
    (4, np.float16, 1, 600, 70, 64, True, True, False),
]


@pytest.mark.parametrize("bits,dtype,m,k,n,group,with_offset,transposed,scale_1d", CASES)
def test_weight_quant_batch_matmul(device, bits, dtype, m, k, n, group, with_offset,
                                   transposed, scale_1d):
    lo, hi = (-8, 8) if bits == 4 else (-128, 128)
    w = aclnn.rng().integers(lo, hi, (k, n)).astype(np.int8)
    groups = -(-k // group) if group else 1
    sshape = (n,) if scale_1d else (groups, n)
    x, xv = floating(aclnn.rng().uniform(-1, 1, (m, k)), dtype)
    scale, sv = floating(aclnn.rng().uniform(0.005, 0.05, sshape), dtype)
    offset, ov = floating(aclnn.rng().uniform(-4, 4, sshape), dtype) if with_offset else (None, None)
    if bits == 8 and transposed:
        weight = aclnn.tensor(w, strides=(1, k))
    elif bits == 8:
        weight = aclnn.tensor(w)
    else:
        weight = Int4Weight(w, transposed)
    y = out((m, n), dtype)
    run_ok("WeightQuantBatchMatmulV2", x, weight, scale, offset, None, None, None,
           ctypes.c_int(group), y)
    want = xv.astype(np.float64) @ dequantised(w.astype(np.float64), sv, ov, group)
    close(values(y, dtype), want, dtype)


def test_weight_quant_batch_matmul_as_ggml_calls_it(device):
    """q8_0 and q4_0 as ggml's CANN backend hands them: the weight and its
    F16 scales stored (n, k) and (n, k / 32), seen transposed, no offset."""
    m, k, n = 3, 128, 40
    for bits in (8, 4):
        lo, hi = (-8, 8) if bits == 4 else (-128, 128)
        w = aclnn.rng().integers(lo, hi, (k, n)).astype(np.int8)
        s = aclnn.rng().uniform(0.005, 0.05, (k // 32, n)).astype(np.float16)
        weight = Int4Weight(w, True) if bits == 4 else aclnn.tensor(w, strides=(1, k))
        scale = aclnn.tensor(s, strides=(1, k // 32))
        x = aclnn.rng().uniform(-1, 1, (m, k)).astype(np.float16)
        y = out((m, n), np.float16)
        run_ok("WeightQuantBatchMatmulV2", aclnn.tensor(x), weight, scale, None, None, None,
               None, ctypes.c_int(32), y)
        want = x.astype(np.float64) @ dequantised(w.astype(np.float64), s.astype(np.float64),
                                                  None, 32)
        close(values(y, np.float16), want, np.float16)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_weight_quant_batch_matmul_bias(device, dtype):
    m, k, n = 4, 64, 24
    w = aclnn.rng().integers(-128, 128, (k, n)).astype(np.int8)
    s = aclnn.rng().uniform(0.005, 0.05, (2, n)).astype(dtype)
    b = aclnn.rng().uniform(-1, 1, (n,)).astype(dtype)
    x = aclnn.rng().uniform(-1, 1, (m, k)).astype(dtype)
    y = out((m, n), dtype)
    run_ok("WeightQuantBatchMatmulV2", aclnn.tensor(x), aclnn.tensor(w), aclnn.tensor(s),
           None, None, None, aclnn.tensor(b), ctypes.c_int(32), y)
    want = x.astype(np.float64) @ dequantised(w.astype(np.float64), s.astype(np.float64),
                                              None, 32) + b
    close(values(y, dtype), want, dtype)


def test_weight_quant_batch_matmul_refusals(device):
    m, k, n = 2, 64, 16
    x = aclnn.tensor(np.ones((m, k), np.float16))
    w = aclnn.tensor(np.ones((k, n), np.int8))
    s = aclnn.tensor(np.ones((2, n), np.float16))
    y = out((m, n), np.float16)
    op = "WeightQuantBatchMatmulV2"
    g = ctypes.c_int(32)
    run_fails(op, aclnn.ACLNN_ERR_PARAM_NULLPTR, ["x"], None, w, s, None, None, None, None, g, y)
    run_fails(op, aclnn.ACLNN_ERR_PARAM_INVALID, ["quantScale"], x, w, s, None,
              aclnn.tensor(np.ones((1, n), np.uint64)), None, None, g, y)
    run_fails(op, aclnn.ACLNN_ERR_PARAM_INVALID, ["weight", "INT8"], x,
              aclnn.tensor(np.ones((k, n), np.float16)), s, None, None, None, None, g, y)
    run_fails(op, aclnn.ACLNN_ERR_PARAM_INVALID, ["antiquantScale"], x, w,
              aclnn.tensor(np.ones((3, n), np.float16)), None, None, None, None, g, y)
    run_fails(op, aclnn.ACLNN_ERR_PARAM_INVALID, ["antiquantGroupSize"], x, w, s, None, None,
              None, None, ctypes.c_int(k + 1), y)
    run_fails(op, aclnn.ACLNN_ERR_PARAM_INVALID, ["weight", "k"], x,
              aclnn.tensor(np.ones((k + 2, n), np.int8)), s, None, None, None, None, g, y)
    run_fails(op, aclnn.ACLNN_ERR_PARAM_INVALID, ["y"], x, w, s, None, None, None, None, g,
              out((m, n + 1), np.float16))
    run_fails(op, aclnn.ACLNN_ERR_PARAM_INVALID, ["antiquantOffsetOptional"], x, w, s,
              aclnn.tensor(np.ones((2, n), np.float32)), None, None, None, g, y)
    run_fails(op, aclnn.ACLNN_ERR_PARAM_INVALID, ["biasOptional", "int32"], x, w, s, None,
              None, None, aclnn.tensor(np.ones((n,), np.int32)), g, y)
    run_fails(op, aclnn.ACLNN_ERR_PARAM_INVALID, ["biasOptional"], x, w, s, None, None, None,
              aclnn.tensor(np.ones((n + 1,), np.float16)), g, y)


def size_v2(shape, dtype):
    got = ctypes.c_uint64(0)
    fn = aclnn.opapi.aclnnCalculateMatmulWeightSizeV2
    fn.restype = ctypes.c_int32
    dims = aclnn.int_array(shape)
    ret = fn(aclnn._vp(dims.handle), ctypes.c_int(dtype), ctypes.byref(got))
    return ret, got.value


def test_calculate_matmul_weight_size(device):
    """The card keeps weights ND: the size is the ND size, in elements."""
    assert size_v2([510, 270], aclnn.ACL_INT8) == (0, 510 * 270)
    assert size_v2([4, 510, 510], aclnn.ACL_FLOAT16) == (0, 4 * 510 * 510)
    assert size_v2([510], aclnn.ACL_FLOAT16)[0] == aclnn.ACLNN_ERR_PARAM_INVALID
    assert "tensorShape" in aclnn.err_msg()
    assert size_v2([5, 5], aclnn.ACL_INT32)[0] == aclnn.ACLNN_ERR_PARAM_INVALID
    assert "dataType" in aclnn.err_msg()
    got = ctypes.c_uint64(0)
    fn = aclnn.opapi.aclnnCalculateMatmulWeightSize
    fn.restype = ctypes.c_int32
    dims = aclnn.int_array([3, 4, 5])
    assert fn(aclnn._vp(dims.handle), ctypes.byref(got)) == 0
    assert got.value == 60
    assert fn(aclnn._vp(), ctypes.byref(got)) == aclnn.ACLNN_ERR_PARAM_NULLPTR


def test_trans_matmul_weight_leaves_the_weight_as_it_is(device):
    w = aclnn.rng().standard_normal((32, 48)).astype(np.float16)
    t = aclnn.tensor(w)
    run_ok("TransMatmulWeight", t)
    np.testing.assert_array_equal(t.numpy(), w)
    run_fails("TransMatmulWeight", aclnn.ACLNN_ERR_PARAM_INVALID, ["mmWeightRef"],
              aclnn.tensor(np.ones((4, 4), np.int32)))
    run_fails("TransMatmulWeight", aclnn.ACLNN_ERR_PARAM_INVALID, ["dims"],
              aclnn.tensor(np.ones((4,), np.float16)))


def gmm(x, w, bias, ascale, y, split_item=0, group_list=None, scale=None):
    lst = lambda ts: aclnn.tensor_list(ts) if ts is not None else None
    return aclnn.run("GroupedMatmulV3", lst(x), lst(w), lst(bias), lst(scale), None,
                     lst(ascale), None, group_list, split_item, -1, lst(y))


def test_grouped_matmul_one_tensor_a_group(device):
    shapes = [(3, 8, 5), (1, 16, 7), (4, 4, 2)]
    xs = [aclnn.rng().standard_normal((m, k)).astype(np.float16) for m, k, _ in shapes]
    ws = [aclnn.rng().standard_normal((k, n)).astype(np.float16) for _, k, n in shapes]
    bs = [aclnn.rng().standard_normal((n,)).astype(np.float16) for _, _, n in shapes]
    ys = [out((m, n), np.float16) for m, _, n in shapes]
    assert gmm([aclnn.tensor(a) for a in xs], [aclnn.tensor(a) for a in ws],
               [aclnn.tensor(a) for a in bs], None, ys) == 0, aclnn.err_msg()
    for a, w, b, y in zip(xs, ws, bs, ys):
        close(values(y, np.float16), a.astype(np.float64) @ w + b, np.float16)


def test_grouped_matmul_quantized_groups_into_one_y(device):
    """Experts of INT8 and INT4 weights with per-channel scales, their rows
    one after another in a single y (splitItem 3)."""
    k, n, ms = 64, 24, (2, 5)
    xs = [aclnn.rng().uniform(-1, 1, (m, k)).astype(np.float16) for m in ms]
    w8 = aclnn.rng().integers(-128, 128, (k, n)).astype(np.int8)
    w4 = aclnn.rng().integers(-8, 8, (k, n)).astype(np.int8)
    ss = [aclnn.rng().uniform(0.005, 0.05, (n,)).astype(np.float16) for _ in ms]
    y = out((sum(ms), n), np.float16)
    assert gmm([aclnn.tensor(a) for a in xs], [aclnn.tensor(w8), Int4Weight(w4, True)], None,
               [aclnn.tensor(s) for s in ss], [y], split_item=3) == 0, aclnn.err_msg()
    want = np.concatenate([
        xs[i].astype(np.float64) @ (w.astype(np.float64) * ss[i].astype(np.float64))
        for i, w in enumerate((w8, w4))])
    close(values(y, np.float16), want, np.float16)


def test_grouped_matmul_refusals(device):
    x = [aclnn.tensor(np.ones((2, 4), np.float16))]
    w = [aclnn.tensor(np.ones((4, 3), np.float16))]
    y = [out((2, 3), np.float16)]
    groups = aclnn.tensor(np.array([2], np.int64))
    assert gmm(x, w, None, None, y, group_list=groups) == \
        aclnn.ACLNN_ERR_INNER_FIND_KERNEL_ERROR
    assert "groupListOptional" in aclnn.err_msg()
    assert gmm(x, w, None, None, y, scale=[aclnn.tensor(np.ones(3, np.uint64))]) == \
        aclnn.ACLNN_ERR_PARAM_INVALID
    assert "scaleOptional" in aclnn.err_msg()
    assert gmm(x, w + w, None, None, y) == aclnn.ACLNN_ERR_PARAM_INVALID
    assert "weight has 2 tensors" in aclnn.err_msg()
    assert gmm(x, [aclnn.tensor(np.ones((5, 3), np.float16))], None, None, y) == \
        aclnn.ACLNN_ERR_PARAM_INVALID
    assert "rows" in aclnn.err_msg()
    assert gmm(x, [aclnn.tensor(np.ones((4, 3), np.int8))], None, None, y) == \
        aclnn.ACLNN_ERR_PARAM_INVALID
    assert "antiquantScaleOptional" in aclnn.err_msg()
