#!/bin/bash
# The pytest suites of the Python module acl (tests/python/test_*.py), run
# by Debian's python3 (python3-pytest) against build/python. Prints TAP, one
# line per test from pytest's JUnit XML and pytest's own output as comments,
# so that tools/run-suites and tools/check count each test.
# Run in a guest with two cards (tools/check, make python-test).
set -u
cd "$(dirname "$0")/../.."

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export PYTHONPATH=$PWD/build/python PYTHONDONTWRITEBYTECODE=1
/usr/bin/python3 -m pytest -p no:cacheprovider -q --junitxml="$tmp/junit.xml" \
	tests/python >"$tmp/out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/out"
/usr/bin/python3 tests/python/junit_tap.py "$tmp/junit.xml" "$rc"
