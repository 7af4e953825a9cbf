#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gemv_probe.py OUTDIR - the summation trees of cuBLAS's FP32/FP64 GEMV, dot and gemmSN
kernels on an H200: for each type, GEMV kernel and K of the grid (grid.tsv.gz), one of the
grid's shapes (grid_gemv_shapes()); without C where the grid ran that, else with C = 0.

A probe is one output whose K products are +B at i, -B at j and a small u everywhere
else, with B so large that any partial sum of u's added to +-B is lost. The output is then
u times the number of u's that reached the sum outside the subtree where i and j meet, so
size(i, j) = K - output / u is the number of products below the node that joins i and j
(the method of "FPRev", Xie et al. 2024). Per shape, i runs over the first 24 indices
and j over all of K (every s-th j where that would take more than 8000 launches).

Writes OUTDIR/gemv-trees.tsv.gz: per shape a line "#\\ttype\\tout\\tm\\tn\\tk\\tkernels\\tC", then
per i a line "i\\tj0,j1,...\\tsize0,size1,..."; and OUTDIR/versions.txt. Run with the
device tool:
    python3 tests/golden/h200/cublas-grid/gemv_probe.py $OUT
"""
import gzip
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
torch.backends.cuda.matmul.allow_tf32 = True
DT = {"tf32": torch.float32, "f64": torch.float64, "f16": torch.float16,
      "bf16": torch.bfloat16}
# (x, u-side value, B-side value): products u = x * small, B = x * big
LAUNCHES = 8000         # at most, per shape: every s-th j beyond that
VALS = {"tf32": (1.0, 1.0, 2.0 ** 40), "bf16": (1.0, 1.0, 2.0 ** 40),
        "f64": (1.0, 1.0, 2.0 ** 80), "f16": (2.0 ** 15, 2.0 ** -24, 2.0 ** 15)}


def mm(ty, a, b, acc=0):
    """A B^T as the grid ran it; with C (zeros, so the sum is unchanged) where acc."""
    c = torch.zeros(a.shape[0], b.shape[0], dtype=torch.float64 if ty == "f64" else
                    torch.float32, device="cuda") if acc else None
    if ty in ("tf32", "f64"):
        return torch.addmm(c, a, b.t()) if acc else torch.mm(a, b.t())
    return (torch.addmm(c, a, b.t(), out_dtype=torch.float32) if acc
            else torch.mm(a, b.t(), out_dtype=torch.float32))


def kernels(fn):
    fn()
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as p:
        fn()
        torch.cuda.synchronize()
    return [e.name for e in p.events() if e.device_type == torch.autograd.DeviceType.CUDA]


def probe_shape(f, ty, m, n, k, acc):
    dt = DT[ty]
    x, small, big = VALS[ty]
    u = x * small
    # per launch, P probes: the rows of B (m = 1), else the rows of A
    probe_b = m == 1
    per = n if probe_b else m
    xs = torch.full((1 if probe_b else n, k), x, dtype=dt, device="cuda")
    fill = torch.full((m if probe_b else per, k), small, dtype=dt, device="cuda")
    ks = kernels(lambda: mm(ty, fill, torch.full((n, k), small, dtype=dt, device="cuda"), acc)
                 if probe_b else mm(ty, fill, xs, acc))
    f.write("#\t%s\t%s\t%d\t%d\t%d\t%s\t%d\n" % (ty, "f64" if ty == "f64" else "f32", m, n,
                                                k, " | ".join(ks), acc))
    ii = list(range(min(k, 24)))
    stride = max(1, -(-len(ii) * k // (LAUNCHES * per)))
    for i in ii:
        js = torch.tensor([j for j in range(0, k, stride) if j != i], device="cuda")
        rows = torch.full((-(-len(js) // per) * per, k), small, dtype=dt, device="cuda")
        rows[:, i] = big
        rows[torch.arange(len(js), device="cuda"), js] = -big
        outs = []
        for s in range(0, rows.shape[0], per):
            part = rows[s:s + per].clone()     # aligned as a tensor of its own
            if probe_b:
                outs.append(mm(ty, xs, part, acc)[0])
            else:
                outs.append(mm(ty, part, xs, acc)[:, 0])
        d = torch.cat(outs)[:len(js)].double().cpu()
        sizes = [k - int(round(float(v) / u)) for v in d]
        f.write("%d\t%s\t%s\n" % (i, ",".join(map(str, js.tolist())), ",".join(map(str, sizes))))


def signature(kern):
    """A GEMV kernel's class and template arguments after its element types, and whether a
    splitKreduce follows (fit-cublas-plans.c's kernel_signature())."""
    for cls, skip in (("gemvx::kernel<", 6), ("dot_kernel<", 0), ("gemmSN_TN_kernel<", 0)):
        at = kern.find(cls)
        if at >= 0:
            args = kern[at + len(cls):].split(",")[skip:]
            tail = ",".join(args)
            return cls[:-1] + tail[:min(len(tail), *(tail.find(x) % (len(tail) + 1)
                                                    for x in "c("))] + \
                (" +splitKreduce" if "splitKreduce" in kern else "")
    return None


def grid_gemv_shapes():
    """One grid shape per type, GEMV kernel and K: no C where the grid ran one (else C, as
    zeros), and the most outputs per launch."""
    best = {}
    for line in gzip.open(os.path.join(HERE, "grid.tsv.gz"), "rt"):
        ty, td, m, n, k, acc, kern = line.split("\t")[:7]
        sig = signature(kern)
        if sig is None or td == "f16":
            continue
        m, n, k, acc = int(m), int(n), int(k), int(acc)
        score = (acc == 0, n if m == 1 else m)
        key = (ty, sig, k)
        if key not in best or score > best[key][0]:
            best[key] = (score, (ty, m, n, k, acc))
    return sorted(v[1] for v in best.values())


shapes = grid_gemv_shapes()
with gzip.open(os.path.join(out, "gemv-trees.tsv.gz"), "wt") as f:
    for ty, m, n, k, acc in shapes:
        probe_shape(f, ty, m, n, k, acc)
        print(ty, m, n, k, acc, flush=True)
with open(os.path.join(out, "versions.txt"), "w") as f:
    f.write("torch %s, CUDA %s, %s, %d shapes\n" % (
        torch.__version__, torch.version.cuda, torch.cuda.get_device_name(), len(shapes)))
