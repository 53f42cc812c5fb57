# SPDX-License-Identifier: MIT
"""Runtime resource allocation and deallocation with pyACL, laid out as the
vendor guide's sample: allocate the device and then a stream, use them,
destroy the stream and then the device. It checks every return code, as the
guide asks, and prints what it did.

Run from a build tree: PYTHONPATH=build/python python3 examples/python/resources.py
"""
import sys

import acl

# The constants an application defines itself (the values of the C headers).
ACL_SUCCESS = 0
ACL_ERROR_REPEAT_INITIALIZE = 100002
ACL_DEVICE = 0
ACL_HOST = 1


def check(ret, what):
    if ret != ACL_SUCCESS:
        raise RuntimeError("%s failed: %d (%s)" % (what, ret, acl.get_recent_err_msg()))


def main(device_id=0):
    ret = acl.init()
    if ret not in (ACL_SUCCESS, ACL_ERROR_REPEAT_INITIALIZE):
        check(ret, "acl.init")
    # ...

    # ====== Allocate runtime resources. ======
    # 1. Specify a compute device.
    ret = acl.rt.set_device(device_id)
    check(ret, "acl.rt.set_device")
    # 2. Explicitly create a stream.
    # Reserve the execution order of asynchronous tasks.
    stream, ret = acl.rt.create_stream()
    check(ret, "acl.rt.create_stream")
    # (Optional) The run mode decides where data for the device is staged.
    run_mode, ret = acl.rt.get_run_mode()
    check(ret, "acl.rt.get_run_mode")
    # ====== Allocate runtime resources. ======

    # ... work for the device goes into the stream; wait for it:
    ret = acl.rt.synchronize_stream(stream)
    check(ret, "acl.rt.synchronize_stream")

    # ====== Destroy runtime allocations. ======
    ret = acl.rt.destroy_stream(stream)
    check(ret, "acl.rt.destroy_stream")
    ret = acl.rt.reset_device(device_id)
    check(ret, "acl.rt.reset_device")
    # ====== Destroy runtime allocations. ======
    # ...

    ret = acl.finalize()
    check(ret, "acl.finalize")
    print("resources (python): device %d set, stream created and released; run mode %s"
          % (device_id, "ACL_HOST" if run_mode == ACL_HOST else "ACL_DEVICE"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
