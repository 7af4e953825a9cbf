#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Host test: the driver's build hygiene (issue "Build hygiene"): checkpatch.pl --strict
# (from linux-source-6.12, fetched by scripts/fetch-kernel.sh) reports nothing on
# driver/, and a W=1 build with sparse on every file (C=2) gives no warning. The W=1
# build runs in a copy of the tree, so the normal build's objects stay as they are.
# Run from the project root. TAP on stdout.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/mxa-env.sh
tmp=$(mktemp -d /tmp/driver-lint.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
n=0; fail=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; fail=1; fi; }

checkpatch=$MXA_CACHE/ksft/$MXA_KSRC_VERSION/checkpatch/checkpatch.pl
kdir=$MXA_CACHE/kernel/$MXA_KVER/root/usr/src/linux-headers-$MXA_KVER

echo "TAP version 13"
echo "1..3"

# checkpatch: --no-tree (no kernel tree here); the types ignored are about the kernel's
# own tree (MAINTAINERS, SPDX placement of uapi headers, file names in comments).
ignore=FILE_PATH_CHANGES,SPDX_LICENSE_TAG,NOT_UNIFIED_DIFF
if [ -x "$checkpatch" ] || [ -f "$checkpatch" ]; then
	# Sources only (not kbuild's generated mxa.mod.c). The tracepoint header keeps the
	# TRACE_EVENT() layout of include/trace/events/, which --strict's alignment checks
	# flag in the kernel's own headers too.
	srcs=$(ls driver/*.c driver/*.h | grep -v -e '\.mod\.c$' -e '/mxa_trace\.h$')
	{ perl "$checkpatch" --strict --no-tree --terse --show-types --ignore "$ignore" \
		-f $srcs
	  perl "$checkpatch" --strict --no-tree --terse --show-types \
		--ignore "$ignore,OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT" -f driver/mxa_trace.h
	} >"$tmp/checkpatch.log" 2>&1
	grep -E '(ERROR|WARNING|CHECK):' "$tmp/checkpatch.log" >"$tmp/findings" || true
	[ ! -s "$tmp/findings" ]
	ok $? "checkpatch.pl --strict on driver/ ($(wc -l <"$tmp/findings") findings)"
	sed 's/^/# /' "$tmp/findings" | head -40
else
	ok 1 "checkpatch.pl --strict on driver/ (missing $checkpatch: run scripts/fetch-kernel.sh)"
fi

command -v sparse >/dev/null
ok $? "sparse installed (scripts/setup-packages.sh)"

mkdir -p "$tmp/tree/driver"
cp Kbuild "$tmp/tree/" && cp -r uapi "$tmp/tree/" &&
	cp driver/*.c driver/*.h driver/Kbuild "$tmp/tree/driver/"
make -s -C "$kdir" M="$tmp/tree" W=1 C=2 modules \
	>"$tmp/build.log" 2>&1
rc=$?
grep -E 'warning:|error:' "$tmp/build.log" >"$tmp/warnings" || true
[ "$rc" = 0 ] && [ ! -s "$tmp/warnings" ]
ok $? "W=1 C=2 (sparse) build of mxa.ko: exit $rc, $(wc -l <"$tmp/warnings") warnings"
sed 's/^/# /' "$tmp/warnings" | head -40
[ "$rc" = 0 ] || tail -20 "$tmp/build.log" | sed 's/^/# /'
exit "$fail"
