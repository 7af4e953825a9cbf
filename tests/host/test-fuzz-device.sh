#!/usr/bin/env bash
# Short device fuzzing runs for make check (TAP): random MMIO, rings, page tables and
# programs through qtest must neither crash nor hang QEMU; then the deterministic
# scenarios (fuzz-device --scenario), each reproducing a finding that random inputs did
# not reach; then a short coverage-guided run of the mxa target in QEMU's own fuzzing
# framework (ASan + UBSan, seeded with fuzz-device's inputs). The long runs are
# `make fuzz-device SECONDS=N` (coverage guided) and `make fuzz-device-qtest SECONDS=N`.
. "$(dirname "$0")/../../scripts/mxa-env.sh"
echo "TAP version 13"
echo "1..6"
secs=${MXA_FUZZ_CHECK_SECONDS:-20}
if out=$("$MXA_BUILD/tests/fuzz-device" --qemu "$MXA_CACHE/qemu/qemu-system-x86_64" \
	--seconds "$secs" 2>&1); then
	echo "$out" | sed 's/^/# /'
	echo "ok 1 fuzz-device: $(echo "$out" | tail -n1 | sed 's/^fuzz-device: //') in ${secs}s"
else
	echo "$out" | tail -n 40 | sed 's/^/# /'
	echo "not ok 1 fuzz-device found a problem (replay with the seed above)"
	fail=1
fi
# scenario N NAME "QEMU ARGS" DESCRIPTION: one deterministic fuzz-device scenario
scenario() {
	local out
	if out=$("$MXA_BUILD/tests/fuzz-device" --qemu "$MXA_CACHE/qemu/qemu-system-x86_64" \
		--qemu-args "$3" --scenario "$2" 2>&1); then
		echo "$out" | sed 's/^/# /'
		echo "ok $1 scenario $2: $4"
	else
		echo "$out" | tail -n 20 | sed 's/^/# /'
		echo "not ok $1 scenario $2: $4"
		fail=1
	fi
}
# A job polling a semaphore mapped onto MMIO while the machine resets: QEMU deadlocked
# (queue thread waiting for the BQL, reset holding it while waiting for the thread).
scenario 2 mmio-dma-reset "" "device DMA to MMIO refused, the reset completes"
# TLB_INVAL is a barrier: a DMA run in flight (held 0.3 s) is done before BUSY clears,
# and no page is written after the invalidation that unmapped it has completed.
scenario 3 tlb-barrier "-global mxa.x-dma-delay-us=300000" \
	"no page written after its invalidation completed"
# The same across the wrap of the 64-bit TLB generation (x-tlb-gen starts the device so
# that the scenario's TLB_INVAL takes it from 2^64 - 1 past 0): an ordered comparison
# of generations missed the run in flight there.
scenario 4 tlb-barrier "-global mxa.x-dma-delay-us=300000 -global mxa.x-tlb-gen=0xfffffffffffffffa" \
	"the same across the TLB generation's wrap"
# Control jobs end within their doorbell write; what the doorbell leaves to the queue
# thread (a COPY and the job behind it, an unmapped program) ends there with the
# results it had before.
scenario 5 doorbell-jobs "" "control jobs end within their doorbell write"
# The coverage-guided target, from its seeds alone (a fresh corpus each time).
csecs=${MXA_FUZZ_CHECK_COVERAGE_SECONDS:-30}
corpus="$MXA_BUILD/fuzz/device-corpus-check"
rm -rf "$corpus"
if out=$("$(dirname "$0")/../fuzz/run-qemu-fuzz.sh" "$csecs" "$corpus" "$MXA_BUILD/fuzz/device-seeds" 2>&1); then
	echo "ok 6 $(echo "$out" | tail -n1)"
else
	echo "$out" | tail -n 30 | sed 's/^/# /'
	echo "not ok 6 the coverage-guided mxa target found a problem (input in $MXA_BUILD/fuzz/)"
	fail=1
fi
exit ${fail:-0}
