#!/usr/bin/env bash
# boot-guest.sh [run-guest.py options] - tests/vm/run-guest.py with this checkout's QEMU,
# guest kernel and initramfs (scripts/mxa-env.sh: MXA_QEMU, MXA_GUEST_KERNEL, MXA_INITRD).
# Every caller (make check, demo, vm-test, bench, stress) boots through here.
. "$(dirname "$0")/../../scripts/mxa-env.sh"
exec "$(dirname "$0")/run-guest.py" --qemu "$MXA_QEMU" --kernel "$MXA_GUEST_KERNEL" \
	--initrd "$MXA_INITRD" "$@"
