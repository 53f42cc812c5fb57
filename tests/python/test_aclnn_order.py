# SPDX-License-Identifier: MIT
"""aclnn's order operators (Argsort, Sort, Topk, ArgMax, ArgMin, Cumsum,
CumsumV2, Roll) on the card against numpy: np.argsort(kind='stable'),
np.argmax, np.cumsum, np.roll."""
import ctypes

import numpy as np
import pytest

import aclnn

ACLNN_ERR_PARAM_NULLPTR = 161001
ACLNN_ERR_PARAM_INVALID = 161002
ACL_FLOAT, ACL_FLOAT16, ACL_INT32, ACL_INT64 = 0, 1, 3, 9

rng = np.random.default_rng(27)
SORT_TYPES = [np.float32, np.float16, np.int8, np.int32, np.int64, np.uint8]


def ties(*shape, dtype=np.float32):
    """Few distinct values, so that stability shows."""
    return rng.integers(-4, 5, size=shape).astype(dtype)


def run_ok(op, *args):
    status = aclnn.run(op, *args)
    assert status == 0, f"aclnn{op}: {status} {aclnn.err_msg()}"


def run_fails(op, code, words, *args):
    assert aclnn.run(op, *args) == code
    msg = aclnn.err_msg()
    for w in words:
        assert w in msg, msg


def out(shape, dtype=np.float32):
    return aclnn.tensor(np.zeros(shape, dtype))


def stable_argsort(x, axis, descending):
    """numpy's stable sort; descending keeps equal elements in order too."""
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    # reversed, sorted ascending stably, reversed back: ties come last-first,
    # so flip positions within the reversed array instead
    n = x.shape[axis]
    flipped = np.flip(x, axis=axis)
    order = np.argsort(flipped, axis=axis, kind="stable")
    return np.flip(n - 1 - order, axis=axis)


# ---- Argsort, Sort, Topk ----------------------------------------------------

@pytest.mark.parametrize("dtype", SORT_TYPES)
@pytest.mark.parametrize("descending", [False, True])
def test_argsort_is_stable(device, dtype, descending):
    x = ties(3, 40, 2, dtype=dtype)
    for dim in (1, 0, -1):
        y = out(x.shape, np.int64)
        run_ok("Argsort", aclnn.tensor(x), dim, descending, y)
        np.testing.assert_array_equal(y.numpy(), stable_argsort(x, dim, descending))


def test_argsort_puts_nan_last(device):
    x = np.array([2.0, np.nan, -1.0, np.nan, 2.0], np.float32)
    y = out(5, np.int64)
    run_ok("Argsort", aclnn.tensor(x), 0, False, y)
    np.testing.assert_array_equal(y.numpy(), [2, 0, 4, 1, 3])
    run_ok("Argsort", aclnn.tensor(x), 0, True, y)
    np.testing.assert_array_equal(y.numpy(), [0, 4, 2, 1, 3])


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_sort_values_and_indices(device, dtype):
    x = ties(5, 9, dtype=dtype)
    for descending in (False, True):
        v, i = out(x.shape, dtype), out(x.shape, np.int64)
        run_ok("Sort", aclnn.tensor(x), True, -1, descending, v, i)
        want = stable_argsort(x, 1, descending)
        np.testing.assert_array_equal(i.numpy(), want)
        np.testing.assert_array_equal(v.numpy(), np.take_along_axis(x, want, axis=1))


@pytest.mark.parametrize("largest", [True, False])
def test_topk(device, largest):
    x = rng.permutation(60).reshape(6, 10).astype(np.float32)
    v, i = out((6, 3)), out((6, 3), np.int64)
    run_ok("Topk", aclnn.tensor(x), 3, 1, largest, True, v, i)
    want = stable_argsort(x, 1, largest)[:, :3]
    np.testing.assert_array_equal(i.numpy(), want)
    np.testing.assert_array_equal(v.numpy(), np.take_along_axis(x, want, axis=1))


def test_sort_rejects_bad_arguments(device):
    x = aclnn.tensor(ties(4, 5))
    run_fails("Argsort", ACLNN_ERR_PARAM_INVALID, ["out", "int32"], x, 0, False,
              out((4, 5), np.int32))
    run_fails("Argsort", ACLNN_ERR_PARAM_INVALID, ["dim 2"], x, 2, False,
              out((4, 5), np.int64))
    run_fails("Topk", ACLNN_ERR_PARAM_INVALID, ["k is 6"], x, 6, 1, True, True,
              out((4, 6)), out((4, 6), np.int64))
    run_fails("Topk", ACLNN_ERR_PARAM_INVALID, ["indicesOut"], x, 2, 1, True, True,
              out((4, 2)), out((4, 3), np.int64))
    run_fails("Sort", ACLNN_ERR_PARAM_NULLPTR, [], x, True, 0, False, None,
              out((4, 5), np.int64))


# ---- ArgMax, ArgMin ------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8, np.int64])
@pytest.mark.parametrize("keepdim", [False, True])
def test_argmax_argmin_take_the_first(device, dtype, keepdim):
    x = ties(4, 6, 3, dtype=dtype)
    for op, ref in (("ArgMax", np.argmax), ("ArgMin", np.argmin)):
        for dim in (0, 1, -1):
            want = ref(x, axis=dim)
            if keepdim:
                want = np.expand_dims(want, dim)
            y = out(want.shape, np.int64)
            run_ok(op, aclnn.tensor(x), dim, keepdim, y)
            np.testing.assert_array_equal(y.numpy(), want)


def test_argmax_of_nan_and_into_int32(device):
    x = np.array([[1, np.nan, 5, np.nan], [3, 3, -1, 0]], np.float32)
    y = out(2, np.int32)
    run_ok("ArgMax", aclnn.tensor(x), 1, False, y)
    np.testing.assert_array_equal(y.numpy(), np.argmax(x, axis=1))
    run_ok("ArgMin", aclnn.tensor(x), 1, False, y)
    np.testing.assert_array_equal(y.numpy(), np.argmin(x, axis=1))


def test_argmax_rejects_bad_arguments(device):
    x = aclnn.tensor(ties(3, 4))
    run_fails("ArgMax", ACLNN_ERR_PARAM_INVALID, ["out", "float"], x, 1, False, out(3))
    run_fails("ArgMax", ACLNN_ERR_PARAM_INVALID, ["out"], x, 1, False, out(4, np.int64))
    run_fails("ArgMin", ACLNN_ERR_PARAM_INVALID, ["empty"], aclnn.tensor(ties(3, 0)), 1,
              False, out(3, np.int64))


# ---- Cumsum, CumsumV2 ------------------------------------------------------

@pytest.mark.parametrize("dtype,acl", [(np.float32, ACL_FLOAT), (np.float16, ACL_FLOAT16),
                                       (np.int32, ACL_INT32), (np.int64, ACL_INT64)])
def test_cumsum_is_np_cumsum(device, dtype, acl):
    x = ties(3, 7, 2, dtype=dtype)
    for dim in (0, 1, -1):
        y = out(x.shape, dtype)
        run_ok("Cumsum", aclnn.tensor(x), dim, ctypes.c_int(acl), y)
        np.testing.assert_allclose(y.numpy(), np.cumsum(x, axis=dim, dtype=dtype), rtol=1e-3)


def test_cumsum_into_another_type(device):
    x = ties(4, 5, dtype=np.int32)
    y = out(x.shape, np.float32)
    run_ok("Cumsum", aclnn.tensor(x), 1, ctypes.c_int(ACL_FLOAT), y)
    np.testing.assert_array_equal(y.numpy(), np.cumsum(x, axis=1).astype(np.float32))
    run_fails("Cumsum", ACLNN_ERR_PARAM_INVALID, ["out", "float16"], aclnn.tensor(x), 1,
              ctypes.c_int(ACL_FLOAT16), y)


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumsum_v2(device, exclusive, reverse):
    x = ties(4, 6)
    want = np.flip(x, 1) if reverse else x
    want = np.cumsum(want, axis=1)
    if exclusive:
        want = np.concatenate([np.zeros((4, 1), np.float32), want[:, :-1]], axis=1)
    if reverse:
        want = np.flip(want, 1)
    y = out(x.shape)
    run_ok("CumsumV2", aclnn.tensor(x), 1, exclusive, reverse, y)
    np.testing.assert_array_equal(y.numpy(), want)


# ---- Roll -------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int64, np.bool_])
def test_roll_is_np_roll(device, dtype):
    x = ties(3, 4, 5, dtype=dtype)
    for shifts, dims in [([1], [0]), ([-2, 7], [2, 1]), ([3, 0, -1], [0, 1, 2]), ([5], [])]:
        y = out(x.shape, dtype)
        run_ok("Roll", aclnn.tensor(x), aclnn.int_array(shifts), aclnn.int_array(dims), y)
        want = np.roll(x, shifts, axis=tuple(dims)) if dims else np.roll(x, shifts[0])
        np.testing.assert_array_equal(y.numpy(), want)


def test_roll_rejects_bad_arguments(device):
    x, y = aclnn.tensor(ties(3, 4)), out((3, 4))
    run_fails("Roll", ACLNN_ERR_PARAM_INVALID, ["pair"], x, aclnn.int_array([1, 2]),
              aclnn.int_array([0]), y)
    run_fails("Roll", ACLNN_ERR_PARAM_INVALID, ["twice"], x, aclnn.int_array([1, 2]),
              aclnn.int_array([0, -2]), y)
    run_fails("Roll", ACLNN_ERR_PARAM_NULLPTR, ["shifts"], x, None, aclnn.int_array([0]), y)
