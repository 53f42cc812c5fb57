#!/bin/bash
# make check's host part for graph_test: the network of make_net.py as
# ONNX, compiled by atc into the .om aclmdlExecute runs, and run by
# onnxruntime (make ort) for the reference outputs, all in build/graph-net
# before the guest starts (make ort fetches the pinned onnxruntime-node
# first if build/ort lacks it).  Prints TAP.
set -u
cd "$(dirname "$0")/../.."
out=build/graph-net
echo "TAP version 13"
echo "1..3"
rm -rf "$out"
if tests/graph/make_net.py "$out"; then
	echo "ok 1 - make_net.py wrote $out/net.onnx"
else
	echo "not ok 1 - make_net.py"
fi
if build/atc --model="$out/net.onnx" --framework=5 --output="$out/net" >/dev/null; then
	echo "ok 2 - atc compiled $out/net.om"
else
	echo "not ok 2 - atc $out/net.onnx"
fi
[ -f build/ort/node_modules/onnxruntime-node/package.json ] || make ort >&2
if NODE_PATH=build/ort/node_modules node tests/onnx/ort_run.js "$out/net.onnx" "$out/ort" x="$out/input.bin:float32:1,3,16,16" \
	| sed 's/^/# /' && [ -s "$out/ort/output_0.bin" ]; then
	echo "ok 3 - onnxruntime wrote $out/ort/output_0.bin"
else
	echo "not ok 3 - onnxruntime (make ort) on $out/net.onnx"
fi
