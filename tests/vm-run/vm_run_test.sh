#!/bin/bash
# tools/vm-run itself: the command's status and bytes come back, kernel
# trouble in the guest fails the run (the log scan is also tried on crafted
# logs, without a guest), the options take effect, and nothing is left
# behind. Another vm-run may run at the same time: only what this suite
# started counts. Prints TAP.
set -u
cd "$(dirname "$0")/../.."

tmp=$(mktemp -d /tmp/vm-run-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

. tests/include/tap.sh

# tools/vm-run, recording its pid: a run's id, and so the name of every
# process and file it makes, ends in the pid of the vm-run that made it.
vm_run() {
	(echo "$BASHPID" >>"$tmp/pids" && exec tools/vm-run "$@")
}

# Processes and shared-memory files left by the runs of the given pids.
leftovers() {
	local pid procs=0 shm=0
	for pid in "$@"; do
		procs=$((procs + $(pgrep -f "/build/vm/[0-9]{8}-[0-9]{6}-$pid/" | wc -l)))
		shm=$((shm + $(find /dev/shm -maxdepth 1 -name "npu-vm-*-$pid-*" | wc -l)))
	done
	echo "$procs/$shm"
}

# vm-run's own log scan on a file: the first lines of its excerpt, or "none".
scan_log() {
	(
		# shellcheck source=tools/vm-run
		source tools/vm-run
		if excerpt=$(trouble_excerpt "$1"); then
			echo "$excerpt" | grep -a -c -E "$2"
		else
			echo none
		fi
	)
}

echo "TAP version 13"
echo "1..14"

printf 'boot\n\0\n[    1.5] WARNING: CPU: 0 PID: 1 at lib/x.c:1\n' >"$tmp/nul.log"
check "a NUL byte in the log does not hide a WARNING" 1 "$(scan_log "$tmp/nul.log" 'WARNING: CPU')"
printf 'boot\n[    2.0] \xfe Oops: 0000 [#1] SMP\n' >"$tmp/bytes.log"
check "a byte invalid in UTF-8 does not hide an Oops" 1 \
	"$(LC_ALL=C.UTF-8 scan_log "$tmp/bytes.log" 'Oops: 0000')"
printf 'boot\n\0\nvm-run guest: done\n' >"$tmp/clean.log"
check "a clean log with a NUL byte passes" none "$(scan_log "$tmp/clean.log" .)"

out=$(vm_run --no-driver -- sh -c 'printf "a\nb\r\n"; exit 7' | od -An -c | tr -s ' ')
check "output bytes arrive unchanged" " a \n b \r \n" "$(echo $out | sed 's/^/ /')"
out=$(vm_run --no-driver -- sh -c 'exit 7' >/dev/null 2>&1; echo $?)
check "the command's exit status is vm-run's" 7 "$out"

vm_run --no-driver -- sh -c 'echo l > /proc/sysrq-trigger' >/dev/null 2>"$tmp/err"
check "a call trace in the guest log fails the run" 3 "$?"
grep -q 'kernel trouble' "$tmp/err"
check "the failure shows the log excerpt" 0 "$?"

vm_run --no-driver -- sh -c 'echo c > /proc/sysrq-trigger' >/dev/null 2>"$tmp/err"
check "a guest kernel panic fails the run" 125 "$?"
grep -q 'Kernel panic' "$tmp/err"
check "the failure shows the panic" 0 "$?"
check "a panicked guest leaves no model, QEMU or shared memory" 0/0 \
	"$(leftovers "$(tail -n 1 "$tmp/pids")")"

# devmem_size is BAR2, rounded up to a power of two, less 64 KiB of registers.
vm_run --cards 2 --mem 640 --devmem 100 -- sh -c 'ls /dev/accel
	cat /sys/bus/pci/devices/*/npu/devmem_size
	grep MemTotal /proc/meminfo' >"$tmp/out"
check "two cards give accel0 and accel1" "accel0 accel1 " "$(grep accel "$tmp/out" | tr '\n' ' ')"
check "--devmem sizes every card's device memory" "134152192 134152192 " \
	"$(grep -E '^[0-9]+$' "$tmp/out" | tr '\n' ' ')"
kib=$(awk '/MemTotal/ { print $2 }' "$tmp/out")
check "--mem sizes the guest's memory" yes \
	"$( ((kib > 560 * 1024 && kib <= 640 * 1024)) && echo yes || echo "no: MemTotal $kib kB")"

# shellcheck disable=SC2046 # one pid per word
check "no model, QEMU or shared memory left" 0/0 "$(leftovers $(cat "$tmp/pids"))"
exit $failed
