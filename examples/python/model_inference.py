# SPDX-License-Identifier: MIT
"""Model inference with pyACL, laid out as the vendor's quick-start sample:
initialize, load an offline model (.om), prepare the input and output
datasets from the model's description, execute, post-process (top-5 of the
classes), then release everything in reverse order.

The vendor's sample classifies a picture with ResNet-50; this one builds
a small seeded image classifier in ONNX (python3-onnx), compiles it with
build/atc, and classifies a seeded 3x32x32 "picture". It checks the
card's probabilities against numpy's computation of the same network.

Run from a build tree: PYTHONPATH=build/python python3 examples/python/model_inference.py
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

import acl

ACL_SUCCESS = 0
ACL_ERROR_REPEAT_INITIALIZE = 100002
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
NPY_FLOAT32 = 11

CHANNELS, HEIGHT, WIDTH = 3, 32, 32
FILTERS, CLASSES = 8, 10
ATC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "atc")


def check(ret, what):
    if ret != ACL_SUCCESS:
        raise RuntimeError("%s failed: %d (%s)" % (what, ret, acl.get_recent_err_msg()))


def weights():
    rng = np.random.default_rng(2024)
    return {
        "conv_w": rng.uniform(-0.5, 0.5, (FILTERS, CHANNELS, 3, 3)).astype(np.float32),
        "conv_b": rng.uniform(-0.1, 0.1, (FILTERS,)).astype(np.float32),
        "fc_w": rng.uniform(-1, 1, (FILTERS, CLASSES)).astype(np.float32),
        "fc_b": rng.uniform(-0.1, 0.1, (CLASSES,)).astype(np.float32),
    }


def build_om(workdir):
    """The classifier as ONNX, compiled by atc into workdir/classifier.om."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    w = weights()
    nodes = [
        helper.make_node("Conv", ["image", "conv_w", "conv_b"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("GlobalAveragePool", ["r"], ["g"]),
        helper.make_node("Flatten", ["g"], ["f"]),
        helper.make_node("Gemm", ["f", "fc_w", "fc_b"], ["logits"]),
        helper.make_node("Softmax", ["logits"], ["prob"], axis=1),
    ]
    graph = helper.make_graph(
        nodes, "classifier",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT,
                                       [1, CHANNELS, HEIGHT, WIDTH])],
        [helper.make_tensor_value_info("prob", TensorProto.FLOAT, [1, CLASSES])],
        [numpy_helper.from_array(v, k) for k, v in w.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx_path = os.path.join(workdir, "classifier.onnx")
    onnx.save(model, onnx_path)
    subprocess.run([ATC, "--model=" + onnx_path, "--framework=5",
                    "--output=" + os.path.join(workdir, "classifier"),
                    "--input_shape=image:1,%d,%d,%d" % (CHANNELS, HEIGHT, WIDTH)],
                   check=True, stdout=subprocess.DEVNULL)
    return os.path.join(workdir, "classifier.om")


def reference(image):
    """numpy's computation of the classifier, for the check."""
    w = weights()
    x = np.pad(image[0].astype(np.float64), ((0, 0), (1, 1), (1, 1)))
    conv = np.zeros((FILTERS, HEIGHT, WIDTH))
    for dy in range(3):
        for dx in range(3):
            patch = x[:, dy:dy + HEIGHT, dx:dx + WIDTH]
            conv += np.einsum("chw,fc->fhw", patch, w["conv_w"][:, :, dy, dx])
    conv += w["conv_b"][:, None, None]
    feat = np.maximum(conv, 0).mean(axis=(1, 2))
    logits = feat @ w["fc_w"] + w["fc_b"]
    e = np.exp(logits - logits.max())
    return e / e.sum()


class Net:
    def __init__(self, device_id, model_path):
        self.device_id = device_id
        self.model_path = model_path
        self.model_id = None
        self.model_desc = None
        self.context = None
        self.input_dataset = None
        self.output_dataset = None
        self.buffers = []           # (device pointer, data buffer)
        self.init_resource()

    def init_resource(self):
        ret = acl.init()
        if ret != ACL_ERROR_REPEAT_INITIALIZE:
            check(ret, "acl.init")
        check(acl.rt.set_device(self.device_id), "acl.rt.set_device")
        self.context, ret = acl.rt.create_context(self.device_id)
        check(ret, "acl.rt.create_context")
        # Load the model; its description gives the buffers' sizes.
        self.model_id, ret = acl.mdl.load_from_file(self.model_path)
        check(ret, "acl.mdl.load_from_file")
        self.model_desc = acl.mdl.create_desc()
        check(acl.mdl.get_desc(self.model_desc, self.model_id), "acl.mdl.get_desc")
        self.input_dataset = self.create_dataset(
            acl.mdl.get_num_inputs(self.model_desc), acl.mdl.get_input_size_by_index)
        self.output_dataset = self.create_dataset(
            acl.mdl.get_num_outputs(self.model_desc), acl.mdl.get_output_size_by_index)

    def create_dataset(self, count, size_of):
        dataset = acl.mdl.create_dataset()
        for i in range(count):
            size = size_of(self.model_desc, i)
            dev, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_HUGE_FIRST)
            check(ret, "acl.rt.malloc")
            buf = acl.create_data_buffer(dev, size)
            self.buffers.append((dev, buf))
            _, ret = acl.mdl.add_dataset_buffer(dataset, buf)
            check(ret, "acl.mdl.add_dataset_buffer")
        return dataset

    def forward(self, image):
        """Copies image in, executes, returns the output as numpy."""
        buf = acl.mdl.get_dataset_buffer(self.input_dataset, 0)
        size = acl.get_data_buffer_size_v2(buf)
        ptr = acl.util.numpy_to_ptr(image)
        check(acl.rt.memcpy(acl.get_data_buffer_addr(buf), size, ptr, image.nbytes,
                            ACL_MEMCPY_HOST_TO_DEVICE), "acl.rt.memcpy")
        check(acl.mdl.execute(self.model_id, self.input_dataset, self.output_dataset),
              "acl.mdl.execute")
        buf = acl.mdl.get_dataset_buffer(self.output_dataset, 0)
        size = acl.get_data_buffer_size_v2(buf)
        host, ret = acl.rt.malloc_host(size)
        check(ret, "acl.rt.malloc_host")
        check(acl.rt.memcpy(host, size, acl.get_data_buffer_addr(buf), size,
                            ACL_MEMCPY_DEVICE_TO_HOST), "acl.rt.memcpy")
        dims, ret = acl.mdl.get_cur_output_dims(self.model_desc, 0)
        check(ret, "acl.mdl.get_cur_output_dims")
        out = acl.util.ptr_to_numpy(host, tuple(dims["dims"]), NPY_FLOAT32).copy()
        check(acl.rt.free_host(host), "acl.rt.free_host")
        return out

    def release_resource(self):
        for ds in (self.input_dataset, self.output_dataset):
            check(acl.mdl.destroy_dataset(ds), "acl.mdl.destroy_dataset")
        for dev, buf in self.buffers:
            check(acl.destroy_data_buffer(buf), "acl.destroy_data_buffer")
            check(acl.rt.free(dev), "acl.rt.free")
        check(acl.mdl.destroy_desc(self.model_desc), "acl.mdl.destroy_desc")
        check(acl.mdl.unload(self.model_id), "acl.mdl.unload")
        check(acl.rt.destroy_context(self.context), "acl.rt.destroy_context")
        check(acl.rt.reset_device(self.device_id), "acl.rt.reset_device")
        check(acl.finalize(), "acl.finalize")


def main():
    with tempfile.TemporaryDirectory() as workdir:
        net = Net(0, build_om(workdir))
        image = np.random.default_rng(7).uniform(0, 1, (1, CHANNELS, HEIGHT, WIDTH))
        image = image.astype(np.float32)
        prob = net.forward(image)[0]
        net.release_resource()
    top5 = np.argsort(-prob)[:5]
    print("======== top5 inference results: =============")
    for k in top5:
        print("label:%d  prob: %f" % (k, prob[k]))
    expected = reference(image)
    if not np.allclose(prob, expected, rtol=1e-3, atol=1e-5) or \
            list(top5) != list(np.argsort(-expected)[:5]):
        print("mismatch with numpy: %s" % expected, file=sys.stderr)
        return 1
    print("model_inference: top-5 matches numpy's computation")
    return 0


if __name__ == "__main__":
    sys.exit(main())
