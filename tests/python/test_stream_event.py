# SPDX-License-Identifier: MIT
"""acl.rt: streams and events. A stream is held on the card with
value_wait on a device word until the test writes the word."""
import pytest

import acl
from constants import (ACL_ERROR_INVALID_PARAM, ACL_ERROR_RT_EVENT_NOT_COMPLETE,
                       ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
                       ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                       ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, ACL_EVENT_RECORDED_STATUS_COMPLETE,
                       ACL_EVENT_RECORDED_STATUS_NOT_READY, ACL_EVENT_SYNC,
                       ACL_EVENT_CAPTURE_STREAM_PROGRESS, ACL_EVENT_STATUS_COMPLETE,
                       ACL_EVENT_TIME_LINE, ACL_STOP_ON_FAILURE, ACL_CONTINUE_ON_FAILURE,
                       ACL_STREAM_STATUS_COMPLETE, ACL_STREAM_STATUS_NOT_READY,
                       ACL_SUCCESS)
from conftest import from_device, to_device


def new_event(flag=None):
    ev, ret = acl.rt.create_event() if flag is None else acl.rt.create_event_with_flag(flag)
    assert ret == ACL_SUCCESS and ev != 0
    return ev


def test_create_and_destroy_streams(device):
    s, ret = acl.rt.create_stream()
    assert ret == ACL_SUCCESS and s != 0
    s2, ret = acl.rt.create_stream_with_config(7, 0)
    assert ret == ACL_SUCCESS and s2 not in (0, s)
    assert acl.rt.create_stream_with_config(8, 0) == (0, ACL_ERROR_INVALID_PARAM)
    id1, ret = acl.rt.stream_get_id(s)
    assert ret == ACL_SUCCESS
    assert acl.rt.stream_get_id(s2)[0] != id1
    avail, ret = acl.rt.get_stream_available_num()
    assert ret == ACL_SUCCESS and avail > 0
    assert acl.rt.destroy_stream(s) == ACL_SUCCESS
    assert acl.rt.get_stream_available_num() == (avail + 1, ACL_SUCCESS)
    assert acl.rt.destroy_stream_force(s2) == ACL_SUCCESS
    assert acl.rt.destroy_stream(s) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.destroy_stream(0) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.destroy_stream_force(0) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.synchronize_stream(s) == ACL_ERROR_INVALID_PARAM


def test_stream_query_and_synchronize(device, stream, gate):
    assert acl.rt.stream_query(stream) == (ACL_STREAM_STATUS_COMPLETE, ACL_SUCCESS)
    gate.hold(stream)
    assert acl.rt.stream_query(stream) == (ACL_STREAM_STATUS_NOT_READY, ACL_SUCCESS)
    assert acl.rt.synchronize_stream_with_timeout(stream, 30) == \
        ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    assert acl.rt.synchronize_stream_with_timeout(stream, -2) == ACL_ERROR_INVALID_PARAM
    gate.open()
    assert acl.rt.synchronize_stream(stream) == ACL_SUCCESS
    assert acl.rt.stream_query(stream) == (ACL_STREAM_STATUS_COMPLETE, ACL_SUCCESS)
    assert acl.rt.synchronize_stream_with_timeout(stream, 1000) == ACL_SUCCESS


def test_default_stream_is_zero(device, dev_buf):
    d = dev_buf(64)
    assert acl.rt.memset_async(d, 64, 0x5A, 64, 0) == ACL_SUCCESS
    assert acl.rt.synchronize_stream(0) == ACL_SUCCESS
    assert from_device(d, 64) == b"\x5a" * 64
    assert acl.rt.stream_query(0) == (ACL_STREAM_STATUS_COMPLETE, ACL_SUCCESS)


def test_stream_failure_mode_and_abort(device, stream, gate):
    assert acl.rt.set_stream_failure_mode(stream, ACL_STOP_ON_FAILURE) == ACL_SUCCESS
    assert acl.rt.set_stream_failure_mode(stream, ACL_CONTINUE_ON_FAILURE) == ACL_SUCCESS
    assert acl.rt.set_stream_failure_mode(stream, 2) == ACL_ERROR_INVALID_PARAM
    gate.hold(stream)
    assert acl.rt.stream_abort(stream) == ACL_SUCCESS
    assert acl.rt.synchronize_stream(stream) == ACL_SUCCESS
    assert acl.rt.stream_query(stream) == (ACL_STREAM_STATUS_COMPLETE, ACL_SUCCESS)
    assert acl.rt.stream_abort(0) == ACL_ERROR_INVALID_PARAM


def test_events_record_query_synchronize(device, stream, gate):
    ev = new_event()
    # never recorded: not ready, as the vendor's runtime says
    assert acl.rt.query_event_status(ev) == (ACL_EVENT_RECORDED_STATUS_NOT_READY, ACL_SUCCESS)
    gate.hold(stream)
    assert acl.rt.record_event(ev, stream) == ACL_SUCCESS
    assert acl.rt.query_event_status(ev) == (ACL_EVENT_RECORDED_STATUS_NOT_READY, ACL_SUCCESS)
    assert acl.rt.synchronize_event_with_timeout(ev, 30) == ACL_ERROR_RT_EVENT_SYNC_TIMEOUT
    assert acl.rt.synchronize_event_with_timeout(ev, -3) == ACL_ERROR_INVALID_PARAM
    gate.open()
    assert acl.rt.synchronize_event(ev) == ACL_SUCCESS
    assert acl.rt.query_event_status(ev) == (ACL_EVENT_RECORDED_STATUS_COMPLETE, ACL_SUCCESS)
    assert acl.rt.synchronize_event_with_timeout(ev, 100) == ACL_SUCCESS
    assert acl.rt.destroy_event(ev) == ACL_SUCCESS
    assert acl.rt.destroy_event(ev) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.record_event(ev, stream) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.destroy_event(0) == ACL_ERROR_INVALID_PARAM


def test_deprecated_query_event_and_wait_status(device, stream):
    ev = new_event()
    assert acl.rt.record_event(ev, stream) == ACL_SUCCESS
    assert acl.rt.synchronize_event(ev) == ACL_SUCCESS
    assert acl.rt.query_event(ev) == (ACL_EVENT_STATUS_COMPLETE, ACL_SUCCESS)
    assert acl.rt.destroy_event(ev) == ACL_SUCCESS
    # not for the events of create_event_ex_with_flag
    ev, ret = acl.rt.create_event_ex_with_flag(ACL_EVENT_CAPTURE_STREAM_PROGRESS)
    assert ret == ACL_SUCCESS
    assert acl.rt.query_event(ev)[1] == ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    assert acl.rt.query_event_wait_status(ev)[1] == ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    assert acl.rt.destroy_event(ev) == ACL_SUCCESS


def test_event_flags(device):
    for flag in (ACL_EVENT_SYNC, ACL_EVENT_TIME_LINE, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE):
        assert acl.rt.destroy_event(new_event(flag)) == ACL_SUCCESS
        ev, ret = acl.rt.create_event_ex_with_flag(flag)
        assert ret == ACL_SUCCESS
        assert acl.rt.destroy_event(ev) == ACL_SUCCESS
    assert acl.rt.create_event_with_flag(0x1000) == (0, ACL_ERROR_INVALID_PARAM)
    # ACL_EVENT_IPC (0x40) events are shareable (tests/acl/ipc_test.c); 0x80 is no flag
    ev, ret = acl.rt.create_event_ex_with_flag(0x40)
    assert ret == ACL_SUCCESS
    assert acl.rt.destroy_event(ev) == ACL_SUCCESS
    assert acl.rt.create_event_ex_with_flag(0x80) == (0, ACL_ERROR_INVALID_PARAM)


def test_event_ids_and_available_count(device, stream):
    avail, ret = acl.rt.get_event_avail_num()
    assert ret == ACL_SUCCESS and avail > 2
    # an event takes a card slot when first recorded
    events = [new_event() for _ in range(2)]
    ids = set()
    for ev in events:
        assert acl.rt.record_event(ev, stream) == ACL_SUCCESS
        event_id, ret = acl.rt.get_event_id(ev)
        assert ret == ACL_SUCCESS
        ids.add(event_id)
    assert len(ids) == 2
    assert acl.rt.get_event_avail_num() == (avail - 2, ACL_SUCCESS)
    assert acl.rt.synchronize_stream(stream) == ACL_SUCCESS
    for ev in events:
        assert acl.rt.destroy_event(ev) == ACL_SUCCESS
    assert acl.rt.get_event_avail_num() == (avail, ACL_SUCCESS)
    assert acl.rt.get_event_id(0)[1] == ACL_ERROR_INVALID_PARAM


def test_elapsed_time_and_timestamps(device, stream, dev_buf):
    a, b, never = new_event(), new_event(), new_event()
    d = dev_buf(1 << 20)
    assert acl.rt.record_event(a, stream) == ACL_SUCCESS
    assert acl.rt.memset_async(d, 1 << 20, 7, 1 << 20, stream) == ACL_SUCCESS
    assert acl.rt.record_event(b, stream) == ACL_SUCCESS
    assert acl.rt.synchronize_stream(stream) == ACL_SUCCESS
    ms, ret = acl.rt.event_elapsed_time(a, b)
    assert ret == ACL_SUCCESS and isinstance(ms, float) and ms >= 0.0
    ta, ret = acl.rt.event_get_timestamp(a)
    assert ret == ACL_SUCCESS
    tb, ret = acl.rt.event_get_timestamp(b)
    assert ret == ACL_SUCCESS and tb >= ta > 0
    # timestamps in microseconds
    assert ms == pytest.approx((tb - ta) / 1e3, abs=2e-3)
    assert acl.rt.event_elapsed_time(b, a)[1] == ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL
    assert acl.rt.event_elapsed_time(a, never)[1] in (ACL_ERROR_RT_EVENT_NOT_COMPLETE,
                                                      ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID)
    assert acl.rt.event_get_timestamp(never)[1] in (ACL_ERROR_RT_EVENT_NOT_COMPLETE,
                                                    ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID)
    for ev in (a, b, never):
        assert acl.rt.destroy_event(ev) == ACL_SUCCESS


def test_reset_event(device, stream):
    ev = new_event(ACL_EVENT_SYNC)
    assert acl.rt.record_event(ev, stream) == ACL_SUCCESS
    assert acl.rt.synchronize_stream(stream) == ACL_SUCCESS
    assert acl.rt.event_get_timestamp(ev)[1] == ACL_SUCCESS
    assert acl.rt.reset_event(ev, stream) == ACL_SUCCESS
    assert acl.rt.synchronize_stream(stream) == ACL_SUCCESS
    assert acl.rt.event_get_timestamp(ev)[1] == ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID
    plain = new_event()
    assert acl.rt.reset_event(plain, stream) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.reset_event(0, stream) == ACL_ERROR_INVALID_PARAM
    for e in (ev, plain):
        assert acl.rt.destroy_event(e) == ACL_SUCCESS


def test_stream_wait_event_orders_two_streams(device, stream, gate, dev_buf):
    other, ret = acl.rt.create_stream()
    assert ret == ACL_SUCCESS
    ev = new_event()
    d = dev_buf(4096)
    to_device(d, bytes(4096))
    gate.hold(stream)
    assert acl.rt.record_event(ev, stream) == ACL_SUCCESS
    assert acl.rt.stream_wait_event(other, ev) == ACL_SUCCESS
    assert acl.rt.memset_async(d, 4096, 0x33, 4096, other) == ACL_SUCCESS
    # the fill waits on the card for the event, which waits for the gate
    assert acl.rt.synchronize_stream_with_timeout(other, 50) == \
        ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    assert from_device(d, 4096) == bytes(4096)
    gate.open()
    assert acl.rt.synchronize_stream(other) == ACL_SUCCESS
    assert from_device(d, 4096) == b"\x33" * 4096
    assert acl.rt.stream_wait_event(other, 0) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.destroy_event(ev) == ACL_SUCCESS
    assert acl.rt.destroy_stream(other) == ACL_SUCCESS
