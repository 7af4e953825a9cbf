#!/usr/bin/env bash
# Short device fuzzing run for make check (TAP): random MMIO, rings, page tables and
# programs through qtest must neither crash nor hang QEMU. The long run, against an
# ASan/UBSan QEMU, is `make fuzz-device SECONDS=N`. Then the deterministic scenarios
# (fuzz-device --scenario): each reproduces a finding that random inputs did not reach.
. "$(dirname "$0")/../../scripts/mxa-env.sh"
echo "TAP version 13"
echo "1..4"
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
exit ${fail:-0}
