# SPDX-License-Identifier: MIT
"""The module's shape: namespaces, the functions in each, and how wrong
arguments fail (TypeError naming the function and parameter, OverflowError
for ints out of the C range), before the runtime is involved."""
import sys

import numpy as np
import pytest

import acl
from constants import ACL_SUCCESS

ACL = ["init", "finalize", "finalize_reference", "get_recent_err_msg", "get_version",
       "get_soc_name", "app_log", "data_type_size", "float16_to_float", "float_to_float16",
       "get_cann_attribute_list", "get_cann_attribute", "get_device_capability",
       "create_data_buffer", "destroy_data_buffer", "update_data_buffer",
       "get_data_buffer_addr", "get_data_buffer_size", "get_data_buffer_size_v2",
       "create_tensor_desc", "destroy_tensor_desc", "set_tensor_shape_range",
       "set_tensor_value_range", "get_tensor_desc_type", "get_tensor_desc_format",
       "get_tensor_desc_size", "get_tensor_desc_element_count", "get_tensor_desc_num_dims",
       "get_tensor_desc_dim", "get_tensor_desc_dim_v2", "get_tensor_desc_dim_range",
       "set_tensor_desc_name", "get_tensor_desc_name", "set_tensor_storage_format",
       "set_tensor_storage_shape", "set_tensor_format", "set_tensor_shape",
       "set_tensor_origin_format", "set_tensor_origin_shape", "get_tensor_desc_address",
       "set_tensor_dynamic_input", "set_tensor_const", "set_tensor_place_ment"]
RT = ["set_device", "reset_device", "reset_device_force", "get_device", "get_device_count",
      "get_run_mode", "set_ts_device", "synchronize_device", "synchronize_device_with_timeout",
      "query_device_status", "get_device_info", "device_get_stream_priority_range",
      "device_can_access_peer", "device_enable_peer_access", "device_disable_peer_access",
      "device_get_uuid", "create_context", "destroy_context", "set_context", "get_context",
      "ctx_get_current_default_stream", "create_stream", "create_stream_with_config",
      "destroy_stream", "destroy_stream_force", "synchronize_stream",
      "synchronize_stream_with_timeout", "stream_query", "stream_wait_event", "stream_get_id",
      "get_stream_available_num", "set_stream_failure_mode", "stream_abort", "create_event",
      "create_event_with_flag", "create_event_ex_with_flag", "destroy_event", "record_event",
      "reset_event", "query_event", "query_event_status", "query_event_wait_status",
      "synchronize_event", "synchronize_event_with_timeout", "event_elapsed_time",
      "event_get_timestamp", "get_event_id", "get_event_avail_num", "malloc",
      "malloc_align32", "malloc_cached", "free", "malloc_host", "free_host", "get_mem_info",
      "pointer_get_attributes", "host_register", "host_unregister", "memcpy", "memcpy_async",
      "memcpy2d", "memcpy2d_async", "memset", "memset_async", "value_write", "value_wait",
      "subscribe_report", "unsubscribe_report", "launch_callback", "process_report",
      "launch_host_func", "peek_at_last_error", "get_last_error"]
UTIL = ["bytes_to_ptr", "ptr_to_bytes", "numpy_to_ptr", "numpy_contiguous_to_ptr",
        "ptr_to_numpy", "start_thread", "stop_thread"]


MDL = ["load_from_file", "load_from_mem", "load_from_file_with_mem", "load_from_mem_with_mem",
       "query_size", "query_size_from_mem", "unload", "create_desc", "get_desc", "destroy_desc",
       "get_desc_from_file", "get_desc_from_mem", "get_num_inputs", "get_num_outputs",
       "get_input_size_by_index", "get_output_size_by_index", "get_input_dims",
       "get_input_dims_v2", "get_output_dims", "get_cur_output_dims", "get_input_name_by_index",
       "get_output_name_by_index", "get_input_index_by_name", "get_output_index_by_name",
       "get_input_data_type", "get_output_data_type", "get_input_format", "get_output_format",
       "create_dataset", "add_dataset_buffer", "get_dataset_buffer", "get_dataset_num_buffers",
       "destroy_dataset", "set_dataset_tensor_desc", "get_dataset_tensor_desc", "execute",
       "execute_async"]


def public(mod):
    return sorted(n for n in dir(mod) if not n.startswith("_"))


def test_submodules_import_like_packages():
    import acl.rt
    import acl.util
    from acl import rt, util

    assert rt is acl.rt and util is acl.util
    assert sys.modules["acl.rt"] is acl.rt
    assert sys.modules["acl.util"] is acl.util
    assert acl.rt.__name__ == "acl.rt"


def test_every_namespace_has_exactly_its_functions():
    assert public(acl) == sorted(ACL + ["mdl", "rt", "util"])
    assert public(acl.mdl) == sorted(MDL)
    assert public(acl.rt) == sorted(RT)
    assert public(acl.util) == sorted(UTIL)


@pytest.mark.parametrize("mod,name", [(acl, n) for n in ACL] + [(acl.rt, n) for n in RT] +
                         [(acl.util, n) for n in UTIL] + [(acl.mdl, n) for n in MDL])
def test_functions_are_documented_with_their_signature(mod, name):
    fn = getattr(mod, name)
    assert callable(fn)
    assert fn.__doc__.startswith(name + "(")


def test_module_documents_conventions_and_lifetimes():
    doc = acl.__doc__
    for word in ("ret", "TypeError", "GIL", "unraisablehook", "bytes_to_ptr", "alive"):
        assert word in doc


BAD_TYPES = [
    (acl.rt.malloc, ("1", 0), "acl.rt.malloc() argument 'size' must be int, not str"),
    (acl.rt.malloc, (1, 0.0), "acl.rt.malloc() argument 'policy' must be int, not float"),
    (acl.rt.free, (1.5,),
     "acl.rt.free() argument 'dev_ptr' must be int (a pointer or handle), not float"),
    (acl.rt.memcpy, (1, 1, None, 1, 1), "acl.rt.memcpy() argument 'src' must be int"),
    (acl.rt.memcpy_async, (1, 1, 1, 1, 1, "s"),
     "acl.rt.memcpy_async() argument 'stream' must be int"),
    (acl.rt.set_device, ("0",), "acl.rt.set_device() argument 'device_id' must be int"),
    (acl.rt.create_stream_with_config, (0, None),
     "acl.rt.create_stream_with_config() argument 'flag' must be int, not NoneType"),
    (acl.rt.record_event, ([], 0), "acl.rt.record_event() argument 'event' must be int"),
    (acl.rt.launch_callback, (1, [], 0, 0),
     "acl.rt.launch_callback() argument 'fn' must be callable, not int"),
    (acl.rt.launch_host_func, (0, "f", None),
     "acl.rt.launch_host_func() argument 'fn' must be callable, not str"),
    (acl.rt.subscribe_report, (b"1", 0), "acl.rt.subscribe_report() argument 'thread_id'"),
    (acl.init, (5,), "acl.init() argument 'config_path' must be str, bytes, os.PathLike or None"),
    (acl.app_log, (0, 5), "acl.app_log() argument 'message' must be str, not int"),
    (acl.float_to_float16, ("1",), "acl.float_to_float16() argument 'value' must be float"),
    (acl.create_data_buffer, (0, "8"), "acl.create_data_buffer() argument 'size' must be int"),
    (acl.util.bytes_to_ptr, ("text",),
     "acl.util.bytes_to_ptr() argument 'data' must be bytes or bytearray, not str"),
    (acl.util.bytes_to_ptr, (memoryview(b"x"),), "must be bytes or bytearray, not memoryview"),
    (acl.util.numpy_to_ptr, ([1, 2],),
     "acl.util.numpy_to_ptr() argument 'data' must be numpy.ndarray, not list"),
    (acl.util.numpy_contiguous_to_ptr, (b"12",), "must be numpy.ndarray, not bytes"),
    (acl.util.ptr_to_numpy, (8, 5, 5),
     "acl.util.ptr_to_numpy() argument 'shape' must be tuple, not int"),
    (acl.util.ptr_to_numpy, (8, (2, "3"), 5),
     "acl.util.ptr_to_numpy() argument 'shape' must be int, not str"),
    (acl.util.ptr_to_bytes, (8, None), "acl.util.ptr_to_bytes() argument 'size' must be int"),
    (acl.util.start_thread, (None, []),
     "acl.util.start_thread() argument 'thr_func' must be callable, not NoneType"),
]


def case_id(case):
    fn, args, _ = case
    return "%s%s" % (fn.__name__, tuple(type(a).__name__ for a in args))


@pytest.mark.parametrize("fn,args,message", BAD_TYPES, ids=[case_id(c) for c in BAD_TYPES])
def test_wrong_type_raises_type_error_naming_the_argument(fn, args, message):
    with pytest.raises(TypeError) as e:
        fn(*args)
    assert message in str(e.value)


OUT_OF_RANGE = [
    (acl.rt.set_device, (2**31,), "acl.rt.set_device() argument 'device_id' is out of range "
                                  "for int32_t: 2147483648"),
    (acl.rt.set_device, (-2**31 - 1,), "out of range for int32_t"),
    (acl.rt.malloc, (-1, 0), "acl.rt.malloc() argument 'size' is out of range for size_t: -1"),
    (acl.rt.free, (2**64,), "argument 'dev_ptr' is out of range for a pointer"),
    (acl.rt.free, (-1,), "argument 'dev_ptr' is out of range for a pointer"),
    (acl.rt.create_event_with_flag, (2**32,), "argument 'flag' is out of range for uint32_t"),
    (acl.rt.subscribe_report, (2**64, 0), "argument 'thread_id' is out of range for uint64_t"),
    (acl.float16_to_float, (0x10000,), "out of range for aclFloat16"),
]


@pytest.mark.parametrize("fn,args,message", OUT_OF_RANGE,
                         ids=["%s%r" % (fn.__name__, args) for fn, args, _ in OUT_OF_RANGE])
def test_int_outside_the_c_type_raises_overflow_error(fn, args, message):
    with pytest.raises(OverflowError) as e:
        fn(*args)
    assert message in str(e.value)


def test_argument_count_and_keywords_are_checked():
    with pytest.raises(TypeError, match=r"acl.rt.malloc\(\) missing required argument "
                                        r"'policy' \(pos 2\)"):
        acl.rt.malloc(1)
    with pytest.raises(TypeError, match=r"acl.rt.malloc\(\) takes 2 arguments \(3 given\)"):
        acl.rt.malloc(1, 0, 0)
    with pytest.raises(TypeError, match="unexpected keyword argument 'polcy'"):
        acl.rt.malloc(1, polcy=0)
    with pytest.raises(TypeError, match="multiple values for argument 'size'"):
        acl.rt.malloc(1, size=1, policy=0)
    with pytest.raises(TypeError):
        acl.rt.create_stream(0)
    with pytest.raises(TypeError):
        acl.util.stop_thread()


def test_keyword_arguments_use_the_vendor_names():
    assert acl.data_type_size(data_type=3) == 4
    assert acl.float_to_float16(value=1.0) == 0x3C00


def test_index_objects_are_ints_but_floats_and_strings_are_not():
    assert acl.data_type_size(np.int64(3)) == 4
    assert acl.data_type_size(True) == 2          # ACL_FLOAT16
    with pytest.raises(TypeError):
        acl.data_type_size(3.0)


def test_get_recent_err_msg_is_none_without_an_error():
    while acl.get_recent_err_msg() is not None:
        pass
    assert acl.get_recent_err_msg() is None


def test_calls_before_init_return_codes_not_exceptions():
    p, ret = acl.rt.malloc(64, 0)
    assert (p, ret) != (p, ACL_SUCCESS) and p == 0
    assert isinstance(ret, int)
    assert isinstance(acl.get_recent_err_msg(), str)
