#!/bin/bash
# SPDX-License-Identifier: MIT
# tools/atc on the host: its command line, its errors (non-zero exit, the
# node named, no .om written), and the networks of tests/onnx/make_models.py
# compiled with their --input_shape, each .om checked by om_check (through
# build/tests/om_check). Prints TAP.
set -u
cd "$(dirname "$0")/../.."

atc=build/atc
models=build/onnx-models
testdata=/usr/share/libonnx-testdata/data/node
tmp=$(mktemp -d /tmp/atc-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

. tests/include/tap.sh

# Exit status of atc with the given arguments, its output in $tmp/out.
atc_rc() {
	"$atc" "$@" >"$tmp/out" 2>&1
	echo $?
}

model_list=$(ls "$models"/*.onnx 2>/dev/null)
echo "TAP version 13"
echo "1..$((13 + 2 * $(echo "$model_list" | grep -c .)))"

check "--help exits 0" 0 "$(atc_rc --help)"
check "--help lists --input_shape" 1 "$(grep -c -- '--input_shape' "$tmp/out")"
check "no --model is an error" 1 "$(atc_rc --framework=5 --output="$tmp/x")"
check "--framework=3 is refused" 1 "$(atc_rc --model="$testdata/test_relu/model.onnx" --framework=3 --output="$tmp/x")"
check "an unknown option is refused" 1 "$(atc_rc --model=m --framework=5 --output=o --frobnicate=1)"

rc=$(atc_rc --model="$testdata/test_conv_with_strides_padding/model.onnx" --framework=5 \
	--output="$tmp/conv" --soc_version=Ascend310P3 --log=error --input_format=NCHW --output_type=FP32)
check "a convolution compiles" 0 "$rc"
check "it prints the workspace and weight sizes" 2 "$(grep -c -E '^(workspace|weight) size: [0-9]+ bytes$' "$tmp/out")"
check "and writes <output>.om that passes the format checks" ok "$(build/tests/om_check "$tmp/conv.om")"

rc=$(atc_rc -model "$testdata/test_relu/model.onnx" -framework 5 -output "$tmp/relu" --soc-version Ascend910)
check "the vendor's spellings (-opt value, soc-version) work" 0:1 "$rc:$(ls "$tmp"/relu.om 2>/dev/null | wc -l)"

rc=$(atc_rc --model="$testdata/test_nonzero_example/model.onnx" --framework=5 --output="$tmp/nz")
check "an unsupported operator fails and writes no .om" 2:0 "$rc:$(ls "$tmp"/nz.om* 2>/dev/null | wc -l)"
check "the error names the node and the op type" 1 "$(grep -c "node '.*' (NonZero): operator NonZero is not supported" "$tmp/out")"

src=$testdata/test_conv_with_strides_padding/model.onnx
head -c $(($(stat -c %s "$src") / 2)) "$src" >"$tmp/truncated.onnx"
rc=$(atc_rc --model="$tmp/truncated.onnx" --framework=5 --output="$tmp/trunc")
check "a truncated model fails and writes no .om" 2:0 "$rc:$(ls "$tmp"/trunc.om* 2>/dev/null | wc -l)"
rc=$(atc_rc --model="$testdata/test_conv_with_strides_padding/model.onnx" --framework=5 \
	--output="$tmp/nodir/conv")
check "an unwritable output fails and leaves nothing" 1:0 "$rc:$(ls "$tmp"/nodir 2>/dev/null | wc -l)"

for m in $model_list; do
	name=$(basename "$m" .onnx)
	rc=$(atc_rc --model="$m" --framework=5 --output="$tmp/$name" \
		--input_shape="$(cat "$models/$name.shape")" --soc_version=Ascend310P3)
	check "$name compiles" 0 "$rc"
	[ "$rc" = 0 ] || sed 's/^/# /' "$tmp/out"
	echo "# $name: $(grep -E 'size|operators' "$tmp/out" | tr '\n' ' ')"
	check "$name.om passes the format checks" ok "$(build/tests/om_check "$tmp/$name.om" 2>&1)"
	rm -f "$tmp/$name.om"
done
