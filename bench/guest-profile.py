#!/usr/bin/python3
"""Profile a guest command under TCG by guest kernel function.

    bench/guest-profile.py [--seconds S] [--delay D] [--top N] -- GUEST-COMMAND

Boots a guest as run-guest.py does (this checkout's QEMU, kernel and initramfs), with
QEMU's -perfmap (a /tmp/perf-PID.map that names the host code TCG made for each guest
instruction by its guest address) and the guest kernel without KASLR. The guest first
prints /proc/kallsyms, then runs GUEST-COMMAND (a program in the initramfs and its
arguments). --delay seconds after the command starts, host perf samples QEMU's
threads for --seconds; the samples in translated code are then summed per guest kernel
function ("[user]" for guest userspace), the rest per QEMU or host kernel function (TCG's
helpers, thread switches).

Example, the io_uring phase of bench-submit (null_blk and ioctl run 20 s each first):
    bench/guest-profile.py --delay 45 --seconds 10 -- /bin/bench-submit --batch 32 --seconds 20

Needs perf (Debian: linux-perf). Documentation/performance.rst, "Submission", has figures
it gave.
"""
import argparse
import bisect
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def guest_env():
    """MXA_QEMU, MXA_GUEST_KERNEL and MXA_INITRD as scripts/mxa-env.sh sets them."""
    out = subprocess.run(["bash", "-c", ". scripts/mxa-env.sh && echo $MXA_QEMU && "
                          "echo $MXA_GUEST_KERNEL && echo $MXA_INITRD"],
                         cwd=TOP, capture_output=True, text=True, check=True).stdout.split()
    return out[0], out[1], out[2]


def wrapper(tmp, qemu):
    """A --qemu for run-guest.py: the real QEMU with -perfmap, nokaslr, its PID noted."""
    path = os.path.join(tmp, "qemu-perfmap.sh")
    with open(path, "w") as f:
        f.write("#!/bin/bash\nargs=()\nnext=0\nfor a in \"$@\"; do\n"
                "\t[ $next = 1 ] && a=\"$a nokaslr\"\n\tnext=0\n"
                "\t[ \"$a\" = -append ] && next=1\n\targs+=(\"$a\")\ndone\n"
                "echo $$ > %s/qemu.pid\nexec %s -perfmap \"${args[@]}\"\n" % (tmp, qemu))
    os.chmod(path, 0o755)
    return path


def symbolize(report, kallsyms):
    """perf report lines (percent, symbol) summed per guest function and host symbol."""
    syms = sorted(kallsyms)
    addrs = [a for a, _ in syms]
    guest, host = {}, {}
    for line in report.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+\[[.k]\]\s+(.*\S)", line)
        if not m:
            continue
        pct, sym = float(m.group(1)), m.group(2)
        g = re.match(r"guest-0x([0-9a-f]+)", sym)
        if not g:
            host[sym] = host.get(sym, 0) + pct
            continue
        a = int(g.group(1), 16)
        i = bisect.bisect_right(addrs, a) - 1
        name = "[user]" if a < 1 << 63 or i < 0 else syms[i][1]
        guest[name] = guest.get(name, 0) + pct
    return guest, host


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seconds", type=float, default=10)
    p.add_argument("--delay", type=float, default=0)
    p.add_argument("--top", type=int, default=30)
    p.add_argument("command", nargs="+")
    a = p.parse_args()
    qemu, kernel, initrd = guest_env()
    tmp = tempfile.mkdtemp(prefix="mxa-profile-")
    data = os.path.join(tmp, "perf.data")
    cmd = [sys.executable, os.path.join(TOP, "tests/vm/run-guest.py"), "--qemu",
           wrapper(tmp, qemu), "--kernel", kernel, "--initrd", initrd,
           "--log", os.path.join(tmp, "console.log"), "--raw",
           "--run", "/bin/cat /proc/kallsyms", "--run", "/bin/echo MXA-PROFILE-START",
           "--run", " ".join(a.command)]
    guest = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    kallsyms, recorder, recorded = [], None, []

    def record():
        pid = open(os.path.join(tmp, "qemu.pid")).read().strip()
        time.sleep(a.delay)
        recorded.append(subprocess.run(
            ["perf", "record", "-q", "-e", "cpu-clock", "-F", "4000", "-p", pid, "-o", data,
             "--", "sleep", str(a.seconds)]).returncode)

    for line in guest.stdout:
        m = re.match(r"([0-9a-f]{16}) [tTwW] (\S+)(\s+\[(\w+)\])?", line)
        if m and recorder is None:
            kallsyms.append((int(m.group(1), 16), m.group(2) + (
                "[%s]" % m.group(4) if m.group(4) else "")))
        elif "MXA-PROFILE-START" in line and recorder is None:
            recorder = threading.Thread(target=record)
            recorder.start()
        elif recorder is not None:
            sys.stdout.write(line)
    guest.wait()
    if recorder is None:
        sys.exit("guest-profile: the guest did not reach the command (see %s)" % tmp)
    recorder.join()
    # (when QEMU ends first, perf stops its sleep by SIGTERM and exits by it too: the
    # samples are there all the same)
    if not os.path.exists(data) or not os.path.getsize(data):
        sys.exit("guest-profile: perf recorded nothing (exit %s): QEMU had ended before "
                 "--delay %.1f s passed? A shorter --delay, or a longer command" %
                 (recorded[0] if recorded else "?", a.delay))
    report = subprocess.run(["perf", "report", "-i", data, "--sort", "sym", "--stdio"],
                            capture_output=True, text=True, check=True).stdout
    samples = re.search(r"# Samples: (\S+)", report)
    g, h = symbolize(report, kallsyms)
    print("guest-profile: %s samples of QEMU's threads over %.1f s at 4000 Hz; "
          "translated guest code %.1f %%, QEMU and host kernel %.1f %%" %
          (samples.group(1) if samples else "?", a.seconds, sum(g.values()),
           sum(h.values())))
    for title, d in (("guest functions", g), ("QEMU and host kernel", h)):
        print("%% of samples  %s" % title)
        for name, pct in sorted(d.items(), key=lambda x: -x[1])[:a.top]:
            print("%12.2f  %s" % (pct, name))
    perfmap = "/tmp/perf-%s.map" % open(os.path.join(tmp, "qemu.pid")).read().strip()
    if os.path.exists(perfmap):	# QEMU's, megabytes per run
        os.unlink(perfmap)
    return guest.returncode


if __name__ == "__main__":
    sys.exit(main())
