# SPDX-License-Identifier: MIT
"""aclnn's layout operators (Cast, InplaceCopy, Permute, Slice, Cat, Repeat,
RepeatInterleave, ConstantPadNd, ReflectionPad1d/2d, UpsampleNearest2d,
UpsampleBilinear2d) on the card against numpy."""
import ctypes

import numpy as np
import pytest

import aclnn
from aclnn import out, rand, run_fails, run_ok

ACLNN_ERR_PARAM_NULLPTR = 161001
ACLNN_ERR_PARAM_INVALID = 161002
ACL_FLOAT, ACL_FLOAT16, ACL_INT32 = 0, 1, 3

i64 = ctypes.c_int64


@pytest.mark.parametrize("src,dst,acl", [(np.float32, np.float16, ACL_FLOAT16),
                                         (np.float16, np.float32, ACL_FLOAT),
                                         (np.float32, np.int32, ACL_INT32)])
def test_cast_converts_every_element(device, src, dst, acl):
    x = (rand((3, 5)) * 50).astype(src)
    y = out((3, 5), dst)
    run_ok("Cast", aclnn.tensor(x), ctypes.c_int(acl), y)
    assert np.array_equal(y.numpy(), x.astype(dst))


def test_cast_reads_a_transposed_view(device):
    base = rand((4, 6))
    x = aclnn.tensor(base.T, strides=(1, 6))
    y = out((6, 4), np.float16)
    run_ok("Cast", x, ctypes.c_int(ACL_FLOAT16), y)
    assert np.array_equal(y.numpy(), base.T.astype(np.float16))


def test_cast_of_an_empty_tensor_succeeds(device):
    run_ok("Cast", aclnn.tensor(np.zeros((0, 3), np.float32)), ctypes.c_int(ACL_FLOAT16),
           out((0, 3), np.float16))


def test_cast_to_a_type_out_does_not_have_fails(device):
    run_fails("Cast", ACLNN_ERR_PARAM_INVALID, ["out"], aclnn.tensor(rand(2)),
              ctypes.c_int(ACL_FLOAT16), out((2,)))


def test_inplace_copy_broadcasts_and_converts(device):
    src = rand(3)
    dst = aclnn.tensor(np.zeros((2, 3), np.float16))
    run_ok("InplaceCopy", dst, aclnn.tensor(src))
    assert np.array_equal(dst.numpy(), np.broadcast_to(src, (2, 3)).astype(np.float16))


def test_inplace_copy_of_a_shape_that_does_not_broadcast_fails(device):
    run_fails("InplaceCopy", ACLNN_ERR_PARAM_INVALID, ["src", "broadcast"],
              aclnn.tensor(np.zeros((2, 3), np.float32)), aclnn.tensor(rand(2)))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_permute_moves_axes(device, dtype):
    x = (rand((2, 3, 4)) * 10).astype(dtype)
    y = out((4, 2, 3), dtype)
    run_ok("Permute", aclnn.tensor(x), aclnn.int_array([-1, 0, 1]), y)
    assert np.array_equal(y.numpy(), x.transpose(2, 0, 1))


def test_permute_naming_an_axis_twice_fails(device):
    run_fails("Permute", ACLNN_ERR_PARAM_INVALID, ["twice"], aclnn.tensor(rand((2, 3))),
              aclnn.int_array([0, 0]), out((2, 3)))


def test_permute_of_a_null_tensor_fails(device):
    run_fails("Permute", ACLNN_ERR_PARAM_NULLPTR, ["self"], None, aclnn.int_array([0]),
              out((2,)))


def test_slice_takes_every_step_th_element(device):
    x = rand((5, 9))
    y = out((5, 3))
    run_ok("Slice", aclnn.tensor(x), i64(1), i64(-8), i64(100), i64(3), y)
    assert np.array_equal(y.numpy(), x[:, 1::3])


def test_slice_of_a_view_at_an_offset(device):
    values = rand((4, 6))
    x = aclnn.tensor(values, offset=4, strides=(12, 2))
    y = out((2, 6))
    run_ok("Slice", x, i64(0), i64(1), i64(3), i64(1), y)
    assert np.array_equal(y.numpy(), values[1:3])


def test_cat_joins_along_dim_and_skips_empty_vectors(device):
    parts = [rand((2, 1, 3)), rand((2, 4, 3)), rand((2, 2, 3))]
    tensors = [aclnn.tensor(p) for p in parts] + [aclnn.tensor(np.zeros(0, np.float32))]
    y = out((2, 7, 3))
    run_ok("Cat", aclnn.tensor_list(tensors), i64(1), y)
    assert np.array_equal(y.numpy(), np.concatenate(parts, axis=1))


def test_cat_of_f16(device):
    parts = [rand((3, 2), dtype=np.float16), rand((1, 2), dtype=np.float16)]
    y = out((4, 2), np.float16)
    run_ok("Cat", aclnn.tensor_list([aclnn.tensor(p) for p in parts]), i64(0), y)
    assert np.array_equal(y.numpy(), np.concatenate(parts))


def test_cat_of_mismatched_shapes_fails(device):
    run_fails("Cat", ACLNN_ERR_PARAM_INVALID, ["dim"],
              aclnn.tensor_list([aclnn.tensor(rand((2, 3))), aclnn.tensor(rand((3, 3)))]),
              i64(1), out((2, 6)))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_repeat_tiles_with_a_new_leading_axis(device, dtype):
    x = (rand((2, 1, 3)) * 10).astype(dtype)
    y = out((2, 4, 3, 6), dtype)
    run_ok("Repeat", aclnn.tensor(x), aclnn.int_array([2, 2, 3, 2]), y)
    assert np.array_equal(y.numpy(), np.tile(x, (2, 2, 3, 2)))


def test_repeat_with_fewer_repeats_than_dims_fails(device):
    run_fails("Repeat", ACLNN_ERR_PARAM_INVALID, ["repeats"], aclnn.tensor(rand((2, 3))),
              aclnn.int_array([2]), out((4, 3)))


def test_repeat_interleave_with_dim(device):
    x = rand((2, 3))
    y = out((2, 9))
    run_ok("RepeatInterleaveIntWithDim", aclnn.tensor(x), i64(3), i64(1), i64(9), y)
    assert np.array_equal(y.numpy(), np.repeat(x, 3, axis=1))


def test_repeat_interleave_flattens_a_transposed_view(device):
    base = rand((3, 2))
    y = out((12,))
    run_ok("RepeatInterleaveInt", aclnn.tensor(base.T, strides=(1, 2)), i64(2), i64(0), y)
    assert np.array_equal(y.numpy(), np.repeat(base.T.reshape(-1), 2))


def test_constant_pad_pads_and_crops(device):
    x = rand((2, 3, 4))
    y = out((2, 4, 5))
    run_ok("ConstantPadNd", aclnn.tensor(x), aclnn.int_array([2, -1, 1, 0]),
           aclnn.scalar(1.5, ACL_FLOAT), y)
    want = np.pad(x[:, :, :3], ((0, 0), (1, 0), (2, 0)), constant_values=1.5)
    assert np.array_equal(y.numpy(), want)


def test_constant_pad_of_int32(device):
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    y = out((2, 5), np.int32)
    run_ok("ConstantPadNd", aclnn.tensor(x), aclnn.int_array([1, 1]),
           aclnn.scalar(-7, ACL_INT32), y)
    assert np.array_equal(y.numpy(), np.pad(x, ((0, 0), (1, 1)), constant_values=-7))


def test_constant_pad_odd_length_fails(device):
    run_fails("ConstantPadNd", ACLNN_ERR_PARAM_INVALID, ["pad"], aclnn.tensor(rand((2, 3))),
              aclnn.int_array([1]), aclnn.scalar(0.0, ACL_FLOAT), out((2, 4)))


def test_reflection_pad1d(device):
    x = rand((2, 3, 5))
    y = out((2, 3, 9))
    run_ok("ReflectionPad1d", aclnn.tensor(x), aclnn.int_array([3, 1]), y)
    assert np.array_equal(y.numpy(), np.pad(x, ((0, 0), (0, 0), (3, 1)), mode="reflect"))


def test_reflection_pad2d(device):
    x = rand((1, 2, 4, 5))
    y = out((1, 2, 7, 7))
    run_ok("ReflectionPad2d", aclnn.tensor(x), aclnn.int_array([1, 1, 2, 1]), y)
    want = np.pad(x, ((0, 0), (0, 0), (2, 1), (1, 1)), mode="reflect")
    assert np.array_equal(y.numpy(), want)


def test_reflection_pad_as_wide_as_the_input_fails(device):
    run_fails("ReflectionPad1d", ACLNN_ERR_PARAM_INVALID, ["padding"], aclnn.tensor(rand((2, 3))),
              aclnn.int_array([3, 0]), out((2, 6)))


def nearest_ref(x, oh, ow):
    h, w = x.shape[2:]
    rows = np.floor(np.arange(oh) * (h / oh)).astype(int)
    cols = np.floor(np.arange(ow) * (w / ow)).astype(int)
    return x[:, :, rows][:, :, :, cols]


def test_upsample_nearest2d(device):
    x = rand((1, 2, 3, 4))
    y = out((1, 2, 6, 10))
    run_ok("UpsampleNearest2d", aclnn.tensor(x), aclnn.int_array([6, 10]), y)
    assert np.array_equal(y.numpy(), nearest_ref(x, 6, 10))


def bilinear_ref(x, oh, ow, align):
    h, w = x.shape[2:]

    def src(n_out, n_in):
        i = np.arange(n_out, dtype=np.float64)
        if align:
            s = i * ((n_in - 1) / (n_out - 1)) if n_out > 1 else i * 0
        else:
            s = np.maximum((i + 0.5) * (n_in / n_out) - 0.5, 0)
        lo = np.minimum(np.floor(s).astype(int), n_in - 1)
        hi = np.minimum(lo + 1, n_in - 1)
        return lo, hi, s - lo

    r0, r1, fr = src(oh, h)
    c0, c1, fc = src(ow, w)
    top = x[:, :, r0] * (1 - fr)[:, None] + x[:, :, r1] * fr[:, None]
    return top[..., c0] * (1 - fc) + top[..., c1] * fc


@pytest.mark.parametrize("align", [False, True])
def test_upsample_bilinear2d(device, align):
    x = rand((2, 1, 3, 5))
    y = out((2, 1, 7, 8))
    run_ok("UpsampleBilinear2d", aclnn.tensor(x), aclnn.int_array([7, 8]),
           ctypes.c_bool(align), ctypes.c_double(0), ctypes.c_double(0), y)
    np.testing.assert_allclose(y.numpy(), bilinear_ref(x, 7, 8, align), rtol=1e-5, atol=1e-5)


def test_upsample_of_a_3d_tensor_fails(device):
    run_fails("UpsampleNearest2d", ACLNN_ERR_PARAM_INVALID, ["dims"], aclnn.tensor(rand((2, 3, 4))),
              aclnn.int_array([4, 8]), out((2, 4, 8)))
