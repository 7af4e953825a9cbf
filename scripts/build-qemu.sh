#!/usr/bin/env bash
# Build qemu-system-x86_64 10.0 (Debian trixie's source package) with the MXA device.
#
# The QEMU tree and its build directory live in the cache, keyed by the QEMU version and
# this script's configure line; qemu-device/ is synced into hw/mxa/ (only changed files
# are touched), so after the first full build (~5 min on 2 cores) a device change
# recompiles just the device. Prints the path of the binary on stdout.
set -euo pipefail
. "$(dirname "$0")/mxa-env.sh"

CONFIGURE=(--python=/usr/bin/python3 --target-list=x86_64-softmmu --without-default-features
	--enable-tcg --enable-fdt=system --disable-install-blobs --disable-docs
	--disable-werror --disable-slirp --enable-trace-backends=log ${MXA_QEMU_EXTRA_CONFIGURE:-})

qroot="$MXA_CACHE/qemu"
mkdir -p "$qroot"
srcdir=$(ls -d "$qroot"/src-*/ 2>/dev/null | head -n1 || true)
if [ -z "$srcdir" ] || [ ! -f "$srcdir/.done" ]; then
	mxa_step "fetching Debian's QEMU $MXA_QEMU_SERIES source package"
	rm -rf "$qroot"/src-* "$qroot/dl"; mkdir -p "$qroot/dl"
	want=$(apt-cache showsrc qemu | awk -v pre="$MXA_QEMU_SERIES" \
		'$1 == "Version:" && index($2, pre) == 1 { print $2 }' | sort -V | tail -n1)
	[ -n "$want" ] || mxa_die "no QEMU $MXA_QEMU_SERIES source in apt: is the trixie deb-src entry present? (scripts/setup-packages.sh)"
	(cd "$qroot/dl" && apt-get source -q --download-only -o APT::Sandbox::User=root "qemu=$want") ||
		mxa_die "cannot fetch qemu source: is the trixie deb-src entry present? (scripts/setup-packages.sh)"
	dsc=$(ls "$qroot"/dl/qemu_*.dsc | head -n1)
	ver=$(basename "$dsc" .dsc); ver=${ver#qemu_}
	mxa_info "unpacking $ver and applying Debian's patches"
	dpkg-source -x "$dsc" "$qroot/src-$ver" >/dev/null
	rm -rf "$qroot/dl"
	touch "$qroot/src-$ver/.done"
	srcdir="$qroot/src-$ver/"
fi
srcdir=${srcdir%/}
ver=${srcdir##*/src-}

# Wire hw/mxa into QEMU's build once (idempotent edits of the unpacked tree).
mkdir -p "$srcdir/hw/mxa"
grep -q "subdir('mxa')" "$srcdir/hw/meson.build" ||
	sed -i "s/^subdir('misc')$/subdir('misc')\nsubdir('mxa')/" "$srcdir/hw/meson.build"
grep -q "hw/mxa/Kconfig" "$srcdir/hw/Kconfig" ||
	sed -i 's|^source misc/Kconfig$|source misc/Kconfig\nsource mxa/Kconfig|' "$srcdir/hw/Kconfig"
grep -q "'hw/mxa'" "$srcdir/meson.build" ||
	sed -i "s|^\\( *\\)'hw/misc',\$|\\1'hw/misc',\\n\\1'hw/mxa',|" "$srcdir/meson.build"
grep -q "subdir('mxa')" "$srcdir/hw/meson.build" || mxa_die "could not add hw/mxa to QEMU's hw/meson.build"
grep -q "'hw/mxa'" "$srcdir/meson.build" || mxa_die "could not add hw/mxa to QEMU's trace list"

# Sync the device sources; unchanged files keep their mtime so ninja skips them.
changed=0
sync_file() { # src dst
	if ! cmp -s "$1" "$2"; then mkdir -p "$(dirname "$2")"; cp "$1" "$2"; changed=1; fi
}
while IFS= read -r f; do
	sync_file "$MXA_TOP/qemu-device/$f" "$srcdir/hw/mxa/$f"
done < <(cd "$MXA_TOP/qemu-device" && find . -type f \( -name '*.c' -o -name '*.h' -o -name 'meson.build' -o -name 'Kconfig' -o -name 'trace-events' \) | sed 's|^\./||')
while IFS= read -r f; do
	sync_file "$MXA_TOP/uapi/$f" "$srcdir/hw/mxa/uapi/$f"
done < <(cd "$MXA_TOP/uapi" && find . -type f -name '*.h' | sed 's|^\./||')
# Remove files that disappeared from qemu-device/.
while IFS= read -r f; do
	case "$f" in uapi/*) [ -f "$MXA_TOP/$f" ] || { rm -f "$srcdir/hw/mxa/$f"; changed=1; } ;;
	*) [ -f "$MXA_TOP/qemu-device/$f" ] || { rm -f "$srcdir/hw/mxa/$f"; changed=1; } ;;
	esac
done < <(cd "$srcdir/hw/mxa" && find . -type f | sed 's|^\./||')

key=$(printf '%s\n' "$ver" "${CONFIGURE[@]}" | sha256sum | cut -c1-12)
bdir="$qroot/build-$key"
if [ ! -f "$bdir/build.ninja" ]; then
	mxa_step "configuring QEMU $ver (build dir $bdir)"
	rm -rf "$bdir"; mkdir -p "$bdir"
	(cd "$bdir" && "$srcdir/configure" "${CONFIGURE[@]}" >configure.log 2>&1) ||
		{ tail -30 "$bdir/configure.log" >&2; mxa_die "QEMU configure failed (log: $bdir/configure.log)"; }
fi
if [ "$changed" = 1 ] || [ ! -x "$bdir/qemu-system-x86_64" ] || [ -n "$(ninja -C "$bdir" -n qemu-system-x86_64 2>/dev/null | grep -v 'no work to do' | head -1)" ]; then
	mxa_step "building qemu-system-x86_64 (first build ~5 min on 2 cores; later only the device)"
	# ninja's status line "[n/total]" is the progress report.
	ninja -C "$bdir" -j "$(nproc)" qemu-system-x86_64 2>&1 | \
		awk '/^\[[0-9]+\/[0-9]+\]/ { n++; if (n % 100 == 0 || /mxa/) { print "    " $1 " " $NF; fflush() } next } { print; fflush() }' >&2
	[ "${PIPESTATUS[0]}" = 0 ] || mxa_die "QEMU build failed"
fi
ln -sfn "$bdir/qemu-system-x86_64" "$qroot/qemu-system-x86_64"
echo "$bdir/qemu-system-x86_64"
