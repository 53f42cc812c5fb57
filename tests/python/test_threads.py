# SPDX-License-Identifier: MIT
"""Calls that wait give up the GIL: another Python thread makes progress
while they block. A Ticker thread counts only while the blocking call has
released the GIL (see conftest.Ticker); streams are held on the card with a
gate that only another Python thread opens."""
import threading
import time

import pytest

import acl
from constants import (ACL_ERROR_RT_REPORT_TIMEOUT, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
                       ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_HOST_TO_DEVICE, ACL_SUCCESS)
from conftest import Ticker


def busy(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def opener(gate, delay=0.3):
    """A thread that opens the gate after delay: it can only run if the
    main thread's blocking call released the GIL."""
    ctx, ret = acl.rt.get_context()
    assert ret == ACL_SUCCESS

    def run():
        time.sleep(delay)
        acl.rt.set_context(ctx)
        gate.open()

    t = threading.Thread(target=run)
    t.start()
    return t


def test_the_ticker_does_not_count_while_python_holds_the_gil():
    with Ticker() as ticker:
        moved, _ = ticker.progress_during(busy, 0.2)
        assert moved == 0
        moved, _ = ticker.progress_during(time.sleep, 0.05)
        assert moved > 0


def test_synchronize_stream_releases_the_gil(device, stream, gate):
    gate.hold(stream)
    with Ticker() as ticker:
        moved, ret = ticker.progress_during(acl.rt.synchronize_stream_with_timeout, stream, 200)
        assert ret == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT and moved > 0
        t = opener(gate)
        moved, ret = ticker.progress_during(acl.rt.synchronize_stream, stream)
        t.join()
        assert ret == ACL_SUCCESS and moved > 0


def test_synchronize_event_releases_the_gil(device, stream, gate):
    ev, ret = acl.rt.create_event()
    assert ret == ACL_SUCCESS
    gate.hold(stream)
    assert acl.rt.record_event(ev, stream) == ACL_SUCCESS
    with Ticker() as ticker:
        t = opener(gate)
        moved, ret = ticker.progress_during(acl.rt.synchronize_event, ev)
        t.join()
        assert ret == ACL_SUCCESS and moved > 0
    assert acl.rt.destroy_event(ev) == ACL_SUCCESS


def test_synchronize_device_releases_the_gil(device, stream, gate):
    gate.hold(stream)
    with Ticker() as ticker:
        t = opener(gate)
        moved, ret = ticker.progress_during(acl.rt.synchronize_device)
        t.join()
        assert ret == ACL_SUCCESS and moved > 0


def test_destroy_stream_waits_without_the_gil(device, gate):
    s, ret = acl.rt.create_stream()
    assert ret == ACL_SUCCESS
    gate.hold(s)
    with Ticker() as ticker:
        t = opener(gate)
        moved, ret = ticker.progress_during(acl.rt.destroy_stream, s)
        t.join()
        assert ret == ACL_SUCCESS and moved > 0


def test_process_report_waits_without_the_gil(device, stream):
    me = threading.get_ident()
    assert acl.rt.subscribe_report(me, stream) == ACL_SUCCESS
    with Ticker() as ticker:
        moved, ret = ticker.progress_during(acl.rt.process_report, 200)
        assert ret == ACL_ERROR_RT_REPORT_TIMEOUT and moved > 0
    assert acl.rt.unsubscribe_report(me, stream) == ACL_SUCCESS


def until_moved(ticker, fn, *args, tries=5):
    """A copy may be over before the ticker wakes: tried a few times. Had
    the call kept the GIL, the ticker could not move at all."""
    for _ in range(tries):
        moved, ret = ticker.progress_during(fn, *args)
        assert ret == ACL_SUCCESS
        if moved:
            return moved
    return 0


@pytest.mark.parametrize("direction", ["h2d", "d2h"])
def test_blocking_copies_release_the_gil(device, dev_buf, direction):
    size = 32 << 20
    d = dev_buf(size)
    host = bytearray(size)
    hp = acl.util.bytes_to_ptr(host)
    if direction == "h2d":
        args = (d, size, hp, size, ACL_MEMCPY_HOST_TO_DEVICE)
    else:
        args = (hp, size, d, size, ACL_MEMCPY_DEVICE_TO_HOST)
    with Ticker() as ticker:
        assert until_moved(ticker, acl.rt.memcpy, *args) > 0


def test_blocking_fill_releases_the_gil(device, dev_buf):
    size = 32 << 20
    d = dev_buf(size)
    with Ticker() as ticker:
        assert until_moved(ticker, acl.rt.memset, d, size, 1, size) > 0


def test_stop_thread_waits_without_the_gil():
    release = threading.Event()
    tid, ret = acl.util.start_thread(lambda args: release.wait(60), [])
    assert ret == ACL_SUCCESS
    threading.Timer(0.3, release.set).start()
    with Ticker() as ticker:
        moved, ret = ticker.progress_during(acl.util.stop_thread, tid)
    assert ret == ACL_SUCCESS and moved > 0


def test_threads_share_the_runtime(device, dev_buf):
    """Four Python threads copy at once, each its own data."""
    ctx, ret = acl.rt.get_context()
    assert ret == ACL_SUCCESS
    size = 1 << 20
    bufs = [dev_buf(size) for _ in range(4)]
    errors = []

    def worker(i):
        if acl.rt.set_context(ctx) != ACL_SUCCESS:
            errors.append((i, "set_context"))
            return
        src = bytes([i + 1]) * size
        out = bytearray(size)
        for _ in range(3):
            if acl.rt.memcpy(bufs[i], size, acl.util.bytes_to_ptr(src), size,
                             ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS or \
               acl.rt.memcpy(acl.util.bytes_to_ptr(out), size, bufs[i], size,
                             ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS or out != src:
                errors.append((i, acl.get_recent_err_msg()))
                return

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
