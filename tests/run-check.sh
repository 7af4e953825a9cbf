#!/usr/bin/env bash
# make check: host tests, the guest kselftests in six TCG guests and once more on the
# debug kernel (KASAN, lockdep, UBSAN, kmemleak, fault injection), the cycle model against
# the H200 in an eighth; one TAP stream in $BUILD/check.tap and one summary line.
# usage: run-check.sh BUILD "host tests" "guest tests"
#
# Nothing can pass by not running: each results directory lists the binaries expected to
# report there (EXPECTED), and the harness's own exit status (HARNESS.rc). tap-merge.py
# fails every expected binary that left no TAP, and a harness that failed without any
# failing point (a crash before its first TAP file).
set -uo pipefail
. "$(dirname "$0")/../scripts/mxa-env.sh"
build=$1; host_tests=$2; guest_tests=$3
tapdir="$build/tap"
rm -rf "$tapdir"; mkdir -p "$tapdir/host"

names() { for t in "$@"; do basename "$t"; done; }

mxa_step "host tests"
names $host_tests >"$tapdir/host/EXPECTED"
for t in $host_tests; do
	name=$(basename "$t")
	start=$(date +%s.%N)
	"$t" >"$tapdir/host/$name.tap" 2>&1 </dev/null
	echo $? >"$tapdir/host/$name.rc"
	mxa_info "$name: exit $(cat "$tapdir/host/$name.rc") ($(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)")s)"
done

# boot LABEL "TESTS" [run-guest.py options]: one guest running TESTS, results in $tapdir/LABEL;
# with boot_cpu set, QEMU runs on that host CPU alone (taskset)
boot() {
	local label=$1 tests=$2; shift 2
	local dir="$tapdir/$label"
	mkdir -p "$dir"
	{ names $tests; echo kernel; } >"$dir/EXPECTED"
	${boot_cpu:+taskset -c "$boot_cpu"} "$(dirname "$0")/vm/boot-guest.sh" \
		--log "$build/$label-console.log" --tap-dir "$dir" --tests "$tests" "$@"
	echo $? >"$dir/HARNESS.rc"
}

# require LABEL BINARY WHAT POINT...: the boot LABEL must have run each POINT of BINARY,
# not skipped it
require() {
	local dir="$tapdir/$1" bin="$2" what="$3" n=0 point
	shift 3
	for point; do
		n=$((n + 1))
		if grep -Eq "^ok [0-9]+ ${point//./\\.}\$" "$dir/$bin.tap" 2>/dev/null; then
			echo "ok $n $what ran $point"
		else
			echo "not ok $n $what did not run $point"
		fi
	done >"$dir/$bin-required.tap"
	echo 0 >"$dir/$bin-required.rc"
	echo "$bin-required" >>"$dir/EXPECTED"
}

mxa_step "guest tests (TCG guest; console log: $build/guest-console.log)"
boot guest "$guest_tests"

mxa_step "guest tests with -device mxa,numerics=hopper (console log: $build/guest-hopper-console.log)"
boot guest-hopper "mma" --device-args numerics=hopper
require guest-hopper mma "numerics=hopper boot" mma.hopper_numerics_mode

mxa_step "guest tests with two mxa devices (console log: $build/guest-2dev-console.log)"
boot guest-2dev "prime" --devices 2
require guest-2dev prime "two-device boot" prime.another_device

mxa_step "guest tests with -device mxa,max-host-mem-mb=64,mbar-timeout-us=100000 (console log: $build/guest-limits-console.log)"
boot guest-limits "errors_classes tma" --device-args max-host-mem-mb=64,mbar-timeout-us=100000
require guest-limits errors_classes "max-host-mem-mb=64 boot" \
	errors_classes.gemm_beyond_the_host_memory_budget \
	errors_classes.gemv_weights_beyond_the_budget_are_read_in_place \
	errors_classes.nvfp4_expansion_counts_in_the_budget
require guest-limits tma "mbar-timeout-us=100000 boot" tma.mbar_wait_times_out

mxa_step "guest tests with -device mxa,timeline=$build/timeline.json,timing=h200,cores=16 (console log: $build/guest-timeline-console.log)"
rm -f "$build/timeline.json"
boot guest-timeline "tma async grid" --device-args "timeline=$(realpath -m "$build")/timeline.json,timing=h200,cores=16"
"$(dirname "$0")/host/check-timeline.py" "$build/timeline.json" h200 >"$tapdir/guest-timeline/timeline.tap"
echo $? >"$tapdir/guest-timeline/timeline.rc"
echo timeline >>"$tapdir/guest-timeline/EXPECTED"

# QEMU on one host CPU (boot_cpu): a launch's instances then need more threads than it
# has, so every WGMMA issued to an idle math engine runs on the command processor
# (mxa_async_inline()), and the WGMMA and GEMM tests check that path's bits
cpu=$(python3 -c 'import os; print(min(os.sched_getaffinity(0)))')
mxa_step "guest tests with QEMU on host CPU $cpu alone: WGMMAs on the command processors (console log: $build/guest-1cpu-console.log)"
boot_cpu=$cpu boot guest-1cpu "wgmma gemm"
require guest-1cpu wgmma "one-CPU boot" wgmma.k_major_128b_swizzle_start_advances_in_the_row \
	wgmma.footprint_follows_the_rows
require guest-1cpu gemm "one-CPU boot" gemm.pipeline_spread_over_the_cores

mxa_step "guest tests on the debug kernel: KASAN, lockdep, UBSAN, kmemleak, fault injection (console log: $build/guest-debug-console.log)"
kobj=$("$(dirname "$0")/../scripts/build-debug-kernel.sh")
MXA_GUEST_KERNEL="$kobj/arch/x86/boot/bzImage" MXA_INITRD="$build/debug/initramfs.cpio.gz" \
	boot guest-debug "$guest_tests"
require guest-debug stress "debug-kernel boot" stress.kernel_fault_injection_in_the_driver

mxa_step "the cycle model against the H200: bench-model with -device mxa,timing=h200 (console log: $build/guest-model-console.log)"
mkdir -p "$tapdir/guest-model"
echo model >"$tapdir/guest-model/EXPECTED"
"$(dirname "$0")/vm/boot-guest.sh" --log "$build/guest-model-console.log" --device-args timing=h200 \
	--run /bin/bench-model >"$build/model-raw.csv"
"$(dirname "$0")/../bench/model.py" --tap "$build/model-raw.csv" >"$tapdir/guest-model/model.tap"
echo $? >"$tapdir/guest-model/model.rc"

mxa_step "results ($build/check.tap)"
exec "$(dirname "$0")/tap-merge.py" "$build/check.tap" host="$tapdir/host" guest="$tapdir/guest" \
	guest-hopper="$tapdir/guest-hopper" guest-2dev="$tapdir/guest-2dev" \
	guest-limits="$tapdir/guest-limits" guest-timeline="$tapdir/guest-timeline" \
	guest-1cpu="$tapdir/guest-1cpu" \
	guest-debug="$tapdir/guest-debug" guest-model="$tapdir/guest-model"
