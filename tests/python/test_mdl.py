# SPDX-License-Identifier: MIT
"""acl.mdl: an .om compiled by build/atc from a seeded ONNX classifier
(Gemm then Softmax) is loaded every way, described, and run; its outputs
are compared with the C API's on the same .om and input (through ctypes
in this process, and through a C program, tests/python/mdl_run.c, in its
own) and with numpy's computation of the same network, and the numpy round
trips of input and output are exact."""
import ctypes
import os
import subprocess

import numpy as np
import pytest

import acl
from conftest import from_device, to_device
from constants import (ACL_ERROR_INVALID_MODEL_ID, ACL_ERROR_INVALID_PARAM,
                       ACL_ERROR_READ_MODEL_FAILURE, ACL_FLOAT, ACL_FORMAT_NCHW, ACL_FORMAT_ND,
                       ACL_MEM_MALLOC_HUGE_FIRST, ACL_SUCCESS)

FEATURES = 16
CLASSES = 10
IN_SIZE = FEATURES * 4
OUT_SIZE = CLASSES * 4
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ATC = os.path.join(REPO, "build", "atc")


def network():
    rng = np.random.default_rng(11)
    w = rng.uniform(-1, 1, (FEATURES, CLASSES)).astype(np.float32)
    b = rng.uniform(-1, 1, (CLASSES,)).astype(np.float32)
    return w, b


def reference(x):
    w, b = network()
    z = x.astype(np.float64) @ w + b
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def c_api_run(om_path, x):
    """The same execution through libascendcl's C API (ctypes), in the
    test's context: the result acl.mdl must reproduce bit for bit."""
    lib = ctypes.CDLL(os.path.join(REPO, "build", "lib", "libascendcl.so.1"))
    vp, sz = ctypes.c_void_p, ctypes.c_size_t
    lib.aclCreateDataBuffer.restype = vp
    lib.aclCreateDataBuffer.argtypes = [vp, sz]
    lib.aclmdlCreateDataset.restype = vp
    lib.aclmdlAddDatasetBuffer.argtypes = [vp, vp]
    lib.aclmdlDestroyDataset.argtypes = [vp]
    lib.aclDestroyDataBuffer.argtypes = [vp]
    lib.aclrtMalloc.argtypes = [ctypes.POINTER(vp), sz, ctypes.c_int]
    lib.aclrtFree.argtypes = [vp]
    lib.aclrtMemcpy.argtypes = [vp, sz, vp, sz, ctypes.c_int]
    lib.aclmdlExecute.argtypes = [ctypes.c_uint32, vp, vp]
    model_id = ctypes.c_uint32()
    assert lib.aclmdlLoadFromFile(om_path.encode(), ctypes.byref(model_id)) == 0
    x = np.ascontiguousarray(x, dtype=np.float32)
    y = np.zeros((1, CLASSES), np.float32)
    dev = [vp(), vp()]
    sets, bufs = [], []
    for d, size in zip(dev, (IN_SIZE, OUT_SIZE)):
        assert lib.aclrtMalloc(ctypes.byref(d), size, ACL_MEM_MALLOC_HUGE_FIRST) == 0
        ds = lib.aclmdlCreateDataset()
        buf = lib.aclCreateDataBuffer(d, size)
        assert lib.aclmdlAddDatasetBuffer(ds, buf) == 0
        sets.append(ds)
        bufs.append(buf)
    assert lib.aclrtMemcpy(dev[0], IN_SIZE, x.ctypes.data, IN_SIZE, 1) == 0
    assert lib.aclmdlExecute(model_id.value, sets[0], sets[1]) == 0
    assert lib.aclrtMemcpy(y.ctypes.data, OUT_SIZE, dev[1], OUT_SIZE, 2) == 0
    for ds, buf, d in zip(sets, bufs, dev):
        assert lib.aclDestroyDataBuffer(buf) == 0
        assert lib.aclmdlDestroyDataset(ds) == 0
        assert lib.aclrtFree(d) == 0
    assert lib.aclmdlUnload(model_id.value) == 0
    return y


@pytest.fixture(scope="module")
def om_path(tmp_path_factory):
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    w, b = network()
    graph = helper.make_graph(
        [helper.make_node("Gemm", ["x", "w", "b"], ["z"]),
         helper.make_node("Softmax", ["z"], ["prob"], axis=1)],
        "classifier",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, FEATURES])],
        [helper.make_tensor_value_info("prob", TensorProto.FLOAT, [1, CLASSES])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    d = tmp_path_factory.mktemp("mdl")
    onnx.save(model, str(d / "net.onnx"))
    subprocess.run([ATC, "--model=%s" % (d / "net.onnx"), "--framework=5",
                    "--output=%s" % (d / "net"), "--input_format=ND"],
                   check=True, capture_output=True)
    return str(d / "net.om")


@pytest.fixture
def model(device, om_path):
    model_id, ret = acl.mdl.load_from_file(om_path)
    assert ret == ACL_SUCCESS
    yield model_id
    assert acl.mdl.unload(model_id) == ACL_SUCCESS


@pytest.fixture
def desc(model):
    d = acl.mdl.create_desc()
    assert d != 0
    assert acl.mdl.get_desc(d, model) == ACL_SUCCESS
    yield d
    assert acl.mdl.destroy_desc(d) == ACL_SUCCESS


def make_dataset(dev_buf, sizes):
    ds = acl.mdl.create_dataset()
    assert ds != 0
    for size in sizes:
        buf = acl.create_data_buffer(dev_buf(size), size)
        assert buf != 0
        out, ret = acl.mdl.add_dataset_buffer(ds, buf)
        assert (out, ret) == (ds, ACL_SUCCESS)
    return ds


def free_dataset(ds):
    for i in range(acl.mdl.get_dataset_num_buffers(ds)):
        assert acl.destroy_data_buffer(acl.mdl.get_dataset_buffer(ds, i)) == ACL_SUCCESS
    assert acl.mdl.destroy_dataset(ds) == ACL_SUCCESS


def run(model_id, dev_buf, x, stream=None):
    inp = make_dataset(dev_buf, [IN_SIZE])
    out = make_dataset(dev_buf, [OUT_SIZE])
    in_dev = acl.get_data_buffer_addr(acl.mdl.get_dataset_buffer(inp, 0))
    out_dev = acl.get_data_buffer_addr(acl.mdl.get_dataset_buffer(out, 0))
    x = np.ascontiguousarray(x, dtype=np.float32)
    ptr = acl.util.numpy_to_ptr(x)
    assert np.frombuffer(acl.util.ptr_to_bytes(ptr, IN_SIZE), np.float32).tolist() \
        == x.ravel().tolist()
    to_device(in_dev, acl.util.ptr_to_bytes(ptr, IN_SIZE))
    if stream is None:
        assert acl.mdl.execute(model_id, inp, out) == ACL_SUCCESS
    else:
        assert acl.mdl.execute_async(model_id, inp, out, stream) == ACL_SUCCESS
        assert acl.rt.synchronize_stream(stream) == ACL_SUCCESS
    host = from_device(out_dev, OUT_SIZE)
    prob = acl.util.ptr_to_numpy(acl.util.bytes_to_ptr(host), (1, CLASSES), 11).copy()
    assert prob.tobytes() == host
    free_dataset(inp)
    free_dataset(out)
    return prob


def test_execute_matches_reference(model, dev_buf):
    x = np.random.default_rng(3).uniform(-2, 2, (1, FEATURES)).astype(np.float32)
    prob = run(model, dev_buf, x)
    np.testing.assert_allclose(prob, reference(x), rtol=1e-4, atol=1e-6)
    assert int(np.argmax(prob)) == int(np.argmax(reference(x)))


def test_execute_matches_c_api(model, dev_buf, om_path):
    x = np.random.default_rng(5).uniform(-2, 2, (1, FEATURES)).astype(np.float32)
    assert run(model, dev_buf, x).tobytes() == c_api_run(om_path, x).tobytes()


def test_execute_matches_c_program(model, dev_buf, om_path, tmp_path):
    """The same .om and input through a C program in its own process
    (build/tests/python/mdl_run): acl.mdl's output, bit for bit."""
    x = np.random.default_rng(7).uniform(-2, 2, (1, FEATURES)).astype(np.float32)
    (tmp_path / "in.bin").write_bytes(x.tobytes())
    subprocess.run([os.path.join(REPO, "build", "tests", "python", "mdl_run"), om_path,
                    str(tmp_path / "in.bin"), str(tmp_path / "out.bin")],
                   check=True, capture_output=True, timeout=120)
    c_out = (tmp_path / "out.bin").read_bytes()
    assert len(c_out) == OUT_SIZE
    assert run(model, dev_buf, x).tobytes() == c_out
    np.testing.assert_allclose(np.frombuffer(c_out, np.float32).reshape(1, CLASSES),
                               reference(x), rtol=1e-4, atol=1e-6)


def test_execute_async_matches_execute(model, dev_buf, stream):
    x = np.random.default_rng(4).uniform(-2, 2, (1, FEATURES)).astype(np.float32)
    assert run(model, dev_buf, x, stream).tobytes() == run(model, dev_buf, x).tobytes()


def test_desc(desc):
    assert acl.mdl.get_num_inputs(desc) == 1
    assert acl.mdl.get_num_outputs(desc) == 1
    assert acl.mdl.get_input_size_by_index(desc, 0) == IN_SIZE
    assert acl.mdl.get_output_size_by_index(desc, 0) == OUT_SIZE
    assert acl.mdl.get_input_dims(desc, 0) == (
        {"name": "x", "dimCount": 2, "dims": [1, FEATURES]}, ACL_SUCCESS)
    dims, ret = acl.mdl.get_output_dims(desc, 0)
    assert ret == ACL_SUCCESS
    assert (dims["dimCount"], dims["dims"]) == (2, [1, CLASSES])
    assert acl.mdl.get_cur_output_dims(desc, 0) == (dims, ACL_SUCCESS)
    assert acl.mdl.get_input_name_by_index(desc, 0) == "x"
    assert acl.mdl.get_output_name_by_index(desc, 0) == dims["name"]
    assert acl.mdl.get_input_index_by_name(desc, "x") == (0, ACL_SUCCESS)
    assert acl.mdl.get_output_index_by_name(desc, dims["name"]) == (0, ACL_SUCCESS)
    assert acl.mdl.get_input_data_type(desc, 0) == ACL_FLOAT
    assert acl.mdl.get_output_data_type(desc, 0) == ACL_FLOAT
    assert acl.mdl.get_input_format(desc, 0) in (ACL_FORMAT_NCHW, 2)
    assert acl.mdl.get_output_format(desc, 0) in (ACL_FORMAT_NCHW, 2)


def test_desc_errors(desc):
    assert acl.mdl.get_input_size_by_index(desc, 1) == 0
    assert acl.mdl.get_output_size_by_index(desc, 1) == 0
    assert acl.mdl.get_input_dims(desc, 1)[1] == ACL_ERROR_INVALID_PARAM
    assert acl.mdl.get_output_dims(desc, 1)[1] == ACL_ERROR_INVALID_PARAM
    assert acl.mdl.get_cur_output_dims(desc, 1)[1] == ACL_ERROR_INVALID_PARAM
    assert acl.mdl.get_input_dims(0, 0)[1] == ACL_ERROR_INVALID_PARAM
    assert acl.mdl.get_input_name_by_index(desc, 1) == ""
    assert acl.mdl.get_output_name_by_index(desc, 1) == ""
    assert acl.mdl.get_input_index_by_name(desc, "nope")[1] != ACL_SUCCESS
    assert acl.mdl.get_output_index_by_name(desc, "nope")[1] != ACL_SUCCESS
    assert acl.mdl.get_input_data_type(desc, 1) == -1
    assert acl.mdl.get_output_data_type(desc, 1) == -1
    assert acl.mdl.get_input_format(desc, 1) == -1
    assert acl.mdl.get_output_format(desc, 1) == -1
    assert acl.mdl.get_num_inputs(0) == 0
    assert acl.mdl.get_num_outputs(0) == 0
    assert acl.mdl.get_desc(0, 0) == ACL_ERROR_INVALID_PARAM
    assert acl.mdl.destroy_desc(0) == ACL_ERROR_INVALID_PARAM
    with pytest.raises(TypeError, match="'name' must be str"):
        acl.mdl.get_input_index_by_name(desc, 0)


def test_get_desc_unknown_model(device):
    d = acl.mdl.create_desc()
    assert acl.mdl.get_desc(d, 0xfffff) == ACL_ERROR_INVALID_MODEL_ID
    assert acl.mdl.destroy_desc(d) == ACL_SUCCESS


def test_load_from_mem_and_query(device, om_path, dev_buf):
    data = open(om_path, "rb").read()
    ptr = acl.util.bytes_to_ptr(data)
    work, weight, ret = acl.mdl.query_size(om_path)
    assert ret == ACL_SUCCESS
    assert acl.mdl.query_size_from_mem(ptr, len(data)) == (work, weight, ACL_SUCCESS)
    assert weight >= (FEATURES + 1) * CLASSES * 4
    x = np.ones((1, FEATURES), np.float32)
    loads = [
        acl.mdl.load_from_mem(ptr, len(data)),
        acl.mdl.load_from_file_with_mem(om_path, dev_buf(max(work, 1)), max(work, 1),
                                        dev_buf(weight), weight),
        acl.mdl.load_from_mem_with_mem(ptr, len(data), 0, 0, dev_buf(weight), weight),
    ]
    for model_id, ret in loads:
        assert ret == ACL_SUCCESS
        np.testing.assert_allclose(run(model_id, dev_buf, x), reference(x),
                                   rtol=1e-4, atol=1e-6)
        assert acl.mdl.unload(model_id) == ACL_SUCCESS


def test_load_errors(device, om_path):
    assert acl.mdl.load_from_file("/nonexistent.om") == (0, ACL_ERROR_READ_MODEL_FAILURE)
    assert acl.mdl.query_size("/nonexistent.om")[2] == ACL_ERROR_READ_MODEL_FAILURE
    junk = bytes(64)
    ptr = acl.util.bytes_to_ptr(junk)
    model_id, ret = acl.mdl.load_from_mem(ptr, len(junk))
    assert model_id == 0 and ret != ACL_SUCCESS
    assert acl.mdl.query_size_from_mem(ptr, len(junk))[2] != ACL_SUCCESS
    assert acl.mdl.load_from_mem(0, 0)[1] == ACL_ERROR_INVALID_PARAM
    assert acl.mdl.load_from_file_with_mem("/nonexistent.om", 0, 0, 0, 0)[1] \
        == ACL_ERROR_READ_MODEL_FAILURE
    assert acl.mdl.load_from_mem_with_mem(0, 0, 0, 0, 0, 0)[1] == ACL_ERROR_INVALID_PARAM
    assert acl.mdl.unload(0xfffff) == ACL_ERROR_INVALID_MODEL_ID
    with pytest.raises(TypeError, match="'model_path' must be str"):
        acl.mdl.load_from_file(b"x.om")


def test_dataset(initialized):
    ds = acl.mdl.create_dataset()
    assert ds != 0
    assert acl.mdl.get_dataset_num_buffers(ds) == 0
    assert acl.mdl.get_dataset_buffer(ds, 0) == 0
    bufs = [acl.create_data_buffer(0x1000 * (i + 1), 16) for i in range(3)]
    for b in bufs:
        assert acl.mdl.add_dataset_buffer(ds, b) == (ds, ACL_SUCCESS)
    assert acl.mdl.get_dataset_num_buffers(ds) == 3
    assert [acl.mdl.get_dataset_buffer(ds, i) for i in range(3)] == bufs
    assert acl.mdl.get_dataset_buffer(ds, 3) == 0
    assert acl.mdl.add_dataset_buffer(ds, 0)[1] == ACL_ERROR_INVALID_PARAM
    assert acl.mdl.add_dataset_buffer(0, bufs[0])[1] == ACL_ERROR_INVALID_PARAM
    assert acl.mdl.get_dataset_num_buffers(0) == 0
    assert acl.mdl.destroy_dataset(ds) == ACL_SUCCESS
    assert acl.mdl.destroy_dataset(0) == ACL_ERROR_INVALID_PARAM
    for b in bufs:
        assert acl.destroy_data_buffer(b) == ACL_SUCCESS


def test_execute_errors(model, dev_buf, stream):
    inp = make_dataset(dev_buf, [IN_SIZE])
    out = make_dataset(dev_buf, [OUT_SIZE])
    short = make_dataset(dev_buf, [OUT_SIZE - 4])
    assert acl.mdl.execute(model, 0, out) == ACL_ERROR_INVALID_PARAM
    assert acl.mdl.execute(model, inp, 0) == ACL_ERROR_INVALID_PARAM
    assert acl.mdl.execute(0xfffff, inp, out) == ACL_ERROR_INVALID_MODEL_ID
    assert acl.mdl.execute(model, inp, short) != ACL_SUCCESS
    assert acl.mdl.execute_async(model, inp, short, stream) != ACL_SUCCESS
    assert acl.mdl.execute_async(0xfffff, inp, out, stream) == ACL_ERROR_INVALID_MODEL_ID
    for ds in (inp, out, short):
        free_dataset(ds)


def test_execute_releases_gil(model, dev_buf):
    from conftest import Ticker
    inp = make_dataset(dev_buf, [IN_SIZE])
    out = make_dataset(dev_buf, [OUT_SIZE])
    with Ticker() as t:
        moved = 0
        for _ in range(20):
            step, ret = t.progress_during(acl.mdl.execute, model, inp, out)
            assert ret == ACL_SUCCESS
            moved += step
    assert moved > 0
    free_dataset(inp)
    free_dataset(out)


def described(fill):
    d = acl.mdl.create_desc()
    assert d != 0
    assert fill(d) == ACL_SUCCESS
    summary = (acl.mdl.get_num_inputs(d), acl.mdl.get_num_outputs(d),
               acl.mdl.get_input_dims(d, 0), acl.mdl.get_output_dims(d, 0),
               acl.mdl.get_input_size_by_index(d, 0), acl.mdl.get_output_size_by_index(d, 0))
    assert acl.mdl.destroy_desc(d) == ACL_SUCCESS
    return summary


def test_desc_from_file_and_mem_match_loaded(model, om_path):
    loaded = described(lambda d: acl.mdl.get_desc(d, model))
    assert described(lambda d: acl.mdl.get_desc_from_file(d, om_path)) == loaded
    data = open(om_path, "rb").read()
    ptr = acl.util.bytes_to_ptr(data)
    assert described(lambda d: acl.mdl.get_desc_from_mem(d, ptr, len(data))) == loaded


def test_desc_from_file_needs_no_device(om_path):
    summary = described(lambda d: acl.mdl.get_desc_from_file(d, om_path))
    assert summary[:2] == (1, 1)
    assert summary[4:] == (IN_SIZE, OUT_SIZE)


def test_desc_from_errors(om_path):
    d = acl.mdl.create_desc()
    assert acl.mdl.get_desc_from_file(d, "/nonexistent.om") == ACL_ERROR_READ_MODEL_FAILURE
    assert acl.mdl.get_desc_from_file(0, om_path) == ACL_ERROR_INVALID_PARAM
    junk = bytes(64)
    assert acl.mdl.get_desc_from_mem(d, acl.util.bytes_to_ptr(junk), len(junk)) \
        != ACL_SUCCESS
    assert acl.mdl.get_desc_from_mem(d, 0, 64) == ACL_ERROR_INVALID_PARAM
    assert acl.mdl.get_desc_from_mem(d, acl.util.bytes_to_ptr(junk), 0) \
        == ACL_ERROR_INVALID_PARAM
    assert acl.mdl.destroy_desc(d) == ACL_SUCCESS
    with pytest.raises(TypeError,
                       match=r"acl.mdl.get_desc_from_file\(\) argument 'model_path' must be str"):
        acl.mdl.get_desc_from_file(d, None)
    with pytest.raises(TypeError, match="argument 'model_size' must be int"):
        acl.mdl.get_desc_from_mem(d, 0, "64")


def test_input_dims_v2(desc):
    assert acl.mdl.get_input_dims_v2(desc, 0) == acl.mdl.get_input_dims(desc, 0)
    dims, ret = acl.mdl.get_input_dims_v2(desc, 0)
    assert ret == ACL_SUCCESS
    assert int(np.prod(dims["dims"])) * 4 == acl.mdl.get_input_size_by_index(desc, 0)
    assert acl.mdl.get_input_dims_v2(desc, 1)[1] == ACL_ERROR_INVALID_PARAM
    assert acl.mdl.get_input_dims_v2(0, 0)[1] == ACL_ERROR_INVALID_PARAM


def test_dataset_tensor_desc(initialized):
    ds = acl.mdl.create_dataset()
    bufs = [acl.create_data_buffer(0x1000 * (i + 1), 16) for i in range(2)]
    for b in bufs:
        assert acl.mdl.add_dataset_buffer(ds, b) == (ds, ACL_SUCCESS)
    td = acl.create_tensor_desc(ACL_FLOAT, [1, 4], ACL_FORMAT_ND)
    assert acl.mdl.get_dataset_tensor_desc(ds, 1) == 0
    assert acl.mdl.set_dataset_tensor_desc(ds, td, 1) == (ds, ACL_SUCCESS)
    assert acl.mdl.get_dataset_tensor_desc(ds, 1) == td
    assert acl.mdl.get_dataset_tensor_desc(ds, 0) == 0
    assert acl.mdl.get_dataset_tensor_desc(ds, 2) == 0
    assert acl.mdl.get_dataset_tensor_desc(0, 0) == 0
    assert acl.mdl.set_dataset_tensor_desc(ds, td, 2)[1] == ACL_ERROR_INVALID_PARAM
    assert acl.mdl.set_dataset_tensor_desc(ds, 0, 0)[1] == ACL_ERROR_INVALID_PARAM
    assert acl.mdl.set_dataset_tensor_desc(0, td, 0)[1] == ACL_ERROR_INVALID_PARAM
    assert acl.mdl.set_dataset_tensor_desc(dataset=ds, tensorDesc=td, index=0) \
        == (ds, ACL_SUCCESS)
    with pytest.raises(TypeError, match="argument 'tensorDesc' must be int"):
        acl.mdl.set_dataset_tensor_desc(ds, "td", 0)
    assert acl.mdl.destroy_dataset(ds) == ACL_SUCCESS
    # The dataset referred to the description: it is still the caller's.
    assert acl.get_tensor_desc_dim_v2(td, 1) == (4, ACL_SUCCESS)
    acl.destroy_tensor_desc(td)
    for b in bufs:
        assert acl.destroy_data_buffer(b) == ACL_SUCCESS


def test_execute_with_tensor_descs_matches_c_api(model, dev_buf, om_path):
    """The dataset shape of the vendor's dynamic-shape flow: each buffer
    carries a tensor description of its (here static) shape."""
    x = np.random.default_rng(6).uniform(-2, 2, (1, FEATURES)).astype(np.float32)
    inp = make_dataset(dev_buf, [IN_SIZE])
    out = make_dataset(dev_buf, [OUT_SIZE])
    tds = [acl.create_tensor_desc(ACL_FLOAT, [1, n], ACL_FORMAT_ND) for n in (FEATURES, CLASSES)]
    for ds, td in zip((inp, out), tds):
        assert acl.mdl.set_dataset_tensor_desc(ds, td, 0) == (ds, ACL_SUCCESS)
    to_device(acl.get_data_buffer_addr(acl.mdl.get_dataset_buffer(inp, 0)), x.tobytes())
    assert acl.mdl.execute(model, inp, out) == ACL_SUCCESS
    y = from_device(acl.get_data_buffer_addr(acl.mdl.get_dataset_buffer(out, 0)), OUT_SIZE)
    assert y == c_api_run(om_path, x).tobytes()
    out_td = acl.mdl.get_dataset_tensor_desc(out, 0)
    assert acl.get_tensor_desc_size(out_td) == OUT_SIZE
    free_dataset(inp)
    free_dataset(out)
    for td in tds:
        acl.destroy_tensor_desc(td)
