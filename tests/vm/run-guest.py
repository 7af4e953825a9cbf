#!/usr/bin/python3
"""Boot a TCG guest with one or more mxa devices, run guest tests, report TAP.

The guest's /init (tests/vm/init.sh) loads the modules and mxa.ko, runs each test binary
and prints its TAP between markers on the harness channel (ttyS1); the kernel console
(ttyS0) is streamed to --log. This script:
  * enforces --timeout on the whole run and always tears QEMU down (success, failure,
    timeout, Ctrl-C);
  * boots a second time, once, where the guest kernel died or hung (--boot-timeout)
    before /init, and says so in kernel.tap and on stderr;
  * writes <tap-dir>/<test>.tap and <test>.rc for each test, plus kernel.tap: whether the
    guest reported at all and whether the kernel logged a WARN, BUG or oops;
  * exits non-zero when anything failed.
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import time

KERNEL_BAD = re.compile(r"(WARNING:|BUG:|Oops|general protection fault|Call Trace:|"
                        r"UBSAN:|KASAN:|list_(add|del) corruption|Kernel panic|ODEBUG:|"
                        r"possible (circular|recursive) locking|inconsistent lock state|"
                        r"suspected memory leak|unreferenced object)")


def kernel_problems(lines):
    """The lines of a kernel log that report a problem, and the count of injected
    allocation failures excused: between "mxa-kfault: armed" and "mxa-kfault: disarmed"
    (tests/stress/kfault.h) a "page allocation failure" report and its stack dump are
    the fault injection working, not a problem."""
    bad, excused, armed, excuse_trace = [], 0, False, False
    for l in lines:
        if "mxa-kfault: armed" in l:
            armed = True
        elif "mxa-kfault: disarmed" in l:
            armed = False
        elif armed and "page allocation failure" in l:
            excused += 1
            excuse_trace = True
        elif excuse_trace and "Call Trace:" in l:
            excuse_trace = False
        elif KERNEL_BAD.search(l):
            bad.append(l)
    return bad, excused


def parse_args():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--qemu", required=True)
    p.add_argument("--kernel", required=True)
    p.add_argument("--initrd", required=True)
    p.add_argument("--log", required=True, help="guest console log")
    p.add_argument("--tap-dir", help="write per-test TAP files here")
    p.add_argument("--tests", default="", help="test binaries in /tests, space separated")
    p.add_argument("--run", action="append", default=[],
                   help="run this guest command (repeatable; they run in order, stopping at a failure)")
    p.add_argument("--raw", action="store_true", help="print the --run output as it comes")
    p.add_argument("--timeout", type=float, default=float(os.environ.get("MXA_VM_TIMEOUT", 900)))
    p.add_argument("--boot-timeout", type=float,
                   default=float(os.environ.get("MXA_VM_BOOT_TIMEOUT", 300)),
                   help="kill a guest that has not reached /init after this many seconds")
    p.add_argument("--devices", type=int, default=int(os.environ.get("MXA_VM_DEVICES", 1)))
    p.add_argument("--device-args", default=os.environ.get("MXA_DEVICE_ARGS", ""))
    p.add_argument("--module-args", default="")
    p.add_argument("--smp", type=int, default=2)
    p.add_argument("--mem", default="1G")
    p.add_argument("-v", "--verbose", action="store_true", help="echo the console")
    return p.parse_args()


def qemu_cmdline(a, tap_path):
    append = ["console=ttyS0", "loglevel=5", "panic=-1", "rdinit=/init"]
    if a.tests:
        append.append("mxa.tests=" + ",".join(a.tests.split()))
    if a.run:
        append.append("mxa.run=" + ";".join(",".join(r.split()) for r in a.run))
    if a.module_args:
        append.append("mxa.module_args=" + ",".join(a.module_args.split()))
    # -nodefaults: q35's default devices cost SeaBIOS ~30 s under TCG.
    # la57=off: with 5-level paging, Debian's 6.12 KASAN kernel (the debug guest) may report
    # a "wild-memory-access" in an interrupt that arrives while identify_cpu() rebuilds the
    # boot CPU's feature bits: LA57 is briefly clear, so KASAN takes every address of the
    # 5-level direct map for one without shadow. Seen once in six boots on 2026-12-03,
    # before mxa.ko was loaded. Nothing here needs 5-level paging.
    cmd = [a.qemu, "-accel", "tcg,thread=multi", "-machine", "q35", "-nodefaults",
           "-cpu", "max,la57=off",
           "-smp", str(a.smp), "-m", a.mem, "-display", "none", "-no-reboot", "-nic", "none",
           "-monitor", "none", "-L", "/usr/share/qemu", "-L", "/usr/share/seabios",
           "-kernel", a.kernel, "-initrd", a.initrd, "-append", " ".join(append),
           "-chardev", "file,id=con,path=" + a.log, "-serial", "chardev:con",
           "-chardev", "file,id=tap,path=" + tap_path, "-serial", "chardev:tap"]
    # Each mxa sits behind its own PCIe root port so that it can be hot-unplugged.
    for i in range(a.devices):
        cmd += ["-device", "pcie-root-port,id=rp%d,chassis=%d,slot=%d" % (i, i + 1, i + 1)]
        dev = "mxa,id=mxa%d,bus=rp%d" % (i, i)
        if a.device_args:
            dev += "," + a.device_args
        cmd += ["-device", dev]
    cmd += ["-qmp", "unix:%s,server=on,wait=off" % qmp_path(a)]
    return cmd


def qemu_exit_text(rc):
    """How QEMU ended, for a report: "stopped: QEMU exited with status 1" or "... killed
    by SIGABRT"."""
    if rc is None:
        return "stopped: QEMU still running"
    if rc < 0:
        try:
            return "stopped: QEMU killed by %s" % signal.Signals(-rc).name
        except ValueError:
            return "stopped: QEMU killed by signal %d" % -rc
    return "stopped: QEMU exited with status %d" % rc


def qmp_path(a):
    return a.log + ".qmp"


def qmp_command(a, command, arguments=None):
    """Send one QMP command to QEMU; returns the reply (or an error text)."""
    import json
    import socket
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(10)
        s.connect(qmp_path(a))
        f = s.makefile("rw")
        f.readline()  # greeting
        f.write(json.dumps({"execute": "qmp_capabilities"}) + "\n")
        f.flush()
        f.readline()
        msg = {"execute": command}
        if arguments:
            msg["arguments"] = arguments
        f.write(json.dumps(msg) + "\n")
        f.flush()
        while True:
            reply = json.loads(f.readline())
            if "return" in reply or "error" in reply:
                s.close()
                return reply
    except (OSError, ValueError) as e:
        return {"error": str(e)}


class Channel:
    """Reads the harness channel file as QEMU appends to it."""

    def __init__(self, path):
        self.path, self.pos, self.partial = path, 0, ""

    def lines(self):
        try:
            with open(self.path, "r", errors="replace") as f:
                f.seek(self.pos)
                data = f.read()
                self.pos = f.tell()
        except FileNotFoundError:
            return []
        data = (self.partial + data).replace("\r", "")
        out = data.split("\n")
        self.partial = out.pop()
        return out


class Attempt:
    """One boot of QEMU: what the guest reported on its channel and how QEMU ended."""

    def __init__(self):
        self.results = {}          # test -> (lines, rc)
        self.current, self.cur_lines = None, []
        self.dmesg, self.kmemleak, self.kmemleak_scanned = [], [], False
        self.booted = self.done = False
        self.guest_errors = []
        self.run_rc = None
        self.timed_out = self.boot_timed_out = False
        self.returncode, self.qemu_out = None, ""


def boot(a, cmd, tap_path, state):
    """Boot QEMU once and follow the guest until it powers off, the timeout passes, it has
    not reached /init after --boot-timeout, or the harness is interrupted (@state)."""
    for p in (a.log, tap_path):
        open(p, "w").close()
    t = Attempt()
    in_dmesg = in_kmemleak = False
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    state["proc"] = proc
    chan = Channel(tap_path)
    console = Channel(a.log)
    start = time.monotonic()
    try:
        while True:
            exited = proc.poll() is not None
            for line in chan.lines():
                if line.startswith("# MXA-GUEST-BOOTED"):
                    t.booted = True
                    print("  guest booted (%.1fs)" % (time.monotonic() - start), file=sys.stderr)
                elif line.startswith("# MXA-HOST device_del "):
                    # a guest test asks the host to hot-unplug a device (by id: mxa0...)
                    dev_id = line.split()[3]
                    reply = qmp_command(a, "device_del", {"id": dev_id})
                    print("  host: device_del %s: %s" % (dev_id, reply), file=sys.stderr)
                    # in the test's output too: whether a stop came before or after it
                    t.cur_lines.append("# host: device_del %s at %.1fs: %s" %
                                       (dev_id, time.monotonic() - start, reply))
                elif line.startswith("# MXA-GUEST-ERROR"):
                    t.guest_errors.append(line[len("# MXA-GUEST-ERROR "):])
                    print("  guest: " + line, file=sys.stderr)
                elif line.startswith("# MXA-TEST-BEGIN "):
                    t.current, t.cur_lines = line.split()[2], []
                    print("  running %s ..." % t.current, file=sys.stderr)
                elif line.startswith("# MXA-TEST-END "):
                    _, _, name, rc = line.split()[:4]
                    t.results[name] = (t.cur_lines, int(rc))
                    print("  %s: exit %s (%.1fs)" % (name, rc, time.monotonic() - start),
                          file=sys.stderr)
                    t.current = None
                elif line.startswith("# MXA-RUN-BEGIN"):
                    t.current, t.cur_lines = "run", []
                elif line.startswith("# MXA-RUN-END "):
                    t.run_rc = int(line.split()[2])
                    t.results["run"] = (t.cur_lines, t.run_rc)
                    t.current = None
                elif line == "# MXA-KMEMLEAK-BEGIN":
                    in_kmemleak = t.kmemleak_scanned = True
                elif line == "# MXA-KMEMLEAK-END":
                    in_kmemleak = False
                elif in_kmemleak:
                    t.kmemleak.append(line)
                elif line == "# MXA-DMESG-BEGIN":
                    in_dmesg = True
                elif line == "# MXA-DMESG-END":
                    in_dmesg = False
                elif line == "# MXA-GUEST-DONE":
                    t.done = True
                elif in_dmesg:
                    t.dmesg.append(line)
                elif t.current:
                    t.cur_lines.append(line)
                    if a.raw and t.current == "run":
                        print(line, flush=True)
            for line in console.lines():
                if a.verbose:
                    print("  console: " + line, file=sys.stderr)
            if exited or state["interrupted"]:
                break
            if time.monotonic() - start > a.timeout:
                t.timed_out = True
                print("  guest timed out after %.0fs: killing QEMU" % a.timeout, file=sys.stderr)
                break
            if not t.booted and time.monotonic() - start > a.boot_timeout:
                t.timed_out = t.boot_timed_out = True
                print("  guest did not reach /init in %.0fs: killing QEMU" % a.boot_timeout,
                      file=sys.stderr)
                break
            time.sleep(0.05)
    finally:
        kill_group(proc)
        try:
            t.qemu_out = proc.communicate(timeout=10)[0].decode(errors="replace")
        except subprocess.TimeoutExpired:
            pass
    t.returncode = proc.returncode
    return t


def kill_group(proc):
    if proc is not None and proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def early_failure(a, t, state):
    """Why a boot that never reached /init may be tried again, or None: the guest kernel
    ran (its console has output) and died or hung before /init started, which is
    before the driver or any test. Debian's kernel under TCG has done so rarely (an int3
    oops in sched_init_debug on one host CPU, an RCU stall with a vCPU's timer never
    firing, a KASAN report while LA57 was clear), never twice in a row."""
    if t.booted or state["interrupted"]:
        return None
    with open(a.log, errors="replace") as f:
        lines = f.read().splitlines()
    if not lines:
        return None             # QEMU never ran a kernel: trying again would not help
    bad, _ = kernel_problems(lines)
    if t.boot_timed_out:
        return "the guest did not reach /init in %.0fs (its last console line: %s)" % (
            a.boot_timeout, lines[-1].strip())
    return "%s before /init (%s)" % (qemu_exit_text(t.returncode).replace("stopped: ", "", 1),
                                     (bad[0] if bad else lines[-1]).strip())


def main():
    a = parse_args()
    os.makedirs(os.path.dirname(os.path.abspath(a.log)), exist_ok=True)
    tap_path = a.log + ".chan"
    cmd = qemu_cmdline(a, tap_path)
    with open(a.log + ".cmd", "w") as f:
        f.write(" ".join(cmd) + "\n")

    tests = a.tests.split()
    state = {"proc": None, "interrupted": False}

    def on_signal(signum, frame):
        state["interrupted"] = True
        kill_group(state["proc"])

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    att = boot(a, cmd, tap_path, state)
    retried = early_failure(a, att, state)
    if retried:
        # the first boot's console is kept beside the log; the second boot's is the log
        os.replace(a.log, a.log + ".boot1")
        if att.qemu_out.strip():
            with open(a.log + ".boot1", "a") as f:
                f.write("".join("# qemu: %s\n" % l for l in att.qemu_out.strip().splitlines()))
        print("  retrying the boot once: %s (console: %s.boot1)" % (retried, a.log),
              file=sys.stderr)
        att = boot(a, cmd, tap_path, state)
    interrupted = state["interrupted"]
    if att.qemu_out.strip():
        print("  qemu: " + att.qemu_out.strip().replace("\n", "\n  qemu: "), file=sys.stderr)
    ended = qemu_exit_text(att.returncode)   # how QEMU went away, for the reports
    limit = a.boot_timeout if att.boot_timed_out else a.timeout
    if att.current and att.current != "run":
        # a test running when QEMU went away: how, and QEMU's last words
        why = "timed out" if att.timed_out else "interrupted" if interrupted else ended
        att.results[att.current] = (
            att.cur_lines + ["# test did not finish (guest %s)" % why] +
            ["# qemu: " + l for l in att.qemu_out.strip().splitlines()[-10:]], 124)

    with open(a.log, errors="replace") as f:
        console_text = f.read()
    with open(a.log + ".dmesg", "w") as f:
        f.write("\n".join(att.dmesg) + "\n")
    bad, excused = kernel_problems(console_text.splitlines())
    bad += kernel_problems(att.dmesg)[0]
    leaks = [l for l in att.kmemleak if l.startswith("unreferenced object")]
    bad += ["kmemleak: " + l for l in leaks]

    ok = att.done and not att.timed_out and not interrupted and not att.guest_errors and not bad
    # a guest that did not finish: the console's last words (a panic, a hang's last message)
    last_console = [] if att.done else console_text.splitlines()[-15:]
    if a.tap_dir:
        os.makedirs(a.tap_dir, exist_ok=True)
        for name in tests:
            lines, rc = att.results.get(name, (["# never ran: guest %s" % (
                "timed out" if att.timed_out else "did not get to it")], 125))
            with open(os.path.join(a.tap_dir, name + ".tap"), "w") as f:
                f.write("\n".join(lines) + "\n")
            with open(os.path.join(a.tap_dir, name + ".rc"), "w") as f:
                f.write("%d\n" % rc)
        with open(os.path.join(a.tap_dir, "kernel.tap"), "w") as f:
            why = ("did not reach /init in %.0fs" % limit if att.boot_timed_out else
                   "timed out after %.0fs" % limit if att.timed_out else
                   "interrupted" if interrupted else
                   "no completion marker (guest %s)" % ended)
            f.write("%s 1 guest booted, ran its tests and powered off%s\n" %
                    ("ok" if att.done and not att.timed_out else "not ok",
                     "" if att.done and not att.timed_out else " # " + why))
            for l in last_console:
                f.write("#   console: %s\n" % l)
            if retried:
                f.write("# this was the second boot; the first: %s; its console: %s.boot1\n"
                        % (retried, os.path.basename(a.log)))
            f.write("%s 2 guest setup (modules, /dev/accel/accel0)\n" %
                    ("not ok" if att.guest_errors else "ok"))
            for e in att.guest_errors:
                f.write("# %s\n" % e)
            f.write("%s 3 kernel log has no WARN, BUG or oops\n" % ("not ok" if bad else "ok"))
            for l in bad[:20]:
                f.write("# %s\n" % l)
            if excused:
                f.write("# %d allocation-failure reports were injected faults (mxa-kfault)\n"
                        % excused)
            if att.kmemleak_scanned:
                f.write("%s 4 kmemleak finds no unreferenced object after the tests\n" %
                        ("not ok" if leaks else "ok"))
                for l in att.kmemleak[:40]:
                    f.write("# %s\n" % l)
        with open(os.path.join(a.tap_dir, "kernel.rc"), "w") as f:
            f.write("0\n")
    if bad:
        print("  kernel log shows problems (full log: %s):" % a.log, file=sys.stderr)
        for l in bad[:20]:
            print("    " + l, file=sys.stderr)
    if not att.done:
        print("  guest did not finish; last console lines (%s):" % a.log, file=sys.stderr)
        for l in last_console:
            print("    " + l, file=sys.stderr)
    if a.run:
        if not a.raw:
            print("\n".join(att.results.get("run", ([], 0))[0]))
        ok = ok and att.run_rc == 0
    else:
        ok = ok and all(att.results.get(name, ([], 1))[1] == 0 for name in tests)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
