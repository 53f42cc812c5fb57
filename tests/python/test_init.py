# SPDX-License-Identifier: MIT
"""acl.*: init and finalize, errors and messages, versions and the small
helpers of acl_base_rt.h."""
import json
import math
import os
import pathlib
import subprocess
import sys
import threading

import pytest

import acl
from constants import (ACL_ERROR_INVALID_FILE, ACL_ERROR_INVALID_PARAM,
                       ACL_ERROR_REPEAT_FINALIZE, ACL_ERROR_REPEAT_INITIALIZE,
                       ACL_ERROR_RT_CONTEXT_NULL, ACL_ERROR_RT_INVALID_DEVICEID, ACL_FLOAT,
                       ACL_FLOAT16, ACL_DOUBLE, ACL_DT_UNDEFINED, ACL_INT8, ACL_INT32,
                       ACL_RT_THREAD_LEVEL, ACL_SUCCESS)


@pytest.mark.parametrize("args", [(), (None,), ("",)], ids=["no-arg", "None", "empty"])
def test_init_without_a_config_file(args):
    assert acl.init(*args) == ACL_SUCCESS
    assert acl.rt.get_device_count() == (2, ACL_SUCCESS)
    assert acl.finalize() == ACL_SUCCESS


def test_init_reads_a_json_config_given_as_str_bytes_or_path(tmp_path):
    cfg = tmp_path / "acl.json"
    cfg.write_text(json.dumps({"defaultDevice": {"default_device": "1"}}))
    for path in (str(cfg), bytes(cfg), pathlib.Path(cfg)):
        assert acl.init(path) == ACL_SUCCESS
        # default_device stands in for a current context
        assert acl.rt.get_device() == (1, ACL_SUCCESS)
        assert acl.finalize() == ACL_SUCCESS


def test_init_with_a_missing_file_fails_with_its_code_and_message():
    assert acl.init("/nonexistent/acl.json") == ACL_ERROR_INVALID_FILE
    assert "/nonexistent/acl.json" in acl.get_recent_err_msg()
    assert acl.get_recent_err_msg() is None       # read once, then cleared
    assert acl.finalize() == ACL_ERROR_REPEAT_FINALIZE


def test_repeated_init_and_finalize_codes():
    assert acl.finalize() == ACL_ERROR_REPEAT_FINALIZE
    assert acl.finalize_reference() == (0, ACL_ERROR_REPEAT_FINALIZE)
    assert acl.init() == ACL_SUCCESS
    assert acl.init() == ACL_ERROR_REPEAT_INITIALIZE
    assert acl.init() == ACL_ERROR_REPEAT_INITIALIZE
    assert acl.finalize_reference() == (2, ACL_SUCCESS)
    assert acl.finalize_reference() == (1, ACL_SUCCESS)
    assert acl.finalize_reference() == (0, ACL_SUCCESS)
    assert acl.finalize() == ACL_ERROR_REPEAT_FINALIZE
    # init/finalize again after a full finalize
    assert acl.init() == ACL_SUCCESS
    assert acl.init() == ACL_ERROR_REPEAT_INITIALIZE
    assert acl.finalize() == ACL_SUCCESS
    assert acl.finalize() == ACL_ERROR_REPEAT_FINALIZE


def test_errors_are_per_thread_codes_and_messages(initialized):
    assert acl.rt.set_device(1000) == ACL_ERROR_RT_INVALID_DEVICEID
    assert acl.rt.peek_at_last_error(ACL_RT_THREAD_LEVEL) == ACL_ERROR_RT_INVALID_DEVICEID
    other = {}

    def elsewhere():
        other["msg"] = acl.get_recent_err_msg()
        other["ret"] = acl.rt.get_last_error(ACL_RT_THREAD_LEVEL)

    t = threading.Thread(target=elsewhere)
    t.start()
    t.join()
    assert other == {"msg": None, "ret": ACL_SUCCESS}
    msg = acl.get_recent_err_msg()
    assert "107001" in msg and "1000" in msg
    assert acl.rt.get_last_error(ACL_RT_THREAD_LEVEL) == ACL_ERROR_RT_INVALID_DEVICEID
    assert acl.rt.get_last_error(ACL_RT_THREAD_LEVEL) == ACL_SUCCESS
    assert acl.rt.peek_at_last_error(7) == ACL_ERROR_INVALID_PARAM
    assert acl.rt.get_last_error(7) == ACL_ERROR_INVALID_PARAM


def test_get_version():
    assert acl.get_version() == (1, 17, 0, ACL_SUCCESS)


def test_get_soc_name_is_a_str_once_a_device_is_known(device):
    name = acl.get_soc_name()
    assert isinstance(name, str) and name


def test_app_log_writes_at_the_python_callers_line(tmp_path):
    """The runtime's log (ASCEND_PROCESS_LOG_PATH) gets the message as it is,
    at its level, with the calling Python function, file and line."""
    code = """
import acl

def caller():
    acl.app_log(2, "pyacl %s 100% literal")   # line 5
    acl.app_log(0, "below the level")
    acl.app_log(99, "no such level")

caller()
"""
    script = tmp_path / "app.py"
    script.write_text(code)
    env = dict(os.environ, ASCEND_PROCESS_LOG_PATH=str(tmp_path), ASCEND_GLOBAL_LOG_LEVEL="1")
    subprocess.run([sys.executable, str(script)], env=env, check=True)
    [logfile] = tmp_path.glob("acl-*.log")
    log = logfile.read_text()
    lines = [line for line in log.splitlines() if "pyacl" in line or "level" in line]
    assert len(lines) == 1
    assert lines[0].startswith("[WARNING]")
    assert lines[0].endswith("[%s:5 caller] pyacl %%s 100%% literal" % script)


def test_data_type_size():
    assert acl.data_type_size(ACL_FLOAT) == 4
    assert acl.data_type_size(ACL_FLOAT16) == 2
    assert acl.data_type_size(ACL_INT8) == 1
    assert acl.data_type_size(ACL_INT32) == 4
    assert acl.data_type_size(ACL_DOUBLE) == 8
    assert acl.data_type_size(ACL_DT_UNDEFINED) == 0


def test_float16_conversions():
    assert acl.float_to_float16(1.0) == 0x3C00
    assert acl.float_to_float16(-2) == 0xC000
    assert acl.float_to_float16(0.5) == 0x3800
    assert acl.float16_to_float(0x3C00) == 1.0
    assert acl.float16_to_float(0xC000) == -2.0
    assert acl.float16_to_float(0x3555) == pytest.approx(1 / 3, rel=1e-3)
    # saturating: no infinities
    big = acl.float16_to_float(acl.float_to_float16(1e9))
    assert math.isfinite(big) and big == 65504.0


def test_cann_attributes(initialized):
    attrs, num, ret = acl.get_cann_attribute_list()
    assert ret == ACL_SUCCESS
    assert isinstance(attrs, list) and num == len(attrs)
    for attr in attrs:
        assert acl.get_cann_attribute(attr) == (1, ACL_SUCCESS) or \
            acl.get_cann_attribute(attr)[1] == ACL_SUCCESS
    value, ret = acl.get_cann_attribute(0)
    assert ret == ACL_SUCCESS and value in (0, 1)


def test_get_device_capability(initialized):
    value, ret = acl.get_device_capability(0, 0)
    # AI cores: the card's compute engines, as aclrtGetDeviceInfo counts them
    cores, cores_ret = acl.rt.get_device_info(0, 101)    # ACL_DEV_ATTR_AICORE_CORE_NUM
    assert ret == ACL_SUCCESS and cores_ret == ACL_SUCCESS and value == cores
    assert acl.get_device_capability(0, 2) == (0, ACL_SUCCESS)    # no L2
    assert acl.get_device_capability(7, 0)[1] == ACL_ERROR_RT_INVALID_DEVICEID


def test_no_current_context_after_finalize():
    assert acl.init() == ACL_SUCCESS
    assert acl.rt.set_device(0) == ACL_SUCCESS
    assert acl.rt.get_device() == (0, ACL_SUCCESS)
    assert acl.finalize() == ACL_SUCCESS
    assert acl.init() == ACL_SUCCESS
    assert acl.rt.get_device() == (0, ACL_ERROR_RT_CONTEXT_NULL)
    assert acl.finalize() == ACL_SUCCESS
