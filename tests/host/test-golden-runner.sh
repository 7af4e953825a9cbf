#!/usr/bin/env bash
# `make golden`'s runner (TAP): tests/golden/mxa-golden builds and passes every golden
# vector kept in the tree, in the default numerics and in the H200 model (README).
. "$(dirname "$0")/../../scripts/mxa-env.sh"
echo "TAP version 13"
echo "1..2"
n=0 fail=0
for numerics in exact hopper; do
	n=$((n + 1))
	if out=$("$MXA_BUILD/tests/golden/mxa-golden" --accum "$numerics" "$MXA_TOP/tests/golden/h200" 2>&1); then
		echo "ok $n make golden NUMERICS=$numerics: $(echo "$out" | tail -n1)"
	else
		echo "$out" | grep -v PASS | tail -n 20 | sed 's/^/# /'
		echo "not ok $n make golden NUMERICS=$numerics: $(echo "$out" | tail -n1)"
		fail=1
	fi
done
exit $fail
