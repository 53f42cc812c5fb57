# SPDX-License-Identifier: MIT
"""Fixtures and helpers shared by the pyACL suites.

The suites run in a guest with two emulated cards (tests/python/run.sh).
Each test that needs the runtime gets its own aclInit ... aclFinalize, so
that tests do not depend on each other's leftovers."""
import contextlib
import faulthandler
import sys
import threading
import time

import numpy as np
import pytest

import acl
from constants import (ACL_HBM_MEM, ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_HOST_TO_DEVICE,
                       ACL_MEM_MALLOC_HUGE_FIRST, ACL_STREAM_WAIT_VALUE_GEQ, ACL_SUCCESS)

# A test that hangs (a call that kept the GIL while another thread had to
# run, a lost callback) ends the run with every thread's traceback instead
# of stalling make check.
HANG_SECONDS = 120


@pytest.fixture(autouse=True)
def watchdog():
    faulthandler.dump_traceback_later(HANG_SECONDS, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture
def initialized():
    """aclInit for the test, aclFinalize after it."""
    assert acl.init() == ACL_SUCCESS
    yield
    assert acl.finalize() == ACL_SUCCESS


def free_device_memory():
    free, total, ret = acl.rt.get_mem_info(ACL_HBM_MEM)
    assert ret == ACL_SUCCESS
    assert 0 < free <= total
    return free


def settled_device_memory(baseline):
    """Free device memory once back at baseline, or after 10 s: the card
    gets a freed buffer back when the driver retires the last job that
    used it, a moment after acl.rt.free."""
    for _ in range(500):
        free = free_device_memory()
        if free == baseline:
            break
        time.sleep(0.02)
    return free


@pytest.fixture
def device(initialized):
    """Device 0, current in the test's thread; the test must give back
    every byte of device memory it took, and leave device 0 current."""
    assert acl.rt.set_device(0) == ACL_SUCCESS
    free = free_device_memory()
    yield 0
    assert settled_device_memory(free) == free
    assert acl.rt.reset_device(0) == ACL_SUCCESS


@pytest.fixture
def stream(device):
    s, ret = acl.rt.create_stream()
    assert ret == ACL_SUCCESS and s != 0
    yield s
    assert acl.rt.destroy_stream(s) == ACL_SUCCESS


@pytest.fixture
def dev_buf(device):
    """A factory of device buffers, freed after the test."""
    bufs = []

    def alloc(size):
        p, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_HUGE_FIRST)
        assert ret == ACL_SUCCESS and p != 0
        bufs.append(p)
        return p

    yield alloc
    for p in bufs:
        assert acl.rt.free(p) == ACL_SUCCESS


@pytest.fixture
def gate(dev_buf):
    """A device word that value_wait holds streams on; open() releases them
    (and the teardown, so that a failed test leaves no stream stuck)."""
    class Gate:
        word = dev_buf(8)

        def hold(self, stream):
            assert acl.rt.value_wait(self.word, 1, ACL_STREAM_WAIT_VALUE_GEQ,
                                     stream) == ACL_SUCCESS

        def open(self):
            to_device(self.word, (1).to_bytes(8, "little"))

    g = Gate()
    to_device(g.word, bytes(8))
    yield g
    g.open()
    assert acl.rt.synchronize_device() == ACL_SUCCESS


def to_device(dev_ptr, data):
    """Copies bytes to device memory (synchronously)."""
    ptr = acl.util.bytes_to_ptr(data)
    assert acl.rt.memcpy(dev_ptr, len(data), ptr, len(data),
                         ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS


def from_device(dev_ptr, size):
    """Copies size bytes of device memory into a new bytes object."""
    out = bytes(size)
    ptr = acl.util.bytes_to_ptr(out)
    assert acl.rt.memcpy(ptr, size, dev_ptr, size, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS
    return out


def pattern(size, seed=1):
    """size bytes of the pattern that examples/flows.h writes."""
    i = np.arange(size, dtype=np.uint64)
    return ((i * 131 + seed * 7 + (i >> 12)) & 0xFF).astype(np.uint8).tobytes()


@contextlib.contextmanager
def unraisable_caught():
    """Collects what PyErr_WriteUnraisable reports (exceptions of callbacks)
    instead of printing it. Inside the test body: pytest resets the hook
    between a test's phases."""
    seen = []
    old = sys.unraisablehook
    sys.unraisablehook = lambda u: seen.append((u.exc_type, str(u.exc_value), u.object))
    try:
        yield seen
    finally:
        sys.unraisablehook = old


class Ticker:
    """A thread that counts, with the GIL, and sleeps between counts.

    While it runs, the interpreter's switch interval is so long that the
    thread holding the GIL keeps it until it blocks: the count moves during
    a call only if the call released the GIL."""

    def __init__(self):
        self.count = 0
        self._stop = False
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop:
            self.count += 1
            time.sleep(0.0002)

    def __enter__(self):
        self._interval = sys.getswitchinterval()
        sys.setswitchinterval(1000.0)
        self._thread.start()
        while self.count == 0:
            time.sleep(0.001)
        return self

    def __exit__(self, *exc):
        self._stop = True
        self._thread.join()
        sys.setswitchinterval(self._interval)

    def progress_during(self, fn, *args):
        """(how far the thread counted during fn(*args), what fn returned)"""
        before = self.count
        result = fn(*args)
        return self.count - before, result
