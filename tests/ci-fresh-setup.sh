#!/usr/bin/env bash
# ci-fresh-setup.sh - the setup as a fresh machine meets it, on a machine that is not fresh.
#
# CI's machine keeps what earlier runs and people left there: a cache in ~/.cache/mxa,
# kernel headers under /usr/src. A setup step that leans on them passes there and fails
# for a newcomer. This script hides both in a private mount namespace, copies the checkout
# (tracked files, as they are now) into an empty folder, and runs the setup's stamp path and
# the driver build there against an empty MXA_CACHE: the pinned kernel is fetched again,
# mxa.ko and a kselftest program are built against what was fetched, nothing else.
# Needs root (the namespace, and the setup's apt check) and Debian's mirror.
#
# Prints TAP; exits non-zero when any step fails. .ci/run runs it before make check.
set -uo pipefail
. "$(dirname "$0")/../scripts/mxa-env.sh"

if [ "${MXA_FRESH_NS:-}" != 1 ]; then
	[ "$(id -u)" = 0 ] || mxa_die "ci-fresh-setup.sh needs root (a private mount namespace)"
	exec unshare --mount --propagation private env MXA_FRESH_NS=1 "$0" "$@"
fi

# ---- inside the namespace ----
work=$(mktemp -d -t mxa-fresh.XXXXXX)
trap 'rm -rf "$work"' EXIT
n=0 fails=0
tap() { # ok|not-ok description
	n=$((n + 1))
	if [ "$1" = ok ]; then echo "ok $n $2"; else echo "not ok $n $2"; fails=$((fails + 1)); fi
}
step() { # description command...: passes when the command succeeds; its output on failure
	local d=$1; shift
	if "$@" >"$work/out" 2>&1; then tap ok "$d"; else tap not-ok "$d"; sed 's/^/# /' "$work/out" | tail -25; fi
}
echo "TAP version 13"
echo "1..7"

# What a fresh machine lacks: kernel headers under /usr/src, the usual cache.
mount -t tmpfs -o size=1m mxa-fresh /usr/src
usual="${XDG_CACHE_HOME:-$HOME/.cache}/mxa"
[ -d "$usual" ] && mount -t tmpfs -o size=1m mxa-fresh "$usual"
step "/usr/src and $usual are empty in the namespace" \
	sh -c "[ -z \"\$(ls -A /usr/src)\" ] && { [ ! -d '$usual' ] || [ -z \"\$(ls -A '$usual')\" ]; }"

# A copy of the checkout's tracked files, with nothing beside it.
tree="$work/clone/mxa"
mkdir -p "$tree"
(cd "$MXA_TOP" && git ls-files -z | xargs -0 cp --parents -t "$tree") 2>"$work/out"
step "copy of the checkout in an empty folder" test -f "$tree/Makefile"

cache="$work/cache"
fresh() { env -u MXA_BUILD -u MXA_TOP -u MXA_QEMU -u MXA_GUEST_KERNEL -u MXA_INITRD \
	MXA_CACHE="$cache" make -s -C "$tree" "$@"; }
no_setup_planned() { ! fresh -n all 2>&1 | grep -E 'setup-packages|fetch-kernel|apt-get'; }
step "a plain make plans no setup step (no apt, no fetch) on a machine without the cache" \
	no_setup_planned
step "setup into an empty cache (packages checked, kernel and kselftest headers fetched)" \
	fresh ensure-setup
step "mxa.ko builds against the fetched headers alone" fresh driver
step "a kselftest program builds against the fetched kselftest headers" \
	fresh "build/guest/device"
step "mxa.ko is for the pinned kernel" \
	sh -c "modinfo -F vermagic '$tree/build/driver/mxa.ko' | grep -q '^$MXA_KVER '"
exit $((fails > 0))
