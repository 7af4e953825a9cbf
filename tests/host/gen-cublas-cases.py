#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen-cublas-cases.py OUTDIR - extra oracle-3 MXGV cases (cuBLAS/cuBLASLt GEMMs on an
H200, the way the H200 golden set made its gemm_* cases) for shapes the golden set lacks, to
pin down the HOPPER GEMM model (split-K choice, FP8 promotion). Also writes
OUTDIR/kernels.tsv: the CUDA kernels each GEMM launched (torch.profiler)."""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden"))
from mxgv import FLAG_FAST_ACCUM, KernelLog, write_cublas_gemm  # noqa: E402

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
torch.backends.cuda.matmul.allow_tf32 = True
torch.manual_seed(1234)
kern = KernelLog(os.path.join(out, "kernels.tsv"))


def write(name, ta, tb, td, a, b, d, flags):
    write_cublas_gemm(os.path.join(out, name + ".mxgv"), ta, tb, td, a, b, None, d, flags)


def one(ty, m, n, k, fast=False, tb=None):
    tb = tb or ty
    name = "gemm_%s_%dx%dx%d%s" % (ty if tb == ty else ty + "x" + tb, m, n, k, "_fast" if fast else "")
    if ty in ("e4m3", "e5m2"):
        cv = {"e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2}
        a = torch.randn(m, k, device="cuda").to(cv[ty])
        b = torch.randn(n, k, device="cuda").to(cv[tb])
        one_ = torch.tensor(1.0, device="cuda")
        d = kern.run(name, lambda: torch._scaled_mm(a, b.t(), scale_a=one_, scale_b=one_,
                                               out_dtype=torch.float32, use_fast_accum=fast))
        write(name, ty, tb, "f32", a, b, d, FLAG_FAST_ACCUM if fast else 0)
    elif ty in ("bf16", "f16"):
        dt = torch.bfloat16 if ty == "bf16" else torch.float16
        a = torch.randn(m, k, device="cuda").to(dt)
        b = torch.randn(n, k, device="cuda").to(dt)
        d = kern.run(name, lambda: torch.mm(a, b.t(), out_dtype=torch.float32))
        write(name, ty, ty, "f32", a, b, d, 0)
    elif ty == "tf32":
        a = torch.randn(m, k, device="cuda")
        b = torch.randn(n, k, device="cuda")
        d = kern.run(name, lambda: torch.mm(a, b.t()))
        write(name, ty, ty, "f32", a, b, d, 0)
    elif ty == "f64":
        a = torch.randn(m, k, device="cuda", dtype=torch.float64)
        b = torch.randn(n, k, device="cuda", dtype=torch.float64)
        d = kern.run(name, lambda: torch.mm(a, b.t()))
        write(name, ty, ty, "f64", a, b, d, 0)
    print(name, flush=True)


groups = {
    "tf32": [(64, 64, 32), (64, 64, 128), (64, 64, 256), (64, 64, 512), (64, 64, 1024),
             (128, 256, 128), (128, 256, 256), (128, 256, 1024), (256, 128, 512),
             (256, 128, 1024), (256, 256, 256), (512, 512, 512)],
    "f64": [(64, 64, 256), (64, 64, 1024), (64, 64, 2048), (128, 256, 1024), (256, 128, 1024),
            (256, 256, 512)],
    "bf16": [(64, 64, 4096), (128, 128, 8192), (512, 512, 2048), (256, 256, 256)],
}
for ty, shapes in groups.items():
    for s in shapes:
        one(ty, *s)
for s, fast in [((64, 64, 4096), False), ((64, 64, 4096), True), ((128, 128, 8192), False),
                ((512, 512, 2048), False), ((512, 512, 2048), True), ((64, 64, 384), False),
                ((64, 64, 160), False)]:
    one("e4m3", *s, fast=fast)
one("e4m3", 256, 128, 2048, tb="e5m2")
kern.close()
