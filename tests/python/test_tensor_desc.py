# SPDX-License-Identifier: MIT
"""acl.*_tensor_desc*: tensor descriptions, host objects that need neither
aclInit nor a device. Each call's good path, the values it reads back
after each setter, and its documented failures (NULL description, bad
index, bad shape), with the Python argument checks."""
import numpy as np
import pytest

import acl
from constants import (ACL_DT_UNDEFINED, ACL_ERROR_INVALID_PARAM, ACL_FLOAT, ACL_FLOAT16,
                       ACL_FORMAT_NCHW, ACL_FORMAT_ND, ACL_FORMAT_UNDEFINED, ACL_INT32,
                       ACL_SUCCESS)

ACL_FORMAT_NHWC = 1
ACL_MEMTYPE_DEVICE = 0
ACL_MEMTYPE_HOST = 1
ACL_UNKNOWN_RANK = 0xFFFFFFFFFFFFFFFE


@pytest.fixture
def desc():
    d = acl.create_tensor_desc(ACL_FLOAT, [2, 3, 4], ACL_FORMAT_NCHW)
    assert d != 0
    yield d
    acl.destroy_tensor_desc(d)


def dims_of(d):
    n = acl.get_tensor_desc_num_dims(d)
    out = []
    for i in range(n):
        dim, ret = acl.get_tensor_desc_dim_v2(d, i)
        assert ret == ACL_SUCCESS
        out.append(dim)
    return out


def test_create_reads_back(desc):
    assert acl.get_tensor_desc_type(desc) == ACL_FLOAT
    assert acl.get_tensor_desc_format(desc) == ACL_FORMAT_NCHW
    assert acl.get_tensor_desc_num_dims(desc) == 3
    assert dims_of(desc) == [2, 3, 4]
    assert [acl.get_tensor_desc_dim(desc, i) for i in range(3)] == [2, 3, 4]
    assert acl.get_tensor_desc_element_count(desc) == 24
    assert acl.get_tensor_desc_size(desc) == 24 * 4
    assert acl.get_tensor_desc_name(desc) == ""
    assert acl.get_tensor_desc_address(desc) == 0


def test_create_scalar_tuple_and_numpy_dims():
    scalar = acl.create_tensor_desc(ACL_INT32, [], ACL_FORMAT_ND)
    assert scalar != 0
    assert acl.get_tensor_desc_num_dims(scalar) == 0
    assert acl.get_tensor_desc_element_count(scalar) == 1
    assert acl.get_tensor_desc_size(scalar) == 4
    acl.destroy_tensor_desc(scalar)
    # Shapes often come from numpy: a tuple of numpy ints works as a list.
    shape = np.zeros((5, 7), np.float16).shape
    d = acl.create_tensor_desc(ACL_FLOAT16, tuple(np.int64(v) for v in shape), ACL_FORMAT_ND)
    assert dims_of(d) == [5, 7]
    assert acl.get_tensor_desc_size(d) == 5 * 7 * 2
    acl.destroy_tensor_desc(d)


def test_create_empty_tensor():
    d = acl.create_tensor_desc(ACL_FLOAT, [4, 0], ACL_FORMAT_ND)
    assert d != 0
    assert acl.get_tensor_desc_element_count(d) == 0
    assert acl.get_tensor_desc_size(d) == 0
    acl.destroy_tensor_desc(d)


def test_unknown_dims_and_rank():
    d = acl.create_tensor_desc(ACL_FLOAT, [16, -1], ACL_FORMAT_ND)
    assert d != 0
    assert acl.get_tensor_desc_dim_v2(d, 1) == (-1, ACL_SUCCESS)
    assert acl.get_tensor_desc_size(d) == 0
    assert acl.get_tensor_desc_element_count(d) == 0
    acl.destroy_tensor_desc(d)
    d = acl.create_tensor_desc(ACL_FLOAT, [-2], ACL_FORMAT_ND)
    assert acl.get_tensor_desc_num_dims(d) == ACL_UNKNOWN_RANK
    assert acl.get_tensor_desc_dim_v2(d, 0)[1] == ACL_ERROR_INVALID_PARAM
    assert acl.get_tensor_desc_dim_range(d, 0, 2) == ([], ACL_ERROR_INVALID_PARAM)
    acl.destroy_tensor_desc(d)


def test_create_errors():
    assert acl.create_tensor_desc(ACL_FLOAT, [2, -3], ACL_FORMAT_ND) == 0
    assert "dim 1" in acl.get_recent_err_msg()
    assert acl.create_tensor_desc(ACL_FLOAT, [-2, 4], ACL_FORMAT_ND) == 0
    assert acl.create_tensor_desc(ACL_FLOAT, [1] * 129, ACL_FORMAT_ND) == 0


def test_null_desc():
    assert acl.get_tensor_desc_type(0) == ACL_DT_UNDEFINED
    assert acl.get_tensor_desc_format(0) == ACL_FORMAT_UNDEFINED
    assert acl.get_tensor_desc_num_dims(0) == 0
    assert acl.get_tensor_desc_size(0) == 0
    assert acl.get_tensor_desc_element_count(0) == 0
    assert acl.get_tensor_desc_dim(0, 0) == -1
    assert acl.get_tensor_desc_dim_v2(0, 0) == (0, ACL_ERROR_INVALID_PARAM)
    assert acl.get_tensor_desc_dim_range(0, 0, 2) == ([], ACL_ERROR_INVALID_PARAM)
    assert acl.get_tensor_desc_name(0) == ""
    assert acl.get_tensor_desc_address(0) == 0
    assert acl.set_tensor_desc_name(0, "x") is None
    for setter in (acl.set_tensor_shape, acl.set_tensor_origin_shape,
                   acl.set_tensor_storage_shape):
        assert setter(0, [1]) == ACL_ERROR_INVALID_PARAM
    for setter in (acl.set_tensor_format, acl.set_tensor_origin_format,
                   acl.set_tensor_storage_format):
        assert setter(0, ACL_FORMAT_ND) == ACL_ERROR_INVALID_PARAM
    assert acl.set_tensor_shape_range(0, [[1, 2]]) == ACL_ERROR_INVALID_PARAM
    assert acl.set_tensor_value_range(0, [[1, 2]]) == ACL_ERROR_INVALID_PARAM
    assert acl.set_tensor_dynamic_input(0, "x") == ACL_ERROR_INVALID_PARAM
    assert acl.set_tensor_place_ment(0, ACL_MEMTYPE_HOST) == ACL_ERROR_INVALID_PARAM
    data = bytes(4)
    assert acl.set_tensor_const(0, acl.util.bytes_to_ptr(data), 4) == ACL_ERROR_INVALID_PARAM
    assert acl.destroy_tensor_desc(0) is None


def test_bad_index(desc):
    assert acl.get_tensor_desc_dim(desc, 3) == -1
    assert acl.get_tensor_desc_dim_v2(desc, 3)[1] == ACL_ERROR_INVALID_PARAM
    assert acl.get_tensor_desc_dim_range(desc, 3, 2) == ([], ACL_ERROR_INVALID_PARAM)


def test_set_shape_and_format(desc):
    assert acl.set_tensor_shape(desc, [6, 5]) == ACL_SUCCESS
    assert dims_of(desc) == [6, 5]
    assert acl.get_tensor_desc_size(desc) == 30 * 4
    assert acl.set_tensor_storage_shape(desc, [8]) == ACL_SUCCESS
    assert dims_of(desc) == [8]
    assert acl.set_tensor_format(desc, ACL_FORMAT_NHWC) == ACL_SUCCESS
    assert acl.get_tensor_desc_format(desc) == ACL_FORMAT_NHWC
    assert acl.set_tensor_storage_format(desc, ACL_FORMAT_ND) == ACL_SUCCESS
    assert acl.get_tensor_desc_format(desc) == ACL_FORMAT_ND
    # The origin shape and format leave the shape and format alone.
    assert acl.set_tensor_origin_shape(desc, [2, 4]) == ACL_SUCCESS
    assert acl.set_tensor_origin_format(desc, ACL_FORMAT_NCHW) == ACL_SUCCESS
    assert dims_of(desc) == [8]
    assert acl.get_tensor_desc_format(desc) == ACL_FORMAT_ND
    # A rejected shape leaves the old one.
    assert acl.set_tensor_shape(desc, [3, -5]) == ACL_ERROR_INVALID_PARAM
    assert acl.set_tensor_origin_shape(desc, [1] * 129) == ACL_ERROR_INVALID_PARAM
    assert dims_of(desc) == [8]


def test_shape_range(desc):
    assert acl.set_tensor_shape(desc, [16, -1, 20, -1]) == ACL_SUCCESS
    ranges = [[16, 16], [1, 128], [20, 20], [1, 10]]
    assert acl.set_tensor_shape_range(desc, ranges) == ACL_SUCCESS
    assert [acl.get_tensor_desc_dim_range(desc, i, 2) for i in range(4)] == \
        [(r, ACL_SUCCESS) for r in ranges]
    # dim_range_num is the caller's buffer length: 2 at least, more is fine.
    assert acl.get_tensor_desc_dim_range(desc, 1, 8) == ([1, 128], ACL_SUCCESS)
    assert acl.get_tensor_desc_dim_range(desc, 1, 1) == ([], ACL_ERROR_INVALID_PARAM)
    assert acl.set_tensor_shape_range(desc, [[1, 2]] * 129) == ACL_ERROR_INVALID_PARAM
    assert acl.set_tensor_shape_range(desc, []) == ACL_SUCCESS
    # Without ranges a dim's range is the dim itself.
    assert acl.get_tensor_desc_dim_range(desc, 0, 2) == ([16, 16], ACL_SUCCESS)


def test_value_range(desc):
    assert acl.set_tensor_value_range(desc, ((1, 4), (2, 8))) == ACL_SUCCESS
    assert acl.set_tensor_value_range(desc, [[0, 1]] * 129) == ACL_ERROR_INVALID_PARAM


def test_name(desc):
    acl.set_tensor_desc_name(desc, "input_0")
    assert acl.get_tensor_desc_name(desc) == "input_0"
    acl.set_tensor_desc_name(desc, "entrée")
    assert acl.get_tensor_desc_name(desc) == "entrée"
    acl.set_tensor_desc_name(desc, None)
    assert acl.get_tensor_desc_name(desc) == ""


def test_dynamic_input_and_placement(desc):
    assert acl.set_tensor_dynamic_input(desc, "x") == ACL_SUCCESS
    assert acl.set_tensor_place_ment(desc, ACL_MEMTYPE_HOST) == ACL_SUCCESS
    assert acl.set_tensor_place_ment(desc, ACL_MEMTYPE_DEVICE) == ACL_SUCCESS
    assert acl.set_tensor_place_ment(desc, 7) == ACL_ERROR_INVALID_PARAM


def test_const_is_copied(desc):
    values = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    assert acl.set_tensor_const(desc, acl.util.numpy_to_ptr(values), values.nbytes) \
        == ACL_SUCCESS
    addr = acl.get_tensor_desc_address(desc)
    assert addr not in (0, acl.util.numpy_to_ptr(values))
    values[:] = -1
    del values
    back = acl.util.ptr_to_numpy(addr, (2, 3, 4), 11)
    assert back.tolist() == np.arange(24, dtype=np.float32).reshape(2, 3, 4).tolist()
    # New const data replaces the old.
    data = b"\x01\x02\x03\x04"
    assert acl.set_tensor_const(desc, acl.util.bytes_to_ptr(data), 4) == ACL_SUCCESS
    assert acl.util.ptr_to_bytes(acl.get_tensor_desc_address(desc), 4) == data
    assert acl.set_tensor_const(desc, acl.util.bytes_to_ptr(data), 0) == ACL_ERROR_INVALID_PARAM
    assert acl.set_tensor_const(desc, 0, 4) == ACL_ERROR_INVALID_PARAM


def test_const_rejects_device_address(desc):
    with pytest.raises(ValueError, match="acl.set_tensor_const"):
        acl.set_tensor_const(desc, 1 << 56, 4)


@pytest.mark.parametrize("call,message", [
    (lambda: acl.create_tensor_desc("0", [1], 0),
     "acl.create_tensor_desc() argument 'data_type' must be int, not str"),
    (lambda: acl.create_tensor_desc(0, 3, 0),
     "acl.create_tensor_desc() argument 'dims' must be a list of int, not int"),
    (lambda: acl.create_tensor_desc(0, "12", 0),
     "acl.create_tensor_desc() argument 'dims' must be a list of int, not str"),
    (lambda: acl.create_tensor_desc(0, [1, 2.5], 0),
     "acl.create_tensor_desc() argument 'dims[1]' must be int, not float"),
    (lambda: acl.create_tensor_desc(0, [1], None),
     "acl.create_tensor_desc() argument 'format' must be int, not NoneType"),
    (lambda: acl.destroy_tensor_desc("d"),
     "acl.destroy_tensor_desc() argument 'desc' must be int (a pointer or handle), not str"),
    (lambda: acl.get_tensor_desc_dim_v2(0, "1"),
     "acl.get_tensor_desc_dim_v2() argument 'index' must be int, not str"),
    (lambda: acl.set_tensor_shape(0, None),
     "acl.set_tensor_shape() argument 'dims' must be a list of int, not NoneType"),
    (lambda: acl.set_tensor_shape_range(0, [[1, 2], 3]),
     "acl.set_tensor_shape_range() argument 'dims_range[1]' must be a list of int, not int"),
    (lambda: acl.set_tensor_value_range(0, [[1, "2"]]),
     "acl.set_tensor_value_range() argument 'value_range[0][1]' must be int, not str"),
    (lambda: acl.set_tensor_desc_name(0, 5),
     "acl.set_tensor_desc_name() argument 'name' must be str or None, not int"),
    (lambda: acl.set_tensor_dynamic_input(0, None),
     "acl.set_tensor_dynamic_input() argument 'dynamic_input_name' must be str, not NoneType"),
    (lambda: acl.set_tensor_const(0, b"ab", 2),
     "acl.set_tensor_const() argument 'dataBuffer' must be int (a pointer or handle), not bytes"),
    (lambda: acl.set_tensor_place_ment(0, 1.0),
     "acl.set_tensor_place_ment() argument 'mem_type' must be int, not float"),
])
def test_type_errors(call, message):
    with pytest.raises(TypeError) as e:
        call()
    assert str(e.value) == message


def test_range_errors():
    with pytest.raises(ValueError, match=r"'dims_range\[0\]' has 3 values, not 2"):
        acl.set_tensor_shape_range(0, [[1, 2, 3]])
    with pytest.raises(OverflowError, match=r"'dims\[0\]' is out of range for int64_t"):
        acl.create_tensor_desc(0, [1 << 63], 0)
    with pytest.raises(OverflowError, match="'format' is out of range for int32_t"):
        acl.set_tensor_format(0, 1 << 31)


def test_keywords_are_the_vendors():
    d = acl.create_tensor_desc(data_type=ACL_FLOAT, dims=[3], format=ACL_FORMAT_ND)
    assert acl.get_tensor_desc_dim_v2(desc=d, index=0) == (3, ACL_SUCCESS)
    assert acl.get_tensor_desc_dim_range(desc=d, index=0, dim_range_num=2) == \
        ([3, 3], ACL_SUCCESS)
    assert acl.set_tensor_shape_range(desc=d, dims_range=[[1, 3]]) == ACL_SUCCESS
    data = bytes(12)
    assert acl.set_tensor_const(desc=d, dataBuffer=acl.util.bytes_to_ptr(data), length=12) \
        == ACL_SUCCESS
    assert acl.set_tensor_place_ment(desc=d, mem_type=ACL_MEMTYPE_HOST) == ACL_SUCCESS
    assert acl.set_tensor_dynamic_input(desc=d, dynamic_input_name="x") == ACL_SUCCESS
    acl.destroy_tensor_desc(desc=d)
