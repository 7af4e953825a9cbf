#!/usr/bin/env bash
# make check: host tests, then the guest kselftests in one TCG guest; one TAP stream in
# $BUILD/check.tap and one summary line. usage: run-check.sh BUILD "host tests" "guest tests"
set -uo pipefail
. "$(dirname "$0")/../scripts/mxa-env.sh"
build=$1; host_tests=$2; guest_tests=$3
tapdir="$build/tap"
rm -rf "$tapdir"; mkdir -p "$tapdir/host" "$tapdir/guest"

mxa_step "host tests"
for t in $host_tests; do
	name=$(basename "$t")
	start=$(date +%s.%N)
	"$t" >"$tapdir/host/$name.tap" 2>&1 </dev/null
	echo $? >"$tapdir/host/$name.rc"
	mxa_info "$name: exit $(cat "$tapdir/host/$name.rc") ($(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)")s)"
done

mxa_step "guest tests (TCG guest; console log: $build/guest-console.log)"
kroot="$MXA_CACHE/kernel/$MXA_KVER/root"
"$(dirname "$0")/vm/run-guest.py" --qemu "$MXA_CACHE/qemu/qemu-system-x86_64" \
	--kernel "$kroot/boot/vmlinuz-$MXA_KVER" --initrd "$build/initramfs.cpio.gz" \
	--log "$build/guest-console.log" --tap-dir "$tapdir/guest" --tests "$guest_tests"

mxa_step "guest tests with -device mxa,numerics=hopper (console log: $build/guest-hopper-console.log)"
mkdir -p "$tapdir/guest-hopper"
"$(dirname "$0")/vm/run-guest.py" --qemu "$MXA_CACHE/qemu/qemu-system-x86_64" \
	--kernel "$kroot/boot/vmlinuz-$MXA_KVER" --initrd "$build/initramfs.cpio.gz" \
	--log "$build/guest-hopper-console.log" --tap-dir "$tapdir/guest-hopper" --tests "mma" \
	--device-args numerics=hopper
# the hopper-only test point must have run there, not been skipped
{
	if grep -Eq '^ok [0-9]+ mma\.hopper_numerics_mode$' "$tapdir/guest-hopper/mma.tap"; then
		echo "ok 1 numerics=hopper boot ran mma.hopper_numerics_mode"
	else
		echo "not ok 1 numerics=hopper boot did not run mma.hopper_numerics_mode"
	fi
} >"$tapdir/guest-hopper/hopper-mode.tap"
echo 0 >"$tapdir/guest-hopper/hopper-mode.rc"

mxa_step "guest tests with two mxa devices (console log: $build/guest-2dev-console.log)"
mkdir -p "$tapdir/guest-2dev"
"$(dirname "$0")/vm/run-guest.py" --qemu "$MXA_CACHE/qemu/qemu-system-x86_64" \
	--kernel "$kroot/boot/vmlinuz-$MXA_KVER" --initrd "$build/initramfs.cpio.gz" \
	--log "$build/guest-2dev-console.log" --tap-dir "$tapdir/guest-2dev" --tests "prime" \
	--devices 2
# the dma-buf of another device must have been tried there, not skipped
{
	if grep -Eq '^ok [0-9]+ prime\.another_device$' "$tapdir/guest-2dev/prime.tap"; then
		echo "ok 1 two-device boot ran prime.another_device"
	else
		echo "not ok 1 two-device boot did not run prime.another_device"
	fi
} >"$tapdir/guest-2dev/two-devices.tap"
echo 0 >"$tapdir/guest-2dev/two-devices.rc"

mxa_step "results ($build/check.tap)"
exec "$(dirname "$0")/tap-merge.py" "$build/check.tap" host="$tapdir/host" guest="$tapdir/guest" \
	guest-hopper="$tapdir/guest-hopper" guest-2dev="$tapdir/guest-2dev"
