#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Host test: `make install PREFIX=<tmp>` installs libaccel (libaccel.so.0 with its soname,
# libaccel.a, headers, libaccel.pc, tools, man pages), and a program builds against it
# through pkg-config, dynamically and statically, and runs (assembler, no device needed).
# Run from the project root. TAP on stdout.
set -uo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d /tmp/libaccel-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
n=0; fail=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; fail=1; fi; }

echo "TAP version 13"
echo "1..8"
make -s install PREFIX="$tmp/prefix" BUILD="${BUILD:-build}" >"$tmp/make.log" 2>&1
ok $? "make install PREFIX=..." || true
[ "$fail" = 0 ] || sed 's/^/# /' "$tmp/make.log"

p=$tmp/prefix
test -f "$p/lib/libaccel.a" && test -L "$p/lib/libaccel.so" &&
	test -f "$p/include/accel/accel.h" && test -f "$p/include/accel/mxa_isa.h" &&
	test -x "$p/bin/accel-run" && test -f "$p/share/man/man1/accel-run.1" &&
	test -f "$p/share/man/man3/accel_asm.3"
ok $? "library, headers, tools and man pages installed"

# every exported function: its own page (the family page, or a ".so" link to it)
nolink=
for fn in $(nm -D --defined-only "$p/lib/libaccel.so" | awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }'); do
	f=$p/share/man/man3/$fn.3
	if [ ! -f "$f" ] || { grep -q '^\.so ' "$f" && [ ! -f "$p/share/man/$(sed -n 's/^\.so //p' "$f")" ]; }; then
		nolink="$nolink $fn"
	fi
done
[ -z "$nolink" ]
ok $? "man3/<function>.3 installed for every exported function" || echo "# missing:$nolink"

soname=$(objdump -p "$p/lib/libaccel.so" 2>/dev/null | awk '/SONAME/ { print $2 }')
[ "$soname" = libaccel.so.0 ]
ok $? "soname libaccel.so.0 (got '$soname')"

export PKG_CONFIG_PATH=$p/lib/pkgconfig
pkg-config --exists libaccel && [ "$(pkg-config --variable=prefix libaccel)" = "$p" ]
ok $? "pkg-config finds libaccel"

cat >"$tmp/hello.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <accel.h>
#include <mxa_isa.h>

int main(void)
{
	struct accel_prog *p;
	char err[128], text[256];

	if (accel_prog_new(&p) || accel_asm("wgmma.wait_group.sync.aligned 1;", p, err, sizeof(err)))
		return 1;
	accel_prog_disasm(p, 0, text, sizeof(text));
	fputs(text, stdout);
	return strcmp(text, "    WAIT_GROUP mma, 1\n") != 0 ||
	       accel_prog_dwords(p)[0] != MXA_CMD_HEADER(MXA_OP_WAIT_GROUP, 2, MXA_GROUP_MMA);
}
C
cc -o "$tmp/hello" "$tmp/hello.c" $(pkg-config --cflags --libs libaccel) 2>"$tmp/cc.log"
ok $? "a program builds with \$(pkg-config --cflags --libs libaccel)" || sed 's/^/# /' "$tmp/cc.log"
# ldd's output is captured whole: `ldd | grep -q` under pipefail fails whenever grep
# exits before ldd has written its last line (SIGPIPE), which made this point flaky.
LD_LIBRARY_PATH=$p/lib "$tmp/hello" >"$tmp/hello.out" 2>&1
run_rc=$?
deps=$(LD_LIBRARY_PATH=$p/lib ldd "$tmp/hello" 2>&1)
[ "$run_rc" = 0 ] && [[ "$deps" == *"libaccel.so.0 => $p/lib/"* ]]
ok $? "it runs against the installed libaccel.so.0" ||
	{ echo "# exit status $run_rc, output:"; sed 's/^/#   /' "$tmp/hello.out";
	  echo "# ldd:"; echo "$deps" | sed 's/^/#   /'; }
cc -static -o "$tmp/hello-static" "$tmp/hello.c" $(pkg-config --static --cflags --libs libaccel) \
	2>"$tmp/cc.log" && "$tmp/hello-static" >/dev/null
ok $? "and links statically (pkg-config --static)" || sed 's/^/# /' "$tmp/cc.log"
exit $fail
