# SPDX-License-Identifier: GPL-2.0-only OR MIT
# TAP lines for the shell test suites, which tools/check counts.
# check NAME EXPECTED ACTUAL: "ok N NAME" when they are equal, else
# "not ok N NAME: ..." and $failed set to 1.
# step DESCRIPTION COMMAND...: "ok N DESCRIPTION" when the command
# succeeds, else "not ok N - DESCRIPTION", the command's output as TAP
# comments, and $failed set to 1.  The command runs in this shell, so that
# what it sets stays set; its output goes through $tmp, the caller's
# scratch folder.

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

step() {
	local desc=$1

	shift
	n=$((n + 1))
	if "$@" >"${tmp:?step needs the scratch folder \$tmp}/step.log" 2>&1; then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc"
		sed 's/^/# /' "$tmp/step.log"
		failed=1
	fi
}
