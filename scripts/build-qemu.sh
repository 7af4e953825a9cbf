#!/usr/bin/env bash
# Build qemu-system-x86_64 10.0 (Debian trixie's source package) with the MXA device.
#
# The QEMU tree and its build directory live in the cache, keyed by the QEMU version and
# this script's configure line; qemu-device/ is synced into hw/mxa/ (only changed files
# are touched), so after the first full build (~5 min on 2 cores) a device change
# recompiles just the device. Prints the path of the binary on stdout.
set -euo pipefail
. "$(dirname "$0")/mxa-env.sh"

# MXA_QEMU_FLAVOR=asan builds a second QEMU with AddressSanitizer and UBSan, linked as
# qemu-system-x86_64-asan; MXA_QEMU_FLAVOR=fuzz builds QEMU's libFuzzer binary with clang,
# ASan and UBSan and the mxa target (tests/fuzz/mxa_qemu_fuzz.c), linked as
# qemu-fuzz-x86_64 (make fuzz-device). Each flavor's build dir is keyed apart.
flavor_flags=
target=qemu-system-x86_64
case "${MXA_QEMU_FLAVOR:-}" in
"") ;;
asan) flavor_flags="--enable-asan --enable-ubsan" ;;
fuzz) flavor_flags="--cc=clang --cxx=clang++ --objcc=clang --enable-fuzzing --enable-asan --enable-ubsan"
      target=qemu-fuzz-x86_64 ;;
*) mxa_die "unknown MXA_QEMU_FLAVOR '$MXA_QEMU_FLAVOR' (known: asan, fuzz)" ;;
esac
CONFIGURE=(--python=/usr/bin/python3 --target-list=x86_64-softmmu --without-default-features
	--enable-tcg --enable-fdt=system --disable-install-blobs --disable-docs
	--disable-werror --disable-slirp --enable-trace-backends=log $flavor_flags ${MXA_QEMU_EXTRA_CONFIGURE:-})

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
	rm -rf "$qroot/dl" "$qroot"/qemu_*.orig.tar.* "$qroot"/qemu_*.debian.tar.*
	touch "$qroot/src-$ver/.done"
	srcdir="$qroot/src-$ver/"
fi
srcdir=${srcdir%/}
ver=${srcdir##*/src-}

# Wire hw/mxa into QEMU's build once (idempotent edits of the unpacked tree).
mkdir -p "$srcdir/hw/mxa"
grep -q "subdir('mxa')" "$srcdir/hw/meson.build" ||
	sed -i "s/^subdir('misc')$/subdir('misc')\nsubdir('mxa')/" "$srcdir/hw/meson.build"
grep -q "^source mxa/Kconfig" "$srcdir/hw/Kconfig" ||
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
	engine/meson.build | engine/mxe_cublas_plans.inc) ;; # generated below
	*) [ -f "$MXA_TOP/qemu-device/$f" ] || { rm -f "$srcdir/hw/mxa/$f"; changed=1; } ;;
	esac
done < <(cd "$srcdir/hw/mxa" && find . -type f | sed 's|^\./||')

# The mxa target of QEMU's fuzzing framework (built only when it is configured with
# --enable-fuzzing): the target, the generator it shares with fuzz-device, the uAPI.
fuzzdir="$srcdir/tests/qtest/fuzz"
sync_file "$MXA_TOP/tests/fuzz/mxa_qemu_fuzz.c" "$fuzzdir/mxa_fuzz.c"
for f in fuzz_rand.h fuzz_device_gen.h; do sync_file "$MXA_TOP/tests/fuzz/$f" "$fuzzdir/mxa/$f"; done
while IFS= read -r f; do
	sync_file "$MXA_TOP/uapi/$f" "$fuzzdir/mxa/$f"
done < <(cd "$MXA_TOP/uapi" && find . -type f -name '*.h' | sed 's|^\./||')
grep -q "mxa_fuzz.c" "$fuzzdir/meson.build" ||
	sed -i "s/^specific_fuzz_ss.add(files('generic_fuzz.c'))\$/&\nspecific_fuzz_ss.add(files('mxa_fuzz.c'))/" "$fuzzdir/meson.build"
grep -q "mxa_fuzz.c" "$fuzzdir/meson.build" || mxa_die "could not add the mxa fuzz target to QEMU's tests/qtest/fuzz/meson.build"

# engine/mxe_cublas_plans.inc: the cuBLAS plan table, from its TSV, as the host build makes it.
sh "$MXA_TOP/scripts/gen-cublas-plans.sh" "$MXA_TOP/qemu-device/engine/mxe_cublas_plans.tsv" \
	"$srcdir/hw/mxa/engine/mxe_cublas_plans.inc.new"
sync_file "$srcdir/hw/mxa/engine/mxe_cublas_plans.inc.new" "$srcdir/hw/mxa/engine/mxe_cublas_plans.inc"
rm -f "$srcdir/hw/mxa/engine/mxe_cublas_plans.inc.new"

# engine/meson.build: the engine's sources as listed in engine.mk (minus test-only files).
engine_srcs=$(make -s --no-print-directory -C "$MXA_TOP" -f qemu-device/engine/engine.mk \
	engine-print-srcs)
[ -n "$engine_srcs" ] || mxa_die "no ENGINE_SRCS in qemu-device/engine/engine.mk"
gen="$srcdir/hw/mxa/engine/meson.build.new"
{
	echo "# generated by scripts/build-qemu.sh from qemu-device/engine/engine.mk"
	printf 'mxa_engine_srcs = files('
	sep=
	for f in $engine_srcs; do
		case "$f" in *golden*) continue ;; esac
		printf "%s'%s'" "$sep" "$(basename "$f")"; sep=", "
	done
	echo ")"
} >"$gen"
sync_file "$gen" "${gen%.new}"
rm -f "$gen"

key=$(printf '%s\n' "$ver" "${CONFIGURE[@]}" | sha256sum | cut -c1-12)
bdir="$qroot/build-$key"
if [ ! -f "$bdir/build.ninja" ]; then
	mxa_step "configuring QEMU $ver (build dir $bdir)"
	rm -rf "$bdir"; mkdir -p "$bdir"
	(cd "$bdir" && "$srcdir/configure" "${CONFIGURE[@]}" >configure.log 2>&1) ||
		{ tail -30 "$bdir/configure.log" >&2; mxa_die "QEMU configure failed (log: $bdir/configure.log)"; }
fi
# ninja decides what is stale (QEMU regenerates qemu-version.h every time; that is cheap).
# Its full output goes to a log; the terminal gets "[n/total]" progress and errors.
log="$bdir/mxa-build.log"
steps=$(ninja -C "$bdir" -n "$target" 2>/dev/null | grep -c '^\[' || true)
[ "$steps" -gt 20 ] && mxa_step "building $target: $steps steps (the first build takes ~5 min on 2 cores)"
ninja -C "$bdir" -j "$(nproc)" "$target" >"$log" 2>&1 &
ninja_pid=$!
while kill -0 "$ninja_pid" 2>/dev/null; do
	sleep 2
	if [ "$steps" -gt 20 ] && [ $((SECONDS % 20)) -lt 2 ]; then
		mxa_info "$(grep -ao '^\[[0-9]*/[0-9]*\]' "$log" | tail -n1) $(tail -n1 "$log" | awk '{ print $NF }')"
	fi
done
if ! wait "$ninja_pid"; then
	grep -aE -B2 -A12 'error|FAILED' "$log" | head -60 >&2
	mxa_die "QEMU build failed (log: $log)"
fi
case "${MXA_QEMU_FLAVOR:-}" in
fuzz) link="$qroot/$target" ;;
*) link="$qroot/qemu-system-x86_64${MXA_QEMU_FLAVOR:+-$MXA_QEMU_FLAVOR}" ;;
esac
ln -sfn "$bdir/$target" "$link"
echo "$link"
