#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One man page per function family (libaccel/man/*.3); every function named in a page's
# NAME section gets a ".so" page pointing at it, so that `man accel_bo_free` works.
#   man-links.sh list PAGE...           print "function page" for every name
#   man-links.sh install DIR PAGE...    write DIR/function.3 (".so man3/page.3")
set -euo pipefail
cmd=$1; shift
dir=
if [ "$cmd" = install ]; then dir=$1; shift; fi
for page in "$@"; do
	base=$(basename "$page" .3)
	# the NAME section: "name, name, ... \- what"
	names=$(sed -n '/^\.SH NAME/,/^\.SH/{/^\.SH/d;p}' "$page" | tr '\n' ' ' |
		sed 's/ \\-.*//' | tr ',' ' ')
	for fn in $names; do
		case $cmd in
		list) echo "$fn $base" ;;
		install) [ "$fn" = "$base" ] || echo ".so man3/$base.3" >"$dir/$fn.3" ;;
		*) echo "usage: $0 list|install DIR PAGE..." >&2; exit 2 ;;
		esac
	done
done
