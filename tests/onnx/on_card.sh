#!/bin/bash
# In a guest (tools/check): ONNX's conformance tests that atc compiled, and
# the test networks, on the card through aclmdlExecute.  The conformance
# results go to build/conformance/results.tap, for the host to merge with
# the tests atc rejected (prepare.py tap); the networks print TAP, one line
# each, after their largest difference from onnxruntime.
set -u
cd "$(dirname "$0")/../.."

build/tests/om_conformance build/conformance/manifest.txt >build/conformance/results.tap 2>&1
rc=$?
[ $rc -le 1 ] || echo "not ok - om_conformance exited with status $rc"
build/tests/om_conformance build/e2e/manifest.txt
