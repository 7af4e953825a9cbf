# Shared settings for every MXA script: one place for pinned versions and cache paths.
# Sourced, not executed.

# The guest kernel: one pinned Debian 6.12 build (bookworm-security). The driver is built
# against exactly these headers and the guest boots exactly this image.
MXA_KVER_PKG="${MXA_KVER_PKG:-6.12.117+deb12}"
MXA_KVER="${MXA_KVER_PKG}-amd64"
MXA_KSRC_VERSION="${MXA_KSRC_VERSION:-6.12.117-1~deb12u1}"

# QEMU 10.0 from Debian trixie's source package.
MXA_QEMU_SERIES="${MXA_QEMU_SERIES:-1:10.0.}"

MXA_CACHE="${MXA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mxa}"
MXA_TOP="${MXA_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
MXA_BUILD="${MXA_BUILD:-$MXA_TOP/build}"
MXA_KHEADERS="/usr/src/linux-headers-${MXA_KVER}"

mxa_step() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
mxa_info() { printf '    %s\n' "$*" >&2; }
mxa_die() { printf 'mxa: error: %s\n' "$*" >&2; exit 1; }

# Hash of files' contents (and names), for cache keys.
mxa_hash_files() {
	(cd "$MXA_TOP" && for f in "$@"; do printf '%s\n' "$f"; cat "$f"; done) | sha256sum | cut -c1-16
}

# What a guest boots: the QEMU with the mxa device, the pinned kernel, this checkout's
# initramfs (tests/vm/boot-guest.sh passes them to run-guest.py).
MXA_QEMU="${MXA_QEMU:-$MXA_CACHE/qemu/qemu-system-x86_64}"
MXA_GUEST_KERNEL="${MXA_GUEST_KERNEL:-$MXA_CACHE/kernel/$MXA_KVER/root/boot/vmlinuz-$MXA_KVER}"
MXA_INITRD="${MXA_INITRD:-$MXA_BUILD/initramfs.cpio.gz}"
