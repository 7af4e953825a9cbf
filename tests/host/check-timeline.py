#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check an execution timeline written by -device mxa,timeline=PATH (TAP on stdout).

make check boots a guest with the device writing build/timeline.json and runs the
"tma", "async" and "grid" guest tests in it; this checks what the device wrote: valid
trace JSON, the host-time and modelled-time tracks of each queue, its jobs, spans of
every engine of the cores (command processor, math, copy) and of the commands each
runs, spans on more than one core (a grid's instances), the overlap of the copy
engine with the math engine in modelled time (a pipelined K loop), and a grid's waves
one after another on each core's modelled track. usage:
check-timeline.py FILE [PRESET]   (PRESET: the timing preset the device was given)
"""
import json, os, subprocess, sys

points = []


def check(ok, what):
    points.append((bool(ok), what))
    return ok


try:
    events = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    print("TAP version 13\nnot ok 1 timeline: valid trace JSON (%s)\n1..1" % e)
    sys.exit(1)
check(isinstance(events, list) and events, "timeline: valid trace JSON (%d events)" % len(events))

names = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"}
check("mxa queue 0" in names.values() and "mxa queue 0 (modelled)" in names.values(),
      "timeline: queue 0 has a host-time and a modelled-time track")
spans = [e for e in events if e.get("ph") == "X"]
model = [e for e in spans if names.get(e["pid"], "").endswith("(modelled)")]
host = [e for e in spans if not names.get(e["pid"], "").endswith("(modelled)")]
check(len(model) == len(host) > 0, "timeline: every span on both tracks (%d each)" % len(host))
# tid 0: the queue's jobs; 1 + 3 * core + engine: a core's command processor (0),
# math (1) and copy (2) engines (qemu-device/mxa.h, MXA_TIMELINE_TID)
ENGINES = ["command processor", "math engine", "copy engine"]
threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
           if e.get("ph") == "M" and e.get("name") == "thread_name"}
check(threads.get((0, 0)) == "jobs" and threads.get((0, 1)) == "core 0 command processor"
      and threads.get((0, 6)) == "core 1 copy engine",
      "timeline: a jobs track and three tracks per core, named")
seen = {e["name"].split(" ")[0] for e in model if e["tid"] == 0}
check("job" in seen, "timeline: the queue's jobs on their track")
want = {0: {"MBAR_WAIT", "WAIT_GROUP"}, 1: {"WGMMA", "GEMM"}, 2: {"TMA_LOAD", "TMA_STORE", "COPY"}}
for engine, kinds in want.items():
    seen = {e["name"].split(" ")[0] for e in model if e["tid"] and (e["tid"] - 1) % 3 == engine}
    check(kinds <= seen, "timeline: engine %d (%s) shows %s" % (engine, ENGINES[engine],
                                                                ", ".join(sorted(kinds - seen)) or "every kind asked for")
          + ("" if kinds <= seen else " missing"))
cores = {(e["tid"] - 1) // 3 for e in spans if e["tid"]}
check(len(cores) > 1, "timeline: spans on %d cores" % len(cores))
cm = [e["args"] for e in events if e.get("name") == "cycle model"]
mhz = cm[0]["cycle_mhz"] if cm else 0
check(cm and (len(sys.argv) < 3 or cm[0]["timing"] == sys.argv[2]),
      "timeline: names its cycle model (%s at %s MHz)" % (cm[0]["timing"] if cm else "none", mhz))
check(model and mhz and all(abs(e["dur"] - e["args"]["cycles"] / mhz) < 0.002 for e in model),
      "timeline: modelled spans last their cycles at the model's clock")
# overlap: a copy-engine span inside the time of a math-engine span, same queue and job
overlap = 0
by_job = {}
for e in model:
    by_job.setdefault((e["pid"], e["args"]["job"]), []).append(e)
for evs in by_job.values():
    math = [(e["ts"], e["ts"] + e["dur"]) for e in evs if e["tid"] and (e["tid"] - 1) % 3 == 1 and e["dur"] > 0]
    for c in (e for e in evs if e["tid"] and (e["tid"] - 1) % 3 == 2):
        if any(c["ts"] < m1 and m0 < c["ts"] + c["dur"] for m0, m1 in math):
            overlap += 1
check(overlap > 0, "timeline: copies overlap math in modelled time (%d copy spans)" % overlap)
# a core's command processor runs one instance at a time, in modelled time too: the
# waves of a grid larger than the cores follow each other on each core's track
clash, tracks = 0, {}
for e in model:
    if e["tid"] and (e["tid"] - 1) % 3 == 0:
        tracks.setdefault((e["pid"], e["args"]["job"], e["tid"]), []).append(e)
for evs in tracks.values():
    evs.sort(key=lambda e: e["ts"])
    clash += sum(b["ts"] < a["ts"] + a["dur"] - 0.002 for a, b in zip(evs, evs[1:]))
check(clash == 0, "timeline: a core's modelled command-processor spans never overlap "
      "(%d overlaps on %d tracks)" % (clash, len(tracks)))

# the moments of a job's round trip on each queue's jobs track (host time): every job
# after a doorbell of its queue, every interrupt after a job's end and the last job
# reported by one; bench/timeline-latency.py splits the round trips from them
bells = [e for e in events if e.get("ph") == "i" and e.get("name") == "doorbell"]
irqs = [e for e in events if e.get("ph") == "i" and e.get("name") == "interrupt"]
jobs = [e for e in host if e["tid"] == 0]
early = [j for j in jobs if not any(b["pid"] == j["pid"] and b["ts"] <= j["ts"] for b in bells)]
check(bells and all(b["tid"] == 0 and "value" in b["args"] for b in bells) and not early,
      "timeline: %d doorbells on the jobs tracks, every job after one (%d before any)"
      % (len(bells), len(early)))
stray = [i for i in irqs if not any(j["pid"] == i["pid"] and j["ts"] + j["dur"] <= i["ts"]
                                    for j in jobs)]
last = {}
for j in jobs:
    last[j["pid"]] = max(last.get(j["pid"], 0), j["ts"] + j["dur"])
unreported = [q for q, t in last.items() if not any(i["pid"] == q and i["ts"] >= t for i in irqs)]
check(irqs and not stray and not unreported,
      "timeline: %d interrupts, each after a job's end (%d not), the last job of each queue "
      "reported (%d queues not)" % (len(irqs), len(stray), len(unreported)))
lat = subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                   "..", "..", "bench", "timeline-latency.py"),
                      sys.argv[1]], capture_output=True, text=True)
rows = {l.split()[0]: l.split() for l in lat.stdout.splitlines() if l.split()}
check(lat.returncode == 0 and all(k in rows for k in ("wake", "run", "irq", "guest"))
      and "round" in rows and float(rows["round"][2]) > 0,
      "timeline-latency.py splits queue 0's round trips (%s)"
      % (" ".join(lat.stdout.splitlines()[:1]) or lat.stderr.strip()))

print("TAP version 13")
for i, (ok, what) in enumerate(points, 1):
    print("%s %d %s" % ("ok" if ok else "not ok", i, what))
print("1..%d" % len(points))
sys.exit(0 if all(ok for ok, _ in points) else 1)
