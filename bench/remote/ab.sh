#!/bin/bash
# SPDX-License-Identifier: MIT
# Run on the quiet machine, from the carried build/remote (bench/remote/prepare.sh):
# bench-submit in alternating boots of each driver's initramfs, same QEMU and kernel.
# Output: $OUT/<driver>-<round>.csv (default OUT=.)
cd "$(dirname "$0")"
OUT=${OUT:-.}
for round in 1 2; do
	for initrd in *.cpio.gz; do
		[ -e "$initrd" ] || continue
		drv=${initrd%.cpio.gz}
		python3 ../../tests/vm/run-guest.py --qemu ./qemu.sh --kernel vmlinuz \
			--initrd "$initrd" --log "/tmp/$drv-$round.log" \
			--run "/bin/bench-submit --seconds 1" \
			>"$OUT/$drv-$round.csv" 2>"$OUT/$drv-$round.err"
		echo "$drv round $round: rc $?"
	done
done
