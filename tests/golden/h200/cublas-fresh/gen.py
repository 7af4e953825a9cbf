#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen.py OUTDIR [SEED] - a fresh, broad set of cuBLAS/cuBLASLt GEMMs on an H200 (oracle 3 MXGV
cases, the format of ../README.md), made with a seed and shapes of its own, for judging
the HOPPER GEMM model and the default mode's accuracy on cases never used for fitting.

Types: TF32 (f32 in and out, torch.backends.cuda.matmul.allow_tf32), F64, F16 and BF16
with f32 out, F16 with f16 out; with and without C (D = A B^T + C, cuBLAS beta = 1).
Shapes: M and N from GEMVs (1) through odd sizes to 192, K from 16 to 8192 (the split-K
regimes), drawn at random. Also writes OUTDIR/kernels.tsv (the CUDA kernels each GEMM
launched, torch.profiler) and OUTDIR/versions.txt. Run with the device tool:
    python3 tests/golden/h200/cublas-fresh/gen.py $OUT/cublas-fresh            # the fit set
    python3 tests/golden/h200/cublas-fresh/gen.py $OUT/cublas-heldout 20261203  # held out
"""
import os
import random
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from mxgv import KernelLog, write_cublas_gemm  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cublas-grid"))
from grid import KS, MS, fits  # noqa: E402  (the domain, one definition)

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
torch.backends.cuda.matmul.allow_tf32 = True
SEED = int(sys.argv[2]) if len(sys.argv) > 2 else 20261202
torch.manual_seed(SEED)
rng = random.Random(SEED)
kern = KernelLog(os.path.join(out, "kernels.tsv"))


def one(ty, td, m, n, k, acc):
    name = "gemm_%s_%s_%dx%dx%d%s" % (ty, td, m, n, k, "_c" if acc else "")
    dt = {"tf32": torch.float32, "f64": torch.float64, "f16": torch.float16,
          "bf16": torch.bfloat16}[ty]
    odt = {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16}[td]
    a = torch.randn(m, k, device="cuda").to(dt)
    b = torch.randn(n, k, device="cuda").to(dt)
    c = torch.randn(m, n, device="cuda").to(odt) if acc else None
    if ty in ("tf32", "f64") or td == "f16":
        fn = (lambda: torch.addmm(c, a, b.t())) if acc else (lambda: torch.mm(a, b.t()))
    else:       # f16/bf16 inputs, f32 out
        fn = (lambda: torch.addmm(c, a, b.t(), out_dtype=torch.float32)) if acc else \
             (lambda: torch.mm(a, b.t(), out_dtype=torch.float32))
    d = kern.run(name, fn)
    assert d.dtype == odt, (name, d.dtype)
    write_cublas_gemm(os.path.join(out, name + ".mxgv"), ty, ty, td, a, b, c, d)
    print(name, flush=True)


seen = set()
for ty, td, count in (("tf32", "f32", 40), ("f64", "f64", 28), ("bf16", "f32", 24),
                      ("f16", "f32", 20), ("f16", "f16", 20)):
    made = 0
    while made < count:
        m, n, k = rng.choice(MS), rng.choice(MS), rng.choice(KS)
        if rng.random() < 0.3:
            m, n = n, m
        acc = rng.random() < 0.4
        if not fits(ty, td, m, n, k) or (ty, td, m, n, k, acc) in seen:
            continue
        seen.add((ty, td, m, n, k, acc))
        one(ty, td, m, n, k, acc)
        made += 1
kern.close()
with open(os.path.join(out, "versions.txt"), "w") as f:
    f.write("torch %s, CUDA %s, cuBLAS %s, %s\n" % (
        torch.__version__, torch.version.cuda, torch.backends.cuda.preferred_blas_library(),
        torch.cuda.get_device_name()))
