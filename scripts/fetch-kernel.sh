#!/usr/bin/env bash
# Fetch the pinned Debian 6.12 guest kernel (image + matching headers + kbuild) and the
# kselftest harness headers from linux-source-6.12, unpacked into the cache without
# installing anything on the host. Idempotent: a stamp per pinned version.
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

ksft="$MXA_CACHE/ksft/$MXA_KSRC_VERSION"
if [ ! -f "$ksft/.done" ]; then
	mxa_step "fetching kselftest headers from linux-source-6.12 $MXA_KSRC_VERSION (~150 MB)"
	rm -rf "$ksft"; mkdir -p "$ksft/dl"
	(cd "$ksft/dl" && apt-get download -q -o APT::Sandbox::User=root "linux-source-6.12=$MXA_KSRC_VERSION") ||
		(cd "$ksft/dl" && apt-get download -q -o APT::Sandbox::User=root linux-source-6.12) ||
		mxa_die "cannot download linux-source-6.12"
	mxa_info "extracting tools/testing/selftests/kselftest*.h"
	dpkg-deb --fsys-tarfile "$ksft"/dl/linux-source-6.12_*.deb |
		tar -xO ./usr/src/linux-source-6.12.tar.xz |
		tar -xJ -C "$ksft" --wildcards 'linux-source-6.12/tools/testing/selftests/kselftest*.h'
	mv "$ksft/linux-source-6.12/tools/testing/selftests" "$ksft/include"
	rm -rf "$ksft/dl" "$ksft/linux-source-6.12"
	touch "$ksft/.done"
fi
mxa_info "kernel $MXA_KVER and kselftest headers ready in $MXA_CACHE"
