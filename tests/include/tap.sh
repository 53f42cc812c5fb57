# SPDX-License-Identifier: GPL-2.0-only OR MIT
# TAP lines for the shell test suites, which tools/check counts.
# check NAME EXPECTED ACTUAL: "ok N NAME" when they are equal, else
# "not ok N NAME: ..." and $failed set to 1.

n=0
failed=0
check() {
	n=$((n + 1))
	if [ "$2" = "$3" ]; then
		echo "ok $n $1"
	else
		echo "not ok $n $1: expected '$2', got '$3'"
		failed=1
	fi
}
