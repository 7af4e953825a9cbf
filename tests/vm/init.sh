#!/bin/sh
# Guest /init. The console (ttyS0) carries the kernel log; the harness channel (ttyS1)
# carries what the host parses: markers, the tests' TAP, and the final dmesg.
# Kernel command line: mxa.tests=a,b,c  (binaries in /tests) and/or mxa.run=/bin/prog,arg;/bin/other
# plus mxa.module_args="..." for mxa.ko.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
exec >/dev/ttyS1 2>&1

arg() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" /proc/cmdline; }

echo "# MXA-GUEST-BOOTED $(uname -r)"
while read -r m args; do
	insmod "/lib/modules/$m" $args || echo "# MXA-GUEST-ERROR insmod $m failed"
done </etc/modules.load
if insmod /lib/modules/mxa.ko $(arg mxa.module_args | tr ',' ' '); then
	i=0
	while [ ! -e /dev/accel/accel0 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	[ -e /dev/accel/accel0 ] || echo "# MXA-GUEST-ERROR /dev/accel/accel0 did not appear"
else
	echo "# MXA-GUEST-ERROR insmod mxa.ko failed"
fi

cd /tmp
for t in $(arg mxa.tests | tr ',' ' '); do
	echo "# MXA-TEST-BEGIN $t"
	if [ -x "/tests/$t" ]; then
		"/tests/$t"
		rc=$?
	else
		echo "# no such test binary /tests/$t"
		rc=127
	fi
	echo "# MXA-TEST-END $t $rc"
done
# mxa.run=cmd1,arg;cmd2: commands separated by ';', arguments by ','.
run=$(arg mxa.run)
if [ -n "$run" ]; then
	echo "# MXA-RUN-BEGIN $run"
	rc=0
	echo "$run" | tr ';' '\n' >/tmp/run.list
	while read -r cmd; do
		[ -n "$cmd" ] || continue
		$(echo "$cmd" | tr ',' ' ') </dev/null || rc=$?
		[ "$rc" = 0 ] || break
	done </tmp/run.list
	echo "# MXA-RUN-END $rc"
fi
# The debug kernel's kmemleak: two scans (an object whose contents changed since the
# last scan is not reported yet), then every object nothing references.
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan >/sys/kernel/debug/kmemleak
	echo scan >/sys/kernel/debug/kmemleak
	echo "# MXA-KMEMLEAK-BEGIN"
	cat /sys/kernel/debug/kmemleak
	echo "# MXA-KMEMLEAK-END"
fi
echo "# MXA-DMESG-BEGIN"
dmesg
echo "# MXA-DMESG-END"
echo "# MXA-GUEST-DONE"
sync
poweroff -f
