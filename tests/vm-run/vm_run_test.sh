#!/bin/bash
# tools/vm-run itself: the command's status and bytes come back, kernel
# trouble in the guest fails the run, and nothing is left behind.
# Prints TAP.
set -u
cd "$(dirname "$0")/../.."

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

# Processes and shared memory of any vm-run; the suite runs alone.
leftovers() {
	local procs shm
	procs=$(pgrep -f 'npu-model --socket .*/build/vm/|qemu-system.*build/vm/' | wc -l)
	shm=$(find /dev/shm -maxdepth 1 -name 'npu-vm-*' | wc -l)
	echo "$procs/$shm"
}

echo "TAP version 13"
echo "1..6"

out=$(tools/vm-run --no-driver -- sh -c 'printf "a\nb\r\n"; exit 7' | od -An -c | tr -s ' ')
check "output bytes arrive unchanged" " a \n b \r \n" "$(echo $out | sed 's/^/ /')"
out=$(tools/vm-run --no-driver -- sh -c 'exit 7' >/dev/null 2>&1; echo $?)
check "the command's exit status is vm-run's" 7 "$out"

tools/vm-run --no-driver -- sh -c 'echo l > /proc/sysrq-trigger' >/dev/null 2>/tmp/vm-run-test.$$
check "a call trace in the guest log fails the run" 3 "$?"
grep -q 'kernel trouble' /tmp/vm-run-test.$$
check "the failure shows the log excerpt" 0 "$?"
rm -f /tmp/vm-run-test.$$

out=$(tools/vm-run --cards 2 -- ls /dev/accel | tr '\n' ' ')
check "two cards give accel0 and accel1" "accel0 accel1 " "$out"

check "no model, QEMU or shared memory left" "0/0" "$(leftovers)"
exit $failed
