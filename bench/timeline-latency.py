#!/usr/bin/python3
"""Where a job's round trip goes, from a device timeline (-device mxa,timeline=PATH).

    bench/timeline-latency.py [--queue Q] [--skip N] TIMELINE

The device writes each job's span on its queue's "jobs" track in host time, with a
"doorbell" moment when the guest moved the queue's TAIL and an "interrupt" moment when
it sent the queue's MSI-X message (qemu-device/mxa_timeline.c). For each job whose
doorbell came after the job before it had ended (a program that submits, waits and
submits again), this splits the time from one doorbell to the next into:

  wake      doorbell -> the job's start: the queue's thread picking the job up
  run       the job's span (its device time, accel_job_result's end_ns - start_ns)
  outside   of the run, the time outside its commands' spans on the cores
  irq       the job's end -> the interrupt that reported it
  guest     the interrupt -> the next doorbell: the guest's driver, the waiting
            program and its next submission

and prints each part's median, 10th and 90th percentiles in microseconds over the jobs
(after the first --skip of them: a run's warm-up), and its share of the round trip.
Jobs a doorbell found the queue busy with another job are counted apart (they wait
for the queue, not for a wake-up). Documentation/performance.rst, "Submission", has
figures it gave.
"""
import argparse
import bisect
import json
import sys


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100.0 * len(xs)))] if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--queue", type=int, default=0)
    ap.add_argument("--skip", type=int, default=0, help="jobs to leave out at the start")
    ap.add_argument("timeline")
    a = ap.parse_args()
    try:
        events = json.load(open(a.timeline))
    except (OSError, ValueError) as e:
        sys.exit("timeline-latency: %s: %s" % (a.timeline, e))
    q = a.queue
    jobs = sorted((e["ts"], e["ts"] + e["dur"]) for e in events
                  if e.get("ph") == "X" and e["pid"] == q and e["tid"] == 0)
    cmds = sorted((e["ts"], e["ts"] + e["dur"]) for e in events
                  if e.get("ph") == "X" and e["pid"] == q and e["tid"] != 0)
    bells = sorted(e["ts"] for e in events
                   if e.get("ph") == "i" and e["pid"] == q and e["name"] == "doorbell")
    irqs = sorted(e["ts"] for e in events
                  if e.get("ph") == "i" and e["pid"] == q and e["name"] == "interrupt")
    if not jobs or not bells:
        sys.exit("timeline-latency: queue %d has %d jobs and %d doorbells in %s (a timeline "
                 "from a device without doorbell moments?)" % (q, len(jobs), len(bells),
                                                               a.timeline))
    parts = {k: [] for k in ("wake", "run", "outside", "irq", "guest", "round trip")}
    busy = 0
    for i, (start, end) in enumerate(jobs):
        if i < a.skip:
            continue
        b = bisect.bisect_right(bells, start) - 1     # the last doorbell before the start
        if b < 0 or (i and bells[b] < jobs[i - 1][1]):
            busy += 1           # it waited behind the job before
            continue
        n = bisect.bisect_left(irqs, end)             # the interrupt that reported it
        nb = bisect.bisect_right(bells, irqs[n]) if n < len(irqs) else len(bells)
        if n >= len(irqs) or nb >= len(bells) or \
                (i + 1 < len(jobs) and bells[nb] > jobs[i + 1][0]):
            continue            # the last job, or a next job not submitted after this one
        inside, at = 0.0, start
        for cs, ce in cmds[bisect.bisect_left(cmds, (start, start)):]:
            if cs >= end:
                break
            cs, ce = max(cs, at), min(ce, end)
            if ce > cs:
                inside += ce - cs
                at = ce
        parts["wake"].append(start - bells[b])
        parts["run"].append(end - start)
        parts["outside"].append(end - start - inside)
        parts["irq"].append(irqs[n] - end)
        parts["guest"].append(bells[nb] - irqs[n])
        parts["round trip"].append(bells[nb] - bells[b])
    n = len(parts["run"])
    print("queue %d: %d jobs, %d doorbells, %d interrupts; %d jobs submitted after the one "
          "before ended, %d behind another" % (q, len(jobs), len(bells), len(irqs), n, busy))
    if not n:
        return
    whole = pct(parts["round trip"], 50)
    print("%-11s %9s %9s %9s %7s" % ("us", "median", "p10", "p90", "share"))
    for k, xs in parts.items():
        share = "" if k in ("round trip", "outside") else "%6.0f%%" % (100 * pct(xs, 50) / whole)
        print("%-11s %9.1f %9.1f %9.1f %7s" % (k, pct(xs, 50), pct(xs, 10), pct(xs, 90), share))


if __name__ == "__main__":
    main()
