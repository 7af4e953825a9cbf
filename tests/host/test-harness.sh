#!/usr/bin/env bash
# Host test of the test machinery itself (TAP 13): the TAP merger counts failures,
# crashes and skips correctly, the VM harness reports a failing guest program, kills a
# hung guest, boots once more (and says so) where the guest kernel died or hung before
# /init, and tells injected allocation failures from kernel problems. Needs the QEMU
# binary, kernel and initramfs that `make check` builds first (paths from
# scripts/mxa-env.sh and $MXA_BUILD).
set -u
. "$(dirname "$0")/../../scripts/mxa-env.sh"
top=$MXA_TOP
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0 fails=0
tap() { # ok|not-ok description
	n=$((n + 1))
	if [ "$1" = ok ]; then echo "ok $n $2"; else echo "not ok $n $2"; fails=$((fails + 1)); fi
}
expect() { # description command... ; passes when the command succeeds
	local d=$1; shift
	if "$@" >"$work/out" 2>&1; then tap ok "$d"; else tap not-ok "$d"; sed 's/^/# /' "$work/out" | tail -20; fi
}
echo "TAP version 13"
echo "1..22"

# --- tap-merge.py ---
mkdir -p "$work/t1"
printf 'ok 1 a\nok 2 b # SKIP no hardware\n' >"$work/t1/good.tap"; echo 0 >"$work/t1/good.rc"
"$top/tests/tap-merge.py" "$work/m1.tap" src="$work/t1" >"$work/m1.out"
expect "tap-merge: passing and skipped points give exit 0 and the summary line" \
	grep -qx "1 passed, 0 failed, 1 skipped" "$work/m1.out"
printf 'ok 1 a\nnot ok 2 b\n' >"$work/t1/bad.tap"; echo 1 >"$work/t1/bad.rc"
if "$top/tests/tap-merge.py" "$work/m2.tap" src="$work/t1" >"$work/m2.out"; then
	tap not-ok "tap-merge: a failing point makes it exit non-zero"
else
	tap ok "tap-merge: a failing point makes it exit non-zero"
fi
expect "tap-merge: the failure is counted" grep -qx "2 passed, 1 failed, 1 skipped" "$work/m2.out"
mkdir -p "$work/t2"
printf 'ok 1 a\n' >"$work/t2/crash.tap"; echo 139 >"$work/t2/crash.rc"
printf '# nothing\n' >"$work/t2/silent.tap"; echo 0 >"$work/t2/silent.rc"
"$top/tests/tap-merge.py" "$work/m3.tap" src="$work/t2" >"$work/m3.out"
expect "tap-merge: a crash after passing points and a binary without points both fail" \
	grep -qx "1 passed, 2 failed" "$work/m3.out"

mkdir -p "$work/t3"
printf 'ok 1 a\n' >"$work/t3/one.tap"; echo 0 >"$work/t3/one.rc"
printf 'one\ntwo\nkernel\n' >"$work/t3/EXPECTED"
"$top/tests/tap-merge.py" "$work/m4.tap" src="$work/t3" >"$work/m4.out"
expect "tap-merge: each expected binary without a TAP file fails" \
	sh -c "grep -qx '1 passed, 2 failed' '$work/m4.out' && grep -q 'src/two: never reported' '$work/m4.out'"
mkdir -p "$work/t4"; echo 137 >"$work/t4/HARNESS.rc"
if "$top/tests/tap-merge.py" "$work/m5.tap" src="$work/t4" >"$work/m5.out"; then
	tap not-ok "tap-merge: an empty results directory whose harness died fails"
else
	tap ok "tap-merge: an empty results directory whose harness died fails"
fi
expect "tap-merge: ... and names the harness' exit status" \
	sh -c "grep -qx '0 passed, 1 failed' '$work/m5.out' && grep -q 'harness exited with status 137' '$work/m5.out'"

# --- run-check.sh with guest runs broken on purpose: the harness killed before it writes
# any TAP (its QEMU kills it), and a QEMU that cannot be started. make check must fail,
# naming every guest binary that did not report.
printf '#!/bin/sh\nkill -KILL $PPID\n' >"$work/qemu-kills-harness"; chmod +x "$work/qemu-kills-harness"
for broken in "$work/qemu-kills-harness" "$work/no-such-qemu"; do
	MXA_QEMU=$broken "$top/tests/run-check.sh" "$work/check" "" "device bo" >"$work/rc.out" 2>&1
	rc=$?
	expect "run-check: guest runs broken by $(basename "$broken") make it exit non-zero" test "$rc" != 0
	expect "run-check: ... and every guest binary of every boot counts as failed" \
		sh -c "grep -qx '0 passed, 32 failed' '$work/rc.out' &&
		       grep -q 'guest-debug/bo: never reported' '$work/rc.out' &&
		       grep -q 'bench-model reported no kernel' '$work/rc.out' &&
		       grep -q 'guest/bo: never reported' '$work/rc.out' &&
		       grep -q 'guest-2dev/prime: never reported' '$work/rc.out' &&
		       grep -q 'guest-1cpu/gemm: never reported' '$work/rc.out'"
done

# --- run-guest.py: the kernel-log scan (no guest needed) ---
scan() { # log lines on stdin; prints "bad excused"
	python3 -c 'import sys, importlib.util as u
s = u.spec_from_file_location("rg", sys.argv[1]); m = u.module_from_spec(s); s.loader.exec_module(m)
bad, excused = m.kernel_problems(sys.stdin.read().splitlines()); print(len(bad), excused)' \
		"$top/tests/vm/run-guest.py"
}
alloc_fail='[ 1.0] mxa-stress: page allocation failure: order:0, mode:0xcc0(GFP_KERNEL)
[ 1.0] Call Trace:
[ 1.0]  </TASK>'
expect "run-guest: an injected allocation failure between the mxa-kfault markers is excused" \
	test "$(printf '[ 0.9] mxa-kfault: armed\n%s\n[ 1.1] mxa-kfault: disarmed\n' "$alloc_fail" | scan)" = "0 1"
expect "run-guest: the same report outside the markers fails the boot" \
	test "$(printf '%s\n[ 0.9] mxa-kfault: armed\n[ 1.1] mxa-kfault: disarmed\n' "$alloc_fail" | scan)" = "1 0"
expect "run-guest: KASAN, lockdep, kmemleak and debug-objects reports fail it, injected or not" \
	test "$(printf '%s\n' 'mxa-kfault: armed' 'BUG: KASAN: slab-use-after-free in mxa_job_free' \
		'WARNING: possible circular locking dependency detected' \
		'kmemleak: 2 new suspected memory leaks' 'ODEBUG: free active (active state 0)' | scan)" = "4 0"

# --- run-guest.py ---
vm() { "$top/tests/vm/boot-guest.sh" "$@"; }

vm --log "$work/ok.log" --run "true" --timeout 120 >"$work/ok.out" 2>&1
expect "run-guest: a guest whose program succeeds reports success" test $? = 0

vm --log "$work/fail.log" --run "false" --timeout 120 >"$work/fail.out" 2>&1
rc=$?
expect "run-guest: a failing guest program makes the run fail" test "$rc" != 0

# hung NAME WHAT LEFT REPORT VM-ARGS...: a guest run that hangs (WHAT) must fail within 60 s,
# leave no process matching LEFT and a kernel.tap matching each REPORT (a | b: both)
hung() {
	local name=$1 what=$2 left_re=$3 report=$4 start=$SECONDS rc took left
	shift 4
	vm --log "$work/$name.log" --tap-dir "$work/$name" "$@" >"$work/$name.out" 2>&1
	rc=$?
	took=$((SECONDS - start))
	expect "run-guest: $what fails the run (${took}s)" test "$rc" != 0 -a "$took" -lt 60
	left=$(pgrep -f "$left_re" || true)
	expect "run-guest: ... it is reported in TAP and nothing is left running" \
		sh -c "for r in $report; do grep -q \"\$r\" '$work/$name/kernel.tap' || exit 1; done
		       [ -z '$left' ]"
}
hung hang "a hung guest is killed at the timeout and" "[q]emu-system-x86_64 .*$work/hang.log" \
	"'^not ok 1 .*timed out'" --run "sleep 100000" --timeout 25

# A guest kernel that dies before /init (a QEMU whose first boot only prints an oops on
# the console, as Debian's kernel once did under TCG) is booted once more, and the report
# says so; one that hangs before /init is killed at --boot-timeout, twice, and fails.
con_log='for a; do case "$a" in file,id=con,path=*) log=${a#file,id=con,path=};; esac; done'
printf '#!/bin/sh\n%s\nif [ ! -e "%s" ]; then\n\ttouch "%s"\n\techo "[    0.52] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI" >>"$log"\n\techo "fake QEMU: the first boot stops"\n\texit 1\nfi\nexec "%s" "$@"\n' \
	"$con_log" "$work/oopsed" "$work/oopsed" "$MXA_QEMU" >"$work/qemu-oops-once"
printf '#!/bin/sh\n%s\necho "[    0.31] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:" >>"$log"\nexec sleep 1000\n' \
	"$con_log" >"$work/qemu-stalls"
chmod +x "$work/qemu-oops-once" "$work/qemu-stalls"
MXA_QEMU="$work/qemu-oops-once" vm --log "$work/oops.log" --tap-dir "$work/oops" --tests device \
	--timeout 300 >"$work/oops.out" 2>&1
rc=$?
expect "run-guest: a kernel that oopses before /init is booted once more, and its tests pass" \
	sh -c "[ $rc = 0 ] && grep -qx 0 '$work/oops/device.rc' && grep -q '^ok ' '$work/oops/device.tap'"
expect "run-guest: ... kernel.tap names the first boot's oops; its console and QEMU output are kept" \
	sh -c "grep -q '^ok 1 ' '$work/oops/kernel.tap' &&
	       grep -q '^# this was the second boot; the first: QEMU exited with status 1 before /init (.*Oops: int3.*oops.log.boot1' '$work/oops/kernel.tap' &&
	       grep -q 'Oops: int3' '$work/oops.log.boot1' &&
	       grep -qx '# qemu: fake QEMU: the first boot stops' '$work/oops.log.boot1'"
MXA_QEMU="$work/qemu-stalls" hung stall \
	"a kernel that hangs before /init twice is killed at the boot timeout and" \
	"^sleep 1000\$" "'^not ok 1 .*did not reach /init in 3s' '^# this was the second boot'" \
	--run "true" --timeout 120 --boot-timeout 3
exit $((fails > 0))
