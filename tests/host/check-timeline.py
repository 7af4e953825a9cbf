#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check an execution timeline written by -device mxa,timeline=PATH (TAP on stdout).

make check boots a guest with the device writing build/timeline.json and runs the
"tma" and "async" guest tests in it; this checks what the device wrote: valid trace
JSON, the host-time and modelled-time tracks of each queue, spans of every engine
(command processor, math, copy) and of the commands each runs, and the overlap of the
copy engine with the math engine in modelled time (a pipelined K loop). usage:
check-timeline.py FILE [PRESET]   (PRESET: the timing preset the device was given)
"""
import json, sys

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
want = {0: {"job", "MBAR_WAIT", "WAIT_GROUP"}, 1: {"WGMMA", "GEMM"}, 2: {"TMA_LOAD", "TMA_STORE", "COPY"}}
for tid, kinds in want.items():
    seen = {e["name"].split(" ")[0] for e in model if e["tid"] == tid}
    check(kinds <= seen, "timeline: engine %d (%s) shows %s" % (tid, ["command processor", "math engine", "copy engine"][tid],
                                                                ", ".join(sorted(kinds - seen)) or "every kind asked for")
          + ("" if kinds <= seen else " missing"))
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
    math = [(e["ts"], e["ts"] + e["dur"]) for e in evs if e["tid"] == 1 and e["dur"] > 0]
    for c in (e for e in evs if e["tid"] == 2):
        if any(c["ts"] < m1 and m0 < c["ts"] + c["dur"] for m0, m1 in math):
            overlap += 1
check(overlap > 0, "timeline: copies overlap math in modelled time (%d copy spans)" % overlap)

print("TAP version 13")
for i, (ok, what) in enumerate(points, 1):
    print("%s %d %s" % ("ok" if ok else "not ok", i, what))
print("1..%d" % len(points))
sys.exit(0 if all(ok for ok, _ in points) else 1)
