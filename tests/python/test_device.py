# SPDX-License-Identifier: MIT
"""acl.rt: devices and contexts, in a guest with two cards."""
import threading

import acl
from constants import (ACL_ERROR_INVALID_PARAM, ACL_ERROR_RT_CONTEXT_NULL,
                       ACL_ERROR_RT_INVALID_DEVICEID,
                       ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, ACL_HOST, ACL_RT_DEVICE_STATUS_NORMAL,
                       ACL_STREAM_WAIT_VALUE_GEQ, ACL_SUCCESS)
from conftest import to_device


def in_thread(fn):
    """fn() run in a new Python thread; what it returned."""
    out = []
    t = threading.Thread(target=lambda: out.append(fn()))
    t.start()
    t.join()
    return out[0]


def test_device_count_and_run_mode(initialized):
    assert acl.rt.get_device_count() == (2, ACL_SUCCESS)
    assert acl.rt.get_run_mode() == (ACL_HOST, ACL_SUCCESS)


def test_set_get_reset_device(initialized):
    assert acl.rt.get_device() == (0, ACL_ERROR_RT_CONTEXT_NULL)
    assert acl.rt.set_device(1) == ACL_SUCCESS
    assert acl.rt.get_device() == (1, ACL_SUCCESS)
    assert acl.rt.set_device(0) == ACL_SUCCESS
    assert acl.rt.get_device() == (0, ACL_SUCCESS)
    assert acl.rt.reset_device(0) == ACL_SUCCESS
    assert acl.rt.reset_device(1) == ACL_SUCCESS
    assert acl.rt.get_device()[1] == ACL_ERROR_RT_CONTEXT_NULL


def test_set_device_counts_references_and_force_drops_them(initialized):
    for _ in range(3):
        assert acl.rt.set_device(1) == ACL_SUCCESS
    assert acl.rt.reset_device(1) == ACL_SUCCESS
    stream, ret = acl.rt.create_stream()
    assert ret == ACL_SUCCESS
    assert acl.rt.reset_device_force(1) == ACL_SUCCESS
    # the stream went with the device
    assert acl.rt.destroy_stream(stream) == ACL_ERROR_INVALID_PARAM


def test_invalid_device_ids(initialized):
    assert acl.rt.set_device(2) == ACL_ERROR_RT_INVALID_DEVICEID
    assert acl.rt.set_device(-1) == ACL_ERROR_RT_INVALID_DEVICEID
    assert acl.rt.reset_device(1000) == ACL_ERROR_RT_INVALID_DEVICEID
    assert acl.rt.reset_device_force(-5) == ACL_ERROR_RT_INVALID_DEVICEID
    assert acl.rt.query_device_status(77)[1] == ACL_ERROR_RT_INVALID_DEVICEID
    assert acl.rt.create_context(99) == (0, ACL_ERROR_RT_INVALID_DEVICEID)
    assert acl.rt.device_get_uuid(5)[1] == ACL_ERROR_RT_INVALID_DEVICEID


def test_set_ts_device(device):
    assert acl.rt.set_ts_device(0) == ACL_SUCCESS
    assert acl.rt.set_ts_device(9) == ACL_ERROR_INVALID_PARAM


def test_device_queries(device):
    assert acl.rt.query_device_status(0) == (ACL_RT_DEVICE_STATUS_NORMAL, ACL_SUCCESS)
    assert acl.rt.query_device_status(1) == (ACL_RT_DEVICE_STATUS_NORMAL, ACL_SUCCESS)
    least, greatest, ret = acl.rt.device_get_stream_priority_range()
    assert (least, greatest, ret) == (7, 0, ACL_SUCCESS)
    total, ret = acl.rt.get_device_info(0, 301)          # ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE
    assert ret == ACL_SUCCESS and total == acl.rt.get_mem_info(1)[1]
    assert acl.rt.get_device_info(0, 12345)[1] == ACL_ERROR_INVALID_PARAM


def test_device_uuids_are_16_bytes_and_distinct(initialized):
    uuids = []
    for dev in (0, 1):
        info, ret = acl.rt.device_get_uuid(dev)
        assert ret == ACL_SUCCESS
        assert list(info) == ["bytes"] and len(info["bytes"]) == 16
        assert all(0 <= b <= 255 for b in info["bytes"]) and any(info["bytes"])
        uuids.append(info["bytes"])
    assert uuids[0] != uuids[1]


def test_peer_access_between_the_two_cards(initialized):
    assert acl.rt.device_can_access_peer(0, 1) == (1, ACL_SUCCESS)
    assert acl.rt.device_can_access_peer(0, 0) == (0, ACL_ERROR_INVALID_PARAM)
    assert acl.rt.device_can_access_peer(0, 9)[1] == ACL_ERROR_RT_INVALID_DEVICEID
    assert acl.rt.set_device(0) == ACL_SUCCESS
    assert acl.rt.device_enable_peer_access(1, 0) == ACL_SUCCESS
    # enabled twice, or disabled when not enabled: the argument is wrong
    assert acl.rt.device_enable_peer_access(1, 0) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.device_disable_peer_access(1) == ACL_SUCCESS
    assert acl.rt.device_disable_peer_access(1) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.reset_device(0) == ACL_SUCCESS


def test_synchronize_device(device, dev_buf, stream):
    word = dev_buf(8)
    to_device(word, bytes(8))
    assert acl.rt.synchronize_device() == ACL_SUCCESS
    # a stream held on the card until a word turns 1
    assert acl.rt.value_wait(word, 1, ACL_STREAM_WAIT_VALUE_GEQ, stream) == ACL_SUCCESS
    assert acl.rt.synchronize_device_with_timeout(50) == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    assert acl.rt.synchronize_device_with_timeout(-7) == ACL_ERROR_INVALID_PARAM
    to_device(word, (1).to_bytes(8, "little"))
    assert acl.rt.synchronize_device_with_timeout(-1) == ACL_SUCCESS


def test_contexts(device):
    default, ret = acl.rt.get_context()
    assert ret == ACL_SUCCESS and default != 0
    ctx1, ret = acl.rt.create_context(1)
    assert ret == ACL_SUCCESS and ctx1 not in (0, default)
    # create_context makes the new context current
    assert acl.rt.get_context() == (ctx1, ACL_SUCCESS)
    assert acl.rt.get_device() == (1, ACL_SUCCESS)
    stream1, ret = acl.rt.ctx_get_current_default_stream()
    assert ret == ACL_SUCCESS and stream1 != 0
    assert acl.rt.set_context(default) == ACL_SUCCESS
    assert acl.rt.get_device() == (0, ACL_SUCCESS)
    stream0, ret = acl.rt.ctx_get_current_default_stream()
    assert ret == ACL_SUCCESS and stream0 not in (0, stream1)
    assert acl.rt.destroy_context(ctx1) == ACL_SUCCESS
    assert acl.rt.destroy_context(ctx1) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.set_context(ctx1) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.set_context(0) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.destroy_context(0) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.get_context() == (default, ACL_SUCCESS)


def test_current_context_is_per_thread(device):
    ctx, ret = acl.rt.get_context()
    assert ret == ACL_SUCCESS
    # a new thread has none, until it sets one
    assert in_thread(acl.rt.get_context) == (0, ACL_ERROR_RT_CONTEXT_NULL)
    assert in_thread(acl.rt.create_stream) == (0, ACL_ERROR_RT_CONTEXT_NULL)
    assert in_thread(lambda: (acl.rt.set_context(ctx), acl.rt.get_device())) == \
        (ACL_SUCCESS, (0, ACL_SUCCESS))
    assert acl.rt.get_context() == (ctx, ACL_SUCCESS)
