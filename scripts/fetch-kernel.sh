#!/usr/bin/env bash
# Fetch the pinned Debian 6.12 guest kernel (image + matching headers + kbuild), and the
# kselftest harness headers and checkpatch.pl from linux-source-6.12, unpacked into the
# cache without installing anything on the host. Idempotent: a stamp per pinned version.
set -euo pipefail
. "$(dirname "$0")/mxa-env.sh"

kdir="$MXA_CACHE/kernel/$MXA_KVER"
root="$kdir/root"
if [ ! -f "$kdir/.done" ]; then
	mxa_step "fetching Debian kernel $MXA_KVER (image, headers, kbuild)"
	rm -rf "$kdir"; mkdir -p "$kdir/debs" "$root"
	pkgs=("linux-image-${MXA_KVER}-unsigned" "linux-headers-${MXA_KVER}"
	      "linux-headers-${MXA_KVER_PKG}-common" "linux-kbuild-${MXA_KVER_PKG}")
	(cd "$kdir/debs" && apt-get download -q -o APT::Sandbox::User=root "${pkgs[@]}") ||
		mxa_die "cannot download ${pkgs[*]}: is ${MXA_KVER_PKG} still in Debian's archive? (pinned in scripts/mxa-env.sh)"
	i=0
	for deb in "$kdir"/debs/*.deb; do
		i=$((i + 1)); mxa_info "[$i/${#pkgs[@]}] unpacking $(basename "$deb")"
		dpkg-deb -x "$deb" "$root"
	done
	rm -rf "$kdir/debs"
	touch "$kdir/.done"
fi
[ -f "$root/boot/vmlinuz-$MXA_KVER" ] || mxa_die "kernel image missing in $root"

# The -amd64 headers' Makefile is one line, `include /usr/src/linux-headers-<ver>-common/Makefile`:
# an absolute path that only an installed package provides. Point it at the -common tree
# unpacked beside it (also repairs caches unpacked before this step existed, or moved).
kmk="$root/usr/src/linux-headers-$MXA_KVER/Makefile"
[ -f "$kmk" ] || mxa_die "kernel headers missing in $root"
want="include $root/usr/src/linux-headers-${MXA_KVER_PKG}-common/Makefile"
[ "$(cat "$kmk")" = "$want" ] || printf '%s\n' "$want" >"$kmk"
[ -f "${want#include }" ] || mxa_die "${want#include } missing: the -common headers did not unpack"

# From linux-source-6.12: the kselftest harness headers (guest tests) and checkpatch.pl
# with its data files (driver lint, tests/host/test-driver-lint.sh). A stamp each, so
# an older cache gains what it lacks.
ksft="$MXA_CACHE/ksft/$MXA_KSRC_VERSION"
need_headers=0; need_checkpatch=0
[ -f "$ksft/.done" ] || need_headers=1
[ -f "$ksft/.checkpatch" ] || need_checkpatch=1
if [ "$need_headers$need_checkpatch" != 00 ]; then
	mxa_step "fetching linux-source-6.12 $MXA_KSRC_VERSION (~150 MB) for kselftest headers and checkpatch"
	[ "$need_headers" = 0 ] || rm -rf "$ksft"
	rm -rf "$ksft/dl" "$ksft/linux-source-6.12"; mkdir -p "$ksft/dl"
	(cd "$ksft/dl" && apt-get download -q -o APT::Sandbox::User=root "linux-source-6.12=$MXA_KSRC_VERSION") ||
		(cd "$ksft/dl" && apt-get download -q -o APT::Sandbox::User=root linux-source-6.12) ||
		mxa_die "cannot download linux-source-6.12"
	want=()
	[ "$need_headers" = 0 ] || want+=('linux-source-6.12/tools/testing/selftests/kselftest*.h')
	[ "$need_checkpatch" = 0 ] || want+=('linux-source-6.12/scripts/checkpatch.pl'
		'linux-source-6.12/scripts/spelling.txt' 'linux-source-6.12/scripts/const_structs.checkpatch')
	mxa_info "extracting ${want[*]}"
	dpkg-deb --fsys-tarfile "$ksft"/dl/linux-source-6.12_*.deb |
		tar -xO ./usr/src/linux-source-6.12.tar.xz |
		tar -xJ -C "$ksft" --wildcards "${want[@]}"
	if [ "$need_headers" = 1 ]; then
		mv "$ksft/linux-source-6.12/tools/testing/selftests" "$ksft/include"
		touch "$ksft/.done"
	fi
	if [ "$need_checkpatch" = 1 ]; then
		rm -rf "$ksft/checkpatch"
		mv "$ksft/linux-source-6.12/scripts" "$ksft/checkpatch"
		touch "$ksft/.checkpatch"
	fi
	rm -rf "$ksft/dl" "$ksft/linux-source-6.12"
fi
mxa_info "kernel $MXA_KVER, kselftest headers and checkpatch ready in $MXA_CACHE"
