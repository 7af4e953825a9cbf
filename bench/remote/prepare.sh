#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Pack what a submission A/B needs to run on another (quiet) Linux x86-64 machine into
# build/remote: QEMU (stripped) with its loader, libraries and firmware, the guest
# kernel, and one initramfs per driver: the current mxa.ko and, with OLD=<commit>, the
# driver of that commit (built in a temporary worktree). Then carry build/remote there
# and run bench/remote/ab.sh (Documentation/performance.rst, "Submission").
# usage: bench/remote/prepare.sh [OLD=<commit>]   (after make all)
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/mxa-env.sh
old=""
for a in "$@"; do case "$a" in OLD=*) old=${a#OLD=} ;; esac; done
R=build/remote
q=$MXA_CACHE/qemu/qemu-system-x86_64
rm -rf "$R"; mkdir -p "$R/lib" "$R/share/qemu" "$R/share/seabios"
strip -o "$R/qemu" "$q"
for l in $(ldd "$q" | awk '/=>/ { print $3 } /ld-linux/ { print $1 }'); do cp -L "$l" "$R/lib/"; done
cp -rL /usr/share/qemu/. "$R/share/qemu/"
cp -rL /usr/share/seabios/. "$R/share/seabios/"
cp bench/remote/qemu.sh bench/remote/ab.sh "$R/"
cp "$MXA_CACHE/kernel/$MXA_KVER/root/boot/vmlinuz-$MXA_KVER" "$R/vmlinuz"
tests/vm/mkinitramfs.sh "$R/newdrv.cpio.gz" build/driver/mxa.ko build/bin/bench-submit
if [ -n "$old" ]; then
	wt=$(mktemp -d -t mxa-old.XXXXXX)
	git worktree add -f -q --detach "$wt" "$old"
	make -s -C "$MXA_CACHE/kernel/$MXA_KVER/root/usr/src/linux-headers-$MXA_KVER" M="$wt" modules
	tests/vm/mkinitramfs.sh "$R/olddrv.cpio.gz" "$wt/driver/mxa.ko" build/bin/bench-submit
	git worktree remove --force "$wt"
fi
du -sh "$R"
