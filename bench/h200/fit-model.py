#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Fit the cycle model's H200 parameters (qemu-device/mxa_timing.c, preset "h200") to
the pipelined GEMMs of pipeline.csv: usage fit-model.py [SEED] [--fit-waits] (prints the
parameters and their error on the fit and held-out kernels; bench/model.py names the fit
set). The preset holds the result of the default seed, 2, the best objective of seeds
1 to 3 on pipeline.csv of 2026-12-03 (fit kernels within 3.3%, held out within 4.2%,
speed-ups from stages within 3.1% and 6.7%; seeds 1 and 3: 3.9% and 4.7% on the fit
kernels, 7.9% and 7.7% held out, speed-ups within 4.0 / 6.8% and 3.7 / 6.3%). Its
pending_wait is at the top of its range, 150; with the range to 250, seeds 2 and 3
settled at 70 and 153 with worse objectives (4.7% and 3.8% on the fit kernels).

simulate() is the model as the device runs bench-model's programs, event for event: a
TMA box keeps the copy engine box_setup + rows x row cycles and the memory path
bytes / bw, and lands L0 after both; a WGMMA keeps the math engine N/2 + 4 (measured,
timing.csv) and delivers N/2 + wgmma_latency after its start; the command processor
pays mbar for an arrive, tma_issue and mma_issue to issue, group for a commit or a
WAIT_GROUP, resumes mbar_wait / group_wait after what it waited for, and pays
pending_wait more for a WAIT_GROUP that leaves a group pending (a pipelined step
releasing its stage).

The waits are measured (wakeup.csv): a WGMMA's result is ready N/2 + 120 after its
issue, a WAIT_GROUP wakes 5 cycles after it, an mbarrier arrive costs 6 and a try_wait
45 whether it blocks or not. The rest is fitted: a coordinate descent from random
starts on the worst of the cycle and speed-up errors plus the mean cycle error, the best
few polished. --fit-waits fits the WGMMA latency and the wake-up too (without
pending_wait), as the preset did before wakeup.csv, with timing.csv's wgmma probe (one
wgmma, commit, wait: N/2 + 123; N = 64 and 256, 128 held out) in the objective; the
fits then split the probe's time as latency N/2 + 32 and a wake-up of 108, which the
H200 does not have. make check (bench/model.py --tap) checks the device's own numbers.
"""
import csv
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from model import FIT  # noqa: E402

MEAS = {}
for r in csv.DictReader(open(os.path.join(HERE, "pipeline.csv"))):
    if r["type"] == "e4m3":     # bf16 runs in the same cycles on the H200
        MEAS[(int(r["tile_m"]), int(r["tile_n"]), int(r["box"]), int(r["stages"]))] = int(r["cycles"])


def simulate(tm, n, box, stages, p):
    kw = 4 if box == 128 else 2
    boxes, steps = kw * 32 // box, 3072 // (kw * 32)
    t = tma = path = mma = 0
    ready, groups = {}, []

    def load(s):
        nonlocal t, tma, path
        t += p["mbar"]
        last = 0
        for _ in range(boxes):
            for rows in (tm, n):
                start = max(tma, t)
                tma = start + p["box_setup"] + rows * p["row"]
                path = max(path, start) + rows * box / p["bw"]
                last = max(last, max(tma, path) + p["L0"])
                t += p["tma_issue"]
        ready[s] = last

    for s in range(stages - 1):
        load(s)
    for it in range(steps):
        s = it % stages
        if stages == 1:
            load(0)
        t = max(t, ready[s]) + p["mbar_wait"]
        done = 0
        for _ in range(kw * tm // 64):
            start = max(mma, t)
            mma, done = start + n // 2 + 4, start + n // 2 + p["wgmma_latency"]
            t += p["mma_issue"]
        groups.append(done)
        t += 2 * p["group"]     # COMMIT_GROUP, WAIT_GROUP
        if stages == 1:
            t = max(t, groups[-1]) + p["group_wait"]
        else:
            t = max(t, groups[-2] if len(groups) > 1 else 0) + p["group_wait"]
            t += p.get("pending_wait", 0)   # a WAIT_GROUP 1's extra (not with --fit-waits)
            if it + stages - 1 < steps:
                load((it + stages - 1) % stages)
    t += p["group"]
    return max(t, groups[-1]) + p["group_wait"]


# timing.csv's wgmma_lat: one m64nN wgmma, commit, wait, in SM cycles
PROBES = {64: 155, 128: 187, 256: 251}
PROBES_FIT = (64, 256)


def probe(n, p):
    """The probe as the model runs it: issue, commit, wait (blocked), wake-up."""
    done = n // 2 + p["wgmma_latency"]
    return max(p["mma_issue"] + 2 * p["group"], done) + p["group_wait"]


def probe_errors(p, ns):
    return max(abs(probe(n, p) / PROBES[n] - 1) for n in ns)


def errors(p, keys):
    cyc = [abs(simulate(*k, p) / MEAS[k] - 1) for k in keys]
    sp = [abs((simulate(*k[:3], 1, p) / simulate(*k, p)) / (MEAS[k[:3] + (1,)] / MEAS[k]) - 1)
          for k in keys if k[3] > 1]
    return max(cyc), sum(cyc) / len(cyc), max(sp)


# Measured, not fitted: the memory path's bandwidth (timing.csv's bulk_thr: 64 KiB copies
# 687 cycles apart, 95 B/cycle) and the waits (wakeup.csv: a WGMMA's result ready N/2 +
# 120 after its issue, a WAIT_GROUP's wake-up 5, an mbarrier arrive 6 of the 51-cycle
# round trip and a try_wait 45); what a pipelined step costs beyond them is a fitted
# extra of the WAIT_GROUP that leaves a group pending (pending_wait).
MEASURED = dict(bw=95, mbar=6, mbar_wait=45, wgmma_latency=120, group_wait=5)
RANGES = dict(tma_issue=(0, 60), box_setup=(0, 60), row=(0.5, 1.5), L0=(0, 500),
              mma_issue=(0, 60), group=(0, 40), pending_wait=(0, 150))
# --fit-waits: as before wakeup.csv, the mbarrier round trip split in halves and the
# WGMMA latency and wake-up fitted
MEASURED_FIT_WAITS = dict(bw=95, mbar=25, mbar_wait=25)
RANGES_FIT_WAITS = dict(tma_issue=(0, 60), box_setup=(0, 60), row=(0.5, 1.5), L0=(0, 500),
                        mma_issue=(0, 60), group=(0, 30), group_wait=(0, 150),
                        wgmma_latency=(0, 200))


RESTARTS = 16
POLISH = 4


def descend(p, score, steps, divisions):
    """Coordinate descent from @p: random moves of a parameter within its range / d."""
    sc = score(p)
    for d in divisions:
        for _ in range(steps):
            k = random.choice(list(RANGES))
            q = dict(p)
            lo, hi = RANGES[k]
            q[k] = min(max(q[k] + random.uniform(-1, 1) * (hi - lo) / d, lo), hi)
            s2 = score(q)
            if s2 < sc:
                p, sc = q, s2
    return sc, p


def device_resolution(p):
    """The parameters as the device holds them: whole cycles, a row in 1/100 cycle."""
    return {k: round(v, 2) if k == "row" else round(v) for k, v in p.items()}


def main():
    global MEASURED, RANGES
    args = [a for a in sys.argv[1:] if a != "--fit-waits"]
    fit_waits = len(args) < len(sys.argv) - 1
    if fit_waits:
        MEASURED, RANGES = MEASURED_FIT_WAITS, RANGES_FIT_WAITS
    random.seed(int(args[0]) if args else 2)
    fit = [k for k in MEAS if k[:3] in FIT]
    held = [k for k in MEAS if k[:3] not in FIT]

    def score(p):
        worst, mean, speed = errors(p, fit)
        return max(worst, speed, probe_errors(p, PROBES_FIT) if fit_waits else 0) + mean

    found = []
    for _ in range(RESTARTS):
        p = dict(MEASURED, **{k: random.uniform(*v) for k, v in RANGES.items()})
        found.append(descend(p, score, 1500, (4,)))
    # the best few, polished with ever finer steps
    found.sort(key=lambda f: f[0])
    best = min((descend(p, score, 800, (4, 8, 16, 32)) for _, p in found[:POLISH]),
               key=lambda f: f[0])
    p = device_resolution(best[1])
    print(p)
    if fit_waits:
        print("wgmma probe (N = %s fitted, 128 held out): within %.1f%%" %
              (" and ".join(map(str, PROBES_FIT)), 100 * probe_errors(p, PROBES)))
    else:
        print("wgmma probe (N = 64, 128, 256; not fitted): within %.1f%%" %
              (100 * probe_errors(p, PROBES)))
    for name, keys in (("fit", fit), ("held-out", held)):
        worst, mean, speed = errors(p, keys)
        print("%s: cycles within %.1f%% (mean %.1f%%), speed-ups within %.1f%%" %
              (name, 100 * worst, 100 * mean, 100 * speed))


if __name__ == "__main__":
    main()
