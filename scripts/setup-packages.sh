#!/usr/bin/env bash
# Install the Debian packages MXA needs. Idempotent; runs as root on Debian 12.
# Adds (1) deb-src for trixie, source packages only, to fetch QEMU 10.0's sources, and
# (2) bookworm-backports, pinned so that only meson is taken from it.
set -euo pipefail
. "$(dirname "$0")/mxa-env.sh"

[ "$(id -u)" = 0 ] || mxa_die "setup must run as root (it installs Debian packages)"

PKGS=(build-essential pkg-config ninja-build flex bison python3 python3-venv
      libglib2.0-dev libpixman-1-dev libfdt-dev zlib1g-dev
      busybox-static cpio xz-utils zstd kmod
      liburing-dev libdrm-dev libopenblas-dev
      qemu-system-data seabios
      bc pahole gnuplot-nox sparse
      clang libclang-rt-14-dev
      libelf-dev libssl-dev)

changed=0
src_list=/etc/apt/sources.list.d/mxa-trixie-src.sources
if [ ! -f "$src_list" ]; then
	cat >"$src_list" <<EOT
# Added by MXA setup: QEMU 10.0 source package only (no binaries are taken from trixie).
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOT
	changed=1
fi
bpo_list=/etc/apt/sources.list.d/mxa-bookworm-backports.sources
if [ ! -f "$bpo_list" ]; then
	cat >"$bpo_list" <<EOT
# Added by MXA setup: meson >= 1.5 for QEMU 10 (pinned in preferences.d/mxa-backports).
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOT
	changed=1
fi
pin=/etc/apt/preferences.d/mxa-backports
if [ ! -f "$pin" ]; then
	cat >"$pin" <<EOT
# Added by MXA setup: nothing comes from backports except meson and its own needs.
Package: *
Pin: release n=bookworm-backports
Pin-Priority: 1

Package: meson
Pin: release n=bookworm-backports
Pin-Priority: 500
EOT
	changed=1
fi

missing=()
for p in "${PKGS[@]}" meson; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "$changed" = 1 ] || [ ${#missing[@]} -gt 0 ] || [ ! -d /var/lib/apt/lists ] ||
   ! ls /var/lib/apt/lists/*trixie*Sources* >/dev/null 2>&1; then
	mxa_step "apt-get update"
	apt-get update -q -o Dpkg::Progress-Fancy=0
fi
if [ ${#missing[@]} -gt 0 ]; then
	mxa_step "installing ${#missing[@]} packages: ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		-o Dpkg::Progress-Fancy=0 "${missing[@]}"
fi
meson_ver=$(meson --version 2>/dev/null || echo 0)
case "$meson_ver" in
1.[5-9]*|1.1[0-9]*|[2-9].*) ;;
*) mxa_die "meson $meson_ver is too old for QEMU 10 (need >= 1.5 from bookworm-backports)";;
esac
mxa_info "packages ready (meson $meson_ver)"
