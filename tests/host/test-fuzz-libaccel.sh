#!/usr/bin/env bash
# Short coverage-guided fuzzing runs of libaccel's parsers for make check (TAP): libFuzzer
# with ASan and UBSan. fuzz-asm: the assembler and disassembler, seeded with the example
# programs, round trips as the oracle; fuzz-tmap: the tensor-map encoder against the
# device's rules; fuzz-args: the driver's argument checks (driver/mxa_args.h, built in
# userspace) against the uAPI's rules (tests/fuzz/). The long runs: make fuzz-asm /
# fuzz-tmap / fuzz-args SECONDS=N.
. "$(dirname "$0")/../../scripts/mxa-env.sh"
echo "TAP version 13"
echo "1..3"
secs=${MXA_FUZZ_LIBACCEL_SECONDS:-10}
fail=0
# run N NAME WHAT SEEDS...: one libFuzzer run of NAME in a fresh corpus holding SEEDS
run() {
	local n=$1 name=$2 what=$3 corpus out runs cov
	shift 3
	corpus=$(mktemp -d)
	[ $# -gt 0 ] && cp "$@" "$corpus"/
	if out=$(cd "$corpus" && "$MXA_BUILD/tests/$name" -max_total_time="$secs" -max_len=4096 \
		-print_final_stats=1 "$corpus" 2>&1); then
		runs=$(echo "$out" | sed -n 's/^stat::number_of_executed_units: *//p')
		cov=$(echo "$out" | sed -n 's/.*DONE *cov: \([0-9]*\).*/\1/p')
		echo "ok $n $name: ${runs:-?} inputs in ${secs}s (coverage ${cov:-?} edges), $what, no sanitizer report"
	else
		echo "$out" | tail -n 40 | sed 's/^/# /'
		echo "not ok $n $name found a problem (the input is in the output above)"
		fail=1
	fi
	rm -rf "$corpus"
}
run 1 fuzz-asm "every round trip exact" "$MXA_BUILD"/fuzz/asm-corpus/seed-*
run 2 fuzz-tmap "every accepted map passes the device's rules"
run 3 fuzz-args "every verdict the uAPI's"
exit $fail
