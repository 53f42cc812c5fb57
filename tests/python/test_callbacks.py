# SPDX-License-Identifier: MIT
"""acl.rt: Python callbacks in streams (launch_callback with the threads
that serve it, launch_host_func), acl.util.start_thread/stop_thread, and
what a callback that raises does (nothing fatal)."""
import gc
import sys
import threading
import time
import weakref

import pytest

import acl
from constants import (ACL_CALLBACK_BLOCK, ACL_CALLBACK_NO_BLOCK, ACL_ERROR_INVALID_PARAM,
                       ACL_ERROR_RT_REPORT_TIMEOUT, ACL_ERROR_RT_STREAM_NO_CB_REG,
                       ACL_ERROR_RT_STREAM_SUBSCRIBE, ACL_ERROR_RT_THREAD_SUBSCRIBE,
                       ACL_ERROR_STREAM_NOT_SUBSCRIBE, ACL_STREAM_STATUS_COMPLETE,
                       ACL_STREAM_STATUS_NOT_READY, ACL_SUCCESS)
from conftest import from_device, unraisable_caught


class Server:
    """A Python thread that serves a stream's callbacks (process_report in a
    loop), as the vendor's samples do."""

    def __init__(self, stream):
        self.stream = stream
        self.ctx, ret = acl.rt.get_context()
        assert ret == ACL_SUCCESS
        self.codes = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve)

    def _serve(self):
        self.codes.add(acl.rt.set_context(self.ctx))
        while not self._stop.is_set():
            self.codes.add(acl.rt.process_report(50))

    def __enter__(self):
        self._thread.start()
        assert acl.rt.subscribe_report(self._thread.ident, self.stream) == ACL_SUCCESS
        return self

    def __exit__(self, *exc):
        assert acl.rt.unsubscribe_report(self._thread.ident, self.stream) == ACL_SUCCESS
        self._stop.set()
        self._thread.join()
        assert self.codes <= {ACL_SUCCESS, ACL_ERROR_RT_REPORT_TIMEOUT,
                              ACL_ERROR_RT_THREAD_SUBSCRIBE}

    @property
    def ident(self):
        return self._thread.ident


def refcounts(*objs):
    return [sys.getrefcount(o) for o in objs]


def test_callbacks_run_in_order_in_the_subscribed_thread(device, stream):
    ran = []

    def cb(data):
        ran.append((data[0], threading.get_ident()))

    with Server(stream) as server:
        blocks = [ACL_CALLBACK_NO_BLOCK, ACL_CALLBACK_BLOCK] * 3
        for i, block in enumerate(blocks):
            assert acl.rt.launch_callback(cb, [i], block, stream) == ACL_SUCCESS
        # the last callback blocks the stream: after it, all have run
        assert acl.rt.synchronize_stream(stream) == ACL_SUCCESS
        assert ran == [(i, server.ident) for i in range(len(blocks))]


def test_blocking_callback_holds_the_stream_until_it_returns(device, stream, dev_buf):
    d = dev_buf(4096)
    assert acl.rt.memset(d, 4096, 0, 4096) == ACL_SUCCESS
    go = threading.Event()
    with Server(stream):
        assert acl.rt.launch_callback(lambda _: go.wait(60), None, ACL_CALLBACK_BLOCK,
                                      stream) == ACL_SUCCESS
        assert acl.rt.memset_async(d, 4096, 0x77, 4096, stream) == ACL_SUCCESS
        time.sleep(0.2)
        assert acl.rt.stream_query(stream) == (ACL_STREAM_STATUS_NOT_READY, ACL_SUCCESS)
        assert from_device(d, 4096) == bytes(4096)
        go.set()
        assert acl.rt.synchronize_stream(stream) == ACL_SUCCESS
    assert from_device(d, 4096) == b"\x77" * 4096


class Payload:
    pass


def test_callback_and_data_are_kept_alive_until_the_callback_ran(device, stream):
    go = threading.Event()
    seen = []

    def cb(d):
        go.wait(60)
        seen.append(type(d))

    data = Payload()
    refs = weakref.ref(cb), weakref.ref(data)
    with Server(stream):
        assert acl.rt.launch_callback(cb, data, ACL_CALLBACK_BLOCK, stream) == ACL_SUCCESS
        del cb, data
        gc.collect()
        assert all(r() is not None for r in refs)
        go.set()
        assert acl.rt.synchronize_stream(stream) == ACL_SUCCESS
    gc.collect()
    assert seen == [Payload]
    assert all(r() is None for r in refs)


def test_a_raising_callback_is_reported_and_the_stream_goes_on(device, stream, dev_buf):
    d = dev_buf(64)
    ran = []

    def bad(data):
        raise ValueError("callback failed on purpose")

    with unraisable_caught() as seen, Server(stream):
        assert acl.rt.launch_callback(bad, [1], ACL_CALLBACK_BLOCK, stream) == ACL_SUCCESS
        assert acl.rt.launch_callback(ran.append, 2, ACL_CALLBACK_BLOCK,
                                      stream) == ACL_SUCCESS
        assert acl.rt.memset_async(d, 64, 5, 64, stream) == ACL_SUCCESS
        assert acl.rt.synchronize_stream(stream) == ACL_SUCCESS
    assert seen == [(ValueError, "callback failed on purpose", bad)]
    assert ran == [2]
    assert from_device(d, 64) == b"\x05" * 64


def test_callback_errors(device, stream):
    fn, data = (lambda d: None), ["x"]
    before = refcounts(fn, data)
    # nobody subscribed: the record is released at once
    assert acl.rt.launch_callback(fn, data, ACL_CALLBACK_BLOCK, stream) == \
        ACL_ERROR_RT_STREAM_NO_CB_REG
    assert acl.rt.launch_callback(fn, data, 5, stream) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.launch_callback(fn, data, ACL_CALLBACK_BLOCK, 0xbad) == \
        ACL_ERROR_INVALID_PARAM
    assert refcounts(fn, data) == before
    me = threading.get_ident()
    assert acl.rt.process_report(100) == ACL_ERROR_RT_THREAD_SUBSCRIBE
    assert acl.rt.process_report(0) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.process_report(-2) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.subscribe_report(me, stream) == ACL_SUCCESS
    assert acl.rt.subscribe_report(me, stream) == ACL_ERROR_RT_STREAM_SUBSCRIBE
    assert acl.rt.process_report(30) == ACL_ERROR_RT_REPORT_TIMEOUT
    assert acl.rt.unsubscribe_report(me + 1, stream) == ACL_ERROR_STREAM_NOT_SUBSCRIBE
    assert acl.rt.unsubscribe_report(me, stream) == ACL_SUCCESS
    assert acl.rt.unsubscribe_report(me, stream) == ACL_ERROR_STREAM_NOT_SUBSCRIBE


def test_callbacks_served_by_the_calling_thread_itself(device, stream):
    me = threading.get_ident()
    ran = []
    assert acl.rt.subscribe_report(me, stream) == ACL_SUCCESS
    assert acl.rt.launch_callback(ran.append, "a", ACL_CALLBACK_NO_BLOCK, stream) == ACL_SUCCESS
    assert acl.rt.launch_callback(ran.append, "b", ACL_CALLBACK_NO_BLOCK, stream) == ACL_SUCCESS
    while len(ran) < 2:
        assert acl.rt.process_report(1000) == ACL_SUCCESS
    assert ran == ["a", "b"]
    assert acl.rt.unsubscribe_report(me, stream) == ACL_SUCCESS


def test_a_dropped_callback_is_released_with_its_stream(device):
    s, ret = acl.rt.create_stream()
    assert ret == ACL_SUCCESS
    me = threading.get_ident()
    ran = []
    data = ["never"]
    fn = ran.append
    before = refcounts(fn, data)
    assert acl.rt.subscribe_report(me, s) == ACL_SUCCESS
    assert acl.rt.launch_callback(fn, data, ACL_CALLBACK_NO_BLOCK, s) == ACL_SUCCESS
    assert refcounts(fn, data) == [before[0] + 1, before[1] + 1]
    # the subscribed thread destroys the stream: nobody will run the callback
    assert acl.rt.destroy_stream(s) == ACL_SUCCESS
    assert ran == [] and refcounts(fn, data) == before


def test_a_dropped_callback_on_the_default_stream_is_released_at_finalize():
    assert acl.init() == ACL_SUCCESS
    assert acl.rt.set_device(1) == ACL_SUCCESS
    fn, data = (lambda d: None), ["never"]
    before = refcounts(fn, data)
    me = threading.get_ident()
    assert acl.rt.subscribe_report(me, 0) == ACL_SUCCESS
    assert acl.rt.launch_callback(fn, data, ACL_CALLBACK_NO_BLOCK, 0) == ACL_SUCCESS
    assert acl.rt.reset_device(1) == ACL_SUCCESS
    assert refcounts(fn, data) == [before[0] + 1, before[1] + 1]
    assert acl.finalize() == ACL_SUCCESS
    assert refcounts(fn, data) == before


def test_start_thread_serves_callbacks_and_stop_thread_joins_it(device, stream):
    ctx, ret = acl.rt.get_context()
    assert ret == ACL_SUCCESS
    state = {"stop": False, "codes": set()}
    ran = []

    def serve(args):
        context, timeout = args
        state["codes"].add(acl.rt.set_context(context))
        state["tid"] = threading.get_ident()
        while not state["stop"]:
            state["codes"].add(acl.rt.process_report(timeout))

    tid, ret = acl.util.start_thread(serve, [ctx, 50])
    assert ret == ACL_SUCCESS and tid != 0
    assert acl.rt.subscribe_report(tid, stream) == ACL_SUCCESS
    for i in range(3):
        assert acl.rt.launch_callback(lambda d: ran.append((d, threading.get_ident())), i,
                                      ACL_CALLBACK_BLOCK, stream) == ACL_SUCCESS
    assert acl.rt.synchronize_stream(stream) == ACL_SUCCESS
    assert ran == [(0, tid), (1, tid), (2, tid)]
    assert acl.rt.unsubscribe_report(tid, stream) == ACL_SUCCESS
    state["stop"] = True
    assert acl.util.stop_thread(tid) == ACL_SUCCESS
    assert state["tid"] == tid
    assert state["codes"] <= {ACL_SUCCESS, ACL_ERROR_RT_REPORT_TIMEOUT,
                              ACL_ERROR_RT_THREAD_SUBSCRIBE}
    assert acl.util.stop_thread(tid) == ACL_ERROR_INVALID_PARAM


def test_start_thread_without_args_and_with_a_raising_function():
    ran = []
    tid, ret = acl.util.start_thread(lambda: ran.append(threading.get_ident()), None)
    assert ret == ACL_SUCCESS
    assert acl.util.stop_thread(tid) == ACL_SUCCESS
    assert ran == [tid]

    def bad(args):
        raise RuntimeError("thread function failed on purpose")

    with unraisable_caught() as seen:
        tid, ret = acl.util.start_thread(bad, [])
        assert ret == ACL_SUCCESS
        assert acl.util.stop_thread(tid) == ACL_SUCCESS
    assert seen == [(RuntimeError, "thread function failed on purpose", bad)]
    assert acl.util.stop_thread(12345) == ACL_ERROR_INVALID_PARAM


def test_stop_thread_in_the_thread_itself_is_refused():
    codes = []

    def own(args):
        codes.append(acl.util.stop_thread(threading.get_ident()))

    tid, ret = acl.util.start_thread(own, [])
    assert ret == ACL_SUCCESS
    assert acl.util.stop_thread(tid) == ACL_SUCCESS
    assert codes == [ACL_ERROR_INVALID_PARAM]


def test_host_func_runs_in_the_runtime_thread_and_holds_the_stream(device, stream, dev_buf):
    d = dev_buf(4096)
    assert acl.rt.memset(d, 4096, 0, 4096) == ACL_SUCCESS
    go = threading.Event()
    where = []

    def host_func(args):
        where.append((args, threading.get_ident()))
        go.wait(60)

    data = {"k": 1}
    before = refcounts(host_func, data)
    assert acl.rt.launch_host_func(stream, host_func, data) == ACL_SUCCESS
    assert acl.rt.memset_async(d, 4096, 0x66, 4096, stream) == ACL_SUCCESS
    time.sleep(0.2)
    assert acl.rt.stream_query(stream) == (ACL_STREAM_STATUS_NOT_READY, ACL_SUCCESS)
    assert from_device(d, 4096) == bytes(4096)
    go.set()
    assert acl.rt.synchronize_stream(stream) == ACL_SUCCESS
    assert acl.rt.stream_query(stream) == (ACL_STREAM_STATUS_COMPLETE, ACL_SUCCESS)
    assert from_device(d, 4096) == b"\x66" * 4096
    assert len(where) == 1 and where[0][0] is data
    assert where[0][1] not in (threading.get_ident(), None)
    where.clear()
    assert refcounts(host_func, data) == before


def test_a_raising_host_func_is_reported_and_the_stream_goes_on(device, stream, dev_buf):
    d = dev_buf(64)

    def bad(args):
        raise KeyError(args)

    with unraisable_caught() as seen:
        assert acl.rt.launch_host_func(stream, bad, "missing") == ACL_SUCCESS
        assert acl.rt.memset_async(d, 64, 9, 64, stream) == ACL_SUCCESS
        assert acl.rt.synchronize_stream(stream) == ACL_SUCCESS
    assert seen == [(KeyError, "'missing'", bad)]
    assert from_device(d, 64) == b"\x09" * 64


def test_host_func_errors(device):
    fn, data = (lambda d: None), ["x"]
    before = refcounts(fn, data)
    assert acl.rt.launch_host_func(0xbad, fn, data) == ACL_ERROR_INVALID_PARAM
    assert refcounts(fn, data) == before


@pytest.mark.parametrize("serve", ["launch_callback", "launch_host_func"])
def test_callbacks_may_call_the_runtime(device, stream, dev_buf, serve):
    d = dev_buf(64)
    ctx, ret = acl.rt.get_context()
    assert ret == ACL_SUCCESS
    results = []

    def cb(value):
        # runs with the GIL, and gives it up again inside the runtime calls
        results.append(acl.rt.set_context(ctx))
        results.append(acl.rt.memset(d, 64, value, 64))
        results.append(acl.rt.get_device())

    if serve == "launch_callback":
        with Server(stream):
            assert acl.rt.launch_callback(cb, 3, ACL_CALLBACK_BLOCK, stream) == ACL_SUCCESS
            assert acl.rt.synchronize_stream(stream) == ACL_SUCCESS
    else:
        assert acl.rt.launch_host_func(stream, cb, 3) == ACL_SUCCESS
        assert acl.rt.synchronize_stream(stream) == ACL_SUCCESS
    assert results == [ACL_SUCCESS, ACL_SUCCESS, (0, ACL_SUCCESS)]
    assert from_device(d, 64) == b"\x03" * 64
