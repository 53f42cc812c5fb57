#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Turns pytest's JUnit XML into TAP: one "ok"/"not ok" line per test case,
a failure or error being "not ok" and a skip "ok ... # SKIP". A pytest that
did not end normally (exit status other than 0 or 1, or 1 without a failed
case, or no XML at all) adds one "not ok" line, so that it is counted.

Usage: junit_tap.py JUNIT_XML PYTEST_EXIT_STATUS
"""
import sys
import xml.etree.ElementTree as ET


def cases(path):
    """(name, verdict, detail) of every test case in the file."""
    for case in ET.parse(path).getroot().iter("testcase"):
        name = "%s::%s" % (case.get("classname", "?"), case.get("name", "?"))
        bad = case.find("failure")
        if bad is None:
            bad = case.find("error")
        skip = case.find("skipped")
        if bad is not None:
            yield name, "not ok", bad.get("message", "")
        elif skip is not None:
            yield name, "ok", "# SKIP " + skip.get("message", "")
        else:
            yield name, "ok", ""


def main():
    path, status = sys.argv[1], int(sys.argv[2])
    try:
        results = list(cases(path))
    except (OSError, ET.ParseError) as e:
        results = [("pytest report %s" % path, "not ok", str(e))]
    failed = any(verdict == "not ok" for _, verdict, _ in results)
    if status not in (0, 1) or (status == 1 and not failed) or not results:
        results.append(("pytest", "not ok", "exited with status %d" % status))
    print("TAP version 13")
    print("1..%d" % len(results))
    for n, (name, verdict, detail) in enumerate(results, 1):
        if verdict == "ok":
            print(("ok %d - %s %s" % (n, name, detail)).rstrip())
        else:
            print("not ok %d - %s" % (n, name))
            for line in detail.splitlines():
                print("#   " + line)
    return 1 if any(v == "not ok" for _, v, _ in results) else 0


if __name__ == "__main__":
    sys.exit(main())
