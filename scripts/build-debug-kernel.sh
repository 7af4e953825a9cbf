#!/usr/bin/env bash
# Build the debug guest kernel (KASAN, lockdep, UBSAN, kmemleak, debug objects, fault
# injection) from Debian's linux-source-6.12 at the pinned version: tinyconfig plus
# scripts/debug-kernel.config. Cached by version and fragment in $MXA_CACHE/kernel-debug;
# idempotent, and the first build is the only long one (about 6 min on two cores).
# Prints nothing on a cache hit but the path of the build tree (stdout).
set -euo pipefail
. "$(dirname "$0")/mxa-env.sh"

frag="$MXA_TOP/scripts/debug-kernel.config"
key="$MXA_KSRC_VERSION-$(mxa_hash_files scripts/debug-kernel.config)"
base="$MXA_CACHE/kernel-debug"
src="$base/src-$MXA_KSRC_VERSION"
obj="$base/build-$key"

if [ ! -f "$src/.done" ]; then
	mxa_step "fetching linux-source-6.12 $MXA_KSRC_VERSION (~150 MB) for the debug guest kernel"
	rm -rf "$src" "$base/dl"; mkdir -p "$base/dl"
	(cd "$base/dl" && apt-get download -q -o APT::Sandbox::User=root "linux-source-6.12=$MXA_KSRC_VERSION") ||
		mxa_die "cannot download linux-source-6.12=$MXA_KSRC_VERSION (pinned in scripts/mxa-env.sh)"
	mkdir -p "$src.tmp"
	dpkg-deb --fsys-tarfile "$base"/dl/linux-source-6.12_*.deb |
		tar -xO ./usr/src/linux-source-6.12.tar.xz | tar -xJ -C "$src.tmp" --strip-components=1
	rm -rf "$base/dl"
	mv "$src.tmp" "$src"
	touch "$src/.done"
fi

# (Module.symvers, written by the modules step, is what an out-of-tree mxa.ko links
# against; an interrupted or older build without it is finished incrementally.)
if [ ! -f "$obj/.done" ] || [ ! -f "$obj/Module.symvers" ]; then
	mxa_step "building the debug guest kernel ($obj; the first build takes about 6 min)"
	# Builds of earlier fragments are of no further use (339 MB each).
	for old in "$base"/build-*; do [ "$old" = "$obj" ] || rm -rf "$old"; done
	mkdir -p "$obj"
	rm -f "$obj/.done"
	make -s -C "$src" O="$obj" tinyconfig >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$frag" >/dev/null
	make -s -C "$src" O="$obj" olddefconfig >/dev/null
	# A fragment line that kconfig dropped (a dependency it lacks) would silently build a
	# kernel without that checker: refuse it.
	missing=$(grep -E '^CONFIG_[A-Z0-9_]+=' "$frag" | while IFS= read -r line; do
		sym=${line%%=*}; val=${line#*=}
		if [ "$val" = n ]; then
			! grep -q "^$sym=" "$obj/.config" || echo "$line"
		else
			grep -qx "$line" "$obj/.config" || echo "$line"
		fi
	done)
	[ -z "$missing" ] || mxa_die "the debug kernel config lacks: $(echo $missing) (see $obj/.config)"
	make -C "$src" O="$obj" -j"$(nproc)" bzImage modules >"$obj/build.log" 2>&1 ||
		{ tail -30 "$obj/build.log" >&2; mxa_die "debug kernel build failed: $obj/build.log"; }
	touch "$obj/.done"
fi
echo "$obj"
