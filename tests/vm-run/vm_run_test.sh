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

# The debug kernel's run check (--debug) on a finished run's directory:
# its exit status, or "passed".
debug_run_verdict() {
	(
		# shellcheck source=tools/vm-run
		source tools/vm-run
		debug=1 run_dir=$1
		check_debug_scan 2>/dev/null
		echo passed
	)
}

echo "TAP version 13"
echo "1..25"

printf 'boot\n\0\n[    1.5] WARNING: CPU: 0 PID: 1 at lib/x.c:1\n' >"$tmp/nul.log"
check "a NUL byte in the log does not hide a WARNING" 1 "$(scan_log "$tmp/nul.log" 'WARNING: CPU')"
printf 'boot\n[    2.0] \xfe Oops: 0000 [#1] SMP\n' >"$tmp/bytes.log"
check "a byte invalid in UTF-8 does not hide an Oops" 1 \
	"$(LC_ALL=C.UTF-8 scan_log "$tmp/bytes.log" 'Oops: 0000')"
printf 'boot\n\0\nvm-run guest: done\n' >"$tmp/clean.log"
check "a clean log with a NUL byte passes" none "$(scan_log "$tmp/clean.log" .)"

# What the debug kernel's checkers print (tools/vm-run --debug), each alone:
# a lockdep splat, a KASAN report, sleeping in atomic context, a kmemleak
# suspect as tools/guest/run copies it to the console, a DMA-API error.
printf '[   9.1] ======================================================\n[   9.1] WARNING: possible circular locking dependency detected\n' >"$tmp/lockdep.log"
check "a lockdep splat fails the run" 1 "$(scan_log "$tmp/lockdep.log" 'circular locking')"
printf '[   9.2] ==================================================================\n[   9.2] BUG: KASAN: slab-use-after-free in npu_job_free+0x1c/0x90 [npu]\n' >"$tmp/kasan.log"
check "a KASAN report fails the run" 1 "$(scan_log "$tmp/kasan.log" 'KASAN: slab-use-after-free')"
printf '[   9.3] BUG: sleeping function called from invalid context at kernel/locking/mutex.c:283\n' >"$tmp/atomic.log"
check "sleeping in atomic context fails the run" 1 "$(scan_log "$tmp/atomic.log" 'sleeping function')"
printf 'unreferenced object 0xffff888004b6a000 (size 64):\n  comm "insmod", pid 97, jiffies 4294893410\n' >"$tmp/leak.log"
check "a kmemleak suspect fails the run" 1 "$(scan_log "$tmp/leak.log" 'unreferenced object')"
printf '[   9.4] DMA-API: npu 0000:00:04.0: device driver frees DMA memory with different size [device address=0x0000000003f6c000] [map size=4096 bytes] [unmap size=8192 bytes]\n' >"$tmp/dma.log"
check "a DMA-API error fails the run" 1 "$(scan_log "$tmp/dma.log" 'DMA-API: npu')"
# What the debug kernel says at every boot.
printf '%s\n' '[    0.0] DMA-API: preallocated 65536 debug entries' \
	'[    0.0] DMA-API: debugging enabled by kernel config' \
	'[    0.0] kmemleak: Kernel memory leak detector initialized (mem pool available: 15694)' \
	'[    0.0] Lock dependency validator: Copyright (c) 2006 Red Hat, Inc., Ingo Molnar' \
	'[    0.0] kasan: KernelAddressSanitizer initialized' >"$tmp/debug-boot.log"
check "the debug kernel's boot notes pass" none "$(scan_log "$tmp/debug-boot.log" .)"

# A debug run counts only if the guest asked kmemleak for its report.
mkdir -p "$tmp/run/scanned" "$tmp/run/unscanned"
echo 0 | tee "$tmp/run/scanned/status" >"$tmp/run/unscanned/status"
printf 'boot\n[  99.0] vm-run guest: kmemleak scanned\n' >"$tmp/run/scanned/console.log"
printf 'boot\n[  99.0] vm-run guest: command exited with status 0\n' >"$tmp/run/unscanned/console.log"
check "a debug run whose guest scanned for leaks passes" passed "$(debug_run_verdict "$tmp/run/scanned")"
check "a debug run whose guest did not scan for leaks fails" 3 \
	"$(debug_run_verdict "$tmp/run/unscanned"; echo $?)"

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
check "a panicked guest leaves no card, QEMU or shared memory" 0/0 \
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

# --host-socket: a line to the host's listening socket and the answer back.
/usr/bin/python3 - "$tmp/host.sock" <<'PY' &
import socket, sys
srv = socket.socket(socket.AF_UNIX)
srv.bind(sys.argv[1])
srv.listen(1)
conn, _ = srv.accept()
f = conn.makefile("rw")
f.write("host got " + f.readline())
f.flush()
f.read()
PY
server=$!
for _ in $(seq 100); do [[ -S $tmp/host.sock ]] && break; sleep 0.1; done
out=$(vm_run --no-driver --cards 0 --host-socket "npu.test=$tmp/host.sock" -- bash -c '
	for p in /sys/class/virtio-ports/*; do
		[[ $(<"$p/name") == npu.test ]] && exec 3<>"/dev/${p##*/}"
	done
	echo hello >&3 && read -r line <&3 && echo "$line"')
check "--host-socket joins a guest port to a host socket" "host got hello" "$out"
wait "$server"
check "the host's end sees the guest go" 0 "$?"
vm_run --no-driver --host-socket 'npu.test' -- true >/dev/null 2>&1
check "--host-socket without =PATH is a usage error" 2 "$?"

# shellcheck disable=SC2046 # one pid per word
check "no card, QEMU or shared memory left" 0/0 "$(leftovers $(cat "$tmp/pids"))"
exit $failed
