#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""probe.py OUTDIR - which algorithm cuBLAS/cuBLASLt picks on an H200 for every shape of
../cublas-fresh/gen.py's domain except the held-out set's shapes, and enough of each
result to tell the algorithms apart.

The held-out shapes (../cublas-heldout/kernels.tsv) are never run here, so a plan rule
built from this grid is judged there on shapes it has not seen.

The inputs are not random tensors but a hash of each element's index (grid_values() in
grid.py computes the same values on any machine), so the host can rebuild every case
from the shape alone. Per shape the grid keeps the CUDA kernels the
GEMM launched and the bits of up to 64 outputs (the first 32 and the last 32).

Writes OUTDIR/grid.tsv.gz: type, out type, m, n, k, C present (0/1), kernels (" | "),
the output indices kept, their bits (hex); and OUTDIR/versions.txt. Run with the device
tool:
    python3 tests/golden/h200/cublas-grid/probe.py $OUT
"""
import gzip
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from grid import DOMAIN, grid_shapes, grid_values  # noqa: E402

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
torch.backends.cuda.matmul.allow_tf32 = True
DT = {"tf32": torch.float32, "f64": torch.float64, "f16": torch.float16,
      "bf16": torch.bfloat16, "f32": torch.float32}
held = set(line.split("\t")[0]
           for line in open(os.path.join(HERE, "..", "cublas-heldout", "kernels.tsv")))
shapes = [s for s in grid_shapes() if s[-1] not in held]

# the largest operands of each type once; every case is a corner of them
base = {}
for ty in ("tf32", "f64", "bf16", "f16"):
    a = grid_values(ty, "a", DOMAIN["m"], DOMAIN["k"])
    b = grid_values(ty, "b", DOMAIN["n"], DOMAIN["k"])
    base[ty] = (torch.from_numpy(a).cuda().to(DT[ty]), torch.from_numpy(b).cuda().to(DT[ty]))
for td in ("f32", "f64", "f16"):
    base["c_" + td] = torch.from_numpy(grid_values(td, "c", DOMAIN["m"], DOMAIN["n"])).cuda().to(
        DT[td])


def call(ty, td, m, n, k, acc):
    a = base[ty][0][:m, :k].contiguous()
    b = base[ty][1][:n, :k].contiguous()
    c = base["c_" + td][:m, :n].contiguous() if acc else None
    if ty in ("tf32", "f64") or td == "f16":
        return torch.addmm(c, a, b.t()) if acc else torch.mm(a, b.t())
    return (torch.addmm(c, a, b.t(), out_dtype=torch.float32) if acc
            else torch.mm(a, b.t(), out_dtype=torch.float32))


def kept(d):
    flat = d.reshape(-1)
    idx = list(range(flat.numel())) if flat.numel() <= 64 else \
        list(range(32)) + list(range(flat.numel() - 32, flat.numel()))
    bits = flat[idx].cpu().numpy().view({2: np.uint16, 4: np.uint32, 8: np.uint64}[
        flat.element_size()])
    return idx, ["%x" % int(x) for x in bits]


results = []
for s in shapes:                        # warm-up, and the outputs
    results.append(kept(call(*s[:6])))
torch.cuda.synchronize()

# the kernels: one profiled pass, a marker kernel between shapes
marker = torch.zeros(1, dtype=torch.int64, device="cuda")     # its kernel: add<long>
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as p:
    for s in shapes:
        marker.add_(1)
        call(*s[:6])
    marker.add_(1)
    torch.cuda.synchronize()
ev = sorted((e for e in p.events() if e.device_type == torch.autograd.DeviceType.CUDA),
            key=lambda e: e.time_range.start)
groups, cur = [], None
for e in ev:
    if "elementwise" in e.name and "long" in e.name:
        if cur is not None:
            groups.append(cur)
        cur = []
    elif cur is not None:
        cur.append(e.name)
if len(groups) != len(shapes):        # the markers did not separate the shapes
    with open(os.path.join(out, "events.txt"), "w") as f:
        f.write("\n".join(e.name for e in ev))
    sys.exit("%d kernel groups for %d shapes: see events.txt" % (len(groups), len(shapes)))

with gzip.open(os.path.join(out, "grid.tsv.gz"), "wt") as f:
    for s, g, (idx, bits) in zip(shapes, groups, results):
        ty, td, m, n, k, acc = s[:6]
        f.write("%s\t%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\n" % (
            ty, td, m, n, k, acc, " | ".join(g), ",".join(map(str, idx)), ",".join(bits)))
with open(os.path.join(out, "versions.txt"), "w") as f:
    f.write("torch %s, CUDA %s, %s, %d shapes\n" % (
        torch.__version__, torch.version.cuda, torch.cuda.get_device_name(), len(shapes)))
print(len(shapes), "shapes")
