#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Builds the test networks of issue 10 as ONNX files, with seeded weights.

Each is written the way PyTorch's or Paddle's exporter writes such a
network: opset 9 or 11 (one variant 14), a dynamic batch (and, for the
text models, dynamic height or width), and the Shape/Gather/Unsqueeze/
Concat/Reshape chains exporters emit to compute shapes at run time.

  make_models.py OUTDIR [NAME...]

writes OUTDIR/NAME.onnx and OUTDIR/NAME.shape, the --input_shape that
fixes the model's dynamic dims.  With no NAME it writes every model.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


class Net:
    """A graph under construction, in one opset, with seeded weights."""

    def __init__(self, name, opset, seed):
        self.name = name
        self.opset = opset
        self.rng = np.random.RandomState(seed)
        self.nodes = []
        self.inits = []
        self.count = 0

    def uid(self, base):
        self.count += 1
        return f"{base}_{self.count}"

    def node(self, op, inputs, n_out=1, **attrs):
        name = self.uid(op)
        outs = [f"{name}_out{i}" for i in range(n_out)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=name, **attrs))
        return outs[0] if n_out == 1 else outs

    def const(self, array, base="w"):
        name = self.uid(base)
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def weight(self, shape, fan_in):
        w = self.rng.standard_normal(shape).astype(np.float32) * np.float32(np.sqrt(2.0 / fan_in))
        return self.const(w)

    def ints(self, values):
        return self.const(np.array(values, dtype=np.int64), "i")

    # Layers, spelled per opset as the exporters spell them.

    def conv(self, x, cin, cout, k, stride=1, pad=None, group=1, bias=False):
        pad = k // 2 if pad is None else pad
        w = self.weight((cout, cin // group, k, k), cin // group * k * k)
        ins = [x, w]
        if bias:
            ins.append(self.const(self.rng.uniform(-0.1, 0.1, cout).astype(np.float32), "b"))
        return self.node("Conv", ins, kernel_shape=[k, k], strides=[stride, stride],
                         pads=[pad] * 4, group=group, dilations=[1, 1])

    def bn(self, x, c):
        r = self.rng
        params = [r.uniform(0.5, 1.5, c), r.uniform(-0.2, 0.2, c),
                  r.uniform(-0.2, 0.2, c), r.uniform(0.5, 1.5, c)]
        ins = [x] + [self.const(p.astype(np.float32), "bn") for p in params]
        return self.node("BatchNormalization", ins, epsilon=1e-5, momentum=0.9)

    def conv_bn(self, x, cin, cout, k, stride=1, group=1, act="Relu"):
        y = self.bn(self.conv(x, cin, cout, k, stride, group=group), cout)
        return self.act(y, act)

    def act(self, x, act):
        if act is None:
            return x
        if act == "HardSwish":
            if self.opset >= 14:
                return self.node("HardSwish", [x])
            # PyTorch before opset 14: x * HardSigmoid(x, 1/6, 1/2)
            gate = self.node("HardSigmoid", [x], alpha=1.0 / 6, beta=0.5)
            return self.node("Mul", [x, gate])
        if act == "Relu6":
            if self.opset >= 11:
                return self.node("Clip", [x, self.const(np.array(0, np.float32), "min"),
                                          self.const(np.array(6, np.float32), "max")])
            return self.node("Clip", [x], min=0.0, max=6.0)
        return self.node(act, [x])

    def unsqueeze(self, x, axes):
        if self.opset >= 13:
            return self.node("Unsqueeze", [x, self.ints(axes)])
        return self.node("Unsqueeze", [x], axes=axes)

    def dim(self, x, i):
        """Shape(x)[i] as a 1-element tensor, as exporters compute it."""
        shape = self.node("Shape", [x])
        g = self.node("Gather", [shape, self.const(np.array(i, np.int64), "idx")], axis=0)
        return self.unsqueeze(g, [0])

    def dims_slice(self, x, start, end):
        shape = self.node("Shape", [x])
        if self.opset >= 10:
            return self.node("Slice", [shape, self.ints([start]), self.ints([end]), self.ints([0])])
        return self.node("Slice", [shape], starts=[start], ends=[end], axes=[0])

    def reshape(self, x, parts):
        """Reshape to Concat(parts): each part a 1-element tensor or a list of ints."""
        pieces = [p if isinstance(p, str) else self.ints(p) for p in parts]
        return self.node("Reshape", [x, self.node("Concat", pieces, axis=0)])

    def flatten_batch(self, x):
        """x.view(x.size(0), -1), PyTorch's way."""
        return self.reshape(x, [self.dim(x, 0), [-1]])

    def gemm(self, x, cin, cout):
        w = self.weight((cout, cin), cin)
        b = self.const(self.rng.uniform(-0.1, 0.1, cout).astype(np.float32), "b")
        return self.node("Gemm", [x, w, b], alpha=1.0, beta=1.0, transB=1)

    def upsample(self, x, scale):
        if self.opset >= 11:
            scales = self.const(np.array([1, 1, scale, scale], np.float32), "scales")
            roi = self.const(np.array([], np.float32), "roi")
            return self.node("Resize", [x, roi, scales], mode="nearest",
                             coordinate_transformation_mode="asymmetric", nearest_mode="floor")
        return self.node("Upsample", [x, self.const(np.array([1, 1, scale, scale], np.float32))],
                         mode="nearest")

    def resize_like(self, x, ref):
        """F.interpolate(x, size=ref.shape[2:]): sizes from a Shape chain."""
        nc = self.dims_slice(x, 0, 2)
        hw = self.dims_slice(ref, 2, 4)
        sizes = self.node("Concat", [nc, hw], axis=0)
        roi = self.const(np.array([], np.float32), "roi")
        scales = self.const(np.array([], np.float32), "scales")
        return self.node("Resize", [x, roi, scales, sizes], mode="linear",
                         coordinate_transformation_mode="pytorch_half_pixel")

    def save(self, outdir, inputs, outputs, shapes):
        graph = helper.make_graph(self.nodes, self.name, inputs, outputs, self.inits)
        model = helper.make_model(graph, producer_name="npucc-make-models",
                                  opset_imports=[helper.make_opsetid("", self.opset)])
        model.ir_version = 6 if self.opset < 13 else 7
        onnx.checker.check_model(model)
        path = os.path.join(outdir, self.name + ".onnx")
        onnx.save(model, path)
        with open(os.path.join(outdir, self.name + ".shape"), "w") as f:
            f.write(";".join(f"{n}:{','.join(map(str, s))}" for n, s in shapes) + "\n")


def image_input(name, c=3, h="height", w="width", batch="batch"):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, [batch, c, h, w])


def resnet50(outdir, opset=9):
    """torchvision's ResNet-50 as torch.onnx.export writes it at opset 9."""
    net = Net(f"resnet50_op{opset}", opset, 50)
    x = net.conv_bn("input", 3, 64, 7, 2)
    x = net.node("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 64
    for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for b in range(blocks):
            s = stride if b == 0 else 1
            y = net.conv_bn(x, cin, width, 1)
            y = net.conv_bn(y, width, width, 3, s)
            y = net.conv_bn(y, width, width * 4, 1, act=None)
            short = net.conv_bn(x, cin, width * 4, 1, s, act=None) if b == 0 else x
            x = net.node("Relu", [net.node("Add", [y, short])])
            cin = width * 4
    x = net.node("GlobalAveragePool", [x])
    x = net.flatten_batch(x)
    x = net.gemm(x, 2048, 1000)
    out = helper.make_tensor_value_info(x, TensorProto.FLOAT, ["batch", 1000])
    net.save(outdir, [image_input("input", h=224, w=224)], [out], [("input", [1, 3, 224, 224])])


def mobilenetv3(outdir, opset=11):
    """MobileNetV3-Small: hardswish, squeeze-excite with GlobalAveragePool and Mul."""
    net = Net(f"mobilenetv3_op{opset}", opset, 3)

    def se(x, c):
        s = net.node("GlobalAveragePool", [x])
        s = net.node("Relu", [net.conv(s, c, c // 4, 1, pad=0, bias=True)])
        s = net.conv(s, c // 4, c, 1, pad=0, bias=True)
        s = net.node("HardSigmoid", [s], alpha=1.0 / 6, beta=0.5)
        return net.node("Mul", [x, s])

    x = net.conv_bn("image", 3, 16, 3, 2, act="HardSwish")
    cin = 16
    # kernel, expansion, out, squeeze-excite, activation, stride
    cfg = [(3, 16, 16, True, "Relu", 2), (3, 72, 24, False, "Relu", 2),
           (3, 88, 24, False, "Relu", 1), (5, 96, 40, True, "HardSwish", 2),
           (5, 240, 40, True, "HardSwish", 1), (5, 120, 48, True, "HardSwish", 1),
           (5, 288, 96, True, "HardSwish", 2), (5, 576, 96, True, "HardSwish", 1)]
    for k, exp, cout, use_se, act, s in cfg:
        y = net.conv_bn(x, cin, exp, 1, act=act) if exp != cin else x
        y = net.conv_bn(y, exp, exp, k, s, group=exp, act=act)
        if use_se:
            y = se(y, exp)
        y = net.conv_bn(y, exp, cout, 1, act=None)
        x = net.node("Add", [x, y]) if s == 1 and cin == cout else y
        cin = cout
    x = net.conv_bn(x, cin, 576, 1, act="HardSwish")
    x = net.node("GlobalAveragePool", [x])
    x = net.node("Flatten", [x], axis=1)
    x = net.act(net.gemm(x, 576, 1024), "HardSwish")
    x = net.gemm(x, 1024, 1000)
    out = helper.make_tensor_value_info(x, TensorProto.FLOAT, ["batch", 1000])
    net.save(outdir, [image_input("image", h=224, w=224)], [out], [("image", [1, 3, 224, 224])])


def dbnet(outdir, opset=11):
    """DB text detection, as PaddleOCR's det model: backbone, FPN, DB head."""
    net = Net(f"dbnet_op{opset}", opset, 7)
    x = net.conv_bn("x", 3, 16, 3, 2)
    feats, cin = [], 16
    for cout in (24, 40, 96, 160):        # strides 4, 8, 16, 32
        x = net.conv_bn(x, cin, cout, 3, 2, act="Relu6")
        x = net.conv_bn(x, cout, cout, 3, 1, group=cout, act="Relu6")
        feats.append(x)
        cin = cout
    lat = [net.conv(f, c, 64, 1, pad=0) for f, c in zip(feats, (24, 40, 96, 160))]
    p5 = lat[3]
    p4 = net.node("Add", [lat[2], net.upsample(p5, 2)])
    p3 = net.node("Add", [lat[1], net.upsample(p4, 2)])
    p2 = net.node("Add", [lat[0], net.upsample(p3, 2)])
    outs = [net.conv(p, 64, 16, 3) for p in (p5, p4, p3, p2)]
    if opset >= 11:
        ups = [net.resize_like(o, outs[3]) for o in outs[:3]]
    else:
        ups = [net.upsample(o, s) for o, s in zip(outs[:3], (8, 4, 2))]
    fuse = net.node("Concat", ups + [outs[3]], axis=1)
    h = net.conv_bn(fuse, 64, 16, 3)
    w1 = net.weight((16, 16, 2, 2), 16 * 4)
    h = net.node("ConvTranspose", [h, w1, net.const(np.zeros(16, np.float32), "b")],
                 kernel_shape=[2, 2], strides=[2, 2])
    h = net.node("Relu", [net.bn(h, 16)])
    w2 = net.weight((16, 1, 2, 2), 16 * 4)
    h = net.node("ConvTranspose", [h, w2, net.const(np.zeros(1, np.float32), "b")],
                 kernel_shape=[2, 2], strides=[2, 2])
    y = net.node("Sigmoid", [h])
    out = helper.make_tensor_value_info(y, TensorProto.FLOAT, ["batch", 1, "height", "width"])
    net.save(outdir, [image_input("x")], [out], [("x", [1, 3, 320, 320])])


def textrec(outdir, opset=11):
    """Text recognition: conv features, then attention blocks over the width."""
    net = Net(f"textrec_op{opset}", opset, 11)
    d, heads, classes = 96, 4, 97
    x = net.conv_bn("image", 3, 32, 3, 1)
    x = net.node("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2])
    x = net.conv_bn(x, 32, 64, 3, 1)
    x = net.node("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2])
    x = net.conv_bn(x, 64, d, 3, 1)
    x = net.node("MaxPool", [x], kernel_shape=[8, 1], strides=[8, 1])   # H 32 -> 1
    # (N, d, 1, T) -> (N, T, d), with the dims taken from Shape as PyTorch does
    n_dim, t_dim = net.dim(x, 0), net.dim(x, 3)
    x = net.reshape(x, [n_dim, [d], t_dim])
    x = net.node("Transpose", [x], perm=[0, 2, 1])

    def layer_norm(x):
        mean = net.node("ReduceMean", [x], axes=[-1], keepdims=1)
        xc = net.node("Sub", [x, mean])
        var = net.node("ReduceMean", [net.node("Pow", [xc, net.const(np.array(2, np.float32))])],
                       axes=[-1], keepdims=1)
        std = net.node("Sqrt", [net.node("Add", [var, net.const(np.array(1e-5, np.float32))])])
        y = net.node("Div", [xc, std])
        y = net.node("Mul", [y, net.const(net.rng.uniform(0.8, 1.2, d).astype(np.float32))])
        return net.node("Add", [y, net.const(net.rng.uniform(-0.1, 0.1, d).astype(np.float32))])

    def linear(x, cin, cout):
        w = net.weight((cin, cout), cin)
        b = net.const(net.rng.uniform(-0.1, 0.1, cout).astype(np.float32), "b")
        return net.node("Add", [net.node("MatMul", [x, w]), b])

    def heads_split(x):
        # (N, T, d) -> (N, heads, T, d / heads)
        y = net.reshape(x, [net.dim(x, 0), net.dim(x, 1), [heads, d // heads]])
        return net.node("Transpose", [y], perm=[0, 2, 1, 3])

    for _ in range(2):
        h = layer_norm(x)
        q, k, v = (heads_split(linear(h, d, d)) for _ in range(3))
        kt = net.node("Transpose", [k], perm=[0, 1, 3, 2])
        att = net.node("MatMul", [q, kt])
        att = net.node("Div", [att, net.const(np.array(np.sqrt(d // heads), np.float32))])
        att = net.node("Softmax", [att], axis=3 if opset < 13 else -1)
        o = net.node("MatMul", [att, v])
        o = net.node("Transpose", [o], perm=[0, 2, 1, 3])
        o = net.reshape(o, [net.dim(o, 0), net.dim(o, 1), [d]])
        x = net.node("Add", [x, linear(o, d, d)])
        h = layer_norm(x)
        f = net.node("Relu", [linear(h, d, 2 * d)])
        x = net.node("Add", [x, linear(f, 2 * d, d)])
    logits = linear(layer_norm(x), d, classes)
    y = net.node("Softmax", [logits], axis=2 if opset < 13 else -1)
    out = helper.make_tensor_value_info(y, TensorProto.FLOAT, ["batch", "time", classes])
    net.save(outdir, [image_input("image", h=32)], [out], [("image", [1, 3, 32, 160])])


def rec_neck(outdir, opset=9):
    """PP-OCRv4's recognition neck as Paddle2ONNX writes it at opset 9: the
    backbone's 3-high features pooled to one row, convolutions over that
    row with swish spelled x * Sigmoid(x * 1.0), the 1.0 a scalar Constant;
    then the row squeezed into a sequence.  The scalar Mul on a 1 x C x 1 x W
    map, C not a multiple of 16, is what oneDNN read as a permuted layout."""
    net = Net(f"rec_neck_op{opset}", opset, 13)
    c, mid, d, classes = 40, 60, 120, 37

    def swish(x):
        one = net.node("Constant", [], value=numpy_helper.from_array(np.array(1.0, np.float32)))
        return net.node("Mul", [x, net.node("Sigmoid", [net.node("Mul", [x, one])])])

    def conv_1xk(x, cin, cout, k):
        w = net.weight((cout, cin, 1, k), cin * k)
        y = net.node("Conv", [x, w], kernel_shape=[1, k], strides=[1, 1],
                     pads=[0, k // 2, 0, k // 2], group=1, dilations=[1, 1])
        return swish(net.bn(y, cout))

    x = net.node("AveragePool", ["features"], kernel_shape=[3, 2], strides=[3, 2],
                 pads=[0, 0, 0, 0], count_include_pad=0)
    x = conv_1xk(x, c, mid, 3)
    x = conv_1xk(x, mid, d, 1)
    x = net.node("Squeeze", [x], axes=[2])
    x = net.node("Transpose", [x], perm=[0, 2, 1])
    w = net.weight((d, classes), d)
    b = net.const(net.rng.uniform(-0.1, 0.1, classes).astype(np.float32), "b")
    y = net.node("Softmax", [net.node("Add", [net.node("MatMul", [x, w]), b])], axis=2)
    out = helper.make_tensor_value_info(y, TensorProto.FLOAT, ["batch", "time", classes])
    net.save(outdir, [image_input("features", c=c, h=3)], [out], [("features", [1, c, 3, 80])])


MODELS = {
    "resnet50_op9": lambda o: resnet50(o, 9),
    "resnet50_op11": lambda o: resnet50(o, 11),
    "mobilenetv3_op11": lambda o: mobilenetv3(o, 11),
    "mobilenetv3_op14": lambda o: mobilenetv3(o, 14),
    "dbnet_op9": lambda o: dbnet(o, 9),
    "dbnet_op11": lambda o: dbnet(o, 11),
    "textrec_op9": lambda o: textrec(o, 9),
    "textrec_op11": lambda o: textrec(o, 11),
    "rec_neck_op9": lambda o: rec_neck(o, 9),
}


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    for name in sys.argv[2:] or list(MODELS):
        if name not in MODELS:
            print(f"make_models: no model {name}; there are {' '.join(MODELS)}", file=sys.stderr)
            return 2
        MODELS[name](outdir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
