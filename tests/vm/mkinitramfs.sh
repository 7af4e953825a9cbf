#!/usr/bin/env bash
# Build the guest initramfs: busybox, the kernel modules mxa.ko needs (decompressed, in
# load order), mxa.ko, the guest test binaries (/tests) and programs (/bin), and /init.
# usage: mkinitramfs.sh OUT.cpio.gz MXA.ko [guest binaries...]
set -euo pipefail
. "$(dirname "$0")/../../scripts/mxa-env.sh"

out=$1; mxa_ko=$2; shift 2
kroot="$MXA_CACHE/kernel/$MXA_KVER/root"
moddir="$kroot/lib/modules/$MXA_KVER"
[ -d "$moddir" ] || mxa_die "no modules in $moddir: run scripts/fetch-kernel.sh"
[ -f "$moddir/modules.dep" ] || depmod -b "$kroot" "$MXA_KVER"

stage="$out.d"
rm -rf "$stage"
mkdir -p "$stage"/{bin,sbin,etc,proc,sys,dev,tmp,tests,lib/modules}
cp /bin/busybox "$stage/bin/busybox"
ln -s busybox "$stage/bin/sh"

# Modules: mxa.ko's dependencies from modinfo, then theirs from modules.dep, in load order.
declare -A seen=()
order=()
add_module() { # path relative to $moddir
	local rel=$1 dep
	[ -n "${seen[$rel]:-}" ] && return
	seen[$rel]=1
	for dep in $(awk -v m="$rel" '{ n = $1; sub(/:$/, "", n); if (n == m) { for (i = 2; i <= NF; i++) print $i } }' "$moddir/modules.dep"); do
		add_module "$dep"
	done
	order+=("$rel")
}
extra_modules=${MXA_GUEST_EXTRA_MODULES-configfs null_blk}
for name in $(modinfo -F depends "$mxa_ko" | tr ',' ' ') $extra_modules; do
	rel=$(awk -v n="$name" '{ p = $1; sub(/:$/, "", p); f = p; sub(/.*\//, "", f); sub(/\.ko.*/, "", f);
		gsub(/-/, "_", f); m = n; gsub(/-/, "_", m); if (f == m) { print p; exit } }' "$moddir/modules.dep")
	[ -n "$rel" ] || mxa_die "module $name (needed by mxa.ko) not found in $moddir"
	add_module "$rel"
done
: >"$stage/etc/modules.load"
for rel in "${order[@]}"; do
	base=$(basename "$rel"); base=${base%.xz}; base=${base%.zst}
	case "$rel" in
	*.xz) xz -dc "$moddir/$rel" >"$stage/lib/modules/$base" ;;
	*.zst) zstd -qdc "$moddir/$rel" >"$stage/lib/modules/$base" ;;
	*) cp "$moddir/$rel" "$stage/lib/modules/$base" ;;
	esac
	case "$base" in
	null_blk.ko) args="queue_mode=2 irqmode=0 nr_devices=1" ;;	# the submission reference
	*) args= ;;
	esac
	echo "$base $args" >>"$stage/etc/modules.load"
done
cp "$mxa_ko" "$stage/lib/modules/mxa.ko"

for bin in "$@"; do
	case "$bin" in
	*/guest/*) cp "$bin" "$stage/tests/" ;;
	*) cp "$bin" "$stage/bin/" ;;
	esac
done
install -m 0755 "$(dirname "$0")/init.sh" "$stage/init"

(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) >"$out.tmp"
mv "$out.tmp" "$out"
mxa_info "initramfs: $(du -h "$out" | cut -f1), modules: ${#order[@]} + mxa.ko, binaries: $#"
