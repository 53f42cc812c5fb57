# SPDX-License-Identifier: MIT
"""acl.rt: device and pinned memory, copies and fills, with Python bytes,
bytearrays and pinned memory at the host end; acl.* data buffers."""
import pytest

import acl
from constants import (ACL_ERROR_HOST_MEMORY_NOT_REGISTERED, ACL_ERROR_INVALID_PARAM,
                       ACL_ERROR_RT_ADDR_UNALIGNED, ACL_ERROR_RT_MEMORY_ALLOCATION,
                       ACL_ERROR_RT_PARAM_INVALID, ACL_HBM_MEM, ACL_HOST_REGISTER_MAPPED,
                       ACL_MEMCPY_DEFAULT, ACL_MEMCPY_DEVICE_TO_DEVICE,
                       ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_HOST_TO_DEVICE,
                       ACL_MEMCPY_HOST_TO_HOST, ACL_MEM_LOCATION_TYPE_DEVICE,
                       ACL_MEM_LOCATION_TYPE_HOST, ACL_MEM_LOCATION_TYPE_UNREGISTERED,
                       ACL_MEM_MALLOC_HUGE_FIRST, ACL_MEM_MALLOC_HUGE_ONLY,
                       ACL_MEM_MALLOC_NORMAL_ONLY, ACL_SUCCESS)
from conftest import (free_device_memory, from_device, pattern, settled_device_memory,
                      to_device)


@pytest.fixture
def pinned(device):
    """A factory of pinned host buffers, freed after the test."""
    bufs = []

    def alloc(size):
        p, ret = acl.rt.malloc_host(size)
        assert ret == ACL_SUCCESS and p != 0
        bufs.append(p)
        return p

    yield alloc
    for p in bufs:
        assert acl.rt.free_host(p) == ACL_SUCCESS


@pytest.mark.parametrize("policy", [ACL_MEM_MALLOC_HUGE_FIRST, ACL_MEM_MALLOC_HUGE_ONLY,
                                    ACL_MEM_MALLOC_NORMAL_ONLY])
@pytest.mark.parametrize("alloc", [acl.rt.malloc, acl.rt.malloc_align32, acl.rt.malloc_cached])
def test_malloc_and_free_take_and_give_back_device_memory(device, alloc, policy):
    before = free_device_memory()
    p, ret = alloc(1 << 20, policy)
    assert ret == ACL_SUCCESS and p >= 1 << 56     # a device address
    assert free_device_memory() <= before - (1 << 20)
    attrs, ret = acl.rt.pointer_get_attributes(p)
    assert ret == ACL_SUCCESS
    assert attrs["location"] == {"id": 0, "type": ACL_MEM_LOCATION_TYPE_DEVICE}
    assert attrs["page_size"] == (4096 if policy == ACL_MEM_MALLOC_NORMAL_ONLY else 2 << 20)
    assert attrs["rsv"] == [0, 0, 0, 0]
    assert acl.rt.free(p) == ACL_SUCCESS
    assert settled_device_memory(before) == before
    assert acl.rt.free(p) == ACL_ERROR_INVALID_PARAM


def test_malloc_errors(device):
    _, total, ret = acl.rt.get_mem_info(ACL_HBM_MEM)
    assert ret == ACL_SUCCESS
    assert acl.rt.malloc(0, ACL_MEM_MALLOC_HUGE_FIRST) == (0, ACL_ERROR_INVALID_PARAM)
    assert acl.rt.malloc(64, 0x55) == (0, ACL_ERROR_INVALID_PARAM)
    assert acl.rt.malloc(total + 4096, ACL_MEM_MALLOC_HUGE_FIRST) == \
        (0, ACL_ERROR_RT_MEMORY_ALLOCATION)
    assert acl.rt.free(0) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.free(0x1000) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.get_mem_info(99) == (0, 0, ACL_ERROR_INVALID_PARAM)


def test_malloc_host_is_pinned_host_memory(device):
    p, ret = acl.rt.malloc_host(4096)
    assert ret == ACL_SUCCESS and 0 < p < 1 << 56
    attrs, ret = acl.rt.pointer_get_attributes(p)
    assert ret == ACL_SUCCESS and attrs["location"]["type"] == ACL_MEM_LOCATION_TYPE_HOST
    # the host reads and writes it through ptr_to_numpy / ptr_to_bytes
    arr = acl.util.ptr_to_numpy(p, (4096,), 2)
    arr[:] = 0xAB
    assert acl.util.ptr_to_bytes(p, 4096) == b"\xab" * 4096
    del arr
    assert acl.rt.free_host(p) == ACL_SUCCESS
    assert acl.rt.free_host(p) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.malloc_host(0) == (0, ACL_ERROR_INVALID_PARAM)
    assert acl.rt.free_host(0) == ACL_ERROR_INVALID_PARAM


def test_pointer_attributes_of_python_memory(device):
    data = bytes(64)
    attrs, ret = acl.rt.pointer_get_attributes(acl.util.bytes_to_ptr(data))
    assert ret == ACL_SUCCESS
    assert attrs["location"]["type"] == ACL_MEM_LOCATION_TYPE_UNREGISTERED
    assert acl.rt.pointer_get_attributes(0)[1] == ACL_ERROR_INVALID_PARAM


def test_host_register(device, dev_buf):
    buf = bytearray(pattern(8192, 5))
    ptr = acl.util.bytes_to_ptr(buf)
    dev_ptr, ret = acl.rt.host_register(ptr, len(buf), ACL_HOST_REGISTER_MAPPED)
    # the card reaches the memory in place, at a device address of its own
    assert ret == ACL_SUCCESS and dev_ptr != ptr
    d = dev_buf(8192)
    assert acl.rt.memcpy(d, 8192, dev_ptr, 8192, ACL_MEMCPY_DEVICE_TO_DEVICE) == ACL_SUCCESS
    assert from_device(d, 8192) == bytes(buf)
    to_device(d, pattern(8192, 6))
    assert acl.rt.memcpy(dev_ptr, 8192, d, 8192, ACL_MEMCPY_DEVICE_TO_DEVICE) == ACL_SUCCESS
    assert bytes(buf) == pattern(8192, 6)
    assert acl.rt.host_unregister(ptr) == ACL_SUCCESS
    assert acl.rt.host_unregister(ptr) == ACL_ERROR_HOST_MEMORY_NOT_REGISTERED
    assert acl.rt.host_register(ptr, 0, ACL_HOST_REGISTER_MAPPED) == (0, ACL_ERROR_INVALID_PARAM)


@pytest.mark.parametrize("kind", [ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEFAULT],
                         ids=["explicit-kinds", "ACL_MEMCPY_DEFAULT"])
def test_memcpy_round_trip_through_device_memory(device, dev_buf, kind):
    size = 3 << 20
    src = pattern(size, 2)
    d1, d2 = dev_buf(size), dev_buf(size)
    assert acl.rt.memcpy(d1, size, acl.util.bytes_to_ptr(src), size, kind) == ACL_SUCCESS
    assert acl.rt.memcpy(d2, size, d1, size,
                         ACL_MEMCPY_DEVICE_TO_DEVICE if kind != ACL_MEMCPY_DEFAULT else kind) \
        == ACL_SUCCESS
    out = bytearray(size)
    assert acl.rt.memcpy(acl.util.bytes_to_ptr(out), size, d2, size,
                         ACL_MEMCPY_DEVICE_TO_HOST if kind != ACL_MEMCPY_DEFAULT else kind) \
        == ACL_SUCCESS
    assert out == src


def test_memcpy_into_a_bytes_object_changes_it_in_place(device, dev_buf):
    # the vendor samples' idiom: bytes(n) as the destination of a D2H copy
    d = dev_buf(256)
    to_device(d, pattern(256, 3))
    out = bytes(256)
    before = id(out)
    assert acl.rt.memcpy(acl.util.bytes_to_ptr(out), 256, d, 256,
                         ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS
    assert id(out) == before and out == pattern(256, 3)


def test_memcpy_host_to_host(device):
    src, dst = pattern(1000, 4), bytearray(1000)
    assert acl.rt.memcpy(acl.util.bytes_to_ptr(dst), 1000, acl.util.bytes_to_ptr(src), 1000,
                         ACL_MEMCPY_HOST_TO_HOST) == ACL_SUCCESS
    assert dst == src


def test_memcpy_errors(device, dev_buf):
    d = dev_buf(64)
    h = bytes(64)
    hp = acl.util.bytes_to_ptr(h)
    assert acl.rt.memcpy(d, 63, hp, 64, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_ERROR_RT_PARAM_INVALID
    assert acl.rt.memcpy(0, 64, hp, 64, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.memcpy(d, 64, 0, 64, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.memcpy(d, 64, hp, 64, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.memcpy(d, 64, hp, 64, -1) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.memcpy(d, 64, hp, 64, 6) == ACL_ERROR_INVALID_PARAM
    message = acl.get_recent_err_msg()
    assert message and "100000" in message


def test_memcpy_async_with_pinned_memory(device, stream, dev_buf, pinned):
    size = 1 << 20
    h_in, h_out = pinned(size), pinned(size)
    acl.util.ptr_to_numpy(h_in, (size,), 2)[:] = list(pattern(256, 6)) * (size // 256)
    d = dev_buf(size)
    assert acl.rt.memcpy_async(d, size, h_in, size, ACL_MEMCPY_HOST_TO_DEVICE,
                               stream) == ACL_SUCCESS
    assert acl.rt.memcpy_async(h_out, size, d, size, ACL_MEMCPY_DEVICE_TO_HOST,
                               stream) == ACL_SUCCESS
    assert acl.rt.synchronize_stream(stream) == ACL_SUCCESS
    assert acl.util.ptr_to_bytes(h_out, size) == pattern(256, 6) * (size // 256)
    assert acl.rt.memcpy_async(d, size, h_in, size, ACL_MEMCPY_HOST_TO_DEVICE,
                               0xdead) == ACL_ERROR_INVALID_PARAM


def test_memcpy_async_with_python_memory_is_done_on_return(device, stream, dev_buf):
    src = bytearray(pattern(4096, 7))
    d = dev_buf(4096)
    assert acl.rt.memcpy_async(d, 4096, acl.util.bytes_to_ptr(src), 4096,
                               ACL_MEMCPY_DEFAULT, stream) == ACL_SUCCESS
    src[:] = bytes(4096)        # allowed: the call has finished with it
    assert acl.rt.synchronize_stream(stream) == ACL_SUCCESS
    assert from_device(d, 4096) == pattern(4096, 7)


@pytest.mark.parametrize("is_async", [False, True], ids=["memcpy2d", "memcpy2d_async"])
def test_memcpy2d_copies_a_sub_rectangle(device, stream, dev_buf, is_async):
    rows, width, spitch, dpitch = 16, 100, 128, 256
    src = pattern(rows * spitch, 8)
    d = dev_buf(rows * dpitch)
    to_device(d, bytes(rows * dpitch))
    args = (d, dpitch, acl.util.bytes_to_ptr(src), spitch, width, rows,
            ACL_MEMCPY_HOST_TO_DEVICE)
    if is_async:
        assert acl.rt.memcpy2d_async(*args, stream) == ACL_SUCCESS
        assert acl.rt.synchronize_stream(stream) == ACL_SUCCESS
    else:
        assert acl.rt.memcpy2d(*args) == ACL_SUCCESS
    out = from_device(d, rows * dpitch)
    for r in range(rows):
        assert out[r * dpitch:r * dpitch + width] == src[r * spitch:r * spitch + width]
        assert out[r * dpitch + width:(r + 1) * dpitch] == bytes(dpitch - width)
    # width wider than the pitch
    assert acl.rt.memcpy2d(d, 50, acl.util.bytes_to_ptr(src), spitch, width, rows,
                           ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS


def test_memset_and_memset_async(device, stream, dev_buf):
    d = dev_buf(8192)
    assert acl.rt.memset(d, 8192, 0x1FF, 8192) == ACL_SUCCESS     # the low byte
    assert from_device(d, 8192) == b"\xff" * 8192
    assert acl.rt.memset_async(d, 8192, 0x42, 4096, stream) == ACL_SUCCESS
    assert acl.rt.synchronize_stream(stream) == ACL_SUCCESS
    assert from_device(d, 8192) == b"\x42" * 4096 + b"\xff" * 4096
    assert acl.rt.memset(d, 10, 1, 11) == ACL_ERROR_RT_PARAM_INVALID
    assert acl.rt.memset(0, 10, 1, 10) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.memset_async(0, 10, 1, 10, stream) == ACL_ERROR_INVALID_PARAM
    # host memory is set by the host
    host = bytearray(16)
    assert acl.rt.memset(acl.util.bytes_to_ptr(host), 16, 9, 16) == ACL_SUCCESS
    assert host == b"\x09" * 16


def test_value_write_and_value_wait(device, stream, dev_buf):
    w = dev_buf(16)
    to_device(w, bytes(16))
    assert acl.rt.value_write(w, 0x1122334455667788, 0, stream) == ACL_SUCCESS
    assert acl.rt.value_wait(w, 0x1122334455667788, 1, stream) == ACL_SUCCESS    # EQ
    assert acl.rt.synchronize_stream(stream) == ACL_SUCCESS
    assert from_device(w, 8) == (0x1122334455667788).to_bytes(8, "little")
    assert acl.rt.value_write(w + 4, 1, 0, stream) == ACL_ERROR_RT_ADDR_UNALIGNED
    assert acl.rt.value_write(w, 1, 1, stream) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.value_wait(w, 1, 4, stream) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.value_write(0, 1, 0, stream) == ACL_ERROR_INVALID_PARAM
    host = bytes(8)
    assert acl.rt.value_write(acl.util.bytes_to_ptr(host), 1, 0, stream) == \
        ACL_ERROR_INVALID_PARAM


def test_data_buffers(device, dev_buf):
    d = dev_buf(1024)
    buf = acl.create_data_buffer(d, 1024)
    assert buf != 0
    assert acl.get_data_buffer_addr(buf) == d
    assert acl.get_data_buffer_size(buf) == 1024
    assert acl.get_data_buffer_size_v2(buf) == 1024
    assert acl.update_data_buffer(buf, d + 512, (1 << 32) + 8) == ACL_SUCCESS
    assert acl.get_data_buffer_addr(buf) == d + 512
    assert acl.get_data_buffer_size_v2(buf) == (1 << 32) + 8
    assert acl.get_data_buffer_size(buf) == 8       # cut to 32 bits, as in C
    assert acl.destroy_data_buffer(buf) == ACL_SUCCESS
    # a buffer may describe nothing yet
    empty = acl.create_data_buffer(0, 0)
    assert empty != 0 and acl.get_data_buffer_addr(empty) == 0
    assert acl.destroy_data_buffer(empty) == ACL_SUCCESS
    assert acl.destroy_data_buffer(0) == ACL_ERROR_INVALID_PARAM
    assert acl.update_data_buffer(0, d, 1) == ACL_ERROR_INVALID_PARAM
    assert acl.get_data_buffer_addr(0) == 0
    assert acl.get_data_buffer_size(0) == 0
    assert acl.get_data_buffer_size_v2(0) == 0
