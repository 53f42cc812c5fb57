#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Writes the network graph_test builds op by op, as ONNX, with its data.

  make_net.py OUTDIR

OUTDIR/net.onnx (opset 13, static shapes), the weights as raw float32
files that the test's builders read (w1.bin, b1.bin, w2.bin, w3.bin,
b3.bin), and one input, input.bin.  Seeded: the same bytes every time.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.RandomState(3)
    data = {
        "w1": rng.standard_normal((8, 3, 3, 3)).astype(np.float32) * np.float32(0.3),
        "b1": rng.uniform(-0.2, 0.2, 8).astype(np.float32),
        "w2": rng.standard_normal((8, 8, 3, 3)).astype(np.float32) * np.float32(0.15),
        "w3": rng.standard_normal((128, 10)).astype(np.float32) * np.float32(0.1),
        "b3": rng.uniform(-0.1, 0.1, 10).astype(np.float32),
        "input": rng.uniform(-1, 1, (1, 3, 16, 16)).astype(np.float32),
    }
    for name, array in data.items():
        array.tofile(os.path.join(outdir, name + ".bin"))

    inits = [numpy_helper.from_array(data[n], n) for n in ("w1", "b1", "w2", "w3", "b3")]
    inits.append(numpy_helper.from_array(np.array([1, 128], dtype=np.int64), "shape"))
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["conv1"], name="conv1",
                         pads=[1, 1, 1, 1], strides=[1, 1]),
        helper.make_node("Relu", ["conv1"], ["relu1"], name="relu1"),
        helper.make_node("MaxPool", ["relu1"], ["pool1"], name="pool1",
                         kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["pool1", "w2"], ["conv2"], name="conv2",
                         pads=[1, 1, 1, 1], strides=[1, 1]),
        helper.make_node("Sigmoid", ["conv2"], ["sig2"], name="sig2"),
        helper.make_node("AveragePool", ["sig2"], ["pool2"], name="pool2",
                         kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Reshape", ["pool2", "shape"], ["flat"], name="flat"),
        helper.make_node("MatMul", ["flat", "w3"], ["fc"], name="fc"),
        helper.make_node("Add", ["fc", "b3"], ["fc_bias"], name="fc_bias"),
        helper.make_node("Softmax", ["fc_bias"], ["prob"], name="prob", axis=-1),
    ]
    graph = helper.make_graph(
        nodes, "graph_test_net",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
        [helper.make_tensor_value_info("prob", TensorProto.FLOAT, [1, 10])],
        initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(outdir, "net.onnx"))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
