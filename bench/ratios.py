#!/usr/bin/env python3
# Join bench-gemm's guest lines and bench-host's host lines (kind,name,param,ns; accel-llm's
# llm lines add the step's wall ns) into
# build/bench/{gemm,pipeline,tma}.csv, each with a ratio column (ours / reference, higher
# is better). usage: ratios.py DIR (reads DIR/gemm-raw.csv and DIR/host-raw.csv)
import csv, sys, os

out = sys.argv[1]
rows = []
for f in ("gemm-raw.csv", "host-raw.csv"):
    path = os.path.join(out, f)
    if os.path.exists(path):
        rows += [r for r in csv.reader(open(path))
                 if len(r) in (4, 5) and all(x.replace('.', '').isdigit() for x in r[3:])]
host = {(r[1], r[2]): float(r[3]) for r in rows if r[0] == "host"}

def write(name, header, lines):
    if not lines:
        return
    with open(os.path.join(out, name), "w") as f:
        f.write(",".join(header) + "\n")
        for l in lines:
            f.write(",".join(str(x) for x in l) + "\n")

# 2. end to end accel_gemm against the engine alone (time ratio: engine / ours)
e2e = []
for r in rows:
    if r[0] != "e2e":
        continue
    shape = r[1].split("-", 1)[1]
    ref = [v for (n, t), v in host.items() if n == "engine-mxfp8-" + shape]
    if ref:
        ours = float(r[3])
        e2e.append(("e2e", "mxfp8-" + shape, r[2], "%.1f" % (ours / 1e6), "%.1f" % (ref[0] / 1e6),
                    "%.3f" % (ref[0] / ours)))
write("gemm.csv", ["bench", "shape", "measure", "ours_ms", "engine_ms", "ratio"], e2e)

# 3. pipelined against serial, same math (time ratio: serial / pipelined)
pipe = {}
for r in rows:
    if r[0] == "pipeline":
        sched, kind, stages = r[2].split("-")
        pipe.setdefault((r[1], sched), {})[kind] = (float(r[3]), stages)
lines = []
for (shape, sched), v in pipe.items():
    if "serial" in v and "pipelined" in v:
        s, p = v["serial"][0], v["pipelined"][0]
        lines.append(("pipeline", shape, sched, v["pipelined"][1], "%.2f" % (p / 1e6),
                      "%.2f" % (s / 1e6), "%.3f" % (s / p)))
write("pipeline.csv", ["bench", "shape", "sched", "stages", "pipelined_ms", "serial_ms", "ratio"], lines)

# 3b. the planned stages on the device's cores (a persistent grid) against one instance
lines = []
for (shape, sched), v in pipe.items():
    for kind, (t, stages) in v.items():
        if kind.startswith("grid") and "pipelined" in v:
            p = v["pipelined"][0]
            instances, cluster = kind[4:].split("c")
            lines.append(("pipeline-cores", shape, sched, instances, cluster,
                          "%.2f" % (t / 1e6), "%.2f" % (p / 1e6), "%.3f" % (p / t)))
write("grid.csv", ["bench", "shape", "sched", "instances", "cluster", "grid_ms",
                   "one_instance_ms", "ratio"], lines)

# 3c. the pipelines (64 x N x 32-byte EXACT WGMMA steps) against the engine's FAST GEMM
# command on the same operands (time ratio: fast / pipeline). wgmma_bound_ms: the
# pipeline's WGMMAs alone at bench-host's cost of one (engine-wgmma-e4m3-64xNx32, N 256
# or 64 as the shape allows, per column), on one host thread for a single instance (a
# core's WGMMAs run on its one math thread), a grid's on as many as it has instances, up
# to the host's CPUs;
# bound_ratio: the ratio the pipeline would have in that time (below the goal: bound by
# the WGMMA's cost on this host, not by the pipeline around it).
ref = {r[1]: float(r[3]) for r in rows if r[0] == "pipeline-ref" and r[2] == "command-fast"}
wg = {int(nm.split("-")[-1].split("x")[1]): v for (nm, t), v in host.items()
      if nm.startswith("engine-wgmma-e4m3-64x")}
lines = []
for (shape, sched), v in pipe.items():
    if shape not in ref:
        continue
    m, n, k = (int(x) for x in shape.split("-", 1)[1].split("x"))
    nw = max([w for w in wg if w <= n] or [0])
    for kind, (t, stages) in v.items():
        inst = int(kind[4:].split("c")[0]) if kind.startswith("grid") else \
            (m // 128) * (n // 128) if kind == "handwrittengrid" else 1
        threads = min(inst, os.cpu_count() or 1)
        bound = (m / 64) * (k / 32) * n * wg[nw] / nw / threads if nw else 0
        lines.append(("pipeline-vs-fast", shape, kind, sched, stages, "%.2f" % (t / 1e6),
                      "%.2f" % (ref[shape] / 1e6), "%.2f" % (bound / 1e6),
                      "%.3f" % (ref[shape] / bound) if bound else "", "%.3f" % (ref[shape] / t)))
write("pipeline-fast.csv", ["bench", "shape", "program", "sched", "stages", "pipeline_ms",
                            "fast_gemm_ms", "wgmma_bound_ms", "bound_ratio", "ratio"], lines)

# 1. GEMV: weight bytes (elements and scales) per second of device time against host
# memcpy of the same bytes. arith_bound_ms is the least time the host's arithmetic
# allows: M N K products on the device's 2 engine threads at bench-host's fma-f64 rate
# (FAST: f32, twice the lanes), or for E2M1 weights (mxfp4, nvfp4, mxfp4silu) at its
# dot-i16 rate (the int16 dot products their kernels sum in, once a part of A: the
# bound counts one); bound_ratio the ratio a row would have at that time
# (below the goal: the row is bound by the host's arithmetic, not by streaming the
# weights).
fma = [(int(t), v) for (nm, t), v in host.items() if nm == "fma-f64"]
dot = [(int(t), v) for (nm, t), v in host.items() if nm == "dot-i16"]
lines = []
for r in rows:
    if r[0] != "gemv":
        continue
    kind, shape = r[1].split("-", 1)
    numerics = "fast" if r[2] == "device-fast" else "exact"
    m, n, k = (int(x) for x in shape.split("x"))
    b = (n * k if kind == "mxfp8" else n * k // 2) + n * k // (16 if kind == "nvfp4" else 32)
    hname = "engine-gemv-%s%s-%s" % (kind, "-fast" if numerics == "fast" else "", shape)
    eng = [v for (nm, t), v in host.items() if nm == hname]
    if ("memcpy-weights", str(b)) in host:
        ours, ref = b / float(r[3]), b / host[("memcpy-weights", str(b))]
        bound = ""
        if fma:
            per_ns = 2 * fma[0][0] / fma[0][1] * (2 if numerics == "fast" else 1)
            if kind in ("mxfp4", "nvfp4", "mxfp4silu") and dot:
                per_ns = max(per_ns, 2 * dot[0][0] / dot[0][1])
            bound_ns = m * n * k / per_ns
            bound = ("%.2f" % (bound_ns / 1e6), "%.2f" % (b / bound_ns / ref))
        lines.append(("gemv", kind, numerics, shape, "%.1f" % (b / 2**20),
                      "%.2f" % (float(r[3]) / 1e6), "%.2f" % (eng[0] / 1e6) if eng else "",
                      *(bound or ("", "")), "%.2f" % ours, "%.2f" % ref,
                      "%.3f" % (ours / ref)))
write("gemv.csv", ["bench", "weights", "numerics", "shape", "weight_MiB", "device_ms",
                   "engine_ms", "arith_bound_ms", "bound_ratio", "weight_GBps", "memcpy_GBps",
                   "ratio"], lines)

# 1b. the LLM decode step (libaccel/examples/accel-llm.c): the step's wall time and
# tokens/s, and weight bytes per second of the step's device GEMM time against the host
# memcpy of the largest GEMV weight set (66 MiB, beyond the caches, as 208 MiB of
# weights are)
lines = []
big = max(((int(n), v) for (m, n), v in host.items() if m == "memcpy-weights"), default=None)
for r in rows:
    if r[0] == "llm" and big:
        b = int(r[2])
        ours, ref = b / float(r[3]), big[0] / big[1]
        step = float(r[4]) if len(r) > 4 else 0
        lines.append(("llm", r[1], "%.1f" % (b / 2**20), "%.1f" % (step / 1e6) if step else "",
                      "%.2f" % (1e9 / step) if step else "", "%.2f" % (float(r[3]) / 1e6),
                      "%.2f" % ours, "%.2f" % ref, "%.3f" % (ours / ref)))
write("llm.csv", ["bench", "model", "weight_MiB", "step_ms", "tokens_per_s", "device_ms",
                  "weight_GBps", "memcpy_GBps", "ratio"], lines)

# 5. TMA against host memcpy of the same bytes (bandwidth ratio)
lines = []
for r in rows:
    if r[0] == "tma" and ("memcpy-" + r[1], r[2]) in host:
        b = float(r[2])
        ours, ref = b / float(r[3]), b / host[("memcpy-" + r[1], r[2])]
        # the bound: memcpy of the same bytes in scattered 4 KiB pages, as the guest's are
        pages = host.get(("memcpy-" + r[1] + "-pages", r[2]))
        bound = "%.3f" % ((b / pages) / ref) if pages else ""
        lines.append(("tma", r[1], "64KiB-boxes", "%.2f" % ours, "%.2f" % ref, "%.3f" % (ours / ref),
                      bound))
write("tma.csv", ["bench", "dir", "unit", "tma_GBps", "memcpy_GBps", "ratio", "pages_bound_ratio"],
      lines)
