#!/bin/bash
# The example programs (build/examples), each a test: it must exit 0 and
# print what it did. Prints TAP with each program's output as comments;
# run in a guest with two cards (tools/check, make check).
set -u
cd "$(dirname "$0")/../.."

# ocr needs the models and image make run prepares (build/ocr), and its
# recognition does not read the rendered line yet: make run runs it.
examples=()
for e in build/examples/*; do
	[ "$e" = build/examples/ocr ] || examples+=("$e")
done
n=0
failed=0
echo "TAP version 13"
echo "1..${#examples[@]}"
for e in "${examples[@]}"; do
	n=$((n + 1))
	out=$(timeout 120 "$e" 2>&1)
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
