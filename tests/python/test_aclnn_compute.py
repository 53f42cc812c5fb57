# SPDX-License-Identifier: MIT
"""aclnn's compute operators (Matmul, Mm, BatchMatMul, Mv, Addmm, Convolution,
AvgPool2d, MaxPool) on the card against numpy, convolutions and pooling
by references written here."""
import ctypes

import numpy as np
import pytest

import aclnn
from aclnn import out, rand, run_fails, run_ok

ACLNN_ERR_PARAM_NULLPTR = 161001
ACLNN_ERR_PARAM_INVALID = 161002
ACL_FLOAT = 0

i64, i8, f64, cbool = ctypes.c_int64, ctypes.c_int8, ctypes.c_double, ctypes.c_bool


# how far this family's arithmetic may round
close = aclnn.closer({np.float32: (1e-4, 4e-4), np.float16: (1e-2, 4e-2)})


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_mm(device, dtype):
    a, b = rand((5, 7), dtype=dtype), rand((7, 3), dtype=dtype)
    y = out((5, 3), dtype)
    run_ok("Mm", aclnn.tensor(a), aclnn.tensor(b), y, i8(1))
    close(y.numpy(), a.astype(np.float64) @ b, dtype)


def test_mm_of_a_transposed_view(device):
    base, b = rand((6, 4)), rand((6, 2))
    y = out((4, 2))
    run_ok("Mm", aclnn.tensor(base.T, strides=(1, 4)), aclnn.tensor(b), y, i8(0))
    close(y.numpy(), base.T.astype(np.float64) @ b)


@pytest.mark.parametrize("op,sa,sb", [("Mm", (9, 256), (256, 16)),
                                      ("BatchMatMul", (2, 5, 8), (2, 8, 3)),
                                      ("Matmul", (2, 1, 5, 8), (3, 8, 4))])
def test_product_of_f32_and_f16_is_f32(device, op, sa, sb):
    a, b = rand(sa), rand(sb, dtype=np.float16)
    want = a.astype(np.float64) @ b.astype(np.float64)
    y = out(want.shape)
    run_ok(op, aclnn.tensor(a), aclnn.tensor(b), y, i8(1))
    close(y.numpy(), want)
    a16, b32 = a.astype(np.float16), b.astype(np.float32)
    y = out(want.shape)
    run_ok(op, aclnn.tensor(a16), aclnn.tensor(b32), y, i8(1))
    close(y.numpy(), a16.astype(np.float64) @ b32, np.float16)
    run_fails(op, ACLNN_ERR_PARAM_INVALID, ["out", "float"], aclnn.tensor(a), aclnn.tensor(b),
              out(want.shape, np.float16), i8(1))
    y = out(want.shape)
    run_ok(op, aclnn.tensor(a16), aclnn.tensor(b), y, i8(1))
    close(y.numpy(), a16.astype(np.float64) @ b, np.float16)


def test_mm_inner_dims_mismatch_fails(device):
    run_fails("Mm", ACLNN_ERR_PARAM_INVALID, ["mat2"], aclnn.tensor(rand((2, 3))), aclnn.tensor(rand((4, 2))),
              out((2, 2)), i8(0))


def test_mm_bad_cube_math_type_fails(device):
    run_fails("Mm", ACLNN_ERR_PARAM_INVALID, ["cubeMathType"], aclnn.tensor(rand((2, 3))),
              aclnn.tensor(rand((3, 2))), out((2, 2)), i8(9))


def test_batch_matmul(device):
    a, b = rand((3, 4, 5)), rand((3, 5, 2))
    y = out((3, 4, 2))
    run_ok("BatchMatMul", aclnn.tensor(a), aclnn.tensor(b), y, i8(0))
    close(y.numpy(), a.astype(np.float64) @ b)


@pytest.mark.parametrize("sa,sb", [((2, 1, 4, 3), (5, 3, 2)), ((3,), (2, 3, 4)), ((2, 4, 3), (3,)),
                                   ((4,), (4,))])
def test_matmul_broadcasts_like_numpy(device, sa, sb):
    a, b = rand(sa), rand(sb)
    want = a.astype(np.float64) @ b
    y = out(want.shape)
    run_ok("Matmul", aclnn.tensor(a), aclnn.tensor(b), y, i8(0))
    close(y.numpy(), want)


def test_matmul_with_no_inner_elements_is_zero(device):
    y = aclnn.tensor(np.ones((2, 3), np.float32))
    run_ok("Matmul", aclnn.tensor(np.zeros((2, 0), np.float32)), aclnn.tensor(np.zeros((0, 3), np.float32)),
           y, i8(0))
    assert np.array_equal(y.numpy(), np.zeros((2, 3)))


def test_mv(device):
    a, v = rand((6, 5)), rand(5)
    y = out((6,))
    run_ok("Mv", aclnn.tensor(a), aclnn.tensor(v), y, i8(0))
    close(y.numpy(), a.astype(np.float64) @ v)


def test_addmm_broadcasts_self(device):
    c, a, b = rand(3), rand((4, 5)), rand((5, 3))
    y = out((4, 3))
    run_ok("Addmm", aclnn.tensor(c), aclnn.tensor(a), aclnn.tensor(b), aclnn.scalar(0.5, ACL_FLOAT),
           aclnn.scalar(2.0, ACL_FLOAT), y, i8(0))
    close(y.numpy(), 0.5 * c + 2.0 * (a.astype(np.float64) @ b))


def test_inplace_addmm(device):
    c, a, b = rand((4, 3)), rand((4, 5)), rand((5, 3))
    t = aclnn.tensor(c.copy())
    run_ok("InplaceAddmm", t, aclnn.tensor(a), aclnn.tensor(b), aclnn.scalar(1.0, ACL_FLOAT),
           aclnn.scalar(1.0, ACL_FLOAT), i8(0))
    close(t.numpy(), c + a.astype(np.float64) @ b)


def conv2d_ref(x, w, b, stride, pad, dil, groups):
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    oh = (h + 2 * pad[0] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * pad[1] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    y = np.zeros((n, o, oh, ow))
    og = o // groups
    for g in range(groups):
        for i in range(kh):
            for j in range(kw):
                r0, c0 = i * dil[0], j * dil[1]
                patch = xp[:, g * cg:(g + 1) * cg, r0:r0 + stride[0] * oh:stride[0],
                           c0:c0 + stride[1] * ow:stride[1]]
                y[:, g * og:(g + 1) * og] += np.einsum("nchw,oc->nohw", patch,
                                                       w[g * og:(g + 1) * og, :, i, j])
    return y + (0 if b is None else b.reshape(1, -1, 1, 1))


def conv_transpose2d_ref(x, w, b, stride, pad, out_pad, groups):
    n, c, h, wd = x.shape
    _, og, kh, kw = w.shape
    full_h = (h - 1) * stride[0] + kh + out_pad[0]
    full_w = (wd - 1) * stride[1] + kw + out_pad[1]
    y = np.zeros((n, og * groups, full_h, full_w))
    cg = c // groups
    for g in range(groups):
        for i in range(kh):
            for j in range(kw):
                y[:, g * og:(g + 1) * og, i:i + stride[0] * h:stride[0], j:j + stride[1] * wd:stride[1]] += \
                    np.einsum("nchw,co->nohw", x[:, g * cg:(g + 1) * cg], w[g * cg:(g + 1) * cg, :, i, j])
    y = y[:, :, pad[0]:full_h - pad[0], pad[1]:full_w - pad[1]]
    return y + (0 if b is None else b.reshape(1, -1, 1, 1))


@pytest.mark.parametrize("groups,stride,pad,dil", [(1, (1, 1), (0, 0), (1, 1)), (2, (2, 1), (1, 2), (1, 2))])
def test_convolution_2d(device, groups, stride, pad, dil):
    x, w, b = rand((2, 4, 7, 8)), rand((6, 4 // groups, 3, 3)), rand(6)
    want = conv2d_ref(x.astype(np.float64), w, b, stride, pad, dil, groups)
    y = out(want.shape)
    run_ok("Convolution", aclnn.tensor(x), aclnn.tensor(w), aclnn.tensor(b), aclnn.int_array(list(stride)),
           aclnn.int_array(list(pad)), aclnn.int_array(list(dil)), cbool(False), aclnn.int_array([0, 0]),
           i64(groups), y, i8(0))
    close(y.numpy(), want)


def test_convolution_2d_f16_without_bias(device):
    x, w = rand((1, 3, 6, 6), dtype=np.float16), rand((4, 3, 3, 3), dtype=np.float16)
    want = conv2d_ref(x.astype(np.float64), w.astype(np.float64), None, (1, 1), (1, 1), (1, 1), 1)
    y = out(want.shape, np.float16)
    run_ok("Convolution", aclnn.tensor(x), aclnn.tensor(w), None, aclnn.int_array([1, 1]),
           aclnn.int_array([1, 1]), aclnn.int_array([1, 1]), cbool(False), aclnn.int_array([0, 0]),
           i64(1), y, i8(0))
    close(y.numpy(), want, np.float16)


def test_convolution_1d(device):
    x, w, b = rand((2, 3, 10)), rand((5, 3, 3)), rand(5)
    want = conv2d_ref(x[:, :, None].astype(np.float64), w[:, :, None], b, (1, 2), (0, 1), (1, 1), 1)[:, :, 0]
    y = out(want.shape)
    run_ok("Convolution", aclnn.tensor(x), aclnn.tensor(w), aclnn.tensor(b), aclnn.int_array([2]),
           aclnn.int_array([1]), aclnn.int_array([1]), cbool(False), aclnn.int_array([0]), i64(1), y, i8(0))
    close(y.numpy(), want)


def test_convolution_transposed(device):
    x, w, b = rand((1, 4, 3, 4)), rand((4, 3, 3, 3)), rand(3)
    want = conv_transpose2d_ref(x.astype(np.float64), w, b, (2, 2), (1, 1), (1, 0), 1)
    y = out(want.shape)
    run_ok("Convolution", aclnn.tensor(x), aclnn.tensor(w), aclnn.tensor(b), aclnn.int_array([2, 2]),
           aclnn.int_array([1, 1]), aclnn.int_array([1, 1]), cbool(True), aclnn.int_array([1, 0]),
           i64(1), y, i8(0))
    close(y.numpy(), want)


def test_convolution_output_of_the_wrong_shape_fails(device):
    run_fails("Convolution", ACLNN_ERR_PARAM_INVALID, ["output"], aclnn.tensor(rand((1, 3, 5, 5))),
              aclnn.tensor(rand((2, 3, 3, 3))), None, aclnn.int_array([1, 1]), aclnn.int_array([0, 0]),
              aclnn.int_array([1, 1]), cbool(False), aclnn.int_array([0, 0]), i64(1), out((1, 2, 5, 5)),
              i8(0))


def pool_ref(x, k, s, pads, mode, ceil=False, include_pad=True):
    """pads: (top, left, bottom, right); mode 'max' or 'avg'."""
    n, c, h, w = x.shape

    def size(i, kk, ss, pb, pe):
        room = i + pb + pe - kk
        o = (-(-room // ss) if ceil else room // ss) + 1
        return o - 1 if ceil and (o - 1) * ss >= i + pb else o

    oh, ow = size(h, k[0], s[0], pads[0], pads[2]), size(w, k[1], s[1], pads[1], pads[3])
    fill = -np.inf if mode == "max" else 0
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2] + k[0]), (pads[1], pads[3] + k[1])),
                constant_values=fill)
    inside = np.pad(np.ones((h, w)), ((pads[0], pads[2] + k[0]), (pads[1], pads[3] + k[1])))
    padded = np.pad(np.ones((h + pads[0] + pads[2], w + pads[1] + pads[3])), ((0, k[0]), (0, k[1])))
    y = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            r, q = i * s[0], j * s[1]
            win = xp[:, :, r:r + k[0], q:q + k[1]]
            if mode == "max":
                y[:, :, i, j] = win.max(axis=(2, 3))
            else:
                cnt = (padded if include_pad else inside)[r:r + k[0], q:q + k[1]].sum()
                y[:, :, i, j] = win.sum(axis=(2, 3)) / cnt
    return y


@pytest.mark.parametrize("include_pad", [True, False])
def test_avg_pool2d(device, include_pad):
    x = rand((2, 3, 7, 6))
    want = pool_ref(x.astype(np.float64), (3, 2), (2, 2), (1, 1, 1, 1), "avg", include_pad=include_pad)
    y = out(want.shape)
    run_ok("AvgPool2d", aclnn.tensor(x), aclnn.int_array([3, 2]), aclnn.int_array([2, 2]),
           aclnn.int_array([1, 1]), cbool(False), cbool(include_pad), i64(0), i8(0), y)
    close(y.numpy(), want)


def test_avg_pool2d_of_chw_with_a_divisor(device):
    x = rand((3, 4, 4))
    want = pool_ref(x[None].astype(np.float64), (2, 2), (2, 2), (0, 0, 0, 0), "avg")[0] * 4 / 3
    y = out(want.shape)
    run_ok("AvgPool2d", aclnn.tensor(x), aclnn.int_array([2]), aclnn.int_array([]),
           aclnn.int_array([0]), cbool(False), cbool(True), i64(3), i8(0), y)
    close(y.numpy(), want)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_max_pool(device, dtype):
    x = rand((1, 2, 7, 7), dtype=dtype)
    want = pool_ref(x.astype(np.float64), (3, 3), (2, 2), (1, 0, 1, 1), "max", ceil=True)
    y = out(want.shape, dtype)
    run_ok("MaxPool", aclnn.tensor(x), aclnn.int_array([3, 3]), aclnn.int_array([2, 2]), i64(0),
           aclnn.int_array([1, 0, 1, 1]), aclnn.int_array([1, 1]), i64(1), y)
    assert np.array_equal(y.numpy(), want.astype(dtype))


def test_max_pool_auto_pad_fails(device):
    run_fails("MaxPool", ACLNN_ERR_PARAM_INVALID, ["autoPad"], aclnn.tensor(rand((1, 1, 4, 4))),
              aclnn.int_array([2, 2]), aclnn.int_array([2, 2]), i64(1), aclnn.int_array([0, 0]),
              aclnn.int_array([1, 1]), i64(0), out((1, 1, 2, 2)))
