#!/bin/bash
# SPDX-License-Identifier: MIT
# QEMU built here, run on another machine: our loader and libraries, our firmware.
d=$(cd "$(dirname "$0")" && pwd)
args=()
for a in "$@"; do
	case "$a" in
	/usr/share/qemu) args+=("$d/share/qemu") ;;
	/usr/share/seabios) args+=("$d/share/seabios") ;;
	*) args+=("$a") ;;
	esac
done
exec "$d/lib/ld-linux-x86-64.so.2" --library-path "$d/lib" "$d/qemu" "${args[@]}"
