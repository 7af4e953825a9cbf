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

mxa_step "results ($build/check.tap)"
exec "$(dirname "$0")/tap-merge.py" "$build/check.tap" host="$tapdir/host" guest="$tapdir/guest"
