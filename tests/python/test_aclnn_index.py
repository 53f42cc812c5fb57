# SPDX-License-Identifier: MIT
"""aclnn's index operators (GatherV2, IndexSelect, Embedding, Gather,
IndexCopy, Scatter, ScatterValue and their Inplace forms, IndexFillTensor)
on the card against numpy: np.take, np.take_along_axis and assignments
written out in the test."""
import ctypes

import numpy as np
import pytest

import aclnn

ACLNN_ERR_PARAM_NULLPTR = 161001
ACLNN_ERR_PARAM_INVALID = 161002

rng = np.random.default_rng(26)
DATA_TYPES = [np.float32, np.float16, np.int8, np.int32, np.int64, np.uint8, np.bool_]
INDEX_TYPES = [np.int32, np.int64]


def rand(*shape, dtype=np.float32):
    return (rng.standard_normal(shape) * 20).astype(dtype)


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


def indices(n, shape, dtype):
    """In [-n, n): negative ones count from the end."""
    return rng.integers(-n, n, size=shape).astype(dtype)


# ---- GatherV2, IndexSelect, Embedding -------------------------------------

@pytest.mark.parametrize("dtype", DATA_TYPES)
@pytest.mark.parametrize("itype", INDEX_TYPES)
def test_gather_v2_is_np_take(device, dtype, itype):
    x = rand(4, 5, 3, dtype=dtype)
    for dim, ishape in [(0, (2, 3)), (1, (6,)), (-1, ()), (2, (2, 2))]:
        ind = indices(x.shape[dim], ishape, itype)
        want = np.take(x, ind, axis=dim)
        y = out(want.shape, dtype)
        run_ok("GatherV2", aclnn.tensor(x), dim, aclnn.tensor(ind), y)
        np.testing.assert_array_equal(y.numpy(), want)


@pytest.mark.parametrize("itype", INDEX_TYPES)
def test_index_select_keeps_the_rank(device, itype):
    x = rand(3, 7, dtype=np.float16)
    ind = np.array([6, -7, 2, 2], itype)
    y = out((3, 4), np.float16)
    run_ok("IndexSelect", aclnn.tensor(x), 1, aclnn.tensor(ind), y)
    np.testing.assert_array_equal(y.numpy(), np.take(x, ind, axis=1))
    # a scalar index selects one slice, still of self's rank
    one = np.array(-1, itype)
    y = out((1, 7), np.float16)
    run_ok("IndexSelect", aclnn.tensor(x), 0, aclnn.tensor(one), y)
    np.testing.assert_array_equal(y.numpy(), x[-1:])


def test_index_select_reads_a_transposed_view(device):
    base = rand(4, 6)
    x = aclnn.tensor(base.T, strides=(1, 6))
    ind = np.array([3, 0], np.int64)
    y = out((6, 2))
    run_ok("IndexSelect", x, 1, aclnn.tensor(ind), y)
    np.testing.assert_array_equal(y.numpy(), base.T[:, [3, 0]])


@pytest.mark.parametrize("itype", INDEX_TYPES)
def test_embedding_takes_rows(device, itype):
    w = rand(10, 6)
    ind = rng.integers(0, 10, size=(2, 3)).astype(itype)
    y = out((2, 3, 6))
    run_ok("Embedding", aclnn.tensor(w), aclnn.tensor(ind), y)
    np.testing.assert_array_equal(y.numpy(), w[ind])


def test_gather_v2_rejects_bad_arguments(device):
    x, y = aclnn.tensor(rand(4, 3)), out((2, 3))
    run_fails("GatherV2", ACLNN_ERR_PARAM_INVALID, ["index", "float"], x, 0,
              aclnn.tensor(np.zeros(2, np.float32)), y)
    run_fails("GatherV2", ACLNN_ERR_PARAM_INVALID, ["dim 2"], x, 2,
              aclnn.tensor(np.zeros(2, np.int64)), y)
    run_fails("GatherV2", ACLNN_ERR_PARAM_INVALID, ["out"], x, 0,
              aclnn.tensor(np.zeros(3, np.int64)), y)
    run_fails("GatherV2", ACLNN_ERR_PARAM_NULLPTR, ["index"], x, 0, None, y)
    run_fails("Embedding", ACLNN_ERR_PARAM_INVALID, ["weight", "2"],
              aclnn.tensor(rand(4)), aclnn.tensor(np.zeros(2, np.int64)), out((2,)))
    run_fails("IndexSelect", ACLNN_ERR_PARAM_INVALID, ["index", "1"], x, 0,
              aclnn.tensor(np.zeros((1, 2), np.int64)), out((2, 3)))


def test_an_index_out_of_range_fails_the_stream_and_leaves_out(device, stream):
    x = aclnn.tensor(rand(4, 3))
    keep = rand(2, 3)
    y = aclnn.tensor(keep)
    for bad in (4, -5, 1 << 40):
        ind = aclnn.tensor(np.array([1, bad], np.int64))
        ret, size, ex = aclnn.prepare("GatherV2", x, 0, ind, y)
        assert ret == 0 and size == 0
        assert aclnn.launch("GatherV2", None, 0, ex, stream) == 0
        assert aclnn.acl.aclrtSynchronizeStream(ctypes.c_void_p(stream)) != 0
        np.testing.assert_array_equal(y.numpy(), keep)
    # and the stream goes on
    ind = aclnn.tensor(np.array([1, -1], np.int64))
    assert aclnn.run("GatherV2", x, 0, ind, y, stream=stream) == 0
    np.testing.assert_array_equal(y.numpy(), x.numpy()[[1, -1]])


# ---- Gather (take along dim) ----------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.int64])
@pytest.mark.parametrize("itype", INDEX_TYPES)
def test_gather_is_np_take_along_axis(device, dtype, itype):
    x = rand(3, 4, 5, dtype=dtype)
    for dim in (0, 1, 2, -1):
        shape = list(x.shape)
        shape[dim] = 6
        ind = indices(x.shape[dim], shape, itype)
        y = out(ind.shape, dtype)
        run_ok("Gather", aclnn.tensor(x), dim, aclnn.tensor(ind), y)
        np.testing.assert_array_equal(y.numpy(), np.take_along_axis(x, ind, axis=dim))


def test_gather_with_an_index_smaller_than_self(device):
    x = rand(4, 5)
    ind = indices(5, (2, 3), np.int64)
    y = out((2, 3))
    run_ok("Gather", aclnn.tensor(x), 1, aclnn.tensor(ind), y)
    np.testing.assert_array_equal(y.numpy(), np.take_along_axis(x[:2], ind, axis=1))
    run_fails("Gather", ACLNN_ERR_PARAM_INVALID, ["index's dim 0"], aclnn.tensor(x), 1,
              aclnn.tensor(np.zeros((5, 1), np.int64)), out((5, 1)))


# ---- IndexCopy --------------------------------------------------------------

def index_copy_ref(x, dim, ind, src):
    y = x.copy()
    for i, at in enumerate(ind.reshape(-1)):
        dst = [slice(None)] * x.ndim
        dst[dim] = at
        take = [slice(None)] * x.ndim
        take[dim] = i
        y[tuple(dst)] = src[tuple(take)]
    return y


@pytest.mark.parametrize("dtype", DATA_TYPES)
@pytest.mark.parametrize("itype", INDEX_TYPES)
def test_index_copy_and_inplace(device, dtype, itype):
    x = rand(5, 3, dtype=dtype)
    for dim, ind in [(0, np.array([4, 0, -2], itype)), (1, np.array([2], itype))]:
        shape = list(x.shape)
        shape[dim] = len(ind)
        src = rand(*shape, dtype=dtype)
        want = index_copy_ref(x, dim, ind, src)
        self_t, y = aclnn.tensor(x), out(x.shape, dtype)
        run_ok("IndexCopy", self_t, dim, aclnn.tensor(ind), aclnn.tensor(src), y)
        np.testing.assert_array_equal(y.numpy(), want)
        np.testing.assert_array_equal(self_t.numpy(), x)
        run_ok("InplaceIndexCopy", self_t, dim, aclnn.tensor(ind), aclnn.tensor(src))
        np.testing.assert_array_equal(self_t.numpy(), want)


def test_index_copy_writes_kv_cache_rows(device):
    """ggml's SET_ROWS: rows of a cache replaced at positions."""
    cache = np.zeros((8, 2, 4), np.float16)
    rows = rand(3, 2, 4, dtype=np.float16)
    pos = np.array([5, 6, 7], np.int64)
    c = aclnn.tensor(cache)
    run_ok("InplaceIndexCopy", c, 0, aclnn.tensor(pos), aclnn.tensor(rows))
    cache[pos] = rows
    np.testing.assert_array_equal(c.numpy(), cache)


def test_index_copy_rejects_mismatched_source(device):
    x = aclnn.tensor(rand(5, 3))
    run_fails("InplaceIndexCopy", ACLNN_ERR_PARAM_INVALID, ["source"], x, 0,
              aclnn.tensor(np.array([1, 2], np.int64)), aclnn.tensor(rand(3, 3)))
    run_fails("InplaceIndexCopy", ACLNN_ERR_PARAM_INVALID, ["source", "float16"], x, 0,
              aclnn.tensor(np.array([1], np.int64)), aclnn.tensor(rand(1, 3, dtype=np.float16)))


# ---- Scatter, ScatterValue --------------------------------------------------

def scatter_ref(x, dim, ind, src, reduce):
    """In order, each result rounded into x's type, as the card stores it."""
    wide = np.float64 if x.dtype.kind == "f" else np.int64
    y = x.copy()
    for p in np.ndindex(*ind.shape):
        to = list(p)
        to[dim] = ind[p]
        to = tuple(to)
        v = wide(src[p] if isinstance(src, np.ndarray) else src)
        if reduce == 1:
            v = wide(y[to]) + v
        elif reduce == 2:
            v = wide(y[to]) * v
        y[to] = v
    return y


def unique_indices(n, shape, dim, dtype):
    """Along dim, no index twice: a replacing scatter then has one answer."""
    ind = np.argsort(rng.random(shape[:dim] + (n,) + shape[dim + 1:]), axis=dim)
    return np.take(ind, np.arange(shape[dim]), axis=dim).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.int64])
@pytest.mark.parametrize("reduce", [0, 1, 2])
def test_scatter_and_inplace(device, dtype, reduce):
    x = rand(4, 5, dtype=dtype)
    for dim in (0, 1):
        ind = unique_indices(x.shape[dim], (3, 3), dim, np.int64) if reduce == 0 else \
            indices(x.shape[dim], (3, 3), np.int32)
        src = rand(3, 4, dtype=dtype)
        want = scatter_ref(x, dim, ind, src, reduce)
        self_t, y = aclnn.tensor(x), out(x.shape, dtype)
        run_ok("Scatter", self_t, dim, aclnn.tensor(ind), aclnn.tensor(src), reduce, y)
        np.testing.assert_allclose(y.numpy(), want, rtol=1e-3)
        run_ok("InplaceScatter", self_t, dim, aclnn.tensor(ind), aclnn.tensor(src), reduce)
        np.testing.assert_allclose(self_t.numpy(), want, rtol=1e-3)


def test_scatter_value_and_inplace(device):
    x = rand(3, 4)
    ind = np.array([[0, 3], [2, 2], [1, 0]], np.int64)
    want = scatter_ref(x, 1, ind, np.float32(2.5), 1)
    y = out(x.shape)
    run_ok("ScatterValue", aclnn.tensor(x), 1, aclnn.tensor(ind), aclnn.scalar(2.5), 1, y)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-6)
    self_t = aclnn.tensor(x)
    run_ok("InplaceScatterValue", self_t, -1, aclnn.tensor(ind), aclnn.scalar(-1.0), 0)
    np.testing.assert_array_equal(self_t.numpy(), scatter_ref(x, 1, ind, np.float32(-1), 0))


def test_scatter_rejects_bad_arguments(device):
    x, y = aclnn.tensor(rand(3, 4)), out((3, 4))
    ind = aclnn.tensor(np.zeros((2, 2), np.int64))
    src = aclnn.tensor(rand(2, 2))
    run_fails("Scatter", ACLNN_ERR_PARAM_INVALID, ["reduce"], x, 0, ind, src, 3, y)
    run_fails("Scatter", ACLNN_ERR_PARAM_INVALID, ["src's"], x, 0,
              aclnn.tensor(np.zeros((3, 2), np.int64)), src, 0, y)
    run_fails("ScatterValue", ACLNN_ERR_PARAM_NULLPTR, ["value"], x, 0, ind, None, 0, y)
    run_fails("Scatter", ACLNN_ERR_PARAM_INVALID, ["index", "self"], x, 0,
              aclnn.tensor(np.zeros(2, np.int64)), src, 0, y)


# ---- IndexFillTensor -------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.bool_])
def test_index_fill_tensor_and_inplace(device, dtype):
    x = rand(4, 5, dtype=dtype)
    want = x.copy()
    want[:, [1, -1]] = 1
    y = out(x.shape, dtype)
    run_ok("IndexFillTensor", aclnn.tensor(x), 1, aclnn.int_array([1, -1]),
           aclnn.scalar(1.0), y)
    np.testing.assert_array_equal(y.numpy(), want)
    self_t = aclnn.tensor(x)
    run_ok("InplaceIndexFillTensor", self_t, 1, aclnn.int_array([1, -1]), aclnn.scalar(1.0))
    np.testing.assert_array_equal(self_t.numpy(), want)
    run_fails("InplaceIndexFillTensor", ACLNN_ERR_PARAM_INVALID, ["index 5"], self_t, 1,
              aclnn.int_array([5]), aclnn.scalar(1.0))


# ---- InplaceScatterUpdate ----------------------------------------------------

@pytest.mark.parametrize("itype", INDEX_TYPES)
def test_inplace_scatter_update_writes_a_window_per_batch(device, itype):
    data = rand(3, 2, 8, 4, dtype=np.float16)
    upd = rand(3, 2, 2, 4, dtype=np.float16)
    pos = np.array([0, 5, 3], itype)
    want = data.copy()
    for i, p in enumerate(pos):
        want[i, :, p:p + 2, :] = upd[i]
    d = aclnn.tensor(data)
    run_ok("InplaceScatterUpdate", d, aclnn.tensor(pos), aclnn.tensor(upd), -2)
    np.testing.assert_array_equal(d.numpy(), want)
    # along the last axis, one element a batch
    upd = rand(3, 2, 8, 1, dtype=np.float16)
    pos = np.array([3, 0, 1], itype)
    for i, p in enumerate(pos):
        want[i, :, :, p] = upd[i, :, :, 0]
    run_ok("InplaceScatterUpdate", d, aclnn.tensor(pos), aclnn.tensor(upd), 3)
    np.testing.assert_array_equal(d.numpy(), want)


def test_inplace_scatter_update_rejects(device):
    d = aclnn.tensor(rand(3, 8, 4))
    upd = aclnn.tensor(rand(3, 2, 4))
    run_fails("InplaceScatterUpdate", ACLNN_ERR_PARAM_INVALID, ["batch"], d,
              aclnn.tensor(np.zeros(2, np.int64)), upd, 1)
    run_fails("InplaceScatterUpdate", ACLNN_ERR_PARAM_INVALID, ["axis"], d,
              aclnn.tensor(np.zeros(3, np.int64)), upd, 0)
    run_fails("InplaceScatterUpdate", ACLNN_ERR_PARAM_INVALID, ["updates' dim 2"], d,
              aclnn.tensor(np.zeros(3, np.int64)), aclnn.tensor(rand(3, 2, 5)), 1)
    run_fails("InplaceScatterUpdate", aclnn.ACLNN_ERR_INNER_FIND_KERNEL_ERROR, ["indices"], d,
              aclnn.tensor(np.zeros((3, 2), np.int64)), upd, 1)
