#!/usr/bin/env bash
# run-qemu-fuzz.sh SECONDS CORPUS SEEDS... - run QEMU's libFuzzer binary on the mxa
# target (tests/fuzz/mxa_qemu_fuzz.c) for SECONDS, growing CORPUS from the seed folders,
# and print one summary line: executions, their rate, corpus size, coverage, findings.
# Exit status: 0 with no finding; a crash, sanitizer report, leak or timeout leaves its
# input in $MXA_BUILD/fuzz/device-crash-* (libFuzzer's artifact) and exits non-zero.
set -uo pipefail
. "$(dirname "$0")/../../scripts/mxa-env.sh"
secs=$1 corpus=$2; shift 2
fuzz="$MXA_CACHE/qemu/qemu-fuzz-x86_64"
[ -x "$fuzz" ] || mxa_die "$fuzz missing: make qemu-fuzz builds it"
mkdir -p "$corpus" "$MXA_BUILD/fuzz"
log="$MXA_BUILD/fuzz/device-libfuzzer.log"
start=$(date +%s)
# -timeout: an input that runs 10 s is a hang (the device's own waits end sooner).
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	"$fuzz" --fuzz-target=mxa -max_total_time="$secs" -timeout=10 -rss_limit_mb=4096 \
	-print_final_stats=1 -artifact_prefix="$MXA_BUILD/fuzz/device-" "$corpus" "$@" >"$log" 2>&1
rc=$?
took=$(($(date +%s) - start))
stat() { sed -n "s/^stat::$1: *//p" "$log" | tail -n1; }
execs=$(stat number_of_executed_units)
edges=$(grep -ao 'cov: [0-9]*' "$log" | tail -n1 | cut -d' ' -f2)
inputs=$(find "$corpus" -type f | wc -l)
if [ "$rc" = 0 ]; then
	echo "fuzz-device: ${execs:-0} executions in ${took} s ($(( ${execs:-0} / (took > 0 ? took : 1) ))/s), corpus $inputs inputs, coverage ${edges:-?} edges, 0 findings (log: $log)"
else
	grep -aE 'ERROR|SUMMARY|Test unit written|==[0-9]+==' "$log" | head -20 >&2
	echo "fuzz-device: FINDING after ${execs:-?} executions (exit $rc; log: $log)"
fi
exit $rc
